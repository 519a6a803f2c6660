// The coach on the page: "Analyse" after a game (where it was lost, in the
// replay), the fair chances of each base card (only when asked), and the
// assist that warns before a move that loses a won game. The server decides
// everything; this module asks and shows.

import { api } from "./api.js";
import { t, cardLabel, cardName, fromPlace, placeName, sentence } from "./i18n.js";
import { el, topCard } from "./render.js";
import { app, say, toast } from "./state.js";
import { confirmChoice } from "./endgame.js";

const $ = (selector) => document.querySelector(selector);

app.coach = null;    // {id, report} of the last analysis
app.chances = null;  // {id, moves, data} of the last base-card chances
let redraw = () => {};  // view.js's draw, to show an answer
let caughtUp = async () => false;  // play.js's catching up on a game changed elsewhere (409 conflict)

// ---------------------------------------------------------------- words

// `name`: how a card is put, cardLabel as seen ("7♥"), cardName as heard
// ("7 of hearts").
function moveWords(game, move, piles, name = cardLabel) {
  if (!move) return "–";
  if (move === "s") return t("coach.draw");
  // (the card, when the server named it: "the 7♥ from pile 8 to foundation 2")
  const card = piles && piles.card ? name(piles.card) : null;
  if (move[0] === "c") {
    return card ? t("coach.choiceCard", { i: move.slice(1), card }) : t("coach.choice", { i: move.slice(1) });
  }
  const from = piles && piles.source ? fromPlace(piles.source) : move;
  const to = piles && piles.target ? placeName(piles.target) : "";
  return card ? t("coach.moveCardFromTo", { card, from, to }) : t("coach.moveFromTo", { from, to });
}

// What the fair player's samples found, as its hint says it: undecided
// samples counted ("it wins in 4 of 16" read as 12 losses), and a move no
// sample decided is the rule of thumb's, not one that "wins in 0 of 16".
function fairCounts(fair) {
  if (fair.kind === "heuristic" && fair.samples) return t("coach.heuristic");
  if (fair.kind !== "sampled" || !fair.samples) return "";
  return t(fair.undecided ? "coach.sampledUndecided" : "coach.sampled",
    { wins: fair.wins, samples: fair.samples, n: fair.samples, undecided: fair.undecided });
}

function fairWords(game, fair, name) {
  if (!fair || !fair.move) return t("coach.fairNone");
  const what = moveWords(game, fair.move, fair.piles, name);
  if (fair.same) return t("coach.fairSame", { what });
  const sampled = fairCounts(fair);
  const kept = { won: t("coach.fairKept"), lost: t("coach.fairLostToo"), unknown: t("coach.fairUnknown") }[fair.result] || "";
  return `${t("coach.fair", { what })} ${sampled} ${kept}`.trim();
}

function reportWords(game, report, name = cardLabel) {
  let words = outcomeWords(game, report, name);
  if (report.terrace_dead_move) {
    words += ` ${t("coach.terraceDead", { step: report.terrace_dead,
      what: moveWords(game, report.terrace_dead_move, report.terrace_dead_piles, name) })}`;
  } else if (report.terrace_dead === 0) {
    // (dead from the deal: no move did it, yet the cards in sight showed it)
    words += ` ${t("coach.terraceDeadFromDeal")}`;
  }
  // a game stuck with no move left can still be taken back: there the analysis is an assist
  return report.assist ? `${words} ${t("coach.assist")}` : words;
}

function outcomeWords(game, report, name) {
  switch (report.outcome) {
    case "lost-at":
      return [
        t("coach.lostAt", { step: report.step, what: moveWords(game, report.move, report.move_piles, name) }),
        report.winning ? t("coach.winning", { what: moveWords(game, report.winning, report.winning_piles, name) }) : "",
        fairWords(game, report.fair, name),
      ].filter(Boolean).join(" ");
    case "failed": return t("coach.failed", { error: report.error });
    case "never": return t("coach.never");
    case "won": return t("coach.won");
    case "winnable":
      return `${t("coach.winnable")} ${report.winning ? t("coach.winningEnd", { what: moveWords(game, report.winning, report.winning_piles, name) }) : ""}`.trim();
    default: {
      // Only what the solver proved: a position known won (low >= 0) and
      // one known lost (high <= moves) bound the losing move; without the
      // first, whether the deal could be won at all is not known, without
      // the second, whether the game was lost at all.
      const won = report.low >= 0;
      const lost = report.high <= report.moves;
      if (won && lost) return t("coach.unknown", { from: report.low + 1, to: report.high });
      if (lost) return t("coach.unknownStart", { to: report.high });
      if (won) return t("coach.unknownEnd", { from: report.low + 1 });
      return t("coach.unknownAll");
    }
  }
}

