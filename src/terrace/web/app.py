"""The web game's server: a JSON API over the engine and the game store,
and the static page. See ``docs/api.md`` for every endpoint.

>>> from starlette.testclient import TestClient
>>> client = TestClient(create_app(), base_url="http://localhost")
>>> client.post("/api/games", json={"variant": "terrace", "deal_number": 7}).status_code
201
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from terrace.board import Board
from terrace.deal import Deal, check_number
from terrace.errors import TerraceError
from terrace.guide import descriptions, rules_guide
from terrace.moves import Move
from terrace.refusals import Param, Reason, clip
from terrace.rules import RULE_OPTIONS, Rules
from terrace.solver.hint_line import KeptLine
from terrace.solver.winnable import NoWinnableDealError
from terrace.storage import (
    GAME_ID,
    ConflictError,
    DamagedGameError,
    GameStore,
    GivenUpError,
    MemoryStore,
    StoredGame,
    StoreError,
    StoreWriteError,
    UnknownGameError,
)
from terrace.variants import VARIANTS, canonical_name, get_rules, get_variant, preset_name
from terrace.web import hints
from terrace.web.endgame import AUTOPLAY_MODES, ReportClock, autoplay
from terrace.web.i18n import WebRefusal, pick_language, refusal_json
from terrace.web.numbers import whole_number
from terrace.web.security import MAX_BODY, SecurityMiddleware
from terrace.web.view import describe_move, game_json, game_summary, motions
from terrace.web.why import explain
from terrace.web.workers import PoolBusy, SolverPool, WorkFailed, WorkStopped

if TYPE_CHECKING:
    from terrace.web.coach import CoachBudgets

STATIC = Path(__file__).parent / "static"
MAX_MOVE_TEXT = 16
MAX_RECENT = 200
RANDOM_DEALS = 1_000_000_000
BODY_SECONDS = 10.0
"""How long a request body may take to arrive."""
WINNABLE_DEAL_SECONDS = 5.0
"""The solver's budget per deal while looking for a winnable one."""
RETRY_AFTER = 5
MAX_KEPT_LINES = 1024
"""Games whose last winning line the server remembers for their hints."""
T = TypeVar("T")
OPTION_LIMITS: dict[str, dict[str, Any]] = {name: option.to_json() for name, option in RULE_OPTIONS.items()}
"""The rule options as ``/api/variants`` publishes them: the limits the
rules really apply (see :meth:`terrace.rules.RuleOption.to_json`)."""


class ApiError(Exception):
    """A refused request: a web refusal code with its parameters, or a
    reason the engine gave, and any extra response headers."""

    def __init__(self, code: StrEnum | Reason, headers: dict[str, str] | None = None,
                 **params: Param) -> None:
        self.reason = code if isinstance(code, Reason) else Reason(code, **params)
        self.headers = headers or {}
        super().__init__(str(self.reason))


_RETRY = {"retry-after": str(RETRY_AFTER)}


