"""An export of more games than one importable file holds: numbered parts
beside the output (``backup-1.json``, ``backup-2.json``, ...), each a JSON
list of records that imports on its own, and the output itself an index
naming them with their sizes and SHA-256 digests, written last. ``terrace
import`` of the index imports every part, once all of them are there and
unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import re
import string
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import click

from terrace.refusals import clip

INDEX_KEY = "terrace_export_parts"
"""The key that makes a JSON object an index of parts (its value: the format, 1)."""
INDEX_FORMAT = 1
MAX_PARTS = 10_000
"""The most parts an index names."""
MAX_INDEX_BYTES = 2**20
"""The largest file read as an index (one of :data:`MAX_PARTS` parts is about 1 MB)."""
WRITING = ".partial"
"""The ending of a part's name while it is written (renamed when every part is)."""


@dataclass(frozen=True)
class Part:
    """One part an index names: its file (in the index's folder), how
    many games it holds, its size in bytes and its SHA-256 digest in hex."""

    file: str
    games: int
    size: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        """The part as the index writes it."""
        return {"file": self.file, "games": self.games, "bytes": self.size, "sha256": self.sha256}


def part_path(output: Path, number: int) -> Path:
    """The file of part ``number`` of an export to ``output``.

    >>> part_path(Path("/b/backup.json"), 2), part_path(Path("games"), 10)
    (PosixPath('/b/backup-2.json'), PosixPath('games-10'))
    """
    return output.with_name(f"{output.stem}-{number}{output.suffix}")


class Spool:
    """The records of ``export --all`` as they are read, each put into JSON
    once and let go: compact, into numbered parts that each hold at most
    ``limit`` bytes (the first in a temporary file until a second is
    needed, then under its temporary name beside ``output``, as the others),
    and indented, into a temporary file, while the indented list stays
    within ``limit``. With no ``output`` (standard output, a pipe: no
    parts) the compact list is kept while it fits, and then only measured.
    :meth:`one_file` gives the one file when the games fit one (indented if
    they can be), else :meth:`write_parts` writes the parts and their index;
    memory does not grow with the games. ``check`` refuses a part's file
    that must not be written over."""

    def __init__(self, output: Path | None, limit: int, check: Callable[[Path], None]) -> None:
        self.output = output
        self.limit = limit
        self.check = check
        self.records = 0
        self.size = 0
        """The bytes of the records as one compact list (each with the comma or bracket after it)."""
        self.indented: BinaryIO | None = _spool()
        self.indented_size = len("[\n") + len("\n]\n") - len(",\n")
        self.parts: list[Part] = []
        """The parts written whole (under their temporary names)."""
        self.part: _Writing | None = None
        self.overflown = False
        """Whether the compact list outgrew ``limit`` with no parts to go to."""

    def add(self, record: dict[str, Any]) -> None:
        """Write ``record`` on (once compact; indented while that fits)."""
        with self._failing():
            self._add(record)

    def _add(self, record: dict[str, Any]) -> None:
        item = json.dumps(record, separators=(",", ":"), ensure_ascii=True).encode("ascii")
        self.size += len(item) + 1
        if self.output is not None and len(item) + len("[]\n") > self.limit:
            game = record.get("saved", {}).get("id", "?")
            raise click.ClickException(f"nothing was exported: game {clip(str(game))} alone takes "
                                       f"{len(item) / 2**20:.0f} MB, more than an import reads")
        if self.indented is not None:
            text = "  " + json.dumps(record, indent=2, ensure_ascii=True).replace("\n", "\n  ")
            self.indented_size += len(",\n") + len(text)
            if self.indented_size > self.limit:
                self.indented.close()
                self.indented = None
            else:
                _write(self.indented, (b"[\n" if self.records == 0 else b",\n") + text.encode("ascii"), None)
        self.records += 1
        self._compact(item)

    def _compact(self, item: bytes) -> None:
        """Add ``item`` to the current part, or to a new one when it does not fit."""
        part = self.part
        if part is not None and part.size + len(b",") + len(item) + len(b"]\n") > self.limit:
            if self.output is None:
                self.overflown = True
                part.discard()
                self.part = None
                return
            if part.final is None:  # (the first, kept apart until a second is needed)
                self.check(part_path(self.output, 1))
                part.name(part_path(self.output, 1))
            self.parts.append(part.close())
            self.part = part = None
        if self.overflown:
            return
        if part is None:
            part = self.part = self._open(len(self.parts) + 1)
            part.write(b"[" + item)
        else:
            part.write(b"," + item)
        part.games += 1

    def _open(self, number: int) -> _Writing:
        """Part ``number``, begun (the first in a temporary file)."""
        if self.output is None or number == 1:
            return _Writing(None)
        if number > MAX_PARTS:
            raise click.ClickException(f"the games need more than {MAX_PARTS:,} parts")
        final = part_path(self.output, number)
        self.check(final)
        return _Writing(final)

    def one_file(self) -> bytes | None:
        """The whole export as one file, indented if that fits, else
        compact; None when the games need parts (or, with no parts, more
        than one file holds: :attr:`size` says how much)."""
        if self.records == 0:
            return b"[]\n"
        with self._failing():
            if self.indented is not None:
                _write(self.indented, b"\n]\n", None)
                return _written(self.indented)
            if self.parts or self.part is None:
                return None
            return self.part.text()

    def write_parts(self) -> list[Part]:
        """Write the last part, then the index naming them all at ``output``:
        every one under a temporary name first, all renamed to their own
        names once every one is written, the index last, so that a failure
        (a full disk) leaves none of them and the files of an earlier
        export as they were."""
        assert self.output is not None and self.part is not None
        with self._failing():
            self.parts.append(self.part.close())
            self.part = None
            writing = _Writing(index := Path(os.path.realpath(self.output)))  # (a link to it stays one)
            writing.write(index_text(self.parts).encode("ascii"))
            writing.close()
        for final in [*(part_path(self.output, number) for number in range(1, len(self.parts) + 1)), index]:
            os.replace(_writing(final), final)
        return self.parts

    def discard(self) -> None:
        """Remove every file written under a temporary name (none once
        :meth:`write_parts` renamed them)."""
        if self.indented is not None:
            self.indented.close()
            self.indented = None
        if self.part is not None:
            self.part.discard()
            self.part = None
        if self.output is not None:
            for number in range(1, len(self.parts) + 1):
                _writing(part_path(self.output, number)).unlink(missing_ok=True)
            _writing(Path(os.path.realpath(self.output))).unlink(missing_ok=True)

    @contextmanager
    def _failing(self) -> Iterator[None]:
        """Refuse the export on a failure (a full disk), once every file
        written is removed, saying so."""
        try:
            yield
        except click.ClickException as error:
            self.discard()
            why = f"nothing was exported: {error.message.removeprefix('nothing was exported: ')}"
            if self.output is None:
                raise click.ClickException(why) from None
            count = f"{len(self.parts)} part{' was' if len(self.parts) == 1 else 's were'}"
            raise click.ClickException(f"{why}; the {count} written before removed, and "
                                       f"{clip(str(self.output))} was left as it was") from None
        except BaseException:
            self.discard()
            raise


