"""``terrace stats``, ``terrace export`` and ``terrace import``.

Each of the three takes ``--db PATH`` (default: ``$TERRACE_DB``, else
``games.sqlite`` in the user data folder).
"""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from terrace.cli.commands import command
from terrace.cli.options import (
    FilePath,
    InputFault,
    WholeNumber,
    db_option,
    file_text,
    games_db_file,
    input_refusal,
    once_option,
    placed,
    read_input,
    rule_overrides,
    rules_from_options,
    rules_refusal,
    same_variant,
    too_large,
    unreadable,
)
from terrace.cli.output import OUTPUT_FAILED, OutputError, write_whole
from terrace.cli.parts import (
    Part,
    Spool,
    index_of,
    index_parts,
    part_fault,
    read_index,
    remove_earlier,
)
from terrace.errors import TerraceError
from terrace.refusals import clip, quote
from terrace.rules import RULE_OPTIONS, OptionKind
from terrace.storage.base import (
    DamagedGameError,
    LogPlaces,
    StoredGame,
    StoreError,
    clock_fault,
    clock_outside,
)
from terrace.storage.files import NoDatabaseError
from terrace.storage.merging import ImportStoppedError
from terrace.storage.paths import MEMORY, games_path
from terrace.storage.sqlite import SqliteStore, open_store
from terrace.storage.statistics import summarize
from terrace.storage.transfer import (
    ImportRefusedError,
    UnexportableGameError,
    exportable_record,
    read_games,
)
from terrace.variants import CUSTOM, canonical_name, label_title, read_change, rules_label

MAX_IMPORT_BYTES = 64 * 2**20
"""The largest file ``terrace import`` reads."""


LISTED_REASONS = 8
"""How many of an import's refused records the message lists by name."""


def _open(db: str | None, *, read_only: bool = False) -> SqliteStore:
    """The games database; ``read_only`` for the commands that only read
    (they never create, upgrade or write the file)."""
    try:
        return open_store(db, read_only=read_only)
    except NoDatabaseError:
        raise click.ClickException(_no_database(db)) from None
    except StoreError as error:
        raise click.ClickException(placed(str(error), games_db_file(db))) from None


def _no_database(db: str | None) -> str:
    """What the reading commands say when there is no database at the path."""
    path = games_path(db)
    return f"there is no games database at {clip(str(path))} (no game was saved there); nothing was created"


COLUMNS = (
    ("Played", "played"), ("Won", "won"), ("Lost", "lost"), ("Abandoned", "abandoned"),
    ("Win rate", "win_rate"), ("Streak", "current_streak"), ("Best", "best_streak"),
    ("Losing", "current_losing_streak"), ("Worst", "longest_losing_streak"),
    ("Fewest", "fewest_moves"), ("Fastest", "fastest_seconds"), ("Hints", "hints"),
    ("Undos", "undos"), ("Assisted", "assisted"),
)


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key == "win_rate":
        return format_rate(value)
    if key == "fastest_seconds":
        return format_duration(value)
    return str(value)


def format_rate(rate: float) -> str:
    """A win rate as a percentage with at most one decimal, never 100%
    unless every game was won, nor 0% unless none was.

    >>> format_rate(0.5), format_rate(1 / 3), format_rate(399 / 400), format_rate(1 / 400)
    ('50%', '33.3%', '99.8%', '0.3%')
    >>> format_rate(9999 / 10000), format_rate(1 / 10000), format_rate(1), format_rate(0)
    ('>99.9%', '<0.1%', '100%', '0%')
    >>> format_rate(201 / 400)
    '50.3%'
    """
    if rate >= 1 or rate <= 0:
        return "100%" if rate >= 1 else "0%"
    # Rounded half up, as the page does, from the rate taken to 9 decimals of
    # a tenth of a percent: a rate on a half (201 / 400, 50.25%) is held just
    # under it (502.49999999999994 tenths) and read 50.2%. A rate of fewer
    # than 10**8 games that is not on a half lies further from it than that.
    shown = math.floor(round(rate * 1000, 9) + 0.5) / 10
    text = f"{shown:.1f}".removesuffix(".0")
    return {"100": ">99.9%", "0": "<0.1%"}.get(text, f"{text}%")


