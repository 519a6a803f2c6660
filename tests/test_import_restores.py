"""Backups restored one after another, and records of games changed by
hand: a newer state of a game replaces the older one here, whether its
moves were played on, taken back, or taken back and played otherwise,
and a game is recognised as the same game however its first win is
written."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import golden, no_default_db, play, play_otherwise, save, start, undo
from terrace.cli import main
from terrace.storage import StoredGame, open_store
from terrace.storage.line import Line
from terrace.storage.migrations import LATEST_VERSION

_ = no_default_db


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output + str(result.exception)
    return result.output


def _count_games(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])


def _two_games_played(tmp_path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> tuple[list[float], Path, StoredGame]:
    """A source database with two games of terrace-lost, 8 and 3 moves
    played, on a clock set a day back that moves 10 s a step (``clock[0]``,
    no longer in place of ``time.time`` on return): the clock, the file and
    the first game."""
    lost = golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    source = tmp_path / "source.sqlite"
    with open_store(source) as store:
        game = start(store, lost)
        clock[0] += 10
        play(store, game, lost.moves[:8])
        clock[0] += 10
        play(store, start(store, lost), lost.moves[:3])
        clock[0] += 10
    monkeypatch.undo()
    return clock, source, game



@pytest.mark.parametrize("between", ["undone", "undone-and-played-otherwise", "undone-redone"])
def test_a_newer_backup_restored_over_an_older_one_replaces_a_game_whose_moves_were_taken_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, between: str) -> None:
    """The older backup restored, then the newer: a game whose moves were
    taken back between the two backups no longer continued its older
    state (its moves did not go on from the older ones), so the newer
    state was added beside the older with a new id: two games where the
    player had one (played 2, the statistics of neither backup). A game
    not played here since it came in is now replaced by any later state of
    it that a backup restored over it holds; one played here, by a state
    whose line holds its moves (some of them to redo)."""
    lost = golden("terrace-lost")
    clock, source, game = _two_games_played(tmp_path, monkeypatch)
    older, newer = tmp_path / "older.json", tmp_path / "newer.json"
    _cli("export", "--all", "-o", str(older), "--db", str(source))
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(source) as store:
        game = store.get(game.id)
        board = undo(store, game, 4)
        clock[0] += 10
        if between == "undone-and-played-otherwise":
            play_otherwise(store, game, board, lost.moves[4])
        elif between == "undone-redone":
            board.redo()
            save(store, game, board, "redo")
        clock[0] += 10
    monkeypatch.undo()
    _cli("export", "--all", "-o", str(newer), "--db", str(source))
    wanted = _cli("stats", "--json", "--db", str(source))
    db = tmp_path / "restored.sqlite"
    _cli("import", str(older), "--db", str(db))
    _cli("import", str(newer), "--db", str(db))
    assert _count_games(db) == 2
    assert _cli("stats", "--json", "--db", str(db)) == wanted
    again = tmp_path / "again.json"
    _cli("export", "--all", "-o", str(again), "--db", str(db))
    assert again.read_bytes() == newer.read_bytes()
    if between != "undone-and-played-otherwise":  # (else the moves taken back are known nowhere here)
        assert _cli("import", str(older), "--db", str(db)) == "imported 0 games (2 already here)\n"


def test_a_game_carried_elsewhere_with_moves_taken_back_comes_back_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game exported, carried to another computer, some moves taken back
    there (still to redo) and brought back into a database of other games:
    it was added beside the copy here (two games for one); it now brings
    the copy here up to its state. A copy that was played here since, and
    a record that took moves back and played others, are both kept."""
    lost = golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    here, there = tmp_path / "here.sqlite", tmp_path / "there.sqlite"
    record, back = tmp_path / "game.json", tmp_path / "back.json"
    with open_store(here) as store:
        game = start(store, lost)
        clock[0] += 10
        play(store, game, lost.moves[:8])
        clock[0] += 10
        play(store, start(store, lost), lost.moves[:2])  # (a game of this database's own)
        clock[0] += 10
    monkeypatch.undo()
    _cli("export", "--game", game.id, "-o", str(record), "--db", str(here))
    _cli("import", str(record), "--db", str(there))
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(there) as store:
        undo(store, store.get(game.id), 3)
        clock[0] += 10
    monkeypatch.undo()
    _cli("export", "--game", game.id, "-o", str(back), "--db", str(there))
    assert _cli("import", str(back), "--db", str(here)) == "imported 0 games (1 brought up to date)\n"
    assert _count_games(here) == 2
    with open_store(here) as store:
        back_here = store.get(game.id)
        assert (back_here.moves, back_here.redo) == (list(lost.moves[:5]), list(lost.moves[7:4:-1]))
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(here) as store:  # (played here since: a record not holding its moves goes beside)
        undo(store, store.get(game.id), 1)
        clock[0] += 10
    with open_store(there) as store:
        played = store.get(game.id)
        play_otherwise(store, played, played.board(), lost.moves[5])
    monkeypatch.undo()
    _cli("export", "--game", game.id, "-o", str(back), "--db", str(there))
    said = _cli("import", str(back), "--db", str(here))  # (played in both places: kept beside, and said)
    assert said.startswith(f"imported 1 game\nnote: the record of game {game.id} is no state of it")
    assert _count_games(here) == 3


