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
  1.5 s searches 0.5 s, and is answered in 2 s, not 3.5 s).
* A job stops when its caller goes away (``gone``), when the pool closes,
  or when its budget plus a grace period has passed since its worker could
  begin it, and so does one whose caller stops waiting (its task
  cancelled): the caller is answered at once, the worker is told to cancel
  (the solver asks between slices) and is replaced if it does not answer
  within :data:`CANCEL_GRACE` seconds. A worker still starting (seconds on a busy machine) is waited
  for until :data:`START_LIMIT`, and is given jobs only when no started
  worker is free.
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
from terrace.refusals import Reason
from terrace.solver.stops import interrupts_held
from terrace.web.i18n import SolverStop

T = TypeVar("T")

CANCEL = "cancel"
READY = "ready"
"""What a new worker says once it has started (its imports done)."""
CANCEL_GRACE = 1.0
"""Seconds a worker that has started has to answer a cancel before it is
replaced (one still starting gets until :data:`START_LIMIT`: a successor
would only have to start all over again)."""
OVERRUN_GRACE = 10.0
"""Seconds a job may take beyond its budget, counted from when its worker
could begin it (once it had started and had the job)."""
START_LIMIT = 60.0
"""Seconds a new worker may take to start (a new process and its imports)
before it is taken for hung and replaced: 1.1-1.8 s measured at load 6,
5.4-6.5 s at load 8 and 16-20 s at load 13-20 (busy loops on two cores)."""
POLL = 0.01
PREFERRED_KEYS = 1024
"""How many keys' workers (see ``prefer``) a pool remembers, the last used."""
GONE_EVERY = 0.1


class PoolBusy(Exception):
    """Every worker is busy and the waiting line is full."""


class WorkStopped(Exception):
    """The job was stopped: its caller went away, the pool closed, or it
    overran its budget. ``reason`` says which, in each language."""

    def __init__(self, why: SolverStop) -> None:
        self.reason = Reason(why)
        super().__init__(str(self.reason))


class WorkFailed(Exception):
    """The worker process died during the job."""

    def __init__(self) -> None:
        self.reason = Reason(SolverStop.SOLVER_CRASHED)
        super().__init__(str(self.reason))


def _echo(value: T, cancel: Callable[[], bool]) -> T:
    """A job that returns its argument (for tests)."""
    return value


def _sleep(seconds: float, cancel: Callable[[], bool]) -> float:
    """A job that waits ``seconds`` or until cancelled (for tests)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not cancel():
        time.sleep(0.005)
    return seconds


def _serve(conn: Connection) -> None:
    """A worker's life: run jobs until the server is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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


def _seen(sending: asyncio.Future[None]) -> None:
    """Take a send's outcome, so that a failure no caller looked at (its
    worker killed on its way) is not reported as never retrieved."""
    if not sending.cancelled():
        sending.exception()


def _arrived(sending: asyncio.Future[None]) -> bool:
    """Whether a job's send has ended and the job reached its worker."""
    return sending.done() and not sending.cancelled() and sending.exception() is None


class _Worker:
    def __init__(self, context: Any) -> None:
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child,), daemon=True, name="terrace-solver"
        )
        # (Ctrl+C reaches the whole process group: a worker that took it
        # while it still imported printed a traceback; it starts with the
        # signal blocked, until _serve ignores it)
        if hasattr(signal, "pthread_sigmask"):
            resource_tracker.ensure_running()
        with interrupts_held():
            self.process.start()
        child.close()
        self.born = time.monotonic()
        """When its process was started (monotonic)."""
        self.ready_at: float | None = None
        """When the worker said it had started (monotonic), once it has."""
        self.claimed = 0
        """When it last answered a job with ``prefer`` (a count; 0: never)."""
        self.stopping = threading.Lock()
        """Held while the worker is stopped (:meth:`stop`)."""

    def has_started(self) -> bool:
        """Whether the worker has said it started; an idle worker's pipe
        holds nothing else, so its word is read here when it is waiting."""
        if self.ready_at is None:
            with contextlib.suppress(EOFError, OSError):
                if self.conn.poll() and self.conn.recv() == READY:
                    self.ready_at = time.monotonic()
        return self.ready_at is not None

    def deadline(self, sent: float, seconds: float) -> float:
        """When a job sent at ``sent`` (monotonic) with ``seconds`` of
        budget has overrun: it can only begin once the worker has started,
        and a start has its own limit."""
        if self.ready_at is None:
            return self.born + START_LIMIT
        return max(sent, self.ready_at) + seconds + OVERRUN_GRACE

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
        self.conn.close()


