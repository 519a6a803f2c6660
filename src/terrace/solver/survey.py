"""Surveys: solve (or play out) a range of numbered deals in parallel and
summarise. One deal is one call of the pure function
:func:`terrace.solver.playout.play_deal`, in the worker processes of
:mod:`terrace.solver.pool`; verdicts are stored as they come, keyed by
player, so an interrupted survey resumes, and counted in a
:class:`~terrace.solver.tally.Tally`.

>>> parse_range("1-200")
(1, 200)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import suppress
from itertools import chain, islice
from typing import Any

from terrace.deal import check_number
from terrace.refusals import quote
from terrace.rules import Rules, given_rules
from terrace.solver.budget import check_budget
from terrace.solver.players import player_key, player_settings
from terrace.solver.playout import play_deal
from terrace.solver.pool import WorkerDiedError, check_jobs, peak_kb, start_pool, stop_pool, watched
from terrace.solver.stops import interrupts_deferred, stops_kept
from terrace.solver.tally import Tally, counted, stored_tally
from terrace.solver.verdicts import Verdict, VerdictCacheError, VerdictStore
from terrace.whole import whole_text

Job = tuple[Rules, int, str, dict[str, Any], int, float]
"""One deal of a survey: rules, deal number, player, its settings, the
survey's seed and the budget per deal, the arguments of ``play_deal``."""


def survey_jobs(rules: Rules, first: int, last: int, known: Mapping[int, Verdict], player: str,
                settings: dict[str, Any], seed: int, max_seconds: float) -> Iterator[Job]:
    """The jobs of deals ``first..last`` not in ``known``, each made as it
    is taken (a survey's pool and cluster take them a few at a time, so a
    million-deal survey holds a few of them, not a million). ``known`` is
    read as they are taken: a deal added to it before its turn is left out.

    >>> known = {4: Verdict("won", 1, 0.1, 1.0)}
    >>> [job[1] for job in survey_jobs(Rules(), 3, 7, known, "perfect", {}, 0, 1.0)]
    [3, 5, 6, 7]
    """
    for number in range(first, last + 1):
        if number not in known:
            yield rules, number, player, settings, seed, max_seconds


def run_job(job: Job) -> tuple[int, Verdict, int]:
    """Play or solve one deal (in a worker process); also returns the
    worker's peak memory in kB."""
    rules, number, player, settings, seed, budget = job
    return number, play_deal(rules, number, player, settings, seed, budget), peak_kb()


def run_jobs(batch: list[Job]) -> list[tuple[int, Verdict, int]]:
    """Play or solve a batch of deals, one after another (in a worker
    process; see :func:`batch_size`)."""
    return [run_job(job) for job in batch]


BATCH_SECONDS = 0.05
"""The most budget, added up over its deals, that the local pool hands a
worker at once (see :func:`batch_size`)."""

BATCH_DEALS = 50
"""The most deals the local pool hands a worker at once, whatever their
budget (a deal takes a millisecond or more: a batch takes a fraction of a
second, not minutes, and its verdicts come as it ends)."""


