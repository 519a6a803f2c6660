"""Odd files a command is told to read or write: a pipe, a device, a file
reached through an open file of the process (``/dev/stdout``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from store_support import golden, no_default_db, play, save, start
from terrace.cli import main
from terrace.storage import open_store
from terrace.storage.transfer import export_record

_ = no_default_db

SRC = str(Path(__file__).parent.parent / "src")


def _terrace(*args: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-m", "terrace", *args], env=env, timeout=60,
                          check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


def _database(tmp_path: Path) -> Path:
    db = tmp_path / "games.sqlite"
    record = golden("terrace-won")
    with open_store(db) as store:
        play(store, start(store, record), record.moves[:6])
    return db


def test_an_export_to_dev_stdout_reaches_a_pipe(tmp_path: Path) -> None:
    # (it made a temporary file in /proc/<pid>/fd, where /dev/stdout of a
    # pipe resolves to 'pipe:[…]': "no new file can be made in its folder")
    db = _database(tmp_path)
    done = _terrace("export", "--all", "--db", str(db), "-o", "/dev/stdout",
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 1


def test_an_export_to_dev_stdout_redirected_to_a_file_writes_that_file(tmp_path: Path) -> None:
    db = _database(tmp_path)
    out = tmp_path / "out.json"
    with out.open("wb") as file:
        done = _terrace("export", "--all", "--db", str(db), "-o", "/dev/stdout", stdout=file,
                        stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(out.read_text())) == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_two_states_of_one_game_in_a_file_import_as_one_game(tmp_path: Path) -> None:
    # (it said "imported 2 games": the later state brought the first up to
    # date in place, and the database held one game)
    db = _database(tmp_path)
    with open_store(db) as store:
        game = store.recent()[0]
        early = export_record(game)
        board = game.board()
        board.push(next(iter(board.legal_moves)))
        save(store, game, board, "move")
        late = export_record(store.get(game.id))
    backup = tmp_path / "states.json"
    backup.write_text(json.dumps([early, late]))
    other = tmp_path / "other.sqlite"
    done = CliRunner().invoke(main, ["import", "--db", str(other), str(backup)])
    assert (done.exit_code, done.stdout) == (0, "imported 1 game\n")
    with open_store(other) as store:
        assert [g.moves for g in store.recent()] == [late["moves"]]
    again = CliRunner().invoke(main, ["import", "--db", str(other), str(backup)])
    # (it said "2 already here": records again, where the database holds one game)
    assert (again.exit_code, again.stdout) == (0, "imported 0 games (1 already here)\n")
