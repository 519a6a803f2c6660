"""Every benchmark's ``--help`` opens with its docstring's first paragraph,
whole: never a sentence cut off at the end of the docstring's first line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCH.glob("*.py")))
def test_bench_help_describes_the_script_in_whole_sentences(script: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    description = done.stdout.split("\n\n")[1]
    assert not description.startswith(("options:", "positional arguments:")), script
    assert re.search(r"[.?!)]$", description.strip()), (script, description)


BUDGETS = [("complete.py", "--seconds"), ("engine.py", "--seconds"), ("fair.py", "--budget"),
           ("fair.py", "--perfect-seconds"), ("hints.py", "--seconds"), ("hints.py", "--deal-seconds"),
           ("lines.py", "--max-seconds"), ("long.py", "--hint-seconds"), ("solver.py", "--max-seconds"),
           ("survey.py", "--max-seconds"), ("web.py", "--seconds"), ("winnable.py", "--total")]


@pytest.mark.parametrize(("script", "option"), BUDGETS)
def test_a_benchmarks_budget_that_would_never_run_out_is_refused_in_one_line(script: str,
                                                                            option: str) -> None:
    """``bench/engine.py --seconds inf`` and ``bench/complete.py --seconds
    inf`` measured for ever; the others ended in a ValueError traceback
    (after printing their table's header). Every budget is now read as
    the command line reads ``--max-seconds``: a usage error, status 2."""
    done = subprocess.run([sys.executable, str(BENCH / script), option, "inf"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"argument {option}: 'inf' is not a time budget" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and done.stdout == ""
