"""``terrace export --all`` of more games than one importable file holds:
numbered parts and an index written last; ``terrace import`` of the
index, or of several files, with one summary (the import's limit made
small here, so that five games need several parts)."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import shutil
import sys
import tracemalloc
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from click.testing import CliRunner, Result

from store_support import golden, play, start
from terrace.cli import main
from terrace.cli import parts as cli_parts
from terrace.cli import storage as cli_storage
from terrace.storage import open_store

LIMIT = 2_500
"""The import's limit in these tests: about two of their games a part."""


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of five short games (two moves to eight)."""
    db = tmp_path_factory.mktemp("parts") / "games.sqlite"
    lost = golden("terrace-lost")
    with open_store(db) as store:
        for count in (2, 3, 5, 6, 8):
            play(store, start(store, lost), lost.moves[:count])
    return db


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", LIMIT)


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _records(*files: Path) -> list[dict[str, Any]]:
    return [record for file in files for record in json.loads(file.read_text())]


def _export_in_parts(db: Path, backup: Path) -> list[Path]:
    """Export every game of ``db`` to ``backup`` in parts; the parts' files."""
    result = _run("export", "--all", "--db", str(db), "-o", str(backup))
    assert result.exit_code == 0, result.output
    index = json.loads(backup.read_text())
    parts = [backup.with_name(part["file"]) for part in index["parts"]]
    assert f"wrote 5 games in {len(parts)} parts, {parts[0].name} to {parts[-1].name}" in result.output
    return parts


@pytest.mark.usefixtures("small_limit")
def test_an_export_too_large_for_one_file_is_written_in_parts_that_restore_the_same_games(
    saved: Path, tmp_path: Path
) -> None:
    """The old code refused it ("export them in parts with --game ID"):
    now every part is within the limit, the index names them, and an
    import of the index into an empty database restores the same games
    with the same statistics."""
    backup = tmp_path / "backup.json"
    parts = _export_in_parts(saved, backup)
    assert len(parts) >= 3 and [path.name for path in parts] == [f"backup-{n}.json" for n in
                                                                 range(1, len(parts) + 1)]
    assert all(len(path.read_bytes()) <= LIMIT for path in parts)
    assert json.loads(backup.read_text())["games"] == len(_records(*parts)) == 5
    restored = tmp_path / "restored.sqlite"
    imported = _run("import", "--db", str(restored), str(backup))
    assert imported.exit_code == 0 and f"imported 5 games from {len(parts)} files" in imported.output, \
        imported.output
    assert _run("stats", "--json", "--db", str(restored)).output == _run("stats", "--json", "--db",
                                                                         str(saved)).output
    again = _export_in_parts(restored, tmp_path / "again.json")
    assert _records(*again) == _records(*parts)


@pytest.mark.usefixtures("small_limit")
@pytest.mark.parametrize("fault", ["missing", "damaged", "emptied", "index names a file elsewhere"])
def test_an_index_whose_part_is_missing_or_damaged_imports_nothing(saved: Path, tmp_path: Path,
                                                                   fault: str) -> None:
    """Every part is checked against the index (size and SHA-256) before
    any is imported: none of them is imported when one is wrong."""
    backup = tmp_path / "backup.json"
    parts = _export_in_parts(saved, backup)
    if fault == "missing":
        parts[1].unlink()
        said = "backup-2.json is missing"
    elif fault == "damaged":
        parts[1].write_bytes(parts[1].read_bytes().replace(b'"moves":["', b'"moves":["s",', 1))
        said = "backup-2.json is not the part the index names"
    elif fault == "emptied":
        parts[1].write_bytes(b"")
        said = "backup-2.json is not the part the index names (0 bytes"
    else:
        index = json.loads(backup.read_text())
        index["parts"][0]["file"] = "../backup-1.json"
        backup.write_text(json.dumps(index))
        said = "backup.json is no sound index of parts"
    restored = tmp_path / "restored.sqlite"
    result = _run("import", "--db", str(restored), str(backup))
    assert result.exit_code == 1 and said in result.output, result.output
    assert not restored.exists()