class _Writing:
    """A part (or the index) being written under the temporary name of
    ``final``, or, with none, into a temporary file; with its size, digest
    and games."""

    def __init__(self, final: Path | None) -> None:
        self.final = final
        self.file: BinaryIO | None = _spool() if final is None else open_new(_writing(final))
        self.size = 0
        self.games = 0
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> None:
        """Write ``data`` on; a failure (a full disk) is refused naming the file."""
        assert self.file is not None
        _write(self.file, data, self.final)
        self.size += len(data)
        self.digest.update(data)

    def name(self, final: Path) -> None:
        """Go on under the temporary name of ``final``, what was written so far copied there."""
        assert self.file is not None and self.final is None
        named = open_new(_writing(final))
        self.final = final
        self.file.seek(0)
        spooled, self.file = self.file, named
        with spooled:
            while chunk := spooled.read(2**20):
                _write(named, chunk, final)

    def close(self) -> Part:
        """End the part (its list closed; the index as it is), on the disk,
        and say what it is."""
        if self.games:
            self.write(b"]\n")
        assert self.file is not None and self.final is not None
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
        except OSError as error:
            raise click.ClickException(f"cannot write {clip(str(self.final))}: {error.strerror or error}"
                                       ) from None
        self.file = None
        return Part(self.final.name, self.games, self.size, self.digest.hexdigest())

    def text(self) -> bytes:
        """Everything written to the temporary file, the list closed (the one file)."""
        self.write(b"]\n")
        assert self.file is not None and self.final is None
        return _written(self.file)

    def discard(self) -> None:
        """Let the part go, its file removed."""
        if self.file is not None:
            self.file.close()
            self.file = None
        if self.final is not None:
            _writing(self.final).unlink(missing_ok=True)