class SolverPool:
    """A bounded pool of solver processes; see the module docstring."""

    def __init__(self, workers: int = 2, waiting: int = 2) -> None:
        self.workers = workers
        self.waiting = waiting
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
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
        with self._lock:
            while len(self._idle) + len(self._busy) < self.workers and not self.closing.is_set():
                self._idle.append(_Worker(self._context))

    def close(self) -> None:
        """Stop every job and worker at once (a worker keeps nothing that
        needs saving, so it is simply terminated)."""
        self.closing.set()
        with self._lock:
            workers, self._idle = [*self._idle, *self._busy], []
        for worker in workers:
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
        ``budget`` once a worker is free; ``prefer``: see the module docstring.
        Raises :class:`PoolBusy`, :class:`WorkStopped` or
        :class:`WorkFailed`, or whatever ``func`` raised."""
        until = time.monotonic() + budget
        worker = await self._acquire(gone, until, prefer)
        left = max(until - time.monotonic(), 0.0)
        call: Callable[..., T] = partial(func, seconds=left) if timed else func
        job = next(self._jobs)
        # (in a thread: a pipe takes 64 KB at a time, so the event loop
        # waited until the worker had read the rest, a worker still
        # starting included: a coach job of a game of 100,000 moves and
        # its log, 2 MB, held every other request up for 0.3 s; watched as
        # the job is: a worker that does not read it is killed, which ends
        # the send)
        sending = asyncio.ensure_future(asyncio.to_thread(worker.conn.send, (job, call, args)))
        sending.add_done_callback(_seen)
        reply: tuple[Any, ...] | None = None
        try:
            reply = await self._wait(worker, job, left, gone, sending)
        finally:
            if reply is None and _arrived(sending):
                # (stopped, or its task cancelled, as a request's own
                # deadline does: the worker is told to cancel the job and
                # kept if it does in time, without holding the caller up)
                threading.Thread(target=self._reclaim, args=(worker, job, prefer), daemon=True).start()
            else:
                # (a reply means the job arrived whole, though the thread
                # that sent it may not have said so yet: the worker is kept)
                if reply is None and not sending.done():
                    worker.process.kill()
                self._release(worker, reply is not None, prefer)
        if reply is None:
            raise WorkStopped(SolverStop.SEARCH_STOPPED)
        _, ok, value = reply
        if not ok:
            raise value
        result: T = value
        return result

    async def _acquire(
        self, gone: Callable[[], Awaitable[bool]] | None, until: float, prefer: str | None = None
    ) -> _Worker:
        """A worker for a new job; a job waiting in line leaves it (with
        :class:`WorkStopped`) as soon as its caller has gone away, so a
        request nobody waits for any more neither holds a place in line nor
        starts a search, and (with :class:`PoolBusy`) at ``until`` (a
        :func:`time.monotonic` instant) if no worker came free by then."""
        queued = False
        next_look = time.monotonic() + GONE_EVERY
        try:
            while True:
                with self._lock:
                    if self.closing.is_set():
                        raise WorkStopped(SolverStop.SERVER_STOPPING)
                    self._drop_dead()
                    if self._idle or len(self._busy) < self.workers:
                        worker = self._pick(prefer) if self._idle else None
                        if worker is None:
                            worker = _Worker(self._context)
                        self._busy.add(worker)
                        return worker
                    if not queued:
                        if self._queued >= self.waiting:
                            raise PoolBusy("the solver is busy")
                        self._queued += 1
                        queued = True
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

    def _pick(self, prefer: str | None) -> _Worker:
        """Take a free worker (under the lock): ``prefer``'s own if free,
        else one that has started (a start takes seconds on a busy
        machine), the one least recently claimed, freed last among equals."""
        own = self._preferred.get(prefer) if prefer is not None else None
        if own is not None and own in self._idle:
            chosen = own
        else:
            chosen = min(reversed(self._idle), key=lambda worker: (not worker.has_started(), worker.claimed))
        self._idle.remove(chosen)
        return chosen

    async def _wait(
        self, worker: _Worker, job: int, seconds: float, gone: Callable[[], Awaitable[bool]] | None,
        sending: asyncio.Future[None],
    ) -> tuple[Any, ...] | None:
        """The job's reply, or None when it was stopped (``sending`` it
        included); the job has ``seconds`` from when the worker could
        begin it."""
        sent = time.monotonic()
        next_look = sent + GONE_EVERY
        while True:
            reply = self._reply(worker, job)  # (its word that it started, while the job is on its way)
            if reply is not None:
                return reply
            if sending.done() and not _arrived(sending):
                error = sending.exception()
                if isinstance(error, (EOFError, OSError)):
                    raise WorkFailed()
                raise error or WorkFailed()  # (its arguments did not pickle, say)
            if not worker.process.is_alive():
                raise WorkFailed()
            now = time.monotonic()
            stop = self.closing.is_set() or now >= worker.deadline(sent, seconds)
            if not stop and gone is not None and now >= next_look:
                next_look = now + GONE_EVERY
                stop = await gone()
            if stop:
                return None
            await asyncio.sleep(POLL)

    def _reply(self, worker: _Worker, job: int) -> tuple[Any, ...] | None:
        try:
            while worker.conn.poll():
                reply: tuple[Any, ...] | str = worker.conn.recv()
                if isinstance(reply, str):
                    if reply == READY:
                        worker.ready_at = time.monotonic()
                elif reply[0] == job:
                    return reply
        except (EOFError, OSError):
            raise WorkFailed() from None
        return None

    def _reclaim(self, worker: _Worker, job: int, prefer: str | None) -> None:
        """Free a worker whose job nobody waits for any more (in a thread):
        kept when it cancels the job in time, else replaced."""
        self._release(worker, self._cancel(worker, job), prefer)

    def _cancel(self, worker: _Worker, job: int) -> bool:
        """Tell the worker to stop the job; True when it did in time:
        within :data:`CANCEL_GRACE` of the cancel or of the moment it had
        started, whichever is later (one still starting has until
        :data:`START_LIMIT`, unless the pool is closing)."""
        try:
            worker.conn.send(CANCEL)
            sent = time.monotonic()
            while True:
                if self._reply(worker, job) is not None:
                    return True
                ready = worker.ready_at
                until = max(sent, ready or sent) + CANCEL_GRACE
                if ready is None and not self.closing.is_set():
                    until = max(until, worker.born + START_LIMIT)
                if time.monotonic() >= until or not worker.process.is_alive():
                    break
                worker.conn.poll(POLL)
        except (OSError, ValueError, WorkFailed):
            pass
        return False

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
