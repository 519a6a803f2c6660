"""What README.md and docs/*.md show is what the code does today: every
command they show parses as its program takes it, every link and named file
or module exists, the notation's examples read and print as written, the
schema block is the schema, and every limit they state is the constant the
code applies (so a change to one of them cannot leave the other behind)."""

from __future__ import annotations

import importlib
import inspect
import re
import shlex
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from terrace import Board, Move, Status, get_rules
from terrace.cli import all_commands
from terrace.cli.options import pop_rules
from terrace.errors import InvalidMoveError
from terrace.rules import RULE_FIELDS
from terrace.storage import open_store
from terrace.storage.migrations import MIGRATIONS
from terrace.variants import PRESETS

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _prose_and_blocks(page: Path) -> tuple[str, list[str]]:
    """A page's prose (fenced blocks left out, whitespace made single) and
    the lines of its fenced blocks (continuation backslashes joined)."""
    prose: list[str] = []
    blocks: list[str] = []
    block: list[str] | None = None
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            if block is None:
                block = []
            else:
                blocks += "\n".join(block).replace("\\\n", " ").splitlines()
                block = None
        elif block is not None:
            block.append(line)
        else:
            prose.append(line)
    return " ".join(" ".join(prose).split()), blocks


def _inline_code(page: Path) -> list[str]:
    return re.findall(r"`([^`]+)`", _prose_and_blocks(page)[0])


def doc_commands() -> Iterator[tuple[str, str]]:
    """(page, command) for every command a page shows: each line of a fenced
    block that runs terrace or a benchmark, and each such inline command."""
    for page in PAGES:
        _, blocks = _prose_and_blocks(page)
        for line in blocks:
            line = line.split(" #", 1)[0].strip().removesuffix("&").strip()
            if re.match(r"(terrace |\.venv/bin/(python bench/|terrace ))", line):
                yield page.name, line
        for code in _inline_code(page):
            if re.match(r"(terrace \w+ -|(\.venv/bin/python )?bench/\w+\.py( |$)|\.venv/bin/terrace )", code):
                yield page.name, code.strip()


# Placeholders the docs write for a value of the reader's choice.
PLACEHOLDERS = {"PRESET": "terrace", "N": "5", "DEAL": "1", "ID": "abc", "ID2": "abd", "FILE": "x.sqlite3",
                "V": "terrace", "NAME": "terrace"}


def _terrace_words(command: str) -> list[str]:
    command = command.replace("(--deal-number N | --deal-file F)", "--deal-number N").replace("[options]", "")
    command = re.sub(r"\[(-o FILE)\]", r"\1", command).replace('"…"', '"c1"').replace("tcp://HOST", "tcp://h")
    words = [PLACEHOLDERS.get(word, word) for word in shlex.split(command)]
    return words[1:]  # (after "terrace" or ".venv/bin/terrace")


TERRACE_COMMANDS = [(page, command) for page, command in doc_commands() if "bench/" not in command]
BENCH_COMMANDS = [(page, command) for page, command in doc_commands() if "bench/" in command]


def test_the_docs_show_commands_at_all() -> None:
    """(The collection above finds what it looks for.)"""
    assert len(TERRACE_COMMANDS) > 40 and len(BENCH_COMMANDS) > 30
    assert ("README.md", 'terrace replay -n 7 --moves "c1 s t7f" --json') in TERRACE_COMMANDS


@pytest.mark.parametrize(("page", "command"), TERRACE_COMMANDS)
def test_every_terrace_command_in_the_docs_parses_as_written(page: str, command: str) -> None:
    """Its options are spelt as the command takes them and their values are
    valid (a bare ``--option`` named in the text is only checked by name)."""
    words = _terrace_words(command)
    commands = all_commands()
    assert words and words[0] in commands, (page, command)
    cli = commands[words[0]]
    options = {name for param in cli.params for name in (*param.opts, *param.secondary_opts)}
    named = [word.split("=")[0] for word in words[1:] if re.match(r"--?[A-Za-z]", word)]
    assert set(named) <= options | {"--help", "-h"}, (page, command, set(named) - options)
    takes_value = {name for param in cli.params if isinstance(param, click.Option) and not param.is_flag
                   for name in param.opts}
    if len(words) == 2 and words[1] in takes_value:
        return  # the text names the option, with no value
    try:
        cli.make_context(words[0], words[1:], resilient_parsing=False)
    except click.exceptions.Exit:
        pass
    except click.UsageError as error:
        pytest.fail(f"{page}: {command!r} does not parse: {error}")


def _bench_options(script: str) -> set[str]:
    source = (ROOT / "bench" / script).read_text(encoding="utf-8")
    return set(re.findall(r"add_argument\(\s*\"(--?[\w-]+)\"(?:,\s*\"(?:--?[\w-]+)\")*", source)) | set(
        re.findall(r"add_argument\(\s*\"--?[\w-]+\",\s*\"(--?[\w-]+)\"", source)) | {"--help", "-h"}


@pytest.mark.parametrize(("page", "command"), BENCH_COMMANDS)
def test_every_benchmark_command_in_the_docs_names_options_the_script_takes(page: str, command: str) -> None:
    script = re.search(r"bench/(\w+\.py)", command)
    assert script and (ROOT / "bench" / script.group(1)).is_file(), (page, command)
    named = {word.split("=")[0] for word in shlex.split(command) if re.match(r"--?[A-Za-z]", word)}
    assert named <= _bench_options(script.group(1)), (page, command, named - _bench_options(script.group(1)))


