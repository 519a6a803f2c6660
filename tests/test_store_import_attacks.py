"""Import and export under attack: the same game found however its deal is
spelled, each game replayed once, adversarial files of one game's states
kept near linear or refused, and the log's order kept through an export."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import golden, no_default_db
from terrace.cli import main
from terrace.storage.transfer import ImportRefusedError, export_record, read_games

_ = no_default_db


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _won_record(game_id: str, created_at: float) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(golden("terrace-won").to_json())
    record["saved"] = {"id": game_id, "created_at": created_at, "updated_at": created_at + 600}
    return record


def _count_games(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])


@pytest.mark.parametrize("spelling", ["lower(deal)", "replace(deal, ' ', '  ')", "' ' || deal || char(10)"])
def test_a_stored_deal_spelled_otherwise_is_the_same_deal(tmp_path: Path, spelling: str) -> None:
    """A stored game whose deal string was written in another spelling
    (edited by hand, or by another tool: other spacing or case) still
    loads as the same deal, but an import compared deal strings as text:
    the record's game was not found, and a second copy was added (the
    statistics then counted two wins)."""
    db, backup = tmp_path / "games.sqlite", tmp_path / "backup.json"
    backup.write_text(json.dumps(_won_record("g1", time.time() - 86_400)))
    assert _cli("import", str(backup), "--db", str(db)).output == "imported 1 game\n"
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE games SET deal = {spelling}")
    result = _cli("import", str(backup), "--db", str(db))
    assert result.output == "imported 0 games (1 already here)\n", result.output + str(result.exception)
    assert _count_games(db) == 1


def test_a_record_without_its_creation_time_is_found_again_by_its_id(tmp_path: Path) -> None:
    """A record whose ``saved`` gives an id but no ``created_at`` (written
    by hand or by another tool) took the import's time as its creation:
    each import of the same file added the game again, beside the first,
    with a note that the database held no state of it (the statistics
    then counted another win at every import). Now it takes the creation
    time of the game of its id when that game has its variant, rules and
    deal; another deal under that id still goes beside it."""
    db, record_file = tmp_path / "games.sqlite", tmp_path / "record.json"
    record = _won_record("g1", 0.0)
    del record["saved"]["created_at"], record["saved"]["updated_at"]
    record_file.write_text(json.dumps(record))
    assert _cli("import", str(record_file), "--db", str(db)).output == "imported 1 game\n"
    for _ in range(2):
        again = _cli("import", str(record_file), "--db", str(db))
        assert again.output == "imported 0 games (1 already here)\n", again.output + str(again.exception)
    assert _count_games(db) == 1
    other: dict[str, Any] = json.loads(golden("terrace-lost").to_json())
    other["saved"] = {"id": "g1"}
    record_file.write_text(json.dumps(other))
    beside = _cli("import", str(record_file), "--db", str(db))
    assert "imported 1 game" in beside.output and "added beside it" in beside.output, beside.output
    assert _count_games(db) == 2


def _calls(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Count the calls of ``owner.name`` from now on (``[count]``)."""
    counted = [0]
    wrapped = getattr(owner, name)

    def counting(*args: Any) -> Any:
        counted[0] += 1
        return wrapped(*args)

    monkeypatch.setattr(owner, name, counting)
    return counted


def _pushes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the moves the engine plays from now on (``[count]``)."""
    from terrace.board import Board

    return _calls(monkeypatch, Board, "push")


def test_an_import_replays_each_game_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The import replayed every game three times: the record's check,
    the check of its ``saved`` details, and the store's check before the
    write (24,000 won games took minutes). The record's replay is now the
    only one: its board serves the second check, and what it proved serves
    the third once the board is let go. A record with moves to redo has
    them played once more, on the same board."""
    made = time.time() - 86_400
    records = [_won_record(f"g{i}", made - i) for i in range(20)]
    undone = json.loads(golden("terrace-lost").to_json())
    undone["moves"], redo = undone["moves"][:-3], undone["moves"][-3:]
    undone["result"] = "playing"
    undone["saved"] = {"id": "undone", "created_at": made, "updated_at": made + 5, "redo": redo[::-1]}
    records.append(undone)
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    moves = sum(len(record["moves"]) for record in records) + len(redo)
    pushed = _pushes(monkeypatch)
    result = _cli("import", str(path), "--db", str(tmp_path / "games.sqlite"))
    assert result.output == "imported 21 games\n", result.output + str(result.exception)
    assert pushed[0] == moves, (pushed[0], moves)  # (it was three times as many)


