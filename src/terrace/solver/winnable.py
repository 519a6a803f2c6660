"""Winnable deals: the next deal number the solver proves won.

>>> import tempfile, os
>>> from terrace.variants import get_rules
>>> db = os.path.join(tempfile.mkdtemp(), "w.sqlite3")
>>> n = next_winnable_deal(get_rules("falling-star"), 1, max_seconds=2, db_path=db)
>>> n >= 1
True
"""

from __future__ import annotations

import time
from collections.abc import Callable

from terrace.board import Board
from terrace.deal import MAX_DEAL_NUMBER, check_number
from terrace.errors import InvalidDealError, TerraceError
from terrace.refusals import Reason, Refusal
from terrace.rules import Rules
from terrace.solver.api import solve
from terrace.solver.budget import check_budget
from terrace.solver.verdicts import LOCK_SECONDS, Verdict, VerdictStore, settled

MAX_TRIES = 100_000


class NoWinnableDealError(TerraceError):
    """No deal was proved winnable within the search's total budget (or the
    search was cancelled); ``tried``: how many deals were looked at."""

    def __init__(self, message: str, tried: int = 0) -> None:
        super().__init__(message)
        self.tried = tried

    def __reduce__(self) -> tuple[type[NoWinnableDealError], tuple[str, int]]:
        """Pickled with ``tried`` (the web game's solver process sends it back)."""
        return type(self), (str(self), self.tried)


def verdict_for(
    rules: Rules, number: int, store: VerdictStore, max_seconds: float,
    cancel: Callable[[], bool] | None = None,
) -> Verdict:
    """The cached verdict of a deal, solving it first when needed (a
    cancelled search is not cached)."""
    cached = store.get(rules, number)
    if cached is not None and settled(cached, max_seconds):
        return cached
    store.check_writable()  # (a cache that can only be read is said before the search, not after)
    board = Board.from_number(number, rules)
    result = solve(board, max_seconds=max_seconds, all_candidates=False, cancel=cancel, short_line=False)
    verdict = Verdict(
        result.result, result.nodes, result.seconds, max_seconds,
        " ".join(str(m) for m in result.moves),
    )
    if result.reason != "cancelled":
        return store.put(rules, number, verdict)  # (a won another process stored meanwhile stays)
    return verdict


def next_winnable_deal(
    rules: Rules, start: int, *, max_seconds: float = 10.0, total_seconds: float = 60.0,
    db_path: str | None = None, cancel: Callable[[], bool] | None = None,
) -> int:
    """The first deal number from ``start`` on that the solver proves won
    (within ``max_seconds`` per deal and ``total_seconds`` in all; then, or
    once ``cancel()`` says so, :class:`NoWinnableDealError`). Verdicts are
    cached in SQLite (``db_path``, default in the user data folder). A
    budget that would never run out (NaN, infinite, negative) is refused
    before the cache is opened."""
    max_seconds = check_budget(max_seconds, "max_seconds")
    total_seconds = check_budget(total_seconds, "total_seconds")
    start = check_number(start)  # (deal-number-range, as every reader of a deal number refuses it)
    deadline = time.monotonic() + total_seconds
    # (another program's lock on the cache is waited for within the budget, not 30 s)
    store = VerdictStore(db_path, timeout=min(LOCK_SECONDS, total_seconds))
    try:
        number = start
        for _ in range(MAX_TRIES):
            if number > MAX_DEAL_NUMBER:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoWinnableDealError(
                    f"no deal was proved winnable within {total_seconds:g} s for these rules"
                    f" ({number - start} tried from deal {start} on)", number - start)
            if cancel is not None and cancel():
                raise NoWinnableDealError("the search for a winnable deal was cancelled", number - start)
            if verdict_for(rules, number, store, min(max_seconds, left), cancel).result == "won":
                return number
            number += 1
    finally:
        store.close_or_discard()  # (stopped before any verdict: no empty cache left behind)
    if number > MAX_DEAL_NUMBER:
        raise InvalidDealError(Reason(Refusal.NO_WINNABLE_TO_LAST, start=start,
                                      last=MAX_DEAL_NUMBER, seconds=max_seconds))
    raise NoWinnableDealError(
        f"no deal from {start} to {number - 1} was proved winnable within {max_seconds:g} s each",
        number - start)
