"""The coach in a real browser (Debian's Chromium through Playwright):
"Analyse" after a lost game and after giving up, the base-card chances
shown only when asked, and the assist that warns before a move that loses
a won game."""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api, moves_seen, settled, until
from terrace.board import Board
from terrace.rules import Rules
from test_browser_game import _click_move
from test_web_coach import SMALL, SMALL_DEAL, thrown_away

pytestmark = pytest.mark.browser


def test_analyse_a_lost_game_shows_where_it_was_lost(api: Api, open_game: Any) -> None:
    moves, losing = thrown_away()
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves)
    assert game["status"] == "lost"
    page = open_game(game, reduced_motion="reduce")
    end = page.locator("dialog.end[open]")
    # stuck, not over: undo can reopen it, so the player is asked first
    end.locator("#end-analyse").click()
    ask = page.locator("#dlg-confirm[open]")
    assert "marks the game as assisted" in ask.inner_text()
    ask.locator("#confirm-no").click()
    # (the answer is read in the question's close event: a replay started
    # then is queued at once, and would have shown once the page settles)
    ask.wait_for(state="detached")
    settled(page)
    assert page.locator("#replay-bar").is_hidden()
    assert not api.client.get(f"/api/games/{game['id']}").json()["assisted"]  # declined: nothing asked
    page.reload()
    end.locator("#end-analyse").click()
    ask.locator("#confirm-yes").click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    note = page.locator("#coach-note[data-state='lost-at']")
    note.wait_for(timeout=30_000)
    text = note.inner_text()
    assert f"at move {losing}" in text and "fair player" in text
    # stuck, not over: undo can reopen it, so the analysis is an assist
    assert text.endswith("so this analysis, which saw the face-down cards, marks it as assisted.")
    # The replay stands just before the losing move, which is marked.
    assert f"move {losing - 1} of {len(moves)}" in page.locator("#prompt").inner_text()
    assert page.locator("#board .coach-lost-src").count() == 1
    assert page.locator("#board .coach-lost-dst").count() == 1
    # A step on: the marks go, a button comes back to the losing move.
    page.locator("#replay-next").click()
    page.locator("#coach-goto").wait_for()
    assert page.locator("#board .coach-lost-src").count() == 0
    page.locator("#coach-goto").click()
    page.locator("#board .coach-lost-src").wait_for()
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["assisted"] and stored["moves"] == len(moves)
    assert api.client.get(f"/api/games/{game['id']}/line").json()["moves"] == moves


def test_analyse_after_giving_up_in_german(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), "s")
    page = open_game(game, reduced_motion="reduce", locale="de-DE")
    if page.locator("#btn-menu").is_visible():  # (the German header folds beside a custom game's title)
        page.locator("#btn-menu").click()
    page.locator("#btn-giveup").click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    page.wait_for_selector("body[data-status='lost']")
    button = page.locator("dialog.end[open] #end-analyse")
    assert button.inner_text() == "Analysieren"
    button.click()
    note = page.locator("#coach-note[data-state='winnable']")
    note.wait_for(timeout=30_000)
    assert "noch einen Weg zum Sieg" in note.inner_text()
    assert "Hilfe" not in note.inner_text()  # given up: over for good, no assist


def test_an_analysis_that_fails_is_said_in_its_note_until_asked_again(api: Api, open_game: Any) -> None:
    """An analysis the server could not make hid its note and showed a
    toast for 4.5 s: the note says so and why, stays through the replay's
    steps, and Analyse is there to try again."""
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), "s")
    seen = {"after": game["moves"], "revision": game["revision"]}
    assert api.client.post(f"/api/games/{game['id']}/give-up", json=seen).status_code == 200
    page = open_game(game, reduced_motion="reduce")
    page.route("**/coach", lambda route: route.fulfill(status=503, body="busy"))
    page.locator("dialog.end[open] #end-analyse").click()
    note = page.locator("#coach-note[data-state='failed'] .coach-text [aria-hidden='true']")
    note.wait_for(timeout=10_000)
    failed = ("The game could not be analysed. The server could not answer (error 503)."
              " Try again in a moment. Analyse tries again.")
    assert note.inner_text() == failed
    page.locator("#replay-next").click()
    settled(page)
    assert note.inner_text() == failed
    assert page.locator("#replay-coach").is_enabled() and page.locator("#replay-coach").is_visible()
    assert page.locator("#toast.show").count() == 0
    open_game.errors.clear()  # (the browser's console reports the 503)


def test_chances_only_when_asked(api: Api, open_game: Any) -> None:
    game = api.new(variant="terrace", deal_number=21)
    page = open_game(game, reduced_motion="reduce")
    assert page.locator(".chance").count() == 0  # nothing shown before it is asked for
    with page.expect_response(lambda response: response.url.endswith("/chances")) as answered:
        page.locator("#btn-chances").click()
    chances = answered.value.json()
    badges = page.locator("#board .chance")
    badges.first.wait_for(timeout=30_000)
    assert badges.count() == len(game["choices"])
    assert "sampled stocks" in page.locator("#coach-chances").inner_text()
    # each badge shows its card's wins of the stocks sampled for it: 32 each
    # in the search's 10 s, but fewer on a loaded machine (load ~30, stop 70)
    assert chances["samples"] == 32 and all(c["tried"] <= 32 for c in chances["candidates"])
    shown = badges.evaluate_all("marks => marks.map((mark) => [mark.dataset.move, mark.textContent])")
    assert sorted(shown) == sorted([c["move"], f"{c['wins']}/{c['tried']}"] for c in chances["candidates"])
    # (a bare "31/32" says what it counts when pointed at; a dead candidate's says so)
    titles = badges.evaluate_all("marks => marks.map((mark) => mark.title)")
    assert all("an upper estimate, not your chance of winning" in title for title in titles)
    assert any(f" of {c['tried']} sampled stocks" in title for title in titles for c in chances["candidates"])
    # the words keep off the window's edges (they once ran from edge to edge)
    text = page.locator("#coach-chances .chances-text").bounding_box()
    width = page.viewport_size["width"]
    assert text is not None and text["x"] >= 8 and text["x"] + text["width"] <= width - 8
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["hints"] == 0 and not stored["assisted"]
    # Once the base card is chosen, the button goes.
    page.locator("[data-pile='t1'] > .card").last.click()
    moves_seen(page, 1)
    assert page.locator("#coach-chances").is_hidden()


