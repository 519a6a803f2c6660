"""A game state researchers can drive, OpenSpiel style (docs/research.md).

A :class:`State` wraps a :class:`~terrace.board.Board` and speaks in the
board's numbered actions (:mod:`terrace.actions`). Two rules make every
game end, where a bare board may cycle for ever (cards moving to and fro
between piles):

* a game never repeats a position: an action that would bring back a
  position already reached in this game is not legal, so a state whose
  every legal move repeats one is lost;
* a game ends after :meth:`State.max_game_length` actions at the latest.

>>> from terrace.variants import get_rules
>>> state = State.new(get_rules("terrace"), 1)
>>> state.legal_actions()
[0, 1, 2]
>>> state.apply_action(0)
>>> state.history(), state.returns() == [1 / 104]  # the base card is up
([0], True)
>>> state.undo()
0
>>> state.observation_string() == state.clone().observation_string()
True
"""

from __future__ import annotations

import copy
import io
import pickle
import threading
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from enum import Enum
from hashlib import blake2b
from types import BuiltinFunctionType, FunctionType
from typing import Any, Final

from terrace.actions import FOUNDATION_AREA, RESERVE_AREA, TABLEAU_AREA, WASTE_AREA
from terrace.board import Board
from terrace.cards import CARDS_PER_DECK, RANKS, Card
from terrace.deal import Deal, check_number
from terrace.errors import IllegalMoveError, InvalidRecordError, NoMoveError
from terrace.moves import MAX_MOVES, Move
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.rules import FoundationBuild, Rules, SpaceRule, given_rules
from terrace.solver.observation import hidden_count
from terrace.undo import ChoiceUndo, DrawUndo, PlayUndo, Undo, fills_of
from terrace.unpickling import AllowedUnpickler, NotAllowedError
from terrace.whole import as_whole

PLACES: Final = ("reserve", "waste", "stock", "unseen")
"""The places of the card rows of a tensor before the foundations and the
piles (see :func:`tensor_shape`)."""
_UNSEEN: Final = PLACES.index("unseen")

TERMINAL: Final = -4
"""What :meth:`State.current_player` answers once the game is over
(OpenSpiel's ``PlayerId.TERMINAL``)."""

_PLACE_GAP: Final = b"\xff"
"""What separates the places in the text :func:`_digest` digests: no card
(a number below 52) is written as it."""

_SHARE_AFTER: Final = 64
"""How many counts of its own a :class:`_Reached` keeps, at least, before
it shares them with its copies; and how many actions a state plays, at
least, before a clone shares them (:class:`_Past`)."""

_SHARING: Final = threading.Lock()
"""Held while a state's history is made shared (a clone, an undo back into
it) or read whole: a clone may run while other threads read the state
(two clones at once shared the last actions twice: 5 of 1,500 tries)."""

PAST_PIECE: Final = 256
"""The most actions of one piece of a :class:`_Past`: an undo that goes
back into the shared history copies one piece at most."""

SHARE_PART: Final = 8
"""A :class:`_Reached` shares its own counts with its copies once they are
more than this part of the shared ones (8: an eighth), and more than
:data:`_SHARE_AFTER`."""

POSITION_DIGEST_BYTES: Final = 16
"""The size of the digest a state keeps for each position reached
(:func:`_digest`): two positions share one with odds of 2**-128."""

PICKLE_FORMAT: Final = 1
"""The version of the way a state pickles (:meth:`State.__reduce__`), and
of :meth:`State.to_bytes`."""

SEAL_BYTES: Final = 16
"""The size of the digest a state's parts are checked by."""

BYTES_MAGIC: Final = b"terrace-state\n"
"""How :meth:`State.to_bytes` starts: then the format (a byte), the parts'
length (8 bytes), their digest (:data:`SEAL_BYTES`) and the parts."""

_BYTES_HEAD: Final = len(BYTES_MAGIC) + 1 + 8 + SEAL_BYTES

_OWN: Final = frozenset(("_board", "_seen", "_past", "_actions", "_cleared", "_legal"))
"""The attributes of a :class:`State`: its copies and pickles carry the
others a subclass gives it too."""

_ITSELF: Final = "state"
"""How :meth:`State.to_bytes` writes the state itself where an attribute a
subclass gave it refers to it."""

LENGTH_PER_CARD: Final = 50
"""Actions allowed per card and pass through the stock (see
:meth:`State.max_game_length`)."""


def tensor_shape(rules: Rules) -> tuple[int, ...]:
    """The shape of :meth:`State.observation_tensor` under ``rules``: a flat
    vector of ``16 + card_count * (4 + foundations + piles + 1)`` floats.

    >>> from terrace.variants import get_rules
    >>> tensor_shape(get_rules("terrace"))
    (2304,)
    """
    rules = given_rules(rules)
    return (16 + rules.card_count * _row_size(rules),)


def _pieces(board: Board) -> list[bytes]:
    """What :meth:`Board.position_key` says with the stock by its size (along
    one line of play the size tells the stocks apart), as bytes: a head of
    numbers (:func:`_head`), then the cards of the terrace, the waste, each
    foundation and each pile, one byte a card (:func:`_place_piece`)."""
    return [_head(board), bytes(board.reserve), bytes(board.waste),
            *map(bytes, board.foundations), *map(bytes, board.tableau)]


def _head(board: Board, drawn: int = 0) -> bytes:
    """The base rank, the stock's size (less ``drawn`` cards) and the
    redeals used, as digits."""
    return b"%d %d %d" % (board.base_rank, len(board.stock) - drawn, board.redeals_used)


