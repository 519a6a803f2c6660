// Several tabs on one game: a tab that changes the game tells the others
// (BroadcastChannel), and a tab that comes back into view asks the server
// whether its game changed meanwhile, so a tab left open catches up instead
// of having its next move refused.

const channel = "BroadcastChannel" in window ? new BroadcastChannel("terrace.games") : null;

// Sent on the window (detail: {id}) by a part of the page that learnt from
// a refusal that the game changed elsewhere, as a report of playing time
// refused because another device gave the game up.
export const STALE_EVENT = "terrace:stale";

// This tab just changed `game` (a move, an undo, auto-play, giving up...).
export function announce(game) {
  if (channel && game && !game.replay) channel.postMessage({ id: game.id, revision: game.revision });
}

// `current()` is the game this tab plays (null during a replay); `catchUp(id)`
// fetches it again and shows it. Called when another tab announces a change
// to it, when this tab becomes visible or gets the focus, and on STALE_EVENT.
export function watchOtherTabs(current, catchUp) {
  window.addEventListener(STALE_EVENT, (event) => {
    const game = current();
    if (game && event.detail && event.detail.id === game.id) catchUp(game.id);
  });
  if (channel) {
    channel.addEventListener("message", (event) => {
      const game = current();
      const news = event.data || {};
      if (game && news.id === game.id && news.revision !== game.revision) catchUp(game.id);
    });
  }
  let last = 0;
  const check = () => {
    const game = current();
    // (focus and visibilitychange come together: one look is enough)
    if (!game || document.visibilityState !== "visible" || performance.now() - last < 500) return;
    last = performance.now();
    catchUp(game.id);
  };
  document.addEventListener("visibilitychange", check);
  window.addEventListener("focus", check);
}
