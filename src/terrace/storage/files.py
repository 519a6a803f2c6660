"""The database file and its faults: the file is checked before SQLite
touches it (a file that is not an SQLite database, is damaged, or belongs to
another program is refused with :class:`DatabaseFileError` and left exactly
as it was), SQLite's failures become clear errors that name the file but
never the folders above it, and a refused file gets no ``-wal`` or ``-shm``
file beside it.

>>> import tempfile, pathlib
>>> notes = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
>>> _ = notes.write_text("my notes" * 20)
>>> try:
...     inspect_file(notes)
... except DatabaseFileError as error:
...     print(error)
notes.txt is not a Terrace database (not an SQLite file); it was left untouched
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path

from terrace.refusals import Reason, Refusal
from terrace.storage.base import StoreError, StoreWriteError
from terrace.storage.held import note_held, sealed_since
from terrace.storage.migrations import APPLICATION_ID
from terrace.storage.paths import label

SQLITE_MAGIC = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm")
"""The files SQLite keeps beside a database in WAL mode."""

_WRITE_FAULTS = (
    ("SQLITE_FULL", "full", Refusal.WRITE_DISK_FULL, Refusal.FAULT_DISK_FULL),
    ("SQLITE_READONLY", "read-only", Refusal.WRITE_READ_ONLY, Refusal.FAULT_READ_ONLY),
    ("SQLITE_PERM", "read-only", Refusal.WRITE_READ_ONLY, Refusal.FAULT_READ_ONLY),
    ("SQLITE_CANTOPEN", "failed", Refusal.WRITE_CANNOT_OPEN, Refusal.FAULT_CANNOT_OPEN),
    # (no room for the -shm file)
    ("SQLITE_IOERR_SHMSIZE", "full", Refusal.WRITE_DISK_FULL, Refusal.FAULT_DISK_FULL),
    ("SQLITE_IOERR", "failed", Refusal.WRITE_DISK_FAILED, Refusal.FAULT_DISK_FAILED),
)
_FAULT_WORDS = (
    ("disk is full", "SQLITE_FULL"),
    ("readonly", "SQLITE_READONLY"),
    ("disk I/O error", "SQLITE_IOERR"),
    ("unable to open", "SQLITE_CANTOPEN"),
)


class DatabaseFileError(StoreError):
    """The file at the database path cannot be used (not SQLite, damaged,
    another program's, unreadable). It is never changed."""


class NoDatabaseError(DatabaseFileError):
    """There is no database at the path (no file, or an empty one) and the
    store was opened only to read: nothing is created."""

    def __init__(self, name: str) -> None:
        super().__init__(Reason(Refusal.DATABASE_NONE_YET, name=name))


@dataclass(frozen=True)
class Header:
    """What the first 100 bytes of a database file say."""

    user_version: int
    application_id: int
    has_wal: bool


def unreadable(name: str, error: OSError) -> DatabaseFileError:
    """The error for a database file (named ``name``) the system would not read."""
    why = str(error.strerror or error)
    return DatabaseFileError(Reason(Refusal.DATABASE_UNREADABLE, name=name, text=why))


def damaged(name: str, why: str | Reason) -> DatabaseFileError:
    """The error for a database file that is damaged: ``why`` is one of
    the ``DAMAGE_*`` reasons, or SQLite's own words (one line: its report
    may have several)."""
    if isinstance(why, str):
        why = Reason(Refusal.DAMAGE_SQLITE_SAYS, text=" ".join(why.split()))
    return DatabaseFileError(Reason(Refusal.DATABASE_DAMAGED, name=name, text=why))


def foreign(name: str) -> DatabaseFileError:
    """The error for another program's SQLite database."""
    return DatabaseFileError(Reason(Refusal.DATABASE_FOREIGN, name=name))


def emptied(name: str, games: int | None) -> DatabaseFileError:
    """The error for a database file found empty that held ``games``
    games when Terrace last saw it (None: another program emptied it
    while Terrace had it open): it became a new database without a word."""
    if games is None:
        return DatabaseFileError(Reason(Refusal.DATABASE_EMPTIED_WHILE_OPEN, name=name))
    return DatabaseFileError(Reason(Refusal.DATABASE_EMPTIED_NOTED, name=name, games=games))


VERDICT_TABLES = frozenset({"verdicts"})
"""The tables of the solver's verdict cache (which has no application id)."""


def verdict_cache(name: str) -> DatabaseFileError:
    """The error for the solver's verdict cache given as the games database
    (it was called "another program's"; the slip is easy, the two files lie
    side by side)."""
    return DatabaseFileError(Reason(Refusal.DATABASE_IS_VERDICT_CACHE, name=name))


def inspect_file(path: Path, name: str | None = None) -> Header | None:
    """Check the file at ``path`` (named ``name`` in messages, else by its
    own name) before SQLite opens it: None when there is no database yet
    (missing or empty file), else what its header says. Raises
    :class:`DatabaseFileError` for anything that is not a sound SQLite file
    of ours (reading only; nothing is written)."""
    name = label(path) if name is None else name
    _side_files_are_files(path, name)
    try:
        info = path.stat()
    except FileNotFoundError:
        _no_orphan_log(path, name)
        return None
    except OSError as error:
        raise unreadable(name, error) from None
    if stat.S_ISDIR(info.st_mode):
        raise DatabaseFileError(Reason(Refusal.DATABASE_FOLDER, name=name))
    if not stat.S_ISREG(info.st_mode):
        raise DatabaseFileError(Reason(Refusal.DATABASE_NOT_FILE, name=name))
    if info.st_size == 0 and not _reads_any(path, name):  # (a file of /proc says 0 and holds text)
        _no_orphan_log(path, name)
        return None
    try:
        with path.open("rb") as file:
            header = file.read(100)
            # (the size again, of the file whose header was read: another
            # process may have made the database since the first look,
            # whose size then said 0 where the header now gives a page)
            size = os.fstat(file.fileno()).st_size
    except OSError as error:
        raise unreadable(name, error) from None
    if not is_sqlite_header(header):
        raise DatabaseFileError(Reason(Refusal.DATABASE_NOT_SQLITE, name=name))
    if len(header) < 100:
        raise damaged(name, Reason(Refusal.DAMAGE_HEADER_SHORT))
    page_size = int.from_bytes(header[16:18], "big")
    if page_size == 1:
        page_size = 65536
    if page_size < 512 or page_size & (page_size - 1):
        raise damaged(name, Reason(Refusal.DAMAGE_PAGE_SIZE))
    has_wal = nonempty(Path(f"{path}-wal"))
    if not has_wal and not nonempty(Path(f"{path}-journal")):
        # With a pending log or journal, SQLite will bring the file up to
        # date first, so until then it may legitimately look short.
        if size % page_size:
            raise damaged(name, Reason(Refusal.DAMAGE_CUT_SHORT))
        pages = int.from_bytes(header[28:32], "big")
        if header[24:28] == header[92:96] and size < pages * page_size:
            raise damaged(name, Reason(Refusal.DAMAGE_PAGES_MISSING, held=size // page_size, pages=pages))
    application_id = int.from_bytes(header[68:72], "big", signed=True)
    if application_id not in (0, APPLICATION_ID):
        raise foreign(name)
    return Header(int.from_bytes(header[60:64], "big", signed=True), application_id, has_wal)


SIDE_ROLES = (("-wal", Refusal.SIDE_ROLE_LOG), ("-shm", Refusal.SIDE_ROLE_INDEX),
              ("-journal", Refusal.SIDE_ROLE_JOURNAL))
"""The files SQLite keeps beside a database, with what each is to it."""


def side_file_fault(path: Path, name: str) -> Reason | None:
    """Why a database at ``path`` (named ``name``) cannot be opened when a
    name SQLite keeps a file of its own under beside it is a folder, a
    device or a pipe (None when none is): SQLite said "the database is
    read-only" (a folder as the index: ``terrace play`` advised making the
    file writable), "the disk failed (input/output error)" (a pipe) or
    "the database file cannot be opened", ``stats`` that "the update of the
    database's layout was not saved", and with a pipe as the journal a
    reader waited for ever. The games database and the solver's verdict
    cache both ask it before SQLite opens them."""
    for suffix, role in SIDE_ROLES:
        side = Path(f"{path}{suffix}")
        try:
            mode = side.stat().st_mode
        except OSError:  # (none there: SQLite makes it when it needs it)
            continue
        if not stat.S_ISREG(mode):
            refusal = Refusal.SIDE_FILE_FOLDER if stat.S_ISDIR(mode) else Refusal.SIDE_FILE_NOT_FILE
            return Reason(refusal, side=label(side), role=Reason(role), name=name)
    return None


def _side_files_are_files(path: Path, name: str) -> None:
    """Refuse a database (named ``name``) that :func:`side_file_fault` finds
    fault with."""
    fault = side_file_fault(path, name)
    if fault is not None:
        raise DatabaseFileError(fault)


def _reads_any(path: Path, name: str) -> bool:
    """True when the file at ``path``, whose size reads as 0, yields a byte
    all the same (a kernel file such as ``/proc/self/status``). One that
    cannot be read is refused as such (``/proc/self/mem``, whose first read
    fails, was taken for no database: ``terrace stats`` said "No games
    played yet", status 0)."""
    try:
        with path.open("rb") as file:
            return bool(file.read(1))
    except OSError as error:
        raise unreadable(name, error) from None


def is_sqlite_header(header: bytes) -> bool:
    """True when ``header`` (a file's first bytes) starts like an SQLite file.

    >>> is_sqlite_header(b"SQLite format 3\\x00" + bytes(84)), is_sqlite_header(b"hello")
    (True, False)
    """
    return len(header) >= len(SQLITE_MAGIC) and header.startswith(SQLITE_MAGIC)


PROBE_SECONDS = 2.0
"""How long the check of a verdict cache waits for another program's lock."""


SQLITE_READONLY_ROLLBACK = 776
"""SQLite's extended code for a read-only connection that found a hot
journal (a transaction left half-written) it may not roll back."""


def verdict_file_fault(path: Path, name: str | None = None) -> Reason | None:
    """Why the file at ``path`` cannot be opened as the solver's verdict
    cache before SQLite touches it, or None: a folder, a pipe (it would
    block the first read for good) or a device (a link to ``/dev/null``:
    SQLite wrote ``/dev/null-journal`` beside it, and the web game's
    search for a winnable deal failed with a traceback) where the cache
    or one of its side files should be (:func:`side_file_fault`). A
    missing file is fine (it becomes the cache). ``name``: how the
    message names the cache (else by its file's name)."""
    name = label(path) if name is None else name
    side = side_file_fault(path, name)  # (a pipe as its journal: a reader waited for ever)
    if side is not None:
        return side
    try:
        mode = path.stat().st_mode
    except OSError:  # (missing: made by the cache; unreadable: said where it is read)
        return None
    if stat.S_ISDIR(mode):
        return Reason(Refusal.VERDICT_CACHE_FOLDER, name=name)
    return None if stat.S_ISREG(mode) else Reason(Refusal.VERDICT_CACHE_NOT_FILE, name=name)


def check_verdict_cache(path: Path) -> None:
    """Refuse, with a clear :class:`DatabaseFileError`, a file at ``path``
    that cannot serve as the solver's verdict cache: one
    :func:`verdict_file_fault` refuses, not an SQLite file, a games
    database of ours, or a damaged one. A missing or empty file is fine
    (it becomes the cache). A symbolic link is followed first (SQLite keeps
    the side files beside the file it points to). A cache found sound is
    noted as the games database is (:mod:`terrace.storage.held`): checked
    again only once it has changed. Nothing is written beside it."""
    name = label(path)
    path = Path(os.path.realpath(path))
    if (fault := verdict_file_fault(path, name)) is not None:
        raise DatabaseFileError(fault)
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except FileNotFoundError:
        return
    except OSError as error:
        raise unreadable(name, error) from None
    if not header:
        return
    if not is_sqlite_header(header):
        raise DatabaseFileError(Reason(Refusal.VERDICT_CACHE_NOT_SQLITE, name=name))
    if len(header) >= 72 and int.from_bytes(header[68:72], "big", signed=True) == APPLICATION_ID:
        raise DatabaseFileError(Reason(Refusal.VERDICT_CACHE_GAMES, name=name))
    if verdict_cache_sealed(path):
        return
    check = _quick_check(path, name)
    if check is None:
        return
    if check != "ok":
        raise damaged(name, check)
    seal_verdict_cache(path)


def logged(path: Path) -> bool:
    """True when a log or journal holding changes lies beside ``path``."""
    return any(nonempty(Path(f"{path}{side}")) for side in ("-wal", "-journal"))


def verdict_cache_sealed(path: Path) -> bool:
    """True when the verdict cache ``path`` (links followed) is as a check
    or a store left it sound, no log or journal beside it (see
    :func:`~terrace.storage.held.sealed_since`)."""
    return not logged(path) and sealed_since(path)


def seal_verdict_cache(path: Path) -> None:
    """Note the verdict cache ``path`` (links followed), found sound or
    written only through SQLite since it was, as sound as it is now
    (nothing is noted while a log or journal lies beside it)."""
    if not logged(path):
        note_held(path, 0, sealed=True)


def _quick_check(path: Path, name: str) -> str | None:
    """SQLite's ``quick_check`` of the verdict cache ``path`` ("ok" when
    sound), or None when a transaction was left half-written in it (a
    killed survey: the store's first write undoes it)."""
    before = side_files(path)
    try:
        probe = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True, timeout=PROBE_SECONDS)
        try:
            return str(probe.execute("PRAGMA quick_check(1)").fetchone()[0])
        finally:
            probe.close()
    except sqlite3.Error as error:
        if is_busy(error):  # (held by another program, not damaged)
            raise busy_error(name) from None
        if getattr(error, "sqlite_errorcode", None) == SQLITE_READONLY_ROLLBACK:
            return None
        return str(error)
    finally:
        remove_new_side_files(path, before)


def nonempty(path: Path) -> bool:
    """True when a file at ``path`` holds anything (a missing one does not)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _no_orphan_log(path: Path, name: str) -> None:
    """Refuse to start a new database (named ``name``) where a log holding
    changes lies beside no database (the file was deleted or emptied while
    in use): SQLite would start afresh and delete the log, the last copy of
    them."""
    if nonempty(Path(f"{path}-wal")):
        raise DatabaseFileError(Reason(Refusal.DATABASE_ORPHAN_LOG, name=name, log=f"{label(path)}-wal"))


def file_identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file at ``path`` (None when there is
    none): a database moved, replaced or deleted while open has another."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


def side_files(path: Path) -> set[str]:
    """Which of the ``-wal`` and ``-shm`` files are there now."""
    return {suffix for suffix in SIDE_FILES if Path(f"{path}{suffix}").exists()}


def remove_new_side_files(path: Path, before: set[str]) -> None:
    """Remove the ``-wal`` and ``-shm`` files that were not there
    ``before`` a connection, now closed, opened a refused database (SQLite
    leaves them when it could not write the file). A log holding changes is
    never removed."""
    if "-wal" not in before and nonempty(Path(f"{path}-wal")):
        return
    for suffix in SIDE_FILES:
        if suffix not in before:
            # (on a read-only file system none was made, and removing says so:
            # the refusal that closed the database is what the caller reports)
            try:
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            except OSError as error:
                if error.errno != errno.EROFS:
                    raise


def is_busy(error: sqlite3.Error) -> bool:
    """True when SQLite refused because another connection holds the file."""
    text = str(error)
    return isinstance(error, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def busy_error(name: str, change: str | None = None) -> StoreError:
    """The error of a database that another program (or another request of
    this one, waiting on it) keeps busy for longer than a caller waits; a
    write of ``change`` says it was not saved (see :func:`not_saved`)."""
    busy = StoreError(Reason(Refusal.DATABASE_BUSY, name=name))
    return busy if change is None else not_saved(change, busy)


def is_locked_out(error: sqlite3.Error) -> bool:
    """True when SQLite gave up taking a read lock of the log's index
    (``-shm``) after its own fixed retries, about 10 s (SQLITE_PROTOCOL,
    "locking protocol"): another process holds those locks in a way no
    reader of SQLite's does for long (stopped while it held one, or a tool
    that locks files to copy them); many readers share them."""
    return getattr(error, "sqlite_errorname", "") == "SQLITE_PROTOCOL" or "locking protocol" in str(error)


_NOT_SAVED_FAULTS = {Refusal.DATABASE_BUSY: "busy", Refusal.DATABASE_LOCKED_OUT: "busy",
                     Refusal.DATABASE_DAMAGED: "damaged", Refusal.DATABASE_FAILED: "sqlite"}
"""The refusals of a file that a write meets as a read does, each with the
``fault`` of its :class:`StoreWriteError`."""


def not_saved(change: str, problem: StoreError) -> StoreWriteError:
    """The refusal of a write of ``change`` (a key of
    :data:`~terrace.refusals.CHANGES`) that met ``problem``, a refusal a
    read meets too (busy, damaged, failing): it says the change was not
    saved ("the move was not saved: the database games.sqlite is busy ...";
    German "Der Zug wurde nicht gespeichert: ...")."""
    assert problem.reason is not None and problem.code in _NOT_SAVED_FAULTS
    fault = _NOT_SAVED_FAULTS[Refusal(problem.code)]
    return StoreWriteError(Reason(Refusal.WRITE_REFUSED, change=change, problem=problem.reason), fault)


def unsaved_problem(error: StoreWriteError) -> StoreError | None:
    """What a write refused by :func:`not_saved` met, as a read's refusal
    (the database busy...); None for a refusal of writes only (a full disk,
    a read-only file...)."""
    if error.code is not Refusal.WRITE_REFUSED or error.reason is None:
        return None
    problem = error.reason.params["problem"]
    assert isinstance(problem, Reason)
    return DatabaseFileError(problem) if problem.code is Refusal.DATABASE_DAMAGED else StoreError(problem)


def read_refusal(error: StoreWriteError, name: str) -> StoreError:
    """``error``, a refusal of a write, as a read of the database ``name``
    says it (an opening that only reads, which writes nothing): "the
    database games.sqlite cannot be used: the disk failed ..."."""
    problem = unsaved_problem(error)
    if problem is not None:
        return problem
    fault = next((fault for *_, refusal, fault in _WRITE_FAULTS if error.code is refusal), None)
    return error if fault is None else StoreError(
        Reason(Refusal.DATABASE_UNUSABLE, name=name, fault=Reason(fault)))


def sql_error(name: str, error: sqlite3.Error, change: str | None = None) -> StoreError:
    """A clear error for a failure inside SQLite. When ``change`` (a key of
    :data:`~terrace.refusals.CHANGES`, e.g. "move") was being written, it
    is a :class:`StoreWriteError`, a coded refusal that says the change was
    not saved and why: "the move was not saved: the disk is full" (German
    "Der Zug wurde nicht gespeichert: ..."), the same for a busy, damaged
    or failing database."""
    text = str(error)
    code = getattr(error, "sqlite_errorname", "") or next(
        (c for words, c in _FAULT_WORDS if words in text), ""
    )
    for prefix, reason, refusal, fault in _WRITE_FAULTS:
        if code.startswith(prefix):
            if change is None:  # (a read: said in the request's language, as a write is)
                return StoreError(Reason(Refusal.DATABASE_UNUSABLE, name=name, fault=Reason(fault)))
            return StoreWriteError(Reason(refusal, change=change), reason)
    problem = _read_problem(name, error)
    return problem if change is None else not_saved(change, problem)


def _read_problem(name: str, error: sqlite3.Error) -> StoreError:
    """The refusal of an SQLite failure that a read meets as a write does."""
    text = str(error)
    if is_busy(error):
        return busy_error(name)
    if is_locked_out(error):
        return StoreError(Reason(Refusal.DATABASE_LOCKED_OUT, name=name))
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return damaged(name, text)
    return StoreError(Reason(Refusal.DATABASE_FAILED, name=name, text=" ".join(text.split())))