def test_chances_that_fail_stay_in_the_prompt(api: Api, open_game: Any) -> None:
    """Chances the server could not sample had a toast only, gone in 4.5 s:
    the prompt keeps why, as it keeps a refusal, until the player goes on."""
    game = api.new(variant="terrace", deal_number=21)
    page = open_game(game, before_goto=lambda p: p.clock.install())
    page.route("**/chances", lambda route: route.fulfill(status=503, body="busy"))
    page.locator("#btn-chances").click()
    failed = "The server could not answer (error 503). Try again in a moment."
    prompt = page.locator("#prompt")
    until(lambda: prompt.inner_text() == failed)
    page.clock.run_for(8_000)  # (past the toast's time)
    page.wait_for_selector("#toast:not(.show)", state="attached", timeout=2_000)
    assert prompt.inner_text() == failed and prompt.get_attribute("class") == "prompt notice error"
    page.keyboard.press("Escape")
    assert prompt.inner_text().startswith("Choose the base card")
    open_game.errors.clear()  # (the browser's console reports the 503)


def test_chances_asked_on_a_game_changed_elsewhere_show_it_as_it_is(api: Api, open_game: Any) -> None:
    """Chances refused as a conflict (the base card chosen in another tab)
    showed the refusal, "reload it", over the old position, where a move or
    a hint refused so shows the game as it is now and says so."""
    game = api.new(variant="terrace", deal_number=21)
    page = open_game(game, reduced_motion="reduce")
    api.play(game, "c1")  # (in another tab)
    page.locator("#btn-chances").click()
    page.locator("#toast.show", has_text="changed in another window").wait_for()
    moves_seen(page, 1)
    assert page.locator("#coach-chances").is_hidden()
    assert "reload" not in page.locator("#prompt").inner_text()
    assert open_game.errors == [
        "Failed to load resource: the server responded with a status of 409 (Conflict)"]
    open_game.errors.clear()


def test_warning_before_a_move_that_loses_a_won_game(api: Api, open_game: Any) -> None:
    moves, losing = thrown_away()
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves[: losing - 1])
    page = open_game(game, reduced_motion="reduce")
    page.locator("#btn-settings").click()
    page.locator("#autoplay-off").check()
    assists = page.locator("#dlg-settings fieldset#assists")
    assert "Warn before a move" in assists.inner_text()
    assists.locator("#assist-warn").check()
    page.locator("#dlg-settings button.close").click()
    board = Board.from_number(SMALL_DEAL, Rules.from_dict(SMALL, Rules()))
    for text in moves[: losing - 1]:
        board.push_text(text)
    _click_move(page, board, moves[losing - 1])
    confirm = page.locator("#dlg-confirm[open]")
    confirm.wait_for(timeout=15_000)
    assert "loses a won game" in confirm.inner_text()
    confirm.locator("#confirm-no").click()
    confirm.wait_for(state="detached")
    settled(page)
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["moves"] == losing - 1 and stored["assisted"]
    # Confirmed, the move is played.
    _click_move(page, board, moves[losing - 1])
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    moves_seen(page, losing)


