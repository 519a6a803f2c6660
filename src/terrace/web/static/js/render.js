// Drawing the board from the game JSON. The page only draws what the server
// says; it knows no rules.

import { t, rankLabel, cardLabel, cardName } from "./i18n.js";

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

export function makeCard(code) {
  const red = code[1] === "H" || code[1] === "D";
  const rank = rankLabel(code[0]);
  const card = el("div", {
    class: `card face ${red ? "red" : "black"}${rank.length > 1 ? " wide" : ""}`,
    "data-card": code,
    role: "img",
    "aria-label": cardName(code),
  });
  const index = el("div", { class: "idx" }, el("span", { class: "rank", text: rank }), suitIcon(code[1], "pip"));
  const corner = el("div", { class: "idx corner" }, el("span", { class: "rank", text: rank }), suitIcon(code[1], "pip"));
  card.append(index, suitIcon(code[1], "big"), corner);
  return card;
}

function makeBack() {
  return el("div", { class: "card back", "aria-hidden": "true" });
}

function pileLabel(name, cards, extra = "") {
  const top = cards.length ? t("pile.top", { card: cardName(cards[cards.length - 1]) }) : t("pile.empty");
  return [name, top, cards.length > 1 ? t("pile.cards", { n: cards.length }) : "", extra].filter(Boolean).join(", ");
}

// The board's columns and card width for the space available.
export function fitBoard(board, game) {
  const o = game.options;
  const foundations = 4 * o.decks;
  const portrait = window.innerWidth < window.innerHeight * 0.8;
  const rows = Math.ceil(foundations / (portrait ? Math.max(4, o.piles - 2) : 8));
  const perRow = Math.ceil(foundations / rows);
  const cols = Math.max(o.piles, 2 + perRow);
  const width = board.clientWidth;
  const top = board.getBoundingClientRect().top + window.scrollY;
  const height = Math.max(window.innerHeight - top - 12, 300);
  const gap = 0.12;
  const byWidth = width / (cols + (cols - 1) * gap + 0.3);
  const byHeight = height / ((rows + 1 + 1) * 1.4 + 3 * 1.4 * 0.5 + 0.8);
  const cw = Math.max(30, Math.min(byWidth, Math.max(byHeight, byWidth * 0.55), 240));
  board.style.setProperty("--cw", `${cw.toFixed(2)}px`);
  board.style.setProperty("--cols", String(cols));
  board.style.setProperty("--frow", String(perRow));
  board.classList.toggle("compact", cw < 64);
  return { cw, ch: cw * 1.4, cols };
}

