"""The statistics against an independent recount (``stats_recount.Ledger``),
after long random sessions through the HTTP API: wins, losses, games left
for new ones, give-ups, restarts, undos after a win, games resumed after a
restart of the server, imports, assists and reported time, several
variants and custom rules; ``GET /api/stats``, ``terrace stats --json`` and
the ``terrace stats`` table must all say what the recount says."""

from __future__ import annotations

import json
import random
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from stats_recount import Ledger
from store_support import golden, no_default_db, save, store_on_each_kind
from terrace.cli import main
from terrace.cli.storage import format_rate
from terrace.deal import Deal
from terrace.storage import GameStore, SqliteStore, open_store
from terrace.storage.base import TimeTooMuchError
from terrace.storage.transfer import export_record
from terrace.variants import get_rules
from terrace.web.endgame import ReportClock

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from terrace.web.app import create_app

_ = no_default_db, store_on_each_kind
ENDINGS = ("terrace-won", "terrace-lost", "wood-lost", "thirteen-lost")
"""Golden games the player brings to their end (most moves stored at once)."""
NEW_GAMES: list[dict[str, Any]] = [
    {"variant": "terrace"}, {"variant": "wood"}, {"variant": "falling-star"},
    {"variant": "terrace", "options": {"candidates": 0}},  # Falling Star's rules
    {"variant": "terrace", "options": {"candidates": 4}},  # a custom group
]


