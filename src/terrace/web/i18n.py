"""Messages of the web game in English and German, keyed by refusal code.

The engine words its own refusals (:mod:`terrace.refusals`); the web layer
adds the codes of refusals only it makes (:class:`WebRefusal`: a body that is
not JSON, a stale tab...) with their texts and HTTP status, in the same
form. A reason is put into words by its code, never by reading its English.

>>> from terrace.refusals import Reason, Refusal
>>> say(Reason(Refusal.TERRACE_ONLY_TO_FOUNDATION), "de")
'Die Terrassenkarte darf nur auf einen Zielstapel.'
>>> say(Reason(Refusal.FOUNDATION_NEEDS_BASE, foundation=2, rank="Q"), "de")
'Zielstapel 2 ist leer: Nur eine Dame kann ihn beginnen.'
>>> reason = Reason(WebRefusal.CONFLICT)
>>> say(reason, "en"), reason.status
('the game changed in another window: reload it', 409)
>>> slow = Reason(WebRefusal.BODY_TOO_SLOW, seconds=2.5)
>>> say(slow, "en"), say(slow, "de")
('the request body did not arrive within 2.5 s', 'Die Anfrage ist nicht innerhalb von 2,5 s angekommen.')
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import TypeGuard

from terrace.refusals import LANGUAGES, Reason, Wording, add_wordings, quotable

__all__ = ["LANGUAGES", "NOTICES", "SOLVER_STOPS", "WEB_WORDINGS", "SolverStop", "WebNotice", "WebRefusal",
           "notice", "notice_json", "pick_language", "refusal_json", "say", "sentence"]


class WebRefusal(StrEnum):
    """Refusals only the web layer makes (the value is the code it sends)."""

    GAME_UNKNOWN = "game-unknown"
    CONFLICT = "conflict"
    WINNABLE_NOT_BOOL = "winnable-not-bool"
    PEEK_NOT_FLAG = "peek-not-flag"
    RECENT_RANGE = "recent-range"
    STEP_RANGE = "step-range"
    MOVE_NOT_NOTATION = "move-not-notation"
    AFTER_NOT_COUNT = "after-not-count"
    REVISION_NOT_COUNT = "revision-not-count"
    FIELD_UNKNOWN = "field-unknown"
    QUERY_UNKNOWN = "query-unknown"
    QUERY_TWICE = "query-twice"
    BODY_TOO_LARGE = "body-too-large"
    BODY_NOT_JSON_TYPE = "body-not-json-type"
    BODY_ENCODED = "body-encoded"
    BODY_CHARSET = "body-charset"
    BODY_NOT_JSON = "body-not-json"
    BODY_NOT_OBJECT = "body-not-object"
    NOT_FOUND = "not-found"
    METHOD_NOT_ALLOWED = "method-not-allowed"
    REFUSED = "refused"
    BODY_TOO_SLOW = "body-too-slow"
    CLIENT_GONE = "client-gone"
    SOLVER_BUSY = "solver-busy"
    SOLVER_STOPPED = "solver-stopped"
    NO_WINNABLE_DEAL = "no-winnable-deal"
    GAME_DAMAGED = "game-damaged"
    NOT_SAVED = "not-saved"
    NOT_SAVED_DISK_FULL = "not-saved-disk-full"
    NOT_SAVABLE = "not-savable"
    GAME_TOO_LONG = "game-too-long"
    CLOCK_WRONG = "clock-wrong"
    STORE_UNAVAILABLE = "store-unavailable"
    SERVER_ERROR = "server-error"
    SERVER_STOPPED = "server-stopped"
    # The guard in front of the app (terrace.web.security)
    HOST_NOT_LOCAL = "host-not-local"
    CROSS_SITE = "cross-site"
    TOKEN_NEEDED = "token-needed"
    LINK_SPENT = "link-spent"
    # The server's protocol (terrace.web.protocol), before the app
    HEAD_TOO_LARGE = "head-too-large"
    REQUEST_MALFORMED = "request-malformed"
    SERVER_BUSY = "server-busy"
    HTTPS_NEEDED = "https-needed"
    # Ending a game (auto-play, giving up, active time)
    GAME_GIVEN_UP = "game-given-up"
    GIVE_UP_WON = "give-up-won"
    GIVE_UP_UNPLAYED = "give-up-unplayed"
    AUTOPLAY_MODE = "autoplay-mode"
    TIME_NOT_COUNT = "time-not-count"
    # The coach
    COACH_NOT_OVER = "coach-not-over"


WEB_WORDINGS: dict[WebRefusal, Wording] = {
    WebRefusal.GAME_UNKNOWN: Wording(
        404, "there is no game {game!r}",
        "Es gibt kein Spiel „{game}“."),
    WebRefusal.CONFLICT: Wording(
        409, "the game changed in another window: reload it",
        "Das Spiel wurde in einem anderen Fenster geändert: Bitte neu laden."),
    WebRefusal.WINNABLE_NOT_BOOL: Wording(
        400, "winnable must be true or false",
        "„winnable“ muss true oder false sein."),
    WebRefusal.PEEK_NOT_FLAG: Wording(
        400, "peek must be true or false",
        "„peek“ muss true oder false sein."),
    WebRefusal.RECENT_RANGE: Wording(
        400, "recent must be a number from {low} to {high}",
        "„recent“ muss eine Zahl von {low} bis {high} sein."),
    WebRefusal.STEP_RANGE: Wording(
        400, "step must be a number from 0 to {last}",
        "„step“ muss eine Zahl von 0 bis {last} sein."),
    WebRefusal.MOVE_NOT_NOTATION: Wording(
        400, 'move must be a move in the notation, e.g. "wf" or "t2t5"',
        "„move“ muss ein Zug in der Notation sein, z. B. „wf“ oder „t2t5“."),
    WebRefusal.AFTER_NOT_COUNT: Wording(
        400, "after must be the number of moves the page has seen",
        "„after“ muss die Zahl der Züge sein, die die Seite kennt."),
    WebRefusal.REVISION_NOT_COUNT: Wording(
        400, "revision must be the revision of the game the page has seen",
        "„revision“ muss die Revision des Spiels sein, die die Seite kennt."),
    WebRefusal.FIELD_UNKNOWN: Wording(
        400, "unknown field {field!r}; expected {expected:list}",
        "Unbekanntes Feld „{field}“; erwartet: {expected:list}."),
    WebRefusal.QUERY_UNKNOWN: Wording(
        400, "unknown query parameter {name!r}; this address takes {expected:list}",
        "Unbekannter Parameter „{name}“ in der Adresse; diese Adresse nimmt: {expected:list}."),
    WebRefusal.QUERY_TWICE: Wording(
        400, "the query parameter {name!r} is given twice: give it once",
        "Der Parameter „{name}“ steht zweimal in der Adresse: Bitte nur einmal angeben."),
    WebRefusal.BODY_TOO_LARGE: Wording(
        413, "the request body is too large (at most {most:count} bytes)",
        "Die Anfrage ist zu groß (höchstens {most:count} Bytes)."),
    WebRefusal.BODY_NOT_JSON_TYPE: Wording(
        415, "send the request with Content-Type: application/json (also when it is empty)",
        "Die Anfrage muss mit Content-Type: application/json gesendet werden (auch ohne Inhalt)."),
    WebRefusal.BODY_ENCODED: Wording(
        415, "send the request body as it is, without Content-Encoding (gzip and the like)",
        "Den Inhalt der Anfrage bitte unverändert senden, ohne Content-Encoding (gzip und dergleichen)."),
    WebRefusal.BODY_CHARSET: Wording(
        415, "send the request body in UTF-8 (charset=utf-8, or no charset), not {charset!r}",
        "Den Inhalt der Anfrage bitte in UTF-8 senden (charset=utf-8 oder ohne charset), nicht „{charset}“."),
    WebRefusal.BODY_NOT_JSON: Wording(
        400, "the body is not valid JSON",
        "Die Anfrage ist kein gültiges JSON."),
    WebRefusal.BODY_NOT_OBJECT: Wording(
        400, "the body must be a JSON object",
        "Die Anfrage muss ein JSON-Objekt sein."),
    WebRefusal.NOT_FOUND: Wording(
        404, "there is nothing at this address",
        "Unter dieser Adresse gibt es nichts."),
    WebRefusal.METHOD_NOT_ALLOWED: Wording(
        405, "this address does not accept that method",
        "Diese Adresse nimmt diese Methode nicht an."),
    WebRefusal.REFUSED: Wording(
        400, "{problem}",
        "{problem}"),
    WebRefusal.BODY_TOO_SLOW: Wording(
        408, "the request body did not arrive within {seconds:seconds} s",
        "Die Anfrage ist nicht innerhalb von {seconds:seconds} s angekommen."),
    WebRefusal.CLIENT_GONE: Wording(
        400, "the client went away before its request arrived",
        "Die Verbindung wurde getrennt, bevor die Anfrage ankam."),
    WebRefusal.SOLVER_BUSY: Wording(
        503, "the solver is busy with other requests: try again in a few seconds",
        "Der Löser ist mit anderen Anfragen beschäftigt: Bitte in ein paar Sekunden noch einmal."),
    WebRefusal.SOLVER_STOPPED: Wording(
        503, "{problem}: try again",
        "{problem}: Bitte noch einmal versuchen."),
    WebRefusal.NO_WINNABLE_DEAL: Wording(
        503, 'no deal was proved winnable within {seconds:seconds} s for these rules ({tried} tried): '
             'try again, or other rules, or without "Winnable deals only"',
        "Innerhalb von {seconds:seconds} s wurde für diese Regeln kein gewinnbares Spiel gefunden "
        "({tried} versucht): Bitte noch einmal, mit anderen Regeln oder ohne „Nur gewinnbare Spiele“."),
    WebRefusal.GAME_DAMAGED: Wording(
        500, "{problem}",
        "{problem}."),
    WebRefusal.NOT_SAVED: Wording(
        503, "{problem}",
        "{problem}."),
    WebRefusal.NOT_SAVED_DISK_FULL: Wording(
        507, "{problem}",
        "{problem}."),
    WebRefusal.NOT_SAVABLE: Wording(
        422, "{problem}",
        "Die Änderung wurde nicht gespeichert, denn das Spiel wäre danach beschädigt "
        "({problem:within})."),
    WebRefusal.GAME_TOO_LONG: Wording(
        422, "a game holds at most {most:count} moves, played and taken back: take moves back and play "
             "others in their place, or start a new game",
        "Ein Spiel fasst höchstens {most:count} Züge, gespielte und zurückgenommene: Nimm Züge zurück und "
        "spiele andere an ihrer Stelle, oder beginne ein neues Spiel."),
    WebRefusal.CLOCK_WRONG: Wording(
        422, "the computer's clock says {date}, and a saved game holds times from {first} to "
             "{last} only: set the clock right, then play on; nothing was changed",
        "Die Uhr des Computers zeigt {date}, und ein gespeichertes Spiel fasst nur Zeiten von "
        "{first} bis {last}: Stell die Uhr richtig und spiel dann weiter; nichts wurde geändert."),
    WebRefusal.STORE_UNAVAILABLE: Wording(
        503, "{problem}",
        "Die Datenbank ist gerade nicht benutzbar ({problem:within})."),
    WebRefusal.SERVER_ERROR: Wording(
        500, "something went wrong on the server; the game was not changed",
        "Auf dem Server ist etwas schiefgegangen; das Spiel wurde nicht verändert."),
    WebRefusal.SERVER_STOPPED: Wording(
        503, "the server was stopped before it could answer: start terrace play again, then reload the page",
        "Der Server wurde beendet, bevor er antworten konnte: Bitte terrace play neu starten und dann die "
        "Seite neu laden."),
    WebRefusal.HOST_NOT_LOCAL: Wording(
        421, "this server answers only requests addressed to this computer ({hosts:choices})",
        "Dieser Server beantwortet nur Anfragen an diesen Computer ({hosts:choices})."),
    WebRefusal.CROSS_SITE: Wording(
        403, "requests from other web sites are refused",
        "Anfragen von anderen Websites werden abgelehnt."),
    WebRefusal.TOKEN_NEEDED: Wording(
        401, "open the address with the token that terrace play printed, in a browser that keeps cookies",
        "Bitte die Adresse mit dem Token öffnen, das terrace play ausgegeben hat, in einem Browser, "
        "der Cookies annimmt."),
    WebRefusal.LINK_SPENT: Wording(
        401, "this link has been used already, and each link opens the game once: open the newest link "
             "that terrace play printed on the computer (or scan its QR code), or, if it is no longer "
             "there, stop terrace play and start it again for a new link",
        "Dieser Link wurde schon benutzt, und jeder Link öffnet das Spiel nur einmal: Bitte den neuesten "
        "Link öffnen, den terrace play auf dem Computer ausgegeben hat (oder seinen QR-Code scannen), "
        "oder, wenn er dort nicht mehr steht, terrace play beenden und neu starten, um einen neuen Link "
        "zu bekommen."),
    WebRefusal.HEAD_TOO_LARGE: Wording(
        431, "the request's head (request line and headers) is over {most:count} bytes; cookies that other "
             "programs on this address set count too",
        "Der Kopf der Anfrage (Anfragezeile und Kopfzeilen) ist länger als {most:count} Bytes; auch Cookies, "
        "die andere Programme für diese Adresse gesetzt haben, zählen mit."),
    WebRefusal.REQUEST_MALFORMED: Wording(
        400, "the request is not well-formed HTTP/1.1",
        "Die Anfrage ist kein wohlgeformtes HTTP/1.1."),
    WebRefusal.SERVER_BUSY: Wording(
        503, "the server has too many connections open: try again in a moment",
        "Der Server hat zu viele offene Verbindungen: Bitte gleich noch einmal versuchen."),
    WebRefusal.HTTPS_NEEDED: Wording(
        400, "this address serves HTTPS only: open it with https:// instead of http://",
        "Diese Adresse antwortet nur über HTTPS: Bitte mit https:// statt http:// öffnen."),
    WebRefusal.GAME_GIVEN_UP: Wording(
        409, "this game was given up: it can be replayed, no longer played",
        "Dieses Spiel wurde aufgegeben: Es kann nachgespielt, aber nicht mehr gespielt werden."),
    WebRefusal.GIVE_UP_WON: Wording(
        409, "this game was won, and a win is final: it cannot be given up",
        "Dieses Spiel wurde gewonnen, und ein Sieg bleibt ein Sieg: Es kann nicht aufgegeben werden."),
    WebRefusal.GIVE_UP_UNPLAYED: Wording(
        409, "no move has been made in this game, so there is nothing to give up "
             "(a game without a move does not count)",
        "In diesem Spiel wurde noch kein Zug gemacht, es gibt also nichts aufzugeben "
        "(ein Spiel ohne Zug zählt nicht)."),
    WebRefusal.AUTOPLAY_MODE: Wording(
        400, "mode must be one of {choices:list}",
        "„mode“ muss eines von {choices:list} sein."),
    WebRefusal.TIME_NOT_COUNT: Wording(
        400, "ms must be a whole number of milliseconds, 0 or more",
        "„ms“ muss eine ganze Zahl von Millisekunden sein, 0 oder mehr."),
    WebRefusal.COACH_NOT_OVER: Wording(
        409, "the game is not over yet: the coach analyses a game once it is won, lost or given up",
        "Das Spiel ist noch nicht zu Ende: Der Trainer untersucht ein Spiel, wenn es gewonnen, "
        "verloren oder aufgegeben ist."),
}
"""What each web refusal says, and its HTTP status."""

add_wordings(WebRefusal, WEB_WORDINGS)


class SolverStop(StrEnum):
    """Why solver work stopped (:mod:`terrace.web.workers`): the ``problem``
    of a ``solver-stopped`` refusal, never sent as a code of its own."""

    SEARCH_OVERRAN = "search-overran"
    SERVER_STOPPING = "server-stopping"
    CALLER_GONE = "caller-gone"
    SOLVER_CRASHED = "solver-crashed"
    SOLVER_STUCK = "solver-stuck"
    SOLVER_OUT_OF_MEMORY = "solver-out-of-memory"


SOLVER_STOPS: dict[SolverStop, Wording] = {
    SolverStop.SEARCH_OVERRAN: Wording(
        503, "the search went on past its {seconds:seconds} s and was stopped",
        "Die Suche lief über ihre {seconds:seconds} s hinaus und wurde abgebrochen"),
    SolverStop.SERVER_STOPPING: Wording(
        503, "the server is stopping",
        "Der Server wird gerade beendet"),
    SolverStop.CALLER_GONE: Wording(
        503, "the caller went away",
        "Die Verbindung wurde getrennt"),
    SolverStop.SOLVER_CRASHED: Wording(
        503, "the solver process stopped unexpectedly",
        "Der Löserprozess wurde unerwartet beendet"),
    SolverStop.SOLVER_STUCK: Wording(
        503, "the solver process did not respond and was replaced",
        "Der Löserprozess hat nicht geantwortet und wurde ersetzt"),
    SolverStop.SOLVER_OUT_OF_MEMORY: Wording(
        503, "the solver process ran out of memory and was replaced",
        "Dem Löserprozess ging der Speicher aus, er wurde ersetzt"),
}
"""What each cause of a stopped search says (the start of a sentence in
German: ``solver-stopped`` goes on after it)."""

add_wordings(SolverStop, SOLVER_STOPS)


_QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")
"""A quality as RFC 9110 writes it (0 to 1, at most three decimals)."""

_SUBTAG_END = re.compile(r"[-_]")
"""Where a language tag's first subtag ends (``de-CH``; ``de_CH`` as POSIX locales write it)."""


