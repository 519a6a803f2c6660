// The JSON API of docs/api.md. Every call resolves to {ok, status, data}.

import { getLanguage } from "./i18n.js";

async function call(method, path, body, extra = {}) {
  const headers = { "Accept-Language": getLanguage() };
  const init = { method, headers, cache: "no-store", ...extra };
  if (method !== "GET") {
    // The server refuses a POST that is not JSON, even an empty one.
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body ?? {});
  }
  try {
    const response = await fetch(path, init);
    const data = response.status === 204 ? null : await response.json();
    return { ok: response.ok, status: response.status, data };
  } catch (error) {
    return { ok: false, status: 0, data: { error: String(error) } };
  }
}

const game = (id) => `/api/games/${encodeURIComponent(id)}`;

export const api = {
  variants: () => call("GET", "/api/variants"),
  current: () => call("GET", "/api/games/current"),
  recent: (n = 20) => call("GET", `/api/games?recent=${n}`),
  create: (body) => call("POST", "/api/games", body),
  get: (id) => call("GET", game(id)),
  position: (id, step) => call("GET", `${game(id)}/position?step=${step}`),
  move: (id, move, after) => call("POST", `${game(id)}/moves`, { move, after }),
  check: (id, move) => call("GET", `${game(id)}/check?move=${encodeURIComponent(move)}`),
  undo: (id, after) => call("POST", `${game(id)}/undo`, { after }),
  redo: (id, after) => call("POST", `${game(id)}/redo`, { after }),
  restart: (id, after) => call("POST", `${game(id)}/restart`, { after }),
  // peek: the assist "Hints may look at face-down cards" is on.
  hint: (id, after, peek = false) => call("POST", `${game(id)}/hint`, { after, peek }),
  analysis: (id) => call("GET", `${game(id)}/analysis`),
  coach: (id) => call("POST", `${game(id)}/coach`, {}),
  chances: (id, after) => call("POST", `${game(id)}/chances`, { after }),
  warn: (id, move, after) => call("POST", `${game(id)}/warn`, { move, after }),
  why: (id, pile, index) => call("GET", `${game(id)}/why?pile=${encodeURIComponent(pile)}${index === null ? "" : `&index=${index}`}`),
  rules: (id) => call("GET", `${game(id)}/rules`),
  stats: () => call("GET", "/api/stats"),
  autoplay: (id, after, mode) => call("POST", `${game(id)}/autoplay`, { after, mode }),
  giveUp: (id, after) => call("POST", `${game(id)}/give-up`, { after }),
  // keepalive: the report still goes out while the page is being closed.
  time: (id, ms, keepalive = false) => call("POST", `${game(id)}/time`, { ms }, { keepalive }),
};
