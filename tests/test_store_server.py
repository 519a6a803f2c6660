"""The real web server on a real database file, killed with SIGKILL while
moves are arriving, then restarted: every move it answered is still there
and the game resumes."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from store_support import golden, no_default_db
from terrace.storage import open_store

_ = no_default_db
pytest.importorskip("terrace.web.server")
ROOT = Path(__file__).resolve().parent.parent


def call(url: str, method: str = "GET", body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.loads(response.read() or b"null")


class Server:
    """``terrace play --db FILE`` on a free port."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "terrace", "play", "--port", "0", "--no-browser", "--db", str(db)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        match = re.search(r"http://\S+/", line)
        if match is None:
            self.kill()
            raise AssertionError(f"the server did not start: {line!r}")
        self.url = match.group(0).rstrip("/")

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=20)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def test_server_killed_mid_game_keeps_every_answered_move(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    line = list(golden("terrace-won").moves)
    server = Server(db)
    answered: list[int] = []
    try:
        game = call(server.url + "/api/games", "POST", {"variant": "terrace", "deal_number": 2})
        game_id = game["id"]
        reached = threading.Event()

        def player() -> None:
            for index, move in enumerate(line):
                try:
                    reply = call(f"{server.url}/api/games/{game_id}/moves", "POST",
                                 {"move": move, "after": index})
                except (urllib.error.URLError, http.client.HTTPException, OSError):
                    return  # the server died under us (before or in the middle of its answer)
                answered.append(reply["moves"])
                if len(answered) >= 30:
                    reached.set()

        thread = threading.Thread(target=player)
        thread.start()
        assert reached.wait(timeout=60)
    finally:
        server.kill()
    thread.join(timeout=30)
    with open_store(db) as store:
        stored = store.get(game_id)
    assert len(stored.moves) >= max(answered) >= 30
    assert stored.moves == line[: len(stored.moves)]
    # Restarted, the server offers the game again and takes the next move.
    server = Server(db)
    try:
        current = call(server.url + "/api/games/current")
        assert current["id"] == game_id and current["moves"] == len(stored.moves)
        assert call(f"{server.url}/api/games/{game_id}/line")["moves"] == stored.moves
        done = len(stored.moves)
        reply = call(f"{server.url}/api/games/{game_id}/moves", "POST",
                     {"move": line[done], "after": done})
        assert reply["moves"] == done + 1
        assert call(f"{server.url}/api/games/{game_id}/line")["moves"] == line[: done + 1]
    finally:
        server.kill()
