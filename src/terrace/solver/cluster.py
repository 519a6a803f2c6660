"""Surveys on a Dask cluster (the optional extra ``terrace[cluster]``).

:func:`run_cluster_survey` does what :func:`terrace.solver.survey.run_survey`
does, on the workers of a Dask ``distributed`` scheduler instead of a local
process pool: deals go out in batches (:func:`run_batch`, a pure function
of its arguments), results come back as each batch finishes and are stored
in the verdict database at once, so an interrupted survey resumes where it
stopped. A worker that dies has its batches run again elsewhere (Dask does
that); a deal is stored and reported once, however often it ran. Workers
whose terrace version differs from the client's are refused.

``distributed`` is imported only when a cluster is used.

>>> parse_scheduler("local:4")
('local', 4)
>>> parse_scheduler("tcp://10.0.0.5:8786")
('address', 'tcp://10.0.0.5:8786')
>>> parse_scheduler("local:0")
Traceback (most recent call last):
ValueError: --scheduler local:N wants 1 to 256 workers, not 0
>>> batch_size(10_000, 4), batch_size(10, 4), batch_size(10_000, 4, "fair")
(32, 1, 1)
"""

from __future__ import annotations

import importlib.metadata
import re
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from terrace.rules import Rules
from terrace.solver.players import player_key, player_settings
from terrace.solver.playout import check_budget
from terrace.solver.survey import Job, run_job
from terrace.solver.verdicts import Verdict, VerdictStore, settled


def _installed_version() -> str:
    try:
        return importlib.metadata.version("terrace")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


VERSION = _installed_version()
"""This process's terrace version; client and workers must agree on it."""

MAX_WORKERS = 256
"""The most workers ``--scheduler local:N`` starts."""

MAX_BATCH = 32
"""The most deals in one batch: small enough that a batch lost with its
worker, or with the client, costs little."""

MAX_LOST = 3
"""How often one deal may be lost with its worker before the survey stops."""

IN_FLIGHT_PER_WORKER = 3
"""Batches queued per worker: enough to keep it busy, few enough that the
scheduler never holds a whole million-deal survey."""

INSTALL_HINT = ("surveys on a cluster need Dask's distributed: install the extra with"
                "  pip install 'terrace[cluster]'")

_ADDRESS = re.compile(r"^tcp://[A-Za-z0-9._\-\[\]:]+:\d{1,5}$")

Progress = Callable[[int, float, int], None]
"""Called as ``(deals done in this run, deals per second, workers)``."""


class ClusterError(RuntimeError):
    """The cluster cannot run the survey: ``distributed`` is missing, or the
    workers run another terrace version."""


def cluster_available() -> bool:
    """True when ``distributed`` can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    return distributed


def parse_scheduler(text: str) -> tuple[str, int | str]:
    """``local:N`` (a LocalCluster of N worker processes on this machine)
    or the address ``tcp://HOST:PORT`` of a running scheduler."""
    text = text.strip()
    if text.startswith("local:"):
        count = text[len("local:"):]
        if count.isascii() and count.isdigit() and 1 <= int(count) <= MAX_WORKERS:
            return "local", int(count)
        raise ValueError(f"--scheduler local:N wants 1 to {MAX_WORKERS} workers, not {count[:20]}")
    if _ADDRESS.match(text) and int(text.rsplit(":", 1)[1]) <= 65535:
        return "address", text
    raise ValueError(f"--scheduler wants tcp://HOST:PORT or local:N, not {text[:80]!r}")


