"""Analyse by keyboard from the end screen, German: focus while analysing,
after, and on 'Zeigen, wo es verloren ging'."""
import httpx, sys
from kb import *
sys.path.insert(0, "/tmp/att_kbd/tests")
from test_web_coach import SMALL, SMALL_DEAL, thrown_away
moves, _ = thrown_away()
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False, timeout=60)
    g = c.post("/api/games", json=dict(variant="terrace", options=SMALL, deal_number=SMALL_DEAL)).json()
    for m in moves: g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    print("status", g["status"])
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE", reduced_motion="reduce").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("dialog.end[open]"); page.wait_for_timeout(300)
    print("end focus:", focus(page).get("text"))
    page.keyboard.press("Enter")  # Analysieren
    page.wait_for_timeout(150)
    print("analysing, focus:", focus(page).get("text") or focus(page), "| note:", page.locator("#coach-note").inner_text()[:80])
    page.wait_for_selector("#coach-note:not([data-state='busy']):not([hidden])", timeout=60000); page.wait_for_timeout(300)
    print("analysed, focus:", focus(page).get("text") or focus(page))
    print("note:", page.locator("#coach-note").inner_text())
    page.locator("#replay-next").focus(); page.keyboard.press("Enter"); page.wait_for_timeout(500)
    gt = page.locator("#coach-goto")
    print("goto shown:", gt.count())
    if gt.count():
        gt.focus(); page.keyboard.press("Enter"); page.wait_for_timeout(600)
        print("after goto:", focus(page).get("text") or focus(page))
    page.locator("#replay-coach").focus() if page.locator("#replay-coach").is_visible() else None
    if page.locator("#replay-coach").is_visible():
        page.keyboard.press("Enter"); page.wait_for_timeout(100)
        print("replay-coach pressed, focus:", focus(page).get("text") or focus(page))
        page.wait_for_selector("#coach-note:not([data-state='busy']):not([hidden])", timeout=60000); page.wait_for_timeout(300)
        print("  after:", focus(page).get("text") or focus(page))
    b.close()
