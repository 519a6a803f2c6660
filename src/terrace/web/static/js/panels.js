// Dialogs: new game, settings, rules, statistics, end of game. What a
// dialog does to the game comes in as callbacks (`actions`, from main.js).

import { api } from "./api.js";
import { t, count, getLanguage, getLocale, sentence } from "./i18n.js";
import { el } from "./render.js";
import { app, closedByBack, say, toast } from "./state.js";
import { endScreen } from "./endgame.js";
import { groupTitle } from "./groups.js";
import { formatDuration } from "./timer.js";
import { focusBoard } from "./keyboard.js";

const $ = (selector) => document.querySelector(selector);
const SVG = "http://www.w3.org/2000/svg";

// The dialog is named by its heading (index.html: aria-labelledby), so a
// screen reader says which dialog opened.
function open(dialog, title, ...content) {
  const close = el("button", { type: "button", class: "close", "aria-label": t("btn.close"), text: "×", onclick: () => dialog.close() });
  dialog.replaceChildren(el("header", {}, el("h2", { id: `${dialog.id}-title`, text: title }), close), ...content.filter(Boolean));
  if (!dialog.open) {
    dialog.showModal();
    closedByBack(dialog);
  }
}

// ---------------------------------------------------------------- new game

// A limit of a rule option as the server publishes it: a number, or
// `{constant, terms: {option: factor}}` computed from the other options.
function limit(spec, key, fields) {
  const from = spec[`${key}_from`];
  if (!from) return spec[key];
  return Object.entries(from.terms).reduce((sum, [name, factor]) => sum + factor * Number(fields[name].value), from.constant);
}

// What is wrong with a number field the browser finds invalid, as the page
// says it ("" for a valid field).
function outOfRange(input, field) {
  input.setCustomValidity("");
  const { validity } = input;
  if (validity.rangeUnderflow) return t("new.tooLow", { field, min: input.min });
  // (the browser compares as floating point: one past a limit beyond 2^53 is equal to it there)
  const exact = /^[0-9]+$/;
  const over = exact.test(input.value) && exact.test(input.max) && BigInt(input.value) > BigInt(input.max);
  if (validity.rangeOverflow || over) return t("new.tooHigh", { field, max: input.max });
  if (validity.stepMismatch) return t("new.needsNumber", { field });
  return "";
}

