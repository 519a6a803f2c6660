"""``solve`` and ``hint``: the solver as the web game and the CLI see it.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(4, get_rules("falling-star"))
>>> result = solve(board, max_seconds=2)
>>> result.result, len(result.moves) > 100
('won', True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from terrace.board import Board, given_board
from terrace.deal import SplitMix64
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.budget import check_budget, check_nodes
from terrace.solver.endgame import shorten, without_returns
from terrace.solver.lines import NESTED_TRIES, returned, still_wins_without
from terrace.solver.options import DEFAULT_SEED, ORDER_DRAW_EARLY, ORDER_UNRANKED
from terrace.solver.search import CORE_SLICE_SECONDS, HuntState, Options, Search, core_available
from terrace.solver.twins import carried_over, chosen, representatives

HUNTER_SHARE = 2.0
"""The win-hunters get about this many times the complete search's time..."""
LATE_HUNTER_SHARE = 8.0
"""... and this many times once the complete search has entered
:data:`LATE_AFTER` positions (see :data:`EARLY_AFTER` for hunters that
learn from their best line, ``Options.elite``): it proves positions lost early or
not at all (on a full deal it has never finished; every ``lost`` verdict
of the surveys' deals 1-200 came from the reserve schedule at the start, in
at most 5 positions), while the hunters keep winning with more time
(General's Patience's 59 unknown deals among 1-200 at 30 million positions
each: 3 won instead of 0 with fresh restarts only, 15 instead of 13 with
restarts from the best line; Admiral's deals 1-60 at 40 million: 24
instead of 22)."""
LATE_AFTER = 1 << 21
EARLY_AFTER = 1 << 17
"""With ``Options.elite`` the hunters' share grows to
:data:`LEARNING_HUNTER_SHARE` already after this many positions of the
complete search; the fair player's hunters (``elite=False``) keep
:data:`LATE_AFTER` and :data:`LATE_HUNTER_SHARE`."""
LEARNING_HUNTER_SHARE = 32.0
"""The hunters' share, with ``Options.elite``, once the complete search
has entered :data:`EARLY_AFTER` positions (solver version 5). At 10
million positions a deal, with a line as good as the best one replacing
it too (:meth:`_Task._learn`), two seeds: General's Patience's 79 deals
among 1-200 that the reserve schedule does not cut at once, 34 and 31
won (eight-fold: 32 and 31; version 4: 25 and 28); Admiral's deals 1-60,
40 and 35 (eight-fold: 36 and 31; version 4: 29 and 30)."""
RESTART_NODES = 1_000
"""Positions a win-hunter explores before it restarts with another order
(see :func:`restart_nodes`)."""
ELITE_EVERY = 2
"""Every second win-hunter after the first starts from a random point of the
best line the candidate's hunters have found (the one that put most cards
up), not from the candidate's start (on General's Patience deals 1-200 at
30 million positions each: 37 won instead of 21, every one of the 21 among
them; ``bench/restarts.py --policies default,default/fresh``)."""
STALE_HUNTERS = 300
"""A candidate forgets its best line after this many hunters in a row that
did not put more cards up, and the next hunter's line is the new best: a
line that has stopped improving tends to lead nowhere. On Admiral's
Patience at 40 million positions a deal, deals 1-60 and 61-120: 41 and 35
won, against 35 and 33 when the line was kept for good (docs/winnability.md,
"Limits and open work", has the neighbouring settings)."""
FOCUS = 2
"""When any winning candidate will do, three rounds in four go to this many
candidates, those whose searches have put most cards up (on Admiral's
Patience deals 1-40 at 12 million positions each: 8 wins instead of 4)."""
NESTED_SHARE = 0.0
"""The share of the win-hunters' time that goes to the nested hunter
(nested Monte Carlo search, ``ccore/nested.c``) instead of the restarting
ones, when the compiled core is built and the hunters learn from their best
line (``Options.elite``). Measured and left at 0: half the time on
Admiral's Patience deals 1-60 at 40 million positions won 40 (version 4
alone: 41), on General's Patience deals 1-200 at 30 million 39 (36), both
within luck (``bench/restarts.py ... --set NESTED_SHARE=0.5``)."""
NESTED_DIG = 0
"""When 1, the nested hunter of :data:`NESTED_SHARE` moves cards between
piles only to empty one (``Options.dig_only``; ``bench/restarts.py ... --set
NESTED_SHARE=0.5 --set NESTED_DIG=1``). Counted in positions its share then
wins more of Admiral's Patience than without digging, but each position
costs more CPU time, and per CPU second it has not won clearly
(docs/winnability.md, "Changes measured", stops 69 and 70); 0 leaves the
nested hunter as the figures of :data:`NESTED_SHARE` measured it."""
NRPA_LEVEL = 0
"""When above 0, :data:`NESTED_SHARE` goes to the policy-learning hunter of
this level (``Options.nrpa``, ``ccore/nrpa.c``) instead of the nested hunter.
Measured and left at 0 (docs/winnability.md, "Policy-learning hunter")."""
LDS_KIND = 0
"""When above 0 (and :data:`NRPA_LEVEL` is 0), :data:`NESTED_SHARE` goes to
the discrepancy hunter counting discrepancies this way (``Options.lds``,
``ccore/lds.c``), which moves cards between piles only to empty one
(``Options.dig_only``), instead of the nested hunter. Left at 0: alone it
won 8 of Admiral's Patience deals 1-30 at 20 million positions, the nested
hunter 19, whose share itself won no more than luck (docs/winnability.md,
"Discrepancy hunter")."""
HUNT_IN_CORE = True
"""With the compiled core, the restarting win-hunters after the first run in
one call of the core per turn (:meth:`Search.hunt`), not one Python round a
hunter (that loop was 6-8% of a solve's time on Admiral's and General's
Patience); both are the same hunters. ``bench/restarts.py`` turns it off to
give the hunters other lengths."""
TIDY_SECONDS = 0.25
"""At most this long (and a quarter of the budget) is spent tidying a winning line."""
SHORTEN_SECONDS = 1.0
"""What is left of the budget is spent shortening a long winning line
(:func:`terrace.solver.endgame.shorten`), and at least this long or a
quarter of the budget, whichever is less, when little is left (a win
found late)."""
SHORTEN_TRIES = 200_000
"""With a node budget, the skipping of detours tries at most this many moves;
``max_seconds`` stays a safety net (the shortening stops by the budget's end
plus the share a time budget gets past it)."""
TIDY_TRIES = 64
"""With a node budget, tidying is bounded by tries instead of time, so the
line is the same on any machine."""
NODE_SLICE = 4_096
"""With a node budget, each turn is this many positions of the complete search
(and :data:`HUNTER_SHARE` times as many for the win-hunters) instead of a
slice of time, so the answer is the same on any machine, however busy."""
REPLAY_GRACE = 0.5
"""Seconds past the deadline the engine may take to replay a winning line
(every one is replayed before it is returned); a line it cannot replay by
then (tens of thousands of moves: eight decks with foundation return took
30 s) is not returned, and its candidate stays unknown."""
WON = "won"
LOST = "lost"
UNKNOWN = "unknown"
UNCHECKED = "unchecked"
"""A task whose search won, with a line too long to replay in the time."""


