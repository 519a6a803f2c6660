"""Every benchmark's ``--help`` opens with its docstring's first paragraph,
whole: never a sentence cut off at the end of the docstring's first line."""

from __future__ import annotations

import re

import pytest

from bench_support import BENCH, Done, run_scripts

SCRIPTS = sorted(p.name for p in BENCH.glob("*.py"))


@pytest.fixture(scope="module")
def runs() -> dict[str, Done]:
    """Each script's run with ``--help`` (keyed by its name) and with each
    budget of :data:`BUDGETS` set to ``inf`` (keyed ``script option``)."""
    runs = [(script, [script, "--help"]) for script in SCRIPTS]
    runs += [(f"{script} {option}", [script, option, "inf"]) for script, option in BUDGETS]
    return run_scripts(runs)


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_help_describes_the_script_in_whole_sentences(script: str, runs: dict[str, Done]) -> None:
    done = runs[script]
    assert done.returncode == 0, done.stderr
    description = done.stdout.split("\n\n")[1]
    assert not description.startswith(("options:", "positional arguments:")), script
    assert re.search(r"[.?!)]$", description.strip()), (script, description)


BUDGETS = [("complete.py", "--seconds"), ("engine.py", "--seconds"), ("fair.py", "--budget"),
           ("fair.py", "--perfect-seconds"), ("hints.py", "--seconds"), ("hints.py", "--deal-seconds"),
           ("lines.py", "--max-seconds"), ("long.py", "--hint-seconds"), ("research.py", "--seconds"),
           ("solver.py", "--max-seconds"), ("survey.py", "--max-seconds"), ("web.py", "--seconds"),
           ("winnable.py", "--total")]


@pytest.mark.parametrize(("script", "option"), BUDGETS)
def test_a_benchmarks_budget_that_would_never_run_out_is_refused_in_one_line(
        script: str, option: str, runs: dict[str, Done]) -> None:
    """``bench/engine.py --seconds inf`` and ``bench/complete.py --seconds
    inf`` measured for ever; the others ended in a ValueError traceback
    (after printing their table's header). Every budget is now read as
    the command line reads ``--max-seconds``: a usage error, status 2."""
    done = runs[f"{script} {option}"]
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"argument {option}: 'inf' is not a time budget" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and done.stdout == ""
