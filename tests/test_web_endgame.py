"""Ending a game through the API, on both stores: auto-play (safe moves and
a certain finish, stored as ordinary moves), giving up, and reporting active
playing time; every bad request is a clear 4xx that changes nothing."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from store_support import golden, save, store_on_each_kind
from terrace.board import Board
from terrace.solver import finish_line, safe_moves
from terrace.storage import GameStore
from terrace.storage.base import MAX_ACTIVE_REPORT_MS, REPORT_SLACK_MS
from terrace.variants import get_rules
from terrace.web.endgame import CLOCKS_KEPT, ReportClock
from test_web_api import client

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WON = golden("terrace-won")
_ = client, store_on_each_kind  # the API tests' fixtures: a client on each kind of store


def won_game_at(client: TestClient, store: GameStore, moves: int) -> dict[str, Any]:
    """The golden won game of Terrace with its first ``moves`` moves
    played (stored in one change, as the store allows)."""
    game = client.post("/api/games", json={"variant": WON.variant, "options": WON.rules.to_dict(),
                                           "deal_number": WON.deal.number}).json()
    stored = store.get(game["id"])
    board = stored.board()
    for text in WON.moves[:moves]:
        board.push_text(text)
    save(store, stored, board, "move")
    answer: dict[str, Any] = client.get(f"/api/games/{game['id']}").json()
    return answer


def first(condition: Any) -> int:
    """The first number of moves of the golden game after which ``condition(board)``."""
    board = Board(WON.rules, WON.deal)
    for index, text in enumerate(WON.moves):
        if condition(board):
            return index
        board.push_text(text)
    raise AssertionError("never")


FINISH_AT = first(lambda board: finish_line(board) is not None)
SAFE_DEAL = 39
"""A deal of Terrace whose first base card leaves two base cards safe to
put up from the terrace at once (the finish is far away)."""


def autoplay(client: TestClient, game: dict[str, Any], **body: Any) -> Any:
    return client.post(f"/api/games/{game['id']}/autoplay", json=body)


def test_autoplay_finishes_once_the_finish_is_certain(client: TestClient, store: GameStore) -> None:
    before = won_game_at(client, store, FINISH_AT - 1)
    nothing = autoplay(client, before, after=FINISH_AT - 1, mode="finish")
    assert nothing.status_code == 200 and nothing.json()["autoplayed"] == []
    assert store.get(before["id"]).revision == before["revision"]
    game = client.post(f"/api/games/{before['id']}/moves",
                       json={"move": WON.moves[FINISH_AT - 1], "after": FINISH_AT - 1}).json()
    answer = autoplay(client, game, after=FINISH_AT, mode="finish")
    assert answer.status_code == 200, answer.text
    done = answer.json()
    played = done["autoplayed"]
    assert done["status"] == "won"
    assert len(played) == WON.rules.card_count - game["counters"]["foundation_cards"]
    line = client.get(f"/api/games/{game['id']}/line").json()["moves"]
    assert all(move.endswith("f") for move in played) and line[FINISH_AT:] == played
    assert done["moves"] == len(line) and done["last_played"] == played[-1]
    assert done["revision"] == game["revision"] + 1 and done["last_move"] == played[-1]
    homeward = [m for m in done["motions"] if m["to"].startswith("f")]
    assert len(homeward) == len(played)
    assert {m["card"] for m in homeward} == {c for p in game["state"]["tableau"] for c in p} | set(
        game["state"]["reserve"] + game["state"]["waste"])
    # Each auto-played move is an ordinary move: undo takes back one, the win stays.
    undone = client.post(f"/api/games/{game['id']}/undo", json={"after": done["moves"]}).json()
    assert undone["status"] == "playing" and undone["moves"] == done["moves"] - 1
    assert client.get(f"/api/games/{game['id']}/line").json()["moves"] == line[:-1]
    stats = client.get("/api/stats").json()["overall"]
    assert stats["won"] == 1 and stats["fewest_moves"] == done["moves"]


def test_autoplay_plays_safe_moves_only_when_asked(client: TestClient) -> None:
    game = client.post("/api/games", json={"variant": "terrace", "deal_number": SAFE_DEAL}).json()
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": "c1", "after": 0}).json()
    expected = Board.from_number(SAFE_DEAL, get_rules("terrace"))
    expected.push_text("c1")
    proved = []
    while moves := safe_moves(expected):
        proved.append(str(moves[0]))
        expected.push(moves[0])
    assert len(proved) >= 2 and finish_line(expected) is None
    finish = autoplay(client, game, after=1, mode="finish").json()
    assert finish["autoplayed"] == [] and finish["revision"] == game["revision"]
    answer = autoplay(client, game, after=1)  # "safe" is the default
    assert answer.status_code == 200
    data = answer.json()
    assert data["autoplayed"] == proved and data["moves"] == 1 + len(proved)
    assert client.get(f"/api/games/{game['id']}/line").json()["moves"] == ["c1", *proved]
    assert data["state"] == expected.to_dict() and data["revision"] == game["revision"] + 1
    assert [m["card"] for m in data["motions"]] == game["state"]["reserve"][::-1][: len(proved)]
    again = autoplay(client, data, after=data["moves"], mode="safe").json()
    assert again["autoplayed"] == [] and again["revision"] == data["revision"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"mode": "all"}, 400, "autoplay-mode"),
        ({"mode": 1}, 400, "autoplay-mode"),
        ({"mode": None}, 400, "autoplay-mode"),
        ({"after": "3"}, 400, "after-not-count"),
        ({"after": 0}, 409, "conflict"),
        ({"moves": ["rf"]}, 400, "field-unknown"),
    ],
)
def test_bad_autoplay_requests_change_nothing(
    client: TestClient, store: GameStore, body: dict[str, Any], status: int, code: str
) -> None:
    game = won_game_at(client, store, FINISH_AT)
    answer = autoplay(client, game, **body)
    assert answer.status_code == status and answer.json()["code"] == code
    assert answer.json()["error"]
    assert store.get(game["id"]).revision == game["revision"]


def test_giving_up(client: TestClient, store: GameStore) -> None:
    game = client.post("/api/games", json={"deal_number": 7}).json()
    gid = game["id"]
    unplayed = client.post(f"/api/games/{gid}/give-up", json={})
    assert unplayed.status_code == 409 and unplayed.json()["code"] == "give-up-unplayed"
    game = client.post(f"/api/games/{gid}/moves", json={"move": "c1"}).json()
    stale = client.post(f"/api/games/{gid}/give-up", json={"after": 0})
    assert stale.status_code == 409 and stale.json()["code"] == "conflict"
    answer = client.post(f"/api/games/{gid}/give-up", json={"after": 1})
    assert answer.status_code == 200, answer.text
    given = answer.json()
    assert given["status"] == "lost" and given["given_up"] is True and given["finished_at"]
    assert given["legal_moves"] == [] and given["sources"] == {} and not given["can_undo"]
    assert given["moves"] == 1 and given["revision"] == game["revision"] + 1
    refused = [
        client.post(f"/api/games/{gid}/give-up", json={}),
        client.post(f"/api/games/{gid}/moves", json={"move": given["state"]["status"] and "s"}),
        client.post(f"/api/games/{gid}/undo", json={}),
        client.post(f"/api/games/{gid}/redo", json={}),
        client.post(f"/api/games/{gid}/restart", json={}),
        client.post(f"/api/games/{gid}/autoplay", json={}),
    ]
    for response in refused:
        assert response.status_code == 409 and response.json()["code"] == "game-given-up", response.text
    # a report of playing time counts nothing, and says why without an error
    # (a tab on another device learns of it from the answer; a 409 was an error in its console)
    report = client.post(f"/api/games/{gid}/time", json={"ms": 10})
    assert report.status_code == 200
    assert report.json() == {"id": gid, "active_ms": 0, "counted": 0, "given_up": True}
    assert store.get(gid).revision == given["revision"] and store.get(gid).active_ms == 0
    assert client.get("/api/games/current").status_code == 204
    replay = client.get(f"/api/games/{gid}/position?step=1")
    assert replay.status_code == 200 and replay.json()["replay"]
    listed = client.get("/api/games?recent=5").json()["games"][0]
    assert listed["status"] == "lost" and listed["given_up"]
    stats = client.get("/api/stats").json()["overall"]
    assert (stats["played"], stats["lost"], stats["win_rate"]) == (1, 1, 0.0)


@pytest.mark.parametrize("peek", [False, True])
def test_a_game_given_up_gets_no_hint_and_nothing_in_it_can_move(
    client: TestClient, store: GameStore, peek: bool
) -> None:
    gid = client.post("/api/games", json={"deal_number": 7}).json()["id"]
    for text in ("c1", "s"):
        assert client.post(f"/api/games/{gid}/moves", json={"move": text}).status_code == 200
    assert client.get(f"/api/games/{gid}/check", params={"move": "s"}).json()["legal"] is True
    assert client.post(f"/api/games/{gid}/give-up", json={}).status_code == 200
    hint = client.post(f"/api/games/{gid}/hint", json={"peek": peek})
    assert hint.status_code == 200, hint.text
    data = hint.json()
    assert (data["move"], data["kind"], data["why"], data["counted"], data["fair"]) == (
        None, "none", "game-over", False, not peek)
    saved = store.get(gid)
    assert saved.hints == 0 and not saved.assisted
    check = client.get(f"/api/games/{gid}/check", params={"move": "s"}).json()
    assert check["legal"] is False and check["code"] == "game-given-up"
    why = client.get(f"/api/games/{gid}/why", params={"pile": "stock"}).json()
    assert why["movable"] is False and why["code"] == "game-given-up"


def test_a_won_game_cannot_be_given_up(client: TestClient, store: GameStore) -> None:
    game = won_game_at(client, store, len(WON.moves))
    assert game["status"] == "won"
    undone = client.post(f"/api/games/{game['id']}/undo", json={}).json()
    for state in (game, undone):
        answer = client.post(f"/api/games/{state['id']}/give-up", json={})
        assert answer.status_code == 409 and answer.json()["code"] == "give-up-won"
    assert client.get("/api/stats").json()["overall"]["won"] == 1


def test_active_time_is_bounded_by_the_wall_clock(client: TestClient, store: GameStore) -> None:
    now = [1000.0]
    client.app.state.game.clock = ReportClock(lambda: now[0])  # type: ignore[attr-defined]
    game = client.post("/api/games", json={"deal_number": 3}).json()
    gid = game["id"]
    now[0] += 30.0
    ok = client.post(f"/api/games/{gid}/time", json={"ms": 30_000})
    assert ok.status_code == 200 and ok.json() == {"id": gid, "active_ms": 30_000, "counted": 30_000}
    now[0] += 1.0
    too_much = client.post(f"/api/games/{gid}/time", json={"ms": 20_000})  # what the wall time allows
    assert too_much.status_code == 200
    assert too_much.json() == {"id": gid, "active_ms": 33_000, "counted": 3_000}
    assert client.post(f"/api/games/{gid}/time", json={"ms": 5}).json()["counted"] == 0  # (the 2 s were lent)
    for bad in ({"ms": -1}, {"ms": 1.5}, {"ms": True}, {"ms": "5"}, {}):
        answer = client.post(f"/api/games/{gid}/time", json=bad)
        assert answer.status_code == 400 and answer.json()["code"] == "time-not-count"
    unknown = client.post(f"/api/games/{gid}/time", json={"ms": 1, "after": 0})
    assert unknown.status_code == 400 and unknown.json()["code"] == "field-unknown"
    assert store.get(gid).active_ms == 33_000
    now[0] += 9.0
    assert client.post(f"/api/games/{gid}/time", json={"ms": 7_000}).json()["active_ms"] == 40_000
    assert client.get(f"/api/games/{gid}").json()["active_ms"] == 40_000
    german = client.post(f"/api/games/{gid}/time", json={"ms": -5}, headers={"accept-language": "de"})
    assert german.status_code == 400 and "Millisekunden" in german.json()["error"]
    assert store.get(gid).active_ms == 40_000


def test_the_time_slack_is_lent_not_given_again(client: TestClient, store: GameStore) -> None:
    """Quick reports cannot add the 2 s slack again and again: what one
    report takes beyond the wall time, the next has less."""
    now = [1000.0]
    client.app.state.game.clock = ReportClock(lambda: now[0])  # type: ignore[attr-defined]
    gid = client.post("/api/games", json={"deal_number": 3}).json()["id"]
    answers = [client.post(f"/api/games/{gid}/time", json={"ms": 2_000}).json()["counted"] for _ in range(30)]
    assert answers == [2_000] + [0] * 29
    now[0] += 10.0
    assert client.post(f"/api/games/{gid}/time", json={"ms": 10_000}).json()["counted"] == 10_000
    assert client.post(f"/api/games/{gid}/time", json={"ms": 1}).json()["counted"] == 0
    assert store.get(gid).active_ms == 12_000  # 10 s of wall time and the 2 s lent


def test_time_reports_at_once_share_one_allowance(tmp_path: Any) -> None:
    """Reports arriving together (two tabs) cannot each take the whole
    allowance while the first is being stored."""
    import asyncio

    import httpx

    from terrace.storage import open_store
    from terrace.web.app import create_app
    from web_support import LOCAL

    async def scenario() -> tuple[list[int], int]:
        store = open_store(tmp_path / "g.sqlite3")
        app = create_app(store, hint_seconds=0.3)
        now = [1000.0]
        app.state.game.clock = ReportClock(lambda: now[0])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=LOCAL) as web:
            gid = (await web.post("/api/games", json={"deal_number": 3})).json()["id"]
            now[0] += 30.0
            answers = await asyncio.gather(
                *[web.post(f"/api/games/{gid}/time", json={"ms": 30_000}) for _ in range(5)])
        stored = store.get(gid).active_ms
        store.close()
        assert [a.status_code for a in answers] == [200] * 5
        return [a.json()["counted"] for a in answers], stored

    counted, stored = asyncio.run(scenario())
    assert sorted(counted) == [0, 0, 0, 2_000, 30_000] and stored == 32_000  # (30 s and the 2 s lent)


def test_the_report_clock_allows_six_hours_at_most_and_keeps_its_newest_games() -> None:
    """A report may add the time since the game's last one (plus the slack
    lent), six hours at most (the store takes no more in one report); the
    clock keeps the newest
    :data:`CLOCKS_KEPT` games, forgetting the oldest. A mutation audit
    dropped the six-hour cap, and kept one game fewer, and the tests of
    the web game's reports passed."""
    now = [0.0]
    clock = ReportClock(lambda: now[0])
    for number in range(CLOCKS_KEPT):
        clock.seen(f"game {number}")
    now[0] += 60.0
    assert clock.allowance("game 0") == 60_000 + REPORT_SLACK_MS  # (the oldest, still kept)
    clock.seen("one more")
    assert clock.allowance("game 0") == REPORT_SLACK_MS  # forgotten: no time since a mark it knows
    assert clock.allowance("game 1") == 60_000 + REPORT_SLACK_MS
    now[0] += 7 * 3600.0
    assert clock.allowance("game 1") == MAX_ACTIVE_REPORT_MS


