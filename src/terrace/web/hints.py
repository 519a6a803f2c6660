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

from terrace.board import Board, Status
from terrace.cards import RANK
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import hint as solver_hint
from terrace.solver import solve
from terrace.solver.winnable import next_winnable_deal

Cancel = Callable[[], bool]
"""Asked between slices of a search: True stops it."""


def find_hint(board: Board, seconds: float, cancel: Cancel | None = None) -> dict[str, Any]:
    """``{"move", "kind", "line"}``: the move to suggest (or None), whether
    the solver proved the position ``winnable`` or ``lost``, or the move is a
    ``heuristic`` guess, and the winning line when one is known."""
    if board.status in (Status.WON, Status.LOST):
        return {"move": None, "kind": board.status.value, "line": []}
    try:
        found = solver_hint(board.copy(), seconds, cancel=cancel)
    except Exception:  # a solver failure must not cost the player a hint
        return heuristic_hint(board)
    move = found.move if found.move is not None and board.is_legal(found.move) else None
    if move is not None or found.kind == "lost":
        return {"move": None if move is None else str(move), "kind": found.kind,
                "line": [str(m) for m in found.line]}
    return heuristic_hint(board)


def analyse(board: Board, seconds: float, cancel: Cancel | None = None) -> dict[str, Any]:
    """What the solver knows about this position: ``result`` (``won``: a
    winning line exists, ``lost``: none remains, ``unknown``) and, while
    choosing, the verdict of each candidate."""
    try:
        outcome = solve(board.copy(), max_seconds=seconds, cancel=cancel)
    except Exception:  # the page then simply shows no verdicts
        return {"available": True, "result": "unknown", "candidates": []}
    candidates = [{"move": str(move), "verdict": verdict} for move, verdict in outcome.candidates]
    return {"available": True, "result": outcome.result, "candidates": candidates}


def next_winnable(
    rules: Rules, start: int, deal_seconds: float, total_seconds: float, db_path: str | None = None,
    cancel: Cancel | None = None,
) -> int:
    """The first deal number from ``start`` on that the solver proves
    winnable (see :func:`terrace.solver.winnable.next_winnable_deal`);
    verdicts are cached in ``db_path`` (None: the default file)."""
    return next_winnable_deal(rules, start, max_seconds=deal_seconds, total_seconds=total_seconds,
                              cancel=cancel, db_path=db_path)


def heuristic_hint(board: Board) -> dict[str, Any]:
    """A sensible move by simple preferences: terrace cards first, new
    foundations, foundation moves, moves that free a card for a foundation,
    drawing last; shuffles between piles that achieve nothing are never
    suggested."""
    best: tuple[float, Move] | None = None
    last = board.move_stack[-1] if board.move_stack else None
    for move in board.legal_moves:
        value = _value(board, move, last)
        if value is not None and (best is None or value > best[0]):
            best = (value, move)
    return {"move": None if best is None else str(best[1]), "kind": "heuristic", "line": []}


def _value(board: Board, move: Move, last: Move | None) -> float | None:
    if move.is_choice:
        return _choice_value(board, move)
    if move.is_draw:
        return 10.0
    card = board.peek(move)
    if card is None:
        return None
    if move.to_foundation:
        if move.source == "r":
            return 100.0
        if RANK[card] == board.base_rank:
            return 90.0
        return 70.0 if move.source == "t" else 65.0
    if move.source == "f":
        return None
    if last is not None and (move.source, move.source_index, move.target_index) == (
        last.target, last.target_index, last.source_index
    ):
        return None
    after = board.copy(stack=False)
    after.push(move)
    freed = sum(1 for m in after.legal_moves if m.to_foundation) - sum(
        1 for m in board.legal_moves if m.to_foundation
    )
    if move.source == "t":
        pile = board.tableau[move.source_index - 1]
        if freed > 0:
            return 50.0 + freed
        if len(pile) == 1 and (board.waste or board.stock):
            return 35.0
        return None
    return 30.0 + max(freed, 0)


def _choice_value(board: Board, move: Move) -> float:
    """Prefer the base rank that lets the most terrace cards out early."""
    after = board.copy(stack=False)
    after.push(move)
    base = after.base_rank
    score = 0.0
    for depth, card in enumerate(reversed(after.reserve)):
        distance = (RANK[card] - base) % 13
        score += (13 - distance) / (1 + depth)
    return score
