"""A custom game with one base candidate: the prompt said 'Klicke eine der 1 Karten an' / 'one of the 1 candidates'."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=3, options={"candidates": 1})).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    print(page.locator("#prompt").inner_text())
    b.close()