def _place_piece(area: int, index: int, foundations: int) -> int:
    """Where :func:`_pieces` puts a place: area and index as a move's record
    names them (:mod:`terrace.undo`)."""
    if area == FOUNDATION_AREA:
        return 3 + index
    if area == TABLEAU_AREA:
        return 3 + foundations + index
    return 1 if area == RESERVE_AREA else 2


def _place_cards(board: Board, area: int, index: int) -> list[Card]:
    """The cards of a place named as :func:`_place_piece` takes it."""
    if area == FOUNDATION_AREA:
        return board.foundations[index]
    if area == TABLEAU_AREA:
        return board.tableau[index]
    return board.reserve if area == RESERVE_AREA else board.waste


def _digest(pieces: list[bytes]) -> bytes:
    """The key of a position of the game's line: a 128-bit digest of its
    :func:`_pieces` (49 bytes however many cards, where a key of tuples took
    3 KB on eight decks). The pieces are joined by a byte no card is (a
    card is below 52), so two positions of one rules give one text only
    when they are the same, and two texts one digest with odds of 2**-128
    (:func:`hashlib.blake2b`)."""
    return blake2b(_PLACE_GAP.join(pieces), digest_size=POSITION_DIGEST_BYTES).digest()


def _moved(board: Board, pieces: list[bytes], resolved: tuple[int, int, int, int]) -> list[bytes]:
    """The :func:`_pieces` of ``board`` (``pieces`` now) after the card's move
    ``resolved``, worked out from the pieces: ``board`` is only read. The
    top card goes from its place's piece to its target's; then, as
    :func:`terrace.undo.refill` fills spaces (automatic spaces only), each
    empty pile in turn takes the waste's top card, else the stock's, until
    both are out."""
    source, src_index, target, dst_index = resolved
    foundations = len(board.foundations)
    src_at = _place_piece(source, src_index, foundations)
    dst_at = _place_piece(target, dst_index, foundations)
    after = list(pieces)
    moved = after[src_at]
    after[src_at] = moved[:-1]
    after[dst_at] += moved[-1:]
    first_pile = _place_piece(TABLEAU_AREA, 0, foundations)
    if board.rules.spaces is SpaceRule.AUTO and b"" in after[first_pile:]:
        _refill(board, after, first_pile)
    return after


def _refill(board: Board, after: list[bytes], first_pile: int) -> None:
    """Fill the empty piles of ``after`` (pieces of ``board`` after a card's
    move) as :func:`terrace.undo.refill` fills them (:func:`~terrace.undo.fills_of`)."""
    waste_at, drawn = _place_piece(WASTE_AREA, 0, 0), 0
    empty = (at for at in range(first_pile, len(after)) if not after[at])
    for at, from_waste in fills_of(empty, len(after[waste_at]), len(board.stock)):
        if from_waste:
            after[at], after[waste_at] = after[waste_at][-1:], after[waste_at][:-1]
        else:
            drawn += 1
            after[at] = bytes((board.stock[-drawn],))
    after[0] = _head(board, drawn)


def _line_key(board: Board) -> bytes:
    """The key of ``board``'s position (:func:`_digest`)."""
    return _digest(_pieces(board))


def _line_of(board: Board) -> tuple[_Reached, list[int]]:
    """The positions ``board``'s history reached (before its first move and
    after each) and the actions of its moves: what a :class:`State` made
    from ``board`` counts as reached and played, whether made from a board
    (:class:`State`) or read from bytes (:func:`_made_anew`). ``board`` is
    only read: the positions are walked back on a copy."""
    walk = board.copy(redo=0)
    keys = [_line_key(walk)]
    while walk.move_stack:
        walk.pop()
        keys.append(_line_key(walk))
    reached = _Reached({})
    for key in keys:
        reached.add(key)
    return reached, [board.move_to_action(move) for move in board.move_stack]


def _sealed(parts: bytes) -> bytes:
    """The digest a state's parts are checked by (:meth:`State.to_bytes`,
    and in hexadecimal a pickle's, :func:`_seal`)."""
    return blake2b(parts, digest_size=SEAL_BYTES, person=b"terrace-state").digest()


def _seal(parts: str) -> str:
    """The digest a pickled state's parts (in hexadecimal) are checked by."""
    return _sealed(parts.encode()).hex()


def _unpickled(kind: object, version: object, parts: object, seal: object) -> State:
    """The state of class ``kind`` pickled as ``parts`` (:meth:`State.__reduce__`),
    once ``seal`` shows them whole; else an :class:`InvalidRecordError`.
    Within :meth:`State.from_bytes` the class comes as a :class:`_StateKind`."""
    if isinstance(kind, _StateKind) and _READING_BYTES.get() is not None:
        kind = kind.kind
    if (not isinstance(kind, type) or not issubclass(kind, State) or type(version) is not int
            or version != PICKLE_FORMAT or type(parts) is not str or type(seal) is not str
            or _seal(parts) != seal):
        raise InvalidRecordError(Reason(Refusal.STATE_UNREADABLE))
    return _restored(kind, bytes.fromhex(parts))


_READING_BYTES: ContextVar[dict[int, object] | None] = ContextVar("_READING_BYTES", default=None)
"""While :meth:`State.from_bytes` reads, the objects (by their ``id``)
besides a state's own that the bytes may name; None otherwise (a pickle:
pickle.loads has run whatever it named before a state's part is read)."""


