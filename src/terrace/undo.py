"""What a move changes in the cards, and the records that take it back.

Each function makes the changes of one kind of move to a
:class:`~terrace.position.BaseBoard` and returns a small typed record;
:func:`take_back` reverses them exactly. Places are the area numbers of
:mod:`terrace.actions`. No function checks legality: the board does that
first.

>>> from terrace.position import BaseBoard
>>> board = BaseBoard()
>>> record = choose(board, 0)
>>> record.started, board.choosing
([0], False)
>>> take_back(board, record)
>>> board.choosing
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, TypeVar, cast

from terrace.actions import FOUNDATION_AREA, RESERVE_AREA, TABLEAU_AREA, WASTE_AREA
from terrace.cards import RANK
from terrace.position import BaseBoard
from terrace.rules import SpaceRule

Fills = tuple[tuple[int, bool], ...]
"""Spaces filled after a move, in order: (pile, from the waste?)."""

_NO_FILLS: Fills = ()


class PlayUndo(NamedTuple):
    """A card's move between two places, and the spaces refilled after it."""

    source: int
    src_index: int
    target: int
    dst_index: int
    fills: Fills


class DrawUndo(NamedTuple):
    """A draw: whether it turned the waste over, and the spaces refilled
    after it."""

    redealt: bool
    fills: Fills


class ChoiceUndo(NamedTuple):
    """The choice of the base card: the piles whose cards started
    foundations (in foundation order) and the piles filled from the stock."""

    started: list[int]
    filled: list[int]


Undo = PlayUndo | DrawUndo | ChoiceUndo
"""Any undo record."""

# Records are made with tuple.__new__ (the fields in order), which skips the
# Python-level __new__ of a NamedTuple: a record is made for every move.
_record = tuple.__new__

_SHARED: dict[tuple[object, ...], tuple[object, ...]] = {}
"""The records of moves that filled no space, one of each (immutable, so a
history shares them: a game of 100,000 moves kept 100,000 records of 136
bytes); at most one per pair of places and the two kinds of draw."""


_Record = TypeVar("_Record", PlayUndo, DrawUndo)


def _shared(record: _Record) -> _Record:
    """The one record equal to ``record`` when it filled no space."""
    return record if record.fills else cast(_Record, _SHARED.setdefault(record, record))


def play(board: BaseBoard, source: int, src_index: int, target: int, dst_index: int) -> PlayUndo:
    """Move the top card of one place to another (indexes from 0)."""
    if source == RESERVE_AREA:
        card = board.reserve.pop()
    elif source == WASTE_AREA:
        card = board.waste.pop()
    elif source == TABLEAU_AREA:
        card = board.tableau[src_index].pop()
    else:
        card = board.foundations[src_index].pop()
    if target == FOUNDATION_AREA:
        board.foundations[dst_index].append(card)
    else:
        board.tableau[dst_index].append(card)
    return _shared(_record(PlayUndo, (source, src_index, target, dst_index, refill(board))))


def choose(board: BaseBoard, index: int) -> ChoiceUndo:
    """Make candidate ``index`` (from 0) the base card: it starts foundation
    1, other candidates of its rank start the next ones (unless the rules
    keep them in the tableau: ``promote_candidates``), and every empty pile
    gets a card from the stock."""
    tableau = board.tableau
    chosen = tableau[index].pop()
    board.base_rank = RANK[chosen]
    board.foundations[0].append(chosen)
    started = [index]
    next_foundation = 1
    for pile in range(board.rules.candidates if board.rules.promote_candidates else 0):
        if pile != index and tableau[pile] and RANK[tableau[pile][-1]] == board.base_rank:
            board.foundations[next_foundation].append(tableau[pile].pop())
            next_foundation += 1
            started.append(pile)
    filled = []
    for pile in range(len(tableau)):
        if not tableau[pile] and board.stock:
            tableau[pile].append(board.stock.pop())
            filled.append(pile)
    return ChoiceUndo(started, filled)


def draw(board: BaseBoard) -> DrawUndo:
    """Turn the next stock card onto the waste, or (stock empty) turn the
    waste over into a new stock."""
    if board.stock:
        board.waste.append(board.stock.pop())
        redealt = False
    else:
        board.waste.reverse()
        board.stock, board.waste = board.waste, []
        board.redeals_used += 1
        redealt = True
    return _shared(_record(DrawUndo, (redealt, refill(board))))


def fills_of(empty: Iterable[int], waste: int, stock: int) -> Fills:
    """Which of the ``empty`` piles (in pile order) automatic spaces fill,
    each with whether its card comes from the waste (``waste`` cards there)
    or the stock (``stock`` cards): the waste's top first, then the
    stock's, until both are out. The one statement of the rule, which
    :func:`refill` plays and :mod:`terrace.game` reads without playing.

    >>> fills_of([0, 3, 5], waste=1, stock=1)
    ((0, True), (3, False))
    """
    fills: list[tuple[int, bool]] = []
    for pile_index in empty:
        if waste:
            waste -= 1
            fills.append((pile_index, True))
        elif stock:
            stock -= 1
            fills.append((pile_index, False))
        else:
            break
    return tuple(fills)


def refill(board: BaseBoard) -> Fills:
    """Fill empty piles from the waste, else the stock (automatic spaces
    only; :func:`fills_of`)."""
    if board.rules.spaces is not SpaceRule.AUTO or all(board.tableau):
        return _NO_FILLS
    empty = (index for index, pile in enumerate(board.tableau) if not pile)
    fills = fills_of(empty, len(board.waste), len(board.stock))
    for pile_index, from_waste in fills:
        board.tableau[pile_index].append((board.waste if from_waste else board.stock).pop())
    return fills


def _unfill(board: BaseBoard, fills: Fills) -> None:
    for pile_index, from_waste in reversed(fills):
        card = board.tableau[pile_index].pop()
        (board.waste if from_waste else board.stock).append(card)


def take_back(board: BaseBoard, undo: Undo) -> None:
    """Reverse the changes ``undo`` records (the last move made)."""
    if isinstance(undo, PlayUndo):
        _unfill(board, undo.fills)
        card = (board.foundations if undo.target == FOUNDATION_AREA else board.tableau)[undo.dst_index].pop()
        source = undo.source
        if source == RESERVE_AREA:
            board.reserve.append(card)
        elif source == WASTE_AREA:
            board.waste.append(card)
        elif source == TABLEAU_AREA:
            board.tableau[undo.src_index].append(card)
        else:
            board.foundations[undo.src_index].append(card)
    elif isinstance(undo, DrawUndo):
        _unfill(board, undo.fills)
        if undo.redealt:
            board.stock.reverse()
            board.waste, board.stock = board.stock, []
            board.redeals_used -= 1
        else:
            board.stock.append(board.waste.pop())
    else:
        for pile in reversed(undo.filled):
            board.stock.append(board.tableau[pile].pop())
        for foundation, pile in reversed(list(enumerate(undo.started))):
            board.tableau[pile].append(board.foundations[foundation].pop())
        board.base_rank = -1
