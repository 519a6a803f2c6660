"""Storage faults: a full disk, a read-only file, a damaged game, a file
that is not a database. Each gives one clear message that names no folder,
changes nothing, and leaves no ``-wal`` or ``-shm`` file behind."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import GOLDEN, fill, full_disk, golden, locked_by_another, no_default_db, play, start
from terrace.cli import main
from terrace.storage import SqliteStore, StoreError, StoreWriteError, open_store
from terrace.storage import base as storage_base
from terrace.storage.files import check_verdict_cache, sql_error
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.web.app import create_app

_ = no_default_db
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite"


def fill_up(store: SqliteStore) -> None:
    """Let the database grow no more: the next write that needs a new page
    fails as on a full disk (SQLITE_FULL)."""
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")


def play_until_full(store: SqliteStore, limit: int = 2000) -> tuple[Any, StoreWriteError]:
    """Play the long golden game on a full database until a move is refused."""
    record = golden("falling-star-won")
    game = start(store, record)
    fill_up(store)
    board = game.board()
    for move in record.moves[:limit]:
        board.push_text(move)
        revision = game.revision
        game.sync(board)
        try:
            store.update(game, expected_revision=revision, action="move")
        except StoreWriteError as error:
            return game, error
    raise AssertionError("the database never filled up")


def test_a_move_on_a_full_disk_is_refused_and_changes_nothing(db: Path) -> None:
    with open_store(db) as store:
        game, error = play_until_full(store)
        assert str(error) == "the move was not saved: the disk is full" and error.fault == "full"
        stored = store.get(game.id)
        assert stored.revision == game.revision == len(stored.moves)
        assert stored.moves == game.moves[:-1]
        assert [e["action"] for e in store.history(game.id)][-1] == "move"
        # Room again: the same move is stored, and nothing was lost.
        store._conn.execute("PRAGMA max_page_count = 1000000")
        store.update(game, expected_revision=game.revision, action="move")
        assert store.get(game.id).moves == game.moves
    with open_store(db) as again:
        assert again.get(game.id).moves == game.moves
        assert again._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_the_web_game_answers_507_when_the_disk_is_full(db: Path) -> None:
    with open_store(db) as store:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(store), base_url=LOCAL)
        record = golden("falling-star-won")
        assert record.deal.number is not None
        game = client.post("/api/games", json={
            "variant": "falling-star", "deal_number": record.deal.number,
            "options": {"spaces": "free", "foundation_return": True},
        }).json()
        fill_up(store)
        answer = None
        for count, move in enumerate(record.moves):
            answer = client.post(f"/api/games/{game['id']}/moves", json={"move": move, "after": count})
            if answer.status_code != 200:
                break
        assert answer is not None and answer.status_code == 507
        assert answer.json() == {"error": "the move was not saved: the disk is full",
                                     "code": "not-saved-disk-full"}
        assert client.get(f"/api/games/{game['id']}/line").json()["moves"] == list(record.moves[:count])
        refused = client.post("/api/games", json={"variant": "wood"})
        assert refused.status_code == 507
        assert refused.json()["error"] == "the new game was not saved: the disk is full"



def _web_game(store: SqliteStore) -> tuple[TestClient, str]:
    """A web client on ``store`` and the id of a new game of Wood (deal 2)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = TestClient(create_app(store), base_url=LOCAL)
    return client, client.post("/api/games", json={"variant": "wood", "deal_number": 2}).json()["id"]