@pytest.mark.parametrize("edit", [
    "won_at = NULL, won_moves = NULL, won_active_ms = NULL",
    "won_at = NULL, won_moves = NULL, won_active_ms = NULL, finished_at = NULL",
])
def test_a_won_game_that_says_nothing_of_its_first_win_is_the_same_game_after_an_export(
        tmp_path: Path, edit: str) -> None:
    """A won game whose first win was wiped by hand (``won_at`` null) was
    exported with ``won_at`` null, which an import reads as won at its
    finish: imported again into its own database it was no longer the game
    there (another first win), and came in as a second won game (played 3,
    won 2). Every read now takes such a game as first won at its finish
    (else its last change) in its moves, as the statistics and an import
    do: the export says so, and the game is found here."""
    from store_support import quick_finish

    source, fresh = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    lost = golden("terrace-lost")
    with open_store(source) as store:
        quick_finish(store, "terrace-won")
        play(store, start(store, lost), lost.moves[:3])
    with sqlite3.connect(source) as conn:
        conn.execute(f"UPDATE games SET {edit} WHERE status = 'won'")
    conn.close()
    wanted = _cli("stats", "--json", "--db", str(source))
    _cli("export", "--all", "-o", str(backup), "--db", str(source))
    assert _cli("import", str(backup), "--db", str(source)) == "imported 0 games (2 already here)\n"
    assert _cli("stats", "--json", "--db", str(source)) == wanted
    assert _cli("import", str(backup), "--db", str(fresh)) == "imported 2 games\n"
    assert _cli("stats", "--json", "--db", str(fresh)) == wanted
    _cli("export", "--all", "-o", str(again), "--db", str(fresh))
    assert again.read_bytes() == backup.read_bytes()


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("variant", ["terrace", "wood"])
def test_a_redo_after_every_move_was_taken_back_keeps_the_moves_still_to_redo(
        tmp_path: Path, kind: str, variant: str) -> None:
    """Found by the restore fuzz: every move taken back, then one redone,
    each on the board of a game read from the store (as the web game plays
    it). The moves still to redo were read from the start of the line, not
    its end: the redone move was stored again in place of the next one to
    redo (Terrace's line c2 t7f became c2 c2), the game no longer
    replayed, every later read refused it as damaged and an export skipped
    it: the move t7f was lost."""
    from store_support import store_of_kind
    from terrace.deal import Deal
    from terrace.variants import get_rules

    rules = get_rules(variant)
    with store_of_kind(kind, tmp_path) as store:
        game = store.create(variant, rules, Deal.from_number(5, rules))
        board = game.board()
        for _ in range(3):  # (three different moves: a line of one move thrice hides the fault)
            board.push(next(m for m in sorted(board.legal_moves, key=str)
                            if str(m) not in map(str, board.move_stack)))
        line = [str(move) for move in board.move_stack]
        game.sync(board)
        store.update(game, expected_revision=game.revision, action="move")
        for _ in range(3):
            undo(store, store.get(game.id))
        for redone in range(1, 4):
            game = store.get(game.id)
            board = game.board()
            board.redo()
            save(store, game, board, "redo")
            assert (game.moves, game.redo) == (line[:redone], line[:redone - 1:-1])
        if kind == "sqlite":
            with open_store(tmp_path / "games.sqlite") as other:
                assert other.get(game.id).moves == line


