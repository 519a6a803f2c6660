// What a move, an undo, a redo or auto-play did, in words for a screen
// reader (the board is drawn anew, and the prompt does not change with a move).

import { cardName, fromPlace, getLanguage, placeName, t } from "./i18n.js";
import { say } from "./state.js";

// What a move, an undo, a redo or auto-play did, in words, for a screen
// reader: the board is drawn anew, and the prompt does not change with a
// move.
export function sayMotions(motions, game) {
  if (!motions.length) return;
  // The base card chosen (or the choice redone): its card and what it means,
  // not the count of the cards that moved with it.
  // (only the choice itself, played or redone: its card goes from a pile to
  // the first foundation; an undo back to it moves other cards)
  // (a replay's moves are the whole game's: the moves played are those up to its step)
  const played = game.replay ? game.step : game.moves;
  const last = game.last_played;
  const chosen = played === 1 && last !== null && last[0] === "c" && motions[0].from[0] === "t" && motions[0].to === "f1"
    && !(game.can_redo && motions.length === 1);  // (a first move f1tN taken back looks alike, alone)
  if (game.status !== "choosing" && chosen) {
    say(t("said.chosen", { card: cardName(motions[0].card) }));
    return;
  }
  // The choice taken back (undone, or a replay stepped back to it): the base
  // card by name, not "8 cards moved" (the terrace's and the stock's cards
  // went back with it); the prompt then says to choose again.
  const unchosen = game.status === "choosing" && motions.find((m) => m.from === "f1");
  if (unchosen) {
    say(t("said.unchosen", { card: cardName(unchosen.card) }));
    return;
  }
  // The waste turned over (a redeal), or that taken back: every card from
  // one to the other (heard as "90 cards moved").
  const all = (from, to) => motions.length > 1 && motions.every((m) => m.from === from && m.to === to);
  if (all("waste", "stock") || all("stock", "waste")) {
    say(t(motions[0].to === "stock" ? "said.redeal" : "said.unredeal", { n: motions.length }));
    return;
  }
  say(motions.length > SAID_ONE_BY_ONE ? saidByPlace(motions) : motions.map(saidMotion).join(" "));
}

// Up to SAID_ONE_BY_ONE cards moved at once are said one by one; more
// (auto-play, its undo, a restart, a replay's jump) by where they went,
// each place once, the first SAID_NAMED cards of each by name: "5 cards to
// the foundations: 7 of hearts, 8 of hearts, …". A screen reader heard
// "5 cards moved", and nothing of which cards went where.
const SAID_ONE_BY_ONE = 3;
const SAID_NAMED = 6;

function saidMotion(m) {
  if (m.from === "stock" && m.to === "waste") return t("said.drawn", { card: cardName(m.card) });
  if (m.to === "stock") return t("said.back", { card: cardName(m.card) });
  return t("said.move", { card: cardName(m.card), from: fromPlace(m.from), to: placeName(m.to) });
}

function saidByPlace(motions) {
  const places = new Map();  // (the foundations as one place, the piles as one)
  for (const m of motions) {
    const place = m.to[0] === "f" || m.to[0] === "t" ? m.to[0] : m.to;
    places.set(place, [...(places.get(place) || []), m]);
  }
  const list = new Intl.ListFormat(getLanguage(), { type: "conjunction" });
  return [...places].map(([place, moved]) => {
    if (moved.length === 1) return saidMotion(moved[0]);
    const names = moved.slice(0, SAID_NAMED).map((m) => cardName(m.card));
    if (moved.length > SAID_NAMED) names.push(t("said.more", { n: moved.length - SAID_NAMED }));
    return t(`said.many.${place}`, { n: moved.length, cards: list.format(names) });
  }).join(" ");
}
