"""The fair player: decides from what a player sees, never from the stock.

Method (determinised sampling, or hindsight optimisation): draw K orders of
the unseen cards consistent with the observation, solve each sampled
position with the perfect-information solver under a small node budget, and
play the move that wins in the most samples.

* A proved-safe foundation move, or the only move that leads somewhere new,
  is played without sampling.
* Once every stock order the player cannot rule out plays the same game (at
  most one card unseen, or copies of cards the rules cannot tell apart:
  :attr:`~terrace.solver.observation.Observation.forced`), that game is
  solved once, with the positions of K samples, and a proved winning line
  is followed to the end (kinds ``winnable``, ``lost``, ``heuristic``).
* Half of the K samples are solved first (``early``); when every winning
  one starts with the same move (or none wins) that move is played. Only
  contested decisions get all K, and 2K (``space_factor``) when a move
  empties or fills a pile. The base-card choice gets 2K (``choice_factor``),
  each sample solved for every candidate with a larger budget
  (``choice_nodes``).
* Each sample's solve gives a winning line, whose first move wins in that
  sample. When the winning samples disagree, the best few moves
  (``candidates``) are checked against every winning sample, branch and
  bound: a move stops being checked once it can no longer overtake. Ties go
  to the greedy player's choice; when no sample wins, the greedy move is
  played.
* Work is reused between moves (``reuse``): a sample stays as long as it is
  consistent with what has been revealed; a winning line whose next move is
  the move played stays a winning line, a lost sample stays lost, an
  undecided one stays undecided, and only the rest is solved again. When a
  card turns up that a sample had put elsewhere (``repair``), the two are
  swapped in the sample's stock, the swap partner drawn at random among the
  places that may hold that card: the sample stays a uniform draw given all
  that is seen, and its line is kept if the engine still replays it to a
  win. Before solving a sample, a few winning lines of other samples are
  replayed on it (``share``).
* The same decision asked again (``decide(..., again=True)``, after
  :meth:`FairPlayer.resume`) keeps every sample as it is, goes on with the
  solves the time cut short (their searches kept, tables and all:
  :class:`~terrace.solver.api.Solving`, at most :data:`KEPT_SOLVES` of
  them and :data:`KEPT_SOLVE_BYTES` in a process; one pushed out starts
  again), and draws the next samples from where it stopped: the fair
  hint asked again at one position.

With a node budget (``nodes``) every solve, and so every decision, is a
function of the observation and the seed: the same observation gives the
same move, whatever the face-down cards really are (``seconds`` caps each
solve's wall-clock time as a safety net; when it bites, decisions can vary).
"""

from __future__ import annotations

import random
import time
from bisect import insort
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from terrace.board import Board
from terrace.bounded import Bounded
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.refusals import quote
from terrace.solver.api import SolveResult, Solving
from terrace.solver.budget import (
    BudgetError,
    check_budget,
    check_count,
    check_deadline,
    check_nodes,
    check_seed,
)
from terrace.solver.decision import Decision
from terrace.solver.greedy import choice_value, greedy_move
from terrace.solver.hint_line import HEURISTIC, WINNABLE
from terrace.solver.lines import replays_to_win
from terrace.solver.observation import Observation, visible_key
from terrace.solver.options import Options

FAIR_VERSION = 8
"""Bumped whenever a change could alter the fair player's games (7: no
move that takes its own last move between two piles straight back with
no card turned up since, :func:`without_returns`; 8: once the stock's
order is forced, one solve with the positions of K samples instead of K
samples of the one game, :meth:`FairPlayer._exact`)."""
UNCHANGED_HUNTERS = Options(elite=False, twins=False)
"""The fair player's solves keep the win-hunters of FAIR_VERSION 4 (no
restarts from the best line, which came later and won this player no more:
docs/winnability.md, "What it says") and its candidates (twins solved
apart, as then), so that its games stay those its tables were measured with."""

WON, LOST, UNKNOWN, OPEN = "won", "lost", "unknown", "open"

KEPT_SOLVES = 16
"""How many solves cut short by a decision's time (or positions) a process
keeps to go on with when the decision is asked again (the latest ones)..."""
KEPT_SOLVE_BYTES = 256 << 20
"""... and how many bytes of their tables in all (a solve of Admiral's
Patience held 4 MB at 1.28 million positions; the pure-Python search's,
:data:`~terrace.solver.search.PY_ENTRY_BYTES` a position kept); the one cut short last is
kept whatever its size. A solve pushed out starts again when its sample
is solved again."""
KEPT: Bounded[Solving, int] = Bounded(KEPT_SOLVES, KEPT_SOLVE_BYTES, lambda held: held,
                                     forgotten=Solving.release)
