"""The game as the page sees it: JSON built from the engine.

The page holds no rules. Besides the position, the game JSON tells it, for
every card that can move, which move a click makes (``auto``) and which
piles accept it when dragged (``targets``); and after each change, which
cards travelled where (``motions``) so that it can animate them.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(1, get_rules("falling-star"))
>>> sorted(describe_sources(board))[:3]
['t3', 't5', 't6']
>>> describe_move(board, "s")
{'source': 'stock', 'target': 'waste', 'card': None}
>>> describe_move(board, "t3f")
{'source': 't3', 'target': 'f2', 'card': 'JD'}
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from terrace.board import Board
from terrace.building import COLOUR_AFTER, FOUNDATION_SIZE, SUIT_AFTER, key_words
from terrace.cards import RANKS, SUIT, SUITS, card_code, parse_card
from terrace.moves import Move
from terrace.position import Status
from terrace.solver.prune import dead_end
from terrace.storage.statistics import win_seconds
from terrace.variants import TITLES, rules_label

if TYPE_CHECKING:
    from terrace.storage import StoredGame

_NOTATION = {"reserve": "r", "waste": "w"}


def notation(pile: str) -> str:
    """The move notation of a source pile (``reserve`` -> ``r``, ``t3`` -> ``t3``)."""
    return _NOTATION.get(pile, pile)


def pile_name(place: str) -> str:
    """The page's pile name of a notation place (``r`` -> ``reserve``)."""
    return {"r": "reserve", "w": "waste", "s": "stock"}.get(place, place)


def source_piles(board: Board) -> list[str]:
    """Every pile whose top card may be able to move."""
    piles = ["reserve", "waste"] + [f"t{i}" for i in range(1, len(board.tableau) + 1)]
    if board.rules.foundation_return:
        piles += [f"f{i}" for i in range(1, len(board.foundations) + 1)]
    return piles


def pile_cards(state: dict[str, Any]) -> dict[str, list[str]]:
    """Every face-up pile of a ``Board.to_dict()`` keyed by pile name."""
    piles: dict[str, list[str]] = {"reserve": state["reserve"], "waste": state["waste"]}
    for i, cards in enumerate(state["foundations"], 1):
        piles[f"f{i}"] = cards
    for i, cards in enumerate(state["tableau"], 1):
        piles[f"t{i}"] = cards
    return piles