export function renderBoard(board, game, view) {
  const { cw, ch } = fitBoard(board, game);
  const s = game.state;
  const sources = game.sources || {};
  const choices = new Map((game.choices || []).map((c) => [c.pile, c]));
  board.replaceChildren();
  board.classList.toggle("choosing", game.status === "choosing");
  board.classList.toggle("replay", Boolean(game.replay));

  // Top row: stock, waste, foundations.
  const stockCount = s.stock;
  const stock = el("div", {
    class: `pile stock${game.draw ? " live" : ""}`,
    "data-pile": "stock",
    tabindex: "0",
    role: "button",
    "aria-label": stockCount ? t("pile.stock", { n: stockCount }) : t("pile.stockEmpty"),
  });
  if (stockCount) stock.append(makeBack(), el("span", { class: "count", text: String(stockCount) }));
  else stock.append(el("span", { class: "slot-mark", text: game.draw ? "↺" : "∅" }));

  const waste = el("div", {
    class: "pile waste",
    "data-pile": "waste",
    tabindex: "0",
    role: "button",
    "aria-label": pileLabel(t("pile.waste", { n: s.waste.length }), s.waste),
  });
  s.waste.slice(-3).forEach((code, i, shown) => {
    const card = makeCard(code);
    card.style.setProperty("--i", String(i - shown.length + 1));
    waste.append(card);
  });
  if (s.waste.length) waste.append(el("span", { class: "count", text: String(s.waste.length) }));

  const foundations = el("div", { class: "foundations" });
  s.foundations.forEach((cards, i) => {
    const name = `f${i + 1}`;
    const badge = game.foundations[i];
    let extra;
    if (badge.complete) extra = t("pile.complete");
    else if (!cards.length) extra = badge.next ? t("pile.waits", { rank: rankLabel(badge.next) }) : "";
    else extra = t("pile.next", { what: nextText(badge) });
    const pile = el("div", {
      class: `pile foundation${cards.length ? "" : " empty"}`,
      "data-pile": name,
      tabindex: "0",
      role: "button",
      "aria-label": pileLabel(t("pile.foundation", { i: i + 1 }), cards, extra),
    });
    if (cards.length) {
      if (cards.length > 1) pile.append(el("div", { class: "under" }));
      pile.append(makeCard(cards[cards.length - 1]));
      pile.append(makeBadge(badge));
    } else {
      pile.append(el("span", { class: "waits", text: badge.next ? rankLabel(badge.next) : "?" }));
    }
    foundations.append(pile);
  });
  const top = el("div", { class: "row top" }, stock, waste, foundations);

  // The terrace, fanned so that every card can be read.
  const reserve = el("div", {
    class: `pile reserve${s.reserve.length ? "" : " empty"}`,
    "data-pile": "reserve",
    tabindex: "0",
    role: "button",
    "aria-label": pileLabel(t("pile.reserve", { n: s.reserve.length }), s.reserve),
  });
  const available = board.clientWidth - cw;
  const step = s.reserve.length > 1 ? Math.min(cw * 0.62, available / (s.reserve.length - 1)) : 0;
  reserve.style.setProperty("--rstep", `${step.toFixed(2)}px`);
  reserve.style.setProperty("--rwidth", `${(cw + step * Math.max(s.reserve.length - 1, 0)).toFixed(2)}px`);
  s.reserve.forEach((code, i) => {
    const card = makeCard(code);
    card.style.setProperty("--i", String(i));
    if (i === s.reserve.length - 1) card.classList.add("exposed");
    reserve.append(card);
  });
  const terrace = el("div", { class: "row terrace" }, reserve);

  // The tableau.
  const tableau = el("div", { class: "row tableau" });
  s.tableau.forEach((cards, i) => {
    const name = `t${i + 1}`;
    const choice = choices.get(name);
    const pile = el("div", {
      class: `pile tpile${cards.length ? "" : " empty"}`,
      "data-pile": name,
      tabindex: "0",
      role: "button",
      "aria-label": pileLabel(t("pile.tableau", { i: i + 1 }), cards),
    });
    cards.forEach((code, j) => {
      const card = makeCard(code);
      card.style.setProperty("--i", String(j));
      pile.append(card);
    });
    if (choice) {
      pile.classList.add("candidate");
      const top = pile.lastElementChild;
      top.classList.add("choice");
      top.append(el("span", { class: "choice-key", text: choice.move.slice(1) }));
      let label = `${cardName(choice.card)}, ${t("pile.choice", { i: choice.move.slice(1) })}`;
      const verdict = view.verdicts && view.verdicts[choice.move];
      if (verdict) {
        const symbol = { won: "✓", lost: "✗" }[verdict] || "?";
        top.append(el("span", { class: `verdict ${verdict}`, title: t(`verdict.${verdict}`) },
          el("span", { class: "sym", "aria-hidden": "true", text: symbol }),
          el("span", { class: "word", text: t(`verdict.${verdict}`) })));
        label += `, ${t(`verdict.${verdict}`)}`;
      }
      top.setAttribute("aria-label", label);
    }
    tableau.append(pile);
  });

  board.append(top, terrace, tableau);

  // Movable cards and the fan of each pile.
  for (const [pile, info] of Object.entries(sources)) {
    const node = board.querySelector(`[data-pile="${pile}"]`);
    const card = node && topCard(node);
    if (card && card.dataset.card === info.card) card.classList.add("movable");
  }
  const tableauTop = tableau.getBoundingClientRect().top + window.scrollY;
  const room = Math.max(window.innerHeight - tableauTop - 10, ch * 2.2);
  for (const pile of tableau.children) {
    const n = pile.children.length - (pile.classList.contains("candidate") ? 0 : 0);
    const fan = n > 1 ? Math.max(ch * 0.2, Math.min(ch * 0.27, (room - ch) / (n - 1))) : 0;
    pile.style.setProperty("--fan", `${fan.toFixed(2)}px`);
    pile.style.setProperty("--h", `${(ch + fan * Math.max(n - 1, 0)).toFixed(2)}px`);
  }
}

function nextText(badge) {
  const rank = rankLabel(badge.next);
  if (badge.suit) return cardLabel(badge.next + badge.suit);
  return `${t(`colour.${badge.colour}`)} ${rank}`;
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
  node.replaceChildren(
    ...items.map(([key, value, name]) =>
      el("div", { class: "counter", "data-counter": name },
        el("span", { class: "label", text: t(key) }), el("span", { class: "value", text: String(value) })))
  );
}
