"""The database schema as numbered migrations.

Each migration is a list of SQL statements that runs once, in the same
transaction as the others pending at start-up. The database remembers the
last one applied in ``PRAGMA user_version`` and lists every one in the
``migrations`` table. Never edit a migration that has shipped: add a new one.

>>> [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
True
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass

from terrace.storage.base import StoreError
from terrace.storage.paths import label

APPLICATION_ID = int.from_bytes(b"Trrc", "big")
"""Written to ``PRAGMA application_id`` so that our files can be told apart
from other programs' SQLite databases."""


class NewerDatabaseError(StoreError):
    """The database was written by a newer version of Terrace."""

    def __init__(self, version: int, path: str = "the database") -> None:
        super().__init__(
            f"{label(path)} was written by a newer version of Terrace (schema {version}; this one "
            f"knows up to {LATEST_VERSION}): update Terrace to open it; it was left unchanged"
        )
        self.version = version


@dataclass(frozen=True)
class Migration:
    """One step of the schema."""

    version: int
    name: str
    statements: tuple[str, ...]
    writes_only: bool = False
    """True for a step that only widens what writes may store (a CHECK
    constraint), or adds what reads only use to go faster (schemas 11, 12): a
    file before it reads the same, so that a command that only reads takes
    it as it stands (:func:`reads_as_is`)."""


_V1 = (
    """CREATE TABLE migrations (
        version    INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        applied_at REAL NOT NULL
    )""",
    # One row per game. The line holds the moves played followed by the
    # undone ones (redo stack, next to redo first); move_count says how many
    # of them are played.
    """CREATE TABLE games (
        id            TEXT PRIMARY KEY,
        variant       TEXT NOT NULL,
        rules         TEXT NOT NULL,
        deal_number   INTEGER,
        deal_version  INTEGER NOT NULL,
        deal          TEXT NOT NULL,
        status        TEXT NOT NULL CHECK (status IN ('choosing', 'playing', 'won', 'lost')),
        move_count    INTEGER NOT NULL DEFAULT 0 CHECK (move_count >= 0),
        hints         INTEGER NOT NULL DEFAULT 0 CHECK (hints >= 0),
        undos         INTEGER NOT NULL DEFAULT 0 CHECK (undos >= 0),
        winnable_only INTEGER NOT NULL DEFAULT 0 CHECK (winnable_only IN (0, 1)),
        created_at    REAL NOT NULL,
        updated_at    REAL NOT NULL,
        finished_at   REAL,
        revision      INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0)
    )""",
    """CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply     INTEGER NOT NULL CHECK (ply >= 0),
        move    TEXT NOT NULL,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID""",
    # Every stored change, for statistics and for replaying a game with its
    # undos and redos as it happened.
    """CREATE TABLE events (
        id         INTEGER PRIMARY KEY,
        game_id    TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        revision   INTEGER NOT NULL,
        action     TEXT NOT NULL
                   CHECK (action IN ('create', 'move', 'undo', 'redo', 'hint', 'restart', 'import')),
        move       TEXT,
        move_count INTEGER NOT NULL,
        at         REAL NOT NULL
    )""",
    f"PRAGMA application_id = {APPLICATION_ID}",
)

_V2 = (
    # When the first move was made: "fastest win" counts from there, not
    # from the moment the deal was opened.
    "ALTER TABLE games ADD COLUMN started_at REAL",
    """UPDATE games SET started_at = coalesce(
        (SELECT min(at) FROM events
         WHERE events.game_id = games.id AND action IN ('move', 'redo')),
        CASE WHEN move_count > 0 THEN created_at END)""",
    # The start page asks for the latest unfinished game and the recent ones;
    # events are read per game (and deleted with it).
    "CREATE INDEX games_by_update ON games (updated_at)",
    "CREATE INDEX games_unfinished ON games (updated_at) WHERE status IN ('choosing', 'playing')",
    "CREATE INDEX events_by_game ON events (game_id, id)",
)

