"""The statistics on the page against ``terrace stats``: the same numbers
read the same."""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import STATS, Api
from terrace.cli.storage import format_duration


@pytest.mark.parametrize("fastest", [59.7, 3725.9])
def test_the_page_shows_the_fastest_win_as_terrace_stats_prints_it(
    api: Api, open_game: Any, fastest: float
) -> None:
    """A fastest win of 59.7 s read 1:00 in the page's table, 0:59 on its
    win screen and 1:00 in ``terrace stats``; one of 3725.9 s read 62:06 in
    the table and 1:02:05 on the win screen. The statistics the page reads
    are pinned."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")

    def pinned(route: Any) -> None:
        data = route.fetch().json()
        data["overall"]["fastest_seconds"] = fastest
        route.fulfill(json=data)

    page = open_game(game, lambda p: p.route(STATS, pinned))
    page.locator("#btn-stats").click()
    cell = page.locator("#dlg-stats[open] tr[data-variant='overall'] td[data-stat='fastest']")
    cell.wait_for()
    assert cell.inner_text() == format_duration(fastest)


@pytest.mark.parametrize(("locale", "day_first"), [
    ("en-GB", r"(?P<d>\d{2})/(?P<m>\d{2})/(?P<y>\d{4}), \d{2}:\d{2}:\d{2}"),
    ("en-US", r"(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4}), \d{1,2}:\d{2}:\d{2} [AP]M"),
    ("de-DE", r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4}), \d{2}:\d{2}:\d{2}"),
])
def test_a_recent_game_s_date_is_written_as_the_browser_s_region_writes_it(
    api: Api, open_game: Any, locale: str, day_first: str
) -> None:
    """The recent games' dates were written for the page's language alone:
    a British browser read 12/6/2026, 4:37:33 AM for the 6th of December
    (the American order, which reads as the 12th of June there)."""
    import datetime
    import re

    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    page = open_game(game, locale=locale, timezone_id="UTC")
    page.locator("#btn-stats").click()
    page.wait_for_selector("#dlg-stats[open] ol.recent li")
    shown = page.locator("#dlg-stats ol.recent li .when").first.inner_text()
    found = re.fullmatch(day_first, shown)
    assert found, shown
    stored = api.client.get(f"/api/games/{game['id']}").json()["updated_at"]
    when = datetime.datetime.fromtimestamp(stored, datetime.UTC)
    assert (int(found["d"]), int(found["m"]), int(found["y"])) == (when.day, when.month, when.year)


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/St_Johns"])
def test_the_page_asks_for_the_chart_s_days_in_its_own_time_zone(api: Api, open_game: Any, zone: str) -> None:
    """The chart's days were the server's local days, while the recent
    games' times are the browser's: a game lost at 20:00 UTC read 05:00 of
    the next day in Tokyo and was charted on the day before. The page
    sends its time zone, and the server answers the days in it."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")
    answers: list[Any] = []

    def kept(route: Any) -> None:
        answer = route.fetch()
        answers.append((route.request.url, answer.json()))
        route.fulfill(response=answer)

    page = open_game(game, lambda p: p.route(STATS, kept), timezone_id=zone)
    page.locator("#btn-stats").click()
    page.wait_for_selector("#dlg-stats[open] ol.recent li")
    [(url, data)] = answers
    assert url.endswith("/api/stats?zone=" + zone.replace("/", "%2F"))
    assert data["zone"] == zone


