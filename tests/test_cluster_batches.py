"""The cluster survey's handling of its workers and batches, against a
scheduler played by a fake client (no Dask cluster started): how many
batches go out per worker, which workers get them, what a lost or slow
batch costs, what the survey says when no worker can run the deals.
Each test here failed on a change a mutation audit made to cluster.py
that the cluster tests passed."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import terrace.solver.cluster as cluster
from terrace.solver.cluster import ClusterError, cluster_available
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import get_rules

pytestmark = pytest.mark.skipif(not cluster_available(), reason="distributed is not installed")

RULES = get_rules("falling-star")
Job = tuple[Any, ...]
Plan = Callable[[list[int], int], tuple[Any, ...]]
"""What becomes of a batch (its deals, and how often they were sent before):
("done", kb), ("killed",), or ("late", seconds, kb)."""


class Check:
    """A worker's version check, back ``after`` seconds from its start."""

    def __init__(self, versions: dict[str, str], after: float = 0.0) -> None:
        self.versions, self.ready_at, self.cancelled = versions, time.perf_counter() + after, False
        self.key = f"check-{id(self)}"

    @property
    def status(self) -> str:
        if self.cancelled:
            return "cancelled"
        return "finished" if time.perf_counter() >= self.ready_at else "pending"

    def result(self, timeout: float | None = None) -> dict[str, str]:
        return self.versions

    def cancel(self) -> None:
        self.cancelled = True


class Batch:
    """A batch sent to a worker, as its plan says."""

    def __init__(self, client: Client, jobs: list[Job], worker: str, outcome: tuple[Any, ...]) -> None:
        self.client, self.jobs, self.worker, self.outcome = client, jobs, worker, outcome
        self.key = f"batch-{id(self)}"
        self.sent = time.perf_counter()
        self.cancelled = False

    @property
    def status(self) -> str:
        if self.cancelled:
            return "cancelled"
        if self.outcome[0] == "killed":
            return "error"
        if self.outcome[0] == "late" and time.perf_counter() - self.sent < self.outcome[1]:
            return "pending"
        return "finished"

    def exception(self) -> BaseException:
        import distributed

        return distributed.KilledWorker(self.key, None, 3)  # type: ignore[arg-type]

    def result(self, timeout: float | None = None) -> list[tuple[int, Verdict, int]]:
        self.client.fetched(self)
        kb = self.outcome[-1]
        return [(job[1], Verdict("won", 10, 0.1, 5.0), kb) for job in self.jobs]

    def cancel(self) -> None:
        self.cancelled = True
        self.client.fetched(self)


class Client:
    """The scheduler as the survey sees it: its workers (``workers``, with
    those ``paused``), each checked and found of this client's versions
    unless named in ``other``; batches run as ``plan`` says."""

    status = "running"

    def __init__(self, workers: list[str], plan: Plan | None = None, *, paused: set[str] | None = None,
                 other: set[str] | None = None, check_after: dict[str, float] | None = None) -> None:
        self.workers = list(workers)
        self.plan: Plan = plan or (lambda deals, sent: ("done", 1000))
        self.paused = paused or set()
        self.other = other or set()
        self.check_after = check_after or {}
        self.checks: dict[str, Check] = {}
        self.sent: dict[tuple[int, ...], int] = {}
        self.in_flight: set[str] = set()
        self.most_in_flight = 0
        self.batches: list[Batch] = []
        self.scheduler = self

    def nthreads(self, callback_timeout: float | None = None) -> dict[str, int]:
        return dict.fromkeys(self.workers, 1)

    def identity(self) -> None:  # (asked through sync)
        raise AssertionError("asked through sync")

    def sync(self, function: object, **options: object) -> dict[str, Any]:
        return {"workers": {w: {"status": "paused" if w in self.paused else "running"} for w in self.workers}}

    def submit(self, function: object, *args: Any, workers: list[str], **options: object) -> Any:
        if function is cluster.worker_versions:
            (worker,) = workers
            versions = cluster.worker_versions()
            if worker in self.other:
                versions = {**versions, "solver": "0"}
            self.checks[worker] = Check(versions, self.check_after.get(worker, 0.0))
            return self.checks[worker]
        assert function is cluster.run_batch
        jobs = list(args[1])
        deals = tuple(job[1] for job in jobs)
        sent = self.sent.get(deals, 0)
        self.sent[deals] = sent + 1
        batch = Batch(self, jobs, workers[0], self.plan(list(deals), sent))
        self.batches.append(batch)
        self.in_flight.add(batch.key)
        self.most_in_flight = max(self.most_in_flight, len(self.in_flight))
        return batch

    def fetched(self, batch: Batch) -> None:
        self.in_flight.discard(batch.key)

    def processing(self) -> dict[str, list[str]]:
        held: dict[str, list[str]] = {}
        for batch in self.batches:
            if batch.key in self.in_flight:
                held.setdefault(batch.worker, []).append(batch.key)
        return held