def _restored(kind: type[State], parts: bytes) -> State:
    """A state of class ``kind`` from its parts (:meth:`State._parts`),
    once the caller has checked them by their seal. Within
    :meth:`State.from_bytes` the parts may have been written to do harm
    with a right seal: they are read by an :class:`AllowedUnpickler` and
    the state is made anew from what they say (:func:`_made_anew`)."""
    state = kind.__new__(kind)
    allowed = _READING_BYTES.get()
    if allowed is None:
        loaded = _PartsReader(parts, state).load()
    else:
        try:
            loaded = _UntrustedPartsReader(parts, state, allowed).load()
        except InvalidRecordError:
            raise
        except NotAllowedError as error:
            raise InvalidRecordError(Reason(Refusal.STATE_NAMES_UNKNOWN, name=clip(str(error)))) from None
        except Exception:  # (any error of bytes made up: a field of the wrong type, say)
            raise InvalidRecordError(Reason(Refusal.STATE_UNREADABLE)) from None
    state._board, state._seen, state._actions, state._cleared, *extras = loaded
    state._past = None
    if allowed is not None:
        _made_anew(state, extras)
    for given in extras:
        state.__dict__.update(given)
    state._legal = None
    return state


def _made_anew(state: State, extras: list[object]) -> None:
    """Give ``state``, read from bytes that may have been made up, parts
    made anew from what its own say, through the engine's checks: its board
    made anew (:func:`_board_anew`), the positions reached and the actions
    counted on it; and refuse (``state-unreadable``) parts that differ from
    them (the positions reached, the undo records, the actions, the moves
    each action cleared to redo). Parts pickled by :meth:`State._parts` are
    always so; made-up ones could hold anything an allowed class takes,
    unchecked (cards beyond the pack, a move's record that takes back
    another), which the engine then plays on. What the attributes a
    subclass gave the state or its board hold is made anew too
    (:func:`_held_anew`)."""
    try:
        board, seen, actions, cleared = state._board, state._seen, state._actions, state._cleared
        if (not isinstance(board, Board) or type(seen) is not _Reached or type(actions) is not list
                or type(cleared) is not list or len(extras) > 1
                or any(type(given) is not dict or not all(type(name) is str and name not in _OWN
                                                          for name in given) for given in extras)):
            raise TypeError  # (an attribute named as the state's own would replace the part made anew)
        made = _board_anew(board)
        reached, played = _line_of(made)  # (as a State made from the board counts them)
        anew = [None if each is None else tuple(_moves_anew(list(each))) for each in cleared]
        if seen._merged() != reached._merged() or anew != cleared or played != actions:
            raise ValueError
        _in_place(board, made)  # (an attribute that holds the board holds it made anew)
        _held_anew([*extras, board.extras()], {id(board)})
    except Exception:  # (made-up parts: whatever the engine's checks or the comparisons refuse)
        raise InvalidRecordError(Reason(Refusal.STATE_UNREADABLE)) from None
    state._seen, state._actions, state._cleared = reached, played, anew


def _board_anew(board: object) -> Board:
    """``board``, read from bytes that may have been made up, made anew
    through the engine's checks: the rules read as options, the position
    before the first move read as a position string, each move played
    again, the deal and the moves to redo read as text, the attributes a
    subclass gave it given to it (:meth:`Board.give_extras`); a
    ``TypeError`` or ``ValueError`` (or the engine's refusal) where
    ``board`` differs from it (its position, its undo records)."""
    if not isinstance(board, Board):
        raise TypeError
    rules = Rules.from_dict(board.rules.to_dict())
    moves, redo = _moves_anew(board.move_stack), _moves_anew(board._redo)
    start = board.copy(redo=0)
    while start.move_stack:
        start.pop()
    made = type(board).from_position(start.position(), rules)  # (a subclass the bytes may name: allowed)
    made.deal = None if board.deal is None else _deal_anew(board.deal, rules)
    for move in moves:
        made.push(move)
    made._redo = redo
    if made.position() != board.position() or _undo_fields(made._undo) != _undo_fields(board._undo):
        raise ValueError
    board.give_extras(made)
    return made


def _in_place(held: object, made: object) -> None:
    """Make ``held`` (read from bytes) ``made`` (made anew from it), in
    place, so that whatever holds it holds it made anew: its attributes,
    or its slots (a :class:`Move`, a :class:`Deal`, :class:`Rules`)."""
    if isinstance(made, Board):
        held.__dict__.clear()
        held.__dict__.update(made.__dict__)
        return
    for name in _slot_names(type(made)):
        object.__setattr__(held, name, getattr(made, name))


def _move_alone(move: Move) -> Move:
    """A :class:`Move` held by an attribute, made anew from its text (and the same)."""
    made = Move.parse(str(move))
    if made != move:
        raise ValueError
    return made


def _deal_alone(deal: Deal) -> Deal:
    """A :class:`Deal` held by an attribute, made anew: its cards cards and
    its number a deal number. Its cards are checked against the rules when
    a board is dealt it (a deal made up as already checked was not)."""
    made = Deal(tuple(deal.cards), None if deal.number is None else check_number(deal.number))
    if any(type(card) is not int or not 0 <= card < CARDS_PER_DECK for card in made.cards):
        raise ValueError
    return made