_V3 = (
    # A win is final: when a game was first won, in how many moves and in
    # how much active playing time; undoing after the win keeps them.
    "ALTER TABLE games ADD COLUMN won_at REAL",
    "ALTER TABLE games ADD COLUMN won_moves INTEGER CHECK (won_moves >= 0)",
    "ALTER TABLE games ADD COLUMN won_active_ms INTEGER CHECK (won_active_ms >= 0)",
    "UPDATE games SET won_at = coalesce(finished_at, updated_at), won_moves = move_count "
    "WHERE status = 'won'",
    # A game in which an assist was used (shown in records and statistics).
    "ALTER TABLE games ADD COLUMN assisted INTEGER NOT NULL DEFAULT 0 CHECK (assisted IN (0, 1))",
    # Active playing time, as the page reports it (paused while hidden or idle).
    "ALTER TABLE games ADD COLUMN active_ms INTEGER NOT NULL DEFAULT 0 CHECK (active_ms >= 0)",
    # The positions a hint was counted on: asking again on one counts once.
    """CREATE TABLE hinted (
        game_id  TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        position TEXT NOT NULL,
        PRIMARY KEY (game_id, position)
    ) WITHOUT ROWID""",
)

_EVENT_ACTIONS = "'create', 'move', 'undo', 'redo', 'hint', 'restart', 'import', 'give-up'"

def _events_allowing(actions: str, version: int) -> tuple[str, ...]:
    """The statements that copy the event log into a table whose CHECK
    allows ``actions`` (SQLite cannot change a CHECK constraint in place),
    every row and id kept; the copy is named for its schema ``version``."""
    copy = f"events_v{version}"
    return (
        f"""CREATE TABLE {copy} (
        id         INTEGER PRIMARY KEY,
        game_id    TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        revision   INTEGER NOT NULL,
        action     TEXT NOT NULL CHECK (action IN ({actions})),
        move       TEXT,
        move_count INTEGER NOT NULL,
        at         REAL NOT NULL
    )""",
        f"INSERT INTO {copy} (id, game_id, revision, action, move, move_count, at) "
        "SELECT id, game_id, revision, action, move, move_count, at FROM events",
        "DROP TABLE events",
        f"ALTER TABLE {copy} RENAME TO events",
        "CREATE INDEX events_by_game ON events (game_id, id)",
    )


_V4 = (
    # Giving up ends a game as lost: it can be replayed, never played again.
    "ALTER TABLE games ADD COLUMN given_up_at REAL",
    # The event log learns the action 'give-up'.
    *_events_allowing(_EVENT_ACTIONS, 4),
)

_V5 = (
    # A digest of what a replay checks (rules, deal, line, status and how
    # the game ended), written with every change that a replay checked
    # first: the statistics skip the replay of a game whose columns and
    # line still give this digest (rows.replay_stamp). Null until the
    # game's next change; a wrong or missing one costs a replay, no more.
    "ALTER TABLE games ADD COLUMN replay_stamp TEXT",
)

_V6 = (
    # Up to when the page's reports of active time have been counted: every
    # server on this database checks a report against it, so that two
    # servers never count the same time twice. Seconds of the computer's
    # monotonic clock (the servers' own); null until a game's first report.
    "ALTER TABLE games ADD COLUMN timed_until REAL",
)

RESTORED = "restore"
"""The log's action for the last change of a restored game that was made
where the backup came from (no move, no hint: a change made here, not an
import). Databases restored before schema 7 logged it as ``hint``, which
reads the same (a change made here that plays no move)."""

_V7_ACTIONS = f"{_EVENT_ACTIONS}, '{RESTORED}'"

_V7 = (
    # The event log learns the action 'restore'.
    *_events_allowing(_V7_ACTIONS, 7),
)

LINE_CHANGES = "line_changes"
"""The column of ``games`` that counts the changes to a game's rows in
``moves``, whoever made them (a trigger of the file keeps it)."""

INSERTS_COUNTED = "moves_insert_counted"
"""The trigger that counts a move row added; an import, which adds
thousands, drops it for its transaction and makes it again (a trigger run
per row cost it a third more CPU), counting its own changes itself."""
INSERTS_TRIGGER = f"""CREATE TRIGGER {INSERTS_COUNTED} AFTER INSERT ON moves BEGIN
        UPDATE games SET {LINE_CHANGES} = {LINE_CHANGES} + 1 WHERE id = NEW.game_id;
    END"""

