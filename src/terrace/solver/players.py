"""Players that decide from an :class:`Observation` only: the greedy player
(its rule of thumb is :mod:`terrace.solver.greedy`), a random player, and
the registry that builds any player by name (the fair player lives in
:mod:`terrace.solver.fair`).

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
from typing import Any

from terrace.refusals import clip, quote
from terrace.solver.budget import check_seed
from terrace.solver.decision import Decision, Player
from terrace.solver.fair import FAIR_VERSION, FairPlayer, FairSettings
from terrace.solver.greedy import greedy_move
from terrace.solver.observation import Observation
from terrace.solver.verdicts import PERFECT

PLAYERS = ("perfect", "fair", "greedy", "random")
"""Every player a survey knows; ``perfect`` is the solver itself, which
sees the stock and so has no play-out of its own."""

SEEDED = ("fair", "random")
"""The players whose games a seed changes (the others play each deal one way)."""


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
        self.rng = random.Random(check_seed(seed))

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


PLAYER_VERSION = 3
"""Bumped whenever a change could alter the greedy or random player's games."""


def player_settings(name: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The full, checked settings of a player (defaults filled in).

    >>> player_settings("fair", {"samples": 8})["samples"], player_settings("greedy")
    (8, {})
    """
    if name not in PLAYERS:
        raise ValueError(f"unknown player {quote(name)}: choose one of {', '.join(PLAYERS)}")
    if name == "fair":
        return FairSettings.from_dict({} if settings is None else settings).to_dict()
    settings = dict(settings or {})
    if settings:
        given = clip(", ".join(sorted(map(str, settings))))
        raise ValueError(f"the {name} player has no settings, got {given}")
    return {}


def player_key(name: str, settings: Mapping[str, Any] | None = None, seed: int = 0) -> str:
    """The key of a player's verdicts in the verdict store: the player, its
    version, its full settings and (when it uses one) its seed.

    >>> player_key("perfect")
    'perfect'
    >>> player_key("greedy")
    '{"player":"greedy","version":3}'
    >>> player_key("fair", {"samples": 16}, 1) == player_key("fair", {}, 1)   # 16 is the default
    True

    A seed that is no whole number >= 0 is refused (:func:`check_seed`): a
    survey stored its verdicts under ``"seed":NaN`` (no JSON) or ``null``,
    and under ``-1`` or ``"1"`` the same games as ``1`` under another key.
    """
    seed = check_seed(seed)
    full = player_settings(name, settings)
    if name == "perfect":
        return PERFECT
    key: dict[str, Any] = {"player": name}
    if name == "fair":
        key.update(version=FAIR_VERSION, seed=seed, settings=full)
    else:
        key["version"] = PLAYER_VERSION
        if name in SEEDED:
            key["seed"] = seed
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def make_player(name: str, settings: Mapping[str, Any] | None = None, seed: int = 0) -> Player:
    """A new player by name (``fair``, ``greedy`` or ``random``), checking
    its settings (a JSON object; only the fair player has any)."""
    full = player_settings(name, settings)
    if name == "fair":
        return FairPlayer(FairSettings.from_dict(full), seed)
    if name == "greedy":
        return GreedyPlayer()
    if name == "random":
        return RandomPlayer(seed)
    raise ValueError("the perfect player is the solver itself: it sees the stock and plays no game")
