"""Shorter winning lines: a best-first search of a won line's endgame.

The win-hunters search depth first, so a line they win keeps every move
on the way, wanders included. Where the rules let cards wander without end
(free spaces, cards taken back from the foundations), the endgame of such a
line can run to thousands of moves: Empress of Italy's deal 4 had 19,000
moves after its stock was used up, with 20 cards left. Once the stock is
drawn, everything is in sight and little is left, so a best-first search
(cards left and what the terrace still needs, plus the moves made) finds a
short way to the same goal: 57 moves there, in 6,600 positions.

The search proves nothing and needs no proof: it only offers a line, and
:func:`shorten` keeps it only if the engine replays the whole line to a win
and it is shorter.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> from terrace.solver.api import solve
>>> board = Board.from_number(4, get_rules("falling-star"))
>>> line = solve(board, max_seconds=2).moves
>>> len(shorten(board, line, seconds=1.0)) <= len(line)
True
"""

from __future__ import annotations

import heapq
import math
import time

from terrace.board import Board
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.solver.movegen import MoveGen
from terrace.solver.options import Options
from terrace.solver.prune import reserve_dead
from terrace.solver.search import replay_line, slot_keys
from terrace.solver.state import DRAW, DST_FOUNDATION, SRC_RESERVE, SRC_RETURN, SRC_WASTE, State

RESERVE_WEIGHT = 30
"""A terrace card still to play counts as this many cards left: the terrace
is what a won endgame waits for."""
REACH_WEIGHT = 3
"""Each card by which the foundation nearest to the next terrace card's
height is off it (cards to put up, or to take back) counts this many."""
LONG_LINE = 3
"""Only lines of more than this many moves a card are shortened: the
presets without free spaces or foundation-return win in about two."""
LONG_ENDGAME = 3
"""An endgame is searched again only when its moves are more than this
many times the cards it starts with outside the foundations (plus
:data:`SLACK`); a line that plays them out directly is left as it is."""
SLACK = 20
MAX_POSITIONS = 300_000
"""The most positions one best-first search keeps (about 60 MB)."""
BRIDGE_FROM = 8
"""Stretches between two draws of more moves than this are bridged anew."""
BRIDGE_POSITIONS = 64
"""A bridge keeps at most this many positions per move of the stretch it
replaces, and :data:`BRIDGE_MOST` in all."""
BRIDGE_MOST = 20_000
BRIDGE_WEIGHT = 2
"""A bridge's search orders positions by moves made plus this many times
the estimate (weighted A*: a short way found fast rather than the shortest)."""
CHECK_EVERY = 64
REPLAY_RESERVE = 2
""":func:`skip_detours` keeps this many times the time reading its line
took a move for replaying the shorter line (the two took 0.9-1.3 times
each other on eight decks, and a bridge's last search can run past its
share). Eight decks, 20 piles and candidates, free spaces, foundation
return, deal 27, solves of 1-3 s: reserving once, three of five replays
ran out and kept the line of 13,216 moves; twice, none did (4,670-5,948
moves)."""


def estimate(s: State) -> int:
    """How far ``s`` looks from a win: cards outside the foundations, the
    terrace cards weighted by :data:`RESERVE_WEIGHT`, and how far the
    nearest foundation of the next terrace card's class is from the height
    that card needs, by :data:`REACH_WEIGHT`."""
    t = s.t
    left = s.total - s.found + RESERVE_WEIGHT * len(s.res)
    if s.res:
        k = t.sk[s.res[-1]]
        row = t.chain[t.class_of[k]]
        need = t.height[k]
        gap = 13 - need if s.done[t.class_of[k]] else 13
        for height in range(13):
            if s.want[row[height]] > 0:
                gap = min(gap, abs(height - need))
        left += REACH_WEIGHT * gap
    return left


