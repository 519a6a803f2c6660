"""Survey benchmark: the local process pool against a Dask LocalCluster.

Runs the same deals with the same budget and the same number of worker
processes through :func:`~terrace.solver.survey.run_survey` (the local
pool) and :func:`~terrace.solver.cluster.run_cluster_survey` (a
LocalCluster, started once beforehand: its start-up is printed apart), each
run on an empty verdict store, the two backends taking turns; prints per
preset and player the median deals per second of each and the cluster's
overhead in wall time, and the CPU seconds per deal of each backend (the
worker processes' CPU time, which other programs on a busy machine do not
inflate as they inflate wall time): the cost of a deal per core, the
figure docs/cluster.md scales up.

    .venv/bin/python bench/survey.py                                # terrace, perfect, 1-100, 10 s
    .venv/bin/python bench/survey.py --variants terrace,madame --players perfect,greedy --deals 1-40
    .venv/bin/python bench/survey.py --backends local --players fair --deals 1-4 --max-seconds 600

Needs ``terrace[cluster]`` for the cluster backend.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from terrace.cli.options import DealRange, WholeNumber, argparse_type, seconds_argument
from terrace.rules import Rules
from terrace.solver.fair import SETTING_LIMITS
from terrace.solver.players import PLAYERS, player_settings
from terrace.solver.pool import MAX_WORKERS
from terrace.solver.survey import parse_range, run_survey
from terrace.solver.tally import percentile, summarise
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import get_rules

MAX_REPEATS = 1000
"""The most runs per backend ``--repeats`` asks for."""

Run = Callable[[VerdictStore], dict[int, Verdict]]
Clock = Callable[[], float]


def children_cpu() -> float:
    """CPU seconds of the local pool's finished worker processes, of this
    process's finished children, and of this process itself (a survey of
    one job runs here). The pool's workers are forked by the fork server,
    so their time is its children's (``/proc``), not this process's:
    read once the server has reaped every worker that ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return children.ru_utime + children.ru_stime + time.process_time() + _fork_server_children_cpu()


def _fork_server_children_cpu(wait: float = 10.0) -> float:
    """CPU seconds of the fork server's reaped children (0 without one, or
    off Linux), after waiting up to ``wait`` seconds for it to reap those
    that ended (a closed pool's workers have ended, but are reaped by the
    server when it gets to it)."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid is None:
        return 0.0
    try:
        deadline = time.monotonic() + wait
        while _ended_children(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # (after the name: state is field 3, cutime and cstime fields 16 and 17)
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def _ended_children(pid: int) -> bool:
    """True while a child of ``pid`` has ended but is not yet reaped."""
    with open(f"/proc/{pid}/task/{pid}/children") as listed:
        children = listed.read().split()
    for child in children:
        try:
            with open(f"/proc/{child}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except OSError:
            continue
    return False


def workers_cpu(client: Any) -> float:
    """CPU seconds of the cluster's worker processes so far."""
    return float(sum(client.run(time.process_time).values()))


