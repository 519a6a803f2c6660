"""Surveys: solve a range of numbered deals in parallel and summarise.

>>> low, high = wilson_interval(50, 100)
>>> round(low, 3), round(high, 3)
(0.404, 0.596)
>>> percentile([1.0, 2.0, 3.0, 4.0], 50)
2.5
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from terrace.board import Board
from terrace.rules import Rules
from terrace.solver.api import solve
from terrace.solver.verdicts import Verdict, VerdictStore, settled

Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile with linear interpolation (0 for no values)."""
    if not values:
        return 0.0
    data = sorted(values)
    pos = (len(data) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def solve_deal(job: tuple[Rules, int, float]) -> tuple[int, Verdict, int]:
    """Solve one numbered deal (in a worker process); also returns the
    worker's peak memory in kB."""
    rules, number, max_seconds = job
    board = Board.from_number(number, rules)
    result = solve(board, max_seconds=max_seconds, all_candidates=False)
    verdict = Verdict(
        result.result, result.nodes, result.seconds, max_seconds,
        " ".join(str(m) for m in result.moves),
    )
    return number, verdict, _peak_kb()


def _peak_kb() -> int:
    try:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    except (ImportError, OSError):  # pragma: no cover - not on Linux
        return 0


def run_survey(
    rules: Rules,
    first: int,
    last: int,
    *,
    jobs: int,
    max_seconds: float,
    store: VerdictStore,
    on_result: Callable[[int, Verdict], None] | None = None,
) -> tuple[dict[int, Verdict], int]:
    """Solve deals ``first..last`` that the store does not already settle,
    storing each verdict as it comes; returns every verdict of the range
    and the largest worker peak memory (kB) seen in this run."""
    known = store.range(rules, first, last)
    todo = [n for n in range(first, last + 1) if not settled(known.get(n), max_seconds)]
    peak = 0
    results: Iterator[tuple[int, Verdict, int]]
    jobs_list = [(rules, n, max_seconds) for n in todo]
    if jobs <= 1 or len(todo) <= 1:
        results = map(solve_deal, jobs_list)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(jobs, maxtasksperchild=50)
        results = pool.imap_unordered(solve_deal, jobs_list)
    try:
        for number, verdict, kb in results:
            store.put(rules, number, verdict)
            known[number] = verdict
            peak = max(peak, kb)
            if on_result is not None:
                on_result(number, verdict)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return known, peak


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of a survey."""

    deals: int
    won: int
    lost: int
    unknown: int
    low: float
    high: float
    p50: float
    p90: float
    p99: float
    mean_nodes_per_second: float

    @property
    def decided(self) -> float:
        """The share of deals decided (won or lost)."""
        return (self.won + self.lost) / self.deals if self.deals else 0.0


def summarise(verdicts: dict[int, Verdict]) -> Summary:
    """Counts, the win rate's Wilson 95% interval (unknowns counted as
    losses for the lower bound and as wins for the upper), time percentiles."""
    values = list(verdicts.values())
    won = sum(v.result == "won" for v in values)
    lost = sum(v.result == "lost" for v in values)
    unknown = len(values) - won - lost
    low, _ = wilson_interval(won, len(values))
    _, high = wilson_interval(won + unknown, len(values))
    seconds = [v.seconds for v in values]
    total_time = sum(seconds)
    nps = sum(v.nodes for v in values) / total_time if total_time > 0 else 0.0
    return Summary(
        len(values), won, lost, unknown, low, high,
        percentile(seconds, 50), percentile(seconds, 90), percentile(seconds, 99), nps,
    )


def markdown_table(title: str, summary: Summary, command: str, max_seconds: float) -> str:
    """One survey as a Markdown table."""
    s = summary
    rate = s.won / s.deals if s.deals else 0.0
    return "\n".join([
        f"### {title}",
        "",
        "| deals | won | lost | unknown | win rate (won/deals) | Wilson 95% (unknown = lost .. won) "
        "| decided | median s | 90th pct s | 99th pct s | budget s |",
        "|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
        f"| {s.deals} | {s.won} | {s.lost} | {s.unknown} | {100 * rate:.1f}% "
        f"| {100 * s.low:.1f}% .. {100 * s.high:.1f}% | {100 * s.decided:.1f}% "
        f"| {s.p50:.3f} | {s.p90:.3f} | {s.p99:.3f} | {max_seconds:g} |",
        "",
        f"Reproduce: `{command}`",
        "",
    ])


def parse_range(text: str) -> tuple[int, int]:
    """``"1-10000"`` or ``"7"`` as an inclusive range."""
    parts = text.replace(" ", "").split("-")
    if len(parts) == 1 and parts[0].isdigit():
        return int(parts[0]), int(parts[0])
    if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
        first, last = int(parts[0]), int(parts[1])
        if first <= last:
            return first, last
    raise ValueError(f"{text!r} is not a range of deal numbers such as 1-10000")


def now() -> float:
    """Wall-clock seconds (monotonic)."""
    return time.perf_counter()
