"""How fast does the real web server answer a move? ``terrace play`` runs
as a subprocess; moves are POSTed over keep-alive connections, as a browser
sends them.

    .venv/bin/python bench/web.py [--moves 200] [--clients 20] [--seconds 10] [--db FILE]

* one client: one keep-alive connection plays ``--moves`` moves (new games
  when one ends) and reports p50/p95/p99 of the POST round trip;
* many clients: ``--clients`` threads, each with its own connection and
  game, post moves for ``--seconds`` seconds.

Targets on a 2-core machine: one client p95 under 10 ms, 20 clients p95
under 60 ms. The database is a temporary SQLite file unless ``--db`` names
one (``:memory:`` keeps games in memory).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from terrace.cli.options import seconds_argument

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {"content-type": "application/json"}


def start_server(db: str, *options: str) -> tuple[subprocess.Popen[str], int]:
    """``terrace play`` on a free port (with more ``options``); the process and its port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "terrace", "play", "--port", "0", "--no-browser", "--db", db, *options],
        stdout=subprocess.PIPE, text=True, cwd=ROOT, env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    assert proc.stdout is not None
    match = re.search(r"http://[^:/]+:(\d+)/", proc.stdout.readline())
    if match is None:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, int(match.group(1))


def stop_server(proc: subprocess.Popen[str]) -> None:
    """Stop a server :func:`start_server` started (SIGTERM, killed after 10 s)."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Player:
    """One keep-alive connection playing random legal moves."""

    def __init__(self, port: int, seed: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.random = random.Random(seed)
        self.game: dict[str, Any] = {}
        self.deal = seed * 1000

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        self.conn.request(method, path, body=json.dumps(body if body is not None else {}), headers=HEADERS)
        response = self.conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None

    def new_game(self) -> None:
        self.deal += 1
        status, self.game = self.call("POST", "/api/games", {"variant": "terrace", "deal_number": self.deal})
        assert status == 201, self.game

    def move(self) -> float:
        """Play one legal move (a new game first when needed); its round trip in seconds."""
        if not self.game or self.game["status"] in ("won", "lost") or not self.game["legal_moves"]:
            self.new_game()
        moves = self.game["legal_moves"]
        # Prefer moves other than drawing, so games last a while.
        others = [m for m in moves if m != "s"]
        text = self.random.choice(others if others and self.random.random() < 0.7 else moves)
        body = {"move": text, "after": self.game["moves"]}
        started = time.perf_counter()
        status, data = self.call("POST", f"/api/games/{self.game['id']}/moves", body)
        took = time.perf_counter() - started
        assert status == 200, (status, data)
        self.game = data
        return took

    def close(self) -> None:
        self.conn.close()


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) the process has used so far (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_cpu(pid: int, run: Callable[[], list[float]]) -> tuple[list[float], str]:
    """``run()``'s round trips and the server's CPU time per move: a figure
    that other processes sharing the CPU change much less than wall time."""
    before = cpu_seconds(pid)
    times = run()
    after = cpu_seconds(pid)
    if before is None or after is None or not times:
        return times, ""
    return times, f"; server CPU {(after - before) / len(times) * 1000:.2f} ms per move"


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] * 1000

    return f"p50 {at(0.5):.1f} ms, p95 {at(0.95):.1f} ms, p99 {at(0.99):.1f} ms ({len(ordered)} moves)"


def one_client(port: int, moves: int) -> list[float]:
    player = Player(port, 1)
    try:
        for _ in range(5):  # warm up the server and the connection
            player.move()
        return [player.move() for _ in range(moves)]
    finally:
        player.close()


def many_clients(port: int, clients: int, seconds: float) -> list[float]:
    times: list[float] = []
    lock = threading.Lock()
    stop = [0.0]
    barrier = threading.Barrier(clients, action=lambda: stop.__setitem__(0, time.perf_counter() + seconds))

    def run(seed: int) -> None:
        player = Player(port, 100 + seed)
        mine: list[float] = []
        try:
            player.new_game()
            barrier.wait()
            while time.perf_counter() < stop[0]:
                mine.append(player.move())
        finally:
            player.close()
            with lock:
                times.extend(mine)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=200, help="moves for the single client")
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients")
    parser.add_argument("--seconds", type=seconds_argument, default=10.0, help="how long the clients play")
    parser.add_argument("--db", help="database file (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        proc, port = start_server(args.db or str(Path(folder) / "bench.sqlite"))
        try:
            times, cpu = server_cpu(proc.pid, lambda: one_client(port, args.moves))
            print(f"one client, keep-alive, {args.moves} moves: {percentiles(times)}{cpu}")
            times, cpu = server_cpu(proc.pid, lambda: many_clients(port, args.clients, args.seconds))
            rate = len(times) / args.seconds
            print(f"{args.clients} clients, {args.seconds:g} s: {percentiles(times)}, {rate:.0f} moves/s"
                  f"{cpu}")
        finally:
            stop_server(proc)


if __name__ == "__main__":
    main()
