"""Statistics (``summarize`` and the SQLite store agree) and the ``stats``,
``export`` and ``import`` commands."""

from __future__ import annotations

import json
import math
import os
import stat
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from store_support import finish, golden, no_default_db, play, start, store_on_each_kind, undo
from terrace.cli import main
from terrace.cli.storage import _cell, format_duration
from terrace.storage import GameFacts, GameStore, MemoryStore, open_store, summarize
from terrace.storage.statistics import MAX_ACTIVE_MS, MAX_COUNT, SANE_TIMES, local_day
from terrace.storage.transfer import export_record

DAY = 86_400.0
_ = no_default_db, store_on_each_kind


def facts(status: str, finished: float | None, *, variant: str = "terrace", moves: int = 100,
          started: float | None = 0.0, hints: int = 0, undos: int = 0) -> GameFacts:
    return GameFacts(variant, status, moves, hints, undos, 0.0, finished or 1.0, started, finished)


def test_nothing_played() -> None:
    stats = summarize([])
    assert stats["variants"] == {}
    assert stats["overall"] == {
        "played": 0, "finished": 0, "won": 0, "lost": 0, "abandoned": 0, "unfinished": 0,
        "win_rate": None, "current_streak": 0, "best_streak": 0, "current_losing_streak": 0,
        "longest_losing_streak": 0, "fewest_moves": None, "fewest_moves_wins": 0,
        "fastest_seconds": None, "hints": 0, "undos": 0, "assisted": 0, "active_seconds": 0.0,
        "days": [],
    }


def test_streaks_follow_the_order_games_were_finished() -> None:
    results = "WWLWWWLWW"
    games = [facts("won" if r == "W" else "lost", 1000.0 + i) for i, r in enumerate(results)]
    games.reverse()  # the order of the list does not matter
    block = summarize(games)["overall"]
    assert (block["won"], block["lost"], block["current_streak"], block["best_streak"]) == (7, 2, 2, 3)
    assert block["win_rate"] == pytest.approx(7 / 9)
    assert (block["current_losing_streak"], block["longest_losing_streak"]) == (0, 1)


def test_losing_streaks_count_lost_given_up_and_abandoned_games() -> None:
    games = [
        facts("won", 1000.0), facts("lost", 1001.0),
        GameFacts("terrace", "playing", 5, 0, 0, 0.0, 1002.0, 0.0, 1002.0, given_up=True),
        GameFacts("terrace", "playing", 5, 0, 0, 0.0, 1003.0, 0.0, None),  # abandoned
        facts("won", 1004.0), facts("lost", 1005.0),
        GameFacts("terrace", "playing", 5, 0, 0, 0.0, 1006.0, 0.0, None),  # abandoned
        GameFacts("terrace", "choosing", 0, 0, 0, 2000.0, 2000.0, None, None),  # opened last
    ]
    block = summarize(games)["overall"]
    assert (block["lost"], block["abandoned"]) == (3, 2)
    assert (block["current_streak"], block["best_streak"]) == (0, 1)
    assert (block["current_losing_streak"], block["longest_losing_streak"]) == (2, 3)


def test_only_started_games_count_and_unfinished_are_not_losses() -> None:
    games = [
        facts("won", 500.0, moves=120, started=100.0, hints=2, undos=1),
        facts("won", 900.0, moves=90, started=850.0),
        facts("playing", None, moves=30, undos=5),
        facts("choosing", None, moves=0, started=None, hints=9),
        facts("lost", 700.0, variant="wood", moves=200, started=None),
    ]
    stats = summarize(games)
    overall = stats["overall"]
    assert overall["played"] == 4 and overall["unfinished"] == 1
    assert overall["won"] == 2 and overall["lost"] == 1 and overall["win_rate"] == pytest.approx(2 / 3)
    assert overall["fewest_moves"] == 90 and overall["fewest_moves_wins"] == 1
    assert overall["fastest_seconds"] == 50.0
    assert overall["hints"] == 2 and overall["undos"] == 6
    assert overall["current_streak"] == 1 and overall["best_streak"] == 1
    assert sorted(stats["variants"]) == ["terrace", "wood"]
    assert stats["variants"]["wood"]["fastest_seconds"] is None
    assert stats["variants"]["terrace"]["current_streak"] == 2


def test_the_records_of_all_variants_compare_no_wins_of_two_kinds_of_game() -> None:
    """A 40 s win of an easy custom game of one deck was the fastest win and
    the fewest moves of all variants, ahead of every Terrace win: records
    are kept per kind of game (as PySolFC and Aisleriot keep them)."""
    easy = "terrace (custom: decks 1, reserve 0)"
    games = [facts("won", 400.0, moves=120, started=100.0),
             facts("won", 540.0, variant=easy, moves=52, started=500.0),
             facts("lost", 600.0, variant="wood")]
    stats = summarize(games)
    overall = stats["overall"]
    assert (overall["won"], overall["lost"], overall["current_streak"]) == (2, 1, 0)
    def records(block: dict[str, Any]) -> tuple[Any, ...]:
        return block["fewest_moves"], block["fewest_moves_wins"], block["fastest_seconds"]

    assert records(overall) == (None, 0, None)
    assert records(stats["variants"]["terrace"]) == (120, 1, 300.0)
    assert records(stats["variants"][easy]) == (52, 1, 40.0)
    # (with the wins of one kind of game, its records are all variants' too)
    assert records(summarize(games[:1] + games[2:])["overall"]) == (120, 1, 300.0)


def test_a_win_with_an_assist_counts_as_a_win_and_sets_no_record() -> None:
    """A win with the peeking hint on was the player's best in moves and
    time, and a later win of their own was hailed as a new best against it."""
    from dataclasses import replace

    assisted = replace(facts("won", 300.0, moves=80, started=250.0), assisted=True)
    own = facts("won", 900.0, moves=120, started=700.0)
    block = summarize([assisted, own])["overall"]
    assert block["won"] == 2 and block["assisted"] == 1
    assert (block["fewest_moves"], block["fewest_moves_wins"], block["fastest_seconds"]) == (120, 1, 200.0)
    alone = summarize([assisted])["overall"]
    assert alone["won"] == 1 and alone["fewest_moves"] is None and alone["fastest_seconds"] is None


