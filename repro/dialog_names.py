"""Every dialog should have an accessible name (its heading) - screen readers announce it on open."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False, timeout=60)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    for m in ("c1", "s"): g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    cdp = page.context.new_cdp_session(page)
    def name_of(sel):
        node = cdp.send("DOM.getDocument")
        nid = cdp.send("DOM.querySelector", {"nodeId": node["root"]["nodeId"], "selector": sel})["nodeId"]
        ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": nid, "fetchRelatives": False})["nodes"][0]
        return ax["role"]["value"], ax.get("name", {}).get("value")
    for btn, dlg in [("#btn-new", "#dlg-new"), ("#btn-stats", "#dlg-stats"), ("#btn-rules", "#dlg-rules"), ("#btn-settings", "#dlg-settings"), ("#btn-giveup", "#dlg-confirm")]:
        page.locator(btn).focus(); page.keyboard.press("Enter")
        page.wait_for_selector(f"{dlg}[open]"); page.wait_for_timeout(300)
        print(dlg, name_of(dlg))
        page.keyboard.press("Escape"); page.wait_for_timeout(300)
    page.locator("#btn-giveup").focus(); page.keyboard.press("Enter"); page.wait_for_selector("#dlg-confirm[open]"); page.keyboard.press("Enter")
    page.wait_for_selector("dialog.end[open]"); page.wait_for_timeout(300)
    print("#dlg-end", name_of("#dlg-end"))
    b.close()
