"""The fixtures and helpers of the real-browser tests: ``terrace play`` as
a subprocess, Debian's Chromium driven by Playwright, the API straight from
the test, and a page opened on a game. conftest.py makes the fixtures
available to every test module.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from web_support import CHROMIUM, WINNING_LINE, running_server

STATS = re.compile(r"/api/stats(\?[^/]*)?$")
"""The page's request for the statistics (it sends its time zone along)."""

# The lines of a page function (of `selector`) that click `selector` and
# wait until the page shows another move count (bench/page.py times them).

CLICK_SHOWN = """  const before = document.body.dataset.moves;
  const shown = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (document.body.dataset.moves !== before) { watch.disconnect(); resolve(); }
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ['data-moves'] });
  });
  document.querySelector(selector).click();
  await shown;"""

# Click `selector`, wait for the board drawn after it (the next move count,
# then a frame); the elements put on the board meanwhile, with theirs
# (also bench/page.py --redraws).
ADDED_ON_CLICK = """async (selector) => {
  let added = 0;
  const count = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType === 1) added += 1 + node.querySelectorAll('*').length;
      }
    }
  });
  count.observe(document.querySelector('#board'), { childList: true, subtree: true });
CLICK_SHOWN
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  count.disconnect();
  return added;
}""".replace("CLICK_SHOWN", CLICK_SHOWN)


# The nodes in the document (a page's whole count, from Chrome's DevTools
# protocol, less these: the nodes held outside it).
ATTACHED = """() => {
  let n = 0;
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
  while (walker.nextNode()) n += 1;
  return n;
}"""


def need_browser() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None or not Path(CHROMIUM).exists():
        message = f"Debian's chromium ({CHROMIUM}) and playwright are needed"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return sync_playwright


# The server and the API client are one for each test process
# (pytest-xdist's worker), not one for each test module: a server's start
# with its two solver workers is 0.7 CPU s and 5-9 s of waiting on a loaded
# machine, and each of the 23 modules started one again in each test process
# it ran in. A test makes the games it needs (api.new) and never counts on an
# empty server: one that does starts its own (web_support.running_server).
@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    with running_server() as url:
        yield url


_PLAYWRIGHTS_LOOP: list[asyncio.AbstractEventLoop] = []
"""The event loop of the running Playwright (none before it starts)."""


# Playwright and the browser are one per test process, as the server is: one
# per test file started them again in each test process the file's tests ran
# in (0.7 CPU s and 1.5-5 s of waiting a start). Playwright's sync API marks
# its event loop as running in the thread after each of its calls, and so
# every ``asyncio.run`` of a later non-browser test failed ("cannot be called
# from a running event loop"): the mark is taken away after each step of a
# test that uses Playwright (set up, run, tear down) and given back before it
# (playwrights_loop, conftest.py).
@pytest.fixture(scope="session")
def playwright_api() -> Iterator[Any]:
    """Playwright's sync API, one per test process (it refuses a second
    start in a process while one runs)."""
    sync_playwright = need_browser()
    with sync_playwright() as playwright:
        _PLAYWRIGHTS_LOOP.append(asyncio.get_running_loop())
        try:
            yield playwright
        finally:
            _mark_playwrights_loop()
            _PLAYWRIGHTS_LOOP.clear()
    asyncio._set_running_loop(None)


def _mark_playwrights_loop() -> None:
    """Mark Playwright's loop as running in the thread, for its calls (also
    those of a session fixture's tear down, maybe in a non-browser test's)."""
    if _PLAYWRIGHTS_LOOP:
        asyncio._set_running_loop(_PLAYWRIGHTS_LOOP[0])


def playwrights_loop(item: pytest.Item) -> Iterator[None]:
    """Around a step of test ``item``: Playwright's loop marked as running
    in the thread while a test that uses Playwright runs, never while
    another does (a hook wrapper's body)."""
    uses_playwright = "playwright_api" in getattr(item, "fixturenames", ())
    if uses_playwright:
        _mark_playwrights_loop()
    yield
    if uses_playwright:
        asyncio._set_running_loop(None)


@pytest.fixture(scope="session")
def browser(playwright_api: Any) -> Iterator[Any]:
    chromium = playwright_api.chromium.launch(executable_path=CHROMIUM)
    yield chromium
    _mark_playwrights_loop()
    chromium.close()


class Api:
    """The server's API, straight from the test (no proxy)."""

    def __init__(self, url: str) -> None:
        # (an idle connection is let go after 1 s, before the server's 5 s
        # (uvicorn's keep-alive): at httpx's default of 5 s a request sent
        # as the server closed the connection was reset, "Connection reset
        # by peer", once in a run of the browser files at load 20)
        limits = httpx.Limits(keepalive_expiry=1.0)
        self.client = httpx.Client(base_url=url, trust_env=False, timeout=30, limits=limits)

    def new(self, **body: Any) -> dict[str, Any]:
        response = self.client.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()
        return data

    def play(self, game: dict[str, Any], *moves: str) -> dict[str, Any]:
        for text in moves:
            response = self.client.post(f"/api/games/{game['id']}/moves", json={"move": text})
            assert response.status_code == 200, response.text
            game = response.json()
        return game


@pytest.fixture(scope="session")
def api(server: str) -> Iterator[Api]:
    client = Api(server)
    yield client
    client.client.close()


@pytest.fixture(scope="session")
def won_game(api: Api) -> dict[str, Any]:
    """WINNING_LINE's game played to its win through the API, once for each
    test process (its 250 moves cost 0.8 CPU s), shared by the tests that
    only look at it: one that plays on it, undoes or counts on the newest
    game of the statistics being this one makes its own."""
    line = WINNING_LINE
    game = api.new(variant=line["variant"], deal_number=line["deal_number"], options=line["options"])
    won = api.play(game, *line["moves"])
    assert won["status"] == "won"
    return won


