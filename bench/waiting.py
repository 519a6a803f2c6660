"""What the terrace makes a suit game's cards wait for, deal by deal.

For each base card that the reserve schedule does not cut, and for each
reserve card in play order, two facts every winning line obeys
(docs/winnability.md, "Limits and open work", General's Patience):

* *needed*: the copies of each slot key that the greedy reserve schedule
  uses before that reserve card goes up (no schedule uses fewer): so many
  copies of the key must have left the stock first, and the reserve card
  cannot go up before the stock has given out, for every key, that many
  of its copies outside the reserve and the foundations, the ones in the
  tableau and the waste counted first (``draw``: the place in the stock
  of the last copy needed, 1 for the next card, 0 when none is);
* *pinned*: the slot keys of which no further copy can go up before that
  reserve card, because a foundation of the class raised past the key
  could then no longer serve the class's reserve cards still to come (the
  greedy schedule of the reserve schedule, copies not counted). Each card
  of a pinned key that lies in the tableau or has left the stock by
  ``draw`` is outside the foundations when the reserve card goes up
  (``waiting``).

The summary line names the reserve card with the most cards waiting;
``--events`` prints every reserve card.

    .venv/bin/python bench/waiting.py --variant generals-patience --deals 2,8,18
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass

from blocking import deal_numbers
from terrace.board import Board
from terrace.cards import card_code
from terrace.solver.prune import pinned_keys, reserve_dead, schedule_demand
from terrace.solver.state import State
from terrace.variants import get_rules


@dataclass
class Wait:
    """One reserve card's row: its number in play order, the card, the
    copies needed before it, the stock place by which they can all have
    left the stock, and the cards that then wait outside the foundations."""

    number: int
    card: str
    needed: int
    draw: int
    waiting: int


def waits(board: Board) -> list[Wait]:
    """The rows of ``board`` (past the choice of the base card)."""
    s = State(board, True, 0)
    t = s.t
    place: dict[int, list[int]] = {}  # slot key -> places out of the stock, 0 = out already
    for c in [c for pile in s.piles for c in pile] + s.wst:
        place.setdefault(t.sk[c], []).append(0)
    for d, c in enumerate(reversed(s.stk)):
        place.setdefault(t.sk[c], []).append(d + 1)
    rows = []
    for n, (demand, pinned) in enumerate(zip(schedule_demand(s), pinned_keys(s), strict=False)):
        draw = max((place[k][used - 1] for k, used in demand.items()), default=0)
        waiting = sum(d <= draw for k in pinned for d in place.get(k, []))
        card = card_code(s.res[len(s.res) - 1 - n])
        rows.append(Wait(n + 1, card, sum(demand.values()), draw, waiting))
    return rows


def open_base_cards(deals: str, variant: str) -> Iterator[tuple[int, str, Board]]:
    """Each deal's number, base card (empty for a turned base) and board
    after it, for every base card the reserve schedule does not cut (and
    a reserve left, no foundation-return)."""
    rules = get_rules(variant)
    for number in deal_numbers(deals):
        start = Board.from_number(number, rules)
        for choice in list(start.legal_moves) if start.choosing else [None]:
            board = start.copy(stack=False)
            if choice is not None:
                board.push(choice)
            s = State(board, True, 0)
            if not (s.ret or not s.res or reserve_dead(s)):
                yield number, str(choice or ""), board


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="generals-patience")
    parser.add_argument("--deals", default="2", help="a range such as 1-40, or numbers 2,8,12")
    parser.add_argument("--events", action="store_true", help="print every reserve card's row")
    args = parser.parse_args()
    for number, choice, board in open_base_cards(args.deals, args.variant):
        rows = waits(board)
        most = max(rows, key=lambda r: (r.waiting, r.number))
        print(f"deal {number} {choice}: {most.waiting} cards wait when reserve card {most.number} "
              f"({most.card}) goes up, after {most.needed} copies needed, the last at stock place "
              f"{most.draw} of {len(board.stock)} at the earliest", flush=True)
        for row in rows if args.events else []:
            print(f"  {row.number:2} {row.card}: needed {row.needed:2}, draw {row.draw:2}, "
                  f"waiting {row.waiting:2}")


if __name__ == "__main__":
    main()
