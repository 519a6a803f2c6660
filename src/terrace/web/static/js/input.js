// The mouse and the touch screen on the board: clicks, double clicks, taps
// and drags, and the keys and taps held while the base card's choice is on
// its way.

import { attachDrag, DRAG_THRESHOLD, snapBack } from "./drag.js";
import { explainCard } from "./explain.js";
import { flights } from "./flight.js";
import { attachArrows, catchLostFocus, keepTabInModals, keyOnPile, onKey } from "./keyboard.js";
import { autoMove, moveTo, play } from "./play.js";
import { enqueue } from "./queue.js";
import { topCard } from "./render.js";
import { clearMarks, deselect, markTargets, select } from "./selection.js";
import { app, moving } from "./state.js";
import { tapCount } from "./taps.js";

const $ = (selector) => document.querySelector(selector);
const board = $("#board");

// A card is being dragged: the board, which holds the lifted card, is not
// drawn anew under it for a prompt's sake (the move's answer draws it).
export let dragging = false;

// Keys pressed while the base card's choice (or an undo or a redo across
// it, a restart) waits for its answer: the page still shows the position
// before it, where they mean something else or nothing (Space has no stock
// to draw from among the candidates; 2 chooses a candidate, not pile 2).
// They are held, and once the answer is shown, handled in their order as
// if pressed then: each acts on what the server offers by then. A change
// refused or dropped drops them (a candidate's key would choose a base card).
// So are clicks on the stock (a draw is a draw on any position; a click on
// a candidate is a choice, never held to act on the card that lies there next).
export let heldInput = null;

export function holdInput() {
  if (!heldInput) heldInput = [];
}

export function releaseInput(answered) {
  const keys = heldInput;
  heldInput = null;
  if (!answered || !keys) return;
  for (const [at, held] of keys.entries()) {
    // (a key that crosses the choice again, Ctrl+Z: the keys after it wait for its answer)
    if (heldInput) {
      heldInput.push(...keys.slice(at));
      return;
    }
    if (held.stock) {
      activate("stock", held.stock);
      continue;
    }
    // (the focused pile by its name: the board has been drawn anew)
    const pile = held.pile && board.querySelector(`[data-pile="${held.pile}"]`);
    const target = pile || (held.target.isConnected ? held.target : document.body);
    onKey({ ...held, target, held: true, preventDefault() {} });
  }
}

// True when `pile` is a foundation whose top card may go back to a pile
// (the rule option foundation_return).
export const takesBack = (pile) => pile[0] === "f" && Boolean(app.game.sources[pile]);

// The card `pile` shows on top in `game` for a click (null: none that moves).
const clickedCard = (game, pile) => (game.sources[pile] || {}).card || null;

// `first`: the game shown when the click before this one of a run (detail
// 2 and on) was pressed; a double click acts only on the card its first
// click was on.
export function activate(pileName, detail, first = null) {
  const game = app.game;
  if (!game || game.replay) return;
  if (game.status === "choosing") {
    const choice = game.choices.find((c) => c.pile === pileName);
    if (choice) play(choice.move);
    return;
  }
  if (pileName === "stock") {
    deselect({ said: !game.draw });
    if (game.draw) play(game.draw);
    return;
  }
  if (app.selected && pileName !== app.selected) {
    const source = app.selected;
    deselect({ said: false });
    moveTo(source, pileName);
    return;
  }
  const hasCard = (game.sources[pileName] || (pileName !== "stock" && topCard(board.querySelector(`[data-pile="${pileName}"]`) || board)));
  if (!hasCard) return deselect();
  // A foundation's card that may go back is home already: the click that
  // would send it home picks it up instead (or puts it down), and a double
  // click leaves it picked up; the next click on a pile puts it there.
  if (takesBack(pileName)) {
    if (detail % 2 === 1) keyOnPile(pileName);
    else if (app.selected !== pileName) select(pileName);
    return;
  }
  // With a single click set, a mouse's double click (a habit) plays one
  // card, as on the stock; every click of a quicker run (3, 4, …: a player
  // sending a pile's cards up one by one) plays again, the card it lands on
  // once the move before has been shown (one still on its way is dropped).
  if (app.settings.click === "single") {
    if (detail !== 2) { deselect({ said: false }); autoMove(pileName); }
    return;
  }
  // A double click plays its card (detail 2). A quick third click is no
  // double click: while the pile still shows the card the double click
  // sent (its answer not yet shown, or nothing moved) it is the tail of
  // that gesture and does nothing, never playing the card uncovered once
  // the answer comes; on the card the move uncovered it is a first click
  // and picks that card up (a player going on at once), and a fourth is a
  // double click again. `first`: the game shown at the click before.
  // An answer drawn between its two clicks (a draw asked for just before)
  // may have put another card there: the double click is not for that one.
  if (detail >= 2) {
    const changed = first && (first.id !== game.id || clickedCard(first, pileName) !== clickedCard(game, pileName));
    if (detail % 2 === 1 && !changed) return;
    if (detail % 2 === 0) {
      deselect({ said: false });
      if (changed) return;
      autoMove(pileName);
      return;
    }
  }
  if (app.selected === pileName) {
    deselect();
  } else {
    select(pileName);
  }
}