def _held_anew(roots: list[object], done: set[int]) -> None:
    """Make anew, in place (:func:`_in_place`), each object of the engine's
    classes (:data:`_HELD_ANEW`) that ``roots`` hold, however deep in lists,
    tuples, sets, dicts and other objects' attributes (the attributes a
    subclass gave a state or its board, read from bytes that may have been
    made up, which held a made-up board or deal unchecked); refuse
    (``TypeError``) the parts of a history held alone (:data:`_NOT_HELD`).
    Each state is made anew as it is read; ``done`` holds the ids of the
    objects made anew already."""
    todo = list(roots)
    while todo:
        held = todo.pop()
        if isinstance(held, _NOTHING_HELD) or id(held) in done:
            continue
        done.add(id(held))
        if isinstance(held, _NOT_HELD):
            raise TypeError
        remake = next((remake for kind, remake in _HELD_ANEW if isinstance(held, kind)), None)
        if remake is not None:
            _in_place(held, remake(held))
            if isinstance(held, Board):
                todo.extend(held.extras().values())
        elif isinstance(held, dict):
            todo.extend((*held.keys(), *held.values()))
        elif isinstance(held, list | tuple | set | frozenset):
            todo.extend(held)
        else:
            todo.extend(getattr(held, "__dict__", {}).values())
            todo.extend(getattr(held, name) for name in _slot_names(type(held)) if hasattr(held, name))


def _slot_names(kind: type) -> list[str]:
    """The names of the slots of the objects of class ``kind``."""
    names: list[str] = []
    for each in kind.__mro__:
        slots = each.__dict__.get("__slots__", ())
        names.extend((slots,) if isinstance(slots, str) else slots)
    return names


def _moves_anew(moves: object) -> list[Move]:
    """``moves`` (a list of :class:`Move`) read again from their text."""
    if type(moves) is not list or any(type(move) is not Move for move in moves):
        raise TypeError
    return [Move.parse(str(move)) for move in moves]


def _deal_anew(deal: object, rules: Rules) -> Deal:
    """``deal`` made anew and checked against ``rules`` (and, numbered, its number)."""
    if type(deal) is not Deal:
        raise TypeError
    made = Deal(tuple(deal.cards), deal.number)
    made.check(rules)
    if made.number is not None and made.cards != Deal.from_number(made.number, rules).cards:
        raise ValueError
    return made


def _undo_fields(undos: object) -> list[tuple[type, tuple[object, ...]]]:
    """Each undo record of ``undos`` (a list) as its type and fields."""
    if type(undos) is not list:
        raise TypeError
    return [(type(undo), tuple(undo)) for undo in undos]


class _ReadsItself:
    """Reads :data:`_ITSELF`, what :class:`_PartsWriter` wrote for the state
    itself, as the state being read."""

    state: State

    def persistent_load(self, pid: object) -> State:
        if pid != _ITSELF:
            raise InvalidRecordError(Reason(Refusal.STATE_UNREADABLE))
        return self.state


class _PartsWriter(pickle.Pickler):
    """Pickles a state's parts with the attributes a subclass gave it,
    which may refer to the state itself: it is written as :data:`_ITSELF`
    (pickling it there would pickle its parts again, for ever)."""

    def __init__(self, out: io.BytesIO, state: State) -> None:
        super().__init__(out, pickle.HIGHEST_PROTOCOL)
        self.state = state

    def persistent_id(self, obj: object) -> str | None:
        return _ITSELF if obj is self.state else None


class _PartsReader(_ReadsItself, pickle.Unpickler):
    """Reads what :class:`_PartsWriter` wrote, :data:`_ITSELF` as ``state``."""

    def __init__(self, parts: bytes, state: State) -> None:
        super().__init__(io.BytesIO(parts))
        self.state = state


class _UntrustedPartsReader(_ReadsItself, AllowedUnpickler):
    """Reads what :class:`_PartsWriter` wrote from bytes that may have been
    made to do harm: it takes the classes of a state's parts
    (:data:`PARTS_GLOBALS`), :class:`State` and its subclasses, and the
    objects in ``allowed`` (by ``id``), no other."""

    def __init__(self, parts: bytes, state: State, allowed: dict[int, object]) -> None:
        super().__init__(parts, lambda found: _may_name(found, allowed))
        self.state = state

    def find_class(self, module: str, name: str) -> object:
        found = super().find_class(module, name)
        return _StateKind(found) if isinstance(found, type) and issubclass(found, State) else found


class _StateKind:
    """A class of states as :class:`_UntrustedPartsReader` gives it: what
    :func:`_unpickled` takes, and nothing else can use, being no class (the
    bytes called State(board) of a made-up board, and that state, unchecked,
    was an attribute of the one read), so each state the bytes hold is made
    from its parts, made anew."""

    __slots__ = ("kind",)

    def __init__(self, kind: type[State]) -> None:
        self.kind = kind


def _may_name(found: object, allowed: dict[int, object]) -> bool:
    """True for the objects the bytes of a state may name (:class:`_UntrustedPartsReader`)."""
    if allowed.get(id(found), allowed) is found or any(found is given for given in PARTS_GLOBALS):
        return True
    return isinstance(found, type) and issubclass(found, State)


