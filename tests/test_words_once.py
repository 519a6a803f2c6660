"""Words in the player's language only, and each fact written once: a
refusal in German holds no English, and a limit a refusal states comes from
where the program keeps it, not from a number typed into its text."""

from __future__ import annotations

import pickle
import sqlite3
import time
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from terrace.deal import MAX_DEAL_NUMBER, Deal
from terrace.errors import InvalidDealError, TerraceError
from terrace.refusals import Reason, Refusal
from terrace.rules import Rules
from terrace.solver.verdicts import VerdictCacheError, VerdictStore
from terrace.solver.winnable import next_winnable_deal
from terrace.storage import MemoryStore, base, open_store
from terrace.storage.base import ClockOutOfRangeError, StoredGame, StoreError
from terrace.storage.files import busy_error, sql_error
from terrace.variants import get_rules
from terrace.web.app import create_app
from terrace.web.i18n import WebRefusal
from terrace.web.workers import SolverPool
from web_support import LOCAL, DyingPipe

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def pool() -> Iterator[SolverPool]:
    solver_pool = SolverPool(workers=1)
    solver_pool.start()
    yield solver_pool
    solver_pool.close()


def _hint(pool: SolverPool, language: str) -> Any:
    with TestClient(create_app(pool=pool, hint_seconds=0.2), base_url=LOCAL) as client:
        game = client.post("/api/games", json={"deal_number": 7}).json()
        return client.post(f"/api/games/{game['id']}/hint", json={}, headers={"Accept-Language": language})


def _break(pool: SolverPool, how: str) -> None:
    if how == "crashed":
        [worker] = pool._idle
        worker.conn = DyingPipe(worker)  # type: ignore[assignment]
    else:
        pool.closing.set()


@pytest.mark.parametrize(("how", "language", "words"), [
    ("crashed", "de", "Der Löserprozess wurde unerwartet beendet: Bitte noch einmal versuchen."),
    ("crashed", "en", "the solver process stopped unexpectedly: try again"),
    ("stopping", "de", "Der Server wird gerade beendet: Bitte noch einmal versuchen."),
    ("stopping", "en", "the server is stopping: try again"),
])
def test_a_stopped_solver_is_said_in_the_players_language_only(
    pool: SolverPool, how: str, language: str, words: str
) -> None:
    """The German refusal of a stopped search held the English cause:
    "Der Löser wurde angehalten (the solver process stopped unexpectedly):
    Bitte noch einmal versuchen." Each cause is worded in both languages
    (the English as before)."""
    _break(pool, how)
    reply = _hint(pool, language)
    assert reply.status_code == 503
    assert reply.json() == {"error": words, "code": "solver-stopped"}


@pytest.mark.parametrize(("language", "words"), [
    ("en", "a saved game holds times from 2001 to 2090 only"),
    ("de", "ein gespeichertes Spiel fasst nur Zeiten von 2001 bis 2090"),
])
def test_the_years_a_saved_game_may_hold_are_said_as_the_store_keeps_them(
    monkeypatch: pytest.MonkeyPatch, language: str, words: str
) -> None:
    """The years 2000 and 2100 were typed into the English and the German
    refusal of a wrong clock and into the store's own messages, beside
    EARLIEST and LATEST, which decide: moved, they would have gone on
    naming the old years. (Here moved to 2001 and 2090.)"""
    monkeypatch.setattr(base, "EARLIEST", datetime(2001, 1, 1, tzinfo=UTC).timestamp())
    monkeypatch.setattr(base, "LATEST", datetime(2090, 1, 1, tzinfo=UTC).timestamp())
    monkeypatch.setattr(time, "time", lambda: 100.0)
    with TestClient(create_app(), base_url=LOCAL) as client:
        answer = client.post("/api/games", json={"variant": "wood"}, headers={"Accept-Language": language})
    assert answer.status_code == 422 and answer.json()["code"] == "clock-wrong"
    assert words in answer.json()["error"]
    rules = get_rules("wood")
    with pytest.raises(ClockOutOfRangeError, match="from 2001 to 2090 only"):
        MemoryStore().create("wood", rules, Deal.from_number(3, rules))
    game = StoredGame("g", "wood", rules, Deal.from_number(3, rules), created_at=4e9, updated_at=4e9)
    with pytest.raises(StoreError, match="from 2001 to 2090, not"):
        base.check_times(game)


