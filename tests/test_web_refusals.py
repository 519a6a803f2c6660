"""Clear refusals instead of 500s, and the cross-site rules: numbers in
ASCII digits only, JSON on every POST, hints counted only by POST, exact
origins, strict Host parsing, security headers on server errors, bodies
that stall or vanish."""

from __future__ import annotations

import asyncio
import mimetypes
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from terrace.storage import MemoryStore
from terrace.web import replies as web_replies
from terrace.web.app import create_app
from terrace.web.security import MAX_BODY, SECURITY_HEADERS, RemoteKeys
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def client(store: MemoryStore) -> Iterator[TestClient]:
    yield TestClient(create_app(store, hint_seconds=0.2), base_url=LOCAL)


def played(client: TestClient) -> dict[str, Any]:
    game = client.post("/api/games", json={"deal_number": 7}).json()
    # (c2: with c1 the terrace of deal 7 is dead, and the fair hint offers no move)
    response = client.post(f"/api/games/{game['id']}/moves", json={"move": "c2"})
    assert response.status_code == 200
    data: dict[str, Any] = response.json()
    return data


def snapshot(store: MemoryStore) -> list[tuple[Any, ...]]:
    return [(g.id, g.moves, g.redo, g.revision, g.hints, g.undos) for g in store.recent(200)]


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("text", ["²", "١", "٣", "𝟓", "1²", "1e3", "0x10", "9" * 40])
def test_numbers_in_queries_take_ascii_digits_only(client: TestClient, text: str) -> None:
    game = played(client)
    assert client.get("/api/games", params={"recent": text}).status_code == 400
    position = client.get(f"/api/games/{game['id']}/position", params={"step": text})
    assert position.status_code == 400
    assert "step must be a number" in position.json()["error"]


def test_raw_unicode_digit_query_is_a_400(client: TestClient) -> None:
    game = played(client)
    assert client.get("/api/games?recent=%C2%B2").status_code == 400
    assert client.get(f"/api/games/{game['id']}/position?step=%C2%B2").status_code == 400


@pytest.mark.parametrize("text", ["c١", "t١t2", "t1t٢", "wt３", "rf²"])
def test_moves_with_other_digits_are_refused(client: TestClient, store: MemoryStore, text: str) -> None:
    game = played(client)
    before = snapshot(store)
    response = client.post(f"/api/games/{game['id']}/moves", json={"move": text})
    assert response.status_code == 400
    assert "not a move" in response.json()["error"]
    assert client.get(f"/api/games/{game['id']}/check", params={"move": text}).json()["legal"] is False
    assert snapshot(store) == before


# ---------------------------------------------------------------- JSON on every POST


