"""The API against a hostile or sloppy client, on the SQLite store the
server really uses (and the memory store of ``--db :memory:`` where the
two differ):

* every route with every method, and odd game ids in the address;
* bodies that are not JSON, or JSON of the wrong type at any level (NaN,
  Infinity, 1e309, -0, floats and booleans where counts are meant, deep
  nesting, unknown fields, megabytes of text);
* two clients changing one game at once, and reads while games are made;
* the guard: Host, token.

Whatever arrives: no 5xx; a refusal is a 4xx with a code from the one table
of refusal codes, at that code's status, and a message; and it changes
nothing: not the game (revision, moves, redo line, status, counters), not
the statistics, not the event log, not the list of games.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import click
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route

import terrace.storage.memory
import terrace.storage.sqlite
from terrace.deal import Deal
from terrace.refusals import catalogues
from terrace.storage import GameStore, MemoryStore, SqliteStore, StoredGame, open_store
from terrace.storage.files import busy_error
from terrace.variants import get_rules
from terrace.web.app import create_app
from terrace.web.coach import CoachBudgets
from terrace.web.replies import RETRY_AFTER
from terrace.web.security import MAX_BODY, RemoteKeys, token_cookie
from terrace.web.workers import SolverPool
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STATUS_OF = {code.value: wording.status for table in catalogues().values() for code, wording in table.items()}
"""Every refusal code and its status: the one table refusals come from."""
JSON_TYPE = {"content-type": "application/json"}
FAST = CoachBudgets(analysis=0.2, chances=0.2, warn=0.1)


def _client(store: GameStore, **options: Any) -> TestClient:
    app = create_app(store, hint_seconds=0.05, winnable_seconds=0.2, coach=FAST,
                     pool=SolverPool(workers=1, waiting=1), **options)
    return TestClient(app, base_url=LOCAL, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def sqlite_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqliteStore]:
    store = open_store(tmp_path_factory.mktemp("hostile") / "games.sqlite")
    yield store
    store.close()


@pytest.fixture(scope="module")
def client(sqlite_store: SqliteStore) -> Iterator[TestClient]:
    with _client(sqlite_store) as test_client:
        yield test_client


def new_game(client: TestClient) -> str:
    """A game with moves played and one taken back: something to undo,
    redo and restart."""
    game = client.post("/api/games", json={"deal_number": 7}).json()
    for move in ("c2", "s", "s"):
        assert client.post(f"/api/games/{game['id']}/moves", json={"move": move}).status_code == 200
    assert client.post(f"/api/games/{game['id']}/undo", json={}).status_code == 200
    return str(game["id"])


@pytest.fixture(scope="module")
def games(client: TestClient) -> dict[str, str]:
    return {"id": new_game(client)}


@pytest.fixture
def game_id(client: TestClient, games: dict[str, str]) -> str:
    """The game the requests go to: the fuzzing may play it on, or give it
    up, and then gets a new one to play with."""
    game = client.get(f"/api/games/{games['id']}").json()
    if game["given_up"] or game["status"] not in ("choosing", "playing") or game["moves"] > 50:
        games["id"] = new_game(client)
    return games["id"]


def world(client: TestClient, store: SqliteStore, game_id: str) -> dict[str, Any]:
    """Everything a refusal must leave alone: the game as stored, the
    statistics the page shows, the event log, the list of games."""
    game = store.get(game_id)
    return {
        "game": (game.revision, game.moves, game.redo, game.status, game.hints, game.undos, game.assisted,
                 game.active_ms, game.given_up_at, game.won_at, game.updated_at),
        "stats": client.get("/api/stats").json(),
        "events": store.history(game_id),
        "games": store.game_ids(),
    }


def assert_clear_refusal(response: Any, context: object) -> None:
    """A 4xx JSON body with a message and a code of the table, at its status."""
    assert 400 <= response.status_code < 500, (context, response.status_code, response.text[:300])
    body = response.json()
    assert isinstance(body.get("error"), str) and body["error"], (context, body)
    assert STATUS_OF.get(body.get("code")) == response.status_code, (context, response.status_code, body)


def answered_well(response: Any, context: object) -> bool:
    """True for an accepted request; a refusal must be clear; never a 5xx
    (but a busy solver's 503 with Retry-After)."""
    if response.status_code == 503 and "retry-after" in response.headers:
        return False
    assert response.status_code < 500, (context, response.status_code, response.text[:300])
    if response.status_code >= 400:
        if response.request.method != "HEAD":
            assert_clear_refusal(response, context)
        return False
    return True


# ---------------------------------------------------------------- every route, every method

METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"]


def api_routes(client: TestClient) -> list[Route]:
    routes = [r for r in client.app.routes if isinstance(r, Route)]  # type: ignore[attr-defined]
    assert len(routes) > 20
    return routes


def test_every_route_with_every_method_answers_clearly(client: TestClient, sqlite_store: SqliteStore) -> None:
    """Each route from the app itself (a new one is covered too), each
    method, with an empty JSON body: allowed or 405 with the Allow header,
    never a 5xx, and only an allowed POST may change anything."""
    game_id = new_game(client)
    for route in api_routes(client):
        path = route.path.replace("{game_id}", game_id)
        allowed = route.methods or set()
        before = world(client, sqlite_store, game_id)
        for method in [m for m in METHODS if m not in allowed] + sorted(allowed & {"GET", "HEAD"}):
            response = client.request(method, path, content=b"{}", headers=JSON_TYPE)
            context = (method, route.path)
            if method not in allowed:
                assert response.status_code == 405, (context, response.status_code)
                assert set(response.headers["allow"].split(", ")) == allowed, context
            answered_well(response, context)
        assert world(client, sqlite_store, game_id) == before, route.path
        if "POST" in allowed:
            answered_well(client.post(path, content=b"{}", headers=JSON_TYPE), ("POST", route.path))


def _in_address(text: str) -> str:
    """``text`` as one segment of an address, every byte but letters and
    digits percent-encoded (dots too: the client would resolve ``..``)."""
    return quote(text, safe="").replace(".", "%2E")


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    segment=st.one_of(
        st.text(min_size=1, max_size=40).map(_in_address),
        st.text(alphabet="0123456789abcdef", min_size=15, max_size=17),
        st.sampled_from(["%2F", "a%2Fb", "%00", "%C3%A9", "%2E%2E", "%2e", "%D9%A3%D9%A3", "x" * 5000,
                         "9" * 400, "current%20", "%ff%fe", "ABCDEF0123456789", "%25", "%", "%%32%66"]),
    ),
    tail=st.sampled_from(["", "/moves", "/undo", "/give-up", "/position?step=0", "/check?move=s",
                          "/why?pile=t1", "/rules", "/hint", "/coach", "/time"]),
)
def test_odd_game_ids_are_unknown_and_change_nothing(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, segment: str, tail: str
) -> None:
    path = "/api/games/" + segment + tail
    method = "GET" if tail.startswith(("/position", "/check", "/why", "/rules")) or not tail else "POST"
    before = world(client, sqlite_store, game_id)
    response = client.request(method, path, content=b"{}", headers=JSON_TYPE)
    assert response.status_code in (404, 405), (path, response.status_code, response.text[:200])
    assert_clear_refusal(response, path)
    assert world(client, sqlite_store, game_id) == before


