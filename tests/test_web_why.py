"""Why a pressed card cannot move (terrace.web.why and GET /api/games/{id}/why):
every case has its own reason, the reasons agree with the legal moves, and
bad piles and indexes are refused clearly."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from conftest import craft
from terrace.board import Board
from terrace.building import builds_down
from terrace.cards import CARDS_PER_DECK, RANKS, RED
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.refusals import Refusal
from terrace.variants import get_rules
from terrace.web.why import Why, WhyError, _wanted_top, explain
from web_support import TestClient, app_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TERRACE = get_rules("terrace")
QUIET = ["2S", "3S", "4S", "JC", "QC", "KC", "2C", "3C", "4C"]


def code(board: Board, pile: str, index: int | None = None) -> str | None:
    reason = explain(board, pile, index)
    return None if reason is None else reason.code.value


def test_a_covered_tableau_card_is_covered() -> None:
    board = craft(TERRACE, "7", foundations=["7D"], tableau=["9S 8H 7C", *QUIET[1:]])
    reason = explain(board, "t1", 1)
    assert reason is not None and reason.code is Why.CARD_COVERED
    assert str(reason).startswith("the 8♥ is covered: only the top card of pile 1 can move")
    assert "Die 8♥ ist zugedeckt" in reason.text("de")
    assert code(board, "t1", 2) is None or code(board, "t1", 2) == Why.CARD_STUCK.value


def test_covered_terrace_and_waste_cards() -> None:
    board = craft(TERRACE, "7", foundations=["7D"], tableau=QUIET, reserve="KH QH 8C", waste="5H 6H")
    reason = explain(board, "reserve", 0)
    assert reason is not None and reason.code is Why.TERRACE_CARD_COVERED
    assert "the K♥ is not free yet" in str(reason) and "must go to the foundations first" in str(reason)
    assert code(board, "reserve") is None  # the 8♣ goes on the 7♦
    assert code(board, "waste", 0) == Why.WASTE_CARD_COVERED.value


def test_a_terrace_card_with_no_foundation_says_so() -> None:
    board = craft(TERRACE, "7", foundations=["7D"], tableau=QUIET, reserve="KH QH")
    reason = explain(board, "reserve")
    assert reason is not None and reason.code is Why.TERRACE_CARD_STUCK
    assert str(reason) == "a terrace card may go only to a foundation: no foundation accepts the Q♥ yet"
    # (A drop onto a pile gets the engine's own refusal of that move.)
    refused = board.refusal(Move.parse("rt1"))
    assert refused is not None and refused.code is Refusal.TERRACE_ONLY_TO_FOUNDATION


def test_a_top_card_with_nowhere_to_go_names_what_it_needs() -> None:
    board = craft(TERRACE, "7", foundations=["7D"], tableau=QUIET, waste="5H")
    reason = explain(board, "waste")
    assert reason is not None and reason.code is Why.CARD_STUCK
    assert str(reason) == ("the 5♥ has nowhere to go yet: no foundation takes it, and no pile has a "
                           "black 6 on top")
    assert reason.text("de").endswith("kein Stapel hat oben eine schwarze 6.")
    assert code(board, "t4") == Why.CARD_STUCK.value  # the J♣ needs a red Q


def test_foundation_cards_stay_or_say_why_they_cannot_come_back() -> None:
    board = craft(TERRACE, "7", foundations=["7D 8S"], tableau=QUIET)
    assert code(board, "f1") == Refusal.FOUNDATIONS_KEEP_CARDS.value
    empress = get_rules("empress-of-italy")
    board = craft(empress, "7", foundations=["7D 8S", "7H"], tableau=["9D", "2S", "3S", "4S", "JC", "QC",
                                                                      "KC", "2C", "3C", "4C", "5C"])
    assert code(board, "f1") is None  # the 8♠ may go back onto the 9♦
    assert code(board, "f2") == Refusal.FOUNDATION_BASE_STAYS.value
    board = craft(empress, "7", foundations=["7D 8S"], tableau=["2S", "3S", "4S", "JC", "QC", "KC", "2C",
                                                                 "3C", "4C", "5C", "6C"])
    reason = explain(board, "f1")
    assert reason is not None and reason.code is Why.FOUNDATION_CARD_STUCK
    assert "no pile has a red 9 on top" in str(reason)


def test_a_foundation_card_under_the_top_is_covered_where_the_top_may_come_back() -> None:
    """With foundation_return, a card under a foundation's top was said
    movable (``movable: true``) whenever the top card could go back to a
    pile: the top card's answer was given for every card of the pile."""
    empress = get_rules("empress-of-italy")
    board = craft(empress, "7", foundations=["7D 8S 9H"],
                  tableau=["TS", "2S", "3S", "4S", "JC", "QC", "KC", "2C", "3C", "4C", "5C"])
    assert code(board, "f1") is None and code(board, "f1", 2) is None  # the 9♥ may go back onto the 10♠
    reason = explain(board, "f1", 1)
    assert reason is not None and reason.code is Why.FOUNDATION_CARD_COVERED
    assert str(reason) == "the 8♠ is covered: only the top card of foundation 1 may come back onto a pile"
    assert reason.text("de") == ("Die 8♠ ist zugedeckt: Nur die oberste Karte von Zielstapel 1 darf zurück "
                                 "auf einen Stapel.")
    assert code(board, "f1", 0) == Why.FOUNDATION_CARD_COVERED.value
    board = craft(TERRACE, "7", foundations=["7D 8S"], tableau=QUIET)  # (no card ever leaves a foundation)
    assert code(board, "f1", 0) == Refusal.FOUNDATIONS_KEEP_CARDS.value