@pytest.mark.parametrize("start", [-1, MAX_DEAL_NUMBER + 1])
def test_a_winnable_deal_s_search_refuses_a_deal_number_as_every_other_reader_does(
    tmp_path: Any, start: int
) -> None:
    """next_winnable_deal wrote its own copy of the deal-number-range
    refusal, without its code: English only, and its own words to keep in
    step with the table's."""
    with pytest.raises(InvalidDealError) as refused:
        next_winnable_deal(get_rules("terrace"), start, db_path=str(tmp_path / "v.sqlite3"))
    assert refused.value.code is Refusal.DEAL_NUMBER_RANGE
    assert refused.value.text("de") == f"Spielnummern reichen von 0 bis {MAX_DEAL_NUMBER}, nicht {start}."


def test_a_busy_database_is_said_in_german_words_only(tmp_path: Path) -> None:
    """Another program holding the verdict cache locked past a winnable
    deal's budget was answered, in German, "Die Datenbank ist gerade nicht
    benutzbar (the verdict cache solver.sqlite3 is busy (another program
    holds it): try again)." Both busy files are coded refusals now (the
    English words as before), said inside store-unavailable."""
    store = open_store(tmp_path / "games.sqlite")
    app = create_app(store, winnable_seconds=1.0)
    app.state.game.pool.start()
    with TestClient(app, base_url=LOCAL) as client:
        deadline = time.monotonic() + 60  # (the cache made and the worker started first)
        while client.post("/api/games", json={"winnable": True, "deal_number": 1}).status_code != 201:
            assert time.monotonic() < deadline
        holder = sqlite3.connect(store.verdicts_path)
        holder.isolation_level = None
        holder.execute("BEGIN EXCLUSIVE")
        try:
            answer = client.post("/api/games", json={"winnable": True, "deal_number": 100},
                                 headers={"Accept-Language": "de"})
        finally:
            holder.execute("ROLLBACK")
            holder.close()
    store.close()
    assert answer.status_code == 503
    assert answer.json() == {"code": "store-unavailable", "error": (
        "Die Datenbank ist gerade nicht benutzbar (solver.sqlite3, der Speicher des Lösers, ist von einem "
        "anderen Programm belegt; bitte gleich noch einmal versuchen).")}
    games = busy_error("games.sqlite")
    assert games.code is Refusal.DATABASE_BUSY
    assert str(games) == "the database games.sqlite is busy (another program holds it); try again"
    assert Reason(WebRefusal.STORE_UNAVAILABLE, problem=games.why).text("de") == (
        "Die Datenbank ist gerade nicht benutzbar (games.sqlite ist von einem anderen Programm belegt; "
        "bitte gleich noch einmal versuchen).")


