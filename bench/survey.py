"""Survey benchmark: the local process pool against a Dask LocalCluster.

Runs the same deals with the same budget and the same number of worker
processes through :func:`~terrace.solver.survey.run_survey` (the local
pool) and :func:`~terrace.solver.cluster.run_cluster_survey` (a
LocalCluster, started once beforehand: its start-up is printed apart), each
run on an empty verdict store, the two backends taking turns; prints per
preset and player the median deals per second of each, the cluster's
overhead, and the cost of a deal in core-seconds (workers / deals per
second of the local pool), the figure docs/cluster.md scales up.

    .venv/bin/python bench/survey.py                                # terrace, perfect, 1-100, 10 s
    .venv/bin/python bench/survey.py --variants terrace,madame --players perfect,greedy --deals 1-40
    .venv/bin/python bench/survey.py --backends local --players fair --deals 1-4 --max-seconds 600

Needs ``terrace[cluster]`` for the cluster backend.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial

from terrace.rules import Rules
from terrace.solver.players import PLAYERS
from terrace.solver.survey import parse_range, run_survey, summarise
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import get_rules

Run = Callable[[VerdictStore], dict[int, Verdict]]


def timed(run: Run, folder: str, name: str) -> tuple[float, dict[int, Verdict]]:
    """Wall seconds of one run on an empty store, and its verdicts."""
    path = os.path.join(folder, f"{name}.sqlite3")
    if os.path.exists(path):
        os.remove(path)
    store = VerdictStore(path)
    start = time.perf_counter()
    verdicts = run(store)
    wall = time.perf_counter() - start
    store.close()
    return wall, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="terrace")
    parser.add_argument("--players", default="perfect", help=f"Comma-separated, of {', '.join(PLAYERS)}.")
    parser.add_argument("--deals", default="1-100")
    parser.add_argument("--max-seconds", type=float, default=10.0, help="Budget per deal.")
    parser.add_argument("--samples", type=int, default=None, help="Sampled stock orders (fair player).")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=3, help="Runs per backend (the median is shown).")
    parser.add_argument("--backends", default="local,cluster", help="local, cluster or both.")
    args = parser.parse_args()
    first, last = parse_range(args.deals)
    backends = args.backends.split(",")
    deals = last - first + 1
    settings = None if args.samples is None else {"samples": args.samples}
    folder = tempfile.mkdtemp(prefix="terrace-bench-survey-")
    scheduler = ""
    local_cluster = None
    if "cluster" in backends:
        from distributed import LocalCluster

        start = time.perf_counter()
        local_cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                     dashboard_address=":0")
        scheduler = local_cluster.scheduler_address
        print(f"LocalCluster of {args.workers} workers started in {time.perf_counter() - start:.1f} s")
    print(f"deals {first}-{last}, {args.max_seconds:g} s each, {args.workers} worker processes, "
          f"median of {args.repeats} runs per backend, each on an empty verdict store")
    print()
    print("| preset | player | deals | won | lost | unknown | local deals/s | cluster deals/s | overhead "
          "| core-s per deal | mean s per deal |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for variant in args.variants.split(","):
            rules = get_rules(variant)
            for player in args.players.split(","):
                runs: dict[str, Run] = {
                    "local": partial(_local_run, rules, first, last, args.workers, args.max_seconds,
                                     player=player, settings=settings),
                    "cluster": partial(_cluster_run, rules, first, last, scheduler, args.max_seconds,
                                       player=player, settings=settings),
                }
                rates: dict[str, list[float]] = {b: [] for b in backends}
                verdicts: dict[int, Verdict] = {}
                for _ in range(args.repeats):
                    for backend in backends:
                        wall, verdicts = timed(runs[backend], folder, backend)
                        rates[backend].append(deals / wall)
                print(row(variant, player, verdicts, rates, args.workers), flush=True)
    finally:
        if local_cluster is not None:
            local_cluster.close()


def _local_run(rules: Rules, first: int, last: int, workers: int, budget: float, store: VerdictStore, *,
               player: str, settings: dict[str, int] | None) -> dict[int, Verdict]:
    return run_survey(rules, first, last, jobs=workers, max_seconds=budget, store=store, player=player,
                      settings=settings)[0]


def _cluster_run(rules: Rules, first: int, last: int, scheduler: str, budget: float, store: VerdictStore, *,
                 player: str, settings: dict[str, int] | None) -> dict[int, Verdict]:
    from terrace.solver.cluster import run_cluster_survey

    return run_cluster_survey(rules, first, last, scheduler=scheduler, max_seconds=budget,
                              store=store, player=player, settings=settings)[0]


def row(variant: str, player: str, verdicts: dict[int, Verdict], rates: dict[str, list[float]],
        workers: int) -> str:
    """One line of the table."""
    summary = summarise(verdicts)
    local = statistics.median(rates["local"]) if rates.get("local") else 0.0
    remote = statistics.median(rates["cluster"]) if rates.get("cluster") else 0.0
    overhead = f"{100 * (local / remote - 1):+.1f}%" if local and remote else "—"
    cost = workers / (local or remote)
    mean = sum(v.seconds for v in verdicts.values()) / max(1, len(verdicts))
    return (f"| {variant} | {player} | {summary.deals} | {summary.won} | {summary.lost} | {summary.unknown} "
            f"| {local:.2f} | {remote:.2f} | {overhead} | {cost:.3f} | {mean:.3f} |")


if __name__ == "__main__":
    main()
