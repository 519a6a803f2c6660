"""How large is a full-deal proof of loss? The complete search alone.

Every base card of each deal that the reserve schedule does not prove lost
at once is searched by the complete search alone (no win-hunters), for at
most ``--seconds`` each, or until the memory limit of the compiled core
stops it. Per candidate it prints the result (``lost`` would be a proof
that needs no hunter), the positions entered, and the most cards the search
has put up on any line; at the end, how many candidates it proved lost.

    .venv/bin/python bench/complete.py --variant generals-patience \\
        --deals 2,8,12 --seconds 12
"""

from __future__ import annotations

import argparse
import time

from terrace.board import Board
from terrace.cli.options import seconds_argument
from terrace.solver.prune import terrace_dead
from terrace.solver.search import Search
from terrace.solver.survey import parse_range
from terrace.solver.twins import chosen
from terrace.variants import get_rules


def deal_numbers(text: str) -> list[int]:
    """``2,8,12`` or ``1-40`` (or both, comma-separated) as a list.

    >>> deal_numbers("2,5-7")
    [2, 5, 6, 7]
    """
    numbers: list[int] = []
    for part in text.split(","):
        lo, hi = parse_range(part)
        numbers.extend(range(lo, hi + 1))
    return numbers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="generals-patience")
    parser.add_argument("--deals", type=deal_numbers, default="2,8,12", help="such as 2,8,12 or 1-40")
    parser.add_argument("--seconds", type=seconds_argument, default=12.0, help="per candidate")
    args = parser.parse_args()
    rules, searched, proved = get_rules(args.variant), 0, 0
    for number in args.deals:
        root = Board.from_number(number, rules)
        boards = [chosen(root, i) for i in range(rules.candidates)] if rules.picks_base else [root]
        cells = []
        for i, board in enumerate(boards):
            if terrace_dead(board):
                cells.append(f"c{i + 1}:dead")
                continue
            search = Search(board)
            start = time.perf_counter()
            while not search.step(0.5) and time.perf_counter() - start < args.seconds:
                pass
            searched += 1
            proved += search.result == "lost"
            result = search.result or "unknown"
            cells.append(f"c{i + 1}:{result}:{search.nodes / 1e6:.1f}M:{search.best_found}up")
        print(f"deal {number}: {' '.join(cells)}", flush=True)
    print(f"\n{args.variant}: the complete search alone proved {proved} of {searched} live candidates lost "
          f"within {args.seconds:g} s each")


if __name__ == "__main__":
    main()