def format_duration(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss`` of the whole seconds elapsed, as the game's
    clock, its win screen and the statistics on the page show a time (a
    win at 59.7 s read 0:59 there and 1:00 here).

    >>> format_duration(75.4), format_duration(3725.9), format_duration(59.7)
    ('1:15', '1:02:05', '0:59')
    """
    whole = math.floor(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def stats_table(blocks: list[tuple[str, dict[str, Any]]]) -> str:
    """The statistics blocks as an aligned text table."""
    head = ["Variant", *(title for title, _ in COLUMNS)]
    rows = [[name, *(_cell(key, block[key]) for _, key in COLUMNS)] for name, block in blocks]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(head), rule, *(line(row) for row in rows)])


def _label_options(variant: str) -> tuple[str, dict[str, Any]]:
    """The preset and the rule options of ``--variant``: a variant's name,
    or a row's title as the table writes it ("Terrace (custom: candidates 4)",
    or the label of the JSON).

    >>> _label_options("Terrace (custom: candidates 4, foundation cards may return)")
    ('terrace', {'candidates': 4, 'foundation_return': True})
    >>> _label_options("terrace (custom: reserve 0, spaces waste)")
    ('terrace', {'reserve': 0, 'spaces': 'waste'})
    >>> _label_options("wood")
    ('wood', {})
    """
    title, custom, rest = variant.strip().partition(CUSTOM)
    preset = canonical_name(title if custom else variant)
    if not custom:
        return preset, {}
    options: dict[str, Any] = {}
    param, ctx = _variant_option()
    # (each change as the table says it, "terrace cards 0", or as the JSON's label writes it, "reserve 0")
    changes = [read_change(part) for part in rest[:-1].split(", ")] if rest.endswith(")") else [("", rest)]
    for field, value in changes:
        option = RULE_OPTIONS.get(field)
        if (option is None or field in options  # (an option twice is no row's: the table names each once)
                or (option.kind is OptionKind.BOOL and value not in ("yes", "no"))
                or (option.kind is OptionKind.INT and not (value.isascii() and value.isdigit()))):
            raise click.BadParameter(f"{quote(variant)} is not a row of the table: its rules are written as "
                                     "'(custom: decks 1, terrace cards 0)' (or give the rule options: "
                                     "-v terrace --decks 1 --reserve 0)", ctx, param)
        if option.kind is OptionKind.BOOL:
            options[field] = value == "yes"
        elif option.kind is OptionKind.INT:
            options[field] = WholeNumber().convert(value, param, ctx)
        else:
            options[field] = value
    return preset, options


def _same_as_row(variant: str | None, row: str, name: str) -> None:
    """Refuse (a usage error) rule options that give other rules (``name``,
    a label) than the row's title of ``--variant`` does (``row``):
    ``-v "Terrace (custom: candidates 4)" --candidates 5`` showed the
    statistics of candidates 5 in silence; options that give the row's
    own rules (``--candidates 4`` again) are taken."""
    if name != row:
        param, ctx = _variant_option()
        raise click.BadParameter(f"{quote(variant)} is a row's title, and the rule options given name "
                                 f"another row, {label_title(name)}: give the row's title alone, or the "
                                 "variant's name with the options", ctx, param)


def _variant_option() -> tuple[click.Parameter | None, click.Context | None]:
    """The running command's ``--variant`` and its context, for a refusal
    of a number in a row's title to name the option (it said "Invalid
    value: ... is too large", naming none); none outside a command."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return None, None
    return next((param for param in ctx.command.params if param.name == "variant"), None), ctx


