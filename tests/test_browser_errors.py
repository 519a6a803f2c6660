"""Failed calls in a real browser: a server that cannot be reached at load
is said so, with a button to try again; every failed call (no answer, a
proxy's HTML page, a broken answer) shows the page's own translated words,
never a JavaScript error; a broken game is never adopted.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from browser_support import STATS, Api, moves_seen, settled, top, until
from test_browser_layout import assert_fits, run, stack_high

pytestmark = pytest.mark.browser

NETWORK = "The server did not answer: is terrace play still running?"
RAW = ("TypeError", "SyntaxError", "Failed to fetch", "Unexpected token")


def refuse(status: int, body: str, kind: str = "application/json") -> Any:
    return lambda route: route.fulfill(status=status, body=body, headers={"content-type": kind})


def no_raw_error(text: str | None) -> None:
    assert text
    for raw in RAW:
        assert raw not in text


def test_a_server_out_of_reach_at_load_is_said_with_a_retry(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-GB")
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/api/**", refuse(503, json.dumps({"error": "busy", "code": "busy"})))
        # The page tries each read four times, 1, 2 and 4 s apart (main.js
        # READ_TRIES): its clock is moved on through those waits (they were
        # seven seconds of waiting in every run).
        page.clock.install()
        page.goto(server)
        ready = page.locator("body[data-ready='true']")
        until(lambda: ready.count() or page.clock.run_for(1_000))
        banner = page.locator("#offline")
        assert banner.is_visible()
        # (the server answered: its words, as a sentence, not "cannot reach the server")
        assert banner.inner_text().startswith("Busy.")
        for button in ("#btn-undo", "#btn-redo", "#btn-hint", "#btn-restart", "#btn-giveup"):
            assert page.locator(button).is_disabled()
        page.unroute("**/api/**")
        page.locator("#offline-retry").click()
        page.wait_for_selector("body[data-game]")
        assert not banner.is_visible()
        assert page.locator("#board .card").count() > 0
        # The variants failed at load: New game loads them now.
        page.locator("#btn-new").click()
        page.wait_for_selector("#dlg-new[open] #new-variant")
        assert errors == []
    finally:
        context.close()


def test_new_game_loads_the_variants_again_when_they_failed(api: Api, open_game: Any) -> None:
    """Variants that could not be loaded had a toast for 4.5 s and no form:
    the New game panel says so in place, and its Try again (focused) shows
    the form there once they load; the next New game finds them."""
    game = api.new(variant="terrace", deal_number=7)
    busy = refuse(503, "<h1>busy</h1>", "text/html")
    page = open_game(game, before_goto=lambda p: p.route("**/api/variants", busy))
    page.locator("#btn-new").click()
    panel = page.locator("#dlg-new[open]")
    failed = panel.locator(".load-failed")
    failed.wait_for()
    assert failed.inner_text() == ("The variants could not be loaded."
                                   " The server could not answer (error 503). Try again in a moment.")
    until(lambda: page.evaluate("document.activeElement.textContent") == "Try again")
    page.unroute("**/api/variants")
    page.keyboard.press("Enter")
    panel.locator("#new-variant").wait_for()
    until(lambda: page.evaluate("document.activeElement.classList.contains('close')"))
    page.keyboard.press("Escape")
    page.locator("#btn-new").click()
    panel.locator("#new-variant").wait_for()
    open_game.errors.clear()  # (the browser logs the refused loads)


def test_a_fault_of_the_page_s_script_is_said_in_place_with_try_again(api: Api, open_game: Any) -> None:
    """A fault of the page's script while it did what was asked (here a
    hint answer that lacks its line, which the page reads) showed its raw
    English words in a toast for 4.5 s, the board left as it was: the page
    says so in place, with Try again, which draws the game anew."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    page.route("**/hint", refuse(200, '{"kind": "winnable", "move": "s", "fair": false}'))
    page.locator("#btn-hint").click()
    banner = page.locator("#offline")
    banner.wait_for()
    words = page.locator("#offline-why").inner_text()
    assert words.startswith("The page went wrong (TypeError: ")
    assert words.endswith("). Try again loads the game anew from the server and draws it.")
    assert page.locator("#offline-text").is_hidden()
    page.unroute("**/hint")
    page.locator("#offline-retry").click()
    banner.wait_for(state="hidden")
    page.locator("[data-pile='stock']").click()
    moves_seen(page, 2)
    open_game.errors.clear()  # (the page logs the fault on the console, for its developer)


