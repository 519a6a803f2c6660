"""What the statistics cost grows with the number of games, not with the
length of their logs."""

from __future__ import annotations

import sqlite3
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

from store_support import no_default_db, play, quick_finish, sqlite_steps
from terrace.storage import SqliteStore, open_store, rows
from terrace.storage.migrations import LATEST_VERSION, lines_trusted
from terrace.storage.sqlite import SUMMARIES_KEPT
from test_store_many_games import _cloned

_ = no_default_db


def _statistics_steps(store: SqliteStore) -> tuple[int, dict[str, Any]]:
    """SQLite's steps (in hundreds) for the statistics, and the statistics."""
    return sqlite_steps(store, store.statistics)


def _fresh_statistics(db: Path) -> dict[str, Any]:
    with open_store(db, read_only=True) as reader:
        return reader.statistics()


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


def test_the_statistics_read_again_only_the_games_changed_since(tmp_path: Path) -> None:
    """Each statistics read every game's row and log again (5.4 s of CPU
    at 100,000 games), though nothing changed since the last: now they
    read nothing then, and after this store changed a game, that game."""
    db = tmp_path / "games.sqlite"
    _cloned(db, 24)
    with open_store(db) as store:
        first, found = _statistics_steps(store)
        again, same = _statistics_steps(store)
        assert same == found and found["overall"]["abandoned"] == 23
        assert again <= 2, (first, again)
        game = store.get(store.game_ids()[0])
        play(store, game, [str(next(iter(game.board().legal_moves)))])
        changed, after = _statistics_steps(store)
        assert changed < first / 4, (first, changed)
        assert after == _fresh_statistics(db) != found  # (the oldest game is the one played last)
        other = sqlite3.connect(db)
        with other:
            other.execute("UPDATE games SET hints = 7 WHERE id = ?", (store.game_ids()[1],))
        other.close()
        assert store.statistics() == _fresh_statistics(db)
        assert store.statistics()["overall"]["hints"] == 7


def test_the_recent_games_are_ordered_again_only_after_a_change(tmp_path: Path) -> None:
    """The recent games' order read every game's row and log (1.1 to 2.1 s
    of CPU at 100,000 games) each time the statistics dialog opened."""
    db = tmp_path / "games.sqlite"
    _cloned(db, 60)
    with open_store(db) as store:
        found = store.recent(3)
        ordering, _ = sqlite_steps(store, lambda: store._conn.execute(rows.RECENT_ORDER, (3,)).fetchall())
        again, same = sqlite_steps(store, lambda: store.recent(3))
        assert [g.id for g in same] == [g.id for g in found]
        assert again < ordering / 2, (ordering, again)
        oldest = store.get(store.game_ids()[0])
        play(store, oldest, [str(next(iter(oldest.board().legal_moves)))])
        assert store.recent(3)[0].id == oldest.id


def test_the_statistics_kept_are_those_of_a_few_time_zones(tmp_path: Path) -> None:
    """A page may name any of some 600 time zones: the statistics kept for
    the next request are those of the last few named, not of every one."""
    db = tmp_path / "games.sqlite"
    _cloned(db, 3)
    zones = [timezone(timedelta(hours=h)) for h in range(-6, 7)]
    with open_store(db) as store:
        for zone in zones:
            assert store.statistics(zone)["overall"]["abandoned"] == 2
        assert store._tally is not None and list(store._tally.summaries) == zones[-SUMMARIES_KEPT:]
