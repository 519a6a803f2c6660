"""The web Hint and the assists through the API, on both stores: fair by
default, peeking only when asked (which marks the game as assisted), one
hint counted per position, the kept winning line followed to a win, and
the solver's base-card verdicts as an assist."""

from __future__ import annotations

import asyncio
import math
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from load_support import STARTING
from solver_brute import RULE_SETS
from store_support import (
    store_on_each_kind,  # noqa: F401  (the store fixture)
)
from web_support import LOCAL, WINNING_LINE, SharedPool, twins_moves

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.board import Board
from terrace.moves import Move
from terrace.solver.advice import nothing_hidden
from terrace.storage import GameStore
from terrace.variants import get_rules
from terrace.web.app import create_app
from terrace.web.endpoints import within
from terrace.web.hints import find_hint
from terrace.web.workers import _echo

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client(store: GameStore, solver_pool: SharedPool) -> Iterator[TestClient]:
    # (one pool for the module: each test's app started a pool of its own, 28 in the file)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with TestClient(create_app(store, hint_seconds=3.0, pool=solver_pool), base_url=LOCAL) as test_client:
            yield test_client


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def hint(client: TestClient, game: dict[str, Any], **body: Any) -> dict[str, Any]:
    response = client.post(f"/api/games/{game['id']}/hint", json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_the_hint_is_fair_by_default_and_counted_once_per_position(
    client: TestClient, store: GameStore
) -> None:
    game = new_game(client, variant="terrace", deal_number=128681666)
    found = hint(client, game)
    assert found["fair"] is True and "kept" not in found
    # sampled, unless a very busy machine solved no sample in the time
    assert found["kind"] in ("sampled", "heuristic")
    assert 0 <= found["wins"] <= found["samples"] and (found["samples"] > 0) == (found["kind"] == "sampled")
    assert found["move"] in game["legal_moves"] and found["source"]
    assert found["counted"] is True
    again = hint(client, game, after=0)
    assert again["counted"] is False
    stored = store.get(game["id"])
    assert stored.hints == 1 and not stored.assisted
    moved = client.post(f"/api/games/{game['id']}/moves", json={"move": found["move"]}).json()
    assert hint(client, moved)["counted"] is True
    assert store.get(game["id"]).hints == 2
    assert client.get(f"/api/games/{game['id']}").json()["assisted"] is False


def test_peeking_hints_follow_one_line_to_a_win_and_mark_the_game(
    client: TestClient, store: GameStore
) -> None:
    game = new_game(client, variant="falling-star", deal_number=4)
    board = Board.from_number(4, get_rules("falling-star"))
    seen = {board.position()}
    first = hint(client, game, peek=True)
    assert first["fair"] is False and first["kind"] == "winnable" and first["why"] is None
    line = first["line"]
    assert store.get(game["id"]).assisted
    followed = 40  # the rest of the line, to the win, is tested in test_hint_line.py
    for index, expected in enumerate(line[:followed]):
        found = first if index == 0 else hint(client, game, peek=True, after=index)
        assert found["move"] == expected and found["line"] == line[index:]
        response = client.post(f"/api/games/{game['id']}/moves", json={"move": found["move"]})
        assert response.status_code == 200, response.text
        board.push(Move.parse(found["move"]))
        assert board.position() not in seen
        seen.add(board.position())
    game = client.get(f"/api/games/{game['id']}").json()
    assert game["assisted"] is True and game["hints"] == followed
    assert client.get("/api/stats").json()["overall"]["assisted"] == 1


def test_no_hint_once_the_game_is_won(client: TestClient) -> None:
    game = new_game(client, variant="falling-star", deal_number=4)
    line = hint(client, game, peek=True)["line"]
    board = Board.from_number(4, get_rules("falling-star"))
    for move in line[:-1]:
        board.push(Move.parse(move))
    near = new_game(client, variant="falling-star", deal_number=4)
    for move in line[:-1]:
        client.post(f"/api/games/{near['id']}/moves", json={"move": move})
    won = client.post(f"/api/games/{near['id']}/moves", json={"move": line[-1]}).json()
    assert won["status"] == "won"
    for peek in (False, True):
        last = hint(client, won, peek=peek)
        assert (last["move"], last["why"], last["counted"]) == (None, "game-over", False)


def test_a_game_once_won_counts_no_hint_and_no_assist_after_an_undo(client: TestClient) -> None:
    """A win is final: moves taken back after it may be played again with
    hints and warnings, but the game, its win and the statistics stay as
    they were (unassisted, its hints as at the win)."""
    game = new_game(client, variant="falling-star", deal_number=4)
    line = hint(client, game, peek=True)["line"]
    fresh = new_game(client, variant="falling-star", deal_number=4)  # (played without any assist)
    for move in line:
        client.post(f"/api/games/{fresh['id']}/moves", json={"move": move})
    undone = client.post(f"/api/games/{fresh['id']}/undo", json={}).json()
    assert undone["status"] == "playing" and undone["won_at"] is not None
    before = client.get("/api/stats").json()["overall"]
    for peek in (False, True):
        found = hint(client, undone, peek=peek)
        assert found["move"] is not None and found["counted"] is False
    warned = client.post(f"/api/games/{fresh['id']}/warn", json={"move": line[-1]}).json()
    assert warned["assisted"] is False
    after = client.get(f"/api/games/{fresh['id']}").json()
    assert (after["hints"], after["assisted"]) == (0, False)
    assert client.get("/api/stats").json()["overall"] == before


def test_a_peeking_hint_after_leaving_the_line_finds_a_new_one(client: TestClient) -> None:
    game = new_game(client, variant="falling-star", deal_number=4)
    first = hint(client, game, peek=True)
    other = next(m for m in game["legal_moves"] if m != first["move"])
    client.post(f"/api/games/{game['id']}/moves", json={"move": other})
    found = hint(client, game, peek=True)
    assert found["kind"] in ("winnable", "furthest", "heuristic", "lost", "none")
    if found["kind"] == "winnable":
        assert found["line"] != first["line"][1:]


@pytest.mark.parametrize(("body", "code"), [
    ({"peek": "yes"}, "peek-not-flag"),
    ({"peek": 1}, "peek-not-flag"),
    ({"peek": None}, "peek-not-flag"),
    ({"look": True}, "field-unknown"),
    ({"peek": True, "after": 3}, "conflict"),
])
def test_bad_hint_bodies_are_refused_and_change_nothing(
    client: TestClient, store: GameStore, body: dict[str, Any], code: str
) -> None:
    game = new_game(client, variant="falling-star", deal_number=4)
    response = client.post(f"/api/games/{game['id']}/hint", json=body)
    assert response.json()["code"] == code
    assert response.status_code in (400, 409)
    stored = store.get(game["id"])
    assert stored.hints == 0 and not stored.assisted


def test_base_card_verdicts_are_an_assist(client: TestClient, store: GameStore) -> None:
    game = new_game(client, variant="terrace", deal_number=7)
    assert not store.get(game["id"]).assisted
    # a GET (a link or an image on another page) can neither ask nor mark
    assert client.get(f"/api/games/{game['id']}/analysis").status_code == 405
    assert not store.get(game["id"]).assisted
    analysis = client.post(f"/api/games/{game['id']}/analysis", json={}).json()
    assert [c["move"] for c in analysis["candidates"]] == ["c1", "c2", "c3"]
    assert store.get(game["id"]).assisted
    client.post(f"/api/games/{game['id']}/moves", json={"move": "c1"})
    assert client.get("/api/stats").json()["overall"]["assisted"] == 1


def test_once_nothing_is_hidden_the_fair_hint_is_a_proved_line_and_no_assist(
    client: TestClient, store: GameStore
) -> None:
    """With the stock run out and its redeal known, the page's fair hint is
    the proved line; it is not an assist, and the next hint follows it."""
    game = new_game(client, variant=WINNING_LINE["variant"], options=WINNING_LINE["options"],
                    deal_number=WINNING_LINE["deal_number"])
    board = Board.from_number(WINNING_LINE["deal_number"],
                              get_rules(WINNING_LINE["variant"], **WINNING_LINE["options"]))
    for text in WINNING_LINE["moves"]:
        if nothing_hidden(board):
            break
        board.push(Move.parse(text))
        game = client.post(f"/api/games/{game['id']}/moves", json={"move": text}).json()
    first = hint(client, game)
    assert (first["fair"], first["kind"], first["counted"]) == (True, "winnable", True)
    assert first["line"][0] == first["move"] and "kept" not in first
    moved = client.post(f"/api/games/{game['id']}/moves", json={"move": first["move"]}).json()
    second = hint(client, moved)
    assert second["kind"] == "winnable" and second["line"] == first["line"][1:]  # (the kept line)
    stored = store.get(game["id"])
    assert stored.hints == 2 and not stored.assisted


def test_a_fair_hint_remembers_draws_taken_back_after_a_new_move(client: TestClient) -> None:
    """The player draws the whole stock, takes the draws back and plays
    another move: the redo line is gone, but the player saw every card, and
    the game's event log says so. The fair hint knows it too: nothing is
    hidden, so it gives the proved answer without sampling (it forgot the
    cards with the redo line, and sampled the stock the player had seen)."""
    from terrace.solver.observation import observe

    rules = get_rules(WINNING_LINE["variant"], **WINNING_LINE["options"])
    board = Board.from_number(WINNING_LINE["deal_number"], rules)
    game = new_game(client, variant=WINNING_LINE["variant"], options=WINNING_LINE["options"],
                    deal_number=WINNING_LINE["deal_number"])
    url = f"/api/games/{game['id']}"
    for text in WINNING_LINE["moves"]:
        if nothing_hidden(board):
            break
        board.push(Move.parse(text))
        game = client.post(f"{url}/moves", json={"move": text}).json()
    # back to the last position with a card still to draw and another move than the draw
    while True:
        board.pop()
        game = client.post(f"{url}/undo", json={}).json()
        other = [m for m in board.legal_moves if not m.is_draw and m != board.redo_stack[-1]]
        if board.stock and board.redo_stack[-1].is_draw and other:
            after = board.copy()
            after.push(other[0])
            if observe(after).unseen:
                break
    game = client.post(f"{url}/moves", json={"move": str(other[0])}).json()
    assert not game["can_redo"]
    found = hint(client, game)
    assert (found["fair"], "samples" in found) == (True, False), found
    assert found["kind"] in ("winnable", "lost", "furthest", "heuristic")


def test_a_dead_terrace_gets_a_fair_proved_answer_without_sampling(
    client: TestClient, store: GameStore
) -> None:
    """General's Patience deal 61 with base card c1: the reserve schedule
    proves from the cards in sight that the terrace can never be played
    out, so the fair hint offers no move and says why (kind ``lost``,
    ``terrace-dead``), at once, without marking the game as assisted. The
    command line says the same."""
    from terrace.solver.advice import describe, hint_report

    game = new_game(client, variant="generals-patience", deal_number=61)
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": "c1"}).json()
    found = hint(client, game)
    assert (found["move"], found["kind"], found["why"], found["fair"]) == (None, "lost", "terrace-dead", True)
    assert not store.get(game["id"]).assisted
    board = Board.from_number(61, get_rules("generals-patience"))
    board.push_text("c1")
    report = hint_report(board, seconds=5)
    assert (report["kind"], report["why"]) == ("lost", "terrace-dead") and report["seconds"] < 1
    assert describe(report) == (
        "no move wins any more: the terrace can never be played out, whatever the stock holds")


def test_a_peeking_hint_on_a_dead_terrace_gives_the_fair_hints_reason() -> None:
    """General's Patience deal 61 with base card c1 again: the peeking hint
    said only "no move wins any more" (``no-winning-line``, from its solve)
    where the fair one gave the reason, the terrace that can never be
    played out; both give it now, on the page and the command line."""
    from terrace.solver.advice import describe, hint_report
    from terrace.web.hints import find_hint

    board = Board.from_number(61, get_rules("generals-patience"))
    board.push_text("c1")
    found = find_hint(board, 5.0, peek=True)
    said = (found["move"], found["kind"], found["why"], found["fair"])
    assert said == (None, "lost", "terrace-dead", False)
    report = hint_report(board, fair=False, seconds=5)
    assert describe(report) == describe(hint_report(board, seconds=5))


def test_a_deal_whose_every_base_card_kills_the_terrace_is_lost_at_the_choice(client: TestClient) -> None:
    """General's Patience deal 5: whichever base card is chosen, the terrace
    can never be played out; the fair hint says so before the choice, and
    no base card counts as *killing* a live terrace."""
    game = new_game(client, variant="generals-patience", deal_number=5)
    assert game["terrace_dead"] is True and game["fatal"] == []
    found = hint(client, game)
    assert (found["move"], found["kind"], found["why"]) == (None, "lost", "terrace-dead")


def test_the_base_card_chances_do_not_change_the_hint_on_a_dead_terrace(client: TestClient) -> None:
    """General's Patience deal 5 again: once the chances had solved every
    sample (every card wins in 0 of 32), the hint answered their pick, c1,
    "wins in 0 of 32", and counted it, where it had said the terrace can
    never be played out."""
    game = new_game(client, variant="generals-patience", deal_number=5)
    chances = client.post(f"/api/games/{game['id']}/chances", json={}).json()
    assert all(c["tried"] == chances["samples"] and c["wins"] == 0 for c in chances["candidates"])
    found = hint(client, game)
    assert (found["move"], found["kind"], found["why"]) == (None, "lost", "terrace-dead")
    assert found["counted"] is False


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -1.0])
@pytest.mark.parametrize("peek", [False, True])
def test_a_hint_refuses_a_budget_that_would_not_stop(seconds: float, peek: bool) -> None:
    """A peeking hint, and a fair one once nothing is hidden, answered the
    rule of thumb for a NaN, infinite or negative budget (the solver's
    refusal was taken for a solver failure), where a fair hint refused it."""
    board = Board.from_number(4, get_rules("falling-star"))
    with pytest.raises(ValueError, match="time budget"):
        find_hint(board, seconds, peek=peek)
    ended = Board.from_position(
        "2 7C 2S3H4S5D6C7D8S9HTCJDQCKH,2H3S4D5S6D7S8D9STDJCQDKCAH,2D3C4H5C,2C3D4C5H6S7H8C ,"
        "QH ADAC9DQSJHTS6H9C8HTHJSKS ASKD 1", RULE_SETS[3])
    assert nothing_hidden(ended)
    with pytest.raises(ValueError, match="time budget"):
        find_hint(ended, seconds, peek=peek)


