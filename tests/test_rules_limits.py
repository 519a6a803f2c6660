"""Every number rule option at its limits and just beyond them, through the
three ways in: the engine (``Rules``), the command line (``terrace show``)
and the web API (``POST /api/games``). Each limit is read from
:data:`terrace.rules.RULE_OPTIONS`, and all three must take and refuse the
same values with the same words (and, where there are codes, the same
code): one place defines the limits, the others follow it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from terrace.cli import main
from terrace.errors import InvalidRulesError
from terrace.rules import RULE_OPTIONS, OptionKind, Rules
from terrace.web.i18n import numbers_of
from web_support import app_client

NUMBERS = [name for name, option in RULE_OPTIONS.items() if option.kind is OptionKind.INT]
"""The number options, in field order."""

SMALL = {"decks": 1, "piles": 1, "candidates": 0, "reserve": 0, "redeals": 0}
LARGE = {"decks": 8, "piles": 20, "candidates": 20, "reserve": 0, "redeals": 9}
"""The other options around the one at its limits: everything at its
smallest, and everything at its largest (but the reserve, which the largest
packs and piles leave room for)."""


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with app_client() as test_client:
        yield test_client


def engine_says(options: dict[str, int]) -> tuple[str, str, dict[str, Any]] | None:
    """The refusal's code and words when ``Rules`` refuses the options, and
    the numbers its words write out (the web's ``params``)."""
    try:
        Rules(**options)
    except InvalidRulesError as error:
        assert error.reason is not None
        return error.reason.code.value, str(error), numbers_of(error.reason)
    return None


@pytest.mark.parametrize("around", [SMALL, LARGE], ids=["small", "large"])
@pytest.mark.parametrize("name", NUMBERS)
def test_each_way_in_takes_and_refuses_the_same_values_in_the_same_words(
        name: str, around: dict[str, int], client: Any) -> None:
    around = {**around, "candidates": 0} if name == "piles" else around  # (candidates follow piles)
    low, high = RULE_OPTIONS[name].limits(around)
    for value in (low - 1, low, high, high + 1):
        options = {**around, name: value}
        refused = engine_says(options)
        assert (refused is None) == (low <= value <= high), (name, value)
        flags = [word for option, given in options.items() for word in (f"--{option}", str(given))]
        shown = CliRunner().invoke(main, ["show", "-n", "1", *flags])
        made = client.post("/api/games", json={"options": options, "deal_number": 1})
        if refused is None:
            assert (shown.exit_code, made.status_code) == (0, 201), (name, value, shown.stderr, made.text)
            continue
        code, words, numbers = refused
        assert shown.exit_code == 2
        assert shown.stderr.endswith(f"Error: Invalid value for '--{name}': {words}\n"), shown.stderr
        assert made.status_code == 400, made.text
        assert made.json() == {"code": code, "error": words, "params": numbers}, made.text