def test_a_game_changed_after_its_check_is_checked_again(tmp_path: Path) -> None:
    """What a record's replay proved holds only while the game is the one
    replayed: a game whose line is changed between the read and the store
    is replayed again, and refused."""
    from terrace.storage import StoreError, open_store
    from terrace.storage.transfer import read_games

    games = read_games(json.dumps([_won_record("g1", time.time() - 86_400)]))
    games[0].moves.pop()  # (still says "won")
    with open_store(tmp_path / "games.sqlite") as store, pytest.raises(StoreError, match="lead to"):
        store.add_games(games)


def _states_of_one_game(count: int, made: float) -> list[dict[str, Any]]:
    """``count`` records of one game (one deal, one creation time, no
    move), none holding another: hints and undos pull apart, given from
    the middle out, so that each record is no lower than half of those
    before it on each count, and holds none of them."""
    record: dict[str, Any] = json.loads(golden("terrace-won").to_json())
    record.update(moves=[], result="choosing")
    records = []
    low, high = 0, count
    for index in range(count):
        hints = low if index % 2 == 0 else high
        low, high = (low + 1, high) if index % 2 == 0 else (low, high - 1)
        records.append({**record, "saved": {"created_at": made, "updated_at": made + 60,
                                            "hints": hints, "undos": count - hints}})
    return records


def test_a_file_of_many_states_of_one_game_is_refused_within_its_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records of one game whose counts pull apart defeat the import's
    index (each is no lower than half of the games before it on every
    count, and held by none): each was compared with half of those before
    it, 1,000,000 comparisons for 2,000 records, 25,000,000,000 for a file
    of 100,000 (hours). The import now stops at its budget of comparisons
    (64 a record) with a refusal that says why, and changes nothing."""
    from terrace.storage import merging

    compared = _calls(monkeypatch, merging, "_may_hold")
    db, path = tmp_path / "games.sqlite", tmp_path / "states.json"
    before = _won_record("kept", time.time() - 86_400)
    (tmp_path / "one.json").write_text(json.dumps(before))
    assert _cli("import", str(tmp_path / "one.json"), "--db", str(db)).exit_code == 0
    image = db.read_bytes()
    path.write_text(json.dumps(_states_of_one_game(2_000, time.time() - 3_600)))
    compared[0] = 0
    result = _cli("import", str(path), "--db", str(db))
    assert result.exit_code == 1, result.output
    assert "the file holds too many different states of one game" in result.output, result.output
    assert "(at most 64 a record)" in result.output
    assert compared[0] <= 64 * 2_000 + 10_000, compared[0]  # (it was 1,000,000, and then imported)
    assert db.read_bytes() == image and _count_games(db) == 1


def test_a_backup_restored_keeps_the_order_of_the_log_and_the_statistics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The statistics follow the store's log of changes (a clock put back
    does not reorder results), but the export listed games by creation
    time and the import counted them by their times: restored into a new
    database, a backup gave other streaks (the worst losing streak 2 read
    1), another game abandoned (the game in play, and the one really left
    counted in play), and another order. A backup restored into an empty
    database now keeps its games' places in the log (``saved.log``): the
    same statistics byte for byte, the same order, and exported again the
    same file."""
    from store_support import play, start
    from terrace.storage import open_store

    won, lost = golden("terrace-won"), golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])

    def later(seconds: float) -> None:
        clock[0] += seconds

    source, fresh = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    with open_store(source) as store:
        for record, moves, pause in [(won, won.moves, 100), (lost, lost.moves[:4], -5_000),
                                     (lost, lost.moves, 10), (won, won.moves, 10), (lost, lost.moves[:3], 0)]:
            game = start(store, record)
            later(10)
            play(store, game, moves)
            later(pause)  # (the second game is left, then the clock is put back)
        ids = store.game_ids()
    monkeypatch.undo()
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    assert _cli("export", "--all", "-o", str(backup), "--db", str(source)).exit_code == 0
    assert _cli("import", str(backup), "--db", str(fresh)).output == "imported 5 games\n"
    stats = [_cli("stats", "--json", "--db", str(db)).output for db in (source, fresh)]
    assert json.loads(stats[0])["overall"]["longest_losing_streak"] == 2
    assert stats[1] == stats[0]
    with open_store(fresh) as store:
        assert store.game_ids() == ids
        assert store.latest_unfinished() is not None and store.latest_unfinished().id == ids[-1]
    assert _cli("export", "--all", "-o", str(again), "--db", str(fresh)).exit_code == 0
    assert again.read_bytes() == backup.read_bytes()


