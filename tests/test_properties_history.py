"""Properties of a game's history under any mix of moves, undos, redos and
copies: where ``test_properties.py`` pushes, then pops, these walks take
moves back and redo them at random, play the move on top of the redo stack
or another one, and copy the board (whole, keeping a few moves, or from the
start with the game to redo). At every step the board must be the game its
moves make when replayed from the deal, and its stacks those of a plain
model: a move taken back goes onto the redo stack, a redo plays the move on
top of it, the same move played keeps the rest of the redo stack and any
other move clears it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from terrace.board import Board
from terrace.deal import MAX_DEAL_NUMBER
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.rules import Rules
from test_properties import any_rules

WALKS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def replayed(rules: Rules, board: Board, moves: list[Move]) -> Board:
    """The board ``moves`` make from ``board``'s deal, each pushed in turn."""
    assert board.deal is not None
    fresh = Board(rules, board.deal)
    for move in moves:
        fresh.push(move)
    return fresh


def check_copy_keeping(board: Board, played: list[Move], redo: list[Move], keep: int) -> None:
    """``copy(keep=...)`` holds the last ``keep`` moves each way, and taking
    them all back, then redoing them all, gives the boards the full game
    gives."""
    recent = board.copy(keep=keep)
    back = min(keep, len(played))
    assert recent.move_stack == played[len(played) - back:]
    ahead = min(keep, len(redo))
    assert recent.redo_stack == redo[len(redo) - ahead:]
    assert recent == board
    for _ in range(back):
        recent.pop()
    assert recent.position() == replayed(board.rules, board, played[: len(played) - back]).position()
    while recent.can_redo:
        recent.redo()
    line = played + redo[::-1]
    assert recent.position() == replayed(board.rules, board, line[: len(played) + ahead]).position()


@WALKS
@given(any_rules(), st.integers(0, MAX_DEAL_NUMBER), st.integers(0, 2**32), st.integers(1, 250))
def test_any_mix_of_moves_undos_redos_and_copies_is_the_game_its_moves_make(
    rules: Rules, number: int, seed: int, steps: int
) -> None:
    board = Board.from_number(number, rules)
    rng = random.Random(seed)
    played: list[Move] = []
    redo: list[Move] = []
    for _ in range(steps):
        roll = rng.random()
        moves = list(board.legal_moves)
        if roll < 0.45 and moves:
            # now and then the move a redo would play, else any legal move
            move = redo[-1] if redo and rng.random() < 0.3 and board.is_legal(redo[-1]) else rng.choice(moves)
            board.push(move)
            if redo and redo[-1] == move:
                redo.pop()
            else:
                redo.clear()
            played.append(move)
        elif roll < 0.7:
            if played:
                assert board.pop() == played[-1]
                redo.append(played.pop())
            else:
                with pytest.raises(IndexError, match="no move to undo"):
                    board.pop()
        elif roll < 0.9:
            if redo:
                assert board.redo() == redo[-1]
                played.append(redo.pop())
            else:
                with pytest.raises(IndexError, match="no move to redo"):
                    board.redo()
        elif roll < 0.95:
            check_copy_keeping(board, played, redo, rng.randrange(0, 6))
        else:
            # a copy is its own game; from the start with the game to redo, it redoes into this one
            copy = board.copy()
            start = Board.at_start(rules, copy.deal or board.deal, played[::-1])  # type: ignore[arg-type]
            while start.can_redo:
                start.redo()
            assert start == board and start.move_stack == played
            if moves:
                copy.push(moves[0])
        assert board.move_stack == played and board.redo_stack == redo
        assert board.position() == replayed(rules, board, played).position()
        assert board.can_undo == bool(played) and board.can_redo == bool(redo)
    record = GameRecord.from_board(board, "terrace")
    assert GameRecord.from_json(record.to_json()).replay() == board
