"""Golden game records: complete games that must replay the same forever.

Each file in ``tests/golden`` is a game record (see docs/notation.md) with
one more key, ``final_position``: the position string after the last move.
A change to the rules, the shuffle or the notation that alters any of
these games fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from terrace.board import Board, Status
from terrace.deal import Deal
from terrace.record import GameRecord
from terrace.variants import VARIANTS, preset_name

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def test_every_preset_has_a_golden_game_played_by_its_own_rules_and_a_won_one() -> None:
    """(General's Patience, Big Terrace and Empress of Italy had none, and
    Falling Star only one of custom rules: free spaces, foundation return.)"""
    records = [GameRecord.from_json(path.read_text()) for path in GOLDEN]
    assert {preset_name(record.rules) for record in records} >= {variant.name for variant in VARIANTS}
    assert any(record.result == "won" for record in records)
    assert all(record.result in ("won", "lost") for record in records)


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_record_replays(path: Path) -> None:
    data = json.loads(path.read_text())
    record = GameRecord.from_dict(data)  # checks rules, deal, every move and the result
    board = record.replay()
    assert board.status.value == data["result"] == path.stem.rsplit("-", 1)[1]
    assert board.position() == data["final_position"]
    assert board.is_game_over()
    # The numbered deal still shuffles to the stored cards.
    assert Deal.from_number(data["deal_number"], record.rules).text() == data["deal"]
    # Undoing every move leads back to the deal, and redoing to the end again.
    for _ in record.moves:
        board.pop()
    assert board == Board(record.rules, record.deal)
    for _ in record.moves:
        board.redo()
    assert board.position() == data["final_position"]
    if board.status is Status.WON:
        assert board.foundation_cards == record.rules.card_count
