"""How every error of a ``terrace`` command ends: one short line on
standard error, never a traceback (unless ``--debug`` or ``TERRACE_DEBUG=1``
asks for it).

- click's usage errors (a bad option or argument): exit status 2;
- a refusal of the library (:class:`~terrace.errors.TerraceError` and the
  ``ValueError`` the solver raises for bad settings), a file that cannot be
  read or written, a damaged database: exit status 1;
- a move of ``--moves`` that cannot be read or played (``replay``, ``show``,
  ``hint``): ``move N is illegal: ...``, exit status 1 as well
  (:data:`ILLEGAL_MOVE`; ``replay`` and ``show`` print the position before
  it first, ``hint`` suggests nothing); so is a word of ``hint --line``
  that is not a move (``--line: 'zz' is not a move: ...``);
- anything else is a bug: ``internal error: ...``, exit status 1;
- Ctrl+C: ``stopped: interrupted (Ctrl+C)``, exit status 130 (128 + SIGINT;
  see :mod:`terrace.cli`);
- SIGTERM (and SIGHUP: the terminal closed), on every command
  (:func:`stop_on_sigterm`, set by
  :mod:`terrace.cli`; ``survey`` sets its own handler, which says where
  its verdicts are, and ``play`` ends with 0 as on Ctrl+C):
  ``stopped: terminated (SIGTERM)``, exit status 143 (128 + SIGTERM), as
  Ctrl+C stops them (without it a SIGTERM ended them with 143 and nothing
  on standard error, an import's database left with its -wal and -shm);
  SIGHUP: ``stopped: hung up (SIGHUP)``, exit status 129 (128 + SIGHUP).

Messages quote at most :data:`~terrace.refusals.MAX_QUOTE` characters of
anyone's input:

>>> message = shorten("Invalid value for '-n': '" + "1" * 5000 + "' is not a valid integer.")
>>> len(message), message[-28:]
(250, "11…' is not a valid integer.")
>>> message_of(FileNotFoundError(2, "No such file or directory", "games.json"))
'games.json: No such file or directory'
>>> message_of(RecursionError("maximum recursion depth exceeded"))
'the input is nested too deeply'
"""

from __future__ import annotations

import errno
import os
import re
import signal
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType

import click

from terrace.cli.stops import INTERRUPTED, STOPPED
from terrace.refusals import MAX_QUOTE, clip

DEBUG_ENV = "TERRACE_DEBUG"
"""Set to 1 to show the traceback of every error (like ``--debug``)."""

DEBUG_OFF = ("", "0", "false", "no", "off")
"""The values of :data:`DEBUG_ENV` that leave the tracebacks out (in any case)."""

ILLEGAL_MOVE = 1
"""The exit status of every command that refuses a move of ``--moves``:
that of any other refusal."""


TERMINATED = 128 + signal.SIGTERM
"""The exit status of a command stopped by SIGTERM (143), where
:func:`stop_on_sigterm` catches it."""

STOPPED_BY_SIGTERM = "stopped: terminated (SIGTERM)"
"""What a command stopped by SIGTERM says on standard error."""

HUNG_UP = 129
"""The exit status of a command stopped by SIGHUP (128 + SIGHUP, which
Windows lacks), where :func:`stop_on_sigterm` catches it."""

STOPPED_BY_SIGHUP = "stopped: hung up (SIGHUP)"
"""What a command stopped by SIGHUP (the terminal closed) says on standard
error."""

MAX_LINE = 3 * MAX_QUOTE
"""Longest line of an error message: longer ones repeat someone's input."""

_LONG_QUOTE = re.compile(rf"'([^'\n]{{{MAX_QUOTE + 1},}}+)'")

EXPECTED: tuple[type[Exception], ...] = (ValueError, OSError, sqlite3.Error, RecursionError, MemoryError)
"""The errors bad input can cause (``TerraceError`` is a ``ValueError``)."""


class InternalError(click.ClickException):
    """An error no input should cause: a bug, shown in one line."""

    def show(self, file: object = None) -> None:
        click.echo(self.format_message(), err=True)


class IllegalMove(click.ClickException):
    """Move ``index`` (0-based) of ``--moves`` cannot be read or played,
    for ``reason``: ``move N is illegal: reason`` on standard error, exit
    status :data:`ILLEGAL_MOVE`.

    >>> IllegalMove(1, "rf: no foundation accepts the Q♥ yet").format_message()
    'move 2 is illegal: rf: no foundation accepts the Q♥ yet'
    """

    exit_code = ILLEGAL_MOVE

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"move {index + 1} is illegal: {reason}")
        self.index = index
        self.reason = reason

    def show(self, file: object = None) -> None:
        click.echo(self.format_message(), err=True)


