"""A backup restored gives back what the player had: random histories of a
database (games opened and played, moves taken back and redone, hints,
assists, playing time, games given up, games imported from elsewhere and
brought back played on, the clock put back), exported whole and imported
into an empty database, give the same statistics byte for byte, the same
game to resume and, exported again, the same file; imported again into the
database they came from, they add nothing. The seeds include those that
found faults in the restore's log."""

from __future__ import annotations

import json
import random
import time
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
from terrace.storage.base import StoredGame
from terrace.storage.transfer import export_record, read_games
from terrace.variants import get_rules

_ = no_default_db

ACTIONS = ("new", "new", "play", "play", "undo", "redo", "hint", "time", "assist", "give-up",
           "import", "carried")


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
    carried.updated_at = clock[0]
    carried.started_at = carried.started_at or clock[0]
    if carried.status in ("won", "lost"):
        carried.finished_at = clock[0]
    if carried.status == "won" and carried.won_at is None:
        carried.won_at, carried.won_moves = clock[0], len(carried.moves)
    return carried


def _history(store: SqliteStore, rng: random.Random, clock: list[float]) -> None:
    """A random history of ``store``'s games, on the clock ``clock``."""
    ids: list[str] = []
    for _ in range(rng.randrange(3, 14)):
        clock[0] += rng.choice([5, 10, 100, -50, 3000])
        action = rng.choice(ACTIONS)
        if action == "new" or not ids:
            name = rng.choice(["terrace", "wood", "falling-star"])
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
        elif action == "hint":
            store.count_hint(game.id, board.position())
        elif action == "time":
            clock[0] += 15
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
    _cli("export", "--all", "-o", str(again), "--db", str(fresh))
    assert again.read_bytes() == backup.read_bytes()
    assert _cli("import", str(backup), "--db", str(source)).startswith("imported 0 games")
