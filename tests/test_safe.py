"""Moves auto-play may make: a safe foundation move never turns a position
that can be won into one that cannot (checked against a plain exhaustive
search and the solver), and a finish line is only offered when it wins."""

from __future__ import annotations

import pytest

from conftest import alternate_run, craft
from solver_brute import brute_force, endgame_position
from terrace.board import Board
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import finish_line, safe_moves, solve
from terrace.solver.safe import foundation_moves
from test_solver import RULE_SETS as SOLVER_RULE_SETS

RULE_SETS = [rules for rules in SOLVER_RULE_SETS if not rules.foundation_return]
"""The solver tests' rule sets that have safe moves."""

# Two copies of the red 4 wait for the one foundation that wants them: 4H
# alone on pile 1 and 4D on the black 5 of pile 2. Putting 4H up first
# leaves 4D with nowhere to go (the other black foundation needs 3C, deep in
# the terrace, and only the empty waste may fill a space); 4D first wins.
TRAP = (
    "A 5S3C6H AS2H3S,AC2D,AH2S3H4S5H6S7H8S9HTSJHQSKH,AD2C3D4C5D6C7D8C9DTCJDQCKD "
    "4H,5C4D,KSQHJCTD9S8H7C6D,KCQDJSTH9C8D7S - - 0"
)
TRAP_RULES = Rules(decks=1, reserve=3, piles=4, candidates=0, spaces="waste")


def after(board: Board, *moves: Move) -> Board:
    copy = board.copy(stack=False)
    for move in moves:
        copy.push(move)
    return copy


def home_alone(board: Board) -> bool:
    """Can foundation moves alone win? Every order, exhaustively."""
    if board.is_won():
        return True
    seen = {board.position()}
    stack = [board.copy(stack=False)]
    while stack:
        current = stack.pop()
        for move in foundation_moves(current):
            child = after(current, move)
            if child.is_won():
                return True
            if child.position() not in seen:
                seen.add(child.position())
                stack.append(child)
    return False


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_safe_moves_never_lose_a_game_that_can_be_won(rules: Rules) -> None:
    checked = 0
    for seed in range(100):
        if checked >= 12:
            break
        board = endgame_position(seed, rules, 15)
        moves = safe_moves(board)
        legal = set(board.legal_moves)
        assert all(m in legal and m.target == "f" for m in moves)
        if not moves:
            continue
        before = brute_force(board, 20_000)
        if before is None:
            continue
        for move in moves:
            # (after a lost position every position is lost: the plain search
            # of what follows it, a full walk of its graph, can tell nothing)
            if before == "won":
                assert brute_force(after(board, move), 20_000) == "won", (board.position(), str(move))
            checked += 1
        # Auto-play's loop: safe moves one after the other, then the solver.
        current = board.copy(stack=False)
        while (more := safe_moves(current)):
            current.push(more[0])
        assert solve(current, max_seconds=5).result == before, board.position()
    assert checked >= 5


# Foundation moves that lose a game that can be won, one for each condition
# of the rule: the count (two copies of 2D wait, one foundation wants them:
# the one under AD must go first), the holder (5S must stay in its pile for
# 4H, which covers 3H in the waste), and the count again (4H and 4D wait for
# one foundation, see TRAP).
LOSING_MOVES = [
    ("2 ASKHAH 2S3S4S5S6S7S8S9STSJSQSKSAS,2H3H4H5H6H7H8H9HTHJHQHKH,2D3D4D5D6D7D8D9DTDJDQD,"
     "2C3C4C5C6C7C8C9CTCJCQCKC,2S3S4S5S6S7S8S9STSJSQSKS,2H3H4H5H6H7H8H9HTHJHQH,"
     "2D3D4D5D6D7D8D9DTDJDQDKD,2C3C4C5C6C7C8C9CTCJCQCKCAC AD,AH,KD AC AD 0",
     Rules(decks=2, reserve=6, piles=3, candidates=0, foundations="suit", spaces="free"), "t2f"),
    ("A 7S5H AS2S3S4S,AH2H,AD2D3D4D5D6D7D8D9DTDJDQDKD,AC2C3C4C5C6C7C8C9CTCJCQCKC "
     "6H5S,KHQSJHTS9H8S7H6S,KSQHJSTH9S8H 3H4H - 0",
     Rules(decks=1, reserve=2, piles=3, candidates=0, foundations="suit"), "t1f"),
    (TRAP, TRAP_RULES, "t1f"),
]


@pytest.mark.parametrize(("position", "rules", "text"), LOSING_MOVES)
def test_a_foundation_move_that_loses_is_not_safe(position: str, rules: Rules, text: str) -> None:
    board = Board.from_position(position, rules)
    move = Move.parse(text)
    assert move in set(board.legal_moves)
    assert brute_force(board) == "won"
    assert brute_force(after(board, move)) == "lost"
    assert solve(after(board, move), max_seconds=5).result == "lost"
    assert move not in safe_moves(board)


