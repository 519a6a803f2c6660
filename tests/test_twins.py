"""Twins: base-card candidates of one rank leave one position, which the
solver solves once and whose verdict and winning line both candidates get."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from terrace.board import Board
from terrace.cards import rank_of
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import api, solve
from terrace.solver.fair import UNCHANGED_HUNTERS
from terrace.solver.options import Options
from terrace.solver.twins import carried_over, chosen, game_of, representatives
from terrace.variants import PRESETS, get_rules

CHOOSING = [name for name, rules in PRESETS.items() if rules.candidates > 1]


def candidate_ranks(board: Board) -> list[int]:
    return [rank_of(board.tableau[i][-1]) for i in range(board.rules.candidates)]


def assert_twins_are_same_rank(board: Board) -> None:
    children = [chosen(board, i) for i in range(board.rules.candidates)]
    firsts = representatives(children)
    ranks = candidate_ranks(board)
    for index, first in enumerate(firsts):
        assert first == ranks.index(ranks[index])
        if first != index:
            a, b = children[first], children[index]
            assert (a.tableau, a.stock, a.waste, a.reserve) == (b.tableau, b.stock, b.waste, b.reserve)
            assert sorted(a.foundations) == sorted(b.foundations)
            assert a.base_rank == b.base_rank


def test_every_preset_twins_exactly_the_candidates_of_one_rank() -> None:
    twins = 0
    for name in CHOOSING:
        rules = get_rules(name)
        for deal in range(1, 41):
            board = Board.from_number(deal, rules)
            assert_twins_are_same_rank(board)
            twins += len(set(candidate_ranks(board))) < rules.candidates
    assert twins > 40  # (the check above has twins to look at)


@settings(max_examples=40, deadline=None)
@given(decks=st.integers(1, 8), candidates=st.integers(2, 9), suit=st.booleans(), deal=st.integers(1, 10**6))
def test_random_rules_twin_exactly_the_candidates_of_one_rank(decks: int, candidates: int, suit: bool,
                                                              deal: int) -> None:
    rules = Rules(decks=decks, reserve=5, piles=max(candidates, 4), candidates=candidates,
                  foundations="suit" if suit else "alternate")
    assert_twins_are_same_rank(Board.from_number(deal, rules))


def test_different_ranks_are_different_games() -> None:
    board = Board.from_number(13, get_rules("terrace"))
    assert candidate_ranks(board)[0] == candidate_ranks(board)[1] != candidate_ranks(board)[2]
    children = [chosen(board, i) for i in range(3)]
    assert game_of(children[0]) == game_of(children[1]) != game_of(children[2])
    assert representatives(children) == [0, 0, 2]


def test_a_twin_gets_the_verdict_and_a_line_of_its_own() -> None:
    board = Board.from_number(13, get_rules("terrace"))
    result = solve(board, max_seconds=30)
    assert [verdict for _, verdict in result.candidates] == ["won", "won", "won"]
    assert result.moves[0] == Move.choose(1)
    first, twin = chosen(board, 0), chosen(board, 1)
    line = carried_over(result.moves[1:], first, twin)
    assert line is not None  # (carried_over replays it to a win)
    assert solve(twin, max_seconds=30).result == "won"


def test_twins_are_solved_once_with_the_same_verdicts() -> None:
    for name, deal in (("terrace", 13), ("madame", 1), ("generals-patience", 7)):
        board = Board.from_number(deal, get_rules(name))
        # counted in positions: with only a time budget the slices, and so
        # the positions entered, depend on the machine's load
        merged = solve(board, max_seconds=600, max_nodes=20_000_000)
        apart = solve(board, max_seconds=600, max_nodes=20_000_000, options=Options(twins=False))
        assert merged.candidates == apart.candidates
        assert merged.result == apart.result != "unknown"
        if merged.result == "won":  # the twins' own searches were the extra work
            assert merged.nodes < apart.nodes
            assert merged.moves == apart.moves


def test_a_line_is_carried_over_only_when_it_wins() -> None:
    board = Board.from_number(13, get_rules("terrace"))
    result = solve(board, max_seconds=30)
    first, twin, other = chosen(board, 0), chosen(board, 1), chosen(board, 2)
    assert carried_over(result.moves[1:-1], first, twin) is None  # one move short of the win
    assert carried_over(result.moves[1:], first, other) is None  # another game
    assert carried_over([Move.parse("t1t2"), *result.moves[1:]], first, twin) is None


def test_a_twin_whose_carried_line_fails_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board.from_number(13, get_rules("terrace"))
    monkeypatch.setattr(api, "carried_over", lambda line, won_from, twin, until: None)
    result = solve(board, max_seconds=30)
    assert [verdict for _, verdict in result.candidates] == ["won", "unknown", "won"]


def test_the_fair_player_keeps_its_twins_apart() -> None:
    assert UNCHANGED_HUNTERS.twins is False
    assert Options().twins is True
