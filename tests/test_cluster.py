"""Surveys on a Dask LocalCluster of two worker processes: the same
verdicts as the local pool, a worker killed mid-survey, resume after an
interrupted client, the version check, and ``terrace survey --scheduler``.
Skipped only when ``distributed`` is not installed (``make test`` installs
it)."""

from __future__ import annotations

import importlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

import terrace.solver.cluster as cluster
import terrace.solver.stops as stops
from load_support import STARTING, eventually
from terrace.cli import main
from terrace.refusals import quote
from terrace.solver.cluster import ClusterError, cluster_available, run_cluster_survey
from terrace.solver.players import player_key
from terrace.solver.survey import run_survey
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import get_rules

needs_cluster = pytest.mark.skipif(not cluster_available(), reason="distributed is not installed")

RULES = get_rules("falling-star")  # its deals are decided in tens of milliseconds

GUARD = 240.0
"""The longest a script of these tests may take before it is taken for hung
(a hang is for ever; 120 s ran out on a local cluster's start at load ~60,
stop 70)."""


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[str]:
    """The address of a LocalCluster of two single-threaded worker processes."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        yield local.scheduler_address


@pytest.fixture
def scheduler(local_cluster: str) -> str:
    """The address of the LocalCluster once both its workers are there (a
    test that killed one, on this cluster then, left the next test one
    worker at load ~30, stop 70)."""
    from distributed import Client

    with Client(local_cluster) as client:
        client.wait_for_workers(2, timeout=STARTING)
    return local_cluster


@pytest.fixture
def store(tmp_path: Path) -> Iterator[VerdictStore]:
    verdicts = VerdictStore(str(tmp_path / "v.sqlite3"))
    yield verdicts
    verdicts.close()


def stored(store: VerdictStore, first: int, last: int, player: str) -> dict[int, Verdict]:
    return store.range(RULES, first, last, player_key(player, None, 0))


@needs_cluster
def test_the_cluster_gives_the_local_pools_verdicts(scheduler: str, tmp_path: Path,
                                                     store: VerdictStore) -> None:
    other = VerdictStore(str(tmp_path / "local.sqlite3"))
    for player, budget, deals in (("perfect", 5.0, (1, 16)), ("greedy", 60.0, (1, 6))):
        local, _ = run_survey(RULES, *deals, jobs=1, max_seconds=budget, store=other, player=player)
        seen: list[int] = []
        remote, peak = run_cluster_survey(RULES, *deals, scheduler=scheduler, max_seconds=budget,
                                          store=store, player=player, on_result=lambda n, v, seen=seen:
                                          seen.append(n))
        assert sorted(seen) == list(range(deals[0], deals[1] + 1)) and peak > 0
        assert remote == stored(store, *deals, player)
        decided = [n for n in local if {local[n].result, remote[n].result} <= {"won", "lost"}]
        assert len(decided) >= len(local) - 2, (player, local, remote)
        assert [remote[n].result for n in decided] == [local[n].result for n in decided]
        if player == "greedy":  # a seeded play-out is the same game wherever it runs
            assert [remote[n].line for n in decided] == [local[n].line for n in decided]
    assert Counter(v.result for v in remote.values()).keys() <= {"won", "lost"}
    other.close()


@needs_cluster
def test_a_worker_killed_mid_survey_loses_no_deal(store: VerdictStore) -> None:
    """A worker killed mid-batch loses no deal: its batch runs again on the
    other, each deal reported once. (On a cluster of its own: the nanny's
    new worker took 11 s to start at load ~30, and at times never came,
    which left the next test of the shared cluster one worker, stop 70.)"""
    from distributed import Client, LocalCluster

    seen: list[int] = []
    killed: list[int] = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local, \
            Client(local) as spy:
        scheduler = local.scheduler_address
        pids: dict[str, int] = spy.run(os.getpid)

        def on_result(number: int, verdict: Verdict) -> None:
            seen.append(number)
            if killed:
                return
            for _ in range(100):  # the first busy worker goes, mid-batch
                busy = [w for w, keys in spy.processing().items() if keys and w in pids]
                if busy:
                    killed.append(pids[busy[0]])
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    return
                time.sleep(0.02)

        verdicts, _ = run_cluster_survey(RULES, 1, 24, scheduler=scheduler, max_seconds=60, store=store,
                                         player="greedy", batch=2, on_result=on_result)
    assert killed
    assert sorted(seen) == list(range(1, 25))  # every deal reported once
    assert verdicts.keys() == stored(store, 1, 24, "greedy").keys() == set(range(1, 25))
    assert all(v.result in ("won", "lost") for v in verdicts.values())


@needs_cluster
def test_an_interrupted_survey_resumes_without_repeating_a_deal(scheduler: str, store: VerdictStore) -> None:
    first: list[int] = []

    def interrupt(number: int, verdict: Verdict) -> None:
        first.append(number)
        if len(first) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_cluster_survey(RULES, 1, 20, scheduler=scheduler, max_seconds=5, store=store, batch=2,
                           on_result=interrupt)
    kept = set(stored(store, 1, 20, "perfect"))  # the batches that came back, stored whole
    assert set(first) <= kept and len(kept) < 20
    rest: list[int] = []
    verdicts, _ = run_cluster_survey(RULES, 1, 20, scheduler=scheduler, max_seconds=5, store=store,
                                     batch=2, on_result=lambda n, v: rest.append(n))
    assert not kept & set(rest) and len(rest) == len(set(rest))
    assert kept | set(rest) == set(verdicts) == set(range(1, 21))


@needs_cluster
def test_workers_of_another_terrace_version_are_refused(scheduler: str, store: VerdictStore) -> None:
    from distributed import Client

    with Client(scheduler) as client:
        client.run(setattr, cluster, "VERSION", "0.0.0-fake")
        try:
            with pytest.raises(ClusterError, match=r"runs terrace 0\.0\.0-fake, this client terrace .*same"):
                run_cluster_survey(RULES, 1, 4, scheduler=scheduler, max_seconds=5, store=store)
        finally:
            client.run(setattr, cluster, "VERSION", cluster.VERSION)
    assert stored(store, 1, 4, "perfect") == {}


@needs_cluster
def test_cli_json_is_the_same_on_a_local_cluster(tmp_path: Path) -> None:
    base = ["survey", "-v", "falling-star", "--deals", "3-6", "--player", "greedy", "--json"]
    runs = []
    for backend in (["--jobs", "1"], ["--scheduler", "local:2"]):
        db = str(tmp_path / f"{backend[-1]}.sqlite3")
        out = CliRunner().invoke(main, [*base, *backend, "--verdicts-db", db])
        assert out.exit_code == 0, out.output
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    local, remote = runs
    assert local.keys() == remote.keys() and local["deals"] == 4
    assert {k: v for k, v in local.items() if k != "seconds"} == {k: v for k, v in remote.items()
                                                                   if k != "seconds"}


def test_cli_says_where_the_verdicts_stand_when_the_cluster_is_lost_mid_survey(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster lost mid-survey (its scheduler gone, no usable worker)
    ended the survey with the cluster's error alone, where the local
    pool's lost worker also says how many verdicts of the run are stored
    and that the same command resumes; it says both now. (The cluster is
    stood in for by two deals solved here, then its error.)"""
    def lost_midway(rules: Any, first: int, last: int, **kwargs: Any) -> Any:
        run_survey(rules, first, first + 1, jobs=1, max_seconds=1.0, store=kwargs["store"],
                   on_result=kwargs["on_result"], player=kwargs["player"], settings=kwargs["settings"],
                   seed=kwargs["seed"], lines=False)
        raise ClusterError("the scheduler did not answer")

    monkeypatch.setattr(cluster, "run_cluster_survey", lost_midway)
    db = tmp_path / "v.sqlite3"
    out = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "1-6", "--player", "greedy",
                                    "--scheduler", "tcp://127.0.0.1:8786", "--verdicts-db", str(db)])
    assert out.exit_code == 1, out.output
    assert "Error: the scheduler did not answer: " in out.output
    assert "2 deals" in out.output.split("did not answer: ", 1)[1], out.output
    assert db.exists()


