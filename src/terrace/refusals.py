"""Why something is refused: a code, its parameters, and its words.

Every reason the engine refuses a move, a position, a deal, a card, a record
or a rule option is a :class:`Refusal` code. A :class:`Reason` is a code with
its parameters; its English and German text and the HTTP status that fits it
come from one table, :data:`WORDINGS`, keyed by code. Parameters are plain
values (numbers, card codes such as ``"QS"``, rank codes such as ``"Q"``,
place codes such as ``"t3"``) or another reason, so that each language
renders them in its own words.

The catalogue is a typed table rather than gettext ``.po`` files: two
languages and about a hundred messages need no extraction or compile step,
and a missing German text is a failing test (``tests/test_docs.py``), not a
silent fallback. The templates are ``str.format`` strings with named fields,
so they could move into a gettext catalogue unchanged if more languages come.

>>> reason = Reason(Refusal.FOUNDATION_NEEDS_BASE, foundation=2, rank="Q")
>>> str(reason)
'foundation 2 is empty: only a Q can start it'
>>> reason.text("de")
'Zielstapel 2 ist leer: Nur eine Dame kann ihn beginnen.'
>>> reason.code, reason.status
(<Refusal.FOUNDATION_NEEDS_BASE: 'foundation-needs-base'>, 422)
>>> reason.to_json()
{'code': 'foundation-needs-base', 'params': {'foundation': 2, 'rank': 'Q'}}
"""

from __future__ import annotations

import reprlib
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from typing import Any, TypeAlias, TypeVar

from terrace.symbols import SUIT_SYMBOLS, SUITS

LANGUAGES = ("en", "de")
"""The languages every refusal is written in."""

Param: TypeAlias = "int | float | str | tuple[str, ...] | Reason"
"""A parameter: a number, a code or word, a list of words, or a reason."""

Code = TypeVar("Code", bound=StrEnum)

MAX_QUOTE = 200
"""Longest piece of someone's input a message repeats."""


class Refusal(StrEnum):
    """Every reason the engine refuses something (the value is the code the
    web API sends)."""

    # Cards
    CARD_UNREADABLE = "card-unreadable"
    CARD_NO_SUCH = "card-no-such"
    CARD_NOT_A_CARD = "card-not-a-card"
    CARD_NOT_TEXT = "card-not-text"
    RANK_UNREADABLE = "rank-unreadable"
    RANK_NOT_TEXT = "rank-not-text"
    RANK_NOT_A_RANK = "rank-not-a-rank"
    # Rule options and variants
    OPTION_UNKNOWN = "option-unknown"
    OPTIONS_NOT_OBJECT = "options-not-object"
    OPTION_NOT_WHOLE = "option-not-whole"
    OPTION_NOT_BOOL = "option-not-bool"
    OPTION_NOT_CHOICE = "option-not-choice"
    OPTION_RANGE = "option-range"
    RESERVE_RANGE = "reserve-range"
    CANDIDATES_RANGE = "candidates-range"
    OPTION_KEPT_RANGE = "option-kept-range"
    VARIANT_UNKNOWN = "variant-unknown"
    VARIANT_NOT_TEXT = "variant-not-text"
    LABEL_NOT_TEXT = "label-not-text"
    # Numbers written as text (the command line's own numbers: seeds, samples, workers, ports)
    NUMBER_NOT_WHOLE = "number-not-whole"
    NUMBER_TOO_LONG = "number-too-long"
    NUMBER_RANGE = "number-range"
    NUMBER_TOO_SMALL = "number-too-small"
    NUMBER_TOO_LARGE = "number-too-large"
    # Deals
    DEAL_VERSION_UNKNOWN = "deal-version-unknown"
    DEAL_NUMBER_NOT_WHOLE = "deal-number-not-whole"
    DEAL_NUMBER_RANGE = "deal-number-range"
    DEAL_NOT_TEXT = "deal-not-text"
    DEAL_BAD_CARD = "deal-bad-card"
    DEAL_NOT_CARDS = "deal-not-cards"
    DEAL_CARD_COUNT = "deal-card-count"
    DEAL_CARDS_MANY = "deal-cards-many"
    DEAL_COPIES = "deal-copies"
    DEAL_COPIES_ONE_DECK = "deal-copies-one-deck"
    DEAL_NOT_THAT_NUMBER = "deal-not-that-number"
    NO_WINNABLE_TO_LAST = "no-winnable-to-last"
    RANDOM_BOUND = "random-bound"
    # Move notation (a move that cannot be read)
    MOVE_NOT_TEXT = "move-not-text"
    MOVE_UNREADABLE = "move-unreadable"
    MOVE_MALFORMED = "move-malformed"
    MOVE_SYNTAX = "move-syntax"
    MOVE_INDEX_NOT_WHOLE = "move-index-not-whole"
    MOVE_NO_TARGET = "move-no-target"
    MOVE_CANDIDATE_FROM_ONE = "move-candidate-from-one"
    MOVE_DRAW_NO_INDEX = "move-draw-no-index"
    MOVE_UNKNOWN_SOURCE = "move-unknown-source"
    MOVE_UNKNOWN_TARGET = "move-unknown-target"
    MOVE_PLACE_NO_INDEX = "move-place-no-index"
    MOVE_NUMBERED_FROM_ONE = "move-numbered-from-one"
    MOVE_NUMBER_TOO_LARGE = "move-number-too-large"
    MOVE_FOUNDATION_TO_FOUNDATION = "move-foundation-to-foundation"
    MOVE_OWN_PILE = "move-own-pile"
    MOVE_LEADING_ZERO = "move-leading-zero"
    MOVES_TOO_MANY = "moves-too-many"
    NOT_AN_ACTION = "not-an-action"
    PLACE_UNKNOWN = "place-unknown"
    FOUNDATION_INDEX_RANGE = "foundation-index-range"
    MOVE_COUNT_RANGE = "move-count-range"
    NO_ACTION = "no-action"
    ACTION_REPEATS = "action-repeats"
    GAME_AT_LENGTH = "game-at-length"
    # Moves the rules do not allow now
    CHOOSE_FIRST = "choose-first"
    CANDIDATE_RANGE = "candidate-range"
    NO_CHOICE = "no-choice"
    BASE_CHOSEN = "base-chosen"
    STOCK_EMPTY = "stock-empty"
    STOCK_EMPTY_NO_REDEALS = "stock-empty-no-redeals"
    NOTHING_TO_REDEAL = "nothing-to-redeal"
    NO_SUCH_FOUNDATION = "no-such-foundation"
    NO_SUCH_PILE = "no-such-pile"
    TERRACE_ONLY_TO_FOUNDATION = "terrace-only-to-foundation"
    TERRACE_EMPTY = "terrace-empty"
    WASTE_EMPTY = "waste-empty"
    PILE_EMPTY = "pile-empty"
    FOUNDATIONS_KEEP_CARDS = "foundations-keep-cards"
    GAME_WON = "game-won"
    GAME_ENDED_WON = "game-ended-won"
    GAME_ENDED_LOST = "game-ended-lost"
    FOUNDATION_EMPTY = "foundation-empty"
    FOUNDATION_BASE_STAYS = "foundation-base-stays"
    NO_FOUNDATION_FREE = "no-foundation-free"
    NO_FOUNDATION_ACCEPTS = "no-foundation-accepts"
    FOUNDATION_NEEDS_BASE = "foundation-needs-base"
    FOUNDATION_COMPLETE = "foundation-complete"
    FOUNDATION_NEEDS_COLOUR = "foundation-needs-colour"
    FOUNDATION_NEEDS_SUIT = "foundation-needs-suit"
    PILE_NEEDS = "pile-needs"
    SPACE_TAKES_WASTE_ONLY = "space-takes-waste-only"
    SPACE_STAYS_EMPTY = "space-stays-empty"
    # Taking moves back and playing them again
    NOTHING_TO_UNDO = "nothing-to-undo"
    NOTHING_TO_REDO = "nothing-to-redo"
    NO_MOVE_PLAYED = "no-move-played"
    # Positions
    POSITION_NOT_TEXT = "position-not-text"
    POSITION_FIELDS = "position-fields"
    POSITION_FIELDS_MANY = "position-fields-many"
    POSITION_BASE = "position-base"
    POSITION_RUN_ODD = "position-run-odd"
    POSITION_RUN_CARD = "position-run-card"
    POSITION_REDEALS_TEXT = "position-redeals-text"
    POSITION_FOUNDATION_COUNT = "position-foundation-count"
    POSITION_PILE_COUNT = "position-pile-count"
    POSITION_RESERVE_SIZE = "position-reserve-size"
    POSITION_REDEALS = "position-redeals"
    POSITION_CARDS = "position-cards"
    POSITION_COPIES = "position-copies"
    POSITION_COPIES_ONE_DECK = "position-copies-one-deck"
    POSITION_PILE_ORDER = "position-pile-order"
    POSITION_BEFORE_CHOICE = "position-before-choice"
    POSITION_NO_BASE = "position-no-base"
    POSITION_FOUNDATION_SIZE = "position-foundation-size"
    POSITION_FOUNDATION_BASE = "position-foundation-base"
    POSITION_FOUNDATION_ORDER = "position-foundation-order"
    POSITION_AUTO_SPACE = "position-auto-space"
    # Game records
    STATE_UNREADABLE = "state-unreadable"
    STATE_NAMES_UNKNOWN = "state-names-unknown"
    RECORD_NO_DEAL = "record-no-deal"
    RECORD_MOVE_ILLEGAL = "record-move-illegal"
    RECORD_MOVE_UNREADABLE = "record-move-unreadable"
    RECORD_NOT_OBJECT = "record-not-object"
    RECORD_FORMAT = "record-format"
    RECORD_VERSION = "record-version"
    RECORD_DEAL_NUMBER = "record-deal-number"
    RECORD_DEAL_VERSION = "record-deal-version"
    RECORD_MOVES = "record-moves"
    RECORD_RESULT_UNKNOWN = "record-result-unknown"
    RECORD_RESULT_MISMATCH = "record-result-mismatch"
    RECORD_NOT_JSON = "record-not-json"
    RECORD_FIELD_MISSING = "record-field-missing"
    RECORD_FIELD_TYPE = "record-field-type"
    RECORD_EXTRA_KEY = "record-extra-key"
    RECORD_EXTRA_NOT_JSON = "record-extra-not-json"
    # JSON from outside (files, request bodies)
    JSON_DUPLICATE_KEY = "json-duplicate-key"
    JSON_NOT_A_NUMBER = "json-not-a-number"
    JSON_NUMBER_RANGE = "json-number-range"
    JSON_TOO_DEEP = "json-too-deep"
    JSON_NUMBER_TOO_LONG = "json-number-too-long"
    JSON_CONTROL_CHARACTER = "json-control-character"
    JSON_MORE_AFTER = "json-more-after"
    # The stores' files held by another program (the web game says them inside
    # its store-unavailable, which begins the German sentence)
    DATABASE_BUSY = "database-busy"
    DATABASE_LOCKED_OUT = "database-locked-out"
    VERDICT_CACHE_BUSY = "verdict-cache-busy"
    STORE_STOPPING = "store-stopping"
    # A verdict cache that cannot serve (said inside store-unavailable too;
    # {why} of verdict-cache-unusable is one of the VERDICT_WHY_* words)
    VERDICT_CACHE_UNUSABLE = "verdict-cache-unusable"
    VERDICT_CACHE_NEWER = "verdict-cache-newer"
    VERDICT_CACHE_FOREIGN = "verdict-cache-foreign"
    VERDICT_CACHE_GAMES = "verdict-cache-games"
    VERDICT_CACHE_NOT_STORED = "verdict-cache-not-stored"
    VERDICT_CACHE_FOLDER = "verdict-cache-folder"
    VERDICT_CACHE_NOT_FILE = "verdict-cache-not-file"
    VERDICT_WHY_FOLDER = "verdict-why-folder"
    VERDICT_WHY_NO_FILE = "verdict-why-no-file"
    VERDICT_WHY_SQLITE = "verdict-why-sqlite"
    # A database that fails a read (said inside store-unavailable too;
    # {fault} is one of the FAULT_* words)
    DATABASE_UNUSABLE = "database-unusable"
    DATABASE_FAILED = "database-failed"
    DATABASE_DAMAGED = "database-damaged"
    # (what is damaged, said inside database-damaged)
    DAMAGE_SQLITE_SAYS = "damage-sqlite-says"
    DAMAGE_HEADER_SHORT = "damage-header-short"
    DAMAGE_PAGE_SIZE = "damage-page-size"
    DAMAGE_CUT_SHORT = "damage-cut-short"
    DAMAGE_PAGES_MISSING = "damage-pages-missing"
    DAMAGE_SCHEMA_NUMBER = "damage-schema-number"
    DAMAGE_TABLES_UNREADABLE = "damage-tables-unreadable"
    FAULT_DISK_FULL = "fault-disk-full"
    FAULT_READ_ONLY = "fault-read-only"
    FAULT_CANNOT_OPEN = "fault-cannot-open"
    FAULT_DISK_FAILED = "fault-disk-failed"
    FAULT_FILE_REPLACED = "fault-file-replaced"
    FAULT_FILE_EMPTIED = "fault-file-emptied"
    # A file refused as it is opened, before SQLite touches it (said on the
    # command line, and by a server that does not start)
    DATABASE_EMPTIED_NOTED = "database-emptied-noted"
    DATABASE_EMPTIED_WHILE_OPEN = "database-emptied-while-open"
    DATABASE_FOREIGN = "database-foreign"
    DATABASE_NOT_SQLITE = "database-not-sqlite"
    DATABASE_FOLDER = "database-folder"
    DATABASE_NOT_FILE = "database-not-file"
    DATABASE_UNREADABLE = "database-unreadable"
    DATABASE_UNREADABLE_WITH_LOG = "database-unreadable-with-log"
    DATABASE_ORPHAN_LOG = "database-orphan-log"
    DATABASE_IS_VERDICT_CACHE = "database-is-verdict-cache"
    DATABASE_NONE_YET = "database-none-yet"
    VERDICT_CACHE_NOT_SQLITE = "verdict-cache-not-sqlite"
    # A file beside a database (games or verdicts) where SQLite keeps one of
    # its own that is not a file ({role} is one of the SIDE_ROLE_* words)
    SIDE_FILE_FOLDER = "side-file-folder"
    SIDE_FILE_NOT_FILE = "side-file-not-file"
    SIDE_ROLE_LOG = "side-role-log"
    SIDE_ROLE_INDEX = "side-role-index"
    SIDE_ROLE_JOURNAL = "side-role-journal"
    # A change the database did not take (the web game says them whole, as
    # its not-saved and not-saved-disk-full; {change} is a key of CHANGES)
    WRITE_DISK_FULL = "write-disk-full"
    WRITE_READ_ONLY = "write-read-only"
    WRITE_CANNOT_OPEN = "write-cannot-open"
    WRITE_DISK_FAILED = "write-disk-failed"
    WRITE_FILE_MOVED = "write-file-moved"
    WRITE_FILE_REPLACED = "write-file-replaced"
    WRITE_FILE_EMPTIED = "write-file-emptied"
    WRITE_OPENED_TO_READ = "write-opened-to-read"
    WRITE_REFUSED = "write-refused"
    # A saved game that does not load (the web game says it whole, as its
    # game-damaged, with one of the SAVED_* findings, or an engine's refusal)
    GAME_ROW_DAMAGED = "game-row-damaged"
    GAME_ROW_NEWER = "game-row-newer"
    GAME_UNSAVABLE = "game-unsavable"
    NEW_GAME_UNSAVABLE = "new-game-unsavable"
    # What the check of a saved game finds (the loader's, an import's of a
    # record, a write's; {field} is a column or a record's key, {value} quoted)
    SAVED_ID = "saved-id"
    SAVED_COUNT = "saved-count"
    SAVED_NOT_WHOLE = "saved-not-whole"
    SAVED_NOT_FLAG = "saved-not-flag"
    SAVED_TIME = "saved-time"
    SAVED_TIME_OR_NULL = "saved-time-or-null"
    SAVED_TIME_NOW = "saved-time-now"
    SAVED_TIME_NOW_OR_NULL = "saved-time-now-or-null"
    SAVED_TIME_NOT_NUMBER = "saved-time-not-number"
    SAVED_LINE_TOO_LONG = "saved-line-too-long"
    SAVED_MOVES_MISSING = "saved-moves-missing"
    SAVED_MOVES_NUMBERED = "saved-moves-numbered"
    SAVED_WIN_PAIR = "saved-win-pair"
    SAVED_WIN_TOO_SHORT = "saved-win-too-short"
    SAVED_GIVEN_UP_WON = "saved-given-up-won"
    SAVED_GIVEN_UP_UNPLAYED = "saved-given-up-unplayed"
    SAVED_NOT_REPLAYED = "saved-not-replayed"
    SAVED_AT_MOVE = "saved-at-move"
    SAVED_AT_REDO = "saved-at-redo"
    SAVED_MOVE_REFUSED = "saved-move-refused"
    SAVED_STATUS_SAYS = "saved-status-says"
    SAVED_STATUS_IS = "saved-status-is"
    SAVED_STATUS_UNKNOWN = "saved-status-unknown"
    SAVED_VARIANT_UNKNOWN = "saved-variant-unknown"
    SAVED_RULES_NOT_TEXT = "saved-rules-not-text"
    SAVED_RULES_NOT_JSON = "saved-rules-not-json"
    SAVED_RULES_INCOMPLETE = "saved-rules-incomplete"
    SAVED_VALUE_TOO_LONG = "saved-value-too-long"
    SAVED_MOVE_TOO_LONG = "saved-move-too-long"
    SAVED_TOO_DEEP = "saved-too-deep"


