"""Every time budget on the command line is a finite number of seconds
from :data:`MIN_SECONDS` to :data:`MAX_SECONDS` (NaN, infinite or negative
budgets would never run out), and ``deal --winnable`` has a total budget."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from terrace.cli import all_commands, main
from terrace.cli.options import MAX_SECONDS, MIN_SECONDS, Seconds, seconds_text
from terrace.limits import MAX_NODES


@pytest.mark.parametrize(
    "command",
    [
        ["solve", "-n", "1", "--max-seconds"],
        ["deal", "-n", "1", "--winnable", "--max-seconds"],
        ["deal", "-n", "1", "--winnable", "--total-seconds"],
        ["survey", "--deals", "1-2", "--max-seconds"],
    ],
)
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-1", "0", "-0", "later"])
def test_budgets_that_never_run_out_are_usage_errors(command: list[str], value: str) -> None:
    result = CliRunner().invoke(main, [*command, value])
    assert result.exit_code == 2, result.output
    assert "time budget" in result.output
    assert "Traceback" not in result.output


BUDGET_COMMANDS = {"solve": ["-n", "1"], "deal": ["-n", "1", "--winnable"], "hint": ["-n", "1"],
                   "survey": ["--deals", "1-2"], "play": ["--no-browser", "--port", "0"]}
"""Arguments that let each command with a time budget get as far as reading it."""


def test_every_budget_below_a_millisecond_is_refused_as_written() -> None:
    """A budget under :data:`MIN_SECONDS` is a usage error that repeats the
    value as it was written and says the least budget of that option:
    ``--max-seconds 1e-320`` was taken and shown as "9.99989e-321 s"."""
    budgets = [(name, param) for name, command in all_commands().items() for param in command.params
               if isinstance(param.type, Seconds)]
    assert {name for name, _ in budgets} == set(BUDGET_COMMANDS)
    for name, param in budgets:
        assert isinstance(param.type, Seconds) and param.type.minimum >= MIN_SECONDS
        flag = param.opts[0]
        result = CliRunner().invoke(main, [name, *BUDGET_COMMANDS[name], flag, "1e-320"])
        assert result.exit_code == 2, (flag, result.output)
        least = f"give at least {param.type.minimum:g} s"
        assert f"'{flag}'" in result.output and f": 1e-320 s is too short: {least}" in result.output
        assert "e-321" not in result.output


def test_every_budget_beyond_its_limits_is_refused_saying_them() -> None:
    """``--max-seconds 1e300`` was taken (and echoed "1e+300 s"), and a
    budget of 0 was told to be "above 0" where the least is 0.001 s: each
    budget option refuses more than its most, as written, and its refusal
    of 0 says both its limits."""
    budgets = [(name, param) for name, command in all_commands().items() for param in command.params
               if isinstance(param.type, Seconds)]
    for name, param in budgets:
        assert isinstance(param.type, Seconds) and param.type.maximum <= MAX_SECONDS
        flag, least, most = param.opts[0], seconds_text(param.type.minimum), seconds_text(param.type.maximum)
        result = CliRunner().invoke(main, [name, *BUDGET_COMMANDS[name], flag, "1e300"])
        assert result.exit_code == 2, (flag, result.output)
        said = f"': 1e300 s is too long: give at most {most} s"
        assert f"'{flag}'" in result.output and said in result.output
        result = CliRunner().invoke(main, [name, *BUDGET_COMMANDS[name], flag, "0"])
        assert result.exit_code == 2, (flag, result.output)
        assert f"'0' is not a time budget: give a number of seconds from {least} to {most}\n" in result.output
    nodes = CliRunner().invoke(main, ["solve", "-n", "1", "--max-nodes", str(MAX_NODES + 1)])
    assert nodes.exit_code == 2 and f"'--max-nodes': {MAX_NODES + 1} is not in the range 1 to" in nodes.output


def test_every_budgets_help_says_its_limits_and_its_default_in_plain_digits() -> None:
    """The help said "[default: 10.0]" and no limits (play's wrote its own
    by hand): each budget option's help says both, from its type."""
    for name, command in all_commands().items():
        budgets = [param for param in command.params if isinstance(param.type, Seconds)]
        shown = " ".join(CliRunner().invoke(main, [name, "--help"]).output.split()) if budgets else ""
        for param in budgets:
            if isinstance(param.type, Seconds):
                limits = f"{seconds_text(param.type.minimum)} to {seconds_text(param.type.maximum)} s]"
                given = param.default[-1] if isinstance(param.default, tuple) else None
                default = "" if given is None else f"default: {seconds_text(given)}; "
                assert f" [{default}{limits}" in shown, (name, param.name, shown)
    assert f"At most {MAX_NODES:,}." in " ".join(CliRunner().invoke(main, ["solve", "--help"]).output.split())


