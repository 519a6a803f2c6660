"""Saved games in one SQLite file: the durable :class:`~terrace.storage.base.GameStore`.

Every change is one ``BEGIN IMMEDIATE`` transaction that checks the game's
revision before writing and is committed (WAL, ``synchronous=NORMAL``)
before the call returns, so what a player saw accepted survives a crash or
SIGKILL of the program (a power cut may lose the last moves since the log's
last checkpoint; ``docs/storage.md`` says why). A move
costs the same at any length of game: it is checked on the board the caller
played it on and stored as one new row. Every game read back is checked: a
game read for the first time (or changed by another process) is replayed
through the engine, so a damaged row gives a clear
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

import contextlib
import itertools
import json
import logging
import os
import re
import shutil
import sqlite3
import struct
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import tzinfo
from pathlib import Path
from typing import Any

from terrace.bounded import Bounded
from terrace.deal import Deal
from terrace.refusals import Reason, Refusal
from terrace.rules import Rules
from terrace.storage.base import (
    ClockOutOfRangeError,
    DamagedGameError,
    LogPlaces,
    StoredGame,
    StoreError,
    StoreStoppedError,
    StoreWriteError,
    check_action,
    check_active_ms,
    check_game,
    check_identity,
    check_position_key,
    check_saved,
    clock_outside,
    conflict,
    given_up,
    new_game,
    new_game_id,
    one_more,
    report_mark,
    unknown_game,
)
from terrace.storage.files import (
    VERDICT_TABLES,
    DatabaseFileError,
    NoDatabaseError,
    busy_error,
    damaged,
    emptied,
    file_identity,
    foreign,
    inspect_file,
    is_busy,
    logged,
    nonempty,
    read_refusal,
    remove_new_side_files,
    side_files,
    sql_error,
    unsaved_problem,
    verdict_cache,
)
from terrace.storage.findings import file_state, found_whole
from terrace.storage.held import emptied_since, held_open_sound, note_held, sealed_since
from terrace.storage.line import Line
from terrace.storage.merging import (
    ImportStoppedError,
    _Budget,
    _clear_leftovers,
    _continues,
    _hinted_of,
    _hints_joined,
    _holds_as_of,
    _keep_past,
    _light_row,
    _log_of,
    _log_states,
    _off_line,
    _passed_key,
    _places,
    _restore_log,
    _Seen,
    _sound,
    _state,
    _tables_of_games,
    _untouched,
    _versions,
    _vouched_moves,
)
from terrace.storage.migrations import (
    APPLICATION_ID,
    COUNTED_SINCE,
    FOUND_SINCE,
    INSERTS_COUNTED,
    INSERTS_TRIGGER,
    LATEST_VERSION,
    LINE_CHANGES,
    SUMMARY_SINCE,
    NewerDatabaseError,
    counting_fault,
    found_trusted,
    index_faults,
    layout_fault,
    lines_trusted,
    make_indexes,
    migrate,
    read_layout,
    reads_as_is,
    repair_counting,
    repair_indexes,
    trust_found,
    trust_lines,
)
from terrace.storage.paths import MEMORY, default_games_path, given_label, label, no_new_file, verdicts_path
from terrace.storage.recent import Placed, RecentOrder
from terrace.storage.rows import (
    GAME_ID,
    GAME_READ,
    IMPORTED,
    LAST_HERE,
    LATEST_CHANGED_HERE,
    LATEST_LOOKBACK,
    LINES,
    MOVE_READ,
    RECENT_PLACES,
    bounded,
    flag,
    insert_game,
    load_game,
    log_event,
    overwrite_game,
    read_line,
    replace_line,
    same_game,
    stamp_fits,
    stamped_values,
    whole,
    write_stamp,
)
from terrace.storage.statistics import MAX_ACTIVE_MS
from terrace.storage.summary import kept, recent_key, recent_shape
from terrace.storage.tallying import (
    FOUND_VERSION,
    KEPT_VERSION,
    RECENT_TOUCHED,
    RECENT_TRIGGERS,
    SUMMARIES_KEPT,
    Tallying,
    _readable_id,
    _Tally,
)

log = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS = 10.0
"""The longest a call of the store waits for the database (see
:meth:`SqliteStore._transaction`)."""
SHORTEN_AFTER = 0.05
"""Seconds spent waiting for this connection after which a transaction
gives SQLite only what is left of :data:`BUSY_TIMEOUT_SECONDS`."""
STOP_LOOK_STEPS = 10_000
"""How many of SQLite's steps a statement takes between two looks at
whether it is to stop (see :meth:`SqliteStore._stop_asked`): a look costs
about a microsecond, the steps between two a fraction of a millisecond."""
WRITE_TURN = 0.05
"""The longest a write waits between two tries of another connection's
write lock, away from this store's connection, which other threads' calls
have meanwhile (see :meth:`SqliteStore._begin`)."""
TRY_AGAIN_FIRST = 0.001
"""A write's first wait for another connection's write lock (each next one
twice as long, up to :data:`WRITE_TURN`), as SQLite's own waits grow."""
REMEMBERED_GAMES = 32
"""Games whose last read or written state the store keeps, so that the next
read of an unchanged game needs neither its moves' rows nor a replay."""
REMEMBERED_MOVES = 200_000
"""Moves (played and to redo) of the remembered games, in all: each keeps a
board of its whole history, about 22 MB at 100,000 moves, so that a
server that had served 32 long games held some 700 MB of them for as long
as it ran. The game remembered last is always kept. The lines a replay
stamp vouched for (a listing's read: 6 MB at 100,000 moves) are bounded
alike."""
_REMEDIES = {"full": "free some disk space", "read-only": "make it writable"}
_ROW_FAULT = re.compile(r"(CHECK constraint failed in|NULL value in) ")
"""What ``PRAGMA quick_check`` says of a row that breaks a constraint (a
hand edit): the row is damaged, not the file; reading it refuses that game."""
_CHECKPOINT_LOCK = 121
"""The byte of the log's index (``-shm``) that SQLite's unix VFS locks
while it folds the log into the file (its lock bytes begin at 120; the
checkpoint's is the second)."""
CHECKED_PROBLEMS = 100
"""How many of its findings ``PRAGMA quick_check`` is asked for."""
NOTE_SECONDS = 1.0
"""How often at most a game added notes the file's games (see
:meth:`SqliteStore._note_running`)."""


def _game_count(conn: sqlite3.Connection) -> int:
    """How many games the database of ``conn`` holds."""
    return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])


def open_store(path: str | os.PathLike[str] | None = None, *, read_only: bool = False) -> SqliteStore:
    """Open (creating and migrating as needed) the database at ``path``,
    or at :func:`~terrace.storage.paths.default_games_path` when it is None;
    ``":memory:"`` keeps everything in memory. With ``read_only`` nothing is
    ever written or created (see :class:`SqliteStore`)."""
    return SqliteStore(default_games_path() if path is None else path, read_only=read_only)


def _switch_to_wal(conn: sqlite3.Connection) -> str:
    """Put the database in write-ahead-log mode; returns the journal mode.

    While several connections open a new file at once, SQLite can refuse
    the switch at once ("database is locked") instead of waiting out its
    busy timeout, so the switch is tried again for up to
    :data:`BUSY_TIMEOUT_SECONDS`.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as error:
            if not is_busy(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _set_busy_timeout(conn: sqlite3.Connection, seconds: float) -> None:
    """How long SQLite waits for another connection's lock on ``conn``."""
    conn.execute(f"PRAGMA busy_timeout = {max(1, int(seconds * 1000))}")


def _read_copy(path: Path, name: str) -> sqlite3.Connection:
    """The database file ``path`` and its log, read into memory from a
    private copy of both (SQLite cannot read a log without the ``-shm``
    index it makes beside it, and a read-only folder takes none); the
    file and its log are left as they are."""
    with tempfile.TemporaryDirectory(prefix="terrace-read-") as folder:
        copy = Path(folder) / path.name
        try:
            shutil.copyfile(path, copy)
            shutil.copyfile(f"{path}-wal", f"{copy}-wal")
        except OSError as error:
            raise DatabaseFileError(Reason(Refusal.DATABASE_UNREADABLE_WITH_LOG, name=name,
                                           text=str(error.strerror or error))) from None
        memory = _connect(MEMORY)
        try:
            source = _connect(copy, "mode=ro")
            try:
                source.backup(memory)
            finally:
                source.close()
        except sqlite3.Error as error:
            memory.close()
            raise sql_error(name, error) from None
    return memory


def _version_and_id(conn: sqlite3.Connection, version: int) -> tuple[int, int]:
    """The schema version (at least ``version``, the file header's) and
    the application id that ``conn`` reads."""
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    return max(version, found), int(conn.execute("PRAGMA application_id").fetchone()[0])


def _check_folder_takes_a_file(path: Path, name: str) -> None:
    """Refuse, saying why, a new database ``name`` at ``path`` in a folder
    that takes no new file (a read-only disk)."""
    why = no_new_file(path.parent)
    if why is not None:
        raise DatabaseFileError(
            f"no database {name} can be made: no new file can be made in its folder "
            f"{label(path.parent)} ({why})"
        )


def _connect(path: Path | str, mode: str | None = None) -> sqlite3.Connection:
    """The store's connection to ``path`` (or :data:`MEMORY`): for reading
    and writing, or opened as the URI parameters ``mode`` say
    (``"mode=ro"``...). Text that is not UTF-8 (a damaged byte) is read
    with U+FFFD in its place instead of failing the whole query, so that
    the checks of the one game that holds it find it damaged."""
    target = path if mode is None or isinstance(path, str) else path.resolve().as_uri() + "?" + mode
    conn = sqlite3.connect(target, uri=mode is not None, isolation_level=None, check_same_thread=False,
                           timeout=BUSY_TIMEOUT_SECONDS)
    conn.text_factory = _lenient_text
    return conn


IMPORT_CHUNK = 200
"""How many games an import writes in one transaction (about 0.3 s of the
write lock at 1.4 ms a game; all 3,000 games of a backup at once held it
4.3 s, and a move sent meanwhile waited 10.3 s and was refused as busy)."""
IMPORT_PAUSE = 0.15
"""Seconds an import leaves the write lock free between two chunks: longer
than the 0.1 s another connection sleeps between its tries for the lock,
so a move waiting for it gets it."""


def _lenient_text(data: bytes) -> str:
    """A text value as read (see :func:`_connect`)."""
    return data.decode("utf-8", "replace")


