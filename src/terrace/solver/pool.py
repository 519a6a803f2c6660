"""The local pool of worker processes that a survey solves (or plays) its
deals in: workers that ignore Ctrl+C, end with the survey's process and
are replaced once a deal leaves them holding too much memory; a watch
that tells a worker that died or froze; and how the workers start (forked,
or from a fork server).
"""

from __future__ import annotations

import inspect
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
from collections.abc import Callable, Iterator
from contextlib import suppress
from functools import partial
from typing import Any, Final, TextIO, cast

from terrace.refusals import quote
from terrace.solver.stops import STOPS, interrupts_held, stops_blocked
from terrace.whole import as_whole

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


def peak_kb() -> int:
    """This process's peak resident memory so far, in kB (0 where the
    system does not say)."""
    try:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    except (ImportError, OSError):  # pragma: no cover - not on Linux
        return 0


def stop_pool(pool: Any) -> None:
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


def watched(pool: Any, results: Any, max_seconds: float = math.inf,
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
    :func:`start_pool`). A worker forked from the survey's process
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
    system does not say, see :func:`peak_kb`)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):  # pragma: no cover - not on Linux
        return peak_kb() // (1024 if sys.platform == "darwin" else 1)


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


class _WholeResults:
    """A worker's view of the pool's results queue: SIGTERM waits while a
    result is being put. A worker ended by the pool's SIGTERM in the middle
    of a put held the queue's lock for ever, and left half a message in its
    pipe: the pool's stop then waited for that lock for ever (the survey
    hung after Ctrl+C, now and then under load; a fresh-clone CI run). The
    SIGTERM ends the worker as the put ends."""

    def __init__(self, results: Any) -> None:
        self._results = results

    def put(self, result: Any) -> None:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            self._results.put(result)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _bounded_worker(tasks: Any, results: Any, *args: Any) -> None:
    """The loop of a worker of the local pool: the pool's own (see
    :class:`_BoundedTasks` and :class:`_WholeResults`)."""
    worker = _pool_worker()
    # (what the pool's loop closes itself, as it does not see the queues)
    tasks._writer.close()
    results._reader.close()
    whole = _WholeResults(results) if hasattr(signal, "pthread_sigmask") else results
    worker(_BoundedTasks(tasks), whole, *args)


END_SECONDS = 10.0
"""How long the pool's stop waits for its workers to end on SIGTERM (each
ends at once, or once the result it is putting is put) before it kills
those left with SIGKILL."""


class _BoundedPool(multiprocessing.pool.Pool):
    """The local pool: its workers run :func:`_bounded_worker`, and it
    stops them while its results are still read (:meth:`_terminate_pool`).
    Both go through private names of :mod:`multiprocessing.pool`, as
    CPython 3.11, 3.12 and 3.13 have them (:data:`STDLIB_READ`,
    :func:`pool_internals_changed`)."""

    @staticmethod
    def Process(ctx: Any, *args: Any, **kwds: Any) -> Any:
        if kwds.get("target") is _pool_worker():
            kwds["target"] = _bounded_worker
        return ctx.Process(*args, **kwds)

    @classmethod
    def _terminate_pool(cls, taskqueue: Any, inqueue: Any, outqueue: Any, pool: Any,
                        change_notifier: Any, worker_handler: Any, task_handler: Any,
                        result_handler: Any, cache: Any) -> None:
        """The pool's stop (``terminate``, and at exit): as the pool's own,
        but the workers end before the thread that reads their results is
        told to stop. A worker puts a whole result before SIGTERM ends it
        (:class:`_WholeResults`), and a result larger than the pipe waits
        for that reader: told to stop first, as the pool's own stop does,
        it read at most a few more, and a worker putting one more would
        have waited for ever."""
        terminate = vars(multiprocessing.pool)["TERMINATE"]
        here = threading.current_thread()
        worker_handler._state = task_handler._state = terminate
        change_notifier.put(None)
        # (no task handed out any more; the pool's own step, not in its typed names)
        vars(multiprocessing.pool.Pool)["_help_stuff_finish"](inqueue, task_handler, len(pool))
        if here is not worker_handler:
            worker_handler.join()  # (no worker started in the place of one ended)
        _end_workers(pool)
        result_handler._state = terminate
        change_notifier.put(None)
        outqueue.put(None)
        for thread in (task_handler, result_handler):
            if here is not thread:
                thread.join()


