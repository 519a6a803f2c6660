"""What every player returns: a :class:`Decision` (the move and how it was
found), and the :class:`Player` protocol that greedy, random and fair
players follow.

>>> Decision(None, "none").win_share is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from terrace.moves import Move
from terrace.solver.observation import Observation

UPPER_ESTIMATE = "upper"
"""What a count of sampled stock orders won is (``estimate`` in the JSON
that gives one): a sample counts as won when the solver, knowing its
order, finds a winning line, so the share is an upper estimate of a
player's chance, who cannot see the stock (the fair player following its
own hints on Terrace deals 1-40 with 4 samples won 62.5%, where its
chosen moves averaged 96% of their samples)."""
ESTIMATE_WORDS = ("a sampled stock counts as won when a winning line exists for one who knows that order:"
                  " an upper estimate, not your chance of winning")
""":data:`UPPER_ESTIMATE` in words, as every count of them says it (the
page's ``sampled.estimate`` in English, held equal by a test)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A player's move and how it was found.

    ``kind``: ``"only"`` (one move), ``"safe"`` (proved safe, no sampling),
    ``"sampled"`` (won most often over sampled stock orders), ``"greedy"``,
    ``"random"``, or ``"none"`` (no move: the game is over or the player
    gives up); once the stock's order is forced (the fair player solves the
    one game there is), ``"winnable"`` (a proved winning line), ``"lost"``
    (proved lost: the rule of thumb's move) or ``"heuristic"`` (undecided).
    ``wins`` of ``samples`` sampled stock orders are won after ``move``;
    ``solves`` counts the solver calls this decision made,
    ``kept`` the samples it took over from the previous one;
    ``choices`` holds ``(move, wins, tried)`` for every move: ``tried``
    samples were solved after the move, won, lost or left undecided within
    the solver's budget (for a move not checked against every sample,
    ``wins`` is a lower bound). ``undecided`` of the ``samples`` counted
    for ``move`` were left undecided: neither a win nor a loss.
    """

    move: Move | None
    kind: str
    samples: int = 0
    wins: int = 0
    solves: int = 0
    choices: tuple[tuple[Move, int, int], ...] = ()
    kept: int = 0
    """Samples carried over from the previous decision (reused work)."""
    undecided: int = 0
    """Of ``samples``, those the solver left undecided after ``move``."""

    @property
    def win_share(self) -> float | None:
        """The share of sampled stock orders in which ``move`` wins."""
        return self.wins / self.samples if self.samples else None

    def to_dict(self) -> dict[str, Any]:
        """The decision as JSON values (the ``terrace hint --fair`` report);
        ``estimate`` says what its counts of samples won are
        (:data:`UPPER_ESTIMATE`; None without samples)."""
        share = self.win_share
        return {
            "move": None if self.move is None else str(self.move),
            "kind": self.kind,
            "samples": self.samples,
            "wins": self.wins,
            "undecided": self.undecided,
            "win_share": None if share is None else round(share, 4),
            "estimate": UPPER_ESTIMATE if self.samples else None,
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
