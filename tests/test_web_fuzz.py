"""A bounded fuzz test over the whole API: a few thousand requests of every
method to every address, with odd queries, bodies and headers (and many
well-formed ones, so games really get played). Whatever arrives:

* no 5xx (except a 503 with Retry-After from the solver endpoints, which
  is how a busy or fruitless search answers);
* every refusal is the app's JSON: ``{"error": <words>, "code": <code>}``;
* every refusal (4xx) and every GET changes nothing in the store;
* (each example is five requests, made in turn: Hypothesis's own work per
  example, a fifth of this test's CPU with one request each, is paid once
  for five; the games they play live on between examples and are renewed
  now and then)
* every answer carries the security headers.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from terrace.deal import Deal
from terrace.rules import Rules
from terrace.storage import MemoryStore, StoredGame
from terrace.web.app import create_app
from terrace.web.coach import CoachBudgets
from terrace.web.security import SECURITY_HEADERS
from terrace.web.workers import SolverPool
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SOLVER_PATHS = ("/hint", "/analysis", "/coach", "/chances", "/warn")


class CountingStore(MemoryStore):
    """A memory store that counts its writes (it hands out copies, so a
    game changes only through a write that the store accepts)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def create(self, variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False) -> StoredGame:
        self.writes += 1
        return super().create(variant, rules, deal, winnable_only=winnable_only)

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        super().update(game, expected_revision=expected_revision, action=action)
        self.writes += 1  # (an update the store refuses changes nothing)

    def add_active_time(self, game_id: str, ms: int, *, at: float | None = None) -> int:
        total = super().add_active_time(game_id, ms, at=at)
        self.writes += 1
        return total


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(hint_seconds=0.05, winnable_seconds=0.3, pool=SolverPool(workers=1, waiting=1),
                     coach=CoachBudgets(analysis=0.3, chances=0.3, warn=0.1))
    with TestClient(app, base_url=LOCAL) as test_client:
        yield test_client


JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
    st.sampled_from(["terrace", "falling-star", "c1", "s", "wf", "t1t2", "c١", "²", "ｗｆ", "\x00", "-1",
                     "safe", "finish"]),
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
FIELDS = ["move", "after", "variant", "options", "deal_number", "winnable", "junk"]
BODY_FIELDS = {"moves": ["move"] * 6 + ["after"] * 3 + ["junk"],
               "warn": ["move"] * 4 + ["after", "revision", "junk"],
               "hint": ["peek", "after", "revision", "junk"], "chances": ["after", "revision", "junk"],
               "autoplay": ["mode", "after", "junk"], "time": ["ms"] * 3 + ["junk"],
               "games": ["variant", "options", "deal_number", "winnable"] * 3 + ["junk"]}
OPTIONS = st.dictionaries(
    st.sampled_from(["decks", "reserve", "piles", "candidates", "foundations", "spaces", "redeals",
                     "foundation_return", "jokers"]),
    st.one_of(st.integers(-3, 400), st.sampled_from(["alternate", "suit", "auto", "free", "waste", "x"]),
              st.booleans()),
    max_size=3,
)
NUMBERS = st.one_of(
    st.integers(-5, 300).map(str),
    st.sampled_from(["²", "³", "¹", "١", "𝟓", "1e3", "", " 1", "-0", "+1", "9" * 30, "1_0"]),
    st.text(max_size=4),
)
MOVES = st.one_of(
    st.sampled_from(["c1", "s", "wf", "rf", "t1t2", "t2f", "c١", "c²", "ｗｆ", "c" + "1" * 50, "f1t1"]),
    st.text(max_size=6),
)
PILES = st.one_of(st.sampled_from(["stock", "waste", "reserve", "f1", "f8", "f9", "t1", "t9", "t10", "t0",
                                    "t01", "T1", "f١"]), st.text(max_size=5))
ZONES = st.one_of(st.sampled_from(["UTC", "Europe/Berlin", "posix/UTC", "..", "/etc/passwd", "Europe",
                                   "x" * 300]), st.text(max_size=6))
VARIANT_NAMES = st.one_of(st.sampled_from(["terrace", "wood", "TERRACE", "queen-of-italy", ""]),
                          st.text(max_size=6))
