"""Win Terrace deal 7 with the keyboard alone, in German, checking focus,
live regions and leftover English at each step."""
import subprocess, httpx, sys
from kb import *

VIEW = {"width": 1280, "height": 860}
if len(sys.argv) > 1 and sys.argv[1] == "phone":
    VIEW = {"width": 390, "height": 844}
line = json.loads(subprocess.run(["/tmp/att_kbd/.venv/bin/terrace", "solve", "-v", "terrace", "--deal-number", "7", "--json"],
                                 capture_output=True, text=True).stdout)["moves"]
problems, eng, log = [], [], []

def keys_for(move):
    if move[0] == "c": return [move[1]]
    if move == "s": return [" "]
    src, rest = move[0], move[1:]
    if src == "t":
        m = re.match(r"t(\d)(.*)", move); src_key, rest = m.group(1), m.group(2)
    elif src == "w": src_key = "w"
    elif src == "r": src_key = "r"
    if rest == "f": return [src_key, "f"]
    m = re.match(r"t(\d)", rest)
    return [src_key, m.group(1)]

def tab_to(page, pred, limit=60, back=False):
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if page.evaluate(pred): return True
    raise SystemExit(f"could not tab to {pred}")

def moves(page):
    return int(page.evaluate("document.body.dataset.moves || -1"))

