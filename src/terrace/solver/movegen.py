"""Move generation of the pure-Python search: the moves worth trying in a
position, best first, after the prunings that remove moves.

Order: foundation moves (reserve, piles, waste), then the waste card onto
piles, then pile to pile (shorter source piles first), foundation returns,
and the draw last (or first among the non-foundation moves with
``ORDER_DRAW_EARLY``; piles in pile order with ``ORDER_UNRANKED``). A *safe*
foundation move is returned alone.
"""

from __future__ import annotations

from terrace.solver.options import ORDER_DRAW_EARLY, ORDER_UNRANKED, Options
from terrace.solver.prune import nothing_can_lie_on, safe_foundation_card
from terrace.solver.state import DRAW, DST_FOUNDATION, SRC_RESERVE, SRC_RETURN, SRC_WASTE, State


class Rng:
    """SplitMix64, the random move order of the win-hunters (the compiled
    core uses the same generator, so both searches visit the same positions).

    >>> r = Rng(1); [r.below(10) for _ in range(5)]
    [5, 9, 0, 5, 1]
    """

    __slots__ = ("state",)
    MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self.state = seed & self.MASK

    def below(self, n: int) -> int:
        """A number in ``range(n)``."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return (z ^ (z >> 31)) % n

    def shuffle(self, items: list[int]) -> None:
        """Fisher-Yates, last position first."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def foundation_mode(mix: int, shuffle: int) -> int:
    """Where a search of move order ``shuffle`` puts its foundation moves
    under ``Options.hunt_mix``: 0 first (always, unshuffled), 1 the waste's
    first, 2 shuffled with the rest in one position in eight; mix 3 gives
    each hunter one of the three by its order.

    >>> [foundation_mode(3, shuffle) for shuffle in range(5)], foundation_mode(2, 0)
    ([0, 1, 2, 0, 1], 0)
    """
    if not shuffle:
        return 0
    return shuffle % 3 if mix == 3 else mix


