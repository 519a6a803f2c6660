from kb import *
with started_server() as srv, sync_playwright() as p:
    b = p.chromium.launch(executable_path=CHROMIUM)
    ctx = b.new_context(locale="de-DE", viewport={"width":1280,"height":860})
    page = ctx.new_page()
    page.on("console", lambda m: print("CONSOLE", m.type, m.text))
    page.goto(srv.url); page.wait_for_selector("body[data-ready='true']")
    print(page.evaluate("document.documentElement.lang"), page.locator("#prompt").inner_text())
    for i in range(30):
        page.keyboard.press("Tab")
        print(i, focus(page))
    b.close()