def test_cli_refuses_bad_schedulers(tmp_path: Path) -> None:
    db = str(tmp_path / "v.sqlite3")
    for extra in (["--scheduler", "local:0"], ["--scheduler", "local:x"], ["--scheduler", "http://a:1"],
                  ["--scheduler", "tcp://host"], ["--scheduler", "local:2", "--jobs", "2"],
                  ["--scheduler", "tcp://[::1"], ["--scheduler", "tcp://::1:8786"]):
        out = CliRunner().invoke(main, ["survey", "--deals", "1-2", "--verdicts-db", db, *extra])
        assert out.exit_code == 2, (extra, out.output)
    assert not Path(db).exists()


def test_without_distributed_the_message_names_the_extra(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    assert not cluster_available()
    db = str(tmp_path / "v.sqlite3")
    out = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "1-2", "--verdicts-db", db,
                                    "--scheduler", "local:1", "--json"])
    # this Python's pip, with the extra's pinned packages: ``pip install 'terrace[cluster]'``
    # asked PyPI for its "terrace", another project
    assert out.exit_code == 1 and f"{sys.executable} -m pip install dask==" in out.output, out.output
    assert " distributed==" in out.output and "terrace[" not in out.output
    assert not Path(db).exists()  # the store this run made, empty, is not left behind


@needs_cluster
def test_a_scheduler_never_reached_leaves_no_new_store_and_keeps_an_old_one(tmp_path: Path) -> None:
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{closed.getsockname()[1]}"  # (bound, not listening: refused)
        new = tmp_path / "new.sqlite3"
        out = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "1-2", "--verdicts-db",
                                        str(new), "--scheduler", address, "--json"])
        assert out.exit_code == 1 and "nothing listens" in out.output
        assert list(tmp_path.iterdir()) == []
        old = tmp_path / "old.sqlite3"
        kept = VerdictStore(str(old))
        kept.put(RULES, 9, Verdict("won", 10, 0.1, 5.0, "c1"))
        kept.close()
        out = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "1-2", "--verdicts-db",
                                        str(old), "--scheduler", address, "--json"])
        assert out.exit_code == 1
        assert VerdictStore(str(old)).range(RULES, 9, 9) == {9: Verdict("won", 10, 0.1, 5.0, "c1")}


class FakeFuture:
    """What ``_results`` reads of a Dask future."""

    def __init__(self, status: str, error: BaseException | None = None) -> None:
        self.status, self.error = status, error

    def exception(self) -> BaseException | None:
        return self.error

    def result(self, timeout: float | None = None) -> list[tuple[int, Verdict, int]]:
        if self.error is not None:
            raise self.error
        return [(1, Verdict("won", 1, 0.1, 5.0), 1000)]


class Killed(Exception):
    pass


def test_lost_results_are_run_again_and_task_errors_are_not() -> None:
    results = cluster._results
    assert results(FakeFuture("finished"), Killed)[0][0] == 1
    with pytest.raises(cluster._Lost):  # every worker that ran it died
        results(FakeFuture("error", Killed()), Killed)
    with pytest.raises(cluster._Lost):  # its worker died before the result was fetched
        results(FakeFuture("finished", RuntimeError("lost")), Killed)
    with pytest.raises(ValueError, match="budget"):  # the task's own refusal
        results(FakeFuture("error", ValueError("bad budget")), Killed)


def test_a_batch_from_another_version_is_refused_on_the_worker() -> None:
    mine = cluster.worker_versions()
    expected = rf"runs terrace {re.escape(cluster.VERSION)}, this client terrace 9\.9\.9: install the same"
    with pytest.raises(cluster.WrongWorker, match=expected) as refused:
        cluster.run_batch({**mine, "terrace": "9.9.9"}, [(RULES, 1, "greedy", {}, 0, 60.0)])
    assert "terrace[" not in str(refused.value)  # no pip spec: PyPI's "terrace" is another project
    with pytest.raises(cluster.WrongWorker, match=r"runs solver version \d+, this client solver version 5:"):
        cluster.run_batch({**mine, "solver": "5"}, [(RULES, 1, "greedy", {}, 0, 60.0)])
    assert cluster.run_batch(mine, []) == []


