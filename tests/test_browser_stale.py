"""Stale views and late answers in a real browser (Debian's Chromium
through Playwright): a change is sent with the revision of the position the
page showed, a click or a drop on a position that has since changed does
nothing, an answer for a game, a replay or a step no longer shown is
dropped, a failed read at start-up is tried again, and the address names
the game shown."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from browser_support import Api, moves_seen, press_on, settled, slow_animations, top, until
from terrace.refusals import Reason, Refusal
from terrace.web.i18n import WebRefusal
from test_web_coach import SMALL, SMALL_DEAL, thrown_away

pytestmark = pytest.mark.browser

CONFLICT_409 = "Failed to load resource: the server responded with a status of 409 (Conflict)"


def stored(api: Api, game: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = api.client.get(f"/api/games/{game['id']}").json()
    return data


def played(api: Api, game: dict[str, Any]) -> list[str]:
    """The moves of ``game`` as the server has them."""
    moves: list[str] = api.client.get(f"/api/games/{game['id']}/line").json()["moves"]
    return moves


def delay(page: Any, pattern: str, *ms: int) -> None:
    """Send the page's requests whose address matches ``pattern`` (a regular
    expression) only after the next of ``ms`` milliseconds (the last one
    again and again). Done in the page: a route handler that sleeps would
    hold up the test's own clicks too."""
    page.evaluate("""([pattern, delays]) => {
      const real = window.fetch;
      let i = 0;
      window.fetch = async (url, init) => {
        if (new RegExp(pattern).test(String(url))) {
          const wait = delays[Math.min(i++, delays.length - 1)];
          await new Promise((resolve) => { setTimeout(resolve, wait); });
        }
        return real(url, init);
      };
    }""", [pattern, list(ms)])


class Gate:
    """Holds back the page's requests to ``pattern`` (a glob) while closed,
    until ``open``: an answer comes after the test's next clicks or keys,
    however quick or slow the machine. Installed before the page loads
    (``open_game(game, before_goto=gate.install)``): a route added to a
    page already loaded may miss its next request."""

    def __init__(self, pattern: str = "**/moves") -> None:
        self.pattern = pattern
        self.closed = False
        self.held: list[Any] = []

    def install(self, page: Any) -> None:
        page.route(self.pattern, self._route)

    def _route(self, route: Any) -> None:
        if self.closed:
            self.held.append(route)
        else:
            route.continue_()

    def close(self) -> None:
        self.closed = True

    def open(self, page: Any) -> None:
        """Wait for a request held back (the page sends it a moment after
        the click), then let it and any later ones through."""
        for _ in range(400):
            if self.held:
                break
            page.wait_for_timeout(25)
        assert self.held, f"no request to {self.pattern} was held back"
        self.closed = False
        while self.held:
            self.held.pop(0).continue_()


Gated = tuple[dict[str, Any], Gate, Any]


@pytest.fixture
def gated(api: Api, open_game: Any) -> Gated:
    """Deal 7 after the base card c1, opened on a page whose answers to
    moves a :class:`Gate` can hold: the game, the gate (open) and the page."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    gate = Gate()
    return game, gate, open_game(game, before_goto=gate.install)


def over(page: Any, pile: str, steps: int = 6) -> None:
    """Move the mouse (pressed: dragging) to 30 px below the top of ``pile``'s middle."""
    target = page.locator(f"[data-pile='{pile}']").bounding_box()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + 30, steps=steps)


def new_game_by_dialog(page: Any, deal: int) -> None:
    old = page.evaluate("document.body.dataset.game")
    page.locator("#btn-new").click()
    page.locator("#new-deal").fill(str(deal))
    page.locator("#new-start").click()
    confirm = page.locator("#dlg-confirm[open] #confirm-yes")
    changed = page.locator(f"body:not([data-game='{old}'])")
    until(lambda: bool(confirm.count() or changed.count()))
    if confirm.count():
        confirm.click()
    changed.wait_for(state="attached")


def with_assist(open_game: Any, game: dict[str, Any], assist: str, pattern: str) -> tuple[Any, Gate]:
    """``game`` opened with ``assist`` on, and a :class:`Gate` (closed) on
    the page's requests to ``pattern``: the page and the gate."""
    gate = Gate(pattern)
    gate.close()

    def before(page: Any) -> None:
        gate.install(page)
        page.add_init_script(f"localStorage.setItem('terrace.assist.{assist}', 'on')")

    return open_game(game, before_goto=before), gate


