"""Greedy and random players and play-outs: games end won or lost, never
loop, replay through the engine; the per-deal job is pure and picklable."""

from __future__ import annotations

import json
import math
import pickle
import random
import time

import pytest

from solver_brute import endgame_position
from terrace.board import Board
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.decision import Decision
from terrace.solver.greedy import _foundation_moves, greedy_move
from terrace.solver.observation import Observation, observe
from terrace.solver.players import (
    GreedyPlayer,
    RandomPlayer,
    deal_seed,
    make_player,
    player_key,
    player_settings,
)
from terrace.solver.playout import move_cap, play_deal, play_out
from terrace.variants import PRESETS, get_rules
from terrace.web.hints import heuristic_hint


def replay(board: Board, moves: tuple[Move, ...]) -> Board:
    game = board.copy(stack=False)
    seen = {game.position()}
    for move in moves:
        game.push(move)
        assert game.position() not in seen, "a play-out returned to a position"
        seen.add(game.position())
    return game


@pytest.mark.parametrize("name", ["terrace", "falling-star", "wood", "generals-patience", "madame"])
@pytest.mark.parametrize("player", ["greedy", "random"])
def test_play_outs_end_won_or_lost_without_loops(name: str, player: str) -> None:
    rules = get_rules(name)
    for number in (1, 2):
        board = Board.from_number(number, rules)
        played = play_out(board, make_player(player, seed=number))
        assert played.result in ("won", "lost")
        assert played.decisions >= len(played.moves)
        game = replay(board, played.moves)
        assert game.is_won() == (played.result == "won")
        if played.result == "lost":
            seen = observe(game)
            assert not seen.moves or (player == "greedy" and greedy_move(seen) is None)
            assert played.reason in ("", "gave up")
            assert (played.reason == "") == (not game.legal_moves)


def test_greedy_does_not_wander_between_free_spaces() -> None:
    """With spaces filled freely, lone cards shuffled into spaces made
    thousands of new positions (a 2,000-move game that never ended)."""
    rules = get_rules("empress-of-italy")
    for number in (1, 2, 3):
        played = play_out(Board.from_number(number, rules), make_player("greedy"), max_seconds=60)
        assert played.result in ("won", "lost")
        assert len(played.moves) < 600


def test_greedy_wins_a_won_endgame_and_prefers_the_terrace() -> None:
    rules = Rules(decks=1, reserve=4, piles=3, candidates=0)
    wins = 0
    for seed in range(10):
        board = Board.from_position(endgame_position(seed, rules, 8).position(), rules)
        played = play_out(board, GreedyPlayer())
        wins += played.result == "won"
        if board.reserve and Move.parse("rf") in board.legal_moves:
            assert greedy_move(observe(board)) == Move.parse("rf")
    assert wins >= 3


def test_random_player_is_seeded() -> None:
    board = Board.from_number(3, get_rules("falling-star"))
    first = play_out(board, RandomPlayer(5)).moves
    assert play_out(board, RandomPlayer(5)).moves == first
    assert play_out(board, RandomPlayer(6)).moves != first


def test_the_move_cap_and_the_budget_end_a_play_out() -> None:
    board = Board.from_number(3, get_rules("falling-star"))
    capped = play_out(board, GreedyPlayer(), max_moves=5)
    assert (capped.result, capped.reason, len(capped.moves)) == ("lost", "moves", 5)
    timed = play_out(board, GreedyPlayer(), max_seconds=0)
    assert (timed.result, timed.reason) == ("unknown", "time")
    for bad in (math.nan, math.inf, -1.0):
        with pytest.raises(ValueError, match="budget"):
            play_out(board, GreedyPlayer(), max_seconds=bad)
    assert move_cap(get_rules("terrace")) > 1000


@pytest.mark.parametrize("cap", [-1, 1.5, True])
def test_a_bad_move_cap_is_refused(cap: object) -> None:
    """play_out(max_moves=-1) ended the game before its first move and
    answered it lost (reason "moves"), a verdict on no play at all."""
    board = Board.from_number(3, get_rules("falling-star"))
    with pytest.raises(ValueError, match="max_moves must be a whole number"):
        play_out(board, GreedyPlayer(), max_moves=cap)  # type: ignore[arg-type]


