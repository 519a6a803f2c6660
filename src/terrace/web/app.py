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
import json
import re
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from terrace.board import Board
from terrace.deal import MAX_DEAL_NUMBER, Deal
from terrace.errors import IllegalMoveError, TerraceError
from terrace.moves import Move
from terrace.rules import RULE_FIELDS, Rules
from terrace.solver.winnable import NoWinnableDealError
from terrace.store import ConflictError, GameStore, MemoryStore, StoredGame, UnknownGameError
from terrace.variants import ALIASES, PRESETS, TITLES, canonical_name, get_rules, preset_name
from terrace.web import hints
from terrace.web.i18n import pick_language, translate
from terrace.web.numbers import whole_number
from terrace.web.security import MAX_BODY, SERVER_ERROR, SecurityMiddleware
from terrace.web.view import describe_move, game_json, game_summary, motions
from terrace.web.workers import PoolBusy, SolverPool, WorkFailed, WorkStopped

STATIC = Path(__file__).parent / "static"
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_MOVE_TEXT = 16
RANDOM_DEALS = 1_000_000_000
BODY_SECONDS = 10.0
"""How long a request body may take to arrive."""
WINNABLE_DEAL_SECONDS = 5.0
"""The solver's budget per deal while looking for a winnable one."""
RETRY_AFTER = 5
T = TypeVar("T")
OPTION_LIMITS: dict[str, dict[str, Any]] = {
    "decks": {"type": "int", "min": 1, "max": 8},
    "reserve": {"type": "int", "min": 0, "max": 94},
    "piles": {"type": "int", "min": 1, "max": 20},
    "candidates": {"type": "int", "min": 0, "max": 20},
    "foundations": {"type": "choice", "choices": ["alternate", "suit"]},
    "spaces": {"type": "choice", "choices": ["auto", "free", "waste"]},
    "redeals": {"type": "int", "min": 0, "max": 9},
    "foundation_return": {"type": "bool"},
}


