"""A remote link survives a preview: a program fetching the link (a chat
showing a preview, a phone's browser loading it ahead) sees a page whose
button, pressed in the browser, uses the link; only that ``POST`` spends
it and sets the cookie. A browser shown a refusal of the guard gets a
short page in its language; API clients keep the JSON, and every answer
of the guard carries a code."""

from __future__ import annotations

import html
import os
import re
import socket
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from terrace.storage import MemoryStore
from terrace.web.remote import PROC_SOCKETS, opened_by_this_user, socket_owner
from terrace.web.security import HELD_COOKIE, HELD_MOST, HELD_SECONDS, RemoteKeys, token_cookie
from web_support import app_client, game_cookie

HOST = {"host": "192.168.1.20:8000"}
ORIGIN = {"origin": "http://192.168.1.20:8000", "sec-fetch-site": "same-origin"}
COOKIE = token_cookie(8000)
HELD = token_cookie(8000, HELD_COOKIE)
BROWSER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def _phone(keys: RemoteKeys) -> AbstractContextManager[TestClient]:
    return app_client(store=MemoryStore(), token=keys, allowed_hosts=("192.168.1.20",))


def _action(page: str) -> str:
    """The address the page's form posts to."""
    match = re.search(r'<form method="post" action="([^"]+)">', page)
    assert match is not None, page
    return html.unescape(match.group(1))


def _held_page(client: TestClient, link: str, headers: dict[str, str]) -> tuple[str, str]:
    """The clean address a link leads to and the page shown there (the
    client holding the link by its cookie)."""
    held = client.get(link, headers={**HOST, **headers})
    assert held.status_code == 303, held.text
    clean = held.headers["location"]
    page = client.get(clean, headers={**HOST, **headers})
    assert page.status_code == 200, page.text
    return clean, page.text


@contextmanager
def _held_on_a_clock() -> Iterator[tuple[list[float], RemoteKeys, TestClient, str]]:
    """Keys on a clock the test moves (``now[0]``, seconds), a phone's
    client (redirects not followed) that holds their printed link, and the
    clean address the link led to."""
    now = [0.0]
    keys = RemoteKeys(clock=lambda: now[0])
    with _phone(keys) as client:
        client.follow_redirects = False
        clean, _ = _held_page(client, f"/?token={keys.link}", BROWSER)
        yield now, keys, client, clean


def test_a_preview_of_the_printed_link_leaves_it_for_the_person() -> None:
    """A GET (or HEAD) of the printed link spent it: the chat's preview
    took the link, and the person tapping it then read ``link-spent``. A
    GET now leads to the clean address, holding the link by a cookie of
    its own (no secret of the game's); a program that keeps no cookies
    reads 401 there; nothing is spent either way."""
    told: list[str] = []
    keys = RemoteKeys(renewed=told.append)
    link = keys.link
    with _phone(keys) as client:
        client.follow_redirects = False
        for method, headers in (("GET", {}), ("HEAD", {}), ("GET", {"accept": "*/*"}), ("GET", BROWSER)):
            preview = client.request(method, f"/?token={link}&game=g", headers={**HOST, **headers})
            assert preview.status_code == 303, (method, headers, preview.text)
            assert preview.headers["location"] == "/?game=g"
            hold = preview.headers["set-cookie"]
            assert hold.startswith(f"{HELD}=") and "Max-Age=600" in hold and "HttpOnly" in hold
            assert game_cookie(keys) not in hold and link not in hold
            assert game_cookie(keys) not in preview.text
            assert preview.headers["cache-control"] == "no-store"
            if method == "GET":
                assert preview.json()["code"] == "link-held"
            assert keys.link == link and told == []  # (still unused)
            client.cookies.clear()
        for language, words in (("en", "press its button"), ("de", "Schaltfläche drücken")):
            said = client.get(f"/?token={link}", headers={**HOST, "accept-language": language})
            assert words in said.json()["message"]
        client.cookies.clear()
        no_cookies = client.get("/?game=g", headers={**HOST, **BROWSER})
        assert (no_cookies.status_code, 'data-code="token-needed"' in no_cookies.text) == (401, True)
        clean, page = _held_page(client, f"/?token={link}&game=g", BROWSER)
        assert "<script" not in page and "style=" not in page and link not in page
        assert _action(page) == clean == "/?game=g"
        form = {"content-type": "application/x-www-form-urlencoded"}
        opened = client.post(clean, headers={**HOST, **ORIGIN, **form})
        assert opened.status_code == 303 and opened.headers["location"] == "/?game=g"
        assert f"{COOKIE}={game_cookie(keys)};" in opened.headers["set-cookie"]
        assert opened.headers["referrer-policy"] == "no-referrer"
        assert told == [keys.link] and keys.link != link
        client.cookies.clear()
        assert client.get(f"/?token={link}", headers=HOST).json()["code"] == "link-spent"


