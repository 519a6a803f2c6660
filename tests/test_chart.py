"""Survey charts: real images from matplotlib, or a clear message without it."""

from __future__ import annotations

import builtins
import sys
from typing import Any

import pytest

from terrace.solver import chart
from terrace.solver.chart import RateBar, win_rate_chart
from terrace.solver.tally import wilson_interval


def test_survey_chart_is_a_png_with_the_title_drawn() -> None:
    png = chart.survey_chart("Terrace 1-10", {"won": 7, "lost": 2, "unknown": 1}, [0.1] * 10)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) > 5_000  # a real drawing, not an empty canvas


def test_win_rate_chart_svg_names_every_preset_and_player() -> None:
    bars = [
        chart.RateBar("terrace", "perfect", 0.95, 0.93, 0.96, 1000),
        chart.RateBar("terrace", "fair", 0.6, 0.57, 0.63, 1000),
        chart.RateBar("wood", "greedy", 0.1, 0.05, 0.2, 100),
    ]
    svg = chart.win_rate_chart("Win rates", bars, "svg").decode()
    for word in ("terrace", "wood", "perfect", "fair", "greedy", "Win rates"):
        assert word in svg


def test_time_buckets_count_every_deal_once() -> None:
    seconds = [0.001, 0.05, 0.05, 2.0, 99.0, 1000.0]
    buckets = chart.time_buckets(seconds)
    assert sum(n for _, n in buckets) == len(seconds)


def test_a_clear_message_without_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert not chart.charts_available()
    with pytest.raises(chart.ChartsUnavailableError) as refused:
        chart.survey_chart("t", {"won": 1}, [0.1])
    # this Python's pip and the pinned matplotlib, not PyPI's unrelated "terrace"
    assert f"{sys.executable} -m pip install matplotlib==" in str(refused.value)
    assert "terrace[" not in str(refused.value)


def test_a_rate_of_nothing_draws_its_interval() -> None:
    # the Wilson interval of 0 wins can end a hair above 0 in floating point
    low, high = wilson_interval(0, 1000)
    bars = [RateBar("terrace", "random", 0.0, low + 1e-17, high, 1000),
            RateBar("terrace", "greedy", 1.0, 0.99, 1.0 - 1e-17, 1000)]
    assert win_rate_chart("t", bars, "svg").startswith(b"<?xml")


def test_a_win_rate_chart_of_no_rates_says_so_without_a_warning() -> None:
    """``bench/players.py --chart`` with rates of too few deals (or none):
    matplotlib warned "No artists with labels found to put in legend" and
    the chart was an empty frame with an empty legend."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        svg = win_rate_chart("Win rates", [], "svg").decode()
        one = win_rate_chart("Win rates", [RateBar("wood", "fair", 1.0, 0.21, 1.0, 1)], "svg").decode()
    assert "no win rates to draw" in svg
    assert "wood" in one and "fair" in one and "no win rates" not in one


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), -0.5, True, "3"])
def test_a_time_that_is_no_number_of_seconds_is_refused(bad: Any) -> None:
    """NaN and infinity were counted as deals over 100 s, a negative time
    as one of at most 0.01 s: a chart drawn from them showed deals that
    took no such time."""
    with pytest.raises(ValueError, match="a time is a finite number of seconds, at least 0"):
        chart.time_buckets([0.5, bad])
    assert chart.time_buckets([0.0, 0.5])[0] == ("≤0.01 s", 1)


def test_the_install_command_of_an_extra_when_terrace_is_only_imported_from_its_folder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without terrace's metadata (PYTHONPATH=src) there are no pins to name:
    the command is the editable install from terrace's folder."""
    import importlib.metadata

    from terrace.solver import extras

    def no_metadata(name: str) -> list[str]:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "requires", no_metadata)
    assert extras.install_command("charts") == "pip install -e '.[charts]' in terrace's folder"
    assert extras.extra_requirements("charts") == []


