"""Words in the player's language only, and each fact written once: a
refusal in German holds no English, and a limit a refusal states comes from
where the program keeps it, not from a number typed into its text."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from terrace.web.app import create_app
from terrace.web.workers import SolverPool
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def pool() -> Iterator[SolverPool]:
    solver_pool = SolverPool(workers=1)
    solver_pool.start()
    yield solver_pool
    solver_pool.close()


def _hint(pool: SolverPool, language: str) -> Any:
    with TestClient(create_app(pool=pool, hint_seconds=0.2), base_url=LOCAL) as client:
        game = client.post("/api/games", json={"deal_number": 7}).json()
        return client.post(f"/api/games/{game['id']}/hint", json={}, headers={"Accept-Language": language})


def _break(pool: SolverPool, how: str) -> None:
    if how == "crashed":
        [worker] = pool._idle
        worker.process.kill()
        worker.process.join(10)
    else:
        pool.closing.set()


@pytest.mark.parametrize(("how", "language", "words"), [
    ("crashed", "de", "Der Löserprozess wurde unerwartet beendet: Bitte noch einmal versuchen."),
    ("crashed", "en", "the solver process stopped unexpectedly: try again"),
    ("stopping", "de", "Der Server wird gerade beendet: Bitte noch einmal versuchen."),
    ("stopping", "en", "the server is stopping: try again"),
])
def test_a_stopped_solver_is_said_in_the_players_language_only(
    pool: SolverPool, how: str, language: str, words: str
) -> None:
    """The German refusal of a stopped search held the English cause:
    "Der Löser wurde angehalten (the solver process stopped unexpectedly):
    Bitte noch einmal versuchen." Each cause is worded in both languages
    (the English as before)."""
    _break(pool, how)
    reply = _hint(pool, language)
    assert reply.status_code == 503
    assert reply.json() == {"error": words, "code": "solver-stopped"}