def test_the_token_leaves_the_address_before_the_links_page_shows() -> None:
    """The link's page showed at the link's own address, and its form
    posted there: the token stayed in the address bar and in the tab's
    history (back, then reload, showed ``link-spent``). The page now shows
    at the clean address (a reload shows it again, spending nothing), its
    form posts there, and the button lets go of the hold."""
    told: list[str] = []
    keys = RemoteKeys(renewed=told.append)
    link = keys.link
    with _phone(keys) as client:
        client.follow_redirects = False
        clean, page = _held_page(client, f"/?game=g&token={link}", BROWSER)
        assert clean == "/?game=g" and link not in page
        assert client.get(clean, headers={**HOST, **BROWSER}).text == page  # (a reload)
        assert told == [] and keys.link == link
        opened = client.post(_action(page), headers={**HOST, **ORIGIN})
        assert opened.status_code == 303 and opened.headers["location"] == clean
        cookies = opened.headers.get_list("set-cookie")
        assert any(c.startswith(f"{COOKIE}={game_cookie(keys)};") for c in cookies)
        assert any(c.startswith(f"{HELD}=;") and "Max-Age=0" in c for c in cookies)
        assert told == [keys.link]
        game = client.get(clean, headers={**HOST, **BROWSER})  # (the game's page, cookie and all)
        assert game.status_code == 200 and "<form" not in game.text


def test_the_button_pressed_twice_opens_the_game_once() -> None:
    """A double tap sends the button's POST twice; the second, sent before
    the first answer came (without the cookie) or after it (with it),
    leads to the game too, and the link is spent once. Another browser's
    hold on the same link opens nothing once the link is spent."""
    told: list[str] = []
    keys = RemoteKeys(renewed=told.append)
    with _phone(keys) as phone, _phone(keys) as preview:
        for client in (phone, preview):
            client.follow_redirects = False
        link = keys.link
        clean, _ = _held_page(phone, f"/?token={link}", BROWSER)
        _held_page(preview, f"/?token={link}", {})
        hold = phone.cookies.get(HELD)
        assert hold is not None
        for _ in range(2):  # (the first answer lost: the phone shows the hold alone again)
            phone.cookies.clear()
            phone.cookies.set(HELD, hold)
            again = phone.post(clean, headers={**HOST, **ORIGIN})
            assert again.status_code == 303, again.text
            assert f"{COOKIE}={game_cookie(keys)};" in again.headers["set-cookie"]
        both = f"{HELD}={hold}; {COOKIE}={game_cookie(keys)}"
        with_both = phone.post(clean, headers={**HOST, **ORIGIN, "cookie": both})
        assert with_both.status_code == 303 and game_cookie(keys) not in with_both.headers["set-cookie"]
        # (the first answer taken, the hold let go: the second tap's form comes with the cookie alone)
        form = {"content-type": "application/x-www-form-urlencoded"}
        cookie_alone = {**HOST, **ORIGIN, **form, "cookie": f"{COOKIE}={game_cookie(keys)}"}
        second = phone.post(clean, headers=cookie_alone)
        assert (second.status_code, second.headers["location"]) == (303, clean), second.text
        assert "set-cookie" not in second.headers
        not_a_form = phone.post(clean, headers={**HOST, **ORIGIN, "cookie": f"{COOKIE}={game_cookie(keys)}"})
        assert not_a_form.json()["code"] == "method-not-allowed"  # (the app's answer)
        assert len(told) == 1
        late = preview.post(clean, headers={**HOST, **ORIGIN})
        assert (late.status_code, late.json()["code"]) == (401, "link-spent")
        assert "set-cookie" not in late.headers
        assert preview.get(clean, headers={**HOST, **BROWSER}).status_code == 401
        assert len(told) == 1