QUERIES = {"recent": NUMBERS, "step": NUMBERS, "move": MOVES, "pile": PILES, "index": NUMBERS, "zone": ZONES,
           "variant": VARIANT_NAMES}
ROUTES = [
    ("GET", "/", None), ("GET", "/api/variants", None), ("GET", "/api/stats", None),
    ("GET", "/api/games", "recent"), ("POST", "/api/games", None), ("POST", "/api/games", None),
    ("GET", "/api/games/current", None), ("GET", "/api/current-game", None), ("GET", "GAME", None),
    ("GET", "GAME/position", "step"),
    ("GET", "GAME/check", "move"), ("POST", "GAME/moves", None), ("POST", "GAME/moves", None),
    ("POST", "GAME/moves", None), ("POST", "GAME/undo", None), ("POST", "GAME/redo", None),
    ("POST", "GAME/restart", None), ("POST", "GAME/hint", None), ("POST", "GAME/analysis", None),
    ("POST", "GAME/autoplay", None), ("POST", "GAME/give-up", None), ("POST", "GAME/time", None),
    ("GET", "/favicon.ico", None), ("GET", "/static/js/main.js", None),
    ("GET", "GAME/why", "pile"), ("GET", "GAME/why", "index"), ("GET", "GAME/rules", None),
    ("GET", "GAME/line", None),
    ("POST", "GAME/coach", None), ("POST", "GAME/chances", None), ("POST", "GAME/warn", None),
    ("GET", "/api/rules", "variant"), ("GET", "/api/stats", "zone"),
]
ODD_PATHS = ["/static/../app.py", "/api/nothing", "GAME/nothing", "GAME/hint", "/api/games/current/moves"]
# Mostly requests that pass the Host and Origin checks, so the endpoints get exercised.
HOSTS = st.sampled_from(["localhost"] * 40 + [
    "127.0.0.1:8000", "[::1]:1", "evil.example", "[::1]evil.example", "localhost:8201, evil.example",
    "127.0.0.1:80@evil", ""])
ORIGINS = st.sampled_from([None] * 40 + [
    "http://localhost", "null", "http://localhost:1", "http://evil.example", "https://localhost"])
CTYPES = st.sampled_from(["application/json"] * 30 + [
    "application/json; charset=utf-8", None, "text/plain", "application/x-www-form-urlencoded",
    "multipart/form-data"])


# The strategies a plan draws from, made once: a strategy made anew at each
# draw is checked anew (the recursive JSON's emptiness, each time), which took
# about half of this test's time.
ROUTE = st.sampled_from(ROUTES)
ODD_METHOD = st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"])
ODD_PATH = {path: st.sampled_from([path, *ODD_PATHS]) for _, path, _ in ROUTES}
EXTRA_QUERY = st.dictionaries(st.sampled_from(["recent", "step", "move", "token", "x", "pile", "index"]),
                              NUMBERS, max_size=1)
ODD_ID = st.one_of(*[st.none()] * 12, st.text(alphabet="abcdef0123456789-_./%", max_size=10))
PICK = st.one_of(st.none(), st.integers(0, 99))
NEW_GAME = st.one_of(st.none(), st.fixed_dictionaries({
    "deal_number": st.integers(0, 50), "variant": st.sampled_from(["terrace", "wood"]),
    "options": OPTIONS, "winnable": st.sampled_from([False] * 9 + [True])}))
