"""The recent games' order kept game by game (storage.recent) is the order
a sort of every game gives (RECENT_ORDER, the SQLite store's query until
it kept it), after random changes of its own and of other programs."""

from __future__ import annotations

import random
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from store_support import RECENT_ORDER, golden, start
from terrace.storage import SqliteStore, open_store
from terrace.storage.migrations import JOINED

ACTIONS = ("move", "move", "move", "hint", "import", JOINED)


def _order(store: SqliteStore, limit: int) -> list[int]:
    with store._transaction(write=False) as conn:
        return store._recent_order(conn, limit)


def _change(conn: sqlite3.Connection, rng: random.Random, clock: list[int]) -> None:
    """One random change: a game opened (a copy of the first, or one
    imported), played on (a move, a hint, an import or a join logged,
    the clock now and then put back), its time changed, its last entry
    in the log taken away, or deleted."""
    ids = [game_id for (game_id,) in conn.execute("SELECT id FROM games")]
    clock[0] += rng.randint(0, 3) if rng.random() < 0.8 else -rng.randint(0, 40)  # (whole seconds: ties)
    kind = rng.random()
    if kind < 0.25 or len(ids) < 3:
        game_id = f"g{rng.randrange(10**9)}"
        columns = ", ".join(c for (c,) in conn.execute("SELECT name FROM pragma_table_info('games')")
                            if c not in ("id", "updated_at"))
        conn.execute(f"INSERT INTO games (id, updated_at, {columns}) SELECT ?, ?, {columns} FROM games "
                     "ORDER BY rowid LIMIT 1", (game_id, clock[0] + rng.choice([0, 0, 20, -20])))
        action = "import" if rng.random() < 0.3 else "create"
        conn.execute("INSERT INTO events (game_id, revision, action, move_count, at) VALUES (?, 0, ?, 0, ?)",
                     (game_id, action, clock[0]))
    elif kind < 0.75:
        conn.execute("INSERT INTO events (game_id, revision, action, move_count, at) VALUES (?, 1, ?, 1, ?)",
                     (rng.choice(ids), rng.choice(ACTIONS), clock[0]))
    elif kind < 0.85:
        conn.execute("UPDATE games SET updated_at = ? WHERE id = ?",
                     (clock[0] + rng.choice([0, 30, -30]), rng.choice(ids)))
    elif kind < 0.93:
        conn.execute("DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE game_id = ?)",
                     (rng.choice(ids),))
    else:
        conn.execute("DELETE FROM games WHERE id = ?", (rng.choice(ids),))


@pytest.mark.parametrize("seed", range(4))
def test_the_recent_order_kept_game_by_game_is_the_order_of_a_sort_of_every_game(
        tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    db = tmp_path / "games.sqlite"
    clock = [2 * 10**9]
    with open_store(db) as store:
        start(store, golden("terrace-lost"))
        for step in range(150):
            other = rng.random() < 0.05  # (another program's change: every game placed again)
            conn = sqlite3.connect(db) if other else store._conn
            with store._lock:
                _change(conn, rng, clock)
                conn.commit()
            if other:
                conn.close()
            limit = rng.choice([1, 3, 20, 100])
            expected = [r for (r,) in store._conn.execute(RECENT_ORDER, (limit,))]
            assert _order(store, limit) == expected, step


def test_the_recent_order_kept_costs_under_a_hundred_and_fifty_bytes_a_game(tmp_path: Path) -> None:
    """The order kept each game's id, a named tuple of its place and times
    and sorted tuples of them: about 500 bytes a game, 50 MB at 100,000
    games for as long as a server runs. It keeps numbers in arrays now
    (110 bytes a game), and the order is the same (the test above)."""
    db = tmp_path / "games.sqlite"
    games = 2_000
    with open_store(db) as store:
        source = start(store, golden("terrace-lost")).id
    conn = sqlite3.connect(db, isolation_level=None)
    columns = ", ".join(c for (c,) in conn.execute("SELECT name FROM pragma_table_info('games')")
                        if c not in ("id", "updated_at"))
    copies = f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {games - 1}) "
    conn.execute("BEGIN")
    conn.execute(f"{copies} INSERT INTO games (id, updated_at, {columns}) SELECT 'c' || i, 2e9 + i, "
                 f"{columns} FROM n, games WHERE games.id = ?", (source,))
    conn.execute(f"{copies} INSERT INTO events (game_id, revision, action, move_count, at) "
                 "SELECT 'c' || i, 0, CASE i % 10 WHEN 0 THEN 'import' ELSE 'create' END, 0, 2e9 + i FROM n")
    conn.execute("COMMIT")
    conn.close()
    with open_store(db) as store:
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            order = _order(store, 20)
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert order[:3] == [games, games - 1, games - 2] and store._recent_found is not None
        assert kept / games < 150, kept / games  # (117 now, 437 before)
