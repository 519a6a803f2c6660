"""The SQLite game store: the GameStore protocol on real files, undo and
redo, the event log, validation on write and on read."""

from __future__ import annotations

import itertools
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from store_support import finish, golden, locked_by_another, no_default_db, play, quick_finish, start, undo
from terrace.record import GameRecord
from terrace.storage import (
    DamagedGameError,
    MemoryStore,
    NoDatabaseError,
    SqliteStore,
    StoreError,
    StoreWriteError,
    UnknownGameError,
    default_games_path,
    open_store,
)
from terrace.storage.transfer import export_record, read_games

_ = no_default_db


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite"


@pytest.fixture
def store(db: Path) -> Iterator[SqliteStore]:
    with open_store(db) as opened:
        yield opened


def test_a_new_database_is_in_wal_mode_with_the_pragmas_set(store: SqliteStore, db: Path) -> None:
    assert db.exists()
    assert store.journal_mode == "wal"
    conn = store._conn
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    # NORMAL: a commit survives SIGKILL (the log is in the OS); see docs/storage.md.
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_moves_persist_across_reopening(db: Path) -> None:
    record = golden("terrace-won")
    with open_store(db) as store:
        game = start(store, record)
        board = play(store, game, record.moves[:20])
    with open_store(db) as store:
        again = store.get(game.id)
        assert again.moves == list(record.moves[:20])
        assert again.revision == 20
        assert again.board() == board
        assert again.started_at is not None and again.started_at <= again.updated_at


def test_the_event_log_records_every_change(store: SqliteStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:3])
    undo(store, game)
    game.hints += 1
    store.update(game, expected_revision=game.revision, action="hint")
    events = store.history(game.id)
    assert [e["action"] for e in events] == ["create", "move", "move", "move", "undo", "hint"]
    assert [e["move"] for e in events] == [None, *record.moves[:3], record.moves[2], None]
    assert [e["moves"] for e in events] == [0, 1, 2, 3, 2, 2]
    assert [e["revision"] for e in events] == list(range(6))
    assert all(a["at"] <= b["at"] for a, b in itertools.pairwise(events))
    with pytest.raises(UnknownGameError):
        store.history("nope")


def test_a_finished_game_gets_its_finish_time(store: SqliteStore) -> None:
    game = quick_finish(store, "terrace-lost")
    again = store.get(game.id)
    assert again.status == "lost"
    assert again.finished_at is not None and again.finished_at >= again.started_at  # type: ignore[operator]
    undo(store, again)
    assert store.get(game.id).finished_at is None


def test_game_ids_list_every_game_oldest_first(store: SqliteStore) -> None:
    lost = quick_finish(store, "wood-lost")
    first = start(store, golden("terrace-won"))
    second = start(store, golden("terrace-lost"))
    play(store, first, ["c1"])
    assert [g.id for g in store.recent()] == [first.id, second.id, lost.id]
    assert store.game_ids() == [lost.id, first.id, second.id]


@pytest.mark.parametrize(
    ("column", "value", "reason"),
    [
        ("status", "won", "lead to 'playing'"),
        ("variant", "chess", "unknown variant"),
        ("rules", '{"decks": 2}', "incomplete"),
        ("rules", "not json", "damaged"),
        ("deal", "AS AS", "104 cards"),
        ("deal_number", 77, "not deal number 77"),
        ("move_count", 999, "only 5 stored"),
        ("hints", -3, "hints"),
        ("created_at", "yesterday", "time"),
    ],
)
def test_a_tampered_row_gives_a_clear_error(
    store: SqliteStore, column: str, value: object, reason: str
) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    other = start(store, golden("terrace-lost"))
    # CHECK constraints stop some values; a hand edit can switch them off.
    store._conn.execute("PRAGMA ignore_check_constraints = ON")
    store._conn.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game.id))
    with pytest.raises(DamagedGameError, match=reason) as caught:
        store.get(game.id)
    assert game.id in str(caught.value)
    # Lists skip the damaged game rather than failing.
    assert [g.id for g in store.recent()] == [other.id]
    latest = store.latest_unfinished()
    assert latest is not None and latest.id == other.id
    store.statistics()


