"""The reserve schedule with blocking in solve(): verdicts with the switch off and on.

Each deal is solved twice, ``solve(board, max_nodes=N, all_candidates=False,
options=Options(reserve_blocking=...))``, counted in positions so the
machine's load does not change the verdicts; per deal it prints both
verdicts and CPU seconds, at the end the won, lost and unknown counts, the
positions and the positions a CPU second of each, and the deals whose
verdicts differ. ``--share`` sets the hunters' share once the complete
search has entered its first positions (``api.LEARNING_HUNTER_SHARE``,
32 in the solver) to give the complete search more of the budget.

    .venv/bin/python bench/blocking.py --variant generals-patience \\
        --deals 2,8,12 --nodes 30000000
"""

from __future__ import annotations

import argparse
import time

from terrace.board import Board
from terrace.solver import api
from terrace.solver.search import Options
from terrace.solver.survey import parse_range
from terrace.variants import get_rules


def deal_numbers(text: str) -> list[int]:
    """``1-40`` or ``2,8,12``."""
    if "," in text or "-" not in text:
        return [int(part) for part in text.split(",")]
    lo, hi = parse_range(text)
    return list(range(lo, hi + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="generals-patience")
    parser.add_argument("--deals", default="1-10", help="a range such as 1-40, or numbers 2,8,12")
    parser.add_argument("--nodes", type=int, default=10_000_000, help="positions per deal")
    parser.add_argument("--share", type=float, default=api.LEARNING_HUNTER_SHARE,
                        help="the hunters' share after the first positions")
    args = parser.parse_args()
    rules = get_rules(args.variant)
    api.LEARNING_HUNTER_SHARE = args.share
    counts = {switch: {"won": 0, "lost": 0, "unknown": 0} for switch in (False, True)}
    positions = {False: 0, True: 0}
    seconds = {False: 0.0, True: 0.0}
    differ: list[str] = []
    for number in deal_numbers(args.deals):
        board = Board.from_number(number, rules)
        verdicts = []
        for switch in (False, True):
            start = time.process_time()
            result = api.solve(board, max_seconds=86_400, max_nodes=args.nodes, all_candidates=False,
                               short_line=False, options=Options(reserve_blocking=switch))
            spent = time.process_time() - start
            counts[switch][result.result] += 1
            positions[switch] += result.nodes
            seconds[switch] += spent
            verdicts.append(f"{result.result} {result.nodes:,} ({spent:.2f} s)")
        print(f"deal {number}: off {verdicts[0]}, on {verdicts[1]}", flush=True)
        if verdicts[0].split()[0] != verdicts[1].split()[0]:
            differ.append(f"{number} ({verdicts[0].split()[0]} -> {verdicts[1].split()[0]})")
    print()
    print("| switch | won | lost | unknown | positions | CPU s | positions/CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for switch in (False, True):
        c, n, t = counts[switch], positions[switch], seconds[switch]
        print(f"| {'on' if switch else 'off'} | {c['won']} | {c['lost']} | {c['unknown']} "
              f"| {n:,} | {t:.1f} | {n / max(t, 1e-9):,.0f} |")
    print(f"verdicts that differ: {', '.join(differ) or 'none'}")


if __name__ == "__main__":
    main()
