"""The documentation keeps up with the code: every rule option is in
docs/rules.md, every route of the web app in docs/api.md, and every refusal
code has its English and German text (and every text renders)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import string
import subprocess
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.routing import Mount, Route

import terrace.web.i18n  # noqa: F401  (adds the web layer's refusal codes)
from terrace.cli import all_commands, main
from terrace.errors import TerraceError
from terrace.refusals import LANGUAGES, Param, Reason, Refusal, catalogues
from terrace.rules import RULE_OPTIONS, OptionKind, Rules
from terrace.variants import VARIANTS, get_rules
from terrace.web.app import create_app
from terrace.web.why import Why
from web_support import app_client

DOCS = Path(__file__).resolve().parent.parent / "docs"
ALL_CODES = [code for codes in catalogues() for code in codes]
WORDINGS = {code: wording for table in catalogues().values() for code, wording in table.items()}


# -- rule options -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(RULE_OPTIONS))
def test_rules_md_names_every_option(name: str) -> None:
    text = (DOCS / "rules.md").read_text()
    option = RULE_OPTIONS[name]
    assert f"`{name}`" in text
    flag = "--" + name.replace("_", "-")
    assert f"`{flag}" in text
    if option.kind is OptionKind.CHOICE:
        for choice in option.choices:
            assert f"`{choice}`" in text, choice


def test_rules_md_states_each_options_limits() -> None:
    """The option table gives the limits the rules apply (as ``range_text``)."""
    text = (DOCS / "rules.md").read_text()
    for option in RULE_OPTIONS.values():
        if option.kind is OptionKind.INT:
            row = next(line for line in text.splitlines() if line.startswith(f"| `--{option.name}"))
            assert option.range_text() in row, (option.name, row)


def test_rules_md_option_table_gives_standard_terraces_values() -> None:
    """The option table's last column, "standard Terrace", is the value of
    each option in the ``terrace`` preset (a number, a choice in code, yes
    or no): nothing held it, only the limits beside it."""
    text = (DOCS / "rules.md").read_text()
    terrace = get_rules("terrace")
    for option in RULE_OPTIONS.values():
        flag = "--" + option.name.replace("_", "-")
        row = next(line for line in text.splitlines() if line.startswith(f"| `{flag}"))
        value = getattr(terrace, option.name)
        written = ("yes" if value else "no") if isinstance(value, bool) else (
            f"`{value}`" if option.kind is OptionKind.CHOICE else str(value))
        assert row.rstrip(" |").rsplit("|", 1)[1].strip() == written, (option.name, row)


# -- routes -------------------------------------------------------------------------


def _routes() -> list[tuple[str, str]]:
    """(method, path) of every route, paths written as docs/api.md writes them."""
    found: list[tuple[str, str]] = []
    for route in create_app().routes:
        if isinstance(route, Mount):
            found.append(("GET", route.path + "/"))
        elif isinstance(route, Route):
            path = route.path.replace("{game_id}", "{id}")
            found += [(method, path) for method in sorted(route.methods or ()) if method != "HEAD"]
    return found


@pytest.mark.parametrize(("method", "path"), _routes())
def test_api_md_names_every_route(method: str, path: str) -> None:
    text = (DOCS / "api.md").read_text()
    pattern = re.escape(f"{method} {path}") + r"(?=[`?\s…,])"
    assert re.search(pattern, text), f"docs/api.md does not name {method} {path}"


def test_api_md_names_every_refusal_code() -> None:
    text = (DOCS / "api.md").read_text()
    missing = [code.value for code in ALL_CODES if f"`{code.value}`" not in text]
    assert not missing, f"docs/api.md does not list {missing}"


def test_api_md_why_section_names_every_answer_of_a_pressed_card() -> None:
    """The section of ``GET /api/games/{id}/why`` names every code of a
    pressed card (``terrace.web.why.Why``) and ``game-given-up``: it had
    left out ``card-stuck-space`` and ``foundation-card-stuck-space``."""
    text = (DOCS / "api.md").read_text()
    section = text.split("### `GET /api/games/{id}/why", 1)[1].split("\n### ", 1)[0]
    codes = [code.value for code in Why] + ["game-given-up"]
    missing = [code for code in codes if f"`{code}`" not in section]
    assert not missing, f"docs/api.md's why section does not name {missing}"


def test_api_md_hint_section_names_every_reason_for_no_move_and_every_face_down_answer() -> None:
    """The section of ``POST /api/games/{id}/hint`` names each ``why`` a
    hint without a move gives (``hint_line.WHY_NO_MOVE``) and each
    ``face_down`` a hint that needs no sample says (``advice.face_down``)."""
    from terrace.solver.advice import ALIKE, KNOWN, OPEN
    from terrace.solver.hint_line import WHY_NO_MOVE
    text = (DOCS / "api.md").read_text()
    section = text.split("### `POST /api/games/{id}/hint`", 1)[1].split("\n### ", 1)[0]
    missing = [code for code in (*WHY_NO_MOVE, OPEN, KNOWN, ALIKE) if f"`{code}`" not in section]
    assert not missing, f"docs/api.md's hint section does not name {missing}"


def _status_rows() -> dict[int, str]:
    """The rows of docs/api.md's table of statuses, by status."""
    rows = re.findall(r"^\| (\d{3}) \| (.*) \|$", (DOCS / "api.md").read_text(), re.MULTILINE)
    return {int(status): meaning for status, meaning in rows}


