"""Helpers shared by the web tests: the known winning line, a test client,
and the real server started as a subprocess."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WINNING_LINE: dict[str, Any] = json.loads((ROOT / "tests" / "data" / "web_winning_line.json").read_text())
CHROMIUM = "/usr/lib/chromium/chromium"
LOCAL = "http://localhost"


@contextmanager
def running_server(*extra: str) -> Iterator[str]:
    """``terrace play`` on a free port (games in memory); yields its URL and
    stops it by its process id."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "terrace", "play", "--port", "0", "--no-browser", "--db", ":memory:", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://\S+/", line)
        if match is None:
            err = proc.stderr.read() if proc.stderr else ""
            raise RuntimeError(f"the server did not start: {line!r} {err}")
        yield match.group(0)
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