def test_a_worker_with_several_threads_runs_one_batch_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker started as dask worker starts one (a thread per core) ran
    its batches side by side in one process: their deals shared the GIL and
    the core's memory limit within wall-clock budgets, and stored unknowns
    a survey run here would have decided."""
    import threading
    from itertools import pairwise

    spans: list[tuple[float, float]] = []

    def job(item: object) -> tuple[int, Verdict, int]:
        began = time.perf_counter()
        time.sleep(0.2)
        spans.append((began, time.perf_counter()))
        return 1, Verdict("won", 1, 0.2, 1.0), 0

    monkeypatch.setattr(cluster, "run_job", job)
    mine = cluster.worker_versions()
    threads = [threading.Thread(target=cluster.run_batch, args=(mine, [(RULES, n, "perfect", {}, 0, 1.0)]))
               for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spans.sort()
    assert len(spans) == 3
    assert all(end <= later for (_, end), (later, _) in pairwise(spans)), spans


def test_the_versions_checked_name_every_verdict_version_and_the_core() -> None:
    from terrace.solver.search import core_available

    versions = cluster.worker_versions()
    assert versions.keys() == {"terrace", "solver", "deal", "fair", "player", "core"}
    assert versions["core"] == ("compiled" if core_available() else "pure-Python")


@needs_cluster
def test_workers_of_another_solver_are_left_out_and_their_batches_run_elsewhere(
        scheduler: str, store: VerdictStore) -> None:
    from distributed import Client

    warned: list[str] = []
    with Client(scheduler) as client:
        old, new = sorted(client.nthreads())
        client.run(setattr, cluster, "SOLVER_VERSION", 5, workers=[old])  # another build, same package
        try:
            verdicts, _ = run_cluster_survey(RULES, 1, 8, scheduler=scheduler, max_seconds=5, store=store,
                                             batch=1, on_warning=warned.append)
            assert verdicts.keys() == stored(store, 1, 8, "perfect").keys() == set(range(1, 9))
            assert len(warned) == 1 and old in warned[0] and "solver version 5" in warned[0]
            # a worker that changes after its check (one joining with the same address) is caught per batch
            warned.clear()
            changed: list[str] = []

            def on_result(number: int, verdict: Verdict) -> None:
                if not changed:
                    changed.append(new)
                    client.run(setattr, cluster, "SOLVER_VERSION", 5, workers=[new])

            client.run(setattr, cluster, "SOLVER_VERSION", cluster.SOLVER_VERSION, workers=[old])

            verdicts, _ = run_cluster_survey(RULES, 9, 20, scheduler=scheduler, max_seconds=5, store=store,
                                             batch=1, on_warning=warned.append, on_result=on_result)
            assert verdicts.keys() == stored(store, 9, 20, "perfect").keys() == set(range(9, 21))
            assert any(new in line and "solver version 5" in line for line in warned), warned
        finally:
            client.run(setattr, cluster, "SOLVER_VERSION", cluster.SOLVER_VERSION)


@needs_cluster
def test_a_worker_that_cannot_run_terrace_is_a_cluster_error(scheduler: str, store: VerdictStore) -> None:
    from distributed import Client

    with Client(scheduler) as client:
        client.run(setattr, cluster, "worker_versions", None)  # as if terrace were missing there
        try:
            with pytest.raises(ClusterError, match=r"no worker can run the deals: worker tcp://.* cannot run "
                                                   r"terrace: TypeError"):
                run_cluster_survey(RULES, 1, 4, scheduler=scheduler, max_seconds=5, store=store)
        finally:
            client.run(setattr, cluster, "worker_versions", cluster.worker_versions)
    assert stored(store, 1, 4, "perfect") == {}


@needs_cluster
def test_a_listener_that_is_not_a_scheduler_is_refused_within_the_deadline(
        store: VerdictStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(5)  # accepts the connection, never speaks
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        started = time.perf_counter()
        with pytest.raises(ClusterError, match=r"no Dask scheduler answered at tcp://\S+ within 1 s"):
            run_cluster_survey(RULES, 1, 2, scheduler=address, max_seconds=5, store=store)
        assert time.perf_counter() - started < 10


@needs_cluster
def test_a_scheduler_without_workers_is_a_cluster_error(store: VerdictStore,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import LocalCluster

    monkeypatch.setattr(cluster, "WORKER_WAIT", 1.0)
    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", dashboard_address=":0") as empty, \
            pytest.raises(ClusterError, match=r"in 1 s \(it has no workers: start some"):
        run_cluster_survey(RULES, 1, 2, scheduler=empty.scheduler_address, max_seconds=5, store=store)


@needs_cluster
def test_frozen_workers_are_left_out_at_the_start_and_mid_survey(store: VerdictStore,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import Client, LocalCluster

    # (the overrun's slack is longer than the check, so that the survey
    # lasts until the frozen worker's check has run out; the check is cut
    # to 6 s once the two others have answered theirs: at 2 s one of them
    # was left out too, now and then, at load ~20, and at 6 s all three at
    # load ~60, stop 70, and the survey failed)
    checked = cluster._Fleet._checked

    def cut_once_two_answered(fleet: Any, *args: Any) -> None:
        checked(fleet, *args)
        if len(fleet.good) >= 2 and cluster.CHECK_SECONDS != 6.0:
            monkeypatch.setattr(cluster, "CHECK_SECONDS", 6.0)

    monkeypatch.setattr(cluster._Fleet, "_checked", cut_once_two_answered)
    monkeypatch.setattr(cluster, "OVERRUN_SLACK", 7.0)
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=":0") as local, \
            Client(local.scheduler_address) as spy:
        pids: dict[str, int] = spy.run(os.getpid)
        # Each worker loads the survey's code before the clock starts: on a
        # loaded machine that import alone took more than the 2 s of the
        # check, and the two workers not frozen were left out too.
        spy.run(importlib.import_module, "terrace.solver.cluster")
        first, second, third = sorted(pids)
        stopped = [pids[first]]
        os.kill(pids[first], signal.SIGSTOP)  # frozen before the survey checks it
        try:
            warned: list[str] = []

            def on_result(number: int, verdict: Verdict) -> None:
                if len(stopped) == 1:  # then one of the two others freezes mid-batch
                    for _ in range(200):
                        busy = [w for w, keys in spy.processing().items() if keys and w in (second, third)]
                        if busy:
                            stopped.append(pids[busy[0]])
                            os.kill(pids[busy[0]], signal.SIGSTOP)
                            return
                        time.sleep(0.01)

            started = time.perf_counter()
            verdicts, _ = run_cluster_survey(RULES, 1, 10, scheduler=local.scheduler_address, max_seconds=0.2,
                                             store=store, player="greedy", batch=1, on_warning=warned.append,
                                             on_result=on_result)
            assert time.perf_counter() - started < 120
            assert verdicts.keys() == set(range(1, 11))
            assert len(stopped) == 2
            assert any(first in line and "did not report its versions within 6 s" in line for line in warned)
            assert any("far beyond their budget" in line for line in warned), warned
        finally:
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)


def dask_scheduler(file: Path) -> subprocess.Popen[bytes]:
    """A Dask scheduler of its own process on a free port of this computer,
    writing its address to ``file``."""
    return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                             "--port", "0", "--dashboard-address", ":0", "--scheduler-file", str(file)],
                            stderr=subprocess.DEVNULL)


def scheduler_address(file: Path) -> str:
    """The address the scheduler of :func:`dask_scheduler` wrote, once it has
    (at load ~30 it took more than the 15 s once waited for, stop 70)."""
    eventually(lambda: file.exists() and file.read_text().strip().endswith("}"))
    return str(json.loads(file.read_text())["address"])


def dask_worker(address: str) -> subprocess.Popen[bytes]:
    """A Dask worker of one thread, no nanny, joining the scheduler at ``address``."""
    return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                             "--no-nanny", "--dashboard-address", ":0"], stderr=subprocess.DEVNULL)


@needs_cluster
def test_a_scheduler_gone_mid_survey_is_a_cluster_error(tmp_path: Path, store: VerdictStore,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capfd: pytest.CaptureFixture[str]) -> None:
    """... and Dask's own log of it (two tracebacks) stays out of the output."""
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 2.0)
    file = tmp_path / "scheduler.json"
    scheduler = dask_scheduler(file)
    worker = None
    try:
        address = scheduler_address(file)
        worker = dask_worker(address)

        killed: list[float] = []

        def on_result(number: int, verdict: Verdict) -> None:
            scheduler.kill()
            killed.append(time.perf_counter())

        # (or, when the question asked as it went waited out ASK_SECONDS
        # before the client saw it gone, as at load ~60, stop 70: did not answer)
        with pytest.raises(ClusterError, match=r"(lost the scheduler at|the scheduler stopped answering"
                                               r"|the scheduler did not answer for).*"
                                               r"run the same command again to resume"):
            run_cluster_survey(RULES, 1, 30, scheduler=address, max_seconds=5, store=store, batch=1,
                               on_result=on_result)
        assert stored(store, 1, 30, "perfect")  # what came back before is kept
        # (from the kill: from the survey's start, with the worker's start and
        # check, it took 60 s at load ~40, stop 70)
        assert time.perf_counter() - killed[0] < 30
        said = capfd.readouterr().err
        assert "Traceback" not in said and "distributed.client - ERROR" not in said, said[-3000:]
    finally:
        for process in (scheduler, worker):
            if process is not None:
                process.kill()
                process.wait()


