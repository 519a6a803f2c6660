"""A store of years of games: finding the game to resume costs as much with
thousands of unfinished games of long logs as with a few, and finds the game
the whole ordering of unfinished games puts first."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store_support import golden, locked_by_another, no_default_db, play, sqlite_steps, start, undo
from terrace.cards import CODE
from terrace.storage import DamagedGameError, SqliteStore, open_store, rows
from terrace.storage.memory import MemoryStore
from terrace.storage.migrations import FOUND
from terrace.storage.transfer import export_record, read_games

_ = no_default_db

FULL_ORDER = (
    f"SELECT {rows.GAME_ID} FROM games WHERE status IN ('choosing', 'playing') AND given_up_at IS NULL "
    f"ORDER BY {rows.IMPORTED}, CASE WHEN {rows.IMPORTED} THEN NULL ELSE {rows.CHANGED_HERE} END DESC, "
    "updated_at DESC, rowid DESC"
)
"""Every unfinished game in the order the game to resume is taken in."""


def _cloned(path: Path, games: int) -> None:
    """``games`` copies of one unfinished game of 60 moves (each logged), as
    the store writes its rows (the replay stamp covers no id)."""
    with open_store(path) as store:
        record = golden("terrace-won")
        play(store, start(store, record), record.moves[:60])
    conn = sqlite3.connect(path, isolation_level=None)
    names = conn.execute("SELECT name FROM pragma_table_info('games')")
    columns = ", ".join(c for (c,) in names if c != "id")
    (source,) = conn.execute("SELECT id FROM games").fetchone()
    conn.execute("BEGIN")
    for n in range(games - 1):
        new = f"{source[:-6]}{n:06d}"
        conn.execute(f"INSERT INTO games (id, {columns}) SELECT ?, {columns} FROM games WHERE id = ?",
                     (new, source))
        conn.execute("INSERT INTO moves SELECT ?, ply, move FROM moves WHERE game_id = ?", (new, source))
        conn.execute("INSERT INTO events (game_id, revision, action, move, move_count, at) "
                     "SELECT ?, revision, action, move, move_count, at FROM events WHERE game_id = ? "
                     "ORDER BY id", (new, source))
    conn.execute("COMMIT")
    conn.close()


def _steps(store: SqliteStore) -> int:
    """SQLite's steps (in hundreds) for finding the game to resume."""
    steps, found = sqlite_steps(store, store.latest_unfinished)
    assert found is not None
    return int(steps)


def test_the_game_to_resume_is_found_without_reading_every_games_log(tmp_path: Path) -> None:
    """Each unfinished game's last change was read from every entry of its
    log, for every unfinished game (a player's abandoned games stay
    unfinished): 0.49 s of CPU at 100,000 games. Four times the games (of 61
    log entries each) cost about four times the steps; now about the same."""
    steps = []
    for games in (100, 400):
        path = tmp_path / f"games-{games}.sqlite"
        _cloned(path, games)
        with open_store(path) as store:
            steps.append(_steps(store))
    assert steps[1] < 1.5 * steps[0] + 20, steps


def _full_order_first(store: SqliteStore) -> str | None:
    with store._transaction(write=False) as conn:
        for (game_id,) in conn.execute(FULL_ORDER):
            return str(game_id)
    return None


