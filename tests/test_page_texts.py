"""The page's own words (static/js/i18n.js) in every language it offers:
the same keys, the same placeholders, every key the page asks for, and a
word for every value the server sends that the page puts in words (why a
hint has no move, the rule options and their choices, a game's status).
A missing German string would not show as an error: ``t`` falls back to
the English one, or to the key itself.

(The refusals' texts, keyed by refusal code, are checked in test_docs.py:
test_every_refusal_has_english_and_german_text.)
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from terrace.position import Status
from terrace.solver.decision import ESTIMATE_WORDS
from terrace.solver.hint_line import WHY_NO_MOVE
from terrace.web.i18n import WEB_WORDINGS, WebRefusal
from web_support import app_client

STATIC = Path(__file__).resolve().parent.parent / "src" / "terrace" / "web" / "static"
I18N = STATIC / "js" / "i18n.js"
ENTRY = re.compile(r'^ {4}"([^"\\]+)": "((?:[^"\\]|\\.)*)",?$')


def _strings() -> dict[str, dict[str, str]]:
    """STRINGS of i18n.js: language -> key -> text. Every line of a
    language's block must be an entry (a line this cannot read fails)."""
    text = I18N.read_text()
    block = re.search(r"^const STRINGS = \{\n(.*?)^\};", text, re.S | re.M)
    assert block, "i18n.js: no STRINGS"
    languages: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in block.group(1).splitlines():
        opening = re.fullmatch(r" {2}(\w+): \{", line)
        if opening:
            current = languages.setdefault(opening.group(1), {})
        elif line == "  },":
            current = None
        elif line.strip() and not line.strip().startswith("//"):
            entry = ENTRY.match(line)
            assert entry and current is not None, f"i18n.js: a line not read: {line!r}"
            assert entry.group(1) not in current, f"i18n.js: {entry.group(1)} twice"
            current[entry.group(1)] = entry.group(2)
    return languages


STRINGS = _strings()
ENGLISH = STRINGS["en"]
OTHERS = sorted(set(STRINGS) - {"en"})


def _fields(text: str) -> set[str]:
    """The placeholders of a text ({^name}, the value with a capital, is name)."""
    return {field.removeprefix("^") for _, field, _, _ in string.Formatter().parse(text) if field}


def test_the_page_offers_english_and_german() -> None:
    assert set(STRINGS) == {"en", "de"}
    assert len(ENGLISH) > 250
    options = re.findall(r'<option value="(\w+)"', (STATIC / "index.html").read_text())
    assert sorted(options) == sorted(STRINGS)


@pytest.mark.parametrize("language", OTHERS)
def test_every_page_string_is_translated(language: str) -> None:
    words = STRINGS[language]
    assert sorted(set(ENGLISH) - set(words)) == [], f"{language} lacks these (English shows instead)"
    assert sorted(set(words) - set(ENGLISH)) == [], f"{language} has these, English does not"
    for key, text in ENGLISH.items():
        assert words[key].strip(), f"{language}: {key} is empty"
        assert _fields(words[key]) == _fields(text), f"{language}: {key} takes other placeholders"


def _asked_for() -> set[str]:
    """The keys the page names literally: t("…") in its scripts,
    data-i18n, data-i18n-aria and data-i18n-title in its HTML."""
    keys: set[str] = set()
    for path in [*sorted((STATIC / "js").glob("*.js")), STATIC / "index.html"]:
        # (not in comments: "t(\"key\", {n: 3}) fills {n}")
        lines = path.read_text().splitlines()
        source = "\n".join(line for line in lines if not line.lstrip().startswith("//"))
        keys |= set(re.findall(r'\bt\(\s*"([^"]+)"', source))
        keys |= set(re.findall(r'data-i18n(?:-aria|-title)?="([^"]+)"', source))
    return keys


def test_every_key_the_page_asks_for_has_words() -> None:
    asked = _asked_for()
    assert len(asked) > 150
    missing = sorted(key for key in asked if key not in ENGLISH)
    assert missing == []


def _scripts() -> str:
    """The page's scripts and HTML without the STRINGS table and comments."""
    text = ""
    for path in [*sorted((STATIC / "js").glob("*.js")), STATIC / "index.html"]:
        source = path.read_text()
        if path == I18N:
            source = re.sub(r"^const STRINGS = \{\n.*?^\};", "", source, flags=re.S | re.M)
        text += "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))
    return text


def test_every_key_has_a_use() -> None:
    """A key no script can ask for is dead weight that translators keep up
    (five were: hint.none, hint.lost, hint.winnable, hint.heuristic and
    error.cannotMove). A key counts as asked for when the page names it
    (t("…"), data-i18n, any string of its scripts), when the server sends
    its value, when a script builds it from a prefix (`verdict.${…}`), or
    when it is such a key's form for one or for another way of playing
    (`${key}.touch`, a key's ".one")."""
    scripts = _scripts()
    named = _asked_for() | set(_server_words()) | set(re.findall(r'"([a-zA-Z][\w.-]*)"', scripts))
    prefixes = tuple(re.findall(r"`([a-zA-Z][\w.]*\.)\$\{", scripts))
    suffixes = {".one", *re.findall(r"\}(\.[a-zA-Z][\w.]*)`", scripts)}
    assert len(prefixes) > 10 and {".one", ".touch", ".title"} <= suffixes

    def used(key: str) -> bool:
        bases = [key] + [key.removesuffix(end) for end in suffixes if key.endswith(end)]
        return any(base in named or base.startswith(prefixes) for base in bases)

    assert sorted(key for key in ENGLISH if not used(key)) == []


