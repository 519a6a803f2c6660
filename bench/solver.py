"""Solver benchmark: the targets of the solver issue.

Solves numbered deals of every preset (or some), one process per core, and
prints per preset: decided share, median / 90th percentile seconds per deal,
positions per second and the peak memory of a worker process.

    .venv/bin/python bench/solver.py                      # every preset, deals 1-200, 10 s
    .venv/bin/python bench/solver.py --deals 1-50 --max-seconds 2 --variants falling-star

Verdicts go to a SQLite file (``--db``, default a file in the temporary
folder, kept between runs), so an interrupted run resumes and ``terrace
survey --verdicts-db`` can reuse them; a rerun on the same file prints the
stored figures (peak memory "(cached)"): give a new ``--db`` to measure anew.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from terrace.cli.options import seconds_argument
from terrace.solver.search import core_available, core_profiled
from terrace.solver.survey import parse_range, run_survey
from terrace.solver.tally import percentile
from terrace.solver.verdicts import VerdictStore
from terrace.variants import get_rules, variant_names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default=",".join(variant_names()))
    parser.add_argument("--deals", default="1-200")
    parser.add_argument("--max-seconds", type=seconds_argument, default=10.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--db", default=os.path.join(tempfile.gettempdir(), "terrace-bench-solver.sqlite3"))
    args = parser.parse_args()
    first, last = parse_range(args.deals)
    core = (("compiled core, built with its profile" if core_profiled() else "compiled core, plain build")
            if core_available() else "pure-Python search (no compiled core)")
    processes = f"{args.jobs} process{'es' if args.jobs != 1 else ''}"
    print(f"deals {first}-{last}, {args.max_seconds:g} s each, {processes}, {core}, db {args.db}")
    print()
    print("| preset | deals | won | lost | unknown | decided | median s | 90th pct s "
          "| positions/s | peak MB/worker | wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.variants.split(","):
        rules = get_rules(name)
        store = VerdictStore(args.db)
        start = time.perf_counter()
        verdicts, peak_kb = run_survey(rules, first, last, jobs=args.jobs,
                                       max_seconds=args.max_seconds, store=store)
        wall = time.perf_counter() - start
        store.close()
        values = list(verdicts.values())
        won = sum(v.result == "won" for v in values)
        lost = sum(v.result == "lost" for v in values)
        seconds = [v.seconds for v in values]
        nps = sum(v.nodes for v in values) / max(1e-9, sum(seconds))
        print(f"| {name} | {len(values)} | {won} | {lost} | {len(values) - won - lost} "
              f"| {100 * (won + lost) / max(1, len(values)):.1f}% | {percentile(seconds, 50):.3f} "
              f"| {percentile(seconds, 90):.3f} | {nps:,.0f} | "
              f"{peak_kb / 1024:.0f}{' (this run)' if peak_kb else ' (cached)'} | {wall:.0f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
