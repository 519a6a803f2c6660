// Where a box laid over the board (the bubble that says why a card cannot
// move, the end screen) hides the fewest cards' rank and suit: the corner
// indices (.idx) in sight are what names a card.

// The rectangles of the cards' indices in sight on the board now (an index
// under the next card of its pile names nothing).
export function cardIndices() {
  return [...document.querySelectorAll("#board .card .idx")].map((idx) => [idx, idx.getBoundingClientRect()])
    .filter(([idx, r]) => r.width > 0 && !underNextCard(idx.closest(".card"), r)).map(([, r]) => r);
}

// Whether the middle of `rect` lies under a card after `card` in its pile.
function underNextCard(card, rect) {
  const x = (rect.left + rect.right) / 2;
  const y = (rect.top + rect.bottom) / 2;
  for (let next = card.nextElementSibling; next; next = next.nextElementSibling) {
    if (!next.classList.contains("card")) continue;
    const r = next.getBoundingClientRect();
    if (r.left <= x && x <= r.right && r.top <= y && y <= r.bottom) return true;
  }
  return false;
}

// The lefts and tops at which a box of `size` ({width, height}) lies just
// clear of a card's index in sight, beside or below or above it: a spot
// on a grid of 12 px may miss by less than a pixel a gap that holds it.
export function besideIndices({ width, height }) {
  const lefts = [];
  const tops = [];
  for (const r of cardIndices()) {
    lefts.push(r.right + 1, r.left - width - 1);
    tops.push(r.bottom + 1, r.top - height - 1);
  }
  return { lefts, tops };
}

// How many of `indices` the box at `left`, `top` of `width` x `height`
// covers (counted up to `enough`).
function hiddenBy(indices, left, top, { width, height }, enough = Infinity) {
  let hidden = 0;
  for (const r of indices) {
    if (r.left < left + width && left < r.right && r.top < top + height && top < r.bottom) {
      hidden += 1;
      if (hidden >= enough) break;
    }
  }
  return hidden;
}

// Of `spots` ({left, top}, the preferred first), the first where a box of
// `size` ({width, height}) hides fewest of `indices` (cardIndices: read
// once for many sizes, as each read after a change of the box lays the
// page out anew): {spot, hidden}, the count.
export function fewestHidden(spots, size, indices = cardIndices()) {
  let best = spots[0];
  let fewest = Infinity;
  for (const spot of spots) {
    const hidden = hiddenBy(indices, spot.left, spot.top, size);
    if (hidden < fewest) {
      [best, fewest] = [spot, hidden];
      if (!hidden) break;
    }
  }
  return { spot: best, hidden: fewest };
}

// (the spot alone)
export function leastHiding(spots, size) {
  return fewestHidden(spots, size).spot;
}

// Where a box of `size` ({width, height}) inside `area` ({left, top,
// right, bottom}), on a grid of `step` px or at `from` ({left, top}), hides
// fewest of `indices`, the nearest to `from` of those: {spot, hidden}. One
// pass, counting only while a spot may still do better (the end screen
// tries many sizes).
export function nearestFewest(from, size, area, indices, step = 12) {
  let best = from;
  let fewest = hiddenBy(indices, from.left, from.top, size);
  let nearest = 0;
  const lastTop = Math.max(area.top, area.bottom - size.height);
  const lastLeft = Math.max(area.left, area.right - size.width);
  for (let top = area.top; top <= lastTop; top += step) {
    for (let left = area.left; left <= lastLeft; left += step) {
      const far = Math.hypot(left - from.left, top - from.top);
      const most = far < nearest ? fewest : fewest - 1;  // (what it may hide and still do better)
      if (most < 0) continue;
      const hidden = hiddenBy(indices, left, top, size, most + 1);
      if (hidden <= most) [best, fewest, nearest] = [{ left, top }, hidden, far];
    }
  }
  return { spot: best, hidden: fewest };
}
