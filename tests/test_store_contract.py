"""The contract of a game store, run against every store: what one accepts,
the other accepts; what one refuses, the other refuses, with the same
error, and without changing anything."""

from __future__ import annotations

import time
from typing import Any

import pytest

from store_support import (
    finish,
    golden,
    no_default_db,
    play,
    start,
    store_on_each_kind,  # noqa: F401  (the store fixture)
    undo,
)
from terrace.deal import Deal
from terrace.storage import (
    ClockOutOfRangeError,
    ConflictError,
    GameStore,
    MemoryStore,
    SqliteStore,
    StoreError,
    UnknownGameError,
    UnsavableGameError,
    base,
)
from terrace.variants import get_rules

_ = no_default_db


def test_a_new_game_has_revision_zero_and_the_status_of_its_rules(store: GameStore) -> None:
    rules = get_rules("falling-star")
    game = store.create("falling-star", rules, Deal.from_number(4, rules), winnable_only=True)
    assert (game.revision, game.status, game.moves, game.redo) == (0, "playing", [], [])
    assert game.created_at == game.updated_at and game.started_at is None
    again = store.get(game.id)
    assert again == game and again.winnable_only and again.deal.number == 4
    alias = store.create("signora", get_rules("terrace"), Deal.from_number(4, get_rules("terrace")))
    assert alias.variant == "terrace" and alias.status == "choosing"


def test_a_game_that_cannot_start_is_refused(store: GameStore) -> None:
    wood = get_rules("wood")
    with pytest.raises(StoreError, match="cannot start this game: unknown variant"):
        store.create("chess", wood, Deal.from_number(1, wood))
    with pytest.raises(StoreError, match="cannot start this game"):
        store.create("terrace", get_rules("terrace"), Deal.from_number(1, wood.replace(decks=1)))
    assert store.recent() == []


def test_unknown_games(store: GameStore) -> None:
    with pytest.raises(UnknownGameError, match="there is no game 'nope'"):
        store.get("nope")
    record = golden("terrace-won")
    ghost = MemoryStore().create(record.variant, record.rules, record.deal)
    with pytest.raises(UnknownGameError):
        store.update(ghost, expected_revision=0, action="move")


def test_moves_undos_and_redos_are_stored(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:12])
    board = undo(store, game, 3)
    again = store.get(game.id)
    assert again.moves == list(record.moves[:9])
    assert again.redo == [str(m) for m in board.redo_stack]
    assert again.board() == board and again.board().redo_stack == board.redo_stack
    assert (again.undos, again.revision) == (3, 15)
    assert again.started_at is not None and again.started_at <= again.updated_at
    # Redo one, then a different move drops the rest of the redo stack.
    board = again.board()
    board.redo()
    again.sync(board)
    store.update(again, expected_revision=again.revision, action="redo")
    assert store.get(game.id).moves == list(record.moves[:10])
    assert len(store.get(game.id).redo) == 2
    board.pop()
    other = next(m for m in board.legal_moves if str(m) != record.moves[9])
    board.push(other)
    again.sync(board)
    store.update(again, expected_revision=again.revision, action="move")
    final = store.get(game.id)
    assert final.redo == [] and final.moves == [*record.moves[:9], str(other)]
    if isinstance(store, SqliteStore):  # the dropped line is gone from the file too
        rows = store._conn.execute("SELECT count(*) FROM moves WHERE game_id = ?", (game.id,))
        assert rows.fetchone()[0] == 10


def test_the_caller_s_game_gets_its_new_revision_and_times(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:1])
    stored = store.get(game.id)
    assert (game.revision, game.updated_at, game.started_at) == (
        stored.revision, stored.updated_at, stored.started_at
    )


def test_games_handed_out_are_copies(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    game.moves.append("c1")
    game.hints = 5
    taken = store.get(game.id)
    taken.moves.append("c2")
    assert store.get(game.id).moves == [] and store.get(game.id).hints == 0


def test_a_stale_revision_is_refused_and_changes_nothing(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:2])
    tab = store.get(game.id)
    play(store, game, record.moves[2:3])
    board = tab.board()
    board.push_text(record.moves[2])
    tab.sync(board)
    with pytest.raises(ConflictError, match=r"changed in another window \(revision 3, not 2\)"):
        store.update(tab, expected_revision=2, action="move")
    assert tab.revision == 2 and store.get(game.id).revision == 3


