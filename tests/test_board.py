"""The board: every rule of the game, with crafted positions and the seeds' examples."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest

from conftest import alternate_run, cards, craft, deal_text, suit_run
from terrace import undo
from terrace.actions import AREA, TABLEAU_AREA, WASTE_AREA, action_to_move, move_to_action, play_move
from terrace.board import Board, Status, action_moves
from terrace.building import COLOUR_KEY, SUIT_KEY
from terrace.cards import RANKS, card_symbol, parse_card
from terrace.deal import Deal
from terrace.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from terrace.game import State
from terrace.moves import Move
from terrace.position import BaseBoard
from terrace.refusals import Refusal
from terrace.rules import Rules
from terrace.undo import ChoiceUndo, DrawUndo, PlayUndo
from terrace.variants import PRESETS, get_rules

TERRACE = get_rules("terrace")
RESERVE = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"
# Nine single black cards for the tableau of crafted positions: none is a 5,
# 6, 7 or 8, and black never builds on black, so they stay out of the way.
QUIET = ["2S", "3S", "4S", "JC", "QC", "KC", "2C", "3C", "4C"]


def play(board: Board, moves: str) -> None:
    for text in moves.split():
        board.push_text(text)


def refused(board: Board, move: str, reason: str) -> None:
    """``move`` is illegal for ``reason``, and trying it changes nothing."""
    before, stack, redo = board.position(), list(board.move_stack), board.redo_stack
    assert board.why_illegal(Move.parse(move)) == reason
    assert not board.is_legal(Move.parse(move))
    assert Move.parse(move) not in board.legal_moves
    with pytest.raises(IllegalMoveError) as info:
        board.push_text(move)
    assert str(info.value) == f"{move}: {reason}"
    assert (board.position(), board.move_stack, board.redo_stack) == (before, stack, redo)


def rank(code: str) -> int:
    return RANKS.index(code)


# -- the choice of the base card ----------------------------------------------------------


def test_seed_example_choose_the_six_of_diamonds() -> None:
    text = deal_text(TERRACE, RESERVE + " 7S JH 6D  2H 3H 4H 5H 6H 7H 8H  9H 6C")
    board = Board.from_deal_text(text, TERRACE)
    assert board.status is Status.CHOOSING and board.choosing
    assert board.candidates() == cards("7S JH 6D")
    play(board, "c3")
    assert board.base_rank == rank("6")
    assert board.foundations[0] == cards("6D")
    assert board.tableau[0] == cards("7S") and board.tableau[1] == cards("JH")
    assert board.tableau[2] == cards("2H")  # the chosen card's place is filled
    assert board.status is Status.PLAYING
    # From now on every 6 starts a foundation, and only a 6 does.
    play(board, "s")
    assert board.waste == cards("9H")
    refused(board, "wf2", "foundation 2 is empty: only a 6 can start it")
    play(board, "s")
    play(board, "wf")
    assert board.foundations[1] == cards("6C")
    # The 7S in the tableau goes on the red 6 of diamonds.
    play(board, "t1f")
    assert board.foundations[0] == cards("6D 7S")


def test_nothing_moves_before_the_choice() -> None:
    board = Board.from_number(1, TERRACE)
    assert [str(m) for m in board.legal_moves] == ["c1", "c2", "c3"]
    refused(board, "s", "choose a base card first (c1 to c3)")
    refused(board, "rf", "choose a base card first (c1 to c3)")
    refused(board, "t1t2", "choose a base card first (c1 to c3)")
    refused(board, "c4", "this game has only 3 candidates (c1 to c3)")
    play(board, "c1")
    refused(board, "c2", "the base card has already been chosen")
    turned = Board.from_number(1, get_rules("falling-star"))
    refused(turned, "c1", "this game has no choice: its base card is turned from the pack")


def test_candidates_of_the_chosen_rank_start_foundations_at_once() -> None:
    text = deal_text(TERRACE, RESERVE + " 6D 7S 6C  2H 3H 4H 5H 6H 7H 8H 9H  TH")
    board = Board.from_deal_text(text, TERRACE)
    start = board.position()
    play(board, "c1")
    assert board.foundations[:3] == [cards("6D"), cards("6C"), []]
    # Both gaps are filled, in pile order: pile 1, pile 3, then 4..9.
    assert board.tableau == [[c] for c in cards("2H 7S 3H 4H 5H 6H 7H 8H 9H")]
    assert board.foundation_cards == 2 and len(board.stock) == 104 - 11 - 9 - 2
    board.pop()
    assert board.position() == start
    play(board, "c3")  # choosing the other six puts it on foundation 1
    assert board.foundations[:2] == [cards("6C"), cards("6D")]
    assert board.tableau[0] == cards("2H") and board.tableau[2] == cards("3H")


def test_the_web_version_s_reading_leaves_candidates_of_the_chosen_rank_in_the_tableau() -> None:
    """The web version keeps the candidates left behind in the tableau,
    those of the chosen rank too (as PySolFC and Aisleriot do): with
    promote_candidates off, choosing the 6D leaves the 6C in pile 3, the
    empty piles are filled from the stock, and the 6C goes up when sent;
    its pile is then refilled from the waste, so the player picks which
    waste card comes off. Taking the choice back restores the deal."""
    rules = TERRACE.replace(promote_candidates=False)
    text = deal_text(rules, RESERVE + " 6D 7S 6C  2H 3H 4H 5H 6H 7H 8H 9H  TH JH")
    board = Board.from_deal_text(text, rules)
    start = board.position()
    play(board, "c1")
    assert board.foundations[:2] == [cards("6D"), []]
    assert board.tableau == [[c] for c in cards("2H 7S 6C 3H 4H 5H 6H 7H 8H")]
    assert len(board.stock) == 104 - 11 - 9 - 1
    play(board, "s s")
    assert board.waste == cards("9H TH")
    play(board, "t3f")
    assert board.foundations[1] == cards("6C") and board.tableau[2] == cards("TH")
    assert board.waste == cards("9H")
    for _ in range(4):
        board.pop()
    assert board.position() == start
    promoted = Board.from_deal_text(text, TERRACE)
    play(promoted, "c1")
    assert promoted.foundations[1] == cards("6C") and promoted.tableau[2] == cards("3H")


def test_a_candidate_of_another_rank_stays_in_the_tableau() -> None:
    text = deal_text(TERRACE, RESERVE + " 6D 7S 8C")
    board = Board.from_deal_text(text, TERRACE)
    play(board, "c2")
    assert board.foundations[0] == cards("7S") and board.foundations[1] == []
    assert board.tableau[0] == cards("6D") and board.tableau[2] == cards("8C")


def test_three_sixes_of_four_candidates() -> None:
    rules = TERRACE.replace(candidates=4)
    text = deal_text(rules, RESERVE + " 6D 6S 9C 6H  2H 3H 4H 5H 7H 8H 9H TH")
    board = Board.from_deal_text(text, rules)
    play(board, "c2")
    assert board.foundations[:4] == [cards("6S"), cards("6D"), cards("6H"), []]
    assert board.tableau == [[c] for c in cards("2H 3H 9C 4H 5H 7H 8H 9H TH")]


@pytest.mark.parametrize("count", [1, 3, 4, 5, 9, 10])
def test_any_number_of_candidates(count: int) -> None:
    rules = Rules(decks=3, reserve=15, piles=10, candidates=count)
    board = Board.from_number(4, rules)
    assert [str(m) for m in board.legal_moves] == [f"c{i}" for i in range(1, count + 1)]
    assert [len(p) for p in board.tableau] == [1] * count + [0] * (10 - count)
    play(board, f"c{count}")
    assert all(len(p) == 1 for p in board.tableau)
    assert board.tableau_cards == 10
    assert len(board.stock) == 156 - 15 - 10 - board.foundation_cards


def test_turned_base_card() -> None:
    rules = get_rules("blondes-and-brunettes")
    text = deal_text(rules, "AS 2S 3S 4S 5S 6S 7S 8S 9S TS  AH 2H 3H 4H 5H 6H 7H 8H 9H  TH JH")
    board = Board.from_deal_text(text, rules)
    assert board.status is Status.PLAYING and not board.choosing
    assert board.foundations[0] == cards("TH") and board.base_rank == rank("T")
    assert board.candidates() == []
    assert [p[0] for p in board.tableau] == cards("AH 2H 3H 4H 5H 6H 7H 8H 9H")
    assert board.stock[-1] == parse_card("JH")


@pytest.mark.parametrize("name", list(PRESETS))
def test_card_counts_after_the_deal(name: str) -> None:
    rules = get_rules(name)
    for number in range(1, 40):
        board = Board.from_number(number, rules)
        if rules.picks_base:
            ranks = [c >> 2 for c in board.candidates()]
            if ranks.count(ranks[0]) > 1:
                continue  # a candidate of the chosen rank would start a second foundation
            play(board, "c1")
        break
    assert len(board.reserve) == rules.reserve
    assert board.foundation_cards == 1
    assert board.tableau_cards == rules.piles
    assert all(len(p) == 1 for p in board.tableau)
    assert len(board.stock) == rules.card_count - rules.reserve - rules.piles - 1
    assert board.waste == []


def test_terrace_counts_eleven_one_nine_eighty_three() -> None:
    board = Board.from_deal_text(deal_text(TERRACE, RESERVE + " 7S JH 6D"), TERRACE)
    play(board, "c3")
    counters = board.counters()
    assert (counters["reserve"], counters["foundation_cards"], counters["tableau"], counters["stock"]) == (
        11, 1, 9, 83)


# -- foundations -----------------------------------------------------------------------


def test_seed_example_a_foundation_on_the_six_of_diamonds() -> None:
    run = "7C 8D 9S TH JC QD KS AH 2C 3D 4S 5H"  # black 7, red 8, ... red 5
    board = craft(TERRACE, "6", foundations=["6D"], tableau=QUIET, waste=" ".join(reversed(run.split())),
                  stock="6S")
    for _ in range(12):
        play(board, "wf")
    assert board.foundations[0] == cards("6D " + run)
    assert len(board.foundations[0]) == 13
    # A complete foundation takes nothing more, not even the black 6 that
    # would follow the red 5 in colour and rank.
    play(board, "s")
    refused(board, "wf1", "foundation 1 is complete")
    play(board, "wf")
    assert board.foundations[1] == cards("6S")


def test_foundations_alternate_colour_and_refuse_the_same_colour() -> None:
    board = craft(TERRACE, "7", foundations=["7D"], tableau=QUIET, waste="8S 8H")
    refused(board, "wf1", "the 8♥ cannot go on the 7♦: foundation 1 takes only a black 8")
    refused(board, "wf", "no foundation accepts the 8♥ yet")
    assert board.why_illegal(Move.parse("wf2")) == "foundation 2 is empty: only a 7 can start it"


def test_a_black_eight_goes_on_a_red_seven_either_suit() -> None:
    for black in ("8S", "8C"):
        board = craft(TERRACE, "7", foundations=["7H"], tableau=QUIET, waste=black)
        play(board, "wf")
        assert board.foundations[0] == cards("7H " + black)


def test_foundations_turn_the_corner_from_king_to_ace() -> None:
    board = craft(TERRACE, "T", foundations=["TH JS QD KC"], tableau=QUIET, waste="AS AD")
    play(board, "wf")
    assert board.foundations[0][-1] == parse_card("AD")
    assert board.waste == cards("AS")
    refused(board, "wf", "no foundation accepts the A♠ yet")


def test_in_suit_foundations() -> None:
    rules = get_rules("generals-patience")
    board = craft(rules, "7", foundations=["7H"], tableau=QUIET, waste="8H 8D")
    refused(board, "wf1", "the 8♦ cannot go on the 7♥: foundation 1 takes only an 8 of the same suit")
    board = craft(rules, "7", foundations=["7H"], tableau=QUIET, waste="8D 8H")
    play(board, "wf")
    assert board.foundations[0] == cards("7H 8H")
    board = craft(rules, "Q", foundations=["QS KS"], tableau=QUIET, waste="AS")
    play(board, "wf")  # in suit, the corner is turned too
    assert board.foundations[0] == cards("QS KS AS")


def test_any_foundation_move_uses_the_first_that_accepts() -> None:
    board = craft(TERRACE, "7", foundations=["7D", "7H", "7S"], tableau=QUIET, waste="8C")
    play(board, "wf")
    assert board.foundations[0] == cards("7D 8C")
    board.pop()
    play(board, "wf2")
    assert board.foundations[1] == cards("7H 8C")
    refused(board, "t1f9", "there is no foundation 9 (foundations run from 1 to 8)")


def test_no_foundation_free_for_a_base_card() -> None:
    rules = Rules(decks=1, reserve=1, piles=3, candidates=0)
    board = craft(rules, "A", reserve="AC", foundations=["AS", "AH", "AD"], tableau=["KS", "KH", "KD"],
                  waste="2C")
    play(board, "rf")
    assert board.foundations[3] == cards("AC")
    board = craft(Rules(decks=1, reserve=1, piles=3, candidates=0), "A",
                  foundations=["AS", "AH", "AD", "AC 2D"], tableau=["KS", "KH", "KD"], waste="3H")
    assert board.why_illegal(Move.parse("wf")) == "no foundation accepts the 3♥ yet"


# -- the reserve (the terrace) ------------------------------------------------------------------


def test_the_terrace_card_goes_only_to_a_foundation() -> None:
    board = craft(TERRACE, "7", reserve="5C 8H", foundations=["7S"], tableau=["9S", *QUIET[1:]])
    refused(board, "rt1", "the terrace card can go only to a foundation")
    moves = [str(m) for m in board.legal_moves]
    assert "rf" in moves and not any(m.startswith("rt") for m in moves)
    play(board, "rf")
    assert board.reserve == cards("5C")  # the next card becomes available
    refused(board, "rf", "no foundation accepts the 5♣ yet")


def test_empty_reserve() -> None:
    board = craft(TERRACE, "7", foundations=["7S"], tableau=QUIET)
    refused(board, "rf", "the terrace (reserve) is empty")


# -- the tableau ------------------------------------------------------------------------


@pytest.mark.parametrize(("lower", "upper"), [("9S", "8H"), ("2D", "AS"), ("AC", "KH"), ("9C", "8D")])
def test_tableau_builds_down_in_alternating_colours_and_wraps(lower: str, upper: str) -> None:
    board = craft(TERRACE, "6", foundations=["6S"], tableau=[lower, upper, *QUIET[2:]], waste=upper)
    play(board, "t2t1")
    assert board.tableau[0] == cards(f"{lower} {upper}")
    board.pop()
    play(board, "wt1")
    assert board.tableau[0] == cards(f"{lower} {upper}")


@pytest.mark.parametrize(
    ("lower", "upper", "wanted"),
    [("9D", "8H", "a black 8"), ("9S", "8S", "a red 8"), ("9S", "7H", "a red 8"), ("AC", "QH", "a red K"),
     ("2D", "AH", "a black A"), ("9S", "TH", "a red 8")],
)
def test_tableau_refusals(lower: str, upper: str, wanted: str) -> None:
    board = craft(TERRACE, "6", foundations=["6S"], tableau=[lower, upper, *QUIET[2:]])
    low, up = parse_card(lower), parse_card(upper)
    reason = (f"the {card_symbol(up)} cannot go on the {card_symbol(low)} in pile 1: piles build down in "
              f"alternating colours, so it takes only {wanted}")
    refused(board, "t2t1", reason)


def test_only_the_top_card_moves_one_at_a_time() -> None:
    board = craft(TERRACE, "6", foundations=["6S"], tableau=["TS 9H 8C", "TH", *QUIET[2:]])
    refused(board, "t1t2", "the 8♣ cannot go on the 10♥ in pile 2: piles build down in alternating "
                           "colours, so it takes only a black 9")
    board = craft(TERRACE, "6", foundations=["6S"], tableau=["TS 9H 8C", "9D", *QUIET[2:]])
    play(board, "t1t2")
    assert board.tableau[0] == cards("TS 9H") and board.tableau[1] == cards("9D 8C")


def test_bad_piles() -> None:
    board = craft(TERRACE, "6", foundations=["6S"], tableau=QUIET)
    refused(board, "t1t10", "there is no pile 10 (piles run from 1 to 9)")
    refused(board, "t10t1", "there is no pile 10 (piles run from 1 to 9)")
    refused(board, "t10f", "there is no pile 10 (piles run from 1 to 9)")
    refused(board, "wf", "the waste is empty")
    with pytest.raises(InvalidMoveError):
        board.push_text("t1t1")


# -- spaces ------------------------------------------------------------------------


def test_auto_space_is_refilled_from_the_waste() -> None:
    board = craft(TERRACE, "6", foundations=["6D 7C"], tableau=["8H", *QUIET[1:]], waste="KS 3C")
    before = board.position()
    play(board, "t1f")
    assert board.tableau[0] == cards("3C")
    assert board.waste == cards("KS")
    board.pop()
    assert board.position() == before


def test_auto_space_is_refilled_from_the_stock_when_the_waste_is_empty() -> None:
    board = craft(TERRACE, "6", foundations=["6D 7C"], tableau=["8H", *QUIET[1:]], stock="KD 5S")
    play(board, "t1f")
    assert board.tableau[0] == cards("KD")
    assert board.waste == [] and board.stock[-1] == parse_card("5S")
    board.pop()
    assert board.tableau[0] == cards("8H") and board.stock[-2:] == cards("5S KD")


def test_auto_space_refill_after_a_waste_move_does_not_take_the_moved_card() -> None:
    board = craft(TERRACE, "6", foundations=["6D 7C"], tableau=["8H", *QUIET[1:]], waste="9C 8D")
    play(board, "t1f")  # pile 1 gets the 8D from the waste
    assert board.tableau[0] == cards("8D") and board.waste == cards("9C")


def test_auto_space_stays_empty_when_waste_and_stock_are_used_up() -> None:
    rules = Rules(decks=1, reserve=0, piles=3, candidates=0)
    foundations = [alternate_run("AS"), alternate_run("AH"), alternate_run("AC"), alternate_run("AD", 11)]
    board = craft(rules, "A", foundations=foundations, tableau=["KD", "QC", ""], rest="none")
    assert board.tableau[2] == []
    refused(board, "t1t3", "pile 3 stays empty: spaces are refilled only from the waste or the stock, and "
                           "both are used up")
    play(board, "t2f")
    assert board.tableau[1] == []
    play(board, "t1f")
    assert board.status is Status.WON and board.is_won() and board.outcome() is Status.WON
    assert board.is_game_over()
    assert list(board.legal_moves) == []


def test_free_spaces_take_any_waste_or_tableau_card_but_not_the_terrace_card() -> None:
    rules = TERRACE.replace(spaces="free")
    board = craft(rules, "6", reserve="9H", foundations=["6D 7C"], tableau=["8H", "KS", *QUIET[2:]],
                  waste="QD")
    play(board, "t1f")
    assert board.tableau[0] == []  # not refilled
    assert {"wt1", "t2t1", "t9t1"} <= {str(m) for m in board.legal_moves}
    refused(board, "rt1", "the terrace card can go only to a foundation")
    play(board, "wt1")
    assert board.tableau[0] == cards("QD")
    board.pop()
    play(board, "t2t1")
    assert board.tableau[0] == cards("KS") and board.tableau[1] == []
    play(board, "s t1t2")
    assert board.tableau[1] == cards("KS")


def test_waste_spaces_take_only_the_waste_card() -> None:
    rules = get_rules("wood")
    board = craft(rules, "6", foundations=["6D 7C"], tableau=["8H", "KS", *QUIET[2:]], waste="QD")
    play(board, "t1f")
    assert board.tableau[0] == []
    refused(board, "t2t1", "an empty pile takes only the waste card in this game")
    play(board, "wt1")
    assert board.tableau[0] == cards("QD")


def test_free_spaces_position_may_have_empty_piles_with_cards_in_stock() -> None:
    rules = TERRACE.replace(spaces="free")
    board = craft(rules, "6", foundations=["6D"], tableau=["", *QUIET[1:]])
    assert Board.from_position(board.position(), rules) == board
    with pytest.raises(InvalidPositionError, match="with automatic spaces a pile is empty only when"):
        Board.from_position(board.position(), TERRACE)
    # the waste alone would refill the space too
    board = craft(rules, "6", foundations=["6D"], tableau=["", *QUIET[1:]], rest="waste")
    assert board.waste and not board.stock
    with pytest.raises(InvalidPositionError, match="with automatic spaces a pile is empty only when"):
        Board.from_position(board.position(), TERRACE)


# -- the stock, the waste and redeals --------------------------------------------------------------


def test_draw_turns_one_card_onto_the_waste() -> None:
    board = craft(TERRACE, "6", foundations=["6D"], tableau=QUIET, stock="AS KD")
    play(board, "s")
    assert board.waste == cards("AS")
    play(board, "s")
    assert board.waste == cards("AS KD")
    assert Move.draw() in board.legal_moves


def test_one_pass_only_by_default() -> None:
    rules = Rules(decks=1, reserve=0, piles=3, candidates=0)
    board = craft(rules, "A", foundations=[alternate_run("AS")], tableau=["KD", "KH", "KC"], waste="QS",
                  rest="waste")
    refused(board, "s", "the stock is empty")
    assert Move.draw() not in board.legal_moves


def test_redeals_turn_the_waste_back_into_the_stock() -> None:
    rules = Rules(decks=1, reserve=0, piles=3, candidates=0, redeals=1)
    board = craft(rules, "A", foundations=[alternate_run("AS")], tableau=["KD", "KH", "KC"],
                  waste="5D 9C 2C", rest="waste")
    waste = list(board.waste)
    before = board.position()
    assert board.counters()["redeals_left"] == 1
    play(board, "s")
    assert board.waste == [] and board.redeals_used == 1
    assert board.stock[::-1] == waste  # the first card turned is the first turned again
    assert board.position().endswith(" 1")
    play(board, "s")
    assert board.waste == waste[:1]
    board.pop()
    board.pop()
    assert board.position() == before
    play(board, "s")
    for _ in waste:
        play(board, "s")
    refused(board, "s", "the stock is empty and no redeals are left")
    assert board.counters()["redeals_left"] == 0


def test_redeal_with_auto_spaces_refills_from_the_new_stock() -> None:
    rules = Rules(decks=1, reserve=0, piles=3, candidates=0, redeals=2)
    foundations = [alternate_run("AS"), alternate_run("AH"), alternate_run("AC"), alternate_run("AD", 8)]
    # 9D TC JD QC KD remain: three on the tableau, two in the waste.
    board = craft(rules, "A", foundations=foundations, tableau=["9D", "QC", "KD"], waste="TC JD",
                  rest="none")
    play(board, "t1f")  # pile 1 takes the JD from the waste
    assert board.tableau[0] == cards("JD") and board.waste == cards("TC")
    play(board, "s")  # the redeal: the TC goes back to the stock, no pile is empty
    assert board.stock == cards("TC") and board.waste == [] and board.redeals_used == 1
    play(board, "s wf t1f")
    assert board.tableau[0] == []  # nothing is left to fill it
    play(board, "t2f t3f")
    assert board.status is Status.WON


# -- returning foundation cards ------------------------------------------------------------


def test_foundation_return_top_card_back_to_a_pile() -> None:
    rules = TERRACE.replace(foundation_return=True)
    board = craft(rules, "6", foundations=["6D 7C 8D", "6S"], tableau=["9S", *QUIET[1:]])
    assert Move.parse("f1t1") in list(board.legal_moves)
    play(board, "f1t1")
    assert board.tableau[0] == cards("9S 8D") and board.foundations[0] == cards("6D 7C")
    play(board, "f1t1")
    assert board.tableau[0] == cards("9S 8D 7C")
    refused(board, "f1t2", "the base card of a foundation never moves")
    refused(board, "f2t2", "the base card of a foundation never moves")
    refused(board, "f3t1", "foundation 3 is empty")
    refused(board, "f9t1", "there is no foundation 9 (foundations run from 1 to 8)")
    play(board, "t1f")
    assert board.foundations[0] == cards("6D 7C")


def test_foundation_return_must_fit_the_pile() -> None:
    rules = TERRACE.replace(foundation_return=True)
    board = craft(rules, "6", foundations=["6D 7C 8D"], tableau=["9H", *QUIET[1:]])
    refused(board, "f1t1", "the 8♦ cannot go on the 9♥ in pile 1: piles build down in alternating "
                           "colours, so it takes only a black 8")


def test_without_foundation_return_cards_stay_up() -> None:
    board = craft(TERRACE, "6", foundations=["6D 7C 8D"], tableau=["9S", *QUIET[1:]])
    refused(board, "f1t1", "cards never leave the foundations in this game")
    assert not any(m.source == "f" for m in board.legal_moves)


def test_foundation_return_into_a_free_space() -> None:
    rules = get_rules("empress-of-italy")
    board = craft(rules, "6", foundations=["6D 7C"], tableau=["", *QUIET, "KS"])
    play(board, "f1t1")
    assert board.tableau[0] == cards("7C")


def test_foundation_return_into_a_space_while_only_the_stock_holds_cards() -> None:
    """Every pile empty, no terrace or waste card, cards left in the stock:
    the game is not won, so a foundation card may still come back."""
    rules = get_rules("empress-of-italy")
    board = craft(rules, "6", foundations=["6D 7C"])
    assert not any(board.tableau) and not board.reserve and not board.waste and board.stock
    moves = [str(m) for m in board.legal_moves]
    assert moves == [f"f1t{i}" for i in range(1, rules.piles + 1)] + ["s"]


# -- winning and losing ------------------------------------------------------------------------


def test_lost_when_no_move_remains() -> None:
    rules = Rules(decks=1, reserve=2, piles=3, candidates=0)
    foundations = [alternate_run("AS"), alternate_run("AH"), alternate_run("AC"), alternate_run("AD", 11)]
    board = craft(rules, "A", reserve="QC KD", foundations=foundations, tableau=["", "", ""], rest="none")
    assert board.status is Status.LOST and board.outcome() is Status.LOST
    assert not board.legal_moves and len(board.legal_moves) == 0
    assert board.is_game_over() and not board.is_won()


def test_playing_game_has_no_outcome() -> None:
    board = Board.from_number(2)
    assert board.outcome() is None and not board.is_game_over()
    play(board, "c1")
    assert board.outcome() is None


def test_in_suit_win() -> None:
    rules = Rules(decks=1, reserve=1, piles=2, candidates=0, foundations="suit")  # type: ignore[arg-type]
    board = craft(rules, "A", reserve="KC", foundations=[suit_run("AS"), suit_run("AH"), suit_run("AD"),
                                                         suit_run("AC", 11)], tableau=["QC", ""],
                  rest="none")
    play(board, "t1f rf")
    assert board.status is Status.WON


# -- the web version's worked examples (four candidates; they pin rules the tests above state) ----


def test_web_example_two_full_foundations_on_sevens_of_either_colour() -> None:
    """With 7s as the base, a foundation runs 7 8 9 10 J Q K A 2 3 4 5 6 in
    alternating colours, turning the corner after the king; one neighbour
    starts red, the other black, and each card finds the one that wants it."""
    red_start = "8S 9D TC JH QS KD AC 2H 3S 4D 5C 6H"
    black_start = "8H 9S TD JC QH KS AD 2C 3H 4S 5D 6C"
    order = [card for pair in zip(red_start.split(), black_start.split(), strict=True) for card in pair]
    board = craft(TERRACE, "7", foundations=["7H", "7C"], tableau=QUIET, waste=" ".join(reversed(order)))
    for _ in order:
        play(board, "wf")
    assert board.foundations[0] == cards("7H " + red_start)
    assert board.foundations[1] == cards("7C " + black_start)
    assert [RANKS[f[-1] >> 2] for f in board.foundations[:2]] == ["6", "6"]
    assert board.foundations[2:] == [[]] * 6


def test_web_example_the_first_card_of_a_foundation_may_be_either_colour() -> None:
    """An empty foundation asks only for the base rank: a second red 7 starts
    one beside a red 7, and in suit a 7 of any suit does."""
    board = craft(TERRACE, "7", foundations=["7D"], tableau=QUIET, waste="7H")
    play(board, "wf")
    assert board.foundations[:2] == [cards("7D"), cards("7H")]
    suit = get_rules("generals-patience")
    board = craft(suit, "7", foundations=["7D"], tableau=QUIET, waste="7S")
    play(board, "wf")
    assert board.foundations[:2] == [cards("7D"), cards("7S")]


@pytest.mark.parametrize(("lower", "upper"), [
    ("7H", "6S"), ("7D", "6C"),  # a black 6 packs onto a red 7
    ("AD", "KS"), ("AH", "KC"),  # a black king packs onto a red ace, round the corner
    ("9H", "8S"), ("9H", "8C"),  # a red 9 takes either black 8
    ("AS", "KH"), ("AS", "KD"),  # a black ace takes either red king
])
def test_web_example_tableau_packing(lower: str, upper: str) -> None:
    board = craft(TERRACE, "5", foundations=["5S"], tableau=[lower, upper, *QUIET[2:]])
    play(board, "t2t1")
    assert board.tableau[0] == cards(f"{lower} {upper}")


def test_web_example_an_ace_refuses_a_king_of_its_own_colour() -> None:
    board = craft(TERRACE, "5", foundations=["5S"], tableau=["AH", "KD", *QUIET[2:]])
    refused(board, "t2t1", "the K♦ cannot go on the A♥ in pile 1: piles build down in alternating colours, "
                           "so it takes only a black K")


def test_four_candidates_deal_eleven_one_nine_eighty_three() -> None:
    """The four-card reading: the candidates lie in piles 1 to 4, nothing
    moves until one is taken, its gap is filled from the stock first and the
    last five piles after it; then 11 terrace, 1 foundation, 9 tableau and
    83 stock cards."""
    rules = TERRACE.replace(candidates=4)
    board = Board.from_deal_text(deal_text(rules, RESERVE + " 7S JH 6D 9C  2H 3H 4H 5H 6H 7H"), rules)
    assert board.candidates() == cards("7S JH 6D 9C")
    assert [len(p) for p in board.tableau] == [1, 1, 1, 1, 0, 0, 0, 0, 0]
    refused(board, "s", "choose a base card first (c1 to c4)")
    play(board, "c2")
    assert board.foundations[0] == cards("JH")
    assert board.tableau == [[c] for c in cards("7S 2H 6D 9C 3H 4H 5H 6H 7H")]
    counters = board.counters()
    assert (counters["reserve"], counters["foundation_cards"], counters["tableau"], counters["stock"]) == (
        11, 1, 9, 83)


# -- push, pop, redo, copy -----------------------------------------------------------------------


def test_pop_and_redo() -> None:
    board = Board.from_number(3)
    start = board.position()
    play(board, "c2 s s")
    after = board.position()
    assert [str(board.pop()) for _ in range(3)] == ["s", "s", "c2"]
    assert board.position() == start and not board.can_undo and board.can_redo
    assert [str(m) for m in board.redo_stack] == ["s", "s", "c2"]
    assert [str(board.redo()) for _ in range(3)] == ["c2", "s", "s"]
    assert board.position() == after and not board.can_redo
    assert str(board.peek_move()) == "s"


def test_a_new_move_clears_redo_but_the_same_move_keeps_it() -> None:
    board = Board.from_number(3)
    play(board, "c2 s s")
    board.pop()
    board.pop()
    play(board, "s")  # the move that was undone: redo keeps the rest
    assert [str(m) for m in board.redo_stack] == ["s"]
    board.pop()
    play(board, "t1f" if board.is_legal(Move.parse("t1f")) else "s")
    board.pop()
    board.pop()
    play(board, "c1")
    assert board.redo_stack == []


def test_pop_and_redo_with_nothing_to_do() -> None:
    board = Board.from_number(3)
    with pytest.raises(IndexError, match="no move to undo"):
        board.pop()
    with pytest.raises(IndexError, match="no move to redo"):
        board.redo()


def test_nothing_to_undo_redo_or_look_at_is_a_coded_refusal() -> None:
    """pop(), redo() and peek_move() with no such move raised a bare
    IndexError, the one engine refusal that was neither a TerraceError
    (a ValueError) nor coded nor said in German. It is NoMoveError now,
    still an IndexError for the callers that catch that."""
    from terrace.errors import NoMoveError, TerraceError

    board = Board.from_number(3)
    for call, code, german in ((board.pop, "nothing-to-undo", "Es gibt keinen Zug zum Zurücknehmen."),
                               (board.redo, "nothing-to-redo", "Es gibt keinen Zug zum Wiederholen."),
                               (board.peek_move, "no-move-played", "Es wurde noch kein Zug gemacht.")):
        with pytest.raises(TerraceError) as caught:
            call()
        error = caught.value
        assert isinstance(error, NoMoveError) and isinstance(error, ValueError | IndexError)
        assert isinstance(error, IndexError)
        assert error.code is not None and error.code.value == code and error.text("de") == german
    assert board.move_stack == [] and board.redo_stack == []


def test_the_last_move_of_a_game_with_none_says_so() -> None:
    """peek_move() on a board with no move played raised IndexError('list
    index out of range'), where pop() and redo() say what is missing."""
    board = Board.from_number(3)
    with pytest.raises(IndexError, match="no move has been played"):
        board.peek_move()
    board.push_text("c1")
    assert board.peek_move() == Move.parse("c1")


def test_push_of_text_says_what_to_call_and_changes_nothing() -> None:
    board = Board.from_number(3)
    before = board.position()
    with pytest.raises(TypeError, match=r"push takes a Move, not str: use board.push_text\('c1'\)"):
        board.push("c1")  # type: ignore[arg-type]
    assert board.position() == before and board.move_stack == []


def test_copy_is_independent() -> None:
    board = Board.from_number(3)
    play(board, "c1 s")
    other = board.copy()
    assert other == board and other.move_stack == board.move_stack
    play(other, "s")
    assert other != board
    other.pop()
    assert other == board
    bare = board.copy(stack=False)
    assert bare == board and bare.move_stack == [] and not bare.can_undo
    assert bare.deal == board.deal


def test_a_copy_keeping_recent_moves_takes_them_back_and_redoes_them_as_the_board_does() -> None:
    board = Board.from_number(3)
    play(board, "c1 " + "s " * 30)
    for _ in range(12):
        board.pop()
    for keep in (0, 1, 5, 12, 19, 100):
        recent = board.copy(keep=keep)
        assert recent == board and len(recent.move_stack) == min(keep, 19)
        assert recent.move_stack == board.move_stack[len(board.move_stack) - len(recent.move_stack):]
        assert recent.redo_stack == board.redo_stack[len(board.redo_stack) - min(keep, 12):]
        full, back = board.copy(), recent.copy()
        while back.can_undo:  # every move kept comes back as the whole board's does
            assert back.pop() == full.pop() and back == full
        full, ahead = board.copy(), recent.copy()
        while ahead.can_redo:
            assert ahead.redo() == full.redo() and ahead == full
    assert board.copy(keep=3).copy(keep=5).move_stack == board.move_stack[-3:]
    for bad in (-1, True, 2.5):
        with pytest.raises(ValueError, match="keep is a number of moves"):
            board.copy(keep=bad)  # type: ignore[arg-type]


def test_a_copy_keeping_some_moves_to_redo_checks_their_number_and_needs_no_keep() -> None:
    """copy(redo=...) was read only with keep: without it any value was
    ignored (copy(redo=1) copied all 12 moves to redo), and with it -1 was
    taken as 0, True as 1, and 1.5 or '2' failed inside the copy (TypeError
    "slice indices must be integers or None", "'<' not supported between
    instances of 'str' and 'int'")."""
    board = Board.from_number(3)
    play(board, "c1 " + "s " * 30)
    for _ in range(12):
        board.pop()
    for redo in (0, 1, 5, 12, 100):
        ahead = board.copy(redo=redo)
        assert ahead == board and ahead.move_stack == board.move_stack
        assert ahead.redo_stack == board.redo_stack[len(board.redo_stack) - min(redo, 12):]
        assert board.copy(keep=3, redo=redo).redo_stack == board.redo_stack[12 - min(redo, 3):]
    for keep in (None, 3):
        for bad in (-1, True, 1.5, "2", None.__class__):
            with pytest.raises(ValueError, match="redo is a number of moves, 0 or more, not"):
                board.copy(keep=keep, redo=bad)  # type: ignore[arg-type]


# -- position strings -----------------------------------------------------------------------------


def test_position_round_trip_through_a_game() -> None:
    board = Board.from_number(8)
    assert Board.from_position(board.position(), board.rules) == board
    play(board, "c2 s s s")
    text = board.position()
    again = Board.from_position(text, board.rules)
    assert again == board and again.position() == text
    assert again.deal is None and again.move_stack == []
    assert sorted(m.__str__() for m in again.legal_moves) == sorted(str(m) for m in board.legal_moves)


def test_position_fields() -> None:
    board = craft(TERRACE, "6", reserve="9H 8C", foundations=["6D 7C"], tableau=QUIET, waste="KS",
                  stock="AS 2S")
    base, reserve, foundations, tableau, waste, stock, redeals = board.position().split(" ")
    assert (base, reserve, waste, redeals) == ("6", "9H8C", "KS", "0")
    assert foundations == "6D7C,,,,,,,"
    assert tableau == ",".join(QUIET)
    assert stock.startswith("AS2S")
    assert board.position().startswith("6 9H8C ")


def test_single_empty_pile_position_round_trips() -> None:
    rules = Rules(decks=1, reserve=0, piles=1, candidates=0, spaces="free")  # type: ignore[arg-type]
    board = craft(rules, "A", foundations=["AS"], tableau=[""])
    assert board.position().split()[3] == "-"
    assert Board.from_position(board.position(), rules) == board


def test_choosing_position_round_trips() -> None:
    board = Board.from_number(5)
    assert board.position().startswith("? ")
    assert Board.from_position(board.position(), board.rules) == board


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda f: f[:6], "a position has 7 space-separated fields, this one has 6"),
        (lambda f: ["X", *f[1:]], "'X' is not a base rank"),
        (lambda f: [*f[:6], "x"], "'x' is not a number of redeals used"),
        (lambda f: [*f[:6], "1"], "these rules allow 0 redeals, not 1"),
        (lambda f: [f[0], f[1][:-1], *f[2:]], "the reserve: card codes are two characters each"),
        (lambda f: [f[0], "ZZ" + f[1][2:], *f[2:]], "the reserve: 'ZZ' is not a card"),
        (lambda f: [*f[:2], f[2] + ",", *f[3:]], "these rules have 8 foundations, the position has 9"),
        (lambda f: [*f[:3], f[3] + ",", *f[4:]], "these rules have 9 piles, the position has 10"),
        (lambda f: [*f[:5], f[5][2:], f[6]], "the position has 1 of [A2-9TJQK][SHDC]; 2 decks have 2$"),
        (lambda f: ["7", *f[1:]], "foundation 1 does not start with the base rank"),
    ],
)
def test_bad_positions(edit: object, message: str) -> None:
    board = craft(TERRACE, "6", reserve="9H 8C", foundations=["6D 7C"], tableau=QUIET, waste="KS")
    fields = board.position().split(" ")
    text = " ".join(edit(fields))  # type: ignore[operator]
    with pytest.raises(InvalidPositionError, match=message):
        Board.from_position(text, TERRACE)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("6 - " + "," * 7 + " " + "AS" * 300_000 + ",,,,,,,, - - 0",
         "the position holds more than the 104 cards of 2 decks"),
        (("-" * 100 + " ") * 9_000, "a position has 7 space-separated fields, this one has 9000$"),
        ("- " * 300_000, "a position has 7 space-separated fields, this one has more than 10000$"),
    ],
)
def test_a_huge_position_is_refused_without_reading_it_all(text: str, message: str) -> None:
    """More cards than the packs hold, or more fields than a position has,
    are refused before any card is read or every field split off (a 100 MB
    pile took half a minute and 1.4 GB); the fields are counted up to
    10,000, as a deal string's cards are (a position of 100 MB of fields
    took 6.6 s of CPU to count them all: 0.2 s now)."""
    tracemalloc.start()
    try:
        with pytest.raises(InvalidPositionError, match=message):
            Board.from_position(text, TERRACE)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(text)


