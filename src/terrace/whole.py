"""Whole numbers as the public API takes them: a Python ``int`` or any
integer type that says it is one (``operator.index``: numpy's ``int64``,
for example), never a ``bool``, and always kept as a plain ``int``.

>>> import numpy as np  # doctest: +SKIP
>>> as_whole(3), as_whole(True), as_whole(2.0), as_whole("3")
(3, None, None, None)
"""

from __future__ import annotations

import operator


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
