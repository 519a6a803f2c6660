"""Hostile arguments against every command: each ends in a short, clear
message on standard error with exit status 1 (a refusal) or 2 (a usage
error), never a traceback, and changes nothing on disk.

The table runs in-process through click's CliRunner; a few cases run
through a real ``python -m terrace`` as well, and a forced bug shows that
an unexpected error is one line too (with the traceback only on --debug or
``TERRACE_DEBUG=1``)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from terrace.cli import all_commands, main
from terrace.cli.options import OnceOption
from terrace.deal import Deal
from terrace.record import GameRecord
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.storage import open_store
from terrace.storage.paths import VERDICTS_FILE_NAME
from terrace.storage.transfer import export_record
from terrace.variants import get_rules

MAX_STDERR = 700
"""A refusal is a few hundred characters at most: the usage lines, and a
message that quotes at most about 200 characters of the input."""

HUGE = "{huge}"
"""Stands for a 100 MB string (made only for the case that uses it)."""
LONG = "x" * 1_000_000
DIGITS = "1" * 5000
MOVE = "c" + DIGITS
NUL = "a\x00b"

RULE_COMMANDS = {
    "deal": ["deal", "-n", "1"],
    "replay": ["replay", "-n", "1"],
    "show": ["show", "-n", "1"],
    "solve": ["solve", "-n", "1"],
    "hint": ["hint", "-n", "1"],
    "survey": ["survey", "--deals", "1-2", "--jobs", "1"],
    "play": ["play", "--no-browser", "--port", "0"],
    "stats": ["stats"],
}
"""Every command that takes the rule options, with arguments that would
otherwise run it."""

BAD_RULES = [
    ["--variant", HUGE], ["--variant", ""], ["--variant", LONG], ["--decks", "9"], ["--decks", "²"],
    ["--decks", "١"], ["--decks", DIGITS], ["--decks", "1e3"], ["--reserve", "-1"], ["--piles", "0"],
    ["--candidates", "12"], ["--foundations", "sideways"], ["--spaces", LONG],
]

DEAL_COMMANDS = {name: [name] for name in ("replay", "show", "solve", "hint")}
"""Every command that takes --deal-number or --deal-file."""

BAD_DEALS = [
    ["-n", "-1"], ["-n", DIGITS], ["-n", "¹"], ["-n", "١"], ["-n", ""], ["-n", "1.5"], ["-n", LONG],
    ["-n", "9223372036854775808"], [], ["-n", "1", "--deal-file", "{w}/deal.txt"],
    ["--deal-file", "{w}/missing.txt"], ["--deal-file", "{w}/folder"], ["--deal-file", "{w}/garbage.bin"],
    ["--deal-file", "{w}/huge.bin"], ["--deal-file", "{w}/empty.txt"], ["--deal-file", NUL],
    ["--deal-file", "{w}/games.sqlite"],
]

MOVE_COMMANDS = {name: [name, "-n", "7"] for name in ("replay", "show", "hint")}
"""Every command that takes --moves."""

BAD_MOVES = [MOVE, "c١", "c²", "t1t²", "c1 " + LONG, NUL, "c1 c1", "wf" * 1000]

OTHER_CASES = [
    # The group itself
    ["--bogus"], ["nosuchcommand"], [LONG], ["--debug", "nosuchcommand"], ["variants", "extra"],
    ["variants", "--bogus"], ["deal", "-n", "1", "--bogus-" + LONG], ["deal", "-n", "1", "extra-" + LONG],
    # Time budgets that never run out
    *(["solve", "-n", "1", "--max-seconds", v] for v in ("nan", "inf", "-inf", "-1", "0", LONG, "５", "1_0")),
    *(["deal", "-n", "1", "--winnable", option, v]
      for option in ("--max-seconds", "--total-seconds") for v in ("nan", "inf", "-1", "0")),
    *(["hint", "-n", "1", "--seconds", v] for v in ("nan", "inf", "-1", "0")),
    *(["survey", "--deals", "1-2", "--max-seconds", v] for v in ("nan", "inf", "-1")),
    *(["play", "--no-browser", option, v]
      for option in ("--hint-seconds", "--winnable-seconds") for v in ("nan", "inf", "-1", "1e9")),
    # Node budgets
    *(["solve", "-n", "1", "--max-nodes", v] for v in ("0", "-1", "١", DIGITS)),
    # The solver's verdict cache
    *(["deal", "-n", "1", "--winnable", option, "{w}/" + name]
      for option in ("--verdicts-db", "--db") for name in ("notadb.sqlite", "garbage.bin", "folder")),
    ["deal", "-n", "1", "--winnable", "--verdicts-db", "{w}/a.sqlite", "--db", "{w}/b.sqlite"],
    *(["survey", "--deals", "1-2", option, "{w}/" + name]
      for option in ("--verdicts-db", "--db") for name in ("notadb.sqlite", "garbage.bin", "folder")),
    ["survey", "--deals", "1-2", "--verdicts-db", NUL],
    # Survey settings
    *(["survey", "--deals", v] for v in ("5-1", "1-99999999999999999999999", "1-10000000", "¹-²", "١-٢", "",
                                          "1-2-3", "-", "1-", "x", LONG, HUGE)),
    *(["survey", "--deals", "1-2", "--jobs", v] for v in ("0", "-5", "١", "257", DIGITS)),
    *(["survey", "--deals", "1-2", "--player", "fair", "--samples", v] for v in ("0", "-1", "99999", "²")),
    ["survey", "--deals", "1-2", "--samples", "4"], ["survey", "--deals", "1-2", "--player", "nobody"],
    ["survey", "--deals", "1-2", "--seed", "1.5"], ["survey", "--deals", "1-2", "--out", "{w}/empty.txt"],
    # refused before any deal is solved: the verdict cache is not even made
    ["survey", "--deals", "1-2", "--verdicts-db", "{w}/new.sqlite", "--out", "{w}/empty.txt/sub"],
    # Hints
    *(["hint", "-n", "1", "--samples", v] for v in ("0", "-1", "99999")),
    ["hint", "-n", "1", "--peek", "--samples", "8"],  # the solver's hint samples nothing
    ["hint", "-n", "1", "--seed", "²"],
    # Statistics
    *(["stats", "--db", "{w}/" + name] for name in ("notadb.sqlite", "garbage.bin", "folder", "huge.bin")),
    ["stats", "--db", NUL], ["stats", "--variant", HUGE], ["stats", "--variant", ""],
    ["stats", "--variant", "chess"],
    # Export
    ["export"], ["export", "--all", "--game", "x"], ["export", "--game", "nosuchgame"],
    ["export", "--game", LONG],
    ["export", "--game", NUL], ["export", "--all", "--db", "{w}/notadb.sqlite"],
    ["export", "--all", "-o", "{w}/folder"], ["export", "--all", "-o", "{w}/missing/games.json"],
    ["export", "--all", "-o", NUL], ["export", "--all", "-o", "{w}/empty.txt/games.json"],
    # over the games database, its write-ahead log, or another SQLite file
    ["export", "--all", "-o", "{w}/games.sqlite"], ["export", "--all", "-o", "{w}/games.sqlite-wal"],
    ["export", "--all", "-o", "{w}/" + VERDICTS_FILE_NAME],
    ["export", "--all", "--db", "{w}/games.sqlite", "-o", "games.sqlite"],
    # Import
    *(["import", "{w}/" + name] for name in (
        "nested.json", "garbage.bin", "bigmove.json", "manyhints.json", "future.json", "huge.bin",
        "empty.txt",
        "missing.json", "folder", "notadb.sqlite", "list-of-numbers.json", "deep-list.json",
    )),
    ["import", NUL], ["import", "{w}/record.json", "--db", "{w}/notadb.sqlite"],
    ["import", "{w}/record.json", "--db", "{w}/garbage.bin"], ["import"],
    # The web game
    *(["play", "--no-browser", "--port", v] for v in ("70000", "-1", "٨٠٠٠", "", DIGITS)),
    ["play", "--no-browser", "--port", "0", "--host", "0.0.0.0"],
    ["play", "--no-browser", "--port", "0", "--host", LONG],
    ["play", "--no-browser", "--port", "0", "--host", "no.such.host.invalid", "--remote"],
    *(["play", "--no-browser", "--port", "0", "--db", "{w}/" + name]
      for name in ("notadb.sqlite", "garbage.bin", "folder")),
    ["play", "--no-browser", "--port", "0", "--db", NUL],
]

CASES = [
    *([*RULE_COMMANDS[name], *bad] for name in RULE_COMMANDS for bad in BAD_RULES),
    *([*DEAL_COMMANDS[name], *bad] for name in DEAL_COMMANDS for bad in BAD_DEALS),
    *(["deal", *bad] for bad in BAD_DEALS[:8]),
    *([*MOVE_COMMANDS[name], "--moves", bad] for name in MOVE_COMMANDS for bad in BAD_MOVES),
    *OTHER_CASES,
]


def case_id(args: list[str]) -> str:
    """A short test id: long values are named by their length."""
    return " ".join(a if len(a) <= 24 else f"<{len(a)} chars>" for a in args) or "<none>"


@pytest.fixture(scope="module")
def world_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files of :func:`world` but the sparse one, made once: each test
    gets a copy (a new database and verdict cache for each of some 380
    tests took a quarter of a second of wall clock each on a loaded disk)."""
    folder = tmp_path_factory.mktemp("world")
    rules = get_rules("terrace")
    with open_store(folder / "games.sqlite") as store:
        game = store.create("terrace", rules, Deal.from_number(7, rules))
        record = export_record(store.get(game.id))
    verdicts = VerdictStore(str(folder / VERDICTS_FILE_NAME))
    verdicts.put(rules, 1, Verdict("won", 10, 0.1, 1.0, "c1"))
    verdicts.close()
    (folder / "notadb.sqlite").write_text("my shopping list\n" * 20)
    (folder / "garbage.bin").write_bytes(random.Random(9).randbytes(5000))
    (folder / "nested.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "deep-list.json").write_text('{"a":' * 50_000 + "1" + "}" * 50_000)
    (folder / "list-of-numbers.json").write_text(json.dumps([1] * 1000))
    (folder / "empty.txt").write_text("")
    (folder / "deal.txt").write_text(Deal.from_number(7, rules).text())
    (folder / "folder").mkdir()
    (folder / "record.json").write_text(json.dumps({**record, "saved": {**record["saved"], "id": "fresh"}}))
    hostile = {
        "bigmove.json": {**record, "moves": [MOVE]},
        "manyhints.json": {**record, "saved": {**record["saved"], "hints": 10**30}},
        "future.json": {**record, "saved": {**record["saved"], "finished_at": 1e15}},
    }
    for name, data in hostile.items():
        (folder / name).write_text(json.dumps(data))
    return folder