def _server_words() -> list[str]:
    """The keys of the words for what the server sends: why a hint has no
    move, a game's status, the verdict on a base card, each rule option (in
    the New game dialog and the statistics) and each choice of one."""
    with app_client() as client:
        variants = client.get("/api/variants").json()
    options = variants["options"]
    keys = [f"hint.why.{why}" for why in WHY_NO_MOVE]
    keys += [f"status.{status.value}" for status in Status]
    keys += [f"verdict.{verdict}" for verdict in ("won", "lost", "unknown")]
    keys += [f"opt.{name}" for name in options]
    # (a yes/no option is said in a statistics group's title as what it does)
    keys += [f"stats.opt.{name}{said}" for name, spec in options.items()
             for said in ((".yes", ".no") if spec["type"] == "bool" else ("",))]
    keys += [f"choice.{choice}" for spec in options.values() for choice in spec.get("choices", [])]
    return keys


def test_every_value_the_server_sends_has_words() -> None:
    keys = _server_words()
    assert len(keys) > 25
    assert sorted(key for key in keys if key not in ENGLISH) == []


@pytest.mark.parametrize(("language", "words"), [("en", "does not look at face-down cards"),
                                                  ("de", "keine verdeckten Karten")])
def test_the_rule_of_thumb_says_it_does_not_look_at_face_down_cards(language: str, words: str) -> None:
    """A hint by the rule of thumb (fair, or peeking and undecided) said only
    "A rule of thumb, not a proof", though the sampled and the safe hints say
    that they do not look at face-down cards, and a peeking hint's rule of
    thumb never does either."""
    assert words in _strings()[language]["hint.by.heuristic"]


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_undo_and_redo_have_one_name_each(language: str) -> None:
    """The German page called its undo "Zurück" (the usual word in card
    games is "Rückgängig") in the button, the keys, the rules, the
    statistics and the end screen, the word its "Zurück zu meinem Spiel"
    uses for going back. Every text that names undo or redo by its word
    says the buttons' words, and the counts of undos are headed by the
    undo's. (Redo stays "Wieder": "Wiederholen" folds the German header
    into its menu at 1280 px.)"""
    texts = STRINGS[language]
    undo, redo = texts["btn.undo"], texts["btn.redo"]
    heads = {texts[key].replace("\\u00AD", "") for key in ("stats.undos", "end.undos")}  # (soft hyphens)
    assert heads == {{"en": "Undos"}.get(language, undo)}, heads
    assert undo.lower() in texts["keys.text"].lower() and redo.lower() in texts["keys.text"].lower()
    assert undo in texts["rules.playing.text"] and redo in texts["rules.playing.text"]
    assert f"{undo}" in texts["coach.assistAsk.text"]
    if language == "de":
        assert undo == "Rückgängig"
        named = [key for key, text in texts.items() if re.search(r"\bZurück\b(?! zu)", text)]
        assert named == [], named


def test_the_german_prompt_for_a_selected_card_is_one_sentence_of_verbs() -> None:
    """ "… drücke eine Stapeltaste oder F, oder Enter zum Ablegen" left the
    Enter without a verb; each way to play the card is now said with one."""
    text = STRINGS["de"]["prompt.selected"]
    assert "zum Ablegen" not in text and "mit Enter legst du sie ab" in text


def test_the_german_page_calls_a_rank_by_one_word() -> None:
    """The German page names a card's rank "Wert" (the prompt of the
    choice: "Ihr Wert beginnt jeden Zielstapel", the guide's "Basiswert",
    the option "desselben Werts"), but what a screen reader heard once the
    base card was chosen said "Rang": "Jeder Zielstapel beginnt mit ihrem
    Rang"."""
    texts = STRINGS["de"]
    assert [key for key, text in texts.items() if re.search(r"Rang|Ränge", text)] == []
    assert "Wert" in texts["said.chosen"]


def test_a_refusal_that_names_a_control_of_the_page_names_it_as_the_page_labels_it() -> None:
    """No winnable deal found: the refusal said to try 'without "winnable
    only"' (German „nur gewinnbare“), a box the page labels "Winnable deals
    only" („Nur gewinnbare Spiele“)."""
    wording = WEB_WORDINGS[WebRefusal.NO_WINNABLE_DEAL]
    assert f'"{ENGLISH["new.winnable"]}"' in wording.en
    assert f'„{STRINGS["de"]["new.winnable"]}“' in wording.de


