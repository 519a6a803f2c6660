"""Text on the felt can be read: every text the board shows straight on
the felt (no card or panel of its own behind it) keeps WCAG's 4.5:1 (3:1
when large) against the felt's lightest colour, --felt-light, which the
felt's gradient reaches near the middle of the board. Colours, opacities
and translucent backgrounds are read from getComputedStyle."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from browser_support import Api, until
from test_browser_endgame import hide

# (a computed colour as [r, g, b, alpha]; WCAG's relative luminance of [r, g, b])
COLOURS = r"""
  const rgba = (text) => {
    const parts = text.match(/[\d.]+/g).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const luminance = (c) => {
    const linear = (v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    const [r, g, b] = c.slice(0, 3).map((v) => linear(v / 255));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };"""

# The texts on the felt below their WCAG minimum: [text, ratio, minimum].
# An element's own opacity and its ancestors' multiply; translucent
# backgrounds between it and the body are laid over --felt-light.
FAINT_ON_FELT = r"""() => {COLOURS
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const probe = document.createElement("div");
  probe.style.background = "var(--felt-light)";
  document.body.append(probe);
  const felt = rgba(getComputedStyle(probe).backgroundColor);
  probe.remove();
  const faint = [];
  for (const node of document.querySelectorAll("body *")) {
    if (![...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    if (!node.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    if (node.closest(".sr-only, button:disabled, [aria-disabled='true'], dialog, .card")) continue;
    const backs = [];
    let opacity = 1;
    let onFelt = true;
    for (let up = node; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      opacity *= Number(style.opacity);
      const back = rgba(style.backgroundColor);
      if (back[3] >= 1) { onFelt = false; break; }
      if (back[3] > 0) backs.push(back);
    }
    if (!onFelt) continue;
    const under = backs.reduceRight((below, back) => over(back, below), felt);
    const style = getComputedStyle(node);
    const colour = rgba(style.color);
    const seen = over([colour[0], colour[1], colour[2], colour[3] * opacity], under);
    const [dark, light] = [luminance(seen), luminance(under)].sort((a, b) => a - b);
    const ratio = (light + 0.05) / (dark + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (Number(style.fontWeight) >= 700 && size >= 18.66);
    const minimum = large ? 3 : 4.5;
    if (ratio < minimum) faint.push([node.textContent.trim(), Math.round(ratio * 100) / 100, minimum]);
  }
  return faint;
}""".replace("COLOURS", COLOURS)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_text_on_the_felt_has_4_5_to_1(api: Api, open_game: Any, scheme: str) -> None:
    choosing = open_game(api.new(variant="terrace", deal_number=7), color_scheme=scheme)
    assert choosing.locator("#btn-chances").is_visible()  # a button on the felt
    assert choosing.evaluate(FAINT_ON_FELT) == []
    choosing.locator("#btn-chances").hover()
    assert choosing.evaluate(FAINT_ON_FELT) == []
    playing = open_game(api.play(api.new(variant="terrace", deal_number=7), "c1"), color_scheme=scheme)
    playing.mouse.move(200, 200)
    hide(playing, True)
    until(lambda: playing.locator("[data-counter='time'].paused").count() == 1)
    assert playing.locator(".counter .label").count() >= 5
    assert playing.evaluate(FAINT_ON_FELT) == []


# The frame a pile's mark draws (its ::after): [style, width, colour] of
# each pile of `selector`.
FRAMES = """(selector) => [...document.querySelectorAll(selector)].map((pile) => {
  const frame = getComputedStyle(pile, "::after");
  return [frame.borderTopStyle, frame.borderTopWidth, frame.borderTopColor];
})"""


def test_in_forced_colours_a_hinted_pile_is_no_target(api: Api, open_game: Any) -> None:
    """In forced colours (Windows' high contrast) a target of the selected
    card and the pile a hint names were framed alike, dashed in the
    system's Highlight: with a hint shown and a card picked up, the hint's
    foundation looked like a place the card could go. The hint's frame is
    dotted there, as the hint's own yellow dashes differ from a target's
    cyan line in colour."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=1), "c1"), forced_colors="active")
    assert page.evaluate("matchMedia('(forced-colors: active)').matches")
    page.locator("#btn-hint").click()
    page.wait_for_selector(".pile.hint-dst")
    hinted = page.locator(".pile.hint-dst").get_attribute("data-pile")
    mover = next(pile for pile in ("t3", "t4", "t2") if pile != hinted)
    page.locator(f"[data-pile='{mover}'] > .card").last.click()
    page.wait_for_selector(".pile.target:not(.hint-dst)")
    assert page.locator(".pile.hint-dst").count() == 1  # (the hint is still on show)
    targets = page.evaluate(FRAMES, ".pile.target:not(.hint-dst)")
    hint = page.evaluate(FRAMES, ".pile.hint-dst:not(.target)")
    assert hint and targets
    assert all(frame[0] != hint[0][0] for frame in targets), (targets, hint)


@pytest.mark.parametrize("hovered", [False, True])
def test_a_hint_being_thought_over_shows_without_motion(api: Api, open_game: Any, hovered: bool) -> None:
    """While a hint is worked out (2 s by default, up to a minute) the
    Hint button pulsed, and that was all it showed: with reduced motion
    the pulse is off, so the button looked idle (the same pixels) and a
    click or a tap seemed lost. It holds still, lighter, while it thinks,
    also under the pointer (a tapped button stays hovered)."""
    held: list[Any] = []
    page = open_game(api.play(api.new(variant="terrace", deal_number=1), "c1"), reduced_motion="reduce",
                     before_goto=lambda page: page.route("**/hint", lambda route: held.append(route)))
    button = page.locator("#btn-hint")
    away = (lambda: button.hover()) if hovered else (lambda: page.mouse.move(5, 500))
    away()
    idle = button.screenshot(animations="disabled")
    button.click()
    until(lambda: page.evaluate("true") and len(held) == 1)  # (a call lets the route's event through)
    away()
    assert button.get_attribute("aria-busy") == "true"
    assert button.screenshot(animations="disabled") != idle
    held[0].continue_()
    page.wait_for_selector("#btn-hint:not([aria-busy])")



# What moves on the page, a hint and a refusal shown: the style sheet's
# animation of the hint's card, of the refused card and of the thinking
# Hint button (put on for the look), and the toast's transition.
MOTIONS = """() => {
  const hint = document.querySelector('#btn-hint');
  hint.classList.add('thinking');
  const style = (selector) => getComputedStyle(document.querySelector(selector));
  const motions = [style('.card.hint-src').animationName, style('.card.refused').animationName,
    style('#btn-hint').animationName, style('#toast').transitionDuration];
  hint.classList.remove('thinking');
  return motions;
}"""
STILL = ["none", "none", "none", "0s"]


def motions(page: Any) -> list[str]:
    """MOTIONS once a hint (H) and a refusal (1: the K of hearts of Terrace
    deal 1 has nowhere to go) are shown."""
    page.keyboard.press("h")
    page.locator(".card.hint-src").wait_for()
    page.keyboard.press("1")
    page.locator(".card.refused").wait_for()
    shown: list[str] = page.evaluate(MOTIONS)
    return shown


def animations(page: Any, on: bool) -> None:
    """The Settings' Animations turned ``on`` or off, by the player."""
    page.locator("#btn-settings").click()
    page.locator("#set-animate").set_checked(on)
    page.keyboard.press("Escape")
    page.locator("#dlg-settings").wait_for(state="hidden")


def test_animations_off_in_the_settings_stop_every_movement(api: Api, open_game: Any) -> None:
    """With Animations off in the Settings, the cards no longer flew to
    their places, but the style sheet's movements went on (they stopped for
    the system's reduced motion alone): a hint's card still bobbed four
    times, a refused card shook, the thinking Hint button pulsed and a toast
    slid in. Animations off stops them all, as the system's reduced motion
    does, also when that is turned on while the page is open."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=1), "c1"))
    assert motions(page) == ["pulse", "refuse", "thinking", "0.2s, 0.2s"]
    page.emulate_media(reduced_motion="reduce")
    assert motions(page) == STILL
    page.emulate_media(reduced_motion="no-preference")
    animations(page, False)
    assert motions(page) == STILL


# WCAG's relative luminance of each suit's colour on the board (by suit),
# and of a card's paper ("paper").
SUIT_LUMINANCES = """() => {COLOURS
  const card = (suit) => getComputedStyle(document.querySelector(`#board .card[data-card$='${suit}']`));
  const shown = Object.fromEntries([...'HDSC'].map((suit) => [suit, luminance(rgba(card(suit).color))]));
  return { ...shown, paper: luminance(rgba(card('S').backgroundColor)) };
}""".replace("COLOURS", COLOURS)


def contrast(lighter: float, darker: float) -> float:
    """WCAG's contrast ratio of two relative luminances."""
    return (lighter + 0.05) / (darker + 0.05)


# The colour of one card of each suit on the board, by suit.
SUIT_COLOURS = """() => Object.fromEntries([...'HDSC'].map((suit) => {
  const card = document.querySelector(`#board .card[data-card$='${suit}']`);
  return [suit, getComputedStyle(card).color];
}))"""


def test_the_four_colour_pack_gives_each_suit_its_own_colour(api: Api, open_game: Any) -> None:
    """Hearts and diamonds shared one red, spades and clubs one black: told
    apart by their pips' shapes alone, 9 px on an upright phone's piles.
    Settings → Four-colour pack (by keyboard here) draws diamonds blue and
    clubs green, kept for the next visit; off by default. The four differ
    in brightness as well as in hue, each at least 1.4:1 from the others
    (hearts and clubs were 1.1:1: one grey to a player who cannot tell red
    from green)."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c1"), locale="de-DE")
    shared = page.evaluate(SUIT_COLOURS)
    assert shared["H"] == shared["D"] and shared["S"] == shared["C"]
    page.locator("#btn-settings").focus()
    page.keyboard.press("Enter")
    page.locator("#set-colours").focus()
    page.keyboard.press(" ")
    assert page.locator("#set-colours").is_checked()
    assert page.get_by_role("checkbox", name="Vierfarbiges Blatt").count() == 1
    page.keyboard.press("Escape")
    own = page.evaluate(SUIT_COLOURS)
    assert len(set(own.values())) == 4 and own["H"] == shared["H"] and own["S"] == shared["S"], own
    # (told apart by their brightness too: red and green, blue and black
    # look alike to many; each 4.5:1 on the card)
    shown = page.evaluate(SUIT_LUMINANCES)
    paper = shown.pop("paper")
    darkest_first = sorted(shown.values())
    assert all(contrast(paper, suit) >= 4.5 for suit in darkest_first), shown
    assert all(contrast(b, a) >= 1.4 for a, b in pairwise(darkest_first)), shown
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    assert page.evaluate(SUIT_COLOURS) == own
