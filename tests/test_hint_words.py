"""A hint's words are true: "the game is over" only when it is, the rule of
thumb says that it does not look at face-down cards, and a line of one move
is "1 move" (terrace.solver.advice.describe, which ``terrace hint`` prints)."""

from __future__ import annotations

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.solver import hint_line
from terrace.solver.advice import describe, hint_report
from terrace.solver.api import SolveResult
from terrace.solver.coach import base_chances
from terrace.solver.decision import ESTIMATE_WORDS, UPPER_ESTIMATE, Decision
from terrace.solver.hint_line import GAME_OVER, NOTHING_USEFUL, WHY_NO_MOVE, game_over
from terrace.variants import get_rules

ADMIRALS_6_END = "admirals-patience", 6
"""A deal whose rule-of-thumb game ends with legal moves, an empty stock and
no move the rule of thumb thinks worth making (the solver left it undecided
at 0.3 and 1 s)."""


def thumb_end(variant: str, number: int) -> Board:
    """The position where the rule of thumb stops suggesting moves."""
    board = Board.from_number(number, get_rules(variant))
    while (found := hint_line.rule_of_thumb(board)).move is not None:
        board.push(found.move)
    return board


def undecided(board: Board, **options: object) -> SolveResult:
    """The solver running out of time with nothing found."""
    return SolveResult("unknown", reason="time")


@pytest.mark.parametrize("why", [w for w in WHY_NO_MOVE if w != GAME_OVER])
def test_no_move_says_the_game_is_over_only_when_it_is(why: str) -> None:
    """``nothing-useful`` read "no move: the game is over"."""
    for fair in (False, True):
        words = describe({"move": None, "kind": "none", "why": why, "fair": fair})
        assert "game is over" not in words, (why, words)


def test_the_cli_hint_with_moves_left_and_nothing_decided_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Admiral's Patience deal 6 at the rule of thumb's end: legal moves left,
    the solver undecided; ``terrace hint`` said "no move: the game is over"."""
    board = thumb_end(*ADMIRALS_6_END)
    assert not game_over(board) and not board.stock
    monkeypatch.setattr(hint_line, "solve", undecided)
    for fair in (False, True):  # (nothing hidden: the fair hint is the peeking one)
        report = hint_report(board, fair=fair, seconds=1.0)
        assert report["move"] is None and report["why"] == NOTHING_USEFUL, report
        words = describe(report)
        assert "game is over" not in words and "rule of thumb" in words and "decided nothing" in words


def test_the_rule_of_thumb_says_it_does_not_look_at_face_down_cards() -> None:
    """A peeking hint that fell back on the rule of thumb said "(looks at the
    face-down stock)", which the rule of thumb never does."""
    for fair in (False, True):
        words = describe({"move": "t2t5", "kind": "heuristic", "fair": fair, "line": []})
        assert "rule of thumb" in words and "does not look at face-down cards" in words, words
        assert "looks at the face-down stock" not in words


def test_a_winning_line_of_one_move_is_one_move() -> None:
    """"starts a winning line of 1 moves"."""
    for fair in (False, True):
        words = describe({"move": "wf", "kind": "winnable", "fair": fair, "line": ["wf"]})
        assert "winning line of 1 move " in words, words
    two = describe({"move": "wf", "kind": "winnable", "fair": False, "line": ["wf", "s"]})
    assert "line of 2 moves" in two


def test_a_fair_hint_that_names_a_move_gives_no_reason_for_none() -> None:
    """``why`` says why a hint names no move; a fair hint that names one
    has none. A mutation audit gave the reasons the other way round
    (``why`` for every move named) and no test of the hints failed."""
    board = Board.from_number(7, get_rules("terrace"))
    board.push_text("c2")
    report = hint_report(board, fair=True, seconds=30.0, samples=4)
    assert report["move"] is not None and report["kind"] in ("sampled", "safe", "only", "heuristic")
    assert report["why"] is None


@pytest.mark.parametrize(("samples", "undecided", "words"), [
    (1, 0, "t2t8: wins in 1 of 1 sampled stock order (does not look at face-down cards; a sampled stock"),
    (2, 1, "t2t8: wins in 1 of 2 sampled stock orders, 1 undecided (does not look at face-down cards; a"),
])
def test_one_sampled_stock_order_is_said_in_the_singular(samples: int, undecided: int, words: str) -> None:
    """terrace hint with little time (Falling Star deal 4, --max-seconds
    0.02) printed "t2t8: wins in 1 of 1 sampled stock orders"."""
    assert describe({"move": "t2t8", "kind": "sampled", "fair": True, "samples": samples, "wins": 1,
                     "undecided": undecided}).startswith(words)


def test_a_count_of_sampled_stocks_says_what_it_is_in_words_and_json() -> None:
    """terrace hint said "wins in 28 of 32 sampled stock orders" and its
    JSON only the counts, where such a count is an upper estimate (a sample
    counts as won when a winning line exists for one who knows its order).
    The words say so, and the JSON of a hint, of the coach's fair move (the
    same dict) and of the base cards' chances carries ``estimate``."""
    sampled = Decision(Move.parse("s"), "sampled", samples=32, wins=28).to_dict()
    assert sampled["estimate"] == UPPER_ESTIMATE == "upper"
    assert Decision(Move.parse("s"), "safe").to_dict()["estimate"] is None
    assert describe({**sampled, "fair": True}) == (
        f"s: wins in 28 of 32 sampled stock orders (does not look at face-down cards; {ESTIMATE_WORDS})")
    assert "upper estimate" in ESTIMATE_WORDS
    chosen = Board.from_number(1, get_rules("terrace"))
    chosen.push_text("c1")
    assert base_chances(chosen)["estimate"] == UPPER_ESTIMATE
