"""State.from_bytes of bytes written to do harm, with a right digest.

The digest of State.to_bytes shows a change made by accident; anyone can
write bytes with a right one (terrace.game's _sealed is blake2b over the
parts). Such bytes ran any function they named, and their made-up parts
became a state the engine then played on.
"""

from __future__ import annotations

import pickle
import random
import tracemalloc
from dataclasses import dataclass

import pytest
from hypothesis import given

from terrace.board import Board
from terrace.deal import Deal
from terrace.errors import InvalidRecordError
from terrace.game import _BYTES_HEAD, BYTES_MAGIC, PICKLE_FORMAT, State, _sealed
from terrace.moves import Move
from terrace.refusals import Refusal
from terrace.rules import Rules
from terrace.variants import PRESETS, get_rules
from test_game import snapshot
from test_properties import GAMES, SETTINGS, Game, walk

RAN: list[str] = []
"""What the functions named by the bytes below were asked to do."""


def _run(command: str) -> int:
    """A stand-in for os.system: what bytes that name it make it do."""
    RAN.append(command)
    return 0


class _Runs:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return _run, ("rm -rf ~",)


def _sealed_bytes(parts: bytes) -> bytes:
    """Bytes as State.to_bytes writes them around ``parts``: a right digest."""
    size = len(parts).to_bytes(8, "big")
    return b"".join((BYTES_MAGIC, bytes((PICKLE_FORMAT,)), size, _sealed(parts), parts))


def _played(name: str = "terrace", actions: int = 40, deal: int = 3) -> State:
    state, rng = State.new(get_rules(name), deal), random.Random(deal)
    for _ in range(actions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def _refused(data: bytes) -> InvalidRecordError:
    with pytest.raises(InvalidRecordError) as caught:
        State.from_bytes(data)
    return caught.value


@pytest.mark.parametrize("where", ["whole", "in the board", "in a subclass's attribute"])
def test_bytes_that_name_a_function_never_run_it(where: str) -> None:
    """Bytes whose parts named os.system ran it (then failed to unpack
    their parts with a ValueError); a function named anywhere in them is
    refused now, before anything runs, in words that name it."""
    board, seen, actions, cleared = pickle.loads(_played().to_bytes()[_BYTES_HEAD:])
    if where == "whole":
        made = (_Runs(),)
    elif where == "in the board":
        board.deal = _Runs()
        made = (board, seen, actions, cleared)
    else:
        made = (board, seen, actions, cleared, {"note": _Runs()})
    RAN.clear()
    error = _refused(_sealed_bytes(pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL)))
    assert RAN == []
    assert error.reason is not None and error.reason.code is Refusal.STATE_NAMES_UNKNOWN
    assert "test_game_bytes._run" in str(error) and "allow" in str(error)


class _MadeState:
    """Pickles as State(board), the board as it is."""

    def __init__(self, board: Board) -> None:
        self.board = board

    def __reduce__(self) -> tuple[object, tuple[Board]]:
        return State, (self.board,)


