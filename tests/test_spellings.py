"""One spelling of every fact at every entry point: a rule's value, a
number, a name, taken (or refused, in the same words) alike by the engine,
a game record, the web API and the command line."""

from __future__ import annotations

import contextlib
import json
import random
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from web_support import app_client

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.board import Board
from terrace.cli import main
from terrace.cli.options import WholeNumber, rules_line
from terrace.errors import TerraceError
from terrace.record import GameRecord
from terrace.refusals import Reason, Refusal
from terrace.rules import RULE_OPTIONS, OptionKind, Rules
from terrace.solver.cluster import MAX_WORKERS, parse_scheduler
from terrace.solver.fair import SETTING_LIMITS
from terrace.solver.survey import check_range, parse_range
from terrace.storage.transfer import export_record, read_games
from terrace.variants import TITLES, VARIANTS, get_rules, rules_label
from terrace.web.why import PILE
from terrace.whole import MAX_DIGITS

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
    """A deal file whose rules line gives the option: played, with the
    option also given on the command line as the engine reads it (a
    usage error unless the line gives the same rules), or refused."""
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
    """`--spaces FREE` played while a request's, a record's or a deal
    file's "Free" was refused, and the command line refused "frei" in
    click's words: one reader, one value or one refusal everywhere."""
    entries: dict[str, Taken] = {"engine": _engine, "record": _record, "api": _api(client), "cli": _cli}
    if value.strip() == value and value and " " not in value:  # (a rules line is split at spaces)
        entries["deal file"] = _deal_file(tmp_path)
    found = {name: entry("spaces", value) for name, entry in entries.items()}
    if read is None:
        words = f"spaces must be 'auto', 'free' or 'waste', not {value!r}"
        assert found == dict.fromkeys(entries, words)
    else:
        assert found == dict.fromkeys(entries, get_rules("terrace", spaces=read).to_dict())


NUMBERS = [
    ("3", 3), ("+3", 3), (" 3", 3), ("3 ", 3), ("\t3", 3), ("003", 3), ("-0", 0),
    ("-3", None), ("1e3", None), ("0x3", None), ("1_0", None), ("٣", None), ("３", None), ("nan", None),
    ("inf", None), ("3.0", None), ("", None), ("+", None), ("++3", None), ("3 3", None), ("3\n", None),
    ("9" * 25, None),
]
"""Spellings of a whole number, and the number each writes (None: none
the command line or the web API takes)."""


@pytest.fixture(scope="module")
def played(client: TestClient) -> str:
    """A game of three moves (its id)."""
    game = client.post("/api/games", json={"deal_number": 5}).json()
    for text in ("c1", "s", "s"):
        assert client.post(f"/api/games/{game['id']}/moves", json={"move": text}).status_code == 200
    return str(game["id"])


@pytest.mark.parametrize(("text", "number"), NUMBERS)
def test_a_number_is_read_alike_by_the_command_line_and_the_web_api(
        client: TestClient, played: str, text: str, number: int | None) -> None:
    """`terrace deal -n +3` dealt deal 3 where `?step=+3` was refused (and
    a query's `?step=+3`, which is " 3", too): one reader serves both."""
    dealt = CliRunner().invoke(main, ["deal", "-n", text])
    step = client.get(f"/api/games/{played}/position", params={"step": text})
    recent = client.get("/api/games", params={"recent": text})
    if "-" not in text:  # (a survey's --deals, whose '-' joins two numbers: --deals +3 was refused)
        try:
            surveyed: tuple[int, int] | None = parse_range(text)
            check_range(*parse_range(text))
        except ValueError:
            surveyed = None
        assert surveyed == (None if number is None else (number, number))
    try:  # (a survey's workers, by --jobs or --scheduler local:N)
        jobs: int | None = WholeNumber(1, MAX_WORKERS).convert(text, None, None)
    except click.BadParameter:
        jobs = None
    try:
        local: int | str | None = parse_scheduler(f"local:{text}")[1]
    except ValueError:
        local = None
    assert jobs == local or text.endswith("\n")  # (--scheduler's whole text has its line's end cut first)
    if number is None:
        assert (dealt.exit_code, step.status_code, recent.status_code) == (2, 400, 400), dealt.output
        assert (step.json()["code"], recent.json()["code"]) == ("step-range", "recent-range")
    else:
        assert dealt.output == CliRunner().invoke(main, ["deal", "-n", str(number)]).output
        assert step.status_code == 200 and step.json()["step"] == number
        assert recent.status_code == (200 if number else 400)


def test_a_query_s_plus_is_a_space_and_the_number_after_it_is_read(client: TestClient, played: str) -> None:
    assert client.get(f"/api/games/{played}/position?step=+3").json()["step"] == 3


