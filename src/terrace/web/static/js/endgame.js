// Ending a game: auto-play to the foundations (the server decides which
// moves cannot hurt; the page flies the cards home), giving up, the end of
// game screens (win, no move left, no winning line left) with a short card
// cascade, and the question before leaving a game in progress.

import { api } from "./api.js";
import { groupTitle } from "./groups.js";
import { t, count, getLanguage } from "./i18n.js";
import { el, makeCard, topCard } from "./render.js";
import { cardIndices, fewestHidden, nearestFewest } from "./placing.js";
import { app, closedByBack, moving } from "./state.js";
import { announce } from "./tabs.js";
import { flushTime, formatDuration } from "./timer.js";

const $ = (selector) => document.querySelector(selector);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- in progress?

// The game being played (also while a replay is shown), if any.
function gameInPlay() {
  return app.game && app.game.replay ? app.saved : app.game;
}

// True when leaving `game` for a new one would count it as abandoned (lost).
export function inProgress(game) {
  // (a game restarted, or with every move undone, was played all the same:
  // its moves wait to be redone, and the statistics count it)
  return Boolean(game) && !game.given_up && game.won_at === null
    && (game.moves > 0 || game.redo > 0)
    && (game.status === "playing" || game.status === "choosing");
}

// ---------------------------------------------------------------- confirmation

// Ask a yes/no question in a modal dialog; resolves to true for yes. Every
// question asked is about something that cannot be taken back (give up,
// leave a game that then counts as lost, a move that loses a won game), so
// the focus starts on the safe answer: a stray Enter or Space keeps the game.
export function confirmChoice({ title, text, yes, no = t("btn.cancel") }) {
  let dialog = $("#dlg-confirm");
  if (!dialog) {
    dialog = el("dialog", { id: "dlg-confirm", class: "panel confirm", role: "alertdialog",
      "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" });
    document.body.append(dialog);
  }
  return new Promise((resolve) => {
    const answer = (value) => () => dialog.close(value);
    const yesButton = el("button", { type: "button", class: "primary", id: "confirm-yes", text: yes, onclick: answer("yes") });
    const noButton = el("button", { type: "button", id: "confirm-no", text: no, onclick: answer("no") });
    dialog.replaceChildren(
      el("h2", { id: "confirm-title", text: title }),
      el("p", { id: "confirm-text", text }),
      el("div", { class: "buttons" }, noButton, yesButton));
    dialog.returnValue = "";
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.showModal();
    noButton.focus();
  });
}

// Before a new game: the current one counts as lost unless it is resumed.
export async function confirmLeaving() {
  const game = gameInPlay();
  if (!inProgress(game)) return true;
  return confirmChoice({
    title: t("leave.title"),
    text: t("leave.text", { n: game.moves + game.redo, moves: count(game.moves + game.redo) }),
    yes: t("leave.yes"),
  });
}

// ---------------------------------------------------------------- auto-play

// Where every face-up card is on the board now: pile -> [{card, rect}].
function cardRects(board) {
  const rects = {};
  for (const pile of board.querySelectorAll("[data-pile]")) {
    const cards = [...pile.querySelectorAll(":scope > .card[data-card]")];
    rects[pile.dataset.pile] = {
      pile: pile.getBoundingClientRect(),
      cards: cards.map((card) => ({ card: card.dataset.card, rect: card.getBoundingClientRect() })),
    };
  }
  return rects;
}

function startRect(rects, motion) {
  const pile = rects[motion.from];
  if (!pile) return null;
  for (let i = pile.cards.length - 1; i >= 0; i -= 1) {
    if (pile.cards[i].card === motion.card) {
      const [found] = pile.cards.splice(i, 1);
      return found.rect;
    }
  }
  return pile.cards.length ? pile.cards[pile.cards.length - 1].rect : pile.pile;
}

