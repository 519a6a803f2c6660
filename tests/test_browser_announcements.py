"""What a screen reader hears, in a real browser: the text added to every
live region (aria-live, role status, alert or log, an output element) is
recorded while the player acts, and each message is to be heard once.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api, hint_words, settled, top, until
from store_support import golden

pytestmark = pytest.mark.browser

LISTEN = """() => {
  window.heard = [];
  const liveRegion = (node) => {
    for (let n = node.nodeType === 1 ? node : node.parentElement; n; n = n.parentElement) {
      if (n.closest('[aria-hidden="true"]')) return null;
      const live = n.getAttribute('aria-live');
      if (live === 'off') return null;
      const role = n.getAttribute('role');
      if (live || ['status', 'alert', 'log'].includes(role) || n.tagName === 'OUTPUT') return n;
    }
    return null;
  };
  // (the region's text as heard: what lies in an aria-hidden part is not)
  const spoken = (node) => (node.nodeType === 3 ? node.data
    : node.nodeType === 1 && node.getAttribute('aria-hidden') === 'true' ? ''
    : [...node.childNodes].map(spoken).join(''));
  new MutationObserver((records) => {
    for (const region of new Set(records.map((r) => liveRegion(r.target)).filter(Boolean))) {
      const text = spoken(region).trim();
      if (text && region.getClientRects().length) window.heard.push(text);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""
"""Records in ``window.heard`` the text of each shown live region that
changed, as a screen reader hears it (without its aria-hidden parts)."""


def listen(page: Any) -> None:
    page.evaluate(LISTEN)


def heard(page: Any) -> list[str]:
    """What the live regions said since the last call."""
    said: list[str] = page.evaluate("window.heard.splice(0)")
    return said


def ask_hint(page: Any, by_key: bool) -> None:
    with page.expect_response(lambda r: r.url.endswith("/hint")):
        if by_key:
            page.keyboard.press("h")
        else:
            page.locator("#btn-hint").click()
    page.wait_for_selector("#btn-hint:not([aria-busy])")


@pytest.mark.parametrize(("locale", "hint", "backing"), [
    ("en-GB", "Hint: ", "Does not look at face-down cards"),
    ("de-DE", "Tipp: ", "Sieht keine verdeckten Karten"),
])
def test_a_hint_is_heard_once_and_whole(api: Api, open_game: Any, locale: str, hint: str,
                                        backing: str) -> None:
    """Asked by key and by the button: the prompt and the toast show it, and
    one live region says it, move and what backs it whole (the toast said it
    a second time)."""
    game = api.play(api.new(variant="terrace", deal_number=128681666), "c1")
    page = open_game(game, locale=locale)
    listen(page)
    for by_key in (True, False):
        ask_hint(page, by_key)
        shown = hint_words(page)
        assert shown.startswith(hint) and backing in shown
        # (the toast shows the prompt's line: the backing in brief, without its Why?)
        why = page.locator("#prompt .prompt-more").inner_text()
        assert f"{page.locator('#toast.show').inner_text()} {why}" == page.locator("#prompt").inner_text()
        page.locator("#said:not(:empty)").wait_for()  # (the same words again come back a moment later)
        said = heard(page)
        assert len(said) == 1 and said[0].startswith(hint) and said[0].endswith(shown[shown.index(backing):])


@pytest.mark.parametrize(("locale", "card", "selected", "prompt", "moved"), [
    ("en-GB", "7♠", "7 of spades selected: ", "Drag a card", "7 of spades from pile 8 to foundation 2."),
    ("de-DE", "♠7", "Pik 7 gewählt: ", "Ziehe eine Karte", "Pik 7 von Stapel 8 auf Zielstapel 2."),
])
def test_a_move_by_keys_is_heard_by_card_names_and_without_the_prompt_between(
    api: Api, open_game: Any, locale: str, card: str, selected: str, prompt: str, moved: str
) -> None:
    """A card selected by its key, then sent by another: a screen reader
    hears the card selected by name (not "7♠", its symbol), then what the
    move did or why it was refused, not the prompt of play between them
    (heard after every such move); Escape, which only puts the card back,
    says the prompt. A hint names its card too."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, locale=locale)
    listen(page)
    page.keyboard.press("8")
    page.locator(".card.selected").wait_for()
    assert card[0] in page.locator("#prompt").inner_text()
    page.keyboard.press("1")  # onto the 9 of clubs: refused
    page.locator("#why:not([hidden])").wait_for()
    said = heard(page)
    assert len(said) == 2 and said[0].startswith(selected), said
    # (the bubble's words, with its cards by name: "7 of spades", not "7♠")
    seven, nine = {"en-GB": ("7 of spades", "9 of clubs"), "de-DE": ("Pik 7", "Kreuz 9")}[locale]
    assert said[1] == page.locator("#why").inner_text().replace("7♠", seven).replace("9♣", nine)
    assert not any(symbol in said[1] for symbol in "♠♥♦♣"), said
    page.keyboard.press("8")
    page.keyboard.press("Escape")
    settled(page)
    said = heard(page)
    assert len(said) == 2 and said[0].startswith(selected) and said[1].startswith(prompt), said
    ask_hint(page, by_key=True)
    said = heard(page)
    assert len(said) == 1 and not any(symbol in said[0] for symbol in "♠♥♦♣"), said
    page.keyboard.press("8")
    page.keyboard.press("f")
    page.wait_for_selector("body[data-moves='2']")
    settled(page)  # (and the auto-play after the move, which plays nothing here)
    said = heard(page)
    assert len(said) == 2 and said[0].startswith(selected) and said[1].startswith(moved), said


def test_the_end_of_a_game_is_heard_once_from_its_dialog(api: Api, open_game: Any) -> None:
    """Given up: the end screen takes the focus, and a screen reader hears
    its title and text there; no live region says it again (the prompt and
    the dialog, a live region too, said it before)."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game)
    listen(page)
    page.locator("#btn-giveup").click()
    page.locator("#dlg-confirm[open] #confirm-yes").click()
    end = page.get_by_role("dialog", name="Game given up")
    end.wait_for()
    assert page.evaluate("document.activeElement.closest('#dlg-end') !== null")
    assert heard(page) == []
    assert "You gave this game up" in page.locator("#prompt").inner_text()


def test_a_proved_loss_is_heard_once_from_its_dialog(api: Api, open_game: Any) -> None:
    """A hint that proves the loss (here in German): the end screen says so,
    not also the prompt and the toast; the last move, played while the end
    screen is still open, opens it again (with the focus) on the lost game."""
    record = golden("terrace-lost")
    game = api.new(variant=record.variant, options=record.rules.to_dict(), deal_number=record.deal.number)
    game = api.play(game, *record.moves[:-1])
    page = open_game(game, locale="de-DE", before_goto=lambda p: p.add_init_script(
        "localStorage.setItem('terrace.assist.peek', 'on')"))
    listen(page)
    ask_hint(page, by_key=True)
    # (its terrace is dead: the peeking hint says so, as the fair one does)
    page.get_by_role("dialog", name="Die Terrasse ist endgültig blockiert").wait_for()
    assert page.evaluate("document.activeElement.closest('#dlg-end') !== null")
    # (shown in the prompt; no toast, which lay over the dialog's buttons on a phone)
    assert "Kein Tipp" in page.locator("#prompt").inner_text()
    assert page.locator("#toast.show").count() == 0, page.locator("#toast").inner_text()
    assert heard(page) == []
    page.evaluate("""() => { window.entered = 0;
      document.querySelector('#dlg-end').addEventListener('focusin', () => { window.entered += 1; }); }""")
    api.play(game, record.moves[-1])  # (in another window: this one catches up when it gets the focus)
    # (a look within 500 ms of the last one is skipped: focus it again, as
    # test_browser_endgame's other-device test does)
    over = page.get_by_role("dialog", name="Spiel vorbei")
    for _ in range(10):
        page.evaluate("window.dispatchEvent(new Event('focus'))")
        if over.count():
            break
        page.wait_for_timeout(600)
    over.wait_for()
    assert page.evaluate("window.entered") == 1
    assert not any("Zug ist mehr" in words for words in heard(page))


@pytest.mark.parametrize(("locale", "deal", "resume", "said"), [
    ("en-GB", 5, "Resume", "Terrace · Deal 5."), ("de-DE", 6, "Weiterspielen", "Terrace · Spiel 6."),
])
def test_a_game_resumed_from_the_statistics_is_heard(
    api: Api, open_game: Any, locale: str, deal: int, resume: str, said: str
) -> None:
    """Resume closes the statistics and shows another game, whose prompt
    may be the same as the last one's: a screen reader hears which game it
    is (it heard nothing, back on the Statistics button)."""
    api.play(api.new(variant="terrace", deal_number=deal), "c1")
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c2"), locale=locale)
    listen(page)
    page.locator("#btn-stats").focus()
    page.keyboard.press("Enter")
    item = page.locator("#dlg-stats[open] li", has_text=f"{said[:-1]} ·").first
    item.get_by_role("button", name=resume).focus()
    page.keyboard.press("Enter")
    page.locator("#game-title", has_text=f" {deal}").wait_for()
    settled(page)
    assert heard(page) == [said]


def test_a_replay_s_base_card_is_heard_by_name(api: Api, open_game: Any) -> None:
    """The replay's first move, the base card chosen, is heard as in play
    (here in German), not as a count of the cards it moved: a replay's moves
    are the whole game's, its step says how many were played."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c2", "s"), locale="de-DE")
    page.locator("#btn-stats").click()
    page.locator("#dlg-stats[open] ol.recent li").first.get_by_role("button", name="Nachspielen").click()
    page.locator("#replay-bar:not([hidden])").wait_for()
    listen(page)
    page.locator("#replay-next").focus()
    page.keyboard.press("Enter")
    page.locator("#prompt", has_text="Zug 1 von 2").wait_for()
    settled(page)
    said = heard(page)
    assert len(said) == 1 and said[0].startswith("Basiskarte Karo 7: "), said


def test_the_alert_is_emptied_when_its_toast_hides(api: Api, open_game: Any) -> None:
    """A failed call: #alert says it while the toast shows it, and is empty
    once the toast hides, so that a screen reader going through the page
    later finds no stale message; a quiet toast (a hint) empties it too."""
    game = api.play(api.new(variant="terrace", deal_number=128681666), "c1")
    page = open_game(game, before_goto=lambda p: p.clock.install())  # (moved on past the toast's time)
    alert = page.locator("#alert")
    bad_gateway = lambda route: route.fulfill(  # noqa: E731
        status=502, body="<html>Bad gateway</html>", headers={"content-type": "text/html"})
    page.route("**/hint", bad_gateway)
    page.locator("#btn-hint").click()
    page.wait_for_selector("#toast.show", state="attached")
    assert "error 502" in alert.inner_text()
    page.clock.run_for(8_000)  # (what the test waited at most: the page's clock, not ours)
    page.wait_for_selector("#toast:not(.show)", state="attached", timeout=2_000)
    assert alert.text_content() == ""
    page.locator("#btn-hint").click()  # (fails again, then a hint: quiet, it is said by the prompt)
    page.wait_for_selector("#toast.show", state="attached")
    assert alert.text_content() != ""
    page.unroute("**/hint")
    ask_hint(page, by_key=True)
    assert page.locator("#prompt").inner_text().startswith("Hint: ")
    assert alert.text_content() == ""
    open_game.errors.clear()


def refused_the_second_time(page: Any, key: str, moves: int, words: str) -> None:
    """``key`` pressed once, leaving ``moves`` moves played, and again:
    the second is refused, in ``words``, heard and shown."""
    page.keyboard.press(key)
    page.wait_for_selector(f"body[data-moves='{moves}']")
    settled(page)
    heard(page)
    page.keyboard.press(key)
    settled(page)
    said = heard(page)
    assert words in said, said
    assert page.locator("#toast.show").inner_text() == words


@pytest.mark.parametrize(("locale", "undo", "redo"), [
    ("en-GB", "There is no move to undo.", "There is no move to redo."),
    ("de-DE", "Es gibt keinen Zug zum Zurücknehmen.", "Es gibt keinen Zug zum Wiederholen."),
])
def test_undo_and_redo_by_key_with_nothing_to_take_back_say_so(api: Api, open_game: Any, locale: str,
                                                               undo: str, redo: str) -> None:
    """Ctrl+Z with no move left to undo (Ctrl+Y with none to redo) did
    nothing and said nothing: only the buttons, disabled, showed it to
    whoever sees them. The refusal is now said (and shown), and nothing
    changes. Shown alone, the server's English refusal is a sentence, as
    its German is ("there is no move to undo" was shown and said)."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, locale=locale)
    listen(page)
    refused_the_second_time(page, "Control+z", 0, undo)
    assert page.evaluate("document.body.dataset.moves") == "0"
    refused_the_second_time(page, "Control+y", 1, redo)
    stored = api.client.get(f"/api/games/{game['id']}").json()
    assert stored["moves"] == 1 and not stored["can_redo"]
    # (the two refused requests, as the console reports them, and nothing else)
    assert len(open_game.errors) == 2 and all("409" in error for error in open_game.errors), open_game.errors
    open_game.errors.clear()


@pytest.mark.parametrize(("locale", "said"), [
    ("en-GB", "Base card 9 of clubs taken back. Choose the base card"),
    ("de-DE", "Basiskarte Kreuz 9 zurückgenommen. Wähle die Basiskarte"),
])
def test_the_base_card_taken_back_is_heard_by_name(api: Api, open_game: Any, locale: str, said: str) -> None:
    """Undoing the choice of the base card was heard as "8 cards moved."
    (the terrace's and the stock's cards go back with it): it is heard as
    the base card taken back, then what to do (choose again)."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, locale=locale)
    listen(page)
    page.keyboard.press("Control+z")
    page.wait_for_selector("body[data-moves='0']")
    settled(page)
    heard_now = heard(page)
    assert len(heard_now) == 1 and heard_now[0].startswith(said), heard_now


def test_said_is_emptied_once_heard_and_the_same_words_are_said_again(api: Api, open_game: Any) -> None:
    """#said kept its last message for good: a reader going through the
    page found it there long after, and the same words again (a card that
    cannot move, pressed twice) left the region's text as it was, which a
    screen reader does not read again. The words now come into an empty
    region each time, and it is emptied a few seconds later."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, before_goto=lambda p: p.clock.install())  # (moved on past the words' time)
    page.evaluate("""() => { window.saidSeen = []; const said = document.querySelector('#said');
      new MutationObserver(() => window.saidSeen.push(said.textContent))
        .observe(said, {childList: true, characterData: true, subtree: true}); }""")
    page.locator("[data-pile='t4']").focus()
    for _ in range(2):
        page.keyboard.press("1")  # the 9 of clubs: nowhere to go
        page.locator("#why:not([hidden])").wait_for()
        page.keyboard.press("Escape")
        page.locator("#why").wait_for(state="hidden")
    words = "The 9 of clubs"
    page.locator("#said", has_text=words).wait_for()
    seen = page.evaluate("window.saidSeen")
    assert [text[:len(words)] for text in seen] == [words, "", words], seen
    page.clock.run_for(8_000)  # (what the test waited at most: the page's clock, not ours)
    page.locator("#said:empty").wait_for(timeout=2_000)


NO_PILE_10 = "There is no pile 10 in this game: its piles run from 1 to 9."


def test_a_refusal_stays_in_the_prompt_until_the_player_goes_on(api: Api, open_game: Any) -> None:
    """Why a move was refused was shown for a few seconds only (the bubble
    by the card, a toast) and said once: a player who looked away, or
    whose screen reader's speech the next key cut off, had lost it. The
    prompt now keeps the words once the bubble and the toast are gone,
    until the player goes on (Escape here)."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, before_goto=lambda p: p.clock.install())  # (moved on past the bubble's time)
    prompt = page.locator("#prompt")
    page.locator("[data-pile='t4']").focus()
    page.keyboard.press("1")  # the 9 of clubs: nowhere to go
    why = page.locator("#why:not([hidden])")
    why.wait_for()
    words = why.inner_text()
    page.keyboard.press("0")  # (no pile 10: a toast, and a key hides the bubble)
    page.wait_for_selector("#toast.show", state="attached")
    assert prompt.inner_text() == NO_PILE_10
    page.clock.run_for(8_000)
    page.wait_for_selector("#toast:not(.show)", state="attached", timeout=2_000)
    assert prompt.inner_text() == NO_PILE_10
    page.keyboard.press("1")
    why.wait_for()
    page.clock.run_for(8_000)
    page.locator("#why").wait_for(state="hidden")
    assert prompt.inner_text() == words
    page.keyboard.press("Escape")
    assert prompt.inner_text().startswith("Drag a card, or double-click it")


PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True}


@pytest.mark.parametrize(("locale", "words", "end"), [
    ("en-GB", "This card is alone in its pile: moving it", "then reload the page."),
    ("de-DE", "Diese Karte liegt allein in ihrem Stapel: Sie in einen", "und lade sie dann neu."),
])
def test_a_refusal_on_a_phone_is_shown_once_and_whole(api: Api, open_game: Any, locale: str,
                                                      words: str, end: str) -> None:
    """On an upright phone the toast lay over the prompt, which keeps the
    refusal: the same words twice, one on the other. The prompt shows them
    alone there (marked as a refusal), and they are heard once. A short
    window (a phone turned sideways) clipped the prompt to two lines, and
    the end of a long refusal with them: it is shown whole."""
    game = api.play(api.new(variant="terrace", deal_number=1, options={"spaces": "free"}), "c1", "t9f")
    page = open_game(game, locale=locale, **PHONE)
    listen(page)
    top(page, "t1").dblclick()  # (its one move, into another space, changes nothing)
    page.wait_for_selector("#toast.show", state="attached")
    settled(page)
    prompt = page.locator("#prompt")
    assert prompt.inner_text().startswith(words)
    toast = page.locator("#toast")
    until(lambda: toast.evaluate("(t) => t.getAnimations().length === 0"))  # (its slide in)
    overlap = """([toast, prompt]) => {
      const [a, b] = [toast.getBoundingClientRect(), prompt.getBoundingClientRect()];
      return toast.getClientRects().length > 0 && a.top < b.bottom && b.top < a.bottom; }"""
    assert not page.evaluate(overlap, [toast.element_handle(), prompt.element_handle()])
    assert [text for text in heard(page) if words in text] == [prompt.inner_text()]
    page.set_viewport_size({"width": 568, "height": 320})
    until(lambda: page.evaluate("matchMedia('(height < 560px)').matches"))
    # (the page's longest words: a request the server refused as too large)
    page.route("**/hint", lambda route: route.fulfill(status=431, body=""))
    page.locator("#btn-hint").click()
    settled(page)
    assert prompt.inner_text().endswith(end)
    assert prompt.evaluate("(p) => p.scrollHeight <= p.clientHeight + 1"), "clipped"
    open_game.errors.clear()  # (the browser's console reports the 431)


KEYS_AT_ONCE = """(keys) => { for (const [key, ctrlKey] of keys) document.activeElement.dispatchEvent(
  new KeyboardEvent('keydown', { key, ctrlKey, bubbles: true, cancelable: true })); }"""
"""Press the keys ``[[key, ctrl], ...]`` in one go: each is queued before
any answer comes back."""


def test_a_refusal_goes_once_a_later_move_is_answered(api: Api, open_game: Any) -> None:
    """A key refused, then a draw, pressed before the refusal came back:
    the bubble by the card (the 9 of clubs stuck), and the toast of a redo
    the server refused, stayed seconds after the draw's answer, naming a
    refusal while the prompt had moved on. They go with it now; a refusal
    of a key pressed after the draw waits for the draw's answer."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, before_goto=lambda p: p.clock.install())  # (their own time never runs out)
    prompt = page.locator("#prompt")
    page.locator("[data-pile='t4']").focus()
    for moves, refused in ((2, ["1", False]), (3, ["y", True])):
        page.evaluate(KEYS_AT_ONCE, [refused, [" ", False]])
        page.wait_for_selector(f"body[data-moves='{moves}']")
        settled(page)
        assert prompt.inner_text().startswith("Drag a card")
        assert page.locator("#why").is_hidden()
        assert page.locator("#toast.show").count() == 0, page.locator("#toast").inner_text()
    # (a refusal of the page's own, after a draw not answered yet: it waits its turn, and stays)
    page.evaluate(KEYS_AT_ONCE, [[" ", False], ["0", False]])
    page.wait_for_selector("body[data-moves='4']")
    settled(page)
    assert prompt.inner_text() == NO_PILE_10
    assert page.locator("#toast.show").inner_text() == NO_PILE_10
    open_game.errors.clear()  # (the browser's console reports the redo's 409)


def test_a_refused_hint_and_a_replay_that_fails_stay_in_the_prompt(api: Api, open_game: Any) -> None:
    """A hint the server refused, a replay that failed to start, and a game
    to resume that could not be read, had a toast only, gone in a few
    seconds, where every other refusal stays in the prompt until the player
    goes on."""
    other = api.play(api.new(variant="terrace", deal_number=4531), "c2")
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, before_goto=lambda p: p.clock.install())
    prompt = page.locator("#prompt")
    refused = lambda route: route.fulfill(  # noqa: E731
        status=404, content_type="application/json", body='{"error": "no such game", "code": "x"}')
    for address in ("**/hint", "**/position*", f"**/api/games/{other['id']}"):
        page.route(address, refused)
    # (Replay of the game on the table, Resume of another: the game on the table has none)
    for button, deal in (("Replay", 7), ("Resume", 4531), (None, 0)):
        if button:
            page.locator("#btn-stats").click()
            line = page.locator("#dlg-stats[open] ol.recent li", has_text=f"Deal {deal} ·").first
            line.get_by_role("button", name=button).click()
        else:
            page.locator("#btn-hint").click()
        page.wait_for_selector("#toast.show", state="attached")
        settled(page)
        page.clock.run_for(8_000)  # (past the toast's time)
        page.wait_for_selector("#toast:not(.show)", state="attached", timeout=2_000)
        assert prompt.inner_text() == "No such game.", button
        page.keyboard.press("Escape")
        assert prompt.inner_text().startswith("Drag a card")
    open_game.errors.clear()  # (the browser's console reports the 404s)