@pytest.mark.parametrize(
    "action", ["undo", "redo", "restart", "hint", "moves", "autoplay", "give-up", "time"]
)
@pytest.mark.parametrize(
    "ctype", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_every_post_must_be_json_even_when_empty(
    client: TestClient, store: MemoryStore, action: str, ctype: str | None
) -> None:
    game = played(client)
    client.post(f"/api/games/{game['id']}/undo", json={})  # something to redo
    before = snapshot(store)
    headers = {} if ctype is None else {"content-type": ctype}
    response = client.post(f"/api/games/{game['id']}/{action}", content=b"", headers=headers)
    assert response.status_code == 415
    assert "application/json" in response.json()["error"]
    created = client.post("/api/games", content=b"", headers=headers)
    assert created.status_code == 415
    assert snapshot(store) == before


@pytest.mark.parametrize("first", ["application/json", "text/plain"])
def test_a_post_with_two_content_types_is_refused_whichever_comes_first(
    client: TestClient, store: MemoryStore, first: str
) -> None:
    """A body's type is one header (RFC 9110, 8.3); with two, the first
    was read: ``application/json`` then ``text/plain`` was taken as JSON,
    the other order refused, so a proxy reading the last could tell the
    request apart from the game. Both are refused, as two Hosts or
    Origins are."""
    game = played(client)
    before = snapshot(store)
    other = "text/plain" if first == "application/json" else "application/json"
    response = client.post(f"/api/games/{game['id']}/undo", content=b"{}",
                           headers=[("content-type", first), ("content-type", other)])
    assert (response.status_code, response.json()["code"]) == (415, "body-not-json-type")
    assert snapshot(store) == before


def test_an_empty_json_post_is_fine(client: TestClient) -> None:
    game = played(client)
    response = client.post(
        f"/api/games/{game['id']}/undo", content=b"", headers={"content-type": "application/json"}
    )
    assert response.status_code == 200


# ---------------------------------------------------------------- hints by POST


def test_a_hint_is_asked_by_post_and_counted(client: TestClient, store: MemoryStore) -> None:
    game = played(client)
    assert client.get(f"/api/games/{game['id']}/hint").status_code == 405
    assert store.get(game["id"]).hints == 0
    stale = client.post(f"/api/games/{game['id']}/hint", json={"after": 0})
    assert stale.status_code == 409
    assert store.get(game["id"]).hints == 0
    found = client.post(f"/api/games/{game['id']}/hint", json={"after": 1})
    assert found.status_code == 200
    assert found.json()["move"] is not None
    assert store.get(game["id"]).hints == 1


def test_get_requests_change_nothing(client: TestClient, store: MemoryStore) -> None:
    game = played(client)
    before = snapshot(store)
    for path in ("", "/check?move=s", "/position?step=1", "/analysis", "/hint"):
        client.get(f"/api/games/{game['id']}{path}")
    for path in ("/api/games", "/api/games/current", "/api/variants", "/api/stats", "/"):
        client.get(path)
    assert snapshot(store) == before


# ---------------------------------------------------------------- origins and hosts


@pytest.mark.parametrize(
    "origin",
    [
        "null",
        "http://localhost:8001",
        "https://localhost",
        "http://127.0.0.1",
        "http://localhost.evil.example",
        "http://localhost/",
        "http://evil.example",
        "file://",
        "",
    ],
)
def test_writes_from_any_other_origin_are_refused(
    client: TestClient, store: MemoryStore, origin: str
) -> None:
    response = client.post("/api/games", json={}, headers={"origin": origin})
    assert response.status_code == 403
    assert store.recent() == []


@pytest.mark.parametrize(
    ("host", "origin"),
    [("localhost", "http://localhost"), ("localhost:80", "http://localhost"),
     ("localhost:8000", "http://localhost:8000"), ("[::1]:8000", "http://[::1]:8000"),
     ("127.0.0.1:8201", "http://127.0.0.1:8201")],
)
def test_the_pages_own_origin_may_write(client: TestClient, host: str, origin: str) -> None:
    response = client.post("/api/games", json={}, headers={"host": host, "origin": origin})
    assert response.status_code == 201


def test_cross_site_reads_of_the_api_are_refused(client: TestClient) -> None:
    assert client.get("/api/variants", headers={"sec-fetch-site": "cross-site"}).status_code == 403
    assert client.get("/", headers={"sec-fetch-site": "cross-site"}).status_code == 200
    assert client.get("/api/variants", headers={"sec-fetch-site": "same-origin"}).status_code == 200


@pytest.mark.parametrize(
    "host",
    [
        "[::1]evil.example",
        "localhost:8201, evil.example",
        "127.0.0.1:80@evil",
        "localhost:80:80",
        "localhost:",
        "localhost:99999",
        "localhost:0",
        "localhost:８０",
        "local host",
        "[::1",
        "[zz::1]",
        "localhost\t",
        "@localhost",
        "localhost/evil",
    ],
)
def test_host_header_is_parsed_strictly(client: TestClient, store: MemoryStore, host: str) -> None:
    response = client.post("/api/games", json={}, headers={"host": host.encode()})
    assert response.status_code == 421
    assert store.recent() == []


# ---------------------------------------------------------------- server errors and bodies


def test_server_errors_carry_the_security_headers(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = TestClient(create_app(store), base_url=LOCAL, raise_server_exceptions=False)
    game = client.post("/api/games", json={}).json()

    def broken(game_id: str) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "get", broken)
    response = client.get(f"/api/games/{game['id']}")
    assert response.status_code == 500
    assert "disk on fire" not in response.text
    assert response.json()["error"].startswith("something went wrong")
    for name, value in SECURITY_HEADERS:
        assert response.headers[name.decode()] == value.decode()


def _scope(path: str) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
        "headers": [(b"host", b"localhost"), (b"content-type", b"application/json"),
                    (b"content-length", b"100")],
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
    }


