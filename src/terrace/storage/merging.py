"""How an import finds the games a file holds that the database already
has: the comparisons of two states of one game (which continues which,
which holds the other), the light rows an import reads of the games of a
deal and creation time (:class:`_Group`), its budget of comparisons
(:class:`_Budget`, :data:`COMPARISONS_PER_RECORD`), what it has seen
(:class:`_Seen`), and the log of a game's moves rebuilt from a record
(:func:`_restore_log`). :class:`~terrace.storage.sqlite.SqliteStore`'s
``add_games`` uses them; this module holds no connection of its own."""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from terrace.cards import CARDS_PER_DECK
from terrace.deal import Deal
from terrace.rules import MAX_DECKS
from terrace.storage.base import (
    MAX_PASSED,
    MAX_POSITION_KEY,
    LogPlaces,
    StoredGame,
    StoreError,
    finding,
    pack_hinted,
    pack_passed,
    passed_state,
    position_key,
    unpack_hinted,
    unpack_passed,
)
from terrace.storage.line import Line, digest_step
from terrace.storage.migrations import (
    JOINED,
    RESTORED,
)
from terrace.storage.rows import (
    GAME_ID,
    IMPORTED,
    LOG_PLACES,
    MOVE_READ,
    OPENED_ELSEWHERE,
    bounded,
    damaged_game,
    same_game,
)
from terrace.storage.statistics import MAX_COUNT


def _no_count_lower(later: StoredGame, earlier: StoredGame) -> bool:
    """True when none of ``later``'s counts (hints, undos, playing time,
    assists) is below ``earlier``'s: counts only grow as a game goes on."""
    return all(getattr(later, name) >= getattr(earlier, name)
               for name in ("hints", "undos", "active_ms", "assisted"))


def _no_earlier(later: StoredGame, earlier: StoredGame) -> bool:
    """True when the state ``later`` of a game came no earlier than
    ``earlier``: by their revisions, which count the game's changes, when
    both have one that does (:attr:`StoredGame.ordered`); else by their
    times of change (a record of an older export). Backups taken either
    side of a clock put back were ordered by the clock, and the newer
    state was taken for the older one."""
    if later.ordered and earlier.ordered:
        return later.revision >= earlier.revision
    return later.updated_at >= earlier.updated_at


def _same_point(one: StoredGame, other: StoredGame) -> bool:
    """True when neither state of one game came after the other by
    :func:`_no_earlier` (a change that leaves the revision, and the time of
    change, as they were: a hint counted, playing time reported)."""
    return _no_earlier(one, other) and _no_earlier(other, one)


_LIGHT_COLUMNS = ("id, created_at, deal, updated_at, hints, undos, active_ms, assisted, won_at, given_up_at, "
                  "revision")
"""What an import compares of a stored game before reading it whole: its
identity (creation time and deal), then what only grows as it is played."""
_LIGHT_READ = ", ".join(bounded(column) for column in _LIGHT_COLUMNS.split(", "))
_RANKED = range(3, 7)
"""Where ``updated_at``, ``hints``, ``undos`` and ``active_ms`` are in a row
of :data:`_LIGHT_COLUMNS`: a game that holds a record has each of them no
lower than the record's."""


def _vouched_moves(vouched: tuple[int, str, Line]) -> int:
    """The weight of a line a replay stamp vouched for: its moves."""
    return len(vouched[2])


def _light_row(game: StoredGame) -> tuple[Any, ...]:
    """``game``'s row of :data:`_LIGHT_COLUMNS`, as stored."""
    return (game.id, game.created_at, game.deal.text(), game.updated_at, game.hints, game.undos,
            game.active_ms, int(game.assisted), game.won_at, game.given_up_at, game.revision)


def _may_hold(row: tuple[Any, ...], game: StoredGame) -> bool:
    """False when the stored game of ``row`` cannot hold ``game``: changed
    earlier, a count lower, or another win or giving up. A value that is
    not a number (a damaged row), or a win not stored (a game won that
    says nothing of its first win is first won at its finish:
    :func:`~terrace.storage.statistics.first_win`), leaves that to the
    game's read."""
    _, _, _, updated_at, hints, undos, active_ms, assisted, won_at, given_up_at, revision = row
    timed = game.created_given  # (else the record's times are the import's: see _holds_as_of)
    try:
        later = not timed or (revision >= game.revision if game.ordered else updated_at >= game.updated_at)
        return bool(later and hints >= game.hints and undos >= game.undos
                    and active_ms >= game.active_ms and assisted >= game.assisted
                    and (game.won_at is None or won_at is None or not timed or won_at == game.won_at)
                    and (game.given_up_at is None or given_up_at == game.given_up_at
                         or (not timed and given_up_at is not None)))
    except TypeError:
        return True


