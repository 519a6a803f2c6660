// The keyboard: arrow keys move the focus from pile to pile, as the piles
// lie on the screen: to the nearest row in that direction, then to the pile
// in it closest to the one that had the focus. Enter then acts on the
// focused pile (onKey, below), as a click does; the other keys of the board
// (a pile's key, S, R, W, F, Space, H, Ctrl+Z, ...) are onKey's too. The
// focus kept in the page and in its modal dialogs.

import { explainCard } from "./explain.js";
import { openRules } from "./help.js";
import { hint } from "./hints.js";
import { t } from "./i18n.js";
import { activate, heldInput, takesBack } from "./input.js";
import { autoMove, explain, moveTo, notation, play, refuseInTurn, step } from "./play.js";
import { openPromptMore } from "./prompt.js";
import { enqueue } from "./queue.js";
import { PILE_KEYS, topCard } from "./render.js";
import { deselect, select } from "./selection.js";
import { app } from "./state.js";

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

const $ = (selector) => document.querySelector(selector);
const board = $("#board");

// The keys the board answers (those held while a choice is on its way).
function boardKey(event) {
  const key = event.key;
  if (event.ctrlKey || event.metaKey) return !event.altKey && "zZyY".includes(key);
  if (event.altKey) return false;
  return PILE_KEYS.includes(key) || "sSrRwWfFhH".includes(key)
    || ["Enter", " ", "Spacebar", "Escape"].includes(key);
}

// Why the top card of a pile cannot move (a key or a click on it).
export function explainPile(pile) {
  explained = { pile, game: app.game };
  return enqueue(() => {
    const node = board.querySelector(`[data-pile="${pile}"]`);  // (as drawn by its turn)
    return explainCard(pile, null, (node && topCard(node)) || node);
  });
}

// The pile whose card was just explained rather than picked up (R pressed
// on a terrace card with nowhere to go): F pressed next asks the engine why
// that card cannot go home, where the page said to select a card first,
// which the player had just tried. {pile, game}, until the next key.
let explained = null;

// A pile's key (or S on the focused pile): with a card selected, that card
// goes there; else the pile's card is selected, or, when it cannot move, its
// own move says why.
export function keyOnPile(pile) {
  if (app.selected === pile) {
    deselect();
  } else if (app.selected) {
    const source = app.selected;
    deselect({ said: false });
    moveTo(source, pile);
  } else if (app.game.sources[pile]) {
    select(pile);
  } else {
    autoMove(pile);
  }
}

// Controls that answer Enter and Space themselves (a button presses, a link
// opens, a summary folds): those keys stay theirs. The board's piles are
// not among them.
const OWN_KEYS = "button, a[href], summary, select, [contenteditable], [role='button']:not([data-pile])";

