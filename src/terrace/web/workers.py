"""Solver work (hints, analysis, winnable deals) in a few worker processes
of its own, so that plain requests never wait behind a search.

Processes rather than threads: a search holds the GIL, and with two
searches in threads a plain request took 30 ms at the median instead of
1 ms (measured with two solver threads beside a Starlette app).

* At most ``workers`` jobs run and ``waiting`` more wait for a worker; any
  further job is refused at once with :class:`PoolBusy`, and so is a job
  that has waited its own budget without a worker coming free (a 2 s hint
  is not kept waiting behind a 20 s analysis). A ``timed`` job's wait is
  part of its budget: it gets the seconds left (a 2 s hint that waited
  1.5 s searches 0.5 s, and is answered in 2 s, not 3.5 s), and a quarter
  of its budget at least (:data:`LEAST_SHARE`).
* A job stops when its caller goes away (``gone``), when the pool closes,
  or when its budget plus a grace period has passed since its worker could
  begin it, and so does one whose caller stops waiting (its task
  cancelled): the caller is answered at once, the worker is told to cancel
  (the solver asks between slices) once the job has reached it, and is
  replaced if it does not answer within :data:`CANCEL_GRACE` seconds. Past
  its budget, a worker that is stuck (:class:`Stall`: stopped by SIGSTOP,
  say) is replaced after :data:`STALL` seconds, not the whole grace. A
  worker still starting (seconds on a busy machine) is waited for until
  :data:`START_LIMIT`, and is given jobs only when no started worker is
  free. Each stop says its cause (:class:`~terrace.web.i18n.SolverStop`).
* A worker imports what its jobs need (:data:`PRELOAD`) before it says it
  has started, and a ``timed`` job counts its seconds from its request to
  the moment the worker begins it: a job given to a worker still starting
  searches for what the start left of its budget, and at least
  :data:`LEAST_SHARE` of it, so it is answered within its budget, or that
  share after the worker has started, never a whole budget after it.
* New workers are made outside the pool's lock and off the event loop;
  a job goes to its worker, and its reply comes back, through threads of
  their own, so that a worker stopped halfway through either holds up
  nothing but its own job.
* A job given ``prefer`` (a game's id: its hints) goes to the worker that
  answered that key's last job when that worker is free, since the work a
  fair hint kept is in that process; otherwise to any free worker at once,
  never waiting for it. Any other job (a new key's too) takes first the
  free worker whose last keyed job is the oldest, leaving the others free
  for their keys (the last :data:`PREFERRED_KEYS` keys are remembered).
* Workers ignore Ctrl+C (the terminal sends it to every process of the
  group), from their first instruction on; the server closes them, and
  they exit when the server dies.

>>> import asyncio
>>> pool = SolverPool(workers=1)
>>> asyncio.run(pool.run(_echo, "hello", budget=5))
'hello'
>>> pool.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import multiprocessing
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from terrace.bounded import Bounded
from terrace.refusals import Param, Reason
from terrace.solver.stops import stops_blocked
from terrace.web.i18n import SolverStop

T = TypeVar("T")

CANCEL = "cancel"
READY = "ready"
"""What a new worker says once it has started (its imports done)."""
LEAST_SHARE = 0.25
"""The share of its budget a ``timed`` job searches at least, however
long its wait for a worker to start: an easy hint (deal 7 after c2, every
sampled stock decided in 0.3 s) that a start left no time was the rule of
thumb, where a quarter of 2 s decides it."""
PRELOAD = ("terrace.web.hints", "terrace.web.coach_job", "terrace.solver.coach")
"""The modules of the jobs the web game sends, which a worker imports
before it says it has started: the first hint of a worker that said so at
once imported them first, 0.11 CPU s (0.45-0.77 s of waiting at load 5),
on top of its whole budget."""
CANCEL_GRACE = 1.0
"""Seconds a worker that has started has to answer a cancel before it is
replaced (one still starting gets until :data:`START_LIMIT`: a successor
would only have to start all over again)."""
OVERRUN_GRACE = 10.0
"""Seconds a job may take beyond its budget, counted from when its worker
could begin it (once it had started and had the job), while its process
runs: a machine under load slows a search's last slice, not its clock."""
STALL = 1.0
"""Seconds a worker whose job is past its budget may spend neither running
nor waiting for the disk, and using no CPU, before it is taken for stuck
(stopped by SIGSTOP, say) and replaced: its job is answered then, not
after the whole :data:`OVERRUN_GRACE` (where the kernel does not tell,
the grace alone)."""
START_LIMIT = 60.0
"""Seconds a new worker may take to start (a new process and its imports)
before it is taken for hung and replaced: 1.1-1.8 s measured at load 6,
5.4-6.5 s at load 8 and 16-20 s at load 13-20 (busy loops on two cores)."""
POLL = 0.01
PREFERRED_KEYS = 1024
"""How many keys' workers (see ``prefer``) a pool remembers, the last used."""
GONE_EVERY = 0.1
CALLS_END = 1.0
"""Seconds a stopped worker's calls under way in threads (a reply's read,
a job's send) have to end before its pipe is closed; they end at once as
its process is gone."""


