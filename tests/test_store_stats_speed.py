"""What the statistics cost grows with the number of games, not with the
length of their logs."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from store_support import no_default_db, quick_finish
from terrace.storage import SqliteStore, open_store
from terrace.storage.migrations import LATEST_VERSION, lines_trusted

_ = no_default_db


def _steps(store: SqliteStore, read: Callable[[], Any]) -> tuple[int, Any]:
    """SQLite's steps (in hundreds) for ``read``, and what it gave."""
    counted = [0]

    def step() -> int:
        counted[0] += 1
        return 0

    store._conn.set_progress_handler(step, 100)
    try:
        found = read()
    finally:
        store._conn.set_progress_handler(None, 100)
    return counted[0], found


def _statistics_steps(store: SqliteStore) -> tuple[int, dict[str, Any]]:
    """SQLite's steps (in hundreds) for the statistics, and the statistics."""
    return _steps(store, store.statistics)


def _log_lengthened(db: Path, entries: int) -> None:
    """``entries`` hints logged in the won game's log before its winning
    move (ids below it, at the time of its import)."""
    conn = sqlite3.connect(db, isolation_level=None)
    (game_id, last, at) = conn.execute(
        "SELECT game_id, id, (SELECT min(at) FROM events) FROM events ORDER BY id DESC LIMIT 1").fetchone()
    conn.execute("BEGIN")
    conn.execute("UPDATE events SET id = ? WHERE id = ?", (last + entries + 1, last))
    conn.executemany("INSERT INTO events (id, game_id, revision, action, move, move_count, at) "
                     "VALUES (?, ?, 0, 'hint', NULL, 0, ?)",
                     [(last + n, game_id, at) for n in range(entries)])
    conn.execute("COMMIT")
    conn.close()


def test_the_statistics_find_a_result_in_the_log_without_reading_the_log_before_it(tmp_path: Path) -> None:
    """Where a game was won in the log (the first entry at its time) was
    found by reading its log from the start up to there: 3.5 s of the
    statistics' CPU at 100,000 games of 190 entries. Since schema 12 it is
    one look-up in an index: 3,000 more entries cost no more steps."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        quick_finish(store, "terrace-won")
    results = []
    for entries in (0, 3_000):
        if entries:
            _log_lengthened(db, entries)
        with open_store(db) as store:
            assert store.schema_version == LATEST_VERSION
            results.append(_statistics_steps(store))
    (short, before), (long, after) = results
    assert before["overall"]["won"] == after["overall"]["won"] == 1
    assert before["overall"]["days"] == after["overall"]["days"]
    assert long < short + 20, (short, long)


def test_a_database_of_schema_11_is_upgraded_with_its_games_counted_alike(tmp_path: Path) -> None:
    """Schema 12 adds an index only: a file of schema 11 with games reads
    the same before and after its upgrade, and a command that only reads
    takes it as it stands."""
    db = tmp_path / "games.sqlite"
    with SqliteStore(db, migrate_to=11) as store:
        quick_finish(store, "terrace-won")
        quick_finish(store, "terrace-lost")
    with open_store(db, read_only=True) as reader:
        assert reader.schema_version == 11
        before = reader.statistics()
    with open_store(db) as store:
        assert store.migrations_applied == [12]
        indexes = {n for (n,) in store._conn.execute("SELECT name FROM sqlite_schema WHERE type = 'index'")}
        assert "events_by_time" in indexes
        assert lines_trusted(store._conn)  # (the index leaves every line's count as it was)
        assert store.statistics() == before
    assert before["overall"]["won"] == 1 and before["overall"]["lost"] == 1