class UnreadableMoves(click.ClickException):
    """Moves given to an option other than ``--moves`` (``hint --line``)
    that cannot be read: refused with status :data:`ILLEGAL_MOVE`, as a
    move of ``--moves`` is, not as a usage error."""

    exit_code = ILLEGAL_MOVE


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl+C raises ``KeyboardInterrupt`` (by
    :func:`stop_on_sigterm`), so that the same code stops a command."""


class HungUp(Terminated):
    """SIGHUP (the terminal closed), raised by :func:`stop_on_sigterm` as
    :class:`Terminated` is, but named as itself: it was reported as SIGTERM,
    with SIGTERM's status 143."""


class Interrupted(KeyboardInterrupt):
    """Ctrl+C, raised by the handler :func:`stop_on_sigterm` sets where
    Python's own raises a plain ``KeyboardInterrupt``. CPython ends a
    ``python -m`` process by SIGINT at its exit once a plain
    ``KeyboardInterrupt`` has left an ``exec`` of text (a dataclass being
    made as a module loads), even when the program caught it: a Ctrl+C as
    the web game's server loaded h11 ended ``python -m terrace play`` by
    SIGINT (130 in the shell) where it ends with 0, and any other command
    by SIGINT, not with status 130. A subclass is not taken for it."""


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted


def stopped(stop: KeyboardInterrupt) -> tuple[str, int]:
    """What a command stopped by Ctrl+C or SIGTERM says, and its exit status;
    what the command added to ``stop`` as notes (an import: how many games
    it stored) follows.

    >>> stopped(KeyboardInterrupt()), stopped(Terminated()), stopped(HungUp())
    (('stopped: interrupted (Ctrl+C)', 130), ('stopped: terminated (SIGTERM)', 143), \
('stopped: hung up (SIGHUP)', 129))
    >>> stop = Interrupted()
    >>> stop.add_note("the import stopped after 2 games of the file were stored")
    >>> stopped(stop)[0]
    'stopped: interrupted (Ctrl+C); the import stopped after 2 games of the file were stored'
    """
    message, status = ((STOPPED_BY_SIGHUP, HUNG_UP) if isinstance(stop, HungUp) else
                       (STOPPED_BY_SIGTERM, TERMINATED) if isinstance(stop, Terminated) else
                       (STOPPED, INTERRUPTED))
    return "; ".join([message, *getattr(stop, "__notes__", [])]), status


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


SignalHandler = Callable[[int, FrameType | None], None]
"""A signal handler, as :func:`signal.signal` takes it."""


def _stop_signals() -> list[signal.Signals]:
    """The signals that stop a command: Ctrl+C, SIGTERM and SIGHUP (none on Windows)."""
    return [signal.SIGINT, signal.SIGTERM, *([HANG_UP] if HANG_UP is not None else [])]


def _once(raise_it: SignalHandler) -> SignalHandler:
    """The handler ``raise_it`` that, as it raises, ignores every stop
    signal (:func:`_stop_signals`) for the rest of the process."""
    def handler(signum: int, frame: FrameType | None) -> None:
        for taken in _stop_signals():
            signal.signal(taken, signal.SIG_IGN)
        raise_it(signum, frame)
    return handler


def _hang_up(signum: int, frame: FrameType | None) -> None:
    # (named as itself where this module's SIGTERM handler is set; else
    # SIGTERM, to whatever handler takes it then: a survey's, or the web
    # server's, which stops it gracefully)
    if signal.getsignal(signal.SIGTERM) is _terminate:
        raise HungUp
    os.kill(os.getpid(), signal.SIGTERM)


HANG_UP: signal.Signals | None = getattr(signal, "SIGHUP", None)
"""SIGHUP (none on Windows): the terminal closed, an ssh connection dropped."""


def hang_up_ends() -> None:
    """Give SIGHUP back its default, which ends the process at once, where
    :func:`stop_on_sigterm` took it (for a survey: its worker processes and
    multiprocessing's resource tracker die of it too, and a survey that
    stopped on its own printed the tracker's tracebacks; its verdicts are
    stored in groups, so it loses its last group not yet stored, as a
    SIGKILL does: see terrace.solver.survey._Group)."""
    with suppress(ValueError):  # (not the main thread)
        if HANG_UP is not None and signal.getsignal(HANG_UP) is _hang_up:
            signal.signal(HANG_UP, signal.SIG_DFL)


