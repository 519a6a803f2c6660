"""The note of databases closed holding games (terrace.storage.held): a
note that is not one is passed over, never waited on, and it keeps the
last files closed only."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from store_support import golden, start
from terrace.storage import DamagedGameError, StoreError, held, open_store
from terrace.storage import sqlite as sqlite_store
from terrace.storage.held import NOTE_MOST_BYTES, Held, emptied_since, note_held
from terrace.storage.paths import findings_folder, held_note_path


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
    assert _said(emptied_since(emptied_db, note)) == (*_identity(emptied_db), 2)


def _said(held: Held | None) -> tuple[int, int, int | None] | None:
    """What a note says of a file: its device, inode and games."""
    return None if held is None else (held.device, held.inode, held.games)


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
    assert _said(emptied_since(files[0], note)) == (*_identity(files[0]), 5)


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


# -- the note as the store keeps it ------------------------------------------------


def _checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ``PRAGMA quick_check`` statements the store's connections run
    from now on."""
    ran: list[str] = []
    made = sqlite_store._connect

    def connect(path: Path | str, mode: str | None = None) -> sqlite3.Connection:
        conn = made(path, mode)
        conn.set_trace_callback(lambda sql: ran.append(sql) if "quick_check" in sql else None)
        return conn

    monkeypatch.setattr(sqlite_store, "_connect", connect)
    return ran


def test_a_file_left_sound_is_not_checked_again_until_it_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every opening read the whole file through ``PRAGMA quick_check``: a
    minute of CPU at 2.6 GB for each server start and each ``terrace
    stats`` (8 s at 20,000 games, 510 MB). A file as a store left it sound
    when it closed it is not checked again; one changed since (its time of
    change), or with a log a writer left beside it, is."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        start(store, golden("terrace-lost"))
    ran = _checks(monkeypatch)
    open_store(db, read_only=True).close()
    open_store(db).close()
    open_store(db, read_only=True).close()
    assert ran == []
    os.utime(db, ns=(time.time_ns(), time.time_ns() + 10**9))  # (written to by another program)
    open_store(db).close()
    assert len(ran) == 1
    open_store(db).close()
    assert len(ran) == 1
    crashed = open_store(db)
    start(crashed, golden("terrace-lost"))
    crashed._conn.close()  # (killed: nothing noted as it closes, its log left beside the file)
    try:
        open_store(db, read_only=True).close()
        assert len(ran) == 2
    finally:
        sqlite3.connect(db).close()  # (folds the log, as the next server would)


def test_a_file_the_statistics_of_a_reader_found_sound_is_not_checked_again_until_it_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file no store that may write closed (last written by an older
    Terrace, or by the sqlite3 shell) was checked whole at every ``terrace
    stats``: 1.3 s of CPU at 20,000 games. The statistics of a reader note
    the state in which they found it sound, beside what they found of its
    games; a reader that takes no statistics (``terrace export``) notes
    nothing; a change since, its time set back by hand included, or a log
    beside it has it checked again."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        start(store, golden("terrace-lost"))
    held_note_path().unlink(missing_ok=True)  # (as an older Terrace left it: nothing noted)
    noted = set(findings_folder().glob("*.json")) if findings_folder().exists() else set()
    ran = _checks(monkeypatch)

    def stats() -> None:
        with open_store(db, read_only=True) as reader:
            reader.statistics()

    open_store(db, read_only=True).close()
    assert not held_note_path().exists() and set(findings_folder().glob("*.json")) == noted
    stats()
    stats()
    open_store(db, read_only=True).close()
    assert len(ran) == 2
    written = db.stat().st_mtime_ns
    os.utime(db, ns=(written, written))  # (its time of change as it was: its inode's moved)
    stats()
    stats()
    assert len(ran) == 3
    writer = sqlite3.connect(db)
    writer.execute("UPDATE games SET hints = hints + 1")
    writer.commit()  # (its log beside the file, open: read, never noted)
    try:
        stats()
        stats()
        assert len(ran) == 5
    finally:
        writer.close()


