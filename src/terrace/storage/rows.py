"""A saved game as database rows and back. Every row read is checked: a
row edited or damaged by hand gives a clear :class:`DamagedGameError`
naming the game and what is wrong with it.

>>> whole(3, "hints"), clip("x" * 300)[-12:]
(3, 'xxxxxxx[...]')
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from terrace.cards import CODE, RANKS, SUITS
from terrace.deal import DEAL_VERSION, Deal
from terrace.errors import TerraceError
from terrace.moves import MAX_MOVE_TEXT
from terrace.record import RESULTS, read_json
from terrace.refusals import Param, Reason, Refusal, quote
from terrace.rules import RULE_FIELDS, Rules, saved_rules
from terrace.storage.base import (
    MAX_LINE,
    DamagedGameError,
    NewerGameError,
    StoredGame,
    StoreError,
    change_events,
    check_fields,
    check_saved,
    finding,
)
from terrace.storage.line import Line
from terrace.storage.migrations import JOINED, LINE_CHANGES, LINE_CHECKED, LINE_DIGEST
from terrace.storage.statistics import finish_time, first_win
from terrace.variants import canonical_name

MAX_VALUE = 65_536
"""The most bytes a value of a game's row is read with: none of ours comes
near (a deal of eight decks is under 2 KB, the rules a few hundred
characters)."""


def measure(column: str, version: tuple[int, ...] = sqlite3.sqlite_version_info) -> str:
    """SQL for the size of ``column``'s value in bytes, on SQLite
    ``version``. From 3.43 on, ``octet_length`` reads it from the row's
    header, the value left on the disk (a 100 MB text: no CPU, 11 MB of
    memory, where ``length`` took 0.15 s and 107 MB); before, SQLite must
    read a text to measure it, and a BLOB's length is the cheapest form.

    >>> measure("rules", (3, 45, 1)), measure("rules", (3, 40, 1))
    ('octet_length(rules)', 'length(CAST(rules AS BLOB))')
    """
    return f"octet_length({column})" if version >= (3, 43) else f"length(CAST({column} AS BLOB))"


def bounded(column: str, most: int = MAX_VALUE) -> str:
    """``column`` in SQL, measured there before it is fetched: a value
    longer than ``most`` (a row damaged, or edited by hand) is read as a
    short BLOB that says so, which every check of a read refuses as damage,
    so that a huge value costs a damaged file little time and memory (a
    100 MB value cost ``terrace stats`` 3.5 s and 900 MB)."""
    return f"CASE WHEN {measure(column)} > {most:d} THEN CAST('{TOO_LONG}' AS BLOB) ELSE {column} END"


TOO_LONG = "a value too long to be read"
"""What :func:`bounded` reads in place of a value too long (as a BLOB)."""
_TOO_LONG = TOO_LONG.encode()


def too_long(row: Sequence[Any], names: Sequence[str]) -> Reason | None:
    """Why ``row`` (read through :func:`bounded`, its columns named by
    ``names``) is damaged when one of its values was too long to be read."""
    for value, name in zip(row, names, strict=False):  # (a row may carry more columns)
        if value == _TOO_LONG:
            return Reason(Refusal.SAVED_VALUE_TOO_LONG, field=name, most=MAX_VALUE)
    return None


GAME_COLUMNS = (
    "id, variant, rules, deal_number, deal_version, deal, status, move_count, hints, undos, "
    "winnable_only, created_at, updated_at, started_at, finished_at, assisted, active_ms, "
    "won_at, won_moves, won_active_ms, given_up_at, revision"
)
"""The columns of a game, ``revision`` last."""
_NAMES = GAME_COLUMNS.split(", ")
GAME_READ = ", ".join(bounded(column) for column in _NAMES)
""":data:`GAME_COLUMNS` as a read fetches them (:func:`bounded`)."""
GAME_ID = bounded("id")
"""A game's id as a read fetches it (:func:`bounded`)."""
MOVE_READ = bounded("move", MAX_MOVE_TEXT)
"""A move of the line or of the log as a read fetches it (no move is
longer than :data:`~terrace.moves.MAX_MOVE_TEXT`)."""
IMPORTED = (
    "NOT EXISTS (SELECT 1 FROM events WHERE events.game_id = games.id "
    f"AND events.action NOT IN ('import', '{JOINED}'))"
)
"""True (1) for a game that came in by an import and has not been changed
here since: its only events are the import and later imports that brought
it up to date (:data:`~terrace.storage.migrations.JOINED`)."""
OPENED_ELSEWHERE = (
    "COALESCE((SELECT action FROM events WHERE events.game_id = games.id ORDER BY id LIMIT 1) = 'import', 0)"
)
"""True (1) for a game that came in by an import (its first event is the
import, where a game made here starts with ``create``): its creation was no
opening here, played here since or not."""
RESULT_AT = (
    "coalesce(games.won_at, games.finished_at, games.given_up_at, "
    "CASE WHEN games.status IN ('won', 'lost') THEN games.updated_at END)"
)
"""When a game was first won or lost, in SQL: its first win, else its end,
as a read takes them (:func:`~terrace.storage.statistics.finish_time`,
:func:`~terrace.storage.statistics.first_win`: a game that says nothing
of them ended at its last change)."""
CHANGED_HERE = f"(SELECT max(id) FROM events WHERE events.game_id = games.id AND events.action != '{JOINED}')"
"""Where in the log of changes a game last changed here: an import that
brought it up to a state played elsewhere
(:data:`~terrace.storage.migrations.JOINED`) is no change made here."""
LOG_PLACES = (
    "(SELECT min(id) FROM events WHERE events.game_id = games.id), "
    f"{CHANGED_HERE}, "
    f"CASE WHEN {RESULT_AT} IS NOT NULL THEN (SELECT min(id) FROM events "
    f"WHERE events.game_id = games.id AND events.at = {RESULT_AT} AND events.action != '{JOINED}') END"
)
"""Where in the log of changes (the events' ids, in the order things
happened here, whatever the clock said) a game was opened, last changed
here, and first won or lost here (the change logged at that time): a
state played elsewhere and joined in by an import came at no place here
(:data:`CHANGED_HERE`)."""
_TIME = "CASE WHEN typeof({0}) IN ('integer', 'real') THEN {0} END"
LAST_HERE = _LAST_HERE = (
    f"(SELECT id FROM events WHERE events.game_id = games.id AND events.action != '{JOINED}' "
    "ORDER BY id DESC LIMIT 1)")
