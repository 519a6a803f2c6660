"""The page on common screens, in a real browser: a header of one line
wherever its menu can hold what does not fit (a 1024x768 laptop drew its
buttons in a line of their own), a compact replay bar on an upright phone
with every control big enough for a finger, a sign that a long terrace's
strip scrolls, and two lines of piles sharing a room too short for both by
what each needs."""

from __future__ import annotations

import re
from typing import Any

import pytest

from browser_support import Api, until
from test_browser_big_games import FOUR_PACKS, RUNS
from test_browser_layout import EIGHT_PACKS, PHONE, assert_fits, run, stack_high

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


def _replay(api: Api, open_game: Any, locale: str, width: int, height: int) -> Any:
    """A given-up game's replay on an upright phone, started from the statistics."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2", "s", "s")
    seen = {"after": 3, "revision": game["revision"]}
    assert api.client.post(f"/api/games/{game['id']}/give-up", json=seen).status_code == 200
    page = open_game(game, locale=locale, reduced_motion="reduce",
                     **{**PHONE, "viewport": {"width": width, "height": height}})
    page.locator("dialog.end[open]").wait_for()
    page.keyboard.press("Escape")
    page.locator("#btn-menu").click()
    page.locator("#btn-stats").click()
    replay = "Replay" if locale == "en-GB" else "Nachspielen"
    page.locator("#dlg-stats[open] ol.recent li").first.get_by_role("button", name=replay).click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    return page


BAR = """() => {
  const bar = document.querySelector('#replay-bar');
  const parts = [...bar.children].filter((n) => n.getClientRects().length).map((n) => {
    const r = n.getBoundingClientRect();
    return { id: n.id, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5
    && b.top < a.bottom - 0.5;
  return { height: bar.getBoundingClientRect().height, parts,
           overlaps: parts.flatMap((a, i) => parts.slice(i + 1).filter((b) => meet(a, b))
             .map((b) => `${a.id}/${b.id}`)),
           scrolls: document.scrollingElement.scrollHeight > innerHeight + 1 };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844)])
def test_the_replay_bar_of_an_upright_phone_is_compact(api: Api, open_game: Any, locale: str, width: int,
                                                        height: int) -> None:
    """On a 360x640 phone the replay bar took 154 px: its slider on a line
    of its own, then two rows of worded buttons. Previous and Next move are
    now arrows beside the slider (their words still their names): two rows
    at most, every control at least 40 px each way, none over another."""
    page = _replay(api, open_game, locale, width, height)
    found = page.evaluate(BAR)
    assert found["height"] <= 110 and found["overlaps"] == [] and not found["scrolls"], found
    assert len(found["parts"]) == 5, found  # (Analyse too: the game is over)
    for part in found["parts"]:
        assert part["right"] - part["left"] >= 40 and part["bottom"] - part["top"] >= 40, part
        assert part["left"] >= 0 and part["right"] <= width, part
    names = {"en-GB": ("Previous move", "Next move"), "de-DE": ("Vorheriger Zug", "Nächster Zug")}[locale]
    for name in names:
        assert page.get_by_role("button", name=name, exact=True).is_visible(), name
    page.get_by_role("button", name=names[1], exact=True).click()
    page.locator("#prompt", has_text=re.compile(r"\b1 (of|von) 3")).wait_for()


@pytest.mark.parametrize(("options", "size", "piles", "most", "kept"), [
    (FOUR_PACKS, (390, 844), {1: run(20), 10: run(40)}, 34, 4),
    (EIGHT_PACKS, (390, 844), {2: run(20), 12: run(45)}, 42, 1),
    (EIGHT_PACKS, (360, 640), {2: run(14), 12: run(36)}, 42, 4),
], ids=["4p-390x844", "8p-390x844", "8p-360x640"])
def test_two_lines_too_tall_for_the_room_share_it_by_need(api: Api, open_game: Any, options: dict[str, int],
                                                          size: tuple[int, int], piles: dict[int, list[str]],
                                                          most: int, kept: int) -> None:
    """Two lines of piles that both needed more than half the room each got
    half: four packs' piles of 20 and 40 on a 390x844 phone had 14 and 34
    cards squeezed (their ranks hidden, 48 in all) where the pile of 20 fits
    whole beside the other squeezed a little more (34 in all; eight packs'
    20 and 45: 53 where 40 do); eight packs'
    40 beside 14 on a 360x640 phone kept none of its cards under the top
    one in full. The room is now shared so that the fewest ranks are hidden,
    and the tall pile keeps its last cards readable. (The gaps between
    eight packs' four rows of foundations hold their badges since, 9 px
    (390x844) to 16 px (360x640) less room: 42 squeezed, one kept under the
    top card, where half each squeezes 53; on the 360x640 phone a pile of
    36, as one of 40 can no longer keep four, where half each keeps none.)"""
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1")
    page = open_game(game, before_goto=lambda p: stack_high(p, game, piles),
                     **{**PHONE, "viewport": {"width": size[0], "height": size[1]}})
    assert page.locator(".row.tableau.two-lines").count() == 1
    runs = page.evaluate(RUNS)
    names = [f"t{index + 1}" for index in piles]
    assert [runs[name]["count"] for name in names] == [len(cards) for cards in piles.values()]
    assert sum(runs[name]["squeezed"] for name in names) <= most, runs
    tallest = runs[names[-1]]
    assert tallest["squeezed"] <= tallest["count"] - 2 - kept, tallest  # (cards under its top in full)
    assert_fits(page)


# The signs of a scrolled terrace: which show, whether each lies inside the
# strip's box and clear of every card of the terrace in sight (and its rank).
SIGNS = """() => {
  const strip = document.querySelector('.reserve.scrolled');
  const box = strip.getBoundingClientRect();
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const cards = [...strip.querySelectorAll(':scope > .card')].map((c) => c.getBoundingClientRect())
    .filter((r) => meet(r, box));
  const signs = [...document.querySelectorAll('.strip-more')].filter((n) => n.getClientRects().length);
  // The lines out of sight each way, from the cards' places in the strip
  // (offsetTop: as laid out, the exposed card's lift left out): a line is
  // out of sight while its ranks (the band down to the next line; the last
  // line's whole card) are not all in the strip. And what each sign says.
  const tops = [...new Set([...strip.querySelectorAll(':scope > .card')].map((c) => c.offsetTop))]
    .sort((a, b) => a - b);
  const last = strip.querySelector(':scope > .card:last-of-type').offsetHeight;
  const from = strip.scrollTop, to = strip.scrollTop + strip.clientHeight;
  const hidden = {
    up: tops.filter((top) => top < from - 1).length,
    down: tops.filter((top, i) => top >= from - 1
      && (i + 1 < tops.length ? tops[i + 1] : top + last) > to + 1).length,
  };
  const says = Object.fromEntries(signs.map((n) => [n.classList.contains('up') ? 'up' : 'down',
    { count: n.querySelector('.n').textContent, inside: ((r) => r.width > 0 && r.left >= box.left - 0.5
      && r.right <= box.right + 0.5)(n.querySelector('.n').getBoundingClientRect()) }]));
  return { hidden, says, shown: signs.map((n) => n.classList.contains('up') ? 'up' : 'down').sort(),
           inside: signs.every((n) => { const r = n.getBoundingClientRect();
             return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5
               && r.bottom <= box.bottom + 0.5 && r.width > 0; }),
           covers: signs.filter((n) => cards.some((c) => meet(n.getBoundingClientRect(), c))).length,
           scrollTop: strip.scrollTop };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), [(360, 640), (768, 1024), (640, 360)])
def test_a_scrolled_terrace_shows_that_it_scrolls(api: Api, open_game: Any, locale: str, width: int,
                                                 height: int) -> None:
    """Eight packs' terrace of 395 cards scrolls in its strip, but nothing
    showed it (a phone hides the scroll bar until one scrolls): an arrow now
    marks each end past which lines are hidden, in the strip's room for a
    scroll bar, clear of every card; it follows the player's scrolling.
    Each says how many lines it hides, in digits beside the arrow and in
    words to a screen reader (the arrows said neither)."""
    game = api.play(api.new(variant="terrace", deal_number=4, options={**EIGHT_PACKS, "reserve": 395}), "c1")
    viewport = {"viewport": {"width": width, "height": height}}
    page = open_game(game, locale=locale, **({**PHONE, **viewport} if min(width, height) < 500 else viewport))
    strip = page.locator(".reserve.scrolled")
    row = page.locator(".row.terrace")
    words = {"en-GB": "{n} {lines} of the terrace {way}, out of sight",
             "de-DE": "{n} {lines} der Terrasse weiter {way}, nicht im Blick"}[locale]
    lines = {"en-GB": ("line", "lines"), "de-DE": ("Reihe", "Reihen")}[locale]
    ways = {"en-GB": {"up": "above", "down": "below"}, "de-DE": {"up": "oben", "down": "unten"}}[locale]

    def says_what_it_hides(found: dict[str, Any]) -> None:
        assert found["inside"] and found["covers"] == 0, found
        heard = row.aria_snapshot()  # (once: 0.25-0.45 s each for the 395 cards at load ~25)
        for way in ("up", "down"):
            n = found["hidden"][way]
            assert (way in found["shown"]) == (n > 0), found
            if n:
                assert found["says"][way] == {"count": str(n), "inside": True}, found
                said = words.format(n=n, lines=lines[n != 1], way=ways[way])
                assert said in heard, (said, heard)
        assert "▲" not in heard and "▼" not in heard

    found = page.evaluate(SIGNS)
    assert found["shown"] == ["up"] and found["hidden"]["up"] >= 3, found  # (at its end)
    says_what_it_hides(found)
    strip.evaluate("(s) => { s.scrollTop = 0; }")
    until(lambda: page.evaluate(SIGNS)["shown"] == ["down"])
    says_what_it_hides(page.evaluate(SIGNS))
    strip.evaluate("(s) => { s.scrollTop = (s.scrollHeight - s.clientHeight) / 2; }")
    until(lambda: page.evaluate(SIGNS)["shown"] == ["down", "up"])
    says_what_it_hides(page.evaluate(SIGNS))
    assert_fits(page)


MENU = """() => {
  const items = [...document.querySelectorAll('#menu > *')].map((n) => n.getBoundingClientRect());
  return { out: items.filter((r) => r.top < -0.5 || r.bottom > innerHeight + 0.5 || r.left < -0.5
                                   || r.right > innerWidth + 0.5).length,
           least: Math.min(...items.map((r) => r.height)), count: items.length,
           scrolls: document.scrollingElement.scrollHeight > innerHeight + 1 };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), [(640, 360), (568, 320)])