@dataclass(frozen=True, slots=True)
class Wording:
    """What a refusal says, in English and German, and the HTTP status that
    fits it. The texts are :meth:`str.format` templates over the reason's
    parameters; a format spec names how a parameter is shown (see
    :class:`_Words`)."""

    status: int
    en: str
    de: str

    def template(self, language: str) -> str:
        """The template of ``language`` (English for any other)."""
        return self.de if language == "de" else self.en


_BAD = 400  # input that cannot be read or is out of range
_NO = 422  # a well-formed move the rules do not allow now

WORDINGS: dict[Refusal, Wording] = {
    Refusal.CARD_UNREADABLE: Wording(
        _BAD, "{text!r} is not a card: use a rank from {ranks} (or 10) followed by a suit from {suits}, "
        "e.g. 7H or TD",
        "„{text}“ ist keine Karte: Schreibe einen Rang aus {ranks} (oder 10) und eine Farbe aus {suits}, "
        "z. B. 7H oder TD."),
    Refusal.CARD_NO_SUCH: Wording(
        _BAD, "no card has rank {rank} and suit {suit}",
        "Keine Karte hat Rang {rank} und Farbe {suit}."),
    Refusal.CARD_NOT_A_CARD: Wording(
        _BAD, "{value} is not a card: a card is a whole number from 0 to {last}",
        "{value} ist keine Karte: Eine Karte ist eine ganze Zahl von 0 bis {last}."),
    Refusal.CARD_NOT_TEXT: Wording(
        _BAD, "a card code must be text such as 'TD', not {value}",
        "Ein Kartenkürzel muss Text wie „TD“ sein, nicht {value}."),
    Refusal.RANK_NOT_TEXT: Wording(
        _BAD, "a rank must be text such as 'T' or '10', not {value}",
        "Ein Rang muss Text wie „T“ oder „10“ sein, nicht {value}."),
    Refusal.RANK_NOT_A_RANK: Wording(
        _BAD, "{value} is not a rank: a rank is a whole number from 0 (ace) to {last} (king)",
        "{value} ist kein Rang: Ein Rang ist eine ganze Zahl von 0 (Ass) bis {last} (König)."),
    Refusal.RANK_UNREADABLE: Wording(
        _BAD, "{text!r} is not a rank: use one of {ranks}",
        "„{text}“ ist kein Rang: Erlaubt sind {ranks}."),
    Refusal.OPTION_UNKNOWN: Wording(
        _BAD, "unknown rule option {option!r}; known: {known:list}",
        "Unbekannte Regeloption „{option}“; bekannt sind: {known:list}."),
    Refusal.OPTIONS_NOT_OBJECT: Wording(
        _BAD, "rule options must be a JSON object",
        "Die Regeloptionen müssen ein JSON-Objekt sein."),
    Refusal.OPTION_NOT_WHOLE: Wording(
        _BAD, "{option} must be a whole number, not {value}",
        "„{option}“ muss eine ganze Zahl sein, nicht {value}."),
    Refusal.OPTION_NOT_BOOL: Wording(
        _BAD, "{option} must be true or false, not {value}",
        "„{option}“ muss true oder false sein, nicht {value}."),
    Refusal.OPTION_NOT_CHOICE: Wording(
        _BAD, "{option} must be {choices:choices}, not {value}",
        "„{option}“ muss {choices:choices} sein, nicht {value}."),
    Refusal.OPTION_RANGE: Wording(
        _BAD, "{option} must be between {low} and {high}, not {value}",
        "„{option}“ muss zwischen {low} und {high} liegen, angegeben war {value}."),
    Refusal.RESERVE_RANGE: Wording(
        _BAD, "the reserve must hold between {low} and {high} cards, not {value}",
        "Die Terrasse muss zwischen {low} und {high} Karten haben, nicht {value}."),
    Refusal.CANDIDATES_RANGE: Wording(
        _BAD, "candidates must be between {low} and the number of piles ({high}), not {value}",
        "„candidates“ muss zwischen {low} und der Zahl der Stapel ({high}) liegen, angegeben war {value}."),
    Refusal.OPTION_KEPT_RANGE: Wording(
        _BAD, "with {given:list}, {option} must be between {low} and {high}, and the rules you started from "
        "have {value}: give {option} too, or change {changed:list}",
        "Mit {given:list} muss „{option}“ zwischen {low} und {high} liegen, die Regeln, von denen "
        "du ausgehst, haben {value}: Gib „{option}“ mit an oder ändere {changed:list}."),
    Refusal.VARIANT_UNKNOWN: Wording(
        _BAD, "unknown variant {name!r}; known variants: {known:list}",
        "Unbekannte Variante „{name}“; bekannt sind: {known:list}."),
    Refusal.VARIANT_NOT_TEXT: Wording(
        _BAD, "a variant is named by text such as 'terrace', not {value}",
        "Eine Variante wird mit Text wie „terrace“ benannt, angegeben war {value}."),
    Refusal.LABEL_NOT_TEXT: Wording(
        _BAD, "a rules label must be text such as 'wood (custom: decks 1)', not {value}",
        "Eine Regelbezeichnung muss Text wie „wood (custom: decks 1)“ sein, nicht {value}."),
    Refusal.NUMBER_NOT_WHOLE: Wording(
        _BAD, "{text!r} is not a whole number (write it in the digits 0-9)",
        "„{text}“ ist keine ganze Zahl (schreibe sie mit den Ziffern 0-9)."),
    Refusal.NUMBER_TOO_LONG: Wording(
        _BAD, "{text!r} is too large: give at most {most} digits",
        "„{text}“ ist zu groß: Gib höchstens {most} Ziffern an."),
    Refusal.NUMBER_RANGE: Wording(
        _BAD, "{value} is not in the range {low} to {high}",
        "{value} liegt nicht zwischen {low} und {high}."),
    Refusal.NUMBER_TOO_SMALL: Wording(
        _BAD, "{value} is too small: give at least {low}",
        "{value} ist zu klein: Gib mindestens {low} an."),
    Refusal.NUMBER_TOO_LARGE: Wording(
        _BAD, "{value} is too large: give at most {high}",
        "{value} ist zu groß: Gib höchstens {high} an."),
    Refusal.DEAL_VERSION_UNKNOWN: Wording(
        _BAD, "deal version {version} is not known to this program (it knows {known})",
        "Die Mischversion {version} kennt dieses Programm nicht (es kennt {known})."),
    Refusal.DEAL_NUMBER_NOT_WHOLE: Wording(
        _BAD, "a deal number must be a whole number, not {value}",
        "Eine Spielnummer muss eine ganze Zahl sein, nicht {value}."),
    Refusal.DEAL_NUMBER_RANGE: Wording(
        _BAD, "deal numbers run from {low} to {high}, not {value}",
        "Spielnummern reichen von {low} bis {high}, nicht {value}."),
    Refusal.DEAL_NOT_TEXT: Wording(
        _BAD, "a deal must be a string of card codes",
        "Ein Spiel muss eine Zeichenkette aus Kartenkürzeln sein."),
    Refusal.DEAL_BAD_CARD: Wording(
        _BAD, "card {index} of the deal: {problem}",
        "Karte {index} des Spiels: {problem}"),
    Refusal.DEAL_NOT_CARDS: Wording(
        _BAD, "a deal's cards are a sequence of cards, not {value}",
        "Die Karten eines Spiels sind eine Folge von Karten, nicht {value}."),
    Refusal.DEAL_CARD_COUNT: Wording(
        _BAD, "a deal for {decks:decks} has {cards} cards, this one has {count}",
        "Ein Spiel mit {decks:decks} hat {cards} Karten, dieses hat {count}."),
    Refusal.DEAL_CARDS_MANY: Wording(
        _BAD, "a deal for {decks:decks} has {cards} cards, this one has more than {most}",
        "Ein Spiel mit {decks:decks} hat {cards} Karten, dieses hat mehr als {most}."),
    Refusal.DEAL_COPIES: Wording(
        _BAD, "the deal has {have} of {card}; {decks} decks have {decks}",
        "Das Spiel enthält {have}-mal {card}; {decks} Kartenspiele enthalten sie {decks}-mal."),
    Refusal.DEAL_COPIES_ONE_DECK: Wording(
        _BAD, "the deal has {have} of {card}; one deck has 1",
        "Das Spiel enthält {have}-mal {card}; ein Kartenspiel enthält sie einmal."),
    Refusal.DEAL_NOT_THAT_NUMBER: Wording(
        _BAD, "these cards are not deal number {number}",
        "Diese Karten sind nicht Spiel Nummer {number}."),
    Refusal.NO_WINNABLE_TO_LAST: Wording(
        _BAD, "no deal from {start} to the last one, {last}, was proved winnable"
              " within {seconds:seconds} s each",
        "Kein Spiel von {start} bis zum letzten, {last}, wurde in je {seconds:seconds} s"
        " als gewinnbar erwiesen."),
    Refusal.RANDOM_BOUND: Wording(
        _BAD, "a random number's bound must be a whole number from 1 to 2**64, not {value}",
        "Die Schranke einer Zufallszahl muss eine ganze Zahl von 1 bis 2**64 sein, nicht {value}."),
    Refusal.MOVE_NOT_TEXT: Wording(
        _BAD, "a move must be text such as 'wf', not {value}",
        "Ein Zug muss Text wie „wf“ sein, nicht {value}."),
    Refusal.MOVE_UNREADABLE: Wording(
        _BAD, "{text!r} is not a move: {problem}",
        "„{text}“ ist kein gültiger Zug: {problem}"),
    Refusal.MOVE_MALFORMED: Wording(
        _BAD, "not a move: {problem}",
        "Kein gültiger Zug: {problem}"),
    Refusal.MOVE_SYNTAX: Wording(
        _BAD, "write e.g. c1, s, wf, rf, t2t5, wt3 or t4f2",
        "Schreibe z. B. c1, s, wf, rf, t2t5, wt3 oder t4f2."),
    Refusal.MOVE_INDEX_NOT_WHOLE: Wording(
        _BAD, "indexes must be whole numbers",
        "Die Nummern müssen ganze Zahlen sein."),
    Refusal.MOVE_NO_TARGET: Wording(
        _BAD, "choosing and drawing have no target",
        "Wählen und Ziehen haben kein Ziel."),
    Refusal.MOVE_CANDIDATE_FROM_ONE: Wording(
        _BAD, "candidates are numbered from 1",
        "Die Karten zur Wahl werden ab 1 gezählt."),
    Refusal.MOVE_DRAW_NO_INDEX: Wording(
        _BAD, "the draw has no index",
        "Das Ziehen hat keine Nummer."),
    Refusal.MOVE_UNKNOWN_SOURCE: Wording(
        _BAD, "unknown source {source}",
        "Unbekannte Quelle {source}."),
    Refusal.MOVE_UNKNOWN_TARGET: Wording(
        _BAD, "unknown target {target}",
        "Unbekanntes Ziel {target}."),
    Refusal.MOVE_PLACE_NO_INDEX: Wording(
        _BAD, "the reserve and the waste have no index",
        "Terrasse und Abwurfstapel haben keine Nummer."),
    Refusal.MOVE_NUMBERED_FROM_ONE: Wording(
        _BAD, "piles and foundations are numbered from 1",
        "Stapel und Zielstapel werden ab 1 gezählt."),
    Refusal.MOVE_NUMBER_TOO_LARGE: Wording(
        _BAD, "piles, foundations and candidates are numbered up to {largest}",
        "Stapel, Zielstapel und Karten zur Wahl werden bis höchstens {largest} gezählt."),
    Refusal.MOVE_FOUNDATION_TO_FOUNDATION: Wording(
        _BAD, "a foundation card cannot go to a foundation",
        "Eine Karte vom Zielstapel kann nicht auf einen Zielstapel."),
    Refusal.MOVE_OWN_PILE: Wording(
        _BAD, "a card cannot move onto its own pile",
        "Eine Karte kann nicht auf ihren eigenen Stapel."),
    Refusal.MOVE_LEADING_ZERO: Wording(
        _BAD, "numbers are written without leading zeros ({written}, not {given})",
        "Nummern werden ohne führende Nullen geschrieben ({written}, nicht {given})."),
    Refusal.MOVES_TOO_MANY: Wording(
        _BAD, "a list of moves may hold at most {most:count} moves",
        "Eine Zugliste darf höchstens {most:count} Züge enthalten."),
    Refusal.NOT_AN_ACTION: Wording(
        _BAD, "{value} is not an action: actions run from 0 to {last}",
        "{value} ist keine Aktion: Aktionen reichen von 0 bis {last}."),
    Refusal.PLACE_UNKNOWN: Wording(
        _BAD, "{value} is not a place here: write r (the terrace), w (the waste), t1 to t{piles} or f1 to "
              "f{foundations}",
        "{value} ist hier kein Platz: r (die Terrasse), w (der Abwurfstapel), t1 bis t{piles} oder f1 bis "
        "f{foundations} schreiben."),
    Refusal.FOUNDATION_INDEX_RANGE: Wording(
        _BAD, "a foundation index runs from 0 to {last} here, not {value}",
        "Die Nummer eines Zielstapels reicht hier von 0 bis {last}, nicht {value}."),
    Refusal.MOVE_COUNT_RANGE: Wording(
        _BAD, "{name} is a number of moves, 0 or more, not {value}",
        "{name} ist eine Anzahl Züge, 0 oder mehr, nicht {value}."),
    Refusal.NO_ACTION: Wording(
        _BAD, "{move} has no action in these rules: it can never be legal",
        "{move} hat in diesen Regeln keine Aktion: Der Zug ist nie erlaubt."),
    Refusal.ACTION_REPEATS: Wording(
        _NO, "action {action} ({move}) would bring back a position of this game: a game never repeats one",
        "Aktion {action} ({move}) brächte eine Stellung dieses Spiels zurück: Kein Spiel wiederholt eine."),
    Refusal.GAME_AT_LENGTH: Wording(
        _NO, "the game has reached its length limit of {most:count} moves",
        "Das Spiel hat seine Höchstlänge von {most:count} Zügen erreicht."),
    Refusal.CHOOSE_FIRST: Wording(
        _NO, "choose a base card first ({candidates:choices-moves})",
        "Wähle zuerst eine Basiskarte ({candidates:choices-moves})."),
    Refusal.CANDIDATE_RANGE: Wording(
        _NO, "this game has only {candidates:candidates} ({candidates:choices-moves})",
        "Dieses Spiel hat nur {candidates:candidates} ({candidates:choices-moves})."),
    Refusal.NO_CHOICE: Wording(
        _NO, "this game has no choice: its base card is turned from the pack",
        "In diesem Spiel gibt es keine Wahl: Die Basiskarte wird aufgedeckt."),
    Refusal.BASE_CHOSEN: Wording(
        _NO, "the base card has already been chosen",
        "Die Basiskarte ist schon gewählt."),
    Refusal.STOCK_EMPTY: Wording(
        _NO, "the stock is empty",
        "Der Vorrat ist leer."),
    Refusal.STOCK_EMPTY_NO_REDEALS: Wording(
        _NO, "the stock is empty and no redeals are left",
        "Der Vorrat ist leer, und es bleibt kein neuer Durchgang."),
    Refusal.NOTHING_TO_REDEAL: Wording(
        _NO, "the stock and the waste are both empty: a redeal has no card to turn over",
        "Vorrat und Abwurfstapel sind beide leer: Ein neuer Durchgang hat keine Karte zum Umdrehen."),
    Refusal.NO_SUCH_FOUNDATION: Wording(
        _NO, "there is no foundation {foundation} (foundations run from 1 to {count})",
        "Es gibt keinen Zielstapel {foundation} (nur 1 bis {count})."),
    Refusal.NO_SUCH_PILE: Wording(
        _NO, "there is no pile {pile} ({count:piles-range})",
        "Es gibt keinen Stapel {pile} ({count:piles-range})."),
    Refusal.TERRACE_ONLY_TO_FOUNDATION: Wording(
        _NO, "the terrace card can go only to a foundation",
        "Die Terrassenkarte darf nur auf einen Zielstapel."),
    Refusal.TERRACE_EMPTY: Wording(
        _NO, "the terrace (reserve) is empty",
        "Die Terrasse ist leer."),
    Refusal.WASTE_EMPTY: Wording(
        _NO, "the waste is empty",
        "Der Abwurfstapel ist leer."),
    Refusal.PILE_EMPTY: Wording(
        _NO, "pile {pile} is empty",
        "Stapel {pile} ist leer."),
    Refusal.FOUNDATIONS_KEEP_CARDS: Wording(
        _NO, "cards never leave the foundations in this game",
        "In diesem Spiel verlassen Karten die Zielstapel nie."),
    Refusal.GAME_WON: Wording(
        _NO, "the game is won: every card stays on the foundations",
        "Das Spiel ist gewonnen: Alle Karten bleiben auf den Zielstapeln."),
    Refusal.GAME_ENDED_WON: Wording(
        _NO, "the game was won after {moves:#move/moves}: no move follows a win",
        "Das Spiel war nach {moves:#Zug/Zügen} gewonnen: Auf einen Sieg folgt kein Zug."),
    Refusal.GAME_ENDED_LOST: Wording(
        _NO, "the game was lost after {moves:#move/moves}: no move was left",
        "Das Spiel war nach {moves:#Zug/Zügen} verloren: Es war kein Zug mehr möglich."),
    Refusal.FOUNDATION_EMPTY: Wording(
        _NO, "foundation {foundation} is empty",
        "Zielstapel {foundation} ist leer."),
    Refusal.FOUNDATION_BASE_STAYS: Wording(
        _NO, "the base card of a foundation never moves",
        "Die unterste Karte eines Zielstapels bleibt liegen."),
    Refusal.NO_FOUNDATION_FREE: Wording(
        _NO, "no foundation is free for the {card:card}",
        "Kein Zielstapel ist frei für die {card:card}."),
    Refusal.NO_FOUNDATION_ACCEPTS: Wording(
        _NO, "no foundation accepts the {card:card} yet",
        "Noch nimmt kein Zielstapel die {card:card}."),
    Refusal.FOUNDATION_NEEDS_BASE: Wording(
        _NO, "foundation {foundation} is empty: only {rank:a-rank} can start it",
        "Zielstapel {foundation} ist leer: Nur {rank:ein} kann ihn beginnen."),
    Refusal.FOUNDATION_COMPLETE: Wording(
        _NO, "foundation {foundation} is complete",
        "Zielstapel {foundation} ist vollständig."),
    Refusal.FOUNDATION_NEEDS_COLOUR: Wording(
        _NO, "the {card:card} cannot go on the {top:card}: foundation {foundation} takes only a "
        "{colour:colour} {rank:rank}",
        "Die {card:card} passt nicht auf die {top:card}: Zielstapel {foundation} nimmt nur "
        "{colour_rank:einen}."),
    Refusal.FOUNDATION_NEEDS_SUIT: Wording(
        _NO, "the {card:card} cannot go on the {top:card}: foundation {foundation} takes only {rank:a-rank} "
        "of the same suit",
        "Die {card:card} passt nicht auf die {top:card}: Zielstapel {foundation} nimmt nur {rank:einen} "
        "derselben Farbe."),
    Refusal.PILE_NEEDS: Wording(
        _NO, "the {card:card} cannot go on the {top:card} in pile {pile}: piles build down in alternating "
        "colours, so it takes only a {colour:colour} {rank:rank}",
        "Die {card:card} passt nicht auf die {top:card} in Stapel {pile}: Die Auslage wird abwärts in "
        "wechselnden Farben gebaut, hier passt nur {colour_rank:ein}."),
    Refusal.SPACE_TAKES_WASTE_ONLY: Wording(
        _NO, "an empty pile takes only the waste card in this game",
        "In diesem Spiel nimmt ein leerer Stapel nur die Karte vom Abwurfstapel."),
    Refusal.SPACE_STAYS_EMPTY: Wording(
        _NO, "pile {pile} stays empty: spaces are refilled only from the waste or the stock, and both are "
        "used up",
        "Stapel {pile} bleibt leer: Lücken werden nur aus Abwurfstapel oder Vorrat gefüllt, und beide sind "
        "aufgebraucht."),
    Refusal.NOTHING_TO_UNDO: Wording(
        409, "there is no move to undo",
        "Es gibt keinen Zug zum Zurücknehmen."),
    Refusal.NOTHING_TO_REDO: Wording(
        409, "there is no move to redo",
        "Es gibt keinen Zug zum Wiederholen."),
    Refusal.NO_MOVE_PLAYED: Wording(
        409, "no move has been played",
        "Es wurde noch kein Zug gemacht."),
    Refusal.POSITION_NOT_TEXT: Wording(
        _BAD, "a position must be a string",
        "Eine Stellung muss eine Zeichenkette sein."),
    Refusal.POSITION_FIELDS: Wording(
        _BAD, "a position has {fields} space-separated fields, this one has {count}",
        "Eine Stellung hat {fields} durch Leerzeichen getrennte Felder, diese hat {count}."),
    Refusal.POSITION_FIELDS_MANY: Wording(
        _BAD, "a position has {fields} space-separated fields, this one has more than {most}",
        "Eine Stellung hat {fields} durch Leerzeichen getrennte Felder, diese hat mehr als {most}."),
    Refusal.POSITION_BASE: Wording(
        _BAD, "{text!r} is not a base rank (or ? while choosing)",
        "„{text}“ ist kein Basisrang (oder ? vor der Wahl)."),
    Refusal.POSITION_RUN_ODD: Wording(
        _BAD, "{place:place}: card codes are two characters each",
        "{place:place}: Kartenkürzel haben je zwei Zeichen."),
    Refusal.POSITION_RUN_CARD: Wording(
        _BAD, "{place:place}: {problem}",
        "{place:place}: {problem}"),
    Refusal.POSITION_REDEALS_TEXT: Wording(
        _BAD, "{text!r} is not a number of redeals used",
        "„{text}“ ist keine Zahl genutzter Durchgänge."),
    Refusal.POSITION_FOUNDATION_COUNT: Wording(
        _BAD, "these rules have {expected} foundations, the position has {count}",
        "Diese Regeln haben {expected} Zielstapel, die Stellung hat {count}."),
    Refusal.POSITION_PILE_COUNT: Wording(
        _BAD, "these rules have {expected:#pile/piles}, the position has {count}",
        "Diese Regeln haben {expected} Stapel, die Stellung hat {count}."),
    Refusal.POSITION_RESERVE_SIZE: Wording(
        _BAD, "the reserve holds at most {most:#card/cards}",
        "Die Terrasse hat höchstens {most:#Karte/Karten}."),
    Refusal.POSITION_REDEALS: Wording(
        _BAD, "these rules allow {allowed:#redeal/redeals}, not {used}",
        "Diese Regeln erlauben {allowed:#neuen Durchgang/neue Durchgänge}, nicht {used}."),
    Refusal.POSITION_CARDS: Wording(
        _BAD, "the position holds more than the {cards} cards of {decks:decks}",
        "Die Stellung enthält mehr als die {cards} Karten von {decks:decks}."),
    Refusal.POSITION_COPIES: Wording(
        _BAD, "the position has {have} of {card}; {decks} decks have {decks}",
        "Die Stellung enthält {have}-mal {card}; {decks} Kartenspiele enthalten sie {decks}-mal."),
    Refusal.POSITION_COPIES_ONE_DECK: Wording(
        _BAD, "the position has {have} of {card}; one deck has 1",
        "Die Stellung enthält {have}-mal {card}; ein Kartenspiel enthält sie einmal."),
    Refusal.POSITION_PILE_ORDER: Wording(
        _BAD, "pile {pile} is not built down in alternating colours",
        "Stapel {pile} ist nicht abwärts in wechselnden Farben gebaut."),
    Refusal.POSITION_BEFORE_CHOICE: Wording(
        _BAD, "a position before the choice has only the deal's candidates out",
        "Vor der Wahl liegen nur die Karten zur Wahl aus."),
    Refusal.POSITION_NO_BASE: Wording(
        _BAD, "foundation 1 always holds the base card once the game has started",
        "Sobald das Spiel läuft, liegt die Basiskarte auf Zielstapel 1."),
    Refusal.POSITION_FOUNDATION_SIZE: Wording(
        _BAD, "foundation {foundation} holds more than {size} cards",
        "Zielstapel {foundation} hat mehr als {size} Karten."),
    Refusal.POSITION_FOUNDATION_BASE: Wording(
        _BAD, "foundation {foundation} does not start with the base rank",
        "Zielstapel {foundation} beginnt nicht mit dem Basisrang."),
    Refusal.POSITION_FOUNDATION_ORDER: Wording(
        _BAD, "foundation {foundation} is not built up by the rules",
        "Zielstapel {foundation} ist nicht nach den Regeln aufgebaut."),
    Refusal.POSITION_AUTO_SPACE: Wording(
        _BAD, "with automatic spaces a pile is empty only when waste and stock are",
        "Wenn Lücken von selbst gefüllt werden, ist ein Stapel nur leer, wenn Abwurfstapel und Vorrat leer "
        "sind."),
    Refusal.STATE_UNREADABLE: Wording(
        _BAD, "this pickled state was changed since it was written, or written by another version of "
        "Terrace: it cannot be read back",
        "Dieser gespeicherte Zustand wurde seit dem Schreiben verändert oder von einer anderen "
        "Terrace-Version geschrieben: Er lässt sich nicht wieder einlesen."),
    Refusal.STATE_NAMES_UNKNOWN: Wording(
        _BAD, "these bytes of a state name {name}, which a state is not made of: if the attributes your "
        "subclass gave its states hold it, pass it to State.from_bytes in allow",
        "Diese Bytes eines Zustands nennen {name}, woraus kein Zustand besteht: Wenn die Attribute, die "
        "deine Unterklasse ihren Zuständen gibt, es enthalten, übergib es State.from_bytes in allow."),
    Refusal.RECORD_NO_DEAL: Wording(
        _BAD, "a board set up from a position has no deal to record",
        "Eine aus einer Stellung aufgebaute Auslage hat kein Spiel, das sich speichern ließe."),
    Refusal.RECORD_MOVE_ILLEGAL: Wording(
        _BAD, "move {number} ({move!r}) does not replay: {move}: {problem}",
        "Zug {number} („{move}“) lässt sich nicht nachspielen: {problem}"),
    Refusal.RECORD_MOVE_UNREADABLE: Wording(
        _BAD, "move {number} ({move!r}) does not replay: {problem}",
        "Zug {number} („{move}“) lässt sich nicht nachspielen: {problem}"),
    Refusal.RECORD_NOT_OBJECT: Wording(
        _BAD, "a game record must be a JSON object",
        "Ein Spielprotokoll muss ein JSON-Objekt sein."),
    Refusal.RECORD_FORMAT: Wording(
        _BAD, "not a Terrace game record (format must be {format!r})",
        "Kein Terrace-Spielprotokoll (format muss „{format}“ sein)."),
    Refusal.RECORD_VERSION: Wording(
        _BAD, "record version {version} is not supported (this program reads {supported})",
        "Protokollversion {version} wird nicht unterstützt (dieses Programm liest {supported})."),
    Refusal.RECORD_DEAL_NUMBER: Wording(
        _BAD, "deal_number must be a whole number or null",
        "„deal_number“ muss eine ganze Zahl oder null sein."),
    Refusal.RECORD_DEAL_VERSION: Wording(
        _BAD, "deal version {version} is not known to this program",
        "Die Mischversion {version} kennt dieses Programm nicht."),
    Refusal.RECORD_MOVES: Wording(
        _BAD, "moves must be a list of strings",
        "„moves“ muss eine Liste von Zeichenketten sein."),
    Refusal.RECORD_RESULT_UNKNOWN: Wording(
        _BAD, "result must be one of {results:list}",
        "„result“ muss eines von {results:list} sein."),
    Refusal.RECORD_RESULT_MISMATCH: Wording(
        _BAD, "the record says {claimed!r} but its moves lead to {actual!r}",
        "Das Protokoll nennt „{claimed}“, aber seine Züge führen zu „{actual}“."),
    Refusal.RECORD_NOT_JSON: Wording(
        _BAD, "not valid JSON: {problem}",
        "Kein gültiges JSON: {problem}"),
    Refusal.RECORD_FIELD_MISSING: Wording(
        _BAD, "the record has no {key!r}",
        "Dem Protokoll fehlt „{key}“."),
    Refusal.RECORD_FIELD_TYPE: Wording(
        _BAD, "{key!r} must be a {kind}",
        "„{key}“ muss vom Typ {kind} sein."),
    Refusal.RECORD_EXTRA_KEY: Wording(
        _BAD, "the extra key {key!r} is one of the record's own keys: give it another name",
        "Der zusätzliche Schlüssel „{key}“ gehört dem Protokoll selbst: Gib ihm einen anderen Namen."),
    Refusal.RECORD_EXTRA_NOT_JSON: Wording(
        _BAD, "the extra keys must be an object of text keys with JSON values"
        " (no NaN or infinity): {problem}",
        "Die zusätzlichen Schlüssel müssen ein Objekt aus Textschlüsseln mit JSON-Werten sein"
        " (kein NaN, nichts Unendliches): {problem}"),
    Refusal.JSON_DUPLICATE_KEY: Wording(
        _BAD, "the key {key!r} is given twice in one object: give each key once",
        "Der Schlüssel „{key}“ steht zweimal in einem Objekt: Jeden Schlüssel nur einmal angeben."),
    Refusal.JSON_NOT_A_NUMBER: Wording(
        _BAD, "{value} is no JSON number: give a number",
        "{value} ist keine Zahl in JSON: Eine Zahl angeben."),
    Refusal.JSON_NUMBER_RANGE: Wording(
        _BAD, "{value} is beyond the numbers read here (0, or from about 5e-324 to 1.8e308 either side of 0):"
        " give a number within them",
        "{value} liegt außerhalb der hier lesbaren Zahlen (0 oder etwa 5e-324 bis 1,8e308 beiderseits"
        " der 0): Eine Zahl darin angeben."),
    Refusal.JSON_TOO_DEEP: Wording(
        _BAD, "the JSON is nested too deeply (lists and objects within each other)",
        "Das JSON ist zu tief verschachtelt (Listen und Objekte ineinander)."),
    Refusal.JSON_NUMBER_TOO_LONG: Wording(
        _BAD, "a number has more than {most} digits",
        "Eine Zahl hat mehr als {most} Ziffern."),
    Refusal.JSON_CONTROL_CHARACTER: Wording(
        _BAD, "line {line} column {column} holds the control character {character}, which JSON takes only "
        "escaped (is the file damaged?)",
        "Zeile {line}, Spalte {column} enthält das Steuerzeichen {character}, das JSON nur maskiert "
        "zulässt (ist die Datei beschädigt?)."),
    Refusal.JSON_MORE_AFTER: Wording(
        _BAD, "more follows the JSON value, at line {line} column {column}: a record file holds one record, "
        "or one list of records",
        "Nach dem JSON-Wert folgt noch mehr, in Zeile {line}, Spalte {column}: Eine Protokolldatei enthält "
        "ein Protokoll oder eine Liste von Protokollen."),
    Refusal.DATABASE_BUSY: Wording(
        503, "the database {name} is busy (another program holds it); try again",
        "{name} ist von einem anderen Programm belegt; bitte gleich noch einmal versuchen"),
    Refusal.DATABASE_LOCKED_OUT: Wording(
        503, "the database {name} cannot be read now: another program has held the read locks of its "
             "index file (-shm) too long, one stopped with Ctrl+Z or a tool that locks the files it "
             "copies; no saved game was lost: let that program go on or end it, then try again",
        "{name} lässt sich gerade nicht lesen: Ein anderes Programm hält die Lesesperren ihrer "
        "Indexdatei mit der Endung -shm zu lange, etwa ein mit Strg+Z angehaltenes Programm oder ein "
        "Werkzeug, das die Dateien beim Kopieren sperrt; kein gespeichertes Spiel ging verloren, bitte das "
        "Programm weiterlaufen lassen oder beenden und dann noch einmal versuchen"),
    Refusal.VERDICT_CACHE_UNUSABLE: Wording(
        503, "the verdict cache {name} cannot be used: {why}",
        "{name}, der Speicher des Lösers, lässt sich nicht benutzen ({why})"),
    Refusal.VERDICT_CACHE_NEWER: Wording(
        503, "{name} is a verdict cache of layout {layout}, which this version of Terrace does not know "
             "(a newer one wrote it?); it was left unchanged",
        "{name} ist ein Speicher des Lösers in der Form {layout}, die diese Version von Terrace nicht kennt "
        "(von einer neueren geschrieben?); er blieb unverändert"),
    Refusal.VERDICT_CACHE_FOREIGN: Wording(
        503, "{name} is an SQLite database of another program, not a verdict cache; it was left unchanged",
        "{name} ist eine SQLite-Datenbank eines anderen Programms, kein Speicher des Lösers; sie blieb "
        "unverändert"),
    Refusal.VERDICT_CACHE_GAMES: Wording(
        503, "{name} is a database of saved games, not a verdict cache; it was left unchanged",
        "{name} ist eine Datenbank gespeicherter Spiele, kein Speicher des Lösers; sie blieb unverändert"),
    Refusal.VERDICT_CACHE_NOT_STORED: Wording(
        503, "{name}: the verdicts could not be stored ({text})",
        "{name}: Die Ergebnisse des Lösers ließen sich nicht speichern (SQLite: {text})"),
    Refusal.VERDICT_CACHE_FOLDER: Wording(
        503, "{name} is a folder, not a verdict cache file",
        "{name} ist ein Ordner, keine Datei für den Speicher des Lösers"),
    Refusal.VERDICT_CACHE_NOT_FILE: Wording(
        503, "{name} is not a regular file, not a verdict cache file",
        "{name} ist keine gewöhnliche Datei (eine Pipe oder ein Gerät), keine Datei für den Speicher des "
        "Lösers"),
    Refusal.VERDICT_WHY_FOLDER: Wording(
        503, "its folder {folder} cannot be made ({text})",
        "sein Ordner {folder} lässt sich nicht anlegen (System: {text})"),
    Refusal.VERDICT_WHY_NO_FILE: Wording(
        503, "no new file can be made in its folder {folder} ({text})",
        "in seinem Ordner {folder} lässt sich keine neue Datei anlegen (System: {text})"),
    Refusal.VERDICT_WHY_SQLITE: Wording(
        503, "{text}",
        "SQLite: {text}"),
    Refusal.STORE_STOPPING: Wording(
        503, "the server is stopping: {name} was not read to the end",
        "Der Server wird beendet: {name} wurde nicht zu Ende gelesen"),
    Refusal.VERDICT_CACHE_BUSY: Wording(
        503, "the verdict cache {name} is busy (another program holds it): try again",
        "{name}, der Speicher des Lösers, ist von einem anderen Programm belegt; bitte gleich noch "
        "einmal versuchen"),
    Refusal.DATABASE_UNUSABLE: Wording(
        503, "the database {name} cannot be used: {fault}",
        "{name}: {fault}"),  # (store-unavailable's German says "nicht benutzbar" itself)
    Refusal.DATABASE_FAILED: Wording(
        503, "the database {name} failed: {text}",
        "{name} meldet einen Fehler (SQLite: {text})"),
    Refusal.DATABASE_DAMAGED: Wording(
        503, "{name} is damaged ({text}); it was left untouched: restore a backup, "
             "or move it away to start a new database",
        "{name} ist beschädigt ({text}) und blieb unverändert; bitte eine Sicherung "
        "zurückspielen oder die Datei beiseitelegen, um eine neue Datenbank zu beginnen"),
    Refusal.DAMAGE_SQLITE_SAYS: Wording(503, "{text}", "SQLite: {text}"),
    Refusal.DAMAGE_HEADER_SHORT: Wording(
        503, "shorter than an SQLite header",
        "kürzer als der Kopf einer SQLite-Datei"),
    Refusal.DAMAGE_PAGE_SIZE: Wording(
        503, "its header gives an impossible page size",
        "ihr Kopf nennt eine unmögliche Seitengröße"),
    Refusal.DAMAGE_CUT_SHORT: Wording(
        503, "it is not a whole number of pages long: it was cut short",
        "sie ist keine ganze Zahl von Seiten lang: sie wurde abgeschnitten"),
    Refusal.DAMAGE_PAGES_MISSING: Wording(
        503, "it holds {held} of its {pages} pages",
        "sie enthält {held} ihrer {pages} Seiten"),
    Refusal.DAMAGE_SCHEMA_NUMBER: Wording(
        503, "its schema number is {version}, which no Terrace writes",
        "ihre Schemanummer ist {version}, die kein Terrace schreibt"),
    Refusal.DAMAGE_TABLES_UNREADABLE: Wording(
        503, "its table definitions are not readable text",
        "ihre Tabellendefinitionen sind kein lesbarer Text"),
    Refusal.FAULT_DISK_FULL: Wording(
        503, "the disk is full",
        "Die Festplatte ist voll"),
    Refusal.FAULT_READ_ONLY: Wording(
        503, "the database is read-only",
        "Die Datenbank ist schreibgeschützt"),
    Refusal.FAULT_CANNOT_OPEN: Wording(
        503, "the database file cannot be opened",
        "Die Datei der Datenbank lässt sich nicht öffnen"),
    Refusal.FAULT_DISK_FAILED: Wording(
        503, "the disk failed (input/output error)",
        "Die Festplatte meldet einen Ein-/Ausgabefehler"),
    Refusal.FAULT_FILE_REPLACED: Wording(
        503, "another program wrote over it while in use (a backup copied in?); "
             "stop Terrace and start it again to open it as it is now",
        "Ein anderes Programm hat sie während des Betriebs überschrieben, vielleicht mit einer Sicherung; "
        "bitte Terrace beenden und neu starten, um sie so zu öffnen, wie sie jetzt ist"),
    Refusal.FAULT_FILE_EMPTIED: Wording(
        503, "another program emptied it (cut it to 0 bytes) while in use, and the games saved in it are "
             "gone from it; nothing more is saved there: stop Terrace, and restore a backup or start a new "
             "database (Terrace says how when it starts again)",
        "Ein anderes Programm hat sie während des Betriebs geleert, auf 0 Bytes gekürzt, und die darin "
        "gespeicherten Spiele sind daraus verschwunden; es wird nichts mehr darin gespeichert: bitte Terrace "
        "beenden und eine Sicherung zurückspielen oder eine neue Datenbank beginnen, wie Terrace beim "
        "nächsten Start sagt"),
    Refusal.DATABASE_EMPTIED_NOTED: Wording(
        503, "{name} is empty: Terrace last noted {games:#saved game/saved games} in it (as it closed it, or "
             "as a game was added), and something emptied it since (cut it to 0 bytes), so the games saved "
             "in it are gone from it; it was left as it is: move it away and restore a backup (terrace "
             "import), or delete it to start a new database",
        "{name} ist leer: Terrace hat zuletzt {games:#gespeichertes Spiel/gespeicherte Spiele} darin "
        "vermerkt (beim Schließen oder als ein Spiel hinzukam), und seitdem hat etwas die Datei geleert "
        "(auf 0 Bytes gekürzt), die darin gespeicherten Spiele sind also daraus verschwunden; sie blieb, "
        "wie sie ist: bitte beiseitelegen und eine Sicherung zurückspielen (terrace import) oder löschen, "
        "um eine neue Datenbank zu beginnen"),
    Refusal.DATABASE_EMPTIED_WHILE_OPEN: Wording(
        503, "{name} is empty: another program emptied it (cut it to 0 bytes) while Terrace had it open, "
             "so the games saved in it are gone from it; it was left as it is: move it away and restore a "
             "backup (terrace import), or delete it to start a new database",
        "{name} ist leer: Ein anderes Programm hat die Datei geleert (auf 0 Bytes gekürzt), während "
        "Terrace sie offen hatte, die darin gespeicherten Spiele sind also daraus verschwunden; sie blieb, "
        "wie sie ist: bitte beiseitelegen und eine Sicherung zurückspielen (terrace import) oder löschen, "
        "um eine neue Datenbank zu beginnen"),
    Refusal.DATABASE_FOREIGN: Wording(
        503, "{name} is an SQLite database of another program, not a Terrace one; it was left untouched",
        "{name} ist eine SQLite-Datenbank eines anderen Programms, keine von Terrace; sie blieb unverändert"),
    Refusal.DATABASE_NOT_SQLITE: Wording(
        503, "{name} is not a Terrace database (not an SQLite file); it was left untouched",
        "{name} ist keine Datenbank von Terrace (keine SQLite-Datei); sie blieb unverändert"),
    Refusal.DATABASE_FOLDER: Wording(
        503, "{name} is a folder, not a database file",
        "{name} ist ein Ordner, keine Datei einer Datenbank"),
    Refusal.DATABASE_NOT_FILE: Wording(
        503, "{name} is not a regular file",
        "{name} ist keine gewöhnliche Datei (eine Pipe oder ein Gerät)"),
    Refusal.DATABASE_UNREADABLE: Wording(
        503, "cannot read {name}: {text}",
        "{name} lässt sich nicht lesen (System: {text})"),
    Refusal.DATABASE_UNREADABLE_WITH_LOG: Wording(
        503, "cannot read {name} and its log: {text}",
        "{name} und ihr Protokoll lassen sich nicht lesen (System: {text})"),
    Refusal.DATABASE_ORPHAN_LOG: Wording(
        503, "{name} is missing or empty, but its log {log} holds changes: put the database file back, "
             "or move the log away to start a new database",
        "{name} fehlt oder ist leer, aber ihr Protokoll {log} enthält Änderungen: bitte die Datei der "
        "Datenbank zurücklegen oder das Protokoll beiseitelegen, um eine neue Datenbank zu beginnen"),
    Refusal.DATABASE_IS_VERDICT_CACHE: Wording(
        503, "{name} is the solver's verdict cache, not a database of saved games; it was left untouched",
        "{name} ist der Speicher des Lösers, keine Datenbank gespeicherter Spiele; er blieb unverändert"),
    Refusal.DATABASE_NONE_YET: Wording(
        503, "there is no games database {name} yet (no game was saved there); nothing was created",
        "Es gibt noch keine Datenbank der Spiele {name} (dort wurde kein Spiel gespeichert); es wurde "
        "nichts angelegt"),
    Refusal.VERDICT_CACHE_NOT_SQLITE: Wording(
        503, "{name} is not a verdict cache (not an SQLite file); it was left untouched",
        "{name} ist kein Speicher des Lösers (keine SQLite-Datei); sie blieb unverändert"),
    Refusal.SIDE_FILE_FOLDER: Wording(
        503, "{side}, where SQLite keeps the {role} of {name}, is a folder: move it away; {name} was left "
             "untouched",
        "{side}, bei SQLite die Datei „{role}“ zu {name}, ist ein Ordner: bitte beiseitelegen; {name} "
        "blieb unverändert"),
    Refusal.SIDE_FILE_NOT_FILE: Wording(
        503, "{side}, where SQLite keeps the {role} of {name}, is not a regular file: move it away; {name} "
             "was left untouched",
        "{side}, bei SQLite die Datei „{role}“ zu {name}, ist keine gewöhnliche Datei (eine Pipe oder ein "
        "Gerät): bitte beiseitelegen; {name} blieb unverändert"),
    Refusal.SIDE_ROLE_LOG: Wording(503, "log", "Protokoll"),
    Refusal.SIDE_ROLE_INDEX: Wording(503, "log's index", "Index des Protokolls"),
    Refusal.SIDE_ROLE_JOURNAL: Wording(503, "journal", "Journal"),
    Refusal.WRITE_DISK_FULL: Wording(
        507, "{change:change} was not saved: the disk is full",
        "{change:change} wurde nicht gespeichert: Die Festplatte ist voll"),
    Refusal.WRITE_READ_ONLY: Wording(
        503, "{change:change} was not saved: the database is read-only",
        "{change:change} wurde nicht gespeichert: Die Datenbank ist schreibgeschützt"),
    Refusal.WRITE_CANNOT_OPEN: Wording(
        503, "{change:change} was not saved: the database file cannot be opened",
        "{change:change} wurde nicht gespeichert: Die Datei der Datenbank lässt sich nicht öffnen"),
    Refusal.WRITE_DISK_FAILED: Wording(
        503, "{change:change} was not saved: the disk failed (input/output error)",
        "{change:change} wurde nicht gespeichert: Die Festplatte meldet einen Ein-/Ausgabefehler"),
    Refusal.WRITE_FILE_MOVED: Wording(
        503, "{change:change} was not saved: {name} or its log was moved, replaced or deleted while in "
             "use; put it back, or start Terrace again",
        "{change:change} wurde nicht gespeichert: {name} oder die Log-Datei daneben wurde während des "
        "Betriebs verschoben, ersetzt oder gelöscht; bitte die Datei zurücklegen oder Terrace neu starten"),
    Refusal.WRITE_FILE_REPLACED: Wording(
        503, "{change:change} was not saved: another program wrote over {name} or put another file in "
             "its place while in use (a backup copied in?); stop Terrace and start it again to open it "
             "as it is now",
        "{change:change} wurde nicht gespeichert: Ein anderes Programm hat {name} während des Betriebs "
        "überschrieben oder durch eine andere Datei ersetzt, vielleicht mit einer Sicherung; bitte "
        "Terrace beenden und neu starten, um die Datei so zu öffnen, wie sie jetzt ist"),
    Refusal.WRITE_FILE_EMPTIED: Wording(
        503, "{change:change} was not saved: another program emptied {name} (cut it to 0 bytes) while in "
             "use, and the games saved in it are gone from it; stop Terrace, and restore a backup or start "
             "a new database (Terrace says how when it starts again)",
        "{change:change} wurde nicht gespeichert: Ein anderes Programm hat {name} während des Betriebs "
        "geleert, auf 0 Bytes gekürzt, und die darin gespeicherten Spiele sind daraus verschwunden; bitte "
        "Terrace beenden und eine Sicherung zurückspielen oder eine neue Datenbank beginnen, wie Terrace "
        "beim nächsten Start sagt"),
    Refusal.WRITE_OPENED_TO_READ: Wording(
        503, "{change:change} was not saved: the database was opened only to read",
        "{change:change} wurde nicht gespeichert: Die Datenbank wurde nur zum Lesen geöffnet"),
    Refusal.WRITE_REFUSED: Wording(  # ({problem} is one of the DATABASE_* refusals of a read)
        503, "{change:change} was not saved: {problem}",
        "{change:change} wurde nicht gespeichert: {problem}"),
    Refusal.GAME_ROW_DAMAGED: Wording(
        500, "saved game {name} is damaged and cannot be loaded: {why}",
        "Das gespeicherte Spiel {name} ist beschädigt und kann nicht geladen werden (Befund: {why:within})"),
    Refusal.GAME_UNSAVABLE: Wording(
        _BAD, "game {game} cannot be saved: {why}",
        "Spiel {game} lässt sich nicht speichern: {why}"),
    Refusal.NEW_GAME_UNSAVABLE: Wording(
        _BAD, "the game cannot be saved: {why}",
        "Das Spiel lässt sich nicht speichern: {why}"),
    Refusal.SAVED_ID: Wording(
        _BAD, "{field}id must be 1 to 64 letters, digits, '-' or '_'",
        "„{field}id“ muss aus 1 bis 64 Buchstaben, Ziffern, „-“ oder „_“ bestehen"),
    Refusal.SAVED_COUNT: Wording(
        _BAD, "{field} must be a whole number from 0 to {limit:count}, not {value}",
        "„{field}“ muss eine ganze Zahl von 0 bis {limit:count} sein, nicht {value}"),
    Refusal.SAVED_NOT_WHOLE: Wording(
        _BAD, "{field} must be a whole number, not {value}",
        "„{field}“ muss eine ganze Zahl sein, nicht {value}"),
    Refusal.SAVED_NOT_FLAG: Wording(
        _BAD, "{field} must be 0 or 1, not {value}",
        "„{field}“ muss 0 oder 1 sein, nicht {value}"),
    Refusal.SAVED_TIME: Wording(
        _BAD, "{field} must be a time in seconds since 1970 from {first} to {last}, not {value}",
        "„{field}“ muss eine Zeit in Sekunden seit 1970 von {first} bis {last} sein, nicht {value}"),
    Refusal.SAVED_TIME_OR_NULL: Wording(
        _BAD, "{field} must be a time in seconds since 1970 from {first} to {last}, or null, not {value}",
        "„{field}“ muss eine Zeit in Sekunden seit 1970 von {first} bis {last} oder null sein, "
        "nicht {value}"),
    Refusal.SAVED_TIME_NOW: Wording(
        _BAD, "{field} must be a time in seconds since 1970 from {first} to now (at most {minutes:seconds} "
              "minutes ahead of this computer's clock), not {value}",
        "„{field}“ muss eine Zeit in Sekunden seit 1970 von {first} bis jetzt sein (höchstens "
        "{minutes:seconds} Minuten später, als die Uhr dieses Computers zeigt), nicht {value}"),
    Refusal.SAVED_TIME_NOW_OR_NULL: Wording(
        _BAD, "{field} must be a time in seconds since 1970 from {first} to now (at most {minutes:seconds} "
              "minutes ahead of this computer's clock), or null, not {value}",
        "„{field}“ muss eine Zeit in Sekunden seit 1970 von {first} bis jetzt (höchstens "
        "{minutes:seconds} Minuten später, als die Uhr dieses Computers zeigt) oder null sein, "
        "nicht {value}"),
    Refusal.SAVED_TIME_NOT_NUMBER: Wording(
        _BAD, "a time must be a number, not {value}",
        "Eine Zeit muss eine Zahl sein, nicht {value}"),
    Refusal.SAVED_LINE_TOO_LONG: Wording(
        _BAD, "{field}redo and the moves hold more than {most:count} moves",
        "„{field}redo“ und die Züge haben zusammen mehr als {most:count} Züge"),
    Refusal.SAVED_MOVES_MISSING: Wording(
        _BAD, "{played:#move/moves} played but only {stored:count} stored",
        "{played:#Zug/Züge} gespielt, aber nur {stored:count} gespeichert"),
    Refusal.SAVED_MOVES_NUMBERED: Wording(
        _BAD, "its moves are not numbered 0, 1, 2 and on without a gap: move {number} is out of place",
        "Seine Züge sind nicht lückenlos ab 0 nummeriert: Zug {number} steht nicht an seinem Platz"),
    Refusal.SAVED_WIN_PAIR: Wording(
        _BAD, "{field}won_at and {field}won_moves go together: both or neither",
        "„{field}won_at“ und „{field}won_moves“ gehören zusammen: beide oder keines"),
    Refusal.SAVED_WIN_TOO_SHORT: Wording(
        _BAD, "{field}won_moves says the game was first won in {moves:#move/moves}, "
              "but a win of this deal takes at least {fewest}",
        "Laut „{field}won_moves“ wurde das Spiel zuerst in {moves:#Zug/Zügen} gewonnen, "
        "aber ein Sieg in diesem Spiel braucht mindestens {fewest}"),
    Refusal.SAVED_GIVEN_UP_WON: Wording(
        _BAD, "{field}given_up_at: a game that was won cannot have been given up",
        "„{field}given_up_at“: Ein gewonnenes Spiel kann nicht aufgegeben worden sein"),
    Refusal.SAVED_GIVEN_UP_UNPLAYED: Wording(
        _BAD, "{field}given_up_at: a game without a move cannot have been given up",
        "„{field}given_up_at“: Ein Spiel ohne Zug kann nicht aufgegeben worden sein"),
    Refusal.SAVED_NOT_REPLAYED: Wording(
        _BAD, "its moves do not replay: {error}",
        "Seine Züge lassen sich nicht nachspielen: {error}"),
    Refusal.SAVED_AT_MOVE: Wording(
        _BAD, "move {number:count}: {error}",
        "Zug {number:count}: {error}"),
    Refusal.SAVED_AT_REDO: Wording(
        _BAD, "{field}redo item {item:count} of {items:count}: {error}",
        "„{field}redo“, Eintrag {item:count} von {items:count}: {error}"),
    Refusal.SAVED_MOVE_REFUSED: Wording(
        _BAD, "{move}: {error}",
        "„{move}“: {error}"),
    Refusal.SAVED_STATUS_SAYS: Wording(
        _BAD, "it says {said} but its moves lead to {reached}",
        "Es gibt {said} an, aber seine Züge führen zu {reached}"),
    Refusal.SAVED_STATUS_IS: Wording(
        _BAD, "its status is {said} but its moves lead to {reached}",
        "Sein Stand ist {said}, aber seine Züge führen zu {reached}"),
    Refusal.SAVED_STATUS_UNKNOWN: Wording(
        _BAD, "unknown status {value}",
        "Unbekannter Stand {value}"),
    Refusal.SAVED_VARIANT_UNKNOWN: Wording(
        _BAD, "unknown variant {value}",
        "Unbekannte Variante {value}"),
    Refusal.SAVED_RULES_NOT_TEXT: Wording(
        _BAD, "the rules are not JSON text",
        "Die Regeln sind kein JSON-Text"),
    Refusal.SAVED_RULES_NOT_JSON: Wording(
        _BAD, "the rules are not valid JSON: {problem}",
        "Die Regeln sind kein gültiges JSON: {problem}"),
    Refusal.SAVED_RULES_INCOMPLETE: Wording(
        _BAD, "the rules are incomplete",
        "Die Regeln sind unvollständig"),
    Refusal.SAVED_VALUE_TOO_LONG: Wording(
        _BAD, "{field} holds a value too long to be read (more than {most:count} bytes)",
        "„{field}“ enthält einen Wert, der zu lang zum Lesen ist (mehr als {most:count} Bytes)"),
    Refusal.SAVED_MOVE_TOO_LONG: Wording(
        _BAD, "move {number} holds a value too long to be read (more than {most:count} characters)",
        "Zug {number} enthält einen Wert, der zu lang zum Lesen ist (mehr als {most:count} Zeichen)"),
    Refusal.SAVED_TOO_DEEP: Wording(
        _BAD, "it is nested too deeply",
        "Es ist zu tief verschachtelt"),
    Refusal.GAME_ROW_NEWER: Wording(
        500, "saved game {name} was made by a newer version of Terrace and cannot be loaded by this one "
             "(its rules have the option {option!r}, which this version does not know): "
             "update Terrace to play it",
        "Das gespeicherte Spiel {name} stammt von einer neueren Version von Terrace und kann mit dieser "
        "nicht geladen werden (seine Regeln haben die Option „{option}“, die diese Version nicht kennt); "
        "bitte Terrace aktualisieren, um es zu spielen"),
}

