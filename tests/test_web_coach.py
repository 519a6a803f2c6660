"""The coach's endpoints on both stores: the analysis of a finished game
(the losing move of a game that threw away a win), the base-card chances,
the warning before a move that loses a won game (an assist), and every
refusal (a clear 4xx that changes nothing)."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from store_support import (
    store_on_each_kind,  # noqa: F401  (the store fixture)
)
from web_support import LOCAL, WINNING_LINE, SharedPool

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.board import Board
from terrace.cards import card_code
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.api import solve
from terrace.storage import GameStore
from terrace.web.app import create_app
from terrace.web.coach import CoachBudgets, PackedEvents
from terrace.web.workers import PoolBusy, SolverPool, _echo

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SMALL = {"decks": 1, "reserve": 5, "piles": 2, "candidates": 0, "spaces": "waste", "redeals": 1}
"""Small rules, so that the solver decides every position at once."""
SMALL_DEAL = 13


@pytest.fixture
def client(store: GameStore, solver_pool: SharedPool) -> Iterator[TestClient]:
    # (one pool for the module, conftest's: each test's app made a pool of its own, whose
    # processes were never stopped: 25 in this file, 11.5 s of their CPU, against 8 and 5.8 s.
    # A worker's kept winning lines, by position, may carry over to a later test of the same
    # deal: no check here depends on them; the file passes in its order, reversed, -n 2)
    budgets = CoachBudgets(analysis=30, chances=30, warn=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield TestClient(create_app(store, coach=budgets, pool=solver_pool), base_url=LOCAL)


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def play(client: TestClient, game: dict[str, Any], *moves: str) -> dict[str, Any]:
    for text in moves:
        response = client.post(f"/api/games/{game['id']}/moves", json={"move": text})
        assert response.status_code == 200, response.text
        game = response.json()
    return game


def small_rules() -> Rules:
    return Rules.from_dict(SMALL, Rules())


THROWN_AWAY = " ".join([
    "s s s s s wt1 wt1 s s s s s wf s s wf s s s s s s wf s wf s s wf s s s s s s s wf s wt2 s s s s wf",
    "t1f t1f t1f s s s wt1 s s t1t2 wt1 s s wf s s s s s s wf s s s wt1 s wf rf rf s s wf s s wf t2f t2f",
    "t2f t1f t1f s s wt1 s s wf wf wt2 wf s s s s wf s s wt1 s s s s wf s s wf t1f t1f s s wt1 t1t2 s s wf",
    "t2f t2f wf s wf wf s wf wf wt1 wt2 t2f wt2 t1f wt1 wt2 t1f wt1"]).split()
"""Deal 13 of the small rules: the solver's winning line, then move 126,
which the solver proves losing, then random moves until none is left."""
LOSING = 126


def thrown_away() -> tuple[list[str], int]:
    """The moves of :data:`THROWN_AWAY` and the number of its losing move
    (checked here with the solver, so the test cannot rest on a stale line)."""
    board = Board.from_number(SMALL_DEAL, small_rules())
    for text in THROWN_AWAY[: LOSING - 1]:
        board.push_text(text)
    assert solve(board, max_seconds=10).result == "won"
    board.push_text(THROWN_AWAY[LOSING - 1])
    assert solve(board, max_seconds=10).result == "lost"
    return list(THROWN_AWAY), LOSING


# ---------------------------------------------------------------- the analysis


def test_analysis_finds_the_move_that_threw_the_win_away(client: TestClient, store: GameStore) -> None:
    moves, losing = thrown_away()
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    game = play(client, game, *moves)
    assert game["status"] == "lost"  # stuck, no move left: undo can still reopen it
    revision = store.get(game["id"]).revision
    response = client.post(f"/api/games/{game['id']}/coach", json={})
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["outcome"] == "lost-at" and report["step"] == losing
    assert report["move"] == moves[losing - 1] and report["moves"] == len(moves)
    assert (report["low"], report["high"]) == (losing - 1, losing)
    fair = report["fair"]
    assert fair is not None and fair["move"] is not None and fair["result"] in ("won", "lost", "unknown")
    assert fair["same"] == (fair["move"] == report["move"])
    board = Board.from_number(SMALL_DEAL, small_rules())
    for text in moves[: losing - 1]:
        board.push_text(text)
    assert board.is_legal(Move.parse(fair["move"]))
    # each move named with its piles and its card (none for a draw: it lies face down)
    for move, piles in ((report["move"], report["move_piles"]), (fair["move"], fair["piles"])):
        assert set(piles) == {"source", "target", "card"}
        parsed = Move.parse(move)
        card = None if parsed.is_draw else board.peek(parsed)
        assert piles["card"] == (None if card is None else card_code(card)), (move, piles)
    # the game can still be taken back and played on: the analysis, which
    # saw the face-down stock, is an assist (and nothing else changed)
    assert report["assist"] is True and report["assisted"] is True
    stored = store.get(game["id"])
    assert stored.revision == revision and stored.assisted and stored.moves == moves
    undone = client.post(f"/api/games/{game['id']}/undo", json={})
    assert undone.status_code == 200 and undone.json()["status"] == "playing"


def test_analysis_of_a_game_over_for_good_is_no_assist(client: TestClient, store: GameStore) -> None:
    moves, losing = thrown_away()
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    game = play(client, game, *moves[:losing])
    assert client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
    revision = store.get(game["id"]).revision
    report = client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert report["outcome"] == "lost-at" and report["step"] == losing
    assert report["assist"] is False and report["assisted"] is False
    stored = store.get(game["id"])
    assert stored.revision == revision and not stored.assisted


def test_analysis_of_a_game_once_won_is_no_assist(client: TestClient, store: GameStore) -> None:
    """Won, then taken back and played into a dead end: the analysis may
    reopen nothing the win did not already settle (a win is final)."""
    moves, losing = thrown_away()
    board = Board.from_number(SMALL_DEAL, small_rules())
    for text in moves[: losing - 1]:
        board.push_text(text)
    rest = [str(move) for move in solve(board, max_seconds=10).moves]
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    game = play(client, game, *moves[: losing - 1], *rest)
    assert game["status"] == "won"
    for _ in rest:
        game = client.post(f"/api/games/{game['id']}/undo", json={}).json()
    game = play(client, game, *moves[losing - 1:])
    assert game["status"] == "lost" and game["won_at"] is not None
    report = client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert report["assist"] is False and report["assisted"] is False
    assert not store.get(game["id"]).assisted


def test_analysis_of_a_won_game(client: TestClient) -> None:
    line = WINNING_LINE
    game = new_game(client, variant=line["variant"], options=line["options"], deal_number=line["deal_number"])
    game = play(client, game, *line["moves"])
    assert game["status"] == "won"
    report = client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert report["outcome"] == "won" and report["step"] is None and report["probes"] == []


def test_analysis_of_a_game_given_up_while_winnable(client: TestClient) -> None:
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    game = play(client, game, "s")
    assert client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
    report = client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert report["outcome"] == "winnable" and report["low"] == 1 and report["winning"]
    assert set(report["winning_piles"]) == {"source", "target", "card"}
    assert report["winning"] == "s" or report["winning_piles"]["card"] is not None


def test_analysis_is_refused_while_the_game_goes_on(client: TestClient) -> None:
    game = play(client, new_game(client, variant="terrace", deal_number=7), "c1")
    empty = {"content": b"", "headers": {"content-type": "application/json"}}
    for body in ({"json": {}}, empty):
        response = client.post(f"/api/games/{game['id']}/coach", **body)
        assert response.status_code == 409 and response.json()["code"] == "coach-not-over"
    de = client.post(f"/api/games/{game['id']}/coach", json={}, headers={"accept-language": "de"}).json()
    assert "noch nicht zu Ende" in de["error"]


def test_analysis_refusals(client: TestClient) -> None:
    assert client.post("/api/games/nope/coach", json={}).json()["code"] == "game-unknown"
    game = new_game(client, variant="terrace", deal_number=7)
    response = client.post(f"/api/games/{game['id']}/coach", json={"step": 3})
    assert response.status_code == 400 and response.json()["code"] == "field-unknown"
    response = client.post(f"/api/games/{game['id']}/coach", content=b"{}")
    assert response.status_code == 415
    assert client.get(f"/api/games/{game['id']}/coach").status_code == 405


# ---------------------------------------------------------------- the base-card chances


def test_chances_for_each_candidate(client: TestClient, store: GameStore) -> None:
    game = new_game(client, variant="terrace", deal_number=7)
    response = client.post(f"/api/games/{game['id']}/chances", json={"after": 0})
    assert response.status_code == 200, response.text
    chances = response.json()
    assert chances["samples"] == 32
    assert [c["move"] for c in chances["candidates"]] == [c["move"] for c in game["choices"]]
    assert [c["card"] for c in chances["candidates"]] == [c["card"] for c in game["choices"]]
    assert all(0 <= c["wins"] <= c["tried"] <= chances["samples"] for c in chances["candidates"])
    stored = store.get(game["id"])
    assert stored.hints == 0 and not stored.assisted  # not a spoiler: neither a hint nor an assist


def test_the_fair_hint_at_the_choice_names_the_card_the_chances_show_best(store: GameStore) -> None:
    """Madame's ten candidates take the chances about 2 s: a hint with less
    time solved a few samples and could name another card. Once the chances
    have solved every sample, the hint at the choice answers with them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(store, hint_seconds=0.2, coach=CoachBudgets(chances=60))
        quick = TestClient(app, base_url=LOCAL)
    with quick:
        game = new_game(quick, variant="madame", deal_number=3)
        chances = quick.post(f"/api/games/{game['id']}/chances", json={}).json()
        assert all(c["tried"] == chances["samples"] == 32 for c in chances["candidates"])
        most = max(c["wins"] for c in chances["candidates"])
        for _ in range(2):  # (the chances stay for this position)
            found = quick.post(f"/api/games/{game['id']}/hint", json={}).json()
            assert found["kind"] == "sampled" and found["samples"] == 32 and found["wins"] == most
            assert next(c for c in chances["candidates"] if c["move"] == found["move"])["wins"] == most
        # past the choice the hint thinks for itself again
        play(quick, game, found["move"])
        after = quick.post(f"/api/games/{game['id']}/hint", json={}).json()
        assert after["move"] is None or not after["move"].startswith("c")