def test_a_wrong_card_is_named() -> None:
    """A card in two places is named (before the card it stands in for), and
    one deck is spoken of as one deck."""
    one = Rules(decks=1, reserve=3, piles=2, candidates=1)
    board = Board.from_number(0, one)
    board.push_text("c1")
    text = board.position().replace("2H,", "6C,", 1)  # 6C in pile 1 and in the stock, no 2H
    with pytest.raises(InvalidPositionError) as info:
        Board.from_position(text, one)
    assert str(info.value) == "the position has 2 of 6C; one deck has 1"
    assert info.value.code is Refusal.POSITION_COPIES_ONE_DECK
    assert info.value.text("de") == "Die Stellung enthält 2-mal 6C; ein Kartenspiel enthält sie einmal."
    two = Board.from_number(1, TERRACE)
    fields = two.position().split(" ")
    fields[1] = fields[1][:-2] + fields[5][:2]  # the last reserve card becomes the next stock card
    with pytest.raises(InvalidPositionError, match=f"the position has 3 of {fields[5][:2]}; 2 decks have 2"):
        Board.from_position(" ".join(fields), TERRACE)


def test_a_dash_stands_only_for_a_whole_empty_field() -> None:
    """An empty pile or foundation among others is nothing between two
    commas, as position() writes it; '-' is no card there."""
    rules = TERRACE.replace(spaces="free")
    board = Board.from_number(1, rules)
    board.push_text("c1")
    text = board.position()
    assert ",,,,,,," in text
    with pytest.raises(InvalidPositionError, match="foundation 2: '-' is not a card"):
        Board.from_position(text.replace(",,,,,,,", ",-,-,-,-,-,-,-", 1), rules)
    # (a single empty pile, the whole field, is '-': test_single_empty_pile_position_round_trips)