CHANGES: dict[str, tuple[str, str]] = {
    "create": ("the new game", "Das neue Spiel"), "move": ("the move", "Der Zug"),
    "undo": ("the undo", "Die Rücknahme des Zuges"), "redo": ("the redo", "Die Wiederholung des Zuges"),
    "restart": ("the restart", "Der Neubeginn des Spiels"), "hint": ("the hint", "Der Tipp"),
    "import": ("the import", "Der Import"), "assist": ("the use of an assist", "Die Nutzung einer Hilfe"),
    "time": ("the playing time", "Die Spielzeit"),
    "give-up": ("giving up the game", "Die Aufgabe des Spiels"),
    "autoplay": ("the auto-play to the foundations", "Das automatische Ablegen auf die Zielstapel"),
    "stamp": ("the update of the replay stamps", "Die Aktualisierung der Nachspielmarken"),
    "layout": ("the update of the database's layout", "Die Aktualisierung des Aufbaus der Datenbank"),
    "change": ("the change", "Die Änderung"),
}
"""What each change the store writes is called in its write refusals
(``{change:change}``; any other key reads as ``change``), English and German."""


class Reason:
    """A refusal code with its parameters: what :func:`str` and
    :meth:`text` put into words. The code is a :class:`Refusal`, or a code
    of another layer whose wordings were added with :func:`add_wordings`.

    >>> Reason(Refusal.PILE_EMPTY, pile=3) == Reason(Refusal.PILE_EMPTY, pile=3)
    True
    >>> Reason(Refusal.PILE_EMPTY, pile=3)
    Reason(Refusal.PILE_EMPTY, pile=3)
    """

    __slots__ = ("code", "params")

    def __init__(self, code: StrEnum, **params: Param) -> None:
        self.code = code
        self.params: Mapping[str, Param] = params

    @property
    def wording(self) -> Wording:
        """The texts and status of the code."""
        return _CATALOGUES[type(self.code)][self.code]

    @property
    def status(self) -> int:
        """The HTTP status that fits this refusal."""
        return self.wording.status

    def text(self, language: str = "en") -> str:
        """The reason in words, in ``language`` (``en`` or ``de``)."""
        template = self.wording.template(language)
        return _FORMATTERS.get(language, _FORMATTERS["en"]).format(template, **self.params)

    def to_json(self) -> dict[str, object]:
        """The code and parameters as JSON values (nested reasons too)."""
        return {"code": self.code.value, "params": {k: _json(v) for k, v in self.params.items()}}

    def __str__(self) -> str:
        return self.text("en")

    def __repr__(self) -> str:
        params = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"Reason({type(self.code).__name__}.{self.code.name}{params})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reason):
            return NotImplemented
        return self.code is other.code and dict(self.params) == dict(other.params)

    def __hash__(self) -> int:
        return hash((self.code, tuple(sorted(self.params))))