@needs_cluster
def test_a_scheduler_frozen_mid_survey_is_a_cluster_error(tmp_path: Path, store: VerdictStore,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A scheduler stopped (SIGSTOP: its connections stay open, nothing
    answers) ended no survey: the look at its workers waited for ever, and
    a first Ctrl+C, held for the next look, was lost. (Here the scheduler
    is let go after 40 s: the old code then ran to its end.) A batch
    finished as it froze waits for its results CHECK_SECONDS, cut here too
    once the scheduler is frozen (cut from the start, it left out at load
    ~30 the worker just started, slower than 2 s to report its versions)."""
    import threading

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 2.0)
    file = tmp_path / "scheduler.json"
    scheduler = dask_scheduler(file)
    worker = None
    release = threading.Timer(40, lambda: scheduler.send_signal(signal.SIGCONT))
    try:
        address = scheduler_address(file)
        worker = dask_worker(address)
        frozen: list[float] = []

        def on_result(number: int, verdict: Verdict) -> None:
            if not frozen:
                scheduler.send_signal(signal.SIGSTOP)
                monkeypatch.setattr(cluster, "CHECK_SECONDS", 2.0)
                frozen.append(time.perf_counter())
                release.start()

        with pytest.raises(ClusterError, match=r"the scheduler did not answer for 2 s .*"
                                               r"run the same command again to resume"):
            run_cluster_survey(RULES, 1, 60, scheduler=address, max_seconds=5, store=store, batch=1,
                               on_result=on_result)
        assert time.perf_counter() - frozen[0] < 30
        assert stored(store, 1, 60, "perfect")  # what came back before is kept
    finally:
        release.cancel()
        for process in (scheduler, worker):
            if process is not None:
                process.kill()
                process.wait()


def test_a_stop_while_a_batchs_results_are_fetched_is_taken_at_the_next_question(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch finished on a worker (or scheduler) that froze before its
    results were fetched held a first Ctrl+C for the whole CHECK_SECONDS
    of that fetch (30 s); it is taken once the question asked has waited
    ASK_SECONDS (5 s; cut here)."""
    monkeypatch.setattr(cluster, "CHECK_SECONDS", 10.0)
    monkeypatch.setattr(cluster, "ASK_SECONDS", 0.5)
    heard: list[float] = []

    class Stuck:
        key, status = "batch", "finished"

        def result(self, timeout: float) -> list[tuple[int, Verdict, int]]:
            heard.append(timeout)  # Ctrl+C as the fetch begins
            time.sleep(timeout)
            raise TimeoutError

        def cancel(self) -> None:
            pass

    class Checked(Stuck):
        def result(self, timeout: float) -> list[tuple[int, Verdict, int]]:
            return cluster.worker_versions()  # type: ignore[return-value]

    class Client:
        status = "running"

        def nthreads(self, callback_timeout: float | None = None) -> dict[str, int]:
            return {"tcp://w:1": 1}

        def submit(self, function: object, *args: object, **options: object) -> Stuck:
            return Checked() if function is cluster.worker_versions else Stuck()

    def stopped() -> None:
        if heard:
            raise KeyboardInterrupt

    client = Client()
    fleet = cluster._Fleet(client, cluster.worker_versions(), None, stopped)
    with pytest.raises(KeyboardInterrupt):
        cluster._stream(client, fleet, [[(RULES, 1, "perfect", {}, 0, 1.0)]], 1.0, lambda _: None, None)
    assert heard == [0.5]  # (one question of ASK_SECONDS, then the stop: counted, not timed at load ~20)


@needs_cluster
def test_ctrl_c_stops_a_local_cluster_survey_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    import subprocess

    command = [str(Path(sys.executable).parent / "terrace"), "survey", "-v", "generals-patience",
               "--deals", "1-60", "--scheduler", "local:2", "--max-seconds", "2",
               "--verdicts-db", str(tmp_path / "v.sqlite3"), "--out", str(tmp_path)]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    # Ctrl+C reaches the whole process group: the client and every worker.
    survey = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True,  # (Ctrl+C not ignored, as a terminal starts it)
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # the cluster has started and is solving once a deal has come back (a
    # fixed wait is too short on a loaded machine: Ctrl+C while the workers
    # are still importing is another case)
    assert survey.stderr is not None
    said = b""
    deadline = time.monotonic() + 120
    while b"deals/s" not in said:
        assert time.monotonic() < deadline, said.decode()[-2000:]
        ready, _, _ = select.select([survey.stderr], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(survey.stderr.fileno(), 4096) if ready else b""
        assert chunk, said.decode()[-2000:]
        said += chunk
    time.sleep(1)
    os.killpg(survey.pid, signal.SIGINT)
    _, err = survey.communicate(timeout=60)
    text = (said + err).decode()
    assert survey.returncode == 130, text[-2000:]
    assert "the same command goes on from there" in text
    assert "Traceback" not in text and "WARNING" not in text and "Aborted" not in text, text[-3000:]


def test_the_start_waits_for_the_first_usable_worker_not_for_a_slow_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Check:
        def __init__(self, done: bool) -> None:
            self.status = "finished" if done else "pending"

        def result(self, timeout: float) -> dict[str, str]:
            return cluster.worker_versions()

        def cancel(self) -> None:
            self.status = "cancelled"

    class Client:
        status = "running"

        def nthreads(self, callback_timeout: float | None = None) -> dict[str, int]:
            return {"tcp://fast:1": 1, "tcp://frozen:1": 1}

        def submit(self, function: object, *, workers: list[str], **options: object) -> Check:
            return Check(done=workers == ["tcp://fast:1"])

    fleet = cluster._Fleet(Client(), cluster.worker_versions(), None)
    # (the fleet's clock a stand-in that moves only as it sleeps: its waits
    # are counted, not timed, however slowly a loaded machine runs them)
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    clock = SimpleNamespace(perf_counter=lambda: now[0], monotonic=lambda: now[0], sleep=sleep)
    monkeypatch.setattr(cluster, "time", clock)
    assert fleet.wait_for_workers() == 1
    # At most a tick more than the fast check; the frozen one is still being
    # checked (it is left out after CHECK_SECONDS, 30 s, if it never answers).
    assert now[0] <= cluster.TICK * 6 / 5 < cluster.CHECK_SECONDS
    assert set(fleet.checking) == {"tcp://frozen:1"}


@needs_cluster
def test_dasks_own_log_stays_out_of_the_output_while_connected(capfd: pytest.CaptureFixture[str]) -> None:
    """A scheduler that died: Dask's client logged two tracebacks (about
    thirty lines) before the survey's one line saying so."""
    import logging

    cluster._distributed()
    client_log = logging.getLogger("distributed.client")
    before = client_log.level
    with cluster._dask_logs_silenced():
        client_log.error("Failed to reconnect to scheduler after 30.00 seconds, closing client")
    assert "Failed to reconnect" not in capfd.readouterr().err
    assert client_log.level == before


@needs_cluster
def test_an_address_where_nothing_listens_is_refused_at_once(store: VerdictStore) -> None:
    """Dask's connect tried again for the whole 30 s."""
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{closed.getsockname()[1]}"  # (bound, not listening: refused)
        started = time.perf_counter()
        with pytest.raises(ClusterError, match=r"nothing listens at tcp://\S+ \(the connection was refused"):
            run_cluster_survey(RULES, 1, 2, scheduler=address, max_seconds=5, store=store)
    # (the words are those of the check before Dask's connect; the time, half
    # of Dask's CONNECT_SECONDS, leaves a loaded machine room to import Dask)
    assert time.perf_counter() - started < cluster.CONNECT_SECONDS / 2


STOPPED_WHILE_STARTING = """
import distributed
from distributed.deploy import spec
from terrace.solver import cluster


class Starting:
    '''A local cluster that Ctrl+C stopped while a worker was starting:
    closing it fails as Dask's did (its workers' status still "init").'''

    shutdown_on_close = True
    status = "running"

    def close(self, timeout=None):
        raise AssertionError("Status.init")


starting = Starting()


def interrupted(*args, **kwargs):
    spec.SpecCluster._instances.add(starting)
    raise KeyboardInterrupt


distributed.LocalCluster = interrupted
try:
    with cluster.connect("local:1"):
        pass
except KeyboardInterrupt:
    print("stopped")
"""


@needs_cluster
def test_ctrl_c_while_a_local_cluster_starts_prints_no_traceback_at_exit() -> None:
    """Dask's own exit hook closes the local clusters left open; one that
    Ctrl+C stopped while a worker was starting made it fail, and Python
    printed 30 lines of traceback after the survey's line saying it
    stopped (``survey --scheduler local:1``, Ctrl+C 5 s in)."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", STOPPED_WHILE_STARTING], capture_output=True, text=True,
                          timeout=GUARD, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout == "stopped\n"
    assert "Traceback" not in done.stderr and "Status.init" not in done.stderr, done.stderr[-2000:]


LOGGED_BY_DASK = """
import logging
from terrace.solver import cluster


def log_in_the_worker():
    # (Dask's own logger has a handler the cluster's silence_logs quiets in the
    # worker too; the event loop's loggers have none, and Python's last resort
    # writes their errors to the terminal unless the worker silenced them)
    logging.getLogger("distributed.worker").error("heartbeat to the scheduler failed")
    logging.getLogger("asyncio").error("heartbeat: Task exception was never retrieved")
    logging.getLogger("tornado.application").error("heartbeat: Exception in callback")


with cluster.connect("local:1") as client:
    client.wait_for_workers(1)  # (the cluster asks for its workers and does not wait for them)
    logging.getLogger("distributed.scheduler").error("Couldn't gather keys: {'run_batch-1': 'forgotten'}")
    ran = client.run(log_in_the_worker)
print("done" if len(ran) == 1 else ran)
"""


@needs_cluster
def test_a_local_clusters_scheduler_and_workers_keep_dasks_log_out_of_the_output() -> None:
    """A local cluster's worker processes write to the survey's terminal:
    stopped under load, a worker logged "Failed to communicate with
    scheduler during heartbeat" and a traceback after the survey's line
    saying it stopped (its own process, which the survey's silencing of
    Dask's log did not reach). Its scheduler runs in the survey's process: a
    worker stopped (SIGSTOP) mid-survey, its batch run elsewhere, and the
    scheduler logged "distributed.scheduler - ERROR - Couldn't gather keys:
    {...: 'forgotten'}" six times between the survey's warning and its
    summary (the cluster kept Dask's errors, only quieter lines were
    silenced). (One cluster for both: each start is seconds.)"""
    done = subprocess.run([sys.executable, "-c", LOGGED_BY_DASK], capture_output=True, text=True,
                          timeout=GUARD, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout == "done\n", done.stderr[-2000:]
    assert "heartbeat" not in done.stderr and "gather" not in done.stderr, done.stderr[-2000:]


def test_a_cluster_surveys_label_counts_a_verdict_in_before_the_first_progress_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A verdict that comes back before the cluster's first progress report
    proves a worker at work: the label said "0.0 deals/s, waiting for
    workers" until that report came."""
    import click

    labels: list[str] = []

    class Bar:
        def __init__(self, **settings: object) -> None:
            self._label = str(settings.get("label", ""))

        def __enter__(self) -> Bar:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        @property
        def label(self) -> str:
            return self._label

        @label.setter
        def label(self, text: str) -> None:
            self._label = text
            labels.append(text)

        def update(self, steps: int) -> None:
            pass

        def render_progress(self) -> None:
            pass

    def survey(rules: object, first: int, last: int, *, on_result: Any, on_progress: Any,
               **settings: object) -> tuple[dict[int, Verdict], int]:
        on_progress(0, 0.0, 0)  # (no worker known yet)
        verdict = Verdict("won", 10, 0.1, 5.0, "c1")
        on_result(first, verdict)
        before = list(labels)
        on_progress(1, 3.0, 2)
        labels.append("-- " + " | ".join(before))
        return {first: verdict}, 0

    monkeypatch.setattr(click, "progressbar", Bar)
    monkeypatch.setattr(cluster, "run_cluster_survey", survey)
    db = str(tmp_path / "v.sqlite3")
    out = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "1-1", "--verdicts-db", db,
                                    "--scheduler", "local:2", "--json"])
    assert out.exit_code == 0, out.output
    waiting, counted, reported = labels[0], labels[1], labels[2]
    assert "waiting for workers" in waiting
    assert "won 1" in counted and "waiting for workers" not in counted, counted
    assert " 0.0 deals/s" not in counted, counted
    assert reported.endswith("3.0 deals/s, 2 workers")


INTERRUPTED_INSIDE_SYNC = """
import os, signal, sys, threading, time
from terrace.cli import main
from terrace.solver import cluster

survey = threading.get_ident()


def dask_sync():
    # the frame of Dask's sync() the survey's thread waits in, or None
    frame = sys._current_frames().get(survey)
    while frame is not None:
        if (frame.f_code.co_name, os.path.basename(frame.f_code.co_filename)) == ("sync", "utils.py"):
            return frame
        frame = frame.f_back
    return None


def interrupt():
    '''On Dask's event loop: once the survey's thread waits in Dask's sync()
    for a call this loop has not started yet, Ctrl+C it, and hold the loop
    until that sync() has queued the call's cancellation and left (a loaded
    machine). Only that call: the stop's own calls of sync() wait for this
    loop, and waiting for them held it until the deadline.'''
    deadline = time.monotonic() + 60
    waiting = dask_sync()
    while waiting is None and time.monotonic() < deadline:
        time.sleep(0.001)
        waiting = dask_sync()
    signal.pthread_kill(survey, signal.SIGINT)
    if "stops_kept" in getattr(signal.getsignal(signal.SIGINT), "__qualname__", ""):
        return  # (the survey holds a stop for its next look: its sync() is not interrupted)
    while waiting is not None and dask_sync() is waiting and time.monotonic() < deadline:
        time.sleep(0.001)
    if time.monotonic() >= deadline:
        os.write(2, b"the survey never left Dask's sync()\\n")


looked = cluster._Fleet.refresh


def refresh(self):
    if not getattr(self, "armed", False):
        self.armed = True
        self.client.loop.add_callback(interrupt)
    return looked(self)


cluster._Fleet.refresh = refresh
main(["survey", "-v", "falling-star", "--deals", "1-4", "--scheduler", "local:1", "--max-seconds", "1",
      "--verdicts-db", sys.argv[1], "--json"])
"""


@needs_cluster
def test_ctrl_c_while_the_client_waits_for_dasks_event_loop_prints_no_traceback(tmp_path: Path) -> None:
    """Ctrl+C while the survey waits in Dask's ``sync()`` for a call its
    event loop has not started yet (a loaded machine): Dask's cancel of
    that call failed with ``NameError: cannot access free variable
    'future'`` and its event loop logged that with a traceback after the
    survey's line (``tornado.application`` keeps a level of its own)."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", INTERRUPTED_INSIDE_SYNC, str(tmp_path / "v.sqlite3")],
                          capture_output=True, text=True, timeout=180, start_new_session=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 130, done.stderr[-3000:]
    assert "stopped: " in done.stderr and "never left" not in done.stderr, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "NameError" not in done.stderr, done.stderr[-3000:]


HOLD_WHILE_STARTING = """
import os, time

hold = os.environ.get("TERRACE_TEST_HOLD")
if hold:
    try:  # the first process to start is the survey's own
        os.close(os.open(os.path.join(hold, "survey"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:  # any other one waits here, while Python still starts
        open(os.path.join(hold, f"starting-{os.getpid()}"), "w").close()
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join(hold, "go")) and time.monotonic() < deadline:
            time.sleep(0.01)
"""


@needs_cluster
@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_a_stop_while_a_local_clusters_worker_process_starts_prints_no_traceback(tmp_path: Path,
                                                                                 stop: str) -> None:
    """Ctrl+C reaches the whole process group: a worker process that Dask
    had spawned and that was still starting (importing, on a loaded
    machine) printed "Fatal Python error: init_import_site" and a traceback
    after the survey's line; and one that Dask went on starting after the
    survey had stopped (Ctrl+C or SIGTERM) printed a FileNotFoundError
    traceback. Each new Python process here waits while it imports, until
    the test has stopped the survey."""
    import subprocess

    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(HOLD_WHILE_STARTING)
    command = [sys.executable, "-m", "terrace", "survey", "-v", "falling-star", "--deals", "1-4",
               "--scheduler", "local:1", "--max-seconds", "1", "--verdicts-db", str(tmp_path / "v.sqlite3"),
               "--json"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hold), *sys.path]),
           "TERRACE_TEST_HOLD": str(hold), "XDG_DATA_HOME": str(tmp_path)}
    survey = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True,  # (Ctrl+C not ignored, as a terminal starts it)
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not list(hold.glob("starting-*")):
            assert survey.poll() is None and time.monotonic() < deadline, survey.communicate()
            time.sleep(0.02)
        if stop == "ctrl-c":
            os.killpg(survey.pid, signal.SIGINT)
        else:
            survey.send_signal(signal.SIGTERM)
    finally:
        (hold / "go").touch()
    _, err = survey.communicate(timeout=GUARD)
    text = err.decode()
    assert survey.returncode == (130 if stop == "ctrl-c" else 143), text[-3000:]
    assert "stopped: " in text
    assert "Traceback" not in text and "Fatal Python error" not in text, text[-3000:]


def test_a_local_cluster_runs_no_more_workers_than_the_machine_has_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A deal's budget is wall-clock time: ``--scheduler local:64`` on two
    cores started 64 workers, each deal got a share of a core, and the
    survey stored starved ``unknown``s that later surveys of that budget take
    as they are (``--jobs`` was already held to the cores)."""
    import terrace.cli.solver as cli_solver

    cores = len(os.sched_getaffinity(0))
    asked: list[str] = []

    def survey(*args: Any, scheduler: str, **kwargs: Any) -> tuple[dict[int, Verdict], int]:
        asked.append(scheduler)
        return {1: Verdict("won", 1, 0.1, 5.0)}, 0

    monkeypatch.setattr(cluster, "run_cluster_survey", survey)
    monkeypatch.setattr(cli_solver, "charts_available", lambda: False)
    result = CliRunner().invoke(main, ["survey", "--deals", "1", "--scheduler", f"local:{cores + 62}",
                                       "--verdicts-db", str(tmp_path / "v.sqlite3"), "--json"])
    assert result.exit_code == 0, result.output
    assert asked == [f"local:{cores}"]
    assert f"--scheduler local:{cores + 62}: this machine runs {cores} at once; using local:{cores}" \
        in result.output
    asked.clear()
    result = CliRunner().invoke(main, ["survey", "--deals", "1", "--scheduler", "local:1", "--verdicts-db",
                                       str(tmp_path / "v.sqlite3"), "--json"])
    assert asked == ["local:1"] and "at once" not in result.output


@pytest.mark.parametrize("port", ["８７８６", "٨٧٨٦", "৮৭৮৬", "8_786", "0", "99999", "+8786", " 8786",
                                  "87860", ""])
def test_a_port_in_other_digits_or_out_of_range_is_refused_as_other_bad_ports(port: str) -> None:
    """'\\d{1,5}' matched Arabic-Indic and fullwidth digits and int() read
    them, so tcp://h:٨٧٨٦ was taken for port 8786 (and tcp://h:0 for a port)."""
    with pytest.raises(ValueError, match=r"^--scheduler wants tcp://HOST:PORT or local:N, not '"):
        cluster.parse_scheduler(f"tcp://sched.example:{port}")
    assert cluster.parse_scheduler("tcp://sched.example:8786") == ("address", "tcp://sched.example:8786")
    assert cluster.parse_scheduler("tcp://[::1]:1") == ("address", "tcp://[::1]:1")


@pytest.mark.parametrize("count", ["٤", "４", "1_0", "1e2", "0", "257"])
def test_a_local_worker_count_in_other_digits_is_refused(count: str) -> None:
    with pytest.raises(ValueError, match="wants 1 to 256 workers"):
        cluster.parse_scheduler(f"local:{count}")


@pytest.mark.parametrize("count", ["99999999999999999999999", "1" * 30, "2\n0"])
def test_a_refused_worker_count_is_quoted_as_given(count: str) -> None:
    """The count was cut at 20 characters with no mark of the cut, so
    local:99999999999999999999999 was refused as "not 99999999999999999999",
    a number nobody gave."""
    result = CliRunner().invoke(main, ["survey", "--deals", "1", "--scheduler", f"local:{count}"])
    assert result.exit_code == 2
    wanted = f"Error: --scheduler local:N wants 1 to {cluster.MAX_WORKERS} workers, not {quote(count)}"
    assert result.output.splitlines()[-1] == wanted, result.output


def test_the_worker_limit_is_one_fact_for_jobs_and_local_clusters() -> None:
    """256 was written twice (``MAX_JOBS`` of the command line for --jobs,
    ``MAX_WORKERS`` of the cluster for local:N): changed in one place, the
    two limits of one machine's workers would part. Both read
    :data:`terrace.solver.pool.MAX_WORKERS` now."""
    from terrace.cli import all_commands
    from terrace.solver import pool as local_pool

    assert cluster.MAX_WORKERS is local_pool.MAX_WORKERS
    jobs = next(p for p in all_commands()["survey"].params if p.name == "jobs")
    assert getattr(jobs.type, "maximum", None) == local_pool.MAX_WORKERS


def test_one_helper_swaps_the_stop_signals_handlers_and_gives_them_back() -> None:
    """The survey command and the start of a local cluster each had their
    own copy of the loop over STOPS; both use catch_stops and
    restore_stops now."""
    import threading

    def mine(signum: int, frame: Any) -> None:
        """(never called)"""

    def later(signum: int, frame: Any) -> None:
        """(never called)"""

    before = {number: signal.getsignal(number) for number in stops.STOPS}
    previous = stops.catch_stops(mine)
    try:
        assert previous == before and all(signal.getsignal(n) is mine for n in stops.STOPS)
        signal.signal(signal.SIGTERM, later)
        stops.restore_stops(previous, only_from=mine)  # (a later handler stays)
        assert signal.getsignal(signal.SIGINT) == before[signal.SIGINT]
        assert signal.getsignal(signal.SIGTERM) is later
    finally:
        stops.restore_stops(previous)
    assert {number: signal.getsignal(number) for number in stops.STOPS} == before
    found: list[dict[int, Any]] = []
    thread = threading.Thread(target=lambda: found.append(stops.catch_stops(mine)))
    thread.start()
    thread.join()
    assert found == [{}]  # off the main thread nothing is set


STOPPED_AT_A_CALL = """
import json, os, signal, sys
from multiprocessing import util
import distributed
from distributed import nanny
from terrace.rules import Rules
from terrace.solver import cluster
from terrace.solver.verdicts import VerdictStore

# where the stop is sent: as the first process of the survey (its fork
# server) is being started, or as the local cluster is being made
AT = {"fork server": util.spawnv_passfds, "local cluster": distributed.LocalCluster.__init__}[sys.argv[2]]
sent, nannies = [], []
made = nanny.Nanny.__init__

def counted(self, *args, **kwargs):
    nannies.append(1)
    made(self, *args, **kwargs)

def profile(frame, event, arg):
    if event == "call" and frame.f_code is AT.__code__ and not sent:
        sent.append(1)
        os.kill(os.getpid(), signal.SIGINT)

if __name__ == "__main__":
    nanny.Nanny.__init__ = counted
    store = VerdictStore(sys.argv[1])
    sys.setprofile(profile)
    try:
        cluster.run_cluster_survey(Rules(), 1, 2, scheduler="local:2", max_seconds=0.05, store=store)
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "stopped"
    finally:
        sys.setprofile(None)
    print(json.dumps([outcome, sent, len(nannies)]))
"""


def _stopped_at(point: str, tmp_path: Path) -> list[Any]:
    """A cluster survey (local:2) sent Ctrl+C at ``point`` of its start
    (see STOPPED_AT_A_CALL): how it ended, whether the stop was sent, and
    how many nannies (Dask's keepers of the worker processes) were made."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", STOPPED_AT_A_CALL, str(tmp_path / "v.sqlite3"), point],
                          capture_output=True, text=True, timeout=180, start_new_session=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip(), done.stderr[-3000:]
    result: list[Any] = json.loads(done.stdout)
    return result


@needs_cluster
def test_a_stop_as_a_local_clusters_fork_server_starts_stops_the_survey(tmp_path: Path) -> None:
    """Ctrl+C while the fork server of a local cluster's workers was being
    started was lost (SIGINT was ignored meanwhile, for the server to
    inherit that): the cluster started and the survey ran to its end. The
    signal is now blocked meanwhile, not ignored, and taken as the block ends."""
    assert _stopped_at("fork server", tmp_path)[:2] == ["stopped", [1]]


@needs_cluster
def test_a_stop_as_a_local_cluster_starts_starts_no_worker(tmp_path: Path) -> None:
    """Ctrl+C while a local cluster was being made waited until all its
    workers were up (2 to 4 s for local:2 on this machine), each worker
    process started for nothing. The cluster is made with its scheduler
    alone now, and its workers are asked for once the stop could be
    heard: a stop sent as the cluster is being made starts none (counted:
    the nannies made)."""
    assert _stopped_at("local cluster", tmp_path) == ["stopped", [1], 0]


@needs_cluster
def test_a_wrong_scheduler_is_said_also_when_every_deal_is_stored(tmp_path: Path) -> None:
    """``survey --scheduler tcp://HOST:PORT`` with a wrong address printed
    its report and ended well when every deal was stored already: the
    mistake showed only on the day a deal needed the cluster. The address
    is now checked first."""
    import socket

    path = str(tmp_path / "v.sqlite3")
    args = ["survey", "-v", "falling-star", "--deals", "1-2", "--max-seconds", "0.05", "--verdicts-db", path,
            "--json"]
    assert CliRunner().invoke(main, [*args, "--jobs", "1"]).exit_code == 0
    with socket.socket() as free:  # (a port where nothing listens)
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    result = CliRunner().invoke(main, [*args, "--scheduler", f"tcp://127.0.0.1:{port}"])
    assert result.exit_code == 1, result.output
    assert f"nothing listens at tcp://127.0.0.1:{port}" in result.output



@needs_cluster
def test_a_scheduler_host_name_that_does_not_exist_is_said_at_once(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``survey --scheduler tcp://nohost.invalid:8786`` (a typo in the
    name) waited 30 s (34 s measured), Dask looking the name up again and
    again, then said "no Dask scheduler answered at ...: is one running
    there?". A name the lookup says does not exist is said at once."""
    import socket

    real = socket.getaddrinfo
    looked: list[str] = []

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "nohost.invalid":  # (as a name server says it, wherever the test runs)
            looked.append(host)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 5.0)  # (the wait before)
    path = tmp_path / "v.sqlite3"
    started = time.monotonic()
    result = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "1-2", "--verdicts-db",
                                       str(path), "--scheduler", "tcp://nohost.invalid:8786", "--json"])
    assert result.exit_code == 1, result.output
    assert ("nohost.invalid is not a known host name (Name or service not known): is "
            "tcp://nohost.invalid:8786 the scheduler's address?") in result.output
    # (once: Dask looked it up again and again until CONNECT_SECONDS; the
    # clock alone, 4 s against that 5 s, failed at load ~15)
    assert looked == ["nohost.invalid"]
    assert time.monotonic() - started < 60
    assert not path.exists()

