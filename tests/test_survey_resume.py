"""Surveys resumed as a researcher resumes them for days: stored verdicts
of other budgets, other players, other solver versions; the edges of deal
ranges and budgets."""

from __future__ import annotations

from pathlib import Path

import pytest

from terrace.solver.players import player_key
from terrace.solver.survey import run_survey
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.variants import get_rules


@pytest.mark.parametrize("player", ["perfect", "greedy"])
def test_a_resume_never_solves_a_final_verdict_or_a_longer_unknown_again(tmp_path: Path, player: str) -> None:
    """A ``won`` stored by a survey with 10 s per deal (found after 2.5 s)
    was solved again by every resume at 0.3 s: the store kept the win (an
    unknown never replaces it), so the next resume solved it again, for
    ever. A ``won`` or ``lost`` is final whatever the budget; an
    ``unknown`` of a larger or equal budget is what this budget would give
    too: none of them is solved again, and the store is unchanged."""
    rules = get_rules("falling-star")
    key = player_key(player)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    stored = {1: Verdict("won", 10**6, 2.5, 10.0, "(found with 10 s)"), 2: Verdict("lost", 10**6, 3.0, 10.0),
              3: Verdict("unknown", 10**6, 10.0, 10.0), 4: Verdict("unknown", 10**5, 0.3, 0.3),
              5: Verdict("won", 99, 0.01, 10.0, "(quick)")}
    store.put_many(rules, stored, key)
    solved: list[int] = []
    for _ in range(2):  # (two resumes: neither solves anything)
        verdicts, _ = run_survey(rules, 1, 5, jobs=1, max_seconds=0.3, store=store, player=player,
                                 on_result=lambda number, verdict: solved.append(number))
        assert solved == []
        assert {n: v.result for n, v in verdicts.items()} == {n: v.result for n, v in stored.items()}
        assert max(v.seconds for v in verdicts.values()) <= 0.3  # (what each costs at this budget)
    assert store.range(rules, 1, 5, key) == stored
    store.close()


def test_the_survey_benchmark_counts_the_cpu_time_of_the_local_pools_workers(tmp_path: Path) -> None:
    """``bench/survey.py`` read the local pool's CPU time as that of this
    process's children, but the pool's workers are children of the fork
    server: its "local CPU s/deal" was a few thousandths of a second for
    deals of a second (Admiral's Patience, 6 deals at 0.3 s: 0.015 s
    counted for 1.5 s of solving), and its "CPU overhead" of the cluster
    was made up. The same deals cost about as much CPU in a pool of two
    workers as in this process alone."""
    import importlib.util

    where = Path(__file__).parent.parent / "bench" / "survey.py"
    spec = importlib.util.spec_from_file_location("bench_survey", where)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rules = get_rules("empress-of-italy")  # (deals of a few tenths of a second, decided well within 5 s)
    spent = []
    for jobs in (1, 2):
        store = VerdictStore(str(tmp_path / f"{jobs}.sqlite3"))
        before = bench.children_cpu()
        verdicts, _ = run_survey(rules, 1, 8, jobs=jobs, max_seconds=5.0, store=store)
        spent.append(bench.children_cpu() - before)
        store.close()
        assert all(verdict.result != "unknown" for verdict in verdicts.values())  # (the same work each time)
    alone, pooled = spent
    assert pooled >= 0.5 * alone, spent
