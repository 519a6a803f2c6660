"""How does the web game's solver pool hold up on a loaded machine?
``terrace play`` runs as a subprocess beside busy loops that load the CPU;
clients ask for the solver's analysis of games that keep a search busy
for its whole budget (the hint's, ``--hint-seconds``), then the server is
stopped with Ctrl+C.

    .venv/bin/python bench/pool_load.py [--clients 3] [--busy 16] [--seconds 60] [--hint-seconds 2]

It prints the analyses' answers by status, their times (median and slowest), the
load average, the solver processes started beyond the pool's two (each a
worker taken for hung or dead and replaced: none is wanted), how long the
server took to end after Ctrl+C and the solver processes it left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from terrace.cli.options import seconds_argument
from web import start_server

UNDECIDED_DEAL = 129
"""A Terrace deal whose search stays undecided for seconds: each analysis uses its whole budget."""
POOL = 2
"""The solver processes of ``terrace play``."""


def children(pid: int) -> set[int]:
    """The process ids of ``pid``'s children (Linux)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def solver_processes(pid: int) -> set[int]:
    """The solver processes among ``pid``'s children (multiprocessing's
    resource tracker left out)."""
    found = set()
    for child in children(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" not in command:
            found.add(child)
    return found


def ask(port: int, seconds: float, answers: list[tuple[int, float, str]], lock: threading.Lock) -> None:
    """Ask for the analysis of a game of its own for ``seconds``, one after another."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"content-type": "application/json"}
    deal = {"variant": "terrace", "deal_number": UNDECIDED_DEAL}
    conn.request("POST", "/api/games", json.dumps(deal), headers)
    game = json.loads(conn.getresponse().read())
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        started = time.monotonic()
        conn.request("POST", f"/api/games/{game['id']}/analysis", "{}", headers)
        response = conn.getresponse()
        body = json.loads(response.read() or b"{}")
        with lock:
            answers.append((response.status, time.monotonic() - started, body.get("error", "")))
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=3, help="clients asking at once")
    parser.add_argument("--busy", type=int, default=16, help="busy loops loading the CPU")
    parser.add_argument("--seconds", type=seconds_argument, default=60.0, help="how long the clients ask")
    parser.add_argument("--hint-seconds", type=seconds_argument, default=2.0, help="an analysis's budget")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "bench.sqlite")
        server, port = start_server(database, "--hint-seconds", str(args.hint_seconds))
        busy: list[subprocess.Popen[bytes]] = []
        try:
            busy += [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
            seen: set[int] = set()
            answers: list[tuple[int, float, str]] = []
            lock = threading.Lock()
            clients = [threading.Thread(target=ask, args=(port, args.seconds, answers, lock))
                       for _ in range(args.clients)]
            for client in clients:
                client.start()
            while any(client.is_alive() for client in clients):
                seen |= solver_processes(server.pid)
                time.sleep(0.2)
            load = os.getloadavg()[0]
        finally:
            for loop in busy:
                loop.kill()
            workers = solver_processes(server.pid)
            stopped = time.monotonic()
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
            ended = time.monotonic() - stopped
            time.sleep(0.5)
            left = [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    times = sorted(took for _, took, _ in answers)
    print(f"{len(answers)} analyses by {args.clients} clients in {args.seconds:g} s, load {load:.1f}: "
          f"{dict(Counter(status for status, _, _ in answers))}; median {statistics.median(times):.2f} s, "
          f"slowest {times[-1]:.2f} s")
    for words, count in Counter(error for status, _, error in answers if status != 200).items():
        print(f"  {count} x {words}")
    print(f"solver processes started beyond the first {POOL}: {max(len(seen) - POOL, 0)}")
    print(f"Ctrl+C ended the server in {ended:.2f} s; solver processes left: {left}")


if __name__ == "__main__":
    main()