AUTO_SPACE_LEFT = ("T 2H9D THJCQHKSAD2S3H4C5H6S7H8S9H,TCJDQCKHAS2H3S4H5S6D7C8H9S,TSJHQCKDAC2D3S4D5C6H7C8D9C,"
                   "TDJSQDKCAH2C3D4S5D6C7D8C9H,THJSQDKSAD2S3D4C5H6S,TCJHQSKHAC2D3C4D5C6H7S8D9C,"
                   "TDJCQHKCAH2C3H4S5D,TSJD 3C,7D,8C,,9D8S7H,ASKDQS,6C,9S8H7S,6D5S4H - - 0")
"""Terrace deal 4 after 177 moves of the rule of thumb: pile 4 empty, the
waste and stock used up."""


def test_a_stuck_card_beside_an_empty_pile_says_why_the_pile_does_not_take_it() -> None:
    """In Wood (an empty pile takes only the waste card) a pressed pile card
    with nowhere to go was explained 'no foundation takes it, and no pile
    has a red Q on top', while the player saw an empty pile beside it (seen
    in Chromium on Wood deal 1 after t8f t1f t4t6 t7t6 s: four empty
    piles); with automatic spaces a pile stays empty once the waste and
    stock are used up. The explanation says so now."""
    board = craft(get_rules("wood"), "7", foundations=["7D"], tableau=["", *QUIET[1:]], waste="5H")
    reason = explain(board, "t4")
    assert reason is not None and reason.code is Why.CARD_STUCK_SPACE
    assert str(reason) == ("the J♣ has nowhere to go yet: no foundation takes it, no pile has a red Q on "
                           "top, and an empty pile takes only the waste card in this game")
    assert reason.text("de") == ("Die B♣ kann noch nirgendwohin: Kein Zielstapel nimmt sie, und kein Stapel "
                                 "hat oben eine rote Dame. In diesem Spiel nimmt ein leerer Stapel nur die "
                                 "Karte vom Abwurfstapel.")
    assert code(board, "waste") is None  # (the waste card may go there)
    board = Board.from_position(AUTO_SPACE_LEFT, TERRACE)
    reason = explain(board, "t3")
    assert reason is not None and reason.code is Why.CARD_STUCK_SPACE
    assert str(reason).endswith("no pile has a red 9 on top, and pile 4 stays empty: spaces are refilled "
                                "only from the waste or the stock, and both are used up")
    assert "Stapel 4 bleibt leer" in reason.text("de")
    wood_return = get_rules("wood", foundation_return=True)
    board = craft(wood_return, "7", foundations=["7D 8S"], tableau=["", *QUIET[1:]])
    reason = explain(board, "f1")
    assert reason is not None and reason.code is Why.FOUNDATION_CARD_STUCK_SPACE
    assert str(reason) == ("the 8♠ may come back only onto a pile, no pile has a red 9 on top, and an empty "
                           "pile takes only the waste card in this game")
    board = craft(TERRACE, "7", foundations=["7D"], tableau=QUIET, waste="5H")
    assert code(board, "t4") == Why.CARD_STUCK.value  # (no pile empty: as before)


