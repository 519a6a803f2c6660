// The game shown: a game's JSON drawn (show), with the header's title and
// buttons, the counters, the prompt and the board fitted into the room
// they leave (draw, drawBoard).

import { drawCoach, markCoach } from "./coach.js";
import { ROOM_EVENT, syncEndButtons } from "./endgame.js";
import { animateMotions, landAll, snapshot } from "./flight.js";
import { forgetSoughtHint, promptHint, wantVerdicts } from "./hints.js";
import { t } from "./i18n.js";
import { keepInHand } from "./input.js";
import { actions } from "./main.js";
import { foldCrowdedHeader } from "./menu.js";
import { closeEnd, showEnd } from "./panels.js";
import { caughtUp, forgetNotice } from "./play.js";
import { prompt } from "./prompt.js";
import { el, renderBoard, renderCounters } from "./render.js";
import { followReplay, keepReplay, scrubbing } from "./replay.js";
import { sayMotions } from "./said.js";
import { markHint, markSelection, selectedPrompt } from "./selection.js";
import { app, hideToast, keepHref, moving, say } from "./state.js";
import { followGame, paintTimer } from "./timer.js";

const $ = (selector) => document.querySelector(selector);
const board = $("#board");

export function show(game, { ghost = null, animate = true } = {}) {
  const before = app.game && board.childElementCount ? snapshot() : null;
  const changedGame = !app.game || app.game.id !== game.id;
  if (changedGame) { app.verdicts = null; app.verdictNote = null; }
  // Another game in place of the one shown (a game resumed from the
  // statistics, a new one, back from another game's replay): a screen
  // reader hears which, before the prompt (which may not change). A replay
  // says itself in its prompt.
  if (changedGame && app.game && !game.replay) say(`${gameTitle(game)}.`);
  app.selected = keptSelection(game);
  forgetNotice();  // (an answer drawn: what was refused before it is stale)
  app.game = game;
  forgetSoughtHint(game);
  followReplay(game);
  keepReplay(game);
  // (the hint's toast goes with its marks: it named a move made or passed by)
  if (app.hint) hideToast(app.hint);
  app.hint = null;
  followGame(game);
  if (!changedGame) sayMotions(game.motions || [], game);  // (before the prompt it may change)
  draw();
  if (before && animate && moving() && game.motions) animateMotions(game.motions, before, ghost);
  if (ghost) ghost.remove();
  document.body.dataset.moves = String(game.moves);
  document.body.dataset.status = game.status;
  document.body.dataset.game = game.id;
  if (!game.replay) {
    sessionStorage.setItem("terrace.shown", game.id);  // (this tab's: see startup)
    keepAddress(game.id);
    wantVerdicts(game);
    if (game.status === "won" || game.status === "lost") showEnd(game, game.status, false, actions);
    else closeEnd();
  } else {
    closeEnd();  // (a replay started from the statistics, over a win screen that is not modal)
  }
}

// A card selected on the game shown stays selected in `game`, an answer
// that leaves it on top of its pile and free to move (a draw asked for just
// before the card was selected): the player's next click or key moves it.
// Else the answer put it down, and that key selected another card.
function keptSelection(game) {
  const shown = app.game;
  const source = app.selected;
  if (!source || !shown || shown.replay || game.replay || shown.id !== game.id) return null;
  const before = shown.sources[source];
  const now = (game.sources || {})[source];
  return before && now && before.card === now.card ? source : null;
}

// An address that names a game (?game=) names the one shown, so a reload
// reopens it and not the game the page was first opened on.
function keepAddress(id) {
  const url = new URL(window.location.href);
  if (!url.searchParams.has("game") || url.searchParams.get("game") === id) return;
  url.searchParams.set("game", id);
  keepHref(url.href);
}

// A button of the header or the replay bar that had the focus and is
// disabled or hidden now (Undo pressed until nothing is left to undo, Redo,
// Restart, a replay's Next at its end, Back to my game): the focus would
// fall to the page's body. It goes to its partner (Redo for Undo, Previous
// for Next, and back), else to the nearest usable button before it, else to
// the board.
const PARTNER = { "btn-undo": "btn-redo", "btn-redo": "btn-undo", "replay-next": "replay-prev", "replay-prev": "replay-next" };
const usable = (node) => Boolean(node) && !node.disabled && node.getClientRects().length > 0;