COUNTING_TRIGGERS = (
    INSERTS_TRIGGER,
    *(f"""CREATE TRIGGER moves_{event.lower()}_counted AFTER {event} ON moves BEGIN
        UPDATE games SET {LINE_CHANGES} = {LINE_CHANGES} + 1 WHERE id = {row}.game_id;
    END""" for event, row in (("DELETE", "OLD"), ("UPDATE", "NEW"))),
    # (a row moved to another game changes that game's line too)
    f"""CREATE TRIGGER moves_moved_counted AFTER UPDATE OF game_id ON moves
        WHEN OLD.game_id IS NOT NEW.game_id BEGIN
        UPDATE games SET {LINE_CHANGES} = {LINE_CHANGES} + 1 WHERE id = OLD.game_id;
    END""",
)
"""The triggers of schema 8 on ``moves`` that keep ``games.line_changes``
(:func:`counting_fault` checks them at every opening)."""

_V8 = (
    # Every change to a game's move rows, by any connection (another
    # server, the CLI, a hand edit in the sqlite3 shell), counts one in its
    # row: a store that remembers a game's line reads it again only when
    # this count moved, not after every write of another connection to
    # another game or to the statistics.
    f"ALTER TABLE games ADD COLUMN {LINE_CHANGES} INTEGER NOT NULL DEFAULT 0",
    *COUNTING_TRIGGERS,
)

_V9 = (
    # The moves a game had played before an import or a restore brought it
    # up to a later state in place (its log of changes, which showed them,
    # is written anew by a restore): a record holding exactly those moves
    # (an older backup imported again) is then found already here, not
    # added beside. Each line as its length and Line digest (hex).
    """CREATE TABLE passed (
        game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        moves   INTEGER NOT NULL,
        digest  TEXT NOT NULL,
        PRIMARY KEY (game_id, moves, digest)
    ) WITHOUT ROWID""",
)

JOINED = "join"
"""The log's action for an import that brought a game here up to the
record's later state in place (played on elsewhere and brought back): a
change that came from elsewhere, not one made here, so that it makes the
game neither the game in play nor one changed after the games opened
here. Databases joined before schema 10 logged it as ``import``."""

_V10 = (
    # The event log learns the action 'join'.
    *_events_allowing(f"{_V7_ACTIONS}, '{JOINED}'", 10),
)

LINE_DIGEST = "line_digest"
"""The column of ``games`` that holds the digest of its stored line as its
last stamp was made of it: its number of moves and :meth:`Line.digest`
(hex), as ``"moves:digest"``."""
LINE_CHECKED = "line_checked"
"""The column of ``games`` that holds its ``line_changes`` when its move
rows were last known to give :data:`LINE_DIGEST` (written with it, or
found so by reading them)."""
LINES_TRUSTED = "lines_trusted"
"""The table that holds the ``PRAGMA schema_version`` under which the
counts of :data:`LINE_CHECKED` were kept: a change of the file's layout
since (a trigger that counts dropped and made again by hand) leaves no
line taken on trust until every one was read again."""

_V11 = (
    # The statistics take a game's stamp on trust without reading its
    # moves (17 million rows at 100,000 games) while its count of changes
    # to them is the one at which they were last known to give its digest.
    f"ALTER TABLE games ADD COLUMN {LINE_DIGEST} TEXT",
    f"ALTER TABLE games ADD COLUMN {LINE_CHECKED} INTEGER",
    f"CREATE TABLE {LINES_TRUSTED} (layout INTEGER NOT NULL)",
    f"INSERT INTO {LINES_TRUSTED} (layout) SELECT schema_version FROM pragma_schema_version",
)

def _trusted_across(*statements: str) -> tuple[str, ...]:
    """``statements``, which change the file's layout but none of the
    triggers that count changes to lines, and keep the counts of
    :data:`LINE_CHECKED` trusted when they were (:func:`lines_trusted`)."""
    layout = "(SELECT schema_version FROM pragma_schema_version)"
    return (f"UPDATE {LINES_TRUSTED} SET layout = -1 WHERE layout = {layout}", *statements,
            f"UPDATE {LINES_TRUSTED} SET layout = {layout} WHERE layout = -1")


