// The prompt: the line above the board that says what to do now, or a
// message (a refusal, a hint) kept there, cut to the room it holds.

import { t } from "./i18n.js";
import { dragging } from "./input.js";
import { choiceKeys } from "./render.js";
import { app, say, touchFirst } from "./state.js";
import { drawBoard, drawing } from "./view.js";

const $ = (selector) => document.querySelector(selector);

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
export function prompt(text, { said = true, spoken = null, notice = null, more = null } = {}) {
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
export function openPromptMore(open) {
  const more = $("#prompt-more");
  if (!more) return false;
  const was = !more.hidden;
  more.hidden = !open;
  $("#prompt .prompt-more").setAttribute("aria-expanded", String(open));
  return was;
}

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
export function forgetPromptRoom() {
  promptRoom = 0;
  if (promptCut) promptShown = "";
  $("#prompt").style.minHeight = "";
}

export function closeMoreOnPress() {
  // (a press anywhere else closes it, as Escape does)
  document.addEventListener("pointerdown", (event) => {
    if (!(event.target.closest && event.target.closest("#prompt"))) openPromptMore(false);
  });
}