def test_a_move_refused_as_busy_says_it_was_not_saved_in_both_languages(
        db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that waited out the busy timeout said only "the database
    games.sqlite is busy", as a read does (German "Die Datenbank ist gerade
    nicht benutzbar (...)"): not whether the move was kept."""
    from terrace.storage import sqlite as sqlite_module
    monkeypatch.setattr(sqlite_module, "BUSY_TIMEOUT_SECONDS", 0.2)
    with open_store(db) as store:
        client, game_id = _web_game(store)
        with locked_by_another(db):
            answers = [client.post(f"/api/games/{game_id}/moves", json={"move": "s"},
                                   headers={"Accept-Language": language}) for language in ("en", "de")]
        assert [(a.status_code, a.json()["code"]) for a in answers] == [(503, "not-saved")] * 2
        assert [a.json()["error"] for a in answers] == [
            "the move was not saved: the database games.sqlite is busy (another program holds it); try again",
            "Der Zug wurde nicht gespeichert: games.sqlite ist von einem anderen Programm belegt; bitte "
            "gleich noch einmal versuchen."]
        assert client.get(f"/api/games/{game_id}/line").json()["moves"] == []
        assert client.post(f"/api/games/{game_id}/moves", json={"move": "s"}).status_code == 200


class _LockedOut:
    """A connection whose transactions SQLite cannot begin because another
    process holds the read locks of the log's index: SQLite tries for
    about 10 s, then says "locking protocol" (SQLITE_PROTOCOL)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("BEGIN"):
            error = sqlite3.OperationalError("locking protocol")
            error.sqlite_errorname = "SQLITE_PROTOCOL"
            raise error
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def test_a_database_whose_read_locks_another_program_holds_is_said_so_and_nothing_is_lost(db: Path) -> None:
    """Every request failed with SQLite's own words: "the database
    games.sqlite failed: locking protocol" (German "... meldet einen Fehler
    (SQLite: locking protocol)"). Real readers share the locks (eight
    processes each holding a read of its own snapshot let a write and a
    new read go on at once); a process stopped while it held one
    exclusively, or a tool locking the file to copy it, does this."""
    with open_store(db) as store:
        client, game_id = _web_game(store)
        game = store.get(game_id)
        board = game.board()
        board.push_text("s")
        revision = game.revision
        game.sync(board)
        sound, store._conn = store._conn, _LockedOut(store._conn)  # type: ignore[assignment]
        try:
            read, move = (client.request(method, f"/api/games/{game_id}{path}", json=body,
                                         headers={"Accept-Language": language})
                          for method, path, body, language in (("GET", "", None, "de"),
                                                               ("POST", "/moves", {"move": "s"}, "en")))
            with pytest.raises(StoreWriteError) as refused:
                store.update(game, expected_revision=revision, action="move")
        finally:
            store._conn = sound
        assert [(a.status_code, a.json()["code"]) for a in (read, move)] == [(503, "store-unavailable")] * 2
        assert read.json()["error"] == (
            "Die Datenbank ist gerade nicht benutzbar (games.sqlite lässt sich gerade nicht lesen: Ein "
            "anderes Programm hält die Lesesperren ihrer Indexdatei mit der Endung -shm zu lange, etwa ein "
            "mit Strg+Z angehaltenes Programm oder ein Werkzeug, das die Dateien beim Kopieren sperrt; kein "
            "gespeichertes Spiel ging verloren, bitte das Programm weiterlaufen lassen oder beenden und dann "
            "noch einmal versuchen).")
        assert move.json()["error"] == (
            "the database games.sqlite cannot be read now: another program has held the read locks of "
            "its index file (-shm) too long, one stopped with Ctrl+Z or a tool that locks the files it "
            "copies; no saved game was lost: let that program go on or end it, then try again")
        assert refused.value.text("en") == "the move was not saved: " + move.json()["error"]
        german = refused.value.text("de")
        assert german.startswith("Der Zug wurde nicht gespeichert: games.sqlite lässt sich gerade nicht ")
        assert client.get(f"/api/games/{game_id}/line").json()["moves"] == []



def test_a_database_emptied_between_two_runs_is_refused_not_taken_for_a_new_one(db: Path) -> None:
    """A file cut to 0 bytes while Terrace was not running (a slip of the
    shell's ``>``) opened as a new, empty database without a word: the
    saved games and the statistics were gone, and nothing said so. A file
    that never held a game (made by ``touch``, or one whose games were all
    there is none) still opens silently, and so does the one made anew
    once the emptied file is deleted."""
    with open_store(db) as store:
        start(store, golden("terrace-lost"))
    os.truncate(db, 0)
    words = ("Error: games.sqlite is empty: Terrace last noted 1 saved game in it (as it closed it, or "
             "as a game was added), and something emptied it since (cut it to 0 bytes), so the games "
             "saved in it are gone from it; it was left as it is: move it away and restore a backup "
             "(terrace import), or delete it to start a new database")
    for command in (["stats"], ["import", str(GOLDEN / "terrace-won.json")], ["play", "--port", "0"]):
        result = CliRunner().invoke(main, [*command, "--db", str(db)])
        assert (result.exit_code, result.output.strip().splitlines()[-1]) == (1, words), command
    assert files_in(db.parent) == {"games.sqlite"} and db.stat().st_size == 0
    db.unlink()
    with open_store(db) as store:
        assert store.game_ids() == []
    os.truncate(db, 0)  # (it held no game: nothing is lost)
    open_store(db).close()


def test_a_database_emptied_while_in_use_says_so_and_is_refused_at_the_next_start(db: Path) -> None:
    """Emptied under a running server, the file was said to be "written
    over (a backup copied in?)", and the next start opened it as a new,
    empty database without a word."""
    with open_store(db) as store:
        client, game_id = _web_game(store)
        client.post(f"/api/games/{game_id}/moves", json={"move": "s"})
        game = store.get(game_id)
        board = game.board()
        board.push_text("s")
        revision = game.revision
        game.sync(board)
        os.truncate(db, 0)
        read = client.get(f"/api/games/{game_id}")
        move = client.post(f"/api/games/{game_id}/moves", json={"move": "s"},
                           headers={"Accept-Language": "de"})
        with pytest.raises(StoreWriteError) as refused:
            store.update(game, expected_revision=revision, action="move")
    assert [(a.status_code, a.json()["restart"]) for a in (read, move)] == [(503, True)] * 2
    assert read.json()["error"] == (
        "the database games.sqlite cannot be used: another program emptied it (cut it to 0 bytes) while in "
        "use, and the games saved in it are gone from it; nothing more is saved there: stop Terrace, and "
        "restore a backup or start a new database (Terrace says how when it starts again)")
    assert move.json()["error"] == (
        "Die Datenbank ist gerade nicht benutzbar (games.sqlite: Ein anderes Programm hat sie während "
        "des Betriebs geleert, auf 0 Bytes gekürzt, und die darin gespeicherten Spiele sind daraus "
        "verschwunden; es wird nichts mehr darin gespeichert: bitte Terrace beenden und eine Sicherung "
        "zurückspielen oder eine neue Datenbank beginnen, wie Terrace beim nächsten Start sagt).")
    assert refused.value.text("de") == (
        "Der Zug wurde nicht gespeichert: Ein anderes Programm hat games.sqlite während des Betriebs "
        "geleert, auf 0 Bytes gekürzt, und die darin gespeicherten Spiele sind daraus verschwunden; bitte "
        "Terrace beenden und eine Sicherung zurückspielen oder eine neue Datenbank beginnen, wie Terrace "
        "beim nächsten Start sagt")
    emptied_while_open = (r"^games\.sqlite is empty: another program emptied it \(cut it to 0 bytes\) while "
                          r"Terrace had it open, so the games saved in it are gone")
    with pytest.raises(StoreError, match=emptied_while_open):
        open_store(db, read_only=True)
    assert db.stat().st_size == 0


# -- a read-only database ---------------------------------------------------------


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make ``path``, a file or a folder (no file can be made in it), read-only
    even for root (immutable), or skip."""
    what, modes = ("folder", (0o555, 0o755)) if path.is_dir() else ("file", (0o444, 0o644))
    if os.geteuid() != 0:
        path.chmod(modes[0])
        try:
            yield
        finally:
            path.chmod(modes[1])
        return
    if shutil.which("chattr") is None:
        pytest.skip(f"chattr is needed to make a {what} read-only for root")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"this file system cannot make a {what} immutable")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def files_in(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_a_read_only_database_is_refused_at_start_with_nothing_left_behind(db: Path) -> None:
    record = golden("terrace-won")
    with open_store(db) as store:
        play(store, start(store, record), record.moves[:3])
    before = files_in(db.parent)
    with read_only(db):
        store = open_store(db)  # reading still works (terrace stats, export)
        assert store.statistics()["overall"]["played"] == 1
        with pytest.raises(StoreWriteError) as caught:
            store.check_writable()
        message = str(caught.value)
        assert message.startswith("games cannot be saved in games.sqlite: the database is read-only")
        assert "--db" in message and str(db.parent) not in message
        assert files_in(db.parent) == before
        result = CliRunner().invoke(main, ["play", "--db", str(db), "--no-browser", "--port", "0"])
        assert result.exit_code == 1
        assert result.output.strip().splitlines() == [f"Error: {message}"]
        assert files_in(db.parent) == before


def test_a_database_on_a_read_only_file_system_is_refused_with_the_same_words(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """There even removing a side file that is not there is refused
    (EROFS); the refusal that closed the database is still what is said."""
    record = golden("terrace-won")
    with open_store(db) as store:
        play(store, start(store, record), record.moves[:3])
    unlink = Path.unlink

    def refused(self: Path, missing_ok: bool = False) -> None:
        if self.name.endswith(("-wal", "-shm", "-journal")):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        unlink(self, missing_ok=missing_ok)

    with read_only(db):
        monkeypatch.setattr(Path, "unlink", refused)
        with pytest.raises(StoreWriteError) as caught:
            open_store(db).check_writable()
    said = str(caught.value)
    assert said.startswith("games cannot be saved in games.sqlite: the database is read-only")


def _stats_and_export_read(db: Path, out: Path) -> int:
    """Run terrace stats and terrace export --all on ``db`` (exported to
    ``out``), which must both succeed; the number of records exported."""
    runner = CliRunner()
    stats = runner.invoke(main, ["stats", "--db", str(db)])
    assert stats.exit_code == 0 and "Played" in stats.output, stats.output
    exported = runner.invoke(main, ["export", "--all", "--db", str(db), "-o", str(out)])
    assert exported.exit_code == 0, exported.output
    return len(json.loads(out.read_text()))


def test_a_full_disk_still_lets_stats_and_export_read_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """SQLite has no room for the -shm file it reads through: stats and
    export said "the update of the database's layout was not saved: the
    disk failed"; a refused play or import left an empty database file."""
    record = golden("terrace-won")
    with open_store(tmp_path / "games.sqlite") as store:
        play(store, start(store, record), record.moves)
    with full_disk(tmp_path) as folder:
        db = folder / "games.sqlite"
        shutil.copy(tmp_path / "games.sqlite", db)
        fill(folder)
        before = db.read_bytes()
        assert _stats_and_export_read(db, tmp_path / "out.json") == 1
        for name in ("games.sqlite", "new.sqlite"):
            with pytest.raises(StoreWriteError) as refused:
                open_store(folder / name)
            assert str(refused.value).startswith(f"games cannot be saved in {name}: the disk is full; ")
        assert sorted(p.name for p in folder.iterdir()) == ["filler", "games.sqlite"]
        assert db.read_bytes() == before


def test_a_move_on_a_read_only_database_answers_503(db: Path) -> None:
    with open_store(db) as store:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(store), base_url=LOCAL)
        game = client.post("/api/games", json={"variant": "wood", "deal_number": 2}).json()
        store._conn.execute("PRAGMA query_only = ON")  # as if the file turned read-only
        answer = client.post(f"/api/games/{game['id']}/moves", json={"move": "s"})
        assert answer.status_code == 503
        assert answer.json() == {"error": "the move was not saved: the database is read-only",
                                     "code": "not-saved"}
        store._conn.execute("PRAGMA query_only = OFF")
        assert client.get(f"/api/games/{game['id']}/line").json()["moves"] == []


@pytest.mark.parametrize("how", ["deleted", "moved", "replaced", "log deleted", "folder deleted"])
def test_a_database_taken_away_while_in_use_refuses_every_change(db: Path, how: str) -> None:
    """SQLite goes on writing to the file it has open: every move was
    answered 200 after the file was deleted or replaced, and lost."""
    with open_store(db) as store:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(store), base_url=LOCAL)
        game = client.post("/api/games", json={"variant": "terrace", "deal_number": 7}).json()
        assert client.post(f"/api/games/{game['id']}/moves", json={"move": "c2"}).status_code == 200
        if how == "deleted":
            db.unlink()
        elif how == "moved":
            db.rename(db.with_name("elsewhere.sqlite"))
        elif how == "replaced":
            shutil.copy(db, db.with_name("copy.sqlite"))
            db.with_name("copy.sqlite").replace(db)
        elif how == "log deleted":
            Path(f"{db}-wal").unlink()
        else:
            shutil.rmtree(db.parent)
        answer = client.post(f"/api/games/{game['id']}/moves", json={"move": "s"})
        assert answer.status_code == 503 and answer.json()["code"] == "not-saved"
        # (only a file put in the database's place needs a new start: the rest can be put back)
        assert answer.json().get("restart") is (True if how == "replaced" else None)
        if how == "replaced":  # (nothing to put back: another file is there, which a new start opens)
            assert answer.json()["error"] == (
                "the move was not saved: another program wrote over games.sqlite or put another file in "
                "its place while in use (a backup copied in?); stop Terrace and start it again to open it "
                "as it is now")
        else:
            assert answer.json()["error"] == ("the move was not saved: games.sqlite or its log was moved, "
                                              "replaced or deleted while in use; put it back, or start "
                                              "Terrace again")
        assert client.post("/api/games", json={"variant": "terrace"}).status_code == 503


