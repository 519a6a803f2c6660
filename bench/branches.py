"""Where a cachegrind run's mispredicted branches (or any other event) fall, by function and by source line.

It reads the ``cachegrind.out`` file itself, line by line, so every count
the run recorded is attributed to its file, function and line, inlined code
to the line it came from; the totals printed are those of the whole file
(``cg_annotate``'s own tables carry summary rows, such as "events
annotated", that a script reading them can take for a source line). A
build of the core guided by a profile has line information: Python's
CFLAGS hold ``-g``. Run the solver under cachegrind first, for example

    valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \\
        --cachegrind-out-file=cg.out .venv/bin/python -c 'from terrace.board import Board; ...'
    .venv/bin/python bench/branches.py cg.out --event Bcm --top 30
"""

from __future__ import annotations

import argparse
import collections
from collections.abc import Iterable
from pathlib import Path


class Counts:
    """A cachegrind file's counts: event names, totals, and per (file, function, line)."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.total: collections.Counter[str] = collections.Counter()
        self.lines: dict[tuple[str, str, int], collections.Counter[str]] = {}


def read(text: Iterable[str]) -> Counts:
    """The counts of a ``cachegrind.out`` file's lines."""
    counts = Counts()
    file = function = "???"
    for line in text:
        if line.startswith("events:"):
            counts.events = line.split()[1:]
        elif line.startswith("fl="):
            file = line[3:].strip()
        elif line.startswith("fn="):
            function = line[3:].strip()
        elif line[:1].isdigit():
            number, *values = line.split()
            place = counts.lines.setdefault((file, function, int(number)), collections.Counter())
            for event, value in zip(counts.events, values, strict=False):  # (missing values at the end: 0)
                place[event] += int(value)
                counts.total[event] += int(value)
    return counts


def source_line(file: str, number: int) -> str:
    """The text of a source line, or '' when the file cannot be read."""
    try:
        lines = Path(file).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return lines[number - 1].strip() if 0 < number <= len(lines) else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a cachegrind.out file")
    parser.add_argument("--event", default="Bcm", help="the event to rank by (Bcm: mispredicted conditional "
                                                       "branches; Bim, Ir, D1mr, ...)")
    parser.add_argument("--top", type=int, default=30, help="lines and functions shown")
    args = parser.parse_args()
    with open(args.file, errors="replace") as text:
        counts = read(text)
    if args.event not in counts.events:
        parser.error(f"{args.file} has no event {args.event} (it has {', '.join(counts.events) or 'none'})")
    event, total = args.event, counts.total[args.event] or 1
    print(f"{args.event} in all: {counts.total[event]:,}")
    functions: collections.Counter[tuple[str, str]] = collections.Counter()
    for (file, function, _), values in counts.lines.items():
        functions[(Path(file).name, function)] += values[event]
    print(f"\nby function ({args.top} most)")
    for (file, function), value in functions.most_common(args.top):
        print(f"{value:>14,} {100 * value / total:5.1f}%  {function} ({file})")
    print(f"\nby line ({args.top} most; Bc: conditional branches, Ir: instructions)")
    ranked = sorted(counts.lines.items(), key=lambda item: -item[1][event])[:args.top]
    for (file, function, number), values in ranked:
        text = source_line(file, number)[:80]
        print(f"{values[event]:>14,} {100 * values[event] / total:5.1f}%  Bc {values['Bc']:>13,}  "
              f"Ir {values['Ir']:>14,}  {Path(file).name}:{number} ({function})  {text}")


if __name__ == "__main__":
    main()