@pytest.mark.usefixtures("small_limit")
@pytest.mark.parametrize(("failing", "before"), [(2, "the 1 part was"), (4, "the 3 parts were")],
                         ids=["at the second part", "at the index"])
def test_a_disk_that_fills_mid_export_leaves_no_part_and_the_old_backup_as_it_was(
    saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: int, before: str
) -> None:
    """Each part and the index are written under a temporary name, and all
    renamed once every one is: the disk full at the second part, or at the
    index after the three parts, removes what was written, and the file
    there (the backup of before) is left as it was."""
    backup = tmp_path / "backup.json"
    backup.write_text("[]\n")
    calls: list[Path] = []
    opened = cli_parts.open_new

    def filling(path: Path) -> BinaryIO:
        calls.append(path)
        file = opened(path)
        if len(calls) == failing:  # (the disk fills as the part or the index is written)
            def full(data: bytes) -> int:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            file.write = full  # type: ignore[method-assign]
        return file

    monkeypatch.setattr(cli_parts, "open_new", filling)
    result = _run("export", "--all", "--db", str(saved), "-o", str(backup))
    assert result.exit_code == 1, result.output
    assert "nothing was exported: cannot write" in result.output
    assert f"No space left on device; {before} written before removed" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["backup.json"]
    assert backup.read_text() == "[]\n"


def test_several_files_import_one_after_another_with_one_summary(saved: Path, tmp_path: Path) -> None:
    """The old import took one FILE ("Got unexpected extra argument"); a
    bad file stops the import there, the files before it stay imported."""
    copy = tmp_path / "games.sqlite"
    shutil.copy(saved, copy)
    ids = [record["saved"]["id"] for record in json.loads(_run("export", "--all", "--db", str(copy)).output)]
    first, second, bad = tmp_path / "first.json", tmp_path / "second.json", tmp_path / "bad.json"
    assert _run("export", "--db", str(copy), "--game", ids[0], "-o", str(first)).exit_code == 0
    both = ["--game", ids[1], "--game", ids[2]]
    assert _run("export", "--db", str(copy), *both, "-o", str(second)).exit_code == 0
    bad.write_text('[{"variant": "nope"}]')
    restored = tmp_path / "restored.sqlite"
    result = _run("import", "--db", str(restored), str(first), str(second))
    assert result.exit_code == 0 and result.output == "imported 3 games from 2 files\n", result.output
    stopped = _run("import", "--db", str(restored), str(first), str(bad), str(second))
    assert stopped.exit_code == 1, stopped.output
    assert f"{bad}: nothing was imported:" in stopped.output
    assert f"(before it, imported 0 games (1 already here) from {first}, which stay; the files after it" \
        in stopped.output


