"""A fair hint asked again at the same position never answers worse: it
goes on with the samples it kept there (:class:`AskedHints`)."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import replace
from typing import ClassVar

import pytest

from terrace.board import Board
from terrace.moves import Move
from terrace.solver import advice
from terrace.solver.advice import HINT_SETTINGS, AskedHints, _founded, fair_hint
from terrace.solver.decision import Decision
from terrace.solver.fair import FairSettings
from terrace.solver.observation import observe
from terrace.variants import get_rules
from terrace.web import hints

NODES = 40_000
"""Positions per request: two or three of the 16 samples' solves (20,000 each)."""


def _drawn() -> Board:
    """Falling Star deal 4 after two draws: every stock card hidden, samples
    that a few thousand positions do not all solve."""
    board = Board.from_number(4, get_rules("falling-star"))
    for text in ("s", "s"):
        board.push_text(text)
    return board


def _decided(decision: Decision) -> int:
    return decision.samples - decision.undecided


def _asked(board: Board, asked: AskedHints, times: int, nodes: int = NODES) -> list[Decision]:
    return [fair_hint(board, settings=HINT_SETTINGS, seed=3, seconds=600, nodes=nodes, asked=asked)
            for _ in range(times)]


def test_a_fair_hint_asked_again_thinks_on_from_where_it_stopped() -> None:
    board = _drawn()
    once = fair_hint(board, settings=HINT_SETTINGS, seed=3, seconds=600, nodes=NODES)
    assert once.kind == "sampled" and once.samples < HINT_SETTINGS.samples  # (not all solved at once)
    answers = _asked(board, AskedHints(), 3)
    assert answers[0] == once  # the first request is the hint as it was
    counts = [_decided(a) for a in answers]
    assert counts == sorted(counts) and counts[-1] > counts[0], counts
    assert [a.samples for a in answers] == sorted(a.samples for a in answers)
    assert all(a.kind == "sampled" for a in answers)
    # three requests find what one request as long as them all would, or more (each request's
    # last solve takes a turn past its positions): a solve cut short goes on where it stopped,
    # and one that ended at its own 20,000 positions as the request's ran out is not solved again
    # (it was: 6 samples, 2 decided, against one request's 8 and 3)
    longer = fair_hint(board, settings=HINT_SETTINGS, seed=3, seconds=600, nodes=3 * NODES)
    assert counts[-1] >= _decided(longer) and answers[-1].samples >= longer.samples


def test_a_fair_hint_asked_again_never_answers_worse_whatever_its_time() -> None:
    board = _drawn()
    asked = AskedHints()
    answers = [fair_hint(board, settings=HINT_SETTINGS, seed=3, seconds=0.05, asked=asked) for _ in range(4)]
    founded = [_founded(a) for a in answers]
    assert founded == sorted(founded), founded
    kinds = [a.kind for a in answers]
    sampled = kinds.index("sampled") if "sampled" in kinds else len(kinds)
    assert "heuristic" not in kinds[sampled:], kinds  # (never back to the rule of thumb)


def test_a_finished_fair_hint_asked_again_answers_at_once_alike() -> None:
    board = _drawn()
    asked = AskedHints()
    first, again = _asked(board, asked, 2, nodes=10**7)
    assert again == first
    assert again.solves == first.solves  # (the kept decision: nothing solved again)


def test_the_fair_hint_of_two_stocks_seen_alike_is_one_and_never_the_others() -> None:
    board = _drawn()
    seen = observe(board)
    order = list(seen.unseen)
    random.Random(5).shuffle(order)
    mine, other = seen.determinise(list(board.stock)), seen.determinise(order)
    assert mine.position() != other.position() and observe(mine) == observe(other)
    asked = AskedHints()
    thought = _asked(mine, asked, 3)
    assert _decided(thought[-1]) > _decided(thought[0])
    # the other deal, which a player cannot tell apart, starts afresh: mine's work is not its
    assert _asked(other, asked, 1) == thought[:1]
    assert len(asked) == 2
    assert _asked(mine, asked, 1)[0] != thought[0]  # (and mine's work is still there)


def test_asked_hints_keep_so_many_positions_and_so_much() -> None:
    boards = [Board.from_number(deal, get_rules("falling-star")) for deal in (4, 5, 6)]
    for board in boards:
        board.push_text("s")
    asked = AskedHints(size=2)
    for board in boards:
        _asked(board, asked, 1, nodes=5_000)
    assert len(asked) == 2  # the oldest was forgotten
    first = _asked(boards[0], AskedHints(), 1, nodes=5_000)
    assert _asked(boards[0], asked, 1, nodes=5_000) == first  # (afresh)
    small = AskedHints(weight=1)
    for board in boards:
        _asked(board, small, 1, nodes=5_000)
    assert len(small) == 1  # (the latest is kept, whatever its weight)


