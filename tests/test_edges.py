"""Edge positions of the rule options: no terrace, one pile, every candidate
of one rank, a space at the very end of the stock, a redeal with nothing to
turn over, eight packs' deals at the ends of the numbering."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import alternate_run, craft
from terrace.board import Board, Status
from terrace.cards import CODE, RANK, full_pack, parse_card
from terrace.deal import MAX_DEAL_NUMBER, Deal
from terrace.errors import IllegalMoveError, InvalidDealError
from terrace.moves import Move
from terrace.refusals import Reason, Refusal
from terrace.rules import RULE_OPTIONS, Rules
from terrace.variants import get_rules
from test_properties_wide import complete_foundations, text_of


def refused(board: Board, text: str, reason: str) -> None:
    """``text`` is refused for ``reason`` and changes nothing."""
    before = board.position()
    assert board.why_illegal(Move.parse(text)) == reason
    assert Move.parse(text) not in list(board.legal_moves)
    with pytest.raises(IllegalMoveError):
        board.push_text(text)
    assert board.position() == before


def test_a_terrace_of_no_cards() -> None:
    board = Board.from_number(4, Rules(reserve=0))
    assert board.reserve == [] and board.position().split()[1] == "-"
    board.push_text("c2")
    assert len(board.tableau[1]) == 1 and len(board.stock) == 104 - 1 - 9
    refused(board, "rf", "the terrace (reserve) is empty")
    refused(board, "rt1", "the terrace (reserve) is empty")


def test_one_pile() -> None:
    rules = Rules(decks=1, reserve=0, piles=1, candidates=1)
    assert [str(m) for m in Board.from_number(0, rules).legal_moves] == ["c1"]
    board = Board.from_number(0, rules)
    assert board.action_count == 6  # c1 rf wf t1f wt1 s: no pile goes onto another
    board.push_text("c1")
    assert [len(p) for p in board.tableau] == [1] and len(board.foundations[0]) == 1
    assert all(m.source != "t" or m.target != "t" for m in board.legal_moves)
    refused(board, "wt2", "the waste is empty")
    board.push_text("s")
    refused(board, "wt2", "there is no pile 2 (the only pile is pile 1)")


@pytest.mark.parametrize(("decks", "piles"), [(1, 4), (8, 20)])
def test_every_candidate_of_one_rank_starts_a_foundation(decks: int, piles: int) -> None:
    """Every candidate is a six, and the reserve is as long as the packs
    allow, so the stock holds a single card when the choice is made: every
    candidate starts a foundation, the one stock card goes to pile 1 and the
    other piles stay empty (nothing is left to fill them)."""
    rules = Rules(decks=decks, piles=piles, candidates=piles,
                  reserve=RULE_OPTIONS["reserve"].limits({"decks": decks, "piles": piles})[1])
    pack = full_pack(decks)
    candidates = [c for c in pack if RANK[c] == 5][-piles:]
    rest = Counter(pack) - Counter(candidates)
    others = sorted(rest.elements(), key=lambda c: RANK[c] == 5)  # (a six last: one more for the stock)
    reserve, stock = others[:-1], others[-1:]
    assert len(reserve) == rules.reserve
    assert len(candidates) == piles and all(RANK[c] == 5 for c in candidates) and len(stock) == 1
    board = Board(rules, Deal(tuple(reserve + candidates + stock)))
    start = board.position()
    board.push_text(f"c{piles}")
    assert [len(f) for f in board.foundations] == [1] * piles + [0] * (4 * decks - piles)
    assert board.foundations[0] == [candidates[-1]]  # (the chosen card starts foundation 1)
    assert board.tableau == [stock] + [[]] * (piles - 1) and board.stock == []
    assert Board.from_position(board.position(), rules) == board
    board.pop()
    assert board.position() == start


def end_of_stock(redeals: int) -> Board:
    """One pack, base ace, two piles (the JD and the KD); the QC is the last
    card of the stock and the waste is empty: the foundations wait for the
    JD, QC and KD in turn."""
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0, redeals=redeals)
    foundations = [alternate_run("AS"), alternate_run("AH"), alternate_run("AC"), alternate_run("AD", 10)]
    return craft(rules, "A", foundations=foundations, tableau=["JD", "KD"], stock="QC", rest="none")


def test_a_space_at_the_very_end_of_the_stock() -> None:
    board = end_of_stock(0)
    board.push_text("t1f")  # pile 1 empties: the stock's last card fills it
    assert board.tableau == [[parse_card("QC")], [parse_card("KD")]] and board.stock == []
    refused(board, "s", "the stock is empty")
    board.push_text("t1f")  # empties again: nothing is left to fill it
    assert board.tableau[0] == [] and board.status is Status.PLAYING
    refused(board, "t2t1", "pile 1 stays empty: spaces are refilled only from the waste or the stock, "
                           "and both are used up")
    board.push_text("t2f")
    assert board.status is Status.WON and not board.legal_moves


def test_a_redeal_with_an_empty_waste_is_no_move() -> None:
    """With redeals left but the stock and the waste both used up, a draw
    was refused with just "the stock is empty", while the counters showed
    two redeals left: it now says why no redeal is made."""
    board = end_of_stock(2)
    board.push_text("t1f")
    assert board.stock == [] and board.waste == []
    refused(board, "s", "the stock and the waste are both empty: a redeal has no card to turn over")
    assert board.counters()["redeals_left"] == 2 and board.redeals_used == 0
    assert board.refusal(Move.draw()) == Reason(Refusal.NOTHING_TO_REDEAL)


@pytest.mark.parametrize("number", [0, MAX_DEAL_NUMBER])
def test_eight_packs_deal_at_the_ends_of_the_numbering(number: int) -> None:
    rules = Rules(decks=8, reserve=100, piles=20, candidates=20)
    deal = Deal.from_number(number, rules)
    assert Counter(deal.cards) == Counter(full_pack(8)) and len(deal.cards) == 416
    again = Deal.parse(" ".join(CODE[c] for c in deal.cards), rules, number)
    assert again == deal
    board = Board(rules, deal)
    board.push_text("c20")
    assert board.status in (Status.PLAYING, Status.LOST)
    for wrong in (-1, MAX_DEAL_NUMBER + 1):
        with pytest.raises(InvalidDealError, match="deal numbers run from 0 to"):
            Deal.from_number(wrong, rules)
    other = MAX_DEAL_NUMBER - 1 if number else 1
    with pytest.raises(InvalidDealError, match=f"these cards are not deal number {other}"):
        Deal.parse(" ".join(CODE[c] for c in deal.cards), rules, other)


# -- docs/rules.md, "The end of the game": games that need not end --------------------------


def three_cards_out(rules: Rules) -> Board:
    """Two packs, base ten, the stock, waste and terrace used up: every card
    is home but the 9♦ and 8♣ of foundation 2 (in pile 1) and the 9♦ of
    foundation 6 (in pile 2)."""
    foundations = complete_foundations(rules, 9)
    first = [foundations[1].pop(), foundations[1].pop()]  # (the 9♦, then the 8♣ on it)
    second = [foundations[5].pop()]
    assert [CODE[c] for c in first + second] == ["9D", "8C", "9D"]
    piles = [first, second] + [[] for _ in range(rules.piles - 2)]
    return Board.from_position(text_of(rules, 9, [], foundations, piles), rules)


@pytest.mark.parametrize(("changes", "cycle"), [
    ({}, "t1t2 t2t1"),  # an 8♣ between two 9♦, in the standard game
    ({"spaces": "free"}, "t2t3 t3t2"),  # a lone card between its pile and an empty one
    ({"foundation_return": True}, "f2t1 t1f"),  # a card down from a foundation and back up
])
def test_a_game_may_go_round_in_a_circle_with_the_stock_used_up(
        changes: dict[str, object], cycle: str) -> None:
    """What docs/rules.md says of the end of the game: such a game stays
    "playing" (never lost while a move remains), and the moves come back to
    the very position they left."""
    rules = get_rules("terrace", **changes)
    board = three_cards_out(rules)
    start = board.position()
    assert not board.stock and not board.waste and not board.reserve
    for _ in range(3):
        for text in cycle.split():
            assert board.status is Status.PLAYING
            board.push_text(text)
        assert board.position() == start
    assert board.status is Status.PLAYING and len(board.move_stack) == 6
