"""One win-hunter alone, counted in positions (so the machine's load does
not matter): how many deals it wins, with no complete search and no other
hunter.

Each deal's candidates (one per base card, twins included) get one search
each with the hunter's options, and take turns of ``--turn`` positions until
one wins (its line replayed by the engine) or the deal's positions are
spent. ``--hunter`` is ``nested`` (``Options(nested=True)``), ``nrpa:L``
(``Options(nrpa=L)``), ``beam:W`` (``Options(beam=W)``) or ``lds:K``
(``Options(lds=K)``, the discrepancy hunter); ``--option NAME=VALUE`` sets
another whole-number or true/false field of its ``Options`` (such as
``dig_only=true``), as in ``bench/restarts.py``.

    .venv/bin/python bench/hunters.py --variant admirals-patience --deals 1-60 \\
        --nodes 40000000 --hunter nrpa:2
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from restarts import option
from terrace.board import Board
from terrace.rules import Rules
from terrace.solver.search import Options, Search
from terrace.solver.survey import parse_range
from terrace.solver.twins import chosen
from terrace.variants import get_rules


def hunter_options(hunter: str) -> Options:
    """The options of ``nested``, ``nrpa:L``, ``beam:W`` or ``lds:K``.

    >>> hunter_options("nrpa:2").nrpa, hunter_options("nested").nested, hunter_options("beam:64").beam
    (2, True, 64)
    >>> hunter_options("lds:2").lds
    2
    """
    name, _, size = hunter.partition(":")
    if name == "nested" and not size:
        return Options(nested=True, core="compiled")
    if name in ("nrpa", "beam", "lds") and size.isascii() and size.isdigit() and int(size) > 0:
        try:
            return Options(core="compiled", **{name: int(size)})
        except ValueError as error:
            raise SystemExit(f"--hunter {hunter!r}: {error}") from None
    raise SystemExit(f"--hunter {hunter!r}: nested, nrpa:LEVEL, beam:WIDTH or lds:COUNT")


OPENING = 1000
"""``--open-only``: the positions of a candidate's complete search that decide
whether the candidate is lost at once (the reserve schedule's cut at the
start needs a few)."""


def lost_at_once(start: Board) -> bool:
    """Whether the complete search proves ``start`` lost within
    :data:`OPENING` positions."""
    search = Search(start, Options())
    search.step(seconds=86_400, max_nodes=OPENING)
    return search.result == "lost"


def hunt(starts: list[Board], options: Options, nodes: int, turn: int) -> tuple[bool, int, int]:
    """Whether the hunter wins from one of the candidates' positions
    ``starts`` within ``nodes`` positions, the positions it entered, and
    how many of its candidates' hunters stopped for want of memory (the
    compiled core's limit)."""
    searches = [Search(start, options) for start in starts]
    spent = 0
    while spent < nodes and any(search.result is None for search in searches):
        for start, search in zip(starts, searches, strict=True):
            if search.result is not None:
                continue
            before = search.nodes
            search.step(seconds=86_400, max_nodes=min(turn, max(1, nodes - spent)))
            spent += search.nodes - before
            if search.result == "won":
                if not search.replay(start, search.line)[1].is_won():
                    raise AssertionError(f"a line that does not win: {start.position()}")
                return True, spent, 0
    return False, spent, sum(search.result == "memory" for search in searches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="admirals-patience")
    parser.add_argument("--deals", default="1-60")
    parser.add_argument("--nodes", type=int, default=40_000_000, help="positions per deal")
    parser.add_argument("--turn", type=int, default=1_000_000, help="positions per candidate and turn")
    parser.add_argument("--hunter", default="nrpa:2", help="nested, nrpa:LEVEL, beam:WIDTH or lds:COUNT")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="set another whole-number or true/false field of the hunter's Options, "
                             "e.g. dig_only=true (repeatable)")
    parser.add_argument("--open-only", action="store_true",
                        help="leave out the candidates that the complete search proves lost within "
                             f"{OPENING:,} positions (the deals with none left: not counted)")
    args = parser.parse_args()
    if args.nodes < 1 or args.turn < 1:
        raise SystemExit("--nodes and --turn must be at least 1")
    try:
        options = replace(hunter_options(args.hunter), **dict(option(setting) for setting in args.option))
    except ValueError as error:
        raise SystemExit(f"--option: {error}") from None
    rules: Rules = get_rules(args.variant)
    first, last = parse_range(args.deals)
    won: list[int] = []
    total = 0
    start = time.process_time()
    played = 0
    for deal in range(first, last + 1):
        board = Board.from_number(deal, rules)
        starts = [chosen(board, index) for index in range(rules.candidates)]
        if args.open_only:
            starts = [start for start in starts if not lost_at_once(start)]
            if not starts:
                continue
        played += 1
        win, spent, short = hunt(starts, options, args.nodes, args.turn)
        total += spent
        if win:
            won.append(deal)
        memory = f" ({short} of the candidates' hunters out of memory)" if short else ""
        print(f"deal {deal}: {'won' if win else '-'} after {spent:,} positions{memory}", flush=True)
    settings = "".join(f" {setting}" for setting in args.option)
    print(f"{args.variant}, deals {args.deals}, {args.nodes:,} positions a deal, {args.hunter}{settings}: "
          f"{len(won)} won of {played}, {total:,} positions, {time.process_time() - start:.0f} CPU s")
    print("won:", ", ".join(map(str, won)))


if __name__ == "__main__":
    main()