@pytest.mark.parametrize("lookback", [1, 3, rows.LATEST_LOOKBACK])
def test_the_game_to_resume_is_the_first_of_the_whole_ordering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lookback: int
) -> None:
    """Over random histories (games opened, played, won, given up, resumed,
    imported, brought up to a state played elsewhere, the clock put back),
    the game found is the first unfinished game of the whole ordering,
    whether its last change lies in the log's last entries or not."""
    from terrace.storage import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "LATEST_LOOKBACK", lookback)
    rng = random.Random(lookback)
    record = golden("terrace-won")
    clock = [1_700_000_000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(tmp_path / "games.sqlite") as store, open_store(tmp_path / "other.sqlite") as other:
        games: list[str] = []
        high = clock[0]
        for _ in range(60):
            clock[0] += rng.choice([5.0, 30.0, -200.0])
            what = rng.random()
            if what >= 0.7:
                clock[0] = high = max(high, clock[0])  # (an import takes no time ahead of the clock)
            high = max(high, clock[0])
            if what < 0.3 or not games:
                game = start(store, record)
                if rng.random() < 0.7:
                    play(store, game, record.moves[: rng.randint(1, 4)])
                games.append(game.id)
            elif what < 0.5:
                game = store.get(rng.choice(games))
                if game.status in ("choosing", "playing") and game.given_up_at is None:
                    play(store, game, record.moves[game.played_count(): game.played_count() + 1]
                         if game.redo_count() == 0 and game.played_count() < len(record.moves) else [])
            elif what < 0.6:
                game = store.get(rng.choice(games))
                if game.status in ("choosing", "playing") and game.given_up_at is None and game.moves:
                    game.given_up_at = clock[0]
                    store.update(game, expected_revision=game.revision, action="give-up")
            elif what < 0.7:
                game = store.get(rng.choice(games))
                if game.status == "playing" and game.given_up_at is None and game.redo_count() == 0:
                    play(store, game, record.moves[game.played_count():])  # (won)
            elif what < 0.85:
                made = start(other, record)
                play(other, made, record.moves[: rng.randint(0, 3)])
                store.add_games(read_games(json.dumps([export_record(other.get(made.id))])))
            else:
                # (a game of this store played on elsewhere and brought back: joined)
                game = store.get(rng.choice(games))
                if game.status == "playing" and game.given_up_at is None and game.redo_count() == 0:
                    copy = read_games(json.dumps([export_record(game)]))[0]
                    moved = record.moves[: game.played_count() + 1]
                    if len(moved) > game.played_count():
                        elsewhere = start(other, record)
                        play(other, elsewhere, moved)
                        later = read_games(json.dumps([export_record(other.get(elsewhere.id))]))[0]
                        later.id, later.created_at = copy.id, copy.created_at
                        store.add_games([later])
            found = store.latest_unfinished()
            assert (found.id if found else None) == _full_order_first(store)


def test_the_statistics_read_no_deal_string_a_replay_stamp_vouches_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statistics parsed and checked the deal string of every game
    whose replay stamp held, though the stamp covers that string, its rules,
    number and version exactly (half the CPU of the first statistics: 16 s
    at 100,000 games). A deal string as a write stores it is read no more;
    one changed by hand still fails its stamp and is found damaged, and one
    in another spelling (a hand edit, which the statistics replay and stamp)
    is still read under its stamp."""
    from terrace.deal import Deal

    path = tmp_path / "games.sqlite"
    with open_store(path) as store:
        for name in ("terrace-won", "terrace-lost", "wood-lost"):
            record = golden(name)
            play(store, start(store, record), record.moves[:5])
        ids = store.game_ids()
    parsed = [0]
    parse = Deal.parse

    def counted(cls: type[Deal], *args: object, **kwargs: object) -> Deal:
        parsed[0] += 1
        return parse(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Deal, "parse", classmethod(counted))
    with open_store(path) as store:
        assert store.statistics()["overall"]["played"] == 3
    assert parsed[0] == 0
    with sqlite3.connect(path) as conn:
        (deal,) = conn.execute("SELECT deal FROM games WHERE id = ?", (ids[0],)).fetchone()
        cards = deal.split(" ")
        cards[-1], cards[-2] = cards[-2], cards[-1]  # (the same cards: only a replay or the stamp tells)
        conn.execute("UPDATE games SET deal = ? WHERE id = ?", (" ".join(cards), ids[0]))
        conn.execute("UPDATE games SET deal = lower(deal) WHERE id = ?", (ids[1],))
    with open_store(path) as store:  # (the lower-case spelling is replayed, and stamped)
        found = store.statistics()
    assert (found["overall"]["played"], found["damaged"]) == (2, 1)
    for kept in (True, False):  # (what the statistics found of each game is kept in the file)
        if not kept:
            with sqlite3.connect(path) as conn:
                conn.execute(f"DELETE FROM {FOUND}")
        parsed[0] = 0
        with open_store(path) as store:
            found = store.statistics()
        assert (found["overall"]["played"], found["damaged"]) == (2, 1)
        # (the damaged game replayed each time; the lower-case deal under its
        # stamp read only when what was found of it is not kept)
        assert parsed[0] == (1 if kept else 2)


def test_another_connections_write_has_only_the_games_it_changed_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any write by another connection (another server, terrace import, a
    report of playing time) made the next statistics check every game again
    (16 s of CPU at 100,000 games). A game whose row and count of changes
    to its moves are as the statistics last found them sound is not checked
    again; a game another connection played on, or whose moves were edited
    by hand (its row untouched), is, and is found damaged when it is; a hand
    edit of the triggers that count leaves nothing taken on trust."""
    from terrace.storage import sqlite as sqlite_store
    from terrace.storage import tallying

    path = tmp_path / "games.sqlite"
    record = golden("terrace-won")
    with open_store(path) as writer:
        for _ in range(6):
            play(writer, start(writer, record), record.moves[:4])
        ids = writer.game_ids()
    checked: list[str] = []
    load = rows.load_game

    def counted(row: Any, *args: Any, **kwargs: Any) -> Any:
        checked.append(row[0])
        return load(row, *args, **kwargs)

    for module in (sqlite_store, tallying):  # (a read's checks, and the statistics')
        monkeypatch.setattr(module, "load_game", counted)
    with open_store(path) as store, open_store(path) as other:
        assert store.statistics()["overall"]["played"] == 6
        assert sorted(checked) == sorted(ids)
        checked.clear()
        other.add_active_time(ids[0], 1_000)  # (a write of another connection: its row changes)
        play(other, other.get(ids[1]), record.moves[4:5])
        checked.clear()
        found = store.statistics()
        assert (found["overall"]["played"], found["overall"]["active_seconds"]) == (6, 1.0)
        assert sorted(set(checked)) == sorted(ids[:2])
        checked.clear()
        with sqlite3.connect(path) as conn:  # (a move changed by hand: the row is as it was)
            conn.execute("UPDATE moves SET move = 't9t9' WHERE game_id = ? AND ply = 3", (ids[2],))
        found = store.statistics()
        assert (found["overall"]["played"], found["damaged"]) == (5, 1)
        assert set(checked) == {ids[2]}
        checked.clear()
        with sqlite3.connect(path) as conn:  # (the counting trigger away while a move is changed)
            (trigger,) = conn.execute(
                "SELECT sql FROM sqlite_schema WHERE name = 'moves_update_counted'").fetchone()
            conn.execute("DROP TRIGGER moves_update_counted")
            conn.execute("UPDATE moves SET move = 't9t9' WHERE game_id = ? AND ply = 3", (ids[3],))
            conn.execute(trigger)
        found = store.statistics()
        assert (found["overall"]["played"], found["damaged"]) == (4, 2)
        assert set(ids) - {ids[2]} <= set(checked)


def _lines_read(store: SqliteStore) -> tuple[dict[str, Any], set[str]]:
    """The store's statistics, and the games whose move rows they read."""
    sql: list[str] = []
    store._conn.set_trace_callback(sql.append)
    try:
        found = store.statistics()
    finally:
        store._conn.set_trace_callback(None)
    quoted = (re.findall(r"""['"]([0-9a-f]{16})['"]""", statement)
              for statement in sql if "FROM moves" in statement)
    return found, {game_id for ids in quoted for game_id in ids}


def test_the_first_statistics_after_a_start_read_no_line_its_digest_vouches_for(tmp_path: Path) -> None:
    """The first statistics of a server just started read every game's
    move rows to check its replay stamp: 17 million rows, 32 s of CPU at
    100,000 games. A game's row now keeps the digest of its line and the
    count of changes to its move rows (kept by the file's triggers) at
    which they were known to give it; while the count holds, the stamp is
    checked by that digest. A move changed by hand still makes its game
    damaged, and so does one changed while the counting trigger was away
    (the file's layout moved: every line is read once more, and the digests
    are trusted again after). A move row changed under SQLite, which no
    trigger sees (as damage to the disk would be), is found when the game
    is opened."""
    path = tmp_path / "games.sqlite"
    record = golden("terrace-won")
    with open_store(path) as writer:
        for _ in range(5):
            play(writer, start(writer, record), record.moves[:4])
        ids = writer.game_ids()
    with open_store(path) as store:  # (a server started again)
        found, read = _lines_read(store)
    assert (found["overall"]["played"], found["damaged"], read) == (5, 0, set())
    with sqlite3.connect(path) as conn:  # (a move changed by hand: the triggers count it)
        conn.execute("UPDATE moves SET move = 't9t9' WHERE game_id = ? AND ply = 3", (ids[0],))
    with open_store(path) as store:
        found, read = _lines_read(store)
    assert (found["overall"]["played"], found["damaged"], read) == (4, 1, {ids[0]})
    with sqlite3.connect(path) as conn:  # (the counting trigger away while a move is changed)
        (trigger,) = conn.execute(
            "SELECT sql FROM sqlite_schema WHERE name = 'moves_update_counted'").fetchone()
        conn.execute("DROP TRIGGER moves_update_counted")
        conn.execute("UPDATE moves SET move = 't9t9' WHERE game_id = ? AND ply = 3", (ids[1],))
        conn.execute(trigger)
    with open_store(path) as store:
        found, read = _lines_read(store)
    assert (found["overall"]["played"], found["damaged"], read) == (3, 2, set(ids))
    with open_store(path) as store:  # (read once: trusted again; the damaged games are read each time)
        found, read = _lines_read(store)
    assert (found["overall"]["played"], found["damaged"], read) == (3, 2, set(ids[:2]))
    with sqlite3.connect(path) as conn:  # (a move row changed with no trigger to see it)
        conn.execute("DROP TRIGGER moves_update_counted")
        conn.execute("UPDATE moves SET move = 't9t9' WHERE game_id = ? AND ply = 3", (ids[2],))
        conn.execute(trigger)
        conn.execute("UPDATE lines_trusted SET layout = (SELECT schema_version FROM pragma_schema_version)")
    with open_store(path) as store:
        found, read = _lines_read(store)
        assert (found["overall"]["played"], found["damaged"]) == (3, 2)
        with pytest.raises(DamagedGameError, match="replay"):
            store.get(ids[2])
        assert store.statistics()["damaged"] == 3  # (found when opened, and counted from then on)
    with open_store(path, read_only=True) as store:  # (by a new process too: no finding kept says sound)
        assert store.statistics()["damaged"] == 3


def _statistics_reading_every_line(path: Path) -> dict[str, Any]:
    """The statistics of a copy of ``path`` that takes no digest on trust
    (every line read and checked, as before schema 11) and no game's
    findings kept (every game checked, as before schema 13)."""
    copy = path.with_name("every-line.sqlite")
    copy.unlink(missing_ok=True)
    with sqlite3.connect(path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
        target.execute("DELETE FROM lines_trusted")
        target.execute(f"DELETE FROM {FOUND}")
    with open_store(copy, read_only=True) as store:
        return store.statistics()


_STEPS = st.lists(st.tuples(st.sampled_from(
    ["new", "move", "undo", "other", "edit", "mend", "uncounted", "restart", "stats", "import", "row"]),
    st.integers(0, 5)), min_size=1, max_size=14)


@settings(max_examples=25, deadline=None)
@given(_STEPS)
def test_the_statistics_by_digests_count_as_a_check_of_every_line_does(steps: list[tuple[str, int]]) -> None:
    """Over random histories (games opened, played on here and by another
    connection, moves taken back, imported; a move edited by hand and put
    back, with the counting trigger there or away; servers started again),
    the statistics that take kept digests on trust count exactly what the
    statistics of the same file that read and check every line count."""
    record = golden("terrace-won")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.sqlite"
        store, other = open_store(path), open_store(path)
        try:
            for step, n in steps:
                ids = store.game_ids()
                game_id = ids[n % len(ids)] if ids else None
                if step == "new" or game_id is None:
                    play(store, start(store, record), record.moves[:n % 3 + 1])
                elif step in ("move", "other", "undo"):
                    writer = other if step == "other" else store
                    try:
                        game = writer.get(game_id)
                    except DamagedGameError:
                        continue
                    if step == "undo" and game.moves:
                        undo(writer, game)
                    elif len(game.moves) < 40:
                        play(writer, game, [record.moves[len(game.moves)]])
                elif step in ("edit", "mend", "uncounted"):
                    move = "t9t9" if step != "mend" else record.moves[0]
                    with sqlite3.connect(path) as conn:
                        (trigger,) = conn.execute(
                            "SELECT sql FROM sqlite_schema WHERE name = 'moves_update_counted'").fetchone()
                        if step == "uncounted":
                            conn.execute("DROP TRIGGER moves_update_counted")
                        conn.execute("UPDATE moves SET move = ? WHERE game_id = ? AND ply = 0",
                                     (move, game_id))
                        if step == "uncounted":
                            conn.execute(trigger)
                elif step == "row":  # (a game's row or its log edited by hand)
                    with sqlite3.connect(path) as conn:
                        conn.execute("UPDATE games SET hints = hints + 1 WHERE id = ?", (game_id,))
                        if n % 2:
                            conn.execute("DELETE FROM events WHERE id = (SELECT max(id) FROM events "
                                         "WHERE game_id = ?)", (game_id,))
                elif step == "restart":
                    store.close()
                    store = open_store(path)
                elif step == "import":
                    elsewhere = MemoryStore()
                    game = start(elsewhere, record)
                    play(elsewhere, game, record.moves[:n + 1])
                    other.add_games(read_games(json.dumps([export_record(elsewhere.get(game.id))])))
                if step == "stats":
                    assert store.statistics() == _statistics_reading_every_line(path)
            store.close()
            with open_store(path) as again:
                assert again.statistics() == _statistics_reading_every_line(path)
        finally:
            store.close()
            other.close()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*CODE, "ah", "10H", "A", "H", "X", "AHS", "", " ", "  ", "\n", "\u00a0"]),
                max_size=12), st.sampled_from([" ", "", "  "]))
