"""The rules for people (terrace.guide and GET /api/rules): written from the
rule options the engine plays by, in English and German alike, with tips,
strategy and common mistakes; every variant described in both languages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from terrace.board import Board
from terrace.guide import DESCRIPTIONS, descriptions, rules_guide
from terrace.rules import RULE_OPTIONS, OptionKind, Rules, SpaceRule
from terrace.variants import VARIANTS, get_rules, get_variant
from web_support import TestClient, app_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def text_of(guide: dict[str, Any], section: str | None = None) -> str:
    parts: list[str] = []
    for each in guide["sections"]:
        if section is None or each["id"] == section:
            for block in each["blocks"]:
                parts += [block["text"]] if block["kind"] == "p" else block["items"]
    return "\n".join(parts)


def shape(guide: dict[str, Any]) -> list[tuple[str, list[tuple[str, int]]]]:
    return [(s["id"], [(b["kind"], len(b.get("items", [b.get("text")]))) for b in s["blocks"]])
            for s in guide["sections"]]


def other_value(name: str, rules: Rules) -> Any:
    """A value of option ``name`` other than the one in ``rules`` that the
    rules accept."""
    option = RULE_OPTIONS[name]
    value = getattr(rules, name)
    if option.kind is OptionKind.BOOL:
        return not value
    if option.kind is OptionKind.CHOICE:
        return next(c for c in option.choices if c != value.value)
    low, high = option.limits(rules.to_dict())
    return value + 1 if value + 1 <= high else value - 1 if value - 1 >= low else None


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_english_and_german_say_the_same_things(variant: Any) -> None:
    english, german = (rules_guide(variant.rules, variant, lang) for lang in ("en", "de"))
    assert shape(english) == shape(german)
    assert english["description"] == variant.description
    assert german["description"] == DESCRIPTIONS[variant.name]["de"] != variant.description
    assert text_of(english) != text_of(german)
    for section in english["sections"]:
        assert section["blocks"], section["id"]


@pytest.mark.parametrize("name", list(RULE_OPTIONS))
@pytest.mark.parametrize("language", ["en", "de"])
def test_every_rule_option_changes_the_text(name: str, language: str) -> None:
    """The text is written from the rules: change any option and the words change."""
    base = get_rules("terrace")
    changed = base.replace(**{name: other_value(name, base)})
    before = rules_guide(base, None, language)
    after = rules_guide(changed, None, language)
    assert text_of(before) != text_of(after)


def test_the_numbers_come_from_the_rules() -> None:
    rules = get_rules("thirteen", candidates=4, redeals=2)
    guide = rules_guide(rules, get_variant("thirteen"), "en")
    assert guide["custom"] is True and guide["description"] is None
    layout = text_of(guide, "layout")
    assert "13 cards in an overlapping row" in layout and "11 piles" in layout and "8 places" in layout
    assert "4 candidate cards" in text_of(guide, "base")
    assert "2 times in all" in text_of(guide, "spaces")
    assert "all 104 cards" in text_of(guide, "end")
    madame = rules_guide(get_rules("madame"), get_variant("madame"), "de")
    assert "3 Kartenspielen" in text_of(madame, "goal") and "12 Zielstapel" in text_of(madame, "goal")


def test_each_rule_reads_as_the_engine_plays_it() -> None:
    turned = text_of(rules_guide(get_rules("falling-star"), None, "en"))
    assert "There is no choice" in turned and "candidate" not in text_of(
        rules_guide(get_rules("falling-star"), None, "en"), "base")
    suit = text_of(rules_guide(get_rules("generals-patience"), None, "en"), "building")
    assert "in suit" in suit and "change colour" not in suit
    wood = text_of(rules_guide(get_rules("wood"), None, "en"), "spaces")
    assert "only" in wood and "top waste card" in wood
    free = text_of(rules_guide(get_rules("empress-of-italy"), None, "en"))
    assert "or of a foundation may fill it" in free
    assert "come back from a foundation" in free
    single = text_of(rules_guide(get_rules("terrace"), None, "en"), "spaces")
    assert "only once: there is no redeal" in single


def test_tips_strategy_and_mistakes_are_there() -> None:
    guide = rules_guide(get_rules("terrace"), get_variant("terrace"), "en")
    for section in ("tips", "strategy", "mistakes"):
        assert len(text_of(guide, section).splitlines()) >= 4, section
    assert "terrace card" in text_of(guide, "strategy")
    assert "base card" in text_of(guide, "mistakes")


def test_every_variant_has_both_descriptions() -> None:
    assert set(DESCRIPTIONS) == {v.name for v in VARIANTS}
    for name, words in DESCRIPTIONS.items():
        assert words["en"] and words["de"] and words["en"] != words["de"], name


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no guide"):
        rules_guide(Rules(), None, "fr")


# -- the API ---------------------------------------------------------------------


@pytest.fixture
def client() -> Iterator[TestClient]:
    with app_client() as test_client:
        yield test_client


def test_rules_of_a_variant_and_of_a_game(client: TestClient) -> None:
    signora = client.get("/api/rules", params={"variant": "signora"}, headers={"accept-language": "de"})
    assert signora.status_code == 200
    data = signora.json()
    assert data["title"] == "Terrace" and data["other_names"] == ["Queen of Italy", "Signora"]
    assert data["sections"][0]["title"] == "Das Ziel"
    assert client.get("/api/rules").json()["variant"] == "terrace"
    game = client.post("/api/games", json={"variant": "wood", "options": {"redeals": 1}}).json()
    rules = client.get(f"/api/games/{game['id']}/rules").json()
    assert rules["title"] == "Wood" and rules["custom"] is True
    assert "turned over into a new stock once." in text_of(rules, "spaces")


def test_unknown_variant_rules_are_refused(client: TestClient) -> None:
    response = client.get("/api/rules", params={"variant": "x" * 300})
    assert response.status_code == 400 and response.json()["code"] == "variant-unknown"
    assert client.get("/api/games/nope/rules").status_code == 404


def test_variants_carry_descriptions_in_both_languages(client: TestClient) -> None:
    variants = client.get("/api/variants").json()["variants"]
    for variant in variants:
        assert variant["descriptions"] == DESCRIPTIONS[variant["name"]]


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("reserve", [0, 1])
def test_one_or_none_is_said_as_such(language: str, reserve: int) -> None:
    """No '1 piles', '1 cards' or '0 cards ... only the end card'."""
    rules = Rules(decks=1, reserve=reserve, piles=1, candidates=0)
    guide = rules_guide(rules, None, language)
    words = " ".join(
        text for section in guide["sections"] for block in section["blocks"]
        for text in ([block["text"]] if block["kind"] == "p" else block["items"])
    )
    wrong = r"\b(1 (piles|cards|packs|Karten|Kartenspielen)|0 (cards|offene)|jeder der 1)\b"
    assert not re.search(wrong, words)


@pytest.mark.parametrize("language", ["en", "de"])
def test_no_terrace_and_one_candidate_are_said_as_such(language: str) -> None:
    """With no terrace the guide still advised reading it and playing its
    card, and one candidate was '1 candidate card lie in the first piles'."""
    rules = Rules(decks=1, reserve=0, piles=1, candidates=1)
    words = " ".join(
        text for section in rules_guide(rules, None, language)["sections"] for block in section["blocks"]
        for text in ([block["text"]] if block["kind"] == "p" else block["items"])
        if section["id"] not in ("goal", "layout")  # (the game's name; the layout says there is none)
    )
    assert not re.search(r"[Tt]errace|Terrass|1 candidate|1 Karte", words), words
    assert ("the only candidate" if language == "en" else "die einzige zur Wahl") in words


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("decks", [2, 4, 8])
def test_the_colour_tips_count_the_cards_the_packs_hold(language: str, decks: int) -> None:
    """Standard Terrace's strategy said "If both black nines are already on
    foundations" and its mistakes "Sending both cards of one colour and rank
    up": two packs hold four black nines (and the claim that the red eights
    then had no way up was untrue: a red eight goes up onto a black seven)."""
    words = text_of(rules_guide(Rules(decks=decks, reserve=11, piles=9, candidates=3), None, language))
    assert not re.search(r"\bboth (black|red|cards)|[Bb]eide (schwarzen|roten|Karten)", words), words
    seven = "on a foundation a red eight can follow only a black seven" if language == "en" else \
        "Auf einem Zielstapel kann eine rote Acht nur auf eine schwarze Sieben folgen"
    assert seven in words


def test_wrong_arguments_say_what_to_pass() -> None:
    """rules_guide("terrace", None) and rules_guide(None, None) raised
    AttributeError ('NoneType' object has no attribute 'decks'), and a
    variant's name where its record belongs "'str' object has no attribute
    'rules'"."""
    with pytest.raises(TypeError, match=r"rules must be a Rules \(for a preset: terrace.get_rules"):
        rules_guide("terrace", None)  # type: ignore[arg-type]
    assert rules_guide(None, None) == rules_guide(Rules(), None)  # type: ignore[arg-type]  # (as Board)
    with pytest.raises(TypeError, match=r"variant must be a Variant \(terrace.variants.get_variant"):
        rules_guide(get_rules("terrace"), "terrace")  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ["terrace", None])
