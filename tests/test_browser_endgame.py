"""Ending a game in a real browser (Debian's Chromium through Playwright):
auto-play with each setting, the win screen, undo after a win, giving up,
honest statistics after abandoned games, leaving a game in progress, a tab
left open catching up, and the timer pausing."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import (
    STATS,
    Api,
    indices_under,
    moves_seen,
    resize,
    settled,
    slow_animations,
    top,
    until,
)
from store_support import golden
from terrace.board import Board
from terrace.variants import get_rules, label_title
from test_browser_announcements import heard, listen
from test_browser_game import _click_move
from web_support import WINNING_LINE, running_server

pytestmark = pytest.mark.browser

LINE = WINNING_LINE
FINISH_AFTER = 232
"""After this many moves of the web test's winning line, foundation moves
alone are certain to win (checked below)."""
SAFE_DEAL = 39
"""Terrace deal whose first candidate leaves two base cards safe to put up."""


@pytest.fixture(scope="module")
def lost_game(api: Api) -> dict[str, Any]:
    """The golden lost game played to its end through the API, once for the
    tests of this file that only look at it (its 237 moves cost 2.5 s)."""
    record = golden("terrace-lost")
    game = api.new(variant=record.variant, options=record.rules.to_dict(), deal_number=record.deal.number)
    lost = api.play(game, *record.moves)
    assert lost["status"] == "lost"
    return lost


def line_board(moves: int) -> Board:
    board = Board.from_number(LINE["deal_number"], get_rules(LINE["variant"], **LINE["options"]))
    for text in LINE["moves"][:moves]:
        board.push_text(text)
    return board


def line_game(api: Api, moves: int) -> dict[str, Any]:
    game = api.new(variant=LINE["variant"], options=LINE["options"], deal_number=LINE["deal_number"])
    return api.play(game, *LINE["moves"][:moves]) if moves else game


def setting(page: Any, **choices: Any) -> None:
    """Change settings the way a player does, in the Settings dialog."""
    page.locator("#btn-settings").click()
    dialog = page.locator("#dlg-settings")
    if "autoplay" in choices:
        dialog.locator(f"#autoplay-{choices['autoplay']}").check()
    if "timer" in choices:
        dialog.locator("#set-timer").set_checked(choices["timer"])
    dialog.locator("button.close").click()


def moves_now(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.moves"))


def test_the_line_becomes_finishable_where_the_tests_expect() -> None:
    from terrace.solver import finish_line

    assert finish_line(line_board(FINISH_AFTER - 1)) is None
    assert finish_line(line_board(FINISH_AFTER)) is not None


# A card by name, as a screen reader hears it, in each language (i18n.js: cardName).
CARD_NAMES = {
    "en-GB": lambda rank, suit: f"{ {'A': 'ace', 'J': 'jack', 'Q': 'queen', 'K': 'king'}.get(rank, rank)} of "
                                f"{ {'S': 'spades', 'H': 'hearts', 'D': 'diamonds', 'C': 'clubs'}[suit]}",
    "de-DE": lambda rank, suit: f"{ {'S': 'Pik', 'H': 'Herz', 'D': 'Karo', 'C': 'Kreuz'}[suit]} "
                                f"{ {'A': 'Ass', 'J': 'Bube', 'Q': 'Dame', 'K': 'König'}.get(rank, rank)}",
}
# What auto-play of many cards to the foundations is heard as: their count,
# the first six by name, how many more.
HOME_SAID = {
    "en-GB": "{n} cards to the foundations: {names}, and {more} more.",
    "de-DE": "{n} Karten auf die Zielstapel: {names} und {more} weitere.",
}


def autoplay_heard(page: Any, locale: str, autoplayed: dict[str, Any]) -> None:
    """Auto-play's cards (``autoplayed``: its answer), more than six, all
    to the foundations, were heard in one message as HOME_SAID: a screen
    reader heard "18 cards moved" ("18 Karten bewegt") and no card."""
    cards = [motion["card"].replace("T", "10") for motion in autoplayed["motions"]]
    assert len(cards) > 6 and all(motion["to"][0] == "f" for motion in autoplayed["motions"])
    names = ", ".join(CARD_NAMES[locale](card[:-1], card[-1]) for card in cards[:6])
    said = HOME_SAID[locale].format(n=len(cards), names=names, more=len(cards) - 6)
    messages = heard(page)
    assert sum(said in message for message in messages) == 1, (said, messages)


def test_autoplay_finishes_the_game_and_the_win_screen_tells_all(api: Api, open_game: Any) -> None:
    game = line_game(api, FINISH_AFTER - 1)
    # the test process's server is shared: other tests may have won games on it before
    won_before = _wins(api, game["stats_key"])
    page = open_game(game)
    board = line_board(FINISH_AFTER - 1)
    listen(page)
    with page.expect_response(lambda r: r.url.endswith("/autoplay")) as autoplayed:
        _click_move(page, board, LINE["moves"][FINISH_AFTER - 1])  # the default: finish the game
    page.wait_for_selector("body[data-status='won']")
    autoplay_heard(page, "en-GB", autoplayed.value.json())
    assert page.locator("[data-counter='foundations'] .value").inner_text() == "104/104"
    page.wait_for_selector(".cascade", state="attached", timeout=8000)  # the celebration
    end = page.locator("dialog.end[open]")
    end.locator("[data-stat='best']").wait_for()
    text = end.inner_text()
    assert "You won" in text
    assert end.locator("[data-stat='moves'] dd").inner_text() == str(moves_now(page))
    for name in ("time", "hints", "undos", "streak"):
        assert end.locator(f"[data-stat='{name}'] dd").inner_text().strip()
    assert f"fewest moves {moves_now(page)}" in end.locator("[data-stat='best'] dd").inner_text()
    # the best of the rules played, which are not the preset's: named as the statistics name them
    assert game["stats_key"] != game["variant"]
    best_label = end.locator("[data-stat='best'] dt").inner_text()
    assert best_label == f"Your best in {label_title(game['stats_key'])}"
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["status"] == "won" and stored["moves"] == moves_now(page)
    stored = api.client.get(f"/api/games/{game['id']}/line").json()
    assert stored["moves"][:FINISH_AFTER] == LINE["moves"][:FINISH_AFTER]
    assert all(move.endswith("f") for move in stored["moves"][FINISH_AFTER:])
    # Undo after the win: the game goes on, the win stays in the statistics.
    end.get_by_role("button", name="Look at the board").click()
    won_moves = moves_now(page)
    page.locator("#btn-undo").click()
    moves_seen(page, won_moves - 1)
    assert page.evaluate("document.body.dataset.status") == "playing"
    page.locator("#btn-stats").click()
    row = page.locator("#dlg-stats tr[data-variant='overall']")
    row.wait_for()
    assert row.locator("[data-stat='won']").inner_text() == str(won_before[0] + 1)
    if game["stats_key"] != game["variant"]:  # rules of its own: a row of its own, titled
        own = page.locator(f"#dlg-stats tr[data-variant='{game['stats_key']}']")
        assert own.locator("th").inner_text() == label_title(game["stats_key"])
        assert own.locator("[data-stat='won']").inner_text() == str(won_before[1] + 1)


def _wins(api: Api, stats_key: str) -> tuple[int, int]:
    """Games won on the server so far: in all, and under ``stats_key``."""
    stats = api.client.get("/api/stats").json()
    return stats["overall"]["won"], stats["variants"].get(stats_key, {}).get("won", 0)


def test_autoplay_respects_reduced_motion(api: Api, open_game: Any) -> None:
    """(in German: the cards auto-play put up are heard in German)"""
    game = line_game(api, FINISH_AFTER - 1)
    page = open_game(game, reduced_motion="reduce", locale="de-DE")
    page.evaluate("window.ghosts = 0; new MutationObserver((m) => { window.ghosts += "
                  "document.querySelectorAll('.ghost.homeward, .cascade').length; })"
                  ".observe(document.body, {childList: true, subtree: true})")
    listen(page)
    with page.expect_response(lambda r: r.url.endswith("/autoplay")) as autoplayed:
        _click_move(page, line_board(FINISH_AFTER - 1), LINE["moves"][FINISH_AFTER - 1])
    page.wait_for_selector("body[data-status='won']")
    page.locator("dialog.end[open] [data-stat='best']").wait_for()
    assert page.evaluate("window.ghosts") == 0
    autoplay_heard(page, "de-DE", autoplayed.value.json())


def _quick_draws(page: Any, moves: int) -> float:
    """Milliseconds from the first to the last of five draws shown, after a
    sixth that starts them off: six quick clicks on the stock from ``moves``."""
    page.evaluate("window.shown = {}; new MutationObserver(() => {"
                  "window.shown[document.body.dataset.moves] = performance.now(); })"
                  ".observe(document.body, {attributes: true, attributeFilter: ['data-moves']})")
    # (six clicks at once, from the page itself: a player's quick taps, with
    # none of the test driver's own time between them)
    page.evaluate("for (let i = 0; i < 6; i++) document.querySelector(\"[data-pile='stock']\")"
                  ".dispatchEvent(new MouseEvent('click', {bubbles: true, detail: 1}))")
    moves_seen(page, moves + 6)
    shown = page.evaluate("window.shown")
    return float(shown[str(moves + 6)] - shown[str(moves + 1)])


def test_quick_draws_do_not_wait_for_an_autoplay_that_played_nothing(api: Api, open_game: Any) -> None:
    """Auto-play (on, with animations) after each draw plays nothing here:
    the next click need not wait the 230 ms a card takes to land. Measured
    against the same draws with auto-play off, so that the machine's speed
    does not matter: five draws took 1.07 to 1.12 s longer with auto-play on
    before (about 5 x 230 ms), and now 3 to 82 ms longer (the five auto-play
    requests). On a loaded machine one pair can differ by more than that
    for no fault of the page (816 against 138 ms in a CI run), so up to
    three pairs are measured: the fault makes every pair's difference at
    least five landings, and the smallest must be less than half that."""
    game = api.play(api.new(variant="admirals-patience", deal_number=12), "c1")
    page = open_game(game)
    moves, differences = 1, []
    while len(differences) < 3 and (not differences or min(differences) >= 5 * 230 / 2):
        setting(page, autoplay="off")
        off = _quick_draws(page, moves)
        setting(page, autoplay="finish")
        on = _quick_draws(page, moves + 6)
        moves += 12
        differences.append(on - off)
    assert min(differences) < 5 * 230 / 2, differences
    assert api.client.get(f"/api/games/{game['id']}/line").json()["moves"] == ["c1"] + ["s"] * (moves - 1)


def test_autoplay_settings(api: Api, open_game: Any) -> None:
    # "off": a finishable position stays as it is.
    page = open_game(line_game(api, FINISH_AFTER - 1))
    setting(page, autoplay="off")
    _click_move(page, line_board(FINISH_AFTER - 1), LINE["moves"][FINISH_AFTER - 1])
    moves_seen(page, FINISH_AFTER)
    settled(page)
    assert moves_now(page) == FINISH_AFTER and page.evaluate("document.body.dataset.status") == "playing"
    # "finish" (the default) plays nothing while the finish is not certain...
    page = open_game(api.new(variant="terrace", deal_number=SAFE_DEAL))
    assert page.locator("#autoplay-finish").count() == 0  # (settings are closed)
    setting(page, autoplay="finish")
    # (asked for, and it played nothing)
    with page.expect_response(lambda r: r.url.endswith("/autoplay")) as asked:
        top(page, "t1").click()
    assert asked.value.json()["autoplayed"] == []
    moves_seen(page, 1)
    settled(page)
    assert moves_now(page) == 1
    # ...and "safe moves too" puts up the two base cards the solver proves safe.
    page = open_game(api.new(variant="terrace", deal_number=SAFE_DEAL))
    setting(page, autoplay="safe")
    top(page, "t1").click()
    moves_seen(page, 3)
    stored = api.client.get(f"/api/games/{page.evaluate('document.body.dataset.game')}/line").json()
    assert stored["moves"] == ["c1", "rf", "rf"]
    assert json.loads(page.evaluate("JSON.stringify(localStorage.getItem('terrace.autoplay'))")) == "safe"
    page.locator("#btn-undo").click()  # each auto-played move is undone on its own
    moves_seen(page, 2)


def test_an_undo_while_auto_played_cards_fly_home_stops_them(api: Api, open_game: Any) -> None:
    """Ctrl+Z pressed while the cards auto-play put up still fly home (here
    slowed down): the board shows them back where they were, and they flew
    on to the foundations over it."""
    page = open_game(api.new(variant="terrace", deal_number=SAFE_DEAL))
    setting(page, autoplay="safe")
    slow_animations(page)
    top(page, "t1").click()
    moves_seen(page, 3)
    page.locator(".ghost.homeward").first.wait_for(state="attached")
    page.keyboard.press("Control+z")
    moves_seen(page, 2)
    assert page.locator(".ghost.homeward").count() == 0


def test_give_up_with_confirmation(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s")
    page = open_game(game)
    give_up = page.locator("#btn-giveup")
    give_up.click()
    confirm = page.locator("#dlg-confirm[open]")
    assert "count as lost" in confirm.inner_text()
    # The focus starts on the safe answer: a stray Enter keeps the game.
    assert page.evaluate("document.activeElement.id") == "confirm-no"
    page.keyboard.press("Enter")
    confirm.wait_for(state="detached")
    assert page.evaluate("document.body.dataset.status") == "playing"
    give_up.click()
    confirm.locator("#confirm-no").click()
    assert page.evaluate("document.body.dataset.status") == "playing"
    give_up.click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    page.wait_for_selector("body[data-status='lost']")
    assert "given up" in page.locator("dialog.end[open]").inner_text()
    assert give_up.is_disabled() and page.locator("#btn-undo").is_disabled()
    assert page.locator(".card.movable").count() == 0
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["given_up"] and stored["status"] == "lost"
    page.locator("dialog.end[open]").get_by_role("button", name="Look at the board").click()
    page.locator("#btn-stats").click()
    item = page.locator("#dlg-stats ol.recent li").first
    assert "given up" in item.inner_text()
    assert item.get_by_role("button", name="Resume").count() == 0
    item.get_by_role("button", name="Replay").click()
    page.locator("#replay-bar:not([hidden])").wait_for()


def test_a_proved_loss_offers_give_up_or_undo(api: Api, open_game: Any) -> None:
    record = golden("terrace-lost")
    game = api.new(variant=record.variant, options=record.rules.to_dict(), deal_number=record.deal.number)
    game = api.play(game, *record.moves[:-10])

    def peeking(page: Any) -> None:  # (the hint that may look at face-down cards: an assist)
        page.add_init_script("localStorage.setItem('terrace.assist.peek', 'on')")

    # A loss only the solver proves (one pack, one pile, a terrace of 5: deal 3) is its proof's.
    one_pile = {"decks": 1, "piles": 1, "candidates": 0, "reserve": 5}
    alone = api.new(variant="terrace", deal_number=3, options=one_pile)
    proved = open_game(alone, before_goto=peeking)
    proved.locator("#btn-hint").click()
    proved.locator("dialog.end.hopeless[open]", has_text="No winning line remains").wait_for(timeout=15000)
    # The golden game's terrace is dead 10 moves before its end: the peeking
    # hint gives that reason as the fair one does (it said the solver's).
    page = open_game(game, before_goto=peeking)
    page.locator("#btn-hint").click()
    end = page.locator("dialog.end.hopeless[open]")
    end.wait_for(timeout=15000)
    assert "The terrace is blocked for good" in end.inner_text()
    end.locator("#end-undo").click()
    moves_seen(page, len(record.moves) - 11)
    page.locator("#btn-hint").click()
    page.locator("dialog.end.hopeless[open] #end-giveup").click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    page.wait_for_selector("body[data-status='lost']")
    assert api.client.get(f"/api/games/{game['id']}").json()["given_up"]


def test_statistics_count_abandoned_games(browser: Any) -> None:
    """Six games: one won, five left for a new game after a move. The win
    rate is 1 in 6, not 100%."""
    with running_server() as url:
        api = Api(url)
        api.play(line_game(api, 0), *LINE["moves"])
        for number in range(2, 7):
            api.play(api.new(variant="terrace", deal_number=number), "c1")
        fresh = api.new(variant="terrace", deal_number=99)  # the five are now abandoned
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        page.goto(f"{url}?game={fresh['id']}")
        page.wait_for_selector("body[data-ready='true']")
        page.locator("#btn-stats").click()
        row = page.locator("#dlg-stats tr[data-variant='overall']")
        row.wait_for()
        cells = {key: row.locator(f"[data-stat='{key}']").inner_text()
                 for key in ("played", "won", "lost", "abandoned", "winRate")}
        assert cells == {"played": "6", "won": "1", "lost": "0", "abandoned": "5", "winRate": "16.7%"}
        # the five abandoned games came after the win: five losses in a row
        assert row.locator("[data-stat='losingStreak']").inner_text() == "5"
        assert row.locator("[data-stat='worstStreak']").inner_text() == "5"
        table = page.locator("#dlg-stats table.stats")
        wrap = page.locator("#dlg-stats .table-wrap")
        assert table.bounding_box()["width"] <= wrap.bounding_box()["width"] + 1  # nothing cut off
        page.set_viewport_size({"width": 390, "height": 844})
        # (the page hears of the resize a frame later, and folds the table then)
        page.locator("#dlg-stats table.stats.stacked").wait_for(state="attached")
        last = row.locator("[data-stat='undos']")
        box = last.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        context.close()
        api.client.close()


def test_the_page_never_rounds_a_win_rate_to_all_or_nothing(api: Api, open_game: Any) -> None:
    # (201 / 400 is 50.25%, which floating point holds just under: it read 50.2%)
    rates = {"terrace": 399 / 400, "wood": 1 / 400, "madame": 9999 / 10000, "thirteen": 1 / 100_000,
             "falling-star": 201 / 400}
    blocks = {name: {"played": 1, "win_rate": rate} for name, rate in rates.items()}
    body = json.dumps({"overall": {"played": 4, "win_rate": 1.0, "days": []}, "variants": blocks})

    def fake_stats(page: Any) -> None:
        page.route(STATS, lambda route: route.fulfill(
            status=200, content_type="application/json", body=body))

    page = open_game(api.new(variant="terrace", deal_number=7), before_goto=fake_stats)
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats tr[data-variant='thirteen']").wait_for()
    shown = {name: page.locator(f"#dlg-stats tr[data-variant='{name}'] [data-stat='winRate']").inner_text()
             for name in [*rates, "overall"]}
    assert shown == {"terrace": "99.8%", "wood": "0.3%", "madame": ">99.9%", "thirteen": "<0.1%",
                     "falling-star": "50.3%", "overall": "100%"}


def test_a_new_game_while_one_is_in_progress_asks_first(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    for answer, expected in (("#confirm-no", game["id"]), ("#confirm-yes", None)):
        page.locator("#btn-new").click()
        page.locator("#new-start").click()
        confirm = page.locator("#dlg-confirm[open]")
        assert "will count as lost unless you come back" in confirm.inner_text()
        confirm.locator(answer).click()
        if expected:
            assert page.evaluate("document.body.dataset.game") == expected
            page.locator("#dlg-new button.close").click()
        else:
            page.wait_for_selector(f"body:not([data-game='{game['id']}'])")
    # A game without a move, or one that is over, is left without a question.
    page.locator("#btn-new").click()
    page.locator("#new-start").click()
    page.wait_for_selector("body[data-moves='0']")
    assert page.locator("#dlg-confirm[open]").count() == 0


def test_a_restarted_game_still_asks_before_it_is_left(api: Api, open_game: Any) -> None:
    """Restarted (its moves wait to be redone), a game has been played and
    counts as lost when left: so the question comes, naming its moves; a
    game given up cannot be restarted."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s")
    page = open_game(game)
    page.locator("#btn-restart").click()
    page.wait_for_selector("body[data-moves='0']")
    page.locator("#btn-new").click()
    page.locator("#new-start").click()
    confirm = page.locator("#dlg-confirm[open]")
    assert "(2 moves) will count as lost" in confirm.inner_text()
    confirm.locator("#confirm-no").click()
    page.locator("#dlg-new button.close").click()
    given_up = api.play(api.new(variant="terrace", deal_number=8), "c1", "s")
    assert api.client.post(f"/api/games/{given_up['id']}/give-up", json={}).status_code == 200
    page = open_game(given_up)
    page.locator("dialog.end[open]").wait_for()
    assert page.locator("#btn-restart").is_disabled()