# ---------------------------------------------------------------- bodies

POSTS = ["/api/games", "GAME/moves", "GAME/undo", "GAME/redo", "GAME/restart", "GAME/hint",
         "GAME/analysis", "GAME/autoplay", "GAME/give-up", "GAME/time", "GAME/coach", "GAME/chances",
         "GAME/warn"]
FIELDS = ["move", "after", "revision", "mode", "ms", "peek", "variant", "options", "deal_number",
          "winnable", "decks", "candidates"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.floats(), st.just(-0.0),
    st.sampled_from([0, 1, 2, 10**300, -1, 1.0, 0.0, 2.5, "1", "٣", "²", "s", "c1", "c2", "wf", "t1t2",
                     "safe", "finish", "terrace", "x" * 5000, "", " ", "\x00", "\ud800", "NaN"]),
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner,
                                                                         max_size=3),
    max_leaves=5,
)
RAW_BODIES = [
    b"NaN", b"Infinity", b"-Infinity", b"1e309", b"-0", b"[]", b"null", b"true", b'"{}"', b"{",
    b'{"after": NaN}', b'{"after": Infinity}', b'{"after": 1e309}', b'{"revision": -Infinity}',
    b'{"ms": NaN}', b'{"ms": 1e400}', b'{"deal_number": NaN}', b'{"deal_number": 1e309}',
    b'{"options": {"decks": Infinity}}', b'{"options": {"candidates": NaN}}',
    b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000,
    b'{"move": ' + b"[" * 1000 + b"]" * 1000 + b"}",
    b'{"options": ' + b'{"decks":' * 999 + b"1" + b"}" * 1000,
    b"\xff\xfe\x00", b'{"move": "\xff"}', b'{"move": "\\ud800"}', b"\x00", b"{}" * 2,
    b'{"deal_number": ' + b"9" * 4400 + b"}", b'{"ms": ' + b"9" * 4000 + b"}",
    b'{"after": 0, "after": "x"}', b'{"move": 1, "move": "\\u0663"}',
]