def test_the_descriptions_of_no_variant_say_what_to_pass(variant: object) -> None:
    """descriptions("terrace") and descriptions(None) raised AttributeError
    ("'str' object has no attribute 'name'"), where rules_guide says what
    to pass."""
    with pytest.raises(TypeError, match=r"variant must be a Variant \(terrace.variants.get_variant"):
        descriptions(variant)  # type: ignore[arg-type]
    assert descriptions(get_variant("terrace")) == DESCRIPTIONS["terrace"]


@pytest.mark.parametrize(("language", "piles", "said"), [
    ("en", 9, "and each of the 9 piles, all empty now, gets a card from the stock"),
    ("de", 9, "und jeder der 9 Stapel, nun alle leer, bekommt eine Karte aus dem Vorrat"),
    ("en", 1, "and the empty pile gets a card from the stock"),
    ("de", 1, "und der leere Stapel bekommt eine Karte aus dem Vorrat"),
])
def test_one_candidate_among_many_piles_fills_every_pile(language: str, piles: int, said: str) -> None:
    """With one candidate and nine piles the guide said that after the
    choice "the empty pile gets a card from the stock", as if one pile were
    empty: the other eight are dealt only after the choice, so all nine are
    (the engine deals them all: see the test below it)."""
    rules = Rules(reserve=11, piles=piles, candidates=1)
    assert said in text_of(rules_guide(rules, None, language), "base")
    board = Board.from_number(1, rules)
    assert [len(pile) for pile in board.tableau] == [1] + [0] * (piles - 1)
    board.push_text("c1")
    assert [len(pile) for pile in board.tableau] == [1] * piles


