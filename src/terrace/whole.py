"""Whole numbers as the public API takes them: a Python ``int`` or any
integer type that says it is one (``operator.index``: numpy's ``int64``,
for example), never a ``bool``, and always kept as a plain ``int``; and
whole numbers as text from outside spells them: the ASCII digits 0-9
alone, the one place that reads them (``int()`` and ``\\d`` also take
"٨" or "８", ``int()`` "1_000" and spaces around); and truth values
(:func:`as_truth`).

>>> import numpy as np  # doctest: +SKIP
>>> as_whole(3), as_whole(True), as_whole(2.0), as_whole("3")
(3, None, None, None)
>>> digits_value("8786"), digits_value("٨٧٨٦"), digits_value("８"), digits_value("1_0"), digits_value(" 7")
(8786, None, None, None, None)
"""

from __future__ import annotations

import operator

MAX_DIGITS = 40
"""The most digits a number written as text may have (a deal number has
at most 19; ``int()`` refuses more than 4,300 with its own words)."""


def as_whole(value: object) -> int | None:
    """``value`` as an ``int`` when it is a whole number of any integer
    type (not a ``bool``), else None."""
    if isinstance(value, bool):
        return None
    if type(value) is int:
        return value
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def as_truth(value: object) -> bool | None:
    """``value`` as a ``bool`` when it is a truth value: a ``bool``, or
    numpy's (``numpy.bool_``, which is neither a ``bool`` nor an ``int``);
    else None (a number is no truth value).

    >>> as_truth(True), as_truth(1), as_truth("true")
    (True, None, None)
    """
    if isinstance(value, bool):
        return value
    kind = type(value)
    if kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"):  # (numpy 2 and 1 spell it so)
        return bool(value)
    return None


def digits_value(text: object, most: int = MAX_DIGITS) -> int | None:
    """The whole number ``text`` spells in the ASCII digits 0-9 alone (no
    sign, space, underscore or other script's digits), at most ``most`` of
    them; else None."""
    if isinstance(text, str) and 0 < len(text) <= most and text.isascii() and text.isdigit():
        return int(text)
    return None
