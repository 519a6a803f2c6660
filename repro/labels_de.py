"""The piles' accessible names in German, at a few positions (read them)."""
import httpx, json, subprocess
from kb import *
line = json.loads(subprocess.run(["/tmp/att_kbd/.venv/bin/terrace", "solve", "-v", "terrace", "--deal-number", "7", "--json"], capture_output=True, text=True).stdout)["moves"]
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    for variant, opts, moves in (("terrace", {}, line[:3]), ("terrace", {"foundations": "suit"}, ["c1", "s"]), ("falling-star", {}, ["s"])):
        g = c.post("/api/games", json=dict(variant=variant, deal_number=7, options=opts)).json()
        for m in moves:
            r = c.post(f"/api/games/{g['id']}/moves", json={"move": m}); g = r.json() if r.status_code == 200 else g
        page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
        print(variant, opts)
        for lab in page.evaluate("[...document.querySelectorAll('[data-pile]')].map(n => n.getAttribute('aria-label'))")[:12]: print("  ", lab)
        print("  counters:", page.locator("#counters").inner_text().replace("\n", " "))
    b.close()
