"""Lookup tables of the search, built once per rule shape and base rank.

A card's *slot key* says what it is to a foundation: its rank and colour
(``rank * 2 + red``, 26 keys) when foundations build in alternate colours,
the card itself (52 keys) when they build in suit. A foundation *class* is
what a foundation keeps for life: its suit, or the colour of its base card.
Within a class the foundation heights ``0..12`` each want one slot key.

>>> t = tables(False, 0, True)
>>> t.nslot, t.classes, t.height[t.chain[1][3]], t.class_of[t.chain[1][3]]
(26, 2, 3, 1)
>>> [t.is_base[k] for k in t.base_keys] == [True, True]
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from terrace.cards import RANK, RED

ZOBRIST_BITS = 100


@dataclass(frozen=True, slots=True)
class Tables:
    """Everything the search looks up about cards and foundations."""

    in_suit: bool
    base: int
    nslot: int
    """Number of slot keys: 52 in suit, 26 in alternate colours."""
    classes: int
    """Foundation classes: 4 suits, or 2 base colours."""
    sk: tuple[int, ...]
    """Slot key of each card."""
    hk: tuple[int, ...]
    """Hash key of each card: the slot key, or the card itself when not canonical."""
    rc: tuple[int, ...]
    """Rank and colour of each card (``rank * 2 + red``)."""
    downrc: tuple[int, ...]
    """Rank and colour of the cards that may lie on each card in a pile."""
    chain: tuple[tuple[int, ...], ...]
    """``chain[class][height]``: the slot key a foundation of the class wants there."""
    height: tuple[int, ...]
    class_of: tuple[int, ...]
    next: tuple[int, ...]
    """Slot key wanted after this one (-1 after the top card)."""
    prev: tuple[int, ...]
    """Slot key below this one (-1 for the base card)."""
    is_base: tuple[bool, ...]
    base_keys: tuple[int, ...]
    holds: tuple[tuple[int, ...], ...]
    """Slot keys of the cards that may lie on a card of this slot key in a pile."""
    rep: tuple[int, ...]
    """The lowest card code of each slot key."""


@lru_cache(maxsize=128)
def tables(in_suit: bool, base: int, canonical: bool) -> Tables:
    """The tables for foundations in suit or alternate colours with base rank ``base``."""
    nslot = 52 if in_suit else 26
    classes = 4 if in_suit else 2
    sk = tuple(range(52)) if in_suit else tuple(RANK[c] * 2 + RED[c] for c in range(52))
    rc = tuple(RANK[c] * 2 + RED[c] for c in range(52))
    downrc = tuple(((RANK[c] + 12) % 13) * 2 + (1 - RED[c]) for c in range(52))

    def slot(rank: int, colour_or_suit: int) -> int:
        return rank * 4 + colour_or_suit if in_suit else rank * 2 + colour_or_suit

    chain = tuple(
        tuple(
            slot((base + j) % 13, cls if in_suit else cls ^ (j & 1))
            for j in range(13)
        )
        for cls in range(classes)
    )
    height = [0] * nslot
    class_of = [0] * nslot
    nxt = [-1] * nslot
    prv = [-1] * nslot
    for cls in range(classes):
        for j in range(13):
            k = chain[cls][j]
            height[k] = j
            class_of[k] = cls
            nxt[k] = chain[cls][j + 1] if j < 12 else -1
            prv[k] = chain[cls][j - 1] if j > 0 else -1
    is_base = tuple(height[k] == 0 for k in range(nslot))
    holds: list[tuple[int, ...]] = [()] * nslot
    for c in range(52):
        below = (RANK[c] + 12) % 13
        holds[sk[c]] = tuple(sorted({sk[d] for d in range(52) if RANK[d] == below and RED[d] != RED[c]}))
    rep = [0] * nslot
    for c in range(51, -1, -1):
        rep[sk[c]] = c
    return Tables(
        in_suit=in_suit,
        base=base,
        nslot=nslot,
        classes=classes,
        sk=sk,
        hk=sk if canonical else tuple(range(52)),
        rc=rc,
        downrc=downrc,
        chain=chain,
        height=tuple(height),
        class_of=tuple(class_of),
        next=tuple(nxt),
        prev=tuple(prv),
        is_base=is_base,
        base_keys=tuple(k for k in range(nslot) if is_base[k]),
        holds=tuple(holds),
        rep=tuple(rep),
    )


def slot_keys(in_suit: bool) -> tuple[int, ...]:
    """The foundation slot key of every card: rank and colour in
    alternate-colour games, the card itself in suit games.

    >>> slot_keys(False)[:4], slot_keys(True)[:4]
    ((0, 1, 1, 0), (0, 1, 2, 3))
    """
    return tables(in_suit, 0, True).sk


Zobrist = tuple[list[int], list[list[int]], list[list[int]], list[int], list[list[list[int]]]]


@lru_cache(maxsize=32)
def zobrist(seed: int, size: int, redeals: int, piles: int, canonical: bool) -> Zobrist:
    """Random 100-bit keys: reserve length, stock and waste (position, card
    key), redeals used, and piles (depth, card key); one table for every pile
    when piles are keyed as a multiset."""
    rng = random.Random(seed)

    def table(rows: int) -> list[list[int]]:
        return [[rng.getrandbits(ZOBRIST_BITS) for _ in range(52)] for _ in range(rows)]

    zr = [rng.getrandbits(ZOBRIST_BITS) for _ in range(size)]
    zs = table(size)
    zw = table(size)
    zd = [rng.getrandbits(ZOBRIST_BITS) for _ in range(redeals + 2)]
    if canonical:
        shared = table(size)
        zpp = [shared] * piles
    else:
        zpp = [table(size) for _ in range(piles)]
    return zr, zs, zw, zd, zpp
