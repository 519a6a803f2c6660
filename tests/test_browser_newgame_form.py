"""The New game form in a real browser: a number field left empty is a
visible form error naming the field, in English and German, never a 0;
"Winnable deals only" starts a deal the solver proves won, or says in the
page's language that none was found in the time.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from browser_support import Api, settled, until
from test_browser_announcements import heard, listen

pytestmark = pytest.mark.browser

ERROR_COLOUR = "rgb(160, 20, 30)"
"""The colour of the form's errors (style.css: .form-error)."""

CASES = [
    ("reserve", "en-GB", "“Terrace cards” needs a whole number."),
    ("candidates", "en-GB", "“Base candidates (0 = turned)” needs a whole number."),
    ("decks", "en-GB", "“Decks” needs a whole number."),
    ("piles", "de-DE", "„Stapel der Auslage“ braucht eine ganze Zahl."),
]


@pytest.mark.parametrize(("field", "locale", "message"), CASES)
def test_an_empty_number_field_is_a_form_error(api: Api, open_game: Any, field: str, locale: str,
                                               message: str) -> None:
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, locale=locale)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#dlg-new summary").click()
    before = page.locator(f"#opt-{field}").input_value()
    page.locator(f"#opt-{field}").fill("")
    page.locator("#new-start").click()
    page.locator("#dlg-new .form-error", has_text=message[1:-1]).wait_for()
    assert page.locator("#dlg-new .form-error").inner_text() == message
    assert page.evaluate("document.activeElement.id") == f"opt-{field}"
    assert page.locator(f"#opt-{field}").get_attribute("aria-invalid") == "true"
    settled(page)
    assert page.evaluate("document.body.dataset.game") == game["id"]  # no game was started
    # Filled again, the form starts the game.
    page.locator(f"#opt-{field}").fill(before)
    page.locator("#new-start").click()
    page.wait_for_selector(f"body:not([data-game='{game['id']}'])")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("#new-deal", "1e3", "“Deal number” needs a whole number."),
    ("#opt-decks", "1e0", "“Decks” needs a whole number."),
])
def test_a_number_in_an_exponent_is_refused_as_the_command_line_refuses_it(
        api: Api, open_game: Any, field: str, value: str, message: str) -> None:
    """The browser reads "1e3" as 1000: the form started deal 1000, where
    `terrace deal -n 1e3` and a request are refused (and "1e0" decks as 1)."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    if field.startswith("#opt-"):
        page.locator("#dlg-new summary").click()  # (the rule options, folded)
    page.locator(field).fill(value)
    page.locator("#new-start").click()
    page.locator("#dlg-new .form-error", has_text=message[1:-1]).wait_for()
    assert page.evaluate("document.activeElement.id") == field[1:]
    settled(page)
    assert page.evaluate("document.body.dataset.game") == game["id"]  # no game was started


def test_winnable_deals_only_skips_a_lost_deal(api: Any, open_game: Any) -> None:
    """The form's "Winnable deals only", ticked: from Falling Star deal 6,
    which the solver proves lost, the game starts on deal 7, proved won,
    and is stored as a winnable-only game."""
    from terrace.board import Board
    from terrace.solver.api import solve
    from terrace.variants import get_rules

    rules = get_rules("falling-star")
    assert solve(Board.from_number(6, rules), max_seconds=30).result == "lost"
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-variant").select_option("falling-star")
    page.locator("#new-deal").fill("6")
    page.locator("#new-winnable").check()
    page.locator("#new-start").click()
    page.wait_for_selector(f"body:not([data-game='{game['id']}'])")
    page.wait_for_selector("#dlg-new:not([open])", state="attached")  # the dialog closed
    started = api.client.get(f"/api/games/{page.evaluate('document.body.dataset.game')}").json()
    assert (started["variant"], started["deal_number"], started["winnable_only"]) == ("falling-star", 7, True)
    assert solve(Board.from_number(7, rules), max_seconds=30).result == "won"
    # The player asked for deal 6 and is told why another one started (the
    # title's number changed, and nothing said so), a screen reader too.
    said = "Deal 6 is not proved winnable: this is deal 7, the first after it that the solver proves "
    said += "winnable."
    assert page.locator("#toast").inner_text() == said
    assert page.locator("#alert").inner_text() == said


@pytest.mark.parametrize(("locale", "said"), [
    ("en-GB", "Deal 5 is not proved winnable: this is deal 6, the first after it that the solver "
              "proves winnable."),
    ("de-DE", "Spiel 5 ist nicht als gewinnbar bewiesen: Dies ist Spiel 6, das erste danach, das der Löser "
              "als gewinnbar beweist."),
])
def test_a_winnable_deal_other_than_the_number_asked_for_is_said(api: Api, open_game: Any, locale: str,
                                                                 said: str) -> None:
    """Thirteen deal 5 is not proved winnable, deal 6 is: asked for 5 with
    "Winnable deals only", the page says why deal 6 started; asked for 6,
    it says nothing."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, locale=locale)
    for asked, started in ((6, 6), (5, 6)):
        shown = page.evaluate("document.body.dataset.game")
        page.locator("#btn-new").click()
        page.wait_for_selector("#dlg-new[open]")
        page.locator("#new-variant").select_option("thirteen")
        page.locator("#new-deal").fill(str(asked))
        page.locator("#new-winnable").check()
        page.locator("#new-start").click()
        page.wait_for_selector(f"body:not([data-game='{shown}'])")
        settled(page)
        title = page.locator("#game-title").inner_text()
        assert title.endswith(f" {started}"), title
        if asked != started:
            assert page.locator("#toast").inner_text() == said
        else:
            assert page.locator("#toast.show").count() == 0


