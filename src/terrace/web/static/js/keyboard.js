// Arrow keys move the focus from pile to pile, as the piles lie on the
// screen: to the nearest row in that direction, then to the pile in it
// closest to the one that had the focus. Enter then acts on the focused
// pile (main.js), as a click does.

const DIRECTIONS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

function centre(rect) {
  return [(rect.left + rect.right) / 2, (rect.top + rect.bottom) / 2];
}

// How far `to` lies beyond `from` in direction [dx, dy] (edge to edge),
// and how far off that line (the gap between their extents across it, then
// the distance between their centres); null unless it lies wholly beyond.
function offset(from, to, [dx, dy]) {
  const along = dx ? (dx > 0 ? to.left - from.right : from.left - to.right)
    : (dy > 0 ? to.top - from.bottom : from.top - to.bottom);
  if (along < -2) return null;
  const gap = dx ? Math.max(0, from.top - to.bottom, to.top - from.bottom)
    : Math.max(0, from.left - to.right, to.left - from.right);
  const [fx, fy] = centre(from);
  const [tx, ty] = centre(to);
  const across = dx ? Math.abs(ty - fy) : Math.abs(tx - fx);
  return { along: Math.max(0, along), gap, across };
}

export function neighbour(from, piles, key) {
  const direction = DIRECTIONS[key];
  const rect = from.getBoundingClientRect();
  const found = [];
  for (const pile of piles) {
    if (pile === from) continue;
    const place = offset(rect, pile.getBoundingClientRect(), direction);
    if (place) found.push({ pile, ...place });
  }
  if (!found.length) return null;
  const nearest = Math.min(...found.map((f) => f.along));
  const row = found.filter((f) => f.along <= nearest + 12);
  row.sort((a, b) => a.gap - b.gap || a.across - b.across);
  return row[0].pile;
}

export function attachArrows(board) {
  document.addEventListener("keydown", (event) => {
    if (!(event.key in DIRECTIONS) || event.ctrlKey || event.altKey || event.metaKey) return;
    const target = event.target;
    if (target !== document.body && !(target.closest && board.contains(target))) return;
    const piles = [...board.querySelectorAll("[data-pile]")];
    if (!piles.length) return;
    const current = target.closest && target.closest("[data-pile]");
    const next = current && board.contains(current) ? neighbour(current, piles, event.key) : piles[0];
    event.preventDefault();
    if (next) next.focus();
  });
}

// A game started or resumed from a dialog: the focus goes to the board's
// first pile (the stock), where the arrows start, rather than back to the
// button that opened the dialog (New game, Statistics), where Space, the
// draw, pressed that button again and Enter too, and the piles were many
// Tabs away.
export function focusBoard() {
  const pile = document.querySelector("#board [data-pile]");
  if (pile) pile.focus();
}

// A dialog gives the focus back, when it closes, to what had it before; when
// that is hidden now (an item of the header's menu, which closed; a button of
// the end screen, which closed before the New game dialog), the focus stays
// in the closed dialog and then falls to the page's body. It goes to the
// menu's button instead when the menu is there (the item's place), else to
// the board's first pile; from the end screen, which no menu item opens,
// always to the board (with the menu there, Ctrl+Z or Escape in it left the
// focus on the menu's button: Space then opened the menu, not a draw).
// (A dialog's close event comes after it tried to give the focus back; it
// does not bubble.)
export function catchLostFocus(board, toggle) {
  const shown = (node) => Boolean(node) && node.getClientRects().length > 0;
  document.addEventListener("close", (event) => {
    if (!(event.target instanceof HTMLDialogElement) || document.querySelector("dialog:modal")) return;
    const active = document.activeElement;
    if (active && active !== document.body && shown(active)) return;
    const pile = board.querySelector("[data-pile]");
    if (shown(toggle) && event.target.id !== "dlg-end") toggle.focus();
    else if (pile) pile.focus();
  }, true);
}

// Tab and Shift+Tab go round the controls of a modal dialog, as in the end
// screen: a modal dialog alone lets the focus leave for the page's body
// and the browser's own controls before it comes back.
const TABBABLE = "button:not(:disabled), a[href], input:not(:disabled), select:not(:disabled), "
  + "textarea:not(:disabled), summary, [tabindex]:not([tabindex='-1'])";

function tabStops(dialog) {
  return [...dialog.querySelectorAll(TABBABLE)].filter((node) => {
    if (!node.getClientRects().length) return false;  // hidden (a folded section, say)
    if (node.type !== "radio") return true;
    // a group of radio buttons is one stop: its checked one, else its first
    const group = [...dialog.querySelectorAll(`input[type='radio'][name='${CSS.escape(node.name)}']`)];
    return node.checked || (!group.some((r) => r.checked) && group[0] === node);
  });
}

// The modal dialog on top: the one with the focus, else the last one in the
// page. (A question asked over the New game dialog, the leave question, is
// added to the page after it; the first modal dialog, the New game dialog
// under it, is inert, and Tab, sent there, stayed on the question's Cancel.)
function topModal() {
  const modals = [...document.querySelectorAll("dialog:modal")];
  return modals.find((dialog) => dialog.contains(document.activeElement)) || modals[modals.length - 1] || null;
}

export function keepTabInModals() {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Tab" || event.ctrlKey || event.altKey || event.metaKey) return;
    const dialog = topModal();
    if (!dialog) return;
    const stops = tabStops(dialog);
    if (!stops.length) return;
    const first = stops[0];
    const last = stops[stops.length - 1];
    const active = document.activeElement;
    const inside = dialog.contains(active);
    if (event.shiftKey && (!inside || active === first || active === dialog)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (!inside || active === last)) {
      event.preventDefault();
      first.focus();
    }
  });
}
