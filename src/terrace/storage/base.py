"""What every game store offers: the :class:`GameStore` interface, the
:class:`StoredGame` it hands out, its errors, and the checks both stores
apply before they write.

A stored game is its record (variant, rules, deal, moves) plus the redo
stack, counters and timestamps.

>>> from terrace.storage import MemoryStore
>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> store = MemoryStore()
>>> rules = get_rules("terrace")
>>> game = store.create("terrace", rules, Deal.from_number(5, rules))
>>> board = game.board()
>>> board.push_text("c1")
Move.parse('c1')
>>> game.sync(board)
>>> store.update(game, expected_revision=0, action="move")
>>> store.get(game.id).moves
['c1']
>>> store.update(game, expected_revision=0, action="move")
Traceback (most recent call last):
...
terrace.storage.base.ConflictError: the game changed in another window (revision 1, not 0): reload it
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import re
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, Protocol

from terrace.board import Board
from terrace.deal import Deal
from terrace.errors import IllegalMoveError, TerraceError
from terrace.moves import MAX_MOVES, Move
from terrace.record import GameRecord
from terrace.refusals import Quoted, Reason, Refusal, quote
from terrace.rules import Rules, saved_rules
from terrace.storage.line import MODULUS, Line
from terrace.storage.statistics import (
    FINISHED,
    MAX_ACTIVE_MS,
    MAX_COUNT,
    SANE_TIMES,
    UNFINISHED,
    GameFacts,
)
from terrace.variants import canonical_name, rules_label

ACTIONS = ("create", "move", "undo", "redo", "hint", "restart", "give-up")
MAX_POSITION_KEY = 4096
"""The longest position key :meth:`GameStore.count_hint` accepts (a
position string of eight decks is about 1,000 characters)."""
MAX_ACTIVE_REPORT_MS = 6 * 3600 * 1000
"""The most active playing time one report may add (six hours)."""
REPORT_SLACK_MS = 2_000
"""How much more than the wall time since its last report a page may
report (requests do not arrive exactly as far apart as they were sent);
lent, not given: see :func:`report_mark`."""
PART = 16
"""How many moves each way of its history the board of a game a store hands
out holds (:meth:`StoredGame.part_board`): more than a request's board
(:data:`RECENT`); a solver job's longer part (2,000 moves) is copied from
the whole board while it still fits."""
RECENT = 8
"""How many moves each way of its history the board of a request holds
(:meth:`StoredGame.recent_board`): a request takes back or redoes one move."""
MAX_LINE = MAX_MOVES
"""The most moves (played and undone) one saved game may hold."""
EARLIEST = 946_684_800.0
"""2000-01-01: no Terrace game was saved before."""
LATEST = SANE_TIMES[1]
"""2100-01-01: no saved time is later."""
AHEAD = 300.0
"""How far after now an imported or exported time may lie (five minutes:
clocks of two computers differ by that much, not by more)."""
COUNTS = {"hints": MAX_COUNT, "undos": MAX_COUNT, "active_ms": MAX_ACTIVE_MS}
"""The counters of a saved game and the most each may hold."""
TIMES = ("created_at", "updated_at", "started_at", "finished_at", "won_at", "given_up_at")
"""The times of a saved game; the first two are always set."""


def one_more(count: int) -> int:
    """``count`` + 1 for a hint or an undo, kept at :data:`MAX_COUNT`: the
    counters stop at the most a saved game may hold, so that counting one
    more never leaves a game that no read accepts.

    >>> one_more(4), one_more(MAX_COUNT) == MAX_COUNT
    (5, True)
    """
    return min(count + 1, MAX_COUNT)

__all__ = [
    "ACTIONS",
    "FINISHED",
    "UNFINISHED",
    "ConflictError",
    "DamagedGameError",
    "GameStore",
    "GivenUpError",
    "LineTooLongError",
    "LogPlaces",
    "NewerGameError",
    "StoreError",
    "StoreWriteError",
    "StoredGame",
    "TimeTooMuchError",
    "UnknownGameError",
    "UnsavableGameError",
    "change_events",
    "check_action",
    "check_active_ms",
    "check_game",
    "check_identity",
    "check_position_key",
    "check_saved",
    "check_times",
    "common_prefix",
    "conflict",
    "fewest_moves_to_win",
    "finding",
    "given_up",
    "new_game",
    "new_game_id",
    "one_more",
    "pack_hinted",
    "position_key",
    "report_allowance",
    "report_mark",
    "unknown_game",
    "unpack_hinted",
]


class StoreError(TerraceError):
    """A problem with the saved games (bad database, unknown game...)."""


class StoreStoppedError(StoreError):
    """A long read given up because the server is stopping
    (:meth:`GameStore.stop_waiting`)."""


class UnknownGameError(StoreError):
    """No game has this id."""


class ConflictError(StoreError):
    """The game changed since the caller read it (another tab or process)."""


class DamagedGameError(StoreError):
    """A saved game no longer replays through the engine (edited or damaged)."""


class NewerGameError(DamagedGameError):
    """A saved game whose rules have an option this program does not know:
    a newer Terrace saved it (its rows are sound; this version cannot play it)."""


class UnsavableGameError(StoreError):
    """A change would store a game that every later read would take for a
    damaged one (the computer's clock reads before 2000, the line is longer
    than :data:`MAX_LINE` moves...): nothing was changed. The two named
    are :class:`ClockOutOfRangeError` and :class:`LineTooLongError`."""


class ClockOutOfRangeError(UnsavableGameError):
    """The computer's clock reads a time no saved game may hold (before
    2000 or after 2100: a computer started without a clock that keeps time
    says 1970 until the network sets it), so a change stamped with it would
    be a damaged game: nothing was changed. ``date`` is what the clock says
    (UTC), for the message."""

    def __init__(self, name: str, at: float, then: str = "play on") -> None:
        self.date = clock_date(at)
        self.years = saved_years()
        super().__init__(f"{name} cannot be saved: {clock_fault(at, then)}")


def clock_date(at: float) -> str:
    """The time ``at`` as a date and time in UTC, for a message.

    >>> clock_date(100.0)
    '1970-01-01 00:01 UTC'
    """
    try:
        return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return quote(at)


def saved_years() -> tuple[int, int]:
    """The years of :data:`EARLIEST` and :data:`LATEST`, as messages name
    the times a saved game may hold.

    >>> saved_years()
    (2000, 2100)
    """
    return datetime.fromtimestamp(EARLIEST, UTC).year, datetime.fromtimestamp(LATEST, UTC).year


def clock_fault(at: float, then: str) -> str:
    """What is wrong when the computer's clock says ``at``, a time no saved
    game may hold, and what to do (``then``, after setting it right)."""
    first, last = saved_years()
    return (f"the computer's clock says {clock_date(at)}, and a saved game holds times from {first} to "
            f"{last} only: set the clock right, then {then}")


def clock_outside(at: float) -> bool:
    """True when ``at`` (the computer's clock) is a time no saved game may hold."""
    return not EARLIEST <= at <= LATEST


class LineTooLongError(UnsavableGameError):
    """A change would make the line (moves played and undone) longer than
    :data:`MAX_LINE` moves, ``most``: nothing was changed. Taking moves back
    and playing others in their place is still possible."""

    def __init__(self, message: str, most: int) -> None:
        super().__init__(message)
        self.most = most


class GivenUpError(StoreError):
    """The game was given up: it can be read and replayed, never changed."""


def given_up(game_id: str) -> GivenUpError:
    """The error for a change to a game that was given up."""
    return GivenUpError(f"game {game_id} was given up: it can no longer be played")


class StoreWriteError(StoreError):
    """A change could not be written: the disk is full (``fault`` is
    ``"full"``), the database is read-only (``"read-only"``), the disk
    failed (``"failed"``), or the file was moved, replaced or deleted while
    open (``"moved"``). Nothing was changed. A change refused while the
    store is in use is a coded refusal (``write-disk-full``...), said in
    the player's language."""

    def __init__(self, message: Reason | str, fault: str) -> None:
        super().__init__(message)
        self.fault = fault


class TimeTooMuchError(StoreError):
    """A report of active time asks for more than the wall time since the
    game's last report (made through any server on this database) allows:
    nothing was added. ``most`` is what may be reported now (ms)."""

    def __init__(self, ms: int, most: int) -> None:
        super().__init__(f"{ms} ms of active time is more than the {most} ms that may be reported now")
        self.most = most


def report_allowance(mark: float, now: float) -> int:
    """The most milliseconds a report of active time may add at ``now``
    when the game's time was reported up to ``mark`` (seconds of one
    clock): the time since, plus :data:`REPORT_SLACK_MS`.

    >>> report_allowance(100.0, 130.0), report_allowance(112.0, 110.0)
    (32000, 0)
    """
    return max(0, int((now - mark) * 1000) + REPORT_SLACK_MS)


def report_mark(mark: float | None, ms: int, now: float) -> float:
    """The instant up to which a game's active time is reported once a
    report of ``ms`` is taken at ``now`` (seconds of a clock), when it was
    reported up to ``mark`` before (None: never): ``ms`` may be the time
    since ``mark`` plus :data:`REPORT_SLACK_MS`, and what it takes beyond the
    time passed the next report may not take again. Raises
    :class:`TimeTooMuchError`. A mark further ahead of the clock than the
    slack lends is from before the clock started again (the computer was
    restarted): it is ignored, as no mark is.

    >>> report_mark(None, 5_000, 100.0), report_mark(100.0, 12_000, 110.0), report_mark(112.0, 0, 110.0)
    (100.0, 112.0, 112.0)
    >>> report_mark(86_400.0, 20_000, 30.0)
    30.0
    >>> report_mark(100.0, 40_000, 130.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    terrace.storage.base.TimeTooMuchError: 40000 ms of active time is more than the 32000 ms ...
    """
    if mark is None or mark > now + REPORT_SLACK_MS / 1000:
        return now
    most = report_allowance(mark, now)
    if ms > most:
        raise TimeTooMuchError(ms, most)
    return max(now, mark + ms / 1000)


def change_events(
    game: StoredGame, action: str, played_before: int | None = None
) -> list[tuple[str | None, int]]:
    """What a stored change of ``game`` logs, every store alike: ``(move,
    moves played after it)`` for each event, the move being the one played,
    undone or redone (None for others). A change that played several moves
    at once (auto-play; ``played_before`` moves were played before it) logs
    each of them."""
    played = game.played_count()
    if action == "move" and played_before is not None and played - played_before > 1:
        return [(game.move_at(count - 1), count) for count in range(played_before + 1, played + 1)]
    move: str | None = None
    if action in ("move", "redo"):
        move = game.last_move()
    elif action == "undo":
        move = game.next_redo()
    return [(move, played)]


def conflict(stored_revision: int, expected_revision: int) -> ConflictError:
    """The error for a stale write, with the same words in every store."""
    return ConflictError(
        f"the game changed in another window (revision {stored_revision}, "
        f"not {expected_revision}): reload it"
    )


def unknown_game(game_id: str) -> UnknownGameError:
    """The error for an id no game has."""
    return UnknownGameError(f"there is no game {game_id!r}")


class _Known:
    """A board the engine built for one line (moves played, then the redo
    stack) of one game, with its whole history (``whole``) or only the last
    moves of it (a request's board, see :meth:`StoredGame.recent_board`).
    Games handed out share it and only copy its board; the store that owns
    it may move it on to the line it stored next (:meth:`advance`), after
    which the games of the older line no longer match it. Its lock makes
    each copy or move whole (requests copy while the store writes)."""

    def __init__(self, rules: Rules, deal: Deal, line: Line, played: int, board: Board,
                 whole: bool, source: _Known | None = None) -> None:
        self.rules, self.deal, self.line, self.played = rules, deal, line, played
        self.board, self.whole, self.source = board, whole, source
        self.lock = threading.Lock()

    def matches(self, game: StoredGame) -> bool:
        """True when ``game`` holds exactly the line this board was built
        for (a line handed out is compared by identity; a game whose lists
        were read or set, move by move)."""
        if not ((self.rules is game.rules or self.rules == game.rules)
                and (self.deal is game.deal or self.deal == game.deal)):
            return False
        lazy = game._lazy
        if lazy is not None:
            if lazy[1] != self.played:
                return False
            if lazy[0] is not self.line and lazy[0] == self.line:
                self.line = lazy[0]  # (the same moves: compared by identity from now on)
            return lazy[0] is self.line
        moves, redo = game._moves or [], game._redo or []
        return (len(moves) == self.played and len(moves) + len(redo) == len(self.line)
                and self.line.to_list(0, self.played) == moves
                and self.line.to_list(self.played) == redo[::-1])

    def copy_for(self, game: StoredGame, keep: int | None = None) -> Board | None:
        """A copy of the board (its last ``keep`` moves each way of history
        only, or all) while it still fits ``game``; else, with ``keep``,
        one of a whole board taken back to ``game``'s line (:meth:`back_to`);
        else None."""
        with self.lock:
            if not self.matches(game):
                if self.whole:
                    return self.back_to(game, keep)
            elif self.whole or (keep is not None and _window_holds(self.board, game, keep)):
                return self.board.copy(keep=keep)
        # (a game's own part of a whole board: the whole one, while it fits or taken back)
        return None if self.source is None else self.source.copy_for(game, keep)

    def back_to(self, game: StoredGame, keep: int | None) -> Board | None:
        """A copy with ``keep`` moves each way of history of this whole
        board moved to ``game``'s line (the caller holds the lock): a game
        read just before another tab changed it (the store moved this
        board on) gets its board by taking back and playing only what
        changed, not by a replay of the whole game. None without ``keep``,
        for another deal or rules, or when the moves do not replay."""
        if keep is None or not self.whole or self.played < 0 or not (
                (self.rules is game.rules or self.rules == game.rules)
                and (self.deal is game.deal or self.deal == game.deal)):
            return None
        line, played = game.line_of(), game.played_count()
        base = min(self.line.common_prefix(line), played, self.played)
        taken_back = self.played - base
        board = self.board.copy(keep=keep + taken_back)
        try:
            _walk(board, self.played, base, line, played, min(len(line), played + keep))
        except Exception:  # (a line that does not replay: the caller replays and says why)
            return None
        return board.copy(keep=keep, redo=len(line) - played)

    def part(self) -> _Known:
        """This board with only :data:`PART` moves each way of its history,
        for a game handed out: its requests copy from it, whatever the store
        does to the whole board meanwhile (another tab's move moves it on,
        and a request on the older game would have replayed the whole game)."""
        with self.lock:
            board = self.board.copy(keep=PART)
            return _Known(self.rules, self.deal, self.line, self.played, board, whole=False,
                          source=self if self.whole else self.source)

    def status(self, game: StoredGame) -> str | None:
        """The status the line reaches, while the board fits ``game``."""
        with self.lock:
            return self.board.status.value if self.matches(game) else None

    def advance(self, line: Line, played: int) -> bool:
        """Move this whole board on to ``line`` with ``played`` moves played,
        by the engine's own moves (taking back, redoing, playing): work in
        proportion to the change, not to the game. False (and the board
        is then no longer used) when it cannot."""
        with self.lock:
            if not self.whole:
                return False
            try:
                _move_board(self.board, self.line, self.played, line, played)
            except Exception:  # (a line edited by hand: its read replays it and says what is wrong)
                self.whole, self.line, self.played = False, Line(), -1
                return False
            self.line, self.played = line, played
            return True


def _window_holds(board: Board, game: StoredGame, keep: int) -> bool:
    """True when ``board`` (a board with a part of its history) holds as
    much history as a copy keeping ``keep`` moves each way needs."""
    return (len(board.move_stack) >= min(keep, game.played_count())
            and len(board.redo_stack) >= min(keep, game.redo_count()))


def _move_board(board: Board, old: Line, old_played: int, new: Line, played: int) -> None:
    """Make ``board``, whose history is ``old`` with ``old_played`` moves
    played, into the board of ``new`` with ``played`` played."""
    same = old.common_prefix(new)
    if same == len(old) == len(new):
        while len(board.move_stack) > played:
            board.pop()
        while len(board.move_stack) < played:
            board.redo()
        return
    if same == len(new):  # (a line cut short: the engine has no move for that)
        raise IndexError("a line cut short")
    _walk(board, old_played, min(same, played, old_played), new, played, len(new))


def _walk(board: Board, old_played: int, base: int, line: Line, played: int, ahead: int) -> None:
    """Take ``board`` (``old_played`` moves played) back to its first
    ``base`` moves, which ``line`` shares, play ``line``'s moves from there
    up to ``ahead`` (at least ``played``), and take back to ``played``: a
    board moved to another line by what changed (:func:`_move_board`; a
    copy with only the history a read needs, :meth:`_Known.back_to`)."""
    for _ in range(old_played - base):
        board.pop()
    for text in line.to_list(base, ahead):
        board.push(Move.parse(text))
    for _ in range(ahead - played):
        board.pop()


MAX_PASSED = 1_000
"""The most lines a game had played off its line today that an export
gives (those of most moves) and an import takes (``saved.passed``)."""
_DIGEST = re.compile(r"[1-9a-f][0-9a-f]{0,31}|0")


def passed_state(moves: Any, digest: Any) -> bool:
    """Whether ``[moves, digest]`` is a line as ``saved.passed`` and the
    table ``passed`` keep it: a number of moves up to :data:`MAX_LINE` and
    a :meth:`Line.digest` in lower-case hex, written as an export writes it.

    >>> passed_state(3, "7f"), passed_state(3, "07f"), passed_state(True, "7f"), passed_state(3, "F")
    (True, False, False, False)
    """
    return (type(moves) is int and 0 <= moves <= MAX_LINE and isinstance(digest, str)
            and _DIGEST.fullmatch(digest) is not None and int(digest, 16) < MODULUS)


def pack_passed(states: Iterable[tuple[int, str]]) -> str:
    """Lines as :attr:`StoredGame.passed` keeps them: each its number of
    moves and :meth:`Line.digest` in hex (:func:`passed_state`), sorted,
    once, in one text (as tuples, a file of 64 MB of them took 715 MB).

    >>> pack_passed([(12, "ab"), (3, "7f"), (12, "ab")]), unpack_passed("3:7f 12:ab")
    ('3:7f 12:ab', [(3, '7f'), (12, 'ab')])
    """
    return " ".join(f"{moves}:{digest}" for moves, digest in sorted(set(states)))


def unpack_passed(packed: str) -> list[tuple[int, str]]:
    """The lines :func:`pack_passed` packed."""
    return [(int(moves), digest) for moves, _, digest in (item.partition(":") for item in packed.split())]


def pack_hinted(keys: Iterable[str]) -> str:
    """Position keys as :attr:`StoredGame.hinted` keeps them: sorted, once,
    in one JSON text (an import holds every game of its file at once: as
    strings, short keys took seven times their text).

    >>> pack_hinted(["b c", "a", "b c"]), unpack_hinted('["a","b c"]'), pack_hinted([])
    ('["a","b c"]', ['a', 'b c'], '')
    """
    keys = sorted(set(keys))
    return json.dumps(keys, ensure_ascii=False, separators=(",", ":")) if keys else ""


def unpack_hinted(packed: str) -> list[str]:
    """The position keys :func:`pack_hinted` packed."""
    return list(json.loads(packed)) if packed else []


MAX_PLACE = 2**53
"""The largest place in a log of changes an export may give (an event id)."""
MAX_REVISION = 2**53 - 1
"""The largest revision of a game: the page keeps it as a JavaScript
number, exact up to this (a revision edited by hand past SQLite's largest
integer made the next change fail with an OverflowError)."""


@dataclass(frozen=True)
class LogPlaces:
    """Where a game stands in the log of changes of the store it was
    exported from (the events' ids: only their order matters): where it
    was opened, first won or lost (None: not logged), and last changed;
    whether it came into that store by an import, and whether it was
    changed there by anything but imports. An import into an empty
    database writes its games' log entries in this order, so that the
    statistics, which follow the log, come out the same."""

    opened: int
    changed: int
    result: int | None
    by_import: bool
    changed_here: bool

    def to_dict(self) -> dict[str, Any]:
        """As the export writes it (``saved.log``)."""
        return dataclasses.asdict(self)

    @staticmethod
    def ranked(places: dict[str, LogPlaces]) -> dict[str, LogPlaces]:
        """``places`` with each place written as its rank among them all
        (1, 2, ...): only their order matters, and so a backup restored and
        exported again is the same file (the restored store's log holds
        exactly those places, in that order).

        >>> LogPlaces.ranked({"a": LogPlaces(40, 90, None, False, True),
        ...                   "b": LogPlaces(7, 40, 90, True, True)})
        {'a': LogPlaces(opened=2, changed=3, result=None, by_import=False, changed_here=True), \
'b': LogPlaces(opened=1, changed=2, result=3, by_import=True, changed_here=True)}
        """
        values = sorted({value for place in places.values()
                         for value in (place.opened, place.changed, place.result) if value is not None})
        rank = {value: index for index, value in enumerate(values, 1)}
        return {game_id: dataclasses.replace(place, opened=rank[place.opened], changed=rank[place.changed],
                                             result=None if place.result is None else rank[place.result])
                for game_id, place in places.items()}

    @classmethod
    def from_dict(cls, data: Any, prefix: str = "saved.log") -> LogPlaces:
        """Read ``saved.log`` of a record; raises :class:`StoreError`."""
        if not isinstance(data, dict) or set(data) != {f.name for f in dataclasses.fields(cls)}:
            raise StoreError(f"{prefix} must be an object of opened, changed, result, by_import and "
                             "changed_here")

        def place(name: str, nullable: bool = False) -> int | None:
            value = data[name]
            if value is None and nullable:
                return None
            if type(value) is not int or not 1 <= value <= MAX_PLACE:
                raise StoreError(f"{prefix}.{name} must be a whole number from 1 to {MAX_PLACE:,}"
                                 f"{', or null' if nullable else ''}")
            return value

        opened, changed, result = place("opened"), place("changed"), place("result", nullable=True)
        assert opened is not None and changed is not None
        for name in ("by_import", "changed_here"):
            if not isinstance(data[name], bool):
                raise StoreError(f"{prefix}.{name} must be true or false")
        if not opened <= changed or (result is not None and not opened <= result <= changed):
            raise StoreError(f"{prefix}: a game is opened first and changed last "
                             "(opened <= result <= changed)")
        if not data["by_import"] and not data["changed_here"]:
            raise StoreError(f"{prefix}: a game not opened by an import was changed where it was opened")
        return cls(opened, changed, result, data["by_import"], data["changed_here"])


@dataclass
class StoredGame:
    """One saved game. ``moves`` are played, ``redo`` are undone moves
    (the next to redo last), ``revision`` counts every stored change.
    ``started_at`` is the time of the first move (None before it); the
    times are seconds since the epoch. ``assisted`` says an assist was used,
    ``active_ms`` is the active playing time the page reported. A win is
    final: ``won_at``, ``won_moves`` and ``won_active_ms`` describe the first
    win and stay when moves are taken back after it. ``given_up_at`` is when
    the player gave the game up (it then counts as lost and never changes
    again)."""

    id: str
    variant: str
    rules: Rules
    deal: Deal
    moves: list[str] = field(default_factory=list)
    redo: list[str] = field(default_factory=list)
    status: str = "choosing"
    hints: int = 0
    undos: int = 0
    winnable_only: bool = False
    created_at: float = 0.0
    updated_at: float = 0.0
    finished_at: float | None = None
    revision: int = 0
    started_at: float | None = None
    assisted: bool = False
    active_ms: int = 0
    won_at: float | None = None
    won_moves: int | None = None
    won_active_ms: int | None = None
    given_up_at: float | None = None
    log: LogPlaces | None = field(default=None, repr=False, compare=False)
    """Its places in the log of the store it was exported from (an import's
    game only)."""
    passed: str = field(default="", repr=False, compare=False)
    """Lines the game had played off its line today (moves taken back and
    others played), as the store it was exported from knew them
    (``saved.passed``; an export's game and an import's only), packed
    (:func:`pack_passed`: an import holds thousands of games at once): a
    record of such a state is an older state of this game, not another."""
    hinted: str = field(default="", repr=False, compare=False)
    """The positions a hint was counted on (:meth:`GameStore.count_hint`),
    at most ``hints`` of them (``saved.hinted``; an export's game and an
    import's only), packed (:func:`pack_hinted`): a restored game counts
    no second hint on them."""
    created_given: bool = field(default=True, repr=False, compare=False)
    """False for a record whose ``saved`` gives no ``created_at``: its
    creation time is then the import's, and an import takes instead that
    of the game of its id already stored, when that game has the record's
    variant, rules and deal (else the record's game, a new one each import,
    went beside that game at every import of the same file)."""
    ordered: bool = field(default=True, repr=False, compare=False)
    """Whether ``revision`` counts the game's changes where it was stored,
    so that of two states of one game the one of the higher revision came
    later, whatever the clock said: False for a record of an export that
    does not give it (written before backups carried it), whose states
    are then ordered by their times of change."""
    _known: _Known | None = field(default=None, init=False, repr=False, compare=False)
    _saved: tuple[int, Line] | None = field(default=None, init=False, repr=False, compare=False)
    _replayed: str | None = field(default=None, init=False, repr=False, compare=False)
    """The :meth:`_replay_digest` of the game when the engine last replayed
    it to its status, kept when the board is let go (:meth:`forget_board`):
    while the game still gives it, its status needs no replay again."""
    _window: tuple[Board, Line, int, int] | None = field(default=None, init=False, repr=False,
                                                          compare=False)
    """The board :meth:`recent_board` handed out last, the line and moves
    played it was made from, and how many moves of the line lie before its
    history (see :meth:`sync`)."""

    _before: tuple[Board, int] | None = field(default=None, init=False, repr=False, compare=False)
    """The board :meth:`recent_board` handed out last and how many moves lie
    before its history (see :meth:`moves_before`)."""

    # The line is kept either as the lists ``moves`` and ``redo`` or, for a
    # game a store hands out or a request changed, as a Line and the number
    # of its moves played (``_lazy``): the lists are made from it only when
    # read, so that a request that reads only counts and the last move
    # copies nothing of a long game.
    _lazy: tuple[Line, int] | None = field(default=None, init=False, repr=False, compare=False)
    _moves: list[str] | None = field(default=None, init=False, repr=False, compare=False)
    _redo: list[str] | None = field(default=None, init=False, repr=False, compare=False)

    def _lists(self) -> tuple[list[str], list[str]]:
        """The lists ``moves`` and ``redo``, made from the Line if need be
        (from then on they are the game's line: a caller may change them)."""
        lazy = self._lazy
        if lazy is not None:
            line, played = lazy
            self._moves, self._redo, self._lazy = line.to_list(0, played), line.to_list(played)[::-1], None
        return self._moves or [], self._redo or []

    def _get_moves(self) -> list[str]:
        return self._lists()[0]

    def _set_moves(self, value: list[str]) -> None:
        self._lists()
        self._moves = value

    def _get_redo(self) -> list[str]:
        return self._lists()[1]

    def _set_redo(self, value: list[str]) -> None:
        self._lists()
        self._redo = value

    def set_line(self, line: Line, played: int) -> None:
        """Hold ``line`` with its first ``played`` moves played (the lists
        ``moves`` and ``redo`` are made from it when read)."""
        self._lazy, self._moves, self._redo = (line, played), None, None

    def played_count(self) -> int:
        """``len(moves)``, without making the list."""
        return self._lazy[1] if self._lazy is not None else len(self._moves or [])

    def redo_count(self) -> int:
        """``len(redo)``, without making the list."""
        if self._lazy is not None:
            return len(self._lazy[0]) - self._lazy[1]
        return len(self._redo or [])

    def line_length(self) -> int:
        """Moves played and to redo."""
        return self.played_count() + self.redo_count()

    def move_at(self, index: int) -> str:
        """``moves[index]`` (0 or more), without making the list."""
        if self._lazy is not None:
            if not 0 <= index < self._lazy[1]:
                raise IndexError("move index out of range")
            return self._lazy[0][index]
        return (self._moves or [])[index]

    def last_move(self) -> str | None:
        """The last move played, if any."""
        played = self.played_count()
        return self.move_at(played - 1) if played else None

    def next_redo(self) -> str | None:
        """The next move to redo, if any."""
        if self._lazy is not None:
            line, played = self._lazy
            return line[played] if played < len(line) else None
        redo = self._redo or []
        return redo[-1] if redo else None

    def line_of(self) -> Line:
        """The line (:meth:`line`) as a :class:`Line`: shared, not copied,
        when the game holds one."""
        return self._lazy[0] if self._lazy is not None else Line.of(self.line())

    def board(self) -> Board:
        """The live board: moves played, redo stack restored.

        The board is remembered for as long as rules, deal, moves and redo
        stay the same, so a game is replayed once when it is first loaded;
        playing a move on the board and :meth:`sync` keep it up to date
        without another replay.
        """
        known = self._known
        if known is not None:
            copy = known.copy_for(self)
            if copy is not None:
                return copy
        board = Board(self.rules, self.deal)
        for text in self.moves:
            board.push(Move.parse(text))
        _put_redo(board, self.redo)
        self._known = _Known(self.rules, self.deal, self.line_of(), self.played_count(), board.copy(),
                             whole=True)
        return board

    def recent_board(self, keep: int = RECENT) -> Board:
        """The live board with only its last ``keep`` moves each way of
        history (the engine's :meth:`~terrace.board.Board.copy` with
        ``keep``): it plays, takes back and redoes up to ``keep`` moves as
        the whole board would, and costs the same however long the game. A
        request changes the game on it and :meth:`sync` finds the change
        without reading the rest of the line."""
        known = self._known
        board = None if known is None else known.copy_for(self, keep)
        if board is None:
            board = self.board().copy(keep=keep)
        self._window = (board, self.line_of(), self.played_count(),
                        self.played_count() - len(board.move_stack))
        self._before = (board, self._window[3])
        return board

    def restart(self, keep: int = RECENT) -> Board:
        """Take back every move at once (a restart: the whole line stays,
        to redo) and return the board of that with only ``keep`` moves to
        redo of its history, as :meth:`recent_board` gives one. While the
        whole board a store remembers for the game still fits, the new
        board is made from its moves (:meth:`Board.at_start`: copies of
        two lists); replaying the line from the deal to put it on the redo
        stack took half a second at 100,000 moves. Else the game is
        replayed once, as on its first read."""
        known = self._known
        whole = known if known is None or known.whole else known.source
        line, board = self.line_of(), None
        if whole is not None:
            with whole.lock:
                if whole.whole and whole.matches(self):
                    history = whole.board
                    board = Board.at_start(self.rules, self.deal,
                                           history.redo_stack + history.move_stack[::-1])
        if board is None:
            self.set_line(line, 0)
            board = self.board()
        else:
            self.set_line(line, 0)
            self._known = _Known(self.rules, self.deal, line, 0, board, whole=True)
        self.status = board.status.value
        return self.recent_board(keep)

    def moves_before(self, board: Board) -> int:
        """How many moves of the game lie before the history of ``board``:
        those of the last :meth:`recent_board` (it does not take back past
        them), 0 for any other board."""
        return self._before[1] if self._before is not None and self._before[0] is board else 0

    def reached_status(self) -> str:
        """The status the moves reach: that of :meth:`board`, without a copy
        of it (the checks before every read and write ask; a copy of a
        game of 100,000 moves takes a millisecond)."""
        known = self._known
        status = None if known is None else known.status(self)
        if status is not None:
            return status
        if self._replayed is not None and self._replayed == self._replay_digest():
            return self.status
        return self.board().status.value

    def _replay_digest(self) -> str:
        """A digest of what a replay decides: rules, deal, moves, redo
        stack and the status they reach (here, the stored one)."""
        text = json.dumps([self.rules.to_dict(), self.deal.cards, self.moves, self.redo, self.status],
                          separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def adopt_played(self, board: Board) -> None:
        """Take ``board``, the engine's replay of exactly this game's rules,
        deal and moves (a record's check), as the game's board, with the
        redo stack pushed and taken back on it: the game is then not
        replayed again. A board of other moves, or a redo stack that does
        not replay, is not taken (the next check replays and says why)."""
        if board.rules != self.rules or board.deal != self.deal or not _played_as(board, self.moves):
            return
        try:
            _put_redo(board, self.redo)
        except TerraceError:
            return
        self._known = _Known(self.rules, self.deal, self.line_of(), self.played_count(), board, whole=True)

    def sync(self, board: Board) -> None:
        """Copy moves, redo stack and status from ``board``. A board that
        :meth:`recent_board` handed out is read only as far as its history
        goes: the rest of the line is the game's own, shared, not copied."""
        same_game = board.rules == self.rules and board.deal == self.deal
        window, self._window = self._window, None
        if same_game and window is not None and window[0] is board:
            self._sync_recent(board, *window[1:])
            return
        known = self._known if same_game else None
        if known is not None and not known.whole:
            known = known.source  # (the whole board its part came from)
        if known is not None and known.whole and known.played >= 0:
            with known.lock:  # (the texts of the moves it shares with the board it was built for)
                moves = _texts(board.move_stack, known.board.move_stack, known.line, redo=False)
                redo = _texts(board.redo_stack, known.board.redo_stack, known.line, redo=True)
        else:
            moves = [str(m) for m in board.move_stack]
            redo = [str(m) for m in board.redo_stack]
        self._lazy, self._moves, self._redo = None, moves, redo
        self.status = board.status.value
        if same_game:
            self._known = _Known(self.rules, self.deal, self.line_of(), len(moves), board.copy(), whole=True)

    def _sync_recent(self, board: Board, line: Line, played: int, before: int) -> None:
        """:meth:`sync` from a board with a part of the history of ``line``
        (``played`` moves played), the first ``before`` moves of the line
        lying before it. Its line as far as the board knows it is compared
        with ``line`` from there: when it still agrees, the board only took
        moves back or played again the moves to redo (the engine keeps the
        line then, even past what the board holds), and the line stays;
        else a move the line did not hold was played, which drops the rest
        of the redo stack (as the engine does), and the line is cut there."""
        shown = [str(m) for m in board.move_stack] + [str(m) for m in reversed(board.redo_stack)]
        stored = line.to_list(before, before + len(shown))
        same = common_prefix(stored, shown)
        if same < len(shown):
            line = line.prefix(before + same).extend(shown[same:])
        now_played = before + len(board.move_stack)
        self.set_line(line, now_played)
        self.status = board.status.value
        self._known = _Known(self.rules, self.deal, line, now_played, board.copy(), whole=False)

    def clone(self) -> StoredGame:
        """An independent copy (the remembered board is shared: only its
        owner store moves it on, and a game it no longer fits replays)."""
        other = copy.copy(self)
        if self._lazy is None:
            other._moves, other._redo = list(self._moves or []), list(self._redo or [])
        other._window = other._before = None
        return other

    def forget_board(self) -> None:
        """Let go of the remembered board (the next :meth:`board` replays):
        an import holds thousands of games at once, and their boards took
        ten times the memory of their moves. What the board proved stays:
        while rules, deal, moves, redo stack and status are the ones it was
        built for, the status needs no replay (:meth:`reached_status`)."""
        known = self._known
        if known is not None and known.status(self) == self.status:
            self._replayed = self._replay_digest()
        self._known = None

    def keep_whole_board(self) -> None:
        """Make sure a whole board of this game is remembered (replaying it
        when none fits: once, as when a game is first read), so that the
        games handed out from it copy their part of it."""
        known = self._known
        if known is None or not known.whole or known.status(self) is None:
            self.board()

    def part_board(self) -> None:
        """Keep a board of its own with the last :data:`PART` moves each way
        of the remembered board's history (a store does so for every game it
        hands out): what a request copies cannot change under it."""
        known = self._known
        if known is not None and known.whole and known.status(self) is not None:
            self._known = known.part()

    def adopt_board(self, other: StoredGame) -> None:
        """Take over the board ``other`` remembers (this game as read or
        written before); :meth:`board` uses it only while it fits."""
        self._known = other._known

    def carry_board(self, before: StoredGame) -> None:
        """After this game was stored in place of ``before`` (the store's own
        copy of the line it replaced), move the whole board ``before``
        remembers on to this game's line, when it has one, and take it: the
        next request copies it instead of replaying the game."""
        mine = self._known
        if mine is not None and mine.whole and mine.status(self) is not None:
            return  # (it has a whole board of its own: the one it was played on)
        known = before._known
        if known is None or not known.whole or self._lazy is None or known.status(before) is None:
            return
        if known.advance(*self._lazy):
            self._known = known

    def line(self) -> list[str]:
        """The moves played followed by the redo stack, next to redo first:
        what the database stores."""
        if self._lazy is not None:
            return self._lazy[0].to_list()
        return [*self.moves, *reversed(self.redo)]

    def saved_line(self, revision: int) -> Line | None:
        """The line as the database held it at ``revision``, when this game
        was read or written at that revision (else None: ask the database)."""
        if self._saved is not None and self._saved[0] == revision:
            return self._saved[1]
        return None

    def mark_saved(self, revision: int, line: Line) -> None:
        """Remember that the database holds ``line`` at ``revision``."""
        self._saved = (revision, line)

    def forget_saved(self) -> None:
        """Forget the line the database held (another process may have
        written it since); the board stays, used only while it fits."""
        self._saved = None

    def record(self) -> GameRecord:
        """The game as an engine record (for export)."""
        return GameRecord.of_checked(self.variant, self.rules, self.deal, tuple(self.moves), self.status)

    def facts(self) -> GameFacts:
        """What the statistics need to know about this game."""
        return GameFacts(
            rules_label(self.variant, self.rules), self.status, self.played_count(), self.hints, self.undos,
            self.created_at, self.updated_at, self.started_at, self.finished_at,
            self.won_at, self.won_moves, self.won_active_ms, self.assisted, self.active_ms,
            self.given_up_at is not None,
        )

    def stamp(self, now: float) -> None:
        """Set the times a stored change implies: updated now, started at
        the first move, finished when won, lost or given up (cleared again
        when a move is taken back), and the first win, which stays."""
        self.updated_at = now
        if self.started_at is None and self.line_length():
            self.started_at = now
        if self.status == "won" and self.won_at is None:
            self.won_at, self.won_moves, self.won_active_ms = now, len(self.moves), self.active_ms
        if self.given_up_at is not None:
            self.finished_at = self.finished_at or self.given_up_at
        elif self.status in FINISHED:
            if self.finished_at is None:
                self.finished_at = now
        else:
            self.finished_at = None


# (``moves`` and ``redo`` stay fields of the dataclass, read and set through
# these properties: see StoredGame._lazy)
setattr(StoredGame, "moves", property(StoredGame._get_moves, StoredGame._set_moves,  # noqa: B010
                                      doc="The moves played."))
setattr(StoredGame, "redo", property(StoredGame._get_redo, StoredGame._set_redo,  # noqa: B010
                                     doc="The moves taken back, the next to redo last."))


def common_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    """How many items ``a`` and ``b`` share from the start. A move, an undo,
    a redo or a new move after an undo changes only the end of a line, so
    two comparisons done in C answer at once; other changes are walked.

    >>> common_prefix(["c1", "s", "wf"], ["c1", "s", "t2t3"]), common_prefix(["s"], ["c1"])
    (2, 0)
    """
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    if n and a[: n - 1] == b[: n - 1]:
        return n - 1
    same = 0
    while same < n and a[same] == b[same]:
        same += 1
    return same


def _texts(moves: list[Move], known_moves: list[Move], line: Line, *, redo: bool) -> list[str]:
    """The text of each move, taking those of a start shared with the known
    board's ``known_moves`` from its ``line``: the moves played from the
    line's start, or, with ``redo``, the redo stack (next to redo last) from
    the line's end, where it lies reversed. (The redo stack of a board with
    no move played was taken from the line's start, as if it were the moves
    played: a redo after taking every move back stored the redone move a
    second time in place of the one still to redo, a line that no longer
    replays.)"""
    keep = common_prefix(moves, known_moves)
    if not redo:
        return line.to_list(0, keep) + [str(m) for m in moves[keep:]]
    texts = line.to_list(len(line) - keep)[::-1] if keep else []  # (the redo stack's bottom: the line's end)
    return texts + [str(m) for m in moves[keep:]]


class GameStore(Protocol):
    """What the web game and the CLI need from saved games. The web game
    calls a store from several threads at once: a store serializes its
    calls (an update's revision check and its write are one step)."""

    @property
    def verdicts_path(self) -> Path:
        """The solver's verdict cache that goes with these games (see
        :mod:`terrace.storage.paths`)."""
        ...

    def check_writable(self) -> None:
        """Prove that changes can be saved (the server asks at start);
        raises :class:`StoreWriteError` saying why not."""
        ...

    def stop_waiting(self) -> None:
        """The server is stopping: a change that waits for another program's
        lock gives up now (refused as busy, nothing written), and none waits
        any more; a change that can be written still is. The statistics
        stop too, midway through a long read or write of every game
        (:class:`StoreStoppedError`)."""
        ...

    def create(
        self, variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False
    ) -> StoredGame:
        """Store a new game and return it (revision 0)."""
        ...

    def get(self, game_id: str) -> StoredGame:
        """The game with this id; raises :class:`UnknownGameError`."""
        ...

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        """Write ``game`` (moves, redo, status, counters) atomically and
        durably before returning, if the stored revision still equals
        ``expected_revision``; else raise :class:`ConflictError` and change
        nothing. ``game.revision`` is incremented; ``action`` (one of
        ``ACTIONS`` but ``create``) is logged with a timestamp. A game the
        rules do not allow, an unknown action, or a change of variant,
        rules or deal is refused with :class:`StoreError`, any change to a
        game given up (``given_up_at`` stored) with :class:`GivenUpError`;
        ``given_up_at`` once stored stays. A change that
        cannot be written (disk full, read-only file) with
        :class:`StoreWriteError`. Either way nothing changes."""
        ...

    def latest_unfinished(self) -> StoredGame | None:
        """The most recently updated game still being played (not given
        up), if any; a game imported and not played here since comes after
        every game that was."""
        ...

    def count_hint(self, game_id: str, position_key: str, *, while_open: bool = False) -> bool:
        """Count a hint given on the position ``position_key`` (e.g.
        ``Board.position()``) unless one was counted there before; True when
        it was counted (not once the game's hints reached :data:`MAX_COUNT`,
        see :func:`one_more`). With ``while_open``, only while the game is
        neither won nor given up, checked in the same step (see
        :meth:`mark_assisted`). Neither this nor the next two change the
        revision: they never make another tab's move a conflict."""
        ...

    def mark_assisted(self, game_id: str, *, while_open: bool = False) -> bool:
        """Mark the game as one in which an assist was used (for good); with
        ``while_open``, only while it is neither won nor given up, checked
        in the same step: the web game asks an assist of the solver on the
        game as it was, and another tab may have won it (a win is final)
        or given it up before the answer came. True when this call marked it
        (False: the game was over, and nothing changed)."""
        ...

    def add_active_time(self, game_id: str, ms: int, *, at: float | None = None) -> int:
        """Add ``ms`` (0 to :data:`MAX_ACTIVE_REPORT_MS`) of active playing
        time; returns the game's total. A report made ``at`` an instant of
        a clock that every process of the computer shares (the web game's:
        :func:`time.monotonic`) takes no more than the time since the
        game's last such report, made by any process on this store
        (:func:`report_mark`): more raises :class:`TimeTooMuchError`, and
        nothing is added; to a game given up, :class:`GivenUpError` (checked
        with the write: a report read before another tab gave the game up
        adds nothing after it). Time reported while the game stands
        won counts towards its first win only while no time was counted
        since that win outside it and the winning change is still the
        game's last (the report that follows the winning move carries the
        last of its time; a report after moves were taken back and played
        again carries play after the win, which is no part of it)."""
        ...

    def time_mark(self, game_id: str) -> float | None:
        """The instant (of the clock :meth:`add_active_time` is given
        ``at``) up to which the game's active time was reported, by any
        process on this store; None before its first such report."""
        ...

    def recent(self, limit: int = 20) -> list[StoredGame]:
        """The most recently updated games, newest first."""
        ...

    def history(self, game_id: str) -> list[dict[str, Any]]:
        """The game's stored changes, oldest first: ``action``, ``move``
        (the move played, undone or redone, if any), ``moves`` (played
        after it), ``revision`` and ``at`` (seconds since the epoch)."""
        ...

    def statistics(self, zone: tzinfo | None = None) -> dict[str, Any]:
        """Per-variant and overall statistics, the chart's days in ``zone``
        (None: this computer's local time; see
        :func:`terrace.storage.statistics.summarize`)."""
        ...


GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a game id may be: the ids made here, and those an imported record
or a request may name."""
LATEST_GAME = "current"
"""The web API's old name of the latest unfinished game (``GET
/api/games/current``, which pages of older versions ask; the page asks
``/api/current-game`` now): the address a game of that id has, so no
imported record may give a game this id
(:func:`terrace.storage.transfer.game_from_record`); one imported before
that was refused is served there first."""


def new_game_id() -> str:
    """A fresh, URL-safe game id (it matches :data:`GAME_ID`)."""
    return uuid.uuid4().hex[:16]


def new_game(variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False) -> StoredGame:
    """A game to store: the variant's canonical name, the status of the
    first position, created now. Raises :class:`StoreError` when the rules
    or the deal do not make a game."""
    try:
        variant = canonical_name(variant)
        status = Board(rules, deal).status.value
    except TerraceError as error:
        raise StoreError(f"cannot start this game: {error}") from None
    now = time.time()
    return StoredGame(
        new_game_id(), variant, rules, deal, status=status,
        winnable_only=bool(winnable_only), created_at=now, updated_at=now,
    )


def position_key(key: object) -> bool:
    """Whether ``key`` is a position key :meth:`GameStore.count_hint` takes:
    printable text (as :meth:`Board.position` gives; a lone surrogate, which
    no file can hold, or a control character is none) of 1 to
    :data:`MAX_POSITION_KEY` characters.

    >>> position_key("9 - -,- 0"), position_key("a\\nb"), position_key("\\ud800"), position_key("")
    (True, False, False, False)
    """
    return isinstance(key, str) and 0 < len(key) <= MAX_POSITION_KEY and key.isprintable()


def check_position_key(key: object) -> str:
    """Refuse a position key that is not one (:func:`position_key`)."""
    if not position_key(key):
        raise StoreError(f"a position key must be printable text of 1 to {MAX_POSITION_KEY} characters")
    assert isinstance(key, str)
    return key


def check_active_ms(ms: object) -> int:
    """Refuse an active time that is not a whole number of milliseconds from
    0 to :data:`MAX_ACTIVE_REPORT_MS`."""
    if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_ACTIVE_REPORT_MS:
        raise StoreError(
            f"active time must be a whole number of milliseconds from 0 to {MAX_ACTIVE_REPORT_MS}"
        )
    return ms


def check_action(action: str) -> None:
    """Refuse an action an update cannot log."""
    if action not in ACTIONS or action == "create":
        raise StoreError(f"unknown action {action!r}")


def check_identity(variant: str, rules: dict[str, Any], deal_text: str, game: StoredGame) -> None:
    """Refuse an update that changes a saved game's variant, rules (as
    ``Rules.to_dict()``) or deal (as its deal string)."""
    if (variant, saved_rules(rules), deal_text) != (game.variant, game.rules.to_dict(), game.deal.text()):
        raise StoreError("the variant, rules and deal of a saved game cannot change")


def check_saved(game: StoredGame, *, now: float | None = None, prefix: str = "") -> None:
    """The rules of a valid saved game, in one place: the loader
    (:func:`terrace.storage.rows.load_game`, so every read, the export and
    the statistics) and the import (:mod:`terrace.storage.transfer`) check a
    game with this, after each has read its values as numbers, text and
    lists (``prefix`` goes before a value's name in a message, e.g.
    ``"saved."``). Raises :class:`StoreError` with the reason. An id may
    be empty (an import gives it one).

    With ``now`` (the import, and the export, which writes only what an
    import takes) no time may lie more than :data:`AHEAD` seconds after it;
    the loader leaves that out, so that a game stays playable when the
    computer's clock is put back."""
    _check_fields(game, now=now, prefix=prefix)
    _replayed(game, Refusal.SAVED_NOT_REPLAYED, Refusal.SAVED_STATUS_SAYS, prefix)
    _check_outcome(game, prefix)