SPOILS = [
    ("illegal move", "cannot be saved: move 6: rf: "),
    ("unreadable move", "is not a move"),
    ("status", "its status is 'won'"),
    ("deal", "cannot change|cannot be saved"),
    ("rules", "cannot change"),
    ("variant", "cannot change"),
    ("unknown action", "unknown action 'shuffle'"),
    ("create action", "unknown action 'create'"),
]


@pytest.mark.parametrize(("spoil", "words"), SPOILS, ids=[s[0] for s in SPOILS])
def test_updates_that_are_not_games_are_refused_and_change_nothing(
    store: GameStore, spoil: str, words: str
) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:5])
    before = store.get(game.id)
    action = "move"
    if spoil == "illegal move":
        game.moves.append("rf")
    elif spoil == "unreadable move":
        game.moves.append("x7")
    elif spoil == "status":
        game.status = "won"
    elif spoil == "deal":
        game.deal = Deal.from_number(99, game.rules)
    elif spoil == "rules":
        game.rules = game.rules.replace(redeals=3)
    elif spoil == "variant":
        game.variant = "wood"
    else:
        action = spoil.split()[0] if spoil == "create action" else "shuffle"
    with pytest.raises(StoreError, match=words) as caught:
        store.update(game, expected_revision=5, action=action)
    assert not isinstance(caught.value, ConflictError)
    assert store.get(game.id) == before


def test_finish_times_are_set_on_the_last_move_and_cleared_by_undo(store: GameStore) -> None:
    record = golden("terrace-lost")
    game = start(store, record)
    play(store, game, record.moves)
    stored = store.get(game.id)
    assert stored.status == "lost" and stored.finished_at is not None
    undo(store, stored)
    assert store.get(game.id).finished_at is None and store.get(game.id).status == "playing"


def test_latest_unfinished_and_recent(store: GameStore) -> None:
    assert store.latest_unfinished() is None and store.recent() == []
    first = start(store, golden("terrace-won"))
    second = start(store, golden("terrace-lost"))
    latest = store.latest_unfinished()
    assert latest is not None and latest.id == second.id
    play(store, first, ["c1"])
    latest = store.latest_unfinished()
    assert latest is not None and latest.id == first.id
    assert [g.id for g in store.recent()] == [first.id, second.id]
    assert [g.id for g in store.recent(1)] == [first.id]
    assert store.recent(0) == []


