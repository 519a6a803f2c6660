"""Shorter winning lines (solver/endgame.py): the best-first endgame search,
skipping detours and bridging stretches, and how solve uses them."""

from __future__ import annotations

import random
import time
from functools import cache

import pytest

from conftest import heap_of_this_test_alone
from solver_brute import RULE_SETS, cards_in_play, endgame_position, endgame_verdict, with_detours
from terrace.board import Board
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import endgame
from terrace.solver.api import SolveResult, solve
from terrace.solver.lines import replays_to_win
from terrace.solver.movegen import MoveGen
from terrace.solver.options import Options
from terrace.solver.search import engine_move, slot_keys
from terrace.solver.state import DRAW, State
from terrace.variants import get_rules

EMPRESS_DEAL_4 = Board.from_number(4, get_rules("empress-of-italy"))
"""Its line from the hunters (3 million positions) ends with 22,947 moves
of wandering after the stock and the waste are used up, 40 cards left (13
of them on the terrace)."""

EMPRESS_WANDERING = Board.from_position(
    "9 5C7DJC5C4S5HQH 9CTHJSQHKCAH2C3D4S5D6S7H8S,9CTDJCQDKCAD2S3H4S5D6C7H8S,"
    "9HTSJDQSKDAC2D3C4H5S6D7S8H,9STDJCQDKCAD2C3H4C5H6C7D8C,9HTCJHQSKDAC2D3S4D5S6D7S8H,"
    "9STDJCQDKSAD2C3D4C5H6S7H8C,9DTSJDQCKHAS2H3C4H5S6H7C8D,9HTCJHQSKDAC2H3C4H5C6H7C8D,"
    "9DTCJDQSKHAS2H3S4D5S6H7C8H,9CTHJSQDKCAH2S3D4C5H6S7H8C,9STDJSQHKSAH2S3H4S5D6C7D8S,"
    "9STHJSQHKSAD2C3D4C5D6C7D8S,9HTCJHQCKHAS2D3S4D5C6H7S8D,9DTSJHQCKDAC2H3S4D,9CTH,9D ,8D7C6D,,6D,TS,"
    "8H7S,2SAHKS,8C,3H,6S,4H3C2DASKHQCJD - - 0",
    get_rules("empress-of-italy"))
"""Deal 4 after 3,000 moves of that wandering: the hunters win it in 0.3 s
(1.6 million positions) with a line of 46,000 moves, and a best-first
search of 300,000 positions finds no ending."""


@cache
def _deal_4(short_line: bool) -> SolveResult:
    """Empress of Italy deal 4 solved in 3 million positions, the hunters'
    line (``short_line=False``) or the shortened one: with a node budget
    the same on every machine (the first test checks it), so the tests
    that read it share one solve of each (0.6 s and 1.7 s of CPU)."""
    return solve(EMPRESS_DEAL_4, max_seconds=120, max_nodes=3_000_000, all_candidates=False,
                 short_line=short_line)


def _after_choice(board: Board, line: list[Move]) -> tuple[Board, list[Move]]:
    start = board.copy(stack=False)
    if start.choosing:
        start.push(line[0])
        line = line[1:]
    return start, line


def test_a_wandering_endgame_is_replaced_by_a_short_one_and_the_line_still_wins() -> None:
    raw, short = _deal_4(short_line=False), _deal_4(short_line=True)
    assert raw.result == short.result == "won"
    assert len(raw.moves) > 10_000
    assert len(short.moves) < 700  # 629 when measured: about three moves a card
    assert replays_to_win(EMPRESS_DEAL_4, short.moves)
    assert short.moves[0] == raw.moves[0]  # the same base card
    again = solve(EMPRESS_DEAL_4, max_seconds=120, max_nodes=3_000_000, all_candidates=False)
    assert again.moves == short.moves  # with a node budget, the same line on every machine


def test_the_endgame_search_alone_finds_the_short_ending() -> None:
    raw = _deal_4(short_line=False)
    start, line = _after_choice(EMPRESS_DEAL_4, raw.moves)
    found = endgame.endgame_start(start, line)
    assert found is not None
    index, board = found
    assert not board.stock and not board.waste
    ending = endgame.best_first(board)
    assert ending is not None and len(ending) < 100 < len(line) - index
    assert replays_to_win(board, ending)


def test_with_a_node_budget_the_shortening_still_stops_when_max_seconds_runs_out() -> None:
    # the search takes 0.3 s; the shortening, bounded in positions alone, took 7 s more
    began = time.process_time()
    result = solve(EMPRESS_WANDERING, max_seconds=1.0, max_nodes=3_000_000)
    took = time.process_time() - began  # (CPU time: a loaded machine's pauses are not the search's)
    assert took < 3.0, result.result  # the budget, a quarter past it, and room for a busy machine
    if result.result == "won":
        assert replays_to_win(EMPRESS_WANDERING, result.moves)


