"""A game whose id is ``current`` (imported before the import refused the
id) opens at ``/api/games/current``; the latest unfinished game, which
that address answered, has an address of its own that no game id can
take, and the page asks that one."""

from __future__ import annotations

from pathlib import Path

from terrace.deal import Deal
from terrace.storage import LATEST_GAME, MemoryStore, open_games
from terrace.storage.transfer import export_record, game_from_record
from terrace.variants import get_rules
from terrace.web.app import LATEST_PATH, STATIC
from web_support import app_client


def test_a_game_whose_id_is_current_opens_and_the_latest_game_has_an_address_of_its_own(
        tmp_path: Path) -> None:
    rules = get_rules("terrace")
    source = MemoryStore()
    played_elsewhere = source.create("terrace", rules, Deal.from_number(5, rules))
    record = export_record(source.get(played_elsewhere.id))
    record["saved"]["id"] = "elsewhere"  # (the import refuses "current" now: the row as it was stored)
    named = game_from_record(record)
    named.id = LATEST_GAME
    store = open_games(str(tmp_path / "games.sqlite"))
    try:
        assert store.add_games([named]) == [(LATEST_GAME, True)]
        with app_client(store=store) as client:
            latest = client.post("/api/games", json={"deal_number": 9}).json()["id"]
            opened = client.get(f"/api/games/{LATEST_GAME}")
            resumed = client.get(LATEST_PATH)
        shown = opened.json()
        assert (opened.status_code, shown["id"], shown["deal_number"]) == (200, LATEST_GAME, 5)
        assert (resumed.status_code, resumed.json()["id"]) == (200, latest)
    finally:
        store.close()
    assert f'"GET", "{LATEST_PATH}"' in (STATIC / "js" / "api.js").read_text(encoding="utf-8")


def test_without_such_a_game_both_addresses_answer_the_latest_unfinished_game() -> None:
    with app_client() as client:
        nothing = [client.get(LATEST_PATH).status_code, client.get(f"/api/games/{LATEST_GAME}").status_code]
        latest = client.post("/api/games", json={"deal_number": 9}).json()["id"]
        answers = {client.get(LATEST_PATH).json()["id"], client.get(f"/api/games/{LATEST_GAME}").json()["id"]}
    assert (nothing, answers) == ([204, 204], {latest})
