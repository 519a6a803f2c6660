"""Moves that cannot hurt: the solver's safe foundation moves, and a finish
that is certain. Auto-play (``POST /api/games/{id}/autoplay``) plays only
these.

:func:`safe_moves` is the search's "safe foundation moves" pruning
(``docs/winnability.md``) asked of one engine position: a foundation move
the solver plays as the only move because every winning line stays a
winning line after it. :func:`finish_line` finds a line of foundation
moves alone that puts every card home, when there is one.

>>> from terrace.board import Board
>>> from terrace.rules import Rules
>>> rules = Rules(decks=1, reserve=1, piles=3, candidates=0)
>>> board = Board.from_position(
...     "A KS AS2H3S4H5S6H7S8H9STHJSQH,AH2S3H4S5H6S7H8S9HTSJHQS,AD2C3D4C5D6C7D8C9DTCJDQC,"
...     "AC2D3C4D5C6D7C8D9CTDJCQD KH,KD,KC - - 0", rules)
>>> [str(m) for m in safe_moves(board)]     # single cards in a pile wait: a space refills
['rf']
>>> [str(m) for m in finish_line(board)]
['rf', 't1f', 't2f', 't3f']
"""

from __future__ import annotations

from terrace.board import Board, given_board
from terrace.moves import Move
from terrace.refusals import quote
from terrace.solver.prune import nothing_can_lie_on, safe_foundation_card
from terrace.solver.state import State
from terrace.whole import as_whole

FINISH_POSITIONS = 20_000
"""How many positions :func:`finish_line` may visit before it gives up
(without finding a line, it then claims nothing)."""
_RESERVE_HOME = Move("r", 0, "f")
_WASTE_HOME = Move("w", 0, "f")


def safe_moves(board: Board) -> list[Move]:
    """The foundation moves that the solver proves safe now: reserve first,
    then the piles in order, then the waste.

    A card is safe to put up when every copy of it still outside the
    foundations has a foundation wanting it now (always so for a card of
    the base rank), and it is the exposed terrace card; or it tops a pile
    (of at least two cards with automatic spaces) or, with free or
    waste-only spaces and no redeal left, the waste, and no card that could
    ever lie on it in a pile is still outside the foundations. Playing such
    a move never turns a position that can be won into one that cannot;
    ``docs/winnability.md`` proves it. None while choosing the base card or
    with ``foundation_return``.

    The two conditions are the search's own
    (:func:`~terrace.solver.prune.safe_foundation_card` and
    :func:`~terrace.solver.prune.nothing_can_lie_on`, on the search's
    counters of the position); where each applies is as in
    :class:`~terrace.solver.movegen.MoveGen`.

    >>> from terrace.variants import get_rules
    >>> safe_moves(Board.from_number(1, get_rules("terrace")))
    []
    """
    rules = given_board(board, "safe_moves").rules
    if board.choosing or rules.foundation_return:
        return []
    s = State(board, canonical=True, seed=0)
    t, want, off = s.t, s.want, s.off

    def safe(card: int, holder: bool) -> bool:
        k = t.sk[card]
        return (
            want[k] > 0
            and safe_foundation_card(t, want, off, k)
            and (not holder or nothing_can_lie_on(t, off, k))
        )

    moves: list[Move] = []
    if board.reserve and safe(board.reserve[-1], holder=False):
        moves.append(_RESERVE_HOME)
    for index, pile in enumerate(board.tableau, 1):
        if pile and (len(pile) > 1 or not s.auto) and safe(pile[-1], holder=True):
            moves.append(Move("t", index, "f"))
    waste_settled = not s.auto and board.redeals_used >= rules.redeals
    if board.waste and waste_settled and safe(board.waste[-1], holder=True):
        moves.append(_WASTE_HOME)
    return moves


def foundation_moves(board: Board) -> list[Move]:
    """The legal moves of a card onto a foundation (one per source)."""
    return [m for m in board.legal_moves if m.target == "f" and m.source != "f"]


def finish_line(board: Board, max_positions: int = FINISH_POSITIONS) -> list[Move] | None:
    """A line of foundation moves alone (no draw, no move between piles)
    that wins from ``board``, or None when there is none or none was found
    within ``max_positions`` positions: a line returned is certain to win,
    None claims nothing. An empty list means the game is won already.

    Which foundation takes a card never matters (the foundations that want
    the same card stand at the same height of the same class), but the
    order of the moves can: when two copies of a card wait for the one
    foundation that wants them, the one that goes up first decides which
    pile opens. So the line is searched for: every order of the foundation
    moves, each position once. Playing them greedily finds it at once in
    nearly every game.

    >>> from terrace.variants import get_rules
    >>> finish_line(Board.from_number(1, get_rules("terrace"))) is None
    True
    """
    given_board(board, "finish_line")
    most = as_whole(max_positions)  # (a whole number of any type; True, 1.5 or None were taken, or failed)
    if most is None or most < 1:
        raise ValueError(f"max_positions must be a whole number, at least 1, not {quote(max_positions)}")
    max_positions = most
    if board.is_won():
        return []
    if board.choosing or board.stock:
        return None
    start = board.copy(stack=False)
    seen = {start.position()}
    line: list[Move] = []
    frames = [foundation_moves(start)]
    while frames:
        if not frames[-1]:
            frames.pop()
            if line:
                line.pop()
                start.pop()
            continue
        move = frames[-1].pop(0)
        start.push(move)
        line.append(move)
        if start.is_won():
            return line
        key = start.position()
        if key in seen:
            start.pop()
            line.pop()
            continue
        if len(seen) >= max_positions:
            return None
        seen.add(key)
        frames.append(foundation_moves(start))
    return None
