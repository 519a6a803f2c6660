"""Properties of random legal games, for every preset and random rule options:
the cards are conserved, undo restores exactly, move generation agrees with
the rule checks, and every refused move is explained truthfully.

Each example is a rules value, a deal number, a seed and a length: the seed
picks a random legal move at each turn, for at most that many turns. The
whole file runs in well under half a minute.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from collections.abc import Callable
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seed_rules
from terrace.board import Board, Status
from terrace.building import FOUNDATION_SIZE, builds_down, builds_up, starts
from terrace.cards import CODE, RANK, RANKS, RED, SUIT, full_pack
from terrace.deal import MAX_DEAL_NUMBER
from terrace.errors import InvalidMoveError
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.refusals import Reason, Refusal
from terrace.rules import Rules, SpaceRule
from terrace.variants import PRESETS, get_rules

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    """A preset, or a preset with random options overridden."""
    rules = get_rules(draw(st.sampled_from(list(PRESETS))))
    if draw(st.booleans()):
        return rules
    decks = draw(st.integers(1, 4))
    piles = draw(st.integers(1, 12))
    return Rules(
        decks=decks,
        piles=piles,
        reserve=draw(st.integers(0, min(20, 52 * decks - piles - 1))),
        candidates=draw(st.integers(0, min(piles, 6))),
        foundations=draw(st.sampled_from(["alternate", "suit"])),  # type: ignore[arg-type]
        spaces=draw(st.sampled_from(["auto", "free", "waste"])),  # type: ignore[arg-type]
        redeals=draw(st.integers(0, 2)),
        foundation_return=draw(st.booleans()),
        promote_candidates=draw(st.booleans()),
    )


Game = tuple[Rules, int, int, int]
GAMES = st.tuples(any_rules(), st.integers(0, MAX_DEAL_NUMBER), st.integers(0, 2**32), st.integers(0, 500))


def contents(board: Board) -> Counter[int]:
    return Counter(
        board.reserve + board.waste + board.stock
        + [c for f in board.foundations for c in f]
        + [c for p in board.tableau for c in p]
    )


def walk(rules: Rules, number: int, seed: int, length: int) -> Board:
    """Play up to ``length`` random legal moves; stop at the end of the game."""
    board = Board.from_number(number, rules)
    rng = random.Random(seed)
    for _ in range(length):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def every_move(board: Board) -> list[Move]:
    """Every well-formed move that names places up to one beyond the board."""
    rules = board.rules
    return list(_every_move(rules.piles, rules.foundation_count, rules.candidates))


@cache
def _every_move(piles: int, foundation_count: int, candidates: int) -> tuple[Move, ...]:
    """The moves of :func:`every_move`, which depend on these three counts
    only (made once: most are malformed, each refusal worded)."""
    pile_range = range(1, piles + 2)
    foundations = range(1, foundation_count + 2)
    moves = [Move.draw(), *(Move.choose(i) for i in range(1, candidates + 2))]
    sources = [("r", 0), ("w", 0), *(("t", i) for i in pile_range), *(("f", i) for i in foundations)]
    targets = [("f", 0), *(("f", i) for i in foundations), *(("t", i) for i in pile_range)]
    for source, source_index in sources:
        for target, target_index in targets:
            with contextlib.suppress(InvalidMoveError):  # e.g. a pile onto itself is no move
                moves.append(Move(source, source_index, target, target_index))
    return tuple(moves)


@SETTINGS
@given(GAMES)
def test_every_card_is_always_somewhere_and_pop_restores_exactly(game: Game) -> None:
    rules, number, seed, length = game
    board = Board.from_number(number, rules)
    rng = random.Random(seed)
    pack = Counter(full_pack(rules.decks))
    for _ in range(length):
        assert contents(board) == pack
        moves = list(board.legal_moves)
        if not moves:
            assert board.status in (Status.WON, Status.LOST)
            break
        assert board.status in (Status.CHOOSING, Status.PLAYING)
        before = board.position_key()  # (every card in its place, as position() says; half the time)
        move = rng.choice(moves)
        board.push(move)
        after, after_moves = board.position_key(), list(board.legal_moves)
        assert board.pop() == move
        assert board.position_key() == before and list(board.legal_moves) == moves
        assert board.redo() == move
        assert board.position_key() == after and list(board.legal_moves) == after_moves
    assert contents(board) == pack


@SETTINGS
@given(GAMES)
def test_record_replay_and_position_round_trip(game: Game) -> None:
    board = walk(*game)
    rules = game[0]
    record = GameRecord.from_board(board, "terrace")
    again = GameRecord.from_json(record.to_json())
    replayed = again.replay()
    assert replayed == board and replayed.move_stack == board.move_stack
    assert again.result == board.status.value
    copy = Board.from_position(board.position(), rules)
    assert copy == board
    assert list(copy.legal_moves) == list(board.legal_moves)
    assert copy.status is board.status


@SETTINGS
@given(GAMES)
def test_undoing_everything_gives_the_deal_back(game: Game) -> None:
    board = walk(*game)
    rules, number = game[0], game[1]
    end = board.position()
    count = len(board.move_stack)
    for _ in range(count):
        board.pop()
    assert board == Board.from_number(number, rules)
    for _ in range(count):
        board.redo()
    assert board.position() == end


def walk_checking(game: Game, check: Callable[[Board], None], every: int) -> None:
    """Play a random game as :func:`walk` does, checking the position every
    ``every`` moves, after the last one and at the end of the game."""
    rules, number, seed, length = game
    board = Board.from_number(number, rules)
    rng = random.Random(seed)
    for step in range(length + 1):
        if step % every == 0 or step == length:
            check(board)
        moves = list(board.legal_moves)
        if not moves:
            check(board)
            break
        board.push(rng.choice(moves))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_legal_moves_are_exactly_the_legal_ones(game: Game) -> None:
    walk_checking(game, check_legal_moves, 25)


def check_legal_moves(board: Board) -> None:
    generated = list(board.legal_moves)
    assert len(set(generated)) == len(generated)
    for move in generated:
        assert board.is_legal(move) and board.why_illegal(move) is None
    for move in every_move(board):
        legal = board.is_legal(move)
        assert legal == (move in board.legal_moves)
        if move.target == "f" and move.target_index:
            # A named foundation is legal exactly when it takes the card; the
            # generated moves name any foundation instead.
            assert not legal or Move(move.source, move.source_index, "f") in generated
        else:
            assert legal == (move in generated), str(move)
        if not legal:  # (check_refusals checks its words, and that why_illegal says them)
            assert board.refusal(move) is not None, str(move)


@SETTINGS
@given(GAMES)
def test_actions_mirror_moves(game: Game) -> None:
    board = walk(*game)
    actions = board.legal_actions()
    assert actions == sorted(actions)
    assert [board.action_to_move(a) for a in actions] == list(board.legal_moves)
    assert all(0 <= a < board.action_count for a in actions)
    if actions:
        other = board.copy()
        action = actions[game[2] % len(actions)]
        other.apply_action(action)
        board.push(board.action_to_move(action))
        assert other == board


# -- every refusal is explained by the rules themselves -----------------------------

@cache
def _wanted_cards(colour: str, rank: str) -> list[int]:
    """The cards a refusal names as wanted (``colour`` empty: any colour)."""
    return [c for c in range(52) if RANKS[RANK[c]] == rank and colour in ("", "red" if RED[c] else "black")]


@cache
def _fits(top: int, foundation: bool, in_suit: bool) -> list[int]:
    """The cards that go on ``top`` by the building rules alone."""
    if foundation:
        return [c for c in range(52) if builds_up(top, c, in_suit=in_suit)]
    return [c for c in range(52) if builds_down(top, c)]


def explained(board: Board, move: Move, reason: Reason) -> bool:
    """True when ``reason`` is a true account of why ``move`` is illegal,
    checked against the building rules and the position, not the board's
    own checks."""
    rules, p, code = board.rules, reason.params, reason.code
    card = board.peek(move)
    target = move.target_index - 1
    if code is Refusal.CHOOSE_FIRST:
        return board.choosing and not move.is_choice
    if code is Refusal.CANDIDATE_RANGE:
        return board.choosing and move.source_index > rules.candidates
    if code in (Refusal.BASE_CHOSEN, Refusal.NO_CHOICE):
        turned = rules.candidates == 0
        return not board.choosing and move.is_choice and (code is Refusal.NO_CHOICE) == turned
    if code in (Refusal.STOCK_EMPTY, Refusal.STOCK_EMPTY_NO_REDEALS, Refusal.NOTHING_TO_REDEAL):
        no_redeal = not board.waste or board.redeals_used >= rules.redeals
        named = {Refusal.STOCK_EMPTY_NO_REDEALS: bool(board.waste and rules.redeals),
                 Refusal.NOTHING_TO_REDEAL: not board.waste and board.redeals_used < rules.redeals,
                 Refusal.STOCK_EMPTY: not rules.redeals or (not board.waste and board.redeals_used
                                                            >= rules.redeals)}[code]
        return move.is_draw and not board.stock and no_redeal and named
    if board.choosing or move.is_choice or move.is_draw:
        return False
    if code is Refusal.TERRACE_EMPTY:
        return move.source == "r" and not board.reserve
    if code is Refusal.WASTE_EMPTY:
        return move.source == "w" and not board.waste
    if code is Refusal.NO_SUCH_PILE:
        return p["count"] == rules.piles and p["pile"] in (move.source_index, move.target_index) and (
            isinstance(p["pile"], int) and p["pile"] > rules.piles
        )
    if code is Refusal.NO_SUCH_FOUNDATION:
        count = rules.foundation_count
        return p["count"] == count and isinstance(p["foundation"], int) and p["foundation"] > count
    if code is Refusal.PILE_EMPTY:
        pile = move.source_index
        return move.source == "t" and p["pile"] == pile and not board.tableau[pile - 1]
    if code is Refusal.FOUNDATIONS_KEEP_CARDS:
        return move.source == "f" and not rules.foundation_return
    if code is Refusal.GAME_WON:
        return move.source == "f" and board.is_won()
    if code in (Refusal.FOUNDATION_EMPTY, Refusal.FOUNDATION_BASE_STAYS):
        size = len(board.foundations[move.source_index - 1])
        return move.source == "f" and size == (0 if code is Refusal.FOUNDATION_EMPTY else 1)
    if card is None:
        return False
    if code is Refusal.TERRACE_ONLY_TO_FOUNDATION:
        return move.source == "r" and move.target == "t"
    if code in (Refusal.NO_FOUNDATION_FREE, Refusal.NO_FOUNDATION_ACCEPTS):
        takes = [
            (not f and starts(card, board.base_rank))
            or (0 < len(f) < FOUNDATION_SIZE and builds_up(f[-1], card, in_suit=rules.in_suit))
            for f in board.foundations
        ]
        free = code is Refusal.NO_FOUNDATION_FREE
        return move.target_index == 0 and not any(takes) and free == (RANK[card] == board.base_rank)
    if move.target == "f":
        f = board.foundations[target]
        if code is Refusal.FOUNDATION_NEEDS_BASE:
            return not f and not starts(card, board.base_rank) and p["rank"] == RANKS[board.base_rank]
        if code is Refusal.FOUNDATION_COMPLETE:
            return len(f) == FOUNDATION_SIZE
        if code in (Refusal.FOUNDATION_NEEDS_COLOUR, Refusal.FOUNDATION_NEEDS_SUIT):
            top = f[-1]
            wanted = _wanted_cards(str(p.get("colour", "")), str(p["rank"]))
            fits = _fits(top, True, rules.in_suit)
            if rules.in_suit:
                wanted = [c for c in wanted if SUIT[c] == SUIT[top]]
            return (p["top"], p["card"]) == (CODE[top], CODE[card]) and card not in fits and wanted == fits
        return False
    pile = board.tableau[target]
    if code is Refusal.PILE_NEEDS:
        top = pile[-1]
        fits = _fits(top, False, False)
        wanted = _wanted_cards(str(p["colour"]), str(p["rank"]))
        return (p["top"], p["card"]) == (CODE[top], CODE[card]) and card not in fits and wanted == fits
    if code is Refusal.SPACE_TAKES_WASTE_ONLY:
        return not pile and rules.spaces is SpaceRule.WASTE and move.source != "w"
    if code is Refusal.SPACE_STAYS_EMPTY:
        return not pile and rules.spaces is SpaceRule.AUTO
    return False


def check_refusals(board: Board) -> None:
    legal = set(board.legal_moves)
    for move in every_move(board):
        reason = board.refusal(move)
        normal = Move(move.source, move.source_index, "f") if move.target == "f" else move
        if reason is None:
            assert normal in legal, str(move)
            continue
        assert move not in legal and explained(board, move, reason), f"{move}: {reason!r}"
        if _worded_key(reason) in _WORDED:  # (its words are the same wherever it is given: checked once)
            continue
        words = board.why_illegal(move)
        assert words == str(reason) and words[0].islower(), words
        for language in ("en", "de"):
            words = reason.text(language)
            assert "{" not in words and words
        _WORDED.add(_worded_key(reason))


_WORDED: set[tuple[object, ...]] = set()
"""The refusals (by :func:`_worded_key`) whose words :func:`check_refusals`
has checked: a reason's words depend on its code and parameters alone, and
wording each of every refused move in two languages took half the test's
time."""


def _worded_key(reason: Reason) -> tuple[object, ...]:
    """What a reason's words depend on: its code, and each parameter with
    its type (a quoted text is worded otherwise than the same plain text)."""
    return (reason.code, *((name, type(value), _worded_key(value) if isinstance(value, Reason) else value)
                           for name, value in reason.params.items()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_every_illegal_move_is_explained_by_the_rules(game: Game) -> None:
    walk_checking(game, check_refusals, 40)


# -- the engine against the rules written out again from the seed documents ----------


def layout_of(board: Board) -> seed_rules.Layout:
    return seed_rules.Layout(
        board.rules, board.base_rank, board.reserve[:], [f[:] for f in board.foundations],
        [p[:] for p in board.tableau], board.waste[:], board.stock[:], board.redeals_used,
    )


def engine_moves(board: Board) -> set[str]:
    """The engine's legal moves with every foundation named."""
    named = set()
    for move in every_move(board):
        if board.is_legal(move) and not (move.target == "f" and move.target_index == 0):
            named.add(str(move))
    return named


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_the_engine_plays_the_rules_of_the_seed_documents(game: Game) -> None:
    """In every position of a random game the engine allows exactly the moves
    an independent model of the seed rules allows, and each move leaves the
    cards where that model puts them."""
    rules, number, seed, length = game
    board = Board.from_number(number, rules)
    rng = random.Random(seed)
    for _ in range(min(length, 120)):
        model = layout_of(board)
        moves = seed_rules.legal(model)
        assert engine_moves(board) == moves, board.position()
        if not moves:
            assert board.status in (Status.WON, Status.LOST)
            return
        move = rng.choice(sorted(moves))
        seed_rules.play(model, move)
        board.push_text(move)
        assert layout_of(board) == model, move


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_a_copied_pickled_or_deep_copied_game_is_the_same_and_plays_on_alone(game: Game) -> None:
    """Every public object of a game survives pickle and copy.deepcopy
    equal (a solver process gets boards and refusals so), and a board's
    clone, however made, plays on without changing the original."""
    import copy
    import pickle

    board = walk(*game)
    if board.move_stack and random.Random(game[2]).random() < 0.5:
        board.pop()  # (a redo line too)
    record = GameRecord.from_board(board)
    position, stack, legal = board.position(), list(board.move_stack), list(board.legal_moves)
    for thing in (board.rules, board.deal, record, *stack[-3:], Status(board.status)):
        assert pickle.loads(pickle.dumps(thing)) == thing == copy.deepcopy(thing)
    clones = [pickle.loads(pickle.dumps(board)), copy.deepcopy(board), board.copy()]
    for clone in clones:
        assert clone == board and clone.position() == position and list(clone.move_stack) == stack
        assert list(clone.legal_moves) == legal and clone.legal_actions() == board.legal_actions()
        assert GameRecord.from_board(clone) == record
        if legal:
            clone.push(legal[-1])
        elif clone.move_stack:
            clone.pop()
        assert board.position() == position and list(board.move_stack) == stack
        assert list(board.legal_moves) == legal
