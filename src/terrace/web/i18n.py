"""Messages of the web game in English and German.

The engine explains refused moves in English; :func:`translate` renders
those explanations (and the web layer's own messages) in German when the
page asks for German.

>>> translate("the terrace card can go only to a foundation", "de")
'Die Terrassenkarte darf nur auf einen Zielstapel.'
>>> translate("foundation 2 is empty: only a Q can start it", "de")
'Zielstapel 2 ist leer: Nur eine D kann ihn beginnen.'
>>> translate("the stock is empty", "en")
'the stock is empty'
"""

from __future__ import annotations

import re
from collections.abc import Callable

LANGUAGES = ("en", "de")

_RANK_DE = {"J": "B", "Q": "D", "K": "K", "A": "A", "T": "10"}
_COLOUR_DE = {"red": "rot", "black": "schwarz"}
_COLOUR_DE_ADJ = {"red": "rote", "black": "schwarze"}
_CARD = r"(?:10|[A2-9TJQK])[♠♥♦♣]"


def pick_language(header: str | None) -> str:
    """The language to answer in, from an Accept-Language header.

    >>> pick_language("de-DE,de;q=0.9,en;q=0.8"), pick_language(None), pick_language("fr, de;q=0.5")
    ('de', 'en', 'de')
    """
    if not header:
        return "en"
    weighted: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        code, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        weighted.append((-quality, position, code.strip().lower()[:2]))
    for _, _, code in sorted(weighted):
        if code in LANGUAGES:
            return code
    return "en"


def _rank(text: str) -> str:
    return _RANK_DE.get(text, text)


def _card(text: str) -> str:
    """A card symbol with a German rank letter (``Q♠`` -> ``D♠``)."""
    return re.sub(r"^(10|[A2-9TJQK])", lambda m: _rank(m.group(1)), text)


def _cards(text: str) -> str:
    return re.sub(_CARD, lambda m: _card(m.group(0)), text)


def _needed(text: str) -> str:
    """``black 8`` -> ``schwarze 8``; ``Q of the same suit`` -> ``D derselben Farbe``."""
    match = re.fullmatch(r"(red|black) (\S+)", text)
    if match:
        return f"{_COLOUR_DE_ADJ[match.group(1)]} {_rank(match.group(2))}"
    match = re.fullmatch(r"(\S+) of the same suit", text)
    if match:
        return f"{_rank(match.group(1))} derselben Farbe"
    return text


Rule = tuple[str, Callable[[re.Match[str]], str]]

