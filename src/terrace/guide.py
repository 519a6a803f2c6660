"""The rules of a game for people, in English and German, written from the
same :class:`~terrace.rules.Rules` the engine plays by, with tips for
beginners, strategy and common mistakes.

Every sentence that states a rule is chosen by a rule option (the number
of terrace cards, how foundations build, what fills an empty pile...), so
the text always describes the game being played, also with options changed
by hand.

>>> from terrace.variants import get_variant
>>> guide = rules_guide(get_variant("terrace").rules, get_variant("terrace"), "en")
>>> guide["title"], guide["other_names"]
('Terrace', ['Queen of Italy', 'Signora'])
>>> [section["id"] for section in guide["sections"]]
['goal', 'layout', 'base', 'building', 'spaces', 'end', 'tips', 'strategy', 'mistakes']
>>> print(guide["sections"][1]["blocks"][0]["items"][0])  # doctest: +NORMALIZE_WHITESPACE
The terrace: 11 cards in an overlapping row, all face up. Only the end card that lies on top
may be played, and only onto a foundation; then the card under it comes free.
"""

from __future__ import annotations

from typing import Any

from terrace.refusals import LANGUAGES, quote
from terrace.rules import Rules, SpaceRule, given_rules
from terrace.variants import VARIANTS, Variant

__all__ = ["DESCRIPTIONS", "descriptions", "rules_guide"]

DESCRIPTIONS_DE: dict[str, str] = {
    "terrace": "Das klassische Spiel mit zwei Kartenspielen: elf Karten in der Terrasse, neun Stapel, und "
    "der Basiswert wird nach einem Blick auf die Auslage aus drei Karten gewählt. Dasselbe Spiel heißt "
    "auch Queen of Italy oder Signora.",
    "blondes-and-brunettes": "Eine Terrasse mit einer Karte weniger und keine Wahl: Die Karte nach den "
    "neun Stapelkarten wird als Basis aufgedeckt. Schwerer als Terrace.",
    "falling-star": "Terrace, bei dem die Basiskarte vom Kartenstapel aufgedeckt statt gewählt wird.",
    "generals-patience": "Die Zielstapel werden in Farbe (gleiches Symbol) statt in wechselnden Farben "
    "gebaut, daher hat jede Terrassenkarte weniger Ziele; dreizehn Karten in der Terrasse und vier zur "
    "Wahl.",
    "thirteen": "Eine größere Auslage: dreizehn Karten in der Terrasse und elf Stapel, mit drei Karten "
    "zur Wahl.",
    "wood": "Eine aufgedeckte Basiskarte, und ein geleerter Stapel bleibt offen, bis du die Karte vom "
    "Abwurfstapel hineinlegst; keine andere Karte darf ihn füllen.",
    "madame": "Drei Kartenspiele und zwölf Zielstapel; die Basis wird aus einer ganzen Reihe von zehn "
    "Karten gewählt.",
    "big-terrace": "Vier Kartenspiele und sechzehn Zielstapel, neunzehn Karten in der Terrasse, elf "
    "Stapel und fünf Karten zur Wahl.",
    "empress-of-italy": "Big Terrace, großzügig gespielt: Leere Stapel nehmen jede Karte, die du "
    "dorthin ziehst, nur nicht die Terrassenkarte, und Karten dürfen von den Zielstapeln zurück in die "
    "Auslage.",
    "admirals-patience": "Das Spiel mit vier Kartenspielen, in Farbe gebaut: sechzehn Zielstapel, "
    "dreizehn Karten in der Terrasse, elf Stapel und fünf Karten zur Wahl.",
}
"""The German descriptions of the variants (the English ones are
:attr:`Variant.description`)."""

DESCRIPTIONS: dict[str, dict[str, str]] = {
    v.name: {"en": v.description, "de": DESCRIPTIONS_DE[v.name]} for v in VARIANTS
}
"""Each variant's description by name and language."""


def descriptions(variant: Variant) -> dict[str, str]:
    """The description of ``variant`` in every language.

    >>> from terrace.variants import get_variant
    >>> descriptions(get_variant("falling-star"))["de"][:29]
    'Terrace, bei dem die Basiskar'
    """
    return DESCRIPTIONS[_given_variant(variant).name]


