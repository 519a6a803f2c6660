"""A time budget's answer comes by its deadline plus api.REPLAY_GRACE,
whatever is left to do with a winning line found late: shortening it,
tidying it, carrying it over to the twin candidates (8 decks, 20 piles,
20 candidates, free spaces, foundation return, deal 27: a 1 s solve took
1.81 s, 0.39 s of it shortening and tidying after a late win, 0.41 s
replaying the line for ten twins)."""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver import api, endgame, lines
from terrace.solver import search as search_module
from terrace.solver.lines import replays_to_win
from terrace.solver.search import Options, Search, replay_line
from terrace.solver.state import State
from terrace.variants import get_rules


def test_a_late_win_is_shortened_and_tidied_only_until_the_grace_ends(
        monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board.from_number(4, get_rules("falling-star"))
    line = api.solve(board, max_seconds=10, short_line=False).moves
    ends: list[tuple[float, float]] = []  # (when asked, when told to end)
    real_shorten, real_tidy = api.shorten, api._tidy

    def shorten(start: Board, moves: list[Move], *, seconds: float, **options: Any) -> list[Move]:
        ends.append((time.perf_counter(), time.perf_counter() + seconds))
        return real_shorten(start, moves, seconds=seconds, **options)

    def tidy(start: Board, moves: list[Move], seconds: float = 0.25,
             max_tries: int | None = None) -> list[Move]:
        ends.append((time.perf_counter(), time.perf_counter() + seconds))
        return real_tidy(start, moves, seconds, max_tries)

    monkeypatch.setattr(api, "shorten", shorten)
    monkeypatch.setattr(api, "_tidy", tidy)
    for late in (0.0, 0.3, 0.45, 0.6):
        ends.clear()
        deadline = time.perf_counter() - late  # (the win was replayed this long after the deadline)
        task = SimpleNamespace(board=board, line=line, replay_by=deadline + api.REPLAY_GRACE)
        finished = api._finished_line(task, 1.0, None, deadline, True)  # type: ignore[arg-type]
        last = deadline + api.REPLAY_GRACE
        assert len(ends) == 2, ends
        assert all(end <= max(asked, last) + 0.01 for asked, end in ends), (late, ends, last)
        assert replays_to_win(board, finished)


def test_twins_are_checked_only_until_the_grace_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules(decks=2, piles=9, candidates=9)
    board = Board.from_number(3, rules)
    given: list[float] = []
    real = api.carried_over

    def carried_over(line: list[Move], won_from: Board, twin: Board, until: float = float("inf")) -> Any:
        given.append(until)
        return real(line, won_from, twin, until)

    monkeypatch.setattr(api, "carried_over", carried_over)
    began = time.perf_counter()
    found = api.solve(board, max_seconds=5.0)
    assert found.result == "won" and given, "no twin among the winning candidates: pick another deal"
    assert all(until <= began + 5.0 + api.REPLAY_GRACE + 0.05 for until in given)


def test_a_replay_stops_at_its_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines, "REPLAY_CHECK", 16)
    board = Board.from_number(4, get_rules("falling-star"))
    line = api.solve(board, max_seconds=10, short_line=False).moves
    assert len(line) > 16 and replays_to_win(board, line)
    assert not replays_to_win(board, line, time.perf_counter() - 1)


def test_every_replay_with_a_deadline_reads_the_clock_as_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """One interval, lines.REPLAY_CHECK, for the engine's replays and the
    solver's (search.REPLAY_CHECK was a second 256). The clock is the moves
    played; it passes the deadline at the tenth, so each replay stops at
    its first look past it."""
    board = Board.from_number(4, get_rules("falling-star"))
    solved = Search(board, Options())
    solved.step(10.0)
    assert solved.result == "won" and len(solved.line) > lines.REPLAY_CHECK
    engine_line = solved.replay(board, solved.line)[0]
    clock = [0.0]
    monkeypatch.setattr(Board, "push", _costing(Board.push, clock, 1.0))
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    assert not replays_to_win(board, engine_line, until=9.5)
    assert clock[0] == lines.REPLAY_CHECK
    clock[0] = 0.0
    assert replay_line(board, solved.line, until=9.5) is None
    assert clock[0] == lines.REPLAY_CHECK


