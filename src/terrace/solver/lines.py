"""Checking a line of moves with the engine."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable

from terrace.board import Board
from terrace.errors import TerraceError
from terrace.moves import Move

REPLAY_CHECK = 256
"""A replay with a deadline looks at the clock every this many moves
(here, in :func:`terrace.solver.search.replay_line` and in the hints' walks
along a line)."""


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
        return played(copy, moves, until) and copy.is_won()
    except TerraceError:
        return False


def played(board: Board, moves: Iterable[Move], until: float = math.inf) -> bool:
    """Play ``moves`` on ``board``; False, with the rest unplayed, once
    :func:`time.perf_counter` passes ``until`` (read every
    :data:`REPLAY_CHECK` moves, the first one too). Raises the engine's
    error on an illegal move."""
    for index, move in enumerate(moves):
        if index % REPLAY_CHECK == 0 and time.perf_counter() > until:
            return False
        board.push(move)
    return True


def touches(move: Move, pile: int) -> bool:
    """True when ``move`` takes a card from or puts one on tableau pile ``pile``.

    >>> touches(Move.parse("t2t5"), 5), touches(Move.parse("wf"), 5)
    (True, False)
    """
    return (move.source == "t" and move.source_index == pile) or (
        move.target == "t" and move.target_index == pile
    )


def partner(moves: list[Move], i: int) -> int:
    """The index of the move that takes the card of pile-to-pile move ``i``
    straight back, nothing else touching either pile in between; else -1.

    >>> partner([Move.parse(m) for m in ("t2t5", "s", "t5t2")], 0)
    2
    >>> partner([Move.parse(m) for m in ("t2t5", "t5t7", "t7t2")], 0)
    -1
    """
    m = moves[i]
    a, b = m.source_index, m.target_index
    j = next_touching(moves, i)
    if j < 0:
        return -1
    n = moves[j]
    return j if (n.source, n.source_index, n.target, n.target_index) == ("t", b, "t", a) else -1


def next_touching(moves: list[Move], i: int) -> int:
    """The index of the first move after pile-to-pile move ``i`` that
    touches either of its piles; else -1.

    >>> next_touching([Move.parse(m) for m in ("t2t5", "s", "t5t7", "t7t5", "t5t2")], 0)
    2
    """
    m = moves[i]
    a, b = m.source_index, m.target_index
    for j in range(i + 1, len(moves)):
        if touches(moves[j], a) or touches(moves[j], b):
            return j
    return -1


def still_wins_without(current: Board, moves: list[Move], i: int, j: int, until: float = math.inf,
                       horizon: int | None = None) -> bool:
    """True when the winning line ``moves`` still wins without its moves
    ``i`` and ``j``, played from ``current`` (the position before move ``i``);
    False too once :func:`time.perf_counter` passes ``until``, or, with
    ``horizon``, when the two lines have not met within that many moves
    past move ``j`` (the pair is then kept: the line as it is wins).

    The shorter line is replayed side by side with the line itself; once the
    two reach the same position at the same point, the rest of both is the
    same moves from the same position, which the line is known to win (the
    engine is deterministic and its moves depend on the position alone). So
    the answer is the one a full replay would give, mostly found after a few
    moves.
    """
    rest = moves[i + 1:j] + moves[j + 1:]
    middle = j - i - 1
    mine = current.copy(stack=False)
    theirs = current.copy(stack=False)
    try:  # (the clock is read on the way to the point where both stand: the pair can be far apart)
        if not played(mine, rest[:middle], until) or not played(theirs, moves[i:j + 1], until):
            return False
    except TerraceError:
        return False
    k = j + 1  # ``theirs`` stands after moves[:k], ``mine`` after rest[:t]
    for t in range(middle, len(rest)):
        if same_position(mine, theirs):
            return True
        if t % REPLAY_CHECK == 0 and time.perf_counter() > until:
            return False
        if horizon is not None and t - middle >= horizon:
            return False
        try:
            mine.push(rest[t])
        except TerraceError:
            return False
        theirs.push(moves[k])
        k += 1
    return mine.is_won()


def same_position(a: Board, b: Board) -> bool:
    """True when everything the engine's moves depend on is the same in
    ``a`` and ``b`` (not their histories)."""
    return (a.tableau == b.tableau and a.waste == b.waste and a.stock == b.stock
            and a.foundations == b.foundations and a.reserve == b.reserve
            and a.base_rank == b.base_rank and a.redeals_used == b.redeals_used)
