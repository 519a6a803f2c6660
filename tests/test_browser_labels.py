"""Every button's label in one line and whole, in a real browser: the
toolbar, the open menu, the replay bar, the new game's dialog and the end
notice, in English and German, on phones upright and sideways, a tablet
and a desktop. (On a 360x640 phone "Neues Spiel", "New game" too, broke
into two lines inside its 44 px button.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from browser_support import Api
from web_support import WINNING_LINE

pytestmark = pytest.mark.browser

SIZES = [(360, 640), (390, 844), (640, 360), (768, 1024), (1920, 1080)]

# The buttons in sight whose words take more than one line, or run past
# their button's box. Words hidden on purpose (a visually hidden name, a
# folded part) are left out: they are not drawn.
LABELS = """() => {
  const drawn = (node) => {
    for (let n = node; n; n = n.parentElement) {
      const style = getComputedStyle(n);
      if (style.display === 'none' || style.visibility === 'hidden' || style.clipPath === 'inset(50%)')
        return false;
    }
    return true;
  };
  const seen = [], bad = [];
  for (const button of document.querySelectorAll('button')) {
    if (!button.getClientRects().length || !drawn(button)) continue;
    const box = button.getBoundingClientRect();
    const bottoms = [];
    let cut = button.scrollWidth > button.clientWidth + 1;
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      if (!text.textContent.trim() || !drawn(text.parentElement)) continue;
      const range = document.createRange();
      range.selectNodeContents(text);
      for (const r of range.getClientRects()) {
        if (r.width < 0.5) continue;
        bottoms.push(r.bottom);
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5) cut = true;
      }
    }
    const lines = bottoms.length ? Math.max(...bottoms) - Math.min(...bottoms) : 0;
    const name = button.id || button.textContent.trim();
    seen.push(name);
    if (lines > 4 || cut)
      bad.push(`${name} "${button.textContent.trim()}"${lines > 4 ? ' wraps' : ''}${cut ? ' cut' : ''}`
        + ` ${Math.round(box.width)}x${Math.round(box.height)}`);
  }
  return { seen, bad };
}"""


def labels_whole(page: Any, where: str, *expected: str) -> None:
    found = page.evaluate(LABELS)
    assert found["bad"] == [], (where, found["bad"])
    for name in expected:
        assert name in found["seen"], (where, name, found["seen"])


@pytest.fixture(scope="module")
def won(api: Api) -> dict[str, Any]:
    """WINNING_LINE's game won through the API once for this module's tests
    (its 250 moves were played again for each of the ten sizes and
    languages): a game of their own, which each makes the newest."""
    line = WINNING_LINE
    return api.play(api.new(variant="terrace", deal_number=line["deal_number"], options=line["options"]),
                    *line["moves"])


def made_newest(api: Api, game: dict[str, Any]) -> dict[str, Any]:
    """``game`` the most recently played again (its last move undone and
    played again), so that the statistics' first Replay is its replay."""
    assert api.client.post(f"/api/games/{game['id']}/undo", json={}).status_code == 200
    again = api.client.post(f"/api/games/{game['id']}/redo", json={})
    assert again.status_code == 200 and again.json()["status"] == "won", again.text
    data: dict[str, Any] = again.json()
    return data


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_button_s_label_wraps_or_is_cut(api: Api, open_game: Any, won: dict[str, Any], locale: str,
                                           width: int, height: int) -> None:
    phone = width < 820
    page = open_game(made_newest(api, won), locale=locale, viewport={"width": width, "height": height},
                     has_touch=phone, is_mobile=phone)
    page.locator("dialog.end[open]").wait_for()
    labels_whole(page, "end notice", "btn-new", "btn-undo", "btn-hint")
    page.keyboard.press("Escape")
    page.locator("dialog.end[open]").wait_for(state="detached")
    folded = page.locator("#btn-menu").is_visible()
    if folded:  # (its name whole, also where only its sign shows)
        menu = {"en-GB": "Menu", "de-DE": "Menü"}[locale]
        assert page.get_by_role("button", name=menu, exact=True).is_visible()
    if folded:
        page.locator("#btn-menu").click()
        page.locator("#btn-stats").wait_for()
    labels_whole(page, "menu", "btn-stats", "btn-rules", "btn-settings")
    page.locator("#btn-stats").click()
    replay = re.compile("^(Replay|Nachspielen)$")
    page.locator("#dlg-stats[open] ol.recent li").first.get_by_role("button", name=replay).click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    labels_whole(page, "replay", "replay-prev", "replay-next", "replay-coach", "replay-exit")
    page.locator("#btn-new").click()
    page.locator("#dlg-new[open] button[type='submit']").wait_for()
    labels_whole(page, "new game")


