"""The database file checked before SQLite touches it: a file that is not
an SQLite database, is damaged, or belongs to another program is refused
with :class:`DatabaseFileError` and left exactly as it was.

>>> import tempfile, pathlib
>>> notes = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
>>> _ = notes.write_text("my notes" * 20)
>>> try:
...     inspect_file(notes)
... except DatabaseFileError as error:
...     print(str(error).split(" is ")[1])
not a Terrace database (not an SQLite file); it was left untouched
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path

from terrace.storage.base import StoreError
from terrace.storage.migrations import APPLICATION_ID

SQLITE_MAGIC = b"SQLite format 3\x00"


class DatabaseFileError(StoreError):
    """The file at the database path cannot be used (not SQLite, damaged,
    another program's, unreadable). It is never changed."""


@dataclass(frozen=True)
class Header:
    """What the first 100 bytes of a database file say."""

    user_version: int
    application_id: int
    has_wal: bool


def damaged(path: Path, why: str) -> DatabaseFileError:
    """The error for a database file that is damaged."""
    return DatabaseFileError(
        f"{path} is damaged ({why}); it was left untouched: restore a backup, "
        "or move it away to start a new database"
    )


def inspect_file(path: Path) -> Header | None:
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
        raise damaged(path, "shorter than an SQLite header")
    page_size = int.from_bytes(header[16:18], "big")
    if page_size == 1:
        page_size = 65536
    if page_size < 512 or page_size & (page_size - 1):
        raise damaged(path, "its header gives an impossible page size")
    has_wal = _nonempty(Path(f"{path}-wal"))
    if not has_wal and not _nonempty(Path(f"{path}-journal")):
        # With a pending log or journal, SQLite will bring the file up to
        # date first, so until then it may legitimately look short.
        if info.st_size % page_size:
            raise damaged(path, "it is not a whole number of pages long: it was cut short")
        pages = int.from_bytes(header[28:32], "big")
        if header[24:28] == header[92:96] and info.st_size < pages * page_size:
            raise damaged(path, f"it holds {info.st_size // page_size} of its {pages} pages")
    application_id = int.from_bytes(header[68:72], "big", signed=True)
    if application_id not in (0, APPLICATION_ID):
        raise foreign(path)
    return Header(int.from_bytes(header[60:64], "big", signed=True), application_id, has_wal)


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def foreign(path: Path) -> DatabaseFileError:
    """The error for another program's SQLite database."""
    return DatabaseFileError(
        f"{path} is an SQLite database of another program, not a Terrace one; it was left untouched"
    )
