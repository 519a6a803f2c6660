// The active playing time of the game being played: it runs while the tab
// is visible and the player did something in the last minute, shows beside
// the move counter, and is reported to the server now and then (POST
// /time), which never accepts more than the wall time since the last report.

import { api } from "./api.js";
import { STALE_EVENT } from "./tabs.js";
import { t } from "./i18n.js";
import { el } from "./render.js";
import { app } from "./state.js";

const IDLE_MS = 60_000;    // idle this long: the clock stops (at the minute)
const REPORT_MS = 20_000;  // how often unsent time is reported
const ACTIVITY = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart"];

const clock = {
  gameId: null,
  playing: false,   // the game can be played (not over, not given up, not a replay)
  base: 0,          // active ms the server has stored, as last heard
  sending: 0,       // ms in a report on its way
  unsent: 0,        // ms counted and not reported yet
  since: null,      // performance.now() when the current run began; null while paused
  lastActive: performance.now(),
  replayMs: null,   // a replay's game's own playing time, while a replay is shown
};

const now = () => performance.now();

function visible() {
  return document.visibilityState === "visible";
}

// Count the current run up to now (or up to a minute after the last activity).
function settle() {
  const at = now();
  if (clock.since !== null) {
    const end = Math.min(at, clock.lastActive + IDLE_MS);
    if (end > clock.since) clock.unsent += end - clock.since;
    clock.since = null;
  }
  if (clock.playing && visible() && at - clock.lastActive < IDLE_MS) clock.since = at;
}

export function activeMs() {
  const running = clock.since === null ? 0 : Math.max(0, Math.min(now(), clock.lastActive + IDLE_MS) - clock.since);
  return clock.base + clock.sending + clock.unsent + running;
}

export function isRunning() {
  return clock.since !== null && now() - clock.lastActive < IDLE_MS;
}

// Reports go one after another: a flush counts its time at once (for the
// game shown now), then waits for the report on its way, so that what it
// resolves to (and a request made after it) includes that report too. It
// waits a few seconds at most: a report that hangs holds up nothing else.
let reporting = Promise.resolve();
const WAIT_MS = 5_000;

function earlierReport() {
  return Promise.race([reporting, new Promise((resolve) => { setTimeout(resolve, WAIT_MS); })]);
}

// Report the time counted so far; resolves to the game's stored total (or null).
// A report as the page goes away (keepalive) cannot wait and goes at once.
export async function flushTime({ keepalive = false } = {}) {
  settle();
  const ms = Math.floor(clock.unsent);
  const id = clock.gameId;
  const before = keepalive ? Promise.resolve() : earlierReport();
  if (!id || ms < 1) {
    await before;
    return id === clock.gameId ? clock.base + clock.sending + clock.unsent : null;
  }
  clock.unsent -= ms;
  clock.sending += ms;
  const sent = before.then(() => api.time(id, ms, keepalive));
  reporting = sent.then(() => undefined, () => undefined);
  const result = await sent;
  if (id !== clock.gameId) return null;
  clock.sending -= ms;
  if (result.ok) clock.base = Math.max(clock.base, result.data.active_ms);
  else if (result.status === 0) clock.unsent += ms;  // no answer: try again with the next report
  // The game was given up elsewhere, on another device (a server before this
  // one refused the report with a 409): the tab catches up.
  const givenUp = result.ok ? result.data.given_up === true : result.status === 409;
  if (givenUp) window.dispatchEvent(new CustomEvent(STALE_EVENT, { detail: { id } }));
  // A refusal (a game given up) drops the time. Time another tab reported
  // already is not counted again: the total answered says what counts.
  return clock.base + clock.sending + clock.unsent;
}

// The page shows a game (or a replay step): follow it.
export function followGame(game) {
  if (game.replay) {
    settle();
    clock.playing = false;
    settle();
    clock.replayMs = game.active_ms || 0;  // (the game played meanwhile keeps its own)
    return;
  }
  clock.replayMs = null;
  if (game.id !== clock.gameId) {
    if (clock.gameId) flushTime();
    Object.assign(clock, { gameId: game.id, base: game.active_ms || 0, sending: 0, unsent: 0, since: null });
    clock.lastActive = now();
  } else if (!clock.sending) {
    clock.base = Math.max(clock.base, game.active_ms || 0);
  }
  settle();
  clock.playing = (game.status === "choosing" || game.status === "playing") && !game.given_up;
  settle();
  if (game.given_up) clock.unsent = 0;  // (reported before giving up; the server takes no more)
  else if (!clock.playing) flushTime();
}

function format(ms) {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, "0");
  return `${h ? `${h}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
}

export function formatDuration(ms) {
  return format(ms);
}

// Draw (or refresh) the time beside the move counter.
export function paintTimer() {
  const counters = document.querySelector("#counters");
  if (!counters) return;
  let node = counters.querySelector('[data-counter="time"]');
  if (!app.settings.timer || !clock.gameId) {
    if (node) node.remove();
    return;
  }
  if (!node) {
    node = el("div", { class: "counter timer", "data-counter": "time" },
      el("span", { class: "label", text: t("counter.time") }), el("span", { class: "value", role: "timer" }));
    const moves = counters.querySelector('[data-counter="moves"]');
    if (moves) moves.after(node);
    else counters.append(node);
  }
  const paused = clock.playing && !isRunning();
  node.classList.toggle("paused", paused);
  node.title = paused ? t("timer.paused", { n: IDLE_MS / 60_000 }) : "";
  const shown = clock.replayMs ?? activeMs();
  node.querySelector(".value").textContent = format(shown);
  node.dataset.ms = String(Math.floor(shown));
}

function activity() {
  const wasIdle = now() - clock.lastActive >= IDLE_MS;
  if (wasIdle) settle();  // count the run up to the minute after the last activity
  clock.lastActive = now();
  if (clock.since === null) settle();
}

export function startTimer() {
  for (const type of ACTIVITY) window.addEventListener(type, activity, { passive: true, capture: true });
  document.addEventListener("visibilitychange", () => {
    if (visible()) {
      clock.lastActive = now();
      settle();
    } else {
      settle();
      flushTime({ keepalive: true });
    }
    paintTimer();
  });
  window.addEventListener("pagehide", () => flushTime({ keepalive: true }));
  setInterval(() => {
    if (clock.since !== null && now() - clock.lastActive >= IDLE_MS) settle();
    paintTimer();
  }, 1000);
  // (the run still going counted too: a player thinking for minutes, active
  // but making no move, had nothing reported until the next move)
  setInterval(() => {
    settle();
    if (clock.unsent >= 1000) flushTime();
  }, REPORT_MS);
}