def caught_up(page: Any, open_game: Any, moves: int) -> None:
    """Wait for the page to say it shows the game as it is now (a 409
    conflict, the console's only error), at ``moves`` moves."""
    page.locator("#toast.show", has_text="the page now shows the latest position").wait_for()
    moves_seen(page, moves)
    assert open_game.errors == [CONFLICT_409]
    open_game.errors.clear()


def test_a_stale_tab_does_not_play_on_a_position_it_never_showed(api: Api, open_game: Any) -> None:
    # Deal 1: after c1 t5f the page shows JD on pile 3; another client takes
    # t5f back and plays t5t3 (the same number of moves), which puts 10C there.
    game = api.play(api.new(variant="terrace", deal_number=1), "c1", "t5f")
    page = open_game(game)
    assert top(page, "t3").get_attribute("data-card") == "JD"
    api.client.post(f"/api/games/{game['id']}/undo", json={})
    api.play(game, "t5t3")
    top(page, "t3").dblclick()
    page.locator("#toast.show", has_text="the page now shows the latest position").wait_for()
    assert played(api, game) == ["c1", "t5t3"]
    until(lambda: top(page, "t3").get_attribute("data-card") == "TC")
    assert open_game.errors == [CONFLICT_409]
    open_game.errors.clear()


def test_a_hint_refused_as_stale_catches_up(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    api.play(game, "s")  # another tab draws a card
    page.locator("#btn-hint").click()
    caught_up(page, open_game, 2)
    assert page.locator("[data-pile='waste'] > .card").count() == 1


def test_verdicts_refused_as_stale_catch_up(api: Api, open_game: Any) -> None:
    # The base cards' verdicts (an assist) were asked without the position
    # seen: chosen in another tab meanwhile, they were answered for the
    # choice that was gone and shown on it; refused now, the page catches up.
    game = api.new(variant="terrace", deal_number=7)
    page, gate = with_assist(open_game, game, "verdicts", "**/analysis")
    api.play(game, "c2")  # another tab chooses the base card
    gate.open(page)
    caught_up(page, open_game, 1)
    assert page.locator(".verdict").count() == 0
    assert "could not judge" not in page.locator("#prompt").inner_text()


def test_a_warning_refused_as_stale_catches_up_and_sends_no_move(api: Api, open_game: Any) -> None:
    # The warning (an assist) asked before a draw is refused: another tab
    # drew meanwhile. The page catches up and no longer sends the draw
    # anyway, to be refused in its turn (a second 409).
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page, gate = with_assist(open_game, game, "warn", "**/warn")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/moves") else None)
    page.locator("[data-pile='stock']").click()
    api.play(game, "s")  # another tab draws
    gate.open(page)
    caught_up(page, open_game, 2)
    settled(page)
    assert sent == [] and played(api, game) == ["c1", "s"]


def test_a_triple_click_plays_once_and_quietly(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    assert game["sources"]["t1"]["auto"] == "t1t8"
    page = open_game(game)
    top(page, "t1").click(click_count=3)
    moves_seen(page, 2)
    settled(page)
    assert played(api, game) == ["c1", "t1t8"]
    assert page.locator("#toast.show.error").count() == 0  # (and no refused request: see open_game)


def test_the_third_click_of_a_run_plays_nothing_even_after_the_answer(api: Api, open_game: Any) -> None:
    # The race a loaded machine showed: the first move's answer came back
    # between the second and the third click, and the third click played
    # the card the move uncovered (t1t9). It picks that card up instead:
    # a fast player's next click after a double click was ignored, and the
    # click on the pile meant to take the card picked up that pile's card.
    # A fourth click is a double click again.
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    box = top(page, "t1").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for count in (1, 2):
        page.mouse.down(click_count=count)
        page.mouse.up(click_count=count)
    moves_seen(page, 2)
    uncovered = top(page, "t1").get_attribute("data-card")
    page.mouse.down(click_count=3)
    page.mouse.up(click_count=3)
    settled(page)
    assert played(api, game) == ["c1", "t1t8"]
    assert page.locator(".card.selected").count() == 1
    assert page.locator(f"[data-pile='t1'] > .card.selected[data-card='{uncovered}']").count() == 1
    page.mouse.down(click_count=4)
    page.mouse.up(click_count=4)
    moves_seen(page, 3)
    assert played(api, game) == ["c1", "t1t8", "t1t9"]


def test_a_third_click_before_the_answer_does_nothing(api: Api, gated: Gated) -> None:
    # While the pile still shows the card the double click sent (its answer
    # held back), the third click is the tail of that gesture: nothing is
    # picked up, and nothing more is played once the answer comes.
    game, gate, page = gated
    gate.close()
    box = top(page, "t1").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for count in (1, 2, 3):
        page.mouse.down(click_count=count)
        page.mouse.up(click_count=count)
    assert page.locator(".card.selected").count() == 0
    gate.open(page)
    moves_seen(page, 2)
    settled(page)
    assert played(api, game) == ["c1", "t1t8"]
    assert page.locator(".card.selected").count() == 0


def test_a_quick_run_of_clicks_sends_a_card_each_with_single_clicks_set(api: Api, open_game: Any) -> None:
    # Deal 3: 4♠ on pile 4 goes home, then the 5♠ under it. With a single
    # click set, a mouse's second click of a run is a double click's (one
    # card), but the third, on the 5♠ the first click uncovered, was ignored
    # too (the stock draws on it): a player clicking through a pile saw
    # every click after the first do nothing.
    game = api.play(api.new(variant="terrace", deal_number=3), "c1")
    assert game["sources"]["t4"]["auto"] == "t4f"
    page = open_game(game)
    page.evaluate("localStorage.setItem('terrace.click', 'single')")
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    box = top(page, "t4").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for count in (1, 2):
        page.mouse.down(click_count=count)
        page.mouse.up(click_count=count)
    moves_seen(page, 2)
    settled(page)
    assert played(api, game) == ["c1", "t4f"]
    page.mouse.down(click_count=3)
    page.mouse.up(click_count=3)
    moves_seen(page, 3)
    assert played(api, game) == ["c1", "t4f", "t4f"]


def test_a_card_dragged_on_its_way_is_that_card(api: Api, open_game: Any) -> None:
    # Deal 2: after c1 s the waste holds KC; the next draw turns 7S, which
    # goes on pile 8. A drag begun where 7S lands, while it is still on its
    # way (here slowed down), took the card under it: a bubble said that
    # KC is covered and nothing moved.
    game = api.play(api.new(variant="terrace", deal_number=2), "c1", "s")
    page = open_game(game)
    slow_animations(page)
    page.locator("[data-pile='stock']").click()
    page.wait_for_selector("[data-pile='waste'] > .card[data-card='7S']")
    assert page.evaluate("document.getAnimations().length") > 0  # (on its way)
    box = top(page, "waste").bounding_box()
    press_on(page, box)
    over(page, "t8", steps=8)
    assert page.locator(".ghost[data-card='7S']").count() == 1
    page.mouse.up()
    moves_seen(page, 4)
    assert played(api, game) == ["c1", "s", "s", "wt8"]
    assert page.locator("#why").is_hidden()


def test_a_card_selected_before_an_answer_stays_selected(api: Api, gated: Gated) -> None:
    # Space draws, 1 selects 6H on pile 1 while the draw's answer is on its
    # way, 8 sends it to pile 8 after the answer came: the answer put the
    # selection down, and 8 selected pile 8's card instead. By mouse alike.
    game, gate, page = gated
    assert game["sources"]["t1"]["targets"] == {"t8": "t1t8"}
    gate.close()
    page.keyboard.press(" ")
    page.keyboard.press("1")
    assert page.locator("[data-pile='t1'] > .card.selected[data-card='6H']").count() == 1
    gate.open(page)
    moves_seen(page, 2)
    assert page.locator("[data-pile='t1'] > .card.selected[data-card='6H']").count() == 1
    assert "6♥ selected" in page.locator("#prompt").inner_text()
    page.keyboard.press("8")
    moves_seen(page, 3)
    assert played(api, game) == ["c1", "s", "t1t8"]
    gate.close()
    page.locator("[data-pile='stock']").click()
    top(page, "t1").click()
    gate.open(page)
    moves_seen(page, 4)
    top(page, "t9").click()
    moves_seen(page, 5)
    assert played(api, game) == ["c1", "s", "t1t8", "s", "t1t9"]


def drawn_behind_a_gate(api: Api, open_game: Any) -> Gated:
    """Deal 7 after c1 and a draw, opened without motion behind a closed
    :class:`Gate`, the stock clicked and the pointer over the waste: the
    game (as before the click), the gate and the page."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s")
    gate = Gate()
    page = open_game(game, before_goto=gate.install, reduced_motion="reduce")
    gate.close()
    page.locator("[data-pile='stock']").click()
    box = top(page, "waste").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    return game, gate, page


def test_a_double_click_plays_the_card_its_first_click_was_on(api: Api, open_game: Any) -> None:
    # Deal 7: after c1 s the waste's card goes on pile 9; the next draw's
    # card would go on pile 2. The stock is clicked, then the waste double
    # clicked, the draw's answer coming between the two clicks: the second
    # click sent home the card just drawn, which the first never saw. (No
    # animation: the card drawn lies in its place at once. A draw by key
    # after the double click waits its turn behind anything the double
    # click played: once it is seen, the double click has done its all.)
    game, gate, page = drawn_behind_a_gate(api, open_game)
    assert game["sources"]["waste"]["auto"] == "wt9"
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    gate.open(page)
    moves_seen(page, 3)
    assert stored(api, game)["sources"]["waste"]["auto"] == "wt2"
    page.mouse.down(click_count=2)
    page.mouse.up(click_count=2)
    page.keyboard.press(" ")
    moves_seen(page, 4)
    assert played(api, game) == ["c1", "s", "s", "s"]


def test_a_double_click_whose_first_press_came_before_an_answer_plays_nothing(
        api: Api, open_game: Any) -> None:
    # As above, the draw's answer coming while the double click's first
    # click is held down: the board drawn anew took that click away, and
    # the second sent home the card just drawn.
    game, gate, page = drawn_behind_a_gate(api, open_game)
    page.mouse.down(click_count=1)
    gate.open(page)
    moves_seen(page, 3)
    page.mouse.up(click_count=1)
    page.mouse.down(click_count=2)
    page.mouse.up(click_count=2)
    page.keyboard.press(" ")
    moves_seen(page, 4)
    assert played(api, game) == ["c1", "s", "s", "s"]


def test_a_refused_drop_of_a_card_that_has_moved_is_not_explained(api: Api, gated: Gated) -> None:
    # 6H is double clicked onto pile 8 and, before that move's answer, also
    # dropped on pile 5, where it cannot go: by the time the refusal was
    # looked at, pile 1 showed another card, and the bubble explained that
    # one, in the window's corner (the card it was shown by had gone).
    # (A draw by key after the drop waits its turn behind the refusal.)
    game, gate, page = gated
    card = top(page, "t1")
    assert card.get_attribute("data-card") == "6H"
    box = card.bounding_box()
    gate.close()
    card.dblclick()
    press_on(page, box)
    over(page, "t5")
    page.mouse.up()
    page.keyboard.press(" ")
    gate.open(page)
    moves_seen(page, 3)
    assert page.locator("#why").is_hidden(), page.locator("#why").inner_text()
    assert played(api, game) == ["c1", "t1t8", "s"]


def near(page: Any, card: Any) -> bool:
    """True when the bubble that says why lies just above or below ``card``
    (a locator), across from part of it (it moves sideways off the middle
    where that hides fewer cards' indices: explain.js bubbleSpots)."""
    box = page.locator("#why").bounding_box()
    rect = card.bounding_box()
    across = box["x"] < rect["x"] + rect["width"] and rect["x"] < box["x"] + box["width"]
    below = abs(box["y"] - (rect["y"] + rect["height"])) < 40
    above = abs(box["y"] + box["height"] - rect["y"]) < 40
    return across and (below or above)


def test_a_card_pressed_before_an_answer_is_explained_beside_it(gated: Gated) -> None:
    # A covered card of the terrace pressed while a move's answer is on its
    # way: the bubble waits for it, and the card it was to be shown by had
    # gone with the board drawn anew: it came up in the window's corner.
    _, gate, page = gated
    gate.close()
    top(page, "t7").dblclick()
    pressed = page.locator("[data-pile='reserve'] > .card").first
    code = pressed.get_attribute("data-card")
    pressed.click()
    gate.open(page)
    moves_seen(page, 2)
    page.locator("#why").wait_for()
    card = page.locator(f"[data-pile='reserve'] > .card[data-card='{code}']").first
    assert near(page, card), page.locator("#why").bounding_box()


def test_a_refused_drop_before_an_answer_is_explained_beside_the_card(gated: Gated) -> None:
    # 6H dropped where it cannot go while another move's answer is on its
    # way: the refusal waits for it, and the bubble came up in the window's
    # corner (the card it was to be shown by had gone with the board).
    _, gate, page = gated
    gate.close()
    top(page, "t7").dblclick()
    box = top(page, "t1").bounding_box()
    press_on(page, box)
    over(page, "t5")
    page.mouse.up()
    gate.open(page)
    moves_seen(page, 2)
    page.locator("#why", has_text="6♥ cannot go on").wait_for()
    assert near(page, top(page, "t1")), page.locator("#why").bounding_box()


def test_a_card_pressed_before_an_answer_and_dragged_after_it_moves_nothing(
        api: Api, gated: Gated) -> None:
    # 6H is double clicked onto pile 8, and pressed again before that
    # move's answer; the drag begins after it, when 4S lies on pile 1: the
    # drop on pile 9 played 4S there, a card the player never took. (A
    # draw by key after the drop waits its turn behind anything it played.)
    game, gate, page = gated
    card = top(page, "t1")
    box = card.bounding_box()
    gate.close()
    card.dblclick()
    press_on(page, box)
    gate.open(page)
    moves_seen(page, 2)
    assert stored(api, game)["sources"]["t1"]["targets"] == {"t9": "t1t9"}
    over(page, "t9")
    page.mouse.up()
    page.keyboard.press(" ")
    moves_seen(page, 3)
    assert played(api, game) == ["c1", "t1t8", "s"]
    page.locator(".ghost").wait_for(state="detached")


def test_a_quick_click_on_the_card_just_put_down_picks_it_up(api: Api, open_game: Any) -> None:
    # Deal 9: 7♣ selected on pile 9, put on pile 1 by a click on its top
    # card, and clicked at once where it lies now: the browser counts that
    # click as the second of a double click (a tap on a phone, near the
    # first, within its double-tap time). The first click was on another
    # card, so the second did nothing: the card was not picked up, and the
    # player's next tap, meant to put it on pile 2, picked up pile 2's card.
    game = api.play(api.new(variant="terrace", deal_number=9), "c1")
    assert game["sources"]["t9"]["targets"]["t1"] == "t9t1"
    page = open_game(game)
    top(page, "t9").click()
    box = top(page, "t1").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    moves_seen(page, 2)
    settled(page)
    box = top(page, "t1").bounding_box()
    assert top(page, "t1").get_attribute("data-card") == "7C"
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down(click_count=2)
    page.mouse.up(click_count=2)
    assert page.locator("[data-pile='t1'] > .card.selected").get_attribute("data-card") == "7C"
    page.locator("[data-pile='t2']").click()
    moves_seen(page, 3)
    assert played(api, game) == ["c1", "t9t1", "t1t2"]
    # A double click on it after that first click sends it, as any double click does.
    box = top(page, "t2").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for count in (1, 2):
        page.mouse.down(click_count=count)
        page.mouse.up(click_count=count)
    moves_seen(page, 4)
    assert played(api, game) == ["c1", "t9t1", "t1t2", "t2t1"]


def test_quick_taps_on_a_pile_each_send_a_card_with_single_taps_set(api: Api, open_game: Any) -> None:
    # Deal 3: 4♠ on pile 4 goes home, then the 5♠ under it. With "send a
    # card home with a single tap" set, a phone counts a quick second tap
    # on the same spot as the second of a double tap (detail 2), which the
    # page took for the tail of a mouse's double click and ignored: the
    # player tapping through a pile saw every other tap do nothing. Here
    # the second tap is given its detail 2 itself (a real one depends on
    # how quickly the first answer comes).
    game = api.play(api.new(variant="terrace", deal_number=3), "c1")
    assert game["sources"]["t4"]["auto"] == "t4f"
    page = open_game(game, has_touch=True, viewport={"width": 390, "height": 844})
    page.evaluate("localStorage.setItem('terrace.click', 'single')")
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    top(page, "t4").tap()
    moves_seen(page, 2)
    settled(page)
    top(page, "t4").evaluate("""(card) => {
      const box = card.getBoundingClientRect();
      const at = { bubbles: true, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 };
      card.dispatchEvent(new PointerEvent('pointerdown', { ...at, pointerType: 'touch', isPrimary: true }));
      card.dispatchEvent(new PointerEvent('pointerup', { ...at, pointerType: 'touch', isPrimary: true }));
      card.dispatchEvent(new MouseEvent('click', { ...at, detail: 2 }));
    }""")
    moves_seen(page, 3)
    assert played(api, game) == ["c1", "t4f", "t4f"]


def test_a_board_drawn_again_during_a_drag_cancels_the_drop(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    card = top(page, "t1")
    assert card.get_attribute("data-card") == "6H"
    box = card.bounding_box()
    press_on(page, box)
    page.mouse.move(box["x"] + 40, box["y"] + 40, steps=4)
    assert page.locator(".ghost").count() == 1
    # Another window plays the dragged card away and says so: this page is drawn again.
    page.evaluate("""async (id) => {
      const r = await fetch(`/api/games/${id}/moves`, {method: 'POST',
        headers: {'content-type': 'application/json'}, body: JSON.stringify({move: 't1t8'})});
      const g = await r.json();
      new BroadcastChannel('terrace.games').postMessage({id, revision: g.revision});
    }""", game["id"])
    moves_seen(page, 2)
    assert top(page, "t1").get_attribute("data-card") != "6H"
    target = page.locator("[data-pile='t9']").bounding_box()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + 10, steps=6)
    page.mouse.up()
    settled(page)
    assert played(api, game) == ["c1", "t1t8"]
    assert page.locator(".ghost").count() == 0


def test_a_click_on_the_stock_pressed_before_a_redraw_still_draws(api: Api, open_game: Any) -> None:
    # The first draw's answer comes late; the second click is pressed on the
    # stock shown before that answer and released on the one drawn after it
    # (the browser sends no click then: the two are different elements;
    # since the board keeps its piles' elements, the stock's card is made
    # anew, as its count changed: the release is on another card).
    # (The answer is held back until the second press: a delay of 800 ms
    # could pass before it on a loaded machine.)
    game = api.play(api.new(variant="admirals-patience", deal_number=12), "c1")
    gate = Gate()
    page = open_game(game, before_goto=gate.install)
    box = page.locator("[data-pile='stock']").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    gate.close()
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    at = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down(click_count=1)
    pressed = page.evaluate_handle("([x, y]) => document.elementFromPoint(x, y)", at)
    gate.open(page)
    moves_seen(page, 2)
    assert not pressed.evaluate("node => node.isConnected")  # (the stock was drawn anew)
    page.mouse.up(click_count=1)
    moves_seen(page, 3)
    settled(page)
    assert played(api, game) == ["c1", "s", "s"]
    # A double click's second press drawn over stays a double click: one card.
    gate.close()
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    page.mouse.down(click_count=2)
    gate.open(page)
    moves_seen(page, 4)
    page.mouse.up(click_count=2)
    settled(page)
    assert played(api, game) == ["c1", "s", "s", "s"]


def test_a_base_card_pressed_before_the_verdicts_came_is_chosen(api: Api, open_game: Any) -> None:
    # The verdicts (an assist) come while the base card is pressed: the
    # board, drawn again with them, replaced the card between the press and
    # the release, the browser sent no click, and no base card was chosen.
    game = api.new(variant="terrace", deal_number=7)
    page, gate = with_assist(open_game, game, "verdicts", "**/analysis")
    box = top(page, "t2").bounding_box()
    press_on(page, box)
    gate.open(page)
    page.locator(".verdict").first.wait_for()
    page.mouse.up()
    moves_seen(page, 1)
    assert played(api, game) == ["c2"]


def test_a_late_hint_is_not_shown_on_the_next_game(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    gate = Gate("**/hint")
    page = open_game(game, before_goto=gate.install)
    gate.close()
    page.locator("#btn-hint").click()
    new_game_by_dialog(page, 5)
    gate.open(page)
    page.locator("#btn-hint:not([aria-busy])").wait_for()  # the hint's answer has come
    assert page.locator(".hint-src, .hint-dst").count() == 0
    assert "Hint" not in page.locator("#prompt").inner_text()
    assert page.locator("#dlg-end[open]").count() == 0


def test_a_late_analysis_does_not_take_the_page_back_to_the_replay(api: Api, open_game: Any) -> None:
    moves, _ = thrown_away()
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves)
    gate = Gate("**/coach")
    page = open_game(game, before_goto=gate.install, reduced_motion="reduce")
    gate.close()
    page.locator("dialog.end[open] #end-analyse").click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()  # stuck, not over: an assist, asked first
    page.locator("#replay-bar:not([hidden])").wait_for()
    page.locator("#replay-exit").click()
    page.locator("#replay-bar[hidden]").wait_for(state="attached")
    new_game_by_dialog(page, 8)
    shown = page.evaluate("document.body.dataset.game")
    gate.open(page)
    page.locator("#coach-note:not([data-state])").wait_for(state="attached")  # the analysis has come
    assert page.evaluate("document.body.dataset.game") == shown != game["id"]
    assert page.locator("#replay-bar").get_attribute("hidden") is not None
    assert page.locator("#coach-note").get_attribute("hidden") is not None


def test_replay_steps_wait_their_turn_and_a_late_one_is_dropped(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "t1t8", "s", "s", "s", "s")
    page = open_game(game)
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats[open] ol.recent li").first.get_by_role("button", name="Replay").click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    # Uneven answers: the first step is slower than the next ones, then
    # Back to the game while a step is on its way.
    delay(page, "/position[?]", 1000, 100, 500, 1500)
    for _ in range(3):
        page.locator("#replay-next").click()
    page.locator("#prompt", has_text="move 3 of 6").wait_for()
    settled(page)
    assert "move 3 of 6" in page.locator("#prompt").inner_text()
    page.locator("#replay-next").click()
    page.locator("#replay-exit").click()
    page.locator("#replay-bar[hidden]").wait_for(state="attached")  # (after the late step: it waits its turn)
    page.locator("[data-pile='stock']").click()
    moves_seen(page, 7)


def test_a_failed_read_at_start_up_is_tried_again_not_taken_for_no_game(
        api: Api, browser: Any, server: str) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "t1t8", "s")
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-GB")
    page = context.new_page()
    failures = {"left": 1}

    def once(route: Any) -> None:
        if failures["left"]:
            failures["left"] -= 1
            route.fulfill(status=503, content_type="application/json",
                          body=json.dumps({"error": "the store is busy", "code": "store-unavailable"}))
        else:
            route.continue_()
    page.route("**/api/current-game", once)
    page.goto(server)
    page.locator("#toast.show", has_text="could not be loaded (the store is busy)").wait_for()
    page.wait_for_selector("body[data-ready='true']")
    assert page.evaluate("document.body.dataset.game") == game["id"]
    moves_seen(page, 3)
    assert api.client.get("/api/games?recent=1").json()["games"][0]["id"] == game["id"]
    context.close()


def test_the_address_names_the_game_shown(api: Api, open_game: Any) -> None:
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game)
    new_game_by_dialog(page, 55)
    shown = page.evaluate("document.body.dataset.game")
    assert f"game={shown}" in page.url
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    assert page.evaluate("document.body.dataset.game") == shown


def test_a_reload_reopens_the_game_resumed_from_the_statistics(api: Api, open_game: Any, server: str) -> None:
    """The page at an address that names no game, an older game resumed
    from the statistics and not played yet: a reload showed the game
    changed last (the server's current game) instead of the one shown."""
    older = api.play(api.new(variant="terrace", deal_number=4417), "c2")
    newer = api.play(api.new(variant="terrace", deal_number=4418), "c2")
    page = open_game(newer)
    page.goto(server)
    page.wait_for_selector(f"body[data-ready='true'][data-game='{newer['id']}']")
    page.locator("#btn-stats").click()
    item = page.locator("#dlg-stats[open] ol.recent li", has_text="Deal 4417").first
    item.get_by_role("button", name="Resume").click()
    page.wait_for_selector(f"body[data-game='{older['id']}']")
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    assert page.evaluate("document.body.dataset.game") == older["id"]
    assert "game=" not in page.url


def _searching(api: Api, open_game: Any, start: Callable[[Any], None]) -> tuple[dict[str, Any], Any]:
    """A game with no move yet (no Leave question) whose page has asked for
    a new winnable deal (``start`` presses Start), the answer held back
    2.5 s: the game and the page, the form saying it searches."""
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, reduced_motion="reduce")
    delay(page, "/api/games$", 2500)
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-winnable").check()
    start(page)
    page.locator("#dlg-new .form-status", has_text="Looking for a deal the solver proves winnable").wait_for()
    return game, page