_LOG = {"opened": 1, "changed": 2, "result": None, "by_import": False, "changed_here": True}


@pytest.mark.parametrize(("log", "why"), [
    ({**_LOG, "opened": True}, "saved.log.opened must be a whole number from 1 to 9,007,199,254,740,992"),
    ({**_LOG, "changed": 2.0}, "saved.log.changed must be a whole number"),
    ({**_LOG, "opened": 0}, "saved.log.opened must be a whole number"),
    ({**_LOG, "changed": 10**30}, "saved.log.changed must be a whole number"),
    ({**_LOG, "result": "1"}, "saved.log.result must be a whole number from 1 to 9,007,199,254,740,992, or"),
    ({**_LOG, "opened": 3}, "opened <= result <= changed"),
    ({**_LOG, "result": 5}, "opened <= result <= changed"),
    ({**_LOG, "changed_here": False}, "a game not opened by an import was changed where it was opened"),
    ({**_LOG, "by_import": 0}, "saved.log.by_import must be true or false"),
    ({"opened": 1, "changed": 2}, "saved.log must be an object of opened, changed, result, by_import"),
    ([1, 2], "saved.log must be an object"),
])
def test_a_record_s_places_in_the_log_are_checked(tmp_path: Path, log: Any, why: str) -> None:
    """``saved.log`` comes from outside like every value of a record: a
    place that is not a whole number from 1 (true, 2.0, 10**30), places
    out of order, or flags that are not true or false are refused with the
    reason, and nothing is imported."""
    record = _won_record("g1", time.time() - 86_400)
    record["saved"]["log"] = log
    path, db = tmp_path / "record.json", tmp_path / "games.sqlite"
    path.write_text(json.dumps(record))
    result = _cli("import", str(path), "--db", str(db))
    assert result.exit_code == 1 and why in result.output, result.output
    assert not db.exists()


def test_the_games_that_may_hold_a_record_are_found_without_stepping_over_the_others() -> None:
    """A record of a game whose stored states are many looks only at the
    states no lower than it; the rows below were stepped over one by one
    each time (itertools.islice), which made a file of 40,000 states of
    one game, each held by none, take 20 s of CPU instead of 15 (and grow
    with the square of its size). Counted here as the rows touched."""
    from terrace.storage.merging import _Group, _light_row
    from terrace.storage.transfer import read_games

    class Touched(list):  # type: ignore[type-arg]
        touched = 0

        def __iter__(self) -> Any:
            for row in super().__iter__():
                Touched.touched += 1
                yield row

        def __getitem__(self, at: Any) -> Any:
            Touched.touched += 1
            return super().__getitem__(at)

    game = read_games(json.dumps(_won_record("g1", time.time() - 86_400)))[0]
    group, row = _Group(), _light_row(game)
    for hints in range(20_000):
        group.add((f"g{hints}", *row[1:4], hints, *row[5:]))
    group.rows = [Touched(rows) for rows in group.rows]
    game.hints = 19_990
    found = list(group.candidates(game))
    assert len(found) == 10
    assert Touched.touched <= 20, Touched.touched  # (it was 20,000)