""":data:`CHANGED_HERE` read from the game's last event back (its
``max`` read every event of the game: 100,000 for a long game)."""
LATEST_LOOKBACK = 500
"""How many of the last entries of the log :data:`LATEST_CHANGED_HERE` reads."""
LATEST_CHANGED_HERE = f"""SELECT {GAME_ID} FROM (
    SELECT id AS place, game_id FROM events WHERE action != '{JOINED}' ORDER BY id DESC LIMIT ?) AS last
JOIN games ON games.id = last.game_id
WHERE games.status IN ('choosing', 'playing') AND games.given_up_at IS NULL AND NOT {IMPORTED}
GROUP BY games.rowid ORDER BY max(last.place) DESC"""
"""The unfinished games changed here among the last ``?`` changes logged
(a join is none: :data:`CHANGED_HERE`), the latest first: the head of the
order of the game to resume, each game's last change here being in those
entries. (Ordering every unfinished game read the log of each: 0.5 s of
CPU at 100,000 games.)"""
RECENT_PLACES = f"""SELECT r, elsewhere, seq, (SELECT {_TIME.format("at")} FROM events WHERE id = seq), t
FROM (SELECT rowid AS r, {IMPORTED} AS elsewhere, {_LAST_HERE} AS seq,
             {_TIME.format("updated_at")} AS t FROM games {{}})"""