def test_a_database_a_newer_terrace_upgraded_while_in_use_is_not_written_any_more(db: Path) -> None:
    """The check of the schema's number was made at start only: a server
    went on writing into tables a newer version had changed."""
    from terrace.storage.migrations import LATEST_VERSION, NewerDatabaseError

    record = golden("terrace-won")
    with open_store(db) as store:
        game = start(store, record)
        other = sqlite3.connect(db)
        other.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
        other.close()
        with pytest.raises(NewerDatabaseError, match="was written by a newer version of Terrace"):
            play(store, game, record.moves[:1])
        with pytest.raises(NewerDatabaseError):
            store.get(game.id)


def test_a_log_left_beside_no_database_is_never_thrown_away(db: Path) -> None:
    """With the file deleted while in use, its log held the last changes,
    and the next start made a new database and deleted it."""
    with open_store(db) as store:
        store._conn.execute("PRAGMA wal_autocheckpoint = 0")
        start(store, golden("falling-star-won"))
        log = Path(f"{db}-wal").read_bytes()
        assert log
        db.unlink()
    Path(f"{db}-wal").write_bytes(log)  # (as SQLite leaves it when its file is gone)
    for read_only in (False, True):
        with pytest.raises(StoreError) as refused:
            open_store(db, read_only=read_only)
        assert str(refused.value).startswith(
            "games.sqlite is missing or empty, but its log games.sqlite-wal holds changes")
        assert Path(f"{db}-wal").read_bytes() == log and not db.exists()


