"""The statistics of a SQLite store: what they found of each game, kept.

:class:`Tallying` is the part of :class:`~terrace.storage.sqlite.SqliteStore`
that reads and checks the games for its statistics and keeps what it found
of each (:class:`_Tally`): game by game as this store changes them (the
connection's temporary triggers, :data:`TOUCHED_TRIGGERS`), and in the file
for the next process (:data:`~terrace.storage.migrations.FOUND`). See
``docs/storage.md``, "Statistics at 100,000 games".
"""

from __future__ import annotations

import copy
import json
import logging
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import tzinfo
from pathlib import Path
from typing import Any

from terrace.bounded import Bounded
from terrace.refusals import Reason, Refusal
from terrace.storage.base import DamagedGameError, NewerGameError, StoredGame, StoreError, StoreStoppedError
from terrace.storage.files import logged
from terrace.storage.findings import file_state, note_sound, note_whole, read_sound, row_digest
from terrace.storage.line import Line
from terrace.storage.migrations import (
    FOUND,
    FOUND_SINCE,
    FOUND_VALUES,
    LINE_CHANGES,
    LINE_CHECKED,
    LINE_DIGEST,
    SUMMARY_SINCE,
    counting_fault,
    found_fault,
    found_trusted,
    lines_trusted,
    reads_as_is,
    trust_found,
    trust_lines,
)
from terrace.storage.rows import (
    FACT_COLUMNS,
    GAME_COLUMNS,
    GAME_READ,
    LINES,
    REPLAY_STAMP_VERSION,
    bounded,
    digest_stamp,
    line_digest,
    load_game,
    read_line,
    replay_stamp,
    stamp_fits,
    stamped_values,
)
from terrace.storage.running import Running
from terrace.storage.statistics import GameFacts
from terrace.storage.summary import VERSION as ANSWERS_VERSION
from terrace.storage.summary import keep, kept, statistics_key, statistics_shape

log = logging.getLogger(__name__)

_WIDTH = len(GAME_COLUMNS.split(","))
"""How many columns a game's row has."""


def _touch_triggers(table: str, prefix: str, *, by_row: bool = False) -> tuple[str, ...]:
    """The triggers by which a store's connection notes in ``table`` the
    games it changes, by id (``by_row``: by rowid); their names begin with
    ``prefix``."""
    note = f"INSERT OR IGNORE INTO {table} (game) {{}};"
    key = "rowid" if by_row else "id"
    of_log = "SELECT rowid FROM main.games WHERE id = {}" if by_row else "VALUES ({})"
    return (
        *(f"CREATE TEMP TRIGGER IF NOT EXISTS {prefix}_games_{event.lower()} AFTER {event} ON main.games "
          f"BEGIN {note.format(f'VALUES ({row}.{key})')} END" for event, row in (("INSERT", "NEW"),
                                                                                 ("DELETE", "OLD"))),
        # (what the statistics read of a game's row, and its count of changes
        # to its moves: its replay stamp and line digest, which the statistics
        # themselves keep, leave it as it was counted)
        f"CREATE TEMP TRIGGER IF NOT EXISTS {prefix}_games_update AFTER UPDATE OF {GAME_COLUMNS}, "
        f"{LINE_CHANGES} ON main.games BEGIN {note.format(f'VALUES (OLD.{key})')} "
        f"{note.format(f'VALUES (NEW.{key})')} END",
        *(f"CREATE TEMP TRIGGER IF NOT EXISTS {prefix}_events_{event.lower()} AFTER {event} ON main.events "
          f"BEGIN {' '.join(note.format(of_log.format(row)) for row in rows_of)} END"
          for event, rows_of in (("INSERT", ("NEW.game_id",)), ("DELETE", ("OLD.game_id",)),
                                 ("UPDATE", ("OLD.game_id", "NEW.game_id")))),
    )


