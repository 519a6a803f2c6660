"""The search: a depth-first search over a compact copy of a position.

One :class:`Search` explores every position reachable from one board (after
the base card is chosen) with an explicit stack, undoing moves in place, and
remembers every position it has entered in a transposition set of
Zobrist-style keys. It runs in slices, so a driver can interleave several
searches (one per base-card candidate) and stop them when the time is up.

The work is done by the compiled core (``terrace.solver._core``) when it is
built, else by the pure-Python search of this module, which is also the
reference the tests compare the core with. Both implement the same moves,
keys and prunings (see ``docs/winnability.md``, section "Equivalences and
prunings", for the proofs; the names in the code are its headings).
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from terrace.board import Board
from terrace.deal import SplitMix64
from terrace.moves import Move
from terrace.refusals import quote
from terrace.solver.lines import REPLAY_CHECK
from terrace.solver.movegen import MoveGen
from terrace.solver.options import COUNT_MOST, LDS_RANKS, Options
from terrace.solver.prune import reserve_blocked, reserve_dead
from terrace.solver.state import DRAW, DST_FOUNDATION, SRC_RESERVE, SRC_RETURN, SRC_WASTE, State
from terrace.solver.tables import slot_keys

try:  # the compiled core is optional: without a C compiler it is not built
    from terrace.solver import _core
except ImportError:  # pragma: no cover - depends on the build
    _core = None  # type: ignore[assignment]

__all__ = [
    "DRAW", "DST_FOUNDATION", "SRC_RESERVE", "SRC_RETURN", "SRC_WASTE",
    "HuntState", "Options", "Search", "core_available", "core_profiled", "engine_move", "replay_line",
    "slot_keys",
]

SLICE = 2048
"""Positions per slice of the pure-Python search."""
PY_MAX_ENTRIES = 20_000_000
"""The pure-Python search's default cap on transposition entries (about 2 GB),
for one search and for all the pure-Python searches of the process together
(a solve runs several: every candidate's, and its win-hunters), as the
compiled core's memory limit counts all its tables."""
PY_ENTRY_BYTES = 100
"""About how many bytes an entry of the pure-Python search holds (its key
in the set, the key itself and its share of the stack: 86-99 measured with
tracemalloc on Admiral's Patience deal 2, 60,000 to 225,000 entries)."""
_PY_ENTRIES = [0]
"""The transposition entries the live pure-Python searches of the process
hold (each adds its own at every slice and takes them back when it ends or
is dropped)."""
CORE_SLICE_SECONDS = 0.02
"""Wall time per slice of the compiled core."""
NRPA_ITERATIONS = 100
"""The policy-learning hunter's iterations per level (``ccore/nrpa.c``)."""
BEAM_CLOSURE = 100
"""The beam hunter's small search: at most this many positions from each
position of a layer (sixteen times as many once the stock is empty)."""
BEAM_PER_PARENT = 8
"""At most this many of one position's successors go to the next layer."""
BEAM_WEIGHTS = (100, 50, 3, 20, 20, 10, 5, 10, 5, 0)
"""The beam hunter's score, per feature (see ``ccore/beam.c``, ``eval``):
cards up, reserve cards played, waste cards, wanted cards buried in the
waste, the same in the piles, cards above a lower card of their class in a
pile, the same in the waste, the reserve's demand, pile tops that take
another top."""


@dataclass(slots=True)
class HuntState:
    """What a candidate keeps of its restarting win-hunters (``api._Task``),
    which :meth:`Search.hunt` reads and updates."""

    rng: SplitMix64
    """Draws the hunters' starting points on the best line."""
    shift: int
    """Added to the restart count: the random move order of a hunter."""
    elite_every: int
    stale_hunters: int
    learn: bool
    """Keep a best line (``Options.elite``)."""
    restarts: int = 0
    """Hunters so far."""
    elite: list[int] = field(default_factory=list)
    """The internal moves of the line that put most cards up, of all the hunters."""
    elite_found: int = -1
    stale: int = 0
    """Hunters in a row that did not better the best line."""
    spent: int = 0
    """Positions of the hunters that have ended."""
    progress: int = -1
    """The most cards any hunter has put up."""


def core_available() -> bool:
    """True when the compiled core is built and importable."""
    return _core is not None


def core_profiled() -> bool:
    """True when the compiled core was built guided by its training run's
    profile (setup.py), which makes it 5-9% faster than a plain build."""
    return _core is not None and bool(getattr(_core, "PROFILED", 0))


def _check_seconds(seconds: float) -> None:
    """Refuses a slice's ``seconds`` that no clock reaches: NaN (or no
    number) compared false with every time, so that ``hunt(nan, None,
    ...)`` ran its hunters, without the GIL, for ever; infinity stays
    "until the positions run out", which a caller gives on purpose."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or math.isnan(seconds):
        raise ValueError(f"seconds must be a number of seconds (or infinity), not {quote(seconds)}")


class Search:
    """A resumable exhaustive search from one position that is past the
    choice of the base card.

    ``result`` is ``None`` while the search runs, then ``"won"`` (``line``
    holds the internal winning moves), ``"lost"`` (every reachable position
    was explored), ``"exhausted"`` (a restricted search, see
    :attr:`Options.complete`, ran out of moves: this proves nothing) or
    ``"memory"`` (the transposition table is full).

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(4, get_rules("falling-star"))
    >>> search = Search(board)
    >>> while not search.step():
    ...     pass
    >>> search.result, len(search.moves_to_engine(board, search.line)) > 100
    ('won', True)
    """

    def __init__(self, board: Board, options: Options | None = None) -> None:
        if board.choosing:
            raise ValueError("the search starts after the base card is chosen")
        self.options = options or Options()
        if self.options.core not in ("auto", "python", "compiled"):
            raise ValueError(f"core must be 'auto', 'python' or 'compiled', not {quote(self.options.core)}")
        self.rules = board.rules
        self._board = board
        self._root = board
        self._prefix: list[int] = []
        self._compiled: Any = None
        self._released = False
        self._clear()
        if len(self.options.hunters) > 1:
            raise ValueError(f"choose one hunter, not {' and '.join(self.options.hunters)}")
        use_core = self.options.core == "compiled" or (self.options.core == "auto" and _core is not None)
        if use_core:
            if _core is None:
                raise RuntimeError("the compiled solver core is not built")
            self._compiled = _core.Search(*_core_arguments(board, self.options))
            if self.options.reserve_blocking:
                self._compiled.set_blocking(True)
            seed = (self.options.seed ^ self.options.shuffle) & (1 << 64) - 1
            if self.options.beam:
                width = self.options.beam
                self._compiled.set_beam(width, BEAM_CLOSURE, min(BEAM_PER_PARENT, width), BEAM_WEIGHTS, seed)
            elif self.options.nested:
                self._compiled.set_nested(seed)
            elif self.options.nrpa:
                self._compiled.set_nrpa(self.options.nrpa, NRPA_ITERATIONS, seed)
            elif self.options.lds:
                self._compiled.set_lds(self.options.lds == LDS_RANKS)
        elif self.options.hunters:
            raise ValueError("the beam, nested, policy-learning and discrepancy hunters need "
                             "the compiled core")

    def restart(self, shuffle: int, prefix: list[int], *, checked: bool = True) -> None:
        """Start again from the position the search was built on, after the
        internal moves ``prefix``, with the random move order ``shuffle``.

        From then on the search is the one built on the position after
        ``prefix`` with that order (the tests check this position for
        position), except that its lines (``line``, :meth:`best_line`) begin
        with ``prefix``. A restarting win-hunter reuses one search this way
        instead of building a new one. A prefix move that no search of the
        solver would make where it stands (a restarted one, a digging one:
        ``Options.dig_only``) raises ``ValueError`` (in the pure-Python
        search: a move the engine refuses, with the engine's error), and the
        search is left at its first position.

        ``checked=False`` is for a prefix that is a line of one of the
        solver's own searches from the same position (``best_line``): the
        compiled core then only makes sure that every move can be played
        (a card where it comes from, a foundation that wants it), instead
        of listing the moves of every position on the way (7% of all the
        instructions of a solve of Admiral's Patience deal 2). The
        pure-Python search checks every move with the engine either way.

        The compiled core keeps the new order itself, so its ``options``
        stay those it was built with; the pure-Python search takes options
        with the new ``shuffle``.
        """
        self._refuse_if_released()
        if self.options.hunters:
            raise ValueError("the beam, nested, policy-learning and discrepancy hunters do not restart")
        self._clear()
        if self._compiled is not None:
            # (copying the options here cost 8 µs of the about 300 µs of a
            # hunter on Admiral's Patience)
            self._compiled.restart(shuffle, prefix, checked)
            return
        self.options = replace(self.options, shuffle=shuffle)
        self._board, self._prefix = self._root, []
        self._board = self.replay(self._root, prefix)[1]
        self._prefix = list(prefix)

    def _clear(self) -> None:
        """What the search has found so far, as before its first step."""
        self.result: str | None = None
        self.line: list[int] = []
        self.nodes = 0
        self.best_found = -1
        self.best_first: int | None = None
        self._best_path: list[int] = []
        self._gen: Iterator[None] | None = None
        self._entries = 0
        """The entries the pure-Python search holds (as at its last pause)."""
        self._stop = 0
        self._slice = 4096

    def release(self) -> None:
        """Give back the search's tables (the compiled core's, or the
        pure-Python search's positions, its lines) once it will take no
        more steps: ``result``, ``nodes``, ``best_found`` and ``best_first``
        stay; a step, a restart or :meth:`hunt` after this raises
        ``RuntimeError``."""
        self._compiled = None
        self._gen = None  # (closing the generator gives back its entries)
        self.line, self._best_path = [], []
        self._released = True

    def _refuse_if_released(self) -> None:
        if self._released:
            raise RuntimeError("a released search takes no more steps, restarts or hunts")

    @property
    def table_bytes(self) -> int:
        """The bytes of the compiled core's tables, or about those of the
        pure-Python search's (:data:`PY_ENTRY_BYTES` an entry); 0 once
        released."""
        if self._compiled is None:
            return 0 if self._released else self._entries * PY_ENTRY_BYTES
        return int(self._compiled.table_bytes)

    @property
    def compiled(self) -> bool:
        """True when the compiled core does the work."""
        return self._compiled is not None

    def step(self, seconds: float = CORE_SLICE_SECONDS, max_nodes: int | None = None) -> bool:
        """Run one slice of the search; True once the search has ended. The
        compiled core stops after about ``seconds`` or ``max_nodes`` more
        positions; the Python search after ``max_nodes`` positions (as the
        core, to the position), else 2,048, or at the first multiple of
        2,048 positions past ``seconds`` (a million positions took it 10 s
        against a budget of 0.5). A Python slice that an exception stopped
        (Ctrl+C) cannot go on: the next step starts the search again."""
        if self.result is not None:
            return True
        self._refuse_if_released()
        _check_seconds(seconds)
        if self._compiled is not None:
            return self._step_core(seconds, max_nodes)
        target = self.nodes + (SLICE if max_nodes is None else max_nodes)
        until = time.perf_counter() + seconds if math.isfinite(seconds) else math.inf
        if self._gen is None:
            self._gen = self._run()
        while self.result is None:
            self._stop = min(target, self.nodes + SLICE)
            try:
                next(self._gen)
            except StopIteration:
                break
            except BaseException:
                # (a Ctrl+C, a MemoryError inside the slice closed the
                # generator: the next step starts the search again, which
                # would otherwise say False, running, for ever)
                self._clear()
                raise
            if self.nodes >= target or time.perf_counter() >= until:
                break
        return self.result is not None

    def _step_core(self, seconds: float, max_nodes: int | None) -> bool:
        core = self._compiled
        code = core.step(self._slice if max_nodes is None else _counted(max_nodes), seconds)
        self.nodes = core.nodes
        self.best_found = core.best_found
        first = core.best_first
        self.best_first = None if first == -2 else first
        if code:
            # (4: a one-lane search ran out, which the core itself never calls lost)
            ended = "lost" if self.options.complete else "exhausted"
            self.result = ("won", ended, "memory", "exhausted")[code - 1]
            if code == 1:
                self.line = core.line()
        elif math.isfinite(seconds):
            self._slice = min(self._slice * 2, 1 << 22) if core.last_seconds < seconds / 2 else self._slice
        return self.result is not None

    def hunt(self, seconds: float, max_nodes: int | None, limit: int, hunters: HuntState) -> bool:
        """Run the restarting win-hunters of ``api._Task`` on this search in
        the compiled core, until about ``seconds`` have passed or they have
        entered ``max_nodes`` positions, or one has won (True: ``line`` is
        its line, the way to its starting point first). Each explores at
        most ``limit`` positions, then the search restarts (as
        :meth:`restart`, unchecked) for the next; ``hunters`` is what
        ``api._Task`` keeps of them, read and updated.

        This is ``api._Task``'s own loop (``_hunt``, ``_learn``,
        ``_new_hunter``) in one call, which the tests compare it with: the
        same positions, the same best line, the same random choices.
        """
        self._refuse_if_released()
        _check_seconds(seconds)
        if self._compiled is None:
            raise RuntimeError("the hunters' loop in one call needs the compiled core")
        core = self._compiled
        budget = -1 if max_nodes is None else _counted(max_nodes)
        (code, restarts, hunters.elite, hunters.elite_found, hunters.stale, hunters.rng.state, spent,
         progress) = core.hunt(budget, seconds, limit, hunters.restarts,
                               hunters.elite, hunters.elite_found, hunters.stale, hunters.rng.state,
                               hunters.shift, hunters.elite_every, hunters.stale_hunters, hunters.learn)
        if restarts != hunters.restarts:
            self._clear()
            hunters.restarts = restarts
        hunters.spent += spent
        hunters.progress = max(hunters.progress, progress)
        self.nodes = core.nodes
        self.best_found = core.best_found
        first = core.best_first
        self.best_first = None if first == -2 else first
        if code:
            self.result = "won"
            self.line = core.line()
        return self.result is not None

    def best_line(self) -> list[int]:
        """The internal moves of the line that put most cards on the
        foundations so far (empty while no line has put any up)."""
        if self._compiled is not None:
            return list(self._compiled.best_line()) if self.best_found >= 0 else []
        return list(self._best_path)

    def moves_to_engine(self, board: Board, line: list[int]) -> list[Move]:
        """Translate internal moves to engine moves by replaying them on a
        copy of ``board`` (which must be the position the search started
        from); raises the engine's error if one is illegal."""
        return self.replay(board, line)[0]

    def replay(self, board: Board, line: list[int]) -> tuple[list[Move], Board]:
        """:meth:`moves_to_engine`, and the board the engine reached."""
        replayed = self.replay_until(board, line, math.inf)
        assert replayed is not None
        return replayed

    def replay_until(self, board: Board, line: list[int], until: float) -> tuple[list[Move], Board] | None:
        """:meth:`replay`, or None when :func:`time.perf_counter` passes
        ``until`` first."""
        return replay_line(board, line, until)

    # ------------------------------------------------------------------

    def _note_best(self, worth: int, path: list[int], won: bool) -> None:
        """The line ``path`` (after the prefix), of ``worth``, is the best
        so far; when it ``won``, it is the search's result."""
        self.best_found = worth
        self.best_first = path[0]
        self._best_path = self._prefix + path
        if won:
            self.line = self._best_path
            self.result = "won"

    def _run(self) -> Iterator[None]:
        """The pure-Python search, a generator that pauses every slice."""
        opt = self.options
        s = State(self._board, opt.canonical, opt.seed)
        gen = MoveGen(opt, s.ret)
        dead_check = opt.dead_reserve and not s.ret
        total = s.total
        visited = {s.key()}
        frames: list[list[int]] = []
        fidx: list[int] = []
        path: list[int] = []
        undo: list[int] = []
        nodes = 1
        extra, first_reserve, live = opt.reserve_weight - 1, len(self._root.reserve), opt.live_best
        cap = opt.max_entries or math.inf

        def worth() -> int:
            """What the best line is chosen by (``Options.reserve_weight``)."""
            return s.found + extra * (first_reserve - len(s.res))

        best = worth()
        if s.found == total:
            self.result = "won"
            self.line = list(self._prefix)
            self.nodes = nodes
            return
        # **Reserve schedule**: checked at the start and after every
        # foundation move (nothing else changes what it looks at)
        blocking = opt.reserve_blocking and not s.ret
        frames.append([] if (dead_check and reserve_dead(s)) or (blocking and reserve_blocked(s))
                      else gen.moves(s, -2, 0))
        fidx.append(0)
        held = 0  # this search's entries counted in _PY_ENTRIES
        try:
            while True:
                if nodes >= self._stop:  # (step sets the stop of each slice)
                    self.nodes = nodes
                    _PY_ENTRIES[0] += len(visited) - held
                    held = self._entries = len(visited)
                    if held > (opt.max_entries or PY_MAX_ENTRIES) or _over_cap():
                        self.result = "memory"
                        return
                    yield
                    continue
                moves = frames[-1]
                i = fidx[-1]
                if i < len(moves):
                    fidx[-1] = i + 1
                    m = moves[i]
                    u = s.apply(m)
                    path.append(m)
                    undo.append(u)
                    nodes += 1
                    # (a position entered before is never better than the
                    # best: it was weighed when first entered)
                    gain = worth() > best
                    if gain and not live:
                        best = worth()
                        self._note_best(best, path, s.found == total)
                        if self.result:
                            self.nodes = nodes
                            return
                    key = s.key()
                    if key not in visited:
                        if len(visited) >= cap:  # (Options.max_entries, as the core counts it)
                            self.result = "memory"
                            self.nodes = nodes
                            return
                        visited.add(key)
                        up = m >= 0 and (m & 63) == DST_FOUNDATION
                        cut = up and dead_check and bool(s.res) and reserve_dead(s)
                        # **Reserve schedule with blocking**: at every position
                        # (any move can bury a card or take a holder away)
                        cut = cut or (blocking and reserve_blocked(s))
                        frames.append([] if cut else gen.moves(s, m, u))
                        fidx.append(0)
                        if gain and live and not cut:
                            best = worth()
                            self._note_best(best, path, s.found == total)
                            if self.result:
                                self.nodes = nodes
                                return
                        continue
                    # seen before: fall through to take the move back
                else:
                    frames.pop()
                    fidx.pop()
                    if not path:
                        self.result = "lost" if opt.complete else "exhausted"
                        self.nodes = nodes
                        return
                s.undo(path.pop(), undo.pop())
        finally:  # (also when the search is dropped mid-way: its generator is closed)
            _PY_ENTRIES[0] -= held
            self._entries = 0


def _counted(max_nodes: int) -> int:
    """A budget of positions as the compiled core counts them: none below
    0 (as the Python search stops at once), none past :data:`COUNT_MOST`."""
    return max(0, min(max_nodes, COUNT_MOST))


def _over_cap() -> bool:
    """True when the pure-Python searches of the process hold more than
    :data:`PY_MAX_ENTRIES` entries. A search dropped mid-way (it and its
    generator refer to each other) gives its entries back only when the
    garbage collector closes its generator, so near the cap it is run first:
    the answer depends on the live searches alone, never on when the
    collector last ran."""
    if _PY_ENTRIES[0] <= PY_MAX_ENTRIES:
        return False
    gc.collect()
    return _PY_ENTRIES[0] > PY_MAX_ENTRIES


def _core_arguments(board: Board, opt: Options) -> tuple[Any, ...]:
    """The compiled core's constructor arguments for ``board``."""
    rules = board.rules
    return (
        rules.decks, rules.piles, rules.in_suit, ("auto", "free", "waste").index(rules.spaces.value),
        rules.redeals, rules.foundation_return, board.base_rank,
        bytes(board.reserve), bytes(board.stock), bytes(board.waste),
        [bytes(p) for p in board.tableau], [bytes(f) for f in board.foundations], board.redeals_used,
        opt.canonical, opt.safe_moves, opt.dead_reserve, opt.order, opt.dig_only, opt.shuffle,
        opt.max_entries or COUNT_MOST, opt.seed, opt.live_best, opt.reserve_weight, opt.one_lane,
        opt.hunt_mix, opt.stock_lookahead,
    )


_PLAIN_MOVES: dict[int, Move] = {}
"""Engine moves of internal moves that do not depend on the position (all
but foundation returns), made once (moves are immutable values)."""


def replay_line(board: Board, line: list[int], until: float = math.inf) -> tuple[list[Move], Board] | None:
    """The engine moves of the internal moves ``line`` from ``board`` (left
    as it is) and the board they reach, or None when
    :func:`time.perf_counter` passes ``until`` first; raises the engine's
    error if a move is illegal."""
    copy = board.copy(stack=False)
    out: list[Move] = []
    keys = slot_keys(board.rules.in_suit)
    for done, m in enumerate(line):
        if done % REPLAY_CHECK == 0 and time.perf_counter() > until:
            return None
        move = engine_move(copy, m, keys)
        copy.push(move)
        out.append(move)
    return out, copy


def engine_move(board: Board, m: int, keys: tuple[int, ...]) -> Move:
    """The engine move for internal move ``m`` in ``board``'s position."""
    move = _PLAIN_MOVES.get(m)
    if move is not None:
        return move
    if m == DRAW:
        move = Move("s")
    else:
        src, dst = m >> 6, m & 63
        target, target_index = ("f", 0) if dst == DST_FOUNDATION else ("t", dst + 1)
        if src < SRC_RESERVE:
            move = Move("t", src + 1, target, target_index)
        elif src == SRC_RESERVE:
            move = Move("r", 0, target, target_index)
        elif src == SRC_WASTE:
            move = Move("w", 0, target, target_index)
        else:
            return _return_move(board, src - SRC_RETURN, target, target_index, keys)
    _PLAIN_MOVES[m] = move
    return move


def _return_move(board: Board, k: int, target: str, target_index: int, keys: tuple[int, ...]) -> Move:
    """The engine move that takes a card of slot key ``k`` back from a foundation."""
    for index, f in enumerate(board.foundations):
        if len(f) > 1 and keys[f[-1]] == k:
            return Move("f", index + 1, target, target_index)
    raise ValueError("no foundation card to return")
