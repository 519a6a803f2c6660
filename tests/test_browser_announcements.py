"""What a screen reader hears, in a real browser: the text added to every
live region (aria-live, role status, alert or log, an output element) is
recorded while the player acts, and each message is to be heard once.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import Api

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
  new MutationObserver((records) => {
    for (const region of new Set(records.map((r) => liveRegion(r.target)).filter(Boolean))) {
      const text = region.textContent.trim();
      if (text && region.getClientRects().length) window.heard.push(text);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""
"""Records in ``window.heard`` the text of each shown live region that changed."""


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
    one live region says it, move and what backs it (the toast said it a
    second time)."""
    game = api.play(api.new(variant="terrace", deal_number=128681666), "c1")
    page = open_game(game, locale=locale)
    listen(page)
    for by_key in (True, False):
        ask_hint(page, by_key)
        shown = page.locator("#prompt").inner_text()
        assert shown.startswith(hint) and backing in shown
        assert page.locator("#toast.show").inner_text() == shown
        assert heard(page) == [shown]
