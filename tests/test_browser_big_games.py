"""The biggest games in a real browser: a top row of eight packs'
foundations as large as the tableau's cards on an upright phone, and the
stock's and the waste's counts apart.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api
from test_browser_layout import PHONE, assert_fits

pytestmark = pytest.mark.browser

EIGHT_PACKS = {"decks": 8, "piles": 20, "candidates": 20, "reserve": 40}

SIZES = """() => {
  const width = (sel) => document.querySelector(sel).getBoundingClientRect().width;
  const box = (sel) => document.querySelector(sel).getBoundingClientRect();
  const [stock, waste] = [box('[data-pile="stock"] .count'), box('[data-pile="waste"] .count')];
  return { top: width('[data-pile="f1"]'), terrace: width('[data-pile="reserve"] > .card'),
           tableau: width('[data-pile="t1"]'), counts: [stock.right, waste.left] };
}"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)])
def test_eight_packs_on_an_upright_phone_keep_the_top_row_as_large_as_the_tableau(
    api: Api, open_game: Any, size: tuple[int, int]
) -> None:
    """Thirty-two foundations were laid in two rows of sixteen beside the
    stock, whose cards (17 px on a 360 px phone, ranks of 6 px) were half
    as wide as the tableau's twenty piles in two lines (32 px), while a
    third of the screen stayed empty; and the stock's three-digit count ran
    under the waste's (2): 352 read 3522. The foundations now take rows as
    wide as a line of piles."""
    options = {**EIGHT_PACKS, "reserve": 11}
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1", "s", "s")
    width, height = size
    page = open_game(game, **{**PHONE, "viewport": {"width": width, "height": height}})
    found = page.evaluate(SIZES)
    assert found["top"] >= 0.9 * found["tableau"] and found["terrace"] >= 0.9 * found["tableau"], found
    assert found["top"] >= 24, found
    assert found["counts"][0] <= found["counts"][1], found  # the stock's count ends before the waste's
    assert_fits(page)
