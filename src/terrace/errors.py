"""Exceptions raised by the engine.

Every error is a :class:`ValueError` subclass whose message is written for
a player, not a programmer. The engine raises them with a
:class:`~terrace.refusals.Reason` (a refusal code and its parameters), so a
front end can show the reason in the player's language:

>>> from terrace.refusals import Reason, Refusal
>>> error = IllegalMoveError(Reason(Refusal.STOCK_EMPTY), move="s")
>>> str(error), error.code.value, error.text("de")
('s: the stock is empty', 'stock-empty', 'Der Vorrat ist leer.')
>>> issubclass(IllegalMoveError, ValueError)
True
"""

from __future__ import annotations

from enum import StrEnum

from terrace.refusals import Reason


class TerraceError(ValueError):
    """Base class of every error the engine raises on bad input.

    ``reason`` is the refusal with its parameters, or None for an error
    raised with plain words (layers above the engine may do so).
    """

    def __init__(self, reason: Reason | str) -> None:
        self.reason: Reason | None = reason if isinstance(reason, Reason) else None
        super().__init__(str(reason))

    @property
    def code(self) -> StrEnum | None:
        """The refusal code, if the error has one."""
        return None if self.reason is None else self.reason.code

    @property
    def why(self) -> Reason | str:
        """The reason, or the plain words: what to nest in another refusal."""
        return str(self) if self.reason is None else self.reason

    def text(self, language: str = "en") -> str:
        """The message in ``language`` (``en`` or ``de``)."""
        return str(self) if self.reason is None else self.reason.text(language)


class InvalidCardError(TerraceError):
    """A card code could not be read."""


class InvalidRulesError(TerraceError):
    """A rule option is unknown or out of range."""


class InvalidDealError(TerraceError):
    """A deal string or deal number is not valid for the rules."""


class InvalidMoveError(TerraceError):
    """A move could not be read (bad notation)."""


class IllegalMoveError(TerraceError):
    """A well-formed move that the rules do not allow in this position.

    Its English message starts with the move (``"s: the stock is empty"``);
    :meth:`text` gives the reason alone. The message is worded when it is
    read, not when the move is refused: a caller trying moves by the
    thousand (``push`` in a ``try``) never reads most of them.
    """

    def __init__(self, reason: Reason | str, move: str | None = None) -> None:
        ValueError.__init__(self, reason, move)  # (not TerraceError's: it words the reason at once)
        self.reason = reason if isinstance(reason, Reason) else None
        self.move = move

    def __str__(self) -> str:
        words = str(self.args[0])
        return words if self.move is None else f"{self.move}: {words}"


class NoMoveError(TerraceError, IndexError):
    """There is no move to take back (``pop``), play again (``redo``) or
    look at (``peek_move``). An ``IndexError`` too, as it was, for the
    callers that catch that."""


class InvalidPositionError(TerraceError):
    """A position string is malformed or describes an impossible position."""


class JsonRefusedError(TerraceError):
    """JSON from outside that Python's reader takes but that is refused:
    a key given twice, or a number JSON does not have."""


class DuplicateKeyError(JsonRefusedError):
    """A JSON object from outside gives one key twice (which one was meant
    is not known: Python's reader kept the last without a word)."""


class NotJsonNumberError(JsonRefusedError):
    """JSON from outside holds ``NaN``, ``Infinity`` or ``-Infinity``,
    which Python's reader takes as numbers but JSON (RFC 8259) has not;
    or a number beyond a float's range, which it took as infinite or 0."""


class InvalidRecordError(TerraceError):
    """A saved game record is malformed or does not replay."""
