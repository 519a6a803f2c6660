// Drawing the board from the game JSON. The page only draws what the server
// says; it knows no rules.

import { t, count, getLanguage, rankLabel, rankName, cardName } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child) node.append(child);
  return node;
}

function suitIcon(suit, cls) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#suit-${suit}`);
  svg.append(use);
  return svg;
}

// A card's suit as a class (style.css: its colour in the four-colour pack).
const SUITS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };

// A face-up card; `index` is its place in its pile, from 0 at the bottom.
export function makeCard(code, index = null) {
  const red = code[1] === "H" || code[1] === "D";
  const rank = rankLabel(code[0]);
  const card = el("div", {
    class: `card face ${red ? "red" : "black"} ${SUITS[code[1]]}${rank.length > 1 ? " wide" : ""}`,
    "data-card": code,
    "data-index": index === null ? null : String(index),
    role: "img",
    "aria-label": cardName(code),
  });
  const head = el("div", { class: "idx" }, el("span", { class: "rank", text: rank }), suitIcon(code[1], "pip"));
  const corner = el("div", { class: "idx corner" }, el("span", { class: "rank", text: rank }), suitIcon(code[1], "pip"));
  card.append(head, suitIcon(code[1], "big"), corner);
  return card;
}

function makeBack() {
  return el("div", { class: "card back", "aria-hidden": "true" });
}

// The keys that choose a candidate, by its place among the choices: 1 to 9,
// then 0 for the tenth; the ones after it have none (null).
export const PILE_KEYS = "1234567890";

export function choiceKey(index) {
  return index < PILE_KEYS.length ? PILE_KEYS[index] : null;
}

// The keys to name in the prompt for `n` candidates.
export function choiceKeys(n) {
  if (n <= 1) return "1";
  if (n <= 9) return `1–${n}`;
  return t(n === 10 ? "prompt.keys.ten" : "prompt.keys.more");
}

// `counted`: the name says how many cards the pile holds already.
function pileLabel(name, cards, extra = "", counted = false) {
  const top = cards.length ? t("pile.top", { card: cardName(cards[cards.length - 1]) }) : t("pile.empty");
  const count = cards.length > 1 && !counted ? t("pile.cards", { n: cards.length }) : "";
  return [name, top, count, extra].filter(Boolean).join(", ");
}

// The face-up cards under a pile's top card, from the top down ("under it:
// 4 of clubs, king of hearts, …"): a sighted player reads the whole fan, a
// screen reader the pile's name and this description (the cards inside a
// button are not read out on their own). Null for one card or none.
function underTop(cards) {
  if (cards.length < 2) return null;
  return t("pile.under", { cards: cards.slice(0, -1).reverse().map(cardName).join(", ") });
}

// ---------------------------------------------------------------- layout
//
// Every length is in card widths (cw); a card is 1.4 cw high. The board must
// fit the window without scrolling: the cards take the largest size at which
// an ordinary pile (7 cards) fans out in full, and a taller pile first
// compresses its fan (with a smaller rank index, never a clipped one) and
// only then, when even the tightest fan would run past the bottom, makes
// every card smaller, to KEEP_SIZE of their size at most; a pile still too
// tall squeezes its run (fanPiles). These numbers match style.css.

const RATIO = 1.4;
const GAP = 0.12;              // between piles (--gap)
const ROW_GAP = GAP * 1.6;     // between the rows of the board
const PAD_X = 0.15;            // the board's side padding
const IDX_TOP = 0.02;          // the rank index's top offset
const IDX_FONT = 0.34;         // its full size
const IDX_BOX = 1.08;          // its box in ems: the J's and the Q's tails fit inside (DejaVu Sans Bold)
const IDX_WIDE = 1.12;         // the width in ems of the widest rank label ("10") in the terrace's column
const MIN_IDX_PX = 10.5;       // the smallest index font of any card (style.css: --idx-least)
const IDX_TALL = 1.95;         // the height in ems of a terrace card's index (rank over suit)
const TERRACE_LINES = 6;       // the most lines a long terrace may take
const LIFT = 0.05;             // the terrace's exposed card is raised by this share of its height
const AIR = 2;                 // pixels between an index and the card that covers it
const BOTTOM = 8;              // pixels kept free below the tallest pile
const TYPICAL_PILE = 7;        // the pile the card size is chosen for
const MIN_CW = 24;
const KEEP_SIZE = 0.7;         // a tall pile shrinks the cards to this share of their usual size at most
const TWO_LINES_FROM = 10;     // piles from which an upright phone may lay the tableau in two lines
const TWO_LINES_GAIN = 1.25;   // ... when that makes its cards at least this much wider
const BADGE_FONT = 0.17;       // a foundation's badge (the card it waits for): its font, a share of the card's width
const BADGE_LEAST = 10;        // ... never under this (px)
const BADGE_LINE = 1;          // ... its height in ems (style.css: its line, its frame drawn inside)
const BADGE_AIR = 1;           // pixels between it and the card under it
const FOUNDATION_GAP = 0.24;   // between two rows of foundations, at least

// The fan step (px) at which a covered card shows its whole index, at index
// size `font` (px).
function stepFor(cw, font) {
  return IDX_TOP * cw + IDX_BOX * font + AIR;
}

// A card's index at full size (px): a share of its width, but never under
// MIN_IDX_PX (a 640x360 phone's 27 px cards had ranks of 9 px).
const fullFont = (cw) => Math.max(IDX_FONT * cw, MIN_IDX_PX);
document.documentElement.style.setProperty("--idx-least", `${MIN_IDX_PX}px`);