def jobs(*deals: int, seconds: float = 1.0) -> list[Job]:
    return [(RULES, n, "perfect", {}, 0, seconds) for n in deals]


def stream(client: Client, batches: list[list[Job]], seconds: float = 1.0,
           warnings: list[str] | None = None,
           progress: list[tuple[int, float, int]] | None = None) -> tuple[list[int], int]:
    """The deals kept, in the order kept, and the peak the stream returns."""
    kept: list[int] = []
    fleet = cluster._Fleet(client, cluster.worker_versions(), None if warnings is None else warnings.append)
    peak = cluster._stream(client, fleet, batches, seconds, lambda verdicts: kept.extend(verdicts),
                           None if progress is None else lambda *report: progress.append(report))
    return kept, peak


def test_each_worker_has_three_batches_in_flight_and_the_peak_is_the_largest_reported() -> None:
    # (the peak is the largest memory any batch reported, not the last one's)
    memory = {1: 900, 2: 5000, 3: 700, 4: 800, 5: 600, 6: 1000, 7: 650}
    client = Client(["tcp://a:1"], lambda deals, sent: ("done", memory[deals[0]]))
    kept, peak = stream(client, [jobs(n) for n in range(1, 8)])
    assert sorted(kept) == list(range(1, 8))
    assert client.most_in_flight == cluster.IN_FLIGHT_PER_WORKER == 3
    assert peak == 5000
    two = Client(["tcp://a:1", "tcp://b:1"])
    stream(two, [jobs(n) for n in range(1, 10)])
    assert two.most_in_flight == 6


class LeanClient(Client):
    """A :class:`Client` that keeps no account of the batches it ran (for
    a measure of the memory the survey's side holds)."""

    def submit(self, function: object, *args: Any, workers: list[str], **options: object) -> Any:
        if function is cluster.run_batch:
            return Batch(self, list(args[1]), workers[0], ("done", 1000))
        return super().submit(function, *args, workers=workers, **options)

    def fetched(self, batch: Batch) -> None:
        pass


