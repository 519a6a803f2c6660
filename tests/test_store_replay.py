"""StoredGame remembers its replay, but never past a change of its moves;
a move on a long game costs what it costs on a short one."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from store_support import count_pushes, golden, no_default_db, save
from terrace.board import Board
from terrace.deal import Deal
from terrace.errors import IllegalMoveError
from terrace.record import GameRecord
from terrace.storage import MemoryStore, SqliteStore, open_store
from terrace.variants import get_rules

_ = no_default_db


def test_board_after_sync_equals_a_fresh_replay_and_is_independent() -> None:
    rules = get_rules("terrace")
    game = MemoryStore().create("terrace", rules, Deal.from_number(5, rules))
    board = game.board()
    for text in ("c1", "s", "s"):
        board.push_text(text)
    board.pop()
    game.sync(board)
    cached = game.board()
    assert cached == board and cached.redo_stack == board.redo_stack
    cached.push_text("s")  # changing the copy leaves the remembered board alone
    assert game.board() == board


def test_changed_moves_are_replayed_and_checked_again() -> None:
    rules = get_rules("terrace")
    game = MemoryStore().create("terrace", rules, Deal.from_number(5, rules))
    board = game.board()
    board.push_text("c1")
    game.sync(board)
    game.moves = ["c1", "c2"]
    with pytest.raises(IllegalMoveError):
        game.board()


@pytest.fixture
def long_game(tmp_path: Path) -> Iterator[tuple[SqliteStore, str, GameRecord]]:
    """A stored game of 1,100 moves, read once by the store (as a server
    has read a game before its next move)."""
    record = golden("falling-star-won")
    game = MemoryStore().create(record.variant, record.rules, record.deal)
    board = game.board()
    for move in record.moves[:1100]:
        board.push_text(move)
    game.sync(board)
    with open_store(tmp_path / "games.sqlite") as store:
        [(game_id, _)] = store.add_games([game])
        store.get(game_id)
        yield store, game_id, record


def watch(store: SqliteStore, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[int]]:
    """The SQL the store runs and the number of moves the engine plays."""
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    return statements, count_pushes(monkeypatch)


def test_a_move_on_a_long_game_is_checked_on_its_board_and_stored_as_one_row(
    long_game: tuple[SqliteStore, str, GameRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, game_id, record = long_game
    statements, pushes = watch(store, monkeypatch)
    for move in record.moves[1100:1103]:  # a move request: load, play, store
        game = store.get(game_id)
        board = game.board()
        board.push_text(move)
        save(store, game, board, "move")
    assert pushes[0] == 3  # the three moves played, no replay
    assert not any("FROM moves" in sql for sql in statements)
    # (SQLite traces the statements of a trigger with the text of the
    # statement that fired it: each is counted once)
    run = [sql for i, sql in enumerate(statements) if i == 0 or sql != statements[i - 1]]
    assert sum(sql.startswith("INSERT INTO moves") for sql in run) == 3
    assert not any(sql.startswith("DELETE FROM moves") for sql in statements)
    store._conn.set_trace_callback(None)
    fresh = SqliteStore(store.path or "")  # another process replays it whole and agrees
    assert fresh.get(game_id).moves == list(record.moves[:1103])
    fresh.close()


def test_undo_and_redo_on_a_long_game_touch_no_move_row(
    long_game: tuple[SqliteStore, str, GameRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, game_id, record = long_game
    statements, pushes = watch(store, monkeypatch)
    game = store.get(game_id)
    board = game.board()
    board.pop()
    game.sync(board)
    game.undos += 1
    store.update(game, expected_revision=game.revision, action="undo")
    game = store.get(game_id)
    board = game.board()
    board.redo()
    game.sync(board)
    store.update(game, expected_revision=game.revision, action="redo")
    assert pushes[0] == 1  # the redo
    touched = [sql for sql in statements if "INTO moves" in sql or "FROM moves" in sql]
    assert touched == []
    assert store.get(game_id).moves == list(record.moves[:1100])


def test_a_move_on_a_long_game_copies_its_history_twice_not_four_times(
    long_game: tuple[SqliteStore, str, GameRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy of a board copies its history (a millisecond at 100,000
    moves): the board the request plays on and the one the game remembers
    are copies; the checks before a read and a write ask the remembered
    board's status, which needs none (they took two copies more)."""
    store, game_id, record = long_game
    copies = [0]
    real_copy = Board.copy

    def counted(board: Board, *, stack: bool = True, keep: int | None = None) -> Board:
        if keep is not None:
            return real_copy(board, stack=stack, keep=keep)
        copies[0] += stack
        return real_copy(board, stack=stack)

    monkeypatch.setattr(Board, "copy", counted)
    for move in record.moves[1100:1103]:
        game = store.get(game_id)
        board = game.board()
        board.push_text(move)
        save(store, game, board, "move")
    assert copies[0] == 2 * 3
    copies[0] = 0
    store.get(game_id).board()  # (a request that only reads)
    assert copies[0] == 1
