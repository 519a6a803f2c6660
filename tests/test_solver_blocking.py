"""The reserve schedule with blocking (docs/winnability.md): it cuts only
lost positions, its greedy schedule is exact under each reserve card's
availability, and the search that uses it gives the plain search's verdicts."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver_brute import RULE_SETS, brute_force, built_position, cards_in_play, endgame_position
from terrace.board import Board
from terrace.rules import Rules
from terrace.solver import api, solve
from terrace.solver.prune import Reach, reserve_blocked, reserve_dead
from terrace.solver.search import Options, Search, core_available
from terrace.solver.state import DRAW, SRC_RESERVE, State
from terrace.solver.twins import chosen
from terrace.variants import get_rules
from test_solver import _any_schedule
from test_solver_core import OPTION_SETS, run, run_on

needs_core = pytest.mark.skipif(not core_available(), reason="the compiled core is not built")

GENERALS_LIKE = [
    Rules(decks=2, reserve=13, piles=4, candidates=0, foundations="suit"),
    Rules(decks=2, reserve=8, piles=3, candidates=0, foundations="suit"),
    Rules(decks=2, reserve=8, piles=3, candidates=0),
]
"""Two decks with a long terrace and few piles, where cards lie buried:
the cut fires on these far more often than on the endgames of RULE_SETS."""

ALL_RULES = [*RULE_SETS, *GENERALS_LIKE]


Graph = tuple[dict[bytes, Board], set[bytes]]
"""Every position reachable from one, by key, and the keys of the won ones."""


def _reachable(board: Board, most: int) -> Graph | None:
    """Every position reachable from ``board`` and the won ones among them
    (a position is won when one of its moves leads to a won one), or None
    when there are more than ``most``."""
    boards = {board.position_key(): board.copy(stack=False)}
    order = list(boards)
    parents: dict[bytes, list[bytes]] = {}
    for key in order:
        walker = boards[key].copy(stack=False)  # (the kept board is never played on)
        for move in list(walker.legal_moves):
            walker.push(move)
            child_key = walker.position_key()
            if child_key not in boards:
                if len(boards) >= most:
                    return None
                boards[child_key] = walker.copy(stack=False)
                order.append(child_key)
            parents.setdefault(child_key, []).append(key)
            walker.pop()
    won = {key for key, b in boards.items() if b.is_won()}
    reached = list(won)
    while reached:  # (backwards from the won positions: each parent of a won one is won)
        for parent in parents.get(reached.pop(), ()):
            if parent not in won:
                won.add(parent)
                reached.append(parent)
    return boards, won


_GRAPHS: dict[tuple[Rules, int], tuple[int, Graph | None]] = {}
"""The graphs made in this process, by rules and seed, with the bound they
were made under: the two tests of the cut against Python read the same
ones (their building took most of both tests' time)."""


def _graph_of(rules: Rules, seed: int, most: int) -> Graph | None:
    """:func:`_reachable` from the random position of ``rules`` and
    ``seed`` (built card by card for an odd seed, an endgame for an even
    one, a few cards more or fewer in play), made once: a graph found
    whole under a larger bound answers for a smaller one."""
    if (rules, seed) in _GRAPHS:
        bound, graph = _GRAPHS[rules, seed]
        if graph is not None:
            return graph if len(graph[0]) <= most else None
        if most <= bound:
            return None
    rng = random.Random(seed)
    in_play = cards_in_play(rules) - 4 + seed % 6
    board = built_position(rng, rules, in_play) if seed % 2 else endgame_position(seed, rules, in_play)
    graph = _reachable(board, most)
    _GRAPHS[rules, seed] = (most, graph)
    return graph


SEEDS = (0, 1, 3, 5, 6, 7, 9, 11)
"""The random positions of each rule set: the odd seeds build them card by
card, which buries cards (all the positions beyond the reserve schedule
where the cut fired, of twelve seeds, were of odd ones), the even seeds
are endgames (two kept, the cut must not fire on their won positions
either)."""

WHOLE_SEEDS = (
    (1, 3, 5, 6, 7, 8, 9, 11),
    (0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11),
    (3, 6, 7, 9),
    (1, 5, 7),
    (1, 3, 5, 6, 7, 9, 11),
    (1, 5, 6, 7, 9, 11),
    (0, 5, 7),
    (1, 3, 5, 7, 9, 11),
    (1, 3, 7, 9),
    (0, 3, 6, 7, 8, 9),
    (1, 6, 9),
    (0, 1, 4, 5, 6, 7, 8, 9, 10, 11),
    (0, 1, 5, 6, 7, 8, 9, 11),
    (1, 3, 5, 6, 7, 8, 9, 11),
)
"""For each rule set of ALL_RULES, the seeds below 12 whose graphs have
2,000 positions at most: the others were walked to their 2,000th position
and dropped (39 of the 112 graphs of SEEDS, half the time of the tests
that read them). A seed listed here whose graph has grown is a failure,
not a seed left out unsaid."""


def _whole_graphs(seeds: range | tuple[int, ...], most: int) -> Iterator[tuple[Rules, Graph]]:
    """The graphs of :func:`_graph_of` under ``most`` of every rule set, of
    those of ``seeds`` that WHOLE_SEEDS lists (those it does not list have
    more than 2,000 positions)."""
    for rules, whole in zip(ALL_RULES, WHOLE_SEEDS, strict=True):
        for seed in seeds:
            if seed in whole:
                graph = _graph_of(rules, seed, most)
                assert graph is not None or most < 2_000, (rules.describe(), seed, "grew: see WHOLE_SEEDS")
                if graph is not None:
                    yield rules, graph


def test_the_cut_fires_only_on_lost_positions() -> None:
    # every position reachable from random ones (SEEDS of a rule set, of 2,000
    # positions at most), its verdict by the plain search of the whole
    # graph; the cut must never fire on a won one
    fired_by_rules = {rules: 0 for rules in ALL_RULES}
    beyond_by_rules = {rules: 0 for rules in ALL_RULES if not rules.foundation_return}
    for rules, (boards, won) in _whole_graphs(SEEDS, 2_000):
        for key, b in boards.items():
            if b.is_won():
                continue
            state = State(b, True, 0)
            if reserve_blocked(state):
                assert key not in won, (b.rules.describe(), b.position())
                fired_by_rules[rules] += 1
                if not rules.foundation_return:
                    beyond_by_rules[rules] += not reserve_dead(state)
    # (off with foundation-return)
    assert all(fired == 0 for rules, fired in fired_by_rules.items() if rules.foundation_return)
    # (the test proves nothing unless the cut fires where the reserve
    # schedule alone does not: 2,584 such positions in all when written)
    beyond = list(beyond_by_rules.values())
    assert sum(beyond) >= 1_000 and sum(b > 0 for b in beyond) >= 8, beyond


def _any_schedule_within(s: State) -> bool:
    """Whether some schedule serves every reserve card when the cards each
    one waits for (and those of the reserve cards before it) must be among
    those that :class:`Reach` lets go up before it, trying every foundation
    low enough for each card, not only the highest one the solver takes."""
    reach = Reach(s)
    avail: list[list[int]] = []  # before each reserve card, in play order
    for p in range(len(s.res) - 1, -1, -1):
        avail.append(list(reach.outside_up))
        reach.played(s.t.sk[s.res[p]])
    return _any_schedule(s, avail)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])  # (shuffles)
