"""A database that ``terrace play`` or ``terrace stats`` refuses (not a
database, read-only, written by a newer Terrace) gets no ``-wal`` or
``-shm`` file beside it that was not there before; nor does a read-only
one that ``stats`` reads."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from store_support import golden, no_default_db, play, start
from terrace.cli import main
from terrace.record import GameRecord
from terrace.refusals import Reason, Refusal
from terrace.storage import open_store
from terrace.storage.files import SIDE_ROLES
from terrace.storage.migrations import LATEST_VERSION
from test_store_faults import read_only

_ = no_default_db

COMMANDS = {
    "play": ["play", "--no-browser", "--port", "0", "--db"],
    "stats": ["stats", "--db"],
}


def files_in(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def with_games(db: Path) -> Path:
    """A sound database of ours holding one game three moves in."""
    record = golden("terrace-won")
    with open_store(db) as store:
        play(store, start(store, record), record.moves[:3])
    return db


def newer(db: Path) -> Path:
    with_games(db)
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    return db


def not_a_database(db: Path) -> Path:
    db.write_text("my notes, not a database\n" * 50)
    return db


def run(command: str, db: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*COMMANDS[command], str(db)])
    return result.exit_code, result.output


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(("make", "phrase"), [
    (not_a_database, "not a Terrace database"),
    (newer, "newer version of Terrace"),
], ids=["not a database", "newer schema"])
def test_a_refused_database_gets_no_side_files(
    tmp_path: Path, command: str, make: Callable[[Path], Path], phrase: str
) -> None:
    db = make(tmp_path / "games.sqlite")
    before, content = files_in(tmp_path), db.read_bytes()
    status, output = run(command, db)
    assert status == 1 and phrase in output
    assert files_in(tmp_path) == before
    assert db.read_bytes() == content


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_read_only_database_gets_no_side_files(tmp_path: Path, command: str) -> None:
    db = with_games(tmp_path / "games.sqlite")
    before, content = files_in(tmp_path), db.read_bytes()
    assert before == {"games.sqlite"}
    with read_only(db):
        status, output = run(command, db)
        assert files_in(tmp_path) == before
    assert db.read_bytes() == content
    if command == "play":  # refused: games could not be saved
        assert status == 1 and "the database is read-only" in output
    else:  # read as it stands
        assert status == 0 and "Traceback" not in output
        assert output.splitlines()[2].split()[:2] == ["Terrace", "1"]  # its one game, played


@pytest.mark.parametrize("command", ["stats", "export"])
def test_a_read_only_database_of_an_older_schema_is_read_without_upgrading(
    tmp_path: Path, command: str
) -> None:
    from test_store_files import _old_database
    db = _old_database(tmp_path / "games.sqlite", 3)
    before, content = files_in(tmp_path), db.read_bytes()
    args = {"stats": ["stats", "--db", str(db)], "export": ["export", "--all", "--db", str(db)]}[command]
    with read_only(db):
        result = CliRunner().invoke(main, args)
        assert files_in(tmp_path) == before
    assert db.read_bytes() == content
    assert result.exit_code == 0, result.output
    assert "read-only" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_database_in_a_read_only_folder_gets_no_side_files(tmp_path: Path, command: str) -> None:
    """SQLite cannot make its log there: play refuses in one line, stats reads."""
    folder = tmp_path / "games"
    folder.mkdir()
    db = with_games(folder / "games.sqlite")
    content = db.read_bytes()
    with read_only(folder):
        status, output = run(command, db)
        assert files_in(folder) == {"games.sqlite"}
    assert db.read_bytes() == content
    if command == "play":
        assert status == 1 and "games cannot be saved in games.sqlite" in output
        assert len(output.strip().splitlines()) == 1
    else:
        assert status == 0 and output.splitlines()[2].split()[:2] == ["Terrace", "1"]


def test_a_newer_database_with_a_pending_log_keeps_its_log_and_gets_no_index(tmp_path: Path) -> None:
    """A newer Terrace was killed: its log holds changes and its -shm is gone.
    The log stays (it holds the newer program's moves); no -shm is made."""
    db = with_games(tmp_path / "games.sqlite")
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 2}")
    wal = (tmp_path / "games.sqlite-wal").read_bytes()
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "games.sqlite").write_bytes(db.read_bytes())
    (copy / "games.sqlite-wal").write_bytes(wal)
    conn.close()
    before = files_in(copy)
    assert before == {"games.sqlite", "games.sqlite-wal"}
    for command in sorted(COMMANDS):
        status, output = run(command, copy / "games.sqlite")
        assert status == 1 and f"schema {LATEST_VERSION + 2}" in output
        assert files_in(copy) == before
        assert (copy / "games.sqlite-wal").read_bytes() == wal