@dataclass(slots=True)
class SolveResult:
    """What the solver found out about a position."""

    result: str
    """``"won"``, ``"lost"`` or ``"unknown"``."""
    moves: list[Move] = field(default_factory=list)
    """A complete winning line from the position (engine-verified), else empty."""
    candidates: list[tuple[Move, str]] = field(default_factory=list)
    """While choosing: each candidate ``c<i>`` with its own result."""
    nodes: int = 0
    """Positions entered (by every run of a :class:`Solving`)."""
    seconds: float = 0.0
    """The time taken (by the last run of a :class:`Solving`: a run that goes
    on does not count the runs before it, nor the time between runs)."""
    reason: str = ""
    """Why the result is unknown: ``"time"``, ``"nodes"``, ``"memory"`` or ``"cancelled"``."""
    best_move: Move | None = None
    """The first move of the line that got most cards to the foundations."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON report of ``terrace solve --json``: ``line`` is the
        winning line, named as in ``terrace hint --json`` (``moves``, its
        older name, holds it too, for the scripts that read it); ``reason``
        is why an ``unknown`` result ran out (``time``, ``nodes``,
        ``memory``), else null."""
        line = [str(m) for m in self.moves]
        return {
            "result": self.result,
            "line": line,
            "moves": line,
            "candidates": [{"choice": str(m), "result": r} for m, r in self.candidates],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
            "reason": self.reason or None,
        }


