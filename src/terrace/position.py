"""The cards of a position and their text forms, without moves.

:class:`BaseBoard` holds where every card lies and writes and reads it:
the position string, the drawing for a terminal, the JSON for a page, and
the checks that a position read from text can happen in a game.
:class:`~terrace.board.Board` adds the legal moves, the move history and
push/pop on top (as python-chess layers ``Board`` over ``BaseBoard``).

>>> from terrace.variants import get_rules
>>> from terrace.deal import COUNTED_WORDS, Deal, given_deal
>>> rules = get_rules("falling-star")
>>> base = BaseBoard(rules, Deal.from_number(1, rules))
>>> base.position().split()[0], len(base.reserve), base.choosing
('J', 11, False)
>>> BaseBoard.from_position(base.position(), rules).layout() == base.layout()
True
"""

from __future__ import annotations

import re
from collections import Counter
from enum import StrEnum
from itertools import pairwise
from typing import Any, Self

from terrace.building import FOUNDATION_SIZE, builds_down, builds_up, starts
from terrace.cards import CODE, RANK, RANKS, Card, parse_card, word_count, wrong_copies
from terrace.deal import COUNTED_WORDS, Deal, given_deal
from terrace.errors import InvalidCardError, InvalidPositionError
from terrace.moves import CHOOSE, FOUNDATION, RESERVE, SPACES, TABLEAU, WASTE, Move, given_move
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.rules import Rules, SpaceRule, given_rules
from terrace.whole import as_whole, digits_value

POSITION_FIELDS = 7
"""Space-separated fields of a position string."""
_FIELD_GAP = re.compile(f"[{re.escape(SPACES)}]+")
"""What separates the fields of a position string when it is read."""


class Status(StrEnum):
    """Where a game stands."""

    CHOOSING = "choosing"
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