@given(rules=st.sampled_from(ALL_RULES), rng=st.randoms(use_true_random=False), in_play=st.integers(4, 40))
def test_the_greedy_schedule_is_exact_under_each_reserve_cards_availability(
        rules: Rules, rng: random.Random, in_play: int) -> None:
    # the exchange argument with a bound before every reserve card: the
    # greedy choice asks for the fewest copies of each key before each one
    rules = rules.replace(foundation_return=False, reserve=min(rules.card_count - rules.piles - 1, 12))
    state = State(built_position(rng, rules, in_play), True, 0)
    reach = Reach(state)
    for card in reversed(state.res):
        reach.played(state.t.sk[card])
    stuck = not all(reach.up)  # (a card that can never go up: lost whatever the schedule)
    assert reserve_blocked(state) == (stuck or not _any_schedule_within(state)), state


@pytest.mark.parametrize("core", ["python", pytest.param("compiled", marks=needs_core)])
@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe())
def test_the_search_with_blocking_gives_the_plain_searchs_verdicts(rules: Rules, core: str) -> None:
    checked = 0
    for seed in range(6):
        rng = random.Random(100 + seed)
        in_play = cards_in_play(rules)
        board = built_position(rng, rules, in_play) if seed % 2 else endgame_position(seed, rules, in_play)
        reference = brute_force(board, 20_000)
        search = Search(board, Options(reserve_blocking=True, core=core))
        assert search.compiled == (core == "compiled")
        while not search.step(60.0, max_nodes=100_000) and search.nodes < 200_000:
            pass
        if search.result == "won":
            moves, end = search.replay(board, search.line)
            assert end.is_won() and moves
        if reference is not None and search.result in ("won", "lost"):
            checked += 1
            assert search.result == reference, board.position()
    assert checked >= 3


