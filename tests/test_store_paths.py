"""Where the two databases live: the games and, beside them, the solver's
verdict cache; ``--verdicts-db`` on ``deal`` and ``survey``, and ``--db``,
its deprecated old name."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from store_support import no_default_db
from terrace.cli import main
from terrace.solver.verdicts import VerdictStore
from terrace.storage import MemoryStore, StoreError, default_games_path, default_verdicts_path, open_store
from terrace.storage.paths import VERDICTS_FILE_NAME, games_path, verdicts_path
from terrace.variants import get_rules

_ = no_default_db


def test_the_verdicts_live_beside_the_games(tmp_path: Path) -> None:
    games = tmp_path / "backup" / "games.sqlite"
    assert verdicts_path(games) == tmp_path / "backup" / VERDICTS_FILE_NAME
    with open_store(games) as store:
        assert store.verdicts_path == tmp_path / "backup" / VERDICTS_FILE_NAME
    with open_store(":memory:") as memory:
        assert memory.verdicts_path == default_verdicts_path()
    assert MemoryStore().verdicts_path == default_verdicts_path()


def test_the_defaults_follow_terrace_db_else_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERRACE_DB", str(tmp_path / "mine" / "games.sqlite"))
    assert default_games_path() == tmp_path / "mine" / "games.sqlite"
    assert default_verdicts_path() == tmp_path / "mine" / VERDICTS_FILE_NAME
    monkeypatch.delenv("TERRACE_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_games_path() == tmp_path / "data" / "terrace" / "games.sqlite"
    assert default_verdicts_path() == tmp_path / "data" / "terrace" / VERDICTS_FILE_NAME
    assert games_path(":memory:") is None and games_path(None) == default_games_path()


def test_terrace_db_in_memory_keeps_the_verdicts_in_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``TERRACE_DB=:memory:`` names no folder: the verdicts go to the user
    data folder, not to a solver.sqlite3 in the current directory."""
    monkeypatch.setenv("TERRACE_DB", ":memory:")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    expected = tmp_path / "data" / "terrace" / VERDICTS_FILE_NAME
    assert default_verdicts_path() == expected
    assert verdicts_path(":memory:") == verdicts_path(None) == expected
    with open_store(None) as store:
        assert store.verdicts_path == expected
    assert MemoryStore().verdicts_path == expected


def _deal(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main, ["deal", "--variant", "falling-star", "--winnable", "--max-seconds", "2", *args]
    )
    return result.exit_code, result.stdout, result.stderr


def test_deal_keeps_its_verdicts_in_verdicts_db(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite3"
    code, out, err = _deal("--verdicts-db", str(cache))
    assert code == 0, err
    assert out.startswith("# rules: --variant falling-star\n") and len(out.splitlines()[-1].split()) == 104
    assert "deprecated" not in err
    number = int(err.split("# deal number ")[1].split()[0])
    store = VerdictStore(str(cache))
    try:
        found = store.get(get_rules("falling-star"), number)
        assert found is not None and found.result == "won"
    finally:
        store.close()


def test_db_on_deal_still_works_with_a_deprecation_note(tmp_path: Path) -> None:
    cache = tmp_path / "old.sqlite3"
    code, _, err = _deal("--db", str(cache))
    assert code == 0, err
    assert "--db on this command is deprecated" in err and "--verdicts-db" in err
    assert cache.is_file()
    code, _, err = _deal("--db", str(cache), "--verdicts-db", str(cache))
    assert code == 2 and "give --verdicts-db only" in err


def test_deal_without_an_option_uses_the_file_beside_the_games(tmp_path: Path) -> None:
    code, _, err = _deal()
    assert code == 0, err
    assert (tmp_path / VERDICTS_FILE_NAME).is_file()  # TERRACE_DB points into tmp_path


def test_survey_takes_verdicts_db_and_the_old_db(tmp_path: Path) -> None:
    for option in ("--verdicts-db", "--db"):
        cache = tmp_path / f"{option.strip('-')}.sqlite3"
        result = CliRunner().invoke(main, [
            "survey", "--variant", "falling-star", "--deals", "1-2", "--jobs", "1",
            "--max-seconds", "1", option, str(cache), "--out", str(tmp_path / "out"),
        ])
        assert result.exit_code == 0, result.output
        assert cache.is_file()
        assert ("deprecated" in result.stderr) == (option == "--db")


def test_both_databases_make_a_missing_folder_and_name_a_blocked_one_alike(tmp_path: Path) -> None:
    """The games database (``play``, ``import``) and the verdict cache
    (``deal --winnable``, ``survey``) both make the folders their file
    needs; a folder that is a file is refused by both in the same words,
    and the reading commands (``stats``, ``export``) make nothing."""
    record = str(Path(__file__).parent / "golden" / "terrace-won.json")
    runner = CliRunner()
    made = runner.invoke(main, ["import", record, "--db", str(tmp_path / "a" / "b" / "games.sqlite")])
    assert made.exit_code == 0 and (tmp_path / "a" / "b" / "games.sqlite").is_file(), made.output
    made = runner.invoke(main, ["deal", "--winnable", "-n", "1", "--verdicts-db",
                                str(tmp_path / "c" / "d" / "v.sqlite")])
    assert made.exit_code == 0 and (tmp_path / "c" / "d" / "v.sqlite").is_file(), made.output
    (tmp_path / "file").write_text("")
    games = runner.invoke(main, ["import", record, "--db", str(tmp_path / "file" / "x" / "games.sqlite")])
    verdicts = runner.invoke(main, ["deal", "--winnable", "-n", "1", "--verdicts-db",
                                    str(tmp_path / "file" / "x" / "games.sqlite")])
    assert games.exit_code == verdicts.exit_code == 1
    assert games.stderr == verdicts.stderr == "Error: cannot read games.sqlite: Not a directory\n"
    for command in ("stats", "export --all"):
        runner.invoke(main, [*command.split(), "--db", str(tmp_path / "e" / "games.sqlite")])
    assert not (tmp_path / "e").exists()


def test_a_verdict_cache_made_through_a_symbolic_link_and_left_empty_goes_but_the_link_stays(
    tmp_path: Path,
) -> None:
    """A cache that stored nothing is deleted on the way out; through a link
    that named no file yet, that is the file SQLite made where the link
    points (the link itself deleted, that file was left behind)."""
    link = tmp_path / "verdicts.sqlite"
    link.symlink_to("elsewhere.sqlite")
    store = VerdictStore(str(link))
    assert store.made and (tmp_path / "elsewhere.sqlite").exists()
    store.close_or_discard()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["verdicts.sqlite"]
    assert link.is_symlink() and not link.exists()


def test_terrace_db_ending_in_a_slash_is_refused_and_makes_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``--db games.sqlite/`` is: the slash names a folder (the path
    without it made the file ``games.sqlite``)."""
    monkeypatch.setenv("TERRACE_DB", f"{tmp_path / 'games.sqlite'}/")
    winnable = ["deal", "-n", "3", "--winnable", "--max-seconds", "0.1"]
    for command in (["stats"], ["export", "--all"], winnable):
        done = CliRunner().invoke(main, command)
        assert done.exit_code == 1, (command, done.output)
        assert done.output.endswith("sqlite/ ends in /, which names a folder: give the name of a file\n")
    with pytest.raises(StoreError, match=r"^TERRACE_DB="):
        open_store(None)
    assert list(tmp_path.iterdir()) == []
