"""The Rules value: defaults, validation, copies and JSON."""

from __future__ import annotations

import random
from typing import Any

import pytest

from terrace.board import Board
from terrace.errors import InvalidRulesError
from terrace.refusals import Refusal
from terrace.rules import (
    MAX_FOUNDATIONS,
    RULE_FIELDS,
    RULE_OPTIONS,
    Bound,
    FoundationBuild,
    OptionKind,
    Rules,
    SpaceRule,
)
from terrace.variants import rules_label


def test_defaults_are_the_three_candidate_terrace() -> None:
    rules = Rules()
    assert (rules.decks, rules.reserve, rules.piles, rules.candidates) == (2, 11, 9, 3)
    assert rules.foundations is FoundationBuild.ALTERNATE
    assert rules.spaces is SpaceRule.AUTO
    assert (rules.redeals, rules.foundation_return, rules.promote_candidates) == (0, False, True)
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


@pytest.mark.parametrize("name", ["self", "cls", "data", "base", "changes"])
def test_option_names_that_are_parameter_names_are_unknown_options(name: str) -> None:
    # JSON keys become keyword arguments: none may clash with a parameter
    with pytest.raises(InvalidRulesError, match=f"unknown rule option '{name}'"):
        Rules.from_dict({name: 1})


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
    kept = "other candidates of the base rank stay in the tableau"
    assert kept in Rules(promote_candidates=False).describe() and kept not in Rules().describe()
    for candidates in (0, 1):  # (no other candidate to keep)
        assert kept not in Rules(candidates=candidates, promote_candidates=False).describe()


def test_describe_one_deck() -> None:
    assert Rules(decks=1, reserve=5).describe().startswith("1 deck, 5 reserve cards")


# -- each option's limits, choices and help, read from its field ----------------------


def test_options_are_the_fields_with_their_defaults() -> None:
    assert tuple(RULE_OPTIONS) == RULE_FIELDS == tuple(Rules().to_dict())
    defaults = Rules().to_dict()
    for name, option in RULE_OPTIONS.items():
        assert option.default == defaults[name] and option.help
    assert RULE_OPTIONS["foundations"].choices == tuple(m.value for m in FoundationBuild)
    assert RULE_OPTIONS["spaces"].kind is OptionKind.CHOICE
    assert RULE_OPTIONS["foundation_return"].kind is OptionKind.BOOL
    assert RULE_OPTIONS["decks"].kind is OptionKind.INT


def test_dependent_limits_follow_the_other_options() -> None:
    reserve, candidates = RULE_OPTIONS["reserve"], RULE_OPTIONS["candidates"]
    assert reserve.depends_on == ("decks", "piles") and candidates.depends_on == ("piles",)
    assert reserve.limits({"decks": 8, "piles": 9}) == (0, 406)
    assert candidates.limits({"piles": 12}) == (0, 12)
    assert (reserve.smallest(), reserve.largest()) == (0, 8 * 52 - 1 - 1)
    assert candidates.largest() == 20 and RULE_OPTIONS["decks"].largest() == 8
    assert Rules(decks=8, reserve=406).reserve == 406
    with pytest.raises(InvalidRulesError) as info:
        Rules(decks=8, reserve=407)
    reason = info.value.reason
    assert reason is not None and reason.code is Refusal.RESERVE_RANGE and reason.params["high"] == 406


@pytest.mark.parametrize("name", [n for n, o in RULE_OPTIONS.items() if o.kind is OptionKind.INT])
def test_every_number_option_refuses_just_beyond_its_limits(name: str) -> None:
    option = RULE_OPTIONS[name]
    values = {**Rules().to_dict(), "reserve": 0, "candidates": 0}
    low, high = option.limits(values)
    for value in (low, high):
        Rules(**{**values, name: value})
    for value in (low - 1, high + 1):
        with pytest.raises(InvalidRulesError) as info:
            Rules(**{**values, name: value})
        assert info.value.code is option.refusal


@pytest.mark.parametrize("name", [n for n, o in RULE_OPTIONS.items() if o.kind is not OptionKind.INT])
def test_a_choice_or_yes_no_option_has_no_limits_and_says_so(name: str) -> None:
    """Asking a choice or a yes/no option for its limits was an empty
    AssertionError (under ``python -O`` an AttributeError on None); it is a
    TypeError that names the option and its values."""
    option = RULE_OPTIONS[name]
    said = "true or false" if option.kind is OptionKind.BOOL else f"'{option.choices[-1]}'"
    for ask in (option.smallest, option.largest, option.range_text, option.bounds, lambda: option.limits({})):
        with pytest.raises(TypeError, match=f"^{name} is .*{said}, not a number with limits$"):
            ask()
    option.check_range(Rules().to_dict())  # (nothing to check)


