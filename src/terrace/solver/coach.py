"""The coach: where a game was lost, and what a fair player would have done.

:func:`find_loss` replays a game with the perfect-information solver. A
position from which no winning line remains stays so whatever is played
next, so the positions of a game are won up to some move and lost from
there on: the first move after which no winning line remained ("the game
was lost here") is found by bisection over the positions. A probe the
solver cannot decide in its share of the budget is ``unknown``; the
bisection then probes elsewhere, and when the budget runs out the answer is
honest: ``unknown``, with the moves between which the loss lies.

At the losing move the coach also asks the fair player
(:mod:`terrace.solver.fair`), which sees only what the player saw, what it
would have played there (the fair hint, :func:`terrace.solver.advice.fair_answer`),
and the solver whether that move kept a winning line.

:func:`base_chances` is the fair player's view of the base-card choice:
each candidate's wins across sampled stock orders (no peeking), and
:func:`warn_check` says whether a move turns a position the solver proves
won into one it proves lost.

>>> from terrace.board import Board
>>> from terrace.rules import Rules
>>> rules = Rules(decks=1, reserve=5, piles=2, candidates=0, spaces="waste", redeals=1)
>>> start = Board.from_position("2 7C 2S3H4S5D6C7D8S9HTCJDQCKH,2H3S4D5S6D7S8D9STDJCQDKCAH,2D3C4H5C,"
...     "2C3D4C5H6S7H8C ,QH ADAC9DQSJHTS6H9C8HTHJSKS ASKD 1", rules)
>>> analysis = find_loss(start, [Move.parse("s"), Move.parse("s")], seconds=20)
>>> analysis.outcome, analysis.step, str(analysis.move), str(analysis.winning)
('lost-at', 2, 's', 'wf')
>>> [(p.step, p.result) for p in analysis.probes]
[(2, 'lost'), (0, 'won'), (1, 'won')]
>>> str(analysis.fair.move), analysis.fair_result
('wf', 'won')
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from terrace.board import Board
from terrace.moves import Move
from terrace.solver.advice import HINT_SETTINGS, fair_answer
from terrace.solver.api import LOST, UNKNOWN, WON, solve
from terrace.solver.budget import check_budget, check_nodes
from terrace.solver.decision import UPPER_ESTIMATE, Decision
from terrace.solver.fair import FairPlayer, FairSettings
from terrace.solver.history import LOOKBACK
from terrace.solver.observation import Event, observe, stock_shown
from terrace.solver.prune import terrace_dead

Cancel = Callable[[], bool]
"""Asked between slices of a search: True stops it."""

LOST_AT = "lost-at"
NEVER = "never"
WINNABLE = "winnable"
OUTCOMES = (LOST_AT, NEVER, WON, WINNABLE, UNKNOWN)
"""``lost-at``: ``step`` is the move after which no winning line remained;
``never``: no line won even from the start; ``won``: the game was won;
``winnable``: a winning line still remained after the last move (a game
given up too early); ``unknown``: the budget ran out first."""
CHECKPOINT = 256
"""Every how many moves the coach keeps a copy of the game's position."""
MIN_PROBE = 2.0
"""Seconds a probe gets at least (while the budget lasts): a hard position
needs time, and many short probes that all end undecided teach nothing."""
FAIR_SHARE = 0.3
"""The share of the budget kept for the fair player once the loss is found
(given to the bisection when it has not found the loss by then)."""
RETRY_FACTOR = 4
"""With a budget of positions per probe, a position probed again gets this
many times the positions of its previous probe..."""
MOST_PROBE_NODES = 10**9
"""... up to this many."""
COACH_SETTINGS = HINT_SETTINGS
"""The fair player the coach asks: the fair hint's (every sample solved:
one decision that someone asked about)."""
CHANCE_SETTINGS = FairSettings()
"""The fair player's own sampling for the base-card chances (it solves
``choice_factor`` times ``samples`` stock orders, each for every candidate:
about 2 s for Terrace)."""


