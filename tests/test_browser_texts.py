"""The page's words in a real browser: one card and one move are singular,
in English and German, and a pile's label says its count once.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from browser_support import STATS, Api, top, until
from web_support import WINNING_LINE

pytestmark = pytest.mark.browser


def test_pile_labels_count_once_and_in_the_singular(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s")
    page = open_game(game)
    waste = page.locator("[data-pile='waste']").get_attribute("aria-label")
    assert waste.startswith("Waste, 1 card, top card ")
    terrace = page.locator("[data-pile='reserve']").get_attribute("aria-label")
    assert terrace.startswith("Terrace, 11 cards, top card ")
    assert terrace.count("11 cards") == 1
    page.locator("#lang").select_option("de")
    waste = page.locator("[data-pile='waste']").get_attribute("aria-label")
    assert waste.startswith("Abwurfstapel, 1 Karte, ")


def test_a_card_pressed_before_the_choice_says_what_to_click(api: Api, open_game: Any) -> None:
    """The page said the engine's words for the command line, "choose a
    base card first (c1 to c3)", to a player who clicks a candidate or
    presses its key (English and German); the API's JSON keeps them."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game)
    why = page.locator("#why:not([hidden])")
    for language, words in [
        ("en", "Choose the base card first: click one of the 3 candidates or press 1–3."),
        ("de", "Wähle zuerst die Basiskarte: Klicke eine der 3 Karten an oder drücke 1–3."),
    ]:
        page.locator("#lang").select_option(language)
        top(page, "reserve").click()
        why.wait_for()
        assert why.inner_text() == words
    reason = api.client.get(f"/api/games/{game['id']}/why", params={"pile": "reserve"}).json()["reason"]
    assert reason == "choose a base card first (c1 to c3)"
    # The numbers are the refusal's (its params), not the game's shown when
    # the answer comes, which may be another by then.
    def five(route: Any) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, json={**answer.json(), "params": {"candidates": 5}})

    page.route("**/why?*", five)
    page.locator("[data-pile='reserve'] > .card").first.click()
    five_words = "Wähle zuerst die Basiskarte: Klicke eine der 5 Karten an oder drücke 1–5."
    until(lambda: why.inner_text() == five_words)


@pytest.mark.parametrize(("locale", "one", "leave"),
                         [("en-GB", "1 move", "(1 move)"), ("de-DE", "1 Zug", "(1 Zug)")])
def test_one_move_is_singular(api: Api, open_game: Any, locale: str, one: str, leave: str) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, locale=locale)
    page.locator("#btn-stats").click()
    page.wait_for_selector("#dlg-stats[open] .recent")
    assert f"· {one}" in page.locator("#dlg-stats .recent").inner_text()
    page.keyboard.press("Escape")
    page.locator("#btn-new").click()
    page.locator("#new-start").click()
    page.wait_for_selector("#dlg-confirm[open]")
    assert leave in page.locator("#dlg-confirm").inner_text()
    page.locator("#confirm-no").click()


@pytest.mark.parametrize(("foundations", "locale", "first", "next_card"), [
    ("alternate", "de-DE", "erste Karte: Bube", "als Nächstes: Dame in Schwarz"),
    ("suit", "de-DE", "erste Karte: Bube", "als Nächstes: Karo Dame"),
    ("alternate", "en-GB", "first card: jack", "next: black queen"),
    ("suit", "en-GB", "first card: jack", "next: queen of diamonds"),
])
def test_a_foundation_names_its_next_card_in_words(
    api: Api, open_game: Any, foundations: str, locale: str, first: str, next_card: str
) -> None:
    """A screen reader reads a foundation's name: the rank it waits for and
    the card it takes next are words, not a letter ('B') or a suit symbol
    ('D♦'), and the German needs no article or ending that a rank would
    have to agree with ('wartet auf eine B', 'schwarz D')."""
    game = api.play(api.new(variant="terrace", deal_number=1, options={"foundations": foundations}), "c3")
    page = open_game(game, locale=locale)
    started = page.locator("[data-pile='f1']").get_attribute("aria-label")
    empty = page.locator("[data-pile='f2']").get_attribute("aria-label")
    assert started.endswith(next_card), started
    assert empty.endswith(first), empty