"""What places each game among the recent ones
(:class:`~terrace.storage.recent.Placed`), of the games a ``WHERE``
clause put in the braces picks (none: every game), which
:class:`~terrace.storage.recent.RecentOrder` orders."""
FACT_COLUMNS = (
    ", ".join(bounded(column) for column in (
        "variant", "status", "move_count", "hints", "undos", "created_at", "updated_at", "started_at",
        "finished_at", "won_at", "won_moves", "won_active_ms", "assisted", "active_ms", "given_up_at",
        "rules"))
    + f", {IMPORTED}, {OPENED_ELSEWHERE}, {LOG_PLACES}"
)
"""The columns the statistics read, in the order ``GameFacts.from_row`` takes them."""
_COLUMN_COUNT = len(GAME_COLUMNS.split(","))
STAMPED_COLUMNS = (
    "variant, rules, deal_number, deal_version, deal, status, move_count, won_at, won_moves, given_up_at"
)
"""The columns a replay checks, which :func:`replay_stamp` covers with the line."""
_STAMPED = tuple(GAME_COLUMNS.split(", ").index(name) for name in STAMPED_COLUMNS.split(", "))
"""Where the stamped columns are in a row of :data:`GAME_COLUMNS`."""
REPLAY_STAMP_VERSION = 2
"""Part of every stamp: raise it when a stored line may no longer replay as
it did (the rules of the engine changed), and every game is replayed again
once. (2: the line is covered by its :meth:`Line.digest`, which a change
of the line updates without reading the rest of it.)"""
PLY_READ = "CASE typeof(ply) WHEN 'integer' THEN ply END"
"""A move row's number as a read fetches it (any value but a whole number,
set by hand, as null: never a long text)."""
_NUMBERED = (
    "SELECT (SELECT ply FROM moves WHERE game_id = ?1 ORDER BY ply LIMIT 1) IS 0 "
    "AND (SELECT ply FROM moves WHERE game_id = ?1 ORDER BY ply DESC LIMIT 1) IS ?2 "
    "AND NOT EXISTS (SELECT 1 FROM moves WHERE game_id = ?1 AND typeof(ply) <> 'integer')"
)
"""1 when a game's rows, ``?2`` + 1 of them (no more than a line holds),
are numbered 0 to ``?2``: the first and the last number are looked up,
and no number is a fraction (a text sorts after every number). Reading
each row's number with its move took a line of 100,000 moves 50 ms more;
this, 10 ms."""
_OUT_OF_PLACE = " OR ".join(
    f"EXISTS (SELECT 1 FROM moves AS other WHERE other.game_id = ids.value AND other.ply {bound})"
    for bound in ("< 0", f"> {MAX_LINE}"))
LINES = (
    f"SELECT ids.value, coalesce(group_concat({MOVE_READ}, char(0)), ''), count(ply), "
    f"max(ply IS NOT NULL AND (instr(move, char(0)) OR typeof({MOVE_READ}) <> 'text')) "
    "OR max(typeof(ply) = 'real') OR coalesce(min(ply), 0) <> 0 "
    f"OR coalesce(max(ply), -1) <> count(ply) - 1 OR count(ply) > {MAX_LINE} OR {_OUT_OF_PLACE} "
    "FROM json_each(?) AS ids LEFT JOIN moves ON moves.game_id = ids.value "
    f"AND ply BETWEEN 0 AND {MAX_LINE} GROUP BY ids.value"
)
"""The lines of the games whose ids a JSON array gives, in one query (each
read along the moves table's key, game and ply): the moves joined by NUL
characters, their number, and whether the joined text may not be the line
:func:`read_line` reads (then the game is read move by move): a move holds
a NUL itself or is not text, or the rows are not numbered 0, 1, 2 and on
without a gap, or there are more than a line may hold (of those, no more
than one too many is read). One game costs a lookup, not a scan of every
move in the file."""
MAX_QUOTE = 200
"""Messages quote at most this many characters of what they were given."""


def clip(text: str, limit: int = MAX_QUOTE) -> str:
    """``text`` cut to ``limit`` characters, marked when it was cut."""
    return text if len(text) <= limit else text[: limit - 5] + "[...]"


def rules_json(rules: Rules) -> str:
    """The rules as the database keeps them."""
    return json.dumps(rules.to_dict(), sort_keys=True)


def replay_stamp(stamped: Sequence[Any], line: Sequence[str]) -> str:
    """The digest of what a replay of a game checks: the values of
    :data:`STAMPED_COLUMNS` as the database holds them, and the line (moves
    played, then the redo stack) by its :meth:`Line.digest`. Written with
    each change that was checked (:func:`~terrace.storage.base.check_game`);
    a game whose values still give its stamp is one that was checked, so
    the statistics need not replay it. A damaged row or line gives another
    digest, and is replayed. A :class:`Line` carries its digest, kept as
    it is changed: stamping a move reads nothing of the rest of the line.

    >>> a = replay_stamp(["terrace", "{}", 1, 2, "AH", "playing", 1, None, None, None], ["s"])
    >>> len(a), a == replay_stamp(["terrace", "{}", 1, 2, "AH", "playing", 1, None, None, None], ["s", "s"])
    (32, False)
    """
    digest = (line if isinstance(line, Line) else Line.of(line)).digest()
    return _stamp(stamped, digest, len(line))