class Session:
    """A player at the web game, on one database file, with a clock for the
    page's time reports that the test moves on."""

    def __init__(self, path: Path, **options: Any) -> None:
        self.path = path
        self.options = options
        self.ledger = Ledger()
        self.now = [1000.0]
        self.store: SqliteStore | None = None
        self.client: TestClient | None = None
        self.app: Any = None
        self.current: str | None = None
        self.start_server()

    def stop_server(self) -> None:
        """Stop the server: its solver processes, and the store."""
        if self.app is not None:
            self.app.state.game.pool.close()
        if self.store is not None:
            self.store.close()

    def start_server(self) -> None:
        """(Re)start the server: a new app and store on the same file."""
        self.stop_server()
        self.store = open_store(self.path)
        self.app = app = create_app(self.store, **self.options)
        app.state.game.clock = ReportClock(lambda: self.now[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.client = TestClient(app, base_url="http://localhost")
        answer = self.client.get("/api/games/current")
        self.current = answer.json()["id"] if answer.status_code == 200 else None

    def api(self, method: str, url: str, body: Any = None) -> Any:
        assert self.client is not None
        return self.client.request(method, url, json=body)

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.api("POST", "/api/games", body)
        assert answer.status_code == 201, answer.text
        data = answer.json()
        self.ledger.opened(data)
        self.current = data["id"]
        return data

    def game(self, game_id: str | None = None) -> dict[str, Any]:
        answer = self.api("GET", f"/api/games/{game_id or self.current}")
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def change(self, action: str, body: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """A change of the current game; its answer, or None when refused."""
        game = self.game()
        url = {"move": "moves"}.get(action, action)
        answer = self.api("POST", f"/api/games/{game['id']}/{url}",
                          {**(body or {}), "revision": game["revision"]})
        if answer.status_code != 200:
            return None
        data = dict(answer.json())
        if data["revision"] != game["revision"]:
            self.ledger.changed(data, action)
        return data

    def random_move(self, rng: random.Random) -> None:
        moves = self.game()["legal_moves"]
        if moves:
            others = [m for m in moves if m != "s"]
            self.change("move", {"move": rng.choice(others if others and rng.random() < 0.7 else moves)})

    def play_out(self, name: str, rng: random.Random, left: int) -> None:
        """A new game of a golden record, played to ``left`` moves before
        its end in one stored change (as an auto-play stores it), the rest
        move by move."""
        record = golden(name)
        body: dict[str, Any] = {"variant": record.variant, "deal_number": record.deal.number}
        data = self.new_game(body)
        assert self.store is not None
        game = self.store.get(data["id"])
        board = game.board()
        for move in record.moves[: len(record.moves) - left]:
            board.push_text(move)
        save(self.store, game, board, "move")
        self.ledger.changed(self.game(), "move")
        for move in record.moves[len(record.moves) - left:]:
            assert self.change("move", {"move": str(move)}) is not None

    def report_time(self, rng: random.Random) -> None:
        self.now[0] += rng.choice([0.5, 3, 40])
        ms = rng.randint(0, 2000)
        game = self.game()
        answer = self.api("POST", f"/api/games/{game['id']}/time", {"ms": ms})
        if answer.status_code == 200 and not answer.json().get("given_up"):  # (given up: nothing counts)
            self.ledger.timed(game["id"], ms)

    def import_game(self, rng: random.Random) -> None:
        """An import through ``terrace import`` of a golden record (no
        times: as of the import) or of a game here (already here)."""
        assert self.store is not None
        if rng.random() < 0.5 or not self.ledger.games:
            record = golden(rng.choice(ENDINGS)).to_dict()
        else:
            record = export_record(self.store.get(rng.choice(list(self.ledger.games))))
        file = self.path.parent / "import.json"
        file.write_text(json.dumps([record]))
        self.import_game_file(file)

    def import_game_file(self, file: Path) -> None:
        """``terrace import FILE``, and the games it brought in, in the ledger."""
        assert self.store is not None
        before = set(self.store.game_ids())
        result = CliRunner().invoke(main, ["import", "--db", str(self.path), str(file)])
        assert result.exit_code == 0, result.output
        for game_id in set(self.store.game_ids()) - before:
            data = self.game(game_id)
            kept = self.ledger.opened(data, imported=True)
            kept.moved = bool(data["moves"] or data["redo"])
            kept.first_move = data["created_at"]
            if data["status"] == "won":
                kept.won_at, kept.won_moves = data["won_at"], data["moves"]
            elif data["status"] == "lost":
                kept.lost_at = data["finished_at"]
            kept.moves = data["moves"]

    def step(self, rng: random.Random) -> None:
        roll = rng.random()
        if self.current is None or roll < 0.08:
            # (a deal number from the seed, so that a session is the same every run)
            self.new_game({**rng.choice(NEW_GAMES), "deal_number": rng.randint(1, 10**6)})
        elif roll < 0.14:
            self.play_out(rng.choice(ENDINGS), rng, rng.choice([1, 2]))
        elif roll < 0.45:
            self.random_move(rng)
        elif roll < 0.55:
            self.change("undo")
        elif roll < 0.62:
            self.change("redo")
        elif roll < 0.65:
            self.change("restart")
        elif roll < 0.68:
            self.change("give-up")
        elif roll < 0.78:
            self.report_time(rng)
        elif roll < 0.82:
            # back to an older game from the list (it resumes at its next change)
            self.current = rng.choice(list(self.ledger.games))
        elif roll < 0.84:
            self.start_server()
        elif roll < 0.86:
            self.import_game(rng)
        elif roll < 0.88:
            game = self.game()
            if game["status"] in ("choosing", "playing") and game["won_at"] is None and not game["given_up"]:
                assert self.store is not None
                self.store.mark_assisted(game["id"])  # (what an assist's request does while in play)
                self.ledger.games[game["id"]].assisted = True
        else:
            self.random_move(rng)


def stats_json(path: Path, *args: str) -> Any:
    result = CliRunner().invoke(main, ["stats", "--db", str(path), "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def compare(session: Session) -> None:
    """Every way of reading the statistics says what the recount says."""
    ledger = session.ledger
    served = session.api("GET", "/api/stats").json()
    printed = stats_json(session.path)
    assert printed["overall"] == served["overall"]
    assert printed["variants"] == served["variants"]
    assert served["overall"] == ledger.expected(), "overall"
    assert set(served["variants"]) == ledger.keys()  # (a group only opened too: played 0)
    for key, block in served["variants"].items():
        assert block == ledger.expected(key), key
    table = CliRunner().invoke(main, ["stats", "--db", str(session.path)]).output
    overall = ledger.expected()
    line = next(row for row in table.splitlines() if row.startswith("All variants"))
    cells = line.split()[2:]
    assert cells[:4] == [str(overall[k]) for k in ("played", "won", "lost", "abandoned")], table
    rate = overall["win_rate"]
    assert cells[4] == ("-" if rate is None else format_rate(rate)), table


# (Seed 2 used to fail about one run in eight: its deals were the server's
# random ones, and some sessions went to an imported game and played it,
# which the server took for opening a new game; see
# test_playing_an_imported_game_leaves_no_game_behind.)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_long_random_sessions_agree_with_a_recount(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    with session_at(tmp_path) as session:
        for turn in range(200):
            session.step(rng)
            if turn % 50 == 49:
                compare(session)
        compare(session)
        assert session.ledger.expected()["won"] >= 1


@contextmanager
def session_at(tmp_path: Path, **options: Any) -> Iterator[Session]:
    session = Session(tmp_path / "games.sqlite", **options)
    try:
        yield session
    finally:
        session.stop_server()


def hint(session: Session, *, peek: bool = False) -> bool:
    """Ask for a hint on the current game; whether the server counted it."""
    game = session.game()
    answer = session.api("POST", f"/api/games/{game['id']}/hint", {"peek": peek})
    assert answer.status_code == 200, answer.text
    counted = bool(answer.json()["counted"])
    if counted:
        session.ledger.hinted(game["id"], session.game()["updated_at"])
    if peek and game["status"] in ("choosing", "playing") and game["won_at"] is None:
        session.ledger.games[game["id"]].assisted = True
    return counted


def test_hints_undos_after_a_win_and_replays_count_as_a_player_expects(tmp_path: Path) -> None:
    rng = random.Random(7)
    with session_at(tmp_path, hint_seconds=0.2) as session:
        left = session.new_game({"variant": "terrace", "deal_number": 3})
        assert hint(session) and not hint(session)  # the same position: counted once
        session.random_move(rng)
        session.random_move(rng)
        session.play_out("terrace-won", rng, 2)  # the first game is left for this one
        compare(session)
        won = session.current
        assert session.game()["status"] == "won"
        assert not hint(session, peek=True)  # after a win: no hint counts, no assist
        for _ in range(3):
            session.change("undo")
        assert not hint(session)  # a win is final: taking moves back reopens nothing
        session.change("restart")
        session.report_time(rng)
        compare(session)
        for _ in range(2):
            session.change("redo")
        session.current = left["id"]  # back to the game left, with a hint: it resumes
        assert hint(session)
        compare(session)
        assert session.api("GET", "/api/stats").json()["overall"]["abandoned"] == 0
        session.current = won
        session.change("redo")
        session.start_server()
        session.new_game({"variant": "wood"})  # the first game is left again
        compare(session)
        overall = session.api("GET", "/api/stats").json()["overall"]
        assert (overall["won"], overall["abandoned"], overall["current_streak"]) == (1, 1, 0)
        assert overall["fewest_moves"] == len(golden("terrace-won").moves)


def test_going_back_to_an_older_game_leaves_the_game_in_play_in_progress(tmp_path: Path) -> None:
    """docs/storage.md: only a new game abandons the games in progress; a
    restart is no loss."""
    rng = random.Random(3)
    with session_at(tmp_path) as session:
        older = session.new_game({"variant": "wood", "deal_number": 4})
        session.random_move(rng)
        session.new_game({"variant": "terrace", "deal_number": 5})
        session.random_move(rng)
        session.change("restart")
        assert session.api("GET", "/api/stats").json()["overall"]["abandoned"] == 1
        session.current = older["id"]
        session.random_move(rng)  # the older game resumed: both are in progress
        compare(session)
        overall = session.api("GET", "/api/stats").json()["overall"]
        assert (overall["abandoned"], overall["unfinished"], overall["lost"]) == (0, 2, 0)
        assert session.api("GET", "/api/games/current").json()["id"] == older["id"]
        session.new_game({"variant": "wood"})
        assert session.api("GET", "/api/stats").json()["overall"]["abandoned"] == 2
        compare(session)


def test_playing_an_imported_game_leaves_no_game_behind(tmp_path: Path) -> None:
    """A record without times is imported as of the import. Playing it
    (an undo, here) is going to another game, not opening a new one: the
    game in play before the import stays in progress. The server used to
    count it abandoned once the imported game was changed here (seen by the
    random sessions, about one run in eight)."""
    rng = random.Random(5)
    with session_at(tmp_path) as session:
        left = session.new_game({"variant": "terrace", "deal_number": 5})
        session.random_move(rng)
        file = tmp_path / "import.json"
        file.write_text(json.dumps([golden("terrace-lost").to_dict()]))
        before = set(session.ledger.games)
        assert session.store is not None
        session.import_game_file(file)
        (imported,) = set(session.ledger.games) - before
        session.current = imported
        assert session.change("undo") is not None
        compare(session)
        overall = session.api("GET", "/api/stats").json()["overall"]
        assert (overall["abandoned"], overall["unfinished"]) == (0, 2)
        session.current = left["id"]
        session.random_move(rng)  # and back: both still in progress
        assert session.api("GET", "/api/stats").json()["overall"]["unfinished"] == 2
        file.write_text(json.dumps([golden("terrace-won").to_dict()]))
        session.import_game_file(file)  # a later import leaves the played one in progress too
        compare(session)
        session.new_game({"variant": "wood"})  # a new game leaves both behind
        compare(session)
        assert session.api("GET", "/api/stats").json()["overall"]["abandoned"] == 2


def test_two_servers_on_one_database_count_a_minute_of_play_once(tmp_path: Path) -> None:
    """Two ``terrace play`` on one file, a page of each open on one game:
    each server allowed the time since it last heard of the game, so the
    statistics counted the minute twice (active_seconds 120). The servers'
    clock (one for the computer) is moved on by the test."""
    now = [1000.0]
    with open_store(tmp_path / "games.sqlite") as first, open_store(tmp_path / "games.sqlite") as second:
        clients = []
        for store in (first, second):
            app = create_app(store)
            app.state.game.clock = ReportClock(lambda: now[0])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clients.append(TestClient(app, base_url="http://localhost"))
        game = clients[0].post("/api/games", json={"variant": "terrace", "deal_number": 5}).json()
        clients[0].post(f"/api/games/{game['id']}/moves", json={"move": "c1"})
        clients[1].get(f"/api/games/{game['id']}")  # both pages show it
        now[0] += 60  # a minute of play, both pages measuring it
        answers = [c.post(f"/api/games/{game['id']}/time", json={"ms": 60_000}) for c in clients]
        assert [a.status_code for a in answers] == [200, 200]
        # the second counts what the first left: the 2 s lent
        assert [a.json()["counted"] for a in answers] == [60_000, 2_000]
        assert clients[1].get("/api/stats").json()["overall"]["active_seconds"] == 62.0
        # the next minute counts once
        now[0] += 60
        report = f"/api/games/{game['id']}/time"
        assert clients[1].post(report, json={"ms": 58_000}).json()["counted"] == 58_000
        # (the other server's clock allows 30 s: the store, what is left, the 2 s lent)
        assert clients[0].post(report, json={"ms": 30_000}).json()["counted"] == 2_000
        assert clients[0].get("/api/stats").json()["overall"]["active_seconds"] == 122.0
        for client in clients:
            client.app.state.game.pool.close()  # type: ignore[attr-defined]


def test_time_played_up_to_a_server_restart_is_counted_after_it(tmp_path: Path) -> None:
    """A page left open while ``terrace play`` was started again: its next
    report carried the time played before the restart, and the new server,
    which had first served the game only then, counted 2 s of it (seen in
    Chromium: the page's clock went from 0:18 back to 0:02). The store knows
    when the game's time was last reported on this computer's clock; the
    report is held to that. A game never reported is held to the new
    server's first serving, as before."""
    now = [1000.0]
    db = tmp_path / "games.sqlite"

    def server(store: Any) -> TestClient:
        app = create_app(store)
        app.state.game.clock = ReportClock(lambda: now[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return TestClient(app, base_url="http://localhost")

    with open_store(db) as store:
        before = server(store)
        game = before.post("/api/games", json={"variant": "terrace", "deal_number": 5}).json()
        other = before.post("/api/games", json={"variant": "terrace", "deal_number": 6}).json()
        now[0] += 20
        assert before.post(f"/api/games/{game['id']}/time", json={"ms": 20_000}).json()["counted"] == 20_000
        before.app.state.game.pool.close()  # type: ignore[attr-defined]
    now[0] += 15  # 15 s played, then the server stops and starts again (5 s)
    with open_store(db) as store:
        after = server(store)
        now[0] += 5
        report = after.post(f"/api/games/{game['id']}/time", json={"ms": 20_000}).json()
        assert report["counted"] == 20_000 and report["active_ms"] == 40_000
        # (held as before: the lent 2 s are not lent again, nor is more than the wall time counted)
        assert after.post(f"/api/games/{game['id']}/time", json={"ms": 5_000}).json()["counted"] == 2_000
        assert after.post(f"/api/games/{other['id']}/time", json={"ms": 40_000}).json()["counted"] == 2_000
        after.app.state.game.pool.close()  # type: ignore[attr-defined]


def test_reports_of_time_are_held_to_one_clock_on_each_store(store: GameStore) -> None:
    """The store's part: a report ``at`` an instant takes no more than the
    time since the last one plus the 2 s lent; a mark from before the
    computer's clock started again is ignored; reports without ``at`` (an
    import's, a script's) are not held."""
    rules = get_rules("terrace")
    game = store.create("terrace", rules, Deal.from_number(5, rules))
    assert store.add_active_time(game.id, 20_000, at=1_000.0) == 20_000
    with pytest.raises(TimeTooMuchError) as refused:
        store.add_active_time(game.id, 20_000, at=1_005.0)
    assert refused.value.most == 7_000 and store.get(game.id).active_ms == 20_000
    assert store.add_active_time(game.id, 7_000, at=1_005.0) == 27_000
    with pytest.raises(TimeTooMuchError):
        store.add_active_time(game.id, 1, at=1_005.0)  # (the 2 s were lent, not given)
    assert store.add_active_time(game.id, 20_000, at=12.0) == 47_000  # the computer restarted
    assert store.add_active_time(game.id, 60_000) == 107_000
