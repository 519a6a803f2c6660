"""The web game's endpoints (:class:`WebGame`), bound to one game store and
the server's settings; :func:`terrace.web.app.create_app` routes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Hashable
from functools import partial
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import anyio.to_thread
from anyio import CapacityLimiter
from starlette.requests import Request
from starlette.responses import Response

from terrace.board import Board
from terrace.bounded import Bounded
from terrace.deal import MAX_DEAL_NUMBER, Deal, check_number
from terrace.errors import TerraceError
from terrace.guide import descriptions, rules_guide
from terrace.moves import Move, as_written
from terrace.position import Status
from terrace.refusals import Reason, Refusal, clip
from terrace.rules import RULE_OPTIONS, Rules
from terrace.solver.budget import check_budget
from terrace.solver.decision import Decision
from terrace.solver.hint_line import KEPT_MOVES, KeptLine, kept_moves
from terrace.solver.history import LOOKBACK
from terrace.solver.observation import Event, stock_shown
from terrace.solver.winnable import NoWinnableDealError
from terrace.storage import GAME_ID, LATEST_GAME, GameStore, GivenUpError, StoredGame, UnknownGameError
from terrace.storage.base import RECENT, StoreWriteError, TimeTooMuchError, one_more
from terrace.variants import (
    VARIANTS,
    canonical_name,
    get_rules,
    get_variant,
    label_parts,
    label_title,
    preset_name,
)
from terrace.web import hints
from terrace.web.endgame import AUTOPLAY_MODES, ReportClock, autoplay
from terrace.web.i18n import WebRefusal, pick_language
from terrace.web.joined import Gone, Joined
from terrace.web.numbers import whole_number
from terrace.web.replay import Replays
from terrace.web.replies import (
    RETRY_AFTER,
    ApiError,
    check_after,
    json_response,
    may_change,
    only_fields,
    query,
    read_body,
    refusal_reason,
    request_refusal_json,
)
from terrace.web.view import describe_move, finished, game_json, game_line, game_summary, motions
from terrace.web.why import explain, pile_name
from terrace.web.workers import PoolBusy, SolverPool, WorkFailed, WorkStopped

MAX_RECENT = 200
RANDOM_DEALS = 1_000_000_000
HINT_SECONDS = 2.0
"""The solver's time for one hint, unless ``terrace play --hint-seconds`` says otherwise."""
HINT_SECONDS_RANGE = (0.1, 60.0)
"""The least and most time ``terrace play --hint-seconds`` offers (the
library takes any finite budget, as the tests' short ones)."""
WINNABLE_SECONDS = 10.0
"""The time one request may spend looking for a winnable deal, unless
``terrace play --winnable-seconds`` says otherwise."""
WINNABLE_SECONDS_RANGE = (0.1, 600.0)
"""The least and most time ``terrace play --winnable-seconds`` offers."""

WINNABLE_DEAL_SECONDS = 1.0
"""The solver's budget per deal while looking for a winnable one. Most
deals are decided in milliseconds; in the two suit presets the wins that
take longer are better skipped for the next deal (``bench/winnable.py``,
General's and Admiral's Patience: with 5 s a deal, 4 and 3 searches of 30
found no winnable deal within 10 s; with 1 s, 1 and 0; docs/api.md)."""
GAME_THREADS = 40
"""Worker threads the game's reads may hold at once (the store's reads,
which wait up to :data:`~terrace.storage.sqlite.BUSY_TIMEOUT_SECONDS` for a
database another program holds locked, replays, auto-play): a pool of their
own, beside the one Starlette serves the page's files from. They shared
its 40: with 60 moves sent at once while another program held the
database, the page's main.js took 9.6 s to come."""
MAX_CONNECTIONS = 100
"""Open connections (and requests in progress) beyond which ``terrace
play``'s server answers a request 503 at once: the page needs a handful."""
SERVED_AT_ONCE = MAX_CONNECTIONS + 1
"""Requests ``terrace play``'s server runs at once at most (uvicorn's
``limit_concurrency``, which counts the connection asking among the open ones)."""
WRITE_THREADS = SERVED_AT_ONCE
"""Changes (the store's writes) under way at once, each in a thread of its
own (:func:`to_the_end`), apart from :data:`GAME_THREADS`: as many as the
requests ``terrace play`` serves at once (uvicorn counts the one asking
among them), so that no change there waits for a thread, and each waits
for the database no longer than the store's own
:data:`~terrace.storage.sqlite.BUSY_TIMEOUT_SECONDS`. They shared the reads'
40: with 60 moves sent at once while another program held the database's
write lock, the statistics took 10.0 s to come (a read, which SQLite lets
go on meanwhile, waited for a thread). Then they had 40 of their own: the
moves beyond the first 40 waited for one of those 40 to give up its 10 s
before their own 10 s began, and were refused after 20.8 s."""
MAX_KEPT_LINES = 1024
"""Games whose last winning line (and base-card chances) the server
remembers for their hints."""
T = TypeVar("T")
OPTION_LIMITS: dict[str, dict[str, Any]] = {name: option.to_json() for name, option in RULE_OPTIONS.items()}
"""The rule options as ``/api/variants`` publishes them: the limits the
rules really apply (see :meth:`terrace.rules.RuleOption.to_json`)."""

