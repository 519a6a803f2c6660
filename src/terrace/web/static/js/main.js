// The web game: state, actions, clicks, keys and animations.

import { api, refusedByApp } from "./api.js";
import { DRAG_THRESHOLD, attachDrag, snapBack } from "./drag.js";
import { t, setLanguage, chooseLanguage, getLanguage, cardLabel, cardName, fromPlace, placeName, sentence, within } from "./i18n.js";
import { openNewGame, openSettings, openStats, showEnd, closeEnd, relabelEnd } from "./panels.js";
import { PILE_KEYS, choiceKeys, el, renderBoard, renderCounters, topCard } from "./render.js";
import { app, backStep, hideKeptToast, hideToast, keepHref, moving, say, showLook, toast, touchFirst } from "./state.js";
import { autoFinish, confirmLeaving, giveUp, syncEndButtons } from "./endgame.js";
import { followGame, paintTimer, startTimer } from "./timer.js";
import { announce, watchOtherTabs } from "./tabs.js";
import { explainCard, hideWhy, showWhy } from "./explain.js";
import { openRules, watchNewGame } from "./help.js";
import { attachArrows, catchLostFocus, keepTabInModals } from "./keyboard.js";
import { attachMenu, foldCrowdedHeader, keepInSight, keepKeyboardOrder } from "./menu.js";
import { labelTables } from "./tables.js";
import { tapCount } from "./taps.js";
import { analyse, confirmMove, drawCoach, markCoach } from "./coach.js";

const $ = (selector) => document.querySelector(selector);

const board = $("#board");

// Run actions one after the other, so quick clicks never overlap. The body
// says whether any is waiting or running (data-busy: "false" once the last
// has ended, auto-play after a move included): the browser tests wait for
// the page to have done all it was asked, rather than for a while.
let queued = 0;
document.body.dataset.busy = "false";
function enqueue(action) {
  queued += 1;
  document.body.dataset.busy = "true";
  app.queue = app.queue.then(action).catch(scriptFailed).finally(() => {
    queued -= 1;
    if (!queued) document.body.dataset.busy = "false";
  });
  return app.queue;
}

// An error of the page's own script (a fault of the page, not of the
// server) while it did what the player asked: the board may be left half
// drawn. It is said in place, in the page's words, with Try again, which
// reads the game from the server and draws it anew (load); a toast said the
// script's English words ("TypeError: ...") for 4.5 s, and nothing after.
// The board is fitted again below the notice (fitted without it, its last
// cards were pushed below the window's edge); a fault of that drawing
// too leaves the board as it was.
function scriptFailed(error) {
  console.error(error);
  const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  $("#offline-text").hidden = true;
  $("#offline-why").textContent = t("error.script", { error: why });
  $("#offline-why").hidden = false;
  const shown = !$("#offline").hidden;
  $("#offline").hidden = false;
  if (shown || !app.game) return;
  try {
    drawBoard();
  } catch (again) {
    console.error(again);
  }
}

// (the same for one outside the queue: a panel's button, a timer; not the
// browser's notes without an error, as a ResizeObserver's loop)
window.addEventListener("error", (event) => { if (event.error) scriptFailed(event.error); });
window.addEventListener("unhandledrejection", (event) => scriptFailed(event.reason));

function notation(pile) {
  return pile === "reserve" ? "r" : pile === "waste" ? "w" : pile;
}

// ---------------------------------------------------------------- drawing

function snapshot() {
  const rects = {};
  for (const node of board.querySelectorAll("[data-pile]")) {
    const top = topCard(node);
    rects[node.dataset.pile] = (top || node).getBoundingClientRect();
  }
  return rects;
}

// A replay is a screen of its own: the browser's Back leaves it, as Back
// to my game does (state.js, backStep). While one is shown: the function
// that marks its step spent once it is left otherwise.
let replayLeft = null;

function followReplay(game) {
  if (game.replay && !replayLeft) {
    replayLeft = backStep(() => {
      replayLeft = null;
      enqueue(() => exitReplay());
    });
  } else if (!game.replay && replayLeft) {
    const left = replayLeft;
    replayLeft = null;
    left();
  }
}

// A reload during a replay opens it again at the move it showed, over the
// game the page opens anyway (where it showed that game alone, the replay
// and its place lost): this tab's replay, kept while it is shown.
const REPLAY_KEY = "terrace.replay";

function keepReplay(game) {
  if (game.replay) sessionStorage.setItem(REPLAY_KEY, JSON.stringify({ id: game.id, step: game.step }));
  else sessionStorage.removeItem(REPLAY_KEY);
}

function keptReplay() {
  let kept = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(REPLAY_KEY) || "null");
  } catch {
    kept = null;
  }
  const valid = Boolean(kept) && typeof kept.id === "string" && Number.isInteger(kept.step) && kept.step >= 0;
  return valid ? kept : null;
}

async function reopenReplay(kept) {
  if (!kept || !app.game || app.game.replay) return;
  const result = await api.position(kept.id, kept.step);
  if (!result.ok || !app.game || app.game.replay) return;  // (a game gone since: the game stays)
  app.saved = app.game;
  show(result.data, { animate: false });
}

