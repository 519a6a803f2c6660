"""Refused moves by key, German: what do the live regions say, and is the
bubble (#why) in the accessibility tree before it gets its text?"""
import httpx
from kb import *
LIVE = """() => [...document.querySelectorAll('[aria-live],[role=status],[role=alert]')]
  .filter(n => !n.closest('[hidden]') && !n.closest('dialog:not([open])')).map(n => (n.id || n.className) + ': ' + n.textContent.trim())"""
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    g = c.post(f"/api/games/{g['id']}/moves", json={"move": "c2"}).json()
    print({k: (v["auto"], list(v["targets"])) for k, v in g["sources"].items()})
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("[data-pile='t4']").focus()
    cdp = page.context.new_cdp_session(page)
    def in_tree():
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        return [n.get("name", {}).get("value") for n in nodes if any(p.get("name") == "live" for p in n.get("properties", []))]
    print("live regions in AX tree before:", in_tree())
    for keys in (["1"], ["3", "6"], ["3", "f"], ["r", "f"], ["w"], ["f"]):
        for k in keys: page.keyboard.press(k)
        page.wait_for_timeout(700)
        print(keys, "->", page.evaluate(LIVE), "| focus:", focus(page).get("text"))
        page.keyboard.press("Escape"); page.wait_for_timeout(100)
    b.close()