def test_while_choosing_only_candidates_and_the_stock_answer() -> None:
    board = Board.from_number(7)
    assert [code(board, f"t{i}") for i in (1, 2, 3)] == [None, None, None]
    assert code(board, "reserve", 0) == Refusal.CHOOSE_FIRST.value
    assert code(board, "stock") == Refusal.CHOOSE_FIRST.value
    assert code(board, "t4") == Refusal.CHOOSE_FIRST.value


def test_empty_piles_and_an_empty_stock() -> None:
    board = craft(TERRACE, "7", foundations=["7D"], tableau=QUIET, rest="waste")
    assert code(board, "stock") == Refusal.STOCK_EMPTY.value
    board = craft(get_rules("wood"), "7", foundations=["7D"], tableau=["", *QUIET[1:]])
    assert code(board, "t1") == Refusal.PILE_EMPTY.value
    assert code(board, "waste") == Refusal.WASTE_EMPTY.value
    assert code(board, "f2") == Refusal.FOUNDATION_EMPTY.value


@pytest.mark.parametrize(("pile", "index"), [("t10", None), ("f9", None), ("t0", None), ("x", None),
                                             ("T1", None), ("t1", 1), ("t1", -1), ("reserve", 11)])
def test_bad_piles_and_indexes_are_refused(pile: str, index: int | None) -> None:
    board = Board.from_number(7)
    board.push_text("c1")
    with pytest.raises(WhyError) as caught:
        explain(board, pile, index)
    assert isinstance(caught.value, TerraceError)
    assert caught.value.code in (Why.PILE_NAME_UNKNOWN, Why.CARD_INDEX_RANGE)


def test_the_wanted_top_is_the_tableau_rule() -> None:
    """The colour and rank a stuck card asks for are exactly the pile tops
    that the building rule lets it go on."""
    for card in range(CARDS_PER_DECK):
        wanted = _wanted_top(card)
        tops = [t for t in range(CARDS_PER_DECK) if builds_down(t, card)]
        assert tops and all(RANKS[t >> 2] == wanted["rank"] for t in tops)
        assert all(RED[t] == (wanted["colour"] == "red") for t in tops)


def test_reasons_agree_with_the_legal_moves() -> None:
    """On positions along random games of several variants, a top card has
    no reason exactly when it has a legal move, and every covered card has one."""
    rng = random.Random(8)
    for variant in ("terrace", "wood", "empress-of-italy", "generals-patience"):
        board = Board.from_number(rng.randrange(1, 10_000), get_rules(variant))
        for _ in range(60):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if board.choosing:
                continue
            piles = ["reserve", "waste"] + [f"t{i + 1}" for i in range(len(board.tableau))]
            piles += [f"f{i + 1}" for i in range(len(board.foundations))]
            for pile in piles:
                place = {"reserve": "r", "waste": "w"}.get(pile, pile)
                cards = (board.reserve if pile == "reserve" else board.waste if pile == "waste" else
                         (board.tableau if pile[0] == "t" else board.foundations)[int(pile[1:]) - 1])
                reason = explain(board, pile)
                assert (reason is None) == bool(board.moves_from(place)), (variant, pile, str(reason))
                for index in range(len(cards) - 1):
                    if pile[0] != "f":
                        assert explain(board, pile, index) is not None


