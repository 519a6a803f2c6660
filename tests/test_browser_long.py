"""Hours of play in one page, in a real browser: what the page holds
(its DOM nodes, attached or not, its event listeners, its JavaScript heap,
read from Chrome's DevTools protocol after a garbage collection) must not
grow with the length of a game or with the dialogs opened again and again.

The waits here use locators, never ``wait_for_selector`` (its element
handle keeps the node alive, and would be counted).

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import ATTACHED, Api, moves_seen

pytestmark = pytest.mark.browser

class Held:
    """What the page holds now: ``nodes`` in the document, ``detached``
    nodes still alive outside it, event ``listeners`` and ``heap`` bytes."""

    def __init__(self, page: Any, cdp: Any) -> None:
        for _ in range(2):
            cdp.send("HeapProfiler.collectGarbage")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        self.nodes = int(page.evaluate(ATTACHED))
        self.detached = int(metrics["Nodes"]) - self.nodes
        self.listeners = int(metrics["JSEventListeners"])
        self.heap = int(metrics["JSHeapUsedSize"])

    def __repr__(self) -> str:
        return (f"Held(nodes={self.nodes}, detached={self.detached}, listeners={self.listeners}, "
                f"heap={self.heap})")


def measure(page: Any) -> Any:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    return lambda: Held(page, cdp)


def test_the_statistics_opened_again_and_again_hold_nothing_more(api: Api, open_game: Any) -> None:
    """Each opening of the statistics added a listener for the window's
    resizes that stayed until a resize came, and kept the dialog's former
    table, list and chart alive with it (about a hundred nodes a time)."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2", "s")
    page = open_game(game)
    held = measure(page)
    dialog = page.locator("#dlg-stats")

    def look() -> None:
        page.locator("#btn-stats").focus()
        page.keyboard.press("Enter")
        dialog.locator("ol.recent").wait_for()
        page.keyboard.press("Escape")
        page.locator("#dlg-stats:not([open])").wait_for(state="attached")
        assert page.evaluate("document.activeElement.id") == "btn-stats"

    look()
    before = held()
    for _ in range(12):
        look()
    after = held()
    assert after.listeners - before.listeners <= 2, (before, after)
    assert after.detached - before.detached < 60, (before, after)
    # (the open dialog still folds its table when the window narrows)
    page.locator("#btn-stats").focus()
    page.keyboard.press("Enter")
    dialog.locator("table.stats:not(.stacked)").wait_for()
    page.set_viewport_size({"width": 360, "height": 740})
    dialog.locator("table.stats.stacked").wait_for(state="attached")
    page.set_viewport_size({"width": 1280, "height": 860})
    dialog.locator("table.stats:not(.stacked)").wait_for()


def test_a_long_game_by_keyboard_holds_no_more_than_a_short_one(api: Api, open_game: Any) -> None:
    """Eight decks and nine redeals (the largest board, and a stock to draw
    from for hundreds of moves): 140 draws, undos and redos by keyboard
    leave the page holding what it held after the first 40 (2,000 of them
    were measured by hand: no growth). A leak of 2 kB a move fails it, as
    it failed the 240 moves this test made before for 600 kB."""
    game = api.play(api.new(variant="terrace", deal_number=7, options={"decks": 8, "redeals": 9}), "c1")
    page = open_game(game, reduced_motion="reduce")
    held = measure(page)
    page.locator("[data-pile='t1']").focus()
    moves = 1

    def play(actions: int) -> None:
        nonlocal moves
        for i in range(actions):
            key, step = {8: ("Control+z", -1), 9: ("Control+y", 1)}.get(i % 10, (" ", 1))
            page.keyboard.press(key)
            moves += step
            moves_seen(page, moves)

    play(40)
    before = held()
    play(100)
    after = held()
    assert moves == 1 + 14 * 8  # (each ten keys: eight draws, an undo and a redo)
    assert after.listeners - before.listeners <= 3, (before, after)
    assert after.detached - before.detached < 150, (before, after)
    assert abs(after.nodes - before.nodes) < 100, (before, after)  # (the same board, other cards)
    # (the game's own move list grows: about 0.55 kB a move, 132 kB over 240)
    assert after.heap - before.heap < 250_000, (before, after)
    assert page.evaluate("document.activeElement.dataset.pile") == "t1"