def test_the_board_fits_below_the_banner_of_a_fault(api: Api, open_game: Any) -> None:
    """The banner of a fault of the page's script (above the board) pushed
    the board fitted without it down: its last cards below the window's
    edge, the page scrolled. The board is fitted again to the room left."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, lambda p: stack_high(p, game, {0: run(14)}),
                     viewport={"width": 1280, "height": 720})
    page.route("**/hint", refuse(200, '{"kind": "winnable", "move": "s", "fair": false}'))
    page.locator("#btn-hint").click()
    page.locator("#offline").wait_for()
    assert_fits(page)
    open_game.errors.clear()  # (the page logs the fault on the console)


def test_failed_calls_say_so_in_the_players_words(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    toast = page.locator("#toast")

    page.route("**/hint", refuse(503, "<html><body>Service unavailable</body></html>", "text/html"))
    page.locator("#btn-hint").click()
    page.wait_for_selector("#toast.show", state="attached")
    assert toast.inner_text() == "The server could not answer (error 503). Try again in a moment."

    page.route(STATS, lambda route: route.abort())
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats[open] .load-failed", has_text=NETWORK).wait_for()
    page.keyboard.press("Escape")

    # (the rules too, in their panel, where a toast said it for 4.5 s; Try again loads them there)
    page.route("**/rules", lambda route: route.abort())
    page.locator("#btn-rules").click()
    rules = page.locator("#dlg-rules[open]")
    assert rules.locator(".load-failed").inner_text() == f"The rules could not be loaded. {NETWORK}"
    page.unroute("**/rules")
    page.keyboard.press("Enter")  # (on Try again)
    rules.locator("article.rules").wait_for()
    page.keyboard.press("Escape")

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


def test_statistics_that_fail_to_load_say_so_in_their_panel_and_load_there_again(
    api: Api, open_game: Any
) -> None:
    """Statistics that could not be loaded (the server out of reach, an
    error 500, an answer that is no JSON) had a toast for 4.5 s and no
    panel: the panel says so and why, and its Try again (focused) loads
    them there; once shown, the focus is on the panel's ×."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    failures = [
        (lambda route: route.abort(), NETWORK),
        (refuse(500, "Internal Server Error", "text/plain"), "(error 500)"),
        (refuse(200, '{"overall": ', "application/json"), "an answer the page cannot use"),
    ]
    failing: list[Any] = []
    page.route(STATS, lambda route: failing[-1](route) if failing else route.continue_())
    panel = page.locator("#dlg-stats[open]")
    for at, (fail, words) in enumerate(failures):
        failing.append(fail)
        if at == 0:
            page.locator("#btn-stats").click()
        else:
            page.keyboard.press("Enter")  # (on Try again)
        panel.locator(".load-failed", has_text=words).wait_for(timeout=10_000)
        assert panel.locator(".load-failed").inner_text().startswith("The statistics could not be loaded. ")
        until(lambda: page.evaluate("document.activeElement.textContent") == "Try again")
    failing.clear()
    page.keyboard.press("Enter")
    panel.locator("tr[data-variant='overall']").wait_for()
    assert panel.locator(".load-failed").count() == 0
    until(lambda: page.evaluate("document.activeElement.classList.contains('close')"))
    open_game.errors.clear()  # (the browser's console reports the failed requests)


