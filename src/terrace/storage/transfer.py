"""Export and import of saved games as engine game records (JSON).

An exported record is the engine's record (``terrace.record``) with one more
key, ``saved``: the game's id, times, counters and redo stack, so that an
export imported elsewhere is the same game. Records without ``saved`` (from
``terrace replay`` or another tool) import too.

>>> import json
>>> from terrace.storage import MemoryStore
>>> from terrace.variants import get_rules
>>> from terrace.deal import Deal
>>> game = MemoryStore().create("wood", get_rules("wood"), Deal.from_number(2, get_rules("wood")))
>>> again = read_games(json.dumps([export_record(game)]))[0]
>>> (again.id == game.id, again.variant, again.deal == game.deal)
(True, 'wood', True)
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from terrace.cards import CARDS_PER_DECK
from terrace.deal import Deal
from terrace.errors import JsonRefusedError, TerraceError
from terrace.moves import Move
from terrace.record import GameRecord, json_items, json_problem, json_text, pasted_json
from terrace.rules import MAX_DECKS
from terrace.storage.base import (
    FINISHED,
    LATEST_GAME,
    MAX_LINE,
    MAX_PASSED,
    MAX_POSITION_KEY,
    LogPlaces,
    StoredGame,
    StoreError,
    check_saved,
    check_times,
    clock_fault,
    clock_outside,
    pack_hinted,
    pack_passed,
    passed_state,
    position_key,
    unpack_hinted,
    unpack_passed,
)
from terrace.storage.rows import clip
from terrace.storage.statistics import finish_time, first_win

SAVED_KEYS = ("id", "created_at", "updated_at", "started_at", "finished_at", "hints", "undos",
              "winnable_only", "redo", "assisted", "active_ms", "won_at", "won_moves", "won_active_ms",
              "given_up_at", "revision", "hinted", "passed", "log")
"""The keys of a record's ``saved`` details, in the order an export writes
them; an import refuses any other (a key misspelt by hand)."""
MAX_REASONS = 20
MAX_RECORDS = 100_000
"""The most records one file may hold."""


class ImportRefusedError(StoreError):
    """A file of records that cannot be imported; ``reasons`` says why,
    record by record."""

    def __init__(self, reasons: list[str]) -> None:
        reasons = [clip(reason) for reason in reasons]
        shown = reasons[:MAX_REASONS]
        more = len(reasons) - len(shown)
        text = "; ".join(shown) + (f"; and {more} more" if more else "")
        super().__init__(f"nothing was imported: {text}")
        self.reasons = reasons


def export_record(game: StoredGame, log: LogPlaces | None = None) -> dict[str, Any]:
    """The game as a record, with its ``saved`` details (no ``id`` for a
    game not stored yet) and, when given, its places in the store's log of
    changes (``saved.log``)."""
    data = game.record().to_dict()
    data["saved"] = {
        "id": game.id,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "hints": game.hints,
        "undos": game.undos,
        "winnable_only": game.winnable_only,
        "redo": list(game.redo),
        "assisted": game.assisted,
        "active_ms": game.active_ms,
        "won_at": game.won_at,
        "won_moves": game.won_moves,
        "won_active_ms": game.won_active_ms,
        "given_up_at": game.given_up_at,
        "revision": game.revision,
        "hinted": unpack_hinted(game.hinted),
    }
    if game.passed:
        data["saved"]["passed"] = [list(state) for state in unpack_passed(game.passed)]
    if log is not None:
        data["saved"]["log"] = log.to_dict()
    if not game.id:  # (a game not stored yet has none: the import gives one)
        del data["saved"]["id"]
    return data


class UnexportableGameError(StoreError):
    """A game that loads but that an import would refuse now (a time
    ahead of this computer's clock)."""


def exportable_record(game: StoredGame, now: float, log: LogPlaces | None = None) -> dict[str, Any]:
    """:func:`export_record` for a game an import at ``now`` takes (checked
    by :func:`~terrace.storage.base.check_saved`, as the import checks it);
    else raises :class:`UnexportableGameError`, so that an export never
    writes what an import refuses."""
    try:
        check_saved(game, now=now, prefix="saved.")
    except StoreError as error:
        raise UnexportableGameError(
            f"game {game.id} cannot be exported, an import would refuse it: {error}"
        ) from None
    return export_record(game, log)


def read_games(text: str | bytes) -> list[StoredGame]:
    """Every game in a JSON document holding one record or a list of them
    (text, or UTF-8 bytes: see :func:`~terrace.record.json_text`), each
    checked move by move; raises :class:`ImportRefusedError` listing every
    bad record when any is bad."""
    if clock_outside(now := time.time()):
        # (every record's times would be "ahead of this computer's clock")
        raise ImportRefusedError([clock_fault(now, "import again")])
    games: list[StoredGame] = []
    reasons: list[str] = []
    shared: dict[str, str] = {}
    try:
        listed, items = _read_json(lambda: json_items(pasted_json(json_text(text))))
    except ImportRefusedError:
        # (a deal string, what terrace deal prints, was 'not valid JSON: Expecting value: line 1 column 1')
        if isinstance(text, str) and Deal.cards_of(text, MAX_DECKS * CARDS_PER_DECK) is not None:
            raise ImportRefusedError(["the file holds a deal string, not game records (JSON): show, replay, "
                                      "hint and solve take it as --deal-file"]) from None
        raise
    for index in itertools.count(1):
        item = _read_json(lambda: next(items, _END))
        if item is _END:
            break
        if index > MAX_RECORDS:
            raise ImportRefusedError([f"the file holds more than {MAX_RECORDS:,} records; "
                                      f"at most {MAX_RECORDS:,} at once"])
        try:
            game = game_from_record(item, shared)
        except (TerraceError, StoreError) as error:
            reasons.append(f"record {index}: {error}" if listed else str(error))
        except RecursionError:
            why = "it is nested too deeply"
            reasons.append(f"record {index}: {why}" if listed else why)
        else:
            if not reasons:  # (once one is bad, only the reasons are kept)
                games.append(game)
        del item
    if reasons:
        raise ImportRefusedError(reasons)
    return games


_END = object()
"""What follows the last record."""

_T = TypeVar("_T")


def _read_json(read: Callable[[], _T]) -> _T:
    """What ``read`` reads of the file's JSON; a file that is not JSON
    (or gives a key twice) is refused as such."""
    try:
        return read()
    except RecursionError:
        raise ImportRefusedError(["the file is not valid JSON: it is nested too deeply"]) from None
    except JsonRefusedError as error:
        raise ImportRefusedError([f"the file cannot be read: {error}"]) from None
    except ValueError as error:
        raise ImportRefusedError([f"the file is not valid JSON: {json_problem(error)}"]) from None


def game_from_record(data: Any, shared: dict[str, str] | None = None) -> StoredGame:
    """A game from one record: the engine checks rules, deal, every move
    and the result; the ``saved`` details are read here and the game is
    checked by :func:`~terrace.storage.base.check_saved`, as every saved game
    is (times from 2000, counts up to a million...). The game keeps no
    board, and its moves are the strings of ``shared`` where it has them
    (a file of many games holds a few hundred different moves)."""
    record, board = GameRecord.checked(data)
    saved = data.get("saved", {})
    if not isinstance(saved, dict):
        raise StoreError("'saved' must be a JSON object")
    unknown = next((key for key in saved if key not in SAVED_KEYS), None)
    if unknown is not None:
        raise StoreError(f"saved has no key {clip(unknown)!r}: its keys are {', '.join(SAVED_KEYS)}")
    now = time.time()
    game_id = saved.get("id", "")  # (no id at all: the import gives one)
    if not isinstance(game_id, str) or ("id" in saved and not game_id):
        raise StoreError("saved.id must be 1 to 64 letters, digits, '-' or '_'")
    if game_id == LATEST_GAME:
        # (the web game's /api/games/current was the latest unfinished game's
        # address, and pages of older versions still ask it for that game)
        raise StoreError(f"saved.id {LATEST_GAME!r} is the web game's name for the latest unfinished game: "
                         "give the game another id, or leave saved.id out and the import gives one")
    redo = saved.get("redo", [])
    if not isinstance(redo, list) or not all(isinstance(m, str) for m in redo):
        raise StoreError("saved.redo must be a list of moves")
    if len(redo) + len(record.moves) > MAX_LINE:
        raise StoreError(f"saved.redo and the moves hold more than {MAX_LINE:,} moves")
    redo = [_printed(move) for move in redo]  # (as the record's moves are: ' C2 ' kept as c2)
    finished = record.result in FINISHED
    game = StoredGame(
        id=game_id,
        variant=record.variant,
        rules=record.rules,
        deal=record.deal,
        moves=_shared(record.moves, shared),
        redo=_shared(redo, shared),
        status=record.result,
        hints=_count(saved, "hints"),
        undos=_count(saved, "undos"),
        winnable_only=_flag(saved, "winnable_only"),
        created_at=_time(saved, "created_at", now),
        updated_at=_time(saved, "updated_at", now),
        started_at=_time(saved, "started_at", None),
        finished_at=_time(saved, "finished_at", None),  # (a finished game without one: below)
        assisted=_flag(saved, "assisted"),
        active_ms=_count(saved, "active_ms"),
        won_at=_time(saved, "won_at", None),
        won_moves=_count(saved, "won_moves", None),
        won_active_ms=_count(saved, "won_active_ms", None),
        given_up_at=_time(saved, "given_up_at", None),
        revision=_count(saved, "revision"),
        passed=_passed(saved.get("passed", [])),
        log=None if saved.get("log") is None else LogPlaces.from_dict(saved["log"]),
        ordered="revision" in saved,
        created_given="created_at" in saved,
    )
    game.adopt_played(board)  # (the record's check replayed its moves: not again)
    del board
    check_times(game, now=now, prefix="saved.")  # (before an unused finished_at is dropped)
    ended = finished or game.given_up_at is not None
    game.finished_at = finish_time(game.status, game.finished_at, game.given_up_at,
                                   game.updated_at) if ended else None
    game.won_at, game.won_moves = first_win(game.status, game.won_at, game.won_moves, game.finished_at,
                                            game.updated_at, len(game.moves))
    check_saved(game, now=now, prefix="saved.")
    game.hinted = _hinted(saved.get("hinted", []), game.hints)
    game.forget_board()
    return game


def _passed(value: Any) -> str:
    """``saved.passed``: at most :data:`~terrace.storage.base.MAX_PASSED`
    lines, each ``[moves, digest]``: a number of moves up to
    :data:`~terrace.storage.base.MAX_LINE` and a :meth:`Line.digest` in
    lower-case hex, as an export writes them (sorted, each once)."""
    shape = (f"saved.passed must be a list of at most {MAX_PASSED:,} lines, each [moves, digest]: "
             f"a number of moves up to {MAX_LINE:,} and a digest in hex")
    if not isinstance(value, list) or len(value) > MAX_PASSED:
        raise StoreError(shape)
    states = []
    for state in value:
        if not (isinstance(state, list) and len(state) == 2 and passed_state(*state)):
            raise StoreError(shape)
        states.append((state[0], state[1]))
    return pack_passed(states)


def _hinted(value: Any, hints: int) -> str:
    """``saved.hinted``: the positions a hint was counted on, at most
    ``hints`` (``saved.hints``) of them, each a key
    :meth:`~terrace.storage.base.GameStore.count_hint` takes (sorted, each
    once, as an export writes them), packed
    (:func:`~terrace.storage.base.pack_hinted`). A position hinted without
    a hint counted would let a hint there go uncounted."""
    if not isinstance(value, list) or not all(position_key(key) for key in value):
        raise StoreError(f"saved.hinted must be a list of positions, each printable text of 1 to "
                         f"{MAX_POSITION_KEY:,} characters")
    count = len(set(value))
    if count > hints:
        raise StoreError(f"saved.hinted holds {count:,} positions, more than the "
                         f"{hints:,} hints saved.hints counts")
    return pack_hinted(value)


def _printed(text: str) -> str:
    """A move to redo as the notation prints it (``' C2 '``: ``c2``); text
    that is no move stays as it is, for the game's check to refuse."""
    try:
        return str(Move.parse(text))
    except TerraceError:
        return text


def _shared(moves: Sequence[str], shared: dict[str, str] | None) -> list[str]:
    """``moves``, each the string ``shared`` holds for it (added there when new)."""
    if shared is None:
        return list(moves)
    return [shared.setdefault(move, move) for move in moves]


def _count(saved: dict[str, Any], key: str, default: int | None = 0) -> Any:
    """A whole number (its range is for :func:`check_saved`), or None."""
    value = saved.get(key, default)
    if value is None and default is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise StoreError(f"saved.{key} must be a whole number{'' if default is not None else ', or null'}")
    return value


def _flag(saved: dict[str, Any], key: str) -> bool:
    value = saved.get(key, False)
    if not isinstance(value, bool):
        raise StoreError(f"saved.{key} must be true or false")
    return value


def _time(saved: dict[str, Any], key: str, default: float | None) -> Any:
    """A time as a number of seconds (its range is for :func:`check_saved`),
    or None. A whole number too large for a float (JSON allows hundreds of
    digits) stays whole: the range check refuses it, quoting its size."""
    value = saved.get(key, default)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value.bit_length() > 64 else float(value)
    if not isinstance(value, float) or not math.isfinite(value):
        raise StoreError(f"saved.{key} must be a time in seconds since 1970, or null")
    return value
