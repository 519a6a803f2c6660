// Why a card cannot move, shown in a small bubble next to it: for a card
// pressed (GET /api/games/{id}/why, asked once per position) and for a drop
// the rules refuse (play.js passes the server's reason). The words come
// from the server, in the page's language.

import { api } from "./api.js";
import { getLanguage, sentence as asSentence, spoken } from "./i18n.js";
import { besideIndices, leastHiding } from "./placing.js";
import { app, say } from "./state.js";

const SHOWN_MS = 3800;
const answers = new Map();
let timer = null;

export function hideWhy() {
  const node = document.querySelector("#why");
  if (node) node.hidden = true;
}

// Show `text` next to `anchor` (a card or a pile): below or above it,
// where it hides fewest cards' rank and suit (bubbleSpots), always inside
// the window. A screen reader hears it from #said, a live region that is always
// there: the bubble appears with its text, and a live region that appears
// is not read out.
export function showWhy(text, anchor) {
  const node = document.querySelector("#why");
  const sentence = asSentence(text);  // (alone, a refusal's English is a sentence too)
  node.textContent = sentence;
  say(spoken(sentence));  // (cards by name: "9 of clubs", not "9♣")
  // (the bubble goes at the next press or in a few seconds: the prompt keeps the words)
  document.dispatchEvent(new CustomEvent("refused", { detail: sentence }));
  node.hidden = false;
  const rect = anchor ? anchor.getBoundingClientRect() : { left: 0, right: innerWidth, top: innerHeight / 2, bottom: innerHeight / 2 };
  const size = { width: node.offsetWidth, height: node.offsetHeight };
  const spot = leastHiding(bubbleSpots(rect, size), size);
  node.style.left = `${spot.left}px`;
  node.style.top = `${spot.top}px`;
  if (anchor && anchor.classList.contains("card")) {
    anchor.classList.remove("refused");
    void anchor.offsetWidth;  // restart the shake
    anchor.classList.add("refused");
  }
  clearTimeout(timer);
  timer = setTimeout(hideWhy, SHOWN_MS);
}

// Where the bubble of `size` may go by the card at `rect`: below or above
// it (first the side with more room), centred on it or moved sideways while
// it still spans part of the card, the nearest first; always inside the
// window. Centred alone, the bubble of the first terrace card at 1280x720
// hid foundation 1's 9♣ (both its indices), where moved left it hides none.
// Last, the spots just clear of a card's index (placing.js besideIndices)
// that still lie by the card: the second terrace card's bubble, moved left
// in steps of 12 px, hid the 9♣'s upper index by 0.6 px in German; on an
// upright phone (360x640) the terrace cards' bubbles hid an index of
// foundation 1's card above them, or the piles' below them, where below
// the piles' row of small cards they hide none.
function bubbleSpots(rect, { width, height }) {
  const margin = 6;
  const bottom = innerHeight - parseFloat(getComputedStyle(document.body).paddingBottom || "0");
  const inside = (left, top) => ({
    left: Math.min(Math.max(margin, left), innerWidth - width - margin),
    top: Math.max(margin, Math.min(top, bottom - height - margin)),
  });
  const tops = [rect.bottom + 8, rect.top - height - 8];  // (below, above)
  if (bottom - rect.bottom <= rect.top) tops.reverse();
  const centred = (rect.left + rect.right) / 2 - width / 2;
  const spots = [];
  const reach = (width + rect.right - rect.left) / 2 - 12;  // (still over a part of the card)
  for (let shift = 0; shift <= reach; shift += 12) {
    for (const left of shift ? [centred - shift, centred + shift] : [centred]) {
      for (const top of tops) spots.push(inside(left, top));
    }
  }
  // (by the card: over 8 px or more of its width, 2-20 px below or above
  // it; then, where none of those hides none, up to a card's height further,
  // past the row of small cards next to it on a phone)
  const clear = besideIndices({ width, height });
  const across = clear.lefts.filter((left) => left + width >= rect.left + 8 && left <= rect.right - 8);
  const within = (gap) => clear.tops.filter((top) => (top >= rect.bottom + 2 && top <= rect.bottom + gap)
    || (top + height <= rect.top - 2 && top + height >= rect.top - gap));
  const far = (spot) => Math.hypot(spot.left - centred, spot.top - tops[0]);
  const snapped = (extra) => {
    const found = [];
    for (const left of [centred, ...across]) {
      for (const top of extra) found.push(inside(left, top));
    }
    return found.sort((a, b) => far(a) - far(b));
  };
  const near = within(20);
  const further = within(rect.bottom - rect.top + 20).filter((top) => !near.includes(top));
  return [...spots, ...snapped([...tops, ...near]), ...snapped(further)];
}

// Explain a card the player pressed: `index` is its place in `pile` (null:
// the top card). Resolves to true when the card cannot move (the bubble is
// shown), false when it can.
export async function explainCard(pile, index, anchor) {
  const game = app.game;
  if (!game || game.replay) return false;
  // Pressed before an answer that drew the board anew (the press waits its
  // turn): the same card there now, else nothing to explain.
  if (anchor && !anchor.isConnected) {
    anchor = drawnAgain(anchor, pile);
    if (!anchor) return false;
  }
  // (by revision: after an undo and another move the count of moves is the same, the cards are not)
  const key = [game.id, game.revision, getLanguage(), pile, index].join(" ");
  let answer = answers.get(key);
  if (!answer) {
    const result = await api.why(game.id, pile, index);
    if (!result.ok) {
      showWhy(result.data.error, anchor);
      return true;
    }
    answer = result.data;
    if (answers.size > 300) answers.clear();
    answers.set(key, answer);
  }
  if (answer.movable) return false;
  if (app.game === game) showWhy(answer.reason, anchor);
  return true;
}

// `node` (a card or a pile) of a board since drawn anew: the card of the
// same place and code, or the pile, in the board shown now (null if gone).
function drawnAgain(node, pile) {
  const now = document.querySelector(`#board [data-pile="${pile}"]`);
  if (!now || !node.classList.contains("card")) return now;
  const at = node.dataset.index === undefined ? null : `:scope > .card[data-index="${node.dataset.index}"]`;
  const cards = now.querySelectorAll(":scope > .card");
  const card = at ? now.querySelector(at) : cards[cards.length - 1];
  return card && card.dataset.card === node.dataset.card ? card : null;
}

// A press anywhere or a key hides the bubble (before a new one may show).
document.addEventListener("pointerdown", hideWhy, true);
document.addEventListener("keydown", (event) => { if (event.key !== "Shift") hideWhy(); }, true);
