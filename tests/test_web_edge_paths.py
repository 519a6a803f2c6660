"""The server's edge as a demanding client meets it: odd spellings of the
page's file addresses, sent as raw ASGI requests (an HTTP client would
tidy ``.``, ``..`` and ``//`` away before sending; curl --path-as-is or a
hand-made request does not)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from terrace.web.app import create_app


def raw_get(path: str, method: str = "GET", raw: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and body of ``method path`` sent to the app
    exactly as written (no normalising client in between; ``raw``: the
    address as sent, when its %-escapes make it another than ``path``)."""
    app = create_app()
    sent: list[dict[str, Any]] = []
    asked = 0

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        if asked > 1:  # (the client stays: a response may listen for its going)
            await asyncio.Event().wait()
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "scheme": "http", "path": path,
             "raw_path": (path if raw is None else raw).encode("utf-8", "surrogateescape"),
             "root_path": "", "query_string": b"", "headers": [(b"host", b"localhost")],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    headers = {k.decode().lower(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.parametrize("path", [
    "/static/index.html/", "/static//index.html", "/static/./index.html", "/static/js/../index.html",
    "/static/js/../../static/index.html", "/static/js//main.js", "/static/js/main.js/",
    "/static/js/./main.js",
    "/static/INDEX.HTML", "/static/Style.css", "/static/index.html\x00", "/static/js\\main.js",
    "/static/js", "/static/js/", "/static/", "/static/" + "a" * 5000, "/static/" + "js/" * 2000 + "main.js",
    "/static/index.html.", "/static/index.html ",
])
def test_a_file_of_the_page_is_served_at_its_one_address_only(path: str) -> None:
    """Starlette served the page at ``/static/index.html/``, ``//`` and
    ``..`` spellings (and, on a file system that ignores case, at
    ``INDEX.HTML``): every other spelling of a file's address is 404
    ``not-found``, as JSON with the hardening headers."""
    status, headers, body = raw_get(path)
    assert status == 404, (path, body[:80])
    assert json.loads(body)["code"] == "not-found"
    assert "content-security-policy" in headers


@pytest.mark.parametrize("path", ["/static/index.html", "/static/js/main.js", "/static/style.css",
                                  "/static/favicon.svg"])
def test_the_files_of_the_page_are_still_served(path: str) -> None:
    for method in ("GET", "HEAD"):
        status, headers, body = raw_get(path, method)
        assert status == 200 and headers["cache-control"] == "no-cache"
        assert bool(body) == (method == "GET")
    assert raw_get(path, "POST")[0] == 405


@pytest.mark.parametrize("raw", ["/static%2Findex.html", "/%73tatic/index.html", "/static/%69ndex.html",
                                 "/static/js%2Fmain.js", "/static/style%2Ecss", "/stat%69c/js/main.js"])
def test_a_percent_escape_is_another_spelling_of_a_files_address(raw: str) -> None:
    """``/static%2Findex.html`` (or ``/%73tatic/index.html``) served the
    page: an address of its own to a browser, as the spellings above."""
    from urllib.parse import unquote

    status, _, body = raw_get(unquote(raw), raw=raw)
    assert status == 404, (raw, body[:80])
    assert json.loads(body)["code"] == "not-found"


@pytest.mark.parametrize("raw", ["/api%2Fstats", "/api%2fvariants", "/%61pi/stats", "/api/st%61ts",
                                 "/%2Fapi/stats"])
def test_a_percent_escape_is_another_spelling_of_an_api_address(raw: str) -> None:
    """``/api%2Fstats`` (or ``/%61pi/stats``) was served as ``/api/stats``:
    every address, the API's too, is refused at any spelling but its own."""
    from urllib.parse import unquote

    status, headers, body = raw_get(unquote(raw), raw=raw)
    assert status == 404, (raw, body[:80])
    assert json.loads(body)["code"] == "not-found"
    assert "content-security-policy" in headers
    assert raw_get("/api/stats")[0] == 200


def test_an_escaped_slash_plays_no_move() -> None:
    """``POST /api/games/<id>%2Fmoves`` played the move as ``/moves`` does."""
    from starlette.testclient import TestClient

    client = TestClient(create_app(), base_url="http://localhost")
    game = client.post("/api/games", json={"variant": "terrace", "deal_number": 7}).json()
    for tail in ("%2Fmoves", "/%6Doves"):
        url = client.base_url.copy_with(raw_path=f"/api/games/{game['id']}{tail}".encode())
        answer = client.post(url, json={"move": game["legal_moves"][0]})
        assert answer.status_code == 404 and answer.json()["code"] == "not-found", tail
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == 0
