"""Fair-player benchmark: win rate and decisions per second against K.

Plays numbered deals with the fair player for each K (sampled stock orders
per decision) and prints, per K: won / lost / unknown, the win rate with its
Wilson 95% interval, decisions (moves) per second, solver calls per deal and
the median seconds per deal; the greedy and random players and the
perfect-information solver on the same deals give the scale.

    .venv/bin/python bench/fair.py                                   # terrace 1-10, K = 4, 8
    .venv/bin/python bench/fair.py --deals 1-100 --samples 4,8,16,32 --jobs 2
    .venv/bin/python bench/fair.py --variant falling-star --set nodes=5000 --set reuse=false

Every game goes to a SQLite file (``--db``, default a file in the temporary
folder), keyed by player, settings and seed, so an interrupted run resumes
and a rerun with more deals or another K only plays what is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

from terrace.cli.options import DealRange, WholeNumber, argparse_type, seconds_argument
from terrace.solver.fair import SETTING_LIMITS
from terrace.solver.players import PLAYERS, player_settings
from terrace.solver.pool import MAX_WORKERS
from terrace.solver.survey import parse_range, run_survey
from terrace.solver.tally import percentile, summarise
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import get_rules


def setting(text: str) -> tuple[str, Any]:
    """``name=value`` with a JSON value (``nodes=5000``, ``reuse=false``)."""
    name, _, value = text.partition("=")
    try:
        return name.strip(), json.loads(value)
    except json.JSONDecodeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not name=value with a JSON value") from None


def sample_counts(text: str) -> list[int]:
    """The values of K, comma-separated, each in the fair player's range.

    >>> sample_counts("4, 8")
    [4, 8]
    >>> sample_counts("4,0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: K = 0 is not in the range 1 to 4096
    """
    low, high = SETTING_LIMITS["samples"]
    read = argparse_type(WholeNumber(low, high))
    counts = []
    for part in text.split(","):
        try:
            counts.append(read(part))
        except argparse.ArgumentTypeError as error:
            raise argparse.ArgumentTypeError(f"K = {error}") from None
    return counts


def row(label: str, verdicts: dict[int, Verdict], wall: float) -> str:
    """One line of the table."""
    summary = summarise(verdicts)
    values = list(verdicts.values())
    seconds = sum(v.seconds for v in values)
    moves = sum(len(v.line.split()) for v in values)
    rate = summary.won / summary.deals if summary.deals else 0.0
    return (f"| {label} | {summary.deals} | {summary.won} | {summary.lost} | {summary.unknown} "
            f"| {100 * rate:.1f}% | {100 * summary.low:.1f}% .. {100 * summary.high:.1f}% "
            f"| {moves / seconds if seconds else 0:.1f} "
            f"| {sum(v.nodes for v in values) / max(1, len(values)):.0f} "
            f"| {percentile([v.seconds for v in values], 50):.1f} | {wall:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="terrace")
    parser.add_argument("--deals", type=argparse_type(DealRange()), default="1-10")
    parser.add_argument("--samples", type=sample_counts, default="4,8", help="Values of K, comma-separated.")
    parser.add_argument("--set", type=setting, action="append", default=[],
                        help="Another fair-player setting, name=value (repeatable).")
    parser.add_argument("--seed", type=argparse_type(WholeNumber()), default=0)
    parser.add_argument("--budget", type=seconds_argument, default=3600.0, help="Seconds per deal.")
    parser.add_argument("--perfect-seconds", type=seconds_argument, default=10.0)
    parser.add_argument("--baselines", default="perfect,greedy,random",
                        help="Other players to run on the same deals ('' for none).")
    parser.add_argument("--jobs", type=argparse_type(WholeNumber(1, MAX_WORKERS)),
                        default=min(os.cpu_count() or 1, MAX_WORKERS))
    parser.add_argument("--db", default=os.path.join(tempfile.gettempdir(), "terrace-bench-fair.sqlite3"))
    args = parser.parse_args()
    extra = dict(args.set)
    baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    # (each refused in one line before anything runs: they ended in a
    # traceback, --set after the baselines had been played)
    try:
        rules = get_rules(args.variant)
        first, last = parse_range(args.deals)
        if "samples" in extra:
            raise ValueError("--set samples: give the values of K with --samples")
        for k in args.samples:
            player_settings("fair", {**extra, "samples": k})
        for name in baselines:
            if name == "fair" or name not in PLAYERS:
                raise ValueError(f"--baselines: {name!r} is not one of perfect, greedy, random")
    except ValueError as error:  # (also every refusal of the rules)
        parser.error(str(error))
    print(f"{args.variant} deals {first}-{last}, seed {args.seed}, {args.jobs} processes, "
          f"fair settings {extra or 'default'}, db {args.db}")
    print()
    print("| player | deals | won | lost | unknown | win rate | Wilson 95% | decisions/s "
          "| solver calls/deal | median s/deal | wall s |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    runs: list[tuple[str, str, dict[str, Any], float]] = []
    for name in baselines:
        runs.append((name, name, {}, args.perfect_seconds if name == "perfect" else args.budget))
    for k in args.samples:
        runs.append((f"fair K={k}", "fair", {**extra, "samples": k}, args.budget))
    for label, player, settings, budget in runs:
        store = VerdictStore(args.db)
        start = time.perf_counter()
        verdicts, _ = run_survey(rules, first, last, jobs=args.jobs, max_seconds=budget, store=store,
                                 player=player, settings=settings, seed=args.seed)
        store.close()
        line = row(label, verdicts, time.perf_counter() - start)
        if player == "perfect":  # a solve is no game: no decisions, nodes are positions
            cells = line.split(" | ")
            cells[7], cells[8] = "—", "—"
            line = " | ".join(cells)
        print(line)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