def test_analyse_is_offered_only_for_a_game_that_is_over(api: Api, open_game: Any) -> None:
    """The coach refuses a game not over (coach-not-over): its replay has no
    Analyse button; a lost game's replay has one."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1", "s", "s")
    page = open_game(game)
    page.locator("#btn-stats").click()
    page.wait_for_selector("#dlg-stats[open] ol.recent")
    page.locator("#dlg-stats ol.recent li").first.get_by_role("button", name="Replay").click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    assert page.locator("#replay-coach").is_hidden()
    page.locator("#replay-next").click()
    page.locator("#prompt", has_text="move 1 of 3").wait_for()
    assert page.locator("#replay-coach").is_hidden()
    moves, _ = thrown_away()
    lost = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves)
    page = open_game(lost)
    page.locator("dialog.end[open]").wait_for()
    page.locator("dialog.end[open] button", has_text="Look at the board").click()
    page.locator("#btn-stats").click()
    page.wait_for_selector("#dlg-stats[open] ol.recent")
    page.locator("#dlg-stats ol.recent li").first.get_by_role("button", name="Replay").click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    assert page.locator("#replay-coach").is_visible()


def test_chances_by_keyboard_keep_the_focus_and_are_said(api: Api, open_game: Any) -> None:
    """Chances asked with the keyboard: the button keeps the focus while the
    stocks are sampled and after (it was disabled, then drawn anew, and the
    focus fell to the page's body), and the answer is said, card names in
    words, to a screen reader."""
    game = api.new(variant="terrace", deal_number=21)
    page = open_game(game, reduced_motion="reduce", locale="de-DE")
    page.locator("#btn-chances").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "btn-chances"
    page.locator("#coach-chances .chances-text").wait_for(timeout=30_000)
    assert page.evaluate("document.activeElement.id") == "btn-chances"
    said = page.locator("#said").text_content()
    assert "gewinnt in" in said and not any(symbol in said for symbol in "♥♦♠♣")


@pytest.mark.parametrize(("locale", "card"), [("en-GB", "7 of diamonds"), ("de-DE", "Karo 7")])
def test_the_chances_words_are_heard_with_card_names(api: Api, open_game: Any, locale: str,
                                                     card: str) -> None:
    """The chances' words are focusable (a phone scrolls them): a screen
    reader going to them read them as seen, "7♦: wins in 28 of 32 ...",
    suit signs it reads as it likes; it hears the card names, as #said
    says them (the words seen are unchanged)."""
    page = open_game(api.new(variant="terrace", deal_number=7), reduced_motion="reduce", locale=locale)
    page.locator("#btn-chances").click()
    words = page.locator("#coach-chances .chances-text")
    words.wait_for(timeout=60_000)
    heard = words.aria_snapshot()
    assert card in heard and not any(symbol in heard for symbol in "♥♦♠♣"), heard
    seen = words.locator("[aria-hidden='true']").inner_text()
    assert "7♦" in seen and card not in seen, seen


def test_a_base_card_chosen_by_key_from_chances_leaves_the_focus_on_the_board(
    api: Api, open_game: Any
) -> None:
    """The focus on Chances (asked, and its answer heard), then the base card
    chosen by its key: Chances is hidden, and the focus goes to the board,
    where arrows go on from the stock, not to the page's body."""
    page = open_game(api.new(variant="terrace", deal_number=7))
    page.locator("#btn-chances").focus()
    page.keyboard.press("2")
    moves_seen(page, 1)
    page.locator("#coach-chances[hidden]").wait_for(state="attached")
    assert page.evaluate("document.activeElement.dataset.pile") == "stock"
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.pile") == "reserve"


def test_analyse_by_keyboard_never_drops_the_focus(api: Api, open_game: Any) -> None:
    """Analyse keeps the focus while the solver works (it was disabled, and
    the focus fell to the page's body), and 'Show where it was lost', gone
    once pressed, hands it to Next move."""
    moves, _ = thrown_away()
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves)
    page = open_game(game, reduced_motion="reduce", locale="de-DE")
    page.locator("dialog.end[open] #end-analyse").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "confirm-no"  # the safe answer first
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # yes: an assist (undo could still reopen the game)
    page.locator("#coach-note[data-state='lost-at']").wait_for(timeout=30_000)
    page.locator("#replay-next").focus()
    page.keyboard.press("Enter")
    page.locator("#coach-goto").focus()
    page.keyboard.press("Enter")
    page.locator("#board .coach-lost-src").wait_for()
    assert page.evaluate("document.activeElement.id") == "replay-next"
    page.locator("#replay-coach").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "replay-coach"
    page.locator("#coach-note[data-state='lost-at']").wait_for(timeout=30_000)
    assert page.evaluate("document.activeElement.id") == "replay-coach"


def test_the_dead_end_warning_judges_from_the_cards_in_sight(api: Api, open_game: Any) -> None:
    """With the setting on (it is not an assist), choosing a base card whose
    terrace can never be played out asks first (General's Patience deal 61:
    c1-c3 are dead from the start, c4 is not), "Don't play it" plays
    nothing, and once the terrace is dead the prompt says the game is lost.
    Off, the same choice is played at once."""
    game = api.new(variant="generals-patience", deal_number=61)
    page = open_game(game, reduced_motion="reduce")
    page.locator("#btn-settings").click()
    page.locator("#set-dead").check()
    page.locator("#dlg-settings button.close").click()
    page.keyboard.press("1")
    confirm = page.locator("#dlg-confirm[open]")
    confirm.wait_for()
    assert "This move loses the game" in confirm.inner_text()
    confirm.locator("#confirm-no").click()
    confirm.wait_for(state="detached")
    settled(page)
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["moves"] == 0 and not stored["assisted"]
    page.keyboard.press("4")  # alive: no question
    moves_seen(page, 1)
    assert page.locator("#dlg-confirm[open]").count() == 0
    page.locator("#btn-undo").click()
    moves_seen(page, 0)
    page.keyboard.press("2")
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    moves_seen(page, 1)
    page.locator("#prompt", has_text="The terrace can no longer be played out").wait_for()
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["last_played"] == "c2" and stored["moves"] == 1
    assert stored["terrace_dead"] and not stored["assisted"]
    # Off: no question, no such prompt.
    page.locator("#btn-settings").click()
    page.locator("#set-dead").uncheck()
    page.locator("#dlg-settings button.close").click()
    assert "The terrace can no longer" not in page.locator("#prompt").inner_text()
    other = open_game(api.new(variant="generals-patience", deal_number=61), reduced_motion="reduce")
    other.keyboard.press("1")
    moves_seen(other, 1)


def test_analyse_names_the_move_that_killed_the_terrace(api: Api, open_game: Any) -> None:
    """A game whose terrace was killed (Terrace deal 1, the rule of thumb's
    moves, then the one move that kills it), given up and analysed: the note
    says after which move the cards in sight showed the loss."""
    from terrace.solver.greedy import greedy_move
    from terrace.solver.observation import observe
    from terrace.solver.prune import fatal_moves
    from terrace.variants import get_rules

    board = Board.from_number(1, get_rules("terrace"))
    while not fatal_moves(board):
        move = greedy_move(observe(board))
        assert move is not None
        board.push(move)
    moves = [str(m) for m in board.move_stack] + [str(fatal_moves(board)[0])]
    game = api.play(api.new(variant="terrace", deal_number=1), *moves)
    page = open_game(game, reduced_motion="reduce")
    page.locator("#btn-giveup").click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    page.wait_for_selector("body[data-status='lost']")
    page.locator("dialog.end[open] #end-analyse").click()
    note = page.locator("#coach-note:not([hidden])")
    # (the words seen; a copy with the cards' names is heard)
    seen = note.locator("[aria-hidden='true']", has_text="the terrace could never be played out")
    seen.wait_for(timeout=60_000)
    assert f"After move {len(moves)} (" in note.inner_text()


