"""Feedback and keyboard in a real browser: a card that cannot move says
why when pressed and is let go; every refused drop the seeds name (the
terrace card onto a pile, a red 8 onto a red 7 on a foundation, the wrong
colour or rank on a pile, an empty foundation, the space rules) gets its
own explanation next to the card; Esc cancels a drag; arrow keys move the
focus from pile to pile; the focus ring stands out on the green table.

The positions are found by random play with the engine, then played on the
server through the API, so every explanation is the server's own.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from browser_support import Api, moves_seen, press_on, settled, top
from terrace.board import Board
from terrace.cards import RANK, RED
from terrace.moves import Move
from terrace.variants import get_rules
from terrace.web.why import explain
from web_support import WINNING_LINE

pytestmark = pytest.mark.browser

Found = tuple[int, list[str], Any]


def find(variant: str, want: Callable[[Board], Any], steps: int = 160) -> Found:
    """The first position of random play (seeded) from deals 1, 2, ... for
    which ``want`` returns something: (deal, moves, what it returned)."""
    rules = get_rules(variant)
    rng = random.Random(3)
    for deal in range(1, 400):
        board = Board.from_number(deal, rules)
        line: list[str] = []
        for _ in range(steps):
            found = None if board.choosing else want(board)
            if found is not None:
                return deal, line, found
            moves = list(board.legal_moves)
            if not moves:
                break
            plays = [m for m in moves if not m.is_draw]
            move = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(moves)
            board.push(move)
            line.append(str(move))
    raise AssertionError(f"no such position in {variant}")


def tops(board: Board) -> list[str]:
    return ["waste"] + [f"t{i + 1}" for i, pile in enumerate(board.tableau) if pile]


def stuck_everywhere(board: Board) -> Any:
    """A covered pile card, a stuck terrace card and a stuck pile top."""
    covered = next((f"t{i + 1}" for i, pile in enumerate(board.tableau) if len(pile) >= 2), None)
    reasons = {p: explain(board, p) for p in tops(board)[1:]}
    stuck = next((p for p, r in reasons.items() if r is not None and r.code.value == "card-stuck"), None)
    terrace = len(board.reserve) >= 2 and explain(board, "reserve") is not None
    movable = next((p for p in tops(board)[1:] if explain(board, p) is None), None)
    empty = next((f"f{i + 1}" for i, f in enumerate(board.foundations) if not f), None)
    if covered and stuck and terrace and movable and empty:
        return {"covered": covered, "stuck": stuck, "movable": movable, "empty": empty}
    return None


def same_colour_on_foundation(board: Board) -> Any:
    """A movable card one rank above a foundation's top, in the same colour."""
    for i, cards in enumerate(board.foundations):
        if cards and len(cards) < 13:
            for pile in tops(board):
                source = board.waste if pile == "waste" else board.tableau[int(pile[1:]) - 1]
                card = source[-1] if source else None
                if (card is not None and RED[card] == RED[cards[-1]]
                        and RANK[card] == (RANK[cards[-1]] + 1) % 13 and explain(board, pile) is None):
                    return {"card": pile, "foundation": f"f{i + 1}"}
    return None


def space_and_mover(board: Board) -> Any:
    empty = next((f"t{i + 1}" for i, pile in enumerate(board.tableau) if not pile), None)
    mover = next((p for p in tops(board)[1:] if explain(board, p) is None), None)
    return {"space": empty, "card": mover} if empty and mover else None


def start(api: Api, variant: str, found: Found, **options: Any) -> dict[str, Any]:
    deal, line, _ = found
    game = api.new(variant=variant, deal_number=deal, options=options) if options else \
        api.new(variant=variant, deal_number=deal)
    return api.play(game, *line)


def bubble(page: Any) -> str:
    why = page.locator("#why:not([hidden])")
    why.wait_for()
    text: str = why.inner_text()
    return text


def sentence(text: str) -> str:
    """``text`` shown on its own: a capital first, a full stop last (the
    server's English refusals have neither)."""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."


def says(page: Any, expected: str) -> str:
    """The bubble's words, once they are ``expected`` (shown as a sentence)."""
    page.locator("#why:not([hidden])", has_text=expected[1:]).wait_for()
    text = bubble(page)
    assert text == sentence(expected)
    return text


def why(api: Api, game: dict[str, Any], pile: str, index: int | None = None, lang: str = "en") -> Any:
    params: dict[str, Any] = {"pile": pile} if index is None else {"pile": pile, "index": index}
    return api.client.get(f"/api/games/{game['id']}/why", params=params,
                          headers={"accept-language": lang}).json()


def check(api: Api, game: dict[str, Any], move: str) -> Any:
    return api.client.get(f"/api/games/{game['id']}/check", params={"move": move}).json()


