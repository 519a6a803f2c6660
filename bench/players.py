"""The honest table: each preset's win rate for every player side by side.

Reads the verdicts that ``terrace survey --player P --verdicts-db FILE``
stored (several files may be given; a player's verdicts are looked up in
each, and a deal found in several counts its ``won`` or ``lost`` before an
``unknown``, as a survey would) and prints one Markdown row per preset: for the perfect-information
solver, the fair player (default settings, seed 0), the greedy and the
random player, the deals surveyed, the win rate and its Wilson 95% interval
(unknown deals as lost .. as won). A second table pairs each player with the
perfect-information solver on the deals both have played: how many of the
deals the solver wins the player wins too, and how many deals the player
wins that the solver proved lost (that must be none: a player that wins a
deal proves it can be won). With ``--chart FILE`` it also draws the
rates with their intervals (PNG or SVG, by the file's suffix; needs
``terrace[charts]``).

    .venv/bin/python bench/players.py --db greedy.sqlite --db random.sqlite --db fair.sqlite \\
        --deals 1-1000 --chart docs/winnability/players.png

With ``--from-table FILE`` instead of databases it draws the chart from the
honest table as a Markdown file prints it (docs/winnability.md), so the
chart shows exactly the table's cells, whichever surveys they came from.

    .venv/bin/python bench/players.py --from-table docs/winnability.md --chart docs/winnability/players.png
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from terrace.solver.chart import RateBar, win_rate_chart
from terrace.solver.players import player_key
from terrace.solver.survey import parse_range
from terrace.solver.tally import summarise
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import PRESETS, get_rules

PLAYERS = ("perfect", "fair", "greedy", "random")
CELL = re.compile(r"(\d+(?:\.\d+)?)% \((\d+(?:\.\d+)?) \.\. (\d+(?:\.\d+)?); (\d+) deals")
"""A cell as :func:`cell` writes it: rate, interval and deals (percent)."""


def verdicts(
    stores: list[VerdictStore], preset: str, player: str, first: int, last: int
) -> dict[int, Verdict]:
    """Every stored verdict of the player on the preset's deals, from all stores."""
    rules = get_rules(preset)
    key = player_key(player)
    found: dict[int, Verdict] = {}
    for store in stores:
        for number, verdict in store.range(rules, first, last, key).items():
            found[number] = stronger(found.get(number), verdict)
    return found


def stronger(kept: Verdict | None, other: Verdict) -> Verdict:
    """Of two stores' verdicts of one deal, the one a survey counts, as the
    store itself keeps one: a ``won`` or ``lost`` (the first found) before an
    ``unknown``, an ``unknown`` of a larger budget before a smaller.

    >>> won, unknown = Verdict("won", 9, 2.0, 10.0), Verdict("unknown", 9, 60.0, 60.0)
    >>> stronger(won, unknown).result, stronger(unknown, won).result, stronger(None, unknown).result
    ('won', 'won', 'unknown')
    >>> stronger(Verdict("unknown", 1, 1.0, 1.0), unknown).max_seconds
    60.0
    """
    if kept is None:
        return other
    if kept.result != "unknown":
        return kept
    if other.result != "unknown" or other.max_seconds > kept.max_seconds:
        return other
    return kept


def cell(found: dict[int, Verdict]) -> tuple[str, RateBar | None]:
    """A table cell (rate, interval, deals) and its chart bar."""
    if not found:
        return "—", None
    summary = summarise(found)
    rate = summary.won / summary.deals
    unknown = f", {summary.unknown} unknown" if summary.unknown else ""
    text = (f"{100 * rate:.1f}% ({100 * summary.low:.1f} .. {100 * summary.high:.1f}; "
            f"{summary.deals} deals{unknown})")
    return text, RateBar("", "", rate, summary.low, summary.high, summary.deals)


