// The Rules dialog and the variant notes of the New game dialog. The rules
// are written on the server from the rule options of the game being played
// (GET /api/games/{id}/rules); the page adds only how to play here.

import { api } from "./api.js";
import { t, getLanguage, sentence } from "./i18n.js";
import { openFailed } from "./panels.js";
import { el } from "./render.js";
import { app, closedByBack, toast } from "./state.js";

function blocks(list) {
  return list.map((block) => (block.kind === "ul"
    ? el("ul", {}, ...block.items.map((item) => el("li", { text: item })))
    : el("p", { text: block.text })));
}

// "Also known as …", unless `words` (a description) name them all already.
function alsoKnown(names, words = "") {
  if (!names.length || names.every((name) => words.includes(name))) return "";
  return t("rules.alsoKnown", { names: names.join(", ") });
}

// The Rules dialog; with `section` ("playing": how to play here and the
// keys) scrolled to that section.
export async function openRules(section = null) {
  const dialog = document.querySelector("#dlg-rules");
  const game = app.game;
  if (!game) return toast(t("error.offline"));
  const result = await api.rules(game.id);
  if (!result.ok) {
    const words = t("rules.failed", { error: sentence(result.data.error) });
    return openFailed(dialog, t("rules.title"), words, () => openRules(section));
  }
  const rules = result.data;
  const intro = [rules.description, alsoKnown(rules.other_names, rules.description || "")].filter(Boolean).join(" ");
  const body = el("article", { class: "rules", "data-variant": rules.variant || "" },
    intro ? el("p", { class: "lead", text: intro }) : null);
  for (const section of rules.sections) {
    body.append(el("section", { "data-section": section.id },
      el("h3", { text: section.title }), ...blocks(section.blocks)));
  }
  body.append(el("section", { "data-section": "playing" },
    el("h3", { text: t("rules.playing.title") }), el("p", { text: t("rules.playing.text") }),
    game.options && game.options.foundation_return ? el("p", { class: "take-back", text: t("rules.playing.back") }) : null,
    el("p", { class: "keys", text: t("keys.text") })));
  const close = el("button", { type: "button", class: "close", "aria-label": t("btn.close"), text: "×",
    onclick: () => dialog.close() });
  dialog.replaceChildren(el("header", {}, el("h2", { id: "dlg-rules-title", text: `${t("rules.title")}: ${rules.title}` }), close), body);
  if (!dialog.open) {
    dialog.showModal();
    closedByBack(dialog);
  }
  const shown = section && body.querySelector(`[data-section="${section}"]`);
  if (shown) shown.scrollIntoView({ block: "start" });
}

// Under the New game dialog's variant list: the chosen variant's
// description and its other names, following the choice.
function noteVariant(dialog) {
  const select = dialog.querySelector("#new-variant");
  if (!select || !app.variants || dialog.querySelector(".variant-about")) return;
  const note = el("p", { class: "variant-about", id: "new-variant-about", "aria-live": "polite" });
  const update = () => {
    const variant = app.variants.variants.find((v) => v.name === select.value);
    if (!variant) return;
    const words = (variant.descriptions && variant.descriptions[getLanguage()]) || variant.description;
    note.textContent = [words, alsoKnown(variant.other_names || [], words)].filter(Boolean).join(" ");
  };
  select.setAttribute("aria-describedby", note.id);
  select.addEventListener("change", update);
  (select.closest("label") || select).after(note);
  update();
}

// The dialog is rebuilt each time it opens (panels.js): note it each time.
export function watchNewGame() {
  const dialog = document.querySelector("#dlg-new");
  new MutationObserver(() => noteVariant(dialog)).observe(dialog, { childList: true });
}