_CATALOGUES: dict[type[StrEnum], Mapping[Any, Wording]] = {}


NEEDS_RESTART = frozenset({Refusal.FAULT_FILE_REPLACED, Refusal.WRITE_FILE_REPLACED,
                           Refusal.FAULT_FILE_EMPTIED, Refusal.WRITE_FILE_EMPTIED})
"""The refusals only a new start of Terrace ends (another file is where the
one it opened was, or it was emptied): asking again before that cannot help."""


def needs_restart(reason: Reason) -> bool:
    """Whether ``reason``, or a reason inside it, is one of :data:`NEEDS_RESTART`.

    >>> inner = Reason(Refusal.DATABASE_UNUSABLE, name="games.sqlite",
    ...                fault=Reason(Refusal.FAULT_FILE_REPLACED))
    >>> needs_restart(inner), needs_restart(Reason(Refusal.FAULT_DISK_FULL))
    (True, False)
    """
    return reason.code in NEEDS_RESTART or any(
        isinstance(value, Reason) and needs_restart(value) for value in reason.params.values())


def add_wordings(codes: type[Code], wordings: Mapping[Code, Wording]) -> None:
    """Make the codes of another layer (the web game has its own) usable in
    a :class:`Reason`; every code needs its wording."""
    missing = [code for code in codes if code not in wordings]
    if missing:
        raise ValueError(f"no wording for {', '.join(missing)}")
    _CATALOGUES[codes] = wordings