@pytest.mark.parametrize("key", ["created_at", "updated_at", "started_at", "finished_at", "won_at",
                                 "given_up_at"])
def test_a_time_of_hundreds_of_digits_is_refused_as_a_time(tmp_path: Path, key: str) -> None:
    """A time written as a whole number of 400 digits (JSON allows it) was
    turned into a float unchecked: OverflowError, "internal error" and
    status 1 in place of the record's reason. It is refused as any time out
    of range is, and nothing is imported."""
    record = json.loads(golden("terrace-won").to_json())
    record["saved"] = {"id": "g1", "created_at": time.time() - 600, key: 10 ** 400}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(main, ["import", str(path), "--db", str(tmp_path / "games.sqlite")])
    assert result.exit_code == 1
    assert result.output == (f"Error: nothing was imported:\n  saved.{key} must be a time in seconds "
                             "since 1970 from 2000 to now (at most 5 minutes ahead of this computer's clock)"
                             f"{'' if key in ('created_at', 'updated_at') else ', or null'}, "
                             "not a number of about 401 digits\n")
    assert not (tmp_path / "games.sqlite").exists()


def test_an_export_never_replaces_a_file_its_user_may_not_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``export -o FILE`` over a file made read-only (chmod 444) in a
    folder its user may write: the record went to a new file renamed over
    it, which the folder allows, so the protected file was replaced where
    ``>`` or ``cp`` say "Permission denied". The test runs as root, for
    whom every file is writable: the check is made to see the file as a
    user without the right to write it sees it (``os.access``)."""
    from terrace.cli import output

    db = tmp_path / "games.sqlite"
    record = tmp_path / "won.json"
    record.write_text(golden("terrace-won").to_json())
    _cli("import", str(record), "--db", str(db))
    kept = tmp_path / "kept.json"
    kept.write_text("[]\n")
    kept.chmod(0o444)
    real_access = os.access
    monkeypatch.setattr(output.os, "access", lambda path, mode, **kw: (
        False if mode & os.W_OK and os.path.realpath(path) == str(kept) else real_access(path, mode, **kw)))
    result = CliRunner().invoke(main, ["export", "--all", "-o", str(kept), "--db", str(db)])
    assert (result.exit_code, result.output) == (1, f"Error: cannot write {kept}: Permission denied\n")
    assert kept.read_text() == "[]\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games.sqlite", "kept.json", "won.json"]


@pytest.mark.parametrize("version", range(1, LATEST_VERSION + 1))
def test_a_database_of_an_older_schema_exported_restores_as_it_was(tmp_path: Path, version: int) -> None:
    """A database of each older schema (a won game and one being played,
    written as version 1 wrote them: from schema 3 on, a won row without
    ``won_at``), exported (upgraded in memory only), imported into an empty
    database: the same statistics and, exported again, the same file;
    imported back into the old database (which upgrades it), it adds
    nothing (from schema 3 on the won game came back as a second one)."""
    from test_store_files import _old_database

    old, fresh = _old_database(tmp_path / "old.sqlite", version), tmp_path / "fresh.sqlite"
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    _cli("export", "--all", "-o", str(backup), "--db", str(old))
    wanted = _cli("stats", "--json", "--db", str(old))
    assert _cli("import", str(backup), "--db", str(fresh)) == "imported 2 games\n"
    assert _cli("stats", "--json", "--db", str(fresh)) == wanted
    _cli("export", "--all", "-o", str(again), "--db", str(fresh))
    assert again.read_bytes() == backup.read_bytes()
    assert _cli("import", str(backup), "--db", str(old)) == "imported 0 games (2 already here)\n"
    assert _cli("stats", "--json", "--db", str(old)) == wanted


def test_an_older_backup_adds_nothing_to_a_game_brought_up_to_a_record_s_state_since(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that came in by an import, backed up, moves taken back here,
    the game carried away, played on otherwise there and brought back (its
    state here replaced by the record's): the backup imported again added
    its state of the game as a second game (found by the restore fuzz),
    since the log of changes was read back only to that import, which logs
    no moves. It is now read back past such an import, to the moves the
    game had then (the change before it says how many). (A database that
    holds nothing but that game takes the record as a backup restored: its
    log is written anew, and such older states are known nowhere.)"""
    lost = golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    here, there = tmp_path / "here.sqlite", tmp_path / "there.sqlite"
    backup, carried, back = tmp_path / "backup.json", tmp_path / "carried.json", tmp_path / "back.json"
    first = tmp_path / "first.sqlite"  # (where the game was begun: it came here by an import)
    with open_store(first) as store:
        game = start(store, lost)
        clock[0] += 10
        play(store, game, lost.moves[:6])
        clock[0] += 10
    with open_store(here) as store:
        play(store, start(store, lost), lost.moves[:2])  # (a game of its own: the import is no restore)
        clock[0] += 10
    monkeypatch.undo()
    _cli("export", "--game", game.id, "-o", str(carried), "--db", str(first))
    _cli("import", str(carried), "--db", str(here))
    _cli("export", "--all", "-o", str(backup), "--db", str(here))
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(here) as store:
        undo(store, store.get(game.id), 2)
        clock[0] += 10
    monkeypatch.undo()
    _cli("export", "--game", game.id, "-o", str(carried), "--db", str(here))
    _cli("import", str(carried), "--db", str(there))
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(there) as store:
        played = store.get(game.id)
        play_otherwise(store, played, played.board(), lost.moves[4])
    monkeypatch.undo()
    _cli("export", "--game", game.id, "-o", str(back), "--db", str(there))
    assert _cli("import", str(back), "--db", str(here)) == "imported 0 games (1 brought up to date)\n"
    assert _count_games(here) == 2
    assert _cli("import", str(backup), "--db", str(here)) == "imported 0 games (2 already here)\n"
    assert _count_games(here) == 2


