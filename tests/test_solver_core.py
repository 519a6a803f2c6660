"""The compiled core against the pure-Python reference search: the same
positions visited, the same verdicts, the same lines; and the core's own
promises (it is built in CI, it lets other threads run, it stops at its
memory limit)."""

from __future__ import annotations

import gc
import math
import os
import random
import re
import struct
import subprocess
import sys
import threading
from dataclasses import replace
from typing import Any

import pytest

from solver_brute import RULE_SETS, cards_in_play, endgame_position, endgame_verdict
from terrace.board import Board
from terrace.cards import CODE
from terrace.rules import Rules, SpaceRule
from terrace.solver import solve
from terrace.solver.movegen import MoveGen
from terrace.solver.options import LDS_DEVIATIONS, LDS_RANKS, STOCK_LOOKAHEAD_MOST
from terrace.solver.search import Options, Search, core_available, core_profiled
from terrace.solver.state import DRAW, DST_FOUNDATION, SRC_RESERVE, SRC_RETURN, SRC_WASTE, State
from terrace.solver.twins import chosen
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
    {"live_best": True, "reserve_weight": 5, "order": 1, "shuffle": 9},
    {"hunt_mix": 1, "order": 2, "shuffle": 5},
    {"hunt_mix": 3, "order": 2, "shuffle": 8},  # (8 % 3: foundation moves shuffled in now and then)
    {"stock_lookahead": 2, "hunt_mix": 2, "order": 2, "shuffle": 5},
]
WHOLE_DEAL_SETS = OPTION_SETS[:1] + OPTION_SETS[3:4]
"""The switches the whole deals are run under (docs/winnability.md says how many)."""


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
    for extra in WHOLE_DEAL_SETS:
        python = run(board, Options(core="python", **extra), 20_000)  # type: ignore[arg-type]
        core = run(board, Options(core="compiled", **extra), 20_000)  # type: ignore[arg-type]
        assert core == python


@needs_core
def test_a_table_that_grows_in_place_keeps_every_position() -> None:
    # the complete search's table, once mapped (256 KB), grows in place
    # (tables.c, tt_grow): a key lost on the way would be entered again
    from terrace.solver import search as reference

    board = Board.from_number(3, get_rules("falling-star"))
    # (a Python search an earlier test dropped holds its entries in the count
    # until the collector closes it, which may happen during the search below)
    gc.collect()
    held = reference._PY_ENTRIES[0]
    python = Search(board, Options(core="python"))
    expected = run_on(python, 150_000)
    entries = reference._PY_ENTRIES[0] - held  # the Python search's table, while it lives
    search = Search(board, Options(core="compiled"))
    assert run_on(search, 150_000) == expected
    assert search._compiled.entries == entries
    assert search._compiled.table_bytes >= 8 << 18  # mapped at 256 KB, then doubled in place three times


def _slots(table: bytes) -> list[tuple[int, int]]:
    words = struct.unpack(f"<{len(table) // 8}Q", table)
    return list(zip(words[::2], words[1::2], strict=True))


def _wrapped(slots: list[tuple[int, int]]) -> int:
    """Keys that sit before their first slot: their probe went past the end."""
    mask = len(slots) - 1
    return sum(key != (0, 0) and at < key[0] & mask for at, key in enumerate(slots))


@needs_core
def test_a_table_grows_in_place_when_probes_wrap_past_its_end() -> None:
    # keys whose first slots are the last six of the table: in the old table
    # their probes go on at its start; as the table doubles, some return to
    # the old half's end (where keys not yet moved wait) and some to the new
    # half's, going on in the moved keys at the start (tables.c, tt_grow).
    # Told apart by their position alone, moved and waiting keys are
    # carried round for ever: the hook runs in a process of its own.
    from terrace.solver import _core  # type: ignore[attr-defined]

    n = len(_core._grown_table(b"")[0]) // 16
    with pytest.raises(ValueError, match="three quarters"):
        _core._grown_table(bytes(16 * n))  # a table too full, refused
    keys = [(n - 1 - k % 6 | (k % 3 == 0) * n | (k + 1) << 20, k + 1) for k in range(60)]
    hook = ("import sys; from terrace.solver import _core; "
            "sys.stdout.buffer.write(b''.join(_core._grown_table(sys.stdin.buffer.read())))")
    packed = b"".join(struct.pack("<QQ", *k) for k in keys)
    try:
        out = subprocess.run([sys.executable, "-c", hook], input=packed, capture_output=True, timeout=60,
                             check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}).stdout
    except subprocess.TimeoutExpired:
        pytest.fail("the table never finished growing")
    before, after = _slots(out[:16 * n]), _slots(out[16 * n:])
    assert len(after) == 2 * n and _wrapped(before) > 20 and _wrapped(after) > 10
    assert sorted(k for k in before if k != (0, 0)) == sorted(keys)
    assert sorted(k for k in after if k != (0, 0)) == sorted(keys)
    for key in keys:  # each is found where a probe for it looks
        at = key[0] & (2 * n - 1)
        while after[at] != key:
            assert after[at] != (0, 0), f"{key} is not where a probe finds it"
            at = (at + 1) % (2 * n)


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
def test_a_search_running_in_another_thread_does_not_give_its_lines() -> None:
    # line() and best_line() copied the search's arrays while the thread
    # running it (without the GIL) moved them (grow() reallocates them)
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    search = Search(board)
    core = search._compiled
    worker = threading.Thread(target=core.step, args=(10**9, 1.0))
    worker.start()
    try:
        while worker.is_alive() and not core.nodes:  # (counted as it runs)
            pass
        assert worker.is_alive(), "the search ended before it was seen running"
        for lines in (core.line, core.best_line):
            with pytest.raises(RuntimeError, match="already running in another thread"):
                lines()
    finally:
        worker.join()
    assert core.line() and core.best_line()  # given again once it has stopped


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


@needs_core
@pytest.mark.parametrize("limit", [-1, 1 << 64, (1 << 64) + 5])
def test_a_memory_limit_out_of_range_is_refused_and_changes_nothing(limit: int) -> None:
    # it was taken modulo 2**64: -1 lifted the limit, 2**64 + 5 made it 5 bytes
    from terrace.solver import _core

    old = _core.set_memory_limit(1 << 30)
    try:
        with pytest.raises(ValueError, match="the memory limit must be a number of bytes from 0 to "):
            _core.set_memory_limit(limit)
    finally:
        assert _core.set_memory_limit(old) == 1 << 30


@needs_core
@pytest.mark.parametrize("limit", [0, 1, 100_000])
def test_a_memory_limit_too_small_for_the_first_tables_gives_unknown(limit: int) -> None:
    # a search, hunters' too, whose first table did not fit raised
    # MemoryError when built (a restart too), and so did solve: with 100 KB,
    # its complete search's table fits, and its first hunter's does not
    from terrace.solver import _core

    board = Board.from_number(1, get_rules("admirals-patience"))
    chosen = board.copy()
    chosen.push(next(iter(chosen.legal_moves)))
    base = _core.memory_in_use()
    restarted = Search(chosen)
    restarted.step(seconds=math.inf, max_nodes=100)
    old = _core.set_memory_limit(limit)
    try:
        result = solve(board, max_seconds=20)
        restarted.restart(3, [])
        restarted.step(seconds=math.inf, max_nodes=50_000)
        searches = [Search(chosen, kind) for kind in (Options(), *HUNTERS.values())] if limit < 2 else []
        for search in searches:
            search.step(seconds=math.inf, max_nodes=50_000)
    finally:
        _core.set_memory_limit(old)
    assert (result.result, result.reason) == ("unknown", "memory") and result.seconds < 20
    assert restarted.result == "memory"
    assert all(search.result == "memory" for search in searches)
    del searches, restarted
    assert _core.memory_in_use() == base


def _stepped(board: Board, options: Options, most: int) -> tuple[str | None, int, list[int]]:
    """The result, positions and line of a search from ``board`` stepped
    ``most`` positions at a time until it ends."""
    search = Search(board, options)
    while not search.step(seconds=math.inf, max_nodes=most):
        pass
    return search.result, search.nodes, search.line


