"""What a request of the web game costs does not grow with the game: GET,
a move, an undo and a redo on a game of 20,000 moves do the same counted
work as on a game of 50 (history copied, text hashed, SQL run, moves
replayed), and a line changed on the short board of a request is stored
exactly as the engine's whole board has it."""

from __future__ import annotations

import hashlib
import random
import sqlite3
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from store_support import golden, play, save, start
from terrace.board import Board
from terrace.deal import Deal
from terrace.moves import Move
from terrace.rules import Rules
from terrace.storage import GameStore, MemoryStore, SqliteStore, StoredGame, open_store, rows
from terrace.web.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from long import long_line

RULES = Rules(decks=8, reserve=5, piles=4, candidates=0, spaces="free")
DEAL = 3
LOCAL = "http://localhost"


class Work:
    """Counts of what requests do: board history copied (moves each way of
    every board copy), bytes hashed for replay stamps, SQL statements, and
    moves the engine played."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, store: GameStore) -> None:
        self.copied = self.hashed = self.pushes = 0
        self.sql: list[str] = []
        copy, push, blake = Board.copy, Board.push, hashlib.blake2b

        def counted_copy(board: Board, **settings: Any) -> Board:
            other = copy(board, **settings)
            self.copied += len(other.move_stack) + len(other.redo_stack)
            return other

        def counted_push(board: Board, move: Move) -> None:
            self.pushes += 1
            push(board, move)

        def counted_blake(data: bytes = b"", **settings: Any) -> Any:
            self.hashed += len(data)
            return blake(data, **settings)

        monkeypatch.setattr(Board, "copy", counted_copy)
        monkeypatch.setattr(Board, "push", counted_push)
        monkeypatch.setattr(rows.hashlib, "blake2b", counted_blake)
        if isinstance(store, SqliteStore):
            store._conn.set_trace_callback(self.sql.append)

    def counts(self) -> dict[str, Any]:
        # (statements that fetch moves: a read's check of the rows' numbers fetches none)
        return {"copied": self.copied, "hashed": self.hashed, "pushes": self.pushes,
                "statements": len(self.sql), "move rows read": sum(rows.MOVE_READ in s for s in self.sql)}


def make_store(kind: str, tmp_path: Path) -> GameStore:
    return MemoryStore() if kind == "memory" else open_store(tmp_path / "games.sqlite")


def stored(store: GameStore, length: int) -> str:
    game = store.create("terrace", RULES, Deal.from_number(DEAL, RULES))
    board = game.board()
    for move in long_line(RULES, DEAL, length):
        board.push(move)
    game.sync(board)
    store.update(game, expected_revision=0, action="move")
    return game.id


def client_of(store: GameStore) -> TestClient:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestClient(create_app(store), base_url=LOCAL)


def requests(client: TestClient, game_id: str) -> dict[str, Any]:
    """GET, undo, redo, undo and a move (the one taken back): the game is
    as it was after them. Returns the last answer."""
    base = f"/api/games/{game_id}"
    game = client.get(base).json()
    last = game["last_played"]
    for path, body in (("/undo", {}), ("/redo", {}), ("/undo", {}), ("/moves", {"move": last})):
        answer = client.post(base + path, json={**body, "revision": game["revision"]})
        assert answer.status_code == 200, answer.text
        game = answer.json()
    return dict(game)


def short_and_long(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    ask: Callable[[TestClient, str], dict[str, Any]], counts: dict[int, dict[str, Any]],
) -> Iterator[tuple[int, GameStore, str, dict[str, Any]]]:
    """For a game of 50 moves, then one of 20,000, each in a store of
    ``kind``: the game's length, store and id and what ``ask`` answered
    once the game was read (the first read replays it: once), with the
    work ``ask`` did put in ``counts`` under the length."""
    for length in (50, 20_000):
        store = make_store(kind, tmp_path / str(length))
        game_id = stored(store, length)
        client = client_of(store)
        requests(client, game_id)
        with monkeypatch.context() as patch:
            work = Work(patch, store)
            answer = ask(client, game_id)
            counts[length] = work.counts()
        yield length, store, game_id, answer


def same_work(counts: dict[int, dict[str, Any]]) -> None:
    """The long game's work is the short one's (a stamp's text holds the
    number of moves: a few digits more hashed)."""
    assert abs(counts[20_000].pop("hashed") - counts[50].pop("hashed")) < 100, counts
    assert counts[20_000] == counts[50], counts


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_request_on_a_long_game_does_the_work_of_one_on_a_short_game(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts: dict[int, dict[str, Any]] = {}
    for length, store, game_id, answer in short_and_long(kind, tmp_path, monkeypatch, requests, counts):
        assert answer["moves"] == answer["counters"]["moves"] == length
        assert answer["redo"] == 0 and answer["can_undo"] and not answer["can_redo"]
        assert store.get(game_id).moves == [str(m) for m in long_line(RULES, DEAL, length)]
    same_work(counts)
    assert counts[50]["move rows read"] == 0 and counts[50]["copied"] < 400


def reference(rules: Rules, deal: Deal, game: StoredGame) -> Board:
    """The game replayed on a whole board."""
    board = Board(rules, deal)
    for text in game.moves:
        board.push(Move.parse(text))
    for text in reversed(game.redo):
        board.push(Move.parse(text))
    for _ in game.redo:
        board.pop()
    return board


@pytest.fixture(params=["memory", "sqlite"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GameStore]:
    store = make_store(request.param, tmp_path)
    yield store
    if isinstance(store, SqliteStore):
        store.close()


def test_changes_on_the_short_board_of_a_request_are_the_whole_boards(any_store: GameStore) -> None:
    """Undos and redos past the request board's few moves of history (one
    request each), several moves played again from the redo stack in one
    change (auto-play), and new moves that drop the redo stack: the stored
    line, moves and status are those of the engine's whole board."""
    rules = Rules.from_dict({}, RULES)
    deal = Deal.from_number(DEAL, rules)
    game = any_store.create("terrace", rules, Deal.from_number(DEAL, rules))
    whole = Board(rules, deal)
    rng = random.Random(7)
    for step in range(400):
        game = any_store.get(game.id)
        board = game.recent_board()
        choice = rng.random()
        if choice < 0.3 and whole.can_undo:
            board.pop()
            whole.pop()
        elif choice < 0.55 and whole.can_redo:
            for _ in range(rng.choice([1, 1, 1, 12])):  # (12: more than the board holds)
                if not whole.can_redo:
                    break
                move = whole.redo()
                if board.can_redo:
                    board.redo()
                else:
                    board.push(move)  # (as auto-play plays a move that is the next to redo)
        else:
            legal = [m for m in whole.legal_moves if not m.is_choice] or list(whole.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            board.push(move)
            whole.push(move)
        save(any_store, game, board, "move")
        again = any_store.get(game.id)
        assert again.moves == [str(m) for m in whole.move_stack], step
        assert again.redo == [str(m) for m in whole.redo_stack], step
        assert again.status == whole.status.value
        replayed = reference(rules, deal, again)
        assert again.board().to_dict() == replayed.to_dict() == whole.to_dict()
        assert [str(m) for m in again.board().redo_stack] == [str(m) for m in whole.redo_stack]
    if isinstance(any_store, SqliteStore) and any_store.path is not None:
        fresh = SqliteStore(any_store.path)  # another process reads the rows and replays them
        assert fresh.get(game.id).moves == [str(m) for m in whole.move_stack]
        assert fresh.get(game.id).redo == [str(m) for m in whole.redo_stack]
        fresh.close()


def test_a_game_read_before_another_tabs_change_plays_on_without_a_replay(
    any_store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tabs read a long game; one plays a move (the store moves its
    whole board on). The other tab's request still gets its board without
    replaying the game (it replayed all 3,000 moves, on the server's event
    loop, before the change it asked for was refused as stale), shows the
    game as it read it, and its change is refused with a conflict."""
    from terrace.storage import ConflictError

    game_id = stored(any_store, 3_000)
    any_store.get(game_id)
    first, second = any_store.get(game_id), any_store.get(game_id)
    board = first.recent_board()
    undone = board.pop()
    first.sync(board)
    any_store.update(first, expected_revision=second.revision, action="undo")
    with monkeypatch.context() as patch:
        work = Work(patch, any_store)
        stale = second.recent_board()
        assert work.pushes == 0 and work.copied <= 32
    assert len(stale.move_stack) == 8 and stale.move_stack[-1] == undone
    stale.pop()
    second.sync(stale)
    with pytest.raises(ConflictError):
        any_store.update(second, expected_revision=first.revision - 1, action="undo")
    assert any_store.get(game_id).played_count() == 2_999 and any_store.get(game_id).redo == [str(undone)]


@pytest.mark.parametrize("edited", ["t9t9", 5, b"s"])
def test_a_move_edited_by_hand_in_a_remembered_long_game_is_found(
    tmp_path: Path, edited: object
) -> None:
    """A move row changed by hand (another notation, a number, a BLOB) in
    the middle of a game the server remembers: the store moves its whole
    board on to the line it reads again, the engine refuses the edited
    move, and the read says the game is damaged (never a crash, never the
    old board vouching for the new line); put back, the game reads and
    plays as before."""
    import sqlite3

    from terrace.storage import DamagedGameError

    store = open_store(tmp_path / "games.sqlite")
    game_id = stored(store, 300)
    before = store.get(game_id).moves
    with sqlite3.connect(tmp_path / "games.sqlite") as hand:
        hand.execute("UPDATE moves SET move = ? WHERE game_id = ? AND ply = 150", (edited, game_id))
    with pytest.raises(DamagedGameError):
        store.get(game_id)
    with sqlite3.connect(tmp_path / "games.sqlite") as hand:
        hand.execute("UPDATE moves SET move = ? WHERE game_id = ? AND ply = 150", (before[150], game_id))
    game = store.get(game_id)
    assert game.moves == before
    board = game.recent_board()
    board.pop()
    game.sync(board)
    store.update(game, expected_revision=game.revision, action="undo")
    assert store.get(game_id).redo == [before[-1]] and store.get(game_id).played_count() == 299
    store.close()


def test_two_clients_changing_one_long_game_at_once_store_one_consistent_line(tmp_path: Path) -> None:
    """Two clients send undos, redos and moves on one game at the same time
    (each from what it last saw): every change is either stored whole or
    refused as a conflict, and the line the server holds is the one a fresh
    process reads and replays from the file."""
    import threading

    store = open_store(tmp_path / "games.sqlite")
    game_id = stored(store, 500)
    app = create_app(store)
    outcomes: list[int] = []

    def client_work(seed: int) -> None:
        rng = random.Random(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(app, base_url=LOCAL)
        base = f"/api/games/{game_id}"
        shown = client.get(base).json()
        for _ in range(40):
            kind = rng.choice(["undo", "redo", "move"])
            body: dict[str, Any] = {"revision": shown["revision"]}
            if kind == "move":
                if not shown["legal_moves"]:
                    continue
                body["move"] = rng.choice(shown["legal_moves"])
            answer = client.post(base + ("/moves" if kind == "move" else f"/{kind}"), json=body)
            outcomes.append(answer.status_code)
            assert answer.status_code in (200, 409), answer.text
            shown = answer.json() if answer.status_code == 200 else client.get(base).json()

    threads = [threading.Thread(target=client_work, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 200 in outcomes
    held = store.get(game_id)
    fresh = SqliteStore(tmp_path / "games.sqlite")
    again = fresh.get(game_id)  # (read from the rows and replayed whole)
    assert (again.moves, again.redo, again.status, again.revision) == (
        held.moves, held.redo, held.status, held.revision)
    assert again.board().to_dict() == held.board().to_dict()
    fresh.close()
    store.close()


def restarted(client: TestClient, game_id: str) -> dict[str, Any]:
    """A restart, then a redo (the first move again): returns the answers."""
    base = f"/api/games/{game_id}"
    game = client.get(base).json()
    answers = {}
    for path in ("/restart", "/redo"):
        answer = client.post(base + path, json={"revision": game["revision"]})
        assert answer.status_code == 200, answer.text
        game = answers[path] = answer.json()
    return answers


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_restart_of_a_long_game_does_the_work_of_one_of_a_short_game(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart put every move of the line on the redo stack by replaying
    the whole game from the deal (every move played, then taken back):
    40,000 moves played at 20,000 moves, 0.5 to 0.8 s of a request at
    100,000 (the other requests took 1 to 3 ms). It now makes the board at
    the start from the remembered whole board's moves, playing none."""
    counts: dict[int, dict[str, Any]] = {}
    for length, store, game_id, answers in short_and_long(kind, tmp_path, monkeypatch, restarted, counts):
        line = [str(m) for m in long_line(RULES, DEAL, length)]
        start, again = answers["/restart"], answers["/redo"]
        assert (start["moves"], start["redo"], start["can_undo"]) == (0, length, False)
        assert start["can_redo"]
        assert (again["moves"], again["redo"], again["last_played"]) == (1, length - 1, line[0])
        game = store.get(game_id)
        assert game.moves == line[:1] and game.redo == line[1:][::-1]
        board = reference(Rules.from_dict({}, RULES), Deal.from_number(DEAL, RULES), game)
        assert game.board().to_dict() == board.to_dict()
        if isinstance(store, SqliteStore) and store.path is not None:
            with SqliteStore(store.path) as fresh:  # (as another process reads it)
                assert fresh.get(game_id).redo == line[1:][::-1]
    same_work(counts)
    assert counts[50]["pushes"] <= 2 and counts[50]["move rows read"] == 0, counts


@pytest.mark.parametrize("change", ["undo", "redo", "move", "move after undo", "restart"])
def test_a_game_read_just_before_another_tabs_change_gets_a_long_board_without_a_replay(
    any_store: GameStore, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """A hint (which gives its solver 2,000 moves of history each way) or
    the game to resume (``current``), read just before another tab
    changed the game: the game it read no longer fit the whole board the
    store had moved on, and its board was replayed from the deal (3,000
    moves here, 100,000 at most). Now the whole board is taken back to the
    line it read, in proportion to the change."""
    from terrace.solver.history import LOOKBACK

    game_id = stored(any_store, 3_000)
    tab = any_store.get(game_id)
    board = tab.recent_board()
    if change in ("redo", "move after undo"):  # (something to redo first)
        for _ in range(3):
            board.pop()
        tab.sync(board)
        any_store.update(tab, expected_revision=tab.revision, action="undo")
    read = any_store.get(game_id)  # (the hint's read)
    resumed = any_store.latest_unfinished()  # (current's)
    assert resumed is not None and resumed.revision == read.revision
    other = any_store.get(game_id)
    board = other.recent_board()
    if change == "undo":
        board.pop()
    elif change == "redo":
        board.redo()
    elif change == "restart":
        board = other.restart()
    else:
        if change == "move after undo":
            board.pop()
        board.push(next(m for m in board.legal_moves if not board.redo_stack or m != board.redo_stack[-1]))
    if change != "restart":
        other.sync(board)
    any_store.update(other, expected_revision=read.revision, action="move")
    whole = reference(Rules.from_dict({}, RULES), Deal.from_number(DEAL, RULES), read)
    for game, keep in ((read, LOOKBACK), (resumed, 8), (resumed, LOOKBACK)):
        with monkeypatch.context() as patch:
            work = Work(patch, any_store)
            got = game.recent_board(keep)
            changed = 3_000 if change == "restart" else 0  # (the restart changed every move)
            counts = work.counts()
            assert work.pushes <= changed + 8 and work.copied <= changed + 3 * (keep + 16), (keep, counts)
        assert got.to_dict() == whole.to_dict()
        played, redo = len(got.move_stack), len(got.redo_stack)
        assert played >= min(keep, len(whole.move_stack)) and redo == min(keep, len(whole.redo_stack))
        assert got.move_stack == whole.move_stack[len(whole.move_stack) - played:]
        assert got.redo_stack == whole.redo_stack[len(whole.redo_stack) - redo:]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_current_on_a_game_another_tab_changes_at_that_moment_replays_nothing(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GET /api/current-game`` read the game to resume, and another tab's
    undo was stored before it made its board: it replayed the whole game
    (3,000 moves here). It now takes the store's whole board back by the
    one move, and shows the game as it read it."""
    store = make_store(kind, tmp_path)
    game_id = stored(store, 3_000)
    client = client_of(store)
    shown = client.get(f"/api/games/{game_id}").json()
    real = store.latest_unfinished

    def then_another_tab() -> Any:
        game = real()
        other = store.get(game_id)
        board = other.recent_board()
        board.pop()
        other.sync(board)
        store.update(other, expected_revision=other.revision, action="undo")
        return game

    monkeypatch.setattr(store, "latest_unfinished", then_another_tab)
    with monkeypatch.context() as patch:
        work = Work(patch, store)
        answer = client.get("/api/current-game")  # (the page's read of the game to resume)
        assert work.pushes <= 8, work.counts()
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert (got["revision"], got["moves"], got["redo"], got["state"]) == (
        shown["revision"], 3_000, 0, shown["state"])


def test_a_write_by_another_connection_elsewhere_costs_no_reread_of_a_long_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another server (or the CLI) on the same file writes: a new game,
    playing time on another game, time on this one. The next read of a
    long game this store remembers reads none of its move rows again (it
    read all 20,000, 55 to 135 ms at 100,000 moves); a change to this
    game's line by another connection, even one that leaves its revision
    as it was (a hand edit), is still read."""
    import sqlite3

    path = tmp_path / "games.sqlite"
    store = open_store(path)
    game_id = stored(store, 20_000)
    store.get(game_id)
    other = open_store(path)
    other_id = stored(other, 10)
    other.add_active_time(other_id, 1_000)
    other.add_active_time(game_id, 1_000)
    with monkeypatch.context() as patch:
        work = Work(patch, store)
        game = store.get(game_id)
        assert work.counts()["move rows read"] == 0, work.sql
    assert game.active_ms == 1_000 and game.played_count() == 20_000
    # (a move row added by hand past the line, its revision left: read
    # again, and the move that does not replay found)
    from terrace.storage import DamagedGameError

    with sqlite3.connect(path) as hand:
        hand.execute("INSERT INTO moves (game_id, ply, move) VALUES (?, 20000, 't9t9')", (game_id,))
    with monkeypatch.context() as patch:
        work = Work(patch, store)
        with pytest.raises(DamagedGameError, match="t9t9"):
            store.get(game_id)
        assert work.counts()["move rows read"] == 1
    other.close()
    store.close()


def test_an_import_leaves_every_change_to_a_line_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import adds its move rows without the trigger that counts each
    (it made the import a third slower) and makes it again before its
    commit, also when it fails half-way: a move row added by hand after
    it is still seen by a store that remembers the game."""
    import json
    import sqlite3

    from terrace.storage import DamagedGameError, StoreError
    from terrace.storage import sqlite as sqlite_store
    from terrace.storage.transfer import export_record, read_games

    path = tmp_path / "games.sqlite"
    store = open_store(path)
    game_id = stored(store, 300)
    store.get(game_id)
    elsewhere = MemoryStore()
    text = json.dumps([export_record(elsewhere.get(stored(elsewhere, 300)))])
    other = open_store(path)

    def broken(*args: Any) -> Any:
        raise StoreError("the disk failed")

    with monkeypatch.context() as patch:
        patch.setattr(sqlite_store, "insert_game", broken)
        with pytest.raises(StoreError, match="the disk failed"):
            other.add_games(read_games(text))
    assert other.add_games(read_games(text))[0][1]
    with sqlite3.connect(path) as hand:
        triggers = {name for (name,) in hand.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        assert "moves_insert_counted" in triggers
        hand.execute("INSERT INTO moves (game_id, ply, move) VALUES (?, 300, 't9t9')", (game_id,))
    with pytest.raises(DamagedGameError, match="t9t9"):
        store.get(game_id)
    other.close()
    store.close()


def test_an_export_reads_a_long_log_of_undos_and_redos_once(tmp_path: Path) -> None:
    """An export looks for games where a move followed moves taken back
    (their lines off the line today go into saved.passed); it looked,
    for each undo, through the rest of the game's log: quadratic, 7 s of
    CPU for 20,000 events of undos and redos and no move. Counted in
    SQLite's steps: four times the log costs about four times as much."""
    steps = []
    for events in (2_000, 8_000):
        db = tmp_path / f"games-{events}.sqlite"
        with open_store(db) as store:
            game = start(store, golden("terrace-won"))
            play(store, game, golden("terrace-won").moves[:1])
        with sqlite3.connect(db) as conn:
            first = golden("terrace-won").moves[0]
            conn.executemany(
                "INSERT INTO events (game_id, revision, action, move, move_count, at) "
                "VALUES (?, 2, ?, ?, ?, 1e9)",
                [(game.id, "undo", first, 0) if i % 2 == 0 else (game.id, "redo", first, 1)
                 for i in range(events)])
        with open_store(db, read_only=True) as store:
            counted = [0]

            def step(counted: list[int] = counted) -> int:
                counted[0] += 1
                return 0

            store._conn.set_progress_handler(step, 100)
            store.export_games(None, lambda *_: None)
            steps.append(counted[0])
    assert steps[1] < 6 * steps[0], steps


def test_another_programs_import_has_a_remembered_line_read_again_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program's import makes the trigger that counts added move
    rows again (the file's layout changes), so a store that has the file
    open cannot tell whether a line changed uncounted meanwhile: the next
    read of each game it remembers reads the line again, once (one
    statement), and replays nothing; the reads after it read no move row,
    and a game it does not remember costs no more than before. Each import
    costs that once more."""
    import json

    from terrace.storage.transfer import export_record, read_games

    path = tmp_path / "games.sqlite"
    store = open_store(path)
    long_id, short_id = stored(store, 20_000), stored(store, 10)
    store.get(long_id)
    store.get(short_id)
    other = open_store(path)
    elsewhere = MemoryStore()
    for _ in range(2):
        text = json.dumps([export_record(elsewhere.get(stored(elsewhere, 30)))])
        assert other.add_games(read_games(text))[0][1]
        for game_id, reads in ((long_id, 1), (long_id, 0), (short_id, 1), (short_id, 0)):
            with monkeypatch.context() as patch:
                work = Work(patch, store)
                assert store.get(game_id).revision == 1
                assert work.counts()["move rows read"] == reads, work.sql
                assert work.counts()["pushes"] == 0
    with monkeypatch.context() as patch:
        work = Work(patch, store)
        assert store.statistics()["overall"]["played"] == 4
        other.add_active_time(long_id, 1_000)
        assert store.get(long_id).active_ms == 1_000
        # (the statistics read no line: the import kept each game's count of
        # changes to its moves, and the digest they give, on trust)
        assert work.counts()["move rows read"] == 0, work.sql
    other.close()
    store.close()


def _three_games_of_600_moves(writer: GameStore) -> tuple[Board, list[str]]:
    """Three games of one 600-move line stored by ``writer``: the line's
    board and the games' ids."""
    board = Board.from_number(DEAL, RULES)
    for move in long_line(RULES, DEAL, 600):
        board.push(move)
    made = []
    for _ in range(3):
        game = writer.create("terrace", RULES, Deal.from_number(DEAL, RULES))
        game.board()  # (the store's own board, moved on by sync)
        game.sync(board.copy())
        writer.update(game, expected_revision=game.revision, action="move")
        made.append(game.id)
    return board, made


def test_the_games_a_store_remembers_hold_so_many_moves_in_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each remembered game keeps a board of its whole history (about 22 MB
    at 100,000 moves): a server that had read 32 long games held some
    700 MB of them for good. The remembered games hold at most
    REMEMBERED_MOVES moves in all, the one read last always kept; a game
    forgotten is read and replayed again, the same."""
    from terrace.storage import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "REMEMBERED_MOVES", 1_000)
    path = tmp_path / "games.sqlite3"
    writer = open_store(path)
    board, made = _three_games_of_600_moves(writer)
    short = writer.create("terrace", RULES, Deal.from_number(DEAL, RULES)).id
    writer.close()
    store = open_store(path)
    assert isinstance(store, SqliteStore)
    for game_id in made:
        store.get(game_id).recent_board()
    assert list(store._remembered) == made[-1:]  # (600 and 600 moves are more than 1,000)
    store.get(short)
    assert list(store._remembered) == [made[-1], short]  # (600 and none fit)
    again = store.get(made[0])
    assert again.moves == [str(move) for move in board.move_stack]
    assert again.board().position() == board.position()
    assert list(store._remembered) == [short, made[0]]
    store.close()


def test_what_a_store_notes_of_its_remembered_games_goes_with_them(tmp_path: Path) -> None:
    """The count of line changes noted for each game read (and its mark
    of another connection's write) is forgotten with the game: a store that
    reads game after game keeps notes of REMEMBERED_GAMES of them."""
    from terrace.storage import sqlite as sqlite_store

    path = tmp_path / "games.sqlite3"
    with open_store(path) as writer:
        made = [writer.create("terrace", RULES, Deal.from_number(n, RULES)).id
                for n in range(sqlite_store.REMEMBERED_GAMES + 8)]
    with SqliteStore(path) as store:
        for game_id in made:
            store.get(game_id)
        assert list(store._remembered) == made[8:]
        assert set(store._line_marks) == set(made[8:])
        with open_store(path) as other:  # (another connection writes: every remembered game is unsure)
            game = other.get(made[-1])
            play(other, game, [str(next(iter(game.board().legal_moves)))])
        store.get(made[0])
        assert set(store._line_marks) == set(made[9:]) | {made[0]}
        assert not set(store._unsure) & set(made[:9])


def test_the_lines_a_listing_vouched_for_hold_so_many_moves_in_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A listing of recent games (the statistics dialog asks for 20) keeps
    each game's line its replay stamp vouched for, 6 MB at 100,000 moves,
    for the next read: 32 long games held some 190 MB. They hold at most
    REMEMBERED_MOVES moves in all too, the last one always kept."""
    from terrace.storage import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "REMEMBERED_MOVES", 1_000)
    path = tmp_path / "games.sqlite3"
    writer = open_store(path)
    board, _ = _three_games_of_600_moves(writer)
    writer.close()
    store = open_store(path)
    assert isinstance(store, SqliteStore)
    listed = store.recent(3)
    assert [game.moves for game in listed] == [[str(move) for move in board.move_stack]] * 3
    assert [len(kept[2]) for kept in store._vouched.values()] == [600]  # (all three before)
    store.close()
