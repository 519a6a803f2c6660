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
is checked at every run, as before. Like the replay stamps, a note is a
check against damage, not a signature: it only saves work. A note that
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


def read_sound(file: Path, under: list[int], folder: Path | None = None) -> dict[str, str]:
    """The games noted sound in ``file`` ``under`` a layout and versions of
    the checks, each with its :func:`row_digest`; nothing when the note is
    of another file, layout or version, or cannot be read."""
    identity = _identity(file)
    found = read_note(_note_path(file, folder), SOUND_NOTE_MOST_BYTES)
    if identity is None or found.get("file") != identity or found.get("under") != under:
        return {}
    sound = found.get("sound")
    if not isinstance(sound, dict):
        return {}
    return {key: value for key, value in sound.items() if isinstance(value, str)}


def note_sound(file: Path, under: list[int], sound: Mapping[str, str], folder: Path | None = None) -> None:
    """Note the games of ``file`` found sound ``under`` a layout and
    versions of the checks (in place of what was noted of it), and keep
    only the :data:`NOTES_KEPT` notes written last."""
    identity = _identity(file)
    if identity is None:
        return
    note = _note_path(file, folder)
    try:
        write_note(note, {"file": identity, "under": under, "sound": dict(sound)}, ".found-")
        notes = sorted(note.parent.glob("*.json"), key=lambda path: path.stat().st_mtime_ns)
        for old in notes[:-NOTES_KEPT]:
            old.unlink()
    except OSError as error:
        log.debug("what the statistics found could not be noted: %s", error)
