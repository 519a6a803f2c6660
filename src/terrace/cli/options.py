"""Options and helpers shared by the ``terrace`` commands: the rule
options (generated from :data:`terrace.rules.RULE_OPTIONS`), the deal
options, the types of numbers, ranges and time budgets, and the database
options.

>>> rules_from_options("terrace", {"candidates": 4, "spaces": None}).candidates
4
"""

from __future__ import annotations

import codecs
import errno
import math
import os
import re
import select
import stat
import sys
import unicodedata
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from terrace.board import Board
from terrace.cards import CARDS_PER_DECK
from terrace.cli.errors import IllegalMove
from terrace.cli.output import OWN_OUTPUTS, PIPE_WAIT, refuse_own_pipe
from terrace.deal import MAX_DEAL_NUMBER, Deal, check_number
from terrace.errors import IllegalMoveError, InvalidDealError, InvalidRulesError, TerraceError
from terrace.limits import MAX_SECONDS
from terrace.moves import MAX_MOVES, Move, move_words, too_many_moves
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.rules import RULE_OPTIONS, OptionKind, RuleOption, Rules
from terrace.storage.base import StoreError
from terrace.storage.files import check_verdict_cache
from terrace.storage.paths import MEMORY, default_verdicts_path, folder_ending, games_path, label
from terrace.symbols import DEAL_SPACES
from terrace.variants import VARIANTS, canonical_name, get_rules, label_title, rules_label
from terrace.whole import MAX_DIGITS, longest_whole, whole_text, written_whole

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

RULE_OPTION_NAMES: tuple[str, ...] = tuple(RULE_OPTIONS)
"""The keyword arguments :func:`rule_options` adds besides ``variant``."""


MAX_DEAL_FILE_BYTES = 64 * 1024
"""The largest deal file read (a deal string of 8 decks is under 2 kB)."""


class InputFault(Enum):
    """Why an input file read whole (``--deal-file``, ``import FILE``) is refused."""

    UNREADABLE = "it cannot be read"
    TOO_LARGE = "it is larger than its command reads"
    DEAL_CONTENT = "it holds no deal string"
    IMPORT_CONTENT = "it holds no sound game records"


INPUT_STATUS: dict[InputFault, int] = {
    InputFault.UNREADABLE: click.UsageError.exit_code,
    InputFault.TOO_LARGE: click.UsageError.exit_code,
    InputFault.DEAL_CONTENT: click.UsageError.exit_code,
    InputFault.IMPORT_CONTENT: click.ClickException.exit_code,
}
"""The exit status of each refusal of an input file, whatever the command:
a file that cannot be read, or that is larger than its command reads, is a
usage error (status 2) for every one (``terrace import`` of a file over 64
MB ended with 1, a deal file over 64 kB with 2); what it holds is checked
next: a deal string as the value of an option (2), game records as data
(1, as a bad record is)."""


def input_refusal(fault: InputFault, message: str) -> click.ClickException:
    """The refusal of an input file for ``fault``, ending with its
    :data:`INPUT_STATUS` (a usage error comes with the usage reminder).

    >>> input_refusal(InputFault.TOO_LARGE, "too big").exit_code
    2
    """
    status = INPUT_STATUS[fault]
    kind = click.UsageError if status == click.UsageError.exit_code else click.ClickException
    refusal = kind(message)
    if refusal.exit_code != status:  # (a status neither click's usage error nor its failure has)
        raise ValueError(f"INPUT_STATUS gives {fault} status {status}, which no refusal of click ends with")
    return refusal


def too_large(subject: str, limit: int, need: str = "") -> click.ClickException:
    """The refusal of an input file larger than the ``limit`` bytes its
    command reads: ``subject`` "is larger than" the limit, then ``need``.

    >>> too_large("the deal file", MAX_DEAL_FILE_BYTES, ": it must hold one deal string").format_message()
    'the deal file is larger than 64 kB: it must hold one deal string'
    >>> too_large("games.json", 64 * 2**20).format_message()
    'games.json is larger than 64 MB'
    """
    size = (f"{limit // 2**20} MB" if limit >= 2**20 else f"{limit // 1024} kB" if limit >= 1024
            else f"{limit} bytes")
    return input_refusal(InputFault.TOO_LARGE, f"{subject} is larger than {size}{need}")

DEAL_NUMBERS = f"0 to {MAX_DEAL_NUMBER}"
"""The deal numbers there are, as the help of ``--deal-number`` says them."""

DEFAULT_VARIANT = "terrace"
"""The variant of every command's ``--variant`` when it is not given."""

RULES_LINE = "# rules:"
"""How the line of a deal file that gives its rules begins: ``terrace deal``
writes it before the deal string when the rules are not those of
:data:`DEFAULT_VARIANT` (see :func:`rules_line`), and the commands that read
a deal file play its cards by them (:func:`load_deal`)."""

INPUT_CLOSED = "standard input is closed: there is nothing to read from '-'"
"""What a command told to read standard input says when it is closed."""


