"""Deals: the order in which the cards leave the shuffled pack.

A deal is written as every card code, separated by white space (ASCII, or a
no-break space: :data:`~terrace.symbols.DEAL_SPACES`), in the order
the cards leave the pack: the reserve (deepest card first, exposed card
last), the candidates into piles 1..k, one card for each still-empty pile in
pile order, then (turned-base rules only) the base card, then the stock with
the next card to be drawn first.

Deals by number use our own shuffle (see ``docs/notation.md``), so deal N is the
same everywhere, whatever the Python version or platform:

>>> from terrace.rules import Rules
>>> d = Deal.from_number(1, Rules())
>>> len(d.cards), d.number
(104, 1)
>>> Deal.from_number(1, Rules()) == d
True
>>> Deal.parse(d.text(), Rules()).cards == d.cards
True
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass, field

from terrace.cards import (
    CARDS_PER_DECK,
    Card,
    card_code,
    exact_cards,
    format_cards,
    full_pack,
    given_card,
    parse_card,
    wrong_copies,
)
from terrace.errors import InvalidCardError, InvalidDealError
from terrace.refusals import Reason, Refusal, quote
from terrace.rules import Rules, given_rules
from terrace.symbols import DEAL_SPACES
from terrace.whole import as_whole

DEAL_VERSION = 1
"""Version of the numbered-deal shuffle. Saved games record it."""

MAX_DEAL_NUMBER = 2**63 - 1

_MASK64 = (1 << 64) - 1
_BOUND_MAX = 1 << 64
"""The largest bound :meth:`SplitMix64.below` takes (beyond it no output
is below the rejection limit, and it drew for ever)."""


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea and Flood 2014), 64-bit state.

    >>> SplitMix64(0).next()
    16294208416658607535
    """

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        whole = as_whole(seed)
        if whole is None:
            raise InvalidDealError(Reason(Refusal.DEAL_NUMBER_NOT_WHOLE, value=quote(seed)))
        self.state = whole & _MASK64

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """A uniform integer in ``range(bound)`` (rejection sampling, no bias).

        >>> rng = SplitMix64(7)
        >>> all(0 <= rng.below(10) < 10 for _ in range(100))
        True
        >>> rng.below(0)
        Traceback (most recent call last):
        ...
        terrace.errors.InvalidDealError: a random number's bound must be a whole number from 1 to 2**64, not 0
        """
        if type(bound) is not int or not 1 <= bound <= _BOUND_MAX:
            whole = as_whole(bound)
            if whole is None or not 1 <= whole <= _BOUND_MAX:
                raise InvalidDealError(Reason(Refusal.RANDOM_BOUND, value=quote(bound)))
            bound = whole
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = self.next()
            if value < limit:
                return value % bound


_WORD = re.compile(f"[^{re.escape(DEAL_SPACES)}]+")


def deal_words(text: str, most: int) -> list[str]:
    """The words of a deal string, separated by :data:`~terrace.symbols.DEAL_SPACES`
    alone (not by U+2028 or U+3000, which stay in their word: no card);
    never more than ``most + 1`` of them (a huge text is not split whole:
    more than ``most`` words is too many, whatever their number).

    >>> deal_words(" AS\\u00a0 2S\\t3S\\n", 104), deal_words("AS\\u20282S", 104), deal_words("AS 2S 3S", 1)
    (['AS', '2S', '3S'], ['AS\\u20282S'], ['AS', '2S'])
    """
    return [word.group() for word in itertools.islice(_WORD.finditer(text), most + 1)]


COUNTED_WORDS = 10_000
"""A deal string of more words than this is refused as having more than
this many cards, and a position of more fields as having more than this
many, not counted to the end (a text of 100 MB took 5 s to count, a
position 6.6 s)."""


