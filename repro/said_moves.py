"""Screen reader: after a key move or a draw, what do the live regions
(role=status/alert, aria-live) say? Nothing names the card that moved or
the card turned up."""
import httpx
from kb import *
LIVE = """() => [...document.querySelectorAll('[aria-live],[role=status],[role=alert]')]
  .filter(n => !n.closest('[hidden]') && !n.closest('dialog:not([open])')).map(n => (n.id || n.className) + ': ' + n.textContent.trim())"""
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    c.post(f"/api/games/{g['id']}/moves", json={"move": "c2"})
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("[data-pile='t4']").focus()
    for keys, n in ((["8", "f"], 2), ([" "], 3), (["Control+z"], 2)):
        for k in keys: page.keyboard.press(k)
        page.wait_for_selector(f"body[data-moves='{n}']"); page.wait_for_timeout(300)
        print(keys, "->", page.evaluate(LIVE))
    b.close()
