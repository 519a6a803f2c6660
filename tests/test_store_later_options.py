"""Games saved before a rule option was added: their saved rules lack its
key, and they were played by the value :data:`terrace.rules.LATER_OPTIONS`
gives it (``promote_candidates``: other candidates of the chosen rank went
up at once, the only reading there was)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from store_support import golden, play, start
from terrace.rules import LATER_OPTIONS, RULE_FIELDS
from terrace.storage import DamagedGameError, open_store


def _saved_as_before(db: Path, game_id: str, drop: str) -> None:
    """Write the game's rules as a version without the option ``drop`` did."""
    conn = sqlite3.connect(db, isolation_level=None)
    (text,) = conn.execute("SELECT rules FROM games WHERE id = ?", (game_id,)).fetchone()
    data = json.loads(text)
    del data[drop]
    conn.execute("UPDATE games SET rules = ? WHERE id = ?", (json.dumps(data, sort_keys=True), game_id))
    conn.close()


def test_a_game_saved_before_an_option_was_added_loads_plays_and_counts(tmp_path: Path) -> None:
    """Saved rules lacking promote_candidates were 'incomplete' (the game
    damaged), and a move in such a game was refused as changing its rules."""
    assert set(LATER_OPTIONS) <= set(RULE_FIELDS)
    db = tmp_path / "games.db"
    record = golden("terrace-won")
    with open_store(db) as store:
        game = start(store, record)
        play(store, game, record.moves[:5])
        game_id = game.id
    for name in LATER_OPTIONS:
        _saved_as_before(db, game_id, name)
    with open_store(db) as store:
        game = store.get(game_id)
        assert game.rules == record.rules and game.played_count() == 5
        play(store, game, record.moves[5:])
        assert store.get(game_id).status == "won"
        stats = store.statistics()
        assert stats["damaged"] == 0 and stats["variants"]["terrace"]["won"] == 1


def test_saved_rules_lacking_an_older_option_are_still_damaged(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    with open_store(db) as store:
        game_id = start(store, golden("terrace-won")).id
    _saved_as_before(db, game_id, "decks")
    with open_store(db) as store, pytest.raises(DamagedGameError, match="incomplete"):
        store.get(game_id)