def _deal_key(text: Any) -> Any:
    """What a stored deal string is as a deal: its cards, however it is
    spelled (spacing, case: a string edited by hand or written by another
    tool is the same deal, as its read finds it), or the value itself when
    it names no deal (a damaged row: its read decides)."""
    cards = Deal.cards_of(text, MAX_DECKS * CARDS_PER_DECK)
    return text if cards is None else cards


class _Group:
    """The stored games of one identity (creation time and deal), with,
    for each value of :data:`_RANKED`, their rows sorted by it: the games
    that may hold a record are found among those no lower on the value
    that leaves the fewest, never by comparing the record with all."""

    def __init__(self) -> None:
        self.values: list[list[Any]] = [[] for _ in _RANKED]
        self.rows: list[list[tuple[Any, ...]]] = [[] for _ in _RANKED]
        self.unranked: list[tuple[Any, ...]] = []

    def add(self, row: tuple[Any, ...]) -> None:
        if not all(isinstance(row[i], (int, float)) and row[i] == row[i] for i in _RANKED):
            self.unranked.append(row)  # (a damaged row: always read)
            return
        for values, rows, i in zip(self.values, self.rows, _RANKED, strict=True):
            at = bisect.bisect_right(values, row[i])
            values.insert(at, row[i])
            rows.insert(at, row)

    def candidates(self, game: StoredGame) -> Iterator[tuple[Any, ...]]:
        """The rows no lower than ``game`` on the most selective value (and
        the damaged ones), one at a time (the caller may stop early)."""
        # (a record ordered by its revision may hold a state stored at an
        # earlier time: the time of change is then not a bound)
        wanted = (-math.inf if game.ordered else game.updated_at, game.hints, game.undos, game.active_ms)
        starts = [bisect.bisect_left(values, value)
                  for values, value in zip(self.values, wanted, strict=True)]
        best = max(range(len(starts)), key=lambda k: starts[k] - len(self.values[k]))
        rows = self.rows[best]  # (islice would step over the rows before the start, one by one)
        return itertools.chain((rows[at] for at in range(starts[best], len(rows))), self.unranked)


class ImportStoppedError(StoreError):
    """An import that stopped after its first chunks were written
    (:data:`~terrace.storage.sqlite.IMPORT_CHUNK`): ``stored`` games are in the database; importing
    the file again adds the rest (the games here are found, not added twice)."""

    def __init__(self, stored: int, error: StoreError) -> None:
        self.stored = stored
        self.error = error
        super().__init__(str(error))


class ImportTooCostlyError(StoreError):
    """An import whose records would take more comparisons with the games
    of their deal and creation time than :data:`COMPARISONS_PER_RECORD`
    allows (a file made of many states of one game)."""


COMPARISONS_PER_RECORD = 64
"""How many stored games of a record's deal and creation time an import
compares it with, on average over the file (the first
:data:`COMPARISONS_FREE` comparisons are free): a real file needs one or
two a record (its own copy here); a file of thousands of different
states of one game, each compared with every other, made an import take
hours, and is refused instead."""
COMPARISONS_FREE = 10_000


class _Budget:
    """The comparisons an import may still make (see
    :data:`COMPARISONS_PER_RECORD`)."""

    def __init__(self, records: int) -> None:
        self.total = self.left = COMPARISONS_PER_RECORD * records + COMPARISONS_FREE

    def spend(self, number: int) -> None:
        """One comparison more, for record ``number`` (counted from 1)."""
        self.left -= 1
        if self.left < 0:
            raise ImportTooCostlyError(
                f"record {number:,} and those before it need more than {self.total:,} comparisons "
                f"with games of their deal and creation time (at most {COMPARISONS_PER_RECORD} a "
                "record): the file holds too many different states of one game"
            )