def test_api_md_status_table_names_each_code_under_its_status() -> None:
    """Every code answered with a status other than 400 or 422 is named in
    that status's row, and every code a row names is answered with it."""
    rows = _status_rows()
    statuses = {code.value: wording.status for code, wording in WORDINGS.items()}
    for code, status in statuses.items():
        if status not in (400, 422):
            assert f"`{code}`" in rows.get(status, ""), f"docs/api.md: the {status} row lacks {code}"
    for status, meaning in rows.items():
        for code in re.findall(r"`([a-z-]+)`", meaning):
            if code in statuses:
                assert statuses[code] == status, f"docs/api.md: {code} is not a {status}"


# -- refusal texts -------------------------------------------------------------------

_SAMPLES: dict[str, Param] = {
    "card": "TD", "top": "JS", "rank": "Q", "colour": "red", "place": "f3", "decks": 2,
    "choices": ("auto", "free", "waste"), "known": ("terrace", "wood"), "results": ("won", "lost"),
    "expected": ("after", "move"), "hosts": ("localhost", "127.0.0.1"),
    "given": ("piles 1",), "changed": ("piles",),
    "problem": Reason(Refusal.STOCK_EMPTY),
}


def _fields(template: str) -> set[str]:
    """The parameters a template takes (``colour_rank`` stands for two)."""
    fields = {field for _, field, _, _ in string.Formatter().parse(template) if field}
    if "colour_rank" in fields:
        fields = (fields - {"colour_rank"}) | {"colour", "rank"}
    return fields


@pytest.mark.parametrize("code", ALL_CODES, ids=str)
def test_every_refusal_has_english_and_german_text(code: StrEnum) -> None:
    wording = WORDINGS[code]
    assert wording.en.strip() and wording.de.strip()
    assert 400 <= wording.status < 600
    assert _fields(wording.en) == _fields(wording.de), "both languages take the same parameters"
    params: dict[str, Any] = {name: _SAMPLES.get(name, 7) for name in _fields(wording.en)}
    reason = Reason(code, **params)
    for language in LANGUAGES:
        text = reason.text(language)
        assert text and "{" not in text and "}" not in text
    if code.value != "refused":  # (the words of a layer without codes, passed on as they are)
        assert reason.text("de") != reason.text("en")
        assert not wording.en[0].isupper(), "English refusals start in lower case"
        # (German ones are sentences: "index muss eine Zahl ... sein" began in lower case,
        # where every other names its field in quotes, „step“ muss ...)
        if code.value in _SAID_IN_PARENTHESES:
            # (a statement inside another sentence's parentheses begins in lower case)
            assert wording.de[0].islower(), "said inside parentheses: lower case"
        else:
            assert wording.de[0].isupper() or wording.de[0] in "„{", "German refusals start as sentences"


_SAID_IN_PARENTHESES = {"verdict-why-folder", "verdict-why-no-file", "damage-header-short",
                        "damage-page-size", "damage-cut-short", "damage-pages-missing",
                        "damage-schema-number", "damage-tables-unreadable"}
