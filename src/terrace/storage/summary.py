"""Answers kept whole in the file: the statistics (by time zone) and the
recent games (by how many), as a store that may write last gave them,
so that a new process (``terrace stats``, a server just started) answers
them without reading every game (2.5 s and 1.3-2.0 s of CPU at 100,000
games, ten times that at a million).

An answer is kept in :data:`~terrace.storage.migrations.SUMMARY` only
while it is the answer: the file's triggers
(:data:`~terrace.storage.migrations.SUMMARY_TRIGGERS`) empty the table at
any change to a game's row or log, by any program, a hand edit in the
sqlite3 shell included. An answer is taken only under the file's layout
it was kept under (a trigger dropped by hand moves it) and this version of
the statistics (:data:`VERSION`), only while the file's last game and last
entry of the log are the ones it was kept with, and only when its digest
fits: a row edited by hand, damaged, or copied from another file is read
as none, and the answer is counted from the games again. (The digest is a
check against mistakes, not a signature: a row forged with the recipe
below is taken.)

>>> from datetime import timedelta, timezone
>>> zone_key(timezone(timedelta(hours=9)))
'fixed 32400.0'
>>> statistics_key(None) == statistics_key(None), recent_key(20)
(True, 'recent 20')
"""

from __future__ import annotations

import calendar
import functools
import hashlib
import json
import os
import sqlite3
import time
from datetime import datetime, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from terrace.storage.migrations import SUMMARY, summary_fault
from terrace.storage.rows import bounded
from terrace.storage.statistics import RESULTS, stats_block

VERSION = 1
"""The version of what is kept: raise it when the statistics or the order
of the recent games are counted otherwise, and every answer kept is taken
for none (the store's :data:`~terrace.storage.tallying.FOUND_VERSION` is
part of it too)."""
MOST = 64 << 20
"""The longest answer read (a row longer, edited by hand, is none): the
statistics of a hundred years of games, a chart day each, in every group,
are far shorter."""
_SAMPLES = tuple(calendar.timegm((year, month, 1, 0, 0, 0)) for year in range(2000, 2101)
                 for month in range(1, 13))
"""The times at which a zone's offset is read for its key: a zone whose
rules changed (a new tzdata) has another key."""
_BLOCK_KEYS = frozenset(stats_block(dict.fromkeys(RESULTS, 0), streaks=(0, 0, 0, 0), fewest=(None, 0),
                                    fastest=None, sums=(0, 0, 0, 0), days=[]))
"""The keys of a block of the statistics."""
_DAY_KEYS = frozenset(("date", "won", "lost", "abandoned"))


def zone_key(zone: tzinfo | None) -> str | None:
    """What names the chart's days of ``zone`` (None: this computer's local
    time, as ``TZ`` and the system name it now), with its offsets from UTC
    over the years a saved game may hold; None for a zone of another kind,
    whose statistics are not kept."""
    if zone is None:
        return _local_key(os.environ.get("TZ"), time.tzname)
    if isinstance(zone, timezone):
        return f"fixed {zone.utcoffset(None).total_seconds()!r}"
    if isinstance(zone, ZoneInfo) and zone.key:
        return _zone_key(zone)
    return None


@functools.lru_cache(maxsize=16)
def _local_key(tz: str | None, names: tuple[str, str]) -> str:
    offsets = [time.localtime(at).tm_gmtoff for at in _SAMPLES]
    return f"local {tz!r} {'/'.join(names)} {_digest(offsets)}"


@functools.lru_cache(maxsize=64)
def _zone_key(zone: ZoneInfo) -> str:
    offsets = [datetime.fromtimestamp(at, zone).utcoffset() for at in _SAMPLES]
    return f"zone {zone.key} {_digest([o.total_seconds() if o is not None else None for o in offsets])}"


def _digest(value: Any) -> str:
    return hashlib.blake2b(json.dumps(value).encode(), digest_size=16).hexdigest()


def statistics_key(zone: tzinfo | None) -> str | None:
    """What the statistics with their days in ``zone`` are kept as (None:
    not kept)."""
    key = zone_key(zone)
    return None if key is None else f"statistics {key}"


