"""How do the web game's requests grow with the length of a game? Games of
100 to 100,000 moves (eight decks, one card moved to and fro between two
piles after a few first moves) are stored in a temporary SQLite file, the
real server (``terrace play``) is started on it, and each request is timed
over one keep-alive connection as the page sends it.

    .venv/bin/python bench/long.py [--lengths 100,1000,10000,99990] [--runs 7]
                                   [--hint-seconds 0.2] [--skip hint,warn]

For each length and request it prints the median round trip in ms (and, for
the requests the server answers itself, the server's CPU time per request,
which other work on a shared machine changes less). The requests: ``get``
(GET the game), ``move`` (POST a move), ``undo``, ``redo``, ``check`` (is a
move legal?), ``why`` (why can this card not move?), ``position`` (the
replay's position at the last step, and ``position-1`` one step before it,
as a replay steps back), ``hint`` (a fair hint), ``warn`` (the coach's check
before a move). A request whose time grows with the game's length costs a
player of a long game that much on every click.

The length stays the same throughout: each ``move`` plays again the move
the ``undo`` before it took back.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from terrace.board import Board
from terrace.cli.options import seconds_argument
from terrace.deal import Deal
from terrace.moves import Move
from terrace.rules import Rules
from terrace.storage import MemoryStore, open_store
from web import start_server, stop_server

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {"content-type": "application/json"}
RULES = Rules(decks=8, reserve=5, piles=4, candidates=0, spaces="free")
DEAL = 3
REQUESTS = ("get", "move", "undo", "redo", "check", "why", "position", "position-1", "hint", "warn")


def long_line(rules: Rules, number: int, length: int) -> list[Move]:
    """``length`` moves of deal ``number``: a few first moves, then one card
    moved to and fro between two piles (no draw)."""
    board = Board.from_number(number, rules)
    line: list[Move] = []
    while True:
        for move in board.legal_moves:
            if move.is_draw:
                continue
            there = board.copy(stack=False)
            there.push(move)
            for back in there.legal_moves:
                if back.is_draw:
                    continue
                again = there.copy(stack=False)
                again.push(back)
                if again.position() == board.position():
                    return line + [(move, back)[i % 2] for i in range(length - len(line))]
        first = next(iter(board.legal_moves))
        board.push(first)
        line.append(first)


def store_games(path: str, lengths: list[int]) -> dict[int, str]:
    """A game of each length in the SQLite file ``path``: the id of each."""
    games = []
    for length in lengths:
        game = MemoryStore().create("terrace", RULES, Deal.from_number(DEAL, RULES))
        board = game.board()
        for move in long_line(RULES, DEAL, length):
            board.push(move)
        game.sync(board)
        games.append(game)
    with open_store(path) as store:
        ids = [game_id for game_id, _ in store.add_games(games)]
    return dict(zip(lengths, ids, strict=True))


def cpu_seconds(pid: int) -> float:
    """CPU time the process's threads have used so far (Linux, in
    nanoseconds from the scheduler: the clock of /proc/PID/stat ticks in
    hundredths of a second, longer than most requests)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # (a thread that has just ended)
    return total / 1e9


class Client:
    """One keep-alive connection to the server."""

    def __init__(self, port: int, pid: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.pid = pid

    def call(self, method: str, path: str, body: Any = None) -> tuple[Any, float, float]:
        """The reply's JSON, its round trip and the server's CPU time (s)."""
        cpu = cpu_seconds(self.pid)
        started = time.perf_counter()
        self.conn.request(method, path, body=None if body is None else json.dumps(body),
                          headers=HEADERS if body is not None else {})
        response = self.conn.getresponse()
        data = response.read()
        took = time.perf_counter() - started
        used = cpu_seconds(self.pid) - cpu
        if response.status != 200:
            raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
        return json.loads(data), took, used


def measure(client: Client, game_id: str, runs: int, skip: set[str]) -> dict[str, tuple[float, float]]:
    """Median round trip and median server CPU time (ms) of each request."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in REQUESTS if name not in skip}
    base = f"/api/games/{game_id}"
    game, _, _ = client.call("GET", base)

    def timed(name: str, method: str, path: str, body: Any = None) -> Any:
        data, took, used = client.call(method, path, body)
        if name in times:
            times[name].append((took, used))
        return data

    for _ in range(runs):
        game = timed("get", "GET", base)
        steps = game["moves"]  # (a count: the moves are at /line)
        timed("check", "GET", f"{base}/check?move=s")
        timed("why", "GET", f"{base}/why?pile=t1")
        timed("position", "GET", f"{base}/position?step={steps}")
        timed("position-1", "GET", f"{base}/position?step={steps - 1}")
        game = timed("undo", "POST", f"{base}/undo", {"revision": game["revision"]})
        game = timed("redo", "POST", f"{base}/redo", {"revision": game["revision"]})
        move = game["last_played"]  # (the move the undo below takes back)
        game = client.call("POST", f"{base}/undo", {"revision": game["revision"]})[0]
        if "warn" in times:
            timed("warn", "POST", f"{base}/warn", {"move": move, "revision": game["revision"]})
        game = timed("move", "POST", f"{base}/moves", {"move": move, "revision": game["revision"]})
        if "hint" in times:
            timed("hint", "POST", f"{base}/hint", {"revision": game["revision"]})
    return {name: (statistics.median(t for t, _ in pairs) * 1000,
                   statistics.median(c for _, c in pairs) * 1000) for name, pairs in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="100,1000,10000,99990",
                        help="game lengths in moves, comma-separated (at most 99,990)")
    parser.add_argument("--runs", type=int, default=7, help="times each request is timed per length")
    parser.add_argument("--hint-seconds", type=seconds_argument, default=0.2,
                        help="the server's time for a hint")
    parser.add_argument("--skip", default="", help="requests to leave out, comma-separated")
    args = parser.parse_args()
    lengths = [int(n) for n in args.lengths.split(",")]
    skip = {name for name in args.skip.split(",") if name}
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "long.sqlite")
        ids = store_games(db, lengths)
        proc, port = start_server(db, "--hint-seconds", str(args.hint_seconds))
        try:
            client = Client(port, proc.pid)
            results = {length: measure(client, ids[length], args.runs, skip) for length in lengths}
        finally:
            stop_server(proc)
    names = [name for name in REQUESTS if name not in skip]
    print("median round trip ms (median server CPU ms) per request, by game length in moves")
    print(f"{'request':12}" + "".join(f"{length:>20,}" for length in lengths))
    for name in names:
        cells = [results[length][name] for length in lengths]
        print(f"{name:12}" + "".join(f"{f'{wall:.1f} ({cpu:.1f})':>20}" for wall, cpu in cells))


if __name__ == "__main__":
    main()
