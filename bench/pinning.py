"""The pure-Python complete search with the reserve schedule with blocking, and with pinned keys.

For each base card that the reserve schedule does not cut, the Python
search (``Options(core="python", reserve_blocking=True)``, no win-hunters)
runs with the cut asked as ``reserve_blocked(state, pinning=True)``
(docs/winnability.md, "Pinned keys"), and prints at each report its
result (None while it runs; ``lost`` once it has explored everything),
the positions entered, how many the cut was asked about, how many it cut
and how many of those the cut without pinning would have cut as well, and
the CPU seconds. Counted in positions, so the machine's load does not
change the figures; pinning is in the Python search only, so budgets are
small.

    .venv/bin/python bench/pinning.py --deals 51,175 --nodes 20000
"""

from __future__ import annotations

import argparse
import time

from terrace.solver import search
from terrace.solver.prune import reserve_blocked
from terrace.solver.search import Options, Search
from terrace.solver.state import State
from waiting import open_base_cards


class Counted:
    """The cut with pinning, counting its answers and the plain cut's."""

    def __init__(self) -> None:
        self.asked = self.cut = self.plain = 0

    def __call__(self, s: State) -> bool:
        self.asked += 1
        cut = reserve_blocked(s, pinning=True)
        self.cut += cut
        self.plain += cut and reserve_blocked(s)
        return cut


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="generals-patience")
    parser.add_argument("--deals", default="175", help="a range such as 1-40, or numbers 2,8,12")
    parser.add_argument("--nodes", type=int, default=20_000, help="positions per base card")
    parser.add_argument("--report", type=int, default=100_000, help="positions between reports")
    args = parser.parse_args()
    for number, choice, board in open_base_cards(args.deals, args.variant):
        counted = Counted()
        search.reserve_blocked = counted  # (the Python search asks the cut by this name)
        solver = Search(board, Options(core="python", reserve_blocking=True))
        began = time.process_time()
        while True:
            ended = solver.step(seconds=86_400, max_nodes=min(args.report, args.nodes - solver.nodes))
            print(f"deal {number} {choice}: {solver.result}, {solver.nodes:,} positions, "
                  f"asked {counted.asked:,}, cut {counted.cut:,} (without pinning {counted.plain:,}), "
                  f"{time.process_time() - began:.1f} CPU s", flush=True)
            if ended or solver.nodes >= args.nodes:
                break


if __name__ == "__main__":
    main()