export async function openNewGame(actions) {
  const { newGame, loadVariants } = actions;
  const dialog = $("#dlg-new");
  if (!app.variants && loadVariants) {
    const list = await loadVariants();
    // (in the form's place, with Try again, where a toast said it for 4.5 s)
    if (!list.ok) {
      const words = t("new.failed", { error: sentence(list.data.error) });
      return openFailed(dialog, t("new.title"), words, () => openNewGame(actions));
    }
  }
  const info = app.variants;
  if (!info) return;
  const OPTION_ORDER = Object.keys(info.options);
  const current = app.game && !app.game.replay ? app.game : null;
  const select = el("select", { id: "new-variant", name: "variant" },
    ...info.variants.map((v) => el("option", { value: v.name, text: v.title })));
  select.value = current ? current.variant : info.default.variant;
  const fields = {};
  const grid = el("div", { class: "options" });
  for (const name of OPTION_ORDER) {
    const spec = info.options[name];
    let input;
    if (spec.type === "int") input = el("input", { type: "number", min: spec.min, max: spec.max, step: 1, id: `opt-${name}`, name });
    else if (spec.type === "bool") input = el("input", { type: "checkbox", id: `opt-${name}`, name });
    else input = el("select", { id: `opt-${name}`, name }, ...spec.choices.map((c) => el("option", { value: c, text: t(`choice.${c}`) })));
    fields[name] = input;
    grid.append(el("label", { class: `field ${spec.type}`, for: `opt-${name}` }, el("span", { text: t(`opt.${name}`) }), input));
  }
  const limits = () => {
    for (const name of OPTION_ORDER) {
      if (info.options[name].type !== "int") continue;
      fields[name].min = limit(info.options[name], "min", fields);
      fields[name].max = limit(info.options[name], "max", fields);
    }
  };
  const fill = (options) => {
    for (const name of OPTION_ORDER) {
      if (fields[name].type === "checkbox") fields[name].checked = Boolean(options[name]);
      else fields[name].value = String(options[name]);
    }
    limits();
  };
  grid.addEventListener("input", limits);
  const presetOf = (name) => info.variants.find((v) => v.name === name);
  fill(current ? current.options : presetOf(select.value).rules);
  select.addEventListener("change", () => fill(presetOf(select.value).rules));
  const deal = el("input", { type: "number", min: info.deal_numbers.min, max: info.deal_numbers.max, step: 1,
    id: "new-deal", name: "deal", inputmode: "numeric" });
  const winnable = el("input", { type: "checkbox", id: "new-winnable", name: "winnable" });
  // (as the game on the table was started, as its variant and rules: left
  // unticked, Start after a winnable-only game dealt one that may be lost)
  winnable.checked = Boolean(current && current.winnable_only);
  const error = el("p", { class: "form-error", role: "alert" });
  // (the search for a winnable deal, counted in its seconds: in the place
  // of the error, in the colour of a note, no live region; in the form's
  // alert it was red as an error, and a screen reader was cut off by it
  // every second of the search, up to its 10 s)
  const status = el("p", { class: "form-status", hidden: true });
  const ruleOptions = el("details", { "aria-labelledby": "new-options" },
    el("summary", { id: "new-options", text: t("new.options") }), grid);
  // (rules of the game's own, which Start deals again, are in sight: folded,
  // the form showed only the preset's description, "two packs, nine piles")
  const preset = current && presetOf(current.variant);
  if (preset && OPTION_ORDER.some((name) => String(current.options[name]) !== String(preset.rules[name]))) {
    ruleOptions.open = true;
  }
  const form = el("form", { method: "dialog", class: "new-game", novalidate: true },
    el("label", { class: "field", for: "new-variant" }, el("span", { text: t("new.variant") }), select),
    el("label", { class: "field", for: "new-deal" }, el("span", { text: t("new.deal") }), deal),
    el("p", { class: "help", text: t("new.dealHelp") }),
    el("label", { class: "field bool", for: "new-winnable" }, el("span", { text: t("new.winnable") }), winnable),
    el("p", { class: "help", text: t("new.winnableHelp") }),
    // (a group a screen reader names by its summary, which it does not do by itself)
    ruleOptions,
    // (the error beside the Start button, both in sight at the dialog's foot)
    el("div", { class: "buttons" }, error, status,
      el("button", { type: "submit", class: "primary", id: "new-start", text: t("btn.start") })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    // A number field left empty (or not a number) is the player's to fix,
    // never a 0: say which one, open the options and put the focus on it.
    const needsNumber = (input, label) => {
      const details = input.closest("details");
      if (details) details.open = true;
      input.setAttribute("aria-invalid", "true");
      input.addEventListener("input", () => input.removeAttribute("aria-invalid"), { once: true });
      error.textContent = t("new.needsNumber", { field: t(label) });
      input.focus();
    };
    const wrong = OPTION_ORDER.find((name) => fields[name].type === "number"
      && (fields[name].value.trim() === "" || fields[name].validity.badInput));
    if (wrong || deal.validity.badInput) {
      needsNumber(wrong ? fields[wrong] : deal, wrong ? `opt.${wrong}` : "new.deal");
      return;
    }
    error.textContent = "";
    // Out of range: the browser says so, once the field can be seen, in
    // the page's words (its own are in the language of the browser).
    const numbers = [[deal, "new.deal"], ...OPTION_ORDER.filter((name) => fields[name].type === "number")
      .map((name) => [fields[name], `opt.${name}`])];
    for (const [input, label] of numbers) input.setCustomValidity(outOfRange(input, t(label)));
    if (!form.checkValidity()) {
      form.querySelector("details").open = true;
      form.reportValidity();
      return;
    }
    // A number in digits, as the command line and the API take one: the
    // browser takes "1e3" as 1000 and "3.0" as 3, which `terrace deal -n`
    // and a request refuse (the form started deal 1000).
    const written = numbers.find(([input]) => input.value !== "" && !/^-?[0-9]+$/.test(input.value));
    if (written) {
      needsNumber(...written);
      return;
    }
    const options = {};
    for (const name of OPTION_ORDER) {
      const input = fields[name];
      options[name] = input.type === "checkbox" ? input.checked : input.type === "number" ? Number(input.value) : input.value;
    }
    const body = { variant: select.value, options, winnable: winnable.checked };
    // (digits as typed, exactly: a number past 2^53 would become its neighbour)
    if (deal.value.trim() !== "") body.deal_number = /^[0-9]+$/.test(deal.value) ? BigInt(deal.value) : Number(deal.value);
    const button = $("#new-start");
    const closer = dialog.querySelector("button.close");
    // Start is off while the game is made (seconds, for a winnable deal):
    // the focus it had goes to the dialog's close button meanwhile, not to
    // the page's body behind the dialog, and comes back if the dialog stays.
    const hadFocus = document.activeElement === button;
    button.disabled = true;
    if (hadFocus) closer.focus();
    // (it takes seconds on some rules: the form counts them from the
    // request, not from Start, which may first ask whether to leave the
    // game in play, and says the server's limit, which really stops the
    // search)
    let counting = null;
    const searching = () => {
      if (!body.winnable) return;
      const began = performance.now();
      const number = (value) => value.toLocaleString(getLanguage());
      const tell = () => {
        status.textContent = t("new.searching", {
          elapsed: number(Math.floor((performance.now() - began) / 1000)), seconds: number(info.winnable_seconds),
        });
      };
      tell();
      [error.hidden, status.hidden] = [true, false];
      say(status.textContent);  // (heard once, as it starts)
      counting = setInterval(tell, 1000);
    };
    // Closing the form stops the request: the server then stops its search
    // (a winnable deal: seconds of a solver process) and starts no game.
    const stop = new AbortController();
    const abort = () => stop.abort();
    dialog.addEventListener("close", abort);
    const result = await newGame(body, () => dialog.open, stop.signal, searching);
    if (counting !== null) clearInterval(counting);
    [error.hidden, status.hidden] = [false, true];
    dialog.removeEventListener("close", abort);
    button.disabled = false;
    if (result.ok) {
      dialog.close();
      focusBoard();
      // Winnable deals only, from a number: the first deal from it on that
      // the solver proves winnable starts, said when it is not the one asked for.
      const started = result.data.deal_number;
      if (body.winnable && body.deal_number !== undefined && String(started) !== String(body.deal_number)) {
        toast(t("new.winnableFrom", { asked: String(body.deal_number), deal: String(started) }), "info");
      }
    } else {
      error.textContent = sentence(result.data.error);
    }
    // The Leave question, answered No, gives the focus back to Start, which
    // was disabled then: it falls to the page's body, behind this dialog.
    if (dialog.open && (!dialog.contains(document.activeElement) || (hadFocus && document.activeElement === closer))) {
      button.focus();
    }
  });
  open(dialog, t("new.title"), form);
}