def _given_variant(variant: object, *, or_none: bool = False) -> Variant:
    """``variant`` when it is a :class:`Variant`, else a :class:`TypeError`
    that says what to pass (``or_none``: None may be passed too)."""
    if not isinstance(variant, Variant):
        none = " or None" if or_none else ""
        raise TypeError(f"variant must be a Variant (terrace.variants.get_variant('terrace')){none}, "
                        f"not {type(variant).__name__}")
    return variant


class _Words:
    """Picks the sentence of one language and fills in its numbers."""

    def __init__(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"no guide in {quote(language)}")
        self.de = language == "de"

    def __call__(self, en: str, de: str, **values: Any) -> str:
        return (de if self.de else en).format(**values)

    def count(self, n: int, en: tuple[str, str], de: tuple[str, str]) -> str:
        """``n`` with the singular or plural noun of this language."""
        nouns = de if self.de else en
        return f"{n} {nouns[0] if n == 1 else nouns[1]}"


def _section(key: str, title: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"id": key, "title": title, "blocks": [b for b in blocks if b.get("text") or b.get("items")]}


def _p(text: str) -> dict[str, Any]:
    return {"kind": "p", "text": text}


def _ul(*items: str | None) -> dict[str, Any]:
    return {"kind": "ul", "items": [item for item in items if item]}


def rules_guide(rules: Rules, variant: Variant | None, language: str = "en") -> dict[str, Any]:
    """The rules of a game with these ``rules`` as sections of paragraphs
    and lists: ``{"title", "other_names", "description", "custom",
    "sections": [{"id", "title", "blocks": [{"kind": "p", "text"} |
    {"kind": "ul", "items"}]}]}``. ``variant`` names the game (None for
    rules that match no variant); ``custom`` says that ``rules`` differ
    from the variant's own."""
    w = _Words(language)
    rules = given_rules(rules)
    if variant is not None:
        variant = _given_variant(variant, or_none=True)
    custom = variant is not None and variant.rules != rules
    title = variant.title if variant else w("Terrace with your own rules", "Terrace mit eigenen Regeln")
    return {
        "variant": variant.name if variant else None,
        "title": title,
        "other_names": list(variant.aliases) if variant else [],
        "description": descriptions(variant)[language] if variant and not custom else None,
        "custom": custom,
        "sections": [
            _goal(w, rules, title, custom),
            _layout(w, rules),
            _base(w, rules),
            _building(w, rules),
            _spaces(w, rules),
            _end(w, rules),
            _tips(w, rules),
            _strategy(w, rules),
            _mistakes(w, rules),
        ],
    }


def _goal(w: _Words, r: Rules, title: str, custom: bool) -> dict[str, Any]:
    packs = (w("one pack", "einem Kartenspiel") if r.decks == 1 else
             w("{n} packs shuffled together", "{n} Kartenspielen, zusammengemischt", n=r.decks))
    text = w("{title} is a patience for one player with {packs}. The aim: bring all "
             "{cards} cards onto {foundations} foundations of thirteen cards each.",
             "{title} ist eine Patience für eine Person mit {packs}. Das Ziel: alle "
             "{cards} Karten auf {foundations} Zielstapel zu je dreizehn Karten bringen.",
             title=title, packs=packs, cards=r.card_count, foundations=r.foundation_count)
    note = w("This game changes some rule options; the rules below are the ones in play.",
             "In diesem Spiel sind Regeln geändert; hier stehen die Regeln, die gelten.") if custom else ""
    return _section("goal", w("The aim", "Das Ziel"), _p(text), _p(note))


