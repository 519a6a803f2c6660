"""Giving a game up, on every store: it counts as lost for good, is never
changed again, is not resumed, survives export and import and the upgrade
from schema 3; and several moves stored in one change are logged one by one."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from store_support import (
    golden,
    no_default_db,
    play,
    start,
    store_on_each_kind,  # noqa: F401  (the store fixture)
    undo,
)
from terrace.storage import LATEST_VERSION, GameStore, GivenUpError, StoredGame, StoreError, open_store
from terrace.storage.transfer import export_record, read_games
from test_store_files import _old_database

_ = no_default_db


def give_up(store: GameStore, game: StoredGame) -> None:
    game.given_up_at = time.time()
    store.update(game, expected_revision=game.revision, action="give-up")


def test_a_game_given_up_counts_as_lost_and_never_changes(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    give_up(store, game)
    again = store.get(game.id)
    assert again.given_up_at is not None and again.finished_at == again.given_up_at
    assert again.status == "playing" and again.moves == list(record.moves[:5])
    overall = store.statistics()["overall"]
    assert (overall["played"], overall["lost"], overall["abandoned"], overall["win_rate"]) == (1, 1, 0, 0.0)
    assert store.latest_unfinished() is None
    for action in ("move", "undo", "give-up"):
        with pytest.raises(GivenUpError, match="was given up"):
            store.update(again, expected_revision=again.revision, action=action)
    with pytest.raises(GivenUpError):
        play(store, store.get(game.id), record.moves[5:6])
    after = store.get(game.id)
    assert after.revision == again.revision and after.moves == again.moves
    # (nor does playing time: a report read before the game was given up adds nothing after it)
    with pytest.raises(GivenUpError, match="was given up"):
        store.add_active_time(game.id, 1000, at=time.monotonic())
    assert store.get(game.id).active_ms == after.active_ms


def test_giving_up_keeps_its_time_and_a_stale_tab_cannot_give_up(store: GameStore) -> None:
    record = golden("terrace-lost")
    game = start(store, record)
    play(store, game, record.moves[:3])
    tab = store.get(game.id)
    play(store, game, record.moves[3:4])
    tab.given_up_at = time.time()
    with pytest.raises(StoreError, match="changed in another window"):
        store.update(tab, expected_revision=tab.revision, action="give-up")
    assert store.get(game.id).given_up_at is None
    give_up(store, game)
    given = store.get(game.id).given_up_at
    game.given_up_at = None  # an update cannot take it back
    assert store.get(game.id).given_up_at == given


def test_a_win_stays_a_win_and_a_given_up_game_is_not_resumed(store: GameStore) -> None:
    won = golden("terrace-won")
    game = start(store, won)
    play(store, game, won.moves)
    undo(store, game)
    other = start(store, golden("terrace-lost"))
    play(store, other, golden("terrace-lost").moves[:2])
    give_up(store, other)
    overall = store.statistics()["overall"]
    assert (overall["won"], overall["lost"], overall["abandoned"], overall["unfinished"]) == (1, 1, 0, 0)
    latest = store.latest_unfinished()
    assert latest is not None and latest.id == game.id


def test_export_and_import_keep_a_game_given_up(store: GameStore, tmp_path: Path) -> None:
    record = golden("terrace-lost")
    game = start(store, record)
    play(store, game, record.moves[:4])
    give_up(store, game)
    exported = export_record(store.get(game.id))
    assert exported["saved"]["given_up_at"] == store.get(game.id).given_up_at
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(json.dumps(exported)))
        copy = other.get(game.id)
        assert copy.given_up_at == exported["saved"]["given_up_at"]
        assert other.statistics()["overall"]["lost"] == 1
    ended = export_record(store.get(game.id))
    ended["result"], ended["moves"] = "lost", list(record.moves)
    [copy] = read_games(json.dumps(ended))  # lost with no move left, then given up: allowed
    assert copy.status == "lost" and copy.given_up_at is not None


def test_a_game_lost_and_then_given_up_stays_counted_and_exportable(store: GameStore, tmp_path: Path) -> None:
    """The web game lets a player give up a game that has no move left (the
    loss becomes final): it is a lost game like any other, in the statistics
    and in a backup, never a damaged one."""
    record = golden("terrace-lost")
    game = start(store, record)
    play(store, game, record.moves)
    assert store.get(game.id).status == "lost"
    give_up(store, game)
    stats = store.statistics()
    assert (stats["overall"]["played"], stats["overall"]["lost"], stats.get("damaged", 0)) == (1, 1, 0)
    exported = export_record(store.get(game.id))
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(json.dumps(exported)))
        assert other.get(game.id).given_up_at is not None
        assert other.statistics()["overall"]["lost"] == 1


def test_an_import_refuses_a_game_given_up_without_a_move(store: GameStore) -> None:
    """As the web game refuses to give up a game not played (give-up-unplayed)."""
    record = golden("terrace-lost")
    game = start(store, record)
    play(store, game, record.moves[:4])
    give_up(store, game)
    unplayed = export_record(store.get(game.id))
    unplayed["moves"], unplayed["result"] = [], "choosing"
    with pytest.raises(StoreError, match=r"saved\.given_up_at: a game without a move cannot have"):
        read_games(json.dumps(unplayed))
    # Moves taken back (all of them, onto the redo stack) were still played.
    undone = export_record(store.get(game.id))
    undone["moves"], undone["result"] = [], "choosing"
    undone["saved"]["redo"] = list(reversed(record.moves[:4]))
    [copy] = read_games(json.dumps(undone))
    assert copy.given_up_at is not None and copy.redo == list(reversed(record.moves[:4]))


def test_several_moves_in_one_change_are_logged_one_by_one(tmp_path: Path) -> None:
    record = golden("terrace-won")
    with open_store(tmp_path / "games.sqlite") as store:
        game = start(store, record)
        play(store, game, record.moves[:2])
        board = game.board()
        for move in record.moves[2:7]:
            board.push_text(move)
        revision = game.revision
        game.sync(board)
        store.update(game, expected_revision=revision, action="move")
        moves = [(e["move"], e["moves"]) for e in store.history(game.id) if e["action"] == "move"]
        assert moves == [(m, n) for n, m in enumerate(record.moves[:7], 1)]
        assert store.get(game.id).revision == revision + 1


def test_upgrade_from_schema_3_keeps_the_event_log(tmp_path: Path) -> None:
    db = _old_database(tmp_path / "games.sqlite", 3)
    conn = sqlite3.connect(db)
    events = conn.execute("SELECT * FROM events ORDER BY id").fetchall()
    conn.close()
    with open_store(db) as store:
        assert store.migrations_applied == list(range(4, LATEST_VERSION + 1))
        assert store.get("open").given_up_at is None
        give_up(store, store.get("open"))
        assert store.history("open")[-1]["action"] == "give-up"
        assert store.statistics()["overall"]["lost"] == 1
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT * FROM events ORDER BY id").fetchall()[: len(events)] == events
    conn.close()
