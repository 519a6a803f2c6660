"""Players that decide from an :class:`Observation` only: the greedy rule of
thumb, a random player, and the registry that builds any player by name
(the fair player lives in :mod:`terrace.solver.fair`).

Every player picks from ``Observation.moves``, so none ever returns to a
position already seen in its game.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> from terrace.solver.observation import observe
>>> board = Board.from_number(3, get_rules("falling-star"))
>>> decision = make_player("greedy").decide(observe(board))
>>> decision.kind, decision.move in board.legal_moves
('greedy', True)
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from terrace.cards import RANK
from terrace.moves import Move
from terrace.solver.observation import Observation

PLAYERS = ("perfect", "fair", "greedy", "random")
"""Every player a survey knows; ``perfect`` is the solver itself, which
sees the stock and so has no play-out of its own."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A player's move and how it was found.

    ``kind``: ``"only"`` (one move), ``"safe"`` (proved safe, no sampling),
    ``"sampled"`` (won most often over sampled stock orders), ``"greedy"``,
    ``"random"``, or ``"none"`` (no move: the game is over or the player
    gives up). ``wins`` of ``samples`` sampled stock orders are won after
    ``move``; ``solves`` counts the solver calls this decision made,
    ``kept`` the samples it took over from the previous one;
    ``choices`` holds ``(move, wins, tried)`` for every move: ``tried``
    samples have a known outcome after the move (for a move not checked
    against every sample, ``wins`` is a lower bound).
    """

    move: Move | None
    kind: str
    samples: int = 0
    wins: int = 0
    solves: int = 0
    choices: tuple[tuple[Move, int, int], ...] = ()
    kept: int = 0
    """Samples carried over from the previous decision (reused work)."""

    @property
    def win_share(self) -> float | None:
        """The share of sampled stock orders in which ``move`` wins."""
        return self.wins / self.samples if self.samples else None

    def to_dict(self) -> dict[str, Any]:
        """The decision as JSON values (the ``terrace hint --fair`` report)."""
        share = self.win_share
        return {
            "move": None if self.move is None else str(self.move),
            "kind": self.kind,
            "samples": self.samples,
            "wins": self.wins,
            "win_share": None if share is None else round(share, 4),
            "solves": self.solves,
            "choices": [{"move": str(m), "wins": w, "tried": n} for m, w, n in self.choices],
        }


class Player(Protocol):
    """Anything that picks a move from an observation. A player may keep
    state between the decisions of one game (a new game needs a new player)."""

    name: str

    def decide(self, obs: Observation, deadline: float | None = None) -> Decision:
        """The move to play (``deadline``: a ``time.perf_counter()`` value)."""
        ...


def greedy_move(obs: Observation) -> Move | None:
    """The rule-of-thumb move: terrace cards first, new foundations,
    foundation moves, moves that free a card for a foundation, drawing last;
    shuffles between piles that achieve nothing are never suggested, and no
    move returns to a position seen before. None when nothing is worth it."""
    best: tuple[float, Move] | None = None
    for move in obs.moves:
        value = _value(obs, move)
        if value is not None and (best is None or value > best[0]):
            best = (value, move)
    return None if best is None else best[1]


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


class GreedyPlayer:
    """Today's rule-of-thumb hint as a player (see :func:`greedy_move`)."""

    name = "greedy"

    def decide(self, obs: Observation, deadline: float | None = None) -> Decision:
        """The greedy move, or ``none`` when no move is worth making."""
        move = greedy_move(obs)
        return Decision(move, "greedy" if move is not None else "none")


class RandomPlayer:
    """Picks uniformly among the moves that lead somewhere new."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def decide(self, obs: Observation, deadline: float | None = None) -> Decision:
        """A random move of ``obs.moves``."""
        if not obs.moves:
            return Decision(None, "none")
        return Decision(self.rng.choice(obs.moves), "random")


def deal_seed(seed: int, number: int) -> int:
    """The seed of one deal's game, from a survey's seed and the deal number
    (independent deals, the same game whatever order the deals run in).

    >>> deal_seed(1, 7) == deal_seed(1, 7) != deal_seed(1, 8)
    True
    """
    digest = hashlib.sha256(f"{seed}/{number}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


PLAYER_VERSION = 2
"""Bumped whenever a change could alter the greedy or random player's games."""


def player_settings(name: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The full, checked settings of a player (defaults filled in).

    >>> player_settings("fair", {"samples": 8})["samples"], player_settings("greedy")
    (8, {})
    """
    if name not in PLAYERS:
        raise ValueError(f"unknown player {name!r}: choose one of {', '.join(PLAYERS)}")
    settings = dict(settings or {})
    if name == "fair":
        from terrace.solver.fair import FairSettings

        return FairSettings.from_dict(settings).to_dict()
    if settings:
        raise ValueError(f"the {name} player has no settings, got {', '.join(sorted(settings))}")
    return {}


def player_key(name: str, settings: Mapping[str, Any] | None = None, seed: int = 0) -> str:
    """The key of a player's verdicts in the verdict store: the player, its
    version, its full settings and (when it uses one) its seed.

    >>> player_key("perfect")
    'perfect'
    >>> player_key("greedy")
    '{"player":"greedy","version":2}'
    >>> player_key("fair", {"samples": 16}, 1) == player_key("fair", {}, 1)   # 16 is the default
    True
    """
    full = player_settings(name, settings)
    if name == "perfect":
        from terrace.solver.verdicts import PERFECT

        return PERFECT
    key: dict[str, Any] = {"player": name}
    if name == "fair":
        from terrace.solver.fair import FAIR_VERSION

        key.update(version=FAIR_VERSION, seed=seed, settings=full)
    else:
        key["version"] = PLAYER_VERSION
        if name == "random":
            key["seed"] = seed
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def make_player(name: str, settings: Mapping[str, Any] | None = None, seed: int = 0) -> Player:
    """A new player by name (``fair``, ``greedy`` or ``random``), checking
    its settings (a JSON object; only the fair player has any)."""
    full = player_settings(name, settings)
    if name == "fair":
        from terrace.solver.fair import FairPlayer, FairSettings

        return FairPlayer(FairSettings.from_dict(full), seed)
    if name == "greedy":
        return GreedyPlayer()
    if name == "random":
        return RandomPlayer(seed)
    raise ValueError("the perfect player is the solver itself: it sees the stock and plays no game")
