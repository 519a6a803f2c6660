"""The local survey's pool of workers: a worker lives as long as its memory
stays under the bound, not for a fixed number of deals."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest

from terrace.solver import survey
from terrace.solver.verdicts import VerdictStore
from terrace.variants import get_rules


def _pids(pool: object, tasks: int) -> list[int]:
    """The process id of the worker that ran each of ``tasks`` tasks, one
    task at a time (as the survey hands out its deals)."""
    try:
        return list(pool.starmap(os.getpid, [()] * tasks, chunksize=1))  # type: ignore[attr-defined]
    finally:
        survey._stop_pool(pool)


def test_a_worker_under_the_memory_bound_is_not_restarted() -> None:
    """120 tiny tasks on two workers start no third: the pool restarted each
    worker after 50 deals (3 processes here), a process start per 50 deals,
    which at 0.001 s a deal made --jobs 2 slower than --jobs 1."""
    pids = _pids(survey._start_pool(2), 120)
    assert len(pids) == 120
    assert len(set(pids)) <= 2


def test_a_worker_past_the_memory_bound_is_replaced_after_its_deal() -> None:
    """A bound of 1 kB, which every worker passes: each ends after one task
    (it takes its first whatever it holds, else it would be replaced for
    ever), and the pool runs every task on a fresh one."""
    pids = _pids(survey._start_pool(2, memory_kb=1), 12)
    assert len(pids) == 12
    assert len(set(pids)) == 12


def test_a_survey_whose_workers_are_replaced_finishes(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that ends for its memory ends well (exit code 0): the
    survey does not take it for a dead one, and loses no deal."""
    monkeypatch.setattr(survey, "_start_pool", partial(survey._start_pool, memory_kb=1))
    rules = get_rules("falling-star")
    known, _ = survey.run_survey(rules, 1, 10, jobs=2, max_seconds=0.01,
                                 store=VerdictStore(tmp_path / "v.sqlite3"))
    assert sorted(known) == list(range(1, 11))

