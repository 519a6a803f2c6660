"""Moves as value objects with a compact text notation.

========  ===========================================================
``c2``    choose candidate 2 as the base card (pick variants)
``s``     draw a card from the stock to the waste (or redeal)
``wf``    waste card to any foundation that accepts it
``rf3``   reserve (terrace) card to foundation 3
``t2t5``  top card of pile 2 onto pile 5
``f4t1``  top card of foundation 4 back to pile 1 (foundation-return)
========  ===========================================================

>>> Move.parse("t2t5")
Move.parse('t2t5')
>>> str(Move.parse("WF"))
'wf'
>>> Move.parse("t0f")
Traceback (most recent call last):
...
terrace.errors.InvalidMoveError: 't0f' is not a move: piles and foundations are numbered from 1
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from terrace.errors import InvalidMoveError
from terrace.refusals import Reason, Refusal, clip, quote
from terrace.symbols import SPACES as ASCII_SPACES
from terrace.whole import as_whole

CHOOSE = "c"
DRAW = "s"
RESERVE = "r"
WASTE = "w"
TABLEAU = "t"
FOUNDATION = "f"

# The largest number a move can carry: no rules value has piles,
# foundations or candidates numbered beyond it, and a longer number is no
# move. The notation reads ASCII digits only, at most as many as it has,
# and no leading zero: each move has one text (``t1f``, never ``t01f``).
MAX_INDEX = 999_999
_DIGITS = len(str(MAX_INDEX))
MAX_MOVE_TEXT = 2 * (2 + _DIGITS)
"""The longest text a move can have (``t999999t999999``)."""
MAX_MOVES = 100_000
"""The most moves one list of moves may hold (a ``--moves`` text, a game
record, a saved game's line): far beyond any game played, short enough to
read and replay in a few seconds."""

SPACES = ASCII_SPACES
"""The white space around a card, a rank or a move, between the moves of a
text and between the fields of a position string: ASCII only. Another Unicode space (U+00A0,
U+3000, U+2028) is no separator but part of a word, so that a move list or
a position reads the same in every program."""

SEPARATORS = SPACES + ","
"""What separates the moves of a list given as one text (``--moves``)."""

_PATTERN = re.compile(
    rf"c(?P<choice>[0-9]{{1,{_DIGITS}}})|s"
    rf"|(?P<src>r|w|t[0-9]{{1,{_DIGITS}}}|f[0-9]{{1,{_DIGITS}}})(?P<dst>f[0-9]{{0,{_DIGITS}}}|t[0-9]{{1,{_DIGITS}}})"
)


@dataclass(frozen=True, slots=True)
class Move:
    """One move. ``source`` is ``'c'`` (choose), ``'s'`` (draw), ``'r'``,
    ``'w'``, ``'t'`` or ``'f'``; ``target`` is ``''``, ``'t'`` or ``'f'``.
    Indexes are 1-based; ``target_index == 0`` with target ``'f'`` means any
    foundation that accepts the card."""

    source: str
    source_index: int = 0
    target: str = ""
    target_index: int = 0

    def __post_init__(self) -> None:
        if type(self.source_index) is not int or type(self.target_index) is not int:
            for name in ("source_index", "target_index"):  # (numpy's int64 kept as an int)
                whole = as_whole(getattr(self, name))
                if whole is not None:
                    object.__setattr__(self, name, whole)
        problem = _problem(self.source, self.source_index, self.target, self.target_index)
        if problem is not None:
            raise InvalidMoveError(Reason(Refusal.MOVE_MALFORMED, problem=problem))

    @staticmethod
    def parse(text: str) -> Move:
        """Read a move in the notation above (case and spaces ignored)."""
        if not isinstance(text, str):
            raise InvalidMoveError(Reason(Refusal.MOVE_NOT_TEXT, value=quote(text)))
        shown = text.strip(SPACES)
        if len(shown) > MAX_MOVE_TEXT:  # (never lower-cased or cached whole)
            raise _unreadable(as_written(shown), Reason(Refusal.MOVE_SYNTAX))
        return _parse(shown.lower(), shown)

    @staticmethod
    def choose(index: int) -> Move:
        """Choose candidate ``index`` (1-based)."""
        return Move(CHOOSE, index)

    @staticmethod
    def draw() -> Move:
        """Draw from the stock."""
        return DRAW_MOVE

    @property
    def is_choice(self) -> bool:
        """True for ``c<i>``."""
        return self.source == CHOOSE

    @property
    def is_draw(self) -> bool:
        """True for ``s``."""
        return self.source == DRAW

    @property
    def to_foundation(self) -> bool:
        """True when the card goes to a foundation."""
        return self.target == FOUNDATION

    def __str__(self) -> str:
        if self.source == CHOOSE:
            return f"c{self.source_index}"
        if self.source == DRAW:
            return "s"
        return _place(self.source, self.source_index) + _place(self.target, self.target_index)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def _problem(source: object, source_index: object, target: object, target_index: object) -> Reason | None:
    """Why these fields make no move, or None when they do."""
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in (source_index, target_index)):
        return Reason(Refusal.MOVE_INDEX_NOT_WHOLE)
    assert isinstance(source_index, int) and isinstance(target_index, int)
    if max(source_index, target_index) > MAX_INDEX:
        return Reason(Refusal.MOVE_NUMBER_TOO_LARGE, largest=MAX_INDEX)
    if source in (CHOOSE, DRAW):
        if target != "" or target_index != 0:
            return Reason(Refusal.MOVE_NO_TARGET)
        if source == CHOOSE and source_index < 1:
            return Reason(Refusal.MOVE_CANDIDATE_FROM_ONE)
        if source == DRAW and source_index != 0:
            return Reason(Refusal.MOVE_DRAW_NO_INDEX)
        return None
    if source not in (RESERVE, WASTE, TABLEAU, FOUNDATION):
        return Reason(Refusal.MOVE_UNKNOWN_SOURCE, source=quote(source))
    if target not in (TABLEAU, FOUNDATION):
        return Reason(Refusal.MOVE_UNKNOWN_TARGET, target=quote(target))
    if source in (RESERVE, WASTE) and source_index != 0:
        return Reason(Refusal.MOVE_PLACE_NO_INDEX)
    if source in (TABLEAU, FOUNDATION) and source_index < 1:
        return Reason(Refusal.MOVE_NUMBERED_FROM_ONE)
    if target_index < 0 or (target == TABLEAU and target_index < 1):
        return Reason(Refusal.MOVE_NUMBERED_FROM_ONE)
    return _pair_problem(str(source), source_index, str(target), target_index)


def _pair_problem(source: str, source_index: int, target: str, target_index: int) -> Reason | None:
    """Why a source and a target make no move together (both checks of
    :class:`Move` and :meth:`Move.parse` use it)."""
    if source == FOUNDATION and target == FOUNDATION:
        return Reason(Refusal.MOVE_FOUNDATION_TO_FOUNDATION)
    if source == TABLEAU and target == TABLEAU and source_index == target_index:
        return Reason(Refusal.MOVE_OWN_PILE)
    return None


def _place(area: str, index: int) -> str:
    return area + (str(index) if index else "")


DRAW_MOVE = Move(DRAW)


def given_move(move: object, method: str) -> Move:
    """``move`` when it is a :class:`Move`; else a :class:`TypeError` that
    says what to pass to the board's ``method`` (text goes through
    :meth:`Move.parse`)."""
    if not isinstance(move, Move):
        text = "board.push_text('c1') or " if method == "push" else ""
        raise TypeError(f"{method} takes a Move, not {type(move).__name__}:"
                        f" use {text}board.{method}(Move.parse('c1'))")
    return move


@lru_cache(maxsize=4096)
def _parse(text: str, shown: str) -> Move:
    """``text`` (lower case) as a move; errors quote ``shown``, as it was given."""
    match = _PATTERN.fullmatch(text)
    if match is None:
        raise _unreadable(shown, Reason(Refusal.MOVE_SYNTAX))
    # (the example is this move written so, not another's; a number that is
    # all zeros has no such writing: it is refused as numbered from 1 below)
    if _LEADING_ZERO.search(text) and not _ZERO_NUMBER.search(text):
        raise _unreadable(shown, Reason(Refusal.MOVE_LEADING_ZERO, written=clip(_ZEROS.sub("", text)),
                                        given=clip(text)))
    if match["choice"] is not None:
        index = int(match["choice"])
        if index < 1:
            raise _unreadable(shown, Reason(Refusal.MOVE_CANDIDATE_FROM_ONE))
        return Move(CHOOSE, index)
    if match["src"] is None:
        return DRAW_MOVE
    src, dst = match["src"], match["dst"]
    source_index = int(src[1:]) if len(src) > 1 else 0
    target_index = int(dst[1:]) if len(dst) > 1 else 0
    if (src[0] in "tf" and source_index < 1) or (len(dst) > 1 and target_index < 1):
        raise _unreadable(shown, Reason(Refusal.MOVE_NUMBERED_FROM_ONE))
    problem = _pair_problem(src[0], source_index, dst[0], target_index)
    if problem is not None:
        raise _unreadable(shown, problem)
    return Move(src[0], source_index, dst[0], target_index)


_LEADING_ZERO = re.compile(r"(?<![0-9])0[0-9]")
"""A number of a move written with a leading zero (``t01f``)."""
_ZEROS = re.compile(r"(?<![0-9])0+(?=[0-9])")
"""The leading zeros of a move's numbers (``c001`` is ``c1`` without them)."""
_ZERO_NUMBER = re.compile(r"(?<![0-9])0+(?![0-9])")
"""A number of a move that is zero however written (``c00``)."""


