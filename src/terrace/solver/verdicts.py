"""A small SQLite store of verdicts, keyed by rules, deal number, deal
version and player: the solver's own (``perfect``) or a play-out's, whose
player key names the player, its settings and its seed (see
:func:`terrace.solver.players.player_key`). ``terrace survey`` and
``terrace deal --winnable`` share it.

Stores written before players were keyed (schema 1) are migrated in place
on opening: their rows become the ``perfect`` player's.

>>> import tempfile, os
>>> from terrace.rules import Rules
>>> path = os.path.join(tempfile.mkdtemp(), "v.sqlite3")
>>> store = VerdictStore(path)
>>> store.put(Rules(), 5, Verdict("won", 10, 0.5, 10.0, "c1 s")).result  # (what it holds now)
'won'
>>> store.get(Rules(), 5).result
'won'
>>> store.get(Rules(), 5, player='{"player":"greedy"}') is None
True
>>> store.close()
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeGuard

from terrace.deal import DEAL_VERSION
from terrace.errors import TerraceError
from terrace.refusals import Reason, Refusal, clip
from terrace.rules import LATER_OPTIONS, Rules
from terrace.storage.files import seal_verdict_cache, verdict_cache_sealed, verdict_file_fault
from terrace.storage.migrations import APPLICATION_ID as GAMES_APPLICATION_ID
from terrace.storage.paths import default_verdicts_path, no_new_file

SOLVER_VERSION = 8
"""Bumped whenever the solver may now decide deals it left unknown (2:
win-hunters restart from the best line; 3: shorter restarts in four-deck
suit games; 4: a best line that stops improving is forgotten; 5: the
hunters' larger share comes sooner, and a line as good as the best one
replaces it; 6: the hunters' moves are no longer ranked before they are
shuffled, so they enter about 11% more positions a second; 7: candidates
of one rank, which leave the same position, are solved once; 8: the
restarting hunters run in one call of the compiled core, their restart
points drawn with SplitMix64 instead of Python's ``random``, which
changes which deals they win by luck). An
``unknown`` of an older version
is solved again; a ``won`` or ``lost`` of any version since
:data:`SOUND_SINCE` still counts (a won line was replayed by the engine, a
loss was proved)."""
SOUND_SINCE = 1
"""Raised to the new :data:`SOLVER_VERSION` if a verdict could ever have
been wrong: then every older row is ignored."""
_CURRENT = "version = ? AND (solver >= ? OR (solver >= ? AND result IN ('won', 'lost')))"
"""The rows that count: this deal version's, an ``unknown`` of this solver
or a newer one (which decides at least what this one does), a ``won`` or
``lost`` of any solver since :data:`SOUND_SINCE`."""

PERFECT = "perfect"
"""The player key of the solver's own verdicts."""

SCHEMA = 2
"""The layout of the store (``PRAGMA user_version``); 1 had no player column."""

_CREATE = (
    "CREATE TABLE IF NOT EXISTS verdicts ("
    " rules TEXT NOT NULL, deal INTEGER NOT NULL, version INTEGER NOT NULL,"
    " solver INTEGER NOT NULL, result TEXT NOT NULL, nodes INTEGER NOT NULL,"
    " seconds REAL NOT NULL, max_seconds REAL NOT NULL, line TEXT NOT NULL,"
    " player TEXT NOT NULL DEFAULT 'perfect',"
    " PRIMARY KEY (rules, deal, version, player))"
)
_COLUMNS = "rules, deal, version, solver, result, nodes, seconds, max_seconds, line"

