"""Ending a game in the web game: auto-play to the foundations, and the
clock that bounds the active playing time a page may report.

Auto-play plays only moves that cannot hurt (:mod:`terrace.solver.safe`):
with ``mode="safe"`` every safe foundation move, and in both modes, once
foundation moves alone are certain to win, all of them.

>>> from terrace.board import Board
>>> from terrace.rules import Rules
>>> rules = Rules(decks=1, reserve=1, piles=2, candidates=0, spaces="free")
>>> board = Board.from_position(
...     "A KS AS2H3S4H5S6H7S8H9STHJSQH,AH2S3H4S5H6S7H8S9HTSJHQSKH,AD2C3D4C5D6C7D8C9DTCJDQCKD,"
...     "AC2D3C4D5C6D7C8D9CTDJCQD KC, - - 0", rules)
>>> moves, travelled = autoplay(board, "safe")
>>> moves, [(m["card"], m["from"], m["to"]) for m in travelled], board.is_won()
(['rf', 't1f'], [('KS', 'reserve', 'f1'), ('KC', 't1', 'f4')], True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from terrace.board import Board
from terrace.bounded import Bounded
from terrace.solver.safe import finish_line, safe_moves
from terrace.storage.base import MAX_ACTIVE_REPORT_MS, report_allowance
from terrace.web.view import describe_move, motions

AUTOPLAY_MODES = ("safe", "finish")
"""``safe``: safe foundation moves, then a certain finish; ``finish``: only
a certain finish (the page's setting "finish the game")."""
FINISH_POSITIONS = 5_000
"""The finish search's budget per request (it is found at once in nearly
every game; without a line found in time, nothing is finished)."""
CLOCKS_KEPT = 1_024
"""How many games the report clock remembers (the oldest is forgotten)."""


def autoplay(board: Board, mode: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Play the moves auto-play may make on ``board``; returns them and
    the cards that travelled, move after move (``motions`` of
    :mod:`terrace.web.view`, refills included)."""
    played: list[str] = []
    travelled: list[dict[str, Any]] = []
    state = board.to_dict()

    def push(text: str) -> None:
        nonlocal state
        source = describe_move(board, text)["source"]
        board.push_text(text)
        after = board.to_dict()
        travelled.extend(motions(state, after, source))
        played.append(text)
        state = after

    if mode == "safe":
        while moves := safe_moves(board):
            push(str(moves[0]))
    if not board.is_won():
        for move in finish_line(board, FINISH_POSITIONS) or []:
            push(str(move))
    return played, travelled


class ReportClock:
    """When each game last reported active playing time, so that no page
    (nor two tabs together) reports more time than has passed.

    A game is *seen* when the server first serves it; the clock then holds
    the moment up to which its wall time has been reported. A report may add
    the wall time since then plus :data:`~terrace.storage.base.REPORT_SLACK_MS` (a page's own
    clock may run a little ahead), at most :data:`MAX_ACTIVE_REPORT_MS`.
    The slack is lent, not given: time reported beyond the wall time is
    taken from the next report's allowance, so reports sent in quick
    succession cannot add the slack again and again.

    >>> now = [100.0]
    >>> clock = ReportClock(lambda: now[0])
    >>> clock.seen("g"); now[0] += 30
    >>> clock.allowance("g")
    32000
    >>> _ = clock.reported("g", 31000); clock.allowance("g")
    1000
    >>> _ = clock.reported("g", 1000); clock.allowance("g")
    0
    >>> now[0] += 10; clock.allowance("g")
    10000
    """

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._fresh: set[str] = set()
        """Games whose clock started when they were seen, no report taken
        since: the store may know a mark from before (:meth:`resume`)."""
        self._since: Bounded[str, float] = Bounded(CLOCKS_KEPT, forgotten=self._fresh.discard)

    def seen(self, game_id: str) -> None:
        """Start the game's clock unless it runs already."""
        if game_id not in self._since:
            self._mark(game_id, self._now())
            self._fresh.add(game_id)

    def fresh(self, game_id: str) -> bool:
        """Whether the game's clock started when it was seen, with no report
        taken since (the server started after its last report, or this
        clock forgot it among :data:`CLOCKS_KEPT` newer games)."""
        return game_id in self._fresh

    def resume(self, game_id: str, mark: float | None) -> None:
        """Go on from ``mark``, where the store says the game's time was
        last reported (None: never), for a clock that is :meth:`fresh`: a
        report then takes the time since, as it would have had this clock
        not started afresh. A mark ahead of now is from before the clock
        started again (the computer was restarted): ignored, as the store
        ignores it."""
        if game_id not in self._fresh:
            return
        self._fresh.discard(game_id)
        started = self._since.get(game_id)
        if mark is not None and mark <= self._now() and started is not None and mark < started:
            self._mark(game_id, mark)

    def reported(self, game_id: str, ms: int) -> float | None:
        """A report of ``ms`` is taken now (before it is stored, so that a
        report arriving meanwhile sees less): wall time not reported before
        now is gone (the player was idle), and time reported beyond now is
        owed by the next report. Returns what :meth:`restore` needs if the
        report cannot be stored after all."""
        before = self._since.get(game_id)
        since = self._now() if before is None else before
        self._mark(game_id, max(self._now(), since + ms / 1000))
        self._fresh.discard(game_id)
        return before

    def restore(self, game_id: str, before: float | None) -> None:
        """Give back a report that was not stored (see :meth:`reported`)."""
        if before is None:
            self._since.pop(game_id)
        else:
            self._mark(game_id, before)

    def now(self) -> float:
        """This clock's time, in seconds (:func:`time.monotonic`: one clock
        for every process of a computer, so that the store can hold two
        servers on one database to one allowance)."""
        return self._now()

    def allowance(self, game_id: str) -> int:
        """The most milliseconds a report may add now."""
        now = self._now()
        since = self._since.get(game_id)
        return min(report_allowance(now if since is None else since, now), MAX_ACTIVE_REPORT_MS)

    def _mark(self, game_id: str, since: float) -> None:
        self._since.put(game_id, since)
