// The header's menu: in a narrow or short window (a phone, 200% zoom) the
// header keeps the quick buttons and folds the others into a menu; style.css
// decides when, this module opens and closes it.

function setMenuOpen(toolbar, open) {
  toolbar.classList.toggle("menu-open", open);
  document.querySelector("#btn-menu").setAttribute("aria-expanded", String(open));
}

export function attachMenu() {
  // (the toolbar, which holds the menu, may be moved out of the header: see keepKeyboardOrder)
  const bar = document.querySelector(".actions");
  const toggle = document.querySelector("#btn-menu");
  const menu = document.querySelector("#menu");
  const isOpen = () => bar.classList.contains("menu-open");
  const setOpen = (open) => setMenuOpen(bar, open);
  toggle.addEventListener("click", () => {
    setOpen(!isOpen());
    if (isOpen()) menu.querySelector("button:not(:disabled), select").focus();
  });
  // A chosen item closes the menu (the language stays open to be read). The
  // item, hidden then, cannot keep the focus: the menu's button takes it
  // before the item acts (capture), so that a dialog the item opens gives
  // it back there when it closes.
  menu.addEventListener("click", (event) => {
    if (event.target.closest("button") && menu.contains(document.activeElement)) toggle.focus();
  }, true);
  menu.addEventListener("click", (event) => {
    if (event.target.closest("button")) setOpen(false);
  });
  document.addEventListener("pointerdown", (event) => {
    if (isOpen() && !event.target.closest(".actions")) setOpen(false);
  });
  // Tab (or anything else) taking the focus out of the menu and its button
  // closes it: open, it would cover the piles that get the focus next.
  // (A focus that merely leaves the page, relatedTarget null, leaves it open.)
  const within = (node) => node && (menu.contains(node) || node === toggle);
  for (const node of [menu, toggle]) {
    node.addEventListener("focusout", (event) => {
      if (isOpen() && event.relatedTarget && !within(event.relatedTarget)) setOpen(false);
    });
  }
  // (on an upright phone the menu is the page's last stop: Tab leaves the
  // page from it, and comes back to the board)
  document.addEventListener("focusin", (event) => {
    if (isOpen() && !within(event.target)) setOpen(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && isOpen()) {
      setOpen(false);
      toggle.focus();
      event.stopPropagation();
    }
  }, true);
}

// The header in one line: where style.css shows all its buttons (a wide
// window) but they would not fit beside the game's title, cut short to
// TITLE_LEAST at most (an upright tablet in German drew them in two lines
// under the title: a header of 118 px), the header folds them into the
// menu too (class "crowded"). Measured again when the window's
// size, the language or the game's title changes.
const TITLE_LEAST = 10;  // ems: the least of a game's title shown beside the buttons

export function foldCrowdedHeader() {
  const header = document.querySelector(".bar");
  const toolbar = document.querySelector(".actions");
  const name = header.querySelector(".game-name");
  toolbar.classList.remove("crowded", "overfull");
  document.documentElement.style.removeProperty("--toolbar-h");
  if (name) name.style.maxWidth = "";  // (measured whole)
  foldIfCrowded(header, toolbar);
  wrapOverfull(header, toolbar);  // (what still does not fit, folded)
  keepDealInSight(header);
}

// A game's title cut short loses the end of its name, never its deal:
// "General's Patience · …" at 1280x720 in German hid which deal it was.
function keepDealInSight(header) {
  const title = header.querySelector(".game-title");
  const name = title.querySelector(".game-name");
  const deal = title.querySelector(".game-deal");
  if (!name || !deal) return;
  // (a shorter name leaves the header's flex a shorter title, 177 px at
  // first and 174 px then: cut again until it fits, a few times at most)
  // (a pixel to spare: the title's own ellipsis took a deal over by 0.8 px)
  for (let round = 0; round < 4 && title.scrollWidth > title.clientWidth; round += 1) {
    const room = title.getBoundingClientRect().width - deal.getBoundingClientRect().width;
    name.style.maxWidth = `${Math.max(0, Math.floor(room) - 1)}px`;
  }
}

function foldIfCrowded(header, toolbar) {
  if (toolbar.parentElement !== header) return;  // (at the bottom of an upright phone: style.css folds it)
  if (getComputedStyle(document.querySelector("#btn-menu")).display !== "none") return;  // (style.css folds it)
  // (measured with the menu closed: its items open below the header read
  // as a second line, and English at 1100 px stayed folded)
  const open = toolbar.classList.contains("menu-open");
  toolbar.classList.remove("menu-open");
  const crowded = isCrowded(header, toolbar);
  if (crowded) toolbar.classList.add("crowded");
  if (open) setMenuOpen(toolbar, crowded);  // (unfolded: no menu left open)
}

