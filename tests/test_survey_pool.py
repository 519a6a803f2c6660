"""The local survey's pool of workers: a worker lives as long as its memory
stays under the bound, not for a fixed number of deals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from terrace.solver import pool as local_pool
from terrace.solver import survey
from terrace.solver.verdicts import VerdictStore
from terrace.variants import get_rules

ROOT = Path(__file__).resolve().parent.parent


def _pids(pool: object, tasks: int) -> list[int]:
    """The process id of the worker that ran each of ``tasks`` tasks, one
    task at a time (as the survey hands out its deals)."""
    try:
        return list(pool.starmap(os.getpid, [()] * tasks, chunksize=1))  # type: ignore[attr-defined]
    finally:
        survey.stop_pool(pool)


def test_a_worker_under_the_memory_bound_is_not_restarted() -> None:
    """120 tiny tasks on two workers start no third: the pool restarted each
    worker after 50 deals (3 processes here), a process start per 50 deals,
    which at 0.001 s a deal made --jobs 2 slower than --jobs 1."""
    pids = _pids(survey.start_pool(2), 120)
    assert len(pids) == 120
    assert len(set(pids)) <= 2


def test_a_worker_past_the_memory_bound_is_replaced_after_its_deal() -> None:
    """A bound of 1 kB, which every worker passes: each ends after one task
    (it takes its first whatever it holds, else it would be replaced for
    ever), and the pool runs every task on a fresh one."""
    pids = _pids(survey.start_pool(2, memory_kb=1), 12)
    assert len(pids) == 12
    assert len(set(pids)) == 12


def test_a_survey_whose_workers_are_replaced_finishes(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that ends for its memory ends well (exit code 0): the
    survey does not take it for a dead one, and loses no deal."""
    monkeypatch.setattr(survey, "start_pool", partial(survey.start_pool, memory_kb=1))
    rules = get_rules("falling-star")
    known, _ = survey.run_survey(rules, 1, 10, jobs=2, max_seconds=0.01,
                                 store=VerdictStore(tmp_path / "v.sqlite3"))
    assert sorted(known) == list(range(1, 11))



FORKED_POOL = """
import json, signal, sys, time
from terrace.solver import survey

def stop(signum, frame):  # (the command line's handler of SIGTERM: a stop of the survey)
    raise KeyboardInterrupt

signal.signal(signal.SIGTERM, stop)
pool = survey.start_pool(2)
cpu = [pool.apply(time.process_time) for _ in range(4)]
handler = pool.apply(signal.getsignal, (signal.SIGTERM,))
blocked = pool.apply(signal.pthread_sigmask, (signal.SIG_BLOCK, []))
ended = time.monotonic()
survey.stop_pool(pool)
print(json.dumps({"worker_cpu": max(cpu),
                  "sigterm": str(handler), "blocked": sorted(int(s) for s in blocked),
                  "stop_seconds": time.monotonic() - ended}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux")
def test_the_workers_start_without_importing_the_solver_again() -> None:
    """Each worker of the local pool was started by the fork server and
    imported the solver first (0.25-0.3 CPU s each, and the server's own
    start), so at small budgets ``--jobs 2`` took twice the wall time of
    ``--jobs 1`` (falling-star 1-100 at 0.001 s: 6.2 s against 2.5). A
    command-line survey (one thread) forks them from itself, solver
    imported: a worker has used a few CPU ms at its first tasks. Forked,
    it takes SIGTERM as its end, not as the survey's stop (the pool's
    SIGTERM at its end left it running, and the survey waited for ever).
    (The script has 240 s: a hang is for ever, and 60 s of wall clock was
    a few seconds of CPU at load 30-60, stop 70.)"""
    done = subprocess.run([sys.executable, "-c", FORKED_POOL], capture_output=True, text=True,
                          timeout=240, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["worker_cpu"] < 0.05, seen
    assert seen["sigterm"] == str(signal.SIG_DFL) and signal.SIGTERM not in seen["blocked"], seen
    assert seen["stop_seconds"] < 10, seen


STOPPED_IN_A_PUT = """
import fcntl, json, os, signal, sys, termios, threading, time
from terrace.solver import survey

reading = threading.Event()
worker = []

def held(pid):  # (the pool's reader of results waits here, and reads nothing meanwhile)
    worker.append(pid)
    reading.wait()

def waiting(pool):  # (bytes in the results' pipe, not read yet)
    return int.from_bytes(fcntl.ioctl(pool._outqueue._reader.fileno(), termios.FIONREAD, bytes(4)),
                          sys.byteorder)

pool = survey.start_pool(1)
pool.apply_async(os.getpid, callback=held)
while not worker:
    time.sleep(0.01)
big = pool.apply_async(bytes, (8 << 20,))  # (8 MB: far more than the pipe holds)
while waiting(pool) < 1 << 15:  # (the worker is in the middle of its put, the pipe full)
    time.sleep(0.01)
