"""A game's line as the stores keep it: moves played, then the redo stack
(next to redo first), in chunks that never change.

Two versions of a line share every chunk but the last few, so that a copy
costs nothing, a move, an undo or a redo makes a new line in time that does
not grow with the game, and two versions are compared chunk by chunk (by
identity first). A list of 100,000 moves took about a millisecond to copy,
and each request copied several (docs/storage.md, "A request costs the
same at any length of game").

>>> line = Line.of(["c1", "s", "t2t3"])
>>> len(line), line[-1], line.to_list(), line.prefix(1).extend(["wf"]).to_list()
(3, 't2t3', ['c1', 's', 't2t3'], ['c1', 'wf'])
>>> line.common_prefix(line.prefix(2).extend(["x"])), line == Line.of(["c1", "s", "t2t3"])
(2, True)
>>> line.digest() == Line.digest_of_joined("c1\\0s\\0t2t3", 3)
True
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator, Sequence

CHUNK = 256
"""Moves per chunk (every chunk but the last is full)."""
MODULUS = 2**127 - 1
"""The prime of :meth:`Line.digest`."""
_BASE = 256
_INVERSE = pow(_BASE, -1, MODULUS)


def _value(text: str) -> tuple[int, int]:
    """The digest of ``text`` (moves each followed by a NUL) and its length
    in bytes."""
    data = text.encode()
    return int.from_bytes(data, "big") % MODULUS, len(data)


def _moves_value(moves: Iterable[str]) -> tuple[int, int]:
    """:func:`_value` of moves, each followed by a NUL."""
    items = moves if isinstance(moves, list) else list(moves)
    try:
        return _value("\0".join(items) + "\0" if items else "")
    except TypeError:  # (a damaged row may hold a number)
        return _value("".join(f"{move}\0" for move in items))


def digest_step(before: int, move: str) -> int:
    """The :meth:`Line.digest` of a line one move longer than a line of
    digest ``before``.

    >>> digest_step(digest_step(0, "c1"), "s") == Line.of(["c1", "s"]).digest()
    True
    """
    value, shift = _step_of(move)
    return (before * shift + value) % MODULUS


@functools.lru_cache(maxsize=4096)
def _step_of(move: str) -> tuple[int, int]:
    """What :func:`digest_step` adds for ``move`` and what it multiplies
    the digest before by (a game holds a few hundred different moves)."""
    value, size = _value(f"{move}\0")
    return value, pow(_BASE, size, MODULUS)


class Line(Sequence[str]):
    """An immutable line of moves (see the module). ``line.digest()`` is a
    number that any change of a move changes (a polynomial hash of the
    moves' bytes, each move followed by a NUL, modulo a prime), kept as
    the line is made, so that a store stamps a line without reading it."""

    __slots__ = ("_chunks", "_digest", "_length")

    def __init__(self, chunks: tuple[tuple[str, ...], ...] = (), digest: int = 0) -> None:
        self._chunks = chunks
        self._length = (len(chunks) - 1) * CHUNK + len(chunks[-1]) if chunks else 0
        self._digest = digest

    @classmethod
    def of(cls, moves: Iterable[str]) -> Line:
        """The line of ``moves``."""
        return cls().extend(moves)

    @classmethod
    def blank(cls, length: int) -> Line:
        """A line of ``length`` empty moves: one that only its length is
        asked of (a game checked by its stamp and digest, not its moves).

        >>> len(Line.blank(600)), Line.blank(3).to_list()
        (600, ['', '', ''])
        """
        full, rest = divmod(max(length, 0), CHUNK)
        chunks = (("",) * CHUNK,) * full + ((("",) * rest,) if rest else ())
        return cls(chunks)

    @staticmethod
    def digest_of_joined(joined: str, moves: int) -> int:
        """The :meth:`digest` of a line of ``moves`` moves given joined by
        NUL characters (as the database's ``group_concat`` reads them)."""
        return _value(joined + "\0")[0] if moves else 0

    def digest(self) -> int:
        """The line's digest (see the class)."""
        return self._digest

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        if not isinstance(index, int):
            raise TypeError("a line is indexed by whole numbers (to_list() gives a list)")
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("line index out of range")
        return self._chunks[index // CHUNK][index % CHUNK]

    def __iter__(self) -> Iterator[str]:
        return itertools.chain.from_iterable(self._chunks)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Line):
            return len(self) == len(other) and self.common_prefix(other) == len(self)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._length, self._digest))

    def __repr__(self) -> str:
        return f"Line.of({self.to_list()!r})"

    def to_list(self, start: int = 0, stop: int | None = None) -> list[str]:
        """The moves from ``start`` to ``stop`` (the end) as a list."""
        stop = self._length if stop is None else min(stop, self._length)
        if start >= stop:
            return []
        first, last = start // CHUNK, (stop - 1) // CHUNK
        out = list(itertools.chain.from_iterable(self._chunks[first:last + 1]))
        return out[start - first * CHUNK: stop - first * CHUNK]

    def extend(self, moves: Iterable[str]) -> Line:
        """This line with ``moves`` after it."""
        added = list(moves)
        if not added:
            return self
        value, size = _moves_value(added)
        digest = (self._digest * pow(_BASE, size, MODULUS) + value) % MODULUS
        chunks = list(self._chunks)
        tail = list(chunks.pop()) if chunks and len(chunks[-1]) < CHUNK else []
        tail += added
        for at in range(0, len(tail), CHUNK):
            chunks.append(tuple(tail[at:at + CHUNK]))
        return Line(tuple(chunks), digest)

    def prefix(self, length: int) -> Line:
        """The first ``length`` moves of this line."""
        if length >= self._length:
            return self
        length = max(length, 0)
        value, size = _moves_value(self.to_list(length))
        digest = (self._digest - value) * pow(_INVERSE, size, MODULUS) % MODULUS
        whole, rest = divmod(length, CHUNK)
        chunks = self._chunks[:whole] + ((self._chunks[whole][:rest],) if rest else ())
        return Line(chunks, digest)

    def common_prefix(self, other: Sequence[str]) -> int:
        """How many moves this line and ``other`` share from the start: the
        chunks two versions of a line share are passed over unread."""
        if isinstance(other, Line):
            same = 0
            for mine, theirs in zip(self._chunks, other._chunks, strict=False):
                if mine is not theirs and mine != theirs:
                    break
                same += 1
            else:
                return min(self._length, other._length)
            done = same * CHUNK
            mine_chunk, theirs_chunk = self._chunks[same], other._chunks[same]
            return done + next((i for i, (a, b) in enumerate(zip(mine_chunk, theirs_chunk, strict=False))
                                if a != b), min(len(mine_chunk), len(theirs_chunk)))
        limit = min(self._length, len(other))
        for index in range(limit):
            if self[index] != other[index]:
                return index
        return limit