def test_a_move_tampered_with_while_the_store_is_open_gives_a_clear_error(
    store: SqliteStore, db: Path
) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    assert store.get(game.id).moves == list(record.moves[:5])  # remembered now
    hand = sqlite3.connect(db)  # a hand edit, as with the sqlite3 shell
    hand.execute("UPDATE moves SET move = 'rt9' WHERE game_id = ? AND ply = 3", (game.id,))
    hand.commit()
    hand.close()
    with pytest.raises(DamagedGameError, match=f"saved game {game.id} is damaged .*rt9"):
        store.get(game.id)


def test_imported_games_keep_their_details(store: SqliteStore) -> None:
    game = finish(MemoryStore(), "terrace-won")
    game.hints, game.undos = 4, 2
    added = store.add_games([game])
    assert added == [(game.id, True)]
    assert store.get(game.id).record() == game.record()
    assert store.get(game.id).hints == 4
    assert store.add_games([game]) == [(game.id, False)]
    other = finish(MemoryStore(), "terrace-lost")
    other.id = game.id
    [(new_id, fresh)] = store.add_games([other])
    assert fresh and new_id != game.id
    assert store.history(new_id)[0]["action"] == "import"


def test_restoring_a_backup_of_a_game_played_on_since_adds_nothing(store: SqliteStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    backup = json.dumps([export_record(store.get(game.id))])
    play(store, game, record.moves[5:])
    for _ in range(3):
        assert store.add_games(read_games(backup)) == [(game.id, False)]
    assert store.game_ids() == [game.id]
    assert store.get(game.id).status == "won"
    assert store.latest_unfinished() is None
    overall = store.statistics()["overall"]
    assert (overall["played"], overall["won"]) == (1, 1)
    # Another game under the same id (here: another creation time) is kept
    # beside it, with a new id.
    other = read_games(backup)[0]
    other.created_at += 1
    [(new_id, fresh)] = store.add_games([other])
    assert fresh and new_id != game.id and len(store.game_ids()) == 2


def test_importing_what_is_here_already_takes_no_write_lock(db: Path) -> None:
    """The games of an import that are here already are found (and
    checked) in a read, so restoring the same backup again neither waits
    for nor holds the write lock a game in play needs for its moves."""
    record = golden("terrace-won")
    with open_store(db) as store:
        games = [start(store, record) for _ in range(3)]
        for game in games:
            play(store, game, record.moves[:4])
        backup = json.dumps([export_record(store.get(game.id)) for game in games])
    with locked_by_another(db), open_store(db) as store:  # (another program: the web game writing)
        started = time.monotonic()
        assert store.add_games(read_games(backup)) == [(game.id, False) for game in games]
        assert time.monotonic() - started < 2  # no wait for the lock (10 s)


def test_a_backup_of_a_game_played_on_elsewhere_is_not_lost(store: SqliteStore, tmp_path: Path) -> None:
    """Played on one computer, carried to another and won there, carried
    back: the win comes back (beside the older state), never skipped."""
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(json.dumps([export_record(store.get(game.id))])))
        elsewhere = other.get(game.id)
        play(other, elsewhere, record.moves[5:])
        newer = json.dumps([export_record(other.get(game.id))])
    revision = store.get(game.id).revision
    # it continues the game here: that game is brought up to date, in place
    assert store.add_games(read_games(newer)) == [(game.id, True)]
    here = store.get(game.id)
    assert here.status == "won" and here.moves == list(record.moves)
    # (a tab still showing it must reload; the record's revision is kept: it counts the changes there)
    assert here.revision == json.loads(newer)[0]["saved"]["revision"] > revision
    assert store.game_ids() == [game.id]
    overall = store.statistics()["overall"]
    assert (overall["played"], overall["won"], overall["abandoned"]) == (1, 1, 0)  # one game, won
    assert store.latest_unfinished() is None
    assert store.add_games(read_games(newer)) == [(game.id, False)]  # once
    assert store.history(game.id)[-1]["action"] == "join"  # (a state played elsewhere: no change made here)