_V12 = (
    # Where a game was first won or lost in the log is the first entry
    # logged at that time (rows.LOG_PLACES): found by this index in one
    # look-up, where it read every entry of the game's log (3.5 s of the
    # statistics' CPU at 100,000 games of 190 entries each).
    # (a file numbered 11 by hand over this layout has it already)
    *_trusted_across("CREATE INDEX IF NOT EXISTS events_by_time ON events (game_id, at)"),
)

FOUND = "stats_found"
"""The table that keeps what the statistics found of each game (``found``:
``ok``, ``damaged`` or ``newer``; for ``ok``, the values they read of it,
``f1`` to ``f21``, as ``GameFacts.from_row`` takes them), so that a new
process need not read and check every game again (10-11 CPU s at 100,000
games). The triggers of :data:`FOUND_TRIGGERS` drop a game's row at any
change to it by any connection; the rows are taken on trust only under the
layout and version :data:`FOUND_TRUSTED` names."""
FOUND_TRUSTED = "stats_found_trusted"
"""The table that holds the ``PRAGMA schema_version`` and the statistics'
version under which the rows of :data:`FOUND` were kept."""
FOUND_VALUES = 21
"""How many values of a game the rows of :data:`FOUND` keep."""
_WATCHED = ("id, variant, rules, deal_number, deal_version, deal, status, move_count, hints, undos, "
            "winnable_only, created_at, updated_at, started_at, finished_at, assisted, active_ms, won_at, "
            "won_moves, won_active_ms, given_up_at, revision, line_changes")
"""The columns of ``games`` whose change drops what was found of the game
(all but its replay stamp, its line's digest and the time reports' mark,
which the statistics do not read; a change to its moves counts one in
``line_changes``)."""
_DROP = f"DELETE FROM {FOUND} WHERE game_id IN ({{}});"
FOUND_TRIGGERS = tuple(
    f"CREATE TRIGGER {FOUND}_{table}_{event.lower()} AFTER {event}{columns} ON {table} BEGIN "
    f"{_DROP.format(', '.join(f'{row}.{key}' for row in rows))} END"
    for table, key, events in (("games", "id", (("INSERT", ("NEW",), ""), ("DELETE", ("OLD",), ""),
                                                ("UPDATE", ("OLD", "NEW"), f" OF {_WATCHED}"))),
                               ("events", "game_id", (("INSERT", ("NEW",), ""), ("DELETE", ("OLD",), ""),
                                                      ("UPDATE", ("OLD", "NEW"), ""))))
    for event, rows, columns in events
)
"""The triggers of schema 13 by which every change to a game's row or its
log, whoever makes it, drops what the statistics found of the game."""

_V13 = (
    # What the statistics found of each game is kept in the file: a new
    # process (every terrace stats) read and checked every game again.
    *_trusted_across(
        f"CREATE TABLE {FOUND} (game_id TEXT PRIMARY KEY, found TEXT NOT NULL, "
        + ", ".join(f"f{n}" for n in range(1, FOUND_VALUES + 1)) + ") WITHOUT ROWID",
        f"CREATE TABLE {FOUND_TRUSTED} (layout INTEGER NOT NULL, version INTEGER NOT NULL)",
        *FOUND_TRIGGERS),
)

SUMMARY = "stats_summary"
"""The table that keeps the statistics (by time zone) and the recent games
(by how many) as a store last answered them, whole, so that a new process
answers them without reading every game (2.5 and 1.3-2.0 s of CPU at
100,000 games). Each row: what it answers (``what``), the file's layout
(``PRAGMA schema_version``) and the version of the statistics it was kept
under, the file's last game and last entry of the log then (``state``),
the answer as JSON and a digest of all these (``terrace.storage.summary``).
The triggers of :data:`SUMMARY_TRIGGERS` empty it at any change to a game's
row or log, whoever makes it."""
SUMMARY_TRIGGERS = tuple(
    f"CREATE TRIGGER {SUMMARY}_{table}_{event.lower()} AFTER {event}{columns} ON {table} BEGIN "
    f"DELETE FROM {SUMMARY}; END"
    for table, events in (("games", (("INSERT", ""), ("DELETE", ""), ("UPDATE", f" OF {_WATCHED}"))),
                          ("events", (("INSERT", ""), ("DELETE", ""), ("UPDATE", ""))))
    for event, columns in events
)
"""The triggers of schema 14 by which every change to a game's row (what
the statistics or the recent games read of it, its moves counted in
``line_changes``) or to the log, whoever makes it, drops every answer kept
in :data:`SUMMARY`."""

