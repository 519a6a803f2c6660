"""Surveys attacked as a researcher running long ones: workers that freeze,
stops at awkward moments, the report's figures against a hand computation."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench_support import Done, run_scripts
from terrace.solver.players import player_key
from terrace.solver.verdicts import VerdictStore
from terrace.variants import get_rules

ROOT = Path(__file__).resolve().parent.parent

FROZEN_SURVEY = """
import json, multiprocessing, os, signal, sys
from terrace.rules import Rules
from terrace.solver import survey
from terrace.solver import pool as local_pool
from terrace.solver.verdicts import VerdictStore
from terrace.variants import get_rules

frozen = []

def on_result(number, verdict):
    print(json.dumps(["result", number]), flush=True)

add = survey._Group.add

def found(group, number, verdict):
    add(group, number, verdict)
    # (the first verdict in, stored or held in its group: freeze the workers, SIGSTOP as a debugger does)
    if not frozen:
        local_pool.STALL_SLACK = 1.0  # (the product waits a minute beyond the budget)
        for worker in multiprocessing.active_children():
            if "PoolWorker" in worker.name:
                os.kill(worker.pid, signal.SIGSTOP)
                frozen.append(worker.pid)
                print(json.dumps(["frozen", worker.pid]), flush=True)

survey._Group.add = found

if __name__ == "__main__":
    store = VerdictStore(sys.argv[1])
    try:
        # (Admiral's Patience: its deals take their whole 0.2 s, so the workers are busy when
        # frozen; Terrace's took milliseconds, and a loaded machine let them finish all 12 first)
        survey.run_survey(get_rules("admirals-patience"), 1, 12, jobs=2, max_seconds=0.2, store=store,
                          on_result=on_result)
        print(json.dumps(["finished"]), flush=True)
    except survey.WorkerDiedError as error:
        print(json.dumps(["error", str(error)]), flush=True)
    for pid in frozen:
        try:
            os.kill(pid, 0)
            print(json.dumps(["frozen worker still there"]), flush=True)
        except ProcessLookupError:
            pass
"""


DUMPS_ON_SIGUSR1 = "import faulthandler, signal; faulthandler.register(signal.SIGUSR1, all_threads=True)\n"
"""Put before each script: SIGUSR1 makes it (and the workers it forks)
write every thread's stack to standard error."""


def _run(script: str, *args: str, timeout: float) -> list[list[object]]:
    """Run ``script`` in its own session; its JSON lines (the whole session
    killed if it overruns ``timeout``, which is then the failure, with the
    stacks of the script's threads and of its forked workers, which
    SIGUSR1 made them write first). The timeouts are 240 s, but the 300 s
    of a whole command: a hang is for ever, and 90 s of wall clock was a
    few seconds of CPU at load 30-60 (stop 70)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}"}
    process = subprocess.Popen([sys.executable, "-c", DUMPS_ON_SIGUSR1 + script, *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGUSR1)
            time.sleep(3)
            os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"still waiting after {timeout} s:\n{out}\n{err[-12000:]}")
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("[")]
    for kind, *rest in lines:  # (a frozen worker left behind: killed)
        if kind == "frozen":
            for sig in (signal.SIGKILL, signal.SIGCONT):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(str(rest[0])), sig)
    return lines


def test_a_frozen_local_worker_ends_the_survey_within_its_budget_and_loses_no_verdict(tmp_path: Path) -> None:
    """Workers of the local pool that stopped (SIGSTOP) without dying held
    their deals for ever: the survey, 0.2 s per deal, waited for ever (the
    dead-worker watch sees only exit codes), and so did its teardown after
    the last verdict (a stopped worker keeps the pool's SIGTERM pending, and
    the lock of its task queue). Now no verdict for twice the budget and a
    slack ends it with a clear message, the frozen workers end with it, and
    every verdict reported is stored, none other."""
    path = tmp_path / "v.sqlite3"
    lines = _run(FROZEN_SURVEY, str(path), timeout=240)
    kinds = [line[0] for line in lines]
    assert "frozen" in kinds, lines
    errors = [line[1] for line in lines if line[0] == "error"]
    assert errors and "frozen" in str(errors[0]) and "0.2 s" in str(errors[0]), lines
    assert "frozen worker still there" not in kinds, "the frozen worker outlived the survey"
    reported = {line[1] for line in lines if line[0] == "result"}
    store = VerdictStore(str(path))
    try:
        stored = store.range(get_rules("admirals-patience"), 1, 12, player_key("perfect"))
    finally:
        store.close()
    assert set(stored) == reported and len(reported) < 12


def test_the_watch_counts_its_own_waits_not_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stall is counted in waits that came back empty, so a survey
    suspended (Ctrl+Z) for longer than the limit is not taken for frozen;
    a verdict starts the count again."""
    import multiprocessing
    from types import SimpleNamespace

    from terrace.solver import pool as local_pool
    from terrace.solver import survey

    monkeypatch.setattr(local_pool, "STALL_SLACK", 1.0)

    class Results:  # two empty waits, a verdict, then empty waits for ever
        calls = 0

        def next(self, timeout: float) -> object:
            self.calls += 1
            if self.calls == 3:
                return (1, "v", 0)
            raise multiprocessing.TimeoutError

    results = Results()
    watched = survey.watched(SimpleNamespace(_pool=[]), results, 0.25)
    assert next(watched) == (1, "v", 0)
    with pytest.raises(survey.WorkerDiedError, match=r"for 2 s, far beyond the budget of 0\.25 s"):
        next(watched)
    assert results.calls == 3 + 4  # (1.5 s of waiting allowed: the fourth empty wait passes it)


