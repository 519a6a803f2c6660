"""Surveys: solve (or play out) a range of numbered deals in parallel and
summarise. One deal is one call of the pure function
:func:`terrace.solver.playout.play_deal`; verdicts are stored as they come,
keyed by player, so an interrupted survey resumes.

>>> low, high = wilson_interval(50, 100)
>>> round(low, 3), round(high, 3)
(0.404, 0.596)
>>> percentile([1.0, 2.0, 3.0, 4.0], 50)
2.5
"""

from __future__ import annotations

import io
import math
import multiprocessing
import multiprocessing.connection
import multiprocessing.pool
import os
import signal
import sys
import threading
import time
import warnings
from array import array
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain, islice
from typing import Any, TextIO, cast

from terrace.deal import check_number
from terrace.refusals import quote
from terrace.rules import Rules, given_rules
from terrace.solver.budget import check_budget
from terrace.solver.players import player_key, player_settings
from terrace.solver.playout import play_deal
from terrace.solver.stops import STOPS, interrupts_deferred, interrupts_held, stops_blocked, stops_kept
from terrace.solver.verdicts import RESULTS, Verdict, VerdictCacheError, VerdictStore, at_budget
from terrace.whole import as_whole, whole_text

Z95 = 1.959963984540054

MAX_WORKERS = 256
"""The most worker processes a survey starts: its local pool's
(``terrace survey --jobs``) and a local cluster's (``--scheduler local:N``)."""


