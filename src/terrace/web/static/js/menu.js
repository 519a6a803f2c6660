// The header's menu: in a narrow or short window (a phone, 200% zoom) the
// header keeps the quick buttons and folds the others into a menu; style.css
// decides when, this module opens and closes it.

export function attachMenu() {
  const bar = document.querySelector(".bar");
  const toggle = document.querySelector("#btn-menu");
  const menu = document.querySelector("#menu");
  const isOpen = () => bar.classList.contains("menu-open");
  const setOpen = (open) => {
    bar.classList.toggle("menu-open", open);
    toggle.setAttribute("aria-expanded", String(open));
  };
  toggle.addEventListener("click", () => {
    setOpen(!isOpen());
    if (isOpen()) menu.querySelector("button:not(:disabled), select").focus();
  });
  // A chosen item closes the menu (the language stays open to be read).
  menu.addEventListener("click", (event) => {
    if (event.target.closest("button")) setOpen(false);
  });
  document.addEventListener("pointerdown", (event) => {
    if (isOpen() && !event.target.closest(".bar")) setOpen(false);
  });
  // A dialog opened from the menu gives the focus back to the item that
  // opened it, which the closed menu hides: the focus stays in the closed
  // dialog, then falls to the page's body. It goes to the menu's button
  // instead. (A dialog's close event comes after it tried to give the
  // focus back; it does not bubble.)
  document.addEventListener("close", (event) => {
    if (!(event.target instanceof HTMLDialogElement) || document.querySelector("dialog:modal")) return;
    const active = document.activeElement;
    const lost = !active || active === document.body || !active.getClientRects().length;
    if (lost && toggle.getClientRects().length) toggle.focus();
  }, true);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && isOpen()) {
      setOpen(false);
      toggle.focus();
      event.stopPropagation();
    }
  }, true);
}