def test_the_records_are_those_of_a_win_as_it_came_after_undos_played_on_or_imported() -> None:
    """As docs/storage.md says: undos take no win off the records; a game
    won, taken back past its win and played on, stays won with the moves
    and active time of its first win (not the 150 moves and the hour of
    play since); an imported win sets records as a win played here, and
    an imported win with an assist sets none."""
    from dataclasses import replace

    played_on = GameFacts("terrace", "playing", 150, 0, 40, 0.0, 4000.0, 10.0, None, won_at=500.0,
                          won_moves=90, won_active_ms=200_000, active_ms=3_600_000)
    block = summarize([played_on])["overall"]
    records = block["won"], block["undos"], block["fewest_moves"], block["fastest_seconds"]
    assert records == (1, 40, 90, 200.0)
    imported = GameFacts("terrace", "won", 80, 0, 0, 0.0, 300.0, 10.0, 300.0, won_at=300.0, won_moves=80,
                         imported=True, opened_elsewhere=True)
    both = summarize([played_on, imported])["overall"]
    assert (both["won"], both["fewest_moves"], both["fastest_seconds"]) == (2, 80, 200.0)
    assisted = summarize([played_on, replace(imported, assisted=True)])["overall"]
    assert (assisted["won"], assisted["fewest_moves"], assisted["fastest_seconds"]) == (2, 90, 200.0)


def test_a_loss_counts_when_it_came_not_when_the_game_last_changed() -> None:
    """A game lost (finished) before a win, and changed after it (a hint
    counted on the lost position), keeps its place in the streaks and its day."""
    noon = 1_700_000_000.0
    lost = GameFacts("terrace", "lost", 100, 1, 0, noon - 10, noon + 3 * DAY, noon - 10, noon)
    won = facts("won", noon + DAY)
    block = summarize([lost, won])["overall"]
    assert (block["current_streak"], block["current_losing_streak"]) == (1, 0)
    assert [day["date"] for day in block["days"] if day["lost"]] == [local_day(noon)]


def test_a_win_before_its_first_move_by_a_clock_put_back_has_no_time_to_be_fastest() -> None:
    block = summarize([facts("won", 900.0, started=1000.0)])["overall"]
    assert block["won"] == 1 and block["fastest_seconds"] is None
    both = summarize([facts("won", 900.0, started=1000.0), facts("won", 1100.0, started=1000.0)])
    assert both["overall"]["fastest_seconds"] == 100.0  # not 0 s


def test_stored_values_at_their_limits_are_kept_and_beyond_them_are_unknown() -> None:
    def row(count: int, ms: int, started: float) -> list[Any]:
        return ["terrace", "playing", 0, count, count, 1e9, 1e9, started, None, None, None, ms, 0, ms,
                None, None, 0, 0]

    kept = GameFacts.from_row(row(MAX_COUNT, MAX_ACTIVE_MS, SANE_TIMES[0]))
    assert (kept.hints, kept.undos, kept.active_ms, kept.won_active_ms) == (
        MAX_COUNT, MAX_COUNT, MAX_ACTIVE_MS, MAX_ACTIVE_MS)
    assert kept.started_at == SANE_TIMES[0] and kept.started
    junk = GameFacts.from_row(row(MAX_COUNT + 1, MAX_ACTIVE_MS + 1, -5.0))  # a time before 1970-01-02
    assert (junk.hints, junk.undos, junk.active_ms, junk.won_active_ms) == (0, 0, 0, None)
    assert junk.started_at is None and not junk.started  # no move: it was never started
    assert summarize([junk])["overall"]["played"] == 0


def test_results_per_day_for_the_chart() -> None:
    noon = 1_700_000_000.0
    games = [
        facts("won", noon), facts("lost", noon + 60), facts("won", noon + 120),
        facts("lost", noon + 3 * DAY), facts("playing", None),
    ]
    days = summarize(games)["overall"]["days"]
    assert days == [
        {"date": local_day(noon), "won": 2, "lost": 1, "abandoned": 0},
        {"date": local_day(noon + 3 * DAY), "won": 0, "lost": 1, "abandoned": 0},
    ]
    json.dumps(days)


class Clock:
    """A fake ``time.time`` that moves on 7 seconds at each reading."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 7.0
        return self.now


def scenario(store: GameStore) -> None:
    finish(store, "terrace-won")
    finish(store, "terrace-lost")
    finish(store, "wood-lost")
    record = golden("blondes-and-brunettes-lost")
    game = start(store, record)
    play(store, game, record.moves[:40])
    undo(store, game, 2)
    game.hints += 3
    store.update(game, expected_revision=game.revision, action="hint")
    start(store, golden("terrace-won"))  # opened, never played


def test_the_sqlite_store_agrees_with_summarize(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = []
    # The SQL is the same on disk; ":memory:" spares hundreds of fsyncs here.
    for make in (MemoryStore, lambda: open_store(":memory:")):
        monkeypatch.setattr(time, "time", Clock())
        store = make()
        scenario(store)
        results.append(store.statistics())
    memory, sqlite = results
    assert sqlite == memory
    overall = sqlite["overall"]
    # The Blondes and Brunettes game was left for a new one: abandoned.
    assert (overall["played"], overall["won"], overall["lost"], overall["abandoned"]) == (4, 1, 2, 1)
    assert overall["unfinished"] == 0 and overall["win_rate"] == pytest.approx(1 / 4)
    assert overall["fewest_moves"] == len(golden("terrace-won").moves)
    assert overall["fastest_seconds"] == 7.0 * (len(golden("terrace-won").moves) - 1)
    assert overall["hints"] == 3 and overall["undos"] == 2
    assert overall["current_streak"] == 0 and overall["best_streak"] == 1
    assert sum(d["won"] + d["lost"] + d["abandoned"] for d in overall["days"]) == 4
    assert set(sqlite["variants"]) == {"terrace", "wood", "blondes-and-brunettes"}


def test_the_win_rate_is_never_shown_as_all_or_nothing_when_it_is_not() -> None:
    assert _cell("win_rate", 399 / 400) == "99.8%"
    assert _cell("win_rate", 1 / 400) == "0.3%"  # half up, as the page rounds
    assert _cell("win_rate", 9999 / 10000) == ">99.9%"
    assert _cell("win_rate", 1 / 100_000) == "<0.1%"
    assert (_cell("win_rate", 1.0), _cell("win_rate", 0.0), _cell("win_rate", 0.5)) == ("100%", "0%", "50%")
    assert _cell("win_rate", 1 / 6) == "16.7%"


def test_a_win_rate_on_a_half_is_rounded_up_as_the_exact_rate_is() -> None:
    # (201 / 400 * 1000 is 502.49999999999994 in floating point: it read 50.2%)
    assert _cell("win_rate", 201 / 400) == "50.3%"
    assert _cell("win_rate", 1001 / 2000) == "50.1%"
    wrong = []
    for counted in range(1, 601):  # (every wrong rate up to 600 games; 2,000 took 30 s)
        for won in range(1, counted):
            exact = Fraction(won, counted) * 100
            tenths = math.floor(exact * 10 + Fraction(1, 2))
            expected = f"{tenths // 10}" if tenths % 10 == 0 else f"{tenths // 10}.{tenths % 10}"
            expected = {"100": ">99.9", "0": "<0.1"}.get(expected, expected) + "%"
            if _cell("win_rate", won / counted) != expected:
                wrong.append((won, counted))
    assert wrong == []


def test_format_duration() -> None:
    assert format_duration(0) == "0:00"
    # whole seconds elapsed, as the game's clock and the page show a time (this read 1:00;
    # 60.5 read 1:00 by rounding half to even where the page read 1:01)
    assert format_duration(59.6) == "0:59"
    assert format_duration(60.5) == "1:00" and format_duration(61.5) == "1:01"
    assert format_duration(3599.99) == "59:59" and format_duration(3600) == "1:00:00"
    assert format_duration(7200) == "2:00:00"


# -- the commands ------------------------------------------------------------------


@pytest.fixture
def run(tmp_path: Path) -> Callable[..., Any]:
    runner = CliRunner()
    db = tmp_path / "games.sqlite"

    def invoke(*args: str, db_path: Path | None = db) -> Any:
        extra = ["--db", str(db_path)] if db_path is not None else []
        return runner.invoke(main, [args[0], *extra, *args[1:]], catch_exceptions=False)

    return invoke


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, list[str]]:
    """A database with three finished games and one being played, built
    once: its bytes and its game ids."""
    path = tmp_path_factory.mktemp("template") / "games.sqlite"
    with open_store(path) as store:
        store.add_games([finish(MemoryStore(), n) for n in ("terrace-won", "terrace-lost", "wood-lost")])
        record = golden("terrace-won")
        game = start(store, record)
        play(store, game, record.moves[:5])
        store.mark_assisted(game.id)
        store.add_active_time(game.id, 65_000)
        ids = store.game_ids()
    return path.read_bytes(), ids


@pytest.fixture
def filled(tmp_path: Path, template: tuple[bytes, list[str]]) -> list[str]:
    """The template database as ``games.sqlite`` in the test's folder."""
    (tmp_path / "games.sqlite").write_bytes(template[0])
    return template[1]


