"""The board drawn anew after a move keeps what did not change: a draw,
an undo and a redo make a few elements, not the whole board, and the board
they leave is the one a reload draws.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import ADDED_ON_CLICK, Api, moves_seen, settled
from test_browser_layout import PHONE

pytestmark = pytest.mark.browser

LARGEST = {"decks": 8, "piles": 20, "candidates": 20, "reserve": 300}

# The board as a text: each element's tag, attributes (classes and style
# properties sorted) and children; what bench/page.py marks left out.
BOARD = """() => {
  const text = (node) => {
    if (node.nodeType === 3) return node.textContent;
    if (node.nodeType !== 1) return '';
    const attrs = [...node.attributes].filter((a) => !['style', 'class', 'elementtiming'].includes(a.name))
      .map((a) => `${a.name}="${a.value}"`);
    const classes = [...node.classList].sort().join(' ');
    const style = [...(node.style || [])].map((n) => `${n}:${node.style.getPropertyValue(n)}`).sort();
    return `<${node.tagName} ${[`class="${classes}"`, ...attrs.sort()].join(' ')} {${style.join(';')}}>`
      + [...node.childNodes].map(text).join('') + '</>';
  };
  return text(document.querySelector('#board'));
}"""


VIEWS = {"laptop": {"viewport": {"width": 1366, "height": 768}},
         "phone": {**PHONE, "viewport": {"width": 360, "height": 640}}}


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_a_move_an_undo_and_a_redo_draw_only_what_changed(api: Api, open_game: Any,
                                                          view: dict[str, Any]) -> None:
    """Every drawing of the board made all its elements anew: with eight
    packs, twenty piles and a terrace of 300, each draw, undo or redo made
    4,000 elements (0.45 s of the page's time an undo, bench/page.py
    --redraws). The board now keeps the elements of what did not change:
    a card drawn, taken back and drawn again makes a few dozen at most;
    and the board left is the one a reload draws (on a phone too: two lines
    of piles, the terrace's strip and its signs)."""
    game = api.play(api.new(variant="terrace", deal_number=4, options=LARGEST), "c1", "s", "s")
    page = open_game(game, **view, reduced_motion="reduce")
    assert page.evaluate("document.querySelectorAll('#board *').length") > 3000
    added = [page.evaluate(ADDED_ON_CLICK, selector) for selector in
             ("[data-pile='stock']", "#btn-undo", "#btn-undo", "#btn-redo", "[data-pile='stock']")]
    moves_seen(page, 4)
    settled(page)
    assert max(added) <= 40, added
    drawn = page.evaluate(BOARD)
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    moves_seen(page, 4)
    assert page.evaluate(BOARD) == drawn


def test_a_choice_taken_back_shows_the_choices_as_a_reload_does(api: Api, open_game: Any) -> None:
    """The cards kept from one drawing to the next lose what the last one
    put on them: after a choice, a selection and an undo back to the
    choice, the candidates' keys, the pile's names and the cards' marks
    are those a reload draws."""
    game = api.new(variant="terrace", deal_number=4, options={**LARGEST, "reserve": 40})
    page = open_game(game, locale="de-DE", reduced_motion="reduce")
    choosing = page.evaluate(BOARD)
    page.keyboard.press("1")
    moves_seen(page, 1)
    settled(page)
    movable = page.locator("#board .card.movable").first
    movable.click()
    page.wait_for_selector("#board .card.selected")
    page.locator("#btn-undo").click()
    moves_seen(page, 0)
    settled(page)
    assert page.evaluate(BOARD) == choosing