@pytest.mark.parametrize(("locale", "words"), [
    ("en-GB", "The terrace could never be played out, from the deal on"),
    ("de-DE", "Die Terrasse ließ sich vom Geben an nie abspielen"),
])
def test_analyse_says_a_terrace_dead_from_the_deal(api: Api, open_game: Any, locale: str, words: str) -> None:
    """One pack, one pile, no candidates, a terrace of 50: deal 1 is lost at
    its deal, its terrace dead (the analysis' step 0). The note said only
    that no move lost it, the terrace's part unsaid, where a terrace killed
    by a move is named with that move."""
    game = api.new(variant="terrace", deal_number=1,
                   options={"decks": 1, "piles": 1, "candidates": 0, "reserve": 50})
    assert game["status"] == "lost" and game["terrace_dead"]
    page = open_game(game, reduced_motion="reduce", locale=locale)
    page.locator("dialog.end[open] #end-analyse").click()
    note = page.locator("#coach-note:not([hidden])")
    note.locator("[aria-hidden='true']", has_text=words).wait_for(timeout=30_000)


@pytest.mark.parametrize(("locale", "words"), [
    ("en-GB", "Whichever base card you choose, the terrace can never be played out"),
    ("de-DE", "Welche Basiskarte du auch wählst, die Terrasse lässt sich nie abspielen"),
])
def test_the_dead_end_setting_says_so_before_the_choice_of_a_dead_deal(
        api: Api, open_game: Any, locale: str, words: str) -> None:
    """General's Patience deal 5 is lost whichever base card is chosen (the
    cards in sight prove it). With the dead-end setting on, the page asked
    nothing (no choice is fatal: none kills a terrace already dead) and said
    nothing until a base card was chosen; it says so while choosing now, and
    not with the setting off."""
    game = api.new(variant="generals-patience", deal_number=5)
    assert game["terrace_dead"] and game["fatal"] == []
    page = open_game(game, reduced_motion="reduce", locale=locale)
    assert words not in page.locator("#prompt").inner_text()
    for on in (True, False):
        if not page.locator("#btn-settings").is_visible():  # (German words: in the menu)
            page.locator("#btn-menu").click()
        page.locator("#btn-settings").click()
        page.locator("#set-dead").set_checked(on)
        page.locator("#dlg-settings button.close").click()
        if on:
            page.locator("#prompt", has_text=words).wait_for()
    assert words not in page.locator("#prompt").inner_text()


@pytest.mark.parametrize(("locale", "words", "plural"), [
    ("en-GB", "Even with this base card the terrace can never be played out", "Whichever base card"),
    ("de-DE", "Auch mit dieser Basiskarte lässt sich die Terrasse nie abspielen", "Welche Basiskarte"),
])
def test_the_dead_end_setting_says_a_single_base_card_in_the_singular(
        api: Api, open_game: Any, locale: str, words: str, plural: str) -> None:
    """General's Patience with one candidate: the terrace is dead at the
    choice in most deals (deal 1 among them), and the prompt said
    "Choose the base card: click the one candidate or press 1. ...
    Whichever base card you choose, the terrace can never be played out"
    (German "Welche Basiskarte du auch wählst"), as if there were several."""
    game = api.new(variant="generals-patience", deal_number=1, options={"candidates": 1})
    assert game["status"] == "choosing" and len(game["choices"]) == 1 and game["terrace_dead"]
    page = open_game(game, reduced_motion="reduce", locale=locale)
    if not page.locator("#btn-settings").is_visible():  # (German words: in the menu)
        page.locator("#btn-menu").click()
    page.locator("#btn-settings").click()
    page.locator("#set-dead").set_checked(True)
    page.locator("#dlg-settings button.close").click()
    page.locator("#prompt", has_text=words).wait_for()
    assert plural not in page.locator("#prompt").inner_text()


def chances_said(open_game: Any, game: dict[str, Any]) -> str:
    """What the coach's chances of ``game``'s base cards say, asked on its page."""
    page = open_game(game, reduced_motion="reduce")
    page.locator("#btn-chances").click()
    words = page.locator("#coach-chances .chances-text")
    words.wait_for(timeout=60_000)
    text: str = words.locator("[aria-hidden='true']").inner_text()  # (as seen; heard: card names)
    return text


def test_chances_name_a_base_card_whose_terrace_is_dead(api: Api, open_game: Any) -> None:
    """General's Patience deal 61: with base cards c1-c3 the terrace could
    never be played out (the server's ``fatal``); the chances say so of
    them, and give c4's sampled wins."""
    game = api.new(variant="generals-patience", deal_number=61)
    text = chances_said(open_game, game)
    assert text.count("the terrace could never be played out") == 3, text
    assert "sampled stocks" in text.split(" · ")[3], text


def test_chances_say_once_that_a_terrace_dead_from_the_start_loses_every_base_card(
        api: Api, open_game: Any) -> None:
    """General's Patience deal 5: the terrace could never be played out
    whichever base card is chosen (``terrace_dead``), so no choice is
    ``fatal`` (none kills a terrace already dead), and the chances said
    'wins in 0 of 32 sampled stocks' of each, where one dead base card
    among live ones is named as dead. Then each was named as dead: with
    twenty candidates (one pack, twenty piles) the same sentence twenty
    times, eighteen lines of a 1280x720 window, with a note on sampled
    stocks of which none was solved. It is said once now, in the prompt's
    words; each card's mark still says it is dead."""
    game = api.new(variant="generals-patience", deal_number=5)
    assert game["terrace_dead"] and game["fatal"] == [] and len(game["choices"]) == 4
    page = open_game(game, reduced_motion="reduce")
    page.locator("#btn-chances").click()
    words = page.locator("#coach-chances .chances-text [aria-hidden='true']")
    words.wait_for(timeout=60_000)
    assert words.inner_text() == "Whichever base card you choose, the terrace can never be played out: " \
        "this game is lost, whatever the stock holds.", words.inner_text()
    titles = page.locator("#board .chance").evaluate_all("marks => marks.map((mark) => mark.title)")
    assert len(titles) == 4 and all("the terrace could never be played out" in title for title in titles)