const fullStep = (cw) => stepFor(cw, fullFont(cw));

// A foundation's badge hangs below its card (over the card's lower corner
// it hid the rank and suit printed there): the gap between two rows of
// foundations holds it (px, for top cards of width `c`). Below the last
// row, the room above the terrace does (test_browser_layout).
const badgeHeight = (c) => BADGE_LINE * Math.max(BADGE_LEAST, BADGE_FONT * c);
const foundationGap = (c) => Math.max(FOUNDATION_GAP * c, badgeHeight(c) + BADGE_AIR);
// A pile taller than an ordinary one may fan tighter, down to an index of
// a fifth of its card's width, never under MIN_IDX_PX (it was the card's
// full proportion below that: 8.2 px on a 24 px card); a pile too tall even
// so squeezes its run (fanPiles).
const tightStep = (cw) => stepFor(cw, Math.min(fullFont(cw), Math.max(MIN_IDX_PX, 0.2 * cw)));

// The index font (px) that a fan step leaves room for.
function indexFont(cw, step) {
  return Math.min(fullFont(cw), (step - AIR - IDX_TOP * cw) / IDX_BOX);
}

// The terrace: `count` cards of width `cw` fanned across `width`, in as few
// lines as leave each covered card's rank and suit (a column at its left)
// at MIN_IDX_PX or more (or its full size, if smaller). A line covers the
// one above it below that line's indices (`rise` px below its top, with
// room for the exposed card, raised). At most `most` lines are shown: a
// longer terrace scrolls in a strip of that height, at its last line (the
// exposed card) when drawn, `room` px to its right for a scroll bar or,
// where none shows, the signs of the lines out of sight and their count
// (markStrip; eight packs' 395 cards kept 8 px ranks in six lines on every
// phone and tablet). `font` is the covered cards' index size, null at full
// size; `shown` the lines in sight.
const SCROLL_ROOM = 12;
const DIGIT = 0.7;  // the width of a digit of style.css's .strip-more, in its font size
// The room for a scroll bar, or for a count of `hidden` lines (MIN_IDX_PX digits).
const stripRoom = (hidden) => Math.max(SCROLL_ROOM, Math.ceil(String(hidden).length * DIGIT * MIN_IDX_PX) + 3);

function terraceFan(count, cw, width, most = TERRACE_LINES) {
  const full = fullFont(cw);
  const fanIn = (room) => {
    for (let lines = 1; ; lines += 1) {
      const per = Math.ceil(count / lines);
      const step = per > 1 ? Math.min(cw * 0.7, (room - cw) / (per - 1)) : 0;
      const space = (step - AIR - 0.03 * cw) / IDX_WIDE;
      if (per <= 1 || space >= Math.min(full, MIN_IDX_PX)) {
        return { lines: count ? Math.ceil(count / per) : 1, per, step, font: per > 1 && space < full ? space : null };
      }
    }
  };
  let fan = fanIn(width);
  let room = 0;
  const shown = Math.min(fan.lines, Math.max(1, most));
  // (a narrower fan may take more lines, and their count more digits)
  while (fan.lines > shown && stripRoom(fan.lines - shown) > room) {
    room = stripRoom(fan.lines - shown);
    fan = fanIn(width - room);
  }
  return { ...fan, shown, room, scrolled: fan.lines > shown,
           rise: IDX_TOP * cw + IDX_TALL * (fan.font || full) + AIR + LIFT * RATIO * cw };
}

// The lowest edge the board may use: the window's, less a toolbar fixed at
// the bottom and whatever style.css places after the board (on a phone: the
// counters and the prompt).
export function bottomEdge() {
  let bottom = window.innerHeight;
  const toolbar = document.querySelector(".actions");
  if (toolbar && getComputedStyle(toolbar).position === "fixed") {
    const rect = toolbar.getBoundingClientRect();
    if (rect.top > bottom / 2) bottom = rect.top;
  }
  const board = document.querySelector("#board");
  const order = Number(getComputedStyle(board).order);
  for (const node of board.parentElement.children) {
    const style = getComputedStyle(node);
    if (Number(style.order) <= order || style.position === "fixed" || style.display === "none") continue;
    bottom -= node.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
  }
  // (the end screen of a game over with cards left, where no spot hides none
  // of their ranks and suits: the board above it, endgame.js: placeEnd)
  const end = document.querySelector("#dlg-end");
  if (end && end.open && end.dataset.room === "true") bottom = Math.min(bottom, end.getBoundingClientRect().top);
  return bottom;
}

// The largest card width in [low, high] for which `fits` holds (it holds
// for every smaller width), to half a pixel.
function largest(low, high, fits) {
  if (fits(high)) return high;
  if (!fits(low)) return low;
  while (high - low > 0.5) {
    const mid = (low + high) / 2;
    if (fits(mid)) low = mid;
    else high = mid;
  }
  return low;
}

