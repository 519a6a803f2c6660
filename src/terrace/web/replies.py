"""Requests in, JSON replies out: reading a request's JSON body, the
refusals a body or a stale view of a game earns (:class:`ApiError`), and
the one place where every exception becomes a status and a reason in the
page's language. Shared by the game's endpoints, the coach's and the app.
"""

from __future__ import annotations

import asyncio
from collections.abc import Set as AbstractSet
from enum import StrEnum
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from terrace.errors import TerraceError
from terrace.record import json_reason, json_text, read_json
from terrace.refusals import Param, Reason, Refusal, clip, needs_restart
from terrace.solver.verdicts import VerdictCacheError
from terrace.storage import (
    ClockOutOfRangeError,
    ConflictError,
    DamagedGameError,
    GivenUpError,
    LineTooLongError,
    StoredGame,
    StoreError,
    StoreWriteError,
    UnknownGameError,
    UnsavableGameError,
)
from terrace.storage.base import StoreStoppedError
from terrace.web.i18n import WebRefusal, refusal_json
from terrace.web.security import MAX_BODY

JSON_SPACE = " \t\r\n"
"""The whitespace JSON allows around a value (RFC 8259); a body of it
alone is an empty body."""
UTF_8 = ("utf-8", "utf8")
"""The names of UTF-8 a request's ``charset`` may give (its own, and the
alias every browser knows); a body in any other is refused."""
BODY_SECONDS = 10.0
"""How long a request body may take to arrive."""


class ApiError(Exception):
    """A refused request: a web refusal code with its parameters, or a
    reason the engine gave, and any extra response headers."""

    def __init__(self, code: StrEnum | Reason, headers: dict[str, str] | None = None,
                 **params: Param) -> None:
        self.reason = code if isinstance(code, Reason) else Reason(code, **params)
        self.headers = headers or {}
        super().__init__(str(self.reason))


LINES = ("moves", "redo")
"""The lists of move texts a game's answer holds, each as long as the game."""


class GameResponse(JSONResponse):
    """A JSON reply whose lists of moves (:data:`LINES`) are written by a
    join when every move is letters and digits, as move notation is: the
    JSON encoder spent 5.5 ms on the 100,000 moves of the longest game
    (about half of a GET's time), the join 0.5 ms. Any other text is
    encoded by the encoder, escaped as JSON wants."""

    def render(self, content: Any) -> bytes:
        if not isinstance(content, dict):
            return super().render(content)
        joined = {key: _joined(content.get(key)) for key in LINES}
        rest = {key: value for key, value in content.items() if joined.get(key) is None}
        head = ",".join(f'"{key}":{text}' for key, text in joined.items() if text is not None)
        body = super().render(rest)
        if not head:
            return body
        return b"{" + head.encode() + (b"," + body[1:] if body != b"{}" else b"}")


def _joined(value: Any) -> str | None:
    """A list of move texts as a JSON array; None for anything else, and
    for texts that are not all ASCII letters and digits (JSON might escape
    them: the encoder writes those)."""
    if not isinstance(value, list):
        return None
    try:
        flat = "".join(value).encode("ascii")
    except (TypeError, UnicodeEncodeError):  # (not all text, or not all ASCII)
        return None
    if not value:
        return "[]"
    if not flat.isalnum():  # (bytes: ten times as fast as a str's)
        return None
    return '["' + '","'.join(value) + '"]'


def json_response(data: Any, status: int = 200) -> JSONResponse:
    """``data`` as a JSON reply that no cache keeps."""
    return GameResponse(data, status_code=status, headers={"cache-control": "no-store"})


def query(request: Request, names: frozenset[str] = frozenset()) -> dict[str, str]:
    """The request's query parameters, refused unless each is one of
    ``names`` and given once: a misspelt one (``?recnt=5``) was ignored,
    and one given twice (``?step=0&step=9``) read as its last value,
    where a body's unknown field or key given twice is refused."""
    found: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name not in names:
            raise ApiError(WebRefusal.QUERY_UNKNOWN, name=clip(name), expected=tuple(sorted(names)))
        if name in found:
            raise ApiError(WebRefusal.QUERY_TWICE, name=clip(name))
        found[name] = value
    return found


