"""Cards: codes, ranks, suits, colours and the pack order."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

import terrace.cards
from terrace.cards import (
    CODE,
    RANKS,
    SUITS,
    card_code,
    card_name,
    card_symbol,
    format_cards,
    full_pack,
    is_red,
    make_card,
    parse_card,
    parse_rank,
    rank_code,
    rank_of,
    suit_of,
    word_count,
)
from terrace.errors import InvalidCardError, InvalidRulesError
from terrace.refusals import Refusal
from terrace.symbols import SPACES


def test_card_is_rank_times_four_plus_suit() -> None:
    for rank in range(13):
        for suit in range(4):
            card = make_card(rank, suit)
            assert card == rank * 4 + suit
            assert (rank_of(card), suit_of(card)) == (rank, suit)
            assert card_code(card) == RANKS[rank] + SUITS[suit]


@pytest.mark.parametrize("text", ["TD", "td", "10D", "10d", " 10D ", "Td"])
def test_ten_is_written_t_or_10(text: str) -> None:
    assert card_code(parse_card(text)) == "TD"


def test_every_code_round_trips() -> None:
    assert [parse_card(code) for code in CODE] == list(range(52))


@pytest.mark.parametrize("text", ["", "1D", "11S", "ZZ", "AX", "A", "KSS", "10", "XD"])
def test_unreadable_cards_raise_a_clear_error(text: str) -> None:
    with pytest.raises(InvalidCardError, match="is not a card") as info:
        parse_card(text)
    assert "e.g. 7H or TD" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_colours() -> None:
    assert [is_red(parse_card(c)) for c in ("AS", "AH", "AD", "AC")] == [False, True, True, False]


def test_symbols_and_names() -> None:
    assert card_symbol(parse_card("TD")) == "10♦"
    assert card_symbol(parse_card("AS")) == "A♠"
    assert card_name(parse_card("JH")) == "jack of hearts"
    assert card_name(parse_card("2C")) == "two of clubs"


def test_ranks() -> None:
    assert parse_rank("10") == parse_rank("t") == 9
    assert parse_rank("K") == 12
    assert rank_code(0) == "A"
    with pytest.raises(InvalidCardError):
        parse_rank("1")
    with pytest.raises(InvalidCardError):
        parse_rank("KQ")


def test_make_card_out_of_range() -> None:
    with pytest.raises(InvalidCardError):
        make_card(13, 0)
    with pytest.raises(InvalidCardError):
        make_card(0, 4)


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_full_pack_holds_each_card_once_per_deck(decks: int) -> None:
    pack = full_pack(decks)
    assert len(pack) == 52 * decks
    assert Counter(pack) == {card: decks for card in range(52)}


def test_full_pack_order_is_suit_by_suit_ace_to_king() -> None:
    pack = full_pack(2)
    assert format_cards(pack[:14]) == "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH"
    assert format_cards(pack[50:54]) == "QC KC AS 2S"


@given(st.text(alphabet=st.sampled_from(["A", "S", "7", " ", "\t", "\n", "\u3000", "\u200b"]), max_size=60))
def test_word_count_counts_as_split_does(text: str) -> None:
    """Slices of 4 characters: words across slice borders are counted once."""
    chunk = terrace.cards.WORD_CHUNK
    terrace.cards.WORD_CHUNK = 4
    try:
        assert word_count(text) == len(text.split())
    finally:
        terrace.cards.WORD_CHUNK = chunk


@given(st.text(alphabet=st.sampled_from(["A", "S", " ", "\t", "\n", "\x1c", "\u3000", "\xa0"]), max_size=60))
def test_word_count_of_ascii_spaced_words_counts_as_a_position_splits(text: str) -> None:
    """With SPACES, word_count counts the words a position's reader sees:
    U+3000, U+00A0 and U+001C are part of a word (it counted them as gaps,
    and the refusal of a position with one field too many said two)."""
    chunk = terrace.cards.WORD_CHUNK
    terrace.cards.WORD_CHUNK = 4
    try:
        assert word_count(text, SPACES) == len([w for w in re.split("[ \t\n\r\v\f]+", text) if w])
    finally:
        terrace.cards.WORD_CHUNK = chunk


@pytest.mark.parametrize("rank, suit", [(1.5, 0), (1.0, 0), (True, 0), (0, False), ("1", 0), (0, None),
                                        (-1, 0)])
def test_make_card_refuses_what_is_no_rank_or_suit(rank: object, suit: object) -> None:
    """make_card(1.5, 0) gave the "card" 6.0 and make_card(True, 0) the
    card 4; make_card("1", 0) raised a bare TypeError."""
    with pytest.raises(InvalidCardError, match="no card has rank"):
        make_card(rank, suit)  # type: ignore[arg-type]


def test_make_card_takes_any_whole_number_type_and_gives_a_plain_int() -> None:
    np = pytest.importorskip("numpy")
    card = make_card(np.int64(9), np.int64(2))
    assert type(card) is int and card_code(card) == "TD"


@pytest.mark.parametrize("helper", [card_code, card_name, card_symbol, rank_of, suit_of, is_red])
@pytest.mark.parametrize("card", [-1, -52, 52, 2**70, 1.0, "AS", None, True])
def test_card_helpers_refuse_what_is_no_card(helper: object, card: object) -> None:
    """card_code(-1) was 'KC' and rank_of(-1) the rank of a king (Python
    counts -1 from the end of the tables); card_code(52) raised IndexError
    and card_code(1.0) a TypeError."""
    assert callable(helper)
    with pytest.raises(InvalidCardError, match="is not a card: a card is a whole number from 0 to 51"):
        helper(card)


@pytest.mark.parametrize("card", [-1, -52, 52, 2**70, 1.0, "AS", None, True])
def test_a_list_of_cards_is_written_only_of_cards(card: object) -> None:
    """format_cards([0, -1]) wrote 'AS KC' (Python counts -1 from the end of
    the table), 52 raised IndexError and 1.0 TypeError: so did the text of a
    deal made of them, Deal((-1,) * 104).text() being 104 kings of clubs."""
    from terrace.deal import Deal

    for write in (lambda: format_cards([0, card]), lambda: Deal((0, card)).text()):  # type: ignore[list-item]
        with pytest.raises(InvalidCardError, match="is not a card: a card is a whole number from 0 to 51"):
            write()
    assert format_cards([0, 38]) == "AS TD"


@pytest.mark.parametrize("rank", [-1, 13, 1.0, "A", None, True])
def test_rank_code_refuses_what_is_no_rank(rank: object) -> None:
    """rank_code(-1) was 'K' and rank_code(13) raised IndexError; then
    rank_code(13) said "'13' is not a rank: use one of A23456789TJQK", as if
    the text '13' had been given for a letter."""
    with pytest.raises(InvalidCardError, match=r"is not a rank: a rank is a whole number from 0") as info:
        rank_code(rank)  # type: ignore[arg-type]
    assert info.value.code is Refusal.RANK_NOT_A_RANK
    with pytest.raises(InvalidCardError) as info:
        rank_code(13)
    assert str(info.value) == "13 is not a rank: a rank is a whole number from 0 (ace) to 12 (king)"


@pytest.mark.parametrize(("value", "shown"), [(7, "7"), (None, "null"), (b"7", "b'7'"), (["7"], "['7']")])
def test_parse_rank_refuses_what_is_no_text(value: object, shown: str) -> None:
    """parse_rank(7) raised AttributeError ('int' object has no attribute
    'strip'); then it said "'7' is not a rank: use one of A23456789TJQK",
    though '7' is one: the number 7 is no text."""
    with pytest.raises(InvalidCardError) as info:
        parse_rank(value)  # type: ignore[arg-type]
    assert str(info.value) == f"a rank must be text such as 'T' or '10', not {shown}"
    assert info.value.code is Refusal.RANK_NOT_TEXT and "„" in info.value.text("de")


@pytest.mark.parametrize(("value", "shown"), [(38, "38"), (None, "null"), (b"AS", "b'AS'"), (True, "true")])
def test_parse_card_refuses_what_is_no_text(value: object, shown: str) -> None:
    """parse_card(None) said "'null' is not a card" and parse_card(b'AS'),
    "'b'AS'' is not a card": text quoted that nobody gave."""
    with pytest.raises(InvalidCardError) as info:
        parse_card(value)  # type: ignore[arg-type]
    assert str(info.value) == f"a card code must be text such as 'TD', not {shown}"
    assert info.value.code is Refusal.CARD_NOT_TEXT and "„" in info.value.text("de")


def test_card_helpers_take_numpy_cards() -> None:
    np = pytest.importorskip("numpy")
    card = np.int64(38)
    assert (card_code(card), card_name(card), card_symbol(card)) == ("TD", "ten of diamonds", "10♦")
    assert (rank_of(card), suit_of(card), is_red(card)) == (9, 2, True)


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u2028", "\u0085", "\x1c"])
def test_a_card_or_a_rank_skips_only_ascii_spaces_around_it(space: str) -> None:
    """parse_card stripped any Unicode space before its ASCII check, so
    parse_card('\\xa0AS') was refused as "'AS' is not a card", quoting a
    card; and parse_rank('\\xa010') was read as a ten, where a move, a
    position and a card take ASCII white space only. Another space is part
    of the text: refused, and shown in the refusal."""
    for text in (f"{space}AS", f"AS{space}"):
        with pytest.raises(InvalidCardError) as info:
            parse_card(text)
        assert info.value.code is Refusal.CARD_UNREADABLE
        assert str(info.value).startswith(repr(text) + " is not a card")
    with pytest.raises(InvalidCardError) as info:
        parse_rank(f"{space}10")
    assert info.value.code is Refusal.RANK_UNREADABLE
    assert parse_card(" \tAS\r\n") == 0 and parse_rank("\v10\f ") == 9  # (ASCII white space is skipped)


@pytest.mark.parametrize("decks", [0, -1, 9, 2**70, True, 2.0, "2", None])
def test_full_pack_takes_only_a_number_of_decks_the_rules_allow(decks: object) -> None:
    """full_pack(-1) and full_pack(0) gave an empty pack, full_pack(True)
    one deck, full_pack(2.0) a bare TypeError, and full_pack(2**70) tried
    to build a list of 2**70 * 52 cards: it checks decks as Rules does."""
    with pytest.raises(InvalidRulesError, match=r"^decks must be"):
        full_pack(decks)  # type: ignore[arg-type]


def test_full_pack_takes_any_whole_number_type_of_decks() -> None:
    np = pytest.importorskip("numpy")
    assert full_pack(np.int64(2)) == full_pack(2) and len(full_pack(8)) == 416