# -- links, files and modules ---------------------------------------------------------


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.*)$", page.read_text(encoding="utf-8"), re.MULTILINE)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_named_files_and_modules_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path) if path else page
        assert linked.exists(), f"{page.name} links to {target}, which is not there"
        if anchor:
            assert anchor in _anchors(linked), f"{page.name} links to {target}: no such heading"
    for code in _inline_code(page):
        if re.fullmatch(r"(tests|bench|docs|src)/[\w./*-]+", code):
            assert list(ROOT.glob(code)), f"{page.name} names {code}, which is not there"
        if re.fullmatch(r"terrace(\.\w+)+", code):
            assert _resolves(code), f"{page.name} names {code}, which the code does not have"


SECTION_NAMED = re.compile(r"(\w+\.md)(?:\]\([^)]*\))?(?:'s)?,?\s+\"([^\"]{2,60})\"")
"""A page named and then a section of it in quotes: ``docs/storage.md, "Nothing is lost"``."""


SECTION_HERE = re.compile(r"\b[Ss]ee \"([^\"]{2,60})\"")
"""A section of the same page: ``(see "Export and import")``."""


def _sections_named() -> list[tuple[str, str, str]]:
    named = [(page.name, found, " ".join(section.split())) for page in PAGES
             for found, section in SECTION_NAMED.findall(page.read_text(encoding="utf-8"))]
    here = [(page.name, page.name, " ".join(section.split())) for page in PAGES
            for section in SECTION_HERE.findall(page.read_text(encoding="utf-8"))]
    return sorted(set(named + here))


def test_the_sections_the_docs_name_in_quotes_are_found() -> None:
    """(The collection below finds what it looks for.)"""
    assert len(_sections_named()) >= 12


@pytest.mark.parametrize(("page", "named", "section"), _sections_named())
def test_a_section_named_in_quotes_is_a_heading_or_a_bold_lead_of_that_page(page: str, named: str,
                                                                              section: str) -> None:
    """A reader sent to `storage.md, "Nothing is lost"` finds a heading (or a
    paragraph's bold lead) of that name there: a heading renamed would
    leave the reference pointing nowhere, which the link check misses."""
    target = next((p for p in PAGES if p.name == named), None)
    assert target is not None, f"{page} names {named}, which is not a page of the docs"
    text = target.read_text(encoding="utf-8")
    heads = [re.sub(r"[`*]", "", head).strip().lower() for head in re.findall(r"^#+ (.*)$", text, re.M)]
    leads = [" ".join(lead.split()).lower().rstrip(".:") for lead in re.findall(r"\*\*([^*]+)\*\*", text)]
    wanted = section.lower()
    assert any(wanted in head for head in heads) or wanted in leads, (
        f"{page} sends the reader to {named}, \"{section}\", which has no such heading")


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


# -- docs/notation.md's examples ----------------------------------------------------------


NOTATION = ROOT / "docs" / "notation.md"


def _section(page: Path, heading: str) -> str:
    text = page.read_text(encoding="utf-8")
    return text.split(heading, 1)[1].split("\n#", 1)[0]


def test_every_move_of_the_notation_table_reads_and_prints_as_written() -> None:
    rows = re.findall(r"^\| (`.+?`) \|", _section(NOTATION, "## Moves"), re.MULTILINE)
    moves = [move for row in rows for move in re.findall(r"`([^`]+)`", row)]
    assert len(moves) >= 10
    for text in moves:
        assert str(Move.parse(text)) == text
        assert str(Move.parse(f"  {text.upper()} ")) == text  # any case, spaces around


def test_the_unreadable_moves_the_notation_names_are_refused_as_unreadable() -> None:
    sentence = re.search(r"A move that cannot be read \(([^)]*)\)", " ".join(NOTATION.read_text().split()))
    assert sentence
    examples = re.findall(r"`([^`]+)`", sentence.group(1))
    assert len(examples) >= 4
    for text in examples:
        with pytest.raises(InvalidMoveError):
            Move.parse(text)


def test_the_replay_json_table_names_exactly_the_keys_replay_prints() -> None:
    """notation.md's table of ``terrace replay --json``, held to what the
    command prints for a line with an illegal move (every key, no other)."""
    import json

    from click.testing import CliRunner

    from terrace.cli import main
    rows = re.findall(r"^\| (`.+?`) \|", _section(NOTATION, "## `terrace replay --json`"), re.MULTILINE)
    listed = {key for row in rows for key in re.findall(r"`([^`]+)`", row)}
    result = CliRunner().invoke(main, ["replay", "-n", "7", "--moves", "c1 t9t1", "--json"])
    assert result.exit_code == 0, result.output
    assert listed == set(json.loads(result.output))


def test_the_readme_quotes_the_refusal_of_a_deal_number_as_the_command_line_and_a_request_say_it() -> None:
    """README: the command line refuses a deal number in a request's words,
    which it quotes for -1; both say them."""
    from click.testing import CliRunner

    from terrace.cli import main
    from web_support import app_client
    quoted = re.search(r'in the words a request\'s is \("([^"]+)"\)',
                       _prose_and_blocks(ROOT / "README.md")[0])
    assert quoted, "README no longer quotes the refusal of deal -1"
    said = CliRunner().invoke(main, ["deal", "-n", "-1"]).output
    assert said.rstrip().endswith(quoted[1]), said
    with app_client() as client:
        answer = client.post("/api/games", json={"deal_number": -1})
    assert answer.status_code == 400 and answer.json()["error"] == quoted[1]