def check_fields(game: StoredGame) -> None:
    """The parts of :func:`check_saved` that need no replay, as the loader
    applies them: for a game whose replay stamp vouches for the rest
    (:func:`terrace.storage.rows.replay_stamp`)."""
    _check_fields(game, now=None, prefix="")


def _check_fields(game: StoredGame, *, now: float | None, prefix: str) -> None:
    """The parts of :func:`check_saved` that come before the replay (so
    that a line too long to replay is refused before it is replayed)."""
    if not isinstance(game.id, str) or (game.id and not GAME_ID.fullmatch(game.id)):
        raise StoreError(Reason(Refusal.SAVED_ID, field=prefix))
    for name, limit in COUNTS.items():
        _check_count(getattr(game, name), f"{prefix}{name}", limit)
    _check_count(game.revision, f"{prefix}revision", MAX_REVISION)
    if game.won_active_ms is not None:
        _check_count(game.won_active_ms, f"{prefix}won_active_ms", MAX_ACTIVE_MS)
    check_times(game, now=now, prefix=prefix)
    if game.line_length() > MAX_LINE:
        raise StoreError(Reason(Refusal.SAVED_LINE_TOO_LONG, field=prefix, most=MAX_LINE))


def _check_outcome(game: StoredGame, prefix: str) -> None:
    """The parts of :func:`check_saved` about how the game ended."""
    if (game.won_at is None) != (game.won_moves is None):
        raise StoreError(Reason(Refusal.SAVED_WIN_PAIR, field=prefix))
    if game.won_moves is not None:
        _check_count(game.won_moves, f"{prefix}won_moves", MAX_LINE)
        fewest = fewest_moves_to_win(game.rules, game.deal)
        if game.won_moves < fewest:
            raise StoreError(Reason(Refusal.SAVED_WIN_TOO_SHORT, field=prefix, moves=game.won_moves,
                                    fewest=fewest))
    if game.given_up_at is not None:
        # (a game lost by having no move left may be given up: that makes
        # the loss final, as the web game allows)
        if game.won_at is not None or game.status == "won":
            raise StoreError(Reason(Refusal.SAVED_GIVEN_UP_WON, field=prefix))
        if not game.line_length():
            raise StoreError(Reason(Refusal.SAVED_GIVEN_UP_UNPLAYED, field=prefix))