// Fly the cards that went home, one after the other, from where they were.
function flyHome(board, motions, rects) {
  const homeward = motions.filter((m) => m.to.startsWith("f"));
  if (!homeward.length) return Promise.resolve();
  const last = {};
  homeward.forEach((motion, i) => { last[motion.to] = i; });
  const hidden = Object.keys(last).map((pile) => {
    const node = board.querySelector(`[data-pile="${pile}"]`);
    const card = node && topCard(node);
    if (card) card.style.visibility = "hidden";
    return [pile, card];
  });
  const show = (pile) => {
    for (const [name, card] of hidden) if (name === pile && card) card.style.visibility = "";
  };
  const gap = Math.min(70, 1600 / homeward.length);
  const cw = getComputedStyle(board).getPropertyValue("--cw");
  const flights = homeward.map((motion, i) => {
    const from = startRect(rects, motion);
    const target = board.querySelector(`[data-pile="${motion.to}"]`);
    if (!from || !target) {
      if (last[motion.to] === i) show(motion.to);
      return Promise.resolve();
    }
    const to = target.getBoundingClientRect();
    const ghost = makeCard(motion.card);
    ghost.classList.add("ghost", "homeward");
    ghost.setAttribute("aria-hidden", "true");
    Object.assign(ghost.style, { left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px`, height: `${from.height}px` });
    ghost.style.setProperty("--cw", cw);
    ghost.style.visibility = "hidden";
    document.body.append(ghost);
    const animation = ghost.animate(
      [{ transform: "none", visibility: "visible" }, { transform: `translate(${to.left - from.left}px, ${to.top - from.top}px)`, visibility: "visible" }],
      { duration: 260, delay: i * gap, easing: "cubic-bezier(.3,.7,.4,1)", fill: "both" },
    );
    return animation.finished.catch(() => null).then(() => {
      ghost.remove();
      if (last[motion.to] === i) show(motion.to);
    });
  });
  return Promise.all(flights);
}

// After a move of the player: let the server play what cannot hurt, per the
// setting, and fly those cards home. `show` draws a game, `refused` handles
// a refusal as a move's would be.
export async function autoFinish(board, show, refused) {
  const mode = app.settings.autoplay;
  const game = app.game;
  if (mode === "off" || !game || game.replay || game.status !== "playing" || game.given_up) return;
  // Let the player's own card land before the board is drawn again; when
  // nothing was played the board is not drawn again, and the next click
  // (a player drawing through a long stock) need not wait for the landing.
  const landing = sleep(moving() ? 230 : 0);
  const result = await api.autoplay(game, mode);
  if (app.game !== game) return;
  if (!result.ok) {
    await refused(result);
    return;
  }
  if (!result.data.autoplayed.length) return;
  await landing;
  if (app.game !== game) return;
  const rects = moving() ? cardRects(board) : null;
  let landed;
  app.landed = new Promise((resolve) => { landed = resolve; });  // the win screen waits for it
  show(result.data, { animate: false });
  announce(result.data);
  (rects ? flyHome(board, result.data.motions, rects) : Promise.resolve()).then(landed);
}

// ---------------------------------------------------------------- giving up

export async function giveUp(show, refused) {
  const game = app.game;
  if (!game || game.replay || !canGiveUp(game)) return;
  const sure = await confirmChoice({ title: t("giveUp.title"), text: t("giveUp.text"), yes: t("giveUp.yes") });
  if (!sure || app.game !== game) return;
  await flushTime();
  const result = await api.giveUp(game);
  if (app.game !== game) return result;  // another game is shown now
  if (result.ok) {
    show(result.data, { animate: false });
    announce(result.data);
  } else {
    await refused(result);
  }
  return result;
}

// A game can be given up once a move was made in it (also after a restart),
// while it is neither won (a win is final) nor over.
export function canGiveUp(game) {
  return Boolean(game) && !game.given_up && game.won_at === null
    && (game.status === "playing" || game.status === "choosing")
    && game.moves + game.redo > 0;
}

// The Give up button follows the game shown.
export function syncEndButtons(game) {
  const button = $("#btn-giveup");
  if (button) button.disabled = !game || Boolean(game.replay) || !canGiveUp(game);
  if (game && game.given_up && !game.replay) $("#btn-restart").disabled = true;  // (it can only be replayed)
}

// ---------------------------------------------------------------- end screens

function celebrate() {
  if (!moving()) return;
  const board = $("#board");
  const piles = [...board.querySelectorAll(".pile.foundation")];
  const layer = el("div", { class: "cascade", "aria-hidden": "true" });
  document.body.append(layer);
  const cw = getComputedStyle(board).getPropertyValue("--cw");
  const height = window.innerHeight;
  piles.forEach((pile, i) => {
    const card = topCard(pile);
    if (!card) return;
    const rect = card.getBoundingClientRect();
    for (let k = 0; k < 4; k += 1) {
      const ghost = makeCard(card.dataset.card);
      ghost.classList.add("ghost", "falling");
      Object.assign(ghost.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px` });
      ghost.style.setProperty("--cw", cw);
      layer.append(ghost);
      const drift = (i % 2 ? 1 : -1) * (40 + 30 * k + 8 * i);
      ghost.animate(
        [
          { transform: "translate(0, 0) rotate(0deg)", opacity: 1 },
          { transform: `translate(${drift * 0.6}px, ${height * 0.35}px) rotate(${drift / 4}deg)`, opacity: 1, offset: 0.55 },
          { transform: `translate(${drift}px, ${height - rect.top}px) rotate(${drift / 2}deg)`, opacity: 0 },
        ],
        { duration: 1400, delay: i * 90 + k * 160, easing: "ease-in", fill: "both" },
      );
    }
  });
  setTimeout(() => layer.remove(), 1400 + piles.length * 90 + 4 * 160 + 100);
}