function keepFocusNear(button) {
  const partner = PARTNER[button.id] && $(`#${PARTNER[button.id]}`);
  const buttons = [...button.closest(".actions, .replay-bar").querySelectorAll("button")];
  const before = buttons.slice(0, buttons.indexOf(button)).reverse().find(usable);
  const next = (usable(partner) && partner) || before || board.querySelector("[data-pile]");
  if (next) next.focus();
}

// The game's name in the header: its variant and deal.
function gameTitle(game) {
  return gameTitleParts(game).join("");
}

// The game's name and its deal's, as the header shows them (menu.js:
// keepDealInSight cuts the name short, never the deal).
function gameTitleParts(game) {
  // (rules changed by hand: said as the statistics count them)
  const custom = String(game.stats_key || "").includes("(custom") ? ` (${t("stats.custom")})` : "";
  return [`${game.title}${custom}`, ` · ${t("counter.deal")} ${game.deal_number ?? "–"}`];
}

export let drawing = false;  // draw() is setting the prompt: it fits the board itself
export function draw() {
  const game = app.game;
  if (!game) return;
  landAll();  // (the cards on their way are drawn anew, at their place)
  const focused = document.activeElement;
  $("#offline").hidden = true;
  // The counters and the prompt first: the board fits the room they leave.
  renderCounters($("#counters"), game);
  paintTimer();
  syncEndButtons(game);
  const [name, deal] = gameTitleParts(game);
  if ($("#game-title").textContent !== name + deal) {
    $("#game-title").replaceChildren(el("span", { class: "game-name", text: name }), el("span", { class: "game-deal", text: deal }));
    foldCrowdedHeader();  // (a longer title may leave the buttons no room beside it)
  }
  const replay = Boolean(game.replay);
  $("#btn-undo").disabled = replay || !game.can_undo;
  $("#btn-redo").disabled = replay || !game.can_redo;
  $("#btn-hint").disabled = replay || game.status === "won" || game.status === "lost";
  $("#btn-restart").disabled = replay || !game.moves || game.given_up;
  $("#replay-bar").hidden = !replay;
  // (Analyse only for a game that is over: the server's coach refuses any other)
  $("#replay-coach").hidden = !(replay && game.over);
  if (replay) {
    $("#replay-prev").disabled = game.step <= 0;
    $("#replay-next").disabled = game.step >= game.steps;
    const slider = $("#replay-step");
    slider.max = String(game.steps);
    if (!scrubbing) slider.value = String(game.step);  // (not under the player's thumb)
  }
  if (focused && focused.closest && focused.closest(".actions, .replay-bar") && !usable(focused)) keepFocusNear(focused);
  drawing = true;  // (the prompt set here is followed by the board, fitted below)
  try {
    // (a hint shown stays in the prompt, as its marks stay on the board)
    if (app.hint && app.hint.found) promptHint(game, app.hint.found, { said: false });
    else if (app.selected && game.sources[app.selected]) selectedPrompt(app.selected, false);
    else if (app.notice) prompt(app.notice.text, { said: false });
    else prompt();
  } finally {
    drawing = false;
  }
  drawCoach(draw, caughtUp);  // (above the board: before it is fitted into the room left)
  drawBoard();
}

// The board, fitted into the room the counters, the prompt and the notes
// leave it, with its marks. The body says the window size it was fitted to
// last (data-fitted): a browser test that resizes the window waits for it.
export function drawBoard() {
  renderBoard(board, app.game, { verdicts: app.verdicts });
  if (app.selected) markSelection(app.selected);
  if (app.hint) markHint(app.hint);
  markCoach();
  keepInHand();
  document.body.dataset.fitted = `${window.innerWidth}x${window.innerHeight}`;
}

// (fitted again into the room the end screen leaves it, or all of it once more)
document.addEventListener(ROOM_EVENT, () => { if (app.game) drawBoard(); });
