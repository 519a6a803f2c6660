"""The one check of every search budget: a budget that would never run
out (NaN, infinite, negative, not a number) or beyond the limits of
:mod:`terrace.limits` (a day, 10**12 positions), which the command line's
options take too, is refused with a :class:`BudgetError` before any
search starts (:func:`terrace.solver.solve`, the fair player's settings
and positions, the hints, the playouts, the surveys).

>>> check_budget(2)
2.0
>>> check_budget(float("nan"), "max_seconds")
Traceback (most recent call last):
...
terrace.solver.budget.BudgetError: max_seconds must be a number of seconds from 0 to 86400 (a day), not nan
>>> check_nodes(-1)
Traceback (most recent call last):
...
terrace.solver.budget.BudgetError: max_nodes must be a whole number from 0 to 1000000000000, not -1
"""

from __future__ import annotations

import math
import numbers

from terrace.errors import TerraceError
from terrace.limits import MAX_NODES, MAX_SECONDS
from terrace.refusals import quote
from terrace.whole import as_truth, as_whole


class BudgetError(TerraceError):
    """A budget (seconds, positions, a count of the fair player's settings)
    or a seed that is no number of its kind, or out of its range; or the
    fair player's settings that are no settings."""


def check_budget(seconds: object, name: str = "a time budget", *, positive: bool = False) -> float:
    """``seconds`` as a float if it is a usable budget, from 0 (above 0 when
    ``positive``) to :data:`MAX_SECONDS`; NaN, infinite, negative or longer
    budgets (and booleans, text, ...) are refused, naming ``name``."""
    # (any real number: numpy's int64 and float32 too, as the engine takes numpy's whole numbers)
    if as_truth(seconds) is not None or not isinstance(seconds, numbers.Real):
        raise BudgetError(f"{name} must be a number of seconds, not {quote(seconds)}")
    value = _as_float(seconds)
    if not (value > 0 if positive else value >= 0) or not value <= MAX_SECONDS:  # (NaN is neither)
        least = "above 0" if positive else "from 0"
        raise BudgetError(f"{name} must be a number of seconds {least} to {MAX_SECONDS:.0f} (a day),"
                          f" not {quote(seconds)}")
    return value


def check_deadline(deadline: object) -> float | None:
    """``deadline`` (a time of :func:`time.perf_counter`, or None: none) as a
    float; NaN, which no clock ever passes, and what is no number are
    refused (an infinite one is no deadline)."""
    if deadline is None:
        return None
    value = _as_float(deadline)
    if math.isnan(value):
        raise BudgetError(f"a deadline must be a time of time.perf_counter(), not {quote(deadline)}")
    return value


def _as_float(value: object) -> float:
    """``value`` as a float when it is a real number (not a truth value):
    infinite when it is a whole number beyond any float, NaN when it is no
    number at all."""
    if as_truth(value) is not None or not isinstance(value, numbers.Real):
        return math.nan
    try:
        return float(value)
    except OverflowError:  # a whole number beyond any float
        return -math.inf if value < 0 else math.inf


def check_count(value: object, name: str, low: int, high: int) -> int:
    """``value`` as a plain ``int`` if it is a whole number (of any integer
    type, not a ``bool``) from ``low`` to ``high``."""
    whole = as_whole(value)
    if whole is None or not low <= whole <= high:
        raise BudgetError(f"{name} must be a whole number from {low} to {high}, not {quote(value)}")
    return whole


def check_nodes(nodes: object, name: str = "max_nodes") -> int | None:
    """``nodes`` if it is None (no count), else it as a plain ``int`` if it is
    a whole number of positions from 0 to :data:`MAX_NODES` (of any integer
    type: numpy's int64)."""
    return None if nodes is None else check_count(nodes, name, 0, MAX_NODES)


def check_seed(seed: object) -> int:
    """``seed`` as a plain ``int`` if it is a whole number >= 0 (of any
    integer type), which fixes a player's random draws. ``random.Random``
    takes None, floats and text too, but None draws a new seed each time
    (six fair hints at one position gave five answers) and NaN is no key
    a hint asked again finds its work under."""
    whole = as_whole(seed)
    if whole is None or whole < 0:
        raise BudgetError(f"seed must be a whole number >= 0, not {quote(seed)}")
    return whole