def test_a_position_that_takes_the_core_millions_of_positions_is_cut_at_once() -> None:
    # two decks in suit, base 4, five piles; a cycle: 4S lies at the bottom
    # of the pile 4S 3D 2S AH KC QD JS TH, whose TH has no holder left (the
    # other black jacks are up) and so must go up after 9H; 9H lies under 8S
    # in QS JH TS 9H 8S 7H, and 8S has no holder left either (the red nines
    # are up) and must go up after 4S. The compiled core proves the
    # position lost after 24.6 million positions (solve, 60 s)
    rules = Rules(decks=2, reserve=13, piles=5, candidates=0, foundations="suit")
    board = built_position(random.Random(8), rules, 50)
    state = State(board, True, 0)
    assert reserve_blocked(state) and not reserve_dead(state)
    for core in ("python", "compiled") if core_available() else ("python",):
        search = Search(board, Options(reserve_blocking=True, core=core))
        search.step(60.0, max_nodes=1_000)
        assert search.result == "lost" and search.nodes == 1, core


def _positions_of_every_rule_set(with_return: bool = True) -> Iterator[Board]:
    """Every position reachable (up to 600) from ten random ones of each
    rule set (built or endgame positions, a few cards more or fewer in play);
    without the foundation-return rule sets unless ``with_return``."""
    for board in _every_rule_sets_positions():
        if with_return or not board.rules.foundation_return:
            yield board


@functools.cache
def _every_rule_sets_positions() -> tuple[Board, ...]:
    """:func:`_positions_of_every_rule_set`'s positions, made once for the
    tests of this file that read them (two thirds of their time went to
    making them: 10,682 positions)."""
    return tuple(board for _, (boards, _) in _whole_graphs(range(10), 600) for board in boards.values())


@needs_core
def test_the_core_cuts_exactly_where_python_does() -> None:
    # every position reachable from random ones of every rule set (the
    # positions of the soundness test above, and more seeds): the core's
    # cut (ccore/reach.c) against prune.reserve_blocked, position for position
    fired = positions = 0
    for b in _positions_of_every_rule_set():
        python = reserve_blocked(State(b, True, 0))
        assert Search(b, Options(core="compiled"))._compiled._blocked() == python, (
            b.rules.describe(), b.position())
        fired += python
        positions += 1
    # (both ways round, many times: 3,762 cut of 10,682 when written)
    assert fired >= 2_000 and positions - fired >= 5_000, (fired, positions)