def test_how_far_ahead_an_imported_time_may_lie_is_said_as_the_store_keeps_it(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's refusal of a time ahead of the clock said "at most 5
    minutes", typed beside AHEAD (300 s), which decides. (Here moved to
    ten minutes.)"""
    monkeypatch.setattr(base, "AHEAD", 600.0)
    rules = get_rules("wood")
    now, later = 2e9, 2e9 + 660  # (11 minutes ahead)
    game = StoredGame("g", "wood", rules, Deal.from_number(3, rules), created_at=later, updated_at=later)
    with pytest.raises(StoreError, match=r"at most 10 minutes ahead of this computer's clock\)"):
        base.check_times(game, now=now)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_names_a_misaddressed_request_is_told_to_use_are_the_ones_the_guard_answers(
    monkeypatch: pytest.MonkeyPatch, language: str,
) -> None:
    """The guard answers a Host of ``localhost``, ``127.0.0.1`` or
    ``[::1]`` (security.LOCAL_HOSTS), but its refusal of any other was typed
    as '(localhost or 127.0.0.1)': [::1] was missing, and a name added to
    the set would have been missing too. The words take the names from the
    set. In remote play the computer's own names and addresses are answered
    as well, and the refusal still names none of them: a page on another
    site reaching the game by DNS rebinding would read them there."""
    from terrace.web import security
    from terrace.web.security import RemoteKeys

    monkeypatch.setattr(security, "LOCAL_HOSTS", security.LOCAL_HOSTS | {"127.0.0.9"})
    for app in (create_app(), create_app(token=RemoteKeys(), allowed_hosts=("mypc.lan", "192.168.1.20"))):
        refused = TestClient(app, base_url=LOCAL).get(
            "/api/stats", headers={"host": "evil.example", "accept-language": language})
        assert refused.status_code == 421 and refused.json()["code"] == "host-not-local"
        words = refused.json()["error"]
        for name in ("localhost", "127.0.0.1", "[::1]", "127.0.0.9"):
            assert name in words, (name, words)
        assert "mypc" not in words and "192.168" not in words, words


@pytest.mark.parametrize(("how", "code", "words"), [
    ("read-only", "not-saved", "Der Zug wurde nicht gespeichert: Die Datenbank ist schreibgeschützt."),
    ("moved", "not-saved", "Der Zug wurde nicht gespeichert: games.sqlite oder die Log-Datei "
                           "daneben wurde während des Betriebs verschoben, ersetzt oder gelöscht; bitte die "
                           "Datei zurücklegen oder Terrace neu starten."),
])
def test_a_change_the_database_did_not_take_is_said_in_german_words_only(
        tmp_path: Path, how: str, code: str, words: str) -> None:
    """A move a read-only database refused was answered, in German, "Die
    Änderung wurde nicht gespeichert: Die Datenbank kann gerade nicht
    beschrieben werden (the move was not saved: the database is
    read-only)." The store's write errors are coded refusals now, said
    whole in the request's language (the English words as before)."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        client = TestClient(create_app(store), base_url=LOCAL)
        game = client.post("/api/games", json={"variant": "wood", "deal_number": 2}).json()
        if how == "read-only":
            store._conn.execute("PRAGMA query_only = ON")  # (as if the file turned read-only)
        else:
            db.rename(db.with_name("elsewhere.sqlite"))
        answers = {language: client.post(f"/api/games/{game['id']}/moves", json={"move": "s"},
                                         headers={"Accept-Language": language})
                   for language in ("de", "en")}
        store._conn.execute("PRAGMA query_only = OFF")
    assert answers["de"].json() == {"code": code, "error": words}
    assert answers["en"].json()["error"].startswith("the move was not saved: ")


