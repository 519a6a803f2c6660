"""Base-card candidates that lead to the same game ("twins").

Choosing a base card puts every candidate of that rank on a foundation and
deals into the piles they leave, so two candidates of the same rank leave
the same position behind: only the numbers of the foundations differ (with
``promote_candidates`` off, two copies of one card leave each other in the
tableau, in piles whose numbers differ). The
solver solves such a position once and gives each twin its verdict; a
winning line is carried over by renaming the foundations (and piles, should
they differ in order) and is replayed by the engine like every other.
Comparing the positions themselves, as :func:`game_of` does, is what makes
this safe: cards are compared by what the rules see of them (rank and
colour, or rank and suit) and the piles as an unordered collection, the
same two facts the solver's keys rely on (docs/winnability.md, "Keys").

>>> from terrace.variants import get_rules
>>> children = [chosen(Board.from_number(1, get_rules("madame")), i) for i in range(10)]
>>> representatives(children)
[0, 1, 2, 3, 1, 5, 5, 7, 8, 9]
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterator, Sequence

from terrace.board import Board
from terrace.cards import Card
from terrace.moves import FOUNDATION, TABLEAU, Move
from terrace.solver.lines import replays_to_win
from terrace.solver.tables import slot_keys


def chosen(board: Board, index: int) -> Board:
    """A copy of ``board`` (at the choice of the base card) after choosing
    candidate ``index`` (from 0)."""
    child = board.copy(stack=False)
    child.push(Move.choose(index + 1))
    return child


def _classes(board: Board, cards: Sequence[Card]) -> tuple[int, ...]:
    keys = slot_keys(board.rules.in_suit)
    return tuple(keys[card] for card in cards)


def game_of(board: Board) -> Hashable:
    """What the rest of the game depends on: every card by what the rules
    see of it (rank and colour, or rank and suit), the piles and the
    foundations as unordered collections. Equal for two positions exactly
    when one is the other with piles (and foundations) renamed and cards
    swapped for copies the rules cannot tell apart."""
    return (
        board.rules, board.base_rank, board.redeals_used, board.choosing,
        _classes(board, board.reserve), _classes(board, board.stock), _classes(board, board.waste),
        tuple(sorted(_classes(board, pile) for pile in board.tableau)),
        tuple(sorted(_classes(board, f) for f in board.foundations)),
    )


def representatives(children: Sequence[Board]) -> list[int]:
    """For each position, the index of the first one of the same game (its
    own index when it is the first)."""
    first: dict[Hashable, int] = {}
    return [first.setdefault(game_of(child), index) for index, child in enumerate(children)]


def _renaming(source: list[list[Card]], target: list[list[Card]], board: Board) -> dict[int, int] | None:
    """1-based index in ``source`` -> index in ``target`` of a pile with the
    same classes of cards (None when the collections differ)."""
    free: defaultdict[tuple[int, ...], list[int]] = defaultdict(list)
    for index, pile in enumerate(target):
        free[_classes(board, pile)].append(index + 1)
    mapping: dict[int, int] = {}
    for index, pile in enumerate(source):
        spare = free[_classes(board, pile)]
        if not spare:
            return None
        mapping[index + 1] = spare.pop(0)
    return mapping


def carried_over(line: Sequence[Move], won_from: Board, twin: Board,
                 until: float = math.inf) -> list[Move] | None:
    """``line``, which wins from ``won_from``, with its piles and
    foundations renamed to win from ``twin`` (a position of the same game);
    None unless the engine replays it to a win (by ``until``, a
    :func:`time.perf_counter` instant)."""
    piles = _renaming(won_from.tableau, twin.tableau, twin)
    foundations = _renaming(won_from.foundations, twin.foundations, twin)
    if piles is None or foundations is None:
        return None
    names = {TABLEAU: piles, FOUNDATION: foundations}

    def renamed(move: Move) -> Move:
        source = names.get(move.source, {}).get(move.source_index, move.source_index)
        target = names.get(move.target, {}).get(move.target_index, move.target_index)
        return Move(move.source, source, move.target, target)

    moves: list[Move] = []

    def renaming() -> Iterator[Move]:  # (as the replay goes: it may stop at ``until``)
        for move in line:
            moves.append(renamed(move))
            yield moves[-1]

    return moves if replays_to_win(twin, renaming(), until) else None