def _body(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


@settings(max_examples=250, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    target=st.sampled_from(POSTS),
    body=st.one_of(
        VALUES.map(_body),
        st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=3).map(_body),
        st.sampled_from(RAW_BODIES),
        st.binary(max_size=30),
    ),
    content_type=st.sampled_from(["application/json"] * 8 + [
        "application/json; charset=utf-8", "Application/JSON", "text/plain", "application/jsonx",
        "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "json"]),
    query=st.sampled_from([{}] * 6 + [{"move": "s"}, {"after": "0"}, {"ms": "5"}, {"mode": "safe"}]),
    language=st.sampled_from([b"en", b"de", b"de-DE,de;q=0.9", b"de;q=nan", b"*;q=1e999", "de;q=٣".encode(),
                              b"\xff" * 300, b""]),
)
def test_no_body_breaks_a_post_and_a_refused_one_changes_nothing(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, target: str, body: bytes,
    content_type: str, query: dict[str, str], language: bytes,
) -> None:
    path = target.replace("GAME", f"/api/games/{game_id}")
    before = world(client, sqlite_store, game_id)
    response = client.post(path, content=body, params=query,
                           headers={"content-type": content_type.encode(), "accept-language": language})
    context = (path, body[:80], content_type, query)
    if not answered_well(response, context):
        assert world(client, sqlite_store, game_id) == before, context
    if content_type.split(";")[0].strip().lower() != "application/json" and len(body) <= MAX_BODY:
        assert response.json()["code"] == "body-not-json-type", context


def test_a_value_nested_as_deep_as_json_goes_is_refused_clearly(
    client: TestClient, sqlite_store: SqliteStore, game_id: str
) -> None:
    """Every depth up to where JSON itself gives up (body-not-json). Before,
    a rule option nested about 960 deep (2 KB of brackets) answered 500:
    the refusal quoted the value with repr(), which ran out of stack."""
    before = world(client, sqlite_store, game_id)
    for depth in range(900, 1001):
        for opener, closer in ("[", "]"), ('{"a":', "}"):
            body = '{"options": {"decks": ' + opener * depth + "1" + closer * depth + "}}"
            response = client.post("/api/games", content=body.encode(), headers=JSON_TYPE)
            assert_clear_refusal(response, (depth, opener))
    assert world(client, sqlite_store, game_id) == before


@pytest.mark.parametrize("body", [
    '{"move": "s", "move": "c1"}',
    '{"move": "c1", "after": 0, "after": 5}',
    '{"move": "c1", "options": {"decks": 1, "decks": 2}}',
])
def test_a_key_given_twice_is_refused_not_left_to_the_last(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, body: str
) -> None:
    """``{"move": "s", "move": "c1"}`` played c1: the last of two keys won
    without a word, where the client may have meant the first."""
    before = world(client, sqlite_store, game_id)
    response = client.post(f"/api/games/{game_id}/moves", content=body.encode(), headers=JSON_TYPE)
    assert_clear_refusal(response, body)
    assert response.json()["code"] == "json-duplicate-key", response.json()
    german = client.post(f"/api/games/{game_id}/moves", content=body.encode(),
                         headers={**JSON_TYPE, "accept-language": "de"})
    assert german.json()["error"].startswith("Der Schlüssel „"), german.json()
    assert world(client, sqlite_store, game_id) == before


@pytest.mark.parametrize("body", [
    '{"move": "c1", "after": NaN}',
    '{"ms": Infinity}',
    '{"options": {"decks": -Infinity}}',
    '[NaN]',
])
def test_nan_and_infinity_are_no_json_numbers(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, body: str
) -> None:
    """Python's reader took ``NaN``, ``Infinity`` and ``-Infinity`` as
    numbers (JSON has none of them), and the refusal then blamed the field
    (``after-not-count``) or the body's shape; the JSON itself is refused."""
    before = world(client, sqlite_store, game_id)
    for path in (f"/api/games/{game_id}/moves", f"/api/games/{game_id}/time", "/api/games"):
        response = client.post(path, content=body.encode(), headers=JSON_TYPE)
        assert_clear_refusal(response, body)
        assert response.json()["code"] == "json-not-a-number", response.json()
        assert response.json()["error"].startswith(body.split(": ")[-1].strip("[]{}")), response.json()
        german = client.post(path, content=body.encode(), headers={**JSON_TYPE, "accept-language": "de"})
        assert "ist keine Zahl in JSON" in german.json()["error"], german.json()
    assert world(client, sqlite_store, game_id) == before


@pytest.mark.parametrize(("path", "body", "number"), [
    ("", '{"deal_number": 1e400}', "1e400"),
    ("", '{"options": {"candidates": -1E+400}}', "-1E+400"),
    ("", '{"options": {"decks": 3e-400}, "variant": "terrace"}', "3e-400"),
    ("/time", '{"ms": 1e400}', "1e400"),
    ("/time", '{"ms": 2.5e-999}', "2.5e-999"),
    ("/moves", '{"move": "c1", "after": 1e-400}', "1e-400"),
    ("/moves", '{"move": "c1", "revision": 1.7976931348623159e308}', "1.7976931348623159e308"),
    ("/hint", '{"after": -1e400}', "-1e400"),
    ("/undo", '{"revision": [1e999]}', "1e999"),
])
def test_numbers_beyond_a_float_are_refused_as_written(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, path: str, body: str, number: str
) -> None:
    """Python's reader took 1e400 as inf and 1e-400 as 0.0, and each field
    then refused a number the request did not hold ("a deal number must be
    a whole number, not inf", "candidates ... not 0.0"): every number of
    every body, nested ones too, that a float cannot hold is refused as
    the JSON it is, quoting it as it was written."""
    before = world(client, sqlite_store, game_id)
    where = "/api/games" + (f"/{game_id}{path}" if path else "")
    response = client.post(where, content=body.encode(), headers=JSON_TYPE)
    assert_clear_refusal(response, body)
    assert response.json()["code"] == "json-number-range", response.json()  # (before: the field's code)
    assert response.json()["error"].startswith(f"{number} is beyond the numbers read here"), response.json()
    german = client.post(where, content=body.encode(), headers={**JSON_TYPE, "accept-language": "de"})
    assert german.json()["error"].startswith(f"{number} liegt außerhalb"), german.json()
    assert world(client, sqlite_store, game_id) == before


@pytest.mark.parametrize(("body", "code", "german"), [
    ("[" * 8000 + "]" * 8000, "json-too-deep", "zu tief verschachtelt"),
    ('{"move": ' + "[" * 4000 + "]" * 4000 + "}", "json-too-deep", "zu tief verschachtelt"),
    ('{"after": ' + "9" * 5000 + "}", "json-number-too-long", "mehr als 4300 Ziffern"),
])
def test_json_too_deep_or_too_long_for_the_reader_is_refused_as_such(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, body: str, code: str, german: str
) -> None:
    """JSON nested deeper than Python's reader goes, or with a number
    longer than its limit, is JSON all the same (RFC 8259 sets no limit):
    it was refused as "the body is not valid JSON"; the refusal now says
    what is too much, as ``terrace import`` said it of a file."""
    before = world(client, sqlite_store, game_id)
    for path in (f"/api/games/{game_id}/moves", "/api/games"):
        response = client.post(path, content=body.encode(), headers=JSON_TYPE)
        assert_clear_refusal(response, body[:20])
        assert (response.status_code, response.json()["code"]) == (400, code), response.json()
        words = client.post(path, content=body.encode(), headers={**JSON_TYPE, "accept-language": "de"})
        assert german in words.json()["error"], words.json()
    assert world(client, sqlite_store, game_id) == before


def test_a_body_with_a_content_encoding_is_refused_as_such(
    client: TestClient, sqlite_store: SqliteStore, game_id: str
) -> None:
    """The body was read as it came, whatever its Content-Encoding said: a
    gzipped body was blamed as no JSON, and a plain one labelled gzip
    played its move."""
    import gzip

    before = world(client, sqlite_store, game_id)
    body = b'{"move": "c1"}'
    for encoding, sent in (("gzip", gzip.compress(body)), ("gzip", body), ("identity, br", body),
                           ("deflate", body)):
        headers = {**JSON_TYPE, "content-encoding": encoding}
        response = client.post(f"/api/games/{game_id}/moves", content=sent, headers=headers)
        assert_clear_refusal(response, encoding)
        assert (response.status_code, response.json()["code"]) == (415, "body-encoded"), response.json()
        german = client.post(f"/api/games/{game_id}/moves", content=sent,
                             headers={**headers, "accept-language": "de"})
        assert "ohne Content-Encoding" in german.json()["error"]
    assert world(client, sqlite_store, game_id) == before
    plain = client.post("/api/games", json={"deal_number": 7}, headers={"content-encoding": "identity"})
    assert plain.status_code == 201, plain.text


def test_a_body_in_another_charset_than_utf_8_is_refused_as_such(
    client: TestClient, sqlite_store: SqliteStore, game_id: str
) -> None:
    """The body was read as UTF-8 whatever its ``charset`` said: one in
    UTF-16 was blamed as no JSON, and one labelled Latin-1 (or UTF-16)
    but sent in ASCII played its move."""
    before = world(client, sqlite_store, game_id)
    body = '{"move": "c1"}'
    for charset, sent in (("utf-16", body.encode("utf-16")), ("utf-16", body.encode()),
                          ('"ISO-8859-1"', body.encode()), ("", body.encode())):
        headers = {"content-type": f"application/json; charset={charset}"}
        response = client.post(f"/api/games/{game_id}/moves", content=sent, headers=headers)
        assert_clear_refusal(response, charset)
        assert (response.status_code, response.json()["code"]) == (415, "body-charset"), response.json()
        assert repr(charset.strip('"')) in response.json()["error"]
        german = client.post(f"/api/games/{game_id}/moves", content=sent,
                             headers={**headers, "accept-language": "de"})
        assert "in UTF-8 senden" in german.json()["error"]
    assert world(client, sqlite_store, game_id) == before
    for charset in ("utf-8", "UTF-8", '"utf-8"', "utf8"):
        made = client.post("/api/games", content=b'{"deal_number": 7}',
                           headers={"content-type": f"application/json;charset={charset}"})
        assert made.status_code == 201, (charset, made.text)


def test_ten_megabytes_of_text_are_refused_without_reading_them(
    client: TestClient, sqlite_store: SqliteStore, game_id: str
) -> None:
    text = b'{"move": "' + b"s" * 10_000_000 + b'"}'
    before = world(client, sqlite_store, game_id)
    declared = client.post(f"/api/games/{game_id}/moves", content=text, headers=JSON_TYPE)
    streamed = client.post(f"/api/games/{game_id}/moves", headers=JSON_TYPE,
                           content=(text[i:i + 65536] for i in range(0, len(text), 65536)))
    for response in (declared, streamed):
        assert response.status_code == 413
        assert_clear_refusal(response, "10 MB")
    assert world(client, sqlite_store, game_id) == before


@pytest.mark.parametrize("path", ["/", "/favicon.ico", "/favicon.svg", "/static/js/main.js"])
def test_the_pages_files_are_sent_whole_whatever_range_is_asked(client: TestClient, path: str) -> None:
    """Before, Starlette's range support answered a Range it could not read
    with a plain-text 400 and one past the end with an empty 416 (no JSON,
    no code); the files are small, and now always sent whole."""
    whole = client.get(path)
    assert whole.status_code == 200 and "accept-ranges" not in whole.headers
    for asked in ("bytes=0-10", "bytes=-5", "bytes=10-0", "bytes=99999999-", "items=0-1", "bytes=x-y",
                  "bytes=" + ",".join(["0-"] * 50)):
        for extra in ({}, {"if-range": whole.headers["etag"]}):
            response = client.get(path, headers={"range": asked, **extra})
            assert response.status_code == 200, (asked, response.status_code, response.text[:80])
            assert response.content == whole.content, asked
            assert "content-range" not in response.headers and "accept-ranges" not in response.headers


# ---------------------------------------------------------------- queries

GETS = ["/api/games", "/api/rules", "GAME/position", "GAME/check", "GAME/why", "GAME/rules", "GAME",
        "/api/games/current", "/api/stats", "/api/variants"]
QUERY_VALUES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["0", "1", "-0", "-1", "1.0", "1e3", "٣", "²", "𝟓", "9" * 40, "", "t1", "T1", "stock",
                     "waste", "reserve", "f1", "f0", "t0", "s", "wf", "t1t1", "%00", "x" * 3000]),
)


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    target=st.sampled_from(GETS),
    query=st.lists(st.tuples(st.sampled_from(["recent", "step", "move", "pile", "index", "variant", "x"]),
                             QUERY_VALUES), max_size=3),
    method=st.sampled_from(["GET", "GET", "HEAD"]),
)
def test_no_query_breaks_a_read_and_no_read_changes_anything(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, target: str,
    query: list[tuple[str, str]], method: str,
) -> None:
    path = target.replace("GAME", f"/api/games/{game_id}")
    before = world(client, sqlite_store, game_id)
    response = client.request(method, path, params=query)
    answered_well(response, (method, path, query))
    assert world(client, sqlite_store, game_id) == before, (method, path, query)