@contextmanager
def served_page(browser: Any, locale: str, *options: str) -> Iterator[Any]:
    """A page in ``locale`` showing its game, of ``terrace play`` started
    with ``options``; no script error on it by the end."""
    from web_support import running_server

    with running_server(*options) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 860}, locale=locale)
        errors: list[str] = []
        try:
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            page.wait_for_selector("body[data-ready='true'][data-game]")
            yield page
            assert errors == []
        finally:
            context.close()


def search_eight_decks(page: Any) -> None:
    """Ask the New game form for a winnable deal of eight decks."""
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#dlg-new summary").click()
    page.locator("#opt-decks").fill("8")
    page.locator("#new-winnable").check()
    page.locator("#new-start").click()


def test_no_winnable_deal_within_the_time_is_said_in_the_form(browser: Any) -> None:
    """When the solver proves no deal won within the server's time (eight
    decks, half a second), the form stays open and says so in the page's
    language (German: a decimal comma), and the game on the table stays."""
    with served_page(browser, "de-DE", "--winnable-seconds", "0.5") as page:
        before = page.evaluate("document.body.dataset.game")
        search_eight_decks(page)
        said = page.locator("#dlg-new .form-error", has_text="kein gewinnbares Spiel")
        said.wait_for()
        assert said.inner_text().startswith("Innerhalb von 0,5 s wurde für diese Regeln kein gewinnbares")
        assert page.locator("#dlg-new[open]").count() == 1
        assert page.evaluate("document.body.dataset.game") == before


def test_the_rules_of_a_game_of_its_own_are_in_sight_in_the_new_game_form(api: Api, open_game: Any) -> None:
    """New game offers the rules of the game on the table: on a game of
    eight packs and twenty piles the form showed only Terrace's description
    ('The classic two-pack game: eleven terrace cards, nine piles ...'),
    its rule options folded, and Start dealt eight packs again. Rules of
    the game's own are unfolded now; a preset's stay folded."""
    custom = api.new(variant="terrace", deal_number=5,
                     options={"decks": 8, "piles": 20, "candidates": 20, "reserve": 40})
    page = open_game(custom)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    decks = page.locator("#opt-decks")
    assert decks.is_visible() and decks.input_value() == "8"
    page.keyboard.press("Escape")
    page = open_game(api.new(variant="terrace", deal_number=5))
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    assert page.locator("#dlg-new details").evaluate("(d) => d.open") is False
    assert not page.locator("#opt-decks").is_visible()


@pytest.mark.parametrize(("locale", "name"), [("en-GB", "Rule options"), ("de-DE", "Regeln")])
def test_the_rule_options_are_a_named_group(api: Api, open_game: Any, locale: str, name: str) -> None:
    """The form's folding rule options (a details element) are a group
    named by its summary, folded and unfolded."""
    page = open_game(api.new(variant="terrace", deal_number=7), locale=locale)
    page.locator("#btn-new").click()
    form = page.get_by_role("dialog").locator("form")
    form.wait_for()
    assert form.get_by_role("group", name=name, exact=True).count() == 1
    page.locator("#dlg-new summary").click()
    group = form.get_by_role("group", name=name, exact=True)
    assert group.count() == 1 and group.get_by_role("spinbutton").count() > 0