def test_auto_play_the_database_did_not_take_is_not_called_the_players_move(tmp_path: Path) -> None:
    """The player's move was saved, then auto-play's cards were refused by
    a read-only database; the page said "the move was not saved" (German
    "Der Zug wurde nicht gespeichert"), while the position it kept showing,
    after the player's move, was the saved one. Auto-play is named now."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        client = TestClient(create_app(store), base_url=LOCAL)
        game = client.post("/api/games", json={"variant": "terrace", "deal_number": 39}).json()
        moved = client.post(f"/api/games/{game['id']}/moves", json={"move": "c1", "after": 0})
        assert moved.status_code == 200
        store._conn.execute("PRAGMA query_only = ON")
        path = f"/api/games/{game['id']}/autoplay"
        answers = {language: client.post(path, json={"mode": "safe", "after": 1},
                                         headers={"Accept-Language": language})
                   for language in ("de", "en")}
        store._conn.execute("PRAGMA query_only = OFF")
        saved = client.get(f"/api/games/{game['id']}").json()
    assert answers["en"].json() == {"code": "not-saved", "error": "the auto-play to the foundations was not "
                                                                  "saved: the database is read-only"}
    assert answers["de"].json()["error"] == ("Das automatische Ablegen auf die Zielstapel wurde nicht "
                                             "gespeichert: Die Datenbank ist schreibgeschützt.")
    assert saved["moves"] == 1 and saved["state"] == moved.json()["state"]


@pytest.mark.parametrize("fault", ["SQLITE_FULL", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_IOERR"])
def test_every_write_fault_is_a_coded_refusal(fault: str) -> None:
    error = sqlite3.OperationalError("fault")
    error.sqlite_errorname = fault  # type: ignore[attr-defined]
    refused = sql_error("games.sqlite", error, "undo")
    assert refused.code is not None
    assert str(refused).startswith("the undo was not saved: ")
    german = refused.text("de")
    assert german.startswith("Die Rücknahme des Zuges wurde nicht gespeichert: ") and " the " not in german


def test_a_damaged_game_is_said_once_in_german(tmp_path: Path) -> None:
    """A saved game edited by hand was answered, in German, "Das
    gespeicherte Spiel ist beschädigt und kann nicht geladen werden (saved
    game … is damaged and cannot be loaded: it says 'won' but …)": the same
    fact twice, once in English. The store's refusal is coded
    (game-row-damaged), its finding kept as the store words it."""
    game, answers = _opened_after_a_hand_edit(tmp_path, "UPDATE games SET status = 'won'", drawn=False)
    assert answers["en"].json() == {"code": "game-damaged", "error": (
        f"saved game {game['id']} is damaged and cannot be loaded: it says 'won' but its moves lead to "
        "'playing'")}
    assert answers["de"].json() == {"code": "game-damaged", "error": (
        f"Das gespeicherte Spiel {game['id']} ist beschädigt und kann nicht geladen werden (Befund: Es gibt "
        "„won“ an, aber seine Züge führen zu „playing“).")}


_FEWEST = base.fewest_moves_to_win(get_rules("wood"), Deal.from_number(2, get_rules("wood")))
"""The fewest moves a win of Wood deal 2 (the damaged game's) can take."""

_FINDINGS = [
    ("UPDATE games SET move_count = 999", "999 moves played but only 1 stored",
     "999 Züge gespielt, aber nur 1 gespeichert"),
    # (text found in a number's place is quoted as every refusal quotes it,
    # German „x“; it was 'x', English quotes inside a German sentence)
    ("UPDATE games SET created_at = 'x'", "a time must be a number, not 'x'",
     "Eine Zeit muss eine Zahl sein, nicht „x“"),
    ("UPDATE games SET move_count = 'abc'", "move_count must be a whole number, not 'abc'",
     "„move_count“ muss eine ganze Zahl sein, nicht „abc“"),
    # (one move is one move: it was '1 moves played', '1 Züge gespielt',
    # 'won in 1 moves', 'in 1 Zügen gewonnen')
    ("DELETE FROM moves", "1 move played but only 0 stored", "1 Zug gespielt, aber nur 0 gespeichert"),
    # (and thousands grouped, as every other count of the findings: it was
    # '1000000 moves played')
    ("UPDATE games SET move_count = 1000000", "1,000,000 moves played but only 1 stored",
     "1.000.000 Züge gespielt, aber nur 1 gespeichert"),
    ("UPDATE games SET won_moves = 1, won_at = created_at",
     f"won_moves says the game was first won in 1 move, but a win of this deal takes at least {_FEWEST}",
     f"Laut „won_moves“ wurde das Spiel zuerst in 1 Zug gewonnen, aber ein Sieg in diesem Spiel braucht "
     f"mindestens {_FEWEST}"),
    ("UPDATE games SET won_moves = 3", "won_at and won_moves go together: both or neither",
     "„won_at“ und „won_moves“ gehören zusammen: beide oder keines"),
    ("UPDATE games SET rules = '{}'", "the rules are incomplete", "Die Regeln sind unvollständig"),
    # (rules that are no JSON gave the decoder's English alone: '(Befund:
    # Expecting value: line 1 column 1 (char 0))')
    ("UPDATE games SET rules = 'not json'", "the rules are not valid JSON: Expecting value: line 1 column 1 "
     "(char 0)", "Die Regeln sind kein gültiges JSON: Expecting value: line 1 column 1 (char 0)"),
    ("UPDATE games SET hints = 9007199254740991",
     "hints must be a whole number from 0 to 1,000,000, not 9007199254740991",
     "„hints“ muss eine ganze Zahl von 0 bis 1.000.000 sein, nicht 9007199254740991"),
    ("UPDATE games SET updated_at = 1e10",
     "updated_at must be a time in seconds since 1970 from 2000 to 2100, not 10000000000.0",
     "„updated_at“ muss eine Zeit in Sekunden seit 1970 von 2000 bis 2100 sein, nicht 10000000000.0"),
    ("UPDATE moves SET move = 't9t1'",
     "its moves do not replay: move 1: t9t1: the 6♥ cannot go on the A♣ in pile 1: piles build down in "
     "alternating colours, so it takes only a red K",
     "Seine Züge lassen sich nicht nachspielen: Zug 1: „t9t1“: Die 6♥ passt nicht auf die A♣ in Stapel 1: "
     "Die Auslage wird abwärts in wechselnden Farben gebaut, hier passt nur ein roter König"),
]
"""(The engine's German refusal inside the finding's parentheses drops its
full stop: it read '... ein roter König.).')"""


@pytest.mark.parametrize(("edit", "english", "german"), _FINDINGS, ids=[edit for edit, _, _ in _FINDINGS])
def test_what_a_damaged_game_was_found_to_hold_is_said_in_german(
        tmp_path: Path, edit: str, english: str, german: str) -> None:
    """A German page that opened a saved game damaged by hand read the
    finding in English inside its German sentence: "(Befund: 999 moves
    played but only 1 stored)", "(Befund: its moves do not replay: move 1:
    t9t1: the 6♥ cannot go ...)". Every finding of the check of a saved
    game is coded (saved-*), an engine's refusal nested in it as its code;
    the English is unchanged."""
    game, answers = _opened_after_a_hand_edit(tmp_path, edit, drawn=True)
    name = game["id"]
    assert answers["en"].json() == {
        "code": "game-damaged", "error": f"saved game {name} is damaged and cannot be loaded: {english}"}
    assert answers["de"].json() == {"code": "game-damaged", "error": (
        f"Das gespeicherte Spiel {name} ist beschädigt und kann nicht geladen werden (Befund: {german}).")}


def test_a_record_an_import_refuses_is_said_in_german_too() -> None:
    """The import checks a record as the loader checks a game: its
    findings (``saved.`` before the key) are coded alike."""
    game = StoredGame("g1", "wood", get_rules("wood"), Deal.from_number(2, get_rules("wood")),
                      status="playing", created_at=time.time(), updated_at=time.time(), won_moves=3)
    with pytest.raises(StoreError) as refused:
        base.check_saved(game, now=time.time(), prefix="saved.")
    assert str(refused.value) == "saved.won_at and saved.won_moves go together: both or neither"
    assert refused.value.text("de") == ("„saved.won_at“ und „saved.won_moves“ gehören zusammen: "
                                        "beide oder keines")
    game.won_moves, game.updated_at = None, time.time() + 3600
    with pytest.raises(StoreError) as refused:
        base.check_saved(game, now=time.time(), prefix="saved.")
    assert str(refused.value).startswith("saved.updated_at must be a time in seconds since 1970 from 2000 to "
                                         "now (at most 5 minutes ahead of this computer's clock), not ")
    assert refused.value.text("de").startswith(
        "„saved.updated_at“ muss eine Zeit in Sekunden seit 1970 von 2000 bis jetzt sein "
        "(höchstens 5 Minuten später, als die Uhr dieses Computers zeigt), nicht ")
    # (it said '5 Minuten nach der Uhr dieses Computers': 'by this
    # computer's clock', not 'ahead of it')


@pytest.mark.parametrize(("sqlite_says", "name", "english", "german"), [
    ("SQLITE_IOERR", None, "the database games.sqlite cannot be used: the disk failed (input/output error)",
     "games.sqlite: Die Festplatte meldet einen Ein-/Ausgabefehler"),
    ("SQLITE_CANTOPEN", None, "the database games.sqlite cannot be used: the database file cannot be opened",
     "games.sqlite: Die Datei der Datenbank lässt sich nicht öffnen"),
    (None, "database disk image is malformed",
     "games.sqlite is damaged (database disk image is malformed); it was left untouched: restore a backup, "
     "or move it away to start a new database",
     "games.sqlite ist beschädigt (SQLite: database disk image is malformed) und blieb unverändert; bitte "
     "eine Sicherung zurückspielen oder die Datei beiseitelegen, um eine neue Datenbank zu beginnen"),
    (None, "no such table: games",
     "the database games.sqlite failed: no such table: games",
     "games.sqlite meldet einen Fehler (SQLite: no such table: games)"),
])
def test_a_read_the_database_fails_is_said_in_german_words_only(
        tmp_path: Path, sqlite_says: str | None, name: str | None, english: str, german: str) -> None:
    """A read that SQLite failed (the disk failing, the file gone, damaged
    while in use) was answered, in German, "Die Datenbank ist gerade nicht
    benutzbar (the database games.sqlite cannot be used: the disk failed
    (input/output error))." The store's read faults are coded refusals now
    (the English words as before), said inside store-unavailable."""
    error = sqlite3.OperationalError(name or "fault")
    if sqlite_says is not None:
        error.sqlite_errorname = sqlite_says  # type: ignore[attr-defined]
    refused = sql_error("games.sqlite", error)
    assert refused.code is not None and str(refused) == english
    store = MemoryStore()

    def failing(game_id: str) -> Any:
        raise refused

    store.get = failing  # type: ignore[method-assign]
    client = TestClient(create_app(store), base_url=LOCAL)
    answers = {language: client.get("/api/games/0123456789abcdef", headers={"Accept-Language": language})
               for language in ("de", "en")}
    assert answers["de"].status_code == 503
    assert answers["de"].json() == {"code": "store-unavailable",
                                    "error": f"Die Datenbank ist gerade nicht benutzbar ({german})."}
    assert answers["en"].json() == {"code": "store-unavailable", "error": english}


FAULTS = [fault for fault in Refusal if fault.name.startswith("FAULT_")]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_database_that_cannot_be_used_is_said_so_once_in_german(fault: Refusal) -> None:
    """store-unavailable's German says the database cannot be used; the
    reason inside it said it again: "Die Datenbank ist gerade nicht
    benutzbar (games.sqlite lässt sich nicht benutzen: ...)". It names the
    file and the fault only, as English says it once too."""
    why = Reason(Refusal.DATABASE_UNUSABLE, name="games.sqlite", fault=Reason(fault))
    german = Reason(WebRefusal.STORE_UNAVAILABLE, problem=why).text("de")
    assert german.count("benutz") == 1, german
    fault_de = Reason(fault).text("de")
    assert german == f"Die Datenbank ist gerade nicht benutzbar (games.sqlite: {fault_de}).", german
    english = Reason(WebRefusal.STORE_UNAVAILABLE, problem=why).text("en")
    assert english.count("cannot be used") == 1, english


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_said_inside_german_parentheses_holds_none_of_its_own(fault: Refusal) -> None:
    """store-unavailable's German puts the fault in parentheses, and two
    faults had their own inside them: "(games.sqlite: Die Festplatte hat
    versagt (Ein-/Ausgabefehler))." and "(games.sqlite: Ein anderes
    Programm hat sie während des Betriebs überschrieben (eine Sicherung
    hineinkopiert?); bitte Terrace beenden ...)", the latter word for word
    "a backup copied in?". A write's fault says the same words."""
    why = Reason(Refusal.DATABASE_UNUSABLE, name="games.sqlite", fault=Reason(fault))
    german = Reason(WebRefusal.STORE_UNAVAILABLE, problem=why).text("de")
    inside = german[german.index("(") + 1:german.rindex(")")]
    assert "(" not in inside and ")" not in inside, german


def test_german_refusals_quote_someones_text_in_german_quotes() -> None:
    """A German refusal quoted its own words „so“ and the player's text
    'so': "„spaces“ muss 'auto', 'free' oder 'waste' sein, nicht 'nope'."
    (the choices and the value of every refusal made with quote()). Both
    are in German quotes now; English keeps its single quotes, and a value
    that is no text (a number, true) none."""
    with pytest.raises(TerraceError) as info:
        Rules.from_dict({"spaces": "nope"})
    assert info.value.text("de") == "„spaces“ muss „auto“, „free“ oder „waste“ sein, nicht „nope“."
    assert info.value.text("en") == "spaces must be 'auto', 'free' or 'waste', not 'nope'"
    client = TestClient(create_app(MemoryStore()), base_url=LOCAL)
    answer = client.post("/api/games", json={"options": {"decks": "zwei"}}, headers={"Accept-Language": "de"})
    assert answer.json()["error"] == "„decks“ muss eine ganze Zahl sein, nicht „zwei“."
    answer = client.post("/api/games", json={"options": {"decks": True}}, headers={"Accept-Language": "de"})
    assert answer.json()["error"] == "„decks“ muss eine ganze Zahl sein, nicht true."
    loaded = pickle.loads(pickle.dumps(info.value.reason))  # (a solver process sends refusals back)
    assert loaded.text("de") == info.value.text("de")


def _opened_after_a_hand_edit(
        tmp_path: Path, edit: str, *, drawn: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Wood game (one card drawn when ``drawn``), the SQL ``edit`` made to
    its row by hand (``WHERE`` its id added), then opened in German and in
    English: (the game as made, the answers by language)."""
    db = tmp_path / "games.sqlite"
    with open_store(db) as store:
        client = TestClient(create_app(store), base_url=LOCAL)
        game = client.post("/api/games", json={"variant": "wood", "deal_number": 2}).json()
        if drawn:
            assert client.post(f"/api/games/{game['id']}/moves", json={"move": "s"}).status_code == 200
    hand = sqlite3.connect(db)
    hand.execute(edit + (" WHERE id = ?" if " games " in edit else " WHERE game_id = ?"), (game["id"],))
    hand.commit()
    hand.close()
    with open_store(db) as store:
        client = TestClient(create_app(store), base_url=LOCAL)
        answers = {language: client.get(f"/api/games/{game['id']}", headers={"Accept-Language": language})
                   for language in ("de", "en")}
    return game, answers


def _games_file(path: Path) -> bytes:
    open_store(path).close()
    return path.read_bytes()


def _sqlite_file(path: Path, *sql: str) -> bytes:
    made = sqlite3.connect(path)
    for statement in sql:
        made.execute(statement)
    made.commit()
    made.close()
    return path.read_bytes()


@pytest.mark.parametrize(("content", "english", "german"), [
    (lambda tmp: b"hello\n" * 50,
     "the verdict cache solver.sqlite3 cannot be used: file is not a database",
     "solver.sqlite3, der Speicher des Lösers, lässt sich nicht benutzen (SQLite: file is not a database)"),
    (lambda tmp: _games_file(tmp / "other.sqlite"),
     "solver.sqlite3 is a database of saved games, not a verdict cache; it was left unchanged",
     "solver.sqlite3 ist eine Datenbank gespeicherter Spiele, kein Speicher des Lösers; sie blieb "
     "unverändert"),
    (lambda tmp: _sqlite_file(tmp / "foreign.sqlite", "CREATE TABLE notes (x)"),
     "solver.sqlite3 is an SQLite database of another program, not a verdict cache; it was left unchanged",
     "solver.sqlite3 ist eine SQLite-Datenbank eines anderen Programms, kein Speicher des Lösers; sie blieb "
     "unverändert"),
    (lambda tmp: _sqlite_file(tmp / "newer.sqlite", "PRAGMA user_version = 99", "CREATE TABLE verdicts (x)"),
     "solver.sqlite3 is a verdict cache of layout 99, which this version of Terrace does not know (a newer "
     "one wrote it?); it was left unchanged",
     "solver.sqlite3 ist ein Speicher des Lösers in der Form 99, die diese Version von Terrace nicht kennt "
     "(von einer neueren geschrieben?); er blieb unverändert"),
], ids=["text", "games", "foreign", "newer"])
def test_a_verdict_cache_that_cannot_serve_is_said_in_german_words_only(
        tmp_path: Path, content: Any, english: str, german: str) -> None:
    """A winnable deal asked for by a German page over a verdict cache that
    is none was answered with the cache's English inside the German
    sentence: 'Die Datenbank ist gerade nicht benutzbar (the verdict cache
    solver.sqlite3 cannot be used: file is not a database).' And a
    database of saved games there was called 'a verdict cache of layout
    10, which this version of Terrace does not know (a newer one wrote
    it?)': its schema number read as the cache's layout."""
    data = content(tmp_path)
    store = open_store(tmp_path / "games.sqlite")
    try:
        Path(store.verdicts_path).write_bytes(data)
        with TestClient(create_app(store), base_url=LOCAL) as client:
            answers = {language: client.post("/api/games", json={"winnable": True, "deal_number": 1},
                                             headers={"Accept-Language": language})
                       for language in ("de", "en")}
    finally:
        store.close()
    assert answers["en"].json() == {"code": "store-unavailable", "error": english}
    assert answers["de"].json() == {"code": "store-unavailable",
                                    "error": f"Die Datenbank ist gerade nicht benutzbar ({german})."}
    assert Path(store.verdicts_path).read_bytes() == data  # (left unchanged)


def test_a_sentence_inside_parentheses_drops_its_full_stop_in_german() -> None:
    """A German statement in parentheses within a sentence ends without its
    own full stop; the engine's German refusals are sentences, and nested
    in a finding or a write refused they read '(Befund: Stapel 3 ist
    leer.).', '(... Stapel 3 ist leer.).'. English has no stops to drop."""
    empty = Reason(Refusal.PILE_EMPTY, pile=3)
    damaged = Reason(Refusal.GAME_ROW_DAMAGED, name="g1", why=empty)
    assert damaged.text("de") == ("Das gespeicherte Spiel g1 ist beschädigt und kann nicht geladen werden "
                                  "(Befund: Stapel 3 ist leer)")
    assert damaged.text("en") == "saved game g1 is damaged and cannot be loaded: pile 3 is empty"
    unsavable = Reason(Refusal.GAME_UNSAVABLE, game="g1", why=Reason(Refusal.SAVED_MOVE_REFUSED, move="t3f",
                                                                      error=empty))
    assert Reason(WebRefusal.NOT_SAVABLE, problem=unsavable).text("de") == (
        "Die Änderung wurde nicht gespeichert, denn das Spiel wäre danach beschädigt (Spiel g1 lässt sich "
        "nicht speichern: „t3f“: Stapel 3 ist leer).")
    assert Reason(WebRefusal.STORE_UNAVAILABLE, problem=empty).text("de") == (
        "Die Datenbank ist gerade nicht benutzbar (Stapel 3 ist leer).")
    said = Reason(WebRefusal.GAME_DAMAGED, problem=damaged).text("de")
    assert said.endswith("(Befund: Stapel 3 ist leer).")


