"""Whole numbers in request text (query strings, headers): ASCII digits
only, so "²" or "١" is refused instead of reaching ``int()`` (which
``str.isdigit`` would let through).

>>> whole_number("42"), whole_number("²"), whole_number("-1"), whole_number(" 7")
(42, None, None, None)
"""

from __future__ import annotations

from terrace.whole import digits_value


def whole_number(text: str) -> int | None:
    """The number ``text`` spells in ASCII digits (at most 18), else None."""
    return digits_value(text, 18)
