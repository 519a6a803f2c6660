"""The prunings of the search, each named after its heading in
``docs/winnability.md`` where its proof is written down.

These are the pure-Python reference versions; the compiled core
(``ccore/loop.h``) implements the same tests under the same names.
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
    return _schedule_fails(s, None)


def reserve_blocked(s: State, pinning: bool = False) -> bool:
    """**Reserve schedule with blocking** (``Options.reserve_blocking``):
    True when the reserve schedule fails once each reserve card may be
    served only by copies that can reach a foundation while it is still in
    the reserve (:class:`Reach`), or when some card can never reach one
    (every card must, to win); this includes every position that
    :func:`reserve_dead` cuts. Off with foundation-return. With
    ``pinning`` (the pure-Python search only, not a switch of ``solve``),
    no card of a key :func:`pinned_keys` pins for a reserve card goes up
    before it."""
    if s.ret:
        return False
    reach = Reach(s, pinned_keys(s) if pinning else None)
    return _schedule_fails(s, reach) or not all(reach.up)


def servable(heights: list[int], events: list[int]) -> bool:
    """True when foundations of these heights can take reserve cards of
    these heights in this order, copies from outside not counted: the
    greedy schedule of :func:`reserve_dead`, each card from the highest
    foundation not above it (lower foundations are never worse: they can
    be raised first)."""
    hs = sorted(heights)
    for height in events:
        below = [i for i, h in enumerate(hs) if h <= height]
        if not below:
            return False
        del hs[below[-1]]
        if height < 12:
            hs = sorted([*hs, height + 1])
    return True


def pinned_keys(s: State) -> list[set[int]]:
    """**Pinned keys**: for each reserve card, top first, the slot keys of
    which no further copy can go up before it does. Raising any foundation
    of the key's class from at most the key's height to just past it
    leaves the class's reserve cards from this one on unservable
    (:func:`servable`); a line that put such a copy up first would have its
    foundations at least that high then, those reserve cards still to
    play (docs/winnability.md)."""
    t = s.t
    heights = [foundation_heights(s, cls) for cls in range(t.classes)]
    pinned: list[set[int]] = []
    for p in range(len(s.res) - 1, -1, -1):
        events: dict[int, list[int]] = {}
        for q in range(p, -1, -1):
            k = t.sk[s.res[q]]
            events.setdefault(t.class_of[k], []).append(t.height[k])
        keys: set[int] = set()
        for cls, later in events.items():
            hs = heights[cls]
            for j, k in enumerate(t.chain[cls]):
                raised = ([*hs[:i], *hs[i + 1:], *([j + 1] if j < 12 else [])]
                          for i, h in enumerate(hs) if h <= j)
                if not any(servable(r, later) for r in raised):
                    keys.add(k)
        pinned.append(keys)
    return pinned


def foundation_heights(s: State, cls: int) -> list[int]:
    """The heights (cards held, 0 for one not started) of the foundations
    of class ``cls`` that are not complete, lowest first."""
    row = s.t.chain[cls]
    hs: list[int] = []
    started = s.done[cls]
    for j in range(1, 13):
        n = s.want[row[j]]
        if n:
            started += n
            hs.extend([j] * n)
    return [0] * (s.class_size - started) + hs


def schedule_demand(s: State) -> list[dict[int, int]]:
    """For each reserve card, top first, the copies of each slot key from
    outside the reserve that the greedy schedule of :func:`reserve_dead`
    has used once that card is up: no schedule uses fewer before it
    (docs/winnability.md, "Reserve schedule with blocking"). Cut short
    where the schedule fails."""
    log: list[dict[int, int]] = []
    _schedule_fails(s, None, log)
    return log


def _schedule_fails(s: State, reach: Reach | None, log: list[dict[int, int]] | None = None) -> bool:
    """The greedy schedule of :func:`reserve_dead`; with ``reach``, also
    each reserve card's demand so far against the copies that can go up
    before it (the greedy choice asks for the fewest copies of every key
    before every reserve card, not only in all: docs/winnability.md);
    ``log`` takes a copy of the demand after each reserve card."""
    t = s.t
    res = s.res
    counts = s.pref[len(res)]
    off = s.off
    heights = [foundation_heights(s, cls) for cls in range(t.classes)]
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
            if reach is not None and dj > reach.outside_up[kj]:
                return True
            demand[kj] = dj
        del hs[best_i]
        if height < 12:
            h = height + 1
            i = 0
            while i < len(hs) and hs[i] < h:
                i += 1
            hs.insert(i, h)
        if reach is not None:
            reach.played(k)
        if log is not None:
            log.append(dict(demand))
    return False


class Reach:
    """Which cards outside the reserve and the foundations can reach a
    foundation before the next reserve card does: the least fixpoint of
    conditions every such card meets in any line (docs/winnability.md,
    **Reserve schedule with blocking**). It starts with the whole reserve
    held back; :meth:`played` releases the reserve cards one by one, in
    their order, and the sets only grow.

    ``leaves``: the card can leave its place (all cards above it in its
    pile, or in the waste when no redeal is left, leave first; then it goes
    up, onto a holder or into a space). ``shown``: the card can be the top
    of a pile (a pile card whose cover can leave; a waste or stock card that
    can leave onto a holder or into a space). ``up``: the card can leave and
    a foundation can want it (its key is a base key, a foundation wants it
    now, or a card of the key below can go up). ``outside_up[k]``: the cards
    of key ``k`` outside the reserve that can go up. ``pins``, when
    given, is :func:`pinned_keys`: a card of a key pinned for the next
    reserve card does not go up (it may still leave onto a holder or into a
    space).
    """

    __slots__ = ("above", "bottoms", "cards", "empty", "free", "holders", "in_pile", "keys", "leaves",
                 "outside_up", "pins", "shown", "stage", "t", "up", "up_keys", "want")

    def __init__(self, s: State, pins: list[set[int]] | None = None) -> None:
        t = s.t
        self.pins = pins or []
        self.stage = 0  # (the reserve cards gone up so far)
        self.t, self.want, self.free = t, s.want, s.free
        cards: list[int] = []
        above: list[int] = []
        in_pile: list[bool] = []
        self.bottoms: list[int] = []
        self.empty = False
        for pile in s.piles:
            if not pile:
                self.empty = True
                continue
            self.bottoms.append(len(cards))
            for d, c in enumerate(pile):
                above.append(len(cards) + 1 if d + 1 < len(pile) else -1)
                cards.append(c)
                in_pile.append(True)
        ordered = s.ru >= s.redeals  # (with a redeal left the waste may come round again)
        wst = s.wst
        for d, c in enumerate(wst):
            above.append(len(cards) + 1 if ordered and d + 1 < len(wst) else -1)
            cards.append(c)
            in_pile.append(False)
        for c in s.stk:
            above.append(-1)
            cards.append(c)
            in_pile.append(False)
        self.cards, self.above, self.in_pile = cards, above, in_pile
        self.keys = [t.sk[c] for c in cards]
        n = len(cards)
        # (a card's holders, one rank higher in the other colour: the cards
        # whose downrc is its rank and colour)
        self.holders: list[list[int]] = [[] for _ in range(n)]
        by_down: dict[int, list[int]] = {}
        for j, c in enumerate(cards):
            by_down.setdefault(t.downrc[c], []).append(j)
        for i, c in enumerate(cards):
            self.holders[i] = [j for j in by_down.get(t.rc[c], ()) if j != i]
        self.leaves = [False] * n
        self.shown = [False] * n
        self.up = [False] * n
        self.up_keys = [0] * t.nslot
        self.outside_up = [0] * t.nslot
        self._settle()

    def played(self, k: int) -> None:
        """The reserve card of key ``k`` has gone up: its key is up, and what
        that lets go up follows."""
        self.up_keys[k] += 1
        self.stage += 1
        self._settle()

    def _settle(self) -> None:
        t, want, free = self.t, self.want, self.free
        is_base, prev = t.is_base, t.prev
        above, holders, in_pile, keys = self.above, self.holders, self.in_pile, self.keys
        leaves, shown, up = self.leaves, self.shown, self.up
        up_keys, outside_up = self.up_keys, self.outside_up
        pinned = self.pins[self.stage] if self.stage < len(self.pins) else ()
        changed = True
        while changed:
            changed = False
            space = self.empty or any(leaves[b] for b in self.bottoms)
            for i in range(len(keys)):
                if up[i] and shown[i]:
                    continue
                a = above[i]
                if a >= 0 and not leaves[a]:
                    continue
                # (a card that can go up may instead be shown, and hold
                # another card: the three are worked out each on its own)
                if not shown[i] and (in_pile[i] or space or any(shown[h] for h in holders[i])):
                    shown[i] = changed = True
                k = keys[i]
                ready = (is_base[k] or want[k] > 0 or up_keys[prev[k]] > 0) and k not in pinned
                if not leaves[i] and (
                    ready
                    or (shown[i] and not in_pile[i])
                    or (in_pile[i] and ((free and space) or any(shown[h] for h in holders[i])))
                ):
                    leaves[i] = changed = True
                if ready and leaves[i] and not up[i]:
                    up[i] = changed = True
                    up_keys[k] += 1
                    outside_up[k] += 1


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