def test_no_twin_is_replayed_once_the_grace_is_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """Renaming a raw line of 30,000 moves for a twin took 0.1 s before its
    replay looked at the clock: three twins ended 0.37 s past the grace."""
    board = Board.from_number(4, get_rules("falling-star"))
    task = SimpleNamespace(board=board, line=api.solve(board, max_seconds=10).moves)

    def never(*args: Any) -> None:
        raise AssertionError("replayed after the grace")

    monkeypatch.setattr(api, "carried_over", never)
    twin = board.copy(stack=False)
    assert api._twin_verdict(task, "won", twin, time.perf_counter() - 0.01) == "unknown"  # type: ignore[arg-type]


def test_a_win_found_early_is_shortened_in_the_rest_of_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # Empress of Italy deal 4: a 1 s solve found its win early and returned
    # 19,688 moves (a wandering endgame) after shortening for a quarter of
    # the budget, while the shortening that the rest of the second allowed
    # makes it 627 moves; a hint following it then took 19,300 moves
    board = Board.from_number(4, get_rules("falling-star"))
    line = api.solve(board, max_seconds=10, short_line=False).moves
    given: list[float] = []
    real_shorten = api.shorten

    def shorten(start: Board, moves: list[Move], *, seconds: float, **options: Any) -> list[Move]:
        given.append(seconds)
        return real_shorten(start, moves, seconds=seconds, **options)

    monkeypatch.setattr(api, "shorten", shorten)
    deadline = time.perf_counter() + 20  # (the win came 20 s before the budget's end)
    task = SimpleNamespace(board=board, line=line, replay_by=deadline + api.REPLAY_GRACE)
    finished = api._finished_line(task, 30.0, None, deadline, True)  # type: ignore[arg-type]
    assert len(given) == 1 and 19 < given[0] <= 20, given
    assert replays_to_win(board, finished)
    given.clear()
    deadline = time.perf_counter() - 0.1  # (a late win: at least the share, within the grace)
    task = SimpleNamespace(board=board, line=line, replay_by=deadline + api.REPLAY_GRACE)
    api._finished_line(task, 30.0, None, deadline, True)  # type: ignore[arg-type]
    assert len(given) == 1 and given[0] <= api.REPLAY_GRACE, given


def test_a_late_win_ends_within_the_grace_counted_in_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock here is the work done: 10 us for each move the engine or
    the solver's state plays or takes back and each position key, so a
    busy machine cannot hide an overrun. The endgame search that shortens
    a late win looked at the clock every 64 expansions, each a way played
    to a position and every move tried there: it ended 49 ms of such work
    past the grace on Empress of Italy deal 4."""
    board = Board.from_number(4, get_rules("empress-of-italy"))
    line = api.solve(board, max_seconds=30, max_nodes=1_000_000, short_line=False).moves
    assert len(line) > 20_000  # (a node budget: the same line on every machine)
    clock = _counted_work(monkeypatch)
    for late in (0.0, 0.2, 0.45, 0.49):
        clock[0] = 100.0
        deadline = clock[0] - late  # (the win was replayed this long after the deadline)
        task = SimpleNamespace(board=board, line=line, replay_by=deadline + api.REPLAY_GRACE)
        finished = api._finished_line(task, 1.0, None, deadline, True)  # type: ignore[arg-type]
        assert clock[0] <= deadline + api.REPLAY_GRACE + 0.002, (late, clock[0] - deadline)
        assert finished[:1] == line[:1]


def _counted_work(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A clock, read by :func:`time.perf_counter`, that is the work done:
    10 us for each move the engine or the solver's state plays or takes
    back and each position key."""
    clock = [0.0]
    for owner, name in ((Board, "push"), (Board, "position_key"), (State, "apply"), (State, "undo"),
                        (State, "key")):
        monkeypatch.setattr(owner, name, _costing(getattr(owner, name), clock))
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    return clock


def _costing(real: Any, clock: list[float], cost: float = 1e-5) -> Any:
    """``real`` (a method), costing ``cost`` (10 us) on ``clock`` each call."""

    def costed(*args: Any, **options: Any) -> Any:
        clock[0] += cost
        return real(*args, **options)

    return costed


EXTREME = Rules(decks=8, piles=20, candidates=20, spaces="free", foundation_return=True)
"""The rule options at their most: the longest lines, the most moves a position."""