def _replay_seconds(board: Board, line: list[Move]) -> float:
    """The time the engine takes to play ``line`` from ``board`` (the least of two)."""
    took = []
    for _ in range(2):
        copy = board.copy(stack=False)
        began = time.perf_counter()
        for move in line:
            copy.push(move)
        took.append(time.perf_counter() - began)
    return min(took)


def test_skipping_detours_keeps_time_for_its_last_replay() -> None:
    # the replay of the result came after the time was up: 2.4 to 3.4 replays of the line too late
    raw = solve(EMPRESS_WANDERING, max_seconds=60, max_nodes=3_000_000, short_line=False).moves
    assert len(raw) > 40_000
    replay = _replay_seconds(EMPRESS_WANDERING, raw)
    for share in (1.5, 3.0):
        # The deadline is on the wall clock, what it cost is counted in this
        # thread's CPU time: on a loaded machine (CI) the wall clock also
        # counts other processes' turns, and the work done before the
        # deadline can only be less. The defect cost 2.4 to 3.4 replays of
        # CPU time too many, at every try.
        tries: list[tuple[float, float]] = []
        for _ in range(3):
            with heap_of_this_test_alone():
                cpu = time.thread_time()
                began = time.perf_counter()
                short = endgame.skip_detours(EMPRESS_WANDERING, raw, until=began + share * replay)
                took = time.thread_time() - cpu
            assert replays_to_win(EMPRESS_WANDERING, short)
            # (a replay measured again just after: the machine's speed while it ran
            # lies between the two; one CI run under load took 4.2 replays as
            # measured before it)
            now = max(replay, _replay_seconds(EMPRESS_WANDERING, raw))
            tries.append((took / replay, took / now))
            # (the work before the deadline and the last replay: share + 1
            # replays; one more allowed, as the machine's speed may dip below
            # both measures while it runs: CI on f69a7318 took 2.97 replays of
            # the slower measure at share 1.5. The defect took share + 3.4 at
            # least, and fails it still)
            if took < (share + 2) * now + 0.05:
                break
        else:
            raise AssertionError((share, tries))


def test_lines_of_the_usual_length_are_left_as_they_are() -> None:
    board = Board.from_number(1, get_rules("terrace"))
    line = solve(board, max_seconds=10, max_nodes=200_000).moves
    assert 0 < len(line) <= endgame.LONG_LINE * board.rules.card_count
    assert endgame.shorten(board, line) is line


def test_a_shortening_without_time_gives_back_a_winning_line_at_once() -> None:
    raw = _deal_4(short_line=False)
    began = time.process_time()
    kept = endgame.shorten(EMPRESS_DEAL_4, raw.moves, seconds=0.0)
    assert time.process_time() - began < 1.0  # (CPU time: a loaded machine's pauses are not the search's)
    assert kept == raw.moves


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_the_endgame_search_wins_exactly_the_positions_the_plain_search_wins(rules: Rules) -> None:
    checked = won = 0
    for seed in range(12):
        board = Board.from_position(endgame_position(seed, rules, cards_in_play(rules)).position(), rules)
        before = board.position()
        reference = endgame_verdict(rules, seed)
        line = endgame.best_first(board, max_positions=10_000_000)
        assert board.position() == before
        if line is not None:
            assert replays_to_win(board, line)
        if reference is not None:
            checked += 1
            won += reference == "won"
            assert (line is not None) == (reference == "won"), board.position()
    assert checked >= 6 and won >= 1


def test_the_endgame_search_with_free_spaces_and_foundation_return_gives_lines_that_win() -> None:
    rules = Rules(decks=1, reserve=4, piles=3, candidates=0, spaces="free", foundation_return=True)
    found = 0
    for seed in range(10):
        board = Board.from_position(endgame_position(seed, rules, 10).position(), rules)
        line = endgame.best_first(board, max_positions=200_000)
        if line is not None:
            found += 1
            assert replays_to_win(board, line)
    assert found >= 3


def _walk(s: State, gen: MoveGen, rng: random.Random, steps: int) -> list[tuple[int, int]]:
    """Random moves (no draws) played on ``s``; each with its refill code."""
    done: list[tuple[int, int]] = []
    prev, prev_u = -2, 0
    for _ in range(steps):
        moves = [m for m in gen.moves(s, prev, prev_u) if m != DRAW]
        if not moves:
            break
        m = rng.choice(moves)
        prev, prev_u = m, s.apply(m)
        done.append((m, prev_u))
    return done


@pytest.mark.parametrize("rules", [RULE_SETS[0], RULE_SETS[2], RULE_SETS[5], RULE_SETS[10]],
                         ids=lambda r: r.describe())
