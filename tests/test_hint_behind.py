"""A peeking hint whose every winning line passes a position the game has
already had: the solver found a win, so the hint must not fall back on the
rule of thumb and say that the solver "decided nothing in the time". It
says how many moves to take back to that position, and the winning line
from there, which the next hint continues once the player has taken them
back (terrace.solver.hint_line.win_behind)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import hint_line
from terrace.solver.advice import describe, hint_report
from terrace.solver.api import SolveResult
from terrace.solver.hint_line import KEPT, WIN_BEHIND, WINNABLE, peek_hint
from terrace.solver.lines import partner, replays_to_win, still_wins_without
from terrace.variants import get_rules
from terrace.web.hints import find_hint
from web_support import WINNING_LINE

RULES = Rules.from_dict(WINNING_LINE["options"], get_rules(WINNING_LINE["variant"]))
LINE = [Move.parse(text) for text in WINNING_LINE["moves"]]
AT, BACK = 29, 35
"""The line moves a card from pile 9 to pile 2 at move 29 and straight back
at move 35, and it wins without the two."""


def before_and_after() -> tuple[Board, Board]:
    """The position before move 29 and the game after it (t9t2 played)."""
    board = Board.from_number(WINNING_LINE["deal_number"], RULES)
    for move in LINE[:AT]:
        board.push(move)
    before = board.copy()
    board.push(LINE[AT])
    return before, board


def looping_line() -> list[Move]:
    """A winning line from after move 29 that first takes the card back to
    pile 9 (the position before move 29, which the game has had)."""
    return [Move.parse("t2t9"), *LINE[AT + 1:BACK], *LINE[BACK + 1:]]


@pytest.fixture
def every_win_loops(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The solver finds only the looping line from after move 29 and
    nothing else (each further solve, of the detours, is left undecided);
    counts the solves."""
    after = before_and_after()[1].position_key()
    calls: list[int] = []

    def solve(board: Board, **options: Any) -> SolveResult:
        calls.append(1)
        if board.position_key() == after:
            return SolveResult("won", looping_line())
        return SolveResult("unknown", reason="time")

    monkeypatch.setattr(hint_line, "solve", solve)
    KEPT.clear()
    return calls


def test_the_fixture_wins_by_going_back() -> None:
    before, after = before_and_after()
    assert str(LINE[AT]) == "t9t2" and partner(LINE, AT) == BACK
    assert still_wins_without(before, LINE[AT:], 0, BACK - AT)
    assert replays_to_win(after, looping_line())


def test_a_win_behind_is_said_and_continued_after_the_take_back(every_win_loops: list[int]) -> None:
    before, board = before_and_after()
    found = peek_hint(board, 5.0)
    # (before: the rule of thumb's move, "the solver decided nothing in the time")
    assert found.kind == WINNABLE and found.move is None and found.why == WIN_BEHIND, found
    assert found.back == 1 and found.line == looping_line()[1:]
    assert replays_to_win(before, found.line)
    assert found.kept is not None and found.kept.start == before.position()
    board.pop()  # the player takes the move back: the next hint continues the line, no new solve
    solves = len(every_win_loops)
    again = peek_hint(board, 5.0, found.kept)
    assert len(every_win_loops) == solves
    assert again.kind == WINNABLE and again.move == found.line[0] and again.back == 0


def test_the_words_of_a_win_behind_are_true(every_win_loops: list[int]) -> None:
    board = before_and_after()[1]
    report = hint_report(board, fair=False, seconds=5.0)
    assert report["move"] is None and report["back"] == 1 and report["why"] == WIN_BEHIND
    words = describe(report)
    assert "decided nothing" not in words and "rule of thumb" not in words
    assert f"take back 1 move to it, and a winning line of {len(report['line'])} moves" in words
    page = find_hint(board, 5.0, peek=True)
    assert (page["move"], page["kind"], page["why"], page["back"]) == (None, WINNABLE, WIN_BEHIND, 1)


def test_the_stateless_hint_continues_after_the_take_back(every_win_loops: list[int]) -> None:
    board = before_and_after()[1]
    found = hint_line.hint(board, 5.0)
    assert found.move is None and found.back == 1 and found.kind == WINNABLE
    board.pop()
    solves = len(every_win_loops)
    again = hint_line.hint(board, 5.0)
    assert len(every_win_loops) == solves and again.move == found.line[0]