def test_reserve_too_long() -> None:
    board = craft(TERRACE, "6", reserve="9H 8C", foundations=["6D 7C"], tableau=QUIET)
    with pytest.raises(InvalidPositionError, match="the reserve holds at most 1 card"):
        Board.from_position(board.position(), TERRACE.replace(reserve=1))


def test_impossible_piles_and_foundations() -> None:
    with pytest.raises(InvalidPositionError, match="pile 1 is not built down in alternating colours"):
        craft(TERRACE, "6", foundations=["6D"], tableau=["9S 8S", *QUIET[1:]])
    with pytest.raises(InvalidPositionError, match="foundation 1 is not built up by the rules"):
        craft(TERRACE, "6", foundations=["6D 7H"], tableau=QUIET)
    with pytest.raises(InvalidPositionError, match="foundation 1 always holds the base card"):
        craft(TERRACE, "6", foundations=["", "6D"], tableau=QUIET)
    with pytest.raises(InvalidPositionError, match="a position before the choice has only"):
        craft(TERRACE, "?", foundations=["6D"], tableau=QUIET)
    with_redeals = TERRACE.replace(redeals=3)
    start = Board.from_number(1, with_redeals).position()
    assert Board.from_position(start, with_redeals).position() == start
    with pytest.raises(InvalidPositionError, match="a position before the choice has only"):
        Board.from_position(start[:-1] + "3", with_redeals)  # no pass is used before the choice
    fields = start.split(" ")
    fields[1], fields[5] = fields[1][:-2], fields[1][-2:] + fields[5]  # a terrace card still in the stock
    with pytest.raises(InvalidPositionError, match="a position before the choice has only"):
        Board.from_position(" ".join(fields), with_redeals)
    with pytest.raises(InvalidPositionError, match="foundation 1 holds more than 13 cards"):
        craft(TERRACE, "6", foundations=["6D " + alternate_run("7C", 13)], tableau=QUIET)