def timed(run: Run, clock: Clock, folder: str, name: str) -> tuple[float, float, dict[int, Verdict]]:
    """Wall and CPU seconds of one run on an empty store, and its verdicts."""
    path = os.path.join(folder, f"{name}.sqlite3")
    if os.path.exists(path):
        os.remove(path)
    store = VerdictStore(path)
    cpu = clock()
    start = time.perf_counter()
    verdicts = run(store)
    wall = time.perf_counter() - start
    cpu = clock() - cpu
    store.close()
    return wall, cpu, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="terrace")
    parser.add_argument("--players", default="perfect", help=f"Comma-separated, of {', '.join(PLAYERS)}.")
    parser.add_argument("--deals", type=argparse_type(DealRange()), default="1-100")
    parser.add_argument("--max-seconds", type=seconds_argument, default=10.0, help="Budget per deal.")
    parser.add_argument("--samples", type=argparse_type(WholeNumber(*SETTING_LIMITS["samples"])),
                        default=None,
                        help="Sampled stock orders (fair player).")
    parser.add_argument("--workers", type=argparse_type(WholeNumber(1, MAX_WORKERS)),
                        default=min(os.cpu_count() or 1, MAX_WORKERS))
    parser.add_argument("--repeats", type=argparse_type(WholeNumber(1, MAX_REPEATS)), default=3,
                        help="Runs per backend (the median is shown).")
    parser.add_argument("--backends", default="local,cluster",
                        help="local, cluster or both (the default; also written local,cluster).")
    args = parser.parse_args()
    first, last = parse_range(args.deals)
    players = list(dict.fromkeys(name.strip() for name in args.players.split(",")))  # (each once)
    try:
        backends = parse_backends(args.backends)
        variants = {name.strip(): get_rules(name.strip()) for name in args.variants.split(",")}
        for player in players:  # (refused as the survey refuses it, before anything runs)
            player_settings(player, None)
    except ValueError as error:  # (also every refusal of the rules)
        parser.error(str(error))
    if args.samples is not None and "fair" not in players:
        parser.error("--samples is for the fair player: the others sample nothing")
    deals = last - first + 1
    fair_settings = None if args.samples is None else {"samples": args.samples}
    scratch = tempfile.TemporaryDirectory(prefix="terrace-bench-survey-")  # (removed on the way out)
    folder = scratch.name
    clocks: dict[str, Clock] = {"local": children_cpu}
    scheduler = ""
    local_cluster = client = None
    if "cluster" in backends:
        from distributed import Client, LocalCluster

        start = time.perf_counter()
        local_cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                     dashboard_address=":0")
        scheduler = local_cluster.scheduler_address
        client = Client(local_cluster)
        clocks["cluster"] = partial(workers_cpu, client)
        print(f"LocalCluster of {args.workers} workers started in {time.perf_counter() - start:.1f} s "
              "(not in the figures below)")
    print(f"deals {first}-{last}, {args.max_seconds:g} s each, {args.workers} worker processes, "
          f"median of {args.repeats} runs per backend, each on an empty verdict store")
    print()
    print("| preset | player | deals | won | lost | unknown | median s | local deals/s | cluster deals/s "
          "| wall overhead | local CPU s/deal | cluster CPU s/deal | CPU overhead |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for variant, rules in variants.items():
            for player in players:
                settings = fair_settings if player == "fair" else None
                runs: dict[str, Run] = {
                    "local": partial(_local_run, rules, first, last, args.workers, args.max_seconds,
                                     player=player, settings=settings),
                    "cluster": partial(_cluster_run, rules, first, last, scheduler, args.max_seconds,
                                       player=player, settings=settings),
                }
                rates: dict[str, list[float]] = {b: [] for b in backends}
                cpus: dict[str, list[float]] = {b: [] for b in backends}
                verdicts: dict[int, Verdict] = {}
                for _ in range(args.repeats):
                    for backend in backends:
                        wall, cpu, verdicts = timed(runs[backend], clocks[backend], folder, backend)
                        rates[backend].append(deals / wall)
                        cpus[backend].append(cpu / deals)
                print(row(variant, player, verdicts, rates, cpus), flush=True)
    finally:
        if client is not None:
            client.close()
        if local_cluster is not None:
            local_cluster.close()
        scratch.cleanup()


def parse_backends(text: str) -> list[str]:
    """The backends ``--backends`` names, in order: ``local``, ``cluster``,
    both of them comma-separated, or ``both``.

    >>> parse_backends("both"), parse_backends("cluster"), parse_backends("cluster, local")
    (['local', 'cluster'], ['cluster'], ['cluster', 'local'])
    >>> parse_backends("locl")
    Traceback (most recent call last):
    ValueError: --backends: 'locl' is not local, cluster or both
    """
    names: list[str] = []
    for word in (w.strip() for w in text.split(",")):
        chosen = ["local", "cluster"] if word == "both" else [word]
        if chosen[0] not in ("local", "cluster"):
            raise ValueError(f"--backends: {word!r} is not local, cluster or both")
        names += [name for name in chosen if name not in names]
    return names


def _local_run(rules: Rules, first: int, last: int, workers: int, budget: float, store: VerdictStore, *,
               player: str, settings: dict[str, int] | None) -> dict[int, Verdict]:
    return run_survey(rules, first, last, jobs=workers, max_seconds=budget, store=store, player=player,
                      settings=settings)[0]


def _cluster_run(rules: Rules, first: int, last: int, scheduler: str, budget: float, store: VerdictStore, *,
                 player: str, settings: dict[str, int] | None) -> dict[int, Verdict]:
    from terrace.solver.cluster import run_cluster_survey

    return run_cluster_survey(rules, first, last, scheduler=scheduler, max_seconds=budget,
                              store=store, player=player, settings=settings)[0]


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def _figure(values: list[float], digits: int) -> str:
    """The median of a backend's runs, or a dash for a backend not run
    (``--backends local`` showed the cluster at 0.00 deals/s)."""
    return f"{_median(values):.{digits}f}" if values else "—"


def _overhead(local: float, remote: float, higher_is_worse: bool) -> str:
    if not (local and remote):
        return "—"
    ratio = remote / local if higher_is_worse else local / remote
    return f"{100 * (ratio - 1):+.1f}%"


def row(variant: str, player: str, verdicts: dict[int, Verdict], rates: dict[str, list[float]],
        cpus: dict[str, list[float]]) -> str:
    """One line of the table (medians over the runs; a dash for a backend not run).

    >>> row("terrace", "perfect", {1: Verdict("won", 9, 0.5, 1.0)}, {"local": [4.0]}, {"local": [0.25]})
    '| terrace | perfect | 1 | 1 | 0 | 0 | 0.500 | 4.00 | — | — | 0.250 | — | — |'
    """
    summary = summarise(verdicts)
    local, remote = rates.get("local", []), rates.get("cluster", [])
    local_cpu, remote_cpu = cpus.get("local", []), cpus.get("cluster", [])
    median = percentile([v.seconds for v in verdicts.values()], 50)
    return (f"| {variant} | {player} | {summary.deals} | {summary.won} | {summary.lost} | {summary.unknown} "
            f"| {median:.3f} | {_figure(local, 2)} | {_figure(remote, 2)} "
            f"| {_overhead(_median(local), _median(remote), False)} "
            f"| {_figure(local_cpu, 3)} | {_figure(remote_cpu, 3)} "
            f"| {_overhead(_median(local_cpu), _median(remote_cpu), True)} |")


if __name__ == "__main__":
    main()
