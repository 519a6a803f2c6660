"""Does the page slow down or fill up in long and large games? Playwright
drives Debian's Chromium against the real server (``terrace play`` on a
temporary SQLite file) in three parts, each printing its figures.

    .venv/bin/python bench/page_long.py [--lengths 100,10000,99990] [--runs 5]
                                        [--new-games 200] [--played 60] [--reserve N] [--pointer-moves 60]
                                        [--windows 1280x800,390x844] [--skip lengths,new-games,largest]

* ``lengths``: for a stored game of each length (bench/long.py's: eight
  packs, one card moved to and fro), the first opening after the server
  started (it replays the game once), a reload, and the round trip in the
  page of a draw (a click on the stock), an undo, a redo and a hint (click
  until the board shows the answer, then a frame), with the JS heap and
  the DOM nodes after a forced garbage collection. None of them should grow
  with the length.
* ``new-games``: ``--new-games`` games begun one after the other through
  the New game dialog in one page, after five begun first (fewer when
  ``--new-games`` is less than five): what the page holds (nodes in the
  document, nodes outside it, event listeners, JS heap) after those first
  ones, half-way and at the end.
* ``largest``: eight packs, twenty piles, twenty candidates, after
  ``--played`` moves (a terrace of ``--reserve`` cards), in each window of
  ``--windows``: a reload, a card dragged across the board in
  ``--pointer-moves`` moves (the gaps between animation frames and the
  renderer's main-thread time per pointer move, beside that of the same
  moves with no card in hand), and six resizes (each until the board is
  fitted to the new size).

Medians of ``--runs`` in ms, main-thread time from Chrome's DevTools
protocol (TaskDuration). Timings are noisy on a shared machine: compare
runs made one after the other.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import ATTACHED, CLICK_SHOWN  # noqa: E402
from long import store_games  # noqa: E402
from page import played_game  # noqa: E402
from web import start_server, stop_server  # noqa: E402
from web_support import CHROMIUM  # noqa: E402

PARTS = ("lengths", "new-games", "largest")
READY = "body[data-ready='true']"
NEXT_FRAME = "new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))"
SHOWN_MS = """async (selector) => {
  const start = performance.now();
CLICK_SHOWN
  await NEXT_FRAME;
  return performance.now() - start;
}""".replace("CLICK_SHOWN", CLICK_SHOWN).replace("NEXT_FRAME", NEXT_FRAME)
COUNT_FRAMES = """() => {
  window.benchFrames = [];
  const tick = (at) => {
    window.benchFrames.push(at);
    if (!window.benchStop) requestAnimationFrame(tick);
  };
  window.benchStop = false;
  requestAnimationFrame(tick);
}"""
LARGEST = {"decks": 8, "piles": 20, "candidates": 20}
FIRST_NEW_GAMES = 5
"""Games begun through the dialog before the first look at what the page holds."""


class Page:
    """One page of a new browser context, with its DevTools session."""

    def __init__(self, browser: Any, url: str, width: int = 1280, height: int = 800) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           reduced_motion="reduce")
        self.page = self.context.new_page()
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.send("Performance.enable", {"timeTopic": "threadticks"})
        self.url = url

    def metrics(self) -> dict[str, float]:
        return {m["name"]: m["value"] for m in self.cdp.send("Performance.getMetrics")["metrics"]}

    def main_thread_ms(self) -> float:
        """The renderer's main-thread time so far."""
        return self.metrics()["TaskDuration"] * 1000

    def attached(self, selector: str) -> None:
        """Wait for ``selector`` in the document, looked for at each frame
        (Playwright's own waits, even for an element merely attached, measure
        the element's box again and again: a layout of the whole board each
        time, most of a resize's main-thread time was theirs)."""
        self.page.wait_for_function("(selector) => document.querySelector(selector) !== null", arg=selector)

    def open(self) -> float:
        """Load the page's address; the ms until the game is drawn."""
        return self._drawn_after(lambda: self.page.goto(self.url))

    def reload(self) -> float:
        """Load the page again; the ms until the game is drawn."""
        return self._drawn_after(self.page.reload)

    def _drawn_after(self, load: Callable[[], object]) -> float:
        """The ms from ``load()`` until the game is drawn."""
        started = time.perf_counter()
        load()
        self.attached(READY)
        self.page.evaluate(NEXT_FRAME)
        return (time.perf_counter() - started) * 1000

    def held(self) -> dict[str, int]:
        """What the page holds after a garbage collection."""
        for _ in range(2):
            self.cdp.send("HeapProfiler.collectGarbage")
        metrics = self.metrics()
        nodes = int(self.page.evaluate(ATTACHED))
        return {"nodes": nodes, "detached": int(metrics["Nodes"]) - nodes,
                "listeners": int(metrics["JSEventListeners"]), "heap": int(metrics["JSHeapUsedSize"])}

    def hint_ms(self) -> float:
        """A click on Hint until its answer is shown."""
        started = time.perf_counter()
        self.page.click("#btn-hint")
        self.attached("#btn-hint:not([aria-busy])")
        took = (time.perf_counter() - started) * 1000
        self.page.keyboard.press("Escape")
        return took

    def close(self) -> None:
        self.context.close()