def test_a_hold_on_the_link_lasts_ten_minutes() -> None:
    """A hold runs out after HELD_SECONDS (the link itself stays unused:
    opened again, it shows its page); the keys keep HELD_MOST holds at most."""
    with _held_on_a_clock() as (now, keys, client, clean):
        link = keys.link
        now[0] += HELD_SECONDS
        assert client.get(clean, headers=HOST).json()["code"] == "token-needed"
        assert client.post(clean, headers={**HOST, **ORIGIN}).json()["code"] == "token-needed"
        assert keys.link == link
        _held_page(client, f"/?token={link}", BROWSER)
        first = client.cookies.get(HELD)
        for _ in range(HELD_MOST):
            assert keys.hold(link) is not None
        client.cookies.set(HELD, str(first))
        assert client.get(clean, headers=HOST).json()["code"] == "token-needed"
        assert len(keys.holds) == HELD_MOST


def test_the_links_page_lets_its_own_form_post_and_nothing_else() -> None:
    """The page's policies: its form may post to this site only (the
    guard's policy says ``form-action 'none'``), nothing is loaded, and
    the referrer policy lets the browser name the page's origin in the
    POST (with ``no-referrer`` it sends ``Origin: null``) while no Referer
    goes to another site; the words in the browser's language."""
    keys = RemoteKeys()
    with _phone(keys) as client:
        client.follow_redirects = False
        client.get(f"/?token={keys.link}", headers=HOST)
        answer = client.get("/", headers={**HOST, **BROWSER, "accept-language": "de"})
        csp = answer.headers["content-security-policy"]
        assert "form-action 'self'" in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert answer.headers["referrer-policy"] == "same-origin"
        assert answer.headers["x-frame-options"] == "DENY"
        assert '<html lang="de">' in answer.text and "Spiel öffnen" in answer.text
        english = client.get("/", headers={**HOST, **BROWSER}).text
        assert '<html lang="en">' in english and "Open the game" in english
        # the form names the address it came from, with nothing of it read as HTML
        clean, hostile = _held_page(client, f'/"><script>x</script>?token={keys.link}&g="><img src=x>', {})
        assert "<script" not in hostile and "<img" not in hostile
        encoded = "/%22%3E%3Cscript%3Ex%3C/script%3E"
        assert _action(hostile) == clean == f"{encoded}?g=%22%3E%3Cimg+src%3Dx%3E"


def test_another_site_cannot_spend_the_link() -> None:
    """The button's POST must come from the page: another origin, ``null``
    or a cross-site fetch is refused and the link stays unused; so is the
    link's token in a POST's query (only the page's hold uses it)."""
    told: list[str] = []
    keys = RemoteKeys(renewed=told.append)
    link = keys.link
    with _phone(keys) as client:
        client.follow_redirects = False
        refused = client.post(f"/?token={link}", headers={**HOST, **ORIGIN})
        assert (refused.status_code, refused.json()["code"]) == (401, "token-needed")
        clean, _ = _held_page(client, f"/?token={link}", {})
        for bad in ({"origin": "http://evil.example"}, {"origin": "null"},
                    {"origin": "http://192.168.1.20:8001"}, {"sec-fetch-site": "cross-site"},
                    {"sec-fetch-site": "same-site"}):
            refused = client.post(clean, headers={**HOST, **bad})
            assert (refused.status_code, refused.json()["code"]) == (403, "cross-site"), bad
            assert "set-cookie" not in refused.headers
        assert keys.link == link and told == []
        # (a browser that hides the page's origin, and says it is the page itself)
        hidden = {"origin": "null", "sec-fetch-site": "same-origin"}
        assert client.post(clean, headers={**HOST, **hidden}).status_code == 303


