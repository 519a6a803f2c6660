"""Can an argument that forgets the order of the piles prove a deal lost?

The *pile-free game* is the game with the tableau kept as a bag of cards:
any card in it may go up when a foundation takes it, and a waste card may
join it while the bag can still be laid out as at most ``piles`` runs
(each card on a card of the other colour one rank higher), counting a card
that has gone up as a holder still (so a move up never costs room). The
reserve, the stock and the waste keep their order. Every line of the real
game is a line of the pile-free game, so a deal whose pile-free game is won
cannot be proved lost by any argument that holds in the pile-free game:
counts of copies, the reserve schedule, the waste's order, room in the
piles counted by runs. With ``--strict``, the *strict* game: a card that
has gone up holds nothing, so room is counted as the real piles count it
(every real line is a line of the strict game as well, and the strict
game's lines are lines of the pile-free game). docs/winnability.md ("Limits
and open work") reports what both found on General's Patience. ``--real N``
first checks that claim where it can be checked: the solver's winning lines
of deals 1-N, each replayed move by move as a line of the strict game.

For each candidate that the reserve schedule does not cut, the script hunts
for a pile-free win (depth-first with a table of positions, restarted with
shuffled moves), replays the line it finds with a separate checker of the
pile-free rules, and prints the result; "unknown" means no win was found
within the budget, not a loss. Suit foundations with automatic spaces, one
pass and no foundation return only (General's and Admiral's Patience).

    .venv/bin/python bench/pilefree.py --variant generals-patience \\
        --deals 2,8,18 --tries 100 --nodes 20000
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass

from terrace.board import Board
from terrace.cards import RANK, RED, SUIT
from terrace.moves import Move as RealMove
from terrace.rules import FoundationBuild, SpaceRule
from terrace.solver import api
from terrace.solver.prune import terrace_dead
from terrace.solver.twins import chosen
from terrace.variants import get_rules

Move = tuple[str, int]
"""A pile-free move: (kind, card); kinds: ``s`` draw, ``rf`` reserve up,
``wf`` waste up, ``tf`` tableau card up, ``wt`` waste card into the bag."""
Heights = tuple[tuple[int, ...], ...]
"""Per suit, the sorted heights of its foundations (0: not started)."""

RUN_TYPE = [RANK[c] * 2 + int(RED[c]) for c in range(52)]
"""A card's rank and colour, the part of it that runs care about."""
NONE_UP = [0] * 52
"""No card gone up: what :func:`runs_needed` is given in the strict game, where
a card that has gone up holds nothing."""
HOLDER = [((t // 2 + 1) % 13) * 2 + 1 - t % 2 for t in range(26)]
"""The rank and colour a card of each rank and colour may lie on."""


def runs_needed(bag: list[int], gone_up: list[int]) -> int:
    """The fewest runs the cards of ``bag`` (copies per card) can be laid
    out in, with the cards of ``gone_up`` counted as holders too: each card
    lacking a holder of its own starts a run.

    >>> bag = [0] * 52
    >>> bag[12 * 4] = bag[11 * 4 + 1] = 1  # K♠ and Q♥: one run
    >>> runs_needed(bag, [0] * 52)
    1
    """
    wanting, holders = [0] * 26, [0] * 26
    for card in range(52):
        wanting[RUN_TYPE[card]] += bag[card]
        holders[RUN_TYPE[card]] += bag[card] + gone_up[card]
    runs = sum(max(0, wanting[t] - holders[HOLDER[t]]) for t in range(26))
    return max(runs, 1) if any(wanting) else 0


@dataclass
class PileFree:
    """The pile-free game of a board whose base card is chosen."""

    decks: int
    piles: int
    base: int
    stock: list[int]
    reserve: list[int]
    heights: Heights
    bag: list[int]
    gone_up: list[int]

    @classmethod
    def of(cls, board: Board) -> PileFree:
        rules = board.rules
        if (rules.foundations is not FoundationBuild.SUIT or rules.spaces is not SpaceRule.AUTO
                or rules.redeals or rules.foundation_return or board.choosing or board.waste):
            raise SystemExit("the pile-free game here needs suit foundations, automatic spaces, "
                             "one pass, no foundation return, a chosen base card and an empty waste")
        heights: list[list[int]] = [[] for _ in range(4)]
        gone_up = [0] * 52
        for foundation in board.foundations:
            if foundation:
                heights[SUIT[foundation[0]]].append(len(foundation))
            for card in foundation:
                gone_up[card] += 1
        bag = [0] * 52
        for pile in board.tableau:
            for card in pile:
                bag[card] += 1
        rows = tuple(tuple(sorted(h + [0] * (rules.decks - len(h)))) for h in heights)
        return cls(rules.decks, rules.piles, board.base_rank, list(reversed(board.stock)),
                   list(board.reserve), rows, bag, gone_up)

    def height(self, card: int) -> int:
        """The height a foundation of the card's suit must have to take it."""
        return (RANK[card] - self.base) % 13

    def takes(self, heights: Heights, card: int) -> bool:
        return self.height(card) in heights[SUIT[card]]

    def up(self, heights: Heights, card: int) -> Heights:
        suit, h = SUIT[card], self.height(card)
        row = list(heights[suit])
        row[row.index(h)] = h + 1
        return (*heights[:suit], tuple(sorted(row)), *heights[suit + 1:])


class _Budget(Exception):
    pass


def hunt(game: PileFree, nodes: int, rng: random.Random | None, strict: bool = False) -> list[Move] | None:
    """A pile-free win found depth first within ``nodes`` positions (moves
    shuffled by ``rng`` when given), or None. A card with no copy left in
    the stock, the waste or the reserve goes up from the bag at once, and so
    does the last copy of a card from the waste or the reserve: neither can
    spoil a win (another copy never needs its place). ``strict``: a win of
    the strict game, without those shortcuts (there a card that goes up
    no longer holds one, which it might have had to)."""
    seen: set[tuple[int, tuple[int, ...], Heights, int]] = set()
    line: list[Move] = []
    total = 52 * game.decks
    count = 0

    def visit(drawn: int, waste: list[int], heights: Heights, left: int, bag: list[int],
              gone_up: list[int]) -> bool:
        nonlocal count
        mark = len(line)
        waste, bag, gone_up = list(waste), list(bag), list(gone_up)
        hidden = [0] * 52
        for card in game.stock[drawn:] + waste + game.reserve[:left]:
            hidden[card] += 1
        moved = not strict  # (in the strict game such a card might have held another)
        while moved:
            moved = False
            for card in range(52):
                if bag[card] and not hidden[card] and game.takes(heights, card):
                    bag[card] -= 1
                    gone_up[card] += 1
                    heights = game.up(heights, card)
                    line.append(("tf", card))
                    moved = True
            for kind, pile in (("rf", game.reserve[:left]), ("wf", waste)):
                if pile and hidden[pile[-1]] == 1 and not bag[pile[-1]] and game.takes(heights, pile[-1]):
                    card = pile[-1]
                    hidden[card] -= 1
                    gone_up[card] += 1
                    heights = game.up(heights, card)
                    line.append((kind, card))
                    if kind == "rf":
                        left -= 1
                    else:
                        waste.pop()
                    moved = True
        if sum(gone_up) == total:
            return True
        key = (drawn, tuple(waste), heights, left)
        if key in seen:
            del line[mark:]
            return False
        seen.add(key)
        count += 1
        if count > nodes:
            raise _Budget
        moves: list[Move] = []
        if left and game.takes(heights, game.reserve[left - 1]):
            moves.append(("rf", game.reserve[left - 1]))
        if waste and game.takes(heights, waste[-1]):
            moves.append(("wf", waste[-1]))
        moves += [("tf", card) for card in range(52) if bag[card] and game.takes(heights, card)]
        if waste:
            bag[waste[-1]] += 1
            if runs_needed(bag, NONE_UP if strict else gone_up) <= game.piles:
                moves.append(("wt", waste[-1]))
            bag[waste[-1]] -= 1
        if drawn < len(game.stock):
            moves.append(("s", game.stock[drawn]))
        if rng is not None:
            rng.shuffle(moves)
        for kind, card in moves:
            line.append((kind, card))
            bag2, up2 = list(bag), list(gone_up)
            if kind == "s":
                won = visit(drawn + 1, [*waste, card], heights, left, bag2, up2)
            elif kind == "wt":
                bag2[card] += 1
                won = visit(drawn, waste[:-1], heights, left, bag2, up2)
            else:
                up2[card] += 1
                if kind == "tf":
                    bag2[card] -= 1
                won = visit(drawn, waste[:-1] if kind == "wf" else waste, game.up(heights, card),
                            left - (kind == "rf"), bag2, up2)
            if won:
                return True
            line.pop()
        del line[mark:]
        return False

    try:
        won = visit(0, [], game.heights, len(game.reserve), game.bag, game.gone_up)
    except _Budget:
        return None
    return line if won else None


def check(game: PileFree, line: list[Move], strict: bool = False) -> None:
    """Replay ``line`` by the pile-free rules, written out again without the
    search's shortcuts (foundations as copies up per suit and height);
    AssertionError on the first move they do not allow or if not all
    cards end up. ``strict``: by the rules of the strict game."""
    up_at: dict[tuple[int, int], int] = {}
    for suit, row in enumerate(game.heights):
        for h in row:
            for below in range(h):
                up_at[suit, below] = up_at.get((suit, below), 0) + 1
    bag, gone_up = list(game.bag), list(game.gone_up)
    waste: list[int] = []
    drawn, left = 0, len(game.reserve)

    def goes_up(card: int) -> None:
        at = (SUIT[card], game.height(card))
        lower = game.decks if at[1] == 0 else up_at.get((at[0], at[1] - 1), 0)
        assert up_at.get(at, 0) < lower, f"no foundation takes card {card}"
        up_at[at] = up_at.get(at, 0) + 1
        gone_up[card] += 1

    for kind, card in line:
        if kind == "s":
            assert game.stock[drawn] == card
            waste.append(card)
            drawn += 1
        elif kind == "rf":
            assert left and game.reserve[left - 1] == card
            left -= 1
            goes_up(card)
        elif kind == "wf":
            assert waste and waste.pop() == card
            goes_up(card)
        elif kind == "tf":
            assert bag[card] > 0
            bag[card] -= 1
            goes_up(card)
        else:
            assert kind == "wt" and waste and waste.pop() == card
            bag[card] += 1
            assert runs_needed(bag, NONE_UP if strict else gone_up) <= game.piles, "no room in the piles"
    assert sum(gone_up) == 52 * game.decks, "not every card went up"


def pile_free_line(board: Board, line: list[RealMove]) -> list[Move]:
    """The pile-free moves that a real ``line`` from ``board`` makes: a
    move between piles makes none, an automatic fill of a space makes the
    waste card (or the drawn stock card) join the bag."""
    board = board.copy(stack=False)
    moves: list[Move] = []
    for move in line:
        waste, stock = list(board.waste), list(board.stock)
        if move.is_draw:
            moves.append(("s", stock[-1]))
            waste, stock = [*waste, stock[-1]], stock[:-1]
        elif move.source == "w":
            moves.append(("wf" if move.to_foundation else "wt", waste[-1]))
            waste = waste[:-1]
        elif move.to_foundation and move.source == "r":
            moves.append(("rf", board.reserve[-1]))
        elif move.to_foundation:
            moves.append(("tf", board.tableau[move.source_index - 1][-1]))
        board.push(move)
        moves += [("wt", card) for card in reversed(waste[len(board.waste):])]
        for card in reversed(stock[len(board.stock):]):
            moves += [("s", card), ("wt", card)]
    return moves


def check_real_lines(variant: str, deals: range, seconds: float) -> None:
    """Solve ``deals`` and replay each winning line's pile-free moves with
    :func:`check` of the strict game: every line of the real game is one of
    the strict pile-free game (a pile holds only cards of the tableau), and
    so of the pile-free game, the claim the rest of the script stands on."""
    rules = get_rules(variant)
    checked = 0
    for number in deals:
        board = Board.from_number(number, rules)
        result = api.solve(board, max_seconds=seconds, all_candidates=False)
        if result.result != api.WON:
            continue
        start = board.copy(stack=False)
        start.push(result.moves[0])
        check(PileFree.of(start), pile_free_line(start, result.moves[1:]), strict=True)
        checked += 1
    print(f"{checked} winning lines of deals {deals.start}-{deals.stop - 1} replayed as lines of the "
          "strict pile-free game (so of the pile-free game too)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="generals-patience")
    parser.add_argument("--deals", default="2,8,18", help="deal numbers, comma separated")
    parser.add_argument("--tries", type=int, default=100, help="restarts per candidate")
    parser.add_argument("--nodes", type=int, default=20_000, help="positions per restart")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the restarts' shuffles (another seed tries other orders)")
    parser.add_argument("--strict", action="store_true",
                        help="the strict game: a card that has gone up holds nothing")
    parser.add_argument("--real", type=int, default=0, metavar="N",
                        help="first replay the winning lines the solver finds on deals 1-N (2 s each)")
    args = parser.parse_args()
    sys.setrecursionlimit(100_000)
    if args.real:
        check_real_lines(args.variant, range(1, args.real + 1), 2.0)
    rules = get_rules(args.variant)
    game_name = "strict pile-free" if args.strict else "pile-free"
    found = unknown = 0
    for number in (int(text) for text in args.deals.split(",")):
        board = Board.from_number(number, rules)
        for index in range(max(rules.candidates, 1)):
            start = chosen(board, index) if rules.picks_base else board
            if terrace_dead(start):
                continue
            game = PileFree.of(start)
            rng = random.Random(args.seed)
            for attempt in range(args.tries):
                line = hunt(game, args.nodes, rng if attempt else None, args.strict)
                if line is not None:
                    check(game, line, args.strict)
                    print(f"deal {number} c{index + 1}: {game_name} win of {len(line)} moves "
                          f"(restart {attempt}), replayed by the checker", flush=True)
                    found += 1
                    break
            else:
                print(f"deal {number} c{index + 1}: no {game_name} win found", flush=True)
                unknown += 1
    print(f"{found} candidates with a {game_name} win, {unknown} without one found")


if __name__ == "__main__":
    main()