def describe_sources(board: Board, state: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """For each pile whose top card can move: the card, the move a click
    makes, and every pile it may be dropped on with the move that makes.

    Built from the board's list of legal moves (computed once per
    position): only a card that some foundation takes is tried on each
    foundation, so a request costs a few checks, not one per pair of piles.
    ``state`` is ``board.to_dict()`` when the caller has it already."""
    if board.choosing:
        return {}
    by_source: dict[str, list[Move]] = {}
    for move in board.legal_moves:
        if not (move.is_draw or move.is_choice):
            by_source.setdefault(move_place(move), []).append(move)
    piles = pile_cards(board.to_dict() if state is None else state)
    result: dict[str, dict[str, Any]] = {}
    for pile in source_piles(board):
        cards = piles.get(pile)
        moves = by_source.get(notation(pile))
        if not cards or not moves:
            continue
        targets: dict[str, str] = {}
        for move in moves:
            if move.target_index:
                targets[f"{move.target}{move.target_index}"] = str(move)
            elif move.to_foundation:
                for index in range(1, len(board.foundations) + 1):
                    exact = _move(f"{move}{index}")
                    if board.is_legal(exact):
                        targets[f"f{index}"] = str(exact)
        auto = board.auto_move(notation(pile))  # (the click's move: the board's one rule)
        result[pile] = {"card": cards[-1], "auto": None if auto is None else str(auto),
                        "targets": dict(sorted(targets.items(), key=_target_order))}
    return result


def move_place(move: Move) -> str:
    """The notation of the place a move takes its card from (``t3`` of ``t3t5``)."""
    return f"{move.source}{move.source_index}" if move.source in ("t", "f") else move.source


@lru_cache(maxsize=4096)
def _move(text: str) -> Move:
    """A move read once from its notation (moves are immutable)."""
    return Move.parse(text)


def _target_order(item: tuple[str, str]) -> tuple[bool, int]:
    """Foundations first, then piles, each by number."""
    return item[0][0] == "t", int(item[0][1:])


def describe_move(board: Board, text: str) -> dict[str, str | None]:
    """The pile a move takes a card from, the pile it goes to and the card
    it moves (its code; none for a draw, whose card lies face down), on the
    board before the move (``wf`` is resolved to the foundation it fills)."""
    move = Move.parse(text)
    if move.is_draw:
        return {"source": "stock", "target": "waste", "card": None}
    card = board.peek(move)
    code = None if card is None else card_code(card)
    if move.is_choice:
        return {"source": f"t{move.source_index}", "target": "f1", "card": code}
    source = pile_name(move.source) + (str(move.source_index) if move.source in "tf" else "")
    target: str | None = f"{move.target}{move.target_index}" if move.target_index else None
    if target is None and card is not None:
        for index in range(len(board.foundations)):
            if board.foundation_accepts(index, card):
                target = f"f{index + 1}"
                break
    return {"source": source, "target": target, "card": code}


def foundation_badges(board: Board, state: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """What each foundation waits for: an empty one its base rank, a started
    one the next rank with its colour (or suit, when building in suit).
    ``state`` is ``board.to_dict()`` when the caller has it already."""
    badges: list[dict[str, Any]] = []
    base = None if board.choosing else RANKS[board.base_rank]
    in_suit = board.rules.in_suit
    after = SUIT_AFTER if in_suit else COLOUR_AFTER  # (the building rules' own table: stated once)
    for cards in (board.to_dict() if state is None else state)["foundations"]:
        if not cards:
            badges.append({"count": 0, "next": base, "colour": None, "suit": None, "complete": False})
            continue
        badge: dict[str, Any] = {"count": len(cards), "next": None, "colour": None, "suit": None,
                                 "complete": len(cards) >= FOUNDATION_SIZE}
        if not badge["complete"]:
            wanted = after[parse_card(cards[-1])]
            colour, badge["next"] = key_words(wanted, in_suit=in_suit)
            badge["colour"], badge["suit"] = (None, SUITS[SUIT[wanted]]) if in_suit else (colour, None)
        badges.append(badge)
    return badges


def motions(
    before: dict[str, Any], after: dict[str, Any], main_source: str | None = None
) -> list[dict[str, Any]]:
    """Which face-up cards travelled between two ``Board.to_dict()`` states.

    Each motion is ``{"card", "from", "to", "refill"}``; ``from`` is
    ``stock`` for a card just turned up, ``to`` is ``stock`` for a card put
    back (undo). ``refill`` marks cards that filled a space on their own
    (any card from the waste or stock into a pile, other than the moved
    card whose pile is ``main_source``); they come after the others.
    """
    old, new = pile_cards(before), pile_cards(after)
    removed: list[tuple[str, str]] = []
    added: list[tuple[str, str]] = []
    for pile in new:
        b, a = old.get(pile, []), new[pile]
        if a == b:
            continue
        common, shorter = 0, min(len(a), len(b))
        while common < shorter and a[common] == b[common]:
            common += 1
        removed += [(pile, card) for card in b[common:]]
        added += [(pile, card) for card in a[common:]]
    result: list[dict[str, Any]] = []
    for pile, card in added:
        origin = next((r for r in removed if r[1] == card and r[0] != pile), None)
        if origin is not None:
            removed.remove(origin)
        result.append({"card": card, "from": origin[0] if origin else "stock", "to": pile})
    result += [{"card": card, "from": pile, "to": "stock"} for pile, card in removed]
    for m in result:
        m["refill"] = (
            m["to"].startswith("t") and m["from"] in ("waste", "stock") and m["from"] != main_source
        )
    result.sort(key=lambda m: m["refill"])
    return result


def finished(game: StoredGame, status: Status) -> bool:
    """True when the game is over: won, lost (no move left) or given up
    (``status`` is its live board's). The coach analyses only such a game."""
    return game.given_up_at is not None or status in (Status.WON, Status.LOST)


def game_json(game: StoredGame, board: Board, **extra: Any) -> dict[str, Any]:
    """Everything the page needs to draw and play a game."""
    state = board.to_dict()
    counters = board.counters()
    # from what the player sees: the reserve schedule, whatever the stock holds
    # (a lost game too, as the coach's analysis says it: lost at its deal,
    # its terrace was dead at step 0)
    dead, fatal = dead_end(board) if board.status is not Status.WON else (False, [])
    choices = [
        {"move": f"c{i}", "pile": f"t{i}", "card": card}
        for i, card in enumerate(state["candidates"], 1)
    ]
    data: dict[str, Any] = {
        **game_heading(game),
        # counts, not the lists: an answer's size must not grow with the
        # game (GET /api/games/{id}/line gives the moves themselves)
        "moves": game.played_count(),
        "redo": game.redo_count(),
        "last_played": game.last_move(),
        "revision": game.revision,
        "status": state["status"],
        "state": state,
        "legal_moves": [str(m) for m in board.legal_moves],
        "can_undo": board.can_undo,
        "can_redo": board.can_redo,
        # (the board of a request holds only the last moves of its history)
        "counters": {**counters, "moves": counters["moves"] + game.moves_before(board)},
        "sources": describe_sources(board, state),
        "draw": "s" if board.is_legal(Move.draw()) and not board.choosing else None,
        # (none where no card is ever left to draw: the page shows no redeals then)
        "redeals_in_play": game.rules.as_played().redeals,
        "choices": choices,
        "foundations": foundation_badges(board, state),
        "terrace_dead": dead,
        "fatal": [str(m) for m in fatal],
        "winnable_only": game.winnable_only,
        **game_record(game),
        "given_up": game.given_up_at is not None,
        "motions": [],
    }
    if game.given_up_at is not None:
        # Given up: lost for good, nothing can be played.
        data.update(status="lost", legal_moves=[], can_undo=False, can_redo=False, sources={},
                    draw=None, choices=[], fatal=[])
    data.update(extra)
    return data


def game_heading(game: StoredGame) -> dict[str, Any]:
    """Which game it is, as the game and the recent-games list name it:
    its id, variant and title, rules, statistics group and deal number."""
    return {"id": game.id, "variant": game.variant, "title": TITLES.get(game.variant, game.variant),
            "options": game.rules.to_dict(), "stats_key": rules_label(game.variant, game.rules),
            "deal_number": game.deal.number}


def game_record(game: StoredGame) -> dict[str, Any]:
    """What the game's own record says of it, as the game and the
    recent-games list give it: hints, undos, times and assistance."""
    return {"hints": game.hints, "undos": game.undos, "created_at": game.created_at,
            "updated_at": game.updated_at, "finished_at": game.finished_at, "assisted": game.assisted,
            "active_ms": game.active_ms, "won_at": game.won_at,
            "won_seconds": win_seconds(game.won_active_ms, game.won_at, game.started_at)}


def game_line(game: StoredGame) -> dict[str, Any]:
    """The game's moves and the moves taken back that can be redone (next
    last): the one answer whose size grows with the game, asked for only
    where the moves themselves are needed."""
    return {"id": game.id, "revision": game.revision, "moves": list(game.moves), "redo": list(game.redo)}


def game_summary(game: StoredGame) -> dict[str, Any]:
    """A line of the recent-games list."""
    return {
        **game_heading(game),
        "status": "lost" if game.given_up_at is not None else game.status,
        "given_up": game.given_up_at is not None,
        "moves": game.played_count(),
        **game_record(game),
    }
