"""A huge value in a damaged row (a hand edit, a broken tool) is refused
as damage at little cost: the reads measure it in SQL and fetch a short
note in its place. A 100 MB value made ``terrace stats``, the recent list
and a read of the game cost 3.5 s and 900 MB; here 4 MB show the
difference by the memory the reads take."""

from __future__ import annotations

import logging
import sqlite3
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from store_support import golden, play, start
from terrace.storage import DamagedGameError, SqliteStore, StoreError, open_store

BIG = 4_000_000
"""The size of the value put in: a read that fetched it would take several
times this much memory (the text, its copies, its decoding)."""
BOUND = BIG // 4
"""The most memory a read may take here (a few KB are enough)."""


def _damaged(db: Path, sql: str) -> tuple[str, str]:
    """A file of two games (one played), then ``sql`` run by hand with the
    played game's id and a huge text; returns the two ids."""
    with open_store(db) as store:
        game = start(store, golden("terrace-won"))
        play(store, game, golden("terrace-won").moves[:5])
        other = start(store, golden("terrace-won"))
        play(store, other, golden("terrace-won").moves[:3])
        ids = game.id, other.id
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute(sql, {"big": "x" * BIG, "id": ids[0], "wide": "\u00e9" * 40_000})
    conn.close()
    return ids


def _peak(work: Callable[[], Any]) -> tuple[Any, int]:
    """What ``work`` returns (or raises) and the most memory it took."""
    tracemalloc.start()
    try:
        try:
            result: Any = work()
        except StoreError as error:
            result = error
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


EDITS = {
    "variant": "UPDATE games SET variant = :big WHERE id = :id",
    "rules": "UPDATE games SET rules = :big WHERE id = :id",
    "deal": "UPDATE games SET deal = :big WHERE id = :id",
    "hints": "UPDATE games SET hints = :big WHERE id = :id",
    "a time": "UPDATE games SET updated_at = :big WHERE id = :id",
    "a move": "UPDATE moves SET move = :big WHERE game_id = :id AND ply = 2",
    "a BLOB move": "UPDATE moves SET move = CAST(:big AS BLOB) WHERE game_id = :id AND ply = 2",
}


@pytest.mark.parametrize("column", sorted(EDITS))
def test_a_huge_value_is_refused_as_damage_without_being_read(
        tmp_path: Path, column: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL)
    db = tmp_path / "games.sqlite"
    game_id, other_id = _damaged(db, EDITS[column])
    for read_only in (True, False):
        with SqliteStore(db, read_only=read_only) as store:
            stats, peak = _peak(store.statistics)
            assert stats["damaged"] == 1 and stats["overall"]["played"] == 1
            assert peak < BOUND, ("statistics", peak)
            recent, peak = _peak(store.recent)
            assert [game.id for game in recent] == [other_id]
            assert peak < BOUND, ("recent", peak)
            refused, peak = _peak(lambda: store.get(game_id))
            assert isinstance(refused, DamagedGameError), refused
            assert "too long to be read" in str(refused) and len(str(refused)) < 1_000
            assert peak < BOUND, ("get", peak)
            latest, peak = _peak(store.latest_unfinished)
            assert latest is not None and latest.id == other_id
            assert peak < BOUND, ("latest", peak)
            taken: list[str] = []

            def take(game_id: str, game: Any, places: Any, into: list[str] = taken) -> None:
                into.append("damaged" if isinstance(game, StoreError) else game_id)

            _, peak = _peak(lambda: store.export_games(None, take))
            assert taken == ["damaged", other_id]
            assert peak < BOUND, ("export", peak)


def test_a_huge_id_is_left_out_without_being_read(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.CRITICAL)
    db = tmp_path / "games.sqlite"
    _, other_id = _damaged(db, "UPDATE games SET id = :big WHERE id = :id")
    with open_store(db, read_only=True) as store:
        for work in (store.statistics, store.recent, store.latest_unfinished, store.game_ids):
            _, peak = _peak(work)
            assert peak < BOUND, (work, peak)
        assert store.statistics()["damaged"] == 1
        assert store.game_ids() == [other_id]


def test_a_huge_move_in_the_log_is_not_read(tmp_path: Path) -> None:
    """The event log of a game (a fair hint and the coach read it) with a
    huge move text: read as a short note, not fetched."""
    db = tmp_path / "games.sqlite"
    game_id, _ = _damaged(db, "UPDATE events SET move = :big WHERE game_id = :id AND action = 'move'")
    with open_store(db) as store:
        history, peak = _peak(lambda: store.history(game_id))
        assert peak < BOUND, peak
        assert any("too long to be read" in str(event["move"]) for event in history)


def test_a_value_is_bounded_by_its_bytes_on_every_sqlite(tmp_path: Path) -> None:
    """The bound is in bytes (SQLite 3.43's octet_length reads them from
    the row's header, the value left on the disk; before, length() of
    the value as a BLOB, which spares counting the characters: terrace
    stats on a 100 MB value took 0.2 s of user CPU instead of 0.4 s).
    length() counted characters: 40,000 two-byte characters were read,
    80 KB, where the bound promises no more than 64 KB."""
    db = tmp_path / "games.sqlite"
    game_id, _ = _damaged(db, "UPDATE games SET rules = :wide WHERE id = :id")
    with open_store(db, read_only=True) as store, pytest.raises(DamagedGameError) as refused:
        store.get(game_id)
    assert "rules holds a value too long to be read (more than 65,536 bytes)" in str(refused.value)
