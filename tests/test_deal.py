"""Deal strings and deals by number."""

from __future__ import annotations

import hashlib
import time
import tracemalloc

import pytest

from conftest import cards, deal_text, heap_of_this_test_alone
from terrace.board import Board
from terrace.cards import CODE, full_pack, parse_card
from terrace.deal import COUNTED_WORDS, DEAL_VERSION, MAX_DEAL_NUMBER, Deal, SplitMix64, shuffled_pack
from terrace.errors import InvalidDealError, InvalidRulesError
from terrace.refusals import Refusal
from terrace.rules import RULE_OPTIONS, Rules
from terrace.variants import PRESETS, get_rules

# Pinned deals: if one of these changes, every saved numbered game breaks.
DEAL_1_TWO_DECKS = (
    "6D 7D JS 8S KC 7H 6C 8S 6S 9S 5S TD KH JD AD QC TC 4H 3S 4S JS 9C JC KS 5C 3C 7C AS 8C 9S "
    "8H 9H QH 3H 6S 7H AC AH AC 6H 6D KD 3D KS JC TH 5C 5H 2H 3C 2S 8D 7S 4C 8D 2D JD 2C 9D 2S "
    "5S 9C 5D 7S 3S 6C 2C AD TD 4C 9D QD 4S 4H QC QD 2D 9H 4D QS KC TS 7D 6H 5H 5D AH TC 2H KD "
    "QH 3D 8C QS 3H 8H TH KH JH TS JH AS 4D 7C"
)
DEAL_0_ONE_DECK = (
    "8C JD 9S 2C 2H QH 6C TS 3H AS JS 7S 9D 8S QC KD 5D 2S 3D 5S AD 6S 4C TH 5H 8D 8H AH QD TC "
    "QS JH 3C 4H 2D 9H 3S KH AC 7C 9C 7H JC 6D KC 4S 7D 5C 6H 4D KS TD"
)
DEAL_MAX_ONE_DECK = (
    "5S JS 8D AD TH 9D 2S TS 8C QD 3D 3S TC QS 8H AC 2H 7H 7D JC KD 3H 9C QH KS JD 7S 5H 6H 9H "
    "AH 6C 6S 2C 4C 9S 5C 6D TD 4H AS 7C 8S KH 3C 4D JH 2D 4S QC 5D KC"
)
PINNED_HASHES = {
    (7, 3): "fad331c6ae3b90118a5d1c70410fbd32d70037245c91115b9b202b446c8f5e2d",
    (12345, 4): "cb03d6c94a86e527019ac657f47276212575a0e517ed19bd78c3c098a9b24ea1",
}


def test_deal_version_is_one() -> None:
    assert DEAL_VERSION == 1


def test_splitmix64_reference_outputs() -> None:
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F,
    ]
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(2)] == [6457827717110365317, 3203168211198807973]


def test_pinned_deals() -> None:
    assert Deal.from_number(1, Rules()).text() == DEAL_1_TWO_DECKS
    one = Rules(decks=1, reserve=0, piles=1, candidates=0)
    assert Deal.from_number(0, one).text() == DEAL_0_ONE_DECK
    assert Deal.from_number(MAX_DEAL_NUMBER, one).text() == DEAL_MAX_ONE_DECK
    for (number, decks), digest in PINNED_HASHES.items():
        text = Deal.from_number(number, Rules(decks=decks, reserve=0, piles=1, candidates=0)).text()
        assert hashlib.sha256(text.encode()).hexdigest() == digest


def _reference_shuffle(number: int, decks: int) -> list[str]:
    """The shuffle as docs/notation.md describes it, written out again."""
    mask = 2**64 - 1
    state = number

    def next64() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    pack = [rank + suit for _ in range(decks) for suit in "SHDC" for rank in "A23456789TJQK"]
    for i in range(len(pack) - 1, 0, -1):
        bound = i + 1
        while True:
            value = next64()
            if value < 2**64 - 2**64 % bound:
                break
        j = value % bound
        pack[i], pack[j] = pack[j], pack[i]
    return pack


