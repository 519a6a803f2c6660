"""StoredGame remembers its replay, but never past a change of its moves."""

import pytest

from terrace.deal import Deal
from terrace.errors import IllegalMoveError
from terrace.storage import MemoryStore
from terrace.variants import get_rules


def test_board_after_sync_equals_a_fresh_replay_and_is_independent() -> None:
    rules = get_rules("terrace")
    game = MemoryStore().create("terrace", rules, Deal.from_number(5, rules))
    board = game.board()
    for text in ("c1", "s", "s"):
        board.push_text(text)
    board.pop()
    game.sync(board)
    cached = game.board()
    assert cached == board and cached.redo_stack == board.redo_stack
    cached.push_text("s")  # changing the copy leaves the remembered board alone
    assert game.board() == board


def test_changed_moves_are_replayed_and_checked_again() -> None:
    rules = get_rules("terrace")
    game = MemoryStore().create("terrace", rules, Deal.from_number(5, rules))
    board = game.board()
    board.push_text("c1")
    game.sync(board)
    game.moves = ["c1", "c2"]
    with pytest.raises(IllegalMoveError):
        game.board()