def batch_size(deals: int, workers: int, player: str = "perfect") -> int:
    """Deals per batch: about eight batches per worker, at most
    :data:`MAX_BATCH`; one deal per batch for the fair player, whose deals
    take minutes each."""
    if player == "fair":
        return 1
    return max(1, min(MAX_BATCH, deals // (8 * max(1, workers))))


def worker_version() -> str:
    """The terrace version of the process it runs in (run on each worker)."""
    return VERSION


def _mismatch(where: str, worker: str, client: str) -> str:
    return (f"worker {where} runs terrace {worker}, this client terrace {client}: install the same "
            f"terrace[cluster] version everywhere (another engine could give other verdicts)")


def run_batch(version: str, jobs: Sequence[Job]) -> list[tuple[int, Verdict, int]]:
    """Run a batch of deals on a worker, refusing to if the client's
    terrace ``version`` is not this worker's.

    >>> run_batch("0.0.0", [])
    Traceback (most recent call last):
    terrace.solver.cluster.ClusterError: worker ... runs terrace ..., this client terrace 0.0.0: ...
    """
    if version != VERSION:
        raise ClusterError(_mismatch(socket.gethostname(), VERSION, version))
    return [run_job(job) for job in jobs]


def check_versions(client: Any) -> int:
    """The number of workers, once each runs this terrace version; raises
    :class:`ClusterError` naming the first that does not."""
    versions: dict[str, str] = client.run(worker_version)
    for where, version in sorted(versions.items()):
        if version != VERSION:
            raise ClusterError(_mismatch(where, version, VERSION))
    return len(versions)


@contextmanager
def connect(scheduler: str) -> Iterator[Any]:
    """A Dask client of ``scheduler`` (see :func:`parse_scheduler`); for
    ``local:N`` a LocalCluster of N single-threaded worker processes,
    closed on the way out."""
    kind, where = parse_scheduler(scheduler)
    distributed = _distributed()
    if kind == "address":
        client = distributed.Client(where, timeout="30s")
        try:
            yield client
        finally:
            client.close()
        return
    cluster = distributed.LocalCluster(n_workers=where, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    try:
        client = distributed.Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def run_cluster_survey(
    rules: Rules,
    first: int,
    last: int,
    *,
    scheduler: str,
    max_seconds: float,
    store: VerdictStore,
    on_result: Callable[[int, Verdict], None] | None = None,
    on_progress: Progress | None = None,
    player: str = "perfect",
    settings: Mapping[str, Any] | None = None,
    seed: int = 0,
    batch: int | None = None,
) -> tuple[dict[int, Verdict], int]:
    """:func:`terrace.solver.survey.run_survey` on the cluster ``scheduler``:
    the same arguments (``scheduler`` instead of ``jobs``, and ``batch``
    deals per task, by default :func:`batch_size`) and the same result."""
    check_budget(max_seconds)
    parse_scheduler(scheduler)
    if batch is not None and not 1 <= batch <= 10_000:
        raise ValueError(f"a batch holds 1 to 10000 deals, not {batch}")
    full = player_settings(player, settings)
    key = player_key(player, full, seed)
    known = store.range(rules, first, last, key)
    todo = [n for n in range(first, last + 1) if not settled(known.get(n), max_seconds)]
    if not todo:
        return known, 0

    def keep(verdicts: dict[int, Verdict]) -> None:
        store.put_many(rules, verdicts, key)  # one transaction per batch: a million rows cost seconds
        known.update(verdicts)
        if on_result is not None:
            for number, verdict in verdicts.items():
                on_result(number, verdict)

    with connect(scheduler) as client:
        workers = check_versions(client)
        size = batch or batch_size(len(todo), workers, player)
        batches = [[(rules, n, player, full, seed, max_seconds) for n in todo[i:i + size]]
                   for i in range(0, len(todo), size)]
        peak = _stream(client, batches, workers, keep, on_progress)
    return known, peak


def _stream(client: Any, batches: list[list[Job]], workers: int,
            keep: Callable[[dict[int, Verdict]], None], on_progress: Progress | None) -> int:
    """Run ``batches`` on the client's cluster, a few per worker at a time,
    calling ``keep`` with the verdicts of each batch as it finishes (each
    deal once, however often it ran); returns the largest worker peak
    memory (kB) seen."""
    distributed = _distributed()
    pending = list(reversed(batches))
    done: set[int] = set()
    peak = 0
    start = time.perf_counter()
    checked = start

    def submit(jobs: list[Job]) -> Any:
        future = client.submit(run_batch, VERSION, jobs, pure=False, retries=0)
        owner[future.key] = jobs
        return future

    owner: dict[Any, list[Job]] = {}
    lost: Counter[int] = Counter()
    first = [submit(pending.pop()) for _ in range(min(len(pending), _window(workers)))]
    stream = distributed.as_completed(first, loop=client.loop)  # this client's loop, not the default's
    try:
        for future in stream:
            jobs = owner.pop(future.key)
            try:
                results = _results(future, distributed.KilledWorker)
            except _Lost:
                if len(jobs) == 1:
                    lost[jobs[0][1]] += 1
                    if lost[jobs[0][1]] > MAX_LOST:
                        raise ClusterError(f"deal {jobs[0][1]} was lost with its worker {MAX_LOST + 1} "
                                           "times: it may need more memory than a worker has") from None
                # again, each deal alone: a deal that kills its workers is then named
                pending.extend([job] for job in jobs)
                results = []
            fresh = {number: verdict for number, verdict, _ in results if number not in done}
            if fresh:
                keep(fresh)
                done.update(fresh)
                peak = max(peak, *(kb for _, _, kb in results))
            now = time.perf_counter()
            if now - checked >= 1.0 or not pending:
                workers, checked = len(client.nthreads()), now
            while pending and stream.count() < _window(workers):
                stream.add(submit(pending.pop()))
            if on_progress is not None:
                on_progress(len(done), len(done) / max(now - start, 1e-9), workers)
    finally:
        for future in list(stream.futures):
            future.cancel()
    return peak


class _Lost(Exception):
    """A batch's results went with its worker."""


def _results(future: Any, killed: type[Exception]) -> list[tuple[int, Verdict, int]]:
    """A finished batch's results; :class:`_Lost` when the workers that ran
    it kept dying (Dask's ``KilledWorker``, after it tried it elsewhere), or
    one died before the client fetched its results. An error of the task
    itself (a refusal, a bug) is raised as it is, never retried."""
    if future.status == "error":
        error = future.exception()
        if isinstance(error, killed):
            raise _Lost
        raise error
    try:
        return list(future.result())
    except Exception:  # finished, then lost with its worker before it was fetched
        raise _Lost from None


def _window(workers: int) -> int:
    return IN_FLIGHT_PER_WORKER * max(1, workers)
