"""Game records: everything needed to replay a game, as JSON.

>>> from terrace.board import Board
>>> board = Board.from_number(3)
>>> board.push_text("c2")
Move.parse('c2')
>>> record = GameRecord.from_board(board, "terrace")
>>> again = GameRecord.from_json(record.to_json())
>>> again.replay() == board
True
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from terrace.board import Board, Status
from terrace.deal import DEAL_VERSION, Deal, given_deal
from terrace.errors import (
    DuplicateKeyError,
    IllegalMoveError,
    InvalidDealError,
    InvalidRecordError,
    JsonRefusedError,
    NotJsonNumberError,
    TerraceError,
)
from terrace.moves import MAX_MOVE_TEXT, MAX_MOVES, Move, too_many_moves
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.rules import Rules, given_rules
from terrace.symbols import NO_BREAK_SPACES
from terrace.variants import canonical_name, get_rules
from terrace.whole import longest_whole

RECORD_FORMAT = "terrace-game"
RECORD_VERSION = 1
RESULTS = tuple(status.value for status in Status)
"""Where a game a record holds may stand: the board's statuses (:class:`~terrace.position.Status`)."""
RECORD_KEYS = ("format", "version", "variant", "rules", "deal_number", "deal_version", "deal", "moves",
               "result")
"""The keys of a record's JSON object that are the record's own (``extra`` may add others)."""


