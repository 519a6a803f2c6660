"""What a player sees: the one door from a :class:`Board` to a fair player.

An :class:`Observation` holds the terrace, the foundations, the tableau,
the waste, the base rank, the redeals used, how many cards the stock holds,
and which cards have not been seen yet (a sorted multiset: never their
order). A player with perfect memory also knows part of the stock's order:
after a redeal the stock is the old waste turned over, so every card in it
is known, and a draw that was taken back showed its card. Nothing else of
the stock is in an observation, so a player that receives only
observations cannot peek. :func:`observe` is the only function that reads
a board's stock.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(3, get_rules("falling-star"))
>>> seen = observe(board)
>>> seen.stock_size == len(board.stock) and len(seen.unseen) == seen.stock_size
True
>>> seen.stock.count(None) == seen.stock_size   # nothing of the stock is known yet
True
>>> board.push_text("s")
Move.parse('s')
>>> board.pop()
Move.parse('s')
>>> observe(board).stock[-1] == board.stock[-1]  # the card seen before stays known
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from terrace.board import Board, given_board
from terrace.cards import CODE, RANKS, Card
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.rules import Rules, SpaceRule
from terrace.solver.budget import check_nodes
from terrace.solver.history import LOOKBACK, Key, quiet_returns, same_pass_keys
from terrace.solver.safe import safe_moves
from terrace.solver.tables import slot_keys

Cards = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Observation:
    """One position as a player sees it (see the module docstring).

    ``stock`` lists the stock bottom first (``stock[-1]`` is drawn next),
    with ``None`` for a face-down card whose identity is unknown; ``unseen``
    is the sorted multiset of those cards. ``legal`` are the legal moves;
    ``moves`` those of them that lead to a position not seen before in this
    game (drawing always does), so a player that picks from ``moves`` never
    loops; ``returns`` those of ``moves`` that undo the game's last move
    touching either pile exactly, no card having turned up from the stock
    since that move was chosen (nothing learnt: the two moves together
    achieve nothing; :func:`~terrace.solver.history.quiet_returns`).
    """

    rules: Rules
    base_rank: int
    reserve: Cards
    foundations: tuple[Cards, ...]
    tableau: tuple[Cards, ...]
    waste: Cards
    stock: tuple[Card | None, ...]
    unseen: Cards
    redeals_used: int
    legal: tuple[Move, ...]
    moves: tuple[Move, ...]
    returns: tuple[Move, ...] = ()
    _canonical: list[Board] = field(default_factory=list, compare=False, repr=False)

    @property
    def stock_size(self) -> int:
        """Cards in the stock."""
        return len(self.stock)

    @property
    def forced(self) -> bool:
        """True when every stock order the player cannot rule out plays the
        same game: at most one card unseen, or copies of cards the rules
        cannot tell apart (:func:`one_kind`). The solver's verdict on
        :meth:`board` is then the verdict on every one of them."""
        return one_kind(self.unseen, self.rules)

    @property
    def choosing(self) -> bool:
        """True until the base card has been chosen."""
        return self.base_rank < 0

    def key(self) -> str:
        """The visible position as text (the stock by its size and known
        cards). Two positions of one game with the same key are the same."""
        return visible_key(self.position(["??"] * self.stock.count(None)))

    def position(self, hidden: Sequence[Card | str]) -> str:
        """A :meth:`Board.position` string with the unknown stock cards
        taken from ``hidden`` (in the order they lie, bottom first)."""
        fill = iter(hidden)
        stock = [next(fill) if c is None else c for c in self.stock]

        def run(cards: Sequence[Card | str]) -> str:
            return "".join(c if isinstance(c, str) else CODE[c] for c in cards) or "-"

        return " ".join([
            "?" if self.choosing else RANKS[self.base_rank],
            run(self.reserve),
            ",".join(run(f) if f else "" for f in self.foundations) or "-",
            ",".join(run(p) if p else "" for p in self.tableau) or "-",
            run(self.waste),
            run(stock[::-1]),
            str(self.redeals_used),
        ])

    def determinise(self, order: Sequence[Card]) -> Board:
        """The board in which the unknown stock cards lie in ``order``
        (bottom first), which must be a permutation of ``unseen``."""
        if sorted(order) != list(self.unseen):
            raise ValueError("a determinisation must place exactly the unseen cards")
        return self._placed(order)

    def sample(self, rng: random.Random) -> Board:
        """A board whose unknown stock cards lie in a random order: one
        stock order consistent with everything the player has seen."""
        order = list(self.unseen)
        rng.shuffle(order)
        return self._placed(order)

    def _placed(self, order: Sequence[Card]) -> Board:
        """:meth:`board` with its unknown stock cards in ``order`` (a
        permutation of ``unseen``): a copy with another stock order, not a
        position string read again (four decks: 0.3-0.5 ms a sample, most of
        a fair hint of 64 samples of 200 positions)."""
        board = self.board().copy(stack=False)
        fill = iter(order)
        board.stock = [next(fill) if c is None else c for c in self.stock]
        return board

    def board(self) -> Board:
        """A fixed determinisation (unknown cards in sorted order) for
        working out the visible effect of moves; never a guide to the stock.
        Do not change it: it is shared."""
        if not self._canonical:
            self._canonical.append(Board.from_position(self.position(self.unseen), self.rules))
        return self._canonical[0]

    def card(self, move: Move) -> Card | None:
        """The visible card ``move`` would move (None for a draw)."""
        return None if move.is_draw else self.board().peek(move)

    def reveals(self, move: Move) -> bool:
        """True when ``move`` may turn up a face-down card: a draw, a choice
        (the piles fill from the stock) or a refill of an emptied pile."""
        if move.is_draw or move.is_choice:
            return True
        return self.rules.spaces is SpaceRule.AUTO and move.source == "t" and (
            len(self.tableau[move.source_index - 1]) == 1 and not self.waste and bool(self.stock)
        )

    def uses_space(self, move: Move) -> bool:
        """True when ``move`` empties a pile or fills an empty one."""
        if move.source == "t" and len(self.tableau[move.source_index - 1]) == 1:
            return True
        return move.target == "t" and not self.tableau[move.target_index - 1]

    def safe_move(self) -> Move | None:
        """A foundation move that loses nothing whatever the stock holds (the
        solver's safe-foundation-move rule, docs/winnability.md), or None."""
        return _safe_move(self)


def one_kind(cards: Iterable[Card], rules: Rules) -> bool:
    """True when ``cards`` are all alike to ``rules``: copies of one card,
    or in a game built in alternate colours cards of one rank and colour
    (what the engine sees of a card there, as the solver's keys and its
    twins do: ``slot_keys``). Every order of them plays the same game.

    >>> from terrace.variants import get_rules
    >>> from terrace.cards import parse_card
    >>> hearts, diamonds = parse_card("5H"), parse_card("5D")
    >>> one_kind([hearts, diamonds], get_rules("terrace"))  # built in alternate colours
    True
    >>> one_kind([hearts, diamonds], get_rules("admirals-patience"))  # built in suit
    False
    >>> one_kind([hearts, hearts], get_rules("admirals-patience")), one_kind([], get_rules("terrace"))
    (True, True)
    """
    keys = slot_keys(rules.in_suit)
    return len({keys[card] for card in cards}) <= 1


def visible_key(position: str) -> str:
    """A position string with the stock field replaced by its size."""
    fields = position.split()
    stock = fields[5]
    fields[5] = str(0 if stock == "-" else len(stock) // 2)
    return " ".join(fields)


def observe(board: Board, shown: int | None = None) -> Observation:
    """What a player with perfect memory sees of ``board``'s game.

    The only function that reads a board's stock: known stock cards are those
    of a stock turned over from the waste and those a draw showed before it
    was taken back (the board's redo moves, and, with ``shown``, every
    stock card from that index on: the game's first stock, of which
    ``board.stock`` is the start while no redeal was made, once got down to
    ``shown`` cards, :func:`stock_shown`; moves that cleared the redo line
    do not make the player forget the cards their draws showed).
    """
    known_from = hidden_count(given_board(board, "observe"), shown)
    stock = board.stock
    seen_stock: list[Card | None] = [c if i >= known_from else None for i, c in enumerate(stock)]
    unseen = tuple(sorted(stock[:known_from]))
    legal = tuple(board.legal_moves)
    # (by position keys, not strings: within a pass the stock never changes, so two of its
    # positions look the same exactly when they are the same; a string of 8 decks took a
    # millisecond, and 2,000 of them a fair hint of a tenth of a second 1.6 s)
    visited = same_pass_keys(board)
    moves = tuple(m for m in legal if _fresh(board, m, visited))
    return Observation(
        rules=board.rules,
        base_rank=board.base_rank,
        reserve=tuple(board.reserve),
        foundations=tuple(tuple(f) for f in board.foundations),
        tableau=tuple(tuple(p) for p in board.tableau),
        waste=tuple(board.waste),
        stock=tuple(seen_stock),
        unseen=unseen,
        redeals_used=board.redeals_used,
        legal=legal,
        moves=moves,
        returns=quiet_returns(board, moves),
    )


def hidden_count(board: Board, shown: int | None = None) -> int:
    """How many of ``board``'s stock cards a player has not seen (the lowest
    ones: those :func:`observe` leaves ``None``, ``shown`` as there), found
    without walking back through the game.

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(3, get_rules("falling-star"))
    >>> hidden_count(board) == len(board.stock), hidden_count(board, shown=5)
    (True, 5)
    """
    board, shown = given_board(board, "hidden_count"), check_nodes(shown, "shown")
    known_from = 0 if board.redeals_used else _first_known(board)
    return known_from if shown is None else min(known_from, shown)


def _first_known(board: Board) -> int:
    """The lowest stock index a redo move has shown (``len(stock)`` if none),
    among the next :data:`LOOKBACK` redo moves: after a game of 100,000
    moves was taken back, redoing all of them cost every hint a second. A
    card shown further ahead counts as unseen (the player forgets it: a
    hint knows less, never more)."""
    lowest = len(board.stock)
    if not board.can_redo:
        return lowest
    copy = board.copy()
    for _ in range(LOOKBACK):
        if not copy.can_redo:
            break
        copy.redo()
        if copy.redeals_used:
            return 0
        lowest = min(lowest, len(copy.stock))
    return lowest


Event = tuple[str, str | None, int]
"""One change of a stored game as its event log keeps it: the action
(``create``, ``move``, ``undo``, ``redo``, ``restart``, ``import``, ...),
the move played, taken back or redone (or None), and how many moves were
played after it."""


def stock_shown(start: Board, events: Iterable[Event], until: float | None = None) -> int | None:
    """The fewest cards the first stock of a game held at any position the
    player stood at, read from the game's event log (``start`` is the deal):
    every stock card from that index on was shown face up, whatever was
    taken back since. 0 once a redeal was made (the whole stock was drawn
    first); None when the log shows no position (nothing to add to what the
    game's line shows). The log is read from a creation or a restart on
    (each puts the game at its start); after an import (the log of the
    game before it is not there) or a change that does not add up, nothing
    more is read until the next restart: what was read up to there stays
    known, and a hint never knows more than the log proves. ``until`` (a
    :func:`time.perf_counter` instant) stops the reading there, with what
    was read so far (a log of 100,000 moves takes more than a second).

    >>> from terrace.variants import get_rules
    >>> start = Board.from_number(4, get_rules("falling-star"))
    >>> size = len(start.stock)
    >>> log = [("create", None, 0), ("move", "s", 1), ("undo", "s", 0), ("move", "t1t2", 1)]
    >>> stock_shown(start, log) == size - 1
    True
    """
    lowest: int | None = None
    board: Board | None = None
    for index, (action, text, count) in enumerate(events):
        if until is not None and index % 256 == 0 and time.perf_counter() >= until:
            break
        if action in ("create", "restart"):
            board = start.copy(stack=False)
        elif action in ("import", "join"):  # (an import, or one that joined a state: storage's JOINED)
            board = None  # (the moves before an import are not in this log)
        if board is None:
            continue
        if not isinstance(count, int) or isinstance(count, bool):
            board = None  # (a log that does not add up: nothing more is read from it)
            continue
        try:
            if action in ("move", "redo") and text is not None and count == len(board.move_stack) + 1:
                board.push(Move.parse(text))
            elif action == "undo" and 0 <= count < len(board.move_stack):
                while len(board.move_stack) > count:
                    board.pop()
            elif action in ("move", "redo", "undo"):
                board = None  # (a log that does not add up: nothing more is read from it)
                continue
        except (TerraceError, ValueError):
            board = None
            continue
        size = 0 if board.redeals_used else len(board.stock)
        lowest = size if lowest is None else min(lowest, size)
    return lowest


def _fresh(board: Board, move: Move, visited: AbstractSet[Key]) -> bool:
    """True when ``move`` leads to a position not in ``visited`` (the
    position keys of ``board``'s pass): a move that changes the stock
    starts another pass."""
    if move.is_draw or move.is_choice:
        return True
    after = board.copy(stack=False)
    after.push(move)
    if len(after.stock) != len(board.stock) or after.redeals_used != board.redeals_used:
        return True
    return after.position_key() not in visited


def _safe_move(obs: Observation) -> Move | None:
    # The rule looks at the foundations and the exposed cards only, never at
    # the order of the stock, so any determinisation answers for all.
    moves = safe_moves(obs.board())
    return moves[0] if moves else None