def _taken(board: Board, options: Options) -> int:
    """The bytes a search takes from the compiled core's memory limit when built."""
    from terrace.solver import _core

    base = _core.memory_in_use()
    search = Search(board, options)
    assert search.compiled
    return int(_core.memory_in_use() - base)


def _ends_within(board: Board, options: Options, room: int) -> str | None:
    """The result of a search given ``room`` bytes under the memory limit,
    after 2,000 positions (None while it runs); its memory is given back."""
    from terrace.solver import _core

    base = _core.memory_in_use()
    old = _core.set_memory_limit(base + room)
    try:
        search = Search(board, options)
        search.step(seconds=math.inf, max_nodes=2000)
    finally:
        _core.set_memory_limit(old)
    result = search.result
    assert result is not None or search.nodes >= 2000
    del search
    assert _core.memory_in_use() == base
    return result


@needs_core
def test_the_policy_learning_hunters_weights_count_against_the_memory_limit() -> None:
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    taken = [_taken(board, Options(nrpa=level)) for level in (1, 2)]
    assert taken[1] - taken[0] > 1 << 20  # a level's weights: one for each move's code and size of the stock
    assert _ends_within(board, Options(nrpa=2), taken[1] - 1) == "memory"
    assert _ends_within(board, Options(nrpa=2), taken[1]) is None


@needs_core
@pytest.mark.parametrize("count", [LDS_DEVIATIONS, LDS_RANKS])
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_the_discrepancy_hunter_wins_every_won_endgame_and_runs_out_on_the_others(rules: Rules,
                                                                                   count: int) -> None:
    # its rounds allow ever more discrepancies, and a round that left out no
    # move has searched everything: every endgame the plain search wins is
    # won, every one it loses ends "exhausted" (never "lost") or is still
    # being searched
    ended = 0
    for seed in range(20):
        board = endgame_position(seed, rules, cards_in_play(rules))
        reference = endgame_verdict(rules, seed)
        search = Search(board, Options(lds=count))
        search.step(seconds=math.inf, max_nodes=1 << 18)
        assert search.result == ("won" if reference == "won" else "exhausted") or (
            reference != "won" and search.result is None), (board.position(), search.result)
        if search.result == "won":
            assert search.replay(board, search.line)[1].is_won()  # the engine checks every move
        ended += search.result is not None
    assert ended >= 18


@needs_core
def test_the_discrepancy_hunters_steps_go_on_where_they_stopped() -> None:
    # steps of one position each find the line one long step finds, after
    # as many positions: the rounds' search keeps its place between steps
    for seed in (2, 13, 27):
        board = endgame_position(seed, RULE_SETS[seed % len(RULE_SETS)], 30)
        ends = [_stepped(board, Options(lds=LDS_RANKS), most) for most in (1, 1 << 20)]
        assert ends[0] == ends[1] and ends[0][0] == "won"


@needs_core
def test_the_discrepancy_hunters_table_counts_against_the_memory_limit() -> None:
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    taken = _taken(board, Options(lds=LDS_DEVIATIONS))
    assert taken - _taken(board, Options()) >= 4096 * 18  # its first table: two keys and a count a slot
    assert _ends_within(board, Options(lds=LDS_DEVIATIONS), taken - 1) == "memory"
    # a table that cannot grow forgets positions instead of stopping
    assert _ends_within(board, Options(lds=LDS_DEVIATIONS), taken) is None


@needs_core
def test_a_discrepancy_hunter_whose_table_cannot_grow_forgets_and_still_wins() -> None:
    # with no room beyond its first table (4,096 slots) it forgets positions
    # and searches them again when it meets them again: Admiral's Patience
    # deal 1 with base card c1, won after 172,097 positions with room, is
    # won after more (192,755)
    from terrace.solver import _core

    board = chosen(Board.from_number(1, get_rules("admirals-patience")), 0)
    options = Options(lds=LDS_DEVIATIONS, dig_only=True)
    roomy = Search(board, options)
    roomy.step(seconds=math.inf, max_nodes=1 << 20)
    old = _core.set_memory_limit(_core.memory_in_use() + _taken(board, options))
    try:
        cramped = Search(board, options)
        cramped.step(seconds=math.inf, max_nodes=1 << 20)
    finally:
        _core.set_memory_limit(old)
    assert roomy.result == cramped.result == "won" and cramped.nodes > roomy.nodes
    assert cramped.replay(board, cramped.line)[1].is_won()


@needs_core
def test_the_nested_hunters_rollout_set_counts_against_the_memory_limit() -> None:
    # the set of a rollout's positions (one key for each of up to 4,000
    # moves, and more) was left out: a nested hunter took only 16 KB more
    # than a plain search, its main line's set
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    nested = _taken(board, Options(nested=True))
    assert nested - _taken(board, Options()) >= 4000 * 16 + 1024 * 16
    assert _ends_within(board, Options(nested=True), nested - 1) == "memory"
    assert _ends_within(board, Options(nested=True), nested) is None


@needs_core
def test_the_beam_hunters_slots_and_tree_count_against_the_memory_limit() -> None:
    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    taken = [_taken(board, Options(beam=width)) for width in (1 << 10, 1 << 11)]
    # two slots more for each position more in a layer, each holding a position's cards
    assert taken[1] - taken[0] >= 2 * (1 << 10) * board.rules.card_count
    wide = Options(beam=1 << 11)
    assert _ends_within(board, wide, taken[1] - 1) == "memory"  # one byte short of the slots
    assert _ends_within(board, wide, taken[1]) == "memory"  # no room for the first of the tree of lines
    assert _ends_within(board, wide, taken[1] + (1 << 20)) is None


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


RUN = [(rank, "red" if at % 2 == 0 else "black") for at, rank in enumerate("5432AKQJT98765432AKQJT98765")]
"""A pile of 27 cards built down (bottom card first, as rank and colour): red
fives at both ends, a black four second from the bottom; between the fives
every other rank and colour once."""


def _dig_board(cards: int, wanted: list[tuple[str, str]], others: str, spaces: SpaceRule) -> Board:
    """Eight packs, base rank ace: pile 1 the top ``cards`` of :data:`RUN`,
    one foundation wanting each of ``wanted`` (the rest empty: they want
    aces), then the piles ``others``, and all other cards in the stock."""
    left = {code: 8 for code in CODE}

    def take(rank: str, colour: str) -> str:
        code = max((rank + suit for suit in ("HD" if colour == "red" else "SC")), key=left.__getitem__)
        left[code] -= 1
        return code

    ranks = "A23456789TJQK"
    pile = "".join(take(rank, colour) for rank, colour in RUN[27 - cards:])
    foundations = []
    for rank, colour in wanted:  # (built up from an ace to the rank below, the other colour on top)
        height = ranks.index(rank)
        colours = [colour if (height - at) % 2 == 0 else ("red" if colour == "black" else "black")
                   for at in range(height)]
        foundations.append("".join(take(ranks[at], colours[at]) for at in range(height)))
    foundations += [""] * (32 - len(foundations))
    for code in filter(None, others.split(",")):
        left[code] -= 1
    stock = "".join(code * count for code, count in left.items())
    rules = Rules(decks=8, reserve=0, piles=1 + len(others.split(",")), candidates=0, spaces=spaces)
    return Board.from_position(f"A - {','.join(foundations)} {pile},{others} - {stock} 0", rules)