def test_a_position_before_the_choice_with_a_card_in_the_waste_or_a_later_pile_is_refused() -> None:
    """Before the choice no card has been drawn and only the candidates'
    piles hold cards (a mutation audit dropped each condition, no test failed)."""
    start = Board.from_number(1, TERRACE).position()
    fields = start.split(" ")
    base, reserve, foundations, tableau, waste, stock, redeals = fields
    assert base == "?" and waste == "-"
    drawn = " ".join([base, reserve, foundations, tableau, stock[:2], stock[2:], redeals])
    with pytest.raises(InvalidPositionError, match="a position before the choice has only"):
        Board.from_position(drawn, TERRACE)
    piles = tableau.split(",")
    piles[TERRACE.candidates] = stock[:2]  # the first pile after the candidates' holds a card
    dealt = " ".join([base, reserve, foundations, ",".join(piles), waste, stock[2:], redeals])
    with pytest.raises(InvalidPositionError, match="a position before the choice has only"):
        Board.from_position(dealt, TERRACE)
    assert Board.from_position(start, TERRACE).position() == start
    with pytest.raises(InvalidPositionError, match="a position must be a string"):
        Board.from_position(None)  # type: ignore[arg-type]


# -- legal moves, clicks, drawing ----------------------------------------------------------------


