"""A map that keeps only its latest entries (:class:`Bounded`): at most so
many, and at most so much weight in all, the least recently used going
first. The hints' kept lines and fair work, what the server keeps per
game (hint lines, base-card chances, replay boards, report clocks, the
solver process of its hints) and the SQLite store's remembered games and
vouched lines are each one.

>>> lines = Bounded(3, weight=10, weigh=len)
>>> for game, line in [("a", "xyz"), ("b", "xy"), ("c", "wxyz")]:
...     _ = lines.put(game, line)
>>> list(lines), lines.held
(['a', 'b', 'c'], 9)
>>> _ = lines.recall("a")                 # used: now the newest
>>> _ = lines.put("d", "uvwxy")          # 14 in all: the oldest go
>>> list(lines), lines.held
(['a', 'd'], 8)
>>> _ = lines.put("e", "0123456789ab")   # the newest stays, whatever its weight
>>> list(lines), lines.get("e")
(['e'], '0123456789ab')
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """Values by key, oldest first, of which at most ``count`` are kept
    and, when ``weight`` is given, at most that much of ``weigh`` (each
    value's, 0 without it) in all; the newest is always kept, whatever its
    weight. Putting a key, or :meth:`recall`-ing it, makes it the newest.
    With ``shared``, ``count`` counts values, not keys: a value (the same
    object) kept under several keys counts once there, and under each key
    in the weight. ``forgotten`` is told each key that the bounds push
    out (not those popped or cleared), the map's lock held, and
    ``dropped`` each key with its value so. Each insert
    costs the same however many are kept (the weight in all is kept as a
    sum). Thread-safe."""

    def __init__(self, count: int, weight: int | None = None, weigh: Callable[[V], int] | None = None,
                 *, shared: bool = False, forgotten: Callable[[K], None] | None = None,
                 dropped: Callable[[K, V], None] | None = None) -> None:
        self.count = count
        self.weight = weight
        self._weigh = weigh
        self._shared = shared
        self._forgotten = forgotten
        self._dropped = dropped
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._uses: dict[int, int] = {}
        """With ``shared``: under how many keys each value (by its id) is kept."""
        self._held = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __iter__(self) -> Iterator[K]:
        """The keys, oldest first (as they were when asked)."""
        with self._lock:
            return iter(list(self._entries))

    @property
    def held(self) -> int:
        """The weight of all that is kept."""
        with self._lock:
            return self._held

    def values(self) -> list[V]:
        """The values, oldest first."""
        with self._lock:
            return [value for value, _ in self._entries.values()]

    def items(self) -> list[tuple[K, V]]:
        """The keys and their values, oldest first."""
        with self._lock:
            return [(key, value) for key, (value, _) in self._entries.items()]

    def get(self, key: K) -> V | None:
        """The value under ``key`` (its place unchanged), else None."""
        with self._lock:
            entry = self._entries.get(key)
            return None if entry is None else entry[0]

    def recall(self, key: K) -> V | None:
        """The value under ``key``, now the newest, else None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def pop(self, key: K) -> V | None:
        """The value under ``key``, no longer kept, else None."""
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is None:
                return None
            self._forget(entry)
            return entry[0]

    def put(self, key: K, value: V, keep_old: Callable[[V, V], bool] | None = None) -> V:
        """Keep ``value`` under ``key`` as the newest, and forget the oldest
        beyond the bounds; with ``keep_old``, the value already under
        ``key`` stays instead (as the newest) when ``keep_old(old, value)``.
        The value kept."""
        weight = self._weight(value)  # (weighed before the lock: it may take a while)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._forget(old)
                if keep_old is not None and keep_old(old[0], value):
                    value, weight = old
            self._add(key, value, weight)
            self._shrink()
            return value

    def put_all(self, keys: Sequence[K], value: V) -> None:
        """Keep ``value`` under each of ``keys`` (the last the newest), at
        once: the bounds are applied after the last."""
        weight = self._weight(value)
        with self._lock:
            for key in keys:
                old = self._entries.pop(key, None)
                if old is not None:
                    self._forget(old)
                self._add(key, value, weight)
            self._shrink()

    def clear(self) -> None:
        """Forget all."""
        with self._lock:
            self._entries.clear()
            self._uses.clear()
            self._held = 0

    def _weight(self, value: V) -> int:
        return 0 if self._weigh is None else self._weigh(value)

    def _add(self, key: K, value: V, weight: int) -> None:
        """(The lock held.)"""
        self._entries[key] = (value, weight)
        self._held += weight
        if self._shared:
            self._uses[id(value)] = self._uses.get(id(value), 0) + 1

    def _forget(self, entry: tuple[V, int]) -> None:
        """One key less for ``entry``, already out of the map (the lock held)."""
        value, weight = entry
        self._held -= weight
        if self._shared:
            uses = self._uses.pop(id(value)) - 1
            if uses:
                self._uses[id(value)] = uses

    def _shrink(self) -> None:
        """Forget the oldest while more than the bounds are kept (the lock held)."""
        while True:
            counted = len(self._uses) if self._shared else len(self._entries)
            heavy = self.weight is not None and self._held > self.weight
            if counted <= self.count and not (heavy and counted > 1):
                return
            key, entry = self._entries.popitem(last=False)
            self._forget(entry)
            if self._forgotten is not None:
                self._forgotten(key)
            if self._dropped is not None:
                self._dropped(key, entry[0])