def best_first(board: Board, *, until: float = math.inf,
               max_positions: int = MAX_POSITIONS) -> list[Move] | None:
    """A winning line from ``board`` (past the choice of the base card)
    found by best-first search, or None when none was found before
    ``until`` (:func:`time.perf_counter`) or within ``max_positions``
    positions kept. Positions are ordered by moves made plus
    :func:`estimate`, each entered once (by its solver key). The clock is
    read before every expansion, as in :func:`bridge`: one expansion plays
    the way to its position and tries every move there (read every 64, a
    late win's shortening ended 49 ms past the grace at 10 us a move)."""
    options = Options()
    s = State(board, options.canonical, options.seed)
    gen = MoveGen(options, s.ret)
    dead_check = options.dead_reserve and not s.ret
    if s.found == s.total:
        return []
    tree = _Tree(s)
    best_depth = {s.key(): 0}
    heap: list[tuple[int, int, int]] = [(estimate(s), 0, 0)]
    while heap:
        if len(tree) >= max_positions or time.perf_counter() > until:  # (see bridge)
            break
        _, depth, node = heapq.heappop(heap)
        path = tree.visit(node)
        for m in gen.moves(s, *tree.arrival(node)):
            u = s.apply(m)
            if s.found == s.total:
                s.undo(m, u)
                tree.leave()
                return _engine_line(board, [*path, m])
            key = s.key()
            known = best_depth.get(key)
            dead = dead_check and m >= 0 and (m & 63) == DST_FOUNDATION and bool(s.res) and reserve_dead(s)
            if not dead and (known is None or known > depth + 1):
                best_depth[key] = depth + 1
                heapq.heappush(heap, (depth + 1 + estimate(s), depth + 1, tree.add(node, m, u)))
            s.undo(m, u)
    tree.leave()
    return None


class _Tree:
    """The positions a best-first search keeps, as a tree of moves from the
    position of ``s`` (node 0), and ``s`` moved from one to the next."""

    __slots__ = ("applied", "moves", "parents", "refills", "s")

    def __init__(self, s: State) -> None:
        self.s = s
        self.parents: list[int] = [-1]
        self.moves: list[int] = [-2]
        self.refills: list[int] = [0]
        self.applied: list[tuple[int, int]] = []
        """(node, refill code) of the moves played on ``s`` from node 0."""

    def __len__(self) -> int:
        return len(self.moves)

    def add(self, parent: int, m: int, u: int) -> int:
        """A new node: ``parent``'s position after move ``m`` (refill ``u``)."""
        self.parents.append(parent)
        self.moves.append(m)
        self.refills.append(u)
        return len(self.moves) - 1

    def arrival(self, node: int) -> tuple[int, int]:
        """The move that led to ``node`` and its refill code (the root: -2, 0)."""
        return (self.moves[node], self.refills[node]) if node else (-2, 0)

    def visit(self, node: int) -> list[int]:
        """Set ``s`` to ``node``'s position, going back to the common
        ancestor of the position it stands at and then down (best-first
        mostly dives, so few moves are played); returns the moves from the
        root."""
        path: list[int] = []
        at = node
        while at > 0:
            path.append(at)
            at = self.parents[at]
        path.reverse()
        applied, moves, s = self.applied, self.moves, self.s
        same = 0
        while same < len(applied) and same < len(path) and applied[same][0] == path[same]:
            same += 1
        while len(applied) > same:
            played, code = applied.pop()
            s.undo(moves[played], code)
        for i in path[same:]:
            applied.append((i, s.apply(moves[i])))
        return [moves[i] for i in path]

    def leave(self) -> None:
        """Set ``s`` back to the root's position."""
        while self.applied:
            played, code = self.applied.pop()
            self.s.undo(self.moves[played], code)


def _engine_line(board: Board, line: list[int], until: float = math.inf) -> list[Move] | None:
    """The engine's moves for the search's ``line`` from ``board``, or None
    unless the engine plays them to a win (which would be a bug) before
    :func:`time.perf_counter` passes ``until``."""
    try:
        replayed = replay_line(board, line, until)
    except (TerraceError, ValueError):  # pragma: no cover - a bug; the line is then kept
        return None
    if replayed is None:  # (out of time)
        return None
    moves, end = replayed
    return moves if end.is_won() else None