class _Seen:
    """What an import knows of the stored games in one transaction: each
    game read whole (None: damaged) and the lines its log shows, by id, the
    rows of the games of the records' creation times by identity, read in
    one scan, so that a record is compared only with the games that may
    hold it (a file of thousands of records of one moment used to compare
    each with every game of that moment), and the budget of comparisons.
    ``before``, the same import's in an earlier transaction, lends what
    depends on no stored row: the records' line keys and the deals read
    (each chunk of a large import reads the games again, the games of its
    earlier chunks included: their deals were parsed again each time, 3.6 s
    of a 1,500 game import's 9.9)."""

    def __init__(self, conn: sqlite3.Connection, games: Sequence[StoredGame], budget: _Budget,
                 before: _Seen | None = None) -> None:
        self.budget = budget
        self.games: dict[str, StoredGame | None] = {}
        self.states: dict[str, set[tuple[int, int]]] = {}
        self.keys: dict[int, tuple[int, int]] = {} if before is None else before.keys
        self.deals: dict[Any, Any] = {} if before is None else before.deals
        self.current: dict[Any, tuple[Any, ...]] = {}
        self.groups: dict[tuple[Any, Any], _Group] = {}
        moments = {game.created_at for game in games}
        for row in conn.execute(f"SELECT {_LIGHT_READ} FROM games"):
            if row[1] in moments:
                self.add(row)

    def add(self, row: tuple[Any, ...]) -> None:
        """Know the stored game of ``row`` (new, or changed: its older row
        is then passed over)."""
        self.current[row[0]] = row
        self.groups.setdefault((row[1], self.deal(row[2])), _Group()).add(row)

    def deal(self, text: Any) -> Any:
        """The :func:`_deal_key` of a stored deal (parsed once)."""
        key = self.deals.get(text)
        if key is None:
            key = self.deals[text] = _deal_key(text)
        return key

    def stored(self, game: StoredGame, number: int) -> Iterator[Any]:
        """The ids of the stored games that may hold ``game`` (record
        ``number`` of the import), the game under its own id first; each
        row looked at spends one comparison of the budget."""
        own = self.current.get(game.id) if game.id else None
        if own is not None and (own[1], self.deal(own[2])) == (game.created_at, game.deal.cards):
            self.budget.spend(number)
            if _may_hold(own, game):
                yield own[0]
        group = self.groups.get((game.created_at, game.deal.cards))
        if group is None:
            return
        for row in group.candidates(game):
            if row is own:
                continue
            self.budget.spend(number)
            if self.current.get(row[0]) is row and _may_hold(row, game):
                yield row[0]

    def key(self, game: StoredGame) -> tuple[int, int]:
        """The :func:`_line_key` of ``game``'s moves (made once)."""
        key = self.keys.get(id(game))
        if key is None:
            key = self.keys[id(game)] = _line_key(game.moves)
        return key

    def forget(self, game_id: str) -> None:
        """Read ``game_id`` again next time (it was just written)."""
        self.games.pop(game_id, None)
        self.states.pop(game_id, None)


def _places(conn: sqlite3.Connection) -> dict[str, LogPlaces]:
    """:meth:`SqliteStore.log_places`, read on ``conn``."""
    rows = conn.execute(
        f"SELECT {GAME_ID}, {LOG_PLACES}, {IMPORTED}, {OPENED_ELSEWHERE} FROM games").fetchall()
    places: dict[str, LogPlaces] = {}
    for game_id, opened, changed, result, imported, elsewhere in rows:
        if isinstance(game_id, str) and isinstance(opened, int) and isinstance(changed, int):
            places[game_id] = LogPlaces(opened, changed, result if isinstance(result, int) else None,
                                        elsewhere == 1, imported != 1)
    return places