def _elsewhere(record: Any, moves: int) -> dict[str, Any]:
    """A record of a game played elsewhere (another computer's database)
    on ``record``'s deal, ``moves`` moves in."""
    from store_support import play, start
    from terrace.storage import MemoryStore
    from terrace.storage.transfer import export_record

    other = MemoryStore()
    game = start(other, record)
    play(other, game, record.moves[:moves])
    return export_record(other.get(game.id))


@pytest.mark.parametrize("order", ["played-then-imported", "imported-then-played", "played-and-continued"])
def test_a_backup_restored_keeps_an_imported_game_played_here_as_played_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str) -> None:
    """A game that came into a database by an import and was played there
    since came back from a restore (export --all, import into an empty
    database) as imported and never played: the restore logged its last
    change as one more import. The game to resume became another one, a
    game imported later made it abandoned in the statistics (and broke
    their streaks), and the next export said ``changed_here: false``. The
    restore now logs that last change as a change made here."""
    from store_support import play, start
    from terrace.storage import open_store

    won, lost = golden("terrace-won"), golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    source, fresh = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_text(json.dumps(_elsewhere(lost, 3)))
    with open_store(source) as store:
        mine = start(store, won)
        clock[0] += 10
        play(store, mine, won.moves[:5])
        clock[0] += 10
        if order == "played-and-continued":  # (the import brings a later state of it: played on)
            [(imported_id, _)] = store.add_games(read_games_of(first))
            clock[0] += 10
            later = json.loads(first.read_text())
            later["moves"], later["saved"]["updated_at"] = lost.moves[:5], clock[0]
            first.write_text(json.dumps(later))
        [(imported_id, _)] = store.add_games(read_games_of(first))
        clock[0] += 10
        imported = store.get(imported_id)
        play(store, imported, lost.moves[len(imported.moves):7])
        clock[0] += 10
        if order != "played-then-imported":  # (a game from elsewhere opened after it was played)
            other = _elsewhere(lost, 2)
            other["saved"].update(created_at=clock[0], updated_at=clock[0])
            second.write_text(json.dumps(other))
            store.add_games(read_games_of(second))
        resumed = store.latest_unfinished()
    monkeypatch.undo()
    assert resumed is not None and resumed.id == imported_id
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    assert _cli("export", "--all", "-o", str(backup), "--db", str(source)).exit_code == 0
    assert _cli("import", str(backup), "--db", str(fresh)).output.startswith("imported ")
    stats = [_cli("stats", "--json", "--db", str(db)).output for db in (source, fresh)]
    assert stats[1] == stats[0]
    with open_store(fresh) as store:
        restored = store.latest_unfinished()
        assert restored is not None and restored.id == imported_id
        assert store.get(imported_id).moves == list(lost.moves[:7])
    assert _cli("export", "--all", "-o", str(again), "--db", str(fresh)).exit_code == 0
    assert again.read_bytes() == backup.read_bytes()


def read_games_of(path: Path) -> Any:
    """The games of a file of records, as an import reads them."""
    from terrace.storage.transfer import read_games

    return read_games(path.read_text())