def test_a_replay_step_that_fails_is_said_in_the_prompt_and_the_replay_goes_on(
    api: Api, open_game: Any
) -> None:
    """A replay's Next move whose step could not be read did nothing and
    said nothing; the slider's step had a toast for 4.5 s, the slider left
    on the step not shown. The prompt says which move and why until a step
    is shown, the slider goes back, and Next move tries again."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2", "s", "s")
    page = open_game(game)
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats[open] ol.recent li").first.get_by_role("button", name="Replay").click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    settled(page)
    page.route("**/position*", lambda route: route.abort())
    prompt = page.locator("#prompt")
    failed = (f"Move 1 of the replay could not be shown. {NETWORK}"
              " ◀\ufe0e Previous move or Next move ▶\ufe0e tries again")
    page.locator("#replay-next").click()
    settled(page)
    assert prompt.inner_text().startswith(failed)
    # (it names the buttons as they are shown: in words, and on an upright
    # phone as their arrows alone, which it did not name)
    for size in ({"width": 1280, "height": 860}, {"width": 390, "height": 844}):
        page.set_viewport_size(size)
        for button in ("#replay-prev", "#replay-next"):
            assert page.locator(button).inner_text() in prompt.inner_text(), (size, button)
    page.set_viewport_size({"width": 1280, "height": 860})
    page.locator("#replay-step").focus()
    page.keyboard.press("End")  # (the slider to move 3, which cannot be read either)
    settled(page)
    assert prompt.inner_text().startswith(failed.replace("Move 1", "Move 3"))
    assert page.locator("#replay-step").input_value() == "0"
    page.unroute("**/position*")
    page.locator("#replay-next").click()
    settled(page)
    assert prompt.inner_text() == "Replay of deal 7: move 1 of 3."
    open_game.errors.clear()  # (the browser's console reports the failed requests)


def test_failed_calls_in_german(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, locale="de-DE")
    page.route("**/hint", refuse(502, "<html>Bad gateway</html>", "text/html"))
    page.locator("#btn-hint").click()
    page.wait_for_selector("#toast.show", state="attached")
    german = "Der Server konnte nicht antworten (Fehler 502). Versuche es gleich noch einmal."
    assert page.locator("#toast").inner_text() == german
    open_game.errors.clear()


def test_a_broken_game_answer_is_not_adopted(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    page.route("**/moves", refuse(200, "{}"))
    top(page, "t7").dblclick()
    page.wait_for_selector("#toast.show", state="attached")
    text = page.locator("#toast").inner_text()
    no_raw_error(text)
    assert "cannot use" in text
    assert page.locator("#board .card").count() > 0
    page.unroute("**/moves")
    page.locator("[data-pile='stock']").click()
    moves_seen(page, 2)


def test_try_again_by_keyboard_leaves_the_focus_on_the_board(browser: Any, server: str) -> None:
    """Try again, pressed with Enter, is disabled while the game loads and
    hidden once it is drawn: the focus goes to the board (the stock), not
    to the page's body."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-GB")
    try:
        page = context.new_page()
        # (no game to resume, and none can be made: quickly out of reach)
        page.route("**/api/current-game", refuse(200, "null"))
        page.route("**/api/games", refuse(503, json.dumps({"error": "busy", "code": "busy"})))
        page.goto(server)
        page.wait_for_selector("body[data-ready='true']")
        assert page.locator("#offline").is_visible()
        page.unroute("**/api/current-game")
        page.unroute("**/api/games")
        page.locator("#offline-retry").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("body[data-game]")
        # (the focus moves once the variants are loaded too, which may come later)
        until(lambda: page.evaluate("document.activeElement.dataset.pile || null") == "stock")
    finally:
        context.close()


REFUSED = ("The server refused the browser's request (error {}): it was too large or malformed. "
           "Cookies that other programs on this address set count too: delete this site's cookies, "
           "then reload the page.")
