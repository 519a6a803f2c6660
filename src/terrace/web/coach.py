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

import asyncio
import copy
import time
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, overload

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from terrace.board import Board, Status
from terrace.refusals import Reason, Refusal
from terrace.solver.api import UNKNOWN
from terrace.solver.budget import check_budget
from terrace.solver.coach import Analysis, chances_and_pick, warn_check
from terrace.solver.history import LOOKBACK
from terrace.solver.observation import Event
from terrace.web.coach_job import LEAST_SECONDS, coach_job
from terrace.web.endpoints import SEEN_FIELDS, WebGame, fair_seed, for_solver, game_events, in_play, within
from terrace.web.i18n import WebRefusal
from terrace.web.replies import ApiError, check_after, json_response, may_change, only_fields, read_body
from terrace.web.view import finished


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

    def __post_init__(self) -> None:
        # (checked here, as the hint's time is: a NaN, infinite or negative
        # budget answered each request of its kind 500 server-error)
        for name in ("analysis", "chances", "warn"):
            check_budget(getattr(self, name), f"the coach's {name} budget")


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
        body = await read_body(request)
        only_fields(body, SEEN_FIELDS)
        check_after(body, game)  # (not may_change: a game given up is analysed too)
        board = game.board()
        if not finished(game, board.status):
            raise ApiError(WebRefusal.COACH_NOT_OVER)
        start = Board(game.rules, game.deal)
        moves = list(board.move_stack)  # (read already: no move parsed again)
        # the hints' seed: the fair player's move at the loss is the hint shown there
        # (the log read for at most a share of the budget: 100,000 entries took a second on a
        # busy machine; without it the fair player knows what an imported game's would)
        read_until = until - self.budgets.analysis * (1 - LOG_SHARE)
        events = await within(read_until - time.monotonic(),
                              lambda: PackedEvents(game_events(self.web.store, game.id)), self.web.threads)
        seconds = max(until - time.monotonic(), LEAST_SECONDS)
        # the hint's budget too: the fair player thinks as long as the hint it names did;
        # the job's own clock starts at the request's deadline, not when it got its work
        # (sending a long game and its log to the worker took 0.2 s at 100,000 moves)
        analyse = partial(coach_job, events=events, fair_seconds=self.web.hint_seconds, until=until)
        job = self.web.in_solver(request, analyse, start, moves, seconds, fair_seed(game.id), budget=seconds)
        try:
            # (the answer comes at the deadline, the job's or not: a worker still starting, or
            # one slow to read a long game, made the request run over its budget by its delay)
            report = await asyncio.wait_for(job, max(until - time.monotonic(), 0))
        except TimeoutError:
            report = Analysis(UNKNOWN, len(moves), -1, len(moves) + 1,
                              seconds=self.budgets.analysis).to_dict()
        await self.web.still_seen(body, game)  # (another tab took a move back: the game analysed is gone)
        reopenable = (game.given_up_at is None and game.won_at is None  # (a win is final)
                      and board.status is Status.LOST and board.can_undo)
        if reopenable:
            reopenable = await self.web.assisted(game.id)
        return json_response({**report, "assist": reopenable, "assisted": game.assisted or reopenable})

    async def chances(self, request: Request) -> Response:
        """Each base card's wins across sampled stock orders (no peeking, so
        not an assist)."""
        game = await self.web.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, SEEN_FIELDS)
        may_change(body, game)
        board = game.board()
        if not board.choosing:
            raise ApiError(Reason(Refusal.NO_CHOICE if not game.rules.candidates else Refusal.BASE_CHOSEN))
        seconds = self.budgets.chances
        # the hints' seed: the hint at the choice is a card these chances show winning most
        same = ("chances", game.id, game.revision)  # (another tab's at once: one search, a copy each)
        found = await self.web.in_solver_once(same, request, chances_and_pick, for_solver(board),
                                              fair_seed(game.id), budget=seconds, timed=True)
        await self.web.still_seen(body, game)
        report, pick = copy.deepcopy(found)
        if pick is not None and all(c["tried"] == report["samples"] for c in report["candidates"]):
            self.web.picks.put(game.id, (board.position(), pick))  # (the hint at the choice agrees)
        cards = board.to_dict()["candidates"]
        for candidate in report["candidates"]:
            candidate["card"] = cards[int(candidate["move"][1:]) - 1]
        return json_response(report)

    async def warn(self, request: Request) -> Response:
        """Would this move lose a won game? Marks the game assisted once the
        check has run (whatever it says); a refused check changes nothing."""
        game, board, move, body = await self.web.requested_move(request, LOOKBACK)  # (what the solver reads)
        seconds = self.budgets.warn
        same = ("warn", game.id, game.revision, str(move))
        report = await self.web.in_solver_once(same, request, warn_check, for_solver(board), move,
                                               budget=seconds, timed=True)
        await self.web.still_seen(body, game)
        # the answer is the assist, whatever it says (not after a win: it is final)
        playing = in_play(game)
        if playing:
            playing = await self.web.assisted(game.id)
        return json_response({"move": str(move), **report, "assisted": game.assisted or playing})