def test_legal_moves_order_and_container() -> None:
    board = craft(TERRACE, "6", reserve="7H", foundations=["6S"], tableau=["9S", "8H", "6C", *QUIET[3:]],
                  waste="8D", stock="KS")
    moves = [str(m) for m in board.legal_moves]
    assert moves == ["rf", "t3f", "wt1", "t2t1", "s"]
    assert len(board.legal_moves) == 5 and bool(board.legal_moves)
    assert Move.parse("rf1") in board.legal_moves  # a named foundation that accepts is legal too
    assert Move.parse("rf2") not in board.legal_moves
    assert "rf" not in board.legal_moves  # only Move objects are moves
    assert repr(board.legal_moves) == "<LegalMoves (rf, t3f, wt1, t2t1, s)>"


def test_moves_from_and_auto_move() -> None:
    board = craft(TERRACE, "6", reserve="7H", foundations=["6S"], tableau=["9S", "8H", "6C", *QUIET[3:]],
                  waste="8D")
    assert [str(m) for m in board.moves_from("w")] == ["wt1"]
    assert str(board.auto_move("t3")) == "t3f"  # a foundation first
    assert str(board.auto_move("t2")) == "t2t1"
    assert board.auto_move("t4") is None
    # a card that could go home or onto a pile goes home; onto two piles, the first
    both = craft(TERRACE, "6", foundations=["6S"], tableau=["8S", "7H", "8C", "TS", "9D", "TC", *QUIET[6:]])
    assert [str(m) for m in both.moves_from("t2")] == ["t2f", "t2t1", "t2t3"]
    assert str(both.auto_move("t2")) == "t2f"
    assert [str(m) for m in both.moves_from("t5")] == ["t5t4", "t5t6"]
    assert str(both.auto_move("t5")) == "t5t4"
    assert board.peek(Move.parse("rf")) == parse_card("7H")
    assert board.peek(Move.parse("t9f")) == parse_card("4C")
    assert board.peek(Move.parse("f1t1")) == parse_card("6S")
    assert board.peek(Move.parse("t12f")) is None


def test_with_free_spaces_a_click_packs_onto_a_card_before_it_fills_a_space() -> None:
    """With free spaces a click on a card that fits on a pile put it into an
    empty pile with a lower number instead (the waste's 8♦ into empty pile 1,
    not onto the 9♠ of pile 2), spending the space; and a click on a pile's
    only card moved it into another empty pile, a move that changes nothing
    but the pile's number. Now a click packs onto a card first, fills a space
    only when no card takes it, and never moves a lone card into a space; the
    page's click is the same move."""
    from terrace.web.view import describe_sources

    rules = get_rules("terrace", spaces="free")
    board = craft(rules, "6", foundations=["6S"], tableau=["", "9S", "8H", "4S 3H", "KC", "QC", "2C"],
                  waste="8D")
    assert [str(m) for m in board.moves_from("w")] == ["wt1", "wt2", "wt8", "wt9"]
    assert str(board.auto_move("w")) == "wt2"
    assert [str(m) for m in board.moves_from("t3")] == ["t3t1", "t3t2", "t3t8", "t3t9"]
    assert str(board.auto_move("t3")) == "t3t2"  # (a lone card onto a card: its pile is freed)
    assert [str(m) for m in board.moves_from("t5")] == ["t5t1", "t5t8", "t5t9"]
    assert board.auto_move("t5") is None  # (a lone card from space to space: no click moves it)
    assert [str(m) for m in board.moves_from("t4")] == ["t4t1", "t4t8", "t4t9"]
    assert str(board.auto_move("t4")) == "t4t1"  # (no card takes the 3♥: the first space does)
    sources = describe_sources(board)
    for place, page in (("w", "waste"), ("t3", "t3"), ("t4", "t4"), ("t5", "t5")):
        move = board.auto_move(place)
        assert sources[page]["auto"] == (None if move is None else str(move))


