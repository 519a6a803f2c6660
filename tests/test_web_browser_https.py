"""Remote play over HTTPS in a real browser: the secret link, served with
the self-signed certificate ``terrace play --https`` makes, sets a cookie
that is Secure, HttpOnly and SameSite=Lax, and the game plays."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from browser_support import open_deal_7_by_the_page
from terrace.web.security import token_cookie
from web_support import started_server

pytestmark = pytest.mark.browser


def test_the_secret_link_plays_over_https(browser: Any, tmp_path: Path) -> None:
    with started_server("--remote", "--host", "127.0.0.1", "--https",
                        env={"XDG_DATA_HOME": str(tmp_path)}) as server:
        match = re.search(r"https://\S+", server.first_line)
        assert match is not None, server.first_line
        assert (tmp_path / "terrace" / "remote-https" / "cert.pem").exists()
        errors: list[str] = []
        # (the certificate is self-signed: as the player accepting it once)
        context = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 860})
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(match.group(0))
        page.get_by_role("button", name="Open the game").click()  # (the link's page)
        page.wait_for_selector("body[data-ready='true']")
        assert page.url == server.url and "token" not in page.url
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        (cookie,) = [c for c in context.cookies() if c["name"] == token_cookie(port)]
        assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
        assert [c["name"] for c in context.cookies()] == [cookie["name"]]  # (the link's hold let go)
        open_deal_7_by_the_page(page, server.url)
        page.locator("#btn-hint").click()
        page.locator(".hint-src").wait_for()
        context.close()
        assert errors == []
        server.stop()
        assert "Traceback" not in server.stderr()