def test_words_hidden_but_read_have_one_definition(api: Api, open_game: Any) -> None:
    """The visually hidden words (.sr-only) are defined once: the replay
    bar's Previous and Next move on an upright phone and the folded
    statistics table's heads each repeated its rules, so that a fix to one
    would miss the others. Those words are still names a screen reader
    reads."""
    page = open_game(api.new(variant="terrace", deal_number=7))
    rules = page.evaluate("""() => [...document.styleSheets].flatMap((sheet) => {
      const walk = (list) => [...list].flatMap((r) => [r, ...(r.cssRules ? walk(r.cssRules) : [])]);
      return walk(sheet.cssRules); }).filter((r) => r.style && r.style.clipPath === 'inset(50%)')
      .map((r) => r.selectorText)""")
    assert rules == [".sr-only"], rules


@pytest.mark.parametrize(("locale", "counter", "label", "prompt", "said"), [
    ("en-GB", "Redeals left", "Stock, empty: turn the waste over to go through it again (1 redeal left)",
     "Click the stock (or press Space) to turn the waste over and go through it again.",
     "The waste turned over: its {n} cards are the stock again."),
    ("de-DE", "Weitere Durchgänge", "Vorrat, leer: den Abwurf umdrehen, um ihn noch einmal durchzugehen "
     "(noch 1 Durchgang)", "Klicke auf den Vorrat (oder drücke die Leertaste), um den Abwurf umzudrehen "
     "und noch einmal durchzugehen.", "Der Abwurf ist umgedreht: Seine {n} Karten sind wieder der Vorrat."),
])
def test_the_redeals_left_are_shown_and_the_empty_stock_says_it_turns_the_waste_over(
    api: Api, open_game: Any, locale: str, counter: str, label: str, prompt: str, said: str
) -> None:
    """Rules with redeals: the page never said how many passes through the
    stock were left (the server's counters hold them), and the empty stock
    that turns the waste over was named 'Stock, empty' as one that does
    nothing, with a prompt to click it 'to turn a card'; the redeal was
    heard as '83 cards moved.'."""
    game = api.play(api.new(variant="terrace", deal_number=9, options={"redeals": 1}), "c1")
    while game["state"]["stock"]:
        game = api.play(game, "s")
    assert game["draw"] == "s" and game["counters"]["redeals_left"] == 1
    page = open_game(game, locale=locale)
    shown = page.locator("[data-counter='redeals']")
    assert shown.locator(".label").inner_text() == counter
    assert shown.locator(".value").inner_text() == "1"
    assert page.locator("[data-pile='stock']").get_attribute("aria-label") == label
    assert page.locator("#prompt").inner_text().endswith(prompt)
    page.locator("[data-pile='stock']").click()
    page.wait_for_selector(f"body[data-moves='{game['moves'] + 1}']")
    assert shown.locator(".value").inner_text() == "0"
    # (a screen reader heard '83 cards moved.')
    page.locator("#said", has_text=said.format(n=game["counters"]["waste"])).wait_for(state="attached")
    # (rules without redeals show no such counter)
    other = open_game(api.new(variant="terrace", deal_number=9), locale=locale)
    assert other.locator("[data-counter='redeals']").count() == 0


def test_rules_that_leave_nothing_to_draw_show_no_redeals(api: Api, open_game: Any) -> None:
    """A terrace at its largest (one pack, one pile: 50) leaves no card in
    the stock, so a redeal never turns anything (Rules.as_played): the page
    said 'Redeals left 9' all game long under such rules with 9 redeals."""
    options = {"decks": 1, "reserve": 50, "piles": 1, "candidates": 0, "redeals": 9}
    game = api.new(variant="terrace", options=options, deal_number=2)
    assert game["counters"]["stock"] == 0 and game["redeals_in_play"] == 0
    page = open_game(game)
    assert page.locator("[data-counter='moves']").count() == 1
    assert page.locator("[data-counter='redeals']").count() == 0