class OnceOption(click.Option):
    """An option that may be given more than once with the same value only:
    ``--piles 5 --piles 6`` is refused (click kept the last in silence),
    ``--piles 5 --piles 5`` is ``--piles 5``. Values are compared by
    ``same`` (a variant's name by the preset it names)."""

    def __init__(self, *args: Any, same: Callable[[Any], Any] = lambda value: value, **kwargs: Any) -> None:
        default = kwargs.pop("default", None)
        kwargs.update(multiple=True, default=None if default is None else (default,))
        super().__init__(*args, **kwargs)
        self.same = same

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        values = tuple(super().process_value(ctx, value) or ())
        if len({self.same(each) for each in values}) > 1:
            shown = " and ".join(self._shown(each) for each in dict.fromkeys(values))
            raise click.BadParameter(f"given more than once, as {shown}: give it once", ctx, self)
        return values[-1] if values else None

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        if "default" in extra and self.secondary_opts and isinstance(self.default, tuple):
            # (a pair of flags says its default by its flag, "fair", as click does for an option
            # taken once: the tuple of values said "True")
            extra["default"] = self._shown(self.default[-1]).lstrip("-")
        if isinstance(self.type, Seconds):
            # (a budget's limits, and its default in plain digits: it said "[default: 10.0]")
            if "default" in extra and isinstance(self.default, tuple):
                extra["default"] = seconds_text(self.default[-1])
            extra["range"] = f"{seconds_text(self.type.minimum)} to {seconds_text(self.type.maximum)} s"
        return extra

    def _shown(self, value: Any) -> str:
        """A value as the command line gave it (a flag by its name)."""
        if isinstance(value, bool) and self.secondary_opts:
            return self.opts[0] if value else self.secondary_opts[0]
        return str(value)


def once_option(*names: str, **settings: Any) -> Callable[[F], F]:
    """``click.option`` for an option given once, or again with the same
    value (a :class:`OnceOption`): ``show -n 1 -m c1 -m c2`` played c2
    alone, ``--db a --db b`` used b, in silence."""
    return click.option(*names, cls=OnceOption, **settings)


def same_variant(name: str) -> str:
    """The preset a variant's name names (the name itself when it names none:
    the variant's own refusal says so)."""
    try:
        return canonical_name(name)
    except TerraceError:
        return name


def _flags(option: RuleOption) -> tuple[str, str]:
    """The command-line flag of a rule option, and the flag that says no
    (a yes/no option's), from its field in ``Rules``.

    >>> _flags(RULE_OPTIONS["foundation_return"])
    ('--foundation-return', '--no-foundation-return')
    """
    flag = option.name.replace("_", "-")
    return f"--{flag}", f"--no-{flag}"


def _click_option(option: RuleOption) -> Callable[[F], F]:
    """The command-line option of a rule option, from its field in ``Rules``."""
    flag, no = _flags(option)
    if option.kind is OptionKind.BOOL:
        return once_option(f"{flag}/{no}", option.name, help=option.help)
    help_text = option.help.rstrip(".") + "."
    if option.kind is OptionKind.CHOICE:
        return once_option(flag, option.name, type=RuleChoice(option), help=help_text)
    return once_option(flag, option.name, type=EngineNumber(option.read),
                       help=f"{option.help}: {option.range_text()}.")


class RuleChoice(click.Choice[str]):
    """A rule option's choice, read and refused by the option itself
    (:meth:`terrace.rules.RuleOption.read`), as a request or a record is:
    ``--spaces FREE`` is ``free``, and ``--spaces frei`` is refused in the
    engine's words (click's were "'frei' is not one of 'auto', 'free',
    'waste'", a request's "spaces must be 'auto', 'free' or 'waste', not
    'frei'").

    >>> RuleChoice(RULE_OPTIONS["spaces"]).convert(" Free", None, None)
    'free'
    >>> RuleChoice(RULE_OPTIONS["spaces"]).convert("frei", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: spaces must be 'auto', 'free' or 'waste', not 'frei'
    """

    def __init__(self, option: RuleOption) -> None:
        super().__init__(option.choices)
        self.option = option

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return str(self.option.read(value).value)
        except InvalidRulesError as error:
            self.fail(str(error), param, ctx)


