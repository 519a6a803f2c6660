"""The prunings of the search, each named after its heading in
``docs/winnability.md`` where its proof is written down.

These are the pure-Python reference versions; the compiled core
(``ccore/search.c``) implements the same tests under the same names.
"""

from __future__ import annotations

from terrace.board import Board
from terrace.moves import Move
from terrace.solver.state import State
from terrace.solver.tables import Tables


def safe_foundation_card(t: Tables, want: list[int], off: list[int], k: int) -> bool:
    """**Safe foundation moves**, the count condition: every copy of slot
    key ``k`` still outside the foundations has a foundation wanting it now.

    For a base key this always holds (``want`` of a base key counts the
    empty foundations, and there are exactly as many foundations as cards
    of the base rank), so the test is skipped: the ``IS_BASE`` exception.
    """
    return t.is_base[k] or off[k] <= want[k]


def nothing_can_lie_on(t: Tables, off: list[int], k: int) -> bool:
    """**Safe foundation moves**, the holder condition: no card that could
    ever be laid on a card of slot key ``k`` in a pile is outside the
    foundations."""
    return all(not off[hk] for hk in t.holds[k])


def reserve_dead(s: State) -> bool:
    """**Reserve schedule**: True when the reserve cards cannot all reach
    the foundations.

    Each class of foundations (a suit, or the colour of the base card) is
    a multiset of heights; the reserve cards of the class, in the order they
    must be played, each need a foundation at exactly their height. Serving
    each one from the highest foundation not above it needs, for every slot
    key, the fewest copies from outside the reserve (docs/winnability.md
    proves this by an exchange argument); when even that needs more copies
    than lie outside the reserve and the foundations, no line can win.
    """
    t = s.t
    res = s.res
    counts = s.pref[len(res)]
    off = s.off
    want = s.want
    class_size = s.class_size
    heights: list[list[int]] = []
    for cls in range(t.classes):
        row = t.chain[cls]
        hs: list[int] = []
        started = s.done[cls]
        for j in range(1, 13):
            n = want[row[j]]
            if n:
                started += n
                hs.extend([j] * n)
        hs[:0] = [0] * (class_size - started)
        heights.append(hs)
    demand: dict[int, int] = {}
    for p in range(len(res) - 1, -1, -1):
        k = t.sk[res[p]]
        height = t.height[k]
        hs = heights[t.class_of[k]]
        best_i = -1
        for i, h in enumerate(hs):
            if h <= height:
                best_i = i
            else:
                break
        if best_i < 0:
            return True
        row = t.chain[t.class_of[k]]
        for j in range(hs[best_i], height):
            kj = row[j]
            dj = demand.get(kj, 0) + 1
            if dj > off[kj] - counts[kj]:
                return True
            demand[kj] = dj
        del hs[best_i]
        if height < 12:
            h = height + 1
            i = 0
            while i < len(hs) and hs[i] < h:
                i += 1
            hs.insert(i, h)
    return False


def terrace_dead(board: Board) -> bool:
    """True when the **reserve schedule** proves ``board`` lost: its terrace
    can never be played out, whatever order the stock holds (so a player
    who cannot see the stock knows it too). While the base card is still to
    be chosen: whichever base card is chosen. Never with foundation-return
    (foundations may shrink).

    >>> from terrace.variants import get_rules
    >>> start = Board.from_number(61, get_rules("generals-patience"))
    >>> def chosen(text: str) -> Board:
    ...     board = start.copy(stack=False)
    ...     board.push_text(text)
    ...     return board
    >>> terrace_dead(start), [terrace_dead(chosen(c)) for c in ("c1", "c2", "c3", "c4")]
    (False, [True, True, True, False])
    >>> terrace_dead(Board.from_number(5, get_rules("generals-patience")))  # every base card
    True
    """
    if board.rules.foundation_return:  # (at once: the coach asks after each foundation move of a
        return False                   # game, 50,000 of them moving one card to and fro took 8.8 s)
    if board.choosing:
        choices = list(board.legal_moves)
        return bool(choices) and all(dead_after(board, move) for move in choices)
    state = State(board, True, 0)
    return not state.ret and bool(state.res) and reserve_dead(state)


def kills_terrace(board: Board, move: Move) -> bool:
    """True when the terrace of ``board`` can still be played out and never
    can after ``move`` (see :func:`terrace_dead`)."""
    return dead_after(board, move) and not terrace_dead(board)


def fatal_moves(board: Board) -> list[Move]:
    """The legal moves after which the terrace can never be played out
    while it still can now: each loses the game whatever the stock holds
    (so a player who cannot see the stock can know it).

    >>> from terrace.variants import get_rules
    >>> [str(m) for m in fatal_moves(Board.from_number(61, get_rules("generals-patience")))]
    ['c1', 'c2', 'c3']
    """
    return dead_end(board)[1]


def dead_end(board: Board) -> tuple[bool, list[Move]]:
    """:func:`terrace_dead` and :func:`fatal_moves` together, the terrace
    checked once (what the web game sends with every position)."""
    if terrace_dead(board):
        return True, []
    return False, [move for move in board.legal_moves if dead_after(board, move)]


def dead_after(board: Board, move: Move) -> bool:
    """True when the terrace is dead after ``move`` (a base card or a
    foundation move: only those change what the reserve schedule reads, so
    any other move is never checked)."""
    if not (move.is_choice or move.to_foundation):
        return False
    after = board.copy(stack=False)
    after.push(move)
    return terrace_dead(after)