def test_opening_evaluates_no_check_constraint_and_they_hold_after(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The check at opening evaluated every row's CHECK constraints, six
    sevenths of its CPU, to log a row that every read of its game refuses
    anyway; they still hold for what the store writes."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        game_id = start(store, golden("terrace-lost")).id
    hand = sqlite3.connect(db, isolation_level=None)
    hand.execute("PRAGMA ignore_check_constraints = ON")
    hand.execute("UPDATE games SET hints = -7 WHERE id = ?", (game_id,))
    hand.close()
    with open_store(db) as store:
        assert "constraint" not in caplog.text  # (nothing found: not looked for)
        found = store._conn.execute("PRAGMA quick_check").fetchall()
        assert found == [("CHECK constraint failed in games",)]  # (the same connection, as opened)
        with pytest.raises(DamagedGameError):
            store.get(game_id)
        with pytest.raises(sqlite3.IntegrityError):
            store._conn.execute("UPDATE games SET undos = -1 WHERE id = ?", (game_id,))


def test_a_new_file_made_where_one_was_deleted_is_not_taken_for_it_emptied(tmp_path: Path) -> None:
    """``rm games.sqlite; touch games.sqlite`` often gives the new file the
    deleted one's inode number (ext4 hands it out again; here the note is
    pointed at the new file's number, as another process may take the
    freed one first): noted by device and inode, the new file was refused
    as "emptied since"."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        start(store, golden("terrace-lost"))
    db.unlink()
    db.touch()
    if held.birth_ns(db) is None:
        pytest.skip("this file system tells no time of birth")
    note = held_note_path()
    notes = json.loads(note.read_text())
    notes[os.path.realpath(db)][1] = db.stat().st_ino
    note.write_text(json.dumps(notes))
    with open_store(db) as store:
        assert store.game_ids() == []


def test_a_server_killed_before_it_closed_still_noted_its_games(tmp_path: Path) -> None:
    """A server killed (SIGKILL, a power cut) noted nothing of a file it
    made: the file emptied afterwards became a new, empty database. A game
    added notes the count (the second here, within NOTE_SECONDS of the
    first, does not: a burst of games notes its first)."""
    db = tmp_path / "games.sqlite"
    killed = open_store(db)
    start(killed, golden("terrace-lost"))
    start(killed, golden("terrace-won"))
    killed._conn.close()  # (no close of the store: nothing noted then)
    sqlite3.connect(db).close()  # (its log folded in, as the next opening does)
    os.truncate(db, 0)
    noted = r"^games\.sqlite is empty: Terrace last noted 1 saved game in it \(as it closed it, or as a game"
    with pytest.raises(StoreError, match=noted):
        open_store(db)
    assert db.stat().st_size == 0


def _verdict_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The read-only connections (the check's) opened from now on."""
    opened: list[str] = []
    connect = sqlite3.connect

    def counted(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if "mode=ro" in str(database):
            opened.append(str(database))
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", counted)
    return opened


def test_a_verdict_cache_found_sound_is_not_checked_again_until_it_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """check_verdict_cache read the whole cache (quick_check) at every
    deal --winnable and survey. Found sound, or closed by a store that
    opened it so, it is not read again; changed by another program, it is."""
    from terrace.rules import Rules
    from terrace.solver.verdicts import Verdict, VerdictStore
    from terrace.storage.files import check_verdict_cache

    cache = tmp_path / "solver.sqlite3"
    VerdictStore(str(cache)).close()
    os.utime(cache, ns=(time.time_ns(), time.time_ns() + 10**9))  # (written to by another program)
    checks = _verdict_checks(monkeypatch)
    check_verdict_cache(cache)
    check_verdict_cache(cache)
    assert len(checks) == 1
    store = VerdictStore(str(cache))
    store.put(Rules(), 1, Verdict("won", 10, 0.1, 1.0))
    store.close()
    check_verdict_cache(cache)
    assert len(checks) == 1
    os.utime(cache, ns=(time.time_ns(), time.time_ns() + 2 * 10**9))
    check_verdict_cache(cache)
    assert len(checks) == 2


def test_an_import_killed_midway_noted_the_games_it_added(tmp_path: Path) -> None:
    """An import noted the file's games only as the store closed it: one
    killed midway (SIGKILL, a power cut) noted nothing, and its file
    emptied afterwards became a new, empty database. Each chunk written
    notes the count (at most once in NOTE_SECONDS, as a game made does)."""
    db = tmp_path / "games.sqlite"
    source = open_store(":memory:")
    games = [source.get(start(source, golden(name)).id) for name in ("terrace-lost", "terrace-won")]
    killed = open_store(db)
    killed.add_games(games)
    killed._conn.close()  # (no close of the store: nothing noted then)
    sqlite3.connect(db).close()  # (its log folded in, as the next opening does)
    os.truncate(db, 0)
    with pytest.raises(StoreError, match=r"^games\.sqlite is empty: Terrace last noted 2 saved games in it"):
        open_store(db)


def test_a_file_refused_as_emptied_is_refused_in_english_and_german(tmp_path: Path, emptied_db: Path) -> None:
    """The refusals of a file at opening were English words only, where the
    other refusals are coded with English and German."""
    note = held_note_path()
    note_held(emptied_db, 3, note)
    os.truncate(emptied_db, 0)
    with pytest.raises(StoreError) as refused:
        open_store(emptied_db)
    reason = refused.value.reason
    assert reason is not None and str(refused.value) == reason.text("en")
    assert reason.text("de").startswith(
        "games.sqlite ist leer: Terrace hat zuletzt 3 gespeicherte Spiele darin vermerkt")
    assert str(refused.value).startswith("games.sqlite is empty: Terrace last noted 3 saved games in it")


def test_stats_beside_a_running_server_need_not_check_the_file_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """terrace stats on the file a server holds open found its log and
    checked the whole file at every run (1.3 s at 510 MB). The server notes
    that it found the file sound as it opened it; a reader that finds that
    process still holding the file (its lock on the -shm index) skips the
    check; once the server is gone, it checks again."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        start(store, golden("terrace-lost"))
    ready, go = os.pipe(), os.pipe()
    server = os.fork()
    if server == 0:  # (the server: opens the file, adds a game, holds it open)
        try:
            held_open = open_store(db)
            start(held_open, golden("terrace-won"))
            os.write(ready[1], b"1")
            os.read(go[0], 1)
        finally:
            os._exit(0)
    try:
        assert os.read(ready[0], 1) == b"1"
        assert Path(f"{db}-wal").stat().st_size > 0
        ran = _checks(monkeypatch)
        with open_store(db, read_only=True) as reader:
            assert len(reader.game_ids()) == 2
        assert ran == []
    finally:
        os.write(go[1], b"1")
        os.waitpid(server, 0)
    open_store(db, read_only=True).close()  # (the server gone without closing: its log left)
    assert len(ran) == 1
