"""A backup restored gives back what the player had: random histories of a
database (games opened and played, moves taken back and redone, hints,
assists, playing time, games given up, games imported from elsewhere and
brought back played on, the clock put back), exported whole and imported
into an empty database, give the same statistics byte for byte, the same
game to resume and, exported again, the same file; imported again into the
database they came from, they add nothing. The seeds include those that
found faults in the restore's log."""

from __future__ import annotations

import itertools
import json
import os
import random
import sqlite3
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import no_default_db
from terrace.cli import main
from terrace.deal import Deal
from terrace.errors import TerraceError
from terrace.storage import MemoryStore, SqliteStore, StoreError, open_store
from terrace.storage.base import GivenUpError, StoredGame
from terrace.storage.transfer import export_record, read_games
from terrace.variants import PRESETS, get_rules

_ = no_default_db

ACTIONS = ("new", "new", "play", "play", "undo", "redo", "hint", "time", "assist", "give-up",
           "import", "carried", "undos", "redos")


def _cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _random_moves(game: StoredGame, rng: random.Random, most: int) -> Any:
    """``game``'s board with up to ``most`` random legal moves played."""
    board = game.board()
    for _ in range(rng.randrange(1, most + 1)):
        legal = list(board.legal_moves)
        if not legal:
            break
        board.push(rng.choice(legal))
    return board


def _store(store: Any, game: StoredGame, board: Any, action: str) -> None:
    revision = game.revision
    game.sync(board)
    if action == "undo":
        game.undos += 1
    with suppress(StoreError):  # (a game given up takes no more moves: that is what the player met)
        store.update(game, expected_revision=revision, action=action)


def _from_elsewhere(rng: random.Random, clock: list[float]) -> StoredGame:
    """A game played on another computer, read from its record."""
    other = MemoryStore()
    name = rng.choice(["terrace", "wood"])
    rules = get_rules(name)
    game = other.create(name, rules, Deal.from_number(rng.randrange(50), rules))
    _store(other, game, _random_moves(game, rng, 10), "move")
    clock[0] += 5
    return read_games(json.dumps(export_record(other.get(game.id))))[0]


def _carried(game: StoredGame, rng: random.Random, clock: list[float]) -> StoredGame:
    """``game`` carried to another computer, played on there, brought back."""
    record = export_record(game)
    record["saved"].pop("log", None)
    carried = read_games(json.dumps(record))[0]
    carried.sync(_random_moves(carried, rng, 5))
    carried.revision += 1  # (a change stored there, as every change is)
    carried.updated_at = clock[0]
    carried.started_at = carried.started_at or clock[0]
    if carried.status in ("won", "lost"):
        carried.finished_at = clock[0]
    if carried.status == "won" and carried.won_at is None:
        carried.won_at, carried.won_moves = clock[0], len(carried.moves)
    return carried


def _history(store: SqliteStore, rng: random.Random, clock: list[float], ids: list[str] | None = None,
             steps: int | None = None, back: int = -50,
             variants: tuple[str, ...] = ("terrace", "wood", "falling-star")) -> list[str]:
    """A random history of ``store``'s games (``ids``: those made so far),
    on the clock ``clock``, put ``back`` seconds at times; returns the ids
    of the games made."""
    ids = [] if ids is None else ids
    for _ in range(rng.randrange(3, 14) if steps is None else steps):
        clock[0] += rng.choice([5, 10, 100, back, 3000])
        action = rng.choice(ACTIONS)
        if action == "new" or not ids:
            name = rng.choice(variants)
            rules = get_rules(name)
            ids.append(store.create(name, rules, Deal.from_number(rng.randrange(50), rules)).id)
            action = "play"
        game = store.get(rng.choice(ids))
        board = game.board()
        if action == "play":
            _store(store, game, _random_moves(game, rng, 15), "move")
        elif action == "undo" and board.move_stack:
            board.pop()
            _store(store, game, board, "undo")
        elif action == "redo" and board.redo_stack:
            board.redo()
            _store(store, game, board, "redo")
        elif action in ("undos", "redos"):  # (a chain of them, each stored, as the page stores them)
            for _ in range(rng.randrange(2, 8)):
                if action == "undos" and board.move_stack:
                    board.pop()
                elif action == "redos" and board.redo_stack:
                    board.redo()
                else:
                    break
                _store(store, game, board, action[:-1])
        elif action == "hint":
            store.count_hint(game.id, board.position())
        elif action == "time":
            clock[0] += 15
            with suppress(GivenUpError):  # (a game given up counts no more time, and changes not)
                store.add_active_time(game.id, rng.randrange(1, 10_000), at=clock[0])
        elif action == "assist":
            store.mark_assisted(game.id)
        elif action == "give-up" and game.moves and game.status == "playing" and game.won_at is None:
            game.given_up_at = game.finished_at = clock[0]
            _store(store, game, board, "give-up")
        elif action == "import":
            ids.append(store.add_games([_from_elsewhere(rng, clock)])[0][0])
        elif action == "carried":
            with suppress(StoreError, TerraceError):  # (a game given up cannot be played on)
                store.add_games([_carried(game, rng, clock)])
    return ids