@pytest.mark.parametrize(("locale", "played", "undos", "moves"), [
    ("en-GB", "10,000", "987,654", "12,345 moves"),
    ("de-DE", "10.000", "987.654", "12.345 Züge"),
])
def test_the_statistics_of_ten_thousand_games_group_their_thousands(
    api: Api, open_game: Any, locale: str, played: str, undos: str, moves: str
) -> None:
    """Ten thousand games read '10000' in the table, and 987654 undos
    '987654', beside a win rate written the language's way ('87,4 %'), and
    a game of 12345 moves '12345 Züge' in the recent list, where the
    server's own words group them ('1.000.000 Züge gespielt'). The
    statistics and the recent games the page reads are pinned."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")

    def pinned(route: Any) -> None:
        data = route.fetch().json()
        for block in (data["overall"], *data["variants"].values()):
            block.update(played=10_000, won=8_312, undos=987_654, win_rate=0.8312)
        route.fulfill(json=data)

    def recent(route: Any) -> None:
        data = route.fetch().json()
        data["games"][0]["moves"] = 12_345
        route.fulfill(json=data)

    def routes(page: Any) -> None:
        page.route(STATS, pinned)
        page.route("**/api/games?recent=*", recent)

    page = open_game(game, routes, locale=locale)
    page.locator("#btn-stats").click()
    row = page.locator("#dlg-stats[open] tr[data-variant='overall']")
    row.wait_for()
    assert row.locator("td[data-stat='played']").inner_text() == played
    assert row.locator("td[data-stat='undos']").inner_text() == undos
    assert moves in page.locator("#dlg-stats ol.recent li").first.inner_text()


@pytest.mark.parametrize("won", [0, 1])
def test_the_chart_shows_only_once_a_game_is_won_or_lost(api: Api, open_game: Any, won: int) -> None:
    """With no game won or lost yet the statistics showed a chart of an
    axis alone, 100 px of blank under the table; one win shows one bar.
    The statistics' days are pinned (and the recent games hold no game
    over, of which the chart would draw one bar each)."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")

    def pinned(route: Any) -> None:
        data = route.fetch().json()
        day = {"date": "2026-12-06", "won": won, "lost": 0, "abandoned": 0}
        data["overall"]["days"] = [day] if won else []
        route.fulfill(json=data)

    def recent(route: Any) -> None:
        data = route.fetch().json()
        data["games"] = [g for g in data["games"] if g["status"] not in ("won", "lost")]
        route.fulfill(json=data)

    def routes(page: Any) -> None:
        page.route(STATS, pinned)
        page.route("**/api/games?recent=*", recent)

    page = open_game(game, routes)
    page.locator("#btn-stats").click()
    dialog = page.locator("#dlg-stats[open]")
    dialog.locator("ol.recent").wait_for()
    assert dialog.locator("svg.chart").count() == won
    assert dialog.locator("svg.chart rect.won").count() == won
    assert "null" not in dialog.inner_text()


@pytest.mark.parametrize(("locale", "day"), [("en-GB", "5 Dec 2026: won 1,204, lost 52"),
                                            ("de-DE", "05.12.2026: gewonnen 1.204, verloren 52")])
def test_the_chart_s_days_are_heard_with_their_figures(api: Api, open_game: Any, locale: str,
                                                       day: str) -> None:
    """The chart was one image named 'Results over time, ...': a screen
    reader heard no day and no figure of it, which only a mouse's tooltips
    showed (and there as '2026-12-05: won 1204, lost 52'). Each day is an
    image named with its date and figures, as the page writes them."""
    game = api.play(api.new(variant="terrace", deal_number=5), "c1")

    def pinned(route: Any) -> None:
        data = route.fetch().json()
        data["overall"]["days"] = [{"date": "2026-12-05", "won": 1_204, "lost": 40, "abandoned": 12},
                                   {"date": "2026-12-06", "won": 3, "lost": 0, "abandoned": 0}]
        route.fulfill(json=data)

    page = open_game(game, lambda p: p.route(STATS, pinned), locale=locale)
    page.locator("#btn-stats").click()
    chart = page.locator("#dlg-stats[open] svg.chart")
    chart.wait_for()
    heard = chart.aria_snapshot()
    assert f'img "{day}"' in heard, heard
    assert heard.count("img ") == 2, heard


def test_the_game_on_the_table_is_said_so_not_offered_to_resume(api: Api, open_game: Any) -> None:
    """The recent games offered Resume for the game already on the table,
    which only closed the panel: that line says it is the current game (in
    German too, as the page speaks), level with the Replay beside it;
    another game in play keeps Resume."""
    api.play(api.new(variant="terrace", deal_number=4532), "c2")
    page = open_game(api.play(api.new(variant="terrace", deal_number=4533), "c2"), locale="de-DE")
    page.locator("#btn-stats").click()  # (not folded into the menu at 1280 px since d933448c)
    recent = page.locator("#dlg-stats[open] ol.recent")
    on_table = recent.locator("li", has_text="Spiel 4533 ·").first
    other = recent.locator("li", has_text="Spiel 4532 ·").first
    assert on_table.locator(".buttons").inner_text().split("\n") == ["dein aktuelles Spiel", "Nachspielen"]
    assert on_table.get_by_role("button", name="Weiterspielen").count() == 0
    assert other.get_by_role("button", name="Weiterspielen").count() == 1
    # (its words in the line of its Replay's: they sat 8 px above it, at the top of the row)
    middles = on_table.evaluate("""(line) => [line.querySelector('.current'), line.querySelector('button')]
      .map((node) => { const words = document.createRange(); words.selectNodeContents(node);
        const box = words.getBoundingClientRect(); return box.top + box.height / 2; })""")
    assert abs(middles[0] - middles[1]) <= 1, middles