def test_skipping_detours_ends_by_its_deadline_counted_in_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted in work, on a line of 13,000 moves (eight decks): once out
    of time, the bridging played the rest of the line all the same; the
    skipping looked at the clock every 64 moves, each trying every move
    there; and the engine's replay of the shorter line had no deadline.
    The skipping ended up to 0.13 s of work past its deadline."""
    board = Board.from_number(27, EXTREME)
    found = api.solve(board, max_seconds=60, max_nodes=2_000_000, short_line=False)
    assert found.result == "won" and len(found.moves) > 10_000  # (a node budget: the same on every machine)
    board.push(found.moves[0])
    line = found.moves[1:]
    clock = _counted_work(monkeypatch)
    lengths = []
    for seconds in (0.55, 0.8):
        clock[0] = 100.0
        shorter = endgame.skip_detours(board, line, until=clock[0] + seconds)
        assert clock[0] <= 100.0 + seconds + 0.003, (seconds, clock[0] - 100.0)  # (256 moves a look)
        assert replays_to_win(board, shorter)
        lengths.append(len(shorter))
    assert lengths[-1] < len(line)  # (a shorter line was replayed in time)


def test_a_solves_searches_give_their_tables_back_before_its_line_is_finished(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables of a solve's searches were given back on its return, past
    the grace: 5-9 ms of CPU time after the answer of 1-3 s solves (eight
    decks, 20 piles and candidates, free spaces, foundation return, deal
    27). They are given back once the searching ends, inside the budget."""
    core = pytest.importorskip("terrace.solver._core")
    board = Board.from_number(4, get_rules("falling-star"))
    before = core.memory_in_use()
    held: list[int] = []
    real_finished, real_result = api._finished_line, api.SolveResult

    def finished(*args: Any) -> list[Move]:
        held.append(core.memory_in_use())
        return real_finished(*args)

    def result(*args: Any, **fields: Any) -> api.SolveResult:
        held.append(core.memory_in_use())
        return real_result(*args, **fields)

    monkeypatch.setattr(api, "_finished_line", finished)
    monkeypatch.setattr(api, "SolveResult", result)
    found = api.solve(board, max_seconds=30, max_nodes=1_000_000)
    assert found.result == "won" and held == [before, before], (before, held)


@pytest.mark.parametrize("core", ["python", "compiled"])
def test_a_released_search_gives_back_its_tables_and_takes_no_more_steps(core: str) -> None:
    compiled = pytest.importorskip("terrace.solver._core") if core == "compiled" else None

    def held() -> tuple[int, int]:
        return search_module._PY_ENTRIES[0], compiled.memory_in_use() if compiled else 0

    board = Board.from_number(1, get_rules("admirals-patience"))
    board.push_text("c1")
    before = held()
    search = Search(board, Options(core=core))
    search.step(math.inf, max_nodes=2_048)
    assert search.result is None and held() != before
    search.release()
    assert held() == before
    assert search.nodes >= 2_048 and search.best_found >= 0
    with pytest.raises(RuntimeError, match="released"):
        search.step(math.inf, max_nodes=2_048)


def test_dropping_a_pair_far_apart_stops_at_the_deadline_counted_in_work(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Tidying asks whether a line still wins without a card's shift to
    another pile and its way straight back; the moves between the two were
    played twice before the clock was first read (here 1,202 moves: 12 ms
    of work past the deadline), however far apart the pair was."""
    board = Board.from_number(2, EXTREME)
    board.push_text("c1")
    pair = [Move.parse("t4t8"), Move.parse("t8t4")]  # (piles 2 and 19 untouched)
    line = [Move.parse("t2t19"), *pair * 300, Move.parse("t19t2")]
    assert lines.partner(line, 0) == len(line) - 1
    clock = _counted_work(monkeypatch)
    assert lines.still_wins_without(board, line, 0, len(line) - 1, math.inf) is False  # (played to the end)
    assert clock[0] > len(line) * 1e-5
    clock[0] = 100.0
    assert lines.still_wins_without(board, line, 0, len(line) - 1, until=99.0) is False
    assert clock[0] <= 100.0 + lines.REPLAY_CHECK * 1e-5, clock[0] - 100.0
