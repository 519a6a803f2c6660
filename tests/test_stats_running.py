"""The statistics kept up to date game by game (storage.running) count
exactly what a count of every game counts, and after a move count again
only the games it changed."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
from datetime import UTC, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import golden, no_default_db, play, quick_finish, start, undo
from terrace.cli import main
from terrace.storage import open_store, tallying
from terrace.storage import sqlite as sqlite_module
from terrace.storage.memory import MemoryStore
from terrace.storage.paths import findings_folder
from terrace.storage.running import Running
from terrace.storage.statistics import GameFacts, summarize
from terrace.storage.transfer import export_record, read_games

_ = no_default_db

GROUPS = ("terrace", "wood", "terrace (custom: decks 1)")


def _random_game(rng: random.Random, seq: int) -> GameFacts:
    """A game as the statistics may find it: won, lost, given up, left or
    never started; made here, imported, or opened elsewhere; at a place
    in the log (or none: a row of an older schema), its times a little
    before or after the last (a clock put back)."""
    status = rng.choice(["won", "lost", "playing", "playing", "choosing"])
    imported = rng.random() < 0.15
    at = rng.uniform(1e9, 1e9 + 1e6)
    started = rng.random() < 0.85
    won_at = at + rng.uniform(0, 100) if status == "won" or rng.random() < 0.1 else None
    result_seq = seq + 4 if status in ("won", "lost") and rng.random() < 0.5 else None
    return GameFacts(
        rng.choice(GROUPS), status, rng.randint(0, 5) if started else 0, rng.randint(0, 2), rng.randint(0, 2),
        at, at + rng.uniform(-50, 500), at + 1 if started else None,
        at + rng.uniform(0, 600) if rng.random() < 0.5 else None, won_at, rng.choice([None, 3, 4]),
        rng.choice([None, 1000]), rng.random() < 0.1, rng.randint(0, 9000), rng.random() < 0.1,
        imported, imported or rng.random() < 0.05, None if rng.random() < 0.05 else seq,
        None if rng.random() < 0.05 else seq + rng.randint(0, 3), result_seq)


def _imported(rng: random.Random, seq: int) -> GameFacts:
    """A game as an import adds it: :func:`_random_game`, made elsewhere."""
    game = _random_game(rng, seq)
    return dataclasses.replace(game, imported=True, opened_elsewhere=True)


@pytest.mark.parametrize("seed", range(4))
def test_statistics_kept_game_by_game_equal_a_count_of_every_game(seed: int) -> None:
    """Over random changes (games opened, played, left, won, undone to
    fewer moves, imported one by one or many at once, deleted; the log's
    place and the clock now and then put back), the statistics kept up
    to date equal summarize() of the same games in the order of their
    rows, in three time zones."""
    rng = random.Random(seed)
    zone = (None, UTC, timezone(timedelta(hours=9)))[seed % 3]
    games: dict[int, GameFacts] = {}
    seq = 0
    for _ in range(rng.randint(0, 30)):
        seq += 5
        games[rng.randint(1, 60)] = _random_game(rng, seq)
    running = Running(games)
    for _ in range(80):
        changed: dict[int, GameFacts | None] = {}
        if rng.random() < 0.1:  # (an import: many games added at once, beside the others)
            for rowid in range(max(games, default=0) + 1, max(games, default=0) + rng.randint(2, 40)):
                seq += 5
                changed[rowid] = _imported(rng, seq)
        for _ in range(rng.randint(0 if changed else 1, 3)):
            rowid = rng.randint(1, 60)
            if rng.random() < 0.15:
                changed[rowid] = None
            else:
                seq += 5 if rng.random() < 0.9 else -rng.randint(0, 40)
                changed[rowid] = _random_game(rng, seq)
        for rowid, game in changed.items():
            if game is None:
                games.pop(rowid, None)
            else:
                games[rowid] = game
        running.update(changed)
        assert running.summary(zone) == summarize([games[r] for r in sorted(games)], zone=zone)


def _results_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each game's result the statistics find."""
    calls: list[int] = []
    result = GameFacts.result

    def counted(self: GameFacts, *args: Any) -> str | None:
        calls.append(1)
        return result(self, *args)

    monkeypatch.setattr(GameFacts, "result", counted)
    return calls


