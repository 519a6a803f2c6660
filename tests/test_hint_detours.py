"""A peeking hint does not send a card to another pile that a later hint
brings straight back when the line wins without the two moves
(terrace.solver.hint_line.direct): a winning line tidied in a hurry (a busy
machine) or given back by ``terrace hint --line`` kept them, and the hint
said "pile 9 to pile 2" and, four hints later, "pile 2 to pile 9"."""

from __future__ import annotations

import math

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import hint_line
from terrace.solver.advice import hint_report
from terrace.solver.api import SolveResult
from terrace.solver.hint_line import (
    FURTHEST,
    HEURISTIC,
    WINNABLE,
    KeptLine,
    peek_hint,
    rule_of_thumb,
    takes_back,
)
from terrace.solver.history import same_pass_keys
from terrace.solver.lines import partner, replays_to_win, still_wins_without
from terrace.variants import get_rules
from web_support import WINNING_LINE

RULES = Rules.from_dict(WINNING_LINE["options"], get_rules(WINNING_LINE["variant"]))
LINE = [Move.parse(text) for text in WINNING_LINE["moves"]]
AT = 29
"""Where the line moves a card from pile 9 to pile 2 that its move 35 takes
straight back, and it wins without the two."""


def start() -> Board:
    return Board.from_number(WINNING_LINE["deal_number"], RULES)


def removable_pairs(board: Board, line: list[Move]) -> int:
    """The pile-to-pile moves of ``line`` taken straight back later, the
    line still winning from ``board`` without the two."""
    count = 0
    here = board.copy(stack=False)
    for i, move in enumerate(line):
        if move.source == "t" and move.target == "t":
            back = partner(line, i)
            count += back >= 0 and still_wins_without(here, line, i, back)
        here.push(move)
    return count


def follow_peek_hints(board: Board, kept: KeptLine | None) -> list[Move]:
    """The moves of peeking hints followed from ``board`` (played on it) to
    the win, each hint winnable, the line each keeps handed to the next."""
    played: list[Move] = []
    while not board.is_won():
        found = peek_hint(board, 10.0, kept)
        assert found.kind == WINNABLE and found.move is not None
        kept = found.kept
        board.push(found.move)
        played.append(found.move)
    return played


def test_the_fixture_has_the_detour() -> None:
    board = start()
    for move in LINE[:AT]:
        board.push(move)
    assert str(LINE[AT]) == "t9t2" and partner(LINE, AT) == 35
    assert still_wins_without(board, LINE[AT:], 0, 35 - AT)


def test_a_kept_line_is_hinted_without_its_detours() -> None:
    board = start()
    kept = KeptLine(board.position(), tuple(WINNING_LINE["moves"]))
    for move in LINE[:AT]:
        board.push(move)
    found = peek_hint(board, 10.0, kept)
    assert found.kind == WINNABLE and str(found.move) != "t9t2", found.move
    played = board.copy(stack=False)
    for move in found.line:
        played.push(move)
    assert played.is_won()
    assert found.kept is not None and list(found.kept.moves) == [str(m) for m in found.line]


def test_following_the_hints_of_a_kept_line_drops_its_detours() -> None:
    """From move 29 the line has 221 moves, 9 of them pile-to-pile moves
    taken straight back that it wins without; the hints, followed, win
    with none of those."""
    board = start()
    kept: KeptLine | None = KeptLine(board.position(), tuple(WINNING_LINE["moves"]))
    for move in LINE[:AT]:
        board.push(move)
    assert removable_pairs(board, LINE[AT:]) >= 5
    from_here = board.copy(stack=False)
    played = follow_peek_hints(board, kept)
    assert len(played) < len(LINE) - AT and removable_pairs(from_here, played) == 0


def test_terrace_hint_line_is_continued_without_its_detours() -> None:
    """``terrace hint --line`` gives the line back: the same."""
    board = start()
    for move in LINE[:AT]:
        board.push(move)
    report = hint_report(board, fair=False, seconds=10.0, line=LINE)
    assert report["kind"] == WINNABLE and report["move"] != "t9t2", report["move"]


GENERALS_2 = "c2 rf t8f t3t9 t6t2 t3t6 t3t2 t3f t3f t5t2 t5f s s s wt6 t6t7 s"
"""General's Patience deal 2 as 0.5 s peeking hints played it, undecided:
the next one said t7t6, the card of t6t7 straight back, then t6t7 again."""


