"""How fast is the SQLite game store? The cost of one move as the web game
pays it (load the game, play the move, store it) at several game lengths,
move-commit latency (every move committed as the store commits it), loading a
game, and statistics.

    .venv/bin/python bench/store.py [--dir FOLDER] [--lengths 100,1100] [--samples N]
                                    [--moves N] [--games N]

Use --dir on the disk you care about: with synchronous=NORMAL a commit is a
write to the log, and only checkpoints wait for the disk (fsync). The
per-move figures are given on the file and on an in-memory database (no
fsync), which shows the work that grows with the game's length, if any.
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
LONG_GAME = "falling-star-won"
"""A golden game of 1,563 moves: long games are cut from it."""


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"median {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, max {ordered[-1] * 1000:.2f} ms"


def game_of_length(store: SqliteStore, record: GameRecord, length: int) -> str:
    """A stored game of the record's first ``length`` moves (imported at once)."""
    game = MemoryStore().create(record.variant, record.rules, record.deal)
    board = game.board()
    for move in record.moves[:length]:
        board.push_text(move)
    game.sync(board)
    [(game_id, _)] = store.add_games([game])
    # Start from an empty log, so that a checkpoint of the import does not
    # fall among the timed moves.
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return game_id


def move_requests(store: SqliteStore, record: GameRecord, length: int, samples: int) -> tuple[
    list[float], list[float]
]:
    """Play ``samples`` moves on a game of ``length`` moves the way a move
    request does (load, play, sync, update); the time of each whole request
    and of each ``update`` alone."""
    game_id = game_of_length(store, record, length)
    store.get(game_id)  # a server has read the game before its next move
    whole, updates = [], []
    for move in record.moves[length: length + samples]:
        started = time.perf_counter()
        game = store.get(game_id)
        board = game.board()
        board.push_text(move)
        revision = game.revision
        game.sync(board)
        storing = time.perf_counter()
        store.update(game, expected_revision=revision, action="move")
        done = time.perf_counter()
        whole.append(done - started)
        updates.append(done - storing)
    return whole, updates


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
        board = game.board()
        for move in record.moves:
            board.push_text(move)
        game.sync(board)
        game.started_at = game.finished_at = game.created_at
        games.append(game)
    return games


def per_move(store: SqliteStore, where: str, lengths: list[int], samples: int) -> None:
    record = GameRecord.from_json((GOLDEN / f"{LONG_GAME}.json").read_text())
    for length in lengths:
        whole, updates = move_requests(store, record, length, samples)
        print(f"move at {length:>5} moves ({where}): request {percentiles(whole)}; "
              f"update alone {percentiles(updates)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dir", help="folder for the database (default: a temporary one)")
    parser.add_argument("--lengths", default="100,1100", help="game lengths for the per-move cost")
    parser.add_argument("--samples", type=int, default=40, help="moves timed at each length")
    parser.add_argument("--moves", type=int, default=200, help="moves to commit one by one")
    parser.add_argument("--games", type=int, default=2000, help="finished games for statistics")
    args = parser.parse_args()
    lengths = [int(n) for n in args.lengths.split(",")]
    record = GameRecord.from_json((GOLDEN / "terrace-won.json").read_text())
    with open_store(":memory:") as memory:
        per_move(memory, "in memory", lengths, args.samples)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder, open_store(Path(folder) / "b.sqlite") as store:
        per_move(store, "file", lengths, args.samples)
        commits, game_id = commit_moves(store, record, args.moves)
        sync = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[
            store._conn.execute("PRAGMA synchronous").fetchone()[0]]
        print(f"commit one move ({args.moves} moves, journal {store.journal_mode}, synchronous={sync}): "
              f"{percentiles(commits)}")
        loads = []
        for _ in range(20):
            started = time.perf_counter()
            game = store.get(game_id)
            loads.append(time.perf_counter() - started)
        print(f"load a game of {len(game.moves)} moves: {percentiles(loads)}")
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
