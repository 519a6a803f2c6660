"""The command line, through click's CliRunner."""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from conftest import deal_text, wait_for_cpu
from terrace.board import Board
from terrace.cli import COMMANDS, all_commands, main
from terrace.cli.options import NEEDS_FLAG
from terrace.deal import Deal
from terrace.variants import PRESETS, TITLES, get_rules

FIELDS = {"legal", "first_illegal", "reason", "won", "lost", "foundation_cards", "reserve", "stock", "waste",
          "tableau", "legal_moves"}


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


def replay_json(*args: str) -> dict[str, Any]:
    result = run("replay", *args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_variants_lists_every_preset() -> None:
    result = run("variants")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert len(lines) == len(PRESETS)
    for line, name in zip(lines, PRESETS, strict=True):
        assert line.startswith(name) and TITLES[name] in line and get_rules(name).describe() in line


def test_rule_choices_and_players_are_taken_in_any_case_as_variant_names_are(tmp_path: Path) -> None:
    """`-v FALLING-STAR` was taken but `--foundations SUIT` refused ("'SUIT'
    is not one of 'alternate', 'suit'"), and `--player GREEDY` too: each
    is now taken in any case, as the choice it names."""
    survey = run("survey", "-v", "FALLING-STAR", "--deals", "1", "--player", "GREEDY",
                 "--foundations", "SUIT", "--spaces", "Free", "--jobs", "1", "--json",
                 "--verdicts-db", str(tmp_path / "v.sqlite3"))
    assert survey.exit_code == 0, survey.output
    report = json.loads(survey.stdout.strip().splitlines()[-1])
    rules = report["rules"]
    assert (report["player"], rules["foundations"], rules["spaces"]) == ("greedy", "suit", "free")
    assert run("show", "-n", "1", "--foundations", "suits").exit_code == 2


def test_variants_names_the_other_names_that_variant_takes() -> None:
    """`terrace variants` listed no other names: that Queen of Italy and
    Signora are Terrace (and `-v signora` plays it) was nowhere in it,
    though docs/rules.md says it lists them."""
    from terrace.variants import VARIANTS

    lines = run("variants").output.splitlines()
    for line, variant in zip(lines, VARIANTS, strict=True):
        others = ", ".join(variant.alias_names)
        assert line.endswith(f"; also {others}" if others else variant.rules.describe()), line
    assert lines[0].endswith("; also queen-of-italy, signora")
    assert run("show", "-v", "signora", "-n", "1").output == run("show", "-v", "terrace", "-n", "1").output


def test_deal_prints_the_deal_string() -> None:
    result = run("deal", "--variant", "terrace", "--deal-number", "7")
    assert result.exit_code == 0
    assert result.output.strip() == Deal.from_number(7, get_rules("terrace")).text()
    assert run("deal", "-n", "7").output == result.output
    rules, madame = run("deal", "--variant", "madame", "-n", "7").output.splitlines()
    assert rules == "# rules: --variant madame" and len(madame.split()) == 156


@pytest.mark.parametrize("number", ["-1", "9223372036854775808"])
def test_deal_number_out_of_range(number: str) -> None:
    result = run("deal", "--deal-number", number)
    assert result.exit_code == 2
    # (the option named: "deal numbers run from 0 to ..." named none; in the
    # words of a request's deal_number since: test_spellings)
    said = f"'--deal-number' / '-n': deal numbers run from 0 to 9223372036854775807, not {number}\n"
    assert result.output.endswith(said), result.output
    for command in ("show", "solve", "replay", "hint"):
        assert run(command, "-n", number).output.endswith(said)


def test_unknown_variant_and_bad_options() -> None:
    result = run("deal", "--variant", "klondike", "-n", "1")
    assert result.exit_code == 2 and "unknown variant 'klondike'" in result.output
    result = run("deal", "--candidates", "12", "-n", "1")
    assert result.exit_code == 2 and "candidates must be between 0 and the number of piles" in result.output
    result = run("deal", "--spaces", "sometimes", "-n", "1")
    assert result.exit_code == 2


def test_replay_json_fields_at_the_start() -> None:
    data = replay_json("--deal-number", "7")
    assert set(data) >= FIELDS
    assert data["legal"] is True and data["first_illegal"] is None and data["reason"] is None
    assert (data["won"], data["lost"]) == (False, False)
    assert (data["foundation_cards"], data["reserve"], data["stock"], data["waste"], data["tableau"]) == (
        0, 11, 90, 0, 3)
    assert data["legal_moves"] == ["c1", "c2", "c3"]


def test_replay_json_after_moves() -> None:
    board = Board.from_number(7)
    for text in ("c1", "s", "s"):
        board.push_text(text)
    data = replay_json("--deal-number", "7", "--moves", "c1 s s")
    assert data["legal"] is True
    assert data["foundation_cards"] == board.foundation_cards
    assert (data["reserve"], data["stock"], data["waste"], data["tableau"]) == (
        len(board.reserve), len(board.stock), len(board.waste), board.tableau_cards)
    assert data["legal_moves"] == [str(m) for m in board.legal_moves]
    assert data["legal_moves"][-1] == "s"
    assert data["position"] == board.position()


def test_replay_json_stops_at_the_first_illegal_move() -> None:
    data = replay_json("-n", "7", "--moves", "c1 s c2 s")
    assert data["legal"] is False and data["first_illegal"] == 2
    assert data["reason"] == "c2: the base card has already been chosen"
    assert data["stock"] == 82  # the position after the last legal move (c1 s)


def test_replay_json_unreadable_move_is_illegal_at_its_index() -> None:
    data = replay_json("-n", "7", "--moves", "c1, s, zz, s")
    assert data["legal"] is False and data["first_illegal"] == 2
    assert "'zz' is not a move" in data["reason"]
    assert data["waste"] == 1


def test_replay_json_terrace_card_to_the_tableau() -> None:
    data = replay_json("-n", "7", "--moves", "c1 rt1")
    assert data["first_illegal"] == 1
    assert data["reason"] == "rt1: the terrace card can go only to a foundation"


def test_replay_json_won_and_lost() -> None:
    golden = Path(__file__).parent / "golden"
    won = json.loads((golden / "falling-star-won.json").read_text())
    args = ["--variant", won["variant"], "-n", str(won["deal_number"]), "--moves", " ".join(won["moves"])]
    for key, value in won["rules"].items():
        args += _option(key, value)
    data = replay_json(*args)
    assert data["won"] is True and data["lost"] is False and data["legal"] is True
    assert data["foundation_cards"] == 104 and data["legal_moves"] == []
    lost = json.loads((golden / "terrace-lost.json").read_text())
    data = replay_json("-n", str(lost["deal_number"]), "--moves", " ".join(lost["moves"]))
    assert data["lost"] is True and data["won"] is False and data["legal_moves"] == []


def test_a_move_after_the_end_of_the_game_is_refused_for_the_end() -> None:
    """(It was refused for what it names, "s: the stock is empty", though
    the game was over before it.)"""
    lost = json.loads((Path(__file__).parent / "golden" / "terrace-lost.json").read_text())
    moves = " ".join([*lost["moves"], "s"])
    data = replay_json("-n", str(lost["deal_number"]), "--moves", moves)
    assert data["first_illegal"] == 237 and data["status"] == "lost"
    assert data["reason"] == "s: the game was lost after 237 moves: no move was left"
    result = run("show", "-n", str(lost["deal_number"]), "--moves", moves)
    assert result.exit_code == 1
    assert result.stderr.endswith("move 238 is illegal: s: " + data["reason"][3:] + "\n")


def _option(key: str, value: Any) -> list[str]:
    name = "--" + key.replace("_", "-")
    if isinstance(value, bool):
        return [name if value else "--no-" + key.replace("_", "-")]
    return [name, str(value)]


def test_replay_text_and_exit_code() -> None:
    result = run("replay", "-n", "7", "--moves", "c1 s")
    assert result.exit_code == 0 and "[playing]" in result.output
    result = run("replay", "-n", "7", "--moves", "c1 c1")
    assert result.exit_code == 1
    assert "move 2 is illegal: c1: the base card has already been chosen" in result.stderr


def test_deal_file(tmp_path: Path) -> None:
    rules = get_rules("terrace")
    path = tmp_path / "deal.txt"
    path.write_text(Deal.from_number(7, rules).text().replace("T", "10") + "\n")
    data = replay_json("--deal-file", str(path), "--moves", "c1 s")
    assert data == {**replay_json("-n", "7", "--moves", "c1 s")}
    from_stdin = run("replay", "--deal-file", "-", "--moves", "c1 s", "--json", stdin=path.read_text())
    assert json.loads(from_stdin.stdout) == data
    path.write_text("\ufeff" + path.read_text(), encoding="utf-8")  # a byte-order mark, as Notepad writes
    assert replay_json("--deal-file", str(path), "--moves", "c1 s") == data


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("AS KS", "a deal for 2 decks has 104 cards, this one has 2"),
        ("ZZ", "card 1 of the deal: 'ZZ' is not a card"),
        (b"\xff\xfe\x00", "the deal file is not text"),
    ],
)
def test_bad_deal_file(tmp_path: Path, content: str | bytes, message: str) -> None:
    path = tmp_path / "deal.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    result = run("replay", "--deal-file", str(path), "--json")
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_missing_deal_file_and_deal_source(tmp_path: Path) -> None:
    result = run("replay", "--deal-file", str(tmp_path / "nothing.txt"))
    assert result.exit_code == 2 and "cannot read the deal file" in result.output
    result = run("replay", "--moves", "c1")
    assert result.exit_code == 2 and "give exactly one of --deal-number and --deal-file" in result.output
    result = run("replay", "-n", "1", "--deal-file", str(tmp_path / "nothing.txt"))
    assert result.exit_code == 2 and "give exactly one" in result.output


