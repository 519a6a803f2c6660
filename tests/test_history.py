"""The earlier positions a game could reach again: the walk back ends at
the first position of another stock size or redeal count, and after
LOOKBACK positions whatever was played (a budget a hint can keep)."""

from __future__ import annotations

import time
from typing import Any

from terrace.board import Board
from terrace.solver import hint_line
from terrace.solver.history import LOOKBACK, same_pass_positions
from terrace.solver.observation import observe, visible_key
from terrace.variants import get_rules


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


def test_a_hint_on_a_game_of_a_hundred_thousand_moves_keeps_its_budget(monkeypatch: Any) -> None:
    board = to_and_fro(50_000)
    assert len(board.move_stack) > 2 * LOOKBACK
    started = time.perf_counter()
    same_pass_positions(board)
    observe(board)
    assert time.perf_counter() - started < 2.0  # about 0.2 s (2 s and more before the walk was bounded)
    given: list[float] = []
    real_solve = hint_line.solve

    def timed(start: Board, **options: Any) -> Any:
        given.append(options["max_seconds"])
        return real_solve(start, **options)

    def slow_walk(board: Board) -> set[str]:
        time.sleep(0.3)
        return same_pass_positions(board)

    monkeypatch.setattr(hint_line, "solve", timed)
    monkeypatch.setattr(hint_line, "same_pass_positions", slow_walk)
    found = hint_line.peek_hint(board, 1.0)
    assert found.move is not None
    assert given and given[0] <= 0.7  # the solver gets what the walk left of the budget
