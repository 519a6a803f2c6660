"""``solve``'s tidying drops a card moved to another pile and straight back
also when another such pair stands inside the pair (``api._tidy``, with
``lines.returned``, the hints' logic): it dropped a pair only when nothing
touched either pile in between, so ``t3t1 t1t2 t4f t2t1 t1t3`` kept
``t3t1 t4f t1t3`` (the inner pair went, the outer one was passed by)."""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any, cast

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.solver import api
from terrace.solver.lines import REPLAY_CHECK, partner, partner_past_pairs, replays_to_win
from test_hint_detours import NESTED_LINE, NESTED_RULES, NESTED_START

TEXTS = NESTED_LINE.split()
WITHOUT_BOTH = TEXTS[2:3] + TEXTS[5:]
"""The line without the Q♣'s four moves between piles 3, 1 and 2."""


def nested() -> tuple[Board, list[Move]]:
    board = Board.from_position(NESTED_START, NESTED_RULES)
    line = [Move.parse(text) for text in TEXTS]
    assert replays_to_win(board, line) and partner(line, 0) < 0
    return board, line


@pytest.mark.parametrize("max_tries", [None, 64, 2])
def test_tidying_drops_a_detour_with_a_detour_inside(max_tries: int | None) -> None:
    board, line = nested()
    tidied = api._tidy(board, line, 1e9, max_tries=max_tries)
    assert [str(m) for m in tidied] == WITHOUT_BOTH
    assert replays_to_win(board, tidied)


def test_tidying_within_one_try_drops_only_the_inner_pair() -> None:
    """The inner pair's try counts: with one try left none is spent on it
    for the outer pair, and the inner pair, reached on its own, takes it."""
    board, line = nested()
    tidied = api._tidy(board, line, 1e9, max_tries=1)
    assert [str(m) for m in tidied] == TEXTS[:1] + TEXTS[2:3] + TEXTS[4:]
    assert replays_to_win(board, tidied)


def test_a_solves_finished_line_has_no_nested_detour() -> None:
    board, line = nested()
    task = SimpleNamespace(board=board, line=line, choice=None)
    now = time.perf_counter()
    finished = api._finished_line(cast(Any, task), 10.0, 10**6, now + 10.0, False)
    assert [str(m) for m in finished] == WITHOUT_BOTH


def test_the_scan_before_the_replays_changes_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """``lines.returned`` replays inner pairs only when the scan of the moves
    (``partner_past_pairs``) says they could let the pair go: with the scan
    saying yes every time, each answer on a real line is the same (only
    fewer inner tries are spent)."""
    from solver_brute import with_detours
    from terrace.solver import lines, solve
    from terrace.variants import get_rules

    board = Board.from_number(1, get_rules("madame"))
    found = solve(board, max_seconds=60, max_nodes=200_000, all_candidates=False, short_line=False)
    assert found.result == "won" and board.choosing
    board.push(found.moves[0])  # (the base card)
    line = with_detours(board, found.moves[1:], 1)  # (10 nested pairs let their pair go)

    def answers() -> list[tuple[list[str], int, int]]:
        out = []
        current = board.copy(stack=False)
        for i, move in enumerate(line):
            if move.source == move.target == "t":
                tries = [lines.NESTED_TRIES]
                moves, j = lines.returned(current, line, i, math.inf, tries)
                out.append(([str(m) for m in moves] if j >= 0 else [], j, tries[0]))
            current.push(move)
        return out

    scanned = answers()
    monkeypatch.setattr(lines, "partner_past_pairs", lambda *args: 0)
    unscanned = answers()
    assert [answer[:2] for answer in scanned] == [answer[:2] for answer in unscanned]
    assert sum(answer[2] for answer in scanned) > sum(answer[2] for answer in unscanned)
    assert any(j >= 0 and tries < lines.NESTED_TRIES for _, j, tries in scanned)  # (nested pairs met)


@pytest.mark.parametrize(("between", "reached"), [(REPLAY_CHECK - 1, True), (REPLAY_CHECK, False)])
def test_the_scan_reaches_an_inner_pair_as_far_as_the_replays_do(between: int, reached: bool) -> None:
    """The scan before the replays looks at an inner pair at most
    REPLAY_CHECK moves after the outer move, as :func:`returned` does:
    one move further and it gives up (a mutation audit: the distance
    counted one short went unnoticed)."""
    fillers = [Move.parse("wf")] * between
    line = [Move.parse("t3t1"), *fillers, *(Move.parse(m) for m in ("t1t2", "t2t1", "t1t3"))]
    reach = partner_past_pairs(line, 0, [8], set())
    assert reach == (len(line) - 1 if reached else -1)