def test_a_time_of_exactly_a_buckets_limit_falls_in_that_bucket() -> None:
    """A survey counts a deal decided under a larger budget as taking
    exactly its own budget (``verdicts.at_budget``): with --max-seconds 10
    those deals took 10.0 s, which the bar '≤10 s' holds, not '≤100 s'."""
    from math import nextafter

    limits = list(chart.TIME_BUCKETS)
    assert [n for _, n in chart.time_buckets(limits)] == [1, 1, 1, 1, 1, 0]
    above = [nextafter(limit, 1e9) for limit in limits]
    assert [n for _, n in chart.time_buckets(above)] == [0, 1, 1, 1, 1, 1]


def test_a_survey_chart_labels_each_verdict_with_its_share_of_all_deals() -> None:
    """Each verdict's bar says its count and its share of all the deals
    surveyed, unknown ones included (3 won of 8 is 37.5%)."""
    import re

    svg = chart.survey_chart("t", {"won": 3, "lost": 1, "unknown": 4}, [0.1] * 8, "svg").decode()
    assert re.findall(r">([0-9.]+%)<", svg) == ["37.5%", "12.5%", "50.0%"]


def test_a_win_rate_bar_stands_at_its_preset_and_reaches_from_its_low_end_to_its_high_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The bars matplotlib is asked for: each player's beside the other's
    over its preset, as high as the rate, the error bar from the interval's
    low end (below) to its high end (above), in percent."""
    from matplotlib.axes import Axes

    drawn: list[tuple[list[float], list[float], float, Any]] = []
    real_bar = Axes.bar

    def bar(self: Axes, x: Any, height: Any, width: Any, **extra: Any) -> Any:
        drawn.append((list(x), list(height), width, extra["yerr"]))
        return real_bar(self, x, height, width, **extra)

    monkeypatch.setattr(Axes, "bar", bar)
    win_rate_chart("t", [RateBar("terrace", "perfect", 0.95, 0.93, 0.96, 1000),
                         RateBar("wood", "perfect", 0.5, 0.4, 0.55, 100),
                         RateBar("wood", "fair", 0.2, 0.1, 0.4, 100)], "svg")
    (x1, rates1, width1, (below1, above1)), (x2, rates2, width2, (below2, above2)) = drawn
    assert width1 == width2 == pytest.approx(0.4)
    assert x1 == pytest.approx([-0.2, 0.8]) and x2 == pytest.approx([1.2])
    assert rates1 == pytest.approx([95, 50]) and rates2 == pytest.approx([20])
    assert below1 == pytest.approx([2, 10]) and above1 == pytest.approx([1, 5])
    assert below2 == pytest.approx([10]) and above2 == pytest.approx([20])


@pytest.mark.parametrize("image_format", ["png", "svg"])
def test_the_same_chart_drawn_twice_is_the_same_file(image_format: chart.ImageFormat) -> None:
    """A chart says nothing of when or with what it was drawn (no date, no
    matplotlib version, no random ids in the SVG): drawn again from the same
    survey it is the same file, and a chart kept under version control
    changes only when its numbers do."""
    def draw() -> bytes:
        return chart.survey_chart("t", {"won": 3, "lost": 1, "unknown": 0}, [0.1] * 4, image_format)

    first = draw()
    assert draw() == first
    assert b"matplotlib.org" not in first  # (its "Software" or "Creator" line)


def test_every_player_is_drawn_and_each_preset_named_under_its_own_bars(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Presets keep the order they come in (not sorted: the names would
    stand under other presets' bars), and a fourth player is drawn too."""
    from matplotlib.axes import Axes

    bars: list[tuple[list[float], Any]] = []
    ticks: list[tuple[list[float], list[str]]] = []
    real_bar, real_ticks = Axes.bar, Axes.set_xticks

    def bar(self: Axes, x: Any, height: Any, *args: Any, **extra: Any) -> Any:
        bars.append((list(x), extra["label"]))
        return real_bar(self, x, height, *args, **extra)

    def set_xticks(self: Axes, places: Any, labels: Any = None, **extra: Any) -> Any:
        ticks.append((list(places), list(labels)))
        return real_ticks(self, places, labels, **extra)

    monkeypatch.setattr(Axes, "bar", bar)
    monkeypatch.setattr(Axes, "set_xticks", set_xticks)
    players = ["perfect", "fair", "greedy", "random"]
    win_rate_chart("t", [RateBar(preset, player, 0.5, 0.4, 0.6, 100)
                         for preset in ("wood", "terrace") for player in players], "svg")
    assert ticks == [([0, 1], ["wood", "terrace"])]
    assert [label for _, label in bars] == players
    assert [x for x, _ in bars] == [pytest.approx([-0.3, 0.7]), pytest.approx([-0.1, 0.9]),
                                    pytest.approx([0.1, 1.1]), pytest.approx([0.3, 1.3])]