_V14 = (
    # The statistics and the recent games are kept whole in the file: a new
    # process read every game's findings and place for them.
    *_trusted_across(
        f"CREATE TABLE {SUMMARY} (what TEXT PRIMARY KEY, layout INTEGER NOT NULL, "
        "version INTEGER NOT NULL, state TEXT NOT NULL, answer TEXT NOT NULL, digest TEXT NOT NULL) "
        "WITHOUT ROWID",
        *SUMMARY_TRIGGERS),
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "games, moves and events", _V1),
    Migration(2, "start times and indexes", _V2),
    Migration(3, "final wins, assists, active time and hinted positions", _V3),
    Migration(4, "games given up", _V4),
    Migration(5, "replay stamps", _V5),
    Migration(6, "time reports shared by servers", _V6),
    Migration(7, "restored changes in the log", _V7),
    Migration(8, "changes to a line counted", _V8),
    Migration(9, "states a game was brought up from", _V9),
    Migration(10, "states joined by an import in the log", _V10, writes_only=True),
    Migration(11, "lines known to give their digests", _V11, writes_only=True),
    Migration(12, "results found in the log by their time", _V12, writes_only=True),
    Migration(13, "what the statistics found of each game", _V13, writes_only=True),
    Migration(14, "the statistics and recent games kept whole", _V14, writes_only=True),
)

LATEST_VERSION = MIGRATIONS[-1].version


def reads_as_is(version: int, target: int = LATEST_VERSION) -> bool:
    """Whether a database of schema ``version`` reads as one of ``target``
    does: every migration between only widens what writes may store.

    >>> reads_as_is(9), reads_as_is(8), reads_as_is(LATEST_VERSION)
    (True, False, True)
    """
    return all(m.writes_only for m in MIGRATIONS if version < m.version <= target)


@contextlib.contextmanager
def _lenient_write(connection: sqlite3.Connection) -> Iterator[None]:
    """One ``BEGIN IMMEDIATE`` transaction, committed when the block ends
    and rolled back when it raises, in which a row that breaks a CHECK
    constraint (edited by hand) is kept as it is: it makes its game
    damaged, never the file (a table copied by a migration refused it,
    and the whole database stayed unopenable)."""
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("PRAGMA ignore_check_constraints = ON")
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    finally:
        connection.execute("PRAGMA ignore_check_constraints = OFF")


def migrate(connection: sqlite3.Connection, target: int = LATEST_VERSION) -> list[int]:
    """Apply the migrations after the database's version up to ``target``,
    all in one ``BEGIN IMMEDIATE`` transaction; returns the versions applied.
    A database already at ``target`` (or past it) is only read: the write
    lock is taken only when there is something to apply, and the version is
    read again under it (another process may have migrated meanwhile).
    The connection must be in autocommit mode (``isolation_level=None``).
    Raises :class:`NewerDatabaseError` (and changes nothing) when the
    database is newer than this program."""
    current = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if current > LATEST_VERSION:
        raise NewerDatabaseError(current)
    if current >= target:
        return []
    with _lenient_write(connection):
        current = int(connection.execute("PRAGMA user_version").fetchone()[0])
        if current > LATEST_VERSION:
            raise NewerDatabaseError(current)
        applied = []
        for migration in MIGRATIONS:
            if current < migration.version <= target:
                for statement in migration.statements:
                    connection.execute(statement)
                connection.execute(
                    "INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, time.time()),
                )
                connection.execute(f"PRAGMA user_version = {migration.version:d}")
                applied.append(migration.version)
    return applied


