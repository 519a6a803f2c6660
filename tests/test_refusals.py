"""Refusal codes: reasons as values, their words in English and German, and
the errors that carry them."""

from __future__ import annotations

import tracemalloc
from enum import StrEnum
from typing import Any

import pytest

from terrace.board import Board
from terrace.cards import parse_card
from terrace.errors import (
    IllegalMoveError,
    InvalidDealError,
    InvalidPositionError,
    InvalidRulesError,
    TerraceError,
)
from terrace.guide import _Words as Guide_words
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.refusals import MAX_QUOTE, WORDINGS, Reason, Refusal, Wording, add_wordings, clip, quote
from terrace.rules import Rules
from terrace.solver.budget import check_budget, check_nodes
from terrace.solver.options import Options
from terrace.solver.players import player_settings
from terrace.solver.survey import parse_range
from terrace.variants import get_rules
from terrace.web.i18n import WebRefusal


def test_reasons_are_values() -> None:
    a = Reason(Refusal.PILE_EMPTY, pile=3)
    assert a == Reason(Refusal.PILE_EMPTY, pile=3) and hash(a) == hash(Reason(Refusal.PILE_EMPTY, pile=3))
    assert a != Reason(Refusal.PILE_EMPTY, pile=4) and a != Reason(Refusal.WASTE_EMPTY)
    assert repr(a) == "Reason(Refusal.PILE_EMPTY, pile=3)"
    assert a.status == 422 and Reason(Refusal.CARD_UNREADABLE, text="x", ranks="", suits="").status == 400


def test_nested_reasons_render_and_serialise() -> None:
    inner = Reason(Refusal.MOVE_SYNTAX)
    outer = Reason(Refusal.MOVE_UNREADABLE, text="zz", problem=inner)
    assert str(outer) == "'zz' is not a move: write e.g. c1, s, wf, rf, t2t5, wt3 or t4f2"
    german = "„zz“ ist kein gültiger Zug: Schreibe z. B. c1, s, wf, rf, t2t5, wt3 oder t4f2."
    assert outer.text("de") == german
    assert outer.to_json() == {
        "code": "move-unreadable", "params": {"text": "zz", "problem": {"code": "move-syntax", "params": {}}}
    }


@pytest.mark.parametrize(
    ("params", "english", "german"),
    [
        ({"card": "TD", "top": "JS", "pile": 2, "colour": "red", "rank": "T"},
         "the 10♦ cannot go on the J♠ in pile 2: piles build down in alternating colours, "
         "so it takes only a red 10",
         "Die 10♦ passt nicht auf die B♠ in Stapel 2: Die Auslage wird abwärts in wechselnden Farben "
         "gebaut, hier passt nur eine rote 10."),
        ({"card": "QH", "top": "KC", "pile": 1, "colour": "black", "rank": "Q"},
         "the Q♥ cannot go on the K♣ in pile 1: piles build down in alternating colours, "
         "so it takes only a black Q",
         "Die D♥ passt nicht auf die K♣ in Stapel 1: Die Auslage wird abwärts in wechselnden Farben "
         "gebaut, hier passt nur eine schwarze Dame."),
    ],
)
def test_cards_ranks_and_colours_in_each_language(
    params: dict[str, str | int], english: str, german: str
) -> None:
    reason = Reason(Refusal.PILE_NEEDS, **params)
    assert (reason.text("en"), reason.text("de"), reason.text("fr")) == (english, german, english)


@pytest.mark.parametrize(("rank", "english"), [("8", "an 8"), ("A", "an A"), ("Q", "a Q"), ("7", "a 7")])
def test_articles(rank: str, english: str) -> None:
    reason = Reason(Refusal.FOUNDATION_NEEDS_BASE, foundation=1, rank=rank)
    assert str(reason) == f"foundation 1 is empty: only {english} can start it"


