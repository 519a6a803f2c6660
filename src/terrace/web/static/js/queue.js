// The page's queue: what the player asks for is done one action after
// the other, and a fault of the page's own script while it did so is said
// in place.

import { t } from "./i18n.js";
import { app } from "./state.js";
import { drawBoard } from "./view.js";

const $ = (selector) => document.querySelector(selector);

// Run actions one after the other, so quick clicks never overlap. The body
// says whether any is waiting or running (data-busy: "false" once the last
// has ended, auto-play after a move included): the browser tests wait for
// the page to have done all it was asked, rather than for a while.
let queued = 0;
document.body.dataset.busy = "false";
export function enqueue(action) {
  app.queue = app.queue.then(action).catch(scriptFailed);
  whileBusy(app.queue);
  return app.queue;
}

// The page busy (data-busy) until `promise` settles as well: work of the
// player's asking that runs beside the queue (a hint's search), so that
// "all it was asked" includes it.
export function whileBusy(promise) {
  queued += 1;
  document.body.dataset.busy = "true";
  promise.catch(scriptFailed).finally(() => {
    queued -= 1;
    if (!queued) document.body.dataset.busy = "false";
  });
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

export function catchScriptErrors() {
  // (the same for one outside the queue: a panel's button, a timer; not the
  // browser's notes without an error, as a ResizeObserver's loop)
  window.addEventListener("error", (event) => { if (event.error) scriptFailed(event.error); });
  window.addEventListener("unhandledrejection", (event) => scriptFailed(event.reason));
}