def _given_up(api: Api) -> dict[str, Any]:
    """Deal 7, base card 2 and two cards drawn, then given up."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2", "s", "s")
    seen = {"after": 3, "revision": game["revision"]}
    response = api.client.post(f"/api/games/{game['id']}/give-up", json=seen)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


# An analysis as the server may answer it (routed: the sentences do not
# wait for the solver): a winning line left, whose first move is a card's;
# a loss at the base card, where the fair player would have chosen another.
_WINNABLE = {"outcome": "winnable", "moves": 3, "winning": "t8f2",
             "winning_piles": {"source": "t8", "target": "f2"},
             "fair": None, "assist": False, "assisted": False}
_LOST_AT_CHOICE = {
    "outcome": "lost-at", "moves": 3, "step": 1, "move": "c2", "move_piles": None,
    "winning": "c1", "winning_piles": None, "assist": False, "assisted": False,
    "fair": {"move": "c3", "kind": "sampled", "samples": 16, "wins": 4, "undecided": 0, "result": "lost",
             "same": False, "piles": None},
}


# (a draw named as the other moves are, not as a hint's order: "(decke eine Karte vom Vorrat auf)")
_WINNABLE_DRAW = {**_WINNABLE, "winning": "s", "winning_piles": None}
_WINNABLE_CARD = {**_WINNABLE, "winning_piles": {"source": "t8", "target": "f2", "card": "7H"}}
_LOST_AT_CHOICE_CARD = {**_LOST_AT_CHOICE, "fair": {**_LOST_AT_CHOICE["fair"],
                                                   "piles": {"source": "t3", "target": "f1", "card": "QD"}}}
# (the coach said "it wins in 4 of 16" of these, as 12 losses, and "0 of 16" of the rule of thumb's move)
_LOST_AT_CHOICE_UNDECIDED = {**_LOST_AT_CHOICE, "fair": {**_LOST_AT_CHOICE["fair"], "undecided": 3}}
_LOST_AT_CHOICE_HEURISTIC = {**_LOST_AT_CHOICE, "fair": {**_LOST_AT_CHOICE["fair"], "kind": "heuristic",
                                                        "wins": 0, "undecided": 16}}


@pytest.mark.parametrize(("locale", "report", "words"), [
    ("en-GB", _WINNABLE_CARD, "Its first move: the 7♥ from pile 8 to foundation 2 (the solver's move"),
    ("de-DE", _LOST_AT_CHOICE_CARD,
     "hätte einen anderen Zug gespielt (D♦ (die 3. Karte zur Wahl) als Basiskarte wählen)"),
    ("en-GB", _WINNABLE, "A winning line still remained when the game ended. Its first move: "
     "from pile 8 to foundation 2 (the solver's move, which sees the face-down cards)."),
    ("de-DE", _WINNABLE, "Als das Spiel endete, gab es noch einen Weg zum Sieg. Sein erster Zug: "
     "von Stapel 8 auf Zielstapel 2 (der Zug des Lösers, der die verdeckten Karten sieht)."),
    ("en-GB", _LOST_AT_CHOICE, "The fair player, which sees only what you saw, would have played "
     "another move (choosing candidate 3 as the base card): it wins in 4 of 16 sampled stocks (a sampled "
     "stock counts as won when a winning line exists for one who knows that order: an upper estimate, "
     "not your chance of winning),"),
    ("de-DE", _LOST_AT_CHOICE, "Der faire Spieler, der nur sieht, was du gesehen hast, hätte einen "
     "anderen Zug gespielt (die 3. Karte zur Wahl als Basiskarte wählen): Er gewinnt in 4 von 16 ausgelosten "
     "Reihenfolgen des Vorrats (eine ausgeloste Reihenfolge zählt als Sieg, wenn es für den, der sie kennt, "
     "einen Gewinnweg gibt: eine obere Schätzung, nicht deine Gewinnchance),"),
    ("en-GB", _LOST_AT_CHOICE_UNDECIDED,
     "(choosing candidate 3 as the base card): it wins in 4 of 16 sampled stocks, 3 undecided (a sampled"),
    ("de-DE", _LOST_AT_CHOICE_HEURISTIC, "(die 3. Karte zur Wahl als Basiskarte wählen): Der Löser hat in "
     "der Zeit keine der ausgelosten Reihenfolgen entschieden, er folgt also einer Faustregel, aber"),
    ("en-GB", _WINNABLE_DRAW, "Its first move: turning a card from the stock (the solver's move"),
    ("de-DE", _WINNABLE_DRAW, "Sein erster Zug: eine Karte vom Vorrat aufdecken (der Zug des Lösers"),
], ids=["card-en", "card-de", "winnable-en", "winnable-de", "fair-en", "fair-de", "undecided-en",
        "heuristic-de", "draw-en", "draw-de"])
def test_the_analysis_reads_whatever_move_it_names(
    api: Api, open_game: Any, locale: str, report: dict[str, Any], words: str
) -> None:
    """A move in the analysis is put in words as "from pile 8 to foundation
    2", "choosing candidate 3 as the base card" or "turning a card from the
    stock": its sentences take each of them ("It started with from pile 8",
    "Er begann mit von Stapel 8", "would have played choosing candidate 3",
    "hätte Kandidat 3 als Basiskarte wählen gespielt" they read before)."""
    game = _given_up(api)

    def route(page: Any) -> None:
        page.route("**/coach", lambda r: r.fulfill(json=report))

    page = open_game(game, before_goto=route, reduced_motion="reduce", locale=locale)
    page.locator("dialog.end[open] #end-analyse").click()
    note = page.locator(f"#coach-note[data-state='{report['outcome']}'] .coach-text")
    note.wait_for()
    assert words in note.inner_text()


@pytest.mark.parametrize(("locale", "report", "seen", "card"), [
    ("en-GB", _WINNABLE_CARD, "the 7♥ from pile 8", "the 7 of hearts from pile 8"),
    ("de-DE", _WINNABLE_CARD, "7♥ von Stapel 8", "Herz 7 von Stapel 8"),
    ("en-GB", _LOST_AT_CHOICE_CARD, "(choosing the Q♦", "(choosing the queen of diamonds"),
    ("de-DE", _LOST_AT_CHOICE_CARD, "(D♦ (die 3. Karte", "(Karo Dame (die 3. Karte"),
], ids=["card-en", "card-de", "choice-en", "choice-de"])
def test_the_analysis_names_its_cards_for_a_screen_reader(
    api: Api, open_game: Any, locale: str, report: dict[str, Any], seen: str, card: str
) -> None:
    """The analysis names a card by its signs ("the 7♥ from pile 8"): its
    text, a live region that is also focusable, was heard so, suit signs
    a screen reader reads as it likes. It hears the card's name, as the
    chances and #said say it; the words seen are unchanged."""
    from test_browser_announcements import heard, listen

    game = _given_up(api)

    def route(page: Any) -> None:
        page.route("**/coach", lambda r: r.fulfill(json=report))

    page = open_game(game, before_goto=route, reduced_motion="reduce", locale=locale)
    listen(page)
    page.locator("dialog.end[open] #end-analyse").click()
    note = page.locator(f"#coach-note[data-state='{report['outcome']}'] .coach-text")
    note.wait_for()
    tree = note.aria_snapshot()
    said = heard(page)
    assert any(card in text for text in said), said
    for words in (tree, *said):
        assert not any(sign in words for sign in "♥♦♠♣"), words
    assert card in tree, tree
    shown = note.locator("[aria-hidden='true']").inner_text()
    assert seen in shown, shown


