"""Terrace: the two-deck patience and its family, with a solver.

>>> import terrace
>>> board = terrace.Board.from_number(7, terrace.get_rules("falling-star"))
>>> board.status.value
'playing'
"""

from terrace.board import Board, LegalMoves, Status
from terrace.cards import Card, card_code, parse_card
from terrace.deal import DEAL_VERSION, Deal
from terrace.errors import (
    IllegalMoveError,
    InvalidCardError,
    InvalidDealError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidRulesError,
    TerraceError,
)
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.rules import FoundationBuild, Rules, SpaceRule
from terrace.variants import PRESETS, get_rules

__all__ = [
    "DEAL_VERSION",
    "PRESETS",
    "Board",
    "Card",
    "Deal",
    "FoundationBuild",
    "GameRecord",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidDealError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidRecordError",
    "InvalidRulesError",
    "LegalMoves",
    "Move",
    "Rules",
    "SpaceRule",
    "Status",
    "TerraceError",
    "card_code",
    "get_rules",
    "parse_card",
]