# -- a damaged game and clear SQLite errors ----------------------------------------


def test_a_damaged_game_answers_with_the_clear_message(db: Path) -> None:
    record = golden("terrace-won")
    with open_store(db) as store:
        game = start(store, record)
        play(store, game, record.moves[:4])
    hand = sqlite3.connect(db)
    hand.execute("UPDATE games SET status = 'won' WHERE id = ?", (game.id,))
    hand.commit()
    hand.close()
    with open_store(db) as store:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(store), base_url=LOCAL)
        answer = client.get(f"/api/games/{game.id}")
        assert answer.status_code == 500
        assert answer.json()["error"] == (
            f"saved game {game.id} is damaged and cannot be loaded: "
            "it says 'won' but its moves lead to 'playing'"
        )
        moved = client.post(f"/api/games/{game.id}/moves", json={"move": "s"})
        assert moved.status_code == 500 and "is damaged" in moved.json()["error"]
        assert client.get("/api/games").json()["games"] == []  # the list skips it


@pytest.mark.parametrize(
    ("text", "change", "words"),
    [
        ("database or disk is full", "move", "the move was not saved: the disk is full"),
        ("attempt to write a readonly database", "undo",
         "the undo was not saved: the database is read-only"),
        ("disk I/O error", "move", "the move was not saved: the disk failed (input/output error)"),
        ("disk I/O error", None, "the database games.sqlite cannot be used: the disk failed"),
        ("database is locked", None,
         "the database games.sqlite is busy (another program holds it); try again"),
        ("database is locked", "move",
         "the move was not saved: the database games.sqlite is busy (another program holds it); try again"),
        ("locking protocol", None, "the database games.sqlite cannot be read now: another program has held "
                                   "the read locks of its index file (-shm) too long"),
        ("locking protocol", "undo", "the undo was not saved: the database games.sqlite cannot be read now"),
        ("database disk image is malformed", "move", "the move was not saved: games.sqlite is damaged"),
        ("no such table: games", "hint", "the hint was not saved: the database games.sqlite failed: no such"),
        ("database disk image is malformed", None, "games.sqlite is damaged"),
    ],
)
def test_sqlite_failures_become_clear_errors(text: str, change: str | None, words: str) -> None:
    error = sql_error("games.sqlite", sqlite3.OperationalError(text), change)
    assert str(error).startswith(words)
    assert isinstance(error, StoreWriteError) == (change is not None)