@dataclass(frozen=True, slots=True)
class Probe:
    """One position of the game the solver looked at: the one after ``step`` moves."""

    step: int
    result: str


@dataclass(slots=True)
class Analysis:
    """What :func:`find_loss` found (see :data:`OUTCOMES`).

    ``low`` is the last position known to be won (-1: none), ``high`` the
    first known to be lost (``moves + 1``: none), so the losing move is one
    of the moves ``low + 1`` to ``high``; with ``lost-at``, ``step`` is
    ``high`` and ``move`` that move. ``winning`` is a move that kept a
    winning line there (the solver's: it looks at the stock), ``fair`` the
    fair player's decision at that point and ``fair_result`` the solver's
    verdict after the fair player's move. ``terrace_dead`` is the number of
    moves after which the terrace could never be played out (the reserve
    schedule, which a player could have seen: no stock order needed), or
    None, and ``terrace_dead_move`` the move that did it (None when the
    terrace was dead from the start); the game was lost by then at the
    latest.
    """

    outcome: str
    moves: int
    low: int
    high: int
    step: int | None = None
    move: Move | None = None
    winning: Move | None = None
    fair: Decision | None = None
    fair_result: str | None = None
    fair_same: bool = False
    """The fair player's move is the losing move: the same position after
    it, however either is spelt (``t2f`` and ``t2f1``)."""
    probes: list[Probe] = field(default_factory=list)
    seconds: float = 0.0
    terrace_dead: int | None = None
    terrace_dead_move: Move | None = None
    board: Callable[[int], Board] | None = field(default=None, repr=False, compare=False)
    """The position after a number of the game's moves, replayed from the
    analysis's nearest kept position (at most :data:`CHECKPOINT` moves), not
    from the deal: for describing the moves the analysis names."""

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON values."""
        fair = None
        if self.fair is not None:
            fair = {key: value for key, value in self.fair.to_dict().items() if key != "choices"}
            fair["result"] = self.fair_result
            fair["same"] = self.fair_same
        return {
            "outcome": self.outcome,
            "moves": self.moves,
            "low": self.low,
            "high": self.high,
            "step": self.step,
            "move": None if self.move is None else str(self.move),
            "winning": None if self.winning is None else str(self.winning),
            "fair": fair,
            "probes": [{"step": p.step, "result": p.result} for p in self.probes],
            "seconds": round(self.seconds, 3),
            "terrace_dead": self.terrace_dead,
            "terrace_dead_move": None if self.terrace_dead_move is None else str(self.terrace_dead_move),
        }


class _Bisection:
    """The positions of one game and what is known about them. Only every
    :data:`CHECKPOINT`-th position is kept; the others are replayed from
    the one before when asked for (a game of 100,000 moves kept whole took
    seconds to copy and hundreds of megabytes, before any search)."""

    def __init__(self, start: Board, moves: Sequence[Move], until: float | None = None,
                 cancel: Cancel | None = None) -> None:
        board = start.copy(stack=False)
        self.moves = list(moves)
        self._kept = [board.copy(stack=False)]
        self._at = (0, self._kept[0])
        self.terrace_dead: int | None = 0 if terrace_dead(board) else None
        """The first position whose terrace can never be played out: lost,
        so the bisection need not look beyond it."""
        self.replayed = len(self.moves)
        """How many moves were replayed: all, unless the :func:`time.perf_counter`
        instant ``until`` passed or ``cancel()`` said so first (asked every
        :data:`CHECKPOINT` moves; a game of 100,000 moves takes a second
        on a busy machine); the positions after them are not known."""
        for step, move in enumerate(self.moves, 1):
            if step % CHECKPOINT == 0 and ((until is not None and time.perf_counter() > until)
                                           or (cancel is not None and cancel())):
                self.replayed = step - 1
                break
            board.push(move)  # an illegal move is refused here, before any search
            if step % CHECKPOINT == 0:
                self._kept.append(board.copy(stack=False))
                board = board.copy(stack=False)  # (its move stack would keep every undo record)
            # only a base card or a foundation move changes what the reserve schedule reads
            if self.terrace_dead is None and (move.is_choice or move.to_foundation) and terrace_dead(board):
                self.terrace_dead = step
        self.low = -1
        self.high = len(self.moves) + 1
        self.lines: dict[int, list[Move]] = {}
        self.unknown: set[int] = set()
        self.probes: list[Probe] = []
        if self.terrace_dead is not None:
            self.high = self.terrace_dead

    def board(self, step: int) -> Board:
        """A copy of the position after ``step`` moves (replayed from the
        last one asked for when that is nearer than a kept one)."""
        at, board = self._at
        if not 0 <= step - at <= step % CHECKPOINT:
            at, board = step - step % CHECKPOINT, self._kept[step // CHECKPOINT]
        board = board.copy(stack=False)
        for move in self.moves[at:step]:
            board.push(move)
        self._at = (step, board)
        return board.copy(stack=False)

    @property
    def settled(self) -> bool:
        return self.high == self.low + 1

    def learn(self, step: int, result: str, line: Sequence[Move] = ()) -> None:
        """Take the solver's verdict on the position after ``step`` moves. A
        winning line that goes on as the game went is winning after those
        moves too."""
        self.probes.append(Probe(step, result))
        if result == LOST:
            self.high = min(self.high, step)
        elif result == WON:
            taken = 0
            moves = self.moves
            while taken < len(line) and step < len(moves) and (
                    line[taken] == moves[step]  # (no board needed)
                    or _same(self.board(step), line[taken], moves[step])):
                taken += 1
                step += 1
            if step > self.low:
                self.low = step
                self.lines[step] = list(line[taken:])
        else:
            self.unknown.add(step)

    def next_step(self) -> int | None:
        """The position to probe next: the end of the game, then its start,
        then the middle of the widest gap between the positions already
        known (or tried in vain); None when every one has been tried."""
        last = len(self.moves)
        for step in (last, 0):
            if self.low < step < self.high and step not in self.unknown and not self.tries(step):
                return step
        marks = sorted({self.low, self.high, *[s for s in self.unknown if self.low < s < self.high]})
        gaps = [(b - a, a, b) for a, b in itertools.pairwise(marks) if b - a > 1]
        if not gaps:
            return None
        _, a, b = max(gaps)
        return (a + b) // 2

    def retry_step(self) -> int | None:
        """Once :meth:`next_step` has nothing new: an undecided position
        between the known ones to probe again (with more time or
        positions), the one tried fewest times, then the one nearest the
        middle; None when there is none."""
        inside = [s for s in self.unknown if self.low < s < self.high]
        if not inside:
            return None
        return min(inside, key=lambda s: (self.tries(s), abs(2 * s - self.low - self.high), s))

    def tries(self, step: int) -> int:
        """How often the position after ``step`` moves was probed."""
        return sum(p.step == step for p in self.probes)

    def probes_left(self) -> int:
        """About how many probes bisection still needs."""
        return max(1, (self.high - self.low - 1).bit_length())


def find_loss(
    start: Board,
    moves: Sequence[Move],
    *,
    seconds: float = 20.0,
    probe_nodes: int | None = None,
    fair: FairSettings | None = COACH_SETTINGS,
    seed: int = 0,
    cancel: Cancel | None = None,
    fair_nodes: int | None = None,
    events: Sequence[Event] | None = None,
    fair_seconds: float | None = None,
) -> Analysis:
    """Where the game played from ``start`` with ``moves`` was lost (see the
    module docstring), within ``seconds`` in all, and the last probe's
    :data:`~terrace.solver.api.REPLAY_GRACE` if it finds a win late (as any
    solve may). ``probe_nodes`` caps each
    probe's search in positions (for answers that do not depend on the
    machine; a position probed again, once every other was tried, gets
    :data:`RETRY_FACTOR` times the positions of its last probe); ``fair``
    None skips the fair player, ``seed`` is its seed (the one the game's
    fair hints use), ``fair_seconds`` and ``fair_nodes`` its budgets (None:
    its share of the time, no count of positions; the web coach gives it the
    game's hint budget, so that it thinks as long as the hint it names did).
    The fair player is the fair hint
    (:func:`terrace.solver.advice.fair_answer`): with the same seed, the
    same position and the same budget, its move is the hint's there.
    :data:`FAIR_SHARE` of the time is kept for it only while the bisection
    settles in the rest; a bisection that has not settled by then goes on
    to the end of the budget (the fair player then gets what is left once
    it settles, if anything). ``events``, the game's event log, tells the
    fair player which stock cards the player had seen when playing the
    losing move (draws taken back and replaced since, which the moves alone
    do not show: :func:`~terrace.solver.observation.stock_shown`), as the
    hint there knew. An illegal move, and a budget that is not one, are
    refused before any search."""
    seconds = check_budget(seconds)
    probe_nodes = check_nodes(probe_nodes, "probe_nodes")
    fair_nodes = check_nodes(fair_nodes, "fair_nodes")
    if fair_seconds is not None:
        fair_seconds = check_budget(fair_seconds, "fair_seconds")
    began = time.perf_counter()
    deadline = began + seconds
    search_until = began + seconds * (1 - FAIR_SHARE)
    game = _Bisection(start, moves, deadline, cancel)
    last = len(game.moves)
    if game.replayed < last:  # (the budget ran out, or the client went away, while replaying)
        dead = game.terrace_dead
        return Analysis(UNKNOWN, last, -1, last + 1 if dead is None else dead, terrace_dead=dead,
                        terrace_dead_move=game.moves[dead - 1] if dead else None,
                        seconds=time.perf_counter() - began, board=game.board)
    if game.board(last).is_won():
        return Analysis(WON, last, last, last + 1, seconds=time.perf_counter() - began, board=game.board)
    stopped = False
    while not game.settled and not stopped:
        step = game.next_step()
        if step is None:
            step = game.retry_step()  # (every position tried: the undecided ones get more)
        # the fair player's share is kept only for a loss found: until then it is the bisection's
        left = (search_until if time.perf_counter() < search_until else deadline) - time.perf_counter()
        if step is None or left <= 0 or (cancel is not None and cancel()):
            stopped = step is not None and left > 0
            break
        nodes = probe_nodes
        if nodes is not None:  # (the same positions again would decide nothing new)
            nodes = min(nodes * RETRY_FACTOR ** game.tries(step), MOST_PROBE_NODES)
        found = solve(game.board(step), max_seconds=min(left, max(left / game.probes_left(), MIN_PROBE)),
                      max_nodes=nodes, all_candidates=False, cancel=cancel, short_line=False)
        stopped = found.reason == "cancelled"
        game.learn(step, found.result, found.moves)
    dead = game.terrace_dead
    analysis = Analysis(UNKNOWN, last, game.low, game.high, probes=game.probes, terrace_dead=dead,
                        terrace_dead_move=game.moves[dead - 1] if dead else None, board=game.board)
    if game.settled:
        if game.low == -1:
            analysis.outcome = NEVER
        elif game.low == last:
            analysis.outcome = WINNABLE
            analysis.winning = next(iter(game.lines[last]), None)
        else:
            analysis.outcome = LOST_AT
            analysis.step = game.high
            analysis.move = game.moves[game.high - 1]
            analysis.winning = next(iter(game.lines[game.low]), None)
            if fair is not None and not stopped and time.perf_counter() < deadline:
                # (a quarter of the time left at most: a log of 100,000 moves takes over a second)
                until = time.perf_counter() + (deadline - time.perf_counter()) * 0.25
                shown = None if events is None else shown_before(start, events, game.moves, game.low, until)
                budget = (fair_seconds, fair_nodes)
                _ask_fair(analysis, start, game, fair, seed, deadline, cancel, budget, shown)
    analysis.seconds = time.perf_counter() - began
    return analysis


def shown_before(start: Board, events: Sequence[Event], moves: Sequence[Move], step: int,
                 until: float | None = None) -> int | None:
    """What the event log shows of the stock (see
    :func:`~terrace.solver.observation.stock_shown`) up to the last time
    the player played move ``step + 1`` of ``moves`` (the game's line):
    what they had seen when they played it. None when the log does not
    show it played (an imported game). ``until``: as for
    :func:`~terrace.solver.observation.stock_shown`.

    >>> from terrace.variants import get_rules
    >>> start = Board.from_number(4, get_rules("falling-star"))
    >>> log = [("create", None, 0), ("move", "s", 1), ("undo", "s", 0), ("move", "t1t2", 1),
    ...        ("move", "s", 2)]
    >>> moves = [Move.parse("t1t2"), Move.parse("s")]
    >>> shown_before(start, log, moves, 0) == len(start.stock) - 1
    True
    """
    last = None
    for index, (action, _, count) in enumerate(events):
        if action in ("move", "redo") and count == step + 1:
            last = index
    if last is None or events[last][1] != str(moves[step]):
        return None
    return stock_shown(start, events[:last], until)


def _ask_fair(analysis: Analysis, start: Board, game: _Bisection, settings: FairSettings, seed: int,
              deadline: float, cancel: Cancel | None, budget: tuple[float | None, int | None],
              shown: int | None) -> None:
    """The fair player's move where the game was lost (the fair hint there:
    :func:`terrace.solver.advice.fair_answer`), and the solver's verdict
    after it."""
    # with the game's history as far as a hint reads it (LOOKBACK moves):
    # the fair player never goes back to a position on the game's line
    first = max(game.low - LOOKBACK, 0)
    board = game.board(first)
    for played in game.moves[first: game.low]:
        board.push(played)
    seconds, nodes = budget
    share = max(0.0, (deadline - time.perf_counter()) * 0.7)  # (the rest for the verdict after its move)
    seconds = share if seconds is None else min(seconds, share)
    answer = fair_answer(board, seconds, seed=seed, nodes=nodes, settings=settings, cancel=cancel,
                         shown=shown)
    decision = answer if isinstance(answer, Decision) else Decision(answer.move, answer.kind)
    analysis.fair = decision
    move = decision.move
    if move is None:
        return
    before = game.board(game.low)
    line = game.lines[game.low]
    if _same(before, move, game.moves[game.low]):
        analysis.fair_result, analysis.fair_same = LOST, True
        return
    if line and _same(before, move, line[0]):
        analysis.fair_result = WON
        return
    after = before.copy(stack=False)
    after.push(move)
    left = deadline - time.perf_counter()
    analysis.fair_result = UNKNOWN
    if left > 0:
        analysis.fair_result = solve(after, max_seconds=left, all_candidates=False, cancel=cancel,
                                     short_line=False).result


def _same(board: Board, a: Move, b: Move) -> bool:
    """True when moves ``a`` and ``b`` lead from ``board`` to the same
    position (``wf`` and ``wf2`` can be one move)."""
    if a == b:
        return True
    after_a, after_b = board.copy(stack=False), board.copy(stack=False)
    try:
        after_a.push(a)
        after_b.push(b)
    except Exception:
        return False
    return after_a.position() == after_b.position()


def base_chances(
    board: Board,
    seed: int = 0,
    seconds: float = 10.0,
    *,
    settings: FairSettings = CHANCE_SETTINGS,
    cancel: Cancel | None = None,
) -> dict[str, Any]:
    """Each base-card candidate's wins across the stock orders the fair
    player samples (it never looks at the face-down cards): ``{"samples":
    K, "candidates": [{"move", "wins", "tried", "undecided"}...],
    "estimate", "seconds"}`` in the candidates' order (``estimate``:
    :data:`~terrace.solver.decision.UPPER_ESTIMATE`, what the wins are). ``tried`` of the K samples were
    solved in the time, ``undecided`` of those the solver could not decide
    for that candidate (``wins`` counts only proved wins, so a candidate
    undecided in every sample is not one that never wins). A game past the
    choice has none.

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(1, get_rules("terrace"))
    >>> chances = base_chances(board, settings=FairSettings(samples=2), seconds=30)
    >>> chances["samples"], [(c["move"], c["tried"]) for c in chances["candidates"]]
    (4, [('c1', 4), ('c2', 4), ('c3', 4)])
    """
    return chances_and_pick(board, seed, seconds, settings=settings, cancel=cancel)[0]


def chances_and_pick(
    board: Board,
    seed: int = 0,
    seconds: float = 10.0,
    *,
    settings: FairSettings = CHANCE_SETTINGS,
    cancel: Cancel | None = None,
) -> tuple[dict[str, Any], Decision | None]:
    """:func:`base_chances` and the fair player's decision they come from
    (None past the choice): with every sample solved, the decision is the
    fair hint's at the choice, given all the time it needs (same settings,
    same seed). A terrace dead whichever base card is chosen
    (:func:`~terrace.solver.prune.terrace_dead`, which a player can see)
    loses every sample: answered at once, every sample lost, no decision
    (the fair hint there has no move)."""
    seconds = check_budget(seconds)
    began = time.perf_counter()
    obs = observe(board)
    count = settings.samples * settings.choice_factor
    if not obs.choosing:
        return {"samples": count, "candidates": [], "estimate": UPPER_ESTIMATE, "seconds": 0.0}, None
    if terrace_dead(board):
        candidates = [{"move": str(move), "wins": 0, "tried": count, "undecided": 0} for move in obs.legal]
        took = round(time.perf_counter() - began, 3)
        return {"samples": count, "candidates": candidates, "estimate": UPPER_ESTIMATE, "seconds": took}, None
    player = FairPlayer(settings, seed, cancel)
    decision = player.decide(obs, began + seconds)
    counts = {move: (wins, tried) for move, wins, tried in decision.choices}
    candidates = []
    for move in obs.legal:
        wins, tried = counts.get(move, (0, 0))
        undecided = player.undecided(move) if decision.kind == "sampled" else 0
        candidates.append({"move": str(move), "wins": wins, "tried": tried, "undecided": undecided})
    report = {"samples": count, "candidates": candidates, "estimate": UPPER_ESTIMATE,
              "seconds": round(time.perf_counter() - began, 3)}
    return report, decision


def warn_check(
    board: Board, move: Move, seconds: float = 1.0, *, cancel: Cancel | None = None
) -> dict[str, Any]:
    """Would ``move`` lose a won game? ``{"warn", "before", "after"}``:
    ``warn`` only when the solver proves the position won and the position
    after ``move`` lost, within ``seconds`` for both searches (half of it
    for the first). An illegal move is refused by the engine.

    >>> from terrace.rules import Rules
    >>> rules = Rules(decks=1, reserve=5, piles=2, candidates=0, spaces="waste", redeals=1)
    >>> board = Board.from_position("2 7C 2S3H4S5D6C7D8S9HTCJDQCKH,2H3S4D5S6D7S8D9STDJCQDKCAH,"
    ...     "2D3C4H5C,2C3D4C5H6S7H8C ,QH ADAC9DQSJHTS6H9C8HTHJSKS ASKD 1", rules)
    >>> board.push_text("s")
    Move.parse('s')
    >>> warn_check(board, Move.parse("s"), seconds=20)
    {'warn': True, 'before': 'won', 'after': 'lost'}
    """
    seconds = check_budget(seconds)
    deadline = time.perf_counter() + seconds
    after = board.copy(stack=False)
    after.push(move)
    verdict = solve(board, max_seconds=seconds / 2, all_candidates=False, cancel=cancel, short_line=False)
    if verdict.result != WON:
        return {"warn": False, "before": verdict.result, "after": None}
    if verdict.moves and _same(board, move, verdict.moves[0]):
        return {"warn": False, "before": WON, "after": WON}
    left = max(0.0, deadline - time.perf_counter())
    result = solve(after, max_seconds=left, all_candidates=False, cancel=cancel, short_line=False).result
    return {"warn": result == LOST, "before": WON, "after": result}