def open_new(path: Path) -> BinaryIO:
    """``path`` opened to be written anew (a link there is not followed)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
    except OSError as error:
        raise click.ClickException(f"cannot write {clip(str(path))}: {error.strerror or error}") from None
    return os.fdopen(handle, "wb")


def _spool() -> BinaryIO:
    """A temporary file, gone once closed (in the system's temporary folder)."""
    try:
        return tempfile.TemporaryFile()
    except OSError as error:
        raise click.ClickException(f"cannot write a temporary file: {error.strerror or error}") from None


def _written(file: BinaryIO) -> bytes:
    """Everything written to the temporary file ``file``."""
    try:
        file.seek(0)
        return file.read()
    except OSError as error:
        raise click.ClickException(f"cannot write a temporary file: {error.strerror or error}") from None


def _write(file: BinaryIO, data: bytes, final: Path | None) -> None:
    """Write ``data`` to ``file``, the part of ``final`` (None: a temporary
    file); a failure (a full disk) is refused naming it."""
    try:
        file.write(data)
    except OSError as error:
        raise click.ClickException(f"cannot write {clip(str(final or 'a temporary file'))}: "
                                   f"{error.strerror or error}") from None


def _writing(final: Path) -> Path:
    """The name a part or the index is written under before all are."""
    return final.with_name(f".{final.name}{WRITING}")


def index_text(parts: list[Part]) -> str:
    """The index of ``parts``, as JSON."""
    document = {INDEX_KEY: INDEX_FORMAT, "games": sum(part.games for part in parts),
                "parts": [part.to_dict() for part in parts]}
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def read_index(text: str, name: str) -> list[Part] | None:
    """The parts the index ``text`` names, or None when it is no index
    (records); an index that is not sound is refused."""
    if len(text) > MAX_INDEX_BYTES or not text.lstrip().startswith("{") or f'"{INDEX_KEY}"' not in text:
        return None
    try:
        document = json.loads(text)
    except ValueError:
        return None  # (the records' reading says what is wrong)
    if not isinstance(document, dict) or INDEX_KEY not in document:
        return None
    shape = (f"{name} is no sound index of parts: it needs {INDEX_KEY!r}: {INDEX_FORMAT}, and 'parts': "
             f"a list of 1 to {MAX_PARTS:,} parts, each with 'file' (a name in its folder, each once), "
             "'games', 'bytes' and 'sha256'")
    if document[INDEX_KEY] != INDEX_FORMAT or set(document) - {INDEX_KEY, "games", "parts"}:
        raise click.ClickException(shape)
    listed = document.get("parts")
    if not isinstance(listed, list) or not 0 < len(listed) <= MAX_PARTS:
        raise click.ClickException(shape)
    parts = [_part(item) for item in listed]
    if None in parts or len({part.file for part in parts if part}) != len(parts):
        raise click.ClickException(shape)
    return [part for part in parts if part]


def _part(item: Any) -> Part | None:
    """One part of an index, or None when it is not one."""
    if not isinstance(item, dict) or set(item) != {"file", "games", "bytes", "sha256"}:
        return None
    file, games, size, digest = item["file"], item["games"], item["bytes"], item["sha256"]
    plain = (isinstance(file, str) and file not in ("", ".", "..") and "/" not in file
             and "\\" not in file and "\0" not in file)
    whole = all(isinstance(value, int) and not isinstance(value, bool) and value >= 0
                for value in (games, size))
    hexed = isinstance(digest, str) and len(digest) == 64 and set(digest) <= set(string.hexdigits.lower())
    return Part(file, games, size, digest) if plain and whole and hexed else None


def part_fault(data: bytes | str, part: Part) -> str | None:
    """What is wrong with the bytes read of ``part`` (a text: what kept
    them from being read), or None when they are the ones the index names."""
    if isinstance(data, str):
        return data
    if len(data) != part.size or hashlib.sha256(data).hexdigest() != part.sha256:
        return (f"is not the part the index names ({len(data):,} bytes, not {part.size:,}, or other "
                "content): damaged or changed since the export")
    return None


def index_parts(output: Path) -> list[Part]:
    """The parts that the file at ``output`` names when it is the index of
    an export (an earlier export's, read before a new export writes over
    it); none when it is no sound index, or not there."""
    try:
        if not output.is_file() or output.stat().st_size > MAX_INDEX_BYTES:
            return []
        text = output.read_text(encoding="utf-8")
        return read_index(text, str(output)) or []
    except (OSError, UnicodeDecodeError, click.ClickException):
        return []


def remove_earlier(output: Path, earlier: list[Part], written: set[str]) -> tuple[list[str], list[str]]:
    """Remove the parts of the earlier export to ``output`` (``earlier``,
    as its index named them) that the new export did not write over (the
    names ``written``): only a regular file of a part's name
    (:func:`part_path`) whose size and digest are still those its index
    gave, so that no file that is not ours is removed. Gives the names of
    the parts removed and of those left because they changed since."""
    ours = {part_path(output, number).name for number in range(1, len(earlier) + 1)}
    removed: list[str] = []
    kept: list[str] = []
    for part in earlier:
        path = output.with_name(part.file)
        if part.file in written or part.file not in ours or path.is_symlink() or not path.is_file():
            continue
        try:
            same = is_part(path, part)
            if same:
                path.unlink()
        except OSError:
            same = False
        (removed if same else kept).append(part.file)
    return removed, kept


def is_part(path: Path, part: Part) -> bool:
    """Whether the file ``path`` is ``part`` as its index names it (its size
    and SHA-256 digest; the file read a piece at a time)."""
    if path.stat().st_size != part.size:
        return False
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(2**20):
            digest.update(chunk)
    return digest.hexdigest() == part.sha256


def index_of(path: Path) -> tuple[Path, list[Part]] | None:
    """The index beside the file ``path`` that names it as one of its parts
    (``backup.json`` for ``backup-2.json``, the file as the index gives it),
    with every part it names; None when ``path`` is no such part.

    >>> index_of(Path("/nowhere/backup-2.json")) is None
    True
    """
    match = re.fullmatch(r"(.+)-[1-9][0-9]*", path.stem)
    if match is None:
        return None
    index = path.with_name(match[1] + path.suffix)
    parts = index_parts(index)
    part = next((part for part in parts if part.file == path.name), None)
    try:
        return (index, parts) if part is not None and path.is_file() and is_part(path, part) else None
    except OSError:
        return None