@needs_core
def test_the_moves_after_which_the_core_does_not_ask_keep_its_answer() -> None:
    # ccore/reach.h, blocking_kept: after such a move from a position the cut
    # passes, it passes again. The moves it leaves out do turn positions into
    # cut ones: a pile's only card moved where no free space is left for it,
    # and a draw with no redeal left (the waste's order)
    kept = turned = lone = drawn = 0
    for b in _positions_of_every_rule_set(with_return=False):
        core = Search(b, Options(core="compiled"))._compiled
        if core._blocked():
            continue
        for m in core._moves():
            keeps, blocked = core._blocked_after(m)
            assert not (keeps and blocked), (b.rules.describe(), b.position(), m)
            kept += keeps
            if blocked:
                turned += 1
                src, dst = m >> 6, m & 63
                lone += m >= 0 and src < SRC_RESERVE and dst < SRC_RESERVE and len(b.tableau[src]) < 2
                drawn += m == DRAW
    # (when written: 230 moves kept, 316 turned a position into a cut one,
    # 18 of them a lone card's, 69 a draw)
    assert kept >= 150 and turned >= 200 and lone >= 5 and drawn >= 30, (kept, turned, lone, drawn)


def test_a_lone_card_moved_where_no_free_space_is_left_for_it_can_turn_a_position_into_a_cut_one() -> None:
    # two decks in suit, base 5, spaces filled from the waste: 2C alone in
    # the first pile goes onto 3D of 6C 5D 4C 3D. Before, the cut passes;
    # after it, 2C can leave 3D only to go up (no other red 3 is shown and no
    # space takes a pile card), and 16 cards, most of them clubs, can then
    # never go up. So the compiled core asks again after a lone card's move
    # unless spaces are free (ccore/reach.h, blocking_kept)
    rules = Rules(decks=2, reserve=8, piles=4, candidates=0, foundations="suit", spaces="waste")
    position = ("5 3D 5H6H7H8H9HTHJHQHKHAH2H3H,,,5H6H7H8H9HTHJHQHKHAH2H3H4H,5C6C7C8C9CTCJCQCKCAC2C3C4C,"
                "5S6S7S8S9STSJSQSKSAS2S3S4S,5S6S7S8S9STSJSQSKSAS2S3S4S, 2C,6C5D4C3D,,JCTD QC "
                "7C6D8D7D4DJD8DACTCQD4D8CTDJD4HKDKCQDKD5D9D6D2D5C7D9D9C3C2DADAD 0")
    board = Board.from_position(position, rules)
    assert not reserve_blocked(State(board, True, 0))
    after = board.copy(stack=False)
    after.push_text("t1t2")
    assert reserve_blocked(State(after, True, 0))
    if core_available():
        core = Search(board, Options(core="compiled"))._compiled
        assert not core._blocked()
        assert core._blocked_after(0 * 64 + 1) == (False, True)


@needs_core
def test_a_solve_gives_the_cut_to_its_complete_search_alone() -> None:
    # the hunters look for wins, which the cut never finds, at some 25 times
    # the cost of a position for each check (api._Task)
    board = chosen(Board.from_number(2, get_rules("generals-patience")), 1)  # (c2: not lost at the start)
    task = api._Task(board, None, Options(reserve_blocking=True), hunt=True)
    hunters = [h for h in (task.hunter, task.nested, task._new_hunter()) if h is not None]
    assert len(hunters) >= 2  # (the first, digging, and a restarted one; the nested one when solve has it)
    for search in (task.search, *hunters):
        assert search.compiled
        while not search.step(math.inf, max_nodes=2_000) and search.nodes < 20_000:
            pass
    assert task.search._compiled.blocked_checks > 0
    for hunter in hunters:
        assert hunter._compiled.blocked_checks + hunter._compiled.blocked_kept == 0


