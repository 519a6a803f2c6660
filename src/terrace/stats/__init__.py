"""Saved games and statistics in SQLite.

>>> store = open_store(":memory:")
>>> store.statistics()["overall"]["played"]
0
"""

from terrace.stats.migrations import LATEST_VERSION, MIGRATIONS, NewerDatabaseError
from terrace.stats.sqlite import DatabaseFileError, SqliteStore, default_db_path, open_store

__all__ = [
    "LATEST_VERSION",
    "MIGRATIONS",
    "DatabaseFileError",
    "NewerDatabaseError",
    "SqliteStore",
    "default_db_path",
    "open_store",
]