def test_the_search_for_a_winnable_deal_says_its_limit_and_counts(api: Api, open_game: Any) -> None:
    """The form said "Looking for a deal the solver proves winnable…" and
    nothing of how long that might take: it now says the server's limit
    (``/api/variants``' ``winnable_seconds``, the budget that stops the
    search) and counts the seconds."""
    game, page = _searching(api, open_game, lambda page: page.locator("#new-start").click())
    limit = page.evaluate("async () => (await (await fetch('/api/variants')).json()).winnable_seconds")
    words = page.locator("#dlg-new .form-status")
    words.filter(has_text=f"at most {limit:g} s").wait_for()
    words.filter(has_text="1 s so far").wait_for()  # (the answer is held back 2.5 s)
    page.locator("#new-start:not([disabled])").wait_for(state="attached")
    page.wait_for_function(f"document.body.dataset.game !== '{game['id']}'")


def test_a_winnable_deal_found_after_the_dialog_closed_does_not_replace_the_game(
    api: Api, open_game: Any
) -> None:
    """The search takes seconds: the form says it searches; a player who
    closed the New game dialog meanwhile and played on keeps that game."""
    game, page = _searching(api, open_game, lambda page: page.locator("#new-start").click())
    page.locator("#dlg-new button.close").click()
    top(page, "t1").click()
    moves_seen(page, 1)
    assert page.locator("#new-start").is_disabled()  # (the answer awaited: Start is off until it comes)
    page.locator("#new-start:not([disabled])").wait_for(state="attached")  # it came
    assert page.evaluate("document.body.dataset.game") == game["id"]
    assert page.evaluate("document.body.dataset.moves") == "1"