@pytest.mark.parametrize("order", ["older-then-newer", "newer-then-older"])
def test_backups_taken_across_a_clock_put_back_restore_the_newest_play_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str) -> None:
    """A game backed up, the computer's clock put back an hour (by hand, or
    NTP after a wrong start), two more moves played on it, backed up again:
    the newer backup's state of the game says it changed before the older
    one's. Restored older then newer, the newer state was taken for an
    older one and added beside (two games for one, the newest play not
    resumed); the newer restored first, the older then added its state
    beside. The order of two states of one game is now told by the
    count of its changes (its revision, which the backup carries), not by
    the clock: one game, in its newest state."""
    lost = golden("terrace-lost")
    clock, source, game = _two_games_played(tmp_path, monkeypatch)
    older, newer = tmp_path / "older.json", tmp_path / "newer.json"
    _cli("export", "--all", "-o", str(older), "--db", str(source))
    clock[0] -= 3_600  # (the clock put back)
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(source) as store:
        game = store.get(game.id)
        play(store, game, lost.moves[8:10])
        clock[0] += 10
    monkeypatch.undo()
    _cli("export", "--all", "-o", str(newer), "--db", str(source))
    db = tmp_path / "restored.sqlite"
    files = [older, newer] if order == "older-then-newer" else [newer, older]
    for file in files:
        _cli("import", str(file), "--db", str(db))
    assert _count_games(db) == 2
    with open_store(db) as store:
        assert store.get(game.id).moves == list(lost.moves[:10])
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == game.id
    assert _cli("import", str(older), "--db", str(db)) == "imported 0 games (2 already here)\n"
    assert _cli("import", str(newer), "--db", str(db)) == "imported 0 games (2 already here)\n"


