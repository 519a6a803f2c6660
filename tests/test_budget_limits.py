"""Every budget of the library really stops: budgets that would never run
out are refused before any work (and before any file is made), and the
searches end near their budgets at the extremes of the rule options."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from terrace.board import Board
from terrace.rules import Rules
from terrace.solver.budget import check_budget
from terrace.solver.fair import FairPlayer, FairSettings
from terrace.solver.observation import observe
from terrace.solver.winnable import next_winnable_deal
from terrace.variants import get_rules


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


def test_a_fair_decision_that_carries_thousands_of_samples_keeps_its_deadline() -> None:
    """The samples of the last decision were all moved on (each replaying
    its winning line) before the deadline was looked at: 1-4.6 s for a
    decision of 0.01 s after one of 4,096 samples (x2 at the choice)."""
    board = Board.from_number(3, get_rules("terrace"))
    board.push_text("c1")
    player = FairPlayer(FairSettings(samples=4096, early=False, nodes=50), 0)
    first = player.decide(observe(board), time.perf_counter() + 2)
    assert first.move is not None
    board.push(first.move)
    started = time.perf_counter()
    player.decide(observe(board), started + 0.01)
    assert time.perf_counter() - started < 0.3  # (0.03 s measured; 1.1 s before, on a busy machine)
