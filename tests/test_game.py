"""terrace.game: the OpenSpiel-style state researchers drive."""

from __future__ import annotations

import copy
import doctest
import hashlib
import os
import pickle
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import errors_in_threads
from store_support import count_pushes, golden
from terrace.actions import action_moves
from terrace.board import Board
from terrace.errors import IllegalMoveError, InvalidRecordError, NoMoveError
from terrace.game import TERMINAL, State, _moved, _pieces, tensor_shape
from terrace.moves import Move
from terrace.refusals import Refusal
from terrace.variants import PRESETS, get_rules

ROOT = Path(__file__).resolve().parent.parent


def snapshot(state: State) -> tuple[object, ...]:
    """Everything a state says of itself, and its board's position and stacks."""
    board = state.board()
    return (state.observation_string(), state.information_state_string(), state.observation_tensor(),
            state.information_state_tensor(), state.legal_actions(), state.history(), state.returns(),
            state.is_terminal(), board.position(), board.move_stack, board.redo_stack)


def _play(state: State, rng: random.Random) -> State:
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_random_play_of_every_preset_ends_by_the_rules_before_the_length_limit(name: str) -> None:
    """(A bare board played at random may cycle for ever: 133 of 200 random
    Terrace games reached 3,000 moves.)"""
    for game in range(2):
        state = _play(State.new(PRESETS[name], game + 1), random.Random(game))
        assert state.is_terminal() and state.legal_actions() == [] and state.current_player() == TERMINAL
        assert len(state.history()) < state.max_game_length()
        assert 0.0 <= state.returns()[0] <= 1.0
        assert (state.returns() == [1.0]) == state.is_won()
        if not state.is_won():  # lost: every legal move of the board repeats a position
            board = state.board()
            assert board.is_won() or all(_repeats(state, move) for move in board.legal_moves)


def _repeats(state: State, move: object) -> bool:
    try:
        state.clone().apply_action(state.board().move_to_action(move))  # type: ignore[arg-type]
    except IllegalMoveError as error:
        return error.reason.code is Refusal.ACTION_REPEATS
    return False


def test_an_action_that_brings_back_a_position_is_refused_and_not_listed() -> None:
    rng = random.Random(7)
    state = State.new(get_rules("terrace"), 3)
    for _ in range(500):
        board = state.board()
        back = [m for m in board.legal_moves if board.move_to_action(m) not in state.legal_actions()]
        if back:
            break
        state.apply_action(rng.choice(state.legal_actions()))
    else:
        pytest.fail("no repeating move met in 500 actions")
    before = snapshot(state)
    with pytest.raises(IllegalMoveError) as caught:
        state.apply_action(board.move_to_action(back[0]))
    assert caught.value.reason.code is Refusal.ACTION_REPEATS
    assert "would bring back a position" in str(caught.value)
    assert snapshot(state) == before


class Short(State):
    """A state whose games end after three actions."""

    def max_game_length(self) -> int:
        return 3


def test_the_length_limit_ends_a_game() -> None:
    state = Short(Board.from_number(1, get_rules("terrace")))
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.legal_actions() == []
    with pytest.raises(IllegalMoveError) as caught:
        state.apply_action(state.board().legal_actions()[0])
    assert caught.value.reason.code is Refusal.GAME_AT_LENGTH


def test_the_length_limit_follows_the_rules() -> None:
    state = State.new(get_rules("terrace"), 1)
    assert state.max_game_length() == 50 * 104
    assert State.new(get_rules("terrace", redeals=2), 1).max_game_length() == 3 * 50 * 104


def test_the_length_limit_is_at_most_what_a_record_holds() -> None:
    """Eight decks with nine redeals allowed 208,000 actions: a game that
    long could not be recorded (a record holds at most MAX_MOVES)."""
    from terrace.moves import MAX_MOVES

    assert State.new(get_rules("terrace", decks=8, redeals=9), 1).max_game_length() == MAX_MOVES
    assert State.new(get_rules("terrace", decks=4, redeals=9), 1).max_game_length() == MAX_MOVES
    assert State.new(get_rules("terrace", decks=4, redeals=8), 1).max_game_length() == 9 * 50 * 208


def test_apply_then_undo_restores_everything_at_every_step() -> None:
    """The redo stack too: a draw taken back is forgotten, so the
    information state after the undo is the one before the action."""
    rng = random.Random(3)
    for name in ("terrace", "empress-of-italy", "wood"):
        state = State.new(PRESETS[name], 5)
        for _ in range(60):
            if state.is_terminal():
                break
            before = snapshot(state)
            for action in state.legal_actions():
                state.apply_action(action)
                assert state.undo() == action
                assert snapshot(state) == before, (name, action)
            state.apply_action(rng.choice(state.legal_actions()))