def test_the_chances_answer_the_hint_only_while_nothing_of_the_stock_was_seen(
        store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chances are drawn at the choice with no card of the stock seen.
    Back at the choice after choosing and drawing (the draws taken back),
    the player knows those cards, yet the hint answered with the chances
    all the same (the position string is the same), as if never seen."""
    from terrace.web import hints

    asked: list[Any] = []
    real = hints.find_hint

    def watched(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("decided"))
        return real(*args, **kwargs)

    monkeypatch.setattr(hints, "find_hint", watched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(store, hint_seconds=0.2, coach=CoachBudgets(chances=60), pool=InlinePool())
    with TestClient(app, base_url=LOCAL) as quick:
        game = new_game(quick, variant="terrace", deal_number=7)
        chances = quick.post(f"/api/games/{game['id']}/chances", json={}).json()
        assert all(c["tried"] == chances["samples"] for c in chances["candidates"])
        quick.post(f"/api/games/{game['id']}/hint", json={})
        assert asked[-1] is not None  # (nothing seen yet: the chances are the hint)
        play(quick, game, "c1", "s", "s")
        for _ in range(3):
            assert quick.post(f"/api/games/{game['id']}/undo", json={}).status_code == 200
        back = quick.post(f"/api/games/{game['id']}/hint", json={}).json()
        assert asked[-1] is None and back["move"] is not None


def test_chances_refusals(client: TestClient) -> None:
    game = play(client, new_game(client, variant="terrace", deal_number=7), "c2")
    response = client.post(f"/api/games/{game['id']}/chances", json={})
    assert response.status_code == 422 and response.json()["code"] == "base-chosen"
    response = client.post(f"/api/games/{game['id']}/chances", json={"after": 0})
    assert response.status_code == 409 and response.json()["code"] == "conflict"
    small = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    assert client.post(f"/api/games/{small['id']}/chances", json={}).json()["code"] == "no-choice"
    game = play(client, new_game(client, variant="terrace", deal_number=8), "c1")
    client.post(f"/api/games/{game['id']}/undo", json={})  # choosing again, after a move
    assert client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
    assert client.post(f"/api/games/{game['id']}/chances", json={}).json()["code"] == "game-given-up"


# ---------------------------------------------------------------- the warning


def test_warning_before_a_losing_move_marks_the_game_assisted(client: TestClient, store: GameStore) -> None:
    moves, losing = thrown_away()
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    game = play(client, game, *moves[: losing - 1])
    revision = store.get(game["id"]).revision
    body = {"move": moves[losing - 1], "after": losing - 1}
    response = client.post(f"/api/games/{game['id']}/warn", json=body)
    assert response.status_code == 200, response.text
    assert response.json() == {"move": moves[losing - 1], "warn": True, "before": "won", "after": "lost",
                               "assisted": True}
    stored = store.get(game["id"])
    assert stored.assisted and len(stored.moves) == losing - 1 and stored.revision == revision
    assert client.get(f"/api/games/{game['id']}").json()["assisted"] is True


def test_no_warning_for_a_move_that_keeps_the_win(client: TestClient) -> None:
    board = Board.from_number(SMALL_DEAL, small_rules())
    first = str(solve(board, max_seconds=10).moves[0])
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    answer = client.post(f"/api/games/{game['id']}/warn", json={"move": first}).json()
    assert answer["warn"] is False and answer["before"] == "won" and answer["after"] == "won"


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"move": ""}, 400, "move-unreadable"),
    ({"move": 5}, 400, "move-not-notation"),
    ({"move": "x" * 17}, 400, "move-unreadable"),
    ({"move": "zz"}, 400, None),
    ({"move": "t1t2"}, 422, None),
    ({"move": "s", "after": 3}, 409, "conflict"),
    ({"move": "s", "when": 1}, 400, "field-unknown"),
])
def test_warning_refusals_change_nothing(client: TestClient, store: GameStore, body: dict[str, Any],
                                         status: int, code: str | None) -> None:
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    response = client.post(f"/api/games/{game['id']}/warn", json=body)
    assert response.status_code == status, response.text
    assert response.json()["code"] and (code is None or response.json()["code"] == code)
    assert not store.get(game["id"]).assisted


class BusyPool(SolverPool):
    """A solver pool that is always full."""

    async def run(self, *args: Any, **kwargs: Any) -> Any:
        raise PoolBusy


def test_a_warning_refused_for_a_busy_solver_does_not_mark_the_game(store: GameStore) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = TestClient(create_app(store, pool=BusyPool()), base_url=LOCAL)
    game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
    response = client.post(f"/api/games/{game['id']}/warn", json={"move": "s"})
    assert response.status_code == 503 and response.json()["code"] == "solver-busy"
    assert not store.get(game["id"]).assisted


def test_chances_agree_with_the_fair_hint_at_the_choice() -> None:
    """The page's Chances and its fair hint are the same fair player with
    the same seed: the hinted base card is one the chances show winning most
    often (with seed 0 for the chances, Terrace deal 4's hint chose a card
    with 30 wins where the chances showed another with 32)."""
    from terrace.solver.coach import base_chances
    from terrace.web.endpoints import fair_seed

    budgets = CoachBudgets(chances=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(hint_seconds=120, coach=budgets, pool=SolverPool(workers=1))
    with TestClient(app, base_url=LOCAL) as client:
        game = new_game(client, variant="terrace", deal_number=4)
        chances = client.post(f"/api/games/{game['id']}/chances", json={}).json()
        hint = client.post(f"/api/games/{game['id']}/hint", json={}).json()
    board = Board.from_number(4, Rules())
    expected = base_chances(board, fair_seed(game["id"]), 120)
    assert [c["wins"] for c in chances["candidates"]] == [c["wins"] for c in expected["candidates"]]
    wins = {c["move"]: c["wins"] for c in chances["candidates"]}
    assert wins[hint["move"]] == max(wins.values())


def test_analysis_names_the_move_that_killed_the_terrace(client: TestClient, store: GameStore) -> None:
    """Terrace deal 1, played by the rule of thumb until a move would kill
    the terrace, then that move: the analysis names it with its piles (the
    page says that from then on the cards in sight showed the loss)."""
    from terrace.solver.greedy import greedy_move
    from terrace.solver.observation import observe
    from terrace.solver.prune import fatal_moves
    from terrace.variants import get_rules

    board = Board.from_number(1, get_rules("terrace"))
    while not fatal_moves(board):
        move = greedy_move(observe(board))
        assert move is not None
        board.push(move)
    fatal = fatal_moves(board)[0]
    moves = [str(m) for m in board.move_stack] + [str(fatal)]
    game = play(client, new_game(client, deal_number=1), *moves)
    assert game["terrace_dead"]
    assert client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
    report = client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert (report["terrace_dead"], report["terrace_dead_move"]) == (len(moves), str(fatal))
    assert set(report["terrace_dead_piles"]) == {"source", "target", "card"}
    assert report["high"] <= len(moves)


def test_a_game_lost_at_its_deal_has_a_dead_terrace_in_the_game_as_in_the_analysis(
    client: TestClient,
) -> None:
    """One pack, one pile, no candidates, a terrace of 50: deal 1 has no
    move. The analysis said its terrace was dead at step 0 while the game
    said ``terrace_dead: false`` (it was worked out only while playing)."""
    options = {"decks": 1, "piles": 1, "candidates": 0, "reserve": 50}
    game = new_game(client, deal_number=1, options=options)
    assert game["status"] == "lost" and game["terrace_dead"] is True and game["fatal"] == []
    report = client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert (report["terrace_dead"], report["terrace_dead_move"]) == (0, None)


CHOICE_GAME = "coach-seed-0"
"""A game id whose fair seed picks another base card of Terrace deal 6 than
seed 0 does (c1 and c2 win about as often; c3 never wins)."""


def test_the_coachs_fair_move_is_the_hint_the_game_gave_there(tmp_path: Path) -> None:
    """The coach's "the fair player would have played X" at the losing move
    is the fair hint the game showed at that position: the same fair player
    with the game's seed (the coach used seed 0, and named c2 where the hint
    had named c1). Both decide within their node budgets, long before the
    seconds run out, so the answer does not depend on the machine."""
    from terrace.deal import Deal
    from terrace.storage import open_store
    from terrace.storage.base import new_game as stored_game

    rules = Rules()
    game = stored_game("terrace", rules, Deal.from_number(6, rules))
    game.id = CHOICE_GAME
    store = open_store(tmp_path / "games.sqlite")
    store.add_games([game])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(store, hint_seconds=120, coach=CoachBudgets(analysis=120),
                         pool=SolverPool(workers=1))
    with TestClient(app, base_url=LOCAL) as client:
        hint = client.post(f"/api/games/{CHOICE_GAME}/hint", json={}).json()
        assert hint["kind"] == "sampled" and hint["move"] is not None
        played = play(client, {"id": CHOICE_GAME}, "c3")  # the card that never wins
        assert client.post(f"/api/games/{CHOICE_GAME}/give-up", json={}).status_code == 200, played
        report = client.post(f"/api/games/{CHOICE_GAME}/coach", json={}).json()
    store.close()
    assert (report["outcome"], report["step"], report["move"]) == ("lost-at", 1, "c3")
    assert report["fair"]["move"] == hint["move"] == "c1"


class InlinePool(SolverPool):
    """Runs each job in this process (so that a test can watch it)."""

    def __init__(self) -> None:
        super().__init__(workers=0)

    async def run(self, func: Any, *args: Any, budget: float, gone: Any = None,
                  timed: bool = False, prefer: Any = None) -> Any:
        return func(*args, **({"seconds": budget} if timed else {}), cancel=lambda: False)


def test_the_coachs_fair_player_thinks_as_long_as_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach's fair player is the game's fair hint, with the hint's
    budget (it had 70% of what the bisection left, 14 s of 20 where the
    hint has 2 s, and could retry where the hint had not), and with the
    game's event log, which says what the player had seen."""
    from terrace.solver import coach

    asked: list[tuple[float, Any]] = []
    real = coach.fair_answer

    def watched(board: Board, seconds: float, **kwargs: Any) -> Any:
        asked.append((seconds, kwargs.get("shown")))
        return real(board, seconds, **kwargs)

    monkeypatch.setattr(coach, "fair_answer", watched)
    moves, losing = thrown_away()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(hint_seconds=0.75, coach=CoachBudgets(analysis=30), pool=InlinePool())
    with TestClient(app, base_url=LOCAL) as client:
        game = new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL)
        game = play(client, game, *moves)
        report = client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert report["outcome"] == "lost-at" and report["step"] == losing
    assert len(asked) == 1 and asked[0][0] <= 0.75
    board = Board.from_number(SMALL_DEAL, small_rules())
    for text in moves[: losing - 1]:
        board.push_text(text)
    assert asked[0][1] is not None and asked[0][1] <= len(board.stock)  # (the log was read)


