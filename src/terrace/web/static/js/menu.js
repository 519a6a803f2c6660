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
  // A chosen item closes the menu (the language stays open to be read). The
  // item, hidden then, cannot keep the focus: the menu's button takes it
  // before the item acts (capture), so that a dialog the item opens gives
  // it back there when it closes.
  menu.addEventListener("click", (event) => {
    if (event.target.closest("button") && menu.contains(document.activeElement)) toggle.focus();
  }, true);
  menu.addEventListener("click", (event) => {
    if (event.target.closest("button")) setOpen(false);
  });
  document.addEventListener("pointerdown", (event) => {
    if (isOpen() && !event.target.closest(".bar")) setOpen(false);
  });
  // Tab (or anything else) taking the focus out of the menu and its button
  // closes it: open, it would cover the piles that get the focus next.
  // (A focus that merely leaves the page, relatedTarget null, leaves it open.)
  const within = (node) => node && (menu.contains(node) || node === toggle);
  for (const node of [menu, toggle]) {
    node.addEventListener("focusout", (event) => {
      if (isOpen() && event.relatedTarget && !within(event.relatedTarget)) setOpen(false);
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && isOpen()) {
      setOpen(false);
      toggle.focus();
      event.stopPropagation();
    }
  }, true);
}
