"""The same bad input is refused alike by the library, the command line and
the web API: a move text (the same words and, where there is one, the same
code), and rule options (the same words and code; the command line says
them in one line with status 2). A refusal changes no game."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from terrace.board import Board
from terrace.cli import main
from terrace.errors import TerraceError
from terrace.moves import Move, move_words
from terrace.refusals import Reason
from terrace.rules import Rules
from terrace.storage import MemoryStore
from terrace.variants import get_rules
from terrace.web.app import create_app
from terrace.web.i18n import numbers_of
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PIECES = ["c", "s", "r", "w", "t", "f", "C", "T", "F", "1", "2", "3", "9", "0", "10", "99", " ",
          "\u200b", "\ufeff", "\u00a0", "١", "３", "\u0301", "\x00", "\x1b", "ſ"]
STORE = MemoryStore()
CLIENT = TestClient(create_app(STORE, hint_seconds=0.2), base_url=LOCAL)


def _said(words: str, code: object, reason: Reason | None) -> tuple[str, str, dict[str, Any]]:
    """A refusal the library gave: its code, its words and the web's JSON of
    it (its words, its code and, where its words write numbers out, those
    numbers by name)."""
    numbers = {} if reason is None else numbers_of(reason)
    return str(code), words, {"error": words, "code": str(code), **({"params": numbers} if numbers else {})}


def _library(text: str, before: list[str]) -> tuple[str, str, dict[str, Any]] | None:
    """The library's refusal of ``text`` after ``before``: (code, words, the
    web's JSON of it)."""
    board = Board.from_number(7, get_rules("terrace"))
    for done in before:
        board.push_text(done)
    try:
        move = Move.parse(text)
    except TerraceError as error:
        return _said(str(error), error.code, error.reason)
    reason = board.refusal(move)
    return None if reason is None else _said(str(reason), reason.code, reason)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=5), chosen=st.booleans())
@example(pieces=["\u00a0", " ", "c"], chosen=False)  # (str.split() sees one word; --moves sees two)
def test_a_move_is_refused_alike_by_the_library_the_command_line_and_the_web(
    pieces: list[str], chosen: bool
) -> None:
    text = "".join(pieces)
    before = ["c2"] if chosen else []
    library = _library(text, before)
    game = CLIENT.post("/api/games", json={"deal_number": 7}).json()
    for done in before:
        game = CLIENT.post(f"/api/games/{game['id']}/moves", json={"move": done}).json()
    stored = STORE.get(game["id"])
    check = CLIENT.get(f"/api/games/{game['id']}/check", params={"move": text}).json()
    answer = CLIENT.post(f"/api/games/{game['id']}/moves", json={"move": text})
    if library is None:
        assert answer.status_code == 200 and check["legal"] is True, answer.json()
        return
    code, words, refused = library
    after = STORE.get(game["id"])
    assert (after.moves, after.redo, after.revision) == (stored.moves, stored.redo, stored.revision)
    if text.strip():  # (a blank move is the web's own refusal: no move was sent)
        assert answer.json() == refused
        assert answer.status_code == (400 if code.startswith("move-") else 422)
    assert (check["code"], check["reason"]) == (code, words)
    if "\x00" in text or not text.strip():  # (no command line carries NUL; a blank --moves is no move)
        return
    if len(list(move_words(text))) != 1:  # (a separator inside splits --moves; a no-break space does not)
        return
    moves = " ".join([*before, text])
    done = CliRunner().invoke(main, ["replay", "-n", "7", "--moves", moves, "--json"])
    report: dict[str, Any] = json.loads(done.stdout)
    assert (report["first_illegal"], report["reason"]) == (len(before), words if code.startswith("move-")
                                                           else f"{Move.parse(text)}: {words}")
    plain = CliRunner().invoke(main, ["replay", "-n", "7", "--moves", moves])
    assert plain.exit_code == 1 and plain.output.strip().splitlines()[-1].endswith(report["reason"])


OPTIONS: list[tuple[str, dict[str, Any]]] = [
    *(("terrace", {name: value}) for name in ("decks", "reserve", "piles", "candidates", "redeals")
      for value in (-1, 0, 9, 14, 100, 10**20)),
    ("terrace", {"decks": 1, "reserve": 40}),
    ("terrace", {"candidates": 9, "piles": 3}),
    ("wood", {"decks": 8, "reserve": 300}),
    ("falling-star", {"candidates": 5}),
]


@pytest.mark.parametrize(("variant", "options"), OPTIONS)
def test_rule_options_are_refused_alike_by_the_library_the_command_line_and_the_web(
    variant: str, options: dict[str, Any]
) -> None:
    try:
        Rules.from_dict(options, get_rules(variant))
    except TerraceError as error:
        _, words, refused = _said(str(error), error.code, error.reason)
    else:
        answer = CLIENT.post("/api/games", json={"variant": variant, "options": options, "deal_number": 1})
        assert answer.status_code == 201
        return
    count = len(STORE.recent(1000))
    answer = CLIENT.post("/api/games", json={"variant": variant, "options": options, "deal_number": 1})
    assert (answer.status_code, answer.json()) == (400, refused)
    assert len(STORE.recent(1000)) == count
    args = ["deal", "-n", "1", "--variant", variant]
    for name, value in options.items():
        args += ["--" + name.replace("_", "-"), str(value)]
    done = CliRunner().invoke(main, args)
    said = done.output.strip().splitlines()[-1]  # (naming the option it is about: 0d231db8)
    assert done.exit_code == 2
    assert said.startswith("Error: Invalid value for '--") and said.endswith(f"': {words}")