// A click that put the selected card on a pile ends the run of clicks
// there: the browser counts a quick click on the card just put down (a
// tap near the first, within the double-tap time) as the second of a
// double click, which then did nothing (its first click was on another
// card), and the card was not picked up. The clicks after a drop count
// from it. {pile, detail} of the last click that dropped, else null.
let dropClick = null;

function clickBoard(target, clicks) {
  const pile = target.closest("[data-pile]");
  if (!pile) return deselect();
  const card = target.closest(".card");
  const name = pile.dataset.pile;
  // A card that cannot move was explained when pressed (see onPress); it
  // acts on its pile only as a drop target.
  const still = card && !card.classList.contains("movable") && !card.classList.contains("choice");
  if (still && !app.selected && name !== "stock") return;
  if (name === "stock") return clickStock(clicks, lastPointer === "touch");
  const clicked = lastPointer === "touch" ? tapCount(name, clicks || 1) : clicks || 1;
  const after = dropClick && dropClick.pile === name && clicked > dropClick.detail ? dropClick.detail : 0;
  const game = app.game;
  const drops = Boolean(game) && !game.replay && game.status !== "choosing" && Boolean(app.selected) && app.selected !== name;
  dropClick = drops ? { pile: name, detail: clicked } : null;
  // With a single click set, every tap plays (as every tap on the stock
  // draws): quick taps count 1, 2, 3 like a mouse's clicks, but nobody
  // double-taps to send one card, and a player tapping through a pile had
  // every tap after the first ignored as the tail of a double click. (A
  // foundation's card that may go back keeps its own: see activate.)
  const tapped = lastPointer === "touch" && app.settings.click === "single" && Boolean(app.game) && !takesBack(name);
  const detail = tapped ? 1 : clicked - after;
  // (the click before this one of a run was pressed on pressedBefore)
  activate(name, detail, detail >= 2 ? pressedBefore : null);
}

// A double click fires two clicks (detail 1, then 2): the stock draws on the
// first only, so a double click draws one card, not two. Every click of a
// quicker run (detail 3, 4, …: a player tapping through a long stock) draws
// again. A touch draws on every tap: quick taps count 1, 2, 3 too, and
// nobody double-taps a stock to draw one card.
function clickStock(detail, touch = false) {
  if (!touch && detail === 2) return;
  if (heldInput) heldInput.push({ stock: detail || 1 });
  else activate("stock", detail || 1);
}

// A mouse press on a pile, or on a card of it, that the board's redraw
// replaced before the release gets no click from the browser (the two are
// different elements; the board keeps a pile's element, not always what was
// pressed in it: the stock's card is made anew at a draw): its release on
// the pile of the same name clicks there instead. On the
// stock always (a quick player's second click while the first card is
// shown: a draw is a draw on any position); elsewhere when the board was
// drawn again on the same position (the base cards' verdicts arriving, a
// resize: that click was lost), not by an answer that changed it. A drag is
// no click. A touch is not affected (the browser sends its click to the new
// pile).
let pressed = null;  // {pile, target, game, x, y} of the last mouse press on a pile
let lastPointer = "mouse";  // what the last press on the board was made with
// A tap just after a card was flicked to its place (let go while the
// finger still moved) got no click from Chrome, which takes such a tap for
// one that stops the flick's scrolling (a fling, though the card scrolls
// nothing) and swallows it: the stock drew nothing, a card was not picked
// up, a card in hand was not put down (3 taps of 3 within 0.1 s of the
// drop; none after a finger held still before lifting, nor 0.5 s later).
// A finger lifted where it was put down, within LOST_TAP_AFTER ms of a
// drop and with nothing scrolled since, is a tap: when its click has not
// come LOST_TAP_WAIT ms later (it comes within a few ms), the tap clicks
// where the finger was lifted, and its own click, if it comes later
// still, does nothing. (A tap that stops a real scroll stays the
// browser's.)
const LOST_TAP_AFTER = 1000;
const LOST_TAP_WAIT = 150;
let droppedAt = -Infinity;  // (performance.now() when a drag ended)
let tapDown = null;  // {id, x, y} of a finger put down soon after a drop
let tapUp = null;  // {id, x, y, timer, clicked} of that finger lifted where it was put
// (not on the board only: Undo tapped at once after a card flicked to the
// wrong pile undid nothing, Hint gave no hint, nor the end screen's buttons
// after a flick that ended the game)
const CONTROLS = "button, summary, label, a[href], input[type=checkbox], input[type=radio]";
let clicking = false;  // (the page clicks a control for a lost tap)
function endDrag() {
  dragging = false;
  droppedAt = performance.now();
}
// The tap whose click did not come clicks where the finger was lifted.
function clickLostTap() {
  const tap = tapUp;
  if (!tap || tap.clicked) return;
  tap.clicked = true;
  clearTimeout(tap.timer);
  lastPointer = "touch";
  const under = document.elementFromPoint(tap.x, tap.y);
  if (under && board.contains(under)) {
    clickBoard(under, 1);
    return;
  }
  const control = under && under.closest(CONTROLS);
  if (!control || control.disabled) return;
  clicking = true;
  try {
    control.click();
  } finally {
    clicking = false;
  }
}
// The game shown when the card was pressed: a drag that begins once an
// answer has drawn the board anew (the press was quicker than the answer)
// drops nothing, where it played the card that lay there by then.
let pressedOn = null;
let pressedBefore = null;  // (the game shown at the press before)
let dragged = null;
let drags = null;  // (drag.js: attachDrag's answer)