class WebGame:
    """The endpoints, bound to one store and the server's settings."""

    def __init__(
        self,
        store: GameStore,
        *,
        default_variant: str = "terrace",
        default_rules: Rules | None = None,
        hint_seconds: float = 2.0,
        winnable_seconds: float = 10.0,
        pool: SolverPool | None = None,
    ) -> None:
        self.store = store
        self.default_variant = canonical_name(default_variant)
        self.default_rules = default_rules or get_rules(self.default_variant)
        self.hint_seconds = hint_seconds
        self.winnable_seconds = winnable_seconds
        self.pool = pool or SolverPool()
        self.clock = ReportClock()
        self.lines: OrderedDict[str, KeptLine] = OrderedDict()
        """The winning line of each game's last peeking hint (most recent last)."""

    # -- helpers --------------------------------------------------------

    def load(self, game_id: str) -> StoredGame:
        if not GAME_ID.fullmatch(game_id):
            raise ApiError(WebRefusal.GAME_UNKNOWN, game=clip(game_id))
        game = self.store.get(game_id)
        self.clock.seen(game.id)
        return game

    def save(self, game: StoredGame, board: Board, action: str) -> None:
        revision = game.revision
        game.sync(board)
        self.store.update(game, expected_revision=revision, action=action)

    async def in_solver(self, request: Request, func: Callable[..., T], *args: Any, budget: float) -> T:
        """``func(*args)`` in the solver pool; stopped when the client goes away."""
        try:
            return await self.pool.run(func, *args, budget=budget, gone=request.is_disconnected)
        except PoolBusy:
            raise ApiError(WebRefusal.SOLVER_BUSY, _RETRY) from None
        except (WorkStopped, WorkFailed) as error:
            raise ApiError(WebRefusal.SOLVER_STOPPED, _RETRY, problem=str(error)) from None

    # -- endpoints ------------------------------------------------------

    async def variants(self, request: Request) -> Response:
        presets = [
            {
                "name": variant.name,
                "title": variant.title,
                "rules": variant.rules.to_dict(),
                "description": variant.description,
                "descriptions": descriptions(variant),
                "summary": variant.rules.describe(),
                "aliases": sorted(variant.alias_names),
                "other_names": list(variant.aliases),
            }
            for variant in VARIANTS
        ]
        return _json({
            "variants": presets,
            "options": OPTION_LIMITS,
            "default": {"variant": self.default_variant, "options": self.default_rules.to_dict()},
            "solver": True,
        })

    async def create(self, request: Request) -> Response:
        body = await _body(request)
        _only(body, {"variant", "options", "deal_number", "winnable"})
        variant = body.get("variant", None)
        options = body.get("options", None)
        if variant is None and options is None:
            variant_name, rules = self.default_variant, self.default_rules
        else:
            if variant is None:
                variant = self.default_variant
            if not isinstance(variant, str) or len(variant) > 64:
                raise ApiError(WebRefusal.VARIANT_NOT_NAME)
            variant_name = canonical_name(variant)
            rules = Rules.from_dict({} if options is None else options, get_rules(variant_name))
        winnable = body.get("winnable", False)
        if not isinstance(winnable, bool):
            raise ApiError(WebRefusal.WINNABLE_NOT_BOOL)
        number = body.get("deal_number", None)
        if number is not None:
            check_number(number)
        if number is None:
            number = 1 + secrets.randbelow(RANDOM_DEALS)
        if winnable:
            number = await self.winnable(request, rules, number)
        deal = Deal.from_number(number, rules)
        game = self.store.create(variant_name, rules, deal, winnable_only=winnable)
        self.clock.seen(game.id)
        board = game.board()
        game.status = board.status.value
        data = game_json(game, board, motions=[])
        data["preset"] = preset_name(rules)
        return _json(data, status=201)

    async def winnable(self, request: Request, rules: Rules, start: int) -> int:
        """The first deal from ``start`` on that the solver proves won,
        within the server's total budget for one request."""
        total = self.winnable_seconds
        try:
            return await self.in_solver(request, hints.next_winnable, rules, start,
                                        min(WINNABLE_DEAL_SECONDS, total), total,
                                        str(self.store.verdicts_path), budget=total)
        except NoWinnableDealError:
            raise ApiError(WebRefusal.NO_WINNABLE_DEAL, _RETRY, seconds=f"{total:g}") from None

    async def current(self, request: Request) -> Response:
        game = self.store.latest_unfinished()
        if game is None:
            return Response(status_code=204)
        self.clock.seen(game.id)
        return _json(game_json(game, game.board()))

    async def recent(self, request: Request) -> Response:
        count = whole_number(request.query_params.get("recent", "20"))
        if count is None or not 1 <= count <= MAX_RECENT:
            raise ApiError(WebRefusal.RECENT_RANGE, low=1, high=MAX_RECENT)
        return _json({"games": [game_summary(g) for g in self.store.recent(count)]})

    async def get(self, request: Request) -> Response:
        game = self.load(request.path_params["game_id"])
        return _json(game_json(game, game.board()))

    async def position(self, request: Request) -> Response:
        """The position after the first ``step`` moves (for replays)."""
        game = self.load(request.path_params["game_id"])
        step = whole_number(request.query_params.get("step", ""))
        if step is None or step > len(game.moves):
            raise ApiError(WebRefusal.STEP_RANGE, last=len(game.moves))
        board = Board(game.rules, game.deal)
        for move in game.moves[: max(step - 1, 0)]:
            board.push(Move.parse(move))
        before = board.to_dict()
        last = None
        if step:
            last = game.moves[step - 1]
            source = describe_move(board, last)["source"]
            board.push(Move.parse(last))
        data = game_json(game, board)
        data.update(
            step=step, steps=len(game.moves), replay=True, last_move=last,
            motions=motions(before, board.to_dict(), source if step else None),
            sources={}, draw=None, choices=[], legal_moves=[],
        )
        return _json(data)

    async def requested_move(self, request: Request) -> tuple[StoredGame, Board, Move]:
        """The game, its board and the move of a request ``{"move", "after"}``,
        refused unless the move can be played now."""
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"move", "after"})
        text = body.get("move")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
            raise ApiError(WebRefusal.MOVE_NOT_NOTATION)
        _may_change(body, game)
        board = game.board()
        move = Move.parse(text)
        reason = board.refusal(move)
        if reason is not None:
            raise ApiError(reason)
        return game, board, move

    async def move(self, request: Request) -> Response:
        game, board, move = await self.requested_move(request)
        before = board.to_dict()
        source = describe_move(board, str(move))["source"]
        board.push(move)
        self.save(game, board, "move")
        return _json(_moved(game_json(game, board, last_move=str(move)), before, source))

    async def check(self, request: Request) -> Response:
        """Would this move be legal? 200 with the reason when it is not."""
        game = self.load(request.path_params["game_id"])
        text = request.query_params.get("move", "")
        if not text or len(text) > MAX_MOVE_TEXT:
            raise ApiError(WebRefusal.MOVE_NOT_NOTATION)
        try:
            move = Move.parse(text)
        except TerraceError as error:
            reason: Reason | None = _reason(request, error)
        else:
            text, reason = str(move), game.board().refusal(move)
        if reason is None:
            return _json({"move": text, "legal": True, "reason": None, "code": None})
        return _json({"move": text, "legal": False, **_refusal_json(request, reason, "reason")})

    async def undo(self, request: Request) -> Response:
        return await self._step(request, "undo")

    async def redo(self, request: Request) -> Response:
        return await self._step(request, "redo")

    async def _step(self, request: Request, action: str) -> Response:
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after"})
        _may_change(body, game)
        board = game.board()
        before = board.to_dict()
        if action == "undo":
            if not board.can_undo:
                raise ApiError(WebRefusal.NOTHING_TO_UNDO)
            board.pop()
            game.undos += 1
            source = None
        else:
            if not board.can_redo:
                raise ApiError(WebRefusal.NOTHING_TO_REDO)
            source = describe_move(board, str(board.redo_stack[-1]))["source"]
            board.redo()
        self.save(game, board, action)
        return _json(_moved(game_json(game, board), before, source))

    async def restart(self, request: Request) -> Response:
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after"})
        _may_change(body, game)
        # Like undoing every move: the whole line stays redoable.
        revision = game.revision
        game.moves, game.redo = [], [*game.redo, *reversed(game.moves)]
        board = game.board()
        game.status = board.status.value
        self.store.update(game, expected_revision=revision, action="restart")
        return _json(game_json(game, board))

    async def hint(self, request: Request) -> Response:
        """Suggest a move (fair unless the body says ``"peek": true``) and
        count it as a hint, once per position (so: POST). A peeking hint
        marks the game as assisted."""
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after", "peek"})
        peek = body.get("peek", False)
        if not isinstance(peek, bool):
            raise ApiError(WebRefusal.PEEK_NOT_FLAG)
        _check_after(body, game)
        board = game.board()
        kept = self.lines.get(game.id) if peek else None
        found = await self.in_solver(request, hints.find_hint, board, self.hint_seconds, peek, kept,
                                     _seed(game.id), budget=self.hint_seconds)
        line = found.pop("kept")
        if line is not None:
            self.lines[game.id] = line
            self.lines.move_to_end(game.id)
            while len(self.lines) > MAX_KEPT_LINES:
                self.lines.popitem(last=False)
        if peek and _in_play(game):
            self.store.mark_assisted(game.id)
        found["counted"] = False
        if found["move"] is not None:
            found.update(describe_move(board, found["move"]))
            found["counted"] = self.store.count_hint(game.id, board.position())
        return _json(found)

    async def analysis(self, request: Request) -> Response:
        """The solver's verdicts; while the game is being played, looking
        at them is an assist (the game is marked as assisted)."""
        game = self.load(request.path_params["game_id"])
        result = await self.in_solver(request, hints.analyse, game.board(), self.hint_seconds,
                                      budget=self.hint_seconds)
        if _in_play(game):
            self.store.mark_assisted(game.id)
        return _json(result)

    async def stats(self, request: Request) -> Response:
        return _json(self.store.statistics())

    # -- ending a game ----------------------------------------------------

    async def autoplay(self, request: Request) -> Response:
        """Play every move that cannot hurt (``mode`` ``safe``) and a
        certain finish; stored as ordinary moves, in one change."""
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after", "mode"})
        mode = body.get("mode", AUTOPLAY_MODES[0])
        if not isinstance(mode, str) or mode not in AUTOPLAY_MODES:
            raise ApiError(WebRefusal.AUTOPLAY_MODE, choices=AUTOPLAY_MODES)
        _may_change(body, game)
        board = game.board()
        played, travelled = await run_in_threadpool(autoplay, board, mode)
        if played:
            self.save(game, board, "move")
        return _json(game_json(game, board, motions=travelled, autoplayed=played,
                               last_move=played[-1] if played else None))

    async def give_up(self, request: Request) -> Response:
        """End the game as lost, for good (it can still be replayed)."""
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after"})
        _may_change(body, game)
        if game.won_at is not None or game.status == "won":
            raise ApiError(WebRefusal.GIVE_UP_WON)
        if game.started_at is None:
            raise ApiError(WebRefusal.GIVE_UP_UNPLAYED)
        board = game.board()
        game.given_up_at = time.time()
        self.store.update(game, expected_revision=game.revision, action="give-up")
        return _json(game_json(game, board))

    async def active_time(self, request: Request) -> Response:
        """Add active playing time as the page measured it: never more than
        the wall time since the game's last report."""
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"ms"})
        ms = body.get("ms")
        if isinstance(ms, bool) or not isinstance(ms, int) or ms < 0:
            raise ApiError(WebRefusal.TIME_NOT_COUNT)
        _playable(game)
        most = self.clock.allowance(game.id)
        if ms > most:
            raise ApiError(WebRefusal.TIME_TOO_MUCH, ms=ms, most=most)
        total = self.store.add_active_time(game.id, ms)
        self.clock.reported(game.id)
        return _json({"id": game.id, "active_ms": total})

    # -- what the page explains: a pressed card, the rules -----------------

    async def why(self, request: Request) -> Response:
        """Why the card a player pressed cannot move (``reason`` null when it can)."""
        game = self.load(request.path_params["game_id"])
        pile = request.query_params.get("pile", "")[:MAX_MOVE_TEXT]
        raw = request.query_params.get("index")
        index = None if raw is None else whole_number(raw)
        if raw is not None and index is None:
            index = -1  # refused by explain() with the pile's range
        board = game.board()
        reason = explain(board, pile, index)
        body: dict[str, Any] = {"pile": pile, "index": index, "movable": reason is None}
        if reason is None:
            return _json({**body, "reason": None, "code": None})
        return _json({**body, **_refusal_json(request, reason, "reason")})

    async def rules(self, request: Request) -> Response:
        """The rules of a variant (``?variant=``, the default one without) for people."""
        name = request.query_params.get("variant", self.default_variant)
        variant = get_variant(name[:64])
        language = pick_language(request.headers.get("accept-language"))
        return _json(rules_guide(variant.rules, variant, language))

    async def game_rules(self, request: Request) -> Response:
        """The rules one game is played by, for people."""
        game = self.load(request.path_params["game_id"])
        language = pick_language(request.headers.get("accept-language"))
        return _json(rules_guide(game.rules, get_variant(game.variant), language))