def test_asked_hints_share_no_work_between_threads_at_once() -> None:
    board = _drawn()
    asked = AskedHints()
    found: list[Decision] = []
    threads = [threading.Thread(target=lambda: found.extend(_asked(board, asked, 2))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 6 and len(asked) == 1
    best = max(_decided(d) for d in found)
    assert _decided(_asked(board, asked, 1)[0]) >= best


def test_the_pages_fair_hint_keeps_its_work() -> None:
    board = _drawn()
    hints.ASKED.clear()
    replies = [hints.find_hint(board, 0.05, seed=3) for _ in range(3)]
    assert len(hints.ASKED) == 1
    decided = [r["samples"] - r["undecided"] for r in replies]
    assert decided == sorted(decided), decided
    hints.ASKED.clear()


def test_a_sample_too_long_for_one_request_does_not_hold_up_the_next() -> None:
    """Each solve wants 20,000 positions and a request has 8,192: a solve
    cut short goes on in the next request where it stopped, until its own
    20,000, and the requests go on to the next samples (else every request
    retried the first for ever)."""
    board = _drawn()
    answers = _asked(board, AskedHints(), 6, nodes=8_192)
    tried = [a.samples for a in answers]
    assert tried == sorted(tried) and tried[-1] >= tried[0] + 2, tried  # (2 each time, retrying for ever)


def test_a_round_of_mostly_undecided_samples_is_followed_by_a_larger_one_across_requests() -> None:
    """Admiral's Patience deal 2: 8 samples of 4,096 positions leave every
    one undecided; the next round, four times as many positions a sample,
    does not fit in a request of 20,000, and goes on over the next ones."""
    board = Board.from_number(2, get_rules("admirals-patience"))
    board.push_text("c1")
    settings = replace(HINT_SETTINGS, samples=4, nodes=4_096)
    asked = AskedHints()
    answers = [fair_hint(board, settings=settings, seed=1, seconds=600, nodes=20_000, asked=asked)
               for _ in range(24)]
    founded = [_founded(a) for a in answers]
    assert founded == sorted(founded), founded
    work, = asked._work.values()
    assert work.settings.nodes == 4 * 4 * 4_096  # (two rounds done, the third under way)


class _Round:
    """A stand-in fair player whose every decision is ``undecided`` of 4
    samples undecided, its move t<n>f for the n-th one made; the positions
    per sample of each one made are kept in ``made``."""

    made: ClassVar[list[int]] = []
    undecided = 0

    def __init__(self, settings: FairSettings, *args: object, **kwargs: object) -> None:
        self.settings, self.positions = settings, 0
        _Round.made.append(settings.nodes)

    def decide(self, *args: object, **kwargs: object) -> Decision:
        move = Move.parse(f"t{len(_Round.made)}f")  # (each round's own move)
        return Decision(move, "sampled", samples=4, undecided=_Round.undecided)

    def stopped(self) -> bool:
        return False

    def resume(self, *args: object) -> None:
        pass

    def release(self) -> None:
        pass

    def weight(self) -> int:
        return 0

    def kept_bytes(self) -> int:
        return 0


@pytest.mark.parametrize("again", [False, True])
def test_a_fair_hint_escalates_while_more_than_half_undecided_up_to_the_most_positions(
        monkeypatch: pytest.MonkeyPatch, again: bool) -> None:
    """Half the samples undecided is not 'most': no larger round. Every
    one undecided, rounds of ESCALATION times the positions follow up to
    exactly MOST_NODES a sample, not beyond (the hint asked once and the
    hint asked again alike)."""
    monkeypatch.setattr(advice, "FairPlayer", _Round)
    board = _drawn()
    for undecided, first, rounds in ((2, 4_096, [4_096]),
                                     (4, advice.MOST_NODES // advice.ESCALATION,
                                      [advice.MOST_NODES // advice.ESCALATION, advice.MOST_NODES])):
        monkeypatch.setattr(_Round, "made", [])
        monkeypatch.setattr(_Round, "undecided", undecided)
        fair_hint(board, settings=replace(HINT_SETTINGS, nodes=first), seed=3, seconds=600,
                  asked=AskedHints() if again else None)
        assert _Round.made == rounds


@pytest.mark.parametrize("again", [False, True])
def test_of_rounds_that_decide_as_many_samples_the_later_ones_answer(
        monkeypatch: pytest.MonkeyPatch, again: bool) -> None:
    monkeypatch.setattr(advice, "FairPlayer", _Round)
    monkeypatch.setattr(_Round, "made", [])
    monkeypatch.setattr(_Round, "undecided", 4)
    most = advice.MOST_NODES // advice.ESCALATION
    answer = fair_hint(_drawn(), settings=replace(HINT_SETTINGS, nodes=most), seed=3, seconds=600,
                       asked=AskedHints() if again else None)
    assert len(_Round.made) == 2 and str(answer.move) == "t2f"


def test_a_decision_given_with_half_its_samples_undecided_is_the_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """fair_answer's ``decided`` (the base-card chances, made already) is
    the answer unless most of its samples are undecided: half is not most."""

    def no_new_hint(*args: object, **kwargs: object) -> Decision:
        raise AssertionError("decided again")

    monkeypatch.setattr(advice, "fair_hint", no_new_hint)
    decided = Decision(Move.parse("s"), "sampled", samples=4, undecided=2)
    assert advice.fair_answer(_drawn(), 600, decided=decided) is decided
    with pytest.raises(AssertionError, match="decided again"):
        advice.fair_answer(_drawn(), 600, decided=replace(decided, undecided=3))


def test_the_fair_answer_gives_the_sampling_only_what_its_checks_left_of_the_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks before the sampling (the open hint's solve) are part of
    the hint's time: the sampling gets what is left, not the whole."""
    given: list[float] = []

    def slow_open_hint(*args: object, **kwargs: object) -> None:
        time.sleep(0.3)

    def sampled(*args: object, seconds: float, **kwargs: object) -> Decision:
        given.append(seconds)
        return Decision(Move.parse("s"), "sampled", samples=4)

    monkeypatch.setattr(advice, "open_hint", slow_open_hint)
    monkeypatch.setattr(advice, "fair_hint", sampled)
    advice.fair_answer(_drawn(), 1.0)
    assert len(given) == 1 and given[0] <= 0.7
