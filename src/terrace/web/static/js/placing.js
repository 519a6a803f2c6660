// Where a box laid over the board (the bubble that says why a card cannot
// move, the end screen) hides the fewest cards' rank and suit: the corner
// indices (.idx) in sight are what names a card.

// The rectangles of the cards' indices in sight on the board now (an index
// under the next card of its pile names nothing).
function cardIndices() {
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

// How many of `indices` the box at `left`, `top` of `width` x `height` covers.
function hiddenBy(indices, left, top, { width, height }) {
  return indices.filter((r) => r.left < left + width && left < r.right
    && r.top < top + height && top < r.bottom).length;
}

// Of `spots` ({left, top}, the preferred first), the first where a box of
// `size` ({width, height}) hides fewest indices: {spot, hidden}, the count.
export function fewestHidden(spots, size) {
  const indices = cardIndices();
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

// The spots of a box of `size` inside `area` ({left, top, right, bottom}),
// `step` px apart each way, nearest to `from` ({left, top}) first.
export function spotsNear(from, size, area, step = 12) {
  const spots = [];
  const lastTop = Math.max(area.top, area.bottom - size.height);
  const lastLeft = Math.max(area.left, area.right - size.width);
  for (let top = area.top; top <= lastTop; top += step) {
    for (let left = area.left; left <= lastLeft; left += step) {
      spots.push({ left, top });
    }
  }
  const far = (spot) => Math.hypot(spot.left - from.left, spot.top - from.top);
  return [from, ...spots.sort((a, b) => far(a) - far(b))];
}
