"""Every budget of the library really stops: budgets that would never run
out are refused before any work (and before any file is made), and the
searches end near their budgets at the extremes of the rule options."""

from __future__ import annotations

import math
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from click.testing import CliRunner

import terrace.solver.api as api
import terrace.solver.fair as fair_module
import terrace.solver.lines as lines
import terrace.solver.search as search_module
from terrace.board import Board
from terrace.cli import main
from terrace.cli.options import Seconds, WholeNumber
from terrace.limits import MAX_NODES, MAX_SECONDS
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.api import solve
from terrace.solver.budget import BudgetError, check_budget
from terrace.solver.fair import FairPlayer, FairSettings
from terrace.solver.observation import observe
from terrace.solver.players import player_settings
from terrace.solver.search import Options, Search
from terrace.solver.verdicts import VerdictStore
from terrace.solver.winnable import next_winnable_deal
from terrace.variants import get_rules


@pytest.mark.parametrize("seconds", [10**400, -(10**400)], ids=["huge", "huge-negative"])
def test_a_whole_number_beyond_any_float_is_refused_as_a_budget(seconds: int) -> None:
    """It raised OverflowError (from math.isfinite), not the ValueError of
    every other budget that never runs out."""
    with pytest.raises(BudgetError, match="must be a number of seconds from 0 to 86400"):
        check_budget(seconds)


_NO_SECONDS = [math.nan, math.inf, -math.inf, -1.0, 1e308, MAX_SECONDS * 1.01, 10**400, True, "10", None]
_NO_POSITIONS = [math.nan, 1.5, -1, MAX_NODES + 1, 10**400, True, "10"]


def _named(value: object) -> str:
    """A short test id for a value (10**400 is 401 digits)."""
    return "huge" if isinstance(value, int) and value > 10**20 else repr(value)


@pytest.mark.parametrize("seconds", _NO_SECONDS, ids=_named)
def test_the_python_api_refuses_the_seconds_the_command_line_refuses(seconds: object) -> None:
    """solve(board, max_seconds=1e308) and FairSettings(seconds=1e308) were
    taken (the command line stops at a day, MAX_SECONDS); the fair settings
    said ValueError and solve's budget too, a plain one each. Both refuse
    it with one BudgetError (a ValueError), before any search."""
    board = Board.from_number(4, get_rules("terrace"))
    with pytest.raises(BudgetError, match="must be a number of seconds"):
        solve(board, max_seconds=seconds)  # type: ignore[arg-type]
    with pytest.raises(BudgetError, match=r"^seconds must be a number of seconds"):
        FairSettings(seconds=seconds)  # type: ignore[arg-type]
    assert issubclass(BudgetError, ValueError)


@pytest.mark.parametrize("positions", _NO_POSITIONS, ids=_named)
def test_the_python_api_refuses_the_positions_the_command_line_refuses(positions: object) -> None:
    """FairPlayer(positions=10**400) was taken (no cap), and solve's
    max_nodes too beyond the command line's MAX_NODES."""
    board = Board.from_number(4, get_rules("terrace"))
    with pytest.raises(BudgetError, match=r"^max_nodes must be a whole number from 0 to 1000000000000"):
        solve(board, max_nodes=positions)  # type: ignore[arg-type]
    with pytest.raises(BudgetError, match=r"^positions must be a whole number from 0 to 1000000000000"):
        FairPlayer(positions=positions)  # type: ignore[arg-type]
    with pytest.raises(BudgetError, match=r"^samples must be a whole number from 1 to 4096"):
        FairSettings(samples=positions)  # type: ignore[arg-type]


def test_the_command_line_and_the_library_take_the_same_longest_budgets() -> None:
    """The command line's limits are the library's (terrace.limits), and the
    library takes what they allow."""
    assert Seconds().maximum == MAX_SECONDS
    board = Board.from_number(4, get_rules("terrace"))
    assert FairSettings(seconds=MAX_SECONDS).seconds == MAX_SECONDS
    assert FairPlayer(positions=MAX_NODES).budget == MAX_NODES
    assert solve(board, max_seconds=MAX_SECONDS, max_nodes=1).result in ("won", "lost", "unknown")
    from terrace.cli.solver import solve_command

    nodes = next(p for p in solve_command.params if p.name == "max_nodes")
    assert isinstance(nodes.type, WholeNumber) and nodes.type.maximum == MAX_NODES