def _checking(checked: int, total: int) -> None:
    """Say on standard error that the statistics check many games (a file
    whose findings are not kept: 13 s at 100,000 games), and, to a
    terminal, how far they are."""
    if checked == 0:
        click.echo(f"note: checking {total:,} saved games for the statistics; this takes a while", err=True)
    elif sys.stderr is not None and sys.stderr.isatty():
        click.echo(f"\r{checked:,} of {total:,} games checked", err=True, nl=checked == total)


@command("stats")
@db_option
@once_option("--variant", "-v", same=same_variant,
             help="Only this variant (with the rule options: only its games of those rules, e.g. "
             "-v terrace --candidates 4; or a row's title as the table writes it).")
@rule_overrides
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def stats(db: str | None, variant: str | None, as_json: bool, **overrides: Any) -> None:
    """A game you leave
    for a new one (after at least one move) counts as abandoned until you
    play it again (and again once you leave it again); the win rate is
    won / (won + lost + abandoned), and a
    win stays a win even if you take moves back after it. Streak and Best
    are wins in a row (now, and the longest), Losing and Worst losses in a
    row (an abandoned or given-up game is a loss)."""
    name = None
    if variant is not None or any(value is not None for value in overrides.values()):
        # (a game of custom rules is counted under its rules' label, as the
        # table names it: only a preset could be asked for)
        try:
            preset, from_label = _label_options("terrace" if variant is None else variant)
            given = {**from_label, **{k: v for k, v in overrides.items() if v is not None}}
            rules = rules_from_options(preset, given)
            name = rules_label(preset, rules)
            if from_label and given != from_label:
                _same_as_row(variant, rules_label(preset, rules_from_options(preset, from_label)), name)
        except TerraceError as error:
            raise rules_refusal(error, variant) from None
    try:
        store = open_store(db, read_only=True)
    except NoDatabaseError:
        if not as_json:
            click.echo(f"No games played yet: {_no_database(db)}.")
            return
        # a script reads the statistics of no games, as of an empty database
        click.echo(f"note: {_no_database(db)}", err=True)
        data = summarize([])
    except StoreError as error:
        raise click.ClickException(placed(str(error), games_db_file(db))) from None
    else:
        with store:
            data = store.statistics(progress=_checking)
    if name is not None:
        block = data["variants"].get(name) or summarize([])["overall"]
        if as_json:
            # (damaged games are not of any variant: the count is the whole file's)
            click.echo(json.dumps({"variant": name, **block, "damaged": data["damaged"],
                                   "newer": data["newer"]}, indent=2))
            return
        blocks = [(label_title(name), block)]
    else:
        if as_json:
            click.echo(json.dumps(data, indent=2))
            return
        blocks = [(label_title(name), block) for name, block in data["variants"].items()]
        blocks.append(("All variants", data["overall"]))
    if not any(block["played"] for _, block in blocks):
        # (with -v, other variants may have games: say whose there are none)
        click.echo("No games played yet." if name is None else f"No games of {label_title(name)} played yet.")
    else:
        click.echo(stats_table(blocks))
    if data["damaged"]:
        count = data["damaged"]
        click.echo(
            f"note: {count} damaged game{'s are' if count != 1 else ' is'} left out "
            "(terrace export --all names them)", err=True,
        )
    if data["newer"]:  # (not damaged: this Terrace cannot read them)
        count = data["newer"]
        games, are, them = ("1 game", "is", "it") if count == 1 else (f"{count} games", "are", "them")
        click.echo(f"note: {games} saved by a newer version of Terrace {are} left out: "
                   f"update Terrace to count {them}", err=True)


@command("export")
@db_option
@click.option("--game", "game_ids", multiple=True, metavar="ID",
              help="The game to export (repeat for several).")
@click.option("--all", "all_games", is_flag=True, help="Export every saved game.")
@once_option("--output", "-o", type=FilePath(dir_okay=False, allow_dash=True), default="-",
             show_default=True, help="File to write ('-' for standard output). With --all, games too "
             "many for one file that an import reads are written in parts beside it (FILE-1.json, "
             "FILE-2.json ...), and FILE names them: import FILE takes them all.")