def test_a_tab_left_open_catches_up(api: Api, browser: Any, server: str) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    first, second = context.new_page(), context.new_page()
    for page in (first, second):
        page.goto(f"{server}?game={game['id']}")
        page.wait_for_selector("body[data-ready='true']")
    # Another tab of this browser: told at once.
    first.locator("[data-pile='stock']").click()
    moves_seen(first, 2)
    moves_seen(second, 2)
    # Another device (no message): the tab looks again when it gets the focus.
    api.play(api.client.get(f"/api/games/{game['id']}").json(), "s")
    # (a look within 500 ms of the last one is skipped, and a tab behind
    # another may count as hidden: bring it to the front, focus it again)
    second.bring_to_front()
    for _ in range(10):
        second.evaluate("window.dispatchEvent(new Event('focus'))")
        if second.locator("body[data-moves='3']").count():
            break
        second.wait_for_timeout(600)
    moves_seen(second, 3)
    second.locator("[data-pile='stock']").click()  # its next move is accepted, not refused
    moves_seen(second, 4)
    assert api.client.get(f"/api/games/{game['id']}/line").json()["moves"][-1] == "s"
    moves_seen(first, 4)
    context.close()


@pytest.fixture
def clocked_page(browser: Any, server: str) -> Iterator[Any]:
    """A page whose clock the test moves on (installed and stopped before the
    page loads: the page's time goes by only as the test moves it on,
    however slowly the machine runs the page meanwhile)."""
    contexts: list[Any] = []

    def opener(game: dict[str, Any]) -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        contexts.append(context)
        page = context.new_page()
        began = time.time()
        page.clock.install(time=began)
        page.clock.pause_at(began + 1)
        page.goto(f"{server}?game={game['id']}")
        page.wait_for_selector("body[data-ready='true']")
        return page

    yield opener
    for context in contexts:
        context.close()