def test_a_click_never_takes_a_card_off_a_foundation() -> None:
    """With foundation return a foundation's card can go back to a pile, but
    only by a move the player names: the click's move (send it home) is none."""
    board = Board.from_number(1, get_rules("empress-of-italy"))
    returns: list[str] = []
    while not returns:  # foundation moves first, else the draw: until a card may come back
        moves = list(board.legal_moves)
        board.push(next((m for m in moves if m.to_foundation or m.is_choice), moves[-1]))
        returns = [f"f{i}" for i in range(1, len(board.foundations) + 1) if board.moves_from(f"f{i}")]
    assert returns  # foundation return offers moves ...
    assert all(board.auto_move(place) is None for place in returns)  # ... but a click makes none


def test_str_draws_the_layout() -> None:
    board = Board.from_number(1)
    text = str(board)
    assert "[choosing]" in text and "reserve 11" in text
    assert "[5S]" in text  # the exposed terrace card in brackets
    assert "t1       TD" in text and "t9       --" in text
    play(board, "c1")
    text = str(board)
    assert "base T" in text and "1:TD" in text and "[playing]" in text
    assert repr(board).startswith("Board.from_position('T ")


def test_to_dict_and_counters() -> None:
    board = Board.from_number(1)
    data = board.to_dict()
    assert data["status"] == "choosing" and data["base_rank"] is None
    assert data["candidates"] == ["TD", "KH", "JD"] and data["stock"] == 90
    assert len(data["reserve"]) == 11 and data["reserve"][-1] == "5S"
    play(board, "c1")
    data = board.to_dict()
    assert data["base_rank"] == "T" and data["foundations"][0] == ["TD"] and data["candidates"] == []
    counters = board.counters()
    assert counters == {"base_rank": "T", "foundation_cards": 1, "total_cards": 104, "reserve": 11,
                        "stock": 83, "waste": 0, "tableau": 9, "moves": 1, "redeals_left": 0}


def test_boards_compare_by_rules_and_position() -> None:
    assert Board.from_number(1) == Board.from_number(1)
    assert Board.from_number(1) != Board.from_number(1, TERRACE.replace(candidates=4))
    assert Board.from_number(1) != "board"
    with pytest.raises(TypeError):
        hash(Board.from_number(1))


def test_default_board_is_deal_one() -> None:
    assert Board() == Board.from_number(1)


# -- actions --------------------------------------------------------------------------------------


def test_action_space_size() -> None:
    assert Board.from_number(1).action_count == 3 + 2 + 9 + 9 + 72 + 1
    assert Board.from_number(1, get_rules("falling-star")).action_count == 2 + 9 + 9 + 72 + 1
    empress = get_rules("empress-of-italy")
    assert Board.from_number(1, empress).action_count == 5 + 2 + 11 + 11 + 110 + 16 * 11 + 1


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_action_round_trips(name: str) -> None:
    board = Board.from_number(1, get_rules(name))
    moves = action_moves(board.rules)
    assert len(set(moves)) == len(moves) == board.action_count
    for action in range(board.action_count):
        move = board.action_to_move(action)
        assert board.move_to_action(move) == action
        assert board.move_to_action(Move.parse(str(move))) == action


def test_legal_actions_follow_the_legal_moves() -> None:
    board = craft(TERRACE, "6", reserve="7H", foundations=["6S"], tableau=["9S", "8H", "6C", *QUIET[3:]],
                  waste="8D", stock="KS")
    actions = board.legal_actions()
    assert [board.action_to_move(a) for a in actions] == list(board.legal_moves)
    assert actions == sorted(actions)
    board.apply_action(board.move_to_action(Move.parse("t2t1")))
    assert board.tableau[0] == cards("9S 8H")
    assert board.move_to_action(Move.parse("t3f4")) == board.move_to_action(Move.parse("t3f"))


def test_bad_actions() -> None:
    board = Board.from_number(1)
    for action in (-1, 96, True, "1", 1.0):
        with pytest.raises(InvalidMoveError, match="is not an action: actions run from 0 to 95"):
            board.action_to_move(action)  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError, match="rt1 has no action in these rules"):
        board.move_to_action(Move.parse("rt1"))
    with pytest.raises(InvalidMoveError, match="f1t1 has no action"):
        board.move_to_action(Move.parse("f1t1"))
    with pytest.raises(InvalidMoveError, match="c4 has no action"):
        board.move_to_action(Move.parse("c4"))
    # a foundation past the last has none, as a pile past the last has none
    assert board.move_to_action(Move.parse("rf8")) == board.move_to_action(Move.parse("rf"))
    for text in ("rf9", "rf99", "t99f"):
        with pytest.raises(InvalidMoveError, match=f"{text} has no action"):
            board.move_to_action(Move.parse(text))
    with pytest.raises(IllegalMoveError, match="s: choose a base card first"):
        board.apply_action(95)
    assert board.move_stack == []


def test_a_won_game_with_foundation_return_is_over() -> None:
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0, foundation_return=True)
    foundations = [alternate_run("AS"), alternate_run("AH"), alternate_run("AC"), alternate_run("AD", 12)]
    board = craft(rules, "A", foundations=foundations, tableau=["KD", ""], rest="none")
    assert [str(m) for m in board.legal_moves] == ["t1f", "f4t1"]
    play(board, "t1f")
    assert board.status is Status.WON and list(board.legal_moves) == []
    refused(board, "f1t1", "the game is won: every card stays on the foundations")


def test_legal_moves_view_follows_the_board() -> None:
    board = Board.from_number(1)
    view = board.legal_moves
    assert [str(m) for m in view] == ["c1", "c2", "c3"]
    play(board, "c1")
    assert list(view) == list(board.legal_moves) and "s" in [str(m) for m in view]
    board.pop()
    assert len(view) == 3
    copy = board.copy()
    play(copy, "c2")
    assert len(view) == 3 and len(copy.legal_moves) > 3


# -- the layers: cards (BaseBoard), moves and history (Board), undo records ----------------


def test_the_cards_work_without_moves() -> None:
    board = Board.from_number(4, get_rules("wood"))
    base = BaseBoard.from_position(board.position(), board.rules)
    assert type(base) is BaseBoard and isinstance(board, BaseBoard)
    assert base.layout() == {k: v for k, v in board.to_dict().items() if k != "status"}
    assert str(board).splitlines()[1:] == str(base).splitlines()
    assert base.position_problem() is None and base == board
    assert repr(base).startswith("BaseBoard.from_position(")
    assert not hasattr(base, "push") and Board.from_position(base.position(), base.rules) == board


def test_every_move_leaves_a_typed_undo_record() -> None:
    board = Board.from_number(2, get_rules("terrace").replace(redeals=1))
    play(board, "c1")
    assert isinstance(board._undo[-1], ChoiceUndo)
    play(board, "s")
    assert isinstance(board._undo[-1], DrawUndo) and not board._undo[-1].redealt
    move = next(m for m in board.legal_moves if not m.is_draw)
    board.push(move)
    record = board._undo[-1]
    assert isinstance(record, PlayUndo) and (record.source, record.src_index) == (
        AREA[move.source], max(move.source_index - 1, 0))


def test_undo_records_take_back_exactly() -> None:
    board = BaseBoard(get_rules("falling-star"), Deal.from_number(6, get_rules("falling-star")))
    start = board.position()
    records = [undo.draw(board), undo.draw(board), undo.play(board, WASTE_AREA, 0, TABLEAU_AREA, 0)]
    assert len(board.tableau[0]) == 2
    for record in reversed(records):
        undo.take_back(board, record)
    assert board.position() == start


def test_refusal_gives_the_code_and_why_illegal_its_words() -> None:
    board = craft(TERRACE, "6", reserve="7H", foundations=["6S"], tableau=QUIET, waste="8D", stock="KS")
    reason = board.refusal(Move.parse("rt1"))
    assert reason is not None and reason.code is Refusal.TERRACE_ONLY_TO_FOUNDATION
    assert board.why_illegal(Move.parse("rt1")) == str(reason)
    wanted = board.refusal(Move.parse("wt1"))
    assert wanted is not None and wanted.code is Refusal.PILE_NEEDS
    assert dict(wanted.params) == {"card": "8D", "top": "2S", "pile": 1, "colour": "red", "rank": "A"}
    assert board.refusal(Move.parse("rf")) is None


def test_actions_module_numbers_the_moves() -> None:
    rules = Rules(piles=2, candidates=1)
    assert action_moves(rules) == tuple(Move.parse(t) for t in
                                        ["c1", "rf", "wf", "t1f", "t2f", "wt1", "wt2", "t1t2", "t2t1", "s"])
    assert action_to_move(rules, 3) == Move.parse("t1f") and move_to_action(rules, Move.parse("t2t1")) == 8
    assert play_move(TABLEAU_AREA, 0, TABLEAU_AREA, 1) is action_moves(rules)[7]