def test_undo_at_the_start_is_refused() -> None:
    with pytest.raises(NoMoveError):
        State.new(get_rules("terrace"), 1).undo()


def test_reads_of_a_state_stay_whole_while_another_thread_lists_its_legal_actions() -> None:
    """legal_actions tried each move on the state's own board and took it
    back, so a thread reading the state at that instant saw a card half
    moved (833 of some 3,000 reads in 0.3 s, switching threads every
    microsecond). It reads the board only now."""
    state = State.new(get_rules("terrace"), 3)
    for action in (0, state.num_distinct_actions() - 1):  # (c1, s: five moves)
        state.apply_action(action)
    expected = state.observation_string(), state.observation_tensor()
    stop = threading.Event()

    def list_again() -> None:
        while not stop.is_set():
            state._legal = None  # (not kept: each call tries the moves again)
            state.legal_actions()

    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    lister = threading.Thread(target=list_again)
    lister.start()
    torn = 0
    try:
        until = time.monotonic() + 0.2
        while time.monotonic() < until:
            torn += (state.observation_string(), state.observation_tensor()) != expected
    finally:
        stop.set()
        lister.join()
        sys.setswitchinterval(switching)
    assert torn == 0
    assert len(state.legal_actions()) > 2


@pytest.mark.parametrize("name", ["terrace", "falling-star"])
def test_the_position_after_a_move_is_worked_out_as_the_board_plays_it(name: str) -> None:
    """legal_actions works out each move's position from the pieces of the
    position now, without playing it (game._moved), the spaces it empties
    filled from the waste or the stock as terrace.undo.refill fills them:
    the same pieces as the board's after the move, at every move of random
    games of rules whose spaces are refilled at once."""
    filled = 0
    for deal in range(2):
        state, rng = State.new(get_rules(name), deal), random.Random(deal)
        while not state.is_terminal():
            board = state.board()
            now = _pieces(board)
            for move in board.generate_legal_moves():
                if not (move.is_draw or move.is_choice):
                    after = board.copy(stack=False)
                    after.push(move)
                    worked_out = _moved(board, now, board._resolve(move))  # type: ignore[arg-type]
                    assert worked_out == _pieces(after), (deal, board.position(), str(move))
                    filled += bool(after._undo[-1].fills)  # type: ignore[union-attr]
            state.apply_action(rng.choice(state.legal_actions()))
    assert filled > 10


def test_clone_is_independent() -> None:
    rng = random.Random(11)
    state = State.new(get_rules("falling-star"), 2)
    for _ in range(20):
        state.apply_action(rng.choice(state.legal_actions()))
    copy = state.clone()
    before = snapshot(state)
    _play(copy, random.Random(1))
    while copy.history():
        copy.undo()
    assert snapshot(state) == before
    state.apply_action(state.legal_actions()[0])
    assert copy.history() == []


def test_a_state_from_a_board_counts_its_history_as_reached() -> None:
    board = Board.from_number(1, get_rules("falling-star"))
    state = State(board)
    rng = random.Random(5)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
    again = State(state.board())
    assert again.legal_actions() == state.legal_actions()
    assert again.history() == state.history()


def test_the_tensor_has_its_shape_and_one_place_per_card() -> None:
    rng = random.Random(2)
    for name, rules in PRESETS.items():
        state = State.new(rules, 4)
        for _ in range(40):
            for tensor in (state.observation_tensor(), state.information_state_tensor()):
                assert (len(tensor),) == tensor_shape(rules)
                width = 4 + rules.foundation_count + rules.piles + 1
                rows = [tensor[16 + i * width: 16 + (i + 1) * width] for i in range(rules.card_count)]
                assert all(sum(row[:-1]) == 1.0 for row in rows), name
                assert sum(tensor[:14]) == 1.0
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


def test_the_fair_view_hides_the_face_down_order_only() -> None:
    rules = get_rules("terrace")
    first = Board.from_number(9, rules)
    first.push_text("c1")
    fields = first.position().split()
    stock = [fields[5][i:i + 2] for i in range(0, len(fields[5]), 2)]
    fields[5] = "".join(stock[::-1])
    other = Board.from_position(" ".join(fields), rules)
    one, two = State(first), State(other)
    assert one.observation_string() != two.observation_string()
    assert one.observation_tensor() != two.observation_tensor()
    assert one.information_state_string() == two.information_state_string()
    assert one.information_state_tensor() == two.information_state_tensor()
    assert "??" in one.information_state_string()
    for state in (one, two):
        state.apply_action(state.board().move_to_action(Move.parse("s")))
    assert one.information_state_string() != two.information_state_string()  # the draw showed a card


def test_the_perfect_view_includes_the_stock_order() -> None:
    state = State.new(get_rules("terrace"), 1)
    board = state.board()
    assert state.observation_string() == board.position()
    assert Board.from_position(state.observation_string(), state.rules) == board