@pytest.mark.parametrize("deadline", [math.nan, "soon", True])
def test_a_fair_decision_refuses_a_deadline_no_clock_reaches(deadline: object) -> None:
    """decide(obs, deadline=nan) never stopped by its deadline (no time is
    past NaN), and 'soon' failed inside the search with a TypeError."""
    board = Board.from_number(4, get_rules("terrace"))
    with pytest.raises(BudgetError, match=r"a deadline must be a time of time\.perf_counter"):
        FairPlayer(FairSettings(samples=1)).decide(observe(board), deadline)  # type: ignore[arg-type]


@pytest.mark.parametrize("settings", [{1: 2, "a": 3}, [("samples", 3)], "samples", None], ids=repr)
def test_fair_settings_that_are_no_json_object_are_refused_in_words(settings: object) -> None:
    """FairSettings.from_dict({1: 2, 'a': 3}) raised "'<' not supported
    between instances of 'str' and 'int'" (sorting the unknown keys), a
    list of pairs was 'unknown fair-player setting ('samples', 3)' (or,
    through player_settings, taken), a string was read letter by letter,
    None raised "'NoneType' object is not iterable"."""
    words = r"^(the fair player's settings are a JSON object|unknown fair-player setting)"
    with pytest.raises(BudgetError, match=words):
        FairSettings.from_dict(settings)  # type: ignore[arg-type]
    if settings is not None:
        with pytest.raises(BudgetError):
            player_settings("fair", settings)  # type: ignore[arg-type]


def test_a_fair_player_given_settings_of_another_kind_says_what_it_takes() -> None:
    """FairPlayer({"samples": 4}) was taken and failed at its first decision
    with AttributeError: 'dict' object has no attribute 'reuse'."""
    words = r"FairPlayer takes FairSettings \(FairSettings.from_dict reads a dict\), not dict"
    with pytest.raises(TypeError, match=words):
        FairPlayer({"samples": 4})  # type: ignore[arg-type]


@pytest.mark.parametrize("budget", [
    {"total_seconds": float("nan")}, {"total_seconds": float("inf")}, {"total_seconds": -1.0},
    {"max_seconds": float("nan")}, {"max_seconds": float("inf")}, {"max_seconds": -1.0},
])
def test_the_search_for_a_winnable_deal_refuses_a_budget_that_never_runs_out(
    budget: dict[str, float], tmp_path: Path
) -> None:
    """A NaN or infinite ``total_seconds`` never ran out: eight-deck deals
    were solved one after another for as long as one cared to wait; a bad
    ``max_seconds`` was refused only after the verdict cache was made."""
    db = tmp_path / "verdicts.sqlite"
    given_up = time.perf_counter() + 2  # (so that the test itself ends on the old code)
    with pytest.raises(ValueError, match="seconds"):
        next_winnable_deal(Rules(decks=8), 1, db_path=str(db), **{"max_seconds": 0.05, **budget},
                           cancel=lambda: time.perf_counter() > given_up)
    assert not db.exists()