@pytest.mark.parametrize("name", ["analysis", "chances", "warn"])
@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -1.0, "2"])
def test_a_coach_budget_that_is_no_budget_is_refused_when_the_app_is_made(name: str, seconds: object) -> None:
    """As the hint's time is: a NaN, infinite or negative budget was taken,
    and every request of its kind then answered 500 server-error."""
    with pytest.raises(ValueError, match=f"the coach's {name} budget"):
        CoachBudgets(**{name: seconds})  # type: ignore[arg-type]


@pytest.mark.parametrize("events", [
    [("create", None, 0), ("move", "s\0t1f", 1)],
    [("create", None, 0), ("mo\0ve", "s", 1), ("undo", "s", 0)],
    [("create", None, 0), ("move", "s", "1")],
], ids=["a NUL in a move", "a NUL in an action", "a count that is text"])
def test_a_log_edited_by_hand_reaches_the_coach_job_as_it_is(events: list[Any]) -> None:
    """An event log that does not pack (edited by hand) goes to the coach's
    worker as its rows. A mutation audit packed a log whose text held the
    separator all the same, and no test failed: the worker then read the
    log in other pieces than its events, or not at all."""
    log = PackedEvents(events)
    again = pickle.loads(pickle.dumps(log))
    assert list(again) == events and len(again) == len(events) and again[1:] == events[1:]