def test_a_hold_on_the_link_opens_nothing_from_another_address() -> None:
    """A browser sends its cookies to every port of the computer, the
    link's hold (terrace_link_<port>) too: another server there that the
    phone visited before its button was pressed received the hold, and
    pressing the button with it opened the game for that server's owner,
    the link spent under the phone. The hold is good from the address of
    the browser it was given to only, as the game's cookie is: from another
    it is no hold (401 token-needed), and the phone's button still opens."""
    keys = RemoteKeys()
    with _phone(keys) as phone:
        phone.follow_redirects = False
        clean, page = _held_page(phone, f"/?token={keys.link}", BROWSER)
        hold = phone.cookies.get(HELD)
        assert hold is not None
        with TestClient(phone.app, base_url=str(phone.base_url), client=("192.168.1.66", 50000),
                        follow_redirects=False) as other:
            stolen = {**HOST, **ORIGIN, "cookie": f"{HELD}={hold}",
                      "content-type": "application/x-www-form-urlencoded"}
            pressed = other.post(_action(page), headers=stolen)
            assert (pressed.status_code, pressed.json()["code"]) == (401, "token-needed")  # (before: 303)
            assert "set-cookie" not in pressed.headers
            page_again = other.get(clean, headers={**HOST, **BROWSER, "cookie": f"{HELD}={hold}"})
            assert page_again.status_code == 401
        opened = phone.post(_action(page), headers={**HOST, **ORIGIN})
        assert opened.status_code == 303 and f"{COOKIE}={game_cookie(keys)};" in opened.headers["set-cookie"]


def test_the_browser_play_opens_needs_no_button() -> None:
    """The link made for the browser ``terrace play`` opens on this
    computer still opens the game at once (no program previews it)."""
    keys = RemoteKeys()
    own = keys.one_link()
    with _phone(keys) as client:
        client.follow_redirects = False
        opened = client.get(f"/?token={own}", headers={**HOST, **BROWSER})
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        assert f"{COOKIE}={game_cookie(keys)};" in opened.headers["set-cookie"]


def test_the_browsers_link_opens_only_from_a_connection_its_check_allows() -> None:
    """The link made for the browser ``terrace play`` opens is on that
    browser's command line, which every user of the computer reads in ``ps``:
    any of them could open the game with it before the browser did. Made
    with a check of the connection (``only_for``: on Linux, a connection of
    this user's own programs), it opens nothing for another connection (401
    ``token-needed``, as no link, and left unspent), then the game for the
    connection allowed, once."""
    allowed: list[tuple[object, object]] = []

    def second_asks(client: object, server: object) -> bool:
        allowed.append((client, server))
        return len(allowed) > 1

    keys = RemoteKeys()
    own = keys.one_link(only_for=second_asks)
    with _phone(keys) as client:
        client.follow_redirects = False
        other = client.get(f"/?token={own}", headers={**HOST, **BROWSER})
        # (before: 303, setting the game's cookie)
        assert other.status_code == 401 and 'data-code="token-needed"' in other.text
        assert "set-cookie" not in other.headers and keys.is_one_step(own)
        opened = client.get(f"/?token={own}", headers={**HOST, **BROWSER})
        assert opened.status_code == 303 and f"{COOKIE}={game_cookie(keys)};" in opened.headers["set-cookie"]
        assert not keys.is_one_step(own) and own not in keys.others
    assert [tuple(end) for end in allowed[0]] == [("testclient", 50000), ("localhost", 80)]  # (its two ends)