def test_a_fair_decision_that_carries_thousands_of_samples_keeps_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The samples of the last decision were all moved on (each replaying
    its winning line) before the deadline was looked at: 1-4.6 s for a
    decision of 0.01 s after one of 4,096 samples (x2 at the choice). The
    player's clock is a stand-in that moves a millisecond at each reading,
    so the carry is counted, not timed: the deadline is ten readings away,
    and each sample carried reads the clock at least once. The first
    decision runs on that clock too, three thousand readings (927 samples,
    2 s of CPU): on the wall clock, 2 s of it, a load of 30 left it too few
    samples to carry."""
    board = Board.from_number(3, get_rules("terrace"))
    board.push_text("c1")
    player = FairPlayer(FairSettings(samples=4096, early=False, nodes=50), 0)
    now = [0.0]

    def reading() -> float:
        now[0] += 0.001
        return now[0]

    monkeypatch.setattr(fair_module, "time", SimpleNamespace(perf_counter=reading))
    first = player.decide(observe(board), 3.0)
    assert first.move is not None and len(player._samples) > 500  # (927 drawn)
    board.push(first.move)
    now[0] = 0.0
    second = player.decide(observe(board), 0.01)
    assert second.kept <= 10  # (every sample drawn, thousands, on the old code)


def _with_bounces(board: Board, line: list[Move], most: int) -> list[Move]:
    """``line`` with up to ``most`` pairs of moves inserted that shift a
    card to another pile and straight back (the line still wins)."""
    out: list[Move] = []
    here = board.copy(stack=False)
    for move in line:
        if most > 0 and not here.choosing:
            for shift in (m for m in here.legal_moves if m.source == "t" and m.target == "t"):
                back = Move("t", shift.target_index, "t", shift.source_index)
                after = here.copy(stack=False)
                after.push(shift)
                if after.is_legal(back):
                    here.push(shift)
                    here.push(back)
                    out += [shift, back]
                    most -= 1
                break
        here.push(move)
        out.append(move)
    assert here.is_won()
    return out


def test_tidying_a_line_under_a_node_budget_stops_at_the_safety_net(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a node budget, tidying was bounded only by its 64 tries, and a
    try whose shortened line never meets the line again replays the rest of
    it twice: 7 s for a 0.2 s budget on a line of 4,300 moves, minutes on
    lines of hundreds of thousands. The solve's deadline plus its share is
    its safety net now, as it is the shortening's."""
    board = Board.from_number(2, Rules(decks=8, reserve=0, piles=9, candidates=0, foundations="suit",
                                       spaces="free", redeals=9, foundation_return=True))
    found = solve(board, max_seconds=60, max_nodes=200_000, short_line=False)
    assert found.result == "won"
    task = SimpleNamespace(board=board, line=_with_bounces(board, found.moves, 80), choice=None)
    monkeypatch.setattr(lines, "same_position", lambda a, b: False)  # every try replays to the end
    started = time.perf_counter()
    began = time.process_time()  # (the wall clock: 1.7 s of it at load ~17)
    line = api._finished_line(cast(Any, task), 0.2, 10**6, started + 0.2, False)
    assert time.process_time() - began < 1.0  # (0.25 s measured; 7 s before)
    replayed = board.copy(stack=False)
    for move in line:
        replayed.push(move)
    assert replayed.is_won()