def press(page: Any, pile: str, index: int) -> None:
    """Press the card at ``index`` of ``pile`` where it shows (a covered
    card only shows its top edge, a terrace card its left one)."""
    card = page.locator(f"[data-pile='{pile}'] > .card[data-index='{index}']")
    card.click(position={"x": 4, "y": 4})


def let_go(page: Any, moves: int) -> None:
    """Nothing moved, nothing is selected or lifted."""
    assert page.evaluate("document.body.dataset.moves") == str(moves)
    assert page.locator(".ghost, .card.selected, .card.lifted").count() == 0


def test_pressing_a_card_that_cannot_move_says_why(api: Api, open_game: Any) -> None:
    found = find("terrace", stuck_everywhere)
    game = start(api, "terrace", found)
    spots = found[2]
    moves = game["moves"]
    page = open_game(game)
    texts = {}
    cases = [
        (spots["covered"], 0, "card-covered"),
        ("reserve", 0, "terrace-card-covered"),
        ("reserve", len(game["state"]["reserve"]) - 1, "terrace-card-stuck"),
        (spots["stuck"], len(game["state"]["tableau"][int(spots["stuck"][1:]) - 1]) - 1, "card-stuck"),
        ("f1", len(game["state"]["foundations"][0]) - 1, "foundations-keep-cards"),
    ]
    for pile, index, code in cases:
        answer = why(api, game, pile, index)
        assert answer["code"] == code, (pile, index, answer)
        press(page, pile, index)
        texts[code] = says(page, answer["reason"])
        let_go(page, moves)
        # The note stands next to the card, inside the window.
        note = page.locator("#why").bounding_box()
        card = page.locator(f"[data-pile='{pile}'] > .card[data-index='{index}']").bounding_box()
        assert note["y"] + note["height"] <= card["y"] + 2 or note["y"] >= card["y"] - 2
        assert abs((note["y"] + note["height"] / 2) - (card["y"] + 4)) < card["height"] + note["height"]
        assert note["x"] >= 0 and note["x"] + note["width"] <= page.viewport_size["width"]
    assert len(set(texts.values())) == len(cases)
    # A drag that starts on a card that cannot move is let go too.
    stuck = top(page, spots["stuck"]).bounding_box()
    page.mouse.move(stuck["x"] + 5, stuck["y"] + 5)
    page.mouse.down()
    page.mouse.move(stuck["x"] + 80, stuck["y"] - 120, steps=5)
    assert page.locator(".ghost").count() == 0
    page.mouse.up()
    let_go(page, moves)
    # ... and a card that can move still drags.
    assert "movable" in (top(page, spots["movable"]).get_attribute("class") or "")


def test_each_refused_drop_has_its_own_explanation(api: Api, open_game: Any) -> None:
    texts: dict[str, str] = {}

    def drop(game: dict[str, Any], source: str, target: str, code: str) -> None:
        notation = {"reserve": "r", "waste": "w"}.get(source, source)
        answer = check(api, game, notation + target)
        assert answer["code"] == code, answer
        page = open_game(game)
        top(page, source).drag_to(page.locator(f"[data-pile='{target}']"))
        texts[code] = says(page, answer["reason"])
        page.locator(".ghost").wait_for(state="detached")
        let_go(page, game["moves"])
        page.context.close()

    # Seed 001: the terrace card onto a tableau pile, whatever its rank.
    found = find("terrace", lambda b: "rf" if b.is_legal(Move.parse("rf")) else None)
    drop(start(api, "terrace", found), "reserve", "t1", "terrace-only-to-foundation")
    # Seed 001: a red 8 onto a red 7 on a foundation (here: any card of the
    # next rank in the same colour).
    found = find("terrace", same_colour_on_foundation)
    drop(start(api, "terrace", found), found[2]["card"], found[2]["foundation"], "foundation-needs-colour")
    # The wrong colour or rank on a pile, and an empty foundation that takes
    # only the base rank.
    found = find("terrace", stuck_everywhere)
    game = start(api, "terrace", found)
    source = found[2]["movable"]
    wrong = next(f"t{i}" for i in range(1, 10) if f"t{i}" != source
                 and f"t{i}" not in game["sources"][source]["targets"] and game["state"]["tableau"][i - 1])
    drop(game, source, wrong, "pile-needs")
    if game["sources"][source]["card"][0] != game["counters"]["base_rank"]:
        drop(game, source, found[2]["empty"], "foundation-needs-base")
    # Spaces: in Wood an empty pile takes only the waste card; with
    # automatic spaces a pile stays empty once stock and waste are used up.
    found = find("wood", space_and_mover)
    drop(start(api, "wood", found), found[2]["card"], found[2]["space"], "space-takes-waste-only")
    line = WINNING_LINE
    late = api.new(variant=line["variant"], options=line["options"], deal_number=line["deal_number"])
    late = api.play(late, *line["moves"][:234])
    board = Board.from_number(line["deal_number"], get_rules(line["variant"], **line["options"]))
    for text in line["moves"][:234]:
        board.push(Move.parse(text))
    spot = space_and_mover(board)
    drop(late, spot["card"], spot["space"], "space-stays-empty")
    assert len(set(texts.values())) == len(texts) >= 5


