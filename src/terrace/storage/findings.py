"""What the statistics of a store opened only to read found sound, kept
beside the user's other notes, not in the database: ``terrace stats`` on
a file that no writer of this version opened (its findings are not kept
in it, :data:`~terrace.storage.migrations.FOUND`) checked every game at
every run (15 s of CPU at 100,000 games), and may not write the file.

A note is of one file (its device, inode and time of birth, as
:mod:`terrace.storage.held` tells a file from another made under its name)
under one layout (``PRAGMA schema_version``: the triggers that count every
change to a game's moves are as they were) and the versions of the checks
that found them (a later Terrace that replays a line otherwise raises
them), and holds, for each game found
sound, a digest of its row and of its row's count of changes to its moves.
A game whose row or moves changed since, by any program, gives another
digest and is checked again; a game found damaged is never noted, so it
is checked at every run, as before. A note also keeps the state (size,
times of change: :func:`file_state`) in which the store found the whole
file sound (SQLite's check, at its opening), so that the next opening of
the file in that state need not check it again (:func:`found_whole`).
Like the replay stamps, a note is a check against damage, not a
signature: it only saves work. A note that
cannot be read or written is passed over; at most :data:`NOTES_KEPT`
are kept, those written last.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> db = folder / "games.sqlite"
>>> _ = db.write_bytes(bytes(4096))
>>> note_sound(db, [7, 2], {"g1": row_digest(["g1", 2.5], 3)}, folder)
>>> read_sound(db, [7, 2], folder) == {"g1": row_digest(["g1", 2.5], 3)}, read_sound(db, [8, 2], folder)
(True, {})
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from terrace.storage.held import birth_ns, read_note, write_note
from terrace.storage.paths import findings_folder

log = logging.getLogger(__name__)

NOTES_KEPT = 8
"""How many databases' notes are kept (those written last)."""
SOUND_NOTE_MOST_BYTES = 2**26
"""The longest note of games found sound read (100,000 games take about
4 MB; the held note's bound, :data:`terrace.storage.held.NOTE_MOST_BYTES`, is
for a few dozen files)."""


def row_digest(row: Sequence[Any], changes: Any) -> str:
    """The digest a note keeps of a game: its row as a read checks it and
    its count of changes to its moves (the same in every process)."""
    text = repr((tuple(row), changes)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=12, person=b"terrace-found").hexdigest()


def _identity(file: Path) -> list[Any] | None:
    """The file's device, inode and time of birth (None when it cannot be
    asked)."""
    try:
        info = file.stat()
    except OSError:
        return None
    return [info.st_dev, info.st_ino, birth_ns(file)]


def _note_path(file: Path, folder: Path | None) -> Path:
    real = os.path.realpath(file).encode("utf-8", "surrogatepass")
    name = hashlib.blake2b(real, digest_size=12).hexdigest()
    return (findings_folder() if folder is None else folder) / f"{name}.json"


def file_state(file: Path) -> list[int] | None:
    """What proves ``file`` unchanged: its size and times of change of its
    bytes and of its inode (the latter moves at any write, or when the
    former is set back by hand: ``touch -d``, ``cp -p``); None when it
    cannot be asked."""
    try:
        info = file.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _note_of(file: Path, folder: Path | None) -> dict[str, Any]:
    """The note of ``file`` when it is of this very file, else nothing."""
    identity = _identity(file)
    found = read_note(_note_path(file, folder), SOUND_NOTE_MOST_BYTES)
    return found if identity is not None and found.get("file") == identity else {}


def found_whole(file: Path, folder: Path | None = None) -> list[int] | None:
    """The :func:`file_state` of ``file`` when the note says that the
    statistics of a store opened only to read found the whole file sound
    (SQLite's check) in that very state, else None."""
    state = file_state(file)
    return state if state is not None and _note_of(file, folder).get("whole") == state else None


def note_whole(file: Path, state: list[int], folder: Path | None = None) -> None:
    """Note that the whole of ``file`` was found sound in ``state`` (its
    :func:`file_state`), keeping what the note says of its games."""
    kept = _note_of(file, folder)
    _write(file, {"under": kept.get("under"), "sound": kept.get("sound", {})}, state, folder)


def read_sound(file: Path, under: list[int], folder: Path | None = None) -> dict[str, str]:
    """The games noted sound in ``file`` ``under`` a layout and versions of
    the checks, each with its :func:`row_digest`; nothing when the note is
    of another file, layout or version, or cannot be read."""
    found = _note_of(file, folder)
    if found.get("under") != under:
        return {}
    sound = found.get("sound")
    if not isinstance(sound, dict):
        return {}
    return {key: value for key, value in sound.items() if isinstance(value, str)}


def note_sound(file: Path, under: list[int], sound: Mapping[str, str], folder: Path | None = None, *,
               whole: list[int] | None = None) -> None:
    """Note the games of ``file`` found sound ``under`` a layout and
    versions of the checks (in place of what was noted of it), and, with
    ``whole``, the :func:`file_state` in which the whole file was found
    sound (see :func:`found_whole`)."""
    _write(file, {"under": under, "sound": dict(sound)}, whole, folder)


def _write(file: Path, found: dict[str, Any], whole: list[int] | None, folder: Path | None) -> None:
    """Write the note of ``file`` and keep only the :data:`NOTES_KEPT`
    notes written last."""
    identity = _identity(file)
    if identity is None:
        return
    note = _note_path(file, folder)
    try:
        write_note(note, {"file": identity, **found, "whole": whole}, ".found-")
        notes = sorted(note.parent.glob("*.json"), key=lambda path: path.stat().st_mtime_ns)
        for old in notes[:-NOTES_KEPT]:
            old.unlink()
    except OSError as error:
        log.debug("what the statistics found could not be noted: %s", error)