"""The kept solves, each with the bytes of its tables when it was kept
(a solve is taken out while it runs)."""


SETTING_LIMITS: dict[str, tuple[int, int]] = {
    "samples": (1, 4096), "nodes": (1, 10**9), "choice_nodes": (1, 10**9),
    "choice_factor": (1, 64), "space_factor": (1, 64), "candidates": (1, 64), "share": (0, 64),
}
"""The lowest and highest value of each whole-number setting of
:class:`FairSettings` (the command line's ``--samples`` takes its range)."""


@dataclass(frozen=True, slots=True)
class FairSettings:
    """How hard the fair player thinks.

    >>> FairSettings(samples=8).to_dict()["samples"]
    8
    >>> FairSettings(samples=0)
    Traceback (most recent call last):
    ...
    terrace.solver.budget.BudgetError: samples must be a whole number from 1 to 4096, not 0
    """

    samples: int = 16
    """K: sampled stock orders per decision."""
    nodes: int = 20_000
    """Solver node budget per sample (keeps decisions deterministic; version
    6 doubled it: docs/winnability.md, "How many samples")."""
    choice_nodes: int = 40_000
    """Node budget per sample and candidate for the base-card choice."""
    seconds: float = 60.0
    """Wall-clock cap per solve: only a safety net (when it bites, the
    decision depends on the machine's speed); above 0, at most
    :data:`~terrace.solver.budget.MAX_SECONDS`."""
    choice_factor: int = 2
    """More samples for the base-card choice."""
    space_factor: int = 2
    """More samples when a move would empty or fill a pile."""
    candidates: int = 3
    """Moves checked against every winning sample when the samples disagree."""
    reuse: bool = True
    """Keep samples and their winning lines from one move to the next."""
    repair: bool = True
    """When a card turns up that a kept sample placed elsewhere, swap it into
    place (the sample stays a uniform draw) instead of dropping the sample."""
    share: int = 4
    """Winning lines of other samples tried on a sample (by replaying them)
    before it is solved."""
    early: bool = True
    """Solve half of the samples first and stop there when every winning one
    starts with the same move (or none wins)."""
    lines: bool = False
    """Among moves that win in as many samples, prefer the one that starts
    the best line (the one putting most cards up) of the most undecided
    samples, and solve undecided samples again at every decision; without
    it, a decision whose samples all stay undecided is the rule of thumb's.
    Measured, not yet the default (docs/winnability.md, "What it says")."""

    def __post_init__(self) -> None:
        for name, (low, high) in SETTING_LIMITS.items():
            # (a plain int: numpy's int64 is taken, as the engine takes numpy's whole numbers)
            object.__setattr__(self, name, check_count(getattr(self, name), name, low, high))
        # (as a float: 60 and 60.0 are one setting, and so one player key)
        object.__setattr__(self, "seconds", check_budget(self.seconds, "seconds", positive=True))
        for name in ("reuse", "repair", "early", "lines"):
            if not isinstance(getattr(self, name), bool):
                raise BudgetError(f"{name} must be true or false, not {quote(getattr(self, name))}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FairSettings:
        """Settings from a JSON object (a mapping); unknown keys are refused."""
        if not isinstance(data, Mapping):
            raise BudgetError(f"the fair player's settings are a JSON object of settings by name,"
                              f" not {quote(data)}")
        known = {f.name for f in fields(cls)}
        unknown = sorted((key for key in data if key not in known), key=str)
        if unknown:
            raise BudgetError(f"unknown fair-player setting {quote(unknown[0])};"
                              f" known: {', '.join(sorted(known))}")
        return cls(**dict(data))

    def to_dict(self) -> dict[str, Any]:
        """Every setting as JSON values."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(slots=True)
class _Sample:
    """One sampled stock order, as the board it makes at the current
    position, with what the solver found there: ``status`` of the position
    and, per move, the outcome after it (with a winning line from before it)."""

    board: Board
    status: str = OPEN
    line: list[Move] = field(default_factory=list)
    after: dict[Move, tuple[str, list[Move]]] = field(default_factory=dict)
    best: Move | None = None
    """Undecided: the first move of the solver's line that put most cards up."""
    index: int = 0
    """Its place among the player's samples (:data:`Place`)."""
    cut: bool = False
    """``status`` undecided because the decision's time (or positions) ran
    out in its solve, not its node budget: solved again when the same
    decision is asked again (:meth:`FairPlayer.decide` ``again``)."""
    cut_after: set[Move] = field(default_factory=set)
    """The moves whose undecided outcome in ``after`` was cut short so."""
    retried: set[Move | None] = field(default_factory=set)
    """What was cut short once and reopened with no solve kept to go on
    with (None: ``status``): cut short again, it does not fit in one
    decision's time, and stays undecided (so that the next decision asked
    again goes on to other samples)."""
    solving: dict[Move | None, Solving] = field(default_factory=dict)
    """The solves cut short, kept to go on with (None: the sample's own
    position; else the position after the move); one that :data:`KEPT`
    pushed out is released, and starts again."""

    def reopen(self) -> None:
        """Forget what was cut short, to be solved again (going on with its
        kept solve, if it still has one)."""
        if self.cut:
            self.status, self.cut, self.best = OPEN, False, None
            self.after.clear()
            if not self.resumable(None):
                self.retried.add(None)
        for move in self.cut_after:
            self.after.pop(move, None)
            if not self.resumable(move):
                self.retried.add(move)
        self.cut_after.clear()

    def resumable(self, key: Move | None) -> bool:
        """Whether a solve cut short is kept for ``key``, not pushed out."""
        solving = self.solving.get(key)
        if solving is not None and solving.released:
            del self.solving[key]
            return False
        return solving is not None

    def release(self) -> None:
        """Give back the tables of the solves kept."""
        for solving in self.solving.values():
            KEPT.pop(solving)
            solving.release()
        self.solving.clear()

    def outcome(self, move: Move) -> str:
        """``won``/``lost``/``unknown`` after ``move``, or ``open`` when not
        tried. A position left undecided may still have moves decided after
        it: the base cards the solver proved lost while another stayed
        undecided."""
        if self.status == LOST:
            return LOST
        entry = self.after.get(move)
        if entry is not None:
            return entry[0]
        return UNKNOWN if self.status == UNKNOWN else OPEN


Place = tuple[int, int]
"""Where a winning line stands in the order :meth:`FairPlayer._lines`
reads them: its sample's index, then when it was entered in that
sample's ``after`` (a dict keeps that order)."""


class _WonLines:
    """The distinct winning lines in the samples' ``after``, each at its
    first place (:data:`Place`), by first move: what :meth:`FairPlayer._lines`
    ranks, kept up to date as each outcome is entered rather than read
    from every sample at every solve (with K = 2048, 4 s of a 9 s decision).

    >>> index = _WonLines()
    >>> index.add((1, 0), [Move.parse("s"), Move.parse("wf")])
    >>> index.add((0, 1), [Move.parse("s"), Move.parse("wf")])
    >>> index.add((0, 2), [Move.parse("t1f")])
    >>> index.ranked([Move.parse("s"), Move.parse("t1f")], 4)
    ['s wf', 't1f']
    """

    def __init__(self) -> None:
        self._place: dict[str, Place] = {}
        self._line: dict[str, list[Move]] = {}
        self._by_first: dict[Move, list[tuple[Place, str]]] = {}

    def add(self, place: Place, line: list[Move]) -> None:
        """A winning ``line`` (not empty) entered at ``place``."""
        key = " ".join(map(str, line))
        old = self._place.get(key)
        if old is not None and old <= place:
            return
        bucket = self._by_first.setdefault(line[0], [])
        if old is not None:
            bucket.remove((old, key))
        self._place[key], self._line[key] = place, line
        insort(bucket, (place, key))

    def ranked(self, moves: list[Move] | tuple[Move, ...], most: int) -> list[str]:
        """The keys of at most ``most`` lines starting with one of ``moves``:
        the lines of the moves with most distinct lines first, each move's
        in the order of their places (then the next move's, and so on)."""
        entries = []
        for move in moves:
            bucket = self._by_first.get(move, [])
            entries += [(-len(bucket), place, key) for place, key in bucket[:most]]
        entries.sort()
        return [key for _, _, key in entries[:most]]

    def line(self, key: str) -> list[Move]:
        """The line of ``key`` (a copy)."""
        return list(self._line[key])


class FairPlayer:
    """The fair player (see the module docstring). One instance plays one
    game; ``seed`` fixes its samples.

    >>> from terrace.rules import Rules
    >>> from terrace.solver.observation import observe
    >>> rules = Rules(decks=1, reserve=2, piles=2, candidates=0)
    >>> board = Board.from_position("4 2D3C 4S5H6S7H8S9HTSJHQSKHAS,4H5C6H7C8H9CTHJCQHKC,"
    ...     "4D5S6D7S8D9STDJSQDKSAD,4C5D6C7D8C9DTCJDQCKDAC 2C,2S 3S3HAH 3D2H 0", rules)
    >>> decision = FairPlayer(FairSettings(samples=4), seed=1).decide(observe(board))
    >>> decision.kind, decision.move in board.legal_moves, decision.win_share
    ('sampled', True, 1.0)
    """

    name = "fair"

    def __init__(
        self, settings: FairSettings | None = None, seed: int = 0, cancel: Callable[[], bool] | None = None,
        positions: int | None = None, *, resumable: bool = False,
    ) -> None:
        if settings is not None and not isinstance(settings, FairSettings):
            raise TypeError(f"FairPlayer takes FairSettings (FairSettings.from_dict reads a dict),"
                            f" not {type(settings).__name__}")
        self.settings = settings or FairSettings()
        self.resumable = resumable
        """Keep the solves a decision's time cut short (in :data:`KEPT`) to go
        on with when it is asked ``again``: for a player that will be."""
        self._stop = cancel  # (also stops at a decision's deadline: a client that went away)
        self.budget = check_nodes(positions, "positions")
        """The most positions this player's solves may enter in all (None: no
        cap but each solve's ``nodes``); a solve gets no more than what is
        left, and none once it is spent."""
        self.positions = 0
        """Positions its solves entered so far (each solve stops within a
        turn of :data:`terrace.solver.api.NODE_SLICE` positions past its cap)."""
        self.rng = random.Random(check_seed(seed))
        self._samples: list[_Sample] = []
        self._last: Move | None = None
        self._solves = 0
        self._deadline: float | None = None
        self._won = _WonLines()
        """The winning lines of the samples' ``after`` (:meth:`_lines`)."""
        self._entered = 0
        """Outcomes entered in the samples' ``after`` so far (:data:`Place`)."""
        self._used = 0
        self._cut = False
        """Whether the last solve was cut short by the decision's time (or
        positions), not ended by its own ``nodes``."""
        self._proved: list[Move] = []
        """Once the stock's order is forced (:attr:`Observation.forced`): the
        proved winning line from the position after the last move played."""
        self._lost = False
        """Once the stock's order is forced: the game is proved lost."""

    # ------------------------------------------------------------------

    def decide(self, obs: Observation, deadline: float | None = None, again: bool = False) -> Decision:
        """The move that wins in the most sampled stock orders. ``again``:
        the same observation as this player's last decision, asked again
        (see :meth:`resume`): its samples are kept as they are, and those
        it drew but could not solve in its time are solved now, the next
        ones drawn from where it stopped, as one longer decision would."""
        self._deadline = check_deadline(deadline)  # (before the carry, which stops there too)
        if not again:
            old = self._samples
            # (once the stock's order is forced it stays so: no sample is needed again)
            self._samples = self._carry(obs) if self.settings.reuse and not obs.forced else []
            for sample in old:  # (their solves were of positions left behind)
                sample.release()
            self._proved = self._proved[1:] if self._proved[:1] == [self._last] else []
        self._index_lines()
        kept = len(self._samples)
        self._last = None
        self._solves = 0
        self._used = 0
        only = len(obs.moves) == 1
        obs = without_returns(obs)
        moves = obs.moves
        safe = obs.safe_move()
        if not moves:
            decision = Decision(None, "none")
        elif only:
            decision = Decision(moves[0], "only")
        elif obs.forced and not obs.choosing:
            decision = self._exact(obs, safe if safe in moves else None)
        elif safe is not None and safe in moves:
            decision = Decision(safe, "safe")
        elif obs.choosing:
            decision = self._choose(obs)
        else:
            decision = self._sampled(obs)
        self._last = decision.move
        return replace(decision, kept=kept)

    def resume(self, cancel: Callable[[], bool] | None = None, positions: int | None = None) -> None:
        """Get ready to decide the last decision ``again``: with ``cancel``
        and ``positions`` (as the constructor's) for the new request, and
        every solve that the last one's time cut short reopened."""
        self._stop = cancel
        self.budget = check_nodes(positions, "positions")
        self.positions = 0
        for sample in self._samples:
            sample.reopen()

    def release(self) -> None:
        """Give back the tables of the solves kept to go on with (the
        samples stay; a cut one starts again)."""
        for sample in self._samples:
            sample.release()

    def kept_bytes(self) -> int:
        """The bytes of the tables of the solves kept to go on with."""
        return sum(solving.table_bytes for sample in self._samples for solving in sample.solving.values())

    def stopped(self) -> bool:
        """True once the decision's deadline, ``cancel`` or ``positions`` stops it."""
        return self._cancel()

    def weight(self) -> int:
        """About how much this player holds: the cards of its samples'
        boards and the moves of their lines."""
        return sum(s.board.rules.card_count + len(s.line) + sum(len(line) for _, line in s.after.values())
                   for s in self._samples)

    # ------------------------------------------------------------------

    def _carry(self, obs: Observation) -> list[_Sample]:
        """The samples of the last decision moved on by the move played, as
        far as they are (or, repaired, can be made) consistent with ``obs``.
        Once the decision's time is up, the rest are dropped: a prefix, in
        the order they were drawn, as :meth:`_drawn` keeps (moving on
        thousands of samples, each replaying its winning line, took seconds
        for a decision of a hundredth of a second)."""
        last = self._last
        if last is None:
            return []
        key = obs.key()
        kept: list[_Sample] = []
        for sample in self._samples:
            if self._cancel():
                break
            board = sample.board.copy(stack=False)
            try:
                board.push(last)
            except TerraceError:
                continue
            entry = sample.after.get(last)
            if not _consistent(board, obs, key):
                fixed = self._repaired(sample.board, board, obs, key) if self.settings.repair else None
                if fixed is None:
                    continue
                line = entry[1][1:] if entry is not None and entry[0] == WON else []
                if line and replays_to_win(fixed, line):
                    kept.append(_Sample(fixed, WON, line, {line[0]: (WON, line)}))
                else:
                    kept.append(_Sample(fixed))
            elif sample.status == LOST:
                kept.append(_Sample(board, LOST))
            elif entry is not None and entry[0] == WON and len(entry[1]) > 1:
                line = entry[1][1:]
                kept.append(_Sample(board, WON, line, {line[0]: (WON, line)}))
            elif entry is not None and entry[0] in (LOST, UNKNOWN):
                kept.append(_Sample(board, OPEN if entry[0] == UNKNOWN and self.settings.lines else entry[0]))
            elif sample.status == UNKNOWN:
                kept.append(_Sample(board, OPEN if self.settings.lines else UNKNOWN))
            else:
                kept.append(_Sample(board))
        return kept

    def _exact(self, obs: Observation, safe: Move | None) -> Decision:
        """The move once every stock order the player cannot rule out plays
        the same game (:attr:`Observation.forced`): sampling would solve
        that one game K times. It is solved once, with the positions of
        all K samples; a proved winning line is followed to the end, a
        proved loss stays lost (the rule of thumb plays it out), and an
        undecided game gets the rule of thumb (with ``lines``, the first
        move of the solver's best line); both play the ``safe`` foundation
        move first, if there is one. Winning lines whose first move the
        player leaves out (back to a position seen) do not count: then the
        first ``candidates`` moves of that order are solved after, and the
        first proved to win is played."""
        moves = obs.moves
        if self._proved and self._proved[0] in moves:
            return Decision(self._proved[0], WINNABLE, solves=0)
        self._proved = []
        fallback = safe or greedy_move(obs)
        if self._lost:
            return Decision(fallback, LOST)
        nodes = self.settings.nodes * self.settings.samples
        result = self._solve(obs.board().copy(stack=False), nodes)
        if result is None:
            return Decision(fallback, HEURISTIC, solves=self._solves)
        if result.result == LOST:
            self._lost = True
            return Decision(fallback, LOST, solves=self._solves)
        if result.result == WON and result.moves and result.moves[0] in moves:
            self._proved = list(result.moves)
            return Decision(self._proved[0], WINNABLE, solves=self._solves)
        if result.result == WON:
            order = sorted(moves, key=lambda m: (m != fallback, moves.index(m)))
            for move in order[: self.settings.candidates]:
                board = obs.board().copy(stack=False)
                board.push(move)
                after: list[Move] | None = [] if board.is_won() else None
                if after is None:
                    found = self._solve(board, nodes)
                    if found is None:
                        break
                    after = list(found.moves) if found.result == WON else None
                if after is not None:
                    self._proved = [move, *after]
                    return Decision(move, WINNABLE, solves=self._solves)
        best = result.best_move if self.settings.lines and not safe and result.best_move in moves else None
        return Decision(best or fallback, HEURISTIC, solves=self._solves)

    def _repaired(self, before: Board, after: Board, obs: Observation, key: str) -> Board | None:
        """``after`` with every card that turned up swapped into its place in
        the sample's stock before the move (each swap partner drawn at random
        among the places that may still hold that card, so the sample stays a
        uniform draw given all that is seen); None if that fails."""
        assert self._last is not None
        stock = list(before.stock)
        if after.redeals_used != before.redeals_used or len(after.stock) >= len(stock):
            return None
        turned = list(range(len(after.stock), len(stock)))
        pairs = [(y, x) for mine, real in zip([after.waste, *after.tableau], [obs.waste, *obs.tableau],
                                               strict=True)
                 for y, x in zip(mine, real, strict=True) if y != x]
        slot_of: list[int] = []
        for y, _ in pairs:
            slot = next((i for i in turned if stock[i] == y and i not in slot_of), None)
            if slot is None:
                return None
            slot_of.append(slot)
        free = [i for i, c in enumerate(obs.stock) if c is None] + slot_of
        for (_, x), slot in zip(pairs, slot_of, strict=True):
            free.remove(slot)
            places = [i for i in free if stock[i] == x]
            if not places:
                return None
            other = self.rng.choice(places)
            stock[slot], stock[other] = stock[other], stock[slot]
        fixed = before.copy(stack=False)
        fixed.stock = stock  # the same cards in another order: still a valid position
        try:
            fixed.push(self._last)
        except TerraceError:
            return None
        return fixed if _consistent(fixed, obs, key) else None

    def _drawn(self, obs: Observation, count: int) -> Iterator[_Sample]:
        """The first ``count`` samples one by one, each new one drawn only
        when it is reached, until the decision's time is up. Always a prefix
        in the order the samples were drawn, never a choice by what is known
        about them (that would bias the counts). Drawn as they are solved,
        not all first: with K = 4096 a hint of 2 s spent its time drawing
        4,846 samples of Terrace's base-card choice and solved none."""
        for index in range(count):
            if self._cancel():
                return
            if index == len(self._samples):
                self._samples.append(_Sample(obs.sample(self.rng), index=index))
            yield self._samples[index]

    def _seconds(self) -> float:
        """The time for the next solve (0 once the decision's deadline passed)."""
        cap = self.settings.seconds
        if self._deadline is None:
            return cap
        return max(0.0, min(cap, self._deadline - time.perf_counter()))

    def _cancel(self) -> bool:
        if self._stop is not None and self._stop():
            return True
        if self.budget is not None and self.positions >= self.budget:
            return True
        return self._deadline is not None and time.perf_counter() >= self._deadline

    def _solve(self, board: Board, nodes: int, all_candidates: bool = False,
               sample: _Sample | None = None, key: Move | None = None) -> SolveResult | None:
        """The solve of ``board`` within ``nodes`` positions (None when no
        time is left). For ``sample`` (at ``key``: see :attr:`_Sample.solving`)
        it goes on with the solve kept there, and one that this decision's
        time or positions cut short is kept there to go on with."""
        seconds = self._seconds()
        if seconds <= 0 or self._cancel():
            return None
        solving = None if sample is None else sample.solving.pop(key, None)
        if solving is not None:
            KEPT.pop(solving)  # (taken out while it runs: never released under it)
        if solving is None or solving.released:
            solving = Solving(board, all_candidates=all_candidates, options=UNCHANGED_HUNTERS)
        before = solving.nodes
        cap = nodes if self.budget is None else min(nodes, before + self.budget - self.positions)
        self._solves += 1
        solving.run(max_seconds=seconds, max_nodes=cap, cancel=self._cancel)
        keep = sample is not None and self.resumable
        if not keep:
            solving.release()  # (before the line is finished, as solve() does: nothing to go on with)
        result = solving.result(short_line=False)
        self.positions += solving.nodes - before
        self._cut = (result.result == UNKNOWN and solving.nodes < nodes and solving.reason != "memory"
                     and not solving.finished() and self._cancel())
        if sample is not None and keep and self._cut:
            sample.solving[key] = solving
            KEPT.put(solving, solving.table_bytes)
        elif keep:
            solving.release()
        return result

    def _lines(self, obs: Observation, first: Move | None = None) -> list[list[Move]]:
        """Known winning lines from this position that start with a move of
        ``obs.moves`` (with ``first`` when given), the most common first
        move first, at most ``share`` of them (a line that several samples
        hold counted once, where it is first met: sample by sample, each
        sample's outcomes in the order they were entered)."""
        moves = obs.moves if first is None else [first] if first in obs.moves else []
        return [self._won.line(key) for key in self._won.ranked(moves, self.settings.share)]

    def _index_lines(self) -> None:
        """Index the winning lines the samples hold (:class:`_WonLines`)
        afresh: a new decision's samples, or some reopened."""
        self._won, self._entered = _WonLines(), 0
        for index, sample in enumerate(self._samples):
            sample.index = index
            for outcome, line in sample.after.values():
                self._entered += 1
                if outcome == WON and line:
                    self._won.add((index, self._entered), line)

    def _enter(self, sample: _Sample, move: Move, outcome: str, line: list[Move]) -> None:
        """Enter ``outcome`` after ``move`` in ``sample`` (with its winning
        ``line``), and its line in the index of winning lines."""
        again = move in sample.after
        sample.after[move] = (outcome, line)
        if again:  # (never seen: each outcome is entered once; its place is its first)
            self._index_lines()
        elif outcome == WON and line:
            self._entered += 1
            self._won.add((sample.index, self._entered), line)

    def _borrow(self, sample: _Sample, lines: list[list[Move]]) -> bool:
        """Try other samples' winning lines on ``sample``; True when one wins."""
        for line in lines:
            if sample.after.get(line[0], (OPEN,))[0] != OPEN:
                continue
            if replays_to_win(sample.board, line):
                if sample.status == OPEN:
                    sample.status, sample.line = WON, line
                self._enter(sample, line[0], WON, line)
                return True
        return False

    def _solve_sample(self, sample: _Sample, obs: Observation) -> None:
        if self._borrow(sample, self._lines(obs)):
            return
        result = self._solve(sample.board, self.settings.nodes, sample=sample)
        if result is None:
            return
        sample.status = result.result
        if result.result == WON and result.moves:
            sample.line = result.moves
            self._enter(sample, result.moves[0], WON, result.moves)
        elif result.result == UNKNOWN:
            sample.best = result.best_move
            sample.cut = self._cut and (None in sample.solving or None not in sample.retried)

    def _solve_after(self, sample: _Sample, move: Move, obs: Observation) -> None:
        if self._borrow(sample, self._lines(obs, move)):
            return
        board = sample.board.copy(stack=False)
        board.push(move)
        if board.is_won():
            self._enter(sample, move, WON, [move])
            return
        result = self._solve(board, self.settings.nodes, sample=sample, key=move)
        if result is None:
            return
        line = [move, *result.moves] if result.result == WON else []
        self._enter(sample, move, result.result, line)
        if result.result == UNKNOWN and self._cut and (move in sample.solving or move not in sample.retried):
            sample.cut_after.add(move)

    # ------------------------------------------------------------------

    def _choose(self, obs: Observation) -> Decision:
        """The base card that wins in the most samples (each sample solved
        for every candidate)."""
        settings = self.settings
        count = settings.samples * settings.choice_factor
        for sample in self._drawn(obs, count):
            if sample.status != OPEN:
                continue
            result = self._solve(sample.board, settings.choice_nodes * len(obs.moves), all_candidates=True,
                                 sample=sample)
            if result is None:
                continue
            sample.status = result.result
            if result.result == UNKNOWN:
                sample.best = result.best_move
                sample.cut = self._cut and (None in sample.solving or None not in sample.retried)
            for choice, verdict in result.candidates:
                line = result.moves if result.moves and result.moves[0] == choice else []
                self._enter(sample, choice, verdict, line)
        return self._pick(obs, self._samples[:count])

    def _sampled(self, obs: Observation) -> Decision:
        """Solve samples (half of K first, all of them, or more when a move
        uses a space, only when the first ones disagree), then check the best
        few moves against every winning sample."""
        settings = self.settings
        full = settings.samples
        if any(obs.uses_space(m) for m in obs.moves):
            full *= settings.space_factor
        first = (settings.samples + 1) // 2 if settings.early else full
        samples = self._solve_open(obs, first)
        if not _unanimous(samples, obs):
            samples = self._solve_open(obs, full)
        won = [s for s in samples if s.status == WON]
        best = 0
        for move in self._ranked(obs, samples)[: settings.candidates]:
            wins = sum(s.outcome(move) == WON for s in won)
            if wins == len(won):
                break
            best = max(best, self._checked(move, obs, won, wins, best))
        return self._pick(obs, samples)

    def _checked(self, move: Move, obs: Observation, won: list[_Sample], wins: int, best: int) -> int:
        """In how many of the ``won`` samples ``move`` wins (``wins`` known
        so far), solving it after the move in each one not yet tried, in
        order, until it can no longer overtake ``best`` (branch and bound;
        the samples left to try are counted down, not counted again at
        each one: that was quadratic in K)."""
        untried = sum(s.outcome(move) == OPEN for s in won)
        for sample in won:
            if wins + untried <= best or self._cancel():
                break
            if sample.outcome(move) == OPEN:
                self._solve_after(sample, move, obs)
                outcome = sample.outcome(move)
                wins += outcome == WON
                untried -= outcome != OPEN
        return wins

    def _solve_open(self, obs: Observation, count: int) -> list[_Sample]:
        """The first ``count`` samples (:meth:`_drawn`), solving those
        still open."""
        for sample in self._drawn(obs, count):
            if sample.status == OPEN:
                self._solve_sample(sample, obs)
        return self._samples[:count]

    def _ranked(self, obs: Observation, samples: list[_Sample]) -> list[Move]:
        """The moves, most wins first (then, with ``lines``, the first move
        of most undecided samples' best lines, then greedy preference, then
        the engine's order)."""
        greedy = greedy_move(obs)
        votes = self._votes(samples)

        def key(move: Move) -> tuple[int, int, int, int]:
            wins = sum(s.outcome(move) == WON for s in samples)
            return (-wins, -votes.get(move, 0), 0 if move == greedy else 1, obs.moves.index(move))

        return sorted(obs.moves, key=key)

    def _votes(self, samples: list[_Sample]) -> dict[Move, int]:
        """How many undecided samples' best lines start with each move
        (none without ``lines``)."""
        votes: dict[Move, int] = {}
        if self.settings.lines:
            for sample in samples:
                if sample.status == UNKNOWN and sample.best is not None:
                    votes[sample.best] = votes.get(sample.best, 0) + 1
        return votes

    def _pick(self, obs: Observation, samples: list[_Sample]) -> Decision:
        order = self._ranked(obs, samples)
        if obs.choosing:
            # Every base card was solved in every sample: among those that
            # win as often, one lost in fewer samples (a terrace dead from
            # the start is lost in all of them), then the rule of thumb.
            votes = self._votes(samples)

            def key(move: Move) -> tuple[int, int, int, float]:
                wins = sum(s.outcome(move) == WON for s in samples)
                lost = sum(s.outcome(move) == LOST for s in samples)
                return (-wins, lost, -votes.get(move, 0), -choice_value(obs, move))

            order = sorted(order, key=key)
        choices = []
        for move in order:
            wins = sum(s.outcome(move) == WON for s in samples)
            tried = sum(s.outcome(move) != OPEN for s in samples)
            choices.append((move, wins, tried))
        move = order[0]
        self._used = len(samples)
        return Decision(move, "sampled", choices[0][2], choices[0][1], self._solves, tuple(choices),
                        undecided=self.undecided(move))

    def undecided(self, move: Move) -> int:
        """How many samples of the last sampled decision the solver left
        undecided after ``move`` (counted as tried, but neither won nor lost)."""
        return sum(s.outcome(move) == UNKNOWN for s in self._samples[: self._used])


def without_returns(obs: Observation) -> Observation:
    """``obs`` without the moves that shift a card straight back where the
    game's last move touching either pile took it from, no card having
    turned up since (``Observation.returns``), unless no other move is left. Nothing was
    learnt in between, so the pair achieves nothing; yet two decisions from
    the same knowledge, each on its own samples, could disagree: on Wood
    deal 11 the player moved a card from pile 2 to pile 8, put two cards up
    from other piles and moved it back (its samples: 30 of 32 won after the
    move back, 29 after a draw), four such pairs in twelve Wood games."""
    if not obs.returns or len(obs.returns) == len(obs.moves):
        return obs
    return replace(obs, moves=tuple(m for m in obs.moves if m not in obs.returns))


def _unanimous(samples: list[_Sample], obs: Observation) -> bool:
    """True when no sample is won, or one move wins in every won sample."""
    won = [s for s in samples if s.status == WON]
    if not won:
        return True
    return any(all(s.outcome(m) == WON for s in won) for m in obs.moves)


def _consistent(board: Board, obs: Observation, key: str) -> bool:
    """True when a sample's board shows what ``obs`` shows."""
    if visible_key(board.position()) != key:
        return False
    return all(c is None or c == board.stock[i] for i, c in enumerate(obs.stock))