@pytest.fixture
def world(world_files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder with a games database holding one game, a verdict cache,
    and hostile files; the default databases and the working folder point
    into it."""
    shutil.copytree(world_files, tmp_path, dirs_exist_ok=True)
    with (tmp_path / "huge.bin").open("wb") as file:
        file.truncate(100 * 2**20)  # sparse: 100 MB that take no disk
    monkeypatch.setenv("TERRACE_DB", str(tmp_path / "games.sqlite"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))
    monkeypatch.delenv("TERRACE_DEBUG", raising=False)
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under ``folder``: its size and a digest of its bytes (of
    its first megabyte for large files)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with path.open("rb") as file:
                head = file.read(2**20)
            found[str(path.relative_to(folder))] = (path.stat().st_size, hashlib.sha256(head).hexdigest())
        else:
            found[str(path.relative_to(folder))] = (-1, "folder")
    return found


def invoke(args: list[str], folder: Path) -> Result:
    real = [a.replace("{w}", str(folder)) if a != HUGE else "x" * 100 * 2**20 for a in args]
    return CliRunner().invoke(main, real)


def assert_refused_cleanly(result: Result) -> None:
    assert result.exit_code in (1, 2), (result.exit_code, result.output[-500:])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    assert result.stderr.strip(), "a refusal says why on standard error"
    assert len(result.stderr) <= MAX_STDERR, result.stderr[:300]


@pytest.mark.parametrize("args", CASES, ids=[case_id(c) for c in CASES])
def test_hostile_arguments_are_refused_in_one_short_message(args: list[str], world: Path) -> None:
    before = snapshot(world)
    result = invoke(args, world)
    assert_refused_cleanly(result)
    assert snapshot(world) == before


def test_every_command_meets_the_table() -> None:
    covered = {c[0] for c in CASES}
    assert set(all_commands()) <= covered
    taking = {name for name, command in all_commands().items()
              if any(param.name == "decks" for param in command.params)}
    assert taking == set(RULE_COMMANDS)  # (each meets the bad rule options)


def test_usage_errors_are_status_2_and_refusals_status_1(world: Path) -> None:
    assert invoke(["deal", "-n", "¹"], world).exit_code == 2
    assert invoke(["survey", "--jobs", "0"], world).exit_code == 2
    refused = invoke(["survey", "--deals", "1-2", "--verdicts-db", "{w}/notadb.sqlite"], world)
    assert refused.exit_code == 1
    assert refused.stderr == ("Error: notadb.sqlite is not a verdict cache (not an SQLite file); "
                              "it was left untouched\n")
    nested = invoke(["import", "{w}/nested.json"], world)
    assert nested.exit_code == 1 and "recursion" not in nested.stderr.lower()
    moved = invoke(["replay", "--deal-number", "7", "--moves", MOVE], world)
    assert moved.exit_code == 1 and moved.stderr.startswith("move 1 is illegal: 'c111")


@pytest.mark.parametrize("name", ["missing.json", "folder", "record.json"])
def test_an_input_file_that_cannot_be_read_is_a_usage_error_for_every_command(
        name: str, world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing file to import ended with status 1, a missing deal file
    (and a folder given as either) with 2: the one input file that cannot
    be read, two statuses. Each is a usage error now (status 2), as the
    README and notation.md say; so is a file without read permission
    (record.json here, its opening refused as the system refuses it to
    another user: the tests run as root, who may read it)."""
    real_open = os.open

    def refused(path: Any, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith("record.json"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)
    for args in (["import", f"{{w}}/{name}"], *([command, "--deal-file", f"{{w}}/{name}"]
                                                for command in DEAL_COMMANDS)):
        result = invoke(args, world)
        assert result.exit_code == 2, (args, result.stderr)
        assert result.stderr.startswith("Usage: ") and result.stderr.count("Error: ") == 1, result.stderr


@pytest.mark.parametrize(("args", "fault", "status"), [
    (["import", "{w}/missing.json"], "UNREADABLE", 2),
    (["show", "--deal-file", "{w}/missing.json"], "UNREADABLE", 2),
    (["import", "{w}/big.txt"], "TOO_LARGE", 2), (["show", "--deal-file", "{w}/big.txt"], "TOO_LARGE", 2),
    (["import", "-"], "TOO_LARGE", 2), (["replay", "--deal-file", "-"], "TOO_LARGE", 2),
    (["import", "{w}/blank.txt"], "IMPORT_CONTENT", 1),
    (["show", "--deal-file", "{w}/blank.txt"], "DEAL_CONTENT", 2),
], ids=lambda value: " ".join(value) if isinstance(value, list) else str(value))
def test_each_refusal_of_an_input_file_ends_as_the_table_says_for_every_command(
        args: list[str], fault: str, status: int, world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``terrace import`` of a file over 64 MB ended with status 1, a deal
    file over 64 kB with 2: each refusal of an input file now ends as
    options.INPUT_STATUS says, whatever the command (the limits made small
    here: 200 bytes for either file, 300 given, from a file or standard input)."""
    import terrace.cli.options as options
    import terrace.cli.storage as cli_storage

    monkeypatch.setattr(options, "MAX_DEAL_FILE_BYTES", 200)
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", 200)
    (world / "big.txt").write_text("AS " * 100)
    (world / "blank.txt").write_text("\n")
    real = [a.replace("{w}", str(world)) for a in args]
    result = CliRunner().invoke(main, real, input="AS " * 100)
    assert result.exit_code == status, result.stderr
    assert result.stderr.count("Error: ") == 1 and result.stderr.startswith("Usage: ") == (status == 2)
    if fault == "TOO_LARGE":
        assert result.stderr.rstrip().endswith(" is larger than 200 bytes: it must hold one deal string"
                                               if "--deal-file" in args else " is larger than 200 bytes")
    assert options.INPUT_STATUS[options.InputFault[fault]] == status



def test_a_file_its_size_says_is_too_large_is_refused_unread(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A file to import of 100 MB was read up to its first 64 MB to be
    refused (98 MB of memory where the command starts in 33 MB); a regular
    file's size says it is too large, and none of it is read now."""
    import io

    import terrace.cli.options as options

    reads: list[int] = []

    class Counted(io.FileIO):
        def read(self, size: int | None = -1) -> bytes:
            reads.append(-1 if size is None else size)
            return super().read(size)

    monkeypatch.setattr(options, "open", lambda handle, *_, **__: Counted(handle, "rb"), raising=False)
    big, fits = tmp_path / "big.json", tmp_path / "fits.json"
    with big.open("wb") as file:
        file.truncate(101)  # (sparse: its size alone)
    fits.write_bytes(b"[]" * 50)
    assert options.read_input(str(big), 100) is None and reads == []
    assert options.read_input(str(fits), 100) == b"[]" * 50 and reads

@pytest.mark.parametrize("args", [
    ["play", "--no-browser", "--port", "0"], ["stats"], ["export", "--all"], ["import", "{w}/record.json"],
], ids=lambda args: args[0])
def test_an_empty_database_name_names_no_file(args: list[str], world: Path) -> None:
    """Not "`.` is a folder": the empty name was taken as the current folder."""
    before = snapshot(world)
    result = invoke([*args, "--db", ""], world)
    assert result.exit_code == 2 and "an empty name names no file" in result.stderr, result.stderr
    assert snapshot(world) == before


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux's /proc")
@pytest.mark.parametrize("args", [["stats"], ["import", "{w}/record.json"]], ids=lambda args: args[0])
def test_a_file_whose_size_reads_as_zero_is_read_all_the_same(args: list[str], world: Path) -> None:
    """/proc/self/status holds text though its size reads as 0: it is no
    database (not "there is no games database" there)."""
    result = invoke([*args, "--db", "/proc/self/status"], world)
    assert result.exit_code == 1, result.output
    assert result.stderr == ("Error: status is not a Terrace database (not an SQLite file); "
                             "it was left untouched\n")


def test_messages_quote_at_most_200_characters_of_the_input(world: Path) -> None:
    for args in (["deal", "-n", "1", "--variant", HUGE], ["deal", "-n", DIGITS], ["survey", "--deals", LONG],
                 ["export", "--game", LONG], ["play", "--no-browser", "--host", LONG]):
        stderr = invoke(args, world).stderr
        quoted = [len(run) for run in stderr.replace("1", "x").split() if set(run) <= set("x'…")]
        longest = max(quoted, default=0)
        assert longest <= 205, (args[0], longest)


def test_an_unexpected_error_is_one_line_unless_debug_is_asked_for(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the flux capacitor failed")

    monkeypatch.setattr("terrace.cli.engine.dealt_board", broken)
    result = invoke(["show", "-n", "1"], world)
    assert result.exit_code == 1
    assert result.stderr == ("internal error: RuntimeError: the flux capacitor failed "
                             "(run with --debug for the traceback)\n")
    debug = invoke(["--debug", "show", "-n", "1"], world)
    assert isinstance(debug.exception, RuntimeError)
    monkeypatch.setenv("TERRACE_DEBUG", "1")
    assert isinstance(invoke(["show", "-n", "1"], world).exception, RuntimeError)
    for off in ("0", "false", "No", " OFF "):  # (TERRACE_DEBUG=false showed the traceback)
        monkeypatch.setenv("TERRACE_DEBUG", off)
        assert invoke(["show", "-n", "1"], world).stderr.startswith("internal error: "), off


def test_debug_shows_the_traceback_of_a_refusal_too(world: Path) -> None:
    plain = invoke(["deal", "-n", "1", "--winnable", "--verdicts-db", "{w}/folder/x.sqlite", "--decks", "1",
                    "--reserve", "50", "--piles", "1", "--candidates", "1", "--total-seconds", "0.5"], world)
    assert plain.exit_code == 1 and "Traceback" not in plain.output
    debug = invoke(["--debug", "show", "-n", "1", "--decks", "9"], world)
    assert debug.exit_code == 2  # usage errors stay usage errors, even with --debug


def terrace(*args: str, folder: Path, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m terrace`` in a real process."""
    return subprocess.run(
        [sys.executable, "-m", "terrace", *args], capture_output=True, text=True, timeout=timeout, cwd=folder,
        env={**os.environ, "TERRACE_DB": str(folder / "games.sqlite"), **(env or {})},
    )


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["replay", "--deal-number", "7", "--moves", MOVE], 1),
        (["survey", "--deals", "1-2", "--db", "notadb.sqlite"], 1),
        (["import", "nested.json"], 1),
        (["deal", "--deal-number", "¹"], 2),
        (["show", "--deal-file", "huge.bin"], 2),
    ],
    ids=["long move", "not a database", "nested json", "unicode digit", "huge deal file"],
)
def test_a_real_process_refuses_in_one_line(args: list[str], status: int, world: Path) -> None:
    before = snapshot(world)
    done = terrace(*args, folder=world)
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr) <= MAX_STDERR
    assert snapshot(world) == before


def test_a_real_process_shows_a_traceback_only_when_asked(world: Path) -> None:
    code = ("import sys, terrace.cli.engine as engine\n"
            "engine.VARIANTS = None\n"
            "from terrace.cli import main\n"
            "sys.argv[0] = 'terrace'\n"
            "main()\n")

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                              timeout=120,
                              cwd=world, env={**os.environ, **(env or {})})

    plain = run("variants")
    assert plain.returncode == 1
    assert plain.stderr.startswith("internal error: TypeError: ") and plain.stderr.count("\n") == 1
    assert "--debug" in plain.stderr
    for debug in (run("--debug", "variants"), run("variants", env={"TERRACE_DEBUG": "1"})):
        assert debug.returncode == 1
        assert "Traceback (most recent call last)" in debug.stderr


def _closing(fd: int) -> Callable[[], None]:
    return lambda: os.close(fd)


@pytest.mark.parametrize("args", [["deal", "-n", "5"], ["solve", "-n", "5", "--json", "--max-seconds", "1"]])
def test_a_closed_standard_output_is_an_error_not_a_silent_success(args: list[str], tmp_path: Path) -> None:
    """``terrace deal >&-`` wrote nothing and ended with status 0."""
    from terrace.cli import OUTPUT_CLOSED

    done = subprocess.run([sys.executable, "-m", "terrace", *args], stdout=None, stderr=subprocess.PIPE,
                          text=True, timeout=120, cwd=tmp_path, preexec_fn=_closing(1))
    assert done.returncode == 1
    assert done.stderr.strip() == OUTPUT_CLOSED


def test_errors_with_standard_error_closed_stay_out_of_the_output(tmp_path: Path) -> None:
    """click wrote the usage error into standard output when standard error was closed."""
    done = subprocess.run([sys.executable, "-m", "terrace", "deal", "--bogus"], capture_output=False,
                          stdout=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path,
                          preexec_fn=_closing(2))
    assert done.returncode == 2
    assert done.stdout == ""


@pytest.mark.parametrize("args", [["import", "-"], ["show", "--deal-file", "-"]], ids=lambda args: args[0])
def test_a_closed_standard_input_is_refused_in_one_line(args: list[str], tmp_path: Path) -> None:
    """``terrace import - <&-`` ended in "internal error: AttributeError:
    'NoneType' object has no attribute 'buffer'"."""
    from terrace.cli.options import INPUT_CLOSED

    done = subprocess.run([sys.executable, "-m", "terrace", *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, preexec_fn=_closing(0),
                          env={**os.environ, "TERRACE_DB": str(tmp_path / "games.sqlite")})
    assert done.returncode == 2, done.stderr  # (a usage error, as a file that cannot be read)
    assert done.stderr.endswith(f"\nError: {INPUT_CLOSED}\n") and done.stderr.count("Error") == 1
    assert list(tmp_path.iterdir()) == []


NEWLINE_CASES = [
    ["import", "{w}/no\nsuch.json"], ["export", "--all", "-o", "{w}/no\nsuch/games.json"],
    ["stats", "--db", "{w}/bad\nname.sqlite"], ["export", "--all", "--db", "{w}/bad\nname.sqlite"],
    ["import", "{w}/record.json", "--db", "{w}/bad\nname.sqlite"],
    ["deal", "-n", "1", "--winnable", "--verdicts-db", "{w}/bad\nname.sqlite"],
    ["play", "--no-browser", "--port", "0", "--host", "a\nb"], ["import", "{w}/esc\x1b[2Jape.json"],
]


@pytest.mark.parametrize("args", NEWLINE_CASES, ids=[case_id(c) for c in NEWLINE_CASES])
def test_a_name_with_a_newline_is_quoted_on_one_line(args: list[str], world: Path) -> None:
    """A file name holding a newline (or a terminal's escape) was repeated
    as it is: the one-line error became two lines (or commanded the
    terminal)."""
    (world / "bad\nname.sqlite").write_text("my shopping list\n" * 20)
    before = snapshot(world)
    result = invoke(args, world)
    assert_refused_cleanly(result)
    message = result.stderr.splitlines()[-1]
    assert message.startswith("Error: ") and ("\\n" in message or "\\x1b" in message), result.stderr
    assert "\x1b" not in result.stderr
    assert snapshot(world) == before


def _records_of_one_moment(world: Path, count: int) -> Path:
    """A file of ``count`` records of one game, all created at one moment,
    none holding another (each has one hint more and was saved a second
    earlier than the one before), so that every record is compared with
    every game stored before it."""
    record = json.loads((world / "record.json").read_text())
    saved = record["saved"]
    made = saved["created_at"] - count - 1  # (no time ahead of the clock)
    records = [{**record, "saved": {**saved, "id": f"state-{i}", "hints": i, "created_at": made,
                                    "updated_at": made + count - i}} for i in range(count)]
    path = world / f"moment-{count}.json"
    path.write_text(json.dumps(records))
    return path


def test_records_of_one_moment_are_each_read_once(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import compared each record with every game of the same
    ``created_at`` stored before it, reading and replaying each of them
    again every time: 3,000 such records (3 MB) took over ten minutes.
    Each stored game is now read once per transaction."""
    from terrace.storage.sqlite import SqliteStore

    reads = 0
    fetch = SqliteStore._fetch

    def counted(self: SqliteStore, conn: object, game_id: str) -> object:
        nonlocal reads
        reads += 1
        return fetch(self, conn, game_id)  # type: ignore[arg-type]

    monkeypatch.setattr(SqliteStore, "_fetch", counted)
    path = _records_of_one_moment(world, 60)
    result = invoke(["import", str(path), "--db", "{w}/moment.sqlite"], world)
    assert result.exit_code == 0 and result.output == "imported 60 games\n", result.output
    assert reads <= 2 * 60, reads  # (it was 60 * 59 / 2 = 1,770)


def test_records_of_one_moment_are_compared_only_with_games_that_may_hold_them(
        world: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of more than 100 records of one ``created_at`` was refused
    (the comparison of each with every game of that moment took hours for
    thousands); now each record is compared only with the stored games
    that may hold it (the same deal, changed no earlier, no count lower),
    found in an index: 400 records need no comparison at all, and a second
    import finds each here at once."""
    from terrace.storage import merging, sqlite

    compared = 0
    same = sqlite.same_game

    def counted(a: object, b: object) -> bool:
        nonlocal compared
        compared += 1
        return same(a, b)  # type: ignore[arg-type]

    for module in (sqlite, merging):  # (the store's comparisons and the import's)
        monkeypatch.setattr(module, "same_game", counted)
    path = _records_of_one_moment(world, 400)
    result = invoke(["import", str(path), "--db", "{w}/moment.sqlite"], world)
    assert result.exit_code == 0 and result.output == "imported 400 games\n", result.output + result.stderr
    assert compared == 0, compared  # (it was 400 * 399 / 2 = 79,800)
    result = invoke(["import", str(path), "--db", "{w}/moment.sqlite"], world)
    assert result.output == "imported 0 games (400 already here)\n", result.output + result.stderr
    assert compared <= 2 * 400, compared


def test_an_export_of_many_games_of_one_moment_imports_again(world: Path) -> None:
    """Two imports can gather more than 100 games created at one moment
    (a program that writes whole seconds), and the export of such a
    database was refused by an import, into a new database or its own."""
    record = json.loads((world / "record.json").read_text())
    rules = get_rules("terrace")
    for part in range(2):
        records = [{**record, "deal": Deal.from_number(number, rules).text(), "deal_number": number,
                    "saved": {**record["saved"], "id": f"made-{number}"}}
                   for number in range(part * 75, part * 75 + 75)]
        (world / f"part{part}.json").write_text(json.dumps(records))
        result = invoke(["import", f"{{w}}/part{part}.json", "--db", "{w}/many.sqlite"], world)
        assert result.output == "imported 75 games\n", result.output + result.stderr
    result = invoke(["export", "--all", "-o", "{w}/all.json", "--db", "{w}/many.sqlite"], world)
    assert result.exit_code == 0, result.stderr
    result = invoke(["import", "{w}/all.json", "--db", "{w}/fresh.sqlite"], world)
    assert result.output == "imported 150 games\n", result.output + result.stderr
    result = invoke(["import", "{w}/all.json", "--db", "{w}/many.sqlite"], world)
    assert result.output == "imported 0 games (150 already here)\n", result.output + result.stderr


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["unbuffered", "buffered"])
def test_a_reader_that_stops_early_is_an_error_not_a_success(unbuffered: str, tmp_path: Path) -> None:
    """With ``PYTHONUNBUFFERED=1`` (many containers and services set it),
    ``terrace export --all | head -3`` lost all but the first 64 kB of the
    export without a word and ended with status 0."""
    rules = get_rules("terrace")
    with open_store(tmp_path / "games.sqlite") as store:
        for number in range(300):  # (an export of about 340 kB, more than a pipe holds)
            store.create("terrace", rules, Deal.from_number(number, rules))
    env = {**os.environ, "TERRACE_DB": str(tmp_path / "games.sqlite"), "PYTHONUNBUFFERED": unbuffered}
    process = subprocess.Popen([sys.executable, "-m", "terrace", "export", "--all"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(100).startswith(b"[")
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


def signalled_while_writing(signal_name: str) -> str:
    """A program running ``terrace`` (its arguments after ``-c``) that sends
    itself ``signal_name`` where an import stores its games or an export
    writes its file."""
    return ("import os, signal, sys\n"
            "from terrace.storage.sqlite import SqliteStore\n"
            "from terrace.cli import output\n"
            "def stop(*args, **kwargs):\n"
            f"    os.kill(os.getpid(), signal.{signal_name})\n"
            f"    raise AssertionError('{signal_name} did not stop the command')\n"
            "SqliteStore.add_games = stop\n"
            "output.write_whole = stop\n"
            "from terrace.cli import storage\n"
            "storage.write_whole = stop\n"
            "from terrace.cli import main\n"
            "sys.argv[0] = 'terrace'\n"
            "main()\n")


@pytest.mark.parametrize("command", ["import", "export"])
def test_sigterm_stops_any_command_as_ctrl_c_does(command: str, world: Path) -> None:
    """SIGTERM during an import (or an export to a file) killed the process
    outright: status 143 with nothing said, and the database left with its
    -wal and -shm files. It now stops as Ctrl+C does: one line, status 143,
    the import's transaction rolled back and the database closed whole."""
    code = signalled_while_writing("SIGTERM")
    args = ["import", "record.json"] if command == "import" else ["export", "--all", "-o", "out.json"]
    before = snapshot(world)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          cwd=world, env={**os.environ, "TERRACE_DB": str(world / "games.sqlite")})
    assert done.returncode == 143, (done.returncode, done.stderr)
    assert done.stderr.strip() == "stopped: terminated (SIGTERM)"
    assert snapshot(world) == before  # (no -wal, -shm or out.json left behind)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux's /proc")
@pytest.mark.parametrize("command", [
    ["deal", "-n", "1", "--winnable"], ["survey", "--deals", "1-2", "--json"],
], ids=lambda command: command[0])
@pytest.mark.parametrize(("path", "why"), [
    ("/proc/verdicts.sqlite", "no new file can be made in its folder /proc (No such file or directory)"),
    ("/proc/nosuch/verdicts.sqlite", "its folder /proc/nosuch cannot be made (No such file or directory)"),
], ids=["folder takes no file", "folder cannot be made"])
def test_a_verdict_cache_that_cannot_be_made_says_why(command: list[str], path: str, why: str,
                                                      world: Path) -> None:
    """A verdict cache in a folder that takes no new file (read-only) said
    "database error: unable to open database file", and one whose folder
    cannot be made "/proc/nosuch: No such file or directory", neither
    naming the verdict cache."""
    result = invoke([*command, "--verdicts-db", path], world)
    assert result.exit_code == 1
    assert result.stderr == f"Error: the verdict cache verdicts.sqlite cannot be used: {why}\n"
    assert result.stdout == ""


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux's /proc")
@pytest.mark.parametrize("args", [["import", "{w}/record.json"], ["play", "--no-browser", "--port", "0"]],
                         ids=lambda args: args[0])
def test_a_games_database_that_cannot_be_made_says_why(args: list[str], world: Path) -> None:
    """A new games database in a folder that takes no new file (a
    read-only disk, /proc) said only "the database file cannot be opened"."""
    result = invoke([*args, "--db", "/proc/new-games.sqlite"], world)
    assert result.exit_code == 1
    assert result.stderr == ("Error: no database new-games.sqlite can be made: no new file can be made in "
                             "its folder proc (No such file or directory)\n")


@pytest.mark.parametrize("module", ["click", "terrace.board", "terrace.cli.errors", "typing", "__future__",
                                    "locale"])
def test_ctrl_c_while_the_command_line_loads_is_one_line(module: str, tmp_path: Path) -> None:
    """Ctrl+C in the first quarter second of any command (while ``import
    terrace`` loaded the whole engine, or the command line loaded click)
    showed a traceback; it now ends as Ctrl+C ends a command. So does one
    while ``import terrace`` loaded typing (and re: 90 ms of a busy
    machine) or terrace.cli loaded __future__, before its guard, or locale
    after it (click.version_option's gettext loads it)."""
    from terrace.cli.stops import INTERRUPTED, STOPPED

    code = ("import sys\n"
            "class CtrlC:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            f"        if name == {module!r}:\n"
            "            raise KeyboardInterrupt\n"
            "sys.meta_path.insert(0, CtrlC())\n"
            "sys.argv[0] = 'terrace'\n"
            "from terrace.cli import main\n"
            "main()\n")
    done = subprocess.run([sys.executable, "-c", code, "deal", "-n", "1"], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == INTERRUPTED, done.stderr
    assert done.stderr.strip() == STOPPED and done.stdout == ""


def test_ctrl_c_while_the_command_line_is_read_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+C while the command line was read, before the command ran,
    ended as click ends it: "Aborted!", status 1 (seen once in 16 Ctrl+C
    sent to a survey 0.3 to 1.8 s after it started, load 16). It ends as a
    command stopped by Ctrl+C now: status 130, "stopped: interrupted (Ctrl+C)"."""
    from terrace.cli.stops import INTERRUPTED, STOPPED

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(click.Group, "parse_args", interrupted)
    result = CliRunner().invoke(main, ["deal", "-n", "1"])
    assert result.exit_code == INTERRUPTED, result.output
    assert result.stderr == f"\n{STOPPED}\n" and result.stdout == ""


@pytest.mark.parametrize("args", [
    ["deal", "-n"], ["show", "--moves"], ["survey", "--deals"], ["solve", "-n", "1", "--max-seconds"],
    ["export", "-o"], ["stats", "--db"], ["play", "--port"], ["hint", "--seed"],
], ids=lambda args: " ".join(args))
def test_an_option_without_its_value_comes_with_the_usage_reminder(args: list[str], world: Path) -> None:
    """``terrace deal -n`` said only "Error: Option '-n' requires an
    argument.", without the two usage lines every other usage error has."""
    result = invoke(args, world)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("Usage: ") and f" {args[0]} [OPTIONS]" in lines[0], result.stderr
    assert lines[1].endswith(f"{args[0]} --help' for help.") and lines[-1].startswith("Error: Option "), lines


def test_samples_out_of_range_are_refused_before_any_work_with_the_range() -> None:
    """--samples takes its range from the fair player's own limits, and its
    help says it (the help did not, and 99999 got as far as the player)."""
    from terrace.solver.fair import SETTING_LIMITS

    low, high = SETTING_LIMITS["samples"]
    for command in (["hint", "-n", "1"], ["survey", "--deals", "1-2", "--player", "fair"]):
        out = CliRunner().invoke(main, [*command, "--samples", str(high + 1)])
        assert out.exit_code == 2 and f"is not in the range {low} to {high}" in out.output, out.output
        helped = CliRunner().invoke(main, [command[0], "--help"]).output
        assert f"{low} to {high}" in " ".join(helped.split()), helped


FIFO_CASES = [["show", "--deal-file", "{fifo}"], ["replay", "--deal-file", "{fifo}", "--json"],
              ["hint", "--deal-file", "{fifo}"], ["solve", "--deal-file", "{fifo}"], ["import", "{fifo}"]]


def test_a_pipe_that_nothing_writes_to_is_refused_not_waited_on_for_ever(tmp_path: Path) -> None:
    """A FIFO given as the deal file or the file to import, with no program
    writing to it, made every command wait for ever (open() waits for a
    writer). Each now waits PIPE_WAIT seconds for one, then says so."""
    from terrace.cli.options import PIPE_WAIT

    fifo = tmp_path / "deal.fifo"
    os.mkfifo(fifo)
    env = {**os.environ, "TERRACE_DB": str(tmp_path / "games.sqlite")}
    started = [subprocess.Popen([sys.executable, "-m", "terrace", *(a.format(fifo=fifo) for a in args)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                env=env) for args in FIFO_CASES]
    try:
        for args, process in zip(FIFO_CASES, started, strict=True):
            out, err = process.communicate(timeout=60 + PIPE_WAIT)
            assert process.returncode == 2, (args, err)
            assert f"it is a pipe that nothing writes to (waited {PIPE_WAIT:g} s" in err, err
            assert out == "" and err.count("Error: ") == 1 and "Traceback" not in err
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deal.fifo"]


def test_a_pipe_with_a_writer_is_read(tmp_path: Path) -> None:
    """A pipe is still an input when a program writes to it (``<(terrace
    deal -n 5)``): its deal is read, however long the writer takes."""
    fifo = tmp_path / "deal.fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # (a writer, without waiting for a reader)
    try:
        os.write(writer, CliRunner().invoke(main, ["deal", "-n", "5"]).stdout.encode())
        command = [sys.executable, "-m", "terrace", "replay", "--deal-file", str(fifo), "--json"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   cwd=tmp_path)
        # the writer leaves once the command has the pipe open (else its deal would go with it)
        fds = Path(f"/proc/{process.pid}/fd")
        deadline = time.monotonic() + 120
        while not any(_names(fds, fifo)) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.close(writer)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert json.loads(out)["status"] == "choosing"


def _names(fds: Path, target: Path) -> Iterator[bool]:
    try:
        links = list(fds.iterdir())
    except OSError:  # (the process has ended)
        return
    for fd in links:
        try:
            yield os.readlink(fd) == str(target)
        except OSError:
            yield False


def test_a_pipe_that_nothing_reads_from_is_refused_as_an_output(tmp_path: Path) -> None:
    """`export -o FIFO` with no program reading the pipe waited for ever
    (open() waits for a reader); it now waits PIPE_WAIT seconds, then says
    so. A pipe with a reader gets the records, as before."""
    from terrace.cli.options import PIPE_WAIT

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    env = {**os.environ, "TERRACE_DB": str(tmp_path / "games.sqlite")}
    with open_store(tmp_path / "games.sqlite"):  # (an empty database: importing [] no longer makes one)
        pass
    command = [sys.executable, "-m", "terrace", "export", "--all", "-o", str(fifo)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60 + PIPE_WAIT, env=env)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (f"Error: cannot write {fifo}: it is a pipe that nothing reads from (waited "
                           f"{PIPE_WAIT:g} s for a reader): start the program that reads from it first, "
                           "or give a file\n")
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # (a reader, without waiting for a writer)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        assert os.read(reader, 1000) == b"[]\n"
    finally:
        os.close(reader)


def test_an_input_that_is_the_command_s_own_output_pipe_is_refused(world: Path) -> None:
    """``terrace show --deal-file /dev/stdout | less`` waited for ever: the
    pipe it read is its own standard output, which nothing else writes to.
    It is refused as an input that cannot be read is, status 2 (the deal
    file and the file to import read it alike: read_input)."""
    done = terrace("show", "--deal-file", "/dev/stdout", folder=world, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith("Error: cannot read the deal file: it is this command's own standard "
                                "output, a pipe it would wait on for ever: give a file, or another pipe\n")
    assert done.stdout == ""


def test_an_output_that_is_the_command_s_own_input_pipe_is_refused(world: Path) -> None:
    """``... | terrace export --all -o /dev/stdin`` wrote the records into
    its own standard input, which nothing reads ("wrote 1 game to
    /dev/stdin", status 0: the records gone; a larger export waited for ever)."""
    done = subprocess.run([sys.executable, "-m", "terrace", "export", "--all", "-o", "/dev/stdin"], input="",
                          capture_output=True, text=True, timeout=60, cwd=world,
                          env={**os.environ, "TERRACE_DB": str(world / "games.sqlite")})
    assert done.returncode == 1, done.stderr
    assert done.stderr == ("Error: cannot write /dev/stdin: it is this command's own standard input, a "
                           "pipe it would wait on for ever: give a file, or another pipe\n")


@pytest.mark.parametrize("option", ["--certfile", "--keyfile"])
def test_a_certificate_in_a_pipe_is_refused_not_waited_on_for_ever(option: str, tmp_path: Path) -> None:
    """``play --certfile FIFO`` waited for ever for a program to write to
    the pipe (and a pipe could not be read twice, here and by OpenSSL)."""
    from terrace.web.tls import ensure_self_signed

    pipe = tmp_path / "cert.pem"
    os.mkfifo(pipe)
    cert, _key = ensure_self_signed(["127.0.0.1"], tmp_path / "made")
    given = ["--certfile", str(pipe)] if option == "--certfile" else ["--certfile", str(cert),
                                                                      "--keyfile", str(pipe)]
    done = terrace("play", "--no-browser", "--db", ":memory:", "--port", "0", *given, folder=tmp_path,
                   timeout=30)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"Error: {pipe} is not a regular file: give the file that holds the PEM text\n"


@pytest.mark.parametrize("how", ["--db", "TERRACE_DB"])
def test_an_import_into_memory_does_not_say_the_games_were_imported(how: str, world: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``import --db :memory:`` said "imported 1 game" of games that were
    gone the moment it ended."""
    record = str(Path(__file__).parent / "golden" / "terrace-won.json")
    if how == "TERRACE_DB":
        monkeypatch.setenv("TERRACE_DB", ":memory:")
    result = CliRunner().invoke(main, ["import", *(["--db", ":memory:"] if how == "--db" else []), record])
    assert result.exit_code == 0, result.output
    assert result.stdout == ("checked 1 game; none was kept: the games database is :memory:, which keeps "
                             "nothing (name a file with --db)\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("option", ["--help", "--version"])
def test_the_group_s_own_help_to_a_full_disk_is_one_line(option: str, tmp_path: Path) -> None:
    """``terrace --help > /dev/full`` (and ``--version``) ended in a
    traceback, where ``terrace deal --help > /dev/full`` said it in one
    line: the group's own options write while its command line is read."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "terrace", option], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "Error: standard output could not be written: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(("args", "status", "out"), [
    (["deal", "--winnable", "-n", "100", "--verdicts-db", "v.sqlite3"], 0, "TS TH 7D KC "),
    (["solve", "-n", "7", "--max-seconds", "30"], 0, "result: won\n"),
    (["deal", "-n", "5", "-v", "nope"], 2, ""),
])
@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])  # (click wraps an ASCII stream anew)
def test_a_standard_error_that_cannot_be_written_costs_neither_output_nor_status(
        args: list[str], status: int, out: str, encoding: str, tmp_path: Path) -> None:
    """With standard error on a full disk (``2> /dev/full``) the first note
    written there ("# deal number 101", "solving for up to ...") ended the
    command with status 1 before its output: the deal string or the
    verdict was lost, and a usage error's status was 1, not 2."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "terrace", *args], stdout=subprocess.PIPE, stderr=full,
                              text=True, timeout=120, cwd=tmp_path,
                              env={**os.environ, "TERRACE_DB": str(tmp_path / "games.sqlite"),
                                   "PYTHONIOENCODING": encoding})
    assert done.returncode == status
    assert done.stdout.startswith(out) and (out or not done.stdout)


@pytest.mark.parametrize("output", ["/dev/full", "closed pipe"])
def test_an_import_whose_report_cannot_be_written_says_it_is_done(output: str, tmp_path: Path) -> None:
    """``terrace import FILE > /dev/full`` (or into a pipe whose reader
    stopped) committed the games, then ended with status 1 and "standard
    output could not be written" (or nothing at all): the import looked
    undone."""
    if output == "/dev/full" and not os.path.exists(output):
        pytest.skip("needs /dev/full")
    record = str(Path(__file__).parent / "golden" / "terrace-won.json")
    read, write = os.pipe()
    os.close(read)
    try:
        with open(output, "w") if output == "/dev/full" else open(write, "w", closefd=False) as out:
            done = subprocess.run([sys.executable, "-m", "terrace", "import", record], stdout=out,
                                  stderr=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path,
                                  env={**os.environ, "TERRACE_DB": str(tmp_path / "games.sqlite")})
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    why = "No space left on device" if output == "/dev/full" else "its reader stopped"
    assert done.stderr == f"imported 1 game (done, though standard output could not be written: {why})\n"
    with open_store(tmp_path / "games.sqlite") as store:
        assert store.statistics()["overall"]["played"] == 1


@pytest.mark.parametrize("text", ["[]", " [ ]\n", "\ufeff[]"])
def test_an_import_of_no_records_makes_no_database(text: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``terrace import`` of a file holding ``[]`` made an empty games
    database of 45 kB where there was none, and said only "imported 0
    games"."""
    (tmp_path / "none.json").write_text(text, encoding="utf-8")
    monkeypatch.setenv("TERRACE_DB", str(tmp_path / "games.sqlite"))
    result = CliRunner().invoke(main, ["import", str(tmp_path / "none.json")])
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"imported 0 games: {tmp_path / 'none.json'} holds no game records "
                             "(no database was touched)\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["none.json"]


@pytest.mark.parametrize("deals", ["5-1", " 10 - 9 "])
def test_a_backward_range_is_refused_saying_why(deals: str) -> None:
    """``survey --deals 5-1`` was refused as "'5-1' is not a range of deal
    numbers such as 1-10000", as if it were not written as a range at all:
    the words that say why (its first comes after its last) were never
    reached from the command line."""
    result = CliRunner().invoke(main, ["survey", "--deals", deals])
    assert result.exit_code == 2
    first, last = (part.strip() for part in deals.split("-"))
    assert result.stderr.endswith(f"{first}-{last} is not a range of deal numbers (its first comes after "
                                  "its last)\n"), result.stderr


@pytest.mark.parametrize("args", [
    ["export", "--all", "-o", "{w}/new/"], ["export", "--all", "-o", "{w}/empty.txt/"],
    ["import", "{w}/record.json/"], ["stats", "--db", "{w}/games.sqlite/"],
    ["show", "--deal-file", "{w}/deal.txt/"], ["deal", "--winnable", "--verdicts-db", "{w}/v.sqlite3/"],
], ids=case_id)
def test_a_file_name_ending_in_a_slash_is_refused(args: list[str], world: Path) -> None:
    """A trailing slash names a folder (a shell's ``> new/`` refuses it):
    ``export --all -o new/`` wrote a file named ``new`` and said "wrote 1
    game to new/", ``-o empty.txt/`` wrote over empty.txt, and ``import
    record.json/`` read record.json. Every option that takes a file's name
    refuses it, before anything is done."""
    before = snapshot(world)
    result = invoke(args, world)
    assert result.exit_code == 2, result.output
    said = "/' ends in /, which names a folder: give the name of a file"
    assert result.stderr.splitlines()[-1].endswith(said), result.stderr
    assert snapshot(world) == before


def _children(pid: int, marker: str) -> list[int]:
    """The processes whose parent is ``pid`` and whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                if not entry.isdigit() or int(stat.read().rsplit(")", 1)[1].split()[1]) != pid:
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if marker.encode() in cmdline.read():
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _interrupt_held_off(pid: int) -> bool:
    """Whether process ``pid`` has SIGINT blocked or ignored (Linux's /proc)."""
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    bit = 1 << (signal.SIGINT - 1)
    return bool((int(fields["SigBlk"], 16) | int(fields["SigIgn"], 16)) & bit)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux's /proc")
def test_ctrl_c_while_plays_solver_workers_start_prints_no_traceback(tmp_path: Path) -> None:
    """Ctrl+C reaches every process of the terminal's group. ``terrace play``
    starts its solver processes just after it prints its link, and they
    ignored Ctrl+C only once they had imported the web game (a second or
    two on a busy machine): Ctrl+C in that moment printed two tracebacks
    of theirs ("KeyboardInterrupt" in the middle of an import). They start
    with Ctrl+C held off now, from their first instruction."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    server = subprocess.Popen(
        [sys.executable, "-m", "terrace", "play", "--no-browser", "--port", "0", "--db", ":memory:"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # (as a terminal starts it)
    )
    try:
        assert server.stdout is not None and server.stderr is not None
        assert "running at" in server.stdout.readline()
        deadline = time.monotonic() + 30
        while not (workers := _children(server.pid, "spawn_main")):
            assert time.monotonic() < deadline and server.poll() is None, "no solver process started"
            time.sleep(0.005)
        # (at once: they have only just started, and are still importing)
        held = {pid: _interrupt_held_off(pid) for pid in workers}
        os.killpg(server.pid, signal.SIGINT)
        stderr = server.stderr.read()
        assert server.wait(timeout=30) in (0, 130)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert all(held.values()), held
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr[-3000:]


@pytest.mark.parametrize("args", [
    ["stats"], ["stats", "--json"], ["export", "--all"], ["import", "{w}/record.json"],
    ["play", "--no-browser", "--port", "0"],
    ["deal", "-n", "1", "--winnable"], ["survey", "--deals", "1-2", "--json"],
], ids=lambda args: " ".join(args[:2]))
def test_a_default_database_that_cannot_be_used_is_said_where_it_is(
    args: list[str], world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A default database (no --db, or $TERRACE_DB's) that is damaged was
    named by its file's name alone: "games.sqlite is damaged ...: restore a
    backup, or move it away" did not say where that file was. The message
    now says; one the command line named is left as it was said."""
    monkeypatch.delenv("TERRACE_DB")
    folder = world / "data-home" / "terrace"
    folder.mkdir(parents=True)
    damaged = (world / "games.sqlite").read_bytes()[:1000]  # (cut short)
    name = VERDICTS_FILE_NAME if args[0] in ("deal", "survey") else "games.sqlite"
    (folder / name).write_bytes(damaged)
    result = invoke(args, world)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: "), result.stderr
    assert result.stderr.endswith(f" (that file is {folder / name})\n"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    option = "--verdicts-db" if name == VERDICTS_FILE_NAME else "--db"
    named = invoke([*args, option, str(folder / name)], world)
    assert named.exit_code == 1 and "that file is" not in named.stderr, named.stderr


@pytest.mark.parametrize("host", ["[::1", "::1]", "[[::1]]", "[127.0.0.1"])
def test_a_host_with_a_bracket_left_over_is_a_usage_error(host: str, world: Path) -> None:
    """``--host [::1`` (a bracket not closed) was taken for this computer's
    own address, then refused as it was listened on: "cannot listen on
    [::1:0: Name or service not known", status 1, where any other host that
    is no address is a usage error (status 2) that says so."""
    result = invoke(["play", "--no-browser", "--port", "0", "--host", host], world)
    assert result.exit_code == 2, result.output
    assert result.stderr.endswith(f"Error: --host '{host}' is not an address to listen on: write an IPv6 "
                                  "address with both brackets or none ([::1] or ::1)\n"), result.stderr


@pytest.mark.parametrize("args", [
    ["stats"], ["export", "--all"], ["import", "{w}/record.json"], ["play", "--no-browser", "--port", "0"],
], ids=lambda args: args[0])
def test_the_verdict_cache_given_as_the_games_database_is_named_as_such(args: list[str], world: Path) -> None:
    """``--db solver.sqlite3`` (the verdict cache beside the games, an easy
    slip) was refused as "an SQLite database of another program, not a
    Terrace one": it is Terrace's own. The refusal says what the file is, as
    ``--verdicts-db games.sqlite`` already did the other way round."""
    before = snapshot(world)
    result = invoke([*args, "--db", f"{world}/{VERDICTS_FILE_NAME}"], world)
    assert result.exit_code == 1, result.output
    assert result.stderr == (f"Error: {VERDICTS_FILE_NAME} is the solver's verdict cache, not a database of "
                             "saved games; it was left untouched\n"), result.stderr
    assert snapshot(world) == before


@pytest.mark.skipif(shutil.which("bash") is None, reason="reads the command back with bash")
@pytest.mark.parametrize("odd", ["\udcff", "a\nb", "tab\there", "it's", "\u202e"],
                         ids=["not UTF-8", "newline", "tab", "quote", "override"])
def test_a_surveys_reproduce_line_gives_its_arguments_back(odd: str, world: Path) -> None:
    """A survey whose --out or --verdicts-db held a byte that is not UTF-8
    (a file name the shell passes as it is) solved every deal, then ended
    with "'utf-8' codec can't encode character '\\udcff' in position 385:
    surrogates not allowed" and no table; one holding a newline broke the
    table's Reproduce line in two. The line is one line now, and bash reads
    it back into the very arguments given."""
    out, cache = world / f"out{odd}", world / f"v{odd}.sqlite"
    result = invoke(["survey", "--deals", "7-7", "--out", str(out), "--verdicts-db", str(cache)], world)
    assert result.exit_code == 0, result.output
    table = next(out.glob("*.md")).read_bytes()
    line = next(line for line in table.split(b"\n") if line.startswith(b"Reproduce: `"))
    command = line.removeprefix(b"Reproduce: `").removesuffix(b"`")
    read = subprocess.run(["bash", "-c", b"printf '%s\\0' " + command], capture_output=True, check=True)
    words = read.stdout
    assert words.split(b"\0")[:-1] == [os.fsencode(word) for word in [
        "terrace", "survey", "--deals", "7-7", "--verdicts-db", str(cache), "--out", str(out)]]


@pytest.mark.parametrize("command", ["import", "export"])
def test_a_closed_terminal_stops_any_command_as_sigterm_does(command: str, world: Path) -> None:
    """SIGHUP (the terminal closed, an ssh connection dropped) killed an
    import outright: the database it had made was left with its -wal and
    -shm files (1.5 MB of a transaction never committed), and an export
    its temporary file. It now stops a command as SIGTERM does: the
    import's transaction rolled back, a file being written removed. It
    said "stopped: terminated (SIGTERM)", status 143, for a signal no one
    sent; it names SIGHUP now, with SIGHUP's status 129 (128 + 1)."""
    code = signalled_while_writing("SIGHUP")
    args = ["import", "record.json", "--db", "new.sqlite"] if command == "import" else [
        "export", "--all", "-o", "out.json"]
    before = snapshot(world)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          cwd=world, env={**os.environ, "TERRACE_DB": str(world / "games.sqlite")})
    assert done.returncode == 129, (done.returncode, done.stderr)
    assert done.stderr.strip() == "stopped: hung up (SIGHUP)", done.stderr
    assert "Traceback" not in done.stderr and "AssertionError" not in done.stderr, done.stderr
    assert snapshot(world) == before  # (no new.sqlite, -wal, -shm or out.json left behind)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_stop_just_after_play_prints_its_link_ends_it_as_later(sig: str, tmp_path: Path) -> None:
    """``terrace play`` ends with status 0 on Ctrl+C or SIGTERM (README), but
    one that came between the link printed and the server taking the
    signals (about half a second, while the solver processes start) ended
    it with 130 (143) and "stopped: interrupted (Ctrl+C)". It ends as a
    moment later now: status 0, nothing said, the games database closed."""
    code = ("import os, signal, sys\n"
            "from terrace.web.workers import SolverPool\n"
            "def start(self):\n"
            f"    os.kill(os.getpid(), signal.{sig})\n"
            "SolverPool.start = start\n"
            "from terrace.cli import main\n"
            "sys.argv[0] = 'terrace'\n"
            "main()\n")
    db = tmp_path / "games.sqlite"
    args = ["play", "--no-browser", "--port", "0", "--db", str(db)]
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert "running at" in done.stdout
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert done.stderr == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games.sqlite"]


EMPTY_DEAL = "Error: the deal file is empty: it must hold one deal string"
EMPTY_IMPORT = "Error: nothing was imported: {w}/blank.txt is empty: it holds no game records"


@pytest.mark.parametrize(("args", "status", "said"), [
    (["import", "{w}/blank.txt"], 1, EMPTY_IMPORT),
    (["solve", "--deal-file", "{w}/blank.txt"], 2, EMPTY_DEAL),
    (["show", "--deal-file", "{w}/empty.txt"], 2, EMPTY_DEAL),
], ids=["import", "solve", "show"])
def test_an_empty_file_is_said_to_be_empty(args: list[str], status: int, said: str, world: Path) -> None:
    """An empty (or blank) file to import was "not valid JSON: Expecting
    value: line 1 column 1 (char 0)", and an empty deal file "a deal for 2
    decks has 104 cards, this one has 0"; each is now said to be empty."""
    (world / "blank.txt").write_text(" \n\u00a0\n")
    result = invoke(args, world)
    assert result.exit_code == status, result.output
    assert result.stderr.rstrip("\n").endswith(said.replace("{w}", str(world))), result.stderr


def test_a_deal_file_holding_a_line_separator_alone_is_not_said_to_be_empty(world: Path) -> None:
    """A deal file holding only a line separator (U+2028) was said to be
    empty (str.strip() took it for a space), though a deal string reads it
    as part of a word: it holds a word that is no card."""
    (world / "odd.txt").write_text("\u2028\n", encoding="utf-8")
    result = invoke(["show", "--deal-file", "{w}/odd.txt"], world)
    assert result.exit_code == 2, result.output
    assert result.stderr.rstrip("\n").endswith("card 1 of the deal: '\\u2028' is not a card: use a rank from "
                                                "A23456789TJQK (or 10) followed by a suit from SHDC, e.g. 7H "
                                                "or TD"), result.stderr


HELPS = """
import sys
from terrace.cli import COMMANDS, main
for args in ([], *([name] for name in sorted(COMMANDS))):
    try:
        main([*args, "--help"], prog_name="terrace")
    except SystemExit as end:
        print(f"status {end.code}", file=sys.stderr)
"""


def _helps(encoding: str, folder: Path) -> str:
    """Every command's help as a new process run in ``folder`` writes it
    with standard output in ``encoding``."""
    from terrace.cli import COMMANDS

    done = subprocess.run([sys.executable, "-c", HELPS], capture_output=True, timeout=120, cwd=folder,
                          env={**os.environ, "PYTHONIOENCODING": encoding})
    assert done.stderr.decode().split("\n") == ["status 0"] * (len(COMMANDS) + 1) + [""]
    return done.stdout.decode(encoding)


@functools.cache
def _helps_in_utf_8() -> str:
    """:func:`_helps` in UTF-8, which each encoding's test compares with:
    one process for the three (0.4 CPU s each)."""
    with tempfile.TemporaryDirectory() as folder:
        return _helps("utf-8", Path(folder))


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "ascii"])
def test_every_help_is_written_in_an_encoding_without_the_minus_sign(encoding: str, tmp_path: Path) -> None:
    """With standard output in cp1252 (Windows, output to a file) or
    latin-1, 'terrace deal --help' (and the help of solve, hint, survey,
    replay, show and play) ended with status 1 and "'charmap' codec can't
    encode character '\\u2212'": the rule options' ranges read '0 to 52 ×
    decks − piles − 1'. The minus is written '-'; the rest as in UTF-8.
    In ASCII (PYTHONIOENCODING=ascii) click wrote UTF-8 bytes all the same
    (its fix for a stream it takes for misconfigured): '52 x decks'."""
    from terrace.cli.output import STAND_INS

    written, whole = _helps(encoding, tmp_path), _helps_in_utf_8()
    assert written == "".join(char if char.encode(encoding, "ignore") else STAND_INS[char] for char in whole)
    times = "×" if "×".encode(encoding, "ignore") else "x"
    assert f"52 {times} decks - piles - 1" in " ".join(written.split())


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "ascii"])
def test_a_refusal_naming_a_card_names_it_by_its_letters_in_an_encoding_without_the_suits(
        encoding: str, tmp_path: Path) -> None:
    """With standard error in cp1252 or latin-1, a refusal naming a card
    read "move 2 is illegal: t1f: no foundation accepts the 8\\u2665 yet"
    (Python's escape). A suit symbol stands in as the suit's letter of the
    notation the commands print (8H)."""
    replay = ["replay", "--deal-number", "5", "--moves", "c1,t1f"]
    done = subprocess.run([sys.executable, "-m", "terrace", *replay], capture_output=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PYTHONIOENCODING": encoding})
    assert done.returncode == 1
    said = done.stderr.decode(encoding)
    assert "move 2 is illegal: t1f: no foundation accepts the 8H yet" in said, said


def test_the_qr_code_still_falls_back_to_the_link_in_an_encoding_without_its_blocks() -> None:
    """Standard output's stand-ins are for typographic characters only: a
    QR code's blocks are still an error, on which the link is printed alone."""
    import io

    from terrace.cli.output import PLAIN
    from terrace.web.remote import print_qr

    out = io.TextIOWrapper(io.BytesIO(), encoding="cp1252", errors=PLAIN)
    assert print_qr("https://192.168.1.2:8000/?key=abc", out) is False


INTERRUPTED_IN_EXEC = """
import sys
import terrace.cli.engine as engine
import terrace.web.server as server

def interrupted_in_exec(*args, **kwargs):
    # Ctrl+C while a dataclass is made (dataclasses exec a text): h11's, as
    # the web game's server loads it
    exec("import os, signal\\nos.kill(os.getpid(), signal.SIGINT)\\nfor _ in range(10**7): pass")

server.serve = interrupted_in_exec
engine.variants.callback = interrupted_in_exec
from terrace.cli import main
main(sys.argv[1:], prog_name="terrace")
"""


@pytest.mark.parametrize(("args", "status"), [
    (["play", "--no-browser", "--port", "0", "--db", ":memory:"], 0),
    (["variants"], 130),
], ids=["play", "variants"])
def test_ctrl_c_inside_an_exec_of_text_ends_with_the_commands_status(args: list[str], status: int,
                                                                     tmp_path: Path) -> None:
    """CPython ends a 'python -m' process by SIGINT at its exit once a plain
    KeyboardInterrupt has left an exec of text, caught or not: a Ctrl+C as
    the web game's server loaded h11 (a dataclass) ended 'python -m
    terrace play' by SIGINT (-2 here, 130 in a shell; 3 of 17
    process-group SIGINTs 0.3-0.8 s after the link on a loaded machine,
    which made test_a_stop_just_after_play_prints_its_link_ends_it_as_later
    fail now and then), where it ends with 0; any other command died of
    SIGINT after 'stopped: ...' instead of ending with 130."""
    # (run with -m, as 'python -m terrace': a program run from a file or -c
    # ends through another path, which does not look at the flag)
    (tmp_path / "interrupted_in_exec.py").write_text(INTERRUPTED_IN_EXEC)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "interrupted_in_exec", *args], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("deals", "said"), [
    ("1–1000", "join them with '-', not '–'"), ("1−2", "join them with '-', not '−'"),
    ("1—2", "join them with '-', not '—'"), ("١-٢", "write them in the digits 0-9"),
])
def test_a_range_joined_by_another_dash_says_so(deals: str, said: str) -> None:
    """'--deals 1–1000' (an en dash, as typography writes a range) was
    told to be written "in the digits 0-9", which it was: it is told which
    dash to use."""
    result = CliRunner().invoke(main, ["survey", "--deals", deals])
    assert result.exit_code == 2
    assert f"is not a range of deal numbers such as 1-10000 ({said})" in result.stderr


def test_a_survey_whose_reader_stops_early_still_writes_its_table_and_chart(tmp_path: Path) -> None:
    """'terrace survey ... | head -1' solved every deal, then ended with
    status 1 and wrote neither the Markdown table nor the chart: the
    summary's lines came first, and the second found the pipe closed. The
    table and chart are written before the summary."""
    out = tmp_path / "out"
    args = ["survey", "--deals", "1-2", "--jobs", "1", "--max-seconds", "2", "--verdicts-db",
            str(tmp_path / "v.sqlite3"), "--out", str(out)]
    survey = subprocess.Popen([sys.executable, "-m", "terrace", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, cwd=tmp_path)
    assert survey.stdout is not None and survey.stderr is not None
    survey.stdout.close()  # (a reader that stopped before the first line)
    survey.stderr.read()
    assert survey.wait(timeout=120) == 1  # (as click ends on a closed pipe)
    assert sorted(path.suffix for path in out.iterdir()) == [".md", ".png"]


@pytest.mark.parametrize("name", [" ", "  \t"])
def test_a_database_named_by_white_space_only_is_refused(tmp_path: Path, name: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``--db " "`` (a stray quoted space) or ``TERRACE_DB=" "`` made a
    database file named by a space in the current folder; both are refused
    now, and no file is made."""
    monkeypatch.chdir(tmp_path)
    given = CliRunner().invoke(main, ["stats", "--db", name])
    assert given.exit_code == 2 and "is only white space" in given.output, given.output
    monkeypatch.setenv("TERRACE_DB", name)
    from_env = CliRunner().invoke(main, ["stats"])
    assert from_env.exit_code != 0 and "is only white space" in from_env.output, from_env.output
    assert list(tmp_path.iterdir()) == []


def test_a_record_copied_from_a_web_page_with_no_break_spaces_imports(world: Path) -> None:
    """A record copied from a web page holds no-break spaces (U+00A0) where
    its indentation was: JSON has none, and the import refused the file
    ('not valid JSON: Expecting property name enclosed in double quotes:
    line 2 column 1'). Outside the record's strings they are read as
    spaces; a line separator (U+2028) in its deal string is refused, not
    read as a gap between two cards."""
    record = json.loads((Path(__file__).parent / "golden" / "terrace-won.json").read_text(encoding="utf-8"))
    text = json.dumps(record, indent=2)
    copied = world / "copied.json"
    copied.write_text(text.replace("\n  ", "\n\u00a0\u00a0").replace('": ', '":\u00a0'), encoding="utf-8")
    done = CliRunner().invoke(main, ["import", "--db", ":memory:", str(copied)])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("checked 1 game;"), done.stdout
    assert GameRecord.from_json(copied.read_text(encoding="utf-8")) == GameRecord.from_dict(record)
    # inside a string it stays: a deal string takes it between its cards, a U+2028 is no gap
    for space, status in (("\u00a0", 0), ("\u2028", 1)):
        spaced = {**record, "deal": record["deal"].replace(" ", space, 5)}
        copied.write_text(json.dumps(spaced, ensure_ascii=False), encoding="utf-8")
        done = CliRunner().invoke(main, ["import", "--db", ":memory:", str(copied)])
        assert done.exit_code == status, done.output
    assert "card 1 of the deal: " in done.output and "\\u2028" in done.output


@pytest.mark.parametrize("command", ["show", "replay", "hint", "solve"])
def test_a_game_record_given_as_the_deal_file_is_said_to_be_one(command: str, world: Path) -> None:
    """A game record (what terrace export writes) given as --deal-file was
    refused as 'a deal for 2 decks has 104 cards, this one has 420', its
    JSON counted as cards. It is said to be JSON, not a deal string."""
    record = Path(__file__).parent / "golden" / "terrace-won.json"
    result = invoke([command, "--deal-file", str(record)], world)
    assert result.exit_code == 2, result.output
    said = ("Error: the deal file holds JSON (a game record?), not a deal string: give a file holding the "
            "card codes alone (terrace deal -n N > deal.txt writes one; a record's is its \"deal\"), or "
            "terrace import the record\n")
    assert result.stderr.endswith(said), result.stderr


def test_a_deal_string_given_to_import_is_said_to_be_one(world: Path) -> None:
    """A deal string (what terrace deal prints) given to terrace import was
    'not valid JSON: Expecting value: line 1 column 1 (char 0)'; it is said
    to be a deal string, which --deal-file takes."""
    deal = CliRunner().invoke(main, ["deal", "-n", "5"]).stdout
    (world / "deal.txt").write_text(deal)
    result = invoke(["import", "--db", ":memory:", "{w}/deal.txt"], world)
    assert result.exit_code == 1, result.output
    assert result.stderr == ("Error: nothing was imported:\n  the file holds a deal string, not game records "
                             "(JSON): show, replay, hint and solve take it as --deal-file\n"), result.stderr
    (world / "deal.txt").write_text(deal.replace(" ", " XX ", 1))  # (no deal: still not JSON)
    assert "not valid JSON" in invoke(["import", "--db", ":memory:", "{w}/deal.txt"], world).stderr


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be-marked"])
def test_a_file_in_utf16_with_its_byte_order_mark_is_read(encoding: str, world: Path) -> None:
    """Windows PowerShell 5's ``terrace export > games.json`` (and
    ``terrace deal -n 5 > deal.txt``) writes UTF-16 with its byte-order
    mark: 'terrace import games.json' refused it as 'not UTF-8 text', and
    the deal file as 'not text'. A UTF-16 file that starts with its mark
    is read; one without the mark is still refused."""
    def encoded(text: str) -> bytes:
        return text.encode("utf-16") if encoding == "utf-16" else b"\xfe\xff" + text.encode("utf-16-be")

    record = (Path(__file__).parent / "golden" / "terrace-won.json").read_text(encoding="utf-8")
    (world / "games.json").write_bytes(encoded(record.replace("\n", "\r\n")))
    done = invoke(["import", "--db", ":memory:", "{w}/games.json"], world)
    assert done.exit_code == 0 and done.stdout.startswith("checked 1 game;"), done.output
    deal = CliRunner().invoke(main, ["deal", "-n", "5"]).stdout
    (world / "deal.txt").write_bytes(encoded(deal))
    shown = invoke(["show", "--deal-file", "{w}/deal.txt"], world)
    assert shown.exit_code == 0 and shown.stdout == CliRunner().invoke(main, ["show", "-n", "5"]).stdout
    (world / "games.json").write_bytes(record.encode("utf-16-le"))  # (no mark: no guess)
    unmarked = invoke(["import", "--db", ":memory:", "{w}/games.json"], world)
    assert unmarked.exit_code == 1 and "nothing was imported" in unmarked.stderr, unmarked.output


@pytest.mark.parametrize("command", sorted(RULE_COMMANDS))
def test_a_rule_option_alone_is_refused_in_the_terms_the_user_gave(command: str, world: Path) -> None:
    """``--piles 1`` alone was refused with 'candidates must be between 0
    and the number of piles (1), not 3': the user gave no candidates (3 is
    Terrace's). The refusal names what they gave and what to change."""
    result = invoke([*RULE_COMMANDS[command], "--piles", "1"], world)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("Error: ") == 1
    assert result.stderr.endswith(
        "Error: Invalid value for '--piles': with piles 1, candidates must be between 0 and 1, and the rules "
        "you started from have 3: give candidates too, or change piles\n"), result.stderr
    given = invoke([*RULE_COMMANDS[command], "--piles", "1", "--candidates", "2"], world)
    assert given.stderr.endswith("Error: Invalid value for '--candidates': candidates must be between 0 and "
                                 "the number of piles (1), not 2\n"), given.stderr


@pytest.mark.parametrize("command", sorted(RULE_COMMANDS))
def test_rules_out_of_range_are_refused_naming_the_option_and_the_value(command: str, world: Path) -> None:
    """``--piles 99``, and ``-v`` given a row's title as ``terrace stats``
    writes it with a rule out of range, were refused as "piles must be
    between 1 and 20, not 99" or "unknown variant ...", naming no option."""
    piles = invoke([*RULE_COMMANDS[command], "--piles", "99"], world)
    assert piles.exit_code == 2 and piles.stderr.count("Error: ") == 1, piles.stderr
    said = "Error: Invalid value for '--piles': piles must be between 1 and 20, not 99\n"
    assert piles.stderr.endswith(said), piles.stderr
    title = "Terrace (custom: piles 99)"
    labelled = invoke([*RULE_COMMANDS[command], "-v", title], world)
    assert labelled.exit_code == 2 and labelled.stderr.count("Error: ") == 1, labelled.stderr
    said = (f"'{title}': piles must be between 1 and 20, not 99" if command == "stats"
            else f"unknown variant '{title}'; known variants: ")
    assert f"Error: Invalid value for '--variant' / '-v': {said}" in labelled.stderr, labelled.stderr


TWICE = {
    ("--piles", "5", "--piles", "6"): "'--piles': given more than once, as 5 and 6",
    ("-v", "terrace", "--variant", "falling-star"):
        "'--variant' / '-v': given more than once, as terrace and falling-star",
    ("--foundations", "suit", "--foundations", "alternate"): "'--foundations': given more than once, as suit "
                                                             "and alternate",
    ("--foundation-return", "--no-foundation-return"): "'--foundation-return': given more than once, as "
                                                       "--foundation-return and --no-foundation-return",
}
"""A rule option given twice with two values, and what its refusal says."""


@pytest.mark.parametrize("command", sorted(RULE_COMMANDS))
@pytest.mark.parametrize("twice", sorted(TWICE))
def test_a_rule_option_given_twice_with_two_values_is_refused(command: str, twice: tuple[str, ...],
                                                             world: Path) -> None:
    """``terrace show -n 1 -v terrace -v falling-star`` showed Falling Star
    and ``--piles 5 --piles 6`` six piles: click kept the last value in
    silence, so a preset's option set in an alias or a script and given
    again on the line was lost without a word. Two values are refused."""
    result = invoke([*RULE_COMMANDS[command], *twice], world)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("Error: ") == 1
    assert result.stderr.endswith(f"Error: Invalid value for {TWICE[twice]}: give it once\n"), result.stderr


OTHER_TWICE = {
    ("show", "-n", "1", "-m", "c1", "-m", "c2"): "'--moves' / '-m': given more than once, as c1 and c2",
    ("replay", "-n", "1", "-n", "2"): "'--deal-number' / '-n': given more than once, as 1 and 2",
    ("hint", "-n", "1", "--fair", "--peek"): "'--fair': given more than once, as --fair and --peek",
    ("export", "--all", "--db", "a.sqlite", "--db", "b.sqlite"):
        "'--db': given more than once, as a.sqlite and b.sqlite",
}
"""Options other than the rules' given twice with two values, and what the refusal says."""


@pytest.mark.parametrize("twice", sorted(OTHER_TWICE), ids=" ".join)
def test_any_option_given_twice_with_two_values_is_refused(twice: tuple[str, ...], world: Path) -> None:
    """``show -n 1 -m c1 -m c2`` played c2 alone, ``export --db a --db b``
    read b, ``hint --fair --peek`` peeked: click kept the last in silence.
    Every option but one meant to be given many times is refused so."""
    result = invoke(list(twice), world)
    assert result.exit_code == 2 and result.stderr.count("Error: ") == 1, result.output
    said = f"Error: Invalid value for {OTHER_TWICE[twice]}: give it once\n"
    assert result.stderr.endswith(said), result.stderr
    many = {(name, param.name) for name, command in all_commands().items() for param in command.params
            if isinstance(param, click.Option) and not isinstance(param, OnceOption)
            and not (param.is_flag and not param.secondary_opts)}  # (a flag alone has one value)
    assert many == {("export", "game_ids")}


@pytest.mark.parametrize("twice", [("--piles", "5", "--piles", "5"), ("-v", "terrace", "-v", "Signora"),
                                   ("--no-foundation-return", "--no-foundation-return")])
def test_a_rule_option_given_twice_with_one_value_is_that_value(twice: tuple[str, ...], world: Path) -> None:
    """The same value twice (a preset and its alias) is the value once."""
    once = invoke(["show", "-n", "1", *twice[len(twice) // 2:]], world)
    result = invoke(["show", "-n", "1", *twice], world)
    assert result.exit_code == once.exit_code == 0, result.stderr
    assert result.stdout == once.stdout


@pytest.mark.parametrize("command", sorted(DEAL_COMMANDS))
def test_a_deal_file_of_other_decks_says_which_decks_to_give(command: str, world: Path) -> None:
    """A deal of one deck (terrace deal -n 1 --decks 1 > deal.txt) given to
    a Terrace command was refused as 'a deal for 2 decks has 104 cards,
    this one has 52': 2 decks is the preset's, no option said so."""
    rules = get_rules("terrace", decks=1)
    (world / "one.txt").write_text(Deal.from_number(1, rules).text() + "\n")
    result = invoke([command, "--deal-file", "{w}/one.txt"], world)
    assert result.exit_code == 2 and result.stderr.count("Error: ") == 1, result.stderr
    assert result.stderr.endswith("Error: a deal for 2 decks has 104 cards, this one has 52: it holds the "
                                  "cards of 1 deck (give --decks 1)\n"), result.stderr
    (world / "few.txt").write_text("AS KD 7H\n")
    few = invoke([command, "--deal-file", "{w}/few.txt"], world)
    assert few.stderr.endswith("Error: a deal for 2 decks has 104 cards, this one has 3\n"), few.stderr
    assert invoke([command, "--deal-file", "{w}/one.txt", "--decks", "1"], world).exit_code == 0


def test_a_number_too_long_in_a_stats_row_title_names_the_option(tmp_path: Path) -> None:
    """A rule's number of 60 digits in ``stats -v "Terrace (custom: ...)"``
    was "Invalid value: '1111…' is too large", naming no option."""
    title = "Terrace (custom: piles " + "1" * 60 + ")"
    result = CliRunner().invoke(main, ["stats", "--db", str(tmp_path / "none.sqlite"), "-v", title])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--variant' / '-v': '111" in result.stderr, result.stderr
    assert "is too large: give at most" in result.stderr


DATABASE_OPTIONS = [["stats", "--db"], ["export", "--all", "--db"], ["import", "{w}/record.json", "--db"],
                    ["play", "--no-browser", "--db"], ["deal", "-n", "1", "--winnable", "--verdicts-db"],
                    ["survey", "--deals", "1-2", "--verdicts-db"], ["survey", "--deals", "1-2", "--db"]]
"""Every option that names a database, on every command that has it."""


@pytest.mark.parametrize("command", DATABASE_OPTIONS, ids=" ".join)
def test_a_database_option_naming_no_database_file_is_a_usage_error(command: list[str], world: Path) -> None:
    """``--db /dev/zero``, a pipe or a socket was refused with status 1
    once the command ran ("zero is not a regular file", naming no option),
    where a folder is a usage error (status 2, naming it); and
    ``stats --db /proc/self/mem``, which cannot be read, said "No games
    played yet" with status 0. Each is a usage error naming the option and
    the path given now, before anything is touched."""
    os.mkfifo(world / "pipe")
    with socket.socket(socket.AF_UNIX) as held:
        held.bind(str(world / "sock"))
        cases = [("/dev/zero", "is a device"), ("{w}/pipe", "is a pipe"), ("{w}/sock", "is a socket")]
        if Path("/proc/self/mem").is_file():
            cases.append(("/proc/self/mem", "cannot be read: Input/output error"))
        before = snapshot(world)
        for path, said in cases:
            result = invoke([*command, path], world)
            assert result.exit_code == 2, (path, result.output)
            shown = path.replace("{w}", str(world))
            expected = f"Error: Invalid value for '{command[-1]}': '{shown}' {said}"
            assert expected in result.stderr, result.stderr
        assert snapshot(world) == before


@pytest.mark.parametrize(("title", "said"), [
    ("Terrace (custom: bogus 9)", "'Terrace (custom: bogus 9)' is not a row of the table: "),
    ("Nope (custom: piles 9)", "'Nope (custom: piles 9)': unknown variant 'Nope'; "),
])
def test_a_stats_row_title_of_no_rules_names_the_option(title: str, said: str, tmp_path: Path) -> None:
    """A row's title of no rules was refused naming no option ("... is not
    a row of the table"), or not as written ("unknown variant 'Nope'")."""
    result = CliRunner().invoke(main, ["stats", "--db", str(tmp_path / "none.sqlite"), "-v", title])
    assert result.exit_code == 2 and result.stderr.count("Error: ") == 1, result.stderr
    assert f"Error: Invalid value for '--variant' / '-v': {said}" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [["stats", "--db"], ["export", "--all", "--db"],
                                     ["deal", "-n", "1", "--winnable", "--verdicts-db"]])
def test_a_database_name_too_long_for_the_system_says_so(command: list[str], tmp_path: Path) -> None:
    """A database named by 60,000 characters was refused as "cannot read
    sss…", the line cut before the reason: the name is clipped, the reason
    stays."""
    result = CliRunner().invoke(main, [*command, str(tmp_path / ("s" * 60_000))])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("Error: cannot read sss")
    assert result.stderr.endswith("…: File name too long\n"), result.stderr


def test_a_pipe_or_a_device_given_as_the_surveys_folder_is_a_usage_error(tmp_path: Path) -> None:
    """``survey --out fifo`` (or /dev/null) started the survey and was then
    refused with status 1, where a regular file given as --out is a usage
    error (status 2): so is a pipe or a device now, before any work."""
    os.mkfifo(tmp_path / "fifo")
    for out in (str(tmp_path / "fifo"), "/dev/null"):
        result = CliRunner().invoke(main, ["survey", "--deals", "1-1", "--verdicts-db",
                                           str(tmp_path / "v.sqlite"), "--out", out])
        assert result.exit_code == 2, result.output
        assert result.stderr.endswith(f"Error: Invalid value for '--out': '{out}' is not a folder\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["fifo"]
