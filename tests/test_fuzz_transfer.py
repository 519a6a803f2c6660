"""Fuzzing export and import: any game played through the store comes back
from its export the same game (moves, redo line, counters, times, status),
a second import of it adds nothing, and a refused import changes nothing."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from terrace.deal import Deal
from terrace.storage import open_store
from terrace.storage.base import StoredGame, StoreError
from terrace.storage.transfer import ImportRefusedError, export_record, read_games
from terrace.variants import PRESETS, get_rules

FIELDS = ("variant", "rules", "deal", "moves", "redo", "status", "hints", "undos", "winnable_only",
          "created_at", "updated_at", "started_at", "finished_at", "assisted", "active_ms",
          "won_at", "won_moves", "won_active_ms", "given_up_at")

ACTIONS = st.lists(st.sampled_from(["move"] * 6 + ["undo", "redo", "hint", "assist", "time", "give-up"]),
                   max_size=40)


def _play(store: object, variant: str, number: int, actions: list[str], seed: int,
          options: dict[str, Any] | None = None) -> StoredGame:
    """A game of ``variant`` (with rule ``options``) played through ``store``
    as the web game plays it."""
    rules = get_rules(variant, **(options or {}))
    game = store.create(variant, rules, Deal.from_number(number, rules))  # type: ignore[attr-defined]
    rng = random.Random(seed)
    for action in actions:
        game = store.get(game.id)  # type: ignore[attr-defined]
        board = game.board()
        if action == "hint":
            store.count_hint(game.id, board.position())  # type: ignore[attr-defined]
            continue
        if action == "assist":
            store.mark_assisted(game.id)  # type: ignore[attr-defined]
            continue
        if action == "time":
            store.add_active_time(game.id, rng.randrange(0, 100_000))  # type: ignore[attr-defined]
            continue
        revision = game.revision
        if action == "move":
            legal = list(board.legal_moves)
            if not legal:
                continue
            board.push(rng.choice(legal))
        elif action == "undo":
            if not board.move_stack:
                continue
            board.pop()
            game.undos += 1
        elif action == "redo":
            if not board.redo_stack:
                continue
            board.redo()
        else:  # give up
            if game.status == "won" or game.won_at is not None or not (board.move_stack or board.redo_stack):
                continue
            game.given_up_at = game.updated_at + 1
        game.sync(board)
        store.update(game, expected_revision=revision, action=action)  # type: ignore[attr-defined]
        if action == "give-up":
            break
    return store.get(game.id)  # type: ignore[attr-defined]


def _rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(db) as conn:
        return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("games", "moves", "events", "hinted", "migrations")}


OPTIONS = st.fixed_dictionaries({}, optional={
    "candidates": st.just(0), "spaces": st.sampled_from(["auto", "free", "waste"]),
    "redeals": st.integers(0, 2), "foundation_return": st.booleans(), "promote_candidates": st.booleans(),
})
"""Rule options that every preset takes, over its own (a turned base card, other spaces, redeals...)."""


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variant=st.sampled_from(sorted(PRESETS)), options=OPTIONS, number=st.integers(0, 10_000),
       actions=ACTIONS, seed=st.integers(0, 2**32))
def test_an_export_imports_as_the_same_game_and_once(
    tmp_path_factory: object, variant: str, options: dict[str, Any], number: int, actions: list[str],
    seed: int,
) -> None:
    folder = tmp_path_factory.mktemp("rt")  # type: ignore[attr-defined]
    here, there = folder / "here.sqlite", folder / "there.sqlite"
    with open_store(here) as store:
        game = _play(store, variant, number, actions, seed, options)
        text = json.dumps([export_record(game)], indent=2)
    with open_store(there) as other:
        ids = other.add_games(read_games(text))
        assert ids == [(game.id, True)]
        again = other.get(game.id)
        for name in FIELDS:
            assert getattr(again, name) == getattr(game, name), name
        # the export of the import is the export itself
        assert json.dumps([export_record(again)], indent=2) == text
        before = _rows(there)
        assert other.add_games(read_games(text)) == [(game.id, False)]
    assert _rows(there) == before
    with open_store(here) as store:
        before = _rows(here)
        assert store.add_games(read_games(text)) == [(game.id, False)]
    assert _rows(here) == before


LIES = {
    "result": lambda r: r.update(result="won"),
    "a move": lambda r: r["moves"].append("t1t1"),
    "a move it cannot play": lambda r: r["moves"].append("f9t9"),
    "redo": lambda r: r["saved"].update(redo=["rt1"]),
    "hints": lambda r: r["saved"].update(hints=-1),
    "a win": lambda r: r["saved"].update(won_at=r["saved"]["created_at"], won_moves=1),
    "the deal number": lambda r: r.update(deal_number=r["deal_number"] + 1),
    "the rules": lambda r: r["rules"].update(piles=0),
    "given up unplayed": lambda r: r.update(moves=[], result="choosing", saved={**r["saved"], "redo": [],
                                                                                "given_up_at": 1.8e9}),
}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lie=st.sampled_from(sorted(LIES)), number=st.integers(0, 10_000), seed=st.integers(0, 2**32))
def test_a_record_that_lies_is_refused_and_the_database_is_unchanged(
    tmp_path_factory: object, lie: str, number: int, seed: int
) -> None:
    db = tmp_path_factory.mktemp("lie") / "games.sqlite"  # type: ignore[attr-defined]
    with open_store(db) as store:
        game = _play(store, "terrace", number, ["move"] * 8, seed)
        good = export_record(game)
        bad = json.loads(json.dumps(good))
        bad["saved"]["id"] = "other"
        LIES[lie](bad)
        before = _rows(db)
        try:
            store.add_games(read_games(json.dumps([good, bad])))
        except ImportRefusedError as error:
            assert error.reasons and all(reason.startswith("record 2: ") for reason in error.reasons)
        else:
            raise AssertionError(f"a record that lies about {lie} was imported")
    assert _rows(db) == before


def test_a_line_that_does_not_replay_names_the_move_that_fails(tmp_path: Path) -> None:
    # (both said only "its moves do not replay: rf: ...": of a redo line, and
    # of a move somewhere in a game of hundreds, with no word of which)
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        game = _play(store, "terrace", 7, ["move"] * 12 + ["undo"] * 3, 5)
        record = export_record(game)
    record["saved"]["redo"][0] = "c1"  # (the last of three to redo: they are stored next-to-redo last)
    try:
        read_games(json.dumps(record))
    except ImportRefusedError as error:
        said = "nothing was imported: its moves do not replay: saved.redo item 1 of 3: c1: "
        assert str(error).startswith(said), str(error)
    else:
        raise AssertionError("a redo line that does not replay was imported")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE moves SET move = 'c1' WHERE game_id = ? AND ply = 4", (game.id,))
    with open_store(db) as store:
        try:
            store.get(game.id)
        except StoreError as error:
            assert "its moves do not replay: move 5: c1: " in str(error), str(error)
        else:
            raise AssertionError("a game whose fifth move does not replay was read")