STOPPED_AS_POOL_STARTS = """
import json, multiprocessing, signal, sys
from terrace.rules import Rules
from terrace.solver import survey
from terrace.solver.verdicts import VerdictStore

real = survey.start_pool

def start_then_stopped(workers):
    pool = real(workers)
    signal.raise_signal(getattr(signal, sys.argv[2]))  # the stop, just as the pool has started
    return pool

def stop(signum, frame):
    raise KeyboardInterrupt

survey.start_pool = start_then_stopped

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, stop)  # (as the command line takes it)
    store = VerdictStore(sys.argv[1])
    try:
        survey.run_survey(Rules(), 1, 40, jobs=2, max_seconds=0.2, store=store)
        print(json.dumps(["finished"]))
    except KeyboardInterrupt:
        alive = [p.pid for p in multiprocessing.active_children() if "PoolWorker" in p.name and p.is_alive()]
        print(json.dumps(["stopped", alive]))
"""


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_a_stop_as_the_local_pool_starts_stops_its_workers(tmp_path: Path, stop: str) -> None:
    """Ctrl+C (or SIGTERM) while the pool's workers started reached no
    ``finally``: the pool was made before the survey's ``try``, and
    ``Pool()`` cleans up only on an ``Exception``. Its workers were never
    stopped, and one still starting as the survey ended printed a 12-line
    ``FileNotFoundError`` traceback after the survey's "stopped" line (the
    pool's semaphores gone; 2 of 6 Ctrl+C about 1.5 s into a survey on a
    loaded machine). The stop now takes effect once the pool is made, and
    the pool is stopped with the survey."""
    lines = _run(STOPPED_AS_POOL_STARTS, str(tmp_path / "v.sqlite3"), stop, timeout=240)
    assert lines == [["stopped", []]]


SURVEY_REFUSALS = [
    (["--deals", "5-1"], "argument --deals: 5-1 is not a range of deal numbers (its first comes after"),
    (["--deals", "١-٣"], "argument --deals: '١-٣' is not a range of deal numbers"),
    (["--deals", "1-99999999999"], "one survey covers at most 1,000,000"),
    (["--workers", "0"], "argument --workers: 0 is not in the range 1 to 256"),
    (["--workers", "-3"], "argument --workers: -3 is not in the range 1 to 256"),
    (["--repeats", "0"], "argument --repeats: 0 is not in the range 1 to"),
    (["--variants", "nope"], "unknown variant 'nope'"),
    (["--players", "xyz"], "unknown player 'xyz'"),
    (["--samples", "0"], "argument --samples: 0 is not in the range"),
    (["--samples", "8"], "--samples is for the fair player"),
]

