// A card selected (picked up by a click or a key) and the marks on the
// board: the selection, the piles that take it, a hint's move.

import { cardLabel, cardName, t } from "./i18n.js";
import { autoMove, forgetNotice } from "./play.js";
import { prompt } from "./prompt.js";
import { topCard } from "./render.js";
import { app, touchFirst } from "./state.js";

const board = document.querySelector("#board");

export function clearMarks(cls) {
  for (const node of board.querySelectorAll(`.${cls}`)) node.classList.remove(cls);
}

export function markTargets(source) {
  clearMarks("target");
  const info = app.game.sources[source];
  if (!info) return;
  for (const pile of Object.keys(info.targets)) {
    const node = board.querySelector(`[data-pile="${pile}"]`);
    if (node) node.classList.add("target");
  }
}

export function markSelection(source) {
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

export function select(source) {
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
export function selectedPrompt(source, said = true) {
  const card = app.game.sources[source].card;
  const key = touchFirst() ? "prompt.selected.touch" : source[0] === "f" ? "prompt.selected.back" : "prompt.selected";
  prompt(t(key, { card: cardLabel(card) }), { said, spoken: t(key, { card: cardName(card) }) });
}

// The selection put back. `said` false when a move or a draw follows at
// once: what it did (or why it was refused) is heard, not the prompt of
// play that the selection's prompt gives way to in between.
export function deselect({ said = true } = {}) {
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

export function markHint(found) {
  clearMarks("hint-src");
  clearMarks("hint-dst");
  const source = found.source && board.querySelector(`[data-pile="${found.source}"]`);
  const target = found.target && board.querySelector(`[data-pile="${found.target}"]`);
  if (source) (topCard(source) || source).classList.add("hint-src");
  if (target) target.classList.add("hint-dst");
}

