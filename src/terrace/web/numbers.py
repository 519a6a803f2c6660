"""Whole numbers in the web API's query strings (``?step=``, ``?recent=``,
``?index=``), read as the command line reads its numbers
(:func:`terrace.whole.whole_text`): the ASCII digits 0-9, so "²" or "١" is
refused instead of reaching ``int()``, with a sign or spaces around taken
(a query's ``+1`` is " 1"; the command line's ``-n +3`` is 3).

>>> whole_number("42"), whole_number("²"), whole_number("-1"), whole_number(" 7"), whole_number("1e3")
(42, None, -1, 7, None)
"""

from __future__ import annotations

from terrace.whole import whole_text


def whole_number(text: str) -> int | None:
    """The number ``text`` writes (at most 18 digits), else None."""
    return whole_text(text, 18)