@needs_core
def test_the_core_with_blocking_visits_exactly_the_positions_python_visits() -> None:
    # the core checks the cut only after the moves that can change its
    # answer (ccore/loop.h, blocking_kept); the Python search at every new
    # position: the same positions, lines and verdicts
    checks = skipped = cuts = 0
    for rules, seed in ((rules, seed) for rules in ALL_RULES for seed in range(10)):
        rng = random.Random(200 + seed)
        board = (built_position(rng, rules, cards_in_play(rules)) if seed % 2
                 else endgame_position(seed, rules, cards_in_play(rules)))
        for extra in (OPTION_SETS[0], OPTION_SETS[1], OPTION_SETS[3], OPTION_SETS[7]):
            python = run(board, Options(core="python", reserve_blocking=True, **extra), 30_000)  # type: ignore[arg-type]
            search = Search(board, Options(core="compiled", reserve_blocking=True, **extra))  # type: ignore[arg-type]
            assert run_on(search, 30_000) == python, (board.position(), extra)
            core = search._compiled
            if rules.foundation_return:
                assert core.blocked_checks == 0
            checks += core.blocked_checks
            cuts += core.blocked_cuts
            skipped += core.blocked_kept
    # and from the start of whole deals (after their first base card)
    for name in ("generals-patience", "terrace", "admirals-patience"):
        board = Board.from_number(3, get_rules(name))
        if board.choosing:
            board.push(next(iter(board.legal_moves)))
        python = run(board, Options(core="python", reserve_blocking=True), 8_000)
        search = Search(board, Options(core="compiled", reserve_blocking=True))
        assert run_on(search, 8_000) == python, name
        checks += search._compiled.blocked_checks
        cuts += search._compiled.blocked_cuts
        skipped += search._compiled.blocked_kept
    # (the cut and the skips both happen often: 712 cut of 11,645 checked,
    # 910 not checked when written)
    assert cuts >= 500 and skipped >= 600 and checks - cuts >= 5_000, (checks, skipped, cuts)


def test_a_waste_card_that_can_go_up_may_hold_a_card_in_a_space_instead() -> None:
    # Terrace deal 18, 190 moves into a winning line: the waste's 5C can go
    # up, but the line puts it into the space that 5D leaves and lays the
    # 4H of 8D 7C 6D 5C 4H on it, so that 5C, 6D and 7C go up and the
    # terrace's 8H finds its red 6. A first version took a card that can go
    # up for one that can never be shown, and cut this won position.
    position = (
        "J 6D7HQD3CAH7DTD8H JCQDKCAD2S3D4S5D6C7H8S9DTC,JSQHKSAD2S3D4S5H6C,"
        "JHQCKHAS2H3S4H5S6H7S8D9STD,JHQSKDAS2D3C4D5S6H7C8H9CTH,JDQSKHAC2D3S4D,JDQCKDAC2H,JSQH,JC "
        "3H2C,TH9S,8C7D6S5H4C,6S,TS9H8S,8C,5D,4C3H2C,8D7C6D5C4H 9H7SAHKCTC9D9CKSTS5C - 0"
    )
    board = Board.from_position(position, get_rules("terrace"))
    result = solve(board, max_seconds=30)
    assert result.result == "won"
    line = board.copy(stack=False)
    assert not reserve_blocked(State(line, True, 0))
    for move in result.moves:
        line.push(move)
        assert not reserve_blocked(State(line, True, 0)), line.position()


@pytest.mark.parametrize("variant", ["terrace", "falling-star", "wood", "madame"])
def test_the_cut_never_fires_on_a_winning_line(variant: str) -> None:
    # the lines the solver wins deals with, every position after the base card
    positions = 0
    for number in range(1, 13):
        board = Board.from_number(number, get_rules(variant))
        result = solve(board, max_nodes=300_000, all_candidates=False, short_line=False)
        if result.result != "won":
            continue
        line = board.copy(stack=False)
        for move in result.moves:
            line.push(move)
            if not line.choosing:
                positions += 1
                assert not reserve_blocked(State(line, True, 0)), (variant, number, line.position())
    assert positions >= 200