def test_the_commands_are_registered() -> None:
    result = CliRunner().invoke(main, ["--help"])
    for name in ("stats", "export", "import"):
        assert f"  {name} " in result.output


def test_stats_with_no_games(run: Callable[..., Any], tmp_path: Path) -> None:
    open_store(tmp_path / "games.sqlite").close()
    result = run("stats")
    assert result.exit_code == 0
    assert "No games played yet." in result.output


def test_stats_of_one_variant_without_games_names_it(run: Callable[..., Any], filled: list[str]) -> None:
    """Other variants have games: "No games played yet." read as if none had."""
    result = run("stats", "-v", "madame")
    assert (result.exit_code, result.output) == (0, "No games of Madame played yet.\n")


def test_reading_commands_on_a_missing_database_create_nothing(
    run: Callable[..., Any], tmp_path: Path
) -> None:
    typo = tmp_path / "typo" / "dir" / "games.sqlite3"
    before = sorted(tmp_path.iterdir())
    result = run("stats", db_path=typo)
    assert result.exit_code == 0
    assert "No games played yet: there is no games database at" in result.output
    assert "nothing was created" in result.output
    result = run("stats", db_path=None)  # the default database ($TERRACE_DB here)
    assert result.exit_code == 0 and "there is no games database" in result.output
    for args in (["--all"], ["--game", "abc"]):
        result = run("export", *args, db_path=typo)
        assert result.exit_code == 1 and "there is no games database at" in result.output
    assert sorted(tmp_path.iterdir()) == before


def test_reading_commands_never_upgrade_or_write_an_older_database(
    run: Callable[..., Any], tmp_path: Path
) -> None:
    from test_store_files import _old_database
    db = _old_database(tmp_path / "games.sqlite", 2)
    content = db.read_bytes()
    result = run("stats", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["overall"]["won"] == 1
    result = run("export", "--all")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)) == 2
    assert db.read_bytes() == content and sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]


def test_stats_table(run: Callable[..., Any], filled: list[str]) -> None:
    result = run("stats")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:5] == ["Variant", "Played", "Won", "Lost", "Abandoned"]
    assert lines[0].split()[-1] == "Assisted"
    terrace = next(line for line in lines if line.startswith("Terrace"))
    assert terrace.split()[1:6] == ["3", "1", "1", "0", "50%"]
    assert lines[-1].startswith("All variants")
    assert lines[-1].split()[2:7] == ["4", "1", "2", "0", "33.3%"]
    assert lines[-1].split()[-1] == "1"  # one game was assisted
    assert any(line.startswith("Wood") for line in lines)


def test_stats_json_and_one_variant(run: Callable[..., Any], filled: list[str]) -> None:
    data = json.loads(run("stats", "--json").output)
    assert data["overall"]["played"] == 4
    one = json.loads(run("stats", "--variant", "queen-of-italy", "--json").output)
    assert one["variant"] == "terrace" and one["won"] == 1
    table = run("stats", "--variant", "wood").output
    assert table.splitlines()[-1].startswith("Wood")
    assert "No games" in run("stats", "--variant", "madame").output
    bad = run("stats", "--variant", "chess")
    assert bad.exit_code == 2 and "unknown variant" in bad.output


def test_export_one_several_and_all(run: Callable[..., Any], filled: list[str], tmp_path: Path) -> None:
    one = json.loads(run("export", "--game", filled[0]).output)
    assert isinstance(one, dict) and one["format"] == "terrace-game" and one["saved"]["id"] == filled[0]
    two = json.loads(run("export", "--game", filled[0], "--game", filled[1]).output)
    assert [r["saved"]["id"] for r in two] == filled[:2]
    out = tmp_path / "all.json"
    result = run("export", "--all", "-o", str(out))
    assert result.exit_code == 0 and "wrote 4 games" in result.output
    records = json.loads(out.read_text())
    assert [r["saved"]["id"] for r in records] == filled
    assert [r["result"] for r in records] == ["won", "lost", "lost", "playing"]


def test_export_writes_through_a_link_and_keeps_permissions(
    run: Callable[..., Any], filled: list[str], tmp_path: Path
) -> None:
    target = tmp_path / "target.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    assert run("export", "--all", "-o", str(link)).exit_code == 0
    assert link.is_symlink() and len(json.loads(target.read_text())) == len(filled)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.json"
    umask = os.umask(0o022)
    try:
        assert run("export", "--all", "-o", str(fresh)).exit_code == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    assert list(tmp_path.glob(".*")) == []  # no temporary file left