async def read_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (empty when there is no body), read from
    UTF-8 (a leading byte-order mark passed over). Every POST
    must say ``Content-Type: application/json``, even with an empty body:
    a plain HTML form on another site cannot; a ``charset`` other than
    UTF-8 (:data:`UTF_8`) is refused. A request with a body takes
    no query parameters (:func:`query`): its fields are in the body."""
    types = request.headers.getlist("content-type")  # (one: two are refused, as two Hosts are)
    ctype, *params = (types[0] if len(types) == 1 else "").split(";")
    if ctype.strip().lower() != "application/json":
        raise ApiError(WebRefusal.BODY_NOT_JSON_TYPE)
    for param in params:
        name, _, value = param.partition("=")
        charset = value.strip().strip('"')
        if name.strip().lower() == "charset" and charset.lower() not in UTF_8:
            # (the body is read as UTF-8 whatever the header says: one in
            # UTF-16 was blamed as no JSON, one in Latin-1 read wrongly)
            raise ApiError(WebRefusal.BODY_CHARSET, charset=clip(charset))
    if any(coding.strip().lower() not in ("", "identity")
           for value in request.headers.getlist("content-encoding") for coding in value.split(",")):
        # (the body would be read as it came: a gzipped one was blamed as no JSON)
        raise ApiError(WebRefusal.BODY_ENCODED)
    query(request)
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
        raise ApiError(WebRefusal.BODY_TOO_SLOW, seconds=BODY_SECONDS) from None
    except ClientDisconnect:
        raise ApiError(WebRefusal.CLIENT_GONE) from None
    try:
        # (UTF-8 only, RFC 8259 8.1, a byte-order mark passed over as a
        # record file's: json.loads of bytes took UTF-16 and UTF-32 too)
        text = json_text(b"".join(chunks))
    except UnicodeDecodeError:
        raise ApiError(WebRefusal.BODY_NOT_JSON) from None
    if not text.strip(JSON_SPACE):
        return {}
    try:
        data = read_json(text)
    except (ValueError, RecursionError) as error:
        # (JSON nested too deeply, or a number too long, for Python's reader
        # was refused as no JSON at all: it is JSON, and the refusal says so)
        raise ApiError(json_reason(error) or WebRefusal.BODY_NOT_JSON) from None
    if not isinstance(data, dict):
        raise ApiError(WebRefusal.BODY_NOT_OBJECT)
    return data


def only_fields(body: dict[str, Any], allowed: AbstractSet[str]) -> None:
    """Refuse a body with a field outside ``allowed``, naming the first."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ApiError(WebRefusal.FIELD_UNKNOWN, field=clip(unknown[0]), expected=tuple(sorted(allowed)))


def playable(game: StoredGame) -> None:
    """Refuse to change a game that was given up."""
    if game.given_up_at is not None:
        raise ApiError(WebRefusal.GAME_GIVEN_UP)


def may_change(body: dict[str, Any], game: StoredGame) -> None:
    """Refuse a change asked for on an older view of the game, or to a game
    that was given up."""
    check_after(body, game)
    playable(game)


def check_after(body: dict[str, Any], game: StoredGame) -> None:
    """Refuse a request made on an older view of the game (another tab):
    ``after`` is the number of moves the client saw, ``revision`` the
    revision of the game it saw (which tells apart two positions with the
    same number of moves, say after an undo and another move)."""
    for field, code, now in (("after", WebRefusal.AFTER_NOT_COUNT, game.played_count()),
                             ("revision", WebRefusal.REVISION_NOT_COUNT, game.revision)):
        if field not in body:
            continue
        seen = body[field]
        if isinstance(seen, bool) or not isinstance(seen, int) or seen < 0:
            raise ApiError(code)
        if seen != now:
            raise ApiError(WebRefusal.CONFLICT)


# -- refusals: every exception becomes a status and a reason here, nowhere else

_HTTP_REFUSALS = {404: WebRefusal.NOT_FOUND, 405: WebRefusal.METHOD_NOT_ALLOWED}
RETRY_AFTER = 5
"""The seconds after which a refusal of work that cannot be done now (every
solver process busy, a database another program holds) says to ask again
(``Retry-After``)."""
_BUSY = (Refusal.DATABASE_BUSY, Refusal.DATABASE_LOCKED_OUT, Refusal.VERDICT_CACHE_BUSY)
"""The refusals of a file another program holds: asked again later, the
request may succeed (``Retry-After``)."""
_UNAVAILABLE = (*_BUSY, Refusal.DATABASE_UNUSABLE, Refusal.DATABASE_FAILED, Refusal.DATABASE_DAMAGED,
                Refusal.VERDICT_CACHE_UNUSABLE,
                Refusal.VERDICT_CACHE_NEWER, Refusal.VERDICT_CACHE_FOREIGN, Refusal.VERDICT_CACHE_GAMES,
                Refusal.VERDICT_CACHE_NOT_STORED)