def crashed_copy(folder: Path, *, with_index: bool) -> tuple[Path, GameRecord]:
    """``folder/crashed/games.sqlite``: a copy of a database whose writer is
    still open, five moves of the golden Terrace win held in its log only,
    with the log's ``-shm`` index or without it; and that record."""
    live, crashed = folder / "live", folder / "crashed"
    live.mkdir()
    crashed.mkdir()
    record = golden("terrace-won")
    with open_store(live / "games.sqlite") as store:
        play(store, start(store, record), record.moves[:5])
        names = files_in(live) if with_index else {"games.sqlite", "games.sqlite-wal"}
        for name in names:
            shutil.copy(live / name, crashed / name)
    return crashed / "games.sqlite", record


def assert_read_unchanged(result: Result, command: list[str], record: GameRecord, db: Path, content: bytes,
                          log: bytes) -> None:
    """``stats`` or ``export`` read the five moves of :func:`crashed_copy`,
    leaving the file and its log as they were."""
    assert result.exit_code == 0, result.output
    assert db.read_bytes() == content and db.with_name("games.sqlite-wal").read_bytes() == log
    if command[0] == "stats":
        assert result.output.splitlines()[2].split()[:2] == ["Terrace", "1"]
    else:
        (game,) = json.loads(result.output)
        assert game["moves"] == list(record.moves[:5])


@pytest.mark.parametrize("command", [["stats"], ["export", "--all", "-o", "-"]], ids=["stats", "export"])
def test_reading_a_crashed_writers_log_leaves_the_file_and_its_log_as_they_were(
    tmp_path: Path, command: list[str]
) -> None:
    """``stats`` and ``export`` read the moves in a crashed writer's log,
    and neither fold the log into the file nor delete it (opened for
    reading and writing, closing the last connection did both)."""
    db, record = crashed_copy(tmp_path, with_index=True)  # what a power cut leaves
    crashed = db.parent
    assert files_in(crashed) == {"games.sqlite", "games.sqlite-wal", "games.sqlite-shm"}
    content, log = db.read_bytes(), (crashed / "games.sqlite-wal").read_bytes()
    result = CliRunner().invoke(main, [*command, "--db", str(db)])
    assert_read_unchanged(result, command, record, db, content, log)


def test_reading_a_cleanly_closed_database_leaves_no_side_file(tmp_path: Path) -> None:
    db = with_games(tmp_path / "games.sqlite")
    content = db.read_bytes()
    for command in (["stats"], ["export", "--all", "-o", "-"]):
        assert CliRunner().invoke(main, [*command, "--db", str(db)]).exit_code == 0
        assert files_in(tmp_path) == {"games.sqlite"} and db.read_bytes() == content