def test_places_lists_and_decks_in_words() -> None:
    odd = Reason(Refusal.POSITION_RUN_ODD, place="f3")
    assert str(odd) == "foundation 3: card codes are two characters each"
    assert Reason(Refusal.POSITION_RUN_ODD, place="r").text("de").startswith("die Terrasse:")
    one = Reason(Refusal.DEAL_CARD_COUNT, decks=1, cards=52, count=3)
    assert str(one) == "a deal for 1 deck has 52 cards, this one has 3"
    assert "mit 2 Kartenspielen" in Reason(Refusal.DEAL_CARD_COUNT, decks=2, cards=104, count=3).text("de")
    choice = Reason(Refusal.OPTION_NOT_CHOICE, option="spaces", choices=("auto", "free"), value="1")
    assert str(choice) == "spaces must be 'auto' or 'free', not 1"
    # German text names an option or a field by its identifier, in quotes:
    # "piles muss ..." read as a German sentence that had lost a word.
    piles = Reason(Refusal.OPTION_RANGE, option="piles", low=1, high=20, value=25)
    assert piles.text("de") == "„piles“ muss zwischen 1 und 20 liegen, angegeben war 25."


@pytest.mark.parametrize(("given", "english", "german"), [
    ({"spaces": -10**250},
     "spaces must be 'auto', 'free' or 'waste', not a negative number of about 251 digits",
     "„spaces“ muss „auto“, „free“ oder „waste“ sein, nicht eine negative Zahl mit etwa 251 Stellen."),
    ({"decks": 10**5000}, "decks must be between 1 and 8, not a number of about 5001 digits",
     "„decks“ muss zwischen 1 und 8 liegen, angegeben war eine Zahl mit etwa 5001 Stellen."),
    ({"piles": 1, "candidates": -10**300},
     "candidates must be between 0 and the number of piles (1), not a negative number of about 301 digits",
     "„candidates“ muss zwischen 0 und der Zahl der Stapel (1) liegen, angegeben war eine negative Zahl mit "
     "etwa 301 Stellen."),
], ids=["choice", "range", "candidates"])
def test_a_number_too_long_to_show_is_described_in_the_message_s_language(
        given: dict[str, int], english: str, german: str) -> None:
    """A rule option given a number too long to show: German said it in
    English ('nicht a number of about 251 digits', as the words were made
    when the refusal was), or ungrammatically ('nicht bei eine Zahl ...'),
    and neither language said that the number was negative."""
    import copy
    import pickle

    with pytest.raises(InvalidRulesError) as info:
        Rules.from_dict(given)
    reason = info.value.reason
    assert reason is not None
    for same in (reason, pickle.loads(pickle.dumps(reason)), copy.deepcopy(reason)):
        assert (str(same), same.text("de")) == (english, german)


def test_long_input_is_shortened() -> None:
    assert len(clip("x" * 10_000)) == MAX_QUOTE and clip("short") == "short"
    assert quote("x" * 10_000).startswith("'xxx") and len(quote("x" * 10_000)) == MAX_QUOTE
    with pytest.raises(InvalidDealError) as info:
        Board.from_deal_text("Q" * 1_000_000)
    assert len(str(info.value)) < 400


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_huge_number_is_shortened_like_any_input(language: str) -> None:
    reason = Reason(Refusal.OPTION_RANGE, option="decks", low=1, high=8, value=10**3000)
    assert len(reason.text(language)) < MAX_QUOTE + 100
    assert "3001" in reason.text(language) and "not 9" in Reason(
        Refusal.OPTION_RANGE, option="decks", low=1, high=8, value=9).text("en")


def test_errors_carry_reasons() -> None:
    board = Board.from_number(1)
    with pytest.raises(IllegalMoveError) as info:
        board.push(Move.parse("s"))
    error = info.value
    assert error.code is Refusal.CHOOSE_FIRST and error.move == "s"
    assert str(error) == "s: choose a base card first (c1 to c3)"
    assert error.text("de") == "Wähle zuerst eine Basiskarte (c1 bis c3)."
    assert error.why == board.refusal(Move.parse("s"))
    plain = TerraceError("the disk is full")
    assert (plain.code, plain.reason) == (None, None)
    assert plain.text("de") == plain.why == "the disk is full"