// `event`: a key pressed, or one held while a choice was on its way (held).
export function onKey(event) {
  // The end screen (no modal dialog) has the focus once a game ends: where
  // it offers Undo ("Undo a few moves"), Ctrl+Z and Ctrl+Y work there too;
  // ? works on any end screen.
  const inEnd = Boolean(event.target.closest && event.target.closest("#dlg-end"));
  if (!inEnd && event.target.closest && event.target.closest("dialog, input, select, textarea")) return;
  // Under a modal dialog the board takes no keys, also when the focus fell
  // to the page's body (a button disabled meanwhile): Escape is the dialog's.
  if (document.querySelector("dialog:modal")) return;
  if ((event.key === "Enter" || event.key === " " || event.key === "Spacebar")
    && event.target.closest && event.target.closest(OWN_KEYS)) return;
  const game = app.game;
  if (!game) return;
  const named = explained && explained.game === game ? explained.pile : null;
  explained = null;
  if (heldInput && !inEnd && !event.held && boardKey(event)) {
    event.preventDefault();
    const pile = event.target.closest && event.target.closest("[data-pile]");
    heldInput.push({
      key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, shiftKey: event.shiftKey, altKey: event.altKey,
      target: event.target, pile: pile && board.contains(pile) ? pile.dataset.pile : null,
    });
    return;
  }
  const key = event.key;
  const ctrl = event.ctrlKey || event.metaKey;
  if (inEnd && ctrl && !$("#dlg-end #end-undo")) return;
  if (ctrl && (key === "z" || key === "Z")) {
    event.preventDefault();
    step(event.shiftKey ? "redo" : "undo");
    return;
  }
  if (ctrl && (key === "y" || key === "Y")) {
    event.preventDefault();
    step("redo");
    return;
  }
  if (ctrl || event.altKey) return;
  if (key === "?") {  // the rules and the keys, also while replaying
    event.preventDefault();
    openRules("playing");
    return;
  }
  if (inEnd) return;
  if (game.replay) return;
  const index = PILE_KEYS.indexOf(key);
  if (index >= 0) {
    if (game.status === "choosing") {
      const choice = game.choices[index];
      if (choice) play(choice.move);
    } else if (index < game.state.tableau.length) {
      keyOnPile(`t${index + 1}`);
    } else {
      // (a key beyond the piles, 0 in a game of nine: the page asked the
      // server about pile "t10" and showed its refusal, in notation)
      const piles = game.state.tableau.length;
      refuseInTurn(t(piles === 1 ? "error.noPile.one" : "error.noPile", { n: index + 1, piles }), "info");
    }
    event.preventDefault();
    return;
  }
  const lower = key.toLowerCase();
  if (lower === "s") {
    // S acts on the focused pile as its own key would: on any pile, also
    // those beyond the keys 1-9 and 0, and the terrace and the waste.
    const focused = event.target.closest && event.target.closest("[data-pile]");
    if (!focused || !board.contains(focused)) return;
    const pile = focused.dataset.pile;
    if (game.status === "choosing" || pile === "stock") activate(pile, 1);
    else if (app.selected === pile) deselect();
    else keyOnPile(pile);
  } else if (lower === "r" || lower === "w") {
    const pile = lower === "r" ? "reserve" : "waste";
    if (app.selected === pile) deselect();
    else select(pile);
  } else if (lower === "f") {
    // F sends the selected card home; with none selected, the card whose
    // key was just pressed (it could not be picked up) or the card of the
    // focused pile (as S then F would), else it says what F needs.
    const found = event.target.closest && event.target.closest("[data-pile]");
    const focused = found && board.contains(found) ? found.dataset.pile : null;
    const holdsCards = (pile) => pile === "reserve" || pile === "waste" || pile[0] === "t";
    const source = app.selected || named || (focused && holdsCards(focused) ? focused : null);
    if (source && source[0] === "f") {  // (picked up, it stays so: only a pile takes it)
      refuseInTurn(t("error.home"), "info");
      event.preventDefault();
      return;
    }
    // (while the base card is chosen no card goes home: the engine says so,
    // of any card, in the words R or a pile's key get there; the page said
    // it in words of its own, which named no key to choose with)
    const choosing = game.status === "choosing";
    if (!source && !choosing) {
      refuseInTurn(t("error.fNothing"), "info");
      event.preventDefault();
      return;
    }
    if (app.selected) deselect({ said: false });
    const info = game.sources[source];
    const foundation = !choosing && info && Object.keys(info.targets).find((p) => p[0] === "f");
    if (foundation) play(info.targets[foundation]);
    else explain(`${notation(source || "reserve")}f`, null, null, source);
  } else if (key === "Enter") {
    // On a focused pile Enter acts as a double click there: with a card
    // selected elsewhere, it moves that card onto this pile. With a card
    // selected and the focus on a pile no card is put on (the stock, where
    // the focus rests after a new game; the waste; the terrace), Enter sends
    // the card, as the prompt says, rather than draw or refuse.
    const found = event.target.closest && event.target.closest("[data-pile]");
    const focused = found && board.contains(found) ? found : null;
    // On a foundation whose top card may go back, Enter picks that card up
    // (or puts it down), as S does; the next pile's key or Enter puts it there.
    const takesCards = (pile) => pile[0] === "t" || pile[0] === "f";
    const sendSelected = app.selected && focused && !takesCards(focused.dataset.pile);
    const pile = focused && focused.dataset.pile;
    if (pile && takesBack(pile) && (!app.selected || app.selected === pile)) {
      keyOnPile(pile);
    } else if (focused && !sendSelected) {
      // (as the click that sends a card home: a double click, or with the
      // single-click setting a single one)
      activate(focused.dataset.pile, app.settings.click === "single" ? 1 : 2);
    } else if (app.selected && app.selected[0] === "f") {
      refuseInTurn(t("error.home"), "info");  // (picked up, it stays so: only a pile takes it)
    } else if (app.selected) {
      const source = app.selected;
      deselect({ said: false });
      autoMove(source);
    } else {
      return;
    }
  } else if (key === " " || key === "Spacebar") {
    deselect({ said: !game.draw });
    if (game.draw) play(game.draw);
  } else if (key === "Escape") {
    if (!openPromptMore(false)) deselect();
  } else if (lower === "h") {
    hint();
  } else {
    return;
  }
  event.preventDefault();
}