@pytest.mark.parametrize(("language", "said"), [
    ("en", "Before the first move, a candidate card lies in each of the 10 piles."),
    ("de", "Vor dem ersten Zug liegt in jedem der 10 Stapel eine Karte zur Wahl."),
])
def test_a_candidate_in_every_pile_is_said_so(language: str, said: str) -> None:
    """Madame deals a candidate to each of its ten piles, and its guide said
    "10 candidate cards lie in the first piles", as if other piles followed."""
    rules = get_rules("madame")
    assert rules.candidates == rules.piles == 10
    assert text_of(rules_guide(rules, get_variant("madame"), language), "base").startswith(said)
    board = Board.from_number(1, rules)
    assert all(len(pile) == 1 for pile in board.tableau)


@pytest.mark.parametrize(("language", "said"), [
    ("en", "An empty pile takes only the waste card"),
    ("de", "Ein leerer Stapel nimmt nur die Karte vom Abwurfstapel"),
])
def test_the_strategy_for_waste_spaces_offers_only_the_waste_card(language: str, said: str) -> None:
    """Wood's strategy advised filling an empty pile "with a card that
    unblocks something, not the first card at hand", as free spaces allow;
    in Wood only the waste card may enter a space."""
    rules = get_rules("wood")
    assert rules.spaces is SpaceRule.WASTE
    words = text_of(rules_guide(rules, get_variant("wood"), language), "strategy")
    assert said in words and "unblocks something" not in words and "etwas frei macht" not in words
    free = text_of(rules_guide(get_rules("empress-of-italy"), None, language), "strategy")
    assert said not in free


@pytest.mark.parametrize(("language", "one", "two"), [
    ("en", "Building in suit leaves each card only one foundation, that of its own suit",
     "Building in suit leaves each card only the 2 foundations of its own suit"),
    ("de", "In Farbe gebaut passt jede Karte nur auf einen Zielstapel, den ihres Symbols",
     "In Farbe gebaut passt jede Karte nur auf die 2 Zielstapel ihres Symbols"),
])
def test_one_pack_in_suit_gives_each_card_one_foundation(language: str, one: str, two: str) -> None:
    """With one pack built in suit the strategy said "each card only the 1
    foundations of its own suit" ("nur auf die 1 Zielstapel")."""
    words = text_of(rules_guide(Rules(decks=1, foundations="suit"), None, language), "strategy")  # type: ignore[arg-type]
    assert one in words and not re.search(r"\b1 (foundations|Zielstapel)", words), words
    assert two in text_of(rules_guide(get_rules("generals-patience"), None, language), "strategy")


@pytest.mark.parametrize("promote", [True, False])
def test_the_german_guide_names_the_candidates_by_one_word(promote: bool) -> None:
    """The German rules call the candidates "Karten zur Wahl" (the layout,
    the choice, the option's other reading), but the sentence on the
    other candidates of the chosen rank said "Jeder weitere Kandidat
    desselben Werts", two sentences after "3 Karten zur Wahl"."""
    for variant in VARIANTS:
        rules = variant.rules.replace(promote_candidates=promote)
        text = text_of(rules_guide(rules, variant, "de"))
        assert "Kandidat" not in text, (variant.name, text)