def test_a_refused_push_words_its_reason_only_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move refused by ``push`` is worded when its message is read:
    wording each refusal at once was half the CPU time of a test pushing
    every move in every position (0.1 ms a refusal). Read, picked or
    pickled, the error says what it said."""
    import pickle

    worded: list[str] = []
    text = Reason.text

    def counted(self: Reason, language: str = "en") -> str:
        worded.append(language)
        return text(self, language)

    monkeypatch.setattr(Reason, "text", counted)
    board = Board.from_number(1)
    for _ in range(3):
        with pytest.raises(IllegalMoveError) as info:
            board.push(Move.parse("t1f"))
    assert worded == []
    error = info.value
    assert str(error) == "t1f: choose a base card first (c1 to c3)" and worded == ["en"]
    assert error.text("de") == "Wähle zuerst eine Basiskarte (c1 bis c3)."
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.move, again.code) == (str(error), "t1f", error.code)
    assert again.text("de") == error.text("de")
    plain = IllegalMoveError("no such move here")
    assert (str(plain), plain.reason, plain.move) == ("no such move here", None, None)
    assert plain.why == "no such move here"
    assert str(IllegalMoveError("no such move here", move="t9")) == "t9: no such move here"


def test_other_layers_add_their_codes() -> None:
    class Extra(StrEnum):
        ONE = "extra-one"
        TWO = "extra-two"

    with pytest.raises(ValueError, match="extra-two"):
        add_wordings(Extra, {Extra.ONE: Wording(400, "one", "eins")})
    two = Wording(409, "{n} two", "{n} zwei")
    add_wordings(Extra, {Extra.ONE: Wording(400, "one", "eins"), Extra.TWO: two})
    reason = Reason(Extra.TWO, n=2)
    assert (str(reason), reason.text("de"), reason.status) == ("2 two", "2 zwei", 409)


def test_every_engine_code_is_worded() -> None:
    assert set(WORDINGS) == set(Refusal)


def test_an_empty_list_reads_as_none() -> None:
    reason = Reason(WebRefusal.FIELD_UNKNOWN, field="x", expected=())
    assert reason.text("en") == "unknown field 'x'; expected none"
    assert reason.text("de").endswith("erwartet: keines.")


@pytest.mark.parametrize("build", [
    lambda: Rules(decks=10**5000),
    lambda: Board.from_number(10**5000),
    lambda: GameRecord.from_dict({"format": "terrace-game", "version": 10**5000}),
    lambda: Rules.from_dict({1: 2}),
    lambda: get_rules(None),  # type: ignore[arg-type]
    lambda: get_rules(b"terrace"),  # type: ignore[arg-type]
    lambda: parse_card(None),  # type: ignore[arg-type]
    lambda: parse_card("A\u017f"),  # 'ſ'.upper() is 'S'
    lambda: Board.from_number(1).push(Move("c", 10**1000)),
    lambda: Board.from_position("? - - " + "," * 10_000_000 + " - - 0"),  # at once, not after 10 M piles
    lambda: Board.from_position("? - " + "," * 10_000_000 + " - - - 0"),
])
def test_any_value_gets_a_coded_refusal_of_a_few_hundred_characters(build: Any) -> None:
    with pytest.raises(TerraceError) as info:
        build()
    assert len(str(info.value)) < 3 * MAX_QUOTE


@pytest.mark.parametrize("mark", ["\u202e", "\u202a", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069",
                                  "\u200e", "\u200f", "\u061c"])
def test_a_quoted_input_cannot_reorder_the_message_around_it(mark: str) -> None:
    """A move or a file name holding U+202E (right-to-left override) was
    repeated as it was: a terminal or page then showed the rest of the
    message reversed ("Trojan source"), so the message read otherwise than
    it said. Direction marks are written as escapes, as control characters are."""
    from terrace.errors import InvalidMoveError
    from terrace.moves import Move

    with pytest.raises(InvalidMoveError) as caught:
        Move.parse(f"t1{mark}f2t")
    assert mark not in str(caught.value) and mark not in caught.value.text("de")
    assert mark.encode("unicode_escape").decode("ascii") in str(caught.value)


_HUGE_TEXT = "x" * 10**6
_HUGE_LIST = list(range(10**5))


@pytest.mark.parametrize("build", [
    lambda: check_budget(_HUGE_TEXT),  # type: ignore[arg-type]
    lambda: check_budget(_HUGE_LIST),  # type: ignore[arg-type]
    lambda: check_nodes(_HUGE_TEXT),  # type: ignore[arg-type]
    lambda: parse_range(_HUGE_TEXT),
    lambda: player_settings(_HUGE_TEXT),
    lambda: player_settings("greedy", {str(i): i for i in range(10**5)}),
    lambda: player_settings("fair", {_HUGE_TEXT: 1}),
    lambda: player_settings("fair", {"samples": _HUGE_LIST}),
    lambda: player_settings("fair", {"seconds": _HUGE_TEXT}),
    lambda: player_settings("fair", {"reuse": _HUGE_TEXT}),
    lambda: Options(order=_HUGE_TEXT),
    lambda: Options(reserve_weight=_HUGE_TEXT),  # type: ignore[arg-type]
    lambda: Guide_words(_HUGE_TEXT),
])
def test_a_refusal_quoting_a_huge_value_stays_short(build: Any) -> None:
    """check_budget, parse_range, player_settings, the fair player's
    settings, the solver's options and the guide repeated a refused value
    whole: a 1 MB text gave a 1 MB message (and a settings object of
    100,000 keys listed them all)."""
    with pytest.raises(ValueError) as info:
        build()
    assert len(str(info.value)) < 3 * MAX_QUOTE


class _NoRepr:
    """A value whose ``repr`` fails."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(("value", "shown"), [
    (_NoRepr(), "<_NoRepr>"),
    ([10**5000], "<list"),
    ([_NoRepr()], "<list>"),
    (list(range(10**6)), "[0, 1, 2, 3, 4, 5, 6"),
    (set(range(10**6)), "{0, 1, 2, 3, 4, 5, 6"),
    (dict.fromkeys(range(10**6), 0), "{0: 0, 1: 0, 2: 0"),
    (b"\0" * 10**7, "b'\\x00\\x00"),
    (bytearray(10**7), "b'\\x00\\x00"),
])
def test_a_value_that_repr_cannot_show_or_shows_at_length_is_quoted_short_and_cheaply(
        value: object, shown: str) -> None:
    """quote() wrote every value but text and numbers with repr, and clipped
    it afterwards: Rules(decks=x) for an x whose repr fails raised that
    failure (RuntimeError), for [10**5000] a plain ValueError ('Exceeds the
    limit (4300 digits) for integer string conversion ...'), and 10 MB of
    bytes made a 40 MB repr (a list of a million numbers a 7 MB one) to
    show 200 characters of it."""
    tracemalloc.start()
    try:
        with pytest.raises(InvalidRulesError) as info:
            Rules(decks=value)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(info.value).startswith(f"decks must be a whole number, not {shown}"), str(info.value)
    assert len(str(info.value)) < 3 * MAX_QUOTE and peak < 100_000, peak