class PoolBusy(Exception):
    """Every worker is busy and the waiting line is full."""


class WorkStopped(Exception):
    """The job was stopped: its caller went away, the pool closed, it
    overran its budget, or its worker did not respond. ``reason`` says
    which, in each language."""

    def __init__(self, why: SolverStop, **params: Param) -> None:
        self.reason = Reason(why, **params)
        super().__init__(str(self.reason))


class WorkFailed(Exception):
    """The worker process died during the job, or ran out of memory
    (``why``)."""

    def __init__(self, why: SolverStop = SolverStop.SOLVER_CRASHED) -> None:
        self.reason = Reason(why)
        super().__init__(str(self.reason))


def _out_of_memory(reply: tuple[Any, ...]) -> bool:
    """Whether a job's reply is its worker's MemoryError."""
    return not reply[1] and isinstance(reply[2], MemoryError)


def _echo(value: T, cancel: Callable[[], bool]) -> T:
    """A job that returns its argument (for tests)."""
    return value


def _sleep(seconds: float, cancel: Callable[[], bool]) -> float:
    """A job that waits ``seconds`` or until cancelled (for tests)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not cancel():
        time.sleep(0.005)
    return seconds


def _within(func: Callable[..., T], until: float, least: float, *args: Any, cancel: Callable[[], bool]) -> T:
    """``func(*args, seconds=..., cancel=cancel)`` given the seconds left
    until ``until`` (a :func:`time.monotonic` instant, which every process
    of the machine shares) as the worker begins it, and ``least`` at least."""
    return func(*args, seconds=max(until - time.monotonic(), least), cancel=cancel)


def _serve(conn: Connection, preload: tuple[str, ...] = ()) -> None:
    """A worker's life: import ``preload``, say so, then run jobs until the
    server is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # (blocked as it started: SolverPool's terminate)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    for name in preload:
        importlib.import_module(name)
    try:
        conn.send(READY)
    except (EOFError, OSError):
        return
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message == CANCEL:  # arrived after its job had ended
            continue
        job, func, args = message
        try:
            reply: tuple[Any, ...] = (job, True, func(*args, cancel=conn.poll))
        except Exception as error:
            reply = (job, False, error)
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as error:  # the result or the error did not pickle
            conn.send((job, False, RuntimeError(repr(error))))


