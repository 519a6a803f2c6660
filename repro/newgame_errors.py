"""New game dialog by keyboard, German: a number field emptied, an out-of-range value;
and the Leave question. Arrow keys on the phone board."""
import httpx
from kb import *
with started_server() as srv, sync_playwright() as p:
    c = httpx.Client(base_url=srv.url, trust_env=False)
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    c.post(f"/api/games/{g['id']}/moves", json={"move": "c1"})
    b = p.chromium.launch(executable_path=CHROMIUM)
    page = b.new_context(locale="de-DE").new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("#btn-new").focus(); page.keyboard.press("Enter"); page.wait_for_selector("#dlg-new[open]")
    page.locator("#dlg-new summary").focus(); page.keyboard.press("Enter")
    page.locator("#opt-piles").focus(); page.keyboard.press("Control+a"); page.keyboard.press("Backspace")
    page.locator("#new-start").focus(); page.keyboard.press("Enter"); page.wait_for_timeout(300)
    print("empty field:", page.locator(".form-error").inner_text(), "| focus:", focus(page).get("id"), page.evaluate("document.activeElement.getAttribute('aria-invalid')"))
    page.keyboard.type("99"); page.locator("#new-start").focus(); page.keyboard.press("Enter"); page.wait_for_timeout(300)
    print("out of range: focus", focus(page).get("id"), "| validationMessage:", page.evaluate("document.querySelector('#opt-piles').validationMessage"))
    page.locator("#opt-piles").focus(); page.keyboard.press("Control+a"); page.keyboard.type("9")
    page.locator("#new-start").focus(); page.keyboard.press("Enter")
    page.wait_for_selector("#dlg-confirm[open]")
    print("leave:", page.locator("#dlg-confirm").inner_text().replace("\n", " | "), "| focus:", focus(page).get("text"))
    page.keyboard.press("Escape"); page.wait_for_timeout(300)
    print("after Escape on leave: new dialog open", page.evaluate("document.querySelector('#dlg-new').open"), "| focus:", focus(page).get("text") or focus(page), "| error:", page.locator(".form-error").inner_text())
    page.close()
    page = b.new_context(locale="de-DE", viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{srv.url}?game={g['id']}"); page.wait_for_selector("body[data-ready='true']")
    page.locator("[data-pile='stock']").focus()
    seen = []
    for key in ["ArrowRight"] * 10 + ["ArrowDown"] * 3 + ["ArrowRight"] * 9 + ["ArrowLeft"] * 9 + ["ArrowUp"] * 3:
        page.keyboard.press(key); seen.append(page.evaluate("document.activeElement.dataset.pile"))
    print("phone arrows:", seen)
    piles = page.evaluate("[...document.querySelectorAll('[data-pile]')].map(n => n.dataset.pile)")
    print("never reached:", sorted(set(piles) - set(seen) - {"stock"}))
    b.close()
