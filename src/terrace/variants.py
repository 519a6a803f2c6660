"""The named variants of the Terrace family, one record each.

>>> get_rules("queen-of-italy") == get_rules("terrace")
True
>>> get_rules("wood").spaces.value
'waste'
>>> get_rules("terrace", candidates=4).candidates
4
>>> preset_name(get_rules("madame"))
'madame'
>>> get_variant("Signora").title, get_variant("signora").aliases
('Terrace', ('Queen of Italy', 'Signora'))
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from terrace.errors import InvalidRulesError
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.rules import FoundationBuild, Rules, SpaceRule, given_rules

SUIT = FoundationBuild.SUIT


def name_key(name: str) -> str:
    """The name as the tables spell it: lower case, words (split at
    spaces, ``_`` and ``-``, however many) joined by one ``-``, no
    apostrophes (straight or curly, as phones and word processors type
    them); anything but text is :class:`InvalidRulesError`.

    >>> name_key("General's Patience"), name_key(" queen_of  italy "), name_key("Admiral’s Patience")
    ('generals-patience', 'queen-of-italy', 'admirals-patience')
    """
    if not isinstance(name, str):
        raise InvalidRulesError(Reason(Refusal.VARIANT_NOT_TEXT, value=quote(name)))
    words = name.strip().lower()
    if len(words) > _LONGEST_NAME:  # (no name: not worth splitting, however many words it holds)
        return words
    for apostrophe in _APOSTROPHES:
        words = words.replace(apostrophe, "")
    return "-".join(_SEPARATORS.split(words)).strip("-")


_APOSTROPHES = ("'", "\u2019", "\u2018")
"""The apostrophes a name may be written with: straight, and the closing and
opening curly ones."""
_LONGEST_NAME = 200
"""A name longer than this (spaces around it aside) is no variant's name,
however it is spelt."""
_SEPARATORS = re.compile(r"[\s_-]+")
"""What separates the words of a name: any run of spaces, ``_`` and ``-``."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One game of the family: its name (as commands and saved games spell
    it), its title, other names it is known by, its rules and a short
    description."""

    name: str
    title: str
    rules: Rules
    description: str
    aliases: tuple[str, ...] = ()

    @property
    def alias_names(self) -> tuple[str, ...]:
        """The other names as commands accept them (``queen-of-italy``)."""
        return tuple(name_key(alias) for alias in self.aliases)


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "terrace", "Terrace", Rules(decks=2, reserve=11, piles=9, candidates=3),
        "The classic two-pack game: eleven terrace cards, nine piles, and a base rank picked from "
        "three candidates after a look at the layout. Other names for the same game are Queen of "
        "Italy and Signora.",
        aliases=("Queen of Italy", "Signora"),
    ),
    Variant(
        "blondes-and-brunettes", "Blondes and Brunettes", Rules(decks=2, reserve=10, piles=9, candidates=0),
        "A terrace one card shorter, and no choice: the card after the nine pile cards is turned "
        "up as the base. Harder than Terrace.",
    ),
    Variant(
        "falling-star", "Falling Star", Rules(decks=2, reserve=11, piles=9, candidates=0),
        "Terrace with the base card turned up from the pack instead of picked.",
    ),
    Variant(
        "generals-patience", "General's Patience",
        Rules(decks=2, reserve=13, piles=9, candidates=4, foundations=SUIT),
        "Foundations are built in suit rather than in alternating colours, so each terrace card "
        "has fewer places to go; thirteen terrace cards and four candidates.",
    ),
    Variant(
        "thirteen", "Thirteen", Rules(decks=2, reserve=13, piles=11, candidates=3),
        "A larger layout: thirteen terrace cards and eleven piles, with three candidates.",
    ),
    Variant(
        "wood", "Wood", Rules(decks=2, reserve=10, piles=9, candidates=0, spaces=SpaceRule.WASTE),
        "A turned base card, and an emptied pile stays open until the player puts the waste card "
        "there; no other card may fill it.",
    ),
    Variant(
        "madame", "Madame", Rules(decks=3, reserve=15, piles=10, candidates=10),
        "Three packs and twelve foundations; the base is picked from a full row of ten candidates.",
    ),
    Variant(
        "big-terrace", "Big Terrace", Rules(decks=4, reserve=19, piles=11, candidates=5),
        "Four packs and sixteen foundations, nineteen terrace cards, eleven piles, five candidates.",
    ),
    Variant(
        "empress-of-italy", "Empress of Italy",
        Rules(decks=4, reserve=19, piles=11, candidates=5, spaces=SpaceRule.FREE, foundation_return=True),
        "Big Terrace made generous: empty piles take any card the player moves there but the terrace "
        "card, and foundation cards may come back to the tableau.",
    ),
    Variant(
        "admirals-patience", "Admiral's Patience",
        Rules(decks=4, reserve=13, piles=11, candidates=5, foundations=SUIT),
        "The four-pack game built in suit: sixteen foundations, thirteen terrace cards, eleven "
        "piles and five candidates.",
    ),
)
"""Every variant, in the order menus list them."""

_BY_NAME: dict[str, Variant] = {
    **{alias: v for v in VARIANTS for alias in v.alias_names},
    **{v.name: v for v in VARIANTS},
}

# (read-only: the tables are the library's, shared by every caller in the
# process; PRESETS["terrace"] = ... changed what the statistics took for a preset)
PRESETS: Mapping[str, Rules] = MappingProxyType({v.name: v.rules for v in VARIANTS})
"""Each variant's rules by name (derived from :data:`VARIANTS`; read-only)."""
TITLES: Mapping[str, str] = MappingProxyType({v.name: v.title for v in VARIANTS})
"""Each variant's title by name (derived from :data:`VARIANTS`; read-only)."""
ALIASES: Mapping[str, str] = MappingProxyType({alias: v.name for v in VARIANTS for alias in v.alias_names})
"""The variant each other name stands for (derived from :data:`VARIANTS`; read-only)."""