def test_explanations_follow_the_language(api: Api, open_game: Any) -> None:
    found = find("terrace", stuck_everywhere)
    game = start(api, "terrace", found)
    page = open_game(game, locale="de-DE")
    index = len(game["state"]["reserve"]) - 1
    press(page, "reserve", index)
    text = says(page, why(api, game, "reserve", index, "de")["reason"])
    assert text.startswith("Eine Terrassenkarte darf nur auf einen Zielstapel")


def test_escape_cancels_a_drag(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    assert game["sources"]["t1"]["targets"] == {"t8": "t1t8"}
    page = open_game(game)
    box = top(page, "t1").bounding_box()
    target = page.locator("[data-pile='t8']").bounding_box()
    press_on(page, box)
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=8)
    assert page.locator(".ghost").count() == 1 and page.locator(".pile.target").count() == 1
    page.keyboard.press("Escape")
    page.locator(".ghost").wait_for(state="detached")
    assert page.locator(".pile.target, .card.lifted").count() == 0
    page.mouse.up()  # over the pile that would have taken the card: nothing happens
    settled(page)
    let_go(page, 1)
    assert top(page, "t1").get_attribute("data-card") == "6H"
    # The next drag works as always.
    top(page, "t1").drag_to(page.locator("[data-pile='t8']"))
    moves_seen(page, 2)


def test_arrow_keys_move_the_focus_between_piles(api: Api, open_game: Any) -> None:
    game = api.play(api.new(variant="terrace", deal_number=7), "c1")
    page = open_game(game)
    focused = "document.activeElement.dataset.pile || ''"
    page.keyboard.press("ArrowRight")  # nothing focused yet: the first pile
    assert page.evaluate(focused) == "stock"
    steps = [("ArrowRight", "waste"), ("ArrowRight", "f1"), ("ArrowRight", "f2"), ("ArrowLeft", "f1"),
             ("ArrowDown", "reserve"), ("ArrowDown", "t5"), ("ArrowLeft", "t4"), ("ArrowLeft", "t3"),
             ("ArrowRight", "t4"), ("ArrowUp", "reserve"), ("ArrowUp", None)]
    for key, pile in steps:
        page.keyboard.press(key)
        now = page.evaluate(focused)
        if pile is None:
            assert now in {"stock", "waste"} | {f"f{i}" for i in range(1, 9)}
        else:
            assert now == pile, (key, pile, now)
    # Enter acts on the focused pile as a click does: pile 7's 9♦ goes home.
    page.locator("[data-pile='t7']").focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(focused) == "t7"
    page.keyboard.press("Enter")
    moves_seen(page, 2)
    assert page.locator("[data-pile='f2'] [data-card='9D']").count() == 1