def _too_many_cards(text: str, rules: Rules) -> Reason:
    """Why a deal string of more words than ``rules`` has cards is refused:
    its count, up to :data:`COUNTED_WORDS`.

    >>> from terrace.variants import get_rules
    >>> _too_many_cards("AS " * 105, get_rules("terrace")).text()
    'a deal for 2 decks has 104 cards, this one has 105'
    >>> _too_many_cards("AS " * 20_000, get_rules("terrace")).text()
    'a deal for 2 decks has 104 cards, this one has more than 10000'
    """
    count = sum(1 for _ in itertools.islice(_WORD.finditer(text), COUNTED_WORDS + 1))
    if count > COUNTED_WORDS:
        return Reason(Refusal.DEAL_CARDS_MANY, decks=rules.decks, cards=rules.card_count, most=COUNTED_WORDS)
    return Reason(Refusal.DEAL_CARD_COUNT, decks=rules.decks, cards=rules.card_count, count=count)


def _cards_of_words(words: list[str]) -> tuple[Card, ...]:
    """The cards of a deal string's words; raises :class:`InvalidDealError`
    naming the first word that is no card."""
    cards = exact_cards(words)  # (a stored deal string: each code as written)
    if cards is not None:
        return tuple(cards)
    read: list[Card] = []
    for index, word in enumerate(words):
        try:
            read.append(parse_card(word))
        except InvalidCardError as error:
            reason = Reason(Refusal.DEAL_BAD_CARD, index=index + 1, problem=error.why)
            raise InvalidDealError(reason) from None
    return tuple(read)


