"""One spelling of every fact at every entry point: a rule's value, a
number, a name, taken (or refused, in the same words) alike by the engine,
a game record, the web API and the command line."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from web_support import app_client

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.board import Board
from terrace.cli import main
from terrace.errors import TerraceError
from terrace.record import GameRecord
from terrace.rules import Rules
from terrace.variants import get_rules

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

Taken = Callable[[str, Any], "dict[str, Any] | str"]
"""An entry point given one rule option's value: the rules it played by
(``Rules.to_dict()``), or the words of its refusal."""


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with app_client() as test_client:
        yield test_client


def _engine(option: str, value: Any) -> dict[str, Any] | str:
    try:
        return Rules.from_dict({option: value}).to_dict()
    except TerraceError as error:
        return str(error)


def _record(option: str, value: Any) -> dict[str, Any] | str:
    data = GameRecord.from_board(Board.from_number(5, get_rules("terrace"))).to_dict()
    data["rules"][option] = value
    try:
        return GameRecord.from_dict(data).rules.to_dict()
    except TerraceError as error:
        return str(error)


def _api(client: TestClient) -> Taken:
    def taken(option: str, value: Any) -> dict[str, Any] | str:
        response = client.post("/api/games", json={"options": {option: value}, "deal_number": 5})
        if response.status_code == 201:
            rules: dict[str, Any] = response.json()["options"]
            return rules
        assert response.status_code == 400, response.text
        return str(response.json()["error"])
    return taken


def _flag(option: str) -> str:
    return f"--{option.replace('_', '-')}"


def _cli(option: str, value: Any) -> dict[str, Any] | str:
    """``terrace deal`` with the option: the rules its rules line gives."""
    result = CliRunner().invoke(main, ["deal", "-n", "5", _flag(option), str(value)])
    if result.exit_code == 0:
        words = result.stdout.splitlines()[0].split()
        assert words[:4] == ["#", "rules:", "--variant", "terrace"], words
        pairs = zip(words[4::2], words[5::2], strict=True)
        given = {flag[2:].replace("-", "_"): int(text) if text.isdigit() else text for flag, text in pairs}
        return get_rules("terrace", **given).to_dict()
    assert result.exit_code == 2, result.output
    return result.output.rsplit(f"'{_flag(option)}': ", 1)[-1].strip()


def _deal_file(tmp_path: Path) -> Taken:
    """A deal file whose rules line gives the option: played (by the
    rules it gives: the same option given as ``read`` says on the command
    line must agree with it), or refused."""
    def taken(option: str, value: Any) -> dict[str, Any] | str:
        path = tmp_path / "deal.txt"
        deal = Board.from_number(5, get_rules("terrace")).deal
        assert deal is not None
        path.write_text(f"# rules: --variant terrace {_flag(option)} {value}\n{deal.text()}\n")
        engine = _engine(option, value)
        read = engine if isinstance(engine, dict) else None
        agree = [] if read is None else [_flag(option), str(read[option])]
        result = CliRunner().invoke(main, ["replay", "--deal-file", str(path), *agree])
        if result.exit_code == 0:
            assert read is not None
            return read
        assert result.exit_code == 2, result.output
        return result.output.rsplit(": ", 1)[-1].strip()
    return taken


@pytest.mark.parametrize(("value", "read"), [
    ("free", "free"), ("Free", "free"), ("FREE", "free"), (" waste ", "waste"), ("WaStE", "waste"),
    ("frei", None), ("fr ee", None), ("ｆｒｅｅ", None), ("", None),
])
def test_a_rule_choice_is_read_alike_by_the_engine_a_record_the_api_and_the_command_line(
        client: TestClient, tmp_path: Path, value: str, read: str | None) -> None:
    entries: dict[str, Taken] = {"engine": _engine, "record": _record, "api": _api(client), "cli": _cli}
    if value.strip() == value and value and " " not in value:  # (a rules line is split at spaces)
        entries["deal file"] = _deal_file(tmp_path)
    found = {name: entry("spaces", value) for name, entry in entries.items()}
    if read is None:
        words = f"spaces must be 'auto', 'free' or 'waste', not {value!r}"
        assert found == dict.fromkeys(entries, words)
    else:
        assert found == dict.fromkeys(entries, get_rules("terrace", spaces=read).to_dict())
