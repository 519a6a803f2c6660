"""A survey stores its verdicts in groups (one transaction, a few fsyncs,
for up to GROUP_VERDICTS of them): what that saves, and what a SIGKILL
can lose then."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from terrace.rules import Rules
from terrace.solver import survey
from terrace.solver.verdicts import Verdict, VerdictStore

ROOT = Path(__file__).resolve().parent.parent


def test_a_survey_at_a_tiny_budget_stores_its_verdicts_in_groups(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Each verdict was one transaction (about four fsyncs): at 0.001 s per
    deal a survey waited mostly for the disk (31 deals a second measured
    at load ~16). A thousand deals are now a handful of transactions, and
    every verdict is stored and counted all the same."""
    def play(rules: Rules, number: int, *rest: Any) -> Verdict:
        return Verdict("won" if number % 3 else "lost", number, 0.0005, 0.001)

    monkeypatch.setattr(survey, "play_deal", play)
    transactions = []
    put_many = VerdictStore.put_many

    def counting(self: VerdictStore, *args: Any, **kwargs: Any) -> dict[int, Verdict]:
        transactions.append(len(args[1]))
        return put_many(self, *args, **kwargs)

    monkeypatch.setattr(VerdictStore, "put_many", counting)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    heard: list[int] = []
    started = time.monotonic()
    verdicts, _ = survey.run_survey(Rules(), 1, 1000, jobs=1, max_seconds=0.001, store=store,
                                    on_result=lambda number, verdict: heard.append(number))
    elapsed = time.monotonic() - started
    assert sum(transactions) == 1000 and sorted(heard) == list(range(1, 1001))
    # (a group is stored when full, or once held GROUP_SECONDS)
    assert len(transactions) <= 1000 / survey.GROUP_VERDICTS + elapsed / survey.GROUP_SECONDS + 1
    stored = store.range(Rules(), 1, 1000)
    store.close()
    assert stored == verdicts and len(stored) == 1000


