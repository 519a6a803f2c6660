// What the page's modules share: the state of the page and the toast.
// The modules of play (view.js, play.js, input.js and those beside them)
// change the state; the dialogs in panels.js only read it.

import { sentence, spoken } from "./i18n.js";

// True on a screen used by touch first (a phone, a tablet): the page's
// words say "tap" there, not "click".
export function touchFirst() {
  return window.matchMedia("(pointer: coarse)").matches;
}

// A stored setting, if it is one of `allowed`; else (nothing stored, a value
// from an older page or garbage, no storage at all) the first of them, the
// default.
export function stored(key, allowed) {
  let value = null;
  try {
    value = localStorage.getItem(key);
  } catch {
    value = null;
  }
  return allowed.includes(value) ? value : allowed[0];
}

export const app = {
  game: null,          // the game JSON of the current game (or of a replay step)
  saved: null,         // the game being played while a replay is shown
  variants: null,      // GET /api/variants
  verdicts: null,      // candidate move -> "won" | "lost" | "unknown" (only with the assist)
  verdictNote: null,   // why no verdicts are shown although the assist is on (its i18n key)
  selected: null,      // the selected source pile
  hint: null,          // {source, target}
  // Why the last move tried was refused (or a card pressed cannot move), or
  // another message the player must not miss: the prompt keeps it until
  // the next answer drawn, selection or Escape (play.js: keepNotice):
  // {text, kind}, the kind of its toast ("error" or "info").
  notice: null,
  settings: {
    click: stored("terrace.click", ["double", "single"]),
    animate: stored("terrace.animate", ["on", "off"]) === "on",
    autoplay: stored("terrace.autoplay", ["finish", "off", "safe"]),
    timer: stored("terrace.timer", ["on", "off"]) === "on",
    // Diamonds and clubs in colours of their own (style.css: .four-colours).
    fourColours: stored("terrace.fourColours", ["off", "on"]) === "on",
    // Warn before a move that leaves the terrace unplayable, and say so once
    // it is (the server judges it from the cards in sight: not an assist).
    deadEnd: stored("terrace.deadEnd", ["off", "on"]) === "on",
    // Assists, all off unless the player turns them on (each one used marks the game as assisted).
    assists: Object.fromEntries(["verdicts", "peek", "warn"].map((name) => [name, stored(`terrace.assist.${name}`, ["off", "on"]) === "on"])),
  },
  queue: Promise.resolve(),
};

// Motion: the Settings' Animations off, or the system's reduced motion,
// stops every movement, the script's (a card flying to its place, the
// win's cascade: moving()) and the style sheet's (a hint's pulse, a refused
// card's shake, the thinking Hint button's pulse, the toast's slide: the
// class "still" on the page's root). With Animations off the style sheet's
// went on: a hint's card still bobbed four times and a refused card shook.
// The four-colour pack is the root's class "four-colours".
const REDUCED = window.matchMedia("(prefers-reduced-motion: reduce)");

export function moving() {
  return app.settings.animate && !REDUCED.matches;
}

// The root's classes after a change of the settings or of the system's motion.
export function showLook() {
  document.documentElement.classList.toggle("still", !moving());
  document.documentElement.classList.toggle("four-colours", app.settings.fourColours);
}

REDUCED.addEventListener("change", showLook);
showLook();

// What a screen reader hears, in #said (a polite live region that is always
// there): what a move did, the prompt when it changes, why a card cannot
// move. Whatever is said in one go (a move and the prompt it leaves) is said
// as one message, so that the later words do not cut the earlier ones off.
// Each message comes as a new line into the region, which is emptied
// SAID_FOR ms later: a reader going through the page later finds no stale
// message there. The same words again while they are still there are taken
// out first and put back SAID_AGAIN ms later (a region whose text does not
// change is not read again).
const SAID_FOR = 5000;
const SAID_AGAIN = 100;
let saying = [];
let unsaid = "";  // words waiting to be put back (the same words again)

export function say(text) {
  if (!text) return;
  if (!saying.length) queueMicrotask(sayNow);
  saying.push(text);
}

function sayNow() {
  const region = document.querySelector("#said");
  const message = [unsaid, ...saying].filter(Boolean).join(" ");
  saying = [];
  unsaid = "";
  clearTimeout(say.timer);
  const put = () => {
    unsaid = "";
    const line = document.createElement("span");
    line.textContent = message;
    region.replaceChildren(line);
    say.timer = setTimeout(() => region.replaceChildren(), SAID_FOR);
  };
  if (region.textContent !== message) {
    put();
    return;
  }
  unsaid = message;
  region.replaceChildren();
  say.timer = setTimeout(put, SAID_AGAIN);
}