@dataclass(frozen=True)
class GameRecord:
    """A variant with its rules, a deal, and the moves played on it."""

    variant: str
    rules: Rules
    deal: Deal
    moves: tuple[str, ...] = ()
    result: str = ""
    """The status the moves reach, one of :data:`RESULTS`; not given, it is
    found by replaying them."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # (another name of a variant is stored as the preset's, as from_board and from_dict store it)
        variant = canonical_name(self.variant)
        if variant != self.variant:
            object.__setattr__(self, "variant", variant)
        # (rules and a deal that do not fit, or an unknown result, made a record its reading refused)
        try:
            given_deal(self.deal).check(given_rules(self.rules, default=False))
        except InvalidDealError as error:
            raise InvalidRecordError(error.why) from None
        # (moves given as a list are kept as a tuple, as a record read back holds them: equal, and hashable;
        # each as the notation prints it, as the reading keeps it: 'C2' was written so, and read back as 'c2')
        moves = _spelt(_record_moves(self.moves))
        if moves is not self.moves:
            object.__setattr__(self, "moves", moves)
        # (a copy of its own, as it reads back: the caller's dict changed later,
        # with a key of the record's or a NaN, made it write a record its reading refused)
        object.__setattr__(self, "extra", _check_extra(self.extra))
        if self.result != "" and self.result not in RESULTS:
            raise InvalidRecordError(Reason(Refusal.RECORD_RESULT_UNKNOWN, results=RESULTS))
        # (the moves replayed, as the reading replays them: a result they do not
        # reach, or an illegal move, made a record its own reading refused)
        reached = self.replay().status.value
        if self.result == "":  # (not given: the moves' own; 'choosing' was taken, wrong after any move)
            object.__setattr__(self, "result", reached)
        elif self.result != reached:
            raise InvalidRecordError(
                Reason(Refusal.RECORD_RESULT_MISMATCH, claimed=clip(self.result), actual=reached)
            )

    @classmethod
    def from_board(cls, board: Board, variant: str = "terrace") -> GameRecord:
        """The record of ``board``'s game so far (its deal and move stack);
        refused, as its reading would refuse it, beyond
        :data:`~terrace.moves.MAX_MOVES` moves."""
        if not isinstance(board, Board):
            raise TypeError(f"from_board takes a Board, not {type(board).__name__}")
        if board.deal is None:
            raise InvalidRecordError(Reason(Refusal.RECORD_NO_DEAL))
        if len(board.move_stack) > MAX_MOVES:  # (its record was written, its reading refused)
            raise InvalidRecordError(too_many_moves())
        # (the board played its moves: they are not replayed again)
        return cls._made(canonical_name(variant), board.rules, board.deal,
                         tuple(str(m) for m in board.move_stack), board.status.value)

    @classmethod
    def of_checked(cls, variant: str, rules: Rules, deal: Deal, moves: tuple[str, ...],
                   result: str) -> GameRecord:
        """The record of a game whose moves and result were checked by a
        replay already (a saved game: every read of the store checks it),
        made without replaying them again; anything else, the constructor
        checks."""
        return cls._made(canonical_name(variant), rules, deal, moves, result)

    def replay(self) -> Board:
        """The board after every move (raises if any move is illegal)."""
        board = Board(self.rules, self.deal)
        for index, text in enumerate(self.moves):
            try:
                move = Move.parse(text)
                board.push(move)
            except IllegalMoveError as error:  # read: named as the engine prints it (' C2 ' as c2)
                reason = Reason(Refusal.RECORD_MOVE_ILLEGAL, number=index + 1, move=str(move),
                                problem=board.ended() or error.why)
                raise InvalidRecordError(reason) from None
            except TerraceError as error:
                reason = Reason(Refusal.RECORD_MOVE_UNREADABLE, number=index + 1, move=clip(text),
                                problem=error.why)
                raise InvalidRecordError(reason) from None
        return board

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON values."""
        data: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "variant": self.variant,
            "rules": self.rules.to_dict(),
            "deal_number": self.deal.number,
            "deal_version": DEAL_VERSION,
            "deal": self.deal.text(),
            "moves": list(self.moves),
            "result": self.result,
        }
        data.update(_check_extra(self.extra))  # (checked again: the dict can be changed in place)
        return data

    def to_json(self, indent: int | None = 2) -> str:
        """The record as a JSON document."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Read and fully check a record: rules, deal, every move, result."""
        return cls.checked(data)[0]

    @classmethod
    def checked(cls, data: Any) -> tuple[GameRecord, Board]:
        """:meth:`from_dict`, and the board its check replayed (after every
        move), so that a caller need not replay the record again."""
        if not isinstance(data, dict):
            raise InvalidRecordError(Reason(Refusal.RECORD_NOT_OBJECT))
        if data.get("format") != RECORD_FORMAT:
            raise InvalidRecordError(Reason(Refusal.RECORD_FORMAT, format=RECORD_FORMAT))
        version = data.get("version")
        if type(version) is not int or version != RECORD_VERSION:  # not True, not 1.0
            raise InvalidRecordError(
                Reason(Refusal.RECORD_VERSION, version=quote(version), supported=RECORD_VERSION)
            )
        try:
            variant = canonical_name(_typed(data, "variant", str))
            rules = Rules.from_dict(_typed(data, "rules", dict), get_rules(variant))
            number = data.get("deal_number")
            if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
                raise InvalidRecordError(Reason(Refusal.RECORD_DEAL_NUMBER))
            deal_version = data.get("deal_version", DEAL_VERSION)
            # (without a number the deal string alone decides the game, so any
            # version of the numbering will do, but it must be one: a whole
            # number from 1, as versions are numbered)
            if (type(deal_version) is not int or deal_version < 1
                    or (number is not None and deal_version != DEAL_VERSION)):
                raise InvalidRecordError(Reason(Refusal.RECORD_DEAL_VERSION, version=quote(deal_version)))
            deal = Deal.parse(_typed(data, "deal", str), rules, number)  # (checked once)
            # (the moves' number and types are checked before the result is read,
            # their spelling and legality by the one replay below, which reads each)
            moves = _record_moves(_typed(data, "moves", list))
            record = cls._made(variant, rules, deal, moves, _typed(data, "result", str))
        except InvalidRecordError:
            raise
        except TerraceError as error:
            raise InvalidRecordError(error.why) from None
        board = record.replay()
        if record.result not in RESULTS:
            raise InvalidRecordError(Reason(Refusal.RECORD_RESULT_UNKNOWN, results=RESULTS))
        if board.status.value != record.result:
            raise InvalidRecordError(
                Reason(Refusal.RECORD_RESULT_MISMATCH, claimed=clip(record.result), actual=board.status.value)
            )
        # moves read in another spelling ('C2', ' wf ') are kept as the notation prints them
        moves = _spelt(record.moves)  # (the board's moves as printed: a look-up each, not a str() of each)
        if moves != record.moves:
            object.__setattr__(record, "moves", moves)  # (the board's own: not checked again)
        return record, board

    @classmethod
    def _made(cls, variant: str, rules: Rules, deal: Deal, moves: tuple[str, ...], result: str) -> GameRecord:
        """A record of values :meth:`checked` has checked, or checks by its
        replay (the constructor would read every move once more)."""
        record = object.__new__(cls)
        for name, value in (("variant", variant), ("rules", rules), ("deal", deal), ("moves", moves),
                            ("result", result), ("extra", {})):
            object.__setattr__(record, name, value)
        return record

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Read a record from JSON text (or its UTF-8 bytes; see :func:`json_text`)."""
        try:
            data = read_json(pasted_json(json_text(text)))
        except (ValueError, TypeError, RecursionError) as error:
            raise InvalidRecordError(Reason(Refusal.RECORD_NOT_JSON, problem=json_problem(error))) from None
        return cls.from_dict(data)


def _check_extra(extra: Any) -> dict[str, Any]:
    """A copy of ``extra`` as a reader of the record takes it back (read
    from the JSON :meth:`GameRecord.to_json` writes of it); refuses it
    unless that writer can write it: an object of text keys whose values
    are JSON (NaN, infinity, sets and other objects were written, or failed
    in ``to_dict``, and made a record its own reading refused), none of
    them a key of the record's own."""
    if not isinstance(extra, dict):
        problem = f"not {type(extra).__name__}"
    elif any(not isinstance(key, str) for key in extra):
        problem = "every key must be text"
    else:
        try:
            copied: dict[str, Any] = json.loads(json.dumps(extra, allow_nan=False))
        except (ValueError, TypeError, RecursionError) as error:
            problem = clip(str(error))
        else:
            for key in copied:
                if key in RECORD_KEYS:  # (to_dict would write it over the record's own value)
                    raise InvalidRecordError(Reason(Refusal.RECORD_EXTRA_KEY, key=clip(key)))
            return copied
    raise InvalidRecordError(Reason(Refusal.RECORD_EXTRA_NOT_JSON, problem=problem))