def test_two_packs_and_a_terrace_of_two_are_counted_as_such() -> None:
    """Two decks are '2 packs shuffled together', a terrace of two cards a
    row of 2 (a mutation audit read 'one pack' and 'one face-up card' for
    them, and no test failed: only 1 and 3 or more were tried)."""
    guide = rules_guide(get_rules("terrace", decks=2, reserve=2), None, "en")
    assert "with 2 packs shuffled together" in text_of(guide, "goal")
    assert "2 cards in an overlapping row" in text_of(guide, "layout")
    one = rules_guide(get_rules("terrace", decks=1, reserve=1), None, "en")
    assert "with one pack" in text_of(one, "goal")
    assert "one face-up card, set aside" in text_of(one, "layout")


# Sentences that speak of cards drawn from the stock onto the waste (and
# of the waste card), in each language.
DRAWING = {
    "en": ["turned one at a time", "top waste card", "the waste card or", "turned over into a new stock",
           "only once: there is no redeal", "spending a draw", "turn the next card", "over a waste card"],
    "de": ["Karte für Karte", "oberste Karte des Abwurfstapels", "Karte vom Abwurfstapel", "umgedreht",
           "keinen neuen Durchgang", "nächste Karte aufdeckst", "über eine Karte des Abwurfstapels"],
}
NOTHING_DRAWN = {
    "turned-auto": Rules(decks=1, reserve=50, piles=1, candidates=0, redeals=9),
    "turned-free": Rules(decks=1, reserve=50, piles=1, candidates=0, spaces="free", redeals=9),
    "chosen-waste": Rules(decks=8, reserve=414, piles=1, candidates=1, spaces="waste",
                          foundation_return=True),
    "twenty-candidates": Rules(decks=1, reserve=31, piles=20, candidates=20, redeals=9),
    "three-candidates": Rules(decks=1, reserve=42, piles=9, candidates=3, spaces="free"),
}


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("name", list(NOTHING_DRAWN))
def test_rules_that_leave_no_card_to_draw_speak_of_no_stock_or_waste_card(name: str, language: str) -> None:
    """A reserve at its largest leaves the stock nothing once the layout is
    dealt, yet the rules said "the rest of the cards, face down, turned one
    at a time onto the waste", filled a space "with the top waste card",
    turned the waste over into a new stock nine times and advised thinking
    before turning the next card."""
    rules = NOTHING_DRAWN[name]
    board = Board.from_number(1, rules)
    if board.choosing:
        board.push_text("c1")
    assert rules.cards_to_draw == 0 and not board.stock and "s" not in map(str, board.legal_moves)
    words = text_of(rules_guide(rules, None, language))
    assert [said for said in DRAWING[language] if said in words] == []
    layout = text_of(rules_guide(rules, None, language), "layout")
    if not rules.picks_base:
        assert ("none in these rules" if language == "en" else "gibt es keine") in layout
    else:  # (the cards that fill the piles at the choice: as many as the deal leaves)
        count = len(Board.from_number(1, rules).stock)
        said = {"en": ("one face-down card", f"{count} face-down cards"),
                "de": ("eine verdeckte Karte", f"{count} verdeckte Karten")}[language][count > 1]
        assert said in layout and ("no card is ever turned" if language == "en" else "keine Karte wird je") \
            in layout, layout


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("rules", [
    Rules(decks=1, reserve=0, piles=1, candidates=0, spaces="free"),
    Rules(decks=1, reserve=0, piles=1, candidates=0, spaces="free", foundation_return=True),
    Rules(decks=1, reserve=50, piles=1, candidates=0, spaces="free", foundation_return=True),
], ids=["drawn", "drawn-returns", "nothing-drawn-returns"])
def test_free_spaces_of_a_single_pile_name_no_other_pile(rules: Rules, language: str) -> None:
    """With one pile the free space rule said "the waste card or the top
    card of another pile may fill it", and building "the top card of each
    pile may go to a foundation or onto a pile": there is no other pile.
    It names what the game has: the waste card while cards are drawn, a
    foundation's top card with foundation return."""
    every = text_of(rules_guide(rules, None, language))
    assert not re.search(r"another pile|each pile|anderen Stapel|jedes Stapels", every), every
    words = text_of(rules_guide(rules, None, language), "spaces")
    waste, foundation = {
        "en": ("the waste card", "the top card of a foundation"),
        "de": ("die Karte vom Abwurfstapel", "die oberste Karte eines Zielstapels"),
    }[language]
    assert (waste in words) == bool(rules.cards_to_draw) and (foundation in words) == rules.foundation_return