def _layout(w: _Words, r: Rules) -> dict[str, Any]:
    if r.reserve == 0:
        terrace = w("The terrace: none in these rules; no card is set aside.",
                    "Die Terrasse: In diesen Regeln gibt es keine; keine Karte wird beiseitegelegt.")
    elif r.reserve == 1:
        terrace = w("The terrace: one face-up card, set aside. It may be played only onto a foundation.",
                    "Die Terrasse: eine offene Karte, beiseitegelegt. Sie darf nur auf einen Zielstapel.")
    else:
        terrace = w("The terrace: {n} cards in an overlapping row, all face up. Only the end card that "
                    "lies on top may be played, and only onto a foundation; then the card under it comes "
                    "free.",
                    "Die Terrasse: {n} offene Karten in einer überlappenden Reihe. Spielbar ist nur die "
                    "letzte Karte, die obenauf liegt, und nur auf einen Zielstapel; dann wird die Karte "
                    "darunter frei.", n=r.reserve)
    foundations = w("The foundations: {n} places that all start with a card of one rank, the base rank, "
                    "and climb from there.",
                    "Die Zielstapel: {n} Plätze, die alle mit einer Karte desselben Werts beginnen, dem "
                    "Basiswert, und von dort aufsteigen.", n=r.foundation_count)
    if r.piles == 1:
        tableau = w("The tableau: one pile that starts with one face-up card. Only its top card can move.",
                    "Die Auslage: ein Stapel mit anfangs einer offenen Karte. Nur seine oberste Karte kann "
                    "ziehen.")
    else:
        tableau = w("The tableau: {n} piles that start with one face-up card each. Only the top card of "
                    "a pile can move.",
                    "Die Auslage: {n} Stapel mit anfangs je einer offenen Karte. Nur die oberste Karte "
                    "eines Stapels kann ziehen.", n=r.piles)
    if r.cards_to_draw:
        stock = w("The stock and the waste: the rest of the cards, face down, turned one at a time onto the "
                  "waste. The top card of the waste is in play.",
                  "Vorrat und Abwurfstapel: der verdeckte Rest der Karten, Karte für Karte auf den "
                  "Abwurfstapel gedreht. Dessen oberste Karte ist im Spiel.")
    elif r.picks_base and r.card_count - r.reserve - r.candidates == 1:
        stock = w("The stock: one face-down card, which fills a pile left empty once the base card is "
                  "chosen; no card is ever turned onto a waste.",
                  "Der Vorrat: eine verdeckte Karte, die nach der Wahl der Basiskarte einen leeren Stapel "
                  "füllt; keine Karte wird je auf einen Abwurfstapel gedreht.")
    elif r.picks_base:
        stock = w("The stock: {n} face-down cards, which fill the piles left empty once the base card is "
                  "chosen; no card is ever turned onto a waste.",
                  "Der Vorrat: {n} verdeckte Karten, die nach der Wahl der Basiskarte die leeren Stapel "
                  "füllen; keine Karte wird je auf einen Abwurfstapel gedreht.",
                  n=r.card_count - r.reserve - r.candidates)
    else:
        stock = w("The stock and the waste: none in these rules; every card is dealt.",
                  "Vorrat und Abwurfstapel: In diesen Regeln gibt es keine; jede Karte wird ausgeteilt.")
    return _section("layout", w("What lies on the table", "Was auf dem Tisch liegt"),
                    _ul(terrace, foundations, tableau, stock))


