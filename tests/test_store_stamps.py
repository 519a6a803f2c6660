"""Replay stamps: the statistics count a game without replaying it when its
row and line still give the stamp written with its last checked change, and
replay (and refuse, if damaged) every game whose stamp is missing or does
not fit. The counts are the same either way."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from store_support import count_pushes, golden, no_default_db, play, quick_finish, start, undo
from terrace.storage import SqliteStore, open_store
from terrace.storage.paths import findings_folder

_ = no_default_db


@pytest.fixture
def games(tmp_path: Path) -> Path:
    """A database of four games: won, unfinished with a redo stack, given
    up, and not begun."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        quick_finish(store, "terrace-won")
        record = golden("terrace-won")
        game = start(store, record)
        play(store, game, record.moves[:30])
        undo(store, game, 3)
        lost = start(store, golden("terrace-lost"))
        play(store, lost, golden("terrace-lost").moves[:8])
        lost.given_up_at = time.time()
        store.update(lost, expected_revision=lost.revision, action="give-up")
        start(store, record)
    return db


@pytest.fixture
def pushes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many moves the engine plays (a replay plays every move of a game)."""
    return count_pushes(monkeypatch)


def edit(db: Path, *statements: str) -> None:
    """Change the file by hand, as another program would."""
    conn = sqlite3.connect(db)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def stamps(db: Path) -> list[Any]:
    conn = sqlite3.connect(db)
    found = [s for (s,) in conn.execute("SELECT replay_stamp FROM games ORDER BY rowid")]
    conn.close()
    return found


def statistics(db: Path, read_only: bool = False) -> dict[str, Any]:
    with SqliteStore(db, read_only=read_only) as store:
        return store.statistics()


def test_every_checked_change_stamps_the_game(games: Path) -> None:
    assert len(stamps(games)) == 4 and all(isinstance(s, str) and len(s) == 32 for s in stamps(games))
    assert len(set(stamps(games))) == 4


def test_stamped_games_are_counted_without_a_replay_and_as_a_replay_counts_them(
    games: Path, pushes: list[int]
) -> None:
    fast = statistics(games, read_only=True)
    assert pushes[0] == 0
    # (the game not begun is not played)
    assert fast["overall"]["played"] == 3 and fast["overall"]["won"] == 1 and fast["damaged"] == 0
    edit(games, "UPDATE games SET replay_stamp = NULL")
    shutil.rmtree(findings_folder())  # (what the first read found sound, noted: as on another computer)
    replayed = statistics(games, read_only=True)
    assert pushes[0] > 200  # every game replayed
    assert replayed == fast


def test_statistics_stamp_the_games_they_replayed_unless_opened_to_read(
    games: Path, pushes: list[int]
) -> None:
    before = stamps(games)
    edit(games, "UPDATE games SET replay_stamp = NULL")
    statistics(games, read_only=True)
    assert stamps(games) == [None] * 4  # a file opened to read is never written
    statistics(games)
    assert stamps(games) == before  # the same stamps as the changes wrote
    pushes[0] = 0
    statistics(games, read_only=True)
    assert pushes[0] == 0


def test_a_stale_stamp_is_replaced_once_the_game_has_replayed(games: Path, pushes: list[int]) -> None:
    before = stamps(games)
    edit(games, "UPDATE games SET replay_stamp = 'stale' WHERE rowid = 1")
    statistics(games)
    assert pushes[0] > 0 and stamps(games) == before


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("UPDATE moves SET move = 't1t2' WHERE ply = 5 AND game_id = (SELECT id FROM games WHERE rowid = 1)",
         "do not replay"),
        ("DELETE FROM moves WHERE ply = 0 AND game_id = (SELECT id FROM games WHERE rowid = 2)",
         "not numbered 0, 1, 2 and on without a gap: move 1 is out of place"),
        ("UPDATE games SET status = 'won' WHERE rowid = 2", "lead to"),
        ("UPDATE games SET won_moves = 3 WHERE rowid = 1", "won_moves"),
        ("UPDATE games SET deal_number = 99 WHERE rowid = 1", "deal"),
        ("UPDATE games SET hints = 'many' WHERE rowid = 1", "hints"),  # not stamped, checked all the same
        ("UPDATE games SET created_at = 5 WHERE rowid = 3", "created_at"),
        # a move holding the separator of the joined line is replayed, and refused
        ("UPDATE moves SET move = 's' || char(0) WHERE ply = 0 AND "
         "game_id = (SELECT id FROM games WHERE rowid = 2)", "replay"),
    ],
    ids=["a move changed", "a move deleted", "the status", "the first win", "the deal number",
         "the hints", "a time", "a NUL in a move"],
)
def test_a_damaged_game_is_counted_as_damaged_whatever_its_stamp_says(
    games: Path, damage: str, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    edit(games, damage)
    found = statistics(games, read_only=True)
    assert found["damaged"] == 1 and found["overall"]["played"] == 2
    assert why in caplog.text
    assert stamps(games)[0] is not None  # (the stamps are left as they were)


def test_a_move_on_a_stamped_game_reads_no_move_row(games: Path) -> None:
    with open_store(games) as store:
        game = next(g for g in store.recent() if g.redo)
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        play(store, game, [game.redo[-1]])
        store._conn.set_trace_callback(None)
        assert not any("FROM moves" in sql for sql in statements)
        assert sum(sql.startswith("UPDATE games SET replay_stamp") for sql in statements) == 1
    assert statistics(games, read_only=True)["damaged"] == 0


def test_stamps_of_version_1_still_spare_the_replay(games: Path, pushes: list[int]) -> None:
    """Stamps written before the line's digest changed (version 1: a digest
    of the moves joined by NULs) still vouch for their games: `terrace
    stats` opens the file only to read and stores no new stamps, so a
    database last written by the older Terrace replayed every game on every
    call (5 s for 3,000 games) until the web game ran its statistics."""
    import hashlib
    import json

    from terrace.storage.rows import GAME_COLUMNS, LINES, stamped_values

    conn = sqlite3.connect(games)
    rows = conn.execute(f"SELECT {GAME_COLUMNS} FROM games").fetchall()
    lines = {r[0]: r[1:] for r in conn.execute(LINES, (json.dumps([row[0] for row in rows]),))}
    for row in rows:
        joined, moves, _ = lines.get(row[0], ("", 0, 0))
        line = hashlib.blake2b(joined.encode(), digest_size=16).hexdigest()
        text = json.dumps([1, stamped_values(row), moves, line], separators=(",", ":"))
        old = hashlib.blake2b(text.encode(), digest_size=16, person=b"terrace-replay").hexdigest()
        conn.execute("UPDATE games SET replay_stamp = ? WHERE id = ?", (old, row[0]))
    conn.commit()
    conn.close()
    fast = statistics(games, read_only=True)
    assert pushes[0] == 0 and fast["overall"]["played"] == 3 and fast["damaged"] == 0
    # (the game made first, the won one, by rowid: "SELECT id ... LIMIT 1" took
    # the least id, a random one, and one time in four the game not begun,
    # which has no move 5 to damage)
    edit(games, "UPDATE moves SET move = 't9t9' WHERE ply = 5"
                " AND game_id = (SELECT id FROM games ORDER BY rowid LIMIT 1)")
    assert statistics(games, read_only=True)["damaged"] == 1  # (an old stamp lets no damage through)