function show(game, { ghost = null, animate = true } = {}) {
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

// What a move, an undo, a redo or auto-play did, in words, for a screen
// reader: the board is drawn anew, and the prompt does not change with a
// move.
function sayMotions(motions, game) {
  if (!motions.length) return;
  // The base card chosen (or the choice redone): its card and what it means,
  // not the count of the cards that moved with it.
  // (only the choice itself, played or redone: its card goes from a pile to
  // the first foundation; an undo back to it moves other cards)
  // (a replay's moves are the whole game's: the moves played are those up to its step)
  const played = game.replay ? game.step : game.moves;
  const last = game.last_played;
  const chosen = played === 1 && last !== null && last[0] === "c" && motions[0].from[0] === "t" && motions[0].to === "f1"
    && !(game.can_redo && motions.length === 1);  // (a first move f1tN taken back looks alike, alone)
  if (game.status !== "choosing" && chosen) {
    say(t("said.chosen", { card: cardName(motions[0].card) }));
    return;
  }
  // The choice taken back (undone, or a replay stepped back to it): the base
  // card by name, not "8 cards moved" (the terrace's and the stock's cards
  // went back with it); the prompt then says to choose again.
  const unchosen = game.status === "choosing" && motions.find((m) => m.from === "f1");
  if (unchosen) {
    say(t("said.unchosen", { card: cardName(unchosen.card) }));
    return;
  }
  // The waste turned over (a redeal), or that taken back: every card from
  // one to the other (heard as "90 cards moved").
  const all = (from, to) => motions.length > 1 && motions.every((m) => m.from === from && m.to === to);
  if (all("waste", "stock") || all("stock", "waste")) {
    say(t(motions[0].to === "stock" ? "said.redeal" : "said.unredeal", { n: motions.length }));
    return;
  }
  say(motions.length > SAID_ONE_BY_ONE ? saidByPlace(motions) : motions.map(saidMotion).join(" "));
}

// Up to SAID_ONE_BY_ONE cards moved at once are said one by one; more
// (auto-play, its undo, a restart, a replay's jump) by where they went,
// each place once, the first SAID_NAMED cards of each by name: "5 cards to
// the foundations: 7 of hearts, 8 of hearts, …". A screen reader heard
// "5 cards moved", and nothing of which cards went where.
const SAID_ONE_BY_ONE = 3;
const SAID_NAMED = 6;

function saidMotion(m) {
  if (m.from === "stock" && m.to === "waste") return t("said.drawn", { card: cardName(m.card) });
  if (m.to === "stock") return t("said.back", { card: cardName(m.card) });
  return t("said.move", { card: cardName(m.card), from: fromPlace(m.from), to: placeName(m.to) });
}

function saidByPlace(motions) {
  const places = new Map();  // (the foundations as one place, the piles as one)
  for (const m of motions) {
    const place = m.to[0] === "f" || m.to[0] === "t" ? m.to[0] : m.to;
    places.set(place, [...(places.get(place) || []), m]);
  }
  const list = new Intl.ListFormat(getLanguage(), { type: "conjunction" });
  return [...places].map(([place, moved]) => {
    if (moved.length === 1) return saidMotion(moved[0]);
    const names = moved.slice(0, SAID_NAMED).map((m) => cardName(m.card));
    if (moved.length > SAID_NAMED) names.push(t("said.more", { n: moved.length - SAID_NAMED }));
    return t(`said.many.${place}`, { n: moved.length, cards: list.format(names) });
  }).join(" ");
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

let drawing = false;  // draw() is setting the prompt: it fits the board itself
// A card is being dragged: the board, which holds the lifted card, is not
// drawn anew under it for a prompt's sake (the move's answer draws it).
let dragging = false;

function draw() {
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
function drawBoard() {
  renderBoard(board, app.game, { verdicts: app.verdicts });
  if (app.selected) markSelection(app.selected);
  if (app.hint) markHint(app.hint);
  markCoach();
  // (a card in hand stays out of its pile, and its targets marked: a
  // resize during a drag showed it twice, and no pile where it may go)
  if (dragging && app.game === dragged) {
    const source = drags.redrawn((pile) => {
      const node = board.querySelector(`[data-pile="${pile}"]`);
      return node && topCard(node);
    });
    if (source) markTargets(source);
  }
  document.body.dataset.fitted = `${window.innerWidth}x${window.innerHeight}`;
}

// How to play on: the stock is mentioned only while it can still be turned.
// On a touch screen (a coarse pointer first) it speaks of taps, not of
// clicks and keys.
function playPrompt(game) {
  // (an empty stock that may still be drawn from turns the waste over: a redeal)
  const key = !game.draw ? "prompt.playNoStock" : game.state.stock ? "prompt.play" : "prompt.playRedeal";
  if (touchFirst()) return t(`${key}.touch`, { tap: t(`prompt.tap.${app.settings.click}`) });
  return t(key, { click: t(`prompt.click.${app.settings.click}`) });
}

// What the prompt says with no message: what to do now, or how the game
// ended (the room it holds is the room a message is cut to: holdPromptRoom).
function promptOfPlay(game) {
  let message;
  if (game.replay) message = t("prompt.replay", { deal: String(game.deal_number), step: game.step, steps: game.steps });
  else if (game.status === "choosing") {
    message = t(touchFirst() ? "prompt.choose.touch" : "prompt.choose",
      { n: game.choices.length, keys: choiceKeys(game.choices.length) });
    if (app.verdicts) message += ` ${t("prompt.verdicts")}`;
    if (app.verdictNote) message += ` ${t(app.verdictNote)}`;
    // (a deal dead whichever base card is chosen: no choice is fatal, so
    // none asks first; the setting says so before the choice, not after)
    if (app.settings.deadEnd && game.terrace_dead) {
      message += ` ${t("prompt.terraceDeadChoice", { n: game.choices.length })}`;
    }
  }
  else if (app.settings.assists.verdicts && game.status === "playing" && !game.moves && game.options.candidates === 0) {
    message = `${playPrompt(game)} ${t("assist.noChoice")}`;
  }
  else if (game.status === "won") message = t("prompt.won", { n: game.counters.total_cards });
  else if (game.given_up) message = t("prompt.givenUp");
  // (a terrace that could never be played out says so, as the coach does:
  // a game lost at its deal said only that no move was left)
  else if (game.status === "lost") message = t(game.terrace_dead ? "prompt.lostDead" : "prompt.lost");
  else if (app.settings.deadEnd && game.terrace_dead) message = t("prompt.terraceDead");
  else message = playPrompt(game);
  return message;
}

// The prompt: `text`, or what to do now. The prompt is no live region: a
// screen reader hears it (say) when `text` is given or the words change,
// but not the end of a game (won, lost, given up), nor a `text` given with
// `said` false: the end screen says those itself, when it opens and takes
// the focus (they were heard twice). `spoken` is what a screen reader hears
// for `text`, when that names cards by symbol ("7♠": "7 of spades").
// `notice`: `text` is a message (a hint) shown as the kind of toast named,
// as a refusal kept is (style.css: .prompt.notice). `more`: {brief, whole},
// what `text` is followed by: `brief`, then a Why? button that shows
// `whole` over the board (it takes no line of its own: the board does not
// move); a phone shows `whole` in place of both (style.css).
function prompt(text, { said = true, spoken = null, notice = null, more = null } = {}) {
  const game = app.game;
  const ended = !game.replay && (game.status === "won" || game.status === "lost");
  const message = text || promptOfPlay(game);
  const node = $("#prompt");
  if (said && (text || (!ended && promptShown !== message))) say(spoken || message);
  // (a refusal kept: marked as one, style.css: .prompt.notice)
  const kind = notice || (app.notice && message === app.notice.text ? app.notice.kind : null);
  // A prompt of more lines or fewer (a hint, a selected card; a German
  // prompt is longer) changes the room left to the board: it is fitted
  // again (else the cards of tall piles ran off the bottom of the window).
  const height = drawing || dragging ? 0 : node.offsetHeight;
  node.className = kind ? `prompt notice ${kind}` : "prompt";
  // (the same words and Why? kept as they are: a Why? open stays open)
  const words = more ? `${message} ${more.brief}\n${more.whole}` : message;
  if (promptShown !== words) {
    node.textContent = message;
    if (more) node.append(" ", ...promptMore(more));
    promptShown = words;
    promptCut = false;
  }
  holdPromptRoom(node, kind, `${game.id} ${game.replay ? "replay" : game.status}`, game);
  if (kind && (promptCut || tallerThanRoom(node))) cutToRoom(node, message, more);
  if (!drawing && !dragging && game && node.offsetHeight !== height) drawBoard();
}

// What the prompt shows: its words (and its `more`'s, a line below), and
// whether they are cut to the prompt's room (cutToRoom).
let promptShown = "";
let promptCut = false;

// A message (a refusal, a hint) taller than the room the prompt of play
// holds, cut to one line ending in "…" and a button that shows it whole
// over the board, as a hint's Why? does: the board does not move. A
// refusal of the server's in German took two lines at 1280x720 and moved
// the cards down 16 px under the pointer. A phone shows it whole.
function cutToRoom(node, message, more) {
  node.classList.add("cut");
  if (promptCut) return;
  promptCut = true;
  const lead = document.createElement("span");
  lead.className = "prompt-lead";
  lead.textContent = message;
  // (a message alone is its own brief and whole: a phone shows it once)
  node.replaceChildren(...(more ? [lead, " ", ...promptMore(more)]
    : promptMore({ brief: message, whole: message }, "prompt.more")));
}

// Whether the prompt is taller than its room, where the layout cuts it
// (style.css: --cut-to-room).
function tallerThanRoom(node) {
  const cuts = getComputedStyle(node).getPropertyValue("--cut-to-room").trim() === "1";
  return cuts && promptRoom > 0 && node.getBoundingClientRect().height > promptRoom + 0.5;
}

// The brief words after the prompt's, its button (Why? or `label`) and the
// whole words that shows.
function promptMore({ brief, whole }, label = "hint.more") {
  const short = document.createElement("span");
  short.className = "prompt-brief";
  short.textContent = brief;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "prompt-more";
  button.textContent = t(label);
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", "prompt-more");
  const more = document.createElement("span");
  more.id = "prompt-more";
  more.className = "prompt-more-text";
  more.hidden = true;
  more.textContent = whole;
  button.addEventListener("click", () => openPromptMore(more.hidden));
  return [short, " ", button, more];
}

// Show or hide the words behind the prompt's Why?; whether it was open.
function openPromptMore(open) {
  const more = $("#prompt-more");
  if (!more) return false;
  const was = !more.hidden;
  more.hidden = !open;
  $("#prompt .prompt-more").setAttribute("aria-expanded", String(open));
  return was;
}

// (a press anywhere else closes it, as Escape does)
document.addEventListener("pointerdown", (event) => {
  if (!(event.target.closest && event.target.closest("#prompt"))) openPromptMore(false);
});

// The prompt's room never shrinks below the tallest prompt of play shown
// in this stage of the game (`stage`: the game and whether its base card
// is to be chosen, it is played, over or replayed) since the window last
// changed size or language: a German prompt of play in two lines and a
// selected card's in one (1024x700) moved the board up and down by a line,
// its cards grown and shrunk, at every card picked up and put down. A
// notice (a hint, a refusal) may take more, for a while.
let promptRoom = 0;
let promptStage = null;

function holdPromptRoom(node, notice, stage, game) {
  if (stage !== promptStage) {
    promptStage = stage;
    promptRoom = 0;
  }
  node.style.minHeight = promptRoom ? `${promptRoom}px` : "";
  if (!notice) promptRoom = Math.max(promptRoom, node.getBoundingClientRect().height);
  else if (!promptRoom) promptRoom = heightOfPlay(node, game);
}

// The height of the prompt of play at this width, measured in place of the
// message shown (put back): a message drawn first after a resize is cut
// to it as one shown before is.
function heightOfPlay(node, game) {
  const shown = [...node.childNodes];
  const kind = node.className;
  node.className = "prompt";
  node.textContent = promptOfPlay(game);
  const height = node.getBoundingClientRect().height;
  node.className = kind;
  node.replaceChildren(...shown);
  return height;
}

// The window changed size (or the language, or it is printed): the room
// is measured again, and a message cut to the old room is shown whole
// again where it now fits (it stayed cut, behind More, in a window widened
// to hold it).
function forgetPromptRoom() {
  promptRoom = 0;
  if (promptCut) promptShown = "";
  $("#prompt").style.minHeight = "";
}

function animateMotions(motions, before, ghost) {
  const ghostRect = ghost ? ghost.getBoundingClientRect() : null;
  let mainUsed = false;
  for (const motion of motions) {
    if (motion.to === "stock") continue;
    const pile = board.querySelector(`[data-pile="${motion.to}"]`);
    if (!pile) continue;
    const cards = [...pile.querySelectorAll(`:scope > .card[data-card="${motion.card}"]`)];
    const card = cards[cards.length - 1];
    const from = !mainUsed && ghostRect && !motion.refill ? ghostRect : before[motion.from];
    if (!motion.refill) mainUsed = true;
    if (!card || !from) continue;
    const to = card.getBoundingClientRect();
    const dx = from.left - to.left;
    const dy = from.top - to.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    const flight = flyingCopy(card, to);
    card.classList.add("landing");
    document.body.append(flight);
    const animation = flight.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
      { duration: motion.refill ? 320 : 200, delay: motion.refill ? 170 : 0, easing: "cubic-bezier(.25,.8,.3,1)", fill: "backwards" }
    );
    const land = () => {
      if (flights.get(card) !== land) return;
      flights.delete(card);
      flight.remove();
      card.classList.remove("landing");
    };
    flights.set(card, land);
    animation.onfinish = land;
    animation.oncancel = land;
    if (motion.refill) card.classList.add("refilled");
  }
}

// A card on its way lies at its place from the start, unseen (class
// "landing"), and a copy of it flies there, taking no clicks. So a press
// where the card lands takes that card (a drag begun at once after a draw
// took the card under it, and explained that one), and a click where the
// copy flies goes to what lies there (the stock, for a double click's
// second click). `flights`: card -> what lands it at once.
const flights = new Map();

function flyingCopy(card, rect) {
  const flight = card.cloneNode(true);
  flight.className = `${card.className} flight`;
  flight.classList.remove("movable", "selected", "hint-src", "landing");
  for (const name of ["data-card", "data-index", "role", "aria-label", "tabindex"]) flight.removeAttribute(name);
  flight.setAttribute("aria-hidden", "true");
  const style = getComputedStyle(card);
  for (const name of ["--cw", "--round", "--idx"]) {
    const value = style.getPropertyValue(name);
    if (value) flight.style.setProperty(name, value);
  }
  Object.assign(flight.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px` });
  return flight;
}

// (also the cards auto-play sends home one after the other: an undo
// pressed meanwhile drew them back on the board while they flew on)
function landAll() {
  for (const land of [...flights.values()]) land();
  for (const ghost of document.querySelectorAll(".ghost.homeward")) {
    for (const animation of ghost.getAnimations()) animation.cancel();
  }
}

// ---------------------------------------------------------------- actions

async function answer(result, ghost = null, card = null) {
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
function refuse(text, kind = "error") {
  const kept = keepNotice(sentence(text), kind);
  toast(text, kind, { kept });
}

// A refusal of the page's own (a key, a drop, a double click), in its turn:
// after the answers to what the player did before, which would take it away.
function refuseInTurn(text, kind = "error") {
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
function forgetNotice() {
  app.notice = null;
  hideKeptToast();
  hideWhy();
}

document.addEventListener("refused", (event) => keepNotice(event.detail));

// A change refused because the game changed elsewhere (409 conflict): show
// the game as it is now and say so. True when the page caught up.
async function caughtUp(result) {
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
function play(move, ghost = null, card = null) {
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

// Keys pressed while the base card's choice (or an undo or a redo across
// it, a restart) waits for its answer: the page still shows the position
// before it, where they mean something else or nothing (Space has no stock
// to draw from among the candidates; 2 chooses a candidate, not pile 2).
// They are held, and once the answer is shown, handled in their order as
// if pressed then: each acts on what the server offers by then. A change
// refused or dropped drops them (a candidate's key would choose a base card).
// So are clicks on the stock (a draw is a draw on any position; a click on
// a candidate is a choice, never held to act on the card that lies there next).
let heldInput = null;

function holdInput() {
  if (!heldInput) heldInput = [];
}

function releaseInput(answered) {
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

// The keys the board answers (those held while a choice is on its way).
function boardKey(event) {
  const key = event.key;
  if (event.ctrlKey || event.metaKey) return !event.altKey && "zZyY".includes(key);
  if (event.altKey) return false;
  return PILE_KEYS.includes(key) || "sSrRwWfFhH".includes(key)
    || ["Enter", " ", "Spacebar", "Escape"].includes(key);
}

// Why a move the player tried is refused, next to the card (or the top
// card of `source`).
// When its turn comes after an answer that took the card away (a drop on
// the card a double click had just sent), nothing is said: the server
// would explain the card that lies there now, which was not tried.
function explain(move, ghost = null, card = null, source = null) {
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

// Why the top card of a pile cannot move (a key or a click on it).
function explainPile(pile) {
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

function autoMove(pile) {
  const info = app.game.sources[pile];
  if (info && info.auto) return play(info.auto);
  // (a pile's only card, whose one move is into another space; a
  // foundation's card is picked up, never sent: activate)
  if (info) return refuseInTurn(t("error.lone"));
  const cards = pile === "reserve" || pile === "waste" || pile[0] === "t" || pile[0] === "f";
  if (cards) return explainPile(pile);
  return null;
}

function moveTo(source, target, ghost = null, card = null) {
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

function step(kind) {
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

// Why a fair hint may give a proved line, by the server's face_down.
const FACE_DOWN_WORDS = { none: "hint.by.open", known: "hint.by.known", alike: "hint.by.alike" };

// What backs a hint, in words: a proved line (fair once the
// player knows where every card lies), a proved loss, a rule of thumb, or
// the share of sampled stocks in which the move wins.
function backing(found) {
  // (no move forward, but a win from a position `back` moves ago: say how far to undo)
  if (!found.move) return t(`hint.why.${found.why || "game-over"}`, { n: found.back, m: (found.line || []).length });
  if (found.kind === "winnable") {
    // (a fair proved line with cards still face down: the stock turned over
    // by a redeal, or its last card, which the cards in sight name; "Nothing
    // is face down" was said there beside the stock's face-down cards; and
    // "You know every face-down card" beside a 2 of spades and a 2 of clubs
    // the player cannot tell apart, which the rules do not either: the
    // server says which, face_down)
    const key = !found.fair ? "hint.by.winnable" : FACE_DOWN_WORDS[found.face_down] || "hint.by.known";
    return t(key, { n: found.line.length });
  }
  if (found.kind === "sampled") {
    // undecided samples count as no win: say so, or "0 of 16" reads as 16 losses
    const key = found.undecided ? "hint.by.sampledUndecided" : "hint.by.sampled";
    return t(key, { wins: found.wins, samples: found.samples, n: found.samples, undecided: found.undecided });
  }
  return t(`hint.by.${found.kind}`);
}

// What backs a hint with a move, in the few words of its status line (one
// line at 1280 px in either language); `backing` gives the whole of it,
// behind the line's Why?.
function shortBacking(found) {
  if (found.kind === "winnable") {
    return t(found.fair ? "hint.short.proved" : "hint.short.winnable", { n: found.line.length });
  }
  if (found.kind === "sampled") {
    const key = found.undecided ? "hint.short.sampledUndecided" : "hint.short.sampled";
    return t(key, { wins: found.wins, samples: found.samples, n: found.samples, undecided: found.undecided });
  }
  return t(`hint.short.${found.kind}`);
}

// One hint at a time: while one is asked for (or waits its turn), further
// presses of H or clicks on Hint are ignored, so that they do not queue up
// (each takes a solve) and hold back the moves played after them.
let hintPending = false;

function hint() {
  if (hintPending) return app.queue;
  hintPending = true;
  const button = $("#btn-hint");
  button.classList.add("thinking");
  button.setAttribute("aria-busy", "true");
  return enqueue(() => askHint().finally(() => {
    hintPending = false;
    button.classList.remove("thinking");
    button.removeAttribute("aria-busy");
  }));
}

async function askHint() {
  const game = app.game;
  // (a hint asked while the last cards went up on their own finds the game won)
  if (!game || game.replay || game.status === "won" || game.status === "lost") return;
  const result = await api.hint(game, app.settings.assists.peek);
  if (app.game !== game) return;  // asked on a position no longer shown
  if (await caughtUp(result)) return;
  if (!result.ok) return refuse(result.data.error);
  const found = result.data;
  const hopeless = found.kind === "lost";
  if (hopeless) showEnd(game, "lost", found.why === "terrace-dead" ? "terrace-dead" : true, actions);
  if (!found.move) {
    const why = backing(found);
    // (the end screen says that no winning line remains: no toast either,
    // which said it again and lay over the screen's buttons on a phone)
    if (hopeless) {
      prompt(why, { said: false });
      return hideToast();
    }
    // (a win some moves back, in two sentences: in brief too, the whole behind Why?)
    const lead = found.why === "win-behind" ? t("hint.short.noMove") : why;
    const more = found.why === "win-behind"
      ? { brief: t("hint.short.win-behind", { n: found.back, m: (found.line || []).length }), whole: why } : null;
    prompt(lead, { spoken: why, notice: "info", more });
    return toast(more ? `${lead} ${more.brief}` : why, "info", { quiet: true, prompted: true });
  }
  app.hint = { source: found.source, target: found.target, move: found.move, found };
  markHint(app.hint);
  // (said once, by the prompt: the toast only shows it)
  toast(promptHint(game, found), "info", { quiet: true, about: app.hint, prompted: true });
}

// A hint with a move in the prompt: its move and what backs it in a line
// (the estimate's words of a fair hint took two lines in English and three
// in German at 1280x720, the board pushed down 16-34 px and its cards
// shrunk at every hint), the whole backing behind Why?. A screen reader
// hears it all, cards by name. Returns the line.
function promptHint(game, found, { said = true } = {}) {
  const move = t("hint.move", { what: hintMove(game, found) });
  const spoken = `${t("hint.move", { what: hintMove(game, found, cardName) })} ${backing(found)}`;
  const more = { brief: shortBacking(found), whole: backing(found) };
  prompt(move, { said, spoken, notice: "info", more });
  return `${move} ${more.brief}`;
}

// A hint's move, in the page's language (drawn again in another language
// when the player switches); `name` names a card (cardName for a screen
// reader).
function hintMove(game, found, name = cardLabel) {
  let what;
  if (found.move === "s") what = t("hint.draw");
  else if (found.move[0] === "c") {
    const choice = game.choices.find((c) => c.move === found.move);
    what = t("hint.choose", { card: choice ? name(choice.card) : found.move });
  } else {
    const info = game.sources[found.source];
    what = t("hint.moveCard", {
      card: info ? name(info.card) : found.source,
      from: fromPlace(found.source),
      to: found.target ? placeName(found.target) : "",
    });
  }
  return what;
}

// The solver's verdicts on the base cards: only with the assist on (asking
// for them marks the game as assisted on the server). Asked once for a
// position shown (the start-up asked twice: show() did, then load()'s end).
let verdictsAsked = null;

function wantVerdicts(game) {
  if (!game || game.replay || game.status !== "choosing" || !app.settings.assists.verdicts) return;
  if (!app.variants || !app.variants.solver || app.verdicts || app.verdictNote) return;
  if (verdictsAsked === game) return;
  verdictsAsked = game;
  loadVerdicts(game);
}

async function loadVerdicts(game) {
  const result = await api.analysis(game);
  if (verdictsAsked === game) verdictsAsked = null;
  if (app.game !== game) return;
  // (the game changed in another tab during the search: its verdicts were for a choice
  // that is gone, not a failure; the page shows the game as it is, which asks again)
  if (await caughtUp(result)) return;
  const candidates = result.ok && result.data.available ? result.data.candidates : [];
  if (candidates.length) app.verdicts = Object.fromEntries(candidates.map((c) => [c.move, c.verdict]));
  // (its key: the prompt says it in the language of the moment, which may change)
  if (!candidates.length || candidates.every((c) => c.verdict === "unknown")) app.verdictNote = "assist.verdictsFailed";
  draw();
}

// ---------------------------------------------------------------- selection

function clearMarks(cls) {
  for (const node of board.querySelectorAll(`.${cls}`)) node.classList.remove(cls);
}

function markTargets(source) {
  clearMarks("target");
  const info = app.game.sources[source];
  if (!info) return;
  for (const pile of Object.keys(info.targets)) {
    const node = board.querySelector(`[data-pile="${pile}"]`);
    if (node) node.classList.add("target");
  }
}

function markSelection(source) {
  clearMarks("selected");
  const node = board.querySelector(`[data-pile="${source}"]`);
  const card = node && topCard(node);
  if (card) card.classList.add("selected");
  markTargets(source);
  nameMarks();
}

// The selection and the piles that can take its card are marked in colour
// only: a screen reader hears them in the piles' names ("Pile 4, top card
// 8 of hearts, takes the selected card"), while a card is selected.
function nameMarks() {
  for (const node of board.querySelectorAll("[data-pile]")) {
    if (node.dataset.name === undefined) node.dataset.name = node.getAttribute("aria-label") || "";
    const words = !app.selected ? "" : node.dataset.pile === app.selected ? t("pile.selected")
      : node.classList.contains("target") ? t("pile.takes") : "";
    node.setAttribute("aria-label", words ? `${node.dataset.name}, ${words}` : node.dataset.name);
  }
}

function select(source) {
  const info = app.game.sources[source];
  if (!info) {
    autoMove(source);
    return;
  }
  app.selected = source;
  forgetNotice();
  markSelection(source);
  selectedPrompt(source);
}

// (a foundation's card picked up goes only to a pile: neither F nor Enter sends it)
function selectedPrompt(source, said = true) {
  const card = app.game.sources[source].card;
  const key = touchFirst() ? "prompt.selected.touch" : source[0] === "f" ? "prompt.selected.back" : "prompt.selected";
  prompt(t(key, { card: cardLabel(card) }), { said, spoken: t(key, { card: cardName(card) }) });
}

// The selection put back. `said` false when a move or a draw follows at
// once: what it did (or why it was refused) is heard, not the prompt of
// play that the selection's prompt gives way to in between.
function deselect({ said = true } = {}) {
  // (Escape, a click beside the cards: the notice has been read; the prompt
  // it gives way to is not said, as Escape with nothing selected said nothing)
  if (!app.selected && app.notice) {
    forgetNotice();
    prompt(undefined, { said: false });
  }
  if (!app.selected) return;
  app.selected = null;
  clearMarks("selected");
  clearMarks("target");
  nameMarks();
  prompt(undefined, { said });
}

function markHint(found) {
  clearMarks("hint-src");
  clearMarks("hint-dst");
  const source = found.source && board.querySelector(`[data-pile="${found.source}"]`);
  const target = found.target && board.querySelector(`[data-pile="${found.target}"]`);
  if (source) (topCard(source) || source).classList.add("hint-src");
  if (target) target.classList.add("hint-dst");
}

// ---------------------------------------------------------------- input

// The card on top of `pile` in `game` (null for none, or for the stock).
function topOf(game, pile) {
  const s = game.state;
  const at = (list) => list[Number(pile.slice(1)) - 1];
  const cards = pile === "reserve" ? s.reserve : pile === "waste" ? s.waste
    : pile[0] === "f" ? at(s.foundations) : pile[0] === "t" ? at(s.tableau) : null;
  return cards && cards.length ? cards[cards.length - 1] : null;
}

// True when `pile` is a foundation whose top card may go back to a pile
// (the rule option foundation_return).
const takesBack = (pile) => pile[0] === "f" && Boolean(app.game.sources[pile]);

// The card `pile` shows on top in `game` for a click (null: none that moves).
const clickedCard = (game, pile) => (game.sources[pile] || {}).card || null;

// `first`: the game shown when the click before this one of a run (detail
// 2 and on) was pressed; a double click acts only on the card its first
// click was on.
function activate(pileName, detail, first = null) {
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

board.addEventListener("click", (event) => clickBoard(event.target, event.detail));

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
let tapDown = null;  // {id, x, y} of a finger put on the board soon after a drop
let tapUp = null;  // {id, x, y, timer, clicked} of that finger lifted where it was put
function endDrag() {
  dragging = false;
  droppedAt = performance.now();
}
document.addEventListener("scroll", () => { droppedAt = -Infinity; }, true);
board.addEventListener("pointerdown", (event) => {
  const soon = event.pointerType === "touch" && performance.now() - droppedAt < LOST_TAP_AFTER;
  tapDown = soon ? { id: event.pointerId, x: event.clientX, y: event.clientY } : null;
});
board.addEventListener("pointerup", (event) => {
  const down = tapDown;
  tapDown = null;
  if (!down || event.pointerId !== down.id) return;
  if (Math.hypot(event.clientX - down.x, event.clientY - down.y) >= DRAG_THRESHOLD) return;
  clickLostTap();
  const tap = { id: down.id, x: event.clientX, y: event.clientY, timer: 0, clicked: false };
  tap.timer = setTimeout(() => { if (tapUp === tap) clickLostTap(); }, LOST_TAP_WAIT);
  tapUp = tap;
});
// (On the window, before anything may stop it: every click the browser sends.)
window.addEventListener("click", (event) => {
  const tap = tapUp;
  if (!tap) return;
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
// The tap whose click did not come clicks where the finger was lifted.
function clickLostTap() {
  const tap = tapUp;
  if (!tap || tap.clicked) return;
  tap.clicked = true;
  clearTimeout(tap.timer);
  lastPointer = "touch";
  const under = document.elementFromPoint(tap.x, tap.y);
  if (under && board.contains(under)) clickBoard(under, 1);
}
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

// The game shown when the card was pressed: a drag that begins once an
// answer has drawn the board anew (the press was quicker than the answer)
// drops nothing, where it played the card that lay there by then.
let pressedOn = null;
let pressedBefore = null;  // (the game shown at the press before)
let dragged = null;

const drags = attachDrag(board, {
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

// A pile's key (or S on the focused pile): with a card selected, that card
// goes there; else the pile's card is selected, or, when it cannot move, its
// own move says why.
function keyOnPile(pile) {
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

document.addEventListener("keydown", (event) => onKey(event));

// `event`: a key pressed, or one held while a choice was on its way (held).
function onKey(event) {
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

// ---------------------------------------------------------------- replay

async function startReplay(id) {
  const first = await api.position(id, 0);
  if (!first.ok) return refuse(first.data.error);
  if (!app.game || !app.game.replay) app.saved = app.game;
  show(first.data, { animate: false });
}

async function replayStep(delta) {
  const game = app.game;
  if (!game || !game.replay) return;
  const next = game.step + delta;
  if (next < 0 || next > game.steps) return;
  const result = await api.position(game.id, next);
  if (app.game !== game) return;  // the replay moved on or was left meanwhile
  if (result.ok) show(result.data, { animate: delta === 1 });
  else stepFailed(next, result);
}

// The replay's slider: any step of a long game in one move of the thumb
// (or Home, End, the arrow keys). Each change waits its turn, then shows
// where the slider is by then, so a drag across many moves asks only for
// the steps it rests on; the slider is not set back while changes wait.
let scrubbing = 0;

function scrub() {
  scrubbing += 1;
  enqueue(async () => {
    try {
      const game = app.game;
      const wanted = Number($("#replay-step").value);
      if (game && game.replay && wanted !== game.step) await showStep(game.id, wanted);
    } finally {
      scrubbing -= 1;
    }
  });
}

async function showStep(id, step) {
  const replaying = () => app.game && app.game.replay && app.game.id === id;
  if (!replaying()) return;
  const result = await api.position(id, step);
  if (!replaying()) return;
  if (result.ok) show(result.data, { animate: false });
  else stepFailed(step, result);
}

// A step of the replay that could not be shown: the prompt says which and
// why until a step is shown (the replay bar stays, to try again or to
// leave), and the slider goes back to the step shown, unless the player's
// thumb has moved it on meanwhile (a change waiting its turn). Previous and
// Next move are named by their arrows and words together (their parts in
// index.html): an upright phone shows the arrows alone, a wider window the
// words.
function stepFailed(step, result) {
  const named = (button) => [...$(button).children].map((part) => part.textContent).join(" ");
  const error = sentence(result.data.error);
  const text = t("prompt.replayFailed", { step, error, prev: named("#replay-prev"), next: named("#replay-next") });
  app.notice = { text, kind: "error" };
  prompt(text, { said: false });
  toast(text, "error", { kept: true });
  if (scrubbing <= 1) $("#replay-step").value = String(app.game.step);
}

// The coach's answer takes a while: only starting the replay and showing
// the step it names wait their turn, so Back to my game works meanwhile.
function analyseGame(id) {
  return analyse(id, {
    startReplay: (game) => enqueue(() => startReplay(game)),
    showStep: (game, at) => enqueue(() => showStep(game, at)),
  });
}

async function exitReplay() {
  const shown = app.game;
  if (!shown || !shown.replay) return;
  const saved = app.saved;
  if (saved) {
    const fresh = await api.get(saved.id);
    if (app.game !== shown) return;  // something else is shown now
    app.saved = null;
    show(fresh.ok ? fresh.data : saved, { animate: false });
  } else {
    await startup();
  }
}

async function resume(id) {
  app.saved = null;
  const result = await api.get(id);
  if (result.ok) show(result.data, { animate: false });
  else refuse(result.data.error);
}

// ---------------------------------------------------------------- start-up

// `wanted` says, once the server has answered, whether the new game is
// still to be shown: a player who closed the New game dialog while a
// winnable deal was searched for (seconds) and played on keeps that game.
// `asking()` is called as the request goes out (after the player has
// answered whether to leave the game in play, however long that took).
async function newGame(body, wanted = () => true, signal = undefined, asking = () => {}) {
  if (!(await confirmLeaving())) return { ok: false, cancelled: true, data: { error: "" } };
  asking();
  const result = await api.create(body, signal);
  if (!wanted()) return { ok: false, cancelled: true, data: { error: "" } };
  if (!result.ok) return result;
  app.saved = null;
  localStorage.setItem("terrace.variant", JSON.stringify({ variant: result.data.variant, options: result.data.options }));
  show(result.data, { animate: false });
  return result;
}

// A read at start-up is tried again a few times, with the error on show,
// until `done` says its answer is one (a failed read is not "no game":
// taking it for one would start a new game and abandon the game in
// progress). Resolves to the last answer; after the last try the caller
// gives up, and load() offers "Try again".
// A refusal the server marks "restart" (another file put where the
// database was) ends only with a new start of Terrace: not asked again.
const READ_TRIES = 4;  // waits of 1, 2 and 4 s between them

function needsRestart(result) {
  return !result.ok && Boolean(result.data) && result.data.restart === true;
}

async function readUntil(request, done) {
  for (let tries = 1, wait = 1; ; tries += 1, wait *= 2) {
    const result = await request();
    if (done(result) || needsRestart(result) || tries >= READ_TRIES) return result;
    const error = result.status === 0 ? t("error.network") : (result.data && result.data.error) || `HTTP ${result.status}`;
    toast(t("error.readFailed", { error: within(error), seconds: wait }));
    await new Promise((resolve) => { setTimeout(resolve, wait * 1000); });
  }
}

// The variant and options of the last new game, as stored: a variant's name
// and an object of options, or nothing (the server checks the values, and
// a refusal starts the default game).
function lastVariant() {
  let stored = null;
  try {
    stored = JSON.parse(localStorage.getItem("terrace.variant") || "null");
  } catch {
    stored = null;
  }
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  if (!isObject(stored) || typeof stored.variant !== "string") return {};
  return isObject(stored.options) ? { variant: stored.variant, options: stored.options } : { variant: stored.variant };
}

async function startup() {
  const wanted = new URLSearchParams(window.location.search).get("game");
  if (wanted) {
    // (an unknown game falls back to the current one; a server that cannot
    // answer now does not, nor one that refused the request itself)
    const answered = (r) => r.status !== 0 && r.status < 500;
    const chosen = await readUntil(() => api.get(wanted), answered);
    if (chosen.ok) return show(chosen.data, { animate: false });
    if (!refusedByApp(chosen) || chosen.status >= 500) return chosen;
    // (the player learns that the game named is not here, and which game is shown instead)
    const other = await startElsewhere();
    if (app.game) refuse(t("error.gameMissing", { error: within(chosen.data.error) }));
    return other;
  }
  return startElsewhere();
}

// The game to show when the address names none (or one that is not here).
async function startElsewhere() {
  // A reload of an address that names no game reopens the game this tab
  // showed while it is still in play: a game resumed from the statistics
  // and not played yet is not the one changed last, the server's current
  // game, which the reload showed instead.
  const shown = sessionStorage.getItem("terrace.shown");
  if (shown) {
    const again = await api.get(shown);
    const playing = again.ok && !again.data.given_up && (again.data.status === "playing" || again.data.status === "choosing");
    if (playing) return show(again.data, { animate: false });
  }
  const current = await readUntil(() => api.current(), (r) => r.ok);
  if (!current.ok) return current;  // (no game shown: load() says why)
  if (current.data) return show(current.data, { animate: false });
  // (the stored rules refused: the default game; a refusal of that too,
  // as a database that takes no new game, is what load() says)
  const created = await newGame(lastVariant());
  return created.ok ? created : newGame({});
}

function bindButtons() {
  $("#btn-undo").addEventListener("click", () => step("undo"));
  $("#btn-redo").addEventListener("click", () => step("redo"));
  $("#btn-hint").addEventListener("click", () => hint());
  $("#btn-giveup").addEventListener("click", () => actions.giveUp());
  $("#btn-restart").addEventListener("click", () => step("restart"));
  $("#btn-new").addEventListener("click", () => openNewGame(actions));
  $("#btn-rules").addEventListener("click", () => openRules());
  attachMenu();
  keepKeyboardOrder();
  foldCrowdedHeader();
  watchNewGame();
  labelTables($("#dlg-stats"));
  $("#btn-stats").addEventListener("click", () => openStats(actions));
  $("#btn-settings").addEventListener("click", () => openSettings(actions));
  $("#replay-prev").addEventListener("click", () => enqueue(() => replayStep(-1)));
  $("#replay-next").addEventListener("click", () => enqueue(() => replayStep(1)));
  $("#replay-step").addEventListener("input", scrub);
  $("#replay-exit").addEventListener("click", () => enqueue(() => exitReplay()));
  $("#replay-coach").addEventListener("click", () => app.game && analyseGame(app.game.id));
  document.addEventListener("coach-goto", (event) => enqueue(() => showStep(app.game.id, event.detail)));
  const language = $("#lang");
  language.value = getLanguage();
  language.addEventListener("change", () => changeLanguage(language.value));
  // Printed, the board is drawn for the paper's width (style.css: .printing;
  // drawn for a wide window, its top row ran off the sheet's edge), and
  // again for the window after.
  for (const [event, printing] of [["beforeprint", true], ["afterprint", false]]) {
    window.addEventListener(event, () => {
      document.documentElement.classList.toggle("printing", printing);
      forgetPromptRoom();
      draw();
    });
  }
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    foldCrowdedHeader();  // (before the board is fitted below the header)
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(fitAfterResize, 60);
  });
  // The browser's font size changed while the page is open (its settings,
  // another tab): the page's text grows or shrinks with it, and the header,
  // the toolbar and the board are laid out again as after a resize. (A
  // hidden box 1rem wide tells: no class this page sets changes its width.)
  const rem = el("span", { class: "sr-only rem-probe", "aria-hidden": "true" });
  document.body.append(rem);
  let remWidth = null;
  new ResizeObserver(() => {
    const width = rem.getBoundingClientRect().width;
    if (remWidth !== null && width !== remWidth) window.dispatchEvent(new Event("resize"));
    remWidth = width;
  }).observe(rem);
}

// A phone turned upright zooms the page out while the board drawn for the
// wider window still overflows the narrower one (innerWidth 631 px where the
// page is 360): the header and the board measured in that zoom wrapped the
// toolbar's buttons in lines of their own and fitted the board to a window
// 1122 px high (four packs: 58 px too tall, the page scrolled). Drawn once
// for the new width, the board fits it and the zoom is gone: the header and
// the board are measured again.
function fitAfterResize() {
  forgetPromptRoom();
  if (window.innerWidth > document.documentElement.clientWidth + 1) {
    draw();
    foldCrowdedHeader();
    forgetPromptRoom();  // (the room the prompt took in that zoom)
  }
  draw();
}

function changeLanguage(lang) {
  const used = document.activeElement;
  localStorage.setItem("terrace.lang", lang);
  setLanguage(lang);
  $("#lang").value = getLanguage();
  foldCrowdedHeader();
  keepInSight(used);
  hideToast();  // (a message of the other language: the prompt says it again)
  app.notice = null;
  forgetPromptRoom();
  draw();
  relabelEnd(app.game, actions);
}

function changeSettings(settings) {
  Object.assign(app.settings, settings);
  localStorage.setItem("terrace.click", app.settings.click);
  localStorage.setItem("terrace.animate", app.settings.animate ? "on" : "off");
  localStorage.setItem("terrace.autoplay", app.settings.autoplay);
  localStorage.setItem("terrace.timer", app.settings.timer ? "on" : "off");
  localStorage.setItem("terrace.fourColours", app.settings.fourColours ? "on" : "off");
  localStorage.setItem("terrace.deadEnd", app.settings.deadEnd ? "on" : "off");
  for (const [name, on] of Object.entries(app.settings.assists)) localStorage.setItem(`terrace.assist.${name}`, on ? "on" : "off");
  if (!app.settings.assists.verdicts) { app.verdicts = null; app.verdictNote = null; }
  else wantVerdicts(app.game);
  showLook();
  draw();
}

// What the dialogs may do to the game (panels.js imports nothing from here).
const actions = {
  newGame, resume, startReplay, changeLanguage, changeSettings, loadVariants,
  undo: () => step("undo"),
  giveUp: () => enqueue(() => giveUp(show, answer)),
  analyse: () => app.game && analyseGame(app.game.id),
};

// Another tab changed this game: show it as it is now.
async function catchUp(id) {
  const game = app.game;
  if (!game || game.replay || game.id !== id) return;
  const fresh = await api.get(id);
  if (!fresh.ok || app.game !== game || fresh.data.revision === game.revision) return;
  show(fresh.data, { animate: false });
  toast(t("tabs.caughtUp"), "info");
}

// The variant list (the New game dialog needs it): loaded at start, and
// again whenever it is needed and failed before.
async function loadVariants() {
  if (app.variants) return { ok: true, status: 200, data: app.variants };
  const list = await api.variants();
  if (list.ok && !app.variants) app.variants = list.data;
  return list;
}

// Load the variants and the game; without a game to show the server could
// not be reached: say so, with a button to try again.
async function load() {
  const variants = loadVariants();  // (while the game is fetched and drawn)
  const replay = keptReplay();  // (before the game shown forgets it)
  const failed = await startup();
  await reopenReplay(replay);
  await variants;
  // (The game's buttons stay disabled, as index.html has them, until a game is drawn.)
  $("#offline").hidden = Boolean(app.game);
  // A server that answered, but not with a game, is not out of reach: its words say why.
  // (after a new start of Terrace, which its words ask for, Try again reads the game)
  const restart = !app.game && failed && needsRestart(failed) ? ` ${t("error.afterRestart")}` : "";
  const why = !app.game && failed && failed.status !== 0 ? sentence(failed.data.error) + restart : "";
  $("#offline-why").textContent = why;
  $("#offline-why").hidden = !why;
  $("#offline-text").hidden = Boolean(why);
}

// (Try again, pressed by keyboard, is disabled while it loads and hidden
// once the game is drawn: the focus, fallen to the page's body, goes to the
// board; it stays on the button when the server still cannot be reached.)
async function retryLoad() {
  const button = $("#offline-retry");
  const hadFocus = document.activeElement === button;
  button.disabled = true;
  await enqueue(load);
  button.disabled = false;
  if (!hadFocus) return;
  const pile = board.querySelector("[data-pile]");
  if (!$("#offline").hidden) button.focus();
  else if (pile && (document.activeElement === document.body || document.activeElement === button)) pile.focus();
}

async function main() {
  setLanguage(chooseLanguage());
  bindButtons();
  $("#offline-retry").addEventListener("click", retryLoad);
  startTimer();
  watchOtherTabs(() => (app.game && !app.game.replay ? app.game : null), (id) => enqueue(() => catchUp(id)));
  await load();
  const game = app.game;
  wantVerdicts(game);
  document.body.dataset.ready = "true";
}

main();
