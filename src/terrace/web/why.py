"""Why a card on the page cannot move: the explanation a player gets when
they press a card that is covered, or that has nowhere to go.

A refused *move* is explained by the engine (:meth:`Board.refusal`); a
press on a card is not a move yet, so this module names the pile and the
card and asks the engine what it can. Its own codes (:class:`Why`) carry
their English and German words like every other refusal.

>>> from terrace.board import Board
>>> board = Board.from_number(7)
>>> explain(board, "reserve", 3).text()
'choose a base card first (c1 to c3)'
>>> board.push_text("c1")
Move.parse('c1')
>>> print(explain(board, "reserve", 3))  # doctest: +NORMALIZE_WHITESPACE
the K♥ is not free yet: only the end card of the terrace can be played, and the cards
on it must go to the foundations first
>>> explain(board, "reserve").text("de")
'Eine Terrassenkarte darf nur auf einen Zielstapel: Noch nimmt kein Zielstapel die D♥.'
>>> explain(board, "t1") is None  # the 6♥ can go onto pile 8
True
"""

from __future__ import annotations

import re
from enum import StrEnum

from terrace.board import Board
from terrace.building import BELOW_KEY, COLOUR_KEY, key_words
from terrace.cards import CARDS_PER_DECK, CODE, Card
from terrace.errors import TerraceError
from terrace.moves import SPACES, Move
from terrace.refusals import Reason, Refusal, Wording, add_wordings, clip

__all__ = ["PILE", "Why", "WhyError", "explain", "pile_cards", "pile_name"]

PILE = re.compile(r"stock|waste|reserve|[ft][1-9][0-9]{0,2}")
"""The names of piles as the page and the API write them."""


class Why(StrEnum):
    """Why a card the player pressed cannot move (the value is the code)."""

    CARD_COVERED = "card-covered"
    TERRACE_CARD_COVERED = "terrace-card-covered"
    WASTE_CARD_COVERED = "waste-card-covered"
    FOUNDATION_CARD_COVERED = "foundation-card-covered"
    TERRACE_CARD_STUCK = "terrace-card-stuck"
    CARD_STUCK = "card-stuck"
    CARD_STUCK_ALONE = "card-stuck-alone"
    FOUNDATION_CARD_STUCK = "foundation-card-stuck"
    CARD_STUCK_SPACE = "card-stuck-space"
    FOUNDATION_CARD_STUCK_SPACE = "foundation-card-stuck-space"
    PILE_NAME_UNKNOWN = "pile-name-unknown"
    CARD_INDEX_RANGE = "card-index-range"


