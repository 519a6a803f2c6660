"""The greedy rule of thumb: which move a simple player (and the peek
hint's fallback) makes from what it sees, and how good a base card looks.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> from terrace.solver.observation import observe
>>> board = Board.from_number(3, get_rules("falling-star"))
>>> greedy_move(observe(board)) in board.legal_moves
True
"""

from __future__ import annotations

from terrace.cards import RANK
from terrace.moves import Move
from terrace.solver.observation import Observation
from terrace.solver.prune import dead_after, terrace_dead


def greedy_move(obs: Observation) -> Move | None:
    """The rule-of-thumb move: terrace cards first, new foundations,
    foundation moves, moves that free a card for a foundation, drawing last;
    shuffles between piles that achieve nothing are never suggested, and no
    move returns to a position seen before. A move that leaves the terrace
    unplayable for good (a base card, or a card put up, that the reserve
    schedule proves fatal whatever the stock holds) comes only when every
    move worth making does. None when nothing is worth it."""
    best: tuple[bool, float, Move] | None = None
    dead_now: list[bool] = []  # (read once, at the first move that could kill the terrace)
    for move in obs.moves:
        value = _value(obs, move)
        if value is None:
            continue
        alive = not _kills_terrace(obs, move, dead_now)
        if best is None or (alive, value) > best[:2]:
            best = (alive, value, move)
    return None if best is None else best[2]


def _kills_terrace(obs: Observation, move: Move, dead_now: list[bool] | None = None) -> bool:
    """True when ``move`` leaves the terrace unplayable for good (see
    :func:`~terrace.solver.prune.kills_terrace`); whether it is dead
    already is read once a position and kept in ``dead_now``: it reads the
    reserve schedule after every base card while choosing, and was read
    again for each candidate, 420 schedules for 20 candidates."""
    board = obs.board()
    if not dead_after(board, move):
        return False
    if dead_now is None:
        dead_now = []
    if not dead_now:
        dead_now.append(terrace_dead(board))
    return not dead_now[0]


def _foundation_moves(obs: Observation, move: Move | None) -> int:
    """Foundation moves after ``move`` (now when None), not counting a card
    that turns up from the stock."""
    board = obs.board()
    if move is None:
        return sum(1 for m in board.legal_moves if m.to_foundation)
    after = board.copy(stack=False)
    after.push(move)
    hidden = move.source_index if obs.reveals(move) else 0
    return sum(1 for m in after.legal_moves
               if m.to_foundation and not (m.source == "t" and m.source_index == hidden))


def _value(obs: Observation, move: Move) -> float | None:
    if move.is_choice:
        return choice_value(obs, move)
    if move.is_draw:
        return 10.0
    card = obs.card(move)
    if card is None:
        return None
    if move.to_foundation:
        if move.source == "r":
            return 100.0
        if RANK[card] == obs.base_rank:
            return 90.0
        return 70.0 if move.source == "t" else 65.0
    if move.source == "f":
        return None
    freed = _foundation_moves(obs, move) - _foundation_moves(obs, None)
    if move.source == "t":
        if freed > 0:
            return 50.0 + freed
        if (len(obs.tableau[move.source_index - 1]) == 1 and (obs.waste or obs.stock)
                and move.target == "t" and obs.tableau[move.target_index - 1]):
            # a space made by joining a lone card to another pile; moving it
            # into a space makes none, and with free spaces such moves would
            # wander through thousands of new positions
            return 35.0
        return None
    return 30.0 + max(freed, 0)


def choice_value(obs: Observation, move: Move) -> float:
    """How good a base card looks: the more terrace cards (the exposed ones
    most) it lets out early, the better."""
    after = obs.board().copy(stack=False)
    after.push(move)
    base = after.base_rank
    score = 0.0
    for depth, card in enumerate(reversed(after.reserve)):
        distance = (RANK[card] - base) % 13
        score += (13 - distance) / (1 + depth)
    return score
