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
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
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


class DamagedGameError(StoreError):
    """A saved game no longer replays through the engine (edited or damaged)."""


FINISHED = ("won", "lost")
UNFINISHED = ("choosing", "playing")


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


@dataclass(frozen=True)
class GameFacts:
    """One game as the statistics see it: no cards, only numbers."""

    variant: str
    status: str
    moves: int
    hints: int
    undos: int
    created_at: float
    updated_at: float
    started_at: float | None
    finished_at: float | None

    @property
    def started(self) -> bool:
        """True once a move was made (games only opened do not count)."""
        return self.started_at is not None or self.moves > 0


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
        """Per-variant and overall statistics (see ``summarize``; the JSON
        shape is documented in ``docs/storage.md``)."""
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
            new_game_id(), variant, rules, deal, status=Board(rules, deal).status.value,
            winnable_only=winnable_only, created_at=now, updated_at=now,
        )
        self._games[game.id] = copy.deepcopy(game)
        return game

    def get(self, game_id: str) -> StoredGame:
        try:
            return copy.deepcopy(self._games[game_id])
        except KeyError:
            raise unknown_game(game_id) from None

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        stored = self._games.get(game.id)
        if stored is None:
            raise unknown_game(game.id)
        if stored.revision != expected_revision:
            raise conflict(stored.revision, expected_revision)
        game.revision = expected_revision + 1
        game.stamp(time.time())
        self._games[game.id] = copy.deepcopy(game)

    def latest_unfinished(self) -> StoredGame | None:
        playing = [g for g in self._games.values() if g.status in UNFINISHED]
        if not playing:
            return None
        return copy.deepcopy(max(playing, key=lambda g: g.updated_at))

    def recent(self, limit: int = 20) -> list[StoredGame]:
        games = sorted(self._games.values(), key=lambda g: g.updated_at, reverse=True)
        return [copy.deepcopy(g) for g in games[:limit]]

    def statistics(self) -> dict[str, Any]:
        return summarize([g.facts() for g in self._games.values()])


def summarize(games: Iterable[GameFacts | StoredGame]) -> dict[str, Any]:
    """Statistics over games, overall and per variant; the JSON shape is
    described in ``docs/storage.md``. Only started games (a move was made)
    count; streaks follow the order in which games were finished.

    >>> summarize([])["overall"]["played"]
    0
    """
    facts = [g.facts() if isinstance(g, StoredGame) else g for g in games]
    variants = sorted({g.variant for g in facts})
    return {
        "overall": _block(facts),
        "variants": {v: _block([g for g in facts if g.variant == v]) for v in variants},
    }


def _block(group: list[GameFacts]) -> dict[str, Any]:
    started = [g for g in group if g.started]
    finished = sorted(
        (g for g in started if g.status in FINISHED),
        key=lambda g: (g.finished_at or g.updated_at, g.created_at),
    )
    won = [g for g in finished if g.status == "won"]
    streak = best = 0
    for g in finished:
        streak = streak + 1 if g.status == "won" else 0
        best = max(best, streak)
    times = [
        g.finished_at - g.started_at
        for g in won
        if g.finished_at is not None and g.started_at is not None
    ]
    days: dict[str, dict[str, Any]] = {}
    for g in finished:
        date = local_day(g.finished_at or g.updated_at)
        day = days.setdefault(date, {"date": date, "won": 0, "lost": 0})
        day[g.status] += 1
    return {
        "played": len(started),
        "finished": len(finished),
        "won": len(won),
        "lost": len(finished) - len(won),
        "unfinished": len(started) - len(finished),
        "win_rate": len(won) / len(finished) if finished else None,
        "current_streak": streak,
        "best_streak": best,
        "fewest_moves": min((g.moves for g in won), default=None),
        "fastest_seconds": round(max(min(times), 0.0), 3) if times else None,
        "hints": sum(g.hints for g in started),
        "undos": sum(g.undos for g in started),
        "days": [days[d] for d in sorted(days)],
    }


def local_day(timestamp: float) -> str:
    """The calendar date (local time) of a timestamp, as ``YYYY-MM-DD``."""
    return datetime.fromtimestamp(timestamp).date().isoformat()
