"""What another connection's write costs the next read of a long game.

    .venv/bin/python bench/other_writer.py [--moves 99990] [--rounds 9]

A store remembers a game of ``--moves`` moves (eight decks, one card moved
to and fro, as ``bench/long.py`` stores it); another store on the same
file (another server, the CLI) reports playing time on another game; the
first store then reads the long game again. Prints the median time of
that read, and of a read when nobody else wrote.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from long import long_line
from terrace.deal import Deal
from terrace.rules import Rules
from terrace.storage import open_store

RULES = Rules(decks=8, reserve=5, piles=4, candidates=0, spaces="free")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=99_990, help="moves of the long game")
    parser.add_argument("--rounds", type=int, default=9, help="reads timed of each kind")
    args = parser.parse_args()
    if not 1 <= args.moves <= 99_990 or args.rounds < 1:
        parser.error("--moves goes from 1 to 99,990 and --rounds from 1")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.sqlite"
        store, other = open_store(path), open_store(path)
        game = store.create("terrace", RULES, Deal.from_number(3, RULES))
        board = game.board()
        for move in long_line(RULES, 3, args.moves):
            board.push(move)
        game.sync(board)
        store.update(game, expected_revision=0, action="move")
        store.get(game.id)
        small = other.create("terrace", RULES, Deal.from_number(4, RULES))
        quiet, after = [], []
        for _ in range(args.rounds):
            started = time.perf_counter()
            store.get(game.id)
            quiet.append(time.perf_counter() - started)
            other.add_active_time(small.id, 1_000)
            started = time.perf_counter()
            store.get(game.id)
            after.append(time.perf_counter() - started)
        print(f"read of a game of {args.moves:,} moves: {statistics.median(quiet) * 1000:.1f} ms; "
              f"after another connection wrote to another game: {statistics.median(after) * 1000:.1f} ms")
        other.close()
        store.close()


if __name__ == "__main__":
    main()
