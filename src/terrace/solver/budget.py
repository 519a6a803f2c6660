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
import numbers

from terrace.refusals import quote
from terrace.whole import as_truth, as_whole


def check_budget(seconds: float, name: str = "a time budget") -> float:
    """``seconds`` as a float if it is a usable budget; NaN, infinite or
    negative budgets (and booleans, text, ...) are refused, naming ``name``."""
    # (any real number: numpy's int64 and float32 too, as the engine takes numpy's whole numbers)
    if as_truth(seconds) is not None or not isinstance(seconds, numbers.Real):
        raise ValueError(f"{name} must be a number of seconds, not {quote(seconds)}")
    try:
        value = float(seconds)
    except OverflowError:  # a whole number beyond any float: it would never run out
        raise ValueError(f"{name} must be a finite number of seconds >= 0, not one that large") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number of seconds >= 0, not {quote(seconds)}")
    return value


def check_nodes(nodes: int | None, name: str = "max_nodes") -> int | None:
    """``nodes`` if it is None (no count), else it as a plain ``int`` if it is
    a whole number of positions >= 0 (of any integer type: numpy's int64)."""
    if nodes is None:
        return None
    whole = as_whole(nodes)
    if whole is None or whole < 0:
        raise ValueError(f"{name} must be a whole number >= 0, not {quote(nodes)}")
    return whole


def check_seed(seed: object) -> int:
    """``seed`` as a plain ``int`` if it is a whole number >= 0 (of any
    integer type), which fixes a player's random draws. ``random.Random``
    takes None, floats and text too, but None draws a new seed each time
    (six fair hints at one position gave five answers) and NaN is no key
    a hint asked again finds its work under."""
    whole = as_whole(seed)
    if whole is None or whole < 0:
        raise ValueError(f"seed must be a whole number >= 0, not {quote(seed)}")
    return whole
