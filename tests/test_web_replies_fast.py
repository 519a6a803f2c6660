"""A game's answer writes its lists of moves by a join (the JSON encoder
took half of a GET's time on the longest game): the same JSON, and the
encoder never sees those lists when they are move notation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from terrace.web import replies


def rendered(data: Any) -> Any:
    return json.loads(replies.json_response(data).body)


@pytest.mark.parametrize("data", [
    {"id": "a", "moves": ["c1", "s", "t1t2", "wf"], "redo": [], "n": 3, "x": {"moves": ["ü"]}},
    {"moves": [], "redo": []},
    {"moves": ["c1"]},
    {"redo": ["s"], "text": 'quote " and \\ and \u2028'},
    {"moves": ["a\"b", "c\\d"], "redo": ["\u00fc", "\n"]},  # (escaped by the encoder)
    {"moves": ["", "s"], "redo": [1, "s"]},
    {"moves": 3, "redo": None},
    {},
    [1, 2],
])
def test_the_answer_is_the_json_of_the_data(data: Any) -> None:
    assert rendered(data) == data


def test_the_moves_of_a_long_game_never_reach_the_json_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = json.dumps

    def counted(value: Any, **options: Any) -> str:
        seen.append(len(real(value)))
        return real(value, **options)

    monkeypatch.setattr(json, "dumps", counted)
    moves = ["t1t2", "t2t1"] * 50_000
    data = {"id": "a", "moves": moves, "redo": ["s"] * 1000, "status": "playing"}
    assert rendered(data) == data
    assert seen and max(seen) < 100  # (only the rest went through the encoder)