WHY_WORDINGS: dict[Why, Wording] = {
    Why.CARD_COVERED: Wording(
        422, "the {card:card} is covered: only the top card of pile {pile} can move, one card at a time "
        "(a run of cards never moves together)",
        "Die {card:card} ist zugedeckt: Nur die oberste Karte von Stapel {pile} darf ziehen, immer eine "
        "Karte allein (eine Reihe zieht nie als Ganzes)."),
    Why.TERRACE_CARD_COVERED: Wording(
        422, "the {card:card} is not free yet: only the end card of the terrace can be played, and the "
        "cards on it must go to the foundations first",
        "Die {card:card} ist noch nicht frei: Nur die letzte Karte der Terrasse ist spielbar, und die "
        "Karten darauf müssen zuerst auf die Zielstapel."),
    Why.WASTE_CARD_COVERED: Wording(
        422, "the {card:card} is covered: only the top card of the waste is in play",
        "Die {card:card} ist zugedeckt: Nur die oberste Karte des Abwurfstapels ist im Spiel."),
    Why.FOUNDATION_CARD_COVERED: Wording(
        422, "the {card:card} is covered: only the top card of foundation {foundation} may come back onto "
        "a pile",
        "Die {card:card} ist zugedeckt: Nur die oberste Karte von Zielstapel {foundation} darf zurück auf "
        "einen Stapel."),
    Why.TERRACE_CARD_STUCK: Wording(
        422, "a terrace card may go only to a foundation: {problem}",
        "Eine Terrassenkarte darf nur auf einen Zielstapel: {problem}"),
    Why.CARD_STUCK: Wording(
        422, "the {card:card} has nowhere to go yet: no foundation takes it, and no pile has a "
        "{colour:colour} {rank:rank} on top",
        "Die {card:card} kann noch nirgendwohin: Kein Zielstapel nimmt sie, und kein Stapel hat oben "
        "{colour_rank:einen}."),
    # (the card of the only pile: there is no other pile it could go on)
    Why.CARD_STUCK_ALONE: Wording(
        422, "the {card:card} has nowhere to go yet: no foundation takes it, and there is no other pile",
        "Die {card:card} kann noch nirgendwohin: Kein Zielstapel nimmt sie, und es gibt keinen anderen "
        "Stapel."),
    Why.FOUNDATION_CARD_STUCK: Wording(
        422, "the {card:card} may come back only onto a pile, and no pile has a {colour:colour} "
        "{rank:rank} on top",
        "Die {card:card} darf nur zurück auf einen Stapel, und kein Stapel hat oben "
        "{colour_rank:einen}."),
    # (with a pile empty that the rules keep it from: {space} is the
    # engine's refusal of the move there, space-takes-waste-only or
    # space-stays-empty)
    Why.CARD_STUCK_SPACE: Wording(
        422, "the {card:card} has nowhere to go yet: no foundation takes it, no pile has a "
        "{colour:colour} {rank:rank} on top, and {space}",
        "Die {card:card} kann noch nirgendwohin: Kein Zielstapel nimmt sie, und kein Stapel hat oben "
        "{colour_rank:einen}. {space}"),
    Why.FOUNDATION_CARD_STUCK_SPACE: Wording(
        422, "the {card:card} may come back only onto a pile, no pile has a {colour:colour} {rank:rank} "
        "on top, and {space}",
        "Die {card:card} darf nur zurück auf einen Stapel, und kein Stapel hat oben "
        "{colour_rank:einen}. {space}"),
    Why.PILE_NAME_UNKNOWN: Wording(
        400, "there is no pile {pile!r} in this game: use stock, waste, reserve, f1 to f{foundations} "
        "or t1 to t{piles}",
        "In diesem Spiel gibt es keinen Stapel „{pile}“: Erlaubt sind stock, waste, reserve, f1 bis "
        "f{foundations} und t1 bis t{piles}."),
    Why.CARD_INDEX_RANGE: Wording(
        400, "index must be a number from 0 to {last} (the card's place in {pile}, counted from the bottom)",
        "„index“ muss eine Zahl von 0 bis {last} sein (der Platz der Karte in {pile}, von unten gezählt)."),
}
"""What each explanation says, and the HTTP status of the input refusals."""

add_wordings(Why, WHY_WORDINGS)


def pile_cards(board: Board, pile: str) -> list[Card]:
    """The face-up cards of a pile by its page name (the stock has none).

    >>> [CODE[c] for c in pile_cards(Board.from_number(7), "t2")]
    ['7D']
    """
    if pile in ("stock", "waste", "reserve"):
        return {"stock": [], "waste": board.waste, "reserve": board.reserve}[pile]
    piles = board.foundations if pile[0] == "f" else board.tableau
    return piles[int(pile[1:]) - 1]


class WhyError(TerraceError):
    """A pile or card index that the game does not have."""


def pile_name(text: str) -> str:
    """The page's name of the pile ``text`` names in any case, spaces
    around aside, as the move notation reads its places (``T1`` is ``t1``,
    as ``T1F`` is ``t1f``: it was refused as "no pile 'T1'"); ``text``
    itself when it names none, for the refusal to repeat as it was sent.

    >>> pile_name(" T1 "), pile_name("Reserve"), pile_name("T01")
    ('t1', 'reserve', 'T01')
    """
    bare = text.strip(SPACES).lower() if text.isascii() else text
    return bare if PILE.fullmatch(bare) else text


def check_pile(board: Board, pile: str) -> None:
    """Raise :class:`WhyError` unless ``pile`` names a pile of this game."""
    if PILE.fullmatch(pile):
        if pile[0] not in "ft":
            return
        count = len(board.foundations if pile[0] == "f" else board.tableau)
        if 1 <= int(pile[1:]) <= count:
            return
    raise WhyError(Reason(Why.PILE_NAME_UNKNOWN, pile=clip(pile), foundations=len(board.foundations),
                             piles=len(board.tableau)))


