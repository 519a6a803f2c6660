"""The search: a depth-first search over a compact copy of a position.

One :class:`Search` explores every position reachable from one board (after
the base card is chosen) with an explicit stack, undoing moves in place, and
remembers every position it has entered in a set of 100-bit Zobrist-style
keys. It runs as a generator that pauses every few thousand nodes, so a
driver can interleave several searches (one per base-card candidate) and
stop them when the time is up.

Internal moves are small integers: ``DRAW`` (-1), or ``source * 64 +
target`` with sources ``0..piles-1`` (tableau piles), :data:`SRC_RESERVE`,
:data:`SRC_WASTE` and ``SRC_RETURN + slot key`` (a foundation card going
back), and targets ``0..piles-1`` or :data:`DST_FOUNDATION`.

Soundness notes (see ``docs/winnability.md`` for the proofs in prose):

* Keys. Cards of the same rank and colour are interchangeable in
  alternate-colour games, so the key reads cards by rank and colour there,
  and by the exact card in suit games. Piles are keyed as a multiset: with
  automatic spaces at most one pile is ever empty while the waste or stock
  holds a card, so the order of the piles never matters, and with free or
  waste-only spaces nothing depends on it at all. The foundations are not
  keyed: they hold exactly the cards that are elsewhere missing, and that
  multiset fixes how many foundations of each class stand at each height.
* Safe foundation moves (``safe_moves``) are played as the only move.
* Dead reserve cards (``dead_reserve``) end a line as lost.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from terrace.board import Board
from terrace.cards import RANK, RED
from terrace.moves import Move
from terrace.rules import SpaceRule

DRAW = -1
SRC_RESERVE = 40
SRC_WASTE = 41
SRC_RETURN = 64
DST_FOUNDATION = 63

_BITS = 100
_P127 = (1 << 127) - 1
_SLICE = 2048


@dataclass(frozen=True, slots=True)
class Options:
    """Switches for the search; every pruning can be turned off for tests."""

    canonical: bool = True
    """Key cards by rank and colour (alternate games) and piles as a multiset."""
    safe_moves: bool = True
    """Play a provably safe foundation move as the only move."""
    dead_reserve: bool = True
    """Cut lines in which a reserve card can never reach a foundation."""
    order: int = 0
    """Move ordering: 0 = foundation, tableau, draw; 1 = draws earlier."""
    dig_only: bool = False
    """Move a card between piles only from a pile that can then be emptied
    at once (a win-finding restriction: such a search never claims lost)."""
    shuffle: int = 0
    """When not 0: the seed of a random order of the non-foundation moves
    (used by restarting win-hunters)."""
    max_entries: int = 20_000_000
    """Transposition entries before the search gives up (memory cap)."""
    seed: int = 20240601


def slot_keys(rules_in_suit: bool) -> tuple[int, ...]:
    """The foundation slot key of every card: rank and colour in
    alternate-colour games, the card itself in suit games."""
    if rules_in_suit:
        return tuple(range(52))
    return tuple(RANK[c] * 2 + RED[c] for c in range(52))


class Search:
    """A resumable exhaustive search from one position that is past the
    choice of the base card.

    ``result`` is ``None`` while the search runs, then ``"won"`` (``line``
    holds the internal winning moves), ``"lost"`` (every reachable position
    was explored) or ``"memory"`` (the transposition table is full).
    """

    def __init__(self, board: Board, options: Options | None = None) -> None:
        if board.choosing:
            raise ValueError("the search starts after the base card is chosen")
        self.options = options or Options()
        self.rules = board.rules
        self.result: str | None = None
        self.line: list[int] = []
        self.nodes = 0
        self.best_found = -1
        self.best_first: int | None = None
        self._board = board
        self._gen: Iterator[None] | None = None

    # ------------------------------------------------------------------

    def step(self) -> bool:
        """Run one slice of the search; True once the search has ended."""
        if self.result is not None:
            return True
        if self._gen is None:
            self._gen = self._run()
        with contextlib.suppress(StopIteration):
            next(self._gen)
        return self.result is not None

    def moves_to_engine(self, board: Board, line: list[int]) -> list[Move]:
        """Translate internal moves to engine moves by replaying them on a
        copy of ``board`` (which must be the position the search started
        from); raises the engine's error if one is illegal."""
        copy = board.copy(stack=False)
        out: list[Move] = []
        keys = slot_keys(self.rules.in_suit)
        for m in line:
            move = engine_move(copy, m, keys)
            copy.push(move)
            out.append(move)
        return out

    # ------------------------------------------------------------------

    def _run(self) -> Iterator[None]:  # one hot loop, kept flat on purpose
        board = self._board
        rules = self.rules
        opt = self.options
        in_suit = rules.in_suit
        piles_n = rules.piles
        auto = rules.spaces is SpaceRule.AUTO
        free = rules.spaces is SpaceRule.FREE
        waste_space = rules.spaces is SpaceRule.WASTE
        ret = rules.foundation_return
        redeals = rules.redeals
        base = board.base_rank
        total = rules.card_count
        safe = opt.safe_moves and not ret
        canon = opt.canonical

        # Slot keys (foundation logic) and hash keys.
        SK = slot_keys(in_suit)
        HK = SK if canon else tuple(range(52))
        mix = canon and in_suit
        nslot = 52 if in_suit else 26

        def slot_of(rank: int, red_or_suit: int) -> int:
            return rank * 4 + red_or_suit if in_suit else rank * 2 + red_or_suit

        # Foundation chains: class (suit, or colour of the base card) and
        # height j -> slot key of the card wanted there.
        classes = 4 if in_suit else 2
        chain = [[0] * 13 for _ in range(classes)]
        for cls in range(classes):
            for j in range(13):
                rank = (base + j) % 13
                chain[cls][j] = slot_of(rank, cls) if in_suit else slot_of(rank, cls ^ (j & 1))
        NEXT = [-1] * nslot
        PREV = [-1] * nslot
        HEIGHT = [0] * nslot
        CLASS_OF = [0] * nslot
        for cls in range(classes):
            for j in range(13):
                k = chain[cls][j]
                HEIGHT[k] = j
                CLASS_OF[k] = cls
                NEXT[k] = chain[cls][j + 1] if j < 12 else -1
                PREV[k] = chain[cls][j - 1] if j > 0 else -1
        IS_BASE = [HEIGHT[k] == 0 for k in range(nslot)]
        BASEK = [k for k in range(nslot) if IS_BASE[k]]
        # Cards that may lie on a card of slot key k in the tableau.
        HOLDS: list[list[int]] = [[] for _ in range(nslot)]
        for c in range(52):
            below_rank = (RANK[c] + 12) % 13
            seen: set[int] = set()
            for d in range(52):
                if RANK[d] == below_rank and RED[d] != RED[c]:
                    seen.add(SK[d])
            HOLDS[SK[c]] = sorted(seen)
        RC = tuple(RANK[c] * 2 + RED[c] for c in range(52))
        DOWNRC = tuple(((RANK[c] + 12) % 13) * 2 + (1 - RED[c]) for c in range(52))
        REP = [0] * nslot
        for c in range(51, -1, -1):
            REP[SK[c]] = c

        class_size = rules.decks * (1 if in_suit else 2)
        done = [0] * classes

        # State.
        res = list(board.reserve)
        stk = list(board.stock)
        wst = list(board.waste)
        piles = [list(p) for p in board.tableau]
        ru = board.redeals_used
        want = [0] * nslot
        off = [0] * nslot
        ftop = [0] * nslot
        found = 0
        empties_f = 0
        for f in board.foundations:
            if not f:
                empties_f += 1
                continue
            found += len(f)
            top = SK[f[-1]]
            ftop[top] += 1
            nk = NEXT[top]
            if nk >= 0 and len(f) < 13:
                want[nk] += 1
            elif len(f) == 13:
                done[CLASS_OF[top]] += 1
        for k in BASEK:
            want[k] = empties_f
        for area in (res, stk, wst, *piles):
            for c in area:
                off[SK[c]] += 1

        # Zobrist tables (shared by every search with the same shape).
        ZR, ZS, ZW, ZD, ZPP = _zobrist(opt.seed, total + 1, redeals, piles_n, canon)

        def g(x: int) -> int:
            return (x * x + x) % _P127

        h = ZR[len(res)] + ZD[ru]
        for d, c in enumerate(stk):
            h += ZS[d][HK[c]]
        for d, c in enumerate(wst):
            h += ZW[d][HK[c]]
        ph = [0] * piles_n
        hpt = 0
        for j, pile in enumerate(piles):
            v = 0
            for d, c in enumerate(pile):
                v += ZPP[j][d][HK[c]]
            ph[j] = v
            hpt += g(v) if mix else v

        # Dead reserve cards: prefix counts of slot keys in the reserve.
        pref: list[list[int]] = [[0] * nslot]
        for c in res:
            row = pref[-1][:]
            row[SK[c]] += 1
            pref.append(row)
        dead_check = opt.dead_reserve and not ret

        def reserve_dead() -> bool:
            """True when the reserve cards cannot all reach the foundations.

            Each class of foundations (a suit, or the colour of the base
            card) is a multiset of heights; the reserve cards of the class,
            in the order they must be played, each need a foundation at
            exactly their height. Serving each one from the highest
            foundation not above it needs the fewest cards from outside the
            reserve (any other choice needs a superset), so when even that
            needs more copies of some card than lie outside the reserve and
            the foundations, no line can win.
            """
            counts = pref[len(res)]
            heights: list[list[int]] = []
            for cls in range(classes):
                row = chain[cls]
                hs = []
                started = done[cls]
                for j in range(1, 13):
                    n = want[row[j]]
                    if n:
                        started += n
                        hs.extend([j] * n)
                hs[:0] = [0] * (class_size - started)
                heights.append(hs)
            demand: dict[int, int] = {}
            for p in range(len(res) - 1, -1, -1):
                k = SK[res[p]]
                height = HEIGHT[k]
                hs = heights[CLASS_OF[k]]
                best_i = -1
                for i, t in enumerate(hs):
                    if t <= height:
                        best_i = i
                    else:
                        break
                if best_i < 0:
                    return True
                row = chain[CLASS_OF[k]]
                for j in range(hs[best_i], height):
                    kj = row[j]
                    dj = demand.get(kj, 0) + 1
                    if dj > off[kj] - counts[kj]:
                        return True
                    demand[kj] = dj
                del hs[best_i]
                if height < 12:
                    # keep the list sorted
                    t = height + 1
                    i = 0
                    while i < len(hs) and hs[i] < t:
                        i += 1
                    hs.insert(i, t)
            return False

        dig_only = opt.dig_only
        shuffle = random.Random(opt.shuffle) if opt.shuffle else None

        def diggable(i: int, acc: dict[int, list[int]]) -> bool:
            """Can pile ``i`` be emptied now, card by card, onto the tops
            of the other piles or the foundations?"""
            pile = piles[i]
            tops: dict[int, int] = {}
            for rc, lst in acc.items():
                tops[rc] = len(lst)
            tops[DOWNRC[pile[-1]]] -= 1
            wanted: dict[int, int] = {}
            for d in range(len(pile) - 1, -1, -1):
                c = pile[d]
                rc = RC[c]
                if tops.get(rc, 0) > 0:
                    tops[rc] -= 1
                    down = DOWNRC[c]
                    tops[down] = tops.get(down, 0) + 1
                    continue
                k = SK[c]
                w = wanted.get(k, want[k])
                if w > 0:
                    wanted[k] = w - 1
                    continue
                return False
            return True

        def dig_moves(i: int) -> list[int]:
            """The hunter's moves while it digs out pile ``i``."""
            c = piles[i][-1]
            out = []
            if want[SK[c]] > 0:
                out.append(i * 64 + DST_FOUNDATION)
            rc = RC[c]
            for j in range(piles_n):
                if j != i and piles[j] and DOWNRC[piles[j][-1]] == rc:
                    out.append(i * 64 + j)
            return out

        def gen(prev: int, prev_u: int) -> list[int]:
            """The moves to try, best first. ``prev`` is the move that led
            here (-2 at the root) and ``prev_u`` its refill code.

            A card just moved between piles (without a refill) is not moved
            between piles again at once: A->B then B->C is A->C, and B->A
            undoes it. The win-hunter (``dig_only``) also finishes a dig:
            after a card left pile A for another pile, only A may move on."""
            again = -1
            if prev >= 0 and prev_u == 0 and (prev >> 6) < SRC_RESERVE and (prev & 63) < SRC_RESERVE:
                again = prev & 63
                if dig_only and piles[prev >> 6]:
                    return dig_moves(prev >> 6)
            moves: list[int] = []
            acc: dict[int, list[int]] = {}
            first_empty = -1
            srcs: list[int] = []
            seen_ph: set[int] = set()
            for j in range(piles_n):
                pile = piles[j]
                if pile:
                    t = pile[-1]
                    lst = acc.get(DOWNRC[t])
                    if lst is None:
                        acc[DOWNRC[t]] = [j]
                    else:
                        lst.append(j)
                    if canon:
                        v = ph[j]
                        if v in seen_ph:
                            continue
                        seen_ph.add(v)
                    srcs.append(j)
                elif first_empty < 0:
                    first_empty = j
            # foundation moves
            if res:
                k = SK[res[-1]]
                if want[k] > 0:
                    if safe and (IS_BASE[k] or off[k] <= want[k]):
                        return [SRC_RESERVE * 64 + DST_FOUNDATION]
                    moves.append(SRC_RESERVE * 64 + DST_FOUNDATION)
            for j in srcs:
                pile = piles[j]
                k = SK[pile[-1]]
                if want[k] > 0:
                    if (
                        safe
                        and (IS_BASE[k] or off[k] <= want[k])
                        and (not auto or len(pile) > 1)
                    ):
                        for hk in HOLDS[k]:
                            if off[hk]:
                                break
                        else:
                            return [j * 64 + DST_FOUNDATION]
                    moves.append(j * 64 + DST_FOUNDATION)
            if wst:
                k = SK[wst[-1]]
                if want[k] > 0:
                    if (
                        safe
                        and not auto
                        and ru >= redeals
                        and (IS_BASE[k] or off[k] <= want[k])
                    ):
                        for hk in HOLDS[k]:
                            if off[hk]:
                                break
                        else:
                            return [SRC_WASTE * 64 + DST_FOUNDATION]
                    moves.append(SRC_WASTE * 64 + DST_FOUNDATION)
            draw_early = opt.order == 1 and (stk or (wst and ru < redeals))
            if draw_early:
                moves.append(DRAW)
            # tableau moves: waste first
            if wst:
                c = wst[-1]
                lst = acc.get(RC[c])
                if lst:
                    if canon and len(lst) > 1:
                        done: set[int] = set()
                        for j in lst:
                            if ph[j] not in done:
                                done.add(ph[j])
                                moves.append(SRC_WASTE * 64 + j)
                    else:
                        for j in lst:
                            moves.append(SRC_WASTE * 64 + j)
                if first_empty >= 0 and (free or waste_space):
                    moves.append(SRC_WASTE * 64 + first_empty)
            # pile to pile, sources with fewer cards first
            if len(srcs) > 1:
                srcs.sort(key=lambda j: len(piles[j]))
            for i in srcs:
                if i == again:
                    continue
                pile = piles[i]
                if dig_only and not diggable(i, acc):
                    continue
                c = pile[-1]
                lst = acc.get(RC[c])
                if lst:
                    done = set()
                    for j in lst:
                        if j != i:
                            if canon:
                                if ph[j] in done:
                                    continue
                                done.add(ph[j])
                            moves.append(i * 64 + j)
                if first_empty >= 0 and free and len(pile) > 1:
                    moves.append(i * 64 + first_empty)
            if ret:
                for k in range(nslot):
                    if ftop[k] and not IS_BASE[k]:
                        c = REP[k]
                        lst = acc.get(RC[c])
                        if lst:
                            for j in lst:
                                moves.append((SRC_RETURN + k) * 64 + j)
                        if first_empty >= 0 and free:
                            moves.append((SRC_RETURN + k) * 64 + first_empty)
            if not draw_early and (stk or (wst and ru < redeals)):
                moves.append(DRAW)
            if shuffle is not None and len(moves) > 1:
                first = 0
                while first < len(moves) and moves[first] >= 0 and (moves[first] & 63) == DST_FOUNDATION:
                    first += 1
                tail = moves[first:]
                shuffle.shuffle(tail)
                moves[first:] = tail
            return moves

        # ------------------------------------------------------------------
        visited: set[int] = set()
        self._visited = visited
        frames: list[list[int]] = []
        fidx: list[int] = []
        path: list[int] = []
        undo: list[int] = []
        upcards: list[int] = []
        nodes = 1
        best = found
        max_entries = opt.max_entries
        visited.add(h + hpt)
        if found == total:
            self.result = "won"
            self.nodes = nodes
            return
        if dead_check and reserve_dead():
            frames.append([])
        else:
            frames.append(gen(-2, 0))
        fidx.append(0)
        budget = _SLICE
        while True:
            if nodes >= budget:
                self.nodes = nodes
                if len(visited) > max_entries:
                    self.result = "memory"
                    return
                budget = nodes + _SLICE
                yield
            moves = frames[-1]
            i = fidx[-1]
            if i < len(moves):
                fidx[-1] = i + 1
                m = moves[i]
                # ---------------- apply m
                u = 0
                to_found = False
                if m < 0:
                    if stk:
                        c = stk.pop()
                        hk = HK[c]
                        h += ZW[len(wst)][hk] - ZS[len(stk)][hk]
                        wst.append(c)
                    else:
                        for d, c in enumerate(wst):
                            h -= ZW[d][HK[c]]
                        wst.reverse()
                        stk.extend(wst)
                        wst.clear()
                        for d, c in enumerate(stk):
                            h += ZS[d][HK[c]]
                        h += ZD[ru + 1] - ZD[ru]
                        ru += 1
                        u = 1
                else:
                    src = m >> 6
                    dst = m & 63
                    if src < SRC_RESERVE:
                        pile = piles[src]
                        c = pile.pop()
                        old = ph[src]
                        new = old - ZPP[src][len(pile)][HK[c]]
                        ph[src] = new
                        hpt += (g(new) - g(old)) if mix else (new - old)
                    elif src == SRC_RESERVE:
                        c = res.pop()
                        h += ZR[len(res)] - ZR[len(res) + 1]
                    elif src == SRC_WASTE:
                        c = wst.pop()
                        h -= ZW[len(wst)][HK[c]]
                    else:
                        k = src - SRC_RETURN
                        c = REP[k]
                        ftop[k] -= 1
                        ftop[PREV[k]] += 1
                        want[k] += 1
                        if NEXT[k] >= 0:
                            want[NEXT[k]] -= 1
                        else:
                            done[CLASS_OF[k]] -= 1
                        off[k] += 1
                        found -= 1
                    if dst == DST_FOUNDATION:
                        k = SK[c]
                        if IS_BASE[k]:
                            for b in BASEK:
                                want[b] -= 1
                        else:
                            want[k] -= 1
                            if ret:
                                ftop[PREV[k]] -= 1
                        if ret:
                            ftop[k] += 1
                        nk = NEXT[k]
                        if nk >= 0:
                            want[nk] += 1
                        else:
                            done[CLASS_OF[k]] += 1
                        off[k] -= 1
                        found += 1
                        upcards.append(c)
                        to_found = True
                    else:
                        pile = piles[dst]
                        old = ph[dst]
                        new = old + ZPP[dst][len(pile)][HK[c]]
                        ph[dst] = new
                        hpt += (g(new) - g(old)) if mix else (new - old)
                        pile.append(c)
                    if src < SRC_RESERVE and auto and not piles[src]:
                        if wst:
                            c = wst.pop()
                            h -= ZW[len(wst)][HK[c]]
                            u = 1
                        elif stk:
                            c = stk.pop()
                            h -= ZS[len(stk)][HK[c]]
                            u = 2
                        if u:
                            new = ZPP[src][0][HK[c]]
                            hpt += (g(new) - g(0)) if mix else new
                            ph[src] = new
                            piles[src].append(c)
                path.append(m)
                undo.append(u)
                nodes += 1
                if found > best:
                    best = found
                    self.best_found = best
                    self.best_first = path[0]
                    if found == total:
                        self.line = path[:]
                        self.result = "won"
                        self.nodes = nodes
                        return
                key = h + hpt
                if key not in visited:
                    visited.add(key)
                    if to_found and dead_check and res and reserve_dead():
                        frames.append([])
                    else:
                        frames.append(gen(m, u))
                    fidx.append(0)
                    continue
                # seen before: fall through to take the move back
            else:
                frames.pop()
                fidx.pop()
                if not path:
                    self.result = "lost"
                    self.nodes = nodes
                    return
            # ---------------- undo the last move
            m = path.pop()
            u = undo.pop()
            if m < 0:
                if u:
                    for d, c in enumerate(stk):
                        h -= ZS[d][HK[c]]
                    stk.reverse()
                    wst.extend(stk)
                    stk.clear()
                    for d, c in enumerate(wst):
                        h += ZW[d][HK[c]]
                    ru -= 1
                    h += ZD[ru] - ZD[ru + 1]
                else:
                    c = wst.pop()
                    hk = HK[c]
                    h += ZS[len(stk)][hk] - ZW[len(wst)][hk]
                    stk.append(c)
                continue
            src = m >> 6
            dst = m & 63
            if u:
                pile = piles[src]
                c = pile.pop()
                old = ph[src]
                hpt += (g(0) - g(old)) if mix else -old
                ph[src] = 0
                if u == 1:
                    h += ZW[len(wst)][HK[c]]
                    wst.append(c)
                else:
                    h += ZS[len(stk)][HK[c]]
                    stk.append(c)
            if dst == DST_FOUNDATION:
                # foundations are not stored: ``upcards`` remembers the cards
                found -= 1
                c = upcards.pop()
                k = SK[c]
                nk = NEXT[k]
                if nk >= 0:
                    want[nk] -= 1
                else:
                    done[CLASS_OF[k]] -= 1
                if IS_BASE[k]:
                    for b in BASEK:
                        want[b] += 1
                else:
                    want[k] += 1
                    if ret:
                        ftop[PREV[k]] += 1
                if ret:
                    ftop[k] -= 1
                off[k] += 1
            else:
                pile = piles[dst]
                c = pile.pop()
                old = ph[dst]
                new = old - ZPP[dst][len(pile)][HK[c]]
                ph[dst] = new
                hpt += (g(new) - g(old)) if mix else (new - old)
            if src < SRC_RESERVE:
                pile = piles[src]
                old = ph[src]
                new = old + ZPP[src][len(pile)][HK[c]]
                ph[src] = new
                hpt += (g(new) - g(old)) if mix else (new - old)
                pile.append(c)
            elif src == SRC_RESERVE:
                res.append(c)
                h += ZR[len(res)] - ZR[len(res) - 1]
            elif src == SRC_WASTE:
                h += ZW[len(wst)][HK[c]]
                wst.append(c)
            else:
                k = src - SRC_RETURN
                ftop[k] += 1
                ftop[PREV[k]] -= 1
                want[k] -= 1
                if NEXT[k] >= 0:
                    want[NEXT[k]] += 1
                else:
                    done[CLASS_OF[k]] += 1
                off[k] -= 1
                found += 1