def shuffled_pack(number: int, decks: int, version: int = DEAL_VERSION) -> list[Card]:
    """The pack of deal ``number``: ``full_pack(decks)`` shuffled by
    Fisher-Yates, swapping position i (from the last down to 1) with a
    position ``below(i + 1)`` drawn from ``SplitMix64(number)``.

    >>> [card_code(c) for c in shuffled_pack(1, 2)[:5]]
    ['6D', '7D', 'JS', '8S', 'KC']
    """
    if version != DEAL_VERSION:
        raise InvalidDealError(
            Reason(Refusal.DEAL_VERSION_UNKNOWN, version=quote(version), known=DEAL_VERSION)
        )
    pack = full_pack(decks)
    rng = SplitMix64(check_number(number))
    for i in range(len(pack) - 1, 0, -1):
        j = rng.below(i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def check_number(number: object) -> int:
    """``number`` as an ``int`` when it is a deal number (of any whole
    number type); else :class:`InvalidDealError`.

    >>> check_number(-1)
    Traceback (most recent call last):
    ...
    terrace.errors.InvalidDealError: deal numbers run from 0 to 9223372036854775807, not -1
    """
    whole = as_whole(number)
    if whole is None:
        raise InvalidDealError(Reason(Refusal.DEAL_NUMBER_NOT_WHOLE, value=quote(number)))
    if not 0 <= whole <= MAX_DEAL_NUMBER:
        raise InvalidDealError(Reason(Refusal.DEAL_NUMBER_RANGE, low=0, high=MAX_DEAL_NUMBER, value=whole))
    return whole


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one game in the order they leave the pack, and the deal
    number they came from, if any."""

    cards: tuple[Card, ...]
    number: int | None = None
    _fits: tuple[int, int] | None = field(default=None, init=False, repr=False, compare=False)
    """The decks and cards of the rules :meth:`check` last found this deal
    to fit (a deal never changes, so it need not be checked again)."""

    def __post_init__(self) -> None:
        # (cards given as a list are kept as a tuple: a deal never changes, and hashes)
        if not isinstance(self.cards, tuple):
            with suppress(TypeError):  # (not even a sequence: check() says so)
                object.__setattr__(self, "cards", tuple(self.cards))
        # (whole numbers of other types, numpy's int64 say, kept as plain ints; check() refuses the rest)
        if isinstance(self.cards, tuple) and not all(type(card) is int for card in self.cards):
            plain = tuple(card if (whole := as_whole(card)) is None else whole for card in self.cards)
            object.__setattr__(self, "cards", plain)
        number = as_whole(self.number) if type(self.number) is not int else None
        if number is not None:
            object.__setattr__(self, "number", number)

    @classmethod
    def from_number(cls, number: int, rules: Rules) -> Deal:
        """Deal ``number`` for the decks of ``rules``."""
        rules, number = given_rules(rules), check_number(number)
        return cls(tuple(shuffled_pack(number, rules.decks)), number)

    @classmethod
    def parse(cls, text: str, rules: Rules, number: int | None = None) -> Deal:
        """Read a deal string and check it holds exactly the cards of the
        decks of ``rules`` (and, with ``number``, that it is that deal),
        in one check."""
        rules = given_rules(rules)
        if not isinstance(text, str):
            raise InvalidDealError(Reason(Refusal.DEAL_NOT_TEXT))
        # never more words than the deal may hold (a huge text is counted, not split)
        words = deal_words(text, rules.card_count)
        if len(words) > rules.card_count:
            del words
            raise InvalidDealError(_too_many_cards(text, rules))
        deal = cls(_cards_of_words(words), number)
        deal.check(rules)
        return deal

    @staticmethod
    def cards_of(text: str, most: int) -> tuple[Card, ...] | None:
        """The cards a deal string names, read as :meth:`parse` reads them
        (any spacing, any case, any card spelling), without checking them
        against rules: what decides whether two deal strings are the same
        deal. None when the text names more than ``most`` cards or a word
        is no card.

        >>> Deal.cards_of(" th  ad\\n", 104) == Deal.cards_of("TH AD", 104)
        True
        >>> Deal.cards_of("TH XX", 104), Deal.cards_of("TH AD", 1)
        (None, None)
        """
        if not isinstance(text, str):
            return None
        words = deal_words(text, most)
        if len(words) > most:
            return None
        try:
            return _cards_of_words(words)
        except InvalidDealError:
            return None

    def check(self, rules: Rules) -> None:
        """Raise :class:`InvalidDealError` unless this deal fits ``rules``
        (also for a deal made directly, with anything as its cards).

        >>> Deal((0, -1, 2.0)).check(Rules())
        Traceback (most recent call last):
        ...
        terrace.errors.InvalidDealError: card 2 of the deal: -1 is not a card: a card is a whole ...

        A deal found to fit is not checked again for rules of the same
        decks: a record read, then replayed on a board, checked its deal
        once for each.
        """
        fits = (rules.decks, rules.card_count)
        if self._fits == fits:
            return
        if not isinstance(self.cards, tuple):  # (__post_init__ could not make it one)
            raise InvalidDealError(Reason(Refusal.DEAL_NOT_CARDS, value=quote(self.cards)))
        for index, card in enumerate(self.cards):
            if type(card) is not int or not 0 <= card < CARDS_PER_DECK:
                try:
                    given_card(card)
                except InvalidCardError as error:
                    reason = Reason(Refusal.DEAL_BAD_CARD, index=index + 1, problem=error.why)
                    raise InvalidDealError(reason) from None
        if len(self.cards) != rules.card_count:
            raise InvalidDealError(Reason(
                Refusal.DEAL_CARD_COUNT, decks=rules.decks, cards=rules.card_count, count=len(self.cards)
            ))
        counts = Counter(self.cards)
        wrong = wrong_copies(counts, rules.decks)
        if wrong is not None:
            code = Refusal.DEAL_COPIES if rules.decks > 1 else Refusal.DEAL_COPIES_ONE_DECK
            raise InvalidDealError(Reason(code, have=counts[wrong], card=card_code(wrong), decks=rules.decks))
        if self.number is not None and tuple(self.cards) != tuple(
            shuffled_pack(self.number, rules.decks)
        ):
            raise InvalidDealError(Reason(Refusal.DEAL_NOT_THAT_NUMBER, number=self.number))
        object.__setattr__(self, "_fits", fits)

    def text(self) -> str:
        """The deal string."""
        return format_cards(self.cards)


def given_deal(deal: object, maker: str = "Deal.parse(text, rules)") -> Deal:
    """``deal`` when it is a :class:`Deal`; anything else is a
    :class:`TypeError` that names ``maker``, what makes one of a deal string.

    >>> given_deal("AS 2S")
    Traceback (most recent call last):
    ...
    TypeError: deal must be a Deal (for a deal string: Deal.parse(text, rules)), not str
    """
    if not isinstance(deal, Deal):
        raise TypeError(f"deal must be a Deal (for a deal string: {maker}), not {type(deal).__name__}")
    return deal
