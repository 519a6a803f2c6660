"""The rules of a game in the Terrace family, as one frozen value.

Every variant differs from the others only in these fields; see
``docs/rules.md`` for what each one means at the table.

>>> rules = Rules()
>>> rules.foundation_count, rules.card_count, rules.picks_base
(8, 104, True)
>>> rules.replace(candidates=4).candidates
4
>>> Rules(reserve=200)
Traceback (most recent call last):
...
terrace.errors.InvalidRulesError: the reserve must hold between 0 and 94 cards, not 200
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from terrace.errors import InvalidRulesError
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.symbols import CARDS_PER_DECK
from terrace.whole import as_truth, as_whole


class FoundationBuild(StrEnum):
    """How a foundation is built up from its base card."""

    ALTERNATE = "alternate"
    """Each card is the other colour of the one below it."""
    SUIT = "suit"
    """Each card has the suit of the one below it."""


class SpaceRule(StrEnum):
    """What happens to an empty tableau pile."""

    AUTO = "auto"
    """Refilled at once from the waste, else the stock; nothing else may enter."""
    FREE = "free"
    """Stays empty until the player moves any waste or tableau card there."""
    WASTE = "waste"
    """Stays empty until the player moves the waste card there."""


class OptionKind(StrEnum):
    """The kind of value a rule option takes."""

    INT = "int"
    CHOICE = "choice"
    BOOL = "bool"


@dataclass(frozen=True, slots=True)
class Bound:
    """A limit of a whole-number option: ``constant`` plus, for each term
    ``(option, factor)``, that option's value times the factor.

    >>> reserve_most = Bound(-1, (("decks", 52), ("piles", -1)))
    >>> reserve_most.value({"decks": 2, "piles": 9})
    94
    >>> str(reserve_most)
    '52 × decks − piles − 1'
    """

    constant: int
    terms: tuple[tuple[str, int], ...] = ()

    def value(self, options: Mapping[str, object]) -> int:
        """The limit for these option values."""
        total = self.constant
        for name, factor in self.terms:
            value = options[name]
            assert isinstance(value, int)
            total += factor * value
        return total

    def to_json(self) -> dict[str, Any]:
        """``{"constant": c, "terms": {"option": factor, ...}}``."""
        return {"constant": self.constant, "terms": dict(self.terms)}

    def __str__(self) -> str:
        text = ""
        for name, factor in self.terms:
            word = name if abs(factor) == 1 else f"{abs(factor)} × {name}"
            text = _signed(text, word, factor < 0)
        if self.constant or not text:
            text = _signed(text, str(abs(self.constant)), self.constant < 0)
        return text


def _signed(text: str, word: str, negative: bool) -> str:
    """``text`` followed by ``+ word`` or ``− word`` (``word`` alone first)."""
    if not text:
        return f"−{word}" if negative else word
    return f"{text} {'−' if negative else '+'} {word}"


@dataclass(frozen=True, slots=True)
class _Spec:
    """What a ``Rules`` field's metadata says about its option."""

    help: str
    low: Bound | None = None
    high: Bound | None = None
    refusal: Refusal = Refusal.OPTION_RANGE


def _option(help: str, low: int | Bound | None = None, high: int | Bound | None = None,
            refusal: Refusal = Refusal.OPTION_RANGE) -> dict[str, _Spec]:
    """The metadata of a ``Rules`` field: its option's help text and limits."""
    return {"option": _Spec(help, _bound(low), _bound(high), refusal)}


def _bound(limit: int | Bound | None) -> Bound | None:
    return Bound(limit) if isinstance(limit, int) else limit


MAX_DECKS = 8
MAX_PILES = 20
MAX_REDEALS = 9


