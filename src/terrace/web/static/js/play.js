// Playing: a move, an undo, a redo or a restart sent to the server and its
// answer drawn; a refusal shown and kept in the prompt; a move the rules
// refuse explained.

import { api } from "./api.js";
import { confirmMove } from "./coach.js";
import { snapBack } from "./drag.js";
import { autoFinish } from "./endgame.js";
import { hideWhy, showWhy } from "./explain.js";
import { sentence, t } from "./i18n.js";
import { holdInput, releaseInput } from "./input.js";
import { explainPile } from "./keyboard.js";
import { prompt } from "./prompt.js";
import { enqueue } from "./queue.js";
import { topCard } from "./render.js";
import { app, hideKeptToast, moving, toast } from "./state.js";
import { announce } from "./tabs.js";
import { show } from "./view.js";

const board = document.querySelector("#board");

// A pile's name in the moves' notation (docs/notation.md).
export function notation(pile) {
  return pile === "reserve" ? "r" : pile === "waste" ? "w" : pile;
}

export async function answer(result, ghost = null, card = null) {
  if (result.ok) {
    show(result.data, { ghost });
    announce(result.data);
    return true;
  }
  if (ghost && card) snapBack(ghost, card, moving());
  if (await caughtUp(result)) return false;
  if (result.status === 409 && app.game) {
    const fresh = await api.get(app.game.id);
    if (fresh.ok) show(fresh.data, { animate: false });
  }
  refuse(result.status === 0 ? t("error.network") : result.data.error);
  return false;
}

// A move (or an undo, a key, a hint) refused: the toast shows why for a
// few seconds and #alert says it at once; the prompt keeps the words until
// the player goes on (keepNotice), for a player who looked away, or whose
// screen reader's speech the next key cut off.
export function refuse(text, kind = "error") {
  const kept = keepNotice(sentence(text), kind);
  toast(text, kind, { kept });
}

// A refusal of the page's own (a key, a drop, a double click), in its turn:
// after the answers to what the player did before, which would take it away.
export function refuseInTurn(text, kind = "error") {
  return enqueue(() => refuse(text, kind));
}

// `text` in the prompt until the next answer drawn, selection or Escape
// (already heard: from #alert, or #said for the bubble by a card). False
// when there is no game of the player's shown to keep it (a replay).
function keepNotice(text, kind = "error") {
  if (!app.game || app.game.replay) return false;
  app.notice = { text, kind };
  prompt(text, { said: false });
  return true;
}

// The player went on: the notice, its toast and the bubble by the card go
// (they named a refusal the prompt no longer shows).
export function forgetNotice() {
  app.notice = null;
  hideKeptToast();
  hideWhy();
}

// A change refused because the game changed elsewhere (409 conflict): show
// the game as it is now and say so. True when the page caught up.
export async function caughtUp(result) {
  const game = app.game;
  if (result.status !== 409 || !result.data || result.data.code !== "conflict" || !game || game.replay) return false;
  const fresh = await api.get(game.id);
  if (!fresh.ok) return false;
  if (app.game === game) show(fresh.data, { animate: false });
  toast(t("conflict"), "info");
  return true;
}

// True when a source (a pile's top card, `game.sources[pile]`) may play `move`.
const offers = (info, move) => info.auto === move || Object.values(info.targets).includes(move);

// The pile whose top card `move` takes, in `game` (null for a draw or a choice).
function moveSource(game, move) {
  for (const [pile, info] of Object.entries(game.sources || {})) {
    if (offers(info, move)) return pile;
  }
  return null;
}

// What a move chosen on `shown` means on `game`, the position it meets in
// the queue (the answer of a move before it, or the page's own auto-play):
// a draw is a draw anywhere; a card's move stands when the same card still
// lies on top of its pile and may still go there; anything else (a triple
// click, a click meant for a card that has moved) is dropped.
function stillMeant(move, shown, game) {
  if (!shown || game.id !== shown.id) return null;
  if (move === shown.draw) return game.draw;
  // (a candidate: while the same card is still offered as that choice, as
  // after a refused undo, whose answer shows the game read anew)
  if (shown.status === "choosing") {
    const was = shown.choices.find((c) => c.move === move);
    const now = game.status === "choosing" ? game.choices.find((c) => c.move === move) : null;
    return was && now && was.card === now.card ? move : null;
  }
  const pile = moveSource(shown, move);
  const now = pile && game.sources ? game.sources[pile] : null;
  if (!now || now.card !== shown.sources[pile].card) return null;
  return offers(now, move) ? move : null;
}