# -- the endpoint ----------------------------------------------------------------


@pytest.fixture
def client() -> Iterator[TestClient]:
    with app_client() as test_client:
        yield test_client


def test_why_answers_in_the_request_language(client: TestClient) -> None:
    game = client.post("/api/games", json={"variant": "terrace", "deal_number": 7}).json()
    client.post(f"/api/games/{game['id']}/moves", json={"move": "c1"})
    answer = client.get(f"/api/games/{game['id']}/why", params={"pile": "reserve", "index": "2"}).json()
    assert answer == {"pile": "reserve", "index": 2, "movable": False, "code": "terrace-card-covered",
                      "reason": "the A♠ is not free yet: only the end card of the terrace can be played, "
                                "and the cards on it must go to the foundations first"}
    german = client.get(f"/api/games/{game['id']}/why", params={"pile": "t2"},
                        headers={"accept-language": "de"}).json()
    assert german["code"] == "card-stuck" and german["reason"].startswith("Die 7♦ kann noch nirgendwohin")
    movable = client.get(f"/api/games/{game['id']}/why", params={"pile": "t1"}).json()
    assert movable == {"pile": "t1", "index": None, "movable": True, "reason": None, "code": None}


def test_why_names_the_empty_pile_a_wood_card_cannot_use(client: TestClient) -> None:
    game = client.post("/api/games", json={"variant": "wood", "deal_number": 1}).json()
    for move in ("t8f", "t1f", "t4t6", "t7t6", "s"):
        assert client.post(f"/api/games/{game['id']}/moves", json={"move": move}).status_code == 200
    for language, words in [("en", "and an empty pile takes only the waste card in this game"),
                            ("de", "nimmt ein leerer Stapel nur die Karte vom Abwurfstapel.")]:
        answer = client.get(f"/api/games/{game['id']}/why", params={"pile": "t6"},
                            headers={"accept-language": language}).json()
        assert answer["code"] == "card-stuck-space" and answer["reason"].endswith(words), answer


@pytest.mark.parametrize("query", ["pile=t10", "pile=", "", "pile=t1&index=x", "pile=t1&index=%C2%B2",
                                   "pile=t1&index=3", "pile=" + "t" * 500])
def test_why_refuses_bad_input_with_a_code(client: TestClient, query: str) -> None:
    game = client.post("/api/games", json={"variant": "terrace", "deal_number": 7}).json()
    client.post(f"/api/games/{game['id']}/moves", json={"move": "c1"})
    response = client.get(f"/api/games/{game['id']}/why?{query}")
    assert response.status_code == 400
    assert response.json()["code"] in ("pile-name-unknown", "card-index-range")
    assert len(response.json()["error"]) < 300


def test_why_of_an_unknown_game_is_404(client: TestClient) -> None:
    response = client.get("/api/games/nope/why?pile=t1")
    assert response.status_code == 404 and response.json()["code"] == "game-unknown"


def test_the_card_of_the_only_pile_is_not_told_of_other_piles() -> None:
    """With one pile its stuck card was told "no foundation takes it, and
    no pile has a black 8 on top", as if another pile could have one; it is
    told there is no other pile now. The waste card, which may go onto the
    pile, is still told what pile top it needs."""
    board = Board.from_number(1, get_rules("terrace", decks=1, reserve=0, piles=1, candidates=0))
    board.push_text("s")
    reason = explain(board, "t1")
    assert reason is not None and reason.code is Why.CARD_STUCK_ALONE, reason
    assert str(reason) == "the 7♥ has nowhere to go yet: no foundation takes it, and there is no other pile"
    assert reason.text("de").endswith("und es gibt keinen anderen Stapel.")
    waste = explain(board, "waste")
    assert waste is not None and waste.code is Why.CARD_STUCK, waste