@pytest.mark.parametrize(("locale", "low", "high", "whole"), [
    ("en-GB", "“Deal number” must be at least 0.", "“Decks” must be at most {max}.",
     "“Decks” needs a whole number."),
    ("de-DE", "„Spielnummer“ muss mindestens 0 sein.", "„Kartenspiele“ darf höchstens {max} sein.",
     "„Kartenspiele“ braucht eine ganze Zahl."),
])
def test_a_number_out_of_range_is_said_in_the_page_s_language(
        api: Api, open_game: Any, locale: str, low: str, high: str, whole: str) -> None:
    """A number out of range: the browser's bubble says so in the page's
    words (the browser's own are in the browser's language), naming the
    field, and the game starts once the field is put right."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, locale=locale)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    decks = page.locator("#opt-decks")
    before = decks.input_value()
    top = decks.get_attribute("max")
    message = "el => el.validationMessage"
    cases = [("#new-deal", "-1", low), ("#opt-decks", str(int(top) + 1), high.format(max=top)),
             ("#opt-decks", "1.5", whole)]
    for field, value, said in cases:
        page.locator(field).fill(value)
        page.locator("#new-start").click()
        assert page.locator(field).evaluate(message) == said
        assert page.evaluate("document.activeElement.id") == field[1:]
        page.locator(field).fill(before if field == "#opt-decks" else "")
    settled(page)
    assert page.evaluate("document.body.dataset.game") == game["id"]  # no game was started
    page.locator("#new-start").click()
    page.wait_for_selector(f"body:not([data-game='{game['id']}'])")


IN_SIGHT = """(sel) => {
  const node = document.querySelector(sel);
  const r = node.getBoundingClientRect();
  const box = node.closest('dialog').getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.height > 0 && r.top >= box.top && r.bottom <= box.bottom && r.bottom <= innerHeight
    && (hit === node || node.contains(hit));
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_start_and_its_error_are_in_sight_on_a_phone_held_sideways(api: Api, open_game: Any,
                                                                   locale: str) -> None:
    """On a 640x360 phone the New game dialog's Start button lay 80 px below
    its foot, to be found by scrolling the form; an empty field's error,
    just above it, could not be seen either. Both now stay at the dialog's
    foot, whatever the form's scrolling."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, locale=locale, viewport={"width": 640, "height": 360}, has_touch=True,
                     is_mobile=True)
    page.locator("#btn-new").tap()
    page.wait_for_selector("#dlg-new[open]")
    assert page.evaluate(IN_SIGHT, "#new-start")
    page.locator("#dlg-new summary").tap()
    page.locator("#opt-reserve").fill("")
    page.locator("#new-start").tap()
    page.locator("#dlg-new .form-error:not(:empty)").wait_for()
    assert page.evaluate(IN_SIGHT, "#dlg-new .form-error") and page.evaluate(IN_SIGHT, "#new-start")
    assert page.evaluate("document.activeElement.id") == "opt-reserve"
    assert page.evaluate(IN_SIGHT, "#opt-reserve")  # the field to fix, above the foot


def test_closing_the_form_stops_the_search_for_a_winnable_deal(browser: Any) -> None:
    """Closing the New game form while it looks for a winnable deal stops
    the search: the page dropped the answer but left the request, so the
    server went on searching (up to ``--winnable-seconds``, each search
    holding one of the two solver processes) and then started a game nobody
    waited for. Two searches closed so, a hint still gets a solver process
    (before: 503, "no solver process came free in time")."""
    with served_page(browser, "en-GB", "--winnable-seconds", "600", "--hint-seconds", "10") as page:
        before = page.evaluate("document.body.dataset.game")
        for _ in range(2):  # (one search for each solver process)
            search_eight_decks(page)  # (no deal is proved won in the time)
            page.locator("#dlg-new .form-status", has_text="Looking for a deal").wait_for()
            page.locator("#dlg-new button.close").click()
            page.wait_for_selector("#dlg-new:not([open])", state="attached")
        status = page.evaluate("""async (id) => (await fetch(`/api/games/${id}/hint`, {
            method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"})).status""",
                               before)
        assert status == 200
        assert page.evaluate("document.body.dataset.game") == before


def test_a_deal_number_past_a_script_numbers_exact_range_is_played_as_typed(api: Api, open_game: Any) -> None:
    """Deal numbers run to 2^63 - 1, and the form sent ``Number(value)``:
    9007199254740993 (2^53 + 1) started deal 9007199254740992, another deal
    than the one typed, and one past the last deal number was let through
    (as floating point it equals the form's limit). The limits come from
    ``/api/variants`` (``deal_numbers``), the digits go out as typed, and
    the title shows them."""
    from terrace.deal import MAX_DEAL_NUMBER

    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-deal").fill(str(MAX_DEAL_NUMBER + 1))
    page.locator("#new-start").click()
    page.wait_for_function("(most) => document.getElementById('new-deal').validationMessage"
                           " === `“Deal number” must be at most ${most}.`", arg=str(MAX_DEAL_NUMBER))
    assert page.evaluate("document.body.dataset.game") == game["id"]  # no game was started
    page.locator("#new-deal").fill("9007199254740993")
    page.locator("#new-start").click()
    page.wait_for_selector(f"body:not([data-game='{game['id']}'])")
    started = api.client.get(f"/api/games/{page.evaluate('document.body.dataset.game')}").json()
    assert started["deal_number"] == 9007199254740993
    page.locator("#game-title", has_text="9007199254740993").wait_for()


def test_the_form_keeps_winnable_deals_only_as_the_game_on_the_table_was_started(
    api: Api, open_game: Any
) -> None:
    """The form starts with the variant and the rules of the game on the
    table, and now with its "Winnable deals only" too: after a winnable-only
    game the box was unticked, and New game, Start dealt a deal that may be
    lost (Falling Star deal 6, which the solver proves lost)."""
    game = api.new(variant="falling-star", deal_number=6, winnable=True)
    assert (game["deal_number"], game["winnable_only"]) == (7, True)
    page = open_game(game)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    assert page.locator("#new-winnable").is_checked()
    assert page.locator("#new-variant").input_value() == "falling-star"
    page.locator("#new-deal").fill("6")
    page.locator("#new-start").click()
    page.wait_for_selector(f"body:not([data-game='{game['id']}'])")
    started = api.client.get(f"/api/games/{page.evaluate('document.body.dataset.game')}").json()
    assert (started["deal_number"], started["winnable_only"]) == (7, True)
    # (a game dealt at random leaves the box unticked)
    other = api.new(variant="terrace", deal_number=7)
    page = open_game(other)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    assert not page.locator("#new-winnable").is_checked()


def test_the_search_for_a_winnable_deal_is_counted_from_its_request(api: Api, open_game: Any) -> None:
    """Start with "Winnable deals only" on a game in play asks first
    whether to leave it, and the form counted the search from Start: while
    the question waited it said "Looking for a deal the solver proves
    winnable… 12 s so far, at most 10 s", though nothing was searched yet.
    It counts from the request, made once the player has answered. Its
    words are a note beside Start, heard once: they were the form's alert,
    red as an error, and a screen reader heard them again every second."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s")
    held: list[Any] = []

    def hold(route: Any) -> None:
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    page = open_game(game, before_goto=lambda page: page.clock.install())
    status = page.locator("#dlg-new .form-status")
    page.route("**/api/games", hold)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-winnable").check()
    page.locator("#new-start").click()
    page.wait_for_selector("#dlg-confirm[open]")
    page.clock.run_for(12_000)  # (the player reads the question)
    assert "so far" not in status.inner_text()
    listen(page)
    page.locator("#dlg-confirm button", has_text="Start a new game").click()
    until(lambda: page.evaluate("true") and len(held) == 1)  # (a call lets the route's event through)
    assert status.inner_text() == "Looking for a deal the solver proves winnable… 0 s so far, at most 10 s."
    page.clock.run_for(2_000)
    assert status.inner_text() == "Looking for a deal the solver proves winnable… 2 s so far, at most 10 s."
    assert heard(page) == ["Looking for a deal the solver proves winnable… 0 s so far, at most 10 s."]
    assert status.evaluate("(p) => getComputedStyle(p).color") != ERROR_COLOUR
    assert page.locator("#dlg-new [role=alert]").inner_text() == ""
    held[0].continue_()
    page.wait_for_selector(f"body:not([data-game='{game['id']}'])")