def catalogues() -> dict[type[StrEnum], Mapping[Any, Wording]]:
    """Every set of codes with its wordings (the engine's and those added)."""
    return dict(_CATALOGUES)


def _escape(char: str) -> str:
    return char if char.isprintable() else char.encode("unicode_escape").decode("ascii")


def printable(text: str) -> str:
    r"""``text`` with every character that Python's ``repr`` would escape
    written as its escape: the control characters that would break a
    message's line or command the terminal, the direction marks and
    overrides that would show the rest of the message in another order than
    it is written ("Trojan source"), and the invisible ones (a zero-width or
    no-break space) that would make two different texts look the same. A
    message repeating someone's input stays one plain line.

    >>> print(printable("a\nb\x1b[2J.json"), printable("t1\u202ef\u00a0"), printable("Größe"))
    a\nb\x1b[2J.json t1\u202ef\xa0 Größe
    """
    if text.isprintable():
        return text
    return "".join(map(_escape, text))


def clip(text: str) -> str:
    r"""``text`` shortened to :data:`MAX_QUOTE` characters, its control
    characters escaped (:func:`printable`), for messages that repeat
    someone's input.

    >>> len(clip("x" * 500)), clip("wf"), clip("games\n.json")
    (200, 'wf', 'games\\n.json')
    """
    shown = printable(text[:MAX_QUOTE])  # (cut first: a long text is never scanned whole)
    if len(text) <= MAX_QUOTE and len(shown) <= MAX_QUOTE:
        return shown
    return shown[: MAX_QUOTE - 1] + "…"