def _luminance(rgb: tuple[float, ...]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_focus_ring_stands_out_on_the_table(api: Api, open_game: Any) -> None:
    """WCAG's 3:1 for the ring against every colour of the felt (the
    gradient's three stops), and its dark inner band against a card."""
    page = open_game(api.play(api.new(variant="terrace", deal_number=7), "c1"))
    page.keyboard.press("ArrowRight")
    colours = page.evaluate("""() => {
      const rgb = (text) => { const probe = document.createElement('i'); probe.style.color = text;
        document.body.append(probe); const value = getComputedStyle(probe).color; probe.remove();
        return value.match(/[\\d.]+/g).map(Number); };
      const pile = document.activeElement, style = getComputedStyle(pile);
      const root = getComputedStyle(document.documentElement), colour = (v) => rgb(root.getPropertyValue(v));
      return { outline: rgb(style.outlineColor), width: parseFloat(style.outlineWidth),
               styleName: style.outlineStyle, shadow: style.boxShadow,
               felt: ['--felt', '--felt-light', '--felt-dark'].map(colour),
               halo: colour('--focus-halo'), paper: colour('--paper'),
               visible: pile.matches(':focus-visible') };
    }""")
    assert colours["visible"] and colours["styleName"] == "solid" and colours["width"] >= 2
    for felt in colours["felt"]:
        assert contrast(tuple(colours["outline"]), tuple(felt)) >= 3, felt
    assert contrast(tuple(colours["halo"]), tuple(colours["paper"])) >= 3
    assert colours["shadow"] != "none"


def test_a_screen_reader_hears_why_a_key_move_is_refused(api: Api, open_game: Any) -> None:
    """The bubble appears with its text (a live region that appears is not
    read out): the reason goes to #said, a live region that is always
    there, and the bubble itself is no second live region."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, locale="de-DE")
    said = page.locator("#said")
    assert said.get_attribute("aria-live") == "polite"
    page.locator("[data-pile='t4']").focus()
    page.keyboard.press("1")  # 9 of clubs: nowhere to go
    page.locator("#why:not([hidden])").wait_for()
    assert page.locator("#why").text_content().startswith("Die 9♣ kann noch nirgendwohin")
    # (heard with the card by name, as the bubble's words otherwise)
    assert said.text_content() == page.locator("#why").text_content().replace("9♣", "Kreuz 9")
    assert page.locator("#why").get_attribute("aria-live") is None
    assert page.locator("#why").get_attribute("role") is None


@pytest.mark.parametrize(("locale", "shown", "heard"), [
    ("en-GB", "the 7♠ cannot go on the 9♣, nor the 10♦ on a Q♥ or K♣; A♠ and J♦ wait",
     "the 7 of spades cannot go on the 9 of clubs, nor the 10 of diamonds on a queen of hearts or "
     "king of clubs; ace of spades and jack of diamonds wait"),
    ("de-DE", "Die 7♠ darf nicht auf den B♥, die 10♦ nicht auf eine D♣ oder K♠; A♥ wartet",
     "Die Pik 7 darf nicht auf den Herz Bube, die Karo 10 nicht auf eine Kreuz Dame oder Pik König; "
     "Herz Ass wartet"),
])
def test_a_refusal_is_heard_with_the_cards_by_name(api: Api, open_game: Any, locale: str, shown: str,
                                                   heard: str) -> None:
    """The server writes a refusal's cards as labels with suit symbols,
    which a screen reader reads as written: the bubble and the toast show
    them so, and the live regions say each card by its name."""
    game = api.play(api.new(variant="terrace", deal_number=7), "c2")
    page = open_game(game, locale=locale)
    page.route("**/check*", lambda route: route.fulfill(
        status=200, content_type="application/json",
        body=json.dumps({"move": "t4f1", "legal": False, "reason": shown, "code": "pile-needs"})))
    top(page, "t4").drag_to(page.locator("[data-pile='f1']"))
    assert bubble(page) == sentence(shown)
    page.locator("#said", has_text=heard[1:]).wait_for()
    assert page.locator("#said").text_content() == sentence(heard)
    page.unroute("**/check*")
    page.route("**/hint", lambda route: route.fulfill(
        status=409, content_type="application/json", body=json.dumps({"error": shown, "code": "x"})))
    page.locator("#btn-hint").click()
    page.locator("#toast.show", has_text=shown[1:]).wait_for(state="attached")
    assert page.locator("#alert").text_content() == sentence(heard)
    open_game.errors.clear()  # (the browser's console reports the 409)


def test_a_double_click_on_a_piles_only_card_says_why_it_stays(api: Api, open_game: Any) -> None:
    """A pile's only card whose one move is into another space (free
    spaces) is not sent there by a double click: the note said "This card
    is home already: drag it to a pile", the words for a foundation's card."""
    game = api.play(api.new(variant="terrace", deal_number=1, options={"spaces": "free"}), "c1", "t9f")
    assert game["sources"]["t1"]["auto"] is None and list(game["sources"]["t1"]["targets"]) == ["t9"]
    page = open_game(game)
    top(page, "t1").dblclick()
    page.wait_for_selector("#toast.show", state="attached")
    said = page.locator("#toast").inner_text()
    assert said.startswith("This card is alone in its pile"), said
    settled(page)
    assert page.evaluate("document.body.dataset.moves") == "2"


def test_a_card_pressed_on_the_board_of_a_game_given_up_says_it_was_given_up(api: Api,
                                                                             open_game: Any) -> None:
    """Given up, then "Look at the board": pressing a card that had nowhere
    to go said 'The A♦ has nowhere to go yet: ...', as if play went on (a
    card that could have moved said the game was given up)."""
    game = api.play(api.new(variant="terrace", deal_number=1), "c1")
    assert api.client.post(f"/api/games/{game['id']}/give-up", json={}).status_code == 200
    stuck = why(api, game, "t1")
    assert (stuck["movable"], stuck["code"]) == (False, "game-given-up")
    page = open_game(api.client.get(f"/api/games/{game['id']}").json())
    page.locator("dialog.end[open]").get_by_role("button", name="Look at the board").click()
    press(page, "t1", 0)
    assert "given up" in says(page, stuck["reason"])
