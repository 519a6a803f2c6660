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