def export(db: str | None, game_ids: tuple[str, ...], all_games: bool, output: str) -> None:
    """One record for one --game, a list for several or --all. --all skips (and names) a damaged game and
    one that import would refuse."""
    if bool(game_ids) == all_games:
        # (both given, it said "give --game ID (one or more) or --all", as if neither were)
        raise click.UsageError("give --game ID (one or more) or --all" + (", not both" if all_games else ""))
    game_ids = tuple(dict.fromkeys(game_ids))  # (a game named twice is written once)
    if output != "-":
        _refuse_database_output(Path(output), games_path(db))
    now = time.time()
    if clock_outside(now):
        # (every game would lie "ahead of this computer's clock": skipped,
        # and the last backup written over with none)
        raise click.ClickException(f"nothing was exported: {clock_fault(now, 'export again')}")
    database = games_path(db)
    # (each record put into JSON as it is read and let go: the whole
    # export held every record at once, 366 MB for 32,000 games)
    spool = Spool(Path(output) if all_games and _parts_allowed(output) else None, MAX_IMPORT_BYTES,
                  lambda path: _refuse_database_output(path, database))
    single: list[dict[str, Any]] = []  # (one --game: a record, not a list)

    def take(game_id: str, game: StoredGame | StoreError, places: LogPlaces | None) -> None:
        try:
            if isinstance(game, StoreError):
                raise game
            # (with its places in the log, so that a restore keeps the log's order)
            record = exportable_record(game, now, places)
        except (DamagedGameError, UnexportableGameError) as error:
            if not all_games:
                raise
            click.echo(f"skipped: {error}", err=True)
            return
        if len(game_ids) == 1:
            single.append(record)
        else:
            spool.add(record)

    earlier = index_parts(Path(output)) if spool.output is not None else []
    try:
        with _open(db, read_only=True) as store:
            try:
                store.export_games(None if all_games else game_ids, take)  # (one read: one moment)
            except StoreError as error:
                raise click.ClickException(placed(str(error), games_db_file(db))) from None
        text = _export_text(single[0]) if single else spool.one_file()
        if text is None:
            if spool.output is None:
                raise _too_large(spool.size, all_games)
            _export_parts(spool, earlier)
            return
        if output == "-":
            click.echo(text.decode("ascii"), nl=False)
            return
        write_whole(Path(output), text)
    finally:
        spool.discard()
    click.echo(f"wrote {_games(1 if single else spool.records)} to {clip(output)}", err=True)
    _removed(Path(output), earlier, [])


def _games(count: int) -> str:
    """``count`` games, in words.

    >>> _games(1), _games(25000)
    ('1 game', '25,000 games')
    """
    return f"{count:,} game{'s' if count != 1 else ''}"


def _export_text(document: Any) -> bytes:
    """One record's JSON, indented to be read; written compactly when the
    indented text would be larger than an import reads, so that every
    export imports (refused when even that is too large).

    >>> _export_text({"a": 1})
    b'{\\n  "a": 1\\n}\\n'
    """
    # (json.dumps writes ASCII only: its length is its size in bytes)
    indented = json.dumps(document, indent=2, ensure_ascii=True) + "\n"
    if len(indented) <= MAX_IMPORT_BYTES:
        return indented.encode("ascii")
    compact = json.dumps(document, separators=(",", ":"), ensure_ascii=True) + "\n"
    if len(compact) <= MAX_IMPORT_BYTES:
        return compact.encode("ascii")
    raise _too_large(len(compact), all_games=False)


