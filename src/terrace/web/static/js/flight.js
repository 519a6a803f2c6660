// The cards' flight from where they were to where a change put them.

import { topCard } from "./render.js";

const board = document.querySelector("#board");

export function snapshot() {
  const rects = {};
  for (const node of board.querySelectorAll("[data-pile]")) {
    const top = topCard(node);
    rects[node.dataset.pile] = (top || node).getBoundingClientRect();
  }
  return rects;
}

export function animateMotions(motions, before, ghost) {
  const ghostRect = ghost ? ghost.getBoundingClientRect() : null;
  let mainUsed = false;
  for (const motion of motions) {
    if (motion.to === "stock") continue;
    const pile = board.querySelector(`[data-pile="${motion.to}"]`);
    if (!pile) continue;
    const cards = [...pile.querySelectorAll(`:scope > .card[data-card="${motion.card}"]`)];
    const card = cards[cards.length - 1];
    const from = !mainUsed && ghostRect && !motion.refill ? ghostRect : before[motion.from];
    if (!motion.refill) mainUsed = true;
    if (!card || !from) continue;
    const to = card.getBoundingClientRect();
    const dx = from.left - to.left;
    const dy = from.top - to.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    const flight = flyingCopy(card, to);
    card.classList.add("landing");
    document.body.append(flight);
    const animation = flight.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
      { duration: motion.refill ? 320 : 200, delay: motion.refill ? 170 : 0, easing: "cubic-bezier(.25,.8,.3,1)", fill: "backwards" }
    );
    const land = () => {
      if (flights.get(card) !== land) return;
      flights.delete(card);
      flight.remove();
      card.classList.remove("landing");
    };
    flights.set(card, land);
    animation.onfinish = land;
    animation.oncancel = land;
    if (motion.refill) card.classList.add("refilled");
  }
}

// A card on its way lies at its place from the start, unseen (class
// "landing"), and a copy of it flies there, taking no clicks. So a press
// where the card lands takes that card (a drag begun at once after a draw
// took the card under it, and explained that one), and a click where the
// copy flies goes to what lies there (the stock, for a double click's
// second click). `flights`: card -> what lands it at once.
export const flights = new Map();

function flyingCopy(card, rect) {
  const flight = card.cloneNode(true);
  flight.className = `${card.className} flight`;
  flight.classList.remove("movable", "selected", "hint-src", "landing");
  for (const name of ["data-card", "data-index", "role", "aria-label", "tabindex"]) flight.removeAttribute(name);
  flight.setAttribute("aria-hidden", "true");
  const style = getComputedStyle(card);
  for (const name of ["--cw", "--round", "--idx"]) {
    const value = style.getPropertyValue(name);
    if (value) flight.style.setProperty(name, value);
  }
  Object.assign(flight.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px` });
  return flight;
}

// (also the cards auto-play sends home one after the other: an undo
// pressed meanwhile drew them back on the board while they flew on)
export function landAll() {
  for (const land of [...flights.values()]) land();
  for (const ghost of document.querySelectorAll(".ghost.homeward")) {
    for (const animation of ghost.getAnimations()) animation.cancel();
  }
}