def test_no_safe_moves_while_choosing_or_with_foundation_return() -> None:
    board = Board.from_number(3, Rules())
    assert board.choosing and safe_moves(board) == []
    rules = Rules(decks=1, reserve=4, piles=2, candidates=0, foundation_return=True)
    assert all(safe_moves(endgame_position(seed, rules, 6)) == [] for seed in range(10))


def test_finish_line_searches_the_order() -> None:
    board = Board.from_position(TRAP, TRAP_RULES)
    greedy = board.copy(stack=False)
    while (moves := foundation_moves(greedy)):
        greedy.push(moves[0])
    assert not greedy.is_won()          # the first foundation move each time gets stuck
    line = finish_line(board)
    assert line is not None and str(line[0]) == "t2f"
    assert after(board, *line).is_won()


def _without_stock(board: Board) -> Board | None:
    """The position with the stock turned onto the waste (None when the
    rules do not allow that position)."""
    fields = board.position().split()
    if fields[5] != "-":
        fields[4] = (fields[4] if fields[4] != "-" else "") + fields[5]
        fields[5] = "-"
    try:
        return Board.from_position(" ".join(fields), board.rules)
    except Exception:
        return None


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_finish_line_is_offered_exactly_when_foundation_moves_win(rules: Rules) -> None:
    offered = refused = 0
    for seed in range(60):
        board = _without_stock(endgame_position(seed, rules, 9))
        if board is None:
            continue
        line = finish_line(board)
        if line is None:
            refused += 1
            assert not home_alone(board), board.position()
        else:
            offered += 1
            assert all(m.target == "f" and m.source in "rwt" for m in line)
            assert after(board, *line).is_won()
    assert offered >= 3 and refused >= 3


def test_finish_line_claims_nothing_with_a_stock_or_out_of_budget() -> None:
    board = Board.from_position(TRAP, TRAP_RULES)
    assert finish_line(board, max_positions=1) is None
    with pytest.raises(ValueError):
        finish_line(board, max_positions=0)
    stocked = endgame_position(5, RULE_SETS[0], 12)
    if stocked.stock:
        assert finish_line(stocked) is None
    won = after(board, *(finish_line(board) or []))
    assert finish_line(won) == []


def test_finish_line_never_counts_on_the_stock_refilling_a_space() -> None:
    """The next stock cards, face down, would refill pile 1 in the very
    order the foundation wants them: foundation moves alone would win, but
    no finish is offered while the stock holds a card."""
    rules = Rules(decks=1, reserve=0, piles=1, candidates=0)
    full = [alternate_run(first) for first in ("AS", "AH", "AC")]
    board = craft(rules, "A", foundations=[*full, alternate_run("AD", 9)], tableau=["TC"], stock="JD QC KD",
                  rest="none")
    assert home_alone(board)  # t1f four times, each card refilling the space
    assert finish_line(board) is None
    assert after(board, *[Move.parse("t1f")] * 4).is_won()


def test_finish_line_budget_counts_every_position_it_enters() -> None:
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0)
    full = [alternate_run(first) for first in ("AS", "AH", "AC")]
    board = craft(rules, "A", foundations=[*full, alternate_run("AD", 11)], tableau=["QC", "KD"], rest="none")
    assert finish_line(board, max_positions=1) is None  # the first position after a move is one too many
    assert [str(m) for m in finish_line(board, max_positions=2) or []] == ["t1f", "t2f"]


def test_the_waste_card_is_safe_only_once_no_redeal_is_left() -> None:
    """The black 9 of the waste is wanted and nothing could ever lie on it
    (both red 8s are up); with free spaces it may go up, but only when the
    waste will never be turned over again."""
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0, spaces="free", redeals=1)
    runs = [alternate_run(first, 8) for first in ("AS", "AC", "AH", "AD")]  # want 9S/9C, 9H/9D ...
    board = craft(rules, "A", foundations=runs, waste="9S")
    assert Move.parse("wf") in board.legal_moves and board.redeals_used == 0
    assert Move.parse("wf") not in safe_moves(board)
    fields = board.position().split()
    fields[6] = "1"
    assert Move.parse("wf") in safe_moves(Board.from_position(" ".join(fields), rules))


def test_with_automatic_spaces_the_top_of_a_pile_of_two_is_safe_and_a_lone_card_is_not() -> None:
    """The black 9s are wanted and nothing could ever lie on them (both
    red 8s are up): with automatic spaces the 9 on top of a pile of two
    cards may go up, the one alone in its pile may not (as safe_moves
    says); a mutation audit found piles of two left out
    (``len(pile) > 2``) unnoticed."""
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0)
    runs = [alternate_run(first, 8) for first in ("AS", "AC", "AH", "AD")]
    board = craft(rules, "A", foundations=runs, tableau=["TH 9S", "9C"])
    assert {Move.parse("t1f"), Move.parse("t2f")} <= set(board.legal_moves)
    assert Move.parse("t1f") in safe_moves(board)
    assert Move.parse("t2f") not in safe_moves(board)