def joined_stamp(stamped: Sequence[Any], joined: str, moves: int) -> str:
    """:func:`replay_stamp` of a line given as its moves joined by NUL
    characters (as :data:`LINES` reads it) and their number."""
    return _stamp(stamped, Line.digest_of_joined(joined, moves), moves)


def stamp_fits(stamp: Any, stamped: Sequence[Any], joined: str, moves: int) -> bool:
    """True when ``stamp`` is the :func:`replay_stamp` of a line given as
    :func:`joined_stamp` takes it, by this recipe or by that of stamps of
    version 1 (a digest of the joined moves), which a Terrace before
    version 2 wrote after checking the game just as well: a database it
    last wrote is read by ``terrace stats`` (which writes no new stamps)
    without a replay of every game."""
    if not isinstance(stamp, str):
        return False
    if stamp == joined_stamp(stamped, joined, moves):
        return True
    if REPLAY_STAMP_VERSION != 2:  # (a later version says a line may replay otherwise)
        return False
    line = hashlib.blake2b(joined.encode(), digest_size=16).hexdigest()
    text = json.dumps([1, list(stamped), moves, line], separators=(",", ":"), default=_not_stamped)
    return stamp == hashlib.blake2b(text.encode(), digest_size=16, person=b"terrace-replay").hexdigest()


def _stamp(stamped: Sequence[Any], digest: int, moves: int) -> str:
    text = json.dumps([REPLAY_STAMP_VERSION, list(stamped), moves, f"{digest:x}"], separators=(",", ":"),
                      default=_not_stamped)
    return hashlib.blake2b(text.encode(), digest_size=16, person=b"terrace-replay").hexdigest()


def _not_stamped(value: object) -> str:
    """A value no stamp was made of (a BLOB where a checked game has text
    or a number: a damaged row), written so that the stamp cannot match."""
    return f"not stamped: {type(value).__name__}"


def stamped_values(row: Sequence[Any]) -> list[Any]:
    """The values of :data:`STAMPED_COLUMNS` in a row that starts with
    :data:`GAME_COLUMNS`: what :func:`replay_stamp` covers besides the line."""
    return [row[i] for i in _STAMPED]


def write_stamp(conn: sqlite3.Connection, game_id: str, line: Line) -> None:
    """Stamp the game as it is now stored, with its stored ``line`` (after
    a checked change, in the same transaction): the values are read back,
    so that the stamp is made from exactly what a later read will find."""
    stamped = conn.execute(f"SELECT {STAMPED_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
    # (with the line's digest, known to be its move rows' at their count of
    # changes now: the statistics need not read them to check the stamp)
    conn.execute(f"UPDATE games SET replay_stamp = ?, {LINE_DIGEST} = ?, {LINE_CHECKED} = {LINE_CHANGES} "
                 "WHERE id = ?", (replay_stamp(stamped, line), line_digest(line), game_id))


def line_digest(line: Line) -> str:
    """What :data:`~terrace.storage.migrations.LINE_DIGEST` holds for ``line``.

    >>> line_digest(Line.of([])), line_digest(Line.of(["s"])) == f"1:{Line.of(['s']).digest():x}"
    ('0:0', True)
    """
    return f"{len(line)}:{line.digest():x}"


def digest_stamp(stamped: Sequence[Any], digest: Any) -> str | None:
    """:func:`replay_stamp` of a line known by its :func:`line_digest`
    (None when ``digest`` is none, a value edited by hand, or counts more
    moves than a line holds: such a line is read).

    >>> line = Line.of(["s", "c1"])
    >>> digest_stamp([1], line_digest(line)) == replay_stamp([1], line), digest_stamp([1], "x:1")
    (True, None)
    """
    if not isinstance(digest, str):
        return None
    moves, _, value = digest.partition(":")
    try:
        count = int(moves)
        return _stamp(stamped, int(value, 16), count) if 0 <= count <= MAX_LINE else None
    except ValueError:
        return None


def _values(game: StoredGame) -> tuple[Any, ...]:
    """The game's row, in the order of :data:`GAME_COLUMNS`."""
    return (game.id, game.variant, rules_json(game.rules), game.deal.number, DEAL_VERSION,
            game.deal.text(), game.status, len(game.moves), game.hints, game.undos,
            int(game.winnable_only), game.created_at, game.updated_at, game.started_at,
            game.finished_at, int(game.assisted), game.active_ms, game.won_at, game.won_moves,
            game.won_active_ms, game.given_up_at, game.revision)


def insert_game(conn: sqlite3.Connection, game: StoredGame, action: str | None) -> Line:
    """Insert a new game, its line and the event (none for ``None``: the
    caller logs it); returns the line stored."""
    conn.execute(f"INSERT INTO games ({GAME_COLUMNS}) VALUES ({', '.join('?' * _COLUMN_COUNT)})",
                 _values(game))
    line = game.line_of()
    conn.executemany(
        "INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)",
        [(game.id, ply, move) for ply, move in enumerate(line)],
    )
    write_stamp(conn, game.id, line)
    if action is not None:
        log_event(conn, game, action)
    return line


def overwrite_game(conn: sqlite3.Connection, game: StoredGame, old: Line) -> None:
    """Store ``game`` over the row of its id, whose stored line is ``old``
    (an import that continues it), logged as joined in
    (:data:`~terrace.storage.migrations.JOINED`)."""
    conn.execute(f"UPDATE games SET ({GAME_COLUMNS}) = ({', '.join('?' * _COLUMN_COUNT)}) WHERE id = ?",
                 (*_values(game), game.id))
    line = game.line_of()
    replace_line(conn, game.id, old, line, old.common_prefix(line))
    write_stamp(conn, game.id, line)
    log_event(conn, game, JOINED)


def replace_line(conn: sqlite3.Connection, game_id: str, old: Line, new: Line, keep: int) -> None:
    """Make the stored line ``old`` into ``new``, which share their first
    ``keep`` moves: only the rows after them are touched (one row for a
    move, none for an undo or a redo)."""
    if keep < len(old):
        conn.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, keep))
    if keep < len(new):
        conn.executemany(
            "INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)",
            [(game_id, ply, move) for ply, move in enumerate(new.to_list(keep), keep)],
        )


