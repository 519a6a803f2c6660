"""Properties of random games over the whole range of every rule option:
1 to 8 packs, 1 to 20 piles, a reserve from empty to the most the packs
allow, from no candidate to one in every pile, both foundation kinds, every
space rule, 0 to 9 redeals, with and without foundation return (each limit
read from :data:`terrace.rules.RULE_OPTIONS`, so a limit that moves is
followed here).

``test_properties.py`` plays many games of modest sizes; this file plays
fewer games, each drawn from the full ranges and biased towards their ends,
and checks in every position that the cards are all accounted for, that each
legal move's notation reads back as that move, that a push then a pop gives
the very position back (equal, with the same key and hash, and the same
legal moves), and, every few moves, that ``push`` takes exactly the moves
``legal_moves`` lists and that the engine agrees with the rules written out
again from the seed documents (``seed_rules``). At the end the game record
replays to the same position and the end of the game, if reached, is the
one the rules say. Positions laid out at random, not played to, are checked
against those rules too.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seed_rules
from terrace.board import Board, Status
from terrace.building import builds_down, builds_up, starts
from terrace.cards import CODE, RANKS, full_pack
from terrace.deal import MAX_DEAL_NUMBER
from terrace.errors import IllegalMoveError
from terrace.game import State, _moved, _pieces
from terrace.moves import Move
from terrace.record import GameRecord
from terrace.rules import RULE_OPTIONS, FoundationBuild, Rules, SpaceRule
from test_properties import contents, engine_moves, every_move, layout_of

WIDE = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _in(low: int, high: int) -> st.SearchStrategy[int]:
    """A value between ``low`` and ``high``, its two ends as likely as all
    the values between them."""
    return st.one_of(st.just(low), st.just(high), st.integers(low, high))


@st.composite
def full_rules(draw: st.DrawFn) -> Rules:
    """Any rules at all: every option anywhere in its range."""
    values: dict[str, object] = {}
    for name in ("decks", "piles", "reserve", "candidates", "redeals"):
        low, high = RULE_OPTIONS[name].limits(values)
        values[name] = draw(_in(low, high))
    values["foundations"] = draw(st.sampled_from(list(FoundationBuild)))
    values["spaces"] = draw(st.sampled_from(list(SpaceRule)))
    values["foundation_return"] = draw(st.booleans())
    values["promote_candidates"] = draw(st.booleans())
    return Rules(**values)  # type: ignore[arg-type]


GAMES = st.tuples(
    full_rules(),
    st.one_of(st.just(0), st.just(MAX_DEAL_NUMBER), st.integers(0, MAX_DEAL_NUMBER)),
    st.integers(0, 2**32),
    st.integers(0, 300),
)


def choose(board: Board, rng: random.Random) -> Move | None:
    """A random legal move, a foundation move more often than not (so that
    games reach their later stages), or None when there is none."""
    moves = list(board.legal_moves)
    if not moves:
        return None
    up = [m for m in moves if m.to_foundation]
    return rng.choice(up if up and rng.random() < 0.6 else moves)


def check_push_takes_exactly_the_legal_moves(board: Board) -> None:
    """``push`` accepts every listed move and refuses (changing nothing)
    every other one; a named foundation is accepted exactly when the
    listed ``<src>f`` move goes there or another foundation also takes it."""
    listed = set(board.legal_moves)
    before = board.position_key()  # (equal exactly when the positions are; position() would cost
    for move in every_move(board):  # 0.15 ms a refused move of eight packs, a few thousand a board)
        try:
            board.push(move)
        except IllegalMoveError:
            assert board.position_key() == before, str(move)
            assert move not in listed, str(move)
            continue
        assert board.pop() == move
        assert board.position_key() == before
        short = Move(move.source, move.source_index, "f") if move.to_foundation else move
        assert short in listed, str(move)
    for move in listed:
        assert board.is_legal(move)


def check_end(board: Board) -> None:
    """With no legal move left the game is over, won exactly when every
    card lies on a foundation; a won game has no legal move."""
    status = board.status
    if board.is_won():
        assert status is Status.WON and not board.legal_moves
    if not board.legal_moves and status is not Status.CHOOSING:
        assert status is (Status.WON if board.is_won() else Status.LOST)
        assert board.is_game_over() and board.outcome() is status
    if board.legal_moves:
        assert status in (Status.CHOOSING, Status.PLAYING) and not board.is_game_over()


@WIDE
@given(GAMES)
def test_random_games_over_every_rule_option_keep_every_property(game: tuple[Rules, int, int, int]) -> None:
    rules, number, seed, length = game
    board = Board.from_number(number, rules)
    rng = random.Random(seed)
    pack = Counter(full_pack(rules.decks))
    for step in range(length + 1):
        assert contents(board) == pack
        check_end(board)
        moves = list(board.legal_moves)
        for move in moves:
            assert Move.parse(str(move)) == move
        if step % 20 == 0 or not moves:
            check_push_takes_exactly_the_legal_moves(board)
            assert engine_moves(board) == seed_rules.legal(layout_of(board)), board.position()
        move = choose(board, rng)
        if move is None or step == length:
            break
        before, key = board.position(), board.position_key()
        board.push(move)
        after = board.position()
        assert board.pop() == move
        assert board.position() == before and board.position_key() == key
        assert hash(board.position_key()) == hash(key) and list(board.legal_moves) == moves
        board.push(move)
        assert board.position() == after
    record = GameRecord.from_json(GameRecord.from_board(board, "terrace").to_json())
    replayed = record.replay()
    assert replayed == board and replayed.position_key() == board.position_key()
    assert record.result == board.status.value
    assert Board.from_position(board.position(), rules) == board


# -- the end of the game, one move away or stuck, in every rule combination ----------

_ALTERNATE_SUITS = ((1, 0), (2, 3), (0, 1), (3, 2))
"""The suits of the four complete foundations of one pack, built in
alternate colours: (suit of the cards at even steps from the base, at odd
steps). Hearts with spades from a red base, diamonds with clubs, and the
same two pairs from a black base: each card of the pack once."""


def complete_foundations(rules: Rules, base: int) -> list[list[int]]:
    """Every foundation of ``rules`` complete on base rank ``base``, built
    as the rules build them (cards as ``rank * 4 + suit``)."""
    foundations = []
    for _ in range(rules.decks):
        if rules.foundations is FoundationBuild.SUIT:
            pairs = tuple((suit, suit) for suit in range(4))
        else:
            pairs = _ALTERNATE_SUITS
        for even, odd in pairs:
            foundations.append([(base + step) % 13 * 4 + (odd if step % 2 else even) for step in range(13)])
    return foundations


def text_of(rules: Rules, base: int, reserve: list[int], foundations: list[list[int]],
            piles: list[list[int]]) -> str:
    """The position string of these parts, with waste and stock empty."""

    def run(cards: list[int]) -> str:
        return "".join(CODE[c] for c in cards)

    found = ",".join(run(f) for f in foundations)
    tableau = ",".join(run(p) for p in piles) or "-"
    assert len(piles) == rules.piles
    return f"{RANKS[base]} {run(reserve) or '-'} {found} {tableau} - - 0"


@WIDE
@given(full_rules(), st.integers(0, 12), st.integers(0, 12), st.data())
def test_the_last_cards_home_win_the_game_and_then_nothing_moves(
        rules: Rules, base: int, taken: int, data: st.DataObject) -> None:
    """Every foundation complete on any base rank (corners included) but
    for its top cards: up to 12 lie in the terrace in the order they are
    needed and, with a pile, one more lies in a pile. Playing them home
    wins, the win is recognised, and after it no move is legal, not even a
    foundation return."""
    foundations = complete_foundations(rules, base)
    which = data.draw(st.integers(0, len(foundations) - 1))
    taken = min(taken, rules.reserve)
    reserve = [foundations[which].pop() for _ in range(taken)]  # (the first taken lies deepest)
    piles: list[list[int]] = [[] for _ in range(rules.piles)]
    home = ["rf"] * taken
    pile = data.draw(st.integers(-1, rules.piles - 1))
    if pile >= 0:
        other = data.draw(st.sampled_from([i for i, f in enumerate(foundations) if len(f) > 1]))
        piles[pile].append(foundations[other].pop())  # (never a base card: it never leaves)
        home.insert(0, f"t{pile + 1}f")  # (taken last, so needed first)
    board = Board.from_position(text_of(rules, base, reserve, foundations, piles), rules)
    start = board.position()
    for text in home:
        assert board.status is Status.PLAYING and not board.is_game_over()
        assert Move.parse(text) in board.legal_moves
        board.push_text(text)
    assert board.is_won() and board.status is Status.WON and board.outcome() is Status.WON
    assert not board.legal_moves and board.is_game_over()
    for move in every_move(board):
        assert not board.is_legal(move), str(move)
    for _ in home:
        board.pop()
    assert board.position() == start


@WIDE
@given(full_rules().filter(lambda rules: rules.reserve >= 2), st.integers(0, 12), st.data())
def test_a_terrace_in_the_wrong_order_at_the_end_is_a_lost_game(
        rules: Rules, base: int, data: st.DataObject) -> None:
    """The last two cards of a foundation lie in the terrace the wrong way
    round (the one needed first under the other), nothing else is left:
    the game is lost, unless a foundation card may come back into an empty
    pile (free spaces with foundation return), which is still a move."""
    foundations = complete_foundations(rules, base)
    which = data.draw(st.integers(0, len(foundations) - 1))
    top, second = foundations[which].pop(), foundations[which].pop()
    piles: list[list[int]] = [[] for _ in range(rules.piles)]
    board = Board.from_position(text_of(rules, base, [second, top], foundations, piles), rules)
    frees = rules.spaces is SpaceRule.FREE and rules.foundation_return
    assert board.status is (Status.PLAYING if frees else Status.LOST)
    assert bool(board.legal_moves) == frees
    assert [str(m) for m in board.legal_moves if m.source != "f"] == []
    assert "rf" not in [str(m) for m in board.legal_moves]


# -- positions laid out at random, not reached by play ----------------------------------------


def _take(pack: list[int], fits: Callable[[int], bool]) -> int | None:
    """The first card of ``pack`` that ``fits``, taken out of it, or None."""
    for index, card in enumerate(pack):
        if fits(card):
            return pack.pop(index)
    return None


def _built(pack: list[int], length: int, first: Callable[[int], bool],
           after: Callable[[int, int], bool]) -> list[int]:
    """Up to ``length`` cards of ``pack`` that make a run: the first fits
    ``first``, each next one fits ``after(top, card)``."""
    run: list[int] = []
    while len(run) < length:
        card = _take(pack, first if not run else lambda card, top=run[-1]: after(top, card))
        if card is None:
            break
        run.append(card)
    return run


PLACES = ("terrace", "piles", "waste", "stock")
"""The places :func:`laid_out` may leave bare."""


def laid_out(rules: Rules, base: int, bare: frozenset[str], rng: random.Random) -> str:
    """A position string of ``rules``, the cards dealt into its places at
    random as the rules build them: foundations of any length on ``base``
    (complete ones, and the first never empty), piles built down, a terrace
    of any length up to the rules', the rest split between waste and stock,
    any number of redeals used; the places named in ``bare`` get no card
    (but with automatic spaces no pile is empty while the waste or the
    stock holds a card)."""
    pack = full_pack(rules.decks)
    rng.shuffle(pack)

    def length(place: str, most: int) -> int:
        return 0 if place in bare else rng.choice([min(1, most), most, rng.randint(0, most)])

    foundations = [_built(pack, max(rng.choice([0, 1, 13, rng.randint(0, 13)]), index == 0),
                          lambda card: starts(card, base),
                          lambda top, card: builds_up(top, card, in_suit=rules.in_suit))
                   for index in range(rules.foundation_count)]
    piles = [_built(pack, length("piles", 5), lambda card: True, builds_down) for _ in range(rules.piles)]
    reserve = [pack.pop() for _ in range(min(len(pack), length("terrace", rules.reserve)))]
    waste = [pack.pop() for _ in range(length("waste", len(pack)))]
    stock = [] if "stock" in bare else pack  # (drawn from its end: the string writes it next card first)
    waste += pack if "stock" in bare else []
    if rules.spaces is SpaceRule.AUTO:
        for pile in piles:
            if not pile and (waste or stock):
                pile.append((waste or stock).pop())

    def run(cards: list[int]) -> str:
        return "".join(CODE[card] for card in cards)

    fields = [RANKS[base], run(reserve), ",".join(map(run, foundations)), ",".join(map(run, piles)),
              run(waste), run(stock[::-1]), str(rng.randint(0, rules.redeals))]
    return " ".join(field or "-" for field in fields)  # ('-': a whole field empty)


@WIDE
@given(full_rules(), st.integers(0, 12), st.tuples(*(st.booleans() for _ in PLACES)), st.integers(0, 2**32))
def test_positions_laid_out_at_random_have_the_moves_the_rules_allow(
        rules: Rules, base: int, empty: tuple[bool, ...], seed: int) -> None:
    """Random games seldom reach some positions (every foundation complete
    but a few, all redeals used with a long waste, every pile empty while
    the stock holds cards, long piles with foundation return): cards laid
    out at random as the rules build them make them. The engine reads each,
    allows (``is_legal``) and lists (``legal_moves``) exactly the moves the
    rules written out again from the seed documents allow, and a move
    leaves the cards where those rules put them."""
    rng = random.Random(seed)
    bare = frozenset(place for place, left in zip(PLACES, empty, strict=True) if left)
    board = Board.from_position(laid_out(rules, base, bare, rng), rules)
    model = layout_of(board)
    moves = seed_rules.legal(model)
    assert engine_moves(board) == moves, board.position()
    # (the generator names no foundation: 'wf' goes to the first that takes the card)
    assert {str(move) for move in board.legal_moves} == {re.sub(r"f\d+$", "f", move) for move in moves}
    if moves:
        move = rng.choice(sorted(moves))
        seed_rules.play(model, move)
        board.push_text(move)
        assert layout_of(board) == model, (move, board.position())


@WIDE
@given(GAMES)
def test_a_research_state_of_any_rules_works_out_each_move_and_reads_back_from_bytes(
        game: tuple[Rules, int, int, int]) -> None:
    """terrace.game.State decides which moves repeat a position by working
    out the position after each from the one now, without playing it
    (game._moved); test_game checked it on two presets' rules only. Over
    the whole range of every option (eight packs, every space rule, returns
    from the foundations, redeals), the worked-out position is the board's
    after the move, for every legal move of every position of the game;
    the state's legal actions are the board's that reach no earlier
    position; and the state made anew from its bytes is the state."""
    rules, number, seed, length = game
    state, rng = State.new(rules, number), random.Random(seed)
    reached = {state.board().position_key()}
    for _ in range(length):
        board = state.board()
        now, fresh = _pieces(board), []
        for move in board.generate_legal_moves():
            after = board.copy(stack=False)
            after.push(move)
            if not (move.is_draw or move.is_choice):
                worked_out = _moved(board, now, board._resolve(move))  # type: ignore[arg-type]
                assert worked_out == _pieces(after), (board.position(), str(move))
            if move.is_draw or move.is_choice or after.position_key() not in reached:
                fresh.append(board.move_to_action(move))
        assert state.legal_actions() == sorted(fresh)
        if not fresh or len(state.history()) >= state.max_game_length():
            break
        state.apply_action(rng.choice(fresh))
        reached.add(state.board().position_key())
    read = State.from_bytes(state.to_bytes())
    assert read.observation_string() == state.observation_string() and read.history() == state.history()
    assert read.legal_actions() == state.legal_actions()