def test_a_backup_played_on_elsewhere_keeps_the_hints_it_counts(store: SqliteStore, tmp_path: Path) -> None:
    """A record that continues the game here brings it up to its state with
    its own count of hints, when it counts more than the positions it names
    (a record of a Terrace that named none: ``saved.hinted`` left out). A
    mutation audit kept only the positions' count, the record's 3 hints
    became 0, and no test failed."""
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(json.dumps([export_record(store.get(game.id))])))
        play(other, other.get(game.id), record.moves[5:8])
        newer = json.loads(json.dumps([export_record(other.get(game.id))]))
    newer[0]["saved"]["hints"] = 3
    newer[0]["saved"].pop("hinted", None)
    assert store.add_games(read_games(json.dumps(newer))) == [(game.id, True)]
    assert store.get(game.id).hints == 3
    assert store.statistics()["overall"]["hints"] == 3


def test_a_backup_that_does_not_continue_the_game_here_goes_beside_it(
    store: SqliteStore, tmp_path: Path
) -> None:
    """Played on in both places (here a move taken back, there three
    played): neither state is lost, the record is stored with a new id."""
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    carried = json.dumps([export_record(store.get(game.id))])
    undo(store, store.get(game.id))
    time.sleep(0.01)  # (changed there after the undo here)
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(carried))
        play(other, other.get(game.id), record.moves[5:8])
        newer = json.dumps([export_record(other.get(game.id))])
    [(new_id, added)] = store.add_games(read_games(newer))
    assert added and new_id != game.id
    assert store.get(game.id).moves == list(record.moves[:4])
    assert store.get(new_id).moves == list(record.moves[:8])


def test_a_backup_played_as_far_but_on_another_line_goes_beside_the_game_here(
    store: SqliteStore, tmp_path: Path
) -> None:
    """Carried away, then one move played in each place, each another: the
    two states have the same revision, yet neither continues the other, so
    the record goes beside the game here and neither move is lost (a
    mutation audit read ``_continues``'s 'the same line and another state'
    as 'or', and the record then overwrote the move played here)."""
    record = golden("terrace-won")
    game = start(store, record)
    board = play(store, game, record.moves[:5])
    carried = json.dumps([export_record(store.get(game.id))])
    mine, theirs = sorted(str(m) for m in board.legal_moves)[:2]
    play(store, store.get(game.id), [mine])
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(carried))
        play(other, other.get(game.id), [theirs])
        newer = json.dumps([export_record(other.get(game.id))])
    assert json.loads(newer)[0]["saved"]["revision"] == store.get(game.id).revision  # (the same point)
    [(new_id, added)] = store.add_games(read_games(newer))
    assert added and new_id != game.id
    assert store.get(game.id).moves == [*record.moves[:5], mine]
    assert store.get(new_id).moves == [*record.moves[:5], theirs]


def test_a_game_given_up_in_both_places_at_other_times_goes_beside(
    store: SqliteStore, tmp_path: Path
) -> None:
    """Carried away, then given up there and here, each at its own time:
    the same line and as many changes, but given up at another time, so
    the record does not continue the game here and goes beside it (a
    mutation audit read ``_continues``'s 'neither given up nor won at
    another time' as 'or', and the record then overwrote the giving up
    here: one game lost where the two places lost two)."""
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    carried = json.dumps([export_record(store.get(game.id))])
    then, now = time.time() + 0.5, time.time() + 1.0
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(carried))
        there = other.get(game.id)
        there.given_up_at = then
        other.update(there, expected_revision=there.revision, action="give-up")
        newer = json.dumps([export_record(other.get(game.id))])
    here = store.get(game.id)
    here.given_up_at = now
    store.update(here, expected_revision=here.revision, action="give-up")
    assert json.loads(newer)[0]["saved"]["revision"] == store.get(game.id).revision
    [(new_id, added)] = store.add_games(read_games(newer))
    assert added and new_id != game.id
    assert store.get(game.id).given_up_at == now
    assert store.get(new_id).given_up_at == then
    assert store.statistics()["overall"]["lost"] == 2