"""The codes said only inside another German refusal's parentheses (why a
verdict cache cannot be used: '... lässt sich nicht benutzen (sein Ordner
... lässt sich nicht anlegen ...)'; what is damaged in a database: '...
ist beschädigt (kürzer als der Kopf einer SQLite-Datei) ...')."""


def test_codes_are_unique_across_layers() -> None:
    values = [code.value for code in ALL_CODES]
    assert len(values) == len(set(values))


def test_engine_raises_only_coded_errors() -> None:
    """No engine module raises one of its errors with plain words."""
    source = Path(__file__).resolve().parent.parent / "src" / "terrace"
    engine = ["actions", "board", "building", "cards", "deal", "errors", "moves", "position", "record",
              "refusals", "rules", "undo", "variants"]
    errors = "|".join(cls.__name__ for cls in _subclasses(TerraceError))
    plain = re.compile(rf"raise ({errors})\(\s*f?[\"']")
    for name in engine:
        for number, line in enumerate((source / f"{name}.py").read_text().splitlines(), 1):
            assert not plain.search(line), f"{name}.py:{number} raises an uncoded error: {line.strip()}"


def _subclasses(cls: type) -> list[type]:
    return [cls, *(sub for direct in cls.__subclasses__() for sub in _subclasses(direct))]


# -- the game JSON -------------------------------------------------------------------


def test_api_md_names_every_field_of_the_game_json() -> None:
    """Every key of a new game's answer and of a move's is in docs/api.md."""
    text = (DOCS / "api.md").read_text()
    with app_client() as client:
        created = client.post("/api/games", json={"deal_number": 7})
        moved = client.post(f"/api/games/{created.json()['id']}/moves", json={"move": "c1"})
    assert created.status_code == 201 and moved.status_code == 200
    keys = set(created.json()) | set(moved.json())
    missing = sorted(key for key in keys if f"`{key}`" not in text)
    assert not missing, f"docs/api.md does not name {missing}"
    game = moved.json()
    parts = {"state": game["state"], "counters": game["counters"], "foundations": game["foundations"][0],
             "sources": next(iter(game["sources"].values())), "motions": game["motions"][0],
             "choices": created.json()["choices"][0]}
    for field, part in parts.items():
        row = _game_json_row(text, field)
        unnamed = sorted(key for key in part if f"`{key}`" not in row and f'"{key}"' not in row)
        assert not unnamed, f"docs/api.md's row of the game JSON's {field} does not name {unnamed}"


def _game_json_row(text: str, field: str) -> str:
    """The row of api.md's table of the game JSON that describes ``field``."""
    rows = [line for line in text.splitlines() if line.startswith(f"| `{field}` |")]
    assert len(rows) == 1, field
    return rows[0]


def _listed_keys(heading: str, after: str) -> set[str]:
    """The keys api.md's section ``heading`` lists as ``{"a", "b", ...}``,
    the first such list after the words ``after``."""
    text = " ".join((DOCS / "api.md").read_text().split())
    section = text.split(f"### `{heading}", 1)[1].split(" ### ", 1)[0]
    braces = re.findall(r"\{(\"[^{}]*)\}", section.split(after, 1)[1])
    assert braces, heading
    return set(re.findall(r'"(\w+)"', braces[0]))