def test_a_smaller_export_removes_the_parts_of_the_earlier_one_it_no_longer_names(
    saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export in 3 parts, then one in 2 over it, then one in a single
    file: the old code left backup-3.json (and then every part) beside an
    index that no longer named it, and `import backup*.json` took it in.
    Now a part the earlier index named, as it wrote it, is removed; a part
    changed since, and any file no index names, are left as they are."""
    backup = tmp_path / "backup.json"
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", LIMIT)
    assert len(_export_in_parts(saved, backup)) == 3
    stranger = tmp_path / "backup-4.json"
    stranger.write_text("[]\n")  # (no index names it: not ours)
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", 3_300)
    result = _run("export", "--all", "--db", str(saved), "-o", str(backup))
    assert result.exit_code == 0, result.output
    assert "removed 1 part of the earlier export to" in result.output and "backup-3.json" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "backup-1.json", "backup-2.json", "backup-4.json", "backup.json"]
    assert stranger.read_text() == "[]\n"
    edited = tmp_path / "backup-2.json"
    edited.write_bytes(edited.read_bytes() + b" ")  # (changed by hand since: not the part the index names)
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", 64 * 2**20)
    whole = _run("export", "--all", "--db", str(saved), "-o", str(backup))
    assert whole.exit_code == 0, whole.output
    assert "wrote 5 games to" in whole.output and "removed 1 part" in whole.output
    assert "note: 1 part of the earlier export to" in whole.output and "changed since" in whole.output
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "backup-2.json", "backup-4.json", "backup.json"]
    assert len(json.loads(backup.read_text())) == 5


@pytest.mark.usefixtures("small_limit")
def test_the_parts_given_by_name_import_as_their_index_does(saved: Path, tmp_path: Path) -> None:
    """`terrace import backup-1.json backup-2.json backup-3.json` stored
    the parts one after another: the later parts' games came in as games
    from elsewhere, and the statistics said 3 games abandoned where the
    original had 4. Given all (in any order, or with the index), the parts
    are imported as their index imports them: the same statistics."""
    backup = tmp_path / "backup.json"
    parts = _export_in_parts(saved, backup)
    original = _run("stats", "--json", "--db", str(saved)).output
    for number, files in enumerate([parts, parts[::-1], [backup, *parts]]):
        restored = tmp_path / f"restored-{number}.sqlite"
        imported = _run("import", "--db", str(restored), *map(str, files))
        assert imported.exit_code == 0, imported.output
        assert f"imported 5 games from {len(parts)} files" in imported.output, imported.output
        assert _run("stats", "--json", "--db", str(restored)).output == original


@pytest.mark.usefixtures("small_limit")
def test_some_parts_given_by_name_are_refused_with_the_index_to_import(saved: Path, tmp_path: Path) -> None:
    """A part alone, or some of them, would bring their games in as games
    from elsewhere: refused before anything is read, naming the index."""
    backup = tmp_path / "backup.json"
    parts = _export_in_parts(saved, backup)
    restored = tmp_path / "restored.sqlite"
    for files in ([parts[1]], [parts[0], parts[2]]):
        result = _run("import", "--db", str(restored), *map(str, files))
        assert result.exit_code == 1, result.output
        assert (f"nothing was imported: {files[0].name} is part {parts.index(files[0]) + 1} of the 3 parts "
                f"of the export {backup}") in result.output
        assert f"not given: import {backup}, which imports every part in one go" in result.output
        assert not restored.exists()
    copied = tmp_path / "elsewhere.json"  # (no index beside it: a file of records as any other)
    shutil.copy(parts[1], copied)
    assert _run("import", "--db", str(restored), str(copied)).exit_code == 0


@pytest.mark.usefixtures("small_limit")
def test_each_record_is_put_into_compact_json_once(saved: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The old code wrote every record compactly to try one file, and again
    for the parts (and each record indented, until that outgrew the
    limit): now each record once compact."""
    compact: list[int] = []
    dumps = json.dumps

    def counting(value: Any, **options: Any) -> str:
        caller = sys._getframe(1).f_globals["__name__"]  # (the export's own, not the store's)
        if options.get("separators") == (",", ":") and caller.startswith("terrace.cli"):
            compact.append(1)
        return dumps(value, **options)

    monkeypatch.setattr(json, "dumps", counting)
    _export_in_parts(saved, tmp_path / "backup.json")
    assert len(compact) == 5


def _bench_build() -> Any:
    """``build`` of bench/stats_many.py: a database of many games, copied by SQL."""
    path = Path(__file__).resolve().parent.parent / "bench" / "stats_many.py"
    spec = importlib.util.spec_from_file_location("stats_many", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build


def test_the_memory_of_an_export_does_not_grow_with_its_games(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The old code held every record until the end (366 MB at 32,000
    games): its peak (tracemalloc) grew 1.25 MB from 100 games to 400.
    Each record is now written as it is read and let go: what grows is
    each game's id and places in the log, 0.05 MB for those 300 games."""
    monkeypatch.setattr(cli_storage, "MAX_IMPORT_BYTES", 60_000)  # (in parts, either)
    build = _bench_build()
    for games in (100, 400):
        build(tmp_path / f"{games}.sqlite", games)
    # (the copies are dated in the past: every one is exported; they were
    # dated ahead of the clock, which the export skips, and the test moved
    # the clock 3 days on for them)
    peaks = []
    for games in (100, 400):
        db = tmp_path / f"{games}.sqlite"
        tracemalloc.start()
        result = _run("export", "--all", "--db", str(db), "-o", str(tmp_path / f"{games}.json"))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert result.exit_code == 0 and f"wrote {games} games in" in result.output, result.output
    assert peaks[1] - peaks[0] < 600_000, peaks
