"""Numbered actions (OpenSpiel style) and the moves every board shares.

A rules value has a fixed *action space*: every move that can ever be legal
under those rules, numbered from 0. Reinforcement-learning code can then
work with integers; :class:`~terrace.board.Board` converts both ways.

Inside the engine, places are small integers (:data:`RESERVE_AREA` ...) and
play moves are interned: :func:`play_move` gives the same :class:`Move`
object for the same places, so move generation creates no moves.

>>> from terrace.rules import Rules
>>> [str(m) for m in action_moves(Rules(piles=2, candidates=1))]
['c1', 'rf', 'wf', 't1f', 't2f', 'wt1', 'wt2', 't1t2', 't2t1', 's']
>>> play_move(TABLEAU_AREA, 1, FOUNDATION_AREA, -1) is play_move(TABLEAU_AREA, 1, FOUNDATION_AREA, -1)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from terrace.errors import InvalidMoveError
from terrace.moves import DRAW_MOVE, FOUNDATION, RESERVE, TABLEAU, WASTE, Move, given_move
from terrace.refusals import Reason, Refusal, quote
from terrace.rules import MAX_FOUNDATIONS, RULE_OPTIONS, Rules, given_rules
from terrace.whole import as_whole

RESERVE_AREA, WASTE_AREA, TABLEAU_AREA, FOUNDATION_AREA = 0, 1, 2, 3
"""The places a card moves from or to, as the engine stores them."""
AREA = {RESERVE: RESERVE_AREA, WASTE: WASTE_AREA, TABLEAU: TABLEAU_AREA, FOUNDATION: FOUNDATION_AREA}
"""The area of each place letter of the move notation."""
_LETTER = {area: letter for letter, area in AREA.items()}

MAX_PILES = RULE_OPTIONS["piles"].largest()
"""The most tableau piles any rules have."""


class _MoveTable(dict[tuple[int, int, int, int], Move]):
    """Interned play moves keyed by (source area, index, target area, index),
    indexes from 0 (-1 for "any foundation")."""

    def __missing__(self, key: tuple[int, int, int, int]) -> Move:
        source, src_index, target, dst_index = key
        move = Move(
            _LETTER[source],
            src_index + 1 if source in (TABLEAU_AREA, FOUNDATION_AREA) else 0,
            _LETTER[target],
            dst_index + 1 if dst_index >= 0 else 0,
        )
        self[key] = move
        return move


_PLAY = _MoveTable()


def play_move(source: int, src_index: int, target: int, dst_index: int) -> Move:
    """The interned move between two places (indexes from 0; -1 as the
    target index means any foundation)."""
    return _PLAY[(source, src_index, target, dst_index)]


CHOICES = tuple(Move.choose(i + 1) for i in range(RULE_OPTIONS["candidates"].largest()))
"""The choice moves ``c1``, ``c2`` ... as many as any rules allow."""
RF = play_move(RESERVE_AREA, 0, FOUNDATION_AREA, -1)
"""``rf``: the terrace card to any foundation."""
WF = play_move(WASTE_AREA, 0, FOUNDATION_AREA, -1)
"""``wf``: the waste card to any foundation."""
TF = tuple(play_move(TABLEAU_AREA, i, FOUNDATION_AREA, -1) for i in range(MAX_PILES))
"""``t<i>f`` by pile (from 0)."""
WT = tuple(play_move(WASTE_AREA, 0, TABLEAU_AREA, j) for j in range(MAX_PILES))
"""``wt<j>`` by pile (from 0)."""
TT = tuple(
    tuple(play_move(TABLEAU_AREA, i, TABLEAU_AREA, j) if i != j else DRAW_MOVE for j in range(MAX_PILES))
    for i in range(MAX_PILES)
)
"""``t<i>t<j>`` by source and target pile (from 0); the diagonal is unused."""
FT = tuple(
    tuple(play_move(FOUNDATION_AREA, i, TABLEAU_AREA, j) for j in range(MAX_PILES))
    for i in range(MAX_FOUNDATIONS)
)
"""``f<i>t<j>`` by foundation and pile (from 0)."""


@lru_cache(maxsize=64)
def action_moves(rules: Rules) -> tuple[Move, ...]:
    """The fixed action space of ``rules``: action ``a`` is move
    ``action_moves(rules)[a]``. In order: the choices ``c1..ck``, one
    foundation move per source (``rf``, ``wf``, ``t1f``...), waste to each
    pile, each pile to each other pile, foundation returns ``f<i>t<j>``
    (only with foundation-return), and the draw ``s`` last. The order
    matches the order in which legal moves are generated.
    """
    rules = given_rules(rules)  # (a preset's name is no rules: a TypeError that says what to pass)
    piles = rules.piles
    moves = [*CHOICES[: rules.candidates], RF, WF, *TF[:piles], *WT[:piles]]
    moves += [TT[i][j] for i in range(piles) for j in range(piles) if i != j]
    if rules.foundation_return:
        moves += [FT[i][j] for i in range(rules.foundation_count) for j in range(piles)]
    moves.append(DRAW_MOVE)
    return tuple(moves)


@lru_cache(maxsize=64)
def action_index(rules: Rules) -> Mapping[Move, int]:
    """The action number of each move of :func:`action_moves` (read-only:
    every board of these rules shares it)."""
    return MappingProxyType({move: action for action, move in enumerate(action_moves(rules))})


def action_to_move(rules: Rules, action: int) -> Move:
    """The move an action number stands for (legal or not).

    >>> action_to_move(Rules(), 95)
    Move.parse('s')
    """
    moves = action_moves(rules)
    index = as_whole(action)  # (any whole number type, such as numpy's int64)
    if index is None or not 0 <= index < len(moves):
        raise InvalidMoveError(Reason(Refusal.NOT_AN_ACTION, value=quote(action), last=len(moves) - 1))
    return moves[index]


def move_to_action(rules: Rules, move: Move) -> int:
    """The action number of ``move``; ``<src>f<n>`` counts as ``<src>f``
    since foundations are interchangeable.

    >>> move_to_action(Rules(), Move.parse("wf3")) == move_to_action(Rules(), Move.parse("wf"))
    True
    """
    rules, move = given_rules(rules), given_move(move, "move_to_action")
    if move.target == FOUNDATION and 0 < move.target_index <= rules.foundation_count:
        move = Move(move.source, move.source_index, FOUNDATION)
    action = action_index(rules).get(move)  # (a foundation past the last has none, as pile 99 has none)
    if action is None:
        raise InvalidMoveError(Reason(Refusal.NO_ACTION, move=str(move)))
    return action
