"""Cards as small integers.

A card is ``rank * 4 + suit`` with ranks ``A23456789TJQK`` (0..12) and suits
``SHDC`` (0..3). Copies of the same card in several decks share a code, since
nothing in the game tells them apart.

>>> c = parse_card("10D")
>>> card_code(c), rank_of(c), is_red(c)
('TD', 9, True)
>>> card_symbol(parse_card("qs"))
'Q♠'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from terrace.errors import InvalidCardError
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.rules import RULE_OPTIONS

# the rank and suit letters live in terrace.symbols (the refusals need them too); cards re-exports them
from terrace.symbols import CARDS_PER_DECK as CARDS_PER_DECK
from terrace.symbols import RANKS as RANKS
from terrace.symbols import SPACES
from terrace.symbols import SUIT_SYMBOLS as SUIT_SYMBOLS
from terrace.symbols import SUITS as SUITS
from terrace.whole import as_whole

Card = int

RANK_NAMES = (
    "ace", "two", "three", "four", "five", "six", "seven",
    "eight", "nine", "ten", "jack", "queen", "king",
)
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")

RANK: tuple[int, ...] = tuple(c >> 2 for c in range(CARDS_PER_DECK))
SUIT: tuple[int, ...] = tuple(c & 3 for c in range(CARDS_PER_DECK))
RED: tuple[bool, ...] = tuple((c & 3) in (1, 2) for c in range(CARDS_PER_DECK))
CODE: tuple[str, ...] = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in range(CARDS_PER_DECK))
_BY_CODE = {code: card for card, code in enumerate(CODE)}


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = ace) and ``suit`` (0..3 for S, H, D, C).

    >>> card_code(make_card(12, 3))
    'KC'
    """
    whole_rank, whole_suit = as_whole(rank), as_whole(suit)
    if whole_rank is None or whole_suit is None or not (0 <= whole_rank < 13 and 0 <= whole_suit < 4):
        raise InvalidCardError(Reason(Refusal.CARD_NO_SUCH, rank=quote(rank), suit=quote(suit)))
    return whole_rank * 4 + whole_suit


def given_card(card: object) -> Card:
    """``card`` as a plain ``int`` when it is a card (a whole number of any
    integer type from 0 to 51), else :class:`InvalidCardError`: the tables
    below would read -1 as the king of clubs.

    >>> given_card(38)
    38
    >>> given_card(-1)
    Traceback (most recent call last):
    ...
    terrace.errors.InvalidCardError: -1 is not a card: a card is a whole number from 0 to 51
    """
    whole = card if type(card) is int else as_whole(card)
    if whole is None or not 0 <= whole < CARDS_PER_DECK:
        raise InvalidCardError(Reason(Refusal.CARD_NOT_A_CARD, value=quote(card), last=CARDS_PER_DECK - 1))
    return whole


def parse_card(text: str) -> Card:
    """Read a card code such as ``TD``, ``10d`` or ``AS``.

    >>> card_code(parse_card(" 7h "))
    '7H'
    """
    if not isinstance(text, str):
        raise InvalidCardError(Reason(Refusal.CARD_NOT_TEXT, value=quote(text)))
    # ASCII only ('ſ'.upper() is 'S'), and only ASCII spaces around it, as
    # around a move: a U+00A0 stays in the text the refusal quotes
    shown = text.strip(SPACES)
    code = shown.upper() if shown.isascii() else ""
    if code.startswith("10"):
        code = "T" + code[2:]
    card = _BY_CODE.get(code)
    if card is None:
        reason = Reason(Refusal.CARD_UNREADABLE, text=clip(shown), ranks=RANKS, suits=SUITS)
        raise InvalidCardError(reason)
    return card


def exact_cards(codes: list[str]) -> list[Card] | None:
    """The cards of ``codes`` when each is written exactly as
    :func:`card_code` writes it (as deal strings are stored), else None
    (:func:`parse_card` then reads them one by one, and says what is wrong).

    >>> exact_cards(["TD", "AS"]) == [parse_card("TD"), parse_card("AS")], exact_cards(["td"])
    (True, None)
    """
    cards = [_BY_CODE.get(code) for code in codes]
    return None if None in cards else cards  # type: ignore[return-value]


def card_code(card: Card) -> str:
    """The two-character code of ``card``, e.g. ``'TD'``."""
    return CODE[given_card(card)]


def card_symbol(card: Card) -> str:
    """A short label with the suit symbol, e.g. ``'10♦'``."""
    card = given_card(card)
    rank = RANKS[RANK[card]]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[SUIT[card]]


def card_name(card: Card) -> str:
    """The card in words.

    >>> card_name(parse_card("QS"))
    'queen of spades'
    """
    card = given_card(card)
    return f"{RANK_NAMES[RANK[card]]} of {SUIT_NAMES[SUIT[card]]}"


