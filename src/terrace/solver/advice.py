"""Hints for a position: fair (from what a player sees) or peeking (the
solver's proved line, which looks at the face-down stock). Once a player
knows every card's place (the stock is empty, known after a redeal, or
holds one card not seen, or only cards the rules cannot tell apart), the
proved line is fair too, and a fair hint
gives it (:func:`open_hint`).

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(4, get_rules("falling-star"))
>>> for text in ("s", "s"):
...     _ = board.push_text(text)
>>> report = hint_report(board, fair=True, seed=1, seconds=30, samples=2)
>>> report["fair"], report["move"] in [str(m) for m in board.legal_moves]
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from terrace.board import Board
from terrace.bounded import Bounded
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.budget import check_budget, check_nodes, check_seed
from terrace.solver.decision import ESTIMATE_WORDS, Decision
from terrace.solver.fair import KEPT_SOLVE_BYTES, FairPlayer, FairSettings
from terrace.solver.hint_line import (
    GAME_OVER,
    KEPT,
    NO_NEW_POSITION,
    NO_WINNING_LINE,
    NOTHING_USEFUL,
    TERRACE_DEAD,
    WIN_BEHIND,
    Cancel,
    KeptLine,
    PeekHint,
    dead_end_hint,
    game_over,
    given_line,
    peek_hint,
    rule_of_thumb,
    why_no_move,
)
from terrace.solver.observation import Observation, hidden_count, observe, one_kind

ESCALATION = 4
"""How many times more positions per sample a fair hint gives its solves
when it decides again (see :func:`fair_hint`)."""
MOST_NODES = 100_000_000
"""The most positions per sample a fair hint escalates to."""


HINT_SETTINGS = FairSettings(early=False)
"""How hard a fair hint (and the coach's fair player, which is the same
hint) thinks: the fair player's settings, every sample solved (no early
stop: the hint reports how many samples each move wins)."""

ASKED_POSITIONS = 64
"""How many positions :class:`AskedHints` remembers a fair hint's work for
(the most recently asked ones)..."""
UNIT_BYTES = 20
"""About how many bytes a card of a sampled board or a move of a line
holds (14 to 21 measured): the unit of :data:`ASKED_WEIGHT`."""
ASKED_WEIGHT = 2_000_000
"""... and how much of it in all: the cards of the sampled boards and the
moves of their winning lines (:meth:`FairPlayer.weight`, some 40 MB)..."""
KEPT_WEIGHT = KEPT_SOLVE_BYTES // UNIT_BYTES
"""... and the tables of the solves kept to go on with, a unit for each
:data:`UNIT_BYTES` bytes (:meth:`FairPlayer.kept_bytes`; they are at most
:data:`~terrace.solver.fair.KEPT_SOLVE_BYTES` in a process)."""


@dataclass(slots=True)
class _Asked:
    """A fair hint's work at one position: the round of sampling under way
    (its settings and player, whose samples are kept), the best-founded
    decision so far, and whether asking again can found it better."""

    settings: FairSettings
    player: FairPlayer | None = None
    best: Decision | None = None
    done: bool = False


AskedKey = tuple[Rules, str, Observation, int, FairSettings]


class AskedHints:
    """The work of the latest fair hints, by the rules, the full position
    (the stock's order too: one deal's work never answers for another's),
    what the player sees of it, the seed and the settings, so that a fair
    hint asked again at the same position thinks on where the last one
    stopped (the same samples, the next ones drawn from the same seed) and
    never answers from fewer decided samples than before. Thread-safe (an
    entry is taken out while a hint works on it); the oldest is forgotten
    first once more than ``size`` positions or ``weight`` are kept (its
    kept solves released)."""

    def __init__(self, size: int = ASKED_POSITIONS, weight: int = ASKED_WEIGHT + KEPT_WEIGHT) -> None:
        self._work: Bounded[AskedKey, _Asked] = Bounded(size, weight, _weight, dropped=_release)

    def __len__(self) -> int:
        return len(self._work)

    def take(self, key: AskedKey) -> _Asked | None:
        """The work kept for ``key``, no longer kept (give it back), else None."""
        return self._work.pop(key)

    def give(self, key: AskedKey, work: _Asked) -> None:
        """Keep ``work`` for ``key`` (the better founded, if another hint
        gave some back meanwhile; the other's kept solves are released)."""
        replaced: list[_Asked] = []

        def keep_old(old: _Asked, new: _Asked) -> bool:
            if _founded(old.best) > _founded(new.best):
                return True
            replaced.append(old)
            return False

        kept = self._work.put(key, work, keep_old)
        for dropped in [*replaced, *([work] if kept is not work else [])]:
            _release(key, dropped)

    def clear(self) -> None:
        """Forget all (the solves kept released)."""
        for work in self._work.values():
            if work.player is not None:
                work.player.release()
        self._work.clear()


def _release(_: AskedKey, work: _Asked) -> None:
    """Give back the tables of the solves ``work`` kept (it is forgotten)."""
    if work.player is not None:
        work.player.release()


def _weight(work: _Asked) -> int:
    """How much a fair hint's kept work holds (:data:`ASKED_WEIGHT`)."""
    if work.player is None:
        return 0
    return work.player.weight() + -(-work.player.kept_bytes() // UNIT_BYTES)


ASKED = AskedHints()
"""The fair hints' work this process keeps (the page's hints use it)."""


def _founded(decision: Decision | None) -> tuple[int, int]:
    """How well founded a decision is: its decided samples, then its samples."""
    return (-1, -1) if decision is None else (_decided(decision), decision.samples)


def fair_hint(
    board: Board, *, settings: FairSettings | None = None, seed: int = 0, seconds: float = 10.0,
    escalate: bool = True, cancel: Callable[[], bool] | None = None, nodes: int | None = None,
    shown: int | None = None, asked: AskedHints | None = None,
) -> Decision:
    """The fair player's move for ``board`` (which it sees only through
    :func:`~terrace.solver.observation.observe`), within ``seconds`` and,
    when given, ``nodes`` positions in all (its solves stop within a turn
    of :data:`terrace.solver.api.NODE_SLICE` positions past it). A sampled
    move that no sample decided (none was solved in the time, or the
    solver left every one undecided) is the rule of thumb's: kind
    ``heuristic``, not ``sampled`` (it would read "wins in 0 of 32").

    The player's node budget per sample keeps its games fixed, but it is
    small for the hardest games (four decks in suit: every sample of a deal
    of Admiral's Patience undecided in a fifth of a second). So while most
    samples are undecided and the budget allows it (the last round,
    :data:`ESCALATION` times longer, would still end before ``seconds``;
    with ``nodes``, the positions it entered times :data:`ESCALATION` are
    still left too), the hint decides again on the same samples with
    :data:`ESCALATION` times the positions, and keeps the round that
    decided most samples (the later one on a tie). With ``nodes`` and
    seconds to spare, the answer is the same on any machine. ``escalate=False``
    decides once. ``cancel`` (a client that went away) stops the solving
    as the deadline does. ``shown``: the stock cards the game's log shows
    the player saw (:func:`~terrace.solver.observation.stock_shown`).

    ``asked`` (the page's hints give :data:`ASKED`): asked again at the
    same position, the hint goes on with the work it kept there
    (:class:`AskedHints`): the samples its time or ``nodes`` left unsolved
    are solved, the next ones drawn from the same seed, a round of
    sampling that ends with most samples undecided is followed by the
    next, :data:`ESCALATION` times larger (the work not done in one
    request is done in the next: a solve cut short goes on where it
    stopped, its search kept, so that k requests decide the samples one
    request as long as them all would), and the answer is the best-founded
    decision so far (most samples decided, then most samples): a hint
    asked again never answers from fewer samples than the last, and n
    requests find about what one as long as them all would."""
    seconds = check_budget(seconds)
    nodes = check_nodes(nodes, "nodes")
    seed = check_seed(seed)
    settings = settings or FairSettings()
    deadline = time.perf_counter() + seconds  # (observing a long pass of 8 decks takes its time too)
    observed = observe(board, shown)
    if asked is not None:
        return _heuristic_if_undecided(
            _fair_again(board, observed, asked, settings, seed, deadline, escalate, cancel, nodes))
    spent = 0
    best: Decision | None = None
    while True:
        started = time.perf_counter()
        player = FairPlayer(settings, seed, cancel, None if nodes is None else nodes - spent)
        decision = player.decide(observed, deadline)
        took = time.perf_counter() - started
        spent += player.positions
        if best is None or _decided(decision) >= _decided(best):
            best = decision
        if not escalate or decision.kind != "sampled" or 2 * decision.undecided <= decision.samples:
            break
        if cancel is not None and cancel():
            break
        if settings.nodes * ESCALATION > MOST_NODES or started + took * (ESCALATION + 1) > deadline:
            break
        if nodes is not None and spent + player.positions * ESCALATION > nodes:
            break
        settings = _escalated(settings)
    return _heuristic_if_undecided(best)


def _escalated(settings: FairSettings) -> FairSettings:
    """The next round's settings: :data:`ESCALATION` times the positions."""
    return replace(settings, nodes=settings.nodes * ESCALATION,
                   choice_nodes=min(settings.choice_nodes * ESCALATION, MOST_NODES))


def _heuristic_if_undecided(decision: Decision) -> Decision:
    """``decision``, of kind ``heuristic`` when sampled with no sample decided."""
    if decision.kind == "sampled" and decision.samples == decision.undecided:
        return replace(decision, kind="heuristic")
    return decision


def _fair_again(
    board: Board, observed: Observation, asked: AskedHints, settings: FairSettings, seed: int,
    deadline: float, escalate: bool, cancel: Callable[[], bool] | None, nodes: int | None,
) -> Decision:
    """:func:`fair_hint` going on with the work ``asked`` kept for the position."""
    key: AskedKey = (board.rules, board.position(), observed, seed, settings)
    work = asked.take(key) or _Asked(settings)
    spent = 0
    try:
        while not work.done:
            left = None if nodes is None else nodes - spent
            if left is not None and left <= 0:
                break
            again = work.player is not None
            if work.player is None:
                work.player = FairPlayer(work.settings, seed, cancel, left, resumable=True)
            else:
                work.player.resume(cancel, left)
            decision = work.player.decide(observed, deadline, again=again)
            spent += work.player.positions
            if _founded(decision) >= _founded(work.best):
                work.best = decision
            if work.player.stopped():  # (the round goes on at the next request)
                break
            if (not escalate or decision.kind != "sampled" or 2 * decision.undecided <= decision.samples
                    or work.settings.nodes * ESCALATION > MOST_NODES):
                work.player.release()
                work.done, work.player = True, None  # (its answer is kept: not its samples)
                break
            work.settings = _escalated(work.settings)
            work.player.release()
            work.player = None
    finally:
        asked.give(key, work)
    assert work.best is not None  # (a new entry decides once at least: ``nodes`` is 1 or more)
    return work.best


def fair_answer(
    board: Board, seconds: float, *, seed: int = 0, nodes: int | None = None,
    settings: FairSettings = HINT_SETTINGS, kept: KeptLine | None = None, cancel: Cancel | None = None,
    decided: Decision | None = None, shown: int | None = None, asked: AskedHints | None = None,
) -> Decision | PeekHint:
    """The fair hint for ``board`` (its move stack is the game so far), the
    one code path behind the page's fair hint and the coach's "the fair
    player would have played": no move on a game over (kind ``none``), the
    proved answer that needs no sampled stock (:func:`open_hint`: a dead
    terrace, or nothing hidden), else the fair player's decision
    (:func:`fair_hint`, with ``seed``, ``seconds``, ``asked`` and ``nodes``,
    which caps the open hint's solves too). ``shown``:
    the stock cards the game's log shows the player saw
    (:func:`~terrace.solver.observation.stock_shown`).
    ``decided``, a decision already made at this position with every sample
    solved (the base-card chances), is the answer unless :func:`fair_hint`
    would decide again (most of its samples undecided). A budget, a
    ``shown`` or a ``seed`` that is not one is refused before anything
    else, whatever the position needs."""
    seconds = check_budget(seconds)
    nodes = check_nodes(nodes, "nodes")
    shown = check_nodes(shown, "shown")
    seed = check_seed(seed)
    began = time.perf_counter()
    if game_over(board):
        return Decision(None, "none")
    try:
        found = open_hint(board, seconds, kept, cancel=cancel, shown=shown, nodes=nodes)
    except Exception:  # a solver failure must not cost the player a hint
        found = rule_of_thumb(board)
    if found is not None:
        return found
    if decided is not None and (decided.kind != "sampled" or 2 * decided.undecided <= decided.samples):
        return decided
    left = max(0.0, began + seconds - time.perf_counter())  # (what the checks above took is the hint's)
    return fair_hint(board, settings=settings, seed=seed, seconds=left, cancel=cancel, nodes=nodes,
                     shown=shown, asked=asked)


def nothing_hidden(board: Board, shown: int | None = None) -> bool:
    """True when a player knows where every card lies: the stock is empty,
    or it holds only cards seen before (the waste turned over by a redeal,
    draws taken back, or with ``shown`` those the game's log shows) and at
    most one card not seen, or copies of one card, or of cards the rules
    cannot tell apart (:func:`~terrace.solver.observation.one_kind`: in a
    game built in alternate colours, a red five is a red five). The cards
    in sight say which: every sampled stock would play the one game the
    player knows; a fair hint with the last card face down sampled that
    stock 32 times and said "t2t8: wins in 0 of 32" where the proved
    answer is "no move wins".

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(4, get_rules("falling-star"))
    >>> nothing_hidden(board)
    False
    >>> while len(board.stock) > 1:
    ...     _ = board.push_text("s")
    >>> nothing_hidden(board)
    True
    """
    return face_down(board, shown) is not None


OPEN, KNOWN, ALIKE = "none", "known", "alike"
"""What a player knows of the face-down cards (:func:`face_down`)."""


def face_down(board: Board, shown: int | None = None) -> str | None:
    """What a player knows of the face-down cards, as :func:`nothing_hidden`
    sees it: ``"none"`` (the stock is empty: nothing is face down),
    ``"known"`` (each one: seen before, the one card not seen, or copies of
    one card), ``"alike"`` (the cards not seen differ only in suit, which
    the rules do not look at: known as far as the game cares), else None.

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(197, get_rules("terrace"))
    >>> _ = board.push_text("c1")
    >>> while len(board.stock) > 2:  # (the last two: the 2 of spades and of clubs)
    ...     _ = board.push_text("s")
    >>> face_down(board)
    'alike'
    >>> _ = board.push_text("s")
    >>> face_down(board)
    'known'
    """
    if not board.stock:
        return OPEN
    unseen = board.stock[:hidden_count(board, shown)]
    if len(set(unseen)) <= 1:
        return KNOWN
    return ALIKE if one_kind(unseen, board.rules) else None


def open_hint(board: Board, seconds: float, kept: KeptLine | None = None,
              cancel: Cancel | None = None, shown: int | None = None, nodes: int | None = None,
              ) -> PeekHint | None:
    """The fair hint that needs no sampled stock, else None: the proved loss
    of a dead terrace (:func:`dead_end_hint`), or, when nothing is hidden
    from the player, the peeking hint (a proved winning line, a proved
    loss, or the rule of thumb; its solves within ``nodes`` positions when
    given), fair then: every sample would be the one stock the player knows."""
    dead = dead_end_hint(board)
    if dead is not None or not nothing_hidden(board, shown):
        return dead
    return peek_hint(board, seconds, kept, cancel=cancel, nodes=nodes)


def _decided(decision: Decision) -> int:
    """How many of a decision's samples were decided (won or lost)."""
    return decision.samples - decision.undecided


def hint_report(
    board: Board, *, fair: bool = True, seed: int = 0, seconds: float = 10.0, samples: int | None = None,
    line: Sequence[Move] = (),
) -> dict[str, Any]:
    """The ``terrace hint --json`` report. Fair: ``move``, ``kind``
    (``sampled``, ``safe``, ``only``, ``heuristic`` or ``none``),
    ``samples``, ``wins``, ``win_share`` (the share of sampled stock
    orders in which the move wins), ``undecided`` (of ``samples``, those the
    solver could not decide: not counted as wins), ``choices`` and
    ``solves``. Peeking: ``move``, ``kind``
    (``winnable``, ``lost``, ``furthest`` or ``heuristic``), the proved
    ``line`` and ``back`` (with no move and ``why`` ``win-behind``: the
    moves to take back to the position ``line`` wins from); a
    fair report once nothing is hidden (:func:`open_hint`) is the same.
    ``line``: the winning line of an earlier hint of this game, continued
    (not solved afresh) when the game has followed it and it still wins
    (:func:`~terrace.solver.hint_line.given_line`), all within ``seconds``;
    without it, the line this process's last hint for the game kept
    (:data:`~terrace.solver.hint_line.KEPT`), as :func:`~terrace.solver.hint_line.hint` does."""
    seconds = check_budget(seconds)
    seed = check_seed(seed)
    start = time.perf_counter()
    kept = given_line(board, line, start + seconds) if line else KEPT.recall(board)
    left = max(start + seconds - time.perf_counter(), 0.0)
    # one decision that someone asked about: every sample, no early stop (the page's hint)
    settings = HINT_SETTINGS if samples is None else replace(HINT_SETTINGS, samples=samples)
    found = fair_answer(board, left, seed=seed, settings=settings, kept=kept) if fair else None
    if isinstance(found, Decision):
        report = found.to_dict()
        report["why"] = None if report["move"] is not None else why_no_move(board)
    else:
        found = found or peek_hint(board, left, kept)  # the game so far is board's move stack
        KEPT.keep(board, found)
        report = {
            "move": None if found.move is None else str(found.move),
            "kind": found.kind,
            "line": [str(m) for m in found.line],
            "why": found.why,
            "back": found.back,
        }
    report["fair"] = fair
    report["seconds"] = round(time.perf_counter() - start, 3)
    return report


NO_MOVE_WORDS = {
    TERRACE_DEAD: "no move wins any more: the terrace can never be played out, whatever the stock holds",
    NO_WINNING_LINE: "no move wins any more",
    GAME_OVER: "no move: the game is over",
    NO_NEW_POSITION: "no move: every move returns to a position already reached",
    NOTHING_USEFUL: "no move: the rule of thumb finds no move worth making, and the solver decided "
                    "nothing in the time",
    WIN_BEHIND: "every winning line the solver found passes a position this game "
                "has had; take back {back} to it, and {line} from there",
}
"""What :func:`describe` says of a hint without a move, by its ``why``
(one for each of :data:`~terrace.solver.hint_line.WHY_NO_MOVE`)."""


def describe(report: dict[str, Any], face_down: str | None = None) -> str:
    """A hint report in one line of words; ``face_down``: what the player
    knows of the face-down cards (:func:`face_down`), which a fair proved
    line says (None: nothing is face down).

    >>> describe({"move": "t3t5", "kind": "sampled", "fair": True, "samples": 16,
    ...           "wins": 14})  # doctest: +NORMALIZE_WHITESPACE
    't3t5: wins in 14 of 16 sampled stock orders (does not look at face-down cards;
    a sampled stock counts as won when a winning line exists for one who knows that order:
    an upper estimate, not your chance of winning)'
    >>> describe({"move": "s", "kind": "sampled", "fair": True, "samples": 16, "wins": 3,
    ...           "undecided": 5})  # doctest: +ELLIPSIS
    's: wins in 3 of 16 sampled stock orders, 5 undecided (does not look at face-down cards; a sampled ...)'
    >>> describe({"move": "t2t8", "kind": "sampled", "fair": True, "samples": 1,
    ...           "wins": 1})  # doctest: +ELLIPSIS
    't2t8: wins in 1 of 1 sampled stock order (does not look at face-down cards; a sampled ...)'
    >>> describe({"move": "s", "kind": "heuristic", "fair": True, "samples": 16, "wins": 0, "undecided": 16})
    's: no sampled stock order was decided in the time; the rule of thumb (does not look at face-down cards)'
    >>> describe({"move": "wf", "kind": "winnable", "fair": False, "line": ["wf", "s"]})
    'wf: starts a winning line of 2 moves (looks at the face-down stock)'
    >>> describe({"move": "t4f", "kind": "winnable", "fair": True, "line": ["t4f", "wf"]})
    't4f: starts a winning line of 2 moves (nothing is face down)'
    >>> describe({"move": None, "kind": "lost", "fair": True, "why": "terrace-dead"})
    'no move wins any more: the terrace can never be played out, whatever the stock holds'
    >>> describe({"move": "wf", "kind": "winnable", "fair": True, "line": ["wf"]})
    'wf: starts a winning line of 1 move (nothing is face down)'
    >>> describe({"move": "t7f", "kind": "winnable", "fair": True, "line": ["t7f"]}, face_down=KNOWN)
    't7f: starts a winning line of 1 move (you know every face-down card)'
    >>> describe({"move": "t7f", "kind": "winnable", "fair": True, "line": ["t7f"]},
    ...          face_down=ALIKE)  # doctest: +NORMALIZE_WHITESPACE
    't7f: starts a winning line of 1 move
    (the face-down cards differ only in suit, which does not matter here)'
    >>> describe({"move": "t2t5", "kind": "heuristic", "fair": False, "line": []})
    't2t5: undecided in the time; the rule of thumb (does not look at face-down cards)'
    >>> describe({"move": None, "kind": "winnable", "fair": False, "line": ["t9t2", "wf"], "back": 1,
    ...           "why": "win-behind"})  # doctest: +NORMALIZE_WHITESPACE
    'every winning line the solver found passes a position this game has had;
    take back 1 move to it, and a winning line of 2 moves starts from there (looks at the face-down stock)'
    """
    move = report["move"]
    if move is None:
        why = report.get("why") or (NO_WINNING_LINE if report["kind"] == "lost" else GAME_OVER)
        if why == WIN_BEHIND:
            source = _proved_source(report, face_down)
            words = NO_MOVE_WORDS[WIN_BEHIND].format(
                back=_moves(report.get("back", 0)),
                line=f"a winning line of {_moves(len(report.get('line', [])))} starts")
            return f"{words} ({source})"
        return NO_MOVE_WORDS.get(why, NO_MOVE_WORDS[GAME_OVER])
    if report["fair"] and "samples" in report:  # (else a proved line, fair once nothing is hidden)
        reason = {
            "only": "the only move that leads somewhere new",
            "safe": "a foundation move that is safe whatever the stock holds",
            "heuristic": "no sampled stock order was decided in the time; the rule of thumb",
        }.get(report["kind"], f"wins in {report.get('wins', 0)} of {report.get('samples', 0)} "
                              f"sampled stock order{'' if report.get('samples') == 1 else 's'}"
                              + _undecided(report))
        counted = f"; {ESTIMATE_WORDS}" if report["kind"] == "sampled" else ""
        return f"{move}: {reason} (does not look at face-down cards{counted})"
    proved = {
        "winnable": f"starts a winning line of {_moves(len(report.get('line', [])))}",
        "furthest": "undecided in the time; starts the line that put the most cards up",
    }.get(report["kind"])
    if proved is None:  # the rule of thumb, which sees only what a player sees
        return f"{move}: undecided in the time; the rule of thumb (does not look at face-down cards)"
    return f"{move}: {proved} ({_proved_source(report, face_down)})"


def _proved_source(report: dict[str, Any], face_down: str | None) -> str:
    """Why a proved line may be told: it peeked, or (fair) the player knows
    every card face down, as far as the rules care, or none is (as the
    page's hint.by.known, .alike and .open)."""
    if not report["fair"]:
        return "looks at the face-down stock"
    if face_down == KNOWN:
        return "you know every face-down card"
    if face_down == ALIKE:
        return "the face-down cards differ only in suit, which does not matter here"
    return "nothing is face down"


def _moves(count: int) -> str:
    """``count`` moves, in words ("1 move", "2 moves")."""
    return f"{count} move" if count == 1 else f"{count} moves"


def _undecided(report: dict[str, Any]) -> str:
    count = report.get("undecided", 0)
    return f", {count} undecided" if count else ""
