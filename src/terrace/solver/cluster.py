"""Surveys on a Dask cluster (the optional extra ``terrace[cluster]``).

:func:`run_cluster_survey` does what :func:`terrace.solver.survey.run_survey`
does, on the workers of a Dask ``distributed`` scheduler instead of a local
process pool: deals go out in batches (:func:`run_batch`, a pure function
of its arguments), results come back as each batch finishes and are stored
in the verdict database at once, so an interrupted survey resumes where it
stopped. A worker that dies has its batches run again elsewhere (Dask does
that), and so has one that stops answering (its batch runs far beyond its
budget); a deal is stored and reported once, however often it ran. Workers
whose versions (terrace, solver, deal, players, compiled core) differ from
the client's are named and left out: their batches run elsewhere. Every wait
has a deadline: for the scheduler to answer (:data:`CONNECT_SECONDS`), for
a worker to report its versions (:data:`CHECK_SECONDS`), for a usable
worker to appear (:data:`WORKER_WAIT`).

``distributed`` is imported only when a cluster is used.

>>> parse_scheduler("local:4")
('local', 4)
>>> parse_scheduler("tcp://10.0.0.5:8786")
('address', 'tcp://10.0.0.5:8786')
>>> parse_scheduler("local:0")
Traceback (most recent call last):
ValueError: --scheduler local:N wants 1 to 256 workers, not '0'
>>> batch_size(10_000, 4), batch_size(10, 4), batch_size(10_000, 4, "fair")
(32, 1, 1)
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.metadata
import itertools
import logging
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import urlsplit

from terrace.deal import DEAL_VERSION
from terrace.refusals import clip, quote
from terrace.rules import Rules, given_rules
from terrace.solver.budget import check_budget
from terrace.solver.extras import install_command
from terrace.solver.fair import FAIR_VERSION
from terrace.solver.players import PLAYER_VERSION, player_key, player_settings
from terrace.solver.pool import MAX_WORKERS, ignore_interrupts, worker_start_method
from terrace.solver.search import core_available
from terrace.solver.stops import interrupts_deferred, stops_kept
from terrace.solver.survey import Job, check_range, run_job, survey_jobs
from terrace.solver.tally import Tally, counted, stored_tally
from terrace.solver.verdicts import SOLVER_VERSION, Verdict, VerdictStore
from terrace.whole import as_whole, digits_value, whole_text


def _installed_version() -> str:
    try:
        return importlib.metadata.version("terrace")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


VERSION = _installed_version()
"""This process's terrace version; client and workers must agree on it."""

MAX_BATCH = 32
"""The most deals in one batch: small enough that a batch lost with its
worker, or with the client, costs little."""

MAX_LOST = 3
"""How often one deal may be lost with its worker before the survey stops."""

IN_FLIGHT_PER_WORKER = 3
"""Batches queued per worker: enough to keep it busy, few enough that the
scheduler never holds a whole million-deal survey."""


def install_hint() -> str:
    """What to do without ``distributed``: the extra ``cluster`` installed
    into this Python (``pip install 'terrace[cluster]'`` fetched PyPI's
    unrelated "terrace")."""
    return ("surveys on a cluster need Dask's distributed, terrace's extra 'cluster': "
            + install_command("cluster"))


_ADDRESS = re.compile(r"tcp://(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._\-]+):(?P<port>[^:]*)")
"""``tcp://HOST:PORT``: a name or IPv4 address, or an IPv6 address in
brackets; the port is read by :func:`~terrace.whole.digits_value`."""

CONNECT_SECONDS = 30.0
"""How long the scheduler may take to answer (a listener that is not a Dask
scheduler never does), and how long a lost connection may take to return."""

CHECK_SECONDS = 30.0
"""How long a worker may take to report its versions before it is left out
as unresponsive, or to hand over a finished batch before it is run again."""

WORKER_WAIT = 120.0
"""How long the survey waits with no usable worker before it stops."""

OVERRUN_SLACK = 60.0
"""Seconds a batch may run beyond ``2 * IN_FLIGHT_PER_WORKER * deals *
budget`` before its worker is taken for frozen and the batch runs elsewhere."""