def check_jobs(jobs: object) -> int:
    """``jobs`` as a plain ``int`` when it is a whole number of worker
    processes from 1 to :data:`MAX_WORKERS`; else a ``ValueError`` saying so
    (:func:`run_survey` took 0 or -3 as one process, 2.5 failed inside
    multiprocessing, and a million started a process per deal).

    >>> check_jobs(2)
    2
    >>> check_jobs(2.5)
    Traceback (most recent call last):
    ValueError: jobs must be a whole number of worker processes from 1 to 256, not 2.5
    """
    whole = as_whole(jobs)
    if whole is None or not 1 <= whole <= MAX_WORKERS:
        raise ValueError(f"jobs must be a whole number of worker processes from 1 to {MAX_WORKERS}, "
                         f"not {quote(jobs)}")
    return whole


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
    return number, play_deal(rules, number, player, settings, seed, budget), _peak_kb()


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
                pool = _start_pool(workers)
                size = batch_size(max_seconds, todo, workers)
                handed = pool.imap_unordered(run_jobs, _batches(jobs_list, size))
                results = chain.from_iterable(_watched(pool, handed, max_seconds, group.waiting(stopped),
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
                _stop_pool(pool)
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


def _stop_pool(pool: Any) -> None:
    """Stop the pool's workers and wait for them. A worker that was
    stopped (SIGSTOP: a debugger, Ctrl+Z of its process alone) is continued
    first: the pool's SIGTERM waits in a stopped process, and one stopped
    while it waited for its next deal holds the lock of the pool's task
    queue, which :meth:`Pool.terminate` takes; either way the survey waited
    for ever, also after its last verdict."""
    for process in list(getattr(pool, "_pool", [])):
        with suppress(OSError, TypeError, ValueError):  # (already gone)
            os.kill(process.pid, signal.SIGCONT)
    pool.terminate()
    pool.join()


class WorkerDiedError(RuntimeError):
    """A worker process of a local survey died (or froze): the verdicts
    stored so far stay, and the same survey run again goes on from them."""


WATCH_SECONDS = 0.5
"""How often a survey waiting for its workers looks whether one died."""

STALL_SLACK = 60.0
"""Seconds beyond twice a deal's budget that a local survey waits for its
next verdict before it takes a worker for frozen (see :func:`_stall_limit`)."""


def _stall_limit(max_seconds: float) -> float:
    """Seconds of waiting with no verdict after which a local survey stops:
    each worker solves one deal at a time, within its budget, so some
    verdict comes at least that often; twice it, and :data:`STALL_SLACK`
    for a worker's start under load."""
    return 2 * max_seconds + STALL_SLACK


def _watched(pool: Any, results: Any, max_seconds: float = math.inf,
             stopped: Callable[[], None] = lambda: None, deals: int = 1) -> Iterator[Any]:
    """The results of ``pool.imap_unordered``, ending in
    :class:`WorkerDiedError` when a worker dies otherwise than by finishing
    its share of deals (killed, or by the kernel for its memory): the pool
    replaces it, but its deal is lost, and the survey waited for ever; and
    when no verdict came for :func:`_stall_limit` of the budget per deal
    ``max_seconds`` times the ``deals`` of a task (a worker frozen,
    SIGSTOP or stuck, held its deal for ever). Waiting is counted in the
    watch's own waits, not by the clock: a survey suspended with Ctrl+Z
    for an hour is not taken for frozen when it goes on. (The
    pool lists its worker processes only in ``_pool``, and drops one that
    ended; so each is kept here until its exit code, read as the pool's own
    thread left it, says how it ended: never polled from here, which could
    take the code from that thread, and never kept once it ended well, which
    would keep its pipes open.) ``stopped`` is called at each wait (see
    :func:`terrace.solver.stops.stops_kept`)."""
    running: dict[int, Any] = {}
    looked = time.monotonic()
    idle = 0.0
    while True:
        for process in list(getattr(pool, "_pool", [])):
            running.setdefault(id(process), process)
        waited = False
        try:
            result = results.next(timeout=WATCH_SECONDS)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            waited = True
            idle += WATCH_SECONDS
            stopped()
        else:
            idle = 0.0
            yield result
        # (also while verdicts keep coming from the other workers: a survey
        # of a million deals went on for their whole range, then said so)
        if waited or time.monotonic() - looked >= WATCH_SECONDS:
            looked = time.monotonic()
            _none_died(running)
        if idle > _stall_limit(deals * max_seconds):
            raise WorkerDiedError(
                f"no worker gave a verdict for {idle:g} s, far beyond the budget of {max_seconds:g} s "
                "per deal: a worker process seems frozen (stopped, or stuck)")


def _none_died(running: dict[int, Any]) -> None:
    """Raise :class:`WorkerDiedError` when one of the ``running`` workers
    ended otherwise than well; forget those that ended well."""
    for key, process in list(running.items()):
        code = getattr(getattr(process, "_popen", None), "returncode", None)
        if code is None:
            continue
        if code != 0:
            raise WorkerDiedError(
                "a worker process died (killed, or out of memory) before it gave its deal's verdict"
            )
        del running[key]


def ignore_interrupts() -> None:
    """Run in each worker process: Ctrl+C reaches the whole process group,
    and a worker it interrupted printed a traceback or two; the survey's
    own process alone stops the survey (its verdicts so far are kept)."""
    with suppress(ValueError):  # (not the process's main thread)
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start_worker(survey: int | None = None, memory_kb: int | None = None) -> None:
    """Run in each worker process of the local pool as it starts: it
    ignores Ctrl+C (:func:`ignore_interrupts`), ends with the survey's
    process, ``survey`` its process id (:func:`_end_with_survey`), and
    ends after a deal that leaves it holding more than ``memory_kb``
    (see :data:`WORKER_MEMORY_KB`; the default: that bound)."""
    global _memory_kb
    _memory_kb = WORKER_MEMORY_KB if memory_kb is None else memory_kb
    ignore_interrupts()
    _own_signals()
    _end_with_survey(survey)


def _own_signals() -> None:
    """Give every signal handled in Python its default back, then let the
    stops blocked while the worker was forked through (see
    :func:`_start_pool`). A worker forked from the survey's process
    inherits its handlers: with the survey's handler of SIGTERM, the
    pool's SIGTERM at its end only told the worker to stop a survey, and
    the pool waited for it for ever."""
    for number in signal.valid_signals():
        with suppress(OSError, ValueError):  # (one that cannot be handled)
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(STOPS) - {signal.SIGINT})


WORKER_MEMORY_KB = 1024 * 1024
"""The memory (resident, kB) past which a worker of the local pool ends
after its deal, and the pool starts a new one in its place. A solve frees
what it allocated (a worker's resident memory after 500 falling-star
deals at 0.001 s, 100 Admiral's Patience deals at 0.01 s, or 10 Empress of
Italy deals at 1 s was within 3 MB of that after its first), so a worker
normally lives as long as the survey; the bound replaces one that grew
all the same. (Restarting each worker after 50 deals, as the pool did,
cost a process start per 50 deals: at 0.001 s a deal, ``--jobs 2`` was
slower than ``--jobs 1``.)"""

_memory_kb = WORKER_MEMORY_KB
"""This worker's bound (set by :func:`_start_worker`)."""


def _resident_kb() -> int:
    """This process's resident memory now, in kB (its peak where the
    system does not say, see :func:`_peak_kb`)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):  # pragma: no cover - not on Linux
        return _peak_kb() // (1024 if sys.platform == "darwin" else 1)


class _BoundedTasks:
    """A worker's view of the pool's task queue: no next task (the pool's
    own sign for a worker to end) once the worker holds more memory than
    its bound after a task. The task stays in the queue for another worker, and the
    pool replaces this one (which ends with exit code 0, as a worker that
    finished its share). A worker takes its first task whatever it holds
    (else one that starts past the bound would be replaced for ever)."""

    def __init__(self, tasks: Any) -> None:
        self._tasks = tasks
        self._took = False

    def get(self) -> Any:
        if self._took and _resident_kb() > _memory_kb:
            return None
        self._took = True
        return self._tasks.get()


def _pool_worker() -> Callable[..., None]:
    """The loop of a worker of :class:`multiprocessing.pool.Pool` (not in
    its typed names)."""
    return cast(Callable[..., None], vars(multiprocessing.pool)["worker"])


def _bounded_worker(tasks: Any, results: Any, *args: Any) -> None:
    """The loop of a worker of the local pool: the pool's own (see
    :class:`_BoundedTasks`)."""
    worker = _pool_worker()
    # (what the pool's loop closes itself, as it does not see the queue)
    tasks._writer.close()
    results._reader.close()
    worker(_BoundedTasks(tasks), results, *args)


class _BoundedPool(multiprocessing.pool.Pool):
    """The local pool: its workers run :func:`_bounded_worker`."""

    @staticmethod
    def Process(ctx: Any, *args: Any, **kwds: Any) -> Any:
        if kwds.get("target") is _pool_worker():
            kwds["target"] = _bounded_worker
        return ctx.Process(*args, **kwds)


def _ends_of(survey: int | None) -> list[int]:
    """What becomes readable when the survey has ended: the sentinel of
    this worker's parent, and where the system has it, a pidfd of the
    survey's process. A worker forked by a fork server has the fork server
    as its parent, which ends only once it has seen the survey end: in
    between, a worker could hand a verdict to the gone survey and print
    the broken pipe's traceback (a fresh-clone CI run of a SIGKILL test);
    the pidfd is readable as soon as the survey has exited."""
    parent = multiprocessing.parent_process()
    ends = [] if parent is None else [parent.sentinel]
    if survey is not None:
        with suppress(AttributeError, OSError):  # (no pidfd_open here, or the survey already gone)
            ends.append(os.pidfd_open(survey))
    return ends


def _end_with_survey(survey: int | None = None) -> None:
    """End this worker process at once when the process that started it
    (the survey's) has ended, however it ended: killed with SIGKILL (by the
    out-of-memory killer, or a batch system's hard stop), its workers solved
    on for up to their deal's budget (the fair player's: 30 minutes), then
    each printed a BrokenPipeError traceback as it handed over a verdict
    nobody read. A thread waits for the end of the survey's process."""
    if multiprocessing.parent_process() is None:  # (not a worker process)
        return
    ends = _ends_of(survey)

    def watch() -> None:
        multiprocessing.connection.wait(ends)
        os._exit(1)  # (nothing to store or say: the survey is gone)

    threading.Thread(target=watch, name="end-with-survey", daemon=True).start()
    if sys.stderr is not None:
        sys.stderr = cast(TextIO, _SilentOnceGone(sys.stderr, *ends))


