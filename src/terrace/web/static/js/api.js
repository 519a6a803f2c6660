// The JSON API of docs/api.md. Every call resolves to {ok, status, data}.
// A call that fails, whatever the way, has the player's words for it in
// data.error: the server's refusal, or the page's own when the server did
// not answer (status 0), answered with something that is not its JSON (a
// proxy's error page), or sent a game the page cannot draw.

import { getLanguage, t } from "./i18n.js";
import { choiceKeys } from "./render.js";
import { touchFirst } from "./state.js";

// The refusals of a request the server could not read (its head too
// large, not HTTP): made before the request's language was known, so the
// page says them in its own words.
const UNREAD = new Set(["head-too-large", "request-malformed"]);

// The message for a failed call, in the page's language. A 400 or 431
// that is not the app's JSON comes from a web server before the app, which
// refuses a request it will not read, as one whose head is too large; so
// does one of UNREAD: trying again cannot help.
function failure(status, data) {
  if (status === 0) return t("error.network");
  const object = Boolean(data) && typeof data === "object";
  if (object && UNREAD.has(data.code)) return t("error.refused", { status });
  if (object && typeof data.error === "string" && data.error) return data.error;
  if (status === 400 || status === 431) return t("error.refused", { status });
  return t("error.server", { status });
}

// The engine's refusals whose words name the command line's moves ("choose
// a base card first (c1 to c3)"): the page's player clicks, taps or presses
// a key, and the page says them in its words for that (i18n.js:
// "refusal." and the code), from the refusal's params (the number of
// candidates of the game refused, which the game shown by the time the
// answer comes may not be). The API's JSON and the command line keep the
// engine's words.
const PAGE_WORDS = {
  "choose-first": (params) => {
    const n = params.candidates;
    if (!Number.isInteger(n) || n < 1) return null;
    return t(touchFirst() ? "refusal.choose-first.touch" : "refusal.choose-first", { n, keys: choiceKeys(n) });
  },
};

// `data` (an answer's JSON) with its refusal's words, in `field`, the
// page's own when it has them (the server's, when its params do not fit).
function reworded(data, field) {
  const object = (value) => Boolean(value) && typeof value === "object";
  if (!object(data) || !Object.hasOwn(PAGE_WORDS, data.code) || typeof data[field] !== "string") return data;
  const words = object(data.params) ? PAGE_WORDS[data.code](data.params) : null;
  return words === null ? data : { ...data, [field]: words };
}

// True for a refusal the app itself made (JSON with its refusal code), as
// an unknown game: not a web server's, a proxy's or a network's failure.
export function refusedByApp(result) {
  return !result.ok && result.status !== 0 && Boolean(result.data) && typeof result.data.code === "string";
}

function failed(status, data = null) {
  return { ok: false, status, data: { ...(data && typeof data === "object" ? data : {}), error: failure(status, data) } };
}

// Deal numbers run to 2^63 - 1, past the whole numbers a script's number
// holds exactly (2^53): such a number goes out as a BigInt, written into
// the JSON as its digits, and comes back as one (where the browser lets a
// reviver read a number's own text), so the deal played and shown is the
// one typed, not its neighbour (any whole number past 2^53 is read so: a
// deal number, the last of them that /api/variants publishes).
function writeJSON(value) {
  const big = [];
  const text = JSON.stringify(value, (key, item) => (typeof item === "bigint" ? `\u0000${big.push(item) - 1}\u0000` : item));
  return text.replace(/"\\u0000(\d+)\\u0000"/g, (_, index) => big[Number(index)].toString());
}

function readJSON(text) {
  return JSON.parse(text, (key, item, context) => (
    typeof item === "number" && !Number.isSafeInteger(item)
      && context && /^[0-9]+$/.test(context.source) ? BigInt(context.source) : item));
}

// "?zone=Europe/Berlin": the browser's time zone, where it names one.
function zoneQuery() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return typeof zone === "string" && zone ? `?zone=${encodeURIComponent(zone)}` : "";
}

async function call(method, path, body, extra = {}) {
  const headers = { "Accept-Language": getLanguage() };
  const init = { method, headers, cache: "no-store", ...extra };
  if (method !== "GET") {
    // The server refuses a POST that is not JSON, even an empty one.
    headers["Content-Type"] = "application/json";
    init.body = writeJSON(body ?? {});
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return failed(0);
  }
  let data = null;
  if (response.status !== 204) {
    try {
      data = readJSON(await response.text());
    } catch {
      return failed(response.status, response.ok ? { error: t("error.badAnswer") } : null);
    }
  }
  if (!response.ok) return failed(response.status, reworded(data, "error"));
  return { ok: true, status: response.status, data: reworded(data, "reason") };
}

