"""How much does tidying (``api._tidy``: a card moved to another pile and
straight back, with any such pairs inside the pair, dropped) take off
``solve``'s winning lines, and how long does it take? Each deal is solved
at a fixed node budget (so the line is the same on every machine); per
preset it prints the won deals, the moves tidying was given and returned in
all, the moves of the lines ``solve`` returned in all, and the seconds
tidying took (in all and at most). Every returned line is replayed by the
engine. With ``--whole``, each line as the search found it
(``short_line=False``, no shortening) is tidied in one pass with neither a
time nor a try bound instead: what a whole pass costs on lines of
thousands of moves.

    .venv/bin/python bench/tidy.py                                  # Empress of Italy, deals 1-6
    .venv/bin/python bench/tidy.py --variants terrace --deals 1-50 --nodes 300000
    .venv/bin/python bench/tidy.py --whole --deals 1-6
"""

from __future__ import annotations

import argparse
import time

from terrace.board import Board
from terrace.moves import Move
from terrace.solver import api
from terrace.solver.lines import replays_to_win
from terrace.solver.survey import parse_range
from terrace.variants import get_rules


def row(variant: str, deals: range, nodes: int, whole: bool = False) -> str:
    """One line of the table."""
    rules = get_rules(variant)
    given = tidied = returned = won = 0
    took: list[float] = []
    real = api._tidy

    def timed(board: Board, moves: list[Move], seconds: float = 0.25,
              max_tries: int | None = None) -> list[Move]:
        nonlocal given, tidied
        began = time.perf_counter()
        out = real(board, moves, seconds, max_tries)
        took.append(time.perf_counter() - began)
        given += len(moves)
        tidied += len(out)
        return out

    def untouched(board: Board, moves: list[Move], seconds: float = 0.25,
                  max_tries: int | None = None) -> list[Move]:
        return moves

    api._tidy = untouched if whole else timed  # type: ignore[assignment]
    try:
        for number in deals:
            board = Board.from_number(number, rules)
            found = api.solve(board, max_seconds=600, max_nodes=nodes, all_candidates=False,
                              short_line=not whole)
            if found.result != "won":
                continue
            line = found.moves
            if whole:
                start = board.copy(stack=False)
                head = line[:1] if start.choosing else []
                for move in head:
                    start.push(move)
                line = head + timed(start, line[len(head):], 1e9)
            if not replays_to_win(board, line):  # pragma: no cover - would be a bug
                raise SystemExit(f"{variant} deal {number}: the line does not win")
            won += 1
            returned += len(line)
    finally:
        api._tidy = real  # type: ignore[assignment]
    most = max(took, default=0.0)
    return f"| {variant} | {won} | {given} | {tidied} | {returned} | {sum(took):.2f} | {most:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="empress-of-italy")
    parser.add_argument("--deals", default="1-6", help="such as 1-6")
    parser.add_argument("--nodes", type=int, default=1_000_000, help="the solve's node budget per deal")
    parser.add_argument("--whole", action="store_true", help="tidy each line as found, in one unbounded pass")
    args = parser.parse_args()
    first, last = parse_range(args.deals)
    if args.nodes < 1:
        parser.error("argument --nodes: give a number of positions of at least 1")
    for variant in args.variants.split(","):
        try:
            get_rules(variant)
        except ValueError as error:
            parser.error(str(error))
    print(f"tidying, deals {first}-{last}, {args.nodes:,} positions a deal")
    print("| preset | won | moves given | moves tidied | moves returned | s tidying | longest s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for variant in args.variants.split(","):
        print(row(variant, range(first, last + 1), args.nodes, args.whole), flush=True)


if __name__ == "__main__":
    main()
