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
    """The greedy player's rule-of-thumb move (see
    :func:`terrace.solver.players.greedy_move`): it sees only what a player
    sees and never returns to a position already seen in the game."""
    from terrace.solver.observation import observe
    from terrace.solver.players import greedy_move

    move = greedy_move(observe(board))
    return {"move": None if move is None else str(move), "kind": "heuristic", "line": []}
