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


NESTED_TRIES = 8
"""How many detours inside a detour :func:`returned` may try to drop to
reach the move that takes the detour's card straight back (the hints'
:func:`~terrace.solver.hint_line.direct` and ``solve``'s tidying)."""


def returned(before: Board, line: list[Move], i: int, until: float,
             tries: list[int]) -> tuple[list[Move], int]:
    """``line`` and the index of its move that takes the card of
    pile-to-pile move ``i`` straight back (:func:`partner`), ``before``
    being the position before move ``i``; -1 when there is none.
    When the first move to touch either pile is itself a pile-to-pile move
    whose card comes straight back (found the same way), that pair is a
    detour inside the detour: it is dropped when the line still wins
    without it, and the search goes on (Empress of Italy deal 2: ``t5t3
    t2t3 f1t6 t3t2 t3t5``, the hint said "pile 5 to pile 3" and two hints
    later "pile 3 to pile 5"). At most ``tries[0]`` such inner pairs are
    tried (the count is shared by the nested searches and left in
    ``tries``), each looked at within :data:`REPLAY_CHECK` moves and by
    ``until``; the line may have changed when the answer is -1 (not to be
    used then). No inner pair is tried unless the moves alone say that
    dropping the inner pairs would bring the card back
    (:func:`partner_past_pairs`)."""
    if partner(line, i) < 0 and partner_past_pairs(line, i, [tries[0]], set()) < 0:
        return line, -1
    while True:
        back = partner(line, i)
        if back >= 0:
            return line, back
        inside = next_touching(line, i)
        if (tries[0] <= 0 or inside < 0 or inside - i > REPLAY_CHECK or line[inside].source != "t"
                or line[inside].target != "t" or time.perf_counter() > until):
            return line, -1
        tries[0] -= 1
        at = before.copy(stack=False)
        try:
            for move in line[i:inside]:
                at.push(move)
        except TerraceError:
            return line, -1
        inner, end = returned(at, line, inside, until, tries)
        if end < 0 or not still_wins_without(at, inner, inside, end, until, REPLAY_CHECK):
            return line, -1
        line = inner[:inside] + inner[inside + 1:end] + inner[end + 1:]


def partner_past_pairs(line: list[Move], i: int, tries: list[int], skipped: set[int]) -> int:
    """What :func:`returned` would answer for ``line`` were every inner pair
    it tries to drop (at most ``tries[0]``) still winning without it, read
    from the moves alone, the pairs dropped being added to ``skipped``
    (indices of ``line``, passed over): the index of the move that takes
    move ``i``'s card back, else -1. A scan, no replay: it spares tidying
    the replays of inner pairs that could not let the pair go.

    >>> line = [Move.parse(m) for m in ("t3t1", "t1t2", "wf", "t2t1", "t1t3")]
    >>> partner(line, 0), partner_past_pairs(line, 0, [8], set())
    (-1, 4)
    >>> partner_past_pairs(line[:4] + [Move.parse("t1t4")], 0, [8], set())
    -1
    """
    m = line[i]
    a, b = m.source_index, m.target_index
    j, gone = i + 1, 0  # (gone: the skipped moves passed, which dropping takes out of the distance)
    while True:
        while j < len(line):
            n = line[j]
            if j in skipped:
                gone += 1
            elif ((n.source == "t" and n.source_index in (a, b))
                  or (n.target == "t" and n.target_index in (a, b))):
                break
            j += 1
        if j >= len(line):
            return -1
        if (n.source, n.source_index, n.target, n.target_index) == ("t", b, "t", a):
            return j
        if tries[0] <= 0 or j - gone - i > REPLAY_CHECK or n.source != "t" or n.target != "t":
            return -1
        tries[0] -= 1
        end = partner_past_pairs(line, j, tries, skipped)
        if end < 0:
            return -1
        skipped.update((j, end))  # (nothing before it touches either pile: the scan goes on past it)
        gone += 1
        j += 1


def same_position(a: Board, b: Board) -> bool:
    """True when everything the engine's moves depend on is the same in
    ``a`` and ``b`` (not their histories)."""
    return (a.tableau == b.tableau and a.waste == b.waste and a.stock == b.stock
            and a.foundations == b.foundations and a.reserve == b.reserve
            and a.base_rank == b.base_rank and a.redeals_used == b.redeals_used)
