"""Statistics over saved games: played, won, lost, streaks, best results,
per variant and overall. Only numbers go in (:class:`GameFacts`), so every
store computes them the same way. The JSON shape is documented in
``docs/storage.md``.

>>> summarize([])["overall"]["played"]
0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

FINISHED = ("won", "lost")
UNFINISHED = ("choosing", "playing")
MAX_COUNT = 1_000_000
"""The most hints or undos one game can sensibly have; more is junk."""
SANE_TIMES = (86_400.0, 4_102_444_800.0)
"""Times the statistics believe (1970-01-02 to 2100-01-01); others are junk."""


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

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> GameFacts:
        """Facts from stored values, whatever they hold: a value that is
        out of range or of the wrong type (a hand edit, an old import)
        counts as unknown, so the statistics never fail on it.

        >>> GameFacts.from_row([7, "won", -1, 10**30, 2, "x", 1e300, None, float("nan")])
        GameFacts(variant='7', status='won', moves=0, hints=0, undos=2, created_at=0.0, \
updated_at=0.0, started_at=None, finished_at=None)
        """
        variant, status, moves, hints, undos, created, updated, started, finished = row
        known_status = status in FINISHED or status in UNFINISHED
        return cls(
            str(variant), status if known_status else "playing", _count(moves), _count(hints),
            _count(undos), _time(created) or 0.0, _time(updated) or 0.0, _time(started),
            _time(finished),
        )

    @property
    def started(self) -> bool:
        """True once a move was made (games only opened do not count)."""
        return self.started_at is not None or self.moves > 0


def summarize(games: Iterable[GameFacts]) -> dict[str, Any]:
    """Statistics over games, overall and per variant; the JSON shape is
    described in ``docs/storage.md``. Only started games (a move was made)
    count; streaks follow the order in which games were finished.

    >>> summarize([GameFacts("wood", "won", 80, 0, 0, 0.0, 9.0, 1.0, 9.0)])["overall"]["won"]
    1
    """
    facts = list(games)
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


def _count(value: Any) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
    return value if ok else 0


def _time(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value) if SANE_TIMES[0] <= value <= SANE_TIMES[1] else None


def local_day(timestamp: float) -> str:
    """The calendar date (local time) of a timestamp, as ``YYYY-MM-DD``."""
    return datetime.fromtimestamp(timestamp).date().isoformat()