@pytest.mark.parametrize(
    ("options", "check"),
    [
        (["--candidates", "4"], lambda d: d["legal_moves"] == ["c1", "c2", "c3", "c4"]),
        (["--candidates", "0"], lambda d: d["foundation_cards"] == 1 and d["tableau"] == 9),
        (["--reserve", "5"], lambda d: d["reserve"] == 5 and d["stock"] == 96),
        (["--piles", "11", "--candidates", "0"], lambda d: d["tableau"] == 11 and d["stock"] == 81),
        (["--decks", "3"], lambda d: d["stock"] == 156 - 14),
        (["--variant", "wood"], lambda d: d["tableau"] == 9 and d["reserve"] == 10),
        (["--variant", "signora"], lambda d: d["legal_moves"] == ["c1", "c2", "c3"]),
    ],
)
def test_rule_options_change_the_game(options: list[str], check: Any) -> None:
    assert check(replay_json("-n", "3", *options))


def test_foundations_spaces_redeals_and_return_options() -> None:
    # Play a whole random-free line: draw the full stock, then the redeal is legal only with --redeals.
    draws = " ".join(["s"] * 83)
    plain = replay_json("-n", "3", "--candidates", "0", "--spaces", "waste", "--moves", draws)
    assert plain["stock"] == 0 and "s" not in plain["legal_moves"]
    again = replay_json("-n", "3", "--candidates", "0", "--spaces", "waste", "--redeals", "1", "--moves",
                        draws)
    assert again["legal_moves"][-1] == "s"
    redealt = replay_json("-n", "3", "--candidates", "0", "--spaces", "waste", "--redeals", "1", "--moves",
                          draws + " s")
    assert redealt["stock"] == 83 and redealt["waste"] == 0
    suit = run("show", "-n", "3", "--foundations", "suit", "--candidates", "0")
    assert "foundations in suit" not in suit.output  # show draws the board, not the rules
    assert suit.exit_code == 0
    board = Board.from_number(3, get_rules("terrace", candidates=0, foundations="suit"))
    assert suit.output.splitlines()[0] == str(board).splitlines()[0]
    back = replay_json("-n", "3", "--foundation-return", "--moves", "c1")
    assert back["legal"] is True
    assert run("replay", "-n", "3", "--no-foundation-return", "--json").exit_code == 0
    free = replay_json("-n", "3", "--spaces", "free", "--moves", "c1")
    assert free["legal"] is True


