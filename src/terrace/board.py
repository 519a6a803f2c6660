"""The board: a position, its legal moves, and push/pop/redo.

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

from collections import Counter
from collections.abc import Iterator
from enum import StrEnum
from functools import lru_cache
from itertools import pairwise
from typing import Any

from terrace.cards import (
    CODE,
    RANK,
    RANKS,
    RED,
    SUIT,
    Card,
    card_symbol,
    full_pack,
    parse_card,
)
from terrace.deal import Deal
from terrace.errors import IllegalMoveError, InvalidCardError, InvalidMoveError, InvalidPositionError
from terrace.moves import (
    CHOOSE,
    DRAW,
    DRAW_MOVE,
    FOUNDATION,
    RESERVE,
    TABLEAU,
    WASTE,
    Move,
)
from terrace.rules import Rules, SpaceRule

FOUNDATION_SIZE = 13

# Internal area codes (the undo log stores these rather than strings).
_R, _W, _T, _F = 0, 1, 2, 3
_AREA = {RESERVE: _R, WASTE: _W, TABLEAU: _T, FOUNDATION: _F}


class Status(StrEnum):
    """Where a game stands."""

    CHOOSING = "choosing"
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


def _colour_word(red: bool) -> str:
    return "red" if red else "black"


def _some(rank: int, before: str = "", after: str = "") -> str:
    """A rank code with its article, as it is read aloud: ``a black 8``,
    ``an 8 of the same suit``, ``an A``."""
    words = " ".join(w for w in (before, RANKS[rank], after) if w)
    return ("an " if words[0] in "aeiou8A" else "a ") + words


class LegalMoves:
    """A live view of the legal moves of a board (like python-chess): it
    always shows the board's current position. The moves are computed once
    per position and kept until the next push or pop.

    Supports iteration, ``len()``, ``in`` and ``bool()``.
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


