"""Every time budget on the command line is a finite number of seconds
above 0 (NaN, infinite or negative budgets would never run out), and
``deal --winnable`` has a total budget."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from terrace.cli import main


@pytest.mark.parametrize(
    "command",
    [
        ["solve", "-n", "1", "--max-seconds"],
        ["deal", "-n", "1", "--winnable", "--max-seconds"],
        ["deal", "-n", "1", "--winnable", "--total-seconds"],
        ["survey", "--deals", "1-2", "--max-seconds"],
    ],
)
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-1", "0", "-0", "later"])
def test_budgets_that_never_run_out_are_usage_errors(command: list[str], value: str) -> None:
    result = CliRunner().invoke(main, [*command, value])
    assert result.exit_code == 2, result.output
    assert "time budget" in result.output
    assert "Traceback" not in result.output


def test_deal_winnable_stops_at_its_total_budget(tmp_path: Path) -> None:
    started = time.perf_counter()
    result = CliRunner().invoke(
        main,
        ["deal", "-n", "1", "--decks", "8", "--winnable", "--max-seconds", "0.5", "--total-seconds", "1",
         "--db", f"{tmp_path}/verdicts.sqlite"],
    )
    assert time.perf_counter() - started < 10
    assert result.exit_code == 1
    assert "no deal was proved winnable within 1 s" in result.output
    assert "--total-seconds" in result.output


def test_a_fair_hint_with_many_samples_stops_at_its_budget() -> None:
    """Drawing 4,096 stock orders of four decks takes seconds: it stops at
    the budget too (it once drew every sample first, 3.4 s for 0.1 s)."""
    started = time.perf_counter()
    result = CliRunner().invoke(main, ["hint", "-v", "admirals-patience", "-n", "6", "-m", "c1",
                                       "--samples", "4096", "--max-seconds", "0.1"])
    assert result.exit_code == 0, result.output
    assert time.perf_counter() - started < 2.5  # (3.4 s before; loaded CI machines are slow)
    assert "rule of thumb" in result.output  # no sampled stock order decided in 0.1 s
