"""Chances by keyboard while choosing the base card: where is the focus
while it samples and after, and is the answer announced (live region)?"""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=8)).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("#btn-chances").focus(); page.keyboard.press("Enter"); page.wait_for_timeout(100)
    print("while sampling:", focus(page).get("text") or focus(page))
    page.wait_for_selector(".chances-text", timeout=60000); page.wait_for_timeout(200)
    print("after:", focus(page).get("text") or focus(page))
    print("text:", page.locator(".chances-text").inner_text())
    print("live ancestor:", page.evaluate("!!document.querySelector('.chances-text').closest('[aria-live],[role=status],[role=alert]')"))
    b.close()