def test_a_deal_with_a_long_budget_is_stored_as_it_comes(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """At a budget of GROUP_SECONDS or more, a verdict held for the next
    deal's would be held that long: each is stored as it comes."""
    monkeypatch.setattr(survey, "play_deal", lambda rules, number, *rest: Verdict("won", 1, 0.1, 1.0))
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    stored_then: list[int] = []
    survey.run_survey(Rules(), 1, 3, jobs=1, max_seconds=survey.GROUP_SECONDS, store=store,
                      on_result=lambda number, verdict: stored_then.append(len(store.range(Rules(), 1, 3))))
    store.close()
    assert stored_then == [1, 2, 3]


def test_a_group_held_while_the_workers_search_is_stored_after_group_seconds(tmp_path: Path) -> None:
    """The pool's survey waits for its workers in steps of WATCH_SECONDS:
    at each one a group held for GROUP_SECONDS is stored (a worker may
    search its next deal for a while)."""
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    known: dict[int, Verdict] = {}
    group = survey._Group(store, Rules(), "perfect", 0.01, True, known, None)
    group.add(5, Verdict("won", 1, 0.01, 0.01, "c1"))
    stops = []
    wait = group.waiting(lambda: stops.append(1))
    wait()
    assert stops == [1] and store.range(Rules(), 1, 9) == {} and known == {}  # (not yet due)
    group.since -= survey.GROUP_SECONDS
    wait()
    assert sorted(store.range(Rules(), 1, 9)) == [5] and sorted(known) == [5]
    store.close()


KILLED_SURVEY = """
import os, signal, sys
from terrace.solver import survey
from terrace.solver.verdicts import VerdictStore
from terrace.variants import get_rules

found = 0
run_job = survey.run_job

def counting(job):
    global found
    result = run_job(job)
    found += 1
    print(result[0], flush=True)
    if found == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)  # (this one's verdict found, never handed back)
    return result

survey.run_job = counting
survey.run_survey(get_rules("terrace"), 1, 400, jobs=1, max_seconds=0.2, store=VerdictStore(sys.argv[1]))
"""


def test_a_survey_killed_outright_loses_at_most_one_group_and_its_resume_solves_it_again(
        tmp_path: Path) -> None:
    """SIGKILL (the out-of-memory killer, a batch system's hard stop) loses
    the verdicts not stored yet: at most one group. The same survey run
    again solves those deals, and no others, and its figures are the
    file's."""
    path = tmp_path / "v.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    killed = subprocess.run([sys.executable, "-c", KILLED_SURVEY, str(path), "250"], capture_output=True,
                            text=True, env=env, timeout=600)
    assert killed.returncode == -9, killed.stderr[-2000:]
    found = [int(line) for line in killed.stdout.split()]
    assert len(found) == 250
    db = sqlite3.connect(path)
    stored = {row[0] for row in db.execute("SELECT deal FROM verdicts")}
    db.close()
    assert stored <= set(found[:-1])  # (the last was never handed back)
    assert len(found) - 1 - len(stored) <= survey.GROUP_VERDICTS
    resumed = subprocess.run([sys.executable, "-m", "terrace", "survey", "--deals", "1-400", "--max-seconds",
                              "0.2", "--jobs", "1", "--json", "--verdicts-db", str(path)],
                             capture_output=True, text=True, env=env, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    taken = re.search(r"([0-9]+) of the 400 verdicts (?:was|were) taken as stored", resumed.stderr)
    assert (int(taken.group(1)) if taken else 0) == len(stored)
    report = json.loads(resumed.stdout)
    db = sqlite3.connect(path)
    counts = dict(db.execute("SELECT result, count(*) FROM verdicts GROUP BY result").fetchall())
    db.close()
    assert report["deals"] == 400 == sum(counts.values())
    assert {name: report[name] for name in ("won", "lost", "unknown")} == {
        name: counts.get(name, 0) for name in ("won", "lost", "unknown")}


@pytest.mark.parametrize("fault", ["full", "read-only"])
def test_a_survey_that_cannot_store_its_verdicts_says_where_they_stand(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       fault: str) -> None:
    """A disk that filled up (or a cache that can only be read) mid-survey
    ended it with the store's error alone ("Error: v.sqlite3: the verdicts
    could not be stored (database or disk is full)"): nothing said whether
    the hours of verdicts before were kept, or how to go on. It says so as
    after a stop or a worker's death, the count being the file's rows."""
    from click.testing import CliRunner

    from terrace.cli import main

    path = tmp_path / "v.sqlite3"
    VerdictStore(str(path)).close()  # (made before: a store this run made and left empty is deleted)
    monkeypatch.setattr(survey, "play_deal",
                        lambda rules, number, *rest: Verdict("won", number, 0.0005, 0.001))
    opened = VerdictStore.__init__

    def tight(self: VerdictStore, *args: Any, **kwargs: Any) -> None:
        opened(self, *args, **kwargs)
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        if fault == "full":  # (SQLite's own "database or disk is full", a few hundred rows on)
            self._db.execute(f"PRAGMA max_page_count = {pages + 40}")
        else:
            self._db.execute("PRAGMA query_only = ON")

    monkeypatch.setattr(VerdictStore, "__init__", tight)
    result = CliRunner().invoke(main, ["survey", "--deals", "1-3000", "--max-seconds", "0.001", "--jobs", "1",
                                       "--verdicts-db", str(path), "--json"])
    assert result.exit_code == 1, result.output
    db = sqlite3.connect(path)
    rows = db.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    db.close()
    assert "the verdicts could not be stored" in result.stderr
    if fault == "full":
        assert 0 < rows < 3000
        assert (f"the {rows:,} deals solved in this run are stored in {path}; the same command goes on "
                "from there") in result.stderr, result.stderr
    else:
        assert rows == 0
        assert (f"no verdict of this run could be stored, and {path} is as it was; the same command goes on "
                "from there") in result.stderr, result.stderr


def test_a_survey_over_a_store_it_cannot_write_solves_nothing(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache that can only be read (a read-only disk: here SQLite's
    query_only) was found out at the first verdict stored, after that deal's
    whole budget (a fair player's: 30 minutes per worker), or a group of
    200. The survey, local or on a cluster, now refuses it before it
    solves a deal or reaches the cluster; a read-only cache that settles
    every deal of the range is still read."""
    from terrace.solver import cluster
    from terrace.solver.verdicts import VerdictCacheError

    played: list[int] = []

    def play(rules: Rules, number: int, *rest: Any) -> Verdict:
        played.append(number)
        return Verdict("won", number, 1.0, 2.0)

    def no_cluster(scheduler: str) -> Any:
        raise AssertionError("the cluster was reached")

    monkeypatch.setattr(survey, "play_deal", play)
    monkeypatch.setattr(cluster, "connect", no_cluster)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    store.put(Rules(), 1, Verdict("won", 1, 1.0, 2.0))
    store._db.execute("PRAGMA query_only = ON")
    for run in (partial(survey.run_survey, jobs=1), partial(cluster.run_cluster_survey, scheduler="local:1")):
        with pytest.raises(VerdictCacheError, match=r"could not be stored \(attempt to write a readonly"):
            run(Rules(), 1, 3, max_seconds=2.0, store=store)
        assert played == []
    known, _ = survey.run_survey(Rules(), 1, 1, jobs=1, max_seconds=2.0, store=store)
    assert list(known) == [1]
    store.close()


def test_a_winnable_deal_is_not_sought_over_a_store_it_cannot_write(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """deal --winnable (and the web game's search) over a cache that can
    only be read solved each deal it had no verdict for, then failed to
    store it and ended: the search's time spent for nothing. It is said
    before the search now; a verdict the cache holds is still read."""
    from terrace.solver import winnable
    from terrace.solver.verdicts import VerdictCacheError

    searched: list[Any] = []

    def solve(board: Any, **budget: Any) -> Any:
        searched.append(board)
        return SimpleNamespace(result="won", nodes=1, seconds=1.0, moves=[], reason="")

    monkeypatch.setattr(winnable, "solve", solve)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    store.put(Rules(), 1, Verdict("won", 1, 1.0, 2.0))
    store._db.execute("PRAGMA query_only = ON")
    assert winnable.verdict_for(Rules(), 1, store, 2.0).result == "won"
    with pytest.raises(VerdictCacheError, match=r"could not be stored \(attempt to write a readonly"):
        winnable.verdict_for(Rules(), 2, store, 2.0)
    assert searched == []
    store.close()


def test_a_second_ctrl_c_as_a_group_is_stored_waits_until_it_is_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+C twice as a group of verdicts was being stored (--jobs 1, whose
    stops are taken at once): the second stopped the survey between the
    store's commit and the count, so it said fewer deals stored than its
    file held."""
    from stop_support import ctrl_c_twice_as_verdicts_are_stored

    monkeypatch.setattr(survey, "play_deal", lambda rules, number, *rest: Verdict("won", 1, 0.0005, 0.001))
    monkeypatch.setattr(survey, "GROUP_VERDICTS", 3)
    ctrl_c_twice_as_verdicts_are_stored(monkeypatch)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    counted: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        survey.run_survey(Rules(), 1, 40, jobs=1, max_seconds=0.001, store=store,
                          on_result=lambda number, verdict: counted.append(number))
    assert sorted(counted) == sorted(store.range(Rules(), 1, 40))
    assert counted
    store.close()
