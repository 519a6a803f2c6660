"""Statistics kept up to date game by game: what :func:`~terrace.storage.
statistics.summarize` finds, with each game's part in it kept, so that
after a few games changed only those (and the few games whose result or
place their change moves) are counted again, where the sums went over
every game (1.2 s of CPU at 100,000 games after each move).

A change it cannot follow exactly (the last opening moved back, as when
the newest game is deleted, or a clock put back that moves older results)
has everything counted again, so the answer is always what
:func:`summarize` gives for the same games in the order of their rows.

>>> from terrace.storage.statistics import GameFacts
>>> won = GameFacts("wood", "won", 80, 0, 0, 10.0, 90.0, 20.0, 90.0, 90.0, 80, opened_seq=1, changed_seq=2)
>>> running = Running({1: won})
>>> running.summary(None)["overall"]["won"]
1
>>> left = GameFacts("wood", "playing", 3, 0, 0, 100.0, 110.0, 105.0, None, opened_seq=3, changed_seq=4)
>>> running.update({2: left})
>>> running.summary(None)["overall"]["unfinished"]
1
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from terrace.storage.statistics import RESULTS, GameFacts, local_day, log_clock, stats_block

GOING_ON_EVERY = 4096
"""Games (or results) a sum of every game counts between two calls of
its ``going_on``: a server stopping stops it there."""
CHECKPOINT_EVERY = 512
"""Results between two kept states of the streaks: a change counts the
streaks again from the kept state before its place."""
Key = tuple[float, int, float]
"""Where a result goes in the streaks (:func:`~terrace.storage.statistics._result_order`)."""
_Streaks = dict[str | None, list[int]]
"""Per group (None: every game) the streaks so far: current and best
winning, current and longest losing."""


@dataclass
class _Sums:
    """What the games of one group (or of all) add up to, in any order."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RESULTS, 0))
    hints: int = 0
    undos: int = 0
    assisted: int = 0
    active_ms: int = 0
    won_in: Counter[int] = field(default_factory=Counter)
    times: Counter[float] = field(default_factory=Counter)

    def add(self, g: GameFacts, result: str, sign: int) -> None:
        """Count ``g`` of ``result`` in (``sign`` 1) or out (-1)."""
        self.counts[result] += sign
        self.hints += sign * g.hints
        self.undos += sign * g.undos
        self.assisted += sign * g.assisted
        self.active_ms += sign * g.active_ms
        if result == "won" and not g.assisted:
            _count(self.won_in, g.moves if g.won_moves is None else g.won_moves, sign)
            seconds = g.seconds_to_win()
            if seconds is not None:
                _count(self.times, seconds, sign)


def _count(counter: Counter[Any], value: Any, sign: int) -> None:
    counter[value] += sign
    if not counter[value]:
        del counter[value]


@dataclass(frozen=True)
class _Markers:
    """What every open game's result is measured against (see
    :func:`~terrace.storage.statistics.summarize`)."""

    here: float
    imported: float
    seq: int | None

    def allows(self, later: _Markers) -> bool:
        """Whether moving to ``later`` can only turn unfinished games into
        abandoned ones (no marker goes back)."""
        if later.here < self.here or later.imported < self.imported:
            return False
        if self.seq is None or later.seq is None:
            return self.seq is later.seq
        return later.seq >= self.seq


