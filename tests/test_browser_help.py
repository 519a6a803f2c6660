"""Rules and help in a real browser: the Rules dialog shows the rules of the
game being played as the server writes them (its own rule options, tips,
strategy, common mistakes), in the page's language; the New game dialog
describes each variant and names its other names; the page asks for the
variant list and the game at the same time."""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api

pytestmark = pytest.mark.browser


def rules_text(page: Any) -> str:
    if page.locator("#btn-menu").is_visible():  # (the German header folds beside a custom game's title)
        page.locator("#btn-menu").click()
    page.locator("#btn-rules").click()
    dialog = page.locator("#dlg-rules[open]")
    dialog.locator("section[data-section='mistakes']").wait_for()
    text: str = dialog.inner_text()
    return text


def test_the_rules_dialog_describes_the_game_in_play(api: Api, open_game: Any) -> None:
    page = open_game(api.new(variant="terrace", deal_number=3))
    text = rules_text(page)
    server = api.client.get("/api/rules", params={"variant": "terrace"}).json()
    assert "Rules: Terrace" in text and "Queen of Italy" in text and "Signora" in text
    assert text.count("Signora") == 1  # (the description names them: no second mention)
    for section in server["sections"]:
        assert section["title"] in text
        for block in section["blocks"]:
            for line in block.get("items", [block.get("text")]):
                assert line in text
    for title in ("Tips for beginners", "Strategy", "Common mistakes", "Playing here"):
        assert title in text
    assert "11 cards in an overlapping row" in text and "3 candidate cards" in text


def test_the_rules_follow_the_variant_its_options_and_the_language(api: Api, open_game: Any) -> None:
    game = api.new(variant="wood", deal_number=3, options={"redeals": 2})
    page = open_game(game)
    text = rules_text(page)
    assert "Rules: Wood" in text
    assert "until you move the top waste card there" in text and "2 times in all" in text
    assert "There is no choice" in text and "candidate" not in text.split("Tips for beginners")[0]
    page.keyboard.press("Escape")
    page.evaluate("localStorage.setItem('terrace.lang', 'de')")
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    german = rules_text(page)
    assert "Regeln: Wood" in german and "Häufige Fehler" in german and "insgesamt 2 Mal" in german


def test_the_new_game_dialog_describes_each_variant(api: Api, open_game: Any) -> None:
    page = open_game(api.new(variant="terrace", deal_number=3))
    variants = {v["name"]: v for v in api.client.get("/api/variants").json()["variants"]}
    page.locator("#btn-new").click()
    note = page.locator("#new-variant-about")
    assert variants["terrace"]["description"] in note.inner_text()
    assert "Queen of Italy" in note.inner_text() and "Signora" in note.inner_text()
    page.locator("#new-variant").select_option("generals-patience")
    assert note.inner_text() == variants["generals-patience"]["description"]
    page.keyboard.press("Escape")
    page.locator("#lang").select_option("de")
    page.locator("#btn-new").click()
    page.locator("#new-variant").select_option("falling-star")
    assert note.inner_text() == variants["falling-star"]["descriptions"]["de"]


def test_the_variants_and_the_game_load_side_by_side(api: Api, open_game: Any) -> None:
    game = api.new(variant="terrace", deal_number=3)
    events: list[str] = []

    def watch(page: Any) -> None:
        def note(kind: str) -> Any:
            return lambda r: events.append(f"{kind} {r.url.split('/api/')[-1]}") if "/api/" in r.url else None
        page.on("request", note("ask"))
        page.on("requestfinished", note("got"))

    open_game(game, before_goto=watch)
    asked_variants = events.index("ask variants")
    got_game = events.index(f"got games/{game['id']}")
    asked_game = events.index(f"ask games/{game['id']}")
    assert asked_variants < got_game and asked_game < events.index("got variants")


def test_a_game_with_its_own_options_names_the_game_and_says_so(api: Api, open_game: Any) -> None:
    page = open_game(api.new(variant="terrace", deal_number=3, options={"candidates": 4}))
    text = rules_text(page)
    assert "Also known as Queen of Italy, Signora." in text
    assert "This game changes some rule options" in text and "4 candidate cards" in text
