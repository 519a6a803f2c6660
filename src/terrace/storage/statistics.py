"""Statistics over saved games: played, won, lost, abandoned, streaks, best
results, per variant and overall. Only numbers go in (:class:`GameFacts`),
so every store computes them the same way. The JSON shape is documented in
``docs/storage.md``.

As in PySolFC and Aisleriot, a game with at least one move that the player
leaves for a new game counts against them (abandoned) until it is resumed
and won, and a win is final: taking moves back after it does not undo it.

>>> summarize([])["overall"]["played"]
0
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from terrace.errors import TerraceError
from terrace.rules import Rules
from terrace.variants import PRESETS, rules_label

FINISHED = ("won", "lost")
UNFINISHED = ("choosing", "playing")

RESULTS = ("won", "lost", "abandoned", "unfinished")
"""What a played game counts as: ``unfinished`` is the game being played."""
MAX_COUNT = 1_000_000
"""The most hints or undos one game can sensibly have; more is junk."""
MAX_ACTIVE_MS = 100 * 86_400_000
"""The most active playing time one game can sensibly have (100 days)."""
SANE_TIMES = (86_400.0, 4_102_444_800.0)
"""Times the statistics believe (1970-01-02 to 2100-01-01); others are junk."""


def finish_time(status: object, finished_at: float | None, given_up_at: float | None,
                updated_at: float) -> float | None:
    """When a game ended: ``finished_at``, or, for a game that says
    nothing of it (a row edited by hand, a record of another tool), when
    it was given up, else, for a game won or lost, its last change. Every
    read of a game, the statistics and an import take an end so.

    >>> finish_time("lost", None, None, 50.0), finish_time("playing", None, 20.0, 50.0)
    (50.0, 20.0)
    """
    if finished_at is not None:
        return finished_at
    if given_up_at is not None:
        return given_up_at
    return updated_at if status in FINISHED else None


def first_win(status: object, won_at: float | None, won_moves: int | None, finished_at: float | None,
              updated_at: float, moves: int) -> tuple[float | None, int | None]:
    """When and in how many moves a game was first won: ``won_at`` and
    ``won_moves``, or, for a game won that says nothing of its first win
    (both null: a row edited by hand, a record of another tool), its
    finish (else its last change) and the ``moves`` it holds. Every read
    of a game, the statistics and an import take a win so.

    >>> first_win("won", None, None, None, 50.0, 104), first_win("won", 7.0, 120, 9.0, 50.0, 104)
    ((50.0, 104), (7.0, 120))
    """
    if status == "won" and won_at is None and won_moves is None:
        return (finished_at if finished_at is not None else updated_at), moves
    return won_at, won_moves


@dataclass(frozen=True)
class GameFacts:
    """One game as the statistics see it: no cards, only numbers. ``variant``
    is the group it counts in: its variant's name, or for rules that differ
    from the preset's, that name with the options that differ
    (:func:`~terrace.variants.rules_label`), so that an easier custom game
    never sets a preset's records."""

    variant: str
    status: str
    moves: int
    hints: int
    undos: int
    created_at: float
    updated_at: float
    started_at: float | None
    finished_at: float | None
    won_at: float | None = None
    won_moves: int | None = None
    won_active_ms: int | None = None
    assisted: bool = False
    active_ms: int = 0
    given_up: bool = False
    imported: bool = False
    """Came in by an import and not changed here since."""
    opened_elsewhere: bool = False
    """Came in by an import, changed here since or not: its creation was no
    opening here, so it leaves no game behind (as going back to an older
    game leaves none)."""
    opened_seq: int | None = None
    """Where in the store's log of changes the game was opened (created or
    imported): the log's order is the order things happened here, which
    the times are not once the clock was put back."""
    changed_seq: int | None = None
    """Where in the log the game last changed."""
    result_seq: int | None = None
    """Where in the log its first win or its loss came (None: not logged,
    as for a game given up, whose giving up is its last change)."""

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> GameFacts:
        """Facts from stored values, whatever they hold: a value that is
        out of range or of the wrong type (a hand edit, an old import)
        counts as unknown, so the statistics never fail on it.

        >>> facts = GameFacts.from_row(
        ...     [7, "won", -1, 10**30, 2, "x", 1e300, None, float("nan"), 1e15, 5, -3, 1, 10, "?", "{", 0, 0])
        >>> facts.variant, facts.moves, facts.hints, facts.undos, facts.updated_at, facts.won_at
        ('7', 0, 0, 2, 0.0, None)
        >>> facts.won_moves, facts.won_active_ms, facts.assisted, facts.active_ms, facts.given_up
        (5, None, True, 10, True)
        """
        (variant, status, moves, hints, undos, created, updated, started, finished,
         won_at, won_moves, won_active_ms, assisted, active_ms, given_up_at, rules, imported,
         elsewhere, *seqs) = row
        opened_seq, changed_seq, result_seq = [_seq(value) for value in seqs] or [None, None, None]
        known_status = status in FINISHED or status in UNFINISHED
        finished = finish_time(status, _time(finished), _time(given_up_at), _time(updated) or 0.0)
        won = first_win(status, _time(won_at), _count_or_none(won_moves), finished,
                        _time(updated) or 0.0, _count(moves))
        return cls(
            _group(str(variant), rules), status if known_status else "playing", _count(moves), _count(hints),
            _count(undos), _time(created) or 0.0, _time(updated) or 0.0, _time(started),
            finished, *won,
            _count_or_none(won_active_ms, MAX_ACTIVE_MS), assisted == 1,
            _count(active_ms, MAX_ACTIVE_MS), given_up_at is not None, imported == 1,
            imported == 1 or elsewhere == 1, opened_seq, changed_seq, result_seq,
        )

    @property
    def started(self) -> bool:
        """True once a move was made (games only opened do not count)."""
        return self.started_at is not None or self.moves > 0 or self.won_at is not None

    def result(self, last_opened: float, opened_seq: int | None = None) -> str | None:
        """``won`` (once won, for good), ``lost`` (no move left, or given
        up), ``abandoned`` (left for a game opened after its last change:
        here at ``opened_seq`` in the log of changes, or, for a game
        imported and not changed here, at ``last_opened``; see
        :func:`summarize`), ``unfinished`` (still being played), or None
        for a game never started."""
        if not self.started:
            return None
        if self.won_at is not None or self.status == "won":
            return "won"
        if self.status == "lost" or self.given_up:
            return "lost"
        if not self.imported and self.changed_seq is not None and opened_seq is not None:
            return "abandoned" if self.changed_seq < opened_seq else "unfinished"
        return "abandoned" if self.updated_at < last_opened else "unfinished"

    def log_points(self) -> list[tuple[int, float]]:
        """The places in the log of changes the statistics' clock reads of
        this game, with their times: its opening, last change and result,
        for a game changed here (an imported game's times are another
        computer's)."""
        if self.imported:
            return []
        points = []
        if self.opened_seq is not None and not self.opened_elsewhere:
            points.append((self.opened_seq, self.created_at))
        if self.changed_seq is not None:
            points.append((self.changed_seq, self.updated_at))
        if self.result_seq is not None:
            points.append((self.result_seq, self.result_at()))
        return points

    def result_at(self) -> float:
        """When the result came: the first win, the loss, or the last change."""
        if self.won_at is not None:
            return self.won_at
        return self.finished_at or self.updated_at

    def seconds_to_win(self) -> float | None:
        """The win's time (:func:`win_seconds`)."""
        return win_seconds(self.won_active_ms, self.won_at if self.won_at is not None else self.finished_at,
                           self.started_at)