def _record_with_move(move: str) -> dict[str, Any]:
    return {"format": "terrace-game", "version": 1, "variant": "terrace", "rules": {}, "deal_number": 1,
            "deal_version": 1, "deal": Board.from_number(1).deal.text(), "moves": [move], "result": "playing"}


@pytest.mark.parametrize("build", [
    lambda: Move.parse("t\tf"),
    lambda: parse_card("A\tZ"),
    lambda: get_rules("ter\trace"),
    lambda: Rules().replace(**{"de\tcks": 2}),
    lambda: GameRecord.from_dict(_record_with_move("w\tf")),
    lambda: parse_range("1\t-x"),
    lambda: player_settings("fa\tir"),
    lambda: Options(order="de\tep"),
])
@pytest.mark.parametrize("language", ["en", "de"])
def test_a_control_character_in_a_quoted_input_is_escaped_once(build: Any, language: str) -> None:
    r"""A tab in a bad move showed as '\\t' (the reason held the text with
    its tab already escaped, and the template's !r escaped that backslash
    again): the player read two backslashes where one meant a tab."""
    with pytest.raises(ValueError) as info:
        build()
    error = info.value
    message = error.reason.text(language) if isinstance(error, TerraceError) else str(error)
    assert "\\t" in message and "\\\\" not in message and "\t" not in message, message


