"""A backup put over games.sqlite while a server has it open.

SQLite reads a file through its log and folds the log into the file when
it closes: a backup copied over the live file was overlaid with the log of
the file it replaced, read as a mix of the two, and written over (or left
damaged) at the close; one moved in its place was overlaid with the old log
at the next start. The store notices, says so, and leaves the copy as it is.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import warnings
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from store_support import no_default_db  # noqa: F401  (autouse)
from terrace.storage import SqliteStore, open_store
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.web.app import create_app


def _client(store: SqliteStore) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestClient(create_app(store), base_url=LOCAL)


def _new_games(client: Any, count: int) -> list[str]:
    made = []
    for number in range(count):
        answer = client.post("/api/games", json={"variant": "terrace", "deal_number": number + 1})
        assert answer.status_code in (200, 201), answer.text
        made.append(answer.json()["id"])
    return made


def _backup_of_two_games(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        kept = _new_games(_client(store), 2)
    backup = tmp_path / "backup.sqlite"
    shutil.copy(db, backup)
    return db, backup, kept


def _games_in(db: Path) -> set[str]:
    with open_store(db) as store:
        return set(store.game_ids())


@pytest.mark.parametrize("how", ["copied over", "moved in its place"])
def test_a_backup_put_over_the_database_while_in_use_is_what_the_next_start_opens(
        tmp_path: Path, how: str) -> None:
    """Before: copied over, the file was damaged at the close ('database disk
    image is malformed'), or held the server's games instead of the backup's;
    moved in its place, the next start read the backup overlaid with the old
    file's log (the server's 14 games, not the backup's 2)."""
    db, backup, kept = _backup_of_two_games(tmp_path)
    with open_store(db) as store:
        store._conn.execute("PRAGMA wal_autocheckpoint = 5")  # (the log folded in as a long session does)
        client = _client(store)
        later = _new_games(client, 12)
        if how == "copied over":
            shutil.copyfile(backup, db)
        else:
            shutil.copy(backup, tmp_path / "restored.sqlite")
            (tmp_path / "restored.sqlite").replace(db)
        moved = client.post(f"/api/games/{later[-1]}/moves", json={"move": "c2"})
        assert moved.status_code == 503
        if how == "moved in its place":  # (the old file is still read, not written)
            assert moved.json()["code"] == "not-saved" and moved.json()["restart"] is True
            assert "another program wrote over games.sqlite or put another file in its place" in (
                moved.json()["error"])
        else:  # (read through the old log, the copy is a mix of two files: not read at all)
            assert moved.json()["code"] == "store-unavailable"
            for language, words in (
                    ("en", "the database games.sqlite cannot be used: another program wrote over it while "
                           "in use (a backup copied in?); stop Terrace and start it again to open it as it "
                           "is now"),
                    ("de", "Ein anderes Programm hat sie während des Betriebs überschrieben, vielleicht "
                           "mit einer Sicherung; bitte Terrace beenden und neu starten")):
                read = client.get("/api/games?recent=20", headers={"Accept-Language": language})
                assert read.status_code == 503 and read.json()["code"] == "store-unavailable"
                assert read.json()["restart"] is True  # (the page does not ask again by itself)
                assert words in read.json()["error"]
    with closing(sqlite3.connect(db)) as check:
        assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert _games_in(db) == set(kept)
    assert (tmp_path / "games.sqlite-wal.replaced").stat().st_size > 0  # (the old log, kept)


def test_a_backup_copied_over_and_the_server_stopped_at_once_is_kept(tmp_path: Path) -> None:
    """No request came between the copy and the stop: the close alone
    folded the old log into the copy (the server's 6 games, not the 2)."""
    db, backup, kept = _backup_of_two_games(tmp_path)
    with open_store(db) as store:
        _new_games(_client(store), 4)
        shutil.copyfile(backup, db)
    assert _games_in(db) == set(kept)


@pytest.mark.parametrize("how", ["copied over", "moved in its place"])
def test_a_change_refused_after_a_backup_was_put_in_says_only_a_new_start_helps(
        tmp_path: Path, how: str) -> None:
    """A change that read nothing first (a new game, a report of playing
    time) was told to 'put it back, or start Terrace again' ('bitte
    zurücklegen'): there is nothing to put back, since the backup is what
    the player wants opened, and only a new start opens it."""
    db, backup, _ = _backup_of_two_games(tmp_path)
    with open_store(db) as store:
        client = _client(store)
        game = _new_games(client, 1)[0]
        if how == "copied over":
            shutil.copyfile(backup, db)
        else:
            shutil.copy(backup, tmp_path / "restored.sqlite")
            (tmp_path / "restored.sqlite").replace(db)
        for language, words in (
                ("en", "the new game was not saved: another program wrote over games.sqlite or put another "
                       "file in its place while in use (a backup copied in?); stop Terrace and start it "
                       "again to open it as it is now"),
                ("de", "Das neue Spiel wurde nicht gespeichert: Ein anderes Programm hat games.sqlite "
                       "während des Betriebs überschrieben oder durch eine andere Datei ersetzt, "
                       "vielleicht mit einer Sicherung; bitte Terrace beenden und neu starten, um die "
                       "Datei so zu öffnen, wie sie jetzt ist.")):
            made = client.post("/api/games", json={"variant": "terrace", "deal_number": 9},
                               headers={"Accept-Language": language})
            assert made.status_code == 503 and made.json()["code"] == "not-saved"
            assert made.json()["restart"] is True
            assert made.json()["error"] == words
            timed = client.post(f"/api/games/{game}/time", json={"ms": 1000},
                                headers={"Accept-Language": language})
            assert timed.status_code == 503
            assert "put it back" not in timed.json()["error"] and "zurücklegen" not in timed.json()["error"]
    assert _games_in(db) == set(_games_in(backup))


def test_two_servers_folding_the_log_in_turn_are_not_taken_for_a_copy(tmp_path: Path) -> None:
    """Each server's changes (and the other's folding of the log into the
    file) are SQLite's own: neither is refused, and the close folds the
    log in as before."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as first, open_store(db) as second:
        for store in (first, second):
            store._conn.execute("PRAGMA wal_autocheckpoint = 3")
        one, two = _client(first), _client(second)
        made = []
        for _ in range(6):
            made += _new_games(one, 2) + _new_games(two, 2)
            assert one.get("/api/games?recent=50").status_code == 200
            assert two.get("/api/games?recent=50").status_code == 200
        assert two.post(f"/api/games/{made[0]}/moves", json={"move": "c2"}).status_code == 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]
    assert _games_in(db) == set(made)


def test_the_log_folded_in_by_another_program_is_not_taken_for_a_copy(tmp_path: Path) -> None:
    """A replication or backup tool, or sqlite3's PRAGMA wal_checkpoint,
    folds the log into the file without changing the database: the file
    changed though no connection wrote. Taken for a copy, every request was
    refused, and the close set the log aside (its moves with it)."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        client = _client(store)
        made = _new_games(client, 3)
        for mode in ("PASSIVE", "TRUNCATE"):
            with closing(sqlite3.connect(db)) as other:
                assert other.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()[0] == 0
            assert client.get("/api/games?recent=20").status_code == 200
            made += _new_games(client, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]
    assert _games_in(db) == set(made)


_WRITER = """
import sys
from terrace.storage import open_store
from terrace.variants import get_rules
from terrace.deal import Deal
store = open_store(sys.argv[1])
store._conn.execute("PRAGMA wal_autocheckpoint = 20")  # (each folds the log in often)
rules = get_rules("terrace")
for number in range(int(sys.argv[2])):
    store.create("terrace", rules, Deal.from_number(number + 1, rules))
    store.recent(3)
store.close()
"""


def test_three_servers_writing_at_once_are_not_taken_for_a_copy(tmp_path: Path) -> None:
    """Each folds the log into the file while the others write and read.
    Seen before: a server that looked at the file while another's fold was
    under way took the rest of it for a copy (3 runs in 6 refused every
    request and set the log aside at the close); one that read the log's
    index by opening it dropped SQLite's locks on it, and another server
    made the index anew under it (SIGBUS)."""
    db = tmp_path / "games.sqlite"
    open_store(db).close()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(db), "250"], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(3)]
    said = [writer.communicate(timeout=600)[0] for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0, 0], said
    assert not any("written over" in words or "replaced" in words for words in said), said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]
    assert len(_games_in(db)) == 750


