"""The same hint (or analysis) asked twice at once (two tabs on one game) is one search:
the second waits for the first's answer; a caller that stops waiting
leaves the others theirs (terrace.web.joined)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from terrace.storage import MemoryStore
from terrace.web.app import create_app
from terrace.web.coach import CoachBudgets
from terrace.web.joined import Gone, Joined
from web_support import LOCAL

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

class GatedPool:
    """A solver pool that runs each job here, once two requests are being
    answered (two jobs, or two callers of one); it counts the jobs."""

    def __init__(self) -> None:
        self.jobs = 0
        self.joined: Joined | None = None
        self.closing = None

    def both_came(self) -> bool:
        """Whether both requests have come to the solver."""
        return self.jobs == 2 or (self.joined is not None and self.joined.waiting() == 2)

    async def run(self, func: Callable[..., Any], *args: Any, budget: float, gone: Any = None,
                  timed: bool = False, prefer: Any = None) -> Any:
        self.jobs += 1
        for _ in range(500):  # (5 s at most)
            if self.both_came():
                break
            await asyncio.sleep(0.01)
        return func(*args, **({"seconds": budget} if timed else {}), cancel=lambda: False)

    def close(self) -> None:
        pass


async def asked_at_once(games: list[str], address: str = "hint", variant: str = "falling-star",
                        body: dict[str, Any] | None = None) -> tuple[int, list[dict[str, Any]]]:
    """Ask ``address`` (the hint, the analysis, the coach's chances or
    warning) of each of ``games`` (names, one may come twice) at once, with
    ``body``; the solver jobs run and the answers."""
    pool = GatedPool()
    store = MemoryStore()
    coach = CoachBudgets(chances=0.2, warn=0.2)
    app = create_app(store, hint_seconds=0.1, pool=pool, coach=coach)  # type: ignore[arg-type]
    pool.joined = getattr(app.state.game, "joined", None)  # (None before there was one)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=LOCAL) as client:
        made = {}
        for name in sorted(set(games)):
            answer = await client.post("/api/games", json={"variant": variant, "deal_number": 3})
            made[name] = answer.json()["id"]
        answers = await asyncio.gather(*(client.post(f"/api/games/{made[name]}/{address}", json=body or {})
                                         for name in games))
    assert all(answer.status_code == 200 for answer in answers), [answer.text for answer in answers]
    return pool.jobs, [answer.json() for answer in answers]


def test_the_same_hint_asked_twice_at_once_is_one_search() -> None:
    jobs, (first, second) = asyncio.run(asked_at_once(["a", "a"]))
    assert jobs == 1
    assert first.pop("counted") is not second.pop("counted")  # (the hint counts once)
    assert first["move"] is not None and first == second


def test_the_same_analysis_asked_twice_at_once_is_one_search() -> None:
    jobs, (first, second) = asyncio.run(asked_at_once(["a", "a"], "analysis"))
    assert jobs == 1 and first == second and first["available"] is True


def test_the_same_chances_asked_twice_at_once_are_one_search() -> None:
    jobs, (first, second) = asyncio.run(asked_at_once(["a", "a"], "chances", "terrace"))
    assert jobs == 1 and first == second and len(first["candidates"]) == 3
    assert all("card" in candidate for candidate in first["candidates"])


def test_the_same_warning_asked_twice_at_once_is_one_check() -> None:
    jobs, (first, second) = asyncio.run(asked_at_once(["a", "a"], "warn", body={"move": "s"}))
    assert jobs == 1 and first == second and first["move"] == "s"


def test_the_hints_of_two_games_at_once_are_two_searches() -> None:
    jobs, answers = asyncio.run(asked_at_once(["a", "b"]))
    assert jobs == 2 and all(answer["move"] is not None for answer in answers)


async def never_gone() -> bool:
    return False


async def gone_away() -> bool:
    return True


def gated_job(gate: asyncio.Event, seen: list[Gone]) -> Callable[[Gone], Awaitable[str]]:
    async def job(all_gone: Gone) -> str:
        seen.append(all_gone)
        await gate.wait()
        return "answer"
    return job


def test_a_first_caller_that_stops_waiting_leaves_the_second_its_answer() -> None:
    async def scene() -> tuple[str, bool, bool]:
        joined, gate, seen = Joined(), asyncio.Event(), []
        job = gated_job(gate, seen)
        first = asyncio.ensure_future(joined.run("key", job, gone_away))
        second = asyncio.ensure_future(joined.run("key", job, never_gone))
        await asyncio.sleep(0)
        assert joined.waiting("key") == 2
        first.cancel()
        await asyncio.sleep(0)
        stopped = await seen[0]()  # (the second still waits: the job goes on)
        gate.set()
        answer = await second
        return answer, stopped, first.cancelled()

    assert asyncio.run(scene()) == ("answer", False, True)


def test_a_job_nobody_waits_for_any_more_stops_and_the_next_caller_starts_anew() -> None:
    async def scene() -> tuple[bool, bool, str, int]:
        joined, gate, seen = Joined(), asyncio.Event(), []
        job = gated_job(gate, seen)
        only = asyncio.ensure_future(joined.run("key", job, never_gone))
        await asyncio.sleep(0)
        only.cancel()
        await asyncio.sleep(0)
        everyone_gone = await seen[0]()
        still_running = joined.running
        gate.set()
        answer = await joined.run("key", job, never_gone)  # (a job of its own, not the cancelled one)
        return everyone_gone, bool(still_running), answer, len(seen)

    assert asyncio.run(scene()) == (True, False, "answer", 2)


def test_every_caller_gets_the_jobs_error() -> None:
    async def failing(all_gone: Gone) -> str:
        await asyncio.sleep(0.01)
        raise ValueError("no hint")

    async def scene() -> list[BaseException | str]:
        joined = Joined()
        return await asyncio.gather(*(joined.run("key", failing, never_gone) for _ in range(2)),
                                    return_exceptions=True)

    assert [str(error) for error in asyncio.run(scene())] == ["no hint", "no hint"]
