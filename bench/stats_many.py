"""How long do the statistics and the recent games take over years of
games? Builds a database of ``--games`` games (copies, by SQL, of a few
games played through the store: Terrace won in 271 moves, lost in 237, left
after 60, and Wood lost in 290, about 190 moves and log entries a game; the
copies are dated in the past, 10 minutes apart, each earlier in time and in
the log than the next, the games played last, so that ``terrace export``
takes them all), then
times, each in a new process (CPU seconds, the median of ``--runs``), on a
store that writes (a server) and on one that only reads (``terrace
stats``): the first statistics (the first read), the second in the same
process (a warm read), and, on
the server, one after a game was opened and a move played; the same for
recent(20). The first opening of a database of an older schema upgrades
it (schema 12 makes an index of the log: time it apart).

    .venv/bin/python bench/stats_many.py [--games 100000] [--runs 3] [--dir FOLDER] [--keep PATH]

``--keep PATH`` builds the database at PATH (or reuses one there).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from terrace.record import GameRecord
from terrace.storage import SqliteStore, open_store, rows
from terrace.storage.migrations import INSERTS_COUNTED, INSERTS_TRIGGER, trust_lines

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
TEMPLATES = (("terrace-won", None), ("terrace-lost", None), ("terrace-won", 60), ("wood-lost", None))
"""The games copied: a golden record, and how many of its moves are played (None: all)."""
SPACING = 600.0
"""Seconds between the starts of two copies (the last copy starts this
long before the games copied, the first ``games`` times as long)."""
TIMED = ("created_at", "updated_at", "started_at", "finished_at", "won_at", "given_up_at")


def _played(store: SqliteStore, name: str, moves: int | None) -> str:
    record = GameRecord.from_json((GOLDEN / f"{name}.json").read_text())
    game = store.create(record.variant, record.rules, record.deal)
    board = game.board()
    for move in record.moves[:moves]:
        board.push_text(move)
        revision = game.revision
        game.sync(board)
        store.update(game, expected_revision=revision, action="move")
    return game.id


def build(path: Path, games: int) -> None:
    """A database of ``games`` copies of the templates, each later in time
    and in the log than the one before, all before the templates (played
    now), stamped as the store stamps. (The copies were dated after the
    templates, up to ``games`` times 10 minutes ahead: ``terrace export``
    skips a game dated ahead of the clock, so it skipped all but the
    templates.)"""
    with open_store(path) as store:
        sources = [_played(store, name, moves) for name, moves in TEMPLATES]
    conn = sqlite3.connect(path, isolation_level=None)
    columns = [c for (c,) in conn.execute("SELECT name FROM pragma_table_info('games')") if c != "id"]
    copies = range(1, games - len(sources) + 1)
    back = f"({len(copies) + 1} - n) * {SPACING}"
    shifted = ", ".join(f"{c} - {back}" if c in TIMED else c for c in columns)
    logged = "game_id, revision, action, move, move_count, at"
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(f"DROP TRIGGER {INSERTS_COUNTED}")  # (line_changes is copied)
    conn.execute("CREATE TEMP TABLE copies (n INTEGER PRIMARY KEY, source TEXT, id TEXT)")
    conn.executemany("INSERT INTO copies VALUES (?, ?, ?)",
                     [(n, sources[n % len(sources)], f"c{n:07d}") for n in copies])
    conn.execute(f"INSERT INTO games (id, {', '.join(columns)}) SELECT copies.id, {shifted} "
                 "FROM copies JOIN games ON games.id = copies.source ORDER BY n")
    conn.execute("INSERT INTO moves SELECT copies.id, ply, move FROM copies JOIN moves ON game_id = source "
                 "ORDER BY n, ply")
    # (the templates' log goes after the copies', as their times do)
    conn.execute(f"CREATE TEMP TABLE played AS SELECT id AS place, {logged} FROM events")
    conn.execute("DELETE FROM events")
    conn.execute(f"INSERT INTO events ({logged}) "
                 f"SELECT copies.id, revision, action, move, move_count, at - {back} "
                 "FROM copies JOIN temp.played ON game_id = source ORDER BY n, place")
    conn.execute(f"INSERT INTO events ({logged}) SELECT {logged} FROM temp.played ORDER BY place")
    stamps = []
    for row in conn.execute(f"SELECT {rows.GAME_COLUMNS}, line_digest FROM games WHERE id LIKE 'c%'"):
        stamps.append((rows.digest_stamp(rows.stamped_values(row), row[-1]), row[0]))
    conn.executemany("UPDATE games SET replay_stamp = ? WHERE id = ?", stamps)
    conn.execute(INSERTS_TRIGGER)
    trust_lines(conn)
    conn.execute("COMMIT")
    conn.close()


PROBE = """
import json, sys, time
from terrace import Deal, get_rules
from terrace.storage import open_store
store = open_store(sys.argv[1], read_only=sys.argv[2] == "ro")
read = getattr(store, sys.argv[3])
took = []
def timed():
    started = time.process_time()
    read()
    took.append(time.process_time() - started)
timed()
timed()
if not store.read_only:  # (a game opened and one move played, as the page does)
    rules = get_rules("terrace")
    game = store.create("terrace", rules, Deal.from_number(7, rules))
    board = game.board()
    board.push(next(iter(board.legal_moves)))
    revision = game.revision
    game.sync(board)
    store.update(game, expected_revision=revision, action="move")
    timed()
print(json.dumps(took))
"""


def probe(path: Path, what: str, mode: str) -> list[float]:
    """CPU seconds of calls of ``what`` in a new process: the first, the
    second, and (a store that writes) one after a game was opened and
    played."""
    done = subprocess.run([sys.executable, "-c", PROBE, str(path), mode, what],
                          capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", help="folder for the database (default: a temporary one)")
    parser.add_argument("--keep", help="build the database here, or use the one there")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(args.keep) if args.keep else Path(folder) / "many.sqlite"
        if not path.exists():
            started = time.perf_counter()
            build(path, args.games)
            print(f"built {args.games} games in {time.perf_counter() - started:.1f} s: "
                  f"{path.stat().st_size / 1e9:.2f} GB")
        for what in ("statistics", "recent"):
            for mode in ("rw", "ro"):
                runs = [probe(path, what, mode) for _ in range(args.runs)]
                medians = [f"{statistics.median(r[n] for r in runs):.3f}" for n in range(len(runs[0]))]
                print(f"{what} ({'read-only' if mode == 'ro' else 'server'}): first read, warm read"
                      f"{', after a move' if mode == 'rw' else ''}: {', '.join(medians)} s of CPU "
                      f"(medians of {args.runs})")


if __name__ == "__main__":
    main()