@pytest.fixture
def open_game(browser: Any, server: str) -> Iterator[Any]:
    """Open the page on a game; yields a function (game, before_goto=None,
    **context options) that returns the page; ``before_goto(page)`` runs
    before the page is loaded (to route requests). Fails the test on any
    console error."""
    contexts: list[Any] = []
    errors: list[str] = []

    def opener(game: dict[str, Any], before_goto: Callable[[Any], None] | None = None, **options: Any) -> Any:
        options.setdefault("viewport", {"width": 1280, "height": 860})
        options.setdefault("locale", "en-GB")
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        if before_goto is not None:
            before_goto(page)
        page.goto(f"{server}?game={game['id']}")
        page.wait_for_selector("body[data-ready='true']")
        page.wait_for_selector(f"body[data-game='{game['id']}']")
        return page

    opener.errors = errors  # type: ignore[attr-defined]
    yield opener
    for context in contexts:
        context.close()
    assert errors == []


def open_deal_7_by_the_page(page: Any, url: str) -> dict[str, Any]:
    """Start Terrace deal 7 (won: a hint shows a move) with the page's own
    request, its cookie and all, and open it; the new game's JSON."""
    created: dict[str, Any] = page.evaluate(
        """async () => (await fetch('/api/games', {
            method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({variant: 'terrace', deal_number: 7}),
        })).json()"""
    )
    page.goto(f"{url}?game={created['id']}")
    page.wait_for_selector(f"body[data-game='{created['id']}']")
    return created


def until(ok: Callable[[], Any], seconds: float = 10) -> None:
    """Wait until ``ok()`` (the page's CSP forbids wait_for_function's
    evaluated strings). ``ok`` should ask the page (a locator's count, an
    evaluate): that lets the page's events through meanwhile. It asks again
    after 5 ms, then twice as long each time up to 50 ms: most waits are
    one request (a fixed 50 ms cost a whole game by keys 9 s of sleep)."""
    end = time.monotonic() + seconds
    pause = 0.005
    while not ok():
        assert time.monotonic() < end, "timed out"
        time.sleep(pause)
        pause = min(2 * pause, 0.05)


def settled(page: Any) -> None:
    """Wait until the page has done all it was asked: no action of its
    queue waiting or running (queue.js: enqueue; auto-play after a move
    included). What a key or a click asks for is queued as the event is
    handled, before Playwright's press or click returns: so a check that
    nothing happened (no move, no request) can follow this at once, where
    a fixed wait could end too soon on a loaded machine, or waste time."""
    page.wait_for_selector("body[data-busy='false']")


def resize(page: Any, width: int, height: int) -> None:
    """Make the window ``width`` x ``height`` and wait until the page has
    drawn its board for that size (after a resize it waits 60 ms first)."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_selector(f"body[data-fitted='{width}x{height}']")


def moves_seen(page: Any, count: int) -> None:
    page.wait_for_selector(f"body[data-moves='{count}']")


def slow_animations(page: Any, rate: float = 0.1) -> None:
    """Play the page's animations at ``rate`` times their speed (Chrome's
    DevTools protocol), so that a test acts while a card is still on its
    way, also on a loaded machine."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": rate})


def press_on(page: Any, box: dict[str, float]) -> None:
    """Press the mouse on the middle of ``box`` (a bounding box)."""
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def drag(page: Any, box: dict[str, float], to: dict[str, float], steps: int = 6) -> None:
    """Drag by mouse from the middle of bounding box ``box`` to the middle of ``to``, and let go."""
    press_on(page, box)
    page.mouse.move(to["x"] + to["width"] / 2, to["y"] + to["height"] / 2, steps=steps)
    page.mouse.up()


def hint_words(page: Any) -> str:
    """The hint the prompt shows, whole: its move and all that backs it, as
    a phone shows it and a screen reader hears it (a wider window shows the
    backing in brief, the whole behind Why?: hints.js promptHint)."""
    words: str = page.evaluate("""() => {
      const prompt = document.querySelector('#prompt');
      const more = prompt.querySelector('#prompt-more');
      return more ? `${prompt.firstChild.textContent} ${more.textContent}` : prompt.innerText;
    }""")
    return words


def top(page: Any, pile: str) -> Any:
    return page.locator(f"[data-pile='{pile}'] > .card").last


# The cards' rank and suit indices in sight (none under the next card of
# its pile) that the box of `selector` lies over.
INDICES_UNDER = """(selector) => {
  const box = document.querySelector(selector).getBoundingClientRect();
  const over = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const covered = (card, r) => {
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    for (let next = card.nextElementSibling; next; next = next.nextElementSibling) {
      const c = next.getBoundingClientRect();
      const over = c.left <= x && x <= c.right && c.top <= y && y <= c.bottom;
      if (next.classList.contains('card') && over) return true;
    }
    return false;
  };
  return [...document.querySelectorAll('#board .card .idx')].filter((idx) => {
    const r = idx.getBoundingClientRect();
    return r.width && over(r, box) && !covered(idx.closest('.card'), r);
  }).map((idx) => idx.closest('.card').dataset.card);
}"""


def indices_under(page: Any, selector: str = "#why") -> list[str]:
    """The cards whose rank and suit in sight the box of ``selector`` hides."""
    cards: list[str] = page.evaluate(INDICES_UNDER, selector)
    return cards
