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

It keeps numbers only, in arrays: a game's row, place in the log and
times, about 110 bytes a game (each game's :class:`Placed`, its id and
sorted tuples of them took about 450: 45 MB at 100,000 games). A time is
kept as a float, exact for every time before the year 285,000,000.

>>> order = RecentOrder([Placed(1, False, 10, 100.0, 100.0), Placed(2, False, 11, 50.0, 50.0),
...                     Placed(3, True, 5, None, 120.0)])
>>> order.top(3)  # (b's change was logged after a's, the clock put back: a's time holds for it)
[3, 2, 1]
"""

from __future__ import annotations

import math
import struct
from array import array
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable
from typing import NamedTuple

Time = int | float | None
"""A time in seconds, or None where the row holds none that is a number."""
NONE = math.nan
"""How a time that is none is kept (no time SQLite holds is NaN)."""
_WORD = 1 << 64
"""Past the largest of a key's parts (each made a whole number from 0 up)."""


def _later(one: float, other: float) -> float:
    """The later of two times (:data:`NONE` when both are none)."""
    return other if one != one else one if other != other else max(one, other)


def _float_order(at: float) -> int:
    """A whole number from 0 up that sorts as the time ``at`` does (its
    bits, the sign's order turned the right way round)."""
    bits: int = struct.unpack(">q", struct.pack(">d", at + 0.0))[0]  # (-0.0 + 0.0 is 0.0)
    return bits + _WORD // 2 if bits >= 0 else _WORD // 2 - 1 - (bits & (_WORD // 2 - 1))