// ---------------------------------------------------------------- Analyse

function note() {
  let node = $("#coach-note");
  if (!node) {
    node = el("div", { id: "coach-note", class: "coach-note", role: "status", "aria-live": "polite", hidden: true });
    $("#offline").before(node);  // (after the replay bar, wherever menu.js's keepKeyboardOrder put that)
  }
  return node;
}

// An action that does nothing when called while it runs: its button says
// that it works with aria-disabled and is not disabled, so that it keeps
// the keyboard's focus.
function oneAtATime(action) {
  let running = false;
  return async (...args) => {
    if (running) return;
    running = true;
    try {
      await action(...args);
    } finally {
      running = false;
    }
  };
}

// Analyse the game `id` (a finished one): replay it, ask the server, jump to
// the losing move. `ctx.startReplay(id)` and `ctx.showStep(id, step)` come
// from replay.js (analyseGame).
export const analyse = oneAtATime(analyseNow);

async function analyseNow(id, ctx) {
  if (!(await assistAgreed(id))) return;
  if (!app.game || !app.game.replay || app.game.id !== id) await ctx.startReplay(id);
  const box = note();
  box.hidden = false;
  box.dataset.state = "busy";
  box.replaceChildren(el("p", { text: t("coach.busy") }));
  // The note stands above the board, which is fitted into the room left
  // below it: each time the note changes, the page is drawn again (drawn
  // alone, a long analysis pushed the counters and the prompt of a phone
  // under its toolbar).
  redraw();
  const button = $("#replay-coach");
  if (button) button.setAttribute("aria-disabled", "true");
  const result = await api.coach(app.game && app.game.id === id ? app.game : { id });
  if (button) button.removeAttribute("aria-disabled");
  delete box.dataset.state;
  if (!app.game || !app.game.replay || app.game.id !== id) {
    drawNote();  // the replay was left meanwhile: the answer is not shown
    redraw();
    return;
  }
  // (an analysis that failed is said in the note, where a toast said it
  // for seconds, until it is asked again: Analyse stays for that)
  if (!result.ok) {
    app.coach = { id, report: { outcome: "failed", error: sentence(result.data.error) } };
    redraw();
    return;
  }
  app.coach = { id, report: result.data };
  const report = result.data;
  if (report.assist && app.saved && app.saved.id === id) app.saved.assisted = true;  // not asked again
  if (report.outcome === "lost-at") await ctx.showStep(id, report.step - 1);
  // A game left while still winnable: its end, where the winning line that
  // the note names starts (it stood beside the replay's first position).
  else if (report.outcome === "winnable" && app.game.step !== report.moves) await ctx.showStep(id, report.moves);
  else redraw();
}

// A game stuck with no move left can still be taken back: there the
// analysis (which sees the face-down cards) is an assist, so the player is
// asked first, as for every assist that marks a game.
async function assistAgreed(id) {
  let live = app.game && !app.game.replay && app.game.id === id ? app.game
    : app.saved && app.saved.id === id ? app.saved : null;
  if (!live) {  // (asked for from the list of games)
    const got = await api.get(id);
    live = got.ok ? got.data : null;
  }
  if (!live || live.assisted || live.status !== "lost" || live.given_up || !live.can_undo) return true;
  return confirmChoice({ title: t("coach.assistAsk.title"), text: t("coach.assistAsk.text"), yes: t("btn.analyse") });
}

// What the coach shows above the board: the analysis beside the replay and
// the Chances button (drawn before the board is fitted). `draw` draws the
// whole page again (for an answer that arrives later); `catchUp` shows the
// game as it is now when an answer refuses a view of it as stale, and says
// so (true then), as for a move or a hint.
export function drawCoach(draw, catchUp) {
  redraw = draw;
  caughtUp = catchUp;
  drawNote();
  drawChances();
}

