"""The named presets and their aliases."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import terrace.web
from terrace.errors import InvalidRulesError
from terrace.guide import DESCRIPTIONS
from terrace.refusals import Refusal
from terrace.rules import RULE_OPTIONS, FoundationBuild, Rules, SpaceRule
from terrace.variants import (
    ALIASES,
    PRESETS,
    TITLES,
    VARIANTS,
    Variant,
    canonical_name,
    get_rules,
    get_variant,
    label_parts,
    label_title,
    name_key,
    preset_name,
    rules_label,
    variant_names,
)

ALT, SUIT = FoundationBuild.ALTERNATE, FoundationBuild.SUIT
AUTO, FREE, WASTE = SpaceRule.AUTO, SpaceRule.FREE, SpaceRule.WASTE

# The table of issue 2: decks, reserve, piles, candidates, foundations, spaces, foundation return.
TABLE = {
    "terrace": (2, 11, 9, 3, ALT, AUTO, False),
    "blondes-and-brunettes": (2, 10, 9, 0, ALT, AUTO, False),
    "falling-star": (2, 11, 9, 0, ALT, AUTO, False),
    "generals-patience": (2, 13, 9, 4, SUIT, AUTO, False),
    "thirteen": (2, 13, 11, 3, ALT, AUTO, False),
    "wood": (2, 10, 9, 0, ALT, WASTE, False),
    "madame": (3, 15, 10, 10, ALT, AUTO, False),
    "big-terrace": (4, 19, 11, 5, ALT, AUTO, False),
    "empress-of-italy": (4, 19, 11, 5, ALT, FREE, True),
    "admirals-patience": (4, 13, 11, 5, SUIT, AUTO, False),
}


@pytest.mark.parametrize("name", list(TABLE))
def test_preset_matches_the_rules_table(name: str) -> None:
    rules = get_rules(name)
    decks, reserve, piles, candidates, build, spaces, back = TABLE[name]
    assert (rules.decks, rules.reserve, rules.piles, rules.candidates) == (decks, reserve, piles, candidates)
    assert (rules.foundations, rules.spaces, rules.foundation_return) == (build, spaces, back)
    assert rules.redeals == 0
    assert preset_name(rules) == name
    assert name in TITLES


def test_every_preset_is_in_the_table_in_order() -> None:
    assert variant_names() == list(TABLE) == list(PRESETS)


def test_foundation_counts() -> None:
    assert get_rules("madame").foundation_count == 12
    assert get_rules("big-terrace").foundation_count == 16
    assert get_rules("admirals-patience").foundation_count == 16


@pytest.mark.parametrize(
    "alias", ["queen-of-italy", "signora", "Queen of Italy", "SIGNORA", "queen_of_italy"]
)
def test_aliases_name_terrace(alias: str) -> None:
    assert canonical_name(alias) == "terrace"
    assert get_rules(alias) == get_rules("terrace")


@pytest.mark.parametrize(("spelling", "name"), [
    ("General's Patience", "generals-patience"),
    ("Blondes and Brunettes", "blondes-and-brunettes"),
    (" Falling Star ", "falling-star"),
    ("Admiral's Patience", "admirals-patience"),
])
def test_names_as_people_write_them(spelling: str, name: str) -> None:
    assert canonical_name(spelling) == name


def test_unknown_variant_lists_the_known_ones() -> None:
    with pytest.raises(InvalidRulesError, match="unknown variant 'klondike'; known variants: ") as info:
        get_rules("klondike")
    for name in [*PRESETS, *ALIASES]:
        assert name in str(info.value)


def test_overrides() -> None:
    assert get_rules("terrace", candidates=4) == Rules(candidates=4)
    assert get_rules("terrace", foundations="suit").in_suit
    assert preset_name(get_rules("terrace", spaces="free")) is None
    with pytest.raises(InvalidRulesError):
        get_rules("wood", candidates=12)


def test_default_is_terrace() -> None:
    assert get_rules() == Rules()


# -- one record per variant ------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_each_variant_is_one_record(variant: Variant) -> None:
    assert name_key(variant.title) == variant.name
    assert get_variant(variant.title) is variant and get_variant(variant.name) is variant
    assert PRESETS[variant.name] is variant.rules and TITLES[variant.name] == variant.title
    assert variant.description.endswith(".") and len(variant.description) < 300
    for alias, key in zip(variant.aliases, variant.alias_names, strict=True):
        assert get_variant(alias) is variant and ALIASES[key] == variant.name
        assert alias in variant.description


def test_terrace_is_also_queen_of_italy_and_signora() -> None:
    terrace = get_variant("terrace")
    assert terrace.aliases == ("Queen of Italy", "Signora")
    assert terrace.alias_names == ("queen-of-italy", "signora")
    assert [v.name for v in VARIANTS if v.aliases] == ["terrace"]


def test_unknown_variant_has_a_code() -> None:
    with pytest.raises(InvalidRulesError) as info:
        get_variant("x" * 1000)
    assert info.value.code is Refusal.VARIANT_UNKNOWN
    assert len(str(info.value)) < 600


@pytest.mark.parametrize(("name", "options"), [
    ("terrace", {}),
    ("terrace", {"decks": 1, "reserve": 0}),
    ("wood", {"foundation_return": True, "spaces": FREE, "redeals": 2}),
    ("admirals-patience", {"foundations": ALT, "candidates": 0, "piles": 20}),
])
def test_a_label_gives_back_its_variant_and_options(name: str, options: dict[str, object]) -> None:
    """What a page needs to name a statistics group in its own language:
    the preset the rules differ from in the fewest options (the first of
    those: Wood with spaces free, three options apart, is as far from
    Blondes and Brunettes), and those options."""
    rules = get_rules(name, **options)
    label = rules_label(name, rules)
    variant, changes = label_parts(label)
    plain = rules.to_dict()

    def differing(preset: str) -> list[str]:
        return [key for key, value in plain.items() if value != PRESETS[preset].to_dict()[key]]

    assert variant == min(PRESETS, key=lambda preset: len(differing(preset)))
    assert [key for key, _ in changes] == differing(variant)
    for key, text in changes:
        value = plain[key]
        assert text == ({True: "yes", False: "no"}[value] if isinstance(value, bool) else str(value))
    assert label_title(label).startswith(TITLES[variant])


@pytest.mark.parametrize(("spelling", "name"), [
    ("General’s Patience", "generals-patience"),
    ("Admiral‘s patience", "admirals-patience"),
    ("queen  of\titaly", "terrace"),
    ("Blondes - and - Brunettes", "blondes-and-brunettes"),
    ("EMPRESS_OF_ITALY", "empress-of-italy"),
])
def test_names_as_people_type_them_with_curly_apostrophes_and_extra_spaces(spelling: str, name: str) -> None:
    """ "General’s Patience" (the apostrophe a phone or a word processor
    types) and "queen  of italy" (two spaces) were unknown variants."""
    assert canonical_name(spelling) == name


def test_the_label_of_rules_started_under_another_name_of_a_variant_names_their_options() -> None:
    """rules_label("signora", one-deck rules) was "signora": the custom
    options were lost (statistics counted the game as the preset's), and
    the label named no variant label_title knows."""
    rules = get_rules("terrace", decks=1, reserve=0)
    assert rules_label("Signora", rules) == rules_label("terrace", rules)
    assert rules_label("terrace", rules) == "terrace (custom: decks 1, reserve 0)"
    assert rules_label("queen-of-italy", get_rules("terrace")) == "terrace"
    assert label_title(rules_label("signora", get_rules("wood"))) == "Wood"


def test_a_huge_name_of_many_words_is_refused_without_splitting_it() -> None:
    """(Reading names word by word must not make a list of every word of a
    huge text: 'ab ' * 33 million took 2.4 GB and half a minute.)"""
    import tracemalloc

    text = "ab " * 2_000_000
    tracemalloc.start()
    try:
        with pytest.raises(InvalidRulesError, match="unknown variant"):
            get_variant(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(text)
    assert canonical_name(" " * 1000 + "wood\n") == "wood"


@pytest.mark.parametrize("label", [None, 3, b"wood", ["wood"]])
def test_a_label_that_is_not_text_is_a_coded_refusal(label: object) -> None:
    """label_parts(None) raised AttributeError ('NoneType' object has no
    attribute 'partition'), label_title too."""
    from terrace.errors import InvalidRulesError
    from terrace.refusals import Refusal
    from terrace.variants import label_title

    for read in (label_parts, label_title):
        with pytest.raises(InvalidRulesError, match="a rules label must be text") as info:
            read(label)  # type: ignore[arg-type]
        assert info.value.code is Refusal.LABEL_NOT_TEXT


@pytest.mark.parametrize("name", [None, 5, True, ["terrace"]])
def test_a_variant_named_by_anything_but_text_is_refused_as_such(name: object) -> None:
    """``get_rules(None)`` said "unknown variant 'null'", as if a variant
    called "null" had been asked for."""
    with pytest.raises(InvalidRulesError, match="a variant is named by text such as 'terrace', not ") as info:
        get_variant(name)  # type: ignore[arg-type]
    assert info.value.code == "variant-not-text"
    assert "unknown variant" not in str(info.value)


@pytest.mark.parametrize("name", [None, 5, b"terrace"])
def test_the_label_of_rules_needs_a_variant_named_by_text_and_rules(name: object) -> None:
    """rules_label(None, rules) gave None back and rules_label(5, rules) 5
    (a label that is no text), name_key(None) raised AttributeError, and rules_label('terrace', 'terrace') or
    preset_name(None) raised AttributeError ("'str' object has no attribute
    'to_dict'") or said None; get_variant refuses such a name, and every
    function of rules says what to pass."""
    for call in (lambda: rules_label(name, get_rules("terrace")), lambda: name_key(name)):  # type: ignore[arg-type]
        with pytest.raises(InvalidRulesError, match="a variant is named by text such as 'terrace'") as info:
            call()
        assert info.value.code is Refusal.VARIANT_NOT_TEXT
    for call in (lambda: rules_label("terrace", "terrace"), lambda: rules_label("terrace", None),  # type: ignore[arg-type]
                 lambda: preset_name("terrace"), lambda: preset_name(None)):  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"rules must be a Rules \(for a preset: terrace.get_rules"):
            call()
    assert rules_label("no such game", get_rules("wood")) == "no such game"


def test_free_spaces_are_never_said_to_take_any_card_at_all() -> None:
    """Empress of Italy's description said "empty piles take any card the
    player moves there" (German "nehmen jede Karte"), and the help of
    --spaces "free = any card": the terrace card can never enter a pile,
    free spaces or not (``test_board``'s free-space test plays it)."""
    free = [v for v in VARIANTS if v.rules.spaces is SpaceRule.FREE]
    assert free
    for variant in free:
        for text in DESCRIPTIONS[variant.name].values():
            assert "terrace card" in text or "Terrassenkarte" in text, text
    assert "any card but the terrace card" in RULE_OPTIONS["spaces"].help
    # the new-game form's choice says the same, in both of the page's languages
    page = (Path(terrace.web.__file__).parent / "static" / "js" / "i18n.js").read_text(encoding="utf-8")
    assert re.findall(r'"choice\.free": "([^"]*)"', page) == [
        "any card but the terrace card", "jede Karte außer der Terrassenkarte"]


@pytest.mark.parametrize("label", ["wood (custom: decks 1", "wood (custom: ",
                                   "wood (custom: decks 1, reserve 0)x"])
def test_a_label_cut_short_gives_no_options(label: str) -> None:
    """A statistics group whose label was cut short (a database changed by
    hand) is named by its variant with no options, not with options read
    from half a list (a mutation audit: ``or`` read as ``and`` went
    unnoticed)."""
    assert label_parts(label) == ("wood", [])


def test_the_shared_tables_cannot_be_changed_by_a_caller() -> None:
    """PRESETS, TITLES, ALIASES, RULE_OPTIONS and LATER_OPTIONS were plain
    dicts: PRESETS["terrace"] = ... (or del) changed them for every caller
    in the process (the statistics took a game of the replaced rules for a
    preset's). They are read-only now; their content is unchanged."""
    from terrace.rules import LATER_OPTIONS

    tables: list[Any] = [PRESETS, TITLES, ALIASES, RULE_OPTIONS, LATER_OPTIONS]
    for table in tables:
        key = next(iter(table))
        with pytest.raises(TypeError):
            table[key] = table[key]
        with pytest.raises(TypeError):
            del table[key]
        assert not hasattr(table, "clear") and not hasattr(table, "update")
    assert PRESETS["wood"] == get_rules("wood") and TITLES["generals-patience"] == "General's Patience"
    assert ALIASES["signora"] == "terrace" and "decks" in RULE_OPTIONS and len(RULE_OPTIONS) == 9
