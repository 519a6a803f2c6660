"""What Terrace notes of the games databases it closes, so that one
emptied since (cut to 0 bytes: a slip of the shell's ``>``, a sync tool, a
disk tool) is refused at its next opening, where it became a new, empty
database without a word, its saved games and statistics gone.

A store that may write notes, as it closes a database file and as it
adds a game to it (a server killed before it closes, by SIGKILL or a
power cut, noted nothing), how many games it held then (or that another
program emptied it while open),
with the file's device, inode and time of birth: emptying a file in place
keeps all three. An opening that finds that very file empty refuses it; a
file never noted holding a game (a new one, one made by ``touch``) opens
as a new database as before, and so does one made anew under the name
(deleted, then made again: a new file born since, even where it got the
old one's inode number, as ``rm games.sqlite; touch games.sqlite`` often
gives it on ext4). The note also says whether the file was left as the
store found it sound (:func:`sealed_since`: its size and time of change
as it closed), so that the next opening of the file unchanged need not
check all of it again; a store that may write and found it sound as it
opened it notes its process too, so that a reader beside it, which finds
its log, need not check it while that process holds it open
(:func:`held_open_sound`). The note is a small JSON
file in the user data folder (:func:`~terrace.storage.paths.held_note_path`),
of at most :data:`NOTED_FILES` files, the last closed kept; it is a help,
not a guard: a note that cannot be read or written is passed over.

>>> import os, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> note, db = folder / "held.json", folder / "games.sqlite"
>>> _ = db.write_bytes(bytes(4096))
>>> note_held(db, 3, note)
>>> os.truncate(db, 0)
>>> emptied_since(db, note)  # doctest: +ELLIPSIS
Held(device=..., inode=..., games=3, born=..., sealed=None, holder=None)
>>> note_held(db, 0, note); emptied_since(db, note) is None
True
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import stat
import struct
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from terrace.storage.paths import held_note_path

log = logging.getLogger(__name__)

NOTED_FILES = 64
"""How many databases the note keeps (those closed last)."""


@dataclass(frozen=True)
class Held:
    """What the note says of one database file: its device and inode, how
    many games it held when it was last closed (None: another program
    emptied it while it was open), when it was born (nanoseconds since
    1970; None where the system does not tell, or in a note written before
    it was kept), and, when it was closed sound, its size and time of
    change (nanoseconds) then (``sealed``; None otherwise)."""

    device: int
    inode: int
    games: int | None
    born: int | None = None
    sealed: tuple[int, int] | None = None
    holder: int | None = None
    """The process that found the file sound as it opened it and noted
    so while it holds it open (a server: its log changes the file)."""

    def is_file(self, info: os.stat_result, born: int | None) -> bool:
        """True when ``info`` (and ``born``) are of the very file noted: the
        same device and inode, and, where both are known, the same birth
        (a file made anew may get a deleted one's inode number)."""
        same_birth = self.born is None or born is None or self.born == born
        return (self.device, self.inode) == (info.st_dev, info.st_ino) and same_birth


_STATX_BTIME = 0x800
_AT_FDCWD = -100
_STATX_SIZE = 256
_BTIME_AT = 80
"""Where ``struct statx`` keeps its ``stx_btime`` (seconds, then nanoseconds)."""


def _linux_statx() -> Callable[..., int] | None:
    """The C library's ``statx``, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).statx
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p)
    function.restype = ctypes.c_int
    return cast(Callable[..., int], function)


_STATX = _linux_statx()


def birth_ns(file: Path) -> int | None:
    """When ``file`` was made, in nanoseconds since 1970, or None where the
    system or the file system does not say (Python 3.11 reads it on macOS
    and Windows; on Linux it is asked with ``statx``)."""
    if _STATX is not None:
        buffer = ctypes.create_string_buffer(_STATX_SIZE)
        if _STATX(_AT_FDCWD, os.fsencode(file), 0, _STATX_BTIME, buffer) != 0:
            return None
        if not struct.unpack_from("=I", buffer, 0)[0] & _STATX_BTIME:
            return None
        seconds, nanoseconds = struct.unpack_from("=qI", buffer, _BTIME_AT)
        return int(seconds) * 10**9 + int(nanoseconds)
    try:
        info = file.stat()
    except OSError:
        return None
    birth = getattr(info, "st_birthtime", None)
    if birth is None and sys.platform == "win32":
        birth = info.st_ctime  # (on Windows, before Python 3.12: the time of making)
    return None if birth is None else round(birth * 10**9)


def _key(file: Path) -> str:
    return os.path.realpath(file)


NOTE_MOST_BYTES = 2**20
"""The longest note read (64 files of the longest paths take a quarter of it)."""


def read_note(note: Path, most: int = NOTE_MOST_BYTES) -> dict[str, Any]:
    """What a note (a JSON object) holds; nothing when there is none, or it
    is not a regular file (a FIFO would keep every close waiting), longer
    than ``most`` bytes, unreadable or not JSON."""
    try:
        # (not blocking: opening a FIFO to read waits for a writer)
        with open(os.open(note, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > most:
                return {}
            # (its size, not the bound: a read of 1 MiB asked for 1 MiB at once,
            # for a note of a few hundred bytes, at every note read)
            found = json.loads(file.read(info.st_size + 1))
    except (OSError, ValueError):  # (ValueError: not JSON, or not UTF-8)
        return {}
    return found if isinstance(found, dict) else {}


def write_note(note: Path, data: dict[str, Any], prefix: str) -> None:
    """Write a note whole in place of the one there (a file named from
    ``prefix`` beside it, then renamed: a reader never finds half of it);
    raises :class:`OSError`."""
    note.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=note.parent, prefix=prefix,
                                     delete=False) as written:
        json.dump(data, written)
    try:
        os.replace(written.name, note)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(written.name)
        raise


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _held(entry: Any) -> Held | None:
    """An entry of the note: ``[device, inode, games]`` (as notes were
    written before births were kept) or ``[device, inode, games, born,
    sealed]``; None for anything else."""
    if not (isinstance(entry, list) and len(entry) in (3, 5, 6)):
        return None
    device, inode, games, *rest = entry
    born, sealed, holder = (*rest, None)[:3] if rest else (None, None, None)
    if not (holder is None or _whole(holder)):
        return None
    if not all(_whole(v) for v in (device, inode)) or not (born is None or _whole(born)):
        return None
    if games is not None and not (_whole(games) and (games > 0 or (games == 0 and sealed is not None))):
        return None
    if sealed is not None and not (isinstance(sealed, list) and len(sealed) == 2
                                   and all(map(_whole, sealed))):
        return None
    return Held(device, inode, games, born, None if sealed is None else (sealed[0], sealed[1]), holder)


def note_held(file: Path, games: int | None, note: Path | None = None, sealed: bool = False,
              holder: int | None = None) -> None:
    """Note that ``file`` held ``games`` games as it was closed (None: it
    was emptied while open; 0 forgets it, nothing of it can be lost, unless
    ``sealed``: the solver's verdict cache is noted so), and, when
    ``sealed``, that it was left sound as it is now (its size and time of
    change); ``holder``: the process that found it sound as it opened it
    and holds it open (see :func:`held_sound_by`)."""
    note = held_note_path() if note is None else note
    try:
        info = file.stat()
    except OSError:
        return
    notes = read_note(note)
    key = _key(file)
    state = [info.st_size, info.st_mtime_ns] if sealed else None
    entry: list[Any] | None = (None if games == 0 and not sealed else
                               [info.st_dev, info.st_ino, games, birth_ns(file), state])
    if entry is not None and holder is not None:
        entry.append(holder)
    if notes.get(key) == entry:
        return
    notes.pop(key, None)
    if entry is not None:
        notes[key] = entry
    kept = dict(list(notes.items())[-NOTED_FILES:])
    try:
        write_note(note, kept, ".held-")
    except OSError as error:
        log.debug("the note of held databases could not be written: %s", error)


def _noted(file: Path, note: Path | None) -> tuple[Held, os.stat_result] | None:
    """The note of ``file`` and the file's state now, when the note is of
    this very file (see :meth:`Held.is_file`)."""
    try:
        info = file.stat()
    except OSError:
        return None
    held = _held(read_note(held_note_path() if note is None else note).get(_key(file)))
    if held is None or not held.is_file(info, birth_ns(file)):
        return None
    return held, info


def emptied_since(file: Path, note: Path | None = None) -> Held | None:
    """The note of ``file`` when the file is empty now and is the very
    file noted holding games, else None."""
    noted = _noted(file, note)
    if noted is None or noted[1].st_size or noted[0].games == 0:
        return None
    return noted[0]


def sealed_since(file: Path, note: Path | None = None) -> bool:
    """True when ``file`` is as a store left it sound as it closed it: the
    very file noted, its size and time of change unchanged since."""
    noted = _noted(file, note)
    return noted is not None and noted[0].sealed == (noted[1].st_size, noted[1].st_mtime_ns)


def held_sound_by(file: Path, note: Path | None = None) -> int | None:
    """The process noted as holding ``file`` open since it found it sound
    as it opened it (None when none is noted for this very file)."""
    noted = _noted(file, note)
    return None if noted is None else noted[0].holder


_SHM_DMS = 128
"""The byte of SQLite's ``-shm`` index that each connection holds a shared
lock on while it has the database open (unix VFS: 120 + 8 lock bytes)."""


def shm_holder(file: Path) -> int | None:
    """A process (other than this one) that holds the database ``file``
    open through SQLite's ``-shm`` index, as the system's lock table says;
    None when none does, or where that cannot be asked."""
    if not sys.platform.startswith("linux"):  # (the layout of struct flock below is Linux's)
        return None
    import fcntl

    layout = "hhqqi4x"  # (struct flock on Linux: type, whence, start, length, pid)
    try:
        handle = os.open(f"{file}-shm", os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        asked = struct.pack(layout, fcntl.F_WRLCK, os.SEEK_SET, _SHM_DMS, 1, 0)
        kind, _, _, _, pid = struct.unpack(layout, fcntl.fcntl(handle, fcntl.F_GETLK, asked))
    except OSError:
        return None
    finally:
        os.close(handle)
    return int(pid) if kind != fcntl.F_UNLCK and pid > 0 else None


def held_open_sound(file: Path, note: Path | None = None) -> bool:
    """True when another process noted that it found ``file`` sound as it
    opened it and it holds it open still (its lock on the ``-shm`` index):
    its log's changes since are SQLite's own."""
    holder = held_sound_by(file, note)
    return holder is not None and holder != os.getpid() and shm_holder(file) == holder
