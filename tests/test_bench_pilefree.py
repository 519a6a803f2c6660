"""bench/pilefree.py's strict game is a relaxation of the real game: a
winning line of the real game replays move by move as a line of it (so a
deal whose strict pile-free game is won cannot be proved lost by an argument
that holds there), and it is stricter than the pile-free game, whose piles
count a card gone up as a holder still (docs/winnability.md, "Limits and
open work", General's Patience)."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

from terrace.board import Board
from terrace.cards import parse_card
from terrace.solver import api
from terrace.variants import get_rules


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "bench"))
    return importlib.import_module("pilefree")


def test_a_real_winning_line_is_a_line_of_the_strict_pile_free_game(bench: ModuleType) -> None:
    board = Board.from_number(14, get_rules("generals-patience"))  # (won in 240 moves, 8,494 positions)
    result = api.solve(board, max_seconds=600, max_nodes=50_000, all_candidates=False)
    assert result.result == api.WON
    start = board.copy(stack=False)
    start.push(result.moves[0])
    line = bench.pile_free_line(start, result.moves[1:])
    assert any(kind == "wt" for kind, _ in line) and any(kind == "tf" for kind, _ in line)
    bench.check(bench.PileFree.of(start), line, strict=True)


def test_the_strict_game_counts_no_card_gone_up_as_a_holder(bench: ModuleType) -> None:
    """One pile holding the K♣; the waste's 7♦ would lie on an 8♠, which is
    up: the pile-free game finds room for it (the 8♠ counted), the strict
    game does not, and neither takes the 6♦ with no holder at all."""
    king, seven, six, eight = (parse_card(text) for text in ("KC", "7D", "6D", "8S"))
    gone_up = [0] * 52
    gone_up[eight] = 1
    bag = [0] * 52
    bag[king] = 1

    def game(stock: list[int]) -> object:
        return bench.PileFree(decks=1, piles=1, base=0, stock=stock, reserve=[],
                              heights=((0,), (0,), (0,), (0,)), bag=list(bag), gone_up=list(gone_up))

    join = [("s", seven), ("wt", seven)]
    with pytest.raises(AssertionError, match="not every card went up"):  # (the join was taken)
        bench.check(game([seven]), join)
    with pytest.raises(AssertionError, match="no room in the piles"):
        bench.check(game([seven]), join, strict=True)
    for strict in (False, True):
        with pytest.raises(AssertionError, match="no room in the piles"):
            bench.check(game([six]), [("s", six), ("wt", six)], strict=strict)
    assert bench.runs_needed(bag, gone_up) == 1
    bag[seven] = 1
    assert (bench.runs_needed(bag, gone_up), bench.runs_needed(bag, bench.NONE_UP)) == (1, 2)
