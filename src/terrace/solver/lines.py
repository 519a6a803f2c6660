"""Checking a line of moves with the engine."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable

from terrace.board import Board
from terrace.errors import TerraceError
from terrace.moves import Move

CHECK_EVERY = 256
"""A replay with a deadline looks at the clock every this many moves."""


def replays_to_win(board: Board, moves: Iterable[Move], until: float = math.inf) -> bool:
    """True when the engine plays ``moves`` from ``board`` (left as it is)
    to a won game; False when one is illegal, the game is not won, or the
    replay is not done when :func:`time.perf_counter` passes ``until``.

    >>> from terrace.variants import get_rules
    >>> replays_to_win(Board.from_number(1, get_rules("terrace")), [Move.parse("c1")])
    False
    """
    copy = board.copy(stack=False)
    try:
        for index, move in enumerate(moves):
            if index % CHECK_EVERY == 0 and time.perf_counter() > until:
                return False
            copy.push(move)
    except TerraceError:
        return False
    return copy.is_won()
