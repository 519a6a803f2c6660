"""Helpers shared by the engine tests: crafted deals and positions."""

from __future__ import annotations

import gc
import os
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import hypothesis
import pytest

from browser_support import api, browser, open_game, playwright_api, playwrights_loop, server, won_game  # noqa: F401  (the browser tests' fixtures)
from bytecode_cache import set_children_bytecode
from terrace.board import Board
from terrace.cards import CODE, Card, full_pack, parse_card
from terrace.moves import Move
from terrace.rules import Rules
from web_support import SharedPool

# The tests never touch the user's own data folder (games, the solver's
# verdicts): they and the servers they start get a fresh one.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="terrace-tests-data-")


# The processes the tests start (`python -m terrace` in another folder, a
# server) run the code under test, this checkout's, not whatever copy the
# interpreter would find first (an editable install of another checkout,
# or a relative PYTHONPATH that means nothing in their folder).
import terrace

_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(terrace.__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [_SOURCE, *(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
)


set_children_bytecode()  # (their bytecode in a folder of its own: bytecode_cache.py)


# Hypothesis' own timings are wall time: on two cores shared by three test
# processes, browsers and solver workers (load 30 and more), a property's
# examples took over its 200 ms deadline and test_moves failed the health
# check for slow data (stop 70). What a property checks does not depend on
# its speed; budgets that must hold are tested by their own tests.
hypothesis.settings.register_profile(
    "terrace", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow]
)
hypothesis.settings.load_profile("terrace")


@pytest.fixture(scope="module")
def solver_pool() -> Iterator[SharedPool]:
    """One :class:`~web_support.SharedPool` for the apps of a test module's
    tests, shut at the module's end; for tests whose checks do not depend
    on a fresh solver process (a fair hint's kept work is keyed by its
    game's seed, a new game's own; a peeking hint's kept line comes from
    the game)."""
    pool = SharedPool()
    try:
        yield pool
    finally:
        pool.shut()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from playwrights_loop(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from playwrights_loop(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield from playwrights_loop(item)


def cards(text: str) -> list[Card]:
    """Cards from space-separated codes: ``cards("6D 7C")``."""
    return [parse_card(word) for word in text.split()]


def _leftover(rules: Rules, used: list[Card]) -> list[Card]:
    left = Counter(full_pack(rules.decks))
    left.subtract(used)
    if any(n < 0 for n in left.values()):
        too_many = sorted(CODE[c] for c, n in left.items() if n < 0)
        raise AssertionError(f"more copies than the decks hold: {too_many}")
    out = []
    for card in full_pack(rules.decks):
        if left[card] > 0:
            out.append(card)
            left[card] -= 1
    return out


def deal_text(rules: Rules, first: str) -> str:
    """A deal string that starts with the cards of ``first``; the rest of
    the pack follows in pack order."""
    head = cards(first)
    return " ".join(CODE[c] for c in head + _leftover(rules, head))


def craft(
    rules: Rules,
    base: str,
    *,
    reserve: str = "",
    foundations: Sequence[str] = (),
    tableau: Sequence[str] = (),
    waste: str = "",
    stock: str = "",
    rest: str = "stock",
) -> Board:
    """A board from the parts of a position. Lists run bottom first (the
    stock next card first). The cards not named go to the bottom of the
    stock (``rest="stock"``) or of the waste (``rest="waste"``); with
    ``rest="none"`` every card must be named."""
    found = [cards(f) for f in foundations]
    found += [[] for _ in range(rules.foundation_count - len(found))]
    piles = [cards(p) for p in tableau]
    piles += [[] for _ in range(rules.piles - len(piles))]
    res, was, sto = cards(reserve), cards(waste), cards(stock)
    used = res + was + sto + [c for f in found for c in f] + [c for p in piles for c in p]
    left = _leftover(rules, used)
    if rest == "stock":
        sto += left
    elif rest == "waste":
        was = left + was
    elif left:
        raise AssertionError(f"{len(left)} cards are not placed")

    def run(part: list[Card]) -> str:
        return "".join(CODE[c] for c in part) or "-"

    text = " ".join(
        [
            base,
            run(res),
            ",".join("".join(CODE[c] for c in f) for f in found) or "-",
            ",".join("".join(CODE[c] for c in p) for p in piles) or "-",
            run(was),
            run(sto),
            "0",
        ]
    )
    return Board.from_position(text, rules)


def alternate_run(first: str, length: int = 13) -> str:
    """A foundation built up in alternating colours from ``first``, taking
    spades for black and hearts for red when ``first`` is black, and clubs
    and diamonds otherwise: ``alternate_run("AS", 3) == "AS 2H 3S"``."""
    rank, suit = first[:-1], first[-1]
    ranks = "A23456789TJQK"
    start = ranks.index(rank)
    pair = {"S": "SH", "H": "HS", "C": "CD", "D": "DC"}[suit]
    return " ".join(ranks[(start + i) % 13] + pair[i % 2] for i in range(length))


def suit_run(first: str, length: int = 13) -> str:
    """A foundation built up in suit from ``first``: ``suit_run("QS", 3) == "QS KS AS"``."""
    rank, suit = first[:-1], first[-1]
    ranks = "A23456789TJQK"
    start = ranks.index(rank)
    return " ".join(ranks[(start + i) % 13] + suit for i in range(length))


def random_game(
    start: Board, rng: random.Random, length: int,
    choices: Callable[[Board], Sequence[Move]] = lambda board: list(board.legal_moves),
) -> list[Move]:
    """Up to ``length`` moves picked at random among ``choices`` (the legal
    moves by default) from ``start`` (left unchanged)."""
    board = start.copy(stack=False)
    moves: list[Move] = []
    for _ in range(length):
        legal = choices(board)
        if not legal:
            break
        move = rng.choice(legal)
        board.push(move)
        moves.append(move)
    return moves


def errors_in_threads(func: Callable[[], object], count: int) -> list[BaseException]:
    """Run ``func`` in ``count`` threads at once; what each raised."""
    import threading

    errors: list[BaseException] = []

    def run() -> None:
        try:
            func()
        except BaseException as error:  # (reported to the caller)
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (Linux's /proc; 0 once it has gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_cpu(pids: Callable[[], Sequence[int]], seconds: float, timeout: float = 120) -> None:
    """Return once each process of ``pids()`` has used ``seconds`` more CPU
    time than when this was called (work done: a count, not the wall clock,
    which a loaded machine stretches)."""
    import time

    start = {pid: cpu_seconds(pid) for pid in pids()}
    deadline = time.monotonic() + timeout
    while True:
        now = list(pids())
        if now and all(cpu_seconds(pid) - start.setdefault(pid, 0.0) >= seconds for pid in now):
            return
        assert time.monotonic() < deadline, f"no {seconds} s of CPU time in {timeout} s"
        time.sleep(0.02)


@contextmanager
def heap_of_this_test_alone() -> Iterator[None]:
    """For a test that bounds the CPU time of some work: the garbage
    collector's full walks leave out what the process held before (the
    objects of earlier tests in the same pytest-xdist process). In a
    fresh-clone CI such a process held about 1.1 million objects, and a
    full collection that the measured work set off took 0.49 to 0.52 s of
    the thread's CPU: test_endgame's skip-detours bound failed every try
    with it, against 0.002 s for the collection with those objects frozen;
    test_coach's 100,000-move replay took 0.72 s against a bound of 0.65."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
