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
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from terrace.cli.output import write_whole
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


def compact_parts(records: Iterable[dict[str, Any]], limit: int) -> Iterator[tuple[str, int]]:
    """The records as compact JSON lists of at most ``limit`` bytes each,
    in order, with how many records each holds; a record that alone is
    larger is refused.

    >>> list(compact_parts([{"a": 1}, {"b": 22}, {}], 19))
    [('[{"a":1},{"b":22}]\\n', 2), ('[{}]\\n', 1)]
    """
    chunk: list[str] = []
    size = len("[]\n")
    for record in records:
        item = json.dumps(record, separators=(",", ":"), ensure_ascii=True)
        grown = size + len(item) + (1 if chunk else 0)  # (the comma before it)
        if grown > limit and chunk:
            yield "[" + ",".join(chunk) + "]\n", len(chunk)
            chunk, size = [], len("[]\n")
            grown = size + len(item)
        if grown > limit:
            game = record.get("saved", {}).get("id", "?")
            raise click.ClickException(f"nothing was exported: game {clip(str(game))} alone takes "
                                       f"{len(item) / 2**20:.0f} MB, more than an import reads")
        chunk.append(item)
        size = grown
    if chunk:
        yield "[" + ",".join(chunk) + "]\n", len(chunk)


def write_parts(output: Path, texts: Iterable[tuple[str, int]], check: Callable[[Path], None]) -> list[Part]:
    """Write the parts beside ``output``, then ``output``, the index naming
    them (``check`` refuses a part's file that must not be written over):
    each under a temporary name first, all renamed to their own names once
    every one is written, the index last, so that a failure (a full disk)
    leaves none of them and the files of an earlier export as they were;
    raises ``click.ClickException`` saying so."""
    parts: list[Part] = []
    written: list[Path] = []
    try:
        for number, (text, games) in enumerate(texts, 1):
            if number > MAX_PARTS:
                raise click.ClickException(f"the games need more than {MAX_PARTS:,} parts")
            final = part_path(output, number)
            check(final)
            data = text.encode("ascii")
            write_whole(_writing(final), data)
            written.append(final)
            parts.append(Part(final.name, games, len(data), hashlib.sha256(data).hexdigest()))
        index = Path(os.path.realpath(output))  # (a link to the index stays one)
        write_whole(_writing(index), index_text(parts))
        written.append(index)
    except click.ClickException as error:
        _remove(written)
        count = f"{len(written)} part{' was' if len(written) == 1 else 's were'}"
        raise click.ClickException(
            f"nothing was exported: {error.message.removeprefix('nothing was exported: ')}; the {count} "
            f"written before removed, and {clip(str(output))} was left as it was") from None
    except BaseException:
        _remove(written)
        raise
    for final in written:
        os.replace(_writing(final), final)
    return parts


def _remove(written: list[Path]) -> None:
    """Remove the files written so far under their temporary names."""
    for final in written:
        _writing(final).unlink(missing_ok=True)


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
