"""Every ``terrace`` command README.md and docs/*.md show runs as written
and ends with status 0 (``test_docs_truth`` only parses them; this runs
them): in a folder of its own, on a games database holding the games the
examples name, with the solver's budgets cut to a few seconds. ``play``
(a server) and ``survey`` (a process pool for hundreds of deals) are left
to their own tests; a command the prose names without its deal
(``terrace solve --json``) runs on deal 7."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from terrace.cli import all_commands, main
from terrace.cli.options import NEEDS_FLAG
from test_docs_truth import TERRACE_COMMANDS, _terrace_words

GOLDEN = Path(__file__).parent / "golden"

CAPS = {"--max-seconds": 2.0, "--total-seconds": 5.0, "--max-nodes": 200_000}
"""The most each budget of an example gets here (the docs give minutes)."""

RUN = [(page, command) for page, command in TERRACE_COMMANDS
       if _terrace_words(command)[0] not in ("play", "survey")]


def _runnable(words: list[str]) -> list[str]:
    """The example's words, its budgets capped and a deal added when the
    prose leaves it out (a budget only where it is taken: ``deal``'s only
    with ``--winnable``, :data:`~terrace.cli.options.NEEDS_FLAG`)."""
    words = list(words)
    for index, word in enumerate(words[:-1]):
        if word in CAPS:
            words[index + 1] = f"{min(float(words[index + 1]), CAPS[word]):g}"
    command = all_commands()[words[0]]
    deals = any(param.name == "deal_file" for param in command.params)
    if deals and not {"-n", "--deal-number", "--deal-file"} & set(words):
        words += ["-n", "7"]
    flag = NEEDS_FLAG.get(words[0], {}).get("max_seconds", (None, ""))[0]
    flagged = flag is None or bool(set(words) & {opt for param in command.params if param.name == flag
                                                 for opt in param.opts})
    takes_budget = any(param.name == "max_seconds" for param in command.params)
    if takes_budget and "--max-seconds" not in words and flagged:
        words += ["--max-seconds", f"{CAPS['--max-seconds']:g}"]
    return words


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to run in, its games database holding games ``abc`` and
    ``abd`` (the ids the docs write), and the backup the docs import."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TERRACE_DB", str(tmp_path / "games.sqlite"))
    runner = CliRunner()
    golden = [json.loads((GOLDEN / f"{name}.json").read_text()) for name in ("terrace-won", "terrace-lost")]
    (tmp_path / "golden.json").write_text(json.dumps(golden))
    scratch = str(tmp_path / "scratch.sqlite")
    assert runner.invoke(main, ["import", "--db", scratch, "golden.json"]).exit_code == 0
    records = json.loads(runner.invoke(main, ["export", "--all", "--db", scratch]).stdout)
    for record, game_id in zip(records, ("abc", "abd"), strict=True):
        record["saved"]["id"] = game_id
    for name in ("games.json", "backup.json"):
        (tmp_path / name).write_text(json.dumps(records))
    assert runner.invoke(main, ["import", "games.json"]).output == "imported 2 games\n"
    return tmp_path


def test_the_examples_are_found() -> None:
    assert len(RUN) > 25
    assert ("README.md", "terrace solve --deal-number 7 --json") in RUN


@pytest.mark.parametrize(("page", "command"), RUN)
def test_every_command_line_example_in_the_docs_runs(page: str, command: str, folder: Path) -> None:
    words = _runnable(_terrace_words(command))
    result = CliRunner().invoke(main, words)
    assert result.exit_code == 0, (page, command, words, result.output)
    if "--json" in words:
        json.loads(result.stdout)  # nothing but the JSON document on standard output