def test_a_bridge_reaches_exactly_where_a_random_walk_went_in_no_more_moves(rules: Rules) -> None:
    options = Options(canonical=False)
    bridged = 0
    for seed in range(20):
        board = Board.from_position(endgame_position(seed, rules, cards_in_play(rules)).position(), rules)
        s = State(board, options.canonical, options.seed)
        gen = MoveGen(options, s.ret)
        start_key = s.key()
        walk = _walk(s, gen, random.Random(seed), 12)
        if not walk:
            continue
        target = endgame._Target(s)
        walked = board.copy(stack=False)
        keys = slot_keys(rules.in_suit)
        for m, _ in walk:
            walked.push(engine_move(walked, m, keys))
        for m, u in reversed(walk):
            s.undo(m, u)
        assert s.key() == start_key
        way = endgame.bridge(s, gen, target, most=len(walk) + 1, until=time.perf_counter() + 5)
        assert s.key() == start_key  # left as it was
        if way is None:
            continue
        bridged += 1
        assert len(way) <= len(walk) and DRAW not in way
        copy = board.copy(stack=False)
        for m in way:
            copy.push(engine_move(copy, m, keys))
        assert _same_but_foundations(copy, walked, keys)
    assert bridged >= 10


def _same_but_foundations(a: Board, b: Board, keys: tuple[int, ...]) -> bool:
    """The same position, but for which foundation holds which of two cards
    that a foundation takes alike (the search does not tell them apart)."""
    def heights(board: Board) -> list[tuple[int, ...]]:
        return sorted(tuple(keys[c] for c in f) for f in board.foundations)

    return (a.tableau == b.tableau and a.waste == b.waste and a.stock == b.stock
            and a.reserve == b.reserve and heights(a) == heights(b))


@pytest.mark.parametrize("variant", ["terrace", "empress-of-italy"])
def test_skipping_removes_detours_and_keeps_a_winning_line(variant: str) -> None:
    board = Board.from_number(1, get_rules(variant))
    result = solve(board, max_seconds=30, max_nodes=500_000, all_candidates=False, short_line=False)
    assert result.result == "won"
    start, line = _after_choice(board, result.moves)
    noisy = with_detours(start, line, 7)
    assert len(noisy) > len(line) and replays_to_win(start, noisy)
    skipped = endgame.skip_detours(start, noisy)
    assert len(skipped) <= len(line)
    assert replays_to_win(start, skipped)


def _positions_twice(board: Board, line: list[Move]) -> int:
    """How many moves of ``line`` lead to a position reached before."""
    copy = board.copy(stack=False)
    seen = {copy.position()}
    twice = 0
    for move in line:
        copy.push(move)
        twice += copy.position() in seen
        seen.add(copy.position())
    return twice


def test_dropping_returns_leaves_a_winning_line_that_reaches_no_position_twice() -> None:
    board = Board.from_number(1, get_rules("empress-of-italy"))
    result = solve(board, max_seconds=30, max_nodes=500_000, all_candidates=False, short_line=False)
    start, line = _after_choice(board, result.moves)
    noisy = with_detours(start, line, 7)
    assert _positions_twice(start, noisy) > 0
    kept = endgame.without_returns(start, noisy)
    assert _positions_twice(start, kept) == 0 and len(kept) <= len(line)
    assert replays_to_win(start, kept)
    assert endgame.without_returns(start, noisy, until=0.0) == noisy  # no time: as it was


def test_a_shortened_line_reaches_no_position_twice() -> None:
    # the pairs tidying drops left a card taken back from a foundation and put
    # straight up again: 6 positions reached twice in deal 5's 1,069 moves
    board = Board.from_number(5, get_rules("empress-of-italy"))
    result = solve(board, max_seconds=60, max_nodes=1_000_000, all_candidates=False)
    assert result.result == "won"
    assert _positions_twice(board, result.moves) == 0
    assert replays_to_win(board, result.moves)


def test_internal_moves_are_the_inverse_of_engine_moves() -> None:
    board = EMPRESS_DEAL_4.copy(stack=False)
    line = _deal_4(short_line=True).moves
    board.push(line[0])
    keys = slot_keys(board.rules.in_suit)
    kinds = set()
    for move in line[1:]:
        code = endgame.internal_move(board, move, keys)
        back = engine_move(board, code, keys)
        if move.source == "f":  # any foundation of the same top card will do
            assert back.source == "f" and back.target == move.target
            assert keys[board.foundations[back.source_index - 1][-1]] == keys[board.foundations[
                move.source_index - 1][-1]]
        else:
            assert back == move
        kinds.add(move.source)
        board.push(move)
    assert {"s", "t", "w", "r", "f"} <= kinds


def test_a_cancelled_solve_gives_its_winning_line_unshortened(monkeypatch: pytest.MonkeyPatch) -> None:
    import terrace.solver.api as api

    def refuse(*_: object, **__: object) -> list[Move]:
        raise AssertionError("a cancelled solve must answer at once")

    board = Board.from_number(1, get_rules("terrace"))
    found = solve(board, max_seconds=10, max_nodes=200_000)
    assert found.result == "won"
    start, line = _after_choice(board, found.moves)
    for move in line[:-20]:
        start.push(move)
    monkeypatch.setattr(api, "shorten", refuse)
    monkeypatch.setattr(api, "without_returns", refuse)
    result = solve(start, max_seconds=10, cancel=lambda: True)
    assert result.result == "won" and replays_to_win(start, result.moves)