def test_a_verdict_cache_whose_folder_cannot_be_made_is_said_in_lower_case_inside_its_parentheses(
        tmp_path: Path) -> None:
    """Why a verdict cache cannot be used goes on inside the parentheses of
    the German sentence, so it starts in lower case: it read '(Sein Ordner
    ... lässt sich nicht anlegen ...)'. (A file where its folder should be
    cannot be a folder, even for root.)"""
    (tmp_path / "afile").write_text("x")
    with pytest.raises(VerdictCacheError) as refused:
        VerdictStore(str(tmp_path / "afile" / "sub" / "solver.sqlite3"))
    assert refused.value.reason is not None
    assert str(refused.value).startswith(
        f"the verdict cache solver.sqlite3 cannot be used: its folder {tmp_path}/afile/sub cannot be made (")
    assert refused.value.reason.text("de").startswith(
        "solver.sqlite3, der Speicher des Lösers, lässt sich nicht benutzen "
        f"(sein Ordner {tmp_path}/afile/sub lässt sich nicht anlegen (System: ")
    no_file = Reason(Refusal.VERDICT_CACHE_UNUSABLE, name="solver.sqlite3",
                     why=Reason(Refusal.VERDICT_WHY_NO_FILE, folder="/x", text="Permission denied"))
    assert no_file.text("de") == (
        "solver.sqlite3, der Speicher des Lösers, lässt sich nicht benutzen (in seinem Ordner /x lässt sich "
        "keine neue Datei anlegen (System: Permission denied))")