def _too_large(size: int, all_games: bool) -> click.ClickException:
    """The refusal of an export of ``size`` bytes (as compact JSON), larger
    than an import reads, that cannot be written in parts (to standard
    output or a pipe, or of games named by --game)."""
    advice = ("give --output FILE, a file, to write them in parts that each import" if all_games
              else "export them in parts with --all --output FILE, or name fewer games with --game")
    return click.ClickException(f"nothing was exported: the games take {size / 2**20:.0f} MB, more than an "
                                f"import reads ({MAX_IMPORT_BYTES // 2**20} MB); {advice}")


def _parts_allowed(output: str) -> bool:
    """Whether an export to ``output`` may be written in parts beside it:
    a regular file or a new one (not standard output, a pipe or a device)."""
    return output != "-" and (os.path.isfile(output) or not os.path.exists(output))


def _export_parts(spool: Spool, earlier: list[Part]) -> None:
    """Write the parts of ``spool`` and their index (written last, so that
    no index names a set not whole), and say so; then remove the parts of
    the earlier export there that the new one did not replace."""
    assert spool.output is not None
    parts = spool.write_parts()
    output = spool.output
    first, last = parts[0].file, parts[-1].file
    click.echo(f"wrote {_games(spool.records)} in {len(parts)} parts, {clip(first)} to {clip(last)} (each "
               f"at most {MAX_IMPORT_BYTES // 2**20} MB, what an import reads), and {clip(str(output))}, "
               "the index that names them: terrace import "
               f"{clip(str(output))} imports them all", err=True)
    _removed(output, earlier, parts)


def _removed(output: Path, earlier: list[Part], parts: list[Part]) -> None:
    """Remove the parts of the export ``output`` replaced that the new
    export did not write over (each only as it was written: a part changed
    since is no longer ours to remove), and say so."""
    removed, kept = remove_earlier(output, earlier, {part.file for part in parts})
    if removed:
        click.echo(f"removed {_parts(removed)} of the earlier export to {clip(str(output))}, which it "
                   f"no longer names: {', '.join(clip(name) for name in removed)}", err=True)
    if kept:
        click.echo(f"note: {_parts(kept)} of the earlier export to {clip(str(output))} changed since, and "
                   f"{'was' if len(kept) == 1 else 'were'} left: {', '.join(clip(name) for name in kept)}",
                   err=True)


def _parts(names: list[str]) -> str:
    """How many parts ``names`` are, in words."""
    return "1 part" if len(names) == 1 else f"{len(names)} parts"


