"""The biggest games in a real browser: a long terrace whose every rank can
be read, a top row of eight packs' foundations as large as the tableau's
cards on an upright phone, and the stock's and the waste's counts apart.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api, drag, moves_seen, resize, top, until
from test_browser_layout import EIGHT_PACKS, KEYS_CLEAR, PHONE, REACH, assert_fits, run, stack_high
from web_support import game_line

pytestmark = pytest.mark.browser


# Each covered terrace card: its rank index (rank and suit) under no later
# card of the terrace, and its font size.
TERRACE = """() => {
  const cards = [...document.querySelectorAll('[data-pile="reserve"] > .card')];
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const boxes = cards.map((c) => c.getBoundingClientRect());
  const covered = [], fonts = [];
  cards.forEach((card, i) => {
    const parts = [...card.querySelectorAll('.idx:not(.corner) > *')].map((n) => n.getBoundingClientRect());
    fonts.push(parseFloat(getComputedStyle(card.querySelector('.idx')).fontSize));
    const under = boxes.slice(i + 1).some((b) => parts.some((p) => meet(p, b)));
    if (under) covered.push(`${i}:${card.dataset.card}`);
  });
  return { count: cards.length, covered, smallest: Math.min(...fonts) };
}"""


@pytest.mark.parametrize(("options", "size", "least"), [
    (EIGHT_PACKS, (360, 640), 10.5),
    ({"decks": 2, "piles": 9, "candidates": 3, "reserve": 94}, (1366, 768), 10),
    ({"decks": 2, "piles": 9, "candidates": 3, "reserve": 94}, (390, 844), 10),
], ids=["40-phone", "94-laptop", "94-phone"])
def test_every_rank_of_a_long_terrace_can_be_read(api: Api, open_game: Any, options: dict[str, int],
                                                  size: tuple[int, int], least: float) -> None:
    """Forty terrace cards on a 360 px phone were fanned 8.6 px apart: each
    10 read "1", its 0 under the next card; ninety-four were 3 px apart on
    a phone (no rank could be read) and had 8 px ranks on a laptop. A long
    terrace now takes more lines, each card's rank and suit in sight, at
    10 px or more (on the 360 px phone's 24 px cards, the page's least of
    10.5 px, larger than their own full index of 8.2 px)."""
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1")
    width, height = size
    page = open_game(game, **({**PHONE, "viewport": {"width": width, "height": height}} if width < 500
                              else {"viewport": {"width": width, "height": height}}))
    found = page.evaluate(TERRACE)
    assert found["count"] == options["reserve"]
    assert found["covered"] == [] and found["smallest"] >= least, found
    assert_fits(page)


SIZES = """() => {
  const width = (sel) => document.querySelector(sel).getBoundingClientRect().width;
  const box = (sel) => document.querySelector(sel).getBoundingClientRect();
  const waste = document.querySelector('[data-pile="waste"] .count');
  return { top: width('[data-pile="f1"]'), terrace: width('[data-pile="reserve"] > .card'),
           tableau: width('[data-pile="t1"]'),
           counts: waste && [box('[data-pile="stock"] .count').right, waste.getBoundingClientRect().left] };
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


CUT_SELECTS = """() => [...document.querySelectorAll('dialog[open] select')].map((select) => {
  // (a select left at its own width is as wide as its longest choice)
  const shown = select.getBoundingClientRect().width;
  const [width, most] = [select.style.width, select.style.maxWidth];
  select.style.width = 'auto';
  select.style.maxWidth = 'none';
  const needs = select.getBoundingClientRect().width;
  [select.style.width, select.style.maxWidth] = [width, most];
  const dialog = select.closest('dialog').getBoundingClientRect();
  const r = select.getBoundingClientRect();
  return [select.id, Math.round(shown), Math.round(needs), r.left >= dialog.left && r.right <= dialog.right];
})"""


@pytest.mark.parametrize("locale", ["de-DE", "en-GB"])
def test_no_choice_of_a_dialog_is_cut_on_a_small_phone(api: Api, open_game: Any, locale: str) -> None:
    """On a 360 px phone each select of the new game's rules was held to
    55% of its line: German choices read "in wechselnden" (Farben) and
    "automatisch ge" (füllt), and the variant "Empress of Italy" lost its
    last letters in both languages. A select too wide beside its label now
    takes a line of its own."""
    game = api.new(variant="empress-of-italy", deal_number=5)
    page = open_game(game, locale=locale, **{**PHONE, "viewport": {"width": 360, "height": 640}})
    page.locator("#btn-new").click()
    page.locator("#dlg-new[open] summary").click()
    page.locator("#dlg-new[open] details[open] select").first.wait_for()
    selects = page.evaluate(CUT_SELECTS)
    assert len(selects) >= 3
    page.keyboard.press("Escape")
    page.locator("#btn-menu").click()
    page.locator("#btn-settings").click()
    page.locator("#dlg-settings[open] select").first.wait_for()
    selects += page.evaluate(CUT_SELECTS)
    assert all(shown >= needs - 0.5 and inside for _, shown, needs, inside in selects), selects


def test_a_pile_of_thirty_cards_leaves_the_top_row_readable(api: Api, open_game: Any) -> None:
    """Eight packs on an upright phone, a pile of thirty cards and one of
    fifteen, in two lines: too tall even with the smallest cards, the
    board put the 32 foundations in one row of 9 px cards (ranks of 3 px,
    the terrace's too). The top row now keeps cards of 24 px or more, the
    terrace readable, and the tall pile's end can be reached (its run is
    squeezed into the screen: test_eight_packs_with_a_pile_of_thirty...)."""
    game = api.play(api.new(variant="terrace", deal_number=5, options=EIGHT_PACKS), "c1")
    tall = {2: run(30), 13: run(15, 3, True)}
    page = open_game(game, before_goto=lambda p: stack_high(p, game, tall),
                     **{**PHONE, "viewport": {"width": 390, "height": 844}})
    assert page.locator("[data-pile='t3'] > .card").count() == 30
    found = page.evaluate(SIZES)
    assert found["top"] >= 24 and found["terrace"] >= 24, found
    terrace = page.evaluate(TERRACE)
    assert terrace["covered"] == [] and terrace["smallest"] >= 10.5 - 0.01, terrace
    reach = page.evaluate(REACH)
    assert reach["out"] == [] and not reach["wide"], reach
    page.locator("[data-pile='t3'] > .card").last.scroll_into_view_if_needed()
    box = page.locator("[data-pile='t3'] > .card").last.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844


ONE_LINE = """() => {
  const shown = [...document.querySelectorAll('.bar .actions button, .bar .actions select')]
    .filter((n) => n.getClientRects().length).map((n) => n.getBoundingClientRect());
  return { lines: new Set(shown.map((r) => Math.round(r.top))).size, count: shown.length,
           bar: document.querySelector('.bar').getBoundingClientRect().height };
}"""


@pytest.mark.parametrize(("locale", "width", "height"), [("de-DE", 820, 1180), ("de-DE", 940, 800),
                                                         ("en-GB", 840, 1000)])
def test_a_crowded_header_folds_its_buttons_into_the_menu(api: Api, open_game: Any, locale: str, width: int,
                                                          height: int) -> None:
    """An upright tablet (820x1180) in German drew the header's eleven
    buttons in two lines under the game's title: a header of 118 px (so
    from 820 to 960 px in German, 840 in English). Buttons that would wrap
    now fold into the menu, as on a phone; a window wide enough keeps them."""
    game = api.play(api.new(variant="admirals-patience", deal_number=5), "c1")
    page = open_game(game, locale=locale, viewport={"width": width, "height": height})
    found = page.evaluate(ONE_LINE)
    assert found["lines"] == 1 and found["bar"] < 90, found
    assert page.locator("#btn-menu").is_visible()
    page.locator("#btn-menu").click()
    for name in ("restart", "giveup", "stats", "rules", "settings"):
        assert page.locator(f"#btn-{name}").is_visible(), name
    page.locator("#btn-rules").click()
    page.locator("#dlg-rules[open] section").first.wait_for()
    # Wide enough, every button shows in the header again.
    page.keyboard.press("Escape")
    page.set_viewport_size({"width": 1400, "height": 900})
    page.locator("#btn-menu").wait_for(state="hidden")
    assert page.locator("#btn-settings").is_visible()


@pytest.mark.parametrize(("variant", "deal"), [("terrace", 4533), ("blondes-and-brunettes", 2**63 - 1)],
                         ids=["Spiel-4533", "longest-title"])
def test_a_1280_px_desktop_in_german_shows_every_button(api: Api, open_game: Any, variant: str,
                                                        deal: int) -> None:
    """At 1280 px, a common desktop width, German's ten buttons and the
    least of the game's title (ten ems, "Terrace · Spiel 4533") were 17 px
    too wide: the header folded them into the menu. Narrower button sides
    fit them; a longer title (the longest preset's, the largest deal) is cut
    short with an ellipsis instead."""
    page = open_game(api.new(variant=variant, deal_number=deal), locale="de-DE",
                     viewport={"width": 1280, "height": 800})
    found = page.evaluate(ONE_LINE)
    assert found["lines"] == 1 and found["count"] == 10, found
    assert not page.locator("#btn-menu").is_visible()


@pytest.mark.parametrize(("height", "choose"), [(600, False), (640, True)],
                         ids=["600-playing", "640-choosing"])
def test_twenty_piles_on_a_small_phone_take_two_lines(api: Api, open_game: Any, height: int,
                                                      choose: bool) -> None:
    """Twenty piles on a 360 px phone: where two lines of piles of seven
    cards would not quite fit the height (a 360x600 phone; the choice of
    the base card, with its Chances button and longer prompt, at 360x640),
    the tableau fell back to one line, whose width left every card 16 px
    wide, the top row's and the terrace's too (ranks of 5 px). Two lines
    keep cards of 24 px."""
    game = api.new(variant="terrace", deal_number=5, options=EIGHT_PACKS)
    if not choose:
        game = api.play(game, "c1")
    page = open_game(game, **{**PHONE, "viewport": {"width": 360, "height": height}})
    assert page.locator(".row.tableau.two-lines").count() == 1
    found = page.evaluate(SIZES)
    assert min(found["top"], found["terrace"], found["tableau"]) >= 24, found
    terrace = page.evaluate(TERRACE)
    assert terrace["covered"] == [] and terrace["smallest"] >= 10.5 - 0.01, terrace
    assert_fits(page)


# Every face-up card's rank index (top-left, rank and suit): its font size
# and whether it lies whole inside its card.
RANKS = """() => {
  const fonts = [], cut = [];
  for (const card of document.querySelectorAll('#board .card.face')) {
    const box = card.getBoundingClientRect();
    const idx = card.querySelector('.idx:not(.corner)');
    fonts.push(parseFloat(getComputedStyle(idx).fontSize));
    for (const part of idx.children) {
      const r = part.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5) {
        cut.push(card.dataset.card);
        break;
      }
    }
  }
  return { count: fonts.length, smallest: Math.min(...fonts), cut };
}"""

TERRACE_94 = {"decks": 2, "piles": 9, "candidates": 3, "reserve": 94}
FOUR_PACKS = {"decks": 4, "piles": 14, "candidates": 3}
PHONES = [(360, 640), (390, 844), (640, 360)]
SCREENS = [(768, 1024), (1366, 768), (1920, 1080), (3840, 2160)]


# (the windows of a case are one page's, opened at the first and widened to
# the others, phones alike or screens alike: one page load where there were
# up to four; test_browser_layout turns a phone from sideways to upright)
@pytest.mark.parametrize(("options", "windows", "locale"), [
    (TERRACE_94, PHONES, "en-GB"),
    (TERRACE_94, SCREENS, "en-GB"),
    (TERRACE_94, [(640, 360)], "de-DE"),
    (FOUR_PACKS, [(360, 640)], "en-GB"),
    (FOUR_PACKS, [(360, 640), (640, 360)], "de-DE"),
    (EIGHT_PACKS, [(360, 640)], "de-DE"),
    (EIGHT_PACKS, [(640, 360)], "en-GB"),
], ids=lambda value: "-".join("x".join(map(str, size)) for size in value) if isinstance(value, list) else
    (value if isinstance(value, str) else f"{value['decks']}d{value['piles']}p{value.get('reserve', 11)}r"))
def test_every_rank_is_at_least_ten_pixels_high(api: Api, open_game: Any, options: dict[str, int],
                                                windows: list[tuple[int, int]], locale: str) -> None:
    """A card's index was a share of its width alone: 94 terrace cards on a
    640x360 phone were fanned in two lines with ranks of 9.2 px (three lines
    would have fitted with slightly smaller cards), four packs' fourteen
    piles on a 360x640 phone had cards 22.7 px wide and ranks of 7.7 px,
    eight packs' 8.4 px (360x640) and 8.7 px (640x360). Every rank is now
    10.5 px or more, whole inside its card, uncovered."""
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1")
    phone = min(windows[0]) < 500
    assert all((min(size) < 500) == phone for size in windows)
    width, height = windows[0]
    viewport = {"viewport": {"width": width, "height": height}}
    page = open_game(game, locale=locale, **({**PHONE, **viewport} if phone else viewport))
    for size in windows:
        resize(page, *size)
        ranks = page.evaluate(RANKS)
        assert ranks["count"] > 20 and ranks["smallest"] >= 10 and ranks["cut"] == [], (size, ranks)
        terrace = page.evaluate(TERRACE)
        assert terrace["covered"] == [], (size, terrace)
        assert_fits(page)


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_four_packs_on_a_small_phone_take_two_lines_and_play_by_tap_and_drag(api: Api, open_game: Any,
                                                                             locale: str) -> None:
    """Four packs' sixteen foundations, laid in four rows of five on a
    360x640 phone, left two lines of piles cards of 27 px, so the fourteen
    piles took one line of cards 22.7 px wide. The foundations now take
    two rows of eight, the piles two lines of 31 px cards or more; a tap on
    a card and one on a pile of the second line, and a drag within the
    second line, play the moves meant. (In German, whose longer prompt
    leaves less height, the rows first tried did not fit, and the one line
    of 22.7 px cards cut a 10's index.)"""
    game = api.play(api.new(variant="terrace", deal_number=1, options=FOUR_PACKS), "c1")
    assert {"t7t14", "t11t10"} <= {info["targets"].get(t) for info in game["sources"].values()
                                   for t in ("t14", "t10")}
    page = open_game(game, locale=locale, **{**PHONE, "viewport": {"width": 360, "height": 640}})
    assert page.locator(".row.tableau.two-lines").count() == 1
    found = page.evaluate(SIZES)
    assert found["tableau"] >= 30 and found["top"] >= 28, found
    assert_fits(page)
    top(page, "t7").tap()
    page.locator("[data-pile='t14']").tap()
    moves_seen(page, 2)
    card, pile = top(page, "t11").bounding_box(), top(page, "t10").bounding_box()
    assert card is not None and pile is not None
    drag(page, card, pile)
    moves_seen(page, 3)
    played = game_line(api.client, game["id"])["moves"][-2:]
    assert played == ["t7t14", "t11t10"]


# Each tableau pile: its cards squeezed (index hidden), the number its mark
# shows, and its covered cards not squeezed whose index a later card hides.
RUNS = """() => Object.fromEntries([...document.querySelectorAll('#board .tpile')].map((pile) => {
  const cards = [...pile.querySelectorAll(':scope > .card')];
  const squeezed = cards.filter((c) => c.classList.contains('squeezed'));
  const hidden = cards.slice(0, -1).filter((card, i) => {
    if (card.classList.contains('squeezed')) return false;
    const idx = card.querySelector('.idx:not(.corner)').getBoundingClientRect();
    return idx.bottom > cards[i + 1].getBoundingClientRect().top + 0.5;
  }).map((c) => c.dataset.card);
  const mark = pile.querySelector('.squeeze-mark');
  const font = (card) => card ? parseFloat(getComputedStyle(card.querySelector('.idx')).fontSize) : null;
  return [pile.dataset.pile, { count: cards.length, squeezed: squeezed.length, hidden,
                               top: font(cards.at(-1)), mark: mark ? mark.textContent : null,
                               unread: squeezed.every((c) =>
                                 getComputedStyle(c.querySelector('.idx')).visibility === 'hidden') }];
}))"""


@pytest.mark.parametrize(("size", "piles"), [
    ((640, 360), {2: run(26)}),
    ((844, 390), {2: run(30), 6: run(14, 3, True)}),
    ((360, 640), {2: run(40), 6: run(20, 4, True)}),
], ids=["26-640x360", "30-844x390", "40-360x640"])
def test_a_pile_too_tall_for_a_small_screen_squeezes_its_run(api: Api, open_game: Any, size: tuple[int, int],
                                                            piles: dict[int, list[str]]) -> None:
    """A pile of 26 cards ran 140 px below a 640x360 phone's screen (the
    page scrolled, the pile's top card out of sight), one of 40 on a 360x640
    phone 110 px below the toolbar. The middle of a run too tall for the
    screen is now squeezed, with a mark saying how many cards are there
    (their ranks follow from the run's first card); its first card and the
    cards under its top card keep their ranks in sight, and the whole board
    fits."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    width, height = size
    page = open_game(game, before_goto=lambda p: stack_high(p, game, piles),
                     **{**PHONE, "viewport": {"width": width, "height": height}})
    runs = page.evaluate(RUNS)
    tall = runs["t3"]
    assert tall["count"] == len(piles[2]) and tall["squeezed"] >= 5, runs
    assert tall["mark"] == f"⋮{tall['squeezed']}" and tall["unread"], runs
    assert tall["count"] - tall["squeezed"] >= 6  # the first card, the top card and four under it
    assert all(not pile["hidden"] for pile in runs.values()), runs
    assert tall["top"] == runs["t1"]["top"], runs  # the top card's index at full size, as a lone card's
    assert all(pile["squeezed"] == 0 and pile["mark"] is None for name, pile in runs.items()
               if pile["count"] < 14), runs
    found = page.evaluate(REACH)
    assert found["out"] == [] and not found["wide"] and not found["tall"], found
    limit = page.evaluate("""Math.min(innerHeight, ...[...document.querySelectorAll('.actions')]
      .filter((n) => getComputedStyle(n).position === 'fixed').map((n) => n.getBoundingClientRect().top))""")
    box = top(page, "t3").bounding_box()
    assert box is not None and box["y"] + box["height"] <= limit + 0.5, (box, limit)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_one_tall_pile_does_not_shrink_every_card_of_a_laptop(api: Api, open_game: Any,
                                                              size: tuple[int, int]) -> None:
    """A pile of 40 cards made every card of a 1366x768 laptop 29 px wide
    (88 px for ordinary piles), every rank of the board 10 px high, so that
    all forty could show their ranks. The cards now keep 70% of their usual
    size at least; the run's middle is squeezed instead."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    width, height = size
    usual = open_game(game, viewport={"width": width, "height": height}).evaluate(SIZES)["tableau"]
    page = open_game(game, before_goto=lambda p: stack_high(p, game, {2: run(40), 6: run(20, 4, True)}),
                     viewport={"width": width, "height": height})
    found = page.evaluate(SIZES)
    assert found["tableau"] >= 0.69 * usual, (found, usual)
    runs = page.evaluate(RUNS)
    assert runs["t3"]["count"] == 40 and runs["t3"]["squeezed"] > 0, runs
    assert all(not pile["hidden"] for pile in runs.values()), runs
    found = page.evaluate(REACH)
    assert found["out"] == [] and not found["wide"] and not found["tall"], found


@pytest.mark.parametrize("size", [(360, 640), (640, 360)])
def test_a_candidate_s_key_clears_the_larger_index_of_a_small_card(api: Api, open_game: Any,
                                                                  size: tuple[int, int]) -> None:
    """The key of a small candidate sits below its index, placed for an
    index a third of the card's width; on eight packs' 24-26 px cards the
    index is now 10.5 px (larger than that), and the key's disc lay on the
    bottom of the suit sign."""
    game = api.new(variant="terrace", deal_number=5, options=EIGHT_PACKS)
    width, height = size
    page = open_game(game, **{**PHONE, "viewport": {"width": width, "height": height}})
    keys = page.evaluate(KEYS_CLEAR.replace(".card.choice')]", ".card.choice:has(.choice-key)')]"))
    assert len(keys) == 10 and max(w for _, w, _ in keys) < 30, keys
    assert all(clear for _, _, clear in keys), keys


# The face-up tableau cards whose index is in sight (not squeezed): the
# smallest index font among them.
TABLEAU_FONTS = """() => Math.min(...[...document.querySelectorAll('#board .tpile > .card:not(.squeezed)')]
  .map((card) => parseFloat(getComputedStyle(card.querySelector('.idx')).fontSize)))"""


@pytest.mark.parametrize("size", [(360, 640), (640, 360), (390, 844)])
def test_the_covered_cards_of_a_tall_pile_keep_readable_ranks(api: Api, open_game: Any,
                                                              size: tuple[int, int]) -> None:
    """Eight packs' small cards (24 px): a pile taller than an ordinary one
    fanned its covered cards tighter, with ranks of 8.2 px (a share of the
    card's width), under the page's own least of 10.5 px. Every rank in
    sight is now 10.5 px or more; a pile too tall for that squeezes its run."""
    game = api.play(api.new(variant="terrace", deal_number=5, options=EIGHT_PACKS), "c1")
    tall = {2: run(14), 6: run(12, 3, True), 13: run(10, 5)}
    width, height = size
    page = open_game(game, before_goto=lambda p: stack_high(p, game, tall),
                     **{**PHONE, "viewport": {"width": width, "height": height}})
    assert page.locator("[data-pile='t3'] > .card").count() == 14
    smallest = page.evaluate(TABLEAU_FONTS)
    assert smallest >= 10.5 - 0.01, smallest
    assert_fits(page)


@pytest.mark.parametrize(("size", "reserve", "locale", "tall"), [
    ((360, 640), 40, "en-GB", {2: run(30), 13: run(15, 3, True)}),
    ((640, 360), 40, "en-GB", {2: run(30), 13: run(15, 3, True)}),
    ((640, 360), 100, "de-DE", {2: run(30), 5: run(13, 3, True), 12: run(20)}),
], ids=["360x640", "640x360", "640x360-100-de"])
def test_eight_packs_with_a_pile_of_thirty_do_not_scroll_a_small_phone(
    api: Api, open_game: Any, size: tuple[int, int], reserve: int, locale: str, tall: dict[int, list[str]]
) -> None:
    """Eight packs on a 360x640 phone, a pile of thirty cards and one of
    fifteen: the cards already at their least width (24 px), the run was
    not squeezed (only a pile that would shrink cards larger than that
    was), and the page scrolled down 28 to 40 px. The run is now squeezed
    into the room there is, the board fits the screen. (On a 640x360 phone
    in German, under two lines of a terrace of 100, the squeeze of 2 px a
    card still ran 4 px past the bottom: with no card kept in full it may
    be tighter.)"""
    options = {**EIGHT_PACKS, "reserve": reserve}
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1")
    width, height = size
    page = open_game(game, before_goto=lambda p: stack_high(p, game, tall), locale=locale,
                     **{**PHONE, "viewport": {"width": width, "height": height}})
    assert page.locator("[data-pile='t3'] > .card").count() == 30
    runs = page.evaluate(RUNS)
    assert runs["t3"]["squeezed"] > 0 and all(not pile["hidden"] for pile in runs.values()), runs
    found = page.evaluate(REACH)
    assert found["out"] == [] and not found["wide"] and not found["tall"], found
    assert_fits(page)


# Each terrace card brought into sight (its strip scrolled, if it scrolls):
# the cards whose rank is then not the topmost thing at its place, the
# smallest index font, and whether the strip scrolls; the strip is left at
# its end again.
READ_ALL = """() => {
  const strip = document.querySelector('[data-pile="reserve"]');
  const cards = [...strip.querySelectorAll(':scope > .card')];
  const unread = [];
  for (const card of cards) {
    card.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const rank = card.querySelector('.idx:not(.corner) .rank').getBoundingClientRect();
    const hit = document.elementFromPoint(rank.left + rank.width / 2, rank.top + rank.height / 2);
    if (!hit || hit.closest('.card') !== card) unread.push(card.dataset.card);
  }
  strip.scrollTop = strip.scrollHeight;
  const fonts = cards.map((c) => parseFloat(getComputedStyle(c.querySelector('.idx')).fontSize));
  return { count: cards.length, unread, smallest: Math.min(...fonts),
           scrolls: strip.scrollHeight > strip.clientHeight + 1, page: window.scrollY };
}"""

HUNDREDS = [{**EIGHT_PACKS, "reserve": 395}, {"decks": 8, "piles": 1, "candidates": 0, "reserve": 414}]


@pytest.mark.parametrize(("options", "size", "locale"), [
    *[(HUNDREDS[0], size, "en-GB") for size in [(360, 640), (640, 360), (390, 844), (768, 1024)]],
    (HUNDREDS[0], (360, 640), "de-DE"),
    (HUNDREDS[1], (360, 640), "en-GB"),
    (HUNDREDS[1], (844, 390), "de-DE"),
    (HUNDREDS[1], (1366, 768), "en-GB"),
], ids=lambda value: "x".join(map(str, value)) if isinstance(value, tuple) else
    (value if isinstance(value, str) else f"{value['piles']}p{value['reserve']}r"))
def test_a_terrace_of_hundreds_of_cards_keeps_every_rank_readable(
    api: Api, open_game: Any, options: dict[str, int], size: tuple[int, int], locale: str
) -> None:
    """Eight packs' terrace of 395 to 414 cards was fanned in six lines (the
    most) with ranks of 8 px on every phone and tablet. It now takes as many
    lines as keep every rank at 10.5 px (the page's least); those that do
    not fit the screen scroll in a strip, drawn at its end (the exposed
    card), and every card's rank can be brought into sight and read there."""
    # (deal 2 of the one-pile game has a move: most are lost at once)
    game = api.new(variant="terrace", deal_number=5 if options["candidates"] else 2, options=options)
    if options["candidates"]:
        game = api.play(game, "c1")
    assert game["status"] == "playing"
    width, height = size
    viewport = {"viewport": {"width": width, "height": height}}
    page = open_game(game, locale=locale, **({**PHONE, **viewport} if min(size) < 500 else viewport))
    exposed = page.locator("[data-pile='reserve'] > .card.exposed")
    assert exposed.get_attribute("data-card") == game["state"]["reserve"][-1]
    rank = exposed.locator(".idx:not(.corner) .rank").bounding_box()
    assert rank is not None
    assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('.card.exposed') !== null",
                         [rank["x"] + rank["width"] / 2, rank["y"] + rank["height"] / 2])
    assert_fits(page)
    found = page.evaluate(READ_ALL)
    assert found["count"] == options["reserve"] and found["page"] == 0, found
    assert found["unread"] == [] and found["smallest"] >= 10.5 - 0.01, found
    terrace = page.evaluate(TERRACE)
    assert terrace["covered"] == [], terrace


