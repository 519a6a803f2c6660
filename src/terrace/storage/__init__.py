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

>>> store = open_games(":memory:")
>>> store.statistics()["overall"]["played"]
0
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from terrace.storage.paths import default_games_path, default_verdicts_path, verdicts_path
    from terrace.storage.sqlite import SqliteStore, open_store
    from terrace.storage.statistics import GameFacts, summarize


HOMES = {
    "base": ("ACTIONS", "GAME_ID", "LATEST_GAME", "ClockOutOfRangeError", "ConflictError", "DamagedGameError",
             "GameStore", "GivenUpError", "LineTooLongError", "NewerGameError", "StoredGame", "StoreError",
             "StoreWriteError", "UnknownGameError", "UnsavableGameError"),
    "files": ("DatabaseFileError", "NoDatabaseError"),
    "memory": ("MemoryStore",),
    "migrations": ("LATEST_VERSION", "MIGRATIONS", "NewerDatabaseError"),
    "paths": ("default_games_path", "default_verdicts_path", "verdicts_path"),
    "sqlite": ("SqliteStore", "open_store"),
    "statistics": ("GameFacts", "summarize"),
}
"""Which module of the package holds each name it offers, imported when a
name is first asked for: a solver worker or ``terrace solve`` that needs
the verdicts' file or a path does not load the game store (SQLite
statements, statistics)."""


def __getattr__(name: str) -> Any:
    """A name of the package, from its module (see :data:`HOMES`)."""
    for module, names in HOMES.items():
        if name in names:
            return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_games(path: str | os.PathLike[str] | None) -> GameStore:
    """The games store for a ``--db`` value: :class:`MemoryStore` for
    ``":memory:"``, else the SQLite file (None: the default one)."""
    from terrace.storage.memory import MemoryStore
    from terrace.storage.paths import MEMORY
    from terrace.storage.sqlite import open_store

    if path is not None and str(path) == MEMORY:
        return MemoryStore()
    return open_store(path)

__all__ = [
    "ACTIONS",
    "GAME_ID",
    "LATEST_GAME",
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