def test_an_import_checks_each_record_s_deal_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each record's deal was checked three times (its string read, then
    again with its number, which deals the number's pack anew, then once
    more by the board of the record's replay), about a tenth of an
    import's CPU. It is checked once now; counted as the checks of the
    copies of each card, which every check makes once."""
    from terrace import deal

    made = time.time() - 86_400
    path = tmp_path / "records.json"
    path.write_text(json.dumps([_won_record(f"g{i}", made - i) for i in range(12)]))
    checks = _calls(monkeypatch, deal, "wrong_copies")
    result = _cli("import", str(path), "--db", str(tmp_path / "games.sqlite"))
    assert result.output == "imported 12 games\n", result.output + str(result.exception)
    assert checks[0] == 12, checks[0]  # (it was 36)


def test_a_newer_backup_restored_over_an_older_one_gives_back_the_newer_statistics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two backups of one database, the older restored into an empty
    database and then the newer imported over it: the newer one's places
    in the log were ignored (the database was not empty), so its games
    came in as games from elsewhere. A game opened after another was left
    no longer made that one abandoned (abandoned 1 read 0, the losing
    streak 2 read 1). A database that holds nothing but states of the
    file's games that its records are or continue is now restored over,
    with the file's log, as an empty one is; the other order adds
    nothing."""
    from store_support import play, start, undo
    from terrace.storage import open_store

    won, lost = golden("terrace-won"), golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    source = tmp_path / "source.sqlite"
    older, newer = tmp_path / "older.json", tmp_path / "newer.json"
    with open_store(source) as store:
        first = start(store, won)
        clock[0] += 10
        play(store, first, won.moves[:10])
        clock[0] += 10
        second = start(store, lost)
        clock[0] += 10
        play(store, second, lost.moves[:5])
        clock[0] += 10
        kept = start(store, lost)  # (not played on after the older backup)
        clock[0] += 10
        play(store, kept, lost.moves)
        clock[0] += 10
    assert _cli("export", "--all", "-o", str(older), "--db", str(source)).exit_code == 0
    with open_store(source) as store:
        first = store.get(first.id)
        play(store, first, won.moves[10:])
        clock[0] += 10
        second = store.get(second.id)
        play(store, second, lost.moves[5:8])
        undo(store, second, 2)
        clock[0] += 10
        third = start(store, lost)  # (leaves the second game: abandoned)
        clock[0] += 10
        play(store, third, lost.moves)
        clock[0] += 10
    monkeypatch.undo()
    assert _cli("export", "--all", "-o", str(newer), "--db", str(source)).exit_code == 0
    wanted = _cli("stats", "--json", "--db", str(source)).output
    assert json.loads(wanted)["overall"]["abandoned"] == 1
    for name, files, said in [
            ("older-newer", [older, newer], "imported 1 game (2 brought up to date, 1 already here)\n"),
            ("newer-older", [newer, older], "imported 0 games (3 already here)\n")]:
        db = tmp_path / f"{name}.sqlite"
        assert _cli("import", str(files[0]), "--db", str(db)).exit_code == 0
        assert _cli("import", str(files[1]), "--db", str(db)).output == said, name
        assert _cli("stats", "--json", "--db", str(db)).output == wanted, name
        again = tmp_path / f"{name}.json"
        assert _cli("export", "--all", "-o", str(again), "--db", str(db)).exit_code == 0
        assert again.read_bytes() == newer.read_bytes(), name