@pytest.mark.parametrize("seed", [*range(12), 141, 752, 784])
def test_a_backup_restored_is_the_database_it_came_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    clock = [time.time() - 3 * 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    source, fresh = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    with open_store(source) as store:
        _history(store, random.Random(seed), clock)
    monkeypatch.undo()
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    _cli("export", "--all", "-o", str(backup), "--db", str(source))
    assert _cli("import", str(backup), "--db", str(fresh)).startswith("imported ")
    assert _cli("stats", "--json", "--db", str(fresh)) == _cli("stats", "--json", "--db", str(source))
    with open_store(source) as before, open_store(fresh) as after:
        resumed = [game.id if (game := store.latest_unfinished()) else None for store in (before, after)]
        assert resumed[1] == resumed[0]
    assert _hinted(fresh) == _hinted(source)  # (no hint counted twice on a position)
    _cli("export", "--all", "-o", str(again), "--db", str(fresh))
    assert again.read_bytes() == backup.read_bytes()
    assert _cli("import", str(backup), "--db", str(source)).startswith("imported 0 games")


def _hinted(db: Path) -> set[tuple[str, str]]:
    """The positions a hint was counted on in ``db``, by game."""
    with sqlite3.connect(db) as conn:
        return set(conn.execute("SELECT game_id, position FROM hinted"))


def _taking_backups(source: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> Iterator[Path]:
    """Three backups of ``source`` (each yielded as soon as it is taken,
    beside it), taken in the middle of random play of every preset."""
    rng = random.Random(seed)
    clock = [time.time() - 3 * 86_400]
    ids: list[str] = []
    for number in range(3):
        monkeypatch.setattr(time, "time", lambda: clock[0])
        with open_store(source) as store:
            # (the clock never put back: a state of a game after a backup is
            # told from the one in it by its later time of change)
            _history(store, rng, clock, ids, steps=rng.randrange(4, 12), back=1, variants=tuple(PRESETS))
        clock[0] += 60
        monkeypatch.undo()
        backup = source.parent / f"backup{number}.json"
        _cli("export", "--all", "-o", str(backup), "--db", str(source))
        yield backup


def _games(db: Path) -> list[tuple[Any, ...]]:
    """Every game of ``db`` as the player sees it, by id."""
    with open_store(db) as store:
        return sorted((game.id, game.moves, game.redo, game.given_up_at, game.won_at, game.hints, game.undos)
                      for game in store.recent(10**6))


BACKUP_SEEDS = 200 if os.environ.get("TERRACE_SLOW") else 10
"""How many histories of backups restored one after another are tried
(TERRACE_SLOW=1: 200)."""


@pytest.mark.parametrize("seed", range(BACKUP_SEEDS))
def test_backups_restored_one_after_another_give_the_newest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Backups taken in the middle of play of every preset (moves taken
    back in chains and redone, games given up, imported, carried away and
    back between them),
    restored into an empty database oldest first, give the newest one's
    statistics, games and file: every state of a game between two backups
    replaces the older state, none is kept beside it."""
    source, fresh = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    backups: list[Path] = []
    for backup in _taking_backups(source, monkeypatch, seed):
        backups.append(backup)
        assert _cli("import", str(backups[-1]), "--db", str(fresh)).startswith("imported ")
        for older in backups:  # (the database they came from holds every state they hold)
            assert _cli("import", str(older), "--db", str(source)).startswith("imported 0 games")
    assert _cli("stats", "--json", "--db", str(fresh)) == _cli("stats", "--json", "--db", str(source))
    again = tmp_path / "again.json"
    _cli("export", "--all", "-o", str(again), "--db", str(fresh))
    assert again.read_bytes() == backups[-1].read_bytes()


@pytest.mark.parametrize("seed", [0, 1, 8, 11])
def test_backups_imported_in_any_order_or_in_one_file_give_the_newest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Three backups imported into an empty database in each of the six
    orders, each order also as one file of their records, give the games
    of the database they came from (from files, its statistics too). In one
    file, a record that took moves back after an older one in the file
    went beside it (seeds 8 and 11: the game came back twice)."""
    source = tmp_path / "source.sqlite"
    backups = list(_taking_backups(source, monkeypatch, seed))
    games, stats = _games(source), _cli("stats", "--json", "--db", str(source))
    for number, order in enumerate(itertools.permutations(backups)):
        files, one = tmp_path / f"files{number}.sqlite", tmp_path / f"one{number}.sqlite"
        for backup in order:
            _cli("import", str(backup), "--db", str(files))
        assert (_games(files), _cli("stats", "--json", "--db", str(files))) == (games, stats)
        joined = tmp_path / "joined.json"
        joined.write_text(json.dumps([entry for backup in order for entry in json.loads(backup.read_text())]))
        _cli("import", str(joined), "--db", str(one))
        assert _games(one) == games
