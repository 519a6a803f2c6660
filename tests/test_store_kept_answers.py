"""The statistics and the recent games kept whole in the file
(``terrace.storage.summary``, schema 14): a new process takes them without
reading every game, and they are always what a count of every game gives,
whatever changed the file since (a move, an import, a game deleted by hand,
a row of the table edited by hand, another program writing meanwhile)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store_support import (
    copied,
    forget_answers,
    golden,
    no_default_db,
    play,
    quick_finish,
    sqlite_steps,
    start,
)
from terrace.storage import MemoryStore, SqliteStore, StoreError, open_store, tallying
from terrace.storage import migrations as migrations_module
from terrace.storage import summary as summary_module
from terrace.storage.migrations import LATEST_VERSION, SUMMARY, Migration

_ = no_default_db


def _recount(db: Path, folder: Path) -> tuple[dict[str, Any], list[str]]:
    """The statistics and recent games of a copy of ``db`` with no answer
    kept: every game counted, in a new process's store."""
    copy = folder / "recount.sqlite"
    for side in ("", "-wal", "-shm"):
        Path(f"{copy}{side}").unlink(missing_ok=True)
    source = sqlite3.connect(db)
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()
    forget_answers(copy)
    with open_store(copy, read_only=True) as store:
        return store.statistics(), [game.id for game in store.recent(20)]


def _taken(db: Path, *, read_only: bool = True) -> tuple[dict[str, Any], list[str], bool]:
    """The statistics and recent games of a new store on ``db``, and
    whether they were taken whole (no game counted)."""
    with open_store(db, read_only=read_only) as store:
        found = store.statistics(), [game.id for game in store.recent(20)]
        return (*found, store._tally is None and store._recent_found is None)


def _finished(name: str) -> Any:
    """A game of a golden record played to its end, in memory (to import)."""
    record = golden(name)
    game = start(MemoryStore(), record)
    board = game.board()
    for move in record.moves:
        board.push_text(move)
    game.sync(board)
    return game


STEPS = st.lists(st.sampled_from(
    ["open", "won", "lost", "resume", "give-up", "hint", "time", "import", "delete", "count", "reopen"]),
    min_size=1, max_size=8)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_the_statistics_kept_whole_are_those_of_a_count_of_every_game(tmp_path: Path,
                                                                      steps: list[str]) -> None:
    """Random changes (games opened and left, won, lost, given up, resumed,
    hinted, timed, imported, deleted by hand in the sqlite3 shell), with
    the statistics and recent games asked for (and so kept) between them by
    the store that writes, and the store closed and opened again (which
    keeps them as it closes): after each, a new store, opened to read or to
    write, gives what a count of every game gives, taken whole when it was
    kept and nothing changed since."""
    folder = tmp_path / f"run-{time.monotonic_ns()}"
    folder.mkdir()
    db = folder / "games.sqlite"
    store = open_store(db)
    try:
        quick_finish(store, "terrace-won")
        for n, step in enumerate(steps):
            unfinished = [g for g in store.recent(50) if g.status in ("choosing", "playing")
                          and g.given_up_at is None and g.moves]
            if step == "open":
                game = start(store, golden("terrace-lost"))
                play(store, game, golden("terrace-lost").moves[:3 + n])
            elif step == "won":
                quick_finish(store, "terrace-won")
            elif step == "lost":
                quick_finish(store, "wood-lost")
            elif step == "resume" and unfinished:
                game = unfinished[-1]
                board = game.board()
                board.push(next(iter(board.legal_moves)))
                revision = game.revision
                game.sync(board)
                store.update(game, expected_revision=revision, action="move")
            elif step == "give-up" and unfinished:
                game = unfinished[0]
                game.given_up_at = time.time()
                store.update(game, expected_revision=game.revision, action="give-up")
            elif step == "hint" and unfinished:
                store.count_hint(unfinished[0].id, f"position-{n}")
            elif step == "time" and unfinished:
                store.add_active_time(unfinished[0].id, 1_000 + n)
            elif step == "import":
                store.add_games([_finished("terrace-won" if n % 2 else "wood-lost")])
            elif step == "delete":
                other = sqlite3.connect(db, isolation_level=None)
                other.execute("DELETE FROM games WHERE rowid = (SELECT max(rowid) FROM games)")
                other.close()
            elif step == "count":
                store.statistics()
                store.recent(20)
            elif step == "reopen":
                store.close()
                store = open_store(db)
            expected = _recount(db, folder)
            statistics, recent, whole = _taken(db)
            assert (statistics, recent) == expected, (steps, n)
            assert (store.statistics(), [g.id for g in store.recent(20)]) == expected, (steps, n)
            if step == "count":
                assert whole, (steps, n)  # (kept as counted, nothing changed since)
    finally:
        store.close()
    assert _taken(db)[:2] == _recount(db, folder)