def recent_key(limit: int) -> str:
    """What the ``limit`` recent games are kept as."""
    return f"recent {limit:d}"


def _state(conn: sqlite3.Connection) -> str:
    """The file's last game and last entry of the log (two look-ups)."""
    games, events = conn.execute(
        "SELECT (SELECT max(rowid) FROM games), (SELECT max(id) FROM events)").fetchone()
    return f"{games}:{events}"


def _signed(what: str, layout: int, version: int, state: str, answer: str) -> str:
    return _digest([what, layout, version, state, answer])


def kept(conn: sqlite3.Connection, what: str, version: int) -> Any:
    """The answer kept as ``what`` under ``version``, decoded from its
    JSON, or None when none is kept that may be taken (see the module's
    text). One read, in the transaction under way."""
    try:
        row = conn.execute(f"SELECT layout, version, state, {bounded('answer', MOST)}, digest "
                           f"FROM {SUMMARY} WHERE what = ?", (what,)).fetchone()
    except sqlite3.OperationalError:  # (no such table: a file before schema 14 read as it stands)
        return None
    if row is None:
        return None
    layout, kept_version, state, answer, digest = row
    if not isinstance(answer, str) or kept_version != version:
        return None
    if layout != conn.execute("PRAGMA schema_version").fetchone()[0] or state != _state(conn):
        return None
    if digest != _signed(what, layout, version, state, answer):
        return None
    try:
        return json.loads(answer)
    except (ValueError, RecursionError):
        return None


def keep(conn: sqlite3.Connection, what: str, version: int, answer: Any) -> bool:
    """Keep ``answer`` as ``what`` (in the write transaction under way, in
    which nothing changed since it was found); False, keeping nothing,
    when the file's triggers that drop it are not all in place, or when
    JSON cannot hold it as it is (a NaN)."""
    if summary_fault(conn) is not None:
        return False
    try:
        text = json.dumps(answer, separators=(",", ":"), allow_nan=False)
    except (ValueError, TypeError):  # (no number a read gives is NaN: never kept as JSON cannot read it)
        return False
    layout = int(conn.execute("PRAGMA schema_version").fetchone()[0])
    state = _state(conn)
    conn.execute(f"INSERT OR REPLACE INTO {SUMMARY} (what, layout, version, state, answer, digest) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (what, layout, version, state, text,
                                               _signed(what, layout, version, state, text)))
    return True


def statistics_shape(answer: Any) -> bool:
    """Whether ``answer`` has the shape of the statistics, with none left
    out as damaged or newer (whose notes a new process must give again).

    >>> from terrace.storage.statistics import summarize
    >>> statistics_shape(summarize([])), statistics_shape({"overall": {}})
    (True, False)
    """
    if not isinstance(answer, dict) or set(answer) != {"overall", "variants", "damaged", "newer"}:
        return False
    if answer["damaged"] != 0 or answer["newer"] != 0 or not isinstance(answer["variants"], dict):
        return False
    return all(_block_shape(block) for block in (answer["overall"], *answer["variants"].values()))


def _block_shape(block: Any) -> bool:
    if not isinstance(block, dict) or set(block) != _BLOCK_KEYS or not isinstance(block["days"], list):
        return False
    counts = [block[name] for name in ("played", "won", "lost", "abandoned", "unfinished")]
    if not all(type(count) is int and count >= 0 for count in counts):
        return False
    return all(isinstance(day, dict) and set(day) == _DAY_KEYS for day in block["days"])


def recent_shape(answer: Any, limit: int) -> bool:
    """Whether ``answer`` is a list of at most ``limit`` game ids, each once.

    >>> recent_shape(["a", "b"], 2), recent_shape(["a", "a"], 2), recent_shape(["a", 1], 2)
    (True, False, False)
    """
    return (isinstance(answer, list) and len(answer) <= limit and all(isinstance(i, str) for i in answer)
            and len(set(answer)) == len(answer))
