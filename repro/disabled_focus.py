"""Press Undo (or Redo, Restart) by keyboard until it has nothing left to do:
the button becomes disabled under the focus, which falls to <body>."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    for m in ("c2", "s"): g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    for btn, end in (("#btn-undo", "0"), ("#btn-redo", "2")):
        page.locator(btn).focus()
        while page.evaluate("document.body.dataset.moves") != end:
            page.keyboard.press("Enter"); page.wait_for_timeout(400)
        page.wait_for_timeout(300)
        print(btn, "pressed until", end, "moves -> focus:", focus(page))
        page.keyboard.press("Tab"); print("   then Tab ->", focus(page).get("text") or focus(page))
    page.locator("#btn-restart").focus(); page.keyboard.press("Enter"); page.wait_for_timeout(800)
    print("#btn-restart ->", page.evaluate("document.body.dataset.moves"), focus(page))
    b.close()