def test_no_refusal_names_the_folders(tmp_path: Path) -> None:
    folder = tmp_path / "deep" / "inside"
    folder.mkdir(parents=True)
    notes = folder / "notes.sqlite"
    notes.write_text("not a database\n" * 20)
    with pytest.raises(StoreError) as caught:
        open_store(notes)
    assert str(caught.value).startswith("notes.sqlite is not a Terrace database")
    assert str(folder) not in str(caught.value)
    blocked = folder / "file"
    blocked.write_text("")
    with pytest.raises(StoreError) as caught:
        open_store(blocked / "games.sqlite")
    assert "games.sqlite" in str(caught.value) and str(folder) not in str(caught.value)


# -- the solver's verdict cache -------------------------------------------------------


def test_a_verdict_cache_that_is_not_one_gives_one_clear_line(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n" * 50)
    games = tmp_path / "games.sqlite"
    open_store(games).close()
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"SQLite format 3\x00" + bytes(84) + os.urandom(8000))
    cases = [
        (notes, "notes.txt is not a verdict cache (not an SQLite file)"),
        (games, "games.sqlite is a database of saved games, not a verdict cache"),
        (damaged, "damaged.sqlite3 is damaged"),
    ]
    for path, words in cases:
        before = path.read_bytes()
        for args in (
            ["deal", "--winnable", "--variant", "falling-star", "--verdicts-db", str(path)],
            ["deal", "--winnable", "--variant", "falling-star", "--db", str(path)],
            ["survey", "--variant", "falling-star", "--deals", "1-2", "--verdicts-db", str(path),
             "--out", str(tmp_path / "out")],
        ):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 1, (args, result.output)
            errors = [line for line in result.stderr.splitlines() if not line.startswith("note:")]
            assert errors == [f"Error: {words}"] or (
                errors[0].startswith(f"Error: {words}") and len(errors) == 1
            ), errors
            assert "Traceback" not in result.output
        plain = CliRunner().invoke(main, ["deal", "-n", "3", "--verdicts-db", str(path)])
        assert plain.exit_code == 2  # without --winnable the cache is no use: refused, never opened
        assert path.read_bytes() == before
        assert files_in(tmp_path) >= {path.name} and not any(
            name.startswith(path.name + "-") for name in files_in(tmp_path)
        )


