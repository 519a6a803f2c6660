"""The bounded map (:class:`terrace.bounded.Bounded`) that the hints' kept
lines and fair work and the server's per-game lines and chances use: its
bounds by count and by weight, its order of use, a key's weight replaced,
values shared between keys, and puts from several threads at once."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator

import pytest

from terrace.bounded import Bounded


@pytest.fixture
def switching() -> Iterator[None]:
    """Threads switch as often as Python lets them (races show sooner)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_at_most_count_entries_are_kept_the_oldest_going_first() -> None:
    kept: Bounded[int, str] = Bounded(3)
    for key in range(5):
        kept.put(key, str(key))
    assert list(kept) == [2, 3, 4] and len(kept) == 3
    assert kept.get(1) is None and kept.get(4) == "4" and 1 not in kept and 4 in kept


def test_at_most_so_much_weight_is_kept_but_always_the_newest() -> None:
    kept: Bounded[str, str] = Bounded(10, weight=5, weigh=len)
    kept.put("a", "xx")
    kept.put("b", "xx")
    assert list(kept) == ["a", "b"] and kept.held == 4
    kept.put("c", "xx")  # (6: a goes)
    assert list(kept) == ["b", "c"] and kept.held == 4
    kept.put("d", "x" * 9)  # (too heavy alone: kept all the same)
    assert list(kept) == ["d"] and kept.held == 9
    kept.put("e", "")
    assert list(kept) == ["e"] and kept.held == 0


def test_no_weight_bound_without_a_weight() -> None:
    kept: Bounded[int, str] = Bounded(3, weigh=len)
    for key in range(3):
        kept.put(key, "x" * 1_000)
    assert len(kept) == 3 and kept.held == 3_000


def test_recalling_or_putting_a_key_makes_it_the_newest_and_getting_it_does_not() -> None:
    kept: Bounded[str, int] = Bounded(3)
    for key in "abc":
        kept.put(key, 0)
    assert kept.recall("a") == 0 and list(kept) == ["b", "c", "a"]
    assert kept.get("b") == 0 and list(kept) == ["b", "c", "a"]
    kept.put("c", 1)
    assert list(kept) == ["b", "a", "c"] and kept.values() == [0, 0, 1]
    kept.put("d", 2)
    assert list(kept) == ["a", "c", "d"]
    assert kept.recall("b") is None and list(kept) == ["a", "c", "d"]


def test_a_keys_new_value_replaces_its_weight() -> None:
    kept: Bounded[str, str] = Bounded(10, weight=10, weigh=len)
    kept.put("a", "x" * 6)
    kept.put("b", "x" * 4)
    kept.put("a", "x")  # (11 if the old 6 were still counted: b would go)
    assert list(kept) == ["b", "a"] and kept.held == 5 and kept.get("a") == "x"


def test_pop_and_clear_give_back_the_weight() -> None:
    kept: Bounded[str, str] = Bounded(10, weight=10, weigh=len)
    kept.put("a", "xyz")
    kept.put("b", "xy")
    assert kept.pop("a") == "xyz" and kept.pop("a") is None
    assert list(kept) == ["b"] and kept.held == 2
    kept.clear()
    assert len(kept) == 0 and kept.held == 0


def test_an_old_value_can_be_kept_instead_of_the_new() -> None:
    kept: Bounded[str, int] = Bounded(10, weight=100, weigh=lambda n: n)
    kept.put("a", 7)
    kept.put("b", 1)
    assert kept.put("a", 3, lambda old, new: old > new) == 7  # (the better stays, now the newest)
    assert list(kept) == ["b", "a"] and kept.get("a") == 7 and kept.held == 8
    assert kept.put("a", 9, lambda old, new: old > new) == 9
    assert kept.held == 10


def test_a_value_kept_under_several_keys_counts_once_when_shared() -> None:
    kept: Bounded[str, str] = Bounded(2, weight=100, weigh=len, shared=True)
    one, two, three = "x" * 10, "y" * 10, "z" * 10
    kept.put_all(["a1", "b"], one)
    kept.put_all(["a2", "b"], two)  # (b's old value one: one under a1 alone)
    assert list(kept) == ["a1", "a2", "b"] and kept.held == 30
    kept.put_all(["a3", "b"], three)  # (three values: a1's goes)
    assert list(kept) == ["a2", "a3", "b"] and kept.get("b") is three and kept.held == 30
    unshared: Bounded[str, str] = Bounded(2, weight=100, weigh=len)
    unshared.put_all(["a1", "b"], one)
    assert list(unshared) == ["a1", "b"]
    unshared.put_all(["a2", "b"], two)
    assert list(unshared) == ["a2", "b"]


