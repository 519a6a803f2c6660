"""The rules of the documents the project started from, written out again
from scratch, with none of the engine's tables or checks: which moves are
legal in a position and what each one does. The property tests play random
games on the engine and on this model side by side.

Cards are the engine's numbers (rank = card >> 2 by :mod:`terrace.cards`,
read here through RANK, RED and SUIT only); a position is the engine's lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from terrace.cards import RANK, RED, SUIT
from terrace.rules import Rules, SpaceRule

FULL = 13


@dataclass
class Layout:
    """Where the cards lie (lists run bottom first; stock[-1] is drawn next)."""

    rules: Rules
    base: int
    reserve: list[int]
    foundations: list[list[int]]
    tableau: list[list[int]]
    waste: list[int]
    stock: list[int]
    redeals_used: int
    picks: list[int] = field(default_factory=list)

    def copy(self) -> Layout:
        return Layout(self.rules, self.base, self.reserve[:], [f[:] for f in self.foundations],
                      [p[:] for p in self.tableau], self.waste[:], self.stock[:], self.redeals_used)


def next_up(top: int, card: int, in_suit: bool) -> bool:
    """A foundation goes up one rank, king then ace; alternate colour or suit."""
    if RANK[card] != (RANK[top] + 1) % 13:
        return False
    return SUIT[card] == SUIT[top] if in_suit else RED[card] != RED[top]


def next_down(top: int, card: int) -> bool:
    """A pile goes down one rank, ace then king, alternating colour."""
    return RANK[card] == (RANK[top] - 1) % 13 and RED[card] != RED[top]


def top_card(lay: Layout, place: str) -> int | None:
    """The card a move from ``place`` would take ('r', 'w', 't3', 'f2')."""
    if place == "r":
        return lay.reserve[-1] if lay.reserve else None
    if place == "w":
        return lay.waste[-1] if lay.waste else None
    pile = (lay.tableau if place[0] == "t" else lay.foundations)[int(place[1:]) - 1]
    if place[0] == "f":
        won = not lay.reserve and not lay.waste and not lay.stock and not any(lay.tableau)
        if not lay.rules.foundation_return or len(pile) < 2 or won:
            return None
    return pile[-1] if pile else None


def legal(lay: Layout) -> set[str]:
    """Every legal move, foundations always named (``wf3``, not ``wf``)."""
    rules = lay.rules
    if lay.base < 0:
        return {f"c{i}" for i in range(1, rules.candidates + 1)}
    moves = set()
    if lay.stock or (lay.waste and lay.redeals_used < rules.redeals):
        moves.add("s")
    places = ["r", "w", *(f"t{i}" for i in range(1, rules.piles + 1)),
              *(f"f{i}" for i in range(1, rules.foundation_count + 1))]
    for place in places:
        card = top_card(lay, place)
        if card is None:
            continue
        if place[0] != "f":
            for j, f in enumerate(lay.foundations, 1):
                if (not f and RANK[card] == lay.base) or (
                        f and len(f) < FULL and next_up(f[-1], card, rules.in_suit)):
                    moves.add(f"{place}f{j}")
        if place == "r":
            continue  # the terrace card goes to a foundation only
        for j, pile in enumerate(lay.tableau, 1):
            if place == f"t{j}":
                continue
            if pile:
                if next_down(pile[-1], card):
                    moves.add(f"{place}t{j}")
            elif rules.spaces is SpaceRule.FREE or (rules.spaces is SpaceRule.WASTE and place == "w"):
                moves.add(f"{place}t{j}")
    return moves


def play(lay: Layout, move: str) -> None:
    """Make a legal move, then fill spaces (automatic spaces)."""
    rules = lay.rules
    if move[0] == "c":
        chosen = lay.tableau[int(move[1:]) - 1].pop()
        lay.base = RANK[chosen]
        lay.foundations[0].append(chosen)
        free = 1
        # (the English and German rules send the others of its rank up too;
        # the web version leaves them in the tableau: promote_candidates)
        for pile in lay.tableau[: rules.candidates] if rules.promote_candidates else []:
            if pile and RANK[pile[-1]] == lay.base:
                lay.foundations[free].append(pile.pop())
                free += 1
        for pile in lay.tableau:
            if not pile and lay.stock:
                pile.append(lay.stock.pop())
        return
    if move == "s":
        if lay.stock:
            lay.waste.append(lay.stock.pop())
        else:
            lay.stock = lay.waste[::-1]
            lay.waste = []
            lay.redeals_used += 1
    else:
        source, target = (move[:1], move[1:]) if move[0] in "rw" else _split(move)
        card = _take(lay, source)
        (lay.foundations if target[0] == "f" else lay.tableau)[int(target[1:]) - 1].append(card)
    if rules.spaces is SpaceRule.AUTO:
        for pile in lay.tableau:
            if not pile and (lay.waste or lay.stock):
                pile.append((lay.waste or lay.stock).pop())


def _split(move: str) -> tuple[str, str]:
    cut = next(i for i in range(1, len(move)) if move[i] in "tf")
    return move[:cut], move[cut:]


def _take(lay: Layout, place: str) -> int:
    if place == "r":
        return lay.reserve.pop()
    if place == "w":
        return lay.waste.pop()
    return (lay.tableau if place[0] == "t" else lay.foundations)[int(place[1:]) - 1].pop()
