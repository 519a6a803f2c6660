"""Charts of survey results, drawn with matplotlib (the optional extra
``terrace[charts]``).

``survey_chart`` draws one survey: its verdicts and how long the deals
took. ``win_rate_chart`` draws win rates per preset and player with their
Wilson 95% intervals as error bars.

>>> png = survey_chart("test", {"won": 3, "lost": 1, "unknown": 0}, [0.01, 0.2, 3.0, 0.5])
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from terrace.refusals import clip
from terrace.solver.extras import install_command
from terrace.solver.verdicts import valid_seconds

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

COLOURS = {"won": "#2e8b57", "lost": "#c83c32", "unknown": "#aaaaaa"}
PLAYER_COLOURS = {"perfect": "#2e5e8b", "fair": "#2e8b57", "greedy": "#d08a1e", "random": "#8a8a8a"}
TIME_BUCKETS = (0.01, 0.1, 1.0, 10.0, 100.0)
ImageFormat = Literal["png", "svg"]


class ChartsUnavailableError(RuntimeError):
    """matplotlib is not installed."""

    def __init__(self) -> None:
        super().__init__(f"charts need matplotlib, terrace's extra 'charts': {install_command('charts')}")


def charts_available() -> bool:
    """True when matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _new_figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ChartsUnavailableError() from None
    # A Figure made directly (not through pyplot) needs no GUI backend and
    # is safe to draw from worker threads.
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _image(figure: Figure, image_format: ImageFormat) -> bytes:
    from matplotlib import rc_context

    buffer = io.BytesIO()
    metadata = {"Software": None} if image_format == "png" else {"Date": None, "Creator": None}
    # SVG keeps its words as text (smaller, searchable, readable by tests).
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "terrace"}):
        figure.savefig(buffer, format=image_format, metadata=metadata)
    return buffer.getvalue()


def time_buckets(seconds: Sequence[float]) -> list[tuple[str, int]]:
    """How many deals took at most each bucket's time (the last bucket
    counts the rest). A time that is no finite number of seconds, at least
    0, is refused (NaN fell in the last bucket, a negative time in the
    first).

    >>> time_buckets([0.005, 0.5, 0.7, 50, 500])
    [('≤0.01 s', 1), ('≤0.1 s', 0), ('≤1 s', 2), ('≤10 s', 0), ('≤100 s', 1), ('>100 s', 1)]
    >>> time_buckets([0.5, float("nan")])
    Traceback (most recent call last):
    ValueError: time 2 of the deals is nan: a time is a finite number of seconds, at least 0
    """
    counts = [0] * (len(TIME_BUCKETS) + 1)
    for place, value in enumerate(seconds, 1):
        if not valid_seconds(value):
            raise ValueError(f"time {place} of the deals is {clip(repr(value))}: a time is a finite "
                             "number of seconds, at least 0")
        counts[bisect_left(TIME_BUCKETS, value)] += 1  # (the first limit at least the value)
    labels = [f"≤{limit:g} s" for limit in TIME_BUCKETS] + [f">{TIME_BUCKETS[-1]:g} s"]
    return list(zip(labels, counts, strict=True))


def survey_chart(
    title: str,
    counts: dict[str, int],
    seconds: Sequence[float],
    image_format: ImageFormat = "png",
) -> bytes:
    """One survey: deals won, lost and unknown, and seconds per deal."""
    figure = _new_figure(8, 3.4)
    verdict_axes, time_axes = figure.subplots(1, 2, width_ratios=(1, 1.6))
    figure.suptitle(title)
    names = ["won", "lost", "unknown"]
    values = [counts.get(name, 0) for name in names]
    total = sum(values) or 1
    bars = verdict_axes.bar(names, values, color=[COLOURS[n] for n in names])
    verdict_axes.bar_label(bars, labels=[f"{v}\n{100 * v / total:.1f}%" for v in values], padding=2)
    verdict_axes.set_ylabel("deals")
    verdict_axes.set_ylim(0, max([*values, 1]) * 1.3)
    verdict_axes.set_title("verdicts", fontsize="medium")
    buckets = time_buckets(seconds)
    time_bars = time_axes.bar([label for label, _ in buckets], [n for _, n in buckets], color="#2e5e8b")
    time_axes.bar_label(time_bars, padding=2)
    time_axes.set_ylim(0, max([*(n for _, n in buckets), 1]) * 1.2)
    time_axes.set_title("seconds per deal", fontsize="medium")
    time_axes.tick_params(axis="x", labelsize="small")
    for axes in (verdict_axes, time_axes):
        _count_ticks(axes)
    return _image(figure, image_format)


def _count_ticks(axes: Axes) -> None:
    """Whole numbers only on an axis of counts (a survey of 1 deal was
    drawn with ticks at 0.5 and 1.5 deals)."""
    from matplotlib.ticker import MaxNLocator

    axes.yaxis.set_major_locator(MaxNLocator(integer=True))


@dataclass(frozen=True, slots=True)
class RateBar:
    """One bar of a win-rate chart: a preset, a player and what was measured."""

    preset: str
    player: str
    rate: float
    low: float
    high: float
    deals: int


def win_rate_chart(title: str, bars: Sequence[RateBar], image_format: ImageFormat = "png") -> bytes:
    """Win rates per preset (groups) and player (bars) with their Wilson 95%
    intervals as error bars (no bars: a chart that says so).

    >>> svg = win_rate_chart("t", [RateBar("terrace", "perfect", 0.9, 0.85, 0.93, 200)], "svg")
    >>> b"<svg" in svg
    True
    """
    presets = list(dict.fromkeys(bar.preset for bar in bars))
    players = list(dict.fromkeys(bar.player for bar in bars))
    figure = _new_figure(max(6.0, 1.1 * len(presets) + 2), 4.2)
    axes = figure.subplots()
    width = 0.8 / max(1, len(players))
    for p_index, player in enumerate(players):
        mine = {bar.preset: bar for bar in bars if bar.player == player}
        xs = [i + (p_index - (len(players) - 1) / 2) * width for i, preset in enumerate(presets)
              if preset in mine]
        rows = [mine[preset] for preset in presets if preset in mine]
        rates = [100 * row.rate for row in rows]
        errors = [
            [max(0.0, 100 * (row.rate - row.low)) for row in rows],
            [max(0.0, 100 * (row.high - row.rate)) for row in rows],
        ]
        axes.bar(xs, rates, width, yerr=errors, capsize=3, label=player,
                 color=PLAYER_COLOURS.get(player, "#555555"))
    axes.set_xticks(range(len(presets)), presets, rotation=30, ha="right")
    axes.set_ylabel("win rate, % (Wilson 95% interval)")
    axes.set_ylim(0, 105)
    axes.set_title(title)
    axes.grid(axis="y", alpha=0.3)
    if not bars:  # (a legend of nothing made matplotlib warn)
        axes.text(0.5, 0.5, "no win rates to draw", transform=axes.transAxes, ha="center", va="center")
        return _image(figure, image_format)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small", title="player")
    return _image(figure, image_format)
