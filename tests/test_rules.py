"""The Rules value: defaults, validation, copies and JSON."""

from __future__ import annotations

from typing import Any

import pytest

from terrace.errors import InvalidRulesError
from terrace.rules import RULE_FIELDS, FoundationBuild, Rules, SpaceRule


def test_defaults_are_the_three_candidate_terrace() -> None:
    rules = Rules()
    assert (rules.decks, rules.reserve, rules.piles, rules.candidates) == (2, 11, 9, 3)
    assert rules.foundations is FoundationBuild.ALTERNATE
    assert rules.spaces is SpaceRule.AUTO
    assert (rules.redeals, rules.foundation_return) == (0, False)
    assert (rules.foundation_count, rules.card_count) == (8, 104)
    assert rules.picks_base and not rules.in_suit


def test_strings_become_enums() -> None:
    rules = Rules(foundations="suit", spaces="free")  # type: ignore[arg-type]
    assert rules.foundations is FoundationBuild.SUIT
    assert rules.spaces is SpaceRule.FREE
    assert rules.in_suit


def test_turned_base_is_zero_candidates() -> None:
    assert not Rules(candidates=0).picks_base


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"decks": 0}, "decks must be between 1 and 8, not 0"),
        ({"decks": 9}, "decks must be between 1 and 8"),
        ({"piles": 0}, "piles must be between 1 and 20"),
        ({"piles": 21}, "piles must be between 1 and 20"),
        ({"candidates": 10}, r"candidates must be between 0 and the number of piles \(9\), not 10"),
        ({"candidates": -1}, "candidates must be between 0"),
        ({"reserve": -1}, "the reserve must hold between 0 and 94 cards, not -1"),
        ({"reserve": 95}, "the reserve must hold between 0 and 94 cards"),
        ({"redeals": -1}, "redeals must be between 0 and 9"),
        ({"redeals": 10}, "redeals must be between 0 and 9"),
        ({"foundations": "colour"}, "foundations must be 'alternate' or 'suit'"),
        ({"spaces": "never"}, "spaces must be 'auto', 'free' or 'waste'"),
        ({"decks": "2"}, "decks must be a whole number"),
        ({"candidates": True}, "candidates must be a whole number"),
        ({"reserve": 1.5}, "reserve must be a whole number"),
        ({"foundation_return": 1}, "foundation_return must be true or false"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message):
        Rules(**changes)


def test_limits_are_inclusive() -> None:
    Rules(reserve=94)
    Rules(reserve=0)
    Rules(decks=8, piles=20, candidates=20, redeals=9)
    Rules(decks=1, reserve=0, piles=1, candidates=1)


def test_replace_validates_and_refuses_unknown_options() -> None:
    rules = Rules()
    assert rules.replace(candidates=4, spaces="waste").spaces is SpaceRule.WASTE
    assert rules.candidates == 3  # frozen: the original is unchanged
    with pytest.raises(InvalidRulesError, match="unknown rule option 'colour'"):
        rules.replace(colour=1)
    with pytest.raises(InvalidRulesError):
        rules.replace(piles=2)  # fewer piles than candidates


def test_rules_are_frozen_and_hashable() -> None:
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.decks = 3  # type: ignore[misc]
    assert {Rules(): 1}[Rules()] == 1
    assert Rules(candidates=4) != Rules()


def test_dict_round_trip() -> None:
    rules = Rules(decks=3, reserve=15, piles=10, candidates=0, foundations=FoundationBuild.SUIT,
                  spaces=SpaceRule.WASTE, redeals=2, foundation_return=True)
    data = rules.to_dict()
    assert list(data) == list(RULE_FIELDS)
    assert data["foundations"] == "suit" and data["spaces"] == "waste"
    assert Rules.from_dict(data) == rules


def test_from_dict_takes_missing_keys_from_base() -> None:
    base = Rules(decks=4, reserve=19, piles=11, candidates=5)
    assert Rules.from_dict({"candidates": 2}, base) == base.replace(candidates=2)
    with pytest.raises(InvalidRulesError, match="JSON object"):
        Rules.from_dict([1, 2])


def test_describe_mentions_every_option() -> None:
    text = Rules(candidates=4, foundations=FoundationBuild.SUIT, spaces=SpaceRule.WASTE, redeals=2,
                 foundation_return=True).describe()
    for part in ("2 decks", "11 reserve cards", "9 piles", "base chosen from 4 candidates",
                 "foundations in suit", "spaces filled from the waste", "2 redeals",
                 "foundation cards may return"):
        assert part in text
    assert "1 redeal" in Rules(redeals=1).describe()
    assert "1 redeals" not in Rules(redeals=1).describe()
    assert "spaces refilled automatically" in Rules().describe()


def test_describe_one_deck() -> None:
    assert Rules(decks=1, reserve=5).describe().startswith("1 deck, 5 reserve cards")