FAIR_REFUSALS = [
    (["--set", "foo=1"], "unknown fair-player setting 'foo'"),
    (["--set", "samples=3"], "--set samples: give the values of K with --samples"),
    (["--variant", "nope"], "unknown variant 'nope'"),
    (["--deals", "x"], "argument --deals: 'x' is not a range of deal numbers"),
    (["--deals", "1-99999999999"], "one survey covers at most 1,000,000"),
    (["--samples", "4,x"], "argument --samples: K = 'x' is not a whole number"),
    (["--samples", "0"], "argument --samples: K = 0 is not in the range 1 to 4096"),
    (["--jobs", "0"], "argument --jobs: 0 is not in the range 1 to 256"),
    (["--baselines", "greedy,fair"], "--baselines: 'fair' is not one of perfect, greedy, random"),
]


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Done]]:
    """The runs of both tables below, in one process (bench_support), keyed
    by the script and the arguments; each fair.py run has its own database
    path in the folder returned."""
    folder = tmp_path_factory.mktemp("refused")
    runs = [(f"survey {args}", ["survey.py", "--backends", "local", "--max-seconds", "0.05", *args])
            for args, _ in SURVEY_REFUSALS]
    quick = ["--deals", "1", "--baselines", "", "--samples", "1", "--budget", "0.05",
             "--perfect-seconds", "0.05"]
    runs += [(f"fair {args}", ["fair.py", *quick, "--db", str(folder / f"{n}.sqlite3"), *args])
             for n, (args, _) in enumerate(FAIR_REFUSALS)]
    return folder, run_scripts(runs)


def _refused_in_one_line(done: Done, said: str) -> None:
    """A benchmark's run refused as a usage error: status 2, ``said`` on
    standard error, no traceback, nothing printed."""
    assert done.returncode == 2, (done.stdout[-1000:], done.stderr[-2000:])
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stdout == ""


@pytest.mark.parametrize(("args", "said"), SURVEY_REFUSALS)
def test_the_survey_benchmark_refuses_bad_options_in_one_line(
        args: list[str], said: str, refused: tuple[Path, dict[str, Done]]) -> None:
    """``bench/survey.py`` ended a range such as ``5-1``, an unknown preset
    or player, or ``--samples`` without the fair player in a traceback;
    ``--workers 0`` or ``-3`` and ``--repeats 0`` printed a row of made-up
    figures (0 deals, "-3 worker processes"), and ``--deals 1-99999999999``
    set off a survey of 10^11 deals. Each is now a usage error, status 2,
    before anything runs."""
    _refused_in_one_line(refused[1][f"survey {args}"], said)


@pytest.mark.parametrize(("args", "said"), FAIR_REFUSALS)
def test_the_fair_benchmark_refuses_bad_options_in_one_line(
        args: list[str], said: str, refused: tuple[Path, dict[str, Done]]) -> None:
    """``bench/fair.py`` ended an unknown preset or setting, a range or a K
    it could not read in a traceback (``--set`` only after the baselines
    had played their deals), played ``--jobs 0`` in one process, took
    ``--set samples=3`` and played the K of ``--samples`` instead, and
    played ``--baselines fair`` with the fair player's settings left out
    of its row. Each is now a usage error, status 2, before anything runs."""
    folder, runs = refused
    _refused_in_one_line(runs[f"fair {args}"], said)
    assert not (folder / f"{[a for a, _ in FAIR_REFUSALS].index(args)}.sqlite3").exists()