EXPOSED_IN_SIGHT = """() => {
  const card = document.querySelector('[data-pile="reserve"] > .card.exposed');
  const rank = card.querySelector('.idx:not(.corner) .rank').getBoundingClientRect();
  const hit = document.elementFromPoint(rank.left + rank.width / 2, rank.top + rank.height / 2);
  return hit !== null && hit.closest('.card') === card;
}"""


def test_the_exposed_card_of_a_scrolled_terrace_is_played_and_the_strip_follows(api: Api,
                                                                                open_game: Any) -> None:
    """The strip of a terrace of 395 cards on a 360x640 phone: a player who
    scrolled it up to read keeps that place while the terrace is unchanged
    (a redraw: the window turned back and forth); the exposed card, back in
    sight, is dragged to a foundation, and the strip then shows the next one."""
    game = api.play(api.new(variant="terrace", deal_number=4, options={**EIGHT_PACKS, "reserve": 395}), "c1")
    assert game["sources"]["reserve"]["card"] == "6S"
    page = open_game(game, **{**PHONE, "viewport": {"width": 360, "height": 640}})
    strip = page.locator("[data-pile='reserve']")
    assert page.evaluate(EXPOSED_IN_SIGHT)
    assert strip.evaluate("(s) => s.scrollHeight > s.clientHeight + 100")
    strip.evaluate("(s) => { s.scrollTop = 40; s.dataset.before = 'yes'; }")
    page.set_viewport_size({"width": 361, "height": 640})
    until(lambda: page.locator("[data-pile='reserve'][data-before]").count() == 0)  # drawn anew
    until(lambda: strip.evaluate("(s) => s.scrollTop") == 40)
    assert not page.evaluate(EXPOSED_IN_SIGHT)
    strip.evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
    card = page.locator("[data-pile='reserve'] > .card.exposed").bounding_box()
    home = page.locator("[data-pile='f3']").bounding_box()
    assert card is not None and home is not None
    drag(page, card, home)
    moves_seen(page, 2)
    assert game_line(api.client, game["id"])["moves"][-1] == "rf3"
    until(lambda: page.locator("[data-pile='reserve'] > .card").count() == 394)
    assert page.evaluate(EXPOSED_IN_SIGHT)
    assert_fits(page)