// The board's columns and card widths for the space available: `cw` for
// the tableau, `cwTop` for the top row and the terrace. They are the same,
// except on an upright phone: nine piles make the tableau's cards narrow,
// while the top row has fewer columns, so its cards and the terrace's (the
// cards a player reads most) grow into the height the phone has to spare.
export function fitBoard(board, game, bottom = bottomEdge()) {
  const o = game.options;
  const foundations = 4 * o.decks;
  const portrait = window.innerWidth < window.innerHeight * 0.8;
  const width = board.clientWidth;
  const top = board.getBoundingClientRect().top;
  const height = bottom - top - BOTTOM;
  // The tableau's first card and fan for an ordinary pile and for the tallest one.
  const tallest = Math.max(1, ...game.state.tableau.map((pile) => pile.length));
  const tableau = (cw) => RATIO * cw + Math.max((TYPICAL_PILE - 1) * fullStep(cw), (tallest - 1) * tightStep(cw));
  const typical = (cw) => RATIO * cw + (TYPICAL_PILE - 1) * fullStep(cw);
  // The board with the foundations in `rows` rows. The width is a hard
  // limit, also below MIN_CW (a wider board would scroll sideways with its
  // centred rows starting off the screen, the stock out of reach); the
  // height gives way at MIN_CW (the page then scrolls down).
  // The tableau in `lines` lines (two on an upright phone with many piles:
  // eleven piles in one line left it cards of 29 px and half the screen empty).
  // The terrace's lines (at most `most`) for cards of width `c`.
  const terrace = (c, most) => terraceFan(game.state.reserve.length, c, width - 2 * PAD_X * c, most);
  const layout = (rows, lines = 1, pile = tableau, most = TERRACE_LINES) => {
    const perRow = Math.ceil(foundations / rows);
    const topCols = 2 + perRow + GAP * 1.5;  // the waste keeps a wider gap
    const pileCols = Math.ceil(o.piles / lines);
    // (in two lines the top row keeps its own, smaller cards: below)
    const cols = lines > 1 ? pileCols : Math.max(pileCols, topCols);
    const byWidth = width / (cols + (Math.ceil(cols) - 1) * GAP + 2 * PAD_X);
    // Everything above the tableau, in px for top cards of width `c` (the
    // terrace's further lines, each `rise` below the one before).
    const base = GAP * 1.2 + rows * RATIO + 0.26 + ROW_GAP + RATIO + ROW_GAP;
    const above = (c) => {
      const fan = terrace(c, most);
      return base * c + (rows - 1) * foundationGap(c) + (fan.shown - 1) * fan.rise;
    };
    const tall = (cw) => lines * pile(cw) + (lines - 1) * ROW_GAP * cw;
    const byHeight = largest(MIN_CW, 240, (cw) => above(cw) + tall(cw) <= height);
    const cw = Math.min(byWidth, Math.max(MIN_CW, byHeight));
    return { rows, lines, most, pileCols, perRow, topCols, cols, above, tall, cw,
             over: above(cw) + tall(cw) - height };
  };
  // The cards of the top row and the terrace: as wide as the tableau's,
  // except on an upright phone, where they take the width and the height
  // the tableau leaves them.
  const topWidth = ({ lines, topCols, above, tall, cw }) => {
    if (!portrait) return cw;
    const byWidthTop = width / (topCols + Math.ceil(topCols - 1) * GAP + 2 * PAD_X);
    if (lines > 1) return Math.min(cw, byWidthTop);  // (the piles took the width the top row could not)
    const cwTop = largest(cw, Math.max(cw, Math.min(byWidthTop, cw * 1.6)), (c) => above(c) <= height - tall(cw));
    return cwTop < cw * 1.1 ? cw : cwTop;
  };
  const fitted = (lines, pile = tableau) => {
    // (on an upright phone, a row of foundations about as wide as a line of piles)
    const across = portrait ? Math.max(4, Math.ceil(o.piles / lines) - 2) : 8;
    let best = layout(Math.ceil(foundations / across), lines, pile);
    // Another number of rows that fits as well and makes the smaller of the
    // two card sizes (the tableau's, the top row's) clearly larger: four
    // packs' sixteen foundations in four rows of five left a 360x640
    // phone's two lines of piles cards of 27 px (so its fourteen piles took
    // one line of 23 px cards); in two rows of eight, 31 px.
    const smaller = (l) => Math.min(l.cw, topWidth(l));
    // (and one that fits where the guess does not, its cards not under
    // MIN_CW for that: German's longer prompt left that phone's four rows
    // no room for two lines)
    for (let rows = 1; rows <= Math.ceil(foundations / 2); rows += 1) {
      const other = layout(rows, lines, pile);
      if (other.over > 0) continue;
      const better = best.over > 0 ? smaller(other) >= Math.min(MIN_CW, smaller(best))
        : smaller(other) > smaller(best) * 1.05;
      if (better) best = other;
    }
    // Too tall even with the smallest cards (many decks in a low window):
    // more foundations to a row, as few rows as it takes to fit, but not
    // at the cost of top cards under MIN_CW (a pile of thirty cards on an
    // upright phone put 32 foundations in one row of 9 px cards: the page
    // scrolls down instead); and a long terrace in fewer lines, if that
    // makes the board fit.
    for (let rows = best.rows - 1; best.over > 0 && rows >= 1; rows -= 1) {
      const other = layout(rows, lines, pile);
      if (other.over < best.over && topWidth(other) >= Math.min(MIN_CW, topWidth(best))) best = other;
    }
    // (in sight as a whole: 94 cards on a 640x360 phone took two lines of
    // 9 px ranks instead of three of 10.5 px, with slightly smaller cards)
    const whole = (l) => !terrace(topWidth(l), l.most).scrolled;
    for (let most = TERRACE_LINES - 1; best.over > 0 && most >= 1; most -= 1) {
      const other = layout(best.rows, lines, pile, most);
      if (other.over <= 0 && whole(other)) best = other;
    }
    // A terrace that cannot be shown whole even so scrolls in fewer lines,
    // rather than the page (eight packs' 395 cards on a 360x640 phone), two
    // at least (the exposed card, raised, and the line it covers; a tall
    // pile squeezes its run if the board is too tall still).
    for (let most = best.most - 1; best.over > 0 && most >= 2; most -= 1) {
      const other = layout(best.rows, lines, pile, most);
      if (other.over < best.over) best = other;
    }
    return best;
  };
  // One line or two is chosen by the rules and the window alone, for piles
  // of a usual height, so that the tableau does not change shape as its
  // piles grow (they fan tighter instead, as in one line).
  // Two lines a little too tall for such piles still beat one line whose
  // width makes the cards smaller than MIN_CW (twenty piles on a 360x640
  // phone: 16 px cards in one line, 24 px in two).
  // (the layouts for piles of a usual height, each made once: asked for
  // below as well)
  const usualFits = [];
  const fittedUsual = (count) => (usualFits[count] ??= fitted(count, typical));
  let lines = 1;
  if (portrait && o.piles >= TWO_LINES_FROM) {
    const [one, two] = [fittedUsual(1), fittedUsual(2)];
    if ((two.over <= 0 || one.cw < MIN_CW) && two.cw >= one.cw * TWO_LINES_GAIN) lines = 2;
  }
  let chosen = fitted(lines);
  // A pile so tall that every card would shrink below KEEP_SIZE of the
  // size it has for ordinary piles squeezes its run instead (render.js:
  // fanPiles): a pile of 40 cards on a 1366x768 laptop made every card
  // 29 px wide, not 88. The tableau is then given the room it has at that
  // size, no more.
  // So does a pile too tall for the board even with the least cards (eight
  // packs' 24 px cards on a 360x640 phone, where even two lines of seven
  // cards are 17 px too tall: a pile of thirty scrolled the page 28-40 px),
  // down to the room there is. In two lines, each line has half the room.
  const usual = fittedUsual(lines);
  const least = Math.max(KEEP_SIZE * usual.cw, Math.min(MIN_CW, usual.cw));
  if (chosen.cw < least - 0.5 || chosen.over > 0.5) {
    const room = (height - usual.above(least) - (lines - 1) * ROW_GAP * least) / lines;
    const floor = usual.over > 0.5 ? () => 0 : typical;
    chosen = fitted(lines, (c) => Math.min(tableau(c), Math.max(floor(c), room * c / least)));
  }
  const { rows, pileCols, perRow, cols, cw } = chosen;
  const cwTop = topWidth(chosen);
  const fan = terraceFan(game.state.reserve.length, cwTop, width - 2 * PAD_X * cw, chosen.most);
  // Where the tableau will start (as style.css lays the rows out), so that
  // the piles are fanned before the board is laid out, once.
  const tableauTop = top + cw * (GAP * 1.2 + 2 * ROW_GAP) + cwTop * (rows * RATIO + 0.1 + RATIO)
    + (rows - 1) * foundationGap(cwTop)
    + (fan.shown - 1) * fan.rise;
  setVar(board, "--cw", `${cw.toFixed(2)}px`);
  setVar(board, "--cw-top", `${cwTop.toFixed(2)}px`);
  setVar(board, "--cols", String(cols));
  setVar(board, "--frow", String(perRow));
  setVar(board, "--frow-gap", `${foundationGap(cwTop).toFixed(2)}px`);
  setVar(board, "--tcols", String(pileCols));
  board.classList.toggle("compact", cw < 64);
  return { cw, cwTop, ch: cw * RATIO, cols, portrait, tableauTop, lines, pileCols, terrace: fan };
}