def _counted_once(tmp_path: Path) -> tuple[Path, dict[str, Any], list[str]]:
    """A database of a few games whose statistics and recent games a store
    that writes counted (and kept), with what they were."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        quick_finish(store, "terrace-won")
        quick_finish(store, "wood-lost")
        game = start(store, golden("terrace-lost"))
        play(store, game, golden("terrace-lost").moves[:5])
        found = store.statistics(), [g.id for g in store.recent(20)]
    return db, *found


def test_a_new_process_takes_the_statistics_whole_and_reads_no_game(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The first statistics of a new process counted every game (2.5 s of
    CPU at 100,000 games, 0.46 s of it reading each game's findings): kept
    whole, they cost a few look-ups, the same at 3 games as at 300."""
    db, statistics, recent = _counted_once(tmp_path)
    steps = []
    for copies in (0, 300):
        if copies:
            copied(db, copies, logged=True)
            with open_store(db) as store:
                statistics = store.statistics()
                recent = [g.id for g in store.recent(20)]
        monkeypatch.setattr(tallying.Running, "__init__", _not_counted)
        for read_only in (True, False):
            with open_store(db, read_only=read_only) as store:
                count, found = sqlite_steps(store, store.statistics)
                assert found == statistics
                assert [g.id for g in store.recent(20)] == recent
                steps.append(count)
        monkeypatch.undo()
    assert max(steps) <= 5, steps  # (hundreds of SQLite's steps, as many at 303 games as at 3)