COUNTED_SINCE = 8
"""The first schema whose triggers count the changes to a game's moves."""

_TRIGGER_NAME = re.compile(r"CREATE TRIGGER (\w+)")


def _counting() -> dict[str, str]:
    """:data:`COUNTING_TRIGGERS` by name."""
    return {match.group(1): sql for sql in COUNTING_TRIGGERS if (match := _TRIGGER_NAME.match(sql))}


def counting_fault(connection: sqlite3.Connection) -> str | None:
    """What is wrong with the triggers on ``moves`` of a database of schema
    :data:`COUNTED_SINCE` or later (dropped, altered, or one of another
    name that may write to the games), or None when they are exactly
    :data:`COUNTING_TRIGGERS`. One read of ``sqlite_schema``.

    >>> connection = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = migrate(connection)
    >>> counting_fault(connection) is None
    True
    >>> _ = connection.execute("DROP TRIGGER moves_delete_counted")
    >>> counting_fault(connection)
    'the trigger moves_delete_counted is missing'
    """
    found = dict(connection.execute(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'moves' ORDER BY name"
    ).fetchall())
    promised = _counting()
    for name, sql in sorted(promised.items()):
        if name not in found:
            return f"the trigger {name} is missing"
        if found[name] != sql:
            return f"the trigger {name} was altered"
    for name in sorted(set(found) - set(promised)):
        return f"the trigger {name} is not one of ours"
    return None


def repair_counting(connection: sqlite3.Connection) -> None:
    """Make the triggers of :data:`COUNTING_TRIGGERS` again, in place of
    whatever triggers ``moves`` has, and count one change to every game's
    line (a move row changed while they were missing went uncounted: every
    store reads each line again). The connection must be in autocommit
    mode; all in one ``BEGIN IMMEDIATE`` transaction (a row that breaks
    a CHECK constraint, edited by hand, is counted as it stands: its game
    reads as damaged, as before)."""
    with _lenient_write(connection):
        for (name,) in connection.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'moves'").fetchall():
            quoted = str(name).replace('"', '""')
            connection.execute(f'DROP TRIGGER "{quoted}"')
        for sql in COUNTING_TRIGGERS:
            connection.execute(sql)
        connection.execute(f"UPDATE games SET {LINE_CHANGES} = {LINE_CHANGES} + 1")
        trust_lines(connection)


def trust_lines(connection: sqlite3.Connection) -> None:
    """Take the counts of :data:`LINE_CHECKED` on trust under the file's
    layout as it now is (inside the write transaction that made the
    counting triggers again, every count moved since, or knowing that
    none went uncounted)."""
    if connection.execute(f"SELECT 1 FROM sqlite_schema WHERE name = '{LINES_TRUSTED}'").fetchone():
        connection.execute(f"DELETE FROM {LINES_TRUSTED}")
        connection.execute(
            f"INSERT INTO {LINES_TRUSTED} (layout) SELECT schema_version FROM pragma_schema_version")


def lines_trusted(connection: sqlite3.Connection) -> bool:
    """Whether the counts of :data:`LINE_CHECKED` were kept under the
    file's layout as it now is (no trigger dropped and made again since)."""
    if connection.execute(f"SELECT 1 FROM sqlite_schema WHERE name = '{LINES_TRUSTED}'").fetchone() is None:
        return False
    found = connection.execute(f"SELECT layout FROM {LINES_TRUSTED}").fetchall()
    layout = connection.execute("PRAGMA schema_version").fetchone()[0]
    return len(found) == 1 and found[0][0] == layout


FOUND_SINCE = 13
"""The first schema that keeps what the statistics found of each game."""


def found_fault(connection: sqlite3.Connection) -> str | None:
    """What is wrong with the triggers of :data:`FOUND_TRIGGERS` (dropped or
    altered), or None when each is there as made."""
    return _triggers_fault(connection, FOUND, FOUND_TRIGGERS)


SUMMARY_SINCE = 14
"""The first schema that keeps the statistics and recent games whole."""