def _record_moves(moves: Any) -> tuple[str, ...]:
    """The moves of a record as it holds them, a tuple of at most
    :data:`~terrace.moves.MAX_MOVES` strings (their number checked first:
    a list too long is refused before it is looked through); else
    :class:`InvalidRecordError`. The one check of a record's moves, for the
    constructor and the reading alike."""
    if isinstance(moves, str | bytes | bytearray):  # (its characters are no moves)
        raise InvalidRecordError(Reason(Refusal.RECORD_MOVES))
    if not isinstance(moves, tuple):
        with suppress(TypeError):
            moves = tuple(moves)
    if not isinstance(moves, tuple):
        raise InvalidRecordError(Reason(Refusal.RECORD_MOVES))
    if len(moves) > MAX_MOVES:
        raise InvalidRecordError(too_many_moves())
    if not all(isinstance(move, str) for move in moves):
        raise InvalidRecordError(Reason(Refusal.RECORD_MOVES))
    return moves


def _spelt(moves: tuple[str, ...]) -> tuple[str, ...]:
    """``moves`` each as the notation prints it (``' C2 '`` as ``c2``;
    the same tuple when every one is), or :class:`InvalidRecordError` for
    the first that is no move, as the replay names it."""
    printed = tuple(map(_PRINTED.get, moves))
    if None in printed:
        spelt = []
        for index, text in enumerate(moves):
            known = _PRINTED.get(text)
            if known is None:
                try:
                    known = str(Move.parse(text))
                except TerraceError as error:
                    reason = Reason(Refusal.RECORD_MOVE_UNREADABLE, number=index + 1, move=clip(text),
                                    problem=error.why)
                    raise InvalidRecordError(reason) from None
                if len(text) <= MAX_MOVE_TEXT and len(_PRINTED) < _PRINTED_MOST:  # (no long text is kept)
                    _PRINTED[text] = known
            spelt.append(known)
        printed = tuple(spelt)
    return moves if printed == moves else printed  # type: ignore[return-value]


_PRINTED: dict[str, str] = {}
"""Move texts met in records, each with the text the notation prints for
its move (``'C2'``: ``'c2'``), so that a long record's moves are not each
read again."""
_PRINTED_MOST = 4096


