"""Every budget of the library really stops: budgets that would never run
out are refused before any work (and before any file is made), and the
searches end near their budgets at the extremes of the rule options."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from terrace.rules import Rules
from terrace.solver.budget import check_budget
from terrace.solver.winnable import next_winnable_deal


@pytest.mark.parametrize("seconds", [10**400, -(10**400)], ids=["huge", "huge-negative"])
def test_a_whole_number_beyond_any_float_is_refused_as_a_budget(seconds: int) -> None:
    """It raised OverflowError (from math.isfinite), not the ValueError of
    every other budget that never runs out."""
    with pytest.raises(ValueError, match="finite number of seconds"):
        check_budget(seconds)


@pytest.mark.parametrize("budget", [
    {"total_seconds": float("nan")}, {"total_seconds": float("inf")}, {"total_seconds": -1.0},
    {"max_seconds": float("nan")}, {"max_seconds": float("inf")}, {"max_seconds": -1.0},
])
def test_the_search_for_a_winnable_deal_refuses_a_budget_that_never_runs_out(
    budget: dict[str, float], tmp_path: Path
) -> None:
    """A NaN or infinite ``total_seconds`` never ran out: eight-deck deals
    were solved one after another for as long as one cared to wait; a bad
    ``max_seconds`` was refused only after the verdict cache was made."""
    db = tmp_path / "verdicts.sqlite"
    given_up = time.perf_counter() + 2  # (so that the test itself ends on the old code)
    with pytest.raises(ValueError, match="seconds"):
        next_winnable_deal(Rules(decks=8), 1, db_path=str(db), **{"max_seconds": 0.05, **budget},
                           cancel=lambda: time.perf_counter() > given_up)
    assert not db.exists()