def win_seconds(won_active_ms: int | None, won_at: float | None, started_at: float | None) -> float | None:
    """A win's time, as the statistics' fastest win, ``terrace stats`` and
    the page's end screen give it: its active playing time (what the page
    reported up to the win), or, when none was reported (a game played
    through the API only), the time from the first move to the win; None
    when unknown, as it is for a win timed before its first move (a clock
    put back, or an import that says so): the fastest win is never a win
    in no time.

    >>> win_seconds(31_000, 500.0, 100.0), win_seconds(0, 131.5, 100.0), win_seconds(None, 90.0, 100.0)
    (31.0, 31.5, None)
    """
    if won_active_ms:
        return won_active_ms / 1000
    if won_at is None or started_at is None or won_at <= started_at:
        return None
    return won_at - started_at


def summarize(games: Iterable[GameFacts], damaged: int = 0, zone: tzinfo | None = None,
              newer: int = 0) -> dict[str, Any]:
    """Statistics over games, overall and per variant, and the numbers of
    ``damaged`` games and of games saved by a ``newer`` Terrace left out
    (counted apart: updating Terrace brings the latter in); the JSON shape is described in
    ``docs/storage.md``; the chart's ``days`` are calendar days in ``zone``
    (None: this computer's local time). Only started games (a move was made) count;
    streaks follow the order in which results came, and an abandoned game
    counts as a loss in them: it breaks a winning streak and adds to a
    losing one, as a loss (no move left, or given up) does. A game counts
    as abandoned when a game was opened after its last change; a game
    that came in by an import counts as opened only for imported games not
    played here since, so that neither an import nor playing an imported
    game turns the game in play into an abandoned one.

    >>> won = GameFacts("wood", "won", 80, 0, 0, 10.0, 90.0, 20.0, 90.0, 90.0, 80)
    >>> left = GameFacts("wood", "playing", 3, 0, 0, 100.0, 110.0, 105.0, None)
    >>> newest = GameFacts("wood", "playing", 0, 0, 0, 200.0, 200.0, None, None)
    >>> block = summarize([won, left, newest])["overall"]
    >>> block["won"], block["abandoned"], block["win_rate"]
    (1, 1, 0.5)
    """
    facts = list(games)
    opened_here = [g for g in facts if not (g.imported or g.opened_elsewhere)]
    here = max((g.created_at for g in opened_here), default=0.0)
    seqs = [g.opened_seq for g in opened_here if g.opened_seq is not None]
    last_opened = _Opened(here, max([here, *(g.created_at for g in facts if g.imported)]),
                          max(seqs) if seqs and len(seqs) == len(opened_here) else None,
                          _log_clock(facts))
    # (each game's result, its place among the results and its day are
    # found once, for the overall block and its variant's)
    results = [(g, r) for g in facts
               if (r := g.result(last_opened.imported if g.imported else last_opened.here, last_opened.seq))
               is not None]
    ended = [(g, r, local_day(g.result_at(), zone) if g.result_at() > 0 else None) for g, r in sorted(
        ((g, r) for g, r in results if r != "unfinished"),
        key=lambda pair: _result_order(pair[0], last_opened.clock))]
    by_variant: dict[str, tuple[list[tuple[GameFacts, str]], list[tuple[GameFacts, str, str | None]]]] = {
        v: ([], []) for v in {g.variant for g in facts}}  # (a group only opened too: played 0)
    for pair in results:
        by_variant[pair[0].variant][0].append(pair)
    for triple in ended:
        by_variant[triple[0].variant][1].append(triple)
    variants = {v: _block(*by_variant[v]) for v in sorted(by_variant)}
    overall = _block(results, ended)
    if sum(1 for block in variants.values() if block["fewest_moves"] is not None) > 1:
        # A record compares wins of one kind of game (PySolFC and Aisleriot
        # keep records per game only): a 40 s win of an easy custom game of
        # one deck was the fastest win of all, ahead of every preset's.
        overall.update(fewest_moves=None, fewest_moves_wins=0, fastest_seconds=None)
    return {"overall": overall, "variants": variants, "damaged": damaged, "newer": newer}