def _backups_across_moves_taken_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     ) -> tuple[dict[str, Path], StoredGame]:
    """Two backups of one database (files "older" and "newer"): between
    them 4 of the 8 moves of its first game were taken back and another
    played (its second game has 3 moves in both); with that game as the
    newer backup has it."""
    lost = golden("terrace-lost")
    clock, source, game = _two_games_played(tmp_path, monkeypatch)
    files = {"older": tmp_path / "older.json", "newer": tmp_path / "newer.json"}
    _cli("export", "--all", "-o", str(files["older"]), "--db", str(source))
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(source) as store:
        board = undo(store, store.get(game.id), 4)
        clock[0] += 10
        game = store.get(game.id)
        play_otherwise(store, game, board, lost.moves[4])
        clock[0] += 10
    monkeypatch.undo()
    _cli("export", "--all", "-o", str(files["newer"]), "--db", str(source))
    return files, game


@pytest.mark.parametrize("order", [("older", "newer"), ("newer", "older")])
def test_both_backups_of_a_game_in_one_file_are_one_game_in_either_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: tuple[str, str]) -> None:
    """The records of two backups put in one file, the older first: its
    state came in, and the newer one (4 of its moves taken back and
    another played since) went beside it as a second game, with a note,
    though its saved.passed says it played exactly those moves before
    (imported from two files one after the other, it replaced it). A
    record whose lines passed hold the stored game's moves continues it;
    the newer first, the older is found already here, as it was."""
    files, game = _backups_across_moves_taken_back(tmp_path, monkeypatch)
    both = tmp_path / "both.json"
    both.write_text(json.dumps([record for name in order for record in json.loads(files[name].read_text())]))
    db = tmp_path / "games.sqlite"
    result = CliRunner().invoke(main, ["import", str(both), "--db", str(db)])
    assert (result.exit_code, result.output) == (0, "imported 2 games\n")
    assert _count_games(db) == 2
    with open_store(db) as store:
        assert store.get(game.id).moves == game.moves
    memory = CliRunner().invoke(main, ["import", str(both), "--db", ":memory:"])
    assert memory.output.startswith("checked 2 games; none was kept")


@pytest.mark.parametrize("restored", [["newer"], ["older", "newer"]])
def test_an_older_backup_imported_after_a_newer_restore_adds_no_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restored: list[str]) -> None:
    """The newer backup restored (after the older, or alone), then the
    older imported: its state of a game whose moves were taken back and
    others played between the two backups was added beside the game here
    (two games where the player had one; since schema 9 with a note, when
    the newer backup alone was restored, for a backup carries no log). A
    backup now gives the lines each game had played off its line today
    (saved.passed), from its log and the table passed: the older state is
    known as this game's, nothing is added, and the game here stays the
    game in play. (A state that truly diverged still goes beside, with the
    note: test_a_game_carried_elsewhere_with_moves_taken_back_comes_back_in_place.)"""
    lost = golden("terrace-lost")
    files, game = _backups_across_moves_taken_back(tmp_path, monkeypatch)
    db = tmp_path / "restored.sqlite"
    for name in restored:
        _cli("import", str(files[name]), "--db", str(db))
    result = CliRunner().invoke(main, ["import", str(files["older"]), "--db", str(db)])
    assert result.exit_code == 0, result.output
    with open_store(db) as store:
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == game.id and latest.moves == game.moves
    assert result.output == "imported 0 games (2 already here)\n"
    assert _count_games(db) == 2
    again = tmp_path / "again.json"
    _cli("export", "--all", "-o", str(again), "--db", str(db))
    newer = json.loads(files["newer"].read_text())
    assert [record["saved"].get("passed") for record in newer] == [
        [[n, format(Line.of(lost.moves[:n]).digest(), "x")] for n in (5, 6, 7, 8)], None]
    if restored == ["newer"]:  # (a backup restored gives them on: the same file again)
        assert again.read_text() == files["newer"].read_text()


