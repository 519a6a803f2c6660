"""The position inside the pure-Python search: card lists, foundation
counters and an incrementally updated Zobrist key, with moves played and
taken back in place.

Internal moves are small integers: :data:`DRAW` (-1), or ``source * 64 +
target`` with sources ``0..piles-1`` (tableau piles), :data:`SRC_RESERVE`,
:data:`SRC_WASTE` and ``SRC_RETURN + slot key`` (a foundation card going
back), and targets ``0..piles-1`` or :data:`DST_FOUNDATION`.

The foundations are not stored: ``want[k]`` counts the foundations that
take slot key ``k`` next (for a base key: the empty foundations), ``off[k]``
the cards of slot key ``k`` outside the foundations, ``ftop[k]`` (only with
foundation-return) the foundations whose top card has slot key ``k``, and
``done[cls]`` the complete foundations of a class.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(4, get_rules("falling-star"))
>>> s = State(board, canonical=True, seed=1)
>>> key = s.key()
>>> u = s.apply(DRAW)
>>> s.key() != key
True
>>> s.undo(DRAW, u); s.key() == key
True
"""

from __future__ import annotations

from terrace.board import Board
from terrace.rules import SpaceRule
from terrace.solver.tables import Tables, tables, zobrist

DRAW = -1
SRC_RESERVE = 40
SRC_WASTE = 41
SRC_RETURN = 64
DST_FOUNDATION = 63

P127 = (1 << 127) - 1
"""The Mersenne prime of the pile-mixing function (see :func:`mix`)."""


def mix(x: int) -> int:
    """The mixing function applied to each pile's key in suit games, so that
    the sum over piles keys the piles as a multiset: ``x * x + x`` modulo
    the prime 2**127 - 1 (see docs/winnability.md, "Keys")."""
    return (x * x + x) % P127