// A pile too tall for its room even at its tightest fan (26 cards on a 640x360
// phone ran 140 px past the bottom of the screen, the page scrolled): its
// run's middle is squeezed (each card's edge in sight, its index hidden,
// a mark saying how many), its first card and the RUN_KEPT cards under its
// top card still fanned in full (fewer, where the room is very short). The squeezed ranks follow from theirs: a
// pile is a run built down in alternating colours.
const RUN_KEPT = 4;
const SQUEEZED_STEP = 2;       // px: the tightest squeeze while cards are kept in full
const SQUEEZED_LEAST = 0.5;    // px: the tightest of all; a taller pile runs past the bottom

// How a pile of `n` cards is fanned into `room` px: its step, and whether
// its run is squeezed (`over`): how many cards (`squeezed`, their index
// hidden), at what step (`thin`), with how many kept in full; `height` is
// the pile's, taller than the room only where even the tightest squeeze is;
// `lost` the cards under its top card not kept in full for lack of room.
function fanOne(n, room, { ch, tight, widest }) {
  let step = 0;
  if (n > 1) step = Math.max(tight, Math.min(widest, (room - ch) / (n - 1)));
  // The cards squeezed: from the second to the one below the kept ones,
  // fewer kept (down to none) where even the tightest squeeze of the
  // others runs past the bottom (thirty cards in a line of eight packs'
  // two on a 360x640 phone ran 44 px past it).
  const over = ch + step * (n - 1) > room + 0.5 && n - 2 - RUN_KEPT > 0;
  const squeezeWith = (kept) => {
    const count = Math.max(0, n - 2 - kept);
    return { count, thin: count ? (room - ch - step * (n - 1 - count)) / count : step };
  };
  let kept = RUN_KEPT;
  while (over && kept > 0 && squeezeWith(kept).thin < SQUEEZED_STEP) kept -= 1;
  const squeezed = over ? squeezeWith(kept).count : 0;
  // (and, with none kept, a squeeze tighter than SQUEEZED_STEP, to
  // SQUEEZED_LEAST: thirty cards on a 640x360 phone under eight packs'
  // two rows of foundations and two lines of terrace ran 4 px past it)
  const least = kept > 0 ? SQUEEZED_STEP : SQUEEZED_LEAST;
  const thin = over ? Math.max(least, squeezeWith(kept).thin) : step;
  const height = n ? ch + (over ? step * (n - 1 - squeezed) + thin * squeezed : step * (n - 1)) : ch;
  return { step, over, squeezed, thin, height, lost: over ? RUN_KEPT - kept : 0 };
}