def test_the_open_menu_of_a_phone_held_sideways_is_on_the_screen(api: Api, open_game: Any, locale: str,
                                                                 width: int, height: int) -> None:
    """The header's menu, open on a 640x360 phone, ran 2 px past the bottom
    of the screen (six items of 44 px in a column under a header of 54 px),
    on a 568x320 phone 42 px: the language lay out of reach. In a short
    window its items now take two columns."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    page = open_game(game, locale=locale, **{**PHONE, "viewport": {"width": width, "height": height}})
    page.locator("#btn-menu").click()
    found = page.evaluate(MENU)
    assert found["count"] == 6 and found["out"] == 0 and not found["scrolls"], found
    assert found["least"] >= 44, found
    page.locator("#lang").select_option("de" if locale == "en-GB" else "en")
    if not page.locator("#btn-rules").is_visible():  # (the language leaves the menu open)
        page.locator("#btn-menu").click()
    page.locator("#btn-rules").click()
    page.locator("#dlg-rules[open] section").first.wait_for()


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_the_toolbar_of_a_320_px_phone_keeps_every_button_on_the_screen(
    api: Api, open_game: Any, locale: str
) -> None:
    """On a 320x568 phone (an iPhone SE of the first kind) in German the
    toolbar was 340 px wide: the menu's button lay 20 of its 24 px past the
    window's edge (the toolbar scrolled sideways), and with it Statistics,
    Rules, Settings and the language. Every button now lies in the window,
    44 px high or more, and the menu opens."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    page = open_game(game, locale=locale, **{**PHONE, "viewport": {"width": 320, "height": 568}})
    found = page.evaluate("""() => {
      const bar = document.querySelector('nav.actions');
      const rects = [...bar.querySelectorAll(':scope > button')].map((b) => b.getBoundingClientRect())
        .filter((r) => r.width > 0);
      return { count: rects.length,
               out: rects.filter((r) => r.left < -0.5 || r.right > innerWidth + 0.5).length,
               least: Math.min(...rects.map((r) => r.height)),
               narrowest: Math.min(...rects.map((r) => r.width)),
               scrolls: bar.scrollWidth > bar.clientWidth + 1 };
    }""")
    assert found["count"] == 5 and found["out"] == 0 and not found["scrolls"], found
    assert found["least"] >= 44 and found["narrowest"] >= 24, found
    page.locator("#btn-menu").click()
    page.locator("#btn-settings").click()
    page.locator("#dlg-settings[open]").wait_for()