def _not_counted(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("the games were counted")


EDITS = {
    "numbers": "UPDATE stats_summary SET answer = replace(answer, '\"won\":1', '\"won\":7')",
    "not JSON": "UPDATE stats_summary SET answer = '{'",
    "a BLOB": "UPDATE stats_summary SET answer = CAST(answer AS BLOB)",
    "no digest": "UPDATE stats_summary SET digest = ''",
    "another version": "UPDATE stats_summary SET version = version + 1",
    "another layout": "UPDATE stats_summary SET layout = layout - 1",
    "another file's state": "UPDATE stats_summary SET state = '1:1'",
    "nested too deeply": "UPDATE stats_summary SET answer = printf('%.*c', 100000, '[')",
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_an_answer_edited_or_damaged_by_hand_is_counted_again(tmp_path: Path, edit: str) -> None:
    """A row of the table edited by hand (its numbers, its JSON, its
    type, its digest, its version, layout or file state) is none: the
    statistics and recent games are counted from the games, right, and
    kept again."""
    db, statistics, recent = _counted_once(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    assert conn.execute(f"SELECT count(*) FROM {SUMMARY}").fetchone() == (2,)
    conn.execute(edit)
    conn.close()
    for read_only in (True, False):
        found, ids, whole = _taken(db, read_only=read_only)
        assert (found, ids) == (statistics, recent)
        assert not whole
    assert _taken(db)[2]  # (the store that writes kept them again)


def test_an_answer_too_long_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer longer than any kept (a row edited by hand) is measured
    in SQL, never fetched, and counted again."""
    db, statistics, _ = _counted_once(tmp_path)
    monkeypatch.setattr(summary_module, "MOST", 100)
    with open_store(db, read_only=True) as store:
        assert store.statistics() == statistics
        assert store._tally is not None


@pytest.mark.parametrize("trigger", ["stats_summary_games_update", "stats_summary_events_insert"])
def test_no_answer_is_taken_or_kept_while_a_trigger_that_drops_it_is_away(tmp_path: Path,
                                                                          trigger: str) -> None:
    """A trigger of the table dropped by hand (a move would then leave a
    stale answer): what was kept is none (the file's layout moved), and
    nothing is kept again while it is away."""
    db, statistics, recent = _counted_once(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(f"DROP TRIGGER {trigger}")
    conn.close()
    for _ in range(2):
        with open_store(db) as store:
            assert (store.statistics(), [g.id for g in store.recent(20)]) == (statistics, recent)
            assert store._tally is not None and store._recent_found is not None


def test_a_game_row_of_huge_or_nan_values_counts_as_a_count_does(tmp_path: Path) -> None:
    """Values no game holds, written by hand (a time of 1e308, counts past
    2^63, text where a number belongs; SQLite keeps no NaN, it reads it as
    null): the game counts as a count of every game counts it (damaged, or
    its values unknown), the answer kept is JSON that reads back (no NaN,
    no infinity), and a new process takes the same."""
    db, _, _ = _counted_once(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE games SET active_ms = 1e308, hints = 9223372036854775807, "
                 "won_active_ms = 'NaN', updated_at = 1e308 WHERE rowid = 1")
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute("UPDATE games SET started_at = ?, undos = -5 WHERE rowid = 2", (float("nan"),))
    conn.close()
    expected = _recount(db, tmp_path)
    assert expected[0]["damaged"] + expected[0]["overall"]["played"] >= 2
    with open_store(db) as store:
        assert (store.statistics(), [g.id for g in store.recent(20)]) == expected
    assert _taken(db)[:2] == expected


def test_a_read_while_another_process_writes_gives_the_state_before_or_after(tmp_path: Path) -> None:
    """Another program's change not yet committed: a new store reads the
    state before it (the answer kept still holds there); committed, the
    answer kept was dropped in the same transaction, and the next read
    counts the change. A store that counts meanwhile keeps nothing and
    waits for no lock."""
    db, statistics, recent = _counted_once(tmp_path)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE games SET hints = hints + 3 WHERE rowid = (SELECT max(rowid) FROM games)")
    assert _taken(db) == (statistics, recent, True)
    reader = sqlite3.connect(db, isolation_level=None)  # (a reader's view: still kept)
    assert reader.execute(f"SELECT count(*) FROM {SUMMARY}").fetchone() == (2,)
    reader.close()
    other.execute("COMMIT")
    after = _recount(db, tmp_path)
    assert after[0]["overall"]["hints"] == statistics["overall"]["hints"] + 3
    other.execute("BEGIN IMMEDIATE")  # (holds the lock while a store counts: it keeps nothing)
    started = time.monotonic()
    with open_store(db) as store:
        assert (store.statistics(), [g.id for g in store.recent(20)]) == after
    assert time.monotonic() - started < 9  # (a keep that waited out the lock: 10 s more)
    other.execute("ROLLBACK")
    other.close()
    assert _taken(db) == (*after, False)
    with open_store(db) as store:
        store.statistics()
        store.recent(20)
    assert _taken(db) == (*after, True)


def test_a_server_closing_keeps_the_statistics_of_its_last_changes(tmp_path: Path) -> None:
    """A store that counted the statistics, then changed games, keeps them
    as it closes (from what it knows: nothing is counted anew), so that the
    next process (a server started again, ``terrace stats``) takes them
    whole; the triggers had dropped them at the first change. (A store that
    took them whole and then changed games counts every game at its next
    statistics, as before, and keeps them then.)"""
    db, _, _ = _counted_once(tmp_path)
    with open_store(db) as store:
        store.statistics()
        store.recent(20)
        assert store._tally is None  # (taken whole)
        quick_finish(store, "wood-lost")
        store.statistics()
        store.recent(20)
        assert store._tally is not None and store._recent_found is not None  # (counted)
        quick_finish(store, "terrace-won")
        counted = store.statistics, store.recent
        store.statistics, store.recent = _not_counted, _not_counted  # type: ignore[method-assign]
        assert not _taken(db)[2]  # (dropped by the change)
        store.statistics, store.recent = counted  # type: ignore[method-assign]
    statistics, recent, whole = _taken(db)
    assert whole
    assert (statistics, recent) == _recount(db, tmp_path)


def test_the_statistics_of_each_zone_are_kept_apart(tmp_path: Path) -> None:
    """The chart's days depend on the time zone: each zone's statistics
    are kept under its name and offsets, local time under ``TZ``'s."""
    from zoneinfo import ZoneInfo
    db, _, _ = _counted_once(tmp_path)
    zones = [ZoneInfo("Asia/Tokyo"), ZoneInfo("America/Los_Angeles"), None]
    with open_store(db) as store:
        expected = [store.statistics(zone) for zone in zones]
    with open_store(db, read_only=True) as store:
        assert [store.statistics(zone) for zone in zones] == expected
        assert store._tally is None
    keys = {summary_module.zone_key(zone) for zone in zones}
    assert len(keys) == 3


def test_an_interrupted_upgrade_to_schema_14_changes_nothing(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The upgrade is one transaction: failing after the table was made
    (a disk full, the program killed), it leaves the file at schema 13 as
    it was, which the next opening upgrades, counting the statistics once
    and keeping them."""
    db = tmp_path / "games.sqlite"
    with SqliteStore(db, migrate_to=13) as store:
        quick_finish(store, "terrace-won")
        before = store.statistics()
    last = migrations_module.MIGRATIONS[-1]
    assert last.version == LATEST_VERSION == 14
    broken = Migration(last.version, last.name, (*last.statements[:2], "THIS IS NOT SQL"), last.writes_only)
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (*migrations_module.MIGRATIONS[:-1], broken))
    with pytest.raises(StoreError):
        SqliteStore(db)
    monkeypatch.undo()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone() == (13,)
    assert conn.execute("SELECT 1 FROM sqlite_schema WHERE name LIKE 'stats_summary%'").fetchall() == []
    conn.close()
    with open_store(db, read_only=True) as store:  # (read as it stands: nothing kept there)
        assert store.schema_version == 13 and store.statistics() == before
    with open_store(db) as store:
        assert store.schema_version == 14 and store.statistics() == before
        recent = [g.id for g in store.recent(20)]
    assert _taken(db) == (before, recent, True)


def test_json_of_the_answer_kept_is_what_the_statistics_give() -> None:
    """An answer that JSON cannot hold as it is (NaN) is not kept."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrations_module.migrate(conn)
    conn.execute("BEGIN IMMEDIATE")
    assert not summary_module.keep(conn, "statistics x", 1, {"rate": float("nan")})
    assert summary_module.keep(conn, "statistics x", 1, {"rate": 0.5})
    conn.execute("COMMIT")
    assert summary_module.kept(conn, "statistics x", 1) == {"rate": 0.5}
    assert summary_module.kept(conn, "statistics x", 2) is None
    assert json.loads(conn.execute(f"SELECT answer FROM {SUMMARY}").fetchone()[0]) == {"rate": 0.5}