def test_play_deal_is_a_pure_picklable_job() -> None:
    job = (get_rules("falling-star"), 3, "random", {}, 9, 60.0)
    assert pickle.loads(pickle.dumps(job)) == job
    assert pickle.loads(pickle.dumps(play_deal)) is play_deal
    first = play_deal(*job)
    again = play_deal(*job)
    assert (again.result, again.line, again.nodes) == (first.result, first.line, first.nodes)
    board = Board.from_number(3, get_rules("falling-star"))
    game = replay(board, tuple(Move.parse(m) for m in first.line.split()))
    assert game.is_won() == (first.result == "won")
    assert play_deal(get_rules("falling-star"), 4, "perfect", {}, 0, 5.0).result == "won"
    fair = play_deal(Rules(decks=1, reserve=3, piles=3, candidates=0), 2, "fair",
                     {"samples": 2, "nodes": 2000}, 1, 0.3)
    assert fair.result in ("won", "lost", "unknown") and fair.max_seconds == 0.3


def test_players_by_name_and_their_keys() -> None:
    assert make_player("greedy").name == "greedy"
    assert make_player("fair", {"samples": 2}).name == "fair"
    for name, settings in (("greedy", {"samples": 4}), ("perfect", {}), ("best", {}),
                           ("fair", {"samples": -1})):
        with pytest.raises(ValueError):
            make_player(name, settings)
    assert player_settings("fair")["samples"] == 16
    keys = {player_key("perfect"), player_key("greedy"), player_key("random", seed=1),
            player_key("random", seed=2), player_key("fair", {"samples": 8}, 1),
            player_key("fair", {"samples": 16}, 1)}
    assert len(keys) == 6
    assert deal_seed(0, 1) != deal_seed(1, 0)


def test_one_setting_written_as_a_whole_number_or_not_is_one_player_key() -> None:
    """``bench/fair.py --set seconds=60`` (JSON: the whole number 60) is the
    default of 60.0 s a solve, yet its key held "seconds":60 where the
    default's holds 60.0: a rerun with it found none of the verdicts of the
    default player and played every deal again (and the other way round)."""
    assert player_key("fair", {"seconds": 60}, 1) == player_key("fair", {}, 1)
    whole, fraction = (player_settings("fair", {"seconds": seconds}) for seconds in (30, 30.0))
    assert json.dumps(whole) == json.dumps(fraction)


def test_the_web_hint_is_the_greedy_move() -> None:
    for name in PRESETS:
        board = Board.from_number(2, get_rules(name))
        for _ in range(15):
            found = heuristic_hint(board)
            if found["move"] is None:
                assert found["kind"] == "none" and found["why"]
                break
            assert found["kind"] == "heuristic"
            move = Move.parse(found["move"])
            assert move in board.legal_moves
            assert move == greedy_move(observe(board))
            board.push(move)


# General's Patience deal 70 as the rule of thumb played it before it
# learned to keep the terrace alive: next it would put the waste card up.
DEAL_70_LINE = "c4 t1t8 t7t2 s wf s s s s s s s wt7 s wf s s s s s s wt3 t9t3 s s wt7 s s s"


def test_greedy_never_kills_a_terrace_it_could_keep() -> None:
    """Putting the waste card up here leaves a terrace card that no
    foundation can ever take (the reserve schedule proves it whatever the
    stock holds, so a player can know it); the rule of thumb plays it
    onto a pile instead, and picks no dead base card at the start."""
    from terrace.solver.prune import terrace_dead

    board = Board.from_number(70, get_rules("generals-patience"))
    for text in DEAL_70_LINE.split():
        board.push_text(text)
    assert not terrace_dead(board)
    up = board.copy(stack=False)
    up.push_text("wf")
    assert terrace_dead(up)
    assert str(greedy_move(observe(board))) == "wt1"
    # General's deal 61: the rule of thumb likes c1 best, but only c4 leaves a live terrace
    start = Board.from_number(61, get_rules("generals-patience"))
    assert str(greedy_move(observe(start))) == "c4"


def test_greedy_still_moves_when_every_move_worth_making_kills_the_terrace() -> None:
    """A dead end is no reason to stop: on Terrace deal 93, 163 moves into
    the rule of thumb's own game, the stock is out and both foundation moves
    kill the terrace (the other moves only shuffle cards between piles); it
    still plays one."""
    from terrace.solver.greedy import _kills_terrace

    board = Board.from_number(93, get_rules("terrace"))
    for _ in range(163):
        move = greedy_move(observe(board))
        assert move is not None
        board.push(move)
    obs = observe(board)
    assert not board.stock and {str(m) for m in obs.moves if m.to_foundation} == {"t1f", "t7f"}
    assert all(_kills_terrace(obs, m) for m in obs.moves if m.to_foundation)
    assert str(greedy_move(obs)) == "t1f"


