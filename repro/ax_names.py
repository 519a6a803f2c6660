"""Every interactive node in the accessibility tree has a German name (main
page, each dialog, replay, chances)."""
import httpx
from kb import *
ROLES = {"button", "link", "combobox", "checkbox", "radio", "textbox", "spinbutton", "listbox", "menuitem", "tab", "switch", "slider", "dialog", "alertdialog", "img", "region", "navigation", "main", "group", "table"}
def scan(page, cdp, where):
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    out = []
    for n in nodes:
        if n.get("ignored"): continue
        role = n.get("role", {}).get("value")
        name = (n.get("name") or {}).get("value", "")
        if role in ROLES:
            if not name.strip() and role not in ("group", "img", "table"):
                out.append(("NONAME", role))
            elif WORDS.search(name) or any(f in name for f in FRAGMENTS):
                out.append(("ENGLISH?", role, name))
    print(where, out if out else "ok")
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    for m in ("c2", "s"): g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    cdp = page.context.new_cdp_session(page)
    scan(page, cdp, "main")
    for btn, dlg in (("#btn-new", "#dlg-new"), ("#btn-stats", "#dlg-stats"), ("#btn-rules", "#dlg-rules"), ("#btn-settings", "#dlg-settings")):
        page.locator(btn).focus(); page.keyboard.press("Enter"); page.wait_for_selector(f"{dlg}[open]"); page.wait_for_timeout(400)
        if dlg == "#dlg-new": page.locator("#dlg-new summary").click()
        scan(page, cdp, dlg)
        page.keyboard.press("Escape"); page.wait_for_timeout(200)
    # a new game to see the Chances button (choosing)
    g2 = c.post("/api/games", json=dict(variant="terrace", deal_number=8)).json()
    page.goto(f"{srv.url}?game={g2['id']}"); page.wait_for_selector("body[data-ready='true']")
    ch = page.locator("#btn-chances")
    if ch.count():
        ch.focus(); page.keyboard.press("Enter"); page.wait_for_timeout(6000)
        scan(page, cdp, "chances")
        print("  chances text:", page.evaluate("document.querySelector('#chances, .chances') ? document.querySelector('#chances, .chances').innerText : ''")[:300])
    b.close()