def test_a_deal_string_as_written_is_told_as_the_card_codes_one_by_one_tell_it(
        parts: list[str], between: str) -> None:
    """The statistics take a deal string as a write stores it unread (its
    stamp vouches for it); the pattern that tells one, matched by rank and
    suit (five times as fast), tells exactly the strings the 52 codes
    spelled out one by one tell."""
    codes = "|".join(CODE)
    text = between.join(parts)
    spelled = re.fullmatch(f"(?:{codes})(?: (?:{codes}))*", text) is not None
    assert (rows.WRITTEN_DEAL.fullmatch(text) is not None) == spelled


def test_with_a_counting_trigger_away_no_game_is_taken_on_trust_by_the_statistics(tmp_path: Path) -> None:
    """While a trigger that counts the changes to moves is away (dropped by
    hand, not made again), a game's count says nothing: a move another
    connection changes under an untouched row is still found."""
    path = tmp_path / "games.sqlite"
    record = golden("terrace-won")
    with open_store(path) as writer:
        for _ in range(3):
            play(writer, start(writer, record), record.moves[:4])
        ids = writer.game_ids()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TRIGGER moves_update_counted")
    with open_store(path, read_only=True) as store:
        assert store.statistics()["overall"]["played"] == 3
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE moves SET move = 't9t9' WHERE game_id = ? AND ply = 3", (ids[1],))
        found = store.statistics()
        assert (found["overall"]["played"], found["damaged"]) == (2, 1)