def _moved(data: dict[str, Any], before: dict[str, Any], source: str | None) -> dict[str, Any]:
    """``data`` (a game's JSON) with the cards that travelled since ``before``."""
    data["motions"] = motions(before, data["state"], source)
    return data


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"cache-control": "no-store"})


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object (empty when there is no body). Every POST
    must say ``Content-Type: application/json``, even with an empty body:
    a plain HTML form on another site cannot."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError(WebRefusal.BODY_NOT_JSON_TYPE)
    chunks = []
    size = 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    raise ApiError(WebRefusal.BODY_TOO_LARGE, most=MAX_BODY)
                chunks.append(chunk)
    except TimeoutError:
        raise ApiError(WebRefusal.BODY_TOO_SLOW, seconds=f"{BODY_SECONDS:g}") from None
    except ClientDisconnect:
        raise ApiError(WebRefusal.CLIENT_GONE) from None
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(WebRefusal.BODY_NOT_JSON) from None
    if not isinstance(data, dict):
        raise ApiError(WebRefusal.BODY_NOT_OBJECT)
    return data


def _in_play(game: StoredGame) -> bool:
    """True while the game is being played (an assist used now counts)."""
    return game.status in ("choosing", "playing") and game.given_up_at is None


def _seed(game_id: str) -> int:
    """The fair hints' seed for a game: the same position, the same samples."""
    return int.from_bytes(hashlib.sha256(game_id.encode()).digest()[:4], "big")