@pytest.mark.parametrize(("number", "decks"), [(0, 1), (1, 2), (99, 2), (2**40 + 3, 3), (MAX_DEAL_NUMBER, 4)])
def test_shuffle_matches_the_documented_algorithm(number: int, decks: int) -> None:
    assert [CODE[c] for c in shuffled_pack(number, decks)] == _reference_shuffle(number, decks)


def test_same_number_same_deal_and_different_numbers_differ() -> None:
    rules = Rules()
    assert Deal.from_number(5, rules) == Deal.from_number(5, rules)
    assert len({Deal.from_number(n, rules).cards for n in range(20)}) == 20


def test_deal_depends_only_on_the_decks() -> None:
    assert Deal.from_number(3, get_rules("terrace")).cards == Deal.from_number(3, get_rules("wood")).cards


@pytest.mark.parametrize("number", [-1, MAX_DEAL_NUMBER + 1, 2**64])
def test_numbers_out_of_range_are_refused(number: int) -> None:
    with pytest.raises(InvalidDealError, match=f"deal numbers run from 0 to {MAX_DEAL_NUMBER}, not "):
        Deal.from_number(number, Rules())


@pytest.mark.parametrize("number", [True, 1.0, "1", None])
def test_numbers_must_be_whole(number: object) -> None:
    with pytest.raises(InvalidDealError, match="a deal number must be a whole number"):
        Deal.from_number(number, Rules())  # type: ignore[arg-type]


def test_unknown_shuffle_version_is_refused() -> None:
    with pytest.raises(InvalidDealError, match="deal version 2 is not known"):
        shuffled_pack(1, 2, version=2)


@pytest.mark.parametrize(("decks", "said"), [
    (0, "decks must be between 1 and 8, not 0"),
    (9, "decks must be between 1 and 8, not 9"),
    (10**9, "decks must be between 1 and 8, not 1000000000"),
    (10**30, "decks must be between 1 and 8, not 1000000000000000000000000000000"),
    (True, "decks must be a whole number, not true"),
    (2.0, "decks must be a whole number, not 2.0"),
])
def test_the_pack_of_a_deal_has_as_many_decks_as_rules_may(decks: object, said: str) -> None:
    """shuffled_pack (the documented shuffle) took any number of decks: 0
    gave an empty pack, True one deck, 9 a pack no rules play, 10**9 ran
    out of memory building 52 billion cards and 10**30 raised
    OverflowError. The decks are checked by the rule option's own limits."""
    with pytest.raises(InvalidRulesError, match=said):
        shuffled_pack(1, decks)  # type: ignore[arg-type]
    assert len(shuffled_pack(1, RULE_OPTIONS["decks"].largest())) == 8 * 52


def test_below_is_in_range() -> None:
    rng = SplitMix64(3)
    values = [rng.below(7) for _ in range(700)]
    assert set(values) == set(range(7))
    assert SplitMix64(3).below(1) == 0


@pytest.mark.parametrize("name", list(PRESETS))
def test_numbered_deals_hold_the_full_pack(name: str) -> None:
    rules = get_rules(name)
    deal = Deal.from_number(11, rules)
    assert sorted(deal.cards) == sorted(full_pack(rules.decks))
    deal.check(rules)


# -- deal strings ------------------------------------------------------------

def test_parse_round_trip_and_ten_spelling() -> None:
    text = DEAL_1_TWO_DECKS
    assert Deal.parse(text, Rules()).text() == text
    spelled = text.replace("T", "10").lower().replace(" ", "\n  ", 3)
    assert Deal.parse(spelled, Rules()).text() == text
    assert Deal.parse(text, Rules()).number is None


def test_wrong_card_count_is_refused() -> None:
    short = DEAL_1_TWO_DECKS.rsplit(" ", 1)[0]
    with pytest.raises(InvalidDealError, match="a deal for 2 decks has 104 cards, this one has 103"):
        Deal.parse(short, Rules())
    with pytest.raises(InvalidDealError, match="this one has 105"):
        Deal.parse(DEAL_1_TWO_DECKS + " AS", Rules())
    with pytest.raises(InvalidDealError, match="a deal for 1 deck has 52 cards"):
        Deal.parse(DEAL_1_TWO_DECKS, Rules(decks=1, reserve=0, piles=1, candidates=0))