// The rooms (px) of two lines of piles (their card counts) sharing `total`
// px: each line as its tallest pile needs at its tightest fan, when both
// fit (the rest shared in that proportion); else the split that hides the
// fewest ranks, those of the cards just under a top card counting
// LOST_WEIGHT times (none running past the bottom where a split can avoid it),
// of those the nearest to the proportion of their needs. (A pile of 24 in
// the second line was squeezed into half the room, 290 px left empty
// below the first line's single cards; when both lines needed more than
// half, each still got half: on a 360x640 phone a pile of 40 beside one of
// 14 had 38 cards squeezed, none under its top card kept in full.)
const LOST_WEIGHT = 3;

function shareRoom(counts, total, fit) {
  const need = counts.map((line) => fit.ch + Math.max(0, ...line.map((n) => n - 1)) * fit.tight);
  const [one, two] = need;
  const fair = total * one / (one + two);
  if (one + two <= total) return [fair, total - fair];
  const cost = (room, line) => line.reduce((sum, n) => {
    const fan = fanOne(n, room, fit);
    return sum + fan.squeezed + LOST_WEIGHT * fan.lost + 1000 * Math.max(0, fan.height - room - 0.5);
  }, 0);
  let best = null;
  for (let room = Math.floor(fit.ch); room <= total - fit.ch; room += 1) {
    const score = cost(room, counts[0]) + cost(total - room, counts[1]);
    const better = best === null || score < best.score - 1e-6
      || (Math.abs(score - best.score) <= 1e-6 && Math.abs(room - fair) < Math.abs(best.room - fair));
    if (better) best = { room, score };
  }
  return best === null ? [total / 2, total / 2] : [best.room, total - best.room];
}

// Fan each tableau pile into the room left below it: as wide as looks
// good, never wider than the room, never so tight that an index is hidden,
// except in a pile too tall for the room even so (fanOne).
function fanPiles(tableau, { cw, ch, portrait, tableauTop, lines, pileCols }, bottom) {
  const total = bottom - tableauTop - BOTTOM - (lines - 1) * ROW_GAP * cw;
  const fit = { ch, tight: tightStep(cw), widest: Math.max(fullStep(cw), ch * (portrait ? 0.6 : 0.3)) };
  const piles = [...tableau.children];
  const count = (pile) => pile.querySelectorAll(":scope > .card").length;
  const rooms = lines > 1
    ? shareRoom([piles.slice(0, pileCols).map(count), piles.slice(pileCols).map(count)], total, fit)
    : [total];
  piles.forEach((pile, i) => {
    const room = rooms[lines > 1 && i >= pileCols ? 1 : 0];
    const cards = [...pile.querySelectorAll(":scope > .card")];
    const n = cards.length;
    const { step, over, squeezed, thin } = fanOne(n, room, fit);
    let y = 0;
    cards.forEach((card, j) => {
      const inside = over && j >= 1 && j <= squeezed;
      if (j > 0) y += over && j >= 2 && j <= squeezed + 1 ? thin : step;  // (the one below it squeezed?)
      setVar(card, "--y", `${y.toFixed(2)}px`);
      card.classList.toggle("squeezed", inside);
    });
    let mark = pile.querySelector(":scope > .squeeze-mark");
    if (over) {
      if (!mark) pile.append(mark = el("span", { class: "squeeze-mark", "aria-hidden": "true" }));
      if (mark.textContent !== `⋮${squeezed}`) mark.textContent = `⋮${squeezed}`;
      setVar(mark, "--y", `${(step + thin * squeezed / 2).toFixed(2)}px`);
    } else if (mark) {
      mark.remove();
    }
    setVar(pile, "--fan", `${step.toFixed(2)}px`);
    setVar(pile, "--h", `${(ch + y).toFixed(2)}px`);
    if (n > 1 && step < fullStep(cw)) setVar(pile, "--idx", `${indexFont(cw, step).toFixed(2)}px`);
    else pile.style.removeProperty("--idx");
  });
}

// Fan the terrace across the board's width; a long terrace gets a smaller
// index so that each card's rank stays readable.
// A terrace longer than its lines in sight scrolls (style.css: .scrolled).
function fanTerrace(reserve, { shown, per, step, font, rise, scrolled, room }, cw) {
  setVar(reserve, "--rstep", `${step.toFixed(2)}px`);
  setVar(reserve, "--rrise", `${rise.toFixed(2)}px`);
  const width = cw + step * Math.max(per - 1, 0) + (scrolled ? room : 0);
  setVar(reserve, "--rwidth", `${width.toFixed(2)}px`);
  setVar(reserve, "--rheight", `${(cw * RATIO + rise * (shown - 1)).toFixed(2)}px`);
  reserve.classList.toggle("scrolled", scrolled);
  if (font !== null) setVar(reserve, "--idx", `${font.toFixed(2)}px`);
  else reserve.style.removeProperty("--idx");
}