@dataclass(slots=True)
class Hint:
    """A suggested move and what is known about the position."""

    move: Move | None
    kind: str
    """``"winnable"`` (``line`` wins; from the position ``back`` moves ago
    when there is no move), ``"lost"`` (no line wins any more; no move),
    ``"furthest"`` or ``"heuristic"`` (undecided in the time) or ``"none"``
    (no move: the game is over, or every move returns to a position already
    reached)."""
    line: list[Move] = field(default_factory=list)
    back: int = 0
    """Moves to take back before ``line`` applies (see :func:`terrace.solver.hint_line.win_behind`)."""


def restart_nodes(rules: Rules, options: Options) -> int:
    """How many positions a win-hunter explores before it restarts.

    :data:`RESTART_NODES` for two decks, ten times as many for four (a longer
    game needs longer tries: with 1,000 Empress of Italy deals 1-100 at 4
    million positions won 97, with 10,000 99), but never more in suit
    foundation games when hunters restart from the best line
    (``options.elite``): there a short try from a point of the best line
    wins more (Admiral's Patience deals 1-150 at 40 million positions: 80 won
    with 1,000, 57 with 10,000). Without the best line (the fair player's
    hunters) the length is what it was before that line existed.

    >>> from terrace.variants import get_rules
    >>> names = ("terrace", "empress-of-italy", "admirals-patience")
    >>> [restart_nodes(get_rules(name), Options()) for name in names]
    [1000, 10000, 1000]
    >>> restart_nodes(get_rules("admirals-patience"), Options(elite=False))
    10000
    """
    if rules.in_suit and options.elite:
        return RESTART_NODES
    return int(RESTART_NODES * 10 ** ((rules.card_count - 104) / 104))