def _call(messages: list[dict[str, Any]], then_wait: bool) -> list[dict[str, Any]]:
    """Run the app on one request whose body arrives as ``messages``; after
    them the client either stalls (``then_wait``) or disconnects."""
    app = create_app(MemoryStore())
    sent: list[dict[str, Any]] = []
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        if queue:
            return queue.pop(0)
        if then_wait:
            await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(asyncio.wait_for(app(_scope("/api/games"), receive, send), 10))
    return sent


def test_a_half_sent_body_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_replies, "BODY_SECONDS", 0.2)
    sent = _call([{"type": "http.request", "body": b'{"var', "more_body": True}], then_wait=True)
    assert sent[0]["status"] == 408
    assert b"did not arrive" in sent[1]["body"]


def test_a_client_gone_mid_upload_is_no_error() -> None:
    sent = _call([{"type": "http.request", "body": b'{"var', "more_body": True}], then_wait=False)
    assert 400 <= sent[0]["status"] < 500


# ---------------------------------------------------------------- the guard's refusals


@pytest.mark.parametrize(
    ("request_args", "status", "code", "german"),
    [
        ({"method": "GET", "url": "/api/variants", "headers": {"host": "evil.example"}},
         421, "host-not-local", "nur Anfragen an diesen Computer"),
        ({"method": "POST", "url": "/api/games", "json": {}, "headers": {"origin": "http://evil.example"}},
         403, "cross-site", "anderen Websites"),
        ({"method": "GET", "url": "/api/variants", "headers": {"sec-fetch-site": "cross-site"}},
         403, "cross-site", "anderen Websites"),
        ({"method": "POST", "url": "/api/games", "content": b"{}",
          "headers": {"content-type": "application/json", "content-length": "99999"}},
         413, "body-too-large", "höchstens 16.384 Bytes"),
    ],
    ids=["host", "origin", "fetch-site", "length"],
)
def test_the_guard_refuses_with_a_code_in_the_requests_language(
    client: TestClient, store: MemoryStore, request_args: dict[str, Any], status: int, code: str, german: str,
) -> None:
    english = client.request(**request_args)
    assert english.status_code == status
    assert english.json()["code"] == code
    args = {**request_args, "headers": {**request_args["headers"], "accept-language": "de-DE,de;q=0.9"}}
    translated = client.request(**args)
    assert translated.status_code == status
    numbers = {"params": {"most": MAX_BODY}} if code == "body-too-large" else {}
    assert translated.json() == {"error": translated.json()["error"], "code": code, **numbers}
    assert german in translated.json()["error"]
    assert store.recent() == []


def test_a_missing_token_is_refused_with_a_code() -> None:
    guarded = TestClient(create_app(MemoryStore(), hint_seconds=0.2, token=RemoteKeys()), base_url=LOCAL)
    response = guarded.get("/api/variants", headers={"accept-language": "de"})
    assert response.status_code == 401
    assert response.json()["code"] == "token-needed"
    assert "Token" in response.json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1", "evil.example"])
def test_every_websocket_handshake_is_refused(client: TestClient, host: str) -> None:
    """The game has no WebSocket: a handshake is refused before the app, on
    any Host, so no future route could be reached around the checks."""
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as closed, \
            client.websocket_connect("/api/games", headers={"host": host}):
        pass
    assert closed.value.code == 1008


# ---------------------------------------------------------------- the guard alone, header by header


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def _guarded(headers: list[tuple[str, str]], method: str = "POST", query: str = "", *,
             hosts: tuple[str, ...] = (), token: str | None = None, path: str = "/api/games",
             server: tuple[str, int] | None = None) -> int:
    """The status the security middleware alone answers (the app behind it says 200)."""
    from terrace.web.security import SecurityMiddleware

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "query_string": query.encode(),
             "scheme": "http", "headers": [(k.encode(), v.encode()) for k, v in headers], "server": server}
    keys = None if token is None else RemoteKeys(cookie=token, link="l1nk")  # (the link: l1nk)
    asyncio.run(SecurityMiddleware(_ok, allowed_hosts=hosts, token=keys)(scope, receive, send))
    status: int = sent[0]["status"]
    return status