// ---------------------------------------------------------------- settings

export function openSettings(actions) {
  const { changeLanguage, changeSettings } = actions;
  const dialog = $("#dlg-settings");
  const radio = (value) => {
    const input = el("input", { type: "radio", name: "click", value, id: `click-${value}` });
    input.checked = app.settings.click === value;
    input.addEventListener("change", () => changeSettings({ click: value }));
    // (a touch screen's words, as its prompt has: "double-tap it to send it home")
    const touch = window.matchMedia("(pointer: coarse)").matches ? ".touch" : "";
    return el("label", { class: "choice", for: `click-${value}` }, input, el("span", { text: t(`settings.${value}${touch}`) }));
  };
  const animate = el("input", { type: "checkbox", id: "set-animate" });
  animate.checked = app.settings.animate;
  animate.addEventListener("change", () => changeSettings({ animate: animate.checked }));
  const autoplay = (value) => {
    const input = el("input", { type: "radio", name: "autoplay", value, id: `autoplay-${value}` });
    input.checked = app.settings.autoplay === value;
    input.addEventListener("change", () => changeSettings({ autoplay: value }));
    return el("label", { class: "choice", for: `autoplay-${value}` }, input, el("span", { text: t(`settings.autoplay.${value}`) }));
  };
  const timer = el("input", { type: "checkbox", id: "set-timer" });
  timer.checked = app.settings.timer;
  timer.addEventListener("change", () => changeSettings({ timer: timer.checked }));
  const colours = el("input", { type: "checkbox", id: "set-colours", "aria-describedby": "set-colours-help" });
  colours.checked = app.settings.fourColours;
  colours.addEventListener("change", () => changeSettings({ fourColours: colours.checked }));
  const deadEnd = el("input", { type: "checkbox", id: "set-dead" });
  deadEnd.checked = app.settings.deadEnd;
  deadEnd.addEventListener("change", () => changeSettings({ deadEnd: deadEnd.checked }));
  // One checkbox per assist, in the one fieldset #assists.
  const assist = (name) => {
    const input = el("input", { type: "checkbox", id: `assist-${name}`, name });
    input.checked = Boolean(app.settings.assists[name]);
    input.addEventListener("change", () => changeSettings({ assists: { ...app.settings.assists, [name]: input.checked } }));
    return el("label", { class: "field bool", for: `assist-${name}` }, el("span", { text: t(`assist.${name}`) }), input);
  };
  const noChoice = app.game && !app.game.replay && app.game.options && app.game.options.candidates === 0;
  const lang = el("select", { id: "set-lang" }, el("option", { value: "en", lang: "en", text: "English" }), el("option", { value: "de", lang: "de", text: "Deutsch" }));
  lang.value = getLanguage();
  // The dialog is written again in the new language: the focus stays on
  // the language (the list it was on is gone).
  lang.addEventListener("change", () => {
    changeLanguage(lang.value);
    openSettings(actions);
    $("#set-lang").focus();
  });
  open(dialog, t("settings.title"),
    el("fieldset", {}, el("legend", { text: t("settings.click") }), radio("single"), radio("double")),
    el("fieldset", {}, el("legend", { text: t("settings.autoplay") }), autoplay("off"), autoplay("finish"), autoplay("safe"),
      el("p", { class: "help", text: t("settings.autoplay.help") })),
    el("label", { class: "field bool", for: "set-animate" }, el("span", { text: t("settings.animate") }), animate),
    el("label", { class: "field bool", for: "set-timer" }, el("span", { text: t("settings.timer") }), timer),
    el("label", { class: "field bool", for: "set-colours" }, el("span", { text: t("settings.fourColours") }), colours),
    el("p", { class: "help", id: "set-colours-help", text: t("settings.fourColours.help") }),
    el("label", { class: "field bool", for: "set-dead" }, el("span", { text: t("settings.deadEnd") }), deadEnd),
    el("fieldset", { id: "assists" }, el("legend", { text: t("settings.assists") }),
      assist("verdicts"),
      ...(noChoice ? [el("p", { class: "help", id: "assist-no-choice", text: t("assist.noChoice") })] : []),
      assist("peek"),
      assist("warn"),
      el("p", { class: "help", text: t("settings.assists.help") })),
    el("label", { class: "field", for: "set-lang" }, el("span", { text: t("label.language") }), lang),
    el("h3", { text: t("settings.keys") }), el("p", { class: "keys", text: t("keys.text") }));
}

