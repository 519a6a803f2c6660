"""Terrace: the two-deck patience and its family, with a solver.

>>> import terrace
>>> board = terrace.Board.from_number(7, terrace.get_rules("falling-star"))
>>> board.status.value
'playing'
"""

import importlib

TYPE_CHECKING = False
"""(typing's own, which mypy reads as True: ``import typing`` loads ``re``,
90 ms of a busy machine's start before the command line can catch a
Ctrl+C, which then showed a traceback; see :mod:`terrace.cli`)"""

if TYPE_CHECKING:
    from typing import Any

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
        NoMoveError,
        TerraceError,
    )
    from terrace.moves import Move
    from terrace.position import BaseBoard
    from terrace.record import GameRecord
    from terrace.refusals import Reason, Refusal
    from terrace.rules import RULE_OPTIONS, FoundationBuild, Rules, SpaceRule
    from terrace.variants import PRESETS, VARIANTS, Variant, get_rules

_HOMES = {
    "Board": "terrace.board",
    "LegalMoves": "terrace.board",
    "Status": "terrace.board",
    "Card": "terrace.cards",
    "card_code": "terrace.cards",
    "parse_card": "terrace.cards",
    "DEAL_VERSION": "terrace.deal",
    "Deal": "terrace.deal",
    "IllegalMoveError": "terrace.errors",
    "InvalidCardError": "terrace.errors",
    "InvalidDealError": "terrace.errors",
    "InvalidMoveError": "terrace.errors",
    "InvalidPositionError": "terrace.errors",
    "InvalidRecordError": "terrace.errors",
    "InvalidRulesError": "terrace.errors",
    "NoMoveError": "terrace.errors",
    "TerraceError": "terrace.errors",
    "Move": "terrace.moves",
    "BaseBoard": "terrace.position",
    "GameRecord": "terrace.record",
    "Reason": "terrace.refusals",
    "Refusal": "terrace.refusals",
    "RULE_OPTIONS": "terrace.rules",
    "FoundationBuild": "terrace.rules",
    "Rules": "terrace.rules",
    "SpaceRule": "terrace.rules",
    "PRESETS": "terrace.variants",
    "VARIANTS": "terrace.variants",
    "Variant": "terrace.variants",
    "get_rules": "terrace.variants",
}
"""Where each name of the package is defined. Each loads when first asked
for (PEP 562), so that ``import terrace`` is quick: ``terrace`` on the
command line loads its command's modules inside the command, where
Ctrl+C stops it in one line (a Ctrl+C while the engine loaded at
``import terrace`` showed a traceback)."""


def __getattr__(name: str) -> "Any":
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'terrace' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


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
    "NoMoveError",
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
