"""A backup copied over games.sqlite while the server runs: the page's
first read is refused with words that ask for a new start of Terrace, and
it says so once, with Try again for after that start, instead of asking
again every few seconds (a read no retry can mend) under "trying again".

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from browser_support import Api, until
from web_support import started_server

pytestmark = pytest.mark.browser

WORDS = {
    "en-GB": ("another program wrote over it while in use (a backup copied in?); stop Terrace and "
              "start it again to open it as it is now",
              "Once Terrace has started again, press Try again."),
    "de-DE": ("bitte Terrace beenden und neu starten",
              "Sobald Terrace neu gestartet ist, „Noch einmal versuchen“ drücken."),
}


@pytest.mark.parametrize(("locale", "named"), [("en-GB", True), ("de-DE", False)])
def test_a_read_only_a_new_start_mends_is_not_tried_again(
        browser: Any, tmp_path: Path, locale: str, named: bool) -> None:
    """``named``: the address names the game (?game=), read first; else
    the server's current game is."""
    db = tmp_path / "games.sqlite"
    with started_server("--db", str(db)) as server:
        api = Api(server.url)
        try:
            first = api.new(variant="terrace", deal_number=1)["id"]
            shutil.copy(db, tmp_path / "backup.sqlite")
            for number in range(12):  # (the log folded in, as a long session does)
                api.new(variant="terrace", deal_number=number + 2)
            shutil.copyfile(tmp_path / "backup.sqlite", db)
            read = api.client.get("/api/games/current")
            assert read.status_code == 503 and read.json()["restart"] is True, read.text
        finally:
            api.client.close()
        context = browser.new_context(viewport={"width": 1280, "height": 860}, locale=locale)
        try:
            page = context.new_page()
            read_path = f"/api/games/{first}" if named else "/api/current-game"
            requested: list[str] = []
            page.on("request", lambda r: requested.append(r.url))
            page.clock.install()  # (the page's timers: run 8 s ahead at once below)
            page.goto(f"{server.url}?game={first}" if named else server.url)
            page.wait_for_selector("#offline:not([hidden])", timeout=5000)
            words, after = WORDS[locale]
            why = page.locator("#offline-why").inner_text()
            assert words in why and why.endswith(after), why
            assert page.locator("#offline-retry").is_visible()
            page.clock.run_for(8_000)  # (the old page asked again after 1 s, then 2 s, then 4 s)
            page.evaluate("fetch('/favicon.svg')")  # (the requests asked before it are seen before it)
            until(lambda: page.evaluate("true") and f"{server.url}favicon.svg" in requested)
            reads = [url for url in requested if url.endswith(read_path)]
            assert len(reads) == 1, reads
        finally:
            context.close()
    # (after a new start the backup is read, with no such mark)
    with started_server("--db", str(db)) as again:
        fine = httpx.get(f"{again.url}api/games?recent=20", trust_env=False, timeout=30)
        assert fine.status_code == 200 and "restart" not in fine.json(), fine.text


def test_a_new_game_the_database_refuses_at_load_is_said_not_taken_for_no_server(
        browser: Any, tmp_path: Path) -> None:
    """No game in play, so the page starts one, and the database (another
    file moved in its place) refuses it: the page said "The page cannot
    reach the server: is terrace play still running?" of a server that
    had answered."""
    db = tmp_path / "games.sqlite"
    with started_server("--db", str(db)) as server:
        shutil.copy(db, tmp_path / "copy.sqlite")
        (tmp_path / "copy.sqlite").replace(db)
        context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-GB")
        try:
            page = context.new_page()
            page.goto(server.url)
            page.wait_for_selector("body[data-ready='true']")
            assert page.locator("#offline").is_visible()
            assert not page.locator("#offline-text").is_visible()
            why = page.locator("#offline-why").inner_text()
            assert why.startswith("The new game was not saved: another program wrote over games.sqlite"), why
            assert why.endswith("Once Terrace has started again, press Try again."), why
        finally:
            context.close()