class _Reached:
    """How often the game reached each position (by its digest), as the
    sum of two counts: one in a dict shared with clones, which none of them
    changes, and one in a dict of this one's own, which may be negative (a
    shared visit taken back). A clone copied every count: 18 KB of a 42 KB
    clone 500 actions into a game of the largest rules (24 KB now), 5.7 ms
    a clone 100,000 actions into one."""

    __slots__ = ("_own", "_shared")

    def __init__(self, own: dict[bytes, int], shared: dict[bytes, int] | None = None) -> None:
        self._own = own
        self._shared: dict[bytes, int] = {} if shared is None else shared

    def __contains__(self, key: bytes) -> bool:
        own = self._own.get(key)
        if own is None:
            return key in self._shared
        return own + self._shared.get(key, 0) > 0

    def add(self, key: bytes, step: int = 1) -> None:
        """Count ``step`` more visits of ``key`` (-1: one less, the last
        action taken back)."""
        count = self._own.get(key, 0) + step
        if count:
            self._own[key] = count
        else:
            del self._own[key]

    def copy(self) -> _Reached:
        """An independent copy, sharing what both keep unchanged: once the
        counts of its own are many, they join the shared ones (in a dict
        made anew), so a copy copies at most an eighth of them."""
        if len(self._own) > max(_SHARE_AFTER, len(self._shared) // SHARE_PART):
            self._own, self._shared = {}, self._merged()
        return _Reached(dict(self._own), self._shared)

    def _merged(self) -> dict[bytes, int]:
        """The counts, in one dict that is no one's: the counts of its own
        when none is shared (they are left behind, not copied)."""
        if not self._shared:
            return self._own
        merged = dict(self._shared)
        for key, count in self._own.items():
            total = merged.get(key, 0) + count
            if total:
                merged[key] = total
            else:
                del merged[key]
        return merged


class _Past:
    """A piece of the history a state shares with its clones, which none
    of them changes: the moves played, their records, the actions and the
    redo moves each cleared, after the pieces ``before``. A clone copied
    the whole history (four lists of references, 32 bytes an action: 24
    KB a clone 600 actions into a game of Empress of Italy, 240 KB 7,600
    actions into one); a clone shares what its original played before it,
    and copies at most the last few actions."""

    __slots__ = ("actions", "before", "cleared", "length", "moves", "undos")

    def __init__(self, before: _Past | None, moves: list[Move], undos: list[Undo], actions: list[int],
                 cleared: list[tuple[Move, ...] | None]) -> None:
        self.before = before
        self.moves, self.undos = tuple(moves), tuple(undos)
        self.actions, self.cleared = tuple(actions), tuple(cleared)
        self.length: int = len(self.actions) + (0 if before is None else before.length)
        """The actions of this piece and those before it."""

    def pieces(self) -> list[_Past]:
        """This piece and those before it, the first first."""
        found: list[_Past] = []
        piece: _Past | None = self
        while piece is not None:
            found.append(piece)
            piece = piece.before
        return found[::-1]


def _given_player(player: object) -> None:
    """Refuse a player other than 0, the one player (None: not given)."""
    if player is not None and as_whole(player) != 0:
        raise ValueError(f"player is 0, the one player of this game, not {quote(player)}")


def _row_size(rules: Rules) -> int:
    return len(PLACES) + rules.foundation_count + rules.piles + 1


class State:
    """One game of Terrace or a relative as a single-player game: legal
    actions, moves played and taken back, the score and what a player sees.

    Build one with :meth:`new` or from a board (the board is copied with its
    history; the positions of that history count as reached).
    """

    num_players: Final = 1

    def __init__(self, board: Board) -> None:
        if not isinstance(board, Board):
            raise TypeError(f"State takes a Board, not {type(board).__name__}")
        self._board = board.copy()
        self._seen, self._actions = _line_of(self._board)
        self._past: _Past | None = None
        """The history shared with clones; the board's stacks, and the
        lists that follow, hold what was played after it."""
        # (per action, the redo moves it cleared, to give back on undo: None when it
        # redid the next one; tuples, shared by clones, the empty one allocated once)
        self._cleared: list[tuple[Move, ...] | None] = [None] * len(self._actions)
        self._legal: list[int] | None = None

    @classmethod
    def new(cls, rules: Rules, deal: int) -> State:
        """The starting state of deal number ``deal`` under ``rules``."""
        return cls(Board.from_number(deal, given_rules(rules)))

    # ------------------------------------------------------------------
    # The game

    @property
    def rules(self) -> Rules:
        """The rules of the game."""
        return self._board.rules

    def board(self) -> Board:
        """A copy of the board (changing it changes nothing here)."""
        return self._whole_board().copy()

    def _whole_board(self) -> Board:
        """The board with its whole history, the shared part too (the board
        itself when none is shared); its cards are the board's own, to read
        only."""
        board = self._board
        with _SHARING:
            if self._past is None:
                return board
            whole = type(board).__new__(type(board))
            whole.__dict__.update(board.__dict__)
            pieces = self._past.pieces()
            whole.move_stack = [move for piece in pieces for move in piece.moves] + board.move_stack
            whole._undo = [undo for piece in pieces for undo in piece.undos] + board._undo
        return whole

    def _played(self) -> int:
        """How many actions were played."""
        with _SHARING:
            return len(self._actions) + (0 if self._past is None else self._past.length)

    def _share_history(self) -> None:
        """Make what was played the history shared with clones, in pieces
        of :data:`PAST_PIECE` actions at most (:data:`_SHARING` held)."""
        board = self._board
        for start in range(0, len(self._actions), PAST_PIECE):
            end = start + PAST_PIECE
            self._past = _Past(self._past, board.move_stack[start:end], board._undo[start:end],
                               self._actions[start:end], self._cleared[start:end])
        board.move_stack, board._undo, self._actions, self._cleared = [], [], [], []

    def _reopen(self) -> None:
        """Take the last piece of the shared history back into the board's
        stacks and the state's lists (they are empty), to take back."""
        with _SHARING:
            piece = self._past
            assert piece is not None and not self._actions
            self._board.move_stack, self._board._undo = list(piece.moves), list(piece.undos)
            self._actions, self._cleared, self._past = list(piece.actions), list(piece.cleared), piece.before

    def num_distinct_actions(self) -> int:
        """The size of the action space: every action is below it."""
        return self._board.action_count

    def max_game_length(self) -> int:
        """The most actions a game may have: :data:`LENGTH_PER_CARD` per
        card and pass through the stock, ``50 * card_count * (redeals + 1)``
        (5,200 for two decks without a redeal), and never more than a
        record holds (:data:`~terrace.moves.MAX_MOVES`). A game that
        reaches it is over, scored as it stands."""
        return min(LENGTH_PER_CARD * self.rules.card_count * (self.rules.redeals + 1), MAX_MOVES)

    def current_player(self) -> int:
        """0, the one player, or :data:`TERMINAL` once the game is over."""
        return TERMINAL if self.is_terminal() else 0

    def action_to_string(self, action_or_player: int, action: int | None = None) -> str:
        """The move notation of an action (docs/notation.md), legal or not:
        ``action_to_string(action)``, or as OpenSpiel also writes it,
        ``action_to_string(player, action)``.

        >>> state = State.new(Rules(), 1)
        >>> state.action_to_string(95), state.action_to_string(0, 95)
        ('s', 's')
        """
        if action is None:
            action = action_or_player
        else:
            _given_player(action_or_player)
        return str(self._board.action_to_move(action))

    def history(self) -> list[int]:
        """The actions played so far."""
        with _SHARING:
            if self._past is None:
                return list(self._actions)
            return [action for piece in self._past.pieces() for action in piece.actions] + self._actions

    def _cleared_all(self) -> list[tuple[Move, ...] | None]:
        """The redo moves each action played so far cleared (None: it redid one)."""
        with _SHARING:
            if self._past is None:
                return self._cleared
            return [cleared for piece in self._past.pieces() for cleared in piece.cleared] + self._cleared

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The actions legal now, in increasing order: the board's legal
        moves that lead to a position not reached before in this game
        (none once the game is over). ``player``, as OpenSpiel takes it,
        can only be 0."""
        _given_player(player)
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        """1 for each action of :meth:`legal_actions`, 0 for every other one,
        :meth:`num_distinct_actions` long.

        >>> State.new(Rules(), 1).legal_actions_mask()[:4]
        [1, 1, 1, 0]
        """
        mask = [0] * self.num_distinct_actions()
        for action in self.legal_actions(player):
            mask[action] = 1
        return mask

    def _compute_legal(self) -> list[int]:
        board = self._board
        if board.is_won() or self._played() >= self.max_game_length():
            return []
        pieces = _pieces(board)
        fresh = []
        for move in board.generate_legal_moves():
            # (a draw or a choice starts a new pass: nothing repeats)
            if move.is_draw or move.is_choice or not self._repeats(move, pieces):
                fresh.append(board.move_to_action(move))
        return sorted(fresh)

    def _repeats(self, move: Move, pieces: list[bytes]) -> bool:
        """True when ``move`` (legal, no draw nor choice) would bring back a
        position of the game's line: its position's pieces are worked out
        from the board's now (``pieces``) without playing it, the board
        only read (another thread may be reading it too)."""
        board = self._board
        resolved = board._resolve(move)
        if isinstance(resolved, Reason):  # (a legal move resolves: this is no move to try)
            raise IllegalMoveError(resolved, move=str(move))
        return _digest(_moved(board, pieces, resolved)) in self._seen

    def is_terminal(self) -> bool:
        """True when the game is over: won, no legal action left, or
        :meth:`max_game_length` actions played."""
        return not self.legal_actions()

    def is_chance_node(self) -> bool:
        """False: the deal is fixed when the state is made (OpenSpiel's
        loops ask)."""
        return False

    def is_simultaneous_node(self) -> bool:
        """False: one player moves at a time."""
        return False

    def is_won(self) -> bool:
        """True when every card is on a foundation."""
        return self._board.is_won()

    def returns(self) -> list[float]:
        """The score of the one player so far: the fraction of the cards on
        the foundations, ``1.0`` exactly when the game is won. (Each action's
        reward is the change it makes to it.)"""
        return [self._board.foundation_cards / self.rules.card_count]

    def rewards(self) -> list[float]:
        """The reward of the last action: the change it made to
        :meth:`returns` (``[0.0]`` before the first), so that the rewards of
        a game add up to its returns, less what the deal put up at the start.

        >>> state = State.new(Rules(), 1)
        >>> state.apply_action(0)
        >>> state.rewards() == state.returns() == [1 / 104]
        True
        """
        with _SHARING:
            before = self._board.copy(keep=1, redo=0)
            if not before.move_stack and self._past is not None:  # (the last action is shared)
                before.move_stack, before._undo = [self._past.moves[-1]], [self._past.undos[-1]]
        if not before.move_stack:
            return [0.0]
        before.pop()
        return [(self._board.foundation_cards - before.foundation_cards) / self.rules.card_count]

    def apply_action(self, action: int) -> None:
        """Play ``action``; refuses (changing nothing) an action that is not
        legal now, with the board's reason (once the game is won or lost,
        that it ended, after how many moves, as the board's front ends say
        it) or because it repeats a position or the game is at its length
        limit."""
        move = self._board.action_to_move(action)
        action = self._board.move_to_action(move)
        if action not in self.legal_actions():
            whole = self._whole_board()  # (one ended says after how many moves: the whole history)
            reason = whole.ended() or whole.refusal(move)
            if reason is None:
                reason = (Reason(Refusal.GAME_AT_LENGTH, most=self.max_game_length())
                          if self._played() >= self.max_game_length()
                          else Reason(Refusal.ACTION_REPEATS, action=action, move=str(move)))
            raise IllegalMoveError(reason, move=str(move))
        redo = self._board.redo_stack
        cleared = None if redo and redo[-1] == move else tuple(redo)
        self._board.push(move)
        self._seen.add(_line_key(self._board))
        self._actions.append(action)
        self._cleared.append(cleared)
        self._legal = None

    def undo(self) -> int:
        """Take back the last action exactly (what a player saw after it is
        forgotten too); returns it."""
        if not self._actions:
            if self._past is None:
                raise NoMoveError(Reason(Refusal.NOTHING_TO_UNDO))
            self._reopen()
        self._seen.add(_line_key(self._board), -1)
        self._board.pop()
        cleared = self._cleared.pop()
        if cleared is not None:
            self._board._redo[:] = cleared
        self._legal = None
        return self._actions.pop()

    def clone(self) -> State:
        """An independent copy (of this state's class): playing on one never
        changes the other. The attributes a subclass gave it are the copy's
        too, as they are (:func:`copy.deepcopy` copies them)."""
        other = type(self).__new__(type(self))
        if len(self.__dict__) > len(_OWN):
            other.__dict__.update(self._extras())
        with _SHARING:
            if len(self._actions) > _SHARE_AFTER:
                self._share_history()
            other._board = self._board.copy()
            other._past = self._past
            other._actions = list(self._actions)
            other._cleared = list(self._cleared)
        other._seen = self._seen.copy()
        other._legal = None if self._legal is None else list(self._legal)
        return other

    def __reduce__(self) -> tuple[Callable[..., State], tuple[type[State], int, str, str]] | tuple[
            Callable[..., State], tuple[type[State], int, str, str], dict[str, object]]:
        """A state pickles as its parts, pickled, and a digest of them, which
        :func:`_unpickled` checks: a pickle changed in any byte is refused,
        never read as another state (228 of 4,042 one-byte changes to the
        pickle of a state 25 moves into a game were read so, a card moved
        or a move's record changed). The parts are written in hexadecimal:
        where a change made pickle read them as its instructions, raw bytes
        could ask it for a table of a billion entries (16 s and gigabytes
        for one change), hexadecimal digits stop it at once. A change to
        the pickle's own opcodes before them is pickle's to read, though
        (see :meth:`to_bytes`). The attributes a subclass gave the state
        are pickled after them, as pickle pickles any object's (so they may
        refer to the state, or to states that refer to it)."""
        parts = self._parts().hex()
        made = type(self), PICKLE_FORMAT, parts, _seal(parts)
        extras = self._extras()
        return (_unpickled, made, extras) if extras else (_unpickled, made)

    def _parts(self, extras: dict[str, object] | None = None) -> bytes:
        """What a state is made of, pickled: the board, the positions
        reached, the actions and the moves each cleared to redo, and
        ``extras`` (attributes a subclass gave it, :meth:`_extras`) when
        given."""
        parts = (self._whole_board(), self._seen, self.history(), self._cleared_all())
        if not extras:
            return pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)
        out = io.BytesIO()
        _PartsWriter(out, self).dump((*parts, extras))
        return out.getvalue()

    def to_bytes(self) -> bytes:
        """The state as bytes that :meth:`from_bytes` reads back, as a
        pickle is, but read safely whatever was changed in them: a head
        (:data:`BYTES_MAGIC`, the format, the length of the parts and their
        digest) that is checked, in the time of reading the bytes once,
        before any of them is unpickled.

        A pickle of a state changed in one byte of pickle's own opcodes,
        made ``LONG_BINPUT`` (whose next four bytes are then the size of a
        table Python's unpickler makes, and fills, before any of Terrace's
        code runs), took 1.4 GiB and 1.6 s (byte 41 of the pickle of a
        state 25 actions into a Terrace game), and others asked for up to
        37 GiB; these bytes changed anywhere cost a refusal, in the time
        of reading them.

        >>> state = State.new(Rules(), 1)
        >>> State.from_bytes(state.to_bytes()).observation_string() == state.observation_string()
        True
        """
        parts = self._parts(self._extras())
        return b"".join((BYTES_MAGIC, bytes((PICKLE_FORMAT,)), len(parts).to_bytes(8, "big"), _sealed(parts),
                         parts))

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview, allow: Iterable[object] = ()) -> State:
        """The state :meth:`to_bytes` wrote (of this class), or an
        :class:`InvalidRecordError` (``state-unreadable``) for bytes changed
        in any way, cut short or lengthened, or written by another format:
        their head and digest are checked before any of them is unpickled.

        The digest shows a change, not who wrote them: bytes written to do
        harm, with a right digest, are read by an unpickler that takes only
        the classes a state is made of, :class:`State` and its subclasses,
        and what ``allow`` holds (the classes and functions the attributes
        a subclass gave its states name, a learner's own class, say);
        bytes that name another are refused (``state-names-unknown``, which
        names it), and the state is made anew from what they say, through
        the engine's checks (the rules, the position, each move played
        again), so made-up parts are refused (``state-unreadable``)."""
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"State.from_bytes takes bytes (of State.to_bytes), not {type(data).__name__}")
        allowed = {id(given): given for given in allow}
        data = bytes(data)
        magic, head = len(BYTES_MAGIC), data[:_BYTES_HEAD]
        parts = data[_BYTES_HEAD:]
        if (len(head) < _BYTES_HEAD or head[:magic] != BYTES_MAGIC or head[magic] != PICKLE_FORMAT
                or int.from_bytes(head[magic + 1:magic + 9], "big") != len(parts)
                or head[magic + 9:] != _sealed(parts)):
            raise InvalidRecordError(Reason(Refusal.STATE_UNREADABLE))
        reading = _READING_BYTES.set(allowed)
        try:
            return _restored(cls, parts)
        finally:
            _READING_BYTES.reset(reading)

    def __setstate__(self, state: object) -> None:
        """Give the state the attributes its subclass had
        (:meth:`__reduce__`); refuse a state pickled by Terrace before
        :data:`PICKLE_FORMAT` (its positions reached were kept otherwise:
        read, it repeated them), whose attributes are a State's own."""
        if not isinstance(state, dict) or not all(type(name) is str and name not in _OWN for name in state):
            raise InvalidRecordError(Reason(Refusal.STATE_UNREADABLE))
        self.__dict__.update(state)

    def __copy__(self) -> State:
        """``copy.copy(state)`` is :meth:`clone` (a shallow copy shared the
        board: a move played on it was played on both)."""
        return self.clone()

    def __deepcopy__(self, memo: dict[int, object]) -> State:
        """``copy.deepcopy(state)`` is :meth:`clone`, with the attributes a
        subclass gave it copied deeply."""
        other = memo[id(self)] = self.clone()
        other.__dict__.update(copy.deepcopy(self._extras(), memo))
        return other

    def _extras(self) -> dict[str, object]:
        """The attributes a subclass gave this state: all but a State's own
        (:data:`_OWN`)."""
        return {name: value for name, value in self.__dict__.items() if name not in _OWN}

    # ------------------------------------------------------------------
    # What a player sees

    def observation_string(self, player: int | None = None) -> str:
        """The position exactly, the stock's order included
        (:meth:`Board.position`). ``player``, as OpenSpiel takes it, can
        only be 0 (so for the other three views)."""
        _given_player(player)
        return self._board.position()

    def information_state_string(self, player: int | None = None) -> str:
        """The position as a player sees it (:func:`observe`'s view, from its
        :func:`hidden_count`): the face-down stock cards as ``??``, the ones
        seen before (after a redeal, or a draw taken back) as themselves."""
        _given_player(player)
        return self._board.position(hidden=hidden_count(self._board))

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The exact position as numbers, :func:`tensor_shape` long (layout
        in docs/research.md)."""
        _given_player(player)
        return self._tensor(0)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """:meth:`observation_tensor` as a player sees it: the face-down
        stock cards lie in the row of ``unseen`` cards, at depth 0."""
        _given_player(player)
        return self._tensor(hidden_count(self._board))

    def _tensor(self, hidden: int) -> list[float]:
        # The places in the order of PLACES, then the foundations and the piles, each
        # read from its top: the copies of a face come in the order of their places
        # and depths, each written in the next free row of its face (no sorting).
        board, rules = self._board, self.rules
        width = _row_size(rules)
        tensor = [0.0] * (16 + rules.card_count * width)
        tensor[13 if board.choosing else board.base_rank] = 1.0
        tensor[14], tensor[15] = float(board.redeals_used), float(len(board.stock))
        free_row = [16 + face * rules.decks * width for face in range(CARDS_PER_DECK)]
        stock = board.stock
        places = [board.reserve, board.waste, stock[hidden:], stock[:hidden], *board.foundations,
                  *board.tableau]
        depth_at = width - 1
        for place, cards in enumerate(places):
            for depth, card in enumerate(reversed(cards)):
                at = free_row[card]
                free_row[card] = at + width
                tensor[at + place] = 1.0
                if depth and place != _UNSEEN:  # (the unseen cards all lie at depth 0)
                    tensor[at + depth_at] = float(depth)
        return tensor

    def __str__(self) -> str:
        return self.observation_string()

    def __repr__(self) -> str:
        base = "?" if self._board.choosing else RANKS[self._board.base_rank]
        return f"<State base {base}, {self._played()} actions, returns {self.returns()[0]:.3f}>"


PARTS_GLOBALS: Final[tuple[object, ...]] = (
    Board, Deal, Move, Rules, FoundationBuild, SpaceRule, PlayUndo, DrawUndo, ChoiceUndo, _Reached,
    _unpickled)
"""The classes and functions a state's parts name when pickled
(:meth:`State._parts`, a state that its subclass's attributes hold
included): what :meth:`State.from_bytes` takes besides the states'
classes and what it is told to allow."""


_HELD_ANEW: Final[tuple[tuple[type, Callable[[Any], object]], ...]] = (
    (Board, _board_anew), (Move, _move_alone), (Deal, _deal_alone),
    (Rules, lambda rules: Rules.from_dict(rules.to_dict())))
"""How :func:`_held_anew` makes anew each class of the engine's it finds."""

_NOT_HELD: Final = (PlayUndo, DrawUndo, ChoiceUndo, _Reached)
"""The parts of a game's history that only a state's or a board's own
history checks: :func:`_held_anew` refuses them elsewhere."""

_NOTHING_HELD: Final = (str, bytes, bytearray, int, float, complex, type(None), type, Enum,
                        FunctionType, BuiltinFunctionType, _StateKind, State)
"""What :func:`_held_anew` need not look into (a state is made anew as it is read)."""