def test_every_option_is_offered() -> None:
    result = run("replay", "--help")
    for option in ("--variant", "--decks", "--reserve", "--piles", "--candidates", "--foundations",
                   "--spaces", "--redeals", "--foundation-return", "--deal-number", "--deal-file", "--moves",
                   "--json"):
        assert option in result.output


def test_deal_says_which_deal_it_prints_by_default() -> None:
    assert "[default: 1]" in " ".join(run("deal", "--help").output.split())
    assert run("deal").output == run("deal", "-n", "1").output


@pytest.mark.parametrize("command", ["play", "stats", "export", "import"])
def test_every_games_db_option_names_its_default(command: str) -> None:
    """--db of the games database says where it is without the option."""
    assert "$TERRACE_DB, else games.sqlite" in " ".join(run(command, "--help").output.split())


def test_show_draws_the_position_and_its_moves() -> None:
    result = run("show", "-n", "7", "--moves", "c1 s")
    assert result.exit_code == 0
    board = Board.from_number(7)
    board.push_text("c1")
    board.push_text("s")
    moves = " ".join(str(m) for m in board.legal_moves)
    assert result.output == f"{board}\nlegal moves: {moves}\n"
    bad = run("show", "-n", "7", "--moves", "c1 c1")
    assert bad.exit_code == 1 and "move 2 is illegal" in bad.stderr


def test_show_with_no_legal_moves() -> None:
    lost = json.loads((Path(__file__).parent / "golden" / "terrace-lost.json").read_text())
    result = run("show", "-n", str(lost["deal_number"]), "--moves", " ".join(lost["moves"]))
    assert result.exit_code == 0 and result.output.endswith("legal moves: none\n")
    assert "[lost]" in result.output


def test_version_and_help() -> None:
    assert run("--version").exit_code == 0
    assert "Terrace" in run("--help").output
    listed = [line.split()[0] for line in run("--help").output.split("Commands:")[1].strip().splitlines()]
    assert listed == sorted(COMMANDS)
    for name in COMMANDS:
        assert run(name, "--help").exit_code == 0


def test_a_command_loads_only_what_it_needs() -> None:
    """``terrace stats`` (or deal, export, ...) starts without the solver
    and the web server: each command's module loads when it runs."""
    code = ("import sys; from terrace.cli import main; main(sys.argv[1:], standalone_mode=False); "
            "print(sorted({m.split('.')[0] + '.' + m.split('.')[1] if m.startswith('terrace.') else m "
            "for m in sys.modules if m.startswith(('terrace.solver', 'terrace.web', 'starlette', "
            "'uvicorn', 'terrace.cli.'))}))")
    loaded = {}
    for command in ("stats", "deal", "solve"):
        done = subprocess.run([sys.executable, "-c", code, command, "--help"], capture_output=True,
                              text=True, timeout=60, check=True)
        loaded[command] = done.stdout.strip().splitlines()[-1]
    assert loaded["stats"] == "['terrace.cli']"
    assert loaded["deal"] == "['terrace.cli']"
    assert "terrace.solver" in loaded["solve"] and "starlette" not in loaded["solve"]


