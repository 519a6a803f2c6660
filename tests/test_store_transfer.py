"""Export and import against what is stored: an export never writes what
an import refuses, the statistics leave out what a read refuses, and an
import refuses what the game itself never lets happen."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import golden, no_default_db, play, start
from terrace.cli import main
from terrace.storage import StoreError, open_store
from terrace.storage.base import AHEAD, MAX_LINE, LogPlaces, check_saved
from terrace.storage.transfer import ImportRefusedError, export_record, read_games

_ = no_default_db


def _hand_edited(db: Path, edit: str) -> tuple[str, str]:
    """A database with a won game and one being played, then ``edit``
    (SQL with ``{won}`` and ``{playing}`` for their ids) applied by hand."""
    won_record, lost_record = golden("terrace-won"), golden("terrace-lost")
    with open_store(db) as store:
        won = start(store, won_record)
        play(store, won, won_record.moves)
        playing = start(store, lost_record)
        play(store, playing, lost_record.moves[:5])
    hand = sqlite3.connect(db)
    hand.execute("PRAGMA ignore_check_constraints = ON")
    hand.execute(edit.format(won=won.id, playing=playing.id))
    hand.commit()
    hand.close()
    return won.id, playing.id


EDITS = {
    "given up after a win": "UPDATE games SET given_up_at = 1796205000 WHERE id = '{won}'",
    "a time in 1e300": "UPDATE games SET updated_at = 1e300 WHERE id = '{playing}'",
    "an id of 1000 characters": "UPDATE games SET id = hex(randomblob(500)) WHERE id = '{playing}'",
    "hints beyond a million": "UPDATE games SET hints = 2000000 WHERE id = '{playing}'",
    "won but it is not": "UPDATE games SET status = 'won' WHERE id = '{playing}'",
    "won in one move": "UPDATE games SET won_at = 1796205000, won_moves = 1 WHERE id = '{playing}'",
    "a move that is not UTF-8": "UPDATE moves SET move = CAST(x'77ff66' AS TEXT) WHERE game_id = '{playing}'",
    "a variant stored as a BLOB": "UPDATE games SET variant = CAST(variant AS BLOB) WHERE id = '{playing}'",
}


@pytest.mark.parametrize("edit", list(EDITS.values()), ids=list(EDITS))
def test_an_export_never_writes_what_an_import_refuses(tmp_path: Path, edit: str) -> None:
    db = tmp_path / "games.sqlite"
    _hand_edited(db, edit)
    backup = tmp_path / "backup.json"
    exported = CliRunner().invoke(main, ["export", "--all", "--db", str(db), "-o", str(backup)])
    assert exported.exit_code == 0, exported.output
    assert "skipped: saved game" in exported.output and "wrote 1 game" in exported.output
    imported = CliRunner().invoke(main, ["import", "--db", str(tmp_path / "new.sqlite"), str(backup)])
    assert imported.exit_code == 0 and "imported 1 game" in imported.output, imported.output
    # The statistics leave out the game the export skipped, and count it.
    with open_store(db) as store:
        data = store.statistics()
    assert (data["overall"]["played"], data["damaged"]) == (1, 1)


def _unfinished(moves: int = 30, **saved: Any) -> dict[str, Any]:
    data = golden("terrace-lost").to_dict()
    data["moves"], data["result"] = data["moves"][:moves], "playing"
    data["saved"] = {"created_at": time.time() - 600, "updated_at": time.time() - 60, **saved}
    return data


def test_an_import_refuses_a_first_win_in_fewer_moves_than_any_win_takes() -> None:
    fake = _unfinished(won_at=time.time() - 60, won_moves=1, won_active_ms=1000)
    with pytest.raises(ImportRefusedError, match="won in 1 move, but a win of this deal takes at least 102"):
        read_games(json.dumps([fake]))
    # A win in as many moves as the line holds cannot be refuted: the
    # winning moves may have been taken back and replaced.
    [game] = read_games(json.dumps(_unfinished(won_at=time.time() - 60, won_moves=150)))
    assert game.won_moves == 150
    won = golden("terrace-won").to_dict()
    won["saved"] = {"won_at": time.time() - 60, "won_moves": 101}
    with pytest.raises(StoreError, match="at least 102"):
        read_games(json.dumps(won))


def test_an_import_refuses_times_ahead_of_the_clock() -> None:
    ahead = _unfinished()
    ahead["saved"].update(created_at=time.time() + 20 * 3600, updated_at=time.time() + 20 * 3600)
    with pytest.raises(ImportRefusedError, match=r"saved\.created_at must be .* to now \(at most 5 minutes"):
        read_games(json.dumps(ahead))
    # Another computer's clock may be a little ahead.
    [game] = read_games(json.dumps(_unfinished(updated_at=time.time() + 120)))
    assert game.updated_at > time.time()
    # ... by five minutes at most: not by ten.
    with pytest.raises(ImportRefusedError, match=r"saved\.updated_at must be .* to now \(at most 5 minutes"):
        read_games(json.dumps(_unfinished(updated_at=time.time() + 2 * AHEAD)))


def test_a_game_timed_ahead_of_the_clock_is_played_but_not_exported(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    edit = "UPDATE games SET updated_at = strftime('%s') + 3600 WHERE id = '{playing}'"
    won, playing = _hand_edited(db, edit)
    with open_store(db) as store:
        assert store.get(playing).moves  # it loads: a clock put back must not lock a game away
    exported = CliRunner().invoke(main, ["export", "--all", "--db", str(db)])
    assert exported.exit_code == 0
    assert f"skipped: game {playing} cannot be exported, an import would refuse it" in exported.stderr
    assert [record["saved"]["id"] for record in json.loads(exported.stdout)] == [won]


@pytest.mark.parametrize("times", ["none", "recent"])
def test_an_import_never_abandons_or_replaces_the_game_in_play(tmp_path: Path, times: str) -> None:
    record = golden("terrace-won")
    with open_store(tmp_path / "games.sqlite") as store:
        game = start(store, record)
        play(store, game, record.moves[:5])
        # A game from a record without times (timed as of the import), or
        # opened on another computer after the last move here.
        other = _unfinished(8)
        if times == "none":
            del other["saved"]
        else:
            other["saved"] = {"created_at": time.time(), "updated_at": time.time()}
        store.add_games(read_games(json.dumps(other)))
        overall = store.statistics()["overall"]
        assert (overall["played"], overall["unfinished"], overall["abandoned"]) == (2, 2, 0)
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == game.id
        # A new game opened here leaves both behind.
        fresh = start(store, golden("wood-lost"))
        overall = store.statistics()["overall"]
        assert (overall["unfinished"], overall["abandoned"]) == (0, 2)
        latest = store.latest_unfinished()
        assert latest is not None and latest.id == fresh.id


def _imported(name: str = "terrace-won", **saved: Any) -> Any:
    data = golden(name).to_dict()
    data["saved"] = saved
    [game] = read_games(json.dumps(data))
    return game


@pytest.mark.parametrize("key", ["created_at", "updated_at"])
def test_an_import_refuses_a_null_creation_or_change_time(key: str) -> None:
    """Those two are always set: null is refused with the reason (it once
    broke the import with a TypeError), while a missing key is timed as of
    the import."""
    with pytest.raises(ImportRefusedError, match=rf"saved\.{key} must be a time .* clock\), not null$"):
        _imported(**{key: None})
    game = _imported(finished_at=time.time() - 60)
    assert game.created_at == pytest.approx(time.time(), abs=60)


def test_a_won_record_that_says_nothing_of_its_win_is_won_at_its_finish() -> None:
    """So that taking moves back after the import keeps the win."""
    game = _imported(finished_at=time.time() - 60)
    assert game.won_at == game.finished_at and game.won_moves == len(game.moves)


def test_a_finished_record_without_its_finish_time_finished_at_its_last_change() -> None:
    """Not at the time of the import, which would put its finish after its
    last change; a record without either is timed as of the import."""
    changed = time.time() - 3600
    game = _imported("terrace-lost", created_at=changed - 600, updated_at=changed)
    assert game.finished_at == changed and game.updated_at == changed
    game = _imported("terrace-lost")
    assert game.finished_at == game.updated_at == pytest.approx(time.time(), abs=60)


def test_an_import_keeps_the_time_a_game_was_lost_when_it_is_given_up_later() -> None:
    lost_at = time.time() - 600
    game = _imported("terrace-lost", finished_at=lost_at, given_up_at=time.time() - 60)
    assert game.finished_at == lost_at and game.given_up_at is not None
    # Given up while being played, it finished when it was given up.
    data = _unfinished(given_up_at=time.time() - 30)
    [game] = read_games(json.dumps(data))
    assert game.finished_at == data["saved"]["given_up_at"]


def test_export_and_import_keep_the_first_win_and_its_playing_time() -> None:
    game = _imported(won_at=time.time() - 60, won_moves=150, won_active_ms=91_000, assisted=True)
    [again] = read_games(json.dumps(export_record(game)))
    assert (again.won_at, again.won_moves, again.won_active_ms, again.assisted) == (
        game.won_at, 150, 91_000, True)


@pytest.mark.parametrize("key", ["assisted", "winnable_only"])
def test_an_import_takes_only_true_or_false_for_a_flag(key: str) -> None:
    with pytest.raises(ImportRefusedError, match=f"saved.{key} must be true or false"):
        _imported(**{key: 1})


def test_check_saved_refuses_what_no_game_can_be() -> None:
    """Games made by hand (a store's write and every read check them so)."""
    won = _imported()
    won.won_at = won.won_moves = None
    won.given_up_at = time.time()  # won, even though it does not say when
    with pytest.raises(StoreError, match="a game that was won cannot have been given up"):
        check_saved(won)
    untimed = _imported()
    untimed.created_at = None
    with pytest.raises(StoreError, match=r"^created_at must be a time in .* 2100, not null$"):
        check_saved(untimed)
    long = _imported()
    long.redo = ["s"] * (MAX_LINE - len(long.moves) + 1)  # the line is the moves and the redo
    with pytest.raises(StoreError, match=f"redo and the moves hold more than {MAX_LINE:,} moves"):
        check_saved(long)
    long.redo.pop()
    with pytest.raises(StoreError, match="its moves do not replay"):  # (now it is only too long to replay)
        check_saved(long)


def test_an_export_too_large_to_import_indented_is_written_compactly_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every export imports: past the import's size limit the JSON loses
    its indentation, and when even that is too large nothing is written to
    standard output (a file is written in parts: test_export_parts)."""
    from terrace.cli import storage as cli_storage
    db = tmp_path / "games.sqlite"
    _hand_edited(db, "SELECT 1")
    backup = tmp_path / "backup.json"
    assert CliRunner().invoke(main, ["export", "--all", "--db", str(db), "-o", str(backup)]).exit_code == 0
    indented = backup.read_bytes()
    compact = len(json.dumps(json.loads(indented), separators=(",", ":"))) + 1
    assert compact < len(indented)
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", compact)
    exported = CliRunner().invoke(main, ["export", "--all", "--db", str(db), "-o", str(backup)])
    assert exported.exit_code == 0 and len(backup.read_bytes()) == compact
    assert json.loads(backup.read_bytes()) == json.loads(indented)
    imported = CliRunner().invoke(main, ["import", "--db", str(tmp_path / "new.sqlite"), str(backup)])
    assert imported.exit_code == 0 and "imported 2 games" in imported.output, imported.output
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", compact - 1)
    refused = CliRunner().invoke(main, ["export", "--all", "--db", str(db)])  # (to standard output: no parts)
    assert refused.exit_code == 1 and "more than an import reads" in refused.output
    assert "give --output FILE, a file, to write them in parts" in refused.output


@pytest.mark.parametrize("edit", ["UPDATE games SET id = CAST(x'7a7aff' AS TEXT) WHERE id = '{playing}'",
                                  "UPDATE games SET id = CAST(id AS BLOB) WHERE id = '{playing}'"])
def test_a_game_whose_id_is_damaged_is_left_out_and_counted(tmp_path: Path, edit: str) -> None:
    """An id with a byte that is not UTF-8 (read with U+FFFD, it finds
    nothing) or stored as a BLOB: export --all writes the other game, the
    statistics count it as damaged."""
    db = tmp_path / "games.sqlite"
    won, _ = _hand_edited(db, edit)
    backup = tmp_path / "backup.json"
    exported = CliRunner().invoke(main, ["export", "--all", "--db", str(db), "-o", str(backup)])
    assert exported.exit_code == 0 and "wrote 1 game" in exported.output, exported.output
    assert [record["saved"]["id"] for record in json.loads(backup.read_text())] == [won]
    with open_store(db, read_only=True) as store:
        stats = store.statistics()
        assert (stats["overall"]["played"], stats["damaged"]) == (1, 1)
        assert [game.id for game in store.recent()] == [won]



def test_an_import_holds_the_moves_of_its_games_not_their_boards(tmp_path: Path) -> None:
    """A 64 MB import of won games (24,000 of them) peaked at 1.9 GB of
    memory: the whole file was parsed at once, and every game kept the
    board its check had replayed, through the whole import. The records
    are now read one at a time and the boards let go (235 MB for that
    file). Measured here as the memory Python allocates for the import of
    100 won games (0.23 MB): 6.4 MB before, 0.6 MB now (300 games: 19 MB
    before, 1.9 MB now; tracemalloc makes each game cost ten times its
    CPU time)."""
    import tracemalloc

    record = json.loads(golden("terrace-won").to_json())
    made = time.time() - 86_400
    text = json.dumps([{**record, "saved": {"id": f"g{i}", "created_at": made - i}} for i in range(100)])
    with open_store(tmp_path / "games.sqlite") as store:
        tracemalloc.start()
        try:
            added = store.add_games(read_games(text))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert len(added) == 100
    assert peak < 3 * len(text) + 2 * 2**20, f"{peak / 2**20:.1f} MB for a file of {len(text) / 2**20:.1f} MB"


@pytest.mark.parametrize("where", ["record", "saved", "rules"])
def test_an_import_refuses_a_key_given_twice(tmp_path: Path, where: str) -> None:
    """A record with a key given twice imported the last of the two
    without a word (``"result": "lost", "result": "won"``)."""
    record = json.loads(golden("terrace-won").to_json())
    record["saved"] = {"id": "twice", "hints": 0}
    text = json.dumps([record], indent=1)
    key = {"record": '"result": "won"', "saved": '"hints": 0', "rules": '"decks": 2'}[where]
    assert key in text
    text = text.replace(key, f"{key}, {key}", 1)
    path = tmp_path / "twice.json"
    path.write_text(text)
    result = CliRunner().invoke(main, ["import", str(path), "--db", str(tmp_path / "games.sqlite")])
    assert result.exit_code == 1, result.output
    name = key.split(":")[0].strip('"')
    assert f"the key '{name}' is given twice in one object" in result.stderr, result.stderr
    assert not (tmp_path / "games.sqlite").exists()


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_an_import_refuses_a_number_json_has_not(tmp_path: Path, value: str) -> None:
    """``"active_ms": NaN`` reached the checks of the saved details as a
    float (Python's reader takes it); the file is refused as JSON."""
    record = json.loads(golden("terrace-won").to_json())
    record["saved"] = {"id": "nan", "active_ms": 1000}
    path = tmp_path / "nan.json"
    path.write_text(json.dumps([record]).replace('"active_ms": 1000', f'"active_ms": {value}'))
    result = CliRunner().invoke(main, ["import", str(path), "--db", str(tmp_path / "games.sqlite")])
    assert result.exit_code == 1, result.output
    said = f"the file cannot be read: {value} is no JSON number: give a number"
    assert said in result.stderr, result.stderr
    assert not (tmp_path / "games.sqlite").exists()


def test_an_export_holds_about_its_text_in_memory(tmp_path: Path) -> None:
    """``terrace export --all`` of 24,000 won games peaked at 1.1 GB:
    Python's indenting encoder kept every piece of the text at once, each
    record kept its own copies of its moves, and the text was encoded once
    more to measure it. Now 350 MB (the same file, byte for byte). Here:
    the memory Python allocates to export 100 won games (0.46 MB of JSON):
    5.8 MB before, 3.4 MB now, of which some 2.4 MB whatever the count
    (300 games: 14.3 MB before, 6.5 MB now)."""
    import tracemalloc

    record = json.loads(golden("terrace-won").to_json())
    made = time.time() - 86_400
    text = json.dumps([{**record, "saved": {"id": f"g{i}", "created_at": made - i}} for i in range(100)])
    with open_store(tmp_path / "games.sqlite") as store:
        store.add_games(read_games(text))
    out = tmp_path / "out.json"
    tracemalloc.start()
    try:
        result = CliRunner().invoke(main, ["export", "--all", "-o", str(out),
                                           "--db", str(tmp_path / "games.sqlite")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    size = out.stat().st_size
    written = out.read_text()
    assert written == json.dumps(json.loads(written), indent=2) + "\n"  # (indented as json.dumps does)
    assert peak < 5 * size + 2 * 2**20, f"{peak / 2**20:.1f} MB to export {size / 2**20:.1f} MB"


def test_a_file_of_too_many_records_is_refused_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read one record at a time, the refusal of too many records (a
    ValueError, as every refusal) was taken for a JSON error: "the file is
    not valid JSON: nothing was imported: ..."."""
    import terrace.storage.transfer as transfer

    monkeypatch.setattr(transfer, "MAX_RECORDS", 3)
    record = json.loads(golden("terrace-won").to_json())
    with pytest.raises(ImportRefusedError) as refused:
        read_games(json.dumps([record] * 4))
    assert refused.value.reasons == ["the file holds more than 3 records; at most 3 at once"]


@pytest.mark.parametrize("key", ["hint", "wonAt", "given_up", "revisions", ""])
def test_an_import_refuses_a_key_of_saved_it_does_not_know(key: str) -> None:
    """A ``saved`` key misspelt by hand ("hint" for "hints", "given_up"
    for "given_up_at") or one no export writes was passed over in silence:
    the game came in without what the file said. It is refused, naming the
    key and the keys there are."""
    with pytest.raises(ImportRefusedError, match=f"saved has no key {key!r}: its keys are id, created_at,"):
        _imported(**{key: 3})
    from terrace.storage.transfer import SAVED_KEYS

    game = _imported(id="g1", passed=[[3, "7f"]])
    exported = export_record(game, LogPlaces(1, 2, None, False, True))["saved"]
    assert tuple(exported) == SAVED_KEYS


@pytest.mark.parametrize("passed", [
    {}, [[1]], [[1, "7f", 2]], [["1", "7f"]], [[True, "7f"]], [[-1, "7f"]], [[100_001, "7f"]],
    [[1, 127]], [[1, "7F"]], [[1, "07f"]], [[1, ""]], [[1, "7" * 33]], [[1, format(2**127 - 1, "x")]],
    [[n, "1"] for n in range(1_001)],
])
def test_an_import_refuses_lines_passed_that_no_export_writes(passed: Any) -> None:
    """saved.passed (lines the game had played off its line, each its
    number of moves and Line digest in hex) is taken only as an export
    writes it: a shape, number, digest or length it never writes is
    refused with what it must be, never passed over."""
    with pytest.raises(ImportRefusedError, match=r"saved\.passed must be a list of at most 1,000 lines"):
        _imported(passed=passed)
    assert _imported(passed=[[2, "ab"], [1, "0"], [2, "ab"]]).passed == "1:0 2:ab"


@pytest.mark.parametrize("saved", [
    {"passed": [[n, "1"] for n in range(99_000, 100_000)]},
    {"hints": 1_000, "hinted": [f"p{n}" for n in range(1_000)]},
], ids=["passed", "hinted"])
def test_lines_passed_take_the_memory_of_their_text(saved: dict[str, Any]) -> None:
    """An import holds every game of the file at once; saved.passed kept
    as tuples took ten times its text (a 63 MB file of them peaked at
    715 MB, where the documented peak of a 64 MB file is about 240 MB);
    saved.hinted, as strings, short keys seven times. Thirty games show
    it as well as 300 did (0.9 and 1.2 times the text now, 7.4 and 8.1
    with the tuples or strings kept, at 30 as at 300 games) at a tenth of
    the time."""
    import tracemalloc

    record = golden("terrace-won").to_dict()
    record["saved"] = saved
    text = json.dumps([record] * 30, separators=(",", ":"))
    tracemalloc.start()
    try:
        games = read_games(text)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(games) == 30
    assert export_record(games[0])["saved"][list(saved)[-1]][:2] in ([[99_000, "1"], [99_001, "1"]],
                                                                      ["p0", "p1"])
    assert held < 2 * len(text), (held, len(text))


@pytest.mark.parametrize("hinted", [{}, "a", [1], [""], ["a" * 4097], [["a"]], ["a", "b", "c"], ["\ud800x"],
                                    ["a\nb"]])
def test_an_import_refuses_hinted_positions_that_no_export_writes(hinted: Any) -> None:
    """saved.hinted (the positions a hint was counted on) is taken only as
    an export writes it: position keys, at most as many as the hints
    counted (a position hinted without a hint counted would make a hint
    there free); given twice, a position is kept once."""
    with pytest.raises(ImportRefusedError, match=r"saved\.hinted (must be a list|holds 3 positions)"):
        _imported(hints=2, hinted=hinted)
    assert export_record(_imported(hints=2, hinted=["b", "a", "b"]))["saved"]["hinted"] == ["a", "b"]
    assert export_record(_imported(hints=2))["saved"]["hinted"] == []



@pytest.mark.parametrize("side", ["-wal", "-shm", "-journal"])
def test_an_export_never_writes_over_a_side_file_of_another_database(tmp_path: Path, side: str) -> None:
    """The log of another database (one a server is writing to, or the
    solver's verdict cache) holds its changes not yet in the file: an
    export written over other.sqlite-wal, then the writer killed, left
    other.sqlite with no game at all, where its game had 5 moves stored."""
    mine, other = tmp_path / "games.sqlite", tmp_path / "other.sqlite"
    with open_store(mine) as store:
        start(store, golden("terrace-won"))
    writer = open_store(other)  # (kept open: its moves stay in its log)
    try:
        record = golden("terrace-lost")
        play(writer, start(writer, record), record.moves[:5])
        target = Path(f"{other}{side}")
        if side == "-journal":  # (a rollback journal, as another program's database in that mode leaves it)
            target.write_bytes(bytes.fromhex("d9d505f920a163d7") + bytes(504))
        before = target.read_bytes()
        result = CliRunner().invoke(main, ["export", "--all", "--db", str(mine), "-o", str(target)])
        assert result.exit_code == 2, result.output
        assert "other.sqlite" in result.output and "write the records to another file" in result.output
        assert target.read_bytes() == before
    finally:
        writer.close()
    with open_store(other, read_only=True) as reopened:
        [game_id] = reopened.game_ids()
        assert reopened.get(game_id).played_count() == 5


def test_an_export_never_writes_over_a_log_left_without_its_database(tmp_path: Path) -> None:
    """A write-ahead log whose database was moved away still holds its
    changes (put back beside it, SQLite reads them): it is no file of
    records either."""
    mine, log = tmp_path / "games.sqlite", tmp_path / "elsewhere.sqlite-wal"
    with open_store(mine) as store:
        start(store, golden("terrace-won"))
    log.write_bytes(bytes.fromhex("377f0682002de218") + bytes(24))
    result = CliRunner().invoke(main, ["export", "--all", "--db", str(mine), "-o", str(log)])
    assert result.exit_code == 2, result.output
    assert log.read_bytes() == bytes.fromhex("377f0682002de218") + bytes(24)


def test_an_import_with_the_clock_at_1970_names_the_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every record was refused for a time "from 2000 to now (at most 5
    minutes ahead of this computer's clock)", as if the records were wrong:
    it is the clock (a computer started without one that keeps time)."""
    source = tmp_path / "source.sqlite"
    with open_store(source) as store:
        record = golden("terrace-won")
        play(store, start(store, record), record.moves[:3])
        start(store, golden("terrace-lost"))
    backup = tmp_path / "backup.json"
    exported = CliRunner().invoke(main, ["export", "--all", "--db", str(source), "-o", str(backup)])
    assert exported.exit_code == 0
    monkeypatch.setattr(time, "time", lambda: 100.0)
    db = tmp_path / "games.sqlite"
    result = CliRunner().invoke(main, ["import", str(backup), "--db", str(db)])
    assert result.exit_code == 1
    assert result.output == (
        "Error: nothing was imported:\n  the computer's clock says 1970-01-01 00:01 UTC, and a saved game "
        "holds times from 2000 to 2100 only: set the clock right, then import again\n")
    assert not db.exists()
    with pytest.raises(StoreError, match="the computer's clock says 1970-01-01 00:01 UTC"), \
            open_store(tmp_path / "other.sqlite") as store:
        monkeypatch.undo()
        games = read_games(backup.read_text())
        monkeypatch.setattr(time, "time", lambda: 100.0)
        store.add_games(games)


def test_an_export_with_the_clock_at_1970_leaves_the_last_backup_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every game's times lay "ahead of this computer's clock", so each was
    skipped and the backup written over with ``[]`` ("wrote 0 games",
    success): a daily backup run at a start without a clock that keeps
    time lost the last one."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        record = golden("terrace-won")
        play(store, start(store, record), record.moves[:3])
    backup = tmp_path / "backup.json"
    assert CliRunner().invoke(main, ["export", "--all", "--db", str(db), "-o", str(backup)]).exit_code == 0
    before = backup.read_bytes()
    monkeypatch.setattr(time, "time", lambda: 100.0)
    for command in (["--all"], ["--game", json.loads(before)[0]["saved"]["id"]]):
        result = CliRunner().invoke(main, ["export", *command, "--db", str(db), "-o", str(backup)])
        assert result.exit_code == 1
        assert result.output == (
            "Error: nothing was exported: the computer's clock says 1970-01-01 00:01 UTC, and a saved game "
            "holds times from 2000 to 2100 only: set the clock right, then export again\n")
        assert backup.read_bytes() == before


def test_an_export_over_an_old_file_named_like_a_side_file_of_no_database_is_written(tmp_path: Path) -> None:
    """notes-wal, an earlier export beside a file that is no database, is
    written over (a mutation audit refused every name ending -wal, -shm or
    -journal that had a file beside it, and no test failed)."""
    mine = tmp_path / "games.sqlite"
    with open_store(mine) as store:
        start(store, golden("terrace-won"))
    (tmp_path / "notes").write_text("[]\n")
    target = tmp_path / "notes-wal"
    target.write_text("[]\n")
    result = CliRunner().invoke(main, ["export", "--all", "--db", str(mine), "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert len(json.loads(target.read_text())) == 1


def test_an_export_exactly_as_large_as_an_import_reads_is_indented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indented records of exactly MAX_IMPORT_BYTES are written indented
    (a mutation audit wrote them compact, '<=' read as '<', and no test failed)."""
    from terrace.cli import storage as cli_storage

    db = tmp_path / "games.sqlite"
    _hand_edited(db, "SELECT 1")
    backup = tmp_path / "backup.json"
    assert CliRunner().invoke(main, ["export", "--all", "--db", str(db), "-o", str(backup)]).exit_code == 0
    indented = backup.read_bytes()
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", len(indented))
    again = CliRunner().invoke(main, ["export", "--all", "--db", str(db), "-o", str(backup)])
    assert again.exit_code == 0 and backup.read_bytes() == indented


@pytest.mark.parametrize("text", ["", " \n", "\n\t\r\n  "])
def test_an_import_of_nothing_but_white_space_is_empty(tmp_path: Path, text: str) -> None:
    """A file of white space only holds no records (a mutation audit said
    'not valid JSON: Expecting value' for it, and no test failed)."""
    source = tmp_path / "records.json"
    source.write_text(text)
    result = CliRunner().invoke(main, ["import", "--db", str(tmp_path / "new.sqlite"), str(source)])
    assert result.exit_code == 1, result.output
    assert f"nothing was imported: {source} is empty: it holds no game records" in result.output
    assert not (tmp_path / "new.sqlite").exists()


@pytest.mark.parametrize("bad", [8, 9, 10])
def test_an_import_refusal_shows_eight_reasons_and_counts_the_rest(tmp_path: Path, bad: int) -> None:
    """terrace import lists LISTED_REASONS reasons, then 'and N more' for
    any left, one too (a mutation audit left out 'and 1 more', no test failed)."""
    from terrace.cli.storage import LISTED_REASONS

    source = tmp_path / "records.json"
    source.write_text(json.dumps([{"not": "a record"}] * bad))
    result = CliRunner().invoke(main, ["import", "--db", str(tmp_path / "new.sqlite"), str(source)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Error: nothing was imported:"
    assert len(lines) == 1 + LISTED_REASONS + (bad > LISTED_REASONS)
    assert (lines[-1] == f"  and {bad - LISTED_REASONS} more") is (bad > LISTED_REASONS)