def test_a_limit_in_thousands_is_grouped_as_the_other_refusals_group_it() -> None:
    """The limits a player meets said their thousands ungrouped: 'a game
    holds at most 100000 moves' ('höchstens 100000 Züge'; a saved game's
    finding says 'more than 100,000 moves'), 'a list of moves may hold at
    most 100000 moves', 'at most 16384 bytes' ('höchstens 16384 Bytes')."""
    from terrace.moves import parse_moves
    from terrace.storage.base import MAX_LINE
    from terrace.web.protocol import HEAD_TOO_LARGE

    too_long = Reason(WebRefusal.GAME_TOO_LONG, most=MAX_LINE)
    assert too_long.text("en").startswith("a game holds at most 100,000 moves, played and taken back")
    assert too_long.text("de").startswith(
        "Ein Spiel fasst höchstens 100.000 Züge, gespielte und zurückgenommene")
    with pytest.raises(TerraceError) as refused:
        parse_moves("s " * 100_001)
    assert refused.value.text("en").endswith("a list of moves may hold at most 100,000 moves")
    assert refused.value.text("de").endswith("Eine Zugliste darf höchstens 100.000 Züge enthalten.")
    assert "is over 16,384 bytes;" in HEAD_TOO_LARGE.text("en")
    assert "ist länger als 16.384 Bytes;" in HEAD_TOO_LARGE.text("de")