// Play `move`, chosen on the position shown now. Queued behind earlier
// actions: when the position has changed by its turn (a double click's
// move already played, an answer from another tab), it is dropped quietly.
export function play(move, ghost = null, card = null) {
  const shown = app.game;
  const drop = () => { if (ghost && card) snapBack(ghost, card, moving()); };
  const choice = Boolean(shown) && !shown.replay && shown.status === "choosing" && move[0] === "c";
  if (choice) holdInput();
  return enqueue(async () => {
    let answered = false;
    try {
      const game = app.game;
      if (!game || game.replay) return drop();
      if (game !== shown) {
        move = stillMeant(move, shown, game);
        if (!move) return drop();
      }
      if (!(await confirmMove(game, move)) || app.game !== game) return drop();
      const result = await api.move(game, move);
      if (app.game !== game) return drop();  // another game is shown now
      answered = await answer(result, ghost, card);
    } finally {
      if (choice) releaseInput(answered);
    }
    if (answered) await autoFinish(board, show, answer);
  });
}

// Why a move the player tried is refused, next to the card (or the top
// card of `source`).
// When its turn comes after an answer that took the card away (a drop on
// the card a double click had just sent), nothing is said: the server
// would explain the card that lies there now, which was not tried.
export function explain(move, ghost = null, card = null, source = null) {
  const shown = app.game;
  return enqueue(async () => {
    if (ghost && card) snapBack(ghost, card, moving());
    const game = app.game;
    if (!game || game.replay) return;
    if (source && game !== shown && (game.id !== shown.id || topOf(game, source) !== topOf(shown, source))) return;
    const result = await api.check(game.id, move);
    const pile = source && board.querySelector(`[data-pile="${source}"]`);
    // (the card dropped, or its like on the board drawn anew meanwhile)
    const anchor = (card && card.isConnected && card) || (pile && (topCard(pile) || pile));
    if (result.ok && !result.data.legal) showWhy(result.data.reason, anchor);
    else if (!result.ok) refuse(result.data.error);
  });
}

export function autoMove(pile) {
  const info = app.game.sources[pile];
  if (info && info.auto) return play(info.auto);
  // (a pile's only card, whose one move is into another space; a
  // foundation's card is picked up, never sent: activate)
  if (info) return refuseInTurn(t("error.lone"));
  const cards = pile === "reserve" || pile === "waste" || pile[0] === "t" || pile[0] === "f";
  if (cards) return explainPile(pile);
  return null;
}

export function moveTo(source, target, ghost = null, card = null) {
  const info = app.game.sources[source];
  if (info && info.targets[target]) return play(info.targets[target], ghost, card);
  // (a foundation's card onto a foundation is no move the server could
  // explain: it answered "'F2f3' is not a move")
  if (source[0] === "f" && target && target[0] === "f") {
    if (ghost && card) snapBack(ghost, card, moving());
    return refuseInTurn(t("error.home"), "info");
  }
  if (target && (target[0] === "t" || target[0] === "f") && target !== source) {
    return explain(`${notation(source)}${target}`, ghost, card, source);
  }
  if (ghost && card) snapBack(ghost, card, moving());
  if (target && target !== source) refuseInTurn(t("error.dropHere"));
  return null;
}

export function step(kind) {
  // (across the base card's choice: a redo of it, an undo back to it, a
  // restart; not an undo or a redo with nothing to take back, which the
  // server refuses, dropping the keys held behind it)
  const shown = app.game;
  const across = Boolean(shown) && !shown.replay && (
    (kind === "redo" && shown.can_redo && shown.status === "choosing")
    || (kind === "undo" && shown.can_undo && shown.moves <= 1)
    || (kind === "restart" && shown.moves > 0));
  if (across) holdInput();
  return enqueue(async () => {
    let answered = false;
    try {
      const game = app.game;
      if (!game || game.replay) return;
      // (nothing to undo or redo: the server's refusal says so; Ctrl+Z and
      // Ctrl+Y said nothing then, only the buttons showed it, disabled)
      if (kind === "restart" && !game.moves) return;
      const result = await api[kind](game);
      if (app.game === game) answered = await answer(result);
    } finally {
      // (the keys held are meant for the side of the choice it crosses to:
      // one an earlier change in the queue reached already counts as
      // reached, so Ctrl+Z pressed once more than there were moves, refused
      // in its turn, no longer dropped the Ctrl+Y pressed after it)
      if (across) releaseInput(answered || reached(kind, shown));
    }
  });
}

// Whether the game shown now is at the side of the base card's choice that
// `kind` (an undo or a redo across it, a restart) on `shown` goes to.
function reached(kind, shown) {
  const game = app.game;
  if (!game || game.replay || game.id !== shown.id) return false;
  return kind === "redo" ? game.moves > 0 : game.moves === 0;
}

// The card on top of `pile` in `game` (null for none, or for the stock).
function topOf(game, pile) {
  const s = game.state;
  const at = (list) => list[Number(pile.slice(1)) - 1];
  const cards = pile === "reserve" ? s.reserve : pile === "waste" ? s.waste
    : pile[0] === "f" ? at(s.foundations) : pile[0] === "t" ? at(s.tableau) : null;
  return cards && cards.length ? cards[cards.length - 1] : null;
}

export function keepRefusals() {
  document.addEventListener("refused", (event) => keepNotice(event.detail));
}