REFUSED_DE = ("Der Server hat die Anfrage des Browsers abgelehnt (Fehler 400): Sie war zu groß oder "
              "fehlerhaft. Auch Cookies, die andere Programme für diese Adresse gesetzt haben, zählen "
              "mit: Lösche die Cookies dieser Seite und lade sie dann neu.")


def big_cookies(page: Any, server: str) -> None:
    """Cookies for the server's address, as another program on it (any
    port) may set: the browser then sends a head of over 16 KB."""
    page.context.add_cookies([{"name": f"other{i}", "value": "x" * 4000, "url": server} for i in range(5)])


def test_a_request_the_server_itself_refuses_is_said_so(api: Api, open_game: Any, server: str) -> None:
    """The server refuses a request head it will not read before the app
    and before it knows the request's language (431 head-too-large; uvicorn
    answered a plain-text 400): the page said "The server could not answer
    (error 400). Try again in a moment." though no try could succeed, and
    now says why in its own words."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    big_cookies(page, server)
    page.locator("[data-pile='stock']").click()
    page.wait_for_selector("#toast.show", state="attached")
    assert page.locator("#toast").inner_text() == REFUSED.format(431)
    assert page.locator("body").get_attribute("data-moves") == "1"
    open_game.errors.clear()  # (the browser logs the refused call)


def test_a_refused_load_is_not_taken_for_a_server_out_of_reach(api: Api, browser: Any, server: str) -> None:
    """All the page's calls refused by uvicorn at load (in German): the page
    said it could not reach the server, and the refusal of the game named in
    the address made it fall back to another game, or start a new one."""
    game = api.new(variant="terrace", deal_number=7)
    before = len(api.client.get("/api/games?recent=200").json()["games"])
    plain = refuse(400, "Invalid HTTP request received.", "text/plain; charset=utf-8")
    reached: list[str] = []

    def refused(route: Any) -> None:
        reached.append(f"{route.request.method} {route.request.url}")
        plain(route)

    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="de-DE")
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/api/**", refused)
        page.goto(f"{server}?game={game['id']}")
        page.wait_for_selector("body[data-ready='true']")
        panel = page.locator("#offline")
        assert panel.is_visible()
        assert REFUSED_DE in panel.inner_text()
        assert "erreicht den Server nicht" not in panel.inner_text()
        assert not any(call.startswith("POST") for call in reached), reached
        assert not any(call.endswith("/api/current-game") for call in reached), reached
        assert len(api.client.get("/api/games?recent=200").json()["games"]) == before
        page.unroute("**/api/**")
        page.locator("#offline-retry").click()
        page.wait_for_selector(f"body[data-game='{game['id']}']")
        assert not panel.is_visible()
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("named", ["nope", "x" * 3000])
def test_a_game_the_address_names_that_is_not_here_is_said(api: Api, open_game: Any, server: str,
                                                             named: str) -> None:
    """?game= naming no game (a word, an id thousands of characters long)
    showed the game in play instead and said nothing: the player never
    learnt that the game asked for was not found. The prompt now says so
    (the server's words within the page's) until the player goes on, on
    the game shown instead, whose id the address then names; the long id
    breaks across lines, where it pushed a phone's page sideways."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    page.goto(f"{server}?game={named}")
    page.wait_for_selector("body[data-ready='true']")
    assert page.evaluate("document.body.dataset.game") == game["id"]
    prompt = page.locator("#prompt")
    said = prompt.inner_text()
    assert said.startswith("The game in the address was not found (there is no game '"), said
    assert said.endswith("): this is your current game.")
    assert page.url.endswith(f"?game={game['id']}")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.keyboard.press("Escape")  # (read: the prompt says how to play again)
    until(lambda: prompt.inner_text().startswith("Drag a card"), 5)
    open_game.errors.clear()  # (the browser logs the 404)