// The marks on the board: the losing move and the fair player's choice, and
// each candidate's chances.
export function markCoach() {
  const game = app.game;
  const board = $("#board");
  const coach = app.coach;
  if (game && game.replay && coach && coach.id === game.id && coach.report.outcome === "lost-at"
    && game.step === coach.report.step - 1) {
    const report = coach.report;
    mark(board, report.move_piles, "coach-lost");
    if (report.fair && report.fair.piles && !report.fair.same) mark(board, report.fair.piles, "coach-fair");
  }
  // (the first move of the winning line left at the end, marked as a better move is)
  if (game && game.replay && coach && coach.id === game.id && coach.report.outcome === "winnable"
    && game.step === coach.report.moves) {
    mark(board, coach.report.winning_piles, "coach-fair");
  }
  const known = knownChances();
  if (!known) return;
  for (const c of known.candidates) {
    const choice = game.choices.find((x) => x.move === c.move);
    const pile = choice && board.querySelector(`[data-pile="${choice.pile}"]`);
    const card = pile && topCard(pile);
    if (card && !card.querySelector(".chance")) {
      // (the bare count says what it counts when pointed at: "8/8" read as a sure win)
      card.append(el("span", { class: "verdict chance", "data-move": c.move, text: `${c.wins}/${c.tried}`,
        title: `${chanceWords(c, cardLabel)} ${t("chances.fair")}` }));
    }
  }
}

function drawNote() {
  const game = app.game;
  const box = $("#coach-note");
  const coach = app.coach;
  const here = Boolean(game && game.replay && coach && coach.id === game.id);
  if (!box) return;
  if (box.dataset.state === "busy" && game && game.replay) return;
  box.hidden = !here;
  if (!here) return;
  const report = coach.report;
  box.dataset.state = report.outcome;
  // The box is a live region, and the page is drawn anew at every step of
  // the replay (and on a resize): only what changed is put in, so that a
  // screen reader hears the analysis once, not again at each step.
  // The words seen name cards by their signs ("the 7♥"), which a screen
  // reader reads as it likes ("7 black heart suit", or nothing): it hears
  // a copy with the cards' names ("the 7 of hearts"), as #said says them.
  const words = reportWords(game, report);
  const heard = reportWords(game, report, cardName);
  const text = box.querySelector(".coach-text");
  const seen = text && text.querySelector("[aria-hidden='true']");
  if (!seen || seen.textContent !== words || text.querySelector(".sr-only").textContent !== heard) {
    // (focusable: on a phone its box scrolls, by the keyboard too; style.css)
    const put = el("p", { class: "coach-text", tabindex: "0" },
      el("span", { "aria-hidden": "true", text: words }), el("span", { class: "sr-only", text: heard }));
    if (!text) box.replaceChildren(put);  // (in place of "Analysing…")
    else text.replaceChildren(...put.childNodes);  // (another language)
  }
  const wanted = report.outcome === "lost-at" && game.step !== report.step - 1;
  const shown = box.querySelector("#coach-goto");
  if (wanted && shown) shown.textContent = t("coach.goto");  // (the language may have changed)
  if (wanted && !shown) {
    box.append(el("button", { type: "button", id: "coach-goto", text: t("coach.goto"),
      onclick: () => box.dispatchEvent(new CustomEvent("coach-goto", { bubbles: true, detail: report.step - 1 })) }));
  }
  if (wanted || !shown) return;
  // "Show where it was lost" goes once it is pressed: its focus goes to the
  // replay's Next move (else Previous), not to the page's body.
  const focused = document.activeElement === shown;
  shown.remove();
  if (focused) {
    const next = ["#replay-next", "#replay-prev"].map((s) => $(s)).find((b) => b && !b.disabled && !b.hidden);
    if (next) next.focus();
  }
}

function mark(board, piles, cls) {
  if (!piles) return;
  const source = piles.source && board.querySelector(`[data-pile="${piles.source}"]`);
  const target = piles.target && board.querySelector(`[data-pile="${piles.target}"]`);
  if (source) (topCard(source) || source).classList.add(`${cls}-src`);
  if (target) target.classList.add(`${cls}-dst`);
}

// ---------------------------------------------------------------- chances

function chancesBox() {
  let node = $("#coach-chances");
  if (!node) {
    node = el("div", { id: "coach-chances", class: "coach-chances", hidden: true });
    $("#prompt").after(node);
  }
  return node;
}

function knownChances() {
  const game = app.game;
  const fresh = game && !game.replay && game.status === "choosing" && app.chances
    && app.chances.id === game.id && app.chances.moves === game.moves;
  return fresh ? app.chances.data : null;
}

