"""The end screen (lost game) by keyboard: Escape does not close it, and Tab
leaves it for the piles it covers (focus behind an open dialog)."""
import httpx, sys
from kb import *
sys.path.insert(0, "/tmp/att_kbd/tests")
from store_support import golden
rec = golden("terrace-lost")
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False, timeout=60)
    g = c.post("/api/games", json=dict(variant=rec.variant, options=rec.rules.to_dict(), deal_number=rec.deal.number)).json()
    for m in rec.moves: g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE", viewport={"width": 1280, "height": 860}).new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("dialog.end[open]"); page.wait_for_timeout(300)
    print("focus on open:", focus(page)["text"])
    covered = []
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("""() => { const a = document.activeElement, d = document.querySelector('dialog.end');
            if (!d.open || d.contains(a) || a === document.body) return false;
            const x = a.getBoundingClientRect(), r = d.getBoundingClientRect();
            return !(x.right < r.left || x.left > r.right || x.bottom < r.top || x.top > r.bottom); }"""):
            covered.append(focus(page)["text"])
    print("focus reached, under the open end screen:", covered)
    page.locator("dialog.end button").first.focus()
    page.keyboard.press("Escape"); page.wait_for_timeout(300)
    print("Escape inside the end screen closes it:", not page.evaluate("document.querySelector('dialog.end').open"), "| focus:", focus(page).get("text"))
    b.close()