LONGEST_SEARCH = 1e9
"""The most seconds a stored verdict's search can have taken (about 32
years): a row that says more was damaged by hand, and counts as missing.
(Two deals of 1e308 s summed to infinity: a survey's JSON report said
``"seconds": Infinity``, which is no JSON, and its text a median of 309
digits.)"""
_UPSERT = (
    f"INSERT INTO verdicts ({_COLUMNS}, player) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (rules, deal, version, player) DO UPDATE SET"
    " solver = excluded.solver, result = excluded.result, nodes = excluded.nodes,"
    " seconds = excluded.seconds, max_seconds = excluded.max_seconds, line = excluded.line"
    " WHERE NOT coalesce((typeof(verdicts.nodes) = 'integer' AND verdicts.nodes >= 0"
    "     AND typeof(verdicts.seconds) IN ('integer', 'real')"
    f"    AND verdicts.seconds BETWEEN 0 AND {LONGEST_SEARCH!r}"
    "     AND typeof(verdicts.max_seconds) IN ('integer', 'real')"
    "     AND verdicts.max_seconds BETWEEN 0 AND 1e308 AND typeof(verdicts.line) = 'text')"
    f"    AND ((verdicts.result IN ('won', 'lost') AND verdicts.solver >= {SOUND_SINCE}"
    "           AND excluded.result != verdicts.result)"
    "          OR (verdicts.result = 'unknown' AND excluded.result = 'unknown'"
    "              AND verdicts.solver >= excluded.solver"
    "              AND verdicts.max_seconds >= excluded.max_seconds"
    "              AND (verdicts.solver > excluded.solver"
    "                   OR verdicts.max_seconds > excluded.max_seconds))), 0)"
)
"""Store a verdict without ever replacing a sound ``won`` or ``lost`` with
another result (an ``unknown``, or a play-out's opposite result found by
another run: the first one stored stays; the same result may replace it,
a faster win), nor an ``unknown`` with an ``unknown`` of a search at least
as strong (a solver as new or newer, a budget as large or larger, and more
of one of them: a file shared with a newer terrace keeps its newer
searches); a damaged row is always replaced. :meth:`VerdictStore.put_many`
gives back what the store then holds."""


def default_db_path() -> str:
    """``solver.sqlite3`` beside the games database (see
    :mod:`terrace.storage.paths`)."""
    return str(default_verdicts_path())


