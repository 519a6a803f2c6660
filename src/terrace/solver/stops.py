"""Stops of a long run: Ctrl+C and SIGTERM caught, given back, or held off
while workers start (a local survey's pool, a local cluster, the web
game's solver processes)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

STOPS: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a survey (Ctrl+C, and SIGTERM as the command line
takes it)."""


Handler = Callable[[int, Any], None]
"""A signal handler, as :func:`signal.signal` takes it."""


def catch_stops(handler: Handler, previous: dict[int, Any] | None = None) -> dict[int, Any]:
    """Make ``handler`` the handler of every signal in :data:`STOPS` that
    is not ignored; returns the handlers it replaced, in ``previous`` when
    given (filled as it goes, so that ``handler`` can read it at once),
    none off the main thread (where no signal arrives and none can be set).
    An ignored stop stays ignored: a shell script's job in the background
    ignores Ctrl+C, which reaches the script's whole process group, and
    ``terrace survey ... &`` there was stopped by the Ctrl+C meant for the
    script (every other command, and Python itself, kept ignoring it)."""
    replaced: dict[int, Any] = {} if previous is None else previous
    try:
        for number in STOPS:
            if signal.getsignal(number) != signal.SIG_IGN:
                replaced[number] = signal.signal(number, handler)
    except ValueError:  # (not the main thread)
        pass
    return replaced


def restore_stops(previous: Mapping[int, Any], only_from: Handler | None = None) -> None:
    """Give the signals in ``previous`` their handlers back (only those
    still handled by ``only_from``, when given: a later handler stays)."""
    for number, handler in previous.items():
        if only_from is None or signal.getsignal(number) is only_from:
            signal.signal(number, handler)


@contextmanager
def interrupts_deferred(every: bool = False) -> Iterator[None]:
    """Ctrl+C or SIGTERM while the body runs takes effect as it ends (a
    second one at once, unless ``every``). For the start of the local pool
    and of a local cluster: stopped midway, the workers already started
    were never stopped, and one that came up as the survey ended printed a
    traceback (its semaphores already gone); started whole, the pool (or
    cluster) is closed whole. ``every`` stop waits for a short write that
    must end whole: verdicts stored and counted (a second Ctrl+C came
    between the two, and the survey said fewer deals stored than it had)."""
    heard: list[int] = []
    previous: dict[int, Any] = {}

    def hear(signum: int, frame: Any) -> None:
        if heard and not every:
            _interrupt(previous.get(signum, signal.SIG_DFL), signum, frame)
        heard.append(signum)

    catch_stops(hear, previous)
    try:
        yield
    finally:
        restore_stops(previous, hear)
    if heard:
        _interrupt(previous.get(heard[0], signal.SIG_DFL), heard[0], None)


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl+C held back while worker processes (a survey's pool, its fork
    server, the web game's solver processes) start: a process started
    meanwhile inherits the signal blocked, so it cannot be interrupted even
    while it still imports, before it ignores the signal itself; this
    process gets a Ctrl+C of that moment as the block ends. (It was ignored
    here meanwhile, for the new process to inherit that, and a Ctrl+C in
    that moment was lost: the survey ran on to its end.) Where signals
    cannot be blocked (Windows), Ctrl+C is ignored meanwhile, as before.
    Start multiprocessing's resource tracker first, on its own: it blocks
    Ctrl+C while it starts, then unblocks it whatever it was."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not on POSIX
        previous: Any = None
        with suppress(ValueError):  # not the main thread: nothing to change
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            yield
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        return
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


@contextmanager
def stops_blocked() -> Iterator[None]:
    """Every stop (:data:`STOPS`) blocked in this thread while the body
    runs, and for good in each thread it starts and each process it forks
    (which unblock them themselves: see
    :func:`terrace.solver.pool._own_signals`); a stop of that moment
    reaches this process as the block ends. Where signals cannot be
    blocked, :func:`interrupts_held`."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not on POSIX
        with interrupts_held():
            yield
        return
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOPS))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _interrupt(handler: Any, signum: int, frame: Any) -> None:
    """Do what ``handler``, the handler of the stop signal ``signum`` that
    was deferred, does on it."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL and signum == signal.SIGINT:
        raise KeyboardInterrupt
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)


@contextmanager
def stops_kept(held: bool = False) -> Iterator[Callable[[], None]]:
    """A stop (Ctrl+C or SIGTERM) in the body is never lost, nor half taken.
    Yields ``check``, which the body calls where it waits, and which is
    called once more as the body ends: it takes a stop heard so far as the
    handler before this one takes it (raises KeyboardInterrupt, ...).

    ``held``: a stop waits for ``check`` (a second one is taken at once).
    For a loop that waits on other threads: raised inside the waits of
    :mod:`threading`, a KeyboardInterrupt could leave a lock released
    twice (``RuntimeError: release unlocked lock`` instead of a stop) or
    held for ever (the survey hung). Otherwise a stop is taken at once, and
    ``check`` takes it again if its exception was raised where Python drops
    exceptions (a finalizer or a weakref callback running at that moment
    printed ``Exception ignored in: <Finalize object>`` and the survey went
    on to its end). A handler that does not raise (or an ignored signal)
    is left to do as it does."""
    previous: dict[int, Any] = {}
    heard: list[int] = []

    def hear(signum: int, frame: Any) -> None:
        if held and not heard:
            heard.append(signum)
            return
        try:
            _interrupt(previous.get(signum, signal.SIG_DFL), signum, frame)
        except BaseException:
            heard.append(signum)
            raise

    def check() -> None:
        if heard:
            signum = heard[0]
            heard.clear()
            _interrupt(previous.get(signum, signal.SIG_DFL), signum, None)

    catch_stops(hear, previous)
    try:
        yield check
    finally:
        restore_stops(previous, hear)
    check()  # (after the handler is put back: a stop heard while it was being put back is taken too)
