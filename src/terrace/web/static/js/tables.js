// Tables that fold into labelled cards on a phone: each cell gets its
// column's head as data-label (style.css shows it), whenever a table is put
// into `root` (the statistics dialog is rebuilt each time it opens).

function label(table) {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  for (const row of table.querySelectorAll("tbody tr")) {
    [...row.children].forEach((cell, i) => {
      if (cell.tagName === "TD" && heads[i]) cell.dataset.label = heads[i];
    });
  }
}

export function labelTables(root) {
  const run = () => root.querySelectorAll("table").forEach(label);
  new MutationObserver(run).observe(root, { childList: true, subtree: true });
  run();
}
