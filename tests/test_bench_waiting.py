"""bench/waiting.py's two facts hold on every winning line: no copy of a
key pinned for a reserve card goes up before that card (docs/winnability.md,
"Pinned keys"), and a reserve card goes up only once the stock has given
out the copies the schedule needs before it (General's Patience under
"Limits and open work"); and the reserve schedule with blocking and pinned
keys cuts no won position. Checked against every position reachable from
random ones, each known won or not by the plain search of the whole graph."""

from __future__ import annotations

import importlib
import itertools
import random
from pathlib import Path

import pytest

from solver_brute import built_position, cards_in_play
from terrace.rules import Rules
from terrace.solver.prune import pinned_keys, reserve_blocked, reserve_dead
from terrace.solver.state import State
from test_solver_blocking import _reachable

RULES = [
    Rules(decks=2, reserve=8, piles=3, candidates=0, foundations="suit"),
    Rules(decks=2, reserve=6, piles=3, candidates=0, foundations="suit"),
    Rules(decks=1, reserve=6, piles=2, candidates=0, foundations="suit"),
]

POSITIONS = [*itertools.product(range(3), (-2, 0, 2)), (10, 0), (12, -2), (19, 0)]
"""Each rule set's random positions (seed, cards in play beyond the
smallest count): the last three hold a second copy that the needed stock
place would wrongly count on."""


def test_pinned_keys_and_the_stock_place_hold_on_every_winning_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "bench"))
    bench = importlib.import_module("waiting")  # (it imports blocking.py beside it, as when run)
    pinned_checked = drawn_checked = 0
    for rules in RULES:
        for seed, extra in POSITIONS:
            board = built_position(random.Random(seed), rules, cards_in_play(rules) + extra)
            start = State(board, True, 0)
            if not start.res or reserve_dead(start):
                continue
            graph = _reachable(board, 1_000)
            if graph is None:
                continue
            boards, won = graph
            pinned = pinned_keys(start)
            draws = [row.draw for row in bench.waits(board)]
            for key in won:
                later = boards[key]
                s = State(later, True, 0)
                assert not reserve_blocked(s, pinning=True), later.position()  # (the cut with pinning)
                played = len(start.res) - len(s.res)
                for event in range(played, len(start.res)):  # (reserve cards still to go up)
                    for k in pinned[event]:
                        assert s.off[k] == start.off[k], (board.position(), later.position())
                        pinned_checked += 1
                for event in range(played):
                    assert len(start.stk) - len(s.stk) >= draws[event], (board.position(), later.position())
                    drawn_checked += draws[event] > 0
    # (the test proves nothing unless both facts say something on won positions)
    assert pinned_checked >= 1_000 and drawn_checked >= 100, (pinned_checked, drawn_checked)