def test_a_huge_deal_string_is_counted_only_so_far_and_not_split() -> None:
    """A text far longer than any deal is refused with its card count up
    to COUNTED_WORDS, and beyond as having more: without a list of all its
    words or a parse of every one (a 100 MB text took half a minute and 3
    GB), and without counting every word (5 s at 100 MB; 33 million words)."""
    with pytest.raises(InvalidDealError, match=r"a deal for 2 decks has 104 cards, this one has 10000$"):
        Deal.parse("AS " * COUNTED_WORDS, Rules())
    text = "AS " * 3_000_000
    tracemalloc.start()
    try:
        with heap_of_this_test_alone(), pytest.raises(InvalidDealError) as refused:
            began = time.process_time()
            Deal.parse(text, Rules())
        took = time.process_time() - began
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(refused.value) == f"a deal for 2 decks has 104 cards, this one has more than {COUNTED_WORDS}"
    assert refused.value.code is Refusal.DEAL_CARDS_MANY
    assert "dieses hat mehr als 10000" in refused.value.text("de")
    assert peak < len(text) and took < 0.1  # (counting it whole: 0.45 s)


def test_wrong_copies_are_refused() -> None:
    text = DEAL_1_TWO_DECKS.replace("7C", "7H", 1)  # one 7C becomes a third 7H
    with pytest.raises(InvalidDealError, match="the deal has 3 of 7H; 2 decks have 2"):
        Deal.parse(text, Rules())


def test_unknown_card_names_its_place() -> None:
    text = DEAL_1_TWO_DECKS.replace("JS", "XS", 1)
    with pytest.raises(InvalidDealError, match=r"card 3 of the deal: 'XS' is not a card"):
        Deal.parse(text, Rules())


def test_deal_must_be_text() -> None:
    with pytest.raises(InvalidDealError, match="a deal must be a string"):
        Deal.parse(None, Rules())  # type: ignore[arg-type]


def test_deal_with_a_false_number_is_refused() -> None:
    deal = Deal(Deal.from_number(1, Rules()).cards, 2)
    with pytest.raises(InvalidDealError, match="these cards are not deal number 2"):
        deal.check(Rules())


# -- the order of a deal string ---------------------------------------------------

RESERVE = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"


def test_pick_deal_order_reserve_candidates_fills_stock() -> None:
    rules = Rules()  # 11 reserve, 9 piles, 3 candidates
    text = deal_text(rules, RESERVE + " 7S JH 6D  2H 3H 4H 5H 6H 7H 8H  9H TH")
    board = Board.from_deal_text(text, rules)
    assert board.reserve == cards(RESERVE)  # deepest first
    assert board.reserve[-1] == cards("3S")[0]  # the exposed card is dealt last
    assert board.tableau == [cards("7S"), cards("JH"), cards("6D")] + [[]] * 6
    board.push_text("c2")
    # The fill cards go to the empty piles in pile order: pile 2, then 4..9.
    assert board.tableau == [[c] for c in cards("7S 2H 6D 3H 4H 5H 6H 7H 8H")]
    assert board.foundations[0] == cards("JH")
    board.push_text("s")
    assert board.waste == cards("9H")  # the stock is drawn in deal order
    board.push_text("s")
    assert board.waste == cards("9H TH")


def test_turned_deal_order_reserve_piles_base_stock() -> None:
    rules = get_rules("falling-star")
    text = deal_text(rules, RESERVE + " AH 2H 3H 4H 5H 6H 7H 8H 9H  TD  JD QD")
    board = Board.from_deal_text(text, rules)
    assert board.reserve == cards(RESERVE)
    assert board.tableau == [[c] for c in cards("AH 2H 3H 4H 5H 6H 7H 8H 9H")]
    assert board.foundations[0] == cards("TD")
    assert board.base_rank == 9
    board.push_text("s")
    assert board.waste == cards("JD")


def test_deal_of_numbered_board_follows_the_same_order() -> None:
    rules = get_rules("blondes-and-brunettes")
    deal = Deal.from_number(9, rules)
    board = Board(rules, deal)
    assert board.reserve == list(deal.cards[:10])
    assert [p[0] for p in board.tableau] == list(deal.cards[10:19])
    assert board.foundations[0] == [deal.cards[19]]
    assert board.stock[::-1] == list(deal.cards[20:])


