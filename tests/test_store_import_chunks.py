"""An import writes its games in chunks, each its own transaction, so that
a game played meanwhile on the same database gets its moves through: all
3,000 games of a backup written in one transaction held the write lock
4.3 s, and a move sent meanwhile waited 10.3 s and was refused as busy."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from terrace.cli import errors, main
from terrace.deal import Deal
from terrace.storage import StoreError, open_store, sqlite
from terrace.storage.transfer import export_record, read_games
from terrace.variants import get_rules


def _records(folder: Path, count: int) -> str:
    """``count`` new games of another database, as an export file's text."""
    rules = get_rules("wood")
    with open_store(folder / "elsewhere.sqlite") as other:
        games = [other.create("wood", rules, Deal.from_number(100 + n, rules)) for n in range(count)]
        return json.dumps([export_record(game) for game in games])


def _insert_failing_at(monkeypatch: pytest.MonkeyPatch, at: int, error: BaseException) -> Any:
    """Make the ``at``-th game the store inserts raise ``error``; the real
    insert, to put back."""
    real_insert = sqlite.insert_game
    calls = [0]

    def failing_insert(conn: sqlite3.Connection, *args: Any, **kwargs: Any) -> None:
        calls[0] += 1
        if calls[0] == at:
            raise error
        real_insert(conn, *args, **kwargs)

    monkeypatch.setattr(sqlite, "insert_game", failing_insert)
    return real_insert


def test_a_move_gets_through_while_a_large_import_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each game written is made slow (50 ms, as 35 games of 1.4 ms), and
    the mover waits for the lock at most 1 s: the import of 40 games held
    it 2 s at once, and the move was refused as busy; in chunks of 5 games
    (0.25 s) it waits for one chunk at most."""
    text = _records(tmp_path, 40)
    db = tmp_path / "games.sqlite"
    rules = get_rules("wood")
    with open_store(db) as player:
        game = player.create("wood", rules, Deal.from_number(7, rules))
    monkeypatch.setattr(sqlite, "IMPORT_CHUNK", 5)
    monkeypatch.setattr(sqlite, "BUSY_TIMEOUT_SECONDS", 1.0)
    real_insert = sqlite.insert_game
    writing = threading.Event()

    def slow_insert(*args: Any, **kwargs: Any) -> None:
        writing.set()
        time.sleep(0.05)
        real_insert(*args, **kwargs)

    monkeypatch.setattr(sqlite, "insert_game", slow_insert)
    outcome: list[Any] = []

    player = open_store(db)  # (the web game's store: open before the import starts)

    def move() -> None:
        writing.wait(10)
        time.sleep(0.1)  # (inside a chunk)
        mine = player.get(game.id)
        revision = mine.revision
        board = mine.board()
        board.push_text("s")
        mine.sync(board)
        started = time.monotonic()
        try:
            player.update(mine, expected_revision=revision, action="move")
            outcome.append(time.monotonic() - started)
        except StoreError as error:
            outcome.append(error)

    mover = threading.Thread(target=move)
    mover.start()
    with open_store(db) as store:
        added = store.add_games(read_games(text))
    mover.join(30)
    player.close()
    assert len(added) == 40 and all(fresh for _, fresh in added)
    assert len(outcome) == 1 and isinstance(outcome[0], float), outcome  # (before: busy)
    assert outcome[0] < 1.0
    with open_store(db) as store:
        assert store.get(game.id).played_count() == 1
        assert len(store.game_ids()) == 41


@pytest.fixture
def seven_in_chunks_of_three(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An export file of 7 new games and an empty database, which imports
    in chunks of 3 without pausing."""
    source = tmp_path / "backup.json"
    source.write_text(_records(tmp_path, 7))
    db = tmp_path / "games.sqlite"
    with open_store(db):
        pass
    monkeypatch.setattr(sqlite, "IMPORT_CHUNK", 3)
    monkeypatch.setattr(sqlite, "IMPORT_PAUSE", 0.0)
    return source, db


def _the_rest_imported(monkeypatch: pytest.MonkeyPatch, real_insert: Any, source: Path, db: Path) -> str:
    """With the real insert back, the file imported again: it succeeds and
    the database holds all its 7 games. What it said."""
    monkeypatch.setattr(sqlite, "insert_game", real_insert)
    again = CliRunner().invoke(main, ["import", str(source), "--db", str(db)])
    assert again.exit_code == 0, again.output
    with open_store(db) as store:
        assert len(store.game_ids()) == 7
    return again.output


