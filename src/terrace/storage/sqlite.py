"""Saved games in one SQLite file: the durable :class:`~terrace.storage.base.GameStore`.

Every change is one ``BEGIN IMMEDIATE`` transaction that checks the game's
revision before writing and is committed (WAL, ``synchronous=FULL``) before
the call returns, so what a player saw accepted survives a crash. Every game
read back is replayed through the engine, so a damaged row gives a clear
:class:`~terrace.storage.base.DamagedGameError`. The file is checked before
SQLite touches it (:mod:`terrace.storage.files`): a file that is not ours,
damaged, or from a newer Terrace is refused and left exactly as it was. See
``docs/storage.md``.

>>> store = open_store(":memory:")
>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> game = store.create("terrace", get_rules("terrace"), Deal.from_number(5, get_rules("terrace")))
>>> board = game.board(); board.push_text("c1")
Move.parse('c1')
>>> game.sync(board)
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
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from terrace.deal import DEAL_VERSION, Deal
from terrace.errors import TerraceError
from terrace.record import RESULTS
from terrace.rules import Rules
from terrace.storage.base import (
    DamagedGameError,
    StoredGame,
    StoreError,
    check_action,
    check_game,
    check_identity,
    conflict,
    new_game,
    new_game_id,
    unknown_game,
)
from terrace.storage.files import DatabaseFileError, damaged, foreign, inspect_file
from terrace.storage.migrations import APPLICATION_ID, LATEST_VERSION, NewerDatabaseError, migrate
from terrace.storage.paths import default_games_path, verdicts_path
from terrace.storage.statistics import GameFacts, summarize
from terrace.variants import canonical_name

log = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS = 10.0

_GAME_COLUMNS = (
    "id, variant, rules, deal_number, deal_version, deal, status, move_count, hints, undos, "
    "winnable_only, created_at, updated_at, started_at, finished_at, revision"
)


def open_store(path: str | os.PathLike[str] | None = None) -> SqliteStore:
    """Open (creating and migrating as needed) the database at ``path``,
    or at :func:`~terrace.storage.paths.default_games_path` when it is None;
    ``":memory:"`` keeps everything in memory."""
    return SqliteStore(default_games_path() if path is None else path)


def _sql_error(path: object, error: sqlite3.Error) -> StoreError:
    """A player-readable error for a failure inside SQLite."""
    text = str(error)
    if isinstance(error, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return StoreError(f"the database {path} is busy (another program holds it): try again")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return damaged(Path(str(path)), text)
    return StoreError(f"the database {path} failed: {text}")


class SqliteStore:
    """A :class:`~terrace.storage.base.GameStore` in an SQLite file; safe to share
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
                raise damaged(Path(self._name), f"SQLite's check says: {check}")
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
                raise foreign(Path(self._name))
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

    @property
    def verdicts_path(self) -> Path:
        """The solver's verdict cache beside this database file."""
        return verdicts_path(self.path)

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
        game = new_game(variant, rules, deal, winnable_only=winnable_only)
        with self._transaction(write=True) as conn:
            _insert(conn, game, "create")
        return game

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        check_action(action)
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
            check_identity(row[1], json.loads(row[2]), row[3], game)
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
    "DatabaseFileError",
    "NewerDatabaseError",
    "SqliteStore",
    "open_store",
]