def _report_done(message: str) -> None:
    """Say on standard output what an import did, once it is committed; when
    that cannot be written (``> /dev/full``, a reader that stopped early)
    the import stands all the same: it is said on standard error, and the
    status stays 0 (an error's status made it look undone)."""
    try:
        click.echo(message)
    except OSError as error:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (the failed stream's rest is let go)
        why = error.strerror if isinstance(error, OutputError) else (
            f"{OUTPUT_FAILED}: {'its reader stopped' if error.errno == errno.EPIPE else error.strerror}")
        click.echo(f"{message} (done, though {clip(str(why or error))})", err=True)


SQLITE_HEADER = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")
SIDE_MAGIC = (bytes.fromhex("377f0682"), bytes.fromhex("377f0683"), bytes.fromhex("d9d505f920a163d7"))
"""How SQLite's write-ahead log (either byte order) and rollback journal begin."""


def _refuse_database_output(output: Path, database: Path | None) -> None:
    """Refuse an output that is a database: the games database or one of
    its side files (SQLite's write-ahead log and shared memory), any file
    that starts as an SQLite database does, and the side files of any such
    database (or a log or journal whose database is gone). Writing a record
    over it would destroy it, and moves a running server had already
    answered would be lost with it."""
    target = os.path.realpath(output)
    if database is not None:
        base = os.path.realpath(database)
        if target in {base, *(base + side for side in SIDE_FILES)}:
            raise click.UsageError(f"{clip(str(output))} is the games database or one of its"
                                   " files: write the records to another file")
    if not os.path.isfile(target):
        return  # new, or a device or pipe (never opened here: a pipe would wait)
    start = _first_bytes(target)
    if start.startswith(SQLITE_HEADER):
        raise click.UsageError(f"{clip(str(output))} is an SQLite database, not a file of game"
                               " records: write the records to another file")
    # (another database's log holds changes not yet in it: a server's moves,
    # the verdict cache's; a log whose database was moved away, too)
    owner = next((target[: -len(side)] for side in SIDE_FILES if target.endswith(side)), None)
    if owner is not None and _first_bytes(owner).startswith(SQLITE_HEADER):
        raise click.UsageError(f"{clip(str(output))} is a file of the SQLite database "
                               f"{clip(os.path.basename(owner))}, not a file of game records: "
                               "write the records to another file")
    if start.startswith(SIDE_MAGIC):
        raise click.UsageError(f"{clip(str(output))} is the log of an SQLite database, not a file of game"
                               " records: write the records to another file")


def _first_bytes(path: str) -> bytes:
    """The first bytes of the regular file ``path`` (as many as an SQLite
    header holds), or none when it is no such file or cannot be read
    (writing will say what is wrong)."""
    if not os.path.isfile(path):
        return b""  # (a pipe or device is never opened here: it would wait)
    try:
        with open(path, "rb") as file:
            return file.read(len(SQLITE_HEADER))
    except OSError:
        return b""


ADD_THE_REST = "import the file again to add the rest (the games stored are not added twice)"
"""What an import stopped after its first chunks were written advises."""


def _stopped_after(count: int) -> str:
    """The words of an import stopped after ``count`` games were stored.

    >>> _stopped_after(1), _stopped_after(400)
    ('the import stopped after 1 game of the file was stored', \
'the import stopped after 400 games of the file were stored')
    """
    games = "1 game of the file was" if count == 1 else f"{count} games of the file were"
    return f"the import stopped after {games} stored"


def _bad_records(message: str) -> click.ClickException:
    """The refusal of what a file to import holds (:data:`~terrace.cli.options.INPUT_STATUS`)."""
    return input_refusal(InputFault.IMPORT_CONTENT, message)


@dataclasses.dataclass
class _Imported:
    """What the files of one ``terrace import`` added, file by file."""

    new: int = 0
    joined: int = 0
    known: int = 0
    files: list[str] = dataclasses.field(default_factory=list)
    beside: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    touched: bool = False
    """Whether a database was opened (not for files of no records)."""

    def summary(self) -> str:
        """The games imported, and how many were brought up to date or already here."""
        message = f"imported {self.new} game{'s' if self.new != 1 else ''}"
        notes = [f"{count} {what}" for count, what in ((self.joined, "brought up to date"),
                                                       (self.known, "already here")) if count]
        return message + (f" ({', '.join(notes)})" if notes else "")


@command("import")
@db_option
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=FilePath(dir_okay=False, allow_dash=True))
def import_(db: str | None, files: tuple[str, ...]) -> None:
    """Every record
    and every move is checked; a file with any bad record imports nothing.
    A game the database already holds whole (the same game, changed no
    earlier, that had the record's moves, its counts and its win) is left as
    it is and counted as already here; nothing played elsewhere is lost.
    Several files are imported one after another, each whole or not at all;
    the index an export in parts wrote imports every part it names, all or
    none, once each is there as it was written (into an empty database:
    the backup restored, with the same statistics)."""
    done = _Imported()
    for file in _parts_as_index(files):
        name = "standard input" if file == "-" else clip(file)
        try:
            _import_file(db, file, name, done)
        except click.ClickException as error:
            if not done.files:
                raise
            raise _after(error, name, done) from None
        except KeyboardInterrupt as stop:
            if done.files:
                stop.add_note(f"{done.summary()} from {', '.join(done.files)} before {name}")
            raise
    message = done.summary() + (f" from {len(done.files)} files" if len(done.files) > 1 else "")
    if not done.touched:  # (only empty lists: no database is made or opened for them)
        holds = "holds" if len(done.files) == 1 else "hold"
        message = (f"imported 0 games: {', '.join(done.files)} {holds} no game records "
                   "(no database was touched)")
    elif str(games_path(db) or MEMORY) == MEMORY:  # (--db :memory:, or TERRACE_DB=:memory:)
        message = (f"checked {done.new} game{'s' if done.new != 1 else ''}; none was kept: the games "
                   f"database is {MEMORY}, which keeps nothing (name a file with --db)")
    _report_done(message)
    for here, new_id in done.beside:  # (never in silence: the player may have meant one game)
        click.echo(f"note: the record of game {clip(here)} is no state of it that this database "
                   f"holds, had, or is continued by (another game, or one played both here and "
                   f"elsewhere): it was added beside it as game {new_id}", err=True)