BODY = {
    name: st.one_of(
        st.none(), JSON,
        st.dictionaries(st.sampled_from(BODY_FIELDS.get(name, FIELDS)),
                        st.one_of(JSON_SCALARS, MOVES, JSON), min_size=1, max_size=3),
    )
    for name in {path.rsplit("/", 1)[-1] for path in [*ODD_PATH, *ODD_PATHS]}
}
RAW = st.one_of(*[st.none()] * 20, st.binary(max_size=40))
SEC_FETCH_SITES = st.sampled_from([None] * 30 + ["cross-site", "same-site", "same-origin"])
LANGUAGES = st.sampled_from([None, None, "de", "en", "de-DE,de;q=0.9", "*", "xx"])


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    """What one request will be; which game and which legal move are picked
    by index when the request is made (the draws never depend on state)."""
    method, path, key = draw(ROUTE)
    if draw(st.integers(0, 7)) == 0:  # now and then another method or address
        method = draw(ODD_METHOD)
        path = draw(ODD_PATH[path])
    query = {key: draw(QUERIES[key])} if key and draw(st.integers(0, 4)) else {}
    query.update(draw(EXTRA_QUERY))
    return {
        "method": method,
        "path": path,
        "query": query,
        "game": draw(st.integers(0, 99)),
        "odd_id": draw(ODD_ID),
        "legal_move": draw(PICK),
        "new_game": draw(NEW_GAME),
        "body": draw(BODY[path.rsplit("/", 1)[-1]]),
        "raw": draw(RAW),
        "host": draw(HOSTS),
        "origin": draw(ORIGINS),
        "content-type": draw(CTYPES),
        "sec-fetch-site": draw(SEC_FETCH_SITES),
        "accept-language": draw(LANGUAGES),
    }


def build(plan: dict[str, Any], games: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The request a plan makes in the current state."""
    ids = sorted(games)
    game_id = plan["odd_id"] if plan["odd_id"] is not None or not ids else ids[plan["game"] % len(ids)]
    path = plan["path"].replace("GAME", f"/api/games/{game_id}")
    game = games.get(game_id)
    body: Any = plan["body"]
    if game and path.endswith(("/moves", "/warn")) and game["legal_moves"] and plan["legal_move"] is not None:
        legal = game["legal_moves"]
        body = {"move": legal[plan["legal_move"] % len(legal)], "after": game["moves"]}
    elif path == "/api/games" and plan["new_game"] is not None:
        body = plan["new_game"]
    raw = plan["raw"] if plan["raw"] is not None else b"" if body is None else json.dumps(body).encode()
    headers = {name: plan[name] for name in ("host", "origin", "content-type", "sec-fetch-site",
                                             "accept-language") if plan[name] is not None}
    return {"method": plan["method"], "url": path, "params": plan["query"], "headers": headers,
            "content": raw}


@pytest.fixture(scope="module")
def world(client: TestClient) -> dict[str, Any]:
    """The store and the games the requests play with (renewed now and then)."""
    return {"store": None, "games": {}}


def renew(client: TestClient, world: dict[str, Any]) -> None:
    store = CountingStore()
    client.app.state.game.store = store  # type: ignore[attr-defined]
    games: dict[str, dict[str, Any]] = {}
    for number in (7, 12):
        game = client.post("/api/games", json={"deal_number": number}).json()
        games[game["id"]] = game
    world.update(store=store, games=games)


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(batch=st.lists(plans(), min_size=5, max_size=5))
def test_no_request_breaks_the_api(
    client: TestClient, world: dict[str, Any], batch: list[dict[str, Any]]
) -> None:
    for plan in batch:
        one_request(client, world, plan)


def one_request(client: TestClient, world: dict[str, Any], plan: dict[str, Any]) -> None:
    """Make one plan's request and check its answer (and the store's writes)."""
    if world["store"] is None or len(world["games"]) > 20:
        renew(client, world)
    store, games = world["store"], world["games"]
    request = build(plan, games)
    writes = store.writes
    response = client.request(**request)
    status = response.status_code
    solver = request["url"].endswith(SOLVER_PATHS) or b"winnable" in request["content"]
    assert status < 500 or (status == 503 and solver and "retry-after" in response.headers), (
        request, status, response.text)
    if status >= 400 and request["method"] != "HEAD":
        answer = response.json()
        assert isinstance(answer.get("error"), str) and answer["error"], (request, status, response.text)
        assert isinstance(answer.get("code"), str) and answer["code"], (request, status, response.text)
    for name, value in SECURITY_HEADERS:
        assert response.headers.get(name.decode()) == value.decode(), (request, status)
    if status >= 400 or request["method"] in ("GET", "HEAD", "OPTIONS"):
        assert store.writes == writes, (request, status, response.text)
    if status < 300 and request["method"] != "HEAD" and response.content:
        answer = response.json() if "json" in response.headers.get("content-type", "") else None
        if isinstance(answer, dict) and "legal_moves" in answer and "replay" not in answer:
            games[answer["id"]] = answer
