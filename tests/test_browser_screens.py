"""The page on common screens, in a real browser: a header of one line
wherever its menu can hold what does not fit (a 1024x768 laptop drew its
buttons in a line of their own), a compact replay bar on an upright phone
with every control big enough for a finger, a sign that a long terrace's
strip scrolls, and two lines of piles sharing a room too short for both by
what each needs."""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api
from test_browser_layout import assert_fits

pytestmark = pytest.mark.browser

# The header's children that show, and whether they share one line (each
# one's vertical middle inside every other's box).
HEADER = """() => {
  const bar = document.querySelector('.bar');
  const controls = [...bar.querySelectorAll('.actions > button, .actions .more > *')];
  const parts = [bar.querySelector('.brand'), ...controls.filter((n) => n.getClientRects().length)];
  const boxes = parts.map((n) => n.getBoundingClientRect());
  const middle = (a) => a.top + a.height / 2;
  const oneLine = boxes.every((a) => boxes.every((b) => middle(a) > b.top && middle(a) < b.bottom));
  return { height: bar.getBoundingClientRect().height, oneLine,
           shown: parts.map((n) => n.id || n.className) };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), [(1024, 768), (900, 700), (1366, 768)])
def test_the_header_takes_one_line(api: Api, open_game: Any, locale: str, width: int, height: int) -> None:
    """At 1024x768 the header's buttons took a line of their own under the
    title (a header of 78 px): they fold into the menu where they do not
    fit beside the title, and every one of them is reached there."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, locale=locale, viewport={"width": width, "height": height})
    found = page.evaluate(HEADER)
    assert found["oneLine"] and found["height"] < 60, found
    assert_fits(page)
    if page.locator("#btn-menu").is_visible():
        page.locator("#btn-menu").click()
    for name in ("new", "undo", "redo", "hint", "restart", "giveup", "stats", "rules", "settings"):
        assert page.locator(f"#btn-{name}").is_visible(), name
    assert page.locator("#lang").is_visible()
