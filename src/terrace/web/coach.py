"""The coach's endpoints (see docs/api.md): the analysis of a finished game,
the fair chances of each base card, and the warning before a move that
loses a won game. Solver work runs in the solver pool
(:mod:`terrace.web.workers`) within a budget per request and stops when the
client goes away; :func:`coach_routes` gives the routes to
:func:`terrace.web.app.create_app`.

>>> from starlette.testclient import TestClient
>>> from terrace.web.app import create_app
>>> client = TestClient(create_app(), base_url="http://localhost")
>>> game = client.post("/api/games", json={"variant": "terrace", "deal_number": 7}).json()
>>> response = client.post(f"/api/games/{game['id']}/coach", json={})
>>> response.status_code, response.json()["code"]
(409, 'coach-not-over')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from terrace.board import Board, Status
from terrace.moves import Move
from terrace.refusals import Reason, Refusal
from terrace.solver.coach import chances_and_pick, find_loss, warn_check
from terrace.solver.observation import Event
from terrace.web.endpoints import WebGame, fair_seed, for_solver, game_events, in_play, remember
from terrace.web.i18n import WebRefusal
from terrace.web.replies import ApiError, json_response, may_change, only_fields, read_body
from terrace.web.view import describe_move, finished


@dataclass(frozen=True, slots=True)
class CoachBudgets:
    """Seconds of solver work per request of each kind."""

    analysis: float = 20.0
    """The whole analysis of a game (bisection and the fair player)."""
    chances: float = 10.0
    """The fair player's sampling of the base-card candidates."""
    warn: float = 1.0
    """Both searches of one warning check: short, since the page waits for
    it before every move while the assist is on."""


class CoachEndpoints:
    """The coach's endpoints, bound to the web game."""

    def __init__(self, web: WebGame, budgets: CoachBudgets) -> None:
        self.web = web
        self.budgets = budgets

    async def analyse(self, request: Request) -> Response:
        """Where a finished game was lost, and the fair player's choice
        there. A game stuck with no move left can still be taken back and
        played on, so there the analysis (which saw the face-down stock) is
        an assist and marks the game; a game won or given up is over for
        good."""
        # (the whole request within the budget: reading the game and its
        # log, sending it to the solver and describing its answer too)
        until = time.monotonic() + self.budgets.analysis
        game = await self.web.load(request.path_params["game_id"])
        only_fields(await read_body(request), set())
        board = game.board()
        if not finished(game, board.status):
            raise ApiError(WebRefusal.COACH_NOT_OVER)
        start = Board(game.rules, game.deal)
        moves = list(board.move_stack)  # (read already: no move parsed again)
        # the hints' seed: the fair player's move at the loss is the hint shown there
        events = await run_in_threadpool(game_events, self.web.store, game.id)
        seconds = max(until - time.monotonic(), self.budgets.analysis * LEAST_SHARE)
        # the hint's budget too: the fair player thinks as long as the hint it names did
        analyse = partial(coach_job, events=events, fair_seconds=self.web.hint_seconds)
        report = await self.web.in_solver(request, analyse, start, moves, seconds, fair_seed(game.id),
                                          budget=seconds)
        reopenable = (game.given_up_at is None and game.won_at is None  # (a win is final)
                      and board.status is Status.LOST and board.can_undo)
        if reopenable:
            await run_in_threadpool(self.web.store.mark_assisted, game.id)
        return json_response({**report, "assist": reopenable, "assisted": game.assisted or reopenable})

    async def chances(self, request: Request) -> Response:
        """Each base card's wins across sampled stock orders (no peeking, so
        not an assist)."""
        game = await self.web.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, {"after", "revision"})
        may_change(body, game)
        board = game.board()
        if not board.choosing:
            raise ApiError(Reason(Refusal.NO_CHOICE if not game.rules.candidates else Refusal.BASE_CHOSEN))
        seconds = self.budgets.chances
        # the hints' seed: the hint at the choice is a card these chances show winning most
        report, pick = await self.web.in_solver(request, chances_and_pick, for_solver(board),
                                                fair_seed(game.id), seconds, budget=seconds)
        if pick is not None and all(c["tried"] == report["samples"] for c in report["candidates"]):
            remember(self.web.picks, game.id, (board.position(), pick))  # (the hint at the choice agrees)
        cards = board.to_dict()["candidates"]
        for candidate in report["candidates"]:
            candidate["card"] = cards[int(candidate["move"][1:]) - 1]
        return json_response(report)

    async def warn(self, request: Request) -> Response:
        """Would this move lose a won game? Marks the game assisted once the
        check has run (whatever it says); a refused check changes nothing."""
        game, board, move = await self.web.requested_move(request)
        seconds = self.budgets.warn
        report = await self.web.in_solver(request, warn_check, for_solver(board), move, seconds,
                                          budget=seconds)
        # the answer is the assist, whatever it says (not after a win: it is final)
        playing = in_play(game)
        if playing:
            await run_in_threadpool(self.web.store.mark_assisted, game.id)
        return json_response({"move": str(move), **report, "assisted": game.assisted or playing})


LEAST_SHARE = 0.05
"""The share of the coach's budget its solver job gets however long the
game took to read (a solver job needs a budget; the game is read first)."""


def coach_job(start: Board, moves: Sequence[Move], seconds: float, seed: int = 0,
              cancel: Callable[[], bool] | None = None, events: Sequence[Event] | None = None,
              fair_seconds: float | None = None) -> dict[str, Any]:
    """The coach's analysis (:func:`terrace.solver.coach.find_loss`) as the
    page gets it, a job for the solver pool: ``seed`` and ``fair_seconds``
    are the fair player's (the game's hints'), ``events`` the game's log.
    The moves it names are described on the positions the analysis kept,
    within the job: replaying the game from the deal for them took 0.2 s
    and more at 100,000 moves, after the budget."""
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


def coach_routes(web: WebGame, budgets: CoachBudgets | None = None) -> list[Route]:
    """The coach's routes for :func:`terrace.web.app.create_app`."""
    endpoints = CoachEndpoints(web, budgets or CoachBudgets())
    gid = "/api/games/{game_id}"
    return [
        Route(gid + "/coach", endpoints.analyse, methods=["POST"]),
        Route(gid + "/chances", endpoints.chances, methods=["POST"]),
        Route(gid + "/warn", endpoints.warn, methods=["POST"]),
    ]
