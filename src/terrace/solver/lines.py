"""Checking a line of moves with the engine."""

from __future__ import annotations

from collections.abc import Iterable

from terrace.board import Board
from terrace.errors import TerraceError
from terrace.moves import Move


def replays_to_win(board: Board, moves: Iterable[Move]) -> bool:
    """True when the engine plays ``moves`` from ``board`` (left as it is)
    to a won game; False when one is illegal or the game is not won.

    >>> from terrace.variants import get_rules
    >>> replays_to_win(Board.from_number(1, get_rules("terrace")), [Move.parse("c1")])
    False
    """
    copy = board.copy(stack=False)
    try:
        for move in moves:
            copy.push(move)
    except TerraceError:
        return False
    return copy.is_won()
