"""A hint (peek assist on) one move before the win: 'Gewinnweg von 1 Zügen' / 'of 1 moves'."""
import httpx, sys
sys.path.insert(0, "/tmp/att_kbd/tests")
from web_support import WINNING_LINE as L
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False, timeout=60)
    g = c.post("/api/games", json=dict(variant=L["variant"], options=L["options"], deal_number=L["deal_number"])).json()
    for m in L["moves"][:-1]: g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    for loc in ("de-DE", "en-GB"):
        ctx = b.new_context(locale=loc)
        ctx.add_init_script("localStorage.setItem('terrace.assist.peek', 'on'); localStorage.setItem('terrace.autoplay', 'off')")
        page = ctx.new_page()
        page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
        page.keyboard.press("h"); page.wait_for_selector(".hint-src", timeout=30000)
        print(loc, page.locator("#prompt").inner_text())
        ctx.close()
    b.close()