_RETRY = {"retry-after": str(RETRY_AFTER)}
DEAL_NUMBERS = {"min": 0, "max": MAX_DEAL_NUMBER}
"""The deal numbers as ``/api/variants`` publishes them (those
:func:`terrace.deal.check_number` takes): the page's New game form reads
its limits there."""
SEEN_FIELDS = frozenset({"after", "revision"})
"""The fields with which a request names the position it saw (:func:`~terrace.web.replies.check_after`)."""
RECENT_QUERY = frozenset({"recent"})
STEP_QUERY = frozenset({"step"})
MOVE_QUERY = frozenset({"move"})
WHY_QUERY = frozenset({"pile", "index"})
RULES_QUERY = frozenset({"variant"})
"""The query parameters each reading endpoint takes (:func:`~terrace.web.replies.query`)."""


def stats_zone(name: str | None) -> ZoneInfo | None:
    """The time zone of the IANA name ``name`` (``Europe/Berlin``: what a
    browser says it is in), or None for a name this computer's time zone
    database does not know (the statistics' days are then its own local
    time's).

    >>> stats_zone("Asia/Tokyo"), stats_zone("Mars/Olympus"), stats_zone("../etc/passwd"), stats_zone(None)
    (zoneinfo.ZoneInfo(key='Asia/Tokyo'), None, None, None)
    """
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ValueError, OSError, KeyError):  # (a malformed name, a folder, none such: ZoneInfoNotFoundError)
        return None