@pytest.mark.parametrize("command", [["stats"], ["export", "--all", "-o", "-"]], ids=["stats", "export"])
def test_a_log_without_its_index_in_a_read_only_folder_is_read_from_a_copy(
    tmp_path: Path, command: list[str]
) -> None:
    """A crashed writer's log copied without its ``-shm`` index (or left so)
    in a folder that takes no new file (a read-only disk): SQLite cannot
    make the index it reads a log through, and ``stats`` and ``export``
    said only "the database games.sqlite cannot be used: the database file
    cannot be opened". They read the file and its log from a private copy,
    the moves in the log included, and leave both as they were."""
    db, record = crashed_copy(tmp_path, with_index=False)
    crashed = db.parent
    content, log = db.read_bytes(), (crashed / "games.sqlite-wal").read_bytes()
    with read_only(crashed):
        result = CliRunner().invoke(main, [*command, "--db", str(db)])
        assert files_in(crashed) == {"games.sqlite", "games.sqlite-wal"}
    assert_read_unchanged(result, command, record, db, content, log)


def test_a_log_without_its_index_in_a_read_only_folder_is_refused_for_play_saying_why(tmp_path: Path) -> None:
    """``play`` said "the database games.sqlite cannot be used: the
    database file cannot be opened"."""
    db, _ = crashed_copy(tmp_path, with_index=False)
    crashed = db.parent
    with read_only(crashed):
        code, output = run("play", db)
        assert files_in(crashed) == {"games.sqlite", "games.sqlite-wal"}
    assert code == 1, output
    said = "games cannot be saved in games.sqlite: SQLite reads its log games.sqlite-wal through an index"
    assert said in output
    assert "make the folder writable" in output and "Traceback" not in output


SIDE_MADE: dict[str, Callable[[Path], object]] = {
    "a folder": Path.mkdir, "a pipe": os.mkfifo, "a link to /dev/null": lambda p: p.symlink_to("/dev/null")}


@pytest.fixture(scope="module")
def games_content(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a sound database of ours holding one game (made once)."""
    return with_games(tmp_path_factory.mktemp("made") / "games.sqlite").read_bytes()


@pytest.mark.parametrize("kind", sorted(SIDE_MADE))
@pytest.mark.parametrize(("suffix", "role"), SIDE_ROLES)
def test_a_side_file_that_is_no_file_is_said_and_the_database_left_alone(
        tmp_path: Path, games_content: bytes, kind: str, suffix: str, role: Refusal) -> None:
    """SQLite's side file in the shape of a folder, a pipe or a device: play
    said "the database is read-only; make it writable" (a folder as the
    index), "the disk failed (input/output error)" (a pipe) or "the
    database file cannot be opened", and stats "the update of the
    database's layout was not saved: ..." (it writes nothing)."""
    db = tmp_path / "games.sqlite"
    db.write_bytes(games_content)
    SIDE_MADE[kind](tmp_path / f"games.sqlite{suffix}")
    what = "a folder" if kind == "a folder" else "not a regular file"
    words = (f"Error: games.sqlite{suffix}, where SQLite keeps the {Reason(role)} of games.sqlite, is "
             f"{what}: move it away; games.sqlite was left untouched")
    for command in ("stats", "play"):
        code, output = run(command, db)
        assert (code, output.strip().splitlines()[-1]) == (1, words), command
    assert db.read_bytes() == games_content
    assert files_in(tmp_path) == {"games.sqlite", f"games.sqlite{suffix}"}


def test_an_opening_that_only_reads_says_a_fault_as_a_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """stats on a file whose disk failed while a log lay beside it said
    "the update of the database's layout was not saved: the disk failed
    (input/output error)": it writes nothing."""
    from terrace.storage.sqlite import SqliteStore

    db = with_games(tmp_path / "games.sqlite")
    (tmp_path / "games.sqlite-wal").write_bytes(b"")  # (a log beside it: no reading it as it stands)

    def failing(self: SqliteStore, conn: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(SqliteStore, "_check_file", failing)
    code, output = run("stats", db)
    assert (code, output.strip().splitlines()[-1]) == (
        1, "Error: the database games.sqlite cannot be used: the disk failed (input/output error)")