def _with(state: State, change: str) -> bytes:
    """The bytes of ``state`` with its parts changed as ``change`` says, and
    a right digest."""
    board, seen, actions, cleared = pickle.loads(state.to_bytes()[_BYTES_HEAD:])
    pile = next(pile for pile in board.tableau if len(pile) > 1)
    if change == "two cards swapped":
        pile[0], pile[-1] = pile[-1], pile[0]
    elif change == "a card beyond the pack":
        pile[-1] = 200
    elif change == "a card played twice":
        board.waste.append(pile[-1])
    elif change == "an undo record of another move":
        board._undo[-1], board._undo[-2] = board._undo[-2], board._undo[-1]
    elif change == "the rules out of range":
        object.__setattr__(board.rules, "decks", 40)
    elif change == "a move never played":
        board.move_stack[-1] = board.move_stack[0]
    elif change == "positions not reached":
        seen._own.clear()
    elif change == "another action":
        actions[-1] = 0 if actions[-1] else 1
    elif change == "a redo that is no move":
        board._redo.append("wf")
    elif change == "parts of other types":
        return _sealed_bytes(pickle.dumps((1, 2, 3, 4)))
    elif change == "a state made of a made-up board":
        made_up = pickle.loads(pickle.dumps(board))
        made_up.reserve[0], made_up.reserve[-1] = made_up.reserve[-1], made_up.reserve[0]
        made = (board, seen, actions, cleared, {"child": _MadeState(made_up)})
        return _sealed_bytes(pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
    elif change == "an attribute named as a state's own":
        other = Board.from_number(1, board.rules)
        made = (board, seen, actions, cleared, {"_board": other})
        return _sealed_bytes(pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
    else:
        raise AssertionError(change)
    return _sealed_bytes(pickle.dumps((board, seen, actions, cleared), protocol=pickle.HIGHEST_PROTOCOL))


@pytest.mark.parametrize("change", [
    "two cards swapped", "a card beyond the pack", "a card played twice", "an undo record of another move",
    "the rules out of range", "a move never played", "positions not reached", "another action",
    "a redo that is no move", "parts of other types", "an attribute named as a state's own",
    "a state made of a made-up board"])
def test_made_up_parts_with_a_right_digest_are_refused(change: str) -> None:
    """Each was read as a state (a card of 200 then failed in its tensor
    with an IndexError; two swapped cards made a position no move leads to,
    which the state played on; parts of other types failed with Python's
    ValueError). A state is made anew from what its bytes say, through the
    engine's checks, and parts that differ from it are refused."""
    state = _played()
    error = _refused(_with(state, change))
    assert error.reason is not None and error.reason.code is Refusal.STATE_UNREADABLE


def test_a_memo_index_of_millions_is_refused_before_it_is_allocated() -> None:
    """One opcode, LONG_BINPUT with an index of 2**24, made the unpickler
    fill a table of 128 MiB (four bytes more asked for 32 GiB) before the
    parts were looked at; such a pickle is refused before it is read."""
    parts = b"\x80\x05K\x01r" + (2**24).to_bytes(4, "little") + b"0(K\x01K\x02K\x03K\x04t."
    tracemalloc.start()
    try:
        error = _refused(_sealed_bytes(parts))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error.reason is not None and error.reason.code is Refusal.STATE_UNREADABLE
    assert peak < 2**20, peak


@dataclass
class _Note:
    """A learner's own class, held by an attribute its states have."""

    text: str


class _Noted(State):
    note: _Note


def test_a_subclass_attribute_of_its_own_class_is_read_when_allowed() -> None:
    """The classes a subclass's attributes hold are named to from_bytes
    (allow): without it the bytes are refused in words that say so."""
    state = _Noted.new(get_rules("terrace"), 2)
    state.note = _Note("first")
    data = state.to_bytes()
    error = _refused(data)
    assert error.reason is not None and error.reason.code is Refusal.STATE_NAMES_UNKNOWN
    assert "_Note" in str(error)
    back = _Noted.from_bytes(data, allow=[_Note])
    assert type(back) is _Noted and back.note == _Note("first") and snapshot(back) == snapshot(state)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_bytes_of_any_state_are_read_back_as_it(name: str) -> None:
    """States of every preset with moves taken back (to redo), of a board
    set up from a position, and of a board that kept its last moves only:
    made anew through the engine's checks, each is read back as it was."""
    state = _played(name, actions=120, deal=4)
    for _ in range(3):
        if state.history():
            state.undo()
    board = state.board()
    for _ in range(2):
        if board.move_stack:
            board.pop()
    kept = board.copy(keep=2)
    for each in (state, State(board), State(kept), State(Board.from_position(board.position(), board.rules))):
        assert snapshot(State.from_bytes(each.to_bytes())) == snapshot(each)


@SETTINGS
@given(GAMES)
def test_the_bytes_of_a_state_of_any_rules_are_read_back_as_it(game: Game) -> None:
    """Any rules (one to four decks, every space rule, redeals, foundation
    returns), a random game with a few moves taken back: the state made
    anew from its bytes is the state."""
    rules, number, seed, length = game
    board = walk(rules, number, seed, length)
    for _ in range(seed % 4):
        if board.move_stack:
            board.pop()
    state = State(board)
    assert snapshot(State.from_bytes(state.to_bytes())) == snapshot(state)


class _MyBoard(Board):
    """A researcher's board, with a method of its own."""

    def tops(self) -> list[int]:
        return [pile[-1] for pile in self.tableau if pile]


def test_a_state_of_a_subclass_of_board_reads_back_when_allowed() -> None:
    """(f1dfecc6 and before it made the state anew from a plain Board only:
    a state of a subclass's board was refused even with the class in allow.)"""
    board = _MyBoard.from_number(4)
    for text in ("c1", "s", "s"):
        board.push_text(text)
    state = State(board)
    data = state.to_bytes()
    error = _refused(data)
    assert error.reason is not None and error.reason.code is Refusal.STATE_NAMES_UNKNOWN
    back = State.from_bytes(data, allow=[_MyBoard])
    assert type(back.board()) is _MyBoard and back.board().tops() == board.tops()  # type: ignore[attr-defined]
    assert snapshot(back) == snapshot(state)


def _held(state: State, held: object) -> bytes:
    """The bytes of ``state`` with an attribute ``kept`` that holds ``held``,
    with a right digest."""
    board, seen, actions, cleared = pickle.loads(state.to_bytes()[_BYTES_HEAD:])
    return _sealed_bytes(pickle.dumps((board, seen, actions, cleared, {"kept": held}),
                                      protocol=pickle.HIGHEST_PROTOCOL))


def _made_up(state: State, what: str) -> object:
    """An object of the engine's classes made up as ``what`` says."""
    board = state.board()
    if what == "a board with a card twice":
        board.waste.append(next(pile for pile in board.tableau if pile)[-1])
        return board
    if what == "a deal of cards beyond the pack, marked as checked":
        deal = Deal((200,) * state.rules.card_count)  # (a deal of its own: Deal.from_number's may be shared)
        object.__setattr__(deal, "_fits", (state.rules.decks, state.rules.card_count))
        return deal
    if what == "rules out of range":
        rules = Rules()
        object.__setattr__(rules, "decks", 40)
        return rules
    if what == "a move of no notation":
        move = Move("t", 1, "f")  # (a move of its own: Move.parse's are shared)
        object.__setattr__(move, "source", "x")
        return move
    if what == "an undo record alone":
        return board._undo[-1]
    if what == "deep in a list, a dict and an allowed object":
        board.waste.append(200)
        return [{"note": _Note(board)}]  # type: ignore[arg-type]
    raise AssertionError(what)


@pytest.mark.parametrize("what", [
    "a board with a card twice", "a deal of cards beyond the pack, marked as checked",
    "rules out of range", "a move of no notation", "an undo record alone",
    "deep in a list, a dict and an allowed object"])
def test_what_a_subclasss_attributes_hold_is_made_anew_or_refused(what: str) -> None:
    """A state's own board was made anew from its bytes, but a Board, Deal,
    Rules or Move that an attribute a subclass gave it held was read as
    the bytes said, unchecked: a board with a card twice, which the
    engine played on, a deal of cards of 200 marked as checked (Board(rules, deal) then
    dealt them unchecked), rules of 40 decks. Each is made anew now, in
    place, however deep it lies, and refused (state-unreadable) where it
    differs; the parts of a history alone (an undo record), which nothing
    but their history can check, are refused."""
    state = _played()
    with pytest.raises(InvalidRecordError) as caught:
        State.from_bytes(_held(state, _made_up(state, what)), allow=[_Note])
    error = caught.value
    assert error.reason is not None and error.reason.code is Refusal.STATE_UNREADABLE


class _Keeper(State):
    """A learner's state whose attributes hold the engine's objects."""

    kept: object
    own: Board


def test_what_a_subclasss_attributes_hold_reads_back_made_anew() -> None:
    """The Board, Deal, Rules and Move an attribute holds are read back as
    they were, each made anew in place (a deal read is checked again when a
    board is dealt it), the attributes a subclass of Board gave the
    state's board too (made anew from a position, the board lost them);
    and an attribute that holds the state's own board holds it after
    reading, where it held the board read from the bytes, unchecked."""
    board = _labelled_board()
    state = _Keeper(board)
    state.apply_action(state.legal_actions()[0])
    deal = Deal.from_number(5, state.rules)
    state.kept = [state.board(), {"deal": deal, "rules": state.rules}, (Move.parse("t3f"), _Note("x"))]
    state.own = state._board
    back = _Keeper.from_bytes(state.to_bytes(), allow=[_Note, _LabelledBoard])
    assert type(back) is _Keeper and snapshot(back) == snapshot(state)
    assert back.kept == state.kept and back.own is back._board
    read_deal = back.kept[1]["deal"]  # type: ignore[index]
    assert read_deal._fits is None
    assert Board(state.rules, read_deal).position() == Board(state.rules, deal).position()
    seen = back.board()
    assert isinstance(seen, _LabelledBoard) and seen.label == "mine" and back.kept[0].label == "mine"  # type: ignore[index]


class _LabelledBoard(Board):
    """A researcher's board with an attribute of its own."""

    label: str


def _labelled_board() -> _LabelledBoard:
    board = _LabelledBoard.from_number(6)
    board.label = "mine"
    return board