def _base(w: _Words, r: Rules) -> dict[str, Any]:
    if r.picks_base and r.candidates == 1:
        filled = w("the empty pile gets a card from the stock",
                   "der leere Stapel bekommt eine Karte aus dem Vorrat") if r.piles == 1 else \
            w("each of the {piles} piles, all empty now, gets a card from the stock",
              "jeder der {piles} Stapel, nun alle leer, bekommt eine Karte aus dem Vorrat", piles=r.piles)
        text = w("Before the first move, the card in the first pile is the only candidate: choosing it "
                 "starts the first foundation and sets the base rank of all {foundations} foundations, "
                 "and {filled}.",
                 "Vor dem ersten Zug ist die Karte im ersten Stapel die einzige zur Wahl: Sie zu wählen "
                 "beginnt den ersten Zielstapel und legt den Basiswert aller {foundations} Zielstapel "
                 "fest, und {filled}.",
                 foundations=r.foundation_count, filled=filled)
        return _section("base", w("Choosing the base card", "Die Basiskarte wählen"), _p(text))
    if r.picks_base:
        read = w("Read the terrace, then pick", "Lies die Terrasse und nimm dann") if r.reserve else \
            w("Pick", "Nimm")
        lie = w("{candidates} candidate cards lie in the first piles",
                "liegen {candidates} Karten zur Wahl in den ersten Stapeln", candidates=r.candidates) \
            if r.candidates < r.piles else \
            w("a candidate card lies in each of the {piles} piles",
              "liegt in jedem der {piles} Stapel eine Karte zur Wahl", piles=r.piles)
        others = w("Any other candidate of the same rank starts a foundation too; the rest stay "
                   "in the tableau",
                   "Jede weitere Karte zur Wahl desselben Werts beginnt ebenfalls einen Zielstapel; "
                   "die übrigen bleiben in der Auslage") if r.promote_candidates else \
            w("The other candidates stay in the tableau, those of the same rank too (they go up when "
              "you send them)",
              "Die anderen Karten zur Wahl bleiben in der Auslage, auch die desselben Werts (sie kommen "
              "hinauf, wenn du sie schickst)")
        filled = w("every empty pile gets a card from the stock",
                   "jeder leere Stapel bekommt eine Karte aus dem Vorrat") \
            if r.cards_to_draw or not r.promote_candidates else \
            w("the empty piles get the stock's cards in pile order while they last: there is one too "
              "few for each other candidate that went up",
              "die leeren Stapel bekommen der Reihe nach die Karten des Vorrats, solange welche da "
              "sind: Für jede weitere Karte zur Wahl, die hinaufging, fehlt eine")
        text = w("Before the first move, {lie}. {read} "
                 "one: it starts the first foundation and sets the base rank of all {foundations} "
                 "foundations. {others}, and {filled}.",
                 "Vor dem ersten Zug {lie}. {read} "
                 "eine davon: Sie beginnt den ersten Zielstapel und legt den Basiswert aller "
                 "{foundations} Zielstapel fest. {others}, und {filled}.",
                 lie=lie, read=read, foundations=r.foundation_count, others=others, filled=filled)
        return _section("base", w("Choosing the base card", "Die Basiskarte wählen"), _p(text))
    if r.piles == 1:
        text = w("There is no choice: once the pile has its card, the next card of the pack is turned "
                 "up. It starts the first foundation and sets the base rank.",
                 "Es gibt keine Wahl: Sobald der Stapel seine Karte hat, wird die nächste Karte "
                 "aufgedeckt. Sie beginnt den ersten Zielstapel und legt den Basiswert fest.")
    else:
        text = w("There is no choice: once each of the {piles} piles has its card, the next card of the "
                 "pack is turned up. It starts the first foundation and sets the base rank.",
                 "Es gibt keine Wahl: Sobald jeder der {piles} Stapel seine Karte hat, wird die nächste "
                 "Karte aufgedeckt. Sie beginnt den ersten Zielstapel und legt den Basiswert fest.",
                 piles=r.piles)
    return _section("base", w("The base card", "Die Basiskarte"), _p(text))


def _building(w: _Words, r: Rules) -> dict[str, Any]:
    if r.in_suit:
        up = w("Foundations go up one rank at a time in suit: on the 6♦ goes the 7♦, then the 8♦.",
               "Zielstapel steigen um je einen Wert in Farbe (gleiches Symbol): auf die 6♦ kommt die 7♦, "
               "dann die 8♦.")
    else:
        up = w("Foundations go up one rank at a time and change colour with every card: a black card on a "
               "red one, a red card on a black one. Suits do not matter.",
               "Zielstapel steigen um je einen Wert und wechseln bei jeder Karte die Farbe: Schwarz auf "
               "Rot, Rot auf Schwarz. Das Symbol spielt keine Rolle.")
    corner = w("Foundations turn the corner: after the king comes the ace, so a foundation that starts with "
               "a seven ends with a six. It is complete after thirteen cards.",
               "Zielstapel gehen ums Eck: Nach dem König kommt das Ass, ein Zielstapel, der mit einer Sieben "
               "beginnt, endet also mit einer Sechs. Nach dreizehn Karten ist er vollständig.")
    start = w("Any card of the base rank that comes free may start an empty foundation.",
              "Jede frei gewordene Karte des Basiswerts darf einen leeren Zielstapel beginnen.")
    down = w("Piles build down one rank at a time in alternating colours and turn the corner too: a red 8 "
             "on a black 9, a king on an ace.",
             "Stapel der Auslage fallen um je einen Wert mit wechselnden Farben und gehen ebenfalls ums "
             "Eck: eine rote 8 auf eine schwarze 9, ein König auf ein Ass.")
    single = w("Cards move one at a time; an ordered run never moves as a block.",
               "Karten ziehen einzeln; eine geordnete Reihe zieht nie als Ganzes.")
    where = _where(w, r)
    if r.reserve:
        where += w(" The terrace card may go only to a foundation.",
                   " Die Terrassenkarte darf nur auf einen Zielstapel.")
    back = w("Cards may come back from a foundation onto a pile, except the base card at its bottom.",
             "Karten dürfen von einem Zielstapel zurück an einen Stapel, außer der Basiskarte ganz unten."
             ) if r.foundation_return else None
    return _section("building", w("Building", "Bauen"), _ul(up, corner, start, down, single, where, back))


