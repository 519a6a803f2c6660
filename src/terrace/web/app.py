"""The web game's server: a JSON API over the engine and the game store,
and the static page, put together from the game's endpoints
(:mod:`terrace.web.endpoints`), the coach's (:mod:`terrace.web.coach`) and
one way of refusing (:mod:`terrace.web.replies`). See ``docs/api.md`` for
every endpoint.

>>> from starlette.testclient import TestClient
>>> client = TestClient(create_app(), base_url="http://localhost")
>>> client.post("/api/games", json={"variant": "terrace", "deal_number": 7}).status_code
201
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from starlette._utils import get_route_path
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from terrace.errors import TerraceError
from terrace.rules import Rules
from terrace.storage import LATEST_GAME, GameStore, MemoryStore
from terrace.web.coach import CoachBudgets, coach_routes
from terrace.web.endpoints import HINT_SECONDS, WINNABLE_SECONDS, WebGame
from terrace.web.i18n import WebRefusal
from terrace.web.replies import (
    RETRY_AFTER,
    ApiError,
    http_error,
    refused,
    server_error,
)
from terrace.web.security import RemoteKeys, SecurityMiddleware
from terrace.web.workers import SolverPool

STATIC = Path(__file__).parent / "static"
RANGE_HEADERS = (b"range", b"if-range")
PAGE_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}
"""The type of each kind of the page's files. Python would guess it from the
system's table (on Windows the registry, where an editor may have made
``.js`` ``text/plain``), and with ``nosniff`` a browser then runs no module
and applies no style sheet: the page stayed blank."""


LATEST_PATH = "/api/current-game"
"""The address of the latest unfinished game (the page's api.js names it
too). ``/api/games/current`` answered it, and still does unless a game's
id is ``current``: imported before such ids were refused, that game could
not be opened."""

PAGE_CACHE = "no-cache"
"""How a browser may keep the page's files: asking again each time (a 304
when unchanged). Without Cache-Control it kept a file for a tenth of its
age without asking (RFC 9111, 4.2.2), and after an update of Terrace ran
the old version's modules for days."""


class PageFiles(StaticFiles):
    """The page's static files, each with its type from :data:`PAGE_TYPES`,
    asked again each time (:data:`PAGE_CACHE`), each at one address only:
    its path in the folder exactly, letter case included. Any other
    spelling (a slash at the end, two slashes, ``.`` or ``..``, a NUL, a
    backslash, a name in other letter case, a folder, a %-escape) is 404 ``not-found``:
    Starlette served ``/static/index.html/``, ``/static//index.html`` and
    ``/static/js/../index.html`` as the page (each an address of its own to
    a browser, resolving the page's relative links elsewhere), and on a
    file system that ignores case ``/static/INDEX.HTML`` too. The files
    are listed once, when the app is made (they come with the package)."""

    def __init__(self, *, directory: Path) -> None:
        super().__init__(directory=directory)
        self.names = frozenset(path.relative_to(directory).as_posix()
                               for path in directory.rglob("*") if path.is_file())

    def get_path(self, scope: Scope) -> str:
        wanted = get_route_path(scope).removeprefix("/")
        # (an empty name is no file: get_response then refuses it)
        return wanted if plain_path(scope) and wanted in self.names else ""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if not path and scope["method"] in ("GET", "HEAD"):
            raise HTTPException(status_code=404)
        return await super().get_response(path, scope)

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        media = PAGE_TYPES.get(Path(full_path).suffix.lower())
        if media is not None and "content-type" in response.headers:
            response.headers["content-type"] = media
        response.headers["cache-control"] = PAGE_CACHE
        return response

    async def served_at(self, request: Request, name: str, cache: str = PAGE_CACHE) -> Response:
        """The file ``name`` answered at another address (``/``, the icons)
        as at its own, a 304 when unchanged included (a plain
        FileResponse sent the page whole at every load, its ETag and
        Last-Modified never honoured), kept as ``cache`` says."""
        response = await self.get_response(name, request.scope)
        response.headers["cache-control"] = cache
        return response


def plain_path(scope: Scope) -> bool:
    """True when the request's address was sent as its path reads, without
    a %-escape: no address of the game needs one (its routes, game ids and
    file names are letters, digits and ``-_./``), so one with an escape,
    such as ``/api%2Fstats`` or ``/%73tatic/index.html``, is another
    spelling of an address (:class:`PlainPaths`)."""
    raw = scope.get("raw_path")
    return raw is None or raw == str(scope["path"]).encode()