def rules_key(rules: Rules) -> str:
    """The rules as canonical JSON text. An option added since verdicts were
    first stored is left out at the value every rules had before it
    (:data:`~terrace.rules.LATER_OPTIONS`), so the verdicts stored before it
    are found under the same key; rules that play the same games have one
    key (:meth:`~terrace.rules.Rules.as_played`).

    >>> "promote_candidates" in rules_key(Rules()), "promote_candidates" in rules_key(
    ...     Rules(promote_candidates=False))
    (False, True)
    """
    data = {name: value for name, value in rules.as_played().to_dict().items()
            if name not in LATER_OPTIONS or value != LATER_OPTIONS[name]}
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the solver (or a player's play-out) said about one deal. For a
    play-out ``nodes`` counts solver calls and ``line`` the moves played."""

    result: str
    nodes: int
    seconds: float
    max_seconds: float
    line: str = ""


RESULTS = ("won", "lost", "unknown")
"""The results a stored verdict may have."""


class VerdictCacheError(TerraceError):
    """A file that is not a verdict cache this version can use (another
    program's database, or a newer layout); it is left unchanged."""


_ONE_VERDICT = ("SELECT result, nodes, seconds, max_seconds, line FROM verdicts"
                f" WHERE rules = ? AND deal = ? AND {_CURRENT} AND player = ?")
"""The stored verdict of one deal that still counts (:meth:`VerdictStore.get`,
and what :meth:`VerdictStore.put_many` gives back)."""


def _verdict(result: object, nodes: object, seconds: object, max_seconds: object,
             line: object) -> Verdict | None:
    """A stored row as a verdict, or None when it was damaged by hand (such
    a row counts as missing: the deal is solved again and the row replaced)."""
    if not (isinstance(result, str) and result in RESULTS and isinstance(line, str)):
        return None
    if not isinstance(nodes, int) or nodes < 0:  # (SQLite hands back no booleans)
        return None
    if not (valid_seconds(seconds) and seconds <= LONGEST_SEARCH and valid_seconds(max_seconds)):
        return None
    return Verdict(result, nodes, float(seconds), float(max_seconds), line)


def valid_seconds(value: object) -> TypeGuard[int | float]:
    """True for a finite number of seconds >= 0, not a boolean (a row with
    inf, NaN or a negative time would make the survey's report invalid
    JSON or nonsense, and a chart of it wrong)."""
    return (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            and value >= 0)


def _cannot_open(path: str, folder: str, error: Exception) -> VerdictCacheError:
    """The error of a verdict cache that cannot be opened or made at
    ``path``, saying why in one line (SQLite says only "unable to open
    database file")."""
    if isinstance(error, OSError):
        why = Reason(Refusal.VERDICT_WHY_FOLDER, folder=clip(folder), text=str(error.strerror or error))
    else:
        why = Reason(Refusal.VERDICT_WHY_SQLITE, text=clip(" ".join(str(error).split())))
        if not os.path.exists(path) and (reason := no_new_file(folder)) is not None:
            why = Reason(Refusal.VERDICT_WHY_NO_FILE, folder=clip(folder), text=reason)
    return VerdictCacheError(Reason(Refusal.VERDICT_CACHE_UNUSABLE, name=_file_name(path), why=why))


def _file_name(path: str) -> str:
    """How a message names the cache: its file's name, never the folders
    above it (the web game shows the message in a browser, maybe another
    device's)."""
    return clip(os.path.basename(path) or path)


LOCK_SECONDS = 30.0
"""How long a store waits for another program's lock on the cache, unless told."""


def _busy(path: str, error: sqlite3.Error) -> VerdictCacheError | None:
    """The error of a cache another program held locked for longer than
    the store waits, or None for any other error."""
    if "locked" not in str(error) and "busy" not in str(error):
        return None
    name = _file_name(path)
    return VerdictCacheError(Reason(Refusal.VERDICT_CACHE_BUSY, name=name))


class VerdictStore:
    """Verdicts in SQLite; safe to share between processes. A file that is
    another program's database, or a cache of a newer layout, is refused
    with :class:`VerdictCacheError` and left unchanged. ``timeout``: the
    seconds to wait for another program's lock, when opening and reading."""

    def __init__(self, path: str | None = None, timeout: float = LOCK_SECONDS) -> None:
        self.path = path or default_db_path()
        self.made = not os.path.exists(self.path)
        """True when the file did not exist before this store opened it."""
        self._file = os.path.realpath(self.path)
        """The file SQLite opens, a symbolic link followed (its side files
        lie beside that file, not beside the link)."""
        folder = os.path.dirname(os.path.abspath(self.path))
        # (the web game's search for a winnable deal opens the cache without
        # the command line's check: a pipe as its journal kept it waiting for
        # ever, a link to /dev/null made /dev/null-journal and a traceback)
        if (fault := verdict_file_fault(Path(self._file), _file_name(self.path))) is not None:
            raise VerdictCacheError(fault)
        try:
            os.makedirs(folder, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=timeout)
        except (OSError, sqlite3.Error) as error:
            raise _cannot_open(self.path, folder, error) from None
        self._sound = self.made or verdict_cache_sealed(Path(self._file))
        """True when the file was new, or noted sound (by the command line's
        check) and unchanged since: closing notes it sound again, so that
        the next check need not read all of it."""
        try:
            self._migrate()
        except sqlite3.DatabaseError as error:
            self._db.close()
            # (a file that is no SQLite, or a damaged one, is a DatabaseError
            # of its own: the web game answered it 500 server-error)
            operational = isinstance(error, sqlite3.OperationalError)
            if operational and (busy := _busy(self.path, error)) is not None:
                raise busy from None
            if operational and "unable to open" not in str(error) and "readonly" not in str(error):
                raise
            raise _cannot_open(self.path, folder, error) from None

    def _migrate(self) -> None:
        """Create the table, or move a schema-1 table (no player column) to
        schema 2 in one transaction (safe with several processes opening an
        old store at once: the second finds the work done)."""
        db = self._db
        if self._current():
            return  # (nothing to write: a store on a read-only disk is read all the same)
        db.isolation_level = None
        try:
            db.execute("BEGIN IMMEDIATE")
            columns = self._check_layout()
            if columns and "player" not in columns:
                db.execute("ALTER TABLE verdicts RENAME TO verdicts_schema1")
                db.execute(_CREATE)
                db.execute(f"INSERT INTO verdicts ({_COLUMNS}, player)"
                           f" SELECT {_COLUMNS}, 'perfect' FROM verdicts_schema1")
                db.execute("DROP TABLE verdicts_schema1")
            else:
                db.execute(_CREATE)
            db.execute(f"PRAGMA user_version = {SCHEMA}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.isolation_level = "DEFERRED"

    def _current(self) -> bool:
        """True when the store already has this version's layout (checked,
        as :meth:`_check_layout` checks it, without a write)."""
        if self._db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
            return False
        return "player" in self._check_layout()

    def _check_layout(self) -> set[str]:
        """Refuse a newer layout and another program's tables; the columns
        of the verdicts table (none before it is made)."""
        name = _file_name(self.path)
        if self._db.execute("PRAGMA application_id").fetchone()[0] == GAMES_APPLICATION_ID:
            raise VerdictCacheError(Reason(Refusal.VERDICT_CACHE_GAMES, name=name))
        layout = self._db.execute("PRAGMA user_version").fetchone()[0]
        if not 0 <= layout <= SCHEMA:
            raise VerdictCacheError(Reason(Refusal.VERDICT_CACHE_NEWER, name=name, layout=layout))
        tables = {row[0] for row in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(verdicts)")}
        if tables - {"verdicts"} or (columns and not set(_COLUMNS.split(", ")) <= columns):
            raise VerdictCacheError(Reason(Refusal.VERDICT_CACHE_FOREIGN, name=name))
        return columns

    def get(self, rules: Rules, deal: int, player: str = PERFECT) -> Verdict | None:
        """The stored verdict of a deal that still counts (see :data:`SOLVER_VERSION`)."""
        try:
            row = self._db.execute(
                _ONE_VERDICT, (rules_key(rules), deal, DEAL_VERSION, SOLVER_VERSION, SOUND_SINCE, player),
            ).fetchone()
        except sqlite3.OperationalError as error:
            if (busy := _busy(self.path, error)) is not None:
                raise busy from None
            raise
        return None if row is None else _verdict(*row)

    def put(self, rules: Rules, deal: int, verdict: Verdict, player: str = PERFECT) -> Verdict:
        """Store (or replace) a verdict; an ``unknown`` never replaces a
        ``won`` or ``lost`` that still counts, nor an ``unknown`` of the same
        solver with a larger budget (another process may have stored it
        while this one was solving). The verdict the store holds then: the
        one given, or the stronger one it kept."""
        return self.put_many(rules, {deal: verdict}, player)[deal]

    def put_many(self, rules: Rules, verdicts: Mapping[int, Verdict],
                 player: str = PERFECT) -> dict[int, Verdict]:
        """Store (or replace, as :meth:`put` does) the verdicts of several
        deals in one transaction: all or none of them. Returns the verdict
        each deal has in the store then (read in the same transaction): a
        ``won`` another run stored while this one searched stays, and is
        what a survey counts, as its resume would.

        >>> import tempfile, os
        >>> store = VerdictStore(os.path.join(tempfile.mkdtemp(), "v.sqlite3"))
        >>> kept = store.put_many(Rules(), {1: Verdict("won", 1, 0.1, 5.0), 2: Verdict("lost", 9, 0.2, 5.0)})
        >>> sorted(store.range(Rules(), 1, 9))
        [1, 2]
        >>> store.put(Rules(), 1, Verdict("unknown", 5, 0.3, 0.3)).result
        'won'
        >>> store.close()
        """
        key = rules_key(rules)
        try:
            with self._db:
                self._db.executemany(
                    _UPSERT,
                    [(key, deal, DEAL_VERSION, SOLVER_VERSION, v.result, v.nodes, v.seconds, v.max_seconds,
                      v.line, player) for deal, v in verdicts.items()],
                )
                kept = {}
                for deal, verdict in verdicts.items():
                    row = self._db.execute(_ONE_VERDICT, (key, deal, DEAL_VERSION, SOLVER_VERSION,
                                                          SOUND_SINCE, player)).fetchone()
                    stored = None if row is None else _verdict(*row)
                    kept[deal] = verdict if stored is None else stored
        except sqlite3.OperationalError as error:  # (a read-only disk, a lock held too long: named)
            raise self._not_stored(error) from None
        return kept

    def check_writable(self) -> None:
        """Refuse, as :meth:`put_many` would, a store that can only be read
        (a read-only disk or file), with a write that changes nothing and is
        rolled back: a survey asks before it solves, not after its first
        verdicts (a fair player's deals take half an hour each)."""
        try:
            self._db.execute("DELETE FROM verdicts WHERE 0")
        except sqlite3.OperationalError as error:
            raise self._not_stored(error) from None
        finally:
            if self._db.in_transaction:
                self._db.rollback()

    def _not_stored(self, error: sqlite3.Error) -> VerdictCacheError:
        """The refusal of verdicts that could not be stored, SQLite's why in
        it; a lock another program held longer than the store waits is said
        as such (:func:`_busy`, as a read's: it said 'the verdicts could not
        be stored (database is locked)')."""
        if (busy := _busy(self.path, error)) is not None:
            return busy
        return VerdictCacheError(Reason(Refusal.VERDICT_CACHE_NOT_STORED, name=_file_name(self.path),
                                        text=clip(" ".join(str(error).split()))))

    def range(self, rules: Rules, first: int, last: int, player: str = PERFECT,
              lines: bool = True) -> dict[int, Verdict]:
        """Every stored verdict of deals ``first..last``; without their
        ``lines`` (each ``""``) when not asked for: a won line is about
        700 characters, a million of them most of a survey's memory."""
        return {deal: verdict for deal, verdict, _ in self.each(rules, first, last, player, lines)}

    def each(self, rules: Rules, first: int, last: int, player: str = PERFECT,
             lines: bool = True) -> Iterator[tuple[int, Verdict, int | None]]:
        """The stored verdicts of deals ``first..last`` that :meth:`range`
        gives, one at a time, each with the version of the solver that
        found it (None in a row damaged there): a survey resumed over a
        million of them need not hold them all as objects."""
        line = "line" if lines else "CASE WHEN typeof(line) = 'text' THEN '' ELSE line END"
        rows = self._db.execute(
            f"SELECT deal, result, nodes, seconds, max_seconds, {line}, solver FROM verdicts"
            f" WHERE rules = ? AND {_CURRENT} AND player = ? AND deal BETWEEN ? AND ?",
            (rules_key(rules), DEAL_VERSION, SOLVER_VERSION, SOUND_SINCE, player, first, last),
        )
        for deal, result, nodes, seconds, max_seconds, text, solver in rows:
            verdict = _verdict(result, nodes, seconds, max_seconds, text)
            if verdict is not None:
                yield deal, verdict, solver if isinstance(solver, int) else None

    def solvers(self, rules: Rules, first: int, last: int, player: str = PERFECT) -> dict[int, int]:
        """The solver version of each stored verdict of deals ``first..last``
        that counts (those :meth:`range` gives)."""
        return {deal: solver for deal, _, solver in self.each(rules, first, last, player, lines=False)
                if solver is not None}

    def is_empty(self) -> bool:
        """True when the store holds no verdict at all (of any rules or version)."""
        return self._db.execute("SELECT 1 FROM verdicts LIMIT 1").fetchone() is None

    def close(self) -> None:
        """Close the database (noting it sound again when it was so at opening)."""
        self._db.close()
        if self._sound:
            seal_verdict_cache(Path(self._file))

    def close_or_discard(self) -> None:
        """Close the database, and delete its file (with SQLite's side files)
        when this store made it and it still holds no verdict: a run that was
        stopped, or never reached its workers, before it stored anything
        leaves nothing behind. A file that was there before is kept, and so
        is a symbolic link that named the file made (only that file goes)."""
        empty = self.made and self.is_empty()
        self.close()
        if empty:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(self._file + suffix)


def settled(verdict: Verdict | None, max_seconds: float) -> bool:
    """True when a stored verdict needs no new search with this budget to
    say whether the deal is won (``deal --winnable``: a won found with any
    budget is a won); a survey asks :func:`at_budget` instead."""
    if verdict is None:
        return False
    return verdict.result in ("won", "lost") or verdict.max_seconds >= max_seconds


def at_budget(verdict: Verdict | None, max_seconds: float) -> Verdict | None:
    """A stored verdict as a survey with ``max_seconds`` per deal counts it,
    or None when the survey must solve the deal (again):

    - a ``won`` or ``lost`` is final, whatever budget found it (a won line
      was replayed by the engine, a loss was proved or the game was played
      to its end): solving it again at a smaller budget could never replace
      it in the store, so every resume solved it again, for ever;
    - an ``unknown`` counts when it had at least this budget (a smaller
      budget would decide no more).

    A verdict of a larger budget that took longer than ``max_seconds``
    counts ``max_seconds`` of time, what the deal costs at this budget.

    >>> at_budget(Verdict("won", 9, 2.5, 10.0), 0.3).seconds
    0.3
    >>> at_budget(Verdict("lost", 9, 2.5, 10.0), 0.3).result
    'lost'
    >>> at_budget(Verdict("unknown", 9, 0.31, 0.3), 0.3).seconds
    0.31
    >>> at_budget(Verdict("unknown", 9, 1.0, 1.0), 2.0) is None
    True
    """
    if verdict is None:
        return None
    if verdict.result == "unknown" and verdict.max_seconds < max_seconds:
        return None
    if verdict.max_seconds > max_seconds and verdict.seconds > max_seconds:
        return replace(verdict, seconds=max_seconds)
    return verdict
