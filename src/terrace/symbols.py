"""The letters and symbols that name ranks and suits, shared by the cards
and by the refusals' wording (which must not import the cards: the cards
raise refusals).

>>> RANKS[0], RANKS[-1], SUITS, SUIT_SYMBOLS[SUITS.index("H")]
('A', 'K', 'SHDC', '♥')
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
SPACES = " \t\n\r\v\f"
"""The white space the notation skips and separates with: ASCII only (see
:data:`terrace.moves.SPACES`)."""