// A card in hand stays out of its pile, and its targets marked, when the
// board is drawn anew (drawBoard): a resize during a drag showed it twice,
// and no pile where it may go.
export function keepInHand() {
  if (dragging && app.game === dragged) {
    const source = drags.redrawn((pile) => {
      const node = board.querySelector(`[data-pile="${pile}"]`);
      return node && topCard(node);
    });
    if (source) markTargets(source);
  }
}

export function attachInput() {
  board.addEventListener("click", (event) => clickBoard(event.target, event.detail));

  board.addEventListener("pointerdown", (event) => {
    lastPointer = event.pointerType;
    pressedBefore = pressedOn;
    pressedOn = app.game;
    // A card pressed on its way lands at once (a drag lifts it as it is seen).
    const landing = event.target.closest(".card.landing");
    if (landing && flights.has(landing)) flights.get(landing)();
    const pile = event.target.closest("[data-pile]");
    pressed = event.pointerType !== "touch" && pile
      ? { pile, target: event.target, game: app.game, x: event.clientX, y: event.clientY } : null;
  }, true);
  document.addEventListener("scroll", () => { droppedAt = -Infinity; }, true);
  window.addEventListener("pointerdown", (event) => {
    const soon = event.pointerType === "touch" && performance.now() - droppedAt < LOST_TAP_AFTER;
    tapDown = soon ? { id: event.pointerId, x: event.clientX, y: event.clientY } : null;
  }, true);
  window.addEventListener("pointerup", (event) => {
    const down = tapDown;
    tapDown = null;
    if (!down || event.pointerId !== down.id) return;
    if (Math.hypot(event.clientX - down.x, event.clientY - down.y) >= DRAG_THRESHOLD) return;
    clickLostTap();
    const tap = { id: down.id, x: event.clientX, y: event.clientY, timer: 0, clicked: false };
    tap.timer = setTimeout(() => { if (tapUp === tap) clickLostTap(); }, LOST_TAP_WAIT);
    tapUp = tap;
  }, true);
  // (On the window, before anything may stop it: every click the browser sends.)
  window.addEventListener("click", (event) => {
    const tap = tapUp;
    if (!tap || clicking) return;
    if (event.pointerId !== tap.id) {
      clickLostTap();  // (a tap before this click acts first)
      tapUp = null;
      return;
    }
    tapUp = null;
    clearTimeout(tap.timer);
    if (!tap.clicked) return;
    event.stopPropagation();  // (the tap clicked already)
    event.preventDefault();
  }, true);
  board.addEventListener("mouseup", (event) => {
    const press = pressed;
    pressed = null;
    if (!press || press.target.isConnected || event.button !== 0) return;  // (its click comes)
    if (Math.hypot(event.clientX - press.x, event.clientY - press.y) >= DRAG_THRESHOLD) return;
    const pile = event.target.closest("[data-pile]");
    if (!pile || pile.dataset.pile !== press.pile.dataset.pile) return;
    if (pile.dataset.pile === "stock") clickStock(event.detail);
    else if (press.game === app.game) clickBoard(event.target, event.detail);
  });

  drags = attachDrag(board, {
    onStart(source) {
      dragged = pressedOn;
      dragging = true;
      deselect();
      markTargets(source);
    },
    onDrop(source, target, ghost, card) {
      endDrag();
      clearMarks("target");
      // A board drawn again during the drag may have another card there.
      if (!target || target === source || app.game !== dragged) {
        snapBack(ghost, card, moving());
        return;
      }
      moveTo(source, target, ghost, card);
    },
    onCancel(source, ghost, card) {
      endDrag();
      clearMarks("target");
      snapBack(ghost, card, moving());
    },
    onPress(pile, card) {
      const game = app.game;
      if (!game || game.replay || app.selected || pile === "stock" || card.classList.contains("choice")) return false;
      const index = card.dataset.index === undefined ? null : Number(card.dataset.index);
      enqueue(() => explainCard(pile, index, card));
      return true;
    },
  });
  attachArrows(board);
  catchLostFocus(board, $("#btn-menu"));
  keepTabInModals();

  document.addEventListener("keydown", (event) => onKey(event));
}