def endgame_start(board: Board, line: list[Move], until: float = math.inf) -> tuple[int, Board] | None:
    """Where the endgame of the winning ``line`` begins: the first point at
    which the stock and the waste are empty, with the board there; None when
    that endgame is played out directly already (see :data:`LONG_ENDGAME`)
    or when :func:`time.perf_counter` passes ``until`` first."""
    copy = board.copy(stack=False)
    rules = board.rules
    for index, move in enumerate(line):
        if index % CHECK_EVERY == 0 and time.perf_counter() > until:
            return None
        if not copy.choosing and not copy.stock and not copy.waste:
            left = rules.card_count - sum(len(f) for f in copy.foundations)
            if len(line) - index <= LONG_ENDGAME * left + SLACK:
                return None
            return index, copy
        copy.push(move)
    return None


def shorten(board: Board, line: list[Move], *, seconds: float = 0.5,
            max_positions: int = MAX_POSITIONS, max_tries: int | None = None) -> list[Move]:
    """``line`` (a winning line from ``board``, past the choice of the base
    card), or a shorter one: its endgame replaced by a best-first search's
    (:func:`best_first`, given ``max_positions``), then every stretch that
    one move can skip skipped (:func:`skip_detours`, given ``max_tries``).
    Both share ``seconds``. Lines of at most :data:`LONG_LINE` moves a card
    are left as they are. The result is always a line the engine replays to
    a win.
    A line that starts with the choice of the base card keeps it."""
    if len(line) <= LONG_LINE * board.rules.card_count:
        return line
    until = time.perf_counter() + seconds
    if board.choosing and line:
        chosen = board.copy(stack=False)
        chosen.push(line[0])
        return line[:1] + _shorten_from(chosen, line[1:], until, max_positions, max_tries)
    return _shorten_from(board, line, until, max_positions, max_tries)


def _shorten_from(board: Board, line: list[Move], until: float, max_positions: int,
                  max_tries: int | None) -> list[Move]:
    start = endgame_start(board, line, until)
    if start is not None:
        index, endgame = start
        found = best_first(endgame, until=until, max_positions=max_positions)
        if found is not None and len(found) < len(line) - index:
            line = line[:index] + found
    return skip_detours(board, line, until=until, max_tries=max_tries)


def internal_move(board: Board, move: Move, keys: tuple[int, ...]) -> int:
    """The search's code of the engine's ``move`` in ``board``'s position
    (the inverse of :func:`engine_move`)."""
    if move.source == "s":
        return DRAW
    if move.source == "t":
        src = move.source_index - 1
    elif move.source == "w":
        src = SRC_WASTE
    elif move.source == "r":
        src = SRC_RESERVE
    else:
        src = SRC_RETURN + keys[board.foundations[move.source_index - 1][-1]]
    return src * 64 + (DST_FOUNDATION if move.target == "f" else move.target_index - 1)


