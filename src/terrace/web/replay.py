"""The replay's positions: a board at any step of a game, reached from the
nearest board at hand instead of replayed from the deal each time.

A replay steps through a game one move at a time (or a slider jumps);
replaying every position from the deal made stepping through a game of
100,000 moves cost 0.2 s a step, so that the whole replay took hours. Each
game replayed keeps its board at the step shown last; the next step is
reached from it, from the deal or from the live game, whichever needs the
fewest moves played or taken back (the engine takes a move back exactly).

The board kept is used only while the game still holds exactly the moves
it was built from (compared each time, as read from the store): a change
in another tab or by another server on the same database makes it be
built again, whatever its revision says.

>>> from terrace.storage import MemoryStore
>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> rules = get_rules("terrace")
>>> game = MemoryStore().create("terrace", rules, Deal.from_number(5, rules))
>>> game.moves = ["c1", "s", "s"]
>>> replays = Replays()
>>> [str(m) for m in replays.board_at(game, 2).move_stack]
['c1', 's']
"""

from __future__ import annotations

from dataclasses import dataclass

from terrace.board import Board
from terrace.bounded import Bounded
from terrace.deal import Deal
from terrace.moves import Move
from terrace.rules import Rules
from terrace.storage import StoredGame

KEPT_REPLAYS = 4
"""Games whose replay board the server keeps (most recent; a board of
100,000 moves holds about 16 MB of history)."""


@dataclass
class _Replay:
    """A board at some step of a game's moves (its history is those before it)."""

    rules: Rules
    deal: Deal
    moves: list[str]
    board: Board

    def fits(self, game: StoredGame) -> bool:
        """True while ``game`` holds the rules, deal and moves this board was built for."""
        return self.rules == game.rules and self.deal == game.deal and self.moves == game.moves


class Replays:
    """One replay board for each of the last :data:`KEPT_REPLAYS` games replayed."""

    def __init__(self, kept: int = KEPT_REPLAYS) -> None:
        self._boards: Bounded[str, _Replay] = Bounded(kept)

    def board_at(self, game: StoredGame, step: int) -> Board:
        """The board after the first ``step`` moves of ``game`` (0 to
        ``len(game.moves)``), with those moves as its history. The board
        is the one kept for the next call: the caller may play the game's
        next move on it (the next call then starts from there), and uses it
        before any other call, never later (the next call changes it)."""
        if not 0 <= step <= len(game.moves):
            raise ValueError(f"step {step} is not one of the game's (0 to {len(game.moves)})")
        kept = self._boards.get(game.id)
        if kept is not None and not kept.fits(game):
            kept = None
        board = None if kept is None else kept.board
        here = -1 if board is None else len(board.move_stack)
        # (a copy of the live board is cheap beside the moves it spares)
        costs = {"start": step, "live": len(game.moves) - step}
        if board is not None:
            costs["kept"] = abs(step - here)
        nearest = min(costs, key=lambda name: (costs[name], name != "kept"))
        if nearest == "start":
            board, here = Board(game.rules, game.deal), 0
        elif nearest == "live":
            board, here = game.board(), len(game.moves)
        assert board is not None
        while here > step:
            board.pop()
            here -= 1
        for text in game.moves[here:step]:
            board.push(Move.parse(text))
        moves = list(game.moves) if kept is None else kept.moves
        self._boards.put(game.id, _Replay(game.rules, game.deal, moves, board))
        return board
