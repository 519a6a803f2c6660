"""Cards: codes, ranks, suits, colours and the pack order."""

from __future__ import annotations

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
from terrace.errors import InvalidCardError


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