def test_the_answers_api_md_spells_out_hold_exactly_those_keys() -> None:
    """The answers whose keys api.md writes out whole (a preset of the
    variants, a warning, the recent games' entries, a pressed card's why, a
    move's check, the line, a time report, a hint: its "card" was left out)
    hold those keys and no others; checked by hand with curl, held here."""
    with app_client() as client:
        gid = client.post("/api/games", json={"deal_number": 7}).json()["id"]
        assert client.post(f"/api/games/{gid}/moves", json={"move": "c1"}).status_code == 200
        answers = {
            ("GET /api/variants", "rule options:"): client.get("/api/variants").json()["variants"][0],
            ("POST /api/games/{id}/warn", "Answers"): client.post(
                f"/api/games/{gid}/warn", json={"move": "s"}).json(),
            ("GET /api/games?recent=N", "each"): client.get(
                "/api/games", params={"recent": 1}).json()["games"][0],
            ("GET /api/games/{id}/why", "cannot move:"): client.get(
                f"/api/games/{gid}/why", params={"pile": "t1"}).json(),
            ("GET /api/games/{id}/check", "legal now?"): client.get(
                f"/api/games/{gid}/check", params={"move": "t2t5"}).json(),
            ("GET /api/games/{id}/line", "moves:"): client.get(f"/api/games/{gid}/line").json(),
            ("POST /api/games/{id}/time", "Answers"): client.post(
                f"/api/games/{gid}/time", json={"ms": 5}).json(),
        }
        hinted = client.post("/api/games", json={"deal_number": 11}).json()["id"]  # (7's terrace: dead)
        assert client.post(f"/api/games/{hinted}/moves", json={"move": "c1"}).status_code == 200
        hint = client.post(f"/api/games/{hinted}/hint", json={}).json()
    # (a fair hint adds what its samples found, while a card is hidden: the words after the list)
    sampled = {"samples", "wins", "undecided", "win_share", "estimate"}
    assert hint["move"] is not None and sampled <= set(hint)
    assert _listed_keys("POST /api/games/{id}/hint", "Answers") | sampled == set(hint), "the hint"
    # ("params" only with a reason whose words hold numbers: check's has, why's movable card not)
    assert "params" in answers[("GET /api/games/{id}/check", "legal now?")]
    for (heading, before), answer in answers.items():
        assert _listed_keys(heading, before) - {"params"} == set(answer) - {"params"}, heading


# -- the command line ----------------------------------------------------------------


def test_readme_shows_every_command() -> None:
    text = (DOCS.parent / "README.md").read_text()
    missing = [name for name in all_commands() if not re.search(rf"\bterrace {name}\b", text)]
    assert not missing, f"README.md shows no {missing}"


def test_readme_and_rules_md_list_the_commands_with_rule_options() -> None:
    taking = {name for name, command in all_commands().items()
              if any(param.name == "decks" for param in command.params)}
    for page in (DOCS.parent / "README.md", DOCS / "rules.md"):
        text = " ".join(page.read_text().split())
        listed = re.search(r"every (?:CLI )?command that deals \(([^)]*)\)", text)
        assert listed, f"{page.name} does not say which commands take the rule options"
        assert set(re.findall(r"`(\w+)`", listed.group(1))) == taking, page.name