COUNTER_LINES = """() => {
  const tops = [...document.querySelectorAll('#counters .counter')]
    .map((n) => Math.round(n.getBoundingClientRect().top));
  const box = document.querySelector('#counters').getBoundingClientRect();
  return { count: tops.length, lines: new Set(tops).size, height: box.height,
           text: document.querySelector('#counters').innerText.replace(/\\s+/g, ' ') };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
@pytest.mark.parametrize("options", [{}, {**EIGHT_PACKS, "reserve": 395}], ids=["2-packs", "8-packs"])
def test_the_counters_of_a_long_game_take_two_lines_on_a_small_phone(
    api: Api, open_game: Any, locale: str, options: dict[str, int]
) -> None:
    """On a 360x640 phone the eight counters (the time among them) took
    three lines in English, 54 px of the board's height, with 100,000
    moves. They now take two (as German's did)."""
    game = api.play(api.new(variant="terrace", deal_number=5, options=options), "c1")

    def many_moves(page: Any) -> None:
        def fulfil(route: Any) -> None:
            data = route.fetch().json()
            data["counters"]["moves"] = 100000
            route.fulfill(json=data)
        page.route(f"**/api/games/{game['id']}", fulfil)

    page = open_game(game, before_goto=many_moves, locale=locale,
                     **{**PHONE, "viewport": {"width": 360, "height": 640}})
    until(lambda: page.locator("#counters [data-counter='time']").count() == 1)
    found = page.evaluate(COUNTER_LINES)
    grouped = "100.000" if locale.startswith("de") else "100,000"  # (grouped as the language writes it)
    assert found["count"] == 8 and grouped in found["text"], found
    assert found["lines"] <= 2, found
    assert_fits(page)


@pytest.mark.parametrize("tall", [{10: run(24)}, {1: run(24)}], ids=["second-line", "first-line"])
def test_a_tall_pile_in_either_line_takes_the_room_the_other_line_leaves(api: Api, open_game: Any,
                                                                        tall: dict[int, list[str]]) -> None:
    """Four packs' fourteen piles on a 390x844 phone, in two lines: a pile
    of 24 cards in the second line was squeezed (18 cards' ranks hidden)
    into half the room, while 290 px lay empty below it, the first line
    holding single cards. Each line now takes the room its tallest pile
    needs, when both fit; the pile fans in full."""
    game = api.play(api.new(variant="terrace", deal_number=5, options=FOUR_PACKS), "c1")
    page = open_game(game, before_goto=lambda p: stack_high(p, game, tall),
                     **{**PHONE, "viewport": {"width": 390, "height": 844}})
    assert page.locator(".row.tableau.two-lines").count() == 1
    runs = page.evaluate(RUNS)
    name = f"t{next(iter(tall)) + 1}"
    assert runs[name]["count"] == 24 and runs[name]["squeezed"] == 0, runs
    assert_fits(page)


def test_a_finger_scrolling_the_terrace_strip_is_not_a_press_on_its_card(api: Api, open_game: Any) -> None:
    """A terrace of 395 cards scrolls in its strip on a 360x640 phone: each
    flick of the strip explained the covered card it began on (why it cannot
    move), as a press on it. Only a tap on a card explains it now."""
    game = api.play(api.new(variant="terrace", deal_number=4, options={**EIGHT_PACKS, "reserve": 395}), "c1")
    page = open_game(game, **{**PHONE, "viewport": {"width": 360, "height": 640}})
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/why" in request.url else None)
    strip = page.locator("[data-pile='reserve']")
    box = strip.bounding_box()
    assert box is not None
    before = strip.evaluate("(s) => s.scrollTop")
    cdp = page.context.new_cdp_session(page)
    x, y = box["x"] + 100, box["y"] + 10
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, 11):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y + 6 * i}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    until(lambda: strip.evaluate("(s) => s.scrollTop") < before - 20)  # scrolled up, to earlier lines
    # A tap on a covered card in sight: its explanation, the only one asked for.
    card = page.locator("[data-pile='reserve'] > .card:not(.exposed)").nth(380)
    card.scroll_into_view_if_needed()
    card.tap(position={"x": 4, "y": 4})
    page.locator(".why").wait_for(state="visible")
    assert len(asked) == 1, asked