def test_the_analysis_is_heard_once_not_at_every_step_of_the_replay(api: Api, open_game: Any) -> None:
    """The analysis is in a live region, which the page drew anew at each
    step of the replay and on a resize: a screen reader heard the whole
    analysis again with every Next move."""
    from test_browser_announcements import heard, listen

    game = _given_up(api)
    page = open_game(game, reduced_motion="reduce")
    listen(page)
    page.locator("dialog.end[open] #end-analyse").focus()
    page.keyboard.press("Enter")
    page.locator("#coach-note[data-state='winnable']").wait_for(timeout=30_000)
    words = page.locator("#coach-note .coach-text .sr-only").text_content()  # (as heard)
    assert heard(page).count(words) == 1
    page.locator("#prompt", has_text="move 3 of 3").wait_for()  # (the end, where the game was left winnable)
    for step in (2, 1):
        page.locator("#replay-prev").focus()
        page.keyboard.press("Enter")
        page.locator("#prompt", has_text=f"move {step} of 3").wait_for()
    page.set_viewport_size({"width": 1000, "height": 760})
    page.locator("#replay-next").click()
    page.locator("#prompt", has_text="move 2 of 3").wait_for()
    said = heard(page)
    assert words not in said, said
    assert any("move 1 of 3" in text for text in said)  # (the steps themselves are heard)
    # Another language: the analysis is said anew, in it (the language is
    # in the header's menu at 1000 px: the buttons do not fit beside the title).
    page.locator("#btn-menu").click()
    page.locator("#lang").select_option("de")
    assert any("noch einen Weg zum Sieg" in text for text in heard(page))


def test_analyse_a_game_left_winnable_shows_its_end_with_the_winning_move(api: Api, open_game: Any) -> None:
    """A game given up while still winnable: the analysis names the first
    move of a winning line from where the game ended, and showed it over
    the replay's first position (move 0 of 3, the base card not chosen yet,
    "Its first move: turning a card from the stock" beside candidates). It
    shows the end, with that move marked as a lost game's better move is."""
    game = _given_up(api)
    report = api.client.post(f"/api/games/{game['id']}/coach", json={}).json()
    assert report["outcome"] == "winnable"
    piles = report["winning_piles"]
    page = open_game(game, reduced_motion="reduce")
    page.locator("dialog.end[open] #end-analyse").click()
    page.locator("#coach-note[data-state='winnable'] .coach-text").wait_for(timeout=30_000)
    page.locator("#prompt", has_text="move 3 of 3").wait_for()
    settled(page)
    assert page.locator(f"[data-pile='{piles['source']}'] > .coach-fair-src").count() == 1
    assert page.locator(f"[data-pile='{piles['target']}'].coach-fair-dst").count() == 1
    # A step back, the move is not marked (it is not that position's).
    page.locator("#replay-prev").click()
    page.locator("#prompt", has_text="move 2 of 3").wait_for()
    assert page.locator(".coach-fair-src, .coach-fair-dst").count() == 0


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_the_analysis_leaves_the_replay_whole_on_a_small_phone(api: Api, open_game: Any, locale: str) -> None:
    """The analysis stands above the board, which is fitted into the room
    below it; the board was not fitted again when the analysis came (unless
    it jumped to a losing move): on a phone of 320x640 the counters and the
    prompt went under the toolbar, and the page scrolled."""
    game = _given_up(api)
    page = open_game(game, reduced_motion="reduce", locale=locale, viewport={"width": 320, "height": 640})
    page.locator("dialog.end[open] #end-analyse").click()
    page.locator("#coach-note[data-state='winnable'] .coach-text").wait_for(timeout=30_000)
    place = page.evaluate("""() => ({
      toolbar: document.querySelector('.actions').getBoundingClientRect().top,
      prompt: document.querySelector('#prompt').getBoundingClientRect().bottom,
      counters: document.querySelector('#counters').getBoundingClientRect().bottom,
      scrolls: document.scrollingElement.scrollHeight > innerHeight + 1,
    })""")
    assert place["counters"] <= place["toolbar"] and place["prompt"] <= place["toolbar"], place
    assert not place["scrolls"], place
    assert page.locator("#prompt").inner_text().endswith("3.")  # ("move 0 of 3.", "Zug 0 von 3.")


@pytest.mark.parametrize(("locale", "size"), [("en-GB", (640, 360)), ("de-DE", (640, 360)),
                                              ("de-DE", (844, 390))])