// ---------------------------------------------------------------- statistics

function percent(value) {
  // One decimal, so that 1 win in 6 reads 16.7%, not 17%; never 100%
  // unless every game was won, nor 0% unless none was (as terrace stats).
  if (value === null || value === undefined) return "–";
  // (rounded half up from 9 decimals, as terrace stats rounds: 201 wins in
  // 400 are 50.25%, held just under it, 502.49999999999994 tenths)
  const shown = Math.round(Number((value * 1000).toFixed(9))) / 10;
  // (written as each language writes it: 16.7% in English, 16,7 % in German)
  const sign = getLanguage() === "de" ? " %" : "%";
  const text = (n) => n.toLocaleString(getLanguage(), { maximumFractionDigits: 1 }) + sign;
  if (value < 1 && shown >= 100) return `>${text(99.9)}`;
  if (value > 0 && shown <= 0) return `<${text(0.1)}`;
  return text(shown);
}

// (as the game's clock and the win screen show a time, and terrace stats prints it)
function duration(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  return formatDuration(seconds * 1000);
}

// The columns of the statistics table: heading key and the value of a block.
const STATS_COLUMNS = [
  ["played", (b) => count(b.played)],
  ["won", (b) => count(b.won)],
  ["lost", (b) => count(b.lost)],
  ["abandoned", (b) => count(b.abandoned)],
  ["winRate", (b) => percent(b.win_rate)],
  ["streak", (b) => count(b.current_streak)],
  ["bestStreak", (b) => count(b.best_streak)],
  ["losingStreak", (b) => count(b.current_losing_streak)],
  ["worstStreak", (b) => count(b.longest_losing_streak)],
  ["fewest", (b) => (b.fewest_moves === null || b.fewest_moves === undefined ? "–" : count(b.fewest_moves))],
  ["fastest", (b) => duration(b.fastest_seconds)],
  ["hints", (b) => count(b.hints)],
  ["undos", (b) => count(b.undos)],
  ["assisted", (b) => count(b.assisted)],
];

