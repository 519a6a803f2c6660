"""The coach's analysis of a whole game as a job for the solver pool
(:mod:`terrace.web.workers`): its own module, apart from the coach's
endpoints (:mod:`terrace.web.coach`), so that a worker process loads the
solver and not the web server (Starlette, the store) to run it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from terrace.board import Board
from terrace.moves import Move
from terrace.solver.coach import find_loss
from terrace.solver.observation import Event
from terrace.web.view import describe_move

LEAST_SECONDS = 0.001
"""The budget of a solver job whose request's time is all spent (reading a
long game and its log): it answers "unknown" at once (a job needs a
budget)."""
REPLY_SECONDS = 0.05
"""What a coach job keeps of its request's time for describing its answer
and sending it back."""


def coach_job(start: Board, moves: Sequence[Move], seconds: float, seed: int = 0,
              cancel: Callable[[], bool] | None = None, events: Sequence[Event] | None = None,
              fair_seconds: float | None = None, until: float | None = None) -> dict[str, Any]:
    """The coach's analysis (:func:`terrace.solver.coach.find_loss`) as the
    page gets it, a job for the solver pool: ``seed`` and ``fair_seconds``
    are the fair player's (the game's hints'), ``events`` the game's log.
    With ``until`` (the request's deadline, a :func:`time.monotonic`
    instant, a clock every process of the computer shares) the analysis
    gets at most the time left then, less :data:`REPLY_SECONDS`: the time
    the job's work took to reach the worker is the request's too. The
    moves it names are described on the positions the analysis kept,
    within the job: replaying the game from the deal for them took 0.2 s
    and more at 100,000 moves, after the budget."""
    if until is not None:
        seconds = max(min(seconds, until - time.monotonic() - REPLY_SECONDS), LEAST_SECONDS)
    analysis = find_loss(start, moves, seconds=seconds, seed=seed, cancel=cancel, events=events,
                         fair_seconds=fair_seconds)
    report = analysis.to_dict()
    assert analysis.board is not None  # (find_loss always gives it)
    _describe(report, analysis.board)
    return report


def _describe(report: dict[str, Any], board_at: Callable[[int], Board]) -> None:
    """Add the piles of the moves the analysis names, as the page marks them
    (``board_at``: the position after a number of moves)."""
    dead = report["terrace_dead"]
    if report["terrace_dead_move"] is not None:
        report["terrace_dead_piles"] = describe_move(board_at(dead - 1), report["terrace_dead_move"])
    step = report["low"]
    if report["outcome"] not in ("lost-at", "winnable") or step < 0:
        return
    board = board_at(step)
    for key in ("move", "winning"):
        if report[key] is not None:
            report[f"{key}_piles"] = describe_move(board, report[key])
    fair = report["fair"]
    if fair is not None and fair["move"] is not None:
        fair["piles"] = describe_move(board, fair["move"])