def _parts_as_index(files: tuple[str, ...]) -> list[str]:
    """``files``, where the parts of an export are given by name
    (``backup-1.json backup-2.json``), with their index in their place,
    which imports them all in one go as it does when it is given (one after
    another, each part's games came into a database that held the parts
    before it, as games from elsewhere: the statistics were not the
    export's); a part whose index is given too is left to it. Some parts
    of an index given and not all are refused, before anything is
    imported."""
    given = {os.path.realpath(file) for file in files if file != "-"}
    taken: list[str] = []
    named: dict[str, tuple[Path, list[Part], set[str]]] = {}
    for file in files:
        found = None if file == "-" else index_of(Path(file))
        if found is None:
            taken.append(file)
            continue
        index, parts = found
        key = os.path.realpath(index)
        if key in given:
            continue
        if key not in named:
            named[key] = (index, parts, set())
            taken.append(str(index))
        named[key][2].add(Path(file).name)
    for index, parts, names in named.values():
        missing = [part.file for part in parts if part.file not in names]
        if missing:
            first = next(number for number, part in enumerate(parts, 1) if part.file in names)
            raise click.ClickException(
                f"nothing was imported: {clip(parts[first - 1].file)} is part {first} of the {len(parts)} "
                f"parts of the export {clip(str(index))}, and {', '.join(clip(name) for name in missing)} "
                f"{'was' if len(missing) == 1 else 'were'} not given: import {clip(str(index))}, which "
                "imports every part in one go (imported alone or one after another, a part's games come "
                "in as games from elsewhere, and the statistics are not the export's)")
    return taken


def _after(error: click.ClickException, name: str, done: _Imported) -> click.ClickException:
    """The refusal of file ``name`` of several, saying what the files
    before it imported (they stay) and that those after it were not read."""
    message = (f"{name}: {error.message}\n(before it, {done.summary()} from {', '.join(done.files)}, "
               "which stay; the files after it were not read)")
    if error.exit_code == click.UsageError.exit_code:
        return click.UsageError(message, getattr(error, "ctx", None))
    return click.ClickException(message)


def _import_file(db: str | None, file: str, name: str, done: _Imported) -> None:
    """Import ``file``: its records, or every part when it is an index of parts."""
    text = _read_text(file, name)
    parts = read_index(text, name)
    if parts is None:
        _import_text(db, text, name, done)
        return
    del text
    folder = Path("." if file == "-" else file).parent
    faults = [f"{clip(part.file)} {fault}" for part in parts
              if (fault := part_fault(_part_bytes(folder / part.file), part))]
    if faults:  # (every part is checked before any is read)
        raise _bad_records(f"nothing was imported: {name} names {len(parts)} parts of an export, and\n"
                           + _listed(faults))
    # (stored in one go, as one file's games are: into an empty database the
    # set is a backup restored, its log rebuilt in the exporting store's order)
    games: list[StoredGame] = []
    names: list[str] = []
    for part in parts:
        path = folder / part.file
        raw = _part_bytes(path)
        fault = part_fault(raw, part)
        if fault or isinstance(raw, str):  # (changed since it was checked)
            raise _bad_records(f"nothing was imported: {clip(str(path))} {fault}")
        try:
            text = file_text(raw)
        except UnicodeDecodeError:
            raise _bad_records(f"nothing was imported: {clip(str(path))} is not UTF-8 text") from None
        del raw
        names.append(clip(str(path)))
        games += _games_of(text, names[-1], f" {names[-1]}:")
        del text
    _store_games(db, games, names, done)