# ---------------------------------------------------------------- two clients at once


@pytest.fixture(params=["memory", "sqlite"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GameStore]:
    if request.param == "memory":
        yield MemoryStore()
    else:
        store = open_store(tmp_path / "games.sqlite")
        yield store
        store.close()


@pytest.fixture
def slow_writes(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Every store checks a game (replaying it) before writing it; once the
    event is set, that takes 0.2 s longer, so that two writers started
    together are both inside the store at once, as on a busy machine with a
    long game."""
    slow = threading.Event()
    for module in (terrace.storage.memory, terrace.storage.sqlite):
        real: Callable[[StoredGame], Any] = module.check_game

        def slowed(game: StoredGame, real: Callable[[StoredGame], Any] = real) -> Any:
            if slow.is_set():
                threading.Event().wait(0.2)
            return real(game)

        monkeypatch.setattr(module, "check_game", slowed)
    return slow


def _at_once(client: TestClient, requests: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The POSTs sent together from as many threads; their answers in order."""
    answers: list[Any] = [None] * len(requests)
    start = threading.Barrier(len(requests))

    def send(i: int) -> None:
        path, body = requests[i]
        start.wait()
        answers[i] = client.post(path, json=body)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


RACES = {
    "two undos": [("undo", {}), ("undo", {})],
    "a move and an undo": [("moves", {"move": "s"}), ("undo", {})],
    "a give-up and a move": [("give-up", {}), ("moves", {"move": "s"})],
    "two different moves": [("moves", {"move": "s"}), ("moves", {"move": "OTHER"})],
    "a restart and a redo": [("restart", {}), ("redo", {})],
}
"""Changes that two clients who saw the same game send at once (OTHER: a
legal move other than a draw)."""


@pytest.mark.parametrize("race", list(RACES))
@pytest.mark.parametrize("revision", [True, False], ids=["with-revision", "sloppy"])
def test_two_clients_changing_one_game_at_once_store_what_one_order_gives(
    any_store: GameStore, slow_writes: threading.Event, race: str, revision: bool
) -> None:
    """Both clients saw the same game. Each accepted change is stored on
    top of the one before (revisions one apart) and the stored game is the
    last accepted answer; a change asked with the revision it saw loses to
    the other with a 409 ``conflict``. Before, the memory store (``--db
    :memory:``) took both of two such changes, answered 200 twice with the
    same revision, and kept only one of them."""
    with _client(any_store) as client:
        game = client.post("/api/games", json={"deal_number": 7}).json()
        base = f"/api/games/{game['id']}"
        for move in ("c2", "s", "s", "s"):
            client.post(f"{base}/moves", json={"move": move})
        seen = client.post(f"{base}/undo", json={}).json()
        other = next(m for m in seen["legal_moves"] if m != "s")
        requests = [(f"{base}/{action}", {**{k: other if v == "OTHER" else v for k, v in body.items()},
                                           **({"revision": seen["revision"]} if revision else {})})
                    for action, body in RACES[race]]
        slow_writes.set()
        answers = _at_once(client, requests)
        slow_writes.clear()
        told = [(a.status_code, a.text[:120]) for a in answers]
        accepted = sorted((a.json() for a in answers if a.status_code == 200), key=lambda g: g["revision"])
        revisions = [g["revision"] for g in accepted]
        assert revisions == list(range(seen["revision"] + 1, seen["revision"] + 1 + len(accepted))), told
        assert len(accepted) == 1 or not revision, told
        for refused in (a for a in answers if a.status_code != 200):
            assert_clear_refusal(refused, told)  # (sloppy: the other change may have made it illegal)
            assert refused.json()["code"] == "conflict" or not revision, told
        stored = client.get(base).json()
        for key in ("revision", "moves", "redo", "status", "given_up", "undos", "state"):
            assert stored[key] == accepted[-1][key], (key, told)


class HeldStore(MemoryStore):
    """A memory store whose writes wait until :attr:`go` is set, as writes
    to a database that another program holds locked wait (up to 10 s)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()
        self.waiting = 0

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        self.waiting += 1
        self.go.wait(10)
        super().update(game, expected_revision=expected_revision, action=action)


def _reads_while_writes_wait(held: int,
                             paths: Callable[[str], list[str]]) -> tuple[list[float], list[int], int]:
    """``held`` + 5 moves sent at once to a game of a store whose writes
    wait (:class:`HeldStore`); once ``held`` of them wait, each of the
    ``paths`` (of the game's id) is read in turn. Returns each read's
    seconds and status, and how many moves were played once the writes
    went on. (The writes wait until the reads are done: a read behind them
    never comes, and fails at 30 s; the tests' bound is half of that, where
    2 s left a loaded machine's pauses little room.)"""
    store = HeldStore()
    app = create_app(store)
    game = store.create("terrace", get_rules("terrace"), Deal.from_number(7, get_rules("terrace")))

    async def attack() -> tuple[list[float], list[int], int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=LOCAL) as client:
            moves = [asyncio.ensure_future(client.post(f"/api/games/{game.id}/moves", json={"move": "c1"}))
                     for _ in range(held + 5)]
            while store.waiting < held:  # (every thread they may take held)
                await asyncio.sleep(0.01)
            took, statuses = [], []
            try:
                for path in paths(game.id):
                    began = time.monotonic()
                    statuses.append((await asyncio.wait_for(client.get(path), 30)).status_code)
                    took.append(time.monotonic() - began)
            finally:
                store.go.set()
            answers = await asyncio.gather(*moves)
        return took, statuses, sum(answer.status_code == 200 for answer in answers)

    return asyncio.run(attack())


def test_the_page_s_files_come_while_many_writes_wait_for_the_database() -> None:
    """Moves waiting for a database another program holds took every one
    of the 40 threads Starlette also serves the page's files from: with 60
    moves sent at once against terrace play, main.js took 9.6 s to come.
    The game's requests have threads of their own (GAME_THREADS)."""
    from terrace.web.endpoints import GAME_THREADS

    took, statuses, moved = _reads_while_writes_wait(GAME_THREADS, lambda _: ["/static/js/main.js"])
    assert (statuses, moved) == ([200], 1)  # (the others saw the game change: conflict)
    assert took[0] < 15, took


def test_the_game_is_read_while_many_writes_wait_for_the_database() -> None:
    """Moves waiting for a database another program holds took every one of
    the game's threads, which its reads needed too: with 60 moves sent at
    once against terrace play, the statistics took 10.0 s to come (the
    moves' whole wait), and the page looked frozen. Changes have threads of
    their own (WRITE_THREADS)."""
    from terrace.web.endpoints import WRITE_THREADS

    took, statuses, moved = _reads_while_writes_wait(WRITE_THREADS, lambda game_id: [
        "/api/stats", "/api/games", f"/api/games/{game_id}", "/api/current-game"])
    assert (statuses, moved) == ([200] * 4, 1)  # (the other moves saw the game change: conflict)
    assert max(took) < 15, took


class BusyStore(MemoryStore):
    """A store whose file another program holds: every change and the
    statistics are refused as busy, as the SQLite store refuses them after
    its 10 s."""

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        raise busy_error("games.sqlite", action)

    def statistics(self, zone: Any = None) -> Any:
        raise busy_error("games.sqlite")


def test_a_database_another_program_holds_is_refused_with_retry_after() -> None:
    """A move not saved, or the statistics not read, because another program
    held the database were 503 without Retry-After, unlike the solver's own
    busy refusals: a script had no word on when to ask again."""
    store = BusyStore()
    game = store.create("terrace", get_rules("terrace"), Deal.from_number(7, get_rules("terrace")))
    with _client(store) as client:
        moved = client.post(f"/api/games/{game.id}/moves", json={"move": "c1"})
        stats = client.get("/api/stats")
    assert (moved.status_code, moved.json()["code"]) == (503, "not-saved")
    assert (stats.status_code, stats.json()["code"]) == (503, "store-unavailable")
    assert moved.headers.get("retry-after") == stats.headers.get("retry-after") == str(RETRY_AFTER)


def test_the_memory_store_reads_its_games_while_one_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """The statistics walk every game; a game made meanwhile (another tab,
    another client) waits for the walk. Before, the memory store's walk
    failed with 'dictionary changed size during iteration': a 500."""
    walking, made = threading.Event(), threading.Event()
    real = StoredGame.facts

    def facts(game: StoredGame) -> Any:
        walking.set()
        made.wait(0.3)  # (the new game is made now, unless the store makes it wait)
        return real(game)

    with _client(MemoryStore()) as client:
        for number in (1, 2):
            client.post("/api/games", json={"deal_number": number})
        monkeypatch.setattr(StoredGame, "facts", facts)
        answers: dict[str, Any] = {}

        def make() -> None:
            walking.wait(5)
            answers["made"] = client.post("/api/games", json={"deal_number": 3})
            made.set()

        maker = threading.Thread(target=make)
        maker.start()
        answers["stats"] = client.get("/api/stats")
        maker.join()
        monkeypatch.undo()
        assert answers["stats"].status_code == 200, answers["stats"].text
        assert answers["made"].status_code == 201
        assert client.get("/api/stats").json()["overall"]["played"] == 0  # (none has a move yet)
        assert len(client.get("/api/games").json()["games"]) == 3


def test_many_games_made_at_once_are_all_kept(any_store: GameStore) -> None:
    with _client(any_store) as client:
        answers = _at_once(client, [("/api/games", {"deal_number": n}) for n in range(8)])
        assert [a.status_code for a in answers] == [201] * 8
        ids = {a.json()["id"] for a in answers}
        assert len(ids) == 8
        assert {g["id"] for g in client.get("/api/games").json()["games"]} == ids


# ---------------------------------------------------------------- the guard

TOKEN = "k" * 32
"""The cookie's secret (remote play's keys: :func:`_keys`)."""
LINK = "l" * 32
"""The link's token, good for one use."""
COOKIE = token_cookie(8000)
"""The token cookie's name at ``192.168.1.20:8000``, the address the remote tests use."""
SENT = RemoteKeys(cookie=TOKEN, link=LINK).cookie_for("testclient")
"""The game's cookie a test client is given: the secret bound to its address."""


@pytest.mark.parametrize(("host", "status"), [
    ("localhost", 200), ("LOCALHOST", 200), ("LocalHost:8000", 200), ("localhost.", 200),
    ("127.0.0.1.", 200), ("[::1]", 200), ("[::1]:65535", 200), ("[0:0:0:0:0:0:0:1]", 200),
    ("::1", 421), ("127.1", 421), ("127.0.0.2", 421), ("2130706433", 421), ("[::ffff:127.0.0.1]", 421),
    ("localhost..", 421), (".localhost", 421), ("localhost.evil.example", 421), ("evil.localhost", 421),
    ("xn--localhost", 421), ("localhost:65536", 421), ("localhost:-1", 421), ("", 421),
])
def test_only_this_computers_names_are_answered(
    client: TestClient, sqlite_store: SqliteStore, game_id: str, host: str, status: int
) -> None:
    before = world(client, sqlite_store, game_id)
    response = client.post("/api/games", json={}, headers={"host": host})
    if status == 200:
        assert response.status_code == 201, (host, response.text)
        return
    assert response.status_code == status, host
    assert_clear_refusal(response, host)
    assert world(client, sqlite_store, game_id) == before


@pytest.mark.parametrize(("headers", "query", "method", "status"), [
    ({}, "", "GET", 401),
    ({"cookie": f"{COOKIE}={'K' * 32}"}, "", "GET", 401),  # (wrong, of the right length)
    ({"cookie": f"{COOKIE}={SENT[:-1]}"}, "", "GET", 401),
    ({"cookie": f"{COOKIE}={SENT}k"}, "", "GET", 401),
    ({"cookie": f"{COOKIE.title()}={SENT}"}, "", "GET", 401),
    ({"cookie": f"other={SENT}"}, "", "GET", 401),
    ({"cookie": f"{token_cookie(8001)}={SENT}"}, "", "GET", 401),  # (another server's, on port 8001)
    ({"cookie": f"{token_cookie(None)}={SENT}"}, "", "GET", 401),
    ({"authorization": f"Bearer {TOKEN}"}, "", "GET", 401),
    ({"x-token": TOKEN}, "", "GET", 401),
    ({}, f"TOKEN={LINK}", "GET", 401),
    ({}, f"token={'K' * 32}", "GET", 401),
    ({}, f"token={TOKEN}", "GET", 401),  # (the cookie's secret is no link)
    ({}, f"token={LINK}", "POST", 401),  # (a POST needs the cookie)
    ({}, f"token={LINK}", "GET", 401),  # (the API takes no link: the link opens the page)
    ({"cookie": f"{COOKIE}={TOKEN}"}, "", "GET", 401),  # (the secret itself, unbound)
    ({"cookie": f"{COOKIE}={SENT}"}, "", "GET", 200),
    ({"cookie": f"{COOKIE}={SENT}"}, "", "POST", 201),
])
def test_remote_play_opens_only_with_the_token(
    headers: dict[str, str], query: str, method: str, status: int
) -> None:
    keys = RemoteKeys(cookie=TOKEN, link=LINK)
    with _client(MemoryStore(), token=keys, allowed_hosts=("192.168.1.20",)) as client:
        client.follow_redirects = False
        headers = {"host": "192.168.1.20:8000", **headers, **JSON_TYPE}
        path = "/api/games" + (f"?{query}" if query else "")
        response = client.request(method, path, headers=headers, content=b"{}")
        assert response.status_code == status, (headers, query, method, response.text)
        if status >= 400:
            assert_clear_refusal(response, (headers, query))
            assert response.headers["connection"] == "close"
        if status == 303:
            assert response.headers["location"] == "/api/games"
            assert f"{COOKIE}={SENT};" in response.headers["set-cookie"]
        client.cookies.clear()
        games = client.get("/api/games", headers={"cookie": f"{COOKIE}={SENT}", "host": headers["host"]})
        assert len(games.json()["games"]) == (1 if status == 201 else 0)


def test_the_token_is_never_echoed(caplog: pytest.LogCaptureFixture) -> None:
    """Only the redirect's cookie carries the token: no body, no other
    header, no log line, also when the request quotes the token itself."""
    with _client(MemoryStore(), token=RemoteKeys(cookie=TOKEN, link=LINK)) as client:
        client.follow_redirects = False
        cookie = {"cookie": f"terrace_token={SENT}"}
        page = client.get(f"/?token={LINK}")
        assert page.status_code == 303 and TOKEN not in page.text and TOKEN not in str(page.headers)
        first = client.post("/")
        assert first.status_code == 303 and TOKEN not in first.text and LINK not in first.headers["location"]
        game = client.post("/api/games", json={"deal_number": 7}, headers=cookie).json()
        base = f"/api/games/{game['id']}"
        answers = [
            client.get(base, headers=cookie), client.get("/api/stats", headers=cookie),
            client.get(f"{base}/check", params={"move": TOKEN[:16]}, headers=cookie),
            client.post(f"{base}/moves", json={"move": TOKEN}, headers=cookie),
            client.post(f"{base}/moves?token={TOKEN}", json={"move": "c2"}, headers=cookie),
            client.get("/api/stats", headers={"cookie": "terrace_token=" + "K" * 32}),
            client.get("/api/stats?token=" + "K" * 32),
        ]
        for response in answers:
            assert TOKEN not in response.text, response.request.url
            assert TOKEN not in str(response.headers), response.request.url
    assert all(TOKEN not in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(("name", "value"), [
    ("hint_seconds", float("nan")), ("hint_seconds", float("inf")), ("hint_seconds", -1),
    ("hint_seconds", True), ("winnable_seconds", float("nan")), ("winnable_seconds", "10"),
])
def test_the_web_game_refuses_budgets_that_are_no_time(name: str, value: object) -> None:
    """The library's web game took any budget (a NaN hint time reached the
    solver at the first hint); ``terrace play`` offers the ranges it names
    in its help, which come from one place."""
    from terrace.cli.web import play
    from terrace.web.endpoints import HINT_SECONDS_RANGE, WINNABLE_SECONDS_RANGE

    with pytest.raises(ValueError, match=f"{name} must be a"):
        create_app(**{name: value})  # type: ignore[arg-type]
    ranges = {"hint_seconds": HINT_SECONDS_RANGE, "winnable_seconds": WINNABLE_SECONDS_RANGE}
    option = next(p for p in play.params if p.name == name)
    low, high = ranges[name]
    record = option.get_help_record(click.Context(play))
    assert record is not None and f"{low:g} to {high:g} s]" in record[1]
