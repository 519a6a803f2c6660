"""A survey's verdicts and figures: the verdicts of a range of deals held
in arrays (:class:`Tally`), what a survey counts of a stored verdict, and
the summary it reports (counts, the win rate's Wilson interval, time
percentiles) as text, JSON or a Markdown table.

>>> low, high = wilson_interval(50, 100)
>>> round(low, 3), round(high, 3)
(0.404, 0.596)
>>> percentile([1.0, 2.0, 3.0, 4.0], 50)
2.5
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, replace
from typing import Any

from terrace.rules import Rules
from terrace.solver.verdicts import RESULTS, Verdict, VerdictStore, at_budget

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # (at none and at all, its ends are 0 and 1 exactly: the formula's
    # rounding gave 5.55e-17 for 0 of 3, and 0.9999999999999999 for 30 of 30)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


def percentile(values: list[float], q: float, ordered: bool = False) -> float:
    """The ``q``-th percentile with linear interpolation (0 for no values);
    ``ordered``: the values are sorted already (not sorted again)."""
    if not values:
        return 0.0
    data = values if ordered else sorted(values)
    pos = (len(data) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def counted(kept: Verdict, found: Verdict, max_seconds: float, lines: bool = True) -> Verdict:
    """What a survey with ``max_seconds`` per deal counts of a deal it
    solved: the verdict the store ``kept`` (``found`` itself, or a stronger
    one another run stored meanwhile), as :func:`usable` counts it; without
    its line unless ``lines``.

    >>> counted(Verdict("won", 9, 2.5, 10.0, "c1 s"), Verdict("unknown", 5, 0.3, 0.3), 0.3, False)
    Verdict(result='won', nodes=9, seconds=0.3, max_seconds=10.0, line='')
    """
    verdict = at_budget(kept, max_seconds) or found
    return verdict if lines or not verdict.line else replace(verdict, line="")


def usable(stored: Mapping[int, Verdict], max_seconds: float) -> dict[int, Verdict]:
    """The stored verdicts a survey with ``max_seconds`` per deal counts
    (see :func:`terrace.solver.verdicts.at_budget`: every ``won`` and
    ``lost``, an ``unknown`` of at least that budget); the other deals are
    solved."""
    counted = {number: at_budget(verdict, max_seconds) for number, verdict in stored.items()}
    return {number: verdict for number, verdict in counted.items() if verdict is not None}


TALLY_PAGE = 4096
"""Deals a page of a :class:`Tally` holds (made at its first verdict)."""


class _Page:
    """The verdicts of :data:`TALLY_PAGE` consecutive deals, in arrays."""

    __slots__ = ("budget", "nodes", "result", "seconds")

    def __init__(self) -> None:
        self.result = bytearray(TALLY_PAGE)  # (0: no verdict, else 1 + its index in RESULTS)
        self.nodes = array("q", bytes(8 * TALLY_PAGE))
        self.seconds = array("d", bytes(8 * TALLY_PAGE))
        self.budget = array("d", bytes(8 * TALLY_PAGE))

    def held(self) -> Iterator[int]:
        """The places of the page that hold a verdict."""
        result = self.result
        return (place for place in range(TALLY_PAGE) if result[place])


class Tally(MutableMapping[int, Verdict]):
    """The verdicts of a survey's deals ``first..last``, by deal number, held
    in arrays, a page of :data:`TALLY_PAGE` deals made at its first
    verdict: about 25 bytes a deal where a dict of :class:`Verdict`
    objects held about 250 (a survey resumed over a million stored deals
    held 910 MB). A line is kept only when it is not empty.

    >>> tally = Tally(10, 19)
    >>> tally[12] = Verdict("won", 9, 0.5, 1.0, "c1 s")
    >>> tally[12], 11 in tally, len(tally), list(tally)
    (Verdict(result='won', nodes=9, seconds=0.5, max_seconds=1.0, line='c1 s'), False, 1, [12])
    >>> tally.counts(), list(tally.seconds()), tally.nodes()
    ({'won': 1, 'lost': 0, 'unknown': 0}, [0.5], 9)
    """

    def __init__(self, first: int, last: int) -> None:
        self.first, self.last = first, last
        self._pages: dict[int, _Page] = {}
        self._lines: dict[int, str] = {}
        self._count = 0

    def _place(self, number: object) -> tuple[int, int]:
        if not (isinstance(number, int) and self.first <= number <= self.last):
            raise KeyError(number)
        return divmod(number - self.first, TALLY_PAGE)

    def __contains__(self, number: object) -> bool:
        try:
            page, place = self._place(number)
        except KeyError:
            return False
        return page in self._pages and bool(self._pages[page].result[place])

    def __getitem__(self, number: int) -> Verdict:
        index, place = self._place(number)
        page = self._pages.get(index)
        if page is None or not page.result[place]:
            raise KeyError(number)
        return Verdict(RESULTS[page.result[place] - 1], page.nodes[place], page.seconds[place],
                       page.budget[place], self._lines.get(number, ""))

    def __setitem__(self, number: int, verdict: Verdict) -> None:
        index, place = self._place(number)
        page = self._pages.get(index)
        if page is None:
            page = self._pages[index] = _Page()
        self._count += not page.result[place]
        page.result[place] = RESULTS.index(verdict.result) + 1
        page.nodes[place], page.seconds[place] = verdict.nodes, verdict.seconds
        page.budget[place] = verdict.max_seconds
        if verdict.line:
            self._lines[number] = verdict.line
        else:
            self._lines.pop(number, None)

    def __delitem__(self, number: int) -> None:
        index, place = self._place(number)
        page = self._pages.get(index)
        if page is None or not page.result[place]:
            raise KeyError(number)
        page.result[place] = 0
        self._lines.pop(number, None)
        self._count -= 1

    def __iter__(self) -> Iterator[int]:
        for index in sorted(self._pages):
            start = self.first + index * TALLY_PAGE
            yield from (start + place for place in self._pages[index].held())

    def __len__(self) -> int:
        return self._count

    def counts(self) -> dict[str, int]:
        """How many deals have each result."""
        return {name: sum(page.result.count(code + 1) for page in self._pages.values())
                for code, name in enumerate(RESULTS)}

    def seconds(self) -> Iterator[float]:
        """The seconds of each deal with a verdict, in deal order."""
        for index in sorted(self._pages):
            page = self._pages[index]
            yield from (page.seconds[place] for place in page.held())

    def nodes(self) -> int:
        """The nodes of every deal with a verdict, added up."""
        return sum(page.nodes[place] for page in self._pages.values() for place in page.held())


def times(verdicts: Mapping[int, Verdict]) -> Iterator[float]:
    """The seconds of each verdict (a :class:`Tally`'s read from its arrays).

    >>> list(times({3: Verdict("won", 1, 0.25, 1.0)}))
    [0.25]
    """
    if isinstance(verdicts, Tally):
        return verdicts.seconds()
    return (verdict.seconds for verdict in verdicts.values())


def stored_tally(store: VerdictStore, rules: Rules, first: int, last: int, key: str, max_seconds: float,
                 lines: bool = True) -> Tally:
    """The stored verdicts of deals ``first..last`` (player ``key``) that a
    survey with ``max_seconds`` per deal counts, as :func:`usable` does,
    read one at a time into a :class:`Tally`."""
    tally = Tally(first, last)
    for number, verdict, _ in store.each(rules, first, last, key, lines):
        if (counts := at_budget(verdict, max_seconds)) is not None:
            tally[number] = counts
    return tally


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


def summarise(verdicts: Mapping[int, Verdict]) -> Summary:
    """Counts, the win rate's Wilson 95% interval (unknowns counted as
    losses for the lower bound and as wins for the upper), time percentiles."""
    if isinstance(verdicts, Tally):  # (read from its arrays: no Verdict made for each deal)
        results, total_nodes = verdicts.counts(), verdicts.nodes()
        seconds = sorted(verdicts.seconds())
    else:
        values = verdicts.values()
        results = {name: sum(v.result == name for v in values) for name in RESULTS}
        total_nodes = sum(v.nodes for v in values)
        seconds = sorted(v.seconds for v in values)  # (once, not for each percentile)
    won, lost, unknown = results["won"], results["lost"], results["unknown"]
    deals = len(seconds)
    low, _ = wilson_interval(won, deals)
    _, high = wilson_interval(won + unknown, deals)
    total_time = sum(seconds)
    nps = total_nodes / total_time if total_time > 0 else 0.0
    return Summary(
        deals, won, lost, unknown, low, high,
        percentile(seconds, 50, True), percentile(seconds, 90, True), percentile(seconds, 99, True), nps,
    )


def summary_json(summary: Summary, seconds: float) -> dict[str, Any]:
    """The ``terrace survey --json`` report: counts, the win rate (won over
    deals), its Wilson 95% interval (unknown deals counted as lost for the
    low end, as won for the high end) and the seconds the deals took, added
    up (the same whichever process pool or cluster ran them).

    >>> s = summarise({1: Verdict("won", 0, 1.0, 5.0), 2: Verdict("lost", 0, 2.0, 5.0)})
    >>> summary_json(s, 3.0)["win_rate"]
    0.5
    """
    return {
        "deals": summary.deals,
        "won": summary.won,
        "lost": summary.lost,
        "unknown": summary.unknown,
        "win_rate": round(summary.won / summary.deals, 6) if summary.deals else 0.0,
        "wilson_low": round(summary.low, 6),
        "wilson_high": round(summary.high, 6),
        "seconds": round(seconds, 3),
    }


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