_DIGESTS = {
    "admirals-patience": "6a82a7df58b958db",
    "big-terrace": "6a82a7df58b958db",
    "blondes-and-brunettes": "6474a2b5fca6ab64",
    "empress-of-italy": "013cc1caa4678d6c",
    "falling-star": "6474a2b5fca6ab64",
    "generals-patience": "71ff0763198c290d",
    "madame": "7f34cf720a503d79",
    "terrace": "ff757961eb8da3a0",
    "thirteen": "d959e17f2b26a3c8",
    "wood": "6474a2b5fca6ab64",
}


def _digest(name: str) -> str:
    text = " ".join(str(move) for move in action_moves(PRESETS[name]))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_action_space_of_each_preset_is_stable(name: str) -> None:
    """A changed digest renumbers actions every trained agent uses."""
    assert _digest(name) == _DIGESTS[name], (name, len(action_moves(PRESETS[name])))


_SCRIPT = """
import hashlib, random
from array import array
from terrace.game import State
from terrace.variants import PRESETS
out = hashlib.sha256()
for name in sorted(PRESETS):
    state, rng = State.new(PRESETS[name], 6), random.Random(6)
    for _ in range(80):
        seen = (state.observation_string(), state.information_state_string(), repr(state.legal_actions()))
        out.update(" ".join(seen).encode())
        for tensor in (state.observation_tensor(), state.information_state_tensor()):
            out.update(array("d", tensor).tobytes())  # (the values exactly; a repr took a third of the time)
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
print(out.hexdigest())
"""


def test_observations_do_not_depend_on_the_hash_seed() -> None:
    digests = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT / "src")}
        done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                              check=True, timeout=300)
        digests.add(done.stdout.strip())
    assert len(digests) == 1