def test_a_verdict_cache_that_is_not_one_refuses_a_winnable_web_game_in_one_line(tmp_path: Path) -> None:
    """The web game's winnable deal opens the verdict cache beside the
    games (in a solver process): a text file or a damaged SQLite file
    there was answered 500 server-error, and a games database there was
    a 400 naming every folder above it, shown in the browser (in remote
    play, another device's); each is a 503 ``store-unavailable`` now,
    naming the file only."""
    store = open_store(tmp_path / "games.sqlite")
    cache = Path(store.verdicts_path)
    games = tmp_path / "other.sqlite"
    open_store(games).close()
    contents = [
        b"hello\n" * 50,
        b"SQLite format 3\x00" + bytes(84) + os.urandom(8000),
        games.read_bytes(),
    ]
    with TestClient(create_app(store), base_url=LOCAL) as client:
        for content in contents:
            cache.write_bytes(content)
            answer = client.post("/api/games", json={"winnable": True, "deal_number": 1})
            assert answer.status_code == 503, answer.text
            assert answer.json()["code"] == "store-unavailable"
            assert cache.name in answer.json()["error"] and str(tmp_path) not in answer.json()["error"]
            assert cache.read_bytes() == content  # (left unchanged)
    store.close()


def test_a_winnable_web_game_waits_for_a_locked_verdict_cache_within_its_budget(tmp_path: Path) -> None:
    """The search opened the cache waiting up to 30 s for another
    program's lock: a 1 s search was stopped by the server after 12 s
    (its budget, a worker's start and its cancel) and answered 503
    ``solver-stopped``, its worker replaced; it waits within its budget
    now, and says that the cache is busy."""
    store = open_store(tmp_path / "games.sqlite")
    app = create_app(store, winnable_seconds=1.0)
    app.state.game.pool.start()
    with TestClient(app, base_url=LOCAL) as client:
        # (the cache made and the worker started first: a worker may take over 1 s to start)
        deadline = time.monotonic() + 60
        body = {"winnable": True, "deal_number": 1}
        while (first := client.post("/api/games", json=body)).status_code != 201:
            assert time.monotonic() < deadline, first.text
        holder = sqlite3.connect(store.verdicts_path)
        holder.isolation_level = None
        holder.execute("BEGIN EXCLUSIVE")
        try:
            started = time.monotonic()
            answer = client.post("/api/games", json={"winnable": True, "deal_number": 100})
            took = time.monotonic() - started
        finally:
            holder.execute("ROLLBACK")
            holder.close()
    store.close()
    assert answer.status_code == 503, answer.text
    assert answer.json() == {"code": "store-unavailable", "error":
                             "the verdict cache solver.sqlite3 is busy (another program holds it): try again"}
    assert took < 6, took


def test_a_verdict_cache_another_program_holds_is_busy_not_damaged(tmp_path: Path) -> None:
    """A survey started while another program held the cache's lock said it
    was damaged, and advised throwing it away."""
    from terrace.storage.files import check_verdict_cache

    cache = tmp_path / "v.sqlite3"
    made = sqlite3.connect(cache)
    made.execute("CREATE TABLE verdicts (x)")
    made.commit()
    made.isolation_level = None
    made.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError) as refused:
            check_verdict_cache(cache)
    finally:
        made.execute("ROLLBACK")
        made.close()
    assert str(refused.value) == "the database v.sqlite3 is busy (another program holds it); try again"
    check_verdict_cache(cache)  # (free again: fine)


def test_a_verdict_cache_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path) -> None:
    # a FIFO would block the first read for good; a device would take a journal beside it
    fifo = tmp_path / "cache.fifo"
    os.mkfifo(fifo)
    # (named by --verdicts-db, either is a usage error before the command
    # runs: test_cli_hostile's test_a_database_option_naming_no_database_file_is_a_usage_error)
    for path in (fifo, Path("/dev/null")):
        with pytest.raises(StoreError) as refused:
            check_verdict_cache(path)
        assert str(refused.value) == f"{path.name} is not a regular file, not a verdict cache file"
    assert not Path("/dev/null-journal").exists()
    assert sorted(files_in(tmp_path)) == ["cache.fifo"]


def _verdict_cache_beside_a_pipe(cache: Path) -> None:
    """A verdict cache at ``cache`` with a pipe as its journal."""
    made = sqlite3.connect(cache)
    made.execute("CREATE TABLE verdicts (x)")
    made.close()
    os.mkfifo(f"{cache}-journal")


def _checked_within(cache: Path, seconds: float) -> list[str]:
    """The refusal of ``cache``'s check, when it comes within ``seconds``
    (a check still waiting then has its pipe's read let go)."""
    found: list[str] = []

    def check() -> None:
        try:
            check_verdict_cache(cache)
        except StoreError as error:
            found.append(str(error))

    checking = threading.Thread(target=check, daemon=True)
    checking.start()
    checking.join(seconds)
    if checking.is_alive():
        os.close(os.open(f"{os.path.realpath(cache)}-journal", os.O_RDWR | os.O_NONBLOCK))
    return found