def median(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}"


def lengths_part(browser: Any, url: str, ids: dict[int, str], runs: int) -> None:
    print("a stored game of each length: ms (medians), and what the page holds after them")
    print(f"{'moves':>8} {'open':>6} {'reload':>6} {'draw':>6} {'undo':>6} {'redo':>6} {'hint':>6}"
          f" {'heap kB':>8} {'nodes':>6}")
    for length, game_id in ids.items():
        page = Page(browser, f"{url}/?game={game_id}")
        first = page.open()
        times: dict[str, list[float]] = {name: [] for name in ("reload", "draw", "undo", "redo", "hint")}
        for _ in range(runs):
            times["reload"].append(page.reload())
            times["draw"].append(page.page.evaluate(SHOWN_MS, "[data-pile='stock']"))
            times["undo"].append(page.page.evaluate(SHOWN_MS, "#btn-undo"))
            times["redo"].append(page.page.evaluate(SHOWN_MS, "#btn-redo"))
            page.page.evaluate(SHOWN_MS, "#btn-undo")  # (the draw taken back: the same length again)
            times["hint"].append(page.hint_ms())
        held = page.held()
        page.close()
        print(f"{length:>8,} {first:>6.0f} " + " ".join(f"{median(v):>6}" for v in times.values())
              + f" {held['heap'] / 1000:>8.0f} {held['nodes']:>6}")