def json_text(text: str | bytes) -> str:
    """A record file's text: UTF-8 bytes decoded, and a leading byte-order
    mark (Windows Notepad writes one) passed over, the same for text and
    bytes; other encodings are refused with a ``UnicodeDecodeError`` (a
    ``ValueError``), where ``json.loads`` alone took UTF-16 bytes but
    refused a byte-order mark in text.

    >>> json_text(b"\\xef\\xbb\\xbf[]") == json_text("\\ufeff[]") == "[]"
    True
    """
    if isinstance(text, bytes | bytearray):
        return bytes(text).decode("utf-8-sig")
    return text.removeprefix("\ufeff") if isinstance(text, str) else text


_PASTED = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[' + NO_BREAK_SPACES + "]")
"""A JSON string whole, or a no-break space (outside the strings). (The
string's loop unrolled: a character at a time through an alternation took
2.4 s for 47 MB of records, this 0.9 s.)"""


def pasted_json(text: str) -> str:
    """The JSON of a record file with each no-break space outside its
    strings read as a space: a record copied from a web page holds them
    where its indentation was (JSON has none of them, and
    ``json.loads`` refused the file). Inside a string each stays as it is
    (a deal string takes it between its cards; in a move it is refused).

    >>> pasted_json('{\\n\\u00a0\\u00a0"deal": "AS\\u00a02S"}') == '{\\n  "deal": "AS\\u00a02S"}'
    True
    """
    if not any(space in text for space in NO_BREAK_SPACES):
        return text
    return _PASTED.sub(lambda found: found.group() if found.group()[0] == '"' else " ", text)


def _one_of_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members as a dict; refuses a key given twice."""
    data = dict(pairs)
    if len(data) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(Reason(Refusal.JSON_DUPLICATE_KEY, key=clip(key)))
            seen.add(key)
    return data


def _no_constant(name: str) -> Any:
    """Refuse ``NaN``, ``Infinity`` or ``-Infinity``: Python's reader took
    them as numbers, JSON has none of them (RFC 8259, 6)."""
    raise NotJsonNumberError(Reason(Refusal.JSON_NOT_A_NUMBER, value=name))


_NONZERO_DIGIT = re.compile("[1-9]")


def _float_in_range(text: str) -> float:
    """A JSON number with a fraction or an exponent as a float; refuses one
    beyond a float's range, which Python's reader took as infinite (``1e400``:
    a budget, a count or a deal of ``inf``, named so in refusals) or as 0
    (``1e-400``).

    >>> _float_in_range("2.5e-3")
    0.0025
    >>> try:
    ...     _float_in_range("-1e400")
    ... except NotJsonNumberError as error:
    ...     print(error.reason.code.value)
    json-number-range
    """
    value = float(text)
    mantissa = text.partition("e")[0].partition("E")[0]
    if math.isinf(value) or (value == 0.0 and _NONZERO_DIGIT.search(mantissa)):
        raise NotJsonNumberError(Reason(Refusal.JSON_NUMBER_RANGE, value=clip(text)))
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_one_of_each, parse_constant=_no_constant,
                            parse_float=_float_in_range)
"""The reader of JSON from outside: a key given twice in one object is
refused (:class:`~terrace.errors.DuplicateKeyError`), not left to the last,
and so is a number JSON has not or a float cannot hold
(:class:`~terrace.errors.NotJsonNumberError`)."""


def read_json(text: str | bytes) -> Any:
    """``json.loads`` of JSON from outside (a file, a request's body), with
    what :data:`_DECODER` refuses refused.

    >>> read_json('{"move": "s"}')
    {'move': 's'}
    >>> read_json('{"move": "s", "move": "c1"}')
    Traceback (most recent call last):
    ...
    terrace.errors.DuplicateKeyError: the key 'move' is given twice in one object: give each key once
    >>> read_json('{"after": NaN}')
    Traceback (most recent call last):
    ...
    terrace.errors.NotJsonNumberError: NaN is no JSON number: give a number
    """
    return json.loads(text, object_pairs_hook=_one_of_each, parse_constant=_no_constant,
                      parse_float=_float_in_range)


_SPACE = re.compile("[ \t\n\r]*")
"""A run of JSON's white space (RFC 8259: space, tab, line feed, return)."""


def _skip_space(text: str, at: int) -> int:
    # (a match, not a loop over the characters: 60 MB of spaces in a file to
    # import took 42 s, a microsecond a character)
    found = _SPACE.match(text, at)
    return at if found is None else found.end()


def json_items(text: str) -> tuple[bool, Iterator[Any]]:
    """Whether a JSON document is a list, and its values one at a time:
    the items of a list, read each only when the one before is done with
    (a file of 64 MB of records, read whole, took ten times its size in
    memory), or the one value of any other document. Raises what
    ``json.loads`` raises (a ``ValueError``; a ``RecursionError``), for a
    list possibly only once the items before the fault were read.

    >>> listed, items = json_items(' [1, {"a": 2}] ')
    >>> listed, list(items)
    (True, [1, {'a': 2}])
    >>> json_items("{}")[0]
    False
    """
    at = _skip_space(text, 0)
    if not text.startswith("[", at):
        value, end = _DECODER.raw_decode(text, at)
        if _skip_space(text, end) != len(text):
            raise json.JSONDecodeError("Extra data", text, _skip_space(text, end))
        return False, iter([value])
    return True, _list_items(text, at + 1)


def _list_items(text: str, at: int) -> Iterator[Any]:
    """The items of the list whose ``[`` ends just before ``at``."""
    at = _skip_space(text, at)
    if text.startswith("]", at):
        at += 1
    else:
        while True:
            item, at = _DECODER.raw_decode(text, _skip_space(text, at))
            yield item
            at = _skip_space(text, at)
            if text.startswith(",", at):
                at += 1
                continue
            if not text.startswith("]", at):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
            at += 1
            break
    at = _skip_space(text, at)
    if at != len(text):
        raise json.JSONDecodeError("Extra data", text, at)


def json_problem(error: Exception) -> str:
    """What is wrong with a JSON text, in words (Python's limit on the
    digits of a number named plainly rather than with its own advice).

    >>> import json
    >>> try:
    ...     json.loads("9" * 5000)
    ... except ValueError as error:
    ...     json_problem(error)
    'a number has more than 4300 digits'
    """
    if isinstance(error, UnicodeDecodeError):
        return "it is not UTF-8 text"
    reason = json_reason(error) or _decoding_reason(error)
    return clip(str(error)) if reason is None else str(reason)


def _decoding_reason(error: Exception) -> Reason | None:
    """What Python's reader says of a record file, in plain words where
    its own are unclear: a control character outside a string (a file
    padded with NUL bytes was "Extra data: line 1 column 644") or inside
    one, or a second value after the first (two records one after the
    other, outside a list: "Extra data" too); None for any other error.

    >>> import json
    >>> try:
    ...     json.loads('{}\\n{}')
    ... except ValueError as error:
    ...     print(_decoding_reason(error))
    more follows the JSON value, at line 2 column 1: a record file holds one record, or one list of records
    """
    if not isinstance(error, json.JSONDecodeError) or not 0 <= error.pos < len(error.doc):
        return None
    found, place = error.doc[error.pos], {"line": error.lineno, "column": error.colno}
    if found < " " and found not in "\t\n\r":  # (JSON takes U+0000 to U+001F only escaped)
        return Reason(Refusal.JSON_CONTROL_CHARACTER, character=f"U+{ord(found):04X}", **place)
    if error.msg == "Extra data":
        return Reason(Refusal.JSON_MORE_AFTER, **place)
    return None


def json_reason(error: Exception) -> Reason | None:
    """The refusal of JSON that Python's reader could not read, or read and
    :func:`read_json` refused: nested too deeply for it, a number longer
    than its limit, a key given twice, a number JSON has not; None for any
    other error (JSON that is not well-formed).

    >>> str(json_reason(RecursionError()))
    'the JSON is nested too deeply (lists and objects within each other)'
    >>> str(json_reason(ValueError("... set_int_max_str_digits() ...")))
    'a number has more than 4300 digits'
    """
    if isinstance(error, JsonRefusedError):
        return error.reason
    if isinstance(error, RecursionError):
        return Reason(Refusal.JSON_TOO_DEEP)
    if isinstance(error, ValueError) and "set_int_max_str_digits" in str(error):
        return Reason(Refusal.JSON_NUMBER_TOO_LONG, most=longest_whole())
    return None


def _typed(data: dict[str, Any], key: str, kind: type) -> Any:
    if key not in data:
        raise InvalidRecordError(Reason(Refusal.RECORD_FIELD_MISSING, key=key))
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidRecordError(Reason(Refusal.RECORD_FIELD_TYPE, key=key, kind=kind.__name__))
    return value