def test_a_verdict_cache_whose_journal_is_a_pipe_is_refused_at_once(tmp_path: Path) -> None:
    """Its check opened the cache, and SQLite, finding a journal, read the
    pipe: terrace deal --winnable and survey waited for ever."""
    cache = tmp_path / "solver.sqlite3"
    _verdict_cache_beside_a_pipe(cache)
    assert _checked_within(cache, 5.0) == [
        "solver.sqlite3-journal, where SQLite keeps the journal of solver.sqlite3, is not a "
        "regular file: move it away; solver.sqlite3 was left untouched"]


def test_a_verdict_cache_linked_to_a_file_whose_journal_there_is_a_pipe_is_refused_at_once(
        tmp_path: Path) -> None:
    """The check looked for side files beside the link, not beside the file
    it names, where SQLite keeps them: a pipe there as the journal kept
    terrace deal --winnable waiting for ever."""
    (tmp_path / "elsewhere").mkdir()
    _verdict_cache_beside_a_pipe(tmp_path / "elsewhere" / "cache.db")
    cache = tmp_path / "solver.sqlite3"
    cache.symlink_to(tmp_path / "elsewhere" / "cache.db")
    assert _checked_within(cache, 2.0) == [
        "cache.db-journal, where SQLite keeps the journal of solver.sqlite3, is not a "
        "regular file: move it away; solver.sqlite3 was left untouched"]


def test_statistics_survive_junk_already_stored(db: Path) -> None:
    record = golden("terrace-won")
    with open_store(db) as store:
        for _ in range(4):
            play(store, start(store, record), record.moves[:2])
        ids = store.game_ids()
    hand = sqlite3.connect(db)
    hand.execute("PRAGMA ignore_check_constraints = ON")
    junk = [
        ("finished_at = 1e15, status = 'lost'", ids[0]),
        ("hints = 1e30, undos = 'many', started_at = 'soon'", ids[1]),
        ("created_at = 9e999, updated_at = -9e999, variant = 7, status = 'won'", ids[2]),
    ]
    for assignment, game_id in junk:
        hand.execute(f"UPDATE games SET {assignment} WHERE id = ?", (game_id,))
    hand.commit()
    hand.close()
    result = CliRunner().invoke(main, ["stats", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "3 damaged games are left out" in result.output
    assert "Losing" in result.output  # the table keeps its losing streaks
    data = json.loads(CliRunner().invoke(main, ["stats", "--db", str(db), "--json"]).stdout)
    # The games a read refuses (export --all skips them) are left out, and counted.
    assert (data["overall"]["played"], data["damaged"]) == (1, 3)
    with open_store(db) as store:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(store), base_url=LOCAL)
        answer = client.get("/api/stats")
        assert answer.status_code == 200 and answer.json()["overall"]["played"] == 1
        assert (answer.json()["damaged"], answer.json()["titles"]) == (3, {"terrace": "Terrace"})
        assert client.get("/api/games").status_code == 200


def test_the_web_game_answers_422_to_a_move_no_later_read_would_accept(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storage_base, "MAX_LINE", 3)
    with open_store(db) as store:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(store), base_url=LOCAL)
        record = golden("terrace-won")
        game = client.post("/api/games", json={
            "variant": "terrace", "deal_number": record.deal.number}).json()
        for count, move in enumerate(record.moves[:4]):
            answer = client.post(f"/api/games/{game['id']}/moves", json={"move": move, "after": count})
        assert answer.status_code == 422
        assert answer.json()["code"] == "game-too-long"
        assert answer.json()["error"].startswith("a game holds at most 3 moves")
        assert client.get(f"/api/games/{game['id']}/line").json()["moves"] == list(record.moves[:3])


@pytest.mark.parametrize("how", ["log deleted", "file deleted", "link pointed elsewhere"])
def test_a_database_named_by_a_symbolic_link_is_watched_where_sqlite_keeps_it(
        tmp_path: Path, how: str) -> None:
    """SQLite follows a link and keeps its -wal beside the file it names;
    the store looked for the log beside the link, so a log deleted while
    in use went unseen and every move after it was answered as saved."""
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "games.sqlite"
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    record = golden("terrace-won")
    with open_store(link) as store:
        game = start(store, record)
        play(store, game, record.moves[:2])
        if how == "log deleted":
            Path(f"{real}-wal").unlink()
        elif how == "file deleted":
            real.unlink()
        else:
            shutil.copy(real, tmp_path / "copy.sqlite")
            link.unlink()
            link.symlink_to(tmp_path / "copy.sqlite")
        said = r"link\.sqlite or put another file in its place" if how == "link pointed elsewhere" else (
            r"link\.sqlite or its log was moved, replaced or deleted")
        with pytest.raises(StoreWriteError, match=said):
            play(store, store.get(game.id), record.moves[2:3])


