"""Solver tests: every won line replays, lost verdicts agree with a plain
exhaustive search, the API contract, the CLI, surveys and the verdict cache."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import random
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, cast

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import heap_of_this_test_alone, wait_for_cpu
from solver_brute import (
    ENDGAME_SEEDS,
    ENDGAME_VERDICTS,
    PLAIN_BEYOND,
    RULE_SETS,
    brute_force,
    built_position,
    cards_in_play,
    endgame_position,
    endgame_verdict,
    with_detours,
)
from terrace.board import Board
from terrace.cli import main
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import Hint, SolveResult, hint, solve
from terrace.solver.options import DEFAULT_SEED
from terrace.solver.prune import reserve_dead
from terrace.solver.search import Options, Search, slot_keys
from terrace.solver.state import State
from terrace.solver.tally import summarise, wilson_interval
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.solver.winnable import next_winnable_deal
from terrace.variants import get_rules

TWO_CORES = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2, reason="a survey runs no pool of workers on one core"
)

NO_PRUNING = Options(canonical=False, safe_moves=False, dead_reserve=False)


def replays_to_win(board: Board, moves: list[Move]) -> bool:
    copy = board.copy(stack=False)
    for move in moves:
        copy.push(move)
    return copy.is_won()


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_verdicts_match_plain_exhaustive_search(rules: Rules) -> None:
    checked = lost = 0
    in_play = cards_in_play(rules)
    kept = ENDGAME_VERDICTS[RULE_SETS.index(rules)]
    assert len(kept) == ENDGAME_SEEDS
    for seed in range(ENDGAME_SEEDS):
        board = Board.from_position(endgame_position(seed, rules, in_play).position(), rules)
        before = board.position()
        # (the search again, but for the endgames it gave up on: what the
        # other tests read of ENDGAME_VERDICTS is what it says)
        reference = None if kept[seed] == "?" else brute_force(board, 20_000)
        assert reference == endgame_verdict(rules, seed), (seed, "see ENDGAME_VERDICTS")
        fast = solve(board, max_seconds=30)  # (seconds with the compiled core)
        plain = solve(board, max_seconds=30, options=NO_PRUNING, hunt=False)
        assert board.position() == before
        for result in (fast, plain):
            assert result.result in ("won", "lost")
            if result.result == "won":
                assert replays_to_win(board, result.moves)
        assert fast.result == plain.result
        if reference is not None:
            checked += 1
            lost += reference == "lost"
            assert fast.result == reference, board.position()
    assert checked >= 20


BUILT_RULES = [
    *RULE_SETS,
    Rules(decks=8, reserve=10, piles=4, candidates=0, redeals=2),
    Rules(decks=3, reserve=6, piles=5, candidates=0, foundations="suit", spaces="free"),
]
"""The rule sets of the built positions: those of the endgames, and eight
and three decks."""


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])  # (shuffles)
@given(rules=st.sampled_from(BUILT_RULES), rng=st.randoms(use_true_random=False))
def test_verdicts_match_plain_exhaustive_search_on_built_positions(rules: Rules, rng: random.Random) -> None:
    # the endgames above have a card or none in each pile: the multiset keys
    # of built runs, equal piles, empty foundations and passes used are
    # checked here
    board = built_position(rng, rules, cards_in_play(rules))
    fast = solve(board, max_seconds=30)
    plain = solve(board, max_seconds=30, options=NO_PRUNING, hunt=False)
    reference = None if plain.result == "lost" and plain.nodes > PLAIN_BEYOND else brute_force(board, 20_000)
    python = Search(board, Options(core="python"))
    while not python.step(math.inf, max_nodes=4096) and python.nodes < 100_000:
        pass
    for result in (fast, plain):
        assert result.result in ("won", "lost"), board.position()
        if result.result == "won":
            assert replays_to_win(board, result.moves)
    assert fast.result == plain.result, board.position()
    assert python.result in (None, fast.result), board.position()
    assert reference in (None, fast.result), board.position()


EDGE_RULES = [
    Rules(decks=1, reserve=3, piles=2, candidates=0, spaces="waste", foundation_return=True),
    Rules(decks=1, reserve=3, piles=2, candidates=0, foundations="suit", spaces="waste", redeals=1,
          foundation_return=True),
    Rules(decks=2, reserve=4, piles=3, candidates=0, foundations="suit", foundation_return=True),
    Rules(decks=1, reserve=0, piles=1, candidates=0),
    Rules(decks=1, reserve=1, piles=1, candidates=0, spaces="free", redeals=3),
    Rules(decks=2, reserve=1, piles=1, candidates=0, foundations="suit", spaces="waste", redeals=3),
    Rules(decks=8, reserve=0, piles=2, candidates=0, spaces="waste", redeals=3),
]
"""Rules at the edges of the options the play after the base card reads,
which the rule sets above leave out: foundation-return with waste-only
spaces and with suit foundations; one pile; no
reserve or a single card; three redeals; eight decks without a reserve."""


@pytest.mark.parametrize("rules", EDGE_RULES, ids=lambda r: r.describe())
def test_verdicts_and_hints_match_plain_exhaustive_search_at_the_edges_of_the_options(rules: Rules) -> None:
    verdicts = []
    for seed in range(8):
        board = built_position(random.Random(seed), rules, 8)
        reference = brute_force(board, 20_000)
        fast = solve(board, max_seconds=30)
        python = Search(board, Options(core="python"))
        while not python.step(math.inf, max_nodes=4096) and python.nodes < 60_000:
            pass
        assert fast.result in ("won", "lost"), board.position()
        assert reference in (None, fast.result), board.position()
        assert python.result in (None, fast.result), board.position()
        verdicts.append(reference)
        if fast.result == "won":
            assert replays_to_win(board, fast.moves)
            found = hint(board, 1.0)
            assert found.kind == "winnable" and found.move is not None, board.position()
            after = board.copy(stack=False)
            after.push(found.move)
            assert brute_force(after, 20_000) in (None, "won"), (board.position(), str(found.move))
    assert verdicts.count(None) <= 2


def test_built_positions_have_what_they_are_built_for() -> None:
    boards = [built_position(random.Random(seed), rules, cards_in_play(rules))
              for seed in range(8) for rules in BUILT_RULES]
    keys = [[tuple(slot_keys(b.rules.in_suit)[c] for c in pile) for pile in b.tableau] for b in boards]
    # (of 104: 37 with a run of three or more, 10 with equal piles, 23 with
    # an empty foundation, 17 with a pass used; of the first 40, 26 lost, 13 won)
    assert sum(any(len(pile) >= 3 for pile in b.tableau) for b in boards) >= 20
    assert sum(any(a and a == b for a, b in itertools.pairwise(piles)) for piles in keys) >= 5
    assert sum(any(not f for f in b.foundations) for b in boards) >= 10
    assert sum(b.redeals_used > 0 for b in boards) >= 8
    verdicts = [brute_force(b, 20_000) for b in boards[:40]]
    assert verdicts.count("lost") >= 10 and verdicts.count("won") >= 5


def test_lost_verdicts_are_checked_at_all() -> None:
    # (ENDGAME_VERDICTS is what the plain search says: the test above checks it)
    assert ENDGAME_VERDICTS[1].count("l") >= 5  # (RULE_SETS[1]: foundations in suit)


def test_one_deck_deal_from_the_start() -> None:
    rules = Rules(decks=1, reserve=3, piles=3, candidates=0)
    board = Board.from_number(1, rules)
    assert brute_force(board, 200_000) == "lost"
    assert solve(board, max_seconds=20).result == "lost"


def test_won_deal_replays_and_is_quick() -> None:
    board = Board.from_number(4, get_rules("falling-star"))
    began = time.thread_time()  # (CPU time: the wall clock, result.seconds, a busy machine stretches)
    result = solve(board, max_seconds=10)
    assert isinstance(result, SolveResult)
    assert result.result == "won"
    assert time.thread_time() - began < 1.0  # (0.005 s measured, 340 positions)
    assert replays_to_win(board, result.moves)
    assert result.candidates == []
    data = result.to_dict()
    assert data["result"] == "won" and data["moves"][0] == str(result.moves[0])


def test_a_win_whose_line_cannot_be_replayed_in_time_is_not_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every won line is replayed before it is returned, within the budget
    (plus api.REPLAY_GRACE): one whose replay would overrun it leaves its
    candidate unknown instead of overrunning the budget."""
    import terrace.solver.api as api

    board = Board.from_number(4, get_rules("falling-star"))
    search = Search(board, Options())
    search.step(10.0)
    assert search.result == "won" and search.line
    assert search.replay_until(board, search.line, 0.0) is None  # the clock has passed it
    assert search.replay(board, search.line)[1].is_won()
    monkeypatch.setattr(api, "REPLAY_GRACE", -1e9)  # no time is ever left to replay
    result = solve(board, max_seconds=0.5)
    assert (result.result, result.reason, result.moves) == ("unknown", "time", [])