// The Chances button while the base card is chosen, and the answer once asked.
function drawChances() {
  const game = app.game;
  const box = chancesBox();
  const choosing = Boolean(game && !game.replay && game.status === "choosing" && game.choices.length > 1);
  // Hidden once the base card is chosen (by its key, with the focus still
  // on Chances): the focus goes to the board, not to the page's body (the
  // board, drawn next, keeps it on its pile).
  if (!choosing && box.contains(document.activeElement)) {
    const pile = $("#board [data-pile]");
    if (pile) pile.focus({ preventScroll: true });
  }
  box.hidden = !choosing;
  if (!choosing) return;
  const known = knownChances();
  // (drawn anew: a button that had the keyboard's focus gets it back)
  const focused = document.activeElement && document.activeElement.id === "btn-chances";
  const button = el("button", { type: "button", id: "btn-chances", text: t("chances.button"), title: t("chances.help"),
    onclick: () => askChances(game) });
  const children = [button];
  // (focusable: on a phone its box scrolls, by the keyboard too; style.css)
  // (seen with "D♦", heard with "Karo Dame": a reader tabbing to the words
  // heard the suits' signs)
  const words = known && el("span", { class: "chances-text", tabindex: "0" },
    el("span", { "aria-hidden": "true", text: chancesWords(known, cardLabel) }),
    el("span", { class: "sr-only", text: chancesWords(known, cardName) }));
  if (words) children.push(words);
  // The words drawn anew keep where the player had scrolled them to, and
  // the keyboard's focus (any draw, a clock's tick or a turned phone, put
  // them back at their top and the focus on the page's body).
  const before = box.querySelector(".chances-text");
  const scrolled = before ? before.scrollTop : 0;
  const reading = before !== null && document.activeElement === before;
  box.replaceChildren(...children);
  if (focused) button.focus();
  if (words && before) {
    words.scrollTop = scrolled;
    if (reading) words.focus({ preventScroll: true });
  }
}

// Each candidate's wins: with `name` cardLabel on the page ("D♦"), cardName
// for a screen reader ("Karo Dame"). A base card the server lists as fatal
// (its terrace could never be played out) is named as such. When the
// terrace is dead whichever is chosen (then none is fatal: no choice kills
// a terrace already dead), that is said once, as the prompt says it, and
// no sampled stock is spoken of (twenty candidates each named dead were a
// screenful of one sentence).
function chancesWords(known, name) {
  if (app.game && app.game.terrace_dead) return t("prompt.terraceDeadChoice", { n: known.candidates.length });
  const words = known.candidates.map((c) => chanceWords(c, name));
  return `${words.join(" · ")} ${t("chances.fair")}`;
}

// One candidate's wins in words (as chancesWords; its mark's title, dead
// when the terrace is).
function chanceWords(c, name) {
  const fatal = (app.game && app.game.fatal) || [];
  const dead = Boolean(app.game && app.game.terrace_dead);
  return t(
    dead || fatal.includes(c.move) ? "chances.dead" : c.undecided ? "chances.oneUndecided" : "chances.one",
    { card: name(c.card), wins: c.wins, samples: c.tried, n: c.tried, undecided: c.undecided });
}

// While the stocks are sampled the button says so (one at a time). The
// answer is also said to a screen reader (#said, a live region that is
// always there).
const askChances = oneAtATime(sampleChances);

async function sampleChances(game) {
  const button = $("#btn-chances");
  if (button) {
    button.setAttribute("aria-disabled", "true");
    button.textContent = t("chances.busy");
  }
  const result = await api.chances(game);
  // (the game changed in another tab: shown as it is now, as after a
  // refused move, where the refusal's "reload it" stood over the old one)
  if (await caughtUp(result)) return redraw();
  if (!result.ok) {
    // (kept in the prompt until the player goes on, as a refusal is: a toast
    // alone said it for 4.5 s; play.js keepNotice)
    const words = sentence(result.data.error);
    document.dispatchEvent(new CustomEvent("refused", { detail: words }));
    toast(words, "error", { kept: true });
  } else if (app.game && app.game.id === game.id) {
    app.chances = { id: game.id, moves: game.moves, data: result.data };
    say(chancesWords(result.data, cardName));
  }
  redraw();
}

// ---------------------------------------------------------------- the warning

// Before a move: with the dead-end setting on, a move the server lists as
// fatal (the terrace unplayable after it, from the cards in sight) asks the
// player first; with the assist on, the server is asked whether the move
// loses a won game. True: play it.
export async function confirmMove(game, move) {
  if (!game || game.replay) return true;
  if (app.settings.deadEnd && (game.fatal || []).includes(move)) {
    return confirmChoice({ title: t("dead.title"), text: t("dead.text"), yes: t("dead.yes"), no: t("dead.no") });
  }
  if (!app.settings.assists.warn) return true;
  const result = await api.warn(game, move);
  // (the game changed in another tab meanwhile: the page shows it as it is, and the
  // move, chosen on a position that is gone, is not sent to be refused in its turn)
  if (await caughtUp(result)) return false;
  if (!result.ok || !result.data.warn) return true;
  return confirmChoice({ title: t("warn.title"), text: t("warn.text"), yes: t("warn.yes"), no: t("warn.no") });
}