@pytest.mark.parametrize("how", ["restarted", "forgotten"])
def test_time_played_across_a_server_restart_or_a_forgotten_clock_is_counted(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """The report clock started a game afresh when it was first served
    after the server started again (or once it forgot the game among
    :data:`CLOCKS_KEPT` newer ones): the page's next report, its 20 s of
    play counted before, was cut to the 2 s lent (counted 2,000 of 20,000;
    the page's clock then jumped back 18 s). It goes on from where the
    store says the game's time was last reported, as the store itself
    allows."""
    from terrace.storage import open_store
    from terrace.web import endgame
    from terrace.web.app import create_app
    from web_support import LOCAL

    now = [1000.0]
    store = open_store(tmp_path / "g.sqlite3")
    try:
        app = create_app(store)
        app.state.game.clock = ReportClock(lambda: now[0])
        with TestClient(app, base_url=LOCAL) as web:
            gid = web.post("/api/games", json={"deal_number": 3}).json()["id"]
            now[0] += 30.0
            assert web.post(f"/api/games/{gid}/time", json={"ms": 30_000}).json()["counted"] == 30_000
            if how == "forgotten":
                monkeypatch.setattr(endgame, "CLOCKS_KEPT", 2)
                for number in (4, 5):
                    web.post("/api/games", json={"deal_number": number})
        if how == "restarted":
            app = create_app(store)
            app.state.game.clock = ReportClock(lambda: now[0])
        with TestClient(app, base_url=LOCAL) as web:
            now[0] += 20.0
            assert web.get(f"/api/games/{gid}").status_code == 200  # (the page reloaded, or another tab)
            report = web.post(f"/api/games/{gid}/time", json={"ms": 20_000}).json()
            assert report == {"id": gid, "active_ms": 50_000, "counted": 20_000}
            # (the slack is still lent once: no more than the wall time since)
            assert web.post(f"/api/games/{gid}/time", json={"ms": 5_000}).json()["counted"] == 2_000
            fresh = web.post("/api/games", json={"deal_number": 6}).json()["id"]  # (never reported)
            now[0] += 10.0
            assert web.post(f"/api/games/{fresh}/time", json={"ms": 10_000}).json()["counted"] == 10_000
        assert store.get(gid).active_ms == 52_000
    finally:
        store.close()


def test_a_fresh_clock_resumes_from_the_store_once_and_never_from_a_mark_ahead() -> None:
    """Two reports of a fresh game at once take the store's mark once (the
    second sees the first's report); a mark ahead of the clock (from
    before the computer started again) is ignored, as the store ignores it."""
    now = [100.0]
    clock = ReportClock(lambda: now[0])
    clock.seen("g")
    assert clock.fresh("g")
    clock.resume("g", 70.0)
    assert not clock.fresh("g") and clock.allowance("g") == 30_000 + REPORT_SLACK_MS
    clock.reported("g", 30_000)
    clock.resume("g", 70.0)  # (no longer fresh: nothing changes)
    assert clock.allowance("g") == REPORT_SLACK_MS
    clock.seen("h")
    clock.resume("h", 5_000.0)
    assert clock.allowance("h") == REPORT_SLACK_MS
    clock.seen("i")
    clock.reported("i", 0)
    assert not clock.fresh("i")