def test_a_backup_restored_keeps_the_result_of_a_game_that_came_in_finished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that came in by an import already won has its result at its
    opening in the log (the import is logged at its last change, the
    win). The restore logged that opening at the game's creation time, so
    the result's place was lost (the next export said ``result: null``);
    when the game had been changed here since (a move taken back after the
    win), the statistics then put its win after a later loss: the current
    streak read 1 win where it was 1 loss."""
    from store_support import play, start, undo
    from terrace.storage import open_store

    won, lost = golden("terrace-won"), golden("terrace-lost")
    clock = [time.time() - 86_400]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    source, fresh = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    record = tmp_path / "won.json"
    elsewhere = _elsewhere(won, len(won.moves))
    elsewhere["saved"]["created_at"] -= 600  # (opened ten minutes before it was won)
    record.write_text(json.dumps(elsewhere))
    clock[0] += 100
    with open_store(source) as store:
        [(won_id, _)] = store.add_games(read_games_of(record))
        clock[0] += 10
        game = start(store, lost)
        clock[0] += 10
        play(store, game, lost.moves)
        clock[0] += 10
        undo(store, store.get(won_id))
    monkeypatch.undo()
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    assert _cli("export", "--all", "-o", str(backup), "--db", str(source)).exit_code == 0
    places = [record["saved"]["log"] for record in json.loads(backup.read_text())]
    assert places[0]["result"] == places[0]["opened"]
    assert _cli("import", str(backup), "--db", str(fresh)).output == "imported 2 games\n"
    stats = [_cli("stats", "--json", "--db", str(db)).output for db in (source, fresh)]
    assert json.loads(stats[0])["overall"]["current_losing_streak"] == 1
    assert stats[1] == stats[0]
    assert _cli("export", "--all", "-o", str(again), "--db", str(fresh)).exit_code == 0
    assert again.read_bytes() == backup.read_bytes()


def test_an_import_refused_by_the_store_leaves_no_new_database_behind(tmp_path: Path) -> None:
    """An import that the store refused (here: a file of too many states of
    one game, found only as they are compared) into a database that was not
    there left a new, empty database behind, and the folders made for it;
    a refused import now changes nothing. A database that was there, or
    that holds games, stays."""
    db = tmp_path / "new" / "deeper" / "games.sqlite"
    path = tmp_path / "states.json"
    path.write_text(json.dumps(_states_of_one_game(800, time.time() - 3_600)))
    result = _cli("import", str(path), "--db", str(db))
    assert result.exit_code == 1 and "too many different states of one game" in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["states.json"]
    (tmp_path / "new").mkdir()
    assert _cli("import", str(path), "--db", str(db)).exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "states.json"]
    assert list((tmp_path / "new").iterdir()) == []
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_won_record("kept", time.time() - 86_400)))
    assert _cli("import", str(one), "--db", str(db)).exit_code == 0
    image = db.read_bytes()
    assert _cli("import", str(path), "--db", str(db)).exit_code == 1
    assert db.read_bytes() == image and _count_games(db) == 1


def test_a_backup_restored_gives_no_result_to_a_game_opened_at_the_time_of_its_result(
        tmp_path: Path) -> None:
    """A game that came in by an import with its result at its creation
    time (given up the moment it was opened, on another computer's clock)
    and its last change later: the exporting log has no result place for
    it, but the restore logged its opening at that time, which the
    restored log then took for its result (the next export said
    ``result: 3`` where the backup said null)."""
    from store_support import play, start
    from terrace.storage import open_store

    lost = golden("terrace-lost")
    record = _elsewhere(lost, 3)
    made = record["saved"]["created_at"] - 600
    record["saved"].update(created_at=made, started_at=made, finished_at=made, given_up_at=made,
                           updated_at=made + 10)
    path, source, fresh = tmp_path / "record.json", tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    path.write_text(json.dumps(record))
    with open_store(source) as store:
        play(store, start(store, lost), lost.moves[:2])
        store.add_games(read_games_of(path))
    backup, again = tmp_path / "backup.json", tmp_path / "again.json"
    assert _cli("export", "--all", "-o", str(backup), "--db", str(source)).exit_code == 0
    assert json.loads(backup.read_text())[1]["saved"]["log"]["result"] is None
    assert _cli("import", str(backup), "--db", str(fresh)).output == "imported 2 games\n"
    assert _cli("export", "--all", "-o", str(again), "--db", str(fresh)).exit_code == 0
    assert again.read_bytes() == backup.read_bytes()


def test_an_export_while_a_game_is_played_is_of_one_moment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``export --all`` read the games' places in the log, then each game
    in a read of its own: a move stored meanwhile by the web game (here: the
    move that loses game B, made while game A is read) was in B's record but
    not in its places, and the backup restored gave statistics of no moment
    of the source (B lost, but before A's win: 1 game lost and the current
    streak 1, where before the move none was lost, and after it the streak
    was 0). The export now reads the games and their places in one read."""
    from store_support import play, start
    from terrace.storage import open_store, sqlite

    won, lost = golden("terrace-won"), golden("terrace-lost")
    source, fresh = tmp_path / "source.sqlite", tmp_path / "fresh.sqlite"
    with open_store(source) as store:
        first = start(store, won)
        second = start(store, lost)
        play(store, second, lost.moves[:-1])
        play(store, first, won.moves)
    before = _cli("stats", "--json", "--db", str(source)).output
    read = sqlite.load_game
    played: list[bool] = []

    def reading(*args: Any, **kwargs: Any) -> Any:
        if not played:  # (another program plays B's last move while the export reads)
            played.append(True)
            with open_store(source) as other:
                play(other, other.get(second.id), lost.moves[-1:])
        return read(*args, **kwargs)

    monkeypatch.setattr(sqlite, "load_game", reading)
    backup = tmp_path / "backup.json"
    assert _cli("export", "--all", "-o", str(backup), "--db", str(source)).exit_code == 0
    monkeypatch.undo()
    after = _cli("stats", "--json", "--db", str(source)).output
    assert played and after != before
    assert _cli("import", str(backup), "--db", str(fresh)).output == "imported 2 games\n"
    assert _cli("stats", "--json", "--db", str(fresh)).output in (before, after)


def test_no_game_is_imported_under_the_web_games_name_of_the_latest_game(tmp_path: Path) -> None:
    """A record whose saved id was ``current`` was imported under it, and
    the web game could not open it: ``GET /api/games/current`` answers the
    latest unfinished game, so the statistics' Resume of that game opened
    another one. The import refuses it, saying what to do, and adds nothing."""
    db, backup = tmp_path / "games.sqlite", tmp_path / "backup.json"
    backup.write_text(json.dumps([_won_record("g1", time.time() - 86_400),
                                  _won_record("current", time.time() - 3_600)]))
    result = _cli("import", str(backup), "--db", str(db))
    assert result.exit_code == 1, result.output
    assert "saved.id 'current' is the web game's name for the latest unfinished game" in result.output
    assert not db.exists() or _count_games(db) == 0


def test_moves_to_redo_spelt_another_way_are_kept_as_the_notation_prints_them() -> None:
    """A record's moves are kept as the notation prints them (' C2 ' as
    c2); its moves to redo were kept as written, so the database held
    ' T3F' and 'WF ' and every export wrote them so again."""
    won = golden("terrace-won")
    record: dict[str, Any] = json.loads(won.to_json())
    last, before = won.moves[-1], won.moves[-2]
    record.update(moves=list(won.moves[:-2]), result="playing")
    record["saved"] = {"redo": [f" {last.upper()}", f"{before.upper()} "]}
    game = read_games(json.dumps(record))[0]
    assert game.redo == [last, before]
    assert export_record(game)["saved"]["redo"] == [last, before]


def test_a_move_to_redo_after_the_end_of_the_game_is_refused_for_the_end() -> None:
    """(As a record's move after the end is: the import said "saved.redo
    item 1 of 1: s: the stock is empty" of a won game.)"""
    record: dict[str, Any] = json.loads(golden("terrace-won").to_json())
    record["saved"] = {"redo": ["t1t2", "S"]}
    with pytest.raises(ImportRefusedError) as info:
        read_games(json.dumps(record))
    assert info.value.reasons == ["its moves do not replay: saved.redo item 2 of 2: "
                                  "s: the game was won after 271 moves: no move follows a win"]


def test_an_import_prints_no_move_of_a_game_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The record's check put every move of its board into words twice,
    once to keep the moves as the notation prints them and once to hand
    its board to the game: a fifth of an import of long games (3 games of
    100,000 moves: 1.24 s of CPU, 0.98 s now). Each different move is
    read once now."""
    from terrace.moves import Move

    record = golden("falling-star-won")
    printed = _calls(monkeypatch, Move, "__str__")
    game = read_games(record.to_json())[0]
    assert game.moves == list(record.moves) and game.board().status.value == "won"
    assert printed[0] < len(set(record.moves)) * 3 < len(record.moves)
