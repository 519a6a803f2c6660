"""Remote play and the dialogs' callbacks in a real browser: the secret
link sets an HttpOnly cookie the page cannot read, leads to the clean
address, and the game plays, also when the link is followed from a page
of another site (a web mail, a chat), while that site still cannot change
anything; the settings dialog changes the language."""

from __future__ import annotations

import html
import http.server
import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from browser_support import open_deal_7_by_the_page
from terrace.web.security import token_cookie
from web_support import Server, open_link, started_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def remote() -> Iterator[Server]:
    with started_server("--remote", "--host", "127.0.0.1") as server:
        yield server


class Links:
    """The links ``terrace play`` prints: each opens the game once, and the
    next one is printed once it is used."""

    def __init__(self, server: Server) -> None:
        self.server = server
        match = re.search(r"http://\S+", server.first_line)
        assert match is not None, server.first_line
        self.unused: str | None = match.group(0)

    def take(self) -> str:
        """A link not used yet (the caller uses it)."""
        stdout = self.server.proc.stdout
        assert stdout is not None
        while self.unused is None:
            said = stdout.readline()
            assert said, "the server printed no new link"
            match = re.search(r"http://\S+\?token=\S+", said)
            self.unused = match.group(0) if match else None
        link, self.unused = self.unused, None
        return link

    def cookie(self) -> str:
        """The cookie's secret, as a browser gets it by opening a link."""
        with httpx.Client(trust_env=False, timeout=30) as client:
            opened = open_link(client, self.take())
            assert opened.status_code == 303
            secret = client.cookies.get(token_cookie(httpx.URL(self.server.url).port))
            assert secret is not None
            return secret


@pytest.fixture(scope="module")
def links(remote: Server) -> Links:
    return Links(remote)


@pytest.fixture
def browsing(browser: Any, remote: Server) -> Iterator[tuple[Any, list[str]]]:
    """A page and the console errors it logs: none are expected except
    those a test names in the list (the console reports a refused page
    whenever it likes, even after the test has looked)."""
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-GB")
    tab = context.new_page()
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    expected: list[str] = []
    yield tab, expected
    context.close()
    assert [error for error in errors if not any(word in error for word in expected)] == []


def test_the_secret_link_opens_the_game(remote: Server, links: Links,
                                        browsing: tuple[Any, list[str]]) -> None:
    page, _ = browsing
    page.goto(links.take())
    # (the link's page, at the clean address: the token left the address
    # bar and the tab's history before the page showed; a reload shows it again)
    assert "token" not in page.url
    page.reload()
    page.get_by_role("button", name="Open the game").click()  # (a preview leaves the link unused)
    page.wait_for_selector("body[data-ready='true']")
    assert "token" not in page.url
    page.go_back()
    assert "token" not in page.url
    page.wait_for_selector("body[data-ready='true']")  # (the page of a link used: the game, cookie and all)
    page.go_forward()
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
    # the random deal the server starts with may be lost from the start, where
    # a hint answers with the end screen: play deal 7, which is won
    open_deal_7_by_the_page(page, remote.url)
    page.locator("[data-pile='t1']").first.wait_for()
    page.locator("#btn-hint").click()
    page.locator(".hint-src").wait_for()
    page.locator("#btn-settings").click()
    page.locator("#set-lang").select_option("de")
    assert page.locator("#btn-new").inner_text() == "Neues Spiel"
    assert "Einstellungen" in page.locator("#dlg-settings h2").inner_text()
    page.locator("#click-single").check()
    assert page.evaluate("localStorage.getItem('terrace.click')") == "single"


def test_the_links_page_has_a_button_a_finger_can_tap(browser: Any, links: Links) -> None:
    """The first thing a phone shows is the link's page: its button was the
    browser's own, 21 px high with 13 px of text at 360x640; it is as
    high as the game's buttons on a touch screen (44 px), its style let
    through by the page's policy alone (no console error), and a tap
    opens the game."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, has_touch=True, is_mobile=True,
                                  locale="de-DE")
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(links.take())
        button = page.get_by_role("button", name="Spiel öffnen")
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
        assert button.evaluate("b => getComputedStyle(b).fontSize") == "16px"
        button.tap()
        page.wait_for_selector("body[data-ready='true']")
    finally:
        context.close()
    assert errors == []


def test_without_the_link_the_page_is_refused(remote: Server, browsing: tuple[Any, list[str]]) -> None:
    page, expected = browsing
    expected.append("401 (Unauthorized)")
    response = page.goto(remote.url)
    assert response.status == 401
    assert "token" in page.content()


@contextmanager
def other_site(page_html: str) -> Iterator[str]:
    """A page on another site than the game's (``localhost`` is another
    site than ``127.0.0.1``), as a web mail or a chat showing the link."""
    body = page_html.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{site.server_address[1]}/"
    finally:
        site.shutdown()
        site.server_close()
        thread.join()


def _games(remote: Server, token: str) -> list[tuple[str, int]]:
    """Each game's id and moves (the page itself may report playing time)."""
    with httpx.Client(base_url=remote.url, trust_env=False, timeout=30) as client:
        client.cookies.set(token_cookie(httpx.URL(remote.url).port), token)
        return [(game["id"], game["moves"]) for game in client.get("/api/games").json()["games"]]


