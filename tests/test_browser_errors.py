"""Failed calls in a real browser: every failed call (no answer, a proxy's
HTML page, a broken answer) shows the page's own translated words, never a
JavaScript error; a broken game is never adopted.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api, moves_seen, top

pytestmark = pytest.mark.browser

NETWORK = "The server did not answer: is terrace play still running?"
RAW = ("TypeError", "SyntaxError", "Failed to fetch", "Unexpected token")


def refuse(status: int, body: str, kind: str = "application/json") -> Any:
    return lambda route: route.fulfill(status=status, body=body, headers={"content-type": kind})


def no_raw_error(text: str | None) -> None:
    assert text
    for raw in RAW:
        assert raw not in text


def test_failed_calls_say_so_in_the_players_words(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    toast = page.locator("#toast")

    page.route("**/hint", refuse(503, "<html><body>Service unavailable</body></html>", "text/html"))
    page.locator("#btn-hint").click()
    page.wait_for_selector("#toast.show")
    assert toast.inner_text() == "The server could not answer (error 503). Try again in a moment."

    page.route("**/api/stats", lambda route: route.abort())
    page.locator("#btn-stats").click()
    page.locator("#toast", has_text=NETWORK).wait_for()

    page.evaluate("document.querySelector('#toast').textContent = ''")
    page.route("**/rules", lambda route: route.abort())
    page.locator("#btn-rules").click()
    page.locator("#toast", has_text=NETWORK).wait_for()

    page.route("**/why*", lambda route: route.abort())
    still = page.locator("[data-pile='reserve'] > .card").first  # covered: it cannot move
    still.dispatch_event("pointerdown", {"button": 0, "isPrimary": True, "pointerId": 1})
    page.wait_for_selector("#why:not([hidden])")
    assert page.locator("#why").inner_text() == NETWORK
    page.locator("#board").dispatch_event("pointerup", {"button": 0, "isPrimary": True, "pointerId": 1})

    page.route("**/api/games",
               lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    page.locator("#btn-new").click()
    page.locator("#new-start").click()
    page.locator("#dlg-confirm #confirm-yes").click()
    page.locator(".form-error", has_text=NETWORK).wait_for()
    open_game.errors.clear()


def test_failed_calls_in_german(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, locale="de-DE")
    page.route("**/hint", refuse(502, "<html>Bad gateway</html>", "text/html"))
    page.locator("#btn-hint").click()
    page.wait_for_selector("#toast.show")
    german = "Der Server konnte nicht antworten (Fehler 502). Versuche es gleich noch einmal."
    assert page.locator("#toast").inner_text() == german
    open_game.errors.clear()


def test_a_broken_game_answer_is_not_adopted(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    page.route("**/moves", refuse(200, "{}"))
    top(page, "t7").dblclick()
    page.wait_for_selector("#toast.show")
    text = page.locator("#toast").inner_text()
    no_raw_error(text)
    assert "cannot use" in text
    assert page.locator("#board .card").count() > 0
    page.unroute("**/moves")
    page.locator("[data-pile='stock']").click()
    moves_seen(page, 2)