class Board:
    """A position of a Terrace-family game with its move history.

    Piles, foundations and candidates are numbered from 1 in moves and from
    0 in the lists below. ``stock[-1]`` is the next card to be drawn;
    ``reserve[-1]`` and ``waste[-1]`` are the playable cards.
    """

    def __init__(self, rules: Rules | None = None, deal: Deal | None = None) -> None:
        self.rules: Rules = rules or Rules()
        if deal is None:
            deal = Deal.from_number(1, self.rules)
        else:
            deal.check(self.rules)
        self.deal: Deal | None = deal
        self.move_stack: list[Move] = []
        self._undo: list[tuple[Any, ...]] = []
        self._redo: list[Move] = []
        self.redeals_used = 0
        self._version = 0
        self._legal_version = -1
        self._legal: list[Move] = []
        self.foundations: list[list[Card]] = [[] for _ in range(self.rules.foundation_count)]
        self.tableau: list[list[Card]] = [[] for _ in range(self.rules.piles)]
        self.waste: list[Card] = []
        cards = list(deal.cards)
        self.reserve: list[Card] = cards[: self.rules.reserve]
        rest = cards[self.rules.reserve:]
        self.base_rank = -1
        if self.rules.picks_base:
            for index in range(self.rules.candidates):
                self.tableau[index].append(rest.pop(0))
        else:
            for pile in self.tableau:
                pile.append(rest.pop(0))
            base = rest.pop(0)
            self.foundations[0].append(base)
            self.base_rank = RANK[base]
        rest.reverse()
        self.stock: list[Card] = rest

    # ------------------------------------------------------------------
    # Construction

    @classmethod
    def from_number(cls, number: int, rules: Rules | None = None) -> Board:
        """The starting position of deal ``number``."""
        rules = rules or Rules()
        return cls(rules, Deal.from_number(number, rules))

    @classmethod
    def from_deal_text(cls, text: str, rules: Rules | None = None) -> Board:
        """The starting position of a deal string."""
        rules = rules or Rules()
        return cls(rules, Deal.parse(text, rules))

    def copy(self, *, stack: bool = True) -> Board:
        """An independent copy; with ``stack=False`` the history is dropped."""
        other = Board.__new__(Board)
        other.rules = self.rules
        other.deal = self.deal
        other.reserve = self.reserve[:]
        other.stock = self.stock[:]
        other.waste = self.waste[:]
        other.tableau = [pile[:] for pile in self.tableau]
        other.foundations = [f[:] for f in self.foundations]
        other.base_rank = self.base_rank
        other.redeals_used = self.redeals_used
        other._version, other._legal_version, other._legal = 0, -1, []
        if stack:
            other.move_stack = self.move_stack[:]
            other._undo = self._undo[:]
            other._redo = self._redo[:]
        else:
            other.move_stack, other._undo, other._redo = [], [], []
        return other

    # ------------------------------------------------------------------
    # Queries

    @property
    def choosing(self) -> bool:
        """True until the base card has been chosen."""
        return self.base_rank < 0

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves of the current position (a live view)."""
        return LegalMoves(self)

    @property
    def foundation_cards(self) -> int:
        """Cards on the foundations."""
        return sum(len(f) for f in self.foundations)

    @property
    def tableau_cards(self) -> int:
        """Cards in the tableau piles."""
        return sum(len(p) for p in self.tableau)

    def is_won(self) -> bool:
        """True when every card lies on a foundation."""
        if self.stock or self.waste or self.reserve:
            return False
        return self.foundation_cards == self.rules.card_count

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

    def candidates(self) -> list[Card]:
        """The candidate cards while choosing (pile order), else empty."""
        if not self.choosing:
            return []
        return [self.tableau[i][-1] for i in range(self.rules.candidates)]

    def peek(self, move: Move) -> Card | None:
        """The card ``move`` would move, if its source holds one."""
        area = move.source
        if area == RESERVE:
            return self.reserve[-1] if self.reserve else None
        if area == WASTE:
            return self.waste[-1] if self.waste else None
        if area == TABLEAU and 1 <= move.source_index <= len(self.tableau):
            pile = self.tableau[move.source_index - 1]
            return pile[-1] if pile else None
        if area == FOUNDATION and 1 <= move.source_index <= len(self.foundations):
            f = self.foundations[move.source_index - 1]
            return f[-1] if f else None
        if area == CHOOSE and self.choosing and 1 <= move.source_index <= self.rules.candidates:
            return self.tableau[move.source_index - 1][-1]
        return None

    # ------------------------------------------------------------------
    # Rule checks

    def foundation_accepts(self, index: int, card: Card) -> bool:
        """True when foundation ``index`` (0-based) takes ``card`` now."""
        f = self.foundations[index]
        if not f:
            return RANK[card] == self.base_rank
        if len(f) >= FOUNDATION_SIZE:
            return False
        top = f[-1]
        if RANK[card] != (RANK[top] + 1) % 13:
            return False
        if self.rules.in_suit:
            return SUIT[card] == SUIT[top]
        return RED[card] != RED[top]

    def _first_foundation(self, card: Card) -> int:
        key = _SUIT_KEY if self.rules.in_suit else _COLOUR_KEY
        return self._foundation_targets().get(key[card], -1)

    def _tableau_accepts(self, pile_index: int, card: Card, source: int) -> bool:
        pile = self.tableau[pile_index]
        if pile:
            top = pile[-1]
            return RANK[card] == (RANK[top] + 12) % 13 and RED[card] != RED[top]
        spaces = self.rules.spaces
        if spaces is SpaceRule.FREE:
            return True
        if spaces is SpaceRule.WASTE:
            return source == _W
        return False

    def _can_draw(self) -> bool:
        return bool(self.stock) or (
            bool(self.waste) and self.redeals_used < self.rules.redeals
        )

    def _resolve(self, move: Move) -> tuple[int, int, int, int] | str:
        """The move as (source area, source index, target area, target
        index), 0-based and with "any foundation" resolved, or the reason
        it is illegal."""
        rules = self.rules
        if self.choosing:
            if move.source != CHOOSE:
                return f"choose a base card first (c1 to c{rules.candidates})"
            if not 1 <= move.source_index <= rules.candidates:
                return f"there are only {rules.candidates} candidates (c1 to c{rules.candidates})"
            return (-1, move.source_index - 1, -1, -1)
        if move.source == CHOOSE:
            if not rules.picks_base:
                return "this game has no choice: its base card is turned from the pack"
            return "the base card has already been chosen"
        if move.source == DRAW:
            if self._can_draw():
                return (-2, 0, -2, 0)
            if self.waste and rules.redeals:
                return "the stock is empty and no redeals are left"
            return "the stock is empty"
        source = _AREA[move.source]
        src_index = move.source_index - 1
        card = self._source_card(source, src_index)
        if isinstance(card, str):
            return card
        if move.target == FOUNDATION:
            if source == _F:
                return "a foundation card cannot go to another foundation"
            if move.target_index == 0:
                index = self._first_foundation(card)
                if index < 0:
                    return self._why_no_foundation(card)
                return (source, src_index, _F, index)
            index = move.target_index - 1
            if index >= len(self.foundations):
                return (
                    f"there is no foundation {move.target_index} "
                    f"(foundations run from 1 to {len(self.foundations)})"
                )
            if not self.foundation_accepts(index, card):
                return self._why_not_foundation(index, card)
            return (source, src_index, _F, index)
        if source == _R:
            return "the terrace card can go only to a foundation"
        index = move.target_index - 1
        if index >= len(self.tableau):
            return f"there is no pile {move.target_index} (piles run from 1 to {len(self.tableau)})"
        if source == _T and index == src_index:
            return "a card cannot move onto its own pile"
        if not self._tableau_accepts(index, card, source):
            return self._why_not_tableau(index, card)
        return (source, src_index, _T, index)

    def _source_card(self, source: int, index: int) -> Card | str:
        if source == _R:
            return self.reserve[-1] if self.reserve else "the terrace (reserve) is empty"
        if source == _W:
            return self.waste[-1] if self.waste else "the waste is empty"
        if source == _T:
            if index >= len(self.tableau):
                return f"there is no pile {index + 1} (piles run from 1 to {len(self.tableau)})"
            pile = self.tableau[index]
            return pile[-1] if pile else f"pile {index + 1} is empty"
        if not self.rules.foundation_return:
            return "cards never leave the foundations in this game"
        if self.is_won():
            return "the game is won: every card stays on the foundations"
        if index >= len(self.foundations):
            return (
                f"there is no foundation {index + 1} "
                f"(foundations run from 1 to {len(self.foundations)})"
            )
        f = self.foundations[index]
        if len(f) <= 1:
            if not f:
                return f"foundation {index + 1} is empty"
            return "the base card of a foundation never moves"
        return f[-1]

    def _needed_on(self, top: Card) -> str:
        rank = (RANK[top] + 1) % 13
        if self.rules.in_suit:
            return _some(rank, after="of the same suit")
        return _some(rank, _colour_word(not RED[top]))

    def _why_no_foundation(self, card: Card) -> str:
        if RANK[card] == self.base_rank:
            return f"no foundation is free for the {card_symbol(card)}"
        return f"no foundation accepts the {card_symbol(card)} yet"

    def _why_not_foundation(self, index: int, card: Card) -> str:
        f = self.foundations[index]
        name = f"foundation {index + 1}"
        if not f:
            return f"{name} is empty: only {_some(self.base_rank)} can start it"
        if len(f) >= FOUNDATION_SIZE:
            return f"{name} is complete"
        top = f[-1]
        return (
            f"the {card_symbol(card)} cannot go on the {card_symbol(top)}: "
            f"{name} takes only {self._needed_on(top)}"
        )

    def _why_not_tableau(self, index: int, card: Card) -> str:
        pile = self.tableau[index]
        if pile:
            top = pile[-1]
            wanted = _some((RANK[top] + 12) % 13, _colour_word(not RED[top]))
            return (
                f"the {card_symbol(card)} cannot go on the {card_symbol(top)} in pile "
                f"{index + 1}: piles build down in alternating colours, so it takes only {wanted}"
            )
        if self.rules.spaces is SpaceRule.WASTE:
            return "an empty pile takes only the waste card in this game"
        return (
            f"pile {index + 1} stays empty: spaces are refilled only from the waste "
            "or the stock, and both are used up"
        )

    def is_legal(self, move: Move) -> bool:
        """True when ``move`` may be pushed now."""
        return not isinstance(self._resolve(move), str)

    def why_illegal(self, move: Move) -> str | None:
        """The reason ``move`` is illegal, or None when it is legal."""
        resolved = self._resolve(move)
        return resolved if isinstance(resolved, str) else None

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
        rules = self.rules
        if self.base_rank < 0:
            return _CHOICES[: rules.candidates]
        tableau, reserve, waste = self.tableau, self.reserve, self.waste
        key = _SUIT_KEY if rules.in_suit else _COLOUR_KEY
        wanted = self._foundation_targets()
        moves: list[Move] = []
        if reserve and key[reserve[-1]] in wanted:
            moves.append(_RF)
        if waste and key[waste[-1]] in wanted:
            moves.append(_WF)
        # Which piles take which cards: by rank and colour, or any card in a space.
        fits: dict[int, list[int]] = {}
        spaces: list[int] = []
        for index, pile in enumerate(tableau):
            if pile:
                top = pile[-1]
                if key[top] in wanted:
                    moves.append(_TF[index])
                fits.setdefault(_BELOW_KEY[top], []).append(index)
            else:
                spaces.append(index)
        space_rule = rules.spaces
        free = bool(spaces) and space_rule is SpaceRule.FREE
        append = moves.append
        none: list[int] = []
        if waste:
            targets = fits.get(_COLOUR_KEY[waste[-1]], none)
            if spaces and space_rule is not SpaceRule.AUTO:
                targets = sorted(targets + spaces)
            for j in targets:
                append(_WT[j])
        for index, pile in enumerate(tableau):
            if pile:
                targets = fits.get(_COLOUR_KEY[pile[-1]], none)
                if free:
                    targets = sorted(targets + spaces)
                if targets:
                    row = _TT[index]
                    for j in targets:
                        if j != index:
                            append(row[j])
        if rules.foundation_return and (reserve or waste or self.stock or len(spaces) < len(tableau)):
            # (Once every card is up the game is won and nothing moves.)
            for index, f in enumerate(self.foundations):
                if len(f) > 1:
                    targets = fits.get(_COLOUR_KEY[f[-1]], none)
                    if free:
                        targets = sorted(targets + spaces)
                    row = _FT[index]
                    for j in targets:
                        append(row[j])
        if self.stock or (waste and self.redeals_used < rules.redeals):
            moves.append(DRAW_MOVE)
        return moves

    def _foundation_targets(self) -> dict[int, int]:
        """For every card key (see ``_COLOUR_KEY``/``_SUIT_KEY``) that some
        foundation takes now, the first foundation that takes it."""
        in_suit = self.rules.in_suit
        after = _SUIT_AFTER if in_suit else _COLOUR_AFTER
        wanted: dict[int, int] = {}
        empty = False
        for index, f in enumerate(self.foundations):
            if f:
                if len(f) < FOUNDATION_SIZE:
                    wanted.setdefault(after[f[-1]], index)
            elif not empty:
                empty = True
                base = self.base_rank
                for k in (range(base * 4, base * 4 + 4) if in_suit else (base * 2, base * 2 + 1)):
                    wanted.setdefault(k, index)
        return wanted

    def moves_from(self, source: str) -> list[Move]:
        """Legal moves of the card at ``source`` (``'r'``, ``'w'``, ``'t3'``,
        ``'f2'``), foundation moves first, then piles in order."""
        return [m for m in self.generate_legal_moves() if _place(m) == source]

    def auto_move(self, source: str) -> Move | None:
        """The move a click on ``source`` makes: to a foundation if one
        accepts the card, else to the first pile that does."""
        moves = self.moves_from(source)
        return moves[0] if moves else None

    # ------------------------------------------------------------------
    # Making and taking back moves

    def push(self, move: Move) -> None:
        """Play ``move``; raises :class:`IllegalMoveError` (and changes
        nothing) when the rules forbid it."""
        resolved = self._resolve(move)
        if isinstance(resolved, str):
            raise IllegalMoveError(f"{move}: {resolved}")
        self._apply(move, resolved)

    def push_text(self, text: str) -> Move:
        """Parse and play a move; returns it."""
        move = Move.parse(text)
        self.push(move)
        return move

    def _apply(self, move: Move, resolved: tuple[int, int, int, int]) -> None:
        source, src_index, target, dst_index = resolved
        if source == -1:
            undo: tuple[Any, ...] = self._choose(src_index)
        elif source == -2:
            undo = self._draw()
        else:
            if source == _R:
                card = self.reserve.pop()
            elif source == _W:
                card = self.waste.pop()
            elif source == _T:
                card = self.tableau[src_index].pop()
            else:
                card = self.foundations[src_index].pop()
            if target == _F:
                self.foundations[dst_index].append(card)
            else:
                self.tableau[dst_index].append(card)
            undo = ("p", source, src_index, target, dst_index, self._refill())
        self.move_stack.append(move)
        self._undo.append(undo)
        self._version += 1
        if self._redo and self._redo[-1] == move:
            self._redo.pop()
        else:
            self._redo.clear()

    def _choose(self, index: int) -> tuple[Any, ...]:
        tableau = self.tableau
        chosen = tableau[index].pop()
        self.base_rank = RANK[chosen]
        self.foundations[0].append(chosen)
        started = [index]
        next_foundation = 1
        for pile in range(self.rules.candidates):
            if pile != index and tableau[pile] and RANK[tableau[pile][-1]] == self.base_rank:
                self.foundations[next_foundation].append(tableau[pile].pop())
                next_foundation += 1
                started.append(pile)
        filled = []
        for pile in range(len(tableau)):
            if not tableau[pile] and self.stock:
                tableau[pile].append(self.stock.pop())
                filled.append(pile)
        return ("c", started, filled)

    def _draw(self) -> tuple[Any, ...]:
        if self.stock:
            self.waste.append(self.stock.pop())
            redealt = False
        else:
            self.waste.reverse()
            self.stock, self.waste = self.waste, []
            self.redeals_used += 1
            redealt = True
        return ("s", redealt, self._refill())

    def _refill(self) -> list[tuple[int, bool]]:
        """Fill empty piles from the waste, else the stock (auto spaces)."""
        if self.rules.spaces is not SpaceRule.AUTO:
            return []
        fills: list[tuple[int, bool]] = []
        for pile_index, pile in enumerate(self.tableau):
            if not pile:
                if self.waste:
                    pile.append(self.waste.pop())
                    fills.append((pile_index, True))
                elif self.stock:
                    pile.append(self.stock.pop())
                    fills.append((pile_index, False))
                else:
                    break
        return fills

    def _unfill(self, fills: list[tuple[int, bool]]) -> None:
        for pile_index, from_waste in reversed(fills):
            card = self.tableau[pile_index].pop()
            (self.waste if from_waste else self.stock).append(card)

    def pop(self) -> Move:
        """Take back the last move (it can be redone); returns it."""
        if not self.move_stack:
            raise IndexError("there is no move to undo")
        move = self.move_stack.pop()
        undo = self._undo.pop()
        kind = undo[0]
        if kind == "p":
            _, source, src_index, target, dst_index, fills = undo
            self._unfill(fills)
            card = (self.foundations if target == _F else self.tableau)[dst_index].pop()
            if source == _R:
                self.reserve.append(card)
            elif source == _W:
                self.waste.append(card)
            elif source == _T:
                self.tableau[src_index].append(card)
            else:
                self.foundations[src_index].append(card)
        elif kind == "s":
            _, redealt, fills = undo
            self._unfill(fills)
            if redealt:
                self.stock.reverse()
                self.waste, self.stock = self.stock, []
                self.redeals_used -= 1
            else:
                self.stock.append(self.waste.pop())
        else:
            _, started, filled = undo
            for pile in reversed(filled):
                self.stock.append(self.tableau[pile].pop())
            for foundation, pile in reversed(list(enumerate(started))):
                self.tableau[pile].append(self.foundations[foundation].pop())
            self.base_rank = -1
        self._redo.append(move)
        self._version += 1
        return move

    def redo(self) -> Move:
        """Play again the last move taken back; returns it."""
        if not self._redo:
            raise IndexError("there is no move to redo")
        move = self._redo[-1]
        self.push(move)
        return move

    def peek_move(self) -> Move:
        """The last move played."""
        return self.move_stack[-1]

    # ------------------------------------------------------------------
    # OpenSpiel-style actions

    @property
    def action_count(self) -> int:
        """The size of the fixed action space of these rules (see
        :func:`action_moves`); every action is an int in ``range(action_count)``.

        >>> Board.from_number(1).action_count
        96
        """
        return len(action_moves(self.rules))

    def legal_actions(self) -> list[int]:
        """The legal moves as action numbers, in increasing order.

        >>> Board.from_number(1).legal_actions()
        [0, 1, 2]
        """
        index = _action_index(self.rules)
        return sorted(index[move] for move in self.generate_legal_moves())

    def action_to_move(self, action: int) -> Move:
        """The move an action number stands for (legal or not).

        >>> board = Board.from_number(1)
        >>> board.action_to_move(3), board.action_to_move(95)
        (Move.parse('rf'), Move.parse('s'))
        """
        moves = action_moves(self.rules)
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(moves):
            raise InvalidMoveError(f"{action!r} is not an action: actions run from 0 to {len(moves) - 1}")
        return moves[action]

    def move_to_action(self, move: Move) -> int:
        """The action number of ``move``; ``<src>f<n>`` counts as ``<src>f``
        since foundations are interchangeable.

        >>> board = Board.from_number(1)
        >>> board.move_to_action(Move.parse("wf3")) == board.move_to_action(Move.parse("wf"))
        True
        """
        if move.target == FOUNDATION and move.target_index:
            move = Move(move.source, move.source_index, FOUNDATION)
        action = _action_index(self.rules).get(move)
        if action is None:
            raise InvalidMoveError(f"{move} has no action in these rules: it can never be legal")
        return action

    def apply_action(self, action: int) -> None:
        """Play the move of an action number (see :meth:`push`).

        >>> board = Board.from_number(1)
        >>> board.apply_action(1)
        >>> board.move_stack
        [Move.parse('c2')]
        """
        self.push(self.action_to_move(action))

    # ------------------------------------------------------------------
    # Position strings

    def position(self) -> str:
        """A string that describes the position exactly (not the history).

        Seven space-separated fields: base rank (``?`` while choosing),
        reserve (deepest first), foundations (comma-separated), tableau piles
        (comma-separated, bottom first), waste (bottom first), stock (next
        card first), redeals used. ``-`` stands for an empty reserve, waste
        or stock.
        """

        def run(cards: list[Card]) -> str:
            return "".join(CODE[c] for c in cards)

        return " ".join(
            [
                "?" if self.choosing else RANKS[self.base_rank],
                run(self.reserve) or "-",
                ",".join(run(f) for f in self.foundations) or "-",
                ",".join(run(p) for p in self.tableau) or "-",
                run(self.waste) or "-",
                run(self.stock[::-1]) or "-",
                str(self.redeals_used),
            ]
        )

    @classmethod
    def from_position(cls, text: str, rules: Rules | None = None) -> Board:
        """The board a :meth:`position` string describes, fully checked."""
        rules = rules or Rules()
        if not isinstance(text, str):
            raise InvalidPositionError("a position must be a string")
        fields = text.split()
        if len(fields) != 7:
            raise InvalidPositionError(
                f"a position has 7 space-separated fields, this one has {len(fields)}"
            )
        base_text, reserve, foundations, tableau, waste, stock, redeals = fields
        board = cls.__new__(cls)
        board.rules = rules
        board.deal = None
        board.move_stack, board._undo, board._redo = [], [], []
        if base_text == "?":
            board.base_rank = -1
        elif len(base_text) == 1 and base_text.upper() in RANKS:
            board.base_rank = RANKS.index(base_text.upper())
        else:
            raise InvalidPositionError(f"{base_text!r} is not a base rank (or ? while choosing)")
        board.reserve = _read_run(reserve, "the reserve")
        board.foundations = [
            _read_run(part, f"foundation {i + 1}") for i, part in enumerate(foundations.split(","))
        ]
        board.tableau = [_read_run(part, f"pile {i + 1}") for i, part in enumerate(tableau.split(","))]
        board.waste = _read_run(waste, "the waste")
        board.stock = _read_run(stock, "the stock")[::-1]
        if not redeals.isdigit():
            raise InvalidPositionError(f"{redeals!r} is not a number of redeals used")
        board.redeals_used = int(redeals)
        board._version, board._legal_version, board._legal = 0, -1, []
        board._check_position()
        return board

    def _check_position(self) -> None:
        rules = self.rules
        fail = InvalidPositionError
        if len(self.foundations) != rules.foundation_count:
            raise fail(
                f"these rules have {rules.foundation_count} foundations, "
                f"the position has {len(self.foundations)}"
            )
        if len(self.tableau) != rules.piles:
            raise fail(f"these rules have {rules.piles} piles, the position has {len(self.tableau)}")
        if len(self.reserve) > rules.reserve:
            raise fail(f"the reserve holds at most {rules.reserve} cards")
        if self.redeals_used > rules.redeals:
            raise fail(f"these rules allow {rules.redeals} redeals, not {self.redeals_used}")
        everything = Counter(
            self.reserve + self.waste + self.stock
            + [c for f in self.foundations for c in f]
            + [c for p in self.tableau for c in p]
        )
        if everything != Counter(full_pack(rules.decks)):
            raise fail(f"the position must hold each card of the {rules.decks} decks exactly once per deck")
        for number, pile in enumerate(self.tableau, 1):
            for below, above in pairwise(pile):
                if RANK[above] != (RANK[below] + 12) % 13 or RED[above] == RED[below]:
                    raise fail(f"pile {number} is not built down in alternating colours")
        if self.choosing:
            k = rules.candidates
            if (
                k == 0
                or self.waste
                or any(self.foundations)
                or any(len(p) != 1 for p in self.tableau[:k])
                or any(self.tableau[k:])
                or len(self.reserve) != rules.reserve
            ):
                raise fail("a position before the choice has only the deal's candidates out")
            return
        if not self.foundations[0]:
            raise fail("foundation 1 always holds the base card once the game has started")
        for number, f in enumerate(self.foundations, 1):
            if len(f) > FOUNDATION_SIZE:
                raise fail(f"foundation {number} holds more than {FOUNDATION_SIZE} cards")
            if f and RANK[f[0]] != self.base_rank:
                raise fail(f"foundation {number} does not start with the base rank")
            for below, above in pairwise(f):
                ok = RANK[above] == (RANK[below] + 1) % 13 and (
                    SUIT[above] == SUIT[below] if rules.in_suit else RED[above] != RED[below]
                )
                if not ok:
                    raise fail(f"foundation {number} is not built up by the rules")
        if rules.spaces is SpaceRule.AUTO and (self.waste or self.stock) and not all(self.tableau):
            raise fail("with automatic spaces a pile is empty only when waste and stock are")

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
        """The visible position as JSON values (the stock is face down, so
        only its size is given)."""

        def codes(cards: list[Card]) -> list[str]:
            return [CODE[c] for c in cards]

        return {
            "status": self.status.value,
            "base_rank": None if self.choosing else RANKS[self.base_rank],
            "reserve": codes(self.reserve),
            "waste": codes(self.waste),
            "stock": len(self.stock),
            "foundations": [codes(f) for f in self.foundations],
            "tableau": [codes(p) for p in self.tableau],
            "candidates": codes(self.candidates()),
            "redeals_left": self.rules.redeals - self.redeals_used,
        }

    def __str__(self) -> str:
        def run(cards: list[Card]) -> str:
            return " ".join(CODE[c] for c in cards)

        c = self.counters()
        base = c["base_rank"] or "?"
        lines = [
            f"base {base}  foundations {c['foundation_cards']}/{c['total_cards']}  "
            f"reserve {c['reserve']}  stock {c['stock']}  waste {c['waste']}  "
            f"tableau {c['tableau']}  moves {c['moves']}  [{self.status.value}]",
            "reserve  " + _show_top(self.reserve, len(self.reserve)),
            "found.   " + "  ".join(
                f"{i}:" + (CODE[f[-1]] + (f"({len(f)})" if len(f) > 1 else "") if f else "--")
                for i, f in enumerate(self.foundations, 1)
            ),
            f"stock    {len(self.stock)}  waste  " + _show_top(self.waste, 5),
        ]
        for i, pile in enumerate(self.tableau, 1):
            lines.append(f"t{i:<7} {run(pile) or '--'}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board.from_position({self.position()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.rules == other.rules and self.position() == other.position()

    __hash__ = None  # type: ignore[assignment]


def _show_top(cards: list[Card], shown: int) -> str:
    """The last ``shown`` cards, the playable one in brackets."""
    if not cards:
        return "-"
    return " ".join([*(CODE[c] for c in cards[-shown:-1]), f"[{CODE[cards[-1]]}]"])


def _place(move: Move) -> str:
    if move.source in (TABLEAU, FOUNDATION):
        return f"{move.source}{move.source_index}"
    return move.source


def _read_run(text: str, what: str) -> list[Card]:
    if text == "-":
        return []
    if len(text) % 2:
        raise InvalidPositionError(f"{what}: card codes are two characters each")
    try:
        return [parse_card(text[i:i + 2]) for i in range(0, len(text), 2)]
    except InvalidCardError as error:
        raise InvalidPositionError(f"{what}: {error}") from None


_CHOICES = [Move.choose(i + 1) for i in range(64)]


class _MoveTable(dict[tuple[int, int, int, int], Move]):
    """Interned play moves keyed by (source area, index, target area, index)."""

    def __missing__(self, key: tuple[int, int, int, int]) -> Move:
        source, src_index, target, dst_index = key
        letter = {_R: RESERVE, _W: WASTE, _T: TABLEAU, _F: FOUNDATION}
        move = Move(
            letter[source],
            src_index + 1 if source in (_T, _F) else 0,
            letter[target],
            dst_index + 1 if dst_index >= 0 else 0,
        )
        self[key] = move
        return move


_PLAY = _MoveTable()


@lru_cache(maxsize=64)
def action_moves(rules: Rules) -> tuple[Move, ...]:
    """The fixed action space of ``rules``: action ``a`` is move
    ``action_moves(rules)[a]``. In order: the choices ``c1..ck``, one
    foundation move per source (``rf``, ``wf``, ``t1f``...), waste to each
    pile, each pile to each other pile, foundation returns ``f<i>t<j>``
    (only with foundation-return), and the draw ``s`` last. The order
    matches the order in which legal moves are generated.

    >>> [str(m) for m in action_moves(Rules(piles=2, candidates=1))]
    ['c1', 'rf', 'wf', 't1f', 't2f', 'wt1', 'wt2', 't1t2', 't2t1', 's']
    """
    piles = rules.piles
    moves = [Move.choose(i + 1) for i in range(rules.candidates)]
    moves += [_PLAY[(_R, 0, _F, -1)], _PLAY[(_W, 0, _F, -1)]]
    moves += [_PLAY[(_T, i, _F, -1)] for i in range(piles)]
    moves += [_PLAY[(_W, 0, _T, j)] for j in range(piles)]
    moves += [_PLAY[(_T, i, _T, j)] for i in range(piles) for j in range(piles) if i != j]
    if rules.foundation_return:
        moves += [
            _PLAY[(_F, i, _T, j)] for i in range(rules.foundation_count) for j in range(piles)
        ]
    moves.append(DRAW_MOVE)
    return tuple(moves)


@lru_cache(maxsize=64)
def _action_index(rules: Rules) -> dict[Move, int]:
    return {move: action for action, move in enumerate(action_moves(rules))}


# Lookup tables for move generation. A card's *key* says what it is to a
# foundation: rank and colour (alternate) or the card itself (in suit).
_COLOUR_KEY: tuple[int, ...] = tuple(RANK[c] * 2 + RED[c] for c in range(52))
_SUIT_KEY: tuple[int, ...] = tuple(range(52))
# The key of the card a foundation with this top card takes next ...
_COLOUR_AFTER: tuple[int, ...] = tuple((RANK[c] + 1) % 13 * 2 + (not RED[c]) for c in range(52))
_SUIT_AFTER: tuple[int, ...] = tuple((RANK[c] + 1) % 13 * 4 + SUIT[c] for c in range(52))
# ... and the colour key of the card a pile with this top card takes.
_BELOW_KEY: tuple[int, ...] = tuple((RANK[c] + 12) % 13 * 2 + (not RED[c]) for c in range(52))

_MAX_PILES = 20
_MAX_FOUNDATIONS = 32
_RF = _PLAY[(_R, 0, _F, -1)]
_WF = _PLAY[(_W, 0, _F, -1)]
_TF = [_PLAY[(_T, i, _F, -1)] for i in range(_MAX_PILES)]
_WT = [_PLAY[(_W, 0, _T, j)] for j in range(_MAX_PILES)]
_TT = [[_PLAY[(_T, i, _T, j)] if i != j else DRAW_MOVE for j in range(_MAX_PILES)] for i in range(_MAX_PILES)]
_FT = [[_PLAY[(_F, i, _T, j)] for j in range(_MAX_PILES)] for i in range(_MAX_FOUNDATIONS)]