def table_bars(text: str) -> list[RateBar]:
    """The chart's bars from the honest table in a Markdown text: the rows
    whose first cell is a preset, under a header that names the players.

    >>> bar, = table_bars("| preset | fair |\\n|---|---|\\n| terrace | 71.9% (69.0 .. 74.6; 1000 deals) |")
    >>> bar.preset, bar.player, round(bar.rate, 3), round(bar.low, 3), round(bar.high, 3), bar.deals
    ('terrace', 'fair', 0.719, 0.69, 0.746, 1000)
    """
    bars: list[RateBar] = []
    players: list[str] = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "preset":
            players = cells[1:]
        elif cells[0] in PRESETS and players and set(players) & set(PLAYERS):
            for player, text_cell in zip(players, cells[1:], strict=False):
                found = CELL.match(text_cell)
                if player in PLAYERS and found:
                    rate, low, high = (float(found[i]) / 100 for i in (1, 2, 3))
                    bars.append(RateBar(cells[0], player, rate, low, high, int(found[4])))
        elif not line.startswith("|"):
            players = []
    return bars


def paired(perfect: dict[int, Verdict], found: dict[int, Verdict], both: list[int]) -> list[str]:
    """The paired cells: deals, solver wins, player wins among them, their
    share, and the player's wins where the solver said lost or unknown."""
    won = [d for d in both if perfect[d].result == "won"]
    kept = sum(found[d].result == "won" for d in won)
    lost_won = sum(found[d].result == "won" for d in both if perfect[d].result == "lost")
    unknown_won = sum(found[d].result == "won" for d in both if perfect[d].result == "unknown")
    share = f"{100 * kept / len(won):.1f}%" if won else "—"
    return [str(len(both)), str(len(won)), str(kept), share, str(lost_won), str(unknown_won)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", action="append", default=[], help="A verdict database (repeatable).")
    parser.add_argument("--from-table", type=Path,
                        help="Draw the chart from the honest table in this Markdown file instead.")
    parser.add_argument("--deals", default="1-1000")
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--chart", type=Path, help="Write the chart here (.png or .svg).")
    parser.add_argument("--chart-min-deals", type=int, default=50,
                        help="Leave out of the chart rates measured on fewer deals.")
    args = parser.parse_args()
    if args.from_table is not None:
        if args.chart is None:
            parser.error("--from-table draws a chart: give --chart FILE")
        found = [b for b in table_bars(args.from_table.read_text()) if b.deals >= args.chart_min_deals]
        draw(args.chart, found)
        return
    if not args.db:
        parser.error("give at least one --db, or --from-table")
    first, last = parse_range(args.deals)
    stores = [VerdictStore(path) for path in args.db]
    bars: list[RateBar] = []
    print("| preset | " + " | ".join(PLAYERS) + " |")
    print("|---|" + "---|" * len(PLAYERS))
    for preset in args.presets.split(","):
        cells = []
        for player in PLAYERS:
            text, bar = cell(verdicts(stores, preset, player, first, last))
            cells.append(text)
            if bar is not None and bar.deals >= args.chart_min_deals:
                bars.append(RateBar(preset, player, bar.rate, bar.low, bar.high, bar.deals))
        print(f"| {preset} | " + " | ".join(cells) + " |")
    print()
    print("| preset | player | deals both played | solver won | player won of those | "
          "share | solver lost, player won | solver unknown, player won |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for preset in args.presets.split(","):
        perfect = verdicts(stores, preset, "perfect", first, last)
        for player in PLAYERS[1:]:
            found = verdicts(stores, preset, player, first, last)
            both = sorted(set(perfect) & set(found))
            if not both:
                continue
            print(f"| {preset} | {player} | " + " | ".join(paired(perfect, found, both)) + " |")
    for store in stores:
        store.close()
    if args.chart is not None:
        draw(args.chart, bars)


def draw(path: Path, bars: list[RateBar]) -> None:
    """Write the chart of ``bars`` to ``path`` (SVG or PNG by its suffix)."""
    image_format = "svg" if path.suffix == ".svg" else "png"
    path.write_bytes(win_rate_chart("Win rate by player (Wilson 95%)", bars, image_format))
    print(f"chart: {path} ({len(bars)} bars)")


if __name__ == "__main__":
    main()