def test_a_clock_put_back_lists_the_games_played_since_first(
        store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three games played while the clock was 300 days ahead, then, the
    clock set right, a new game and a move in the first of them: the list of
    games played last put the three above the new game, the game in play
    (``latest_unfinished`` named it), in the order of their times; with 20
    such games it was left off the list. The list follows the log, as the
    game in play does; a clock gone on past the old times lists by time
    again."""
    record = golden("terrace-lost")
    right = time.time()
    clock = [right + 300 * 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    ahead = []
    for _ in range(3):
        ahead.append(start(store, record))
        play(store, ahead[-1], record.moves[:2])
        clock[0] += 60
    clock[0] = right
    new = start(store, record)
    play(store, new, record.moves[:2])
    clock[0] += 10
    play(store, store.get(ahead[0].id), record.moves[2:3])
    listed = [g.id for g in store.recent()]
    assert listed == [ahead[0].id, new.id, ahead[2].id, ahead[1].id]
    assert [g.id for g in store.recent(2)] == listed[:2]
    latest = store.latest_unfinished()
    assert latest is not None and latest.id == ahead[0].id
    clock[0] = right + 400 * 86_400  # (the times the clock gave then are past)
    play(store, store.get(ahead[1].id), record.moves[2:3])
    assert [g.id for g in store.recent()] == [ahead[1].id, ahead[0].id, new.id, ahead[2].id]


def test_statistics_count_only_played_games(store: GameStore) -> None:
    record = golden("terrace-won")
    start(store, record)
    play(store, start(store, record), record.moves[:3])
    overall = store.statistics()["overall"]
    assert overall["played"] == 1 and overall["won"] == 0


# -- honest statistics ---------------------------------------------------------------


def overall(store: GameStore) -> dict[str, Any]:
    block: dict[str, Any] = store.statistics()["overall"]
    return block


def counts(store: GameStore) -> tuple[int, int, int, int, int]:
    block = overall(store)
    return block["played"], block["won"], block["lost"], block["abandoned"], block["unfinished"]


def test_statistics_as_a_player_meets_them(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:3])
    assert counts(store) == (1, 0, 0, 0, 1) and overall(store)["win_rate"] is None
    start(store, golden("terrace-lost"))  # a new game: the first one is left
    assert counts(store) == (1, 0, 0, 1, 0) and overall(store)["win_rate"] == 0.0
    play(store, game, record.moves[3:4])  # resumed: no longer abandoned
    assert counts(store) == (1, 0, 0, 0, 1)
    store.add_active_time(game.id, 90_000)
    board = play(store, game, record.moves[4:])
    assert board.status.value == "won"
    store.add_active_time(game.id, 2_500)  # the page's last report, after the winning move
    won = store.get(game.id)
    assert won.won_at is not None and won.won_moves == len(record.moves)
    assert won.won_active_ms == won.active_ms == 92_500
    assert counts(store) == (1, 1, 0, 0, 0) and overall(store)["win_rate"] == 1.0
    assert overall(store)["fastest_seconds"] == 92.5
    # A win is final: taking moves back keeps it (and redoing does not add one).
    again = undo(store, won, 2)
    assert again.status.value == "playing"
    assert store.get(game.id).won_at == won.won_at and store.get(game.id).status == "playing"
    store.add_active_time(game.id, 10_000)  # not part of the win any more
    assert counts(store) == (1, 1, 0, 0, 0) and overall(store)["fewest_moves"] == len(record.moves)
    assert overall(store)["fastest_seconds"] == 92.5
    # Won again by the same moves: time reported then is play after the
    # first win (the clock does not run on a won game), no part of it.
    play(store, store.get(game.id), record.moves[-2:])
    assert store.get(game.id).status == "won"
    store.add_active_time(game.id, 5_000)
    store.add_active_time(game.id, 5_000)
    assert store.get(game.id).won_active_ms == 92_500 and store.get(game.id).active_ms == 112_500
    assert overall(store)["fastest_seconds"] == 92.5
    # Five more games, each left after one move for the next: 1 won in 6.
    for name in ["terrace-lost"] * 5:
        play(store, start(store, golden(name)), ["c1"])
    start(store, golden("wood-lost"))
    block = overall(store)
    assert (block["played"], block["won"], block["abandoned"]) == (6, 1, 5)
    assert block["win_rate"] == pytest.approx(1 / 6)
    assert block["current_streak"] == 0 and block["best_streak"] == 1


def test_a_hint_counts_once_per_position(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    board = play(store, game, record.moves[:2])
    stale = store.get(game.id)
    assert store.count_hint(game.id, board.position()) is True
    assert store.count_hint(game.id, board.position()) is False  # the same position again
    board.push_text(record.moves[2])
    assert store.count_hint(game.id, board.position()) is True
    assert store.get(game.id).hints == 2
    assert store.get(game.id).revision == 2  # hints never make another tab stale
    play(store, stale, record.moves[2:3])  # a write from before the hints keeps them
    assert store.get(game.id).hints == 2 and overall(store)["hints"] == 2
    with pytest.raises(UnknownGameError):
        store.count_hint("nope", board.position())
    # (a lone surrogate, which no file can hold: the SQLite store failed with
    # a UnicodeEncodeError where the memory store counted it)
    for bad in ("", "x" * 5000, 7, "\ud800", "a\x00b"):
        with pytest.raises(StoreError, match="position key"):
            store.count_hint(game.id, bad)  # type: ignore[arg-type]


def test_an_assist_or_hint_while_open_changes_nothing_once_the_game_is_won_or_given_up(
    store: GameStore,
) -> None:
    """What the web game asks after a solver's answer: another tab may have
    ended the game meanwhile (its win is final)."""
    won = finish(store, "terrace-won")
    record = golden("terrace-won")
    given_up = start(store, record)
    board = play(store, given_up, record.moves[:2])
    given_up.given_up_at = given_up.updated_at + 1
    store.update(given_up, expected_revision=given_up.revision, action="give-up")
    for game in (won, given_up):
        assert store.mark_assisted(game.id, while_open=True) is False
        assert store.count_hint(game.id, board.position(), while_open=True) is False
        after = store.get(game.id)
        assert (after.assisted, after.hints) == (False, 0)
    assert overall(store)["fewest_moves"] == len(record.moves)
    playing = start(store, record)
    assert store.mark_assisted(playing.id, while_open=True) is True
    assert store.count_hint(playing.id, board.position(), while_open=True) is True
    assert (store.get(playing.id).assisted, store.get(playing.id).hints) == (True, 1)
    assert store.mark_assisted(won.id) is True and store.get(won.id).assisted  # (without: as always)


def test_assists_and_active_time_are_kept(store: GameStore) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:1])
    stale = store.get(game.id)
    store.mark_assisted(game.id)
    store.mark_assisted(game.id)
    assert store.add_active_time(game.id, 1_500) == 1_500
    assert store.add_active_time(game.id, 0) == 1_500
    assert store.add_active_time(game.id, 500) == 2_000
    play(store, stale, record.moves[1:2])  # an older copy cannot take them back
    again = store.get(game.id)
    assert again.assisted and again.active_ms == 2_000 and again.revision == 2
    block = overall(store)
    assert block["assisted"] == 1 and block["active_seconds"] == 2.0
    for bad in (-1, 1.5, True, 6 * 3600 * 1000 + 1):
        with pytest.raises(StoreError, match="active time"):
            store.add_active_time(game.id, bad)  # type: ignore[arg-type]
    assert store.get(game.id).active_ms == 2_000
    for method in (store.mark_assisted, lambda gid: store.add_active_time(gid, 5)):
        with pytest.raises(UnknownGameError):
            method("nope")


def test_a_clock_before_2000_refuses_the_change_instead_of_storing_a_damaged_game(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:3])
    before = store.get(game.id)
    monkeypatch.setattr(time, "time", lambda: 86_400.0)  # 2 January 1970
    board = game.board()
    board.push_text(record.moves[3])
    game.sync(board)
    # (named as the clock's fault: it said "updated_at must be a time ... from 2000")
    said = r"cannot be saved: the computer's clock says 1970-01-02 00:00 UTC, .* from 2000 to 2100"
    with pytest.raises(UnsavableGameError, match=said) as refused:
        store.update(game, expected_revision=3, action="move")
    assert isinstance(refused.value, ClockOutOfRangeError) and refused.value.date == "1970-01-02 00:00 UTC"
    with pytest.raises(ClockOutOfRangeError, match=said):
        store.create(record.variant, record.rules, record.deal)
    monkeypatch.undo()
    assert store.get(game.id) == before and [g.id for g in store.recent()] == [game.id]


def test_a_line_longer_than_a_saved_game_may_hold_is_refused(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = golden("terrace-won")
    game = start(store, record)
    monkeypatch.setattr(base, "MAX_LINE", 4)
    play(store, game, record.moves[:4])
    before = store.get(game.id)
    board = game.board()
    board.push_text(record.moves[4])
    game.sync(board)
    with pytest.raises(UnsavableGameError, match="more than 4 moves"):
        store.update(game, expected_revision=4, action="move")
    assert store.get(game.id) == before


def test_counts_stop_at_their_limit_and_the_game_stays_readable(store: GameStore) -> None:
    """Hints and undos are counted up to base.MAX_COUNT (docs/storage.md): a
    hint on a new position at the limit used to store one more, and the game
    then read as damaged (no read, export or statistics took it again)."""
    record = golden("terrace-won")
    game = start(store, record)
    game.hints = game.undos = base.MAX_COUNT
    board = play(store, game, record.moves[:2])
    assert store.count_hint(game.id, board.position()) is False  # (a new position, but no more is counted)
    again = store.get(game.id)
    assert (again.hints, again.undos) == (base.MAX_COUNT, base.MAX_COUNT)
    assert overall(store)["hints"] == base.MAX_COUNT


def test_play_after_a_win_reported_once_it_is_won_again_is_no_part_of_the_win(store: GameStore) -> None:
    """Moves taken back after a win and played again, with no report of
    time between (the page reports every 20 s, and when the game ends):
    the report that follows the second win carries play after the first,
    and made the fastest win that much slower (0.15 s became 12.9 s)."""
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:-1])
    store.add_active_time(game.id, 60_000)
    play(store, store.get(game.id), record.moves[-1:])
    store.add_active_time(game.id, 2_500)  # the page's last report, after the winning move
    assert store.get(game.id).won_active_ms == 62_500
    again = undo(store, store.get(game.id), 2)
    assert again.status.value == "playing"
    play(store, store.get(game.id), record.moves[-2:])  # won again, no report between
    store.add_active_time(game.id, 12_000)  # the play since the first win
    won = store.get(game.id)
    assert won.status == "won" and won.active_ms == 74_500
    assert won.won_active_ms == 62_500
    assert overall(store)["fastest_seconds"] == 62.5