@dataclass(frozen=True)
class _Opened:
    """When the last game was opened here (``here``), here or by an import
    (``imported``), and where in the log of changes it was opened here
    (``seq``; None when a game's place in the log is unknown), and the
    log's clock (see :func:`_log_clock`)."""

    here: float
    imported: float
    seq: int | None
    clock: dict[int, float]


def _log_clock(facts: list[GameFacts]) -> dict[int, float]:
    """A clock that never goes back along the log of changes: for each
    place in the log the statistics know of (:meth:`GameFacts.log_points`),
    the latest time read there or before. Results are ordered by it, so
    that a clock put back never puts a later result before an earlier one;
    while the clock goes on, it is the time itself."""
    return log_clock(sorted(point for g in facts for point in g.log_points()))


def log_clock(points: list[tuple[int, float]]) -> dict[int, float]:
    """The clock of :func:`_log_clock` from its ``points``, in order."""
    clock: dict[int, float] = {}
    latest = -math.inf
    for seq, at in points:
        latest = max(latest, at)
        clock[seq] = latest
    return clock


def _result_order(g: GameFacts, clock: dict[int, float]) -> tuple[float, int, float]:
    """Where a result goes in the streaks: by the log's clock for a result
    that came here, by its own time for one that came with an import."""
    seq = g.result_seq if g.result_seq is not None else g.changed_seq
    if g.imported or seq is None or seq not in clock:
        return (g.result_at(), 0, g.created_at)
    return (clock[seq], 1, seq)