def test_choosing_phase_gives_every_candidate() -> None:
    board = Board.from_number(2, get_rules("terrace"))
    before = board.position()
    result = solve(board, max_seconds=10)
    assert board.position() == before and board.choosing
    assert [str(m) for m, _ in result.candidates] == ["c1", "c2", "c3"]
    assert result.result == "won"
    assert result.moves[0].is_choice
    assert dict((str(m), r) for m, r in result.candidates)[str(result.moves[0])] == "won"
    assert replays_to_win(board, result.moves)


def test_solve_from_the_middle_of_a_game() -> None:
    board = Board.from_number(4, get_rules("falling-star"))
    line = solve(board, max_seconds=5).moves
    for move in line[:40]:
        board.push(move)
    result = solve(board, max_seconds=5)
    assert result.result == "won"
    assert replays_to_win(board, result.moves)


def test_budgets_give_unknown() -> None:
    board = Board.from_number(2, get_rules("falling-star"))
    result = solve(board, max_seconds=10, max_nodes=3000)
    if result.result == "unknown":
        assert result.reason == "nodes"
        assert result.moves == []
    assert result.nodes < 20_000


def test_won_and_lost_positions() -> None:
    rules = RULE_SETS[0]
    for seed in range(ENDGAME_SEEDS):
        board = endgame_position(seed, rules, cards_in_play(rules))
        if endgame_verdict(rules, seed) == "lost":
            break
    else:  # pragma: no cover
        pytest.fail("no lost position found")
    assert solve(board, max_seconds=5).result == "lost"
    h = hint(board, 0.5)
    assert isinstance(h, Hint) and h.kind == "lost"
    assert h.move is None or h.move in list(board.legal_moves)


def test_hint_winnable() -> None:
    board = Board.from_number(4, get_rules("falling-star"))
    h = hint(board, 1.0)
    assert h.kind == "winnable" and h.move == h.line[0]
    assert replays_to_win(board, h.line)


def test_hint_heuristic_is_legal() -> None:
    board = Board.from_number(2, get_rules("falling-star"))
    h = hint(board, 0.05)
    assert h.kind in ("heuristic", "furthest", "winnable", "lost")
    assert h.move in list(board.legal_moves)


@pytest.mark.parametrize(("variant", "number"),
                         [("falling-star", 1), ("terrace", 2), ("generals-patience", 1)])
def test_following_the_hint_never_returns_to_a_position_and_ends(variant: str, number: int) -> None:
    # each call solves afresh: two winning lines that mirror each other, or
    # a lost position's idle moves, once made the hints undo one another
    board = Board.from_number(number, get_rules(variant))
    seen = {board.position()}
    for _ in range(600):
        found = hint(board, 0.3)
        if found.move is None:
            break
        board.push(found.move)
        assert board.position() not in seen, f"{found.move} returns to a position ({found.kind})"
        seen.add(board.position())
    assert found.move is None or board.is_won()
    assert board.is_won() or found.kind in ("lost", "none", "heuristic")


def test_wilson_and_summary() -> None:
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and 0.27 < high < 0.28
    verdicts = {
        1: Verdict("won", 10, 0.1, 1.0),
        2: Verdict("lost", 10, 0.2, 1.0),
        3: Verdict("unknown", 10, 1.0, 1.0),
    }
    s = summarise(verdicts)
    assert (s.won, s.lost, s.unknown) == (1, 1, 1)
    assert s.low == wilson_interval(1, 3)[0] and s.high == wilson_interval(2, 3)[1]