def test_readme_command_line_examples_run() -> None:
    """The README's engine commands work as written (and play only legal moves)."""
    text = (DOCS.parent / "README.md").read_text()
    block = text.split("## The command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0] for line in block.splitlines() if line.strip()]
    assert len(lines) >= 5
    for line in lines:
        words = shlex.split(line)
        assert words[0] == "terrace"
        result = CliRunner().invoke(main, words[1:])
        assert result.exit_code == 0, (line, result.output)
        if "--json" in words:
            assert '"legal": true' in result.output, line


def test_readme_rule_override_example_shows_the_override() -> None:
    """The README's example of a rule overridden shows what the override
    changed: ``terrace deal --candidates 4`` printed the very deal string of
    the preset (a deal string depends only on the number of packs)."""
    text = (DOCS.parent / "README.md").read_text()
    block = text.split("## The command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0] for line in block.splitlines() if "rule can be overridden" in line]
    assert len(lines) == 1
    words = shlex.split(lines[0])[1:]
    overridden = CliRunner().invoke(main, words)
    plain = CliRunner().invoke(main, [word for word in words if word not in ("--candidates", "4")])
    assert overridden.exit_code == plain.exit_code == 0
    assert overridden.output != plain.output, lines[0]
    assert "c4" in overridden.output  # the fourth candidate is there to choose


def test_readme_first_win_example_wins_well_within_its_default_budget() -> None:
    """The README's ``--first-win`` example shows a win, not an ``unknown``:
    within a tenth of the positions its default 10 s hold on this machine
    (about 24 million quiet, 8 million busy). Admiral's Patience deal 6 took
    20 million positions, 8.4 s of the 10 (``unknown`` on a busy machine)."""
    text = (DOCS.parent / "README.md").read_text()
    block = text.split("## The solver", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0] for line in block.splitlines() if "--first-win" in line]
    assert len(lines) == 1
    words = shlex.split(lines[0])
    result = CliRunner().invoke(main, [*words[1:], "--max-nodes", "1000000", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["result"] == "won", (lines[0], report["nodes"], report["reason"])
    verdicts = [candidate["result"] for candidate in report["candidates"]]
    assert verdicts.count("won") == 1 and "unknown" in verdicts, verdicts  # it stopped at the first win


def test_readme_exit_status_table_is_the_statuses_the_commands_end_with(tmp_path: Path) -> None:
    """README gave the exit statuses as one paragraph of nested parentheses
    (which status a `replay --json` with an illegal move ends with was in
    the middle of status 1's); they are a table now, each row held here to
    what the commands do and to the statuses the code defines."""
    from terrace.cli.errors import HUNG_UP, TERMINATED
    from terrace.cli.stops import INTERRUPTED

    text = (DOCS.parent / "README.md").read_text()
    table = text.split("Exit status:", 1)[1].split("\n\n", 2)[1]
    rows = dict(re.findall(r"^\| (\d+) \| (.*) \|$", table, re.MULTILINE))
    assert list(rows) == ["0", "1", "2", "130", "143", "129"]
    assert rows[str(INTERRUPTED)].startswith("Ctrl+C stopped")
    assert rows[str(TERMINATED)].startswith("SIGTERM stopped")
    assert rows[str(HUNG_UP)].startswith("SIGHUP stopped")
    ends = {
        "0": [["replay", "-n", "7", "--moves", "c1 t9t1", "--json"],
              ["solve", "-n", "7", "--max-nodes", "1000"]],  # unknown
        "1": [["replay", "-n", "7", "--moves", "c1 t9t1"], ["show", "-n", "7", "--moves", "c1 t9t1"],
              ["hint", "-n", "7", "--moves", "c1", "--line", "c1 zz"]],
        "2": [["deal", "-n", "x"], ["show", "--deal-file", str(tmp_path / "missing")],
              ["import", "--db", ":memory:", str(tmp_path / "missing.json")]],
    }
    words = {"0": ["`solve` for `lost` or `unknown`", "`replay --json` with an illegal move"],
             "1": ["`replay`, `show` or `hint` with an illegal move", "`hint` with a word of `--line`"],
             "2": ["a usage error", "an input file that cannot be read"]}
    for status, commands in ends.items():
        assert all(said in rows[status] for said in words[status]), rows[status]
        for command in commands:
            assert CliRunner().invoke(main, command).exit_code == int(status), command


def test_readme_says_which_hint_prints_a_line_to_give_back() -> None:
    """README said "`terrace hint` prints its line, and `--line` gives it
    back", but its own example (`terrace hint --deal-number 7 --moves "c2"`)
    is the fair hint, which prints a move and its sampled wins, no line;
    the peeking hint prints the line."""
    text = " ".join((DOCS.parent / "README.md").read_text().split())
    assert "`terrace hint --peek` prints its line, and `--line` gives it back" in text
    assert "The fair hint, `terrace hint`'s default, samples the stock instead and has no line" in text
    # (it said "until nothing is face down"; a proved line comes with one card left, and says so)
    assert "has no line to give until the player knows every face-down card" in text
    from terrace.solver.advice import ALIKE, KNOWN, describe
    for hidden in (None, KNOWN, ALIKE):
        words = describe({"move": "wf", "kind": "winnable", "fair": True, "line": ["wf"]}, face_down=hidden)
        assert f'"{words.split(" ", 1)[1].split(" move ", 1)[1]}"' in text, words
    fair = CliRunner().invoke(main, ["hint", "-n", "7", "--moves", "c2", "--max-seconds", "5",
                                     "--samples", "2"])
    peek = CliRunner().invoke(main, ["hint", "-n", "7", "--moves", "c2", "--peek", "--max-seconds", "5"])
    assert fair.exit_code == peek.exit_code == 0, (fair.output, peek.output)
    assert "--line" not in fair.output and "sampled" in fair.output
    assert "line (--line continues it): " in peek.output


def test_winnability_md_spells_out_the_keys_of_hint_json() -> None:
    """`terrace hint --json` was described nowhere but as "the fair player's
    move there" (winnability.md names its `line` only in passing), so a
    script had to guess its keys: winnability.md lists them, here held to
    the fair, peeking and needs-no-sample answers."""
    text = " ".join((DOCS / "winnability.md").read_text().split())
    said = text.split("`hint --json` prints one object:", 1)[1].split("```", 1)[0]
    head, rest = said.split(" A fair hint", 1)
    sampled_words, proved_words = rest.split(" A peeking hint", 1)
    common, sampled, proved = (set(re.findall(r"`([a-z_]+)`", words))  # (not `game-over` nor `--peek`)
                               for words in (head, sampled_words, proved_words.split(" instead.", 1)[0]))
    draws = " ".join(["s"] * 82)
    answers = {
        "sampled": ["hint", "-n", "7", "--moves", "c2", "--samples", "2"],
        "peek": ["hint", "-n", "7", "--moves", "c2", "--peek"],
        "nothing hidden": ["hint", "-v", "falling-star", "-n", "4", "--moves", draws],
    }
    for name, command in answers.items():
        result = CliRunner().invoke(main, [*command, "--max-seconds", "5", "--json"])
        assert result.exit_code == 0, result.output
        keys = set(json.loads(result.output))
        extra = sampled if name == "sampled" else proved
        assert keys == common | extra, (name, sorted(keys), sorted(common | extra))


def test_readme_says_where_make_play_puts_the_command_and_how_to_change_its_port() -> None:
    """README's commands say `terrace ...` and its Python example needs the
    installed package, but it never said where `make play` puts them: after
    `make play`, `terrace variants` in a new shell was "command not found".
    And port 8000 taken, play says "choose another port with --port", which
    `make play` does not pass on: its PORT variable does."""
    text = " ".join((DOCS.parent / "README.md").read_text().split())
    makefile = (DOCS.parent / "Makefile").read_text()
    scripts = (DOCS.parent / "pyproject.toml").read_text().split("[project.scripts]", 1)[1]
    venv = re.search(r"^VENV\s*:?=\s*(\S+)$", makefile, re.MULTILINE)
    assert venv is not None and re.search(r"^BIN\s*:?=\s*\$\(VENV\)/bin$", makefile, re.MULTILINE)
    assert re.search(r"^terrace = ", scripts.strip(), re.MULTILINE)
    assert f"its command is `{venv.group(1)}/bin/terrace` and its Python `{venv.group(1)}/bin/python`" in text
    assert f"`. {venv.group(1)}/bin/activate`" in text
    port = re.search(r"^PORT\s*[:?]?=\s*(\d+)$", makefile, re.MULTILINE)
    assert port is not None and "--port $(PORT)" in makefile
    assert f"`make play PORT=8001` serves on another port when {port.group(1)} is taken" in text


def _make_play_command(*assignments: str, **environment: str) -> list[str]:
    """The words of the ``terrace play`` line ``make -n play`` would run."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make here")
    env = {name: value for name, value in os.environ.items() if name not in ("HOST", "PORT", "MAKEFLAGS")}
    dry = subprocess.run([make, "-n", "-C", str(DOCS.parent), "play", *assignments],
                         env={**env, **environment}, capture_output=True, text=True, check=True)
    lines = [line for line in dry.stdout.splitlines() if "/terrace play " in line]
    assert len(lines) == 1, dry.stdout
    return shlex.split(lines[0])


def test_make_play_serves_where_the_readme_says_whatever_the_environment_holds() -> None:
    """README: `make play` starts the game on 127.0.0.1 (port 8000, another
    with `make play PORT=8001`). The Makefile took HOST and PORT from the
    environment too, where other programs keep theirs: with tcsh's HOST (the
    machine's name) or a web tool's HOST=0.0.0.0 and PORT=3000 exported,
    `make play` ran `terrace play --host 0.0.0.0 --port 3000`, which play
    refuses ("--host 0.0.0.0 lets other machines ... reach the game"), a
    host the player never gave."""
    readme = " ".join((DOCS.parent / "README.md").read_text().split())
    host = re.search(r"make play # makes \.venv, installs, starts the web game on (\S+) ", readme)
    port = re.search(r"`make play PORT=8001` serves on another port when (\d+) is taken", readme)
    assert host and port
    plain = ["--host", host.group(1), "--port", port.group(1)]
    for environment in ({}, {"HOST": "0.0.0.0", "PORT": "3000"}, {"HOST": "workstation.example"}):
        words = _make_play_command(**environment)
        assert words[words.index("--host"):] == plain, environment
    words = _make_play_command("PORT=8001", "HOST=::1", HOST="0.0.0.0", PORT="3000")
    assert words[words.index("--host"):] == ["--host", "::1", "--port", "8001"]


def test_readme_says_when_the_fair_hint_follows_a_proved_line() -> None:
    """README said the fair hint follows a proved line "once every card has
    been seen (the stock run out)"; since bbf7b00 it does so also with one
    card alone face down, the cards in sight saying which (Falling Star deal 4
    after 82 draws: the proved answer, no samples), as api.md says."""
    text = " ".join((DOCS.parent / "README.md").read_text().split())
    assert ("once the player knows where every card lies (the stock run out, or one card alone, "
            "or only cards the rules cannot tell apart, still face down: the cards in sight say "
            "which; in alternate colours a red five is a red five), it follows "
            "a proved winning line") in text
    draws = " ".join(["s"] * 82)
    result = CliRunner().invoke(main, ["hint", "-v", "falling-star", "-n", "4", "--moves", draws,
                                       "--max-seconds", "5", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["fair"] is True and "samples" not in report, report


# -- the presets table ----------------------------------------------------------------


def _preset_row(rules: Rules) -> list[str]:
    """A row of the presets table of docs/rules.md as the rules say it should read."""
    base = f"pick 1 of {rules.candidates}" if rules.picks_base else "turned"
    build = "in suit" if rules.in_suit else "alternate"
    if rules.decks != 2:
        build += f" ({rules.foundation_count})"
    other = ["foundation return"] if rules.foundation_return else []
    if rules.redeals:
        other.append(f"{rules.redeals} redeals")
    return [str(rules.decks), str(rules.reserve), str(rules.piles), base, build, rules.spaces.value,
            ", ".join(other)]


def test_rules_md_presets_table_matches_the_variants() -> None:
    """Each preset's row in docs/rules.md states the options its record in
    terrace.variants plays, and names its other names."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    table = text.split("## The presets", 1)[1].split("Which reading each preset follows", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    found = {}
    for line in rows:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        names = re.findall(r"`([^`]+)`", cells[0])
        found[names[0]] = (names[1:], cells[1:])
    assert list(found) == [v.name for v in VARIANTS]
    for variant in VARIANTS:
        aliases, cells = found[variant.name]
        assert aliases == list(variant.alias_names), variant.name
        assert cells == _preset_row(variant.rules), variant.name


def test_make_takes_its_python_from_the_command_line_and_names_one_too_old(tmp_path: Path) -> None:
    """The Makefile read PYTHON from the environment: with another project's
    PYTHON=python2 exported, `make play` ran `python2 -m venv`, which failed,
    and said "Python's venv module is missing: install python3-venv", a
    package the machine had. Only make's command line sets it now, and a
    Python older than the README's 3.11 is named as such."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make here")
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHON", "MAKEFLAGS")}

    def recipe(*assignments: str, **environment: str) -> str:
        dry = subprocess.run([make, "-n", "-B", "-C", str(DOCS.parent), ".venv/bin/python", *assignments],
                             env={**env, **environment}, capture_output=True, text=True, check=True)
        return dry.stdout

    assert "python2" not in recipe(PYTHON="python2")
    assert "python3.12 -m venv" in recipe("PYTHON=python3.12", PYTHON="python2")
    readme = " ".join((DOCS.parent / "README.md").read_text().split())
    oldest = re.search(r"Needs Python (\d+)\.(\d+) or newer", readme)
    assert oldest is not None
    makefile = (DOCS.parent / "Makefile").read_text()
    assert f"sys.version_info < ({oldest.group(1)}, {oldest.group(2)})" in makefile
    old_python = tmp_path / "python2"
    old_python.write_text("#!/bin/sh\nexit 1\n")  # what python2 answers the check: sys.exit(True)
    old_python.chmod(0o755)
    shutil.copy(DOCS.parent / "Makefile", tmp_path)
    made = subprocess.run([make, "-C", str(tmp_path), ".venv/bin/python", f"PYTHON={old_python}"],
                          env=env, capture_output=True, text=True)
    assert made.returncode != 0
    assert f"Terrace needs Python {oldest.group(1)}.{oldest.group(2)} or newer; '{old_python}' is not one" \
        in made.stdout
    assert "python3-venv" not in made.stdout + made.stderr
    assert not (tmp_path / ".venv").exists()
