"""Shared helpers for the keyboard/German repro scripts."""
import sys, json, time
sys.path.insert(0, "/tmp/att_kbd/tests")
from web_support import started_server, CHROMIUM  # noqa
from playwright.sync_api import sync_playwright  # noqa

FOCUS_JS = r"""() => {
  const a = document.activeElement;
  if (!a || a === document.body) return {body: true};
  const d = [...document.querySelectorAll('dialog[open]')];
  const modal = d.find(x => x.matches(':modal'));
  const r = a.getBoundingClientRect();
  const cs = getComputedStyle(a);
  return {
    tag: a.tagName, id: a.id, pile: a.dataset.pile || null, text: (a.getAttribute('aria-label') || a.textContent || '').trim().slice(0,60),
    visible: r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && !a.closest('[hidden]'),
    focusVisible: a.matches(':focus-visible'),
    outline: cs.outlineStyle + ' ' + cs.outlineWidth + ' ' + cs.boxShadow.slice(0,30),
    behindModal: modal ? !modal.contains(a) : false,
    inDialog: a.closest('dialog') ? a.closest('dialog').id : null,
    onscreen: r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth,
  };
}"""

def focus(page):
    return page.evaluate(FOCUS_JS)

def check_focus(page, where, problems):
    f = focus(page)
    bad = f.get("body") or not f["visible"] or f["behindModal"] or not f["onscreen"]
    if bad:
        problems.append((where, f))
    return f

import re
from pathlib import Path

def _strings():
    src = Path("/tmp/att_kbd/src/terrace/web/static/js/i18n.js").read_text()
    en_part = src.split("\n  de: {")[0]
    de_part = src.split("\n  de: {")[1].split("\n};")[0]
    pat = re.compile(r'^\s*"([^"]+)":\s*"((?:[^"\\]|\\.)*)",?\s*$', re.M)
    return dict(pat.findall(en_part)), dict(pat.findall(de_part))

EN, DE = _strings()
FRAGMENTS = set()
for k, v in EN.items():
    for frag in re.split(r"\{\w+\}", v):
        frag = frag.strip(" .,:;()")
        if len(frag) >= 6 and frag not in DE.get(k, "") and not any(frag in d for d in DE.values()):
            FRAGMENTS.add(frag)

TEXT_JS = r"""() => {
  const parts = [document.body.innerText];
  for (const n of document.querySelectorAll('[aria-label],[title],[aria-description],[placeholder]')) {
    for (const a of ['aria-label','title','aria-description','placeholder']) if (n.getAttribute(a)) parts.push(n.getAttribute(a));
  }
  for (const n of document.querySelectorAll('svg title')) parts.push(n.textContent);
  for (const n of document.querySelectorAll('.sr-only, [role=status], [role=alert], [aria-live]')) parts.push(n.textContent);
  return parts.join('\n');
}"""

WORDS = re.compile(r"\b(the|of|card|cards|move|moves|click|press|pile|waste|stock|game|won|lost|hint|undo|redo|draw)\b", re.I)

def english(page, where, problems, ignore=()):
    text = page.evaluate(TEXT_JS)
    found = sorted(f for f in FRAGMENTS if f in text and f not in ignore)
    words = sorted(set(m.group(0) for m in WORDS.finditer(text)) - set(ignore))
    if found or words:
        problems.append((where, found, words))
    return text

def wait_js(page, expr, timeout=8000):
    end = time.time() + timeout / 1000
    while time.time() < end:
        if page.evaluate(expr): return True
        time.sleep(0.03)
    raise TimeoutError(expr)