def _played_as(board: Board, moves: list[str]) -> bool:
    """Whether ``board``'s history is ``moves``, each as the notation prints
    it. Each different text is read once (a game holds a few hundred):
    a ``str()`` of each of 100,000 moves took a tenth of an import's time."""
    try:
        read = {text: Move.parse(text) for text in set(moves)}
    except TerraceError:
        return False
    return (all(str(move) == text for text, move in read.items())
            and [read[text] for text in moves] == board.move_stack)


def _put_redo(board: Board, redo: list[str]) -> None:
    """Give ``board`` the redo stack ``redo`` (the next move to redo last):
    its moves are played, then taken back."""
    for text in reversed(redo):
        board.push(Move.parse(text))
    for _ in redo:
        board.pop()


def check_times(game: StoredGame, *, now: float | None = None, prefix: str = "") -> None:
    """The times part of :func:`check_saved` (the same ``now`` and
    ``prefix``): each time set lies from :data:`EARLIEST` to :data:`LATEST`, or, with ``now``, to
    at most :data:`AHEAD` seconds after it. The import also checks the
    times a record gives before it drops those its result leaves unused (a
    ``finished_at`` of a game still being played), so that no time out of
    range is taken silently."""
    first, last = saved_years()
    latest = LATEST if now is None else min(LATEST, now + AHEAD)
    for name in TIMES:
        value = getattr(game, name)
        if value is None and name not in TIMES[:2]:
            continue
        if value is None or not EARLIEST <= value <= latest:  # (the first two are never null)
            nullable = name not in TIMES[:2]
            if now is None:
                code = Refusal.SAVED_TIME_OR_NULL if nullable else Refusal.SAVED_TIME
            else:
                code = Refusal.SAVED_TIME_NOW_OR_NULL if nullable else Refusal.SAVED_TIME_NOW
            raise StoreError(Reason(code, field=prefix + name, first=first, last=last, minutes=AHEAD / 60,
                                    value="null" if value is None else quote(value)))