class MoveGen:
    """The move generator of one search (its switches and random order)."""

    __slots__ = ("canon", "dig_only", "fmode", "look", "order", "ret", "rng", "safe")

    def __init__(self, opt: Options, ret: bool) -> None:
        self.canon = opt.canonical
        self.safe = opt.safe_moves and not ret
        self.ret = ret
        self.order = opt.order
        self.dig_only = opt.dig_only
        self.rng = Rng(opt.shuffle) if opt.shuffle else None
        self.fmode = foundation_mode(opt.hunt_mix, opt.shuffle)
        self.look = opt.stock_lookahead

    def moves(self, s: State, prev: int, prev_u: int) -> list[int]:
        """The moves to try, best first. ``prev`` is the move that led here
        (-2 at the root) and ``prev_u`` its refill code."""
        t = s.t
        sk, rc, downrc = t.sk, t.rc, t.downrc
        piles, want, off = s.piles, s.want, s.off
        canon, safe = self.canon, self.safe
        # **Just-moved card**: a card just moved between piles (without a
        # refill) is not moved between piles again at once.
        again = -1
        if prev >= 0 and prev_u == 0 and (prev >> 6) < SRC_RESERVE and (prev & 63) < SRC_RESERVE:
            again = prev & 63
            if self.dig_only and piles[prev >> 6]:
                return self._dig_moves(s, prev >> 6)
        moves: list[int] = []
        acc: dict[int, list[int]] = {}
        first_empty = -1
        srcs: list[int] = []
        seen_ph: set[int] = set()
        ph = s.ph
        for j in range(s.piles_n):
            pile = piles[j]
            if pile:
                lst = acc.get(downrc[pile[-1]])
                if lst is None:
                    acc[downrc[pile[-1]]] = [j]
                else:
                    lst.append(j)
                if canon:  # **Keys**: equal piles are one source
                    if ph[j] in seen_ph:
                        continue
                    seen_ph.add(ph[j])
                srcs.append(j)
            elif first_empty < 0:
                first_empty = j
        # foundation moves; **Safe foundation moves** are returned alone
        if s.res:
            k = sk[s.res[-1]]
            if want[k] > 0:
                if safe and safe_foundation_card(t, want, off, k):
                    return [SRC_RESERVE * 64 + DST_FOUNDATION]
                moves.append(SRC_RESERVE * 64 + DST_FOUNDATION)
        for j in srcs:
            pile = piles[j]
            k = sk[pile[-1]]
            if want[k] > 0:
                if (
                    safe
                    and safe_foundation_card(t, want, off, k)
                    and (not s.auto or len(pile) > 1)
                    and nothing_can_lie_on(t, off, k)
                ):
                    return [j * 64 + DST_FOUNDATION]
                moves.append(j * 64 + DST_FOUNDATION)
        wst = s.wst
        if wst:
            k = sk[wst[-1]]
            if want[k] > 0:
                if (
                    safe
                    and not s.auto
                    and s.ru >= s.redeals
                    and safe_foundation_card(t, want, off, k)
                    and nothing_can_lie_on(t, off, k)
                ):
                    return [SRC_WASTE * 64 + DST_FOUNDATION]
                moves.append(SRC_WASTE * 64 + DST_FOUNDATION)
        draw_early = self.order == ORDER_DRAW_EARLY and s.can_draw()
        if draw_early:
            moves.append(DRAW)
        # the waste card onto piles
        if wst:
            lst = acc.get(rc[wst[-1]])
            if lst:
                seen: set[int] = set()
                for j in lst:
                    if not canon or ph[j] not in seen:
                        seen.add(ph[j])
                        moves.append(SRC_WASTE * 64 + j)
            if first_empty >= 0 and (s.free or s.waste_space):  # **Empty piles**: the first only
                moves.append(SRC_WASTE * 64 + first_empty)
        # pile to pile, sources with fewer cards first (ORDER_UNRANKED: in pile order)
        if len(srcs) > 1 and self.order != ORDER_UNRANKED:
            srcs.sort(key=lambda j: len(piles[j]))
        for i in srcs:
            if i == again:
                continue
            pile = piles[i]
            if self.dig_only and not _diggable(s, i, acc):
                continue
            lst = acc.get(rc[pile[-1]])
            if lst:
                seen = set()
                for j in lst:
                    if j != i and (not canon or ph[j] not in seen):
                        seen.add(ph[j])
                        moves.append(i * 64 + j)
            if first_empty >= 0 and s.free and len(pile) > 1:  # **Empty piles**: no lone card
                moves.append(i * 64 + first_empty)
        if self.ret:
            for k in range(t.nslot):
                if s.ftop[k] and not t.is_base[k]:
                    lst = acc.get(rc[t.rep[k]])
                    if lst:
                        for j in lst:
                            moves.append((SRC_RETURN + k) * 64 + j)
                    if first_empty >= 0 and s.free:
                        moves.append((SRC_RETURN + k) * 64 + first_empty)
        if not draw_early and s.can_draw():
            moves.append(DRAW)
        if self.rng is not None and len(moves) > 1:
            first = 0
            while first < len(moves) and moves[first] >= 0 and (moves[first] & 63) == DST_FOUNDATION:
                first += 1
            # Options.hunt_mix: the waste's foundation move (the last of
            # them) first, or in one position in eight all of them
            # shuffled with the rest
            if self.fmode == 1 and first > 1 and moves[first - 1] >> 6 == SRC_WASTE:
                moves[:first] = [moves[first - 1], *moves[:first - 1]]
            elif self.fmode == 2 and first > 0 and self.rng.below(8) == 0:
                first = 0
            tail = moves[first:]
            self.rng.shuffle(tail)
            # Options.stock_lookahead: the draw first where the stock brings
            # a card a foundation wants within the next `look` cards
            if self.look and any(want[sk[c]] > 0 for c in s.stk[:-self.look - 1:-1]):
                tail.remove(DRAW)
                tail.insert(0, DRAW)
            moves[first:] = tail
        return moves

    @staticmethod
    def _dig_moves(s: State, i: int) -> list[int]:
        """The hunter's moves while it digs out pile ``i``."""
        t = s.t
        c = s.piles[i][-1]
        out = []
        if s.want[t.sk[c]] > 0:
            out.append(i * 64 + DST_FOUNDATION)
        for j in range(s.piles_n):
            if j != i and s.piles[j] and t.downrc[s.piles[j][-1]] == t.rc[c]:
                out.append(i * 64 + j)
        return out


def _diggable(s: State, i: int, acc: dict[int, list[int]]) -> bool:
    """Can pile ``i`` be emptied now, card by card, onto the tops of the
    other piles or the foundations?"""
    t = s.t
    pile = s.piles[i]
    tops = {rc: len(lst) for rc, lst in acc.items()}
    tops[t.downrc[pile[-1]]] -= 1
    wanted: dict[int, int] = {}
    for d in range(len(pile) - 1, -1, -1):
        c = pile[d]
        rc = t.rc[c]
        if tops.get(rc, 0) > 0:
            tops[rc] -= 1
            down = t.downrc[c]
            tops[down] = tops.get(down, 0) + 1
            continue
        k = t.sk[c]
        w = wanted.get(k, s.want[k])
        if w > 0:
            wanted[k] = w - 1
            continue
        return False
    return True