function stat(label, value, name) {
  return el("div", { class: "end-stat", "data-stat": name }, el("dt", { text: label }), el("dd", { text: count(value) }));
}

async function winFacts(game) {
  // the time first: the statistics then count this win with all of it, so
  // that the win is the fastest exactly when their fastest time is its own
  await flushTime();
  const [stats, stored] = await Promise.all([api.stats(), api.get(game.id)]);
  // the group the game counts in: its variant, or a custom one for other rules
  const key = game.stats_key || game.variant;
  const block = stats.ok ? (stats.data.variants || {})[key] : null;
  // (custom rules are named with what differs from their preset, as the statistics name them)
  const title = stats.ok ? groupTitle(stats.data, key, game.title) : game.title;
  // The win's time as the statistics count it (won_seconds, read after the
  // time is reported): the playing time up to the first win. The playing
  // time so far showed there instead, which after a win, an undo and the
  // win again held the time played since the first (0:01, then 0:02,
  // for a win of 0:00 undone for 1.2 s).
  const seconds = stored.ok && stored.data.id === game.id ? stored.data.won_seconds : game.won_seconds;
  return { ms: seconds === null || seconds === undefined ? null : seconds * 1000, block, title };
}

async function fillWin(dialog, game) {
  const { ms, block, title } = await winFacts(game);
  if (dialog.dataset.game !== game.id) return;
  const moves = game.moves;
  const facts = el("dl", { class: "end-stats" },
    stat(t("end.time"), ms === null ? "–" : formatDuration(ms), "time"),
    stat(t("end.moves"), count(moves), "moves"),
    stat(t("end.hints"), count(game.hints), "hints"),
    stat(t("end.undos"), count(game.undos), "undos"));
  if (block) {
    // (today's streak belongs to a win just made, not to a won game opened again)
    if (game.last_move) facts.append(stat(t("end.streak"), count(block.current_streak), "streak"));
    // (two records, each named: the fewest moves and the fastest time may
    // be two different wins)
    const best = [];
    if (block.fewest_moves !== null) best.push(t("end.bestMoves", { n: count(block.fewest_moves) }));
    if (block.fastest_seconds !== null) best.push(t("end.bestTime", { time: formatDuration(block.fastest_seconds * 1000) }));
    facts.append(stat(t("end.best", { variant: title }), best.join(" · ") || "–", "best"));
    // (a win that only equals the fewest moves of an earlier one is no new record)
    const fewest = moves <= (block.fewest_moves ?? Infinity);
    const equalled = fewest && (block.fewest_moves_wins ?? 1) > 1;
    const fastest = block.fastest_seconds !== null && ms !== null && Math.abs(block.fastest_seconds * 1000 - ms) < 1;
    const newFewest = fewest && !equalled;
    // (a record is news of a win just made: a won game opened again, from
    // the statistics or by a reload, that holds a best was hailed as a new
    // one, also the first win of all, which had beaten none)
    const news = Boolean(game.last_move) && block.won > 1;
    if (game.assisted) {  // (the statistics' records are from wins without an assist)
      facts.append(el("p", { class: "assisted-win", text: t("end.assisted") }));
    } else if (news && (fastest || newFewest)) {
      // (which record it is: the fewest moves, the fastest time, or both)
      const key = fastest && newFewest ? "end.recordBoth" : fastest ? "end.recordTime" : "end.recordMoves";
      facts.append(el("p", { class: "record", text: t(key) }));
    } else if (news && equalled) {
      facts.append(el("p", { class: "record", text: t("end.equalled") }));
    }
  }
  dialog.querySelector(".end-stats-slot").replaceChildren(facts);
  placeEnd(dialog);  // (taller now)
  // (the figures come after the dialog opened with its button focused: on
  // a phone they pushed that button out of the dialog's sight)
  const focused = document.activeElement;
  if (focused && focused !== dialog && dialog.contains(focused)) focused.scrollIntoView({ block: "nearest" });
}

