"""Win-hunter restart lengths, counted in positions (so the machine's load
does not matter): how many deals each restart policy wins.

Policies: ``default`` (the solver's own, ``api.restart_nodes``: 1,000
positions, ten times more for four decks in alternate colours), ``fixed:N``
(every hunter restarts after N positions) and ``luby:N`` (N times Luby's
sequence 1, 1, 2, 1, 1, 2, 4, ...).
Adding ``/fresh`` to a policy (``default/fresh``) makes every hunter start
from the top, never from the best line so far (``Options(elite=False)``).
Each deal is solved with ``solve(board, max_nodes=..., all_candidates=False)``
under each policy in turn; each deal's result is printed as it ends, and
at the end the table gives the deals won, the deals only that policy won
against the default, and CPU seconds. ``--set NAME=VALUE``
changes one of the solver's tuning numbers in :mod:`terrace.solver.api`
(``ELITE_EVERY``, ``LATE_HUNTER_SHARE``, ``RESTART_NODES``, ...) for the
whole run. ``--seeds N`` runs every policy N times with different seeds
(where the hunters restart from): the spread of those counts is what luck
alone moves, the bar any setting has to clear; ``--first-seed K`` starts
those seeds K after the solver's own, so that more seeds can be added to a
run without running its first ones again. With several seeds or policies
a second table gives what runs sharing a deal's budget would win (``k``
seeds of ``nodes / k`` positions each, a portfolio), read off the
positions each win took. ``--option NAME=VALUE`` sets
a whole-number or true/false field of the solver's ``Options`` (such as
``live_best=true`` or ``reserve_weight=2``) for every solve of the run.

    .venv/bin/python bench/restarts.py --variant admirals-patience --deals 1-60 \\
        --nodes 40000000 --policies default,fixed:3000,luby:1000
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

from terrace.board import Board
from terrace.rules import Rules
from terrace.solver import api
from terrace.solver.search import Options, Search
from terrace.solver.survey import parse_range
from terrace.variants import get_rules


def luby(i: int) -> int:
    """The ``i``-th term (from 1) of Luby's sequence.

    >>> [luby(i) for i in range(1, 16)]
    [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    """
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    if i == (1 << k) - 1:
        return 1 << (k - 1)
    return luby(i - (1 << (k - 1)) + 1)


def length_of(policy: str) -> Callable[[int], int] | None:
    """Restart length by restart number (from 1); None for the solver's own
    policy."""
    name, _, unit = policy.removesuffix("/fresh").partition(":")
    if name == "default":
        return None
    if not unit.isascii() or not unit.isdigit() or int(unit) < 1:
        raise SystemExit(f"policy {policy!r}: N must be a whole number of positions, at least 1")
    size = int(unit)
    if name == "fixed":
        return lambda restart: size
    if name == "luby":
        return lambda restart: size * luby(restart)
    raise SystemExit(f"unknown policy {policy!r}: default, fixed:N or luby:N")


ORIGINAL = api._Task._new_hunter


def use(length: Callable[[int], int] | None) -> None:
    """Make the solver's hunters restart after ``length(restart)`` positions
    (None: the solver's own lengths). Other lengths need the hunters' Python
    loop, which asks for each hunter's length; the compiled core's loop
    (``api.HUNT_IN_CORE``) takes one length for all."""
    api.HUNT_IN_CORE = length is None
    if length is None:
        api._Task._new_hunter = ORIGINAL  # type: ignore[method-assign]
        return

    def new_hunter(task: api._Task) -> Search:
        hunter = ORIGINAL(task)
        task.limit = length(task.hunters.restarts)
        return hunter

    api._Task._new_hunter = new_hunter  # type: ignore[method-assign, assignment]


def override(setting: str) -> None:
    """Set one of the solver's tuning numbers (``NAME=VALUE``, an upper-case
    int or float of :mod:`terrace.solver.api`) for the rest of the run."""
    name, _, text = setting.partition("=")
    current = getattr(api, name, None) if name.isupper() else None
    if isinstance(current, bool) or not isinstance(current, (int, float)):
        raise SystemExit(f"--set {setting!r}: NAME must be a number of terrace.solver.api, e.g. ELITE_EVERY")
    try:
        value = type(current)(text)
    except ValueError:
        kind = "a whole number" if isinstance(current, int) else "a number"
        raise SystemExit(f"--set {setting!r}: {text!r} is not {kind}") from None
    if not (value > 0 and math.isfinite(value)):
        raise SystemExit(f"--set {setting!r}: the value must be a finite number above 0")
    setattr(api, name, value)


def option(setting: str) -> tuple[str, int | bool]:
    """One field of :class:`Options` from ``NAME=VALUE``: a whole number,
    or ``true``/``false`` for a switch.

    >>> option("live_best=true"), option("reserve_weight=2")
    (('live_best', True), ('reserve_weight', 2))
    >>> option("reserve_weight=0")
    Traceback (most recent call last):
    SystemExit: --option 'reserve_weight=0': reserve weight 0 is not a whole number from 1 to 64
    >>> option("core=python")
    Traceback (most recent call last):
    SystemExit: --option 'core=python': NAME must be a whole-number or true/false field of Options
    >>> option("live_best=1")
    Traceback (most recent call last):
    SystemExit: --option 'live_best=1': live_best is true or false
    """
    name, _, text = setting.partition("=")
    current = getattr(Options(), name, None) if name in Options.__dataclass_fields__ else None
    if isinstance(current, bool):
        if text not in ("true", "false"):
            raise SystemExit(f"--option {setting!r}: {name} is true or false")
        return name, text == "true"
    if not isinstance(current, int):
        raise SystemExit(f"--option {setting!r}: NAME must be a whole-number or true/false field of Options")
    if not text.isascii() or not text.isdigit():
        raise SystemExit(f"--option {setting!r}: {text!r} is not a whole number")
    try:
        Options(**{name: int(text)})  # type: ignore[arg-type]
    except ValueError as error:
        raise SystemExit(f"--option {setting!r}: {error}") from None
    return name, int(text)


def won_deals(rules: Rules, deals: range, nodes: int, options: Options, policy: str) -> dict[int, int]:
    """The deals the solver wins within ``nodes`` positions each, with the
    positions each win took; each deal's result is printed as it ends (a
    run can take hours)."""
    won = {}
    for deal in deals:
        start = time.process_time()
        result = api.solve(Board.from_number(deal, rules), max_seconds=86_400, max_nodes=nodes,
                           all_candidates=False, options=options)
        if result.result == api.WON:
            won[deal] = result.nodes
        print(f"{policy}, seed {options.seed}, deal {deal}: {result.result} after {result.nodes:,} "
              f"positions, {time.process_time() - start:.2f} CPU s", flush=True)
    return won


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="admirals-patience")
    parser.add_argument("--deals", default="1-60")
    parser.add_argument("--nodes", type=int, default=4_000_000, help="positions per deal")
    parser.add_argument("--policies", default="default,fixed:3000,luby:1000",
                        help="comma-separated, of default, fixed:N and luby:N, each with /fresh "
                             "added or not (default: %(default)s)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="override a number of terrace.solver.api for the whole run, "
                             "e.g. ELITE_EVERY=1 or LATE_HUNTER_SHARE=32 (repeatable)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="set a whole-number or true/false field of the solver's Options for every "
                             "solve, e.g. live_best=true or reserve_weight=2 (repeatable)")
    parser.add_argument("--seeds", type=int, default=1, metavar="N",
                        help="run every policy with N seeds (the solver's own, then the next ones) "
                             "to see how much the count moves by luck alone")
    parser.add_argument("--first-seed", type=int, default=0, metavar="K",
                        help="start the seeds K after the solver's own (default: %(default)s), to add "
                             "seeds to an earlier run")
    args = parser.parse_args()
    if not 1 <= args.seeds <= 100:
        raise SystemExit(f"--seeds {args.seeds}: give a whole number from 1 to 100")
    if not 0 <= args.first_seed <= 1000:
        raise SystemExit(f"--first-seed {args.first_seed}: give a whole number from 0 to 1000")
    for setting in args.set:
        override(setting)
    fields = dict(option(setting) for setting in args.option)
    rules = get_rules(args.variant)
    first, last = parse_range(args.deals)
    policies = [(policy, length_of(policy), not policy.endswith("/fresh"))
                for policy in args.policies.split(",")]  # all checked first
    seeds = [Options().seed + args.first_seed + i for i in range(args.seeds)]
    deals = range(first, last + 1)
    wins: dict[str, list[dict[int, int]]] = {}
    seconds: dict[str, float] = {}
    try:
        for policy, length, elite in policies:
            use(length)
            start = time.process_time()
            wins[policy] = [won_deals(rules, deals, args.nodes,
                                      Options(elite=elite, seed=seed, **fields),  # type: ignore[arg-type]
                                      policy)
                            for seed in seeds]
            seconds[policy] = time.process_time() - start
    finally:
        use(None)
    print()
    first = [f"first seed {seeds[0]}"] if args.first_seed else []
    print(report(args.variant, args.deals, args.nodes, args.set + args.option + first,
                 {policy: [set(won) for won in per_seed] for policy, per_seed in wins.items()}, seconds))
    if args.seeds > 1 or len(wins) > 1:
        print()
        print(shares(args.nodes, wins))


def report(variant: str, deals: str, nodes: int, settings: list[str],
           wins: dict[str, list[set[int]]], seconds: dict[str, float]) -> str:
    """The table: per policy the deals won with each seed, and with any.

    >>> print(report("terrace", "1-3", 10, [], {"default": [{1, 2}], "luby:5": [{1}]},
    ...              {"default": 1.0, "luby:5": 2.0}))
    terrace, deals 1-3, 10 positions per deal
    <BLANKLINE>
    | policy | won | only this won | only default won | CPU s | deals won |
    |---|---:|---:|---:|---:|---|
    | default | 2 | 0 | 0 | 1 | 1, 2 |
    | luby:5 | 1 | 0 | 1 | 2 | 1 |
    >>> print(report("terrace", "1-3", 10, ["FOCUS=1"], {"default": [{1, 2}, {2, 3}]}, {"default": 1.0}))
    terrace, deals 1-3, 10 positions per deal, FOCUS=1, 2 seeds
    <BLANKLINE>
    | policy | won | only this won | only default won | CPU s | deals won |
    |---|---:|---:|---:|---:|---|
    | default | 2, 2 (any seed: 3) | 0 | 0 | 1 | 1, 2, 3 |
    """
    runs = len(next(iter(wins.values())))
    base = set().union(*wins.get("default", [set()]))
    head = "".join(f", {setting}" for setting in settings) + (f", {runs} seeds" if runs > 1 else "")
    lines = [f"{variant}, deals {deals}, {nodes:,} positions per deal{head}", "",
             "| policy | won | only this won | only default won | CPU s | deals won |",
             "|---|---:|---:|---:|---:|---|"]
    for policy, per_seed in wins.items():
        won = set().union(*per_seed)
        counts = ", ".join(str(len(w)) for w in per_seed) + (f" (any seed: {len(won)})" if runs > 1 else "")
        lines.append(f"| {policy} | {counts} | {len(won - base)} | {len(base - won)} "
                     f"| {seconds[policy]:.0f} | {', '.join(map(str, sorted(won)))} |")
    return "\n".join(lines)


def shares(nodes: int, wins: dict[str, list[dict[int, int]]]) -> str:
    """What runs that share a deal's budget would win: ``k`` runs of
    ``nodes / k`` positions each (a portfolio of seeds, or of policies),
    read off the positions each win took. A solve counted in positions
    finds the same things up to any budget, so a deal won after at most
    ``nodes / k`` positions is won with that budget (the rare win whose
    last turn began below it and ended above it is not counted). Per
    policy, its seeds in groups of ``k`` (1, 2, 4, ... up to its seeds),
    the deals any run of a group won; with several policies, also each
    seed of all of them together, ``nodes / policies`` each.

    >>> print(shares(100, {"default": [{1: 10, 2: 60}, {2: 20, 3: 90}], "luby:5": [{4: 40}, {5: 70}]}))
    deals won by k runs of a budget's k-th part each (the groups of k seeds in turn)
    <BLANKLINE>
    | runs | positions each | default | luby:5 |
    |---|---:|---|---|
    | 1 | 100 | 2, 2 | 1, 1 |
    | 2 | 50 | 2 | 1 |
    <BLANKLINE>
    all 2 policies together, 50 positions each: 2 (seed 1), 1 (seed 2)
    """
    runs = len(next(iter(wins.values())))
    lines = ["deals won by k runs of a budget's k-th part each (the groups of k seeds in turn)", "",
             f"| runs | positions each | {' | '.join(wins)} |", "|---|---:|" + "---|" * len(wins)]
    k = 1
    while k <= runs:
        counts = []
        for per_seed in wins.values():
            groups = [per_seed[i:i + k] for i in range(0, runs - k + 1, k)]
            counts.append(", ".join(str(len({deal for won in group for deal, used in won.items()
                                                 if used <= nodes // k})) for group in groups))
        lines.append(f"| {k} | {nodes // k:,} | {' | '.join(counts)} |")
        k *= 2
    if len(wins) > 1:
        each = nodes // len(wins)
        together = [len({deal for per_seed in wins.values() for deal, used in per_seed[i].items()
                         if used <= each}) for i in range(runs)]
        lines += ["", f"all {len(wins)} policies together, {each:,} positions each: "
                  + ", ".join(f"{count} (seed {i + 1})" for i, count in enumerate(together))]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
