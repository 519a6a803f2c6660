"""Games saved before a rule option was added: their saved rules lack its
key, and they were played by the value :data:`terrace.rules.LATER_OPTIONS`
gives it (``promote_candidates``: other candidates of the chosen rank went
up at once, the only reading there was)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from store_support import golden, play, start
from terrace.cli import main
from terrace.rules import LATER_OPTIONS, RULE_FIELDS
from terrace.storage import DamagedGameError, NewerGameError, open_store
from terrace.web.app import create_app
from web_support import LOCAL


def _saved_as_before(db: Path, game_id: str, drop: str) -> None:
    """Write the game's rules as a version without the option ``drop`` did."""
    conn = sqlite3.connect(db, isolation_level=None)
    (text,) = conn.execute("SELECT rules FROM games WHERE id = ?", (game_id,)).fetchone()
    data = json.loads(text)
    del data[drop]
    conn.execute("UPDATE games SET rules = ? WHERE id = ?", (json.dumps(data, sort_keys=True), game_id))
    conn.close()


def test_a_game_saved_before_an_option_was_added_loads_plays_and_counts(tmp_path: Path) -> None:
    """Saved rules lacking promote_candidates were 'incomplete' (the game
    damaged), and a move in such a game was refused as changing its rules."""
    assert set(LATER_OPTIONS) <= set(RULE_FIELDS)
    db = tmp_path / "games.db"
    record = golden("terrace-won")
    with open_store(db) as store:
        game = start(store, record)
        play(store, game, record.moves[:5])
        game_id = game.id
    for name in LATER_OPTIONS:
        _saved_as_before(db, game_id, name)
    with open_store(db) as store:
        game = store.get(game_id)
        assert game.rules == record.rules and game.played_count() == 5
        play(store, game, record.moves[5:])
        assert store.get(game_id).status == "won"
        stats = store.statistics()
        assert stats["damaged"] == 0 and stats["variants"]["terrace"]["won"] == 1


