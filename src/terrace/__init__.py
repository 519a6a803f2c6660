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
from terrace.position import BaseBoard
from terrace.record import GameRecord
from terrace.refusals import Reason, Refusal
from terrace.rules import RULE_OPTIONS, FoundationBuild, Rules, SpaceRule
from terrace.variants import PRESETS, VARIANTS, Variant, get_rules

__all__ = [
    "DEAL_VERSION",
    "PRESETS",
    "RULE_OPTIONS",
    "VARIANTS",
    "BaseBoard",
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
    "Reason",
    "Refusal",
    "Rules",
    "SpaceRule",
    "Status",
    "TerraceError",
    "Variant",
    "card_code",
    "get_rules",
    "parse_card",
]
