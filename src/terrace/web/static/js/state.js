// What the page's modules share: the state of the page and the toast.
// main.js changes the state; the dialogs in panels.js only read it.

export const app = {
  game: null,          // the game JSON of the current game (or of a replay step)
  saved: null,         // the game being played while a replay is shown
  variants: null,      // GET /api/variants
  verdicts: null,      // candidate move -> "won" | "lost" | "unknown" (only with the assist)
  verdictNote: null,   // why no verdicts are shown although the assist is on
  selected: null,      // the selected source pile
  hint: null,          // {source, target}
  settings: {
    click: localStorage.getItem("terrace.click") || "double",
    animate: localStorage.getItem("terrace.animate") !== "off",
    autoplay: localStorage.getItem("terrace.autoplay") || "finish",  // off | finish | safe
    timer: localStorage.getItem("terrace.timer") !== "off",
    // Assists, all off unless the player turns them on (each one used marks the game as assisted).
    assists: Object.fromEntries(["verdicts", "peek", "warn"].map((name) => [name, localStorage.getItem(`terrace.assist.${name}`) === "on"])),
  },
  queue: Promise.resolve(),
};

export function toast(message, kind = "error") {
  const node = document.querySelector("#toast");
  node.textContent = message;
  node.className = `toast show ${kind}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { node.className = "toast"; }, kind === "error" ? 4500 : 3500);
}
