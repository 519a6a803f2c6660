"""How cards build on each other: the three rules every check derives from.

* A foundation **starts** with any card of the base rank.
* A foundation **builds up** one rank at a time, turning the corner from
  king to ace, in alternating colours or (with ``foundations: suit``) in suit.
* A tableau pile **builds down** one rank at a time, turning the corner
  from ace to king, in alternating colours.

Move generation, the legality checks, the explanations of refused moves and
the position checks all use these rules or the lookup tables below, which
are computed from them (so none can state a rule differently).

A card's *key* says what it is to a foundation or a pile: its rank and
colour (alternate building) or the card itself (building in suit).

>>> from terrace.cards import parse_card
>>> builds_down(parse_card("9S"), parse_card("8H")), builds_down(parse_card("9S"), parse_card("8C"))
(True, False)
>>> builds_up(parse_card("KS"), parse_card("AD"), in_suit=False)
True
>>> key_words(BELOW_KEY[parse_card("9S")], in_suit=False)
('red', '8')
"""

from __future__ import annotations

from collections.abc import Callable

from terrace.cards import CARDS_PER_DECK, RANK, RANKS, RED, SUIT, Card

FOUNDATION_SIZE = 13
"""Cards in a complete foundation."""

_CARDS = range(CARDS_PER_DECK)


def starts(card: Card, base_rank: int) -> bool:
    """True when ``card`` may start a foundation of ``base_rank``."""
    return RANK[card] == base_rank


def builds_up(below: Card, above: Card, *, in_suit: bool) -> bool:
    """True when ``above`` may follow ``below`` on a foundation."""
    if RANK[above] != (RANK[below] + 1) % 13:
        return False
    return SUIT[above] == SUIT[below] if in_suit else RED[above] != RED[below]


def builds_down(below: Card, above: Card) -> bool:
    """True when ``above`` may go on ``below`` in a tableau pile."""
    return RANK[above] == (RANK[below] + 12) % 13 and RED[above] != RED[below]


COLOUR_KEY: tuple[int, ...] = tuple(RANK[c] * 2 + RED[c] for c in _CARDS)
"""The key of a card when colour matters, not suit: ``rank * 2 + red``."""
SUIT_KEY: tuple[int, ...] = tuple(_CARDS)
"""The key of a card when its suit matters: the card itself."""


def _only_key(top: Card, fits: Callable[[Card, Card], bool], key: tuple[int, ...]) -> int:
    """The one key of the cards that fit on ``top``; every card of that key
    fits and no other does."""
    keys = {key[c] for c in _CARDS if fits(top, c)}
    assert len(keys) == 1 and all(fits(top, c) == (key[c] in keys) for c in _CARDS)
    return keys.pop()


COLOUR_AFTER: tuple[int, ...] = tuple(
    _only_key(top, lambda b, a: builds_up(b, a, in_suit=False), COLOUR_KEY) for top in _CARDS
)
"""The key of the card a foundation with this top card takes (alternate)."""
SUIT_AFTER: tuple[int, ...] = tuple(
    _only_key(top, lambda b, a: builds_up(b, a, in_suit=True), SUIT_KEY) for top in _CARDS
)
"""The key of the card a foundation with this top card takes (in suit)."""
BELOW_KEY: tuple[int, ...] = tuple(_only_key(top, builds_down, COLOUR_KEY) for top in _CARDS)
"""The colour key of the card a pile with this top card takes."""
COLOUR_STARTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({COLOUR_KEY[c] for c in _CARDS if starts(c, base)})) for base in range(13)
)
"""For each base rank, the colour keys of the cards that start a foundation."""
SUIT_STARTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({SUIT_KEY[c] for c in _CARDS if starts(c, base)})) for base in range(13)
)
"""For each base rank, the suit keys of the cards that start a foundation."""


def key_words(key: int, *, in_suit: bool) -> tuple[str, str]:
    """The colour (``red``/``black``; ``""`` in suit) and rank code of the
    cards of a key, as refusals name a wanted card."""
    if in_suit:
        return "", RANKS[RANK[key]]
    return ("red" if key & 1 else "black"), RANKS[key >> 1]