@contextmanager
def stop_on_sigterm(once: bool = False) -> Iterator[None]:
    """While it lasts, SIGTERM raises :class:`Terminated`: the command stops
    as on Ctrl+C, in one line on standard error (see :mod:`terrace.cli`);
    Ctrl+C raises :class:`Interrupted`.
    SIGHUP stops it as SIGTERM does, raising :class:`HungUp` (it killed an
    import outright, its new database left with a -wal and -shm, and an
    export its temporary file), unless it is ignored (``nohup``) or :func:`hang_up_ends` gave it back.
    ``once``: the first of these signals stops the command, and every later
    one is ignored for the rest of the process (``terrace play``, whose stop
    ends with 0: a second SIGTERM while it stopped ended it with 143).
    Nothing changes off the main thread (a test runner's), where no signal
    handler can be set. A handler that something else set meanwhile (one
    ignoring the signals: ``once``) is left as it is at the end."""
    # (SIGHUP's _hang_up goes on as SIGTERM where SIGTERM's handler is not _terminate: once's stops once)
    terminate, interrupted = (_once(_terminate), _once(_interrupted)) if once else (_terminate, _interrupted)
    try:
        previous = signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread
        yield
        return
    taken = HANG_UP if HANG_UP is not None and signal.getsignal(HANG_UP) == signal.SIG_DFL else None
    if taken is not None:
        signal.signal(taken, _hang_up)
    # (Ctrl+C raises Interrupted, unless it is ignored: a job started in the background)
    previous_int = signal.getsignal(signal.SIGINT)
    interrupting = previous_int is signal.default_int_handler or previous_int is _interrupted
    if interrupting:
        signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        if interrupting and signal.getsignal(signal.SIGINT) is interrupted:
            signal.signal(signal.SIGINT, previous_int)
        if taken is not None and signal.getsignal(taken) is _hang_up:
            signal.signal(taken, signal.SIG_DFL)
        if signal.getsignal(signal.SIGTERM) is terminate:
            signal.signal(signal.SIGTERM, previous)


def debug_wanted(flag: bool) -> bool:
    """True with ``--debug`` or when ``TERRACE_DEBUG`` is set, and not to a
    word for off (:data:`DEBUG_OFF`: ``TERRACE_DEBUG=false`` showed every
    traceback)."""
    return flag or os.environ.get(DEBUG_ENV, "").strip().lower() not in DEBUG_OFF


def shorten(message: str) -> str:
    """``message`` with every long quoted value cut short, and every line
    still too long clipped."""
    message = _LONG_QUOTE.sub(lambda m: f"'{clip(m.group(1))}'", message)
    return "\n".join(clip(line) if len(line) > MAX_LINE else line for line in message.splitlines())


def message_of(error: BaseException) -> str:
    """One line for an expected error."""
    if isinstance(error, RecursionError):
        return "the input is nested too deeply"
    if isinstance(error, MemoryError):
        return "not enough memory: the input is too large"
    if isinstance(error, OSError) and error.strerror:
        names = [str(name) for name in (error.filename, error.filename2) if name is not None]
        return ": ".join([*(clip(name) for name in names), error.strerror])
    if isinstance(error, sqlite3.Error):
        return f"database error: {error}"
    return str(error) or type(error).__name__


def refusal(error: Exception) -> click.ClickException:
    """The one-line click error that ends a command after ``error``
    (``error`` itself, shortened, when it is click's own)."""
    if isinstance(error, click.ClickException):
        # click repeats a bad value in full: shorten the message it shows
        # (typed Final in click, but set once more here before it is shown).
        error.message = shorten(error.message)  # type: ignore[misc]
        return error
    if isinstance(error, EXPECTED):
        return click.ClickException(shorten(message_of(error)))
    text = shorten(f"{type(error).__name__}: {error}")
    return InternalError(f"internal error: {text} (run with --debug for the traceback)")


def passes_through(error: BaseException) -> bool:
    """True for what click itself ends a program with: an exit, an abort
    (Ctrl+C), and a closed output pipe (``terrace deal | head``)."""
    if isinstance(error, click.exceptions.Exit | click.Abort):
        return True
    return isinstance(error, OSError) and error.errno == errno.EPIPE
