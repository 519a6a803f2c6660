"""Phone (390x844) with a keyboard: open Statistics from the menu, close it
with Escape: where is the focus? (was: <body>)"""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    c.post(f"/api/games/{g['id']}/moves", json={"move": "c1"})
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE", viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    for item in ("btn-stats", "btn-rules", "btn-settings", "btn-giveup"):
        page.locator("#btn-menu").focus(); page.keyboard.press("Enter")
        while page.evaluate("document.activeElement.id") != item: page.keyboard.press("Tab")
        page.keyboard.press("Enter"); page.wait_for_selector("dialog[open]"); page.wait_for_timeout(300)
        page.keyboard.press("Escape"); page.wait_for_timeout(300)
        print(item, "-> focus after Escape:", focus(page))
    b.close()
