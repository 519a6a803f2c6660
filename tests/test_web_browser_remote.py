"""Remote play and the dialogs' callbacks in a real browser: the secret
link sets an HttpOnly cookie the page cannot read, leads to the clean
address, and the game plays; the settings dialog changes the language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import need_browser
from web_support import CHROMIUM, Server, started_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def remote() -> Iterator[Server]:
    with started_server("--remote", "--host", "127.0.0.1") as server:
        yield server


@pytest.fixture
def browsing(remote: Server) -> Iterator[tuple[Any, list[str]]]:
    """A page and the console errors it logs: none are expected except
    those a test names in the list (the console reports a refused page
    whenever it likes, even after the test has looked)."""
    sync_playwright = need_browser()
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-GB")
        tab = context.new_page()
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        expected: list[str] = []
        yield tab, expected
        context.close()
        browser.close()
    assert [error for error in errors if not any(word in error for word in expected)] == []


def test_the_secret_link_opens_the_game(remote: Server, browsing: tuple[Any, list[str]]) -> None:
    page, _ = browsing
    match = re.search(r"http://\S+", remote.first_line)
    assert match is not None
    link = match.group(0)
    page.goto(link)
    page.wait_for_selector("body[data-ready='true']")
    assert "token" not in page.url
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
    # the random deal the server starts with may be lost from the start, where
    # a hint answers with the end screen: play deal 7, which is won
    created = page.evaluate(
        """async () => (await fetch('/api/games', {
            method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({variant: 'terrace', deal_number: 7}),
        })).json()"""
    )
    page.goto(f"{remote.url}?game={created['id']}")
    page.wait_for_selector(f"body[data-game='{created['id']}']")
    page.locator("[data-pile='t1']").first.wait_for()
    page.locator("#btn-hint").click()
    page.locator(".hint-src").wait_for()
    page.locator("#btn-settings").click()
    page.locator("#set-lang").select_option("de")
    assert page.locator("#btn-new").inner_text() == "Neues Spiel"
    assert "Einstellungen" in page.locator("#dlg-settings h2").inner_text()
    page.locator("#click-single").check()
    assert page.evaluate("localStorage.getItem('terrace.click')") == "single"


def test_without_the_link_the_page_is_refused(remote: Server, browsing: tuple[Any, list[str]]) -> None:
    page, expected = browsing
    expected.append("401 (Unauthorized)")
    response = page.goto(remote.url)
    assert response.status == 401
    assert "token" in page.content()