def test_the_rule_of_thumb_reads_the_reserve_schedule_once_a_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether the terrace is dead already is read once a position, not
    again for each move that could kill it: while choosing among 20 base
    cards of 8 decks it read 420 reserve schedules (1.2 s of a base-card
    chances' budget of 0.2 s went on them), each candidate's and all 20
    again for each."""
    from terrace.solver import prune
    from terrace.solver.state import State

    rules = Rules(decks=8, piles=20, reserve=200, candidates=20)
    board = Board.from_number(3, rules)
    obs = observe(board)
    assert board.choosing and len(obs.moves) == 20
    real = prune.reserve_dead
    read: list[int] = []

    def counted(state: State) -> bool:
        read.append(1)
        return real(state)

    monkeypatch.setattr(prune, "reserve_dead", counted)
    move = greedy_move(obs)
    assert move in board.legal_moves
    assert len(read) <= 2 * len(obs.moves)


def test_only_the_pile_a_card_turns_up_on_loses_its_foundation_moves() -> None:
    """The rule of thumb counts the foundation moves a move leaves, not
    those of a card that turns up from the stock (an emptied pile filled at
    once in Falling Star): every other pile's still count. A mutation audit
    dropped every pile's after such a move, and no test failed."""
    chance, checked = random.Random(5), 0
    for number in range(1, 30):
        board = Board.from_number(number, get_rules("falling-star"))
        for _ in range(200):
            moves = list(board.legal_moves)
            if not moves or checked >= 3:
                break
            obs = observe(board)
            for move in obs.moves:
                if move.source == "t" and obs.reveals(move):
                    after = board.copy(stack=False)
                    after.push(move)
                    kept = [m for m in after.legal_moves if m.to_foundation
                            and not (m.source == "t" and m.source_index == move.source_index)]
                    assert _foundation_moves(obs, move) == len(kept)
                    checked += any(m.source == "t" for m in kept)
            board.push(chance.choice(moves))
    assert checked >= 3


def test_a_survey_seed_keys_the_fair_players_verdicts_and_parts_deal_seeds_clearly() -> None:
    """Two seeds of the fair player keep their verdicts apart in the cache
    (a survey with --seed 2 took those of --seed 1), and seed 1 of deal 23
    is not seed 12 of deal 3 (a mutation audit changed each, no test failed)."""
    assert player_key("fair", {}, 1) != player_key("fair", {}, 2)
    assert json.loads(player_key("fair", {}, 2))["seed"] == 2
    assert deal_seed(1, 23) != deal_seed(12, 3)


def test_the_rule_of_thumb_player_with_no_move_says_none() -> None:
    """A deal with no move at all: the greedy player's decision is of kind
    'none', not 'greedy' (a mutation audit named it 'greedy', no test failed)."""
    stuck = Board.from_number(1, Rules(decks=1, piles=1, reserve=50, candidates=0))
    seen = observe(stuck)
    assert seen.moves == ()
    assert (GreedyPlayer().decide(seen).move, GreedyPlayer().decide(seen).kind) == (None, "none")
    assert RandomPlayer(1).decide(seen).kind == "none"


class _LateLastMove:
    """A player that chooses the moves it is given, the last one only once
    the play-out's deadline has passed (as a fair player's decision whose
    solves the budget cut short returns its move)."""

    name = "late"

    def __init__(self, moves: list[Move], late: bool = True) -> None:
        self.moves = list(moves)
        self.late = late

    def decide(self, obs: Observation, deadline: float | None = None) -> Decision:
        move = self.moves.pop(0)
        if self.late and not self.moves and deadline is not None:
            time.sleep(max(0.0, deadline - time.perf_counter()) + 0.01)
        return Decision(move, "late")


def test_a_game_left_without_a_move_by_a_move_chosen_as_the_time_ran_out_is_unknown() -> None:
    """A play-out whose last move, chosen once its budget had run out (a
    fair player's decision whose solves were cut short), left the game with
    no move was ``lost``, and a survey counts a stored ``lost`` at every
    budget: a survey at 0.3 s could store the loss that one at 1,800 s then
    took as it was. It is ``unknown`` now, as the time ran out."""
    rules = get_rules("falling-star")
    greedy = play_out(Board.from_number(3, rules), make_player("greedy"))
    assert (greedy.result, greedy.reason) == ("lost", "")  # (no move left after its last)
    board = Board.from_number(3, rules)
    for move in greedy.moves[:-3]:
        board.push(move)
    late = play_out(board, _LateLastMove(list(greedy.moves[-3:])), max_seconds=0.3)
    assert len(late.moves) == 3 and late.seconds >= 0.3
    assert (late.result, late.reason) == ("unknown", "time")
    on_time = play_out(board, _LateLastMove(list(greedy.moves[-3:]), late=False), max_seconds=60)
    assert (on_time.result, on_time.reason, len(on_time.moves)) == ("lost", "", 3)