def test_the_position_string_example_is_what_the_engine_writes() -> None:
    """The example of one pack, 3 reserve cards, 2 piles and 1 candidate (deal 0), after c1 s."""
    section = _section(NOTATION, "## Position strings")
    assert "one pack, 3 reserve cards, 2 piles, 1 candidate, after `c1 s`" in " ".join(section.split())
    example = re.search(r"```\n(.*?)\n```", section, re.DOTALL)
    assert example
    shown = example.group(1).strip()
    board = Board.from_number(0, get_rules("terrace", decks=1, reserve=3, piles=2, candidates=1))
    for move in ("c1", "s"):
        board.push_text(move)
    head, _, tail = shown.partition("…")
    assert board.position().startswith(head) and board.position().endswith(tail)


def test_the_endless_shuttle_rules_md_describes_needs_only_one_pack() -> None:
    """rules.md said a card could go back and forth between two piles for
    ever only "with two packs or more"; one pack has two red sevens (and
    two of every rank and colour), so a 6♣ shuttles between the 7♦ and the
    7♥ and a one-pack game whose stock is used up stays "playing" (reached
    from deal 17158 of these rules by a random line: the terrace's 5♦
    waits for nothing that can come)."""
    section = " ".join(_section(ROOT / "docs" / "rules.md", "## The end of the game").split())
    assert "even with one pack" in section and "a 6♣ between the 7♦ and the 7♥ of one pack" in section
    rules = get_rules("terrace", decks=1, reserve=4, piles=5, candidates=2)
    board = Board.from_position(
        "8 4S4C5D 8C9DTSJHQSKDAS2H3C4H5C6H7S,8H9STDJSQDKCAD2S3D,8S9HTCJDQCKHAC2D3S4D5S6D7C,"
        "8D9CTHJCQHKSAH2C3H 6S5H,,7D6C,,7H - - 0", rules)
    assert not board.stock and not board.waste and board.status is Status.PLAYING
    assert [str(move) for move in board.legal_moves] == ["t1t3", "t3t5"]
    start = board.position()
    for move in ("t3t5", "t5t3"):  # the 6♣ onto the 7♥, then back onto the 7♦
        board.push_text(move)
        assert board.status is Status.PLAYING
    assert board.position() == start


# -- docs/storage.md's schema ------------------------------------------------------------------


STORAGE = ROOT / "docs" / "storage.md"


def _schema_block() -> dict[str, str]:
    """The schema block of docs/storage.md: each table's text, by name."""
    section = _section(STORAGE, "## Schema and migrations")
    block = next(b for b in re.findall(r"```\n(.*?)```", section, re.DOTALL) if b.startswith("games"))
    tables: dict[str, str] = {}
    name = ""
    for line in block.splitlines():
        if line[:1].isalpha():
            name, line = line.split(None, 1)
        tables[name] = tables.get(name, "") + " " + line
    return tables


