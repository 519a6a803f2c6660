"""The compiled core against the pure-Python reference search: the same
positions visited, the same verdicts, the same lines; and the core's own
promises (it is built in CI, it lets other threads run, it stops at its
memory limit)."""

from __future__ import annotations

import math
import os
import threading
from dataclasses import replace

import pytest

from solver_brute import RULE_SETS, brute_force, cards_in_play, endgame_position
from terrace.board import Board
from terrace.rules import Rules
from terrace.solver import solve
from terrace.solver.search import Options, Search, core_available, core_profiled
from terrace.solver.state import SRC_RETURN, SRC_WASTE
from terrace.variants import get_rules

needs_core = pytest.mark.skipif(not core_available(), reason="the compiled core is not built")

OPTION_SETS = [
    {},
    {"canonical": False, "safe_moves": False, "dead_reserve": False},
    {"order": 1, "dig_only": True},
    {"shuffle": 7},
    {"order": 1, "shuffle": 3},
    {"order": 2, "shuffle": 5},
    {"reserve_weight": 3, "order": 2, "shuffle": 5},
]


def run(board: Board, options: Options, max_nodes: int) -> tuple[str | None, int, int, list[int], list[int]]:
    return run_on(Search(board, options), max_nodes)


def run_on(search: Search, max_nodes: int) -> tuple[str | None, int, int, list[int], list[int]]:
    # slices of positions only, never of time: the same answer on a busy machine
    while not search.step(seconds=math.inf, max_nodes=2048) and search.nodes < max_nodes:
        pass
    return search.result, search.nodes, search.best_found, search.line, search.best_line()


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="only CI insists on the compiled core")
def test_compiled_core_is_built_in_ci() -> None:
    assert core_available()
    assert core_profiled(), "setup.py built the core without its profile: `pip install -v -e .` says why"
    board = Board.from_number(4, get_rules("falling-star"))
    assert Search(board).compiled


FREE_RETURN = Rules(decks=1, reserve=4, piles=3, candidates=0, spaces="free", foundation_return=True)


@needs_core
@pytest.mark.parametrize("rules", [*RULE_SETS, FREE_RETURN], ids=lambda r: r.describe())
def test_core_visits_exactly_the_positions_python_visits(rules: Rules) -> None:
    for seed in range(6):
        board = endgame_position(seed, rules, 15)
        for extra in OPTION_SETS:
            python = run(board, Options(core="python", **extra), 60_000)  # type: ignore[arg-type]
            core = run(board, Options(core="compiled", **extra), 60_000)  # type: ignore[arg-type]
            assert core == python, (board.position(), extra)


@needs_core
@pytest.mark.parametrize("name", ["terrace", "generals-patience", "empress-of-italy", "wood"])
def test_core_follows_python_on_whole_deals(name: str) -> None:
    board = Board.from_number(3, get_rules(name))
    if board.choosing:
        board.push(next(iter(board.legal_moves)))
    for extra in OPTION_SETS[:1] + OPTION_SETS[3:4]:
        python = run(board, Options(core="python", **extra), 20_000)  # type: ignore[arg-type]
        core = run(board, Options(core="compiled", **extra), 20_000)  # type: ignore[arg-type]
        assert core == python


@needs_core
def test_a_table_that_grows_in_place_keeps_every_position() -> None:
    # the complete search's table, once mapped (256 KB), grows in place
    # (tables.c, tt_grow): a key lost on the way would be entered again
    from terrace.solver import search as reference

    board = Board.from_number(3, get_rules("falling-star"))
    held = reference._PY_ENTRIES[0]
    python = Search(board, Options(core="python"))
    expected = run_on(python, 150_000)
    entries = reference._PY_ENTRIES[0] - held  # the Python search's table, while it lives
    search = Search(board, Options(core="compiled"))
    assert run_on(search, 150_000) == expected
    assert search._compiled.entries == entries
    assert search._compiled.table_bytes >= 8 << 18  # mapped at 256 KB, then doubled in place three times