function isCrowded(header, toolbar) {
  const shown = [...toolbar.querySelectorAll("button, select")].filter((node) => node.getClientRects().length);
  if (!shown.length) return false;
  // (in more than one line, past the header's edge, or leaving the game's
  // title less than TITLE_LEAST of its font's size: a 1024x768 laptop drew
  // them in a line of their own under the title, a header of 78 px, not 48)
  const first = shown[0].getBoundingClientRect();
  const title = header.querySelector(".game-title");
  const least = Math.min(title.scrollWidth, TITLE_LEAST * parseFloat(getComputedStyle(title).fontSize));
  const bar = header.getBoundingClientRect();
  const edge = bar.right - parseFloat(getComputedStyle(header).paddingRight);
  const start = bar.left + parseFloat(getComputedStyle(header).paddingLeft);  // (past it: rtl)
  const out = (node) => {
    const box = node.getBoundingClientRect();
    return box.top >= first.bottom - 1 || box.right > edge + 1 || box.left < start - 1;
  };
  return title.clientWidth < least - 1 || shown.some(out);
}

// A header folded under the control the player is using (the language
// list, German's longer words folding a 1100 px header) opens its menu, so
// that the control stays in sight and keeps the focus: folded away, the
// focus went to the menu's button (view.js: keepFocusNear) and the next
// arrow key opened the menu rather than choosing another language.
export function keepInSight(control) {
  const toolbar = document.querySelector(".actions");
  if (!toolbar.contains(control) || control.getClientRects().length) return;
  setMenuOpen(toolbar, true);
  if (document.activeElement !== control) control.focus();
}

// Larger text (the browser's font size or its least font size set higher)
// may leave the quick buttons and the menu's no room even with the rest
// folded: on a 320 px phone at 24 px they ran past the window's edge, the
// menu's button out of reach, and in a phone held sideways they covered
// the title. They then go into as many lines as they need (class
// "overfull"); at the bottom of an upright phone the toolbar's height is
// measured (--toolbar-h), so that the board and the page end above it.
function wrapOverfull(header, toolbar) {
  const root = document.documentElement;
  const shown = [...toolbar.children].filter((node) => node.matches("button") && node.getClientRects().length);
  if (!shown.length) return;
  const edge = root.clientWidth;
  const name = header.querySelector("h1").getBoundingClientRect();
  const atTop = toolbar.parentElement === header;
  const over = shown.some((node) => {
    const box = node.getBoundingClientRect();
    return box.right > edge + 1 || box.left < -1 || node.scrollWidth > node.clientWidth + 1
      || (atTop && box.top < name.bottom - 1 && box.bottom > name.top + 1
        && box.left < name.right - 1 && box.right > name.left + 1);  // (over the title, either side: rtl)
  });
  if (!over) return;
  toolbar.classList.add("overfull");
  if (getComputedStyle(toolbar).position === "fixed") {
    root.style.setProperty("--toolbar-h", `${toolbar.getBoundingClientRect().height}px`);
  }
}

// Tab goes through the page in the order it is seen. On an upright phone
// style.css draws the game's buttons at the bottom, below the board and a
// replay's bar: the toolbar and the replay bar then follow the board in the
// document too (Tab reached the toolbar before the board); elsewhere they
// go back to their places above it. style.css alone decides the layout:
// the toolbar is at the bottom when it is fixed there.
export function keepKeyboardOrder() {
  const header = document.querySelector(".bar");
  const toolbar = document.querySelector(".actions");
  const board = document.querySelector("#board");
  const replay = document.querySelector("#replay-bar");
  const replayHome = replay.previousElementSibling;
  const place = () => {
    const below = getComputedStyle(toolbar).position === "fixed"
      && toolbar.getBoundingClientRect().top > board.getBoundingClientRect().top;
    if (below === (toolbar.parentElement !== header)) return;
    const focused = document.activeElement;  // (a node moved loses the focus)
    if (below) board.after(replay, toolbar);
    else {
      header.append(toolbar);
      replayHome.after(replay);
    }
    if (focused && focused !== document.activeElement && focused.isConnected) focused.focus({ preventScroll: true });
  };
  place();
  window.addEventListener("resize", place);
}