def test_an_analysis_of_a_game_another_tab_changed_meanwhile_is_a_conflict(store: GameStore) -> None:
    """The coach's analysis was not checked against the game as it was
    asked (it took no ``after`` or ``revision``): a game lost with no move
    left, analysed while another tab took its last move back, was answered
    200 with the analysis of the game that was gone, and marked the game,
    in play again, as assisted. It takes ``revision`` (and ``after``) as the
    other answers of the solver do: a stale one is 409 ``conflict`` at once,
    and a game changed during the analysis 409 too, nothing marked."""
    moves, _ = thrown_away()
    pool = SolverPool(workers=1)
    app = create_app(store, coach=CoachBudgets(analysis=30), pool=pool)
    client = TestClient(app, base_url=LOCAL)
    game = play(client, new_game(client, variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves)
    assert game["status"] == "lost" and game["can_undo"]
    seen = {"revision": game["revision"]}
    stale = client.post(f"/api/games/{game['id']}/coach", json={"revision": game["revision"] - 1})
    assert (stale.status_code, stale.json()["code"]) == (409, "conflict")

    async def scenario() -> tuple[httpx.Response, httpx.Response]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=LOCAL) as tabs:
            answer = asyncio.ensure_future(tabs.post(f"/api/games/{game['id']}/coach", json=seen, timeout=60))
            while not pool.running and not answer.done():
                await asyncio.sleep(0.005)
            # (the worker held while the other tab takes the move back: the small game's analysis is quick)
            pid = next(iter(pool._busy)).process.pid if pool.running else None
            if pid is not None:
                os.kill(pid, signal.SIGSTOP)
            try:
                undone = await tabs.post(f"/api/games/{game['id']}/undo", json={}, timeout=60)
            finally:
                if pid is not None:
                    os.kill(pid, signal.SIGCONT)
            return await answer, undone

    try:
        asyncio.run(pool.run(_echo, None, budget=60))  # start the worker first
        answer, undone = asyncio.run(scenario())
    finally:
        pool.close()
    assert undone.status_code == 200 and undone.json()["status"] == "playing"
    # (before: 200, the analysis of the lost game, and the game in play marked assisted)
    assert (answer.status_code, answer.json()["code"]) == (409, "conflict"), answer.text
    assert not store.get(game["id"]).assisted
