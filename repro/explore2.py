from kb import *
with started_server() as srv, sync_playwright() as p:
    b = p.chromium.launch(executable_path=CHROMIUM)
    ctx = b.new_context(locale="de-DE", viewport={"width":1280,"height":860})
    page = ctx.new_page()
    page.on("console", lambda m: print("CONSOLE", m.type, m.text))
    page.goto(srv.url); page.wait_for_selector("body[data-ready='true']")
    page.keyboard.press("Tab"); page.keyboard.press("Enter")
    page.wait_for_selector("#dlg-new[open]")
    print("after open", focus(page))
    print(page.locator("#dlg-new").inner_text())
    for i in range(14):
        page.keyboard.press("Tab")
        print(i, focus(page))
    page.keyboard.press("Escape")
    page.wait_for_timeout(200)
    print("after esc", focus(page), page.evaluate("document.querySelector('#dlg-new').open"))
    b.close()
