"""The order of the recent games, kept game by game.

A game changed here is placed by the log's clock: the latest time logged
at the last change here of any such game up to its own (or its own time of
last change, when later), so that a clock put back never lists a game
played before it above the games played since; a game imported and not
played here (or with no change logged) is placed by its own time of last
change. Ties go to the later place in the log, then to the later row. The
SQLite store read every game's row and last change and sorted them all
again after any change (1.4 to 2.1 s of CPU at 100,000 games);
:class:`RecentOrder` keeps each game's place, is told the games that
changed, and finds the first ones from a few candidates.

>>> order = RecentOrder([Placed(1, "a", False, 10, 100.0, 100.0), Placed(2, "b", False, 11, 50.0, 50.0),
...                     Placed(3, "c", True, 5, None, 120.0)])
>>> order.top(3)  # (b's change was logged after a's, the clock put back: a's time holds for it)
[3, 2, 1]
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable
from typing import Any, NamedTuple

Time = int | float | None
"""A time in seconds, or None where the row holds none that is a number."""
Key = tuple[bool, float, bool, int, int]
"""A game's place in the order, as sorted (the first ones last)."""


def _later(one: Time, other: Time) -> Time:
    """The later of two times (None when both are none)."""
    return other if one is None else one if other is None else max(one, other)


def _key(at: Time, place: int | None, rowid: int) -> Key:
    """What the order sorts by: the time, the place in the log, the row
    (as SQLite sorts, a missing value below any other)."""
    return (at is not None, 0 if at is None else at, place is not None, 0 if place is None else place, rowid)


class Placed(NamedTuple):
    """What places one game among the recent ones (a row of
    :data:`~terrace.storage.rows.RECENT_PLACES`)."""

    rowid: int
    game_id: Any
    elsewhere: bool
    """It came in by an import and was not changed here since."""
    place: int | None
    """Where in the log it last changed here (None: nowhere)."""
    logged: Time
    """The log's time at that place."""
    changed: Time
    """Its row's time of last change."""

    @property
    def by_clock(self) -> bool:
        """Placed by the log's clock (else by its own time)."""
        return not self.elsewhere and self.place is not None


class RecentOrder:
    """The games' order, the latest first, kept as games change."""

    def __init__(self, games: Iterable[Placed]) -> None:
        self._games: dict[int, Placed] = {}
        self._rows: dict[Any, int] = {}
        self._own: list[tuple[Key, int]] = []
        """The games placed by their own time, by their place in the order."""
        self._logged: list[tuple[int, int]] = []
        """The games placed by the log's clock, by their place in the log."""
        self._clock: list[Time] = []
        """The log's clock at each of :attr:`_logged`: the latest time
        logged up to there (good below :attr:`_clock_good` only)."""
        self._clock_good = 0
        self._times: list[tuple[float, int]] = []
        """The games of :attr:`_logged` that have a time of their own, by it."""
        for game in games:
            self._games[game.rowid] = game
            self._rows[game.game_id] = game.rowid
        clocked = [game for game in self._games.values() if game.by_clock]
        self._logged = sorted((game.place, game.rowid) for game in clocked if game.place is not None)
        self._clock = [None] * len(self._logged)
        self._times = sorted((game.changed, game.rowid) for game in clocked if game.changed is not None)
        self._own = sorted((_key(game.changed, game.place, game.rowid), game.rowid)
                           for game in self._games.values() if not game.by_clock)

    def put(self, game: Placed) -> None:
        """Place ``game`` (in place of what was known of its row)."""
        self.drop(game.game_id)
        self._drop_row(game.rowid)
        self._games[game.rowid] = game
        self._rows[game.game_id] = game.rowid
        if not game.by_clock:
            insort(self._own, (_key(game.changed, game.place, game.rowid), game.rowid))
            return
        assert game.place is not None
        at = bisect_left(self._logged, (game.place, game.rowid))
        self._logged.insert(at, (game.place, game.rowid))
        self._clock.insert(at, None)
        self._clock_good = min(self._clock_good, at)
        if game.changed is not None:
            insort(self._times, (game.changed, game.rowid))

    def drop(self, game_id: Any) -> None:
        """Forget the game ``game_id`` (deleted, or to be placed anew)."""
        rowid = self._rows.get(game_id)
        if rowid is not None:
            self._drop_row(rowid)

    def _drop_row(self, rowid: int) -> None:
        game = self._games.pop(rowid, None)
        if game is None:
            return
        if self._rows.get(game.game_id) == rowid:
            del self._rows[game.game_id]
        if not game.by_clock:
            del self._own[bisect_left(self._own, (_key(game.changed, game.place, rowid), rowid))]
            return
        at = bisect_left(self._logged, (game.place, rowid))
        del self._logged[at], self._clock[at]
        self._clock_good = min(self._clock_good, at)
        if game.changed is not None:
            del self._times[bisect_left(self._times, (game.changed, rowid))]

    def _clock_at(self, index: int) -> Time:
        """The log's clock at ``self._logged[index]`` (brought up to date
        from the first place that changed)."""
        if self._clock_good <= index:
            clock = self._clock[self._clock_good - 1] if self._clock_good else None
            for at in range(self._clock_good, len(self._logged)):
                clock = self._clock[at] = _later(clock, self._games[self._logged[at][1]].logged)
            self._clock_good = len(self._logged)
        return self._clock[index]

    def _time_of(self, index: int) -> Key:
        """The order's key of ``self._logged[index]``."""
        place, rowid = self._logged[index]
        return _key(_later(self._games[rowid].changed, self._clock_at(index)), place, rowid)

    def top(self, limit: int) -> list[int]:
        """The rows of the ``limit`` games played last, the latest first.
        The candidates: the last ``limit`` games in the log (the clock
        only moves on along it, so a game before them comes after each of
        them unless its own time is later), those of the others whose own
        time is as late as the last of those, and the first ``limit`` of
        the games placed by their own time."""
        if limit <= 0:
            return []
        last = range(max(len(self._logged) - limit, 0), len(self._logged))
        found = {self._logged[index][1]: self._time_of(index) for index in last}
        if len(self._logged) > limit:
            floor = min(found.values())
            for changed, rowid in reversed(self._times):
                if floor[0] and changed < floor[1]:
                    break
                if rowid not in found:
                    found[rowid] = self._time_of(bisect_left(self._logged, (self._games[rowid].place, rowid)))
        found.update((rowid, key) for key, rowid in self._own[-limit:])
        return sorted(found, key=found.__getitem__, reverse=True)[:limit]  # (each key ends in its row)
