"""The fair player once the stock's order is forced: at most one card
unseen, or copies of cards the rules cannot tell apart. Every stock the
player cannot rule out plays the same game, so it solves that game once
(FAIR_VERSION 8) instead of sampling it K times, and a fair hint there is
the proved answer."""

from __future__ import annotations

from terrace.board import Board
from terrace.cards import CODE
from terrace.solver.advice import fair_answer, nothing_hidden
from terrace.solver.api import NODE_SLICE, solve
from terrace.solver.decision import Decision
from terrace.solver.fair import FairPlayer, FairSettings
from terrace.solver.hint_line import PeekHint
from terrace.solver.lines import replays_to_win
from terrace.solver.observation import observe
from terrace.solver.playout import play_out
from terrace.variants import get_rules

SETTINGS = FairSettings(samples=8, nodes=20_000)


def _drawn_down(preset: str, number: int, left: int, first: tuple[str, ...] = ()) -> Board:
    """Deal ``number`` of ``preset`` after ``first`` and draws down to ``left`` stock cards."""
    board = Board.from_number(number, get_rules(preset))
    for text in first:
        board.push_text(text)
    while len(board.stock) > left:
        board.push_text("s")
    return board


def _twins(won: bool = False) -> Board:
    """Terrace deal 197 with its last two stock cards face down: the 2 of
    spades and the 2 of clubs, which a game built in alternate colours
    cannot tell apart; reached by draws alone, or (``won``) along a
    solver's winning line."""
    board = _drawn_down("terrace", 197, 2, ("c1",))
    if won:
        board = Board.from_number(197, get_rules("terrace"))
        found = solve(board, max_seconds=60.0, max_nodes=2_000_000, short_line=False)
        assert found.result == "won"
        for move in found.moves:
            if len(board.stock) == 2:
                break
            board.push(move)
    assert sorted(CODE[c] for c in board.stock) == ["2C", "2S"]
    return board


def test_one_card_face_down_is_solved_once_not_sampled() -> None:
    board = _drawn_down("falling-star", 4, 1)
    obs = observe(board)
    assert nothing_hidden(board) and len(obs.unseen) == 1 and len(obs.moves) > 1
    player = FairPlayer(SETTINGS, seed=3)
    decision = player.decide(obs)
    # (the old player sampled the one stock: kind 'sampled', 'wins in 0 of 8', 8 solves)
    assert decision.kind in ("winnable", "lost", "heuristic")
    assert decision.samples == 0 and decision.solves == 1
    assert player.positions <= SETTINGS.nodes * SETTINGS.samples + NODE_SLICE


def test_cards_the_rules_cannot_tell_apart_are_solved_once_too() -> None:
    board = _twins()
    obs = observe(board)
    assert len(set(obs.unseen)) == 2
    decision = FairPlayer(SETTINGS, seed=3).decide(obs)
    assert decision.kind in ("winnable", "lost", "heuristic") and decision.samples == 0
    # the same decision whichever of the two lies at the bottom (the player cannot tell)
    swapped = board.copy()
    swapped.stock[0], swapped.stock[1] = swapped.stock[1], swapped.stock[0]
    assert FairPlayer(SETTINGS, seed=3).decide(observe(swapped)) == decision


def test_a_game_built_in_suit_tells_a_suits_twos_apart() -> None:
    board = Board.from_number(1, get_rules("admirals-patience"))
    obs = observe(board)
    assert not obs.forced
    board.push_text("c1")
    while len(board.stock) > 2:
        board.push_text("s")
    stock = board.stock
    assert observe(board).forced == (stock[0] == stock[1])


def test_a_proved_winning_line_is_followed_to_the_win_without_solving_again() -> None:
    board = _twins(won=True)
    decisions: list[Decision] = []
    player = FairPlayer(SETTINGS, seed=3)
    played = play_out(board, player, on_decision=lambda _, d: decisions.append(d))
    first = next(i for i, d in enumerate(decisions) if d.kind == "winnable")
    assert decisions[first].solves >= 1
    assert played.result == "won"
    later = decisions[first + 1:]
    assert later and sum(d.solves for d in later) == 0
    assert {d.kind for d in later} <= {"winnable", "only"}
    # and it wins for the other order of the two twos as well
    swapped = board.copy(stack=False)
    swapped.stock[0], swapped.stock[1] = swapped.stock[1], swapped.stock[0]
    assert replays_to_win(swapped, list(played.moves))


def test_a_proved_loss_is_not_solved_again() -> None:
    board = _drawn_down("falling-star", 4, 1)
    decisions: list[Decision] = []
    played = play_out(board, FairPlayer(SETTINGS, seed=3), on_decision=lambda _, d: decisions.append(d))
    assert played.result == "lost"
    lost = [i for i, d in enumerate(decisions) if d.kind == "lost"]
    assert lost and sum(d.solves for d in decisions[lost[0]:]) == 1
    assert all(d.kind in ("lost", "only", "none") for d in decisions[lost[0]:])


def test_a_fair_hint_with_twins_face_down_is_the_proved_answer() -> None:
    board = _twins()
    assert nothing_hidden(board)
    answer = fair_answer(board, 30.0, nodes=400_000)
    # (it sampled the two orders 32 times, each the same game)
    assert isinstance(answer, PeekHint)
    assert answer.kind in ("winnable", "lost", "furthest", "heuristic")
    if answer.kind == "winnable":
        assert replays_to_win(board.copy(stack=False), answer.line)
