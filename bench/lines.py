"""How long are the solver's winning lines, and how much shorter does
``solve`` make them? Each won deal's line as the hunters found it, and after
the shortening that ``solve`` applies (solver/endgame.py).

Each deal is solved once without the shortening (``short_line=False``);
then its line is shortened with the budget ``solve`` would give it (a
quarter of ``--max-seconds``, at most ``api.SHORTEN_SECONDS``). Per preset
it prints the won deals, the median and longest line before and after, and
the seconds the shortening took (median and longest). Every shortened line
is replayed by the engine.

    .venv/bin/python bench/lines.py                                        # Empress of Italy, deals 1-40
    .venv/bin/python bench/lines.py --variants terrace,big-terrace --deals 1-20 --max-seconds 2
"""

from __future__ import annotations

import argparse
import statistics
import time

from terrace.board import Board
from terrace.cli.options import seconds_argument
from terrace.solver.api import SHORTEN_SECONDS, solve
from terrace.solver.endgame import shorten
from terrace.solver.lines import replays_to_win
from terrace.solver.survey import parse_range
from terrace.variants import get_rules


def row(variant: str, deals: range, max_seconds: float) -> str:
    """One line of the table."""
    rules = get_rules(variant)
    before: list[int] = []
    after: list[int] = []
    took: list[float] = []
    for number in deals:
        board = Board.from_number(number, rules)
        found = solve(board, max_seconds=max_seconds, all_candidates=False, short_line=False)
        if found.result != "won":
            continue
        began = time.perf_counter()
        line = shorten(board, found.moves, seconds=min(SHORTEN_SECONDS, max_seconds / 4))
        took.append(time.perf_counter() - began)
        if not replays_to_win(board, line):  # pragma: no cover - would be a bug
            raise SystemExit(f"{variant} deal {number}: the shortened line does not win")
        before.append(len(found.moves))
        after.append(len(line))
    if not before:
        return f"| {variant} | 0 | | | | | | |"
    return (f"| {variant} | {len(before)} | {statistics.median(before):g} | {max(before)} "
            f"| {statistics.median(after):g} | {max(after)} "
            f"| {statistics.median(took):.2f} | {max(took):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="empress-of-italy")
    parser.add_argument("--deals", default="1-40", help="such as 1-40")
    parser.add_argument("--max-seconds", type=seconds_argument, default=4.0,
                        help="the solve's budget per deal")
    args = parser.parse_args()
    first, last = parse_range(args.deals)
    variants = args.variants.split(",")
    for variant in variants:
        try:
            get_rules(variant)
        except ValueError as error:
            parser.error(str(error))
    print(f"winning lines, deals {first}-{last}, {args.max_seconds:g} s a deal")
    print("| preset | won | median moves | longest | median after | longest after "
          "| median s shortening | longest s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for variant in variants:
        print(row(variant, range(first, last + 1), args.max_seconds), flush=True)


if __name__ == "__main__":
    main()
