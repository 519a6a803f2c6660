"""Running benchmark scripts (``bench/*.py``) from tests: many runs in one
Python process, each script as its own ``__main__`` (runpy), its output and
exit status caught. One process start and one import of the libraries for
all, where a process a run cost 1-3 s of imports each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

BENCH = Path(__file__).resolve().parent.parent / "bench"

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


def run_scripts(runs: list[tuple[str, list[str]]], timeout: float = 600) -> dict[str, Done]:
    """Each run ``(key, [script name in bench/, *arguments])`` by key, all in
    one process, one after another."""
    argvs = [(key, [str(BENCH / script), *args]) for key, (script, *args) in runs]
    ran = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(argvs)], capture_output=True, text=True,
                         timeout=timeout)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return {key: Done(*result) for key, result in json.loads(ran.stdout).items()}