def test_the_statistics_do_not_wait_for_another_programs_lock_to_keep_their_digests(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The digests and stamps the statistics keep only save later work:
    with another program holding the write lock (an import suspended with
    Ctrl+Z) the statistics waited out the busy timeout to store them (11.3 s
    at 2,000 games). They are answered at once, and the statistics of a
    later opening keep them (as after the wait, which failed too)."""
    from terrace.storage import sqlite as sqlite_module

    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        play(store, start(store, golden("terrace-won")), golden("terrace-won").moves[:4])
    with sqlite3.connect(db, isolation_level=None) as conn:
        conn.execute("UPDATE games SET line_checked = NULL")  # (a digest to keep, as after an upgrade)
    # (a long timeout, a bound of half of it: a bound of 0.5 s left a loaded
    # machine's pauses no room, where passing code never waits)
    monkeypatch.setattr(sqlite_module, "BUSY_TIMEOUT_SECONDS", 10.0)
    with open_store(db) as store, locked_by_another(db):
        started = time.monotonic()
        assert store.statistics()["overall"]["played"] == 1
        assert time.monotonic() - started < 5.0  # (before: 10 s, the whole timeout)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT line_checked FROM games").fetchone()[0] is None
    with open_store(db) as store:
        store.statistics()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT line_checked FROM games").fetchone()[0] is not None