def test_keys_put_at_once_are_bounded_after_the_last() -> None:
    """Two keys, one of them replacing the old value of another key: one at
    a time, the first would have pushed out a value the second frees room for."""
    kept: Bounded[str, str] = Bounded(2, shared=True)
    kept.put("x", "old")
    kept.put("b", "other")
    kept.put_all(["a", "b"], "new")
    assert list(kept) == ["x", "a", "b"]


def test_the_newest_value_under_two_keys_stays_whole_however_heavy() -> None:
    kept: Bounded[str, str] = Bounded(5, weight=10, weigh=len, shared=True)
    kept.put("old", "xx")
    kept.put_all(["after", "here"], "y" * 8)
    assert list(kept) == ["after", "here"] and kept.held == 16


def test_the_weight_is_summed_once_a_put(monkeypatch: pytest.MonkeyPatch) -> None:
    weighed = [0]

    def weigh(value: str) -> int:
        weighed[0] += 1
        return len(value)

    kept: Bounded[int, str] = Bounded(1_024, weight=10_000, weigh=weigh)
    for key in range(10_000):
        kept.put(key, "x" * (key % 7))
    assert weighed == [10_000] and len(kept) == 1_024
    assert kept.held == sum(len(value) for value in kept.values())


def test_puts_from_threads_at_once_keep_the_bounds_and_the_sum(switching: None) -> None:
    kept: Bounded[int, list[int]] = Bounded(50, weight=300, weigh=len)
    shared: Bounded[int, list[int]] = Bounded(20, weight=300, weigh=len, shared=True)
    start = threading.Barrier(4)

    def yielding(old: list[int], new: list[int]) -> bool:
        time.sleep(0)  # (another thread may run here: not in the middle of a put)
        return False

    def work(offset: int) -> None:
        start.wait()
        for n in range(4_000):
            key = (n * 7 + offset) % 120
            kept.put(key % 60, [0] * (n % 12), yielding)
            shared.put_all([key, key + 1], [0] * ((n + offset) % 12))  # (a new value each time)
            if n % 5 == 0:
                kept.pop(key + 3)
                shared.recall(key + 2)

    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for bounded in (kept, shared):
        held = sum(len(value) for value in bounded.values())
        assert bounded.held == held and (held <= 300 or len({id(v) for v in bounded.values()}) == 1)
    assert len(kept) <= 50
    assert len({id(value) for value in shared.values()}) <= 20 < len(shared)


def test_the_keys_the_bounds_push_out_are_told() -> None:
    told: list[str] = []
    kept: Bounded[str, str] = Bounded(2, weight=5, weigh=len, forgotten=told.append)
    kept.put("a", "x")
    kept.put("b", "x")
    kept.put("a", "xx")  # (replaced: not forgotten)
    kept.put("c", "x")  # (three: b goes)
    assert told == ["b"] and list(kept) == ["a", "c"]
    kept.put("d", "xxxxx")  # (8: a and c go)
    assert told == ["b", "a", "c"]
    kept.pop("d")
    kept.put("e", "")
    kept.clear()
    assert told == ["b", "a", "c"]


def test_dropped_is_told_each_key_and_value_the_bounds_push_out() -> None:
    told: list[tuple[str, int]] = []
    kept: Bounded[str, int] = Bounded(2, dropped=lambda key, value: told.append((key, value)))
    for key, value in (("a", 1), ("b", 2), ("c", 3)):
        kept.put(key, value)
    kept.pop("b")
    kept.clear()
    assert told == [("a", 1)]


def test_exactly_the_weight_bound_is_kept() -> None:
    # (a weight of so much in all is kept: only more pushes the oldest out)
    kept: Bounded[str, str] = Bounded(10, weight=10, weigh=len)
    kept.put("a", "x" * 4)
    kept.put("b", "y" * 6)
    assert list(kept) == ["a", "b"] and kept.held == 10
    kept.put("c", "z")
    assert list(kept) == ["b", "c"] and kept.held == 7


def test_a_shared_map_cleared_counts_only_what_is_put_after() -> None:
    kept: Bounded[str, list[int]] = Bounded(2, shared=True)
    old, new, newer = [0], [1], [2]
    kept.put_all(["a", "b"], old)
    kept.clear()
    kept.put("c", new)
    kept.put("d", newer)
    assert list(kept) == ["c", "d"]
    kept.put_all(["e", "f"], old)  # (a value kept before the clear, put again)
    assert list(kept) == ["d", "e", "f"]
