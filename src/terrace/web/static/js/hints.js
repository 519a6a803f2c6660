// The solver's advice: a hint (its move, marked on the board, and what
// backs it, in words) and the base cards' verdicts (an assist).

import { api } from "./api.js";
import { cardLabel, cardName, fromPlace, placeName, t } from "./i18n.js";
import { actions } from "./main.js";
import { showEnd } from "./panels.js";
import { caughtUp, refuse } from "./play.js";
import { prompt } from "./prompt.js";
import { enqueue, whileBusy } from "./queue.js";
import { markHint } from "./selection.js";
import { app, hideToast, toast } from "./state.js";
import { draw } from "./view.js";

const $ = (selector) => document.querySelector(selector);

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
// (each takes a solve). The hint asked for: {game, controller, done}, its
// position once its turn came, the controller that stops its request, and
// what ends it (null for none).
let sought = null;

// Ask for a hint on the position shown once what was asked for before it
// is done. Only the asking waits in the queue, never the search: a move
// pressed while the solver thinks (up to its two seconds, or longer on a
// busy machine) is played at once (it waited for the hint's answer, which
// it then made stale); the answer is drawn in its turn in the queue, and
// only if the position it was sought for is still shown.
export function hint() {
  if (sought) return app.queue;
  const button = $("#btn-hint");
  button.classList.add("thinking");
  button.setAttribute("aria-busy", "true");
  const ask = { game: null, controller: new AbortController() };
  ask.done = () => {
    if (sought !== ask) return;  // (dropped: another may be asked for now)
    sought = null;
    button.classList.remove("thinking");
    button.removeAttribute("aria-busy");
  };
  sought = ask;
  return enqueue(() => {
    const game = app.game;
    // (a hint asked while the last cards went up on their own finds the game won)
    if (!game || game.replay || game.status === "won" || game.status === "lost") return ask.done();
    ask.game = game;
    const answered = api.hint(game, app.settings.assists.peek, ask.controller.signal)
      .then((result) => enqueue(() => (sought === ask ? showHint(game, result) : undefined)))
      .finally(ask.done);
    whileBusy(answered);
    return undefined;
  });
}

// The position `game` is shown now (view.js: show): a hint sought for
// another position is dropped at once (H asks for the new one's, also
// while the queue is still busy), and its request stopped, the server's
// search with it.
export function forgetSoughtHint(game) {
  const asked = sought && sought.game;
  if (asked && (game.id !== asked.id || game.revision !== asked.revision || game.replay)) {
    sought.controller.abort();
    sought.done();
  }
}

// The answer `result` to the hint asked on `asked`, in its turn.
async function showHint(asked, result) {
  // (asked on a position no longer shown; the same position read anew, as
  // after a refusal, still takes it)
  const game = app.game;
  if (!game || game.replay || game.id !== asked.id || game.revision !== asked.revision) return;
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
export function promptHint(game, found, { said = true } = {}) {
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

export function wantVerdicts(game) {
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