def _block(results: list[tuple[GameFacts, str]],
           ended: list[tuple[GameFacts, str, str | None]]) -> dict[str, Any]:
    """The block of the games of ``results`` (each with its result), of
    which ``ended`` gives those that ended, in the order their results
    came, each with its day (None: its time is unknown)."""
    counts = dict.fromkeys(RESULTS, 0)
    for _, result in results:
        counts[result] += 1
    streak = best = losing = longest_losing = 0
    days: dict[str, dict[str, Any]] = {}
    for _, result, date in ended:
        if result == "won":
            streak, losing = streak + 1, 0
            best = max(best, streak)
        else:
            streak, losing = 0, losing + 1
            longest_losing = max(longest_losing, losing)
        if date is not None:
            days.setdefault(date, {"date": date, "won": 0, "lost": 0, "abandoned": 0})[result] += 1
    won = [g for g, r in results if r == "won"]
    # (the records are a player's own: a win in which an assist looked at the
    # face-down cards sets none)
    unassisted = [g for g in won if not g.assisted]
    won_in = [g.moves if g.won_moves is None else g.won_moves for g in unassisted]
    fewest = min(won_in, default=None)
    times = [t for g in unassisted if (t := g.seconds_to_win()) is not None]
    played = [g for g, _ in results]
    return stats_block(
        counts, streaks=(streak, best, losing, longest_losing),
        fewest=(fewest, 0 if fewest is None else won_in.count(fewest)), fastest=min(times, default=None),
        sums=(sum(g.hints for g in played), sum(g.undos for g in played),
              sum(1 for g in played if g.assisted), sum(g.active_ms for g in played)),
        days=[days[d] for d in sorted(days)])


def stats_block(counts: dict[str, int], *, streaks: tuple[int, int, int, int], fewest: tuple[int | None, int],
                fastest: float | None, sums: tuple[int, int, int, int],
                days: list[dict[str, Any]]) -> dict[str, Any]:
    """A block of the statistics (its shape: docs/storage.md) from the
    ``counts`` of each result, the ``streaks`` (current and best winning,
    current and longest losing), the ``fewest`` moves of an unassisted win
    and how many wins took them, the ``fastest`` such win's seconds, the
    ``sums`` of hints, undos, assisted games and active milliseconds, and
    the chart's ``days`` in order."""
    counted = counts["won"] + counts["lost"] + counts["abandoned"]
    streak, best, losing, longest_losing = streaks
    hints, undos, assisted, active_ms = sums
    return {
        "played": sum(counts.values()),
        "won": counts["won"],
        "lost": counts["lost"],
        "abandoned": counts["abandoned"],
        "unfinished": counts["unfinished"],
        "finished": counts["won"] + counts["lost"],
        "win_rate": counts["won"] / counted if counted else None,
        "current_streak": streak,
        "best_streak": best,
        "current_losing_streak": losing,
        "longest_losing_streak": longest_losing,
        "fewest_moves": fewest[0],
        "fewest_moves_wins": fewest[1],
        "fastest_seconds": None if fastest is None else round(fastest, 3),
        "hints": hints,
        "undos": undos,
        "assisted": assisted,
        "active_seconds": round(active_ms / 1000, 3),
        "days": days,
    }


@functools.lru_cache(maxsize=256)
def _group(variant: str, rules: Any) -> str:
    """The group of a stored game (its rules as stored: JSON text); rules
    that cannot be read leave the game in its variant's group.

    >>> _group("terrace", '{"decks": 1, "reserve": 0}'), _group("terrace", "{")
    ('terrace (custom: decks 1, reserve 0)', 'terrace')
    """
    if variant not in PRESETS or not isinstance(rules, str):
        return variant
    try:
        return rules_label(variant, Rules.from_dict(json.loads(rules)))
    except (TerraceError, ValueError, TypeError, RecursionError):
        return variant


# (each of 100,000 games' values goes through these at every first
# statistics of a process: a value of the type SQLite gives is taken on a
# short path, with the same answer)


def _seq(value: Any) -> int | None:
    """A place in the log of changes (an event's id), or None."""
    if type(value) is int:
        return value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _count(value: Any, limit: int = MAX_COUNT) -> int:
    if type(value) is int:
        return value if 0 <= value <= limit else 0
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= limit
    return value if ok else 0


def _count_or_none(value: Any, limit: int = MAX_COUNT) -> int | None:
    return None if value is None or _count(value, limit) != value else value


def _time(value: Any) -> float | None:
    if type(value) is float:  # (NaN and the infinities are out of range)
        return value if SANE_TIMES[0] <= value <= SANE_TIMES[1] else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value) if SANE_TIMES[0] <= value <= SANE_TIMES[1] else None


def local_day(timestamp: float, zone: tzinfo | None = None) -> str:
    """The calendar date of a timestamp in ``zone`` (None: local time), as
    ``YYYY-MM-DD``.

    >>> from datetime import UTC, timedelta, timezone
    >>> local_day(1_700_000_000.0, UTC), local_day(1_700_000_000.0, timezone(timedelta(hours=9)))
    ('2023-11-14', '2023-11-15')
    """
    return datetime.fromtimestamp(timestamp, zone).date().isoformat()
