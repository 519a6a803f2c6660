"""A foundation's accessible name in German: the rank it waits for is a
letter ('wartet auf eine B' for a jack), the next card a symbol ('als
Nächstes 10♣'), the colour not declined ('schwarz 8')."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    found = {}
    for deal in range(1, 60):
        for opts in ({}, {"foundations": "suit"}):
            g = c.post("/api/games", json=dict(variant="terrace", deal_number=deal, options=opts)).json()
            for ch in g["choices"]:
                if ch["card"][0] in "JQKA" and (ch["card"][0], bool(opts)) not in found:
                    g2 = c.post(f"/api/games/{g['id']}/moves", json={"move": ch["move"]}).json()
                    found[(ch["card"][0], bool(opts))] = g2["id"]
                    break
        if len(found) >= 6: break
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    for key, gid in sorted(found.items()):
        page.goto(f"{srv.url}?game={gid}"); page.wait_for_selector("body[data-ready='true']")
        print(key, page.evaluate("[document.querySelector('[data-pile=f1]').getAttribute('aria-label'), document.querySelector('[data-pile=f2]').getAttribute('aria-label')]"))
    b.close()