def test_the_list_of_commands_loads_none_of_them() -> None:
    """``terrace --help`` listed each command's summary by loading its
    module, and with them the solver, the web server and the games store
    (0.5 CPU s, 0.1 s without): it reads the table of the commands."""
    code = ("import sys; from terrace.cli import main; main(['--help'], standalone_mode=False); "
            "print(sorted(m for m in sys.modules if m.startswith('terrace.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=True)
    listing, loaded = done.stdout.rsplit("\n", 2)[:2]
    assert ast.literal_eval(loaded) == ["terrace.cli", "terrace.cli.commands", "terrace.cli.errors",
                                        "terrace.cli.output", "terrace.cli.stops", "terrace.refusals",
                                        "terrace.symbols"]
    rows = dict(line.split(maxsplit=1) for line in listing.split("Commands:\n")[1].splitlines())
    for name, command in all_commands().items():  # (each row the start of the command's own help)
        assert " ".join((command.help or "").split()).startswith(rows.pop(name).removesuffix("...")), name
    assert not rows


def test_foundations_option_changes_what_builds(tmp_path: Path) -> None:
    rules = get_rules("falling-star")
    reserve = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S"
    path = tmp_path / "deal.txt"
    path.write_text(deal_text(rules, reserve + " 7D 7S 2C 2C 3S 3H 4C 4H JS  6D"))
    alternate = replay_json("--variant", "falling-star", "--deal-file", str(path))
    suit = replay_json("--variant", "falling-star", "--foundations", "suit", "--deal-file", str(path))
    assert "t2f" in alternate["legal_moves"] and "t1f" not in alternate["legal_moves"]
    assert "t1f" in suit["legal_moves"] and "t2f" not in suit["legal_moves"]


def test_foundation_return_can_be_switched_off() -> None:
    on = replay_json("--variant", "empress-of-italy", "-n", "2", "--moves", "c1 f1t1")
    assert on["reason"] == "f1t1: the base card of a foundation never moves"
    off = replay_json("--variant", "empress-of-italy", "--no-foundation-return", "-n", "2", "--moves",
                      "c1 f1t1")
    assert off["reason"] == "f1t1: cards never leave the foundations in this game"


MIRRORED = ("t3f t5f t2f t5f t2t4 t2t7 t3t1 t3f s s wt1 t2t1 s wt6 t3t6 t3f t4f t4f t3t9 t3t6 t4t6 s s wt1 "
            "t5t1 s s wt3 s s wt4 s wf s s s wt6 s wf t7f t7f rf s s wf t9f t9f t6f s wt2 s wt2 s s s wt8 "
            "t5t8 s wf s s s s s s wt6")
"""Falling Star deal 1: here two winning lines mirror each other (t2t5 ...,
t5t2 ...), and two hints asked one after the other once undid each other."""


def test_the_peeking_hint_never_undoes_the_last_one() -> None:
    def peek(moves: str) -> dict[str, Any]:
        result = run("hint", "-v", "falling-star", "-n", "1", "--moves", moves, "--peek", "--seconds", "0.5",
                     "--json")
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data

    first = peek(MIRRORED)
    assert first["kind"] == "winnable"
    second = peek(f"{MIRRORED} {first['move']}")
    before = Board.from_number(1, get_rules("falling-star"))
    for text in MIRRORED.split():
        before.push_text(text)
    after = before.copy()
    after.push_text(first["move"])
    after.push_text(second["move"])
    assert after.position() != before.position()


def test_survey_progress_counts_its_workers_in_english(tmp_path: Path) -> None:
    args = ["--deals", "1-1", "--max-seconds", "2", "--verdicts-db", str(tmp_path / "v.sqlite3"), "--out",
            str(tmp_path)]
    one = run("survey", *args, "--jobs", "1")
    assert one.exit_code == 0, one.output
    assert ", 1 worker" in one.stderr and "1 workers" not in one.stderr


def test_a_survey_report_on_a_full_disk_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """It left an empty report and said "No space left on device" without
    naming the file."""
    from store_support import fill, full_disk

    with full_disk(tmp_path) as folder:
        fill(folder)
        args = ["--deals", "1-1", "--max-seconds", "2", "--verdicts-db", str(tmp_path / "v.sqlite3"),
                "--out", str(folder)]
        done = run("survey", *args, "--jobs", "1")
        assert done.exit_code == 1
        assert "cannot write " in done.stderr and "survey-terrace-1-1" in done.stderr, done.stderr
        assert [p.name for p in folder.iterdir()] == ["filler"]


def test_ctrl_c_stops_a_command_in_one_line_with_status_130(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+C ends solve, hint and the rest as it ends ``terrace survey``:
    one line on standard error, status 130 (not click's "Aborted!" and 1,
    the status of an error), nothing on standard output."""
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("terrace.cli.solver.solve", interrupted)
    monkeypatch.setattr("terrace.solver.advice.hint_report", interrupted)
    for args in (["solve", "-n", "7", "--json"], ["hint", "-n", "7", "--json"]):
        result = run(*args)
        assert result.exit_code == 130, (args, result.output)
        assert result.stdout == ""
        assert result.stderr.strip() == "stopped: interrupted (Ctrl+C)"


@pytest.mark.parametrize("moves", ["c1 rf", "c1 zz"], ids=["illegal", "unreadable"])
def test_every_command_refuses_an_illegal_move_with_one_status_and_message(moves: str) -> None:
    """replay, show and hint refuse a move of --moves alike: exit status
    1, errors.ILLEGAL_MOVE (that of any refusal, not hint's usage error 2 as before)
    and the same "move N is illegal: ..." line on standard error."""
    stderr = set()
    for command in ("replay", "show", "hint"):
        result = run(command, "-n", "7", "--moves", moves)
        assert result.exit_code == 1, (command, result.output)
        assert result.stderr.startswith("move 2 is illegal: "), (command, result.stderr)
        stderr.add(result.stderr)
    assert len(stderr) == 1, stderr


def test_solve_and_hint_name_the_same_facts_alike() -> None:
    """The winning line is ``line`` in both JSON reports (solve's older
    ``moves`` is kept), and both take their time budget as --max-seconds
    (hint's older --seconds is kept)."""
    solved = run("solve", "-v", "falling-star", "-n", "1", "--max-seconds", "5", "--json")
    hinted = run("hint", "-v", "falling-star", "-n", "1", "--peek", "--max-seconds", "5", "--json")
    assert solved.exit_code == 0 and hinted.exit_code == 0, (solved.output, hinted.output)
    solve_report, hint_report = json.loads(solved.stdout), json.loads(hinted.stdout)
    assert solve_report["result"] == "won" and hint_report["kind"] == "winnable"
    assert solve_report["line"] and hint_report["line"]
    assert solve_report["moves"] == solve_report["line"]
    for name in ("--max-seconds", "--seconds"):
        refused = run("hint", "-n", "1", name, "0")
        assert refused.exit_code == 2 and "No such option" not in refused.stderr, (name, refused.stderr)


def _catches_sigterm(pid: int) -> bool:
    """True once process ``pid`` has a handler of its own for SIGTERM (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize("command", [["solve", "--json"], ["hint", "--peek", "--json"],
                                     ["deal", "--winnable", "--total-seconds", "600"]],
                         ids=["solve", "hint", "deal-winnable"])
def test_sigterm_stops_a_long_solve_as_ctrl_c_does(command: list[str], tmp_path: Path) -> None:
    """SIGTERM (a service manager's stop, ``timeout``, ``kill``) ends solve,
    hint and the search of ``deal --winnable`` in one line on standard error
    with status 143 = 128 + SIGTERM, within moments, not with 143 and nothing
    said; General's Patience deal 2 is undecided after a minute."""
    args = [sys.executable, "-m", "terrace", *command, "-v", "generals-patience", "-n", "2",
            "--max-seconds", "120"]
    if command[0] == "deal":
        args += ["--verdicts-db", str(tmp_path / "verdicts.sqlite3")]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TERRACE_DEBUG": "0"})
    try:
        deadline = time.monotonic() + 30
        while not _catches_sigterm(process.pid):
            assert process.poll() is None, "ended before it was stopped"
            assert time.monotonic() < deadline, "no handler of its own for SIGTERM"
            time.sleep(0.02)
        wait_for_cpu(lambda: [process.pid], 0.3)  # well into the search (was: a fixed 0.5 s)
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 143, stderr
    assert stderr.strip().splitlines()[-1] == "stopped: terminated (SIGTERM)"
    assert stdout == "" and "Traceback" not in stderr


def test_survey_runs_no_more_processes_than_cores(tmp_path: Path) -> None:
    """A deal's budget is wall-clock time: --jobs beyond the cores would
    starve every deal and store unknowns a later survey would reuse."""
    result = run("survey", "-v", "falling-star", "--deals", "3-3", "--jobs", "256", "--max-seconds", "2",
                 "--verdicts-db", str(tmp_path / "v.sqlite3"), "--json")
    assert result.exit_code == 0, result.output
    assert "--jobs 256: this machine runs" in result.stderr
    assert json.loads(result.stdout)["deals"] == 1


def test_survey_jobs_as_many_as_the_cores_run_as_given_and_one_more_are_cut(tmp_path: Path,
                                                                            monkeypatch: Any) -> None:
    """On a machine of two cores --jobs 2 is taken as it is and --jobs 3
    is cut to 2 with a note (a mutation audit let one job more than the
    cores run and no test failed: 256 was the only number tried)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    for jobs, cut in (("2", False), ("3", True)):
        result = run("survey", "-v", "falling-star", "--deals", "3-3", "--jobs", jobs, "--max-seconds", "2",
                     "--verdicts-db", str(tmp_path / f"v{jobs}.sqlite3"), "--json")
        assert result.exit_code == 0, result.output
        assert ("this machine runs" in result.stderr) is cut, result.stderr
        assert ("--jobs 3: this machine runs 2 at once; using 2\n" in result.stderr) is cut
        assert json.loads(result.stdout)["deals"] == 1


def test_a_winnable_search_that_reaches_the_last_deal_is_no_usage_error(tmp_path: Path) -> None:
    from terrace.deal import MAX_DEAL_NUMBER

    lost_at_start = ["--decks", "1", "--piles", "1", "--reserve", "50", "--candidates", "0"]
    result = run("deal", "--winnable", *lost_at_start, "-n", str(MAX_DEAL_NUMBER - 1),
                 "--total-seconds", "5", "--verdicts-db", str(tmp_path / "w.sqlite3"))
    assert result.exit_code == 1, result.output
    assert "to the last one" in result.output and "Usage:" not in result.output


def test_a_damaged_database_is_said_in_one_line() -> None:
    from terrace.storage.files import damaged

    error = damaged("v.sqlite3", "*** in database main ***\nOn tree page 3 cell 19: bad")
    assert "\n" not in str(error) and "main *** On tree page 3" in str(error)


@pytest.mark.parametrize("args", [
    ["show", "-n", "1\t2"],
    ["solve", "-n", "1", "--max-seconds", "1\tx"],
    ["survey", "--deals", "1\t-２"],
    ["show", "-n", "1", "--moves", "c1 w\x01f"],
    ["show", "-n", "1", "--variant", "ter\trace"],
])
def test_a_tab_in_a_refused_option_shows_as_one_escape(args: list[str]) -> None:
    r"""`show -n $'1\t2'` said '1\\t2' is not a whole number: the value
    was escaped, then quoted with repr, which doubled the backslash."""
    result = run(*args)
    assert result.exit_code != 0
    shown = "\\x01" if "\x01" in "".join(args) else "\\t"
    assert shown in result.stderr and "\\\\" not in result.stderr, result.stderr


def test_the_variants_table_keeps_its_columns_in_line() -> None:
    """`terrace variants` padded titles to 20 characters: "Blondes and
    Brunettes" (21) ran into its rules, one space apart, out of line."""
    lines = run("variants").output.splitlines()
    starts = {line.index(get_rules(name).describe()) for line, name in zip(lines, PRESETS, strict=True)}
    assert len(starts) == 1, lines
    assert all(line[min(starts) - 2:min(starts)] == "  " for line in lines), lines


def test_a_moves_option_of_more_than_max_moves_is_refused() -> None:
    """`--moves` played 100,003 legal moves (a card sent home and taken
    back, again and again) while docs/notation.md says a move list holds
    at most 100,000, more refused with moves-too-many (as parse_moves and a
    game record do)."""
    from terrace.moves import MAX_MOVES

    cycle = "t4f f1t4 " * (MAX_MOVES // 2 + 1)
    report = replay_json("-n", "3", "--foundation-return", "--moves", "c1 " + cycle)
    assert not report["legal"] and report["first_illegal"] == MAX_MOVES, report["reason"]
    assert report["moves_played"] == MAX_MOVES and "at most 100,000 moves" in report["reason"]
    shown = run("show", "-n", "3", "--foundation-return", "--moves", "c1 " + cycle)
    assert shown.exit_code == 1 and f"move {MAX_MOVES + 1} is illegal: " in shown.stderr


def test_a_survey_names_the_files_it_wrote_on_one_line(tmp_path: Path) -> None:
    """`survey --out` a folder whose name holds a newline (or a terminal's
    escape) printed "wrote ..." with the name as it was: the line broke in
    two (and a terminal would obey the escape), where every other message
    quoting a file name escapes it."""
    folder = tmp_path / "a\nb\x1b[2J"
    folder.mkdir()
    result = run("survey", "--deals", "1-1", "--jobs", "1", "--max-seconds", "1",
                 "--verdicts-db", str(tmp_path / "v.sqlite3"), "--out", str(folder))
    assert result.exit_code == 0, result.output
    wrote = [line for line in result.stdout.splitlines() if line.startswith("wrote ")]
    assert len(wrote) == 1 and "a\\nb\\x1b[2J" in wrote[0], result.stdout
    assert "\x1b" not in result.stdout
    assert len(list(folder.iterdir())) >= 1


@pytest.mark.parametrize("args", [
    ["hint", "-n", "7", "--peek", "--seed", "3"],
    ["survey", "--deals", "1", "--player", "perfect", "--seed", "3"],
    ["survey", "--deals", "1", "--player", "greedy", "--seed", "0"],
])
def test_a_seed_that_would_change_nothing_is_refused(args: list[str], tmp_path: Path) -> None:
    """--seed was taken and ignored where nothing is sampled (the peeking
    hint, the perfect and greedy players): a run of seeds gave one answer
    over and over, as if it were several samples. --samples was refused
    there already; --seed is refused alike, before any work."""
    files = ["--verdicts-db", str(tmp_path / "v.sqlite3"), "--out", str(tmp_path)]
    result = CliRunner().invoke(main, [*args, *files] if args[0] == "survey" else args)
    assert result.exit_code == 2, result.output
    assert "--seed" in result.output.splitlines()[-1]
    assert not (tmp_path / "v.sqlite3").exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize("player", ["perfect", "greedy", "random"])
def test_samples_for_a_player_that_samples_nothing_is_refused_by_the_options_name(
    player: str, tmp_path: Path
) -> None:
    """--samples on a survey of another player than the fair one said "the
    greedy player has no settings, got samples", naming a setting, not the
    option given; it says the option, as --seed's refusal and hint --peek's do."""
    result = CliRunner().invoke(main, ["survey", "--deals", "1", "--player", player, "--samples", "8",
                                       "--verdicts-db", str(tmp_path / "v.sqlite3"), "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == (
        f"Error: the {player} player samples no stock orders and takes no --samples "
        "(it is for the fair player)")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args", [
    ["hint", "-v", "falling-star", "-n", "3", "--samples", "1", "--max-seconds", "5"],
    ["survey", "-v", "falling-star", "--deals", "3", "--jobs", "1", "--player", "random"],
    ["survey", "-v", "falling-star", "--deals", "3", "--jobs", "1", "--player", "fair", "--samples", "1",
     "--max-seconds", "1"],
])
def test_a_negative_seed_is_refused_by_the_options_name_on_every_command(args: list[str],
                                                                         tmp_path: Path) -> None:
    """A seed is a whole number >= 0 (budget.check_seed): hint --seed -1 was
    refused only by the fair hint itself, as "seed must be a whole number
    >= 0, not -1", while survey --seed -1 was taken (a survey of random
    games, status 0, its verdicts stored under seed -1). Both refuse it at
    the option now, before any work."""
    files = ["--verdicts-db", str(tmp_path / "v.sqlite3"), "--out", str(tmp_path)]
    result = CliRunner().invoke(main, [*args, "--seed", "-1", *(files if args[0] == "survey" else [])])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == (
        "Error: Invalid value for '--seed': -1 is too small: give at least 0")
    assert not list(tmp_path.iterdir())
    assert "0 or more" in " ".join(run(args[0], "--help").output.split())


def test_the_survey_help_gives_each_players_default_budget() -> None:
    """The help wrote the default budgets out by hand beside DEFAULT_BUDGET,
    which the survey applies; it is made from it now."""
    from terrace.cli.solver import DEFAULT_BUDGET

    text = " ".join(run("survey", "--help").output.split())
    assert "Budget per deal (default: 10 for perfect, 1800 for fair, 60 for greedy and random)." in text
    for player, seconds in DEFAULT_BUDGET.items():
        assert re.search(rf"\b{seconds:g} for (\w+ and )?{player}\b", text), (player, seconds)


def test_a_seed_is_taken_where_it_changes_the_games(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "3", "--jobs", "1",
                                       "--player", "random", "--seed", "3", "--json",
                                       "--verdicts-db", str(tmp_path / "v.sqlite3")])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["hint", "-v", "falling-star", "-n", "3", "--seed", "3",
                                       "--samples", "1", "--max-seconds", "5"])
    assert result.exit_code == 0, result.output


def test_the_help_of_every_deal_number_option_gives_its_range() -> None:
    """The rule options' help gives each one's limits; --deal-number's said
    only "Numbered deal." (its limits came out only in a refusal)."""
    from terrace.cli import all_commands
    from terrace.deal import MAX_DEAL_NUMBER

    taking = {name: command for name, command in all_commands().items()
              if any(param.name == "deal_number" for param in command.params)}
    assert set(taking) >= {"deal", "replay", "show", "solve", "hint"}
    for name in taking:
        text = " ".join(run(name, "--help").output.split())
        assert f"0 to {MAX_DEAL_NUMBER}." in text, (name, text)


@pytest.mark.parametrize(("command", "flag", "options"), [
    (command, flag, [option for option, (needed, _) in table.items() if needed == flag])
    for command, table in NEEDS_FLAG.items() for flag in sorted({needed for needed, _ in table.values()})
])
def test_an_option_that_needs_a_flag_is_refused_without_it(command: str, flag: str, options: list[str],
                                                          tmp_path: Path) -> None:
    """``terrace deal -n 3 --max-seconds 5`` (or --total-seconds,
    --verdicts-db) printed the deal and ignored the option in silence: it
    matters only with --winnable. Every option of options.NEEDS_FLAG given
    without its flag is a usage error now, and nothing is made."""
    params = {param.name: param for param in all_commands()[command].params}
    values = {"max_seconds": "5", "total_seconds": "5", "verdicts_db": str(tmp_path / "v.sqlite3"),
              "old_db": str(tmp_path / "v.sqlite3"), "samples": "8", "seed": "3"}
    without = {"winnable": [], "fair": ["--peek"]}[flag]
    for name in options:
        option = params[name].opts[0]
        result = run(command, "-n", "3", *without, option, values[name])
        assert result.exit_code == 2, (name, result.output)
        assert result.stderr.splitlines()[-1].startswith(f"Error: {option} is for "), result.stderr
        assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_json_survey_writes_its_table_to_the_out_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``survey --json --out FOLDER`` took --out and ignored it: the folder
    stayed empty. With --json the table (and chart) go to an --out given,
    standard output holding the JSON alone; without --out nothing is written."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "report"
    common = ["survey", "--deals", "1-1", "--jobs", "1", "--max-seconds", "1",
              "--verdicts-db", str(tmp_path / "v.sqlite3"), "--json"]
    result = run(*common, "--out", str(folder))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["first_deal"] == 1
    written = sorted(path.suffix for path in folder.iterdir())
    assert ".md" in written and "wrote " in result.stderr, (written, result.stderr)
    before = sorted(tmp_path.iterdir())
    again = run(*common)
    assert again.exit_code == 0 and json.loads(again.stdout)["first_deal"] == 1
    assert sorted(tmp_path.iterdir()) == before and "wrote " not in again.stderr


def test_a_logged_warning_is_one_plain_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A warning the library logs while a command runs comes out as one
    ``warning: ...`` line, a line break or a terminal's escape in it (from a
    damaged row, say) written escaped; once the command is done, the
    process's logging is as it was."""
    import logging

    from terrace.cli.output import warnings_as_lines

    log = logging.getLogger("terrace.storage.sqlite")
    before = list(logging.getLogger("terrace").handlers)
    with warnings_as_lines():
        log.warning("saved game %s is damaged", "a\nb\x1b[2J")
    log.warning("after the command")
    said = capsys.readouterr().err
    assert "warning: saved game a\\nb\\x1b[2J is damaged\n" in said and said.count("warning: ") == 1, said
    assert logging.getLogger("terrace").handlers == before


def test_a_hints_json_line_is_taken_back_as_it_is() -> None:
    """The help of --line says it is the JSON "line" of an earlier hint,
    yet that line given as JSON (``["c2", "t8f", ...]``, as a script
    reading ``hint --json`` has it) was refused: "--line: '["c2",' is not
    a move". It is read as the same moves as the words the hint prints."""
    first = run("hint", "-n", "7", "--peek", "--json")
    assert first.exit_code == 0, first.output
    line = json.loads(first.stdout)["line"]
    assert len(line) > 2
    as_json = run("hint", "-n", "7", "--moves", line[0], "--peek", "--json", "--line", json.dumps(line))
    as_words = run("hint", "-n", "7", "--moves", line[0], "--peek", "--json", "--line", " ".join(line))
    assert as_json.exit_code == 0 and as_words.exit_code == 0, as_json.output + as_words.output
    hints = [{k: v for k, v in json.loads(r.stdout).items() if k != "seconds"} for r in (as_json, as_words)]
    assert hints[0] == hints[1] and hints[0]["move"] == line[1] and hints[0]["line"] == line[1:]
    for bad in ('["c2", 5]', '[', '{"line": []}', '["zz"]'):
        refused = run("hint", "-n", "7", "--moves", line[0], "--peek", "--line", bad)
        assert refused.exit_code == 1 and "--line: " in refused.stderr, (bad, refused.output)
    # (around the line, as between its moves and in --moves, only ASCII white space is space:
    # '\u00a0c2' was read as c2, though 'c2\u00a0t8f' and --moves '\u00a0c2' are refused)
    for spaced in ("\u00a0" + " ".join(line), "\u2028" + json.dumps(line)):
        refused = run("hint", "-n", "7", "--moves", line[0], "--peek", "--line", spaced)
        assert refused.exit_code == 1 and "--line: " in refused.stderr, (spaced, refused.output)
    assert run("hint", "-n", "7", "--peek", "--moves", "\u00a0" + line[0]).exit_code == 1


@pytest.mark.parametrize(("args", "said"), [
    (["export"], "Error: give --game ID (one or more) or --all"),
    (["export", "--all", "--game", "x"], "Error: give --game ID (one or more) or --all, not both"),
    (["export", "--game", "x", "--all"], "Error: give --game ID (one or more) or --all, not both"),
])
def test_export_says_whether_it_wants_games_named_or_not_both(args: list[str], said: str,
                                                              tmp_path: Path) -> None:
    """export --all --game x was told "give --game ID (one or more) or
    --all", as if it had given neither."""
    result = CliRunner().invoke(main, [*args, "--db", str(tmp_path / "none.sqlite")])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == said


def test_a_node_budget_is_said_to_give_way_to_the_time_budget_that_cuts_it_first() -> None:
    """solve --help said a --max-nodes budget 'gives the same answer on every
    machine', but --max-seconds (10 s by default) still applies beside it:
    Admiral's Patience deal 5 with 100,000,000 positions and 0.2 s is
    'unknown (budget ran out: time)'. The help says so."""
    result = run("solve", "-v", "admirals-patience", "-n", "5", "--max-nodes", "100000000",
                 "--max-seconds", "0.2", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["result"], answer["reason"]) == ("unknown", "time")
    words = " ".join(run("solve", "--help").output.split())
    promise = words.split("--max-nodes", 1)[1].split("--first-win", 1)[0]
    assert "same answer on every machine" in promise and "unless --max-seconds runs out first" in promise


def test_survey_help_names_the_budget_each_player_gets_by_default() -> None:
    """survey --help writes the default budgets out by hand ('10 for
    perfect, 1800 for fair, 60 for greedy and random'): they are those of
    DEFAULT_BUDGET, which a change could otherwise leave behind."""
    from terrace.cli.solver import DEFAULT_BUDGET

    words = " ".join(run("survey", "--help").output.split())
    said = words.split("--max-seconds", 1)[1].split("--scheduler", 1)[0]
    for player, seconds in DEFAULT_BUDGET.items():
        assert f"{seconds:g} for" in said and player in said, (player, seconds, said)
    assert "10 for perfect, 1800 for fair, 60 for greedy and random" in said
    assert set(DEFAULT_BUDGET) == {"perfect", "fair", "greedy", "random"}