class BaseBoard:
    """Where the cards of a Terrace-family game lie.

    Piles, foundations and candidates are numbered from 1 in moves and from
    0 in the lists below. ``stock[-1]`` is the next card to be drawn;
    ``reserve[-1]`` and ``waste[-1]`` are the playable cards.
    ``base_rank`` is -1 until the base card is chosen.
    """

    rules: Rules
    deal: Deal | None
    reserve: list[Card]
    stock: list[Card]
    waste: list[Card]
    tableau: list[list[Card]]
    foundations: list[list[Card]]
    base_rank: int
    redeals_used: int

    def __init__(self, rules: Rules | None = None, deal: Deal | None = None) -> None:
        """The starting position of ``deal`` (deal 1 by default)."""
        self.rules = given_rules(rules)
        if deal is None:
            deal = Deal.from_number(1, self.rules)
        else:
            given_deal(deal, "Board.from_deal_text(text, rules)").check(self.rules)
        self.deal = deal
        self.redeals_used = 0
        self.foundations = [[] for _ in range(self.rules.foundation_count)]
        self.tableau = [[] for _ in range(self.rules.piles)]
        self.waste = []
        cards = list(deal.cards)
        self.reserve = cards[: self.rules.reserve]
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
        self.stock = rest

    def _copy_cards_to(self, other: BaseBoard) -> None:
        """Give ``other`` copies of every pile of this position."""
        other.rules = self.rules
        other.deal = self.deal
        other.reserve = self.reserve[:]
        other.stock = self.stock[:]
        other.waste = self.waste[:]
        other.tableau = [pile[:] for pile in self.tableau]
        other.foundations = [f[:] for f in self.foundations]
        other.base_rank = self.base_rank
        other.redeals_used = self.redeals_used

    # ------------------------------------------------------------------
    # Queries

    @property
    def choosing(self) -> bool:
        """True until the base card has been chosen."""
        return self.base_rank < 0

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

    def candidates(self) -> list[Card]:
        """The candidate cards while choosing (pile order), else empty."""
        if not self.choosing:
            return []
        return [self.tableau[i][-1] for i in range(self.rules.candidates)]

    def peek(self, move: Move) -> Card | None:
        """The card ``move`` would move, if its source holds one."""
        area = given_move(move, "peek").source
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
    # Position strings

    def position(self, hidden: int = 0) -> str:
        """A string that describes the position exactly (not the history).

        Seven space-separated fields: base rank (``?`` while choosing),
        reserve (deepest first), foundations (comma-separated), tableau piles
        (comma-separated, bottom first), waste (bottom first), stock (next
        card first), redeals used. ``-`` stands for an empty reserve, waste
        or stock. With ``hidden``, the lowest ``hidden`` stock cards (those
        a player has not seen) are written ``??`` each.
        """

        def run(cards: list[Card]) -> str:
            return "".join(CODE[c] for c in cards)

        hidden = self._hidden_count(hidden)
        return " ".join(
            [
                "?" if self.choosing else RANKS[self.base_rank],
                run(self.reserve) or "-",
                ",".join(run(f) for f in self.foundations) or "-",
                ",".join(run(p) for p in self.tableau) or "-",
                run(self.waste) or "-",
                run(self.stock[hidden:][::-1]) + "??" * hidden or "-",
                str(self.redeals_used),
            ]
        )

    def _hidden_count(self, hidden: object) -> int:
        """``hidden`` as a number of stock cards (any whole number type),
        else a :class:`ValueError`."""
        count = as_whole(hidden)
        if count is None or not 0 <= count <= len(self.stock):
            most = len(self.stock)
            raise ValueError(f"hidden is a number of stock cards, 0 to {most}, not {quote(hidden)}")
        return count

    def position_key(self, *, stock: bool = True) -> tuple[object, ...]:
        """What :meth:`position` says, as tuples, which are far cheaper to
        build (a position string of 8 decks takes 0.15 ms): for boards of
        the same rules, equal exactly when their positions are.

        With ``stock=False`` the stock counts by its size alone, which tells
        the positions of one line of play apart all the same (of one game,
        no move taken back in between): the stock changes only by a draw, a
        fill from it or a redeal, and each makes it smaller or counts a
        redeal, so two positions of the line with as many stock cards and
        redeals have the same stock. It spares a tuple of the stock, most of
        a key of 8 decks.

        >>> from terrace.board import Board
        >>> Board.from_number(3).position_key() == Board.from_number(3).position_key()
        True
        """
        return (None if self.choosing else self.base_rank, tuple(self.reserve),
                tuple(map(tuple, self.foundations)), tuple(map(tuple, self.tableau)),
                tuple(self.waste), tuple(self.stock) if stock else len(self.stock), self.redeals_used)

    @classmethod
    def from_position(cls, text: str, rules: Rules | None = None) -> Self:
        """The board a :meth:`position` string describes, fully checked."""
        rules = given_rules(rules)
        if not isinstance(text, str):
            raise InvalidPositionError(Reason(Refusal.POSITION_NOT_TEXT))
        # (a huge text is counted, not split; ASCII white space only, as between moves)
        stripped = text.strip(SPACES)
        fields = _FIELD_GAP.split(stripped, maxsplit=POSITION_FIELDS) if stripped else []
        if len(fields) != POSITION_FIELDS:
            count = len(fields) if len(fields) < POSITION_FIELDS else word_count(text, SPACES, COUNTED_WORDS)
            reason = (Reason(Refusal.POSITION_FIELDS_MANY, fields=POSITION_FIELDS, most=COUNTED_WORDS)
                      if count > COUNTED_WORDS else Reason(Refusal.POSITION_FIELDS, fields=POSITION_FIELDS,
                                                             count=count))
            raise InvalidPositionError(reason)
        base_text, reserve, foundations, tableau, waste, stock, redeals = fields
        board = cls.__new__(cls)
        board.rules = rules
        board.deal = None
        if base_text == "?":
            board.base_rank = -1
        elif len(base_text) == 1 and base_text.upper() in RANKS:
            board.base_rank = RANKS.index(base_text.upper())
        else:
            raise InvalidPositionError(Reason(Refusal.POSITION_BASE, text=clip(base_text)))
        # the counts first: ten million commas must not make ten million piles
        counts = foundations.count(",") + 1, tableau.count(",") + 1
        if counts[0] != rules.foundation_count:
            raise InvalidPositionError(
                Reason(Refusal.POSITION_FOUNDATION_COUNT, expected=rules.foundation_count, count=counts[0]))
        if counts[1] != rules.piles:
            raise InvalidPositionError(
                Reason(Refusal.POSITION_PILE_COUNT, expected=rules.piles, count=counts[1]))
        founds, piles = foundations.split(","), tableau.split(",")
        # and more cards than the packs hold are not read one by one
        if sum(len(run) // 2 for run in (reserve, *founds, *piles, waste, stock)) > rules.card_count:
            reason = Reason(Refusal.POSITION_CARDS, cards=rules.card_count, decks=rules.decks)
            raise InvalidPositionError(reason)
        board.reserve = _read_run(reserve, "r")
        # ('-' is a whole empty field; one empty pile among others is nothing between commas)
        board.foundations = [_read_run(part, f"f{i}", len(founds) == 1) for i, part in enumerate(founds, 1)]
        board.tableau = [_read_run(part, f"t{i}", len(piles) == 1) for i, part in enumerate(piles, 1)]
        board.waste = _read_run(waste, "w")
        board.stock = _read_run(stock, "s")[::-1]
        used = digits_value(redeals, 9)
        if used is None:
            raise InvalidPositionError(Reason(Refusal.POSITION_REDEALS_TEXT, text=clip(redeals)))
        board.redeals_used = used
        board._check_position()
        board._start_history()
        return board

    def _start_history(self) -> None:
        """Set up what a subclass keeps beside the cards (nothing here)."""

    def _check_position(self) -> None:
        problem = self.position_problem()
        if problem is not None:
            raise InvalidPositionError(problem)

    def position_problem(self) -> Reason | None:
        """Why no game can reach this position, or None when one can."""
        rules = self.rules
        if len(self.foundations) != rules.foundation_count:
            expected, count = rules.foundation_count, len(self.foundations)
            return Reason(Refusal.POSITION_FOUNDATION_COUNT, expected=expected, count=count)
        if len(self.tableau) != rules.piles:
            return Reason(Refusal.POSITION_PILE_COUNT, expected=rules.piles, count=len(self.tableau))
        if len(self.reserve) > rules.reserve:
            return Reason(Refusal.POSITION_RESERVE_SIZE, most=rules.reserve)
        if self.redeals_used > rules.redeals:
            return Reason(Refusal.POSITION_REDEALS, allowed=rules.redeals, used=self.redeals_used)
        everything = Counter(
            self.reserve + self.waste + self.stock
            + [c for f in self.foundations for c in f]
            + [c for p in self.tableau for c in p]
        )
        card = wrong_copies(everything, rules.decks)
        if card is not None:
            code = Refusal.POSITION_COPIES if rules.decks > 1 else Refusal.POSITION_COPIES_ONE_DECK
            return Reason(code, have=everything[card], card=CODE[card], decks=rules.decks)
        for number, pile in enumerate(self.tableau, 1):
            if not all(builds_down(below, above) for below, above in pairwise(pile)):
                return Reason(Refusal.POSITION_PILE_ORDER, pile=number)
        if self.choosing:
            return self._choice_problem()
        if not self.foundations[0]:
            return Reason(Refusal.POSITION_NO_BASE)
        for number, f in enumerate(self.foundations, 1):
            if len(f) > FOUNDATION_SIZE:
                return Reason(Refusal.POSITION_FOUNDATION_SIZE, foundation=number, size=FOUNDATION_SIZE)
            if f and not starts(f[0], self.base_rank):
                return Reason(Refusal.POSITION_FOUNDATION_BASE, foundation=number)
            if not all(builds_up(below, above, in_suit=rules.in_suit) for below, above in pairwise(f)):
                return Reason(Refusal.POSITION_FOUNDATION_ORDER, foundation=number)
        if rules.spaces is SpaceRule.AUTO and (self.waste or self.stock) and not all(self.tableau):
            return Reason(Refusal.POSITION_AUTO_SPACE)
        return None

    def _choice_problem(self) -> Reason | None:
        """Before the choice only the candidates are out, and no pass through
        the stock has been used (no draw comes before the choice)."""
        k = self.rules.candidates
        if (
            k == 0
            or self.redeals_used
            or self.waste
            or any(self.foundations)
            or any(len(p) != 1 for p in self.tableau[:k])
            or any(self.tableau[k:])
            or len(self.reserve) != self.rules.reserve
        ):
            return Reason(Refusal.POSITION_BEFORE_CHOICE)
        return None

    # ------------------------------------------------------------------
    # Presentation

    def layout(self) -> dict[str, Any]:
        """The visible cards as JSON values (the stock is face down, so only
        its size is given)."""

        def codes(cards: list[Card]) -> list[str]:
            return [CODE[c] for c in cards]

        return {
            "base_rank": None if self.choosing else RANKS[self.base_rank],
            "reserve": codes(self.reserve),
            "waste": codes(self.waste),
            "stock": len(self.stock),
            "foundations": [codes(f) for f in self.foundations],
            "tableau": [codes(p) for p in self.tableau],
            "candidates": codes(self.candidates()),
            "redeals_left": self.rules.redeals - self.redeals_used,
        }

    def drawing(self) -> list[str]:
        """The piles as lines of text: reserve, foundations, stock and waste,
        then one line per tableau pile."""

        def run(cards: list[Card]) -> str:
            return " ".join(CODE[c] for c in cards)

        lines = [
            "reserve  " + _show_top(self.reserve, len(self.reserve)),
            "found.   " + "  ".join(
                f"{i}:" + (CODE[f[-1]] + (f"({len(f)})" if len(f) > 1 else "") if f else "--")
                for i, f in enumerate(self.foundations, 1)
            ),
            f"stock    {len(self.stock)}  waste  " + _show_top(self.waste, 5),
        ]
        for i, pile in enumerate(self.tableau, 1):
            lines.append(f"t{i:<7} {run(pile) or '--'}")
        return lines

    def __str__(self) -> str:
        return "\n".join(self.drawing())

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_position({self.position()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseBoard):
            return NotImplemented
        return self.rules == other.rules and self.position() == other.position()

    __hash__ = None  # type: ignore[assignment]


def _show_top(cards: list[Card], shown: int) -> str:
    """The last ``shown`` cards, the playable one in brackets."""
    if not cards:
        return "-"
    return " ".join([*(CODE[c] for c in cards[-shown:-1]), f"[{CODE[cards[-1]]}]"])


def _read_run(text: str, place: str, dash: bool = True) -> list[Card]:
    """The cards of one field of a position string (``place`` as in
    :class:`~terrace.refusals.Reason` parameters: ``r``, ``f3``, ``t2``...);
    ``dash``: ``-`` stands for no card."""
    if text == "-" and dash:
        return []
    if len(text) % 2 and text != "-":  # (a '-' where no dash may stand is no card)
        raise InvalidPositionError(Reason(Refusal.POSITION_RUN_ODD, place=place))
    try:
        return [parse_card(text[i:i + 2]) for i in range(0, len(text), 2)]
    except InvalidCardError as error:
        reason = Reason(Refusal.POSITION_RUN_CARD, place=place, problem=error.why)
        raise InvalidPositionError(reason) from None