def test_the_schema_block_names_every_column_and_event_action(tmp_path: Path) -> None:
    with open_store(tmp_path / "games.sqlite"):
        pass
    connection = sqlite3.connect(tmp_path / "games.sqlite")
    documented = _schema_block()
    tables = {name for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")}
    assert set(documented) == tables - {"migrations"}
    for table, text in documented.items():
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
        pieces = re.sub(r"\([^)]*\)", "", text.split("--")[0]).split(",")
        assert sorted(piece.split()[0] for piece in pieces) == sorted(columns), table
    schema = connection.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()[0]
    actions = re.search(r"action IN \(([^)]*)\)", schema)
    documented_actions = re.search(r"action \(([^)]*)\)", documented["events"])
    assert actions and documented_actions
    assert documented_actions.group(1).split("|") == re.findall(r"'([^']+)'", actions.group(1))
    connection.close()


def test_the_migrations_are_listed_by_number_and_name() -> None:
    section = _section(STORAGE, "## Schema and migrations")
    listed = re.findall(r"^(\d+)\. \*\*([^*]+)\*\*", section, re.MULTILINE)
    assert [(int(number), name) for number, name in listed] == [
        (migration.version, migration.name) for migration in MIGRATIONS
    ]


def test_storage_md_names_every_call_of_the_game_store_protocol_and_of_sqlite_store() -> None:
    """storage.md lists what the ``GameStore`` protocol holds, and what a
    ``SqliteStore`` adds; it had left out ``stop_waiting``, which a stopping
    server calls, and ``log_places``."""
    from terrace.storage import GameStore
    from terrace.storage.sqlite import SqliteStore
    prose = _prose_and_blocks(STORAGE)[0]
    listed, added = prose.split("protocol of `terrace.storage` (", 1)[1].split(") and adds", 1)
    added = added.split("it is a context manager", 1)[0]
    calls = [name for name in vars(GameStore) if not name.startswith("_")]
    more = [name for name in dir(SqliteStore) if not name.startswith("_") and name not in calls]
    missing = [name for name in calls if not re.search(rf"`{name}[`(]", listed)]
    missing += [name for name in more if not re.search(rf"`{name}[`(]", added)]
    assert calls and more and not missing, f"storage.md's list of the GameStore protocol lacks {missing}"


# -- limits -----------------------------------------------------------------------------------


def _limits() -> list[tuple[str, str, object]]:
    """(page, the words stating a limit, with {} for the value, the value the
    code applies). The words must be on the page with the code's value."""
    from terrace import game, limits, moves
    from terrace.cli import options as cli_options
    from terrace.cli import storage as cli_storage
    from terrace.solver import api, cluster, coach, fair, hint_line, history, lines, search, survey, verdicts
    from terrace.solver import pool as local_pool
    from terrace.solver.advice import ASKED_POSITIONS, ASKED_WEIGHT, ESCALATION
    from terrace.solver.fair import FairSettings
    from terrace.storage import base, findings, line, paths, rows, sqlite, statistics, tallying, transfer
    from terrace.web import coach as web_coach
    from terrace.web import coach_job as web_coach_job
    from terrace.web import endgame, endpoints, protocol, replay, replies, security, workers
    from terrace.web.coach import CoachBudgets
    from terrace.web.workers import SolverPool
    from test_solver_core import OPTION_SETS, WHOLE_DEAL_SETS

    pool = inspect.signature(SolverPool).parameters
    budgets = CoachBudgets()
    return [
        ("README.md", "is from {} s to one day ({} s)",
         (str(cli_options.MIN_SECONDS), str(round(cli_options.MAX_SECONDS)))),
        ("README.md", "`--max-nodes` at most 10^{} positions", len(str(limits.MAX_NODES)) - 1),
        ("README.md", "a survey covers at most {} deals (`--deals 1-{}`",
         (survey.MAX_SURVEY_DEALS, str(survey.MAX_SURVEY_DEALS))),
        ("README.md", "with `--jobs` 1 to {}", local_pool.MAX_WORKERS),
        ("cluster.md", "(N from 1 to {}, read as `--jobs` reads its number", local_pool.MAX_WORKERS),
        ("cluster.md", "A survey covers at most {} deals, on a cluster too", survey.MAX_SURVEY_DEALS),
        ("api.md", "whose bytes wait {} s for the client to read them", protocol.WRITE_SECONDS),
        ("api.md", "the game's requests have {} worker threads of their own", endpoints.GAME_THREADS),
        ("api.md", "the {} games\n  hinted last are remembered", workers.PREFERRED_KEYS),
        ("api.md", "a process not started within {} s is\n  replaced", workers.START_LIMIT),
        ("api.md", "may go\n  on {} s past a search's budget", workers.OVERRUN_GRACE),
        ("api.md", "neither runs nor uses any CPU for\n  {} s", workers.STALL),
        ("api.md", "a hold run out (after {} minutes)", security.HELD_SECONDS // 60),
        ("cluster.md", "within {} s when the\n  scheduler", cluster.ASK_SECONDS),
        ("winnability.md", "at most {} verdicts (`survey.GROUP_VERDICTS`)", survey.GROUP_VERDICTS),
        ("winnability.md", "up to {} s of budget, at most {}\ndeals",
         (survey.BATCH_SECONDS, survey.BATCH_DEALS)),
        ("winnability.md", "holds more than {} GB\nafter a deal (`pool.WORKER_MEMORY_KB`",
         local_pool.WORKER_MEMORY_KB // 2**20),
        ("winnability.md", "at its next look at its workers (at most\n{} a second)",
         "half" if local_pool.WATCH_SECONDS == 0.5 else local_pool.WATCH_SECONDS),
        ("winnability.md", "twice the budget per deal and {} more of\nwaiting",
         "a minute" if local_pool.STALL_SLACK == 60 else local_pool.STALL_SLACK),
        ("api.md", "a body is at most {} KiB", security.MAX_BODY // 1024),
        ("api.md", "must arrive within {} s", replies.BODY_SECONDS),
        ("api.md", "the body did not arrive within {} s", replies.BODY_SECONDS),
        ("api.md", "must arrive whole within {} s", protocol.HEAD_SECONDS),
        ("api.md", "be at most {} KB long", protocol.HEAD_BYTES // 1024),
        ("api.md", "holds at most {} connections at once", protocol.CLIENT_CONNECTIONS),
        ("api.md", "all\n  addresses together, hold at most {} places", protocol.STRANGER_CONNECTIONS),
        ("api.md", "Beyond {} open connections", endpoints.MAX_CONNECTIONS),
        ("api.md", "one for each request the server runs at once ({})", endpoints.WRITE_THREADS),
        ("api.md", "with `Retry-After: {}` as the solver's busy refusals have it", replies.RETRY_AFTER),
        ("api.md", "is made from {}\nrandom bytes", security.TOKEN_BYTES),
        ("api.md", "waits up to {} s in all", sqlite.BUSY_TIMEOUT_SECONDS),
        ("api.md", "runs in {} processes of its own", pool["workers"].default),
        ("api.md", "{} more jobs may wait", pool["waiting"].default),
        ("api.md", "(1–{}, default 20)", endpoints.MAX_RECENT),
        ("api.md", "a\nrefusal repeats a move cut after {} characters", moves.MAX_MOVE_TEXT),
        ("api.md", "--hint-seconds`, {} s by default", endpoints.HINT_SECONDS),
        ("api.md", "moves, takes at most {} of the hint's budget",
         "a quarter" if endpoints.SHOWN_SHARE == 0.25 else endpoints.SHOWN_SHARE),
        ("api.md", "--winnable-seconds`, {} s by default", endpoints.WINNABLE_SECONDS),
        ("api.md", "at most {} s per deal", endpoints.WINNABLE_DEAL_SECONDS),
        ("api.md", "--winnable-seconds`, 10 s by default, {} to {} s", endpoints.WINNABLE_SECONDS_RANGE),
        ("api.md", "--hint-seconds`, 2 s by default, {} to {} s", endpoints.HINT_SECONDS_RANGE),
        ("api.md", "within the budget, the first {} moves always", lines.REPLAY_CHECK),
        ("api.md", "plus {} s, at most {} hours",
         (base.REPORT_SLACK_MS / 1000, base.MAX_ACTIVE_REPORT_MS // 3_600_000)),
        ("api.md", "for the {} games used last", endpoints.MAX_KEPT_LINES),
        ("api.md", "of the {} games hinted last, and {} moves in all",
         (endpoints.MAX_KEPT_LINES, endpoints.KEPT_MOVES)),
        ("api.md", "solved in the budget ({} s)", budgets.chances),
        ("api.md", "The whole request has a budget ({} s", budgets.analysis),
        ("api.md", "share a short budget ({} s)", budgets.warn),
        ("api.md", "and a warning, whose budget is\n  {} s, alike", budgets.warn),
        ("api.md", "within a budget of {} positions", endgame.FINISH_POSITIONS),
        ("api.md", "the other {}% is kept for", round(coach.FAIR_SHARE * 100)),
        ("api.md", "from the fair player's {} up", FairSettings().nodes),
        ("api.md", "again with {} times the positions", ESCALATION),
        ("api.md", "it retries only while a round {}\n  times as long", ESCALATION),
        ("api.md", "is followed by the next,\n  {} times larger", ESCALATION),
        ("api.md", "`terrace.solver.advice.AskedHints`: the {} positions asked last, about\n  {} cards",
         (ASKED_POSITIONS, ASKED_WEIGHT)),
        ("api.md", "at most {} such solves and {} MB of their tables",
         (fair.KEPT_SOLVES, fair.KEPT_SOLVE_BYTES >> 20)),
        ("api.md", "after {} moves without a draw", history.LOOKBACK),
        ("api.md", "looking up to {} moves ahead", history.LOOKBACK),
        ("api.md", "a line of more than {} moves, played and taken back", base.MAX_LINE),
        ("api.md", "a computer clock outside {} to {}", tuple(map(str, base.saved_years()))),  # (no 2,000)
        ("storage.md", "every time lies from {} to {}", tuple(map(str, base.saved_years()))),
        ("storage.md", "remembers the last {}\ngames", sqlite.REMEMBERED_GAMES),
        ("storage.md", "(at most {} moves in all", sqlite.REMEMBERED_MOVES),
        ("storage.md", "only the last {} moves each way", base.RECENT),
        ("storage.md", "own part of that board ({} moves each way)", base.PART),
        ("storage.md", "moves in\n  chunks of {} that never change", line.CHUNK),
        ("storage.md", "less\n  {} s for its answer", web_coach_job.REPLY_SECONDS),
        ("storage.md", "is read for at most {} of the budget", "half" if web_coach.LOG_SHARE == 0.5 else ""),
        ("storage.md", "at most {} characters", base.MAX_POSITION_KEY),
        ("storage.md", "whole numbers up to {}", statistics.MAX_COUNT),
        ("storage.md", "whole numbers from 0 to {}", statistics.MAX_COUNT),
        ("storage.md", "the active times at most {} days", statistics.MAX_ACTIVE_MS // 86_400_000),
        ("storage.md", "the line holds at most {} moves", base.MAX_LINE),
        ("storage.md", "(0 to {} hours per report)", base.MAX_ACTIVE_REPORT_MS // 3_600_000),
        ("storage.md", "last report plus {} s, lent", base.REPORT_SLACK_MS // 1000),
        ("storage.md", "wait up to {} seconds (busy timeout)", sqlite.BUSY_TIMEOUT_SECONDS),
        ("storage.md", "when the check has `tallying.LONG_CHECK` ({}) games or more", tallying.LONG_CHECK),
        ("README.md", "A `terrace stats` that must check {} saved games or more", tallying.LONG_CHECK),
        ("storage.md", "a JSON file in `{}/` of the user data folder, one for each of the last {} databases",
         (paths.FINDINGS_FOLDER_NAME, findings.NOTES_KEPT)),
        ("README.md", "in `{}/` of the user data folder (the last {} databases)",
         (paths.FINDINGS_FOLDER_NAME, findings.NOTES_KEPT)),
        ("storage.md", "written in chunks of {} (`IMPORT_CHUNK`)", sqlite.IMPORT_CHUNK),
        ("storage.md", "with a pause of {} s between them", sqlite.IMPORT_PAUSE),
        ("storage.md", "imported in transactions of {} games (an import refused,\n"
         "or stopped in its first {} games",
         (sqlite.IMPORT_CHUNK, sqlite.IMPORT_CHUNK)),
        ("README.md", "keeps only the games of the chunks of {} it had written,\n"
         "none for a file of {} games or fewer",
         (sqlite.IMPORT_CHUNK, sqlite.IMPORT_CHUNK)),
        ("storage.md", "than an import\n  reads ({} MB)", cli_storage.MAX_IMPORT_BYTES // 2**20),
        ("storage.md", "(at most {} MB, {} records",
         (cli_storage.MAX_IMPORT_BYTES // 2**20, transfer.MAX_RECORDS)),
        ("storage.md", "quoting at most {}\ncharacters", rows.MAX_QUOTE),
        ("storage.md", "a time more than {} minutes ahead", base.AHEAD / 60),
        ("storage.md", "at most {}\nminutes ahead", base.AHEAD / 60),
        ("storage.md", "`LOOKBACK` ({})", history.LOOKBACK),
        ("storage.md", "for the last {} games replayed", replay.KEPT_REPLAYS),
        ("cluster.md", "at most {} deals; one deal per batch", cluster.MAX_BATCH),
        ("cluster.md", "keeps {} batches per worker in flight", cluster.IN_FLIGHT_PER_WORKER),
        ("cluster.md", "with a {} s deadline) for its versions", cluster.CHECK_SECONDS),
        ("cluster.md", "no Dask scheduler answers within {} s", cluster.CONNECT_SECONDS),
        ("cluster.md", "joined the scheduler in {} s", cluster.WORKER_WAIT),
        ("cluster.md", "for {} minutes ends it", cluster.WORKER_WAIT / 60),
        ("cluster.md", "twice {} batches' budgets", cluster.IN_FLIGHT_PER_WORKER),
        ("cluster.md", "the fair player with its default {} sampled stock orders", FairSettings().samples),
        ("research.md", "looked up by a\n{}-byte digest (blake2b)", game.POSITION_DIGEST_BYTES),
        ("research.md", "share a digest with odds of 2^-{}", 8 * game.POSITION_DIGEST_BYTES),
        ("research.md", "more than {} of them, and more than\n{})",
         ("an eighth" if game.SHARE_PART == 8 else game.SHARE_PART, game._SHARE_AFTER)),
        ("research.md", "once more than {} actions were played since the last clone", game._SHARE_AFTER),
        ("research.md", "they become pieces (of {} actions at most)", game.PAST_PIECE),
        ("winnability.md", "`verdicts.SOLVER_VERSION`, now {}", verdicts.SOLVER_VERSION),
        ("winnability.md", "(`hint_line.KEPT`, {} of them and {} moves in all",
         (hint_line.KEPT_LINES, hint_line.KEPT_MOVES)),
        ("winnability.md", "about {} ms of complete search", round(search.CORE_SLICE_SECONDS * 1000)),
        ("winnability.md", "{} times once the complete search has entered", round(api.LEARNING_HUNTER_SHARE)),
        ("winnability.md", "has entered {} positions", api.EARLY_AFTER),
        ("winnability.md", "A hunter restarts after {} positions", api.RESTART_NODES),
        ("winnability.md", "after {} hunters in a row", api.STALE_HUNTERS),
        ("winnability.md", "searches stop at {} million positions", search.PY_MAX_ENTRIES // 1_000_000),
        ("winnability.md", "on the same positions under {} sets of switches", len(OPTION_SETS)),
        ("winnability.md", "of four presets under {} of them", len(WHOLE_DEAL_SETS)),
    ]


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _written(value: object) -> list[str]:
    """The ways the docs write a number: 16, 0.1, 1,024, 100,000; two."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        return [str(value)]
    return [f"{value:,}", *([NUMBER_WORDS[value]] if 0 <= value < len(NUMBER_WORDS) else [])]


@pytest.mark.parametrize(("page", "words", "value"), _limits(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_limit_the_docs_state_is_the_one_the_code_applies(page: str, words: str, value: object) -> None:
    path = ROOT / page if page == "README.md" else ROOT / "docs" / page
    text = " ".join(path.read_text(encoding="utf-8").split())
    values = value if isinstance(value, tuple) else (value,)
    ways: list[list[str]] = [[]]
    for one in values:
        ways = [[*way, written] for way in ways for written in _written(one)]
    stated = [" ".join(words.split()).format(*way) for way in ways]
    assert any(sentence in text for sentence in stated), f"docs/{page} should say {stated[0]!r} (the code's)"


# -- docs/rules.md's readings -------------------------------------------------------------------


def _rule_settings() -> list[str]:
    """Each rule setting docs/rules.md writes in code: a preset with rule
    options (`terrace --candidates 4`), a preset alone, or rule options
    alone, which read as changes to the `terrace` preset the page is about."""
    flags = {f"--{name.replace('_', '-')}" for name in RULE_FIELDS} | {"--no-foundation-return"}
    found = []
    for code in _inline_code(ROOT / "docs" / "rules.md"):
        words = code.split()
        options = words[1:] if words[0] in PRESETS else words
        named = [word for word in options if word.startswith("--")]
        bare = options in (["--foundations"], ["--spaces"])  # (the option table names them)
        plain = not bare and not any(word.isupper() for word in options)  # (no placeholder)
        if (named and set(named) <= flags and plain) or (words[0] in PRESETS and len(words) == 1):
            found.append(code)
    return found


@pytest.mark.parametrize("setting", _rule_settings())
def test_every_rule_setting_rules_md_names_is_one_the_rules_take(setting: str) -> None:
    words = setting.split()
    args = ["--variant", *words] if words[0] in PRESETS else words
    context = all_commands()["deal"].make_context("deal", args)
    pop_rules(dict(context.params))  # (raises when the options do not go together)


# -- what "abandoned" means ----------------------------------------------------------------------


def test_the_words_for_abandoned_say_what_the_statistics_count() -> None:
    """A game left for a new one counts as abandoned until it is played
    again, not until it is won: resumed, it is in progress (`unfinished`).
    The stats command's help, the page's note and docs/api.md said 'until
    you resume and win it'."""
    from store_support import golden, play, start
    from terrace.cli.storage import stats
    from terrace.storage import MemoryStore

    store = MemoryStore()
    record = golden("terrace-won")
    game = start(store, record)
    play(store, game, record.moves[:2])
    start(store, golden("terrace-lost"))  # a new game: the first is left
    assert store.statistics()["overall"]["abandoned"] == 1
    play(store, store.get(game.id), record.moves[2:3])  # played again, not won
    block = store.statistics()["overall"]
    assert (block["abandoned"], block["unfinished"], block["won"]) == (0, 1, 0)
    page = (ROOT / "src" / "terrace" / "web" / "static" / "js" / "i18n.js").read_text(encoding="utf-8")
    words = [" ".join((stats.help or "").split()), (ROOT / "docs" / "api.md").read_text(encoding="utf-8"),
             " ".join((ROOT / "docs" / "storage.md").read_text(encoding="utf-8").split()), page]
    for text in words:
        assert not re.search(r"until (you resume and win|it is resumed and won|resumed and won)", text)
        assert not re.search(r"bis du es fortsetzt und gewinnst", text)
    assert "counts as abandoned until you play it again" in words[0]


# -- the Python examples --------------------------------------------------------------


def _python_blocks() -> list[tuple[str, int, str]]:
    """(page, number, code) for each ```python block of README.md and docs/,
    but those of docs/cluster.md (they start clusters with packages terrace
    does not install)."""
    found = []
    for page in PAGES:
        if page.name == "cluster.md":
            continue
        text = page.read_text(encoding="utf-8")
        for number, code in enumerate(re.findall(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)):
            found.append((page.name, number, code))
    return found


@pytest.mark.parametrize(("page", "number", "code"), _python_blocks(), ids=lambda v: str(v)[:20])
def test_every_python_example_runs_as_written(page: str, number: int, code: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader can paste each Python example and run it: every name it uses
    is imported or made there (its files go to a folder of the test's)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("TERRACE_DB", raising=False)
    code = code.replace('"/tmp/', f'"{tmp_path}/')
    exec(compile(code, f"{page} example {number + 1}", "exec"), {"__name__": "__doc_example__"})


def test_the_python_examples_are_found() -> None:
    assert {page for page, _, _ in _python_blocks()} >= {"README.md", "storage.md", "winnability.md"}


# -- README's soaks at full length ----------------------------------------------------------------


@pytest.mark.parametrize(("module", "name", "words"), [
    ("test_fuzz_restore.py", "BACKUP_SEEDS", "{} histories of backups restored in turn instead of {}"),
    ("test_solver.py", "SURVEYS_KILLED", "{} surveys killed mid-run instead of {}"),
    ("test_hint_converges.py", "HEURISTIC_HINTS", "{} undecided hints a deal in the hint soak"),
    ("test_hint_converges.py", "SOAK_DEALS", "{} deals of each preset in the hint soak instead of {}"),
])
def test_the_soaks_readme_names_run_as_long_as_it_says(module: str, name: str, words: str) -> None:
    """README says what `TERRACE_SLOW=1 make test` runs at full length: the
    counts are the soaks' own, read from their modules' source (they are set
    when the module is imported, from the environment of that process)."""
    source = (ROOT / "tests" / module).read_text(encoding="utf-8")
    pattern = rf'^{name} = (\d+) if os\.environ\.get\("TERRACE_SLOW"\) else (\d+)$'
    found = re.search(pattern, source, re.MULTILINE)
    assert found, f"{module} should set {name} from TERRACE_SLOW"
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    sentence = words.format(*(f"{int(group):,}" for group in found.groups()))
    assert "`TERRACE_SLOW=1 make test` also runs the soaks at full length" in readme
    assert sentence in readme, f"README should say {sentence!r}"


@pytest.mark.parametrize("decks", [1, 2, 8])
def test_with_the_longest_reserve_the_other_candidates_piles_stay_empty(decks: int) -> None:
    """rules.md, Setting up: with the longest reserve the rules allow, the
    pack holds one card more than there are piles, so when other candidates
    share the chosen rank the last piles emptied stay empty."""
    section = " ".join(_section(ROOT / "docs" / "rules.md", "## Setting up").split())
    assert "the pack holds just one card more than there are piles" in section
    from terrace.cards import rank_of
    from terrace.rules import Rules
    piles = 9
    rules = Rules(decks=decks, piles=piles, candidates=piles, reserve=52 * decks - piles - 1)
    seen = 0
    for number in range(60):
        start = Board.from_number(number, rules)
        tops = [pile[-1] for pile in start.tableau]
        assert len(start.stock) + len(start.waste) == 1
        for choice in range(1, piles + 1):
            board = start.copy()
            board.push(Move.parse(f"c{choice}"))
            rank = rank_of(tops[choice - 1])
            emptied = [i for i, card in enumerate(tops) if rank_of(card) == rank]
            assert [i for i, pile in enumerate(board.tableau) if not pile] == emptied[1:]
            assert len(board.stock) == 0 and sum(map(len, board.foundations)) == len(emptied)
            seen += len(emptied) > 1
    assert seen, "no deal had two candidates of one rank"


# -- the database's refusals, as the docs quote them -------------------------------------------


def _database_refusals_quoted() -> list[tuple[str, Any, str, str]]:
    """(page, reason as the web game sends it, language, the words the page
    quotes, "…" where it leaves the start out)."""
    from terrace.refusals import Reason, Refusal
    from terrace.web.i18n import WebRefusal

    def unusable(fault: Refusal) -> Reason:
        return Reason(WebRefusal.STORE_UNAVAILABLE,
                      problem=Reason(Refusal.DATABASE_UNUSABLE, name="games.sqlite", fault=Reason(fault)))

    def not_saved(refusal: Refusal, change: str, code: WebRefusal = WebRefusal.NOT_SAVED) -> Reason:
        return Reason(code, problem=Reason(refusal, change=change, name="games.sqlite"))

    full = not_saved(Refusal.WRITE_DISK_FULL, "move", WebRefusal.NOT_SAVED_DISK_FULL)
    return [
        ("storage.md", unusable(Refusal.FAULT_FILE_REPLACED), "en",
         "the database games.sqlite cannot be used: another program wrote over it while in use "
         "(a backup copied in?); stop Terrace and start it again to open it as it is now"),
        ("storage.md", not_saved(Refusal.WRITE_FILE_REPLACED, "create"), "en",
         "the new game was not saved: another program wrote over games.sqlite or put another file "
         "in its place while in use (a backup copied in?); stop Terrace and start it again to open "
         "it as it is now"),
        ("storage.md", not_saved(Refusal.WRITE_FILE_REPLACED, "move"), "en",
         "… another program wrote over games.sqlite or put another file in its place while in use "
         "(a backup copied in?); stop Terrace and start it again to open it as it is now"),
        ("storage.md", not_saved(Refusal.WRITE_FILE_MOVED, "move"), "en",
         "the move was not saved: games.sqlite or its log was moved, replaced or deleted while in use; "
         "put it back, or start Terrace again"),
        ("storage.md", not_saved(Refusal.WRITE_FILE_MOVED, "move"), "de",
         "… bitte die Datei zurücklegen oder Terrace neu starten."),
        ("api.md", unusable(Refusal.FAULT_DISK_FAILED), "de",
         "Die Datenbank ist gerade nicht benutzbar (games.sqlite: Die Festplatte meldet einen "
         "Ein-/Ausgabefehler)."),
        ("api.md", full, "en",
         "the move was not saved: the disk is full"),
        ("storage.md", Reason(Refusal.SAVED_MOVES_NUMBERED, number=1), "en",
         "its moves are not numbered 0, 1, 2 and on without a gap: move 1 is out of place"),
        ("api.md", full, "de",
         "Der Zug wurde nicht gespeichert: Die Festplatte ist voll."),
    ]


@pytest.mark.parametrize("page, reason, language, quoted", _database_refusals_quoted(),
                         ids=lambda value: getattr(value, "code", None) or None)
def test_the_database_refusals_the_docs_quote_are_the_words_the_code_says(
        page: str, reason: Any, language: str, quoted: str) -> None:
    """What a player reads when games.sqlite is replaced, moved, full or
    failing, as storage.md and api.md quote it, word for word (the
    written-over refusals of this session were checked by hand against a
    server: a later change of the words must change the docs too)."""
    prose = _prose_and_blocks(ROOT / "docs" / page)[0]
    assert f"\"{quoted}\"" in prose, f"{page} no longer quotes {quoted!r}"
    said = reason.text(language)
    if quoted.startswith("… "):
        assert said.endswith(quoted[2:]) and said != quoted[2:], said
    else:
        assert said == quoted, said


def test_the_warning_storage_md_quotes_for_an_index_dropped_by_hand_is_the_one_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """storage.md quotes the warning a store that may write logs when it
    makes a dropped index again (bb9d912); `terrace import` prints it as
    "warning: games.sqlite: the index events_by_game is missing, ..."."""
    path = tmp_path / "games.sqlite"
    open_store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP INDEX events_by_game")
    conn.close()
    with caplog.at_level("WARNING", logger="terrace.storage"):
        open_store(path).close()
    logged = [record.getMessage() for record in caplog.records]
    quoted = "the index events_by_game is missing, so reading games was slow; made again"
    assert logged == [f"games.sqlite: {quoted}"]
    assert f"(\"{quoted}\")" in _prose_and_blocks(ROOT / "docs" / "storage.md")[0]


# -- pinned versions ------------------------------------------------------------------------------


def test_the_versions_the_docs_pin_are_pyproject_s() -> None:
    """Each ``name==version`` a page writes (cluster.md's install command
    for the extra, the version PyPI lacks) is the pin of pyproject.toml,
    or terrace's own version: a pin moved there leaves no stale command."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {"terrace": project["version"]}
    extras = [requirement for group in project["optional-dependencies"].values() for requirement in group]
    for requirement in [*project["dependencies"], *extras]:
        name, _, version = requirement.partition("==")
        pins[name.strip().lower()] = version.strip()
    written = [(page.name, name.lower(), version) for page in PAGES
               for name, version in re.findall(r"\b([A-Za-z][\w.-]*)(?:\[\w+\])?==([\w.]+)",
                                               page.read_text(encoding="utf-8"))]
    assert any(name == "distributed" for _, name, _ in written)
    stale = [(page, name, version, pins.get(name)) for page, name, version in written
             if pins.get(name) != version]
    assert not stale, f"pins the docs write that pyproject.toml does not: {stale}"
