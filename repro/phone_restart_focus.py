"""Phone with a keyboard: Menu -> Von vorn (Restart): the menu closes and
hides the item that had the focus; the focus falls to <body>."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    for m in ("c2", "s"): g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE", viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("#btn-menu").focus(); page.keyboard.press("Enter")
    print("menu open, focus:", focus(page).get("text"))
    page.keyboard.press("Enter")  # Von vorn
    page.wait_for_selector("body[data-moves='0']"); page.wait_for_timeout(300)
    print("after Restart:", focus(page))
    b.close()