TICK = 0.5
"""How often the client looks at its batches and workers (seconds)."""

ASK_SECONDS = 5.0
"""How long one question to the scheduler (its workers, a batch's results)
may wait for the answer before the client looks again (and takes a stop
heard meanwhile): long enough for a slow network; its workers unanswered
for :data:`CONNECT_SECONDS` end the survey."""

Progress = Callable[[int, float, int], None]
"""Called as ``(deals done in this run, deals per second, workers)``."""

Warn = Callable[[str], None]
"""Called with a line about a worker left out (another version, no answer)."""


RESUME = "run the same command again to resume"
"""How a survey goes on after the scheduler was lost or no worker could
run its deals (each such error ends with it)."""

PAUSED_WHY = ("paused by Dask: its memory is above the pause threshold of its --memory-limit; "
              "give it more")
"""Why a paused worker runs nothing."""


class ClusterError(RuntimeError):
    """The cluster cannot run the survey: ``distributed`` is missing, the
    scheduler does not answer or went away, no worker can run the deals."""


class WrongWorker(ClusterError):
    """A batch refused by a worker whose versions differ from the client's."""

    def __init__(self, message: str, address: str) -> None:
        super().__init__(message, address)
        self.address = address

    def __str__(self) -> str:
        return str(self.args[0])


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
        raise ClusterError(install_hint()) from None
    return distributed


def parse_scheduler(text: str) -> tuple[str, int | str]:
    """``local:N`` (a LocalCluster of N worker processes on this machine)
    or the address ``tcp://HOST:PORT`` of a running scheduler."""
    text = text.strip()
    if text.startswith("local:"):
        count = text[len("local:"):]
        workers = whole_text(count)  # (as --jobs reads its number: local:+2 is --jobs +2)
        if workers is not None and 1 <= workers <= MAX_WORKERS:
            return "local", workers
        raise ValueError(f"--scheduler local:N wants 1 to {MAX_WORKERS} workers, not {quote(count)}")
    address = _ADDRESS.fullmatch(text)
    port = None if address is None else digits_value(address["port"], 5)
    if port is not None and 1 <= port <= 65535:
        return "address", text
    raise ValueError(f"--scheduler wants tcp://HOST:PORT or local:N, not {quote(text[:80])}")