STOPPED_AT_EACH_POINT = """
import json, os, signal, sys, threading
from multiprocessing import forkserver, resource_tracker
from terrace.rules import Rules
from terrace.solver import survey
from terrace.solver.verdicts import VerdictStore

calls = target = ended = 0
window = []
reported = []

def profile(frame, event, arg):
    # counts the calls of Python functions in this thread; the stop comes at the target-th
    global calls, ended
    if event == "call":
        calls += 1
        if calls == target:
            os.kill(os.getpid(), signal.SIGINT)
        if frame.f_code is survey.start_pool.__code__:
            window.append(calls)
    elif event == "return" and frame.f_code is survey.start_pool.__code__:
        window.append(calls)
    elif event == "return" and frame.f_code is survey.run_survey.__code__:
        ended = calls  # (a stop after this one came once the survey had ended)

def left_behind(server):
    # processes alive (not zombies) whose parent is this one or the fork server (when it
    # started the workers), but for the fork server and the resource tracker, which end
    # with this process
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[1]) in (os.getpid(), server):
                found.append(int(entry))
    return sorted(set(found) - {server, resource_tracker._resource_tracker._pid, None})

def run(path, point):
    global calls, target, ended
    forkserver._forkserver._stop()  # (a fresh fork server each time: its start is what is stopped)
    calls, target, ended = 0, point, 0
    window.clear()
    reported.clear()
    store = VerdictStore(path)
    sys.setprofile(profile)
    try:
        survey.run_survey(Rules(), 1, 6, jobs=2, max_seconds=0.05, store=store,
                          on_result=lambda number, verdict: reported.append(number))
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "stopped"
    finally:
        sys.setprofile(None)
    stored = sorted(store.range(Rules(), 1, 6))
    store.close()
    reached = outcome == "stopped" or point <= ended
    return [outcome, reached, sorted(reported) == stored, left_behind(forkserver._forkserver._forkserver_pid)]

if __name__ == "__main__":
    folder, count, start = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if start == "forkserver":  # (a thread of this program's own: no worker is forked from here)
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    run(os.path.join(folder, "warm.sqlite3"), 0)  # (the resource tracker started, as on later runs)
    run(os.path.join(folder, "calibrate.sqlite3"), 0)
    low, high, total = window[0], window[-1], ended
    points = sorted({*range(low, high + 1, max(1, (high - low) // count)),  # (the pool's start)
                     *range(1, total, max(1, total // 4))})
    for point in points:
        print(json.dumps([point, *run(os.path.join(folder, f"{point}.sqlite3"), point)]), flush=True)
"""


@pytest.mark.parametrize("start", ["fork", "forkserver"])
def test_a_stop_at_any_moment_of_the_start_stops_the_survey(tmp_path: Path, start: str) -> None:
    """Ctrl+C while the fork server was being started was lost (SIGINT was
    ignored meanwhile, so that the server would inherit that) and the
    survey ran to its end; one that reached Python inside a finalizer run
    at that moment (``Exception ignored in: <Finalize object>``) was lost
    too. The stop is sent at points of the pool's start counted in Python
    calls (the workers forked from the survey's process, or, in a program
    with a thread of its own, started by the fork server): each stops the
    survey, every verdict reported is stored, and no worker is left."""
    lines = _run(STOPPED_AT_EACH_POINT, str(tmp_path), "6", start, timeout=240)
    reached = [line for line in lines if line[2]]
    assert len(reached) >= 6, lines
    for point, outcome, _, same, left in reached:
        assert outcome == "stopped", f"the stop at call {point} was lost: {lines}"
        assert same and left == [], lines