def test_export_to_a_device_writes_to_it_and_never_replaces_it(
    run: Callable[..., Any], filled: list[str], tmp_path: Path
) -> None:
    assert run("export", "--all", "-o", os.devnull).exit_code == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    if os.path.exists("/dev/full"):
        full = run("export", "--all", "-o", "/dev/full")
        assert full.exit_code == 1 and "cannot write /dev/full" in full.output
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["export", "--all"], ["stats", "--json"], ["deal", "-n", "1"]],
                         ids=["export", "stats", "deal"])
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
def test_a_full_standard_output_is_named(filled: list[str], tmp_path: Path, args: list[str],
                                         unbuffered: str) -> None:
    """``terrace export --all > /dev/full`` said only "No space left on
    device": not which file was full (the database? a temporary file?)."""
    import subprocess
    import sys

    import terrace

    env = {**os.environ, "TERRACE_DB": str(tmp_path / "games.sqlite"), "PYTHONUNBUFFERED": unbuffered,
           "PYTHONPATH": str(Path(terrace.__file__).parents[1])}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "terrace", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr == "Error: standard output could not be written: No space left on device\n"


def test_export_names_a_folder_that_takes_no_file(
    run: Callable[..., Any], filled: list[str], tmp_path: Path
) -> None:
    missing = run("export", "--all", "-o", str(tmp_path / "nowhere" / "games.json"))
    assert missing.exit_code == 1
    assert f"its folder {tmp_path / 'nowhere'} does not exist" in missing.output
    if os.path.isfile("/proc/version"):  # (a regular file in a folder where no file can be made)
        proc = run("export", "--all", "-o", "/proc/version")
        assert proc.exit_code == 1 and "no new file can be made in its folder /proc" in proc.output


def test_export_errors(run: Callable[..., Any], filled: list[str]) -> None:
    assert run("export").exit_code == 2
    assert run("export", "--all", "--game", filled[0]).exit_code == 2
    missing = run("export", "--game", "nope")
    assert missing.exit_code == 1 and "there is no game 'nope'" in missing.output