def read_line(conn: sqlite3.Connection, game_id: str) -> Line:
    """The stored line of a game: moves played, then the redo stack. Its
    rows are numbered 0, 1, 2 and on without a gap, and there are at most
    :data:`~terrace.storage.base.MAX_LINE` of them: a row out of place (a
    number edited by hand, negative or skipped, which put a move elsewhere
    in the line) or one too many makes the game damaged, found after
    reading at most one row more than a line may hold (a line of 10 million
    rows took 11 s of CPU and 360 MB to be refused as too long)."""
    read = f"SELECT {MOVE_READ} FROM moves WHERE game_id = ? ORDER BY ply LIMIT ?"
    moves = [m for (m,) in conn.execute(read, (game_id, MAX_LINE + 1))]
    if len(moves) > MAX_LINE:
        raise damaged_game(game_id, Reason(Refusal.SAVED_LINE_TOO_LONG, field="", most=MAX_LINE))
    if moves and conn.execute(_NUMBERED, (game_id, len(moves) - 1)).fetchone() != (1,):
        numbers = conn.execute(f"SELECT {PLY_READ} FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        place = next((index for index, (ply,) in enumerate(numbers) if ply != index), len(moves))
        raise damaged_game(game_id, Reason(Refusal.SAVED_MOVES_NUMBERED, number=place + 1))
    for ply, move in enumerate(moves):
        if move == _TOO_LONG:
            why = Reason(Refusal.SAVED_MOVE_TOO_LONG, number=ply + 1, most=MAX_MOVE_TEXT)
            raise damaged_game(game_id, why)
    return Line.of(moves)


def log_event(
    conn: sqlite3.Connection, game: StoredGame, action: str, played_before: int | None = None
) -> None:
    """Log a stored change: the move played, undone or redone, if any. A
    change that played several moves at once (auto-play; ``played_before``
    moves were played before it) logs each of them."""
    conn.executemany(
        "INSERT INTO events (game_id, revision, action, move, move_count, at) VALUES (?, ?, ?, ?, ?, ?)",
        [(game.id, game.revision, action, move, count, game.updated_at)
         for move, count in change_events(game, action, played_before)],
    )


_CODES = "|".join(CODE)
_RANK, _SUIT = (f"[{re.escape(''.join(sorted(set(part))))}]" for part in (RANKS, SUITS))
_PAIRS = {rank + suit for rank in RANKS for suit in SUITS}
_CODE = f"{_RANK}{_SUIT}" if set(CODE) == _PAIRS else f"(?:{_CODES})"
WRITTEN_DEAL = re.compile(f"{_CODE}(?: {_CODE})*")
"""A deal string as every write stores it (:meth:`Deal.text`: card codes
between single spaces), which every reading of deal strings reads as its
cards. (A card code is a rank and a suit, each one character: matched as
two classes, five times as fast as the 52 codes one by one, about 70 us a
deal of two decks, 7 s of the first statistics at 100,000 games, load ~17.)"""


def load_game(
    row: Sequence[Any], line: Line, known: StoredGame | None = None, *, stamped: bool = False,
    board_of: StoredGame | None = None, check_only: bool = False,
) -> StoredGame:
    """A game from its database row and line, checked by
    :func:`~terrace.storage.base.check_saved` as an import is: by replaying
    the moves, or, when ``known`` is this game as last read or written at
    the same revision, by the board remembered with it. ``board_of`` (this
    game as read or written before, its line read again since) lends only
    its board, which the check uses while rules, deal, moves and redo are
    exactly the ones it was built for (else the game is replayed). With ``stamped``
    (the row and line still give their :func:`replay_stamp`) everything but
    the replay and what the stamp covers of the deal is checked; with
    ``check_only`` as well (the game is checked and not used: the
    statistics), a deal string as a write stores it (:data:`WRITTEN_DEAL`)
    is not read either, and the game returned has no cards. The stamp
    covers the deal string, rules, deal number and deal version exactly,
    and was written after a check of them that read that string (a write's
    or a replay's): reading it again finds what that check found."""
    game_id = row[0]
    why = too_long(row, _NAMES)
    if why is not None:
        raise damaged_game(game_id, why)
    try:
        (_, variant, rules_text, number, deal_version, deal_text, status, move_count, hints,
         undos, winnable_only, created_at, updated_at, started_at, finished_at, assisted,
         active_ms, won_at, won_moves, won_active_ms, given_up_at, revision) = row
        if not isinstance(variant, str) or canonical_name(variant) != variant:
            raise StoreError(Reason(Refusal.SAVED_VARIANT_UNKNOWN, value=quote(variant)))
        if stamped and check_only and isinstance(deal_text, str) and WRITTEN_DEAL.fullmatch(deal_text):
            rules, deal = _rules_and_deal(rules_text, None, None)[0], Deal(())
        else:
            rules, deal = _rules_and_deal(rules_text, deal_text, known)
        if number is not None and deal_version == DEAL_VERSION:
            deal = Deal(deal.cards, whole(number, "deal_number"))
            if not stamped and (known is None or known.deal != deal):  # (a remembered deal was checked)
                deal.check(rules)
        played = whole(move_count, "move_count")
        if played > len(line):
            raise StoreError(Reason(Refusal.SAVED_MOVES_MISSING, played=played, stored=len(line)))
        if status not in RESULTS:
            raise StoreError(Reason(Refusal.SAVED_STATUS_UNKNOWN, value=quote(status)))
        game = StoredGame(
            game_id, variant, rules, deal, status=status, hints=hints, undos=undos,
            winnable_only=flag(winnable_only, "winnable_only"), created_at=_time(created_at),
            updated_at=_time(updated_at), started_at=_time_or_none(started_at),
            finished_at=_time_or_none(finished_at), revision=whole(revision, "revision"),
            assisted=flag(assisted, "assisted"), active_ms=active_ms, won_at=_time_or_none(won_at),
            won_moves=won_moves, won_active_ms=won_active_ms,
            given_up_at=_time_or_none(given_up_at),
        )
        game.finished_at = finish_time(status, game.finished_at, game.given_up_at, game.updated_at)
        game.won_at, game.won_moves = first_win(status, game.won_at, won_moves, game.finished_at,
                                                game.updated_at, played)
        game.set_line(line, played)
        if known is not None:
            game.adopt_board(known)
        elif board_of is not None and not stamped:
            game.carry_board(board_of)  # (its whole board, moved on by the engine: no replay)
        elif board_of is not None:
            game.adopt_board(board_of)
        if stamped:
            check_fields(game)
        else:
            check_saved(game)
    except NewerRulesError as error:
        raise NewerGameError(Reason(Refusal.GAME_ROW_NEWER, name=clip(str(game_id), 64),
                                    option=error.options[0])) from None
    except (TerraceError, ValueError, TypeError, KeyError, RecursionError) as error:
        raise damaged_game(game_id, Reason(Refusal.SAVED_TOO_DEEP) if isinstance(error, RecursionError)
                           else finding(error)) from None
    game.mark_saved(game.revision, line)
    return game


def _rules_and_deal(rules_text: Any, deal_text: Any, known: StoredGame | None) -> tuple[Rules, Deal]:
    """The rules and deal of stored texts (the rules alone, with an empty
    deal, for a ``deal_text`` of None)."""
    if known is not None and rules_text == rules_json(known.rules) and deal_text == known.deal.text():
        return known.rules, Deal(known.deal.cards)
    if not isinstance(rules_text, str):
        raise StoreError(Reason(Refusal.SAVED_RULES_NOT_TEXT))
    # (most games of a database share a few rules, and Rules cannot change:
    # a stored text of ordinary length is read once)
    rules = _known_rules(rules_text) if len(rules_text) <= 1024 else _rules_from_text(rules_text)
    return rules, Deal(()) if deal_text is None else Deal.parse(deal_text, rules)


class NewerRulesError(ValueError):
    """Saved rules that hold every option this program knows and more: a
    newer Terrace saved them (``options``: the ones not known here)."""

    def __init__(self, options: list[str]) -> None:
        self.options = options
        super().__init__(f"the rules have options this version does not know: {', '.join(options)}")


def _rules_from_text(rules_text: str) -> Rules:
    """The rules a stored JSON text gives; raises ``ValueError`` for rules
    that are incomplete, :class:`NewerRulesError` for rules of a newer
    Terrace, and what :meth:`Rules.from_dict` raises."""
    try:
        read = read_json(rules_text)
    except json.JSONDecodeError as error:  # (the decoder's words, as an import's not-JSON gives them)
        raise StoreError(Reason(Refusal.SAVED_RULES_NOT_JSON, problem=clip(str(error)))) from None
    data = saved_rules(read)  # (saved before an option was added: its value then)
    if isinstance(data, dict) and set(RULE_FIELDS) <= set(data):
        unknown = sorted(str(key)[:40] for key in set(data) - set(RULE_FIELDS))
        if unknown:  # (every option known here, and more: not a row damaged by hand)
            raise NewerRulesError(unknown[:5])
    rules = Rules.from_dict(data)
    if data != rules.to_dict():
        raise StoreError(Reason(Refusal.SAVED_RULES_INCOMPLETE))
    return rules


_known_rules = functools.lru_cache(maxsize=64)(_rules_from_text)


def same_game(a: StoredGame | None, b: StoredGame) -> bool:
    """True when two games are one game, whatever was played in them since:
    the same variant, rules, deal and creation time (a game's identity; its
    line, counters and later times change as it is played)."""
    return a is not None and (a.variant, a.rules, a.deal.cards, a.created_at) == (
        b.variant, b.rules, b.deal.cards, b.created_at
    )


def damaged_game(game_id: Any, why: Param) -> DamagedGameError:
    """The refusal of a stored game whose row or line is damaged (``why``:
    the finding, a reason or words)."""
    name = clip(str(game_id), 64)
    return DamagedGameError(Reason(Refusal.GAME_ROW_DAMAGED, name=name,
                                   why=clip(why) if isinstance(why, str) else why))


def _shown(value: Any) -> str:
    """A stored value as a finding shows it: text quoted as every refusal
    quotes it ('x', German „x“), null as null, the rest as ``repr``; at
    most 40 characters of it."""
    if isinstance(value, str):
        return quote(clip(value, 40))
    return "null" if value is None else clip(repr(value), 40)


def whole(value: Any, name: str) -> int:
    """A stored count, checked."""
    if not isinstance(value, int) or value < 0:
        raise StoreError(Reason(Refusal.SAVED_NOT_WHOLE, field=name, value=_shown(value)))
    return value


def flag(value: Any, name: str) -> bool:
    """A stored 0 or 1, checked."""
    if value not in (0, 1) or isinstance(value, float):
        raise StoreError(Reason(Refusal.SAVED_NOT_FLAG, field=name, value=_shown(value)))
    return bool(value)


def _time(value: Any) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise StoreError(Reason(Refusal.SAVED_TIME_NOT_NUMBER, value=_shown(value)))
    return float(value)


def _time_or_none(value: Any) -> float | None:
    return None if value is None else _time(value)
