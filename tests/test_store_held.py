"""The note of databases closed holding games (terrace.storage.held): a
note that is not one is passed over, never waited on, and it keeps the
last files closed only."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from terrace.storage import held
from terrace.storage.held import NOTE_MOST_BYTES, Held, emptied_since, note_held


@pytest.fixture
def emptied_db(tmp_path: Path) -> Path:
    db = tmp_path / "games.sqlite"
    db.write_bytes(bytes(4096))
    return db


def test_a_note_that_is_a_fifo_is_neither_waited_on_nor_kept(tmp_path: Path, emptied_db: Path) -> None:
    """Opening a FIFO to read waits for a writer: every close of a store,
    and every opening of an empty file, would have hung."""
    note = tmp_path / "held.json"
    os.mkfifo(note)
    os.truncate(emptied_db, 0)
    found: list[Held | None] = []
    reader = threading.Thread(target=lambda: found.append(emptied_since(emptied_db, note)), daemon=True)
    reader.start()
    reader.join(2.0)
    assert found == [None]
    note_held(emptied_db, 2, note)  # (replaced by a note of its own)
    assert emptied_since(emptied_db, note) == Held(*_identity(emptied_db), 2)


def _identity(file: Path) -> tuple[int, int]:
    info = file.stat()
    return info.st_dev, info.st_ino


@pytest.mark.parametrize("written", [
    b"\xff\xfe not UTF-8", b"[1, 2]", b"{" + b" " * NOTE_MOST_BYTES + b"}",
    b'{"PATH": [1, 2, 3]}', b'{"PATH": [DEV, INO, true]}', b'{"PATH": [DEV, INO, -4]}', b'{"PATH": "x"}',
])
def test_a_note_that_is_not_one_is_passed_over(tmp_path: Path, emptied_db: Path, written: bytes) -> None:
    note = tmp_path / "held.json"
    device, inode = _identity(emptied_db)
    note.write_bytes(written.replace(b"PATH", os.fsencode(emptied_db)).replace(b"DEV", b"%d" % device)
                     .replace(b"INO", b"%d" % inode))
    os.truncate(emptied_db, 0)
    assert emptied_since(emptied_db, note) is None
    (tmp_path / "folder.json").mkdir()
    note_held(emptied_db, 1, tmp_path / "folder.json")  # (a folder in its place: nothing written, no error)
    assert emptied_since(emptied_db, tmp_path / "folder.json") is None


def test_the_note_keeps_the_files_closed_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(held, "NOTED_FILES", 3)
    note = tmp_path / "held.json"
    files = [tmp_path / f"{number}.sqlite" for number in range(4)]
    for file in files:
        file.write_bytes(bytes(512))
        note_held(file, 1, note)
    note_held(files[0], 5, note)  # (closed again: the last one now)
    note_held(files[2], 0, note)  # (closed holding no game: forgotten)
    for file in files:
        os.truncate(file, 0)
    assert [emptied_since(file, note) is not None for file in files] == [True, False, False, True]
    assert emptied_since(files[0], note) == Held(*_identity(files[0]), 5)


def test_an_empty_file_on_another_device_is_not_the_one_noted(tmp_path: Path, emptied_db: Path) -> None:
    """A disk mounted where another was holds its own files: an empty one
    there whose inode number is the one noted is not the file emptied."""
    note = tmp_path / "held.json"
    note_held(emptied_db, 3, note)
    device, inode = _identity(emptied_db)
    text = note.read_text()
    note.write_text(text.replace(f"[{device}, {inode}", f"[{device + 1}, {inode}"))
    assert note.read_text() != text
    os.truncate(emptied_db, 0)
    assert emptied_since(emptied_db, note) is None