def test_an_import_stopped_after_its_first_chunks_says_how_many_games_are_in(
    seven_in_chunks_of_three: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import that fails in a later chunk keeps the chunks written, and
    says so (not "nothing was imported"); imported again, it adds the rest
    and nothing twice."""
    source, db = seven_in_chunks_of_three
    # (the second game of the second chunk)
    real_insert = _insert_failing_at(monkeypatch, 5, sqlite3.OperationalError("disk I/O error"))
    result = CliRunner().invoke(main, ["import", str(source), "--db", str(db)])
    assert result.exit_code == 1
    assert "the import stopped after 3 games of the file were stored: " in result.output, result.output
    assert "import the file again to add the rest" in result.output
    with open_store(db) as store:
        assert len(store.game_ids()) == 3  # (the first chunk; the second was rolled back)
    assert "imported 4 games (3 already here)" in _the_rest_imported(monkeypatch, real_insert, source, db)


@pytest.mark.parametrize(("stop", "status", "said"), [
    (errors.Interrupted, 130, "stopped: interrupted (Ctrl+C)"),
    (errors.Terminated, 143, "stopped: terminated (SIGTERM)"),
], ids=["Ctrl+C", "SIGTERM"])
@pytest.mark.parametrize(("at", "kept"), [(5, 3), (7, 6), (2, 0)], ids=["chunk 2", "chunk 3", "chunk 1"])
def test_an_import_stopped_by_a_signal_says_how_many_games_are_in(
    seven_in_chunks_of_three: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
    stop: type[KeyboardInterrupt], status: int, said: str, at: int, kept: int,
) -> None:
    """An import stopped by Ctrl+C or SIGTERM after its first chunks were
    written kept them but said only "stopped: interrupted (Ctrl+C)", where
    one the disk stopped says how many games are in and that importing the
    file again adds the rest: it says so too now (and nothing more when no
    chunk was written)."""
    source, db = seven_in_chunks_of_three
    real_insert = _insert_failing_at(monkeypatch, at, stop)
    result = CliRunner().invoke(main, ["import", str(source), "--db", str(db)])
    assert result.exit_code == status, result.output
    words = (f"; the import stopped after {kept} games of the file were stored: import the file again to add "
             "the rest (the games stored are not added twice)")
    assert result.output.strip().splitlines()[-1] == (said + words if kept else said), result.output
    with open_store(db) as store:
        assert len(store.game_ids()) == kept
    _the_rest_imported(monkeypatch, real_insert, source, db)


def test_an_import_into_memory_does_not_pause_between_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pause lets another connection take the write lock; no other
    connection reaches a database in memory (terrace import --db :memory:)."""
    text = _records(tmp_path, 6)
    monkeypatch.setattr(sqlite, "IMPORT_CHUNK", 2)
    paused: list[float] = []
    monkeypatch.setattr(sqlite.time, "sleep", paused.append)
    with open_store(":memory:") as store:
        assert len(store.add_games(read_games(text))) == 6
        assert len(store.game_ids()) == 6
    assert paused == []
    with open_store(tmp_path / "games.sqlite") as store:
        assert len(store.add_games(read_games(text))) == 6
    assert paused == [sqlite.IMPORT_PAUSE] * 2  # (a file: between its three chunks)


def test_a_backup_restored_into_an_empty_database_is_written_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: an import stopped keeps the chunks it wrote, but none of a
    backup restored whole into an empty database, which is written in one
    transaction (its log is rebuilt from the file's): no pause, and a fault
    in its fourth game keeps nothing and says so."""
    rules = get_rules("wood")
    with open_store(tmp_path / "elsewhere.sqlite") as other:
        for n in range(7):
            other.create("wood", rules, Deal.from_number(100 + n, rules))
    backup = tmp_path / "backup.json"
    exported = CliRunner().invoke(main, ["export", "--all", "--db", str(tmp_path / "elsewhere.sqlite"),
                                         "-o", str(backup)])
    assert exported.exit_code == 0, exported.output
    db = tmp_path / "games.sqlite"
    with open_store(db):
        pass
    monkeypatch.setattr(sqlite, "IMPORT_CHUNK", 2)
    paused: list[float] = []
    monkeypatch.setattr(sqlite.time, "sleep", paused.append)
    # (in the second chunk, were it written in chunks)
    real_insert = _insert_failing_at(monkeypatch, 4, sqlite3.OperationalError("disk I/O error"))
    result = CliRunner().invoke(main, ["import", str(backup), "--db", str(db)])
    assert result.exit_code == 1
    assert "nothing was imported: " in result.output, result.output
    with open_store(db) as store:
        assert store.game_ids() == []
    monkeypatch.setattr(sqlite, "insert_game", real_insert)
    again = CliRunner().invoke(main, ["import", str(backup), "--db", str(db)])
    assert again.exit_code == 0, again.output
    assert "imported 7 games" in again.output
    assert paused == []  # (one transaction each time)


def test_an_import_stopped_after_one_game_says_it_in_the_singular(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first chunk of games mostly here already stores one game; the
    message said "after 1 game of the file were stored"."""
    records = json.loads(_records(tmp_path, 5))
    source = tmp_path / "backup.json"
    source.write_text(json.dumps(records[:2]))
    db = tmp_path / "games.sqlite"
    assert CliRunner().invoke(main, ["import", str(source), "--db", str(db)]).exit_code == 0
    source.write_text(json.dumps(records))
    monkeypatch.setattr(sqlite, "IMPORT_CHUNK", 3)
    monkeypatch.setattr(sqlite, "IMPORT_PAUSE", 0.0)
    # (the first game of the second chunk: the first chunk stored one)
    _insert_failing_at(monkeypatch, 2, sqlite3.OperationalError("disk I/O error"))
    result = CliRunner().invoke(main, ["import", str(source), "--db", str(db)])
    assert result.exit_code == 1
    assert "the import stopped after 1 game of the file was stored: " in result.output, result.output
    with open_store(db) as store:
        assert len(store.game_ids()) == 3