def test_every_budget_takes_its_own_limits() -> None:
    """A budget of exactly its least or its most (0.001 s, 86400 s, the
    hint's own range) is what the refusals tell the user to give: taken."""
    for command in all_commands().values():
        for param in command.params:
            if isinstance(param.type, Seconds):
                for limit in (param.type.minimum, param.type.maximum):
                    assert param.type.convert(seconds_text(limit), param, None) == limit, (param.opts, limit)


def test_a_budget_taken_is_said_in_all_its_digits() -> None:
    """``solve`` said "solving for up to 1234.57 s" of 1234.567 (and would
    have said 1e+06 of a million): the budget is said as it is."""
    result = CliRunner().invoke(main, ["solve", "-n", "1", "--max-seconds", "1234.567", "--max-nodes", "1"])
    assert result.exit_code == 0, result.output
    assert "solving for up to 1234.567 s ..." in result.stderr


def test_deal_winnable_stops_at_its_total_budget(tmp_path: Path) -> None:
    started = time.perf_counter()
    result = CliRunner().invoke(
        main,
        ["deal", "-n", "1", "--decks", "8", "--winnable", "--max-seconds", "0.5", "--total-seconds", "1",
         "--db", f"{tmp_path}/verdicts.sqlite"],
    )
    assert time.perf_counter() - started < 10
    assert result.exit_code == 1
    assert "no deal was proved winnable within 1 s" in result.output
    assert "--total-seconds" in result.output


def test_a_fair_hint_with_many_samples_stops_at_its_budget() -> None:
    """Drawing 4,096 stock orders of four decks takes seconds: it stops at
    the budget too (it once drew every sample first, 3.4 s for 0.1 s)."""
    started = time.process_time()
    result = CliRunner().invoke(main, ["hint", "-v", "admirals-patience", "-n", "6", "-m", "c1",
                                       "--samples", "4096", "--max-seconds", "0.1"])
    assert result.exit_code == 0, result.output
    assert time.process_time() - started < 2.5  # (3.4 s before; CPU time: a loaded machine's pauses aren't)
    assert "rule of thumb" in result.output  # no sampled stock order decided in 0.1 s


@pytest.mark.parametrize(("value", "said"), [
    ("0", "0 is not in the range 1 to 4096"), ("-1", "-1 is not in the range 1 to 4096"),
    ("NaN", "'NaN' is not a whole number"), ("1e308", "'1e308' is not a whole number"),
    ("٣", "'٣' is not a whole number (write it in the digits 0-9)"),
    (str(10**100), f"'{10**100}' is not in the range 1 to 4096"),
    (str(-10**100), f"'{-10**100}' is not in the range 1 to 4096"),
])
def test_worst_sample_counts_are_refused_saying_the_range(value: str, said: str) -> None:
    """``hint --samples`` at its worst values is a usage error before any
    work; 10**100 was told "is too large: give at most 40 digits", where
    40 digits are as far outside its 1 to 4096."""
    result = CliRunner().invoke(main, ["hint", "-n", "1", "--samples", value])
    assert result.exit_code == 2, result.output
    assert f"'--samples': {said}" in result.output
