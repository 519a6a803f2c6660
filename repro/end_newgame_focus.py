"""End screen -> Neues Spiel -> Los, all by keyboard: where is the focus after the new game starts?"""
import httpx
from kb import *
LOST_AT_START = {"variant": "terrace", "deal_number": 1, "options": {"decks": 1, "piles": 1, "reserve": 50, "candidates": 0}}
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=LOST_AT_START).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    for vp in ({"width": 1280, "height": 860}, {"width": 390, "height": 844}):
        page = b.new_context(locale="de-DE", viewport=vp).new_page()
        page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
        page.wait_for_selector("dialog.end[open]"); page.wait_for_timeout(300)
        print(vp["width"], "end focus", focus(page)["text"])
        while focus(page).get("text") != "Neues Spiel" or not focus(page).get("inDialog"): page.keyboard.press("Tab")
        page.keyboard.press("Enter"); page.wait_for_selector("#dlg-new[open]")
        while page.evaluate("document.activeElement.id") != "new-start": page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.wait_for_selector("#dlg-new:not([open])", state="attached"); page.wait_for_timeout(500)
        print(vp["width"], "after start", focus(page))
        # Brett ansehen path
        page.close()
    b.close()