TOUCHED = "stats_touched"
"""The table (of the connection's own, not the file's) in which a store's
connection notes the ids of the games it changed since its statistics last
read them."""
TOUCHED_TRIGGERS = _touch_triggers(TOUCHED, "stats")
"""The triggers by which a store's connection notes the games it changes
(in :data:`TOUCHED`): a game's row, or its log, whose places in it the
statistics read. They run for this connection's changes only; another
connection's show in ``PRAGMA data_version``, and then every game is read."""
RECENT_TOUCHED = "recent_touched"
"""As :data:`TOUCHED`, the rowids of the games changed since the recent
games' order last placed them (:class:`~terrace.storage.recent.RecentOrder`,
which keeps no game's id)."""
RECENT_TRIGGERS = _touch_triggers(RECENT_TOUCHED, "recent", by_row=True)
"""The triggers that note them (as :data:`TOUCHED_TRIGGERS`)."""
SUMMARIES_KEPT = 4
"""For how many time zones a store keeps the statistics it found last
(the web game's players name theirs: a few at a time)."""
DAMAGED = "damaged"
"""What the statistics found of a game that does not load."""
NEWER = "newer"
"""What the statistics found of a game a newer Terrace saved."""
FOUND_VERSION = 100 * 1 + REPLAY_STAMP_VERSION
"""The version of what the statistics keep of each game in the file
(:data:`~terrace.storage.migrations.FOUND`): raise the first number when
:data:`~terrace.storage.rows.FACT_COLUMNS` or the checks of a read change
(a new replay stamp's version raises it too), and every game is read and
checked again once."""
KEPT_VERSION = 1000 * FOUND_VERSION + ANSWERS_VERSION
"""The version under which the answers kept whole in the file
(:mod:`terrace.storage.summary`) are taken: a newer way of checking the
games or of counting them has them counted again."""
_SOUND = "ok"
"""What the file's table of findings says of a game that loads."""
_FOUND_VALUES = ", ".join(f"{FOUND}.f{n}" for n in range(1, FOUND_VALUES + 1))
_KEPT = f"{FOUND}.game_id = games.id AND {FOUND}.found = '{_SOUND}'"
"""A game's findings kept in the file, of a game found sound."""
_KEEP_FOUND = f"INSERT OR REPLACE INTO {FOUND} VALUES (?, ?, {', '.join('?' * FOUND_VALUES)})"


Progress = Callable[[int, int], None]
"""Told how many games of how many a long check of the statistics has
checked: (0, total) as it starts, then at each tenth of the way."""
LONG_CHECK = 5_000
"""How many games a check of the statistics must have for its progress to
be told (about a second's work or more)."""