def skip_detours(board: Board, line: list[Move], *, until: float = math.inf,
                 max_tries: int | None = None) -> list[Move]:
    """``line`` with every stretch skipped that one legal move also goes
    across: from each position, the move that reaches the latest position
    of the line. Positions are compared by exact keys (every card and pile
    in its place), so the rest of the line plays on unchanged. Stops
    skipping at ``until`` or once ``max_tries`` moves were tried (the rest
    of the line is then kept as it is). The stretches between draws are then
    bridged (:func:`bridge_stretches`). The result is replayed by the engine
    (a line shorter than ``line``: skipping and bridging stop in time for
    it, reckoned by :data:`REPLAY_RESERVE` times the time reading ``line``
    took a move); if it did not win by ``until`` (without that deadline,
    the replay after a bridge's last search ended 0.1 s of work late on
    eight decks), ``line`` is returned, as it is when nothing was skipped
    (without a replay)."""
    options = Options(canonical=False)
    keys = slot_keys(board.rules.in_suit)
    copy = board.copy(stack=False)
    codes: list[int] = []
    began = time.perf_counter()
    for move in line:
        if len(codes) % CHECK_EVERY == 0 and time.perf_counter() > until:
            return line
        codes.append(internal_move(copy, move, keys))
        copy.push(move)
    per_move = REPLAY_RESERVE * (time.perf_counter() - began) / max(len(line), 1)
    s = State(board, options.canonical, options.seed)
    gen = MoveGen(options, s.ret)
    latest: dict[int, int] = {s.key(): 0}
    played = []
    for index, m in enumerate(codes, 1):
        if index % CHECK_EVERY == 0 and time.perf_counter() > until - per_move * len(codes):
            return line
        played.append((m, s.apply(m)))
        latest[s.key()] = index
    for m, u in reversed(played):
        s.undo(m, u)
    out: list[int] = []
    index = 0
    prev, prev_u = -2, 0
    tries = 0
    while index < len(codes):
        if (max_tries is not None and tries >= max_tries) or (  # (every move: each tries them all)
                time.perf_counter() > until - per_move * (len(out) + len(codes) - index)):
            out += codes[index:]
            break
        best, best_index = codes[index], index + 1
        options_here = gen.moves(s, prev, prev_u)
        tries += len(options_here)
        for m in options_here:
            u = s.apply(m)
            reached = latest.get(s.key(), -1)
            s.undo(m, u)
            if reached > best_index:
                best, best_index = m, reached
        prev, prev_u = best, s.apply(best)
        out.append(best)
        index = best_index
    bridged = bridge_stretches(board, out, until=until - per_move * len(out), max_tries=max_tries,
                               spent=tries)
    if len(bridged) >= len(line):
        return line
    shorter = _engine_line(board, bridged, until)
    return shorter if shorter is not None else line


def without_returns(board: Board, line: list[Move], *, until: float = math.inf) -> list[Move]:
    """``line`` (moves from ``board``) without the moves between two visits
    of one position, so that no position comes twice: the engine's moves
    depend on the position alone, so the rest plays on unchanged. Once
    :func:`time.perf_counter` passes ``until``, the rest of ``line`` is kept
    as it is."""
    copy = board.copy(stack=False)
    at = {copy.position_key(): 0}
    passed = [copy.position_key()]  # the position after each move of ``out``, the start first
    out: list[Move] = []
    for index, move in enumerate(line):
        if index % CHECK_EVERY == 0 and time.perf_counter() > until:
            return out + line[index:]  # (``out`` ends where ``line[:index]`` does)
        copy.push(move)
        here = copy.position_key()
        back = at.get(here)
        if back is None:
            out.append(move)
            at[here] = len(out)
            passed.append(here)
            continue
        for gone in passed[back + 1:]:
            del at[gone]
        del passed[back + 1:]
        del out[back:]
    return out


class _Target:
    """A position a bridge must reach: its exact key and what the distance
    estimate compares."""

    __slots__ = ("key", "off", "piles", "res", "stk", "wst")

    def __init__(self, s: State) -> None:
        self.key = s.key()
        self.res = len(s.res)
        self.wst = len(s.wst)
        self.stk = len(s.stk)
        self.off = list(s.off)
        self.piles = [list(p) for p in s.piles]