def test_a_game_won_elsewhere_comes_back_even_after_a_later_change_here(
    store: SqliteStore, tmp_path: Path
) -> None:
    """Carried to another computer and won there, while here a hint was
    counted later: the copy here changed last, yet it lacks the win, so the
    record goes beside it and the win counts."""
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    with open_store(tmp_path / "other.sqlite") as other:
        other.add_games(read_games(json.dumps([export_record(store.get(game.id))])))
        play(other, other.get(game.id), record.moves[5:])
        won = json.dumps([export_record(other.get(game.id))])
    time.sleep(0.01)
    assert store.count_hint(game.id, "a position")  # (a change here after the win there)
    [(new_id, added)] = store.add_games(read_games(won))
    assert added and new_id != game.id and store.get(new_id).status == "won"
    assert store.statistics()["overall"]["won"] == 1
    assert store.add_games(read_games(won)) == [(new_id, False)]  # once


def test_a_backup_of_a_state_the_game_here_passed_through_adds_nothing(store: SqliteStore) -> None:
    """Restoring an older backup after moves were taken back here and
    others played adds nothing: the game here was in that state once."""
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:6])
    backup = json.dumps([export_record(store.get(game.id))])
    board = undo(store, store.get(game.id), 2)
    other = next(str(m) for m in board.legal_moves if str(m) != record.moves[4])
    play(store, store.get(game.id), [other])
    assert store.add_games(read_games(backup)) == [(game.id, False)]
    assert store.game_ids() == [game.id]
    # a state it never passed through (the same game, other moves) is kept
    stranger = read_games(backup)[0]
    stranger.moves = [*record.moves[:4], other, "s"] if other != "s" else [*record.moves[:4], other, other]
    stranger.id = "stranger"
    [(kept, added)] = store.add_games([stranger])
    assert added and kept == "stranger" and len(store.game_ids()) == 2


def test_a_backup_imported_then_played_otherwise_is_already_here_when_imported_again(
    store: SqliteStore, tmp_path: Path
) -> None:
    """An import logs no moves: the moves it brought are the line's first
    ones while nothing since took moves back below them."""
    record = golden("terrace-won")
    with open_store(tmp_path / "other.sqlite") as other:
        game = start(other, record)
        play(other, game, record.moves[:6])
        backup = json.dumps([export_record(other.get(game.id))])
    [(here, added)] = store.add_games(read_games(backup))
    assert added
    board = undo(store, store.get(here), 2)
    elsewhere = next(str(m) for m in board.legal_moves if str(m) != record.moves[4])
    play(store, store.get(here), [elsewhere])
    assert store.add_games(read_games(backup)) == [(here, False)]
    assert store.game_ids() == [here]


def test_add_games_is_all_or_nothing(store: SqliteStore) -> None:
    good = finish(MemoryStore(), "terrace-won")
    bad = finish(MemoryStore(), "terrace-lost")
    bad.moves[10] = "t9t9"
    with pytest.raises(StoreError, match="cannot be saved"):
        store.add_games([good, bad])
    assert store.game_ids() == []


def test_the_memory_database(tmp_path: Path) -> None:
    store = open_store(":memory:")
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:3])
    assert store.get(game.id).moves == list(record.moves[:3])
    assert store.path is None


def test_the_default_path_is_created_in_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TERRACE_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = tmp_path / "data" / "terrace" / "games.sqlite"
    assert default_games_path() == expected
    with open_store(None) as store:
        assert store.path == expected
    assert expected.is_file()
    monkeypatch.setenv("TERRACE_DB", str(tmp_path / "elsewhere" / "mine.sqlite"))
    with open_store(None) as store:
        assert store.path == tmp_path / "elsewhere" / "mine.sqlite"


def test_stored_records_are_engine_records(store: SqliteStore) -> None:
    game = quick_finish(store, "terrace-won")
    record = store.get(game.id).record()
    assert GameRecord.from_json(record.to_json()) == golden("terrace-won")
    assert json.loads(record.to_json())["result"] == "won"