@pytest.fixture(scope="module")
def one_move_before_the_win(api: Api) -> dict[str, Any]:
    """WINNING_LINE's game played through the API but its last move, once
    for both languages (249 moves; the hints they ask move nothing)."""
    line = WINNING_LINE
    game = api.new(variant=line["variant"], options=line["options"], deal_number=line["deal_number"])
    return api.play(game, *line["moves"][:-1])


@pytest.mark.parametrize(("locale", "words"), [("en-GB", "winning line of 1 move ("),
                                               ("de-DE", "Gewinnweg von 1 Zug (")])
def test_a_winning_line_of_one_move_is_singular(open_game: Any, one_move_before_the_win: dict[str, Any],
                                                locale: str, words: str) -> None:
    """A hint that may look at face-down cards, one move before the win."""
    page = open_game(one_move_before_the_win, locale=locale, before_goto=lambda p: p.add_init_script(
        "localStorage.setItem('terrace.assist.peek', 'on'); localStorage.setItem('terrace.autoplay', 'off')"))
    page.keyboard.press("h")
    page.locator("#prompt", has_text=words).wait_for(timeout=30_000)


@pytest.mark.parametrize(("locale", "words", "plural"), [
    ("en-GB", "click the one candidate or press 1.", "of the 1 candidates"),
    ("de-DE", "Klicke die eine Karte an oder drücke 1.", "der 1 Karten"),
])
def test_one_candidate_is_singular(api: Api, open_game: Any, locale: str, words: str, plural: str) -> None:
    game = api.new(variant="terrace", deal_number=3, options={"candidates": 1})
    assert game["status"] == "choosing" and len(game["choices"]) == 1
    page = open_game(game, locale=locale)
    text = page.locator("#prompt").inner_text()
    assert words in text and plural not in text


@pytest.mark.parametrize(("locale", "pile", "under"), [
    ("en-GB", "Terrace, 11 cards, top card queen of hearts",
     "under it: 8 of clubs, 10 of clubs, 4 of hearts, 8 of clubs, king of clubs, 4 of clubs, king of hearts, "
     "ace of spades, 2 of clubs, 9 of spades"),
    ("de-DE", "Terrasse, 11 Karten, oben Herz Dame",
     "darunter: Kreuz 8, Kreuz 10, Herz 4, Kreuz 8, Kreuz König, Kreuz 4, Herz König, Pik Ass, "
     "Kreuz 2, Pik 9"),
])
def test_a_screen_reader_hears_the_cards_under_a_pile_s_top_card(
    api: Api, open_game: Any, locale: str, pile: str, under: str
) -> None:
    """A sighted player reads the terrace's fan before choosing the base
    card; the cards inside a pile's button are not read out on their own,
    so the pile's description names them, from the top down, in words."""
    page = open_game(api.new(variant="terrace", deal_number=7), locale=locale)
    session = page.context.new_cdp_session(page)
    nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    described = {node.get("name", {}).get("value"): node.get("description", {}).get("value")
                 for node in nodes}
    assert described[pile] == under
    single = page.locator("[data-pile='t1']").get_attribute("aria-label")
    assert described[single] is None  # one card: nothing under it


