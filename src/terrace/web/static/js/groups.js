import { t } from "./i18n.js";
import { app } from "./state.js";

// A statistics group's title in the page's language: the variant's title,
// and for other rules the options that differ, with the values the new-game
// form shows (the server's English title when it says no more, else
// `fallback`: a group the statistics do not count yet).
export function groupTitle(data, name, fallback = name) {
  const group = (data.groups || {})[name];
  const variant = group && (app.variants ? app.variants.variants : []).find((v) => v.name === group.variant);
  if (!group || !variant) return (data.titles || {})[name] || fallback;
  if (!group.custom.length) return variant.title;
  const said = (value) => {
    if (value === "yes" || value === "no") return t(`stats.${value}`);
    const choice = t(`choice.${value}`);
    return choice === `choice.${value}` ? value : choice;
  };
  // (a yes/no option is said as what it does, "foundation cards may return",
  // not as "foundation return yes")
  const changes = group.custom.map(([option, value]) => {
    const whole = `stats.opt.${option}.${value}`;
    return t(whole) !== whole ? t(whole) : `${t(`stats.opt.${option}`)} ${said(value)}`;
  });
  return `${variant.title} (${t("stats.custom")}: ${changes.join(", ")})`;
}
