"""Replay by keyboard (Statistik -> Nachspielen): Next to the end, Previous
to the start, Back to my game: where is the focus each time?"""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    for m in ("c2", "s", "s"): g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("#btn-stats").focus(); page.keyboard.press("Enter"); page.wait_for_selector("#dlg-stats[open] .recent")
    while focus(page).get("text") != "Nachspielen": page.keyboard.press("Tab")
    page.keyboard.press("Enter"); page.wait_for_selector("#replay-bar:not([hidden])"); page.wait_for_timeout(300)
    print("replay started, focus:", focus(page).get("text") or focus(page), "| prompt:", page.locator("#prompt").inner_text())
    page.locator("#replay-next").focus()
    for _ in range(3):
        page.keyboard.press("Enter"); page.wait_for_timeout(400)
    print("Next x3:", page.locator("#prompt").inner_text(), "| focus:", focus(page).get("text") or focus(page), "| said:", page.locator("#said").text_content())
    page.locator("#replay-prev").focus()
    for _ in range(3):
        page.keyboard.press("Enter"); page.wait_for_timeout(400)
    print("Prev x3:", page.locator("#prompt").inner_text(), "| focus:", focus(page).get("text") or focus(page))
    page.locator("#replay-exit").focus(); page.keyboard.press("Enter"); page.wait_for_selector("#replay-bar[hidden]", state="attached"); page.wait_for_timeout(300)
    print("Back to my game:", focus(page).get("text") or focus(page))
    b.close()