class _Task:
    """The searches of one candidate (or of the position itself): a complete
    search that can prove a loss, and a restricted one that hunts for wins
    with another move order (its own exhaustion proves nothing)."""

    __slots__ = ("board", "choice", "hunter", "hunters", "limit", "line", "nested", "options",
                 "replay_by", "result", "search")

    def __init__(self, board: Board, choice: Move | None, options: Options, hunt: bool) -> None:
        self.board = board
        self.choice = choice
        self.search = Search(board, replace(options, one_lane=False))
        """The complete search, always of two-lane keys (it proves losses)."""
        self.options = replace(options, reserve_blocking=False) if options.reserve_blocking else options
        """The hunters' options: never the reserve schedule with blocking,
        which costs some 25 positions' time a check and finds no win."""
        self.limit = restart_nodes(board.rules, options)
        self.hunters = HuntState(
            SplitMix64(options.seed), ((options.seed - DEFAULT_SEED) * 0x9E3779B97F4A7C15) % (1 << 64),
            ELITE_EVERY, STALE_HUNTERS, options.elite)
        """The hunters' restart count, best line (internal moves from
        ``board``), spent positions and progress, and their random source."""
        self.hunter: Search | None = self._new_hunter() if hunt else None
        self.nested: Search | None = None
        """The nested hunter (or the policy-learning one: :data:`NRPA_LEVEL`,
        the discrepancy hunter: :data:`LDS_KIND`), which takes
        :data:`NESTED_SHARE` of the hunting."""
        if hunt and options.elite and NESTED_SHARE > 0 and core_available():
            hunter = replace(self.options, core="compiled", one_lane=True)
            self.nested = Search(board, replace(hunter, nrpa=NRPA_LEVEL) if NRPA_LEVEL
                                 else replace(hunter, lds=LDS_KIND, dig_only=True) if LDS_KIND
                                 else replace(hunter, nested=True, dig_only=NESTED_DIG > 0))
        self.result: str | None = None
        self.line: list[Move] = []
        self.replay_by = math.inf
        """When a winning line must have been replayed (the solve's deadline
        plus :data:`REPLAY_GRACE`)."""

    def _new_hunter(self) -> Search:
        """The next win-hunter: the first draws early and digs; then they
        take a new random move order, every :data:`ELITE_EVERY`-th starting
        from a random point of the best line so far. After the first, one
        search restarts for every hunter (:meth:`Search.restart`). The
        starting point is drawn with SplitMix64 (``Options.seed``), as the
        compiled core's loop draws it (solver version 8)."""
        hunters = self.hunters
        hunters.restarts += 1
        if hunters.restarts == 1:
            return Search(self.board, replace(self.options, order=ORDER_DRAW_EARLY, dig_only=True,
                                              one_lane=True))
        prefix: list[int] = []
        if hunters.elite and hunters.restarts % hunters.elite_every == 0:  # empty unless options.elite
            prefix = hunters.elite[:hunters.rng.below(len(hunters.elite))]
        hunter = self.hunter
        order = self._order()
        if hunters.restarts == 2 or hunter is None:
            # shuffled anyway, so unranked; the fair player's hunters (not
            # elite) keep the ranked order of its version 4
            ranking = ORDER_UNRANKED if self.options.elite else self.options.order
            hunter = Search(self.board, replace(self.options, shuffle=order, order=ranking, one_lane=True))
        hunter.restart(order, prefix, checked=False)  # the prefix is a line of the hunters'
        return hunter

    def _order(self) -> int:
        """The random move order of the current hunter: the restart count,
        moved away by ``Options.seed`` (with the default seed it is the
        count itself, so the measured runs stay reproducible); never 0,
        which would mean no shuffle."""
        return (self.hunters.restarts + self.hunters.shift) % (1 << 64) or 1

    def _learn(self, hunter: Search) -> None:
        """Keep the hunter's best line if it put at least as many cards up
        as the best line so far (an equal one replaces it: the restarts
        drift along lines of the same worth instead of circling one);
        forget the best line after :data:`STALE_HUNTERS` hunters in a row
        that did not put more up."""
        hunters = self.hunters
        if not hunters.learn:
            return
        if hunter.best_found > hunters.elite_found:
            hunters.elite = hunter.best_line()
            hunters.elite_found = hunter.best_found
            hunters.stale = 0
            return
        if hunter.best_found == hunters.elite_found:
            hunters.elite = hunter.best_line()
        hunters.stale += 1
        if hunters.stale >= hunters.stale_hunters:
            hunters.elite, hunters.elite_found, hunters.stale = [], -1, 0

    def release(self) -> None:
        """Give back the tables of the task's searches (see :meth:`Search.release`)."""
        for search in (self.search, self.hunter, self.nested):
            if search is not None:
                search.release()

    @property
    def nodes(self) -> int:
        return (self.search.nodes + self.hunters.spent + (self.hunter.nodes if self.hunter else 0)
                + (self.nested.nodes if self.nested else 0))

    def step(self, deadline: float, nodes: int | None = None) -> None:
        """One slice of the complete search, then the win-hunters for
        :data:`HUNTER_SHARE` times as long, all ending by ``deadline``; sets
        ``result`` when decided. With ``nodes`` the slices are counted in
        positions, not in time."""
        self.replay_by = deadline + REPLAY_GRACE
        if nodes is not None:
            self._step_nodes(deadline, nodes)
            return
        start = time.perf_counter()
        search = self.search
        share = 1 + (self._hunter_share() if self.hunter is not None else 0)
        search.step(min(CORE_SLICE_SECONDS, max(0.0, deadline - start) / share))
        if search.result is not None:
            self._settle(search)
            return
        if self.hunter is None:
            return
        # The hunters' turn follows the core's slice, not a stall of the
        # process (a busy machine): a slice that overran gives them no more.
        now = time.perf_counter()
        until = min(deadline, now + min(now - start, CORE_SLICE_SECONDS) * (share - 1))
        if self.nested is not None and self._nest(now + (until - now) * min(1.0, NESTED_SHARE)):
            return
        self._hunt_for(until, None)

    def _step_nodes(self, deadline: float, nodes: int) -> None:
        search = self.search
        search.step(max(0.0, deadline - time.perf_counter()), max_nodes=nodes)
        if search.result is not None:
            self._settle(search)
            return
        budget = int(nodes * self._hunter_share())
        if self.nested is not None:
            most = int(budget * min(1.0, NESTED_SHARE))
            if self._nest(deadline, most):
                return
            budget -= most
        if budget > 0:
            self._hunt_for(deadline, budget)

    def _hunt_for(self, until: float, budget: int | None) -> bool:
        """Win-hunters until ``until`` (and for at most ``budget``
        positions), at least one slice; True once one has won. With the
        compiled core the hunters after the first run in the core, in one
        call (:meth:`Search.hunt`); this loop is its reference."""
        while self.hunter is not None:
            hunter = self.hunter
            if HUNT_IN_CORE and hunter.compiled and self.hunters.restarts >= 2:
                seconds = max(0.0, until - time.perf_counter())
                if hunter.hunt(seconds, budget, self.limit, self.hunters):
                    self._settle(hunter)
                    return True
                return False
            before = self.hunters.spent + hunter.nodes
            if self._hunt(until, budget):
                return True
            if budget is not None:
                used = self.hunters.spent + (self.hunter.nodes if self.hunter else 0) - before
                if used <= 0:
                    break
                budget -= used
                if budget <= 0:
                    break
            if time.perf_counter() >= until:
                break
        return False

    def _hunter_share(self) -> float:
        """How many times the complete search's slice the hunters get now."""
        switch, later = ((EARLY_AFTER, LEARNING_HUNTER_SHARE) if self.options.elite
                         else (LATE_AFTER, LATE_HUNTER_SHARE))
        return HUNTER_SHARE if self.search.nodes < switch else later

    def _nest(self, until: float, most: int | None = None) -> bool:
        """The nested hunter until ``until`` (or for ``most`` positions);
        True once it has won."""
        nested = self.nested
        while nested is not None:
            nested.step(max(0.0, until - time.perf_counter()), max_nodes=most)
            self.hunters.progress = max(self.hunters.progress, nested.best_found)
            if nested.result == WON:
                self._settle(nested)
                return True
            if nested.result is not None:  # nothing to play: proves nothing
                self.hunters.spent += nested.nodes
                self.nested = None
                break
            if most is not None or time.perf_counter() >= until:
                break
        return False

    def _hunt(self, until: float, most: int | None = None) -> bool:
        """One slice of the win-hunter (at most ``most`` positions), ending by
        ``until``; True once it has won."""
        hunter = self.hunter
        if hunter is not None:
            cap = max(1, self.limit - hunter.nodes)
            cap = cap if most is None else min(cap, most)
            hunter.step(max(0.0, until - time.perf_counter()), max_nodes=cap)
            if hunter.result == WON:
                self._settle(hunter)
                return True
            self.hunters.progress = max(self.hunters.progress, hunter.best_found)
            if hunter.result is not None or hunter.nodes >= self.limit:
                # exhausted (which proves nothing: it may be restricted) or
                # unlucky: restart with another random move order
                self.hunters.spent += hunter.nodes
                self._learn(hunter)
                self.hunter = self._new_hunter()
        return False

    def best(self) -> int:
        """The most cards any of this task's searches has put up."""
        return max(self.hunters.progress, self.search.best_found)

    def _settle(self, search: Search) -> None:
        """Take the verdict of a finished search (its lines start from the
        task's own position); a winning line must replay to a won game in
        the engine first."""
        if search.result != WON:
            self.result = search.result or UNKNOWN
            return
        try:  # (Board.push checks every move)
            replayed = search.replay_until(self.board, search.line, self.replay_by)
        except TerraceError as error:  # pragma: no cover - would be a solver bug
            raise RuntimeError(f"solver line does not replay: {error}") from error
        if replayed is None:  # no time left to check it: a win not returned
            self.result = UNCHECKED
            return
        line, end = replayed
        if not end.is_won():  # pragma: no cover - would be a solver bug
            raise RuntimeError("solver line replays but does not win")
        self.line = line
        self.result = WON


