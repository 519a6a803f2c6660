"""How fast does the page show a game, and answer a move? ``terrace play``
runs as a subprocess; Playwright drives Debian's Chromium.

    .venv/bin/python bench/page.py [--loads 20] [--moves 40] [--width 1366 --height 768]
    .venv/bin/python bench/page.py --redraws [--undos 50] [--played 150]

* page load, warm browser: the page is loaded once (so its files are in the
  browser's cache), then reloaded ``--loads`` times on a game in progress;
  for each load, the time from navigation to the paint of the first card
  (the Element Timing entry ``first-card`` that render.js marks) and to the
  first contentful paint. Target: first cards within 300 ms.
* a move: ``--moves`` times, a click on the stock (a draw) and then on Undo,
  each timed in the page from the click until the board shows the answer
  (the request, the JSON and the new board), with the request's own share
  (its Resource Timing duration).

* ``--redraws`` measures the board's redraw instead: on Admiral's Patience
  deal 4 and on the largest rules (eight packs, twenty piles, a terrace of
  300), each after ``--played`` moves (a fixed line: a seeded choice among
  the legal moves), ``--undos`` undos and as many redos, each timed as the
  renderer's main-thread work (Chrome's DevTools protocol,
  ``Performance.getMetrics``' TaskDuration) from the click until the board
  is drawn and painted; and the elements the page added to the board for it.

Medians and 90th percentiles in milliseconds. Timings are noisy on a shared
machine: compare runs made one after the other.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import ADDED_ON_CLICK, CLICK_SHOWN  # noqa: E402
from web_support import CHROMIUM, WINNING_LINE, running_server  # noqa: E402

FIRST_CARD = """() => new Promise((resolve) => {
  const timer = setTimeout(() => resolve(null), 5000);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.identifier !== 'first-card') continue;
      clearTimeout(timer);
      resolve(entry.renderTime || entry.loadTime);
    }
  }).observe({ type: 'element', buffered: true });
})"""

PAINT = """() => {
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const nav = performance.getEntriesByType('navigation')[0];
  return { fcp: paint ? paint.startTime : null, dom: nav ? nav.domContentLoadedEventEnd : null };
}"""

# Click `selector` and wait until the page shows a different number of
# moves and has drawn it (one animation frame later); the whole time and
# the request's own duration.
ROUND_TRIP = """async (selector) => {
  const requests = performance.getEntriesByType('resource').length;
  const start = performance.now();
CLICK_SHOWN
  await new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const total = performance.now() - start;
  const posted = performance.getEntriesByType('resource').slice(requests)
    .filter((entry) => entry.name.includes('/api/games/'));
  return { total, request: posted.length ? posted[posted.length - 1].duration : null };
}""".replace("CLICK_SHOWN", CLICK_SHOWN)


# (name, the game's rules)
REDRAW_GAMES = [
    ("Admiral's Patience, deal 4", {"variant": "admirals-patience", "deal_number": 4}),
    ("8 packs, 20 piles, terrace of 300, deal 4",
     {"variant": "terrace", "deal_number": 4,
      "options": {"decks": 8, "piles": 20, "candidates": 20, "reserve": 300}}),
]


def played_game(client: httpx.Client, body: dict[str, Any], count: int) -> dict[str, Any]:
    """A game of ``body``'s rules after ``count`` moves (fewer if it ends):
    a seeded choice among its legal moves, a move off the stock half as
    often as another."""
    choose = random.Random(4)
    game: dict[str, Any] = client.post("/api/games", json=body).json()
    for _ in range(count):
        legal = game["legal_moves"]
        if not legal:
            break
        others = [move for move in legal if move != "s"]
        move = choose.choice(others) if others and (len(others) == len(legal) or choose.random() < 0.67) \
            else "s"
        game = client.post(f"/api/games/{game['id']}/moves", json={"move": move}).json()
    return game


def main_thread_ms(cdp: Any) -> float:
    """The page's main-thread time so far (ms)."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration")) * 1000


