"""Hints and analysis for the page: the solver when it is installed, a
simple heuristic otherwise. Everything here runs on a copy of the board,
in a worker thread, within a few seconds.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(3, get_rules("falling-star"))
>>> heuristic_hint(board)["kind"]
'heuristic'
"""

from __future__ import annotations

import importlib
from typing import Any

from terrace.board import Board, Status
from terrace.rules import Rules


def _solver_function(module: str, name: str) -> Any:
    """A function of the solver package, or None while it is not installed."""
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def solver_available() -> bool:
    """True when ``terrace.solver`` can be imported."""
    return _solver_function("terrace.solver", "solve") is not None


def find_hint(board: Board, seconds: float) -> dict[str, Any]:
    """``{"move", "kind", "line"}``: the move to suggest (or None), whether
    the solver proved the position ``winnable`` or ``lost``, or the move is a
    ``heuristic`` guess, and the winning line when one is known."""
    if board.status in (Status.WON, Status.LOST):
        return {"move": None, "kind": board.status.value, "line": []}
    solver_hint = _solver_function("terrace.solver", "hint")
    if solver_hint is not None:
        try:
            found = solver_hint(board.copy(), seconds)
            move = getattr(found, "move", None)
            line = [str(m) for m in getattr(found, "line", []) or []]
            kind = str(getattr(found, "kind", "heuristic"))
            if move is not None and not board.is_legal(move):
                move = None
            if move is not None or kind == "lost":
                return {"move": None if move is None else str(move), "kind": kind, "line": line}
        except Exception:  # a solver failure must not cost the player a hint
            pass
    return heuristic_hint(board)


def analyse(board: Board, seconds: float) -> dict[str, Any]:
    """What the solver knows about this position: ``result`` (``won``: a
    winning line exists, ``lost``: none remains, ``unknown``) and, while
    choosing, the verdict of each candidate."""
    solve = _solver_function("terrace.solver", "solve")
    if solve is None:
        return {"available": False, "result": "unknown", "candidates": []}
    try:
        outcome = solve(board.copy(), max_seconds=seconds)
    except Exception:  # the page then simply shows no verdicts
        return {"available": True, "result": "unknown", "candidates": []}
    result = str(getattr(outcome, "result", "unknown"))
    candidates = []
    for entry in getattr(outcome, "candidates", None) or []:
        try:
            move, verdict = entry
        except (TypeError, ValueError):
            continue
        candidates.append({"move": str(move), "verdict": str(verdict)})
    return {"available": True, "result": result, "candidates": candidates}


def next_winnable(rules: Rules, start: int, seconds: float) -> int | None:
    """The first deal number from ``start`` on that the solver proves
    winnable, or None when the solver is not installed."""
    find = _solver_function("terrace.solver.winnable", "next_winnable_deal")
    if find is None:
        return None
    return int(find(rules, start, max_seconds=seconds))


def heuristic_hint(board: Board) -> dict[str, Any]:
    """The greedy player's rule-of-thumb move (see
    :func:`terrace.solver.players.greedy_move`): it sees only what a player
    sees and never returns to a position already seen in the game."""
    from terrace.solver.observation import observe
    from terrace.solver.players import greedy_move

    move = greedy_move(observe(board))
    return {"move": None if move is None else str(move), "kind": "heuristic", "line": []}