def test_the_secret_link_opens_the_game_from_another_site(
    remote: Server, links: Links, browsing: tuple[Any, list[str]]
) -> None:
    """The link tapped in a web mail, and later a plain link to the game,
    open the game (a SameSite=Strict cookie was not sent on a navigation
    that began on another site: the player saw a 401, even after a reload);
    that site's own requests, which carry no cookie, still change nothing."""
    page, expected = browsing
    expected += ["ERR_BLOCKED_BY_RESPONSE", "401 (Unauthorized)"]
    token = links.cookie()
    link = links.take()
    before = _games(remote, token)
    links = f'<a id="secret" href="{html.escape(link)}">play</a> <a id="plain" href="{remote.url}">again</a>'
    with other_site(links) as mail:
        page.goto(mail)
        page.click("#secret")
        page.get_by_role("button", name="Open the game").click()
        page.wait_for_selector("body[data-ready='true']")
        assert "token" not in page.url
        page.goto(mail)
        page.click("#plain")
        page.wait_for_selector("body[data-ready='true']")
        shown = _games(remote, token)
        # the other site, with the cookie in the browser, tries to start a game
        page.goto(mail)
        page.evaluate(
            """async (url) => {
                for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
                    try {  // (the answer is blocked: Cross-Origin-Resource-Policy)
                        await fetch(url + 'api/games', {
                            method: 'POST', mode: 'no-cors', credentials: 'include',
                            headers: {'content-type': type}, body: '{}'});
                    } catch {}
                }
            }""",
            remote.url,
        )
        page.set_content(
            f'<form id="f" method="post" enctype="text/plain" action="{remote.url}api/games">'
            '<input name=\'{"deal_number": 7, "x": "\' value=\'"}\'></form>'
        )
        with page.expect_navigation():
            page.evaluate("document.getElementById('f').submit()")
    assert len(shown) >= len(before)
    assert _games(remote, token) == shown


FULL_CHROMIUM = "/usr/lib/chromium/chromium"
"""The whole browser: the headless shell keeps no history database."""


def test_the_links_address_is_kept_only_spent(playwright_api: Any, remote: Server, links: Links,
                                             tmp_path: Path) -> None:
    """What a browser keeps of the link, checked in Chromium itself: the
    tab's history (its navigation entries, what Back walks) never holds
    the token, and going back requests nothing with it; the browser's
    history database (what chrome://history, the address bar's suggestions
    and a synced history read) does record the link's address, as the
    start of a redirect, which no answer of the server can prevent: that
    address is spent, and opens nothing elsewhere (``link-spent``)."""
    if not Path(FULL_CHROMIUM).exists():
        message = f"{FULL_CHROMIUM} is needed (the headless shell keeps no history)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    link = links.take()
    requested: list[str] = []
    context = playwright_api.chromium.launch_persistent_context(
        tmp_path / "profile", executable_path=FULL_CHROMIUM, locale="en-GB")
    page = context.new_page()
    page.on("request", lambda request: requested.append(request.url))
    cdp = context.new_cdp_session(page)
    page.goto(link)
    page.get_by_role("button", name="Open the game").click()
    page.wait_for_selector("body[data-ready='true']")
    entries = [entry["url"] for entry in cdp.send("Page.getNavigationHistory")["entries"]]
    assert entries[-2:] == [remote.url, remote.url] and not any("token" in url for url in entries)
    assert page.evaluate("history.length") == len(entries)
    page.go_back()
    page.wait_for_selector("body[data-ready='true']")  # (the link's page entry: the game now)
    page.go_back()
    assert page.url == "about:blank"
    assert [url for url in requested if "token" in url] == [link]  # (its one GET)
    context.close()
    database = sqlite3.connect(tmp_path / "profile" / "Default" / "History")
    try:
        kept = {url for (url,) in database.execute("SELECT url FROM urls")}
    finally:
        database.close()
    assert link in kept and remote.url in kept, kept
    with httpx.Client(trust_env=False, timeout=30) as elsewhere:
        spent = elsewhere.get(link)
        assert (spent.status_code, spent.json()["code"]) == (401, "link-spent")