_ENGINE_DE: list[Rule] = [
    (r"choose a base card first \(c1 to c(\d+)\)",
     lambda m: f"Wähle zuerst eine Basiskarte (1 bis {m[1]})."),
    (r"there are only (\d+) candidates \(c1 to c\d+\)",
     lambda m: f"Es gibt nur {m[1]} Karten zur Wahl."),
    (r"this game has no choice: its base card is turned from the pack",
     lambda m: "In diesem Spiel gibt es keine Wahl: Die Basiskarte wird aufgedeckt."),
    (r"the base card has already been chosen", lambda m: "Die Basiskarte ist schon gewählt."),
    (r"the stock is empty and no redeals are left",
     lambda m: "Der Vorrat ist leer, und es bleibt kein neuer Durchgang."),
    (r"the stock is empty", lambda m: "Der Vorrat ist leer."),
    (r"a foundation card cannot go to another foundation",
     lambda m: "Eine Karte vom Zielstapel kann nicht auf einen anderen Zielstapel."),
    (r"there is no foundation (\d+) \(foundations run from 1 to (\d+)\)",
     lambda m: f"Es gibt keinen Zielstapel {m[1]} (nur 1 bis {m[2]})."),
    (r"the terrace card can go only to a foundation",
     lambda m: "Die Terrassenkarte darf nur auf einen Zielstapel."),
    (r"there is no pile (\d+) \(piles run from 1 to (\d+)\)",
     lambda m: f"Es gibt keinen Stapel {m[1]} (nur 1 bis {m[2]})."),
    (r"a card cannot move onto its own pile",
     lambda m: "Eine Karte kann nicht auf ihren eigenen Stapel."),
    (r"the terrace \(reserve\) is empty", lambda m: "Die Terrasse ist leer."),
    (r"the waste is empty", lambda m: "Der Abwurfstapel ist leer."),
    (r"pile (\d+) is empty", lambda m: f"Stapel {m[1]} ist leer."),
    (r"cards never leave the foundations in this game",
     lambda m: "In diesem Spiel verlassen Karten die Zielstapel nie."),
    (r"foundation (\d+) is empty: only an? (\S+) can start it",
     lambda m: f"Zielstapel {m[1]} ist leer: Nur eine {_rank(m[2])} kann ihn beginnen."),
    (r"foundation (\d+) is empty", lambda m: f"Zielstapel {m[1]} ist leer."),
    (r"the base card of a foundation never moves",
     lambda m: "Die unterste Karte eines Zielstapels bleibt liegen."),
    (r"no foundation is free for the (\S+)",
     lambda m: f"Kein Zielstapel ist frei für die {_card(m[1])}."),
    (r"no foundation accepts the (\S+) yet",
     lambda m: f"Noch nimmt kein Zielstapel die {_card(m[1])}."),
    (r"foundation (\d+) is complete", lambda m: f"Zielstapel {m[1]} ist vollständig."),
    (r"the (\S+) cannot go on the (\S+): foundation (\d+) takes only an? (.+)",
     lambda m: f"Die {_card(m[1])} passt nicht auf die {_card(m[2])}: "
               f"Zielstapel {m[3]} nimmt nur eine {_needed(m[4])}."),
    (r"the (\S+) cannot go on the (\S+) in pile (\d+): piles build down in alternating colours, "
     r"so it takes only an? (.+)",
     lambda m: f"Die {_card(m[1])} passt nicht auf die {_card(m[2])} in Stapel {m[3]}: "
               "Die Auslage wird abwärts in wechselnden Farben gebaut, "
               f"hier passt nur eine {_needed(m[4])}."),
    (r"an empty pile takes only the waste card in this game",
     lambda m: "In diesem Spiel nimmt ein leerer Stapel nur die Karte vom Abwurfstapel."),
    (r"pile (\d+) stays empty: spaces are refilled only from the waste or the stock, and both are used up",
     lambda m: f"Stapel {m[1]} bleibt leer: Lücken werden nur aus Abwurfstapel oder Vorrat gefüllt, "
               "und beide sind aufgebraucht."),
    (r"'(.*)' is not a move: .*", lambda m: f"„{m[1]}“ ist kein gültiger Zug."),
]

_WEB_DE: dict[str, str] = {
    "the body is not valid JSON": "Die Anfrage ist kein gültiges JSON.",
    "the body must be a JSON object": "Die Anfrage muss ein JSON-Objekt sein.",
    "send the body as application/json": "Die Anfrage muss als application/json gesendet werden.",
    "the game changed in another window: reload it": "Das Spiel wurde in einem anderen Fenster geändert: "
                                                     "Bitte neu laden.",
    "there is no move to undo": "Es gibt keinen Zug zum Zurücknehmen.",
    "there is no move to redo": "Es gibt keinen Zug zum Wiederholen.",
    "the game is over": "Das Spiel ist vorbei.",
}

_COMPILED = [(re.compile(pattern), render) for pattern, render in _ENGINE_DE]


def translate(message: str, language: str) -> str:
    """``message`` (English) in ``language``; unknown messages stay English."""
    if language != "de":
        return message
    if message in _WEB_DE:
        return _WEB_DE[message]
    for pattern, render in _COMPILED:
        match = pattern.fullmatch(message)
        if match:
            return render(match)
    return _cards(message)