STOPPED_IN_A_WAIT_OF_THE_CLIENT = """
import json, os, signal, sys, threading
from terrace.rules import Rules
from terrace.solver import cluster
from terrace.solver.verdicts import VerdictStore

sent = []
reported = []

def profile(frame, event, arg):
    # the stop, as a wait of the client's thread (a threading.Condition) takes its lock back
    if event == "call" and frame.f_code is threading.Condition._acquire_restore.__code__ and not sent:
        caller = frame.f_back
        while caller is not None and caller.f_code is not cluster._stream.__code__:
            caller = caller.f_back
        if caller is not None:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)

if __name__ == "__main__":
    store = VerdictStore(sys.argv[1])
    sys.setprofile(profile)
    try:
        cluster.run_cluster_survey(Rules(), 1, 8, scheduler="local:1", max_seconds=0.05, store=store,
                                   on_result=lambda number, verdict: reported.append(number))
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "stopped"
    except Exception as error:
        outcome = str(error)
    finally:
        sys.setprofile(None)
    same = sorted(reported) == sorted(store.range(Rules(), 1, 8))
    print(json.dumps([outcome, sent, same]))
"""


@needs_cluster
def test_a_stop_in_a_wait_of_the_client_stops_a_cluster_survey(tmp_path: Path) -> None:
    """Ctrl+C whose KeyboardInterrupt was raised as a wait of the client's
    thread took its lock back ended the survey in "lost the scheduler at
    local:1: RuntimeError: release unlocked lock; run the same command
    again" (status 1, the cluster blamed). The stop now waits for the
    fleet's next look (at most half a second) and stops the survey,
    every verdict reported stored."""
    import subprocess

    script = STOPPED_IN_A_WAIT_OF_THE_CLIENT
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "v.sqlite3")], capture_output=True,
                          text=True, timeout=180, start_new_session=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip() == json.dumps(["stopped", [1], True]), (done.stdout, done.stderr[-3000:])