def _distance(s: State, target: _Target) -> int:
    """The fewest moves from ``s`` to ``target`` without a draw could take
    (a lower bound): each move takes one card from where it lies and lays
    it somewhere, so at least as many moves as cards must leave their place
    (terrace and waste cards to play, cards to take off piles or back from
    the foundations), and as many as must arrive (on piles, or up), but for
    the waste cards that automatic spaces take along; -1 when
    out of reach (a card played from the terrace or the waste never comes
    back)."""
    res = len(s.res) - target.res
    wst = len(s.wst) - target.wst
    stk = len(s.stk) - target.stk
    if res < 0 or wst < 0 or stk < 0:
        return -1
    up = back = 0
    for have, need in zip(s.off, target.off, strict=True):
        if have > need:
            up += have - need
        else:
            back += need - have
    leave = arrive = 0
    for pile, goal in zip(s.piles, target.piles, strict=True):
        same = 0
        most = min(len(pile), len(goal))
        while same < most and pile[same] == goal[same]:
            same += 1
        leave += len(pile) - same
        arrive += len(goal) - same
    if s.auto:  # a move that empties a pile also lays the waste (or stock) card there
        return max(res + leave + back, arrive + up - wst - stk)
    return max(res + wst + leave + back, arrive + up)


def bridge(s: State, gen: MoveGen, target: _Target, *, most: int, until: float) -> list[int] | None:
    """Fewer than ``most`` moves, none a draw, that take ``s`` (left as it
    was) to ``target``'s exact position, found by weighted A* on
    :func:`_distance` (positions that cannot arrive in time are dropped);
    None when none was found within ``most`` times :data:`BRIDGE_POSITIONS`
    positions kept (:data:`BRIDGE_MOST` at most) or before ``until``
    (read before every expansion)."""
    start = _distance(s, target)
    if start < 0 or start >= most:
        return None
    tree = _Tree(s)
    seen = {s.key(): 0}
    heap: list[tuple[int, int, int]] = [(BRIDGE_WEIGHT * start, 0, 0)]
    limit = min(BRIDGE_POSITIONS * most, BRIDGE_MOST)
    found: list[int] | None = None
    while heap and found is None:
        if len(tree) >= limit or time.perf_counter() > until:  # (every expansion: see the docstring)
            break
        _, depth, node = heapq.heappop(heap)
        path = tree.visit(node)
        for m in gen.moves(s, *tree.arrival(node)):
            if m == DRAW:
                continue
            u = s.apply(m)
            key = s.key()
            if key == target.key:
                found = [*path, m]
                s.undo(m, u)
                break
            known = seen.get(key)
            left = _distance(s, target) if known is None or known > depth + 1 else -1
            if left >= 0 and depth + 1 + left < most:
                seen[key] = depth + 1
                heapq.heappush(heap, (depth + 1 + BRIDGE_WEIGHT * left, depth + 1, tree.add(node, m, u)))
            s.undo(m, u)
    tree.leave()
    return found


def bridge_stretches(board: Board, codes: list[int], *, until: float = math.inf,
                     max_tries: int | None = None, spent: int = 0) -> list[int]:
    """``codes`` (a winning line of the search's moves from ``board``) with
    each stretch between two draws of more than :data:`BRIDGE_FROM` moves
    replaced by a shorter way to the same position where :func:`bridge`
    finds one; stops at ``until``, or once ``max_tries`` positions were
    kept (counting ``spent`` already), keeping the rest of ``codes`` as it
    is (unplayed: playing it took 0.13 s of work past ``until`` on a line
    of 13,000 moves)."""
    options = Options(canonical=False)
    s = State(board, options.canonical, options.seed)
    gen = MoveGen(options, s.ret)
    out: list[int] = []
    index = 0
    while index < len(codes):
        if time.perf_counter() >= until or (max_tries is not None and spent >= max_tries):
            return out + codes[index:]
        end = index
        while end < len(codes) and codes[end] != DRAW:
            end += 1
        stretch = codes[index:end]
        if len(stretch) > BRIDGE_FROM:
            undo = [(m, s.apply(m)) for m in stretch]
            target = _Target(s)
            for m, u in reversed(undo):
                s.undo(m, u)
            shorter = bridge(s, gen, target, most=len(stretch), until=until)
            spent += min(BRIDGE_POSITIONS * len(stretch), BRIDGE_MOST)
            if shorter is not None:
                stretch = shorter
        for m in stretch:
            s.apply(m)
        out += stretch
        if end < len(codes):
            s.apply(DRAW)
            out.append(DRAW)
        index = end + 1
    return out
