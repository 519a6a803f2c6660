"""Is the choice of base card what the solver's budget is lost on?

Each candidate of each deal is solved on its own with the whole budget
(``solve(chosen(board, i), max_nodes=N)``), counted in positions so the
machine's load does not matter. Per deal it prints each candidate's result
and positions; at the end, how many deals some candidate won within the
budget and within smaller shares of it (the share ``N / candidates`` is what
an even split would give each one), next to ``solve(board, max_nodes=N,
all_candidates=False)``, the solver's own way of sharing the budget.

    .venv/bin/python bench/candidates.py --variant admirals-patience \\
        --deals 1-40 --nodes 10000000
"""

from __future__ import annotations

import argparse

from terrace.board import Board
from terrace.solver import api
from terrace.solver.survey import parse_range
from terrace.solver.twins import chosen
from terrace.variants import get_rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="admirals-patience")
    parser.add_argument("--deals", default="1-40", help="a range such as 1-40")
    parser.add_argument("--nodes", type=int, default=10_000_000, help="positions per candidate")
    args = parser.parse_args()
    rules = get_rules(args.variant)
    if not rules.picks_base:
        raise SystemExit(f"{args.variant} has no choice of base card")
    lo, hi = parse_range(args.deals)
    # for each deal, the positions each winning candidate needed
    wins: dict[int, list[int]] = {}
    shared = 0
    for number in range(lo, hi + 1):
        board = Board.from_number(number, rules)
        alone = [api.solve(chosen(board, i), max_seconds=86_400, max_nodes=args.nodes)
                 for i in range(rules.candidates)]
        together = api.solve(board, max_seconds=86_400, max_nodes=args.nodes, all_candidates=False)
        shared += together.result == api.WON
        wins[number] = [r.nodes for r in alone if r.result == api.WON]
        cells = " ".join(f"c{i + 1}:{r.result[0]}{r.nodes / 1e6:.2f}M" for i, r in enumerate(alone))
        print(f"deal {number}: {cells}  together: {together.result}", flush=True)
    deals = hi - lo + 1
    print(f"\n{args.variant} deals {args.deals}, {args.nodes:,} positions")
    for share in (args.nodes // rules.candidates, args.nodes // 2, args.nodes):
        won = sum(1 for needed in wins.values() if any(n <= share for n in needed))
        print(f"  some candidate alone won within {share:>12,}: {won} of {deals}")
    print(f"  the solver, all candidates sharing {args.nodes:,}: {shared} of {deals}")


if __name__ == "__main__":
    main()