def pick_language(header: str | None) -> str:
    """The language to answer in, from an Accept-Language header.

    A language of quality 0 is one the client does not want (RFC 9110).

    >>> pick_language("de-DE,de;q=0.9,en;q=0.8"), pick_language(None), pick_language("fr, de;q=0.5")
    ('de', 'en', 'de')
    >>> pick_language("de;q=0"), pick_language("de;q=0.0, en;q=0.1")
    ('en', 'en')

    A language is its tag's first subtag (``de-CH`` is German; ``del``,
    Delaware, is not):

    >>> pick_language("del, en;q=0.5"), pick_language("den"), pick_language("de_AT")
    ('en', 'en', 'de')

    ``*`` stands for every language the header does not name (RFC 4647
    3.3.1): German for a client that refuses English and takes any other,
    English for one that prefers any language to German:

    >>> pick_language("en;q=0, *"), pick_language("de;q=0.9, *"), pick_language("*, de")
    ('de', 'en', 'de')
    """
    if not header:
        return "en"
    weighted: list[tuple[float, int, int, int, str]] = []
    for position, part in enumerate(header.split(",")):
        code, _, params = part.strip().partition(";")
        quality = 1.0
        # (the weight's "q" in either case, as ABNF reads it, RFC 9110 12.4.2:
        # "de;Q=0" chose German; float() also read 'nan', 'inf', '1_0' and '١')
        if params.strip().lower().startswith("q="):
            value = params.strip()[2:]
            quality = float(value) if _QVALUE.fullmatch(value) else 0.0
        # (the first subtag, not the first two letters: "del", "den" chose German)
        weighted.append((-quality, 0, position, 0, _SUBTAG_END.split(code.strip().lower(), maxsplit=1)[0]))
    named = {code for *_, code in weighted}
    # (the wildcard's weight goes to each language not named: "en;q=0, *"
    # answered in English, which the client refused, "de;q=0.9, *" in German)
    # (after a language named with the same weight, and English first
    # among them, as without a header)
    weighted += [(quality, 1, position, order, language) for quality, _, position, _, code in list(weighted)
                 if code == "*" for order, language in enumerate(LANGUAGES) if language not in named]
    for quality, *_, code in sorted(weighted):
        if code in LANGUAGES and quality < 0:
            return code
    return "en"


