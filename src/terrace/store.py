"""Saved games: the interface every game store offers, and one in memory.

The web game and the CLI talk to a :class:`GameStore`; ``terrace.stats``
provides the SQLite one, :class:`MemoryStore` serves tests and ``--db
:memory:``-like use. A stored game is its record (variant, rules, deal,
moves) plus the redo stack, counters and timestamps.

>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> store = MemoryStore()
>>> rules = get_rules("terrace")
>>> game = store.create("terrace", rules, Deal.from_number(5, rules))
>>> board = game.board()
>>> board.push_text("c1")
Move.parse('c1')
>>> game.moves = [str(m) for m in board.move_stack]
>>> store.update(game, expected_revision=0, action="move")
>>> store.get(game.id).moves
['c1']
>>> store.update(game, expected_revision=0, action="move")
Traceback (most recent call last):
...
terrace.store.ConflictError: the game changed in another window (revision 1, not 0): reload it
"""

from __future__ import annotations

import copy
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

from terrace.board import Board
from terrace.deal import Deal
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.rules import Rules

ACTIONS = ("create", "move", "undo", "redo", "hint", "restart")


class StoreError(TerraceError):
    """A problem with the saved games (bad database, unknown game...)."""


class UnknownGameError(StoreError):
    """No game has this id."""


class ConflictError(StoreError):
    """The game changed since the caller read it (another tab or process)."""


@dataclass
class StoredGame:
    """One saved game. ``moves`` are played, ``redo`` are undone moves
    (the next to redo last), ``revision`` counts every stored change."""

    id: str
    variant: str
    rules: Rules
    deal: Deal
    moves: list[str] = field(default_factory=list)
    redo: list[str] = field(default_factory=list)
    status: str = "choosing"
    hints: int = 0
    undos: int = 0
    winnable_only: bool = False
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    revision: int = 0

    def board(self) -> Board:
        """The live board: moves played, redo stack restored."""
        board = Board(self.rules, self.deal)
        for text in self.moves:
            board.push(Move.parse(text))
        for text in reversed(self.redo):
            board.push(Move.parse(text))
        for _ in self.redo:
            board.pop()
        return board

    def sync(self, board: Board) -> None:
        """Copy moves, redo stack and status from ``board``."""
        self.moves = [str(m) for m in board.move_stack]
        self.redo = [str(m) for m in board.redo_stack]
        self.status = board.status.value

    def record(self) -> GameRecord:
        """The game as an engine record (for export)."""
        return GameRecord(self.variant, self.rules, self.deal, tuple(self.moves), self.status)


class GameStore(Protocol):
    """What the web game and the CLI need from saved games."""

    def create(
        self, variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False
    ) -> StoredGame:
        """Store a new game and return it (revision 0)."""
        ...

    def get(self, game_id: str) -> StoredGame:
        """The game with this id; raises :class:`UnknownGameError`."""
        ...

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        """Write ``game`` (moves, redo, status, counters) atomically and
        durably before returning, if the stored revision still equals
        ``expected_revision``; else raise :class:`ConflictError` and change
        nothing. ``game.revision`` is incremented; ``action`` (one of
        ``ACTIONS``) is logged with a timestamp."""
        ...

    def latest_unfinished(self) -> StoredGame | None:
        """The most recently updated game still being played, if any."""
        ...

    def recent(self, limit: int = 20) -> list[StoredGame]:
        """The most recently updated games, newest first."""
        ...

    def statistics(self) -> dict[str, Any]:
        """Per-variant and overall statistics (see ``summarize``)."""
        ...


def new_game_id() -> str:
    """A fresh, URL-safe game id."""
    return uuid.uuid4().hex[:16]


class MemoryStore:
    """A :class:`GameStore` kept in memory (lost when the process ends)."""

    def __init__(self) -> None:
        self._games: dict[str, StoredGame] = {}

    def create(
        self, variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False
    ) -> StoredGame:
        now = time.time()
        game = StoredGame(
            new_game_id(), variant, rules, deal, winnable_only=winnable_only,
            created_at=now, updated_at=now,
        )
        self._games[game.id] = copy.deepcopy(game)
        return game

    def get(self, game_id: str) -> StoredGame:
        try:
            return copy.deepcopy(self._games[game_id])
        except KeyError:
            raise UnknownGameError(f"there is no game {game_id!r}") from None

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        stored = self._games.get(game.id)
        if stored is None:
            raise UnknownGameError(f"there is no game {game.id!r}")
        if stored.revision != expected_revision:
            raise ConflictError(
                f"the game changed in another window (revision {stored.revision}, "
                f"not {expected_revision}): reload it"
            )
        now = time.time()
        game.revision = expected_revision + 1
        game.updated_at = now
        if game.status in ("won", "lost") and game.finished_at is None:
            game.finished_at = now
        elif game.status not in ("won", "lost"):
            game.finished_at = None
        self._games[game.id] = copy.deepcopy(game)

    def latest_unfinished(self) -> StoredGame | None:
        playing = [g for g in self._games.values() if g.status in ("choosing", "playing")]
        if not playing:
            return None
        return copy.deepcopy(max(playing, key=lambda g: g.updated_at))

    def recent(self, limit: int = 20) -> list[StoredGame]:
        games = sorted(self._games.values(), key=lambda g: g.updated_at, reverse=True)
        return [copy.deepcopy(g) for g in games[:limit]]

    def statistics(self) -> dict[str, Any]:
        return summarize(list(self._games.values()))


def summarize(games: list[StoredGame]) -> dict[str, Any]:
    """Statistics over games: per variant and overall, counting only games
    that have started (a move was made).

    >>> summarize([])["overall"]["played"]
    0
    """

    def block(group: list[StoredGame]) -> dict[str, Any]:
        started = sorted((g for g in group if g.moves), key=lambda g: g.created_at)
        finished = [g for g in started if g.status in ("won", "lost")]
        won = [g for g in finished if g.status == "won"]
        streak = best = 0
        for g in finished:
            streak = streak + 1 if g.status == "won" else 0
            best = max(best, streak)
        return {
            "played": len(started),
            "finished": len(finished),
            "won": len(won),
            "win_rate": len(won) / len(finished) if finished else None,
            "current_streak": streak,
            "best_streak": best,
            "fewest_moves": min((len(g.moves) for g in won), default=None),
            "fastest_seconds": min(
                ((g.finished_at or g.updated_at) - g.created_at for g in won), default=None
            ),
            "hints": sum(g.hints for g in started),
            "undos": sum(g.undos for g in started),
        }

    variants = sorted({g.variant for g in games})
    return {
        "overall": block(games),
        "variants": {v: block([g for g in games if g.variant == v]) for v in variants},
    }