@pytest.mark.parametrize("variant", ["terrace", "generals-patience", "madame", "admirals-patience"])
def test_first_foundation_agrees_with_the_foundation_targets(variant: str) -> None:
    import random

    rng = random.Random(variant)
    board = Board.from_number(3, get_rules(variant))
    checked = 0
    for _ in range(400):
        targets = board._foundation_targets()
        key = SUIT_KEY if board.rules.in_suit else COLOUR_KEY
        for card in range(len(key)):
            assert board._first_foundation(card) == targets.get(key[card], -1)
            checked += 1
        moves = list(board.legal_moves)
        if not moves:
            break
        ups = [m for m in moves if m.target == "f"]
        board.push(rng.choice(ups) if ups and rng.random() < 0.7 else rng.choice(moves))
    assert checked > 1000


@pytest.mark.parametrize("make", [
    lambda: Board.from_number(1, "terrace"),  # type: ignore[arg-type]
    lambda: Board.from_deal_text("AS", "terrace"),  # type: ignore[arg-type]
    lambda: Board.from_position("x", "terrace"),  # type: ignore[arg-type]
    lambda: Board("terrace"),  # type: ignore[arg-type]
], ids=["from_number", "from_deal_text", "from_position", "Board"])
def test_a_preset_name_where_rules_belong_is_a_clear_type_error(make: Callable[[], object]) -> None:
    # (was an AttributeError from deep inside: 'str' object has no attribute 'decks')
    with pytest.raises(TypeError, match=r"rules must be a Rules \(for a preset: terrace.get_rules"):
        make()


def test_a_wrong_argument_type_says_what_to_pass() -> None:
    board = Board.from_number(1)
    for call in (lambda: board.is_legal("c1"), lambda: board.refusal("c1"),  # type: ignore[arg-type]
                 lambda: board.move_to_action("c1"), lambda: board.push("c1"),  # type: ignore[arg-type]
                 lambda: board.auto_move(None),  # type: ignore[arg-type]
                 lambda: Deal.from_number(1, "terrace"),  # type: ignore[arg-type]
                 lambda: Deal.parse("AS", "terrace"),  # type: ignore[arg-type]
                 lambda: Board(Rules(), "AS 2S"),  # type: ignore[arg-type]
                 ):
        with pytest.raises(TypeError, match=r"takes|must be"):
            call()
    assert board.move_stack == []


def test_an_action_may_be_any_whole_number_type() -> None:
    class Index:
        def __index__(self) -> int:
            return 1

    board = Board.from_number(1)
    board.apply_action(Index())  # type: ignore[arg-type]  # (numpy's int64 is such a number)
    assert [str(m) for m in board.move_stack] == ["c2"]


def test_copy_copy_shares_nothing() -> None:
    import copy

    board = Board.from_number(1)
    twin = copy.copy(board)
    twin.push_text("c1")
    assert board.move_stack == [] and board.choosing and not twin.choosing


def test_foundation_accepts_nothing_while_choosing_and_refuses_bad_arguments() -> None:
    """It said the four kings were taken while the base card was being
    chosen, took -1 as a card, and raised IndexError for 8 foundations' 8."""
    board = Board.from_number(1)
    assert not any(board.foundation_accepts(0, card) for card in range(52))
    for index, card in ((8, 0), (-1, 0), (True, 0), (0, 52), (0, -1), (0, 2**64), ("0", 0)):
        with pytest.raises(ValueError, match=r"a (foundation index runs|card is a whole number)"):
            board.foundation_accepts(index, card)  # type: ignore[arg-type]
    board.push_text("c1")
    base = board.foundations[0][0]
    assert any(board.foundation_accepts(1, card) for card in range(52) if card != base)


def test_a_place_is_named_as_the_notation_or_the_page_names_it_and_others_are_refused() -> None:
    """auto_move's own message suggested 'waste', which then found nothing,
    and 'foo' or 'T1' gave None as if the place had no move."""
    board = Board.from_number(0, get_rules("falling-star"))
    for _ in range(3):
        board.push_text("s")
    assert board.auto_move("waste") == board.auto_move("w") and board.moves_from("W") == board.moves_from("w")
    assert board.moves_from("T1") == board.moves_from("t1")
    for place in ("foo", "t0", "t10", "t01", "f9", "t١", ""):
        with pytest.raises(ValueError, match="is not a place here: write r"):
            board.moves_from(place)
        with pytest.raises(ValueError, match="is not a place here"):
            board.auto_move(place)
    with pytest.raises(TypeError, match="moves_from takes a place"):
        board.moves_from(object())  # type: ignore[arg-type]


def test_wrong_argument_types_of_public_helpers_are_type_errors_that_say_what_to_pass() -> None:
    """They raised AttributeError ('NoneType' object has no attribute 'stock';
    hidden_count: 'str' object has no attribute 'redeals_used')."""
    from terrace.record import GameRecord
    from terrace.solver.observation import hidden_count, observe

    board = Board.from_number(1)
    for call, words in ((lambda: observe(None), "observe takes a Board"),  # type: ignore[arg-type]
                        (lambda: hidden_count("t1f"), "hidden_count takes a Board"),  # type: ignore[arg-type]
                        (lambda: GameRecord.from_board(5), "from_board takes a Board"),  # type: ignore[arg-type]
                        (lambda: board.peek("t1f"), "peek takes a Move"),  # type: ignore[arg-type]
                        (lambda: Rules.from_dict({}, "terrace"), "rules must be a Rules"),  # type: ignore[arg-type]
                        (lambda: Rules.from_dict({}, 5), "rules must be a Rules")):  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=words):
            call()


def test_numpy_whole_numbers_are_taken_everywhere_and_kept_as_ints() -> None:
    """They worked as actions but were refused as deal numbers, rule values
    and move numbers ("not a whole number")."""
    np = pytest.importorskip("numpy")
    board = Board.from_number(np.int64(5), Rules(decks=np.int64(2), piles=np.int64(9)))
    assert board.deal is not None and type(board.deal.number) is int and board.deal.number == 5
    assert type(board.rules.decks) is int and board.rules == Rules(decks=2, piles=9)
    move = Move("c", np.int64(1))
    assert type(move.source_index) is int and move == Move.parse("c1")
    assert hash(move) == hash(Move.parse("c1"))
    board.push(move)
    plain = Board.from_number(5, Rules())
    plain.push_text("c1")
    assert board.position() == plain.position()
    for refused in (np.True_, np.float64(2.0)):
        with pytest.raises(ValueError, match="whole number"):
            Board.from_number(refused, Rules())


def test_a_numpy_truth_value_is_taken_as_a_rule_s_yes_or_no() -> None:
    """Rules(foundation_return=np.True_) said "foundation_return must be true
    or false, not np.True_" (untrue), where numpy's whole numbers are taken
    for the number options; a numpy number is still no truth value."""
    np = pytest.importorskip("numpy")
    for given, plain in ((np.True_, True), (np.False_, False), (np.bool_(1), True)):
        rules = Rules(foundation_return=given)
        assert type(rules.foundation_return) is bool and rules == Rules(foundation_return=plain)
    for refused in (np.int64(1), np.float64(1.0), 1, "true", None):
        with pytest.raises(ValueError, match="foundation_return must be true or false"):
            Rules(foundation_return=refused)


def test_numpy_numbers_are_taken_by_foundation_accepts_and_copy() -> None:
    """foundation_accepts(np.int64(0), card) said "a foundation index runs
    from 0 to 7 here, not np.int64(0)" and copy(keep=np.int64(1)) "keep is
    a number of moves, 0 or more, not np.int64(1)": both untrue."""
    np = pytest.importorskip("numpy")
    board = Board.from_number(1)
    board.push_text("c1")
    base = board.foundations[0][0]
    expected = [board.foundation_accepts(1, card) for card in range(52)]
    assert [board.foundation_accepts(np.int64(1), np.int64(card)) for card in range(52)] == expected
    assert expected[base] and not all(expected)  # (foundation 2 is empty: any card of the base rank)
    board.push_text("s")
    recent = board.copy(keep=np.int64(1))
    assert recent.move_stack == [Move.parse("s")] and recent == board
    with pytest.raises(ValueError, match=r"keep is a number of moves, 0 or more, not 1\.0"):
        board.copy(keep=1.0)  # type: ignore[arg-type]


def test_a_copy_of_a_subclass_is_of_that_subclass() -> None:
    """Board.copy() made a plain Board from a subclass (as from_number and
    from_position do not): a researcher's board with methods of its own lost
    them on the first copy."""
    import copy

    class Mine(Board):
        def tops(self) -> list[int]:
            return [pile[-1] for pile in self.tableau if pile]

    board = Mine.from_number(4)
    board.push_text("c1")
    for twin in (board.copy(), board.copy(stack=False), board.copy(keep=0), copy.copy(board)):
        assert type(twin) is Mine and twin.tops() == board.tops() and twin == board
    assert type(Mine.from_position(board.position(), board.rules)) is Mine


class _Noting(Board):
    """A researcher's board with attributes of its own, set as it is made."""

    def __init__(self, rules: Rules | None = None, deal: Deal | None = None) -> None:
        super().__init__(rules, deal)
        self.label = "mine"
        self.notes: list[str] = []


class _NotingAlone(_Noting):
    """A subclass that copies its notes for each copy, as python-chess's
    variant boards copy their own state in their copy()."""

    def copy(self, *, stack: bool = True, keep: int | None = None, redo: int | None = None) -> _NotingAlone:
        other = super().copy(stack=stack, keep=keep, redo=redo)
        assert isinstance(other, _NotingAlone)
        other.notes = list(self.notes)
        return other