def test_a_fair_hint_says_when_the_face_down_cards_differ_only_in_suit(client: TestClient) -> None:
    """With the 2 of spades and the 2 of clubs face down in Terrace (built
    in alternate colours, so every move treats them alike) the fair hint is
    the proved line, and the page said "You know every face-down card",
    which the player does not: the reply says which case it is
    (``face_down``: ``alike``; one card left: ``known``)."""
    game = new_game(client, variant="terrace", deal_number=197)
    for text in twins_moves():
        game = client.post(f"/api/games/{game['id']}/moves", json={"move": text}).json()
    assert game["state"]["stock"] == 2
    found = hint(client, game)
    assert (found["fair"], found["kind"], found["face_down"]) == (True, "winnable", "alike"), found
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": "s"}).json()
    assert (hint(client, game)["face_down"], hint(client, game, peek=True)["face_down"]) == ("known", None)
    start = new_game(client, variant="terrace", deal_number=197)
    assert hint(client, start)["face_down"] is None


def test_a_fair_hint_asked_again_never_answers_from_fewer_samples(
    store: GameStore, solver_pool: SharedPool
) -> None:
    """Pressing H again at one position in too little time to solve every
    sample: the solver process goes on with the samples it kept
    (:class:`terrace.solver.advice.AskedHints`), so no answer rests on fewer
    decided samples than the last (it gave "1 of 1", the rule of thumb,
    then "1 of 1" at load 23). The solver processes have started before
    the first hint: at load ~24 (four busy loops besides the machine's
    ~20) a process took 7.0-8.8 s to start (three runs), once more than
    10.1 s, which was a 503 "the search was stopped" before any sample
    while a job's 10 s of grace counted from its sending (the pool's
    OVERRUN_GRACE counts from the worker's start now)."""
    pool = solver_pool

    async def started() -> list[object]:
        return await asyncio.gather(*(pool.run(_echo, n, budget=STARTING) for n in range(pool.workers)))

    assert asyncio.run(started()) == list(range(pool.workers))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with TestClient(create_app(store, hint_seconds=0.1, pool=pool), base_url=LOCAL) as client:
            game = new_game(client, variant="falling-star", deal_number=4)
            for text in ("s", "s"):
                game = client.post(f"/api/games/{game['id']}/moves", json={"move": text}).json()
            found = [hint(client, game) for _ in range(4)]
    founded = [(f["samples"] - f["undecided"], f["samples"]) for f in found]
    assert founded == sorted(founded), founded
    kinds = [f["kind"] for f in found]
    sampled = kinds.index("sampled") if "sampled" in kinds else len(kinds)
    assert "heuristic" not in kinds[sampled:], kinds


def test_the_stock_cards_shown_are_read_within_their_share_of_the_hint() -> None:
    """``within`` gives what its function returns in time, and None for
    what has not returned (the fair hint then goes on without the stock
    cards that draws taken back had shown). A mutation audit waited 0 s
    whatever the time given: every fair hint then went without them, and
    no test failed."""
    assert asyncio.run(within(30.0, lambda: 7)) == 7
    held = threading.Event()
    try:
        assert asyncio.run(within(0.05, held.wait)) is None
    finally:
        held.set()