@pytest.mark.parametrize(("flag", "field", "value"), [
    ("--deal-number", "deal_number", -1), ("--deal-number", "deal_number", 2**64),
    ("--deal-number", "deal_number", "abc"), ("--deal-number", "deal_number", "1e3"),
    ("--piles", "piles", "x"), ("--piles", "piles", 21), ("--reserve", "reserve", 200),
])
def test_a_number_out_of_its_range_or_no_number_is_refused_in_the_same_words(
        client: TestClient, flag: str, field: str, value: int | str) -> None:
    """`-n 2**64` said "... is not in the range 0 to 9223372036854775807",
    a request "deal numbers run from 0 to 9223372036854775807, not ...";
    `--piles x` "'x' is not a whole number", a request "piles must be a
    whole number, not 'x'"."""
    body = {field: value} if field == "deal_number" else {"options": {field: value}}
    refused = client.post("/api/games", json=body)
    assert refused.status_code == 400
    said = CliRunner().invoke(main, ["deal", "-n", "1", flag, str(value)] if field != "deal_number"
                              else ["deal", flag, str(value)])
    assert said.exit_code == 2
    assert said.output.rstrip("\n").endswith(f"': {refused.json()['error']}"), said.output


VARIANT_NAMES = [
    ("terrace", "terrace"), ("Queen of Italy", "terrace"), (" QUEEN_OF_ITALY ", "terrace"),
    ("Signora", "terrace"), ("General’s Patience", "generals-patience"),
    ("generals patience", "generals-patience"),
    ("Admiral's-Patience", "admirals-patience"), ("ｔｅｒｒａｃｅ", None), ("Woods", None), ("", None),
]
"""Names of variants, and the preset each names (None: none)."""


@pytest.mark.parametrize(("name", "preset"), VARIANT_NAMES)
def test_a_variant_s_name_is_read_alike_everywhere(client: TestClient, name: str, preset: str | None) -> None:
    """The command line, a new game's and the rules page's request, a
    record and the statistics' --variant take a name or refuse it alike."""
    record = GameRecord.from_board(Board.from_number(5, get_rules("terrace"))).to_dict()
    record["variant"] = name
    try:
        recorded: str = GameRecord.from_dict(record).variant
    except TerraceError as error:
        recorded = str(error)
    created = client.post("/api/games", json={"variant": name, "deal_number": 5})
    named = client.get("/api/rules", params={"variant": name})
    dealt = CliRunner().invoke(main, ["deal", "-n", "5", "-v", name])
    counted = CliRunner().invoke(main, ["stats", "--db", ":memory:", "-v", name])
    if preset is None:
        words = recorded
        assert words.startswith(f"unknown variant {name!r}")
        assert created.json()["error"] == named.json()["error"] == words
        assert dealt.exit_code == counted.exit_code == 2
        assert dealt.output.rstrip().endswith(words) and counted.output.rstrip().endswith(words)
    else:
        assert recorded == created.json()["variant"] == preset
        assert named.json()["title"] == TITLES[preset]
        assert dealt.output == CliRunner().invoke(main, ["deal", "-n", "5", "-v", preset]).output
        assert counted.exit_code == 0 and TITLES[preset] in counted.output


MOVE_SPELLINGS = [
    ("c2", "c2"), ("C2", "c2"), (" c2 ", "c2"), ("c2\t", "c2"), (" c2" + " " * 20, "c2"),
    ("c02", None), ("c１", None), ("ｃ2", None), ("c2\u00a0", None), ("c0", None), ("c+2", None),
    ("c" + "9" * 20, None), ("x" * 17, None), ("", None), ("c4", None),
]
"""Spellings of a move on deal 5 of Terrace (three candidates), and the
move each is (None: refused)."""


@pytest.mark.parametrize(("text", "move"), MOVE_SPELLINGS)
def test_a_move_is_read_alike_by_the_api_a_record_and_the_command_line(
        client: TestClient, text: str, move: str | None) -> None:
    """A move padded past 16 characters was refused by the API alone
    ("move must be a move in the notation", move-not-notation), which said
    so too of an overlong or empty move that --moves and a record refused
    in the notation's words ("... is not a move: write e.g. c1, s, ...")."""
    game = client.post("/api/games", json={"deal_number": 5}).json()
    checked = client.get(f"/api/games/{game['id']}/check", params={"move": text}).json()
    played = client.post(f"/api/games/{game['id']}/moves", json={"move": text})
    record = GameRecord.from_board(Board.from_number(5, get_rules("terrace"))).to_dict()
    record.update(moves=[text], result="playing")
    try:
        recorded = GameRecord.from_dict(record).moves[0]
    except TerraceError as error:
        recorded = str(error)
    replayed = None
    if text.strip():  # (--moves of blanks alone is no move at all)
        replayed = CliRunner().invoke(main, ["replay", "-n", "5", "--json", "--moves", text])
    if move is None:
        words = checked["reason"]
        assert played.status_code in (400, 422) and played.json()["error"] == words
        assert recorded.endswith(f": {words}")
        if replayed is not None:
            said = json.loads(replayed.stdout)["reason"]
            assert said == words or said == f"{move or text.strip().lower()}: {words}", said
    else:
        assert checked["move"] == played.json()["last_move"] == recorded == move
        if replayed is not None:
            assert json.loads(replayed.stdout)["moves_played"] == 1


