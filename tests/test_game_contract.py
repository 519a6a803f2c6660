"""terrace.game.State's contract (docs/research.md) as properties of random
games over every preset and any rule options (the ranges of
:data:`terrace.rules.RULE_OPTIONS`, drawn as ``test_properties_wide`` draws
them): every legal action applies and an undo gives the very state back;
every other action, and any value that is no action, is refused and changes
nothing; an action stands for the same move wherever it is legal; a clone
and a pickled copy play on alone; the score is the foundations' share;
``is_terminal`` agrees with the engine's status; and what a player sees
does not depend on the order of the face-down stock."""

from __future__ import annotations

import copy
import math
import pickle
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from terrace.board import Board, Status
from terrace.deal import Deal
from terrace.errors import IllegalMoveError, InvalidMoveError
from terrace.game import TERMINAL, State, tensor_shape
from terrace.moves import Move
from terrace.refusals import Refusal
from terrace.rules import Rules
from terrace.solver.observation import hidden_count
from terrace.variants import PRESETS
from test_game import snapshot
from test_properties_wide import full_rules

CONTRACT = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NO_ACTIONS = (-1, True, False, 1.0, math.nan, "1", None, 10**30)
"""Values that are no action whatever the rules (their refusal is
:data:`Refusal.NOT_AN_ACTION`)."""


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    """A preset as it is, a preset with other options, or any rules."""
    kind = draw(st.sampled_from(["preset", "options", "any"]))
    if kind == "any":
        return draw(full_rules())
    rules = PRESETS[draw(st.sampled_from(sorted(PRESETS)))]
    if kind == "preset":
        return rules
    changes = draw(st.fixed_dictionaries({}, optional={
        "spaces": st.sampled_from(["auto", "free", "waste"]), "redeals": st.integers(0, 2),
        "foundation_return": st.booleans(), "promote_candidates": st.booleans()}))
    return rules.replace(**changes)


GAMES = st.tuples(any_rules(), st.integers(0, 2**40), st.integers(0, 2**32), st.integers(0, 40))


def _check_actions(state: State, rng: random.Random) -> None:
    """Each legal action applies (as its move does on the board) and an undo
    takes it back exactly; the legal actions are the board's legal moves
    that bring back no position of the game's line (compared whole);
    other actions and non-actions are refused, changing nothing."""
    before, board = snapshot(state), state.board()
    legal = state.legal_actions()
    assert legal == sorted(set(legal)) and all(0 <= a < state.num_distinct_actions() for a in legal)
    for action in legal:
        move = Move.parse(state.action_to_string(action))
        assert board.move_to_action(move) == action and board.is_legal(move)
        state.apply_action(action)
        played = board.copy()
        played.push(move)
        assert state.observation_string() == played.position()
        assert state.undo() == action
        assert snapshot(state) == before
    reached, walk = {board.position_key()}, board.copy()
    while walk.move_stack:
        walk.pop()
        reached.add(walk.position_key())
    at_limit = len(state.history()) >= state.max_game_length()
    for move in board.legal_moves:  # (the positions exactly, the stock's order included)
        walk = board.copy(stack=False)
        walk.push(move)
        assert (board.move_to_action(move) in legal) == (walk.position_key() not in reached and not at_limit)
    others = [a for a in range(state.num_distinct_actions()) if a not in legal]
    for action in rng.sample(others, min(len(others), 6)):
        try:
            state.apply_action(action)
        except IllegalMoveError as error:
            if board.is_legal(board.action_to_move(action)):
                assert error.reason.code in (Refusal.ACTION_REPEATS, Refusal.GAME_AT_LENGTH)
        else:
            raise AssertionError(f"{action} was applied, not in {legal}")
        assert snapshot(state) == before, action
    for value in (*NO_ACTIONS, state.num_distinct_actions()):
        try:
            state.apply_action(value)  # type: ignore[arg-type]
        except InvalidMoveError as error:
            assert error.reason.code is Refusal.NOT_AN_ACTION
        else:
            raise AssertionError(f"{value!r} was applied")
        assert snapshot(state) == before, value


def _check_end(state: State) -> None:
    """The end and the score agree with the engine."""
    board = state.board()
    assert state.returns() == [board.foundation_cards / state.rules.card_count]
    assert (state.returns() == [1.0]) == state.is_won() == (board.status is Status.WON)
    if board.status in (Status.WON, Status.LOST):
        assert state.is_terminal()
    assert state.current_player() == (TERMINAL if state.is_terminal() else 0)
    for tensor in (state.observation_tensor(), state.information_state_tensor()):
        assert (len(tensor),) == tensor_shape(state.rules) and all(type(x) is float for x in tensor)