def test_the_analysis_leaves_the_board_on_the_screen_of_a_phone_held_sideways(
    api: Api, open_game: Any, locale: str, size: tuple[int, int]
) -> None:
    """On a 640x360 phone the replay bar took two lines (its slider's 16rem
    pushed "Back to my game" under the others: 102 px) and the analysis
    three lines of full-size text (76 px): the board was pushed down, its
    tableau 37 px past the bottom, the page scrolled 45 px. In a short
    window the bar now takes one line and the analysis the prompt's size."""
    game = _given_up(api)
    width, height = size
    page = open_game(game, reduced_motion="reduce", locale=locale, device_scale_factor=2, has_touch=True,
                     is_mobile=True, viewport={"width": width, "height": height})
    page.locator("dialog.end[open] #end-analyse").click()
    page.locator("#coach-note[data-state='winnable'] .coach-text").wait_for(timeout=30_000)
    found = page.evaluate("""() => {
      const tops = [...document.querySelectorAll('#replay-bar > *')]
        .map((n) => Math.round(n.getBoundingClientRect().top));
      const note = document.querySelector('#coach-note');
      return { bar: new Set(tops).size, whole: note.scrollHeight <= note.clientHeight + 1,
               lowest: Math.max(...[...document.querySelectorAll('#board .card')]
                 .map((c) => c.getBoundingClientRect().bottom)),
               scrolls: document.scrollingElement.scrollHeight > innerHeight + 1 };
    }""")
    assert found["bar"] == 1 and found["whole"], found
    assert found["lowest"] <= height and not found["scrolls"], found


# Whether the page scrolls, and the controls of the replay and the analysis
# that lie under the toolbar fixed at the bottom of an upright phone (or
# past the window's bottom): hidden there, reached only by scrolling.
UNDER = """() => {
  const toolbar = document.querySelector('.actions').getBoundingClientRect().top;
  const controls = [...document.querySelectorAll(
    '#replay-bar > *, #coach-note button, #coach-note .coach-text')].filter((n) => n.getClientRects().length);
  return { scrolls: document.scrollingElement.scrollHeight > innerHeight + 1,
           under: controls.map((n) => [n.id || n.className, n.getBoundingClientRect().bottom])
             .filter(([, bottom]) => bottom > Math.min(toolbar, innerHeight) + 0.5).map(([name]) => name),
           count: controls.length };
}"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_a_long_analysis_leaves_the_replay_s_buttons_in_sight_on_a_phone(api: Api, open_game: Any,
                                                                          locale: str) -> None:
    """The analysis of a game lost where undo could still save it is long
    (where it was lost, the fair player's move, why it is an assist): on a
    360x640 phone it took 300 px in German, the page scrolled 111 px and
    "Back to my game" lay under the toolbar. The analysis now scrolls in a
    box of its own, which the keyboard reaches too, and "Show where it was
    lost" stays in sight."""
    moves, _ = thrown_away()
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves)
    page = open_game(game, reduced_motion="reduce", locale=locale, has_touch=True, is_mobile=True,
                     viewport={"width": 360, "height": 640})
    page.locator("dialog.end[open] #end-analyse").click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    page.locator("#coach-note[data-state='lost-at'] .coach-text").wait_for(timeout=30_000)
    settled(page)
    found = page.evaluate(UNDER)
    assert found["count"] >= 5 and found["under"] == [] and not found["scrolls"], found
    page.locator("#replay-next").click()
    page.locator("#coach-goto").wait_for()
    settled(page)
    found = page.evaluate(UNDER)
    assert found["under"] == [] and not found["scrolls"], found
    # The whole analysis can be read: its box scrolls, by the keyboard too.
    text = page.locator("#coach-note .coach-text")
    assert text.evaluate("(t) => t.scrollHeight > t.clientHeight")
    text.focus()
    page.keyboard.press("End")
    until(lambda: text.evaluate("(t) => t.scrollTop + t.clientHeight >= t.scrollHeight - 1"))


CANDIDATES = """() => {
  const toolbar = Math.min(innerHeight, ...[...document.querySelectorAll('.actions')]
    .filter((n) => getComputedStyle(n).position === 'fixed').map((n) => n.getBoundingClientRect().top));
  const tops = [...document.querySelectorAll('#board .candidate .card.choice')]
    .map((c) => c.getBoundingClientRect());
  // each candidate's badge ("18/32") in one line, whole, clear of the others
  const badges = [...document.querySelectorAll('#board .verdict.chance')].map((b) => {
    const range = document.createRange();
    range.selectNodeContents(b);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    return { lines: b.scrollWidth > b.clientWidth + 1 ? 'cut' : lines, box: b.getBoundingClientRect(),
             text: b.textContent };
  });
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5
    && b.top < a.bottom - 0.5;
  return { count: tops.length, out: tops.filter((r) => r.top < -0.5 || r.bottom > toolbar + 0.5).length,
           scrolls: document.scrollingElement.scrollHeight > innerHeight + 1, badges: badges.length,
           broken: badges.filter((b) => b.lines !== 1).map((b) => b.text),
           overlaps: badges.filter((b, i) => badges.some((o, j) => j !== i && meet(b.box, o.box))).length };
}"""


MADAME_CHANCES: list[Any] = []
"""The chances of Madame deal 3's ten candidates as the server first
answered them here: the fair player's sampling takes its whole budget (10 s
of a solver process), and the phone tests below lay out the same ten badges
at three sizes. (The server's chances are test_web_coach's.)"""


@pytest.mark.parametrize(("locale", "size"), [("de-DE", (360, 640)), ("en-GB", (390, 844)),
                                              ("de-DE", (640, 360))])
