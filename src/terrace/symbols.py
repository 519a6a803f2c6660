"""The letters and symbols that name ranks and suits, and the size of a
deck, shared by the cards, by the rules (which the cards read a number of
decks with) and by the refusals' wording (which must not import the
cards: the cards raise refusals).

>>> RANKS[0], RANKS[-1], SUITS, SUIT_SYMBOLS[SUITS.index("H")]
('A', 'K', 'SHDC', '♥')
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
CARDS_PER_DECK = len(RANKS) * len(SUITS)
SPACES = " \t\n\r\v\f"
"""The white space the notation skips and separates with: ASCII only (see
:data:`terrace.moves.SPACES`)."""
NO_BREAK_SPACES = "\u00a0\u2007\u202f"
"""The no-break spaces (U+00A0, the figure space U+2007, the narrow U+202F)
that a text copied from a web page or a word processor holds where spaces
were: a deal string, a list of nothing but cards, takes them between its
cards (:data:`DEAL_SPACES`), and a game record's file between its JSON
values."""
DEAL_SPACES = SPACES + NO_BREAK_SPACES
"""What separates the cards of a deal string: ASCII white space and the
no-break spaces. Other Unicode white space (U+2028, U+3000, U+0085, the
separators U+001C to U+001F) is part of a card's word, and so refused."""