def _part_bytes(path: Path) -> bytes | str:
    """The bytes of a part, or what keeps them from being read (a part
    larger than an import reads is none an export wrote)."""
    try:
        data = read_input(str(path), MAX_IMPORT_BYTES)
    except FileNotFoundError:
        return "is missing"
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    return "is larger than an import reads" if data is None else data


def _listed(reasons: list[str]) -> str:
    """The first :data:`LISTED_REASONS` of ``reasons``, one a line, and how many more."""
    shown = reasons[:LISTED_REASONS]
    more = len(reasons) - len(shown)
    return "\n".join([f"  {reason}" for reason in shown] + ([f"  and {more} more"] if more else []))


def _read_text(file: str, name: str) -> str:
    """The text of the file to import."""
    try:
        raw = read_input(file, MAX_IMPORT_BYTES)
        if raw is None:
            raise too_large(f"nothing was imported: {name}", MAX_IMPORT_BYTES)
        text = file_text(raw)  # (a byte-order mark is fine, and UTF-16 with its mark)
        del raw  # (64 MB)
    except OSError as error:
        raise unreadable(name, error) from None
    except UnicodeDecodeError:
        raise _bad_records(f"nothing was imported: {name} is not UTF-8 text") from None
    return text


def _import_text(db: str | None, text: str, name: str, done: _Imported) -> None:
    """Check and store the records of ``text``, all or none, adding to ``done``."""
    games = _games_of(text, name)
    del text
    _store_games(db, games, [name], done)


def _games_of(text: str, name: str, within: str = "") -> list[StoredGame]:
    """The games of the records of file ``name``, each checked; ``within``
    names the part of a set in the refusal."""
    if not text.strip():  # (it said "not valid JSON: Expecting value: line 1 column 1 (char 0)")
        raise _bad_records(f"nothing was imported: {name} is empty: it holds no game records")
    try:
        return read_games(text)
    except ImportRefusedError as error:
        raise _bad_records(f"nothing was imported:{within}\n" + _listed(error.reasons)) from None


def _store_games(db: str | None, games: list[StoredGame], names: list[str], done: _Imported) -> None:
    """Store ``games``, the records of the files ``names``, adding to ``done``."""
    if not games:  # (an empty list: no database is made or opened for it)
        done.files += names
        return
    store = _open(db)
    done.touched = True
    joined: list[str] = []
    stored: list[str] = []
    try:
        added = store.add_games(games, done.beside, joined, stored)
    except ImportStoppedError as error:  # (written in chunks: the first ones are in)
        store.close()
        why = placed(str(error), games_db_file(db))
        raise click.ClickException(f"{_stopped_after(error.stored)}: {why}; {ADD_THE_REST}") from None
    except KeyboardInterrupt as stop:  # (Ctrl+C, SIGTERM: the chunks committed stay, as above)
        store.discard()
        if stored:
            stop.add_note(f"{_stopped_after(len(stored))}: {ADD_THE_REST}")
        raise
    except StoreError as error:
        store.discard()  # (a database made for this import is removed again)
        why = placed(str(error), games_db_file(db))
        raise click.ClickException(f"nothing was imported: {why}") from None
    except BaseException:
        store.discard()
        raise
    store.close()
    # (games, not records: two states of one game in the file, the later
    # bringing the first up to date, are one game imported, or one game
    # already here)
    fresh_ids = {game_id for game_id, fresh in added if fresh}
    done.new += len(fresh_ids - set(joined))
    done.known += len({game_id for game_id, fresh in added if not fresh} - fresh_ids)
    done.joined += len(set(joined))
    done.files += names