def test_one_deck_messages() -> None:
    one = Rules(decks=1, reserve=0, piles=1, candidates=0)
    text = DEAL_0_ONE_DECK.replace("TD", "9S")
    with pytest.raises(InvalidDealError, match="the deal has 2 of 9S; one deck has 1"):
        Deal.parse(text, one)


@pytest.mark.parametrize("bad", [-1, -100, 52, 10**30, 2.0, True, "AS", None])
def test_a_deal_made_directly_with_something_that_is_no_card_is_refused(bad: object) -> None:
    cards = list(full_pack(2))
    cards[-1] = bad  # type: ignore[call-overload]
    with pytest.raises(InvalidDealError) as caught:
        Board(Rules(), Deal(tuple(cards)))  # type: ignore[arg-type]
    assert "of the deal: " in str(caught.value) and "is not a card" in str(caught.value)


def test_a_deal_made_directly_from_a_list_is_its_number() -> None:
    cards = list(shuffled_pack(1, 2))
    assert Board(Rules(), Deal(cards, 1)).status.value == "choosing"  # type: ignore[arg-type]
    deal = Deal(cards, 1)  # type: ignore[arg-type]
    cards.reverse()  # (the list changed afterwards: the deal does not)
    assert deal == Deal.from_number(1, Rules()) and hash(deal) == hash(Deal.from_number(1, Rules()))


def test_a_deal_whose_cards_are_not_a_sequence_is_refused_with_its_reason() -> None:
    """Board(Rules(), Deal(5)) raised "'int' object is not iterable"."""
    from terrace.board import Board
    from terrace.errors import InvalidDealError
    from terrace.rules import Rules

    with pytest.raises(InvalidDealError, match="a deal's cards are a sequence of cards, not 5"):
        Board(Rules(), Deal(5))  # type: ignore[arg-type]


def test_a_deal_of_numpy_cards_is_its_plain_int_cards() -> None:
    """Deal(numpy array) was refused: "card 1 of the deal: np.int64(22) is
    not a card: a card is a whole number from 0 to 51", though it was one."""
    np = pytest.importorskip("numpy")
    pack = shuffled_pack(1, 2)
    deal = Deal(tuple(np.array(pack)), np.int64(1))  # type: ignore[arg-type]
    board = Board(Rules(), deal)
    assert deal == Deal.from_number(1, Rules()) and all(type(card) is int for card in deal.cards)
    assert type(deal.number) is int
    assert all(type(card) is int for card in board.reserve + board.stock)
    assert board == Board.from_number(1, Rules())


def test_a_card_twice_over_is_named_before_the_card_it_stands_in_for() -> None:
    """A deal string with 7H typed for the AS named the AS ("the deal has 1
    of AS"), where a position with the same cards names the 7H, the card
    given too often (two checks said the same fact two ways)."""
    codes = Deal.from_number(1, Rules()).text().split()
    codes[codes.index("AS")] = "7H"
    with pytest.raises(InvalidDealError, match="the deal has 3 of 7H; 2 decks have 2"):
        Deal.parse(" ".join(codes), Rules())
    one = Rules(decks=1, reserve=3, piles=2, candidates=1)
    codes = Deal.from_number(0, one).text().split()
    codes[codes.index("2C")] = "KS"
    with pytest.raises(InvalidDealError, match="the deal has 2 of KS; one deck has 1"):
        Deal.parse(" ".join(codes), one)


@pytest.mark.parametrize("bound", [0, -1, 2**64 + 1, 10**30, 1.5, "3", None, True])
def test_a_bound_below_one_or_past_64_bits_is_a_coded_refusal(bound: object) -> None:
    """below(0) raised ZeroDivisionError, below('3') a TypeError, and a
    bound past 2**64 drew for ever (no output is below its limit)."""
    from terrace.errors import InvalidDealError
    from terrace.refusals import Refusal

    with pytest.raises(InvalidDealError, match="bound must be a whole number from 1 to 2") as info:
        SplitMix64(1).below(bound)  # type: ignore[arg-type]
    assert info.value.code is Refusal.RANDOM_BOUND