@functools.lru_cache(maxsize=256)
def fewest_moves_to_win(rules: Rules, deal: Deal) -> int:
    """A lower bound on the moves any win of this deal takes: every card
    must reach a foundation, a move puts at most one there, and the choice
    of the base card at most one per candidate pile.

    This is all a saved game can prove of its first win (``won_moves``):
    after a win the player may take moves back and play others, which
    replaces the moves that won (and may make the line shorter), so neither
    replaying the line nor its length can refute a larger number.

    >>> from terrace.variants import get_rules
    >>> fewest_moves_to_win(get_rules("terrace"), Deal.from_number(1, get_rules("terrace")))
    102
    """
    start = Board(rules, deal)
    by_choice = max(rules.candidates - 1, 0) if start.choosing else 0
    return max(rules.card_count - start.foundation_cards - by_choice, 1)


def _check_count(value: object, name: str, limit: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise StoreError(Reason(Refusal.SAVED_COUNT, field=name, limit=limit, value=quote(value)))


def check_game(game: StoredGame) -> None:
    """Check ``game`` before it is written, by the rules every read applies
    (:func:`check_saved`): a write never stores what
    a later read would take for a damaged game. Raises :class:`UnsavableGameError`
    with the reason, e.g. when the computer's clock reads before 2000 or
    the line has grown past :data:`MAX_LINE` moves."""
    name = f"game {game.id}" if game.id else "the game"
    if clock_outside(game.updated_at):  # (a change is stamped with the clock)
        raise ClockOutOfRangeError(name, game.updated_at)
    if game.line_length() > MAX_LINE:
        too_long = f"{name} cannot be saved: redo and the moves hold more than {MAX_LINE:,} moves"
        raise LineTooLongError(too_long, MAX_LINE)
    try:
        _check_fields(game, now=None, prefix="")
        _replayed(game, None, Refusal.SAVED_STATUS_IS)
        _check_outcome(game, "")
    except StoreError as error:
        why = finding(error)
        unsavable = (Reason(Refusal.GAME_UNSAVABLE, game=game.id, why=why) if game.id
                     else Reason(Refusal.NEW_GAME_UNSAVABLE, why=why))
        raise UnsavableGameError(unsavable) from None


def _replayed(game: StoredGame, unplayable: Refusal | None, wrong_status: Refusal, prefix: str = "") -> None:
    """Check the status ``game``'s moves reach against the stored one; a
    failure raises :class:`StoreError` with the caller's code (``unplayable``
    around the engine's refusal, None for the refusal alone; ``wrong_status``
    with ``said`` and ``reached``). The engine's refusal names the move
    that fails, ``move 6: ...`` or ``redo item 2 of 3: ...``, after
    ``prefix``."""
    try:
        canonical_name(game.variant)
        reached = game.reached_status()
    except TerraceError as error:
        why = _failing_move(game, prefix, finding(error))
        raise StoreError(why if unplayable is None else Reason(unplayable, error=why)) from None
    if game.status != reached:
        raise StoreError(Reason(wrong_status, said=Quoted(game.status), reached=Quoted(reached)))


def finding(error: Exception) -> Reason | str:
    """What ``error`` says, to nest in another refusal: an engine's or a
    store's coded reason (a refused move with the move first, as its
    English says it), else its words."""
    if not isinstance(error, TerraceError) or error.reason is None:
        return str(error)
    if isinstance(error, IllegalMoveError) and error.move is not None:
        return Reason(Refusal.SAVED_MOVE_REFUSED, move=error.move, error=error.reason)
    return error.reason


def _failing_move(game: StoredGame, prefix: str, error: Reason | str) -> Reason | str:
    """``error`` with where the line of ``game`` stops replaying before it:
    ``move 6: ...`` (counted from 1 in its moves) or ``redo item 2 of 3:
    ...`` (the item of its redo list as stored and exported, the next to
    redo last); alone when no move is at fault (the rules or the deal are)."""
    try:
        board = Board(game.rules, game.deal)
    except TerraceError:
        return error
    for number, text in enumerate(game.moves, 1):
        if not _played(board, text):
            return Reason(Refusal.SAVED_AT_MOVE, number=number, error=_past_end(board, text) or error)
    for item in range(len(game.redo), 0, -1):
        text = game.redo[item - 1]
        if not _played(board, text):
            return Reason(Refusal.SAVED_AT_REDO, field=prefix, item=item, items=len(game.redo),
                          error=_past_end(board, text) or error)
    return error


def _played(board: Board, text: str) -> bool:
    """Play the move ``text`` on ``board``; False when it cannot be read or played."""
    try:
        board.push(Move.parse(text))
    except TerraceError:
        return False
    return True


def _past_end(board: Board, text: str) -> Reason | None:
    """Why the move ``text``, one the notation reads, cannot follow when
    the game on ``board`` is over (:meth:`~terrace.board.Board.ended`,
    said after the move as the engine's refusal is); else None."""
    ended = board.ended()
    if ended is None:
        return None
    try:
        move = str(Move.parse(text))
    except TerraceError:  # (no move: its own refusal says so)
        return None
    return Reason(Refusal.SAVED_MOVE_REFUSED, move=move, error=ended)