def test_bounds_read_as_formulas() -> None:
    assert str(Bound(-1, (("decks", 52), ("piles", -1)))) == "52 × decks − piles − 1"
    assert str(Bound(0, (("piles", 1),))) == "piles" and str(Bound(8)) == "8" and str(Bound(-2)) == "−2"
    assert Bound(3, (("piles", 2),)).to_json() == {"constant": 3, "terms": {"piles": 2}}
    assert RULE_OPTIONS["reserve"].range_text() == "0 to 52 × decks − piles − 1"
    assert RULE_OPTIONS["decks"].range_text() == "1-8"


def test_published_limits() -> None:
    reserve = RULE_OPTIONS["reserve"].to_json()
    assert (reserve["min"], reserve["max"]) == (0, 414)
    assert reserve["max_from"] == {"constant": -1, "terms": {"decks": 52, "piles": -1}}
    assert "min_from" not in reserve
    assert RULE_OPTIONS["spaces"].to_json()["choices"] == ["auto", "free", "waste"]
    assert RULE_OPTIONS["foundation_return"].to_json() == {
        "type": "bool", "default": False, "help": RULE_OPTIONS["foundation_return"].help
    }
    assert MAX_FOUNDATIONS == 32


def test_rule_refusals_have_codes_and_german() -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules(spaces="never")  # type: ignore[arg-type]
    assert info.value.code is Refusal.OPTION_NOT_CHOICE
    assert info.value.text("de") == "„spaces“ muss „auto“, „free“ oder „waste“ sein, nicht „never“."
    assert str(info.value) == "spaces must be 'auto', 'free' or 'waste', not 'never'"
    with pytest.raises(InvalidRulesError, match="known: decks, reserve"):
        Rules().replace(jokers=2)


@pytest.mark.parametrize("key", [1, None, ("decks",)])
def test_an_option_named_by_anything_but_text_is_an_unknown_option(key: Any) -> None:
    """``Rules.from_dict`` refuses an option whose name is no text as an
    unknown option, not with Python's TypeError of keyword names (a
    mutation audit: dropping that refusal went unnoticed)."""
    with pytest.raises(InvalidRulesError, match="unknown rule option") as info:
        Rules.from_dict({key: 2})
    assert info.value.code is Refusal.OPTION_UNKNOWN


def test_an_option_kept_out_of_range_by_a_change_is_refused_in_the_changes_terms() -> None:
    """Terrace's 3 candidates with piles 1 were refused as if the player had
    given them; the refusal says which change left the kept value out."""
    with pytest.raises(InvalidRulesError) as info:
        Rules().replace(piles=1)
    reason = info.value.reason
    assert reason is not None and reason.code is Refusal.OPTION_KEPT_RANGE
    assert str(reason) == ("with piles 1, candidates must be between 0 and 1, and the rules you started from "
                           "have 3: give candidates too, or change piles")
    assert reason.text("de").startswith("Mit piles 1 muss „candidates“ zwischen 0 und 1 liegen")
    with pytest.raises(InvalidRulesError) as wide:
        Rules(reserve=90).replace(decks=1, spaces="free")
    assert str(wide.value) == ("with decks 1, reserve must be between 0 and 42, and the rules you started "
                               "from have 90: give reserve too, or change decks")
    with pytest.raises(InvalidRulesError) as given:
        Rules().replace(piles=1, candidates=2)
    assert given.value.code is Refusal.CANDIDATES_RANGE


@pytest.mark.parametrize("drawless", [
    Rules(decks=1, reserve=50, piles=1, candidates=0),
    Rules(decks=1, reserve=31, piles=20, candidates=20),
], ids=["turned", "twenty-candidates"])
def test_with_no_card_to_draw_redeals_and_waste_spaces_are_one_game(drawless: Rules) -> None:
    """With the reserve at its largest no card is left to draw, so a redeal
    never turns anything and no waste card fills a pile: nine redeals, or
    spaces filled from the waste, play the same moves as none and as
    automatic spaces (checked along a random game), yet they were counted
    as other rules, 'terrace (custom: ..., redeals 9)' a group of its own
    in the statistics, and solved again under another verdict key."""
    others = [drawless.replace(redeals=9), drawless.replace(spaces="waste"),
              drawless.replace(spaces="waste", redeals=9)]
    boards = [Board.from_number(3, rules) for rules in (drawless, *others)]
    rng = random.Random(3)
    for _ in range(60):
        moves = [sorted(map(str, board.legal_moves)) for board in boards]
        assert all(each == moves[0] for each in moves) and len({b.status for b in boards}) == 1
        if not moves[0]:
            break
        chosen = rng.choice(moves[0])
        for board in boards:
            board.push_text(chosen)
    labels = {rules_label("terrace", rules) for rules in (drawless, *others)}
    assert labels == {rules_label("terrace", drawless)}
    assert {rules.as_played() for rules in others} == {drawless}
