"""Helpers for the game store tests: golden games and playing through a store."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.storage import GameStore, MemoryStore, SqliteStore, StoredGame, open_store
from terrace.storage.migrations import SUMMARY
from terrace.storage.rows import IMPORTED, LAST_HERE
from terrace.storage.sqlite import STOP_LOOK_STEPS

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(autouse=True)
def no_default_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Keep every test away from the player's real database: a command run
    without ``--db`` uses a file in the test's folder."""
    monkeypatch.setenv("TERRACE_DB", str(tmp_path / "default-games.sqlite"))
    yield


STORE_KINDS = ["memory", "sqlite"]
"""The stores every contract and API test runs against."""


@pytest.fixture(params=STORE_KINDS, name="store")
def store_on_each_kind(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GameStore]:
    """The ``store`` fixture: a test that takes it runs on each kind of store
    (the SQLite one in a real file)."""
    with store_of_kind(request.param, tmp_path) as opened:
        yield opened


@contextmanager
def store_of_kind(kind: str, folder: Path) -> Iterator[GameStore]:
    """A fresh store: in memory, or SQLite in a real file in ``folder``."""
    if kind == "memory":
        yield MemoryStore()
        return
    with open_store(folder / "games.sqlite") as opened:
        yield opened


def golden(name: str) -> GameRecord:
    """A golden record from ``tests/golden`` (e.g. ``terrace-won``)."""
    return GameRecord.from_json((GOLDEN / f"{name}.json").read_text())


def start(store: GameStore, record: GameRecord) -> StoredGame:
    """A new stored game on the record's deal and rules."""
    return store.create(record.variant, record.rules, record.deal)


def save(store: GameStore, game: StoredGame, board: Board, action: str) -> None:
    """Store ``board`` as ``game``'s next state, one update of ``action``."""
    revision = game.revision
    game.sync(board)
    store.update(game, expected_revision=revision, action=action)


def play(store: GameStore, game: StoredGame, moves: list[str] | tuple[str, ...]) -> Board:
    """Play ``moves`` one stored update at a time, like the web game does."""
    board = game.board()
    for move in moves:
        board.push_text(move)
        save(store, game, board, "move")
    return board


def play_otherwise(store: GameStore, game: StoredGame, board: Board, than: str) -> None:
    """Play on ``board`` (``game``'s) the first legal move other than
    ``than``, stored."""
    board.push(next(move for move in board.legal_moves if str(move) != than))
    save(store, game, board, "move")


def undo(store: GameStore, game: StoredGame, times: int = 1) -> Board:
    """Take back moves, stored one by one."""
    board = game.board()
    for _ in range(times):
        board.pop()
        game.undos += 1
        save(store, game, board, "undo")
    return board


def finish(store: GameStore, name: str) -> StoredGame:
    """A stored game played to the end of a golden record."""
    record = golden(name)
    game = start(store, record)
    play(store, game, record.moves)
    return game


def quick_finish(store: SqliteStore, name: str) -> StoredGame:
    """A game of a golden record imported one move short of its end, and
    finished by a stored move (quicker than committing every move)."""
    record = golden(name)
    game = start(MemoryStore(), record)
    board = game.board()
    for move in record.moves[:-1]:
        board.push_text(move)
    game.sync(board)
    [(game_id, _)] = store.add_games([game])
    game = store.get(game_id)
    play(store, game, record.moves[-1:])
    return game


def copied(db: Path, copies: int, *, logged: bool = False) -> None:
    """``copies`` more copies, by SQL, of the file's first game, its line
    included (its replay stamp holds for them: no replay), and with
    ``logged`` its log too."""
    conn = sqlite3.connect(db, isolation_level=None)
    names = [c for (c,) in conn.execute("SELECT name FROM pragma_table_info('games')")]
    columns = ", ".join(c for c in names if c != "id")
    numbers = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
    first = "(SELECT id AS first FROM games ORDER BY rowid LIMIT 1)"
    conn.execute(f"{numbers}INSERT INTO games (id, {columns}) SELECT 'copy-' || i, {columns} "
                 f"FROM n, games WHERE id = {first}", (copies,))
    conn.execute(f"{numbers}INSERT INTO moves SELECT 'copy-' || i, ply, move FROM n, moves "
                 f"WHERE game_id = {first}", (copies,))
    if logged:
        conn.execute(f"{numbers}INSERT INTO events (game_id, revision, action, move, move_count, at) "
                     f"SELECT 'copy-' || i, revision, action, move, move_count, at FROM n, events "
                     f"WHERE game_id = {first} ORDER BY i, events.id", (copies,))
    conn.close()


def forget_answers(db: Path) -> None:
    """Empty the file's table of answers kept whole (the statistics and the
    recent games: ``terrace.storage.summary``), as no change to a game
    does, so that the next statistics and recent games count the games."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute(f"DELETE FROM {SUMMARY}")
    finally:
        conn.close()


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def count_pushes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list that counts the moves the engine plays from now on
    (a replay plays every move of a game)."""
    pushes = [0]
    real_push = Board.push

    def counted(board: Board, move: Move) -> None:
        pushes[0] += 1
        real_push(board, move)

    monkeypatch.setattr(Board, "push", counted)
    return pushes


@contextmanager
def locked_by_another(db: Path, begin: str = "BEGIN IMMEDIATE") -> Iterator[None]:
    """Another program holding ``db``'s lock (``begin``) for the block."""
    other = sqlite3.connect(db, isolation_level=None)
    other.execute(begin)
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


@contextmanager
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a small file system with no room left (a tmpfs: root only)."""
    folder = tmp_path / "full"
    folder.mkdir()
    mount = shutil.which("mount")
    mounted = mount and subprocess.run([mount, "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(folder)],
                                       capture_output=True, check=False)
    if not mounted or mounted.returncode != 0:
        pytest.skip("no small file system can be mounted here (not root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> None:
    """Fill the file system of ``folder`` up."""
    with contextlib.suppress(OSError), open(folder / "filler", "wb", buffering=0) as filler:
        while True:
            filler.write(b"\0" * 4096)


def sqlite_steps(store: SqliteStore, read: Callable[[], Any]) -> tuple[int, Any]:
    """SQLite's steps (in hundreds) on the store's connection for ``read``,
    and what it gave: a cost that does not depend on the machine's load."""
    counted = [0]

    def step() -> int:
        counted[0] += 1
        return 0

    store._conn.set_progress_handler(step, 100)
    try:
        found = read()
    finally:
        store._conn.set_progress_handler(store._stop_asked, STOP_LOOK_STEPS)  # (the store's own again)
    return counted[0], found


_TIME = "CASE WHEN typeof({0}) IN ('integer', 'real') THEN {0} END"
RECENT_ORDER = f"""WITH placed AS MATERIALIZED (
    SELECT rowid AS r, {IMPORTED} AS elsewhere, {LAST_HERE} AS seq, {_TIME.format("updated_at")} AS t
    FROM games),
timed AS (
    SELECT r, seq,
           CASE WHEN elsewhere OR seq IS NULL THEN t
                ELSE max(coalesce(t, clock), coalesce(clock, t)) END AS at
    FROM (SELECT *, max((SELECT {_TIME.format("at")} FROM events WHERE id = seq)) OVER (
              PARTITION BY elsewhere OR seq IS NULL ORDER BY seq ROWS UNBOUNDED PRECEDING) AS clock
          FROM placed))
SELECT r FROM timed ORDER BY at DESC, seq DESC, r DESC LIMIT ?"""
"""The recent games' order as the SQLite store found it, sorting every
game in one query, until it kept it game by game (storage.recent): the
order it must still give."""
