"""Settings dialog by keyboard: change the language in it; where is the focus?
Also print the Settings, Stats and New game (options open) texts in German."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    for d in (3, 4, 5):
        g = c.post("/api/games", json=dict(variant="terrace", deal_number=d)).json()
        c.post(f"/api/games/{g['id']}/moves", json={"move": "c1"})
    c.post(f"/api/games/{g['id']}/give-up", json={})
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("#btn-settings").focus(); page.keyboard.press("Enter"); page.wait_for_selector("#dlg-settings[open]")
    print(page.locator("#dlg-settings").inner_text())
    while page.evaluate("document.activeElement.id") != "set-lang": page.keyboard.press("Tab")
    page.keyboard.press("ArrowUp"); page.wait_for_timeout(300)
    print("after lang change in settings:", page.evaluate("document.documentElement.lang"), focus(page))
    page.keyboard.press("Tab"); print("next Tab:", focus(page))
    page.keyboard.press("Escape")
    page.locator("#lang").focus(); page.keyboard.press("ArrowDown"); page.wait_for_timeout(200)
    page.locator("#btn-stats").focus(); page.keyboard.press("Enter"); page.wait_for_selector("#dlg-stats[open] .recent")
    print(page.locator("#dlg-stats").inner_text())
    page.keyboard.press("Escape")
    page.locator("#btn-new").focus(); page.keyboard.press("Enter"); page.wait_for_selector("#dlg-new[open]")
    page.locator("#dlg-new summary").focus(); page.keyboard.press("Enter")
    print(page.locator("#dlg-new").inner_text())
    b.close()