@needs_core
def test_core_lets_other_threads_run() -> None:
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    search = Search(board)
    started = threading.Event()
    finished = threading.Event()

    def work() -> None:
        started.set()
        search.step(seconds=0.3, max_nodes=10**9)
        finished.set()

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    ticks = 0
    while not finished.is_set():  # a busy loop: it runs only while it holds the GIL
        ticks += 1
    worker.join()
    assert search.nodes > 1000
    assert ticks > 1000  # with the GIL held through the 0.3 s slice this loop would hardly run


@needs_core
def test_memory_limit_gives_unknown() -> None:
    from terrace.solver import _core

    board = Board.from_number(1, get_rules("admirals-patience"))
    old = _core.set_memory_limit(1 << 20)
    try:
        result = solve(board, max_seconds=20, hunt=False)
    finally:
        _core.set_memory_limit(old)
    assert result.result == "unknown" and result.reason == "memory"
    assert _core.memory_in_use() == 0 or result.seconds < 20


@pytest.mark.parametrize("budget", [float("nan"), float("inf"), -1.0])
def test_budgets_that_would_not_stop_are_refused(budget: float) -> None:
    board = Board.from_number(4, get_rules("falling-star"))
    with pytest.raises(ValueError, match="max_seconds"):
        solve(board, max_seconds=budget)
    with pytest.raises(ValueError, match="max_nodes"):
        solve(board, max_seconds=1, max_nodes=-1)


def test_restricted_searches_never_say_lost() -> None:
    rules = RULE_SETS[0]
    for seed in range(30):
        board = endgame_position(seed, rules, 15)
        search = Search(board, Options(dig_only=True))
        while not search.step():
            pass
        assert search.result in ("won", "exhausted")


def test_piles_are_keyed_as_a_multiset_of_built_runs() -> None:
    from terrace.errors import InvalidPositionError
    from terrace.solver.state import State

    rules = Rules(decks=1, reserve=0, piles=2, candidates=0)
    rest = "2S3S4S5S6S7S8STSJSQSKS2H3H4H5H6H7H9HTHJHQHKH2D3D4D5D6D7D8D9DTDJDQDKD2C3C4C5C6C8C9CTCJCQCKC"
    built = Board.from_position(f"A - AS,AH,AD,AC 9S8H,7C - {rest} 0", rules)
    swapped = Board.from_position(f"A - AS,AH,AD,AC 7C,9S8H - {rest} 0", rules)
    assert State(built, True, 1).key() == State(swapped, True, 1).key()
    assert State(built, False, 1).key() != State(swapped, False, 1).key()
    # Keyed by (depth, rank and colour) alone, 9S 8H + 7C 5H would look like
    # 9S 5H + 7C 8H; only built runs make the key one-to-one, and the engine
    # never lets an unbuilt pile in.
    with pytest.raises(InvalidPositionError, match="not built down"):
        Board.from_position(f"A - AS,AH,AD,AC 9S5H,7C8H - {rest.replace('5H', '')} 0", rules)


HUNTERS = {"beam": Options(beam=16), "nested": Options(nested=True), "nrpa": Options(nrpa=2)}


@needs_core
@pytest.mark.parametrize("hunter", HUNTERS)
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_hunters_win_only_what_is_won_and_never_say_lost(rules: Rules, hunter: str) -> None:
    found = won = 0
    for seed in range(20):
        board = endgame_position(seed, rules, cards_in_play(rules))
        reference = brute_force(board, 20_000)
        search = Search(board, HUNTERS[hunter])
        # the beam dies out; the nested hunters start again until stopped
        while not search.step(seconds=math.inf, max_nodes=1 << 14) and search.nodes < 1 << 20:
            pass
        assert search.result in ("won", "exhausted", None)
        won += reference == "won"
        if search.result == "won":
            found += reference == "won"
            assert reference != "lost"
            _, end = search.replay(board, search.line)  # the engine checks every move
            assert end.is_won()
    assert won >= 5 and found >= 0.9 * won  # (both found every one)