def batch_size(max_seconds: float, todo: int, workers: int) -> int:
    """How many deals of ``max_seconds`` each a worker of the local pool
    takes at once: as many as :data:`BATCH_SECONDS` of budget holds, at
    most :data:`BATCH_DEALS`, and at most a quarter of a worker's share of the ``todo`` deals (so that
    the last deals are still shared). Handed over one at a time, at 0.001 s
    a deal each cost the survey's process about 0.8 CPU ms (pickling,
    pipes, the pool's threads): falling-star 1-1000 took 2.85 CPU s with
    ``--jobs 2``, 1.93 with ``--jobs 1``, and takes 2.17 in batches.

    >>> batch_size(0.001, 1000, 2), batch_size(0.01, 1000, 2), batch_size(10.0, 1000, 2)
    (50, 5, 1)
    >>> batch_size(0.001, 40, 2), batch_size(1e-320, 10**6, 2), batch_size(0.001, 3, 2)
    (5, 50, 1)
    """
    return max(1, int(min(todo // (4 * workers), BATCH_DEALS, BATCH_SECONDS / max_seconds)))


def _batches(jobs: Iterator[Job], size: int) -> Iterator[list[Job]]:
    """The ``jobs`` in lists of ``size`` (the last one shorter), each made
    as the pool takes it."""
    while batch := list(islice(jobs, size)):
        yield batch


def run_survey(
    rules: Rules,
    first: int,
    last: int,
    *,
    jobs: int,
    max_seconds: float,
    store: VerdictStore,
    on_result: Callable[[int, Verdict], None] | None = None,
    player: str = "perfect",
    settings: Mapping[str, Any] | None = None,
    seed: int = 0,
    lines: bool = True,
) -> tuple[Tally, int]:
    """Solve deals ``first..last`` (or let ``player`` play them) that the
    store does not already settle, storing the verdicts as they come (in groups, see :class:`_Group`); returns
    every verdict of the range and the largest worker peak memory (kB) seen
    in this run. ``max_seconds`` is the budget per deal; a stored verdict
    counts as :func:`terrace.solver.verdicts.at_budget` says. A range that
    :func:`check_range` refuses, or ``jobs`` that :func:`check_jobs`
    refuses, is refused before anything runs. Without
    ``lines`` the verdicts returned (and given to ``on_result``) have no
    line (``""``; the store keeps them): the figures of a million deals
    need not hold 700 MB of winning lines. ``rules`` that are no
    :class:`~terrace.rules.Rules` (a preset's name) are a ``TypeError``."""
    rules = given_rules(rules, default=False)
    max_seconds = check_budget(max_seconds)
    check_range(first, last)
    jobs = check_jobs(jobs)
    full = player_settings(player, settings)
    key = player_key(player, full, seed)
    known = stored_tally(store, rules, first, last, key, max_seconds, lines)
    todo = last - first + 1 - len(known)
    if todo:
        store.check_writable()  # (before the first deal is solved, not after)
    peak = 0
    results: Iterator[tuple[int, Verdict, int]]
    # (made as the workers take them: a list of a million jobs held 150 MB)
    jobs_list = survey_jobs(rules, first, last, known, player, full, seed, max_seconds)
    group = _Group(store, rules, key, max_seconds, lines, known, on_result)
    pool = None
    # (with a pool, a stop waits for the loop's next look, at most
    # WATCH_SECONDS: it could break the waits of the pool's threads, or
    # the start of its workers, midway; see stops_kept)
    with stops_kept(held=jobs > 1 and todo > 1) as stopped:
        try:
            if jobs <= 1 or todo <= 1:
                results = map(run_job, jobs_list)
            else:
                # (no more workers than deals: each one costs a process start)
                workers = min(jobs, todo)
                pool = start_pool(workers)
                size = batch_size(max_seconds, todo, workers)
                handed = pool.imap_unordered(run_jobs, _batches(jobs_list, size))
                results = chain.from_iterable(watched(pool, handed, max_seconds, group.waiting(stopped),
                                                       size))
            for number, found, kb in results:
                group.add(number, found)
                peak = max(peak, kb)
                stopped()
            group.store()
        except (KeyboardInterrupt, WorkerDiedError):
            # (what was solved before a stop, or before a worker died, is
            # stored: the group is never lost but to SIGKILL or the store)
            with suppress(VerdictCacheError):
                group.store()
            raise
        finally:
            if pool is not None:
                stop_pool(pool)
    return known, peak


GROUP_VERDICTS = 200
"""The most verdicts a survey holds before it stores them, in one
transaction (see :class:`_Group`)."""

GROUP_SECONDS = 1.0
"""The longest a survey holds a verdict before it stores it (see :class:`_Group`)."""


class _Group:
    """The verdicts a survey has found and not stored yet. Each transaction
    waits for the disk (a few fsyncs), and at small budgets that was most
    of a survey's time; so verdicts are stored in groups of at most
    :data:`GROUP_VERDICTS`, none held longer than about
    :data:`GROUP_SECONDS` (a deal whose budget is that long or longer is
    stored as it comes). A survey killed outright (SIGKILL, the machine
    gone) loses at most that group, which the same survey run again solves
    again; Ctrl+C, SIGTERM and a worker that died store it first. A verdict
    is counted (``known``, ``on_result``) once stored, as what the store
    then holds (:func:`counted`), so a survey's figures are those of its
    file."""

    def __init__(self, store: VerdictStore, rules: Rules, key: str, max_seconds: float, lines: bool,
                 known: MutableMapping[int, Verdict],
                 on_result: Callable[[int, Verdict], None] | None) -> None:
        self.store_, self.rules, self.key, self.max_seconds = store, rules, key, max_seconds
        self.lines, self.known, self.on_result = lines, known, on_result
        self.pending: dict[int, Verdict] = {}
        self.since = 0.0

    def add(self, number: int, found: Verdict) -> None:
        """Hold a verdict found; store the group when it is due."""
        if not self.pending:
            self.since = time.monotonic()
        self.pending[number] = found
        if len(self.pending) >= GROUP_VERDICTS or self.max_seconds >= GROUP_SECONDS or self._held_long():
            self.store()

    def _held_long(self) -> bool:
        """Whether the verdicts held include one held for :data:`GROUP_SECONDS`."""
        return bool(self.pending) and time.monotonic() - self.since >= GROUP_SECONDS

    def waiting(self, stopped: Callable[[], None]) -> Callable[[], None]:
        """What a survey does while it waits for its workers: store a group
        held for :data:`GROUP_SECONDS`, then ``stopped``."""
        def wait() -> None:
            if self._held_long():
                self.store()
            stopped()
        return wait

    def store(self) -> None:
        """Store the verdicts held, in one transaction, and count them.
        Every stop meanwhile (Ctrl+C pressed twice too) waits until they
        are stored and counted (the count a stopped survey says is the rows
        it stored)."""
        if not self.pending:
            return
        with interrupts_deferred(every=True):
            kept = self.store_.put_many(self.rules, self.pending, self.key)
            found, self.pending = self.pending, {}
            for number, verdict in found.items():
                # (what the store holds counts: a won another run stored
                # meanwhile stays there, and its resume would count it)
                self.known[number] = counted(kept[number], verdict, self.max_seconds, self.lines)
                if self.on_result is not None:
                    self.on_result(number, self.known[number])


MAX_SURVEY_DEALS = 1_000_000
"""The most deals one survey covers (a larger range is several surveys)."""


def check_range(first: int, last: int) -> int:
    """How many deals ``first..last`` holds, when they are a survey's range:
    deal numbers (see :func:`terrace.deal.check_number`), ``first`` not
    after ``last``, at most :data:`MAX_SURVEY_DEALS` of them; else a
    ``ValueError`` saying why.

    >>> check_range(1, 10)
    10
    >>> check_range(0, 10**7)
    Traceback (most recent call last):
    ValueError: 0-10000000 holds 10,000,001 deals: one survey covers at most 1,000,000
    """
    check_number(first)
    check_number(last)
    if first > last:
        raise _backwards(first, last)
    count = last - first + 1
    if count > MAX_SURVEY_DEALS:
        raise ValueError(f"{first}-{last} holds {count:,} deals: "
                         f"one survey covers at most {MAX_SURVEY_DEALS:,}")
    return count


def parse_range(text: str) -> tuple[int, int]:
    """``"1-10000"`` or ``"7"`` as an inclusive range, each number written
    as ``--deal-number`` takes one (:func:`terrace.whole.whole_text`: a
    ``+`` and spaces around it taken, ``-n +3`` and ``--deals +3`` alike;
    never a space inside one: ``"1 2"`` is not deal 12).

    >>> parse_range(" 3 - 9 "), parse_range("+3")
    ((3, 9), (3, 3))
    >>> parse_range("1 2")
    Traceback (most recent call last):
    ValueError: '1 2' is not a range of deal numbers such as 1-10000
    >>> parse_range("10-1")
    Traceback (most recent call last):
    ValueError: 10-1 is not a range of deal numbers (its first comes after its last)
    """
    numbers = [whole_text(part) for part in text.split("-", 2)]
    if len(numbers) == 1 and numbers[0] is not None:
        return numbers[0], numbers[0]
    if len(numbers) == 2 and numbers[0] is not None and numbers[1] is not None:
        if numbers[0] > numbers[1]:
            raise _backwards(numbers[0], numbers[1])
        return numbers[0], numbers[1]
    raise ValueError(f"{quote(text)} is not a range of deal numbers such as 1-10000")


def _backwards(first: int, last: int) -> ValueError:
    """The refusal of a range whose first deal comes after its last."""
    return ValueError(f"{first}-{last} is not a range of deal numbers (its first comes after its last)")


def now() -> float:
    """Wall-clock seconds (monotonic)."""
    return time.perf_counter()