// The signs that a terrace's strip scrolls: an arrow at the top and one at
// the bottom of its scroll bar's room, each while lines of the terrace are
// hidden that way (a phone shows no scroll bar until the strip is
// scrolled: nothing told a player that more cards lay above), with the
// count of those lines, shown and read ("12 lines of the terrace above,
// out of sight": the arrows alone said neither how many nor anything to a
// screen reader). A line is out of sight while its ranks (its top `rise`
// px; the last line's whole card) are not all in the strip. A scroll bar
// that takes room of its own is sign enough: the signs give way to it.
function markStrip(strip, row, { lines, rise, room }, ch) {
  const sign = (way, arrow) => {
    const count = el("span", { class: "n", "aria-hidden": "true" });
    const said = el("span", { class: "sr-only" });
    const node = el("span", { class: `strip-more ${way}` },
      el("span", { "aria-hidden": "true", text: arrow }), count, said);
    return { node, say: (n) => { count.textContent = String(n); said.textContent = t(`strip.${way}`, { n }); } };
  };
  const up = sign("up", "▲");
  const down = sign("down", "▼");
  setVar(row, "--scroll-room", `${room}px`);
  row.append(up.node, down.node);
  const mark = () => {
    const bar = strip.offsetWidth - strip.clientWidth > 1;
    const from = strip.scrollTop - 1;
    const to = strip.scrollTop + strip.clientHeight + 1;
    let above = 0;
    let below = 0;
    for (let line = 0; line < lines; line += 1) {
      const top = line * rise;
      if (top < from) above += 1;
      else if (top + (line === lines - 1 ? ch : rise) > to) below += 1;
    }
    up.node.hidden = bar || above === 0;
    down.node.hidden = bar || below === 0;
    if (above) up.say(above);
    if (below) down.say(below);
  };
  strip.onscroll = mark;  // (one at a time: the strip is kept from one drawing to the next)
  mark();
}

// The board keeps its elements from one drawing to the next: each pile its
// element, and the cards it still holds at the same places theirs; only
// what changed is made anew or updated (an undo with eight packs' 355
// face-up cards made all 4,000 elements of the board anew: 0.45 s of the
// page's time). What a drawing does not make is taken off what it keeps
// (tidy). The board is made whole again in another language, or for other
// rules (another number of piles).
let drawnIn = null;  // the language of the board's cards

// The board's rows and piles, as drawn last or made empty.
function boardShape(board, game) {
  const s = game.state;
  const [top, terrace, tableau] = board.children;
  const kept = board.children.length === 3 && drawnIn === getLanguage()
    && top.querySelectorAll(".foundation").length === s.foundations.length
    && tableau.children.length === s.tableau.length;
  if (kept) {
    const [stock, waste, foundations] = top.children;
    return { top, stock, waste, foundations, terrace, reserve: terrace.querySelector(".reserve"), tableau };
  }
  drawnIn = getLanguage();
  const pile = () => el("div");
  const shape = {
    top: el("div"), stock: pile(), waste: pile(), foundations: el("div", { class: "foundations" }),
    terrace: el("div"), reserve: pile(), tableau: el("div"),
  };
  shape.foundations.append(...s.foundations.map(pile));
  shape.tableau.append(...s.tableau.map(pile));
  shape.top.append(shape.stock, shape.waste, shape.foundations);
  shape.terrace.append(shape.reserve);
  board.replaceChildren(shape.top, shape.terrace, shape.tableau);
  return shape;
}

// Give `node` the attributes `el` would make with `attrs` (its style and the
// children aside), and no others (a pile's marks, its name kept by nameMarks).
function dress(node, attrs) {
  const shell = el(node.tagName.toLowerCase(), attrs);
  for (const { name, value } of shell.attributes) {
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  }
  for (const name of node.getAttributeNames()) {
    if (name !== "style" && !shell.hasAttribute(name)) node.removeAttribute(name);
  }
  return node;
}

// The face-up `codes` in `pile`, the first at place `first` of its pile: the
// cards already there at the same places are kept, the others made anew
// (before any other child, a count or a mark). Returns the pile's cards.
function placeCards(pile, codes, first = 0) {
  const cards = [...pile.querySelectorAll(":scope > .card")];
  // (the waste shows its last three: after a draw, the first two of them were shown before)
  const from = cards.findIndex((card) => card.dataset.index === String(first));
  if (from > 0) cards.splice(0, from).forEach((card) => card.remove());
  let kept = 0;
  while (kept < cards.length && kept < codes.length && cards[kept].dataset.card === codes[kept]
         && cards[kept].dataset.index === String(first + kept)) kept += 1;
  for (let j = kept; j < cards.length; j += 1) cards[j].remove();
  const after = pile.querySelector(":scope > :not(.card)");
  for (let j = kept; j < codes.length; j += 1) pile.insertBefore(makeCard(codes[j], first + j), after);
  return [...pile.querySelectorAll(":scope > .card")];
}

// A kept card as makeCard made it: the marks and the additions of the last
// drawing taken off (a selection, a hint, a choice's key, a coach's chance,
// a shake, a card hidden while its copy flew home). Its place in a fan is
// set by the drawing ("squeezed" too: fanPiles).
const CARD_CLASSES = new Set(["card", "face", "back", "red", "black", ...Object.values(SUITS), "wide", "squeezed"]);
const CARD_ATTRIBUTES = new Set(["class", "data-card", "data-index", "role", "aria-label", "aria-hidden", "style"]);