class WholeNumber(click.ParamType[int]):
    """A whole number as :func:`terrace.whole.whole_text` reads it (the
    digits 0-9, not "²" or "١"; a sign and spaces around taken, as the web
    API's query numbers take them), at least ``minimum`` and at most
    ``maximum`` when they are given.

    >>> WholeNumber(1).convert(" 42", None, None), WholeNumber().convert(-3, None, None)
    (42, -3)
    >>> WholeNumber().convert("١", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: '١' is not a whole number (write it in the digits 0-9)
    >>> WholeNumber(1, 64).convert("0", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: 0 is not in the range 1 to 64
    """

    name = "integer"

    def __init__(self, minimum: int | None = None, maximum: int | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        number = self.read(value, param, ctx)
        low, high = self.minimum, self.maximum
        if (low is not None and number < low) or (high is not None and number > high):
            self._out_of_range(number, param, ctx)
        return number

    def read(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """``value`` as a whole number, its limits aside."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        number = whole_text(value)
        if number is None:
            text = clip(str(value).strip())
            if not written_whole(value):
                self.fail(str(Reason(Refusal.NUMBER_NOT_WHOLE, text=text)), param, ctx)
            # (beyond every bound: said as the bound, not "give at most 40 digits", which
            # --samples 10**100 was told where 40 digits are as far out of its 1 to 4096)
            if (self.minimum if text.startswith("-") else self.maximum) is None:
                self.fail(str(Reason(Refusal.NUMBER_TOO_LONG, text=text, most=MAX_DIGITS)), param, ctx)
            self._out_of_range(quote(text), param, ctx)
        return number

    def _out_of_range(
        self, number: int | str, param: click.Parameter | None, ctx: click.Context | None
    ) -> NoReturn:
        """Refuse ``number`` (a value, or its text quoted), which lies outside the bounds."""
        low, high = self.minimum, self.maximum
        code = (Refusal.NUMBER_TOO_SMALL if high is None else Refusal.NUMBER_TOO_LARGE if low is None
                else Refusal.NUMBER_RANGE)
        self.fail(str(Reason(code, value=number, low=low or 0, high=high or 0)), param, ctx)


class EngineNumber(WholeNumber):
    """A whole number the engine checks (``check``: a deal number's
    :func:`terrace.deal.check_number`, a rule option's reading), read as
    :class:`WholeNumber` reads one and refused in the engine's words, as a
    request or a record with that number is: ``-n 2**64`` said "... is not
    in the range 0 to 9223372036854775807", a request "deal numbers run
    from 0 to 9223372036854775807, not ...", and ``--piles x`` "'x' is not
    a whole number", a request "piles must be a whole number, not 'x'".

    >>> DEAL_NUMBER.convert("+7", None, None)
    7
    >>> DEAL_NUMBER.convert("1e3", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: a deal number must be a whole number, not '1e3'
    """

    def __init__(self, check: Callable[[object], int]) -> None:
        super().__init__()
        self.check = check

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        most = longest_whole()
        number = whole_text(value, most) if isinstance(value, str) else value
        try:
            if number is None and written_whole(value):  # (as the JSON reader refuses so many)
                raise TerraceError(Reason(Refusal.JSON_NUMBER_TOO_LONG, most=most))
            return self.check(str(value).strip() if number is None else number)
        except TerraceError as error:
            self.fail(str(error), param, ctx)


DEAL_NUMBER = EngineNumber(check_number)
"""The type of every ``--deal-number``: a number beyond the deals was
refused as "deal numbers run from 0 to ...", naming no option; it is
refused so still, naming it, as a request's ``deal_number`` is."""


class FilePath(click.Path[str]):
    """A file or folder name (see :class:`click.Path`); an empty name (which
    would be taken as the current folder) and a name holding the NUL
    character, which no file can have, are refused.

    >>> FilePath(dir_okay=False).convert("a" + chr(0), None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: a file name cannot hold the NUL character
    >>> FilePath(dir_okay=False).convert("", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: an empty name names no file
    >>> FilePath(dir_okay=False).convert("games.json/", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: 'games.json/' ends in /, which names a folder: give the name of a file

    A file's name that ends in a slash (which names a folder: a shell's
    ``> name/`` refuses it) is refused too: ``export -o new/`` wrote the
    file ``new``, ``export -o notes.txt/`` wrote over ``notes.txt``.
    With ``regular``, an existing file must be a regular one, as a database
    must (see :data:`DATABASE_PATH`).
    """

    def __init__(self, *, file_okay: bool = True, dir_okay: bool = True, allow_dash: bool = False,
                 regular: bool = False) -> None:
        super().__init__(file_okay=file_okay, dir_okay=dir_okay, allow_dash=allow_dash, path_type=str)
        self.regular = regular

    def convert(self, value: str | os.PathLike[str], param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        name = os.fspath(value)
        if not name:
            self.fail(f"an empty name names no {'file' if self.file_okay else 'folder'}", param, ctx)
        if "\x00" in name:
            self.fail("a file name cannot hold the NUL character", param, ctx)
        why = None if self.dir_okay else folder_ending(name)
        if why is not None:
            self.fail(f"{quote(name)} {why}", param, ctx)
        kind = _special_kind(name)
        if not self.file_okay and kind is not None:
            # (click refuses a regular file only: a pipe was refused after the
            # command started, with status 1, "... to fifo: it is not a folder")
            self.fail(f"{quote(name)} is not a folder", param, ctx)
        if self.regular and kind is not None:
            self.fail(f"{quote(name)} is {kind}, not a database file: give a regular file", param, ctx)
        why = _unreadable_file(name) if self.regular else None
        if why is not None:
            self.fail(f"{quote(name)} cannot be read: {why}", param, ctx)
        return super().convert(value, param, ctx)


DATABASE_PATH = FilePath(dir_okay=False, regular=True)
"""The type of every option that names a database (``--db``,
``--verdicts-db``): a folder, a device, a pipe or a socket is a usage error
that names the option, status 2 (a folder was, the others were refused
with status 1 once the command ran, "zero is not a regular file").

>>> DATABASE_PATH.convert("/dev/null", None, None)
Traceback (most recent call last):
click.exceptions.BadParameter: '/dev/null' is a device, not a database file: give a regular file

A regular file that cannot be read is refused so too (``/proc/self/mem``
was taken for no database: ``stats`` said "No games played yet", status 0).
"""


def _unreadable_file(name: str) -> str | None:
    """Why the regular file ``name`` cannot be read (its first byte:
    ``/proc/self/mem``, "Input/output error"), or None when it can, or is
    no regular file there (a name the system cannot look up is the store's
    to refuse)."""
    path = os.path.expanduser(name)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except (OSError, ValueError):
        return None
    try:
        with open(path, "rb", buffering=0) as file:
            file.read(1)
    except OSError as error:
        return error.strerror or str(error)
    return None


def _special_kind(name: str) -> str | None:
    """What ``name`` is when it is a pipe, a device or a socket (not a
    folder nor a regular file, nor missing), its links followed: "a pipe",
    "a device", "a socket"; None otherwise."""
    try:
        mode = os.stat(os.path.expanduser(name)).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return None
    return "a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"


def _other_dash(char: str) -> bool:
    """Whether ``char`` is a dash but the hyphen-minus (an en dash, a minus sign)."""
    return char != "-" and (unicodedata.category(char) == "Pd" or char == "\u2212")


class DealRange(click.ParamType[str]):
    """Deal numbers such as ``1-10000`` or ``7`` (the text, checked: ASCII
    digits, as :func:`terrace.solver.survey.check_range` checks a range).

    >>> DealRange().convert("1-1000", None, None)
    '1-1000'
    >>> DealRange().convert("1–1000", None, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    click.exceptions.BadParameter: '1–1000' is not a range ... (join them with '-', not '–')
    >>> DealRange().convert("1-10000000", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: 1-10000000 holds 10,000,000 deals: one survey covers at most 1,000,000
    """

    name = "range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        try:
            if not text.isascii():
                # (a dash other than '-', as typography writes a range: '1–1000')
                dash = next((char for char in text if _other_dash(char)), None)
                how = ("write them in the digits 0-9" if dash is None
                       else f"join them with '-', not {quote(dash)}")
                raise ValueError(f"{quote(text)} is not a range of deal numbers such as 1-10000 ({how})")
            from terrace.solver.survey import check_range, parse_range  # (the solver loads only for a range)

            check_range(*parse_range(text))
        except ValueError as error:
            self.fail(str(error), param, ctx)
        return text


MIN_SECONDS = 0.001
"""The shortest time budget of every command (and benchmark) option: one
millisecond, the least a budget is written with ("give at least 0.001 s").
A shorter one was taken and echoed as a computer writes a tiny float
(``--max-seconds 1e-320``: "solving for up to 9.99989e-321 s"). The
longest, :data:`~terrace.limits.MAX_SECONDS`, and the largest node budget,
:data:`~terrace.limits.MAX_NODES`, are the library's."""


def seconds_text(seconds: float) -> str:
    """A time budget between :data:`MIN_SECONDS` and :data:`MAX_SECONDS` in
    plain digits, every one of them (``:g`` writes 1e+06 and rounds 1234.567
    to 1234.57).

    >>> seconds_text(MAX_SECONDS), seconds_text(MIN_SECONDS), seconds_text(1234.567)
    ('86400', '0.001', '1234.567')
    """
    return repr(float(seconds)).removesuffix(".0")


class Seconds(click.ParamType[float]):
    """A time budget: a finite number of seconds from ``minimum`` to
    ``maximum`` (:data:`MIN_SECONDS` and :data:`MAX_SECONDS` unless given,
    never beyond them).

    >>> Seconds().convert("2.5", None, None), Seconds(maximum=60).name
    (2.5, 'seconds')
    >>> Seconds().convert("nan", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: 'nan' is not a time budget: give a number of seconds from 0.001 to 86400
    >>> Seconds().convert("５", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: '５' is not a time budget: give a number of seconds from 0.001 to 86400
    >>> Seconds().convert("1_0", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: '1_0' is not a time budget: give a number of seconds from 0.001 to 86400
    >>> Seconds().convert("1e-320", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: 1e-320 s is too short: give at least 0.001 s
    >>> Seconds().convert("1e300", None, None)
    Traceback (most recent call last):
    click.exceptions.BadParameter: 1e300 s is too long: give at most 86400 s
    """

    name = "seconds"

    def __init__(self, minimum: float = MIN_SECONDS, maximum: float = MAX_SECONDS) -> None:
        self.minimum = max(minimum, MIN_SECONDS)
        self.maximum = min(maximum, MAX_SECONDS)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            # plain ASCII digits only: float() would also read '５' and '1_0'
            if isinstance(value, str) and (not value.isascii() or "_" in value):
                raise ValueError(value)
            seconds = float(value)
        except (TypeError, ValueError, OverflowError):
            seconds = math.nan
        low, high = seconds_text(self.minimum), seconds_text(self.maximum)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{quote(str(value)[:40])} is not a time budget: "
                      f"give a number of seconds from {low} to {high}", param, ctx)
        # (the value as it was written: 1e-320 is shown as "9.99989e-321" by :g)
        written = clip(str(value).strip())
        if seconds < self.minimum:
            self.fail(f"{written} s is too short: give at least {low} s", param, ctx)
        if seconds > self.maximum:
            self.fail(f"{written} s is too long: give at most {high} s", param, ctx)
        return seconds


def argparse_type(kind: click.ParamType[T]) -> Callable[[str], T]:
    """A click parameter type as an ``argparse`` type (for the benchmarks'
    options): the value read, and refused, as the command line reads it;
    a refusal is an ``argparse`` usage error.

    >>> argparse_type(WholeNumber(1, 8))("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 0 is not in the range 1 to 8
    """
    import argparse

    def convert(text: str) -> T:
        try:
            return kind.convert(text, None, None)
        except click.BadParameter as error:
            raise argparse.ArgumentTypeError(error.message) from None

    return convert


def seconds_argument(text: str) -> float:
    """A time budget for an ``argparse`` option (the benchmarks'), read and
    refused as :class:`Seconds` reads ``--max-seconds``: NaN, infinite, 0,
    a budget beyond its limits and digits other than 0-9 are an ``argparse``
    usage error.

    >>> seconds_argument("2.5")
    2.5
    >>> seconds_argument("inf")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'inf' is not a time budget: give a number of seconds from 0.001 to 86400
    """
    import argparse

    try:
        return Seconds().convert(text, None, None)
    except click.BadParameter as error:
        raise argparse.ArgumentTypeError(error.message) from None


NEEDS_FLAG: dict[str, dict[str, tuple[str, str]]] = {
    "deal": {name: ("winnable", "--winnable: without it no deal is solved")
             for name in ("max_seconds", "total_seconds", "verdicts_db", "old_db")},
    "hint": {name: ("fair", "the fair hint: --peek sees the stock and samples nothing")
             for name in ("samples", "seed")},
}
"""Each command's options that matter only with one of its flags: the
flag, and what the refusal says they are for. Given without the flag,
such an option is refused as a usage error (it was ignored in silence)."""


def given(name: str) -> bool:
    """Whether the command line gave the option ``name`` (not its default)."""
    return _given_in(click.get_current_context(), name)


def _given_in(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source not in (None, click.core.ParameterSource.DEFAULT)


def refuse_unneeded() -> None:
    """Refuse an option of the running command given without the flag it
    needs (:data:`NEEDS_FLAG`).

    >>> from terrace.cli import all_commands
    >>> all(name in {p.name for p in all_commands()[command].params} for command, table in NEEDS_FLAG.items()
    ...     for option, (flag, _) in table.items() for name in (option, flag))
    True
    """
    ctx = click.get_current_context()
    for name, (flag, why) in NEEDS_FLAG.get(ctx.command.name or "", {}).items():
        if given(name) and not ctx.params.get(flag):
            option = next(param.opts[0] for param in ctx.command.params if param.name == name)
            raise click.UsageError(f"{option} is for {why}")


def rule_options(func: F) -> F:
    """Add ``--variant`` and every rule override option to a command."""
    names = [name for variant in VARIANTS for name in (variant.name, *variant.alias_names)]
    func = rule_overrides(func)
    return once_option("--variant", "-v", same=same_variant, default=DEFAULT_VARIANT,
                       show_default=True, help="Preset: " + ", ".join(names) + ".")(func)


def rule_overrides(func: F) -> F:
    """Add every rule override option (``--decks`` ...) to a command."""
    for option in reversed(list(RULE_OPTIONS.values())):
        func = _click_option(option)(func)
    return func


def rules_from_options(variant: str, options: dict[str, Any]) -> Rules:
    """The rules of ``variant`` with every option that was given applied."""
    overrides = {k: v for k, v in options.items() if k in RULE_OPTION_NAMES and v is not None}
    return get_rules(variant, **overrides)


def pop_rules(kwargs: dict[str, Any], ctx: click.Context | None = None) -> Rules:
    """Remove the rule options from a command's keyword arguments and
    return the rules they name; rules that cannot be are refused naming
    the option (:func:`rules_refusal`; ``ctx``: the options' context, the
    running command's when not given)."""
    variant = kwargs.pop("variant")
    options = {name: kwargs.pop(name) for name in RULE_OPTION_NAMES}
    try:
        return rules_from_options(variant, options)
    except TerraceError as error:
        raise rules_refusal(error, variant, ctx) from None


def rules_refusal(error: TerraceError, variant: str | None,
                  ctx: click.Context | None = None) -> click.UsageError:
    """The usage error of rules the options of ``ctx`` (the running
    command's when not given) cannot make, naming the option to change: a
    rule option the error names, or whose change left another out of range
    (``--piles 1`` and Terrace's 3 candidates), when the command line gave
    it; else ``--variant``, with the value as written, whose preset or row's
    title gave the rules (``show --piles 99`` and ``stats -v "Terrace
    (custom: piles 99)"`` named no option)."""
    ctx = ctx or click.get_current_context(silent=True)
    params = error.reason.params if error.reason is not None else {}
    named = params.get("changed") if error.code is Refusal.OPTION_KEPT_RANGE else (params.get("option"),)
    names = [name for name in named if isinstance(name, str)] if isinstance(named, tuple) else []
    if ctx is None:
        return click.UsageError(str(error))
    options = {param.name: param for param in ctx.command.params}
    param = next((options[name] for name in names if name in options and _given_in(ctx, name)), None)
    if param is not None or "variant" not in options:
        return click.BadParameter(str(error), ctx, param)
    written = quote(str(variant))
    said = str(error) if written in str(error) else f"{written}: {error}"
    return click.BadParameter(said, ctx, options["variant"])


def deal_options(func: F) -> F:
    """Add ``--deal-number`` and ``--deal-file``."""
    func = once_option("--deal-file", type=FilePath(dir_okay=False, allow_dash=True),
                       help="File holding a deal string ('-' for standard input).")(func)
    func = once_option("--deal-number", "-n", type=DEAL_NUMBER,
                       help=f"Numbered deal: {DEAL_NUMBERS}.")(func)
    return func


class NoWriterError(OSError):
    """An input file is a pipe that no program writes to."""


def read_input(name: str, limit: int) -> bytes | None:
    """The bytes of file ``name`` (``-``: standard input), or None when it
    holds more than ``limit`` bytes (a file whose size says so is not read,
    and of any other no more than ``limit + 1`` bytes are); standard
    input closed (``<&-``) is a usage error (status 2, as a file that
    cannot be read is: see :func:`unreadable`), and a pipe (a FIFO) that
    nothing writes to within :data:`PIPE_WAIT` seconds is
    :class:`NoWriterError`, an ``OSError``."""
    if name == "-":
        if sys.stdin is None:
            raise input_refusal(InputFault.UNREADABLE, INPUT_CLOSED)
        return _within(sys.stdin.buffer.read(limit + 1), limit)
    # (opened without waiting: a FIFO's open() waits for a writer)
    handle = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(handle, "rb", buffering=0) as file:
        refuse_own_pipe(handle, OWN_OUTPUTS)
        info = os.fstat(handle)
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            return None  # (its size says so: 64 MB of a 100 MB file were read to refuse it)
        first = b"" if stat.S_ISREG(info.st_mode) else _await_writer(handle)
        os.set_blocking(handle, True)
        parts, size = [first], len(first)
        while size <= limit:
            chunk = file.read(limit + 1 - size)
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
    # (a file read in one go is not copied: an import may be 64 MB)
    return _within(parts[1] if len(parts) == 2 and not first else b"".join(parts), limit)


def file_text(raw: bytes) -> str:
    """The text of an input file (the deal file, the file to import): UTF-8,
    a byte-order mark at its start passed over, or UTF-16 when it starts
    with UTF-16's byte-order mark, as Windows PowerShell 5's ``>`` and
    Notepad's "Unicode" write it (such a file was refused as no text);
    anything else raises ``UnicodeDecodeError``.

    >>> file_text("\\ufeffAS 2S".encode("utf-16-le")), file_text("AS 2S".encode("utf-16")), file_text(b"AS")
    ('AS 2S', 'AS 2S', 'AS')
    """
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16")
    return raw.decode("utf-8-sig")


def unreadable(what: str, error: OSError) -> click.ClickException:
    """The refusal of an input file that cannot be read (missing, no
    permission, a pipe nothing writes to): a usage error, status 2, for
    the deal file and the file to import alike, as click's own refusal of
    a folder given as either is (``terrace import`` said 1 for a missing
    file, 2 for a folder).

    >>> unreadable("the deal file", FileNotFoundError(2, "No such file or directory")).format_message()
    'cannot read the deal file: No such file or directory'
    """
    return input_refusal(InputFault.UNREADABLE, f"cannot read {what}: {error.strerror or error}")


def _within(raw: bytes, limit: int) -> bytes | None:
    return None if len(raw) > limit else raw


def _await_writer(handle: int) -> bytes:
    """Wait, at most :data:`PIPE_WAIT` seconds, until a program writes to
    the pipe ``handle`` (opened without blocking) or has it open; answer
    the byte read to find out, if any."""
    poller = select.poll()
    poller.register(handle, select.POLLIN)
    if poller.poll(0):
        return b""  # data, or a writer come and gone: the reading says which
    try:
        first = os.read(handle, 1)
    except BlockingIOError:
        return b""  # a writer has it open and has written nothing yet
    if first or poller.poll(PIPE_WAIT * 1000):
        return first
    raise NoWriterError(errno.EPIPE, f"it is a pipe that nothing writes to (waited {PIPE_WAIT:g} s for a "
                                     "writer): start the program that writes to it first, or give a file")


def _bad_deal_file(message: str) -> click.ClickException:
    """The refusal of what a deal file holds (:data:`INPUT_STATUS`)."""
    return input_refusal(InputFault.DEAL_CONTENT, message)


def load_deal(rules: Rules, deal_number: int | None, deal_file: str | None) -> tuple[Rules, Deal]:
    """The deal named by ``--deal-number`` or ``--deal-file`` (exactly one),
    and the rules to play it by: ``rules`` (those of the rule options), or
    a deal file's own (its :data:`RULES_LINE`), which the rule options, when
    any is given, must name too."""
    if (deal_number is None) == (deal_file is None):
        raise click.UsageError("give exactly one of --deal-number and --deal-file")
    line = None
    try:
        if deal_number is not None:
            return rules, Deal.from_number(deal_number, rules)
        assert deal_file is not None
        raw = read_input(deal_file, MAX_DEAL_FILE_BYTES)
        if raw is None:
            raise too_large("the deal file", MAX_DEAL_FILE_BYTES, ": it must hold one deal string")
        text = file_text(raw)  # (a byte-order mark is fine, and UTF-16 with its mark)
        # (it said "a deal for 2 decks has 104 cards, this one has 0"; a U+2028 is no gap, so not empty)
        if not text.strip(DEAL_SPACES):
            raise _bad_deal_file("the deal file is empty: it must hold one deal string")
        text, line = _comments_apart(text)
        if line is not None:
            rules = _file_rules(line, rules)
        if not text.strip(DEAL_SPACES):
            raise _bad_deal_file("the deal file holds no deal string, only lines of '#': it must hold one")
        if text.lstrip(DEAL_SPACES).startswith(("{", "[")):  # (it said "... 104 cards, this one has 420")
            raise _bad_deal_file("the deal file holds JSON (a game record?), not a deal string: give a "
                                 "file holding the card codes alone (terrace deal -n N > deal.txt writes "
                                 "one; a record's is its \"deal\"), or terrace import the record")
        return rules, Deal.parse(text, rules)
    except InvalidDealError as error:
        raise _bad_deal_file(str(error) + _other_decks(error, rules, line)) from None
    except OSError as error:
        raise unreadable("the deal file", error) from None
    except UnicodeDecodeError:
        raise _bad_deal_file("the deal file is not text: it must hold card codes such as TD") from None
    except TerraceError as error:
        raise _bad_deal_file(str(error)) from None


def dealt_board(kwargs: dict[str, Any], deal_number: int | None, deal_file: str | None) -> Board:
    """The board of a command that deals: the rule options taken out of its
    keyword arguments (:func:`pop_rules`) and the deal of ``--deal-number``
    or ``--deal-file`` (:func:`load_deal`)."""
    return Board(*load_deal(pop_rules(kwargs), deal_number, deal_file))


def rules_line(variant: str, rules: Rules) -> str | None:
    """The line ``terrace deal`` writes before the deal string of ``rules``
    (a game of ``variant``): the rule options that give them, after
    :data:`RULES_LINE`; None for the rules of :data:`DEFAULT_VARIANT`, which
    a deal file without the line is played by.

    >>> rules_line("wood", get_rules("wood", redeals=1, foundation_return=True))
    '# rules: --variant wood --redeals 1 --foundation-return'
    >>> rules_line("signora", get_rules("terrace")) is None
    True
    """
    if rules.as_played() == get_rules(DEFAULT_VARIANT).as_played():
        return None
    name, preset = canonical_name(variant), rules.as_played()
    words = [RULES_LINE, "--variant", name]
    for option in RULE_OPTIONS.values():
        value = getattr(preset, option.name)
        if value == getattr(get_rules(name), option.name):
            continue
        flag, no = _flags(option)
        words += [flag if value else no] if option.kind is OptionKind.BOOL else [flag, str(value)]
    return " ".join(words)


def _comments_apart(text: str) -> tuple[str, str | None]:
    r"""A deal file's text without its lines that begin with '#' (notes,
    and its :data:`RULES_LINE`), and that line, if any (two are refused).

    >>> _comments_apart("# mine\n# rules: --piles 11\rAS 2S\n")
    ('AS 2S\n', '# rules: --piles 11')
    """
    if "#" not in text:
        return text, None
    kept, found = [], []
    for line in re.split("[\r\n]", text):  # (a lone CR ends a line too; a U+2028 does not: DEAL_SPACES)
        bare = line.strip(DEAL_SPACES)
        if not bare.startswith("#"):
            kept.append(line)
        elif bare.startswith(RULES_LINE):
            found.append(bare)
    if len(found) > 1:
        raise _bad_deal_file(f"the deal file has {len(found)} lines of rules ({RULES_LINE} ...): keep one")
    return "\n".join(kept), found[0] if found else None


@click.command(add_help_option=False)
@rule_options
def _rules_of_line(**kwargs: Any) -> None:
    """The options a deal file's rules line may give (read, never run)."""


def _file_rules(line: str, given_rules: Rules) -> Rules:
    """The rules a deal file's ``line`` (its :data:`RULES_LINE`) gives,
    read as the rule options are; the rule options of the command, when any
    is given, must give the same rules (the file's were taken in silence
    for the options' own, or the options' for the file's)."""
    words = [word for word in re.split(f"[{DEAL_SPACES}]+", line[len(RULES_LINE):]) if word]
    try:
        line_ctx = _rules_of_line.make_context(RULES_LINE, words)
        variant, rules = line_ctx.params["variant"], pop_rules(line_ctx.params, line_ctx)
    except click.ClickException as error:
        raise click.UsageError(f"the deal file's line {quote(line)}: {error.format_message()}") from None
    ctx = click.get_current_context(silent=True)
    if ctx is None or not any(given(name) for name in ("variant", *RULE_OPTION_NAMES)):
        return rules
    if rules.as_played() != given_rules.as_played():
        theirs, ours = rules_label(variant, rules), rules_label(ctx.params["variant"], given_rules)
        raise click.UsageError(f"the deal file is for {label_title(theirs)} (its line {quote(line)}), "
                               f"the rule options given for {label_title(ours)}: give the line's options "
                               "or none, or remove the line to play its cards by other rules")
    return rules


def _other_decks(error: InvalidDealError, rules: Rules, line: str | None = None) -> str:
    """What to give when a deal file holds the cards of another number of
    decks: the decks are the preset's unless ``--decks`` was given (a deal of
    one deck was refused as 'a deal for 2 decks has 104 cards, this one has
    52', naming no option), or its rules ``line`` gives them (then the line
    is wrong: --decks would be refused)."""
    count = error.reason.params.get("count") if error.reason is not None else None
    if error.code is not Refusal.DEAL_CARD_COUNT or not isinstance(count, int):
        return ""
    decks, left = divmod(count, CARDS_PER_DECK)
    low, high = RULE_OPTIONS["decks"].limits({})
    if left or not low <= decks <= high or decks == rules.decks:
        return ""
    held = f": it holds the cards of {decks} deck{'s' if decks > 1 else ''}"
    if line is not None:
        return f"{held}, not those its line {quote(line)} gives"
    return f"{held} (give --decks {decks})"


def play_moves(board: Board, moves: str) -> IllegalMove | None:
    """Play the moves of ``--moves`` (words of :func:`terrace.moves.move_words`) on
    ``board`` until the first that cannot be read or played, and return
    that refusal (None when every move was played). Every command that
    takes ``--moves`` refuses a move through this one error.

    >>> board = Board.from_number(7, get_rules("terrace"))
    >>> play_moves(board, "c1, s"), len(board.move_stack)
    (None, 2)
    >>> play_moves(board, "s zz s").format_message()
    "move 2 is illegal: 'zz' is not a move: write e.g. c1, s, wf, rf, t2t5, wt3 or t4f2"
    """
    for index, word in enumerate(move_words(moves)):
        if index == MAX_MOVES:  # (as parse_moves and a record: a longer list is refused)
            return IllegalMove(index, str(too_many_moves()))
        try:
            move = Move.parse(word)
            board.push(move)
        except IllegalMoveError as error:
            ended = board.ended()  # (past the end: not why the card it names cannot go)
            return IllegalMove(index, str(error) if ended is None else f"{move}: {ended}")
        except TerraceError as error:
            return IllegalMove(index, str(error))
    return None


def db_option(func: F) -> F:
    """The ``--db PATH`` option of the games database."""
    return once_option(
        "--db", type=DATABASE_PATH,
        help="SQLite file of saved games (default: $TERRACE_DB, else games.sqlite "
             "in the user data folder).",
    )(func)


def verdicts_db_options(func: F) -> F:
    """``--verdicts-db PATH``, and ``--db PATH``, its deprecated old name
    (read them with :func:`chosen_verdicts_db`)."""
    func = once_option(
        "--db", "old_db", type=DATABASE_PATH,
        help="Deprecated name of --verdicts-db (it will be removed).",
    )(func)
    return once_option(
        "--verdicts-db", type=DATABASE_PATH,
        help="SQLite file of the solver's verdicts (default: solver.sqlite3 beside "
             "the games database, in the user data folder; made, with its folder, "
             "when first needed); reruns resume.",
    )(func)


def placed(message: str, path: Path | None) -> str:
    """``message`` about the database file at ``path``, one no option of the
    command named (the default one, or ``$TERRACE_DB``'s; None: one that
    was named), with where that file is when the message names it. The
    library names a database by its file's name alone (as the page shows
    it): "games.sqlite is damaged ...: restore a backup, or move it away"
    did not say where it was.

    >>> placed("games.sqlite is damaged", Path("/home/ann/.local/share/terrace/games.sqlite"))
    'games.sqlite is damaged (that file is /home/ann/.local/share/terrace/games.sqlite)'
    >>> placed("no saved game abc", Path("/home/ann/games.sqlite")), placed("games.sqlite is busy", None)
    ('no saved game abc', 'games.sqlite is busy')
    """
    if path is None:
        return message
    full = os.path.abspath(path)
    if label(path) not in message or full in message:
        return message
    return f"{message} (that file is {clip(full)})"


def message_file(given: str | None, default: Path | None) -> Path | None:
    """The database file a message about it should say where it is (see
    :func:`placed`): the ``default`` when no option named one; the file an
    option named when it is a device, a pipe or a socket, whose name alone
    says nothing of what was given (``--db /dev/zero`` was refused as "zero
    is not a regular file"); None for another file an option named, which
    the message names as it was given.

    >>> message_file(None, Path("/d/games.sqlite")), message_file("/dev/zero", None)
    (PosixPath('/d/games.sqlite'), PosixPath('/dev/zero'))
    >>> message_file("/d/games.sqlite", Path("/d/games.sqlite")) is None
    True
    """
    if given is None:
        return default
    path = Path(given).expanduser()
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else path


def games_db_file(db: str | None) -> Path | None:
    """The games database a message about it should say where it is
    (:func:`message_file`): the one ``--db`` names, or the default one,
    when it keeps anything (not ``TERRACE_DB=:memory:``) and is not itself
    refused."""
    if db is not None:
        return message_file(db, None)
    try:
        path = games_path(None)
    except StoreError:
        return None
    return None if path is None or str(path) == MEMORY else path


def chosen_verdicts_db(verdicts_db: str | None, old_db: str | None) -> str:
    """The verdict cache the options name, with a note on standard error
    when the deprecated ``--db`` was used; a file that cannot serve as the
    cache is refused in one line."""
    if old_db is not None:
        if verdicts_db is not None:
            raise click.UsageError("give --verdicts-db only (--db is its deprecated old name)")
        click.echo("note: --db on this command is deprecated and will be removed: "
                   "use --verdicts-db", err=True)
        verdicts_db = old_db
    path = default_verdicts_path() if verdicts_db is None else Path(verdicts_db).expanduser()
    try:
        check_verdict_cache(path)
    except StoreError as error:
        raise click.ClickException(placed(str(error), message_file(verdicts_db, path))) from None
    return str(path)