// A message for a few seconds at the bottom of the window. The toast itself
// is only seen (aria-hidden): a screen reader hears the message from #alert,
// a live region that is always there (with cards by name, not "9♣"),
// unless `quiet` says that a live region says it already (a hint is in the
// prompt), so that it is not heard twice. Once the toast hides, #alert is emptied too: a screen reader
// going through the page later finds no stale message there.
// `about`: what the message is about (a hint), for hideToast to hide it
// only while it is still shown. `prompted`: the prompt shows the same words
// (a hint, a refusal), which it then shows alone: the toast lay over the
// lowest cards, or the prompt of an upright phone (style.css:
// .toast.prompted). `kept`: a refusal the prompt keeps
// (play.js: refuse), whose toast goes once the prompt moves on
// (hideKeptToast). A tap on the toast takes it away.
const KEPT = Symbol("kept in the prompt");

export function toast(text, kind = "error", { quiet = false, about = null, kept = false, prompted = kept } = {}) {
  const node = document.querySelector("#toast");
  toast.about = kept ? KEPT : about;
  const message = sentence(text);
  node.textContent = message;
  node.className = `toast show ${kind}${prompted ? " prompted" : ""}`;
  document.querySelector("#alert").textContent = quiet ? "" : spoken(message);
  clearTimeout(toast.timer);
  toast.timer = setTimeout(hideToast, kind === "error" ? 4500 : 3500);
}

export function hideToast(about = undefined) {
  if (about !== undefined && about !== toast.about) return;
  clearTimeout(toast.timer);
  document.querySelector("#toast").className = "toast";
  document.querySelector("#alert").textContent = "";
}

document.querySelector("#toast").addEventListener("click", () => hideToast());

// The toast, if it shows words the prompt keeps (the prompt has moved on).
export function hideKeptToast() {
  hideToast(KEPT);
}

// The browser's Back (a phone's back gesture) closes a panel or leaves a
// replay, as it leaves a screen: without a step of its own in the tab's
// history it left the page instead. Each panel opened and each replay
// started adds a step (an entry marked with a number, higher up the
// history); Back closes the screens of the steps it went below. A screen
// closed otherwise (×, Esc, its buttons, Back to my game) leaves its entry
// spent, taken again by the next screen; a Back that only goes below spent
// entries closes the screen of the entry it reaches, or, with none there,
// goes on back (leaves the page). The page itself never steps back (a
// step back of its own raced a reload right after Esc).
const steps = [];  // [{mark, close, shown}] of the screens open, the last on top
const markOf = (state) => (state && Number.isInteger(state.panel) ? state.panel : 0);
let current = markOf(history.state);  // the mark of the entry shown (0: none)
let marks = current;

// The address the page keeps (view.js keepAddress: naming the game shown),
// else null: an entry of the history reached by Back may name another game.
let kept = null;

export function keepHref(href) {
  kept = href;
  if (location.href !== href) history.replaceState(history.state, "", href);
}

// A screen left otherwise may not have said so yet (a dialog's close event
// waits for the next frame, and a Back can come first): the steps of screens
// no longer shown go before each decision.
function dropLeft() {
  for (let at = steps.length - 1; at >= 0; at -= 1) if (!steps[at].shown()) steps.splice(at, 1);
}

// A step for a screen that `close()` leaves and `shown()` says is still
// there; returns the function to call when the screen is left otherwise.
export function backStep(close, shown = () => true) {
  dropLeft();
  marks += 1;
  const step = { mark: marks, close, shown };
  const spent = current !== 0 && !steps.some((s) => s.mark === current);
  steps.push(step);
  const state = { ...(history.state || {}), panel: step.mark };
  if (spent) history.replaceState(state, "");
  else history.pushState(state, "");
  current = step.mark;
  return () => {
    const at = steps.indexOf(step);
    if (at >= 0) steps.splice(at, 1);
  };
}

// (a close event after which the dialog is open again, one closed and
// opened anew at once as the end screen is, leaves its step in place)
export function closedByBack(dialog) {
  const left = backStep(() => { if (dialog.open) dialog.close(); }, () => dialog.open);
  const closed = () => {
    if (dialog.open) return;
    dialog.removeEventListener("close", closed);
    left();
  };
  dialog.addEventListener("close", closed);
}

window.addEventListener("popstate", () => {
  if (kept && location.href !== kept) history.replaceState(history.state, "", kept);
  dropLeft();
  const reached = markOf(history.state);
  const back = reached < current;
  current = reached;
  if (!back) return;  // (forward: a screen closed stays closed)
  let closed = false;
  while (steps.length && steps[steps.length - 1].mark > reached) {
    steps.pop().close();
    closed = true;
  }
  if (closed) return;
  const here = steps.length && steps[steps.length - 1].mark === reached ? steps.pop() : null;
  if (here) here.close();
  else history.back();
});