def test_a_copy_of_a_subclass_has_the_attributes_the_subclass_gave_it() -> None:
    """Board.copy() made the copy without its constructor and copied the
    Board's own attributes only: a subclass's were missing on the copy
    (AttributeError: 'label'), and so on the board of a State made from it
    (State copies the board) and on every board() it gave. They are the
    copy's now, as they are (shared, as State.clone shares a subclass's;
    copy.deepcopy copies them), and a subclass that wants its own copies
    makes them in its copy(), as python-chess's variant boards do."""
    import copy

    board = _Noting.from_number(4)
    board.push_text("c1")
    board.notes.append("chose c1")
    for twin in (board.copy(), board.copy(stack=False), board.copy(keep=0, redo=0), copy.copy(board)):
        assert type(twin) is _Noting and twin.label == "mine" and twin.notes is board.notes
    deep = copy.deepcopy(board)
    assert deep.notes == board.notes and deep.notes is not board.notes
    state = State(board)
    state.apply_action(state.legal_actions()[0])
    state.undo()
    seen = state.board()
    assert isinstance(seen, _Noting) and seen.label == "mine" and seen.notes == ["chose c1"]
    alone = _NotingAlone.from_number(4)
    alone.notes.append("first")
    other = alone.copy()
    other.notes.append("second")
    assert alone.notes == ["first"] and other.notes == ["first", "second"] and other.label == "mine"


def test_a_boards_own_attributes_are_those_it_declares() -> None:
    """Board.extras() tells a subclass's attributes by the names the
    classes declare: a board that has played, been copied and listed its
    moves has none other."""
    board = Board.from_number(2)
    board.push_text("c2")
    assert len(board.legal_moves) and board.extras() == {} and board.copy(keep=1).extras() == {}
    assert _Noting.from_number(2).extras() == {"label": "mine", "notes": []}


@pytest.mark.parametrize(("call", "code", "german"), [
    (lambda board: board.moves_from("t12"), Refusal.PLACE_UNKNOWN,
     "„t12“ ist hier kein Platz: r (die Terrasse), w (der Abwurfstapel), t1 bis t9 oder f1 bis f8 "
     "schreiben."),
    (lambda board: board.auto_move("x"), Refusal.PLACE_UNKNOWN, None),
    (lambda board: board.foundation_accepts(8, 0), Refusal.FOUNDATION_INDEX_RANGE,
     "Die Nummer eines Zielstapels reicht hier von 0 bis 7, nicht 8."),
    (lambda board: board.copy(keep=-1), Refusal.MOVE_COUNT_RANGE,
     "keep ist eine Anzahl Züge, 0 oder mehr, nicht -1."),
    (lambda board: board.copy(redo=1.5), Refusal.MOVE_COUNT_RANGE, None),
])
def test_the_boards_refusals_of_a_place_an_index_or_a_count_have_codes(
        call: Callable[[Board], object], code: Refusal, german: str | None) -> None:
    """The engine raises its errors with a refusal code, whose words each
    front end shows in its language (errors.py); a place, a foundation
    index or a number of moves it could not take was a plain ValueError
    with English words only, and no code."""
    board = Board.from_number(1, TERRACE)
    with pytest.raises(InvalidMoveError) as refused:
        call(board)
    assert refused.value.code is code
    if german is not None:
        assert refused.value.text("de") == german


def test_the_action_space_of_a_preset_name_says_what_to_pass() -> None:
    """notation.md points reinforcement-learning code at
    terrace.actions.action_moves(rules); action_moves("terrace") raised
    AttributeError ("'str' object has no attribute 'piles'")."""
    from terrace.actions import action_index

    for call in (lambda: action_moves("terrace"), lambda: action_index("terrace"),  # type: ignore[arg-type]
                 lambda: action_to_move("terrace", 0), lambda: move_to_action("terrace", Move.draw()),  # type: ignore[arg-type]
                 lambda: move_to_action("terrace", Move.parse("wf3"))):  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"rules must be a Rules \(for a preset: terrace.get_rules"):
            call()
    assert action_moves(get_rules("terrace"))[-1] == Move.draw()


def test_the_shared_action_numbers_cannot_be_changed_by_a_caller() -> None:
    """action_index(rules) gave its cached dict itself: a caller that
    changed it (action_index(rules)[Move.parse('s')] = 0) changed the
    actions of every board of those rules (legal_actions() then listed the
    draw as action 0, 'c1')."""
    from terrace.actions import action_index

    rules = get_rules("terrace")
    board = Board.from_number(1, rules)
    board.push_text("c1")
    before = board.legal_actions()
    with pytest.raises(TypeError):
        action_index(rules)[Move.draw()] = 0  # type: ignore[index]
    with pytest.raises((TypeError, AttributeError)):
        action_index(rules).clear()  # type: ignore[attr-defined]
    assert board.legal_actions() == before and action_index(rules)[Move.draw()] == board.action_count - 1


def test_the_action_of_a_move_given_as_text_says_what_to_pass() -> None:
    """terrace.actions.move_to_action(rules, "wf") raised AttributeError
    ("'str' object has no attribute 'target'"), where the board's method
    says what to pass."""
    rules = get_rules("terrace")
    for move in ("wf", None, 95):
        with pytest.raises(TypeError, match=r"move_to_action takes a Move, not \w+: use board.move_to_"):
            move_to_action(rules, move)  # type: ignore[arg-type]
    assert move_to_action(rules, Move.parse("wf")) == Board.from_number(1).move_to_action(Move.parse("wf"))


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u2028", "\u0085", "\x1c"])
def test_a_unicode_space_separates_no_fields_of_a_position(space: str) -> None:
    """Board.from_position split on any Unicode white space, while
    docs/notation.md gives fields separated by spaces and the move reader
    takes ASCII white space only: a position with U+00A0 or U+3000 between
    its fields read here and nowhere else. Another space is part of a
    field, so the position is refused."""
    text = Board.from_number(7).position()
    with pytest.raises(InvalidPositionError):
        Board.from_position(text.replace(" ", space, 1))
    for ascii_space in ("  ", "\t", "\n", "\r\n"):  # (ASCII white space still separates)
        assert Board.from_position(f" {text.replace(' ', ascii_space)}\n").position() == text


def test_a_position_with_a_field_too_many_counts_its_fields_as_it_reads_them() -> None:
    """The fields are split at ASCII white space only, but a position with
    one field too many was refused as having the number of words any
    Unicode space separates: "this one has 9" for eight fields, the last
    two joined by a U+00A0."""
    text = Board.from_number(7).position()
    with pytest.raises(InvalidPositionError) as info:
        Board.from_position(text + " 2S\u00a0AS")
    assert str(info.value) == "a position has 7 space-separated fields, this one has 8"


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u2028", "\x1c"])
def test_a_place_is_surrounded_by_ascii_white_space_only(space: str) -> None:
    """moves_from and auto_move stripped any Unicode space around a place,
    so '\\xa0t1' named pile 1, where a move ('\\xa0t1f') or a card
    ('\\xa0AS') with that space around it is refused; it is no place."""
    board = Board.from_number(0, get_rules("falling-star"))
    assert board.moves_from(" t1\t") == board.moves_from("t1")  # (ASCII white space is skipped)
    for place in (f"{space}t1", f"w{space}"):
        for method in (board.moves_from, board.auto_move):
            with pytest.raises(ValueError, match="is not a place here: write r"):
                method(place)


@pytest.mark.parametrize("moves", ["", "c1", "c1 s s"])
def test_a_copy_without_its_history_has_the_same_legal_moves(moves: str) -> None:
    """A copy made with ``stack=False`` answers the legal moves of its own
    position, not a cached empty list (a mutation audit: the copy's cache
    counter set equal to its position counter went unnoticed)."""
    board = Board.from_number(1)
    play(board, moves)
    copy = board.copy(stack=False)
    assert list(copy.legal_moves) == list(board.legal_moves) != []
    assert len(copy.legal_moves) == len(board.legal_moves) and bool(copy.legal_moves)


def test_the_drawing_shows_the_reserve_whole_and_the_last_five_of_the_waste() -> None:
    """The text drawing of a board (``terrace show``) lists the whole
    reserve and the waste's last five cards, the playable card of each in
    brackets; found by a mutation audit (no test read the drawing)."""
    text = deal_text(TERRACE, RESERVE + " 6D " + " ".join(QUIET[1:]) + "  2C 3C 4C 2H 3H 4H 5H 6H")
    board = Board.from_deal_text(text, TERRACE)
    play(board, "c1 s s s s s s s")
    lines = board.drawing()
    assert lines[0] == "reserve  KS QS JS TS 9S 8S 7S 6S 5S 4S [3S]"
    assert board.waste == cards("3C 4C 2H 3H 4H 5H 6H")
    assert lines[2] == f"stock    {len(board.stock)}  waste  2H 3H 4H 5H [6H]"
    for _ in range(6):
        board.pop()
    assert board.drawing()[2] == f"stock    {len(board.stock)}  waste  [3C]"


def test_choosing_a_later_pile_with_promote_candidates_off_leaves_the_first_pile_alone() -> None:
    """With promote_candidates off, choosing the 6C in pile 3 leaves the 6D
    of pile 1 in the tableau (a mutation audit: pile 1 still promoted with
    the option off went unnoticed, as every such test chose pile 1)."""
    rules = TERRACE.replace(promote_candidates=False)
    text = deal_text(rules, RESERVE + " 6D 7S 6C  2H 3H 4H 5H 6H 7H 8H 9H  TH JH")
    board = Board.from_deal_text(text, rules)
    play(board, "c3")
    assert board.foundations[:2] == [cards("6C"), []]
    assert board.tableau[0] == cards("6D") and board.tableau[2] == cards("2H")


def test_peek_names_every_candidate_while_choosing() -> None:
    """``peek`` names the card of each candidate, the last one too (a
    mutation audit: ``<`` for ``<=`` on the last candidate went
    unnoticed), and no card past them."""
    text = deal_text(TERRACE, RESERVE + " 6D 7S 8C")
    board = Board.from_deal_text(text, TERRACE)
    assert [board.peek(Move("c", i)) for i in (1, 2, 3)] == cards("6D 7S 8C")
    assert board.peek(Move("c", 4)) is None
