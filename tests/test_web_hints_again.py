"""The page's fair hint asked again, through the web server and its solver
process: the second request goes on with the solves the first one's
budget cut short (the work the process kept, :data:`terrace.solver.advice.ASKED`),
so two requests in a row decide what one twice as long decides, counted
in positions. The requests are capped in positions, not seconds, inside
the solver process (:class:`_CappedPool`), so that the answer is the same
on any machine."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.solver.api import HUNTER_SHARE, NODE_SLICE, Solving
from terrace.storage import GameStore, MemoryStore
from terrace.web import hints
from terrace.web.app import create_app
from terrace.web.workers import SolverPool

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PRESS = 100_000
"""Positions per request: a fraction of what the position's sixteen samples need."""
SEED = 0
"""The fair hint's seed (the page's is the game's, a new one each run)."""
TURN = NODE_SLICE * (1 + int(HUNTER_SHARE))
"""The most positions one turn of a solve enters (its search's and its
win-hunters'): how far past its cap a request may go."""
_COUNTED = [0, 0]
"""The positions the solves of this (solver) process entered, and those
of them entered by solves that went on from an earlier request."""
_ANSWER = hints.fair_answer


def _counting_run(self: Solving, **budget: Any) -> str:
    before = self.nodes
    try:
        return _RUN(self, **budget)
    finally:
        _COUNTED[0] += self.nodes - before
        if before:
            _COUNTED[1] += self.nodes - before


_RUN = Solving.run


def _capped(find: Callable[..., dict[str, Any]], *args: Any, nodes: int, **kw: Any) -> dict[str, Any]:
    """``find`` (the page's hint job) with its fair hint capped at ``nodes``
    positions, run in the solver process; the reply says how many positions
    its solves entered."""
    Solving.run = _counting_run  # type: ignore[method-assign]
    hints.fair_answer = partial(_ANSWER, nodes=nodes)  # type: ignore[assignment]
    _COUNTED[:] = [0, 0]
    found = find(*args, **kw, seed=SEED)
    found["positions"], found["resumed"] = _COUNTED
    return found


class _CappedPool(SolverPool):
    """One solver process whose fair hints are capped at ``nodes`` positions."""

    def __init__(self, nodes: int) -> None:
        super().__init__(workers=1)
        self.nodes = nodes

    async def run(self, func: Callable[..., Any], *args: Any, **options: Any) -> Any:
        return await super().run(partial(_capped, func, nodes=self.nodes), *args, **options)


@pytest.fixture
def store() -> Iterator[GameStore]:
    yield MemoryStore()


def _client(store: GameStore, nodes: int) -> TestClient:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestClient(create_app(store, hint_seconds=600.0, pool=_CappedPool(nodes)), base_url=LOCAL)


def _hint(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.post(f"/api/games/{game_id}/hint", json={})
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_a_fair_hint_asked_again_through_the_server_decides_what_one_twice_as_long_does(
        store: GameStore) -> None:
    """Big Terrace deal 3 after c1 and ten draws: sixteen samples of 20,000
    positions, 100,000 positions a request. The second request goes on
    with the solve the first one's budget cut short, and answers as one
    request of 200,000 positions does (the same move, wins and decided
    samples; the two requests enter one turn more than it, each stopping
    within a turn past its cap)."""
    with _client(store, PRESS) as client:
        game = client.post("/api/games", json={"variant": "big-terrace", "deal_number": 3}).json()
        for text in ["c1"] + ["s"] * 10:
            game = client.post(f"/api/games/{game['id']}/moves", json={"move": text}).json()
        first, second = _hint(client, game["id"]), _hint(client, game["id"])
    with _client(store, 2 * PRESS) as client:  # (a new solver process: nothing kept)
        once = _hint(client, game["id"])
    counts = [(f["positions"], f["resumed"], f["samples"], f["undecided"], f["wins"])
              for f in (first, second, once)]
    assert first["resumed"] == 0 and second["resumed"] > 0 and once["resumed"] == 0, counts
    assert PRESS <= first["positions"] < PRESS + TURN, counts
    assert first["samples"] - first["undecided"] < once["samples"] - once["undecided"], counts
    assert 0 <= first["positions"] + second["positions"] - once["positions"] <= TURN, counts
    keys = ("move", "kind", "wins")
    assert {k: second[k] for k in keys} == {k: once[k] for k in keys}, counts
    assert second["samples"] - second["undecided"] == once["samples"] - once["undecided"], counts