_SHALLOW = reprlib.Repr()
"""A ``repr`` that shows a few levels of a nested value and ``...`` below."""


class Quoted(str):
    """Someone's text as :func:`quote` shows it, ``'so'``; a German message
    shows it „so“, as German quotes (``text``: the text between the quotes)."""

    def __new__(cls, text: str) -> Quoted:
        quoted = super().__new__(cls, f"'{text}'")
        quoted.text = text
        return quoted

    text: str

    def __getnewargs__(self) -> tuple[str]:
        return (self.text,)


def quote(value: object) -> str:
    r"""``value`` as a message shows someone's input: text between single
    quotes, clipped and its control characters escaped once (:func:`clip`:
    a tab shows as ``\t``, never ``\\t``); anything else as ``repr``,
    shortened the same way; ``true``, ``false`` and ``null`` as JSON spells
    them (the API's bodies are JSON, and the page's player never wrote
    Python's ``True``). A value nested deeper than ``repr`` can go (a JSON
    body of a few KB can be) shows its first levels.

    >>> quote(1.5), quote("2"), quote(True), quote(None)
    ('1.5', "'2'", 'true', 'null')
    >>> print(quote("t\tf"), quote(clip("t\tf")), quote(["a\tb"]))
    't\tf' 't\tf' ['a\tb']
    >>> deep: list[object] = []
    >>> for _ in range(5000):
    ...     deep = [deep]
    >>> quote(deep)
    '[[[[[[[...]]]]]]]'
    """
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, int):
        return number_text(value)
    if isinstance(value, str):  # (already clipped text stays as it is: clip() is idempotent)
        shown = clip(value)
        if len(shown) > MAX_QUOTE - 2:
            shown = shown[: MAX_QUOTE - 3] + "…"
        return Quoted(shown)
    try:
        return clip(repr(_head(value)))
    except RecursionError:
        return clip(_SHALLOW.repr(value))
    except Exception:  # (a repr that fails, or a number too long for str(), fails no refusal)
        return f"<{type(value).__name__}>"