def test_the_guard_takes_exactly_one_host_and_at_most_one_origin() -> None:
    host, origin = ("host", "localhost:8000"), ("origin", "http://localhost:8000")
    assert _guarded([host, origin]) == 200
    assert _guarded([("host", "evil.example"), host, origin]) == 421
    assert _guarded([host, ("host", "evil.example"), origin]) == 421
    assert _guarded([host, origin, ("origin", "http://evil.example")]) == 403
    assert _guarded([host, origin, origin]) == 403


def test_the_guard_takes_the_address_the_request_arrived_at() -> None:
    """A computer on two networks (or with a VPN) prints the address of its
    default route's; a phone on the other network, given this computer's
    address there, was refused 421 host-not-local where it is asked for
    the token (401). A name is never taken so (DNS rebinding), nor
    another address."""
    there = ("192.168.50.7", 8000)

    def status(host: str, arrived_at: tuple[str, int]) -> int:
        return _guarded([("host", host)], "GET", path="/", hosts=("192.168.1.20",), token="t",
                        server=arrived_at)

    assert status("192.168.50.7:8000", there) == 401
    assert status("192.168.50.7:8000", ("::ffff:192.168.50.7", 8000)) == 401  # (a socket on ::)
    assert status("[fd00::7]:8000", ("fd00::7", 8000)) == 401
    assert status("192.168.50.7:8000", ("192.168.50.8", 8000)) == 421
    assert status("rebound.evil.example:8000", there) == 421
    assert status("192.168.1.20:8000", there) == 401


@pytest.mark.parametrize(("site", "status"), [("same-origin", 200), ("none", 200), ("same-site", 403),
                                              ("cross-site", 403), ("anything", 403)])
def test_a_write_from_a_sibling_site_is_refused(site: str, status: int) -> None:
    """Sec-Fetch-Site: same-site is another site of the same domain (a
    sibling subdomain), not the page itself."""
    assert _guarded([("host", "localhost"), ("sec-fetch-site", site)]) == status


def test_origin_null_is_taken_only_when_the_browser_vouches_for_the_page() -> None:
    """A browser that hides the page's origin (a privacy setting, a
    referrer policy) sends ``Origin: null``, which was refused outright:
    such a browser could not press the remote link's button. It is taken
    with ``Sec-Fetch-Site: same-origin``, or, from a browser that sends no
    ``Sec-Fetch-Site``, with one ``Referer`` on the page's own origin; a
    sandboxed frame of another site, which sends ``null`` too, is refused."""
    host, null = ("host", "localhost:8000"), ("origin", "null")
    for vouched in (("sec-fetch-site", "same-origin"), ("referer", "http://localhost:8000/?game=g"),
                    ("referer", "http://LOCALHOST:8000")):
        assert _guarded([host, null, vouched]) == 200, vouched
    for doubtful in ([], [("sec-fetch-site", "cross-site")], [("sec-fetch-site", "same-site")],
                     [("sec-fetch-site", "none")], [("referer", "http://evil.example/")],
                     [("referer", "http://localhost:8001/")], [("referer", "https://localhost:8000/")],
                     [("referer", "http://localhost:8000.evil.example/")],
                     [("referer", "http://x@localhost:8000/")],
                     [("sec-fetch-site", "cross-site"), ("referer", "http://localhost:8000/")],
                     [("referer", "http://localhost:8000/"), ("referer", "http://evil.example/")],
                     [("sec-fetch-site", "same-origin"), ("sec-fetch-site", "same-origin")]):
        assert _guarded([host, null, *doubtful]) == 403, doubtful


def test_a_body_of_exactly_the_largest_size_is_taken() -> None:
    from terrace.web.security import MAX_BODY

    host = ("host", "localhost")
    assert _guarded([host, ("content-length", str(MAX_BODY))]) == 200
    assert _guarded([host, ("content-length", str(MAX_BODY + 1))]) == 413