def _versions(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Every stored game's id, revision and last change: what an import
    compares to tell whether the games changed between its read and its
    write."""
    return conn.execute(f"SELECT {GAME_ID}, {bounded('revision')}, {bounded('updated_at')} FROM games "
                        "ORDER BY id").fetchall()


def _state(game: StoredGame) -> tuple[Any, ...]:
    """Everything of a game that its play changes (its line, result, counts
    and times): two states of one game are the same state when equal."""
    return (game.moves, game.redo, game.status, game.hints, game.undos, game.winnable_only,
            game.updated_at, game.started_at, game.finished_at, game.assisted, game.active_ms,
            game.won_at, game.won_moves, game.won_active_ms, game.given_up_at)


def _continues(game: StoredGame, stored: StoredGame, untouched: bool = False) -> bool:
    """True when ``game`` continues ``stored`` (see :meth:`SqliteStore._continued`):
    its line (moves played, then those taken back and still to redo) goes
    on from ``stored``'s moves, or it played exactly ``stored``'s moves
    before some were taken back where it was played (its lines passed,
    ``saved.passed``), or, when ``untouched`` (a backup restored over a
    game not played here since it came in), it is any later state of that
    game. A game given up, or one changed without its time of
    change moving on (a hint counted on a game given up, playing time
    reported, an assist used), is continued only by its very line with
    more counted."""
    if not same_game(stored, game) or not _no_earlier(game, stored):
        return False
    played = stored.moves
    if stored.given_up_at is not None or _same_point(game, stored):
        played_on = game.line() == stored.line() and _state(game) != _state(stored)
    else:
        played_on = (untouched or game.line()[: len(played)] == played
                     or (bool(game.passed) and _passed_key(played) in unpack_passed(game.passed)))
    ended = stored.given_up_at in (None, game.given_up_at) and stored.won_at in (None, game.won_at)
    return played_on and _no_count_lower(game, stored) and ended


_PLAYED_HERE = (
    "SELECT 1 FROM events WHERE game_id = ? AND action IN ('move', 'undo', 'redo', 'restart', 'give-up') "
    "LIMIT 1"
)
"""A row when the game was played here (a move played, taken back or
redone, a restart, giving up), not only brought in by an import or a
restore, whose log holds none of these."""


def _passed_key(moves: Sequence[str]) -> tuple[int, str]:
    """How the table ``passed`` keys a game's played moves: their number
    and their :meth:`Line.digest`, in hex (the same in every process)."""
    return len(moves), format(Line.of(moves).digest(), "x")


def _keep_past(conn: sqlite3.Connection, game: StoredGame) -> None:
    """Keep what an imported ``game`` knew of its past where it came from:
    the lines it had played off its line (``saved.passed``) in the table
    ``passed``, and the positions a hint was counted on (``saved.hinted``)
    in ``hinted``, so that no hint there is counted again."""
    conn.executemany("INSERT OR IGNORE INTO passed (game_id, moves, digest) VALUES (?, ?, ?)",
                     [(game.id, n, digest) for n, digest in unpack_passed(game.passed)])
    conn.executemany("INSERT OR IGNORE INTO hinted (game_id, position) VALUES (?, ?)",
                     [(game.id, key) for key in unpack_hinted(game.hinted)])


def _hinted_here(conn: sqlite3.Connection, game_id: str) -> set[str]:
    """The positions a hint was counted on in the stored game ``game_id``
    that an import takes (a row edited by hand is left out)."""
    return {key for (key,) in conn.execute(
        f"SELECT {bounded('position', 4 * MAX_POSITION_KEY)} FROM hinted WHERE game_id = ?", (game_id,)
    ) if position_key(key)}


def _hinted_of(conn: sqlite3.Connection, game: StoredGame) -> str:
    """The positions a hint was counted on in ``game``, for an export
    (``saved.hinted``): at most as many as its hints."""
    return pack_hinted(sorted(_hinted_here(conn, game.id))[: max(game.hints, 0)])


def _hints_joined(conn: sqlite3.Connection, game: StoredGame) -> int:
    """The hints of ``game``, a record that brings the stored game of its
    id up to its state: at least one for each position a hint was counted
    on, here or where it was played on (the record's count misses those
    counted here after it was carried away)."""
    positions = _hinted_here(conn, game.id) | set(unpack_hinted(game.hinted))
    return max(game.hints, min(len(positions), MAX_COUNT))


def _tables_of_games(conn: sqlite3.Connection) -> list[str]:
    """The tables whose rows belong to a game (a foreign key to ``games``)."""
    names = [name for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")]
    return [name for name in names
            if any(row[2] == "games" for row in conn.execute(f'PRAGMA foreign_key_list("{name}")'))]


def _clear_leftovers(conn: sqlite3.Connection, game_id: str, tables: Sequence[str]) -> None:
    """Delete the rows of ``tables`` (:func:`_tables_of_games`) kept under
    ``game_id``, a game that is not stored, before one is stored under it:
    rows left by a game deleted by hand (the ``sqlite3`` shell does not
    enforce foreign keys, so its moves, log and lines passed stay), which
    would else refuse its moves or give it another game's log."""
    for table in tables:
        conn.execute(f'DELETE FROM "{table}" WHERE game_id = ?', (game_id,))


def _untouched(conn: sqlite3.Connection, game_id: str) -> bool:
    """True when the stored game ``game_id`` was not played here since it
    came in (:data:`_PLAYED_HERE`)."""
    return conn.execute(_PLAYED_HERE, (game_id,)).fetchone() is None


def _sound(game_id: str, check: Callable[[Any, str], object], value: Any, name: str) -> None:
    """Check the stored ``value`` of column ``name`` of game ``game_id`` with
    ``check`` (:func:`~terrace.storage.rows.whole`, :func:`~terrace.storage.rows.flag`)
    before a change writes over it: a value edited by hand is damage
    (:class:`DamagedGameError`, as a read refuses it), never made good by the
    change."""
    try:
        check(value, name)
    except ValueError as error:
        raise damaged_game(game_id, finding(error)) from None


def _holds_as_of(stored: StoredGame, game: StoredGame) -> bool:
    """True when ``stored``, a state of ``game``'s game, lost nothing of
    ``game`` but its moves, and came no earlier (:func:`_holds`,
    :func:`_no_earlier`). A record that gave no creation time
    (:attr:`StoredGame.created_given`) has its times from the import, not
    from where it was played, so only its counts, win and giving up are
    compared: the same file imported again finds its game here."""
    if game.created_given:
        return _no_earlier(stored, game) and _holds(stored, game)
    return (_no_count_lower(stored, game) and (game.won_at is None or stored.won_at is not None)
            and (game.given_up_at is None or stored.given_up_at is not None))


def _holds(stored: StoredGame, game: StoredGame) -> bool:
    """True when ``stored`` lost nothing ``game`` has besides its moves: no
    count is lower, and a win or a giving up of ``game`` is ``stored``'s
    own (the same time). A game won or played on elsewhere fails this, and
    is then kept beside the one here."""
    counts = _no_count_lower(stored, game)
    won = game.won_at is None or stored.won_at == game.won_at
    given_up = game.given_up_at is None or stored.given_up_at == game.given_up_at
    return counts and won and given_up


def _line_key(moves: Sequence[str]) -> tuple[int, int]:
    """A line as its length and a hash chained over its moves
    (:func:`_log_states` chains the same hash move by move): equal lines
    give equal keys; two lines of one length share a key with a chance of
    about 2**-64 (Python keys its string hash anew in each process, so a
    file cannot be made to hit one)."""
    return len(moves), functools.reduce(_chained, moves, 0)


def _chained(before: int, move: str) -> int:
    """The hash of a line one move longer than a line of hash ``before``."""
    return hash((before, move))


_FROM_ELSEWHERE = ("import", JOINED)
"""The log's actions that brought a game's moves from elsewhere: what came
before them is not in this log."""


def _log_states(events: list[Any], played: list[str],
                step: Callable[[int, str], int] = _chained) -> set[tuple[int, int]]:
    """The :func:`_line_key` of every line the game is known to have had
    played at some time, as its log of changes shows (``played``: its moves
    today): forward from its creation or a restart (an import logs no
    moves, so what came before it is not known), and backward from today,
    before a move or a redo one move fewer, before an undo one more (the
    move it took back is logged), before an import that brought the game
    up to a record's state the moves it had then (the record went on from
    them; the change before the import says how many), to its first
    import, its last restart or its creation.
    Made in one pass over the log: a record is then compared with a game
    in one look-up, however long its log (each record walked the whole log
    of each game it was compared with). ``step`` chains the hash (the
    :meth:`Line.digest`'s, :func:`~terrace.storage.line.digest_step`, for
    an export: the same in every process)."""
    states: set[tuple[int, int]] = set()
    chain: list[int] | None = None  # (forward: the chained hash of each prefix)
    for action, move, count in events:
        if action in ("create", "restart"):
            chain = [0]
        elif action in _FROM_ELSEWHERE:
            chain = None
        elif chain is None or not isinstance(count, int):
            continue
        elif action in ("move", "redo") and isinstance(move, str) and count == len(chain):
            chain.append(step(chain[-1], move))
        elif action == "undo" and count < len(chain) - 1:
            del chain[count + 1:]
        elif action in ("move", "redo", "undo"):
            chain = None
        if chain is not None:
            states.add((len(chain) - 1, chain[-1]))
    line = list(played)  # (backward from today)
    chain = list(itertools.accumulate(line, step, initial=0))
    for at in range(len(events) - 1, -1, -1):
        action, move, count = events[at]
        states.add((len(line), chain[-1]))
        if action in _FROM_ELSEWHERE and at > 0 and isinstance(before := events[at - 1][2], int):
            # (a record brought the game here up to its state: its line went
            # on from the moves here, as many as the change before says)
            if not 0 <= before <= len(line):
                return states
            del line[before:], chain[before + 1:]
            continue
        if action in ("create", "restart", *_FROM_ELSEWHERE):
            return states
        if action in ("move", "redo"):
            if count != len(line) or not line or line[-1] != move:
                return states
            line.pop()
            chain.pop()
        elif action == "undo":
            if count != len(line) or not isinstance(move, str):
                return states
            line.append(move)
            chain.append(step(chain[-1], move))
    states.add((len(line), chain[-1]))
    return states


def _log_of(conn: sqlite3.Connection, game_id: str) -> list[Any]:
    """The game's log of changes as :func:`_log_states` reads it."""
    return conn.execute(
        f"SELECT {bounded('action')}, {MOVE_READ}, {bounded('move_count')} FROM events "
        "WHERE game_id = ? ORDER BY id", (game_id,)
    ).fetchall()


def _off_line(conn: sqlite3.Connection, game: StoredGame) -> str:
    """The lines ``game`` had played that its line today does not hold
    (moves taken back and others played), as its log of changes and the
    table ``passed`` know them, for an export (``saved.passed``): at most
    :data:`~terrace.storage.base.MAX_PASSED`, those of most moves. A
    backup of this game restored elsewhere so knows an older backup's
    state of it as this game's, though its log is not in the backup."""
    states = {(n, int(digest, 16)) for n, digest in conn.execute(
        "SELECT moves, digest FROM passed WHERE game_id = ?", (game.id,)
    ) if passed_state(n, digest)}  # (a row edited by hand: left out, an import would refuse it)
    states |= _log_states(_log_of(conn, game.id), game.moves, digest_step)
    line = list(game.moves) + game.redo[::-1]
    states -= set(enumerate(itertools.accumulate(line, digest_step, initial=0)))
    return pack_passed((n, format(digest, "x")) for n, digest in sorted(states)[-MAX_PASSED:])


def _restore_log(conn: sqlite3.Connection, games: list[StoredGame]) -> None:
    """Log the games of a backup restored (into an empty database, or over
    older states of its own games: :meth:`SqliteStore._restored_over`) in the
    order of the exporting store's log (their :class:`LogPlaces`): each
    game's opening (``create``, or ``import`` for a game that came into
    that store by an import), its first win or loss, and its last change,
    so that the statistics, the game to resume and the export's order,
    which follow the log, come out as they were there. The last change of
    a game changed there by more than imports (``changed_here``) is logged
    as a change made here (a :data:`~terrace.storage.migrations.RESTORED`
    entry: it plays no move; before schema 7 it was logged as a ``hint``,
    which reads the same), so that a game imported there and played since
    comes back played here, not imported and unplayed. (The moves between are not in an export: the
    log of each game starts as after an import.)"""
    entries: list[tuple[int, int, int, str, int, float]] = []
    for index, game in enumerate(games):
        places = game.log
        assert places is not None
        moves = len(game.moves)
        result_at = game.won_at if game.won_at is not None else game.finished_at
        opening = "import" if places.by_import else "create"
        # (an import is logged at the game's last change then: its result,
        # when the game came in finished, so that the result keeps its place)
        opened_at = result_at if (places.by_import and places.result == places.opened
                                  and result_at is not None) else game.created_at
        if opened_at == result_at and places.result != places.opened:  # (a result elsewhere, or none)
            opened_at = math.nextafter(opened_at, -math.inf)
        entries.append((places.opened, index, 0, opening, 0 if opening == "create" else moves, opened_at))
        if places.result is not None and result_at is not None and places.result not in (
                places.opened, places.changed):
            entries.append((places.result, index, 1, "import", moves, result_at))
        here = places.by_import and places.changed_here  # (else its opening says so, or nothing does)
        if places.changed != places.opened or here:
            at = result_at if places.result == places.changed and result_at is not None else game.updated_at
            entries.append((places.changed, index, 2, RESTORED if here else "import", moves, at))
    entries.sort()
    conn.executemany(
        "INSERT INTO events (game_id, revision, action, move, move_count, at) VALUES (?, ?, ?, NULL, ?, ?)",
        [(games[i].id, games[i].revision, action, count, at) for _, i, _, action, count, at in entries],
    )