def test_saved_rules_lacking_an_older_option_are_still_damaged(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    with open_store(db) as store:
        game_id = start(store, golden("terrace-won")).id
    _saved_as_before(db, game_id, "decks")
    with open_store(db) as store, pytest.raises(DamagedGameError, match="incomplete"):
        store.get(game_id)


def test_verdicts_stored_before_an_option_was_added_are_found(tmp_path: Path) -> None:
    """The verdict cache keys a deal by its rules as JSON: with the new
    option in every key, each verdict a survey had stored (hours of solving)
    was no longer found, and every deal was solved again. A verdict stored
    under the key of before (no such option) counts for the rules it was
    played by, and rules with the option changed get a key of their own."""
    from terrace.rules import Rules
    from terrace.solver.verdicts import Verdict, VerdictStore, rules_key
    from terrace.variants import get_rules

    rules = get_rules("generals-patience")
    before = {name: value for name, value in rules.to_dict().items() if name not in LATER_OPTIONS}
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    store.put(rules, 7, Verdict("lost", 3, 0.01, 10.0))
    store.close()
    with sqlite3.connect(tmp_path / "v.sqlite3") as db:
        (key,) = db.execute("SELECT rules FROM verdicts").fetchone()
    assert json.loads(key) == before and key == json.dumps(before, sort_keys=True, separators=(",", ":"))
    store = VerdictStore(str(tmp_path / "v.sqlite3"))
    assert store.get(rules, 7) == Verdict("lost", 3, 0.01, 10.0)
    assert store.get(Rules.from_dict({"promote_candidates": False}, rules), 7) is None
    store.close()
    assert rules_key(Rules(promote_candidates=False)) != rules_key(Rules())


def test_the_promotion_unset_where_no_other_candidate_can_be_is_the_preset() -> None:
    """With fewer than two candidates there is no other candidate to keep
    or send up, so ``promote_candidates`` changes nothing in play; a Falling
    Star game started with the box unchecked was labelled ``falling-star
    (custom: promote-candidates no)``, counted in a group of its own in the
    statistics, and its deals were solved again under a key of their own."""
    from terrace.solver.verdicts import rules_key
    from terrace.variants import get_rules, preset_name, rules_label

    for name in ("falling-star", "wood", "blondes-and-brunettes"):
        preset = get_rules(name)
        assert preset.candidates == 0  # (the base card turned from the pack)
        unset = preset.replace(promote_candidates=False)
        assert rules_label(name, unset) == name
        assert preset_name(unset) == name
        assert rules_key(unset) == rules_key(preset)
    terrace = get_rules("terrace").replace(promote_candidates=False)  # (three candidates: it counts)
    assert rules_label("terrace", terrace) == "terrace (custom: promote-candidates no)"
    assert preset_name(terrace) is None and rules_key(terrace) != rules_key(get_rules("terrace"))


def test_a_game_saved_by_a_newer_terrace_says_so_not_damaged(tmp_path: Path) -> None:
    """Saved rules with every option known here and one more (a newer
    Terrace added it, as promote_candidates was added) were read as a game
    damaged by hand: "saved game ... is damaged and cannot be loaded:
    unknown rule option 'jokers'; known: ...". They say which version made
    them, in the request's language; rules lacking a known option are still
    damaged (above)."""
    db = tmp_path / "games.db"
    with open_store(db) as store:
        game_id = start(store, golden("terrace-won")).id
    conn = sqlite3.connect(db, isolation_level=None)
    (text,) = conn.execute("SELECT rules FROM games WHERE id = ?", (game_id,)).fetchone()
    conn.execute("UPDATE games SET rules = ? WHERE id = ?",
                 (json.dumps({**json.loads(text), "jokers": 2}, sort_keys=True), game_id))
    conn.close()
    with open_store(db) as store:
        with pytest.raises(NewerGameError, match=r"made by a newer version of Terrace .*'jokers'"):
            store.get(game_id)
        stats = store.statistics()  # (left out of the statistics, as before, but not as damaged)
        assert (stats["damaged"], stats["newer"]) == (0, 1)
        client = TestClient(create_app(store), base_url=LOCAL)
        answers = {language: client.get(f"/api/games/{game_id}", headers={"Accept-Language": language})
                   for language in ("en", "de")}
    assert answers["en"].status_code == 500
    assert answers["en"].json() == {"code": "game-damaged", "error": (
        f"saved game {game_id} was made by a newer version of Terrace and cannot be loaded by this one "
        "(its rules have the option 'jokers', which this version does not know): update Terrace to play it")}
    assert answers["de"].json()["error"] == (
        f"Das gespeicherte Spiel {game_id} stammt von einer neueren Version von Terrace und kann mit dieser "
        "nicht geladen werden (seine Regeln haben die Option „jokers“, die diese Version nicht kennt); "
        "bitte Terrace aktualisieren, um es zu spielen.")


def test_stats_count_games_of_a_newer_terrace_apart_from_damaged_ones(tmp_path: Path) -> None:
    """``terrace stats`` said "note: 1 damaged game is left out" of a game
    that a newer Terrace saved (its rules have an option this version does
    not know), and /api/stats counted it in ``damaged``: nothing is wrong
    with it, and updating Terrace counts it. Such games are counted apart
    now (``newer``), and the note says what to do; a game damaged by hand
    is still a damaged one."""
    db = tmp_path / "games.db"
    with open_store(db) as store:
        ids = [start(store, golden("terrace-won")).id for _ in range(4)]
    conn = sqlite3.connect(db, isolation_level=None)
    (text,) = conn.execute("SELECT rules FROM games WHERE id = ?", (ids[0],)).fetchone()
    for game_id in ids[:2]:
        conn.execute("UPDATE games SET rules = ? WHERE id = ?",
                     (json.dumps({**json.loads(text), "jokers": 2}, sort_keys=True), game_id))
    conn.execute("UPDATE games SET rules = 'not json' WHERE id = ?", (ids[2],))
    conn.close()
    result = CliRunner().invoke(main, ["stats", "--db", str(db)])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes == ["note: 1 damaged game is left out (terrace export --all names them)",
                     "note: 2 games saved by a newer version of Terrace are left out: "
                     "update Terrace to count them"]
    for args in (["--json"], ["-v", "terrace", "--json"]):
        result = CliRunner().invoke(main, ["stats", "--db", str(db), *args])
        data = json.loads(result.stdout)
        assert (data["damaged"], data["newer"]) == (1, 2), args
    with open_store(db) as store:
        answer = TestClient(create_app(store), base_url=LOCAL).get("/api/stats")
    assert answer.status_code == 200
    assert (answer.json()["damaged"], answer.json()["newer"]) == (1, 2)
