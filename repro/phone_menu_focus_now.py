"""Phone menu -> Settings -> Escape: the focus right after the dialog closes
(not after its close event): it stood a moment on a hidden field of the closed dialog."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE", viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    for item in ("btn-settings", "btn-rules"):
        page.locator("#btn-menu").focus(); page.keyboard.press("Enter")
        while page.evaluate("document.activeElement.id") != item: page.keyboard.press("Tab")
        page.keyboard.press("Enter"); page.wait_for_selector("dialog[open]"); page.wait_for_timeout(300)
        print(item, "closed at once ->", page.evaluate("(() => { document.querySelector('dialog[open]').close(); return document.activeElement.id || document.activeElement.tagName; })()"))
    b.close()