def explain(board: Board, pile: str, index: int | None = None) -> Reason | None:
    """Why the card at ``index`` (0 = bottom; None = the top card) of
    ``pile`` cannot move now, or None when pressing it does something (it
    can move, it is a candidate to choose, or it is the stock to draw from).
    Raises :class:`WhyError` for a pile or index this game lacks."""
    check_pile(board, pile)
    cards = pile_cards(board, pile)
    if index is not None and not 0 <= index < max(len(cards), 1):
        raise WhyError(Reason(Why.CARD_INDEX_RANGE, last=max(len(cards) - 1, 0), pile=pile))
    if pile == "stock":
        return board.refusal(Move.draw())
    if board.choosing:
        chosen = pile[0] == "t" and int(pile[1:]) <= board.rules.candidates
        return None if chosen else Reason(Refusal.CHOOSE_FIRST, candidates=board.rules.candidates)
    if not cards:
        return _empty(board, pile)
    top = len(cards) - 1
    if index is not None and index < top:
        card = CODE[cards[index]]
        if pile == "reserve":
            return Reason(Why.TERRACE_CARD_COVERED, card=card)
        if pile == "waste":
            return Reason(Why.WASTE_CARD_COVERED, card=card)
        if pile[0] == "t":
            return Reason(Why.CARD_COVERED, card=card, pile=int(pile[1:]))
        if board.rules.foundation_return:  # (else no foundation card moves, and the top's reason says so)
            return Reason(Why.FOUNDATION_CARD_COVERED, card=card, foundation=int(pile[1:]))
    return _top(board, pile, cards[-1])


def _empty(board: Board, pile: str) -> Reason:
    """Why an empty pile has no card to move."""
    if pile == "reserve":
        return Reason(Refusal.TERRACE_EMPTY)
    if pile == "waste":
        return Reason(Refusal.WASTE_EMPTY)
    if pile[0] == "t":
        return Reason(Refusal.PILE_EMPTY, pile=int(pile[1:]))
    return Reason(Refusal.FOUNDATION_EMPTY, foundation=int(pile[1:]))


def _top(board: Board, pile: str, card: Card) -> Reason | None:
    """Why the top card of ``pile`` has no legal move, if it has none."""
    place = {"reserve": "r", "waste": "w"}.get(pile, pile)
    if board.moves_from(place):
        return None
    if pile == "reserve":
        problem = board.refusal(Move.parse("rf"))
        return None if problem is None else Reason(Why.TERRACE_CARD_STUCK, problem=problem)
    if pile[0] == "f":
        refused = board.refusal(Move.parse(f"{pile}t1"))
        if refused is not None and refused.code in (Refusal.FOUNDATIONS_KEEP_CARDS, Refusal.GAME_WON,
                                                    Refusal.FOUNDATION_BASE_STAYS):
            return refused
        return _stuck(board, pile, card, Why.FOUNDATION_CARD_STUCK, Why.FOUNDATION_CARD_STUCK_SPACE)
    if place[0] == "t" and board.rules.piles == 1:
        return Reason(Why.CARD_STUCK_ALONE, card=CODE[card])
    return _stuck(board, place, card, Why.CARD_STUCK, Why.CARD_STUCK_SPACE)


_SPACE_REFUSALS = (Refusal.SPACE_TAKES_WASTE_ONLY, Refusal.SPACE_STAYS_EMPTY)


def _stuck(board: Board, place: str, card: Card, code: Why, spaced: Why) -> Reason:
    """Why the top card at ``place`` has nowhere to go: no pile top takes
    it, and, when a pile lies empty, why the rules keep it from there (in
    Wood an empty pile takes only the waste card; with automatic spaces a
    pile stays empty once the waste and stock are used up): the player
    sees the empty pile, which "no pile has a red J on top" left out."""
    for number, cards in enumerate(board.tableau, 1):
        if not cards:
            space = board.refusal(Move.parse(f"{place}t{number}"))
            if space is not None and space.code in _SPACE_REFUSALS:
                return Reason(spaced, card=CODE[card], space=space, **_wanted_top(card))
            break
    return Reason(code, card=CODE[card], **_wanted_top(card))


_TOP_FOR = {BELOW_KEY[top]: COLOUR_KEY[top] for top in range(CARDS_PER_DECK)}
"""For the key of a card, the key of the pile top it goes on (from the
tableau's building table)."""


def _wanted_top(card: Card) -> dict[str, str]:
    """The colour and rank of the pile top that ``card`` could go on.

    >>> from terrace.cards import parse_card
    >>> _wanted_top(parse_card("KH")), _wanted_top(parse_card("8S"))
    ({'colour': 'black', 'rank': 'A'}, {'colour': 'red', 'rank': '9'})
    """
    colour, rank = key_words(_TOP_FOR[COLOUR_KEY[card]], in_suit=False)
    return {"colour": colour, "rank": rank}
