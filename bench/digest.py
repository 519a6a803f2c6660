"""A digest of fixed solves: the same digest before and after a change to the
compiled core means the search is the same (the same positions in the same
order, the same lines and best lines).

Each case runs counted in positions, so the digest does not depend on the
machine or its load: ``solve`` (one candidate after another, no shortening)
of Admiral's Patience deals 2, 4 and 5, General's Patience deals 2 and 12,
and four deals it wins (Terrace 5, Big Terrace 7, and Admiral's Patience 10
and General's Patience 25, which the restarting hunters win only after
1.9 and 1.4 million positions: a deal the hunters do not win spends the
whole budget whatever they do, so a change to the hunters alone may show only
in such wins), then the complete search
alone (``Search.step``, half the positions) on the first base card the
reserve schedule does not cut at once, of Terrace deal 5, Falling Star deal
2, General's Patience deal 2 and Admiral's Patience deal 4, with its best
line. Each case's verdict, positions, candidates, best move and lines are
hashed (SHA-256, its first 16 hex digits printed). ``--core`` loads another
build of the core (a ``_core*.so`` file) in place of the one the solver
would import, so that two builds can be compared from one checkout.

    .venv/bin/python bench/digest.py
    .venv/bin/python bench/digest.py --core /tmp/old/_core.cpython-311-x86_64-linux-gnu.so
"""

from __future__ import annotations

import argparse
import hashlib
import runpy
import time
from pathlib import Path

SOLVES = (("admirals-patience", 2), ("admirals-patience", 4), ("admirals-patience", 5),
          ("generals-patience", 2), ("generals-patience", 12), ("terrace", 5), ("big-terrace", 7),
          ("admirals-patience", 10), ("generals-patience", 25))
COMPLETE = (("terrace", 5), ("falling-star", 2), ("generals-patience", 2), ("admirals-patience", 4))
TRAINING = Path(__file__).resolve().parents[1] / "src" / "terrace" / "solver" / "ccore" / "train.py"


def load_core(path: str) -> None:
    """Make the core built at ``path`` the one the solver imports (before it is
    imported): the training run's loader (``ccore/train.py``)."""
    runpy.run_path(str(TRAINING))["load_core"](path)


def records(nodes: int) -> list[str]:
    """One line of text for each case: what its search found."""
    from terrace.board import Board
    from terrace.limits import MAX_SECONDS
    from terrace.solver import api
    from terrace.solver.search import Search, core_available
    from terrace.variants import get_rules

    if not core_available():
        raise SystemExit("the compiled core is not built")
    out = []
    for name, deal in SOLVES:
        board = Board.from_number(deal, get_rules(name))
        r = api.solve(board, max_seconds=MAX_SECONDS, max_nodes=nodes, all_candidates=False, short_line=False)
        out.append(f"{name} {deal}: {r.result} {r.nodes} {r.reason} {r.best_move} "
                   f"{[(str(m), v) for m, v in r.candidates]} {[str(m) for m in r.moves]}")
    for name, deal in COMPLETE:
        board = Board.from_number(deal, get_rules(name))
        for move in board.legal_moves:  # the first base card the reserve schedule does not cut at once
            child = board.copy()
            child.push(move)
            search = Search(child)
            search.step(1e6, nodes // 2)
            if search.nodes > 1:
                break
        out.append(f"{name} {deal} {move}: {search.result} {search.nodes} {search.best_found} "
                   f"{search.best_first} {search.line} {search.best_line()}")
    return out


def main() -> None:
    """Print the digest (and each case with ``--verbose``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=2_000_000, help="positions of each solve")
    parser.add_argument("--core", help="a _core*.so file to load in place of the installed core")
    parser.add_argument("--verbose", action="store_true", help="print each case too")
    args = parser.parse_args()
    if args.core:
        load_core(args.core)
    start = time.process_time()
    lines = records(args.nodes)
    if args.verbose:
        for line in lines:
            print(line[:300])
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    print(f"{digest[:16]}  ({args.nodes:,} positions a solve, {time.process_time() - start:.2f} CPU s)")


if __name__ == "__main__":
    main()