class _StillRunning(Exception):
    pass


@needs_cluster
def test_a_worker_paused_for_its_memory_mid_survey_is_a_cluster_error(
        store: VerdictStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker whose --memory-limit its process outgrew (seen: dask worker
    --memory-limit 85MB, 'Pausing worker' 2 s after its versions check
    passed) runs no task: the survey said '0.0 deals/s, 1 worker' and
    nothing else for 175 s until killed, its batches sent again to the
    same worker after each overrun. It now stops after WORKER_WAIT naming
    the paused worker (cut to 3 s once the worker has passed its check: cut
    from the start, the check of the worker just started took longer at
    load ~30, stop 70, and the survey said no worker had joined)."""
    from distributed import Client, LocalCluster

    monkeypatch.setattr(cluster, "OVERRUN_SLACK", 1.0)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as local, \
            Client(local) as ours:
        checked, paused = cluster._Fleet._checked, []

        def pause_once_checked(fleet: Any, *args: Any) -> None:
            checked(fleet, *args)
            if fleet.good and not paused:  # (its memory now above the pause threshold)
                paused.append(True)
                monkeypatch.setattr(cluster, "WORKER_WAIT", 3.0)
                ours.run(lambda dask_worker: setattr(dask_worker.memory_manager, "memory_pause_fraction",
                                                     1e-6))
                while "paused" not in str(ours.run(lambda dask_worker: dask_worker.status)):
                    time.sleep(0.05)

        def still_running(done: int, rate: float, workers: int) -> None:
            if time.perf_counter() - started > 150:
                raise _StillRunning

        monkeypatch.setattr(cluster._Fleet, "_checked", pause_once_checked)
        started = time.perf_counter()
        with pytest.raises(ClusterError, match="paused by Dask") as refused:
            run_cluster_survey(RULES, 1, 40, scheduler=local.scheduler_address, max_seconds=1.0,
                               store=store, on_progress=still_running, batch=1)
    assert "run the same command again" in str(refused.value)
    assert time.perf_counter() - started < 120  # (56 s at load ~60, stop 70; 40 s was the bound)
    assert stored(store, 1, 40, "perfect") == {}


@needs_cluster
def test_a_worker_paused_from_its_start_is_a_cluster_error(store: VerdictStore,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker Dask pauses as soon as it starts (its memory above the pause
    threshold: dask worker --memory-limit 85MB here) still reports its
    versions, then runs no batch: the survey waited for ever. It now ends
    after WORKER_WAIT saying why."""
    import dask
    from distributed import LocalCluster

    monkeypatch.setattr(cluster, "WORKER_WAIT", 3.0)
    started = time.perf_counter()

    def still_running(done: int, rate: float, workers: int) -> None:
        if time.perf_counter() - started > 60:
            raise _StillRunning

    said = (r"ran nothing for 3 s \(tcp://\S+: paused by Dask: its memory is above the pause threshold "
            r"of its --memory-limit; give it more\)")
    with dask.config.set({"distributed.worker.memory.pause": 1e-6}):  # (read as its worker starts)
        one = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0")
    with one as local, pytest.raises(ClusterError, match=said):
        run_cluster_survey(RULES, 1, 2, scheduler=local.scheduler_address, max_seconds=1.0, store=store,
                           on_progress=still_running)
    assert stored(store, 1, 2, "perfect") == {}


def test_the_largest_worker_count_and_port_are_taken() -> None:
    """Only counts and ports past the ends were tried: local:256 (the most
    the message offers) and port 65535 must be read, one more refused."""
    assert cluster.parse_scheduler(f"local:{cluster.MAX_WORKERS}") == ("local", cluster.MAX_WORKERS)
    assert cluster.parse_scheduler("tcp://sched.example:65535") == ("address", "tcp://sched.example:65535")
    for beyond in (f"local:{cluster.MAX_WORKERS + 1}", "tcp://sched.example:65536"):
        with pytest.raises(ValueError, match=r"^--scheduler (local:N )?wants"):
            cluster.parse_scheduler(beyond)


def test_a_worker_paused_before_its_version_check_is_said_to_be_paused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker Dask paused before it ran its version check runs no check
    either: it was left out as 'did not report its versions within 30 s
    (frozen or overloaded?)', or, when WORKER_WAIT came first, the survey
    said no worker had joined (test_a_worker_paused_from_its_start_is_a_
    cluster_error failed so at load ~20). It is said to be paused. Both
    waits are 0 here: the check's deadline has passed at the second look."""

    class Check:
        status = "pending"

        def cancel(self) -> None:
            self.status = "cancelled"

    class Client:
        status = "running"

        def nthreads(self, callback_timeout: float | None = None) -> dict[str, int]:
            return {"tcp://paused:1": 1}

        def submit(self, function: object, **options: object) -> Check:
            return Check()

        scheduler = type("Scheduler", (), {"identity": None})()

        def sync(self, function: object, **options: object) -> dict[str, Any]:
            return {"workers": {"tcp://paused:1": {"status": "paused"}}}

    monkeypatch.setattr(cluster, "CHECK_SECONDS", 0.0)
    monkeypatch.setattr(cluster, "WORKER_WAIT", 0.0)
    fleet = cluster._Fleet(Client(), cluster.worker_versions(), None)
    with pytest.raises(ClusterError, match=r"ran nothing for 0 s \(tcp://paused:1: paused by Dask"):
        fleet.refresh()
        fleet.refresh()
    assert fleet.bad == {}