def test_escape_closes_the_new_game_dialog_while_it_searches(api: Api, open_game: Any) -> None:
    """Start goes off while the deal is searched for: the focus waits on
    the dialog's close button, Escape closes the dialog, and no key of the
    board acts on the game behind it meanwhile."""
    def start_by_key(page: Any) -> None:
        page.locator("#new-start").focus()
        page.keyboard.press("Enter")

    game, page = _searching(api, open_game, start_by_key)
    assert page.evaluate("document.activeElement.matches('#dlg-new button.close')")
    page.evaluate("document.activeElement.blur()")  # the focus on the page's body: still the dialog's keys
    page.keyboard.press("1")  # no pile is selected behind the dialog
    page.keyboard.press("Escape")
    page.wait_for_selector("#dlg-new", state="hidden")
    assert page.locator(".card.selected").count() == 0
    assert page.locator("#new-start").is_disabled()  # (the answer awaited: Start is off until it comes)
    page.locator("#new-start:not([disabled])").wait_for(state="attached")  # it came, and is dropped
    assert page.evaluate("document.body.dataset.game") == game["id"]
    assert page.evaluate("document.body.dataset.moves") == "0"


def test_a_failed_start_gives_the_focus_back_to_start(api: Api, open_game: Any) -> None:
    game = api.new(variant="terrace", deal_number=7)
    page = open_game(game, reduced_motion="reduce")
    page.route("**/api/games", lambda route: route.fulfill(
        status=503, json={"error": "the solver is busy", "code": "solver-busy"}
    ) if route.request.method == "POST" else route.continue_())
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-start").focus()
    page.keyboard.press("Enter")
    page.locator("#dlg-new .form-error", has_text="the solver is busy").wait_for()
    assert page.evaluate("document.activeElement.id") == "new-start"
    assert all("503" in error for error in open_game.errors)  # (the browser logs the refused request)
    open_game.errors.clear()