// A game the page can draw (see game_json in web/view.py); anything else
// from a broken server is refused before the page adopts it.
export function isGame(data) {
  const object = (value) => Boolean(value) && typeof value === "object" && !Array.isArray(value);
  if (!object(data) || typeof data.id !== "string" || typeof data.status !== "string") return false;
  const s = data.state;
  return object(s) && Array.isArray(s.tableau) && Array.isArray(s.foundations) && Array.isArray(s.reserve)
    && Array.isArray(s.waste) && typeof s.stock === "number"
    && object(data.options) && object(data.counters) && object(data.sources)
    && Number.isInteger(data.moves) && Number.isInteger(data.redo) && Array.isArray(data.choices) && Array.isArray(data.foundations);
}

const game = (id) => `/api/games/${encodeURIComponent(id)}`;
// What the page saw of `shown` (a game JSON): a change asked for on it is
// refused (409 conflict) once the game has changed since, even if only an
// undo and another move (the same number of moves) came between.
const seen = (shown) => ({ after: shown.moves, revision: shown.revision });

export const api = {
  variants: () => call("GET", "/api/variants"),
  // (not /api/games/current: a game imported long ago may have that id)
  current: () => call("GET", "/api/current-game"),
  recent: (n = 20) => call("GET", `/api/games?recent=${n}`),
  // signal: an AbortSignal that stops the request (and the server's search
  // for a winnable deal with it) when the player closes the form.
  create: (body, signal = undefined) => call("POST", "/api/games", body, signal ? { signal } : {}),
  get: (id) => call("GET", game(id)),
  position: (id, step) => call("GET", `${game(id)}/position?step=${step}`),
  move: (shown, move) => call("POST", `${game(shown.id)}/moves`, { move, ...seen(shown) }),
  check: (id, move) => call("GET", `${game(id)}/check?move=${encodeURIComponent(move)}`),
  undo: (shown) => call("POST", `${game(shown.id)}/undo`, seen(shown)),
  redo: (shown) => call("POST", `${game(shown.id)}/redo`, seen(shown)),
  restart: (shown) => call("POST", `${game(shown.id)}/restart`, seen(shown)),
  // peek: the assist "Hints may look at face-down cards" is on; signal: an
  // AbortSignal that stops the request (and the server's search with it)
  // when the position changes before the answer comes.
  hint: (shown, peek = false, signal = undefined) => call("POST", `${game(shown.id)}/hint`, { ...seen(shown), peek },
    signal ? { signal } : {}),
  analysis: (shown) => call("POST", `${game(shown.id)}/analysis`, seen(shown)),
  // (the replay's game JSON: an answer about a game another window changed meanwhile is refused 409)
  coach: (shown) => call("POST", `${game(shown.id)}/coach`, { revision: shown.revision }),
  chances: (shown) => call("POST", `${game(shown.id)}/chances`, seen(shown)),
  warn: (shown, move) => call("POST", `${game(shown.id)}/warn`, { move, ...seen(shown) }),
  why: (id, pile, index) => call("GET", `${game(id)}/why?pile=${encodeURIComponent(pile)}${index === null ? "" : `&index=${index}`}`),
  rules: (id) => call("GET", `${game(id)}/rules`),
  // The chart's days are the player's: the browser's time zone goes along
  // (the server's own may be another: a computer played on from a phone).
  stats: () => call("GET", `/api/stats${zoneQuery()}`),
  autoplay: (shown, mode) => call("POST", `${game(shown.id)}/autoplay`, { ...seen(shown), mode }),
  giveUp: (shown) => call("POST", `${game(shown.id)}/give-up`, seen(shown)),
  // keepalive: the report still goes out while the page is being closed.
  time: (id, ms, keepalive = false) => call("POST", `${game(id)}/time`, { ms }, { keepalive }),
};

// What a call that succeeded must have answered: a game (or, for current,
// no content), a hint. A 2xx with anything else is a failure.
const isHint = (data) => Boolean(data) && typeof data === "object" && typeof data.kind === "string";
const ANSWERS = {
  current: (data) => data === null || isGame(data),
  hint: isHint,
};
for (const name of ["create", "get", "position", "move", "undo", "redo", "restart", "autoplay", "giveUp"]) ANSWERS[name] = isGame;
for (const [name, valid] of Object.entries(ANSWERS)) {
  const ask = api[name];
  api[name] = async (...args) => {
    const result = await ask(...args);
    if (!result.ok || valid(result.data)) return result;
    return failed(result.status, { error: t("error.badAnswer") });
  };
}
