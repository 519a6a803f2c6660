"""A small SQLite store of solver verdicts, keyed by rules, deal number and
deal version. ``terrace survey`` and ``terrace deal --winnable`` share it.

>>> import tempfile, os
>>> from terrace.rules import Rules
>>> path = os.path.join(tempfile.mkdtemp(), "v.sqlite3")
>>> store = VerdictStore(path)
>>> store.put(Rules(), 5, Verdict("won", 10, 0.5, 10.0, "c1 s"))
>>> store.get(Rules(), 5).result
'won'
>>> store.close()
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass

from terrace.deal import DEAL_VERSION
from terrace.rules import Rules
from terrace.storage.paths import default_verdicts_path

SOLVER_VERSION = 1
"""Bumped whenever a change could alter a verdict; older rows are ignored."""


def default_db_path() -> str:
    """``solver.sqlite3`` beside the games database (see
    :mod:`terrace.storage.paths`)."""
    return str(default_verdicts_path())


def rules_key(rules: Rules) -> str:
    """The rules as canonical JSON text."""
    return json.dumps(rules.to_dict(), sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the solver said about one deal."""

    result: str
    nodes: int
    seconds: float
    max_seconds: float
    line: str = ""


class VerdictStore:
    """Verdicts in SQLite; safe to share between processes."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or default_db_path()
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS verdicts ("
            " rules TEXT NOT NULL, deal INTEGER NOT NULL, version INTEGER NOT NULL,"
            " solver INTEGER NOT NULL, result TEXT NOT NULL, nodes INTEGER NOT NULL,"
            " seconds REAL NOT NULL, max_seconds REAL NOT NULL, line TEXT NOT NULL,"
            " PRIMARY KEY (rules, deal, version))"
        )
        self._db.commit()

    def get(self, rules: Rules, deal: int) -> Verdict | None:
        """The stored verdict of a deal, if this solver version made one."""
        row = self._db.execute(
            "SELECT result, nodes, seconds, max_seconds, line FROM verdicts"
            " WHERE rules = ? AND deal = ? AND version = ? AND solver = ?",
            (rules_key(rules), deal, DEAL_VERSION, SOLVER_VERSION),
        ).fetchone()
        return None if row is None else Verdict(row[0], row[1], row[2], row[3], row[4])

    def put(self, rules: Rules, deal: int, verdict: Verdict) -> None:
        """Store (or replace) a verdict."""
        self._db.execute(
            "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rules_key(rules), deal, DEAL_VERSION, SOLVER_VERSION, verdict.result,
                verdict.nodes, verdict.seconds, verdict.max_seconds, verdict.line,
            ),
        )
        self._db.commit()

    def range(self, rules: Rules, first: int, last: int) -> dict[int, Verdict]:
        """Every stored verdict of deals ``first..last``."""
        rows = self._db.execute(
            "SELECT deal, result, nodes, seconds, max_seconds, line FROM verdicts"
            " WHERE rules = ? AND version = ? AND solver = ? AND deal BETWEEN ? AND ?",
            (rules_key(rules), DEAL_VERSION, SOLVER_VERSION, first, last),
        ).fetchall()
        return {r[0]: Verdict(r[1], r[2], r[3], r[4], r[5]) for r in rows}

    def close(self) -> None:
        """Close the database."""
        self._db.close()


def settled(verdict: Verdict | None, max_seconds: float) -> bool:
    """True when a stored verdict needs no new search with this budget."""
    if verdict is None:
        return False
    return verdict.result in ("won", "lost") or verdict.max_seconds >= max_seconds
