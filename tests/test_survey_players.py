"""Surveys for every player: the verdict store keyed by player (old stores
migrated), resumable runs, ``terrace survey --json`` and ``terrace hint``."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from store_support import locked_by_another
from terrace.board import Board
from terrace.cli import main
from terrace.deal import DEAL_VERSION
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.players import player_key, player_settings
from terrace.solver.survey import run_survey
from terrace.solver.tally import Z95, summarise, summary_json, usable, wilson_interval
from terrace.solver.verdicts import (
    SOLVER_VERSION,
    Verdict,
    VerdictCacheError,
    VerdictStore,
    at_budget,
    rules_key,
    settled,
)
from terrace.variants import get_rules

SUMMARY_KEYS = {"deals", "won", "lost", "unknown", "win_rate", "wilson_low", "wilson_high", "seconds"}
JSON_KEYS = {"variant", "rules", "player", "first_deal", "last_deal", "max_seconds", "seed", "settings",
             *SUMMARY_KEYS}


def test_a_schema_1_store_is_migrated_and_keeps_its_verdicts(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    rules = get_rules("falling-star")
    with sqlite3.connect(path) as old:  # the layout before players were keyed
        old.execute(
            "CREATE TABLE verdicts (rules TEXT NOT NULL, deal INTEGER NOT NULL, version INTEGER NOT NULL,"
            " solver INTEGER NOT NULL, result TEXT NOT NULL, nodes INTEGER NOT NULL,"
            " seconds REAL NOT NULL, max_seconds REAL NOT NULL, line TEXT NOT NULL,"
            " PRIMARY KEY (rules, deal, version))")
        old.execute("INSERT INTO verdicts VALUES (?, 7, ?, ?, 'won', 99, 0.5, 10.0, 's wf')",
                    (rules_key(rules), DEAL_VERSION, SOLVER_VERSION))
    store = VerdictStore(path)
    assert store.get(rules, 7) == Verdict("won", 99, 0.5, 10.0, "s wf")
    greedy = player_key("greedy")
    assert store.get(rules, 7, greedy) is None
    store.put(rules, 7, Verdict("lost", 0, 0.1, 60.0, "s s"), greedy)
    assert store.get(rules, 7).result == "won" and store.get(rules, 7, greedy).result == "lost"
    store.close()
    again = VerdictStore(path)  # opening a migrated store changes nothing
    assert again.range(rules, 1, 10) == {7: Verdict("won", 99, 0.5, 10.0, "s wf")}
    again.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 2


def _bytes_of(path: Path) -> bytes:
    return path.read_bytes()


@pytest.mark.parametrize("layout", [3, 999, -5])
def test_a_cache_of_an_unknown_layout_is_refused_and_left_unchanged(tmp_path: Path, layout: int) -> None:
    path = tmp_path / "future.sqlite3"
    VerdictStore(str(path)).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {layout}")
    db.close()
    before = _bytes_of(path)
    with pytest.raises(VerdictCacheError, match=f"layout {layout}, which this version"):
        VerdictStore(str(path))
    assert _bytes_of(path) == before


@pytest.mark.parametrize("table", ["foo (x)", "verdicts (x, y)"])
def test_another_programs_database_is_refused_and_left_unchanged(tmp_path: Path, table: str) -> None:
    """(A table named verdicts of another layout gave "no such column: rules".)"""
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(f"CREATE TABLE {table}")
    db.close()
    before = _bytes_of(path)
    with pytest.raises(VerdictCacheError, match="another program"):
        VerdictStore(str(path))
    assert _bytes_of(path) == before
    result = CliRunner().invoke(main, ["deal", "-n", "1", "--winnable", "--verdicts-db", str(path)])
    assert result.exit_code == 1 and "another program" in result.output
    assert _bytes_of(path) == before


@pytest.mark.parametrize(("column", "value"), [
    ("seconds", "'x'"), ("max_seconds", "'abc'"), ("nodes", "1.5"), ("nodes", "'many'"),
    ("result", "'maybe'"),
])
def test_a_row_damaged_by_hand_counts_as_missing_and_is_solved_again(
    tmp_path: Path, column: str, value: str
) -> None:
    path = str(tmp_path / "v.sqlite3")
    rules = get_rules("falling-star")
    store = VerdictStore(path)
    store.put_many(rules, {1: Verdict("won", 5, 0.1, 10.0, "c1"), 2: Verdict("lost", 3, 0.1, 10.0)})
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE verdicts SET {column} = {value} WHERE deal = 1")
    db.close()
    assert store.get(rules, 1) is None and store.range(rules, 1, 2).keys() == {2}
    verdicts, _ = run_survey(rules, 1, 2, jobs=1, max_seconds=5, store=store)
    assert verdicts[1].result in ("won", "lost") and store.get(rules, 1) == verdicts[1]
    store.close()


def test_surveys_resume_per_player(tmp_path: Path) -> None:
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    rules = get_rules("falling-star")
    played: list[int] = []
    first, _ = run_survey(rules, 1, 4, jobs=1, max_seconds=60, store=store, player="greedy",
                          on_result=lambda n, v: played.append(n))
    assert sorted(played) == [1, 2, 3, 4]
    again, _ = run_survey(rules, 1, 5, jobs=1, max_seconds=60, store=store, player="greedy",
                          on_result=lambda n, v: played.append(n))
    assert sorted(played) == [1, 2, 3, 4, 5] and again.keys() == {1, 2, 3, 4, 5}
    assert all(again[n] == first[n] for n in first)
    other, _ = run_survey(rules, 1, 2, jobs=1, max_seconds=60, store=store, player="random", seed=3,
                          on_result=lambda n, v: played.append(n))
    assert sorted(played) == [1, 1, 2, 2, 3, 4, 5]
    for number, verdict in other.items():
        board = Board.from_number(number, rules)
        for move in verdict.line.split():
            board.push(Move.parse(move))
        assert board.is_won() == (verdict.result == "won")
    with pytest.raises(ValueError, match="budget"):
        run_survey(rules, 1, 2, jobs=1, max_seconds=float("nan"), store=store, player="greedy")
    store.close()


def test_survey_json_summary() -> None:
    verdicts = {1: Verdict("won", 0, 1.0, 5.0), 2: Verdict("lost", 0, 2.0, 5.0),
                3: Verdict("unknown", 0, 5.0, 5.0), 4: Verdict("won", 0, 1.0, 5.0)}
    data = summary_json(summarise(verdicts), 9.0)
    assert set(data) == SUMMARY_KEYS
    assert (data["deals"], data["won"], data["lost"], data["unknown"]) == (4, 2, 1, 1)
    assert data["win_rate"] == 0.5 and data["seconds"] == 9.0
    assert data["wilson_low"] == round(wilson_interval(2, 4)[0], 6)
    assert data["wilson_high"] == round(wilson_interval(3, 4)[1], 6)


@pytest.mark.parametrize("player", ["perfect", "greedy", "random"])
def test_cli_survey_json_for_every_player(tmp_path: Path, player: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "v.sqlite3")
    args = ["survey", "-v", "falling-star", "--deals", "3-5", "--jobs", "1", "--player", player,
            "--db", db, "--json"]
    if player == "perfect":
        args += ["--max-seconds", "2"]
    monkeypatch.chdir(tmp_path)  # (no --out: nothing is written where it runs)
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert set(data) == JSON_KEYS and data["deals"] == 3
    # the report names its survey
    named = (data["variant"], data["player"], data["first_deal"], data["last_deal"])
    assert named == ("falling-star", player, 3, 5)
    assert data["rules"]["reserve"] == 11 and data["max_seconds"] > 0
    assert data["won"] + data["lost"] + data["unknown"] == 3
    if player != "perfect":
        assert data["unknown"] == 0
    assert not list(tmp_path.rglob("*.md")) and not list(tmp_path.rglob("*.png"))


def test_cli_survey_json_names_the_seed_and_the_players_settings(tmp_path: Path) -> None:
    """Two surveys that differ only in --seed or --samples give other
    verdicts: each report says which it was (it named neither, so two
    reports of different surveys could not be told apart)."""
    db = str(tmp_path / "v.sqlite3")
    base = ["survey", "-v", "falling-star", "--deals", "4", "--jobs", "1", "--db", db, "--json"]
    reports = []
    for extra in (["--player", "random", "--seed", "5"], ["--player", "random", "--seed", "6"],
                  ["--player", "fair", "--samples", "1", "--max-seconds", "0.2"]):
        out = CliRunner().invoke(main, [*base, *extra])
        assert out.exit_code == 0, out.output
        reports.append(json.loads(out.stdout))
    assert [r["seed"] for r in reports] == [5, 6, 0]
    assert reports[0]["settings"] == {} and reports[2]["settings"]["samples"] == 1
    assert reports[2]["settings"] == player_settings("fair", {"samples": 1})


def test_cli_survey_refuses_bad_input(tmp_path: Path) -> None:
    db = str(tmp_path / "v.sqlite3")
    for extra in (["--player", "greedy", "--samples", "4"], ["--player", "fair", "--samples", "0"],
                  ["--max-seconds", "nan"], ["--player", "best"]):
        out = CliRunner().invoke(main, ["survey", "--deals", "1-2", "--db", db, *extra])
        assert out.exit_code == 2, (extra, out.output)


def test_cli_survey_fair_player_table(tmp_path: Path) -> None:
    db = str(tmp_path / "v.sqlite3")
    args = ["survey", "-v", "falling-star", "--deals", "4", "--jobs", "1", "--player", "fair",
            "--samples", "2", "--max-seconds", "0.5", "--db", db, "--out", str(tmp_path)]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert "falling-star (fair)" in out.output
    [table] = tmp_path.glob("survey-falling-star-4-4-fair-*.md")  # not the default samples and budget
    assert table.read_text().count("|") > 10


def test_cli_hint_fair_and_peek() -> None:
    runner = CliRunner()
    base = ["hint", "-v", "falling-star", "-n", "4", "--moves", "s s", "--seconds", "60"]
    out = runner.invoke(main, [*base, "--json", "--samples", "2", "--seed", "3"])
    assert out.exit_code == 0, out.output
    fair = json.loads(out.stdout)
    board = Board.from_number(4, get_rules("falling-star"))
    board.push_text("s")
    board.push_text("s")
    assert fair["fair"] is True and Move.parse(fair["move"]) in board.legal_moves
    assert fair["kind"] in ("sampled", "safe", "only")
    if fair["kind"] == "sampled":
        assert fair["samples"] >= 2 and 0 <= fair["win_share"] <= 1
        assert fair["wins"] == round(fair["win_share"] * fair["samples"])
    again = json.loads(runner.invoke(main, [*base, "--json", "--samples", "2", "--seed", "3"]).stdout)
    assert again["move"] == fair["move"] and again["choices"] == fair["choices"]
    peek = json.loads(runner.invoke(main, [*base, "--json", "--peek"]).stdout)
    assert peek["fair"] is False and peek["kind"] == "winnable"
    line = [Move.parse(m) for m in peek["line"]]
    for move in line:
        board.push(move)
    assert board.is_won() and peek["move"] == peek["line"][0]
    text = runner.invoke(main, [*base, "--samples", "2"]).output
    assert "does not look at face-down cards" in text


def test_cli_hint_refuses_bad_input() -> None:
    runner = CliRunner()
    out = runner.invoke(main, ["hint", "-v", "falling-star", "-n", "4", "--moves", "s wt9"])
    # refused as replay and show refuse a move (cli/errors.py: ILLEGAL_MOVE), not as a usage error
    assert out.exit_code == 1 and out.stderr.startswith("move 2 is illegal: wt9: the 6♦ cannot go on")
    out = runner.invoke(main, ["hint", "-v", "falling-star", "-n", "4", "--seconds", "-1"])
    assert out.exit_code == 2 and "budget" in out.output
    out = runner.invoke(main, ["hint", "-v", "falling-star"])
    assert out.exit_code == 2


def test_an_older_solvers_unknown_is_solved_again_but_its_verdicts_stand(tmp_path: Path) -> None:
    path = str(tmp_path / "v.sqlite3")
    rules = get_rules("generals-patience")
    store = VerdictStore(path)
    store.put_many(rules, {1: Verdict("won", 5, 0.1, 10.0, "c1 s"), 2: Verdict("lost", 5, 0.1, 10.0),
                           3: Verdict("unknown", 9, 10.0, 10.0)})
    assert sorted(store.range(rules, 1, 3)) == [1, 2, 3]
    store.close()
    with sqlite3.connect(path) as db:  # as an older solver would have left them
        db.execute("UPDATE verdicts SET solver = ?", (SOLVER_VERSION - 1,))
    store = VerdictStore(path)
    assert sorted(store.range(rules, 1, 3)) == [1, 2]
    assert store.get(rules, 3) is None and store.get(rules, 1) == Verdict("won", 5, 0.1, 10.0, "c1 s")
    store.put(rules, 3, Verdict("won", 7, 2.0, 10.0, "c2 s"))  # the newer solver's answer replaces it
    assert store.range(rules, 3, 3) == {3: Verdict("won", 7, 2.0, 10.0, "c2 s")}
    store.close()


def test_an_unknown_never_replaces_a_proof_nor_a_longer_search(tmp_path: Path) -> None:
    rules = get_rules("falling-star")
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    store.put(rules, 5, Verdict("won", 123, 2.5, 3.0, "s wf"))  # another process proved it meanwhile
    store.put(rules, 5, Verdict("unknown", 9, 1.0, 1.0))
    store.put_many(rules, {5: Verdict("unknown", 9, 1.0, 1.0), 6: Verdict("unknown", 9, 3.0, 3.0)})
    store.put_many(rules, {6: Verdict("unknown", 9, 1.0, 1.0)})
    assert store.get(rules, 5) == Verdict("won", 123, 2.5, 3.0, "s wf")
    assert store.get(rules, 6) == Verdict("unknown", 9, 3.0, 3.0)
    store.put(rules, 6, Verdict("lost", 50, 0.5, 1.0))  # a proof replaces an unknown
    store.put(rules, 5, Verdict("won", 12, 0.2, 0.3, "s"))  # and a faster win the slower one
    assert store.get(rules, 6).result == "lost" and store.get(rules, 5).seconds == 0.2
    store.close()


@pytest.mark.parametrize("column, value", [("seconds", "1e999"), ("seconds", "-1"), ("nodes", "-5"),
                                           ("max_seconds", "-1e999"), ("seconds", "'x'"),
                                           ("seconds", "1e308")])
def test_a_row_with_impossible_figures_counts_as_missing(tmp_path: Path, column: str, value: str) -> None:
    """(A search of 1e308 s: two of them summed to infinity, and the survey's
    JSON report said "seconds": Infinity.)"""
    rules = get_rules("falling-star")
    path = str(tmp_path / "v.sqlite3")
    store = VerdictStore(path)
    store.put(rules, 3, Verdict("won", 10, 0.5, 5.0, "s"))
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE verdicts SET {column} = {value}")
    assert store.get(rules, 3) is None and store.range(rules, 1, 9) == {}
    store.put(rules, 3, Verdict("unknown", 1, 5.0, 5.0))  # the damaged row is replaced, even by an unknown
    assert store.get(rules, 3) == Verdict("unknown", 1, 5.0, 5.0)
    store.close()


def test_a_survey_counts_stored_verdicts_as_they_stand_at_its_budget(tmp_path: Path) -> None:
    rules = get_rules("falling-star")
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    slow = Verdict("won", 10**6, 2.5, 10.0, "(found with 10 s)")
    store.put_many(rules, {1: slow, 2: Verdict("lost", 10**6, 3.0, 10.0),
                           3: Verdict("unknown", 10**6, 10.0, 10.0),
                           4: Verdict("won", 99, 0.01, 10.0, "(quick)")})
    verdicts, _ = run_survey(rules, 1, 4, jobs=1, max_seconds=0.3, store=store)
    assert verdicts[1] == Verdict("won", 10**6, 0.3, 10.0, "(found with 10 s)")  # final; 0.3 s at this budget
    assert verdicts[2] == Verdict("lost", 10**6, 0.3, 10.0)  # a proof holds; it costs 0.3 s at this budget
    assert verdicts[3] == Verdict("unknown", 10**6, 0.3, 10.0)
    assert verdicts[4] == Verdict("won", 99, 0.01, 10.0, "(quick)")
    assert max(v.seconds for v in verdicts.values()) <= 0.3 + 0.2
    assert store.get(rules, 1).result == "won"  # the store keeps the 10 s win
    store.close()


def test_deal_ranges_with_a_space_inside_a_number_are_refused() -> None:
    from terrace.solver.survey import parse_range

    for text in ("1 2", "1 2-5", "3-4 5", "1\t0"):
        with pytest.raises(ValueError, match="not a range"):
            parse_range(text)
    assert parse_range(" 3 - 9 ") == (3, 9)
    assert parse_range("7-7") == parse_range("7") == (7, 7)  # a range of one deal
    out = CliRunner().invoke(main, ["survey", "--deals", "1 2", "--json", "--verdicts-db", "/nonexistent/x"])
    assert out.exit_code == 2 and "not a range" in out.output


def test_a_won_or_lost_counts_at_any_budget() -> None:
    """A won or lost is final, whatever budget found it (played again at a
    smaller budget, it could never replace the stored one, so each resume
    played it again); an unknown counts only at a budget no larger than its own."""
    stored = {1: Verdict("lost", 9, 2.5, 10.0), 2: Verdict("won", 9, 0.1, 10.0),
              3: Verdict("unknown", 9, 0.1, 0.1)}
    assert set(usable(stored, 0.3)) == {1, 2}
    assert set(usable(stored, 0.1)) == {1, 2, 3}


def test_the_wilson_interval_never_leaves_zero_to_one() -> None:
    """At 0 or all of n the rounding of the formula lands just outside
    (1.0000000000000002 for 16 of 16): the interval is clipped."""
    for trials in range(1, 200):
        for successes in (0, trials):
            low, high = wilson_interval(successes, trials)
            assert 0.0 <= low <= high <= 1.0


def test_the_wilson_interval_of_none_or_all_starts_at_0_or_ends_at_1_exactly() -> None:
    """0 wins of 3 had a lower end of 5.55e-17, not 0 (45,067 of the counts
    from 1 to 100,000), and 30 of 30 an upper end of 0.9999999999999999: a
    researcher testing ``low == 0`` for a preset never won was told it was
    not. The other end is the closed form, z^2 / (n + z^2) and n / (n + z^2)."""
    z2 = Z95 * Z95
    for trials in range(1, 2001):
        low, high = wilson_interval(0, trials)
        assert low == 0.0 and high == pytest.approx(z2 / (trials + z2), abs=1e-12), trials
        low, high = wilson_interval(trials, trials)
        assert high == 1.0 and low == pytest.approx(trials / (trials + z2), abs=1e-12), trials
    summary = summarise({deal: Verdict("unknown", 0, 0.1, 0.1) for deal in range(3)})
    assert (summary.low, summary.high) == (0.0, 1.0)


def test_a_verdict_at_exactly_its_budget_counts() -> None:
    """A search stops a little after its budget: a win found with the same
    budget counts though it took a few ms more, and a budget no larger than
    one already spent settles the deal."""
    late = Verdict("won", 9, 0.31, 0.3)
    assert at_budget(late, 0.3) == late
    assert at_budget(late, 0.2) == Verdict("won", 9, 0.2, 0.3)  # (final; it costs that budget)
    assert settled(Verdict("unknown", 9, 1.0, 1.0), 1.0)
    assert not settled(Verdict("unknown", 9, 1.0, 1.0), 1.5)
    assert settled(Verdict("lost", 9, 1.0, 1.0), 100.0) and not settled(None, 1.0)


def test_a_verdict_found_in_no_time_is_kept(tmp_path: Path) -> None:
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    rules = get_rules("terrace")
    store.put(rules, 1, Verdict("won", 0, 0.0, 0.0, "c1"))
    assert store.get(rules, 1) == Verdict("won", 0, 0.0, 0.0, "c1")
    store.close()


def test_a_store_of_the_current_layout_is_opened_without_a_write(tmp_path: Path) -> None:
    """Opening a store always wrote (its layout, again), so a store that may
    only be read (a read-only disk) could not even be read: "database
    error: attempt to write a readonly database". A writer holding the
    file (here, another connection's write lock) no longer holds up the
    opening either."""
    path = tmp_path / "v.sqlite3"
    store = VerdictStore(str(path))
    store.put(Rules(), 3, Verdict("won", 10, 0.1, 5.0))
    store.close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        started = time.perf_counter()
        again = VerdictStore(str(path))
        assert time.perf_counter() - started < 5
        assert again.get(Rules(), 3) == Verdict("won", 10, 0.1, 5.0)
        again.close()
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_verdict_that_cannot_be_stored_names_the_store(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    store = VerdictStore(str(path))
    store._db.execute("PRAGMA query_only = ON")  # (as on a read-only disk)
    with pytest.raises(VerdictCacheError, match=r"v\.sqlite3: the verdicts could not be stored \(attempt"):
        store.put(Rules(), 3, Verdict("won", 10, 0.1, 5.0))
    with pytest.raises(VerdictCacheError, match="could not be stored"):
        store.put_many(Rules(), {4: Verdict("lost", 10, 0.1, 5.0)})
    store.close()


@pytest.mark.parametrize("text", ["٣-٩", "1-１０", "1_0", "1-" + "9" * 5000, "9" * 41])
def test_deal_ranges_in_other_digits_or_too_long_are_refused_in_words(text: str) -> None:
    """A range of 5,000 digits gave Python's own words ('Exceeds the limit
    (4300 digits) for integer string conversion...')."""
    from terrace.solver.survey import parse_range

    with pytest.raises(ValueError, match="is not a range of deal numbers such as 1-10000") as info:
        parse_range(text)
    assert len(str(info.value)) < 300


def test_a_verdict_cache_left_mid_write_by_a_killed_survey_is_taken_up_again(tmp_path: Path) -> None:
    """A survey killed (SIGKILL) while it wrote left a hot rollback journal
    beside the cache; the next survey's read-only check could not roll it
    back and refused the file as damaged ('attempt to write a readonly
    database'), although SQLite's next write undoes the half-written
    transaction as it should. The cache is now taken, the half-write undone."""
    import subprocess
    import sys

    from terrace.storage.files import check_verdict_cache

    cache = tmp_path / "v.sqlite3"
    store = VerdictStore(str(cache))
    rules = get_rules("terrace")
    store.put(rules, 1, Verdict("won", 10, 0.1, 1.0, "(x)"))
    store.close()
    writer = ("import os, sqlite3, sys\n"
              "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
              "db.execute('PRAGMA cache_size = 1')\n"
              "db.execute('BEGIN IMMEDIATE')\n"
              "db.execute('CREATE TABLE filler (x)')\n"
              "db.executemany('INSERT INTO filler VALUES (?)', [('x' * 500,)] * 2000)\n"
              "os.kill(os.getpid(), 9)\n")
    done = subprocess.run([sys.executable, "-c", writer, str(cache)], capture_output=True, timeout=60)
    assert done.returncode == -9 and Path(f"{cache}-journal").stat().st_size > 0
    check_verdict_cache(cache)
    again = VerdictStore(str(cache))
    assert again.get(rules, 1) == Verdict("won", 10, 0.1, 1.0, "(x)")
    tables = {row[0] for row in again._db.execute("SELECT name FROM sqlite_master")}
    assert "filler" not in tables  # (the half-written transaction was undone)
    again.close()


def test_a_refused_survey_leaves_no_folder_of_out_behind(tmp_path: Path) -> None:
    """The folders of --out were made before the verdict cache was looked
    at, so a survey refused for it (or stopped before it wrote anything)
    left them behind; they are made when the table is written."""
    (tmp_path / "notes.txt").write_text("not a verdict cache\n")
    out = tmp_path / "tables" / "terrace"
    result = CliRunner().invoke(main, ["survey", "--deals", "1", "--verdicts-db", str(tmp_path / "notes.txt"),
                                       "--out", str(out)])
    assert result.exit_code == 1 and "not a verdict cache" in result.output, result.output
    assert not (tmp_path / "tables").exists()
    result = CliRunner().invoke(main, ["survey", "-v", "falling-star", "--deals", "3", "--jobs", "1",
                                       "--verdicts-db", str(tmp_path / "v.sqlite3"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert [path.name for path in out.glob("*.md")] == ["survey-falling-star-3-3.md"]
    result = CliRunner().invoke(main, ["survey", "--deals", "1", "--verdicts-db", str(tmp_path / "v.sqlite3"),
                                       "--out", str(tmp_path / "notes.txt" / "below")])
    assert result.exit_code == 1 and "notes.txt is not a folder" in result.output, result.output


@pytest.mark.parametrize("seed", [None, float("nan"), -1, 2.5, "1", True])
def test_a_survey_seed_that_is_no_whole_number_is_refused_before_anything_runs(tmp_path: Path,
                                                                              seed: object) -> None:
    """run_survey stored the random player's verdicts under the seed it was
    given: '"seed":NaN' (no JSON), 'null', and under -1 or "1" the games of
    seed 1 (the deal's seed is made from its text) under another key."""
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    with pytest.raises(ValueError, match=r"^seed must be a whole number >= 0, not "):
        run_survey(get_rules("falling-star"), 1, 2, jobs=1, max_seconds=0.01, store=store, player="random",
                   seed=seed)  # type: ignore[arg-type]
    assert store.is_empty()
    store.close()


def test_a_verdict_that_another_programs_lock_keeps_out_is_said_to_be_busy(tmp_path: Path) -> None:
    """Another program writing the cache (its lock held past the store's
    wait) kept a survey's verdicts out with 'the verdicts could not be
    stored (database is locked)'; a read held up so said the cache is
    busy, and so does a write now."""
    path = tmp_path / "v.sqlite3"
    store = VerdictStore(str(path), timeout=0.05)
    with locked_by_another(path):
        for write in (store.check_writable, lambda: store.put(Rules(), 3, Verdict("won", 10, 0.1, 5.0))):
            with pytest.raises(VerdictCacheError) as refused:
                write()
            assert str(refused.value) == ("the verdict cache v.sqlite3 is busy (another program holds it): "
                                          "try again")
    store.close()