def _only(body: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ApiError(WebRefusal.FIELD_UNKNOWN, field=clip(unknown[0]), expected=tuple(sorted(allowed)))


def _playable(game: StoredGame) -> None:
    """Refuse to change a game that was given up."""
    if game.given_up_at is not None:
        raise ApiError(WebRefusal.GAME_GIVEN_UP)


def _may_change(body: dict[str, Any], game: StoredGame) -> None:
    """Refuse a change asked for on an older view of the game, or to a game
    that was given up."""
    _check_after(body, game)
    _playable(game)


def _check_after(body: dict[str, Any], game: StoredGame) -> None:
    """Refuse a request made on an older view of the game (another tab)."""
    if "after" not in body:
        return
    after = body["after"]
    if isinstance(after, bool) or not isinstance(after, int) or after < 0:
        raise ApiError(WebRefusal.AFTER_NOT_COUNT)
    if after != len(game.moves):
        raise ApiError(WebRefusal.CONFLICT)


# -- refusals: every exception becomes a status and a reason here, nowhere else

_HTTP_REFUSALS = {404: WebRefusal.NOT_FOUND, 405: WebRefusal.METHOD_NOT_ALLOWED}


def _reason(request: Request, exc: Exception) -> Reason:
    """The reason an exception refuses the request (its status comes with
    the reason's code)."""
    if isinstance(exc, ApiError):
        return exc.reason
    if isinstance(exc, UnknownGameError):
        return Reason(WebRefusal.GAME_UNKNOWN, game=clip(str(request.path_params.get("game_id", ""))))
    if isinstance(exc, ConflictError):
        return Reason(WebRefusal.CONFLICT)
    if isinstance(exc, GivenUpError):
        return Reason(WebRefusal.GAME_GIVEN_UP)
    if isinstance(exc, StoreWriteError):
        code = WebRefusal.NOT_SAVED_DISK_FULL if exc.fault == "full" else WebRefusal.NOT_SAVED
        return Reason(code, problem=str(exc))
    if isinstance(exc, DamagedGameError):
        return Reason(WebRefusal.GAME_DAMAGED, problem=str(exc))
    if isinstance(exc, StoreError) and exc.reason is None:
        return Reason(WebRefusal.STORE_UNAVAILABLE, problem=str(exc))
    if isinstance(exc, TerraceError):
        return exc.reason or Reason(WebRefusal.REFUSED, problem=str(exc))
    return Reason(WebRefusal.SERVER_ERROR)


def _refusal_json(request: Request, reason: Reason, key: str = "error") -> dict[str, Any]:
    """``{key: the reason in the page's language, "code": its code}``."""
    return refusal_json(reason, request.headers.get("accept-language"), key)


async def _refused(request: Request, exc: Exception) -> Response:
    reason = _reason(request, exc)
    response = _json(_refusal_json(request, reason), status=reason.status)
    if isinstance(exc, ApiError):
        response.headers.update(exc.headers)
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _HTTP_REFUSALS.get(exc.status_code)
    if code is None:
        return _json({"error": str(exc.detail), "code": None}, status=exc.status_code)
    return _json(_refusal_json(request, Reason(code)), status=exc.status_code)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _json(_refusal_json(request, Reason(WebRefusal.SERVER_ERROR)), status=500)


def create_app(
    store: GameStore | None = None,
    *,
    default_variant: str = "terrace",
    default_rules: Rules | None = None,
    allowed_hosts: tuple[str, ...] = (),
    hint_seconds: float = 2.0,
    winnable_seconds: float = 10.0,
    pool: SolverPool | None = None,
    token: str | None = None,
    coach: CoachBudgets | None = None,
) -> Starlette:
    """The web game as an ASGI application (a memory store by default).
    Solver work runs in ``pool`` (two processes by default), closed when
    the application's lifespan ends; ``token`` requires it on every request
    (``terrace play --remote``); ``coach`` sets the coach's budgets."""
    from terrace.web.coach import coach_routes

    game = WebGame(
        store if store is not None else MemoryStore(),
        default_variant=default_variant,
        default_rules=default_rules,
        hint_seconds=hint_seconds,
        winnable_seconds=winnable_seconds,
        pool=pool,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        game.pool.close()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon",
                            headers={"cache-control": "max-age=86400"})

    async def favicon_svg(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    gid = "/api/games/{game_id}"
    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/favicon.svg", favicon_svg),
        Route("/api/variants", game.variants),
        Route("/api/stats", game.stats),
        Route("/api/rules", game.rules),
        Route("/api/games", game.recent, methods=["GET"]),
        Route("/api/games", game.create, methods=["POST"]),
        Route("/api/games/current", game.current),
        Route(gid, game.get),
        Route(gid + "/position", game.position),
        Route(gid + "/check", game.check),
        Route(gid + "/moves", game.move, methods=["POST"]),
        Route(gid + "/undo", game.undo, methods=["POST"]),
        Route(gid + "/redo", game.redo, methods=["POST"]),
        Route(gid + "/restart", game.restart, methods=["POST"]),
        Route(gid + "/hint", game.hint, methods=["POST"]),
        Route(gid + "/analysis", game.analysis),
        Route(gid + "/autoplay", game.autoplay, methods=["POST"]),
        Route(gid + "/give-up", game.give_up, methods=["POST"]),
        Route(gid + "/time", game.active_time, methods=["POST"]),
        Route(gid + "/why", game.why),
        Route(gid + "/rules", game.game_rules),
        *coach_routes(game, coach),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            ApiError: _refused,
            TerraceError: _refused,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )
    app.add_middleware(SecurityMiddleware, allowed_hosts=allowed_hosts, token=token)
    app.state.game = game
    return app