// The end-of-game dialog: `kind` is "won" or "lost"; `hopeless` when the
// solver proved that no winning line remains (the game goes on): true, or
// "terrace-dead" when the cards in sight prove it (the terrace can never be
// played out). `relabel`: the screen open is written again as it is (in
// the language just chosen), its focus kept, nothing celebrated again.
export async function endScreen(game, kind, hopeless, { openNewGame, undo, giveUp: giveUpNow, analyse }, relabel = false) {
  const dialog = $("#dlg-end");
  const mark = hopeless ? "hopeless" : game.given_up ? "given-up" : kind;
  if (!relabel && dialog.open && dialog.dataset.game === game.id && dialog.dataset.kind === mark) return;
  const focusedAt = [...dialog.querySelectorAll("button")].indexOf(document.activeElement);
  dialog.dataset.game = game.id;
  dialog.dataset.kind = mark;
  dialog.dataset.hopeless = String(hopeless || "");
  const close = el("button", { type: "button", text: t("btn.keepLooking"), onclick: () => dialog.close() });
  // (the focus, taken as the dialog opens, starts on New game on a game
  // that is over, won, lost or given up: what a player most likely wants
  // next; on Play on after a proved loss: the game goes on, and a stray
  // Enter neither undoes nor gives up)
  const again = el("button", { type: "button", class: "primary", autofocus: true, text: t("btn.playAgain"), onclick: () => { dialog.close(); openNewGame(); } });
  const buttons = el("div", { class: "buttons" });
  // (offered, and its words said, only when there is a move to undo)
  const undoButton = game.can_undo
    ? el("button", { type: "button", id: "end-undo", text: t("btn.undo"), onclick: () => { dialog.close(); undo(); } })
    : null;
  let title;
  let text;
  if (kind === "won") {
    title = t("end.won.title");
    text = t("end.won.text", { moves: count(game.moves) });
    buttons.append(close, again);
  } else if (hopeless) {
    const proof = hopeless === "terrace-dead" ? "end.dead" : "end.hopeless";
    title = t(`${proof}.title`);
    text = t(game.can_undo ? `${proof}.text` : `${proof}.text.noUndo`);
    buttons.append(
      el("button", { type: "button", autofocus: true, text: t("btn.playOn"), onclick: () => dialog.close() }),
      ...(undoButton ? [undoButton] : []),
      el("button", { type: "button", class: "primary", id: "end-giveup", text: t("btn.giveUp"), disabled: !canGiveUp(game), onclick: () => { dialog.close(); giveUpNow(); } }));
  } else if (game.given_up) {
    title = t("end.givenUp.title");
    text = t("end.givenUp.text");
    buttons.append(close, again);
  } else {
    title = t("end.lost.title");
    text = t(game.can_undo ? "end.lost.text" : "end.lost.text.noUndo");
    buttons.append(...(undoButton ? [undoButton] : []), close, again);
  }
  if (!hopeless && analyse) {
    buttons.prepend(el("button", { type: "button", id: "end-analyse", text: t("btn.analyse"), onclick: () => { dialog.close(); analyse(); } }));
  }
  // (the figures of a win come after the dialog has opened and been heard: they are said when they come)
  dialog.replaceChildren(el("h2", { id: "dlg-end-title", text: title }), el("p", { id: "dlg-end-text", text }),
    el("div", { class: "end-stats-slot", "aria-live": "polite" }), buttons);
  dialog.setAttribute("aria-describedby", "dlg-end-text");
  dialog.className = `end ${kind}${hopeless ? " hopeless" : ""}`;
  dialog.lang = getLanguage();
  if (relabel) {
    const buttons = dialog.querySelectorAll("button");
    if (focusedAt >= 0 && buttons[focusedAt]) buttons[focusedAt].focus();
    if (kind === "won") fillWin(dialog, game);
    // (its words in another language, another height: placed anew, and the
    // board fitted anew above it; German's took 19 px more of a phone than
    // English's, and hid 13 indices of the board fitted below the English)
    freeRoom(dialog);
    placeEnd(dialog);
    return;
  }
  if (kind === "won") {
    if (app.landed) await app.landed;
    // (a replay may have started meanwhile: its end screen is not this one)
    if (dialog.dataset.game !== game.id || dialog.dataset.kind !== mark || (app.game && app.game.replay)) return;
    if (game.last_move) celebrate();  // a win just made, not a won game opened again
    fillWin(dialog, game);
  }
  // Heard when it opens and takes the focus (its title and text): open
  // already, on another end (play on after a proved loss, until no move is
  // left), it opens again so that the focus enters it anew. A screen of
  // its own: the browser's Back (a phone's back gesture) closes it, as it
  // closes a panel, where it left the page.
  const shown = dialog.open;
  if (shown) dialog.close();
  dialog.show();
  freeRoom(dialog);  // (placed anew: the board drawn at its full size first)
  placeEnd(dialog);
  if (!shown) closedByBack(dialog);
}