def test_lines_passed_edited_by_hand_are_left_out_of_an_export(tmp_path: Path) -> None:
    """A row of the table passed edited by hand (a count of moves below
    0, a digest that is not one) went into saved.passed as it was, and
    the import then refused the whole backup: an export writes only what
    an import takes."""
    lost = golden("terrace-lost")
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        game = start(store, lost)
        play(store, game, lost.moves[:3])
    with sqlite3.connect(db) as conn:
        conn.executemany("INSERT INTO passed (game_id, moves, digest) VALUES (?, ?, ?)",
                         [(game.id, -1, "7f"), (game.id, 2, "XYZ"), (game.id, 2, "07f"), (game.id, 5, "7f")])
    backup = tmp_path / "backup.json"
    _cli("export", "--all", "-o", str(backup), "--db", str(db))
    [record] = json.loads(backup.read_text())
    assert record["saved"]["passed"] == [[5, "7f"]]
    assert _cli("import", str(backup), "--db", str(tmp_path / "restored.sqlite")) == "imported 1 game\n"


@pytest.mark.parametrize("into", ["empty", "own-games", "older-state"])
def test_a_restored_game_counts_no_second_hint_on_a_position_hinted_before(
        tmp_path: Path, into: str) -> None:
    """The positions a hint was counted on were not in an export: restored
    into a fresh database, a game counted a hint again on a position it
    had one for (hints 2 where the original stays at 1). They now travel
    as ``saved.hinted``, into an empty database, one with games of its
    own, or over an older state of the game (continued in place); the
    restore exported again is the same file, and an export written before
    (no ``hinted``) still imports."""
    lost = golden("terrace-lost")
    source, target = tmp_path / "source.sqlite", tmp_path / "target.sqlite"
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    with open_store(source) as store:
        game = start(store, lost)
        first = play(store, game, lost.moves[:2]).position()
        if into == "older-state":
            _cli("export", "--all", "-o", str(tmp_path / "older.json"), "--db", str(source))
        second = play(store, store.get(game.id), lost.moves[2:4]).position()
        assert store.count_hint(game.id, first) and store.count_hint(game.id, second)
        assert not store.count_hint(game.id, first)
    _cli("export", "--all", "-o", str(backup), "--db", str(source))
    assert json.loads(backup.read_text())[0]["saved"]["hinted"] == sorted([first, second])
    if into == "own-games":
        with open_store(target) as store:
            play(store, start(store, lost), lost.moves[:1])
    if into == "older-state":
        assert _cli("import", str(tmp_path / "older.json"), "--db", str(target)) == "imported 1 game\n"
    said = "imported 0 games (1 brought up to date)\n" if into == "older-state" else "imported 1 game\n"
    assert _cli("import", str(backup), "--db", str(target)) == said
    with open_store(target) as store:
        assert not store.count_hint(game.id, first)
        assert not store.count_hint(game.id, second)
        assert store.get(game.id).hints == 2
    if into == "empty":
        _cli("export", "--all", "-o", str(again), "--db", str(target))
        assert again.read_bytes() == backup.read_bytes()
    old = json.loads(backup.read_text())
    del old[0]["saved"]["hinted"]
    backup.write_text(json.dumps(old))
    assert _cli("import", str(backup), "--db", str(tmp_path / "old.sqlite")) == "imported 1 game\n"