def get_variant(name: str) -> Variant:
    """The variant a name or alias refers to (spelt loosely).

    >>> get_variant("General's Patience").name
    'generals-patience'
    """
    variant = _BY_NAME.get(name_key(name))
    if variant is None:
        known = tuple(sorted(_BY_NAME))
        raise InvalidRulesError(Reason(Refusal.VARIANT_UNKNOWN, name=clip(name), known=known))
    return variant


def canonical_name(name: str) -> str:
    """The variant a name or alias refers to.

    >>> canonical_name("Signora")
    'terrace'
    """
    return get_variant(name).name


def get_rules(name: str = "terrace", **overrides: Any) -> Rules:
    """The rules of a variant, with any options overridden."""
    rules = get_variant(name).rules
    return rules.replace(**overrides) if overrides else rules


def preset_name(rules: Rules) -> str | None:
    """The variant whose rules are exactly ``rules``, if any."""
    rules = given_rules(rules, default=False).as_played()  # (an option that changes nothing in play)
    for variant in VARIANTS:
        if variant.rules == rules:
            return variant.name
    return None


CUSTOM = " (custom: "
"""What joins a variant's name and the options in which a game's rules differ
from the preset's, in :func:`rules_label`."""


def rules_label(variant: str, rules: Rules) -> str:
    """The name of the rules a game of ``variant`` (a preset's name; any
    other name is its own) is played by: a preset's name when they are its
    rules, else the name of the nearest preset followed by the options
    that differ from it (the statistics count such games apart).

    >>> rules_label("terrace", get_rules("terrace"))
    'terrace'
    >>> rules_label("terrace", get_rules("terrace", decks=1, reserve=0))
    'terrace (custom: decks 1, reserve 0)'
    >>> rules_label("wood", get_rules("wood", foundation_return=True))
    'wood (custom: foundation-return yes)'

    Rules are named alike whatever variant the game was started from (one
    set of rules, one name): exactly another preset's are that preset's,
    and others are named after the preset they differ from in the fewest
    options, the first of those in :data:`VARIANTS` (one set of custom
    rules started from two presets made two groups):

    >>> rules_label("terrace", get_rules("terrace", candidates=0))
    'falling-star'
    >>> rules_label("falling-star", get_rules("falling-star", candidates=2))
    'terrace (custom: candidates 2)'
    """
    if name_key(variant) not in _BY_NAME:
        return variant
    return _label_of(given_rules(rules, default=False).as_played())


@functools.lru_cache(maxsize=256)  # (the statistics name every saved game's rules: few differ)
def _label_of(rules: Rules) -> str:
    """The :func:`rules_label` of ``rules`` as played."""
    ours = rules.to_dict()
    changes = {known.name: [name for name, value in ours.items() if value != known.rules.to_dict()[name]]
               for known in VARIANTS}
    nearest = min(changes, key=lambda name: len(changes[name]))  # (the first of the nearest)
    if not changes[nearest]:
        return nearest
    shown = ", ".join(f"{name.replace('_', '-')} {_shown(ours[name])}" for name in changes[nearest])
    return f"{nearest}{CUSTOM}{shown})"


