// The web game's start: the game to show (the address's, this tab's, the
// server's current one or a new game), the header's buttons, the language,
// the settings, and the listeners of the page's modules.

import { api, refusedByApp } from "./api.js";
import { confirmLeaving, giveUp } from "./endgame.js";
import { openRules, watchNewGame } from "./help.js";
import { hint, wantVerdicts } from "./hints.js";
import { attachInput } from "./input.js";
import { chooseLanguage, getLanguage, sentence, setLanguage, t, within } from "./i18n.js";
import { attachMenu, foldCrowdedHeader, keepInSight, keepKeyboardOrder } from "./menu.js";
import { openNewGame, openSettings, openStats, relabelEnd } from "./panels.js";
import { answer, keepRefusals, refuse, step } from "./play.js";
import { closeMoreOnPress, forgetPromptRoom } from "./prompt.js";
import { catchScriptErrors, enqueue } from "./queue.js";
import { el } from "./render.js";
import { analyseGame, exitReplay, keptReplay, reopenReplay, replayStep, scrub, showStep, startReplay } from "./replay.js";
import { app, hideToast, showLook, toast } from "./state.js";
import { labelTables } from "./tables.js";
import { watchOtherTabs } from "./tabs.js";
import { startTimer } from "./timer.js";
import { draw, show } from "./view.js";

const $ = (selector) => document.querySelector(selector);
const board = $("#board");

async function resume(id) {
  app.saved = null;
  const result = await api.get(id);
  if (result.ok) show(result.data, { animate: false });
  else refuse(result.data.error);
}

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

export async function startup() {
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
export const actions = {
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

// (the listeners in the order they had when all this was one script)
catchScriptErrors();
closeMoreOnPress();
keepRefusals();
attachInput();
main();