def process_mark(pid: int) -> tuple[str, int] | None:
    """A process's state (one letter: R running, D waiting for the disk,
    S asleep, T stopped, ...) and the CPU time it has used (clock ticks),
    as Linux's ``/proc`` says them; None where it cannot.

    >>> import os
    >>> process_mark(os.getpid())[0]
    'R'
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
        # (after the name in parentheses, which may hold spaces and parentheses itself)
        fields = text[text.rindex(b")") + 2:].split()
        return fields[0].decode("ascii"), int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return None


STOPPED = frozenset("Tt")
"""The states of a process stopped by a signal (T) or by a debugger (t)."""
WORKING = frozenset("RD")
"""The states of a process that is working: running or waiting to (R,
however long a loaded machine keeps it waiting), or waiting for the disk (D)."""


class Stall:
    """Tells when a process is stuck: seen in no :data:`WORKING` state and
    using no CPU time for :data:`STALL` seconds (counted from the first
    look, each look at a time given by the caller's clock). A process
    stopped by SIGSTOP is; one a loaded machine runs slowly is not."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.cpu: int | None = None
        self.working_at = 0.0
        """When the process was last seen working or with more CPU time."""

    def stuck(self, now: float) -> bool:
        """Whether the process is stuck at ``now`` (False where the kernel
        does not say)."""
        mark = None if self.pid is None else process_mark(self.pid)
        if mark is None:
            return False
        state, cpu = mark
        if state in WORKING or cpu != self.cpu:
            self.cpu, self.working_at = cpu, now
            return False
        return now - self.working_at >= STALL


class _InThread:
    """A call on a worker's pipe made by a thread of its own, so that a
    worker stopped halfway through holds up nothing but its own job:
    ``ended`` is set once the call has returned or failed, with ``value``
    or ``error``. While it is under way it is among its worker's
    :attr:`_Worker.calls`."""

    def __init__(self, worker: _Worker, call: Callable[[], Any]) -> None:
        self.ended = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None
        self._calls = worker.calls
        self._calls.add(self)
        threading.Thread(target=self._run, args=(call,), daemon=True).start()

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self.value = call()
        except BaseException as error:  # (its worker killed meanwhile, a message that does not pickle)
            self.error = error
        finally:
            self.ended.set()
            self._calls.discard(self)


class _Send(_InThread):
    """A job on its way to its worker (a pipe takes 64 KB at a time: a
    coach job of a game of 100,000 moves and its log, 2 MB, held every
    other request up for 0.3 s when the event loop sent it, a worker still
    starting waiting to read it)."""

    def __init__(self, worker: _Worker, message: Any) -> None:
        super().__init__(worker, partial(worker.conn.send, message))

    @property
    def arrived(self) -> bool:
        """Whether the send has ended with the job arrived whole."""
        return self.ended.is_set() and self.error is None

    def failed(self) -> bool:
        """Whether the send has ended without the job arriving."""
        return self.ended.is_set() and self.error is not None


class _Worker:
    def __init__(self, context: Any, preload: tuple[str, ...] = ()) -> None:
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child, preload), daemon=True, name="terrace-solver"
        )
        # (Ctrl+C reaches the whole process group: a worker that took it
        # while it still imported printed a traceback; it starts with the
        # signal blocked, until _serve ignores it. SIGTERM is blocked here
        # too, until _serve lets it through: the server's stop took it as a
        # worker was started, the worker's start data half sent, and the
        # worker said "EOFError: Ran out of input" on the terminal)
        if hasattr(signal, "pthread_sigmask"):
            resource_tracker.ensure_running()
        with stops_blocked():
            self.process.start()
        child.close()
        self.born = time.monotonic()
        """When its process was started (monotonic)."""
        self.ready_at: float | None = None
        """When the worker said it had started (monotonic), once it has."""
        self.claimed = 0
        """When it last answered a job with ``prefer`` (a count; 0: never)."""
        self.receiving: _InThread | None = None
        """The read of its next message, while one is under way."""
        self.stopping = threading.Lock()
        """Held while the worker is stopped (:meth:`stop`)."""
        self.calls: set[_InThread] = set()
        """The calls on its pipe under way in threads of their own."""

    def has_started(self) -> bool:
        """Whether the worker has said it started; an idle worker's pipe
        holds nothing else, so its word is read here when it is waiting."""
        if self.ready_at is None:
            with contextlib.suppress(WorkFailed):
                self.reply(0)  # (no job is 0)
        return self.ready_at is not None

    def stopped(self) -> bool:
        """Whether its process is stopped now (SIGSTOP), as far as the
        kernel says."""
        mark = None if self.process.pid is None else process_mark(self.process.pid)
        return mark is not None and mark[0] in STOPPED

    def reply(self, job: int) -> tuple[Any, ...] | None:
        """The reply to ``job`` once it has come whole, else None; reads
        whatever came before it (the worker's word that it started, a
        reply to a job stopped earlier) and never waits for a message to
        come whole. Raises :class:`WorkFailed` when the pipe broke."""
        while True:
            if self.receiving is None:
                try:
                    if not self.conn.poll():
                        return None
                except (EOFError, OSError):
                    raise WorkFailed() from None
                # (in pieces when larger than the pipe holds: the event loop waited
                # for them all while the worker was stopped, SIGSTOP, as it wrote)
                self.receiving = _InThread(self, self.conn.recv)
            receiving = self.receiving
            if not receiving.ended.is_set():
                return None
            self.receiving = None
            if isinstance(receiving.error, (EOFError, OSError)):
                raise WorkFailed()
            if receiving.error is not None:
                raise receiving.error
            message: tuple[Any, ...] | str = receiving.value
            if message == READY:
                self.ready_at = time.monotonic()
            elif isinstance(message, tuple) and message[0] == job:
                return message

    def overdue(self, sent: float, seconds: float, now: float, stall: Stall) -> SolverStop | None:
        """Why a job sent at ``sent`` (monotonic) with ``seconds`` of budget
        must stop at ``now``, if it must: it can only begin once the worker
        has started, and a start has its own limit; past its budget, a
        worker that is stuck (``stall``) is not waited for any longer."""
        began = max(sent, self.ready_at or sent)
        if now >= began + seconds and stall.stuck(now):
            return SolverStop.SOLVER_STUCK
        if self.ready_at is None:
            return SolverStop.SOLVER_STUCK if now >= self.born + START_LIMIT else None
        return SolverStop.SEARCH_OVERRAN if now >= began + seconds + OVERRUN_GRACE else None

    def stop(self, wait: float) -> None:
        """Give the worker ``wait`` seconds to end (after a SIGTERM), then
        kill it. (Nothing is sent to it: a worker that does not read, with
        a job on its way, would hold the sender for ever.) One stop at a
        time: the pool's closing and the replacement of a worker whose job
        it stopped met on one worker when the server stopped during a
        search, and both closed its pipe: "OSError: [Errno 9] Bad file
        descriptor" and "Application shutdown failed" on the terminal (and
        the second close could have closed a file that took the number)."""
        with self.stopping:
            self._stop(wait)

    def _stop(self, wait: float) -> None:
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1)
        # A call under way took the pipe's file number when it began: once
        # closed, the number went to the next worker's pipe, and a read
        # still to come took that worker's first bytes, which then did not
        # unpickle ("Ran out of input": the job after a worker's death
        # failed, "the solver process stopped unexpectedly", 2 in 133 at
        # load 16). With the process gone each such call ends at once; one
        # that does not leaves the pipe open, for the garbage collector to
        # close once the call lets go of it.
        until = time.monotonic() + CALLS_END
        if all(call.ended.wait(max(until - time.monotonic(), 0.0)) for call in list(self.calls)):
            self.conn.close()