def _real_path(path: Path) -> Path:
    """The file ``path`` names, symbolic links followed (as SQLite follows
    them, keeping its ``-wal`` and ``-shm`` files beside that file); a loop
    of links is left to SQLite to refuse."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


class SqliteStore(Tallying):
    """A :class:`~terrace.storage.base.GameStore` in an SQLite file; safe to share
    between threads (calls are serialized) and between processes (SQLite
    locking plus revision checks).

    Opened ``read_only`` (``terrace stats`` and ``export``), it never writes
    or creates anything: a missing or empty file is a
    :class:`~terrace.storage.files.NoDatabaseError`, the file is not
    switched to WAL mode, a schema older than ``migrate_to`` is upgraded in
    a copy in memory (the file keeps its own), and every change is refused
    with :class:`~terrace.storage.base.StoreWriteError`."""

    def __init__(
        self, path: str | os.PathLike[str], *, migrate_to: int = LATEST_VERSION, read_only: bool = False
    ) -> None:
        self._lock = threading.RLock()
        self._writing = threading.RLock()
        """Held by the one write that may try SQLite's lock now (see
        :meth:`_transaction`)."""
        self._stopping = threading.Event()
        """Set by :meth:`stop_waiting`: a write tries SQLite's lock no more,
        and the statistics check no more games."""
        self._may_stop = False
        """True while a statement that may stop midway runs (:meth:`_stoppable`)."""
        self.read_only = read_only
        self._remembered: Bounded[str, StoredGame] = Bounded(
            REMEMBERED_GAMES, REMEMBERED_MOVES, StoredGame.line_length, forgotten=self._forgotten)
        self._vouched: Bounded[str, tuple[int, str, Line]] = Bounded(
            REMEMBERED_GAMES, REMEMBERED_MOVES, _vouched_moves)
        """The revision, replay stamp and line of games the recent list read
        by their stamps (most recent last; cleared when another connection
        writes), as many and as long as the remembered games."""
        self._sound: dict[Any, int] = {}
        """The hash of each game's row as last found sound by a full check
        (cleared with the remembered games)."""
        self._counted_sound: dict[Any, tuple[int, Any]] = {}
        """The hash of each game's row as the statistics last found it sound,
        with the count of changes to its move rows then (``line_changes``):
        kept when another connection writes, as a change to the row or to
        its moves shows in them; cleared when the file's layout changes
        (the triggers that count may have been away)."""
        self._distrusted: set[str] = set()
        """Games a read found damaged: the statistics check them by reading
        their moves, whatever digest their rows keep, and drop that digest
        (its count of changes) at their next write."""
        self._data_version = -1
        self._tally: _Tally | None = None
        """What the last statistics found of each game (see :meth:`statistics`)."""
        self._recent_found: tuple[int, RecentOrder] | None = None
        """The recent games' order, kept game by game, with the data version
        it was found at (see :meth:`_recent_order`)."""
        self._zones_asked: list[tzinfo | None] = []
        """The time zones the statistics were asked for last (the latest
        last), whose statistics :meth:`close` keeps in the file."""
        self._limits_asked: list[int] = []
        """As many recent games as were asked for last, likewise."""
        self._tally_lock = threading.Lock()
        """Held while the tally is brought up to date (the games it reads
        again are checked each in its own short read, as before)."""
        self._restudy: set[Any] = set()
        """Games the tally is to read again though no change was noted:
        a read found them damaged."""
        self._line_marks: dict[str, Any] = {}
        """The count of changes to its move rows (the ``line_changes``
        column) at which each remembered game's line was read or written."""
        self._unsure: set[str] = set()
        """Remembered games whose line another connection may have changed
        since: :meth:`_saved_line` compares their count first."""
        self._lines_counted = True
        """False when the file's triggers do not count every change to a
        line (altered by hand, in a file opened only to read): a line
        another connection may have changed is then read again."""
        self._layout_seen = -1
        """``PRAGMA schema_version`` when the triggers were last checked."""
        self._indexes_lost: list[str] = []
        """The schema's indexes found missing or altered while in use
        (dropped by hand), to be made again (see :meth:`_mend_indexes`)."""
        self._waited_at_open: float | None = None
        """When the opening gave up waiting for another program's lock (to
        make the counting triggers again), by ``time.monotonic()``: the
        first change written within :data:`BUSY_TIMEOUT_SECONDS` of it
        (``terrace play``'s :meth:`check_writable`, an import) does not
        wait it out again, but takes the lock at once or is refused as busy
        (two waits made them take 20 s to say so)."""
        self.migrations_applied: list[int] = []
        self._side_before: set[str] = set()
        self._made = False
        self._made_folders: list[Path] = []
        self._stamp: tuple[int, int, int] | None = None
        """The database file's inode, size and time of change as this store
        last left it (None: in memory or opened only to read): see
        :meth:`_check_not_written_over`."""
        self._stamp_version = -1
        """``PRAGMA data_version`` when :attr:`_stamp` was taken."""
        self._stamp_folds: tuple[bytes, int, int] | None = None
        """:meth:`_folds` when :attr:`_stamp` was taken."""
        self._stamp_in_fold = False
        """Whether another process was folding the log into the file (or
        it could not be told) when :attr:`_stamp` was taken (:meth:`_folding`)."""
        self._index_fd: int | None = None
        """SQLite's descriptor of the log's index, as :meth:`_folds` last found it."""
        self._written_over = False
        """True once another program was found to have written over the
        file while open (a backup copied in): nothing more is read or
        written, and :meth:`close` leaves the file as it now is."""
        self._emptied = False
        """True once another program was found to have emptied the file (cut
        it to 0 bytes) while open: said so, and noted as it closes
        (:mod:`terrace.storage.held`)."""
        self._sealed = False
        """True when the file was found as a store left it sound when it
        closed it (:func:`~terrace.storage.held.sealed_since`): the
        opening does not check all of it again."""
        self._found_sound = False
        """True when the opening found the file sound (checked, or sealed)."""
        self._whole: list[int] | None = None
        """The file's state (:func:`~terrace.storage.findings.file_state`)
        in which the whole file was found sound, by this store opened only
        to read, no log or journal beside it, or by the statistics of one
        before (:func:`~terrace.storage.findings.found_whole`)."""
        self._whole_noted = False
        """Whether :attr:`_whole` is in the note of what the statistics found."""
        self._holding_noted = False
        """Whether this store noted that it holds the file it found sound
        (:meth:`_note_holding`, at its first write: its log then holds something)."""
        self._noted_at: float | None = None
        """When a game added last noted the file (``time.monotonic()``)."""
        if str(path) == MEMORY:
            self.path: Path | None = None
            self._file: Path | None = None
            self._name = MEMORY
            self._conn = _connect(MEMORY)
        else:
            self.path = Path(path).expanduser()
            self._file = _real_path(self.path)
            """The file itself, beside which SQLite keeps its log (it
            follows a symbolic link when it opens the file)."""
            self._name = label(self.path)
            self._conn = self._open_file(self._file)
        try:
            self._prepare(migrate_to)
        except StoreWriteError as error:
            self._close_refused()
            problem = unsaved_problem(error)
            if problem is not None:  # (busy, damaged: said as a read says it)
                raise problem from None
            if not read_only:
                raise self._unsavable(error) from None
            if self._file is None or self._side_before or error.fault not in ("full", "failed"):
                # (an opening that only reads writes nothing: it said "the update of
                # the database's layout was not saved: the disk failed ...")
                raise read_refusal(error, self._name) from None
            # A full disk has no room for the -shm file that SQLite needs to
            # read: with no writer at work (no log beside it), the file is
            # read as it stands, so that a backup can still be exported.
            self._conn = _connect(self._file, "mode=ro&immutable=1")
            try:
                self._prepare(migrate_to)
            except BaseException:
                self._close_refused()
                raise
        except BaseException:
            self._close_refused()
            raise
        self._identity = self._files_identity()
        """The database file's and its log's device and inode, as opened:
        a write checks them first (see :meth:`_check_same_file`)."""
        self._opened = file_identity(self._file) if self._file is not None else None
        """The device and inode of the file SQLite opened."""
        self._conn.set_progress_handler(self._stop_asked, STOP_LOOK_STEPS)
        if not read_only and self._file is not None:
            self._take_stamp(self._data_version_now())
            if self._stamp_folds is None:
                # (no log's index, or none this system lets be read without
                # opening it: another program's folds could not be told from
                # a copy, and the check is not made)
                self._stamp = None

    def _take_stamp(self, version: int) -> None:
        # (the folds read first: a fold that ends meanwhile is seen as one made since;
        # the lock before them: a fold begun meanwhile shows in them)
        if self._index_fd is None:
            self._folds()  # (finds SQLite's descriptor of the index)
        self._stamp_in_fold = self._folding() is not False
        self._stamp_folds = self._folds()
        self._stamp, self._stamp_version = self._file_stamp(), version

    def _folding(self) -> bool | None:
        """Whether another process is folding the log into the file now: it
        holds SQLite's checkpoint lock (byte 121 of the log's index, as
        SQLite's unix VFS locks it), asked with ``F_GETLK`` through
        SQLite's own descriptor, which takes and drops no lock. None when
        it cannot be asked (no descriptor, not 64-bit Linux). A fold
        that was begun and never finished (its process killed) leaves the
        index saying one is under way (:meth:`_folds`) until the next fold:
        this tells the two apart."""
        if self._index_fd is None or sys.platform != "linux" or struct.calcsize("P") != 8:
            return None
        import fcntl  # (Unix only)

        asked = struct.pack("hhxxxxqqixxxx", fcntl.F_WRLCK, os.SEEK_SET, _CHECKPOINT_LOCK, 1, 0)
        try:
            answer = fcntl.fcntl(self._index_fd, fcntl.F_GETLK, asked)
        except OSError:
            return None
        return bool(struct.unpack("hh", answer[:4])[0] != fcntl.F_UNLCK)

    def _folds(self) -> tuple[bytes, int, int] | None:
        """What the log's index (``-shm``, laid out as SQLite's WAL file
        format says) tells of the folding of the log into the file: the
        log's salt (new at each restart of the log), the frames folded in,
        and those a fold in progress has begun to fold (more than the
        former while it writes). None when it cannot be read.

        It is read through the descriptor SQLite holds open (found in
        ``/proc/self/fd``), never opened here: closing any descriptor of a
        file drops every lock this process holds on it (POSIX), SQLite's
        included, and another server then took the index for abandoned
        and made it anew under this one (which died of SIGBUS)."""
        index = os.path.realpath(f"{self._file}-shm")
        try:
            if self._index_fd is None or os.readlink(f"/proc/self/fd/{self._index_fd}") != index:
                self._index_fd = None
                for name in os.listdir("/proc/self/fd"):
                    with contextlib.suppress(OSError):
                        if os.readlink(f"/proc/self/fd/{name}") == index:
                            self._index_fd = int(name)
                            break
            if self._index_fd is None:
                return None
            head = os.pread(self._index_fd, 136, 0)
        except OSError:
            self._index_fd = None
            return None
        if len(head) < 136:
            return None
        folded, begun = (int.from_bytes(head[at:at + 4], sys.byteorder) for at in (96, 128))
        return head[32:40], folded, begun

    def _file_stamp(self) -> tuple[int, int, int] | None:
        """The database file's inode, size and time of change (None: no
        file there)."""
        try:
            info = self._file.stat() if self._file is not None else None
        except OSError:
            return None
        return None if info is None else (info.st_ino, info.st_size, info.st_mtime_ns)

    def _data_version_now(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def _check_not_written_over(self, change: str | None) -> None:
        """Refuse a read or a write (of ``change``) when another program
        wrote over the database file in place while it was open, as a backup
        copied over it does: SQLite writes to the file only when it folds
        its log in, so a file whose size or time of change moved though no
        connection changed the database (``PRAGMA data_version``) and no
        fold was made or is under way (:meth:`_folds`: another program's,
        such as ``PRAGMA wal_checkpoint`` or a replication tool's) was
        written by something else. SQLite
        would read it through the log of the file it replaced (pages of two
        databases mixed), and fold that log into it at the close: the copy
        would be lost, and could be left damaged. (A file moved or replaced
        by another name is :meth:`_check_same_file`'s.)"""
        if not self._written_over:
            if self._stamp is None:
                return
            folds = self._folds()  # (before the file: see _take_stamp)
            now = self._file_stamp()
            if now is None or now == self._stamp or now[0] != self._stamp[0]:
                return
            version = self._data_version_now()
            if version != self._stamp_version or folds != self._stamp_folds or (
                    folds is not None and folds[1] != folds[2] and self._fold_under_way(folds)):
                # (another connection's change or fold into the file, or a fold under way)
                self._stamp, self._stamp_version, self._stamp_folds = now, version, folds
                self._stamp_in_fold = self._folding() is not False
                return
            self._written_over = True
            self._emptied = now[1] == 0
            if self._emptied:
                log.error("%s was emptied (cut to 0 bytes) by another program while in use: the games "
                          "saved in it are gone from it; nothing more is read or written until Terrace "
                          "starts again", self._name)
            else:
                log.error("%s was written over by another program while in use (a backup copied in?): "
                          "nothing more is read or written until Terrace starts again", self._name)
        if change is not None:  # (nothing to put back: only a new start opens the copy)
            code = Refusal.WRITE_FILE_EMPTIED if self._emptied else Refusal.WRITE_FILE_REPLACED
            raise StoreWriteError(Reason(code, change=change, name=self._name), "moved")
        fault = Refusal.FAULT_FILE_EMPTIED if self._emptied else Refusal.FAULT_FILE_REPLACED
        raise StoreError(Reason(Refusal.DATABASE_UNUSABLE, name=self._name, fault=Reason(fault)))

    def _fold_under_way(self, folds: tuple[bytes, int, int]) -> bool:
        """Whether the fold the index says was begun (``folds``, as at the
        stamp) may have written to the file since the stamp: another
        process holds the checkpoint lock, or did when the stamp was taken,
        or the index moved meanwhile, or the lock cannot be asked. Else it
        is one begun and never finished (its process killed): taken for
        one under way, it let a backup copied over the file go unseen until
        the next fold, and the file was left damaged."""
        return self._folding() is not False or self._stamp_in_fold or self._folds() != folds

    def _files_identity(self) -> tuple[tuple[int, int] | None, ...]:
        if self.path is None or self._file is None:
            return ()
        # (the name given, followed to whatever file it now names, and the
        # log beside the file SQLite opened)
        return file_identity(self.path), file_identity(Path(f"{self._file}-wal"))

    def _check_same_file(self, change: str) -> None:
        """Refuse a write of ``change`` (a key of :data:`~terrace.refusals.CHANGES`)
        when the database file (or its log) is no longer the one opened:
        deleted, moved or replaced while in use, SQLite would go on writing
        to the file it has open, which nobody can ever read again, and every
        move acknowledged from then on would be lost."""
        now = self._files_identity()
        if now == self._identity:
            return
        if self._identity[1] is None and now[0] == self._identity[0]:
            self._identity = now  # (the log made since opening: it is SQLite's own)
            return
        # (another file under the name, a backup moved in, cannot be put back
        # for the one open: only a new start opens it; one moved away can be)
        replaced = now[0] is not None and now[0] != self._identity[0]
        refusal = Refusal.WRITE_FILE_REPLACED if replaced else Refusal.WRITE_FILE_MOVED
        raise StoreWriteError(Reason(refusal, change=change, name=self._name), "moved")

    # -- opening ----------------------------------------------------------

    def _open_file(self, path: Path) -> sqlite3.Connection:
        """Check the file ``path`` (the one :attr:`path` names, links
        followed) and connect to it; its refusals name what the user gave,
        and where a link points."""
        name = given_label(self.path or path, path)
        header = inspect_file(path, name)
        if header is None and (held := emptied_since(path)) is not None:
            raise emptied(name, held.games)
        self._sealed = (header is not None and not nonempty(Path(f"{path}-journal"))
                        and (held_open_sound(path) if header.has_wal else self._left_sound(path)))
        self._side_before = side_files(path)
        self._made = not path.exists()  # (a refused database made here is removed again)
        if header is None and self.read_only:
            raise NoDatabaseError(name)
        copied: sqlite3.Connection | None = None
        if header is not None:
            version, application_id = header.user_version, header.application_id
            try:
                # (SQLite reads a log through its -shm index, which it cannot
                # make in a folder that takes no new file: it said only "the
                # database file cannot be opened")
                why = no_new_file(path.parent) if header.has_wal and "-shm" not in self._side_before else None
                if why is not None and self.read_only:
                    copied = _read_copy(path, name)
                    version, application_id = _version_and_id(copied, version)
                elif why is not None:
                    raise DatabaseFileError(
                        f"games cannot be saved in {name}: SQLite reads its log {label(path)}-wal through "
                        f"an index {label(path)}-shm it makes beside it, and no new file can be made in its "
                        f"folder ({why}); make the folder writable (terrace stats and export read it as it "
                        "is), or name another file with --db")
                elif header.has_wal:  # (the probe may make an -shm file)
                    version, application_id = self._probe_header(path, name, version)
                if application_id != APPLICATION_ID:
                    pass  # (ours carry it from schema 1 on: another program's numbering, said below)
                elif version > LATEST_VERSION:
                    raise NewerDatabaseError(version, name)
                elif version < 0:
                    raise damaged(name, Reason(Refusal.DAMAGE_SCHEMA_NUMBER, version=version))
            except BaseException:
                if copied is not None:
                    copied.close()
                remove_new_side_files(path, self._side_before)
                raise
            if copied is not None:
                return copied
        else:
            try:
                missing = [folder for folder in path.parents if not folder.exists()]
                path.parent.mkdir(parents=True, exist_ok=True)
                self._made_folders = missing  # (deepest first: see discard)
            except OSError as error:
                raise DatabaseFileError(
                    f"cannot make the folder {label(path.parent)}: {error.strerror or error}"
                ) from None
        try:
            if header is not None and not self._side_before and not (
                os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
            ):
                # A file we may not write, or in a folder we may not write
                # (and nobody is writing: no log beside it), is read as it
                # stands, so that SQLite makes no -wal or -shm file beside
                # it that it could not remove (or fails for want of one).
                return _connect(path, "mode=ro&immutable=1")
            if self.read_only and self._side_before:
                # A log beside the file (a writer at work, or one that
                # crashed) is read, never folded into the file: opened for
                # reading and writing, the last connection to close would
                # do that and delete the log. (Without a log, that kind of
                # connection leaves no side file behind; this one would.)
                return _connect(path, "mode=ro")
            return _connect(path)
        except sqlite3.Error as error:
            if header is None:  # (SQLite says only "unable to open database file")
                _check_folder_takes_a_file(path, name)
            raise sql_error(name, error) from None

    def _left_sound(self, path: Path) -> bool:
        """True when the file ``path`` (no log beside it) is as a store that
        may write left it sound as it closed it
        (:func:`~terrace.storage.held.sealed_since`), or as the statistics
        of a store opened only to read found the whole of it sound
        (:func:`~terrace.storage.findings.found_whole`: ``terrace stats``
        on a file no store that may write closed, last written by an older
        Terrace or the sqlite3 shell)."""
        if sealed_since(path):
            return True
        self._whole = found_whole(path)
        self._whole_noted = self._whole is not None
        return self._whole_noted

    @staticmethod
    def _probe_header(path: Path, name: str, version: int) -> tuple[int, int]:
        """The live schema version (at least ``version``) and application
        id, read without writing (a log is pending)."""
        try:
            probe = _connect(path, "mode=ro")
        except sqlite3.Error as error:
            raise sql_error(name, error) from None
        try:
            return _version_and_id(probe, version)
        except sqlite3.Error as error:
            raise sql_error(name, error) from None
        finally:
            probe.close()

    def _prepare(self, migrate_to: int) -> None:
        conn = self._conn
        try:
            _set_busy_timeout(conn, BUSY_TIMEOUT_SECONDS)
            self._check_file(conn)
            conn.execute("BEGIN")
            try:
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                application_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
                tables = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
                found = read_layout(conn)
            finally:
                if conn.in_transaction:  # (a read that failed ended it: its error is the one to tell)
                    conn.execute("COMMIT")
            if application_id == 0 and set(found) == VERDICT_TABLES:
                raise verdict_cache(self._name)
            if application_id != APPLICATION_ID and (application_id or version or tables):
                # (before the schema number: another program's numbering is not
                # ours, and a file of schema 74 was "written by a newer Terrace")
                raise foreign(self._name)
            if version > LATEST_VERSION:
                raise NewerDatabaseError(version, self._name)
            fault = layout_fault(found, version)
            if fault is not None:
                # (A layout that does not match its number would fail half-way
                # through a migration, or later, on every change.)
                raise damaged(self._name, fault)
            if self.read_only:
                self._prepare_read_only(version, migrate_to)
                return
            self.journal_mode = _switch_to_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            try:
                self.migrations_applied = migrate(conn, migrate_to)
            except NewerDatabaseError as error:
                raise NewerDatabaseError(error.version, self._name) from None
            self.schema_version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if self.schema_version >= COUNTED_SINCE and (fault := counting_fault(conn)) is not None:
                # (a move row changed by hand meanwhile went uncounted, and a
                # store would serve the line it remembered)
                try:
                    repair_counting(conn)
                    log.warning("%s: %s, so changes to moves were not all counted; the triggers "
                                "that count them were made again", self._name, fault)
                except sqlite3.Error as error:  # (a file that cannot be written: check_writable says so)
                    self._lines_counted = False
                    self._waited_at_open = time.monotonic() if is_busy(error) else None
                    log.warning("%s: %s, so changes to moves are not all counted, and they could not "
                                "be made again (%s): every line is read again", self._name, fault, error)
            self._repair_indexes(conn)
        except sqlite3.Error as error:
            raise sql_error(self._name, error, "layout") from None
        except UnicodeDecodeError:  # SQLite's own message quotes a damaged byte of the layout
            raise damaged(self._name, Reason(Refusal.DAMAGE_TABLES_UNREADABLE)) from None

    def _repair_indexes(self, conn: sqlite3.Connection) -> None:
        """Make again an index of the schema that is missing or altered
        (dropped by hand): without them, reading one game's log, the
        recent games and the game to resume read every row (36 s of CPU at
        2,000 games of 60 moves, 0.03 s with them), at every start. Said
        in the log; a file that cannot be written keeps what it has (its
        reads are slower, as they were)."""
        faults = index_faults(conn, self.schema_version)
        if not faults:
            return
        if self._waited_at_open is not None:  # (the triggers' repair waited out another's lock already)
            log.warning("%s: %s, so reading games is slow, and it could not be made again (the file "
                        "is busy)", self._name, "; ".join(faults))
            return
        try:
            made = repair_indexes(conn, self.schema_version)  # (another program may have, meanwhile)
            if made:
                log.warning("%s: %s, so reading games was slow; made again", self._name, "; ".join(made))
        except sqlite3.Error as error:  # (a file that cannot be written: check_writable says so)
            self._waited_at_open = time.monotonic() if is_busy(error) else self._waited_at_open
            log.warning("%s: %s, so reading games is slow, and it could not be made again (%s)",
                        self._name, "; ".join(faults), error)

    def _check_file(self, conn: sqlite3.Connection) -> None:
        """Refuse a damaged file; rows that only break a constraint (a
        value missing, set by hand) are logged: those games are read as
        damaged and skipped, so that the others stay reachable. The pages,
        the tables' structure and ``NOT NULL`` are checked; the rows'
        ``CHECK`` constraints are not evaluated: that was six sevenths of
        the check's CPU (7.2 s of 8.5 s, 20,000 games in 510 MB), to log a
        row edited by hand that every read of its game refuses as damaged
        anyway (:func:`~terrace.storage.base.check_saved`); a connection
        opened only to read never evaluated them. A file found as a store
        left it sound when it closed it is not checked again (see
        :mod:`terrace.storage.held`): the check cost 1.3 s of CPU at every
        opening of 20,000 games (510 MB), more than 6 s at 100,000."""
        self._found_sound = self._sealed
        if self._sealed:
            return
        file = self._file  # (its state before the check, for the statistics' note: _note_found)
        before = file_state(file) if self.read_only and file is not None and not logged(file) else None
        conn.execute("PRAGMA ignore_check_constraints = ON")
        try:
            found = [str(p) for (p,) in conn.execute(f"PRAGMA quick_check({CHECKED_PROBLEMS})")]
        finally:
            conn.execute("PRAGMA ignore_check_constraints = OFF")
        broken = [p for p in found if p != "ok" and not _ROW_FAULT.match(p)]
        if broken:
            raise damaged(self._name, f"SQLite's check says: {broken[0]}")
        self._found_sound = found == ["ok"]
        self._whole = before if self._found_sound else None
        if found != ["ok"]:
            log.warning("%s: some rows break the database's constraints (%s); a game with such "
                        "a row is treated as damaged", self._name, "; ".join(sorted(set(found))))

    def _prepare_read_only(self, version: int, migrate_to: int) -> None:
        """Read the file as it stands; an older schema is upgraded in a copy
        in memory, so that a file that may not (or should not) be written
        is read all the same."""
        self.journal_mode = str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])
        self.schema_version = version
        if version >= COUNTED_SINCE and counting_fault(self._conn) is not None:
            self._lines_counted = False  # (not repaired here: every line is read again)
        if not reads_as_is(version, migrate_to):  # (a step a read needs: not one only writes need)
            copy = _connect(MEMORY)
            self._conn.backup(copy)
            self._conn.close()
            self._conn = copy
            migrate(copy, migrate_to)
        self._conn.execute("PRAGMA query_only = ON")

    def _close_refused(self) -> None:
        """Close a database that is refused, leaving no ``-wal`` or ``-shm``
        file that was not there before."""
        with self._lock:
            self._conn.close()
            if self._file is not None:
                remove_new_side_files(self._file, self._side_before)
                if self._made and not side_files(self._file) and not nonempty(self._file):
                    self._file.unlink(missing_ok=True)

    def check_writable(self) -> None:
        """Write to the database once (and commit) to prove that changes
        can be saved. When they cannot (read-only file or folder, full disk)
        the store is closed, no ``-wal`` or ``-shm`` file is left behind,
        and :class:`~terrace.storage.base.StoreWriteError` says why."""
        try:
            with self._transaction(write=True, action="check") as conn:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        except StoreWriteError as error:
            problem = unsaved_problem(error)
            if problem is not None:  # (busy, damaged: said as a read says it; the store stays open)
                raise problem from None
            self._close_refused()
            raise self._unsavable(error) from None

    def stop_waiting(self) -> None:
        """A write waiting for another program's lock gives up at once,
        refused as busy, and later writes try once: the server is stopping.
        A write that found the lock held waited out its 10 s, longer than
        the server gives a request once stopped (uvicorn's 1 s), which then
        cancelled it: a plain-text 500 and a traceback on the terminal, for
        a move left unsaved."""
        self._stopping.set()

    def _unsavable(self, error: StoreWriteError) -> StoreWriteError:
        """The refusal of a database in which games cannot be saved."""
        why = str(error).split(": ", 1)[-1]
        remedy = _REMEDIES.get(error.fault, "check the disk")
        return StoreWriteError(
            f"games cannot be saved in {self._name}: {why}; {remedy}, or name another file with --db",
            error.fault,
        )

    @property
    def verdicts_path(self) -> Path:
        """The solver's verdict cache beside this database file."""
        return verdicts_path(self.path)

    def close(self) -> None:
        """Close the database (further calls fail). A file another program
        wrote over while open, or put in its place (a backup copied in), is
        left as it now is: the log of the file it replaced is not folded
        into it, but set aside beside it (``games.sqlite-wal.replaced``),
        so that the next opening reads the copy, not the copy overlaid with
        that log. A store that counted the statistics or the recent games
        and changed games since keeps them in the file first
        (:meth:`_keep_answers_at_close`)."""
        if self._noting() and not self._written_over and not self._emptied:
            # (not under the store's lock: the statistics take theirs first)
            self._keep_answers_at_close()
            self._keep_recent_at_close()
        with self._lock:
            if self._stamp is None:
                games = self._games_at_close()
                self._conn.close()
                self._note_held(games)
                return
            with contextlib.suppress(StoreError, sqlite3.Error):
                self._check_not_written_over(None)
            games = self._games_at_close()
            now = file_identity(self._file) if self._file is not None else None
            moved = now is not None and now != self._opened
            if self._written_over:
                self._close_without_checkpoint()
            else:
                self._conn.close()
            self._note_held(games)
            if self._written_over or moved:
                self._set_log_aside()

    def _keep_recent_at_close(self) -> None:
        """Bring the recent games kept whole in the file up to date as the
        store closes (as :meth:`_keep_answers_at_close` the statistics),
        when this store knows their order and changed games since."""
        if self.read_only or self._recent_found is None or self.schema_version < SUMMARY_SINCE:
            return
        try:
            with self._transaction(write=False) as conn:
                known = self._recent_known()
                changed = conn.execute(f"SELECT 1 FROM temp.{RECENT_TOUCHED} LIMIT 1").fetchone() is not None
            if known and changed:
                for limit in self._limits_asked:
                    self.recent(limit)
        except (StoreError, sqlite3.Error) as error:
            log.info("the recent games not kept at closing: %s", error)

    def _noting(self) -> bool:
        """Whether this store notes the file (see :mod:`terrace.storage.held`):
        it may write, and the file is the one it opened (not moved or
        replaced)."""
        return not self.read_only and self._file is not None and file_identity(self._file) == self._opened

    def _games_at_close(self) -> int | None:
        """How many games the file holds as the store closes it (None:
        emptied or written over while open, or not to be noted: :meth:`_noting`)."""
        if not self._noting() or self._emptied or self._written_over:
            return None
        try:
            return _game_count(self._conn)
        except sqlite3.Error:
            return None

    def _note_held(self, games: int | None) -> None:
        """Note how many games the file held as a store that may write
        closed it, or that it was emptied while open, and whether it left
        the file sound (checked or sealed at opening, its log folded into
        it: see :mod:`terrace.storage.held`). An opening that finds it
        emptied since says so; one that finds it unchanged since does not
        check it again."""
        if not self._noting():
            return
        assert self._file is not None
        if self._emptied or not nonempty(self._file):
            note_held(self._file, None)
        elif games is not None:
            sealed = self._found_sound and not logged(self._file)
            note_held(self._file, games, sealed=sealed and games > 0)  # (a file of no game: forgotten)

    def _close_without_checkpoint(self) -> None:
        """Close the connection without folding its log into the file:
        another connection reading meanwhile keeps SQLite from taking the
        lock it folds the log in with, and one opened only to read folds
        nothing in when it closes last."""
        assert self._file is not None
        holder: sqlite3.Connection | None = None
        try:
            holder = _connect(self._file, "mode=ro")
            holder.execute("BEGIN")
            holder.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        except sqlite3.Error:
            pass  # (the lock is taken on opening the log, before any page is read)
        finally:
            self._conn.close()
            if holder is not None:
                holder.close()

    def _set_log_aside(self) -> None:
        """Move the log of the file that was replaced away from the file now
        in its place (with its index), keeping the changes it holds."""
        assert self._file is not None
        wal = Path(f"{self._file}-wal")
        if not wal.exists() or (self._identity[1] is not None and file_identity(wal) != self._identity[1]):
            return
        aside = Path(f"{wal}.replaced")
        for number in itertools.count(2):
            if not aside.exists():
                break
            aside = Path(f"{wal}.replaced-{number}")
        try:
            wal.rename(aside)
            Path(f"{self._file}-shm").unlink(missing_ok=True)
        except OSError as error:
            log.error("%s was replaced while in use, and the log of the file it replaced could not be "
                      "set aside (%s): move %s away before Terrace opens it again, or it is read "
                      "over the file now there", self._name, error.strerror or error, wal.name)
            return
        log.warning("%s was replaced while in use (a backup copied in?): it was left as it is now, and "
                    "the log of the file it replaced (the changes made since they were last written "
                    "into it) was set aside as %s", self._name, aside.name)

    def discard(self) -> None:
        """Close the store, and remove the database again when this store
        made it (with the folders made for it) and it holds no game: an
        import refused changes nothing. A database that was there, or that
        holds a game (another program's), stays as it is."""
        with self._lock:
            try:
                empty = self._conn.execute("SELECT 1 FROM games LIMIT 1").fetchone() is None
            except sqlite3.Error:
                empty = False
            self._conn.close()
            if self._file is None or not self._made or not empty:
                return
            remove_new_side_files(self._file, self._side_before)
            if side_files(self._file):
                return
            self._file.unlink(missing_ok=True)
            for folder in self._made_folders:
                try:
                    folder.rmdir()
                except OSError:  # (no longer empty: something else is there now)
                    return

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteStore({self._name!r})"

    # -- transactions -----------------------------------------------------

    @contextmanager
    def _transaction(self, write: bool, action: str | None = None, wait: float | None = None,
                     stoppable: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction: ``BEGIN IMMEDIATE`` (the write lock at once, so
        a revision read inside cannot go stale) or a read snapshot. A write
        that fails for want of space or permission is a
        :class:`~terrace.storage.base.StoreWriteError` naming ``action``.

        A call waits at most :data:`BUSY_TIMEOUT_SECONDS` in all: for the
        other threads' transactions on this connection, then for SQLite's
        lock; a request behind three others waiting on a locked file is
        answered after 10 s, not 40. A write waits for another program's
        lock trying it again and again, away from the connection between
        two tries (see :meth:`_begin`), so that the reads of other threads
        go on meanwhile; the other writes wait
        for it (:attr:`_writing`), away from the connection: forty writes
        taking turns at it kept a read of a game 2.2 s from it. A write that
        only saves work later (``wait``: the statistics' stamps) waits less.
        A ``stoppable`` one (the statistics') ends midway, raising
        :class:`~terrace.storage.base.StoreStoppedError`, once the server
        is stopping (:meth:`_stoppable`)."""
        deadline = time.monotonic() + (BUSY_TIMEOUT_SECONDS if wait is None else wait)
        if write and not self._writing.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise busy_error(self._name, action or "change")
        try:
            with self._began(write, action, deadline) as conn, self._stoppable(stoppable):
                yield conn
        finally:
            if write:
                self._writing.release()

    def _spare_write(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write that only saves work later (the statistics' replay
        stamps and findings): another program's write lock is waited for
        :data:`WRITE_TURN` at most, not out."""
        return self._transaction(write=True, action="stamp", wait=WRITE_TURN, stoppable=True)

    @contextmanager
    def _began(self, write: bool, action: str | None, deadline: float) -> Iterator[sqlite3.Connection]:
        """The transaction of :meth:`_transaction`, begun by ``deadline``."""
        conn = self._begin(write, action, deadline)
        try:
            try:
                try:
                    if write:
                        self._check_same_file(action or "change")
                    self._check_not_written_over((action or "change") if write else None)
                    self._others_wrote(conn)  # (a newer Terrace may have upgraded the file)
                    if self._indexes_lost:
                        self._mend_indexes(conn, write)
                    yield conn
                    conn.execute("COMMIT")
                    if write and not self._holding_noted:
                        self._note_holding(conn)
                    if write and self._stamp is not None:
                        # (the commit may have folded the log into the file)
                        self._take_stamp(self._stamp_version)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as error:
                if self._stopping.is_set() and error.sqlite_errorcode == sqlite3.SQLITE_INTERRUPT:
                    raise StoreStoppedError(Reason(Refusal.STORE_STOPPING, name=self._name)) from None
                change = (action or "change") if write else None
                raise sql_error(self._name, error, change) from None
        finally:
            self._lock.release()

    @contextmanager
    def _stoppable(self, stoppable: bool) -> Iterator[None]:
        """With ``stoppable``, have SQLite stop a statement run meanwhile
        once the server is stopping (:meth:`_stop_asked`; its error is said
        as :class:`~terrace.storage.base.StoreStoppedError` by
        :meth:`_began`): the statistics' one read of every game and their
        first write of what they found of each took seconds at 100,000
        games, which a server stopped meanwhile waited out."""
        self._may_stop = stoppable
        try:
            yield
        finally:
            self._may_stop = False

    def _stop_asked(self) -> bool:
        """SQLite's progress handler, asked every :data:`STOP_LOOK_STEPS`
        of its steps: True stops the statement (only one the store lets
        stop, :meth:`_stoppable`, once the server is stopping)."""
        return self._may_stop and self._stopping.is_set()

    def _begin(self, write: bool, action: str | None, deadline: float) -> sqlite3.Connection:
        """Take this store's lock and begin a transaction on its connection
        by ``deadline``; returns the connection with the lock held.

        A write held up by another program's write lock (an import or
        another server stopped mid-write with Ctrl+Z, SIGSTOP) tries it
        again and again (at most :data:`WRITE_TURN` apart), and lets the
        other threads' calls have the connection between two tries: it used
        to wait out the whole timeout holding it, so every request of the
        server, reads that SQLite lets go on included, waited with it (a
        game read 9.4 s, a request with two calls of the store 18.3 s), and
        then each of its turns of 50 ms let one read in."""
        pause = TRY_AGAIN_FIRST
        while True:
            if not self._lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                raise busy_error(self._name, (action or "change") if write else None)
            try:
                if write and self.read_only:
                    opened = Reason(Refusal.WRITE_OPENED_TO_READ, change=action or "change")
                    raise StoreWriteError(opened, "read-only")
                if write and self._waited_at_open is not None:
                    if time.monotonic() - self._waited_at_open < BUSY_TIMEOUT_SECONDS:
                        deadline = min(deadline, time.monotonic() + 0.001)  # (see _waited_at_open)
                    self._waited_at_open = None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise busy_error(self._name, (action or "change") if write else None)
                if self._try_begin(write, 0.0 if write else left, action):
                    return self._conn
                if self._stopping.is_set():
                    raise busy_error(self._name, action or "change")
            except BaseException:
                self._lock.release()
                raise
            self._lock.release()
            # (the connection free meanwhile: reads that waited for it, one a turn, took 15-110 ms
            # each, 40 at once behind one waiting write, where they take 1-5 ms)
            self._stopping.wait(min(left, pause))
            pause = min(2 * pause, WRITE_TURN)

    def _try_begin(self, write: bool, wait: float, action: str | None) -> bool:
        """Begin a transaction, waiting at most ``wait`` for SQLite's lock;
        False when a write (of ``action``) found another connection's write
        lock held."""
        conn = self._conn
        changed = wait < BUSY_TIMEOUT_SECONDS - SHORTEN_AFTER
        try:
            if changed:
                _set_busy_timeout(conn, wait)
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            return True
        except sqlite3.Error as error:
            if write and is_busy(error):
                return False
            raise sql_error(self._name, error, (action or "change") if write else None) from None
        finally:
            if changed:
                _set_busy_timeout(conn, BUSY_TIMEOUT_SECONDS)

    def _mend_indexes(self, conn: sqlite3.Connection, write: bool) -> None:
        """Make again the indexes dropped by hand while in use, before the
        call reads through them: without them every request that lists
        games or reads a game's log read every row of the file, each time
        (2,000 games of 60 moves, events_by_game dropped under a running
        server: the game to resume 4.2 s of CPU, the recent games 16 s,
        the statistics 35 s, at each request, until the next start). A
        read's transaction, which has read nothing yet, is ended for it
        and begun again; another program's write lock is not waited for
        (the next call tries again). A file that refuses the write (read
        only, full) keeps what it has until the next start, as at an
        opening."""
        lost, self._indexes_lost = self._indexes_lost, []
        try:
            if write:
                conn.execute("SAVEPOINT mend")
            else:
                conn.execute("COMMIT")
                _set_busy_timeout(conn, 0.001)
                conn.execute("BEGIN IMMEDIATE")
            try:
                made = make_indexes(conn, self.schema_version)
                conn.execute("RELEASE mend" if write else "COMMIT")
            except sqlite3.Error:
                conn.execute("ROLLBACK TO mend" if write else "ROLLBACK")
                if write:
                    conn.execute("RELEASE mend")
                raise
            self._layout_seen = int(conn.execute("PRAGMA schema_version").fetchone()[0])  # (our own change)
            if made:
                log.warning("%s: %s while in use, so reading games was slow; made again",
                            self._name, "; ".join(made))
        except sqlite3.Error as error:
            if is_busy(error):
                self._indexes_lost = lost  # (another program writes: the next call tries again)
            else:
                log.warning("%s: %s while in use, so reading games is slow, and it could not be made "
                            "again (%s)", self._name, "; ".join(lost), error)
        finally:
            if not write:
                _set_busy_timeout(conn, BUSY_TIMEOUT_SECONDS)
                if not conn.in_transaction:
                    conn.execute("BEGIN")

    def _others_wrote(self, conn: sqlite3.Connection) -> None:
        """When another connection (another process, or a hand edit) has
        written to the file since we last looked, the line each remembered
        game was stored with is no longer taken on trust: the next read
        compares the game's count of changes to its move rows
        (:meth:`_saved_line`), and reads and checks its rows again only
        when that count moved. (Forgetting every line made any write of
        another server, as a report of playing time on another game, cost
        the next request on a game of 100,000 moves a read of its whole
        line, 55 to 135 ms.) The board is kept, and vouches for the game
        only while the rules, deal, moves and redo read are exactly the
        ones it was built for; any change is replayed."""
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self._data_version:
            self._check_schema(conn)
            self._unsure.update(self._remembered)
            self._vouched.clear()
            self._sound.clear()
            self._tally = None
            self._data_version = version

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        """Refuse to go on with a file that a newer Terrace upgraded while
        this one had it open (its tables may no longer be what this one
        reads and writes). When its layout changed (``PRAGMA
        schema_version``: another program's import, which makes a trigger
        again, or a hand edit), every line is read again once (the triggers
        that count a line's changes may have been away meanwhile), and they
        are checked again: dropped or altered, no line is taken on trust
        until they are back (the next opening that may write makes them
        again)."""
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > LATEST_VERSION:
            raise NewerDatabaseError(version, self._name)
        layout = int(conn.execute("PRAGMA schema_version").fetchone()[0])
        if layout != self._layout_seen and version >= COUNTED_SINCE:
            if self._layout_seen != -1:
                self._line_marks.clear()
            self._counted_sound.clear()
            self._layout_seen = layout
            fault = counting_fault(conn)
            if fault is not None and self._lines_counted:
                log.warning("%s: %s while in use, so changes to moves are not all counted: "
                            "every line is read again", self._name, fault)
            self._lines_counted = fault is None
            if not self.read_only:
                self._indexes_lost = index_faults(conn, self.schema_version)

    def _remember(self, game: StoredGame) -> None:
        """Keep ``game`` (a private copy) as the database now holds it."""
        with self._lock:
            self._remembered.put(game.id, game)

    def _forgotten(self, game_id: str) -> None:
        """Forget what goes with a remembered game the bounds pushed out."""
        self._line_marks.pop(game_id, None)
        self._unsure.discard(game_id)

    def _saved_line(self, conn: sqlite3.Connection, game_id: str, revision: Any) -> Line | None:
        """The line of the remembered game ``game_id`` as the database holds
        it at ``revision`` (None when this store did not read or write it
        at that revision, or its move rows changed since)."""
        known = self._remembered.get(game_id)
        line = None if known is None else known.saved_line(revision)
        if line is not None and known is not None and game_id in self._unsure:
            if not self._lines_counted:
                self._unsure.discard(game_id)
                known.forget_saved()
                return None
            found = conn.execute(f"SELECT {LINE_CHANGES} FROM games WHERE id = ?", (game_id,)).fetchone()
            self._unsure.discard(game_id)
            if found is None or game_id not in self._line_marks or found[0] != self._line_marks[game_id]:
                known.forget_saved()
                return None
        return line

    def _read_line(self, conn: sqlite3.Connection, game_id: str) -> Line:
        """The game's line read from its rows, its count of changes noted."""
        found = conn.execute(f"SELECT {LINE_CHANGES} FROM games WHERE id = ?", (game_id,)).fetchone()
        self._line_marks[game_id] = None if found is None else found[0]
        self._unsure.discard(game_id)
        return read_line(conn, game_id)

    # -- reading ----------------------------------------------------------

    def _fetch(self, conn: sqlite3.Connection, game_id: str) -> StoredGame | None:
        """The game, checked. An unchanged game read or written before is
        checked against the board remembered with it; any other is read
        whole and replayed."""
        row = conn.execute(f"SELECT {GAME_READ} FROM games WHERE id = ?", (game_id,)).fetchone()
        self._others_wrote(conn)
        if row is None:
            return None
        known = lender = self._remembered.get(game_id)
        line = self._saved_line(conn, game_id, row[-1])
        if line is None:
            known, line = None, self._read_line(conn, game_id)
        try:
            game = load_game(row, line, known, board_of=lender)
        except DamagedGameError:
            # (its moves may give no longer the digest its row keeps, changed
            # where no trigger saw it: the statistics read them from now on)
            self._sound.pop(game_id, None)
            self._counted_sound.pop(game_id, None)
            self._distrusted.add(game_id)
            self._restudy.add(game_id)
            raise
        self._sound[game_id] = hash(tuple(row))
        self._remember(game.clone())
        return game

    def get(self, game_id: str) -> StoredGame:
        if not isinstance(game_id, str):
            raise unknown_game(str(game_id))
        with self._transaction(write=False) as conn:
            game = self._fetch(conn, game_id)
            kept = self._remembered.get(game_id)
            if game is not None and kept is not None and kept.revision == game.revision:
                kept.keep_whole_board()
                game.adopt_board(kept)
                game.part_board()
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
        """The game still being played that changed last here (in the
        order of the log of changes: a clock put back does not make an
        older game the latest); a game imported and not played here since
        comes after every game that was (so an import never takes the
        place of the game in play, nor does one that brought a game here
        up to a state played elsewhere), the latest first."""
        # (the game in play is almost always among the last changes: the log
        # is read back from its end, a few hundred entries at most, before
        # every unfinished game is ordered; the first unfinished game changed
        # here met that way is the one the whole ordering puts first)
        games = self._loadable(LATEST_CHANGED_HERE, (LATEST_LOOKBACK,), first=True)
        if games:
            return games[0]
        games = self._loadable(
            f"SELECT {GAME_ID} FROM games WHERE status IN ('choosing', 'playing') AND given_up_at IS NULL "
            f"ORDER BY {IMPORTED}, CASE WHEN {IMPORTED} THEN NULL ELSE {LAST_HERE} END DESC, "
            "updated_at DESC, rowid DESC",
            first=True,
        )
        return games[0] if games else None

    def recent(self, limit: int = 20) -> list[StoredGame]:
        """The games played last, the latest first (:mod:`terrace.storage.recent`:
        in the order of the log, not of a clock put back). A game whose row
        and line still give its replay stamp (as the statistics check it)
        is read without a replay; its board is built when asked for. (The
        statistics dialog's list of 20 games of 20,000 moves each took 1.9 s
        on a server just started, replaying every one.) Any other game is
        read as :meth:`get` reads it; a damaged one is left out and logged.
        A server that stops meanwhile ends it midway (the first read of
        every game's place took 1.4 to 2.1 s of CPU at 100,000 games).
        The list is kept whole in the file (:mod:`terrace.storage.summary`)
        until any game changes: a store that does not know the order of the
        games in memory takes it from there, reading no other game."""
        limit = max(limit, 0)
        what = recent_key(limit) if self.schema_version >= SUMMARY_SINCE and limit else None
        self._limits_asked = [*(n for n in self._limits_asked if n != limit), limit][-SUMMARIES_KEPT:]
        with self._transaction(write=False, stoppable=True) as conn:
            self._others_wrote(conn)
            known = self._recent_known()
            ids = None if known or what is None else kept(conn, what, KEPT_VERSION)
            if ids is not None and recent_shape(ids, limit):
                order = [rowid for (rowid,) in conn.execute(
                    "SELECT games.rowid FROM json_each(?) AS kept JOIN games ON games.id = kept.value "
                    "ORDER BY kept.key", (json.dumps(ids),))]
                games = self._recent_games(conn, order) if len(order) == len(ids) else []
                if len(order) == len(ids) == len(games):
                    return games
            order = self._recent_order(conn, limit)
            read_at = self._data_version
            games = self._recent_games(conn, order)
        if what is not None and len(games) == len(order):
            self._keep_answer(what, [game.id for game in games], read_at, RECENT_TOUCHED)
        return games

    def _recent_games(self, conn: sqlite3.Connection, order: list[int]) -> list[StoredGame]:
        """The games of the rowids of ``order``, in that order, read as
        :meth:`recent` reads them; a damaged one is left out and logged."""
        games: list[StoredGame] = []
        found_rows = {row[0]: row[1:] for row in conn.execute(
            f"SELECT rowid, {GAME_READ}, {bounded('replay_stamp')} FROM games "
            "WHERE rowid IN (SELECT value FROM json_each(?))", (json.dumps(order),))}
        rows = [found_rows[r] for r in order if r in found_rows]
        # (the lines of the games neither remembered nor vouched for at their revision)
        wanted = [row[0] for row in rows
                  if isinstance(row[0], str) and self._known_line(conn, row[:-1]) is None]
        found = conn.execute(LINES, (json.dumps(wanted),)) if wanted else []
        lines = {line[0]: line[1:] for line in found}
        for *columns, stamp in rows:
            row = tuple(columns)
            try:
                game = self._stamped_game(row, stamp, lines) or self._fetch(conn, row[0])
            except DamagedGameError as error:
                log.warning("%s", error)
                continue
            if game is not None:
                games.append(game)
        return games

    def _recent_known(self) -> bool:
        """Whether this store knows the recent games' order in memory as of
        the file's data version now (see :meth:`_recent_order`)."""
        return self._recent_found is not None and self._recent_found[0] == self._data_version

    def _recent_order(self, conn: sqlite3.Connection, limit: int) -> list[int]:
        """The rowids of the ``limit`` games played last, the latest first
        (:mod:`terrace.storage.recent`). Their order is kept: while no
        other connection wrote (``PRAGMA data_version``), only the games
        this store changed since are placed again (:data:`RECENT_TRIGGERS`);
        every game was read and sorted again after each change (1.4 to 2.1
        s of CPU at 100,000 games), and the statistics dialog asks for it
        each time it opens."""
        kept = self._recent_found
        touched = (self._touched(conn, RECENT_TOUCHED, RECENT_TRIGGERS)
                   if kept is not None and kept[0] == self._data_version else None)
        if kept is None or touched is None or not all(isinstance(t, int) for t in touched):
            self._watch_changes(conn, RECENT_TOUCHED, RECENT_TRIGGERS)
            order = RecentOrder(Placed(*row) for row in conn.execute(RECENT_PLACES.format("")))
            self._recent_found = kept = (self._data_version, order)
        elif touched:
            for rowid in touched:
                kept[1].drop(rowid)
            for row in conn.execute(RECENT_PLACES.format("WHERE rowid IN (SELECT value FROM json_each(?))"),
                                    (json.dumps(sorted(touched)),)):
                kept[1].put(Placed(*row))
        return kept[1].top(limit)

    def _known_line(self, conn: sqlite3.Connection, row: tuple[Any, ...]) -> Line | None:
        """The line of the game of ``row`` (its id first, its revision
        last) as this store last read or wrote it at that revision (None
        when it did not, or another connection wrote since)."""
        line = self._saved_line(conn, row[0], row[-1])
        vouched = self._vouched.get(row[0])
        if line is None and vouched is not None and vouched[0] == row[-1]:
            line = vouched[2]
        return line

    def _stamped_game(self, row: tuple[Any, ...], stamp: Any,
                      lines: dict[Any, tuple[Any, ...]]) -> StoredGame | None:
        """The game of ``row`` when its replay stamp vouches for it, with
        its line as :data:`LINES` read it (or as a stamp vouched for it
        before at this revision); None when it does not, and when the
        game is remembered at this revision (its read is cheap anyway)."""
        game_id = row[0]
        known = self._remembered.get(game_id)
        if known is not None and known.saved_line(row[-1]) is not None:
            return None
        vouched = self._vouched.get(game_id)
        if vouched is not None and vouched[:2] == (row[-1], stamp):
            line = vouched[2]
        else:
            joined, moves, nul = lines.get(game_id, ("", 0, 0))
            if nul or not stamp_fits(stamp, stamped_values(row), joined, moves):
                return None
            line = Line.of(joined.split("\0") if moves else [])
        game = load_game(row, line, stamped=True, board_of=known)
        self._sound[game_id] = hash(row)  # (as a read finds it: the statistics need not look again)
        self._vouched.put(game_id, (row[-1], stamp, line))
        return game

    def history(self, game_id: str) -> list[dict[str, Any]]:
        """The game's stored changes, oldest first: ``action``, ``move``
        (the move played, undone or redone, if any), ``moves`` (played
        after it), ``revision`` and ``at`` (seconds since the epoch)."""
        with self._transaction(write=False) as conn:
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise unknown_game(game_id)
            rows = conn.execute(
                f"SELECT {bounded('action')}, {MOVE_READ}, {bounded('move_count')}, {bounded('revision')}, "
                f"{bounded('at')} FROM events WHERE game_id = ? ORDER BY id", (game_id,),
            ).fetchall()
        return [
            {"action": a, "move": m, "moves": n, "revision": r, "at": at} for a, m, n, r, at in rows
        ]

    def game_ids(self) -> list[str]:
        """Every game id, in the order the games were opened here (created
        or imported: the order of the log of changes, which the statistics
        follow, whatever the clock said). A game whose id is not text (a
        damaged row, which the statistics count as damaged) is left out
        and logged."""
        with self._transaction(write=False) as conn:
            return self._ids(conn)

    def _ids(self, conn: sqlite3.Connection) -> list[str]:
        """:meth:`game_ids`, read on ``conn``."""
        ids = conn.execute(
            f"SELECT {GAME_ID}, {bounded('CAST(id AS BLOB)')} FROM games ORDER BY "
            "(SELECT min(id) FROM events WHERE events.game_id = games.id), created_at, rowid"
        ).fetchall()
        readable = [i for i, raw in ids if _readable_id(i, raw)]
        if len(readable) < len(ids):
            log.warning("%s: saved games left out for a damaged id: %d", self._name, len(ids) - len(readable))
        return readable

    def log_places(self) -> dict[str, LogPlaces]:
        """Each game's places in the log of changes (see
        :class:`~terrace.storage.base.LogPlaces`), by id; a game with no
        log entry (a row made by hand) has none."""
        with self._transaction(write=False) as conn:
            return _places(conn)

    def export_games(self, game_ids: Sequence[str] | None,
                     take: Callable[[str, StoredGame | StoreError, LogPlaces | None], None]) -> None:
        """Read the games ``game_ids`` names (every game, in the order of
        :meth:`game_ids`, for None) and their places in the log in one read,
        so that a backup taken while games are played is of one moment (read
        one by one, a move stored meanwhile was in a game but not in its
        places). ``take`` is given each id, in order, with its game (its
        board let go) or why it cannot be read (:class:`DamagedGameError`,
        :class:`~terrace.storage.base.UnknownGameError`), and its places,
        as ranks among those of the games named (:meth:`LogPlaces.ranked`:
        the ranks of a game ``take`` refuses, a damaged one, are left
        out of the export with it); what it raises ends the export."""
        with self._transaction(write=False) as conn:
            self._others_wrote(conn)
            ids = self._ids(conn) if game_ids is None else list(game_ids)
            places = _places(conn)
            if game_ids is not None:
                places = {game_id: places[game_id] for game_id in ids if game_id in places}
            places = LogPlaces.ranked(places)
            # (games whose log may show lines off their line today: a move
            # played after moves were taken back, which dropped those to redo)
            # (one pass over the log, in the order of its index by game)
            branched = {game_id for (game_id,) in conn.execute(
                "SELECT game_id FROM events GROUP BY game_id "
                "HAVING max(CASE WHEN action = 'move' THEN id END) "
                "> min(CASE WHEN action IN ('undo', 'restart') THEN id END) "
                "UNION SELECT game_id FROM passed")}
            hinted = {game_id for (game_id,) in conn.execute("SELECT DISTINCT game_id FROM hinted")}
            for game_id in ids:
                item: StoredGame | StoreError
                try:
                    game = self._fetch(conn, game_id) if isinstance(game_id, str) else None
                    item = game if game is not None else unknown_game(str(game_id))
                except DamagedGameError as error:
                    item = error
                if isinstance(item, StoredGame):
                    item.forget_board()
                    if game_id in branched:
                        item.passed = _off_line(conn, item)
                    if game_id in hinted:
                        item.hinted = _hinted_of(conn, item)
                take(game_id, item, places.get(game_id))

    # -- writing ----------------------------------------------------------

    def create(
        self, variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False
    ) -> StoredGame:
        game = new_game(variant, rules, deal, winnable_only=winnable_only)
        check_game(game)
        with self._transaction(write=True, action="create") as conn:
            self._others_wrote(conn)
            line = insert_game(conn, game, "create")
            games = _game_count(conn)
        game.mark_saved(game.revision, line)
        self._remember(game.clone())
        self._note_running(games)
        return game

    def _note_running(self, games: int) -> None:
        """Note, as a game is added, how many the file holds (a server
        killed before it closes, by SIGKILL or a power cut, noted nothing:
        its file emptied afterwards was taken for a new one), at most once
        in :data:`NOTE_SECONDS` (the note costs 0.5 ms: a burst of games
        made at once, as tests make them, notes its first)."""
        if not self._note_due():
            return
        assert self._file is not None
        self._noted_at = time.monotonic()
        note_held(self._file, games, holder=self._holder())

    def _holder(self) -> int | None:
        """This process, when it found the file sound as it opened it and
        may write (see :func:`~terrace.storage.held.held_open_sound`)."""
        return os.getpid() if self._found_sound and not self.read_only else None

    def _note_holding(self, conn: sqlite3.Connection) -> None:
        """Note, as a store that found the file sound as it opened it first
        writes to it (its log then holds something), that this process
        holds it so: ``terrace stats`` beside a running server, which finds
        its log, need not check all of it again."""
        self._holding_noted = True
        if self._holder() is None or self._file is None or not self._noting():
            return
        try:
            games = _game_count(conn)
        except sqlite3.Error:
            return
        if games:
            note_held(self._file, games, holder=self._holder())

    def _note_due(self) -> bool:
        """Whether games added now are to be noted (:meth:`_note_running`):
        the store notes this file, and did not in the last :data:`NOTE_SECONDS`."""
        if self._file is None or not self._noting() or self._written_over or self._emptied:
            return False
        return self._noted_at is None or time.monotonic() - self._noted_at >= NOTE_SECONDS

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        check_action(action)
        line = game.line_of()
        after = game.clone()
        after.revision = expected_revision + 1
        after.stamp(time.time())
        check_game(after)
        with self._transaction(write=True, action=action) as conn:
            self._others_wrote(conn)
            row = conn.execute(
                "SELECT revision, variant, rules, deal, given_up_at, move_count FROM games WHERE id = ?",
                (game.id,),
            ).fetchone()
            if row is None:
                raise unknown_game(game.id)
            if row[0] != expected_revision:
                raise conflict(row[0], expected_revision)
            check_identity(row[1], json.loads(row[2]), row[3], game)
            if row[4] is not None:
                raise given_up(game.id)
            old = self._known_line(conn, (game.id, expected_revision))
            if old is None:
                old = read_line(conn, game.id)
            same = old.common_prefix(line)
            replace_line(conn, game.id, old, line, same)
            # Counters only grow (count_hint and friends may have added to
            # them since the caller read the game); the first win stays.
            conn.execute(
                "UPDATE games SET status = ?, move_count = ?, hints = max(hints, ?), undos = ?, "
                "winnable_only = ?, updated_at = ?, started_at = ?, finished_at = ?, "
                "assisted = max(assisted, ?), active_ms = max(active_ms, ?), "
                "won_at = coalesce(won_at, ?), won_moves = coalesce(won_moves, ?), "
                "won_active_ms = coalesce(won_active_ms, CASE WHEN ? IS NOT NULL "
                "THEN max(active_ms, ?) END), given_up_at = ?, revision = ? WHERE id = ?",
                (after.status, after.played_count(), after.hints, after.undos, int(after.winnable_only),
                 after.updated_at, after.started_at, after.finished_at, int(after.assisted),
                 after.active_ms, after.won_at, after.won_moves, after.won_at, after.active_ms,
                 after.given_up_at, after.revision, game.id),
            )
            (after.hints, assisted, after.active_ms, after.won_at, after.won_moves,
             after.won_active_ms, line_mark) = conn.execute(
                f"SELECT hints, assisted, active_ms, won_at, won_moves, won_active_ms, {LINE_CHANGES} "
                "FROM games WHERE id = ?", (game.id,),
            ).fetchone()
            after.assisted = bool(assisted)
            write_stamp(conn, game.id, line)
            log_event(conn, after, action, played_before=row[5] if same >= row[5] else None)
        after.set_line(line, after.played_count())
        after.mark_saved(after.revision, line)
        with self._lock:  # (no read moves the whole board on meanwhile)
            before = self._remembered.get(game.id)
            if before is not None and before.saved_line(expected_revision) is not None:
                after.carry_board(before)
            self._remember(after)
            self._line_marks[game.id] = line_mark
            self._unsure.discard(game.id)
        for name in ("revision", "updated_at", "started_at", "finished_at", "hints", "assisted",
                     "active_ms", "won_at", "won_moves", "won_active_ms"):
            setattr(game, name, getattr(after, name))

    def count_hint(self, game_id: str, position_key: str, *, while_open: bool = False) -> bool:
        key = check_position_key(position_key)
        with self._transaction(write=True, action="hint") as conn:
            row = conn.execute(
                "SELECT revision, move_count, hints, won_at IS NULL AND given_up_at IS NULL "
                "FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise unknown_game(str(game_id))
            _sound(game_id, whole, row[2], "hints")  # (a count edited by hand: refused as a read refuses it)
            if while_open and not row[3]:
                return False
            added = conn.execute(
                "INSERT OR IGNORE INTO hinted (game_id, position) VALUES (?, ?)", (game_id, key)
            ).rowcount
            counted = bool(added) and one_more(row[2]) > row[2]
            if added:
                now = time.time()
                conn.execute(
                    "UPDATE games SET hints = ?, updated_at = max(updated_at, ?) WHERE id = ?",
                    (one_more(row[2]), now, game_id),
                )
                conn.execute(
                    "INSERT INTO events (game_id, revision, action, move, move_count, at) "
                    "VALUES (?, ?, 'hint', NULL, ?, ?)", (game_id, row[0], row[1], now),
                )
        return counted

    def mark_assisted(self, game_id: str, *, while_open: bool = False) -> bool:
        with self._transaction(write=True, action="assist") as conn:
            row = conn.execute(
                "SELECT assisted, won_at IS NULL AND given_up_at IS NULL FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise unknown_game(str(game_id))
            _sound(game_id, flag, row[0], "assisted")  # (edited by hand: damage, never made good here)
            if while_open and not row[1]:
                return False
            conn.execute("UPDATE games SET assisted = 1 WHERE id = ?", (game_id,))
        return True

    def time_mark(self, game_id: str) -> float | None:
        with self._transaction(write=False) as conn:
            row = conn.execute("SELECT timed_until FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise unknown_game(str(game_id))
        return row[0] if isinstance(row[0], float) else None  # (as add_active_time reads it)

    def add_active_time(self, game_id: str, ms: int, *, at: float | None = None) -> int:
        ms = check_active_ms(ms)
        with self._transaction(write=True, action="time") as conn:
            # (under the write lock: another server's report waits, then sees this one)
            row = conn.execute("SELECT timed_until, active_ms, given_up_at FROM games WHERE id = ?",
                               (game_id,)).fetchone()
            if row is None:
                raise unknown_game(str(game_id))
            if row[2] is not None:  # (checked with the write: a report read before giving up adds nothing)
                raise given_up(str(game_id))
            # (SQLite's sum of text and a number made a damaged count good)
            _sound(game_id, whole, row[1], "active_ms")
            if at is not None:
                mark = row[0] if isinstance(row[0], float) else None
                conn.execute("UPDATE games SET timed_until = ? WHERE id = ?",
                             (report_mark(mark, ms, at), game_id))
            # (part of the first win while the winning change is still the
            # game's last: not once it was won again after moves taken back)
            conn.execute(
                "UPDATE games SET active_ms = min(active_ms + ?, ?), won_active_ms = CASE "
                "WHEN status = 'won' AND won_active_ms = active_ms AND won_at = (SELECT at FROM events "
                "WHERE events.game_id = games.id ORDER BY id DESC LIMIT 1) THEN min(won_active_ms + ?, ?) "
                "ELSE won_active_ms END WHERE id = ?",
                (ms, MAX_ACTIVE_MS, ms, MAX_ACTIVE_MS, game_id),
            )
            row = conn.execute("SELECT active_ms FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise unknown_game(str(game_id))
        return int(row[0])

    def _created_as_here(self, conn: sqlite3.Connection, games: Sequence[StoredGame]) -> None:
        """Give each game of an import whose record gave no creation time
        (:attr:`StoredGame.created_given`) that of the game of its id stored
        here, when that game has its variant, rules and deal and was created
        no later than the record says it started or changed: the same game,
        found again rather than added beside itself at every import."""
        for game in games:
            if game.created_given or not game.id:
                continue
            row = conn.execute("SELECT created_at FROM games WHERE id = ?", (game.id,)).fetchone()
            if row is None or not isinstance(row[0], (int, float)):  # (a damaged row: its own read says so)
                continue
            created = float(row[0])
            if created > min(t for t in (game.updated_at, game.started_at) if t is not None):
                continue
            try:
                stored = self._fetch(conn, game.id)
            except DamagedGameError:
                continue
            if stored is not None and (stored.variant, stored.rules, stored.deal.cards) == (
                    game.variant, game.rules, game.deal.cards):
                game.created_at = created  # (so same_game: the rest of the identity is the same)

    def _already_here(self, conn: sqlite3.Connection, game: StoredGame, seen: _Seen,
                      number: int) -> str | None:
        """The id of a stored game that holds all of ``game``, under its own
        id or another: the same game, changed no earlier, that passed
        through ``game``'s moves (or still holds them, some to redo), with
        no count lower, and ``game``'s win or giving up, if any, its own.
        ``seen`` finds the stored games that may hold it without reading
        them, and keeps each stored game read (and its log) for the rest of
        the transaction. ``number`` is the record's place in the import
        (for the refusal of a file too costly to compare:
        :class:`~terrace.storage.merging.ImportTooCostlyError`)."""
        for game_id in seen.stored(game, number):
            if game_id not in seen.games:
                try:
                    seen.games[game_id] = stored = self._fetch(conn, game_id)
                    if stored is not None:
                        stored.forget_board()  # (its line is all that is compared)
                except DamagedGameError:
                    seen.games[game_id] = None
            stored = seen.games[game_id]
            if (stored is not None and same_game(stored, game) and _holds_as_of(stored, game)
                    and self._passed_through(conn, stored, game, seen)):
                return str(game_id)
        return None

    def _passed_through(self, conn: sqlite3.Connection, stored: StoredGame, game: StoredGame,
                        seen: _Seen) -> bool:
        """True when the stored game holds ``game``'s moves in its line
        (played, or taken back and still to redo) or played exactly them at
        some time, as its log of changes shows (:func:`_log_states`, made
        once a game and transaction) or as the table ``passed`` keeps it (a
        state an import or a restore brought up to date in place)."""
        moves, played, redo = game.moves, stored.moves, stored.redo
        beyond = len(moves) - len(played)  # (how many of the record's moves are on the redo stack)
        if beyond <= 0:
            if played[: len(moves)] == moves:
                return True
        elif (beyond <= len(redo) and played == moves[: len(played)]
              and redo[len(redo) - beyond:][::-1] == moves[len(played):]):
            return True
        states = seen.states.get(stored.id)
        if states is None:
            states = seen.states[stored.id] = _log_states(_log_of(conn, stored.id), stored.moves)
        if seen.key(game) in states:
            return True
        return conn.execute("SELECT 1 FROM passed WHERE game_id = ? AND moves = ? AND digest = ?",
                            (stored.id, *_passed_key(game.moves))).fetchone() is not None

    def _continued(self, conn: sqlite3.Connection, game: StoredGame,
                   restoring: bool = False) -> StoredGame | None:
        """The game stored under ``game``'s id when ``game`` continues it:
        the same game, changed later, its line going on from the stored
        moves (played on, or some taken back and still to redo), none of
        its counts lower, neither given up nor first won at another time;
        when ``restoring`` (a backup restored over an older one), also any
        later state of a game not played here since it came in. Else None
        (``game`` then goes beside it, so that nothing played anywhere is
        lost)."""
        try:
            stored = self._fetch(conn, game.id)
        except DamagedGameError:
            return None
        if stored is None:
            return None
        if _continues(game, stored) or (
                restoring and _untouched(conn, game.id) and _continues(game, stored, untouched=True)):
            return stored
        return None

    def add_games(self, games: Sequence[StoredGame],
                  beside: list[tuple[str, str]] | None = None,
                  joined: list[str] | None = None,
                  committed: list[str] | None = None) -> list[tuple[str, bool]]:
        """Store finished or unfinished games as they are (an import), all
        in one write transaction: every one or, on any error, none (the
        games here already are found first, in a read). A game that a
        stored game holds whole (:meth:`_already_here`: the same game, see
        :func:`~terrace.storage.rows.same_game`, changed here no earlier,
        that had the record's moves, with no count lower and the record's
        win or giving up) is not stored again (restoring an older backup
        adds nothing). An older state of the same game that the record
        continues (played on elsewhere and brought back, nothing taken
        back) is brought up to the record's state in place, so that one
        game stays one game in the statistics. A game whose id is taken by
        another game, by a damaged one, or by a state the record does not
        continue is stored with a new id, so that nothing played anywhere
        is lost. Returns each game's id and whether it was added (or
        brought up to date); ``beside`` gets, for each record whose id is a
        game here that it neither is, continues nor was (so that it went
        beside it), that id and the record's new one; ``joined`` gets the
        id of each game that was here before the import and was brought up
        to date (not added); ``committed`` gets the ids of the games added or
        brought up to date as each chunk is committed, so that a caller
        stopped meanwhile (Ctrl+C, SIGTERM) can say how many are in."""
        now = time.time()
        if clock_outside(now):
            raise ClockOutOfRangeError("the games", now, "import again")
        for game in games:
            try:
                check_saved(game, now=now)
            except StoreError as error:
                name = f"game {game.id}" if game.id else "a game"
                raise StoreError(f"{name} cannot be saved: {error}") from None
            finally:
                game.forget_board()  # (thousands of boards at once: gigabytes)
        # The games already here are found first, in a read: each is
        # checked (replayed), which for a large backup takes a while, and
        # the write lock is not held meanwhile (a game being played in the
        # web game goes on saving its moves). Importing the same file
        # again so takes no write lock at all.
        with self._transaction(write=False) as conn:
            self._created_as_here(conn, games)
            budget = _Budget(len(games))
            seen = _Seen(conn, games, budget)
            found = [self._already_here(conn, game, seen, number) for number, game in enumerate(games, 1)]
            # (whether it restores a backup: the games it compares are read
            # here, not under the write lock, which the web game's moves need)
            restoring = _versions(conn), self._restored_over(conn, games, seen.games)
        result: list[tuple[str, bool]] = [(here, False) if here else ("", True) for here in found]
        if all(found):
            return result
        # (written in chunks of IMPORT_CHUNK games, each its own transaction, with a pause
        # between them: a move of a game being played waits for one chunk, not the import;
        # a backup restored, whose log is rebuilt whole, is written at once, and so is a file
        # with several states of one game, compared with each other only as they are written:
        # a file too costly to compare is refused then, and must change nothing)
        identities = Counter((game.created_at, game.deal.cards) for game in games)
        step = IMPORT_CHUNK if max(identities.values(), default=1) == 1 else len(games)
        begin = 0
        last = seen
        exact: dict[str, int] | None = None
        restored: list[StoredGame] = []
        inserted: set[str] = set()  # (the games this import added)
        while begin < len(games):
            if begin and all(found[begin:begin + step]):  # (all here already: no write)
                begin += step
                continue
            if begin and self._file is not None:  # (no other connection reaches :memory:)
                time.sleep(IMPORT_PAUSE)
            written = sum(1 for _, fresh in result[:begin] if fresh)  # (added or brought up to date)
            held: int | None = None  # (the games the file holds once this chunk is in, when due for a note)
            try:
                with self._transaction(write=True, action="import") as conn:
                    # (read again: another program may have written since)
                    seen = last = _Seen(conn, games, budget, last)
                    if not begin:
                        # (a backup restored into an empty database, or over its own older
                        # states: its log entries in the order of the exporting store's
                        # log, see _restore_log; decided again if anything changed since)
                        same = _versions(conn) == restoring[0]
                        exact = restoring[1] if same else self._restored_over(conn, games)
                    end = len(games) if exact is not None else min(begin + step, len(games))
                    # (the moves of new games are not counted row by row: no store
                    # remembers a game not stored yet; a game changed in place is
                    # counted below; the trigger is back before the commit)
                    trusted = lines_trusted(conn)
                    # (the statistics' findings: each game the import adds or changes drops its own)
                    kept = self.schema_version >= FOUND_SINCE and found_trusted(conn, FOUND_VERSION)
                    before = int(conn.execute("PRAGMA schema_version").fetchone()[0])
                    conn.execute(f"DROP TRIGGER IF EXISTS {INSERTS_COUNTED}")
                    leftovers = _tables_of_games(conn)
                    for i in range(begin, end):
                        game = games[i]
                        if exact is not None and game.id in exact:
                            game.revision = exact[game.id]  # (this very state is here: its past may add)
                            _keep_past(conn, game)
                            restored.append(game)
                            result[i] = (game.id, False)
                            continue
                        if found[i] and exact is None:
                            continue
                        if not isinstance(game.id, str) or not game.id:
                            game.id = new_game_id()
                        here = None if exact is not None else self._already_here(conn, game, seen, i + 1)
                        if here is not None:  # (stored since the read: another import)
                            result[i] = (here, False)
                            continue
                        if conn.execute("SELECT 1 FROM games WHERE id = ?", (game.id,)).fetchone():
                            stored = self._continued(conn, game, restoring=exact is not None)
                            if stored is not None:
                                self._bring_up_to_date(conn, game, stored, seen)
                                result[i] = (game.id, True)
                                if joined is not None and game.id not in inserted:
                                    joined.append(game.id)
                                if exact is not None:
                                    restored.append(game)
                                continue
                            kept_beside = game.id
                            game.id = new_game_id()
                            if beside is not None:
                                beside.append((kept_beside, game.id))
                        _clear_leftovers(conn, game.id, leftovers)
                        insert_game(conn, game, None if exact is not None else "import")
                        inserted.add(game.id)
                        _keep_past(conn, game)
                        if exact is not None:
                            restored.append(game)
                        seen.add(_light_row(game))
                        result[i] = (game.id, True)
                    if exact is not None:
                        # (only the file's games are here: its log is theirs)
                        conn.execute("DELETE FROM events")
                        _restore_log(conn, restored)
                    conn.execute(INSERTS_TRIGGER)
                    layouts = before, int(conn.execute("PRAGMA schema_version").fetchone()[0])
                    if trusted:  # (every move row added meanwhile was counted, or stamped with its digest)
                        trust_lines(conn)
                    if kept:
                        trust_found(conn, FOUND_VERSION)
                    if self._note_due():  # (an import killed midway noted nothing: its file emptied
                        # afterwards was taken for a new one, or one of the old count)
                        held = _game_count(conn)
            except StoreError as error:
                if not written:
                    raise
                raise ImportStoppedError(written, error) from None
            self._tally_kept_through(*layouts)
            if held is not None:
                self._note_running(held)
            if committed is not None:
                committed.extend(result[i][0] for i in range(begin, end) if result[i][1])
            begin = end
        return result

    def _bring_up_to_date(self, conn: sqlite3.Connection, game: StoredGame, stored: StoredGame,
                          seen: _Seen) -> None:
        """Bring ``stored``, an older state of ``game`` that the imported
        record continues, up to the record's state in place (for
        :meth:`add_games`, inside its write transaction)."""
        # (a tab still showing it must reload; a record's own revision is
        # kept, so that states stay in order: it is the stored one only
        # when the record adds counts, which a tab's next change keeps)
        if not game.ordered:
            game.revision = stored.revision + 1
        game.hints = _hints_joined(conn, game)
        conn.execute("INSERT OR IGNORE INTO passed (game_id, moves, digest) VALUES (?, ?, ?)",
                     (game.id, *_passed_key(stored.moves)))
        overwrite_game(conn, game, stored.line_of())
        _keep_past(conn, game)
        conn.execute(f"UPDATE games SET {LINE_CHANGES} = {LINE_CHANGES} + 1 WHERE id = ?", (game.id,))
        seen.forget(game.id)
        seen.add(_light_row(game))
        self._remembered.pop(game.id)
        self._vouched.pop(game.id)
        self._sound.pop(game.id, None)

    def _restored_over(self, conn: sqlite3.Connection, games: Sequence[StoredGame],
                       read: dict[str, StoredGame | None] | None = None) -> dict[str, int] | None:
        """When ``games`` (an import) restore a backup: each has its places in
        the exporting store's log and an id of its own, and the database holds
        nothing but states of these games, each this game's very state or one
        that it continues (:meth:`_continued`: an older backup of the same
        database restored before, say). Returns the ids of the games whose
        very state is here, with their revisions; None when the import is no
        restore (its games then come in as games from elsewhere). ``read``:
        the stored games this import read whole already (None: damaged)."""
        if not all(game.log is not None for game in games):
            return None
        by_id = {game.id: game for game in games}
        if len(by_id) != len(games):
            return None
        stored_ids = []
        for game_id, updated_at, revision in conn.execute(
                f"SELECT {GAME_ID}, {bounded('updated_at')}, {bounded('revision')} FROM games"):
            game = by_id.get(game_id) if isinstance(game_id, str) else None
            if (game is None or not isinstance(updated_at, (int, float)) or not isinstance(revision, int)
                    or (revision > game.revision if game.ordered else updated_at > game.updated_at)):
                return None  # (a game of its own, none of the file's, or one changed since)
            stored_ids.append(game_id)
        exact: dict[str, int] = {}
        for game_id in stored_ids:
            game = by_id[game_id]
            if read is not None and game_id in read:  # (read whole by this import already)
                stored = read[game_id]
            else:
                try:
                    stored = self._fetch(conn, game_id)
                except DamagedGameError:
                    stored = None
            if stored is None:
                return None
            if same_game(stored, game) and _state(stored) == _state(game):
                exact[game_id] = stored.revision
            elif not (_continues(game, stored)
                      or (_untouched(conn, game_id) and _continues(game, stored, untouched=True))):
                return None
        return exact


__all__ = [
    "DatabaseFileError",
    "NewerDatabaseError",
    "SqliteStore",
    "StoreError",
    "open_store",
]
