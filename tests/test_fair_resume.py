"""A fair hint asked again goes on with the solves its last request's time
cut short (their searches kept: :class:`terrace.solver.api.Solving`), so
that k requests decide what one request as long as them all would; the
searches kept are bounded (:data:`terrace.solver.fair.KEPT`), and one
pushed out starts again."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from terrace.board import Board
from terrace.bounded import Bounded
from terrace.solver import api, fair, search
from terrace.solver.advice import HINT_SETTINGS, UNIT_BYTES, AskedHints, _Asked, _weight, fair_hint
from terrace.solver.api import Solving, solve
from terrace.solver.decision import Decision
from terrace.solver.fair import UNCHANGED_HUNTERS, FairPlayer, FairSettings
from terrace.solver.observation import observe
from terrace.variants import get_rules
from terrace.web import hints

ONE_SAMPLE = replace(HINT_SETTINGS, samples=1, space_factor=1, nodes=600_000)
"""One sample, solved within 600,000 positions: Big Terrace deal 3's
(:func:`_big`) needs about 411,000 to be won."""
PRESS = 100_000
"""Positions per request: a fifth of what the sample needs."""


def _big(draws: int = 10) -> Board:
    board = Board.from_number(3, get_rules("big-terrace"))
    board.push_text("c1")
    for _ in range(draws):
        board.push_text("s")
    return board


def _press(board: Board, asked: AskedHints, seed: int = 0, nodes: int = PRESS) -> Decision:
    return fair_hint(board, settings=ONE_SAMPLE, seed=seed, seconds=600, nodes=nodes, asked=asked,
                     escalate=False)


def _players(asked: AskedHints) -> list[FairPlayer]:
    return [work.player for work in asked._work.values() if work.player is not None]


def _kept(asked: AskedHints) -> list[Solving]:
    return [s for player in _players(asked) for sample in player._samples for s in sample.solving.values()]


@pytest.fixture(autouse=True)
def _fresh_kept() -> Iterator[None]:
    fair.KEPT.clear()
    yield
    fair.KEPT.clear()


def test_requests_in_a_row_decide_a_sample_that_needs_more_than_one() -> None:
    """Each request has 100,000 positions and the sample needs 411,000: its
    solve goes on from request to request and wins in the fifth (before,
    each request started it again and it stayed undecided for ever)."""
    board = _big()
    once = fair_hint(board, settings=ONE_SAMPLE, seed=0, seconds=600, nodes=6 * PRESS, escalate=False)
    assert (once.kind, once.samples, once.wins) == ("sampled", 1, 1)
    asked = AskedHints()
    answers = [_press(board, asked) for _ in range(6)]
    kinds = [a.kind for a in answers]
    assert kinds[:3] == ["heuristic"] * 3 and kinds[-2:] == ["sampled"] * 2, kinds
    decided = answers.index(next(a for a in answers if a.kind == "sampled"))
    assert decided + 1 <= 5  # (411,000 positions: the fifth request at the latest)
    assert replace(answers[-1], solves=once.solves, kept=once.kept) == once  # the same verdict, the same move
    assert not _kept(asked) and not fair.KEPT  # (won: nothing kept to go on with)


def test_a_solve_run_in_slices_is_the_solve_run_at_once() -> None:
    """The same positions, the same verdict and line: a position past the
    choice (one search), and the choice of the base card (five searches
    taking turns, stopped between two of them)."""
    sample = observe(_big()).sample(random.Random(0))
    choice = Board.from_number(2, get_rules("admirals-patience"))
    for board, most, slice_ in ((sample, 600_000, 70_000), (choice, 120_000, 3 * 4_096)):
        whole = solve(board, max_seconds=600, max_nodes=most, options=UNCHANGED_HUNTERS, short_line=False)
        solving = Solving(board, options=UNCHANGED_HUNTERS)
        runs = 0
        while solving.nodes < most and solving.run(max_seconds=600,
                                                   max_nodes=min(most, solving.nodes + slice_)):
            runs += 1
        parts = solving.result(short_line=False)
        solving.release()
        assert runs >= 3
        assert (parts.result, parts.moves, parts.candidates, parts.nodes, parts.best_move) == (
            whole.result, whole.moves, whole.candidates, whole.nodes, whole.best_move)
    assert whole.candidates and whole.result == "unknown"


def test_a_run_asked_for_no_more_positions_than_were_entered_enters_none() -> None:
    """A run's ``max_nodes`` counts the positions of the runs before it: a
    run asked for as many as there are already (or fewer) stops at once,
    saying ``nodes``."""
    board = Board.from_number(2, get_rules("admirals-patience"))
    solving = Solving(board, options=UNCHANGED_HUNTERS)
    try:
        assert solving.run(max_seconds=600, max_nodes=5_000) == "nodes"
        entered = solving.nodes
        assert entered >= 5_000
        for most in (entered, entered - 1, 0):
            assert solving.run(max_seconds=600, max_nodes=most) == "nodes"
            assert solving.nodes == entered
        assert solving.run(max_seconds=600, max_nodes=entered + 1) == "nodes"
        assert solving.nodes > entered
    finally:
        solving.release()


def test_a_solve_for_one_win_is_finished_once_a_candidate_wins() -> None:
    """Without ``all_candidates`` the first candidate that wins ends the
    solve (a survey's deal is decided): Terrace deal 11's first base card
    wins within its first turn, and the other two are left undecided."""
    solving = Solving(Board.from_number(11, get_rules("terrace")), all_candidates=False)
    try:
        assert solving.run(max_seconds=600, max_nodes=200_000) == ""
        assert solving.finished()
        assert [task.result for task in solving.tasks] == ["won", None, None]
        assert solving.nodes < 4_096
        assert solving.result(short_line=False).result == "won"
    finally:
        solving.release()


def test_a_released_solve_refuses_to_run_and_keeps_its_result() -> None:
    solving = Solving(Board.from_number(2, get_rules("admirals-patience")), options=UNCHANGED_HUNTERS)
    solving.run(max_seconds=600, max_nodes=5_000)
    before = solving.result(short_line=False)
    solving.release()
    assert solving.table_bytes == 0
    for most in (100_000, 0):  # (a run to go on, and one with nothing left to do)
        with pytest.raises(RuntimeError, match=r"^a released solve runs no more$"):
            solving.run(max_seconds=600, max_nodes=most)
    after = solving.result(short_line=False)
    assert (after.result, after.nodes, after.best_move) == (before.result, before.nodes, before.best_move)


def test_a_solve_for_one_win_gives_three_rounds_in_four_to_its_leading_candidates() -> None:
    """Without ``all_candidates``, rounds 1-3 step only the FOCUS (2)
    candidates that have put most cards up, the fourth every candidate
    (Admiral's Patience deal 2: five base cards, none decided so soon)."""
    solving = Solving(Board.from_number(2, get_rules("admirals-patience")), all_candidates=False)
    try:
        solving.run(max_seconds=600, max_nodes=1)  # one turn (its search's and its hunters' positions)
        turn = solving.nodes
        assert turn >= api.NODE_SLICE
        turns = 3 * api.FOCUS
        assert solving.run(max_seconds=600, max_nodes=turns * turn) == "nodes"
        assert solving.nodes == turns * turn
        assert [task.result for task in solving.tasks] == [None] * 5
        assert sum(task.nodes > 0 for task in solving.tasks) == api.FOCUS
        solving.run(max_seconds=600, max_nodes=(turns + 5) * turn)
        assert all(task.nodes > 0 for task in solving.tasks)
    finally:
        solving.release()


def test_a_kept_solve_pushed_out_starts_again_and_still_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """One solve kept in all: the second position's pushes out the first's
    (released), whose sample then starts again, is kept again, and wins."""
    kept: Bounded[Solving, int] = Bounded(1, None, lambda held: held, forgotten=Solving.release)
    monkeypatch.setattr(fair, "KEPT", kept)
    board, other = _big(), _big(11)
    asked = AskedHints()
    _press(board, asked)
    first, = _kept(asked)
    assert first.nodes >= PRESS and list(kept) == [first]
    _press(other, asked)
    assert first.released and len(kept) == 1 and first not in kept
    _press(board, asked)
    again = next(s for s in _kept(asked) if s.root.position() == first.root.position() and s is not first)
    assert PRESS <= again.nodes < PRESS + 20_000  # (started again: not on from the first's positions)
    answers = [_press(board, asked) for _ in range(5)]
    assert answers[-1].kind == "sampled" and answers[-1].wins == 1


def test_the_kept_solves_pushed_out_of_the_process_bound_are_released() -> None:
    """fair.KEPT itself (not a stand-in) gives back the tables of the solve
    it pushes out: one more than KEPT_SOLVES, the oldest goes, released."""
    board = Board.from_number(4, get_rules("falling-star"))
    solves = [Solving(board, options=UNCHANGED_HUNTERS) for _ in range(fair.KEPT_SOLVES + 1)]
    for solving in solves:
        fair.KEPT.put(solving, 1)
    assert solves[0].released and solves[0] not in fair.KEPT
    assert not any(solving.released for solving in solves[1:])
    assert list(fair.KEPT) == solves[1:]


def test_every_solve_a_resumable_player_does_not_keep_is_released(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player that keeps solves cut short (a fair hint asked again)
    gives back the tables of each solve it does not keep as soon as its
    verdict is known: decided ones (Falling Star deal 4's samples are) are
    not held until the collector finds them."""
    made: list[Solving] = []

    class Recorded(Solving):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(fair, "Solving", Recorded)
    asked = AskedHints()
    decision = _press(Board.from_number(4, get_rules("falling-star")), asked)
    assert decision.kind == "sampled"
    assert made and all(solving.released for solving in made if solving not in fair.KEPT)


def test_a_request_counts_only_the_positions_it_entered_itself() -> None:
    """A solve gone on with counts against the request's budget only the
    positions this request entered, not those of the requests before it
    (which spent their own)."""
    board = _big()
    asked = AskedHints()
    _press(board, asked)
    first, = _players(asked)
    assert PRESS <= first.positions < 1.5 * PRESS
    _press(board, asked)
    again, = _players(asked)
    assert again is first
    assert PRESS <= again.positions < 1.5 * PRESS  # (not the first request's as well)


def test_no_two_positions_share_a_kept_solve() -> None:
    """Each kept solve is of its sample's own position; deals a player
    cannot tell apart, and the position after a move, have their own."""
    board = _big()
    seen = observe(board)
    order = list(seen.unseen)
    random.Random(5).shuffle(order)
    other = seen.determinise(order)
    asked = AskedHints()
    for position in (board, other):
        _press(position, asked)
    solves = _kept(asked)
    assert len(solves) == 2 and solves[0] is not solves[1]
    for player in _players(asked):
        for sample in player._samples:
            for key, solving in sample.solving.items():
                at = sample.board.copy(stack=False)
                if key is not None:
                    at.push(key)
                assert solving.root.position() == at.position()
    # a player that moves on gives back the solves of the position it left
    settings = FairSettings(samples=1, space_factor=1, nodes=600_000)
    player = FairPlayer(settings, positions=PRESS, resumable=True)
    player.decide(observe(board))
    left = [s for sample in player._samples for s in sample.solving.values()]
    assert left and left[0] in fair.KEPT
    board.push_text("s")
    player.resume(None, PRESS)
    player.decide(observe(board))
    assert left[0].released and left[0] not in fair.KEPT
    assert all(s.root.position() == sample.board.position()
               for sample in player._samples for s in sample.solving.values())


def test_a_kept_solve_weighs_its_tables() -> None:
    asked = AskedHints()
    _press(_big(), asked)
    work, = asked._work.values()
    assert isinstance(work, _Asked) and work.player is not None
    held = work.player.kept_bytes()
    assert held > 100_000  # (some 300 kB of tables at 100,000 positions)
    assert _weight(work) >= work.player.weight() + held // UNIT_BYTES
    assert asked._work.held == _weight(work)


def test_a_kept_solve_of_the_pure_python_search_weighs_its_positions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the compiled core (or with ``core="python"``) a kept solve
    weighed nothing: its positions grew without bound inside KEPT's and
    AskedHints' byte bounds. It weighs PY_ENTRY_BYTES an entry held."""
    monkeypatch.setattr(fair, "UNCHANGED_HUNTERS", replace(UNCHANGED_HUNTERS, core="python"))
    asked = AskedHints()
    _press(_big(), asked, nodes=20_000)
    kept = _kept(asked)
    assert kept and not any(task.search.compiled for solving in kept for task in solving.tasks)
    gc.collect()  # (a search dropped mid-way gives its entries back when collected)
    entries = search._PY_ENTRIES[0]
    assert entries > 1_000
    held = sum(solving.table_bytes for solving in kept)
    assert held >= 80 * entries  # (86-99 bytes an entry measured)
    assert held == entries * search.PY_ENTRY_BYTES
    assert fair.KEPT.held == held
    work, = asked._work.values()
    assert _weight(work) >= held // UNIT_BYTES
    asked.clear()
    assert search._PY_ENTRIES[0] == 0 and all(solving.table_bytes == 0 for solving in kept)


def test_a_fair_player_not_asked_again_keeps_no_solve() -> None:
    """The fair player of a game (and a hint asked once) keeps nothing: its
    decisions are never asked again."""
    fair_hint(_big(), settings=ONE_SAMPLE, seed=0, seconds=600, nodes=PRESS, escalate=False)
    assert not fair.KEPT


def test_the_pages_fair_hint_goes_on_with_the_solve_its_last_request_cut_short(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's hint (:func:`terrace.web.hints.find_hint`, in the solver
    process that keeps the game's work) of 0.3 s, in which Big Terrace's
    samples are drawn and a few solved (a 4-deck sample took some 10 ms to
    draw at load 15): a request goes on with the solve the last one cut
    short (a run that starts with positions entered), a solve of one of
    the position's own samples."""
    started: list[tuple[int, str]] = []
    run = Solving.run

    def counted(self: Solving, **budget: object) -> str:
        started.append((self.nodes, self.root.position()))
        return run(self, **budget)  # type: ignore[arg-type]

    monkeypatch.setattr(Solving, "run", counted)
    board = _big()
    hints.ASKED.clear()
    try:
        replies = [hints.find_hint(board, 0.3, seed=3) for _ in range(6)]
    finally:
        hints.ASKED.clear()
    resumed = [position for nodes, position in started if nodes > 0]
    assert resumed, started
    samples = {sample.position() for sample in _samples_of(board, 3)}
    assert set(resumed) <= samples
    decided = [r["samples"] - r["undecided"] for r in replies]
    assert decided == sorted(decided), decided


def _samples_of(board: Board, seed: int) -> list[Board]:
    """The first stock orders the page's hint at ``board`` draws with ``seed``."""
    rng = random.Random(seed)
    seen = observe(board)
    return [seen.sample(rng) for _ in range(64)]


def test_work_given_back_after_better_work_gives_back_its_kept_solves() -> None:
    """Two requests at one position at once (the second found no work
    kept: the first had taken it out): the better-founded work is kept,
    and the other's kept solve is released, not left to hold its tables."""
    board = _big()
    asked = AskedHints()
    _press(board, asked)
    key, = list(asked._work)
    first = asked.take(key)
    assert first is not None and first.player is not None
    solve_kept, = [s for sample in first.player._samples for s in sample.solving.values()]
    better = _press(board, asked, nodes=6 * PRESS)  # (meanwhile: afresh, and decided)
    assert better.kind == "sampled"
    asked.give(key, first)
    assert asked._work.get(key) is not first
    assert solve_kept.released and solve_kept not in fair.KEPT


def test_forgetting_the_asked_work_gives_back_its_kept_solves() -> None:
    asked = AskedHints()
    _press(_big(), asked)
    solves = _kept(asked)
    assert solves and all(s in fair.KEPT for s in solves)
    asked.clear()
    assert all(s.released for s in solves) and not fair.KEPT


def test_the_asked_work_pushed_out_gives_back_its_kept_solves() -> None:
    asked = AskedHints(size=1)
    _press(_big(), asked)
    solves = _kept(asked)
    assert solves and all(s in fair.KEPT for s in solves)
    _press(_big(11), asked)  # (the first position's work pushed out)
    assert len(asked) == 1 and all(s.released and s not in fair.KEPT for s in solves)


def test_better_work_given_back_gives_back_the_kept_solves_of_the_work_it_replaces() -> None:
    board = _big()
    asked = AskedHints()
    assert _press(board, asked, nodes=6 * PRESS).kind == "sampled"
    key, = list(asked._work)
    better = asked.take(key)
    assert better is not None
    _press(board, asked)  # (meanwhile: afresh, its solve cut short and kept)
    solve_kept, = _kept(asked)
    asked.give(key, better)
    assert asked._work.get(key) is better
    assert solve_kept.released and solve_kept not in fair.KEPT


def test_a_solve_gone_on_with_counts_the_positions_of_every_run_and_the_time_of_the_last() -> None:
    """SolveResult.seconds of a Solving run again is that run's time (not
    the time since the first run, idle time between runs included), its
    nodes the positions of every run."""
    solving = Solving(Board.from_number(2, get_rules("admirals-patience")), options=UNCHANGED_HUNTERS)
    try:
        solving.run(max_seconds=600, max_nodes=2_000)
        first = solving.result(short_line=False)
        time.sleep(1.0)
        solving.run(max_seconds=600, max_nodes=first.nodes + 2_000)
        second = solving.result(short_line=False)
        assert second.result == "unknown" and second.nodes > first.nodes
        assert second.nodes == solving.nodes
        assert second.seconds < 1.0
    finally:
        solving.release()


def test_a_sample_cut_short_again_with_no_solve_kept_is_left_for_the_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A player that keeps no solve (not resumable), asked again, solves a
    sample cut short once from its start; cut short again, the sample does
    not fit in a request and stays undecided: the next request goes on to
    the next sample instead of starting the same one a third time."""
    made: list[str] = []

    class Recorded(Solving):
        def __init__(self, board: Board, *args: Any, **kwargs: Any) -> None:
            super().__init__(board, *args, **kwargs)
            made.append(board.position())

    monkeypatch.setattr(fair, "Solving", Recorded)
    obs = observe(_big())
    player = FairPlayer(replace(ONE_SAMPLE, samples=2), seed=0, positions=PRESS)
    solved: list[list[str]] = []
    undecided = []
    for again in (False, True, True):
        if again:
            player.resume(positions=PRESS)
        made.clear()
        undecided.append(player.decide(obs, deadline=None, again=again).undecided)
        solved.append(made[:])
    first, second = (sample.board.position() for sample in player._samples[:2])
    assert first != second
    assert solved[0][:1] == solved[1][:1] == [first]
    assert first not in solved[2] and solved[2][:1] == [second]
    assert undecided == [1, 1, 2]


def test_a_solve_ended_by_its_own_positions_as_the_request_runs_out_is_not_kept() -> None:
    """A sample's solve that used exactly its own ``nodes`` in the request's
    last turn (the request's positions ran out at the same count) ended by
    its own bound: undecided for good, not cut short, and nothing kept to
    go on with (it would go on past its own bound)."""
    obs = observe(_big())
    probe = Solving(obs.sample(random.Random(0)), all_candidates=False, options=UNCHANGED_HUNTERS)
    probe.run(max_seconds=600, max_nodes=1)
    turn = probe.nodes  # (a solve's positions go up a turn at a time)
    probe.release()
    most = 3 * turn
    player = FairPlayer(replace(ONE_SAMPLE, nodes=most), seed=0, positions=most, resumable=True)
    try:
        assert player.decide(obs, deadline=None).undecided == 1
        assert player.positions == most  # (the bound met exactly)
        (sample,) = player._samples
        assert (sample.status, sample.cut, sample.solving) == ("unknown", False, {})
        assert not fair.KEPT
    finally:
        player.release()


def test_a_kept_solve_released_after_its_request_reopened_it_starts_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another hint (another thread) may push a kept solve out of fair.KEPT,
    releasing it, after this request reopened it to go on with: its sample
    starts again, the request does not run the released solve (which
    refuses: 'a released solve runs no more')."""
    board = _big()
    asked = AskedHints()
    _press(board, asked)
    first, = _kept(asked)
    resume = FairPlayer.resume

    def resumed_then_pushed_out(self: FairPlayer, *args: Any, **kwargs: Any) -> None:
        resume(self, *args, **kwargs)
        for solving in list(fair.KEPT):  # (as another hint's fair.KEPT.put would)
            fair.KEPT.pop(solving)
            solving.release()

    monkeypatch.setattr(FairPlayer, "resume", resumed_then_pushed_out)
    _press(board, asked)
    assert first.released
    again, = _kept(asked)
    assert again is not first and PRESS <= again.nodes < PRESS + 20_000  # (started again)


CHECKED = FairSettings(samples=2, early=False, space_factor=1)
"""Two samples, both solved before any move is checked against them."""
REQUEST = 8_192
"""Positions per request: fewer than the check after a move needs (:func:`_checked`)."""


def _checked() -> Board:
    """Terrace deal 20 after c2 rf t4t5 s: of two samples (7,758 positions
    for both), one is won after s and the other after t8t5, so t8t5 is
    checked against the first, which takes 18,496 positions: one request's
    8,192 cuts that check short (the request stops within a turn past it,
    at 12,288 positions into the check), the next one's ends it."""
    board = Board.from_number(20, get_rules("terrace"))
    for text in ("c2", "rf", "t4t5", "s"):
        board.push_text(text)
    return board


def _requests(player: FairPlayer, count: int, push_out: bool = False) -> list[tuple[Decision, int]]:
    """``count`` requests of :data:`REQUEST` positions at :func:`_checked`,
    each but the first asking the last decision again, as the decisions and
    the positions each one's solves entered. ``push_out``: the solves kept
    after the first request are pushed out of fair.KEPT (and released) as
    other hints' solves would push them out."""
    obs = observe(_checked())
    answers = []
    for again in [False] + [True] * (count - 1):
        if again:
            player.resume(positions=REQUEST)
        answers.append((player.decide(obs, deadline=None, again=again), player.positions))
        if push_out and not again:
            for solving in list(fair.KEPT):
                fair.KEPT.pop(solving)
                solving.release()
    player.release()
    return answers


def test_a_check_after_a_move_cut_short_goes_on_in_the_next_request_and_ends_there() -> None:
    """The check of t8t5 against the sample won after s, cut short, leaves
    that sample undecided after t8t5; asked again, the check goes on where
    it stopped (two requests enter the positions of one long decision) and
    the answer is that decision's; asked a third time, nothing is solved
    again."""
    whole = FairPlayer(CHECKED)
    once = whole.decide(observe(_checked()))
    assert [(str(m), wins, tried) for m, wins, tried in once.choices] == [("t8t5", 2, 2), ("s", 1, 1)]
    (first, spent), (second, more), (third, last) = _requests(
        FairPlayer(CHECKED, positions=REQUEST, resumable=True), 3)
    assert [(str(m), wins, tried) for m, wins, tried in first.choices] == [("t8t5", 1, 2), ("s", 1, 1)]
    assert first.undecided == 1
    assert (second.move, second.choices, second.undecided) == (once.move, once.choices, 0)
    assert spent + more == whole.positions  # (not started again: 12,288 positions more)
    assert (third.choices, third.solves, last) == (once.choices, 0, 0)


def test_a_check_cut_short_twice_with_no_solve_kept_is_left_for_the_next_check() -> None:
    """A player that keeps no solve, asked again, starts the check cut short
    over; cut short again, it does not fit in a request: the sample stays
    undecided after t8t5, and the next request checks s against the other
    sample instead (which wins: s is then the move), not t8t5 a third time."""
    answers = _requests(FairPlayer(CHECKED, positions=REQUEST), 4)
    (first, _), (second, more), (third, _), (fourth, last) = answers
    assert second.choices == first.choices and more >= REQUEST  # (started over, cut short again)
    assert [(str(m), wins, tried) for m, wins, tried in third.choices] == [("s", 2, 2), ("t8t5", 1, 2)]
    assert (fourth.choices, fourth.solves, last) == (third.choices, 0, 0)


def test_a_check_whose_kept_solve_was_pushed_out_starts_over_and_still_ends() -> None:
    """The check's kept solve pushed out of fair.KEPT after the first request
    (by other hints' solves): the next request starts it over and is cut
    short again, keeping that solve, and the one after goes on with it to
    the end: t8t5 wins in both samples (not left undecided for having been
    started over once)."""
    answers = _requests(FairPlayer(CHECKED, positions=REQUEST, resumable=True), 3, push_out=True)
    (first, _), (second, more), (third, _) = answers
    assert second.choices == first.choices and more >= REQUEST
    assert [(str(m), wins, tried) for m, wins, tried in third.choices] == [("t8t5", 2, 2), ("s", 1, 1)]