def test_a_recent_game_s_buttons_say_which_game(api: Api, open_game: Any) -> None:
    """The statistics list recent games, each with Resume and Replay: a
    screen reader going from button to button hears which game each is for
    (here in German), not only twenty times "Nachspielen"."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2", "s")
    page = open_game(game, locale="de-DE")
    page.locator("#btn-stats").click()
    item = page.locator("#dlg-stats[open] ol.recent li").first
    item.get_by_role("button", name="Nachspielen").focus()
    session = page.context.new_cdp_session(page)
    def has_focus(node: dict[str, Any]) -> bool:
        return any(p["name"] == "focused" and p["value"].get("value") for p in node.get("properties", []))

    focused = [node for node in session.send("Accessibility.getFullAXTree")["nodes"]
               if node.get("role", {}).get("value") == "button" and has_focus(node)]
    assert [node["name"]["value"] for node in focused] == ["Nachspielen"]
    assert focused[0]["description"]["value"] == "Terrace · Spiel 7 · 2 Züge läuft"


def test_a_screen_reader_hears_the_waste_cards_in_sight(api: Api, open_game: Any) -> None:
    """The waste shows its top three cards fanned: its description names
    the two under the top one (not the rest, out of sight)."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2", "s", "s", "s", "s")
    waste = game["state"]["waste"]
    assert len(waste) == 4
    page = open_game(game)
    names = [page.locator(f"[data-pile='waste'] .card[data-card='{code}']").get_attribute("aria-label")
             for code in waste[-3:-1]]
    under = page.locator("[data-pile='waste']").get_attribute("aria-description")
    assert under == f"under it: {names[1]}, {names[0]}"


@pytest.mark.parametrize(("locale", "touch", "labels"), [
    ("en-GB", True, ["a single tap", "a double tap"]),
    ("de-DE", True, ["einfachem Tippen", "doppeltem Tippen"]),
    ("en-GB", False, ["a single click", "a double click"]),
    ("de-DE", False, ["einfachem Klick", "Doppelklick"]),
])
def test_the_setting_of_how_a_card_goes_home_speaks_of_taps_on_a_touch_screen(
    api: Api, open_game: Any, locale: str, touch: bool, labels: list[str]
) -> None:
    """On a phone the prompt says "double-tap it to send it home", and the
    setting that chooses between the two said "a single click" or "a
    double click" ("Doppelklick")."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    size = {"width": 390, "height": 844} if touch else {"width": 1280, "height": 860}
    page = open_game(game, locale=locale, has_touch=touch, is_mobile=touch, viewport=size)
    tap = "tap" if locale == "en-GB" else "tippe"
    assert (tap in page.locator("#prompt").inner_text()) == touch
    if page.locator("#btn-menu").is_visible():
        page.locator("#btn-menu").click()
    page.locator("#btn-settings").click()
    page.wait_for_selector("#dlg-settings[open]")
    shown = [page.locator(f"label[for='click-{value}']").inner_text() for value in ("single", "double")]
    assert shown == labels


@pytest.mark.parametrize(("locale", "thousands", "moves"), [("de-DE", "1.234", "1.234 Züge"),
                                                             ("en-GB", "1,234", "1,234 moves")])
def test_a_count_in_thousands_is_grouped_as_the_language_writes_it(
        api: Api, open_game: Any, locale: str, thousands: str, moves: str) -> None:
    """The server's German refusals group thousands ("100.000 Züge"), the
    page did not: a German player's statistics read "Rückgängig 1234" and
    a game's line in the recent list "· 1234 Züge" (t() and the table wrote
    every number with String). Counts are grouped now; the deal number, no
    count, is not ("Spiel 128681666")."""
    game = api.play(api.new(variant="terrace", deal_number=128681666), "c1")

    def more_undos(route: Any) -> None:
        data = route.fetch().json()
        data["overall"]["undos"] = data["variants"]["terrace"]["undos"] = 1234
        route.fulfill(json=data)

    def longer(route: Any) -> None:
        data = route.fetch().json()
        for shown in data["games"]:
            shown["moves"] = 1234
        route.fulfill(json=data)

    recent_games = re.compile(r"/api/games\?recent=")
    page = open_game(game, lambda p: (p.route(STATS, more_undos), p.route(recent_games, longer)),
                     locale=locale)
    if not page.locator("#btn-stats").is_visible():  # (the German toolbar's is in the menu)
        page.locator("#btn-menu").click()
    page.locator("#btn-stats").click()
    page.wait_for_selector("#dlg-stats[open] .recent")
    undos = page.locator("#dlg-stats tr[data-variant='terrace'] td[data-stat='undos']")
    assert undos.inner_text() == thousands
    recent = page.locator("#dlg-stats .recent").inner_text()
    assert f"· {moves}" in recent and "128681666" in recent, recent
