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

from collections.abc import Callable, Iterator, Sequence

from terrace.board import Board
from terrace.moves import Move
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


def same_pass_keys(board: Board, lookback: int = LOOKBACK) -> set[Key]:
    """:meth:`Board.position_key` of the positions
    :func:`same_pass_positions` finds (with the same ``lookback``)."""
    keys = {board.position_key()}
    keys.update(earlier.position_key() for earlier in _same_pass_boards(board, lookback))
    return keys


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