def as_written(text: str) -> str:
    """A move's text as a refusal repeats it: spaces around aside, and cut
    after :data:`MAX_MOVE_TEXT` characters, the longest a move has (the
    web API repeated no text longer, the command line and a record up to
    200 characters: a secret pasted as a move was said back).

    >>> as_written(" C2 "), as_written("k" * 40)
    ('C2', 'kkkkkkkkkkkkkkkk…')
    """
    shown = text.strip(SPACES)
    return shown if len(shown) <= MAX_MOVE_TEXT else shown[:MAX_MOVE_TEXT] + "…"


def _unreadable(text: str, problem: Reason) -> InvalidMoveError:
    return InvalidMoveError(Reason(Refusal.MOVE_UNREADABLE, text=clip(text), problem=problem))


_WORD = re.compile(f"[^{re.escape(SEPARATORS)}]+")


def parse_moves(text: str) -> list[Move]:
    """Read moves separated by :data:`SEPARATORS` (ASCII spaces or
    commas), at most :data:`MAX_MOVES`.

    >>> [str(m) for m in parse_moves("c2 s, wf")]
    ['c2', 's', 'wf']
    """
    if not isinstance(text, str):
        raise InvalidMoveError(Reason(Refusal.MOVE_NOT_TEXT, value=quote(text)))
    moves: list[Move] = []
    for word in move_words(text):
        if len(moves) == MAX_MOVES:
            raise InvalidMoveError(too_many_moves())
        moves.append(Move.parse(word))
    return moves


def move_words(text: str) -> Iterator[str]:
    """The words of a move list given as one text, in order (each a move
    to read, or to refuse).

    >>> list(move_words(" c2,s\u00a0wf\t"))
    ['c2', 's\xa0wf']
    """
    for word in _WORD.finditer(text):
        yield word.group()


def too_many_moves() -> Reason:
    """Why a list of more than :data:`MAX_MOVES` moves is refused."""
    return Reason(Refusal.MOVES_TOO_MANY, most=MAX_MOVES)
