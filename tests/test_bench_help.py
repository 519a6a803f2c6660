"""Every benchmark's ``--help`` opens with its docstring's first paragraph,
whole: never a sentence cut off at the end of the docstring's first line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py"))

# Every script run in one Python process, one after another, as its own
# __main__ (runpy), its output and exit status caught: one process start and
# one import of the libraries for all, where a process a script took most of
# this file's time (about 50 runs of 1-3 s each).
DRIVER = r"""
import contextlib, io, json, runpy, sys, traceback
results = {}
for key, argv in json.loads(sys.argv[1]):
    out, err, code = io.StringIO(), io.StringIO(), 0
    sys.argv = argv
    sys.path[0] = argv[0].rsplit("/", 1)[0]  # (a script's folder comes first, as when run itself)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        except BaseException:
            traceback.print_exc()
            code = 1
    results[key] = [code, out.getvalue(), err.getvalue()]
sys.__stdout__.write(json.dumps(results))
"""


class Done(NamedTuple):
    """What a script printed and its exit status."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def runs() -> dict[str, Done]:
    """Each script's run with ``--help`` (keyed by its name) and with each
    budget of :data:`BUDGETS` set to ``inf`` (keyed ``script option``)."""
    argvs = [(script, [str(BENCH / script), "--help"]) for script in SCRIPTS]
    argvs += [(f"{script} {option}", [str(BENCH / script), option, "inf"]) for script, option in BUDGETS]
    ran = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(argvs)], capture_output=True, text=True,
                         timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return {key: Done(*result) for key, result in json.loads(ran.stdout).items()}


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_help_describes_the_script_in_whole_sentences(script: str, runs: dict[str, Done]) -> None:
    done = runs[script]
    assert done.returncode == 0, done.stderr
    description = done.stdout.split("\n\n")[1]
    assert not description.startswith(("options:", "positional arguments:")), script
    assert re.search(r"[.?!)]$", description.strip()), (script, description)


BUDGETS = [("complete.py", "--seconds"), ("engine.py", "--seconds"), ("fair.py", "--budget"),
           ("fair.py", "--perfect-seconds"), ("hints.py", "--seconds"), ("hints.py", "--deal-seconds"),
           ("lines.py", "--max-seconds"), ("long.py", "--hint-seconds"), ("solver.py", "--max-seconds"),
           ("survey.py", "--max-seconds"), ("web.py", "--seconds"), ("winnable.py", "--total")]


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