def _where(w: _Words, r: Rules) -> str:
    """Where the waste card (while cards are drawn) and a pile's top card
    may go: a foundation, or another pile (a single pile's own card has
    none)."""
    if r.piles == 1:
        return w("The top waste card may go to a foundation or onto the pile, the pile's top card only to "
                 "a foundation.",
                 "Die oberste Karte des Abwurfstapels darf auf einen Zielstapel oder an den Stapel, dessen "
                 "oberste Karte nur auf einen Zielstapel.") if r.cards_to_draw else \
            w("The pile's top card may go only to a foundation.",
              "Die oberste Karte des Stapels darf nur auf einen Zielstapel.")
    return w("The top waste card and the top card of each pile may go to a foundation or onto a pile.",
             "Die oberste Karte des Abwurfstapels und die oberste Karte jedes Stapels dürfen auf einen "
             "Zielstapel oder an einen Stapel.") if r.cards_to_draw else \
        w("The top card of each pile may go to a foundation or onto another pile.",
          "Die oberste Karte jedes Stapels darf auf einen Zielstapel oder an einen anderen Stapel.")


def _spaces(w: _Words, r: Rules) -> dict[str, Any]:
    if not r.cards_to_draw:
        space = _space_free(w, r) if r.spaces is SpaceRule.FREE else _space_undrawn(w)
        return _section("spaces", w("Empty piles", "Lücken"), _p(space))
    if r.spaces is SpaceRule.AUTO:
        space = w("A pile that empties is filled at once with the top waste card, or with the next stock "
                  "card when the waste is empty. You never choose what fills it; a pile stays empty only "
                  "once stock and waste are both used up.",
                  "Ein leer gewordener Stapel wird sofort mit der obersten Karte des Abwurfstapels gefüllt, "
                  "oder mit der nächsten Karte des Vorrats, wenn der Abwurfstapel leer ist. Was hineinkommt, "
                  "wählst du nicht; leer bleibt ein Stapel erst, wenn Vorrat und Abwurfstapel aufgebraucht "
                  "sind.")
    elif r.spaces is SpaceRule.FREE:
        space = _space_free(w, r)
    else:
        space = w("A pile that empties stays empty until you move the top waste card there; no other card "
                  "may fill it.",
                  "Ein leer gewordener Stapel bleibt leer, bis du die oberste Karte des Abwurfstapels "
                  "hineinlegst; keine andere Karte darf ihn füllen.")
    if r.redeals:
        times = w.count(r.redeals, ("time", "times"), ("Mal", "Mal"))
        stock = w("When the stock runs out, the waste is turned over into a new stock, {times} in all.",
                  "Ist der Vorrat aufgebraucht, wird der Abwurfstapel zu einem neuen Vorrat umgedreht, "
                  "insgesamt {times}.", times=times) if r.redeals > 1 else \
            w("When the stock runs out, the waste is turned over into a new stock once.",
              "Ist der Vorrat aufgebraucht, wird der Abwurfstapel einmal zu einem neuen Vorrat umgedreht.")
    else:
        stock = w("You go through the stock only once: there is no redeal.",
                  "Durch den Vorrat gehst du nur einmal: Es gibt keinen neuen Durchgang.")
    return _section("spaces", w("Empty piles and the stock", "Lücken und Vorrat"), _p(space), _p(stock))


def _space_free(w: _Words, r: Rules) -> str:
    """What may fill an empty pile with free spaces: the waste card (while
    cards are drawn), the top card of another pile (with more than one) or
    of a foundation (with foundation return); stays empty for good when
    none of them is there."""
    tops = ([w("another pile", "eines anderen Stapels")] if r.piles > 1 else []) + \
        ([w("a foundation", "eines Zielstapels")] if r.foundation_return else [])
    fillers = ([w("the waste card", "die Karte vom Abwurfstapel")] if r.cards_to_draw else []) + \
        ([w("the top card of {tops}", "die oberste Karte {tops}", tops=w(" or of ", " oder ").join(tops))]
         if tops else [])
    if not fillers:
        return _space_undrawn(w)
    return w("A pile that empties stays empty until you move a card there: {fillers} may fill it{never}.",
             "Ein leer gewordener Stapel bleibt leer, bis du eine Karte hineinlegst: {fillers}{never}.",
             fillers=w(" or ", " oder ").join(fillers),
             never=w(", never the terrace card", ", nie die Terrassenkarte") if r.reserve else "")