def redraws(url: str, playwright: Any, args: argparse.Namespace) -> None:
    """Print the main-thread time and the elements added of each undo and redo."""
    client = httpx.Client(base_url=url, trust_env=False, timeout=30)
    browser = playwright.chromium.launch(executable_path=CHROMIUM)
    print(f"bench/page.py --redraws: {args.width}x{args.height}, Chromium {CHROMIUM}, "
          f"{args.undos} undos then {args.undos} redos")
    for name, body in REDRAW_GAMES:
        game = played_game(client, body, args.played)
        context = browser.new_context(viewport={"width": args.width, "height": args.height},
                                      reduced_motion="reduce")
        page = context.new_page()
        page.goto(f"{url}?game={game['id']}")
        page.wait_for_selector("body[data-ready='true']")
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable", {"timeTopic": "threadticks"})

        times: dict[str, list[float]] = {"undo": [], "redo": []}
        added: dict[str, list[float]] = {"undo": [], "redo": []}
        elements = page.evaluate("() => document.querySelectorAll('#board *').length")
        for kind in ("undo", "redo"):
            for _ in range(min(args.undos, game["moves"])):
                start = main_thread_ms(cdp)
                added[kind].append(page.evaluate(ADDED_ON_CLICK, f"#btn-{kind}"))
                times[kind].append(main_thread_ms(cdp) - start)
        context.close()
        print(f"{name}: {game['moves']} moves played, {elements} elements on the board")
        for kind in ("undo", "redo"):
            print("  " + summary(f"{kind}: main-thread time", times[kind]))
            print(f"  {kind}: elements added to the board, median {statistics.median(added[kind]):.0f}")
    browser.close()
    client.close()


def summary(name: str, values: list[float]) -> str:
    """``name: median … ms, p90 … ms (n = …)``."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return f"{name}: no values"
    p90 = values[min(len(values) - 1, round(0.9 * (len(values) - 1)))]
    return f"{name:<34} median {statistics.median(values):7.1f} ms   p90 {p90:7.1f} ms   (n = {len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--width", type=int, default=1366)
    parser.add_argument("--height", type=int, default=768)
    parser.add_argument("--redraws", action="store_true",
                        help="measure the redraw of an undo and a redo instead")
    parser.add_argument("--undos", type=int, default=50)
    parser.add_argument("--played", type=int, default=150)
    args = parser.parse_args()
    if min(args.loads, args.moves, args.undos, args.played) < 1 or min(args.width, args.height) < 200:
        parser.error("--loads, --moves, --undos and --played must be at least 1, the window at least 200 px")
    from playwright.sync_api import sync_playwright

    if args.redraws:
        with running_server() as url, sync_playwright() as playwright:
            redraws(url, playwright, args)
        return
    with running_server() as url, sync_playwright() as playwright:
        client = httpx.Client(base_url=url, trust_env=False, timeout=30)
        line = WINNING_LINE
        game = client.post("/api/games", json={"variant": line["variant"], "options": line["options"],
                                               "deal_number": line["deal_number"]}).json()
        for move in line["moves"][:60]:
            game = client.post(f"/api/games/{game['id']}/moves", json={"move": move}).json()
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        context = browser.new_context(viewport={"width": args.width, "height": args.height},
                                      reduced_motion="reduce")
        page = context.new_page()
        address = f"{url}?game={game['id']}"
        page.goto(address)  # warms the browser's cache
        page.wait_for_selector("body[data-ready='true']")
        first: list[float] = []
        fcp: list[float] = []
        for _ in range(args.loads):
            page.reload()
            page.wait_for_selector("body[data-ready='true']")
            first.append(page.evaluate(FIRST_CARD))
            fcp.append(page.evaluate(PAINT)["fcp"])
        draws: list[dict[str, Any]] = []
        undos: list[dict[str, Any]] = []
        for _ in range(args.moves):
            draws.append(page.evaluate(ROUND_TRIP, "[data-pile='stock']"))
            undos.append(page.evaluate(ROUND_TRIP, "#btn-undo"))
        browser.close()
    print(f"bench/page.py: {args.width}x{args.height}, Chromium {CHROMIUM}, a Terrace game after 60 moves")
    print(summary("first card painted (warm reload)", first))
    print(summary("first contentful paint", fcp))
    print(summary("draw: click to board shown", [d["total"] for d in draws]))
    print(summary("draw: the request alone", [d["request"] for d in draws]))
    print(summary("undo: click to board shown", [u["total"] for u in undos]))
    print(summary("undo: the request alone", [u["request"] for u in undos]))
    met = statistics.median(v for v in first if v is not None) <= 300
    print("target: first cards within 300 ms in a warm browser:", "met" if met else "NOT met")


if __name__ == "__main__":
    main()
