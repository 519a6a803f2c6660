"""Helpers shared by the web tests: the known winning line, a test client,
and the real server started as a subprocess."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.board import Board
from terrace.cards import CODE
from terrace.solver.api import solve
from terrace.variants import get_rules
from terrace.web.app import create_app
from terrace.web.workers import SolverPool

ROOT = Path(__file__).resolve().parent.parent
WINNING_LINE: dict[str, Any] = json.loads((ROOT / "tests" / "data" / "web_winning_line.json").read_text())


def winning_line_until(where: str) -> tuple[Board, list[str]]:
    """The stored winning line (WINNING_LINE) played until the fair hint
    may give a proved line because the player knows the face-down cards:
    ``where`` is "last card face down", "stock run out" or "stock turned
    over" (after the redeal); the board there and the moves played."""
    from terrace.moves import Move
    from terrace.solver.advice import nothing_hidden

    board = Board.from_number(WINNING_LINE["deal_number"],
                              get_rules(WINNING_LINE["variant"], **WINNING_LINE["options"]))
    played: list[str] = []
    for text in WINNING_LINE["moves"]:
        if nothing_hidden(board) and {"last card face down": len(board.stock) == 1 and not board.redeals_used,
                                      "stock run out": not board.stock,
                                      "stock turned over": len(board.stock) > 1}[where]:
            break
        board.push(Move.parse(text))
        played.append(text)
    return board, played


def twins_moves() -> list[str]:
    """Terrace deal 197 along a solver's winning line until two stock cards
    are left face down, the 2 of spades and the 2 of clubs: cards that
    differ only in suit, which a game built in alternate colours ignores."""
    board = Board.from_number(197, get_rules("terrace"))
    found = solve(board.copy(), max_seconds=60.0, max_nodes=2_000_000, short_line=False)
    assert found.result == "won"
    played: list[str] = []
    for move in found.moves:
        if len(board.stock) == 2:
            break
        board.push(move)
        played.append(str(move))
    assert sorted(CODE[card] for card in board.stock) == ["2C", "2S"]
    return played
# Debian's Chromium: its old headless shell (package chromium-headless-shell,
# what Playwright itself runs headless: a page opens in about half the time)
# when installed, else the browser; TERRACE_CHROMIUM names another binary.
_CHROMIUMS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/lib/chromium/chromium")
CHROMIUM = os.environ.get("TERRACE_CHROMIUM") or next(
    (path for path in _CHROMIUMS if Path(path).exists()), _CHROMIUMS[-1]
)
LOCAL = "http://localhost"


@dataclass
class Server:
    """A running ``terrace play``: its process, URL and first output line."""

    proc: subprocess.Popen[str]
    url: str
    first_line: str

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> float:
        """Send ``sig`` and wait for the process to end; the seconds it took
        (killed after ``timeout``: 10 s, the stops of three servers at load
        ~60 were killed, stop 70; a stop that hangs does so for ever)."""
        started = time.perf_counter()
        os.kill(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        return time.perf_counter() - started

    def stderr(self) -> str:
        """What the server wrote to standard error (once it has stopped)."""
        assert self.proc.stderr is not None
        return self.proc.stderr.read()


# `python -m terrace` with some of the code's constants set first: a module's
# name and the constant's, and the value, as JSON in the first argument.
RUN_WITH_CONSTANTS = """
import importlib, json, sys
for name, value in json.loads(sys.argv.pop(1)).items():
    module, constant = name.rsplit(".", 1)
    setattr(importlib.import_module(module), constant, value)
from terrace.cli import main
main()
"""


@contextmanager
def started_server(*extra: str, env: dict[str, str] | None = None,
                   constants: dict[str, float] | None = None) -> Iterator[Server]:
    """``terrace play`` on a free port (games in memory unless ``extra``
    gives a --db), stopped by its process id at the end; ``env`` adds to its
    environment; ``constants`` sets the code's constants first (a shorter
    wait: ``{"terrace.web.protocol.HEAD_SECONDS": 2.0}``)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
    memory = [] if "--db" in extra else ["--db", ":memory:"]  # (an option given twice is refused)
    terrace = ["-m", "terrace"] if constants is None else ["-c", RUN_WITH_CONSTANTS, json.dumps(constants)]
    proc = subprocess.Popen(
        [sys.executable, *terrace, "play", "--port", "0", "--no-browser", *memory, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"https?://\S+/", line)
        if match is None:
            err = proc.stderr.read() if proc.stderr else ""
            raise RuntimeError(f"the server did not start: {line!r} {err}")
        yield Server(proc, match.group(0), line)
    finally:
        if proc.poll() is None:
            Server(proc, "", "").stop()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@contextmanager
def running_server(*extra: str) -> Iterator[str]:
    """``terrace play`` on a free port (games in memory); yields its URL."""
    with started_server(*extra) as server:
        yield server.url


@contextmanager
def app_client(**options: Any) -> Iterator[TestClient]:
    """The app (games in memory) behind Starlette's test client."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with TestClient(create_app(**options), base_url=LOCAL) as client:
            yield client


def game_line(client: Any, game_id: str) -> dict[str, Any]:
    """The game's moves and redo line (``GET /api/games/{id}/line``; the
    game JSON carries only their counts). ``client``: a TestClient or an
    httpx client."""
    response = client.get(f"/api/games/{game_id}/line")
    assert response.status_code == 200, response.text
    line: dict[str, Any] = response.json()
    return line


def game_cookie(keys: Any, client: str = "testclient") -> str:
    """The game's cookie that ``keys`` (RemoteKeys) give a browser at the
    address ``client`` (a TestClient's, unless told)."""
    cookie: str = keys.cookie_for(client)
    return cookie


def open_link(client: Any, link: Any, headers: dict[str, str] | None = None) -> Any:
    """Use a remote link as a person does: its ``GET`` (which leaves the
    link unused, as a preview does) leads to the clean address, where its
    page shows, then its button (the form's ``POST``). The ``POST``'s
    answer: a 303 that sets the cookie. ``client``: a TestClient or an
    httpx client (not following redirects), which keeps cookies."""
    page = client.get(link, headers=headers)
    if page.status_code == 303:  # (unless the client followed it)
        page = client.get(page.url.join(page.headers["location"]), headers=headers)
    assert page.status_code == 200 and "token" not in str(page.url), page.text
    found = re.search(r'<form method="post" action="([^"]+)">', page.text)
    assert found is not None, page.text
    return client.post(page.url.join(html.unescape(found.group(1))), headers=headers)


class DyingPipe:
    """A solver worker's pipe whose worker dies as its next job is sent
    (a worker killed while free is taken out of the pool before any job)."""

    def __init__(self, worker: Any) -> None:
        self.worker = worker
        self.real = worker.conn

    def send(self, message: Any) -> None:
        self.worker.process.kill()
        self.worker.process.join(10)
        self.real.send(message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class SharedPool(SolverPool):
    """A solver pool that the apps of several tests share (a module
    fixture's): an app closes its pool as its lifespan ends (a test
    client's ``with``), which this one ignores; :meth:`shut` closes it at
    the fixture's end. Each test's app with a pool of its own started two
    solver processes (spawn) for its first job: 0.2 CPU s, and 1-6 s of
    waiting on a loaded machine, a test."""

    def close(self) -> None:
        """Left open for the next test's app (see :meth:`shut`)."""

    def shut(self) -> None:
        """Stop every job and worker (:meth:`SolverPool.close`)."""
        super().close()