// The end screen where it hides the fewest cards' rank and suit, nearest
// to its place in style.css (low in the middle): there it covered the
// lowest cards of the tableau, the final position a player wants to see
// (a lost game at 1366x768 in German: 13 indices in sight). Below the
// header, above a phone's toolbar; placed again whenever the board is
// drawn anew (a resize). Where no spot at its own width hides none, and
// it takes no more than half the window's width (not on a phone), other
// widths are tried, nearest to its own first, 32 px apart (WIDTHS): its
// words in more lines or fewer. At 1280x720 the lost game's screen, 432 px
// wide, hid a 9♣ index wherever it went (368 px hides none), and a dead
// terrace's two or four indices, among them the terrace's end card (656 px
// wide, low, it hides none).
const WIDTHS = { step: 32, least: 288, most: 800 };

function placeEnd(dialog) {
  if (!dialog.open) return;
  dialog.style.cssText = "";
  if (dialog.dataset.room === "true") {
    // (the board fitted above it: kept where it hides none there; where it
    // still hides some, as on a phone held sideways, whose board had no
    // height left, the board is drawn at its full size again, and the
    // screen placed on it as before)
    const box = dialog.getBoundingClientRect();
    if (!fewestHidden([box], box).hidden) return;
    dialog.dataset.room = "none";
    document.dispatchEvent(new CustomEvent(ROOM_EVENT));
    return;
  }
  const from = dialog.getBoundingClientRect();
  const margin = 8;
  const area = {
    left: margin,
    top: document.querySelector(".bar").getBoundingClientRect().bottom + margin,
    right: innerWidth - margin,
    bottom: innerHeight - parseFloat(getComputedStyle(document.body).paddingBottom || "0") - margin,
  };
  const indices = cardIndices();
  let best = { ...nearestFewest(from, from, area, indices), width: null };
  const widest = Math.min(innerWidth - 2 * margin, WIDTHS.most);
  const widths = [];
  for (let step = WIDTHS.step; step < widest; step += WIDTHS.step) {
    for (const width of [from.width - step, from.width + step]) {
      if (width >= WIDTHS.least && width <= widest) widths.push(width);
    }
  }
  const narrows = from.width <= innerWidth / 2;
  for (const width of widths) {
    if (!best.hidden || !narrows) break;
    Object.assign(dialog.style, { width: `${width}px`, minWidth: "0", maxWidth: "none" });
    const size = dialog.getBoundingClientRect();
    const found = nearestFewest({ left: from.left, top: from.bottom - size.height }, size, area, indices);
    if (found.hidden < best.hidden) best = { ...found, width };
  }
  dialog.style.cssText = "";
  // No spot hides none (a phone: the board fills its height, and the
  // golden lost game's screen hid 13 indices at 360x640 in German, the
  // tableau's last cards): the board is fitted into the room above the
  // screen, in its place in style.css, smaller, the whole final position
  // in sight; at full size again once the screen closes (Keep looking) or
  // the window's size changes.
  if (best.hidden && !dialog.classList.contains("won") && dialog.dataset.room !== "none") {
    dialog.dataset.room = "true";
    document.dispatchEvent(new CustomEvent(ROOM_EVENT));
    return;
  }
  const { spot, width } = best;
  if (width !== null) Object.assign(dialog.style, { width: `${width}px`, minWidth: "0", maxWidth: "none" });
  if (spot === from) return;
  Object.assign(dialog.style, { left: `${spot.left}px`, top: `${spot.top}px`, right: "auto", bottom: "auto", margin: "0" });
}