@pytest.mark.parametrize("hunter", HUNTERS)
def test_hunters_need_the_compiled_core(hunter: str) -> None:
    board = endgame_position(1, RULE_SETS[0], 10)
    with pytest.raises(ValueError, match="compiled core"):
        Search(board, replace(HUNTERS[hunter], core="python"))


@pytest.mark.parametrize("two", [Options(beam=16, nested=True), Options(nested=True, nrpa=1),
                                 Options(beam=16, nrpa=2)], ids=["beam+nested", "nested+nrpa", "beam+nrpa"])
def test_one_search_is_one_hunter(two: Options) -> None:
    board = endgame_position(1, RULE_SETS[0], 10)
    with pytest.raises(ValueError, match="choose one hunter, not "):
        Search(board, two)


@pytest.mark.parametrize("level", [-1, 5, 99])
def test_a_policy_learning_level_out_of_range_is_refused(level: int) -> None:
    with pytest.raises(ValueError, match=f"policy-learning level {level} is not from 0 to 4"):
        Options(nrpa=level)


@needs_core
@pytest.mark.parametrize("settings", [(0, 100), (7, 100), (2, 0)],
                         ids=["level 0", "level 7", "no iterations"])
def test_the_core_refuses_policy_learning_settings_out_of_range(settings: tuple[int, int]) -> None:
    from terrace.solver import _core  # type: ignore[attr-defined]
    from terrace.solver.search import _core_arguments

    board = endgame_position(1, RULE_SETS[0], 10)
    search = _core.Search(*_core_arguments(board, Options()))
    with pytest.raises(ValueError, match="out of range"):
        search.set_nrpa(*settings, 1)
    search.set_nrpa(2, 100, 1)  # the refusal left it as it was
    with pytest.raises(RuntimeError, match="set once"):
        search.set_nrpa(2, 100, 1)


@needs_core
@pytest.mark.parametrize("hunter", ["nested", "nrpa"])
def test_a_nested_hunter_with_nothing_to_play_stops_at_once(hunter: str) -> None:
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0)
    waste = "2S3S4S5S6S7S8S9STSJSQS2H3H4H5H6H7H8H9HTHJHQH2D3D4D5D6D7D8D9DTDJDQDKD2C4C5C6C7C8C9CTCJCQCKC3C"
    stuck = Board.from_position(f"A - AS,AH,AD,AC KS,KH {waste} - 0", rules)
    assert not list(stuck.legal_moves)
    search = Search(stuck, HUNTERS[hunter])
    assert search.step(seconds=5)
    assert search.result == "exhausted" and search.nodes < 10


CORES = ["python", pytest.param("compiled", marks=needs_core)]