@dataclass(frozen=True, slots=True)
class Rules:
    """All rule options of one game.

    Each field carries its option's help text and limits (see
    :data:`RULE_OPTIONS`); a limit may depend on other options.
    ``candidates == 0`` means the base card is turned from the pack instead
    of being chosen from candidate cards.
    """

    decks: int = field(default=2, metadata=_option(
        "Number of decks (four foundations each)", low=1, high=MAX_DECKS))
    reserve: int = field(default=11, metadata=_option(
        "Cards in the reserve (the terrace)", low=0,
        high=Bound(-1, (("decks", CARDS_PER_DECK), ("piles", -1))), refusal=Refusal.RESERVE_RANGE))
    piles: int = field(default=9, metadata=_option("Tableau piles", low=1, high=MAX_PILES))
    candidates: int = field(default=3, metadata=_option(
        "Base-card candidates, 0 for a base card turned from the pack", low=0,
        high=Bound(0, (("piles", 1),)), refusal=Refusal.CANDIDATES_RANGE))
    foundations: FoundationBuild = field(default=FoundationBuild.ALTERNATE, metadata=_option(
        "Build foundations in alternate colours or in suit"))
    spaces: SpaceRule = field(default=SpaceRule.AUTO, metadata=_option(
        "auto = refilled from waste/stock; free = any card but the terrace card; waste = waste card only"))
    redeals: int = field(default=0, metadata=_option(
        "Extra passes through the stock", low=0, high=MAX_REDEALS))
    foundation_return: bool = field(default=False, metadata=_option(
        "May the top card of a foundation return to the tableau?"))
    promote_candidates: bool = field(default=True, metadata=_option(
        "Do other candidates of the chosen rank start foundations at once (else they stay in the tableau)?"))

    def __post_init__(self) -> None:
        for option in RULE_OPTIONS.values():
            value = getattr(self, option.name)
            read = option.read(value)
            if read is not value:
                object.__setattr__(self, option.name, read)
        values = {name: getattr(self, name) for name in RULE_OPTIONS}
        for option in _RANGE_ORDER:
            option.check_range(values)

    @property
    def foundation_count(self) -> int:
        """Four foundations per deck."""
        return 4 * self.decks

    @property
    def card_count(self) -> int:
        """Cards in play: 52 per deck."""
        return CARDS_PER_DECK * self.decks

    @property
    def cards_to_draw(self) -> int:
        """The cards left in the stock once every pile has its card and the
        base card is out (one fewer for each other candidate of the chosen
        rank that goes up, while any are left): what the reserve leaves
        under its largest value, so 0 when it holds that many, and no card
        is ever turned onto the waste.

        >>> Rules().cards_to_draw, Rules(decks=1, reserve=50, piles=1, candidates=0).cards_to_draw
        (83, 0)
        """
        return RULE_OPTIONS["reserve"].limits(self.to_dict())[1] - self.reserve

    @property
    def picks_base(self) -> bool:
        """True when the player chooses the base card among candidates."""
        return self.candidates > 0

    @property
    def in_suit(self) -> bool:
        """True when foundations build in suit rather than alternate colour."""
        return self.foundations is FoundationBuild.SUIT

    def as_played(self) -> Rules:
        """These rules with each option that changes nothing in play under
        the others at its default: ``promote_candidates`` with fewer than
        two candidates (a single candidate has no other of its rank); with
        no card left to draw (:attr:`cards_to_draw`), ``redeals`` (the
        waste stays empty: a redeal never turns anything) and ``spaces``
        ``waste`` (no waste card fills a pile: as ``auto``, whose stock is
        used up). Such rules play the same games, so they have one label
        and one verdict key.

        >>> Rules(candidates=1, promote_candidates=False).as_played().promote_candidates
        True
        >>> Rules(candidates=2, promote_candidates=False).as_played().promote_candidates
        False
        >>> drawless = Rules(decks=1, reserve=50, piles=1, candidates=0, spaces="waste", redeals=9)
        >>> drawless.as_played() == Rules(decks=1, reserve=50, piles=1, candidates=0)
        True
        """
        changes: dict[str, Any] = {}
        if self.candidates < 2 and not self.promote_candidates:
            changes["promote_candidates"] = True
        if not self.cards_to_draw:
            changes["redeals"] = 0
            if self.spaces is SpaceRule.WASTE:
                changes["spaces"] = SpaceRule.AUTO
        played = dataclasses.replace(self, **changes) if changes else self
        return self if played == self else played

    def replace(self, /, **changes: Any) -> Rules:
        """A copy with some options changed (validated like the original)."""
        unknown = set(changes) - set(RULE_FIELDS)
        if unknown:
            first = clip(sorted(unknown)[0])
            raise InvalidRulesError(Reason(Refusal.OPTION_UNKNOWN, option=first, known=RULE_FIELDS))
        try:
            return dataclasses.replace(self, **changes)
        except InvalidRulesError as error:
            raise _kept_out_of_range(error, self, changes) from None

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain JSON values.

        >>> Rules().to_dict()["spaces"]
        'auto'
        """
        return {name: _plain(getattr(self, name)) for name in RULE_OPTIONS}

    @classmethod
    def from_dict(cls, data: Any, base: Rules | None = None) -> Rules:
        """Rules from a JSON object; missing keys come from ``base``.

        >>> Rules.from_dict({"candidates": 4}).candidates
        4
        """
        if not isinstance(data, dict):
            raise InvalidRulesError(Reason(Refusal.OPTIONS_NOT_OBJECT))
        for key in data:
            if not isinstance(key, str):  # (JSON keys always are)
                raise InvalidRulesError(Reason(Refusal.OPTION_UNKNOWN, option=quote(key), known=RULE_FIELDS))
        return given_rules(base).replace(**data)

    def describe(self) -> str:
        """A one-line summary for people.

        >>> print(Rules(candidates=0, spaces="free").describe())  # doctest: +NORMALIZE_WHITESPACE
        2 decks, 11 reserve cards, 9 piles, base card turned,
        foundations in alternate colours, spaces filled freely
        >>> one = Rules(decks=1, reserve=1, piles=1, candidates=1)
        >>> print(one.describe())  # doctest: +NORMALIZE_WHITESPACE
        1 deck, 1 reserve card, 1 pile, base chosen from 1 candidate,
        foundations in alternate colours, spaces refilled automatically
        """

        def count(n: int, noun: str) -> str:
            return f"{n} {noun}{'' if n == 1 else 's'}"

        base = (
            f"base chosen from {count(self.candidates, 'candidate')}"
            if self.picks_base
            else "base card turned"
        )
        build = "in suit" if self.in_suit else "in alternate colours"
        spaces = {
            SpaceRule.AUTO: "spaces refilled automatically",
            SpaceRule.FREE: "spaces filled freely",
            SpaceRule.WASTE: "spaces filled from the waste",
        }[self.spaces]
        parts = [
            count(self.decks, "deck"),
            count(self.reserve, "reserve card"),
            count(self.piles, "pile"),
            base,
            f"foundations {build}",
            spaces,
        ]
        if self.redeals:
            parts.append(count(self.redeals, "redeal"))
        if self.foundation_return:
            parts.append("foundation cards may return")
        if not self.as_played().promote_candidates:
            parts.append("other candidates of the base rank stay in the tableau")
        return ", ".join(parts)


def _kept_out_of_range(error: InvalidRulesError, rules: Rules,
                       changes: Mapping[str, Any]) -> InvalidRulesError:
    """``error`` said in terms of the options changed when the option out of
    range is one that was kept from ``rules`` (``--piles 1`` alone leaves
    Terrace's 3 candidates out of range: the player gave no candidates)."""
    reason = error.reason
    name = reason.params.get("option") if reason is not None else None
    option = RULE_OPTIONS.get(name) if isinstance(name, str) else None
    if reason is None or option is None or option.name in changes:
        return error
    changed = tuple(other for other in option.depends_on if other in changes)
    if not changed:
        return error
    given = tuple(f"{other} {RULE_OPTIONS[other].read(changes[other])}" for other in changed)
    return InvalidRulesError(Reason(
        Refusal.OPTION_KEPT_RANGE, option=option.name, value=getattr(rules, option.name),
        low=reason.params["low"], high=reason.params["high"], given=given, changed=changed,
    ))


def _plain(value: object) -> object:
    return value.value if isinstance(value, StrEnum) else value


@dataclass(frozen=True, slots=True)
class RuleOption:
    """One rule option: its kind, default, help text, choices and limits,
    all read from the ``Rules`` field of the same name.

    >>> RULE_OPTIONS["spaces"].choices
    ('auto', 'free', 'waste')
    >>> RULE_OPTIONS["reserve"].largest(), RULE_OPTIONS["candidates"].largest()
    (414, 20)
    """

    name: str
    kind: OptionKind
    default: int | str | bool
    help: str
    choices: tuple[str, ...] = ()
    low: Bound | None = None
    high: Bound | None = None
    refusal: Refusal = Refusal.OPTION_RANGE
    enum: type[StrEnum] | None = field(default=None, repr=False)
    """The enum a choice's values become."""

    @property
    def depends_on(self) -> tuple[str, ...]:
        """The other options its limits depend on."""
        return tuple(name for bound in (self.low, self.high) if bound for name, _ in bound.terms)

    def read(self, value: object) -> Any:
        """``value`` checked for this option's type (a choice becomes its
        enum member); raises :class:`InvalidRulesError`."""
        if self.kind is OptionKind.BOOL:
            truth = as_truth(value)  # (numpy's bool_ kept as a bool)
            if truth is None:
                raise InvalidRulesError(Reason(Refusal.OPTION_NOT_BOOL, option=self.name, value=quote(value)))
            return truth
        if self.kind is OptionKind.INT:
            whole = as_whole(value)  # (numpy's int64 kept as an int)
            if whole is None:
                raise InvalidRulesError(
                    Reason(Refusal.OPTION_NOT_WHOLE, option=self.name, value=quote(value))
                )
            return whole
        choice = choice_key(value)
        if choice in self.choices and self.enum is not None:
            return self.enum(choice)
        raise InvalidRulesError(
            Reason(Refusal.OPTION_NOT_CHOICE, option=self.name, choices=self.choices, value=quote(value))
        )

    def bounds(self) -> tuple[Bound, Bound]:
        """The option's lowest and highest value as formulas; only a number
        option has them (a choice or a yes/no option is a :class:`TypeError`
        that says so, also under ``python -O``).

        >>> RULE_OPTIONS["foundations"].bounds()
        Traceback (most recent call last):
        ...
        TypeError: foundations is a choice of 'alternate' or 'suit', not a number with limits
        """
        if self.low is None or self.high is None:
            kind = "true or false"
            if self.kind is OptionKind.CHOICE:
                *others, last = map(repr, self.choices)
                kind = f"a choice of {', '.join(others)} or {last}"
            raise TypeError(f"{self.name} is {kind}, not a number with limits")
        return self.low, self.high

    def limits(self, values: Mapping[str, object]) -> tuple[int, int]:
        """The lowest and highest value allowed with these other options."""
        low, high = self.bounds()
        return low.value(values), high.value(values)

    def check_range(self, values: Mapping[str, object]) -> None:
        """Raise :class:`InvalidRulesError` unless the option's value in
        ``values`` lies within its limits."""
        if self.kind is not OptionKind.INT:
            return
        low, high = self.limits(values)
        value = values[self.name]
        assert isinstance(value, int)
        if not low <= value <= high:
            raise InvalidRulesError(Reason(self.refusal, option=self.name, low=low, high=high, value=value))

    def smallest(self) -> int:
        """The lowest value the option can ever take (whatever the others)."""
        return _extreme(self.bounds()[0], lowest=True)

    def largest(self) -> int:
        """The highest value the option can ever take (whatever the others)."""
        return _extreme(self.bounds()[1], lowest=False)

    def range_text(self) -> str:
        """The limits for people: ``1-8``, ``0 to piles``."""
        low, high = self.bounds()
        if not low.terms and not high.terms:
            return f"{low}-{high}"
        return f"{low} to {high}"

    def to_json(self) -> dict[str, Any]:
        """What the web API publishes: ``type``, ``default`` and ``help``;
        ``choices`` for a choice; ``min`` and ``max`` for a number (the
        widest limits), with ``min_from``/``max_from`` (see
        :meth:`Bound.to_json`) when a limit depends on other options."""
        data: dict[str, Any] = {"type": self.kind.value, "default": self.default, "help": self.help}
        if self.kind is OptionKind.CHOICE:
            data["choices"] = list(self.choices)
        if self.kind is OptionKind.INT:
            low, high = self.bounds()
            data["min"], data["max"] = self.smallest(), self.largest()
            if low.terms:
                data["min_from"] = low.to_json()
            if high.terms:
                data["max_from"] = high.to_json()
        return data


def choice_key(value: object) -> str | None:
    """A choice's value as the options table spells it (lower case, no
    spaces around), read so wherever it is given: the command line, a
    request, a record, a deal file's rules line, a row's title; None for
    anything but text. The one reader of a choice, so ``"Free"`` is one
    value or none for every entry point (the command line took it, a
    record or a request was refused).

    >>> choice_key(" Free"), choice_key(3)
    ('free', None)
    """
    if not isinstance(value, str):
        return None
    bare = value.strip()
    return bare.lower() if bare.isascii() else bare  # (the Kelvin sign's lower case is 'k')


def _extreme(bound: Bound, *, lowest: bool) -> int:
    """The lowest (or highest) value of ``bound`` over every allowed value
    of the options it depends on (their own limits are constants)."""
    total = bound.constant
    for name, factor in bound.terms:
        option = RULE_OPTIONS[name]
        assert option.low is not None and option.high is not None
        assert not option.depends_on, "a limit may depend only on options with fixed limits"
        small, big = option.low.constant, option.high.constant
        total += factor * (small if (factor > 0) == lowest else big)
    return total


def _read_options() -> dict[str, RuleOption]:
    options: dict[str, RuleOption] = {}
    for each in dataclasses.fields(Rules):
        spec = each.metadata["option"]
        assert isinstance(spec, _Spec)
        default = each.default
        assert isinstance(default, int | str)
        kind, enum = OptionKind.INT, None
        if isinstance(default, bool):
            kind = OptionKind.BOOL
        elif isinstance(default, StrEnum):
            kind, enum, default = OptionKind.CHOICE, type(default), default.value
        choices = tuple(member.value for member in enum) if enum else ()
        options[each.name] = RuleOption(
            each.name, kind, default, spec.help, choices, spec.low, spec.high, spec.refusal, enum
        )
    return options


def _range_order(options: Mapping[str, RuleOption]) -> list[RuleOption]:
    """The number options in the order their limits can be checked: an
    option after every option its limits depend on, else in field order."""
    ordered: list[RuleOption] = []
    waiting = [o for o in options.values() if o.kind is OptionKind.INT]
    while waiting:
        done = {o.name for o in ordered}
        ready = next(o for o in waiting if set(o.depends_on) <= done)
        ordered.append(ready)
        waiting.remove(ready)
    return ordered


RULE_OPTIONS: Mapping[str, RuleOption] = MappingProxyType(_read_options())
"""Every rule option by name, in field order (read-only: every Rules reads it)."""
RULE_FIELDS: tuple[str, ...] = tuple(RULE_OPTIONS)
_RANGE_ORDER = _range_order(RULE_OPTIONS)
MAX_FOUNDATIONS = 4 * RULE_OPTIONS["decks"].largest()
"""The most foundations any rules have."""

LATER_OPTIONS: Mapping[str, Any] = MappingProxyType({"promote_candidates": True})
"""The options added after rules were first saved (in databases, records and
exports), each with the value every game saved before it was played by:
saved rules without such a key are complete, with that value (read-only)."""


def saved_rules(data: Any) -> Any:
    """``data`` (a JSON object of rules as a database saved them) with the
    options added since at the value it was played by (:data:`LATER_OPTIONS`);
    anything but an object as it is.

    >>> saved_rules({"decks": 2})["promote_candidates"], saved_rules([1])
    (True, [1])
    """
    return {**LATER_OPTIONS, **data} if isinstance(data, dict) else data


def given_rules(rules: object, *, default: bool = True) -> Rules:
    """``rules``, or the default rules for None (with ``default``; without,
    None is refused too); anything else is a :class:`TypeError` that says
    what to pass (a preset's name is not rules).

    >>> given_rules(None) == Rules()
    True
    >>> given_rules("terrace")
    Traceback (most recent call last):
    ...
    TypeError: rules must be a Rules (for a preset: terrace.get_rules('terrace')), not str
    """
    if rules is None and default:
        return Rules()
    if not isinstance(rules, Rules):
        raise TypeError("rules must be a Rules (for a preset: terrace.get_rules('terrace')), "
                        f"not {type(rules).__name__}")
    return rules