@pytest.mark.parametrize(("candidates", "choose_en", "range_en", "choose_de", "range_de"), [
    (1, "choose a base card first (c1)", "this game has only one candidate (c1)",
     "Wähle zuerst eine Basiskarte (c1).", "Dieses Spiel hat nur eine Karte zur Wahl (c1)."),
    (3, "choose a base card first (c1 to c3)", "this game has only 3 candidates (c1 to c3)",
     "Wähle zuerst eine Basiskarte (c1 bis c3).", "Dieses Spiel hat nur 3 Karten zur Wahl (c1 bis c3)."),
])
def test_the_candidates_are_counted_in_good_words(
        candidates: int, choose_en: str, range_en: str, choose_de: str, range_de: str) -> None:
    """With a single candidate (``--candidates 1``) a move before the choice
    was refused with "choose a base card first (c1 to c1)" and a c2 with
    "there are only 1 candidates (c1 to c1)" (German "Es gibt nur 1 Karten
    zur Wahl", and "(1 bis 1)", the moves without their c)."""
    board = Board.from_number(1, Rules(candidates=candidates))
    for move, english, german in (("s", choose_en, choose_de), ("c9", range_en, range_de)):
        reason = board.refusal(Move.parse(move))
        assert reason is not None
        assert (reason.text("en"), reason.text("de")) == (english, german)


def test_one_pile_one_redeal_one_reserve_card_are_counted_in_the_singular() -> None:
    """Rules at the low ends of their options were answered in the plural:
    "there is no pile 2 (piles run from 1 to 1)", "these rules have 1 piles",
    "these rules allow 1 redeals, not 2", "the reserve holds at most 1 cards"
    (German "erlauben 1 neue Durchgänge", "höchstens 1 Karten")."""
    rules = Rules(decks=1, reserve=1, piles=1, candidates=0, redeals=1)
    board = Board.from_number(1, rules)
    reason = board.refusal(Move.parse("t1t2"))
    assert reason is not None
    assert (reason.text("en"), reason.text("de")) == ("there is no pile 2 (the only pile is pile 1)",
                                                      "Es gibt keinen Stapel 2 (nur Stapel 1).")
    fields = board.position().split()
    wrong = {
        "piles": " ".join([*fields[:3], fields[3] + ",", *fields[4:]]),
        "redeals": " ".join([*fields[:6], "2"]),
        "reserve": " ".join([fields[0], fields[1] + fields[5][:2], *fields[2:5], fields[5][2:], fields[6]]),
    }
    said = {}
    for name, text in wrong.items():
        with pytest.raises(InvalidPositionError) as info:
            Board.from_position(text, rules)
        said[name] = (str(info.value), info.value.text("de"))
    assert said == {
        "piles": ("these rules have 1 pile, the position has 2",
                  "Diese Regeln haben 1 Stapel, die Stellung hat 2."),
        "redeals": ("these rules allow 1 redeal, not 2", "Diese Regeln erlauben 1 neuen Durchgang, nicht 2."),
        "reserve": ("the reserve holds at most 1 card", "Die Terrasse hat höchstens 1 Karte."),
    }
    nine = Board.from_number(1, Rules(redeals=3))
    nine.push(Move.parse("c1"))
    reason = nine.refusal(Move.parse("t1t10"))
    assert reason is not None and str(reason) == "there is no pile 10 (piles run from 1 to 9)"
    assert reason.text("de") == "Es gibt keinen Stapel 10 (nur 1 bis 9)."
    fields = nine.position().split()
    with pytest.raises(InvalidPositionError) as info:
        Board.from_position(" ".join([*fields[:6], "4"]), Rules(redeals=3))
    assert (str(info.value), info.value.text("de")) == (
        "these rules allow 3 redeals, not 4", "Diese Regeln erlauben 3 neue Durchgänge, nicht 4.")