class Running:
    """The statistics of the games of ``games`` (by rowid), kept up to date
    by :meth:`update` and read by :meth:`summary`, with the chart's days of
    the last ``zones_kept`` time zones asked for. A count of every game
    calls ``going_on`` every :data:`GOING_ON_EVERY` games, which may raise
    to stop it (the server is stopping); the object is then to be dropped."""

    def __init__(self, games: Mapping[int, GameFacts], *, zones_kept: int = 4,
                 going_on: Callable[[], None] = lambda: None) -> None:
        self._zones_kept = zones_kept
        self.going_on = going_on
        self._zones: dict[tzinfo | None, dict[str | None, dict[str, dict[str, Any]]]] = {}
        self._build(dict(games))

    def _build(self, games: dict[int, GameFacts]) -> None:
        self.games = games
        self.going_on()
        self.groups: Counter[str] = Counter(g.variant for g in games.values())
        self._here = sorted(g.created_at for g in games.values() if _opened_here(g))
        self._elsewhere = sorted(g.created_at for g in games.values() if g.imported)
        self.going_on()
        self._seqs = sorted(g.opened_seq for g in games.values()
                            if _opened_here(g) and g.opened_seq is not None)
        self._unseq = sum(1 for g in games.values() if _opened_here(g) and g.opened_seq is None)
        self.going_on()
        self._points = sorted(p for g in games.values() for p in g.log_points())
        self.going_on()
        self._clock = log_clock(self._points)
        self._markers = self._measure()
        self._results: dict[int, str] = {}
        self._keys: dict[int, Key] = {}
        self._order: list[tuple[Key, int]] = []
        self._sums: dict[str | None, _Sums] = {None: _Sums()}
        self._unfinished: set[int] = set()
        for n, (rowid, g) in enumerate(games.items()):
            if n % GOING_ON_EVERY == 0:
                self.going_on()
            self._enter(rowid, g, ordered=False)
        self.going_on()
        self._order.sort()
        self._checkpoints: list[_Streaks] = []
        self._streaks: _Streaks = {}
        self._streak_from(0)
        for zone in list(self._zones):
            self._zones[zone] = self._days(zone)

    def update(self, changed: Mapping[int, GameFacts | None]) -> None:
        """Take the games of ``changed`` as they are now (None: gone)."""
        if not changed:
            return
        moved: list[tuple[Key, int]] = []
        for rowid in changed:
            self._leave(rowid, moved)
        old_points = Counter(p for rowid in changed if (g := self.games.get(rowid)) for p in g.log_points())
        for rowid, g in changed.items():
            self._unmark(self.games.pop(rowid, None))
            if g is not None:
                self.games[rowid] = g
                self._mark(g)
        new_points = Counter(p for g in changed.values() if g is not None for p in g.log_points())
        markers = self._measure()
        if not self._markers.allows(markers):
            self._build(self.games)
            return
        self._markers = markers
        again = set(self._unfinished) - set(changed)
        rekeyed = self._clock_moved(old_points, new_points)
        if rekeyed is None:
            self._build(self.games)
            return
        again |= {r for r in self._keyed_at(rekeyed) if r not in changed}
        for rowid in again:
            self._leave(rowid, moved)
        for rowid in {*again, *(r for r, g in changed.items() if g is not None)}:
            self._enter(rowid, self.games[rowid], moved=moved)
        if moved:
            self._streak_from(bisect.bisect_left(self._order, min(moved)))

    def summary(self, zone: tzinfo | None, damaged: int = 0, newer: int = 0) -> dict[str, Any]:
        """The statistics as :func:`~terrace.storage.statistics.summarize`
        gives them, the chart's days in ``zone``."""
        days = self._zones.pop(zone, None)
        self._zones[zone] = days = self._days(zone) if days is None else days
        while len(self._zones) > self._zones_kept:  # (the zone asked for least lately goes)
            del self._zones[next(iter(self._zones))]
        variants = {v: self._block(v, days) for v in sorted(v for v, n in self.groups.items() if n)}
        overall = self._block(None, days)
        if sum(1 for block in variants.values() if block["fewest_moves"] is not None) > 1:
            overall.update(fewest_moves=None, fewest_moves_wins=0, fastest_seconds=None)
        return {"overall": overall, "variants": variants, "damaged": damaged, "newer": newer}

    def _block(self, group: str | None, days: dict[str | None, dict[str, dict[str, Any]]]) -> dict[str, Any]:
        sums = self._sums.get(group) or _Sums()
        fewest = min(sums.won_in, default=None)
        streak, best, losing, longest = self._streaks.get(group) or (0, 0, 0, 0)
        of_group = days.get(group, {})
        return stats_block(
            sums.counts, streaks=(streak, best, losing, longest),
            fewest=(fewest, 0 if fewest is None else sums.won_in[fewest]),
            fastest=min(sums.times, default=None),
            sums=(sums.hints, sums.undos, sums.assisted, sums.active_ms),
            days=[dict(of_group[d]) for d in sorted(of_group)])

    def _measure(self) -> _Markers:
        here = self._here[-1] if self._here else 0.0
        imported = max(here, self._elsewhere[-1]) if self._elsewhere else here
        return _Markers(here, imported, self._seqs[-1] if self._seqs and not self._unseq else None)

    def _mark(self, g: GameFacts) -> None:
        self.groups[g.variant] += 1
        if _opened_here(g):
            bisect.insort(self._here, g.created_at)
            if g.opened_seq is None:
                self._unseq += 1
            else:
                bisect.insort(self._seqs, g.opened_seq)
        if g.imported:
            bisect.insort(self._elsewhere, g.created_at)

    def _unmark(self, g: GameFacts | None) -> None:
        if g is None:
            return
        _count(self.groups, g.variant, -1)
        if _opened_here(g):
            _remove(self._here, g.created_at)
            if g.opened_seq is None:
                self._unseq -= 1
            else:
                _remove(self._seqs, g.opened_seq)
        if g.imported:
            _remove(self._elsewhere, g.created_at)

    def _clock_moved(self, old: Counter[tuple[int, float]],
                     new: Counter[tuple[int, float]]) -> dict[int, float] | None:
        """Put the clock's points of the changed games right; the places
        whose clock moved (their results go elsewhere in the streaks), each
        with its time before, or None when too many did to follow."""
        gone, came = old - new, new - old
        if not gone and not came:
            return {}
        for point, times in gone.items():
            for _ in range(times):
                _remove(self._points, point)
        for point, times in came.items():
            for _ in range(times):
                bisect.insort(self._points, point)
        for seq, _ in gone:
            at = bisect.bisect_left(self._points, (seq, -math.inf))
            if at == len(self._points) or self._points[at][0] != seq:
                self._clock.pop(seq, None)
        first = min(seq for seq, _ in gone | came)
        last = max(seq for seq, _ in gone | came)
        start = bisect.bisect_left(self._points, (first, -math.inf))
        running = self._clock[self._points[start - 1][0]] if start else -math.inf
        moved: dict[int, float] = {}
        after = itertools.islice(self._points, start, None)
        for seq, points in itertools.groupby(after, key=operator.itemgetter(0)):
            running = max(running, *(at for _, at in points))
            if self._clock.get(seq) == running:
                if seq > last:
                    break
                continue
            if seq in self._clock:
                moved.setdefault(seq, self._clock[seq])
            self._clock[seq] = running
            if len(moved) > 4 * CHECKPOINT_EVERY:
                return None
        return moved

    def _keyed_at(self, places: dict[int, float]) -> set[int]:
        """The games whose results the order holds at the places of
        ``places`` (each with the clock's time there when they were put)."""
        found = set()
        for seq, at in places.items():
            key = (at, 1, float(seq))
            n = bisect.bisect_left(self._order, (key,))
            while n < len(self._order) and self._order[n][0] == key:
                found.add(self._order[n][1])
                n += 1
        return found

    def _result(self, g: GameFacts) -> str | None:
        markers = self._markers
        return g.result(markers.imported if g.imported else markers.here, markers.seq)

    def _key(self, g: GameFacts) -> Key:
        seq = g.result_seq if g.result_seq is not None else g.changed_seq
        if g.imported or seq is None or seq not in self._clock:
            return (g.result_at(), 0, g.created_at)
        return (self._clock[seq], 1, seq)

    def _enter(self, rowid: int, g: GameFacts, *, ordered: bool = True,
               moved: list[tuple[Key, int]] | None = None) -> None:
        result = self._result(g)
        if result is None:
            return
        self._results[rowid] = result
        for group in (None, g.variant):
            sums = self._sums.get(group)
            if sums is None:
                sums = self._sums[group] = _Sums()
            sums.add(g, result, 1)
        if result == "unfinished":
            self._unfinished.add(rowid)
            return
        key = self._key(g)
        self._keys[rowid] = key
        for zone, days in self._zones.items():
            _day(days, g, result, zone, 1)
        if ordered:
            bisect.insort(self._order, (key, rowid))
            if moved is not None:
                moved.append((key, rowid))
        else:
            self._order.append((key, rowid))

    def _leave(self, rowid: int, moved: list[tuple[Key, int]]) -> None:
        result = self._results.pop(rowid, None)
        if result is None:
            return
        g = self.games[rowid]
        for group in (None, g.variant):
            self._sums[group].add(g, result, -1)
        self._unfinished.discard(rowid)
        key = self._keys.pop(rowid, None)
        if key is None:
            return
        for zone, days in self._zones.items():
            _day(days, g, result, zone, -1)
        _remove(self._order, (key, rowid))
        moved.append((key, rowid))

    def _streak_from(self, index: int) -> None:
        """Count the streaks again from the result at ``index`` of the
        order on, from the state kept last before it."""
        if not self._checkpoints:
            self._checkpoints.append({})
        at = min(index // CHECKPOINT_EVERY, len(self._checkpoints) - 1)
        del self._checkpoints[at + 1:]
        state = {k: list(v) for k, v in self._checkpoints[at].items()}
        start = at * CHECKPOINT_EVERY
        results, games, order = self._results, self.games, self._order
        for n in range(start, len(order)):
            if (n - start) % GOING_ON_EVERY == 0:
                self.going_on()
            if n % CHECKPOINT_EVERY == 0 and n > start:
                self._checkpoints.append({k: list(v) for k, v in state.items()})
            rowid = order[n][1]
            won = results[rowid] == "won"
            for group in (None, games[rowid].variant):
                s = state.get(group)
                if s is None:
                    s = state[group] = [0, 0, 0, 0]
                if won:
                    s[0], s[2] = s[0] + 1, 0
                    s[1] = max(s[1], s[0])
                else:
                    s[0], s[2] = 0, s[2] + 1
                    s[3] = max(s[3], s[2])
        self._streaks = state

    def _days(self, zone: tzinfo | None) -> dict[str | None, dict[str, dict[str, Any]]]:
        days: dict[str | None, dict[str, dict[str, Any]]] = {}
        for n, rowid in enumerate(self._keys):
            if n % GOING_ON_EVERY == 0:
                self.going_on()
            _day(days, self.games[rowid], self._results[rowid], zone, 1)
        return days


def _day(days: dict[str | None, dict[str, dict[str, Any]]], g: GameFacts, result: str,
         zone: tzinfo | None, sign: int) -> None:
    """Count ``g``'s result on its day in ``zone`` in (``sign`` 1) or out (-1)."""
    at = g.result_at()
    if at <= 0:
        return
    date = local_day(at, zone)
    for group in (None, g.variant):
        of_group = days.setdefault(group, {})
        day = of_group.setdefault(date, {"date": date, "won": 0, "lost": 0, "abandoned": 0})
        day[result] += sign
        if not (day["won"] or day["lost"] or day["abandoned"]):
            del of_group[date]


def _opened_here(g: GameFacts) -> bool:
    return not (g.imported or g.opened_elsewhere)


def _remove(values: list[Any], value: Any) -> None:
    del values[bisect.bisect_left(values, value)]