class WebGame:
    """The endpoints, bound to one store and the server's settings."""

    def __init__(
        self,
        store: GameStore,
        *,
        default_variant: str = "terrace",
        default_rules: Rules | None = None,
        hint_seconds: float = HINT_SECONDS,
        winnable_seconds: float = WINNABLE_SECONDS,
        pool: SolverPool | None = None,
    ) -> None:
        self.store = store
        self.default_variant = canonical_name(default_variant)
        self.default_rules = default_rules or get_rules(self.default_variant)
        # (checked here: a NaN hint time used to reach the solver at the first hint)
        self.hint_seconds = check_budget(hint_seconds, "hint_seconds")
        self.winnable_seconds = check_budget(winnable_seconds, "winnable_seconds")
        self.pool = pool or SolverPool()
        self.threads = CapacityLimiter(GAME_THREADS)
        """The worker threads of the game's reads and work (:meth:`in_thread`)."""
        self.writes = CapacityLimiter(WRITE_THREADS)
        """The places of the game's changes under way (:meth:`in_write`)."""
        self.clock = ReportClock()
        self.reporting = asyncio.Lock()
        """Held while a report of playing time is counted and stored: a
        smaller report stored first would make the store refuse a larger one
        the clock had already allowed (the time would be lost)."""
        self.lines: Bounded[str, KeptLine] = Bounded(MAX_KEPT_LINES, KEPT_MOVES, kept_moves)
        """The winning line of each game's last peeking hint (most recent
        last): of at most :data:`MAX_KEPT_LINES` games, and
        :data:`~terrace.solver.hint_line.KEPT_MOVES` moves in all, as the
        solver keeps its own (an endgame's line can be 44,000 moves long,
        2.6 MB here: 1,024 of them were kept)."""
        self.replays = Replays()
        """The board each game's replay showed last (see :mod:`terrace.web.replay`)."""
        self.replaying = asyncio.Lock()
        """Held while a replay step is made from :attr:`replays` (in a worker thread)."""
        self.joined = Joined()
        """The hints and analyses being sought now (:meth:`in_solver_once`)."""
        self.picks: Bounded[str, tuple[str, Decision]] = Bounded(MAX_KEPT_LINES)
        """Each game's base-card chances that solved every sample, as the fair
        player's decision, with the position they were for (most recent last):
        the fair hint at the choice then names the card they show best."""

    # -- helpers --------------------------------------------------------

    def stopping(self) -> bool:
        """Whether the server is stopping (it closes the solver pool first)."""
        return self.pool.closing.is_set()

    # The store is used from a worker thread, never from the event loop: a
    # database another program holds locked (up to BUSY_TIMEOUT_SECONDS)
    # or a long read then delays only the requests that need it, not the
    # page's static files or any other request.

    async def in_thread(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``func(*args, **kwargs)`` in one of the game's worker threads
        (:data:`GAME_THREADS`), never on the event loop."""
        return await anyio.to_thread.run_sync(partial(func, *args, **kwargs), limiter=self.threads)

    async def in_write(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """:meth:`in_thread` for a change of the store: in a thread of its
        own, one of :data:`WRITE_THREADS`, so that changes waiting for a database
        another program holds locked never keep reads from a thread; awaited
        to its end (:func:`to_the_end`), so that its request is answered
        whether it was saved or not, also when the server is stopping."""
        async with self.writes:  # (a wait for a thread: cancelled at a stop, nothing begun)
            return await to_the_end(partial(func, *args, **kwargs))

    async def load(self, game_id: str) -> StoredGame:
        if not GAME_ID.fullmatch(game_id):
            raise ApiError(WebRefusal.GAME_UNKNOWN, game=clip(game_id))
        game = await self.in_thread(self.store.get, game_id)
        self.clock.seen(game.id)
        return game

    async def save(self, game: StoredGame, board: Board, action: str, change: str | None = None) -> None:
        """Store ``board`` as ``action``; a write the database refuses names
        ``change`` (a key of :data:`~terrace.refusals.CHANGES`) when given,
        as auto-play's moves are logged as moves but are not the player's."""
        revision = game.revision
        game.sync(board)
        try:
            await self.in_write(self.store.update, game, expected_revision=revision, action=action)
        except StoreWriteError as exc:
            reason = exc.reason
            if change is None or reason is None or "change" not in reason.params:
                raise
            named = Reason(reason.code, **{**reason.params, "change": change})
            raise StoreWriteError(named, exc.fault) from exc

    async def assisted(self, game_id: str) -> bool:
        """Mark the game as assisted, unless another tab has won it or given
        it up while the assist's answer was sought (an answer that came
        after the game ended did not help it, and a win is final: it kept
        its records); True when the game is marked."""
        return await self.in_write(partial(self.store.mark_assisted, game_id, while_open=True))

    async def still_seen(self, body: dict[str, Any], game: StoredGame) -> None:
        """Refuse (409 ``conflict``) a solver's answer about ``game``'s position
        when the request named the position it saw (``after`` or ``revision``)
        and another tab changed the game during the search: the answer is
        for a position that is gone, neither shown nor counted nor marking
        the game (the page catches up on a conflict)."""
        if body.keys() & SEEN_FIELDS:
            check_after({"revision": game.revision}, await self.load(game.id))

    async def in_solver(
        self, request: Request, func: Callable[..., T], *args: Any, budget: float, timed: bool = False,
        prefer: str | None = None, gone: Gone | None = None,
    ) -> T:
        """``func(*args)`` in the solver pool; stopped when the client goes
        away (when ``gone`` says so, if given). When ``timed``, ``func`` gets ``seconds=``, what is left of
        ``budget`` after the wait for a free solver process; ``prefer``: the
        key whose last job's process to use when it is free (see
        :class:`~terrace.web.workers.SolverPool`)."""
        try:
            return await self.pool.run(func, *args, budget=budget, gone=gone or request.is_disconnected,
                                       timed=timed, prefer=prefer)
        except PoolBusy:
            raise ApiError(WebRefusal.SOLVER_BUSY, _RETRY) from None
        except (WorkStopped, WorkFailed) as error:
            raise ApiError(WebRefusal.SOLVER_STOPPED, _RETRY, problem=error.reason) from None

    async def in_solver_once(self, same: Hashable, request: Request, func: Callable[..., T], *args: Any,
                             **options: Any) -> T:
        """:meth:`in_solver`, once for every request that asks the same
        (``same``: what the job's answer depends on) while it runs: another
        tab's hint or analysis of the same position waits for its answer
        rather than take a second solver process (see :mod:`terrace.web.joined`)."""
        def search(gone: Gone) -> Awaitable[T]:
            return self.in_solver(request, func, *args, gone=gone, **options)

        return await self.joined.run(same, search, request.is_disconnected)

    # -- endpoints ------------------------------------------------------

    async def variants(self, request: Request) -> Response:
        query(request)
        presets = [
            {
                "name": variant.name,
                "title": variant.title,
                "rules": variant.rules.to_dict(),
                "description": variant.description,
                "descriptions": descriptions(variant),
                "summary": variant.rules.describe(),
                "aliases": sorted(variant.alias_names),
                "other_names": list(variant.aliases),
            }
            for variant in VARIANTS
        ]
        return json_response({
            "variants": presets,
            "options": OPTION_LIMITS,
            "deal_numbers": DEAL_NUMBERS,
            "default": {"variant": self.default_variant, "options": self.default_rules.to_dict()},
            "solver": True,
            "winnable_seconds": self.winnable_seconds,  # (the page says how long a search may take)
        })

    async def create(self, request: Request) -> Response:
        body = await read_body(request)
        only_fields(body, {"variant", "options", "deal_number", "winnable"})
        # (a field left out takes its default; one given, null included, is
        # checked where its fact lives: the variant's name and the options
        # by the engine, which refuses null as it refuses any value of the
        # wrong kind)
        if "variant" not in body and "options" not in body:
            variant_name, rules = self.default_variant, self.default_rules
        else:
            variant_name = canonical_name(body.get("variant", self.default_variant))
            rules = Rules.from_dict(body.get("options", {}), get_rules(variant_name))
        winnable = body.get("winnable", False)
        if not isinstance(winnable, bool):
            raise ApiError(WebRefusal.WINNABLE_NOT_BOOL)
        if "deal_number" in body:
            number = check_number(body["deal_number"])
        else:
            number = 1 + secrets.randbelow(RANDOM_DEALS)
        if winnable:
            number = await self.winnable(request, rules, number)
        deal = Deal.from_number(number, rules)
        game = await self.in_write(self.store.create, variant_name, rules, deal, winnable_only=winnable)
        self.clock.seen(game.id)
        board = game.board()
        game.status = board.status.value
        data = game_json(game, board, motions=[])
        data["preset"] = preset_name(rules)
        return json_response(data, status=201)

    async def winnable(self, request: Request, rules: Rules, start: int) -> int:
        """The first deal from ``start`` on that the solver proves won,
        within the server's total budget for one request, counted from
        now: a wait for a free worker, or for one to start, is part of it,
        and the search has a share of it at least (a ``timed`` job: it had
        none left after a start that took the whole budget, and answered
        "(0 tried)")."""
        total = self.winnable_seconds
        try:
            return await self.in_solver(request, hints.next_winnable, rules, start, WINNABLE_DEAL_SECONDS,
                                        str(self.store.verdicts_path), budget=total, timed=True)
        except NoWinnableDealError as error:
            raise ApiError(WebRefusal.NO_WINNABLE_DEAL, _RETRY, seconds=total, tried=error.tried) from None

    async def games(self, request: Request) -> Response:
        """``/api/games``: the recent games (GET) or a new one (POST), one
        route, so that a 405 there lists both methods in its Allow header."""
        return await (self.create(request) if request.method == "POST" else self.recent(request))

    async def current(self, request: Request) -> Response:
        query(request)
        game = await self.in_thread(self.store.latest_unfinished)
        if game is None:
            return Response(status_code=204, headers={"cache-control": "no-store"})  # (as every answer)
        self.clock.seen(game.id)
        return json_response(game_json(game, game.recent_board()))

    async def current_or_named(self, request: Request) -> Response:
        """``/api/games/current``: the game whose id is ``current`` when
        there is one (an import before such ids were refused), else, as
        before, the latest unfinished game (:meth:`current`)."""
        query(request)
        try:
            game = await self.load(LATEST_GAME)
        except UnknownGameError:
            return await self.current(request)
        return json_response(game_json(game, game.recent_board()))

    async def recent(self, request: Request) -> Response:
        count = whole_number(query(request, RECENT_QUERY).get("recent", "20"))
        if count is None or not 1 <= count <= MAX_RECENT:
            raise ApiError(WebRefusal.RECENT_RANGE, low=1, high=MAX_RECENT)
        games = await self.in_thread(lambda: [game_summary(g) for g in self.store.recent(count)])
        return json_response({"games": games})

    async def get(self, request: Request) -> Response:
        query(request)
        game = await self.load(request.path_params["game_id"])
        return json_response(game_json(game, game.recent_board()))

    async def line(self, request: Request) -> Response:
        """The game's moves and redo line (the game JSON carries only their counts)."""
        query(request)
        game = await self.load(request.path_params["game_id"])
        return json_response(game_line(game))

    async def position(self, request: Request) -> Response:
        """The position after the first ``step`` moves (for replays)."""
        asked = query(request, STEP_QUERY)
        game = await self.load(request.path_params["game_id"])
        step = whole_number(asked.get("step", ""))
        if step is None or not 0 <= step <= len(game.moves):
            raise ApiError(WebRefusal.STEP_RANGE, last=len(game.moves))
        # (in a worker thread: a jump plays or takes back up to half of a
        # long game, 0.7 s at 100,000 moves, which held up every other
        # request on the event loop; one step at a time, since the board
        # kept is shared, and the others wait on the loop, not in threads)
        async with self.replaying:
            return json_response(await self.in_thread(self.replay_step, game, step))

    def replay_step(self, game: StoredGame, step: int) -> dict[str, Any]:
        """The replay's answer for ``step`` of ``game`` (see :meth:`position`)."""
        # (reached from the step shown before, not replayed from the deal;
        # no other replay changes the board until the answer is made)
        board = self.replays.board_at(game, max(step - 1, 0))
        before = board.to_dict()
        last = None
        if step:
            last = game.moves[step - 1]
            source = describe_move(board, last)["source"]
            board.push(Move.parse(last))
        data = game_json(game, board)
        data.update(
            step=step, steps=len(game.moves), replay=True, last_move=last, last_played=last,
            over=finished(game, Status(game.reached_status())),  # (no copy of the whole game)
            motions=motions(before, board.to_dict(), source if step else None),
            sources={}, draw=None, choices=[], legal_moves=[],
            can_redo=False,  # (the replay shows the game up to a step: nothing after it is undone)
        )
        return data

    async def requested_move(
        self, request: Request, keep: int = RECENT,
    ) -> tuple[StoredGame, Board, Move, dict[str, Any]]:
        """The game, its board (with ``keep`` moves each way of its history:
        :meth:`~terrace.storage.StoredGame.recent_board`), the move and the
        body of a request ``{"move", "after", "revision"}``, refused unless
        the move can be played now."""
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, {"move", "after", "revision"})
        text = body.get("move")
        if not isinstance(text, str):  # (any text is the notation's to read, as a record's or --moves' is)
            raise ApiError(WebRefusal.MOVE_NOT_NOTATION)
        may_change(body, game)
        board = game.recent_board(keep)
        move = Move.parse(text)
        reason = board.refusal(move)
        if reason is not None:
            raise ApiError(reason)
        return game, board, move, body

    async def move(self, request: Request) -> Response:
        game, board, move, _ = await self.requested_move(request)
        before = board.to_dict()
        source = describe_move(board, str(move))["source"]
        board.push(move)
        await self.save(game, board, "move")
        return json_response(_moved(game_json(game, board, last_move=str(move)), before, source))

    async def check(self, request: Request) -> Response:
        """Would this move be legal? 200 with the reason when it is not."""
        asked = query(request, MOVE_QUERY)
        game = await self.load(request.path_params["game_id"])
        text = asked.get("move")
        if text is None:
            raise ApiError(WebRefusal.MOVE_NOT_NOTATION)
        reason: Reason | None
        try:
            move = Move.parse(text)
        except TerraceError as error:
            text, reason = clip(as_written(text)), refusal_reason(request, error)  # (none echoed whole)
        else:
            text, reason = str(move), _given_up(game) or game.recent_board().refusal(move)
        if reason is None:
            return json_response({"move": text, "legal": True, "reason": None, "code": None})
        refused = request_refusal_json(request, reason, "reason")
        return json_response({"move": text, "legal": False, **refused})

    async def undo(self, request: Request) -> Response:
        return await self._step(request, "undo")

    async def redo(self, request: Request) -> Response:
        return await self._step(request, "redo")

    async def _step(self, request: Request, action: str) -> Response:
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, SEEN_FIELDS)
        may_change(body, game)
        board = game.recent_board()
        before = board.to_dict()
        if action == "undo":
            if not board.can_undo:
                raise ApiError(Refusal.NOTHING_TO_UNDO)
            board.pop()
            game.undos = one_more(game.undos)
            source = None
        else:
            if not board.can_redo:
                raise ApiError(Refusal.NOTHING_TO_REDO)
            source = describe_move(board, str(board.redo_stack[-1]))["source"]
            board.redo()
        await self.save(game, board, action)
        return json_response(_moved(game_json(game, board), before, source))

    async def restart(self, request: Request) -> Response:
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, SEEN_FIELDS)
        may_change(body, game)
        # Like undoing every move: the whole line stays redoable. At the
        # start already nothing changes, and no new revision is stored (it
        # would make every other tab's next change a conflict).
        if not game.played_count():
            return json_response(game_json(game, game.recent_board()))
        revision = game.revision
        board = await self.in_thread(game.restart)  # (a replay when no whole board fits: not on the loop)
        await self.in_write(self.store.update, game, expected_revision=revision, action="restart")
        return json_response(game_json(game, board))

    async def hint(self, request: Request) -> Response:
        """Suggest a move (fair unless the body says ``"peek": true``) and
        count it as a hint, once per position (so: POST). A peeking hint
        marks the game as assisted."""
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, {"after", "revision", "peek"})
        peek = body.get("peek", False)
        if not isinstance(peek, bool):
            raise ApiError(WebRefusal.PEEK_NOT_FLAG)
        check_after(body, game)
        board = game.recent_board(LOOKBACK)  # (all that a solver job gets: for_solver)
        kept = self.lines.get(game.id)  # (a fair hint uses it once nothing is hidden)
        pick = self.picks.get(game.id)
        decided = pick[1] if pick is not None and pick[0] == board.position() else None
        if game.given_up_at is not None:  # over, though its board is not
            found = hints.over_hint(peek)
        else:
            began = time.perf_counter()
            # (at most a quarter of the hint's time: a log of 100,000 moves takes over a second,
            # and reading it from the store as long again; the log not read in time, the hint
            # knows what the game's line shows, never more)
            share = self.hint_seconds * SHOWN_SHARE
            shown = None if peek else await within(share, partial(self.stock_shown, game, began + share),
                                                    self.threads)
            if board.can_redo or (shown is not None and shown < len(board.stock)):
                # (the chances were drawn with nothing of the stock seen: a
                # player back at the choice after drawing knows more cards)
                decided = None
            spent = time.perf_counter() - began
            seconds = max(self.hint_seconds * (1 - SHOWN_SHARE), self.hint_seconds - spent)
            # (the wait for a free solver process is part of the hint's time)
            find = partial(hints.find_hint, peek=peek, kept=kept, seed=fair_seed(game.id),
                           decided=decided, shown=shown)
            # (in the process that answered the game's last hint when it is free: it kept the work)
            same = ("hint", game.id, game.revision, peek, shown, id(kept), id(decided))
            found = dict(await self.in_solver_once(same, request, find, for_solver(board), budget=seconds,
                                                   timed=True, prefer=game.id))  # (a copy of its own)
        line = found.pop("kept")
        if line is not None:
            self.lines.put(game.id, line)
        await self.still_seen(body, game)
        if peek and in_play(game):
            await self.assisted(game.id)
        found["counted"] = False
        if found["move"] is not None:
            found.update(describe_move(board, found["move"]))
        if (found["move"] is not None or found.get("back")) and in_play(game):  # (a hint to undo is one too)
            # (not once another tab has won the game or given it up meanwhile: see assisted)
            count = partial(self.store.count_hint, game.id, board.position(), while_open=True)
            found["counted"] = await self.in_write(count)
        return json_response(found)

    def stock_shown(self, game: StoredGame, until: float | None = None) -> int | None:
        """The stock cards the game's event log shows the player saw (see
        :func:`terrace.solver.observation.stock_shown`; read until the
        :func:`time.perf_counter` instant ``until``): draws taken back and
        then replaced by another move stay known to a fair hint."""
        return stock_shown(Board(game.rules, game.deal), game_events(self.store, game.id), until)

    async def analysis(self, request: Request) -> Response:
        """The solver's verdicts; while the game is being played, looking
        at them is an assist (the game is marked as assisted), hence a POST:
        no link or image on another page can ask for it."""
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, SEEN_FIELDS)
        check_after(body, game)
        board = for_solver(game.recent_board(LOOKBACK))
        seconds = self.hint_seconds
        same = ("analysis", game.id, game.revision)
        result = await self.in_solver_once(same, request, hints.analyse, board, budget=seconds, timed=True)
        await self.still_seen(body, game)
        if in_play(game):
            await self.assisted(game.id)
        return json_response(result)

    async def stats(self, request: Request) -> Response:
        """The statistics, with the title of each group of ``variants``, and
        its variant and changed options (for a page that names them in its
        own language); the chart's days are those of the time zone ``zone``
        names (the browser's), when this computer knows it (``zone`` in the
        answer: the one used, or null for this computer's local time)."""
        zone = stats_zone(query(request, frozenset({"zone"})).get("zone"))
        # (the first call may replay every saved game once: not on the event loop)
        data = await self.in_thread(self.store.statistics, zone)
        data["zone"] = None if zone is None else zone.key
        data["titles"] = {key: label_title(key) for key in data["variants"]}
        data["groups"] = {}
        for key in data["variants"]:
            variant, custom = label_parts(key)
            data["groups"][key] = {"variant": variant, "custom": custom}
        return json_response(data)

    # -- ending a game ----------------------------------------------------

    async def autoplay(self, request: Request) -> Response:
        """Play every move that cannot hurt (``mode`` ``safe``) and a
        certain finish; stored as ordinary moves, in one change."""
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, {"after", "revision", "mode"})
        mode = body.get("mode", AUTOPLAY_MODES[0])
        if not isinstance(mode, str) or mode not in AUTOPLAY_MODES:
            raise ApiError(WebRefusal.AUTOPLAY_MODE, choices=AUTOPLAY_MODES)
        may_change(body, game)
        board = game.recent_board(LOOKBACK)  # (the finish's search avoids positions seen before)
        played, travelled = await self.in_thread(autoplay, board, mode)
        if played:
            await self.save(game, board, "move", change="autoplay")
        return json_response(game_json(game, board, motions=travelled, autoplayed=played,
                               last_move=played[-1] if played else None))

    async def give_up(self, request: Request) -> Response:
        """End the game as lost, for good (it can still be replayed)."""
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, SEEN_FIELDS)
        may_change(body, game)
        if game.won_at is not None or game.status == "won":
            raise ApiError(WebRefusal.GIVE_UP_WON)
        if game.started_at is None:
            raise ApiError(WebRefusal.GIVE_UP_UNPLAYED)
        board = game.recent_board()
        game.given_up_at = time.time()
        await self.in_write(self.store.update, game, expected_revision=game.revision, action="give-up")
        return json_response(game_json(game, board))

    async def active_time(self, request: Request) -> Response:
        """Add active playing time as the page measured it: never more than
        the wall time since the game's last report, to this server or to
        another one on the same database (the store keeps when). A report
        of more counts what the wall time allows (two tabs on one game
        measure the same time: it counts once, and neither is refused)."""
        game = await self.load(request.path_params["game_id"])
        body = await read_body(request)
        only_fields(body, {"ms"})
        ms = body.get("ms")
        if isinstance(ms, bool) or not isinstance(ms, int) or ms < 0:
            raise ApiError(WebRefusal.TIME_NOT_COUNT)
        if game.given_up_at is None:
            try:
                return await self.report_time(game.id, ms)
            except GivenUpError:  # (another tab gave it up after it was read: the store added nothing)
                game = await self.load(game.id)
        # Nothing counts after giving up, and a tab that did not know (the game was given
        # up on another device) learns it from this answer: not an error (a 409 showed in
        # the browser's console as one, for a report the page only has to catch up on).
        return json_response({"id": game.id, "active_ms": game.active_ms, "counted": 0, "given_up": True})

    async def report_time(self, game_id: str, ms: int) -> Response:
        """Count what the clock allows of a report of ``ms`` (see :meth:`active_time`)."""
        async with self.reporting:
            if self.clock.fresh(game_id):  # (started as it was seen: the store may know its last report)
                self.clock.resume(game_id, await self.in_thread(self.store.time_mark, game_id))
            counted = min(ms, self.clock.allowance(game_id))
            try:
                total = await self.add_time(game_id, counted)
            except TimeTooMuchError as error:  # (another server took that time: what is left of it)
                counted = min(counted, error.most)
                try:
                    total = await self.add_time(game_id, counted)
                except TimeTooMuchError:  # (and meanwhile that too: none, which the store always takes)
                    counted = 0
                    total = await self.add_time(game_id, counted)
        return json_response({"id": game_id, "active_ms": total, "counted": counted})

    async def add_time(self, game_id: str, ms: int) -> int:
        """Store ``ms`` of playing time (see :meth:`active_time`); the game's
        new total. Raises :class:`TimeTooMuchError` when another server on
        the database took that time meanwhile: nothing is added."""
        before = self.clock.reported(game_id, ms)
        try:
            add = partial(self.store.add_active_time, game_id, ms, at=self.clock.now())
            return await self.in_write(add)
        except BaseException:
            self.clock.restore(game_id, before)
            raise

    # -- what the page explains: a pressed card, the rules -----------------

    async def why(self, request: Request) -> Response:
        """Why the card a player pressed cannot move (``reason`` null when it can)."""
        asked = query(request, WHY_QUERY)
        game = await self.load(request.path_params["game_id"])
        pile = pile_name(asked.get("pile", ""))  # (whole: refused as it was sent, never cut short)
        raw = asked.get("index")
        index = None if raw is None else whole_number(raw)
        if raw is not None and index is None:
            index = -1  # refused by explain() with the pile's range
        board = game.recent_board()
        reason = explain(board, pile, index)  # (first: a pile or index the game lacks is refused)
        reason = _given_up(game) or reason  # (nothing moves in a game given up, a stuck card neither)
        body: dict[str, Any] = {"pile": pile, "index": index, "movable": reason is None}
        if reason is None:
            return json_response({**body, "reason": None, "code": None})
        return json_response({**body, **request_refusal_json(request, reason, "reason")})

    async def rules(self, request: Request) -> Response:
        """The rules of a variant (``?variant=``, the default one without) for people."""
        name = query(request, RULES_QUERY).get("variant", self.default_variant)
        variant = get_variant(name)  # (whole: a name cut short could name a variant the query did not)
        language = pick_language(request.headers.get("accept-language"))
        return json_response(rules_guide(variant.rules, variant, language))

    async def game_rules(self, request: Request) -> Response:
        """The rules one game is played by, for people."""
        query(request)
        game = await self.load(request.path_params["game_id"])
        language = pick_language(request.headers.get("accept-language"))
        return json_response(rules_guide(game.rules, get_variant(game.variant), language))