function tidy(card) {
  for (const cls of [...card.classList]) if (!CARD_CLASSES.has(cls)) card.classList.remove(cls);
  for (const name of card.getAttributeNames()) if (!CARD_ATTRIBUTES.has(name)) card.removeAttribute(name);
  if (card.style.visibility) card.style.removeProperty("visibility");
  if (!card.dataset.card) return;
  while (card.children.length > 3) card.lastElementChild.remove();  // (makeCard's: two indices and the suit)
  const label = cardName(card.dataset.card);
  if (card.getAttribute("aria-label") !== label) card.setAttribute("aria-label", label);
}

// A custom property of `node`, set only when it changes.
function setVar(node, name, value) {
  if (node.style.getPropertyValue(name) !== value) node.style.setProperty(name, value);
}

// The children of a small pile (the stock, a foundation), made anew only
// when `key` (what they show) changed.
function fill(node, key, make) {
  if (node.drawn === key) return;
  node.drawn = key;
  node.replaceChildren(...make());
}

export function renderBoard(board, game, view) {
  const bottom = bottomEdge();
  const fit = fitBoard(board, game, bottom);
  const s = game.state;
  const sources = game.sources || {};
  const choices = new Map((game.choices || []).map((c, i) => [c.pile, { ...c, index: i }]));
  // A pile made anew that had the keyboard focus gets it back (a kept one keeps it).
  const active = document.activeElement;
  const focusedPile = active && board.contains(active) && active.closest("[data-pile]");
  const refocus = focusedPile ? focusedPile.dataset.pile : null;
  // A scrolled terrace keeps the place a player scrolled it to while it
  // holds the same cards; a changed one shows its exposed card again.
  const strip = board.querySelector(".reserve.scrolled");
  const scrolledTo = strip && strip.dataset.count === String(s.reserve.length) ? strip.scrollTop : null;
  const shape = boardShape(board, game);
  board.classList.toggle("choosing", game.status === "choosing");
  board.classList.toggle("replay", Boolean(game.replay));

  // Top row: stock, waste, foundations.
  const stockCount = s.stock;
  const stock = dress(shape.stock, {
    class: `pile stock${game.draw ? " live" : ""}`,
    "data-pile": "stock",
    tabindex: "0",
    role: "button",
    // (empty, it turns the waste over while a redeal is left: game.draw)
    "aria-label": stockCount ? t("pile.stock", { n: stockCount })
      : game.draw ? t("pile.stockRedeal", { n: game.counters.redeals_left }) : t("pile.stockEmpty"),
  });
  fill(stock, `${stockCount} ${game.draw}`, () => (stockCount
    ? [makeBack(), el("span", { class: "count", text: String(stockCount) })]
    : [el("span", { class: "slot-mark", text: game.draw ? "↺" : "∅" })]));

  const waste = dress(shape.waste, {
    class: "pile waste",
    "data-pile": "waste",
    tabindex: "0",
    role: "button",
    "aria-label": s.waste.length ? pileLabel(t("pile.waste", { n: s.waste.length }), s.waste, "", true)
      : t("pile.wasteEmpty"),
    "aria-description": underTop(s.waste.slice(-3)),  // (the cards it shows)
  });
  const shown = s.waste.slice(-3);
  placeCards(waste, shown, s.waste.length - shown.length).forEach((card, i) => {
    tidy(card);
    setVar(card, "--i", String(i - shown.length + 1));
  });
  let count = waste.querySelector(":scope > .count");
  if (s.waste.length && !count) waste.append(count = el("span", { class: "count" }));
  if (!s.waste.length && count) count.remove();
  if (s.waste.length && count.textContent !== String(s.waste.length)) count.textContent = String(s.waste.length);

  s.foundations.forEach((cards, i) => {
    const name = `f${i + 1}`;
    const badge = game.foundations[i];
    let extra;
    if (badge.complete) extra = t("pile.complete");
    else if (!cards.length) extra = badge.next ? t("pile.waits", { rank: rankName(badge.next) }) : "";
    else extra = t("pile.next", { what: nextText(badge) });
    const pile = dress(shape.foundations.children[i], {
      class: `pile foundation${cards.length ? "" : " empty"}`,
      "data-pile": name,
      tabindex: "0",
      role: "button",
      "aria-label": pileLabel(t("pile.foundation", { i: i + 1 }), cards, extra),
    });
    fill(pile, `${cards.length} ${cards[cards.length - 1]} ${JSON.stringify(badge)}`, () => (cards.length
      ? [cards.length > 1 && el("div", { class: "under" }), makeCard(cards[cards.length - 1], cards.length - 1),
        makeBadge(badge)].filter(Boolean)
      : [el("span", { class: "waits", text: badge.next ? rankLabel(badge.next) : "?" })]));
    for (const card of pile.querySelectorAll(":scope > .card")) tidy(card);
  });
  for (const card of stock.querySelectorAll(":scope > .card")) tidy(card);
  dress(shape.top, { class: "row top" });

  // The terrace, fanned so that every card can be read.
  const reserve = dress(shape.reserve, {
    class: `pile reserve${s.reserve.length ? "" : " empty"}`,
    "data-pile": "reserve",
    tabindex: "0",
    role: "button",
    "aria-label": pileLabel(t("pile.reserve", { n: s.reserve.length }), s.reserve, "", true),
    "aria-description": underTop(s.reserve),
  });
  placeCards(reserve, s.reserve).forEach((card, i) => {
    tidy(card);
    setVar(card, "--i", String(i % fit.terrace.per));
    setVar(card, "--line", String(Math.floor(i / fit.terrace.per)));
    if (i === s.reserve.length - 1) card.classList.add("exposed");
  });
  fanTerrace(reserve, fit.terrace, fit.cwTop);
  const terrace = dress(shape.terrace, { class: "row terrace" });

  // The tableau.
  const tableau = dress(shape.tableau, { class: `row tableau${fit.lines > 1 ? " two-lines" : ""}` });
  s.tableau.forEach((cards, i) => {
    const name = `t${i + 1}`;
    const choice = choices.get(name);
    const key = choice ? choiceKey(choice.index) : null;
    const verdict = choice && view.verdicts && view.verdicts[choice.move];
    // A candidate's number, key and verdict are in the pile's own name (a
    // screen reader may read a button's name alone, not the card inside).
    const said = choice ? [t("pile.choice", { i: choice.move.slice(1) }), key && t("pile.key", { key }),
      verdict && t(`verdict.${verdict}`)].filter(Boolean).join(", ") : "";
    const pile = dress(tableau.children[i], {
      class: `pile tpile${cards.length ? "" : " empty"}${choice ? " candidate" : ""}`,
      "data-pile": name,
      tabindex: "0",
      role: "button",
      "aria-label": pileLabel(t("pile.tableau", { i: i + 1 }), cards, said),
      "aria-description": underTop(cards),
    });
    placeCards(pile, cards).forEach((card, j) => {
      tidy(card);
      setVar(card, "--i", String(j));
    });
    if (choice) {
      const top = topCard(pile);
      top.classList.add("choice");
      if (key) top.append(el("span", { class: "choice-key", "aria-hidden": "true", text: key }));
      let label = `${cardName(choice.card)}, ${t("pile.choice", { i: choice.move.slice(1) })}`;
      if (verdict) {
        const symbol = { won: "✓", lost: "✗" }[verdict] || "?";
        top.append(el("span", { class: `verdict ${verdict}`, title: t(`verdict.${verdict}`) },
          el("span", { class: "sym", "aria-hidden": "true", text: symbol }),
          el("span", { class: "word", text: t(`verdict.${verdict}`) })));
        label += `, ${t(`verdict.${verdict}`)}`;
      }
      top.setAttribute("aria-label", label);
    }
  });
  fanPiles(tableau, fit, bottom);

  for (const sign of terrace.querySelectorAll(":scope > .strip-more")) sign.remove();
  reserve.onscroll = null;
  if (fit.terrace.scrolled) {
    reserve.dataset.count = String(s.reserve.length);
    reserve.scrollTop = scrolledTo ?? reserve.scrollHeight;
    markStrip(reserve, terrace, fit.terrace, fit.cwTop * RATIO);
  } else {
    terrace.style.removeProperty("--scroll-room");
  }
  if (refocus) {
    const again = board.querySelector(`[data-pile="${refocus}"]`);
    if (again && document.activeElement !== again) again.focus({ preventScroll: true });
  }
  // The page-load benchmark (bench/page.py) times the first paint of a card.
  const first = board.querySelector(".tpile .card .rank");
  if (first && !first.hasAttribute("elementtiming")) first.setAttribute("elementtiming", "first-card");

  // Movable cards and the fan of each pile.
  for (const [pile, info] of Object.entries(sources)) {
    const node = board.querySelector(`[data-pile="${pile}"]`);
    const card = node && topCard(node);
    if (card && card.dataset.card === info.card) card.classList.add("movable");
  }
}

