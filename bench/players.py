"""The honest table: each preset's win rate for every player side by side.

Reads the verdicts that ``terrace survey --player P --verdicts-db FILE``
stored (several files may be given; a player's verdicts are looked up in
each) and prints one Markdown row per preset: for the perfect-information
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
"""

from __future__ import annotations

import argparse
from pathlib import Path

from terrace.solver.chart import RateBar, win_rate_chart
from terrace.solver.players import player_key
from terrace.solver.survey import parse_range, summarise
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import PRESETS, get_rules

PLAYERS = ("perfect", "fair", "greedy", "random")


def verdicts(
    stores: list[VerdictStore], preset: str, player: str, first: int, last: int
) -> dict[int, Verdict]:
    """Every stored verdict of the player on the preset's deals, from all stores."""
    rules = get_rules(preset)
    key = player_key(player)
    found: dict[int, Verdict] = {}
    for store in stores:
        found.update(store.range(rules, first, last, key))
    return found


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
    parser.add_argument("--db", action="append", required=True, help="A verdict database (repeatable).")
    parser.add_argument("--deals", default="1-1000")
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--chart", type=Path, help="Write the chart here (.png or .svg).")
    parser.add_argument("--chart-min-deals", type=int, default=50,
                        help="Leave out of the chart rates measured on fewer deals.")
    args = parser.parse_args()
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
        image_format = "svg" if args.chart.suffix == ".svg" else "png"
        args.chart.write_bytes(win_rate_chart("Win rate by player (Wilson 95%)", bars, image_format))
        print(f"chart: {args.chart}")


if __name__ == "__main__":
    main()