@pytest.mark.parametrize(("locale", "language", "words"), [
    ("de-DE", "de", "Dein Spiel konnte nicht geladen werden (Die Datenbank ist gerade nicht benutzbar "
                    "(games.sqlite: Die Festplatte ist voll)); neuer Versuch in 1 s."),
    ("en-GB", "en", "Your game could not be loaded (the database games.sqlite cannot be used: the disk is "
                    "full); trying again in 1 s."),
])
def test_a_failed_read_at_start_up_is_said_as_one_sentence_in_german_too(
        api: Api, browser: Any, server: str, locale: str, language: str, words: str) -> None:
    """A German refusal is a sentence, its full stop included, and the page
    put it in parentheses inside its own: "Dein Spiel konnte nicht geladen
    werden (Die Datenbank ist gerade nicht benutzbar (games.sqlite: Die
    Festplatte ist voll).); neuer Versuch in 1 s." The stop is dropped
    inside the parentheses, as the server drops it in a nested reason."""
    api.play(api.new(variant="terrace", deal_number=7), "c1")
    refused = Reason(WebRefusal.STORE_UNAVAILABLE, problem=Reason(
        Refusal.DATABASE_UNUSABLE, name="games.sqlite", fault=Reason(Refusal.FAULT_DISK_FULL)))
    context = browser.new_context(viewport={"width": 320, "height": 640}, locale=locale)
    page = context.new_page()
    failures = {"left": 1}

    def once(route: Any) -> None:
        if failures["left"]:
            failures["left"] -= 1
            route.fulfill(status=503, content_type="application/json",
                          body=json.dumps({"error": refused.text(language), "code": "store-unavailable"}))
        else:
            route.continue_()
    page.route("**/api/current-game", once)
    page.goto(server)
    toast = page.locator("#toast.show", has_text="s.")
    toast.wait_for()
    assert toast.inner_text() == words
    page.wait_for_selector("body[data-ready='true']")
    context.close()