def rank_of(card: Card) -> int:
    """The rank of ``card``: 0 for an ace up to 12 for a king."""
    return RANK[given_card(card)]


def suit_of(card: Card) -> int:
    """The suit of ``card``: 0..3 for spades, hearts, diamonds, clubs."""
    return SUIT[given_card(card)]


def is_red(card: Card) -> bool:
    """True for hearts and diamonds."""
    return RED[given_card(card)]


def parse_rank(text: str) -> int:
    """Read a rank such as ``7``, ``T``, ``10`` or ``K``.

    >>> parse_rank("10"), parse_rank("a")
    (9, 0)
    """
    if not isinstance(text, str):
        raise InvalidCardError(Reason(Refusal.RANK_NOT_TEXT, value=quote(text)))
    shown = text.strip(SPACES)  # (as a card's: ASCII spaces around it, ASCII letters)
    code = shown.upper() if shown.isascii() else ""
    if code == "10":
        code = "T"
    if len(code) != 1 or code not in RANKS:
        raise InvalidCardError(Reason(Refusal.RANK_UNREADABLE, text=clip(text), ranks=RANKS))
    return RANKS.index(code)


def rank_code(rank: int) -> str:
    """The one-character code of a rank (0 -> ``'A'``)."""
    whole = as_whole(rank)
    if whole is None or not 0 <= whole < len(RANKS):
        raise InvalidCardError(Reason(Refusal.RANK_NOT_A_RANK, value=quote(rank), last=len(RANKS) - 1))
    return RANKS[whole]


def full_pack(decks: int) -> list[Card]:
    """Every card of ``decks`` decks in the fixed order used before shuffling:
    deck by deck, suits S, H, D, C, ranks ace to king.

    >>> [card_code(c) for c in full_pack(1)[:3]]
    ['AS', '2S', '3S']
    >>> len(full_pack(2))
    104

    ``decks`` is checked as the rules check it (a whole number from 1 to
    8, else :class:`~terrace.errors.InvalidRulesError`).
    """
    option = RULE_OPTIONS["decks"]
    whole: int = option.read(decks)
    option.check_range({option.name: whole})
    one = [rank * 4 + suit for suit in range(4) for rank in range(13)]
    return one * whole


def wrong_copies(counts: Mapping[Card, int], decks: int) -> Card | None:
    """The card to name when ``counts`` (how often each card is there) are
    not ``decks`` of each card, else None: a card given too often before a
    card that is missing (the one it most likely stands in for), each
    kind in card order. Deal strings and positions both name it.

    >>> from collections import Counter
    >>> card_code(wrong_copies(Counter([0, 5, 5]), 1) or 0), wrong_copies(Counter(range(52)), 1)
    ('2H', None)
    """
    cards = sorted(set(range(CARDS_PER_DECK)) | set(counts))
    wrong = [card for card in cards if counts.get(card, 0) != decks]
    if not wrong:
        return None
    return max(wrong, key=lambda card: counts.get(card, 0) > decks)


WORD_CHUNK = 1 << 16
"""Characters :func:`word_count` splits at a time."""


def word_count(text: str, spaces: str | None = None, most: int | None = None) -> int:
    """How many words ``text`` holds, separated by any white space (as
    ``len(text.split())``) or, with ``spaces``, by those characters alone
    (as a position's fields: :data:`SPACES`), counted a slice at a time so
    that a huge text needs no list of all its words; with ``most``, no
    further than the slice where the count passes it (then more than
    ``most`` is returned, not the whole count: 100 MB of words took 6.6 s
    to count to the end).

    >>> word_count(" AS  2S\t3S "), word_count("AS " * 100_000), word_count("AS\xa02S 3S", SPACES)
    (3, 100000, 2)
    >>> 10 < word_count("AS " * 100_000, most=10) < 100_000
    True
    """
    gaps = None if spaces is None else re.compile(f"[{re.escape(spaces)}]+")

    def split(part: str) -> list[str]:
        return part.split() if gaps is None else [word for word in gaps.split(part) if word]

    def is_space(char: str) -> bool:
        return char.isspace() if spaces is None else char in spaces

    count = 0
    after_space = True
    for start in range(0, len(text), WORD_CHUNK):
        part = text[start:start + WORD_CHUNK]
        words = len(split(part))
        if words and not after_space and not is_space(part[0]):
            words -= 1  # a word that runs on from the slice before
        count += words
        if most is not None and count > most:
            break
        after_space = is_space(part[-1])
    return count


def format_cards(cards: list[Card] | tuple[Card, ...]) -> str:
    """Card codes separated by spaces (anything else is refused, as
    :func:`card_code` refuses it).

    >>> format_cards(full_pack(1)[:2])
    'AS 2S'
    """
    return " ".join([CODE[given_card(c)] for c in cards])