def test_the_largest_bound_is_taken_and_a_seed_must_be_whole() -> None:
    assert 0 <= SplitMix64(1).below(2**64) < 2**64
    assert SplitMix64(1).below(1) == 0
    with pytest.raises(ValueError, match="must be a whole number"):
        SplitMix64("1")  # type: ignore[arg-type]


def test_a_deal_found_to_fit_is_checked_again_only_for_other_decks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each deal remembers the decks it fits; equal deals, other decks and
    deals that were refused are checked anew, and the memory is no part of
    the deal's value."""
    import terrace.deal as deal_module

    counted: list[int] = []
    real = deal_module.wrong_copies

    def counting(*args: object, **kwargs: object) -> object:
        counted.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(deal_module, "wrong_copies", counting)
    two_decks = Rules()
    deal = Deal.from_number(5, two_decks)
    twin = Deal(deal.cards, 5)
    deal.check(two_decks)
    deal.check(two_decks)
    assert len(counted) == 1
    twin.check(two_decks)
    assert len(counted) == 2
    assert deal == twin and hash(deal) == hash(twin) and repr(deal) == repr(twin)
    with pytest.raises(InvalidDealError):
        deal.check(Rules(decks=3))  # the two-deck pack does not fit three decks
    deal.check(two_decks)
    assert len(counted) == 2


def test_a_deal_string_of_exactly_the_most_cards_is_read() -> None:
    """``cards_of`` reads a text of ``most`` cards and refuses one more (a
    mutation audit read 'more than most' as 'most or more' and no test failed:
    the import then took a deal of the most decks for no deal)."""
    assert Deal.cards_of("TH AD", 2) == (parse_card("TH"), parse_card("AD"))
    assert Deal.cards_of("TH AD 2C", 2) is None
    pack = Deal.from_number(3, Rules())
    assert Deal.cards_of(pack.text(), len(pack.cards)) == pack.cards


def test_the_largest_bound_a_random_number_takes_is_two_to_the_64() -> None:
    """``below(2**64)`` draws (every output is below it); 2**64 + 1 is refused."""
    assert SplitMix64(0).below(2**64) == SplitMix64(0).next()

    class Whole(int):
        """A whole number of another type (read by its value)."""

    assert SplitMix64(0).below(Whole(2**64)) == SplitMix64(0).next()
    with pytest.raises(InvalidDealError, match="from 1 to 2\\*\\*64, not 18446744073709551617"):
        SplitMix64(0).below(2**64 + 1)
    with pytest.raises(InvalidDealError, match="from 1 to 2\\*\\*64"):
        SplitMix64(0).below(Whole(2**64 + 1))


@pytest.mark.parametrize("space", ["\u00a0", "\u2007", "\u202f"])
def test_a_deal_copied_with_no_break_spaces_reads_as_with_spaces(space: str) -> None:
    """A deal string copied from a web page holds no-break spaces between
    its cards: it is the same deal."""
    text = DEAL_1_TWO_DECKS.replace(" ", space, 20)
    assert Deal.parse(text, Rules()).text() == DEAL_1_TWO_DECKS
    assert Deal.cards_of(text, 104) == Deal.cards_of(DEAL_1_TWO_DECKS, 104)


@pytest.mark.parametrize("space", ["\u2028", "\u2029", "\u3000", "\u0085", "\x1c", "\x1f", "\u2003"])
def test_a_line_separator_or_another_unicode_space_between_cards_is_refused(space: str) -> None:
    """A deal string split on any Unicode white space, so a line separator
    (U+2028), U+3000 or the control separator U+001F between two cards was
    silently a gap, where a move list or a position reads it as part of a
    word. Only ASCII white space and the no-break spaces separate cards;
    the deal is refused naming the word, the character escaped."""
    text = DEAL_1_TWO_DECKS.replace(" ", space, 1)
    escaped = repr(space)[1:-1].replace("\\", "\\\\")
    with pytest.raises(InvalidDealError, match=rf"card 1 of the deal: '6D{escaped}7D' is not a card"):
        Deal.parse(text, Rules())
    assert Deal.cards_of(text, 104) is None
    # (counted as the reading splits: 103 words and 3 more, not 104 and 3)
    with pytest.raises(InvalidDealError, match=r"this one has 106$"):
        Deal.parse(text + " AS AS AS", Rules())