os.kill(worker[0], signal.SIGTERM)  # (as the pool's stop sends it)
time.sleep(0.2)
reading.set()
size = len(big.get(timeout=30))
started = time.monotonic()
survey.stop_pool(pool)
print(json.dumps({"size": size, "stop_seconds": time.monotonic() - started}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux")
def test_a_worker_told_to_end_in_the_middle_of_a_put_ends_after_it() -> None:
    """A worker that the pool's SIGTERM ended in the middle of putting a
    result held the results queue's lock for ever, and left half a message
    in its pipe: the stop then waited for that lock for ever (a survey
    stopped with Ctrl+C hung, now and then under load: a fresh-clone CI run
    of the stop test at each point of the pool's start). The worker now puts
    the whole result first, and the stop ends."""
    done = subprocess.run([sys.executable, "-c", STOPPED_IN_A_PUT], capture_output=True, text=True,
                          timeout=240, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["size"] == 8 << 20
    assert seen["stop_seconds"] < local_pool.END_SECONDS, seen


def test_small_budgets_hand_deals_over_in_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each deal was a task of its own: at 0.001 s a deal the hand-over
    cost the survey's process about 0.8 CPU ms a deal, a third to a half
    more CPU than ``--jobs 1``. 40 deals on two workers now go in 8 tasks of 5, every
    deal solved and stored once."""
    handed: list[object] = []

    class Counting(local_pool._BoundedPool):
        def imap_unordered(self, func: Any, iterable: Any, chunksize: int = 1) -> Any:
            def counted() -> Any:
                for task in iterable:
                    handed.append(task)
                    yield task
            return super().imap_unordered(func, counted(), chunksize)

    monkeypatch.setattr(local_pool, "_BoundedPool", Counting)
    store = VerdictStore(tmp_path / "v.sqlite3")
    known, _ = survey.run_survey(get_rules("falling-star"), 1, 40, jobs=2, max_seconds=0.001, store=store)
    assert sorted(known) == sorted(store.range(get_rules("falling-star"), 1, 40)) == list(range(1, 41))
    assert len(handed) == 8, len(handed)


@pytest.mark.parametrize("jobs", [0, -3, 257, 10**6, 2.5, True, "2"])
def test_a_pool_of_no_whole_number_of_workers_is_refused_before_anything_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: object) -> None:
    """run_survey took jobs=0 or -3 as one process, 2.5 failed inside
    multiprocessing ('float' object cannot be interpreted as an integer)
    after the store was read, and a million started a process per deal
    beyond MAX_WORKERS, the bound terrace survey --jobs keeps."""
    def play(*args: object) -> None:
        raise AssertionError("a deal was played")

    monkeypatch.setattr(survey, "play_deal", play)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    with pytest.raises(ValueError, match=r"^jobs must be a whole number of worker processes from 1 to 256, "):
        survey.run_survey(get_rules("falling-star"), 1, 3, jobs=jobs, max_seconds=0.01,  # type: ignore[arg-type]
                          store=store)
    assert store.is_empty()
    store.close()


@pytest.mark.parametrize("cluster", [False, True])
@pytest.mark.parametrize("rules", ["terrace", None])
def test_rules_that_are_no_rules_are_refused_by_name(tmp_path: Path, rules: object, cluster: bool) -> None:
    """run_survey("terrace", ...) failed with "'str' object has no attribute
    'as_played'" (an AttributeError from deep inside), and so did
    run_cluster_survey; each is a TypeError that says what to pass, before
    the store (or a cluster) is touched."""
    from terrace.solver.cluster import run_cluster_survey

    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    with pytest.raises(TypeError, match=r"^rules must be a Rules \(for a preset: terrace.get_rules"):
        if cluster:
            run_cluster_survey(rules, 1, 3, scheduler="local:1", max_seconds=0.01,  # type: ignore[arg-type]
                               store=store)
        else:
            survey.run_survey(rules, 1, 3, jobs=1, max_seconds=0.01, store=store)  # type: ignore[arg-type]
    assert store.is_empty()
    store.close()


def test_a_survey_on_a_machine_of_more_cores_than_its_worker_limit_runs_that_many(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """terrace survey without --jobs started a worker per core, 300 on a
    machine of 300, beyond MAX_WORKERS (256), the bound --jobs keeps."""
    from terrace.cli import solver

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(300)), raising=False)
    assert solver._held_to_cores(None, None) == (local_pool.MAX_WORKERS, None)


def test_multiprocessing_pools_private_names_are_as_the_local_pool_was_written_for() -> None:
    """The local pool's hang fix (its workers put a whole result before
    SIGTERM ends them, and its stop ends them before their results' reader)
    runs through private names of multiprocessing.pool, read in CPython
    3.11-3.13 (local_pool.STDLIB_READ). A Python that changed them would run
    the workers without the fix, or stop the pool half way, and a survey
    could hang: this test says what changed instead."""
    changed = local_pool.pool_internals_changed()
    read = ", ".join(".".join(map(str, version)) for version in local_pool.STDLIB_READ)
    assert not changed, (
        f"multiprocessing.pool of Python {sys.version.split()[0]} is not as in CPython {read}, which "
        "src/terrace/solver/pool.py (_BoundedPool, _bounded_worker, _WholeResults) was written for: "
        "it expects " + "; ".join(changed) + ". Read this Python's multiprocessing/pool.py, bring the "
        "local pool in line with it and add the version to STDLIB_READ.")


def test_the_check_of_the_pools_private_names_sees_each_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each private name the local pool uses, changed, is named by the check."""
    import multiprocessing.pool as stdlib_pool

    def terminate(cls: Any, taskqueue: Any, inqueue: Any, outqueue: Any, pool: Any, change_notifier: Any,
                  worker_handler: Any, task_handler: Any, result_handler: Any, cache: Any,
                  more: Any) -> None:
        raise AssertionError("never called")

    monkeypatch.setattr(stdlib_pool.Pool, "_terminate_pool", classmethod(terminate))
    monkeypatch.setattr(stdlib_pool.Pool, "_help_stuff_finish", staticmethod(lambda inqueue, handler: None))
    monkeypatch.delattr(stdlib_pool, "TERMINATE")
    monkeypatch.setattr(stdlib_pool, "worker", lambda tasks, results: None)
    changed = local_pool.pool_internals_changed()
    assert [line.split("(")[0].split(",")[0] for line in changed] == [
        "worker", "worker takes its tasks by inqueue.get and puts its results by outqueue.put", "TERMINATE",
        "Pool._terminate_pool", "Pool._help_stuff_finish"]
