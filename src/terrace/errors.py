"""Exceptions raised by the engine.

Every error is a :class:`ValueError` subclass whose message is written for
a player, not a programmer.

>>> issubclass(IllegalMoveError, ValueError)
True
"""

from __future__ import annotations


class TerraceError(ValueError):
    """Base class of every error the engine raises on bad input."""


class InvalidCardError(TerraceError):
    """A card code could not be read."""


class InvalidRulesError(TerraceError):
    """A rule option is unknown or out of range."""


class InvalidDealError(TerraceError):
    """A deal string or deal number is not valid for the rules."""


class InvalidMoveError(TerraceError):
    """A move could not be read (bad notation)."""


class IllegalMoveError(TerraceError):
    """A well-formed move that the rules do not allow in this position."""


class InvalidPositionError(TerraceError):
    """A position string is malformed or describes an impossible position."""


class InvalidRecordError(TerraceError):
    """A saved game record is malformed or does not replay."""