def say(reason: Reason, language: str) -> str:
    """``reason`` in ``language`` (English for a language we do not write)."""
    return reason.text(language)


def refusal_json(reason: Reason, accept_language: str | None, key: str = "error") -> dict[str, object]:
    """``{key: the reason in the request's language, "code": its code}``: the
    body of every refusal, the app's and its guard's; with ``"params"``, the
    numbers its words hold (:func:`numbers_of`), when they hold any, so that
    a client can word it in its own way.

    >>> refusal_json(Reason(WebRefusal.NOT_FOUND), "de")
    {'error': 'Unter dieser Adresse gibt es nichts.', 'code': 'not-found'}
    >>> from terrace.refusals import Refusal
    >>> refusal_json(Reason(Refusal.CHOOSE_FIRST, candidates=4), None)["params"]
    {'candidates': 4}
    """
    body: dict[str, object] = {key: say(reason, pick_language(accept_language)), "code": reason.code.value}
    numbers = numbers_of(reason)
    if numbers:
        body["params"] = numbers
    return body


def numbers_of(reason: Reason) -> dict[str, int | float]:
    """The parameters of ``reason`` that are numbers its words write out (a
    count, a limit, a pile's number), by name: the rest are words or input
    already said in its words (a card, a quoted field, a reason inside it,
    SQLite's words, a number too long to quote, which the words describe
    by its size), which a client words from the code.

    >>> from terrace.refusals import Refusal
    >>> numbers_of(Reason(Refusal.FOUNDATION_NEEDS_BASE, foundation=2, rank="Q"))
    {'foundation': 2}
    >>> numbers_of(Reason(Refusal.OPTION_RANGE, option="decks", low=1, high=8, value=10**4000))
    {'low': 1, 'high': 8}
    """
    return {name: value for name, value in reason.params.items() if _written_out(value)}