@pytest.mark.parametrize(("cards", "wanted", "others", "spaces", "diggable"), [
    (26, RUN[2:26], "6S", SpaceRule.AUTO, True),  # the red 5 onto the 6, which takes the black 4
    (27, RUN[2:26], "6S", SpaceRule.AUTO, False),  # the 6 takes one red 5, not two
    (26, RUN[1:27], "", SpaceRule.FREE, True),  # to the foundations, the red 5 too, the pile into the space
    (27, RUN[1:27], "", SpaceRule.FREE, False),  # the foundations want one red 5, not two
    (26, RUN[2:27], "", SpaceRule.FREE, False),  # the black 4 would go on the pile's own red 5
])
def test_dig_only_moves_a_pile_that_its_cards_can_leave_one_by_one(
        cards: int, wanted: list[tuple[str, str]], others: str, spaces: SpaceRule, diggable: bool) -> None:
    """Options.dig_only moves a card from pile 1 to another pile only when
    every card of the pile has a place to go: each other pile's top (or the
    card put on it) takes one card, a foundation one of each card it wants,
    and the pile's own top none (the pure-Python list and the core's alike).
    Cards of one rank and colour lie 26 apart in a built pile, so only long
    piles of many packs tell these counts apart: the four miscounts passed
    every other test."""
    board = _dig_board(cards, wanted, others, spaces)
    options = Options(order=1, dig_only=True)
    state = State(board, options.canonical, options.seed)
    python = MoveGen(options, state.ret).moves(state, -2, 0)
    assert (0 * 64 + 1 in python) is diggable, python  # (t1t2: onto the 6, or into the space)
    if core_available():
        core = Search(board, replace(options, core="compiled"))._compiled
        core.restart(0, [], False)
        assert core._moves() == python


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


HUNTERS = {"beam": Options(beam=16), "nested": Options(nested=True), "nrpa": Options(nrpa=2),
           "lds": Options(lds=LDS_DEVIATIONS)}


@needs_core
@pytest.mark.parametrize("hunter", [name for name in HUNTERS if name != "lds"])  # (lds: a stricter one below)
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_hunters_win_only_what_is_won_and_never_say_lost(rules: Rules, hunter: str) -> None:
    found = won = 0
    for seed in range(20):
        board = endgame_position(seed, rules, cards_in_play(rules))
        reference = endgame_verdict(rules, seed)
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