def test_the_chances_of_ten_candidates_leave_them_on_the_screen_of_a_phone(
    api: Api, open_game: Any, locale: str, size: tuple[int, int]
) -> None:
    """Madame's ten candidates: their chances in words took 450 px of a
    360x640 phone in German, above the board, and pushed the candidates to
    be chosen under the toolbar (the page scrolled); on a 640x360 phone off
    the bottom. The words now scroll in a box of their own (the keyboard
    reaches it), and every candidate stays on the screen. Each one's badge
    of wins ("18/32") is in one line: on those phones it broke after "18/3"."""
    game = api.new(variant="madame", deal_number=3)
    width, height = size

    def chances(route: Any) -> None:  # (the server's own answer, asked once per test process)
        if not MADAME_CHANCES:
            answer = route.fetch()
            assert answer.status == 200, answer.text()
            MADAME_CHANCES.append(answer.json())
        route.fulfill(json=MADAME_CHANCES[0])

    page = open_game(game, reduced_motion="reduce", locale=locale, has_touch=True, is_mobile=True,
                     viewport={"width": width, "height": height},
                     before_goto=lambda p: p.route("**/chances", chances))
    page.locator("#btn-chances").click()
    text = page.locator("#coach-chances .chances-text")
    text.wait_for(timeout=60_000)
    settled(page)
    found = page.evaluate(CANDIDATES)
    assert found["count"] == 10 and found["out"] == 0 and not found["scrolls"], found
    assert found["badges"] == 10 and found["broken"] == [] and found["overlaps"] == 0, found
    if text.evaluate("(t) => t.scrollHeight > t.clientHeight + 1"):  # its end, by the keyboard
        at_end = "(t) => t.scrollTop + t.clientHeight >= t.scrollHeight - 1"

        def end_by_the_keyboard() -> bool:
            # (pressed again while it is not there: once at load ~35 the box
            # stayed at its top for 10 s after one press, stop 70)
            if not text.evaluate("(t) => document.activeElement === t"):
                text.focus()
            page.keyboard.press("End")
            return bool(text.evaluate(at_end))

        until(end_by_the_keyboard, 30)
        # Drawn anew (here by a resize), the words stay at their end with
        # the focus: they went back to their top, the focus to the body.
        text.evaluate("(t) => { t.dataset.old = 'yes'; }")
        page.evaluate("window.dispatchEvent(new Event('resize'))")
        until(lambda: page.locator("#coach-chances .chances-text:not([data-old])").count() == 1)
        assert text.evaluate(at_end) and text.evaluate("(t) => document.activeElement === t")


@pytest.mark.parametrize(("low", "high", "said", "not_said"), [
    (-1, None, "whether this game could be won at all, and where it was lost, is not known",
     "lost somewhere"),
    (-1, 5, "after move 5 no winning line remained, but whether one ever did is not known", "move 0"),
    (3, None, "a winning line remained before move 4, but whether one still did when the game ended",
     "lost somewhere"),
    (3, 7, "the game was lost somewhere between move 4 and move 7", "not known"),
])
def test_an_undecided_analysis_says_only_what_the_solver_proved(
        api: Api, open_game: Any, low: int, high: int | None, said: str, not_said: str) -> None:
    """The analysis ran out of time (``unknown``): the losing move lies
    after the last position known won (``low``, -1: none) and by the first
    known lost (``high``, moves + 1: none). With neither known the page
    said "the game was lost somewhere between move 0 and move N": no move 0,
    and neither the loss nor a win at the start proved (a given-up game may
    still have been winnable, a deal never)."""
    from terrace.solver.coach import Analysis

    moves, _ = thrown_away()
    game = api.play(api.new(variant="terrace", options=SMALL, deal_number=SMALL_DEAL), *moves)
    report = Analysis("unknown", len(moves), low, len(moves) + 1 if high is None else high).to_dict()
    report.update(assist=False, assisted=False)
    page = open_game(game, reduced_motion="reduce")
    page.route("**/coach", lambda route: route.fulfill(json=report))  # (the solver's answer, undecided)
    page.locator("dialog.end[open] #end-analyse").click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    note = page.locator("#coach-note[data-state='unknown']")
    note.wait_for(timeout=30_000)
    text = note.inner_text()
    assert text.startswith("The solver ran out of time") and said in text and not_said not in text, text


INDEX_UNDER_BADGE = """() => [...document.querySelectorAll('#board .card .chance')].map((badge) => {
  // Each candidate's rank and suit index, and whether its badge of wins covers any of it.
  const card = badge.closest('.card');
  const mark = badge.getBoundingClientRect();
  const covered = [...card.querySelectorAll('.idx:not(.corner) > *')].some((part) => {
    const box = part.getBoundingClientRect();
    return box.left < mark.right && mark.left < box.right && box.top < mark.bottom && mark.top < box.bottom;
  });
  return { card: card.dataset.card, covered, width: card.getBoundingClientRect().width };
})"""


@pytest.mark.parametrize("locale", ["en-GB", "de-DE"])
def test_a_candidates_badge_of_wins_leaves_its_rank_readable_on_a_phone(
    api: Api, open_game: Any, locale: str
) -> None:
    """Terrace on a 390x844 phone: each candidate's badge of wins ("18/32")
    sat over the top of its card and covered the rank and suit in its top
    left corner, which the player reads to choose."""
    game = api.new(variant="terrace", deal_number=21)
    answer = {"samples": 32, "estimate": "upper", "seconds": 1.0, "candidates": [
        {"move": c["move"], "card": c["card"], "wins": 18, "tried": 32, "undecided": 0}
        for c in game["choices"]]}
    page = open_game(game, reduced_motion="reduce", locale=locale, has_touch=True, is_mobile=True,
                     viewport={"width": 390, "height": 844},
                     before_goto=lambda p: p.route("**/chances", lambda route: route.fulfill(json=answer)))
    page.locator("#btn-chances").click()
    page.locator("#board .chance").first.wait_for()
    settled(page)
    found = page.evaluate(INDEX_UNDER_BADGE)
    assert len(found) == len(game["choices"]) and not any(c["covered"] for c in found), found