def test_two_stores_on_one_file_see_each_other(db: Path) -> None:
    with open_store(db) as one, open_store(db) as two:
        record = golden("terrace-won")
        game = start(one, record)
        play(one, game, record.moves[:4])
        seen = two.get(game.id)
        play(two, seen, record.moves[4:6])
        assert one.get(game.id).moves == list(record.moves[:6])


def test_closed_store_fails_cleanly(db: Path) -> None:
    store = open_store(db)
    store.close()
    with pytest.raises((StoreError, sqlite3.ProgrammingError)):
        store.recent()


def test_a_read_only_store_creates_nothing_and_refuses_every_change(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "games.sqlite"
    with pytest.raises(NoDatabaseError, match=r"there is no games database games\.sqlite"):
        open_store(missing, read_only=True)
    assert list(tmp_path.iterdir()) == []
    db = tmp_path / "games.sqlite"
    record = golden("terrace-won")
    with open_store(db) as store:
        game = start(store, record)
        play(store, game, record.moves[:3])
    content = db.read_bytes()
    with open_store(db, read_only=True) as store:
        assert store.get(game.id).moves == list(record.moves[:3])
        assert store.statistics()["overall"]["played"] == 1
        with pytest.raises(StoreWriteError, match=r"the new game was not saved: .*only to read"):
            start(store, record)
        with pytest.raises(StoreWriteError, match="only to read"):
            store.mark_assisted(game.id)
    assert db.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]


@pytest.mark.parametrize("edit", [
    *(f"UPDATE games SET {change} WHERE id = ?" for change in (
        "hints = -7", "revision = -1", "assisted = 'yes'", "winnable_only = 2", "status = 'bogus'")),
    # bytes that are not UTF-8, or a BLOB where text or a number belongs (a flipped bit)
    "UPDATE moves SET move = CAST(x'77ff66' AS TEXT) WHERE ply = 0 AND game_id = ?",
    "UPDATE games SET variant = CAST(x'ff' AS TEXT) WHERE id = ?",
    *(f"UPDATE games SET {column} = CAST({column} AS BLOB) WHERE id = ?"
      for column in ("variant", "rules", "status", "move_count")),
    "UPDATE moves SET move = CAST(move AS BLOB) WHERE ply = 1 AND game_id = ?",
])
def test_a_row_that_breaks_a_constraint_is_a_damaged_game_not_a_damaged_file(db: Path, edit: str) -> None:
    """The game is damaged, not the file: the others, the recent list and
    the statistics go on."""
    record = golden("terrace-won")
    with open_store(db) as store:
        bad, good = start(store, record), start(store, record)
        play(store, bad, record.moves[:2])
        play(store, good, record.moves[:3])
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute(edit, (bad.id,))
    conn.close()
    for read_only in (False, True):
        with open_store(db, read_only=read_only) as store:
            with pytest.raises(DamagedGameError, match=f"saved game {bad.id} is damaged"):
                store.get(bad.id)
            assert [g.id for g in store.recent()] == [good.id]
            assert store.get(good.id).moves == list(record.moves[:3])
            # The statistics leave out the damaged game, and count it.
            data = store.statistics()
            assert (data["overall"]["played"], data["damaged"]) == (1, 1)


def test_a_game_on_a_deal_without_a_number_loads_back_from_a_new_store(tmp_path: Path) -> None:
    """A deal given by its cards (no number) is stored with a null number;
    a store opened afresh loads the game with the same cards and still no
    number (a mutation audit read ``number is not None and`` as ``or`` and
    test_record.py/test_store_stamps.py passed: the row then read as
    damaged, "deal_number must be a whole number, not None")."""
    from terrace.deal import Deal

    record = golden("terrace-won")
    deal = Deal(record.deal.cards, None)
    with open_store(tmp_path / "games.sqlite") as store:
        game = store.create(record.variant, record.rules, deal)
        play(store, game, record.moves[:2])
    with open_store(tmp_path / "games.sqlite") as store:
        loaded = store.get(game.id)
        assert loaded.deal.number is None and loaded.deal.cards == deal.cards
        assert loaded.board().move_stack == game.board().move_stack
