"""The statistics on the page against ``terrace stats``: the same numbers
read the same."""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api
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

    page = open_game(game, lambda p: p.route("**/api/stats", pinned))
    page.locator("#btn-stats").click()
    cell = page.locator("#dlg-stats[open] tr[data-variant='overall'] td[data-stat='fastest']")
    cell.wait_for()
    assert cell.inner_text() == format_duration(fastest)