class _SilentOnceGone(io.TextIOBase):
    """A worker's standard error that writes nothing once the survey's
    process has ended. The thread of :func:`_end_with_survey` needs the
    GIL to end the worker, while the worker's own thread, solving, may
    first hand its verdict to the gone survey: the broken pipe then
    printed ``Process ForkServerPoolWorker-1:`` and part of a traceback
    (about one SIGKILL or Ctrl+C of a survey in four)."""

    def __init__(self, stream: TextIO, *ends: int) -> None:
        super().__init__()
        self._stream = stream
        self._ends = list(ends)

    def _gone(self) -> bool:
        return bool(multiprocessing.connection.wait(self._ends, timeout=0))

    def write(self, text: str) -> int:
        if self._gone():
            return len(text)
        return self._stream.write(text)

    def flush(self) -> None:
        if not self._gone():
            self._stream.flush()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True


def _worker_context() -> Any:
    """How the workers start: from a fork server where there is one
    (Linux, macOS), which :func:`interrupts_held` starts with Ctrl+C
    blocked until it ignores it itself (the process's first pool starts it; the survey is the only user of
    one in the command line and in the web game), so
    that every worker it forks, also those that replace a worker grown past
    :data:`WORKER_MEMORY_KB`, ignores Ctrl+C from its first instruction (a worker started
    otherwise could be interrupted while it still imports, and print a
    traceback); else spawned."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _start_pool(workers: int, memory_kb: int = WORKER_MEMORY_KB) -> Any:
    """The pool of worker processes, each replaced once a deal leaves it
    holding more than ``memory_kb`` (:data:`WORKER_MEMORY_KB`). Forked
    from this process where that is safe (:func:`_forks_safely`): the
    stops are blocked while it forks them (see :func:`stops_blocked`), so
    a worker cannot be stopped before it has its own handlers
    (:func:`_own_signals`). Else from the fork server, and Ctrl+C is held
    back (blocked, see :func:`interrupts_held`) only while the fork
    server's process starts (so that it, and every worker it forks, cannot
    be interrupted from the start); the survey takes a Ctrl+C of that
    moment as the block ends. Without a fork server, while the workers
    start."""
    forked = _forks_safely()
    context = multiprocessing.get_context("fork") if forked else _worker_context()
    start = partial(_BoundedPool, workers, initializer=_start_worker,
                    initargs=(os.getpid(), memory_kb), context=context)
    if forked:
        # (the pool's threads, which fork the workers that replace one, are
        # started inside the block too, and keep the stops blocked)
        with stops_blocked():
            return start()
    if worker_start_method() != "forkserver":
        with interrupts_held():
            return start()
    return start()


def _forks_safely() -> bool:
    """Whether the local pool's workers are forked from the survey's own
    process, which has imported the solver already: a worker started by
    the fork server imports it first (0.3 CPU s each, and the server's
    start), which at small budgets made ``--jobs 2`` slower than ``--jobs
    1``. Only on Linux (where forking is the system's own way; on macOS
    system libraries break in a forked child), and only while this
    process runs one thread (a lock another thread held as it forked
    would stay held in the worker for ever): a command-line survey; a
    program with threads of its own gets the fork server."""
    if not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods():
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # pragma: no cover - no /proc
        return False


def worker_start_method() -> str:
    """How worker processes start (see :func:`_worker_context`):
    ``"forkserver"``, its server then running and ignoring Ctrl+C (started
    so if this call starts it), or ``"spawn"``. The local pool uses it, and
    so do the workers of ``--scheduler local:N``, which Dask starts (and
    starts again) at any moment of a survey."""
    quiet_resource_tracker()
    method = str(_worker_context().get_start_method())
    if method == "forkserver":
        from multiprocessing import forkserver, resource_tracker

        # (the resource tracker first, on its own: it blocks Ctrl+C while it
        # starts, then unblocks it whatever it was, which would end the
        # block of :func:`interrupts_held` before the fork server starts)
        resource_tracker.ensure_running()
        with interrupts_held():
            forkserver.ensure_running()
    return method


TRACKER_WARNINGS = "ignore:resource_tracker:UserWarning"
"""The ``-W`` option that keeps the warnings of multiprocessing's resource
tracker (the process that removes the pool's semaphores when the survey's
process is gone) out of the output."""


def quiet_resource_tracker() -> None:
    """Keep the resource tracker's warnings out of the output. The tracker
    outlives a survey killed with SIGKILL, removes the semaphores of its
    pool as it should, and said so in a warning ("There appear to be 6
    leaked semaphore objects to clean up at shutdown"), printed after the
    survey had ended (a shell prompt already shown). It takes its warning
    options from ``sys.warnoptions`` when it starts, as every process
    multiprocessing starts does. The warning this process gives when the
    tracker itself was killed ("process died unexpectedly, relaunching")
    is left out too: the tracker started again does the work."""
    if TRACKER_WARNINGS not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_WARNINGS)
    warnings.filterwarnings("ignore", "resource_tracker: ", UserWarning, "multiprocessing.resource_tracker")


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

