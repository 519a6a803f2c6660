"""How fast is the SQLite game store? Move-commit latency (every move
committed with synchronous=FULL), loading a game, and statistics.

    .venv/bin/python bench/store.py [--dir FOLDER] [--moves N] [--games N]

Use --dir on the disk you care about: the latency is mostly one fsync.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from terrace.record import GameRecord
from terrace.storage import MemoryStore, SqliteStore, StoredGame, open_store

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"median {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, max {ordered[-1] * 1000:.2f} ms"


def commit_moves(store: SqliteStore, record: GameRecord, count: int) -> tuple[list[float], str]:
    """Commit ``count`` moves one by one (new games as needed); the time of
    each update and the id of the last game."""
    game = store.create(record.variant, record.rules, record.deal)
    board = game.board()
    times = []
    for index in range(count):
        if index and index % len(record.moves) == 0:
            game = store.create(record.variant, record.rules, record.deal)
            board = game.board()
        board.push_text(record.moves[index % len(record.moves)])
        revision = game.revision
        game.sync(board)
        started = time.perf_counter()
        store.update(game, expected_revision=revision, action="move")
        times.append(time.perf_counter() - started)
    return times, game.id


def won_copies(record: GameRecord, count: int) -> list[StoredGame]:
    games = []
    for _ in range(count):
        game = MemoryStore().create(record.variant, record.rules, record.deal)
        game.moves, game.status = list(record.moves), "won"
        game.started_at = game.finished_at = game.created_at
        games.append(game)
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="folder for the database (default: a temporary one)")
    parser.add_argument("--moves", type=int, default=200, help="moves to commit one by one")
    parser.add_argument("--games", type=int, default=2000, help="finished games for statistics")
    args = parser.parse_args()
    record = GameRecord.from_json((GOLDEN / "terrace-won.json").read_text())
    with tempfile.TemporaryDirectory(dir=args.dir) as folder, open_store(Path(folder) / "b.sqlite") as store:
        commits, game_id = commit_moves(store, record, args.moves)
        print(f"commit one move ({args.moves} moves, journal {store.journal_mode}, synchronous=FULL): "
              f"{percentiles(commits)}")
        loads = []
        for _ in range(20):
            started = time.perf_counter()
            game = store.get(game_id)
            loads.append(time.perf_counter() - started)
        print(f"load a game of {len(game.moves)} moves (replayed by the engine): {percentiles(loads)}")
        batch = won_copies(record, args.games)
        started = time.perf_counter()
        store.add_games(batch)
        imported = time.perf_counter() - started
        started = time.perf_counter()
        store.statistics()
        took = time.perf_counter() - started
        print(f"import {args.games} won games in one transaction: {imported:.2f} s; "
              f"statistics over {args.games + 1} games: {took * 1000:.1f} ms")


if __name__ == "__main__":
    main()