def new_games_part(browser: Any, url: str, count: int) -> None:
    # (a game of no moves shown first: the dialog then asks nothing before it begins one)
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as client:
        fresh = client.post("/api/games", json={"variant": "terrace", "deal_number": 1}).json()
    page = Page(browser, f"{url}/?game={fresh['id']}")
    page.open()

    def begin(deal: int) -> None:
        page.page.locator("#btn-new").click()
        page.page.locator("#dlg-new[open]").wait_for()
        page.page.locator("#new-deal").fill(str(deal))
        page.page.locator("#new-start").click()
        page.page.locator("#dlg-new:not([open])").wait_for(state="attached")
        page.page.locator(READY).wait_for(state="attached")

    first = min(FIRST_NEW_GAMES, count)
    for deal in range(1, first + 1):
        begin(deal)
    rows = [(first, page.held())]
    for done in range(1, count + 1):
        begin(first + done)
        if done in (count // 2, count):
            rows.append((first + done, page.held()))
    page.close()
    print("new games one after the other in one page (the New game dialog): what the page holds")
    print(f"{'games':>6} {'nodes':>6} {'detached':>9} {'listeners':>10} {'heap kB':>8}")
    for games, held in rows:
        print(f"{games:>6} {held['nodes']:>6} {held['detached']:>9} {held['listeners']:>10} "
              f"{held['heap'] / 1000:>8.0f}")


def largest_game(url: str, played: int, reserve: int | None) -> str:
    """The largest rules (a terrace of ``reserve`` cards, or Terrace's) after
    ``played`` moves, fewer if the game ends first (bench/page.py's seeded
    choice of moves)."""
    options = LARGEST if reserve is None else {**LARGEST, "reserve": reserve}
    body = {"variant": "terrace", "deal_number": 4, "options": options}
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as client:
        return str(played_game(client, body, played)["id"])


def sweep(page: Page, x: float, y: float, width: int, height: int, steps: int) -> float:
    """Move the pointer from (x, y) towards the window's upper right, a frame
    for each of ``steps`` moves; the main-thread ms per move."""
    before = page.main_thread_ms()
    for step in range(1, steps + 1):
        page.page.mouse.move(x + (width * 0.8 - x) * step / steps, y + (height * 0.1 - y) * step / steps)
        page.page.evaluate("new Promise((resolve) => requestAnimationFrame(() => resolve()))")
    return (page.main_thread_ms() - before) / steps


def drag(page: Page, width: int, height: int, steps: int) -> tuple[list[float], float, float]:
    """Drag the last movable card towards the window's upper right; the gaps
    between frames meanwhile, the main-thread ms per pointer move, and the
    same for the pointer moved alone (no card in hand: what the moves cost
    the page anyway)."""
    box = page.page.locator("#board .card.movable").last.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.page.mouse.move(x, y)
    alone = sweep(page, x, y, width, height, steps)
    page.page.mouse.move(x, y)
    page.page.evaluate(COUNT_FRAMES)
    page.page.mouse.down()
    in_hand = sweep(page, x, y, width, height, steps)
    page.page.keyboard.press("Escape")
    page.page.mouse.up()
    frames = page.page.evaluate("window.benchStop = true, window.benchFrames")
    return [later - sooner for sooner, later in pairwise(frames)], in_hand, alone


def resizes(page: Page, width: int, height: int) -> list[tuple[float, float]]:
    """Six resizes, to a window 100 px wider and lower and back: wall and main-thread ms."""
    times = []
    for to_width, to_height in ((width + 100, height - 100), (width, height)) * 3:
        before, started = page.main_thread_ms(), time.perf_counter()
        page.page.set_viewport_size({"width": to_width, "height": to_height})
        page.attached(f"body[data-fitted='{to_width}x{to_height}']")
        times.append(((time.perf_counter() - started) * 1000, page.main_thread_ms() - before))
    return times


def largest_part(browser: Any, url: str, args: argparse.Namespace) -> None:
    game_id = largest_game(url, args.played, args.reserve)
    terrace = "" if args.reserve is None else f", a terrace of {args.reserve}"
    print(f"eight packs, twenty piles, twenty candidates{terrace} after {args.played} moves (ms, medians)")
    print(f"{'window':>9} {'elements':>9} {'reload':>7} {'frame gap':>10} {'worst gap':>10}"
          f" {'per move':>9} {'no card':>8} {'resize':>7} {'its main thread':>16}")
    for width, height in args.windows:
        page = Page(browser, f"{url}/?game={game_id}", width, height)
        page.open()
        reloads = [page.reload() for _ in range(args.runs)]
        elements = page.page.evaluate("document.querySelectorAll('#board *').length")
        gaps, per_move, alone = drag(page, width, height, args.pointer_moves)
        sizes = resizes(page, width, height)
        page.close()
        print(f"{f'{width}x{height}':>9} {elements:>9} {median(reloads):>7} {statistics.median(gaps):>10.1f}"
              f" {max(gaps):>10.1f} {per_move:>9.1f} {alone:>8.1f} {median([w for w, _ in sizes]):>7}"
              f" {median([m for _, m in sizes]):>16}")


def run(parts: set[str], args: argparse.Namespace, folder: str) -> None:
    from playwright.sync_api import sync_playwright

    db = str(Path(folder) / "page_long.sqlite")
    ids = store_games(db, args.lengths) if "lengths" in parts else {}
    # (the server starts while the browser does: each takes about a second)
    starter = ThreadPoolExecutor(1)
    starting = starter.submit(start_server, db, "--hint-seconds", "0.2")
    starter.shutdown(wait=False)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            url = f"http://127.0.0.1:{starting.result()[1]}"
            steps: list[tuple[str, Callable[[], None]]] = [
                ("lengths", lambda: lengths_part(browser, url, ids, args.runs)),
                ("new-games", lambda: new_games_part(browser, url, args.new_games)),
                ("largest", lambda: largest_part(browser, url, args)),
            ]
            for name, step in steps:
                if name in parts:
                    step()
            browser.close()
    finally:
        stop_server(starting.result()[0])


def windows(text: str) -> list[tuple[int, int]]:
    """Window sizes from ``1280x800,390x844``."""
    try:
        sizes = [tuple(int(n) for n in size.split("x")) for size in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or any(len(size) != 2 or min(size) < 100 for size in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: give sizes as WIDTHxHEIGHT (at least 100x100), "
                                         "comma-separated")
    return [(size[0], size[1]) for size in sizes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="100,10000,99990",
                        help="game lengths in moves, comma-separated (at most 99,990)")
    parser.add_argument("--runs", type=int, default=5, help="times each action is timed")
    parser.add_argument("--new-games", type=int, default=200, help="games begun one after the other")
    parser.add_argument("--played", type=int, default=60, help="moves played in the largest game")
    parser.add_argument("--reserve", type=int, default=None,
                        help="the terrace's cards in the largest game (Terrace's 11 unless given)")
    parser.add_argument("--pointer-moves", type=int, default=60, help="pointer moves of the drag")
    parser.add_argument("--windows", type=windows, default="1280x800,390x844",
                        help="the largest game's window sizes, WIDTHxHEIGHT, comma-separated")
    parser.add_argument("--skip", default="", help=f"parts to leave out, comma-separated: {', '.join(PARTS)}")
    args = parser.parse_args()
    args.lengths = [int(n) for n in args.lengths.split(",")]
    skip = {name for name in args.skip.split(",") if name}
    if skip - set(PARTS):
        parser.error(f"--skip takes {', '.join(PARTS)}")
    if args.runs < 1 or min(args.new_games, args.pointer_moves) < 2 or args.played < 0 \
            or not all(1 <= n <= 99_990 for n in args.lengths):
        parser.error("--runs must be at least 1, --new-games and --pointer-moves at least 2, --played at "
                     "least 0, each length 1 to 99,990")
    print(f"bench/page_long.py: Chromium {CHROMIUM}")
    with tempfile.TemporaryDirectory() as folder:
        run(set(PARTS) - skip, args, folder)


if __name__ == "__main__":
    main()