def test_a_name_the_server_was_given_matches_whole_and_in_any_case() -> None:
    hosts = ("Game.Example", "[::2]")
    for good in ("game.example", "GAME.example:8000", "game.example.", "[::2]:80"):
        assert _guarded([("host", good)], "GET", hosts=hosts) == 200, good
    for bad in ("evilgame.example", "game.example.evil", "x.game.example", "[::3]"):
        assert _guarded([("host", bad)], "GET", hosts=hosts) == 421, bad
    assert _guarded([("host", "localhost.")], "GET") == 200  # the root's dot names the same host


def test_the_token_opens_only_when_given_once_or_in_its_own_cookie() -> None:
    host = ("host", "localhost")
    for method in ("GET", "POST"):  # (the API takes no link, in either)
        assert _guarded([host], method, "token=l1nk", token="s3cret") == 401
    assert _guarded([host], "GET", "token=l1nk", token="s3cret", path="/") == 303  # (to its page)
    assert _guarded([host], "POST", "token=l1nk", token="s3cret", path="/") == 401  # (its page's button)
    assert _guarded([host], "POST", "token=s3cret", token="s3cret", path="/") == 401  # (no link)
    assert _guarded([host], "POST", "token=l1nk&token=l1nk", token="s3cret", path="/") == 401
    assert _guarded([host], "POST", "token=l1nk&token=guess", token="s3cret", path="/") == 401
    given = RemoteKeys(cookie="s3cret", link="l1nk").cookie_for("")  # (bound to the client: none here)
    assert _guarded([host, ("cookie", f"terrace_token={given}")], "GET", token="s3cret") == 200
    assert _guarded([host, ("cookie", "terrace_token=s3cret")], "GET", token="s3cret") == 401  # (unbound)
    assert _guarded([host, ("cookie", "terrace_token=guess")], "GET", token="s3cret") == 401
    assert _guarded([host, ("cookie", "terrace_token=")], "GET", token="s3cret") == 401


def test_an_ipv6_address_given_in_its_long_form_matches_the_short_one() -> None:
    """The link printed for --host fd00:0:0:0:0:0:0:2 opens: a browser sends
    the address in its shortest form."""
    hosts = ("fd00:0:0:0:0:0:0:2",)
    assert _guarded([("host", "[fd00::2]:8743")], "GET", hosts=hosts) == 200
    assert _guarded([("host", "[fd00:0:0:0:0:0:0:2]:8743")], "GET", hosts=hosts) == 200
    assert _guarded([("host", "[fd00::3]:8743")], "GET", hosts=hosts) == 421


@pytest.mark.parametrize(("path", "media"), [
    ("/static/js/main.js", "text/javascript"), ("/static/style.css", "text/css"), ("/", "text/html"),
    ("/favicon.svg", "image/svg+xml"), ("/favicon.ico", "image/x-icon"),
])
def test_the_pages_files_have_their_type_whatever_the_systems_table_says(
    monkeypatch: pytest.MonkeyPatch, client: TestClient, path: str, media: str
) -> None:
    """With ``nosniff`` a browser runs a module only as JavaScript and a
    style sheet only as CSS. Python guesses a file's type from the system's
    table (the registry on Windows, where an editor may have made ``.js``
    ``text/plain``): the page then stayed blank. Its files' types are the
    server's own."""
    table = mimetypes.MimeTypes()
    for extension in (".js", ".css", ".html", ".svg", ".ico"):
        table.add_type("text/plain", extension)
    monkeypatch.setattr(mimetypes, "_db", table)
    assert mimetypes.guess_type("main.js")[0] == "text/plain"  # (the broken table is the one used)
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == media
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("path", ["/", "/static/js/main.js", "/static/js/api.js", "/static/style.css",
                                  "/favicon.svg"])
def test_the_pages_files_are_asked_again_each_time(client: TestClient, path: str) -> None:
    """Without Cache-Control a browser keeps a file it got with a
    Last-Modified for a tenth of the file's age without asking (RFC 9111,
    4.2.2): after an update of Terrace, the page (asked again each time)
    ran the modules of the old version for days. Every file of the page is
    asked again (a module or the style sheet: a 304 when it has not changed)."""
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers.get("cache-control") == "no-cache"
    again = client.get(path, headers={"if-none-match": response.headers["etag"]})
    assert again.status_code == 304
    assert again.headers.get("cache-control") == "no-cache" and not again.content