class ApiError(Exception):
    """A refused request: the status code, the reason in English and any
    extra response headers."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


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

    # -- helpers --------------------------------------------------------

    def load(self, game_id: str) -> StoredGame:
        if not GAME_ID.fullmatch(game_id):
            raise ApiError(404, "there is no such game")
        try:
            return self.store.get(game_id)
        except UnknownGameError:
            raise ApiError(404, f"there is no game {game_id!r}") from None

    def save(self, game: StoredGame, board: Board, action: str) -> None:
        revision = game.revision
        game.sync(board)
        try:
            self.store.update(game, expected_revision=revision, action=action)
        except ConflictError:
            raise ApiError(409, "the game changed in another window: reload it") from None

    async def in_solver(self, request: Request, func: Callable[..., T], *args: Any, budget: float) -> T:
        """``func(*args)`` in the solver pool; stopped when the client goes away."""
        try:
            return await self.pool.run(func, *args, budget=budget, gone=request.is_disconnected)
        except PoolBusy:
            raise ApiError(503, "the solver is busy with other requests: try again in a few seconds",
                           {"retry-after": str(RETRY_AFTER)}) from None
        except (WorkStopped, WorkFailed) as error:
            raise ApiError(503, f"{error}: try again", {"retry-after": str(RETRY_AFTER)}) from None

    # -- endpoints ------------------------------------------------------

    async def variants(self, request: Request) -> Response:
        presets = [
            {
                "name": name,
                "title": TITLES[name],
                "rules": rules.to_dict(),
                "description": rules.describe(),
                "aliases": sorted(a for a, target in ALIASES.items() if target == name),
            }
            for name, rules in PRESETS.items()
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
                raise ApiError(400, "variant must be the name of a variant, e.g. \"terrace\"")
            if options is None:
                options = {}
            if not isinstance(options, dict):
                raise ApiError(400, "options must be a JSON object of rule options")
            unknown = sorted(set(options) - set(RULE_FIELDS))
            if unknown:
                raise ApiError(400, f"unknown rule option {unknown[0]!r}; known: {', '.join(RULE_FIELDS)}")
            try:
                variant_name = canonical_name(variant)
                rules = get_rules(variant_name).replace(**options)
            except TerraceError as error:
                raise ApiError(400, str(error)) from None
        winnable = body.get("winnable", False)
        if not isinstance(winnable, bool):
            raise ApiError(400, "winnable must be true or false")
        number = body.get("deal_number", None)
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
            raise ApiError(400, "deal_number must be a whole number")
        if number is not None and not 0 <= number <= MAX_DEAL_NUMBER:
            raise ApiError(400, f"deal numbers run from 0 to {MAX_DEAL_NUMBER}")
        if number is None:
            number = 1 + secrets.randbelow(RANDOM_DEALS)
        if winnable:
            number = await self.winnable(request, rules, number)
        try:
            deal = Deal.from_number(number, rules)
            game = self.store.create(variant_name, rules, deal, winnable_only=winnable)
        except TerraceError as error:
            raise ApiError(400, str(error)) from None
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
                                    min(WINNABLE_DEAL_SECONDS, total), total, budget=total)
        except NoWinnableDealError:
            raise ApiError(503, f"no deal was proved winnable within {total:g} s for these rules: "
                                "try again, or other rules, or without \"winnable only\"",
                           {"retry-after": str(RETRY_AFTER)}) from None
        except TerraceError as error:
            raise ApiError(400, str(error)) from None

    async def current(self, request: Request) -> Response:
        game = self.store.latest_unfinished()
        if game is None:
            return Response(status_code=204)
        return _json(game_json(game, game.board()))

    async def recent(self, request: Request) -> Response:
        count = whole_number(request.query_params.get("recent", "20"))
        if count is None or not 1 <= count <= 200:
            raise ApiError(400, "recent must be a number from 1 to 200")
        return _json({"games": [game_summary(g) for g in self.store.recent(count)]})

    async def get(self, request: Request) -> Response:
        game = self.load(request.path_params["game_id"])
        return _json(game_json(game, game.board()))

    async def position(self, request: Request) -> Response:
        """The position after the first ``step`` moves (for replays)."""
        game = self.load(request.path_params["game_id"])
        step = whole_number(request.query_params.get("step", ""))
        if step is None or step > len(game.moves):
            raise ApiError(400, f"step must be a number from 0 to {len(game.moves)}")
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

    async def move(self, request: Request) -> Response:
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"move", "after"})
        text = body.get("move")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
            raise ApiError(400, "move must be a move in the notation, e.g. \"wf\" or \"t2t5\"")
        _check_after(body, game)
        board = game.board()
        try:
            move = Move.parse(text)
        except TerraceError as error:
            raise ApiError(400, str(error)) from None
        reason = board.why_illegal(move)
        if reason is not None:
            raise ApiError(422, reason)
        before = board.to_dict()
        source = describe_move(board, str(move))["source"]
        try:
            board.push(move)
        except IllegalMoveError as error:  # pragma: no cover - why_illegal said yes
            raise ApiError(422, str(error)) from None
        self.save(game, board, "move")
        return _json(game_json(game, board, motions=motions(before, board.to_dict(), source),
                               last_move=str(move)))

    async def check(self, request: Request) -> Response:
        """Would this move be legal? 200 with the reason when it is not."""
        game = self.load(request.path_params["game_id"])
        text = request.query_params.get("move", "")
        if not text or len(text) > MAX_MOVE_TEXT:
            raise ApiError(400, "move must be a move in the notation, e.g. \"wf\" or \"t2t5\"")
        try:
            move = Move.parse(text)
        except TerraceError as error:
            return _json({"move": text, "legal": False, "reason": _say(request, str(error))})
        reason = game.board().why_illegal(move)
        return _json({"move": str(move), "legal": reason is None,
                      "reason": None if reason is None else _say(request, reason)})

    async def undo(self, request: Request) -> Response:
        return await self._step(request, "undo")

    async def redo(self, request: Request) -> Response:
        return await self._step(request, "redo")

    async def _step(self, request: Request, action: str) -> Response:
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after"})
        _check_after(body, game)
        board = game.board()
        before = board.to_dict()
        if action == "undo":
            if not board.can_undo:
                raise ApiError(409, "there is no move to undo")
            board.pop()
            game.undos += 1
            source = None
        else:
            if not board.can_redo:
                raise ApiError(409, "there is no move to redo")
            source = describe_move(board, str(board.redo_stack[-1]))["source"]
            board.redo()
        self.save(game, board, action)
        return _json(game_json(game, board, motions=motions(before, board.to_dict(), source)))

    async def restart(self, request: Request) -> Response:
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after"})
        _check_after(body, game)
        # Like undoing every move: the whole line stays redoable.
        revision = game.revision
        game.moves, game.redo = [], [*game.redo, *reversed(game.moves)]
        board = game.board()
        game.status = board.status.value
        try:
            self.store.update(game, expected_revision=revision, action="restart")
        except ConflictError:
            raise ApiError(409, "the game changed in another window: reload it") from None
        return _json(game_json(game, board))

    async def hint(self, request: Request) -> Response:
        """Suggest a move and count it as a hint (so: POST)."""
        game = self.load(request.path_params["game_id"])
        body = await _body(request)
        _only(body, {"after"})
        _check_after(body, game)
        board = game.board()
        found = await self.in_solver(request, hints.find_hint, board, self.hint_seconds,
                                     budget=self.hint_seconds)
        if found["move"] is not None:
            found.update(describe_move(board, found["move"]))
            revision = game.revision
            game.hints += 1
            with contextlib.suppress(ConflictError):
                self.store.update(game, expected_revision=revision, action="hint")
        return _json(found)

    async def analysis(self, request: Request) -> Response:
        game = self.load(request.path_params["game_id"])
        result = await self.in_solver(request, hints.analyse, game.board(), self.hint_seconds,
                                  budget=self.hint_seconds)
        return _json(result)

    async def stats(self, request: Request) -> Response:
        return _json(self.store.statistics())


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"cache-control": "no-store"})


def _say(request: Request, message: str) -> str:
    return translate(message, pick_language(request.headers.get("accept-language")))


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object (empty when there is no body). Every POST
    must say ``Content-Type: application/json``, even with an empty body:
    a plain HTML form on another site cannot."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError(415, "send the request with Content-Type: application/json (also when it is empty)")
    chunks = []
    size = 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    raise ApiError(413, f"the request body is too large (at most {MAX_BODY} bytes)")
                chunks.append(chunk)
    except TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {BODY_SECONDS:g} s") from None
    except ClientDisconnect:
        raise ApiError(400, "the client went away before its request arrived") from None
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def _only(body: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ApiError(400, f"unknown field {unknown[0]!r}; expected {', '.join(sorted(allowed))}")


def _check_after(body: dict[str, Any], game: StoredGame) -> None:
    """Refuse a request made on an older view of the game (another tab)."""
    if "after" not in body:
        return
    after = body["after"]
    if isinstance(after, bool) or not isinstance(after, int) or after < 0:
        raise ApiError(400, "after must be the number of moves the page has seen")
    if after != len(game.moves):
        raise ApiError(409, "the game changed in another window: reload it")


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    response = _json({"error": _say(request, exc.message)}, status=exc.status)
    response.headers.update(exc.headers)
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    messages = {404: "there is nothing at this address", 405: "this address does not accept that method"}
    message = messages.get(exc.status_code, str(exc.detail))
    return _json({"error": message}, status=exc.status_code)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _json({"error": SERVER_ERROR}, status=500)


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
) -> Starlette:
    """The web game as an ASGI application (a memory store by default).
    Solver work runs in ``pool`` (two processes by default), closed when
    the application's lifespan ends; ``token`` requires it on every request
    (``terrace play --remote``)."""
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
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )
    app.add_middleware(SecurityMiddleware, allowed_hosts=allowed_hosts, token=token)
    app.state.game = game
    return app
