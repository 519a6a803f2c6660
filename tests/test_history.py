"""The earlier positions a game could reach again: the walk back ends at
the first position of another stock size or redeal count, and after
LOOKBACK positions whatever was played (a budget a hint can keep)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from terrace.board import Board
from terrace.solver import hint_line
from terrace.solver.history import LOOKBACK, Key, pass_stage, same_pass_keys, same_pass_positions
from terrace.solver.observation import observe, visible_key
from terrace.variants import get_rules
from terrace.web.hints import find_hint


def to_and_fro(times: int) -> Board:
    """Terrace deal 1 after 32 moves, then a card moved from pile 5 to pile
    4 and back ``times`` times (no draw in between)."""
    board = Board.from_number(1, get_rules("terrace"))
    opening = ("c1 t5f t4t2 t3t2 t4f t2f t7t6 t2f t3t1 t2f t2f s s wt5 s t3t5 t2t3 s s wt8 wt1 "
               "t1f t1f t1f s s s s s wt5 s t4t5")
    for text in opening.split():
        board.push_text(text)
    start = board.position()
    for _ in range(times):
        board.push_text("t5t4")
        board.push_text("t4t5")
    assert board.position() == start
    return board


def test_the_walk_ends_at_the_last_draw() -> None:
    board = Board.from_number(4, get_rules("falling-star"))
    board.push_text("s")
    assert same_pass_positions(board) == {board.position()}
    before = board.position()
    move = next(m for m in board.legal_moves if not m.is_draw)
    board.push(move)
    assert same_pass_positions(board) == {before, board.position()}


def test_every_position_of_the_pass_is_found_with_its_key() -> None:
    board = to_and_fro(3)
    positions = same_pass_positions(board)
    walker, expected = board.copy(), {board.position()}
    while not walker.move_stack[-1].is_draw:
        walker.pop()
        expected.add(walker.position())
    assert positions == expected and len(expected) < 8  # (the to-and-fro repeats its positions)
    assert same_pass_positions(board, visible_key) == {visible_key(p) for p in positions}


def test_the_walk_looks_back_so_far_and_no_further() -> None:
    board = to_and_fro(2)
    board.pop()
    board.pop()
    board.pop()  # one move into the to-and-fro: two positions, the latest first
    assert len(same_pass_positions(board, lookback=1)) == 2
    assert len(same_pass_positions(board, lookback=0)) == 1


_BOARD_POP = Board.pop


def _count_take_backs(monkeypatch: Any) -> list[int]:
    """From now on, a 1 in the list returned for each move taken back (Board.pop)."""
    taken: list[int] = []

    def counted(self: Board) -> Any:
        taken.append(1)
        return _BOARD_POP(self)

    monkeypatch.setattr(Board, "pop", counted)
    return taken


def test_a_hint_on_a_game_of_a_hundred_thousand_moves_keeps_its_budget(monkeypatch: Any) -> None:
    board = to_and_fro(50_000)
    assert len(board.move_stack) > 2 * LOOKBACK
    # counted, not timed (1.0 s of wall clock for 0.035 s of CPU at load ~19):
    # each walk takes back LOOKBACK moves at most (100,000 before it was bounded)
    taken = _count_take_backs(monkeypatch)
    same_pass_positions(board)
    observe(board)
    monkeypatch.setattr(Board, "pop", _BOARD_POP)
    assert 0 < len(taken) <= 2 * LOOKBACK + 2, len(taken)
    given: list[float] = []
    real_solve = hint_line.solve

    def timed(start: Board, **options: Any) -> Any:
        given.append(options["max_seconds"])
        return real_solve(start, **options)

    def slow_walk(board: Board) -> set[Key]:
        time.sleep(0.3)
        return same_pass_keys(board)

    monkeypatch.setattr(hint_line, "solve", timed)
    monkeypatch.setattr(hint_line, "same_pass_keys", slow_walk)
    found = hint_line.peek_hint(board, 1.0)
    assert found.move is not None
    assert given and given[0] <= 0.7  # the solver gets what the walk left of the budget


def test_a_fair_hint_on_a_long_eight_deck_game_keeps_its_budget(monkeypatch: Any) -> None:
    """Eight decks, 20 piles, 5,000 moves to and fro: each walk back built
    2,000 position strings of 416 cards (0.1 to 0.3 s a walk, two walks a
    hint: a 0.1 s fair hint took 0.34 s on a quiet machine, 1.0 s on a busy
    one); a position met again is now known by its cards, without building
    its string (0.02 s a walk, the hint 0.15 s)."""
    from test_coach import to_and_fro as to_and_fro_on

    rules = get_rules("terrace", decks=8, reserve=20, piles=20, candidates=0, spaces="free")
    start, moves = to_and_fro_on(rules, 3, 5_000)
    board = start.copy()
    for move in moves:
        board.push(move)
    strings = 0
    real_position = Board.position

    def counted(self: Board) -> str:
        nonlocal strings
        strings += 1
        return real_position(self)

    monkeypatch.setattr(Board, "position", counted)
    started = time.process_time()  # (not the wall clock: 0.7-1.4 s of it for 0.05-0.08 s of CPU at load ~18)
    found = find_hint(board, 0.1)
    assert time.process_time() - started < 1.0
    assert found["move"] is not None
    assert strings < 100  # (4,000 and more before)


def test_the_walk_finds_what_a_walk_through_every_position_finds() -> None:
    rng = random.Random(4)
    for number in range(1, 13):
        board = Board.from_number(number, get_rules("falling-star", spaces="free"))
        for _ in range(120):
            if rng.random() < 0.1 and board.can_undo:
                board.pop()
                continue
            legal = [m for m in board.legal_moves if not m.is_draw or rng.random() < 0.2]
            if not legal:
                break
            board.push(rng.choice(legal))
        walker, expected = board.copy(), {board.position()}
        stage = pass_stage(board)
        while walker.move_stack:
            walker.pop()
            if pass_stage(walker) != stage:
                break
            expected.add(walker.position())
        assert same_pass_positions(board) == expected


def test_the_event_log_is_read_for_draws_taken_back_and_within_its_time() -> None:
    """A draw taken back and replaced by another move leaves the redo line,
    not the event log: the card it showed stays known. Reading a log of
    100,000 moves takes over a second, so the reading stops at its instant
    with what it has read (knowing less, never more)."""
    from terrace.solver.observation import stock_shown

    board = to_and_fro(0)
    start = Board.from_number(1, get_rules("terrace"))
    log: list[tuple[str, str | None, int]] = [("create", None, 0)]
    log += [("move", str(m), n) for n, m in enumerate(board.move_stack, 1)]
    played = len(log) - 1
    board.push_text("s")
    board.pop()
    board.push_text("t5t4")  # the redo line is gone
    log += [("move", "s", played + 1), ("undo", "s", played), ("move", "t5t4", played + 1)]
    assert observe(board).stock[-1] is None
    shown = stock_shown(start, log)
    assert shown == len(board.stock) - 1 and observe(board, shown).stock[-1] == board.stock[-1]
    assert stock_shown(start, [("import", None, played), *log[played + 1:]]) is None  # (no log before it)
    long = to_and_fro(50_000)
    texts = [str(m) for m in long.move_stack]
    events = [("create", None, 0), *[("move", text, n) for n, text in enumerate(texts, 1)]]
    until = time.perf_counter() + 0.05
    read, late = [0], [0]  # events read, and read once the instant had passed

    def reading() -> Iterator[tuple[str, str | None, int]]:
        for event in events:
            read[0] += 1
            late[0] += time.perf_counter() >= until
            yield event

    partly = stock_shown(Board.from_number(1, get_rules("terrace")), reading(), until=until)
    # (counted, not timed: a loaded machine made a 0.05 s budget last 1.25 s)
    assert read[0] < len(events) and late[0] <= 256 + 1, (read, late)
    assert partly is None or partly >= len(long.stock)


def test_the_solver_reads_no_further_back_or_ahead_than_a_board_keeping_lookback_moves() -> None:
    """A solver job of the web game gets the board with LOOKBACK moves of
    history each way (``Board.copy(keep=LOOKBACK)``): what a hint reads of
    the game, the positions it avoids and the stock cards a redo would
    show, is the whole board's, whether the game was taken back or not."""
    board = to_and_fro(LOOKBACK + 400)
    board.push_text("s")  # (a draw taken back is a stock card known)
    for _ in range(LOOKBACK // 2):
        board.push_text("t5t4")
        board.push_text("t4t5")
    # (taken back 2 * LOOKBACK moves, the draw is the last redo move a hint looks at; one more, and it is not)
    for undo in (0, 1, 40, LOOKBACK, LOOKBACK + 1, 2 * LOOKBACK, 2 * LOOKBACK + 1):
        full = board.copy()
        for _ in range(undo):
            full.pop()
        recent = full.copy(keep=LOOKBACK)
        assert observe(full.copy(keep=LOOKBACK - 1)) != observe(full) or undo != 2 * LOOKBACK
        assert len(recent.move_stack) <= LOOKBACK and len(recent.redo_stack) <= LOOKBACK
        assert observe(recent) == observe(full)
        assert same_pass_positions(recent) == same_pass_positions(full)


def _walked(board: Board, lookback: int) -> set[Key]:
    """The positions of the pass, walked back afresh (as before the memo)."""
    from terrace.solver.history import _same_pass_boards

    return {board.position_key()} | {earlier.position_key() for earlier in _same_pass_boards(board, lookback)}


@pytest.mark.parametrize("lookback", [1, 3, 40, LOOKBACK])
def test_the_walk_back_gone_on_from_the_last_is_the_walk_made_afresh(lookback: int) -> None:
    """same_pass_keys goes on from the walk it made one move before in the
    same game; whatever is played (moves to and fro, draws, moves taken
    back and redone, two games in turn, the board copied as the web's
    solver process gets it, with its last moves only) it finds what a walk
    made afresh finds."""
    rng = random.Random(lookback)
    boards = [Board.from_number(4, get_rules("falling-star")), Board.from_number(5, get_rules("wood"))]
    for step in range(600):
        board = boards[step % 2] if rng.random() < 0.8 else boards[rng.randrange(2)]
        roll = rng.random()
        if roll < 0.1 and board.move_stack:
            board.pop()
        elif roll < 0.15 and board.can_redo:
            board.redo()
        else:
            moves = [m for m in board.legal_moves if not m.is_draw] if rng.random() < 0.9 else []
            moves = moves or list(board.legal_moves)
            if not moves:
                continue
            board.push(rng.choice(moves))
        asked = board if rng.random() < 0.7 else board.copy(keep=rng.choice([1, lookback, 5_000]))
        assert set(same_pass_keys(asked, lookback)) == _walked(asked, lookback), step


def test_a_hint_along_a_long_pass_walks_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each hint along a pass of 2,000 moves walked back through all of
    them (Empress of Italy, pile moves only: 80 ms of a continued hint that
    otherwise takes 1 ms, load 23): a walk back goes on from the last."""
    board = Board.from_number(1, get_rules("empress-of-italy"))
    board.push_text("c1")
    rng = random.Random(1)
    for _ in range(2_000):
        board.push(rng.choice([m for m in board.legal_moves if m.source == m.target == "t"]))
    same_pass_keys(board)
    taken = _count_take_backs(monkeypatch)
    for _ in range(20):
        board.push(rng.choice([m for m in board.legal_moves if m.source == m.target == "t"]))
        keys = same_pass_keys(board)
    assert len(taken) <= 20 + 20  # (one move taken back a walk, and the counted pushes' none)
    monkeypatch.setattr(Board, "pop", _BOARD_POP)
    assert set(keys) == _walked(board, LOOKBACK)