@pytest.mark.parametrize("checked", [True, False], ids=["checked", "own-line"])
@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("rules", [*RULE_SETS, FREE_RETURN], ids=lambda r: r.describe())
def test_a_restarted_search_is_the_search_built_after_its_prefix(
    core: str, rules: Rules, checked: bool,
) -> None:
    for seed in range(4):
        board = endgame_position(seed, rules, 15)
        search = Search(board, Options(core=core, shuffle=9))
        run_on(search, 400)  # mid-search: the restart must take everything back
        line = search.best_line() or search.line
        for cut in sorted({0, len(line) // 2, len(line)}):
            prefix = line[:cut]
            search.restart(5, prefix, checked=checked)
            got = run_on(search, 20_000)
            after = search.replay(board, prefix)[1]
            fresh = run_on(Search(after, Options(core=core, shuffle=5)), 20_000)
            result, nodes, best, won_line, best_line = fresh
            expected = (result, nodes, best, prefix + won_line if result == "won" else [],
                        prefix + best_line if best_line else [])
            assert got == expected, (board.position(), seed, cut)


@pytest.mark.parametrize("core", CORES)
def test_a_restart_refuses_a_prefix_the_search_would_not_play(core: str) -> None:
    board = Board.from_number(3, get_rules("falling-star"))
    search = Search(board, Options(core=core))
    run_on(search, 500)
    good = search.best_line()[:3]
    for bad in ([4095], [*good, 4095], [*good, -1, -1, 9 << 6 | 63] * 40):
        with pytest.raises(ValueError):
            search.restart(3, bad)
        # left at its first position, in the new order
        assert run_on(search, 3_000) == run_on(Search(board, Options(core=core, shuffle=3)), 3_000)


@needs_core
def test_an_unchecked_restart_still_refuses_a_move_it_cannot_play() -> None:
    board = Board.from_number(3, get_rules("falling-star"))
    search = Search(board, Options())
    run_on(search, 500)
    good = search.best_line()[:3]
    fresh = run_on(Search(board, Options(shuffle=3)), 3_000)
    # no card there, no such pile or source, a foundation that does not want the card
    unplayable = [[4095], [*good, 9 << 6 | 63], [*good, 50 << 6 | 0], [*good, 0 << 6 | 30],
                  [SRC_WASTE << 6 | 63], [SRC_RETURN << 6 | 0], [-2]]
    legal = [str(m) for m in board.legal_moves]
    not_wanted = next(j << 6 | 63 for j in range(9) if f"t{j + 1}f" not in legal)
    for bad in [*unplayable, [not_wanted]]:
        with pytest.raises(ValueError, match="not a move of the search"):
            search.restart(3, bad, checked=False)
        assert run_on(search, 3_000) == fresh


@needs_core
@pytest.mark.parametrize("hunter", HUNTERS)
def test_the_beam_and_nested_hunters_do_not_restart(hunter: str) -> None:
    board = Board.from_number(3, get_rules("falling-star"))
    with pytest.raises(ValueError, match="do not restart"):
        Search(board, HUNTERS[hunter]).restart(1, [])


def test_a_move_order_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="move order 3 is not one of 0, 1 and 2"):
        Options(order=3)


@needs_core
def test_the_core_refuses_a_move_order_out_of_range() -> None:
    from terrace.solver import _core  # type: ignore[attr-defined]
    from terrace.solver.search import _core_arguments

    board = Board.from_number(3, get_rules("falling-star"))
    arguments = list(_core_arguments(board, Options(order=2)))
    assert _core.Search(*arguments) is not None
    order = 16  # after the rules (7), the position (6) and three switches
    assert arguments[order] == 2
    arguments[order] = 3
    with pytest.raises(ValueError, match="move order out of range"):
        _core.Search(*arguments)


@pytest.mark.parametrize("weight", [0, 65, 2.0, "2", True])
def test_a_reserve_weight_out_of_range_is_refused(weight: object) -> None:
    with pytest.raises(ValueError, match=r"reserve weight .* is not a whole number from 1 to 64"):
        Options(reserve_weight=weight)  # type: ignore[arg-type]


@needs_core
@pytest.mark.parametrize("weight", [0, (1 << 20) + 1])
def test_the_core_refuses_a_reserve_weight_out_of_range(weight: int) -> None:
    from terrace.solver import _core  # type: ignore[attr-defined]
    from terrace.solver.search import _core_arguments

    board = Board.from_number(3, get_rules("falling-star"))
    arguments = list(_core_arguments(board, Options(reserve_weight=2)))
    assert arguments[-1] == 2
    arguments[-1] = weight
    with pytest.raises(ValueError, match="reserve weight out of range"):
        _core.Search(*arguments)


def _end_of_best_line(core: str, extra: dict[str, object]) -> tuple[int, int, bool]:
    """A shuffled search of General's Patience deal 12 with base card c3
    for 3,000 positions: its best_found, and at the end of its best line
    the cards up plus twice the reserve cards played, and whether the
    reserve schedule cuts that position."""
    from terrace.solver.prune import reserve_dead
    from terrace.solver.state import State

    board = Board.from_number(12, get_rules("generals-patience"))
    board.push_text("c3")
    search = Search(board, Options(core=core, order=2, shuffle=27, **extra))  # type: ignore[arg-type]
    run_on(search, 3_000)
    s = State(board, True, 0)
    for m in search.best_line():
        s.apply(m)
    return search.best_found, s.found + 2 * (len(board.reserve) - len(s.res)), bool(s.res) and reserve_dead(s)


@pytest.mark.parametrize("core", ["python", pytest.param("compiled", marks=needs_core)])
def test_a_live_best_line_never_ends_where_the_reserve_schedule_cuts(core: str) -> None:
    # by default the line that put most cards up here ends in a position
    # the reserve schedule cuts (cards put up after the reserve was lost)
    assert _end_of_best_line(core, {})[2]
    assert not _end_of_best_line(core, {"live_best": True})[2]


@needs_core
def test_core_follows_python_with_a_live_best_line() -> None:
    # (on the small endgames of the tests above no best line ends where the
    # reserve schedule cuts, so a live best line changes nothing there)
    board = Board.from_number(12, get_rules("admirals-patience"))
    board.push_text("c1")
    live = Options(live_best=True, shuffle=7)
    python = run(board, replace(live, core="python"), 20_000)
    core = run(board, replace(live, core="compiled"), 20_000)
    assert core == python
    assert core != run(board, replace(live, core="compiled", live_best=False), 20_000)


@pytest.mark.parametrize("core", ["python", pytest.param("compiled", marks=needs_core)])
def test_a_reserve_card_played_counts_as_weighted_in_the_best_line(core: str) -> None:
    found, weighted, _ = _end_of_best_line(core, {"reserve_weight": 3})
    assert found == weighted


def _hunting(task: object) -> tuple[object, ...]:
    from terrace.solver import api
    assert isinstance(task, api._Task)
    h = task.hunters
    hunter = task.hunter
    assert hunter is not None
    return (task.result, [str(m) for m in task.line], task.nodes, h.restarts, h.elite, h.elite_found, h.stale,
            h.spent, h.progress, h.rng.state, hunter.nodes, hunter.best_found)


@needs_core
@pytest.mark.parametrize(("name", "deal", "seed"), [
    ("admirals-patience", 2, 0), ("generals-patience", 89, 1), ("falling-star", 5, -3),
    ("empress-of-italy", 1, 0),
])
def test_the_cores_hunting_loop_is_the_python_loop(monkeypatch: pytest.MonkeyPatch, name: str, deal: int,
                                                  seed: int) -> None:
    # the restarting hunters in one call of the core (api.HUNT_IN_CORE) enter
    # the same positions, keep the same best line and draw the same restart
    # points as api._Task's own loop over the same compiled searches; short
    # hunters and a short memory, so that many restart and forget
    from terrace.solver import api
    from terrace.solver.options import DEFAULT_SEED
    monkeypatch.setattr(api, "STALE_HUNTERS", 7)
    board = Board.from_number(deal, get_rules(name))
    if board.choosing:
        board.push(next(iter(board.legal_moves)))
    seen = []
    for in_core in (True, False):
        monkeypatch.setattr(api, "HUNT_IN_CORE", in_core)
        task = api._Task(board, None, Options(seed=DEFAULT_SEED + seed), hunt=True)
        task.limit = 150
        states = []
        for _ in range(12):
            task.step(math.inf, 1000)
            states.append(_hunting(task))
            if task.result is not None:
                break
        seen.append(states)
    assert seen[0] == seen[1]
    assert seen[0][-1][3] > 30  # restarts
    assert len({len(state[4]) for state in seen[0]}) > 2  # the best line changed


@needs_core
def test_solve_with_the_python_reference_is_solve_with_the_core() -> None:
    # counted in positions, the pure-Python search stops where the core
    # does, so a whole solve takes the same turns, hunters and restart
    # points in both, and finds the same line
    board = Board.from_number(3, get_rules("admirals-patience"))
    python, core = (solve(board, max_seconds=600, max_nodes=75_000, all_candidates=False,
                          options=Options(core=name)) for name in ("python", "compiled"))
    assert (python.result, python.nodes, python.moves) == (core.result, core.nodes, core.moves)
    assert core.result == "won"