def test_a_win_behind_is_found_when_the_detours_spent_the_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The looping line was read for the positions it passes only after the
    detours' solves had spent the hint's time: past it, only its first
    REPLAY_CHECK moves were, and a later passage through a position the
    game has had was missed: the kept line went round the loop again. It
    is read first now."""
    board = before_and_after()[1]
    after = board.position_key()
    looping = [Move.parse("t2t9"), Move.parse("t9t2"), *looping_line()]  # back, here, back again, on

    def solve(start: Board, **options: Any) -> SolveResult:
        if start.position_key() == after:
            return SolveResult("won", looping)
        while hint_line.time.perf_counter() < started + 0.31:  # a detour's solve spends the time
            pass
        return SolveResult("unknown", reason="time")

    monkeypatch.setattr(hint_line, "solve", solve)
    monkeypatch.setattr(hint_line, "REPLAY_CHECK", 1)  # (read past its first move only in the time)
    started = hint_line.time.perf_counter()
    found = peek_hint(board, 0.3)
    assert found.why == WIN_BEHIND and found.back == 1, found
    assert found.line == looping_line()[1:]


def test_a_win_behind_asked_again_at_the_same_position_is_said_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The win behind was proved once; asked again without taking the move
    back, the hint solved afresh, and a solve that proves nothing this time
    (less time, a busier machine) gave the rule of thumb instead."""
    after = before_and_after()[1].position_key()
    proved: list[int] = []

    def solve(board: Board, **options: Any) -> SolveResult:
        if board.position_key() == after and not proved:
            proved.append(1)
            return SolveResult("won", looping_line())
        return SolveResult("unknown", reason="time")

    monkeypatch.setattr(hint_line, "solve", solve)
    board = before_and_after()[1]
    found = peek_hint(board, 5.0)
    assert (found.move, found.why, found.back) == (None, WIN_BEHIND, 1)
    again = peek_hint(board, 5.0, found.kept)
    said = (again.move, again.kind, again.why, again.back, again.line)
    assert said == (None, WINNABLE, WIN_BEHIND, 1, found.line)
    proved.clear()
    KEPT.clear()
    first = hint_line.hint(board, 5.0)
    second = hint_line.hint(board, 5.0)  # (the stateless hint: its kept line)
    assert (second.move, second.back, second.line) == (None, 1, first.line) and first.back == 1
    board.pop()  # taken back: the line is followed as before
    assert hint_line.hint(board, 5.0).move == first.line[0]
    KEPT.clear()


def test_a_win_behind_further_back_than_the_games_kept_moves_is_not_said(
    every_win_loops: list[int], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both ways to a win behind, found and said again, walk back at most
    LOOKBACK moves (a solver job's board keeps no more of the game)."""
    board = before_and_after()[1]
    found = peek_hint(board, 5.0)
    assert (found.why, found.back) == (WIN_BEHIND, 1)
    monkeypatch.setattr(hint_line, "LOOKBACK", 0)
    assert peek_hint(board, 5.0).why != WIN_BEHIND
    again = peek_hint(board, 5.0, found.kept)
    assert again.why != WIN_BEHIND and again.back == 0, again


def test_a_win_behind_asked_again_walks_back_by_position_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Said again, a win behind walked back to its start writing a position
    string at every move taken back (up to LOOKBACK, 2,000: 0.15-1 ms each
    of eight decks); it compares position keys and writes none."""
    rules = Rules(decks=8, reserve=13, piles=20, candidates=0, spaces="free")
    board = Board.from_number(1, rules)
    rng = random.Random(1)
    for _ in range(300):
        board.push(rng.choice([m for m in board.legal_moves if m.source == m.target == "t"]))
    earlier = board.copy()
    for _ in range(200):
        earlier.pop()
    kept = hint_line.KeptLine(earlier.position(), (str(board.move_stack[-200]),), board.position())
    written: list[int] = []
    real = Board.position
    monkeypatch.setattr(Board, "position", lambda self: written.append(1) or real(self))
    again = hint_line._behind_again(board, kept)
    assert again is not None and (again.move, again.why, again.back) == (None, WIN_BEHIND, 200)
    assert not written