class PlainPaths:
    """Every address has one spelling: one with a %-escape (:func:`plain_path`)
    is 404 ``not-found``, as an unknown address is. Starlette matched routes
    on the decoded path, so ``/api%2Fstats`` and ``/%61pi/stats`` were
    served as ``/api/stats`` (and ``/api/games%2F<id>`` as the game),
    while the page's files already refused any escape."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not plain_path(scope):
            response = await http_error(Request(scope), HTTPException(status_code=404))
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class WholeFiles:
    """The page's files are always sent whole: a ``Range`` header is ignored
    (RFC 9110 lets a server do so; the files are small) and no answer
    offers ranges. Starlette's own range support answered a range it could
    not read with a plain-text 400, and one past the end with an empty 416,
    neither of them a refusal of the app's (JSON with a code)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in RANGE_HEADERS]

        async def send_without_ranges(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [(k, v) for k, v in message.get("headers", [])
                                      if k.lower() != b"accept-ranges"]
            await send(message)

        await self.app({**scope, "headers": headers}, receive, send_without_ranges)


class AnsweredAtStop:
    """A request still running when the server, stopping, cancels it (its
    second of grace over: :data:`~terrace.web.server.STOP_GRACE_SECONDS`)
    is answered 503 ``server-stopped`` (JSON, with Retry-After) unless its
    answer has begun (one begun is cut short by the server's protocol:
    :class:`~terrace.web.protocol.GuardedH11Protocol`); its work, a read in a thread, ends on its own (a
    change is awaited to its end: :func:`~terrace.web.endpoints.to_the_end`).
    uvicorn answered it a plain-text 500 and put a traceback on the terminal:
    a game's statistics read the first time, over 100,000 games, take 45 s
    on a loaded machine. ``stopping`` tells a stop's cancel from any other."""

    def __init__(self, app: ASGIApp, stopping: Callable[[], bool]) -> None:
        self.app, self.stopping = app, stopping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if started or task is None or not self.stopping():
                raise
            task.uncancel()  # (so that the answer can be sent)
            stopped = ApiError(WebRefusal.SERVER_STOPPED, {"retry-after": str(RETRY_AFTER)})
            answer = await refused(Request(scope), stopped)
            await answer(scope, receive, send)


def create_app(
    store: GameStore | None = None,
    *,
    default_variant: str = "terrace",
    default_rules: Rules | None = None,
    allowed_hosts: tuple[str, ...] = (),
    hint_seconds: float = HINT_SECONDS,
    winnable_seconds: float = WINNABLE_SECONDS,
    pool: SolverPool | None = None,
    token: RemoteKeys | None = None,
    coach: CoachBudgets | None = None,
) -> Starlette:
    """The web game as an ASGI application (a memory store by default).
    Solver work runs in ``pool`` (two processes by default), closed when
    the application's lifespan ends; ``token``, remote play's keys, guards every request
    (``terrace play --remote``); ``coach`` sets the coach's budgets."""
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

    files = PageFiles(directory=STATIC)

    async def index(request: Request) -> Response:
        return await files.served_at(request, "index.html")

    async def favicon(request: Request) -> Response:
        return await files.served_at(request, "favicon.ico", cache="max-age=86400")

    async def favicon_svg(request: Request) -> Response:
        return await files.served_at(request, "favicon.svg")

    gid = "/api/games/{game_id}"
    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/favicon.svg", favicon_svg),
        Route("/api/variants", game.variants),
        Route("/api/stats", game.stats),
        Route("/api/rules", game.rules),
        Route("/api/games", game.games, methods=["GET", "POST"]),
        Route(LATEST_PATH, game.current),
        Route(f"/api/games/{LATEST_GAME}", game.current_or_named),
        Route(gid, game.get),
        Route(gid + "/position", game.position),
        Route(gid + "/line", game.line),
        Route(gid + "/check", game.check),
        Route(gid + "/moves", game.move, methods=["POST"]),
        Route(gid + "/undo", game.undo, methods=["POST"]),
        Route(gid + "/redo", game.redo, methods=["POST"]),
        Route(gid + "/restart", game.restart, methods=["POST"]),
        Route(gid + "/hint", game.hint, methods=["POST"]),
        Route(gid + "/analysis", game.analysis, methods=["POST"]),
        Route(gid + "/autoplay", game.autoplay, methods=["POST"]),
        Route(gid + "/give-up", game.give_up, methods=["POST"]),
        Route(gid + "/time", game.active_time, methods=["POST"]),
        Route(gid + "/why", game.why),
        Route(gid + "/rules", game.game_rules),
        *coach_routes(game, coach),
        Mount("/static", files, name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            ApiError: refused,
            TerraceError: refused,
            HTTPException: http_error,
            Exception: server_error,
        },
    )
    app.router.redirect_slashes = False  # (an address with a slash too many is unknown: 404, not a redirect)
    app.add_middleware(AnsweredAtStop, stopping=game.stopping)
    app.add_middleware(WholeFiles)
    app.add_middleware(PlainPaths)
    app.add_middleware(SecurityMiddleware, allowed_hosts=allowed_hosts, token=token)
    app.state.game = game
    return app