class _Told:
    """A :data:`Progress` told the steps of a check of ``total`` games."""

    def __init__(self, progress: Progress, total: int) -> None:
        self.progress, self.total, self.step = progress, total, max(1, total // 10)
        progress(0, total)

    @classmethod
    def of(cls, progress: Progress, total: int) -> _Told | None:
        """A progress for a check of ``total`` games, or None when too few
        to tell."""
        return cls(progress, total) if total >= LONG_CHECK else None

    def checked(self, number: int) -> None:
        """``number`` games are checked."""
        if number % self.step == 0 or number == self.total:
            self.progress(number, self.total)


def _trigger_name(sql: str) -> str:
    """The name of the trigger ``sql`` makes."""
    return sql.split(" IF NOT EXISTS ")[1].split()[0]


class _Tally:
    """What the statistics found of each game (its facts, or
    :data:`DAMAGED` or :data:`NEWER`), by rowid, under ``seen`` (the
    file's data version and layout, and whether its lines are counted), with
    the statistics summed from it by zone, kept up to date game by game
    (:class:`~terrace.storage.running.Running`); ``generation`` counts its
    changes."""

    def __init__(self, seen: tuple[Any, ...]) -> None:
        self.seen = seen
        self.found: dict[int, GameFacts | str] = {}
        self.rowids: dict[Any, int] = {}
        self.summaries: dict[tzinfo | None, dict[str, Any]] = {}
        self.generation = 0
        self._marks: Counter[str] = Counter()
        self._running: Running | None = None
        self._changed_rows: set[int] = set()

    def put(self, rowid: int, game_id: Any, found: GameFacts | str) -> None:
        """What was found of the game of ``rowid``."""
        self._drop(rowid)
        self.found[rowid] = found
        if isinstance(found, str):
            self._marks[found] += 1
        self.rowids[game_id] = rowid
        self._changed()

    def forget(self, game_ids: set[Any]) -> None:
        """Forget the games of ``game_ids`` (changed, or gone)."""
        for game_id in game_ids:
            rowid = self.rowids.pop(game_id, None)
            if rowid is not None:
                self._drop(rowid)
        self._changed()

    def _drop(self, rowid: int) -> None:
        found = self.found.pop(rowid, None)
        if isinstance(found, str):
            self._marks[found] -= 1
        self._changed_rows.add(rowid)

    def _changed(self) -> None:
        self.summaries.clear()
        self.generation += 1

    def summary(self, zone: tzinfo | None, going_on: Callable[[], None]) -> dict[str, Any]:
        """The statistics of the games found, the chart's days in ``zone``:
        the games changed since the last are counted again, the others
        as they were. A count of every game calls ``going_on`` as it goes
        (:class:`~terrace.storage.running.Running`); stopped by it, what
        it had counted is dropped, and the next summary counts anew."""
        try:
            if self._running is None:
                self._running = Running({r: f for r, f in self.found.items() if isinstance(f, GameFacts)},
                                        zones_kept=SUMMARIES_KEPT, going_on=going_on)
            else:
                self._running.going_on = going_on
                self._running.update({r: f if isinstance(f := self.found.get(r), GameFacts) else None
                                      for r in self._changed_rows})
            self._changed_rows.clear()
            return self._running.summary(zone, self.damaged, self.newer)
        except BaseException:
            self._running = None
            raise

    @property
    def damaged(self) -> int:
        return self._marks[DAMAGED]

    @property
    def newer(self) -> int:
        return self._marks[NEWER]


def _readable_id(game_id: Any, raw: Any) -> bool:
    """True when a stored id is text that reads back as it is stored (an
    id with a byte that is not UTF-8 reads with U+FFFD, which finds
    nothing: that game is damaged)."""
    return isinstance(game_id, str) and game_id.encode() == raw


class Tallying:
    """The statistics of a :class:`~terrace.storage.sqlite.SqliteStore`,
    which gives them what is declared here: its connection's transactions,
    the games it remembers and found sound, and the file's state."""

    read_only: bool
    schema_version: int
    _name: str
    _file: Path | None
    _stopping: threading.Event
    _data_version: int
    _lines_counted: bool
    _tally: _Tally | None
    _tally_lock: threading.Lock
    _restudy: set[Any]
    _sound: dict[Any, int]
    _counted_sound: dict[Any, tuple[int, Any]]
    _distrusted: set[str]
    _remembered: Bounded[str, StoredGame]
    _whole: list[int] | None
    _whole_noted: bool
    _zones_asked: list[tzinfo | None]
    _transaction: Callable[..., AbstractContextManager[sqlite3.Connection]]
    _spare_write: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _others_wrote: Callable[[sqlite3.Connection], None]
    _saved_line: Callable[[sqlite3.Connection, str, Any], Line | None]

    def statistics(self, zone: tzinfo | None = None, *, progress: Progress | None = None) -> dict[str, Any]:
        """The statistics of every game that loads, the chart's days in
        ``zone`` (None: local time); ``progress`` is told how far a check
        of at least :data:`LONG_CHECK` games has gone. A damaged game (one
        that :meth:`~terrace.storage.sqlite.SqliteStore.get` refuses and
        ``export --all`` skips) is left out and counted in ``damaged``, or
        in ``newer`` when a newer Terrace
        saved it (:class:`~terrace.storage.base.NewerGameError`). The
        store keeps what it found of each game (:class:`_Tally`): while
        no other connection wrote, the next statistics read again only the
        games this store changed since (:data:`TOUCHED_TRIGGERS`), and
        when none changed they are the statistics found last. What they
        found of each sound game is kept in the file too
        (:data:`~terrace.storage.migrations.FOUND`), so that a new process
        checks only the games changed since, by any program. And the
        statistics themselves are kept whole in the file
        (:mod:`terrace.storage.summary`) until any game changes: a store
        that knows none of them in memory takes them from there, reading
        no game."""
        what = statistics_key(zone) if self.schema_version >= SUMMARY_SINCE else None
        self._zones_asked = [*(z for z in self._zones_asked if z != zone), zone][-SUMMARIES_KEPT:]
        held = self._tally
        if what is not None and (held is None or zone not in held.summaries):
            answer = self._kept_answer(what, statistics_shape)
            if answer is not None:
                return dict(answer)
        tally = self._tallied(progress)
        with self._tally_lock:
            found = tally.summaries.get(zone)
            if found is None:
                self._going_on()
                found = tally.summary(zone, self._going_on)
                while len(tally.summaries) >= SUMMARIES_KEPT:  # (the oldest zone asked for goes)
                    del tally.summaries[next(iter(tally.summaries))]
                tally.summaries[zone] = found
                if what is not None and not (found["damaged"] or found["newer"]):
                    self._keep_answer(what, found, tally.seen[0], TOUCHED)
            return copy.deepcopy(found)

    def _kept_answer(self, what: str, shaped: Callable[[Any], bool]) -> Any:
        """The answer kept whole in the file as ``what``, when it may be
        taken and ``shaped`` finds it of the right shape, else None."""
        with self._transaction(write=False) as conn:
            answer = kept(conn, what, KEPT_VERSION)
        return answer if answer is not None and shaped(answer) else None

    def _keep_answer(self, what: str, answer: Any, read_at: int, touched: str) -> None:
        """Keep ``answer`` whole in the file as ``what``, found by a read at
        data version ``read_at``: only while no other connection wrote since
        and this store changed no game since (none noted in its table
        ``touched``), and while every change to a line is counted (a move
        row changed by hand then drops it too). A store opened to read, or
        a write refused or waiting for another program's lock, keeps
        nothing and loses nothing: the next store that counts keeps it."""
        if self.read_only or self.schema_version < SUMMARY_SINCE or not self._lines_counted or self._restudy:
            return
        try:
            with self._spare_write() as conn:
                if (self._data_version != read_at or not self._watching(conn, touched)
                        or conn.execute(f"SELECT 1 FROM temp.{touched} LIMIT 1").fetchone() is not None):
                    return
                keep(conn, what, KEPT_VERSION, answer)
        except StoreError as error:
            log.info("the answer %r not kept: %s", what, error)

    def _keep_answers_at_close(self) -> None:
        """Bring the statistics kept whole in the file up to date as the
        store closes, for the zones asked for last, when this store can
        count them from what it knows (every game counted, no other
        connection wrote since): a store that changed games after its
        statistics leaves them counted for the next process (a server
        started again, ``terrace stats``), where the file's triggers had
        dropped them. Nothing is counted anew, nothing waits."""
        if self.read_only or self._tally is None or self.schema_version < SUMMARY_SINCE:
            return
        try:
            with self._transaction(write=False) as conn:
                # (another connection's write, seen here, drops the tally: nothing is counted anew)
                changed = conn.execute(f"SELECT 1 FROM temp.{TOUCHED} LIMIT 1").fetchone() is not None
            tally = self._tally
            if tally is None or not (changed or any(z not in tally.summaries for z in self._zones_asked)):
                return
            for zone in self._zones_asked:
                self.statistics(zone)
        except (StoreError, sqlite3.Error) as error:
            log.info("the statistics not kept at closing: %s", error)

    def _going_on(self) -> None:
        """Raise :class:`StoreStoppedError` once the server is stopping
        (:meth:`~terrace.storage.sqlite.SqliteStore.stop_waiting`): the
        statistics ask between their steps. The first statistics of 100,000
        games took 45 s on a loaded machine, and the server, stopped
        meanwhile, waited for them to end before it did."""
        if self._stopping.is_set():
            raise StoreStoppedError(Reason(Refusal.STORE_STOPPING, name=self._name))

    def _tallied(self, progress: Progress | None = None) -> _Tally:
        """The tally of every game as the file now holds it: kept, the
        games this store changed since read again, or made anew."""
        """(Each
        game is checked as a read checks it: replayed once, each in its own short read so that moves are
        not kept waiting; the store then remembers the rows it found sound
        until it or another process changes them. A game whose replay
        stamp fits its row and the digest kept of its line
        (:data:`~terrace.storage.migrations.LINE_DIGEST`), its move rows
        unchanged since they were known to give that digest (their count
        of changes, kept by the file's triggers), is checked without
        reading its moves; the moves themselves are read when the game is
        opened (see docs/storage.md, "Checks").)"""
        with self._tally_lock:
            tally, self._tally = self._tally, None  # (kept only once whole again)
            tally = self._tally = self._tally_read(tally, progress)
            return tally

    def _tally_read(self, tally: _Tally | None, progress: Progress | None) -> _Tally:
        """:meth:`_tallied` with the tally found last (None: none)."""
        earned: list[tuple[str, str, int]] = []
        checked: list[tuple[str, Any, Any]] = []
        findings: list[tuple[Any, ...]] = []
        sound: dict[str, str] = {}
        told: _Told | None = None
        with self._transaction(write=False, stoppable=True) as conn:
            self._others_wrote(conn)
            trusted = self._lines_counted and lines_trusted(conn)
            layout = int(conn.execute("PRAGMA schema_version").fetchone()[0])
            # (whether the lines' counts are trusted changes only how a game
            # is checked, not what is found: the layout moves when it does)
            state = (self._data_version, layout, self._lines_counted)
            touched = (self._touched(conn, TOUCHED, TOUCHED_TRIGGERS)
                       if tally is not None and tally.seen == state else None)
            if touched is not None:
                touched |= self._restudy
            self._restudy.clear()
            if tally is None or touched is None or not all(isinstance(t, str) for t in touched):
                tally, touched = _Tally(state), None
                self._watch_changes(conn, TOUCHED, TOUCHED_TRIGGERS)
            elif not touched:
                return tally
            # (a file of schema 10, read as it stands, keeps no digests)
            kept = f"{bounded(LINE_DIGEST)}, {bounded(LINE_CHECKED)}"
            kept = "NULL, NULL" if self.schema_version < 11 else kept
            cached = touched is None and self._found_usable(conn)
            if cached:
                self._take_found(conn, tally)
            rows = conn.execute(
                f"SELECT {GAME_READ}, {FACT_COLUMNS}, rowid, {kept}, {bounded('replay_stamp')}, "
                f"{bounded('CAST(id AS BLOB)')}, {bounded(LINE_CHANGES)} FROM games"
                + ("" if touched is not None or not cached
                   else f" WHERE NOT EXISTS (SELECT 1 FROM {FOUND} WHERE {_KEPT})")
                + ("" if touched is None else " WHERE id IN (SELECT value FROM json_each(?))"),
                () if touched is None else (json.dumps(sorted(touched)),)).fetchall()
            read_at = self._data_version
            if touched is not None:
                tally.forget(touched)
            # (games not found sound since they last changed, here or by
            # another connection; of those, the stamped ones whose moves are
            # known to give the digest kept with them are checked by it, the
            # other stamped ones have their lines read, to check the stamps)
            digests = self._take_noted(rows, layout) if touched is None and not cached and trusted else None
            counted = self._counted_sound if self._lines_counted else {}
            unsure = {r[0] for r in rows if self._sound.get(r[0]) != (seen := hash(r[:_WIDTH]))
                      and counted.get(r[0]) != (seen, r[-1])}
            if touched is None and not cached and progress is not None:
                told = _Told.of(progress, len(rows)) if len(unsure) >= LONG_CHECK else None
            by_digest = self._by_digest(rows, unsure) if trusted else {}
            stamped = [r[0] for r in rows if r[0] in unsure and r[0] not in by_digest and r[-3] is not None
                       and isinstance(r[0], str)]
            found = conn.execute(LINES, (json.dumps(stamped),)) if stamped else []
            lines = {row[0]: row[1:] for row in found}
        for number, (*columns, rowid, _, _, stamp, raw_id, changes) in enumerate(rows, 1):
            if told is not None:
                told.checked(number)
            self._going_on()
            row = tuple(columns)
            if not _readable_id(row[0], raw_id):
                log.warning("%s: a saved game has a damaged id (%r) and is left out", self._name, row[0])
                tally.put(rowid, row[0], DAMAGED)
                continue
            if row[0] in unsure:
                try:
                    if row[0] in by_digest:
                        load_game(row[:_WIDTH], Line.blank(by_digest[row[0]]), stamped=True, check_only=True)
                        self._sound[row[0]] = hash(row[:_WIDTH])
                    elif self._stamp_holds(row, stamp, lines):
                        joined, moves, _ = lines.get(row[0], ("", 0, 0))
                        checked.append((f"{moves}:{Line.digest_of_joined(joined, moves):x}", row[0], changes))
                    else:
                        row = self._sound_row(row[0], earned, checked)
                except NewerGameError as error:
                    log.warning("%s", error)
                    tally.put(rowid, row[0], NEWER)
                    findings.append((row[0], NEWER))
                    continue
                except DamagedGameError as error:
                    log.warning("%s", error)
                    tally.put(rowid, row[0], DAMAGED)
                    findings.append((row[0], DAMAGED))
                    continue
            if row is not None:
                tally.put(rowid, row[0], GameFacts.from_row(row[_WIDTH:]))
                self._counted_sound[row[0]] = (hash(row[:_WIDTH]), changes)
                findings.append((row[0], _SOUND, *row[_WIDTH:]))
                if (digests is not None and isinstance(row[0], str) and tuple(row) == tuple(columns)
                        and row[0] not in self._distrusted):
                    sound[row[0]] = digests[row[0]]
        self._keep_stamps(earned, checked, None if trusted else layout)
        self._keep_found(findings, read_at, whole=touched is None and not cached)
        self._note_found(None if digests is None or not unsure else ([layout, FOUND_VERSION], sound))
        return tally

    def _note_found(self, found: tuple[list[int], dict[str, str]] | None) -> None:
        """Note, for a store opened only to read, the games its statistics
        found sound (``found``: under which layout and versions, and
        each game's digest; None: nothing new) and the state in which it
        found the whole file sound, while the file is in it still (no log
        or journal beside it): the next ``terrace stats`` does not check
        the whole file again
        (:meth:`~terrace.storage.sqlite.SqliteStore._check_file`: 1.3 s of
        CPU at 20,000 games). Only the statistics note it: ``terrace export``, which
        also opens the file only to read, writes nothing."""
        if not self.read_only or self._file is None:
            return
        whole = self._whole if self._whole is not None and not logged(self._file) else None
        whole = whole if whole is not None and file_state(self._file) == whole else None
        if found is not None:
            note_sound(self._file, *found, whole=whole)
        elif whole is not None and not self._whole_noted:
            note_whole(self._file, whole)
        self._whole_noted = whole is not None

    def _take_noted(self, rows: list[Any], layout: int) -> dict[Any, str] | None:
        """For a store opened only to read a file it reads as it stands (not
        upgraded in a copy in memory) and which keeps no findings it may
        take (:meth:`_found_usable`), each game's
        :func:`~terrace.storage.findings.row_digest` (each row as
        :meth:`statistics` reads it, its count of changes last); the games
        whose digest is the one noted when a store like it last found them
        sound (:mod:`terrace.storage.findings`) are taken as sound, as if
        this store had found them. None for any other store."""
        if not self.read_only or self._file is None or not reads_as_is(self.schema_version):
            return None
        digests = {r[0]: row_digest(r[:_WIDTH], r[-1]) for r in rows}
        noted = read_sound(self._file, [layout, FOUND_VERSION])
        for r in rows:
            if isinstance(r[0], str) and noted.get(r[0]) == digests[r[0]] and r[0] not in self._distrusted:
                self._counted_sound[r[0]] = (hash(r[:_WIDTH]), r[-1])
        return digests

    def _found_usable(self, conn: sqlite3.Connection) -> bool:
        """Whether what the file keeps of each game's findings
        (:data:`~terrace.storage.migrations.FOUND`) may be taken as it is:
        kept by this version of the statistics, its triggers in place since
        (the file's layout unchanged), and every change to a game's moves
        counted in its row."""
        return (self.schema_version >= FOUND_SINCE and self._lines_counted
                and found_trusted(conn, FOUND_VERSION))

    def _take_found(self, conn: sqlite3.Connection, tally: _Tally) -> None:
        """Put in ``tally`` what the file keeps of the games found sound
        before and unchanged since (their values pass
        :meth:`GameFacts.from_row` as a read's do: a row edited by hand
        counts as its values say, or as unknown, never fails). A game found
        damaged, or saved by a newer Terrace (which an update of this one
        reads), is not kept: it is checked again each time, as before."""
        for rowid, game_id, *values in conn.execute(
                f"SELECT games.rowid, games.id, {_FOUND_VALUES} FROM {FOUND} JOIN games ON {_KEPT}"):
            self._going_on()
            tally.put(rowid, game_id, GameFacts.from_row(values))

    def _keep_found(self, found: list[tuple[Any, ...]], read_at: int, *, whole: bool) -> None:
        """Keep in the file what the statistics just found of the sound
        games in ``found`` (``whole``: of every game), so that the next
        process takes it as it is; only while no other connection wrote
        since it was read (data version ``read_at``), and not for a game
        this store changed meanwhile. A game found damaged (or newer) has
        what was kept of it dropped: damage no trigger saw (a move row
        changed under SQLite, found when the game was opened) stays found
        by the next process. A file of an older layout, a store opened to
        read, or a write refused keep nothing and lose nothing: the next
        statistics check those games again."""
        found = [entry for entry in found if isinstance(entry[0], str)]
        if not found or self.read_only or self.schema_version < FOUND_SINCE:
            return
        try:
            with self._spare_write() as conn:
                conn.executemany(f"DELETE FROM {FOUND} WHERE game_id = ?",
                                 [entry[:1] for entry in found if entry[1] != _SOUND])
                found = [entry for entry in found if entry[1] == _SOUND]
                if not found or self._data_version != read_at or not self._lines_counted:
                    return
                if not found_trusted(conn, FOUND_VERSION):
                    if not whole or found_fault(conn) is not None:
                        return
                    conn.execute(f"DELETE FROM {FOUND}")
                    trust_found(conn, FOUND_VERSION)
                since = {game_id for (game_id,) in conn.execute(
                    f"SELECT game FROM temp.{TOUCHED}")} if self._watching(conn) else set()
                conn.executemany(_KEEP_FOUND, [entry for entry in found if entry[0] not in since])
        except StoreError as error:
            log.info("the statistics' findings not kept: %s", error)

    def _watching(self, conn: sqlite3.Connection, table: str = TOUCHED) -> bool:
        """Whether this connection notes the games it changes (in ``table``:
        :data:`TOUCHED`, :data:`RECENT_TOUCHED`)."""
        found = conn.execute("SELECT 1 FROM sqlite_temp_schema WHERE name = ?", (table,)).fetchone()
        return found is not None

    def _watch_changes(self, conn: sqlite3.Connection, table: str, triggers: Sequence[str]) -> None:
        """Have this connection note in ``table`` the games it changes from
        now on (by ``triggers``: :data:`TOUCHED_TRIGGERS`,
        :data:`RECENT_TRIGGERS`), with none noted yet; a store opened only
        to read changes none."""
        if self.read_only:
            return
        for statement in (f"CREATE TEMP TABLE IF NOT EXISTS {table} (game PRIMARY KEY)",
                          *triggers, f"DELETE FROM {table}"):
            conn.execute(statement)

    def _touched(self, conn: sqlite3.Connection, table: str, triggers: Sequence[str]) -> set[Any] | None:
        """The ids (or rowids) of the games this store changed since it last took them
        from ``table`` (taken: noted no more), or None when that is not
        known (the notes were never started, or one of their ``triggers``
        is gone: every game is read)."""
        if self.read_only:
            return set()
        found = {name for (name,) in conn.execute("SELECT name FROM sqlite_temp_schema")}
        if table not in found or not {_trigger_name(sql) for sql in triggers} <= found:
            return None
        touched = {game for (game,) in conn.execute(f"SELECT game FROM {table}")}
        conn.execute(f"DELETE FROM {table}")
        return touched

    def _by_digest(self, rows: list[Any], unsure: set[Any]) -> dict[Any, int]:
        """Of the games in ``unsure``, those whose replay stamp fits their
        row and the digest it keeps of their line, their move rows changed
        no more since they were known to give it (each row as
        :meth:`statistics` reads it: the digest, the count then, the stamp,
        the id as a BLOB and the count now last), with their lines'
        lengths."""
        found = {}
        for row in rows:
            digest, count, stamp, changes = row[-5], row[-4], row[-3], row[-1]
            if (row[0] in unsure and stamp is not None and count is not None and count == changes
                    and row[0] not in self._distrusted
                    and digest_stamp(stamped_values(row), digest) == stamp):
                found[row[0]] = int(digest.partition(":")[0])
        return found

    def _keep_stamps(self, stamps: list[tuple[str, str, int]], checked: list[tuple[str, Any, Any]],
                     untrusted: int | None) -> None:
        """Store the replay stamps that games replayed by the statistics
        earned (games last changed before schema 5, or stamped by an older
        :data:`~terrace.storage.rows.REPLAY_STAMP_VERSION`), so that the next
        statistics, in this process or another, need not replay them. Only
        a game still at the revision that was replayed takes its stamp, and
        a stamp that no longer fits the row is ignored by the next read
        anyway. With them, the digests of the lines the statistics read
        (``checked``: digest, id, count of changes then), each kept only
        while that count holds. ``untrusted`` is the layout (``PRAGMA
        schema_version``) under which the counts kept were not trusted
        (:func:`~terrace.storage.migrations.lines_trusted`): when it holds
        still and the triggers count, every count kept is dropped, those
        just read are kept, and the layout is trusted from then on. This
        is a convenience: a database opened only to read, or one that
        refuses the write, keeps no stamps and loses nothing."""
        distrusted = list(self._distrusted)
        if (not stamps and not checked and not distrusted and untrusted is None) or self.read_only \
                or not self._lines_counted:
            return
        try:
            # (another program's write lock is not waited out: the statistics
            # waited for it, 11.3 s, for stamps the next statistics store)
            with self._spare_write() as conn:
                conn.executemany(
                    "UPDATE games SET replay_stamp = ? WHERE id = ? AND revision = ?",
                    stamps,
                )
                conn.executemany(f"UPDATE games SET {LINE_CHECKED} = NULL WHERE id = ?",
                                 [(game_id,) for game_id in distrusted])
                self._distrusted.difference_update(distrusted)
                if not lines_trusted(conn):
                    layout = int(conn.execute("PRAGMA schema_version").fetchone()[0])
                    if untrusted != layout or counting_fault(conn) is not None:
                        return
                    conn.execute(f"UPDATE games SET {LINE_CHECKED} = NULL WHERE {LINE_CHECKED} IS NOT NULL")
                    trust_lines(conn)
                conn.executemany(
                    f"UPDATE games SET {LINE_DIGEST} = ?, {LINE_CHECKED} = {LINE_CHANGES} "
                    f"WHERE id = ? AND {LINE_CHANGES} IS ?", checked)
        except StoreError as error:
            log.info("replay stamps not stored: %s", error)

    def _stamp_holds(self, row: tuple[Any, ...], stamp: Any, lines: dict[Any, tuple[Any, ...]]) -> bool:
        """True when the game's row and line (as :data:`LINES` read them)
        still give its replay stamp, and its other values pass the loader's
        checks: the game is then sound without a replay. Raises
        :class:`DamagedGameError` like a read."""
        joined, moves, nul = lines.get(row[0], ("", 0, 0))
        if nul or not stamp_fits(stamp, stamped_values(row), joined, moves):
            return False
        load_game(row[:_WIDTH], Line.of(joined.split("\0") if moves else []), stamped=True, check_only=True)
        self._sound[row[0]] = hash(row[:_WIDTH])
        return True

    def _sound_row(self, game_id: Any, stamps: list[tuple[str, str, int]] | None = None,
                   checked: list[tuple[str, Any, Any]] | None = None) -> Any:
        """The game's row as it stands (its columns, then the statistics'),
        checked as a read checks it; None when the game is gone. A game
        whose replay stamp is missing or stale adds to ``stamps`` the one it
        has earned, with its id and revision; to ``checked``, its line's
        digest, id and count of changes."""
        with self._transaction(write=False) as conn:
            row = conn.execute(
                f"SELECT {GAME_READ}, {FACT_COLUMNS}, {bounded(LINE_CHANGES)}, {bounded('replay_stamp')} "
                "FROM games WHERE id = ?",
                (game_id,)
            ).fetchone()
            self._others_wrote(conn)
            if row is None:
                return None
            known = lender = self._remembered.get(game_id)
            line = self._saved_line(conn, game_id, row[_WIDTH - 1])
            if line is None:
                known, line = None, read_line(conn, game_id)
            load_game(row[:_WIDTH], line, known, board_of=lender)
            if stamps is not None:
                stamp = replay_stamp(stamped_values(row), line)
                if stamp != row[-1]:
                    stamps.append((stamp, game_id, row[_WIDTH - 1]))
            if checked is not None:
                checked.append((line_digest(line), game_id, row[-2]))
        self._sound[game_id] = hash(row[:_WIDTH])
        return row[:-2]

    def _tally_kept_through(self, before: int, after: int) -> None:
        """Keep the statistics' tally through a change of the file's layout
        from ``before`` to ``after`` that this store's own write committed
        (an import drops the trigger that counts move rows added and makes
        it again): the games that write changed are noted
        (:data:`TOUCHED_TRIGGERS`) and read again by the next statistics,
        the others stay counted. (Taking the layout's move for another
        program's made the first statistics after an import of one game
        count every game again: 2.5 s of CPU at 100,000 games, 0.09 s
        now.) A tally made under another layout, or before another
        connection wrote, is left as it is: the next statistics make it
        anew."""
        tally = self._tally  # (None while a statistics read has it aside: it is then made anew)
        if tally is not None and tally.seen == (self._data_version, before, self._lines_counted):
            tally.seen = (self._data_version, after, self._lines_counted)