def test_export_then_import_into_another_database_is_the_same(
    run: Callable[..., Any], filled: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "all.json"
    run("export", "--all", "-o", str(out))
    other = tmp_path / "other.sqlite"
    result = run("import", str(out))
    assert result.exit_code == 0 and "imported 0 games (4 already here)" in result.output
    result = CliRunner().invoke(main, ["import", "--db", str(other), str(out)])
    assert result.exit_code == 0 and "imported 4 games" in result.output
    with open_store(tmp_path / "games.sqlite") as a, open_store(other) as b:
        assert a.statistics() == b.statistics()
        for game_id in filled:
            assert export_record(a.get(game_id)) == export_record(b.get(game_id))


def test_import_from_standard_input(run: Callable[..., Any], tmp_path: Path) -> None:
    text = golden("wood-lost").to_json()
    result = CliRunner().invoke(main, ["import", "--db", str(tmp_path / "games.sqlite"), "-"], input=text)
    assert result.exit_code == 0 and "imported 1 game" in result.output
    with open_store(tmp_path / "games.sqlite") as store:
        [game] = store.recent()
        assert game.status == "lost" and game.started_at is None
        assert store.statistics()["overall"]["lost"] == 1


def test_import_a_file_with_a_byte_order_mark(run: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("\ufeff" + golden("wood-lost").to_json(), encoding="utf-8")
    result = CliRunner().invoke(main, ["import", "--db", str(tmp_path / "games.sqlite"), str(path)])
    assert result.exit_code == 0 and "imported 1 game" in result.output


def _record(name: str = "terrace-won", **changes: Any) -> dict[str, Any]:
    data = golden(name).to_dict()
    data.update(changes)
    return data


def _illegal_move() -> dict[str, Any]:
    data = _record()
    data["moves"][5] = "t9t9"
    return data


def _bad_redo() -> dict[str, Any]:
    data = _record("terrace-lost", result="playing")
    data["moves"] = data["moves"][:10]
    data["saved"] = {"redo": ["rf"]}
    return data


MALFORMED: list[tuple[str, Any, str]] = [
    ("bad JSON", "{not json", "not valid JSON"),
    ("a number", 42, "must be a JSON object"),
    ("wrong format", _record(format="chess-game"), "not a Terrace game record"),
    ("moves as text", _record(moves="c1 s wf"), "'moves' must be a list"),
    ("moves not text", _record(moves=[1, 2]), "moves must be a list of strings"),
    ("deal number as text", _record(deal_number="2"), "deal_number must be a whole number"),
    ("rules as a list", _record(rules=[2, 11]), "'rules' must be a dict"),
    ("missing deal", {k: v for k, v in _record().items() if k != "deal"}, "has no 'deal'"),
    ("illegal move", _illegal_move(), "does not replay"),
    ("wrong result", _record(result="lost"), "the record says 'lost'"),
    ("unknown variant", _record(variant="chess"), "unknown variant 'chess'"),
    ("wrong deal", _record(deal_number=3), "not deal number 3"),
    ("negative hints", _record(saved={"hints": -1}), "saved.hints"),
    ("bad time", _record(saved={"created_at": "monday"}), "saved.created_at"),
    ("bad id", _record(saved={"id": "../etc"}), "saved.id"),
    ("empty id", _record(saved={"id": ""}), "saved.id must be 1 to 64 letters"),
    ("illegal redo", _bad_redo(), "its moves do not replay: saved.redo item 1 of 1: rf"),
    ("one bad among good", [_record(), _record("wood-lost", result="won")], "record 2: the record says"),
    ("finish time far ahead", _record(saved={"finished_at": 1e15}), "saved.finished_at must be a time"),
    ("time before 2000", _record(saved={"created_at": 5e8}), "from 2000 to now (at most 5 minutes ahead"),
    ("time after tomorrow", _record(saved={"updated_at": time.time() + 3 * DAY}), "saved.updated_at"),
    ("time in an hour", _record(saved={"created_at": time.time() + 3600}), "saved.created_at must be a time"),
    ("infinite time", '{"saved": {"started_at": 1e999}, ' + json.dumps(_record())[1:],
     "1e999 is beyond the numbers read here"),
    ("hints beyond bounds", _record(saved={"hints": 10**30}), "saved.hints must be a whole number from 0"),
    ("undos beyond bounds", _record(saved={"undos": 1_000_001}), "saved.undos"),
    ("too many moves", _record(moves=["s"] * 100_001), "a list of moves may hold at most 100,000 moves"),
    ("deeply nested", "[" * 100_000 + "]" * 100_000, "not valid JSON: it is nested too deeply"),
    ("nested in a record", '[{"saved": ' + "[" * 50_000 + "]" * 50_000 + "}]", "nested too deeply"),
    ("active time beyond bounds", _record(saved={"active_ms": 10**15}), "saved.active_ms must be"),
    ("assisted not a flag", _record(saved={"assisted": "yes"}), "saved.assisted must be true or false"),
    ("a win without its moves", _record("terrace-lost", saved={"won_at": time.time() - DAY}),
     "saved.won_at and saved.won_moves go together"),
]


@pytest.mark.parametrize(("content", "reason"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_import_refuses_bad_files_and_imports_nothing(
    run: Callable[..., Any], filled: list[str], tmp_path: Path, content: Any, reason: str
) -> None:
    path = tmp_path / "import.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    result = run("import", str(path))
    assert result.exit_code == 1
    assert "nothing was imported" in result.output
    assert reason in result.output
    assert "recursion" not in result.output.lower() and "Traceback" not in result.output
    assert all(len(line) < 300 for line in result.output.splitlines())
    with open_store(tmp_path / "games.sqlite") as store:
        assert store.game_ids() == filled


def test_import_lists_every_bad_record(run: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "import.json"
    path.write_text(json.dumps([_record(variant="chess"), _record(), _illegal_move()]))
    result = run("import", str(path))
    assert result.exit_code == 1
    assert "record 1: unknown variant" in result.output and "record 3: move 6" in result.output
    assert "record 2" not in result.output


def test_import_quotes_at_most_200_characters_of_a_bad_value(run: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "import.json"
    path.write_text(json.dumps(_record(variant="x" * 100_000)))
    result = run("import", str(path))
    assert result.exit_code == 1 and "unknown variant" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 210


def test_import_refuses_unreadable_files(run: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "import.json"
    path.write_bytes(b"\xff\xfd\x00garbage")
    result = run("import", str(path))
    assert result.exit_code == 1 and "not UTF-8" in result.output
    # (starting with UTF-16's byte-order mark it is read as UTF-16, what Windows PowerShell writes: no JSON)
    path.write_bytes(b"\xff\xfe\x00garbage")
    result = run("import", str(path))
    assert result.exit_code == 1 and "nothing was imported" in result.output
    assert "not valid JSON" in result.output
    missing = run("import", str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_commands_refuse_a_file_that_is_not_a_database(run: Callable[..., Any], tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n" * 100)
    for args in (["stats"], ["export", "--all"], ["import", str(notes)]):
        result = run(*args, db_path=notes)
        assert result.exit_code == 1, args
        assert "not a Terrace database" in result.output or "nothing was imported" in result.output
    assert notes.read_text() == "hello\n" * 100


def test_the_web_game_shows_honest_statistics(tmp_path: Path) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        from terrace.web.app import create_app

    with open_store(tmp_path / "games.sqlite") as store:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = TestClient(create_app(store), base_url="http://localhost")
        first = client.post("/api/games", json={"variant": "terrace", "deal_number": 2}).json()
        client.post(f"/api/games/{first['id']}/moves", json={"move": "c1", "after": 0})
        store.mark_assisted(first["id"])
        store.add_active_time(first["id"], 4_000)
        client.post("/api/games", json={"variant": "wood"})  # the first game is left
        stats = client.get("/api/stats").json()["overall"]
        assert (stats["played"], stats["abandoned"], stats["win_rate"]) == (1, 1, 0.0)
        assert stats["assisted"] == 1 and stats["active_seconds"] == 4.0
        game = client.get(f"/api/games/{first['id']}").json()
        assert (game["assisted"], game["active_ms"], game["won_at"]) == (True, 4_000, None)
        listed = client.get("/api/games").json()["games"]
        assert [g["assisted"] for g in listed] == [False, True]


def test_export_skips_and_names_a_game_whose_row_breaks_a_constraint(
    run: Callable[..., Any], filled: list[str], tmp_path: Path
) -> None:
    import sqlite3
    conn = sqlite3.connect(tmp_path / "games.sqlite", isolation_level=None)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute("UPDATE games SET hints = -7 WHERE id = ?", (filled[0],))
    conn.close()
    result = run("export", "--all")
    assert result.exit_code == 0
    assert f"skipped: saved game {filled[0]} is damaged" in result.output
    assert "hints must be a whole number from 0 to 1,000,000, not -7" in result.output
    result = run("stats", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["damaged"] == 1
    result = run("stats", "-v", "terrace", "--json")  # (one variant's report says so too)
    assert result.exit_code == 0 and json.loads(result.stdout)["damaged"] == 1


def test_the_warnings_of_a_damaged_database_are_warning_lines(filled: list[str], tmp_path: Path) -> None:
    """``terrace stats --json`` on a database with a damaged row wrote the
    store's logged warnings bare on standard error ("games.sqlite: some rows
    break ...", "saved game ... is damaged ..."), lines nobody could tell
    from the command's own; each is now a ``warning: ...`` line, the JSON
    alone on standard output (a real process: pytest takes the log itself)."""
    import sqlite3
    import subprocess
    import sys

    conn = sqlite3.connect(tmp_path / "games.sqlite", isolation_level=None)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute("UPDATE games SET hints = -7 WHERE id = ?", (filled[0],))
    conn.close()
    for args in (["stats", "--json"], ["stats", "-v", "terrace", "--json"], ["stats"]):
        command = [sys.executable, "-m", "terrace", *args, "--db", str(tmp_path / "games.sqlite")]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        if "--json" in args:
            assert json.loads(done.stdout)["damaged"] == 1
        lines = done.stderr.splitlines()
        assert any(f"saved game {filled[0]} is damaged" in line for line in lines), lines
        assert all(line.startswith(("warning: ", "note: ")) for line in lines), lines


CUSTOM = "terrace (custom: decks 1, reserve 0)"


def _custom_game(store: GameStore) -> None:
    """A game created as Terrace with easier rules, one move in."""
    from terrace.deal import Deal
    from terrace.variants import get_rules
    rules = get_rules("terrace", decks=1, reserve=0)
    game = store.create("terrace", rules, Deal.from_number(5, rules))
    play(store, game, ["c1"])


def test_a_game_with_custom_rules_counts_apart_from_its_preset(store: GameStore) -> None:
    finish(store, "terrace-won")
    _custom_game(store)
    stats = store.statistics()
    assert sorted(stats["variants"]) == ["terrace", CUSTOM]
    assert stats["variants"]["terrace"]["played"] == 1 and stats["variants"]["terrace"]["won"] == 1
    assert stats["variants"][CUSTOM]["played"] == 1 and stats["variants"][CUSTOM]["won"] == 0
    assert stats["overall"]["played"] == 2


def test_a_damaged_custom_game_is_left_out_of_its_group(tmp_path: Path) -> None:
    """Custom groups and the check of every read together: a read-only
    opening (terrace stats) groups by the rules and leaves out, and counts,
    a game a read refuses."""
    import sqlite3
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        finish(store, "terrace-won")
        _custom_game(store)
        _custom_game(store)
        damaged = store.game_ids()[-1]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE games SET hints = 2000000 WHERE id = ?", (damaged,))
    conn.close()
    with open_store(db, read_only=True) as store:
        stats = store.statistics()
    assert sorted(stats["variants"]) == ["terrace", CUSTOM] and stats["damaged"] == 1
    assert (stats["variants"][CUSTOM]["played"], stats["overall"]["played"]) == (1, 2)


def test_the_stats_table_titles_a_custom_group(run: Callable[..., Any], tmp_path: Path) -> None:
    with open_store(tmp_path / "games.sqlite") as store:
        finish(store, "terrace-won")
        _custom_game(store)
    lines = run("stats").output.splitlines()
    assert any(line.startswith("Terrace (custom: decks 1, terrace cards 0)") for line in lines)
    assert next(line for line in lines if line.startswith("Terrace ")).split()[1:3] == ["1", "1"]
    one = json.loads(run("stats", "--variant", "terrace", "--json").output)
    assert (one["played"], one["won"]) == (1, 1)


def test_stats_of_custom_rules_alone(run: Callable[..., Any], tmp_path: Path) -> None:
    """Games of custom rules are counted apart (the table titles them
    'Terrace (custom: decks 1, terrace cards 0)'), yet terrace stats -v took a
    preset's name only: no option asked for those games alone. The rule
    options do, as the dealing commands take them."""
    with open_store(tmp_path / "games.sqlite") as store:
        finish(store, "terrace-won")
        _custom_game(store)
    table = run("stats", "-v", "terrace", "--decks", "1", "--reserve", "0")
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    assert lines[2].startswith("Terrace (custom: decks 1, terrace cards 0)")
    assert lines[2].split()[7:9] == ["1", "0"]
    assert len(lines) == 3  # (that group alone: no other variant, no total)
    one = json.loads(run("stats", "--decks", "1", "--reserve", "0", "--json").output)  # (-v terrace)
    assert (one["variant"], one["played"], one["won"]) == (CUSTOM, 1, 0)
    assert run("stats", "-v", "terrace", "--candidates", "4").output == (
        "No games of Terrace (custom: candidates 4) played yet.\n")
    # rules that are another preset's are that preset's group, as the table counts them
    falling = run("stats", "-v", "terrace", "--candidates", "0").output
    assert falling == "No games of Falling Star played yet.\n"
    bad = run("stats", "-v", "terrace", "--candidates", "99")
    assert bad.exit_code == 2 and "candidates must be between 0 and the number of piles (9)" in bad.output
    # the row's title as the table writes it (or wrote it: option names), or the label of the JSON,
    # names the same games
    for title in ("Terrace (custom: decks 1, terrace cards 0)", "Terrace (custom: decks 1, reserve 0)",
                  CUSTOM):
        assert run("stats", "-v", title).output == table.output
        assert json.loads(run("stats", "-v", title, "--json").output) == one
    for wrong in ("Terrace (custom: frobs 1)", "Terrace (custom: decks ١)", "Terrace (custom: decks 1",
                  "Terrace (custom: foundation-return maybe)", "Terrace (custom: terrace cards many)",
                  "Terrace (custom: foundation cards may return twice)", "Terrace (custom: decks 1, decks 2)",
                  "Terrace (custom: decks 1, terrace cards 0, reserve 0)"):
        refused = run("stats", "-v", wrong)
        assert refused.exit_code == 2 and "is not a row of the table" in refused.output, refused.output


def test_a_rows_title_with_options_of_other_rules_is_a_usage_error(run: Callable[..., Any],
                                                                   tmp_path: Path) -> None:
    """-v "Terrace (custom: decks 1, terrace cards 0)" --decks 2 showed the
    statistics of Terrace (custom: terrace cards 0), status 0, the row's
    own decks overridden in silence (so --candidates 4, an option the
    title left at Terrace's 3). A row's title names all of its rules: an
    option that names other rules is refused, changing nothing; one that
    says the title's own again is taken."""
    with open_store(tmp_path / "games.sqlite") as store:
        finish(store, "terrace-won")
        _custom_game(store)
    title = "Terrace (custom: decks 1, terrace cards 0)"
    alone = run("stats", "-v", title, "--json")
    for options in (("--decks", "2"), ("--candidates", "4"), ("--foundation-return",)):
        refused = run("stats", "-v", title, *options, "--json")
        assert refused.exit_code == 2 and refused.stdout == "", refused.output
        assert f"'{title}' is a row's title, and the rule options given name another row" in refused.output
    for options in (("--decks", "1"), ("--reserve", "0", "--decks", "1"), ("--candidates", "3")):
        again = run("stats", "-v", title, *options, "--json")
        assert again.exit_code == 0 and again.output == alone.output, options


def test_identical_custom_rules_started_from_two_presets_are_one_group(run: Callable[..., Any],
                                                                        tmp_path: Path) -> None:
    """Terrace with two candidates, started as Terrace and as Falling Star
    (one candidate option apart from both), counted as two groups, so two
    rows of terrace stats and of the page ('terrace (custom: candidates 2)'
    and 'falling-star (custom: candidates 2)'). One set of rules is one
    group, named after the first of the nearest presets, in the store's
    statistics, the table, -v, and the page's stats_key of each game."""
    from terrace.deal import Deal
    from terrace.variants import get_rules
    from terrace.web.view import game_json

    rules = get_rules("terrace", candidates=2)
    with open_store(tmp_path / "games.sqlite") as store:
        for variant in ("terrace", "falling-star"):
            play(store, store.create(variant, rules, Deal.from_number(5, rules)), ["c1"])
        keys = {game_json(game, game.board())["stats_key"] for game in map(store.get, store.game_ids())}
        variants = store.statistics()["variants"]
    group = "terrace (custom: candidates 2)"
    assert keys == set(variants) == {group}
    assert variants[group]["played"] == 2
    rows = [line for line in run("stats").output.splitlines() if "custom" in line]
    assert len(rows) == 1 and rows[0].startswith("Terrace (custom: candidates 2)"), rows
    one = json.loads(run("stats", "-v", "falling-star", "--candidates", "2", "--json").output)
    assert (one["variant"], one["played"]) == (group, 2)


def test_a_custom_group_is_titled_as_the_page_titles_it(run: Callable[..., Any], tmp_path: Path) -> None:
    """terrace stats titled a custom group by option names and yes/no
    ('Terrace (custom: spaces free, foundation-return yes, promote-candidates
    no)') where the page says 'Terrace (custom: spaces any card but the
    terrace card, foundation cards may return, other candidates of the base
    rank stay put)'. The table says what the page says in English (the
    words of terrace.variants, which are the page's: checked here for every
    option and value), and -v takes that title back."""
    from terrace.deal import Deal
    from terrace.rules import RULE_OPTIONS, OptionKind
    from terrace.variants import OPTION_WORDS, SAID_YES_NO, VALUE_WORDS, get_rules
    from test_page_texts import ENGLISH as words  # (the page's English words, read from its i18n.js)

    for name, option in RULE_OPTIONS.items():
        if option.kind is OptionKind.BOOL:
            for value in ("yes", "no"):
                assert SAID_YES_NO[(name, value)] == words[f"stats.opt.{name}.{value}"]
        else:
            assert OPTION_WORDS[name] == words[f"stats.opt.{name}"]
        for choice in option.choices:
            assert VALUE_WORDS[choice] == words[f"choice.{choice}"]
    assert words["stats.custom"] == "custom"
    rules = get_rules("terrace", spaces="free", foundation_return=True, promote_candidates=False, reserve=5)
    with open_store(tmp_path / "games.sqlite") as store:
        play(store, store.create("terrace", rules, Deal.from_number(5, rules)), ["c1"])
    title = ("Terrace (custom: terrace cards 5, spaces any card but the terrace card, "
             "foundation cards may return, other candidates of the base rank stay put)")
    table = run("stats")
    assert table.exit_code == 0, table.output
    assert any(line.startswith(title) for line in table.output.splitlines()), table.output
    alone = run("stats", "-v", title)
    assert alone.exit_code == 0 and alone.output.splitlines()[2].startswith(title), alone.output
    assert alone.output == run("stats", "-v", "terrace", "--reserve", "5", "--spaces", "free",
                               "--foundation-return", "--no-promote-candidates").output


def test_stats_json_with_no_database_is_still_json(run: Callable[..., Any], tmp_path: Path) -> None:
    """A script that reads ``stats --json`` gets the statistics of no
    games, as from an empty database, and the note on standard error."""
    open_store(tmp_path / "games.sqlite").close()
    empty = json.loads(run("stats", "--json").stdout)
    missing = tmp_path / "none" / "games.sqlite"
    result = run("stats", "--json", db_path=missing)
    assert result.exit_code == 0
    assert json.loads(result.stdout) == empty and empty["overall"]["played"] == 0
    assert "there is no games database at" in result.stderr
    one = run("stats", "--variant", "wood", "--json", db_path=missing)
    assert one.exit_code == 0 and json.loads(one.stdout)["variant"] == "wood"
    assert json.loads(one.stdout)["played"] == 0
    assert not missing.parent.exists()


def test_a_win_that_equals_the_fewest_moves_is_counted_as_such() -> None:
    """The end screen calls a win a new record only when no earlier win took
    as few moves; equalling it is said apart (fewest_moves_wins)."""
    games = [facts("won", 500.0, moves=120, started=100.0), facts("won", 900.0, moves=90, started=850.0)]
    assert summarize(games)["overall"]["fewest_moves_wins"] == 1
    games.append(facts("won", 990.0, moves=90, started=950.0))
    overall = summarize(games)["overall"]
    assert (overall["fewest_moves"], overall["fewest_moves_wins"]) == (90, 2)


class _Clock:
    """A wall clock the test sets (``time.time`` everywhere), a millisecond
    on at each reading, as a real one goes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = time.time() - 86_400
        monkeypatch.setattr(time, "time", self)

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def test_a_clock_put_back_leaves_the_game_in_play_and_the_abandoned_one_as_they_are(
        store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Game A was played, the clock was put back an hour (by hand, or NTP
    after a wrong start), and game B opened and played: A, left for B, is
    abandoned, and B is the game in play. Both used to be ordered by their
    times, so A, changed "later", stayed in progress and the page went back
    to A instead of B."""
    clock = _Clock(monkeypatch)
    record = golden("terrace-won")
    left = start(store, record)
    play(store, left, record.moves[:3])
    clock.now -= 3600
    other = golden("wood-lost")
    playing = start(store, other)
    play(store, playing, other.moves[:2])
    latest = store.latest_unfinished()
    assert latest is not None and latest.id == playing.id
    block = store.statistics()["overall"]
    assert (block["played"], block["abandoned"], block["unfinished"]) == (2, 1, 1), block


def test_a_clock_put_back_keeps_the_streaks_in_the_order_results_came(
        store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A win, the clock put back an hour, then a loss: the current winning
    streak is 0 and the losing one 1 (the results were ordered by their
    times: the loss came first, and the streak read 1 win)."""
    clock = _Clock(monkeypatch)
    finish(store, "terrace-won")
    clock.now -= 3600
    finish(store, "wood-lost")
    block = store.statistics()["overall"]
    streaks = {key: block[key] for key in ("current_streak", "best_streak", "current_losing_streak",
                                           "longest_losing_streak")}
    assert streaks == {"current_streak": 0, "best_streak": 1, "current_losing_streak": 1,
                       "longest_losing_streak": 1}, streaks


def test_export_of_one_game_named_twice_writes_it_once(
        run: Callable[..., Any], filled: list[str], tmp_path: Path) -> None:
    """``--game A --game A`` wrote the game twice ("wrote 2 games"), a list
    of two copies of one record; ``--game A --game B --game A`` three."""
    out = tmp_path / "one.json"
    result = run("export", "--game", filled[0], "--game", filled[0], "-o", str(out))
    assert result.exit_code == 0 and "wrote 1 game to" in result.output, result.output
    assert json.loads(out.read_text())["saved"]["id"] == filled[0]
    listed = json.loads(run("export", "--game", filled[1], "--game", filled[0], "--game", filled[1]).output)
    assert [record["saved"]["id"] for record in listed] == [filled[1], filled[0]]


@pytest.fixture
def server_in_utc(monkeypatch: pytest.MonkeyPatch) -> Any:
    """This computer's local time is UTC for the test (as on a server or a
    container that was never told its zone)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_chart_s_days_are_the_browser_s_days(server_in_utc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game lost at 20:00 UTC on 5 December is lost on the 6th in Tokyo
    (05:00 there): the page, in Tokyo, listed the game at its Tokyo time
    (the browser writes the recent games' times) while the chart, read
    on a server whose local time is UTC, counted it on the 5th. The page
    sends its zone; a zone this computer does not know, or none, leaves
    the days in its local time, and the answer says which zone it used."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        from terrace.web.app import create_app

    evening = 1_796_500_800.0  # 2026-12-05 20:00 UTC
    monkeypatch.setattr(time, "time", lambda: evening)
    store = MemoryStore()
    finish(store, "terrace-lost")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = TestClient(create_app(store), base_url="http://localhost")

    def days(address: str) -> tuple[list[str], Any]:
        answer = client.get(address)
        assert answer.status_code == 200, answer.text
        data = answer.json()
        return [d["date"] for d in data["overall"]["days"]], data["zone"]

    assert days("/api/stats?zone=Asia/Tokyo") == (["2026-12-06"], "Asia/Tokyo")
    assert days("/api/stats?zone=America/New_York") == (["2026-12-05"], "America/New_York")
    for unknown in ("", "Mars/Olympus", "Asia", "../etc/localtime"):
        assert days(f"/api/stats?zone={unknown}") == (["2026-12-05"], None)
    assert days("/api/stats") == (["2026-12-05"], None)
    assert store.statistics()["overall"]["days"][0]["date"] == "2026-12-05"


@pytest.mark.parametrize("seq", ["7", True, 7.0, None])
def test_a_place_in_the_log_that_is_no_whole_number_is_unknown(seq: Any) -> None:
    """A game's places in the log of changes (hand-edited to text, a truth
    value or a fraction) count as unknown, so the streaks never fail on
    them (a mutation audit: ``and not bool`` read as ``or`` went
    unnoticed, and text in the log then broke the statistics' sort)."""
    row = ["terrace", "won", 10, 0, 0, 1e9, 1e9 + 60, 1e9, 1e9 + 60, None, None, 5, 0, 5, None, None, 0, 0]
    odd = GameFacts.from_row([*row, seq, seq, seq])
    assert (odd.opened_seq, odd.changed_seq, odd.result_seq) == (None, None, None)
    kept = GameFacts.from_row([*row, 1, 2, 3])
    assert (kept.opened_seq, kept.changed_seq, kept.result_seq) == (1, 2, 3)
    block = summarize([kept, odd])["overall"]
    assert block["won"] == 2 and block["best_streak"] == 2


def test_a_game_moved_in_and_played_here_leaves_the_last_game_opened_here_unfinished() -> None:
    """A game that came in by an import and was played on here keeps its
    creation time from the other computer's clock: it is not the last game
    opened here, so the game opened here last, still being played, is not
    abandoned (a mutation audit: dropping ``opened_elsewhere`` from what
    was opened here went unnoticed)."""
    left = GameFacts("terrace", "playing", 3, 0, 0, 100.0, 110.0, 105.0, None)
    moved_in = GameFacts("terrace", "won", 80, 0, 0, 500.0, 600.0, 510.0, 600.0, opened_elsewhere=True)
    block = summarize([left, moved_in])["overall"]
    assert (block["won"], block["unfinished"], block["abandoned"]) == (1, 1, 0)
    came_later = GameFacts("terrace", "playing", 0, 0, 0, 200.0, 200.0, None, None)
    block = summarize([left, moved_in, came_later])["overall"]
    assert (block["won"], block["unfinished"], block["abandoned"]) == (1, 0, 1)


@pytest.mark.parametrize(("moves", "started"), [(0, False), (1, True), (2, True)])
def test_a_game_with_a_move_and_no_start_time_counts_as_played(moves: int, started: bool) -> None:
    """A row without its first move's time (edited by hand, another tool's
    record) counts as started from its first move (a mutation audit:
    ``moves > 1`` for ``moves > 0`` went unnoticed)."""
    game = GameFacts("terrace", "lost", moves, 0, 0, 10.0, 20.0, None, 20.0)
    assert game.started is started
    assert summarize([game])["overall"]["played"] == int(started)


def test_a_game_moved_in_leaves_the_log_clock_on_this_computers_time() -> None:
    """A game opened on another computer (moved in, played on here) has
    that computer's creation time: read into the log's clock it put every
    later result here after an imported one of an earlier time, and the
    current streak counted the wrong results last."""
    moved_in = GameFacts("terrace", "playing", 3, 0, 0, 10_000.0, 300.0, 10_000.0, None,
                         opened_elsewhere=True, opened_seq=1, changed_seq=6)
    first = GameFacts("terrace", "won", 80, 0, 0, 90.0, 100.0, 95.0, 100.0, won_at=100.0,
                      opened_seq=2, changed_seq=3, result_seq=3)
    second = GameFacts("terrace", "won", 80, 0, 0, 150.0, 200.0, 155.0, 200.0, won_at=200.0,
                       opened_seq=4, changed_seq=5, result_seq=5)
    imported = GameFacts("terrace", "lost", 9, 0, 0, 4_000.0, 5_000.0, 4_001.0, 5_000.0, imported=True)
    block = summarize([moved_in, first, second, imported])["overall"]
    assert (block["won"], block["lost"]) == (2, 1)
    assert (block["current_streak"], block["best_streak"], block["current_losing_streak"]) == (0, 2, 1)


def test_a_result_with_no_time_is_counted_on_no_day() -> None:
    """A row whose times were unreadable (each read as 0) still counts its
    result, but on no calendar day (not 1 January 1970)."""
    game = GameFacts("terrace", "lost", 9, 0, 0, 0.0, 0.0, None, None)
    block = summarize([game])["overall"]
    assert (block["lost"], block["days"]) == (1, [])


def test_a_win_played_through_the_api_has_one_time_in_its_game_and_the_statistics(
    run: Callable[..., Any], tmp_path: Path
) -> None:
    """A win without reported playing time (played through the API): the
    statistics' fastest win (and ``terrace stats``) timed it from its first
    move to the win, 0:31, while the game gave the page no time at all (its
    end screen said 0:00). The game's ``won_seconds`` is that same time."""
    from terrace.storage.transfer import read_games
    from terrace.web.view import game_record

    record = _record()
    now = time.time()
    record["saved"] = {"created_at": now - 200, "updated_at": now - 68.6, "started_at": now - 100,
                       "won_at": now - 68.6, "won_moves": len(record["moves"]), "active_ms": 0}
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        [(game_id, _)] = store.add_games(read_games(json.dumps(record)))
        won_seconds = game_record(store.get(game_id))["won_seconds"]
        fastest = store.statistics()["overall"]["fastest_seconds"]
    assert won_seconds == pytest.approx(31.4) and fastest == round(won_seconds, 3)
    assert "0:31" in run("stats").output
