"""A restored game's last change made where the backup came from is
logged as a ``restore`` (schema 7), not as a hint; databases restored
before keep their ``hint`` markers and read the same after the upgrade."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import golden, no_default_db, play, start
from terrace.cli import main
from terrace.storage import open_store
from terrace.storage.migrations import LATEST_VERSION, RESTORED, NewerDatabaseError
from terrace.storage.sqlite import SqliteStore
from terrace.storage.transfer import export_record, read_games

_ = no_default_db


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _restored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path, str]:
    """A source database with a game of its own and one imported and played
    there since, its backup, and that backup restored into a new database;
    returns the three paths and the imported game's id."""
    from terrace.storage import MemoryStore

    won, lost = golden("terrace-won"), golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    other = MemoryStore()
    elsewhere = start(other, lost)
    play(other, elsewhere, lost.moves[:3])
    record = export_record(other.get(elsewhere.id))
    clock[0] += 10
    source, fresh, backup = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite", tmp_path / "backup.json"
    with open_store(source) as store:
        mine = start(store, won)
        clock[0] += 10
        play(store, mine, won.moves[:5])
        clock[0] += 10
        [(imported_id, _)] = store.add_games(read_games(json.dumps(record)))
        clock[0] += 10
        imported = store.get(imported_id)
        play(store, imported, lost.moves[3:7])
    monkeypatch.undo()
    assert _cli("export", "--all", "-o", str(backup), "--db", str(source)).exit_code == 0
    assert _cli("import", str(backup), "--db", str(fresh)).output.startswith("imported ")
    return source, fresh, backup, imported_id


def test_a_restore_logs_a_restore_not_a_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The restore logged the last change of a game imported and played
    where the backup came from as a ``hint`` (the log had no action for
    it): its history then showed a hint that was never asked for."""
    _, fresh, _, imported_id = _restored(tmp_path, monkeypatch)
    with open_store(fresh) as store:
        actions = [event["action"] for event in store.history(imported_id)]
        assert actions == ["import", RESTORED]
        assert store.get(imported_id).hints == 0
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == imported_id


def _as_schema_6(restored: Path, old: Path) -> None:
    """Write the games of ``restored`` into a new database of schema 6, as
    the code before schema 7 restored them (its marker a ``hint``)."""
    SqliteStore(old, migrate_to=6).close()
    conn = sqlite3.connect(old, isolation_level=None)
    conn.execute("ATTACH ? AS new", (str(restored),))
    for table in ("games", "moves", "hinted"):
        columns = ", ".join(c for (c,) in conn.execute("SELECT name FROM pragma_table_info(?)", (table,)))
        conn.execute(f"INSERT INTO {table} SELECT {columns} FROM new.{table}")
    conn.execute(
        "INSERT INTO events SELECT id, game_id, revision, "
        f"CASE action WHEN '{RESTORED}' THEN 'hint' ELSE action END, move, move_count, at FROM new.events"
    )
    conn.execute("DETACH new")
    conn.close()


def _rows(db: Path) -> dict[str, list[Any]]:
    """The rows of each table, in the columns of schema 7 (schema 8 adds
    ``games.line_changes``, kept by triggers; schema 11 ``line_digest`` and
    ``line_checked``, kept with the stamps)."""
    with sqlite3.connect(db) as conn:
        def columns(table: str) -> str:
            return ", ".join(c for (c,) in conn.execute("SELECT name FROM pragma_table_info(?)", (table,))
                             if c not in ("line_changes", "line_digest", "line_checked"))
        return {table: conn.execute(f"SELECT {columns(table)} FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("games", "moves", "events", "hinted")}


def test_a_database_restored_before_schema_7_upgrades_and_reads_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source, fresh, backup, imported_id = _restored(tmp_path, monkeypatch)
    old = tmp_path / "old.sqlite"
    _as_schema_6(fresh, old)
    before = _rows(old)
    assert ("hint",) in {(e[3],) for e in before["events"]}
    with open_store(old) as store:
        assert store.migrations_applied == list(range(7, LATEST_VERSION + 1))
        assert store.schema_version == LATEST_VERSION
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == imported_id
    assert _rows(old) == before  # every row kept, the old marker as it was
    stats = [_cli("stats", "--json", "--db", str(db)).output for db in (source, fresh, old)]
    assert stats[2] == stats[1] == stats[0]
    again = tmp_path / "again.json"
    assert _cli("export", "--all", "-o", str(again), "--db", str(old)).exit_code == 0
    assert again.read_bytes() == backup.read_bytes()
    with sqlite3.connect(old) as conn:  # the upgraded log takes the new action
        assert conn.execute("SELECT count(*) FROM pragma_table_info('events')").fetchone()[0] == 7
        conn.execute("INSERT INTO events (game_id, revision, action, move, move_count, at) "
                     f"VALUES (?, 0, '{RESTORED}', NULL, 0, 0)", (imported_id,))


def test_a_database_newer_than_this_program_is_refused_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    open_store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    before = db.read_bytes()
    newer = f"schema {LATEST_VERSION + 1}; this one knows up to {LATEST_VERSION}"
    with pytest.raises(NewerDatabaseError, match=newer):
        open_store(db)
    assert db.read_bytes() == before


@pytest.mark.parametrize("version", [3, 6])
def test_an_event_row_edited_by_hand_does_not_stop_the_upgrade(tmp_path: Path, version: int) -> None:
    """A log row that breaks the table's CHECK (an action set by hand with
    the sqlite3 shell's ``ignore_check_constraints``; the file's check
    passes such a row, whose game alone is in doubt) made the migration
    that copies the events table fail: the database could not be opened
    at all ("CHECK constraint failed: action IN (...)")."""
    from test_store_files import _old_database

    db = _old_database(tmp_path / "games.sqlite", version)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute("UPDATE events SET action = 'bogus' WHERE game_id = 'won' AND move_count = 2")
    conn.execute("UPDATE events SET action = 7 WHERE game_id = 'won' AND move_count = 3")
    conn.close()
    before = _rows(db)["events"]
    with open_store(db) as store:
        assert store.migrations_applied == list(range(version + 1, LATEST_VERSION + 1))
        assert [e["action"] for e in store.history("won")][:5] == ["create", "move", "bogus", "7", "move"]
        assert store.get("open").moves == list(golden("terrace-lost").moves[:7])
        assert store.statistics()["overall"]["played"] == 2
        play(store, store.get("open"), golden("terrace-lost").moves[7:8])
        with pytest.raises(sqlite3.IntegrityError):  # (the constraint holds again for new rows)
            store._conn.execute("INSERT INTO events (game_id, revision, action, move, move_count, at) "
                                "VALUES ('open', 0, 'bogus', NULL, 0, 0)")
    assert _rows(db)["events"][: len(before)] == before