def summary_fault(connection: sqlite3.Connection) -> str | None:
    """What is wrong with the triggers of :data:`SUMMARY_TRIGGERS` (dropped
    or altered), or None when each is there as made.

    >>> connection = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = migrate(connection)
    >>> summary_fault(connection) is None
    True
    >>> _ = connection.execute("DROP TRIGGER stats_summary_events_insert")
    >>> summary_fault(connection)
    'the trigger stats_summary_events_insert is missing'
    """
    return _triggers_fault(connection, SUMMARY, SUMMARY_TRIGGERS)


def _triggers_fault(connection: sqlite3.Connection, prefix: str, triggers: tuple[str, ...]) -> str | None:
    """What is wrong with ``triggers``, whose names begin with ``prefix``
    and ``_`` (dropped or altered), or None."""
    found = dict(connection.execute(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE ? ESCAPE '~'",
        (f"{prefix.replace('_', '~_')}~_%",)).fetchall())
    for sql in triggers:
        name = sql.split()[2]
        if found.get(name) != sql:
            return f"the trigger {name} is {'missing' if name not in found else 'altered'}"
    return None


def trust_found(connection: sqlite3.Connection, version: int) -> None:
    """Take the rows of :data:`FOUND` on trust under the file's layout as
    it now is and the statistics' ``version`` (inside a write transaction
    that found :func:`found_fault` None, or knowing that no trigger of it
    was away since it was)."""
    connection.execute(f"DELETE FROM {FOUND_TRUSTED}")
    connection.execute(f"INSERT INTO {FOUND_TRUSTED} (layout, version) "
                       "SELECT schema_version, ? FROM pragma_schema_version", (version,))


def found_trusted(connection: sqlite3.Connection, version: int) -> bool:
    """Whether the rows of :data:`FOUND` were kept under the file's layout
    as it now is, by the statistics' ``version``."""
    if connection.execute(f"SELECT 1 FROM sqlite_schema WHERE name = '{FOUND_TRUSTED}'").fetchone() is None:
        return False
    found = connection.execute(f"SELECT layout, version FROM {FOUND_TRUSTED}").fetchall()
    layout = connection.execute("PRAGMA schema_version").fetchone()[0]
    return found == [(layout, version)]