def _shouted(rules: dict[str, Any]) -> dict[str, Any]:
    """``rules`` with each choice written as a person may type it."""
    return {name: value.upper() if isinstance(value, str) else value for name, value in rules.items()}


def _round_trip_cases() -> list[tuple[str, Rules]]:
    """Each preset, and custom rules drawn from every option's range."""
    rng = random.Random(66)
    cases = [(variant.name, variant.rules) for variant in VARIANTS]
    while len(cases) < len(VARIANTS) + 8:
        variant = rng.choice(VARIANTS)
        changes = {name: rng.choice(option.choices) if option.kind is OptionKind.CHOICE
                   else rng.random() < 0.5 if option.kind is OptionKind.BOOL
                   else rng.randint(option.smallest(), min(option.largest(), 24))
                   for name, option in RULE_OPTIONS.items() if rng.random() < 0.5}
        with contextlib.suppress(TerraceError):
            cases.append((variant.name, get_rules(variant.name, **changes)))
    return cases


@pytest.mark.parametrize(("variant", "rules"), _round_trip_cases())
def test_rules_come_back_spelt_alike_from_a_deal_file_a_record_s_import_and_export_and_the_api(
        client: TestClient, tmp_path: Path, variant: str, rules: Rules) -> None:
    """The rules given (their choices in capitals: a request and a record
    took only lower case) come back the same from a deal file's rules
    line, a record imported and exported, and a new game's state, no
    option lost or taken from a preset."""
    exact = rules.to_dict()
    line = rules_line(variant, rules)
    deal = Board.from_number(9, rules).deal
    assert deal is not None
    if line is not None:  # (read from a file shouted, and from the command line as written: the same rules)
        words = line.split()
        shouted = [word.upper() if before in ("--variant", "--foundations", "--spaces") else word
                   for before, word in zip(["", *words], words, strict=False)]
        path = tmp_path / "deal.txt"
        path.write_text(" ".join(shouted) + "\n" + deal.text() + "\n")
        played = CliRunner().invoke(main, ["replay", "--deal-file", str(path), *words[2:]])
        assert played.exit_code == 0, played.output
    record = GameRecord.from_board(Board.from_number(9, rules), variant).to_dict()
    record["rules"] = _shouted(exact)
    exported = export_record(read_games(json.dumps(record))[0])
    assert (exported["variant"], exported["rules"]) == (variant, exact)
    created = client.post("/api/games", json={"variant": variant.upper(), "options": _shouted(exact),
                                             "deal_number": 9})
    assert created.status_code == 201, created.text
    state = client.get(f"/api/games/{created.json()['id']}").json()
    said = (state["variant"], state["options"], state["stats_key"])
    assert said == (variant, exact, rules_label(variant, rules))


SAMPLES = SETTING_LIMITS["samples"]


@pytest.mark.parametrize(("args", "reason"), [
    (["--seed", "x"], Reason(Refusal.NUMBER_NOT_WHOLE, text="x")),
    (["--seed", "9" * (MAX_DIGITS + 1)], Reason(Refusal.NUMBER_TOO_LONG, text="9" * (MAX_DIGITS + 1),
                                                 most=MAX_DIGITS)),
    (["--seed", "-1"], Reason(Refusal.NUMBER_TOO_SMALL, value=-1, low=0)),
    (["--samples", "0"], Reason(Refusal.NUMBER_RANGE, value=0, low=SAMPLES[0], high=SAMPLES[1])),
])
def test_the_command_line_s_own_numbers_are_refused_in_the_table_s_words(
        args: list[str], reason: Reason) -> None:
    """A seed or a sample count, which no request takes, is refused in
    words of the one table of refusals (English and German), as every
    other number is; they were written into the command line's code."""
    said = CliRunner().invoke(main, ["hint", "-n", "1", "--fair", *args])
    assert said.exit_code == 2 and said.output.rstrip().endswith(f"'{args[0]}': {reason}"), said.output
    assert reason.text("de") != str(reason)


@pytest.mark.parametrize(("pile", "named"), [
    ("t1", "t1"), ("T1", "t1"), (" t1 ", "t1"), ("Reserve", "reserve"), ("F1", "f1"),
    ("t01", None), ("T99", None), ("w", None), ("ｔ1", None),
])
def test_a_pile_is_named_in_any_case_as_the_notation_reads_its_places(
        client: TestClient, played: str, pile: str, named: str | None) -> None:
    """`?pile=T1` was "no pile 'T1'" where the move T1F is t1f."""
    answer = client.get(f"/api/games/{played}/why", params={"pile": pile})
    if named is None:
        said = pile.lower() if PILE.fullmatch(pile.lower()) else pile  # (one the game lacks: the page name)
        assert answer.status_code == 400 and answer.json()["error"].startswith(f"there is no pile {said!r}")
    else:
        assert answer.status_code == 200 and answer.json()["pile"] == named