def test_an_undecided_hint_does_not_take_the_last_shift_back(monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board.from_number(2, get_rules("generals-patience"))
    for text in GENERALS_2.split():
        board.push_text(text)
    back = Move.parse("t7t6")
    assert back in board.legal_moves and takes_back(board, back)
    monkeypatch.setattr(hint_line, "solve", lambda start, **_: SolveResult("unknown", best_move=back))
    found = peek_hint(board, 1.0)
    assert found.move != back and found.kind == HEURISTIC and found.move == rule_of_thumb(board).move
    # another furthest move is given as it was
    other = next(m for m in board.legal_moves if m != back and not takes_back(board, m))
    monkeypatch.setattr(hint_line, "solve", lambda start, **_: SolveResult("unknown", best_move=other))
    assert (peek_hint(board, 1.0).move, peek_hint(board, 1.0).kind) == (other, FURTHEST)


def test_takes_back() -> None:
    board = Board.from_number(2, get_rules("generals-patience"))
    for text in GENERALS_2.split():
        board.push_text(text)
    assert takes_back(board, Move.parse("t7t6"))
    assert not takes_back(board, Move.parse("s"))
    board.pop()
    board.pop()  # (before t6t7: the last move touching pile 6 put a card there from the waste)
    assert not takes_back(board, Move.parse("t7t6")) and not takes_back(board, Move.parse("t6t7"))


def test_a_detour_at_the_head_is_dropped_even_when_the_hints_time_is_up() -> None:
    """direct() looked at the clock before its first check: a hint whose
    time was spent (continuing a long line on a loaded machine: Empress of
    Italy at 0.5 s a hint with twenty processes on two cores) hinted the
    detour, and a later hint took the card straight back (two such pairs
    in two games). The first check is bounded by REPLAY_CHECK moves, not by
    the clock."""
    board = start()
    for move in LINE[:AT]:
        board.push(move)
    line = hint_line.direct(board, LINE[AT:], same_pass_keys(board), until=0.0)
    assert str(line[0]) != "t9t2" and len(line) == len(LINE) - AT - 2
    played = board.copy(stack=False)
    for move in line:
        played.push(move)
    assert played.is_won()


NESTED_RULES = Rules(decks=1, reserve=2, piles=4, candidates=0, spaces="free")
NESTED_START = ("A JD AS2H3S4H5S6H7S8H9STH,AH2C3H4C5H6C7H8C9HTC,AD2S3D4S5D6S7D8S9DTS,AC2D3C4D5C6D7C8D9CTDJCQD"
                " KD,KH,QC,JH KCKSJS QHQS 0")
NESTED_LINE = "t3t1 t1t2 t4f t2t1 t1t3 rf t3f wf t1f wf wt1 s wf t1f s wf t2f"
"""The Q♣ of pile 3 onto the K♦ of pile 1, on to the K♥ of pile 2, and
(a foundation move in between) back to pile 1 and to pile 3: the first
move's card comes straight back only once the detour inside it is gone
(as Empress of Italy deal 2's hints went: t5t3, f1t6, t3t5)."""


@pytest.mark.parametrize("until", [math.inf, 0.0])
def test_a_detour_inside_the_detour_at_the_head_is_dropped_too(until: float) -> None:
    board = Board.from_position(NESTED_START, NESTED_RULES)
    line = [Move.parse(text) for text in NESTED_LINE.split()]
    assert replays_to_win(board, line) and partner(line, 0) < 0  # (pile 1 is touched first by t1t2)
    found = hint_line.direct(board, line, same_pass_keys(board), until)
    texts = NESTED_LINE.split()
    assert [str(m) for m in found] == texts[2:3] + texts[5:]  # (the four moves of pile 1, 2 and 3 gone)
    assert replays_to_win(board, found)


def test_following_a_kept_line_with_a_detour_inside_a_detour_moves_no_card_there_and_back() -> None:
    board = Board.from_position(NESTED_START, NESTED_RULES)
    kept: KeptLine | None = KeptLine(board.position(), tuple(NESTED_LINE.split()))
    played = follow_peek_hints(board, kept)
    assert not any(m.source == m.target == "t" for m in played), [str(m) for m in played]