def test_a_connections_owner_is_the_user_of_the_program_that_opened_it() -> None:
    """Linux lists each TCP socket with its owner (/proc/net/tcp, tcp6):
    the client's end of a connection of this process is this user's, also
    as a socket listening on every IPv6 address sees an IPv4 client
    (``::ffff:127.0.0.1``); a connection that does not exist has none."""
    if not Path(PROC_SOCKETS[0]).exists():
        pytest.skip("no list of sockets (not Linux)")
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::"), (socket.AF_INET6, "::1")):
        with socket.socket(family) as listening:
            try:
                listening.bind((host, 0))
            except OSError:
                continue  # (no IPv6 here)
            listening.listen()
            target = "127.0.0.1" if host == "::" else host
            with socket.create_connection((target, listening.getsockname()[1])) as ours:
                accepted, _ = listening.accept()
                with accepted:
                    client, server = accepted.getpeername()[:2], accepted.getsockname()[:2]
                    assert socket_owner(client, server) == os.getuid(), (host, client)
                    assert opened_by_this_user(client, server)
                    assert ours.getsockname()[1] == client[1]
    assert socket_owner(("127.0.0.1", 1), ("127.0.0.1", 2)) is None
    assert not opened_by_this_user(None, None)


def test_a_browser_reads_a_spent_or_wrong_link_as_a_page_in_its_language() -> None:
    """A spent link answered a phone's browser with JSON; a browser now
    reads a page in its language saying what happened and what to do;
    an API client still gets the JSON refusal."""
    keys = RemoteKeys()
    spent = keys.one_link()
    with _phone(keys) as client:
        client.follow_redirects = False
        assert client.get(f"/?token={spent}", headers=HOST).status_code == 303
        client.cookies.clear()
        for query, code, words in ((f"token={spent}", "link-spent", ("used already", "schon benutzt")),
                                   ("token=" + "K" * 32, "token-needed", ("token", "Token")),
                                   ("", "token-needed", ("token", "Token"))):
            for language, said in zip(("en", "de"), words, strict=True):
                page = client.get(f"/?{query}", headers={**HOST, **BROWSER, "accept-language": language})
                assert page.status_code == 401
                assert page.headers["content-type"] == "text/html; charset=utf-8"
                assert f'<html lang="{language}">' in page.text and f'data-code="{code}"' in page.text
                assert said in page.text and "terrace play" in page.text
                assert page.headers["connection"] == "close" and "form-action 'none'" in \
                    page.headers["content-security-policy"]
            api = client.get(f"/api/stats?{query}", headers={**HOST, "accept": "application/json"})
            assert (api.status_code, api.json()["code"]) == (401, code)


def test_every_answer_of_the_guard_has_a_code() -> None:
    """The redirect of a link said ``{"error": "see the address without
    the token"}``: no code, and an "error" that was none."""
    keys = RemoteKeys()
    own = keys.one_link()
    with _phone(keys) as client:
        client.follow_redirects = False
        for language, word in (("en", "without the token"), ("de", "ohne Token")):
            link = keys.one_link()
            opened = client.get(f"/?token={link}", headers={**HOST, "accept-language": language})
            assert opened.status_code == 303
            assert opened.json() == {"message": opened.json()["message"], "code": "link-opened"}
            assert word in opened.json()["message"]
        again = client.get(f"/?token={own}", headers=HOST)  # (with the cookie: the clean address)
        assert (again.status_code, again.json()["code"]) == (303, "link-opened")


def test_head_and_options_answer_in_the_one_format() -> None:
    """HEAD answers as GET without a body; OPTIONS (no CORS preflight is
    answered) and methods an address does not take are 405 with a code
    and Allow; with remote play's guard, the same once the cookie is shown."""
    keys = RemoteKeys()
    with _phone(keys) as client:
        client.follow_redirects = False
        assert client.get(f"/?token={keys.one_link()}", headers=HOST).status_code == 303
        for path in ("/", "/api/games", "/static/style.css", "/api/nothing"):
            got, head = client.get(path, headers=HOST), client.head(path, headers=HOST)
            assert head.status_code == got.status_code and head.content == b"", path
            assert head.headers["content-type"] == got.headers["content-type"], path
            for method in ("OPTIONS", "TRACE", "PUT"):
                answer = client.request(method, path, headers={**HOST, "origin": "http://192.168.1.20:8000"})
                assert answer.status_code in (404, 405), (method, path)
                assert answer.json()["code"] in ("method-not-allowed", "not-found"), (method, path)
        client.cookies.clear()
        refused = client.options("/api/games", headers={**HOST, "origin": "http://evil.example"})
        assert (refused.status_code, refused.json()["code"]) == (401, "token-needed")


