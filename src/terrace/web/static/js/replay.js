// A replay of a game, move by move (Previous, Next, the slider, Analyse),
// a screen of its own that Back to my game or the browser's Back leaves.

import { api } from "./api.js";
import { analyse } from "./coach.js";
import { sentence, t } from "./i18n.js";
import { startup } from "./main.js";
import { refuse } from "./play.js";
import { prompt } from "./prompt.js";
import { enqueue } from "./queue.js";
import { app, backStep, toast } from "./state.js";
import { show } from "./view.js";

const $ = (selector) => document.querySelector(selector);

// A replay is a screen of its own: the browser's Back leaves it, as Back
// to my game does (state.js, backStep). While one is shown: the function
// that marks its step spent once it is left otherwise.
let replayLeft = null;

export function followReplay(game) {
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

export function keepReplay(game) {
  if (game.replay) sessionStorage.setItem(REPLAY_KEY, JSON.stringify({ id: game.id, step: game.step }));
  else sessionStorage.removeItem(REPLAY_KEY);
}

export function keptReplay() {
  let kept = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(REPLAY_KEY) || "null");
  } catch {
    kept = null;
  }
  const valid = Boolean(kept) && typeof kept.id === "string" && Number.isInteger(kept.step) && kept.step >= 0;
  return valid ? kept : null;
}

export async function reopenReplay(kept) {
  if (!kept || !app.game || app.game.replay) return;
  const result = await api.position(kept.id, kept.step);
  if (!result.ok || !app.game || app.game.replay) return;  // (a game gone since: the game stays)
  app.saved = app.game;
  show(result.data, { animate: false });
}

export async function startReplay(id) {
  const first = await api.position(id, 0);
  if (!first.ok) return refuse(first.data.error);
  if (!app.game || !app.game.replay) app.saved = app.game;
  show(first.data, { animate: false });
}

export async function replayStep(delta) {
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
export let scrubbing = 0;

export function scrub() {
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

export async function showStep(id, step) {
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
export function analyseGame(id) {
  return analyse(id, {
    startReplay: (game) => enqueue(() => startReplay(game)),
    showStep: (game, at) => enqueue(() => showStep(game, at)),
  });
}

export async function exitReplay() {
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