_ZOBRIST: dict[tuple[int, int, int, int, bool], tuple[Any, ...]] = {}


def _zobrist(
    seed: int, size: int, redeals: int, piles_n: int, canon: bool
) -> tuple[list[int], list[list[int]], list[list[int]], list[int], list[list[list[int]]]]:
    """Random 100-bit keys: reserve length, stock and waste (position,
    card key), redeals used, and piles (depth, card key), one table for
    every pile when piles are keyed as a multiset."""
    key = (seed, size, redeals, piles_n, canon)
    cached = _ZOBRIST.get(key)
    if cached is None:
        rng = random.Random(seed)

        def table(rows: int) -> list[list[int]]:
            return [[rng.getrandbits(_BITS) for _ in range(52)] for _ in range(rows)]

        zr = [rng.getrandbits(_BITS) for _ in range(size)]
        zs = table(size)
        zw = table(size)
        zd = [rng.getrandbits(_BITS) for _ in range(redeals + 2)]
        if canon:
            shared = table(size)
            zpp = [shared] * piles_n
        else:
            zpp = [table(size) for _ in range(piles_n)]
        cached = (zr, zs, zw, zd, zpp)
        _ZOBRIST[key] = cached
    return cached


def engine_move(board: Board, m: int, keys: tuple[int, ...]) -> Move:
    """The engine move for internal move ``m`` in ``board``'s position."""
    if m == DRAW:
        return Move("s")
    src, dst = m >> 6, m & 63
    target, target_index = ("f", 0) if dst == DST_FOUNDATION else ("t", dst + 1)
    if src < SRC_RESERVE:
        return Move("t", src + 1, target, target_index)
    if src == SRC_RESERVE:
        return Move("r", 0, target, target_index)
    if src == SRC_WASTE:
        return Move("w", 0, target, target_index)
    k = src - SRC_RETURN
    for index, f in enumerate(board.foundations):
        if len(f) > 1 and keys[f[-1]] == k:
            return Move("f", index + 1, target, target_index)
    raise ValueError("no foundation card to return")
