"""Follow the web game's Hint from numbered deals, move after move.

For each deal, asks :func:`terrace.web.hints.find_hint` (what the server's
``POST /api/games/{id}/hint`` runs) for a hint, plays the suggested move,
and asks again, passing the kept winning line back as the server does,
until the game is won or a hint offers no move. Prints per variant how many
games were won, how many were lost (the solver proved that no winning line
remains, the fair hint found the terrace dead, or no move is left at all),
how many ended otherwise (no move to a new position, nothing worth doing,
the per-deal time cap), and checks that no game ever came back to a
position it had reached (a hint to take moves back, ``win-behind``, is
followed by taking them back) and that none wanders on past
:data:`MOVES_PER_CARD` moves a card without ending (``cap``, a defect as a
loop is).

    .venv/bin/python bench/hints.py                                  # deals 1-50, peeking hints
    .venv/bin/python bench/hints.py --variants terrace --deals 1-10 --seconds 1 --jobs 2
    .venv/bin/python bench/hints.py --fair --deals 1-5 --seconds 2   # the default, fair Hint
    .venv/bin/python bench/hints.py --fair --set nodes=20000         # other fair-hint settings
    .venv/bin/python bench/hints.py --fair --variants admirals-patience,empress-of-italy,generals-patience,\
        big-terrace,madame --deals 1-2 --seconds 0.3 --deal-seconds 420 --jobs 2   # the soak of every preset
    .venv/bin/python bench/hints.py --stateless --variants empress-of-italy --deals 1-5 --seconds 1
                                     # terrace.solver.hint(board), which gets the game and nothing else
    .venv/bin/python bench/hints.py --stateless --forget ...        # each hint solving afresh (as before
                                                                    # hint() kept its lines)
    .venv/bin/python bench/hints.py --variants admirals-patience --deals 5-5 --seconds 1 --rule-of-thumb
                                     # an undecided peeking hint as the rule of thumb's move (as before
                                     # it followed the solver's furthest line)

Also prints how long the hints took (median, 90th percentile, longest),
in wall seconds and in this process's CPU seconds (on a loaded machine a
hint ends at its wall budget but a step of its search that cannot be cut
may end late: the CPU seconds tell that from a hint that overruns), and
how many cards were on the foundations where each game not won ended.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from fair import setting
from terrace.board import Board
from terrace.cli.options import seconds_argument
from terrace.moves import Move
from terrace.solver import hint_line
from terrace.solver.api import SolveResult, solve
from terrace.solver.fair import FairSettings
from terrace.solver.hint_line import GAME_OVER, KEPT, NO_NEW_POSITION, NO_WINNING_LINE, TERRACE_DEAD, hint
from terrace.solver.lines import touches
from terrace.solver.survey import parse_range
from terrace.solver.tally import percentile
from terrace.variants import get_rules
from terrace.web.hints import HINT_SETTINGS, find_hint

LOSSES = {NO_WINNING_LINE: "no winning line", TERRACE_DEAD: "no winning line", GAME_OVER: "no move left"}
"""How a followed game ends lost, by the hint's ``why``: no winning line
remains (a dead terrace is a loss proved from the cards in sight), or no
move is left at all."""
LOST_OUTCOMES = tuple(dict.fromkeys(LOSSES.values()))
LATE = 0.1
"""A hint that took this much longer than its budget is counted as late."""
MOVES_PER_CARD = 10
"""A followed game still going after this many moves per card of its decks
is stopped as ``cap``: the hints wander (a cycle longer than any exact
repeat the loop check sees)."""


def stateless_hint(board: Board, seconds: float, forget: bool) -> dict[str, Any]:
    """:func:`terrace.solver.hint_line.hint` as find_hint answers (``kept``
    None: hint() keeps its lines itself); ``forget``: with no line kept."""
    if forget:
        KEPT.clear()
    found = hint(board, seconds)
    why = None
    if found.move is None:
        why = (NO_WINNING_LINE if found.kind == "lost" else GAME_OVER if not board.legal_moves
               else NO_NEW_POSITION)
    return {"move": None if found.move is None else str(found.move), "why": why, "back": found.back,
            "kept": None}


def without_furthest(board: Board, **options: Any) -> SolveResult:
    """The solver without its furthest line's move, so that an undecided
    peeking hint falls back on the rule of thumb."""
    found = solve(board, **options)
    found.best_move = None
    return found


def returns_with_nothing_learnt(board: Board, moves: list[Move]) -> int:
    """How many pile-to-pile moves of ``moves`` (played from ``board``) a
    later move takes straight back, no card shown from the stock in
    between and nothing touching either pile but such pairs themselves (a
    detour inside the detour, as ``t5t3 t2t3 f1t6 t3t2 t3t5``): the two
    achieve nothing."""
    stock = []
    replay = board.copy(stack=False)
    for move in moves:
        stock.append((replay.redeals_used, len(replay.stock)))
        replay.push(move)
    return sum(_taken_back(moves, stock, i) >= 0 for i in range(len(moves)))


def _taken_back(moves: list[Move], stock: list[tuple[int, int]], i: int) -> int:
    """The index of the move that takes the card of move ``i`` straight back
    (see :func:`returns_with_nothing_learnt`), or -1."""
    move = moves[i]
    if move.source != "t" or move.target != "t":
        return -1
    j = i + 1
    while j < len(moves) and stock[j] == stock[i]:
        later = moves[j]
        if touches(later, move.source_index) or touches(later, move.target_index):
            if (later.source, later.source_index, later.target, later.target_index) == (
                    "t", move.target_index, "t", move.source_index):
                return j
            inner = _taken_back(moves, stock, j)
            if inner < 0:
                return -1
            j = inner
        j += 1
    return -1


def follow(variant: str, number: int, seconds: float, fair: bool, deal_seconds: float,
           settings: FairSettings, stateless: bool = False, forget: bool = False) -> dict[str, Any]:
    """Follow the hint from one deal; the outcome, hints asked, moves, seconds
    (each hint's too)."""
    start = time.perf_counter()
    board = Board.from_number(number, get_rules(variant))
    seen = {board.position()}
    kept = None
    hints = backs = 0
    outcome = "time"
    hint_seconds: list[float] = []
    hint_cpu: list[float] = []
    cap = MOVES_PER_CARD * board.rules.card_count
    while time.perf_counter() - start < deal_seconds:
        if board.is_won():
            outcome = "won"
            break
        if len(board.move_stack) >= cap:
            outcome = "cap"
            break
        asked, asked_cpu = time.perf_counter(), time.process_time()
        if stateless:
            found = stateless_hint(board, seconds, forget)
        else:
            found = find_hint(board, seconds, not fair, kept, number, settings=settings)
        hint_seconds.append(time.perf_counter() - asked)
        hint_cpu.append(time.process_time() - asked_cpu)
        hints += 1
        kept = found["kept"]
        if found["move"] is None and found.get("back"):  # a win from an earlier position: go back there
            for _ in range(found["back"]):
                seen.discard(board.position())
                board.pop()
            backs += 1
            continue
        if found["move"] is None:
            outcome = LOSSES.get(found["why"], found["why"])
            break
        board.push(Move.parse(found["move"]))
        position = board.position()
        if position in seen:
            outcome = "loop"
            break
        seen.add(position)
    played = list(board.move_stack)
    returns = returns_with_nothing_learnt(Board.from_number(number, get_rules(variant)), played)
    return {"variant": variant, "deal": number, "outcome": outcome, "hints": hints, "returns": returns,
            "moves": len(board.move_stack), "up": board.foundation_cards, "backs": backs,
            "seconds": time.perf_counter() - start, "hint_seconds": hint_seconds, "hint_cpu": hint_cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="terrace,falling-star")
    parser.add_argument("--deals", default="1-50")
    parser.add_argument("--seconds", type=seconds_argument, default=2.0, help="Seconds per hint.")
    parser.add_argument("--deal-seconds", type=seconds_argument, default=300.0,
                        help="Give a deal up after this long.")
    parser.add_argument("--fair", action="store_true", help="Fair hints instead of peeking ones.")
    parser.add_argument("--set", type=setting, action="append", default=[],
                        help="Another fair-hint setting, name=value (repeatable).")
    parser.add_argument("--stateless", action="store_true",
                        help="Follow terrace.solver.hint(board) (peeking), not the web game's hint.")
    parser.add_argument("--forget", action="store_true",
                        help="With --stateless: forget the kept lines before each hint.")
    parser.add_argument("--rule-of-thumb", action="store_true",
                        help="An undecided peeking hint plays the rule of thumb's move, "
                             "not the first move of the solver's furthest line.")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if args.rule_of_thumb:
        hint_line.solve = without_furthest  # (the pool's processes are forked from this one)
    low, high = parse_range(args.deals)
    deals = range(low, high + 1)
    settings = FairSettings.from_dict({**HINT_SETTINGS.to_dict(), **dict(args.set)})
    kind = "stateless hint()" + (" forgetting its lines" if args.forget else "") if args.stateless else (
        "fair" if args.fair else "peeking")
    if args.rule_of_thumb:
        kind += " (the rule of thumb when undecided)"
    print(f"{kind} hints, {args.seconds:g} s each, deals {args.deals}"
          f"{f', fair settings {dict(args.set)}' if args.set and args.fair else ''}")
    for variant in args.variants.split(","):
        wall = time.perf_counter()
        jobs = [(variant, n, args.seconds, args.fair, args.deal_seconds, settings, args.stateless,
                 args.forget) for n in deals]
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(follow, *zip(*jobs, strict=True)))
        outcomes = Counter(r["outcome"] for r in results)
        times = [r["seconds"] for r in results]
        lost = sum(outcomes[o] for o in LOST_OUTCOMES)
        print(f"{variant}: {len(results)} deals: won {outcomes['won']}, lost {lost}, "
              f"loop {outcomes['loop']}, cap {outcomes['cap']}, "
              f"other {len(results) - outcomes['won'] - lost - outcomes['loop'] - outcomes['cap']} "
              f"({dict(outcomes)}); median {statistics.median(times):.1f} s per deal, "
              f"longest {max(times):.1f} s, hints {sum(r['hints'] for r in results)}, "
              f"wall {time.perf_counter() - wall:.0f} s")
        each = [s for r in results for s in r["hint_seconds"]]
        full = sum(s >= args.seconds for s in each)
        print(f"  hints to take moves back (a win from an earlier position): "
              f"{sum(r['backs'] for r in results)}; cards moved straight back with nothing learnt "
              f"in between: {sum(r['returns'] for r in results)}")
        late = sum(s > args.seconds + LATE for s in each)
        print(f"  a hint took {percentile(each, 50):.3f} s (median), {percentile(each, 90):.3f} s "
              f"(90th percentile), {max(each, default=0.0):.3f} s at most; {full} of {len(each)} "
              f"ran to the {args.seconds:g} s budget, {late} past it by more than {LATE:g} s")
        cpu = [s for r in results for s in r["hint_cpu"]]
        print(f"  in CPU seconds: {percentile(cpu, 50):.3f} s (median), {percentile(cpu, 90):.3f} s "
              f"(90th percentile), {max(cpu, default=0.0):.3f} s at most; "
              f"{sum(s > args.seconds + LATE for s in cpu)} past the budget by more than {LATE:g} s")
        unfinished = [r for r in results if r["outcome"] != "won"]
        if unfinished:
            print(f"  the games not won ended with {statistics.mean(r['up'] for r in unfinished):.1f} "
                  f"cards up on average")
        for r in unfinished:
            print(f"  deal {r['deal']}: {r['outcome']} after {r['moves']} moves, {r['hints']} hints, "
                  f"{r['up']} cards up")


if __name__ == "__main__":
    main()