STOPPED_IN_A_CALL = """
import json, os, signal, sys, threading
from multiprocessing import util
from terrace.rules import Rules
from terrace.solver import survey
from terrace.solver import pool as local_pool
from terrace.solver.verdicts import VerdictStore

sent = []
reported = []
# the stop, as the watch forgets a worker that ended well (the pool's finalizer of its pipes
# runs), or as the wait for the next verdict takes its lock back (a threading.Condition)
TARGET = {"finalizer": util.close_fds, "wait": threading.Condition._acquire_restore}[sys.argv[2]]

def profile(frame, event, arg):
    if event == "call" and frame.f_code is TARGET.__code__ and not sent and len(reported) >= 2:
        caller = frame.f_back
        while caller is not None and caller.f_code is not survey.watched.__code__:
            caller = caller.f_back
        if caller is not None:
            sent.append(len(reported))
            os.kill(os.getpid(), signal.SIGINT)

def start_pool(workers):  # (a worker replaced after 2 deals, not 50)
    context = local_pool._worker_context()
    return context.Pool(workers, initializer=local_pool._start_worker, maxtasksperchild=2)

if __name__ == "__main__":
    survey.start_pool = start_pool
    survey.GROUP_VERDICTS = 1  # (each verdict stored and reported as it comes, while workers are replaced)
    store = VerdictStore(sys.argv[1])
    sys.setprofile(profile)
    try:
        survey.run_survey(Rules(), 1, 30, jobs=2, max_seconds=0.02, store=store,
                          on_result=lambda number, verdict: reported.append(number))
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "stopped"
    except Exception as error:
        outcome = repr(error)
    finally:
        sys.setprofile(None)
    print(json.dumps([outcome, sent, len(reported), sorted(reported) == sorted(store.range(Rules(), 1, 30))]))
"""


@pytest.mark.parametrize("where", ["finalizer", "wait"])
def test_a_stop_in_a_finalizer_or_a_wait_still_stops_the_survey(tmp_path: Path, where: str) -> None:
    """A Ctrl+C whose KeyboardInterrupt was raised while Python ran a
    finalizer (the watch lets go of a worker the pool replaced, and
    multiprocessing closes its pipes) was printed as ``Exception ignored
    in: <Finalize object, dead>`` and the survey went on to its end; one
    raised as the wait for the next verdict took its lock back ended the
    survey in ``RuntimeError: release unlocked lock`` (or left the lock
    taken: the survey hung). Either now stops the survey within a wait,
    every verdict so far kept."""
    lines = _run(STOPPED_IN_A_CALL, str(tmp_path / "v.sqlite3"), where, timeout=240)
    assert len(lines) == 1, lines
    outcome, sent, done, same = lines[0]
    assert sent, "no stop was sent"
    assert outcome == "stopped" and same and done < 30, lines


def _stopped_after_three(calls: list[int]) -> object:
    """A stand-in for a deal's solving that stops the survey (as Ctrl+C
    does) at its fourth deal; the deals it was given are in ``calls``."""
    from terrace.solver.verdicts import Verdict

    def run(job: tuple[object, ...]) -> tuple[int, Verdict, int]:
        number = job[1]
        assert isinstance(number, int)
        calls.append(number)
        if len(calls) > 3:
            raise KeyboardInterrupt
        return number, Verdict("unknown", 1, 0.0, 0.001), 0

    return run