@pytest.mark.parametrize("path", ["/", "/favicon.svg", "/favicon.ico"])
def test_the_page_and_its_icons_answer_304_when_unchanged(client: TestClient, path: str) -> None:
    """docs/api.md says a browser asking again gets a 304 when a file is
    unchanged; the page itself (``/``, what every load and reload asks
    first) and the icons were sent whole each time, with an ETag and a
    Last-Modified they never honoured (only ``/static/`` did)."""
    response = client.get(path)
    cache = response.headers["cache-control"]
    for asked in ({"if-none-match": response.headers["etag"]},
                  {"if-none-match": f'"other", W/{response.headers["etag"]}'},
                  {"if-modified-since": response.headers["last-modified"]}):
        again = client.get(path, headers=asked)
        assert again.status_code == 304, asked
        assert not again.content and again.headers["cache-control"] == cache
        assert again.headers["content-security-policy"] == response.headers["content-security-policy"]
    changed = client.get(path, headers={"if-none-match": '"other"'})
    assert changed.status_code == 200 and changed.content == response.content
    head = client.head(path, headers={"if-none-match": response.headers["etag"]})
    assert head.status_code == 304


def test_a_body_sent_in_chunks_beyond_the_limit_is_too_large(client: TestClient, store: MemoryStore) -> None:
    """A body with no Content-Length (sent in chunks) is counted as it
    comes: past MAX_BODY bytes it is a 413 body-too-large and no game is
    made (a mutation audit dropped that refusal and the refusal tests
    passed: only a Content-Length over the limit was tried)."""
    from terrace.web.replies import MAX_BODY

    def chunks() -> Iterator[bytes]:
        yield b'{"variant": "terrace", "pad": "'
        for _ in range(MAX_BODY // 1024 + 1):
            yield b"x" * 1024
        yield b'"}'

    before = snapshot(store)
    reply = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert (reply.status_code, reply.json()["code"]) == (413, "body-too-large")
    assert snapshot(store) == before


# ---------------------------------------------------------------- params


def test_a_refusal_carries_the_numbers_its_words_hold(client: TestClient) -> None:
    """A refusal's JSON said its words and code only, so a client wording it
    in its own way (the page's choose-first: "click one of the 4
    candidates") had to take the numbers from elsewhere: it carries them
    now, as params; one whose words hold no number (a card, a reason
    inside it) has none."""
    game = client.post("/api/games", json={"deal_number": 7, "options": {"candidates": 4}}).json()
    moved = client.post(f"/api/games/{game['id']}/moves", json={"move": "s"})
    assert moved.status_code == 422
    assert moved.json()["code"] == "choose-first" and moved.json()["params"] == {"candidates": 4}
    why = client.get(f"/api/games/{game['id']}/why", params={"pile": "reserve"}).json()
    assert why["code"] == "choose-first" and why["params"] == {"candidates": 4}
    client.post(f"/api/games/{game['id']}/moves", json={"move": "c2"})
    stuck = client.get(f"/api/games/{game['id']}/why", params={"pile": "reserve"}).json()
    assert stuck["code"] == "terrace-card-stuck" and "params" not in stuck
    step = client.get(f"/api/games/{game['id']}/position", params={"step": 9})
    assert step.json()["code"] == "step-range" and step.json()["params"] == {"last": 1}
    unknown = client.get("/api/nowhere")
    assert unknown.json() == {"error": "there is nothing at this address", "code": "not-found"}
    # (a number its words describe by its size is none of them: 4,299 digits, as JSON reads them)
    huge = client.post("/api/games", content=b'{"options": {"decks": 1' + b"0" * 4298 + b"}}",
                       headers={"content-type": "application/json"})
    assert huge.status_code == 400 and "a number of about 4299 digits" in huge.json()["error"]
    assert huge.json()["params"] == {"low": 1, "high": 8}
