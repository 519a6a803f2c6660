"""Saved games in one SQLite file: the durable :class:`~terrace.store.GameStore`.

Every change is one ``BEGIN IMMEDIATE`` transaction that checks the game's
revision before writing and is committed (WAL, ``synchronous=FULL``) before
the call returns, so what a player saw accepted survives a crash. Every game
read back is replayed through the engine, so a damaged row gives a clear
:class:`~terrace.store.DamagedGameError`. The file is checked before SQLite
touches it: a file that is not ours, damaged, or from a newer Terrace is
refused and left exactly as it was. See ``docs/storage.md``.

>>> store = open_store(":memory:")
>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> game = store.create("terrace", get_rules("terrace"), Deal.from_number(5, get_rules("terrace")))
>>> game.moves = ["c1"]; game.status = "playing"
>>> store.update(game, expected_revision=0, action="move")
>>> store.get(game.id).moves, store.get(game.id).revision
(['c1'], 1)
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from terrace.board import Board
from terrace.deal import DEAL_VERSION, Deal
from terrace.errors import TerraceError
from terrace.record import RESULTS
from terrace.rules import Rules
from terrace.stats.migrations import APPLICATION_ID, LATEST_VERSION, NewerDatabaseError, migrate
from terrace.store import (
    ACTIONS,
    DamagedGameError,
    GameFacts,
    StoredGame,
    StoreError,
    conflict,
    new_game_id,
    summarize,
    unknown_game,
)
from terrace.variants import canonical_name

log = logging.getLogger(__name__)

DB_FILE_NAME = "games.sqlite"
DB_ENV = "TERRACE_DB"
"""Environment variable naming the database when no ``--db`` is given."""
BUSY_TIMEOUT_SECONDS = 10.0
SQLITE_MAGIC = b"SQLite format 3\x00"

_GAME_COLUMNS = (
    "id, variant, rules, deal_number, deal_version, deal, status, move_count, hints, undos, "
    "winnable_only, created_at, updated_at, started_at, finished_at, revision"
)


class DatabaseFileError(StoreError):
    """The file at the database path cannot be used (not SQLite, damaged,
    another program's, unreadable). It is never changed."""


def default_db_path() -> Path:
    """``$TERRACE_DB`` when set, else ``games.sqlite`` in the user data folder."""
    named = os.environ.get(DB_ENV)
    if named:
        return Path(named).expanduser()
    return Path(platformdirs.user_data_dir("terrace", appauthor=False)) / DB_FILE_NAME


def open_store(path: str | os.PathLike[str] | None = None) -> SqliteStore:
    """Open (creating and migrating as needed) the database at ``path``,
    or at :func:`default_db_path` when it is None; ``":memory:"`` keeps
    everything in memory."""
    return SqliteStore(default_db_path() if path is None else path)


@dataclass(frozen=True)
class _Header:
    user_version: int
    application_id: int
    has_wal: bool


def _damaged(path: Path, why: str) -> DatabaseFileError:
    return DatabaseFileError(
        f"{path} is damaged ({why}); it was left untouched: restore a backup, "
        "or move it away to start a new database"
    )


def inspect_file(path: Path) -> _Header | None:
    """Check the file at ``path`` before SQLite opens it: None when there
    is no database yet (missing or empty file), else what its header says.
    Raises :class:`DatabaseFileError` for anything that is not a sound
    SQLite file of ours (reading only; nothing is written)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise DatabaseFileError(f"cannot read {path}: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise DatabaseFileError(f"{path} is a folder, not a database file")
    if not stat.S_ISREG(info.st_mode):
        raise DatabaseFileError(f"{path} is not a regular file")
    if info.st_size == 0:
        return None
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except OSError as error:
        raise DatabaseFileError(f"cannot read {path}: {error.strerror or error}") from None
    if not header.startswith(SQLITE_MAGIC[: len(header)]) or len(header) < len(SQLITE_MAGIC):
        raise DatabaseFileError(
            f"{path} is not a Terrace database (not an SQLite file); it was left untouched"
        )
    if len(header) < 100:
        raise _damaged(path, "shorter than an SQLite header")
    page_size = int.from_bytes(header[16:18], "big")
    if page_size == 1:
        page_size = 65536
    if page_size < 512 or page_size & (page_size - 1):
        raise _damaged(path, "its header gives an impossible page size")
    has_wal = _nonempty(Path(f"{path}-wal"))
    if not has_wal and not _nonempty(Path(f"{path}-journal")):
        # With a pending log or journal, SQLite will bring the file up to
        # date first, so until then it may legitimately look short.
        if info.st_size % page_size:
            raise _damaged(path, "it is not a whole number of pages long: it was cut short")
        pages = int.from_bytes(header[28:32], "big")
        if header[24:28] == header[92:96] and info.st_size < pages * page_size:
            raise _damaged(path, f"it holds {info.st_size // page_size} of its {pages} pages")
    application_id = int.from_bytes(header[68:72], "big", signed=True)
    if application_id not in (0, APPLICATION_ID):
        raise _foreign(path)
    return _Header(int.from_bytes(header[60:64], "big", signed=True), application_id, has_wal)


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _foreign(path: Path) -> DatabaseFileError:
    return DatabaseFileError(
        f"{path} is an SQLite database of another program, not a Terrace one; it was left untouched"
    )


def _sql_error(path: object, error: sqlite3.Error) -> StoreError:
    """A player-readable error for a failure inside SQLite."""
    text = str(error)
    if isinstance(error, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return StoreError(f"the database {path} is busy (another program holds it): try again")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return _damaged(Path(str(path)), text)
    return StoreError(f"the database {path} failed: {text}")


class SqliteStore:
    """A :class:`~terrace.store.GameStore` in an SQLite file; safe to share
    between threads (calls are serialized) and between processes (SQLite
    locking plus revision checks)."""

    def __init__(self, path: str | os.PathLike[str], *, migrate_to: int = LATEST_VERSION) -> None:
        self._lock = threading.RLock()
        self.migrations_applied: list[int] = []
        if str(path) == ":memory:":
            self.path: Path | None = None
            self._name = ":memory:"
            self._conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            self.path = Path(path).expanduser()
            self._name = str(self.path)
            self._conn = self._open_file(self.path)
        try:
            self._prepare(migrate_to)
        except BaseException:
            self._conn.close()
            raise

    # -- opening ----------------------------------------------------------

    def _open_file(self, path: Path) -> sqlite3.Connection:
        header = inspect_file(path)
        if header is not None:
            version = header.user_version
            if header.has_wal:
                version = max(version, self._probe_version(path))
            if version > LATEST_VERSION:
                raise NewerDatabaseError(version, str(path))
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise DatabaseFileError(
                    f"cannot make the folder {path.parent}: {error.strerror or error}"
                ) from None
        try:
            return sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_SECONDS
            )
        except sqlite3.Error as error:
            raise DatabaseFileError(f"cannot open {path}: {error}") from None

    @staticmethod
    def _probe_version(path: Path) -> int:
        """The live schema version, read without writing (a log is pending)."""
        try:
            probe = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        except sqlite3.Error as error:
            raise _sql_error(path, error) from None
        try:
            return int(probe.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.Error as error:
            raise _sql_error(path, error) from None
        finally:
            probe.close()

    def _prepare(self, migrate_to: int) -> None:
        conn = self._conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
            check = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
            if check != "ok":
                raise _damaged(Path(self._name), f"SQLite's check says: {check}")
            conn.execute("BEGIN")
            try:
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                application_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
                tables = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
            finally:
                conn.execute("COMMIT")
            if version > LATEST_VERSION:
                raise NewerDatabaseError(version, self._name)
            if application_id != APPLICATION_ID and (application_id or version or tables):
                raise _foreign(Path(self._name))
            self.journal_mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            try:
                self.migrations_applied = migrate(conn, migrate_to)
            except NewerDatabaseError as error:
                raise NewerDatabaseError(error.version, self._name) from None
            self.schema_version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.Error as error:
            raise _sql_error(self._name, error) from None

    def close(self) -> None:
        """Close the database (further calls fail)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteStore({self._name!r})"

    # -- transactions -----------------------------------------------------

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction: ``BEGIN IMMEDIATE`` (the write lock at once, so
        a revision read inside cannot go stale) or a read snapshot."""
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as error:
                raise _sql_error(self._name, error) from None

    # -- reading ----------------------------------------------------------

    def _fetch(self, conn: sqlite3.Connection, game_id: str) -> StoredGame | None:
        row = conn.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        line = [m for (m,) in conn.execute(
            "SELECT move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        )]
        return _load(row, line)

    def get(self, game_id: str) -> StoredGame:
        if not isinstance(game_id, str):
            raise unknown_game(str(game_id))
        with self._transaction(write=False) as conn:
            game = self._fetch(conn, game_id)
        if game is None:
            raise unknown_game(game_id)
        return game

    def _loadable(self, sql: str, params: Sequence[Any] = (), first: bool = False) -> list[StoredGame]:
        """The games whose ids ``sql`` selects, in order (only the first
        with ``first``), skipping and logging damaged ones so that one bad
        row cannot hide the rest."""
        games: list[StoredGame] = []
        with self._transaction(write=False) as conn:
            for (game_id,) in conn.execute(sql, params).fetchall():
                try:
                    game = self._fetch(conn, game_id)
                except DamagedGameError as error:
                    log.warning("%s", error)
                    continue
                if game is not None:
                    games.append(game)
                    if first:
                        break
        return games

    def latest_unfinished(self) -> StoredGame | None:
        games = self._loadable(
            "SELECT id FROM games WHERE status IN ('choosing', 'playing') "
            "ORDER BY updated_at DESC, rowid DESC",
            first=True,
        )
        return games[0] if games else None

    def recent(self, limit: int = 20) -> list[StoredGame]:
        return self._loadable(
            "SELECT id FROM games ORDER BY updated_at DESC, rowid DESC LIMIT ?", (max(limit, 0),)
        )

    def history(self, game_id: str) -> list[dict[str, Any]]:
        """The game's stored changes, oldest first: ``action``, ``move``
        (the move played, undone or redone, if any), ``moves`` (played
        after it), ``revision`` and ``at`` (seconds since the epoch)."""
        with self._transaction(write=False) as conn:
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise unknown_game(game_id)
            rows = conn.execute(
                "SELECT action, move, move_count, revision, at FROM events "
                "WHERE game_id = ? ORDER BY id", (game_id,),
            ).fetchall()
        return [
            {"action": a, "move": m, "moves": n, "revision": r, "at": at} for a, m, n, r, at in rows
        ]

    def statistics(self) -> dict[str, Any]:
        with self._transaction(write=False) as conn:
            rows = conn.execute(
                "SELECT variant, status, CAST(move_count AS INTEGER), CAST(hints AS INTEGER), "
                "CAST(undos AS INTEGER), CAST(created_at AS REAL), CAST(updated_at AS REAL), "
                "CAST(started_at AS REAL), CAST(finished_at AS REAL) FROM games"
            ).fetchall()
        return summarize([GameFacts(*row) for row in rows])

    def game_ids(self) -> list[str]:
        """Every game id, oldest game first."""
        with self._transaction(write=False) as conn:
            return [i for (i,) in conn.execute("SELECT id FROM games ORDER BY created_at, rowid")]

    # -- writing ----------------------------------------------------------

    def create(
        self, variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False
    ) -> StoredGame:
        try:
            variant = canonical_name(variant)
            status = Board(rules, deal).status.value
        except TerraceError as error:
            raise StoreError(f"cannot start this game: {error}") from None
        now = time.time()
        game = StoredGame(
            new_game_id(), variant, rules, deal, status=status,
            winnable_only=bool(winnable_only), created_at=now, updated_at=now,
        )
        with self._transaction(write=True) as conn:
            _insert(conn, game, "create")
        return game

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        if action not in ACTIONS or action == "create":
            raise StoreError(f"unknown action {action!r}")
        check_game(game)
        line = [*game.moves, *reversed(game.redo)]
        after = dataclasses.replace(game, revision=expected_revision + 1)
        after.stamp(time.time())
        with self._transaction(write=True) as conn:
            row = conn.execute(
                "SELECT revision, variant, rules, deal FROM games WHERE id = ?", (game.id,)
            ).fetchone()
            if row is None:
                raise unknown_game(game.id)
            if row[0] != expected_revision:
                raise conflict(row[0], expected_revision)
            if (row[1], json.loads(row[2]), row[3]) != (
                game.variant, game.rules.to_dict(), game.deal.text()
            ):
                raise StoreError("the variant, rules and deal of a saved game cannot change")
            old = [m for (m,) in conn.execute(
                "SELECT move FROM moves WHERE game_id = ? ORDER BY ply", (game.id,)
            )]
            keep = 0
            while keep < min(len(old), len(line)) and old[keep] == line[keep]:
                keep += 1
            if keep < len(old):
                conn.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game.id, keep))
            conn.executemany(
                "INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)",
                [(game.id, ply, move) for ply, move in enumerate(line[keep:], keep)],
            )
            conn.execute(
                "UPDATE games SET status = ?, move_count = ?, hints = ?, undos = ?, "
                "winnable_only = ?, updated_at = ?, started_at = ?, finished_at = ?, revision = ? "
                "WHERE id = ?",
                (after.status, len(after.moves), after.hints, after.undos, int(after.winnable_only),
                 after.updated_at, after.started_at, after.finished_at, after.revision, game.id),
            )
            _log_event(conn, after, action)
        game.revision = after.revision
        game.updated_at = after.updated_at
        game.started_at = after.started_at
        game.finished_at = after.finished_at

    def add_games(self, games: Sequence[StoredGame]) -> list[tuple[str, bool]]:
        """Store finished or unfinished games as they are (an import), all
        in one transaction: every one or, on any error, none. A game whose
        id is taken keeps it when it is the same game (not stored again),
        else gets a new id. Returns each game's id and whether it was added."""
        for game in games:
            check_game(game)
        result: list[tuple[str, bool]] = []
        with self._transaction(write=True) as conn:
            for game in games:
                if not isinstance(game.id, str) or not game.id:
                    game.id = new_game_id()
                if conn.execute("SELECT 1 FROM games WHERE id = ?", (game.id,)).fetchone():
                    try:
                        same = _same_game(self._fetch(conn, game.id), game)
                    except DamagedGameError:
                        same = False
                    if same:
                        result.append((game.id, False))
                        continue
                    game.id = new_game_id()
                _insert(conn, game, "import")
                result.append((game.id, True))
        return result


def _same_game(a: StoredGame | None, b: StoredGame) -> bool:
    return a is not None and (a.variant, a.rules, a.deal.cards, a.moves, a.redo) == (
        b.variant, b.rules, b.deal.cards, b.moves, b.redo
    )


def _rules_json(rules: Rules) -> str:
    return json.dumps(rules.to_dict(), sort_keys=True)


def _insert(conn: sqlite3.Connection, game: StoredGame, action: str) -> None:
    conn.execute(
        f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ({', '.join('?' * 16)})",
        (game.id, game.variant, _rules_json(game.rules), game.deal.number, DEAL_VERSION,
         game.deal.text(), game.status, len(game.moves), game.hints, game.undos,
         int(game.winnable_only), game.created_at, game.updated_at, game.started_at,
         game.finished_at, game.revision),
    )
    line = [*game.moves, *reversed(game.redo)]
    conn.executemany(
        "INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)",
        [(game.id, ply, move) for ply, move in enumerate(line)],
    )
    _log_event(conn, game, action)


def _log_event(conn: sqlite3.Connection, game: StoredGame, action: str) -> None:
    move: str | None = None
    if action in ("move", "redo") and game.moves:
        move = game.moves[-1]
    elif action == "undo" and game.redo:
        move = game.redo[-1]
    conn.execute(
        "INSERT INTO events (game_id, revision, action, move, move_count, at) VALUES (?, ?, ?, ?, ?, ?)",
        (game.id, game.revision, action, move, len(game.moves), game.updated_at),
    )


def check_game(game: StoredGame) -> Board:
    """Replay ``game`` through the engine and check its status; returns the
    board. Raises :class:`StoreError` with the reason when it is not a game
    the rules allow."""
    name = f"game {game.id}" if game.id else "the game"
    try:
        canonical_name(game.variant)
        board = game.board()
    except TerraceError as error:
        raise StoreError(f"{name} cannot be saved: {error}") from None
    if game.status != board.status.value:
        raise StoreError(
            f"{name} cannot be saved: its status is {game.status!r} "
            f"but its moves lead to {board.status.value!r}"
        )
    return board


def _load(row: Sequence[Any], line: list[str]) -> StoredGame:
    """A game from its database row, checked by replaying it."""
    game_id = row[0]
    try:
        (_, variant, rules_text, number, deal_version, deal_text, status, move_count, hints,
         undos, winnable_only, created_at, updated_at, started_at, finished_at, revision) = row
        if canonical_name(variant) != variant:
            raise ValueError(f"unknown variant {variant!r}")
        rules = Rules.from_dict(json.loads(rules_text))
        if json.loads(rules_text) != rules.to_dict():
            raise ValueError("the rules are incomplete")
        deal = Deal.parse(deal_text, rules)
        if number is not None and deal_version == DEAL_VERSION:
            deal = Deal(deal.cards, _whole(number, "deal_number"))
            deal.check(rules)
        played = _whole(move_count, "move_count")
        if played > len(line):
            raise ValueError(f"{played} moves played but only {len(line)} stored")
        if status not in RESULTS:
            raise ValueError(f"unknown status {status!r}")
        game = StoredGame(
            game_id, variant, rules, deal, moves=line[:played], redo=line[played:][::-1],
            status=status, hints=_whole(hints, "hints"), undos=_whole(undos, "undos"),
            winnable_only=bool(winnable_only), created_at=_time(created_at),
            updated_at=_time(updated_at), started_at=_time_or_none(started_at),
            finished_at=_time_or_none(finished_at), revision=_whole(revision, "revision"),
        )
        board = game.board()
        if board.status.value != status:
            raise ValueError(f"it says {status!r} but its moves lead to {board.status.value!r}")
    except (TerraceError, ValueError, TypeError, KeyError) as error:
        raise DamagedGameError(f"saved game {game_id} is damaged and cannot be loaded: {error}") from None
    return game


def _whole(value: Any, name: str) -> int:
    if not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    return value


def _time(value: Any) -> float:
    if not isinstance(value, (int, float)):
        raise ValueError(f"a time must be a number, not {value!r}")
    return float(value)


def _time_or_none(value: Any) -> float | None:
    return None if value is None else _time(value)


__all__ = [
    "DB_ENV",
    "DatabaseFileError",
    "NewerDatabaseError",
    "SqliteStore",
    "check_game",
    "default_db_path",
    "inspect_file",
    "open_store",
]
