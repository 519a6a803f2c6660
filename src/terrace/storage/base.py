"""What every game store offers: the :class:`GameStore` interface, the
:class:`StoredGame` it hands out, its errors, and the checks both stores
apply before they write.

A stored game is its record (variant, rules, deal, moves) plus the redo
stack, counters and timestamps.

>>> from terrace.storage import MemoryStore
>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> store = MemoryStore()
>>> rules = get_rules("terrace")
>>> game = store.create("terrace", rules, Deal.from_number(5, rules))
>>> board = game.board()
>>> board.push_text("c1")
Move.parse('c1')
>>> game.sync(board)
>>> store.update(game, expected_revision=0, action="move")
>>> store.get(game.id).moves
['c1']
>>> store.update(game, expected_revision=0, action="move")
Traceback (most recent call last):
...
terrace.storage.base.ConflictError: the game changed in another window (revision 1, not 0): reload it
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from terrace.board import Board
from terrace.deal import Deal
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.rules import Rules
from terrace.storage.statistics import FINISHED, UNFINISHED, GameFacts
from terrace.variants import canonical_name

ACTIONS = ("create", "move", "undo", "redo", "hint", "restart")

__all__ = [
    "ACTIONS",
    "FINISHED",
    "UNFINISHED",
    "ConflictError",
    "DamagedGameError",
    "GameStore",
    "StoreError",
    "StoredGame",
    "UnknownGameError",
    "check_action",
    "check_game",
    "check_identity",
    "conflict",
    "new_game",
    "new_game_id",
    "unknown_game",
]


class StoreError(TerraceError):
    """A problem with the saved games (bad database, unknown game...)."""


class UnknownGameError(StoreError):
    """No game has this id."""


class ConflictError(StoreError):
    """The game changed since the caller read it (another tab or process)."""


class DamagedGameError(StoreError):
    """A saved game no longer replays through the engine (edited or damaged)."""


def conflict(stored_revision: int, expected_revision: int) -> ConflictError:
    """The error for a stale write, with the same words in every store."""
    return ConflictError(
        f"the game changed in another window (revision {stored_revision}, "
        f"not {expected_revision}): reload it"
    )


def unknown_game(game_id: str) -> UnknownGameError:
    """The error for an id no game has."""
    return UnknownGameError(f"there is no game {game_id!r}")


@dataclass
class StoredGame:
    """One saved game. ``moves`` are played, ``redo`` are undone moves
    (the next to redo last), ``revision`` counts every stored change.
    ``started_at`` is the time of the first move (None before it); the
    times are seconds since the epoch."""

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
    started_at: float | None = None
    _replayed: tuple[tuple[Rules, Deal, tuple[str, ...], tuple[str, ...]], Board] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def board(self) -> Board:
        """The live board: moves played, redo stack restored.

        The replay is remembered for as long as rules, deal, moves and redo
        stay the same, so loading, playing and saving a game replays it once.
        """
        key = self._board_key()
        if self._replayed is not None and self._replayed[0] == key:
            return self._replayed[1].copy()
        board = Board(self.rules, self.deal)
        for text in self.moves:
            board.push(Move.parse(text))
        for text in reversed(self.redo):
            board.push(Move.parse(text))
        for _ in self.redo:
            board.pop()
        self._replayed = (key, board.copy())
        return board

    def sync(self, board: Board) -> None:
        """Copy moves, redo stack and status from ``board``."""
        self.moves = [str(m) for m in board.move_stack]
        self.redo = [str(m) for m in board.redo_stack]
        self.status = board.status.value
        if board.rules == self.rules and board.deal == self.deal:
            self._replayed = (self._board_key(), board.copy())

    def _board_key(self) -> tuple[Rules, Deal, tuple[str, ...], tuple[str, ...]]:
        return (self.rules, self.deal, tuple(self.moves), tuple(self.redo))

    def record(self) -> GameRecord:
        """The game as an engine record (for export)."""
        return GameRecord(self.variant, self.rules, self.deal, tuple(self.moves), self.status)

    def facts(self) -> GameFacts:
        """What the statistics need to know about this game."""
        return GameFacts(
            self.variant, self.status, len(self.moves), self.hints, self.undos,
            self.created_at, self.updated_at, self.started_at, self.finished_at,
        )

    def stamp(self, now: float) -> None:
        """Set the times a stored change implies: updated now, started at
        the first move, finished when won or lost (cleared again when a
        move is taken back)."""
        self.updated_at = now
        if self.started_at is None and (self.moves or self.redo):
            self.started_at = now
        if self.status in FINISHED:
            if self.finished_at is None:
                self.finished_at = now
        else:
            self.finished_at = None


class GameStore(Protocol):
    """What the web game and the CLI need from saved games."""

    @property
    def verdicts_path(self) -> Path:
        """The solver's verdict cache that goes with these games (see
        :mod:`terrace.storage.paths`)."""
        ...

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
        ``ACTIONS`` but ``create``) is logged with a timestamp. A game the
        rules do not allow, an unknown action, or a change of variant,
        rules or deal is refused with :class:`StoreError`."""
        ...

    def latest_unfinished(self) -> StoredGame | None:
        """The most recently updated game still being played, if any."""
        ...

    def recent(self, limit: int = 20) -> list[StoredGame]:
        """The most recently updated games, newest first."""
        ...

    def statistics(self) -> dict[str, Any]:
        """Per-variant and overall statistics (see
        :func:`terrace.storage.statistics.summarize`)."""
        ...


def new_game_id() -> str:
    """A fresh, URL-safe game id."""
    return uuid.uuid4().hex[:16]


def new_game(variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False) -> StoredGame:
    """A game to store: the variant's canonical name, the status of the
    first position, created now. Raises :class:`StoreError` when the rules
    or the deal do not make a game."""
    try:
        variant = canonical_name(variant)
        status = Board(rules, deal).status.value
    except TerraceError as error:
        raise StoreError(f"cannot start this game: {error}") from None
    now = time.time()
    return StoredGame(
        new_game_id(), variant, rules, deal, status=status,
        winnable_only=bool(winnable_only), created_at=now, updated_at=now,
    )


def check_action(action: str) -> None:
    """Refuse an action an update cannot log."""
    if action not in ACTIONS or action == "create":
        raise StoreError(f"unknown action {action!r}")


def check_identity(variant: str, rules: dict[str, Any], deal_text: str, game: StoredGame) -> None:
    """Refuse an update that changes a saved game's variant, rules (as
    ``Rules.to_dict()``) or deal (as its deal string)."""
    if (variant, rules, deal_text) != (game.variant, game.rules.to_dict(), game.deal.text()):
        raise StoreError("the variant, rules and deal of a saved game cannot change")


def check_game(game: StoredGame) -> Board:
    """Replay ``game`` through the engine and check its status; returns the
    board. Raises :class:`StoreError` with the reason when it is not a game
    the rules allow."""
    name = f"game {game.id}" if game.id else "the game"
    try:
        canonical_name(game.variant)
        board = game.board()
    except TerraceError as error:
        raise StoreError(f"{name} cannot be saved: {error}") from None
    if game.status != board.status.value:
        raise StoreError(
            f"{name} cannot be saved: its status is {game.status!r} "
            f"but its moves lead to {board.status.value!r}"
        )
    return board