def solve(
    board: Board,
    *,
    max_seconds: float = 10.0,
    max_nodes: int | None = None,
    all_candidates: bool = True,
    options: Options | None = None,
    hunt: bool = True,
    progress: Callable[[int, float], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    short_line: bool = True,
) -> SolveResult:
    """Decide whether ``board`` can still be won, within a budget.

    Works from any position, including the choice of the base card, and
    never changes ``board``. While choosing, every candidate gets its own
    search and the searches take turns; with ``all_candidates=False`` the
    solver stops at the first candidate that wins (enough for surveys).
    ``won`` comes only with a line the engine has replayed to a win; ``lost``
    only when the search was exhaustive. ``cancel`` is asked between slices
    of the search; once it returns True the answer is ``unknown`` with
    reason ``"cancelled"``. With ``max_nodes`` the search runs in slices of
    :data:`NODE_SLICE` positions, so the same board and budget give the same
    answer on every machine (unless ``max_seconds`` runs out first). With
    ``short_line`` a winning line of many moves a card is made shorter
    (:func:`terrace.solver.endgame.shorten`, within what is left of the
    budget, and at least :data:`SHORTEN_SECONDS` or a quarter of the budget,
    whichever is less; or :data:`SHORTEN_TRIES` with ``max_nodes``,
    then stopping by that long past the end of ``max_seconds``), and no
    position is reached twice (in the time of tidying); surveys and the fair
    player, which need the verdict more than the line, leave it off. With
    a time budget alone, the answer comes by ``max_seconds`` plus
    :data:`REPLAY_GRACE`, whatever is left to do with a winning line.
    """
    given_board(board, "solve")
    max_seconds = check_budget(max_seconds, "max_seconds")
    max_nodes = check_nodes(max_nodes)
    solving = Solving(board, all_candidates=all_candidates, options=options, hunt=hunt)
    try:
        solving.run(max_seconds=max_seconds, max_nodes=max_nodes, progress=progress, cancel=cancel)
    finally:
        solving.release()  # (before the line is finished: in the budget, see Solving.release)
    return solving.result(short_line=short_line)


class Solving:
    """A :func:`solve` that can stop and go on: :meth:`run` works until its
    budget, a ``cancel`` or a verdict stops it, and a later :meth:`run`
    goes on from there with the searches and tables as they were, turn for
    turn as one longer run would (with ``max_nodes``: the same positions,
    the same verdict). :func:`solve` is one run of one; the fair hint asked
    again keeps one that its request's time cut short
    (:class:`~terrace.solver.fair.FairPlayer`). :meth:`release` gives back
    the tables; until then they are held (:attr:`table_bytes`)."""

    def __init__(self, board: Board, *, all_candidates: bool = True, options: Options | None = None,
                 hunt: bool = True) -> None:
        self.options = options or Options()
        self.all_candidates = all_candidates
        self.root = board.copy(stack=False)
        self.tasks: list[_Task] = []
        self.children: list[Board] = []
        self.task_of: list[int] = []
        """For each candidate, the task that solves its position."""
        self.nodes = 0
        """Positions entered so far, by every run (a run's ``max_nodes`` counts them all)."""
        self.reason = ""
        """Why the last run stopped undecided (``time``, ``nodes``, ``cancelled``, ``memory``), else empty."""
        self.released = False
        self._rounds = 0
        self._queue: list[_Task] = []
        """The tasks still to step in the round a run stopped in."""
        self._max_seconds = 0.0
        self._max_nodes: int | None = None
        self._start = self._deadline = time.perf_counter()
        root = self.root
        if root.is_won():
            return
        options = self.options
        if root.choosing:
            self.children = [chosen(root, index) for index in range(root.rules.candidates)]
            firsts = representatives(self.children) if options.twins else list(range(len(self.children)))
            for index, child in enumerate(self.children):
                if firsts[index] == index:
                    self.task_of.append(len(self.tasks))
                    self.tasks.append(_Task(child, Move.choose(index + 1), options, hunt))
                else:  # a twin: the search of the first candidate of its rank
                    self.task_of.append(self.task_of[firsts[index]])
        else:
            self.tasks.append(_Task(root, None, options, hunt))

    @property
    def table_bytes(self) -> int:
        """The bytes the tables of the searches hold now (the compiled
        core's, or about those of the pure-Python search's positions)."""
        if self.released:
            return 0
        return sum(search.table_bytes for task in self.tasks
                   for search in (task.search, task.hunter, task.nested) if search is not None)

    def finished(self) -> bool:
        """True once a further run could change nothing: every task decided
        (or, without ``all_candidates``, one won)."""
        running = [t for t in self.tasks if t.result is None]
        return not running or (not self.all_candidates and any(t.result == WON for t in self.tasks))

    def run(self, *, max_seconds: float = 10.0, max_nodes: int | None = None,
            progress: Callable[[int, float], None] | None = None, cancel: Callable[[], bool] | None = None,
            ) -> str:
        """Search on, for ``max_seconds`` and until :attr:`nodes` reaches
        ``max_nodes`` (the positions of earlier runs counted); the reason
        it stopped undecided, else empty."""
        if self.released:
            raise RuntimeError("a released solve runs no more")
        self._start = start = time.perf_counter()
        self._deadline = deadline = start + max_seconds
        self._max_seconds, self._max_nodes = max_seconds, max_nodes
        tasks = self.tasks
        reason = ""
        if max_nodes is not None and self.nodes >= max_nodes:
            reason = "nodes"
        while not reason:
            if self._queue:
                running, self._queue = [t for t in self._queue if t.result is None], []
            else:
                if self.finished():
                    break
                running = [t for t in tasks if t.result is None]
                self._rounds += 1
                if not self.all_candidates and len(running) > FOCUS and self._rounds % 4:
                    running = sorted(running, key=_Task.best, reverse=True)[:FOCUS]
            for at, task in enumerate(running):  # every turn is short, so a stop is noticed at once
                task.step(deadline, None if max_nodes is None else NODE_SLICE)
                if task.result == WON and not self.all_candidates:
                    break
                self.nodes = sum(t.nodes for t in tasks)
                if time.perf_counter() >= deadline:
                    reason = "time"
                elif cancel is not None and cancel():
                    reason = "cancelled"
                elif max_nodes is not None and self.nodes >= max_nodes:
                    reason = "nodes"
                if reason:
                    self._queue = running[at + 1:]
                    break
            self.nodes = sum(t.nodes for t in tasks)
            if progress is not None:
                progress(self.nodes, time.perf_counter() - start)
        if any(t.result == "memory" for t in tasks):
            reason = "memory"
        self.reason = reason
        return reason

    def release(self) -> None:
        """Give back the searches' tables: no more runs (the result stays)."""
        for task in self.tasks:  # (in the budget: on the return, 5-9 ms came past the grace)
            task.release()
        self.released = True

    def result(self, *, short_line: bool = True) -> SolveResult:
        """What the runs so far found (:func:`solve`'s answer), the line
        shortened with ``short_line``, in the last run's budget."""
        root, tasks, reason = self.root, self.tasks, self.reason
        max_seconds, max_nodes, deadline = self._max_seconds, self._max_nodes, self._deadline
        if root.is_won():
            return SolveResult(WON, seconds=time.perf_counter() - self._start)
        verdicts = [t.result if t.result in (WON, LOST) else UNKNOWN for t in tasks]
        if WON in verdicts:
            overall = WON
        elif all(v == LOST for v in verdicts):
            overall = LOST
        else:
            overall = UNKNOWN
        moves: list[Move] = []
        best: Move | None = None
        for task, verdict in zip(tasks, verdicts, strict=True):
            if verdict == WON:
                shorter = short_line and reason != "cancelled"  # (a cancelled search answers at once)
                moves = ([task.choice] if task.choice else []) + _finished_line(
                    task, max_seconds, max_nodes, deadline, shorter)
                break
        if overall != WON:
            ranked = sorted(tasks, key=lambda t: t.search.best_found, reverse=True)
            top = ranked[0]
            if top.choice is not None:
                best = top.choice
            elif top.search.best_first is not None:
                best = top.search.moves_to_engine(top.board, [top.search.best_first])[0]
        else:
            best = moves[0] if moves else None
        last = deadline + REPLAY_GRACE
        candidates = [(Move.choose(index + 1), _twin_verdict(tasks[task], verdicts[task], child, last))
                      for index, (task, child) in enumerate(zip(self.task_of, self.children, strict=True))]
        return SolveResult(
            overall,
            moves,
            candidates,
            nodes=self.nodes,
            seconds=time.perf_counter() - self._start,
            reason="" if overall != UNKNOWN else (reason or "time"),
            best_move=best,
        )


def _finished_line(task: _Task, max_seconds: float, max_nodes: int | None, deadline: float,
                   shorter: bool) -> list[Move]:
    """``task``'s winning line as :func:`solve` returns it: shortened and
    with no position twice when ``shorter``, and tidied, each in its share
    of the time but all by ``deadline`` plus :data:`REPLAY_GRACE`, when a
    time budget's answer is due (a win replayed late had shortening and
    tidying in full after it: a 1 s solve ended 0.96 s late). With
    ``max_nodes`` the shortening and tidying are bounded in tries, and the
    solve's ``deadline`` plus the share a time budget gets is only a safety
    net."""
    line = task.line
    share = min(SHORTEN_SECONDS, max_seconds / 4)
    last = deadline + REPLAY_GRACE  # (a time budget's answer comes by then, a late win's line as it is)
    if shorter and max_nodes is None:  # (the rest of the budget, at least the share: a win found early)
        now = time.perf_counter()
        line = shorten(task.board, line, seconds=max(min(max(share, deadline - now), last - now), 0.0))
    elif shorter:
        line = shorten(task.board, line, seconds=max(deadline + share - time.perf_counter(), 0.0),
                       max_tries=SHORTEN_TRIES)
    tidy_until = time.perf_counter() + min(TIDY_SECONDS, max_seconds / 4)
    if max_nodes is None:
        tidy_until = min(tidy_until, last)
        line = _tidy(task.board, line, max(tidy_until - time.perf_counter(), 0.0))
    else:  # (the safety net: each try may replay the rest of a long line twice)
        tidy_until = max(tidy_until, deadline + share)
        line = _tidy(task.board, line, max(tidy_until - time.perf_counter(), 0.0), max_tries=TIDY_TRIES)
    if shorter:  # the pairs tidying drops can leave a move and its reverse side by side
        line = without_returns(task.board, line, until=tidy_until)
    return line


def _twin_verdict(task: _Task, verdict: str, child: Board, until: float = math.inf) -> str:
    """The verdict of a candidate whose position ``task`` solved: its own,
    or for a twin (another candidate of the same rank) the same, a win only
    once its line, carried over, replays to a win from the twin's position
    by ``until`` (the solve's deadline plus :data:`REPLAY_GRACE`: ten twins
    replaying a long line took 0.4 s more), else unknown."""
    if verdict != WON or child is task.board:
        return verdict
    if time.perf_counter() > until:
        return UNKNOWN
    return WON if carried_over(task.line, task.board, child, until) is not None else UNKNOWN


def _tidy(board: Board, moves: list[Move], seconds: float = 0.25, max_tries: int | None = None) -> list[Move]:
    """Drop pairs of moves that shift a card to another pile and straight
    back, also when such pairs inside the pair stand in between (those are
    dropped first: :func:`~terrace.solver.lines.returned`, at most
    :data:`~terrace.solver.lines.NESTED_TRIES` for each pair), keeping only
    changes after which the engine still replays the line to a win. One
    pass: the board before the move looked at is kept, so each try replays
    only the rest of the line. Bounded by ``seconds`` (a try still replaying
    then keeps its pair) and, when given, ``max_tries`` replays (the inner
    pairs' counted too, one always left for the pair itself).
    """
    deadline = time.perf_counter() + seconds
    tries = 0
    current = board.copy(stack=False)
    i = 0
    while i < len(moves):
        if time.perf_counter() >= deadline or (max_tries is not None and tries >= max_tries):
            break
        m = moves[i]
        if m.source == "t" and m.target == "t":
            nested = NESTED_TRIES if max_tries is None else min(NESTED_TRIES, max_tries - tries - 1)
            left = [nested]
            inner, j = returned(current, moves, i, deadline, left)
            tries += nested - left[0]
            if j >= 0:
                tries += 1
                if still_wins_without(current, inner, i, j, deadline):
                    moves = inner[:i] + inner[i + 1:j] + inner[j + 1:]
                    continue
        current.push(m)
        i += 1
    return moves
