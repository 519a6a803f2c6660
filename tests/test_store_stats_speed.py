"""What the statistics cost grows with the number of games, not with the
length of their logs."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from store_support import RECENT_ORDER, no_default_db, play, quick_finish, sqlite_steps
from terrace.deal import Deal
from terrace.storage import SqliteStore, open_store, tallying
from terrace.storage import sqlite as sqlite_module
from terrace.storage.memory import MemoryStore
from terrace.storage.migrations import FOUND, FOUND_TRUSTED, LATEST_VERSION, lines_trusted
from terrace.storage.tallying import SUMMARIES_KEPT
from terrace.storage.transfer import export_record, read_games
from terrace.variants import get_rules
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
        assert store.migrations_applied == list(range(12, LATEST_VERSION + 1))
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
    of CPU at 100,000 games) each time the statistics dialog opened, and
    again after each change: now after a change it places again the games
    changed only."""
    db = tmp_path / "games.sqlite"
    _cloned(db, 60)
    with open_store(db) as store:
        found = store.recent(3)
        ordering, _ = sqlite_steps(store, lambda: store._conn.execute(RECENT_ORDER, (3,)).fetchall())
        again, same = sqlite_steps(store, lambda: store.recent(3))
        assert [g.id for g in same] == [g.id for g in found]
        assert again < ordering / 2, (ordering, again)
        oldest = store.get(store.game_ids()[0])
        play(store, oldest, [str(next(iter(oldest.board().legal_moves)))])
        changed, after = sqlite_steps(store, lambda: store.recent(3))
        assert after[0].id == oldest.id and changed < ordering / 4, (ordering, changed)


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


def _checked_games(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[int, int, dict[str, Any]]:
    """The games a new store that only reads checks for its statistics, its
    SQLite steps (in hundreds), and the statistics."""
    checked = [0]
    load = sqlite_module.load_game

    def counted(*args: Any, **kwargs: Any) -> Any:
        checked[0] += 1
        return load(*args, **kwargs)

    for module in (sqlite_module, tallying):  # (a read's checks, and the statistics')
        monkeypatch.setattr(module, "load_game", counted)
    with open_store(path, read_only=True) as reader:
        steps, found = _statistics_steps(reader)
    for module in (sqlite_module, tallying):
        monkeypatch.setattr(module, "load_game", load)
    return checked[0], steps, found


def _recounted(path: Path) -> dict[str, Any]:
    """The statistics of a copy of ``path`` that keeps no game's findings."""
    copy = path.with_name("recount.sqlite")
    copy.unlink(missing_ok=True)
    with sqlite3.connect(path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
        target.execute(f"DELETE FROM {FOUND}")
    return _fresh_statistics(copy)


def test_a_new_process_takes_what_the_statistics_found_of_each_game_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each new process (every terrace stats) read and checked every game
    again: 10-11 CPU s at 100,000 games. What the statistics found of each
    game is kept in the file (schema 13), dropped by the file's triggers at
    any change to the game, by any program: a new store checks only the
    games changed since, and counts as a recount does."""
    db = tmp_path / "games.sqlite"
    games = 12
    _cloned(db, games)
    # (nothing kept yet: a store that only reads keeps nothing)
    assert _checked_games(monkeypatch, db)[0] == games
    with open_store(db) as store:
        first, found = _statistics_steps(store)
    checked, steps, again = _checked_games(monkeypatch, db)
    assert again == found and found["overall"]["abandoned"] == games - 1
    assert checked == 0 and steps < first / 4, (first, steps)
    ids = sorted(found_id for (found_id,) in sqlite3.connect(db).execute("SELECT id FROM games"))
    with sqlite3.connect(db) as conn:  # (another program's change: the triggers drop those games' findings)
        conn.execute("UPDATE games SET hints = 7 WHERE id = ?", (ids[0],))
        conn.execute("DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE game_id = ?)",
                     (ids[1],))
    checked, _, after = _checked_games(monkeypatch, db)
    assert checked == 2 and after == _recounted(db) and after["overall"]["hints"] == 7
    with sqlite3.connect(db) as conn:  # (a change made while a trigger was away: nothing is taken on trust)
        (trigger,) = conn.execute(
            "SELECT sql FROM sqlite_schema WHERE name = 'stats_found_games_update'").fetchone()
        conn.execute("DROP TRIGGER stats_found_games_update")
        conn.execute("UPDATE games SET hints = 9 WHERE id = ?", (ids[2],))
        conn.execute(trigger)
    checked, _, after = _checked_games(monkeypatch, db)
    assert checked == games and after == _recounted(db) and after["overall"]["hints"] == 16
    with open_store(db) as store:
        assert store.statistics() == after
    assert _checked_games(monkeypatch, db)[0] == 0  # (kept again, under the layout as it is now)
    elsewhere = MemoryStore()
    game = elsewhere.create("wood", get_rules("wood"), Deal.from_number(3, get_rules("wood")))
    play(elsewhere, game, [str(next(iter(game.board().legal_moves)))])
    with open_store(db) as store:  # (an import makes a trigger of its own again: the rest stays trusted)
        store.add_games(read_games(json.dumps([export_record(elsewhere.get(game.id))])))
    checked, _, after = _checked_games(monkeypatch, db)
    assert checked == 1 and after == _recounted(db) and after["overall"]["played"] == games + 1


def test_terrace_stats_checks_once_a_file_that_keeps_no_findings_and_then_what_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """terrace stats may not write the file: on one that keeps no findings
    (last written by an older Terrace; here its findings untrusted) it
    checked every game at every run (15 s of CPU at 100,000 games). What it
    found sound is noted in the user's data folder: the next run checks only
    the games changed since, by any program, and a game damaged since is
    left out, checked again at every run."""
    db = tmp_path / "games.sqlite"
    games = 3
    with open_store(db) as store:
        for _ in range(games):
            quick_finish(store, "terrace-won")
    with sqlite3.connect(db) as conn:
        conn.execute(f"DELETE FROM {FOUND_TRUSTED}")
    checked, _, first = _checked_games(monkeypatch, db)
    assert checked == games and first["overall"]["won"] == games
    checked, _, again = _checked_games(monkeypatch, db)
    assert checked == 0 and again == first
    ids = sorted(found_id for (found_id,) in sqlite3.connect(db).execute("SELECT id FROM games"))
    with sqlite3.connect(db) as conn:  # (another program's change, and a move damaged by hand)
        conn.execute("UPDATE games SET hints = 7 WHERE id = ?", (ids[0],))
        conn.execute("UPDATE moves SET move = 't9f' WHERE game_id = ? AND ply = 0", (ids[1],))
    checked, _, after = _checked_games(monkeypatch, db)
    assert checked == 2 and after == _recounted(db)
    assert after["damaged"] == 1 and after["overall"]["hints"] == 7
    assert _checked_games(monkeypatch, db)[:1] == (1,)
