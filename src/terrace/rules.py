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
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from terrace.errors import InvalidRulesError


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


MAX_DECKS = 8
MAX_REDEALS = 9


@dataclass(frozen=True, slots=True)
class Rules:
    """All rule options of one game.

    ``candidates == 0`` means the base card is turned from the pack instead
    of being chosen from candidate cards.
    """

    decks: int = 2
    reserve: int = 11
    piles: int = 9
    candidates: int = 3
    foundations: FoundationBuild = FoundationBuild.ALTERNATE
    spaces: SpaceRule = SpaceRule.AUTO
    redeals: int = 0
    foundation_return: bool = False

    def __post_init__(self) -> None:
        for name in ("decks", "reserve", "piles", "candidates", "redeals"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidRulesError(f"{name} must be a whole number, not {value!r}")
        if not isinstance(self.foundation_return, bool):
            raise InvalidRulesError(
                f"foundation_return must be true or false, not {self.foundation_return!r}"
            )
        try:
            object.__setattr__(self, "foundations", FoundationBuild(self.foundations))
        except ValueError:
            raise InvalidRulesError(
                f"foundations must be 'alternate' or 'suit', not {self.foundations!r}"
            ) from None
        try:
            object.__setattr__(self, "spaces", SpaceRule(self.spaces))
        except ValueError:
            raise InvalidRulesError(
                f"spaces must be 'auto', 'free' or 'waste', not {self.spaces!r}"
            ) from None
        if not 1 <= self.decks <= MAX_DECKS:
            raise InvalidRulesError(f"decks must be between 1 and {MAX_DECKS}, not {self.decks}")
        if not 1 <= self.piles <= 20:
            raise InvalidRulesError(f"piles must be between 1 and 20, not {self.piles}")
        if not 0 <= self.candidates <= self.piles:
            raise InvalidRulesError(
                f"candidates must be between 0 and the number of piles ({self.piles}), "
                f"not {self.candidates}"
            )
        most = self.card_count - self.piles - 1
        if not 0 <= self.reserve <= most:
            raise InvalidRulesError(
                f"the reserve must hold between 0 and {most} cards, not {self.reserve}"
            )
        if not 0 <= self.redeals <= MAX_REDEALS:
            raise InvalidRulesError(
                f"redeals must be between 0 and {MAX_REDEALS}, not {self.redeals}"
            )

    @property
    def foundation_count(self) -> int:
        """Four foundations per deck."""
        return 4 * self.decks

    @property
    def card_count(self) -> int:
        """Cards in play: 52 per deck."""
        return 52 * self.decks

    @property
    def picks_base(self) -> bool:
        """True when the player chooses the base card among candidates."""
        return self.candidates > 0

    @property
    def in_suit(self) -> bool:
        """True when foundations build in suit rather than alternate colour."""
        return self.foundations is FoundationBuild.SUIT

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated like the original)."""
        unknown = set(changes) - set(RULE_FIELDS)
        if unknown:
            raise InvalidRulesError(f"unknown rule option {sorted(unknown)[0]!r}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain JSON values.

        >>> Rules().to_dict()["spaces"]
        'auto'
        """
        return {
            "decks": self.decks,
            "reserve": self.reserve,
            "piles": self.piles,
            "candidates": self.candidates,
            "foundations": self.foundations.value,
            "spaces": self.spaces.value,
            "redeals": self.redeals,
            "foundation_return": self.foundation_return,
        }

    @classmethod
    def from_dict(cls, data: Any, base: Rules | None = None) -> Rules:
        """Rules from a JSON object; missing keys come from ``base``.

        >>> Rules.from_dict({"candidates": 4}).candidates
        4
        """
        if not isinstance(data, dict):
            raise InvalidRulesError("rule options must be a JSON object")
        return (base or cls()).replace(**data)

    def describe(self) -> str:
        """A one-line summary for people.

        >>> print(Rules(candidates=0, spaces="free").describe())  # doctest: +NORMALIZE_WHITESPACE
        2 decks, 11 reserve cards, 9 piles, base card turned,
        foundations in alternate colours, spaces filled freely
        """
        base = (
            f"base chosen from {self.candidates} candidates"
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
            f"{self.decks} deck{'s' if self.decks > 1 else ''}",
            f"{self.reserve} reserve cards",
            f"{self.piles} piles",
            base,
            f"foundations {build}",
            spaces,
        ]
        if self.redeals:
            parts.append(f"{self.redeals} redeal{'s' if self.redeals > 1 else ''}")
        if self.foundation_return:
            parts.append("foundation cards may return")
        return ", ".join(parts)


RULE_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules))