def _moved(data: dict[str, Any], before: dict[str, Any], source: str | None) -> dict[str, Any]:
    """``data`` (a game's JSON) with the cards that travelled since ``before``."""
    data["motions"] = motions(before, data["state"], source)
    return data


async def within(seconds: float, func: Callable[[], T], limiter: CapacityLimiter | None = None) -> T | None:
    """``func()`` in a worker thread (of ``limiter``'s, when given), or None
    when it has not returned within ``seconds`` (it goes on to its end in
    its thread, unawaited: a thread cannot be stopped)."""
    running = asyncio.ensure_future(anyio.to_thread.run_sync(func, limiter=limiter))
    try:
        return await asyncio.wait_for(asyncio.shield(running), max(seconds, 0))
    except TimeoutError:
        running.add_done_callback(lambda done: done.cancelled() or done.exception())
        return None


async def to_the_end(call: Callable[[], T]) -> T:
    """``call()`` in a thread of its own, awaited to its end whatever
    cancels the caller meanwhile. uvicorn cancels a request still running
    1 s after SIGTERM or Ctrl+C: a move saved slowly (a slow disk) went on
    in its thread, saved or not, while its request was answered a
    plain-text 500 and the terminal showed a traceback. A stop makes the
    store's changes wait no more (:meth:`~terrace.storage.GameStore.stop_waiting`),
    so the end is near. (Not an asyncio task, nor anyio's thread, which the
    event loop's own end would cancel as well.)"""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if not ended.done():
            if error is not None:
                ended.set_exception(error)
            else:
                ended.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result, error = call(), None
        except BaseException as failed:  # (handed to the request, as anyio's thread would)
            result, error = None, failed
        with contextlib.suppress(RuntimeError):  # (the loop closed: nobody waits any more)
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="terrace-change", daemon=True).start()
    while True:
        try:
            return await asyncio.shield(ended)
        except asyncio.CancelledError:  # (also one that came as the change ended: it is answered)
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()