class SolverPool:
    """A bounded pool of solver processes; see the module docstring."""

    def __init__(self, workers: int = 2, waiting: int = 2, preload: tuple[str, ...] = PRELOAD) -> None:
        self.workers = workers
        self.waiting = waiting
        self.preload = preload
        """The modules each worker imports before it says it has started."""
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._starting = 0
        """Workers being made now (outside the lock), their places taken."""
        self._queued = 0
        self._jobs = itertools.count(1)
        self._claims = itertools.count(1)
        self._preferred: Bounded[str, _Worker] = Bounded(PREFERRED_KEYS)
        self.closing = threading.Event()

    @property
    def running(self) -> int:
        """How many jobs are running now."""
        return len(self._busy)

    def start(self) -> None:
        """Start every worker now (else each starts with its first job)."""
        while True:
            with self._lock:
                if self.closing.is_set() or self._size() >= self.workers:
                    return
                self._starting += 1
            self._made(busy=False)

    def close(self) -> None:
        """Stop every job and worker at once (a worker keeps nothing that
        needs saving, so it is simply terminated; one being made now is
        stopped as soon as it is)."""
        self.closing.set()
        with self._lock:
            workers, self._idle = [*self._idle, *self._busy], []
        for worker in workers:
            # (one still starting has SIGTERM blocked until it runs _serve: killed, it ends at once)
            if worker.ready_at is None:
                worker.process.kill()
            else:
                worker.process.terminate()
        for worker in workers:
            worker.stop(0.5)

    async def run(
        self,
        func: Callable[..., T],
        *args: Any,
        budget: float,
        gone: Callable[[], Awaitable[bool]] | None = None,
        timed: bool = False,
        prefer: str | None = None,
    ) -> T:
        """``func(*args, cancel=...)`` in a worker; ``func`` must be a
        module-level function and its arguments and result picklable.
        It waits for a free worker for at most ``budget`` seconds; when
        ``timed``, ``func`` is also given ``seconds=``, what is left of
        ``budget`` once its worker begins it (after a wait for a free
        worker, or for one to start); ``prefer``: see the module docstring.
        Raises :class:`PoolBusy`, :class:`WorkStopped` or
        :class:`WorkFailed`, or whatever ``func`` raised."""
        until = time.monotonic() + budget
        worker = await self._acquire(gone, until, prefer)
        least = budget * LEAST_SHARE if timed else 0.0
        left = max(until - time.monotonic(), least)
        call: Callable[..., T] = partial(_within, func, until, least) if timed else func
        job = next(self._jobs)
        # (watched as the job is: a worker that does not read it is killed, which ends the send)
        send = _Send(worker, (job, call, args))
        outcome: tuple[Any, ...] | SolverStop | None = None
        try:
            outcome = await self._wait(worker, job, left, gone, send)
        finally:
            self._free(worker, job, send, outcome, prefer)
        if isinstance(outcome, SolverStop):
            overran = outcome is SolverStop.SEARCH_OVERRAN
            raise WorkStopped(outcome, **({"seconds": budget} if overran else {}))
        _, ok, value = outcome
        if _out_of_memory(outcome):
            raise WorkFailed(SolverStop.SOLVER_OUT_OF_MEMORY) from value
        if not ok:
            raise value
        result: T = value
        return result

    def _free(self, worker: _Worker, job: int, send: _Send, outcome: tuple[Any, ...] | SolverStop | None,
              prefer: str | None) -> None:
        """Free a job's worker, at once and without holding its caller up:
        kept after a reply (which means the job arrived whole), unless the
        job ran out of memory (a new process starts afresh); let go when
        it died, killed when it is stuck or overran with its job still on
        its way; otherwise (the job stopped, its task cancelled, as a
        request's own deadline does, or the send failed) told to cancel the
        job once the job has reached it, in a thread, and kept if it does
        in time."""
        if isinstance(outcome, tuple):
            self._release(worker, not _out_of_memory(outcome), prefer)
        elif outcome is SolverStop.SOLVER_STUCK or not worker.process.is_alive() or (
                outcome is SolverStop.SEARCH_OVERRAN and not send.ended.is_set()):
            worker.process.kill()
            self._release(worker, False, prefer)
        else:
            threading.Thread(target=self._reclaim, args=(worker, job, send, prefer), daemon=True).start()

    def _size(self) -> int:
        """How many workers the pool has, those being made included (under the lock)."""
        return len(self._idle) + len(self._busy) + self._starting

    async def _acquire(
        self, gone: Callable[[], Awaitable[bool]] | None, until: float, prefer: str | None = None
    ) -> _Worker:
        """A worker for a new job; a job waiting in line leaves it (with
        :class:`WorkStopped`) as soon as its caller has gone away, so a
        request nobody waits for any more neither holds a place in line nor
        starts a search, and (with :class:`PoolBusy`) at ``until`` (a
        :func:`time.monotonic` instant) if no worker came free by then.
        While every free worker is still starting (as after the server's
        start), the job takes the first to have started, or at ``until``
        one still starting."""
        queued = False
        next_look = time.monotonic() + GONE_EVERY
        try:
            while True:
                with self._lock:
                    if self.closing.is_set():
                        raise WorkStopped(SolverStop.SERVER_STOPPING)
                    self._drop_dead()
                    if self._idle and (time.monotonic() >= until or self._one_started()):
                        worker = self._pick(prefer)
                        self._busy.add(worker)
                        return worker
                    grow = not self._idle and self._size() < self.workers
                    if grow:
                        self._starting += 1
                    elif not queued and not self._idle:
                        if self._queued >= self.waiting:
                            raise PoolBusy("the solver is busy")
                        self._queued += 1
                        queued = True
                if grow:
                    return await self._grown()
                if time.monotonic() >= until:
                    raise PoolBusy("no solver process came free in time")
                if gone is not None and time.monotonic() >= next_look:
                    next_look = time.monotonic() + GONE_EVERY
                    if await gone():
                        raise WorkStopped(SolverStop.CALLER_GONE)
                await asyncio.sleep(POLL)
        finally:
            if queued:
                with self._lock:
                    self._queued -= 1

    async def _grown(self) -> _Worker:
        """A new worker for a job, its place taken: made in a thread (a
        process's start took 20-220 ms at load 10, which the event loop
        spent answering nothing); when the job's caller stops waiting
        meanwhile, the worker is free for the next job."""
        making = asyncio.ensure_future(asyncio.to_thread(self._made, busy=True))
        try:
            worker = await asyncio.shield(making)
        except asyncio.CancelledError:
            making.add_done_callback(self._unclaimed)
            raise
        if worker is None:
            raise WorkStopped(SolverStop.SERVER_STOPPING)
        return worker

    def _unclaimed(self, making: asyncio.Future[_Worker | None]) -> None:
        """Free the worker made for a job whose caller stopped waiting."""
        worker = None if making.cancelled() or making.exception() else making.result()
        if worker is not None:
            self._release(worker, True)

    def _made(self, busy: bool) -> _Worker | None:
        """A new worker in the place taken for it (:attr:`_starting`), made
        outside the lock, then put among the ``busy`` or the free ones;
        None, and the worker stopped, when the pool closed meanwhile."""
        try:
            worker = _Worker(self._context, self.preload)
        except BaseException:
            with self._lock:
                self._starting -= 1
            raise
        with self._lock:
            self._starting -= 1
            closed = self.closing.is_set()
            if not closed:
                if busy:
                    self._busy.add(worker)
                else:
                    self._idle.append(worker)
        if closed:
            worker.stop(0.0)
            return None
        return worker

    def _drop_dead(self) -> None:
        """Take the free workers that died (a kill -9, the kernel's
        out-of-memory killer) out of the pool, under the lock: a job given
        one failed at once; their successors start in the background."""
        for worker in [worker for worker in self._idle if not worker.process.is_alive()]:
            self._idle.remove(worker)
            self._forget(worker)
            threading.Thread(target=self._replace, args=(worker,), daemon=True).start()

    def _forget(self, worker: _Worker) -> None:
        """Drop a worker's keys (under the lock): they go to whichever
        worker answers them next."""
        for key, owner in self._preferred.items():
            if owner is worker:
                self._preferred.pop(key)

    def _one_started(self) -> bool:
        """Whether a free worker has started (under the lock)."""
        return any(worker.has_started() for worker in self._idle)

    def _pick(self, prefer: str | None) -> _Worker:
        """Take a free worker (under the lock): ``prefer``'s own if free,
        else one that has started (a start takes seconds on a busy
        machine), the one least recently claimed, freed last among equals;
        one stopped (SIGSTOP) only when no other is free: its job would
        wait out its budget and more (it is replaced once a job finds it
        stuck)."""
        free = [worker for worker in self._idle if not worker.stopped()] or self._idle
        own = self._preferred.get(prefer) if prefer is not None else None
        if own is not None and own in free:
            chosen = own
        else:
            chosen = min(reversed(free), key=lambda worker: (not worker.has_started(), worker.claimed))
        self._idle.remove(chosen)
        return chosen

    async def _wait(
        self, worker: _Worker, job: int, seconds: float, gone: Callable[[], Awaitable[bool]] | None,
        send: _Send,
    ) -> tuple[Any, ...] | SolverStop:
        """The job's reply, or why it was stopped (``send`` included); the
        job has ``seconds`` from when the worker could begin it."""
        sent = time.monotonic()
        next_look = sent + GONE_EVERY
        stall = Stall(worker.process.pid)
        while True:
            reply = worker.reply(job)  # (its word that it started, while the job is on its way)
            if reply is not None:
                return reply
            if send.failed():
                if send.error is None or isinstance(send.error, (EOFError, OSError)):
                    raise WorkFailed()
                raise send.error  # (its arguments did not pickle, say)
            if not worker.process.is_alive():
                raise WorkFailed()
            now = time.monotonic()
            stop = worker.overdue(sent, seconds, now, stall)
            if self.closing.is_set():
                stop = SolverStop.SERVER_STOPPING
            if stop is None and gone is not None and now >= next_look:
                next_look = now + GONE_EVERY
                if await gone():
                    stop = SolverStop.CALLER_GONE
            if stop is not None:
                return stop
            await asyncio.sleep(POLL)

    def _reclaim(self, worker: _Worker, job: int, send: _Send, prefer: str | None) -> None:
        """Free a worker whose job nobody waits for any more (in a thread):
        kept when it cancels the job in time, else replaced."""
        self._release(worker, self._cancel(worker, job, send), prefer)

    def _cancel(self, worker: _Worker, job: int, send: _Send) -> bool:
        """Tell the worker to stop the job, once the job has reached it (a
        job still on its way, over 64 KB, is let arrive: a word sent
        meanwhile would break into it); True when it did in time."""
        stall = Stall(worker.process.pid)
        if not self._in_time(worker, send.ended.is_set, stall) or not send.arrived:
            return False
        cancel = _Send(worker, CANCEL)
        try:
            return (self._in_time(worker, cancel.ended.is_set, stall) and cancel.arrived
                    and self._in_time(worker, lambda: worker.reply(job) is not None, stall))
        except Exception:  # (the pipe broke, or the reply did not unpickle: not kept)
            return False

    def _in_time(self, worker: _Worker, done: Callable[[], bool], stall: Stall) -> bool:
        """Whether ``done()`` comes true within :data:`CANCEL_GRACE` of now
        or of the moment the worker had started, whichever is later (one
        still starting has until :data:`START_LIMIT`, unless the pool is
        closing), and before the worker dies or is stuck."""
        asked = time.monotonic()
        while not done():
            now = time.monotonic()
            until = max(asked, worker.ready_at or asked) + CANCEL_GRACE
            if worker.ready_at is None and not self.closing.is_set():
                until = max(until, worker.born + START_LIMIT)
            if now >= until or not worker.process.is_alive() or stall.stuck(now):
                return False
            time.sleep(POLL)
        return True

    def _release(self, worker: _Worker, usable: bool, prefer: str | None = None) -> None:
        with self._lock:
            self._busy.discard(worker)
            keep = usable and worker.process.is_alive() and not self.closing.is_set()
            if keep:
                self._idle.append(worker)
                if prefer is not None:
                    worker.claimed = next(self._claims)
                    self._preferred.put(prefer, worker)
            else:
                self._forget(worker)
        if not keep:
            threading.Thread(target=self._replace, args=(worker,), daemon=True).start()

    def _replace(self, worker: _Worker) -> None:
        """Stop a worker that cannot be kept and start its successor at
        once, so that the next job does not wait for a process to start."""
        worker.stop(0.0)
        self.start()
