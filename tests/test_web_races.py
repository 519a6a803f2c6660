"""Two tabs on one game: what one asks of the solver is answered after the
other has changed the game. An assist (a peeking hint, the verdicts, the
coach's warning) asked while the game was played, and answered after the
other tab had won it or given it up, marks nothing and counts no hint: the
win is final, and an answer that came after it did not help it."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from store_support import (
    golden,
    save,
    store_on_each_kind,  # noqa: F401  (the store fixture)
)
from web_support import LOCAL

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.storage import GameStore, StoredGame
from terrace.web.app import create_app
from terrace.web.coach import CoachBudgets

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class OtherTabPool:
    """A solver pool that runs each job here and now, after doing what
    :attr:`meanwhile` does (another tab's change while the search runs)."""

    def __init__(self) -> None:
        self.meanwhile: Callable[[], None] = lambda: None
        self.closing = None

    async def run(self, func: Callable[..., Any], *args: Any, budget: float, gone: Any = None,
                  timed: bool = False, prefer: Any = None) -> Any:
        self.meanwhile()
        return func(*args, **({"seconds": budget} if timed else {}), cancel=lambda: False)

    def close(self) -> None:
        pass


@pytest.fixture
def pool() -> OtherTabPool:
    return OtherTabPool()


@pytest.fixture
def client(store: GameStore, pool: OtherTabPool) -> Iterator[TestClient]:
    app = create_app(store, hint_seconds=0.5, pool=pool, coach=CoachBudgets(analysis=1.0, warn=0.5))  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with TestClient(app, base_url=LOCAL) as test_client:
            yield test_client


def one_move_short(store: GameStore) -> tuple[StoredGame, str]:
    """A game of Falling Star's golden win with every move but the last
    played (stored in one change), and that last move."""
    record = golden("falling-star-won")
    game = store.create(record.variant, record.rules, record.deal)
    board = game.board()
    for move in record.moves[:-1]:
        board.push_text(move)
    game.sync(board)
    store.update(game, expected_revision=game.revision, action="move")
    return store.get(game.id), record.moves[-1]


def other_tab_wins(store: GameStore, game_id: str, last: str) -> Callable[[], None]:
    def win() -> None:
        game = store.get(game_id)
        board = game.board()
        board.push_text(last)
        save(store, game, board, "move")
    return win


def other_tab_gives_up(store: GameStore, game_id: str) -> Callable[[], None]:
    def give_up() -> None:
        game = store.get(game_id)
        game.given_up_at = game.updated_at + 1
        store.update(game, expected_revision=game.revision, action="give-up")
    return give_up


ASSISTS = [("hint", {"peek": True}), ("analysis", {}), ("warn", None)]
"""Each assist's address and body (None: the game's last move, as the warning takes it)."""


@pytest.mark.parametrize(("address", "body"), ASSISTS)
@pytest.mark.parametrize("ending", ["won", "given up"])
def test_an_assist_answered_after_another_tab_ended_the_game_marks_nothing(
    client: TestClient, store: GameStore, pool: OtherTabPool, address: str, body: dict[str, Any] | None,
    ending: str,
) -> None:
    game, last = one_move_short(store)
    pool.meanwhile = (other_tab_wins(store, game.id, last) if ending == "won"
                      else other_tab_gives_up(store, game.id))
    response = client.post(f"/api/games/{game.id}/{address}", json={"move": last} if body is None else body)
    assert response.status_code == 200, response.text
    after = store.get(game.id)
    assert after.won_at is not None or after.given_up_at is not None  # (the other tab's change was made)
    assert after.assisted is False
    assert after.hints == 0
    if address == "hint":
        assert response.json()["counted"] is False
    if ending == "won":  # (the win sets the records: it was played without help)
        assert client.get("/api/stats").json()["overall"]["fewest_moves"] == len(after.moves)


@pytest.mark.parametrize(("address", "body"), ASSISTS)
def test_an_assist_answered_after_another_tabs_move_still_marks_the_game(
    client: TestClient, store: GameStore, pool: OtherTabPool, address: str, body: dict[str, Any] | None,
) -> None:
    """The game is still played: the answer may help the rest of it."""
    record = golden("falling-star-won")
    game = store.create(record.variant, record.rules, record.deal)
    pool.meanwhile = other_tab_wins(store, game.id, record.moves[0])  # (its first move: not a win)
    response = client.post(f"/api/games/{game.id}/{address}",
                           json={"move": record.moves[0]} if body is None else body)
    assert response.status_code == 200, response.text
    after = store.get(game.id)
    assert after.moves == [record.moves[0]] and after.won_at is None
    assert after.assisted is True
    if address == "hint":
        assert response.json()["counted"] is True and after.hints == 1


def test_the_coachs_analysis_of_a_lost_game_given_up_meanwhile_marks_nothing(
    client: TestClient, store: GameStore, pool: OtherTabPool,
) -> None:
    """A game stuck with no move left can be taken back and played on, so
    its analysis is an assist; not once another tab has given it up."""
    record = golden("terrace-lost")
    game = store.create(record.variant, record.rules, record.deal)
    board = game.board()
    for move in record.moves:
        board.push_text(move)
    game.sync(board)
    store.update(game, expected_revision=game.revision, action="move")
    pool.meanwhile = other_tab_gives_up(store, game.id)
    response = client.post(f"/api/games/{game.id}/coach", json={})
    assert response.status_code == 200, response.text
    assert (response.json()["assist"], response.json()["assisted"]) == (False, False)
    after = store.get(game.id)
    assert after.given_up_at is not None and after.assisted is False


def test_a_time_report_answered_after_another_tab_gave_the_game_up_counts_nothing(
    store: GameStore, client: TestClient, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A report of playing time read the game, found it in play, and then
    added its time: when another tab gave the game up in between, the game
    given up gained time after it ended (docs/api.md: a report on a game
    given up counts nothing). The store refuses it in the same step as the
    write, and the report is answered as one on a game given up."""
    game, _ = one_move_short(store)
    before = store.get(game.id).active_ms
    real = store.add_active_time
    give_up = other_tab_gives_up(store, game.id)

    def after_another_tab(game_id: str, ms: int, **settings: Any) -> int:
        give_up()
        return real(game_id, ms, **settings)

    monkeypatch.setattr(store, "add_active_time", after_another_tab)
    answer = client.post(f"/api/games/{game.id}/time", json={"ms": 1500})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"id": game.id, "active_ms": before, "counted": 0, "given_up": True}
    stored = store.get(game.id)
    assert stored.given_up_at is not None and stored.active_ms == before
