"""The benchmarks that drive the web game and its store run to their
figures on tiny settings: they read the game's JSON as the page does, and
``bench/long.py`` broke unseen when an answer's ``moves`` became a count
(``TypeError: object of type 'int' has no len()``). These are not timed:
only that each ends well and prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"

RUNS = [
    ("long.py", ["--lengths", "10,300", "--runs", "1", "--skip", "hint,warn"], "undo"),
    ("web.py", ["--moves", "5", "--clients", "2", "--seconds", "1"], "2 clients, 1 s"),
    ("store.py", ["--lengths", "10,300", "--samples", "3", "--moves", "5", "--games", "3"],
     "statistics over"),
    ("autoplay.py", ["--runs", "1"], "one autoplay request"),
    ("other_writer.py", ["--moves", "300", "--rounds", "1"], "after another connection wrote"),
]


@pytest.mark.parametrize(("script", "args", "printed"), RUNS, ids=[run[0] for run in RUNS])
def test_a_web_benchmark_runs_to_its_figures(script: str, args: list[str], printed: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert printed in done.stdout, done.stdout[-3000:]
    assert "Traceback" not in done.stderr