STDLIB_READ: Final = ((3, 11), (3, 12), (3, 13))
"""The CPython versions whose ``multiprocessing/pool.py`` the local pool's
uses of its private names (:class:`_BoundedPool`, :func:`_bounded_worker`,
:class:`_WholeResults`, :func:`stop_pool`, :func:`watched`) were read
against: 3.11.7, 3.12.1 and 3.13.0, whose pool.py differ only in a word of
a message and in ``os.process_cpu_count``. :func:`pool_internals_changed`
says what of them a Python has otherwise (``tests/test_survey_pool.py``
fails then, saying it): changed, the pool's workers would run without the
hang fix, or its stop would fail half way, and a survey could wait for
ever."""


def _parameters(function: object) -> list[str]:
    """The names of the parameters of ``function`` (none where it has no signature)."""
    try:
        return list(inspect.signature(cast(Callable[..., Any], function)).parameters)
    except (TypeError, ValueError):
        return []


def _source(function: object) -> str:
    """The source of ``function`` with its white space as single spaces ("" where it is not to be read)."""
    try:
        return " ".join(inspect.getsource(cast(Callable[..., Any], function)).split())
    except (OSError, TypeError):
        return ""


def pool_internals_changed() -> list[str]:
    """What of the private names of :mod:`multiprocessing.pool` that the
    local pool uses is not as in the versions of :data:`STDLIB_READ`, each
    as a line that says what the pool expects (none when all is)."""
    module, kind = vars(multiprocessing.pool), vars(multiprocessing.pool.Pool)
    worker = module.get("worker")
    worker_source = _source(worker)
    process, help_finish = kind.get("Process"), kind.get("_help_stuff_finish")
    terminate = kind.get("_terminate_pool")
    ours = _parameters(_BoundedPool._terminate_pool)
    finalized = "self._terminate_pool, args=(" + ", ".join(f"self._{name}" for name in ours) + ")"
    init_source = _source(multiprocessing.pool.Pool.__init__)
    queue = multiprocessing.get_context().SimpleQueue()
    queues = all(hasattr(queue, name) for name in ("_reader", "_writer", "_rlock"))
    queue.close()
    expected = (
        (_parameters(worker)[:6] == ["inqueue", "outqueue", "initializer", "initargs", "maxtasks",
                                     "wrap_exception"],
         "worker(inqueue, outqueue, initializer, initargs, maxtasks, wrap_exception), the workers' loop"),
        (all(text in worker_source for text in ("put = outqueue.put", "get = inqueue.get",
                                                "if hasattr(inqueue, '_writer'):")),
         "worker takes its tasks by inqueue.get and puts its results by outqueue.put, and closes the "
         "queues' other ends only when inqueue has _writer"),
        (isinstance(module.get("TERMINATE"), str), "TERMINATE, the state of a pool's threads as it stops"),
        (isinstance(process, staticmethod) and _parameters(process.__func__) == ["ctx", "args", "kwds"]
         and "Process(ctx, target=worker," in _source(kind.get("_repopulate_pool_static")),
         "Pool.Process(ctx, *args, **kwds), a static method called with target=worker for each worker"),
        (isinstance(terminate, classmethod) and _parameters(terminate.__func__)[1:] == ours
         and finalized in init_source,
         f"Pool._terminate_pool(cls, {', '.join(ours)}), a class method that Pool.__init__ gives "
         "util.Finalize with those of the pool's attributes"),
        (isinstance(help_finish, staticmethod)
         and _parameters(help_finish.__func__) == ["inqueue", "task_handler", "size"],
         "Pool._help_stuff_finish(inqueue, task_handler, size), a static method"),
        ("self._pool = []" in init_source, "Pool._pool, the list of the pool's worker processes"),
        (queues, "SimpleQueue's _reader, _writer and _rlock"),
    )
    return [what for fits, what in expected if not fits]


def _end_workers(pool: list[Any]) -> None:
    """End the pool's worker processes: SIGTERM, and SIGKILL for any left
    after :data:`END_SECONDS`."""
    for process in pool:
        if process.exitcode is None:
            process.terminate()
    deadline = time.monotonic() + END_SECONDS
    for process in pool:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.exitcode is None:
            process.kill()
            process.join()


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

    # (started with the stops blocked, which it keeps: the pool's SIGTERM
    # goes to a thread that does not block it, and taken here it ended the
    # worker in the middle of a put, see _WholeResults)
    with stops_blocked():
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


def start_pool(workers: int, memory_kb: int = WORKER_MEMORY_KB) -> Any:
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
