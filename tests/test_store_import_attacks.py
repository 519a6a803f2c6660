"""Import and export under attack: the same game found however its deal is
spelled, each game replayed once, adversarial files of one game's states
kept near linear or refused, and the log's order kept through an export."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import golden, no_default_db
from terrace.cli import main

_ = no_default_db


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _won_record(game_id: str, created_at: float) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(golden("terrace-won").to_json())
    record["saved"] = {"id": game_id, "created_at": created_at, "updated_at": created_at + 600}
    return record


def _count_games(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])


@pytest.mark.parametrize("spelling", ["lower(deal)", "replace(deal, ' ', '  ')", "' ' || deal || char(10)"])
def test_a_stored_deal_spelled_otherwise_is_the_same_deal(tmp_path: Path, spelling: str) -> None:
    """A stored game whose deal string was written in another spelling
    (edited by hand, or by another tool: other spacing or case) still
    loads as the same deal, but an import compared deal strings as text:
    the record's game was not found, and a second copy was added (the
    statistics then counted two wins)."""
    db, backup = tmp_path / "games.sqlite", tmp_path / "backup.json"
    backup.write_text(json.dumps(_won_record("g1", time.time() - 86_400)))
    assert _cli("import", str(backup), "--db", str(db)).output == "imported 1 game\n"
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE games SET deal = {spelling}")
    result = _cli("import", str(backup), "--db", str(db))
    assert result.output == "imported 0 games (1 already here)\n", result.output + str(result.exception)
    assert _count_games(db) == 1