def test_the_idle_time_that_pauses_the_clock_is_said_from_the_one_the_clock_uses() -> None:
    """The clock's pause said "idle for a minute" (German "seit einer
    Minute"), typed beside timer.js's IDLE_MS, which decides: the words
    take the minutes from it."""
    timer = (STATIC / "js" / "timer.js").read_text()
    assert re.search(r'\bt\("timer\.paused", \{ n: IDLE_MS / 60_000 \}\)', timer)
    for language in STRINGS:
        assert "{n}" in STRINGS[language]["timer.paused"], language
        assert "{n}" not in STRINGS[language]["timer.paused.one"], language


def test_the_german_page_names_a_candidate_as_its_rules_do() -> None:
    """The German rules, options and prompts call a candidate "Karte zur
    Wahl" (its pile "Wahl 3"), but the coach said "D♦ (Kandidat 3) als
    Basiskarte wählen" and the chances' help "die Siege jedes Kandidaten"."""
    texts = STRINGS["de"]
    assert [key for key, text in texts.items() if "Kandidat" in text] == []
    assert "Karte zur Wahl" in texts["coach.choice"] and "Karte zur Wahl" in texts["coach.choiceCard"]


def test_every_count_of_sampled_stocks_says_it_is_an_upper_estimate() -> None:
    """A sampled stock counts as won when a winning line exists for one who
    knows its order: following its own hints on Terrace deals 1-40 (K = 4)
    the fair player won 25 (62.5%) where the card it chose averaged 96% of
    its samples. The base cards' Chances said so; the mid-game fair hint
    and the coach still said only "wins in 28 of 32 sampled stocks". Every
    text that counts them takes the one phrase, sampled.estimate, in each
    language; terrace hint prints the English one (ESTIMATE_WORDS)."""
    says = {"en": ("for one who knows that order", "an upper estimate", "not your chance"),
            "de": ("für den, der sie kennt", "eine obere Schätzung", "nicht deine Gewinnchance")}
    assert set(says) == set(STRINGS)
    for language, phrases in says.items():
        assert all(phrase in STRINGS[language]["sampled.estimate"] for phrase in phrases), language
    assert ENGLISH["sampled.estimate"] == ESTIMATE_WORDS
    counting = [key for key, text in ENGLISH.items()
                if "wins" in _fields(text) and not key.startswith("chances.")]
    assert {"hint.by.sampled", "hint.by.sampledUndecided.one", "coach.sampled"} <= set(counting)
    for language, words in STRINGS.items():
        for key in [*counting, "chances.fair", "chances.help"]:
            # (a hint's brief line says it in short, its Why? whole: hint.by.*)
            brief = key.startswith("hint.short.")
            estimate = "estimateShort" if brief else "estimate"
            assert estimate in _fields(words[key]), f"{language}: {key} does not say what its count is"
            if brief:
                assert key.replace("hint.short.", "hint.by.") in counting, key
    for language, phrase in {"en": "upper estimate", "de": "obere Schätzung"}.items():
        assert STRINGS[language]["sampled.estimateShort"] == phrase
    shared = r'const SHARED = \{ estimate: "sampled.estimate", estimateShort: "sampled.estimateShort" \}'
    assert re.search(shared, I18N.read_text())


def test_a_count_of_sampled_stocks_has_words_for_one() -> None:
    """A fair hint, the coach and the base cards' chances said "wins in 1
    of 1 sampled stocks" ("von 1 ausgelosten Reihenfolgen"), as a hint
    short of time can answer. Each text that counts {samples} has a form
    for one, and each script that fills {samples} gives t() its count as n
    (which picks the ".one" form)."""
    counted = [key for key, text in ENGLISH.items() if "samples" in _fields(text)]
    assert len(counted) >= 5
    for language, words in STRINGS.items():
        for key in counted:
            assert f"{key}.one" in words, f"{language}: {key} has no words for one sampled stock"
            assert "{samples}" not in words[f"{key}.one"]
    assert "1 sampled stock (" in ENGLISH["coach.sampled.one"]
    assert "von 1 ausgelosten Reihenfolge des" in STRINGS["de"]["coach.sampled.one"]
    filled = re.findall(r"samples: ([\w.]+)[^}]*\}", _scripts())
    assert len(filled) >= 3
    for value in filled:
        assert re.search(rf"samples: {re.escape(value)}, n: {re.escape(value)}\b", _scripts()), value


def test_a_yes_no_option_has_no_statistics_name_that_nothing_shows() -> None:
    """A custom group says a yes/no option as what it does (stats.opt.<option>
    .yes/.no), so its bare name there ("foundation return", "Rückgabe von
    Zielstapeln") was shown nowhere, a second wording of the same option
    kept up in both languages."""
    with app_client() as client:
        options = client.get("/api/variants").json()["options"]
    flags = [name for name, spec in options.items() if spec["type"] == "bool"]
    assert flags
    for words in STRINGS.values():
        assert [f"stats.opt.{name}" for name in flags if f"stats.opt.{name}" in words] == []