def _space_undrawn(w: _Words) -> str:
    """An empty pile that nothing can fill: no card is drawn (no stock after
    the layout, no waste) and the space rule lets in no other."""
    return w("A pile that empties stays empty for good: no stock or waste card is left to fill it.",
             "Ein leer gewordener Stapel bleibt für immer leer: Es bleibt keine Karte aus Vorrat oder "
             "Abwurfstapel, die ihn füllt.")


def _end(w: _Words, r: Rules) -> dict[str, Any]:
    text = w("The game is won when all {cards} cards lie on the foundations, and lost when no move is left.",
             "Gewonnen ist das Spiel, wenn alle {cards} Karten auf den Zielstapeln liegen, verloren, wenn "
             "kein Zug mehr möglich ist.", cards=r.card_count)
    return _section("end", w("Winning and losing", "Gewinnen und verlieren"), _p(text))


def _tips(w: _Words, r: Rules) -> dict[str, Any]:
    pick = [
        w("Read the terrace before you choose the base card: a rank with several cards buried deep in the "
          "terrace is a poor choice.",
          "Lies die Terrasse, bevor du die Basiskarte wählst: Ein Wert, von dem mehrere Karten tief in der "
          "Terrasse stecken, ist eine schlechte Wahl."),
        w("Look for pairs in the terrace where a card you need later lies on top of one you need sooner. "
          "The right base rank can turn such a pair into a good order.",
          "Such in der Terrasse nach Paaren, bei denen eine später gebrauchte Karte auf einer früher "
          "gebrauchten liegt. Der richtige Basiswert kann so ein Paar in eine gute Reihenfolge bringen."),
    ] if r.picks_base and r.reserve else [] if r.picks_base or not r.reserve else [
        w("The base card is dealt, not chosen: before your first move, find where the base-rank cards lie "
          "in the terrace and plan towards them.",
          "Die Basiskarte wird aufgedeckt, nicht gewählt: Sieh vor dem ersten Zug nach, wo die Karten des "
          "Basiswerts in der Terrasse liegen, und plane auf sie hin."),
    ]
    cover = w("Think before you cover a lone card in a pile: to get that pile back you must clear all of it.",
              "Überleg, bevor du eine einzelne Karte in der Auslage zudeckst: Um den Stapel wieder "
              "freizubekommen, musst du ihn ganz abbauen.")
    return _section("tips", w("Tips for beginners", "Tipps für Einsteiger"), _ul(
        *pick,
        w("Build on the foundations first of all to release the current terrace card, not just because a "
          "move is there.",
          "Bau die Zielstapel vor allem auf, um die gerade freie Terrassenkarte loszuwerden, nicht nur, "
          "weil ein Zug möglich ist.") if r.reserve else None,
        cover,
        w("Keep the cards you will soon want on top, and a spread of different ranks within reach.",
          "Halte bald gebrauchte Karten oben und möglichst verschiedene Werte griffbereit."),
    ))


def _strategy(w: _Words, r: Rules) -> dict[str, Any]:
    colours = w("Keep both colours moving: on a foundation a red eight can follow only a black seven, so "
                "while the black sevens lie buried in the piles, every red eight waits.",
                "Halte beide Farben in Bewegung: Auf einem Zielstapel kann eine rote Acht nur auf eine "
                "schwarze Sieben folgen. Liegen die schwarzen Siebenen in der Auslage begraben, wartet "
                "jede rote Acht.") if not r.in_suit else \
        w("Building in suit leaves each card only {places} of its own suit: follow how each "
          "suit is doing, not only the ranks.",
          "In Farbe gebaut passt jede Karte nur auf {places} ihres Symbols: Verfolge, wie jede "
          "Farbe vorankommt, nicht nur die Werte.",
          places=w("one foundation, that", "einen Zielstapel, den") if r.decks == 1 else
          w("the {n} foundations", "die {n} Zielstapel", n=r.decks))
    return _section("strategy", w("Strategy", "Strategie"), _ul(
        w("Play the terrace card whenever it can go: it blocks every card behind it, while a tableau card "
          "can wait.",
          "Spiel die Terrassenkarte, sobald sie passt: Sie blockiert alle Karten dahinter, eine Karte der "
          "Auslage kann warten.") if r.reserve else None,
        w("Start every foundation early. A card of the base rank that turns up should usually go straight "
          "up, because a foundation that has not started takes nothing.",
          "Eröffne alle Zielstapel früh. Eine Karte des Basiswerts, die auftaucht, gehört meist sofort "
          "nach oben, denn ein nicht eröffneter Zielstapel nimmt nichts."),
        w("Build the piles to serve the foundations, not to look tidy: a long ordered pile only ever offers "
          "its top card.",
          "Bau die Stapel für die Zielstapel, nicht für die Ordnung: Ein langer geordneter Stapel bietet "
          "immer nur seine oberste Karte an."),
        colours,
        _refill(w, r),
        w("Before you turn the next card, ask whether the waste card is one you will need soon, for a "
          "foundation or to take a card from a pile: once it is covered it is usually out of reach.",
          "Bevor du die nächste Karte aufdeckst, frag dich, ob du die Karte auf dem Abwurfstapel bald "
          "brauchst, für einen Zielstapel oder um eine Karte aus der Auslage aufzunehmen: Ist sie "
          "zugedeckt, ist sie meist außer Reichweite.") if r.cards_to_draw else None,
    ))


