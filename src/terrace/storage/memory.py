"""A :class:`~terrace.storage.base.GameStore` kept in memory: for tests and
``terrace play --db :memory:``. It checks every update exactly as the
SQLite store does, so code tested on it behaves the same on a file.

>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> store = MemoryStore()
>>> game = store.create("wood", get_rules("wood"), Deal.from_number(2, get_rules("wood")))
>>> store.update(game, expected_revision=0, action="shuffle")
Traceback (most recent call last):
...
terrace.storage.base.StoreError: unknown action 'shuffle'
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from datetime import tzinfo
from pathlib import Path
from typing import Any

from terrace.deal import Deal
from terrace.rules import Rules
from terrace.storage.base import (
    UNFINISHED,
    StoredGame,
    change_events,
    check_action,
    check_active_ms,
    check_game,
    check_identity,
    check_position_key,
    conflict,
    given_up,
    new_game,
    one_more,
    report_mark,
    unknown_game,
)
from terrace.storage.paths import default_verdicts_path
from terrace.storage.statistics import MAX_ACTIVE_MS, GameFacts, summarize


class MemoryStore:
    """A :class:`~terrace.storage.base.GameStore` kept in memory (lost when
    the process ends). Its calls are serialized, as the SQLite store's are:
    the web game calls it from worker threads, and an update checks the
    revision, replays the game and only then writes, so two writers must
    not both pass the check, nor a read walk the games while one is added."""

    def __init__(self) -> None:
        self._games: dict[str, StoredGame] = {}
        self._hinted: dict[str, set[str]] = {}
        self._events: dict[str, list[dict[str, Any]]] = {}
        self._places: dict[str, list[tuple[int, float]]] = {}
        """Each game's places in the log of changes (one counter for all
        games, as the SQLite store's event ids) with their times."""
        self._logged = 0
        self._timed: dict[str, float] = {}
        """Up to when each game's time reports were counted (see ``add_active_time``)."""
        self._lock = threading.RLock()

    @property
    def verdicts_path(self) -> Path:
        """The default verdict cache (these games are kept nowhere)."""
        return default_verdicts_path()

    def check_writable(self) -> None:
        """Memory can always be written."""

    def stop_waiting(self) -> None:
        """No other program holds memory: nothing waits."""

    def create(
        self, variant: str, rules: Rules, deal: Deal, *, winnable_only: bool = False
    ) -> StoredGame:
        game = new_game(variant, rules, deal, winnable_only=winnable_only)
        check_game(game)
        with self._lock:
            self._games[game.id] = game.clone()
            self._log(game, "create")
        return game

    def get(self, game_id: str) -> StoredGame:
        with self._lock:
            try:
                stored = self._games[game_id]
            except (KeyError, TypeError):
                raise unknown_game(str(game_id)) from None
            stored.keep_whole_board()
            game = stored.clone()
            game.part_board()
            return game

    def update(self, game: StoredGame, *, expected_revision: int, action: str) -> None:
        check_action(action)
        with self._lock:
            stored = self._games.get(game.id)
            if stored is None:
                raise unknown_game(game.id)
            if stored.revision != expected_revision:
                raise conflict(stored.revision, expected_revision)
            check_identity(stored.variant, stored.rules.to_dict(), stored.deal.text(), game)
            if stored.given_up_at is not None:
                raise given_up(game.id)
            after = game.clone()
            after.revision = expected_revision + 1
            # As in SQLite: counters only grow, the first win stays.
            after.hints = max(after.hints, stored.hints)
            after.assisted = after.assisted or stored.assisted
            after.active_ms = max(after.active_ms, stored.active_ms)
            if stored.won_at is not None:
                after.won_at, after.won_moves = stored.won_at, stored.won_moves
                after.won_active_ms = stored.won_active_ms
            after.stamp(time.time())
            check_game(after)
            line = after.line_of()
            after.set_line(line, after.played_count())
            after.carry_board(stored)
            self._games[game.id] = after
            played = stored.played_count()
            self._log(after, action, played if stored.line_of().common_prefix(line) >= played else None)
        for name in ("revision", "updated_at", "started_at", "finished_at", "hints", "assisted",
                     "active_ms", "won_at", "won_moves", "won_active_ms"):
            setattr(game, name, getattr(after, name))

    def _log(self, game: StoredGame, action: str, played_before: int | None = None) -> None:
        """Log a change as the SQLite store does."""
        events = [{"action": action, "move": move, "moves": count, "revision": game.revision,
                   "at": game.updated_at} for move, count in change_events(game, action, played_before)]
        self._events.setdefault(game.id, []).extend(events)
        places = self._places.setdefault(game.id, [])
        for _ in events:
            self._logged += 1
            places.append((self._logged, game.updated_at))

    def _facts(self, game: StoredGame) -> GameFacts:
        """The game's facts with its places in the log, as the SQLite store
        reads them (``rows.LOG_PLACES``)."""
        places = self._places.get(game.id, [])
        ended = game.won_at if game.won_at is not None else game.finished_at
        result = None if ended is None else min((seq for seq, at in places if at == ended), default=None)
        return dataclasses.replace(
            game.facts(), opened_seq=min((seq for seq, _ in places), default=None),
            changed_seq=self._changed(game.id), result_seq=result,
        )

    def _changed(self, game_id: str) -> int:
        """Where in the log the game last changed."""
        return max((seq for seq, _ in self._places.get(game_id, [])), default=0)

    def history(self, game_id: str) -> list[dict[str, Any]]:
        with self._lock:
            self._stored(game_id)
            return [dict(e) for e in self._events.get(game_id, [])]

    def _stored(self, game_id: str) -> StoredGame:
        try:
            return self._games[game_id]
        except (KeyError, TypeError):
            raise unknown_game(str(game_id)) from None

    def count_hint(self, game_id: str, position_key: str, *, while_open: bool = False) -> bool:
        key = check_position_key(position_key)
        with self._lock:
            game = self._stored(game_id)
            if while_open and not _open(game):
                return False
            seen = self._hinted.setdefault(game_id, set())
            if key in seen:
                return False
            seen.add(key)
            counted = one_more(game.hints) > game.hints
            game.hints = one_more(game.hints)
            game.updated_at = max(game.updated_at, time.time())
            self._log(game, "hint")
        return counted

    def mark_assisted(self, game_id: str, *, while_open: bool = False) -> bool:
        with self._lock:
            game = self._stored(game_id)
            if while_open and not _open(game):
                return False
            game.assisted = True
            return True

    def time_mark(self, game_id: str) -> float | None:
        with self._lock:
            self._stored(game_id)
            return self._timed.get(game_id)

    def add_active_time(self, game_id: str, ms: int, *, at: float | None = None) -> int:
        ms = check_active_ms(ms)
        with self._lock:
            game = self._stored(game_id)
            if game.given_up_at is not None:
                raise given_up(game_id)
            if at is not None:
                self._timed[game_id] = report_mark(self._timed.get(game_id), ms, at)
            last = self._events.get(game_id, [{}])[-1]
            # (part of the first win while the winning change is still the
            # game's last: not once it was won again after moves taken back)
            winning = last.get("at") == game.won_at
            if game.status == "won" and game.won_active_ms == game.active_ms and winning:
                game.won_active_ms = min(game.won_active_ms + ms, MAX_ACTIVE_MS)
            game.active_ms = min(game.active_ms + ms, MAX_ACTIVE_MS)
            return game.active_ms

    def latest_unfinished(self) -> StoredGame | None:
        with self._lock:
            playing = [g for g in self._games.values() if g.status in UNFINISHED and g.given_up_at is None]
            if not playing:
                return None
            return max(playing, key=lambda g: self._changed(g.id)).clone()

    def recent(self, limit: int = 20) -> list[StoredGame]:
        """As the SQLite store lists them (:mod:`terrace.storage.recent`): in the
        order of the log, timed by its clock, which a clock put back never
        turns back."""
        with self._lock:
            placed = sorted(((self._places[g.id][-1], g) for g in self._games.values()
                             if self._places.get(g.id)), key=lambda item: item[0])
            clock = -math.inf
            timed: list[tuple[float, int, StoredGame]] = []
            for (seq, at), game in placed:
                clock = max(clock, at)
                timed.append((max(clock, game.updated_at), seq, game))
            timed.sort(key=lambda item: item[:2], reverse=True)
            return [game.clone() for _, _, game in timed[: max(limit, 0)]]

    def statistics(self, zone: tzinfo | None = None) -> dict[str, Any]:
        with self._lock:
            facts = [self._facts(g) for g in self._games.values()]
        return summarize(facts, zone=zone)


def _open(game: StoredGame) -> bool:
    """True while ``game`` is neither won (a first win stays) nor given up."""
    return game.won_at is None and game.given_up_at is None
