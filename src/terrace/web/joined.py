"""Identical solver jobs asked at once run once: two tabs (or two devices)
asking the same game's hint at the same position, with the same settings,
took two solver processes for one answer, and every other request for the
solver waited or was refused meanwhile. The later callers join the job
already running and get its answer (or its error).

The job belongs to no caller: it runs while any of its callers still waits
for it, so that a first caller that stops waiting (its client gone, its
task cancelled) leaves the others their answer; it stops (``gone`` says
so, and it is cancelled) once none waits any more.

>>> import asyncio
>>> async def twice() -> list[int]:
...     started = []
...     async def job(gone):
...         started.append(1)
...         await asyncio.sleep(0.01)
...         return 42
...     joined = Joined()
...     async def never_gone() -> bool:
...         return False
...     answers = await asyncio.gather(*(joined.run("key", job, never_gone) for _ in range(2)))
...     return [*answers, len(started)]
>>> asyncio.run(twice())
[42, 42, 1]
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Gone = Callable[[], Awaitable[bool]]
"""Whether a caller has gone away (its client disconnected)."""


class _Job(Generic[T]):
    """One running job and the callers waiting for it."""

    def __init__(self) -> None:
        self.callers: list[Gone] = []
        self.task: asyncio.Future[T] | None = None

    async def all_gone(self) -> bool:
        """True once every caller waiting for the job has gone away (or
        none waits any more)."""
        for gone in list(self.callers):
            if not await gone():
                return False
        return True


class Joined:
    """The jobs running now, by key (see the module docstring)."""

    def __init__(self) -> None:
        self._running: dict[Hashable, _Job[Any]] = {}

    @property
    def running(self) -> int:
        """How many jobs run now."""
        return len(self._running)

    def waiting(self, key: Hashable | None = None) -> int:
        """How many callers wait for the job of ``key`` (0 when none
        runs), or for any job."""
        jobs = self._running.values() if key is None else [self._running[key]] if key in self._running else []
        return sum(len(job.callers) for job in jobs)

    async def run(self, key: Hashable, start: Callable[[Gone], Awaitable[T]], gone: Gone) -> T:
        """The answer of the job of ``key``: the one running now, else
        ``start(all_gone)`` begun here (``all_gone`` says whether every
        caller has gone away); ``gone`` says whether this caller has."""
        job: _Job[T] | None = self._running.get(key)
        if job is None or job.task is None or job.task.done():
            job = _Job()
            self._running[key] = job
            job.task = asyncio.ensure_future(start(job.all_gone))
            job.task.add_done_callback(lambda _: self._forget(key, job))
        job.callers.append(gone)
        task = job.task
        try:
            return await asyncio.shield(task)
        finally:
            self._leave(key, job, gone)

    def _leave(self, key: Hashable, job: _Job[T], gone: Gone) -> None:
        """A caller stops waiting: the last one stops the job."""
        job.callers.remove(gone)
        if not job.callers and job.task is not None and not job.task.done():
            self._forget(key, job)
            job.task.cancel()

    def _forget(self, key: Hashable, job: _Job[T]) -> None:
        """Let a later caller of ``key`` start a job of its own."""
        if self._running.get(key) is job:
            del self._running[key]