with started_server() as srv, sync_playwright() as p:
    client = httpx.Client(base_url=srv.url, trust_env=False, timeout=60)
    b = p.chromium.launch(executable_path=CHROMIUM)
    ctx = b.new_context(locale="de-DE", viewport=VIEW, has_touch=VIEW["width"] < 500)
    page = ctx.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(srv.url); page.wait_for_selector("body[data-ready='true']")
    english(page, "start", eng)
    # New game dialog
    phone = VIEW["width"] < 500
    tab_to(page, "document.activeElement.id === 'btn-new'")
    page.keyboard.press("Enter"); page.wait_for_selector("#dlg-new[open]")
    english(page, "new dialog", eng, ignore=("Blondes and Brunettes", "General's Patience", "Admiral's Patience", "Queen of Italy"))
    check_focus(page, "new dialog open", problems)
    tab_to(page, "document.activeElement.id === 'new-variant'")
    page.keyboard.press("ArrowDown"); page.keyboard.press("ArrowUp")
    print("variant", page.evaluate("document.querySelector('#new-variant').value"))
    page.keyboard.press("Tab"); page.keyboard.type("7")
    tab_to(page, "document.activeElement.id === 'new-start'")
    page.keyboard.press("Enter")
    wait_js(page, "!document.querySelector('#dlg-new').open")
    wait_js(page, "document.querySelector('#game-title').textContent.includes('7')")
    f = check_focus(page, "after new game", problems); print("focus after new", f)
    gid = page.evaluate("document.body.dataset.game")
    i = 0
    def play_one(move):
        before = moves(page)
        for k in keys_for(move):
            page.keyboard.press(k)
        try:
            wait_js(page, f"Number(document.body.dataset.moves) > {before} || document.body.dataset.status === 'won'", timeout=8000)
        except Exception:
            print("NO MOVE for", move, "prompt:", page.locator('#prompt').inner_text(), "toast:", page.locator('#toast').inner_text(), "why", page.locator('#why').inner_text())
            raise
        page.evaluate("app => 0", None)
        check_focus(page, f"after {move}", problems)
    # choose the base card
    play_one(line[0])
    print("focus after choose", focus(page), page.locator("#prompt").inner_text())
    # get to the board
    tab_to(page, "Boolean(document.activeElement.dataset.pile)")
    print("on board", focus(page))
    idx = 1
    while idx < len(line):
        move = line[idx]
        if page.evaluate("document.body.dataset.status") == "won": break
        # server agrees?
        play_one(move)
        g = client.get(f"/api/games/{gid}").json()
        norm = lambda ms: [re.sub(r"f\d+$", "f", m) for m in ms]
        if norm(g["moves"][:idx + 1]) != line[:idx + 1] and g["status"] != "won":
            print("DIVERGED at", idx, move, g["moves"][-3:]); break
        idx = len(g["moves"])
        if idx in (5, 6):
            # Hint by H
            page.keyboard.press("h")
            wait_js(page, "document.querySelector('#prompt').textContent.startsWith('Tipp')", timeout=30000)
            print("HINT prompt:", page.locator('#prompt').inner_text(), "| toast:", page.locator('#toast').inner_text())
            check_focus(page, "after hint", problems)
            english(page, "after hint", eng)
        if idx == 10:
            n = moves(page)
            page.keyboard.press("Control+z"); wait_js(page, f"document.body.dataset.moves == {n-1}")
            check_focus(page, "after undo", problems)
            page.keyboard.press("Control+y"); wait_js(page, f"document.body.dataset.moves == {n}")
            check_focus(page, "after redo", problems)
            page.keyboard.press("Control+Shift+Z")
            page.wait_for_timeout(300)
            print("after ctrl+shift+z", moves(page))
        if idx in (20, 21, 22):
            which = {20: "btn-stats", 21: "btn-rules", 22: "btn-settings"}[idx]
            if phone:
                tab_to(page, "document.activeElement.id === 'btn-menu'", back=True)
                page.keyboard.press("Enter")
                print("menu open, focus", focus(page))
                english(page, "menu", eng)
            tab_to(page, f"document.activeElement.id === '{which}'", back=not phone)
            page.keyboard.press("Enter")
            dlg = {"btn-stats": "#dlg-stats", "btn-rules": "#dlg-rules", "btn-settings": "#dlg-settings"}[which]
            page.wait_for_selector(f"{dlg}[open]")
            page.wait_for_timeout(300)
            f = check_focus(page, f"{which} dialog open", problems); print(which, "open focus", f)
            english(page, f"{which} dialog", eng, ignore=("Queen of Italy",))
            # tab around: trapped?
            for _ in range(25):
                page.keyboard.press("Tab")
                ff = focus(page)
                if not ff.get("body") and ff.get("inDialog") != dlg[1:]:
                    problems.append((f"{which} tab escapes dialog", ff)); break
            page.keyboard.press("Escape")
            wait_js(page, f"!document.querySelector('{dlg}').open")
            f = check_focus(page, f"{which} closed", problems); print(which, "closed focus", f)
            tab_to(page, "Boolean(document.activeElement.dataset.pile)")
        if idx == 30:
            # language switch by keyboard: to EN and back
            if phone:
                tab_to(page, "document.activeElement.id === 'btn-menu'", back=True)
                page.keyboard.press("Enter")
            tab_to(page, "document.activeElement.id === 'lang'", back=not phone)
            page.keyboard.press("ArrowUp")
            wait_js(page, "document.documentElement.lang === 'en'")
            print("EN prompt", page.locator("#prompt").inner_text(), focus(page))
            page.keyboard.press("ArrowDown")
            wait_js(page, "document.documentElement.lang === 'de'")
            print("DE prompt", page.locator("#prompt").inner_text(), focus(page))
            english(page, "after language switch back", eng)
            page.keyboard.press("Escape")
            tab_to(page, "Boolean(document.activeElement.dataset.pile)")
        if idx % 40 == 0:
            english(page, f"move {idx}", eng)
    page.wait_for_selector("body[data-status='won']")
    page.wait_for_selector("#dlg-end[open]")
    page.wait_for_timeout(1500)
    print("WON. end dialog:", page.locator("#dlg-end").inner_text().replace("\n", " | "))
    print("focus at end", focus(page))
    check_focus(page, "win screen", problems)
    english(page, "win screen", eng)
    for _ in range(6):
        page.keyboard.press("Tab"); print("  tab", focus(page))
    page.keyboard.press("Escape"); page.wait_for_timeout(300)
    print("after esc on end", page.evaluate("document.querySelector('#dlg-end').open"), focus(page))
    page.screenshot(path=f"/tmp/att_kbd/repro/won_{VIEW['width']}.png")
    print("PROBLEMS:"); [print(" ", x) for x in problems]
    print("ENGLISH:"); [print(" ", x) for x in eng]
    print("ERRORS:", errors)
    b.close()