def test_a_link_tapped_again_after_its_hold_ran_out_says_what_to_do() -> None:
    """The button's answer lost (the phone kept no game cookie), the link
    tapped again once its hold has run out reads ``link-spent``: its words,
    on the page and in JSON, in English and German, said only to open "the
    new link that terrace play printed after it"; they now say where (the
    computer, its QR code) and what to do when it is gone there (start
    terrace play again)."""
    with _held_on_a_clock() as (now, keys, client, clean):
        link = keys.link
        form = {"content-type": "application/x-www-form-urlencoded"}
        assert client.post(clean, headers={**HOST, **ORIGIN, **form}).status_code == 303
        assert keys.link != link
        client.cookies.clear()  # (the answer, and its cookie, lost)
        now[0] += HELD_SECONDS + 1
        for language, words in (("en", ("newest link", "on the computer", "QR code", "start it again")),
                                ("de", ("neuesten Link", "auf dem Computer", "QR-Code", "neu starten"))):
            tapped = client.get(f"/?token={link}", headers={**HOST, "accept-language": language})
            assert (tapped.status_code, tapped.json()["code"]) == (401, "link-spent")
            assert all(word in tapped.json()["error"] for word in words), tapped.json()
            page = client.get(f"/?token={link}", headers={**HOST, **BROWSER, "accept-language": language})
            assert 'data-code="link-spent"' in page.text and all(word in page.text for word in words)


def test_a_browser_with_the_cookie_gets_the_game_whatever_became_of_its_hold() -> None:
    """A browser that holds the printed link and then gets in by a link of
    its own (its hold's cookie still set) is shown the game, not the
    link's button, and not "link spent" once another browser used the
    printed link (a mutation audit: ``held is None or has_cookie`` read as
    ``and`` went unnoticed)."""
    keys = RemoteKeys()
    with _phone(keys) as phone, _phone(keys) as other:
        for client in (phone, other):
            client.follow_redirects = False
        link = keys.link
        clean, button = _held_page(phone, f"/?token={link}", BROWSER)
        assert "Open the game" in button
        own = phone.get(f"/?token={keys.one_link()}", headers={**HOST, **BROWSER})
        assert own.status_code == 303 and phone.cookies.get(COOKIE) == game_cookie(keys)
        assert phone.cookies.get(HELD) is not None
        game = phone.get(clean, headers={**HOST, **BROWSER})
        assert game.status_code == 200 and "Open the game" not in game.text
        _held_page(other, f"/?token={link}", BROWSER)
        assert other.post(clean, headers={**HOST, **ORIGIN}).status_code == 303
        assert keys.was_spent(link)
        still = phone.get(clean, headers={**HOST, **BROWSER})
        assert still.status_code == 200 and still.text == game.text


def test_a_browser_that_keeps_no_cookies_is_told_it_needs_them() -> None:
    """A browser that keeps no cookies (Safari's "Block All Cookies") is
    led from the link to the clean address without the hold, and was told
    to open the address with the token, which it had just done: round and
    round. The words say it needs a browser that keeps cookies."""
    keys = RemoteKeys()
    with _phone(keys) as client:
        client.follow_redirects = False
        for language, words in (("en", "a browser that keeps cookies"), ("de", "der Cookies annimmt")):
            headers = {**HOST, **BROWSER, "accept-language": language}
            held = client.get(f"/?token={keys.link}", headers=headers)
            assert held.status_code == 303 and HELD in held.headers["set-cookie"]
            client.cookies.clear()  # (kept by no browser)
            page = client.get(held.headers["location"], headers=headers)
            assert page.status_code == 401 and 'data-code="token-needed"' in page.text
            assert words in page.text