"""The stores' refusals of a file another program holds, or that fails a
read: store-unavailable."""


def refusal_reason(request: Request, exc: Exception) -> Reason:
    """The reason an exception refuses the request (its status comes with
    the reason's code)."""
    if isinstance(exc, ApiError):
        return exc.reason
    if isinstance(exc, UnknownGameError):
        return Reason(WebRefusal.GAME_UNKNOWN, game=clip(str(request.path_params.get("game_id", ""))))
    if isinstance(exc, StoreStoppedError):
        return Reason(WebRefusal.SERVER_STOPPED)
    if isinstance(exc, ConflictError):
        return Reason(WebRefusal.CONFLICT)
    if isinstance(exc, GivenUpError):
        return Reason(WebRefusal.GAME_GIVEN_UP)
    if isinstance(exc, StoreWriteError):
        code = WebRefusal.NOT_SAVED_DISK_FULL if exc.fault == "full" else WebRefusal.NOT_SAVED
        # (said whole in the page's language: "Der Zug wurde nicht gespeichert: ...")
        return Reason(code, problem=exc.why)
    if isinstance(exc, ClockOutOfRangeError):
        return Reason(WebRefusal.CLOCK_WRONG, date=exc.date, first=exc.years[0], last=exc.years[1])
    if isinstance(exc, LineTooLongError):
        return Reason(WebRefusal.GAME_TOO_LONG, most=exc.most)
    if isinstance(exc, UnsavableGameError):
        return Reason(WebRefusal.NOT_SAVABLE, problem=exc.why)
    if isinstance(exc, DamagedGameError):
        return Reason(WebRefusal.GAME_DAMAGED, problem=exc.why)
    if isinstance(exc, StoreError | VerdictCacheError) and exc.code in (None, *_UNAVAILABLE):
        # (the solver's verdict cache too, which a winnable deal's search
        # opens: the server's file, not the request, is at fault; a file
        # another program holds is said in the page's language)
        return Reason(WebRefusal.STORE_UNAVAILABLE, problem=exc.why)
    if isinstance(exc, TerraceError):
        return exc.reason or Reason(WebRefusal.REFUSED, problem=str(exc))
    return Reason(WebRefusal.SERVER_ERROR)


def request_refusal_json(request: Request, reason: Reason, key: str = "error") -> dict[str, Any]:
    """``{key: the reason in the page's language, "code": its code}``."""
    return refusal_json(reason, request.headers.get("accept-language"), key)


async def refused(request: Request, exc: Exception) -> Response:
    reason = refusal_reason(request, exc)
    body = request_refusal_json(request, reason)
    if needs_restart(reason):  # (the page does not ask again by itself)
        body["restart"] = True
    response = json_response(body, status=reason.status)
    if isinstance(exc, ApiError):
        response.headers.update(exc.headers)
    elif _busy(exc):
        response.headers["retry-after"] = str(RETRY_AFTER)
    return response


def _busy(exc: Exception) -> bool:
    """True when ``exc`` refuses a request for a file another program holds
    (a change not saved for it included): 503 without ``Retry-After``
    before, unlike the solver's own busy refusals."""
    if isinstance(exc, StoreWriteError):
        return exc.fault == "busy"
    if isinstance(exc, StoreStoppedError):  # (a server started again answers it)
        return True
    return isinstance(exc, StoreError | VerdictCacheError) and exc.code in _BUSY


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _HTTP_REFUSALS.get(exc.status_code)
    if code is None:
        reply = json_response({"error": str(exc.detail), "code": None}, status=exc.status_code)
    else:
        reply = json_response(request_refusal_json(request, Reason(code)), status=exc.status_code)
    reply.headers.update(exc.headers or {})  # such as a 405's Allow
    return reply


async def server_error(request: Request, exc: Exception) -> Response:
    return json_response(request_refusal_json(request, Reason(WebRefusal.SERVER_ERROR)), status=500)