def shown_seconds(page: Any) -> int:
    text = page.locator("[data-counter='time'] .value").inner_text().replace("⏸", "").strip()
    minutes, seconds = text.split(":")[-2:]
    return int(minutes) * 60 + int(seconds)


def hide(page: Any, hidden: bool) -> None:
    state = "hidden" if hidden else "visible"
    page.evaluate(
        f"Object.defineProperty(document, 'visibilityState', {{configurable: true, get: () => '{state}'}});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )


def test_the_timer_pauses_while_hidden_or_idle(api: Api, clocked_page: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = clocked_page(game)
    reports: list[int] = []

    def answer(route: Any) -> None:  # the page's reports, answered as the server would
        reports.append(json.loads(route.request.post_data)["ms"])
        route.fulfill(json={"id": game["id"], "active_ms": sum(reports)})

    page.route("**/time", answer)
    page.mouse.move(200, 200)
    page.clock.run_for(10_000)
    assert 9 <= shown_seconds(page) <= 11
    hide(page, True)
    page.clock.run_for(2_000)
    for _ in range(100):  # (the report travels in real time)
        if reports:
            break
        page.wait_for_timeout(50)
    assert 9_000 <= sum(reports) <= 11_000  # reported when hidden
    page.clock.run_for(120_000)
    assert 9 <= shown_seconds(page) <= 11  # nothing counted while hidden
    hide(page, False)
    page.clock.run_for(5_000)
    assert 14 <= shown_seconds(page) <= 16
    page.clock.run_for(180_000)  # idle: counted up to a minute after the last activity
    assert 69 <= shown_seconds(page) <= 71
    assert page.locator("[data-counter='time'].paused").count() == 1
    paused = page.locator("[data-counter='time']").get_attribute("title")
    assert paused == "Paused: the tab is hidden or you have been idle for a minute"  # (IDLE_MS: one)
    page.mouse.move(300, 300)
    page.clock.run_for(3_000)
    assert 72 <= shown_seconds(page) <= 74
    setting(page, timer=False)
    assert page.locator("[data-counter='time']").count() == 0


def test_the_time_of_a_long_think_is_reported_before_the_next_move(api: Api, clocked_page: Any) -> None:
    """Three minutes of thinking, the mouse moving, no move: the page
    reported nothing (it counted a run of play only at a move, a pause or
    when hidden), so another device opening the game, or the page lost,
    had none of it. Reports go out every 20 s of play."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = clocked_page(game)
    reports: list[int] = []

    def answer(route: Any) -> None:
        reports.append(json.loads(route.request.post_data)["ms"])
        route.fulfill(json={"id": game["id"], "active_ms": sum(reports)})

    page.route("**/time", answer)
    for _ in range(6):
        page.mouse.move(200 + len(reports), 200)
        page.clock.run_for(30_000)
    for _ in range(100):  # (a report travels in real time)
        if sum(reports) >= 150_000:
            break
        page.wait_for_timeout(50)
    assert 150_000 <= sum(reports) <= 181_000, reports
    assert 179 <= shown_seconds(page) <= 181


def test_a_replay_shows_its_own_games_time(api: Api, clocked_page: Any) -> None:
    """A game given up, replayed from the statistics while another is being
    played, showed the time of the game being played."""
    over = api.play(api.new(variant="falling-star", deal_number=3), "s")
    assert api.client.post(f"/api/games/{over['id']}/give-up", json={}).status_code == 200
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = clocked_page(game)
    reports: list[int] = []

    def answer(route: Any) -> None:  # (as the server would: the total stored; a report goes every 20 s)
        reports.append(json.loads(route.request.post_data)["ms"])
        route.fulfill(json={"id": game["id"], "active_ms": sum(reports)})

    page.route("**/time", answer)
    page.mouse.move(200, 200)
    page.clock.run_for(30_000)
    assert 29 <= shown_seconds(page) <= 31
    page.locator("#btn-stats").click()
    replay = page.locator("#dlg-stats ol.recent li", has_text="Falling Star").first
    replay.get_by_role("button", name="Replay").click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    assert shown_seconds(page) == 0  # (the game given up was never timed)
    page.locator("#replay-exit").click()
    page.locator("#replay-bar[hidden]").wait_for(state="attached")
    assert 29 <= shown_seconds(page) <= 31


def test_the_time_reaches_the_server(api: Api, open_game: Any) -> None:
    """Played for two seconds or more (the clock shown says so: the server
    takes no more than the real time since the game began, so a clock
    moved on by the test would not do), the time is reported when the tab
    is hidden."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    page.mouse.move(100, 100)
    until(lambda: shown_seconds(page) >= 2)
    hide(page, True)
    stored: list[int] = []

    def reported() -> int:
        stored.append(api.client.get(f"/api/games/{game['id']}").json()["active_ms"])
        return stored[-1]

    until(reported)  # the report goes out when the tab is hidden
    assert 1_500 <= stored[-1] <= 6_000



LOST_AT_START = {"variant": "terrace", "deal_number": 1,
                 "options": {"decks": 1, "piles": 1, "reserve": 50, "candidates": 0}}
"""A deal lost before its first move: no move to play, none to undo."""


@pytest.mark.parametrize(("locale", "words"), [("en-GB", "there is no move to undo"),
                                               ("de-DE", "keinen Zug zum Zurücknehmen")])
def test_a_game_lost_at_its_start_offers_no_undo(api: Api, open_game: Any, locale: str, words: str) -> None:
    game = api.new(**LOST_AT_START)
    assert game["status"] == "lost" and not game["moves"] and not game["can_undo"]
    page = open_game(game, locale=locale)
    end = page.locator("dialog.end[open]")
    end.wait_for()
    assert words in end.inner_text()
    assert "Undo a few" not in end.inner_text() and "ein paar Züge" not in end.inner_text()
    assert end.locator("#end-undo").count() == 0
    assert "null" not in end.inner_text()


def test_the_end_screen_of_a_lost_game_leaves_its_last_cards_in_sight(lost_game: dict[str, Any],
                                                                      open_game: Any) -> None:
    """The end screen sat low in the middle, over the lowest cards of the
    tableau (the golden lost game at 1366x768 in German: 13 indices in
    sight, its piles' top cards among them). It goes where it hides fewest,
    here none, and again after the window is made smaller, where only a
    narrower screen finds such a place."""
    page = open_game(lost_game, locale="de-DE", viewport={"width": 1366, "height": 768})
    page.locator("dialog.end[open]").wait_for()
    assert indices_under(page, "#dlg-end") == []
    resize(page, 1280, 720)
    # (no room there that hides none at its width, 432 px: the 9♣'s index;
    # 14 before it was placed at all; narrower, it finds one)
    assert indices_under(page, "#dlg-end") == []
    box = page.locator("#dlg-end").bounding_box()
    assert box["y"] + box["height"] <= 720 and box["x"] >= 0 and box["x"] + box["width"] <= 1280


LOWEST_CARD = ("() => Math.max(...[...document.querySelectorAll('#board .card')]"
               ".map((c) => c.getBoundingClientRect().bottom))")
"""The lowest edge of a card on the board."""


def test_on_a_phone_the_board_of_a_lost_game_lies_above_its_end_screen(lost_game: dict[str, Any],
                                                                      open_game: Any) -> None:
    """On an upright phone the board fills the height and no spot of the
    end screen hides none of a lost game's cards: at 360x640 it hid 9
    indices of the golden lost game in English, 13 in German, the tableau's
    last cards, and the player could not see why the game was lost. The
    board is fitted into the room above the screen, whole, also once the
    language changes (the German screen is taller); Keep looking closes the
    screen and gives the board its full size again."""
    page = open_game(lost_game, viewport={"width": 360, "height": 640}, has_touch=True)
    end = page.locator("dialog.end[open]")
    end.wait_for()
    settled(page)
    until(lambda: indices_under(page, "#dlg-end") == [], seconds=3)
    page.locator("#btn-menu").tap()
    page.locator("#lang").select_option("de")
    end.get_by_role("button", name="Brett ansehen").wait_for()
    until(lambda: indices_under(page, "#dlg-end") == [], seconds=3)
    top_of_end = end.bounding_box()["y"]
    assert page.evaluate(LOWEST_CARD) <= top_of_end
    end.get_by_role("button", name="Brett ansehen").tap()
    end.wait_for(state="detached")
    until(lambda: page.evaluate(LOWEST_CARD) > top_of_end + 60)


def test_the_end_screen_of_a_dead_terrace_hides_no_card_at_1280_px(api: Api, open_game: Any) -> None:
    """General's Patience with four candidates, deal 3 after c1: a hint
    proves the terrace dead, and the end screen opens over the board. At
    1280x720 in German it hid four indices, the terrace's end card among
    them, and narrowed still two: no spot at its width hides none. Wider
    and lower it hides none, there and at 1366x768."""
    game = api.play(api.new(variant="generals-patience", deal_number=3, options={"candidates": 4}), "c1")
    page = open_game(game, locale="de-DE", viewport={"width": 1280, "height": 720})
    page.locator("#btn-hint").click()
    page.locator("dialog.end[open]", has_text="Terrasse").wait_for()
    settled(page)
    assert indices_under(page, "#dlg-end") == []
    resize(page, 1366, 768)
    assert indices_under(page, "#dlg-end") == []


def test_a_game_lost_after_moves_still_offers_undo(api: Api, open_game: Any) -> None:
    record = golden("terrace-lost")
    game = api.new(variant=record.variant, options=record.rules.to_dict(), deal_number=record.deal.number)
    game = api.play(game, *record.moves)
    assert game["status"] == "lost"
    page = open_game(game)
    end = page.locator("dialog.end[open]")
    end.wait_for()
    assert "Undo a few moves" in end.inner_text()
    end.locator("#end-undo").click()
    moves_seen(page, len(record.moves) - 1)


def test_the_end_screen_keeps_the_keyboard_and_escape_closes_it(lost_game: dict[str, Any],
                                                                open_game: Any) -> None:
    """Tab never leaves the end screen for the piles it covers, and Escape
    closes it (a player who uses only the keyboard)."""
    page = open_game(lost_game, locale="de-DE")
    end = page.locator("dialog.end[open]")
    end.wait_for()
    for _ in range(12):
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement === document.body"
                             " || document.activeElement.closest('dialog.end') !== null")
    page.keyboard.press("Escape")
    end.wait_for(state="detached")
    # (the focus moves in the dialog's close event, which may come a moment
    # later; the page's policy forbids wait_for_function's eval, so poll here)
    for _ in range(100):
        if page.evaluate("document.activeElement.dataset.pile") == "stock":
            break
        page.wait_for_timeout(50)
    assert page.evaluate("document.activeElement.dataset.pile") == "stock"


def test_the_leave_question_answered_no_gives_the_focus_back_to_start(api: Api, open_game: Any) -> None:
    """By keyboard: Start, then Escape on the Leave question: the New game
    dialog is still open and its Start button has the focus again (it was
    disabled while the question was asked, and the focus fell to the page's
    body, behind the dialog)."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, locale="de-DE")
    page.locator("#btn-new").focus()
    page.keyboard.press("Enter")
    page.locator("#new-start").focus()
    page.keyboard.press("Enter")
    page.locator("#dlg-confirm[open]").wait_for()
    page.keyboard.press("Escape")
    page.locator("#dlg-confirm[open]").wait_for(state="detached")
    # (the answer comes in the question's close event, a moment later)
    until(lambda: page.evaluate("document.activeElement.id") == "new-start")
    assert page.locator("#dlg-new[open]").count() == 1


def custom_group_shown(api: Api, open_game: Any, options: dict[str, Any], locale: str) -> tuple[str, str]:
    """What the statistics of a page in ``locale`` call the group of a
    game with the rule ``options`` (deal 5, c1 played), and its line in the
    list of recent games (the first: the game played last)."""
    game = api.play(api.new(variant="terrace", options=options, deal_number=5), "c1")
    page = open_game(game, viewport={"width": 1440, "height": 900}, locale=locale)
    page.locator("#btn-stats").click()
    row = page.locator(f"#dlg-stats tr[data-variant='{game['stats_key']}'] th").inner_text()
    recent = page.locator("#dlg-stats ol.recent li .what").first.inner_text()
    return row, recent


@pytest.mark.parametrize(("locale", "title"), [
    ("en-GB", "Terrace (custom: foundations in suit, redeals 1)"),
    ("de-DE", "Terrace (eigene Regeln: Zielstapel in Farbe (Symbol), weitere Durchgänge 1)"),
])
def test_a_custom_group_of_the_statistics_is_named_in_the_page_language(
    api: Api, open_game: Any, locale: str, title: str
) -> None:
    """The options of a custom game's group are said as the page speaks,
    not in the server's English."""
    row, recent = custom_group_shown(api, open_game, {"foundations": "suit", "redeals": 1}, locale)
    assert row == title
    assert recent.startswith(f"{title} · ")  # and so in the list of recent games


@pytest.mark.parametrize(("locale", "title"), [
    ("en-GB", "Terrace (custom: foundation cards may return, other candidates of the base rank stay put)"),
    ("de-DE", "Terrace (eigene Regeln: Karten dürfen von Zielstapeln zurück, weitere Basiskarten desselben "
              "Werts bleiben liegen)"),
])
def test_a_custom_group_says_its_yes_no_options_as_what_they_do(
    api: Api, open_game: Any, locale: str, title: str
) -> None:
    """A yes/no option of a custom group was said as its name and the
    answer: "Terrace (custom: foundation return yes, candidates of the base
    rank up at once no)", German "... (eigene Regeln: Rückgabe von
    Zielstapeln ja, Basiskarten desselben Werts gleich hinauf nein)"."""
    options = {"foundation_return": True, "promote_candidates": False}
    row, _ = custom_group_shown(api, open_game, options, locale)
    assert row == title


def win_by_clicks(
    open_game: Any, game: dict[str, Any], before_goto: Any, *, timed: bool = False, **options: Any
) -> Any:
    """Open ``game`` (part of the line played through the API; ``options``
    for the browser's context) with auto-play off and click the rest of
    the line until it is won; the page. ``timed``: the page's clock shows
    a second played before the first click (a win of the page's own time)."""
    page = open_game(game, reduced_motion="reduce", before_goto=before_goto, **options)
    setting(page, autoplay="off")
    if timed:
        page.mouse.move(100, 100)
        until(lambda: shown_seconds(page) >= 1)
    for index in range(game["moves"], len(LINE["moves"])):
        _click_move(page, line_board(index), LINE["moves"][index])
        moves_seen(page, index + 1)
    page.wait_for_selector("body[data-status='won']")
    return page


LAST_MOVE = len(LINE["moves"]) - 1
"""The win-screen tests play the line up to its last move through the API
and click that one: the clicks that lead there are the whole-game test's
(test_browser_game), and the end of a game through the page is the same."""


@pytest.mark.parametrize(("wins_in_fewest", "faster_by_ms", "said"), [
    (1, None, "A new personal best: your fewest moves!"),
    (2, None, "As few moves as your best win."),
    (2, 0, "A new personal best: your fastest win!"),  # the fastest win: its own time
    (1, 0, "A new personal best: your fewest moves and your fastest win!"),
    (2, 500, "As few moves as your best win."),  # another win half a second faster
])
def test_the_win_screen_tells_a_record_from_an_equalled_one(
    api: Api, open_game: Any, wins_in_fewest: int, faster_by_ms: int | None, said: str
) -> None:
    """A win in as few moves as an earlier one is no new record, nor is one
    a little slower than the fastest. The statistics the page reads are
    pinned (the fastest win an hour, or this win's own time as the server
    stored it, or half a second less), so that the test does not hang on
    the clock."""
    game = line_game(api, LAST_MOVE)

    def pinned(route: Any) -> None:
        data = route.fetch().json()
        block = data["variants"][game["stats_key"]]
        fastest = 3600.0
        if faster_by_ms is not None:  # (the page reported its time before it asked)
            own = api.client.get(f"/api/games/{game['id']}").json()["active_ms"]
            assert own > 0
            fastest = (own - faster_by_ms) / 1000
        block.update(won=2, fewest_moves=len(LINE["moves"]), fewest_moves_wins=wins_in_fewest,
                     fastest_seconds=fastest)
        route.fulfill(json=data)

    page = win_by_clicks(open_game, game, lambda p: p.route(STATS, pinned), timed=faster_by_ms is not None)
    record = page.locator("dialog.end[open] p.record")
    record.wait_for()
    assert record.inner_text() == said


@pytest.mark.parametrize(("fewest_moves_wins", "fastest_seconds"), [(1, 3600.0), (2, 3600.0), (2, None)])
def test_a_won_game_opened_again_is_not_hailed_as_a_new_best(
    api: Api, open_game: Any, fewest_moves_wins: int, fastest_seconds: float | None
) -> None:
    """A won game opened again (from the statistics, or the page
    reloaded) that holds the fewest moves was hailed 'A new personal best:
    your fewest moves!' each time, also when it was the first win of all
    and a later, longer one made the count two (equalled: 'As few moves as
    your best win.'; its own time the fastest: '... your fastest win!').
    A record is news of a win just made, as the day's streak is; the best
    figures are still shown."""
    game = api.play(line_game(api, 0), *LINE["moves"])
    assert game["status"] == "won"

    def pinned(route: Any) -> None:
        data = route.fetch().json()
        fastest = fastest_seconds
        if fastest is None:
            fastest = api.client.get(f"/api/games/{game['id']}").json()["active_ms"] / 1000
        block = data["variants"][game["stats_key"]]
        block.update(won=2, fewest_moves=len(LINE["moves"]), fewest_moves_wins=fewest_moves_wins,
                     fastest_seconds=fastest)
        route.fulfill(json=data)

    page = open_game(game, before_goto=lambda p: p.route(STATS, pinned))
    best = page.locator("dialog.end[open] [data-stat='best'] dd")
    best.wait_for()
    assert best.inner_text().startswith(f"fewest moves {len(LINE['moves'])} · fastest win ")
    assert page.locator("dialog.end[open] p.record").count() == 0


LINES = """(node) => {
  // How many lines the text of ``node`` takes.
  const range = document.createRange();
  range.selectNodeContents(node);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
}"""


def test_the_win_screen_names_each_best_as_its_own(api: Api, open_game: Any) -> None:
    """The win screen's 'Your best in Terrace: 240 moves · 1:00:00' read as
    one game won in 240 moves and an hour, where the fewest moves and the
    fastest time are two records, most often of two different wins (here a
    win in 240 moves that took two hours, and one in an hour of 260). Each
    is named now, in either language."""
    game = line_game(api, LAST_MOVE)

    def pinned(route: Any) -> None:
        data = route.fetch().json()
        data["variants"][game["stats_key"]].update(won=3, fewest_moves=240, fewest_moves_wins=1,
                                                   fastest_seconds=3600.0)
        route.fulfill(json=data)

    page = win_by_clicks(open_game, game, lambda p: p.route(STATS, pinned))
    best = page.locator("dialog.end[open] [data-stat='best'] dd")
    best.wait_for()
    assert best.inner_text() == "fewest moves 240 · fastest win 1:00:00"
    assert page.locator("dialog.end[open] p.record").count() == 0  # (this win of 250 set neither)
    # (a row of its own, in one line: in two of the grid's three columns it
    # wrapped beside an empty third)
    grid = page.locator("dialog.end[open] .end-stats").bounding_box()
    block = page.locator("dialog.end[open] [data-stat='best']").bounding_box()
    assert grid and block and block["width"] >= grid["width"] - 1, (block, grid)
    assert best.evaluate(LINES) == 1
    page.locator("#lang").select_option("de")
    page.get_by_role("dialog", name="Gewonnen!").wait_for()
    page.locator("dialog.end[open] [data-stat='best'] dd", has_text="wenigste Züge").wait_for()
    assert best.inner_text() == "wenigste Züge 240 · schnellster Sieg 1:00:00"


def test_a_win_with_an_assist_says_it_sets_no_best(api: Api, open_game: Any) -> None:
    """A win with the peeking hint on was hailed as a new personal best and
    stood as the best of the variant."""
    game = line_game(api, LAST_MOVE)
    answer = api.client.post(f"/api/games/{game['id']}/hint", json={"peek": True})
    assert answer.status_code == 200 and api.client.get(f"/api/games/{game['id']}").json()["assisted"]
    page = win_by_clicks(open_game, game, None)
    note = page.locator("dialog.end[open] p.assisted-win")
    note.wait_for()
    assert note.inner_text().startswith("An assist looked at the face-down cards in this game")
    assert page.locator("dialog.end[open] p.record").count() == 0


@pytest.mark.parametrize(("viewport", "locale"), [({"width": 1280, "height": 860}, "en-GB"),
                                                 ({"width": 1440, "height": 900}, "de-DE")])
def test_the_note_of_an_assisted_win_spans_the_win_screen(
        api: Api, open_game: Any, viewport: dict[str, int], locale: str) -> None:
    """The note that an assisted win sets no best stood in one column of
    the figures' grid (6.5rem wide), a word or two a line ("In diesem
    Spiel / hat eine Hilfe / die verdeckten / Karten ..." on a phone); it
    spans the grid, as the note of a new best does."""
    game = line_game(api, LAST_MOVE)
    assert api.client.post(f"/api/games/{game['id']}/hint", json={"peek": True}).status_code == 200
    page = win_by_clicks(open_game, game, None, viewport=viewport, locale=locale)
    note = page.locator("dialog.end[open] p.assisted-win")
    note.wait_for()
    grid = page.locator("dialog.end[open] .end-stats").bounding_box()
    box = note.bounding_box()
    assert grid and box and box["width"] >= grid["width"] - 1, (box, grid)


SEEN = """() => {
  // The middle of the heading and of the focused control: on the screen,
  // inside the dialog's box and not under anything else.
  const dialog = document.querySelector('dialog.end[open]').getBoundingClientRect();
  return [document.querySelector('dialog.end h2'), document.activeElement].map((node) => {
    const r = node.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = y >= dialog.top && y <= dialog.bottom && y <= innerHeight && document.elementFromPoint(x, y);
    return [node.textContent, Boolean(hit && (hit === node || node.contains(hit)))];
  });
}"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)])
def test_the_win_screens_heading_and_focused_button_stay_in_sight_on_a_phone(
    api: Api, open_game: Any, size: tuple[int, int]
) -> None:
    """The win screen opens with its New game button focused, then puts in
    the figures it asks the server for, above the button. On an upright
    phone in German (an assisted win, with its note, the longest) they
    first pushed the focused button out of the dialog's sight; then the
    dialog scrolled to the button, and its heading went out of sight above
    (on 360x640 the heading's top at 8 px, the dialog's at 64 px)."""
    game = line_game(api, len(LINE["moves"]) - 1)
    assert api.client.post(f"/api/games/{game['id']}/hint", json={"peek": True}).status_code == 200
    viewport = {"width": size[0], "height": size[1]}
    page = open_game(game, reduced_motion="reduce", locale="de-DE", viewport=viewport)
    assert LINE["moves"][-1] == "t5f"
    page.keyboard.press("5")
    page.keyboard.press("f")
    page.locator("dialog.end[open] p.assisted-win").wait_for()
    seen = page.evaluate(SEEN)
    assert seen == [["Gewonnen!", True], ["Neues Spiel", True]], seen


def test_a_win_undone_and_won_again_shows_the_time_the_statistics_count(api: Api, open_game: Any) -> None:
    """The statistics time a win to its first win (statistics.win_seconds,
    the game's won_seconds); the win screen showed the playing time so far,
    which after an undo and the win again held the time played since. Won,
    undone, redone; undone twice, played on: each shows the first win's time."""
    game = line_game(api, len(LINE["moves"]) - 1)
    page = open_game(game, reduced_motion="reduce")
    time_shown = page.locator("dialog.end[open] [data-stat='time'] dd")
    shown: list[str] = []

    def win(*presses: str) -> None:
        for press in presses:
            if press.startswith("#"):
                page.locator(press).click()
            else:
                page.keyboard.press(press)
        time_shown.wait_for()
        shown.append(time_shown.inner_text())
        page.keyboard.press("Escape")

    def undo(times: int) -> None:
        for _ in range(times):
            page.locator("#btn-undo").click()
        moves_seen(page, len(LINE["moves"]) - times)
    win("5", "f")
    undo(1)
    page.wait_for_timeout(1200)  # (more than a second played after the win)
    win("#btn-redo")
    undo(2)
    win("9", "f", "5", "f")
    seconds = int(api.client.get(f"/api/games/{game['id']}").json()["won_seconds"])
    assert shown == [f"{seconds // 60}:{seconds % 60:02d}"] * 3


def test_an_end_screen_without_figures_keeps_no_room_for_them(api: Api, open_game: Any) -> None:
    """Only a win's figures scroll when room is short (a floor of 2.5 rem
    for them): a game given up has none, and its slot stays empty, no room."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2", "t8f")
    assert api.client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
    page = open_game(game, viewport={"width": 360, "height": 640})
    slot = page.locator("dialog.end[open] .end-stats-slot")
    assert slot.evaluate("(node) => node.childElementCount") == 0
    assert slot.evaluate("(node) => node.getBoundingClientRect().height") == 0


def test_the_win_screen_asks_for_the_statistics_after_the_time_is_stored(api: Api, open_game: Any) -> None:
    """The report of the time sent as the game ends is slow to be answered:
    the win screen still waits for it before it reads the statistics, so
    that they count this win with all its time (a flush made while a report
    is on its way waits for that report)."""
    game = line_game(api, LAST_MOVE)
    seen: list[str] = []
    held: list[Any] = []
    let_through: list[bool] = []

    def slow(route: Any) -> None:  # (held until the win screen is open: was a fixed 0.4 s)
        if let_through:
            route.continue_()
        else:
            held.append(route)

    def request(req: Any) -> None:
        if STATS.search(req.url):
            seen.append("stats asked")

    def response(resp: Any) -> None:
        if resp.url.endswith("/time"):
            seen.append("time stored")

    def ready(page: Any) -> None:
        page.route("**/time", slow)
        page.on("request", request)
        page.on("response", response)

    page = win_by_clicks(open_game, game, ready)
    page.locator("dialog.end[open]").wait_for()
    deadline = time.monotonic() + 30
    while not held:  # the report of the time has been sent, and is held
        assert time.monotonic() < deadline, seen
        page.wait_for_timeout(20)  # (Playwright hands over the routes while it waits)
    assert "stats asked" not in seen, seen  # the page waits for the time to be stored
    let_through.append(True)
    for route in held:
        route.continue_()
    page.locator("dialog.end[open] [data-stat='time']").wait_for()
    assert "time stored" in seen and "stats asked" in seen, seen
    assert seen.index("time stored") < seen.index("stats asked"), seen


def test_a_time_report_that_hangs_holds_the_win_screen_up_only_a_few_seconds(
    api: Api, open_game: Any
) -> None:
    """No answer ever comes to the time report sent as the game ends: the
    win screen waits for it at most five seconds, then shows its figures.
    The five seconds go by on the page's clock, moved on by the test (they
    were five seconds of waiting in every run): it flows as the real one
    (installed with the real time) until the report is held, then stops a
    second on and is moved on by four, so that the page's wait ends only as
    the test moves it on, however slowly the machine runs the page."""
    game = line_game(api, LAST_MOVE)
    held: list[Any] = []

    def ready(page: Any) -> None:
        page.clock.install(time=time.time())
        page.route("**/time", lambda route: held.append(route))  # (never answered)

    page = win_by_clicks(open_game, game, ready)
    until(lambda: page.evaluate("1") and held)  # the report is on its way
    page.clock.pause_at(time.time() + 1)  # (the page's clock is the real one until here)
    page.clock.run_for(4_000)
    page.locator("dialog.end[open] [data-stat='time']").wait_for(timeout=9_000)
    for route in held:
        route.continue_()  # (late: the server takes the time all the same)


def test_the_prompt_mentions_the_stock_only_while_it_can_be_turned(api: Api, open_game: Any) -> None:
    page = open_game(line_game(api, 1))
    assert "Click the stock" in page.locator("#prompt").inner_text()
    near_the_end = line_game(api, len(LINE["moves"]) - 1)
    assert near_the_end["draw"] is None
    page = open_game(near_the_end)
    assert page.locator("#prompt").inner_text().endswith("The stock is used up.")


@pytest.mark.parametrize(("locale", "choose", "play"), [
    ("en-GB", "tap one of the 3 candidates.", "Drag a card, or double-tap it to send it home. Tap the stock"),
    ("de-DE", "Tippe eine der 3 Karten an.", "Ziehe eine Karte oder tippe sie zweimal an, um sie abzulegen."),
])
def test_on_a_touch_screen_the_prompt_speaks_of_taps(
    api: Api, open_game: Any, locale: str, choose: str, play: str
) -> None:
    """No clicks, keys or Space on a phone: taps."""
    touch = {"has_touch": True, "is_mobile": True, "locale": locale,
             "viewport": {"width": 390, "height": 800}}
    page = open_game(api.new(variant="terrace", deal_number=7), **touch)
    assert choose in page.locator("#prompt").inner_text()
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c2"), **touch)
    text = page.locator("#prompt").inner_text()
    assert text.startswith(play) and "Space" not in text and "Leertaste" not in text


def test_two_tabs_on_one_game_count_its_time_once_and_show_no_error(api: Api, open_game: Any) -> None:
    """Two tabs open on one game both measure the time played. The second
    report was refused (400 time-too-much, an error in the console), and
    that tab dropped the time it had measured: its clock went back to
    0:00. Now the server counts what the wall time allows (the time once)
    and both reports are answered; the second tab shows the game's total."""
    began = time.monotonic()
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    pages = [open_game(game), open_game(game)]
    for page in pages:
        page.mouse.move(100, 100)

    def shown_ms(page: Any) -> int:
        return int(page.locator("[data-counter='time']").get_attribute("data-ms") or 0)

    # (more than the 2 s the server lends beyond the wall time)
    until(lambda: all(shown_ms(page) >= 3_500 for page in pages), 30)
    statuses = []
    for page in pages:
        with page.expect_response(lambda response: response.url.endswith("/time")) as report:
            hide(page, True)  # each tab reports its time as it is hidden
        statuses.append(report.value.status)
    assert statuses == [200, 200]
    stored = api.client.get(f"/api/games/{game['id']}").json()["active_ms"]
    assert 3_500 <= stored <= (time.monotonic() - began) * 1000 + 2_000  # counted once
    until(lambda: abs(shown_ms(pages[1]) - stored) < 1_000)  # (was 0: the tab's time dropped)


def test_a_tab_whose_time_report_finds_the_game_given_up_elsewhere_catches_up(
    api: Api, open_game: Any,
) -> None:
    """A game given up on another device (no message between the two
    browsers): this tab's report of playing time was refused (409) and its
    time dropped, and the tab went on showing the game in play, its clock
    running and going back at each report. Then the refusal brought the tab
    up to date, but the browser's console showed the 409 as an error. Now
    the report is answered (nothing counted, the game given up) and the tab
    catches up: the game shows given up, its clock stops, and the console
    shows no error."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    page.mouse.move(100, 100)
    until(lambda: int(page.locator("[data-counter='time']").get_attribute("data-ms") or 0) >= 1_000)
    assert api.client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
    with page.expect_response(lambda response: response.url.endswith("/time")) as report:
        hide(page, True)  # the tab reports its time (and stays hidden: no look at the game on showing it)
    assert report.value.status == 200 and report.value.json()["given_up"] is True
    page.locator("body[data-status='lost']").wait_for()
    assert page.locator("#btn-giveup").is_disabled()
    assert open_game.errors == []  # (the fixture checks it again at its end)


@pytest.mark.parametrize("end", ["won", "lost", "given-up"])
def test_the_end_screen_of_a_finished_game_gives_the_focus_to_new_game(
    api: Api, lost_game: dict[str, Any], open_game: Any, end: str
) -> None:
    """Won, lost or given up, the end screen opens with the focus on New
    game (its main action, what Enter then does), the same on all three; a
    screen reader hears the dialog's title and text as the focus enters it.
    The focus was on Analyse, the first button, on all three."""
    if end == "won":
        game = line_game(api, len(LINE["moves"]))
        title = "You won!"
    elif end == "lost":
        game = lost_game
        title = "Game over"
    else:
        game = api.play(api.new(variant="terrace", deal_number=7), "c2")
        assert api.client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
        title = "Game given up"
    page = open_game(game)
    dialog = page.get_by_role("dialog", name=title)
    dialog.wait_for()
    until(lambda: page.evaluate("document.activeElement.closest('#dlg-end') !== null"))
    assert page.evaluate("document.activeElement.textContent") == "New game"
    assert page.locator("#dlg-end").get_attribute("aria-describedby") == "dlg-end-text"
    page.keyboard.press("Enter")
    page.locator("#dlg-new[open]").wait_for()


def test_a_proved_loss_gives_the_focus_to_play_on(api: Api, open_game: Any) -> None:
    """The game goes on after a proved loss: the focus starts on Play on,
    the answer that changes nothing (a stray Enter neither undoes nor
    gives up)."""
    record = golden("terrace-lost")
    game = api.new(variant=record.variant, options=record.rules.to_dict(), deal_number=record.deal.number)
    game = api.play(game, *record.moves[:-1])
    page = open_game(game, before_goto=lambda p: p.add_init_script(
        "localStorage.setItem('terrace.assist.peek', 'on')"))
    page.keyboard.press("h")
    page.locator("dialog.end.hopeless[open]").wait_for(timeout=15000)
    until(lambda: page.evaluate("document.activeElement.closest('#dlg-end') !== null"))
    assert page.evaluate("document.activeElement.textContent") == "Play on"


@pytest.mark.parametrize("way", ["header", "settings"])
def test_the_end_screen_speaks_the_language_chosen_while_it_is_open(
    api: Api, open_game: Any, way: str
) -> None:
    """The end screen is no modal dialog: the header's language list (and
    Settings, opened over it) stay in reach while it is open. Switched to
    German there, the page spoke German and the win screen went on in
    English ('You won!', 'New game', 'Your best in Terrace')."""
    page = open_game(line_game(api, len(LINE["moves"])))
    end = page.locator("dialog.end[open]")
    end.locator("[data-stat='best']").wait_for()
    assert page.evaluate("document.activeElement.closest('#dlg-end') !== null")
    if way == "header":
        page.locator("#lang").select_option("de")
    else:
        page.locator("#btn-settings").click()
        page.locator("#set-lang").select_option("de")
        page.keyboard.press("Escape")
        page.locator("#dlg-settings:not([open])").wait_for(state="attached")
    page.get_by_role("dialog", name="Gewonnen!").wait_for()
    end.locator("[data-stat='best'] dt", has_text="Deine Bestleistung in").wait_for()
    assert end.get_attribute("lang") == "de"
    assert "Neues Spiel" in end.inner_text() and "New game" not in end.inner_text()
    assert end.locator("[data-stat='moves'] dd").inner_text() == str(len(LINE["moves"]))
    # (its figures stay, and its buttons work)
    end.get_by_role("button", name="Neues Spiel").click()
    page.locator("#dlg-new[open]").wait_for()


def test_the_win_screen_times_a_win_played_through_the_api_as_the_statistics_do(
    open_game: Any, won_game: dict[str, Any]
) -> None:
    """A win played through the API reports no playing time: the win
    screen's Time said 0:00 while the statistics gave the same win's time,
    from its first move to the win, as the fastest, 0:31. Both now give
    the game's ``won_seconds`` (here as a first move 31.4 s before the win)."""
    assert won_game["active_ms"] == 0 and won_game["won_seconds"] is not None

    def timed(route: Any) -> None:
        route.fulfill(json={**route.fetch().json(), "won_seconds": 31.4})

    def fastest(route: Any) -> None:
        data = route.fetch().json()
        data["variants"][won_game["stats_key"]]["fastest_seconds"] = 31.4
        route.fulfill(json=data)

    def routes(page: Any) -> None:
        page.route(f"**/api/games/{won_game['id']}", timed)
        page.route(STATS, fastest)

    page = open_game(won_game, before_goto=routes)
    end = page.locator("dialog.end[open]")
    end.locator("[data-stat='best']").wait_for()
    assert end.locator("[data-stat='time'] dd").inner_text() == "0:31"  # (before: 0:00)
    assert "fastest win 0:31" in end.locator("[data-stat='best'] dd").inner_text()


def test_a_game_lost_at_its_deal_says_its_terrace_was_dead(api: Api, open_game: Any) -> None:
    """One pack, one pile, no candidates, a terrace of 50: deal 1 has no
    move, and its terrace could never be played out (the game's
    ``terrace_dead``, the coach's step 0); the prompt said only that no
    move was left."""
    game = api.new(variant="terrace", deal_number=1,
                   options={"decks": 1, "piles": 1, "candidates": 0, "reserve": 50})
    assert game["status"] == "lost" and game["terrace_dead"]
    page = open_game(game)
    until(lambda: "terrace could never be played out" in page.locator("#prompt").inner_text(), 3)