def test_stats_through_a_symbolic_link_leave_a_pending_log_as_it_is(tmp_path: Path) -> None:
    """The log beside the file a link names was not seen: stats opened the
    file for writing, and folded the log a crashed writer left into it
    (and deleted it)."""
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "games.sqlite"
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    with open_store(link) as store:
        store._conn.execute("PRAGMA wal_autocheckpoint = 0")
        play(store, start(store, golden("falling-star-won")), golden("falling-star-won").moves[:1])
        kept = {name: Path(f"{real}{name}").read_bytes() for name in ("", "-wal")}
        assert kept["-wal"]
    for name, data in kept.items():  # (as a writer killed then leaves them)
        Path(f"{real}{name}").write_bytes(data)
    result = CliRunner().invoke(main, ["stats", "--db", str(link), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["overall"]["played"] == 1
    assert {name: Path(f"{real}{name}").read_bytes() for name in kept} == kept


@pytest.mark.skipif(not Path("/proc/self/mem").is_file(), reason="needs Linux's /proc")
def test_a_database_file_that_reads_as_empty_but_cannot_be_read_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``TERRACE_DB=/proc/self/mem`` (size 0, its first read fails) was taken
    for no database: ``terrace stats`` said "No games played yet", status 0."""
    monkeypatch.setenv("TERRACE_DB", "/proc/self/mem")
    result = CliRunner().invoke(main, ["stats"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: cannot read mem: Input/output error"), result.stderr


@pytest.mark.parametrize(("suffix", "make"), [("-journal", os.mkfifo), ("-wal", os.mkdir)])
def test_a_verdict_store_beside_a_side_file_that_is_no_file_is_refused_at_once(
        tmp_path: Path, suffix: str, make: Any) -> None:
    """The verdict store itself (the web game's search for a winnable deal
    opens it without the command line's check) waited for ever on a pipe
    as its journal, and failed with 'disk I/O error' on a folder as its log."""
    from terrace.solver.verdicts import VerdictCacheError, VerdictStore

    cache = tmp_path / "solver.sqlite3"
    VerdictStore(str(cache)).close()
    make(Path(f"{cache}{suffix}"))
    found: list[VerdictCacheError] = []

    def open_cache() -> None:
        try:
            VerdictStore(str(cache)).close()
        except VerdictCacheError as error:
            found.append(error)

    opening = threading.Thread(target=open_cache, daemon=True)
    opening.start()
    opening.join(5.0)
    what, was = ("a folder", "ist ein Ordner") if make is os.mkdir else (
        "not a regular file", "ist keine gewöhnliche Datei (eine Pipe oder ein Gerät)")
    role, rolle = ("log", "Protokoll") if suffix == "-wal" else ("journal", "Journal")
    assert [(str(error), error.reason.text("de") if error.reason else "") for error in found] == [(
        f"solver.sqlite3{suffix}, where SQLite keeps the {role} of solver.sqlite3, is {what}: move it away; "
        "solver.sqlite3 was left untouched",
        f"solver.sqlite3{suffix}, bei SQLite die Datei „{rolle}“ zu solver.sqlite3, {was}: bitte "
        "beiseitelegen; solver.sqlite3 blieb unverändert")]


def test_a_winnable_web_game_beside_a_verdict_cache_linked_to_dev_null_is_refused_in_one_line(
        tmp_path: Path) -> None:
    """A cache linked to /dev/null (a way to turn a cache off) made the web
    game's search, which opens the cache without the command line's check,
    write /dev/null-journal and fail with a traceback ('disk I/O error')."""
    from terrace.solver.verdicts import VerdictCacheError, VerdictStore

    cache = tmp_path / "solver.sqlite3"
    cache.symlink_to("/dev/null")
    journal_before = Path("/dev/null-journal").exists()
    with pytest.raises(VerdictCacheError) as refused:
        VerdictStore(str(cache))
    assert (str(refused.value), refused.value.reason.text("de") if refused.value.reason else "") == (
        "solver.sqlite3 is not a regular file, not a verdict cache file",
        "solver.sqlite3 ist keine gewöhnliche Datei (eine Pipe oder ein Gerät), keine Datei für den Speicher "
        "des Lösers")
    assert Path("/dev/null-journal").exists() == journal_before


def test_a_file_closed_sound_then_a_full_disk_still_lets_stats_and_export_read(tmp_path: Path) -> None:
    """A file a store closed sound is not checked whole at the next opening,
    whose first read was then its layout's, in a transaction: on a full
    disk (no room for the -shm index) that read failed, its transaction
    ended, and the COMMIT after it said instead "the database
    games.sqlite failed: cannot commit - no transaction is active", so that
    terrace stats and export, which read such a file as it stands, could
    not (the player's backup on a full disk)."""
    record = golden("terrace-won")
    with full_disk(tmp_path) as folder:
        db = folder / "games.sqlite"
        with open_store(db) as store:
            play(store, start(store, record), record.moves[:3])
        fill(folder)
        before = db.read_bytes()
        assert _stats_and_export_read(db, tmp_path / "out.json") == 1
        assert sorted(p.name for p in folder.iterdir()) == ["filler", "games.sqlite"]
        assert db.read_bytes() == before