def _one_long_pile(decks: int, length: int) -> Board:
    """Every card in one built run from a king down, in alternate colours:
    its last card (an ace) on the first foundation, its first ``length`` on
    the only pile, the rest in the stock."""
    run: list[str] = []
    for i in range(52 * decks):
        rank, red = (12 - i) % 13, i % 2
        run.append("A23456789TJQK"[rank] + ("HD" if red else "SC")[i // 26 % 2])
    foundations = ",".join([run.pop()] + [""] * (4 * decks - 1))
    stock = "".join(run[length:]) or "-"
    return Board.from_position(f"A - {foundations} {''.join(run[:length])} - {stock} 0",
                               Rules(decks=decks, reserve=0, piles=1, candidates=0))


@needs_core
def test_the_beam_hunter_keeps_a_pile_of_more_than_255_cards() -> None:
    # a stored position kept each pile's length in a byte: with eight decks
    # a built pile can hold 415 cards, and the beam restored this pile of
    # 300 as one of 44, then "won" with a line the engine refused
    board = _one_long_pile(8, 300)
    assert len(board.tableau[0]) == 300
    search = Search(board, Options(beam=16))
    while not search.step(seconds=math.inf, max_nodes=5000) and search.nodes < 200_000:
        pass
    assert search.result == "won"
    assert search.replay(board, search.line)[1].is_won()


@needs_core
def test_a_nested_hunters_step_ends_after_a_rollout_and_plays_on_as_one() -> None:
    # a step ended only once every move at the main line's end had had its
    # rollout: with eight decks and twenty piles a step asked for one
    # position entered up to 84,972 (a rollout, and what it tries and takes
    # back, enters at most a few thousand)
    rules = Rules(decks=8, reserve=0, piles=20, candidates=0, spaces="free", foundation_return=True,
                  redeals=9)
    search = Search(Board.from_number(4, rules), Options(nested=True))
    for _ in range(30):
        before = search.nodes
        search.step(seconds=math.inf, max_nodes=1)
        assert search.nodes - before < 10_000
    # a step that ends after a rollout goes on where it stopped: the same
    # wins, after 3,672 and 28,286 positions (many rollouts, many steps)
    for seed in (13, 27):
        board = endgame_position(seed, RULE_SETS[seed % len(RULE_SETS)], 30)
        ends = [_stepped(board, Options(nested=True), most)[::2] for most in (1, 1 << 14)]
        assert ends[0] == ends[1] and ends[0][0] == "won"


NESTED_COUNTS = [
    ("admirals-patience", 3, {"nested": True, "dig_only": True}, 1_000_000, "won", 61_789, 208),
    ("admirals-patience", 1, {"nrpa": 1, "dig_only": True}, 1_000_000, "won", 22_251, 208),
    ("terrace", 3, {"nested": True, "dig_only": True}, 1_000_000, "won", 8_435, 104),
    ("empress-of-italy", 1, {"nested": True}, 1_000_000, "won", 18_696, 208),
    # base card c1 of General's Patience deal 2: its reserve schedule is
    # dead at the start, so every foundation move is checked in full
    ("generals-patience", 2, {"nested": True, "dig_only": True}, 200_000, None, 200_073, 1),
]


@needs_core
@pytest.mark.parametrize(("name", "deal", "kind", "most", "result", "nodes", "found"), NESTED_COUNTS,
                         ids=[f"{row[0]}-{row[1]}-{'-'.join(row[2])}" for row in NESTED_COUNTS])
def test_the_nested_hunters_enter_the_positions_they_did_before_they_were_made_cheaper(
        name: str, deal: int, kind: dict[str, Any], most: int, result: str | None, nodes: int,
        found: int) -> None:
    # Stop 70 made the digging nested hunter cheaper a position (its rollouts
    # ask the sets before playing a move, check the reserve schedule of one
    # class, and dig only the piles that can be dug) without changing what
    # it searches: these are the counts of the core before (commit
    # cf775154), base card c1 of each deal, one step
    start = chosen(Board.from_number(deal, get_rules(name)), 0)
    search = Search(start, Options(core="compiled", one_lane=True, **kind))
    search.step(seconds=math.inf, max_nodes=most)
    assert (search.result, search.nodes, search.best_found) == (result, nodes, found)
    if result == "won":
        assert search.replay(start, search.line)[1].is_won()


@pytest.mark.parametrize("hunter", HUNTERS)
def test_hunters_need_the_compiled_core(hunter: str) -> None:
    board = endgame_position(1, RULE_SETS[0], 10)
    with pytest.raises(ValueError, match="compiled core"):
        Search(board, replace(HUNTERS[hunter], core="python"))


@pytest.mark.parametrize("two", [Options(beam=16, nested=True), Options(nested=True, nrpa=1),
                                 Options(beam=16, nrpa=2), Options(nested=True, lds=1)],
                         ids=["beam+nested", "nested+nrpa", "beam+nrpa", "nested+lds"])
def test_one_search_is_one_hunter(two: Options) -> None:
    board = endgame_position(1, RULE_SETS[0], 10)
    with pytest.raises(ValueError, match="choose one hunter, not "):
        Search(board, two)


@pytest.mark.parametrize("core", ["Compiled", "c", "", "pure-Python"])
def test_a_core_named_otherwise_is_refused(core: str) -> None:
    """A core misspelt (``core="Compiled"``) ran the pure-Python search,
    many times slower, where the caller asked for the compiled one."""
    board = endgame_position(1, RULE_SETS[0], 10)
    with pytest.raises(ValueError, match=f"^core must be 'auto', 'python' or 'compiled', not '{core}'$"):
        Search(board, Options(core=core))


@pytest.mark.parametrize(("option", "value", "words"), [
    ("canonical", "no", "is not true or false"), ("nested", 1, "is not true or false"),
    ("shuffle", "x", "is not a whole number"), ("seed", 1.5, "is not a whole number"),
    ("order", 1.0, "is not a whole number"), ("nrpa", "1", "is not a whole number"),
    ("beam", True, "is not a whole number"), ("beam", -1, "is not from 0 (no beam) to 65,536"),
    ("beam", 1 << 40, "is not from 0 (no beam) to 65,536"),
])
def test_an_option_of_the_wrong_kind_is_refused_by_the_options(option: str, value: Any, words: str) -> None:
    # canonical="no" was taken as yes; a shuffle or seed of text or 1.5 reached
    # the core ("argument 19 must be int", a TypeError), a beam of 2**40 an
    # OverflowError, a beam of -1 only when the core built it
    with pytest.raises(ValueError, match=f"{option} .* {re.escape(words)}"):
        Options(**{option: value})


@needs_core
def test_a_beam_narrower_than_its_picks_per_parent_runs() -> None:
    # a width below BEAM_PER_PARENT (8) was "beam sizes out of range" from the core
    search = Search(endgame_position(1, RULE_SETS[0], 10), Options(beam=3))
    search.step(0.05, max_nodes=2000)
    assert search.nodes > 0


@pytest.mark.parametrize("count", [-1, 3, 99])
def test_a_discrepancy_count_out_of_range_is_refused(count: int) -> None:
    words = f"discrepancy count {count} is not 0 (no discrepancy hunter), 1 or 2"
    with pytest.raises(ValueError, match=re.escape(words)):
        Options(lds=count)


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
@pytest.mark.parametrize("hunter", ["nested", "nrpa", "lds"])
def test_a_nested_hunter_with_nothing_to_play_stops_at_once(hunter: str) -> None:
    rules = Rules(decks=1, reserve=0, piles=2, candidates=0)
    waste = "2S3S4S5S6S7S8S9STSJSQS2H3H4H5H6H7H8H9HTHJHQH2D3D4D5D6D7D8D9DTDJDQDKD2C4C5C6C7C8C9CTCJCQCKC3C"
    stuck = Board.from_position(f"A - AS,AH,AD,AC KS,KH {waste} - 0", rules)
    assert not list(stuck.legal_moves)
    search = Search(stuck, HUNTERS[hunter])
    assert search.step(seconds=5)
    assert search.result == "exhausted" and search.nodes < 10


CORES = ["python", pytest.param("compiled", marks=needs_core)]


@pytest.mark.parametrize("core", CORES)
def test_a_search_that_has_ended_says_so_at_every_step(core: str) -> None:
    """A step after the end says True again (a driver that steps its
    searches in turn takes False for a search still running) and finds
    nothing more."""
    board = endgame_position(1, RULE_SETS[0], 10)
    search = Search(board, Options(core=core))
    while not search.step(seconds=math.inf, max_nodes=1 << 16):
        pass
    ended = (search.result, search.nodes, search.line)
    assert ended[0] in ("won", "lost")
    assert search.step() and search.step(seconds=0.0, max_nodes=0)
    assert (search.result, search.nodes, search.line) == ended


@needs_core
@pytest.mark.parametrize("kind", [{"nested": True}, {"nrpa": 1}], ids=["nested", "nrpa"])
def test_a_hunters_random_choices_follow_its_shuffle_as_well_as_its_seed(kind: dict[str, Any]) -> None:
    """The nested and policy-learning hunters draw from Options.seed mixed
    with Options.shuffle: two of another shuffle search otherwise (in
    9,000 positions of General's Patience deal 3 they enter their last at
    another count), two of the same alike."""
    board = Board.from_number(3, get_rules("generals-patience"))
    board.push(next(iter(board.legal_moves)))

    def hunted(shuffle: int) -> tuple[str | None, int, int]:
        search = Search(board, Options(core="compiled", one_lane=True, shuffle=shuffle, **kind))
        for _ in range(3):
            if search.step(seconds=math.inf, max_nodes=3000):
                break
        return search.result, search.nodes, search.best_found

    assert len({hunted(0), hunted(1), hunted(2)}) == 3
    assert hunted(2) == hunted(2)


@pytest.mark.parametrize("core", CORES)
def test_a_best_line_that_begins_with_a_draw_names_the_draw_as_its_first_move(core: str) -> None:
    """The compiled core says -2 for no best line and -1 for a draw (DRAW);
    a best line that begins by drawing from the stock (Terrace deal 11,
    first candidate, within 100 positions) has the draw as its first move,
    not None, which an unknown solve's best move is made from."""
    board = Board.from_number(11, get_rules("terrace"))
    board.push(next(iter(board.legal_moves)))
    search = Search(board, Options(core=core))
    assert search.best_first is None
    search.step(seconds=math.inf, max_nodes=100)
    assert search.result is None and search.best_found > 0
    assert search.best_first == DRAW == search.best_line()[0]
    assert str(search.moves_to_engine(board, [search.best_first])[0]) == "s"


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


@pytest.mark.parametrize("core", CORES)
def test_a_released_search_refuses_a_restart_and_the_hunters(core: str) -> None:
    # a restart was taken: it cleared what release() promises to keep (the
    # positions, the cards put up) and, the core given back, replayed its
    # prefix as the pure-Python search; hunt() said it needed the core
    from terrace.deal import SplitMix64
    from terrace.solver.search import HuntState

    board = Board.from_number(3, get_rules("falling-star"))
    search = Search(board, Options(core=core))
    run_on(search, 3000)
    search.release()
    kept = (search.result, search.nodes, search.best_found, search.best_first)
    with pytest.raises(RuntimeError, match="a released search takes no more steps, restarts or hunts"):
        search.restart(3, [])
    with pytest.raises(RuntimeError, match="a released search takes no more steps, restarts or hunts"):
        search.hunt(1.0, 1000, 100, HuntState(SplitMix64(1), 0, 2, 7, True))
    with pytest.raises(RuntimeError, match="a released search takes no more steps, restarts or hunts"):
        search.step()
    assert (search.result, search.nodes, search.best_found, search.best_first) == kept
    assert kept[0] is None and kept[1] >= 3000


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


@pytest.mark.parametrize("most", [0, -1, 1 << 63, 1.5])
def test_a_memory_cap_out_of_range_is_refused(most: int) -> None:
    # 0 read as no cap at all (the default), and 2**63 made the compiled
    # core raise OverflowError: int too big to convert
    from terrace.solver.options import COUNT_MOST

    with pytest.raises(ValueError, match=f"max_entries {most} is not a whole number from 1 to "):
        Options(max_entries=most)
    board = Board.from_number(3, get_rules("falling-star"))
    assert run(board, Options(max_entries=COUNT_MOST), 1000)[1] >= 1000  # the largest is taken


@pytest.mark.parametrize("core", CORES)
def test_a_budget_of_positions_past_what_the_core_counts_is_taken(core: str) -> None:
    # the compiled core raised OverflowError (int too big to convert) where
    # the Python search ran on, for a step and for the hunters' loop
    from terrace.deal import SplitMix64
    from terrace.solver.search import HuntState

    board = Board.from_number(3, get_rules("falling-star"))
    search = Search(board, Options(core=core))
    assert not search.step(seconds=math.inf, max_nodes=-(10**30)) and search.nodes <= 1
    # (steps of 0.05 s until past 1,000 positions, each entering some: one
    # step found fewer when the machine stalled the process, load 20)
    for _ in range(200):
        before = search.nodes
        search.step(seconds=0.05, max_nodes=10**30)
        assert search.nodes > before
        if search.nodes > 1000:
            break
    assert search.nodes > 1000
    # the positions a hunt entered are the hunter's count plus those of the
    # hunters it finished (spent): a hunter that reached its limit just as
    # time ran out was restarted with none (seconds=0, limit 200 does so)
    for seconds, limit in ((0.05, 1000), (0.0, 200)) if search.compiled else ():
        for most in (10**30, -(10**30)):
            search.restart(1, [])
            hunters = HuntState(SplitMix64(1), 0, 2, 7, True)
            search.hunt(seconds, most, limit, hunters)
            if most > 0:
                assert search.nodes + hunters.spent >= 1
            else:
                assert search.nodes <= 1 and hunters.spent == 0


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


@needs_core
def test_a_search_whose_initialisation_failed_cannot_be_initialised_again() -> None:
    # a failed __init__ left half a position (cards pushed on the piles,
    # counts raised); a second one added another: a search built after
    # 200 such failures wrote past its piles (a segmentation fault)
    from terrace.solver import _core  # type: ignore[attr-defined]
    from terrace.solver.search import _core_arguments

    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    arguments = list(_core_arguments(board, Options()))
    short = [*arguments[:7], arguments[7][:-1], *arguments[8:]]  # a reserve card left out
    search = _core.Search.__new__(_core.Search)
    with pytest.raises(ValueError, match="every card"):
        search.__init__(*short)
    with pytest.raises(RuntimeError, match="already initialised"):
        search.__init__(*arguments)
    with pytest.raises(RuntimeError, match="not initialised"):
        search.step(1000, 1.0)
    assert search.line() == [] and search.nodes == 0


@pytest.mark.parametrize("weight", [0, 65, 2.0, "2", True])
def test_a_reserve_weight_out_of_range_is_refused(weight: object) -> None:
    with pytest.raises(ValueError, match=r"reserve.weight .* is not a whole number"):
        Options(reserve_weight=weight)  # type: ignore[arg-type]


@needs_core
@pytest.mark.parametrize("weight", [0, (1 << 20) + 1])
def test_the_core_refuses_a_reserve_weight_out_of_range(weight: int) -> None:
    from terrace.solver import _core  # type: ignore[attr-defined]
    from terrace.solver.search import _core_arguments

    board = Board.from_number(3, get_rules("falling-star"))
    arguments = list(_core_arguments(board, Options(reserve_weight=2)))
    assert arguments[-4] == 2  # (one_lane, hunt_mix and stock_lookahead follow)
    arguments[-4] = weight
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
            h.spent, h.progress, h.rng.state, hunter.nodes, hunter.best_found, hunter.best_first)


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


@needs_core
@pytest.mark.parametrize("mix", [1, 2, 3])
def test_solve_with_a_hunt_mix_is_the_same_in_python_and_the_core(mix: int) -> None:
    # the hunters' foundation-move policies (Options.hunt_mix) in a whole
    # solve: restarts give the hunters new orders, and with mix 3 new
    # policies; each mix wins Falling Star deal 5 after other positions
    # than the solver's own hunters (20,445)
    board = Board.from_number(5, get_rules("falling-star"))
    python, core = (solve(board, max_seconds=600, max_nodes=40_000, all_candidates=False,
                          options=Options(core=name, hunt_mix=mix)) for name in ("python", "compiled"))
    assert (python.result, python.nodes, python.moves) == (core.result, core.nodes, core.moves)
    plain = solve(board, max_seconds=600, max_nodes=40_000, all_candidates=False)
    assert core.result == plain.result == "won" and core.nodes != plain.nodes


@pytest.mark.parametrize("core", CORES)
def test_a_hunt_mix_moves_the_hunters_and_leaves_the_complete_search(core: str) -> None:
    # only a shuffled search (a win-hunter) puts its foundation moves
    # elsewhere; the complete search (no shuffle) is the same with any mix
    board = Board.from_number(2, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    plain = run(board, Options(core=core), 3_000)
    for mix in (1, 2, 3):
        assert run(board, Options(core=core, hunt_mix=mix), 3_000) == plain
    hunter = run(board, Options(core=core, shuffle=5), 3_000)
    for mix, shuffle in ((1, 5), (2, 5), (3, 4), (3, 5)):  # (3 with 4 and 5: the policies 1 and 2)
        assert run(board, Options(core=core, hunt_mix=mix, shuffle=shuffle), 3_000)[1:] != hunter[1:]
    same = run(board, Options(core=core, shuffle=6), 3_000)  # (6 % 3: policy 0)
    assert run(board, Options(core=core, hunt_mix=3, shuffle=6), 3_000) == same


@pytest.mark.parametrize("core", CORES)
def test_a_restarted_hunter_takes_the_policy_of_its_new_order(core: str) -> None:
    # with hunt_mix=3 a restart's order picks the hunter's policy: a
    # restarted search is the one built with that order, in both searches
    board = Board.from_number(2, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    search = Search(board, Options(core=core, hunt_mix=3, shuffle=6))
    run_on(search, 500)
    for shuffle in (4, 5, 6, 7):  # the policies 1, 2, 0, 1
        search.restart(shuffle, [])
        assert run_on(search, 3_000) == run(board, Options(core=core, hunt_mix=3, shuffle=shuffle), 3_000)


@pytest.mark.parametrize("mix", [-1, 4, 1.5, "1"])
def test_a_hunt_mix_out_of_range_is_refused(mix: object) -> None:
    with pytest.raises(ValueError, match=r"hunt mix|hunt_mix"):
        Options(hunt_mix=mix)  # type: ignore[arg-type]


@needs_core
def test_the_core_refuses_a_hunt_mix_out_of_range() -> None:
    from terrace.solver import _core  # type: ignore[attr-defined]
    from terrace.solver.search import _core_arguments

    board = Board.from_number(3, get_rules("falling-star"))
    arguments = list(_core_arguments(board, Options(hunt_mix=3)))
    assert arguments[-2] == 3  # (stock_lookahead follows)
    arguments[-2] = 4
    with pytest.raises(ValueError, match="hunt mix out of range"):
        _core.Search(*arguments)


@pytest.mark.parametrize("look", [-1, STOCK_LOOKAHEAD_MOST + 1, 1.5, "1"])
def test_a_stock_lookahead_out_of_range_is_refused(look: object) -> None:
    with pytest.raises(ValueError, match=r"stock lookahead|stock_lookahead"):
        Options(stock_lookahead=look)  # type: ignore[arg-type]


@needs_core
@pytest.mark.parametrize("look", [-1, STOCK_LOOKAHEAD_MOST + 1])
def test_the_core_refuses_a_stock_lookahead_out_of_range(look: int) -> None:
    from terrace.solver import _core  # type: ignore[attr-defined]
    from terrace.solver.search import _core_arguments

    board = Board.from_number(3, get_rules("falling-star"))
    arguments = list(_core_arguments(board, Options(stock_lookahead=STOCK_LOOKAHEAD_MOST)))
    assert arguments[-1] == STOCK_LOOKAHEAD_MOST  # (stock_lookahead is last)
    _core.Search(*arguments)
    arguments[-1] = look
    with pytest.raises(ValueError, match="stock lookahead out of range"):
        _core.Search(*arguments)


def test_a_stock_lookahead_draws_first_where_the_stock_brings_a_wanted_card() -> None:
    # Options.stock_lookahead: a shuffled search's moves are those of the
    # same shuffle without it, the draw put first of the shuffled moves
    # exactly where one of the stock's next `look` cards is wanted by a
    # foundation now; the foundation moves before them stay where they are
    starts = [endgame_position(seed, rules, cards_in_play(rules)) for rules in RULE_SETS for seed in range(3)]
    for name in ("generals-patience", "admirals-patience", "falling-star"):
        for deal in (1, 2):
            board = Board.from_number(deal, get_rules(name))
            if board.choosing:
                board.push(next(iter(board.legal_moves)))
            starts.append(board)
    rng = random.Random(61)
    seen = {"drawn first": 0, "by a card past the next": 0, "not": 0, "foundation moves before it": 0}
    for board in starts:
        for look, mix in ((1, 0), (3, 0), (8, 0), (3, 1)):
            state = State(board, True, 1)
            plain = MoveGen(Options(order=2, shuffle=11, hunt_mix=mix), state.ret)
            reading = MoveGen(Options(order=2, shuffle=11, hunt_mix=mix, stock_lookahead=look), state.ret)
            for _ in range(150):
                before = plain.moves(state, -2, 0)
                moves = reading.moves(state, -2, 0)
                if not moves:
                    break
                wanted = [state.want[state.t.sk[c]] > 0 for c in reversed(state.stk)][:look]
                if len(before) > 1 and any(wanted):
                    first = sum(m >= 0 and (m & 63) == DST_FOUNDATION for m in before)
                    rest = [m for m in before[first:] if m != DRAW]
                    assert moves == [*before[:first], DRAW, *rest], (board.position(), look)
                    seen["drawn first"] += 1
                    seen["by a card past the next"] += not wanted[0]
                    seen["foundation moves before it"] += first > 0
                else:
                    assert moves == before
                    seen["not"] += DRAW in before[1:]
                state.apply(rng.choice(moves))
    assert min(seen.values()) > 10, seen


@pytest.mark.parametrize("core", CORES)
def test_a_stock_lookahead_moves_the_hunters_and_leaves_the_complete_search(core: str) -> None:
    # only a shuffled search (a win-hunter) reads the stock; the complete
    # search (no shuffle) is the same with any lookahead, and a restarted
    # hunter is the one built with its new order
    board = Board.from_number(2, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    plain = run(board, Options(core=core), 3_000)
    hunter = run(board, Options(core=core, order=2, shuffle=5), 3_000)
    for look in (1, 6):
        assert run(board, Options(core=core, stock_lookahead=look), 3_000) == plain
        reading = run(board, Options(core=core, order=2, shuffle=5, stock_lookahead=look), 3_000)
        assert reading[2:] != hunter[2:]
        search = Search(board, Options(core=core, order=2, shuffle=9, stock_lookahead=look))
        run_on(search, 500)
        search.restart(5, [])
        assert run_on(search, 3_000) == reading


@needs_core
def test_solve_with_a_stock_lookahead_is_the_same_in_python_and_the_core() -> None:
    # a whole solve with hunters that read the stock: the same positions,
    # restarts and line in both searches, and other positions than the
    # solver's own hunters (Falling Star deal 3: 7,959 against 18,723)
    board = Board.from_number(3, get_rules("falling-star"))
    python, core = (solve(board, max_seconds=600, max_nodes=40_000, all_candidates=False,
                          options=Options(core=name, stock_lookahead=2)) for name in ("python", "compiled"))
    assert (python.result, python.nodes, python.moves) == (core.result, core.nodes, core.moves)
    plain = solve(board, max_seconds=600, max_nodes=40_000, all_candidates=False)
    assert core.result == plain.result == "won" and core.nodes != plain.nodes


@needs_core
@pytest.mark.parametrize("seconds", [math.nan, "1", True])
def test_a_slice_of_no_number_of_seconds_is_refused(seconds: Any) -> None:
    # hunt(nan, None, ...) ran its hunters without the GIL for ever (a NaN
    # deadline is never passed), and step(nan) ran its whole slice
    from terrace.deal import SplitMix64
    from terrace.solver.search import HuntState

    search = Search(Board.from_number(3, get_rules("falling-star")), Options())
    with pytest.raises(ValueError, match="seconds must be a number of seconds"):
        search.hunt(seconds, None, 100, HuntState(SplitMix64(1), 0, 2, 7, True))
    with pytest.raises(ValueError, match="seconds must be a number of seconds"):
        search.step(seconds)
    assert search.nodes == 0 and search.result is None


# One-lane keys (Options.one_lane, docs/winnability.md "One-lane keys for the
# win-hunters"): the seeds below have their keys' first lane cut by the
# core's test hook, so that positions collide there (each seed is cut once
# and used by no other test).
WEAK_SEED = 0x51DE_0001
"""Keys whose first lane keeps 2 bits: a two-lane search still tells every
position apart (by the second lane), a one-lane search does not."""
BLIND_SEED = 0x51DE_0002
"""Keys whose first lane is 0 everywhere: a one-lane search sees only the
stock, waste, reserve and redeals, and takes nearly every position for one
it has entered."""


def _cut_keys() -> None:
    from terrace.solver import _core  # type: ignore[attr-defined]

    if not getattr(_cut_keys, "done", False):
        _core._weaken_keys(WEAK_SEED, 2)
        _core._weaken_keys(BLIND_SEED, 0)
        _cut_keys.done = True  # type: ignore[attr-defined]


@needs_core
@pytest.mark.parametrize("rules", [RULE_SETS[0], RULE_SETS[1], RULE_SETS[5]], ids=lambda r: r.describe())
def test_the_complete_search_keys_both_lanes_where_one_lane_collides(rules: Rules) -> None:
    _cut_keys()
    differ = 0
    for seed in range(6):
        board = endgame_position(seed, rules, 15)
        python = run(board, Options(core="python"), 60_000)
        assert run(board, Options(core="compiled", seed=WEAK_SEED), 60_000) == python, board.position()
        one_lane = run(board, Options(core="compiled", seed=WEAK_SEED, one_lane=True), 60_000)
        differ += one_lane[1] != python[1]
    assert differ  # (the cut keys do collide on one lane: the check above can fail)


ONE_LANE_NODES = 40_000
"""The positions each one-lane search below may enter: every one of them
ends within it (the most, 32,408) but those of rule set 7's endgame 5,
which end after about 104,000 (5 CPU s each). A budget in positions, not
seconds, so that a loaded machine does the same work and gets the same
verdicts (a second of wall time was 10-16 s for rule set 7 under load)."""


@needs_core
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_a_one_lane_search_whose_keys_collide_never_says_lost(rules: Rules) -> None:
    _cut_keys()
    missed = 0
    for seed in range(12):
        board = endgame_position(seed, rules, cards_in_play(rules))
        reference = endgame_verdict(rules, seed)
        for extra in ({}, {"shuffle": seed + 1}, {"order": 1, "dig_only": True}):
            search = Search(board, Options(core="compiled", seed=BLIND_SEED, one_lane=True, **extra))  # type: ignore[arg-type]
            # the core's own code: 4 (ran out, proves nothing), never 2 (lost); 0 is
            # its budget run out
            code = search._compiled.step(ONE_LANE_NODES, math.inf)
            assert code in (0, 1, 4), (board.position(), extra)
            if code == 0:
                continue  # (the same search by slices would end no sooner)
            search = Search(board, Options(core="compiled", seed=BLIND_SEED, one_lane=True, **extra))  # type: ignore[arg-type]
            while not search.step(math.inf, max_nodes=2048) and search.nodes < ONE_LANE_NODES:
                pass
            result = search.result
            assert result in ("won", "exhausted"), (board.position(), extra)
            if result == "won":
                _, end = search.replay(board, search.line)  # the engine checks every move
                assert end.is_won()
            missed += reference == "won" and result == "exhausted"
    # the collisions skipped positions a win needed (and nothing worse)
    assert missed or rules.foundation_return


@needs_core
@pytest.mark.parametrize("rules", [RULE_SETS[1], RULE_SETS[4], RULE_SETS[7]], ids=lambda r: r.describe())
def test_solve_stays_exact_when_its_hunters_keys_collide(rules: Rules) -> None:
    # the hunters of BLIND_SEED skip nearly everything; the complete search
    # (two lanes) still decides each position as the plain search does
    _cut_keys()
    for seed in range(10):
        board = endgame_position(seed, rules, cards_in_play(rules))
        reference = endgame_verdict(rules, seed)
        if reference is None:
            continue
        result = solve(board, max_seconds=600, max_nodes=2_000_000, options=Options(seed=BLIND_SEED))
        assert result.result == reference, board.position()
        if result.result == "won":
            end = board.copy(stack=False)
            for move in result.moves:
                end.push(move)
            assert end.is_won()


def test_solve_gives_one_lane_keys_to_its_hunters_alone() -> None:
    from terrace.solver.api import _Task

    board = Board.from_number(3, get_rules("generals-patience"))
    board.push(next(iter(board.legal_moves)))
    for given in (Options(), Options(one_lane=True)):
        task = _Task(board, None, given, True)
        assert not task.search.options.one_lane and task.search.options.complete
        assert task.hunter is not None and task.hunter.options.one_lane  # the first (digging) hunter
        task.hunter = task._new_hunter()
        assert task.hunter.options.one_lane and task.hunter.options.shuffle  # the shuffled ones
        if task.nested is not None:
            assert task.nested.options.one_lane
        task.release()
    assert not Options(one_lane=True).complete


@needs_core
@pytest.mark.parametrize("rules", [*RULE_SETS, FREE_RETURN], ids=lambda r: r.describe())
def test_the_foundation_heights_kept_move_by_move_are_those_counted_afresh(rules: Rules) -> None:
    # the reserve schedule starts from heights that up() and ret_card() keep
    # (Core.fh); stopped every few positions, on every kind of search and
    # after restarts, they are what want and done say
    checked = 0
    for seed in range(4):
        board = endgame_position(seed, rules, cards_in_play(rules))
        for options in (Options(core="compiled"), Options(core="compiled", shuffle=seed + 1),
                        Options(core="compiled", beam=8), Options(core="compiled", nested=True)):
            search = Search(board, options)
            core = search._compiled
            assert core._heights_kept()
            for _ in range(300):
                if core.step(7, math.inf):
                    break
                assert core._heights_kept(), (board.position(), options)
                checked += 1
            if not options.hunters:
                search.restart(seed + 9, [], checked=False)
                assert core._heights_kept()
    assert checked > 40  # (small endgames end within a few hundred positions)


@needs_core
@pytest.mark.parametrize("start", [*(f"endgame:{i}" for i in range(len(RULE_SETS) + 1)),
                                   "admirals-patience:4", "big-terrace:7", "empress-of-italy:3"])
def test_the_piles_tops_kept_move_by_move_are_those_worked_out_afresh(start: str) -> None:
    # gen() reads each pile's top, its rank and colour and slot key, the
    # piles under each rank and colour and the crowded ones from what every
    # change of a pile keeps (Core.under, pr, pk, state.h's tops_set);
    # stopped every few positions, on every kind of search, after restarts
    # with and without a prefix and after the hunting loop, they are what
    # the piles say
    kind, number = start.split(":")
    if kind == "endgame":
        rules = [*RULE_SETS, FREE_RETURN][int(number)]
        boards = [endgame_position(seed, rules, cards_in_play(rules)) for seed in range(3)]
    else:
        board = Board.from_number(int(number), get_rules(kind))
        board.push(next(iter(board.legal_moves)))
        boards = [board]
    checked = 0
    for seed, board in enumerate(boards):
        for options in (Options(core="compiled"), Options(core="compiled", shuffle=seed + 1),
                        Options(core="compiled", order=1, dig_only=True), Options(core="compiled", beam=8),
                        Options(core="compiled", nested=True), Options(core="compiled", nrpa=1)):
            search = Search(board, options)
            core = search._compiled
            assert core._tops_kept()
            for _ in range(60):
                if core.step(7, math.inf):
                    break
                assert core._tops_kept(), (board.position(), options)
                checked += 1
            if options.hunters:
                continue
            line = core.line()
            for prefix in ([], line[: len(line) // 2]):
                search.restart(seed + 9, prefix, checked=False)
                assert core._tops_kept()
                core.step(50, math.inf)
                assert core._tops_kept()
            search.restart(seed + 9, [], checked=False)
            core.hunt(500, math.inf, 40, 0, line, 0, 0, 7, 0, 3, 4, True)
            assert core._tops_kept()
    assert checked > 40


@needs_core
@pytest.mark.parametrize("start", [*(f"endgame:{i}" for i in (3, 4, 5, 6, 8, 9, 10, 11)),
                                   "admirals-patience:4", "big-terrace:7"])
def test_the_key_kept_move_by_move_is_the_key_worked_out_afresh(start: str) -> None:
    # the search loop sets a move's key from the parts key_after() worked
    # out for its table probe, and undo() takes the cards' keys off again
    # (state.h); stopped every few positions, on two-lane and one-lane
    # searches in every order and after restarts and the hunting loop, the
    # key (both sums, each pile's key and share) is the one worked out
    # afresh from the cards, after moves were taken back
    # (the rule sets where the searches go back within 1,000 positions:
    # suit and alternate foundations, every space rule, redeals, returns)
    kind, number = start.split(":")
    if kind == "endgame":
        # (small games' endgames, and deals, which the searches go back in)
        rules = [*RULE_SETS, FREE_RETURN][int(number)]
        boards = [endgame_position(seed, rules, cards_in_play(rules)) for seed in range(3)]
        boards += [Board.from_number(deal, rules) for deal in (1, 2)]
    else:
        boards = [Board.from_number(int(number), get_rules(kind))]
    for board in boards:
        while board.choosing:
            board.push(next(iter(board.legal_moves)))
    checked = turned = 0
    for seed, board in enumerate(boards):
        for options in (Options(core="compiled"), Options(core="compiled", shuffle=seed + 1),
                        Options(core="compiled", shuffle=seed + 1, one_lane=True),
                        Options(core="compiled", order=1, dig_only=True)):
            search = Search(board, options)
            core = search._compiled
            assert core._keys_kept()
            before: list[int] = []
            for _ in range(200):
                if core.step(5, math.inf):
                    break
                assert core._keys_kept(), (board.position(), options)
                checked += 1
                # (moves of the line at the last stop were taken back)
                line = core.line()
                turned += line[: len(before)] != before
                before = line
            line = core.line()
            for prefix in ([], line[: len(line) // 2]):
                search.restart(seed + 9, prefix, checked=False)
                assert core._keys_kept()
                core.step(50, math.inf)
                assert core._keys_kept()
            search.restart(seed + 9, [], checked=False)
            core.hunt(500, math.inf, 40, 0, line, 0, 0, 7, 0, 3, 4, True)
            assert core._keys_kept()
    assert checked > 500
    assert turned > 100


def _hunter_run(search: Search, shuffle: int, max_nodes: int) -> tuple[Any, ...]:
    """What a restarted search in order ``shuffle`` finds in ``max_nodes``
    positions, with the epoch of its table and its entries."""
    search.restart(shuffle, [], checked=False)
    epoch = search._compiled._table_epoch()
    return (epoch, *run_on(search, max_nodes), search._compiled.entries)


def _admirals_deal_4() -> Board:
    """Admiral's Patience deal 4 with its first base card chosen."""
    board = Board.from_number(4, get_rules("admirals-patience"))
    board.push(next(iter(board.legal_moves)))
    return board


@needs_core
def test_a_restart_empties_its_table_by_a_new_epoch_and_zeroes_it_when_the_epoch_wraps() -> None:
    # a restarted search's table is emptied by taking the next epoch, not by
    # zeroing it (tables.c, tt_renew): the same hunter run again finds what
    # it found, also when the epoch wraps round past 65,535, where the
    # stamps are zeroed (left as they were, the first hunter's positions
    # would read as taken in epoch 1 again: nothing new, a false 'lost')
    search = Search(_admirals_deal_4(), Options(core="compiled"))
    assert search._compiled._table_epoch() == -1  # the complete search's table is plain
    first = _hunter_run(search, 5, 1000)
    assert first[0] == 1 and first[1] is None and first[2] >= 1000 and 0 < first[-1] < 3072  # still stamped
    assert search._compiled._table_epoch(65_535) == 65_535  # the first hunter's slots keep stamp 1
    assert _hunter_run(search, 5, 1000) == first  # the wrap: epoch 1 again, the stamps zeroed
    assert _hunter_run(search, 5, 1000) == (2, *first[1:])
    other = _hunter_run(search, 6, 1000)
    assert other[0] == 3 and other[1:] != first[1:]
    with pytest.raises(ValueError, match="epoch out of range"):
        search._compiled._table_epoch(65_536)


@needs_core
def test_a_restarted_searchs_table_grows_with_the_positions_of_its_own_epoch_alone() -> None:
    # past three quarters of its 4,096 slots a restarted search's table grows
    # into a plain one: the slots of earlier hunters, taken in other epochs,
    # stay behind, so the search is the one a new search in its order makes
    # (a small endgame, lost after 32,047 positions, 23,965 entries: the
    # last hunter reaches the earlier ones' positions after it grew; with
    # those positions kept it enters 22,316)
    board = endgame_position(2, RULE_SETS[0], 30)
    search = Search(board, Options(core="compiled"))
    _hunter_run(search, 5, 2000)
    _hunter_run(search, 6, 2000)
    grown = _hunter_run(search, 7, 100_000)
    assert grown[0] == 3 and search._compiled._table_epoch() == -1 and grown[1] == "lost" and grown[-1] > 3072
    fresh = Search(board, Options(core="compiled", shuffle=7))
    assert grown[1:] == (*run_on(fresh, 100_000), fresh._compiled.entries)


GEN_OPTIONS = [{}, {"canonical": False, "safe_moves": False}, {"order": 1, "dig_only": True},
               {"order": 2, "shuffle": 11}, {"shuffle": 5}]
"""The switches that change the move list (live_best and reserve_weight do not)."""


@needs_core
def test_the_cores_move_list_is_the_python_move_list_along_random_games() -> None:
    # the compiled gen() (piles as bit masks, only the sources with a move
    # to a pile ranked) lists the moves of the pure-Python MoveGen, in its
    # order, at every position of random games on whole deals and small
    # endgames, with every switch that changes the list; the positions
    # include equal piles, several sources with moves to piles, empty piles
    # that take a card and foundation returns, and empty piles that gen's
    # loop over all the piles walks over with the top they had last
    starts = [*(endgame_position(seed, rules, cards_in_play(rules)) for rules in [*RULE_SETS, FREE_RETURN]
                for seed in range(3))]
    for name in ("terrace", "generals-patience", "wood", "empress-of-italy", "admirals-patience"):
        for deal in (1, 2):
            board = Board.from_number(deal, get_rules(name))
            if board.choosing:
                board.push(next(iter(board.legal_moves)))
            starts.append(board)
    rng = random.Random(58)
    seen = {"equal piles": 0, "ranked sources": 0, "to a space": 0, "return": 0, "digging": 0,
            "an empty pile": 0}
    for board in starts:
        for extra in GEN_OPTIONS:
            options = Options(core="compiled", **extra)  # type: ignore[arg-type]
            core = Search(board, options)._compiled
            state = State(board, options.canonical, options.seed)
            prefix: list[int] = []
            prev, prev_u = -2, 0
            for _ in range(100):
                core.restart(options.shuffle, prefix, False)
                python = MoveGen(options, state.ret).moves(state, prev, prev_u)
                assert core._moves() == python, (board.position(), extra, prefix)
                if not python:
                    break
                live = {m >> 6 for m in python if m >= 0 and m >> 6 < SRC_RESERVE and (m & 63) < SRC_RESERVE}
                tops = [state.ph[j] for j, pile in enumerate(state.piles) if pile]
                seen["equal piles"] += len(set(tops)) < len(tops)
                seen["ranked sources"] += len(live) > 1
                seen["to a space"] += any(m >= 0 and (m & 63) < SRC_RESERVE and not state.piles[m & 63]
                                          for m in python)
                seen["return"] += any(m >= 0 and m >> 6 >= SRC_RETURN for m in python)
                seen["an empty pile"] += not all(state.piles)
                pile_move = prev >= 0 and not prev_u and prev >> 6 < SRC_RESERVE and (prev & 63) < SRC_RESERVE
                seen["digging"] += options.dig_only and pile_move and bool(state.piles[prev >> 6])
                move = rng.choice(python)
                prev, prev_u = move, state.apply(move)
                prefix.append(move)
    assert min(seen.values()) > 10, seen


@needs_core
def test_the_cores_move_list_reads_the_stock_as_the_python_move_list_does() -> None:
    # Options.stock_lookahead in the compiled gen(): the same move lists as
    # the pure-Python MoveGen along random games, with the draw put first
    # by the stock's first card and by later ones, and with the foundation
    # moves shuffled in now and then (hunt_mix 2)
    starts = [endgame_position(seed, rules, cards_in_play(rules)) for rules in RULE_SETS for seed in range(3)]
    for name in ("generals-patience", "admirals-patience", "terrace"):
        board = Board.from_number(2, get_rules(name))
        if board.choosing:
            board.push(next(iter(board.legal_moves)))
        starts.append(board)
    rng = random.Random(61)
    drawn = {1: 0, 5: 0}
    for board in starts:
        for look, mix in ((1, 0), (5, 2)):
            options = Options(core="compiled", order=2, shuffle=11, hunt_mix=mix, stock_lookahead=look)
            core = Search(board, options)._compiled
            state = State(board, True, options.seed)
            prefix: list[int] = []
            prev, prev_u = -2, 0
            for _ in range(100):
                core.restart(options.shuffle, prefix, False)
                python = MoveGen(options, state.ret).moves(state, prev, prev_u)
                assert core._moves() == python, (board.position(), look, prefix)
                if not python:
                    break
                unread = MoveGen(replace(options, stock_lookahead=0), state.ret).moves(state, prev, prev_u)
                drawn[look] += python != unread
                move = rng.choice(python)
                prev, prev_u = move, state.apply(move)
                prefix.append(move)
    assert min(drawn.values()) > 10, drawn


@pytest.mark.parametrize(("seed", "verdict"), [(4, "lost"), (0, "won")])
def test_a_python_search_interrupted_inside_a_slice_starts_again_at_its_next_step(
        monkeypatch: pytest.MonkeyPatch, seed: int, verdict: str) -> None:
    # a Ctrl+C (or a MemoryError) raised inside a slice closed the search's
    # generator: every later step said False (running) at the same count of
    # positions, so a caller's 'while not search.step()' never ended
    from terrace.solver import movegen

    board = endgame_position(seed, RULE_SETS[0], 30)
    expected = run(board, Options(core="python"), 10**6)
    assert expected[0] == verdict and expected[1] > 1000
    calls = [0]
    moves = movegen.MoveGen.moves

    def interrupted(self: movegen.MoveGen, *args: Any) -> list[int]:
        calls[0] += 1
        if calls[0] == 40:
            raise KeyboardInterrupt
        return moves(self, *args)

    monkeypatch.setattr(movegen.MoveGen, "moves", interrupted)
    search = Search(board, Options(core="python"))
    with pytest.raises(KeyboardInterrupt):
        while not search.step(math.inf, max_nodes=16):
            pass
    assert search.result is None
    steps = 0
    while not search.step(math.inf, max_nodes=2048) and steps < 1000:
        steps += 1
    assert (search.result, search.nodes, search.best_found, search.line, search.best_line()) == expected


@needs_core
@pytest.mark.parametrize("most", [1, 3, 100, 5000])
def test_the_python_search_stops_at_the_same_entry_as_the_core_with_a_memory_cap(most: int) -> None:
    # the Python search read Options.max_entries only between its slices of
    # 2,048 positions: with a cap of 1 it won what needs thousands of
    # entries, where the core it is the reference of said memory at 2
    for seed in (0, 4, 6):
        board = endgame_position(seed, RULE_SETS[0], 30)
        python = run(board, Options(core="python", max_entries=most), 10**6)
        core = run(board, Options(core="compiled", max_entries=most), 10**6)
        assert python == core, (seed, python[:3], core[:3])
    if most == 1:
        assert python[:2] == ("memory", 2)


@needs_core
@pytest.mark.parametrize("extra", [{"order": 2, "shuffle": 5}, {"order": 1, "dig_only": True},
                                   {"order": 1, "dig_only": True, "shuffle": 3}])
def test_core_follows_python_on_whole_deals_unranked_and_digging(extra: dict[str, Any]) -> None:
    # the endgames above leave few piles to order, and dig out few: the
    # unranked order (no shorter source piles first) and the digging
    # hunter's check of a pile, on whole deals
    for name in ("terrace", "generals-patience"):
        board = Board.from_number(3, get_rules(name))
        if board.choosing:
            board.push(next(iter(board.legal_moves)))
        python = run(board, Options(core="python", **extra), 20_000)
        core = run(board, Options(core="compiled", **extra), 20_000)
        assert core == python, (name, extra)


@pytest.mark.skipif(not core_available(), reason="the compiled core is not built")
@pytest.mark.parametrize("redeals", ["least", "most"])
def test_the_compiled_core_takes_the_largest_rules_the_engine_allows(redeals: str) -> None:
    """The core keeps its own limits (core.h: 8 decks, 20 piles, 10
    redeals); the engine's are RULE_OPTIONS'. The largest rules those
    allow, read from there, must reach the core: a limit raised in
    rules.py alone would make every solve of such rules raise."""
    from terrace.rules import RULE_OPTIONS

    most: dict[str, object] = {}
    for name in ("decks", "piles", "redeals"):
        low, high = RULE_OPTIONS[name].limits(most)
        most[name] = low if name == "redeals" and redeals == "least" else high
    for name in ("reserve", "candidates"):
        most[name] = RULE_OPTIONS[name].limits(most)[1]
    rules = Rules.from_dict({**most, "spaces": "free", "foundation_return": True})
    board = Board.from_number(1, rules)
    board.push(next(iter(board.legal_moves)))  # (the base card)
    search = Search(board, Options(core="compiled"))
    search.step(math.inf, max_nodes=2_000)
    assert search.nodes > 0