function statsRow(name, block, variant) {
  return el("tr", { "data-variant": variant }, el("th", { scope: "row", text: name }),
    ...STATS_COLUMNS.map(([key, value]) => el("td", { "data-stat": key, text: count(value(block) ?? "–") })));
}

function svgNode(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

// Results over time: per day (won above the line, lost below) when the store
// gives days, else per recent game.
function chart(stats, games) {
  const days = (stats.overall && stats.overall.days) || [];
  const bars = days.length
    ? days.slice(-60).map((d) => ({ won: d.won, lost: d.lost + (d.abandoned || 0),
      label: new Date(`${d.date}T12:00:00`).toLocaleDateString(getLocale(), { dateStyle: "medium" }) }))
    : games.filter((g) => g.status === "won" || g.status === "lost").reverse()
      .map((g) => ({ won: g.status === "won" ? 1 : 0, lost: g.status === "lost" ? 1 : 0,
        label: `${g.title} ${g.deal_number}` }));
  // (nothing won or lost yet: no chart, where an axis alone stood in 100 px of blank)
  if (!bars.some((b) => b.won || b.lost)) return null;
  const most = Math.max(1, ...bars.map((b) => Math.max(b.won, b.lost)));
  const width = Math.max(bars.length, 1) * 14 + 8;
  // Each bar is an image of its own, named with its day and figures: a
  // screen reader heard the chart's name alone (one image), its figures
  // were in tooltips a mouse alone shows.
  const svg = svgNode("svg", { viewBox: `0 0 ${width} 60`, class: "chart", role: "group", "aria-label": t("stats.chart") });
  svg.append(svgNode("line", { x1: 0, x2: width, y1: 30, y2: 30, class: "axis", "aria-hidden": "true" }));
  bars.forEach((bar, i) => {
    if (!bar.won && !bar.lost) return;
    const title = `${bar.label}: ${t("status.won")} ${count(bar.won)}, ${t("status.lost")} ${count(bar.lost)}`;
    const group = svgNode("g", { role: "img", "aria-label": title });
    const tip = svgNode("title", {});
    tip.textContent = title;
    group.append(tip);
    for (const kind of ["won", "lost"]) {
      if (!bar[kind]) continue;
      const height = (26 * bar[kind]) / most;
      group.append(svgNode("rect", { x: 4 + i * 14, width: 10, y: kind === "won" ? 30 - height : 30, height, rx: 2, class: kind }));
    }
    svg.append(group);
  });
  return svg;
}

export async function openStats(actions) {
  const { resume, startReplay } = actions;
  const dialog = $("#dlg-stats");
  const [stats, recent] = await Promise.all([api.stats(), api.recent(20)]);
  if (!stats.ok || !recent.ok) {
    const error = sentence((stats.ok ? recent : stats).data.error);
    return openFailed(dialog, t("stats.title"), t("stats.failed", { error }), () => openStats(actions));
  }
  const head = el("tr", {}, el("th", { scope: "col", text: t("stats.variant") }),
    ...STATS_COLUMNS.map(([k]) => el("th", { scope: "col", text: t(`stats.${k}`) })));
  const rows = [statsRow(t("stats.overall"), stats.data.overall, "overall"),
    ...Object.entries(stats.data.variants || {}).map(([name, block]) => statsRow(groupTitle(stats.data, name), block, name))];
  const table = el("div", { class: "table-wrap" }, el("table", { class: "stats" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  const honest = el("p", { class: "help stats-note", text: t("stats.honest") });
  const games = recent.data.games;
  const onTable = app.game && !app.game.replay ? app.game.id : null;
  const list = el("ol", { class: "recent" });
  games.forEach((game, i) => {
    const when = new Date(game.updated_at * 1000).toLocaleString(getLocale());
    // (custom rules named with what differs, as in the table above)
    const title = groupTitle(stats.data, game.stats_key, game.title);
    // A game's Resume and Replay are described by its line (a screen reader
    // going from button to button heard twenty "Replay" and not which game).
    const about = `recent-${i}`;
    const item = el("li", {},
      el("span", { class: `status ${game.status}`, id: `${about}-status`, text: t(game.given_up ? "status.givenUp" : `status.${game.status}`) }),
      el("span", { class: "what", id: `${about}-what`, text: `${title} · ${t("counter.deal")} ${game.deal_number ?? "–"} · ${t("stats.moves", { n: game.moves, moves: count(game.moves) })}${game.assisted ? ` · ${t("stats.assistedGame")}` : ""}` }),
      el("span", { class: "when", text: when }));
    const buttons = el("span", { class: "buttons" });
    const described = `${about}-what ${about}-status`;
    // (the game on the table is said to be so: its Resume only closed the panel)
    if (game.id === onTable) {
      buttons.append(el("span", { class: "current", id: `${about}-current`, text: t("stats.currentGame") }));
    } else if ((game.status === "choosing" || game.status === "playing") && !game.given_up) {
      buttons.append(el("button", { type: "button", text: t("btn.resume"), "aria-describedby": described, onclick: () => { dialog.close(); focusBoard(); resume(game.id); } }));
    }
    if (game.moves) {
      buttons.append(el("button", { type: "button", text: t("btn.replay"), "aria-describedby": described, onclick: () => replay(dialog, startReplay, game.id) }));
    }
    item.append(buttons);
    list.append(item);
  });
  open(dialog, t("stats.title"), table, honest, chart(stats.data, games), el("h3", { text: t("stats.recent") }),
    games.length ? list : el("p", { text: t("stats.none") }));
  foldWhenTooWide();
}

// A panel whose content could not be loaded (the server stopped, an error,
// an answer the page cannot read: the statistics, the rules) opens saying
// so and why, where a toast said it for seconds, with Try again there
// (focused), which calls `retry`; once the content is shown, the focus is
// on the panel's ×.
export function openFailed(dialog, title, words, retry) {
  const again = el("button", { type: "button", class: "primary", text: t("btn.retry") });
  again.addEventListener("click", async () => {
    again.disabled = true;
    await retry();
    const next = dialog.querySelector(".load-failed + .buttons button") || dialog.querySelector("header .close");
    if (dialog.open && next) next.focus();
  });
  open(dialog, title, el("p", { class: "load-failed", role: "alert", text: words }), el("div", { class: "buttons" }, again));
  again.focus();
}

// A replay started from the statistics: the focus goes to its Next move
// (else the board), not back to the Statistics button, many Tabs from the
// replay bar, where Space and Enter opened the statistics again.
async function replay(dialog, startReplay, id) {
  dialog.close();
  await startReplay(id);
  const next = $("#replay-next");
  if (!$("#replay-bar").hidden && !next.disabled) next.focus();
  else if (!$("#replay-bar").hidden) focusBoard();
}

// A table wider than its box is folded into cards (style.css: .stacked)
// rather than scrolled sideways to its last columns; measured again when
// the window changes size while the statistics are open. One listener for
// the page's life, for whatever table the dialog holds now: one added at
// each opening stayed (until a resize), and held every table shown before,
// its rows and the chart, for as long as the page lived.
function foldWhenTooWide() {
  const dialog = $("#dlg-stats");
  const wrap = dialog.querySelector(".table-wrap");
  if (!wrap || !dialog.open) return;
  const table = wrap.querySelector("table");
  table.classList.remove("stacked");
  table.tHead.classList.remove("sr-only");
  const stacked = wrap.scrollWidth > wrap.clientWidth + 1;
  table.classList.toggle("stacked", stacked);
  // (its heads, then, are read by a screen reader, not drawn: each card shows them)
  table.tHead.classList.toggle("sr-only", stacked);
}

window.addEventListener("resize", foldWhenTooWide);

// ---------------------------------------------------------------- end of game

export function showEnd(game, kind, hopeless, actions, relabel = false) {
  endScreen(game, kind, hopeless, {
    openNewGame: () => openNewGame(actions),
    undo: () => actions.undo && actions.undo(),
    giveUp: () => actions.giveUp && actions.giveUp(),
    analyse: () => actions.analyse && actions.analyse(),
  }, relabel);
}

// The end screen open on `game` (no modal dialog: the language can change
// while it is open), written again in the page's language.
export function relabelEnd(game, actions) {
  const dialog = $("#dlg-end");
  if (!dialog.open || !game || game.replay || dialog.dataset.game !== game.id) return;
  const hopeless = { true: true, "terrace-dead": "terrace-dead" }[dialog.dataset.hopeless] || false;
  showEnd(game, dialog.classList.contains("won") ? "won" : "lost", hopeless, actions, true);
}

export function closeEnd() {
  const dialog = $("#dlg-end");
  if (dialog.open) dialog.close();
  delete dialog.dataset.kind;
}
