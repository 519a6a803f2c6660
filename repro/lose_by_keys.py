"""Lose and give up games by keyboard in German; check the end dialogs."""
import httpx, sys
from kb import *
sys.path.insert(0, "/tmp/att_kbd/tests")
from store_support import golden
VIEW = {"width": 1280, "height": 860}
if len(sys.argv) > 1 and sys.argv[1] == "phone":
    VIEW = {"width": 390, "height": 844}
problems, eng = [], []
rec = golden("terrace-lost")
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False, timeout=60)
    g = c.post("/api/games", json=dict(variant=rec.variant, options=rec.rules.to_dict(), deal_number=rec.deal.number)).json()
    for m in rec.moves[:-1]:
        g = c.post(f"/api/games/{g['id']}/moves", json={"move": m}).json()
    print("last move", rec.moves[-1], "status", g["status"])
    b = p.chromium.launch(executable_path=CHROMIUM)
    ctx = b.new_context(locale="de-DE", viewport=VIEW)
    page = ctx.new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.keyboard.press("Tab")
    while not page.evaluate("Boolean(document.activeElement.dataset.pile)"): page.keyboard.press("Tab")
    last = rec.moves[-1]
    print("focus", focus(page))
    keys = {"s": [" "]}.get(last)
    if keys is None:
        src = last[1] if last[0] == "t" else last[0]
        keys = [src, "f"] if last.endswith("f") or "f" in last[1:] else [src, last[-1]]
    print("keys", keys)
    for k in keys: page.keyboard.press(k)
    page.wait_for_selector("dialog.end[open]")
    page.wait_for_timeout(500)
    print("LOST end:", page.locator("dialog.end").inner_text().replace("\n", " | "))
    print("prompt:", page.locator("#prompt").inner_text())
    f = focus(page); print("focus at lost", f)
    english(page, "lost", eng)
    page.keyboard.press("Escape"); page.wait_for_timeout(300)
    print("after Escape: end open?", page.evaluate("document.querySelector('dialog.end').open"), focus(page))
    # where does Tab go
    for _ in range(30):
        page.keyboard.press("Tab")
        ff = focus(page)
        if ff.get("pile"):
            # is it covered by the end dialog?
            cov = page.evaluate("""() => { const a = document.activeElement.getBoundingClientRect();
               const d = document.querySelector('dialog.end'); if (!d.open) return false; const r = d.getBoundingClientRect();
               return !(a.right < r.left || a.left > r.right || a.bottom < r.top || a.top > r.bottom); }""")
            if cov: print("  focus on pile covered by end dialog:", ff["pile"])
    page.screenshot(path=f"/tmp/att_kbd/repro/lost_{VIEW['width']}.png")
    # undo via Ctrl+Z while the end dialog is open (focus on board)
    page.keyboard.press("Control+z"); page.wait_for_timeout(800)
    print("after ctrl+z: status", page.evaluate("document.body.dataset.status"), "end open", page.evaluate("document.querySelector('dialog.end').open"), focus(page))
    # Give up by keyboard
    if VIEW["width"] < 500:
        while page.evaluate("document.activeElement.id") != "btn-menu": page.keyboard.press("Shift+Tab")
        page.keyboard.press("Enter")
    while page.evaluate("document.activeElement.id") != "btn-giveup": page.keyboard.press("Shift+Tab" if VIEW["width"] >= 500 else "Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("#dlg-confirm[open]")
    print("confirm:", page.locator("#dlg-confirm").inner_text().replace("\n", " | "), focus(page))
    print("confirm role/name:", page.evaluate("(() => { const d = document.querySelector('#dlg-confirm'); return [d.getAttribute('role'), d.getAttribute('aria-labelledby'), d.getAttribute('aria-label'), d.getAttribute('aria-describedby')]; })()"))
    english(page, "confirm", eng)
    page.keyboard.press("Escape"); page.wait_for_timeout(300)
    print("after Escape on confirm:", page.evaluate("document.body.dataset.status"), focus(page))
    if VIEW["width"] < 500:
        print("menu open?", page.evaluate("document.querySelector('.bar').classList.contains('menu-open')"))
        if not page.evaluate("document.querySelector('.bar').classList.contains('menu-open')"):
            while page.evaluate("document.activeElement.id") != "btn-menu": page.keyboard.press("Shift+Tab")
            page.keyboard.press("Enter")
    while page.evaluate("document.activeElement.id") != "btn-giveup": page.keyboard.press("Tab")
    page.keyboard.press("Enter"); page.wait_for_selector("#dlg-confirm[open]")
    page.keyboard.press("Enter")  # yes is focused
    page.wait_for_selector("body[data-status='lost']")
    page.wait_for_selector("dialog.end[open]"); page.wait_for_timeout(300)
    print("GIVEN UP end:", page.locator("dialog.end").inner_text().replace("\n", " | "))
    print("focus after give up", focus(page))
    print("prompt:", page.locator("#prompt").inner_text())
    english(page, "given up", eng)
    snap = page.accessibility.snapshot() if hasattr(page, "accessibility") else None
    print("PROBLEMS", problems); print("ENGLISH", eng)
    b.close()
