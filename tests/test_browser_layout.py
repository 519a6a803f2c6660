"""A board that fits every screen, in a real browser: every card inside the
window (above a phone's toolbar) at 1440x900, 1366x768, 1280x720 and
390x844, also with piles of 20 cards, and no covered card's rank index
hidden by the card on it; 44 px touch targets on a phone; a header menu at
200% zoom; a statistics table that fits on a desktop, or folds into cards
(a phone, a small laptop), in English and German; an end notice whole on
a small screen; candidates' keys clear of their rank; the stock's count on
the screen with eight packs; the marks of empty piles readable.

Tall piles are hard to reach in real play, so those tests give the page a
game whose piles are stacked high (the page draws whatever position the
server sends; it knows no rules).
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api, hint_words, indices_under, moves_seen, press_on, resize, settled, top, until
from web_support import WINNING_LINE

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True,
         "is_mobile": True}
DESKTOPS = [(1440, 900), (1366, 768), (1280, 720)]

RUN = "KQJT98765432A"


def run(length: int, start: int = 0, red_first: bool = False) -> list[str]:
    """A pile built down in alternating colours, turning the corner."""
    return [RUN[(start + i) % 13] + ("H" if (i % 2 == 0) == red_first else "S") for i in range(length)]


def stack_high(page: Any, game: dict[str, Any], piles: dict[int, list[str]]) -> None:
    """Make the page see ``game`` with these tableau piles (by index)."""
    def fulfil(route: Any) -> None:
        data = route.fetch().json()
        for index, cards in piles.items():
            data["state"]["tableau"][index] = cards
        route.fulfill(json=data)
    page.route(f"**/api/games/{game['id']}", fulfil)


# A node's box on the screen; for a card of a terrace that scrolls in its
# strip, the strip's (the card is reached by scrolling it: test_browser_big_games).
PLACE = """const placeOf = (node) => {
    const strip = node.closest('.reserve.scrolled');
    return (strip && node !== strip ? strip : node).getBoundingClientRect();
  };"""

FITS = """() => {
  """ + PLACE + """

  const limit = Math.min(innerHeight, ...[...document.querySelectorAll('.actions')]
    .filter((n) => getComputedStyle(n).position === 'fixed').map((n) => n.getBoundingClientRect().top));
  const out = [], hidden = [];
  for (const card of document.querySelectorAll('#board .card')) {
    const r = placeOf(card);
    if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > limit + 0.5)
      out.push(`${card.dataset.card} ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
  }
  // A covered card's rank index must not be under a later card of its fan
  // (in the terrace's lines: the next card of its line, or the line below),
  // unless it is squeezed: the middle of a run too tall for the screen,
  // its index hidden on purpose and counted by a mark (test_browser_big_games).
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (const pile of document.querySelectorAll('#board .tpile, #board .reserve')) {
    const cards = [...pile.querySelectorAll(':scope > .card')];
    cards.slice(0, -1).forEach((card, i) => {
      if (card.classList.contains('squeezed')) return;
      const idx = card.querySelector('.idx:not(.corner)').getBoundingClientRect();
      const next = cards[i + 1].getBoundingClientRect();
      const font = parseFloat(getComputedStyle(card.querySelector('.idx')).fontSize);
      const covered = pile.classList.contains('reserve')
        ? cards.slice(i + 1).some((later) => meet(idx, later.getBoundingClientRect()))
        : idx.bottom > next.top - 0.5;
      const name = `${pile.dataset.pile}:${card.dataset.card}:${font.toFixed(1)}px`;
      if (covered || font < 10.49) hidden.push(name);
    });
  }
  const scrolls = document.scrollingElement.scrollHeight > innerHeight + 1;
  return { out, hidden, scrolls, cards: document.querySelectorAll('#board .card').length, limit };
}"""


def assert_fits(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(FITS)
    assert found["cards"] > 20
    assert found["out"] == [], found
    assert found["hidden"] == [], found
    assert not found["scrolls"]
    return found


@pytest.fixture(scope="module")
def mid_game(api: Api) -> dict[str, Any]:
    """WINNING_LINE's game after 120 moves, once for the module (0.37 CPU s),
    for the tests that only look at it."""
    line = WINNING_LINE
    game = api.new(variant="terrace", deal_number=line["deal_number"], options=line["options"])
    return api.play(game, *line["moves"][:120])


# (the desktops' windows are one page's, opened at the first and resized to
# the others: the largest first for a real game, the smallest for tall piles)
@pytest.mark.parametrize("windows", [DESKTOPS[::-1], [(390, 844)]], ids=["desktops", "phone"])
def test_piles_of_twenty_cards_fit_and_every_rank_shows(api: Api, open_game: Any,
                                                        windows: list[tuple[int, int]]) -> None:
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    width, height = windows[0]
    options = PHONE if width < 500 else {"viewport": {"width": width, "height": height}}
    tall = {2: run(20), 5: run(14, 3, True), 0: run(9, 5)}  # piles 3, 6 and 1
    page = open_game(game, before_goto=lambda p: stack_high(p, game, tall), **options)
    for size in windows:
        resize(page, *size)
        found = assert_fits(page)
        # The tall piles really are tall, fanned tighter than the short ones.
        fans = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tpile')]
          .map((p) => [p.dataset.pile, parseFloat(getComputedStyle(p).getPropertyValue('--fan')) || 0]))""")
        assert page.locator("[data-pile='t3'] > .card").count() == 20
        assert 0 < fans["t3"] < fans["t1"], (size, fans)
        lowest = page.evaluate("""Math.max(...[...document.querySelectorAll('#board .card')]
          .map((c) => c.getBoundingClientRect().bottom))""")
        assert lowest > 0.75 * found["limit"], size  # the piles use the height they have


@pytest.mark.parametrize("windows", [DESKTOPS, [(390, 844)]], ids=["desktops", "phone"])
def test_a_real_game_fits(mid_game: dict[str, Any], open_game: Any, windows: list[tuple[int, int]]) -> None:
    width, height = windows[0]
    options = PHONE if width < 500 else {"viewport": {"width": width, "height": height}}
    page = open_game(mid_game, **options)
    for size in windows:
        resize(page, *size)
        assert_fits(page)


def test_big_terrace_on_a_phone(api: Api, open_game: Any) -> None:
    game = api.new(variant="big-terrace", deal_number=3)
    game = api.play(game, "c1")
    page = open_game(game, before_goto=lambda p: stack_high(p, game, {0: run(20), 10: run(12, 2)}), **PHONE)
    assert page.locator("[data-pile='reserve'] > .card").count() == 19
    assert_fits(page)


TOPMOST_AT_COUNT = """(pile) => {
  const count = document.querySelector(`[data-pile="${pile}"] .count`);
  const r = count.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { count: count.textContent, onTop: count === top || count.contains(top) };
}"""


def test_a_lit_waste_card_keeps_its_count_in_sight(api: Api, open_game: Any) -> None:
    """Selected, or pointed at by a hint or the coach, the waste card is
    raised above its neighbours; the number of cards in the waste stays on
    top of it (it used to slip under the card)."""
    game = api.play(api.new(variant="terrace", deal_number=3), "c1", "s", "s")
    page = open_game(game)
    assert page.evaluate(TOPMOST_AT_COUNT, "stock")["onTop"]
    for lit in ("", "selected", "hint-src", "coach-lost-src", "coach-fair-src"):
        page.evaluate("""(lit) => {
          const card = document.querySelector('[data-pile="waste"] > .card');
          card.className = card.className.replace(/ (selected|hint-src|coach-[a-z]+-src)/g, '');
          if (lit) card.classList.add(lit);
        }""", lit)
        assert page.evaluate(TOPMOST_AT_COUNT, "waste") == {"count": "2", "onTop": True}, lit


# What the badges that `selector` finds cover: the parts of a card's face
# (its rank and suit, in its corners, and its big suit) that they meet.
BADGES_COVER = """(selector) => {
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const parts = [...document.querySelectorAll('#board .card .idx, #board .card .big')];
  return [...document.querySelectorAll(selector)].flatMap((badge) => parts
    .filter((part) => meet(badge.getBoundingClientRect(), part.getBoundingClientRect()))
    .map((part) => `${badge.closest('.pile').dataset.pile}: ${part.closest('.card').dataset.card}`
      + ` ${part.getAttribute('class')}`));
}"""


def test_the_counts_of_the_stock_and_the_waste_hide_no_rank_or_suit(api: Api, open_game: Any) -> None:
    """The waste's count sat on its card's lower right corner, over the
    rank and suit printed there (Madame's waste K♣ on a desktop), and on a
    phone held sideways over the big suit's edge too. It hangs below the
    card now, and reaches no card of the terrace under it either."""
    game = api.play(api.new(variant="terrace", deal_number=11), "c1", "s", "s")
    page = open_game(game, viewport={"width": 1280, "height": 800})
    for width, height in ((1280, 800), (844, 390)):
        resize(page, width, height)
        for pile in ("stock", "waste"):
            assert page.evaluate(BADGES_COVER, f'[data-pile="{pile}"] .count') == [], (width, pile)


# One game of each number of packs: 1, 2 (Terrace), 3 (Madame), 4 (Big
# Terrace, its foundations in two rows) and 8 (in four rows).
EIGHT_PACKS = {"decks": 8, "piles": 20, "candidates": 20, "reserve": 40}
EVERY_PACKS: list[tuple[str, dict[str, int]]] = [
    ("terrace", {"decks": 1}), ("terrace", {}), ("madame", {}), ("big-terrace", {}), ("terrace", EIGHT_PACKS)]


@pytest.mark.parametrize(("screen", "sizes"), [
    ({"locale": "en-GB"}, ((1280, 800), (1024, 700))),
    ({**PHONE, "locale": "de-DE"}, ((390, 844), (844, 390))),
], ids=["desktop-en", "touch-de"])
def test_the_foundations_badges_hide_no_rank_or_suit(api: Api, open_game: Any, screen: dict[str, Any],
                                                     sizes: tuple[tuple[int, int], ...]) -> None:
    """A foundation's badge (the card it waits for) sat on its card's lower
    edge, over the rank and suit in the corner (176 px² of Terrace's 10♥ at
    1280x800), and on a phone held sideways, or with four packs upright,
    over the big suit too. It hangs below the card, and the gap between two
    rows of foundations holds it, clear of the next row's ranks."""
    for variant, options in EVERY_PACKS:
        game = api.play(api.new(variant=variant, deal_number=5, options=options), "c1")
        page = open_game(game, **{**screen, "viewport": {"width": sizes[0][0], "height": sizes[0][1]}})
        for width, height in sizes:
            resize(page, width, height)
            assert page.locator("#board .foundation .badge").count() > 0, (variant, width)
            assert page.evaluate(BADGES_COVER, "#board .foundation .badge") == [], (variant, options, width)
        page.close()


def played_elsewhere(api: Api, page: Any, game: dict[str, Any]) -> Any:
    """A draw played on ``game`` in another tab, which tells the others:
    the page catches up and says so in a toast (one the prompt does not
    show, which floats on a phone too); returns the toast, shown."""
    played = api.play(game, "s")
    page.evaluate("""(news) => new BroadcastChannel('terrace.games').postMessage(news)""",
                  {"id": played["id"], "revision": played["revision"]})
    toast = page.locator("#toast.show")
    toast.wait_for()
    until(lambda: toast.evaluate("(t) => t.getAnimations().length === 0"))  # (its slide in)
    return toast


def test_a_long_toast_uses_the_width_of_a_phone_and_goes_at_a_tap(api: Api, open_game: Any) -> None:
    """A long toast on a phone spans nearly the screen, not half of it (a
    box placed at the middle once could only grow to the right half); a
    tap on it takes it away (it let the tap through to what lay under it,
    and stayed its 3.5 s)."""
    game = api.play(api.new(variant="terrace", deal_number=128681666), "c1")
    page = open_game(game, **PHONE)
    toast = played_elsewhere(api, page, game)
    box = toast.bounding_box()
    assert box is not None and len(toast.inner_text()) > 70
    assert box["width"] > 0.85 * 390 and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.locator("#toast:not(.show)").wait_for(state="attached", timeout=1_000)
    settled(page)
    assert page.evaluate("document.body.dataset.moves") == "2"  # (the tap moved nothing)


@pytest.mark.parametrize("phone", [False, True])
def test_every_box_of_the_settings_is_full_size(mid_game: dict[str, Any], open_game: Any,
                                                phone: bool) -> None:
    """A check box beside a label of two lines is as large as the others
    (it used to shrink to make room for the label)."""
    page = open_game(mid_game, **(PHONE if phone else {}))
    if phone:
        page.locator("#btn-menu").click()
    page.locator("#btn-settings").click()
    boxes = page.locator("#dlg-settings[open] input[type='checkbox']")
    boxes.first.wait_for()
    sizes = [box.bounding_box() for box in boxes.all()]
    assert len(sizes) >= 4
    widths = {round(size["width"]) for size in sizes if size is not None}
    assert len(widths) == 1 and widths.pop() >= 19, sizes


def test_the_phone_uses_its_height(mid_game: dict[str, Any], open_game: Any) -> None:
    page = open_game(mid_game, **PHONE)
    sizes = page.evaluate("""() => ({
      top: document.querySelector('[data-pile="f1"]').getBoundingClientRect().width,
      terrace: document.querySelector('[data-pile="reserve"] > .card').getBoundingClientRect().width,
      tableau: document.querySelector('[data-pile="t1"]').getBoundingClientRect().width,
      toolbar: document.querySelector('.actions').getBoundingClientRect().top,
      counters: document.querySelector('#counters').getBoundingClientRect().top })""")
    # The top row and the terrace get larger cards than the nine piles allow.
    assert sizes["top"] >= 1.3 * sizes["tableau"] and sizes["terrace"] >= 1.3 * sizes["tableau"]
    # The buttons sit at the bottom with the counters just above them.
    assert sizes["toolbar"] > 0.9 * 844 and sizes["toolbar"] - 120 < sizes["counters"] < sizes["toolbar"]


def test_touch_targets_on_a_phone_are_44_px_high(mid_game: dict[str, Any], open_game: Any) -> None:
    page = open_game(mid_game, **PHONE)
    heights = """(sel) => [...document.querySelectorAll(sel)].filter((n) => n.offsetParent)
      .map((n) => [n.id || n.textContent.trim(), n.getBoundingClientRect().height])"""
    bar = page.evaluate(heights, ".actions > button")
    assert len(bar) >= 5 and all(h >= 44 for _, h in bar), bar
    page.locator("#btn-menu").click()
    menu = page.evaluate(heights, "#menu button, #menu select")
    assert len(menu) >= 5 and all(h >= 44 for _, h in menu), menu
    page.locator("#btn-settings").click()
    dialog = page.evaluate(heights, "#dlg-settings button, #dlg-settings select")
    assert dialog and all(h >= 44 for _, h in dialog), dialog
    tops = "#board .tpile > .card:last-child, #board .reserve .card.exposed, #board [data-pile='stock']"
    boxes = page.evaluate(heights, tops)
    assert all(h >= 44 for _, h in boxes), boxes


@pytest.mark.parametrize(("width", "height"), [(640, 360), (683, 384), (720, 450)])
def test_at_200_percent_zoom_the_header_folds_into_a_menu(api: Api, open_game: Any, width: int,
                                                          height: int) -> None:
    """200% zoom on a 1280x720, 1366x768 or 1440x900 screen: half as many
    CSS pixels, each drawn twice as large."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, viewport={"width": width, "height": height}, device_scale_factor=2)
    assert page.locator("#btn-menu").is_visible()
    assert not page.locator("#btn-stats").is_visible() and not page.locator("#lang").is_visible()
    header = page.locator(".bar").bounding_box()
    assert header["height"] < 0.2 * height
    assert_fits(page)
    page.locator("#btn-menu").click()
    assert page.locator("#btn-menu").get_attribute("aria-expanded") == "true"
    assert page.locator("#btn-stats").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#btn-stats").is_visible()
    page.locator("#btn-menu").click()
    page.locator("#btn-rules").click()
    page.locator("#dlg-rules[open] section").first.wait_for()
    assert page.locator("#btn-menu").get_attribute("aria-expanded") == "false"


def test_at_full_size_every_button_shows(api: Api, open_game: Any) -> None:
    page = open_game(api.new(variant="terrace", deal_number=7), viewport={"width": 1280, "height": 720})
    assert not page.locator("#btn-menu").is_visible()
    for name in ("new", "undo", "redo", "hint", "restart", "stats", "rules", "settings"):
        assert page.locator(f"#btn-{name}").is_visible(), name


@pytest.mark.parametrize("phone", [False, True], ids=["1440", "phone"])
def test_the_statistics_table_fits(api: Api, open_game: Any, phone: bool) -> None:
    for deal in (11, 12, 13):
        api.play(api.new(variant="terrace", deal_number=deal), "c1", "s")
    api.play(api.new(variant="generals-patience", deal_number=4), "c1")
    options = PHONE if phone else {"viewport": {"width": 1440, "height": 900}}
    page = open_game(api.new(variant="terrace", deal_number=14), **options)
    if phone:
        page.locator("#btn-menu").click()
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats table.stats").wait_for()
    fit = page.evaluate("""() => {
      const dialog = document.querySelector('#dlg-stats').getBoundingClientRect();
      const wrap = document.querySelector('#dlg-stats .table-wrap');
      const cells = [...document.querySelectorAll('#dlg-stats table.stats :is(td, tbody th)')];
      return { scroll: wrap.scrollWidth - wrap.clientWidth, right: dialog.right, width: innerWidth,
               out: cells.filter((c) => c.getBoundingClientRect().right > dialog.right + 0.5).length,
               labels: cells.filter((c) => c.tagName === 'TD' && !c.dataset.label).length,
               cells: cells.length };
    }""")
    assert fit["cells"] >= 20 and fit["scroll"] <= 0 and fit["out"] == 0, fit
    assert fit["right"] <= fit["width"]
    assert fit["labels"] == 0
    if phone:  # each number is shown with its column's name
        first = page.locator("#dlg-stats table.stats tbody td").first
        before = page.evaluate("(td) => getComputedStyle(td, '::before').content", first.element_handle())
        assert before not in ("none", "normal", '""')
        # and the heads, not drawn, are still the columns' names to a screen reader
        assert page.locator("#dlg-stats table.stats thead").bounding_box()["height"] <= 1
        assert page.locator("#dlg-stats").get_by_role("columnheader").count() >= 5


REACH = """() => {
  """ + PLACE + """
  const out = [];
  for (const node of document.querySelectorAll('#board [data-pile], #board .card')) {
    const r = placeOf(node);
    if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5)
      out.push(`${node.dataset.pile || node.dataset.card} ${[r.left, r.top, r.right].map(Math.round)}`);
  }
  const page = document.scrollingElement;
  return { out, wide: page.scrollWidth > innerWidth + 1, tall: page.scrollHeight > innerHeight + 1,
           piles: document.querySelectorAll('#board [data-pile]').length };
}"""

BIG_OPTIONS = [
    {"decks": 2, "piles": 14, "candidates": 3, "reserve": 11},
    {"decks": 8, "piles": 11, "candidates": 3, "reserve": 11},
    {"decks": 8, "piles": 20, "candidates": 20, "reserve": 100},
    {"decks": 8, "piles": 20, "candidates": 0, "reserve": 0},
    {"decks": 8, "piles": 1, "candidates": 0, "reserve": 414},
]


# An upright phone and one held sideways: each options' page opens at one
# and is turned to the other, the first size taking turns (each size is
# seen both opened at and turned to).
TURNED = [[(360, 640), (640, 360)], [(640, 360), (360, 640)]]


@pytest.mark.parametrize(("options", "sizes"), [(o, TURNED[i % 2]) for i, o in enumerate(BIG_OPTIONS)],
                         ids=["-".join(str(v) for v in o.values()) for o in BIG_OPTIONS])
def test_every_pile_is_on_the_screen_with_the_largest_options(
    api: Api, open_game: Any, options: dict[str, int], sizes: list[tuple[int, int]]
) -> None:
    """The cards shrink to the width: no pile off the screen, none at a
    negative place (out of reach), no sideways scrolling; with many decks
    the foundations take fewer, longer rows rather than scroll down."""
    game = api.new(variant="terrace", deal_number=3, options=options)
    width, height = sizes[0]
    page = open_game(game, viewport={"width": width, "height": height})
    for size in sizes:
        resize(page, *size)
        found = page.evaluate(REACH)
        assert found["piles"] == 2 + 4 * options["decks"] + 1 + options["piles"]
        assert found["out"] == [], (size, found)
        assert not found["wide"], size
        assert not found["tall"], size


def test_an_upright_phone_lays_many_piles_in_two_lines(api: Api, open_game: Any) -> None:
    """Eleven piles in one line left an upright phone cards of 29 px and
    half its screen empty; in two lines they are half as wide again."""
    game = api.play(api.new(variant="admirals-patience", deal_number=3), "c1")
    page = open_game(game, **PHONE)
    assert page.locator(".row.tableau.two-lines").count() == 1
    boxes = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.tpile')]
      .map((p) => p.getBoundingClientRect()).map((r, i) => [`t${i + 1}`, [r.left, r.top, r.width]]))""")
    first, second = [boxes[f"t{i}"] for i in range(1, 7)], [boxes[f"t{i}"] for i in range(7, 12)]
    assert len({round(y) for _, y, _ in first}) == 1 and len({round(y) for _, y, _ in second}) == 1
    assert second[0][1] > first[0][1] and min(width for _, _, width in boxes.values()) >= 36, boxes
    assert_fits(page)
    landscape = open_game(game, viewport={"width": 844, "height": 390})
    assert landscape.locator(".row.tableau.two-lines").count() == 0


def test_a_card_dropped_below_a_pile_of_the_second_line_goes_there(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="admirals-patience", deal_number=3), "c1")
    moves = [(source, target) for source, info in game["sources"].items()
             for target in info["targets"] if target.startswith("t") and int(target[1:]) >= 7]
    if not moves:
        pytest.skip("no move onto a pile of the second line in this deal")
    source, target = moves[0]
    page = open_game(game, **PHONE)
    card = top(page, source).bounding_box()
    pile = top(page, target).bounding_box()
    press_on(page, card)
    page.mouse.move(card["x"] + 20, card["y"] + 20, steps=3)
    # below the pile's last card: no pile is under the pointer there
    # (at its left, under a pile of the first line too)
    page.mouse.move(pile["x"] + pile["width"] * 0.2, pile["y"] + pile["height"] * 2.2, steps=6)
    page.mouse.up()
    moves_seen(page, 2)
    played = api.client.get(f"/api/games/{game['id']}/line").json()["moves"][-1]
    assert played == game["sources"][source]["targets"][target]


def test_the_prompt_of_the_choice_leaves_no_room_after_it(api: Api, open_game: Any) -> None:
    """The prompt's room held since the last resize (above) is the stage's:
    the base card's choice with the verdicts assist takes two lines (German,
    1280x760), play one, and the board lost a line's height to an empty
    prompt line for the whole game."""
    verdicts = "localStorage.setItem('terrace.assist.verdicts', 'on')"
    page = open_game(api.new(variant="terrace", deal_number=7), lambda p: p.add_init_script(verdicts),
                     locale="de-DE", viewport={"width": 1280, "height": 760})
    height = "document.querySelector('#prompt').getBoundingClientRect().height"
    page.locator("#board .verdict").first.wait_for()  # (the prompt names them once they are in)
    settled(page)
    choosing = page.evaluate(height)
    page.locator("[data-pile='stock']").focus()
    page.keyboard.press("1")
    moves_seen(page, 1)
    settled(page)
    assert page.evaluate(height) < choosing


def test_a_phone_turned_during_a_drag_keeps_the_card_in_hand(api: Api, open_game: Any) -> None:
    """The board is drawn anew when the window changes size: during a drag
    (a phone turned, a window resized) the card in hand was shown again in
    its pile and its target lost its mark. Terrace deal 7 after c2: the 2
    of diamonds of pile 4 goes on the 3 of clubs of pile 3."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c2"),
                     viewport={"width": 390, "height": 844})
    card = top(page, "t4").bounding_box()
    press_on(page, card)
    page.mouse.move(card["x"] + 20, card["y"] + 20, steps=3)
    page.evaluate("""() => { window.redrawn = false;
      new MutationObserver(() => { window.redrawn = true; }).observe(document.querySelector('#board'),
        { childList: true, subtree: true, attributes: true }); }""")
    page.set_viewport_size({"width": 844, "height": 390})
    until(lambda: page.evaluate("window.redrawn"))
    assert page.evaluate("""() => [...document.querySelectorAll('#board .lifted')].map(
      (c) => c.closest('[data-pile]').dataset.pile + ' ' + c.dataset.card)""") == ["t4 2D"]
    targets = page.evaluate("[...document.querySelectorAll('#board .target')].map((p) => p.dataset.pile)")
    assert targets == ["t3"]
    pile = top(page, "t3").bounding_box()
    page.mouse.move(pile["x"] + pile["width"] / 2, pile["y"] + pile["height"] / 2, steps=4)
    page.mouse.up()
    moves_seen(page, 2)
    settled(page)
    assert page.locator(".ghost, #board .lifted").count() == 0


# Where the pointer holds the card in hand: as fractions of its size.
GRIP = """([x, y]) => {
  const ghost = document.querySelector('.ghost').getBoundingClientRect();
  return [(x - ghost.left) / ghost.width, (y - ghost.top) / ghost.height];
}"""


def test_a_tablet_turned_during_a_drag_keeps_the_card_under_the_finger(api: Api, open_game: Any) -> None:
    """Drawn anew smaller or larger during a drag (a tablet turned upright:
    cards of 88 px, then 75), the card in hand kept its place and its
    size's change went to its right and lower edges: held by its middle,
    it was held 59% of the way across after the turn. It is held at the
    same point of it."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c2"),
                     viewport={"width": 1024, "height": 768})
    card = top(page, "t4").bounding_box()
    press_on(page, card)
    pointer = [card["x"] + card["width"] / 2 + 20, card["y"] + card["height"] / 2 + 20]
    page.mouse.move(*pointer, steps=3)
    before = page.evaluate(GRIP, pointer)
    resize(page, 768, 1024)
    after = page.evaluate(GRIP, pointer)
    page.mouse.up()
    assert after == pytest.approx(before, abs=0.03), (before, after)


def test_the_board_holds_still_as_a_card_is_picked_up_and_put_down(api: Api, open_game: Any) -> None:
    """At 1024x700 in German the prompt of play takes two lines and a
    selected card's one: the board moved up a line and its cards grew at
    each card picked up, and back at each put down. The prompt keeps the
    room of the tallest prompt of play (till the window changes size)."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c2"),
                     viewport={"width": 1024, "height": 700}, locale="de-DE")
    boxes = [top(page, "t1").bounding_box()]
    top(page, "t4").click()
    page.locator("#board .selected").wait_for()
    settled(page)
    boxes.append(top(page, "t1").bounding_box())
    page.keyboard.press("Escape")
    page.locator("#board .selected").wait_for(state="detached")
    settled(page)
    boxes.append(top(page, "t1").bounding_box())
    assert boxes[1] == boxes[0] and boxes[2] == boxes[0], boxes


SIDEWAYS = {**PHONE, "viewport": {"width": 844, "height": 390}}

IN_SIGHT = """(selector) => {
  // Whether the middle of each node matched is on the screen and not under
  // anything else (the header, the edge of the window).
  return [...document.querySelectorAll(selector)].filter((n) => n.getClientRects().length).map((n) => {
    const r = n.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = x >= 0 && y >= 0 && x <= innerWidth && y <= innerHeight && document.elementFromPoint(x, y);
    return [n.id || n.textContent.trim().slice(0, 20), Boolean(hit && (hit === n || n.contains(hit)))];
  });
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize("size", ["sideways", "upright", "zoom"])
def test_the_end_notice_is_whole_on_a_small_screen(won_game: dict[str, Any], open_game: Any, locale: str,
                                                   size: str) -> None:
    """The notice of a won game, on a phone held sideways or at 200% zoom,
    once rose past the top of the window, its heading under the header;
    on an upright phone it touched both edges of the screen."""
    options = {"sideways": SIDEWAYS, "upright": PHONE,
               "zoom": {"viewport": {"width": 640, "height": 360}, "device_scale_factor": 2}}[size]
    page = open_game(won_game, locale=locale, **options)
    end = page.locator("dialog.end[open]")
    end.locator("[data-stat='best']").wait_for()
    until(lambda: end.evaluate("(d) => d.getAnimations({ subtree: true }).length === 0"))
    box = end.bounding_box()
    header = page.locator(".bar").bounding_box()
    width, height = options["viewport"]["width"], options["viewport"]["height"]
    assert box is not None and header is not None
    assert box["y"] >= header["y"] + header["height"] - 0.5, (box, header)
    assert box["y"] + box["height"] <= height + 0.5
    assert box["x"] >= 4 and box["x"] + box["width"] <= width - 4, box
    seen = page.evaluate(IN_SIGHT, "dialog.end h2, dialog.end button")
    assert len(seen) >= 3 and all(ok for _, ok in seen), seen


STATS_FIT = """() => {
  const dialog = document.querySelector('#dlg-stats').getBoundingClientRect();
  const wrap = document.querySelector('#dlg-stats .table-wrap');
  const table = wrap.querySelector('table.stats');
  // (the heads of a folded table are there for a screen reader only)
  const folded = getComputedStyle(table).display !== 'table';
  const cells = [...table.querySelectorAll(folded ? 'tbody :is(td, th)' : 'td, th')];
  return {
    scroll: wrap.scrollWidth - wrap.clientWidth,
    out: cells.filter((c) => c.getBoundingClientRect().right > dialog.right + 0.5).map((c) => c.textContent),
    clipped: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
    table: !folded,
    labels: getComputedStyle(table.querySelector('tbody td'), '::before').content,
    cells: table.querySelectorAll('tbody td').length,
  };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 800), (1024, 640)])
def test_the_statistics_of_many_variants_need_no_sideways_scrolling(
    api: Api, open_game: Any, locale: str, width: int, height: int
) -> None:
    """Fifteen columns: in German they were 200 px wider than the table's
    box even on a 1920x1080 screen, and the last columns had to be scrolled
    to. The long German heads break at their syllables, and a window too
    narrow for the table shows each variant as a card of labelled numbers,
    as a phone does."""
    for variant in ("terrace", "wood", "madame", "big-terrace", "admirals-patience"):
        api.play(api.new(variant=variant, deal_number=21), *([] if variant == "wood" else ["c1"]), "s")
    api.play(api.new(variant="terrace", deal_number=21, options={"decks": 3, "candidates": 4, "redeals": 2,
                                                                 "foundations": "suit"}), "c1", "s")
    page = open_game(api.new(variant="terrace", deal_number=22), locale=locale,
                     viewport={"width": width, "height": height})
    if page.locator("#btn-menu").is_visible():  # (1024 px: the header's buttons do not fit beside its title)
        page.locator("#btn-menu").click()
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats table.stats").wait_for()
    fit = page.evaluate(STATS_FIT)
    assert fit["cells"] >= 6 * 14
    assert fit["scroll"] <= 0 and fit["out"] == [] and fit["clipped"] == [], fit
    if width >= 1280:  # a desktop keeps the table
        assert fit["table"], fit
    if not fit["table"]:  # each number with its column's name
        assert fit["labels"] not in ("none", "normal", '""'), fit


KEYS_CLEAR = """() => [...document.querySelectorAll('#board .candidate .card.choice')].map((card) => {
  const key = card.querySelector('.choice-key').getBoundingClientRect();
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const index = [...card.querySelectorAll('.idx:not(.corner) > *')].map((n) => n.getBoundingClientRect());
  const others = [...document.querySelectorAll('#board .candidate .card.choice')].filter((c) => c !== card)
    .map((c) => c.getBoundingClientRect());
  return [card.dataset.card, Math.round(card.getBoundingClientRect().width),
          !index.some((r) => meet(r, key)) && !others.some((r) => meet(r, key))];
})"""


@pytest.mark.parametrize("variant", ["madame", "big-terrace"])
def test_a_candidate_s_key_leaves_its_rank_and_suit_in_sight(api: Api, open_game: Any, variant: str) -> None:
    """On a phone held sideways the candidates are 25 px wide, and the key
    that chooses one (a disc at least 18 px across) covered the suit and
    part of the rank in the card's corner."""
    game = api.new(variant=variant, deal_number=5)
    page = open_game(game, **SIDEWAYS)
    keys = page.evaluate(KEYS_CLEAR)
    assert len(keys) == game["options"]["candidates"] and max(width for _, width, _ in keys) < 40
    assert all(clear for _, _, clear in keys), keys
    # A desktop's larger cards keep the key at the corner, clear of the rank too.
    page = open_game(game, viewport={"width": 1280, "height": 800})
    assert all(clear for _, _, clear in page.evaluate(KEYS_CLEAR))


def test_the_stock_s_count_stays_on_the_screen_with_many_decks(api: Api, open_game: Any) -> None:
    """Eight packs and twenty piles on an upright phone: the stock's card is
    19 px wide and its count (296) was wider, reaching past the left edge
    of the screen (it read 96)."""
    options = {"decks": 8, "piles": 20, "candidates": 20, "reserve": 100}
    game = api.new(variant="terrace", deal_number=5, options=options)
    page = open_game(game, **{**PHONE, "viewport": {"width": 360, "height": 640}})
    found = page.evaluate("""() => {
      const count = document.querySelector('[data-pile="stock"] .count');
      const card = document.querySelector('[data-pile="stock"] .card').getBoundingClientRect();
      const r = count.getBoundingClientRect();
      return { text: count.textContent, left: r.left, right: r.right, card: card.width };
    }""")
    # (the case tested: a count wider than its card)
    assert found["text"] == str(game["state"]["stock"]), found
    assert found["right"] - found["left"] > found["card"], found
    assert found["left"] >= 0 and found["right"] <= 360, found
    # An ordinary game keeps the count at the stock card's lower right corner.
    page = open_game(api.new(variant="terrace", deal_number=5), viewport={"width": 1280, "height": 800})
    corner = page.evaluate("""() => {
      const count = document.querySelector('[data-pile="stock"] .count').getBoundingClientRect();
      const card = document.querySelector('[data-pile="stock"] .card').getBoundingClientRect();
      return [count.right - card.right, count.left - card.left];
    }""")
    assert 0 < corner[0] < 10 and corner[1] > 10, corner


CONTRAST = """(selector) => {
  // The text's colour laid over the lightest felt (the middle of the
  // board's gradient, --felt-light), and its contrast with that felt.
  const felt = getComputedStyle(document.documentElement).getPropertyValue('--felt-light').trim();
  const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const linear = (v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const lum = (rgb) => rgb.map((v) => linear(v / 255))
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  return [...document.querySelectorAll(selector)].map((node) => {
    const [r, g, b, a = 1] = getComputedStyle(node).color.match(/[\\d.]+/g).map(Number);
    const under = hex(felt);
    const shown = [r, g, b].map((v, i) => v * a + under[i] * (1 - a));
    const [hi, lo] = [lum(shown), lum(under)].sort((x, y) => y - x);
    return [node.textContent, Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100];
  });
}"""


def test_the_marks_of_empty_piles_can_be_read(api: Api, open_game: Any) -> None:
    """The rank an empty foundation waits for and the stock's redeal mark
    (↺) were drawn in half-transparent white: 2.9:1 and 2.6:1 on the felt,
    under the 3:1 that large text needs."""
    options = {"decks": 1, "piles": 2, "candidates": 2, "reserve": 1, "redeals": 1}
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1")
    game = api.play(game, *["s"] * game["state"]["stock"])
    page = open_game(game)
    marks = page.evaluate(CONTRAST, "#board .waits, #board .slot-mark")
    assert any(text == "↺" for text, _ in marks) and len(marks) >= 3, marks
    assert all(ratio >= 3 for _, ratio in marks), marks


def test_a_longer_prompt_fits_the_board_again(api: Api, open_game: Any) -> None:
    """A hint takes a line more than the prompt of play on a phone (which
    says what backs it whole): with tall piles, fanned into the room the
    short prompt left, the board was not fitted again, its lowest cards ran
    off the bottom of the window and the page scrolled. (A wider window
    cuts a longer message to the prompt's room: below.)"""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    tall = {2: run(20), 5: run(14, 3, True), 0: run(9, 5)}
    page = open_game(game, before_goto=lambda p: stack_high(p, game, tall), locale="en-GB", **PHONE)
    assert_fits(page)
    lines = page.evaluate("document.querySelector('#prompt').offsetHeight")
    page.keyboard.press("h")
    page.locator(".hint-src").wait_for()
    page.locator("#btn-hint:not([aria-busy])").wait_for()
    assert page.evaluate("document.querySelector('#prompt').offsetHeight") > lines  # (the case tested)
    assert_fits(page)


COVERED = """(selector) => {
  // the buttons of `selector` over which another element is drawn (the
  // toast too, which takes no clicks but hides what lies under it)
  const toast = document.querySelector('#toast');
  toast.style.pointerEvents = 'auto';
  try {
    return [...document.querySelectorAll(selector)].filter((b) => b.getClientRects().length).filter((b) => {
      const r = b.getBoundingClientRect();
      const points = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 4, r.bottom - 4],
        [r.right - 4, r.bottom - 4]];
      return points.some(([x, y]) => {
        const top = document.elementFromPoint(x, y);
        return !top || !b.contains(top);
      });
    }).map((b) => b.textContent);
  } finally {
    toast.style.pointerEvents = '';
  }
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_a_hint_that_proves_the_loss_leaves_the_end_notice_uncovered(
    api: Api, open_game: Any, locale: str
) -> None:
    """On a phone, a hint that finds the terrace dead opened the end notice
    and showed the same words in a toast, which lay over the notice's
    buttons (Play on, Undo, Give up) for seconds. The notice says it (and
    the prompt): no toast now."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s")
    page = open_game(game, locale=locale, **{**PHONE, "viewport": {"width": 360, "height": 640}})
    page.locator("#btn-hint").click()
    page.locator("dialog.end.hopeless[open]").wait_for()
    settled(page)
    assert page.locator("#toast.show").count() == 0
    assert page.evaluate(COVERED, "#dlg-end button") == []


@pytest.mark.parametrize(("locale", "viewport"), [("en-GB", {"width": 390, "height": 844}),
                                                 ("de-DE", {"width": 844, "height": 390}),
                                                 ("de-DE", {"width": 1280, "height": 720})])
def test_a_hint_or_a_refusal_covers_neither_the_prompt_nor_a_card(
    api: Api, open_game: Any, locale: str, viewport: dict[str, int]
) -> None:
    """A hint's toast lay over the prompt of an upright phone (which says
    the hint too), and a long refusal's over the lowest cards of a phone
    held sideways, as over the last cards of three piles at 1280x720 (for
    3.5-4.5 s): the prompt shows them alone, whole (a hint's backing in
    brief on a laptop, Why? showing the rest; a refusal longer than its
    line cut short, More showing it), in the toast's colours, and the
    board is fitted below it."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    tall = {2: run(20), 5: run(14, 3, True), 0: run(9, 5)}
    phone = viewport["width"] < 1000
    page = open_game(game, before_goto=lambda p: stack_high(p, game, tall), locale=locale,
                     **({**PHONE, "viewport": viewport} if phone else {"viewport": viewport}))
    prompt = page.locator("#prompt")
    for kind in ("info", "error"):
        if kind == "error":  # (the page's longest words: a request refused as too large)
            page.route("**/hint", lambda route: route.fulfill(status=431, body=""))
        page.locator("#btn-hint").click()
        page.locator(f"#toast.show.{kind}").wait_for(state="attached")
        settled(page)
        until(lambda: page.locator("#toast").evaluate("(t) => t.getAnimations().length === 0"))
        # (a laptop's refusal cut to the prompt's room, whole behind More)
        cut = kind == "error" and not phone
        assert prompt.get_attribute("class") == f"prompt notice {kind}{' cut' if cut else ''}", kind
        # (the toast's words, a hint's backing whole in place of its brief on a phone)
        shown = page.locator("#toast").text_content()
        if kind == "info":
            shown = hint_words(page) if phone else f"{shown} {prompt.locator('.prompt-more').inner_text()}"
        assert (prompt.locator("#prompt-more").text_content() if cut else prompt.inner_text()) == shown
        assert prompt.evaluate("(p) => p.scrollHeight <= p.clientHeight + 1"), "clipped"
        assert page.evaluate(COVERED, "#prompt, #board .tpile > .card:last-child") == [], kind
        assert_fits(page)
    open_game.errors.clear()  # (the browser's console reports the 431)


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_the_open_menu_lies_over_a_toast(api: Api, open_game: Any, locale: str) -> None:
    """On a phone the menu opens upwards from the bottom bar, where a toast
    shows (here: the game was played on elsewhere): the toast hid the
    menu's last items (Settings, the language) for seconds."""
    game = api.play(api.new(variant="terrace", deal_number=128681666), "c1")
    page = open_game(game, locale=locale, **{**PHONE, "viewport": {"width": 360, "height": 640}})
    played_elsewhere(api, page, game)
    page.locator("#btn-menu").click()
    page.locator(".actions.menu-open").wait_for()
    assert page.locator("#toast.show").count() == 1
    assert page.evaluate(COVERED, "#menu button, #menu select") == []


@pytest.mark.parametrize(("phone", "least"), [(False, 24), (True, 44)])
def test_the_rule_options_summary_is_a_target_big_enough(mid_game: dict[str, Any], open_game: Any,
                                                          phone: bool, least: int) -> None:
    # (the New game dialog's "Rule options", the one summary the page has,
    # was 19 px high: under WCAG 2.2's 24 px, and under the 44 px every
    # other control of a phone has)
    page = open_game(mid_game, **(PHONE if phone else {}))
    page.locator("#btn-new").click()
    summary = page.locator("#dlg-new summary")
    box = summary.bounding_box()
    assert box is not None and box["height"] >= least, box
    was_open = page.locator("#dlg-new details").evaluate("(d) => d.open")
    summary.click()  # (and it still opens or closes its options)
    until(lambda: page.locator("#dlg-new details").evaluate("(d) => d.open") != was_open)


def larger_text(size: int) -> Any:
    """A before_goto that sets the browser's own font size (Chromium's
    settings: Appearance, Font size) to ``size`` px, 16 by default."""
    def set_size(page: Any) -> None:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Page.enable")
        cdp.send("Page.setFontSizes", {"fontSizes": {"standard": size, "fixed": size}})
    return set_size


FONT_WINDOWS = [(320, 568), (568, 320), (390, 844), (1280, 860)]


@pytest.mark.parametrize(("locale", "first"), [("en-GB", 0), ("de-DE", 2)])
def test_the_browsers_larger_font_size_enlarges_the_text_and_every_button_stays_in_reach(
        api: Api, open_game: Any, locale: str, first: int) -> None:
    """A player who set the browser's font size to 24 px (150%) gets the
    page's text 1.5 times as large (the page set 16 px and ignored it), and
    the buttons still fit: none past the window's edge, over the title or
    with its label cut, every one clickable (a 320 px phone's toolbar ran
    the menu's button off the screen). Each font size's page goes through
    the four windows, opened at one of them (another for each font size
    and language: each window is opened at once, and turned to thrice)."""
    game = api.new(variant="terrace", deal_number=7)
    sizes: dict[tuple[int, int, int], list[float]] = {}
    for turn, size in enumerate((16, 24)):
        start = first + turn
        windows = FONT_WINDOWS[start:] + FONT_WINDOWS[:start]
        page = open_game(game, before_goto=larger_text(size), locale=locale,
                         viewport={"width": windows[0][0], "height": windows[0][1]})
        for width, height in windows:
            resize(page, width, height)
            sizes[size, width, height] = larger_text_in_reach(page, size, width, height)
        page.close()
    for width, height in FONT_WINDOWS:
        small, big = sizes[16, width, height], sizes[24, width, height]
        assert all(b >= 1.45 * s for s, b in zip(small, big, strict=True)), (width, height, small, big)


def larger_text_in_reach(page: Any, size: int, width: int, height: int) -> list[float]:
    """The page's font sizes (the root's, a button's, the counters', the
    prompt's) in a window ``width`` x ``height``, after checking that every
    button is whole and in reach and that Statistics opens (it is closed
    again after)."""
    found: list[float] = page.evaluate("""() => ['html', '#btn-new', '#counters', '#prompt']
      .map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))""")
    shown = page.evaluate("""() => {
      const name = document.querySelector('.bar h1').getBoundingClientRect();
      const edge = document.documentElement.clientWidth;
      return [...document.querySelectorAll('.actions button')].filter((n) => n.getClientRects().length)
        .map((n) => { const b = n.getBoundingClientRect();
          return [n.id, b.left >= 0 && b.right <= edge + 0.5 && n.scrollWidth <= n.clientWidth + 1
            && !(b.top < name.bottom && b.left < name.right && b.bottom > name.top)]; }); }""")
    where = (size, width, height)
    assert len(shown) >= 5 and all(ok for _, ok in shown), (where, shown)  # (four and the menu's, or all)
    toolbar = page.locator(".actions").bounding_box()
    if width < height and width < 820:  # (the toolbar at the bottom: the board ends above it)
        board = page.evaluate("() => document.querySelector('#board').getBoundingClientRect().bottom")
        assert toolbar["y"] + toolbar["height"] <= height + 0.5 and board <= toolbar["y"] + 0.5, where
    if page.locator("#btn-menu").is_visible():
        page.locator("#btn-menu").click()
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats[open]").wait_for()
    page.keyboard.press("Escape")
    page.locator("#dlg-stats:not([open])").wait_for(state="attached")
    return found


# Read while the page is laid out for the paper (page.pdf prints as the
# browser's Print does: beforeprint, then the print media).
WHILE_PRINTED = """() => {
  window.printed = null;
  matchMedia('print').addEventListener('change', (event) => {
    if (!event.matches) return;
    const piles = [...document.querySelectorAll('#board [data-pile]')].map((n) => n.getBoundingClientRect());
    const style = (s) => getComputedStyle(document.querySelector(s));
    window.printed = {
      sheet: document.documentElement.clientWidth,
      left: Math.min(...piles.map((r) => r.left)), right: Math.max(...piles.map((r) => r.right)),
      buttons: [...document.querySelectorAll('button')].filter((n) => n.getClientRects().length)
        .map((n) => n.id),
      text: ['#counters .value', '#counters .label', '#prompt', '.bar h1'].map((s) => style(s).color),
      back: document.querySelector('.card.back') && style('.card.back').printColorAdjust,
    };
  });
}"""


@pytest.mark.parametrize(("width", "height"), [(1280, 860), (1920, 1080), (390, 844)])
def test_a_printed_game_shows_the_whole_board_in_dark_without_buttons(
        api: Api, open_game: Any, width: int, height: int) -> None:
    """Printed on A4, the board drawn for a 1280 px window ran off the
    sheet (its last foundation cut at the right edge), the counters, the
    prompt and the title were the felt's near-white text on white paper,
    the card backs blank (a printer leaves out backgrounds) and an upright
    page's toolbar printed its buttons at the foot of the sheet."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s", "s")
    page = open_game(game, viewport={"width": width, "height": height})
    card = "() => document.querySelector('#board .tpile > .card').getBoundingClientRect().width"
    drawn = page.evaluate(card)
    page.evaluate(WHILE_PRINTED)
    page.pdf(format="A4")
    printed = page.evaluate("window.printed")
    assert printed["left"] >= 0 and printed["right"] <= printed["sheet"], printed
    assert printed["buttons"] == [], printed
    assert all(colour == "rgb(0, 0, 0)" for colour in printed["text"]), printed
    assert printed["back"] == "exact", printed
    # and the window's board again after
    assert page.locator("html.printing").count() == 0 and page.evaluate(card) == drawn
    assert_fits(page)


def right_to_left(page: Any) -> None:
    """A before_goto that sets the document's direction right to left (as
    a translation into Hebrew or Arabic, or a reader's style, does)."""
    page.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => { document.documentElement.dir = 'rtl'; })")


@pytest.mark.parametrize(("width", "height"), [(1280, 860), (1024, 768)])
def test_a_right_to_left_page_keeps_its_header_in_one_line_and_its_cards_faces(
        api: Api, open_game: Any, width: int, height: int) -> None:
    """In a right-to-left document the title stands at the right with the
    buttons to its left: they were taken for buttons over the title, and
    the header went into two lines, its buttons stretched (78 px, at 1280
    px); past its left edge they were not seen as crowded. A card's face
    read '♦5' and a foundation's badge 'red 10'."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s", "s")
    heights = {}
    for direction in ("ltr", "rtl"):
        page = open_game(game, before_goto=right_to_left if direction == "rtl" else None,
                         viewport={"width": width, "height": height})
        assert page.evaluate("document.documentElement.dir") == ("rtl" if direction == "rtl" else "")
        heights[direction] = page.locator(".bar").bounding_box()["height"]
        assert page.locator(".actions.overfull").count() == 0
        shown = page.evaluate("""() => {
          const edge = document.documentElement.clientWidth;
          return [...document.querySelectorAll('.actions button')].filter((n) => n.getClientRects().length)
            .filter((n) => { const b = n.getBoundingClientRect(); return b.left < 0 || b.right > edge; })
            .map((n) => n.id); }""")
        assert shown == [], shown
        faces = page.evaluate("""() => [...document.querySelectorAll('#board .card .idx:not(.corner)')]
          .filter((n) => n.getClientRects().length).map((n) => {
            const rank = n.querySelector('.rank').getBoundingClientRect();
            const pip = n.querySelector('.pip').getBoundingClientRect();
            return rank.left < pip.left || rank.bottom <= pip.top + 1; })""")  # (the terrace's: above)
        assert len(faces) > 10 and all(faces), faces
        badge = page.locator("#board .badge:not(.done)").first
        assert badge.evaluate("(n) => n.firstElementChild.getBoundingClientRect().left"
                              " < n.lastElementChild.getBoundingClientRect().left")
        page.close()
    assert heights["rtl"] == heights["ltr"], heights


@pytest.mark.parametrize("dialog", ["new", "settings", "rules", "stats"])
def test_at_a_larger_font_size_every_dialog_fits_a_small_phone(api: Api, open_game: Any, dialog: str) -> None:
    """The browser's font size at 24 px on a 320x568 phone, in German: the
    New game dialog's deal and option boxes ran past the screen's edge
    (their labels' long words unbroken), the settings scrolled sideways
    (a fieldset is never narrower than its longest word) and "Einstellungen"
    pushed the close button out of sight."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, before_goto=larger_text(24), locale="de-DE",
                     viewport={"width": 320, "height": 568}, has_touch=True)
    if dialog != "new":
        page.locator("#btn-menu").click()
    page.locator(f"#btn-{dialog}").click()
    shown = page.locator(f"#dlg-{dialog}[open]")
    shown.locator("button.close").wait_for()
    if dialog == "stats":
        shown.locator("ol.recent").wait_for()
    if dialog == "new":
        shown.locator("summary").click()  # (the rule options, open)
    found = shown.evaluate("""(d) => {
      const box = d.getBoundingClientRect();
      const out = [...d.querySelectorAll('*')]
        .filter((n) => n.getClientRects().length && !n.closest('.sr-only'))
        .filter((n) => { const b = n.getBoundingClientRect();
          return b.right > box.right + 1 || b.left < box.left - 1; })
        .map((n) => n.id || n.tagName);
      return { sideways: d.scrollWidth - d.clientWidth, out }; }""")
    assert found["sideways"] <= 1 and found["out"] == [], found
    close = shown.locator("button.close").bounding_box()
    assert close["x"] >= 0 and close["x"] + close["width"] <= 320, close


def test_a_printed_win_shows_its_notice_without_buttons(won_game: dict[str, Any], open_game: Any) -> None:
    """Printed, a won game's notice ('You won!', its figures) printed its
    Analyse, Look at the board and New game buttons under the board too."""
    page = open_game(won_game, reduced_motion="reduce")
    page.locator("dialog.end[open] .end-stats-slot > *").first.wait_for()
    page.evaluate(WHILE_PRINTED)
    page.pdf(format="A4")
    printed = page.evaluate("window.printed")
    assert printed["buttons"] == [], printed
    assert page.locator("dialog.end[open] h2").is_visible()


def test_the_browsers_font_size_changed_while_the_page_is_open_is_followed(api: Api,
                                                                             open_game: Any) -> None:
    """The browser's font size set to 24 px while a game is open on a 320
    px phone, in German: the text grew, and the toolbar, measured for 16 px
    only at a resize, ran Wieder, Tipp and the menu's button off the screen
    until the window changed size."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, locale="de-DE", viewport={"width": 320, "height": 568})
    settled(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Page.enable")
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 24, "fixed": 24}})
    until(lambda: page.evaluate("getComputedStyle(document.documentElement).fontSize") == "24px")
    out = """() => [...document.querySelectorAll('.actions > button')]
      .filter((n) => n.getClientRects().length)
      .filter((n) => n.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5
        || n.scrollWidth > n.clientWidth + 1).map((n) => n.id)"""
    until(lambda: page.evaluate(out) == [])
    page.locator("#btn-menu").click()
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats[open]").wait_for()


def test_a_phone_turned_upright_lays_out_its_toolbar_and_board_as_one_opened_upright(
        api: Api, open_game: Any) -> None:
    """A phone turned from sideways to upright zoomed the page out while the
    board drawn for the wide window overflowed the narrow one (innerWidth
    631 px on a 360 px phone): measured in that zoom, the toolbar took its
    buttons for too wide (they went into lines of their own), and four
    packs' board was fitted to a window 1122 px high, 58 px taller than on
    a phone opened upright, so that the page scrolled, until the window
    changed size again."""
    options = {"decks": 4, "piles": 14, "candidates": 3}
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1")
    page = open_game(game, locale="de-DE", **{**PHONE, "viewport": {"width": 640, "height": 360}})
    resize(page, 360, 640)
    assert_fits(page)
    assert page.locator(".actions.overfull").count() == 0


CORNER = """(card) => {
  const box = card.getBoundingClientRect();
  const corner = card.querySelector('.corner').getBoundingClientRect();
  const share = (x) => Math.round(100 * (x - box.left) / box.width);
  return [share(corner.left), share(corner.right)];
}"""
"""Where a card's lower corner index starts and ends across the card, in
hundredths of its width."""


def test_the_terrace_card_shows_its_lower_corner_as_every_card_does(api: Api, open_game: Any) -> None:
    """The exposed card of the terrace had its lower index stretched across
    the card (the rules for the terrace's narrow strips gave it a left as
    well as its right), its rank in the middle under its suit, which the big
    suit hid: General's Patience's 6♠ read as a lone 9 under a spade at
    1920x1080. It sits in the corner, as a pile's card's does."""
    game = api.new(variant="generals-patience", deal_number=5)
    page = open_game(game, viewport={"width": 1920, "height": 1080})
    left, right = page.locator("#board .reserve .card.exposed").evaluate(CORNER)
    assert right == page.locator("#board .tpile > .card").last.evaluate(CORNER)[1]
    assert left > 50, left


DEAL_SHOWN = """(title) => {
  // whether the title's last letter lies inside its box (not cut off), and
  // how much of the title is cut (its whole width past the room it has)
  const walker = document.createTreeWalker(title, NodeFilter.SHOW_TEXT);
  let last = null;
  while (walker.nextNode()) last = walker.currentNode;
  const letter = document.createRange();
  letter.setStart(last, last.length - 1);
  letter.setEnd(last, last.length);
  const parts = [...title.children];
  const whole = parts.length
    ? parts.reduce((sum, part) => sum + Math.max(part.scrollWidth, part.getBoundingClientRect().width), 0)
    : title.scrollWidth;
  const inside = letter.getBoundingClientRect().right <= title.getBoundingClientRect().right + 0.01;
  return [inside && title.scrollWidth <= title.clientWidth, Math.round(whole - title.clientWidth)];
}"""


def test_a_title_cut_short_keeps_its_deal(api: Api, open_game: Any) -> None:
    """At 1280x720 in German the header's buttons leave the game's title
    174 px: "General's Patience · …" hid which deal it was. The name is cut
    short now, the deal shown whole."""
    game = api.new(variant="generals-patience", deal_number=5)
    page = open_game(game, viewport={"width": 1280, "height": 720}, locale="de-DE")
    title = page.locator("#game-title")
    shown, cut = title.evaluate(DEAL_SHOWN)
    assert cut > 0 and shown, cut  # (the case tested: the title does not fit)
    assert title.inner_text() == "General's Patience · Spiel 5"
    # (Empress of Italy's name, cut short, left the deal 0.8 px over: the
    # title's own ellipsis took it)
    page.goto(page.url.replace(game["id"], api.new(variant="empress-of-italy", deal_number=5)["id"]))
    page.locator("#game-title", has_text="Empress").wait_for()
    assert title.evaluate(DEAL_SHOWN)[0]


@pytest.mark.parametrize(("locale", "width", "height"), [("de-DE", 1280, 720), ("en-GB", 1920, 1080)])
def test_a_refused_card_moves_no_card_and_its_bubble_hides_no_index(
    api: Api, open_game: Any, locale: str, width: int, height: int
) -> None:
    """A refusal the prompt keeps that took two lines (the server's longest
    words, a request refused as too large) moved the board down 16-17 px
    under the pointer: it is cut to one line, and More shows it whole. The
    bubble by a pile's top card lay above it, over the first terrace cards'
    rank and suit (five indices at 1280x720): it goes on the side where it
    hides fewer, below here, where it hides none, and for the terrace's
    first two cards too."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    page = open_game(game, locale=locale, viewport={"width": width, "height": height})
    board_top = "document.querySelector('#board').getBoundingClientRect().top"
    before = page.evaluate(board_top)
    top(page, "t1").click()  # (nowhere to go: the bubble and the prompt say why)
    page.locator("#prompt.notice.error").wait_for()
    settled(page)
    assert indices_under(page) == []
    # (the first terrace card's, centred on it, hid foundation 1's 9♣ whole;
    # the second's, moved left in steps of 12 px, its upper index by 0.6 px)
    for card in range(2):
        page.keyboard.press("Escape")
        page.locator("[data-pile='reserve'] > .card").nth(card).click()
        page.locator("#why:not([hidden])").wait_for()
        assert indices_under(page) == [], card
    page.route("**/why*", lambda route: route.fulfill(status=431, body=""))
    top(page, "t8").click()
    settled(page)
    assert "431" in page.locator("#prompt").text_content()  # (the case tested: its words kept)
    assert page.evaluate(board_top) == before
    whole = page.locator("#why").inner_text()
    page.locator("#prompt .prompt-more").click()
    assert page.locator("#prompt-more").inner_text() == whole
    open_game.errors.clear()  # (the browser's console reports the 431)


def test_a_refused_card_s_bubble_on_an_upright_phone_hides_no_index(api: Api, open_game: Any) -> None:
    """At 360x640 the bubble by a terrace card that cannot move hid an
    index of foundation 1's 9♣ above the terrace (each of the first four
    cards' bubbles), or the piles' below it: each spot 2-20 px from the
    card hides some. It goes below the piles' row of small cards now, still
    across from the card."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    page = open_game(game, viewport={"width": 360, "height": 640}, has_touch=True, is_mobile=True)
    for index in range(2):
        card = page.locator("[data-pile='reserve'] > .card").nth(index)
        card.tap()
        page.locator("#why:not([hidden])").wait_for()
        settled(page)
        assert indices_under(page) == [], index
        box, rect = page.locator("#why").bounding_box(), card.bounding_box()
        assert box["x"] < rect["x"] + rect["width"] and rect["x"] < box["x"] + box["width"]
        below, above = box["y"] - rect["y"] - rect["height"], rect["y"] - box["y"] - box["height"]
        assert 0 < below < rect["height"] + 21 or 0 < above < rect["height"] + 21


def test_a_hint_of_many_samples_moves_no_card_at_1024_px(api: Api, open_game: Any) -> None:
    """At 1024x768 in German the prompt of play holds two lines; a fair
    hint of 4,096 samples ('Gewinnt in 1.234 von 4.096 ausgelosten
    Vorräten, 2.862 offen ...') took those two and its Warum? a little
    more: the board moved down 1.1 px. Its brief is cut to the room now."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")

    def many_samples(route: Any) -> None:
        found = route.fetch().json()
        found.update(kind="sampled", wins=1234, samples=4096, undecided=2862)
        route.fulfill(json=found)
    page = open_game(game, locale="de-DE", viewport={"width": 1024, "height": 768})
    page.route("**/hint*", many_samples)
    board_top = "document.querySelector('#board').getBoundingClientRect().top"
    before = page.evaluate(board_top)
    page.keyboard.press("h")
    page.locator("#prompt.notice.info").wait_for()
    settled(page)
    assert "4.096" in page.locator("#prompt .prompt-brief").inner_text()  # (the case tested)
    assert page.evaluate(board_top) == before


def test_a_message_cut_to_one_line_is_whole_again_in_a_wider_window(api: Api, open_game: Any) -> None:
    """A refusal kept in the prompt, cut to one line and More at 900 px
    (its words take two there), stayed cut after the window was widened to
    1280 px, where they take one: they are shown whole again, no More, and
    cut again when the window is narrowed."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    page = open_game(game, viewport={"width": 900, "height": 720})
    page.locator("[data-pile='reserve'] > .card").first.click()  # (not free yet: the words say why)
    page.locator("#prompt.notice.cut").wait_for()
    resize(page, 1280, 720)
    assert page.locator("#prompt.notice").inner_text().startswith("The J♦ is not free yet")
    assert page.locator("#prompt.cut, #prompt .prompt-more").count() == 0
    resize(page, 900, 720)  # (and narrowed again, cut again to the room of the prompt of play)
    assert page.locator("#prompt.notice.cut .prompt-more").count() == 1