def _written_out(value: object) -> TypeGuard[int | float]:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return quotable(value)
    return isinstance(value, float) and math.isfinite(value)


class WebNotice(StrEnum):
    """What the guard in front of the app says that is no refusal (the
    value is the code it sends)."""

    LINK_OPENED = "link-opened"
    """The 303 of a remote link, to the address without the token."""
    LINK_HELD = "link-held"
    """The 303 of the printed remote link, not used yet, to the address
    without the token, where its page shows (:data:`LINK_ENTRY`)."""
    LINK_ENTRY = "link-entry"
    """The page a remote link shows before it is used (its button uses it)."""
    LINK_BUTTON = "link-button"
    """The words of that page's button."""


NOTICES: dict[WebNotice, Wording] = {
    WebNotice.LINK_OPENED: Wording(
        303, "the link was opened: the game is at the address without the token",
        "Der Link wurde geöffnet: Das Spiel ist unter der Adresse ohne Token."),
    WebNotice.LINK_HELD: Wording(
        303, "the link's page is at the address without the token: press its button to open the game",
        "Die Seite des Links ist unter der Adresse ohne Token: Bitte ihre Schaltfläche drücken, um das "
        "Spiel zu öffnen."),
    WebNotice.LINK_ENTRY: Wording(
        200, "this link opens the game on this device, once: press the button to open it",
        "Dieser Link öffnet das Spiel auf diesem Gerät, einmal: Bitte die Schaltfläche drücken, um es "
        "zu öffnen."),
    WebNotice.LINK_BUTTON: Wording(
        200, "Open the game",
        "Spiel öffnen"),
}
"""What each notice says, and the HTTP status it comes with."""


def notice(code: WebNotice, language: str) -> str:
    """The words of a notice in ``language`` (English for any other)."""
    return NOTICES[code].template(language)


def notice_json(code: WebNotice, accept_language: str | None) -> dict[str, str]:
    """``{"message": the notice in the request's language, "code": its
    code}``: the body of every answer of the guard that is no refusal.

    >>> notice_json(WebNotice.LINK_OPENED, "en")["code"]
    'link-opened'
    """
    return {"message": notice(code, pick_language(accept_language)), "code": code.value}


def sentence(text: str) -> str:
    """A refusal's or notice's words as a sentence on a page: a capital
    first letter and a full stop (German words are sentences already).

    >>> sentence("there is nothing at this address"), sentence("Spiel öffnen.")
    ('There is nothing at this address.', 'Spiel öffnen.')
    """
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."
