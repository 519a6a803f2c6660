"""Deal files carry their rules: ``terrace deal`` writes a ``# rules:`` line
before the deal string of rules other than Terrace's, and the commands that
read a deal file play its cards by them (a deal of 11 piles was played with
9, in silence), refusing rule options that name other rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner, Result

from terrace.cli import main

CUSTOM = [["--piles", "11"], ["-v", "wood", "--redeals", "1", "--foundation-return"],
          ["-v", "generals-patience"], ["--decks", "1", "--reserve", "5", "--no-promote-candidates"]]


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


def replayed(*args: str, stdin: str | None = None) -> dict[str, Any]:
    result = run("replay", "--json", *args, stdin=stdin)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize("options", CUSTOM, ids=" ".join)
def test_a_deal_file_is_played_by_the_rules_it_was_written_for(options: list[str]) -> None:
    written = run("deal", "-n", "5", *options)
    assert written.exit_code == 0 and written.stdout.startswith("# rules: --variant "), written.output
    expected = replayed("-n", "5", *options)
    assert replayed("--deal-file", "-", stdin=written.stdout) == expected
    assert replayed("--deal-file", "-", *options, stdin=written.stdout) == expected
    # (lines ended by CR alone, as old Macs write them: the line was taken with the cards for its options)
    assert replayed("--deal-file", "-", stdin=written.stdout.replace("\n", "\r")) == expected
    # a deal file of old, without the line, is played by the options given, as before
    cards = written.stdout.splitlines()[-1]
    assert replayed("--deal-file", "-", *options, stdin=cards) == expected


@pytest.mark.parametrize(("options", "named"), [
    (["-v", "terrace"], "Terrace"), (["--piles", "10"], "Terrace (custom: piles 10)"),
    (["-v", "falling-star"], "Falling Star"),
], ids=["variant", "option", "another preset"])
def test_rule_options_other_than_the_deal_files_are_refused(options: list[str], named: str) -> None:
    written = run("deal", "-n", "5", "--piles", "11").stdout
    result = run("show", "--deal-file", "-", *options, stdin=written)
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.endswith(
        "Error: the deal file is for Terrace (custom: piles 11) (its line '# rules: --variant terrace "
        f"--piles 11'), the rule options given for {named}: give the line's options or none, or remove the "
        "line to play its cards by other rules\n"), result.stderr


@pytest.mark.parametrize(("lines", "said"), [
    ("# rules: --piles 99", "the deal file's line '# rules: --piles 99': Invalid value for '--piles': piles "
                            "must be between 1 and 20, not 99"),
    ("# rules: -v chess", "the deal file's line '# rules: -v chess': Invalid value for '--variant' / '-v': "
                          "unknown variant 'chess'"),
    ("# rules: --piles", "the deal file's line '# rules: --piles': Option '--piles' requires an argument."),
    ("# rules: --bogus", "the deal file's line '# rules: --bogus': No such option '--bogus'."),
    ("# rules: -v wood\n# rules: -v wood", "the deal file has 2 lines of rules (# rules: ...): keep one"),
    ("# rules: --decks 1", "a deal for 1 deck has 52 cards, this one has 104: it holds the cards of 2 decks, "
                           "not those its line '# rules: --decks 1' gives"),
], ids=["range", "variant", "no value", "unknown", "twice", "decks"])
def test_a_rules_line_that_cannot_be_read_is_refused_in_one_line(lines: str, said: str) -> None:
    result = run("solve", "--deal-file", "-", stdin=f"{lines}\n{run('deal', '-n', '5').stdout}")
    assert result.exit_code == 2 and result.stderr.count("Error: ") == 1, result.output
    assert f"Error: {said}" in result.stderr and "Traceback" not in result.output, result.stderr


def test_a_deal_file_of_notes_alone_holds_no_deal() -> None:
    noted = "# my favourite deal\n# rules: --variant wood\n"
    result = run("hint", "--deal-file", "-", stdin=noted)
    assert result.exit_code == 2, result.output
    assert result.stderr.endswith("Error: the deal file holds no deal string, only lines of '#': it must "
                                  "hold one\n"), result.stderr
    cards = run("deal", "-n", "5", "-v", "wood").stdout
    noted = replayed("--deal-file", "-", stdin="# my favourite deal\n" + cards)
    assert noted == replayed("-n", "5", "-v", "wood")
