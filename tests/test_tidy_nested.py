"""``solve``'s tidying drops a card moved to another pile and straight back
also when another such pair stands inside the pair (``api._tidy``, with
``lines.returned``, the hints' logic): it dropped a pair only when nothing
touched either pile in between, so ``t3t1 t1t2 t4f t2t1 t1t3`` kept
``t3t1 t4f t1t3`` (the inner pair went, the outer one was passed by)."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any, cast

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.solver import api
from terrace.solver.lines import partner, replays_to_win
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