def test_a_million_deal_survey_makes_its_jobs_as_it_goes(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A survey of deals 1-1000000 made the job of every deal before the
    first ran: its process held 179 MB at once (`terrace survey --deals
    1-1000000 --max-seconds 0.001`, stopped after 25 s: peak RSS 179 MB;
    10^5 deals 56 MB, 10^4 43 MB). The jobs are made as they are taken:
    41 MB for each. Counted here with tracemalloc, the solving replaced by
    a stand-in that stops the survey at its fourth deal."""
    import tracemalloc

    from terrace.solver import survey

    calls: list[int] = []
    monkeypatch.setattr(survey, "run_job", _stopped_after_three(calls))
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    tracemalloc.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            survey.run_survey(get_rules("falling-star"), 1, 10**6, jobs=1, max_seconds=0.001, store=store)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert calls == [1, 2, 3, 4]
    assert sorted(store.range(get_rules("falling-star"), 1, 10**6)) == [1, 2, 3]
    assert peak < 10 * 2**20, peak
    store.close()


def test_a_million_deal_cluster_survey_makes_its_batches_as_it_sends_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cluster survey listed every batch of a million deals before it
    sent the first (about 150 MB in the client); it makes each as it sends
    it. The cluster is a stand-in here: its stream takes three batches."""
    import tracemalloc
    from contextlib import nullcontext

    from terrace.solver import cluster

    taken: list[list[int]] = []

    class Fleet:
        def __init__(self, *args: object) -> None:
            self.versions: dict[str, str] = {}

        def wait_for_workers(self) -> int:
            return 2

    def stream(client: object, fleet: object, batches: object, *args: object) -> int:
        for batch, _ in zip(batches, range(3), strict=False):  # type: ignore[call-overload]
            taken.append([job[1] for job in batch])
        return 0

    monkeypatch.setattr(cluster, "_distributed", lambda: None)
    monkeypatch.setattr(cluster, "connect", lambda scheduler: nullcontext(None))
    monkeypatch.setattr(cluster, "_Fleet", Fleet)
    monkeypatch.setattr(cluster, "_stream", stream)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    tracemalloc.start()
    try:
        cluster.run_cluster_survey(get_rules("falling-star"), 1, 10**6, scheduler="local:2",
                                   max_seconds=0.001, store=store)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert taken == [list(range(1, 33)), list(range(33, 65)), list(range(65, 97))]
    assert peak < 10 * 2**20, peak
    store.close()


def test_a_survey_on_an_ascii_terminal_writes_ascii_and_escapes_what_has_no_stand_in(tmp_path: Path) -> None:
    """PYTHONIOENCODING=ascii: click took the ASCII stream for
    misconfigured and wrote UTF-8 under it, so a terminal in ASCII got a
    folder named 'é' in the survey's "wrote ..." line as two bytes of
    mojibake. The survey writes ASCII: stand-ins, and escapes for the rest
    (with the stand-ins alone it ended in "'ascii' codec can't encode
    character", status 1, its table written)."""
    folder = tmp_path / "é"
    folder.mkdir()
    survey = ["survey", "-v", "falling-star", "--deals", "1-2", "--max-seconds", "0.05", "--jobs", "1",
              "--verdicts-db", str(tmp_path / "v.sqlite3"), "--out", str(folder)]
    ascii_terminal = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-m", "terrace", *survey], capture_output=True, timeout=300,
                          cwd=tmp_path, env=ascii_terminal)
    assert done.returncode == 0, done.stderr[-2000:]
    said = done.stdout.decode("ascii") + done.stderr.decode("ascii")
    assert "falling-star (perfect): 2 deals" in said
    assert f"wrote {tmp_path}/\\xe9/survey-falling-star-1-2-" in said, said


@pytest.mark.parametrize("code", [1, -int(signal.SIGKILL), -int(signal.SIGTERM)])
def test_a_worker_that_exited_with_an_error_or_was_killed_by_a_signal_is_said_to_have_died(code: int) -> None:
    """A pool worker's exit code is negative when a signal killed it (the
    kernel's out-of-memory killer sends SIGKILL): that is a death too, not
    the end of its share of deals; one that ended well (0) is forgotten."""
    from types import SimpleNamespace

    from terrace.solver import pool as local_pool
    from terrace.solver import survey

    ended_well = SimpleNamespace(_popen=SimpleNamespace(returncode=0))
    running: dict[int, object] = {1: ended_well, 2: SimpleNamespace(_popen=SimpleNamespace(returncode=None))}
    local_pool._none_died(running)
    assert list(running) == [2]
    running[3] = SimpleNamespace(_popen=SimpleNamespace(returncode=code))
    with pytest.raises(survey.WorkerDiedError, match=r"^a worker process died \(killed, or out of memory\)"):
        local_pool._none_died(running)


def test_a_survey_starts_no_more_workers_than_deals_left_to_play(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker costs a process start: two deals left and four jobs asked
    start two workers; one deal left starts none (it is played here)."""
    from terrace.rules import Rules
    from terrace.solver import survey

    started: list[int] = []
    real = survey.start_pool

    def counted(workers: int) -> object:
        started.append(workers)
        return real(workers)

    monkeypatch.setattr(survey, "start_pool", counted)
    store = VerdictStore(str(tmp_path / "v.db"))
    survey.run_survey(Rules(), 1, 2, jobs=4, max_seconds=0.02, store=store)
    assert started == [2]
    survey.run_survey(Rules(), 1, 3, jobs=4, max_seconds=0.02, store=store)
    assert started == [2]
    assert len(store.range(Rules(), 1, 3)) == 3