def label_parts(label: str) -> tuple[str, list[tuple[str, str]]]:
    """The variant a :func:`rules_label` names, and the options it lists,
    each as its field of ``Rules.to_dict()`` and its value as the label
    writes it (none for a preset's label): what a page needs to say the
    label in its own language.

    >>> label_parts("wood (custom: decks 1, foundation-return yes)")
    ('wood', [('decks', '1'), ('foundation_return', 'yes')])
    >>> label_parts("generals-patience")
    ('generals-patience', [])
    """
    name, custom, rest = _given_label(label).partition(CUSTOM)
    if not custom or not rest.endswith(")"):
        return name, []
    changes = []
    for part in rest[:-1].split(", "):
        option, _, value = part.partition(" ")
        changes.append((option.replace("-", "_"), value))
    return name, changes


OPTION_WORDS: Mapping[str, str] = MappingProxyType({
    "decks": "decks",
    "reserve": "terrace cards",
    "piles": "piles",
    "candidates": "candidates",
    "foundations": "foundations",
    "spaces": "spaces",
    "redeals": "redeals",
})
"""How a group's title names a changed number or choice option, before
its value (the page's English words, ``stats.opt.*`` of its i18n.js)."""
VALUE_WORDS: Mapping[str, str] = MappingProxyType({
    "alternate": "alternate colours",
    "suit": "in suit",
    "auto": "refilled automatically",
    "free": "any card but the terrace card",
    "waste": "waste card only",
})
"""How a group's title says a choice option's value (the page's
``choice.*``)."""
SAID_YES_NO: Mapping[tuple[str, str], str] = MappingProxyType({
    ("foundation_return", "yes"): "foundation cards may return",
    ("foundation_return", "no"): "foundation cards stay",
    ("promote_candidates", "yes"): "other candidates of the base rank go up at once",
    ("promote_candidates", "no"): "other candidates of the base rank stay put",
})
"""A yes/no option in a group's title, said as what it does (the page's
``stats.opt.<option>.<yes|no>``), not as its name and the answer."""


def said_change(option: str, value: str) -> str:
    """One changed option of a :func:`label_parts` list, as a group's
    title says it (as the page says it in English).

    >>> said_change("reserve", "0"), said_change("spaces", "free"), said_change("foundation_return", "yes")
    ('terrace cards 0', 'spaces any card but the terrace card', 'foundation cards may return')
    """
    whole = SAID_YES_NO.get((option, value))
    if whole is not None:
        return whole
    words = OPTION_WORDS.get(option, option.replace("_", "-"))
    return f"{words} {VALUE_WORDS.get(value, value)}"


def read_change(text: str) -> tuple[str, str]:
    """The option and value of one change as :func:`said_change` says it,
    or as a label writes it (``reserve 0``, ``foundation-return yes``): the
    field of ``Rules.to_dict()`` and the value as the label writes it (for
    other text, its first word and the rest, to be refused by the caller).

    >>> read_change("terrace cards 0"), read_change("reserve 0"), read_change("foundation cards stay")
    (('reserve', '0'), ('reserve', '0'), ('foundation_return', 'no'))
    >>> read_change("spaces waste card only"), read_change("frobs 1")
    (('spaces', 'waste'), ('frobs', '1'))
    """
    for (option, value), words in SAID_YES_NO.items():
        if text == words:
            return option, value
    for option, words in OPTION_WORDS.items():
        if text.startswith(f"{words} "):
            value = text[len(words) + 1:]
            return option, next((key for key, said in VALUE_WORDS.items() if said == value), value)
    option, _, value = text.partition(" ")
    return option.replace("-", "_"), value


def label_title(label: str) -> str:
    """A :func:`rules_label` with the variant's title in place of its name,
    and the options that differ said as the page says them in English.

    >>> label_title("generals-patience"), label_title("terrace (custom: decks 1, reserve 0)")
    ("General's Patience", 'Terrace (custom: decks 1, terrace cards 0)')
    >>> label_title("wood (custom: foundation-return yes)")
    'Wood (custom: foundation cards may return)'
    """
    name, changes = label_parts(label)
    if not changes:  # (a preset, or a label cut short: shown as it is)
        name, custom, rest = _given_label(label).partition(CUSTOM)
        return TITLES.get(name, name) + custom + rest
    return f"{TITLES.get(name, name)}{CUSTOM}{', '.join(said_change(o, v) for o, v in changes)})"


def _given_label(label: object) -> str:
    """``label`` when it is text, else :class:`InvalidRulesError`."""
    if not isinstance(label, str):
        raise InvalidRulesError(Reason(Refusal.LABEL_NOT_TEXT, value=quote(label)))
    return label


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def variant_names() -> list[str]:
    """Every variant name, in the order of :data:`VARIANTS`."""
    return [v.name for v in VARIANTS]
