"""The game API attacked as a client would: every field given the worst
value, every refusal JSON with a code and words in each of the page's
languages, and nothing changed by a refused request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from terrace.refusals import LANGUAGES
from web_support import app_client

JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with app_client() as made:
        yield made


def _refused(client: TestClient, path: str, raw: str | bytes, code: str, status: int = 400) -> None:
    """``raw`` posted to ``path`` is refused with ``code`` in every language,
    and no game is made."""
    before = client.get("/api/games?recent=200").json()["games"]
    words = set()
    for language in LANGUAGES:
        body = raw if isinstance(raw, bytes) else raw.encode()
        answer = client.post(path, content=body, headers={**JSON, "accept-language": language})
        assert (answer.status_code, answer.json()["code"]) == (status, code), (raw, answer.text)
        words.add(answer.json()["error"])
    assert len(words) == len(LANGUAGES)  # (each language its own words)
    assert client.get("/api/games?recent=200").json()["games"] == before


@pytest.mark.parametrize(("raw", "code"), [
    ('{"variant": null}', "variant-not-text"),
    ('{"variant": 5}', "variant-not-text"),
    ('{"variant": ["terrace"]}', "variant-not-text"),
    ('{"variant": {"name": "terrace"}}', "variant-not-text"),
    ('{"variant": true, "options": {"decks": 1}}', "variant-not-text"),
    ('{"variant": "' + "terrace" + " " * 60 + 'zz"}', "variant-unknown"),
    ('{"options": null}', "options-not-object"),
    ('{"variant": "wood", "options": null}', "options-not-object"),
    ('{"deal_number": null}', "deal-number-not-whole"),
])
def test_a_new_games_fields_are_refused_by_the_engines_own_refusal(client: TestClient, raw: str,
                                                                     code: str) -> None:
    """A variant that is not text got the web's own ``variant-not-name``
    (a second fact beside the engine's ``variant-not-text``, which
    ``get_rules(None)`` gives), and null was taken as "left out": a game
    was made. A long name with a variant's name in its first 64
    characters was refused as no name at all."""
    _refused(client, "/api/games", raw, code)


def test_a_field_left_out_still_takes_its_default(client: TestClient) -> None:
    made = client.post("/api/games", json={"variant": "wood"})
    assert made.status_code == 201 and made.json()["variant"] == "wood"
    assert client.post("/api/games", json={"options": {"decks": 1, "reserve": 0}}).status_code == 201
    assert client.post("/api/games", json={"deal_number": 0}).json()["deal_number"] == 0


def test_the_rules_of_a_variant_are_never_those_of_a_name_cut_short(client: TestClient) -> None:
    """``/api/rules`` read only the first 64 characters of ``variant``: a
    name followed by spaces and anything at all was that variant's rules."""
    answer = client.get("/api/rules", params={"variant": "terrace" + " " * 60 + "and more"})
    assert (answer.status_code, answer.json()["code"]) == (400, "variant-unknown")
    assert "and more" in answer.json()["error"]
    assert client.get("/api/rules", params={"variant": "Queen of Italy"}).json()["variant"] == "terrace"


def test_a_pile_that_is_no_pile_is_named_as_it_was_sent(client: TestClient) -> None:
    """``/why`` cut ``pile`` to 16 characters, and its refusal named a pile
    the client never sent."""
    game: dict[str, Any] = client.post("/api/games", json={"deal_number": 7}).json()
    sent = "t1" + " " * 14 + "and more"
    answer = client.get(f"/api/games/{game['id']}/why", params={"pile": sent})
    assert (answer.status_code, answer.json()["code"]) == (400, "pile-name-unknown")
    assert sent in answer.json()["error"]


@pytest.fixture(scope="module")
def game_id(client: TestClient) -> str:
    made: dict[str, Any] = client.post("/api/games", json={"deal_number": 7}).json()
    return str(made["id"])


