"""What Terrace notes of the games databases it closes, so that one
emptied since (cut to 0 bytes: a slip of the shell's ``>``, a sync tool, a
disk tool) is refused at its next opening, where it became a new, empty
database without a word, its saved games and statistics gone.

A store that may write notes, as it closes a database file, how many
games it held then (or that another program emptied it while open),
with the file's device and inode: emptying a file in place keeps both. An
opening that finds that very file empty refuses it; a file never noted
holding a game (a new one, one made by ``touch``) opens as a new database
as before, and so does one made anew under the name (deleted, then made
by Terrace: its note is replaced when it closes). The note is a small JSON
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
Held(device=..., inode=..., games=3)
>>> note_held(db, 0, note); emptied_since(db, note) is None
True
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from terrace.storage.paths import held_note_path

log = logging.getLogger(__name__)

NOTED_FILES = 64
"""How many databases the note keeps (those closed last)."""


@dataclass(frozen=True)
class Held:
    """What the note says of one database file: its device and inode, and
    how many games it held when it was last closed (None: another program
    emptied it while it was open)."""

    device: int
    inode: int
    games: int | None


def _key(file: Path) -> str:
    return os.path.realpath(file)


NOTE_MOST_BYTES = 2**20
"""The longest note read (64 files of the longest paths take a quarter of it)."""


def _read(note: Path) -> dict[str, Any]:
    """What the note holds; nothing when there is none, or it is not a
    regular file (a FIFO would keep every close waiting), longer than
    :data:`NOTE_MOST_BYTES`, unreadable or not JSON."""
    try:
        # (not blocking: opening a FIFO to read waits for a writer)
        with open(os.open(note, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > NOTE_MOST_BYTES:
                return {}
            found = json.loads(file.read(NOTE_MOST_BYTES))
    except (OSError, ValueError):  # (ValueError: not JSON, or not UTF-8)
        return {}
    return found if isinstance(found, dict) else {}


def _held(entry: Any) -> Held | None:
    if not (isinstance(entry, list) and len(entry) == 3):
        return None
    device, inode, games = entry
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (device, inode)):
        return None
    if games is not None and not (isinstance(games, int) and not isinstance(games, bool) and games > 0):
        return None
    return Held(device, inode, games)


def note_held(file: Path, games: int | None, note: Path | None = None) -> None:
    """Note that ``file`` held ``games`` games as it was closed (None: it
    was emptied while open; 0 forgets it: nothing of it can be lost)."""
    note = held_note_path() if note is None else note
    try:
        info = file.stat()
    except OSError:
        return
    notes = _read(note)
    key = _key(file)
    entry = None if games == 0 else [info.st_dev, info.st_ino, games]
    if notes.get(key) == entry:
        return
    notes.pop(key, None)
    if entry is not None:
        notes[key] = entry
    kept = dict(list(notes.items())[-NOTED_FILES:])
    try:
        note.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=note.parent, prefix=".held-",
                                         delete=False) as written:
            json.dump(kept, written)
        try:
            os.replace(written.name, note)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(written.name)
            raise
    except OSError as error:
        log.debug("the note of held databases could not be written: %s", error)


def emptied_since(file: Path, note: Path | None = None) -> Held | None:
    """The note of ``file`` when the file is empty now and is the very
    file noted holding games (the same device and inode), else None."""
    try:
        info = file.stat()
    except OSError:
        return None
    if info.st_size:
        return None
    held = _held(_read(held_note_path() if note is None else note).get(_key(file)))
    if held is None or (held.device, held.inode) != (info.st_dev, info.st_ino):
        return None
    return held
