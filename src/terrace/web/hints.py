"""Hints, analysis and winnable deals for the page: the solver, and a
simple heuristic when it finds nothing. Everything here runs on a copy of
the board, in a solver process (see :mod:`terrace.web.workers`), within
its budget; ``cancel`` stops a search early.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(3, get_rules("falling-star"))
>>> heuristic_hint(board)["kind"]
'heuristic'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from terrace.board import Board
from terrace.rules import Rules
from terrace.solver import solve
from terrace.solver.advice import ASKED, HINT_SETTINGS, face_down, fair_answer
from terrace.solver.budget import check_budget
from terrace.solver.decision import Decision
from terrace.solver.fair import FairSettings
from terrace.solver.hint_line import (
    GAME_OVER,
    KeptLine,
    PeekHint,
    line_texts,
    peek_hint,
    rule_of_thumb,
    why_no_move,
)
from terrace.solver.winnable import next_winnable_deal

Cancel = Callable[[], bool]
"""Asked between slices of a search: True stops it."""


def find_hint(
    board: Board, seconds: float, peek: bool = False, kept: KeptLine | None = None, seed: int = 0,
    cancel: Cancel | None = None, settings: FairSettings = HINT_SETTINGS, decided: Decision | None = None,
    shown: int | None = None,
) -> dict[str, Any]:
    """The hint for ``board`` (its move stack is the game so far, or the
    last :data:`~terrace.solver.history.LOOKBACK` moves of it at least) as the page
    gets it, with ``"kept"``: the winning line to pass back as ``kept`` in
    the next peeking hint of this game (the server drops it from the reply).

    Fair (the default, :func:`terrace.solver.advice.fair_answer`, which the
    coach asks too): ``kind``
    ``sampled`` (``wins`` of ``samples`` sampled stock orders are won after
    the move, ``undecided`` of them the solver could not decide), ``safe``,
    ``only``, ``heuristic`` (no sample was decided in the time: the greedy
    preference) or ``none``; once the terrace can never be played out, no
    move, ``lost`` with ``why`` ``terrace-dead`` (a proof from the cards in
    sight); once the player has seen every card, the peeking answer, which
    is then fair (``"fair": true``), and ``face_down`` says why
    (:func:`terrace.solver.advice.face_down`: ``none``, ``known``, or
    ``alike``, cards that differ only in suit, which the rules ignore;
    null in every other reply). Peeking (see
    :func:`terrace.solver.hint_line.peek_hint`): ``winnable`` with the proved
    ``line``, ``lost``, ``furthest``, ``heuristic`` or ``none``; ``back``
    is 0 but for a winnable hint with no move (``why`` ``win-behind``):
    ``line`` wins from the position that many moves ago. No move comes with ``why``
    (one of :data:`terrace.solver.hint_line.WHY_NO_MOVE`); no hint ever
    leads back to a position the game has already reached. ``settings`` are
    the fair player's behind a fair hint (``bench/hints.py`` compares others);
    ``decided``, the fair player's decision already made for this position
    with every sample solved (the base-card chances), is answered as it is
    (after the dead-terrace check: the same position, the same hint) unless
    most of its samples are undecided (then the hint decides again with
    more positions, as everywhere else). A fair hint asked again at the
    same position goes on with the work this process kept there
    (:data:`terrace.solver.advice.ASKED`). ``shown``: the stock cards the
    game's event log shows the player saw
    (:func:`terrace.solver.observation.stock_shown`).
    """
    check_budget(seconds)  # (not left to the solver: a failing solve gives the rule of thumb)
    if peek:
        found = _line_reply(board, lambda: peek_hint(board, seconds, kept, cancel=cancel), fair=False)
        assert found is not None  # (a peeking hint always answers)
        return found
    answer = fair_answer(board, seconds, seed=seed, settings=settings, kept=kept, cancel=cancel,
                         decided=decided, shown=shown, asked=ASKED)
    if isinstance(answer, PeekHint):  # a dead terrace, or nothing hidden: the proved answer is fair
        found = _reply(answer, fair=True)
        found["face_down"] = face_down(board, shown)
        return found
    decision = answer
    kind = decision.kind  # "heuristic" when no sample was decided (see fair_hint)
    why = None
    if decision.move is None:
        why = why_no_move(board)
    counts = decision.to_dict()
    return {"move": None if decision.move is None else str(decision.move), "kind": kind,
            "line": [], "why": why, "fair": True, "samples": decision.samples, "wins": decision.wins,
            "undecided": decision.undecided, "win_share": counts["win_share"], "estimate": counts["estimate"],
            "back": 0, "face_down": None, "kept": None}


def _line_reply(board: Board, find: Callable[[], PeekHint | None], fair: bool) -> dict[str, Any] | None:
    """The reply for a peeking hint (``find``), or None when ``find`` gives
    none; a solver failure gives the rule of thumb rather than no hint."""
    try:
        found = find()
    except Exception:  # a solver failure must not cost the player a hint
        found = rule_of_thumb(board)
    return None if found is None else _reply(found, fair)


def _reply(found: PeekHint, fair: bool) -> dict[str, Any]:
    """The reply for a hint with a proved line (or its fallback)."""
    return {"move": None if found.move is None else str(found.move), "kind": found.kind,
            "line": line_texts(found), "why": found.why, "fair": fair, "back": found.back,
            "face_down": None, "kept": found.kept}


def over_hint(peek: bool) -> dict[str, Any]:
    """The hint for a game that is over without the board saying so (given
    up): no move, no search, in the shape :func:`find_hint` answers.

    >>> over_hint(False)["why"], over_hint(True)["fair"]
    ('game-over', False)
    """
    reply: dict[str, Any] = {"move": None, "kind": "none", "line": [], "why": GAME_OVER, "fair": not peek,
                             "back": 0, "face_down": None}
    if not peek:
        reply.update(samples=0, wins=0, undecided=0, win_share=None, estimate=None)
    reply["kept"] = None
    return reply


def analyse(board: Board, seconds: float, cancel: Cancel | None = None) -> dict[str, Any]:
    """What the solver knows about this position: ``result`` (``won``: a
    winning line exists, ``lost``: none remains, ``unknown``) and, while
    choosing, the verdict of each candidate."""
    try:
        outcome = solve(board.copy(), max_seconds=seconds, cancel=cancel, short_line=False)
    except Exception:  # the page then simply shows no verdicts
        return {"available": True, "result": "unknown", "candidates": []}
    candidates = [{"move": str(move), "verdict": verdict} for move, verdict in outcome.candidates]
    return {"available": True, "result": outcome.result, "candidates": candidates}


def next_winnable(
    rules: Rules, start: int, deal_seconds: float, db_path: str | None = None, *,
    seconds: float, cancel: Cancel | None = None,
) -> int:
    """The first deal number from ``start`` on that the solver proves
    winnable within ``seconds`` (what the wait for a worker left of the
    search's budget, and a share of it at least: a ``timed`` job of
    :class:`~terrace.web.workers.SolverPool`; see
    :func:`terrace.solver.winnable.next_winnable_deal`); verdicts are
    cached in ``db_path`` (None: the default file)."""
    return next_winnable_deal(rules, start, max_seconds=min(deal_seconds, seconds), total_seconds=seconds,
                              cancel=cancel, db_path=db_path)


def heuristic_hint(board: Board) -> dict[str, Any]:
    """The greedy player's rule-of-thumb move (see
    :func:`terrace.solver.hint_line.rule_of_thumb`): it never returns to a
    position already reached in the game."""
    found = rule_of_thumb(board)
    return {"move": None if found.move is None else str(found.move), "kind": found.kind,
            "line": [], "why": found.why, "fair": False, "back": 0, "face_down": None, "kept": None}