def test_a_long_cluster_survey_holds_no_second_account_of_the_deals_it_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The stream held a set of every deal it had kept, besides the
    survey's Tally that holds them already: 65 MB for a million deals
    (1.3 MB here for 20,000; the store a stand-in). It asks
    the Tally now."""
    import tracemalloc
    from contextlib import nullcontext

    from terrace.solver.tally import TALLY_PAGE, Tally

    deals = 20_000
    tally = Tally(1, deals)
    for number in range(1, deals + 1, TALLY_PAGE):  # (its pages made before the measure)
        tally[number] = Verdict("won", 1, 0.1, 5.0)
    tally.clear()
    client = LeanClient(["tcp://a:1"])
    monkeypatch.setattr(cluster, "connect", lambda scheduler: nullcontext(client))
    monkeypatch.setattr(cluster, "stored_tally", lambda *args: tally)

    class Store:
        def check_writable(self) -> None:
            pass

        def put_many(self, rules: object, verdicts: dict[int, Verdict], key: str) -> dict[int, Verdict]:
            return verdicts

    tracemalloc.start()
    try:
        cluster.run_cluster_survey(RULES, 1, deals, scheduler="local:1", max_seconds=1.0,
                                   store=Store(), batch=500)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(tally) == deals
    assert peak < 1.2 * 2**20, peak  # (0.6 MB; 2.6 MB on the old code)


def test_a_deal_lost_with_a_batch_and_then_three_times_alone_is_still_run() -> None:
    # A batch lost with its worker is sent again as one batch a deal; only a
    # deal lost alone more than MAX_LOST (3) times stops the survey, and a
    # loss in a batch of several deals is not counted against its first deal.
    def plan(deals: list[int], sent: int) -> tuple[Any, ...]:
        if deals == [1, 2] or (deals == [1] and sent < 3):
            return ("killed",)
        return ("done", 100)

    client = Client(["tcp://a:1"], plan)
    kept, _ = stream(client, [jobs(1, 2)])
    assert sorted(kept) == [1, 2]
    assert client.sent[(1,)] == 4


def test_a_deal_lost_alone_four_times_stops_the_survey_and_says_how_often() -> None:
    client = Client(["tcp://a:1"], lambda deals, sent: ("killed",) if deals == [3] else ("done", 1))
    with pytest.raises(ClusterError, match=r"^deal 3 was lost with its worker 4 times: it may need more"):
        stream(client, [jobs(2), jobs(3)])
    assert client.sent[(3,)] == 4


def test_a_small_last_batch_waiting_behind_larger_ones_is_not_taken_for_stuck(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A batch may run 2 * 3 * (deals of the largest batch) * budget (plus
    # the slack) before its worker is taken for frozen: with a budget of
    # 0.25 s and batches of two deals, 3 s; a last batch of one deal that
    # takes 2.2 s (it waited behind the others) is not stuck.
    monkeypatch.setattr(cluster, "OVERRUN_SLACK", 0.0)
    client = Client(["tcp://a:1"], lambda deals, sent: ("late", 2.2, 1) if deals == [3] else ("done", 1))
    warnings: list[str] = []
    kept, _ = stream(client, [jobs(1, 2, seconds=0.25), jobs(3, seconds=0.25)], 0.25, warnings)
    assert sorted(kept) == [1, 2, 3]
    assert warnings == []
    assert client.sent[(3,)] == 1


def test_a_batch_past_its_overrun_runs_elsewhere_and_its_worker_is_left_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # one deal at 0.5 s: taken for stuck after 2 * 3 * 1 * 0.5 = 3 s (the
    # slack set to 0), at the first look after that
    monkeypatch.setattr(cluster, "OVERRUN_SLACK", 0.0)
    client = Client(["tcp://a:1", "tcp://b:1"],
                    lambda deals, sent: ("late", 60.0, 1) if sent == 0 else ("done", 1))
    warnings: list[str] = []
    kept, _ = stream(client, [jobs(1, seconds=0.5)], 0.5, warnings)
    assert kept == [1]
    assert len(warnings) == 1
    said = re.fullmatch(r"worker tcp://a:1 ran deals 1-1 for (\d+) s, far beyond their budget \(frozen\?\); "
                        r"it is left out and they run elsewhere", warnings[0])
    assert said is not None, warnings
    assert 3 <= int(said[1]) <= 5  # (twice the overrun: 6)
    assert [batch.worker for batch in client.batches] == ["tcp://a:1", "tcp://b:1"]


def test_the_progress_counts_the_usable_workers_still_there() -> None:
    client = Client(["tcp://a:1", "tcp://b:1"])

    def plan(deals: list[int], sent: int) -> tuple[Any, ...]:
        if deals == [2]:
            client.workers.remove("tcp://b:1")  # (b leaves the cluster)
        return ("done", 1)

    client.plan = plan
    progress: list[tuple[int, float, int]] = []
    stream(client, [jobs(n) for n in range(1, 9)], progress=progress)
    assert progress[0][2] == 2
    assert progress[-1][0] == 8 and progress[-1][2] == 1


def test_a_paused_worker_gets_no_batch() -> None:
    client = Client(["tcp://a:1", "tcp://b:1"], paused={"tcp://a:1"})
    fleet = cluster._Fleet(client, cluster.worker_versions(), None)
    assert fleet.refresh() == {"tcp://b:1"}
    assert fleet.good == {"tcp://a:1", "tcp://b:1"}


def test_a_worker_refused_is_left_out_once_and_said_once() -> None:
    said: list[str] = []
    fleet = cluster._Fleet(Client([]), cluster.worker_versions(), said.append)
    fleet.good = {"tcp://a:1", "tcp://b:1"}
    fleet.refuse("tcp://a:1", "first reason")
    fleet.refuse("tcp://a:1", "second reason")
    assert fleet.good == {"tcp://b:1"}
    assert fleet.bad == {"tcp://a:1": "first reason"}
    assert said == ["first reason"]


def test_when_every_worker_is_of_another_version_the_survey_says_so_at_once() -> None:
    mismatch = ("worker tcp://a:1 runs solver version 0, this client solver version "
                f"{cluster.worker_versions()['solver']}: install the same terrace version")
    fleet = cluster._Fleet(Client(["tcp://a:1"], other={"tcp://a:1"}), cluster.worker_versions(), None)
    with pytest.raises(ClusterError) as one:
        fleet.refresh()
    assert str(one.value).startswith(mismatch)
    fleet = cluster._Fleet(Client(["tcp://a:1", "tcp://b:1"], other={"tcp://a:1", "tcp://b:1"}),
                           cluster.worker_versions(), None)
    with pytest.raises(ClusterError) as two:
        fleet.refresh()
    assert str(two.value).startswith("no worker can run the deals: " + mismatch)
    assert "; worker tcp://b:1 runs solver version 0" in str(two.value)


def test_with_no_usable_worker_for_the_wait_the_survey_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "WORKER_WAIT", 0.0)
    fleet = cluster._Fleet(Client([]), cluster.worker_versions(), None)
    with pytest.raises(ClusterError) as none:
        fleet.refresh()
    assert str(none.value) == ("no worker that can run the deals joined the scheduler in 0 s (it has no "
                               "workers: start some with dask worker); run the same command again to resume")
    checking = Client(["tcp://slow:1"], check_after={"tcp://slow:1": 60.0})
    fleet = cluster._Fleet(checking, cluster.worker_versions(), None)
    with pytest.raises(ClusterError) as slow:
        fleet.refresh()
    assert str(slow.value) == ("no worker that can run the deals joined the scheduler in 0 s; run the same "
                               "command again to resume")
    paused = Client(["tcp://a:1"], paused={"tcp://a:1"})
    fleet = cluster._Fleet(paused, cluster.worker_versions(), None)
    with pytest.raises(ClusterError, match=r"^the only workers that can run the deals ran nothing for 0 s "
                                           r"\(tcp://a:1: paused by Dask"):
        fleet.refresh()


def test_a_worker_that_leaves_while_it_is_checked_is_forgotten() -> None:
    client = Client(["tcp://a:1", "tcp://b:1"], check_after={"tcp://b:1": 60.0})
    fleet = cluster._Fleet(client, cluster.worker_versions(), None)
    assert fleet.refresh() == {"tcp://a:1"}
    assert set(fleet.checking) == {"tcp://b:1"}
    client.workers.remove("tcp://b:1")
    assert fleet.refresh() == {"tcp://a:1"}
    assert fleet.checking == {}
    assert client.checks["tcp://b:1"].status == "cancelled"


def test_the_start_waits_for_a_check_that_comes_back_within_a_tick() -> None:
    # two workers, the second's check back a moment after the first's: the
    # batches are sized for two (Fleet.wait_for_workers waits up to TICK
    # for checks still under way)
    client = Client(["tcp://a:1", "tcp://b:1"], check_after={"tcp://b:1": 0.05})
    fleet = cluster._Fleet(client, cluster.worker_versions(), None)
    assert fleet.wait_for_workers() == 2


def test_a_lost_batch_is_waited_for_not_spun_on() -> None:
    class Lost:
        status = "lost"  # (its worker died: Dask runs it again)

    class Finished:
        looks = 0  # (counted, not timed: a loaded machine's pause of TICK is no spin)

        @property
        def status(self) -> str:
            Finished.looks += 1
            return "finished"

    started = time.perf_counter()
    cluster._wait_any([Lost()])
    assert time.perf_counter() - started >= cluster.TICK * 0.9
    cluster._wait_any([Lost(), Finished()])
    assert Finished.looks == 1  # (returned at its first look)


def test_a_dask_worker_given_as_the_scheduler_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import distributed.core

    class Remote:
        async def identity(self) -> dict[str, str]:
            return {"type": "Worker", "id": "a worker's address"}

        async def close_rpc(self) -> None:
            pass

    monkeypatch.setattr(cluster, "_listening", lambda address: None)
    monkeypatch.setattr(distributed.core, "rpc", lambda address, timeout: Remote())
    with pytest.raises(ClusterError, match=r"^tcp://10\.0\.0\.5:8786 is not a Dask scheduler \(it says it is "
                                           r"Worker\)$"):
        cluster._probe("tcp://10.0.0.5:8786")


def test_an_address_whose_connection_is_never_taken_is_refused_within_the_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A port whose packets are dropped (a firewall's way; here a listener
    whose queue of connections is full) waited CONNECT_SECONDS for the
    connection, then as long again for the probe, and said 'no Dask
    scheduler answered ... within 30 s' after 60 s."""
    import socket

    import distributed.core  # noqa: F401  (imported before the clock starts)

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1.0)
    with contextlib.ExitStack() as held:
        listener = held.enter_context(socket.socket())
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        address = listener.getsockname()
        for _ in range(3):  # (the queue filled: the next connection's packets are dropped)
            waiting = held.enter_context(socket.socket())
            waiting.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                waiting.connect(address)
        time.sleep(0.1)
        started = time.perf_counter()
        with pytest.raises(ClusterError, match=r"^no Dask scheduler answered at tcp://127\.0\.0\.1:[0-9]+ "
                                               r"within 1 s: is one running there"):
            cluster._probe(f"tcp://127.0.0.1:{address[1]}")
        # (twice the deadline on the old code; half a deadline spare for a loaded machine's pause)
        assert time.perf_counter() - started < 1.5