// The card a foundation takes next, in words (it is read out in the pile's
// name): "queen of hearts", or "red queen" ("Dame in Rot").
function nextText(badge) {
  if (badge.suit) return cardName(badge.next + badge.suit);
  return t(`pile.colourRank.${badge.colour}`, { rank: rankName(badge.next) });
}

function makeBadge(badge) {
  if (badge.complete) return el("span", { class: "badge done", text: "✓" });
  const node = el("span", { class: `badge ${badge.colour || "suit"}` });
  node.append(el("span", { class: "rank", text: rankLabel(badge.next) }));
  if (badge.suit) node.append(suitIcon(badge.suit, "pip"));
  else node.append(el("span", { class: `dot ${badge.colour}`, text: t(`badge.${badge.colour}`) }));
  return node;
}

export function topCard(pileNode) {
  const cards = pileNode.querySelectorAll(":scope > .card");
  return cards.length ? cards[cards.length - 1] : null;
}

export function renderCounters(node, game) {
  const c = game.counters;
  const items = [
    ["counter.base", c.base_rank ? rankLabel(c.base_rank) : "?", "base"],
    ["counter.foundations", `${c.foundation_cards}/${c.total_cards}`, "foundations"],
    ["counter.terrace", c.reserve, "reserve"],
    ["counter.stock", c.stock, "stock"],
    ["counter.waste", c.waste, "waste"],
    ["counter.tableau", c.tableau, "tableau"],
    ["counter.moves", c.moves, "moves"],
  ];
  // (the passes through the stock left, under rules that give any in play:
  // none where no card is left to draw, whatever the option says, as
  // "Redeals left 9" said under a terrace at its largest)
  if (game.redeals_in_play) items.splice(4, 0, ["counter.redeals", c.redeals_left, "redeals"]);
  node.replaceChildren(
    ...items.map(([key, value, name]) =>
      el("div", { class: "counter", "data-counter": name },
        el("span", { class: "label", text: t(key) }), el("span", { class: "value", text: typeof value === "number" ? count(value) : String(value) })))
  );
}
