"""Settings stored in the browser (localStorage) in a real browser: a value
that is not one of a setting's own (garbage, or from another version of the
page) is taken for the default, never shown nor sent to the server.

Without Chromium these tests are skipped, except under ``CI=true`` where
they fail.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from browser_support import Api, moves_seen, settled, top

pytestmark = pytest.mark.browser

GARBAGE = {
    "terrace.click": "triple",
    "terrace.autoplay": "bogus",
    "terrace.animate": "maybe",
    "terrace.timer": "",
    "terrace.assist.verdicts": "yes",
    "terrace.assist.peek": "1",
    "terrace.assist.warn": "true",
    "terrace.lang": "toString",
}


def _store(values: dict[str, str]) -> Any:
    script = "".join(f"localStorage.setItem({json.dumps(k)}, {json.dumps(v)});" for k, v in values.items())
    return lambda page: page.add_init_script(script)


def test_garbage_settings_fall_back_to_the_defaults(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game, before_goto=_store(GARBAGE))
    prompt = page.locator("#prompt").text_content()
    assert prompt.startswith("Drag a card, or double-click it to send it home.")
    assert page.evaluate("document.documentElement.lang") == "en"
    # A double click sends 9D home (the default click) and the default
    # auto-play (finish) is asked for: no error toast.
    top(page, "t7").dblclick()
    moves_seen(page, 2)
    settled(page)  # (the auto-play asked for, and answered)
    assert "error" not in (page.locator("#toast").get_attribute("class") or "")
    settings = page.evaluate("JSON.stringify(window.localStorage)")
    assert "bogus" in settings  # (nothing was rewritten: only read with care)
    page.locator("#btn-settings").click()
    page.wait_for_selector("#dlg-settings[open]")
    assert page.locator("input[name='autoplay'][value='finish']").is_checked()