def for_solver(board: Board) -> Board:
    """``board`` as a solver job gets it: with its history only as far as
    the solver reads it (:data:`~terrace.solver.history.LOOKBACK` moves back
    and ahead), so that a job on a long game does not send the whole game to
    the worker process (at 100,000 moves, 0.3 s to send and read back)."""
    return board.copy(keep=LOOKBACK)


def in_play(game: StoredGame) -> bool:
    """True while the game is being played and can still end otherwise:
    an assist used or a hint given now counts. A game once won is not (its
    win is final: moves taken back after it change nothing it counts)."""
    return game.status in ("choosing", "playing") and game.given_up_at is None and game.won_at is None


def _given_up(game: StoredGame) -> Reason | None:
    """Why nothing may move in a game that was given up (its board does not
    know); None for any other game."""
    return Reason(WebRefusal.GAME_GIVEN_UP) if game.given_up_at is not None else None


SHOWN_SHARE = 0.25
"""The most of a fair hint's time spent reading the game's event log for
the stock cards draws taken back had shown (the rest is the solver's)."""


def game_events(store: GameStore, game_id: str) -> list[Event]:
    """A game's event log as :func:`terrace.solver.observation.stock_shown` reads it."""
    return [(e["action"], e["move"], e["moves"]) for e in store.history(game_id)]


def fair_seed(game_id: str) -> int:
    """The fair player's seed for a game, for its hints and its base-card
    chances alike: the same position, the same samples (so the hint at the
    choice is the card the chances show winning most often)."""
    return int.from_bytes(hashlib.sha256(game_id.encode()).digest()[:4], "big")
