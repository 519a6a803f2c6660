"""How long the web game's "winnable deals only" search takes.

For each preset and each per-deal budget, asks what ``POST /api/games``
with ``"winnable": true`` runs (:func:`terrace.web.hints.next_winnable`)
for a winnable deal from random start numbers, within the server's total
budget for one request, and prints how many searches found one (the others
would have been answered 503), how long they took (median, 90th
percentile, longest) and how many deals they solved. Every setting starts
with an empty verdict cache, shared by its searches as the server's is.

    .venv/bin/python bench/winnable.py                                   # suit presets, 1 s and 5 s
    .venv/bin/python bench/winnable.py --variants terrace,madame --starts 50 --deal-seconds 0.5,1,2
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import tempfile
import time
from contextlib import closing

from terrace.cli.options import seconds_argument
from terrace.solver.tally import percentile
from terrace.solver.winnable import NoWinnableDealError
from terrace.variants import get_rules
from terrace.web.endpoints import RANDOM_DEALS, WINNABLE_SECONDS
from terrace.web.hints import next_winnable
from terrace.web.numbers import whole_number


def budgets(text: str) -> list[float]:
    """Comma-separated per-deal budgets."""
    return [seconds_argument(part) for part in text.split(",")]


def count(text: str) -> int:
    """A number of searches from 1 to 10,000 (ASCII digits only)."""
    number = whole_number(text)
    if number is None or not 1 <= number <= 10_000:
        raise argparse.ArgumentTypeError(f"give a whole number of searches from 1 to 10000, not {text!r}")
    return number


def run(variant: str, deal_seconds: float, total: float, starts: list[int]) -> str:
    """One row of the table: ``starts`` searches with one cache."""
    rules = get_rules(variant)
    waits: list[float] = []
    found = 0
    with tempfile.TemporaryDirectory() as folder:
        db = os.path.join(folder, "verdicts.sqlite3")
        for start in starts:
            began = time.monotonic()
            try:
                next_winnable(rules, start, deal_seconds, began + total, db)
                found += 1
            except NoWinnableDealError:
                pass
            waits.append(time.monotonic() - began)
        with closing(sqlite3.connect(db)) as connection:
            solved = connection.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    return (f"| {variant} | {deal_seconds:g} | {len(starts)} | {found} | {len(starts) - found} "
            f"| {statistics.median(waits):.2f} | {percentile(waits, 90):.2f} | {max(waits):.2f} "
            f"| {solved} | {sum(waits):.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="generals-patience,admirals-patience")
    parser.add_argument("--deal-seconds", type=budgets, default="1,5",
                        help="Per-deal budgets to compare, comma-separated.")
    parser.add_argument("--total", type=seconds_argument, default=WINNABLE_SECONDS,
                        help="The budget of one request (terrace play --winnable-seconds).")
    parser.add_argument("--starts", type=count, default=30, help="Searches per setting.")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    variants = args.variants.split(",")
    for variant in variants:
        try:
            get_rules(variant)
        except ValueError as error:
            parser.error(str(error))
    starts = [1 + n for n in random.Random(args.seed).sample(range(RANDOM_DEALS), args.starts)]
    print(f"winnable search, {args.total:g} s a request, {args.starts} random starts (seed {args.seed})")
    print("| preset | s per deal | searches | found | not found (503) | median s | 90th pct s | longest s "
          "| deals solved | s in all |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for variant in variants:
        for deal_seconds in args.deal_seconds:
            print(run(variant, deal_seconds, args.total, starts), flush=True)


if __name__ == "__main__":
    main()
