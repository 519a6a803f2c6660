"""The page's view of a game (terrace.web.view): what each card can do,
checked against every pair of piles the slow way."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from terrace.board import Board
from terrace.cards import CODE, RANK, RANKS, RED, SUIT, SUITS
from terrace.moves import Move
from terrace.rules import Rules, SpaceRule
from terrace.variants import PRESETS
from terrace.web.view import describe_sources, foundation_badges, notation, pile_cards, source_piles
from test_properties_wide import PLACES, full_rules, laid_out


def sources_by_trying_every_pile(board: Board) -> dict[str, dict[str, Any]]:
    """What describe_sources must say: every (source, target) pair tried."""
    if board.choosing:
        return {}
    piles = pile_cards(board.to_dict())
    targets_all = [f"f{i}" for i in range(1, len(board.foundations) + 1)] + [
        f"t{i}" for i in range(1, len(board.tableau) + 1)
    ]
    result: dict[str, dict[str, Any]] = {}
    for pile in source_piles(board):
        cards = piles.get(pile) or []
        if not cards:
            continue
        src = notation(pile)
        targets: dict[str, str] = {}
        for target in targets_all:
            if target == pile or (target[0] == "f" and src[0] == "f"):
                continue
            move = Move.parse(src + target)
            if board.is_legal(move):
                targets[target] = str(move)
        auto = board.auto_move(src)
        if targets or auto is not None:
            result[pile] = {"card": cards[-1], "auto": None if auto is None else str(auto),
                            "targets": targets}
    return result


RULES = [
    *PRESETS.items(),
    ("return-free", dataclasses.replace(PRESETS["terrace"], foundation_return=True, spaces=SpaceRule.FREE)),
    ("return-waste", dataclasses.replace(PRESETS["terrace"], foundation_return=True,
                                         spaces=SpaceRule.WASTE)),
]


@pytest.mark.parametrize(("name", "rules"), RULES, ids=[name for name, _ in RULES])
def test_sources_are_what_trying_every_pile_finds(name: str, rules: Rules) -> None:
    chance = random.Random(name)
    positions = 0
    for number in range(1, 5):
        board = Board.from_number(number, rules)
        for _ in range(150):
            assert describe_sources(board) == sources_by_trying_every_pile(board)
            positions += 1
            moves = list(board.legal_moves)
            if not moves:
                break
            others = [m for m in moves if not m.is_draw]
            board.push(chance.choice(others if others and chance.random() < 0.8 else moves))
    assert positions > 100


def test_targets_keep_the_pages_order() -> None:
    """Foundations first, then piles, each by number (the JSON the page reads)."""
    board = Board.from_number(3, dataclasses.replace(PRESETS["terrace"], spaces=SpaceRule.FREE))
    board.push(Move.parse("c1"))
    seen = 0
    for move in list(board.legal_moves)[:40]:
        board.push(move)
        for info in describe_sources(board).values():
            keys = list(info["targets"])
            assert keys == sorted(keys, key=lambda k: (k[0] == "t", int(k[1:])))
            seen += len(keys)
        board.pop()
    assert seen


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(full_rules(), st.integers(0, 12), st.tuples(*(st.booleans() for _ in PLACES)), st.integers(0, 2**32))
def test_a_foundation_s_badge_names_exactly_the_cards_it_takes(
        rules: Rules, base: int, empty: tuple[bool, ...], seed: int) -> None:
    """The badge the page hangs below a foundation (the rank it waits for,
    with its colour, or its suit in suit) names the cards the engine lets
    onto it and no other, in positions laid out at random over every rule
    option; a complete foundation's badge names none."""
    bare = frozenset(place for place, left in zip(PLACES, empty, strict=True) if left)
    board = Board.from_position(laid_out(rules, base, bare, random.Random(seed)), rules)
    for index, badge in enumerate(foundation_badges(board)):
        taken = {CODE[card] for card in range(52) if board.foundation_accepts(index, card)}
        named = {CODE[card] for card in range(52) if badge["next"] == RANKS[RANK[card]] and (
            badge["colour"] is None or badge["colour"] == ("red" if RED[card] else "black")) and (
            badge["suit"] is None or badge["suit"] == SUITS[SUIT[card]])}
        assert badge["complete"] == (len(board.foundations[index]) == 13)
        assert taken == (set() if badge["complete"] else named), (index, badge, board.position())
