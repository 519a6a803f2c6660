"""The one check of every search budget: a budget that would never run out
(NaN, infinite, negative, not a number) is refused before any search starts.

>>> check_budget(2)
2.0
>>> check_budget(float("nan"), "max_seconds")
Traceback (most recent call last):
...
ValueError: max_seconds must be a finite number of seconds >= 0, not nan
>>> check_nodes(-1)
Traceback (most recent call last):
...
ValueError: max_nodes must be a whole number >= 0, not -1
"""

from __future__ import annotations

import math

from terrace.refusals import quote


def check_budget(seconds: float, name: str = "a time budget") -> float:
    """``seconds`` as a float if it is a usable budget; NaN, infinite or
    negative budgets (and booleans, text, ...) are refused, naming ``name``."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise ValueError(f"{name} must be a number of seconds, not {quote(seconds)}")
    try:
        value = float(seconds)
    except OverflowError:  # a whole number beyond any float: it would never run out
        raise ValueError(f"{name} must be a finite number of seconds >= 0, not one that large") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number of seconds >= 0, not {quote(seconds)}")
    return value


def check_nodes(nodes: int | None, name: str = "max_nodes") -> int | None:
    """``nodes`` if it is None (no count) or a whole number of positions >= 0."""
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 0):
        raise ValueError(f"{name} must be a whole number >= 0, not {quote(nodes)}")
    return nodes
