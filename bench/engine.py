"""Engine speed: random playouts and legal-move generation, per preset.

Run it from the repository root::

    .venv/bin/python bench/engine.py            # every preset, about 3 s each
    .venv/bin/python bench/engine.py --seconds 1 terrace wood

For every preset it plays random games (a uniformly random legal move each
turn, from deal 1 on) and prints:

* ``playout moves/s``: moves pushed per second, counting the legal-move
  generation that chose each move and the status check after it;
* ``legal gens/s``: legal-move generations per second over positions taken
  from those games, each computed afresh (``Board`` keeps the moves of the
  current position, so ``list(board.legal_moves)`` twice in a row costs one
  generation; here the cache is bypassed);
* ``actions gens/s``: ``board.legal_actions()`` calls per second (with the
  cache, as a reinforcement-learning loop would call it).

Times are CPU time of this process (``time.process_time``), so that other
work on a shared machine disturbs the figures less. It is a measurement, not
a test: nothing fails, the figures only inform.
"""

from __future__ import annotations

import argparse
import random
import time

from terrace.board import Board, Status
from terrace.cli.options import seconds_argument
from terrace.moves import Move
from terrace.variants import PRESETS, get_rules


def playouts(name: str, seconds: float) -> tuple[float, list[Board]]:
    """Random games for ``seconds``: moves per second and sample positions."""
    rules = get_rules(name)
    rng = random.Random(1)
    moves = 0
    samples: list[Board] = []
    number = 1
    start = time.process_time()
    while time.process_time() - start < seconds:
        board = Board.from_number(number, rules)
        number += 1
        for _ in range(2000):
            if board.status in (Status.WON, Status.LOST):
                break
            legal = list(board.legal_moves)
            board.push(rng.choice(legal))
            moves += 1
            if moves % 97 == 0:
                samples.append(board.copy(stack=False))
    return moves / (time.process_time() - start), samples


def fresh(board: Board) -> list[Move]:
    """The legal moves computed afresh, without the per-position cache."""
    compute = getattr(board, "_compute_legal_moves", None)
    return compute() if compute else list(board.generate_legal_moves())


def generations(samples: list[Board], seconds: float, actions: bool = False) -> float:
    """Legal-move (or legal-action) generations per second over ``samples``."""
    count = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for board in samples:
            if actions:
                board.legal_actions()
            else:
                fresh(board)
        count += len(samples)
    return count / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--seconds", type=seconds_argument, default=1.0, help="seconds per measurement")
    args = parser.parse_args()
    print(f"{'preset':24}{'playout moves/s':>17}{'legal gens/s':>15}{'actions gens/s':>16}")
    for name in args.presets:
        rate, samples = playouts(name, args.seconds)
        gens = generations(samples, args.seconds) if samples else 0.0
        acts = generations(samples, args.seconds, actions=True) if samples else 0.0
        print(f"{name:24}{rate:17,.0f}{gens:15,.0f}{acts:16,.0f}")


if __name__ == "__main__":
    main()
