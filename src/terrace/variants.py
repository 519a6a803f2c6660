"""Named presets of the Terrace family.

>>> get_rules("queen-of-italy") == get_rules("terrace")
True
>>> get_rules("wood").spaces.value
'waste'
>>> get_rules("terrace", candidates=4).candidates
4
>>> preset_name(get_rules("madame"))
'madame'
"""

from __future__ import annotations

from typing import Any

from terrace.errors import InvalidRulesError
from terrace.rules import FoundationBuild, Rules, SpaceRule

ALT = FoundationBuild.ALTERNATE
SUIT = FoundationBuild.SUIT

PRESETS: dict[str, Rules] = {
    "terrace": Rules(decks=2, reserve=11, piles=9, candidates=3),
    "blondes-and-brunettes": Rules(decks=2, reserve=10, piles=9, candidates=0),
    "falling-star": Rules(decks=2, reserve=11, piles=9, candidates=0),
    "generals-patience": Rules(decks=2, reserve=13, piles=9, candidates=4, foundations=SUIT),
    "thirteen": Rules(decks=2, reserve=13, piles=11, candidates=3),
    "wood": Rules(decks=2, reserve=10, piles=9, candidates=0, spaces=SpaceRule.WASTE),
    "madame": Rules(decks=3, reserve=15, piles=10, candidates=10),
    "big-terrace": Rules(decks=4, reserve=19, piles=11, candidates=5),
    "empress-of-italy": Rules(
        decks=4, reserve=19, piles=11, candidates=5,
        spaces=SpaceRule.FREE, foundation_return=True,
    ),
    "admirals-patience": Rules(decks=4, reserve=13, piles=11, candidates=5, foundations=SUIT),
}

ALIASES: dict[str, str] = {
    "queen-of-italy": "terrace",
    "signora": "terrace",
}

TITLES: dict[str, str] = {
    "terrace": "Terrace",
    "blondes-and-brunettes": "Blondes and Brunettes",
    "falling-star": "Falling Star",
    "generals-patience": "General's Patience",
    "thirteen": "Thirteen",
    "wood": "Wood",
    "madame": "Madame",
    "big-terrace": "Big Terrace",
    "empress-of-italy": "Empress of Italy",
    "admirals-patience": "Admiral's Patience",
}


def canonical_name(name: str) -> str:
    """The preset a name or alias refers to.

    >>> canonical_name("Signora")
    'terrace'
    """
    key = name.strip().lower().replace("_", "-").replace(" ", "-").replace("'", "")
    key = ALIASES.get(key, key)
    if key not in PRESETS:
        known = ", ".join(sorted([*PRESETS, *ALIASES]))
        raise InvalidRulesError(f"unknown variant {name!r}; known variants: {known}")
    return key


def get_rules(name: str = "terrace", **overrides: Any) -> Rules:
    """The rules of a preset, with any options overridden."""
    rules = PRESETS[canonical_name(name)]
    return rules.replace(**overrides) if overrides else rules


def preset_name(rules: Rules) -> str | None:
    """The preset whose rules are exactly ``rules``, if any."""
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    return None


def variant_names() -> list[str]:
    """Every preset name, in the order of the rules table."""
    return list(PRESETS)