@functools.cache
def promised_indexes(version: int) -> dict[str, str]:
    """The indexes schema ``version`` makes, by name, with the SQL that
    makes each (as ``sqlite_schema`` keeps it).

    >>> sorted(promised_indexes(LATEST_VERSION))
    ['events_by_game', 'events_by_time', 'games_by_update', 'games_unfinished']
    >>> promised_indexes(1)
    {}
    """
    connection = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(connection, version)
        return dict(connection.execute(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").fetchall())
    finally:
        connection.close()


def index_faults(connection: sqlite3.Connection, version: int) -> list[str]:
    """What is wrong with the indexes of a database of schema ``version``:
    one finding for each index it should have that is missing or was
    altered (dropped by hand, or made again otherwise). One read of
    ``sqlite_schema``; an index of another name is none of ours.

    >>> connection = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = migrate(connection)
    >>> index_faults(connection, LATEST_VERSION)
    []
    >>> _ = connection.execute("DROP INDEX events_by_game")
    >>> index_faults(connection, LATEST_VERSION)
    ['the index events_by_game is missing']
    """
    found = dict(connection.execute(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").fetchall())
    faults = []
    for name, sql in sorted(promised_indexes(version).items()):
        if name not in found:
            faults.append(f"the index {name} is missing")
        elif found[name] != sql:
            faults.append(f"the index {name} was altered")
    return faults


def repair_indexes(connection: sqlite3.Connection, version: int) -> list[str]:
    """Make again each index of schema ``version`` that is missing or was
    altered, in one ``BEGIN IMMEDIATE`` transaction (the findings read
    again under the lock: another program may have made them meanwhile);
    returns what was found wrong (and made right). The connection must be
    in autocommit mode."""
    with _lenient_write(connection):
        return make_indexes(connection, version)


def make_indexes(connection: sqlite3.Connection, version: int) -> list[str]:
    """Make again, in the transaction under way (which must hold the
    write lock), each index of schema ``version`` that is missing or was
    altered; returns what was found wrong."""
    faults = index_faults(connection, version)
    found = dict(connection.execute(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").fetchall())
    for name, sql in sorted(promised_indexes(version).items()):
        if found.get(name) != sql:
            if name in found:
                connection.execute(f'DROP INDEX "{name}"')
            connection.execute(sql)
    return faults


Layout = dict[str, frozenset[str]]
"""The tables of a database (SQLite's own left out) and their columns, and
under :data:`ACTIONS_KEY` the actions its event log takes (a migration may
add one without adding a column: schema 7)."""

ACTIONS_KEY = "events (actions)"
"""The key of a :data:`Layout` that holds the actions the ``events``
table's CHECK constraint allows (no table has a name with a space here)."""

_ACTION_CHECK = re.compile(r"CHECK\s*\(\s*action\s+IN\s*\(([^)]*)\)", re.IGNORECASE)


def read_layout(connection: sqlite3.Connection) -> Layout:
    """The tables the database holds, with their columns, and the actions
    its event log takes."""
    tables = connection.execute(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite~_%' ESCAPE '~'"
    ).fetchall()
    found: Layout = {
        table: frozenset(c for (c,) in connection.execute("SELECT name FROM pragma_table_info(?)", (table,)))
        for table, _ in tables
    }
    for table, sql in tables:
        if table == "events":
            check = _ACTION_CHECK.search(str(sql))
            found[ACTIONS_KEY] = frozenset(re.findall(r"'([^']*)'", check.group(1)) if check else ())
    return found


@functools.cache
def layout(version: int) -> Layout:
    """The tables and columns that schema ``version`` has: the migrations
    up to it, run on an empty database in memory.

    >>> sorted(layout(1)), "given_up_at" in layout(4)["games"], layout(0)
    (['events', 'events (actions)', 'games', 'migrations', 'moves'], True, {})
    >>> sorted(layout(7)[ACTIONS_KEY] - layout(6)[ACTIONS_KEY])
    ['restore']
    """
    connection = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(connection, version)
        return read_layout(connection)
    finally:
        connection.close()


def layout_fault(found: Layout, version: int) -> str | None:
    """What is wrong with a database whose tables are ``found`` and whose
    schema number is ``version`` (at most :data:`LATEST_VERSION`), or None
    when it has every table and column that version promises, and no column
    of a later one.

    >>> layout_fault(layout(4), 4) is None
    True
    >>> layout_fault(layout(4), 3)
    'its schema number is 3, but its table games has the column given_up_at, which schema 3 does not have'
    >>> layout_fault({}, 2)
    'its schema number is 2, but it has no table events'
    >>> layout_fault(layout(1), 0)
    'its schema number is 0, that of a new database, but it holds tables'
    >>> layout_fault(layout(7), 6)
    "its schema number is 6, but its event log takes the action 'restore', which schema 6 does not have"
    >>> layout_fault(layout(9), 8)
    'its schema number is 8, but it has the table passed, which schema 8 does not have'
    """
    if version == 0:
        return "its schema number is 0, that of a new database, but it holds tables" if found else None
    promised = layout(version)
    for table, columns in sorted(promised.items()):
        if table == ACTIONS_KEY:
            continue
        if table not in found:
            return f"its schema number is {version}, but it has no table {table}"
        for column in sorted(columns - found[table]):
            return f"its schema number is {version}, but its table {table} has no column {column}"
        for column in sorted(found[table] - columns):
            return (f"its schema number is {version}, but its table {table} has the column {column}, "
                    f"which schema {version} does not have")
    for table in sorted(set(found) - set(promised) - {ACTIONS_KEY}):
        return (f"its schema number is {version}, but it has the table {table}, "
                f"which schema {version} does not have")
    taken, actions = found.get(ACTIONS_KEY, frozenset()), promised.get(ACTIONS_KEY, frozenset())
    for action in sorted(actions - taken):
        return f"its schema number is {version}, but its event log does not take the action {action!r}"
    for action in sorted(taken - actions):
        return (f"its schema number is {version}, but its event log takes the action {action!r}, "
                f"which schema {version} does not have")
    return None