new MutationObserver(() => placeEnd($("#dlg-end")))
  .observe(document.body, { attributes: true, attributeFilter: ["data-fitted"] });

// The event on which the board is drawn again for the room the end screen
// leaves it (view.js).
export const ROOM_EVENT = "end-room";

// The room kept for the end screen given back to the board (drawn again
// when `redraw`): the screen closed, opened anew, or the window resized
// (whose own drawing follows).
function freeRoom(dialog, redraw = true) {
  const taken = dialog.dataset.room === "true";
  delete dialog.dataset.room;
  if (taken && redraw) document.dispatchEvent(new CustomEvent(ROOM_EVENT));
}

$("#dlg-end").addEventListener("close", (event) => { if (!event.target.open) freeRoom(event.target); });
window.addEventListener("resize", () => freeRoom($("#dlg-end"), false));

// The end screen is not modal (a click may still reach the header and the
// board), but it covers part of the board: the keyboard's focus, which it
// takes when it opens, goes round its buttons (never onto a pile it hides),
// and Escape closes it, as it closes the other dialogs.
function holdKeys(dialog) {
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      dialog.close();
      return;
    }
    if (event.key !== "Tab" || event.ctrlKey || event.altKey || event.metaKey) return;
    const stops = [...dialog.querySelectorAll("button:not(:disabled)")];
    if (!stops.length) return;
    const at = stops.indexOf(document.activeElement);
    const next = event.shiftKey ? (at <= 0 ? stops.length - 1 : at - 1) : (at + 1) % stops.length;
    event.preventDefault();
    stops[next].focus();
  });
}

holdKeys($("#dlg-end"));
