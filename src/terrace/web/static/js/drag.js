// Drag and drop with Pointer Events (mouse, pen and touch alike).
// The board's movable cards carry the class "movable"; a drag starts after
// the pointer travels a few pixels, so a plain click stays a click. Esc
// cancels a drag. Pressing a card that cannot move calls onPress(pile,
// card): when it explains the card (returns true), the card is let go and
// its click does nothing more.

export const DRAG_THRESHOLD = 6;

export function attachDrag(board, { onStart, onDrop, onCancel, onPress }) {
  let drag = null;
  let swallowClick = false;

  const swallowNextClick = () => {
    swallowClick = true;
    setTimeout(() => { swallowClick = false; }, 0);
  };

  board.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || drag) return;
    const card = event.target.closest(".card.movable");
    if (!card) {
      const still = event.target.closest(".card");
      const pile = still && still.closest("[data-pile]");
      // (a finger on a terrace that scrolls in its strip may be scrolling
      // it: its card is explained when the finger is lifted without the
      // browser taking the touch for a scroll; every flick of the strip
      // explained the card first touched)
      if (pile && onPress && event.pointerType === "touch" && still.closest(".scrolled")) {
        drag = { deferred: { pile: pile.dataset.pile, card: still }, id: event.pointerId };
      } else if (pile && onPress && onPress(pile.dataset.pile, still)) {
        drag = { pressed: true, id: event.pointerId };
      }
      return;
    }
    const pile = card.closest("[data-pile]");
    if (!pile) return;
    drag = { card, pile: pile.dataset.pile, x: event.clientX, y: event.clientY, id: event.pointerId, ghost: null };
    card.setPointerCapture(event.pointerId);
  });

  board.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.id || drag.pressed || drag.cancelled || drag.deferred) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.ghost) {
      if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      const rect = drag.card.getBoundingClientRect();
      const ghost = drag.card.cloneNode(true);
      ghost.classList.add("ghost");
      ghost.classList.remove("movable", "selected", "hint-src");
      ghost.style.setProperty("left", `${rect.left}px`);
      ghost.style.setProperty("top", `${rect.top}px`);
      ghost.style.setProperty("width", `${rect.width}px`);
      ghost.style.setProperty("height", `${rect.height}px`);
      ghost.style.setProperty("--cw", getComputedStyle(drag.card).getPropertyValue("--cw"));
      document.body.append(ghost);
      drag.ghost = ghost;
      // (where the pointer holds the card, as fractions of its size)
      drag.grip = { x: (drag.x - rect.left) / rect.width, y: (drag.y - rect.top) / rect.height };
      drag.card.classList.add("lifted");
      onStart(drag.pile);
    }
    drag.ghost.style.setProperty("transform", `translate(${dx}px, ${dy}px) rotate(1.5deg)`);
    event.preventDefault();
  });

  const finish = (event, cancelled) => {
    if (!drag || event.pointerId !== drag.id) return;
    const current = drag;
    drag = null;
    if (current.deferred) {
      if (!cancelled && onPress(current.deferred.pile, current.deferred.card)) swallowNextClick();
      return;
    }
    if (current.pressed || current.cancelled) {
      swallowNextClick();
      return;
    }
    if (!current.ghost) return;
    swallowNextClick();
    if (cancelled) {
      onCancel(current.pile, current.ghost, current.card);
      return;
    }
    let under = document.elementsFromPoint(event.clientX, event.clientY)
      .map((node) => node.closest && node.closest("[data-pile]"))
      .find((node) => node && node.closest("#board"));
    if (!under) {
      // Below a tableau pile still counts as that pile (the lowest one
      // above the pointer, when the tableau lies in two lines).
      let lowest = -Infinity;
      for (const pile of board.querySelectorAll(".tpile")) {
        const r = pile.getBoundingClientRect();
        if (event.clientX >= r.left && event.clientX <= r.right && event.clientY >= r.top && r.top > lowest) {
          under = pile;
          lowest = r.top;
        }
      }
    }
    onDrop(current.pile, under ? under.dataset.pile : null, current.ghost, current.card);
  };
  // (On the window: a press or a cancelled drag may end anywhere.)
  window.addEventListener("pointerup", (event) => finish(event, false));
  window.addEventListener("pointercancel", (event) => finish(event, true));

  // Esc puts the card back; the pointer's release then does nothing.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !drag || !drag.ghost) return;
    const current = drag;
    drag = { cancelled: true, id: current.id };
    if (current.card.hasPointerCapture(current.id)) current.card.releasePointerCapture(current.id);
    event.preventDefault();
    onCancel(current.pile, current.ghost, current.card);
  });

  // The click that follows a drag is not a click on the card.
  window.addEventListener("click", (event) => {
    if (swallowClick) {
      event.stopPropagation();
      event.preventDefault();
      swallowClick = false;
    }
  }, true);

  // The board drawn anew during a drag (the window resized, a phone
  // turned): the card in hand is `card` now, the new top card of its pile,
  // lifted out of it as the old one was (it showed twice, in its pile and
  // in hand) and holding the pointer; the source pile, or null when no
  // card is in hand.
  return {
    redrawn(find) {
      if (!drag || !drag.ghost) return null;
      const card = find(drag.pile);
      if (!card) return drag.pile;
      card.classList.add("lifted");
      // (the card in hand as large as the cards drawn now, held at the
      // same point of it: drawn smaller, it was left where it was, the
      // pointer off its middle or past its edge)
      const rect = card.getBoundingClientRect();
      drag.ghost.style.setProperty("width", `${rect.width}px`);
      drag.ghost.style.setProperty("height", `${rect.height}px`);
      drag.ghost.style.setProperty("left", `${drag.x - drag.grip.x * rect.width}px`);
      drag.ghost.style.setProperty("top", `${drag.y - drag.grip.y * rect.height}px`);
      drag.ghost.style.setProperty("--cw", getComputedStyle(card).getPropertyValue("--cw"));
      if (card === drag.card) return drag.pile;
      drag.card = card;
      try {
        card.setPointerCapture(drag.id);
      } catch {
        // (the pointer already let go: its release ends the drag)
      }
      return drag.pile;
    },
  };
}

// Animate the ghost back to where the card was, then remove it.
export function snapBack(ghost, card, animate) {
  const done = () => {
    ghost.remove();
    card.classList.remove("lifted");
  };
  if (!animate || !card.isConnected) return done();
  const from = ghost.getBoundingClientRect();
  const to = card.getBoundingClientRect();
  ghost.style.setProperty("transform", "none");
  ghost.style.setProperty("left", `${to.left}px`);
  ghost.style.setProperty("top", `${to.top}px`);
  const animation = ghost.animate(
    [{ transform: `translate(${from.left - to.left}px, ${from.top - to.top}px)` }, { transform: "none" }],
    { duration: 220, easing: "cubic-bezier(.3,.7,.3,1)" }
  );
  animation.onfinish = done;
  animation.oncancel = done;
}