def _head(value: object) -> object:
    """As much of a long sequence, mapping or set as :func:`clip` can show
    of its ``repr`` (its first :data:`MAX_QUOTE` items or bytes, in their
    order), so that a huge one is not written out whole; anything else as
    it is."""
    if isinstance(value, bytes | bytearray) and len(value) > MAX_QUOTE:
        return bytes(value[:MAX_QUOTE + 1])
    for kind in (list, tuple, dict, set, frozenset):
        if isinstance(value, kind) and len(value) > MAX_QUOTE:
            return kind(islice(value.items() if isinstance(value, dict) else value, MAX_QUOTE + 1))
    return value


class LongNumber(str):
    """A whole number too long to quote, described by its size in English
    (:func:`number_text`); a German message describes it in German, also
    when the English words were made before the language was known
    (:func:`quote`)."""

    def __new__(cls, digits: int, negative: bool) -> LongNumber:
        sign = "negative " if negative else ""
        described = super().__new__(cls, f"a {sign}number of about {digits} digits")
        described.digits, described.negative = digits, negative
        return described

    digits: int
    negative: bool

    def __reduce__(self) -> tuple[type[LongNumber], tuple[int, bool]]:
        return (LongNumber, (self.digits, self.negative))

    def german(self) -> str:
        """The same in German (nominative: the German templates put it so)."""
        return f"eine {'negative ' if self.negative else ''}Zahl mit etwa {self.digits} Stellen"