def test_a_survey_chart_labels_its_time_bars_with_their_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.axes import Axes

    labelled: list[list[float]] = []
    real = Axes.bar_label

    def bar_label(self: Axes, container: Any, *args: Any, **extra: Any) -> Any:
        labelled.append([patch.get_height() for patch in container])
        return real(self, container, *args, **extra)

    monkeypatch.setattr(Axes, "bar_label", bar_label)
    chart.survey_chart("t", {"won": 3, "lost": 1, "unknown": 0}, [0.05, 0.05, 2.0, 500.0], "svg")
    assert labelled == [[3, 1, 0], [0, 2, 0, 1, 0, 1]]


def test_a_survey_charts_deal_counts_are_ticked_in_whole_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A survey of one deal was drawn with ticks of 0.2 to 1.2 deals on
    both axes of counts; a count is a whole number."""
    drawn: list[Any] = []
    monkeypatch.setattr(chart, "_image", lambda figure, image_format: drawn.append(figure) or b"")
    chart.survey_chart("t", {"won": 1}, [0.5])
    (figure,) = drawn
    for axes in figure.axes:
        ticks = [tick for tick in axes.get_yticks() if 0 <= tick <= axes.get_ylim()[1]]
        assert len(ticks) >= 2 and all(tick == int(tick) for tick in ticks), ticks


def test_charts_are_available_where_matplotlib_is() -> None:
    """(terrace survey --out drew no chart, and said matplotlib was missing,
    had this said False.)"""
    import importlib.util

    assert chart.charts_available() == (importlib.util.find_spec("matplotlib") is not None)
    assert chart.charts_available()  # (the test environment has the extra 'charts')


class _Counted(float):
    """A time that counts the comparisons made of it."""

    made = 0

    def __lt__(self, other: object) -> bool:
        _Counted.made += 1
        return float(self) < other  # type: ignore[operator]

    def __gt__(self, other: object) -> bool:
        _Counted.made += 1
        return float(self) > other  # type: ignore[operator]

    def __le__(self, other: object) -> bool:
        _Counted.made += 1
        return float(self) <= other  # type: ignore[operator]

    def __ge__(self, other: object) -> bool:
        _Counted.made += 1
        return float(self) >= other  # type: ignore[operator]


def test_the_times_of_a_large_survey_are_bucketed_and_summarised_without_waste() -> None:
    """A million-deal survey's report: each time was compared with the
    buckets' limits one after another (up to six comparisons each: 1.1 CPU
    s for 10^6 times, 0.4 now, by bisection), and its times were sorted
    once for each of the three percentiles (1.0 CPU s, 0.5 now: once);
    counted here in comparisons of 1,000 times between 0 and 50 s."""
    import random

    from terrace.solver.chart import time_buckets
    from terrace.solver.tally import summarise
    from terrace.solver.verdicts import Verdict

    chance = random.Random(5)
    times = [_Counted(50 * chance.random()) for _ in range(1000)]
    _Counted.made = 0
    buckets = time_buckets(times)
    assert sum(count for _, count in buckets) == 1000
    assert _Counted.made <= 4.5 * 1000, _Counted.made  # (its check and about three to bisect; was six)
    verdicts = {number: Verdict("won", 1, seconds, 60.0) for number, seconds in enumerate(times)}
    _Counted.made = 0
    sorted(times)
    one_sort = _Counted.made
    _Counted.made = 0
    summarise(verdicts)
    assert _Counted.made <= 1.2 * one_sort, (_Counted.made, one_sort)
