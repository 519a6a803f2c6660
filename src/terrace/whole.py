"""Whole numbers as the public API takes them: a Python ``int`` or any
integer type that says it is one (``operator.index``: numpy's ``int64``,
for example), never a ``bool``, and always kept as a plain ``int``; and
whole numbers as text from outside spells them, the one place that reads
them (``int()`` and ``\\d`` also take "٨" or "８", ``int()`` "1_000"):
as a person writes one (:func:`whole_text`: the command line's numbers
and the web API's query numbers alike, a sign and spaces around taken),
or as a file's or a protocol's field holds one (:func:`digits_value`:
the ASCII digits 0-9 alone); and truth values (:func:`as_truth`).

>>> import numpy as np  # doctest: +SKIP
>>> as_whole(3), as_whole(True), as_whole(2.0), as_whole("3")
(3, None, None, None)
>>> digits_value("8786"), digits_value("٨٧٨٦"), digits_value("８"), digits_value("1_0"), digits_value(" 7")
(8786, None, None, None, None)
>>> whole_text("+3"), whole_text(" 7 "), whole_text("-2"), whole_text("1e3"), whole_text("0x10")
(3, 7, -2, None, None)
"""

from __future__ import annotations

import operator
import re
import sys

MAX_DIGITS = 40
"""The most digits a number written as text may have (a deal number has
at most 19; ``int()`` refuses more than 4,300 with its own words)."""

_WRITTEN = re.compile(r"[ \t]*+([+-]?)([0-9]++)[ \t]*+")
"""A whole number as a person writes one: a sign or none, the ASCII
digits, spaces or tabs around (possessive: no backtracking, whatever the
text)."""


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


def whole_text(text: object, most: int = MAX_DIGITS) -> int | None:
    """The whole number ``text`` writes as a person writes one (see
    :func:`written_whole`) with at most ``most`` digits, leading zeros
    aside; else None. The command line's numbers (``-n +3``) and the web
    API's query numbers (``?step=+1``, whose ``+`` a query reads as a
    space) are read by it alike: ``1e3``, ``0x10``, ``1_000``, ``٣``,
    ``nan`` or ``inf`` by neither."""
    found = _WRITTEN.fullmatch(text) if isinstance(text, str) and text.isascii() else None
    if found is None or len(found[2].lstrip("0")) > most:
        return None
    return int(found[1] + found[2])


def written_whole(text: object) -> bool:
    """Whether ``text`` writes a whole number as :func:`whole_text` reads
    one, however many digits it has (more than it reads is "too large",
    not "no number").

    >>> written_whole("9" * 50), written_whole("1.0")
    (True, False)
    """
    return isinstance(text, str) and text.isascii() and _WRITTEN.fullmatch(text) is not None


def longest_whole() -> int:
    """The most digits a whole number read from text may have where every
    digit counts (a request's JSON, a deal number on the command line):
    as many as Python's ``int()`` reads (4,300 unless changed), a million
    when that limit is lifted."""
    return sys.get_int_max_str_digits() or 10**6
