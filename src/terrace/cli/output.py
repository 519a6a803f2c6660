"""Files a command writes for the person at the terminal: whole or not at
all, and a failure said in one line that names the file."""

from __future__ import annotations

import codecs
import errno
import io
import logging
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from terrace.refusals import clip, printable
from terrace.symbols import SUIT_SYMBOLS, SUITS

PIPE_WAIT = 1.0
"""How long, in seconds, a file that is a pipe (a FIFO) may wait for the
program at its other end: an input for a program that writes to it, an
output for one that reads from it. Then it is refused: opening or
reading it would otherwise wait for ever."""


def write_whole(path: Path, data: str | bytes) -> None:
    """Write a file whole or not at all: a temporary file beside it, renamed
    over it. A symbolic link is followed (the link stays, its target gets
    the text), a file that is there keeps its permissions (and, for root,
    its owner), a new one gets the umask's, and something that is not a
    regular file (a pipe, a device) or is reached through an open file of
    the process (``/dev/stdout``, ``/proc/self/fd/1``: the link names no
    path to put a file at) is written to as it is. A file there that this
    user may not write is refused, as ``>`` refuses it."""
    target = Path(os.path.realpath(path))
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        try:
            existing: os.stat_result | None = os.stat(path)  # (follows /dev/stdout to what it is)
        except FileNotFoundError:
            existing = None
        if existing is not None and stat.S_ISDIR(existing.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if existing is not None and stat.S_ISFIFO(existing.st_mode):
            _write_to_pipe(path, raw)
            return
        if existing is not None and (not stat.S_ISREG(existing.st_mode) or not _names(target, existing)):
            with open(path, "wb") as file:
                file.write(raw)
            return
        if existing is not None and not os.access(target, os.W_OK):
            # (the new file renamed over it needs only the folder's leave:
            # a file its user made read-only would be replaced all the same)
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        if not target.parent.is_dir():
            raise click.ClickException(f"cannot write {clip(str(path))}: its folder"
                                       f" {clip(str(target.parent))} does not exist")
        try:
            handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        except OSError as error:  # (a folder that takes no new file: /proc, read-only, full)
            raise click.ClickException(f"cannot write {clip(str(path))}: no new file can be made in its"
                                       f" folder {clip(str(target.parent))} ({error.strerror or error})"
                                       ) from None
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(raw)
                file.flush()
                os.fsync(file.fileno())
            if existing is not None:
                os.chmod(temp, stat.S_IMODE(existing.st_mode))
                if os.geteuid() == 0:
                    os.chown(temp, existing.st_uid, existing.st_gid)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(temp, 0o666 & ~umask)
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise click.ClickException(f"cannot write {clip(str(path))}: {error.strerror or error}") from None


OWN_INPUT = (0,)
"""The file descriptor through which the process reads its standard input."""

OWN_OUTPUTS = (1, 2)
"""The file descriptors through which the process writes (standard output and error)."""


def refuse_own_pipe(handle: int, own: tuple[int, ...]) -> None:
    """Raise ``OSError`` when ``handle`` is a pipe that the process itself
    holds open at one of the descriptors ``own`` from the other end: a pipe
    read that is the command's own standard output (``--deal-file
    /dev/stdout`` in a pipeline) or one written that is its own standard
    input (``export -o /dev/stdin``). Nothing else would ever write to it, or
    read from it, while the command waited: it waited for ever."""
    mode = os.fstat(handle)
    if not stat.S_ISFIFO(mode.st_mode):
        return
    for fd in own:
        try:
            theirs = os.fstat(fd)
        except OSError:  # (closed)
            continue
        if (theirs.st_dev, theirs.st_ino) == (mode.st_dev, mode.st_ino):
            stream = {0: "input", 1: "output", 2: "error"}[fd]
            raise OSError(errno.EINVAL, f"it is this command's own standard {stream}, a pipe it would wait "
                                        "on for ever: give a file, or another pipe")


def _write_to_pipe(path: Path, raw: bytes) -> None:
    """Write ``raw`` into the pipe ``path`` once a program reads from it,
    waiting :data:`PIPE_WAIT` seconds at most for one (opened plainly, a
    pipe that nothing reads from waited for ever)."""
    deadline = time.monotonic() + PIPE_WAIT
    while True:
        try:
            handle = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            break
        except OSError as error:
            if error.errno != errno.ENXIO:  # (ENXIO: nothing reads from it yet)
                raise
            if time.monotonic() >= deadline:
                why = (f"it is a pipe that nothing reads from (waited {PIPE_WAIT:g} s for a reader): "
                       "start the program that reads from it first, or give a file")
                raise OSError(errno.ENXIO, why) from None
            time.sleep(0.01)
    with open(handle, "wb") as file:
        refuse_own_pipe(handle, OWN_INPUT)
        os.set_blocking(handle, True)
        file.write(raw)


def _names(target: Path, existing: os.stat_result) -> bool:
    """Whether the resolved path ``target`` is the file ``existing`` (a
    path through an open file of the process, ``/dev/stdout``, resolves
    to no such path: ``/proc/<pid>/fd/pipe:[…]``)."""
    try:
        here = target.stat()
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (existing.st_dev, existing.st_ino)


class _WholeWrites(io.RawIOBase):
    """File descriptor ``fd``, each write written whole or failing."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self._fd, view[done:])
        return done


def whole_standard_output() -> None:
    """Make every write to an unbuffered standard output (``python -u``,
    ``PYTHONUNBUFFERED=1``, as set in many containers and services) whole
    or an error. Python's text layer writes straight to the file there and
    drops the short count a pipe returns when its reader stops early
    (``terrace export --all | head``): the rest of the output was lost
    without a word and the command ended with status 0, where a buffered
    output raises ``BrokenPipeError`` (status 1, see :mod:`terrace.cli`).
    A buffered output, or one that is no file of the process (a test
    runner's), is left as it is."""
    stream = sys.stdout
    if not isinstance(stream, io.TextIOWrapper):
        return
    if isinstance(stream.buffer, io.BufferedIOBase | _WholeWrites):
        return
    try:
        fd = stream.fileno()
        stream.flush()
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(_WholeWrites(fd), encoding=stream.encoding, errors=stream.errors,
                                  line_buffering=stream.line_buffering, write_through=True)


OUTPUT_FAILED = "standard output could not be written"
"""How a failed write to standard output (not a closed pipe) is named."""


class OutputError(OSError):
    """A write to standard output that failed (``> /dev/full``, a full
    disk, an input/output error), named as such: the system's words alone
    ("No space left on device") did not say which file was full."""


class _NamedOutput(io.TextIOWrapper):
    """Standard output whose failed writes say they are standard output's
    (a reader that stopped early, ``EPIPE``, is left to click). Once one
    has failed, the command ends on that error: the flush at the program's
    end, which fails again, stays quiet (it printed a traceback and made
    the status 120)."""

    failed = False

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except OSError as error:
            self.failed = True
            raise _named(error) from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as error:
            if self.failed and sys.is_finalizing():
                return
            self.failed = True
            raise _named(error) from None


def _named(error: OSError) -> OSError:
    if error.errno == errno.EPIPE or isinstance(error, OutputError):
        return error
    return OutputError(error.errno, f"{OUTPUT_FAILED}: {error.strerror or error}")


STAND_INS = {"\u2212": "-", "\u00d7": "x", "\u2013": "-", "\u2014": "--", "\u2026": "...",
             "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ",
             **dict(zip(SUIT_SYMBOLS, SUITS, strict=True))}
"""The typographic characters of the help and the messages (a minus, a
times sign, dashes, quotes) and the suit symbols of the cards they name
(as the notation's letters: 8♥ is 8H), each with the ASCII it stands for
where the terminal's encoding lacks it."""

PLAIN = "terrace-plain"
"""The encoding error handler of standard output: a character of
:data:`STAND_INS` the encoding lacks is written as its stand-in, any other
as Python's escape (a folder named ``é`` in the survey's "wrote ..." line,
on an ASCII terminal: ``\xe9``; it ended the survey, its verdicts stored,
in "'ascii' codec can't encode character", status 1). The QR code looks
whether its blocks can be written before it draws them
(:func:`terrace.web.remote.print_qr`)."""

PLAIN_ESCAPED = "terrace-plain-escaped"
"""The handler of standard error: as :data:`PLAIN` (Python's escapes,
``backslashreplace``, are standard error's own)."""


def _stand_ins(error: UnicodeError, otherwise: str) -> tuple[str | bytes, int]:
    r"""The stand-ins of the characters the encoding lacks, as far as
    :data:`STAND_INS` has them; from the first it has not, ``otherwise``.

    >>> "52 × decks − piles − 1".encode("cp1252", PLAIN)
    b'52 \xd7 decks - piles - 1'
    >>> "52 × decks − piles − 1".encode("ascii", PLAIN)
    b'52 x decks - piles - 1'
    >>> "the 10♦ on the Q♠".encode("latin-1", PLAIN)
    b'the 10D on the QS'
    >>> "▀".encode("cp1252", PLAIN_ESCAPED), "−▀".encode("latin-1", PLAIN_ESCAPED)
    (b'\\u2580', b'-\\u2580')
    >>> "/tmp/é/ő".encode("ascii", PLAIN), "/tmp/é/ő".encode("cp1252", PLAIN)
    (b'/tmp/\\xe9/\\u0151', b'/tmp/\xe9/\\u0151')
    """
    if not isinstance(error, UnicodeEncodeError):
        raise error
    taken = []
    for char in error.object[error.start:error.end]:
        if char not in STAND_INS:
            break
        taken.append(STAND_INS[char])
    if taken:
        return "".join(taken), error.start + len(taken)
    if otherwise == "backslashreplace":
        return codecs.backslashreplace_errors(error)
    raise error


codecs.register_error(PLAIN, lambda error: _stand_ins(error, "backslashreplace"))
codecs.register_error(PLAIN_ESCAPED, lambda error: _stand_ins(error, "backslashreplace"))


ASCII = "terrace-ascii"
"""Python's ASCII codec under a name of its own, for a standard stream in
ASCII (``PYTHONIOENCODING=ascii``, ``LC_ALL=C``): click takes a stream
whose encoding is named ASCII for misconfigured and writes UTF-8 under it
(the help's "52 × decks" and a refusal's "the 8♥" came out as UTF-8 bytes
on an ASCII terminal); under this name it writes the stream's ASCII, the
stand-ins of :data:`STAND_INS` in their place."""


def _search_ascii(name: str) -> codecs.CodecInfo | None:
    if name != ASCII.replace("-", "_"):
        return None
    ascii_codec = codecs.lookup("ascii")
    return codecs.CodecInfo(ascii_codec.encode, ascii_codec.decode, ascii_codec.streamreader,
                            ascii_codec.streamwriter, ascii_codec.incrementalencoder,
                            ascii_codec.incrementaldecoder, name=ASCII)


codecs.register(_search_ascii)


def _plain_encoding(encoding: str) -> str:
    r"""``encoding``, or :data:`ASCII` when it is Python's ASCII.

    >>> _plain_encoding("ANSI_X3.4-1968"), _plain_encoding("cp1252")
    ('terrace-ascii', 'cp1252')
    >>> "the 8♥ × 2".encode(_plain_encoding("ascii"), PLAIN)
    b'the 8H x 2'
    """
    try:
        return ASCII if codecs.lookup(encoding).name == "ascii" else encoding
    except LookupError:
        return encoding


def _with_stand_ins(errors: str | None) -> str | None:
    """``errors`` with :data:`STAND_INS` first, when it is Python's default
    for standard output or standard error."""
    return {"strict": PLAIN, "backslashreplace": PLAIN_ESCAPED}.get(errors or "", errors)


def named_standard_output() -> None:
    """Make a failed write to standard output say so: "standard output
    could not be written: No space left on device" (see
    :class:`OutputError`). Standard output that is no file of the process
    (a test runner's) is left as it is."""
    stream = sys.stdout
    if type(stream) is not io.TextIOWrapper:
        return
    try:
        stream.fileno()
        stream.flush()
    except (OSError, ValueError):
        return
    # (the help's "52 × decks − piles − 1" in an encoding without the minus,
    # cp1252 or latin-1, ended 'terrace deal --help' with status 1 and
    # "'charmap' codec can't encode character '\u2212'")
    encoding, errors = _plain_encoding(stream.encoding), _with_stand_ins(stream.errors)
    lines, through = stream.line_buffering, stream.write_through
    # (detached, the old layer no longer closes the file when it is let go)
    sys.stdout = _NamedOutput(stream.detach(), encoding=encoding, errors=errors, line_buffering=lines,
                              write_through=through)


class _BestEffortWrites(_WholeWrites):
    """File descriptor ``fd``, a write that fails let go (as written) at
    the bottom of the stream, so that every layer click may put on top of
    ``sys.stderr.buffer`` lets it go too."""

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        try:
            return os.write(self._fd, view)
        except OSError:
            return len(view)


def best_effort_standard_error() -> None:
    """Make writes to standard error that fail go unsaid instead of ending
    the command: a note or an error that cannot be written there
    (``2> /dev/full``, a full disk under a log) has nowhere else to go, and
    must not end the command before its output (a failed "# deal number
    101" note lost the deal string itself and made the status 1, a usage
    error's 2 as well). Standard error that is no file of the process (a
    test runner's) is left as it is."""
    stream = sys.stderr
    if type(stream) is not io.TextIOWrapper:
        return
    try:
        fd = stream.fileno()
        stream.flush()
    except (OSError, ValueError):
        return
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(_BestEffortWrites(fd)),
                                  encoding=_plain_encoding(stream.encoding),
                                  errors=_with_stand_ins(stream.errors),
                                  line_buffering=stream.line_buffering, write_through=stream.write_through)


WARNING = "warning: "
"""How a command's warning line begins on standard error (its notes begin
``note: ``): the library's logged warnings too (:func:`warnings_as_lines`)."""


class _WarningLines(logging.Handler):
    """Writes each warning the library logs as one line of standard error,
    begun with :data:`WARNING` (a line break or a terminal's escape in it
    written escaped, :func:`~terrace.refusals.printable`)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            click.echo(WARNING + printable(self.format(record)), err=True)
        except Exception:  # (as any handler: a warning never ends the command)
            self.handleError(record)


@contextmanager
def warnings_as_lines() -> Iterator[None]:
    """While the command runs, send the warnings of the library's loggers
    (``terrace.*``) to standard error as ``warning: ...`` lines. Without a
    handler, Python wrote them bare (``games.sqlite: some rows break ...``,
    "saved game ... is damaged ..."), lines a reader of ``terrace stats
    --json 2>&1`` or of the terminal could not tell from the command's own
    output or errors. The handler goes with the command (a program that
    runs commands in its own process keeps its logging as it was)."""
    logger = logging.getLogger("terrace")
    handler = _WarningLines(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