_STALE_FOLD = """
import os, sys, time
index = os.open(sys.argv[1] + "-shm", os.O_RDWR)
folded = int.from_bytes(os.pread(index, 4, 96), sys.byteorder)
# (what a process killed while folding the log in leaves: a fold begun, never finished)
os.pwrite(index, (folded + 7).to_bytes(4, sys.byteorder), 128)
if sys.argv[2] == "hold":  # (a fold under way: SQLite's checkpoint lock held)
    import fcntl
    fcntl.lockf(index, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 121)
    print("held", flush=True)
    sys.stdin.readline()
os.close(index)
"""


def test_a_backup_copied_over_after_another_writer_was_killed_while_folding_is_noticed(
        tmp_path: Path) -> None:
    """A process killed while it folded the log into the file (another
    server, terrace import: 7 of 12 kills at random of one that writes
    and folds) leaves the log's index saying a fold is under way until the
    next fold, and the check took every change of the file for that fold's:
    a backup copied over it then was written into (a new game answered 201,
    then every read 'database disk image is malformed') and the close left
    it damaged. A fold is under way only while its process holds SQLite's
    checkpoint lock."""
    db, backup, kept = _backup_of_two_games(tmp_path)
    with open_store(db) as store:
        client = _client(store)
        _new_games(client, 3)
        subprocess.run([sys.executable, "-c", _STALE_FOLD, str(db), "die"], check=True)
        _new_games(client, 2)  # (the stale fold seen, and stamped with)
        shutil.copyfile(backup, db)
        made = client.post("/api/games", json={"variant": "terrace", "deal_number": 9})
        assert made.status_code == 503 and made.json()["code"] == "not-saved"
        assert client.get("/api/games?recent=20").json()["code"] == "store-unavailable"
    assert db.read_bytes() == backup.read_bytes()
    assert _games_in(db) == set(kept)