def test_statistics_after_a_move_count_again_only_the_games_it_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After any change the sums went over every game's facts again (1.2 s
    of CPU at 100,000 games after a move): now over the games changed (and
    the game left by a new one), equal to a count of the file afresh after
    a game left for a new one, a move, an undo and an import of several
    games in more than one write."""
    db = tmp_path / "games.sqlite"
    record = golden("terrace-won")
    with open_store(db) as store:
        for n in range(12):
            play(store, start(store, record), record.moves[:n % 3 + 1])
        store.statistics()
        calls = _results_counted(monkeypatch)
        game = start(store, record)
        play(store, game, record.moves[:2])
        found = store.statistics()
        assert len(calls) <= 4, len(calls)
        undo(store, store.get(game.id))
        calls.clear()
        undone = store.statistics()
        assert len(calls) <= 4, len(calls)
        assert undone == _afresh(db) != found
        elsewhere = MemoryStore()
        for n in range(3):
            play(elsewhere, start(elsewhere, record), record.moves[:n + 2])
        monkeypatch.setattr(sqlite_module, "IMPORT_CHUNK", 2)  # (two writes, each remaking a trigger)
        monkeypatch.setattr(sqlite_module, "IMPORT_PAUSE", 0.0)
        store.add_games(read_games(json.dumps([export_record(g) for g in elsewhere.recent(3)])))
        calls.clear()
        imported = store.statistics()  # (the first statistics after an import counted every game again)
        assert len(calls) <= 6, len(calls)
        assert imported == _afresh(db) and imported["overall"]["played"] == found["overall"]["played"] + 3


def _afresh(db: Path) -> dict[str, Any]:
    with open_store(db, read_only=True) as reader:
        return reader.statistics()


def test_terrace_stats_says_it_checks_many_games_and_how_far_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """terrace stats on a file whose findings are not kept (never opened by
    this Terrace to write) checked every game without a word: 13 s at
    100,000 games. A check of LONG_CHECK games or more is said on standard
    error as it starts, and its steps told; with the findings kept (a
    server's statistics filled them) nothing is said."""
    db = tmp_path / "games.sqlite"
    record = golden("terrace-won")
    with open_store(db) as store:
        for n in range(4):
            play(store, start(store, record), record.moves[:n + 1])
    monkeypatch.setattr(tallying, "LONG_CHECK", 4)
    told: list[tuple[int, int]] = []
    with open_store(db, read_only=True) as reader:
        reader.statistics(progress=lambda checked, total: told.append((checked, total)))
    assert told == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    shutil.rmtree(findings_folder())  # (what that read found sound is noted: as on another computer)
    said = CliRunner().invoke(main, ["stats", "--db", str(db)])
    assert said.exit_code == 0 and "note: checking 4 saved games for the statistics" in said.stderr
    assert said.stdout.startswith("Variant")
    noted = CliRunner().invoke(main, ["stats", "--db", str(db)])  # (the games found sound: not checked again)
    assert noted.exit_code == 0 and noted.stderr == "" and noted.stdout == said.stdout
    with open_store(db) as store:
        store.statistics()  # (kept in the file: nothing to say)
    again = CliRunner().invoke(main, ["stats", "--db", str(db)])
    assert again.exit_code == 0 and again.stderr == "" and again.stdout == said.stdout


def test_a_restart_and_a_backup_imported_again_count_each_game_once(tmp_path: Path) -> None:
    """As PySolFC and Aisleriot count a game once however often it is
    loaded: a game left in play when the server stops is the same game
    after its start (unfinished, not abandoned, not a second game), and a
    backup imported twice into another database, or into its own, adds no
    game and no result (played, won, streak as before)."""
    record = golden("terrace-won")
    db, other = tmp_path / "games.sqlite", tmp_path / "other.sqlite"
    keys = ("played", "won", "abandoned", "unfinished", "current_streak", "best_streak")
    with open_store(db) as store:
        quick_finish(store, "terrace-won")
        play(store, start(store, record), record.moves[:3])
        before = {key: store.statistics()["overall"][key] for key in keys}
    assert before == {"played": 2, "won": 1, "abandoned": 0, "unfinished": 1, "current_streak": 1,
                      "best_streak": 1}
    with open_store(db) as store:  # (a server started again)
        assert {key: store.statistics()["overall"][key] for key in keys} == before
        backup = json.dumps([export_record(game) for game in store.recent(5)])
        store.add_games(read_games(backup))
        assert {key: store.statistics()["overall"][key] for key in keys} == before
    with open_store(other) as store:
        for _ in range(2):
            store.add_games(read_games(backup))
        assert {key: store.statistics()["overall"][key] for key in keys} == before