def test_the_pure_python_searches_of_a_process_share_one_memory_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap of 20 million transposition entries (about 2 GB) held for
    each pure-Python search alone, and a solve runs several (every
    candidate's, and its win-hunters): a solve without the compiled core
    grew past 2 GB with a budget of some minutes. Now the searches of the
    process share the cap, as the compiled core's tables share its limit,
    and a search that ends or is dropped gives its entries back."""
    monkeypatch.setattr(search_module, "PY_MAX_ENTRIES", 2_000)
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push_text("c1")
    first, second = (Search(board, Options(core="python")) for _ in range(2))
    first.step(math.inf, max_nodes=2_048)  # about 1,300 entries each: under the cap alone
    assert first.result is None
    second.step(math.inf, max_nodes=2_048)
    assert second.result == "memory"  # (each went on before, to 2,000 entries of its own)
    del first, second  # their entries are given back
    third = Search(board, Options(core="python"))
    third.step(math.inf, max_nodes=2_048)
    assert third.result is None


@pytest.mark.parametrize("made", [True, False], ids=["new cache", "cache there before"])
def test_a_survey_stopped_before_any_deal_says_so_and_leaves_no_empty_cache(
    made: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C before the first verdict said "the 0 deals solved in this run
    are stored in FILE" and left an empty verdict cache that the run had
    just made."""
    db = tmp_path / "verdicts.sqlite"
    if not made:
        VerdictStore(str(db)).close()
    before = db.read_bytes() if not made else None

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("terrace.cli.solver.run_survey", interrupted)
    result = CliRunner().invoke(main, ["survey", "--deals", "1-3", "--jobs", "1", "--max-seconds", "1",
                                       "--verdicts-db", str(db), "--out", str(tmp_path)])
    assert result.exit_code == 130, result.output
    assert "0 deals" not in result.stderr and "no deal was solved in this run" in result.stderr
    assert db.exists() is not made
    if not made:
        assert db.read_bytes() == before


def test_numpy_numbers_are_budgets_as_the_engine_takes_them() -> None:
    """solve(board, max_nodes=np.int64(5000)) was refused as 'max_nodes must
    be a whole number >= 0, not np.int64(5000)', and max_seconds=np.int64(1)
    as 'not a number of seconds', while the engine takes numpy's whole
    numbers everywhere (deal numbers, rule options, actions) and
    max_seconds=np.float64 was taken. A budget of any real or whole number
    type is taken, and kept as a plain float or int."""
    np = pytest.importorskip("numpy")
    from terrace.solver.budget import check_nodes
    from terrace.solver.safe import finish_line

    assert check_nodes(np.int64(5000)) == 5000 and type(check_nodes(np.int64(5000))) is int
    assert check_budget(np.int64(2)) == 2.0 and check_budget(np.float32(0.5)) == 0.5
    board = Board.from_number(4, get_rules("terrace"))
    plain = solve(board, max_seconds=30, max_nodes=5000)
    numpy = solve(board, max_seconds=np.int64(30), max_nodes=np.int64(5000))
    assert (numpy.result, numpy.nodes) == (plain.result, plain.nodes)
    assert finish_line(board, np.int64(10)) is None
    for refused in (np.True_, True):  # (a truth value is still no budget)
        with pytest.raises(ValueError, match="must be a number of seconds"):
            check_budget(refused)
        with pytest.raises(ValueError, match="must be a whole number"):
            check_nodes(refused)


@pytest.mark.parametrize("positions", [True, 1.5, None, 0, "10"])
def test_finish_line_refuses_a_budget_that_is_no_whole_number_of_positions(positions: object) -> None:
    """finish_line(board, True) searched one position, 1.5 two, and None
    raised "'<' not supported between instances of 'NoneType' and 'int'"."""
    from terrace.solver.safe import finish_line

    with pytest.raises(ValueError, match="max_positions must be a whole number, at least 1"):
        finish_line(Board.from_number(4, get_rules("terrace")), positions)  # type: ignore[arg-type]


@pytest.mark.parametrize("taker", ["solve", "hint", "safe_moves", "finish_line"])
def test_the_solver_s_functions_given_no_board_say_so(taker: str) -> None:
    """solve('...a position string...') failed with "AttributeError: 'str'
    object has no attribute 'copy'" (hint, safe_moves and finish_line
    likewise), where observe and GameRecord.from_board say what they take."""
    import terrace.solver

    position = Board.from_number(4, get_rules("terrace")).position()
    with pytest.raises(TypeError, match=rf"^{taker} takes a Board, not str \(Board.from_position reads"):
        getattr(terrace.solver, taker)(position)


@pytest.mark.parametrize("seed", [None, float("nan"), 1.5, "1", True, -1])
def test_a_seed_that_is_no_whole_number_is_refused(seed: object) -> None:
    """The fair player's seed went to random.Random as it was: None drew a
    new seed each time (six fair hints at one position, seed None, gave
    five answers), NaN keyed no work a hint asked again could find (each
    request started afresh), text and floats were taken as seeds. The
    fair and random players and the hints refuse it in words."""
    from terrace.solver.advice import fair_answer, fair_hint, hint_report
    from terrace.solver.fair import FairPlayer
    from terrace.solver.players import make_player

    board = Board.from_number(4, get_rules("falling-star"))
    board.push_text("s")
    calls = [lambda: FairPlayer(seed=seed), lambda: make_player("random", seed=seed),  # type: ignore[arg-type]
             lambda: fair_hint(board, seed=seed, seconds=5, nodes=1000),  # type: ignore[arg-type]
             lambda: fair_answer(board, 5, seed=seed, nodes=1000),  # type: ignore[arg-type]
             lambda: hint_report(board, seed=seed, seconds=5, samples=1)]  # type: ignore[arg-type]
    for call in calls:
        with pytest.raises(ValueError, match="seed must be a whole number >= 0"):
            call()


def test_a_seed_of_numpys_whole_numbers_is_the_same_seed() -> None:
    np = pytest.importorskip("numpy")
    from terrace.solver.advice import fair_hint

    board = Board.from_number(4, get_rules("falling-star"))
    board.push_text("s")
    plain, wide = (fair_hint(board, seed=seed, seconds=30, nodes=20_000, escalate=False)
                   for seed in (3, np.int64(3)))
    assert plain == wide