def _refill(w: _Words, r: Rules) -> str | None:
    """How to use an empty pile (None where nothing can fill one: the
    mistakes say so)."""
    if r.spaces is SpaceRule.FREE:
        return w("An empty pile is your only storage: fill it with a card that unblocks something, not the "
                 "first card at hand.",
                 "Ein leerer Stapel ist dein einziger Ablageplatz: Füll ihn mit einer Karte, die etwas frei "
                 "macht, nicht mit der erstbesten.")
    if not r.cards_to_draw:
        return None
    if r.spaces is SpaceRule.AUTO:
        return w("Emptying a short pile pulls a fresh card onto the table without spending a draw, and can "
                 "dispose of a waste card you cannot use.",
                 "Einen kurzen Stapel abzuräumen holt eine neue Karte auf den Tisch, ohne eine Karte "
                 "aufzudecken, und kann eine unbrauchbare Karte vom Abwurfstapel unterbringen.")
    return w("An empty pile takes only the waste card: keep it for a waste card you will need and cannot "
             "place elsewhere, not the first one turned.",
             "Ein leerer Stapel nimmt nur die Karte vom Abwurfstapel: Heb ihn für eine Karte auf, die du "
             "brauchen wirst und sonst nirgends unterbringst, nicht für die erstbeste.")


def _mistakes(w: _Words, r: Rules) -> dict[str, Any]:
    return _section("mistakes", w("Common mistakes", "Häufige Fehler"), _ul(
        w("Picking the base card without reading the terrace first.",
          "Die Basiskarte wählen, ohne zuerst die Terrasse zu lesen."
          ) if r.picks_base and r.reserve else None,
        w("Leaving a playable terrace card where it is to make a neat tableau move.",
          "Eine spielbare Terrassenkarte liegen lassen, um einen hübschen Zug in der Auslage zu machen."
          ) if r.reserve else None,
        w("Building long piles that bury the cards the foundations need.",
          "Lange Stapel bauen, die Karten begraben, die die Zielstapel brauchen."),
        w("Emptying a pile once stock and waste are used up: it stays empty for good.",
          "Einen Stapel leeren, wenn Vorrat und Abwurfstapel aufgebraucht sind: Er bleibt für immer leer."
          ) if r.spaces is SpaceRule.AUTO and r.cards_to_draw else None,
        w("Emptying a pile without need: nothing can fill it again.",
          "Einen Stapel ohne Not leeren: Nichts kann ihn wieder füllen."
          ) if r.spaces is not SpaceRule.FREE and not r.cards_to_draw else None,
        w("Turning a new card over a waste card that you will need soon.",
          "Eine neue Karte über eine Karte des Abwurfstapels decken, die du bald brauchst."
          ) if r.cards_to_draw else None,
        w("Forgetting that foundations turn the corner and waiting for something to follow the king.",
          "Vergessen, dass Zielstapel ums Eck gehen, und auf etwas nach dem König warten."),
        w("Sending every card of one colour and rank up while the other colour has no way to follow.",
          "Alle Karten einer Farbe und eines Werts hochlegen, während die andere Farbe nicht folgen kann."
          ) if not r.in_suit else None,
    ))
