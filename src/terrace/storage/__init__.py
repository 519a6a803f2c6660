"""Saved games and statistics.

Where to look:

- :mod:`terrace.storage.base`: the :class:`GameStore` interface, the
  :class:`StoredGame` it hands out, the errors, the checks before a write;
- :mod:`terrace.storage.memory`: :class:`MemoryStore`, games in memory;
- :mod:`terrace.storage.sqlite`: :class:`SqliteStore`, games in one SQLite
  file (:mod:`~terrace.storage.files` checks the file first,
  :mod:`~terrace.storage.migrations` builds the schema);
- :mod:`terrace.storage.statistics`: played, won, streaks, best results;
- :mod:`terrace.storage.transfer`: export and import as game records;
- :mod:`terrace.storage.paths`: where the games and the solver's verdicts live.
(The commands ``terrace stats``, ``export`` and ``import`` are in :mod:`terrace.cli.storage`.)

>>> store = open_store(":memory:")
>>> store.statistics()["overall"]["played"]
0
"""

from __future__ import annotations

import os

from terrace.storage.base import (
    ACTIONS,
    GAME_ID,
    ClockOutOfRangeError,
    ConflictError,
    DamagedGameError,
    GameStore,
    GivenUpError,
    LineTooLongError,
    NewerGameError,
    StoredGame,
    StoreError,
    StoreWriteError,
    UnknownGameError,
    UnsavableGameError,
)
from terrace.storage.files import DatabaseFileError, NoDatabaseError
from terrace.storage.memory import MemoryStore
from terrace.storage.migrations import LATEST_VERSION, MIGRATIONS, NewerDatabaseError
from terrace.storage.paths import MEMORY, default_games_path, default_verdicts_path, verdicts_path
from terrace.storage.sqlite import SqliteStore, open_store
from terrace.storage.statistics import GameFacts, summarize


def open_games(path: str | os.PathLike[str] | None) -> GameStore:
    """The games store for a ``--db`` value: :class:`MemoryStore` for
    ``":memory:"``, else the SQLite file (None: the default one)."""
    if path is not None and str(path) == MEMORY:
        return MemoryStore()
    return open_store(path)

__all__ = [
    "ACTIONS",
    "GAME_ID",
    "LATEST_VERSION",
    "MIGRATIONS",
    "ClockOutOfRangeError",
    "ConflictError",
    "DamagedGameError",
    "DatabaseFileError",
    "GameFacts",
    "GameStore",
    "GivenUpError",
    "LineTooLongError",
    "MemoryStore",
    "NewerDatabaseError",
    "NewerGameError",
    "NoDatabaseError",
    "SqliteStore",
    "StoreError",
    "StoreWriteError",
    "StoredGame",
    "UnknownGameError",
    "UnsavableGameError",
    "default_games_path",
    "default_verdicts_path",
    "open_games",
    "open_store",
    "summarize",
    "verdicts_path",
]