def _play(rules: Rules, number: int, seed: int, length: int) -> tuple[State, random.Random]:
    state, rng = State.new(rules, number), random.Random(seed)
    for _ in range(length):
        if state.is_terminal():
            break
        if state.history() and rng.random() < 0.15:
            state.undo()
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state, rng


@CONTRACT
@given(GAMES)
def test_every_action_keeps_the_contract(game: tuple[Rules, int, int, int]) -> None:
    rules, number, seed, length = game
    state, rng = _play(rules, number, seed, length)
    total = state.returns()[0]
    _check_actions(state, rng)
    _check_end(state)
    rewards = 0.0
    for _ in range(10):
        if state.is_terminal():
            break
        before = state.returns()[0]
        state.apply_action(rng.choice(state.legal_actions()))
        assert math.isclose(state.rewards()[0], state.returns()[0] - before, abs_tol=1e-12)
        rewards += state.rewards()[0]
        _check_end(state)
    assert math.isclose(total + rewards, state.returns()[0])


@CONTRACT
@given(GAMES)
def test_copies_play_on_alone(game: tuple[Rules, int, int, int]) -> None:
    rules, number, seed, length = game
    state, rng = _play(rules, number, seed, length)
    before = snapshot(state)
    replayed = State.new(rules, number)
    for action in state.history():  # (a state is its rules, its deal and its actions)
        replayed.apply_action(action)
    copies = [state.clone(), copy.copy(state), copy.deepcopy(state), pickle.loads(pickle.dumps(state))]
    copies.append(replayed)
    for other in copies:
        assert snapshot(other) == before
        for _ in range(3):
            if other.is_terminal():
                break
            other.apply_action(rng.choice(other.legal_actions()))
        assert snapshot(state) == before
    for other in copies:
        while len(other.history()) > len(state.history()):
            other.undo()
        assert snapshot(other) == before


def _whole_legal(board: Board, reached: Counter[tuple[object, ...]], at_limit: bool) -> list[int]:
    """The legal actions as the positions whole give them: the board's legal
    moves to a position (the stock's order included) not in ``reached``."""
    if board.is_won() or at_limit:
        return []
    legal = []
    for move in board.legal_moves:
        after = board.copy(stack=False)
        after.push(move)
        if not reached[after.position_key()]:
            legal.append(board.move_to_action(move))
    return sorted(legal)


@CONTRACT
@given(GAMES)
def test_at_every_step_the_legal_actions_are_those_of_the_whole_positions(
        game: tuple[Rules, int, int, int]) -> None:
    """A state keeps a digest of each position reached, where it kept the
    positions: at every step of a game played on, taken back, cloned and
    pickled, its legal actions and its position are those of a board that
    keeps the positions whole."""
    rules, number, seed, length = game
    state, rng = State.new(rules, number), random.Random(seed)
    board = state.board()
    reached = Counter([board.position_key()])
    for _ in range(length + 10):
        legal = state.legal_actions()
        assert legal == _whole_legal(board, reached, len(state.history()) >= state.max_game_length())
        assert state.observation_string() == board.position()
        roll = rng.random()
        if state.history() and roll < 0.2:
            reached[board.position_key()] -= 1
            board.pop()
            state.undo()
        elif legal:
            action = rng.choice(legal)
            state.apply_action(action)
            board.apply_action(action)
            reached[board.position_key()] += 1
        if roll > 0.9:
            state = pickle.loads(pickle.dumps(state)) if roll > 0.95 else state.clone()


@CONTRACT
@given(GAMES)
def test_the_player_s_view_does_not_depend_on_the_face_down_order(game: tuple[Rules, int, int, int]) -> None:
    rules, number, seed, length = game
    state, rng = _play(rules, number, seed, length)
    hidden = hidden_count(state.board())
    cards = list(Board.from_number(number, rules).deal.cards)
    tail = cards[len(cards) - hidden:]
    rng.shuffle(tail)
    other = State(Board(rules, Deal(tuple(cards[:len(cards) - hidden] + tail))))
    for action in state.history():
        other.apply_action(action)
    assert other.information_state_string() == state.information_state_string()
    assert other.information_state_tensor() == state.information_state_tensor()
    assert other.legal_actions() == state.legal_actions()
