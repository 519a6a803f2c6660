"""Waits that hold under load: the tests wait for a state, not for a time,
with one generous deadline for what comes "eventually"."""

from __future__ import annotations

import time
from collections.abc import Callable

STARTING = 120.0
"""The longest wait for a process the tests start (a solver worker, a Dask
scheduler or worker) to be there: at load ~18 (eight busy loops on two
cores) a solver worker took 5-10 s to start, more than the 5 s budgets plus
the 10 s grace of test_web_workers' scenarios, which then failed with
WorkStopped or a 503 before any of them had run (when the grace counted
from the job's sending, not from the worker's start); at load ~30 a Dask
scheduler took more than 15 s to write its address (stop 70)."""


def eventually(done: Callable[[], bool], seconds: float = STARTING) -> None:
    """Wait until ``done()``, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline
        time.sleep(0.01)