@pytest.mark.parametrize(("path", "code"), [
    ("/api/games?recent=1&recent=200", "query-twice"),
    ("/api/games?recnt=5", "query-unknown"),
    ("/api/rules?variant=wood&variant=terrace", "query-twice"),
    ("/api/variants?x=1", "query-unknown"),
    ("/api/stats?x=1", "query-unknown"),
    ("/api/stats?zone=UTC&zone=Asia/Tokyo", "query-twice"),
    ("/api/games/current?x=1", "query-unknown"),
    ("GAME?x=1", "query-unknown"),
    ("GAME/line?x=1", "query-unknown"),
    ("GAME/rules?x=1", "query-unknown"),
    ("GAME/position?step=0&step=1", "query-twice"),
    ("GAME/position?step=0&stp=1", "query-unknown"),
    ("GAME/check?move=c1&move=c2", "query-twice"),
    ("GAME/why?pile=t1&pile=t2", "query-twice"),
    ("GAME/why?pile=t1&index=0&index=1", "query-twice"),
    ("GAME/why?pile=t1&card=0", "query-unknown"),
])
def test_a_query_parameter_misspelt_or_given_twice_is_refused(client: TestClient, game_id: str, path: str,
                                                              code: str) -> None:
    """A misspelt parameter was ignored (``?recnt=5`` gave the default 20
    games) and one given twice read as its last value, where a body's
    unknown field or key given twice is refused."""
    words = set()
    for language in LANGUAGES:
        asked = path.replace("GAME", f"/api/games/{game_id}")
        answer = client.get(asked, headers={"accept-language": language})
        assert (answer.status_code, answer.json()["code"]) == (400, code), (path, answer.text)
        words.add(answer.json()["error"])
    assert len(words) == len(LANGUAGES)


@pytest.mark.parametrize(("path", "body"), [
    ("/api/games?deal_number=5", {}),
    ("GAME/moves?move=c1", {"move": "c2"}),
    ("GAME/undo?after=0", {}),
    ("GAME/time?ms=5", {"ms": 0}),
])
def test_a_request_with_a_body_takes_no_query_parameter(client: TestClient, game_id: str, path: str,
                                                        body: dict[str, Any]) -> None:
    """``POST /api/games?deal_number=5`` made a game of a random deal, as if
    the number had been read; now refused, and nothing changes."""
    before = client.get("/api/games?recent=200").json()
    answer = client.post(path.replace("GAME", f"/api/games/{game_id}"), json=body)
    assert (answer.status_code, answer.json()["code"]) == (400, "query-unknown"), answer.text
    assert client.get("/api/games?recent=200").json() == before


def test_the_page_s_own_queries_are_still_answered(client: TestClient, game_id: str) -> None:
    base = f"/api/games/{game_id}"
    for path in ("/api/games?recent=5", f"{base}/position?step=0", f"{base}/check?move=c1",
                 f"{base}/why?pile=t1", f"{base}/why?pile=t1&index=0", "/api/rules?variant=wood"):
        assert client.get(path).status_code == 200, path


def test_a_body_is_utf_8_json_and_a_byte_order_mark_before_it_is_passed_over(client: TestClient) -> None:
    """RFC 8259 (8.1): JSON between systems is UTF-8, a sender adds no
    byte-order mark and a receiver may ignore one. A body with a UTF-8
    mark is read as without it (an empty one too: an empty body); a body
    in UTF-16 or UTF-32, which ``json.loads`` of bytes decoded and made a
    game of, is refused ``body-not-json`` as any other not UTF-8; and JSON
    whitespace alone is an empty body, where a form feed or vertical tab
    (no JSON whitespace) also read as one."""
    deal = '{"variant": "terrace", "deal_number": 3}'
    marked = client.post("/api/games", content=b"\xef\xbb\xbf" + deal.encode(), headers=JSON)
    assert marked.status_code == 201 and marked.json()["deal_number"] == 3
    for empty in (b"\xef\xbb\xbf", b"\xef\xbb\xbf \r\n\t", b" \r\n\t"):
        assert client.post("/api/games", content=empty, headers=JSON).status_code == 201, empty
    for encoding in ("utf-16", "utf-16-le", "utf-16-be", "utf-32"):
        _refused(client, "/api/games", deal.encode(encoding), "body-not-json")
    for raw in ("\ufeff\ufeff" + deal, "\x0c", "\x0b", deal + "\x0c"):
        _refused(client, "/api/games", raw, "body-not-json")


def test_every_route_of_the_api_refuses_a_query_parameter_it_does_not_take(
    client: TestClient, game_id: str
) -> None:
    """Each handler checks its own query (``replies.query``): taken from the
    app's own table of routes, with every method, so that a route added
    without that check (which would read ``?x=1`` in silence) fails here."""
    from starlette.routing import Route

    app: Any = client.app
    routes = [route for route in app.routes if isinstance(route, Route) and route.path.startswith("/api/")]
    assert len(routes) >= 20
    before = client.get("/api/games?recent=200").json()
    for route in routes:
        path = route.path.replace("{game_id}", game_id)
        assert "{" not in path, route.path
        for method in sorted((route.methods or set()) - {"HEAD"}):
            answer = client.request(method, f"{path}?zz=1", json={} if method == "POST" else None)
            refused = (answer.status_code, answer.json().get("code"))
            assert refused == (400, "query-unknown"), (method, path, answer.text)
    assert client.get("/api/games?recent=200").json() == before