def test_a_game_brought_up_to_date_by_an_import_is_no_game_played_here(tmp_path: Path) -> None:
    """A game played here, carried elsewhere and played on there, then
    left here for a new game: importing its later state brought it up to
    date in place and logged that as a change made here, so the import
    made it the game in play (the page resumed it, not the game being
    played) and took its abandonment back (abandoned 1 -> 0, the losing
    streak 1 -> 0). Such an import is now logged as ``join``, no change
    made here: what is in play and the statistics stay as they were; a
    backup of the database restores them as they are."""
    lost, won = golden("terrace-lost"), golden("terrace-won")
    here, there = tmp_path / "here.sqlite", tmp_path / "there.sqlite"
    carried, back, backup = tmp_path / "carried.json", tmp_path / "back.json", tmp_path / "backup.json"
    with open_store(here) as store:
        game = start(store, lost)
        play(store, game, lost.moves[:3])
    _cli("export", "--all", "-o", str(carried), "--db", str(here))
    _cli("import", str(carried), "--db", str(there))
    with open_store(there) as store:
        play(store, store.get(game.id), lost.moves[3:6])
    _cli("export", "--all", "-o", str(back), "--db", str(there))
    with open_store(here) as store:
        newer = start(store, won)
        play(store, newer, won.moves[:2])
    before = json.loads(_cli("stats", "--json", "--db", str(here)))
    assert (before["overall"]["abandoned"], before["overall"]["current_losing_streak"]) == (1, 1)
    # (and says so: it used to say "imported 1 game", as if one came in beside)
    assert _cli("import", str(back), "--db", str(here)) == "imported 0 games (1 brought up to date)\n"
    with open_store(here) as store:
        assert store.get(game.id).played_count() == 6
        assert [event["action"] for event in store.history(game.id)][-1] == "join"
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == newer.id
    after = json.loads(_cli("stats", "--json", "--db", str(here)))
    for key in ("played", "abandoned", "unfinished", "current_losing_streak", "win_rate"):
        assert after["overall"][key] == before["overall"][key], key
    _cli("export", "--all", "-o", str(backup), "--db", str(here))
    restored = tmp_path / "restored.sqlite"
    _cli("import", str(backup), "--db", str(restored))
    assert _cli("stats", "--json", "--db", str(restored)) == _cli("stats", "--json", "--db", str(here))
    with open_store(restored) as store:
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == newer.id


def test_hints_asked_here_and_where_a_game_was_carried_are_all_counted_when_it_comes_back(
        tmp_path: Path) -> None:
    """A hint asked here after the game was carried away (position A),
    and one asked where it was played on (position B): brought back, the
    record's count (1) replaced the count here (1), though two positions
    were hinted, one hint each; its export then held only one of them, so
    that a restored game counted a hint again on the other. The count is
    now at least the positions hinted here or there."""
    lost = golden("terrace-lost")
    here, there = tmp_path / "here.sqlite", tmp_path / "there.sqlite"
    carried, back, backup = tmp_path / "carried.json", tmp_path / "back.json", tmp_path / "backup.json"
    with open_store(here) as store:
        game = start(store, lost)
        first = play(store, game, lost.moves[:2]).position()
    _cli("export", "--all", "-o", str(carried), "--db", str(here))
    with open_store(here) as store:
        assert store.count_hint(game.id, first)
    _cli("import", str(carried), "--db", str(there))
    with open_store(there) as store:
        second = play(store, store.get(game.id), lost.moves[2:4]).position()
        assert store.count_hint(game.id, second)
    _cli("export", "--all", "-o", str(back), "--db", str(there))
    assert _cli("import", str(back), "--db", str(here)) == "imported 0 games (1 brought up to date)\n"
    with open_store(here) as store:
        assert store.get(game.id).hints == 2
        assert not store.count_hint(game.id, first) and not store.count_hint(game.id, second)
    _cli("export", "--all", "-o", str(backup), "--db", str(here))
    assert json.loads(backup.read_text())[0]["saved"]["hinted"] == sorted([first, second])
    restored = tmp_path / "restored.sqlite"
    _cli("import", str(backup), "--db", str(restored))
    with open_store(restored) as store:
        assert not store.count_hint(game.id, first) and not store.count_hint(game.id, second)