class State:
    """A position of the search (after the base card is chosen)."""

    __slots__ = (
        "auto", "class_size", "done", "found", "free", "ftop", "h", "hpt", "mixed", "off", "ph",
        "piles", "piles_n", "pref", "redeals", "res", "ret", "ru", "stk", "t", "total",
        "upcards", "want", "waste_space", "wst", "zd", "zpp", "zr", "zs", "zw",
    )

    def __init__(self, board: Board, canonical: bool, seed: int) -> None:
        rules = board.rules
        t = tables(rules.in_suit, board.base_rank, canonical)
        self.t: Tables = t
        self.piles_n = rules.piles
        self.auto = rules.spaces is SpaceRule.AUTO
        self.free = rules.spaces is SpaceRule.FREE
        self.waste_space = rules.spaces is SpaceRule.WASTE
        self.ret = rules.foundation_return
        self.redeals = rules.redeals
        self.total = rules.card_count
        self.class_size = rules.decks * (1 if rules.in_suit else 2)
        self.mixed = canonical and rules.in_suit
        self.res = list(board.reserve)
        self.stk = list(board.stock)
        self.wst = list(board.waste)
        self.piles = [list(p) for p in board.tableau]
        self.ru = board.redeals_used
        self.upcards: list[int] = []
        sk = t.sk
        want = [0] * t.nslot
        off = [0] * t.nslot
        ftop = [0] * t.nslot
        done = [0] * t.classes
        found = empties = 0
        for f in board.foundations:
            if not f:
                empties += 1
                continue
            found += len(f)
            top = sk[f[-1]]
            ftop[top] += 1
            if len(f) < 13:
                want[t.next[top]] += 1
            else:
                done[t.class_of[top]] += 1
        for k in t.base_keys:
            want[k] = empties
        for area in (self.res, self.stk, self.wst, *self.piles):
            for c in area:
                off[sk[c]] += 1
        self.want, self.off, self.ftop, self.done, self.found = want, off, ftop, done, found
        # Prefix counts of the reserve's slot keys (for the reserve schedule).
        pref = [[0] * t.nslot]
        for c in self.res:
            row = pref[-1][:]
            row[sk[c]] += 1
            pref.append(row)
        self.pref = pref
        self.zr, self.zs, self.zw, self.zd, self.zpp = zobrist(
            seed, self.total + 1, self.redeals, self.piles_n, canonical
        )
        hk = t.hk
        h = self.zr[len(self.res)] + self.zd[self.ru]
        for d, c in enumerate(self.stk):
            h += self.zs[d][hk[c]]
        for d, c in enumerate(self.wst):
            h += self.zw[d][hk[c]]
        self.h = h
        self.ph = [0] * self.piles_n
        hpt = 0
        for j, pile in enumerate(self.piles):
            v = 0
            for d, c in enumerate(pile):
                v += self.zpp[j][d][hk[c]]
            self.ph[j] = v
            hpt += mix(v) if self.mixed else v
        self.hpt = hpt

    def key(self) -> int:
        """The position's key (see docs/winnability.md, "Keys")."""
        return self.h + self.hpt

    def can_draw(self) -> bool:
        return bool(self.stk) or (bool(self.wst) and self.ru < self.redeals)

    def _set_pile_key(self, j: int, new: int) -> None:
        old = self.ph[j]
        self.ph[j] = new
        self.hpt += (mix(new) - mix(old)) if self.mixed else (new - old)

    def _turn_over(self, top: list[int], ztop: list[list[int]], bottom: list[int],
                   zbottom: list[list[int]]) -> None:
        """Turn the whole of ``top`` over onto the empty ``bottom`` (a redeal
        turns the waste into the stock; taking it back, the other way)."""
        hk = self.t.hk
        h = self.h
        for d, c in enumerate(top):
            h -= ztop[d][hk[c]]
        top.reverse()
        bottom.extend(top)
        top.clear()
        for d, c in enumerate(bottom):
            h += zbottom[d][hk[c]]
        self.h = h

    def _draw(self) -> int:
        hk, zs, zw = self.t.hk, self.zs, self.zw
        stk, wst = self.stk, self.wst
        if stk:
            c = stk.pop()
            self.h += zw[len(wst)][hk[c]] - zs[len(stk)][hk[c]]
            wst.append(c)
            return 0
        self._turn_over(wst, zw, stk, zs)
        self.h += self.zd[self.ru + 1] - self.zd[self.ru]
        self.ru += 1
        return 1

    def _undraw(self, redealt: int) -> None:
        hk, zs, zw = self.t.hk, self.zs, self.zw
        stk, wst = self.stk, self.wst
        if not redealt:
            c = wst.pop()
            self.h += zs[len(stk)][hk[c]] - zw[len(wst)][hk[c]]
            stk.append(c)
            return
        self._turn_over(stk, zs, wst, zw)
        self.ru -= 1
        self.h += self.zd[self.ru] - self.zd[self.ru + 1]

    def _up(self, c: int, sign: int) -> None:
        """Card ``c`` goes to a foundation that wants it (``sign`` 1), or is
        taken back from it (``sign`` -1)."""
        t = self.t
        k = t.sk[c]
        want = self.want
        if t.is_base[k]:
            for b in t.base_keys:
                want[b] -= sign
        else:
            want[k] -= sign
            if self.ret:
                self.ftop[t.prev[k]] -= sign
        if self.ret:
            self.ftop[k] += sign
        nk = t.next[k]
        if nk >= 0:
            want[nk] += sign
        else:
            self.done[t.class_of[k]] += sign
        self.off[k] -= sign
        self.found += sign

    def _return(self, k: int, sign: int) -> int:
        """A foundation card of slot key ``k`` leaves (foundation-return,
        ``sign`` 1) or comes back (``sign`` -1); the card of that key with
        the lowest code stands for it."""
        t = self.t
        self.ftop[k] -= sign
        self.ftop[t.prev[k]] += sign
        self.want[k] += sign
        if t.next[k] >= 0:
            self.want[t.next[k]] -= sign
        else:
            self.done[t.class_of[k]] -= sign
        self.off[k] += sign
        self.found -= sign
        return t.rep[k]

    def apply(self, m: int) -> int:
        """Play move ``m``; returns its refill code: 0, or for a draw 1 when
        it was a redeal, or for a move that emptied a pile with automatic
        spaces 1 (refilled from the waste) or 2 (from the stock)."""
        if m < 0:
            return self._draw()
        hk = self.t.hk
        src = m >> 6
        dst = m & 63
        if src < SRC_RESERVE:
            pile = self.piles[src]
            c = pile.pop()
            self._set_pile_key(src, self.ph[src] - self.zpp[src][len(pile)][hk[c]])
        elif src == SRC_RESERVE:
            c = self.res.pop()
            self.h += self.zr[len(self.res)] - self.zr[len(self.res) + 1]
        elif src == SRC_WASTE:
            c = self.wst.pop()
            self.h -= self.zw[len(self.wst)][hk[c]]
        else:
            c = self._return(src - SRC_RETURN, 1)
        if dst == DST_FOUNDATION:
            self._up(c, 1)
            self.upcards.append(c)
        else:
            pile = self.piles[dst]
            self._set_pile_key(dst, self.ph[dst] + self.zpp[dst][len(pile)][hk[c]])
            pile.append(c)
        u = 0
        if src < SRC_RESERVE and self.auto and not self.piles[src]:
            if self.wst:
                c = self.wst.pop()
                self.h -= self.zw[len(self.wst)][hk[c]]
                u = 1
            elif self.stk:
                c = self.stk.pop()
                self.h -= self.zs[len(self.stk)][hk[c]]
                u = 2
            if u:
                self._set_pile_key(src, self.zpp[src][0][hk[c]])
                self.piles[src].append(c)
        return u

    def undo(self, m: int, u: int) -> None:
        """Take back move ``m`` whose :meth:`apply` returned ``u``."""
        if m < 0:
            self._undraw(u)
            return
        hk = self.t.hk
        src = m >> 6
        dst = m & 63
        if u:
            c = self.piles[src].pop()
            self._set_pile_key(src, 0)
            if u == 1:
                self.h += self.zw[len(self.wst)][hk[c]]
                self.wst.append(c)
            else:
                self.h += self.zs[len(self.stk)][hk[c]]
                self.stk.append(c)
        if dst == DST_FOUNDATION:
            c = self.upcards.pop()
            self._up(c, -1)
        else:
            pile = self.piles[dst]
            c = pile.pop()
            self._set_pile_key(dst, self.ph[dst] - self.zpp[dst][len(pile)][hk[c]])
        if src < SRC_RESERVE:
            pile = self.piles[src]
            self._set_pile_key(src, self.ph[src] + self.zpp[src][len(pile)][hk[c]])
            pile.append(c)
        elif src == SRC_RESERVE:
            self.res.append(c)
            self.h += self.zr[len(self.res)] - self.zr[len(self.res) - 1]
        elif src == SRC_WASTE:
            self.h += self.zw[len(self.wst)][hk[c]]
            self.wst.append(c)
        else:
            self._return(src - SRC_RETURN, -1)