def quotable(value: int) -> bool:
    """Whether a message writes the whole number ``value`` out (at most about
    180 digits), rather than describing it by its size (:func:`number_text`).

    >>> quotable(-10**179), quotable(10**200)
    (True, False)
    """
    return value.bit_length() <= 3 * MAX_QUOTE


def number_text(value: int, language: str = "en") -> str:
    """A whole number as text, shortened like :func:`clip` (a number too long
    to quote, even too long for ``str()``, is described by its size).

    >>> number_text(-42), number_text(10**5000), number_text(-10**5000, "de")
    ('-42', 'a number of about 5001 digits', 'eine negative Zahl mit etwa 5001 Stellen')
    """
    if not quotable(value):
        described = LongNumber(round(value.bit_length() * 0.30103) + 1, value < 0)
        return described.german() if language == "de" else described
    return clip(str(value))


def _json(value: Param) -> object:
    if isinstance(value, Reason):
        return value.to_json()
    if isinstance(value, tuple):
        return list(value)
    return value


_RANK_DE = {"J": "B", "Q": "D", "T": "10"}
_RANK_EN = {"T": "10"}
_PLACE_EN = {"r": "the reserve", "w": "the waste", "s": "the stock", "f": "foundation", "t": "pile"}
_PLACE_DE = {
    "r": "die Terrasse", "w": "der Abwurfstapel", "s": "der Vorrat", "f": "Zielstapel", "t": "Stapel",
}


# German rank nouns: gender (m, f, n) and the noun in the nominative and the
# accusative (Bube is a weak noun); the number ranks are feminine (die Acht)
# and stay digits.
_NOUNS_DE = {"A": ("n", "Ass", "Ass"), "K": ("m", "König", "König"), "Q": ("f", "Dame", "Dame"),
             "J": ("m", "Bube", "Buben")}
_COLOUR_STEM_DE = {"red": "rot", "black": "schwarz"}


def _german_noun(rank: str, colour: str | None, *, accusative: bool) -> str:
    """A rank as a German noun with its indefinite article and, when given,
    its colour as an adjective.

    >>> _german_noun("A", "black", accusative=True), _german_noun("J", "red", accusative=True)
    ('ein schwarzes Ass', 'einen roten Buben')
    >>> _german_noun("K", None, accusative=False), _german_noun("T", "black", accusative=False)
    ('ein König', 'eine schwarze 10')
    """
    gender, nominative, accusative_noun = _NOUNS_DE.get(rank, ("f", _RANK_DE.get(rank, rank), ""))
    noun = (accusative_noun or nominative) if accusative else nominative
    if gender == "f":
        article, ending = "eine", "e"
    elif gender == "n":
        article, ending = "ein", "es"
    elif accusative:
        article, ending = "einen", "en"
    else:
        article, ending = "ein", "er"
    adjective = f"{_COLOUR_STEM_DE[colour]}{ending} " if colour else ""
    return f"{article} {adjective}{noun}"


class _Words(string.Formatter):
    """Renders parameters in one language. Format specs:

    ``card``
        a card code as a label with its suit symbol (``QS`` -> ``Q♠``,
        German ``D♠``; ``TD`` -> ``10♦``)
    ``rank``
        a rank code as the player reads it (German ``B``, ``D`` for J, Q)
    ``a-rank``
        the same with its article (``an 8``, ``a Q``; German as ``ein``)
    ``colour``
        ``red`` or ``black`` as an adjective (German ``rote``, ``schwarze``)
    ``ein``, ``einen``
        German only: a rank code, or the pseudo-field ``colour_rank`` (the
        reason's ``colour`` and ``rank`` together), as a noun with its
        article, nominative or accusative (``ein Ass``, ``einen Buben``,
        ``ein schwarzes Ass``, ``einen roten König``, ``eine schwarze 8``)
    ``choices``
        a list as ``'a', 'b' or 'c'`` (German ``„a“, „b“ oder „c“``)
    ``list``
        a list separated by commas (an empty one, either way: ``none``)
    ``decks``
        a number of decks with its noun (``1 deck``, ``2 decks``)
    ``candidates``
        a number of candidates with its noun (``one candidate``, ``3
        candidates``; German ``eine Karte zur Wahl``, ``3 Karten zur Wahl``)
    ``choices-moves``
        the choice moves of that many candidates (``c1``, ``c1 to c3``)
    ``piles-range``
        the piles of that many (``the only pile is pile 1``, ``piles run
        from 1 to 9``; German ``nur Stapel 1``, ``nur 1 bis 9``)
    ``#one/many``
        a number with the noun that follows it, one's or many's (German
        nouns in the template's German: ``{most:#Karte/Karten}``), its
        thousands grouped as ``count`` groups them
    ``place``
        a place code (``r``, ``w``, ``s``, ``f3``, ``t2``) in words
    ``change``
        a change the store writes, a key of :data:`CHANGES` (``move`` ->
        ``the move``, German ``Der Zug``)
    ``seconds``
        a number of seconds, shortest form, German with a decimal comma
        (``0.5`` -> ``0,5``; ``10.0`` -> ``10``)
    ``count``
        a whole number with its thousands grouped (``1,000,000``, German
        ``1.000.000``)
    ``within``
        a nested reason (or text) said inside another sentence, in
        parentheses: German drops its closing full stop, as a statement in
        parentheses within a sentence has none (``(Befund: ... ein roter
        König).``, not ``König.).``)

    A nested reason is rendered in the same language.
    """

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if field_name == "colour_rank":
            return (kwargs["colour"], kwargs["rank"]), field_name
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: object, format_spec: str) -> str:
        de = self.language == "de"
        if format_spec == "within":
            text = self.format_field(value, "")
            return text[:-1] if de and text.endswith(".") and not text.endswith("..") else text
        if isinstance(value, Reason):
            return value.text(self.language)
        if de and isinstance(value, Quoted) and not format_spec:
            return f"„{value.text}“"  # (German quotes, as the German templates write them)
        if de and isinstance(value, LongNumber):
            return value.german()
        if format_spec == "change":
            return CHANGES.get(str(value), CHANGES["change"])[1 if de else 0]
        game = self._game_words(value, format_spec, de)
        if game is not None:
            return game
        if format_spec.startswith("#"):
            one, _, many = format_spec[1:].partition("/")
            if isinstance(value, int) and not isinstance(value, bool):
                shown = (self.format_field(value, "count") if value.bit_length() <= 3 * MAX_QUOTE
                         else number_text(value, self.language))
                return f"{shown} {one if value == 1 else many}"
            return f"{self.format_field(value, '')} {many}"
        if format_spec == "count":
            assert isinstance(value, int) and not isinstance(value, bool)
            return f"{value:,}".replace(",", ".") if de else f"{value:,}"
        if format_spec == "seconds":
            assert isinstance(value, int | float) and not isinstance(value, bool)
            text = f"{value:g}"
            return text.replace(".", ",") if de else text
        if format_spec == "place":
            assert isinstance(value, str)
            words = (_PLACE_DE if de else _PLACE_EN)[value[0]]
            return f"{words} {value[1:]}" if value[1:] else words
        if isinstance(value, int) and not isinstance(value, bool) and not format_spec:
            return number_text(value, self.language)  # someone's number: no longer than the quotes
        return str(super().format_field(value, format_spec))

    def _game_words(self, value: object, spec: str, de: bool) -> str | None:
        """``value`` in the words of the game that ``spec`` names (a card, a
        rank, a colour, decks, candidates, piles, a list of choices); None
        for a spec of no such words."""
        if spec == "card":
            assert isinstance(value, str)
            rank = "10" if value[0] == "T" else self._rank(value[0])
            return rank + SUIT_SYMBOLS[SUITS.index(value[1])]
        if spec == "rank":
            assert isinstance(value, str)
            return self._rank(value)
        if spec == "a-rank":
            assert isinstance(value, str)
            if de:
                return _german_noun(value, None, accusative=False)
            return ("an " if value in "8A" else "a ") + self._rank(value)
        if spec in ("ein", "einen"):
            colour, rank = value if isinstance(value, tuple) else (None, value)
            return _german_noun(str(rank), colour, accusative=spec == "einen")
        if spec == "colour":
            return {"red": "rote", "black": "schwarze"}[str(value)] if de else str(value)
        if spec in ("choices", "list"):
            assert isinstance(value, tuple)
            if not value:
                return "keines" if de else "none"
            if spec == "list":
                return ", ".join(value)
            quoted = [f"„{v}“" if de else f"'{v}'" for v in value]
            return ", ".join(quoted[:-1]) + (" oder " if de else " or ") + quoted[-1]
        if spec == "decks":
            assert isinstance(value, int)
            if de:
                return f"{value} Kartenspiel" + ("en" if value > 1 else "")
            return f"{value} deck" + ("s" if value > 1 else "")
        if spec == "candidates":
            assert isinstance(value, int)
            if value == 1:
                return "eine Karte zur Wahl" if de else "one candidate"
            return f"{value} Karten zur Wahl" if de else f"{value} candidates"
        if spec == "choices-moves":
            assert isinstance(value, int)
            return "c1" if value == 1 else f"c1 {'bis' if de else 'to'} c{value}"
        if spec == "piles-range":
            assert isinstance(value, int)
            if value == 1:
                return "nur Stapel 1" if de else "the only pile is pile 1"
            return f"nur 1 bis {value}" if de else f"piles run from 1 to {value}"
        return None

    def _rank(self, code: str) -> str:
        """A rank code in this language (English keeps the code itself, but
        for ten: "a 10", never "a T")."""
        return (_RANK_DE if self.language == "de" else _RANK_EN).get(code, code)

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        """``!r`` quotes text once, as :func:`quote` does (a parameter
        holds text already clipped, its control characters escaped: Python's
        ``repr`` would double their backslashes)."""
        if conversion == "r" and isinstance(value, str):
            return quote(value)
        return super().convert_field(value, conversion)

    def check_unused_args(self, *args: object) -> None:
        """Every parameter need not appear in every language."""


_FORMATTERS = {language: _Words(language) for language in LANGUAGES}
add_wordings(Refusal, WORDINGS)