_NO_MOVE = "\x01"
"""How a log entry without a move is packed (a move's notation never holds it)."""


class PackedEvents(Sequence[Event]):
    """A game's event log as a coach job gets it: one text of its actions,
    one of its moves and an array of its counts, which a worker process
    reads back at once (a list of 100,000 tuples took 0.3 s to pickle and
    0.15 s to read back, from the coach's budget); it unpacks them into
    the tuples when first read there. A log that does not pack (a count
    that is not a whole number, a text with a NUL: an event edited by
    hand) is kept as it is.

    >>> log = PackedEvents([("create", None, 0), ("move", "s", 1)])
    >>> import pickle
    >>> list(pickle.loads(pickle.dumps(log))), log[1:], len(log)
    ([('create', None, 0), ('move', 's', 1)], [('move', 's', 1)], 2)
    """

    def __init__(self, events: Sequence[Event]) -> None:
        self._rows: list[Event] | None = None
        self._packed: tuple[str, str, array[int]] | None = None
        try:
            self._packed = ("\0".join(action for action, _, _ in events),
                            "\0".join(_NO_MOVE if move is None else move for _, move, _ in events),
                            array("q", [count for _, _, count in events]))
            self._length = len(events)
            if events and any(text.count("\0") != len(events) - 1 for text in self._packed[:2]):
                raise TypeError("a text holds the separator")  # (an event edited by hand)
        except (TypeError, OverflowError):
            self._packed = None
            self._rows, self._length = list(events), len(events)

    def __getstate__(self) -> dict[str, Any]:
        return {"packed": self._packed, "rows": None if self._packed is not None else self._rows,
                "length": self._length}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._packed, self._rows, self._length = state["packed"], state["rows"], state["length"]

    def _unpacked(self) -> list[Event]:
        if self._rows is None:
            assert self._packed is not None
            actions, moves, counts = self._packed
            self._rows = [] if not self._length else [
                (action, None if move == _NO_MOVE else move, count)
                for action, move, count in zip(actions.split("\0"), moves.split("\0"), counts, strict=True)
            ]
        return self._rows

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        return self._unpacked()[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._unpacked())


LOG_SHARE = 0.5
"""The most of the coach's budget spent reading the game's event log."""
def coach_routes(web: WebGame, budgets: CoachBudgets | None = None) -> list[Route]:
    """The coach's routes for :func:`terrace.web.app.create_app`."""
    endpoints = CoachEndpoints(web, budgets or CoachBudgets())
    gid = "/api/games/{game_id}"
    return [
        Route(gid + "/coach", endpoints.analyse, methods=["POST"]),
        Route(gid + "/chances", endpoints.chances, methods=["POST"]),
        Route(gid + "/warn", endpoints.warn, methods=["POST"]),
    ]
