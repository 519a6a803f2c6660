"""The earlier positions of a game that play from now on could reach again.

The stock only shrinks within a pass, and a redeal only adds to the
redeals used, so a position with another stock size or another count of
redeals can never come back: walking the game backwards, the first such
position ends the walk. Hints and the fair player avoid the positions
found, so that following them always ends the game.

A game that moves one card to and fro a hundred thousand times never
draws; the walk then stops after :data:`LOOKBACK` positions, so that it
costs a bounded time (a few hundredths of a second: :func:`observe` calls it
at every step of a fair player's game) whatever was played. Past that many
moves without a draw, a position may be suggested again.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(4, get_rules("falling-star"))
>>> board.push_text("s")
Move.parse('s')
>>> len(same_pass_positions(board))   # the start had one stock card more
1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from terrace.board import Board
from terrace.bounded import Bounded
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.lines import touches

LOOKBACK = 2_000
"""The most earlier positions a walk back through a game looks at."""


def pass_stage(board: Board) -> tuple[int, int]:
    """How far play is through the stock: redeals used, then cards drawn
    (as minus the stock's size). It never goes down, so no position of a
    later stage is one of an earlier stage.

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(4, get_rules("falling-star"))
    >>> before = pass_stage(board)
    >>> board.push_text("s")
    Move.parse('s')
    >>> pass_stage(board) > before
    True
    """
    return board.redeals_used, -len(board.stock)


Key = tuple[object, ...]
"""A :meth:`Board.position_key`: equal for two boards of the same rules
exactly when their positions are, and far cheaper than the position string."""


def _same_pass_boards(board: Board, lookback: int) -> Iterator[Board]:
    """The game's earlier positions (``board``'s move stack taken back one
    move at a time, on a copy) of ``board``'s :func:`pass_stage`, the
    latest ``lookback`` of them at most; one board, changed between yields."""
    if not board.move_stack:
        return
    copy = board.copy()
    stage = pass_stage(board)
    for _ in range(lookback):
        if not copy.move_stack:
            break
        copy.pop()
        if pass_stage(copy) != stage:
            break
        yield copy


@dataclass(frozen=True, slots=True)
class _Walk:
    """A walk back :func:`same_pass_keys` made: the keys of the positions
    found, oldest first (the walk's own position last), how many times
    each, the moves and take-back records behind them (and the one before
    the oldest, when the walk stopped at another stage), and whether the
    game's kept moves ran out first. Never changed once made."""

    keys: tuple[Key, ...]
    counts: dict[Key, int]
    moves: tuple[Move, ...]
    undo: tuple[object, ...]
    start: bool


PASS_WALKS = 8
"""How many walks back (the latest, by the rules, the bound and the
position) :func:`same_pass_keys` remembers, to go on from one at the next
move of its game..."""
PASS_KEYS = 4 * LOOKBACK
"""... and how many positions' keys they hold in all (a key of four decks
holds some 200 cards)."""
_WALKS: Bounded[tuple[Rules, int, Key], _Walk] = Bounded(PASS_WALKS, PASS_KEYS, lambda walk: len(walk.keys))


def same_pass_keys(board: Board, lookback: int = LOOKBACK) -> AbstractSet[Key]:
    """:meth:`Board.position_key` of the positions
    :func:`same_pass_positions` finds (with the same ``lookback``). The
    walk back at a game's last position is remembered: at the next
    position of the game (one move more, the moves and take-backs behind
    it the same) it is that walk with one position more (and the oldest
    one past ``lookback`` left out), not a walk of up to ``lookback``
    positions again (each hint along a pass of 2,000 moves of Empress of
    Italy walked them all: 80 ms a hint that otherwise takes 1 ms)."""
    now = board.position_key()
    walk = _went_on(board, lookback, now)
    if walk is None:
        keys = [earlier.position_key() for earlier in _same_pass_boards(board, lookback)]
        keys.reverse()
        keys.append(now)
        counts: dict[Key, int] = dict(Counter(keys))
        start = len(keys) - 1 == len(board.move_stack) < lookback
        walk = _made(board, tuple(keys), counts, lookback, start)
    _WALKS.put((board.rules, lookback, now), walk)
    return walk.counts.keys()


def _made(board: Board, keys: tuple[Key, ...], counts: dict[Key, int], lookback: int, start: bool) -> _Walk:
    """The :class:`_Walk` of ``keys`` (oldest first) at ``board``, with the
    moves and take-back records behind them (and the one that came into
    the stage, when the walk stopped there)."""
    back, played = len(keys) - 1, len(board.move_stack)
    behind = back if start or back == lookback else back + 1
    return _Walk(keys, counts, tuple(board.move_stack[played - behind:]),
                 tuple(board._undo[played - behind:]), start and back < lookback)


def _went_on(board: Board, lookback: int, now: Key) -> _Walk | None:
    """The walk back from ``board`` (whose key is ``now``) made from the one
    remembered at the position one move before, when the game behind it
    is the same; else None."""
    played = len(board.move_stack)
    if not played or lookback < 1:
        return None
    before = board.copy(keep=1)
    before.pop()
    if pass_stage(before) != pass_stage(board):
        return None  # (a walk of one position: nothing to go on from)
    old = _WALKS.get((board.rules, lookback, before.position_key()))
    if old is None or (old.start and played != len(old.keys)):
        return None
    behind = len(old.moves)
    if (played < behind + 1 or tuple(board.move_stack[played - 1 - behind:played - 1]) != old.moves
            or tuple(board._undo[played - 1 - behind:played - 1]) != old.undo):
        return None
    counts = dict(old.counts)  # (a copy keeps the keys' hashes: none is worked out again)
    counts[now] = counts.get(now, 0) + 1
    keys = (*old.keys, now)
    if len(keys) > lookback + 1:
        gone, keys = keys[0], keys[1:]
        counts[gone] -= 1
        if not counts[gone]:
            del counts[gone]
    return _made(board, keys, counts, lookback, old.start)


def _unchanged(position: str) -> str:
    return position


def same_pass_positions(board: Board, key: Callable[[str], str] = _unchanged,
                        lookback: int = LOOKBACK) -> set[str]:
    """``key`` of :meth:`Board.position` for the current position and the
    earlier ones of the game (``board``'s move stack) of the same
    :func:`pass_stage`, the latest ``lookback`` of them at most."""
    keys = {key(board.position())}
    seen = {board.position_key()}
    for earlier in _same_pass_boards(board, lookback):
        cards = earlier.position_key()
        if cards not in seen:  # (a position string costs far more: 8 decks, 0.15 ms)
            seen.add(cards)
            keys.add(key(earlier.position()))
    return keys



def stage_moves(board: Board, lookback: int = LOOKBACK) -> list[Move]:
    """The game's latest moves (``board``'s move stack, the latest last, at
    most ``lookback``) that were made in ``board``'s :func:`pass_stage`:
    none of them showed a card from the stock (a draw, a redeal, or a
    space filled from the stock), so a player has learnt nothing since the
    first of them was chosen.

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(3, get_rules("falling-star"))
    >>> for text in ("t5t3", "t3t5"):   # pile 5 emptied: the stock fills it
    ...     _ = board.push_text(text)
    >>> [str(move) for move in stage_moves(board)]
    ['t3t5']
    """
    count = sum(1 for _ in _same_pass_boards(board, lookback))
    return list(board.move_stack[len(board.move_stack) - count:]) if count else []


def _undone(history: Sequence[Move], move: Move) -> int:
    """How many moves back from the end of ``history`` the last move
    touching either pile of ``move`` lies (0: the last move), when that move
    shifted a card from the pile ``move`` puts one on to the pile it takes
    one from; else -1."""
    if move.source != "t" or move.target != "t":
        return -1
    for back, earlier in enumerate(reversed(history)):
        if touches(earlier, move.source_index) or touches(earlier, move.target_index):
            piles = (earlier.source_index, earlier.target_index)
            same = earlier.source == earlier.target == "t" and piles == (move.target_index, move.source_index)
            return back if same else -1
    return -1


def returns_card(history: Sequence[Move], move: Move) -> bool:
    """True when ``move`` shifts a card straight back to the pile that the
    last move of ``history`` (the latest last) touching either pile took it
    from.

    >>> moves = [Move.parse(text) for text in ("t5t3", "s", "t7t8")]
    >>> returns_card(moves, Move.parse("t3t5")), returns_card(moves, Move.parse("t8t3"))
    (True, False)
    """
    return _undone(history, move) >= 0


def quiet_returns(board: Board, moves: Sequence[Move]) -> tuple[Move, ...]:
    """Those of ``moves`` that undo a move of ``board``'s game exactly with
    nothing learnt since it was chosen: the move shifts a card straight
    back (:func:`returns_card`) among the game's :func:`stage_moves`, and
    leaves the two piles as they were before the card left (not so when
    its leaving emptied a pile that the waste card then filled)."""
    candidates = [m for m in moves if m.source == m.target == "t"]
    recent = stage_moves(board) if candidates else []
    found = []
    for move in candidates:
        back = _undone(recent, move)
        if back < 0:
            continue
        before = board.copy(keep=back + 1)  # (only the moves it takes back)
        for _ in range(back + 1):
            before.pop()
        after = board.copy(stack=False)
        after.push(move)
        if all(before.tableau[p - 1] == after.tableau[p - 1] for p in (move.source_index, move.target_index)):
            found.append(move)
    return tuple(found)


def takes_back(board: Board, move: Move) -> bool:
    """True when ``move`` shifts a card straight back to the pile the game's
    last move touching either pile took it from (draws and moves elsewhere
    in between; the latest :data:`LOOKBACK` moves of ``board``'s game).
    An undecided peeking hint solves afresh each time, and the line that
    got furthest may start with either way: the hints said "pile 6 to pile
    7", "turn a card", "pile 7 to pile 6", "turn a card", ... (General's
    Patience deal 2, 0.5 s hints on a busy machine)."""
    return _undone(board.move_stack[-LOOKBACK:], move) >= 0
