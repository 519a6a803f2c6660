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
from dataclasses import dataclass
from functools import lru_cache

from terrace.errors import InvalidMoveError

CHOOSE = "c"
DRAW = "s"
RESERVE = "r"
WASTE = "w"
TABLEAU = "t"
FOUNDATION = "f"

_PATTERN = re.compile(
    r"c(?P<choice>\d+)|s|(?P<src>r|w|t\d+|f\d+)(?P<dst>f\d*|t\d+)", re.ASCII
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
        problem = _problem(self.source, self.source_index, self.target, self.target_index)
        if problem:
            raise InvalidMoveError(f"not a move: {problem}")

    @staticmethod
    def parse(text: str) -> Move:
        """Read a move in the notation above (case and spaces ignored)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be text such as 'wf', not {text!r}")
        return _parse(text.strip().lower())

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


def _problem(source: object, source_index: object, target: object, target_index: object) -> str:
    """Why these fields make no move, or ``''`` when they do."""
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in (source_index, target_index)):
        return "indexes must be whole numbers"
    assert isinstance(source_index, int) and isinstance(target_index, int)
    if source in (CHOOSE, DRAW):
        if target != "" or target_index != 0:
            return "choosing and drawing have no target"
        if source == CHOOSE and source_index < 1:
            return "candidates are numbered from 1"
        if source == DRAW and source_index != 0:
            return "the draw has no index"
        return ""
    if source not in (RESERVE, WASTE, TABLEAU, FOUNDATION):
        return f"unknown source {source!r}"
    if target not in (TABLEAU, FOUNDATION):
        return f"unknown target {target!r}"
    if source in (RESERVE, WASTE) and source_index != 0:
        return "the reserve and the waste have no index"
    if source in (TABLEAU, FOUNDATION) and source_index < 1:
        return "piles and foundations are numbered from 1"
    if target_index < 0 or (target == TABLEAU and target_index < 1):
        return "piles and foundations are numbered from 1"
    if source == FOUNDATION and target == FOUNDATION:
        return "a foundation card cannot go to a foundation"
    if source == TABLEAU and target == TABLEAU and source_index == target_index:
        return "a card cannot move onto its own pile"
    return ""


def _place(area: str, index: int) -> str:
    return area + (str(index) if index else "")


DRAW_MOVE = Move(DRAW)


@lru_cache(maxsize=4096)
def _parse(text: str) -> Move:
    match = _PATTERN.fullmatch(text)
    if match is None:
        raise InvalidMoveError(
            f"{text!r} is not a move: write e.g. c1, s, wf, rf, t2t5, wt3 or t4f2"
        )
    if match["choice"] is not None:
        index = int(match["choice"])
        if index < 1:
            raise InvalidMoveError(f"{text!r} is not a move: candidates are numbered from 1")
        return Move(CHOOSE, index)
    if match["src"] is None:
        return DRAW_MOVE
    src, dst = match["src"], match["dst"]
    source_index = int(src[1:]) if len(src) > 1 else 0
    target_index = int(dst[1:]) if len(dst) > 1 else 0
    if (src[0] in "tf" and source_index < 1) or (len(dst) > 1 and target_index < 1):
        raise InvalidMoveError(
            f"{text!r} is not a move: piles and foundations are numbered from 1"
        )
    if src[0] == FOUNDATION and dst[0] == FOUNDATION:
        raise InvalidMoveError(f"{text!r} is not a move: a foundation card cannot go to a foundation")
    if src[0] == TABLEAU and dst[0] == TABLEAU and source_index == target_index:
        raise InvalidMoveError(f"{text!r} is not a move: a card cannot move onto its own pile")
    return Move(src[0], source_index, dst[0], target_index)


def parse_moves(text: str) -> list[Move]:
    """Read moves separated by spaces or commas.

    >>> [str(m) for m in parse_moves("c2 s, wf")]
    ['c2', 's', 'wf']
    """
    return [Move.parse(word) for word in text.replace(",", " ").split()]