def test_cli_solve_json() -> None:
    runner = CliRunner()
    out = runner.invoke(main, ["solve", "--variant", "falling-star", "-n", "4", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["result"] == "won" and data["candidates"] == []
    board = Board.from_number(4, get_rules("falling-star"))
    assert replays_to_win(board, [Move.parse(m) for m in data["moves"]])
    out = runner.invoke(main, ["solve", "-n", "2", "--json", "--max-seconds", "5"])
    data = json.loads(out.output)
    assert [c["choice"] for c in data["candidates"]] == ["c1", "c2", "c3"]
    out = runner.invoke(main, ["solve", "-v", "falling-star", "-n", "4"])
    assert "result: won" in out.output


def test_cli_solve_first_win_stops_at_the_first_winning_base_card() -> None:
    runner = CliRunner()
    common = ["solve", "-n", "5", "--max-nodes", "1000000", "--json"]
    every = json.loads(runner.invoke(main, common).output)
    first = json.loads(runner.invoke(main, [*common, "--first-win"]).output)
    # every base card: the budget runs out on c3; the first win: far fewer positions
    assert every["result"] == first["result"] == "won"
    assert "unknown" in [c["result"] for c in every["candidates"]]
    assert first["nodes"] * 4 < every["nodes"]
    board = Board.from_number(5, get_rules("terrace"))
    assert replays_to_win(board, [Move.parse(m) for m in first["moves"]])


def test_cli_survey_resumes(tmp_path: Path) -> None:
    db = str(tmp_path / "v.sqlite3")
    args = ["survey", "-v", "falling-star", "--deals", "3-6", "--jobs", "1",
            "--max-seconds", "0.3", "--db", db, "--out", str(tmp_path)]
    runner = CliRunner()
    out = runner.invoke(main, args)
    assert out.exit_code == 0, out.output
    assert "Wilson 95% interval" in out.output
    [table] = tmp_path.glob("survey-falling-star-3-6-*.md")  # 0.3 s is not the default budget
    assert table.read_text().count("|") > 10
    assert table.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 4
    out = runner.invoke(main, args)
    assert out.exit_code == 0


def test_cli_survey_files_name_their_survey_and_reproduce_it(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "v.sqlite3")
    monkeypatch.setenv("HOME", str(tmp_path))
    base = ["survey", "-v", "falling-star", "--deals", "3-4", "--jobs", "1", "--player", "random", "--db", db]
    runs = [["--seed", "1"], ["--seed", "2"], ["--max-seconds", "30"], ["--redeals", "1"], []]
    names = set()
    for extra in runs:
        monkeypatch.setattr(sys, "argv", ["terrace", "--debug", "survey", *base[1:], *extra])
        out = CliRunner().invoke(main, ["--debug", *base, *extra, "--out", "~/tables"])
        assert out.exit_code == 0, out.output
        made = {path.name for path in (tmp_path / "tables").glob("*.md")} - names
        assert len(made) == 1, (extra, made)  # a new file for every different survey
        names |= made
        reproduce = (tmp_path / "tables" / made.pop()).read_text().split("Reproduce: `")[1].split("`")[0]
        assert reproduce.startswith("terrace survey -v falling-star "), reproduce
        assert "--deals 3-4 " in reproduce and "--player random " in reproduce
        assert "survey survey" not in reproduce and "--debug" not in reproduce
        assert all(word in reproduce.split() for word in extra)
    assert "survey-falling-star-3-4-random.md" in names  # the defaults keep the plain name
    assert not Path("~").exists()


def test_cli_survey_refuses_an_out_that_is_not_a_folder(tmp_path: Path) -> None:
    for out in ("/dev/null",):  # (click refuses a regular file itself)
        result = CliRunner().invoke(main, ["survey", "--deals", "1", "--db", str(tmp_path / "v.sqlite3"),
                                           "--out", out])
        assert result.exit_code == 2 and f"'--out': '{out}' is not a folder" in result.output, result.output


def test_cli_survey_refuses_an_out_it_cannot_write_in_or_make(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The system's refusal is said after the folder, before any deal is
    solved (a survey's files are written after it; the tests run as root,
    whom no folder's permissions refuse, so the refusals are made here)."""
    import tempfile

    import terrace.cli.solver as cli_solver

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    out = tmp_path / "report"
    with monkeypatch.context() as patched:
        patched.setattr(tempfile, "TemporaryFile", refused)
        result = CliRunner().invoke(main, ["survey", "--deals", "1", "--db", str(tmp_path / "v.sqlite3"),
                                           "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert f"cannot write the survey's table and chart to {out}: Permission denied" in result.output
    monkeypatch.setattr(Path, "mkdir", refused)
    with pytest.raises(click.ClickException) as made:
        cli_solver._make_folder(out)
    assert made.value.message == f"cannot write the survey's table and chart to {out}: Permission denied"


def test_winnable_deal_uses_the_cache(tmp_path: Path) -> None:
    db = str(tmp_path / "w.sqlite3")
    rules = get_rules("falling-star")
    number = next_winnable_deal(rules, 4, max_seconds=2, db_path=db)
    assert number == 4
    store = VerdictStore(db)
    verdict = store.get(rules, 4)
    store.close()
    assert verdict is not None and verdict.result == "won"
    board = Board.from_number(4, rules)
    assert replays_to_win(board, [Move.parse(m) for m in verdict.line.split()])
    out = CliRunner().invoke(main, ["deal", "--winnable", "-v", "falling-star", "-n", "4",
                                    "--db", db])
    assert out.exit_code == 0
    deal = Board.from_number(4, rules).deal
    rules_line, cards = out.stdout.splitlines()  # (a deal file of Falling Star says its rules)
    assert deal is not None and cards == deal.text() and rules_line == "# rules: --variant falling-star"


def test_a_winnable_search_stopped_before_any_verdict_leaves_no_empty_cache(tmp_path: Path) -> None:
    # (before: Ctrl+C in `deal --winnable` left an empty solver.sqlite3, as
    # a survey stopped early once did)
    from terrace.solver.winnable import NoWinnableDealError
    rules = get_rules("falling-star")
    made = tmp_path / "new.sqlite3"
    with pytest.raises(NoWinnableDealError, match="cancelled"):
        next_winnable_deal(rules, 4, max_seconds=2, db_path=str(made), cancel=lambda: True)
    assert not made.exists() and list(tmp_path.iterdir()) == []
    there = tmp_path / "there.sqlite3"
    VerdictStore(str(there)).close()  # an empty cache that was there before stays
    with pytest.raises(NoWinnableDealError):
        next_winnable_deal(rules, 4, max_seconds=2, db_path=str(there), cancel=lambda: True)
    assert there.exists()
    assert next_winnable_deal(rules, 4, max_seconds=2, db_path=str(made)) == 4
    assert made.exists()  # (a verdict stored: kept)


def test_a_winnable_search_that_runs_out_of_tries_names_the_deals_it_tried(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of tries, the search names the deals it looked at, the first to
    the last (a mutation audit: the last one misnamed went unnoticed); the
    verdicts come from the cache, where three deals are lost."""
    from terrace.solver import winnable
    rules = get_rules("falling-star")
    db = str(tmp_path / "w.sqlite3")
    store = VerdictStore(db)
    for number in (5, 6, 7):
        store.put(rules, number, Verdict("lost", 1, 0.0, 2.0))
    store.close()
    monkeypatch.setattr(winnable, "MAX_TRIES", 3)
    with pytest.raises(winnable.NoWinnableDealError) as info:
        next_winnable_deal(rules, 5, max_seconds=2, db_path=db)
    assert str(info.value) == "no deal from 5 to 7 was proved winnable within 2 s each"
    assert info.value.tried == 3


def test_a_winnable_search_with_budget_under_a_second_in_all_still_reads_the_cache(tmp_path: Path) -> None:
    """A budget of 0.9 s in all still takes a win from the verdict cache
    (a mutation audit: giving up with 1 s left, not 0, went unnoticed)."""
    rules = get_rules("falling-star")
    db = str(tmp_path / "w.sqlite3")
    store = VerdictStore(db)
    store.put(rules, 4, Verdict("won", 1, 0.0, 2.0, "c1"))
    store.close()
    assert next_winnable_deal(rules, 4, max_seconds=2, total_seconds=0.9, db_path=db) == 4


def test_terrace_card_needing_cards_beneath_it_is_lost_at_once() -> None:
    # Base ace. The exposed terrace card 3H needs a red ace and then a black
    # two on one foundation, but both black twos lie beneath it.
    rules = Rules(decks=1, reserve=3, piles=3, candidates=0)
    placed = ["AS", "2S", "2C", "3H", "KD", "QS", "JH"]
    rest = [c for c in (r + s for s in "SHDC" for r in "A23456789TJQK") if c not in placed]
    text = f"A 2S2C3H AS,,, KD,QS,JH - {''.join(rest)} 0"
    board = Board.from_position(text, rules)
    with heap_of_this_test_alone():
        began = time.thread_time()  # (CPU time: the wall clock, result.seconds, a busy machine stretches)
        result = solve(board, max_seconds=5)
        spent = time.thread_time() - began
    assert result.result == "lost"
    assert result.nodes <= 5 and spent < 0.5
    assert brute_force(board, 50_000) in ("lost", None)


def _any_schedule(s: State, avail: list[list[int]] | None = None) -> bool:
    """Whether some schedule serves every reserve card (docs/winnability.md,
    "Reserve schedule"), trying every foundation low enough for each card,
    not only the highest one the solver takes. With ``avail`` (before each
    reserve card in play order, how many cards of each slot key may have gone
    up by then), the cards each one waits for must be among those too."""
    t = s.t
    supply = [s.off[k] - s.pref[len(s.res)][k] for k in range(t.nslot)]
    for cls in range(t.classes):
        row = t.chain[cls]
        heights = [j for j in range(1, 13) for _ in range(s.want[row[j]])]
        heights += [0] * (s.class_size - s.done[cls] - len(heights))
        events = [(i, t.height[t.sk[c]]) for i, c in enumerate(reversed(s.res)) if t.class_of[t.sk[c]] == cls]

        def limit(index: int, key: int) -> int:
            return supply[key] if avail is None else min(supply[key], avail[index][key])

        def serve(e: int, heights: tuple[int, ...], used: tuple[int, ...], row: tuple[int, ...] = row,
                  events: list[tuple[int, int]] = events) -> bool:
            if e == len(events):
                return True
            index, top = events[e]
            for h in sorted(set(heights)):
                if h > top:
                    break
                more = list(used)
                for j in range(h, top):
                    more[j] += 1
                if any(more[j] > limit(index, row[j]) for j in range(13)):
                    continue
                rest = list(heights)
                rest.remove(h)
                if top < 12:
                    rest.append(top + 1)
                if serve(e + 1, tuple(sorted(rest)), tuple(more)):
                    return True
            return False

        if not serve(0, tuple(sorted(heights)), (0,) * 13):
            return False
    return True


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])  # (shuffles)
@given(rules=st.sampled_from(BUILT_RULES), rng=st.randoms(use_true_random=False), in_play=st.integers(4, 40))
def test_the_reserve_schedule_cuts_exactly_when_no_schedule_exists(
        rules: Rules, rng: random.Random, in_play: int) -> None:
    # the exchange argument: serving each reserve card from the highest
    # foundation not above it finds a schedule whenever any choice does
    rules = rules.replace(foundation_return=False, reserve=min(rules.card_count - rules.piles - 1, 12))
    state = State(built_position(rng, rules, in_play), True, 0)
    assert reserve_dead(state) == (not _any_schedule(state)), state


def test_cancel_stops_the_search_at_once() -> None:
    """Asked after every short slice (counted in this thread's CPU time, which a
    busy machine does not stretch), and nothing more runs once it says stop."""
    board = Board.from_number(1, get_rules("admirals-patience"))  # undecided for minutes
    asked: list[float] = []
    started = time.thread_time()

    def cancel() -> bool:
        asked.append(time.thread_time())
        return len(asked) >= 2

    result = solve(board, max_seconds=60, cancel=cancel)
    after = time.thread_time()
    assert result.result == "unknown"
    assert result.reason == "cancelled"
    assert len(asked) == 2
    assert asked[-1] - started < 2.0  # two slices of 0.02 s (and their hunters' turns)
    assert after - asked[-1] < 0.5


def _tidy_by_full_replays(board: Board, moves: list[Move], max_tries: int | None) -> list[Move]:
    """The plain reading of tidying: every pair's try replays the whole rest
    (the pair, and the pairs inside it that it drops first, found by
    ``lines.returned``, whose inner tries count as tries)."""
    from terrace.solver.lines import NESTED_TRIES, returned

    tries = 0
    current = board.copy(stack=False)
    i = 0
    while i < len(moves):
        m = moves[i]
        if m.source == "t" and m.target == "t" and (max_tries is None or tries < max_tries):
            nested = NESTED_TRIES if max_tries is None else min(NESTED_TRIES, max_tries - tries - 1)
            left = [nested]
            line, j = returned(current, moves, i, math.inf, left)
            tries += nested - left[0]
            if j >= 0:
                tries += 1
                rest = line[i + 1:j] + line[j + 1:]
                if replays_to_win_or_not(current, rest):
                    moves = line[:i] + rest
                    continue
        current.push(m)
        i += 1
    return moves


def replays_to_win_or_not(board: Board, moves: list[Move]) -> bool:
    try:
        return replays_to_win(board, moves)
    except ValueError:
        return False


@pytest.mark.parametrize("variant", ["terrace", "falling-star", "wood", "madame"])
def test_tidying_gives_what_full_replays_give(variant: str) -> None:
    from terrace.solver.api import _tidy

    rules = get_rules(variant)
    checked = dropped = 0
    for number in (1, 2, 3):
        board = Board.from_number(number, rules)
        result = solve(board, max_seconds=20, max_nodes=200_000)
        if result.result != "won":
            continue
        start = board.copy(stack=False)
        line = result.moves
        if start.choosing:
            start.push(line[0])
            line = line[1:]
        for seed in range(3):
            noisy = with_detours(start, line, seed)
            assert replays_to_win(start, noisy)
            for tries in (None, 64, 3):
                expected = _tidy_by_full_replays(start, noisy, tries)
                assert _tidy(start, noisy, 1e9, max_tries=tries) == expected
                checked += 1
                dropped += len(noisy) - len(expected)
            assert replays_to_win(start, _tidy(start, noisy, 1e9))
    assert checked >= 9 and dropped > 0


def test_hunters_restarting_from_the_best_line_win_what_fresh_restarts_do_not() -> None:
    # General's Patience deal 89: fresh restarts alone stay unknown even at
    # 30 million positions; restarts from the best line win it within four
    # million (3.5 million since solver version 8, which draws the restart
    # points with SplitMix64; a million before), and the line (the way to
    # the restart point, then the hunter's own moves) replays from the deal
    board = Board.from_number(89, get_rules("generals-patience"))
    fresh = solve(board, max_seconds=60, max_nodes=4_000_000, all_candidates=False,
                  options=Options(elite=False))
    assert fresh.result == "unknown"
    found = solve(board, max_seconds=60, max_nodes=4_000_000, all_candidates=False)
    assert found.result == "won"
    assert replays_to_win(board, found.moves)
    again = solve(board, max_seconds=60, max_nodes=4_000_000, all_candidates=False)
    assert again.moves == found.moves  # counted in positions, the same line on any machine


class _FakeHunter:
    """What a task learns from a finished hunter: its best line and count."""

    def __init__(self, found: int, tag: int = 0) -> None:
        self.best_found = found
        self.tag = tag

    def best_line(self) -> list[int]:
        return [self.best_found] + [self.tag] * bool(self.tag)


def test_a_best_line_that_stops_improving_is_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    from terrace.solver import api
    monkeypatch.setattr(api, "STALE_HUNTERS", 3)
    board = Board.from_number(2, get_rules("generals-patience"))
    board.push(Move.choose(2))

    def learn(task: api._Task, *founds: int) -> tuple[list[int], int]:
        for found in founds:
            task._learn(cast(Search, _FakeHunter(found)))
        return task.hunters.elite, task.hunters.elite_found

    task = api._Task(board, None, Options(), hunt=False)
    assert learn(task, 10) == ([10], 10)
    assert learn(task, 9, 10) == ([10], 10)  # not better: kept, and counted
    assert learn(task, 12, 5, 5) == ([12], 12)  # better: the count starts again
    assert learn(task, 5) == ([], -1)  # the third in a row without a better line: forgotten
    assert learn(task, 5) == ([5], 5)  # the next hunter's line is the new best
    task._learn(cast(Search, _FakeHunter(5, tag=7)))
    hunters = task.hunters
    assert (hunters.elite, hunters.elite_found, hunters.stale) == ([5, 7], 5, 1)  # as good: replaces, counts
    task._learn(cast(Search, _FakeHunter(4, tag=8)))
    assert (hunters.elite, hunters.stale) == ([5, 7], 2)  # worse: kept
    plain = api._Task(board, None, Options(elite=False), hunt=False)
    assert learn(plain, 10, 5, 5, 5) == ([], -1)  # the fair player's hunters keep no line


def test_the_hunters_share_grows_sooner_when_they_learn_from_their_best_line() -> None:
    from terrace.solver import api
    board = Board.from_number(2, get_rules("generals-patience"))
    board.push(Move.choose(2))
    for options, switch, later in ((Options(), api.EARLY_AFTER, api.LEARNING_HUNTER_SHARE),
                                   (Options(elite=False), api.LATE_AFTER, api.LATE_HUNTER_SHARE)):
        task = api._Task(board, None, options, hunt=False)
        task.search.nodes = switch - 1
        assert task._hunter_share() == api.HUNTER_SHARE
        task.search.nodes = switch
        assert task._hunter_share() == later
    assert api.EARLY_AFTER < api.LATE_AFTER


def test_the_seed_moves_the_hunters_move_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    from terrace.solver import api
    board = Board.from_number(2, get_rules("generals-patience"))
    board.push(Move.choose(2))
    orders: list[int] = []
    restart = Search.restart

    def record(self: Search, shuffle: int, prefix: list[int], *, checked: bool = True) -> None:
        orders.append(shuffle)
        restart(self, shuffle, prefix, checked=checked)

    monkeypatch.setattr(Search, "restart", record)

    def hunters(seed: int) -> list[int]:
        orders.clear()
        task = api._Task(board, None, Options(seed=seed), hunt=True)
        for _ in range(4):
            task.hunter = task._new_hunter()
        return list(orders)

    default = hunters(DEFAULT_SEED)
    assert default == [2, 3, 4, 5]  # the default seed keeps the measured runs' orders
    other, third = hunters(DEFAULT_SEED + 1), hunters(DEFAULT_SEED - 7)
    assert len({*default, *other, *third}) == 12 and 0 not in other + third


@pytest.mark.parametrize(("level", "lds", "dig"), [(0, 0, 0), (0, 0, 1), (2, 0, 0), (0, 2, 0)],
                         ids=["nested", "nested-digging", "nrpa", "lds"])
def test_the_nested_hunter_takes_its_share_of_the_hunting(
    monkeypatch: pytest.MonkeyPatch, level: int, lds: int, dig: int,
) -> None:
    from terrace.solver import api
    monkeypatch.setattr(api, "NRPA_LEVEL", level)
    monkeypatch.setattr(api, "LDS_KIND", lds)
    monkeypatch.setattr(api, "NESTED_DIG", dig)
    board = Board.from_number(2, get_rules("admirals-patience"))
    board.push(Move.choose(1))
    assert api._Task(board, None, Options(), hunt=True).nested is None  # NESTED_SHARE 0: measured, not used
    if not Search(board).compiled:
        pytest.skip("the nested hunter needs the compiled core")
    monkeypatch.setattr(api, "NESTED_SHARE", 0.5)
    assert api._Task(board, None, Options(elite=False), hunt=True).nested is None  # the fair player's
    task = api._Task(board, None, Options(), hunt=True)
    for _ in range(4):  # (past 131,072 positions of the complete search: the late share too)
        task.step(time.perf_counter() + 60, 50_000)
    assert task.result is None and task.nested is not None and task.hunter is not None
    kind = task.nested.options
    assert (kind.nrpa, kind.lds, kind.dig_only, kind.nested) == (level, lds, bool(lds or dig),
                                                                 not level and not lds)
    hunters = task.hunters.spent + task.hunter.nodes
    assert 0.9 * hunters <= task.nested.nodes <= 1.2 * hunters


def test_an_exhausted_nested_hunter_hands_back_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from terrace.solver import api
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0)
    waste = "2S3S4S5S6S7S8S9STSJSQS2H3H4H5H6H7H8H9HTHJHQH2D3D4D5D6D7D8D9DTDJDQDKD2C4C5C6C7C8C9CTCJCQCKC3C"
    stuck = Board.from_position(f"A - AS,AH,AD,AC KS,KH {waste} - 0", rules)
    if not Search(stuck).compiled:
        pytest.skip("the nested hunter needs the compiled core")
    monkeypatch.setattr(api, "NESTED_SHARE", 0.5)
    task = api._Task(stuck, None, Options(), hunt=True)
    until = time.perf_counter() + 5.0
    assert not task._nest(until)  # nothing to play: exhausted, and no busy wait until the end
    assert time.perf_counter() < until and task.nested is None  # (1 s of 2 before: a busy machine took more)


@pytest.mark.parametrize("hunter", [Options(nested=True), Options(nrpa=2)], ids=["nested", "nrpa"])
def test_a_nested_hunter_wins_a_four_deck_deal_with_a_line_that_replays(hunter: Options) -> None:
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(Move.choose(1))
    if not Search(board).compiled:
        pytest.skip("the nested hunter needs the compiled core")
    search = Search(board, hunter)
    while not search.step(seconds=math.inf, max_nodes=1 << 16) and search.nodes < 2_000_000:
        pass
    assert search.result == "won"
    assert replays_to_win(board, search.moves_to_engine(board, search.line))


def test_best_line_leads_to_the_most_cards_up() -> None:
    board = Board.from_number(2, get_rules("generals-patience"))
    board.push(Move.choose(2))
    for core in ("python", "compiled") if Search(board).compiled else ("python",):
        search = Search(board, Options(core=core, shuffle=5))
        search.step(seconds=math.inf, max_nodes=3000)
        copy = board.copy(stack=False)
        for move in search.moves_to_engine(board, search.best_line()):
            copy.push(move)
        assert sum(len(f) for f in copy.foundations) == search.best_found > 1


@TWO_CORES
def test_sigterm_stops_a_local_survey_and_its_workers(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess

    command = [str(Path(sys.executable).parent / "terrace"), "survey", "-v", "admirals-patience",
               "--deals", "1-4", "--jobs", "2", "--max-seconds", "60", "--db", str(tmp_path / "v.sqlite3"),
               "--json"]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    survey = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def children() -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if entry.isdigit() and int(stat.read().rsplit(")", 1)[1].split()[1]) == survey.pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
        return found

    for _ in range(300):  # the pool's workers have started
        if len(children()) >= 2:
            break
        time.sleep(0.05)
    workers = children()
    assert len(workers) >= 2
    wait_for_cpu(lambda: _pool_workers(survey.pid), 0.3)  # the pool's workers are solving (was: a fixed 1 s)
    survey.send_signal(signal.SIGTERM)
    _, err = survey.communicate(timeout=20)  # (the pool's workers hold its pipes open while they run)
    # A stopped survey says where its verdicts are and how to go on, not "Aborted!",
    # with the status of a SIGTERM, as solve and hint (130 is Ctrl+C's).
    assert survey.returncode == 143
    assert b"the same command goes on from there" in err and b"Aborted" not in err

    def alive() -> list[int]:
        found = []
        for pid in workers:
            try:
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(pid)
            except OSError:  # (gone)
                continue
        return found

    deadline = time.monotonic() + 10  # (was a fixed 0.5 s: the workers end within it when quiet)
    while alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert alive() == []


def test_a_local_surveys_workers_end_with_it_when_it_is_killed(tmp_path: Path) -> None:
    """SIGKILL of the survey's own process (the out-of-memory killer, a
    batch system's hard stop): its pool's workers solved on for up to their
    deal's budget (the fair player's: 30 minutes), then each printed a
    BrokenPipeError traceback as it handed over a verdict nobody read."""
    import signal
    import subprocess

    command = [sys.executable, "-m", "terrace", "survey", "-v", "big-terrace", "--deals", "1-4",
               "--player", "fair", "--samples", "4096", "--jobs", "2", "--max-seconds", "600",
               "--verdicts-db", str(tmp_path / "v.sqlite3"), "--json"]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    survey = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True)

    def session() -> list[int]:
        """The processes of the survey's session (it, its workers, and when
        they were started by one, the fork server and the resource tracker)."""
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                if entry.isdigit() and int(fields[3]) == survey.pid and fields[0] != "Z":
                    found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
        return found

    deadline = time.monotonic() + 120
    while len(_pool_workers(survey.pid)) < 2:
        assert time.monotonic() < deadline, "no two workers after 120 s"
        assert survey.poll() is None, survey.communicate()[1][-2000:]
        time.sleep(0.05)
    os.kill(survey.pid, signal.SIGKILL)
    survey.wait()
    deadline = time.monotonic() + 30  # (a game of 4096 samples a move takes minutes)
    while session() and time.monotonic() < deadline:
        time.sleep(0.05)
    left = session()
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert survey.stderr is not None
    err = survey.stderr.read().decode()
    assert left == [], err[-2000:]
    assert "Traceback" not in err, err[-3000:]
    # (the resource tracker, which outlives the survey to remove its pool's
    # semaphores, warned of "6 leaked semaphore objects" after it had ended)
    assert "resource_tracker" not in err and "leaked" not in err, err[-3000:]


def test_the_watch_of_a_surveys_workers_keeps_no_finished_one_and_tells_a_killed_one() -> None:
    """Read, never polled (the pool's thread polls); a worker that ended
    well is let go (its pipes close), one killed ends the survey."""
    import multiprocessing
    from types import SimpleNamespace

    from terrace.solver.pool import WorkerDiedError, watched

    class Results:
        def __init__(self, answers: list[Any]) -> None:
            self.answers = answers

        def next(self, timeout: float) -> Any:
            answer = self.answers.pop(0)
            if isinstance(answer, BaseException):
                raise answer
            return answer

    class Worker:  # (as a pool's Process: its exit code kept by its Popen)
        def __init__(self, code: int | None) -> None:
            self._popen = SimpleNamespace(returncode=code)

        @property
        def exitcode(self) -> int:
            raise AssertionError("polled: the pool's own thread may lose the exit code")

    pool = SimpleNamespace(_pool=[Worker(0)])
    answers = [(1, "v", 0), multiprocessing.TimeoutError(), (2, "w", 0), StopIteration()]
    results = watched(pool, Results(answers))
    assert next(results) == (1, "v", 0)
    pool._pool = []  # (ended after its 50 deals: the pool dropped it)
    assert next(results) == (2, "w", 0)
    assert results.gi_frame is not None and results.gi_frame.f_locals["running"] == {}  # let go
    assert list(results) == []
    killed = Worker(-9)
    with pytest.raises(WorkerDiedError, match="a worker process died"):
        list(watched(SimpleNamespace(_pool=[killed]), Results([multiprocessing.TimeoutError()])))


def test_a_killed_worker_ends_the_survey_while_the_others_still_give_verdicts() -> None:
    """The watch looked at the workers only when no verdict came for half a
    second: with the other worker busy, a survey of a million deals went on
    for its whole range after one was killed."""
    from types import SimpleNamespace

    from terrace.solver.pool import WATCH_SECONDS, WorkerDiedError, watched

    class Flowing:  # a verdict every tenth of a second
        given = 0

        def next(self, timeout: float) -> Any:
            time.sleep(0.1)
            self.given += 1
            return (self.given, "v", 0)

    results = Flowing()
    killed = SimpleNamespace(_popen=SimpleNamespace(returncode=-9))
    with pytest.raises(WorkerDiedError):
        for _ in watched(SimpleNamespace(_pool=[killed]), results):
            assert results.given < 100
    assert results.given <= WATCH_SECONDS / 0.1 + 3


def _verdicts_stored(path: Path) -> int:
    """How many verdicts the survey's database holds yet (0 before it has one)."""
    if not path.exists():
        return 0
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1)
        try:
            return int(db.execute("SELECT count(*) FROM verdicts").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:  # (not made yet, or being written)
        return 0


def _parents() -> dict[int, int]:
    """Every process's parent (Linux's /proc)."""
    import os

    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                found[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return found


def _pool_workers(survey: int) -> list[int]:
    """The worker processes of the local survey whose process is ``survey``:
    its children when it forked them, else the fork server's. A process
    with children of its own (the fork server) is none, nor multiprocessing's
    resource tracker."""
    parents = _parents()
    children = [pid for pid, parent in parents.items() if parent == survey]
    below = children + [pid for pid, parent in parents.items() if parent in children]
    return [pid for pid in below if pid not in parents.values() and not _is_resource_tracker(pid)]


def _is_resource_tracker(pid: int) -> bool:
    try:
        return b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@TWO_CORES
def test_a_survey_whose_worker_dies_ends_with_one_clear_line(tmp_path: Path) -> None:
    """A worker killed (by hand, or by the kernel for its memory) lost its
    deal: the survey used to wait for it for ever. It ends at once, saying
    what happened, where the verdicts so far are, and how to go on."""
    import os
    import signal
    import subprocess

    command = [str(Path(sys.executable).parent / "terrace"), "survey", "-v", "admirals-patience",
               "--deals", "101-106", "--jobs", "2", "--max-seconds", "3", "--db", str(tmp_path / "v.sqlite3"),
               "--json"]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    survey = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    workers: list[int] = []
    for _ in range(400):  # the pool's workers have started
        workers = _pool_workers(survey.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.05)
    assert workers, "no worker started"
    wait_for_cpu(lambda: workers[:1], 0.3)  # solving (was: a fixed 1 s)
    os.kill(workers[0], signal.SIGKILL)
    _, err = survey.communicate(timeout=60)
    text = err.decode()
    assert survey.returncode == 1, text[-2000:]
    assert "a worker process died" in text and "the same command goes on from there" in text
    assert "Traceback" not in text


def test_ctrl_c_stops_a_survey_with_one_line_and_no_traceback_from_its_workers(tmp_path: Path) -> None:
    """Ctrl+C reaches the whole process group: the pool's workers ignore it
    (they printed tracebacks), and the survey stops as its own process says."""
    import os
    import signal
    import subprocess

    # (Terrace's deals are solved in milliseconds: the workers spend much
    # of their time in Python, where an interrupt raises at once)
    command = [str(Path(sys.executable).parent / "terrace"), "survey", "--deals", "9001-12000",
               "--jobs", "2", "--max-seconds", "0.5", "--db", str(tmp_path / "v.sqlite3")]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    survey = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True,  # (Ctrl+C not ignored, as a terminal starts it)
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # the workers have started and are solving: a verdict has been stored
    # (a fixed 4 s waited mostly for nothing, and on a loaded machine could
    # still find the workers importing)
    deadline = time.monotonic() + 120
    while _verdicts_stored(tmp_path / "v.sqlite3") == 0:
        assert survey.poll() is None and time.monotonic() < deadline, survey.communicate()
        time.sleep(0.05)
    os.killpg(survey.pid, signal.SIGINT)
    _, err = survey.communicate(timeout=60)
    text = err.decode()
    assert survey.returncode == 130, text[-2000:]
    assert "the same command goes on from there" in text
    # the count said is the rows stored, to the deal (a stop between storing and counting was one short)
    said = re.search(r"stopped: the ([0-9,]+) deals? solved in this run", text)
    assert said is not None
    db = sqlite3.connect(tmp_path / "v.sqlite3")
    rows = db.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    db.close()
    assert int(said.group(1).replace(",", "")) == rows
    assert "Traceback" not in text and "Aborted" not in text, text[-3000:]


def test_cli_solve_json_says_why_a_result_is_unknown() -> None:
    """The text report says "(budget ran out: nodes)"; the JSON says it in
    ``reason`` (null for a decided result), so that a script can tell a
    budget of time from one of positions or memory."""
    runner = CliRunner()
    by_nodes = json.loads(runner.invoke(main, ["solve", "-n", "7", "--max-nodes", "1", "--json"]).output)
    assert by_nodes["result"] == "unknown" and by_nodes["reason"] == "nodes"
    # (a deal whose win takes over 100,000 positions: more than a millisecond, the least budget)
    by_time = json.loads(runner.invoke(main, ["solve", "-v", "admirals-patience", "-n", "1",
                                              "--max-seconds", "0.001", "--json"]).output)
    assert by_time["result"] == "unknown" and by_time["reason"] == "time"
    won = json.loads(runner.invoke(main, ["solve", "-v", "falling-star", "-n", "4", "--json"]).output)
    assert won["result"] == "won" and won["reason"] is None


def test_the_python_search_stops_at_its_memory_cap() -> None:
    """Options.max_entries bounds the transposition set of the pure-Python
    search too: it gives up with "memory" at the first new position past
    the cap, as the core does (test_solver_core checks the same position)."""
    from terrace.solver.search import SLICE

    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push_text("c1")
    search = Search(board, Options(core="python", max_entries=1_000))
    while not search.step():
        pass
    assert search.result == "memory" and search.nodes <= 2 * SLICE


def test_a_survey_starts_no_more_workers_than_it_has_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--jobs 32`` for three deals starts three processes, not 32 (each
    costs a process start: 10 s instead of 1 s for 40 deals)."""
    from terrace.solver import pool as local_pool
    from terrace.solver import survey

    sizes: list[int] = []
    real = local_pool._BoundedPool

    def counting(processes: int, **kwargs: Any) -> object:
        sizes.append(processes)
        return real(processes, **kwargs)

    monkeypatch.setattr(local_pool, "_BoundedPool", counting)
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    verdicts, _ = survey.run_survey(Rules(), 1, 3, jobs=32, max_seconds=2, store=store)
    store.close()
    assert sizes == [3] and sorted(verdicts) == [1, 2, 3]


def test_ctrl_c_while_the_workers_start_stops_the_survey(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+C was ignored while the pool started (a few tenths of a second,
    while the fork server imports): pressed then, it was lost and the
    survey ran to its end. It is ignored now only while the fork server's
    process starts, which its workers inherit."""
    import multiprocessing
    import signal

    from terrace.solver import pool as local_pool
    from terrace.solver import survey

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork server on this system")
    seen: list[object] = []
    real = local_pool._BoundedPool

    def watching(processes: int, **kwargs: Any) -> object:
        seen.append(signal.getsignal(signal.SIGINT))
        return real(processes, **kwargs)

    monkeypatch.setattr(local_pool, "_BoundedPool", watching)
    pool = survey.start_pool(1)
    try:
        assert seen and seen[0] is not signal.SIG_IGN
        # the workers ignore it from their start
        assert pool.apply(signal.getsignal, (signal.SIGINT,)) is signal.SIG_IGN
    finally:
        pool.terminate()
        pool.join()


def test_the_pure_python_search_keeps_its_time_budget() -> None:
    """Without the compiled core (a machine without a C compiler) a hunter's
    slice ran its million positions whatever the time: 5.8 s for a budget
    of 0.5 s on 8 decks and 20 piles."""
    board = Board.from_number(3, Rules(decks=8, piles=20, reserve=0, candidates=20))
    started = time.process_time()
    found = solve(board, max_seconds=0.5, options=Options(core="python"))
    took = time.process_time() - started  # (CPU time: a loaded machine's pauses are not the search's)
    assert took < 2.5, (took, found.nodes)
    assert found.result in ("won", "unknown")


def test_a_workers_standard_error_says_nothing_once_its_survey_has_gone() -> None:
    """The part of the fix that can be checked without a race: a worker
    writes its standard error through _SilentOnceGone, which forwards while
    the survey's process lives and drops everything once it has ended."""
    import io

    from terrace.solver.pool import _SilentOnceGone

    read_end, write_end = os.pipe()  # (the survey holds the write end while it lives)
    try:
        shown = io.StringIO()
        stream = _SilentOnceGone(shown, read_end)  # type: ignore[arg-type]
        stream.write("still here\n")
        stream.flush()
        os.close(write_end)  # the survey's process ends
        assert stream.write("Process ForkServerPoolWorker-1:\n") == len("Process ForkServerPoolWorker-1:\n")
        stream.flush()
        assert shown.getvalue() == "still here\n"
    finally:
        os.close(read_end)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfd on this system")
def test_a_workers_standard_error_says_nothing_once_the_survey_has_exited_before_the_fork_server() -> None:
    """A worker forked by the fork server watched only the fork server,
    which ends a moment after the survey it serves: a verdict handed to
    the survey killed in between printed the broken pipe's traceback (a
    fresh-clone CI run of the SIGKILL test below). The worker watches the
    survey's own process too (a pidfd, readable as soon as it has exited,
    before anyone reaps it)."""
    import io
    import subprocess

    from terrace.solver.pool import _ends_of, _SilentOnceGone

    server_alive, server_end = os.pipe()  # (the fork server lives on)
    survey = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        ends = _ends_of(survey.pid)
        shown = io.StringIO()
        stream = _SilentOnceGone(shown, server_alive, *ends)
        stream.write("still here\n")
        assert survey.stdin is not None
        survey.stdin.close()  # the survey's process ends (and stays unreaped)
        deadline = time.monotonic() + 30
        while Path(f"/proc/{survey.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        stream.write("Process ForkServerPoolWorker-1:\n")
        assert shown.getvalue() == "still here\n"
    finally:
        survey.wait()
        os.close(server_alive)
        os.close(server_end)


def _stderr_kind(_: int) -> str:
    return type(sys.stderr).__name__


def test_a_local_surveys_workers_write_their_errors_through_the_silencer() -> None:
    from terrace.solver.pool import start_pool

    pool = start_pool(1)
    try:
        assert pool.apply(_stderr_kind, (0,)) == "_SilentOnceGone"
    finally:
        pool.terminate()
        pool.join()


SURVEYS_KILLED = 16 if os.environ.get("TERRACE_SLOW") else 6


def test_surveys_killed_mid_run_leave_no_worker_traceback(tmp_path: Path) -> None:
    """SIGKILL of a local survey while its workers hand in verdicts: a worker
    that handed one in after the survey had gone (before its thread that
    ends it got the GIL) printed "Process ForkServerPoolWorker-1:" and part
    of a traceback, in about one such kill in four to six. Several surveys
    run at once and are killed once each has stored a few verdicts (16 with
    TERRACE_SLOW=1)."""
    import signal
    import subprocess

    surveys = []
    for index in range(SURVEYS_KILLED):
        folder = tmp_path / str(index)
        folder.mkdir()
        command = [sys.executable, "-m", "terrace", "survey", "--deals", "1-30000", "--jobs", "2",
                   "--max-seconds", "0.5", "--verdicts-db", str(folder / "v.sqlite3")]
        surveys.append((folder, subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.PIPE, start_new_session=True,
                                                 env={**os.environ, "XDG_DATA_HOME": str(folder)})))
    errors = []
    try:
        deadline = time.monotonic() + 240
        for folder, survey in surveys:
            while _verdicts_stored(folder / "v.sqlite3") < 3:
                assert survey.poll() is None and time.monotonic() < deadline, survey.communicate()[1][-2000:]
                time.sleep(0.02)
            os.kill(survey.pid, signal.SIGKILL)
        for _, survey in surveys:
            errors.append(survey.communicate(timeout=120)[1].decode())  # (until the workers have gone)
    finally:
        for _, survey in surveys:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(survey.pid, signal.SIGKILL)
            survey.wait()
    assert [error for error in errors if "Process" in error or "Traceback" in error] == []


@pytest.mark.parametrize(("name", "deal"), [("falling-star", 4), ("terrace", 11)])
def test_a_solve_cancelled_once_it_has_won_says_won_with_no_reason(name: str, deal: int) -> None:
    """A reason says why a result is unknown: a cancel heard after a
    candidate won (every candidate asked for, the cancel asked after each
    turn) leaves the win, with its line, and no reason."""
    board = Board.from_number(deal, get_rules(name))
    result = solve(board, max_seconds=60, cancel=lambda: True)
    assert (result.result, result.reason) == ("won", "")
    assert result.moves
