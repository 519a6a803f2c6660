"""CPU seconds of two builds of the compiled core, in A/B pairs.

Each run is a process of its own that loads one build (a ``_core*.so``
file) and solves Admiral's Patience deals 2, 4 and 5 and General's Patience
deals 2 and 12, counted in positions (``bench/digest.py``'s first five
solves: the same work with either build when the search is the same), and
reports the CPU seconds of the solves alone. ``--solves`` names other deals
(``admirals-patience:4``), and ``--all-candidates`` solves every candidate
of each instead of stopping at the first won, where the win-hunters take
nearly all the time. The pairs alternate which
build runs first, so that a machine whose load changes favours neither;
the report gives the median of each build, the median of the ratios B / A
(each pair's), in how many pairs B was faster, and both for each order.

    .venv/bin/python bench/pairs.py /tmp/old.so /tmp/new.so --pairs 20
    .venv/bin/python bench/pairs.py /tmp/old.so /tmp/new.so --solves admirals-patience:4 \\
        --nodes 5000000 --all-candidates
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from digest import SOLVES, load_core

TIMED = SOLVES[:5]


def parse_solves(text: str) -> list[tuple[str, int]]:
    """The deals of ``--solves``: preset and deal number, comma-separated.

    >>> parse_solves("admirals-patience:4,generals-patience:12")
    [('admirals-patience', 4), ('generals-patience', 12)]
    """
    solves = []
    for item in text.split(","):
        name, _, deal = item.partition(":")
        if not name or not deal.isascii() or not deal.isdigit():
            raise SystemExit(f"--solves {text!r}: PRESET:DEAL, comma-separated")
        solves.append((name, int(deal)))
    return solves


def one_run(core: str, nodes: int, solves: list[tuple[str, int]], every: bool) -> float:
    """CPU seconds of the timed solves with the core at ``core`` (in this
    process), every candidate of each when ``every``."""
    load_core(core)
    from terrace.board import Board
    from terrace.limits import MAX_SECONDS
    from terrace.solver import api
    from terrace.variants import get_rules

    boards = [Board.from_number(deal, get_rules(name)) for name, deal in solves]
    start = time.process_time()
    for board in boards:
        api.solve(board, max_seconds=MAX_SECONDS, max_nodes=nodes, all_candidates=every, short_line=False)
    return time.process_time() - start


def timed(core: str, nodes: int, solves: str, every: bool) -> float:
    """``one_run`` in a new process."""
    command = [sys.executable, __file__, "--one", core, "--nodes", str(nodes), "--solves", solves]
    out = subprocess.run([*command, "--all-candidates"] if every else command,
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def report(label: str, pairs: list[tuple[float, float]]) -> str:
    """Medians, the median ratio and the pairs B won, of ``pairs`` (A, B)."""
    if not pairs:
        return f"{label}: no pairs"
    ratios = [b / a for a, b in pairs]
    faster = sum(b < a for a, b in pairs)
    return (f"{label}: {len(pairs)} pairs, A {statistics.median(a for a, _ in pairs):.3f} s, "
            f"B {statistics.median(b for _, b in pairs):.3f} s, median ratio B/A "
            f"{statistics.median(ratios):.3f}, B faster in {faster}")


def main() -> None:
    """Run the pairs and print each and the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cores", nargs="*", help="build A and build B (_core*.so files)")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=2_000_000, help="positions of each solve")
    parser.add_argument("--solves", default=",".join(f"{name}:{deal}" for name, deal in TIMED),
                        help="the deals solved, PRESET:DEAL comma-separated")
    parser.add_argument("--all-candidates", action="store_true", help="solve every candidate of each deal")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    solves = parse_solves(args.solves)
    if args.one:
        print(f"{one_run(args.one, args.nodes, solves, args.all_candidates):.4f}")
        return
    if len(args.cores) != 2 or not all(Path(core).is_file() for core in args.cores):
        parser.error("give two core files, A and B")
    a_core, b_core = args.cores
    first_a: list[tuple[float, float]] = []
    first_b: list[tuple[float, float]] = []
    for i in range(args.pairs):
        if i % 2 == 0:
            a = timed(a_core, args.nodes, args.solves, args.all_candidates)
            b = timed(b_core, args.nodes, args.solves, args.all_candidates)
            first_a.append((a, b))
        else:
            b = timed(b_core, args.nodes, args.solves, args.all_candidates)
            a = timed(a_core, args.nodes, args.solves, args.all_candidates)
            first_b.append((a, b))
        print(f"pair {i + 1}: A {a:.3f} s, B {b:.3f} s, ratio {b / a:.3f}", flush=True)
    print(report("A first", first_a))
    print(report("B first", first_b))
    print(report("all", first_a + first_b))


if __name__ == "__main__":
    main()
