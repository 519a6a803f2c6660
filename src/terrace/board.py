"""The board: a position, its legal moves, and push/pop/redo.

:class:`Board` adds to the cards of :class:`~terrace.position.BaseBoard`
what makes a game: the legal moves (generated fast from lookup tables, see
:mod:`terrace.building`), the reason any other move is refused, and the move
history with undo and redo. Numbered actions live in :mod:`terrace.actions`.

>>> from terrace.variants import get_rules
>>> board = Board.from_number(1, get_rules("terrace"))
>>> board.status
<Status.CHOOSING: 'choosing'>
>>> [str(m) for m in board.legal_moves]
['c1', 'c2', 'c3']
>>> board.push_text("c1")
Move.parse('c1')
>>> board.status
<Status.PLAYING: 'playing'>
>>> board.pop()
Move.parse('c1')
>>> board.redo()
Move.parse('c1')
>>> Board.from_position(board.position(), board.rules) == board
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from terrace.actions import (
    AREA,
    CHOICES,
    FOUNDATION_AREA,
    FT,
    RESERVE_AREA,
    RF,
    TABLEAU_AREA,
    TF,
    TT,
    WASTE_AREA,
    WF,
    WT,
    action_index,
    action_moves,
    action_to_move,
    move_to_action,
)
from terrace.building import (
    BELOW_KEY,
    COLOUR_AFTER,
    COLOUR_KEY,
    COLOUR_STARTS,
    FOUNDATION_SIZE,
    SUIT_AFTER,
    SUIT_KEY,
    SUIT_STARTS,
    key_words,
)
from terrace.cards import CODE, RANK, RANKS, Card, given_card
from terrace.deal import Deal
from terrace.errors import IllegalMoveError, InvalidMoveError, NoMoveError
from terrace.moves import CHOOSE, DRAW, DRAW_MOVE, FOUNDATION, SPACES, TABLEAU, Move, given_move
from terrace.position import BaseBoard, Status
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.rules import Rules, SpaceRule, given_rules
from terrace.undo import Undo, choose, draw, play, take_back
from terrace.whole import as_whole, digits_value

__all__ = ["FOUNDATION_SIZE", "Board", "LegalMoves", "Status", "action_moves"]

_R, _W, _T, _F = RESERVE_AREA, WASTE_AREA, TABLEAU_AREA, FOUNDATION_AREA
_CHOOSE, _DRAW = -1, -2  # source "areas" of a resolved choice and draw

SPACE_SOURCES: dict[SpaceRule, frozenset[int]] = {
    SpaceRule.AUTO: frozenset(),
    SpaceRule.FREE: frozenset({_W, _T, _F}),
    SpaceRule.WASTE: frozenset({_W}),
}
"""The areas whose card the player may move into an empty pile, per space rule."""
_NOWHERE: frozenset[int] = frozenset()

Resolved = tuple[int, int, int, int]
"""A move as (source area, index, target area, index), 0-based."""


class LegalMoves:
    """A live view of the legal moves of a board (like python-chess): it
    always shows the board's current position. The moves are computed once
    per position and kept until the next push or pop.

    Supports iteration, ``len()``, ``in`` and ``bool()``. ``in`` asks
    :meth:`Board.is_legal`, which takes a move to a named foundation
    (``wf2``) as well as to any foundation (``wf``); iteration lists each
    foundation move once, as ``wf`` (foundations are interchangeable, as in
    :meth:`Board.move_to_action`). The moves are kept per position: the
    board's pile lists are not to be changed by hand.
    """

    __slots__ = ("_board",)

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Move]:
        return self._board.generate_legal_moves()

    def __len__(self) -> int:
        return len(self._board._legal_list())

    def __bool__(self) -> bool:
        return bool(self._board._legal_list())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._board.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(str(m) for m in self)})>"


class Board(BaseBoard):
    """A position of a Terrace-family game with its move history."""

    move_stack: list[Move]
    _undo: list[Undo]
    _redo: list[Move]
    _version: int
    _legal_version: int
    _legal: list[Move]

    def __init__(self, rules: Rules | None = None, deal: Deal | None = None) -> None:
        super().__init__(rules, deal)
        self._start_history()

    def _start_history(self) -> None:
        self.move_stack = []
        self._undo = []
        self._redo = []
        self._version = 0
        self._legal_version = -1
        self._legal = []

    # ------------------------------------------------------------------
    # Construction

    @classmethod
    def from_number(cls, number: int, rules: Rules | None = None) -> Board:
        """The starting position of deal ``number``."""
        rules = given_rules(rules)
        return cls(rules, Deal.from_number(number, rules))

    @classmethod
    def from_deal_text(cls, text: str, rules: Rules | None = None) -> Board:
        """The starting position of a deal string."""
        rules = given_rules(rules)
        return cls(rules, Deal.parse(text, rules))

    @classmethod
    def at_start(cls, rules: Rules, deal: Deal, redo: Sequence[Move]) -> Board:
        """The starting position of ``deal`` with ``redo`` to redo (the next
        to redo last, as :attr:`redo_stack` lists them): the board that
        taking back every move of a game played from the deal leaves, made
        without taking them back one by one (a restart of a game of 100,000
        moves). Each move is checked when it is redone (:meth:`redo` plays
        it as :meth:`push` does, and refuses anything but a legal
        :class:`~terrace.moves.Move`).

        >>> board = Board.from_number(1)
        >>> for text in ("c1", "s"):
        ...     _ = board.push_text(text)
        >>> start = Board.at_start(board.rules, board.deal, board.move_stack[::-1])
        >>> start.position() == Board.from_number(1).position(), start.redo_stack
        (True, [Move.parse('s'), Move.parse('c1')])
        >>> _ = start.redo(); _ = start.redo(); start.position() == board.position()
        True
        """
        board = cls(rules, deal)
        board._redo = list(redo)  # (checked move by move as they are redone, a type included)
        return board

    def copy(self, *, stack: bool = True, keep: int | None = None, redo: int | None = None) -> Board:
        """An independent copy, of this board's class; with ``stack=False``
        the history is dropped. The attributes a subclass gave the board
        are the copy's too, as they are (shared, as :meth:`terrace.game.State.clone`
        shares a subclass's; ``copy.deepcopy`` copies them): a subclass whose
        attributes change with the position overrides ``copy``, calling
        ``super().copy(...)`` and then copying them, as python-chess's
        variant boards do.

        With ``keep``, only the last ``keep`` moves played and the next
        ``keep`` moves to redo are copied: the copy takes back and redoes
        those exactly as this board would, and costs what they cost,
        however long the game (a solver that looks back or ahead at most
        ``keep`` moves gets all it reads of a game of 100,000 moves).
        With ``redo`` (with ``keep`` or without), only the next ``redo``
        moves to redo are copied (at most ``keep``): the rest of the redo
        stack is dropped.

        >>> board = Board.from_number(1)
        >>> for text in ("c1", "s", "s", "s"):
        ...     _ = board.push_text(text)
        >>> _ = board.pop()
        >>> recent = board.copy(keep=1)
        >>> recent.move_stack, recent.redo_stack
        ([Move.parse('s')], [Move.parse('s')])
        >>> _ = board.pop(); board.copy(keep=2, redo=1).redo_stack
        [Move.parse('s')]
        """
        other = type(self).__new__(type(self))
        self._copy_cards_to(other)
        other._version, other._legal_version, other._legal = 0, -1, []
        if not stack:
            other.move_stack, other._undo, other._redo = [], [], []
        else:
            back = len(self.move_stack) if keep is None else _move_count(keep, "keep")
            ahead = min(back, len(self._redo)) if keep is not None else len(self._redo)
            if redo is not None:
                ahead = min(ahead, _move_count(redo, "redo"))
            played = len(self.move_stack) - min(back, len(self.move_stack))
            other.move_stack = self.move_stack[played:]
            other._undo = self._undo[played:]
            other._redo = self._redo[len(self._redo) - ahead:]
        if type(self) is not Board:  # (only a subclass gives a board attributes of its own)
            self.give_extras(other)
        return other

    def extras(self) -> dict[str, object]:
        """The attributes a subclass gave this board (none of a Board's own)."""
        own = _OWN_ATTRIBUTES
        return {name: value for name, value in self.__dict__.items() if name not in own}

    def give_extras(self, other: Board) -> None:
        """Give ``other`` (a board made from this one: a copy, or one made
        anew) the attributes a subclass gave this board (:meth:`extras`),
        as they are; one of the same name that ``other`` has is left."""
        for name, value in self.extras().items():
            other.__dict__.setdefault(name, value)

    def __copy__(self) -> Board:
        """``copy.copy(board)`` is :meth:`copy`: the piles are never shared."""
        return self.copy()

    # ------------------------------------------------------------------
    # Queries

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves of the current position (a live view)."""
        return LegalMoves(self)

    @property
    def status(self) -> Status:
        """Choosing, playing, won or lost (no legal move left)."""
        if self.choosing:
            return Status.CHOOSING
        if self.is_won():
            return Status.WON
        if not self._legal_list():
            return Status.LOST
        return Status.PLAYING

    def is_game_over(self) -> bool:
        """True when the game is won or lost."""
        return self.status in (Status.WON, Status.LOST)

    def ended(self) -> Reason | None:
        """Why no move follows when the game is over: won or lost after the
        moves of its history (a move of a record or of ``--moves`` after
        the end is refused so, not for the card or pile it names); None
        while the game goes on."""
        status = self.status
        if status is Status.WON:
            return Reason(Refusal.GAME_ENDED_WON, moves=len(self.move_stack))
        if status is Status.LOST:
            return Reason(Refusal.GAME_ENDED_LOST, moves=len(self.move_stack))
        return None

    def outcome(self) -> Status | None:
        """``Status.WON`` or ``Status.LOST`` when the game is over, else None."""
        status = self.status
        return status if status in (Status.WON, Status.LOST) else None

    @property
    def can_undo(self) -> bool:
        """True when a move can be taken back."""
        return bool(self.move_stack)

    @property
    def can_redo(self) -> bool:
        """True when an undone move can be played again."""
        return bool(self._redo)

    @property
    def redo_stack(self) -> list[Move]:
        """Undone moves, the next to redo last."""
        return self._redo[:]

    # ------------------------------------------------------------------
    # Rule checks: each says whether a card may go somewhere and, when it
    # may not, why; move generation uses the same tables.

    def foundation_accepts(self, index: int, card: Card) -> bool:
        """True when foundation ``index`` (0-based) takes ``card`` now (none
        takes anything while the base card is being chosen).

        >>> board = Board.from_number(1)
        >>> board.foundation_accepts(0, 12)  # (choosing: no base rank yet)
        False
        >>> board.foundation_accepts(8, 0)
        Traceback (most recent call last):
        ...
        terrace.errors.InvalidMoveError: a foundation index runs from 0 to 7 here, not 8
        """
        last = len(self.foundations) - 1
        whole = as_whole(index)  # (any whole number type, such as numpy's int64)
        if whole is None or not 0 <= whole <= last:
            raise InvalidMoveError(Reason(Refusal.FOUNDATION_INDEX_RANGE, last=last, value=quote(index)))
        card = given_card(card)
        return not self.choosing and self._foundation_refusal(whole, card) is None

    def _foundation_refusal(self, index: int, card: Card) -> Reason | None:
        """Why foundation ``index`` does not take ``card`` now, if it does not."""
        f = self.foundations[index]
        in_suit = self.rules.in_suit
        key = SUIT_KEY if in_suit else COLOUR_KEY
        if not f:
            if key[card] in (SUIT_STARTS if in_suit else COLOUR_STARTS)[self.base_rank]:
                return None
            return Reason(Refusal.FOUNDATION_NEEDS_BASE, foundation=index + 1, rank=RANKS[self.base_rank])
        if len(f) >= FOUNDATION_SIZE:
            return Reason(Refusal.FOUNDATION_COMPLETE, foundation=index + 1)
        top = f[-1]
        wanted = (SUIT_AFTER if in_suit else COLOUR_AFTER)[top]
        if key[card] == wanted:
            return None
        colour, rank = key_words(wanted, in_suit=in_suit)
        if in_suit:
            return Reason(Refusal.FOUNDATION_NEEDS_SUIT, card=CODE[card], top=CODE[top],
                          foundation=index + 1, rank=rank)
        return Reason(Refusal.FOUNDATION_NEEDS_COLOUR, card=CODE[card], top=CODE[top],
                      foundation=index + 1, colour=colour, rank=rank)

    def _tableau_refusal(self, index: int, card: Card, source: int) -> Reason | None:
        """Why pile ``index`` does not take ``card`` from ``source`` now, if
        it does not."""
        pile = self.tableau[index]
        if pile:
            top = pile[-1]
            wanted = BELOW_KEY[top]
            if COLOUR_KEY[card] == wanted:
                return None
            colour, rank = key_words(wanted, in_suit=False)
            return Reason(Refusal.PILE_NEEDS, card=CODE[card], top=CODE[top], pile=index + 1,
                          colour=colour, rank=rank)
        spaces = self.rules.spaces
        if source in SPACE_SOURCES[spaces]:
            return None
        if spaces is SpaceRule.WASTE:
            return Reason(Refusal.SPACE_TAKES_WASTE_ONLY)
        return Reason(Refusal.SPACE_STAYS_EMPTY, pile=index + 1)

    def _first_foundation(self, card: Card) -> int:
        """The first foundation that takes ``card`` now (as
        :meth:`_foundation_targets` would say), or -1."""
        in_suit = self.rules.in_suit
        k = (SUIT_KEY if in_suit else COLOUR_KEY)[card]
        after = SUIT_AFTER if in_suit else COLOUR_AFTER
        for index, f in enumerate(self.foundations):
            if f:
                if len(f) < FOUNDATION_SIZE and after[f[-1]] == k:
                    return index
            elif k in (SUIT_STARTS if in_suit else COLOUR_STARTS)[self.base_rank]:
                return index  # the first empty foundation
        return -1

    def _no_foundation(self, card: Card) -> Reason:
        """Why no foundation takes ``card`` (:meth:`_first_foundation` found none)."""
        if RANK[card] == self.base_rank:
            return Reason(Refusal.NO_FOUNDATION_FREE, card=CODE[card])
        return Reason(Refusal.NO_FOUNDATION_ACCEPTS, card=CODE[card])

    def _can_draw(self) -> bool:
        return bool(self.stock) or (bool(self.waste) and self.redeals_used < self.rules.redeals)

    def _resolve(self, move: Move) -> Resolved | Reason:
        """The move as (source area, source index, target area, target
        index), 0-based and with "any foundation" resolved, or the reason
        it is illegal."""
        rules = self.rules
        if self.choosing:
            if move.source != CHOOSE:
                return Reason(Refusal.CHOOSE_FIRST, candidates=rules.candidates)
            if not 1 <= move.source_index <= rules.candidates:
                return Reason(Refusal.CANDIDATE_RANGE, candidates=rules.candidates)
            return (_CHOOSE, move.source_index - 1, _CHOOSE, -1)
        if move.source == CHOOSE:
            return Reason(Refusal.BASE_CHOSEN if rules.picks_base else Refusal.NO_CHOICE)
        if move.source == DRAW:
            if self._can_draw():
                return (_DRAW, 0, _DRAW, 0)
            if self.waste and rules.redeals:
                return Reason(Refusal.STOCK_EMPTY_NO_REDEALS)
            if self.redeals_used < rules.redeals:  # (redeals are left, but the waste is empty)
                return Reason(Refusal.NOTHING_TO_REDEAL)
            return Reason(Refusal.STOCK_EMPTY)
        source = AREA[move.source]
        src_index = move.source_index - 1
        card = self._source_card(source, src_index)
        if isinstance(card, Reason):
            return card
        if move.target == FOUNDATION:
            if move.target_index == 0:
                index = self._first_foundation(card)
                return self._no_foundation(card) if index < 0 else (source, src_index, _F, index)
            index = move.target_index - 1
            if index >= len(self.foundations):
                return Reason(Refusal.NO_SUCH_FOUNDATION, foundation=index + 1, count=len(self.foundations))
            return self._foundation_refusal(index, card) or (source, src_index, _F, index)
        if source == _R:
            return Reason(Refusal.TERRACE_ONLY_TO_FOUNDATION)
        index = move.target_index - 1
        if index >= len(self.tableau):
            return Reason(Refusal.NO_SUCH_PILE, pile=index + 1, count=len(self.tableau))
        return self._tableau_refusal(index, card, source) or (source, src_index, _T, index)

    def _source_card(self, source: int, index: int) -> Card | Reason:
        """The card a move takes from ``source``, or why it takes none."""
        if source == _R:
            return self.reserve[-1] if self.reserve else Reason(Refusal.TERRACE_EMPTY)
        if source == _W:
            return self.waste[-1] if self.waste else Reason(Refusal.WASTE_EMPTY)
        if source == _T:
            if index >= len(self.tableau):
                return Reason(Refusal.NO_SUCH_PILE, pile=index + 1, count=len(self.tableau))
            pile = self.tableau[index]
            return pile[-1] if pile else Reason(Refusal.PILE_EMPTY, pile=index + 1)
        if not self.rules.foundation_return:
            return Reason(Refusal.FOUNDATIONS_KEEP_CARDS)
        if self.is_won():
            return Reason(Refusal.GAME_WON)
        if index >= len(self.foundations):
            return Reason(Refusal.NO_SUCH_FOUNDATION, foundation=index + 1, count=len(self.foundations))
        f = self.foundations[index]
        if not f:
            return Reason(Refusal.FOUNDATION_EMPTY, foundation=index + 1)
        if len(f) == 1:
            return Reason(Refusal.FOUNDATION_BASE_STAYS)
        return f[-1]

    def is_legal(self, move: Move) -> bool:
        """True when ``move`` may be pushed now."""
        return not isinstance(self._resolve(given_move(move, "is_legal")), Reason)

    def refusal(self, move: Move) -> Reason | None:
        """Why ``move`` is illegal (a refusal code with its parameters), or
        None when it is legal.

        >>> board = Board.from_number(1)
        >>> board.refusal(Move.parse("s"))
        Reason(Refusal.CHOOSE_FIRST, candidates=3)
        """
        resolved = self._resolve(given_move(move, "refusal"))
        return resolved if isinstance(resolved, Reason) else None

    def why_illegal(self, move: Move) -> str | None:
        """The reason ``move`` is illegal in English, or None when it is legal."""
        reason = self.refusal(move)
        return None if reason is None else str(reason)

    # ------------------------------------------------------------------
    # Move generation

    def generate_legal_moves(self) -> Iterator[Move]:
        """Every legal move: foundation moves (one ``<src>f`` per source),
        then tableau moves, foundation returns, and the draw ``s`` last."""
        return iter(self._legal_list())

    def _legal_list(self) -> list[Move]:
        """The legal moves, computed once per position (the list is shared:
        never change it)."""
        if self._legal_version != self._version:
            self._legal = self._compute_legal_moves()
            self._legal_version = self._version
        return self._legal

    def _compute_legal_moves(self) -> list[Move]:
        """The legal moves found with the lookup tables of
        :mod:`terrace.building` (the checks above use the same tables)."""
        rules = self.rules
        if self.base_rank < 0:
            return list(CHOICES[: rules.candidates])
        tableau, reserve, waste = self.tableau, self.reserve, self.waste
        key = SUIT_KEY if rules.in_suit else COLOUR_KEY
        wanted = self._foundation_targets()
        moves: list[Move] = []
        if reserve and key[reserve[-1]] in wanted:
            moves.append(RF)
        if waste and key[waste[-1]] in wanted:
            moves.append(WF)
        # Which piles take which cards: by rank and colour, or any card in a space.
        fits: dict[int, list[int]] = {}
        spaces: list[int] = []
        for index, pile in enumerate(tableau):
            if pile:
                top = pile[-1]
                if key[top] in wanted:
                    moves.append(TF[index])
                fits.setdefault(BELOW_KEY[top], []).append(index)
            else:
                spaces.append(index)
        # The areas whose card may enter a space (the same table as the checks).
        open_to = SPACE_SOURCES[rules.spaces] if spaces else _NOWHERE
        free = _T in open_to
        append = moves.append
        none: list[int] = []
        if waste:
            targets = fits.get(COLOUR_KEY[waste[-1]], none)
            if _W in open_to:
                targets = sorted(targets + spaces)
            for j in targets:
                append(WT[j])
        for index, pile in enumerate(tableau):
            if pile:
                targets = fits.get(COLOUR_KEY[pile[-1]], none)
                if free:
                    targets = sorted(targets + spaces)
                if targets:
                    row = TT[index]
                    for j in targets:
                        if j != index:
                            append(row[j])
        if rules.foundation_return and (reserve or waste or self.stock or len(spaces) < len(tableau)):
            # (Once every card is up the game is won and nothing moves.)
            for index, f in enumerate(self.foundations):
                if len(f) > 1:
                    targets = fits.get(COLOUR_KEY[f[-1]], none)
                    if _F in open_to:
                        targets = sorted(targets + spaces)
                    row = FT[index]
                    for j in targets:
                        append(row[j])
        if self._can_draw():
            moves.append(DRAW_MOVE)
        return moves

    def _foundation_targets(self) -> dict[int, int]:
        """For every card key (see :mod:`terrace.building`) that some
        foundation takes now, the first foundation that takes it."""
        in_suit = self.rules.in_suit
        after = SUIT_AFTER if in_suit else COLOUR_AFTER
        wanted: dict[int, int] = {}
        empty = False
        for index, f in enumerate(self.foundations):
            if f:
                if len(f) < FOUNDATION_SIZE:
                    wanted.setdefault(after[f[-1]], index)
            elif not empty:
                empty = True
                for k in (SUIT_STARTS if in_suit else COLOUR_STARTS)[self.base_rank]:
                    wanted.setdefault(k, index)
        return wanted

    def moves_from(self, source: str) -> list[Move]:
        """Legal moves of the card at ``source`` (``'r'`` or ``'reserve'``,
        ``'w'`` or ``'waste'``, ``'t3'``, ``'f2'``), foundation moves first,
        then piles in order; a place the rules do not have is an
        :class:`~terrace.errors.InvalidMoveError` (``place-unknown``).

        >>> Board.from_number(1).moves_from("t12")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        terrace.errors.InvalidMoveError: 't12' is not a place here: write r (the terrace), ... or f1 to f8
        """
        return self._moves_at(self._given_place(source, "moves_from"))

    def _moves_at(self, place: str) -> list[Move]:
        return [m for m in self.generate_legal_moves() if _place(m) == place]

    def _given_place(self, source: object, method: str) -> str:
        """``source`` as the notation names it ('r', 'w', 't3', 'f2')."""
        if not isinstance(source, str):
            raise TypeError(f"{method} takes a place such as 'w' or 't3', not {type(source).__name__}")
        written = source.strip(SPACES).lower()  # (ASCII white space only, as around a move)
        place = {"reserve": "r", "waste": "w"}.get(written, written)
        piles, foundations = len(self.tableau), len(self.foundations)
        number = None if place[1:2] == "0" else digits_value(place[1:])  # (t1, never t01)
        known = place in ("r", "w") or (
            place[:1] in ("t", "f") and number is not None
            and 1 <= number <= (piles if place[0] == "t" else foundations))
        if not known:
            raise InvalidMoveError(Reason(Refusal.PLACE_UNKNOWN, value=quote(source), piles=piles,
                                          foundations=foundations))
        return place

    def auto_move(self, source: str) -> Move | None:
        """The move a click on ``source`` makes: to a foundation if one
        accepts the card, else onto the first pile whose top card takes it,
        else into the first empty pile that takes it (spaces the player
        fills), but never a pile's only card into a space (that changes
        nothing); None for a foundation (its card is home already: with
        foundation return it comes back only when moved on purpose, to a
        pile the player names)."""
        place = self._given_place(source, "auto_move")
        if place.startswith(FOUNDATION):
            return None
        moves = self._moves_at(place)
        if not moves or moves[0].to_foundation:
            return moves[0] if moves else None
        onto_cards = [m for m in moves if self.tableau[m.target_index - 1]]
        if onto_cards:
            return onto_cards[0]
        lone = place.startswith(TABLEAU) and len(self.tableau[int(place[1:]) - 1]) == 1
        return None if lone else moves[0]

    # ------------------------------------------------------------------
    # Making and taking back moves

    def push(self, move: Move) -> None:
        """Play ``move``; raises :class:`IllegalMoveError` (and changes
        nothing) when the rules forbid it, and :class:`TypeError` when
        ``move`` is not a :class:`Move` (text goes to :meth:`push_text`)."""
        resolved = self._resolve(given_move(move, "push"))
        if isinstance(resolved, Reason):
            raise IllegalMoveError(resolved, move=clip(str(move)))
        self._apply(move, resolved)

    def push_text(self, text: str) -> Move:
        """Parse and play a move; returns it."""
        move = Move.parse(text)
        self.push(move)
        return move

    def _apply(self, move: Move, resolved: Resolved) -> None:
        source, src_index, target, dst_index = resolved
        undo: Undo
        if source == _CHOOSE:
            undo = choose(self, src_index)
        elif source == _DRAW:
            undo = draw(self)
        else:
            undo = play(self, source, src_index, target, dst_index)
        self.move_stack.append(move)
        self._undo.append(undo)
        self._version += 1
        if self._redo and self._redo[-1] == move:
            self._redo.pop()
        else:
            self._redo.clear()

    def pop(self) -> Move:
        """Take back the last move (it can be redone); returns it."""
        if not self.move_stack:
            raise NoMoveError(Reason(Refusal.NOTHING_TO_UNDO))
        move = self.move_stack.pop()
        take_back(self, self._undo.pop())
        self._redo.append(move)
        self._version += 1
        return move

    def redo(self) -> Move:
        """Play again the last move taken back; returns it."""
        if not self._redo:
            raise NoMoveError(Reason(Refusal.NOTHING_TO_REDO))
        move = self._redo[-1]
        self.push(move)
        return move

    def peek_move(self) -> Move:
        """The last move played."""
        if not self.move_stack:
            raise NoMoveError(Reason(Refusal.NO_MOVE_PLAYED))
        return self.move_stack[-1]

    # ------------------------------------------------------------------
    # OpenSpiel-style actions (see terrace.actions)

    @property
    def action_count(self) -> int:
        """The size of the fixed action space of these rules (see
        :func:`~terrace.actions.action_moves`); every action is an int in
        ``range(action_count)``.

        >>> Board.from_number(1).action_count
        96
        """
        return len(action_moves(self.rules))

    def legal_actions(self) -> list[int]:
        """The legal moves as action numbers, in increasing order.

        >>> Board.from_number(1).legal_actions()
        [0, 1, 2]
        """
        index = action_index(self.rules)
        return sorted(index[move] for move in self.generate_legal_moves())

    def action_to_move(self, action: int) -> Move:
        """The move an action number stands for (legal or not).

        >>> board = Board.from_number(1)
        >>> board.action_to_move(3), board.action_to_move(95)
        (Move.parse('rf'), Move.parse('s'))
        """
        return action_to_move(self.rules, action)

    def move_to_action(self, move: Move) -> int:
        """The action number of ``move``; ``<src>f<n>`` counts as ``<src>f``
        since foundations are interchangeable.

        >>> board = Board.from_number(1)
        >>> board.move_to_action(Move.parse("wf3")) == board.move_to_action(Move.parse("wf"))
        True
        """
        return move_to_action(self.rules, move)

    def apply_action(self, action: int) -> None:
        """Play the move of an action number (see :meth:`push`).

        >>> board = Board.from_number(1)
        >>> board.apply_action(1)
        >>> board.move_stack
        [Move.parse('c2')]
        """
        self.push(self.action_to_move(action))

    # ------------------------------------------------------------------
    # Presentation

    def counters(self) -> dict[str, Any]:
        """The numbers a player watches: base rank, foundation progress,
        terrace, stock, waste and tableau sizes, moves."""
        return {
            "base_rank": None if self.choosing else RANKS[self.base_rank],
            "foundation_cards": self.foundation_cards,
            "total_cards": self.rules.card_count,
            "reserve": len(self.reserve),
            "stock": len(self.stock),
            "waste": len(self.waste),
            "tableau": self.tableau_cards,
            "moves": len(self.move_stack),
            "redeals_left": self.rules.redeals - self.redeals_used,
        }

    def to_dict(self) -> dict[str, Any]:
        """The status and the visible position as JSON values (see
        :meth:`~terrace.position.BaseBoard.layout`)."""
        return {"status": self.status.value, **self.layout()}

    def __str__(self) -> str:
        c = self.counters()
        base = c["base_rank"] or "?"
        head = (
            f"base {base}  foundations {c['foundation_cards']}/{c['total_cards']}  "
            f"reserve {c['reserve']}  stock {c['stock']}  waste {c['waste']}  "
            f"tableau {c['tableau']}  moves {c['moves']}  [{self.status.value}]"
        )
        return "\n".join([head, *self.drawing()])


_OWN_ATTRIBUTES: frozenset[str] = frozenset((*BaseBoard.__annotations__, *Board.__annotations__))
"""The attributes of a :class:`Board` (its cards' and its history's, as
the classes declare them); any other is a subclass's (:meth:`Board.extras`)."""


def given_board(board: object, taker: str) -> Board:
    """``board`` when it is a :class:`Board`, else a ``TypeError`` naming
    ``taker`` (a solver's function given a position string, say, failed
    deep inside with an ``AttributeError``).

    >>> given_board("t1f", "solve")
    Traceback (most recent call last):
    ...
    TypeError: solve takes a Board, not str (Board.from_position reads a position string)
    """
    if not isinstance(board, Board):
        raise TypeError(f"{taker} takes a Board, not {type(board).__name__} "
                        "(Board.from_position reads a position string)")
    return board


def _move_count(value: object, name: str) -> int:
    """``value`` as a number of moves (any whole number type, such as
    numpy's int64), else an :class:`InvalidMoveError` (``move-count-range``, a
    ``ValueError``) naming the argument."""
    moves = as_whole(value)
    if moves is None or moves < 0:
        raise InvalidMoveError(Reason(Refusal.MOVE_COUNT_RANGE, name=name, value=quote(value)))
    return moves


def _place(move: Move) -> str:
    if move.source in (TABLEAU, FOUNDATION):
        return f"{move.source}{move.source_index}"
    return move.source