def test_a_fold_under_way_in_another_process_is_not_taken_for_a_copy(tmp_path: Path) -> None:
    """While another process holds the checkpoint lock, the file changes
    with no fold finished yet: that is its fold, not a copy."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        client = _client(store)
        made = _new_games(client, 3)
        folder = subprocess.Popen([sys.executable, "-c", _STALE_FOLD, str(db), "hold"], text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert folder.stdout is not None and folder.stdout.readline() == "held\n"
        try:
            _new_games(client, 1)
            os.utime(db, ns=(db.stat().st_atime_ns, db.stat().st_mtime_ns + 1_000_000))  # (it writes)
            made += _new_games(client, 2)
        finally:
            folder.communicate("\n", timeout=60)
        made += _new_games(client, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]
    assert len(_games_in(db)) == 7


def test_a_backup_copied_over_after_another_server_wrote_and_folded_its_log_is_still_noticed(
        tmp_path: Path) -> None:
    """The other server's change and fold move the file; the store takes
    that as SQLite's own and measures a copy from there: a backup copied
    over afterwards is still refused, not read through the old log."""
    db, backup, _ = _backup_of_two_games(tmp_path)
    with open_store(db) as store, open_store(db) as other:
        client = _client(store)
        later = _new_games(client, 2)
        _new_games(_client(other), 2)
        assert other._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
        assert client.get("/api/games?recent=20").status_code == 200
        _new_games(client, 1)
        shutil.copyfile(backup, db)
        moved = client.post(f"/api/games/{later[-1]}/moves", json={"move": "c2"})
        assert moved.status_code == 503 and moved.json()["code"] == "store-unavailable"


def test_a_database_deleted_while_in_use_is_said_to_be_gone(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        client = _client(store)
        (made,) = _new_games(client, 1)
        db.unlink()
        moved = client.post(f"/api/games/{made}/moves", json={"move": "c2"})
        assert moved.status_code == 503 and moved.json()["code"] == "not-saved"
        assert "games.sqlite or its log was moved, replaced or deleted while in use" in moved.json()["error"]
