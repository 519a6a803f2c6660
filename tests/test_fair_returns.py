"""The fair player does not take its own move between two piles straight
back when it has learnt nothing since (no draw in between): the two moves
together achieve nothing, yet two decisions from the same knowledge, each
on its own samples, disagreed (Wood deal 10: t1t2, t3t8, t2t1; Wood deal
11: t2t8, t5f, t1f, t8t2; four such pairs in twelve Wood games, none of
which a draw had shown anything new for)."""

from __future__ import annotations

from terrace.board import Board
from terrace.moves import Move
from terrace.solver.fair import FairSettings, without_returns
from terrace.solver.history import stage_moves, takes_back
from terrace.solver.observation import observe
from terrace.solver.players import deal_seed, make_player
from terrace.solver.playout import play_out
from terrace.variants import get_rules


def returns_with_nothing_learnt(board: Board, moves: list[Move]) -> list[tuple[int, int]]:
    """The pairs (i, j) of a pile-to-pile move of ``moves`` (played from
    ``board``) and the later move that takes its card straight back,
    nothing touching either pile and the stock unchanged in between."""
    stock = []
    replay = board.copy(stack=False)
    for move in moves:
        stock.append((replay.redeals_used, len(replay.stock)))
        replay.push(move)
    pairs: list[tuple[int, int]] = []
    for i, move in enumerate(moves):
        if move.source != "t" or move.target != "t":
            continue
        piles = {move.source_index, move.target_index}
        for j in range(i + 1, len(moves)):
            later = moves[j]
            if stock[j] != stock[i]:
                break
            if (later.source == "t" and later.source_index in piles) or (
                    later.target == "t" and later.target_index in piles):
                back = (later.source_index, later.target_index) == (move.target_index, move.source_index)
                if later.source == later.target == "t" and back:
                    pairs.append((i, j))
                break
    return pairs


def test_the_fair_player_does_not_undo_its_own_move_with_nothing_learnt() -> None:
    """Wood deal 10, the fair player's game as the surveys play it: moves
    15-17 were t1t2, t3t8, t2t1."""
    board = Board.from_number(10, get_rules("wood"))
    played = play_out(board, make_player("fair", {}, deal_seed(0, 10)), max_moves=20)
    assert returns_with_nothing_learnt(board, list(played.moves)) == [], [str(m) for m in played.moves]


WOOD_10 = "t9f t7t1 s wt5 s s t2t3 wt2 wt7 s wf s s s"
"""The first 14 moves of the fair player's game on Wood deal 10."""


def test_a_return_counts_only_with_nothing_learnt() -> None:
    board = Board.from_number(10, get_rules("wood"))
    for text in WOOD_10.split():
        board.push_text(text)
    back = Move.parse("t2t1")
    assert stage_moves(board) == []
    board.push_text("t1t2")
    assert back in board.legal_moves and back not in observe(board).moves  # (the position before)
    board.push_text("t3t8")  # nothing learnt: the pair would only have moved another card
    seen = observe(board)
    assert seen.returns == (back,) and back in seen.moves
    assert back not in without_returns(seen).moves
    board.push_text("s")  # a draw showed a card: moving back may be wise now
    assert takes_back(board, back) and back in observe(board).moves and observe(board).returns == ()


def test_a_card_turned_up_by_the_move_itself_is_learnt() -> None:
    """In Falling Star a pile emptied is filled from the stock at once: the
    move showed a card, so moving back later is not a move that achieves
    nothing."""
    board = Board.from_number(3, get_rules("falling-star"))
    for text in ("t5t3", "t4f"):
        board.push_text(text)
    assert Move.parse("t3t5") in observe(board).moves and observe(board).returns == ()


def test_the_return_is_left_when_it_is_the_only_move() -> None:
    board = Board.from_number(4, get_rules("falling-star"))
    seen = observe(board)
    fake = type(seen)(**{**{name: getattr(seen, name) for name in seen.__dataclass_fields__},
                         "moves": seen.moves[:1], "returns": seen.moves[:1]})
    assert without_returns(fake).moves == seen.moves[:1]
    two = type(seen)(**{**{name: getattr(seen, name) for name in seen.__dataclass_fields__},
                        "moves": seen.moves[:2], "returns": seen.moves[:1]})
    assert without_returns(two).moves == seen.moves[1:2]
    assert FairSettings().samples == 16  # (the settings the surveys' games use)


FALLING_STAR_1 = ("t3t5 s wf t6t5 t3t1 s t8t7 s s t6t4 t2t6 s s s s wt5 s wt4 s t4f s t4f s t4f wt4 wt9 "
                  "wt1 s t2t1 s t6t2 t2t6 s s s wt1")
"""A random game of Falling Star deal 1 up to where pile 3 holds one card
and the waste is not empty."""


def test_a_move_back_onto_a_card_that_filled_the_space_is_no_return() -> None:
    """Moving pile 3's lone card to pile 1 empties pile 3, which the waste
    card fills at once (no stock card shown); moving the card back puts it
    on that waste card: another position, not a return, yet it was named one."""
    board = Board.from_number(1, get_rules("falling-star"))
    for text in FALLING_STAR_1.split():
        board.push_text(text)
    filled = len(board.waste)
    board.push_text("t3t1")
    assert len(board.waste) == filled - 1 and len(board.tableau[2]) == 1
    back = Move.parse("t1t3")
    assert back in observe(board).moves and observe(board).returns == ()