def _key(at: float, place: int | None, rowid: int) -> int:
    """What the order sorts by, as one whole number: the time, the place
    in the log, the row (as SQLite sorts, a missing value below any
    other)."""
    key = 0 if at != at else 1 + _float_order(at)
    key = key * 2 * _WORD + (0 if place is None else _WORD + place + _WORD // 2)
    return key * _WORD + rowid + _WORD // 2


def _time(at: Time) -> float:
    return NONE if at is None else float(at)


class Placed(NamedTuple):
    """What places one game among the recent ones (a row of
    :data:`~terrace.storage.rows.RECENT_PLACES`)."""

    rowid: int
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
        self._rows = array("q")
        """Every game's row, in order; beside it, in :attr:`_places`, its
        place in the log (0 for none: see :attr:`_clocked`) and in
        :attr:`_changed` its own time."""
        self._places = array("q")
        self._changed = array("d")
        self._clocked = array("b")
        """1 for a game placed by the log's clock, 2 for one placed by its
        own time that has a place in the log, 0 for one that has none."""
        self._logged = array("q")
        """The places in the log of the games placed by its clock, in order;
        beside them, their rows (:attr:`_logged_rows`), the log's times there
        (:attr:`_log_times`), their own times (:attr:`_own_times`) and the
        log's clock (:attr:`_clock`): the latest time logged up to there
        (good below :attr:`_clock_good` only)."""
        self._logged_rows = array("q")
        self._log_times = array("d")
        self._own_times = array("d")
        self._clock = array("d")
        self._clock_good = 0
        self._times = array("d")
        """The own times of the games of :attr:`_logged` that have one, in
        order, their rows beside them (:attr:`_time_rows`)."""
        self._time_rows = array("q")
        self._own: list[int] = []
        """The keys of the games placed by their own time, in order."""
        placed = sorted(games, key=lambda game: game.rowid)
        clocked = sorted((g for g in placed if g.by_clock), key=lambda g: (g.place, g.rowid))
        for game in placed:
            self._note(game, len(self._rows))
        for game in clocked:
            assert game.place is not None
            self._logged.append(game.place)
            self._logged_rows.append(game.rowid)
            self._log_times.append(_time(game.logged))
            self._own_times.append(_time(game.changed))
        self._clock = array("d", bytes(8 * len(self._logged)))
        timed = sorted((_time(g.changed), g.rowid) for g in clocked if g.changed is not None)
        self._times = array("d", (at for at, _ in timed))
        self._time_rows = array("q", (rowid for _, rowid in timed))
        self._own = sorted(_key(_time(g.changed), g.place, g.rowid) for g in placed if not g.by_clock)

    def _note(self, game: Placed, at: int) -> None:
        """Note the game's row, place and own time at ``at`` of :attr:`_rows`."""
        self._rows.insert(at, game.rowid)
        self._places.insert(at, 0 if game.place is None else game.place)
        self._changed.insert(at, _time(game.changed))
        self._clocked.insert(at, 1 if game.by_clock else 0 if game.place is None else 2)

    def put(self, game: Placed) -> None:
        """Place ``game`` (in place of what was known of its row)."""
        self.drop(game.rowid)
        self._note(game, bisect_left(self._rows, game.rowid))
        changed = _time(game.changed)
        if not game.by_clock:
            insort(self._own, _key(changed, game.place, game.rowid))
            return
        assert game.place is not None
        at = self._logged_at(game.place, game.rowid)
        self._logged.insert(at, game.place)
        self._logged_rows.insert(at, game.rowid)
        for times, value in ((self._log_times, _time(game.logged)), (self._own_times, changed),
                             (self._clock, NONE)):
            times.insert(at, value)
        self._clock_good = min(self._clock_good, at)
        if changed == changed:
            at = self._time_at(changed, game.rowid)
            self._times.insert(at, changed)
            self._time_rows.insert(at, game.rowid)

    def drop(self, rowid: int) -> None:
        """Forget the game of ``rowid`` (deleted, or to be placed anew)."""
        at = bisect_left(self._rows, rowid)
        if at == len(self._rows) or self._rows[at] != rowid:
            return
        place, changed, clocked = self._places[at], self._changed[at], self._clocked[at]
        for column in (self._rows, self._places, self._changed, self._clocked):
            del column[at]
        if clocked != 1:
            del self._own[bisect_left(self._own, _key(changed, place if clocked else None, rowid))]
            return
        at = self._logged_at(place, rowid)
        for column in (self._logged, self._logged_rows, self._log_times, self._own_times, self._clock):
            del column[at]
        self._clock_good = min(self._clock_good, at)
        if changed == changed:
            at = self._time_at(changed, rowid)
            del self._times[at], self._time_rows[at]

    def _logged_at(self, place: int, rowid: int) -> int:
        """Where (``place``, ``rowid``) is, or goes, in :attr:`_logged`."""
        low = bisect_left(self._logged, place)
        return bisect_left(self._logged_rows, rowid, low, bisect_right(self._logged, place, low))

    def _time_at(self, at: float, rowid: int) -> int:
        """Where (``at``, ``rowid``) is, or goes, in :attr:`_times`."""
        low = bisect_left(self._times, at)
        return bisect_left(self._time_rows, rowid, low, bisect_right(self._times, at, low))

    def _clock_at(self, index: int) -> float:
        """The log's clock at ``self._logged[index]`` (brought up to date
        from the first place that changed)."""
        if self._clock_good <= index:
            clock = self._clock[self._clock_good - 1] if self._clock_good else NONE
            for at in range(self._clock_good, len(self._logged)):
                clock = self._clock[at] = _later(clock, self._log_times[at])
            self._clock_good = len(self._logged)
        return self._clock[index]

    def _time_of(self, index: int) -> int:
        """The order's key of ``self._logged[index]``."""
        at = _later(self._own_times[index], self._clock_at(index))
        return _key(at, self._logged[index], self._logged_rows[index])

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
        found: dict[int, int] = {}
        floor, floor_at = -1, NONE
        for index in last:
            at = _later(self._own_times[index], self._clock_at(index))
            key = found[self._logged_rows[index]] = _key(at, self._logged[index], self._logged_rows[index])
            if floor < 0 or key < floor:
                floor, floor_at = key, at
        if len(self._logged) > limit:
            for index in reversed(range(len(self._times))):
                if floor_at == floor_at and self._times[index] < floor_at:
                    break
                rowid = self._time_rows[index]
                if rowid not in found:
                    place = self._places[bisect_left(self._rows, rowid)]
                    found[rowid] = self._time_of(self._logged_at(place, rowid))
        found.update((key % _WORD - _WORD // 2, key) for key in self._own[-limit:])
        return sorted(found, key=found.__getitem__, reverse=True)[:limit]  # (each key ends in its row)