def batch_size(deals: int, workers: int, player: str = "perfect") -> int:
    """Deals per batch: about eight batches per worker, at most
    :data:`MAX_BATCH`; one deal per batch for the fair player, whose deals
    take minutes each."""
    if player == "fair":
        return 1
    return max(1, min(MAX_BATCH, deals // (8 * max(1, workers))))


VERSION_NAMES = {"terrace": "terrace", "solver": "solver version", "deal": "deal version",
                 "fair": "fair player version", "player": "player version", "core": "solver core"}
"""What :func:`worker_versions` reports, and how messages name it."""


def worker_versions() -> dict[str, str]:
    """The versions of the process it runs in (run on each worker): the
    terrace package, every version that keys or changes a verdict, and
    whether the compiled solver core is built (the pure-Python search
    decides fewer deals in the same time)."""
    return {"terrace": VERSION, "solver": str(SOLVER_VERSION), "deal": str(DEAL_VERSION),
            "fair": str(FAIR_VERSION), "player": str(PLAYER_VERSION),
            "core": "compiled" if core_available() else "pure-Python"}


def _mismatch(where: str, worker: Mapping[str, Any], client: Mapping[str, str]) -> str:
    keys = [key for key in client if worker.get(key) != client[key]] or list(client)
    theirs = ", ".join(f"{VERSION_NAMES.get(k, k)} {clip(str(worker.get(k, '?')))}" for k in keys)
    ours = ", ".join(f"{VERSION_NAMES.get(k, k)} {client[k]}" for k in keys)
    return (f"worker {where} runs {theirs}, this client {ours}: install the same terrace version, "
            f"with its extra 'cluster' and its compiled core, everywhere, from one folder "
            f"(another engine could give other verdicts)")


def _here() -> str:
    """This worker's address (the host name outside a worker)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return socket.gethostname()


_ONE_BATCH = threading.Lock()
"""One batch at a time in a worker process, however many threads it has
(``dask worker`` gives one per core unless told ``--nthreads 1``): deals
solved side by side in one process share its GIL and the compiled core's
memory limit, and within their wall-clock budgets they decided fewer
deals than a survey run here, ``unknown`` stored for good."""


def run_batch(versions: Mapping[str, str], jobs: Sequence[Job]) -> list[tuple[int, Verdict, int]]:
    """Run a batch of deals on a worker, refusing to (:class:`WrongWorker`)
    if the client's ``versions`` are not this worker's
    (:func:`worker_versions`): its verdicts would be stored as the client's.

    >>> run_batch({**worker_versions(), "solver": "0"}, [])
    Traceback (most recent call last):
    terrace.solver.cluster.WrongWorker: worker ... runs solver version ..., this client solver version 0: ...
    """
    mine = worker_versions()
    if dict(versions) != mine:
        where = _here()
        raise WrongWorker(_mismatch(where, mine, versions), where)
    with _ONE_BATCH:  # (each deal's budget starts once its batch holds the process)
        return [run_job(job) for job in jobs]


def _describe(error: BaseException) -> str:
    return clip(f"{type(error).__name__}: {error}")


UNKNOWN_NAME = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}
"""The answers of the name lookup for a host name that does not exist."""


def _listening(address: str) -> None:
    """Refuse at once an address where nothing listens (Dask's own connect
    tried again for the whole :data:`CONNECT_SECONDS`), and after that
    deadline one whose connection is never taken (its packets dropped)."""
    parts = urlsplit(address)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return
    if parts.scheme != "tcp" or host is None or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except ConnectionRefusedError:
        raise ClusterError(f"nothing listens at {address} (the connection was refused): is a Dask "
                           f"scheduler running there (dask scheduler), and is that its address?") from None
    except socket.gaierror as error:
        # (a name no server knows, a typo: said at once, where Dask tried it
        # again for 30 s and then said no scheduler had answered; a name
        # server that does not answer now is left to the probe's wait)
        if error.errno not in UNKNOWN_NAME:
            return
        raise ClusterError(f"{clip(host)} is not a known host name ({error.strerror}): is {address} the "
                           f"scheduler's address?") from None
    except TimeoutError:
        # (a port whose packets are dropped, a firewall's way: the probe's
        # own wait came on top, twice the deadline said)
        raise _no_scheduler(address, CONNECT_SECONDS) from None
    except OSError:
        return  # (the probe says what it finds)


def _no_scheduler(address: str, within: float | None = None) -> ClusterError:
    """The refusal of an address where no Dask scheduler answered (``within``
    the deadline, when that is why)."""
    when = "" if within is None else f" within {within:g} s"
    return ClusterError(f"no Dask scheduler answered at {address}{when}: is one "
                        f"running there (dask scheduler), and is that its address?")


def _probe(address: str) -> None:
    """Make sure a Dask scheduler answers at ``address`` within
    :data:`CONNECT_SECONDS` (``distributed.Client`` waits for ever on a
    listener that accepts the connection and never speaks)."""
    core: Any = importlib.import_module("distributed.core")

    async def identity() -> Any:
        remote = core.rpc(address, timeout=CONNECT_SECONDS)
        try:
            return await remote.identity()
        finally:
            await remote.close_rpc()

    _listening(address)
    try:
        reply = asyncio.run(asyncio.wait_for(identity(), CONNECT_SECONDS))
    except Exception as error:  # reset, timed out, garbled: no scheduler there
        raise _no_scheduler(address, CONNECT_SECONDS if isinstance(error, TimeoutError) else None) from None
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise ClusterError(f"{address} is not a Dask scheduler (it says it is {clip(str(kind))})")


@contextmanager
def connect(scheduler: str) -> Iterator[Any]:
    """A Dask client of ``scheduler`` (see :func:`parse_scheduler`); for
    ``local:N`` a LocalCluster of N single-threaded worker processes
    (asked for, not waited for: the survey waits for its workers), closed
    on the way out. A scheduler that does not answer within
    :data:`CONNECT_SECONDS` is a :class:`ClusterError`."""
    kind, where = parse_scheduler(scheduler)
    distributed = _distributed()
    if kind == "address":
        assert isinstance(where, str)
        _probe(where)
        with _dask_logs_silenced():
            try:
                client = distributed.Client(where, timeout=f"{CONNECT_SECONDS}s")
            except Exception as error:
                why = _describe(error)
                raise ClusterError(f"cannot connect to the scheduler at {where}: {why}") from None
            try:
                yield client
            finally:
                _quietly(client.close)
        return
    # Dask's own warnings and errors stay out of the survey's output (it
    # says itself what goes wrong); on Ctrl+C they were a screenful about
    # cancelled tasks and worker processes killed on the way out, and a
    # worker stopped mid-survey had the scheduler (in this process) log
    # "Couldn't gather keys" six times.
    _quiet_exit_hook()
    # The workers are forked by a fork server that ignores Ctrl+C, as the
    # local pool's are: Ctrl+C reaches the whole process group, and a worker
    # Dask had just spawned (at the start, or to replace one) printed
    # "Fatal Python error: init_import_site" and a traceback. (Dask reads
    # the method at each worker start: it stays set while the cluster runs.)
    #
    # The cluster starts with its scheduler alone (held off from a stop: a
    # moment), then asks for its workers without waiting for them: the
    # survey waits for them itself, where a stop ends the wait at once (the
    # constructor waited until every worker was up, 2 to 4 s for two here,
    # and a stop meanwhile took effect only then). Each worker, also one
    # that replaces another, is prepared as it joins.
    dask: Any = importlib.import_module("dask")
    with dask.config.set({"distributed.worker.multiprocessing-method": worker_start_method()}):
        with interrupts_deferred():
            cluster = distributed.LocalCluster(n_workers=0, threads_per_worker=1, processes=True,
                                               dashboard_address=":0", silence_logs=logging.CRITICAL)
        try:
            client = distributed.Client(cluster)
            try:
                client.register_worker_callbacks(_prepare_local_worker)
                cluster.scale(where)
                yield client
            finally:
                _quietly(client.close)
        finally:
            _quietly(cluster.close)


def _prepare_local_worker() -> None:
    """Run in each worker process of a local cluster as it starts: it
    ignores Ctrl+C (the survey stops it) and keeps Dask's log out of the
    survey's terminal, which it shares. Stopped under load, a worker logged
    a failed heartbeat to the scheduler already gone, with a traceback,
    after the survey's line saying it stopped; an error of a deal's job
    reaches the survey as the job's own (``silence_logs`` of the cluster
    quiets only the worker's nanny in its process)."""
    ignore_interrupts()
    silence_dask_logs()


DASK_LOGS = ("distributed", "tornado", "asyncio")
"""The loggers of Dask's client and of its event loop."""


def dask_loggers() -> list[logging.Logger]:
    """Every logger named in :data:`DASK_LOGS` or under one of them: also
    those Dask gave a level of their own (``tornado.application`` at
    ``ERROR``, ``distributed.client`` at ``WARNING``), which a level set
    on their parent leaves as they were."""
    names = {name for name in list(logging.root.manager.loggerDict)
             if name.split(".")[0] in DASK_LOGS}
    return [logging.getLogger(name) for name in sorted(names | set(DASK_LOGS))]


def silence_dask_logs() -> None:
    """Keep Dask's log out of the output for the rest of the process (a
    survey being stopped: its connections close mid-request, and Dask logs
    that, or a call of its event loop that the stop cancelled before it
    began, with tracebacks; the survey says itself that it stopped)."""
    for logger in dask_loggers():
        logger.setLevel(logging.CRITICAL)


@contextmanager
def _dask_logs_silenced() -> Iterator[None]:
    """Dask's own log lines (a scheduler that died wrote two tracebacks of
    about thirty lines before the survey's one line saying so) kept out of
    the survey's output, as ``silence_logs`` does for a local cluster."""
    loggers = dask_loggers()
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _quiet_exit_hook() -> None:
    """Dask closes the local clusters still open at exit (a hook of its
    own); one that Ctrl+C stopped while a worker was starting made that
    hook fail, and Python printed its traceback of 30 lines after the
    survey's one line saying it stopped. The hook now runs quietly."""
    from distributed.deploy import spec

    atexit.unregister(spec.close_clusters)
    atexit.unregister(_close_clusters_quietly)  # (once, however many clusters)
    atexit.register(_close_clusters_quietly)


def _close_clusters_quietly() -> None:
    from distributed.deploy import spec

    _quietly(spec.close_clusters)


def _quietly(close: Callable[[], Any]) -> None:
    """Close a client or cluster whose scheduler may be gone already."""
    with suppress(Exception):  # a scheduler that went away
        close()


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
    on_warning: Warn | None = None,
    player: str = "perfect",
    settings: Mapping[str, Any] | None = None,
    seed: int = 0,
    batch: int | None = None,
    lines: bool = True,
) -> tuple[Tally, int]:
    """:func:`terrace.solver.survey.run_survey` on the cluster ``scheduler``:
    the same arguments (``scheduler`` instead of ``jobs``, and ``batch``
    deals per task, by default :func:`batch_size`; ``lines`` as there) and the same result.
    ``on_warning`` hears of each worker left out. Every failure of the
    cluster (no scheduler, no usable worker, the scheduler gone) is a
    :class:`ClusterError`; a scheduler's address is checked also when every
    deal is stored already (then nothing else is asked of the cluster)."""
    rules = given_rules(rules, default=False)  # (as run_survey: a preset's name is no rules)
    max_seconds = check_budget(max_seconds)
    check_range(first, last)
    kind, where = parse_scheduler(scheduler)
    if batch is not None and not 1 <= (as_whole(batch) or 0) <= 10_000:
        # (2.5 and True passed, and 2.5 failed inside the stream, the cluster reached)
        raise ValueError(f"a batch holds 1 to 10000 deals, not {quote(batch)}")
    full = player_settings(player, settings)
    key = player_key(player, full, seed)
    known = stored_tally(store, rules, first, last, key, max_seconds, lines)
    todo = last - first + 1 - len(known)
    if not todo:  # (a wrong address is said all the same, not only once a deal needs it)
        _distributed()
        if kind == "address":
            _probe(str(where))
        return known, 0
    store.check_writable()  # (before the cluster is reached and a batch solved, not after)

    def keep(verdicts: dict[int, Verdict]) -> None:
        # (one transaction per batch: a million rows cost seconds; what the
        # store holds counts, a won another run stored meanwhile among it;
        # a stop meanwhile, a second Ctrl+C too, waits until they are stored
        # and counted, as survey._Group's: the count said is the rows stored)
        with interrupts_deferred(every=True):
            kept = store.put_many(rules, verdicts, key)
            verdicts = {number: counted(kept[number], found, max_seconds, lines)
                        for number, found in verdicts.items()}
            known.update(verdicts)
            if on_result is not None:
                for number, verdict in verdicts.items():
                    on_result(number, verdict)

    distributed = _distributed()
    # (a stop waits for the fleet's next look, at most TICK: raised inside a
    # wait of Dask's client it could end the survey in "lost the scheduler
    # ...: RuntimeError: release unlocked lock"; see stops_kept)
    with connect(scheduler) as client, stops_kept(held=True) as stopped:
        try:
            fleet = _Fleet(client, worker_versions(), on_warning, stopped)
            size = batch or batch_size(todo, max(1, fleet.wait_for_workers()), player)
            # (each batch made as it is sent: a list of a million jobs held 150 MB)
            jobs = survey_jobs(rules, first, last, known, player, full, seed, max_seconds)
            batches = iter(lambda: list(itertools.islice(jobs, size)), [])
            peak = _stream(client, fleet, batches, max_seconds, keep, on_progress, min(size, todo), known)
        except ClusterError:
            raise
        except (OSError, RuntimeError, TimeoutError, distributed.CancelledError) as error:
            raise ClusterError(f"lost the scheduler at {scheduler}: {_describe(error)}; {RESUME}") from None
    return known, peak


class _Fleet:
    """The workers of the cluster, each checked once (:func:`worker_versions`,
    run as a task on it, with a deadline) before it gets a batch. Its
    waits are measured by ``clock`` (a test passes its own)."""

    def __init__(self, client: Any, versions: dict[str, str], warn: Warn | None,
                 stopped: Callable[[], None] = lambda: None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.client, self.versions, self.warn, self.stopped = client, versions, warn, stopped
        self.clock = clock
        self.current: set[str] = set()
        self.good: set[str] = set()
        self.bad: dict[str, str] = {}
        self.checking: dict[str, tuple[Any, float]] = {}
        self.idle_since = self.seen = clock()

    def refresh(self) -> set[str]:
        """Look at the scheduler's workers, check the new ones; the usable
        ones. Raises :class:`ClusterError` when there is none that can run
        the deals and none is on its way; first takes a stop heard meanwhile
        (``stopped``, see :func:`terrace.solver.stops.stops_kept`)."""
        self.stopped()
        now = self.clock()
        if self.client.status not in ("running", "newly-created"):
            if now - self.seen > CONNECT_SECONDS:
                raise ClusterError(f"the scheduler stopped answering (client {self.client.status}) for "
                                   f"{CONNECT_SECONDS:g} s; {RESUME}")
            return set()
        try:  # (Dask waits for ever on a scheduler that keeps its connection and never answers)
            workers = self.client.nthreads(callback_timeout=ASK_SECONDS)
        except TimeoutError:
            if now - self.seen > CONNECT_SECONDS:
                raise ClusterError(f"the scheduler did not answer for {CONNECT_SECONDS:g} s (stopped, "
                                   f"or the network to it is down); {RESUME}") from None
            return set()
        self.seen = now
        self.current = set(workers)
        paused = _paused(self.client)
        for address in sorted(self.current - self.good - self.bad.keys() - self.checking.keys()):
            future = self.client.submit(worker_versions, workers=[address], allow_other_workers=False,
                                        pure=False, retries=0)
            self.checking[address] = (future, now)
        for address, (future, since) in list(self.checking.items()):
            self._checked(address, future, since, now, address in paused)
        ready = self.good & (self.current - paused)
        if ready:
            self.idle_since = now
            return ready
        if self.current and self.current <= self.bad.keys():
            reasons = [self.bad[address] for address in sorted(self.current)]
            raise ClusterError(reasons[0] if len(reasons) == 1 else
                               "no worker can run the deals: " + "; ".join(reasons))
        # (a worker paused before it ran its check runs no check either)
        if now - self.idle_since > WORKER_WAIT and (held := (self.good | self.checking.keys()) & paused):
            names = ", ".join(sorted(held))
            raise ClusterError(f"the only workers that can run the deals ran nothing for "
                               f"{WORKER_WAIT:g} s ({names}: {PAUSED_WHY}); {RESUME}")
        if now - self.idle_since > WORKER_WAIT:
            raise ClusterError(f"no worker that can run the deals joined the scheduler in {WORKER_WAIT:g} s"
                               + ("" if self.current else " (it has no workers: start some with dask worker)")
                               + f"; {RESUME}")
        return ready

    def _checked(self, address: str, future: Any, since: float, now: float, paused: bool = False) -> None:
        """Take the answer of a worker's version check, if it came; leave
        the worker out if it did not within :data:`CHECK_SECONDS`, unless
        Dask ``paused`` it (then it runs no task, its check neither: it was
        left out as "frozen or overloaded?", or the survey said no worker
        had joined; :meth:`refresh` says it is paused)."""
        if address not in self.current:
            future.cancel()
            del self.checking[address]
            return
        if future.status == "pending":
            if now - since > CHECK_SECONDS and not paused:
                future.cancel()
                self.refuse(address, f"worker {address} did not report its versions within "
                                     f"{CHECK_SECONDS:g} s (frozen or overloaded?); it is left out")
            return
        del self.checking[address]
        try:
            versions = future.result(timeout=CHECK_SECONDS)
        except Exception as error:  # a worker without terrace cannot even unpickle the check
            self.refuse(address, f"worker {address} cannot run terrace: {_describe(error)}")
            return
        if versions == self.versions:
            self.good.add(address)
        else:
            theirs = versions if isinstance(versions, dict) else {}
            self.refuse(address, _mismatch(address, theirs, self.versions))

    def refuse(self, address: str, reason: str) -> None:
        """Leave a worker out for the rest of the survey."""
        self.good.discard(address)
        if address not in self.bad:
            self.bad[address] = reason
            if self.warn is not None:
                self.warn(reason)

    def wait_for_workers(self) -> int:
        """Wait until a worker is usable (or :meth:`refresh` gives up), then
        at most :data:`TICK` longer for the checks still under way; how many
        are usable. (A worker that is slow to answer its check, or frozen,
        no longer holds up the start for :data:`CHECK_SECONDS`: it gets
        batches once its check comes back.)"""
        first_ready: float | None = None
        while True:
            ready = self.refresh()
            if ready and not self.checking:
                return len(ready)
            if ready:
                now = time.perf_counter()
                first_ready = now if first_ready is None else first_ready
                if now - first_ready >= TICK:
                    return len(ready)
            time.sleep(TICK / 5)


def _stream(client: Any, fleet: _Fleet, batches: Iterable[list[Job]], max_seconds: float,
            keep: Callable[[dict[int, Verdict]], None], on_progress: Progress | None,
            largest: int | None = None, kept: Container[int] | None = None) -> int:
    """Run ``batches`` on the fleet's usable workers, a few per worker at a
    time, calling ``keep`` with the verdicts of each batch as it finishes
    (each deal once, however often it ran); returns the largest worker peak
    memory (kB) seen. A batch refused by its worker (another version), or
    running far beyond its budget (a frozen worker), runs again elsewhere.
    ``batches`` are taken as they are sent; ``largest``: the most deals
    in one of them (counted from the batches when not given). ``kept``:
    the deals ``keep`` has had, as it leaves them (the survey's
    :class:`~terrace.solver.tally.Tally`; by default a set made here,
    which for a million deals held 65 MB more)."""
    distributed = _distributed()
    if largest is None:
        batches = list(batches)
        largest = max((len(batch) for batch in batches), default=1)
    source = iter(batches)
    pending: list[list[Job]] = []  # (the batches to send next: taken from source, or to run again)

    def more() -> bool:
        if not pending and (taken := next(source, None)) is not None:
            pending.append(taken)
        return bool(pending)

    own: set[int] = set()  # (the deals kept, when the caller keeps no account of them)
    seen: Container[int] = own if kept is None else kept
    done = 0
    peak = 0
    start = time.perf_counter()
    running: dict[Any, tuple[Any, list[Job], float]] = {}
    lost: Counter[int] = Counter()
    # A batch's clock starts when it is submitted, and it may wait behind
    # the other batches queued on its worker: the largest of them sets how
    # long any batch may take (a last, small batch is not taken for stuck).
    try:
        def fill(ready: set[str]) -> None:
            while ready and len(running) < _window(len(ready)) and more():
                jobs = pending.pop()
                future = client.submit(run_batch, fleet.versions, jobs, workers=sorted(ready),
                                       allow_other_workers=False, pure=False, retries=0)
                running[future.key] = (future, jobs, time.perf_counter())

        while running or more():
            ready = fleet.refresh()
            fill(ready)
            _wait_any([future for future, _, _ in running.values()])
            now = time.perf_counter()
            for key, (future, jobs, since) in list(running.items()):
                if future.status not in ("finished", "error", "cancelled"):
                    if now - since > _overrun(largest, max_seconds):
                        del running[key]
                        _abandon(client, fleet, future, jobs, now - since)
                        pending.append(jobs)
                    continue
                del running[key]
                try:
                    results = _results(future, distributed.KilledWorker, fleet.stopped)
                except WrongWorker as error:  # joined after its check, or replaced at the same address
                    fleet.refuse(error.address, str(error))
                    pending.append(jobs)
                    continue
                except _Lost:
                    if len(jobs) == 1:
                        lost[jobs[0][1]] += 1
                        if lost[jobs[0][1]] > MAX_LOST:
                            raise ClusterError(f"deal {jobs[0][1]} was lost with its worker {MAX_LOST + 1} "
                                               "times: it may need more memory than a worker has") from None
                    # again, each deal alone: a deal that kills its workers is then named
                    pending.extend([job] for job in jobs)
                    continue
                except ClusterError:
                    raise
                except Exception as error:  # the task's own failure on the worker
                    raise ClusterError(f"deals {jobs[0][1]}-{jobs[-1][1]} failed on a worker: "
                                       f"{_describe(error)}") from None
                fill(ready)  # keep the workers busy while the client stores this batch
                fresh = {number: verdict for number, verdict, _ in results if number not in seen}
                if fresh:
                    keep(fresh)
                    if kept is None:
                        own.update(fresh)
                    done += len(fresh)
                    peak = max(peak, *(kb for _, _, kb in results))
            if on_progress is not None:
                on_progress(done, done / max(now - start, 1e-9), len(fleet.good & fleet.current))
    finally:
        for future, _, _ in running.values():
            _quietly(future.cancel)
    return peak


def _paused(client: Any) -> set[str]:
    """The workers Dask paused (their memory above the pause threshold of
    their memory limit): they run no task, and a batch sent to them waited
    for ever (the survey ran on with no word, its batches sent again and
    again). None when the scheduler does not say within :data:`ASK_SECONDS`
    (the look at its workers has the deadline)."""
    try:
        identity = client.sync(client.scheduler.identity, n_workers=-1, callback_timeout=ASK_SECONDS)
        workers = identity["workers"]
        return {str(address) for address, worker in workers.items() if worker.get("status") == "paused"}
    except Exception:  # (a fake or an older scheduler; one that is gone or frozen: see refresh)
        return set()


def _wait_any(futures: list[Any]) -> None:
    """Wait until one of ``futures`` is no longer pending, or :data:`TICK`
    seconds have gone by."""
    deadline = time.perf_counter() + TICK
    while time.perf_counter() < deadline:
        if any(future.status not in ("pending", "lost") for future in futures):  # (lost: Dask runs it again)
            return
        time.sleep(0.01)


def _overrun(deals: int, max_seconds: float) -> float:
    """Seconds after which a batch of ``deals`` is taken for stuck: its
    deals' budgets, for each batch that may queue before it, twice, plus
    :data:`OVERRUN_SLACK`."""
    return 2 * IN_FLIGHT_PER_WORKER * deals * max_seconds + OVERRUN_SLACK


def _abandon(client: Any, fleet: _Fleet, future: Any, jobs: list[Job], seconds: float) -> None:
    """Give up a batch that overran: leave out the worker running it (it
    seems frozen) and cancel it; the caller runs it again."""
    try:
        holders = [address for address, keys in client.processing().items() if future.key in keys]
    except Exception:  # pragma: no cover - the scheduler is gone: the next refresh says so
        holders = []
    for address in holders:
        fleet.refuse(address, f"worker {address} ran deals {jobs[0][1]}-{jobs[-1][1]} for {seconds:.0f} s, "
                              "far beyond their budget (frozen?); it is left out and they run elsewhere")
    _quietly(future.cancel)


class _Lost(Exception):
    """A batch's results went with its worker."""


def _results(future: Any, killed: type[Exception],
             stopped: Callable[[], None] = lambda: None) -> list[tuple[int, Verdict, int]]:
    """A finished batch's results; :class:`_Lost` when the workers that ran
    it kept dying (Dask's ``KilledWorker``, after it tried it elsewhere), or
    one died (or froze) before the client fetched its results within
    :data:`CHECK_SECONDS`, a stop heard meanwhile taken each
    :data:`ASK_SECONDS` (``stopped``). An error of the task itself (a
    refusal, a bug) is raised as it is, never retried."""
    if future.status == "error":
        error = future.exception()
        if isinstance(error, killed):
            raise _Lost
        raise error
    if future.status == "cancelled":  # (the scheduler forgot it)
        raise _Lost
    deadline = time.perf_counter() + CHECK_SECONDS
    while True:
        try:
            return list(future.result(timeout=min(ASK_SECONDS, CHECK_SECONDS)))
        except TimeoutError:  # (a frozen worker or scheduler: a first Ctrl+C waited the whole 30 s)
            if time.perf_counter() >= deadline:
                raise _Lost from None
            stopped()
        except Exception:  # finished, then lost with its worker before it was fetched
            raise _Lost from None


def _window(workers: int) -> int:
    return IN_FLIGHT_PER_WORKER * max(1, workers)