def test_a_cluster_error_in_the_survey_is_said_as_it_is(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # (ClusterError is a RuntimeError, which the survey otherwise says as the
    # scheduler lost)
    @contextlib.contextmanager
    def connect(scheduler: str) -> Iterator[Client]:
        yield Client([])

    monkeypatch.setattr(cluster, "connect", connect)
    monkeypatch.setattr(cluster, "WORKER_WAIT", 0.0)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    try:
        with pytest.raises(ClusterError) as refused:
            cluster.run_cluster_survey(RULES, 1, 2, scheduler="local:1", max_seconds=1.0, store=store)
    finally:
        store.close()
    assert str(refused.value).startswith("no worker that can run the deals joined the scheduler in 0 s")


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_wait_for_a_worker_counts_from_when_the_last_one_was_usable() -> None:
    """A survey whose only worker leaves (restarted, say) after running for
    longer than WORKER_WAIT waits WORKER_WAIT for another, counted from when
    it was last usable, not from the start; likewise a scheduler that stops
    answering is given CONNECT_SECONDS from when it last answered."""
    clock = Clock()
    client = Client(["tcp://a:1"])
    fleet = cluster._Fleet(client, cluster.worker_versions(), None, clock=clock)
    assert fleet.refresh() == {"tcp://a:1"}
    clock.now += 10 * cluster.WORKER_WAIT
    assert fleet.refresh() == {"tcp://a:1"}
    client.workers = []
    clock.now += cluster.WORKER_WAIT
    assert fleet.refresh() == set()
    clock.now += 1.0
    with pytest.raises(ClusterError, match=r"^no worker that can run the deals joined the scheduler in"):
        fleet.refresh()
    client.workers = ["tcp://a:1"]
    clock.now += 10 * cluster.CONNECT_SECONDS
    assert fleet.refresh() == {"tcp://a:1"}
    client.status = "connecting"
    clock.now += cluster.CONNECT_SECONDS
    assert fleet.refresh() == set()
    clock.now += 1.0
    with pytest.raises(ClusterError, match=r"^the scheduler stopped answering \(client connecting\)"):
        fleet.refresh()


def test_a_scheduler_that_times_out_and_a_check_that_does_not_come_back_are_given_their_full_time() -> None:
    """A scheduler that does not answer is given CONNECT_SECONDS from its
    last answer, a worker's version check CHECK_SECONDS from when it was
    sent: exactly that long is not yet too long."""
    clock = Clock()

    class Silent(Client):
        silent = False

        def nthreads(self, callback_timeout: float | None = None) -> dict[str, int]:
            if self.silent:
                raise TimeoutError
            return super().nthreads(callback_timeout)

    client = Silent(["tcp://a:1", "tcp://slow:1"], check_after={"tcp://slow:1": 600.0})
    said: list[str] = []
    fleet = cluster._Fleet(client, cluster.worker_versions(), said.append, clock=clock)
    assert fleet.refresh() == {"tcp://a:1"}
    clock.now += cluster.CHECK_SECONDS
    assert fleet.refresh() == {"tcp://a:1"} and "tcp://slow:1" in fleet.checking and not said
    clock.now += 1.0
    assert fleet.refresh() == {"tcp://a:1"} and "tcp://slow:1" in fleet.bad
    assert said == [f"worker tcp://slow:1 did not report its versions within {cluster.CHECK_SECONDS:g} s "
                    "(frozen or overloaded?); it is left out"]
    client.silent = True
    clock.now += cluster.CONNECT_SECONDS
    assert fleet.refresh() == set()
    clock.now += 1.0
    with pytest.raises(ClusterError, match=r"^the scheduler did not answer for"):
        fleet.refresh()


@pytest.mark.parametrize("batch", [0, 10_001, 2.5, True, "8"])
def test_a_batch_size_that_is_no_whole_number_of_deals_is_refused_before_the_cluster_is_reached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: object) -> None:
    """run_cluster_survey took batch=2.5 or True (1 <= 2.5 <= 10,000), and
    2.5 failed inside the stream once the cluster was reached ('Stop argument
    for islice() must be None or an integer'); "8" raised a TypeError."""
    def reached(scheduler: str) -> None:
        raise AssertionError("the cluster was reached")

    monkeypatch.setattr(cluster, "connect", reached)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    with pytest.raises(ValueError, match=r"^a batch holds 1 to 10000 deals, not "):
        cluster.run_cluster_survey(RULES, 1, 3, scheduler="local:1", max_seconds=0.01, store=store,
                                   batch=batch)  # type: ignore[arg-type]
    store.close()


def test_a_second_ctrl_c_as_a_batch_is_stored_waits_until_it_is_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first Ctrl+C waits for the survey's next look; a second one, as a
    batch's verdicts were being stored, stopped the survey between the
    store's commit and their count: the survey said fewer deals stored than
    its file held (0 of 3 here). They are stored and counted first now."""
    from contextlib import nullcontext

    from stop_support import ctrl_c_twice_as_verdicts_are_stored

    client = LeanClient(["tcp://a:1"])
    monkeypatch.setattr(cluster, "connect", lambda scheduler: nullcontext(client))
    ctrl_c_twice_as_verdicts_are_stored(monkeypatch)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    counted: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        cluster.run_cluster_survey(RULES, 1, 6, scheduler="local:1", max_seconds=1.0, store=store, batch=3,
                                   on_result=lambda number, verdict: counted.append(number))
    assert sorted(counted) == sorted(store.range(RULES, 1, 6))
    assert counted
    store.close()