def test_docs_research_md_examples_run() -> None:
    failed, tried = doctest.testfile(str(ROOT / "docs" / "research.md"), module_relative=False,
                                     optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0


def _decode(tensor: list[float], rules: object) -> tuple[object, ...]:
    """The board's places read back from an observation tensor."""
    assert isinstance(rules, type(get_rules()))
    width = 4 + rules.foundation_count + rules.piles + 1
    places: list[list[tuple[int, int]]] = [[] for _ in range(width - 1)]
    for row in range(rules.card_count):
        cells = tensor[16 + row * width: 16 + (row + 1) * width]
        places[cells.index(1.0)].append((int(cells[-1]), row // rules.decks))
    cards = [[face for _, face in sorted(place, reverse=True)] for place in places]
    base = tensor[:14].index(1.0)
    return (-1 if base == 13 else base, cards[0], cards[1], cards[2], cards[4:4 + rules.foundation_count],
            cards[4 + rules.foundation_count:], int(tensor[14]))


def test_the_observation_tensor_gives_the_position_back() -> None:
    """The exact tensor holds every pile's order and the stock's."""
    rng = random.Random(4)
    for name in ("terrace", "madame", "empress-of-italy"):
        state = State.new(PRESETS[name], 8)
        for _ in range(80):
            board = state.board()
            assert _decode(state.observation_tensor(), state.rules) == (
                board.base_rank, board.reserve, board.waste, board.stock, board.foundations, board.tableau,
                board.redeals_used), name
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


def test_actions_read_as_moves_and_the_player_is_zero_until_the_end() -> None:
    state = State.new(get_rules("terrace"), 1)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["c1", "c2", "c3"]
    assert state.current_player() == 0


def test_after_a_redeal_the_player_knows_the_stock() -> None:
    """The stock turned over from the waste is known card by card: the
    information state is then the exact one (and before, it was not)."""
    rules = get_rules("falling-star", redeals=1)
    state, rng = State.new(rules, 3), random.Random(0)
    draw = state.board().move_to_action(Move.parse("s"))
    while state.board().redeals_used == 0:
        if state.board().stock:  # (face down until the redeal)
            assert state.information_state_string() != state.observation_string()
        legal = state.legal_actions()
        state.apply_action(draw if draw in legal and rng.random() < 0.7 else rng.choice(legal))
    assert state.information_state_string() == state.observation_string()
    assert state.information_state_tensor() == state.observation_tensor()


def test_the_state_stays_in_the_engine() -> None:
    """terrace.game reaches no web, command line or storage module, at any
    depth of imports."""
    from test_layers import import_graph

    graph, reached, todo = import_graph(), set(), ["terrace.game"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(graph[name])
    assert "terrace.solver.observation" in reached
    assert not [n for n in reached if n.split(".")[1:2] in (["web"], ["cli"], ["storage"])]


def test_the_tensor_rows_hold_each_card_at_its_documented_depth() -> None:
    """Each row is a card of its face at its place and depth counted from the
    top (0 the playable card, for the stock the card drawn next), the copies
    of a face in the order of their places; the head counts the stock."""
    rng = random.Random(6)
    for name in ("terrace", "empress-of-italy"):
        state = State.new(PRESETS[name], 9)
        for _ in range(60):
            board, rules = state.board(), state.rules
            width = 4 + rules.foundation_count + rules.piles + 1
            piles = [board.reserve, board.waste, board.stock, []]
            piles += list(board.foundations) + list(board.tableau)
            wanted = sorted((card, place, depth) for place, cards in enumerate(piles)
                            for depth, card in enumerate(reversed(cards)))
            tensor = state.observation_tensor()
            rows = [tensor[16 + i * width: 16 + (i + 1) * width] for i in range(rules.card_count)]
            got = [(i // rules.decks, row.index(1.0), int(row[-1])) for i, row in enumerate(rows)]
            assert got == wanted, name
            assert tensor[15] == len(board.stock)
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


def test_legal_actions_come_in_increasing_order() -> None:
    rng = random.Random(8)
    for name in ("terrace", "wood", "falling-star"):
        state = State.new(PRESETS[name], 6)
        for _ in range(40):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            assert legal == sorted(legal) and len(legal) == len(set(legal)), name
            state.apply_action(rng.choice(legal))


def test_lists_and_boards_handed_out_do_not_reach_into_the_state() -> None:
    state = State.new(get_rules("terrace"), 2)
    state.apply_action(state.legal_actions()[0])
    before = repr(snapshot(state))
    state.legal_actions().clear()
    state.history().clear()
    board = state.board()
    board.push(next(iter(board.legal_moves)))
    assert repr(snapshot(state)) == before


def test_after_an_undo_the_legal_actions_are_those_of_the_position() -> None:
    rng = random.Random(9)
    state = State.new(get_rules("falling-star"), 4)
    for _ in range(25):
        before = state.legal_actions()
        action = rng.choice(before)
        state.apply_action(action)
        state.legal_actions()
        state.undo()
        assert state.legal_actions() == before
        state.apply_action(action)


def test_a_clone_played_on_leaves_the_positions_reached_by_the_original() -> None:
    """Not a shared record of positions: what the clone reaches stays legal
    for the original."""
    rng = random.Random(12)
    state = State.new(get_rules("terrace"), 3)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
        copy = state.clone()
        first = copy.legal_actions()[0]
        copy.apply_action(first)
        assert first in state.legal_actions()


def test_a_state_from_a_board_counts_its_current_position_as_reached() -> None:
    """A move and its reverse from a board's position: the reverse is not
    legal for a State built from the board, as for the one that played."""
    rng = random.Random(5)
    state = State.new(get_rules("falling-star"), 1)
    checked = 0
    for _ in range(60):
        if state.is_terminal():
            break
        again = State(state.board())
        for action in state.legal_actions():
            state.apply_action(action)
            again.apply_action(action)
            assert again.legal_actions() == state.legal_actions()
            checked += len(state.board().legal_moves) - len(state.legal_actions())
            state.undo()
            again.undo()
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 0, "no move met that brings a position back"


def test_undoing_a_board_history_that_repeats_a_position_frees_it_again() -> None:
    """A board's history may come back to a position (the plain game allows
    it); undone to before the first visit, the position is legal again."""
    rng = random.Random(5)
    board = Board.from_number(1, get_rules("falling-star"))
    for _ in range(200):
        start = board.position_key()
        found = None
        for move in list(board.legal_moves):
            board.push(move)
            back = [r for r in list(board.legal_moves) if _leads_to(board, r, start)]
            board.pop()
            if back:
                found = (move, back[0])
                break
        if found:
            break
        board.push(rng.choice(list(board.legal_moves)))
    else:
        pytest.fail("no move met that a move undoes in 200 moves")
    move, reverse = found
    for step in (move, reverse, move):
        board.push(step)
    state = State(board)
    for _ in range(3):
        state.undo()
    assert board.move_to_action(move) in state.legal_actions()


def _leads_to(board: Board, move: Move, key: object) -> bool:
    board.push(move)
    try:
        return board.position_key() == key
    finally:
        board.pop()


def test_copy_copy_and_deepcopy_give_a_state_that_plays_on_alone() -> None:
    """copy.copy shared the board (and the positions reached): a move played
    on the copy was played on the original too."""
    state = State.new(get_rules("terrace"), 1)
    state.apply_action(0)
    before = snapshot(state)
    for other in (copy.copy(state), copy.deepcopy(state)):
        assert snapshot(other) == before
        other.apply_action(other.legal_actions()[-1])
        assert snapshot(state) == before


def test_the_information_state_string_is_observe_s_view() -> None:
    """With draws taken back by the board (known cards) and redeals."""
    from terrace.solver.observation import observe

    rng = random.Random(13)
    for name in ("falling-star", "empress-of-italy"):
        board = Board.from_number(2, get_rules(name, redeals=1))
        for _ in range(100):
            if rng.random() < 0.2 and board.move_stack:
                board.pop()
            elif board.legal_moves:
                board.push(rng.choice(list(board.legal_moves)))
            seen = observe(board)
            assert State(board).information_state_string() == seen.position(["??"] * seen.stock.count(None))


def test_reading_the_information_state_plays_no_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """It went through observe(), which tries every legal move on a copy of
    the board: 0.74 ms a call on eight decks and 20 piles, where the exact
    string took 0.04 ms and a whole step 0.34 ms."""
    state = State.new(get_rules("empress-of-italy"), 3)
    rng = random.Random(3)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
    pushes = count_pushes(monkeypatch)
    assert "??" in state.information_state_string()
    assert pushes == [0]


@pytest.mark.parametrize("hidden", [-1, True, 1.0, "1", 91])
def test_a_position_with_hidden_cards_takes_a_number_of_stock_cards(hidden: object) -> None:
    board = Board.from_number(1, get_rules("terrace"))
    assert board.position(hidden=len(board.stock)).endswith(" " + "??" * len(board.stock) + " 0")
    with pytest.raises(ValueError, match="hidden is a number of stock cards, 0 to 90, not"):
        board.position(hidden=hidden)  # type: ignore[arg-type]


def test_the_information_tensor_puts_the_face_down_cards_unseen_and_the_rest_as_they_lie() -> None:
    """Row by row: each face's copies in the order of their places and
    depths, the face-down stock cards in the unseen column at depth 0."""
    from terrace.solver.observation import hidden_count

    rng = random.Random(14)
    state = State.new(get_rules("falling-star", redeals=1), 5)
    for _ in range(120):
        board, rules = state.board(), state.rules
        hidden = hidden_count(board)
        piles = [board.reserve, board.waste, board.stock[hidden:], [], *board.foundations, *board.tableau]
        unseen = [(card, 3, 0) for card in board.stock[:hidden]]
        wanted = sorted([(card, place, depth) for place, cards in enumerate(piles)
                         for depth, card in enumerate(reversed(cards))] + unseen)
        width = 4 + rules.foundation_count + rules.piles + 1
        tensor = state.information_state_tensor()
        rows = [tensor[16 + i * width: 16 + (i + 1) * width] for i in range(rules.card_count)]
        assert [(i // rules.decks, row.index(1.0), int(row[-1])) for i, row in enumerate(rows)] == wanted
        assert tensor[:16] == state.observation_tensor()[:16]
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))


def test_a_loop_written_for_openspiel_plays_a_game() -> None:
    """OpenSpiel's own examples ask is_chance_node and is_simultaneous_node,
    name the player in action_to_string and the views, read a mask and sum
    rewards: each was an AttributeError or a TypeError."""
    state, rng = State.new(get_rules("falling-star"), 2), random.Random(2)
    start, total, lines = state.returns()[0], 0.0, []
    assert state.rewards() == [0.0]
    while not state.is_terminal():
        assert not state.is_chance_node() and not state.is_simultaneous_node()
        player = state.current_player()
        legal = state.legal_actions(player)
        mask = state.legal_actions_mask(player)
        assert len(mask) == state.num_distinct_actions() and [a for a, m in enumerate(mask) if m] == legal
        assert len(state.observation_tensor(player)) == len(state.information_state_tensor(player))
        assert state.information_state_string(player) != "" and state.observation_string(player) != ""
        action = rng.choice(legal)
        lines.append(state.action_to_string(player, action))
        assert lines[-1] == state.action_to_string(action)
        state.apply_action(action)
        total += state.rewards()[0]
    assert state.current_player() == TERMINAL and not any(state.legal_actions_mask())
    assert abs(start + total - state.returns()[0]) < 1e-9 and len(lines) == len(state.history())


@pytest.mark.parametrize("player", [1, -1, True, 0.0, "0"])
def test_a_player_other_than_0_is_refused(player: object) -> None:
    state = State.new(get_rules("terrace"), 1)
    for call in (state.legal_actions, state.legal_actions_mask, state.observation_string,
                 state.information_state_string, state.observation_tensor, state.information_state_tensor,
                 lambda p: state.action_to_string(p, 0)):
        with pytest.raises(ValueError, match="player is 0, the one player of this game, not"):
            call(player)  # type: ignore[operator]


def test_the_legal_actions_try_no_draw_and_no_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """A draw or a choice always leads to a position not reached before (the
    stock is smaller, or a redeal more is counted): trying them, as every
    other move is tried, was work for nothing."""
    state = State.new(get_rules("terrace"), 1)
    tried: list[Move] = []
    resolve = Board._resolve
    monkeypatch.setattr(Board, "_resolve", lambda board, move: (tried.append(move), resolve(board, move))[1])
    assert state.legal_actions() == [0, 1, 2] and tried == []  # the three choices
    state.apply_action(0)
    tried.clear()
    legal = state.legal_actions()
    assert state.board().move_to_action(Move.parse("s")) in legal and len(legal) > 1
    assert tried and not [move for move in tried if move.is_draw or move.is_choice]


def test_a_clone_makes_no_object_per_action_played() -> None:
    """It copied, for each action, the list of redo moves the action had
    cleared (mostly empty): 0.96 ms a clone 5,000 steps into a game of eight
    decks and 20 piles, where the rest of the clone takes 0.2 ms."""
    import tracemalloc

    state, rng = State.new(get_rules("empress-of-italy"), 1), random.Random(1)
    for _ in range(500):
        state.apply_action(rng.choice(state.legal_actions()))
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        twin = state.clone()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    made = sum(stat.count_diff for stat in after.compare_to(before, "lineno") if stat.count_diff > 0)
    assert made < 200, made
    while twin.history():  # (and what each undo gives back is still the original's)
        twin.undo()
    assert twin.board().redo_stack == []
    assert twin.observation_string() == State.new(state.rules, 1).observation_string()


def test_a_long_game_keeps_little_memory_per_action() -> None:
    """A state kept each position its game reached whole, as tuples: 3,100
    bytes an action on eight decks and 20 piles (617 MB at 100,000 actions).
    It keeps a digest of each now, and the board its moves' records."""
    import tracemalloc

    state, rng = State.new(get_rules("empress-of-italy", decks=8, piles=20), 1), random.Random(1)
    for _ in range(20):  # (the rules' tables and the records shared are made by then)
        state.apply_action(rng.choice(state.legal_actions()))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(100):
            state.apply_action(rng.choice(state.legal_actions()))
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept / 100 < 800, kept / 100


def test_a_board_past_the_length_limit_makes_a_state_over_at_once() -> None:
    """(docs/research.md: a state made from a board whose history is as long
    as the limit, or longer, is over, scored as it stands; an undo that
    leaves it at the limit or past it leaves it over; its copies are of its
    class: a clone or a pickled copy of a subclass was a State, with the
    State's limit.)"""
    board = Board.from_number(1, get_rules("terrace"))
    for text in ("c1", "s", "s", "s", "s"):
        board.push_text(text)
    state = Short(board)
    assert state.is_terminal() and state.legal_actions() == [] and state.current_player() == TERMINAL
    assert state.returns() == [board.foundation_cards / 104] and state.history() == [0, 95, 95, 95, 95]
    for copied in (state.clone(), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert type(copied) is Short and snapshot(copied) == snapshot(state)
    with pytest.raises(IllegalMoveError) as caught:
        state.apply_action(95)
    assert caught.value.reason.code is Refusal.GAME_AT_LENGTH
    state.undo()
    state.undo()
    assert state.is_terminal() and len(state.history()) == 3
    state.undo()
    assert not state.is_terminal() and state.legal_actions() == state.board().legal_actions()


class Tagged(State):
    """A learner's state: its own attributes beside the State's."""

    def __init__(self, board: Board) -> None:
        super().__init__(board)
        self.episode = 7
        self.seen_rewards: list[float] = [0.5]
        self.me = self


def test_the_attributes_a_subclass_gives_a_state_are_its_copies_and_pickles_too() -> None:
    """A clone, copy.copy, copy.deepcopy, a pickled copy and State.from_bytes
    of a subclass's state were of its class but without its attributes
    (AttributeError: 'Tagged' object has no attribute 'episode'). A clone
    shares them as they are, as copy.copy would; deepcopy copies them."""
    state = Tagged.new(get_rules("terrace"), 1)
    state.apply_action(0)
    copies = {"clone": state.clone(), "copy": copy.copy(state), "deepcopy": copy.deepcopy(state),
              "pickle": pickle.loads(pickle.dumps(state)), "bytes": Tagged.from_bytes(state.to_bytes())}
    for how, copied in copies.items():
        assert isinstance(copied, Tagged) and snapshot(copied) == snapshot(state), how
        assert (copied.episode, copied.seen_rewards) == (7, [0.5]), how
    assert copies["clone"].seen_rewards is state.seen_rewards and copies["clone"].me is state
    deep = copies["deepcopy"]
    assert deep.seen_rewards is not state.seen_rewards and deep.me is deep
    assert copies["pickle"].me is copies["pickle"]
    assert State.from_bytes(State.new(get_rules("terrace"), 1).to_bytes()).__dict__.keys() == {
        "_board", "_seen", "_past", "_actions", "_cleared", "_legal"}


def test_states_of_a_tree_that_refer_to_each_other_pickle_and_copy_as_a_tree() -> None:
    """A search tree's nodes: each child refers to its parent, the parent to
    its children. Pickled (or written by to_bytes) from the root, each
    comes back once, the links between the copies."""
    root = Tagged.new(get_rules("terrace"), 1)
    children = []
    for action in root.legal_actions():
        child = root.clone()
        child.apply_action(action)
        child.me, child.parent = child, root  # type: ignore[attr-defined]
        children.append(child)
    root.children = children  # type: ignore[attr-defined]
    for copied in (pickle.loads(pickle.dumps(root)), Tagged.from_bytes(root.to_bytes()), copy.deepcopy(root)):
        assert copied.me is copied and len(copied.children) == 3  # type: ignore[attr-defined]
        for child, original in zip(copied.children, children, strict=True):  # type: ignore[attr-defined]
            assert child.parent is copied and child.me is child and child.history() == original.history()


def test_a_pickle_changed_in_any_byte_is_refused_never_read_as_another_state() -> None:
    """A state pickled as its objects read a changed byte as another state
    228 times in 4,042 one-byte changes (a card of a pile, a move's record);
    the parts are sealed by a digest now, and a change to them is refused in
    the engine's words. (With the parts as raw bytes, the change that made
    pickle read them as its instructions took 16 s and gigabytes; in
    hexadecimal they stop it at once: 0.25 s for every byte here.)"""
    state, rng = State.new(get_rules("terrace"), 3), random.Random(2)
    for _ in range(25):
        state.apply_action(rng.choice(state.legal_actions()))
    state.undo()
    data, before = pickle.dumps(state), snapshot(state)
    refused = []
    for at in range(len(data)):
        changed = bytearray(data)
        changed[at] ^= 1
        try:
            other = pickle.loads(bytes(changed))
        except Exception as error:  # (pickle's own, where the change breaks the stream)
            refused.append(error)
            continue
        assert snapshot(other) == before, at
    ours = [error.reason.code for error in refused if isinstance(error, InvalidRecordError)]
    assert len(ours) > 0.9 * len(data) and set(ours) == {Refusal.STATE_UNREADABLE}


def test_state_bytes_changed_anywhere_are_refused_before_anything_is_unpickled() -> None:
    """A state's pickle changed in one byte of pickle's own opcodes (made
    LONG_BINPUT, the next four bytes the size of a table the unpickler
    fills) took 1.4 GiB and 1.6 s (byte 41; other bytes asked for up to
    37 GiB) before the state's own check ran. State.to_bytes writes a head
    that from_bytes checks (the format, the length, a digest) before
    unpickling anything: each byte of the head made 0, LONG_BINPUT or 255,
    every seventh byte after it changed, the bytes cut short or made
    longer, each is refused, and all of them together take under 1 MiB."""
    import tracemalloc

    state, rng = State.new(get_rules("terrace"), 3), random.Random(2)
    for _ in range(25):
        state.apply_action(rng.choice(state.legal_actions()))
    data = state.to_bytes()
    assert snapshot(State.from_bytes(bytearray(data))) == snapshot(state)
    head = data.index(b"\x80")  # (pickle's first opcode: PROTO)
    values = (0x00, 0x72, 0xFF)  # (0x72: LONG_BINPUT)
    changed = [data[:at] + bytes((value,)) + data[at + 1:] for at in range(head + 3) for value in values]
    changed += [data[:at] + bytes((data[at] ^ 0x5A,)) + data[at + 1:] for at in range(head + 3, len(data), 7)]
    changed += [data[:-1], data + b"\x00", data[:head], b""]
    refused = []
    tracemalloc.start()
    try:
        for bad in changed:
            try:
                State.from_bytes(bad)
            except InvalidRecordError as error:
                refused.append(error.reason.code)  # type: ignore[union-attr]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused == [Refusal.STATE_UNREADABLE] * sum(bad != data for bad in changed)
    assert peak < 2**20


def test_a_state_from_bytes_is_of_the_class_asked_and_takes_bytes_only() -> None:
    class Learner(State):
        pass

    data = State.new(get_rules("terrace"), 1).to_bytes()
    assert type(Learner.from_bytes(data)) is Learner and type(State.from_bytes(data)) is State
    with pytest.raises(TypeError, match=r"^State.from_bytes takes bytes \(of State.to_bytes\), not str"):
        State.from_bytes(data.decode("latin-1"))  # type: ignore[arg-type]


def test_a_state_pickled_the_old_way_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """(Its positions reached were kept as tuples: read back, they matched
    no key and the state repeated positions.)"""
    state = State.new(get_rules("terrace"), 1)
    monkeypatch.delattr(State, "__reduce__")
    data = pickle.dumps(state)
    monkeypatch.undo()
    with pytest.raises(InvalidRecordError, match="cannot be read back"):
        pickle.loads(data)


def _a_second_clone(state: State) -> tuple[State, int]:
    """A clone of ``state`` after a first one (which shares what the state
    keeps with its clones), and the bytes it took (tracemalloc)."""
    import tracemalloc

    state.clone()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        twin = state.clone()
        return twin, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_a_clone_shares_the_positions_reached_and_both_play_on_alone() -> None:
    """A clone copied the count of every position reached: 42 KB a clone 600
    actions into a game of Empress of Italy, where a clone shares the
    counts that neither changes now (24 KB). Whatever each takes back or
    plays after, each plays as its own history replayed does."""

    state, rng = State.new(get_rules("empress-of-italy"), 1), random.Random(1)
    for _ in range(600):
        state.apply_action(rng.choice(state.legal_actions()))
    twin, made = _a_second_clone(state)
    assert made < 32_000, made
    for _ in range(200):  # (the twin takes back what both share, the original plays on)
        twin.undo()
    for _ in range(20):
        state.apply_action(rng.choice(state.legal_actions()))
        twin.apply_action(rng.choice(twin.legal_actions()))
    for played in (state, twin):
        replayed = State.new(played.rules, 1)
        for action in played.history():
            replayed.apply_action(action)
        assert replayed.legal_actions() == played.legal_actions()


def test_a_clone_shares_the_history_played_before_it() -> None:
    """A clone copied the whole history, four lists of references: 15 KB
    a clone 400 actions into a game of Empress of Italy (244 KiB at 7,669
    actions: 4.7 GiB for 20,000 clones). It shares what was played before
    it now; taking back into that history, pickles, bytes and the board
    handed out are as the history played without a clone gives them."""

    state, rng = State.new(get_rules("empress-of-italy"), 1), random.Random(1)
    for _ in range(400):
        state.apply_action(rng.choice(state.legal_actions()))
    plain = State.new(state.rules, 1)
    for action in state.history():
        plain.apply_action(action)
    twin, made = _a_second_clone(state)
    assert made < 8_000, made  # (2,700 now, 15,500 before)
    for _ in range(200):  # (back over pieces of the shared history)
        twin.undo()
    for played in (state, twin):
        for _ in range(10):
            played.apply_action(rng.choice(played.legal_actions()))
        replayed = State.new(played.rules, 1)
        for action in played.history():
            replayed.apply_action(action)
        assert snapshot(replayed) == snapshot(played) and played.rewards() == replayed.rewards()
    for action in state.history()[400:]:
        plain.apply_action(action)
    assert snapshot(State.from_bytes(state.to_bytes())) == snapshot(plain)
    assert pickle.dumps(state.board()) == pickle.dumps(plain.board())


def _histories_of_clones_made_at_once(state: State, threads: int) -> list[list[int]]:
    """The histories of ``threads`` clones of ``state``, each made by a
    thread of its own, all let go at once."""
    histories: list[list[int]] = []
    gate = threading.Barrier(threads)

    def clone_at_once() -> None:
        gate.wait()
        histories.append(state.clone().history())

    assert errors_in_threads(clone_at_once, threads) == []
    return histories


def test_clones_made_at_once_by_several_threads_share_the_history_once() -> None:
    """A clone shares the actions its original played since the last one
    (53c7a066); six threads cloning one state at once each shared them
    again, and the state and its clones held its last actions twice (about
    one try in seven, switching threads every microsecond)."""
    record = golden("wood-lost")
    board = Board(record.rules, record.deal)
    for move in record.moves:  # (290 actions, not shared yet)
        board.push_text(move)
    expected = State(board).history()
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(40):
            state = State(board)
            assert _histories_of_clones_made_at_once(state, 6) == [expected] * 6
            assert state.history() == expected
    finally:
        sys.setswitchinterval(switching)


@pytest.mark.parametrize(("name", "code"), [("terrace-won", Refusal.GAME_ENDED_WON),
                                            ("wood-lost", Refusal.GAME_ENDED_LOST)])
def test_an_action_after_the_end_is_refused_as_the_end_not_for_its_card(name: str, code: Refusal) -> None:
    """Once the game was won, apply_action of a draw said 's: the stock is
    empty', and a pile's move named its card or pile, where a record,
    --moves and the web say 'the game was won after N moves: no move
    follows a win' (Board.ended); apply_action looked at the whole board
    for that (a clone's shared history too) and did not ask it. Every
    action of a won or lost game is refused as the end now, after the
    moves of the whole game, and changes nothing."""
    record = golden(name)
    board = Board(record.rules, record.deal)
    for move in record.moves:
        board.push_text(move)
    state = State(board).clone()  # (the history shared: the count is the whole game's)
    before = snapshot(state)
    for action in range(state.num_distinct_actions()):
        with pytest.raises(IllegalMoveError) as refused:
            state.apply_action(action)
        assert refused.value.reason is not None and refused.value.reason.code is code, action
        assert refused.value.reason.params["moves"] == len(record.moves)
    assert snapshot(state) == before
