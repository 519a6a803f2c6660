"""Play-outs: a player plays a whole deal, seeing only observations.

A play-out always ends won or lost: players never return to a position seen
before (see :class:`~terrace.solver.observation.Observation`), a player that
finds no move gives up (lost), and a move cap is a safety net. Only a time
budget that runs out ends it ``unknown``: also a game that a move chosen as
it ran out left with no move (that move may have been hurried).

:func:`play_deal` is the unit of work of a survey: a pure, picklable
function of (rules, deal number, player name, player settings, seed,
budget) that returns a :class:`~terrace.solver.verdicts.Verdict`, so any
process pool or cluster can run it.

>>> from terrace.variants import get_rules
>>> verdict = play_deal(get_rules("falling-star"), 3, "greedy", {}, seed=1, budget=30)
>>> verdict.result in ("won", "lost")
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from terrace.board import Board
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.api import solve
from terrace.solver.budget import check_budget, check_nodes
from terrace.solver.decision import Decision, Player
from terrace.solver.observation import observe
from terrace.solver.players import deal_seed, make_player, player_settings
from terrace.solver.verdicts import Verdict

WON, LOST, UNKNOWN = "won", "lost", "unknown"


@dataclass(frozen=True, slots=True)
class PlayOut:
    """How a play-out went: ``result`` (``won``, ``lost`` or ``unknown`` when
    the time ran out), the moves played from the starting position, and why
    it ended: ``""`` (won, or no legal move left), ``"gave up"`` (legal moves
    but none the player would play), ``"moves"`` (the move cap) or
    ``"time"``."""

    result: str
    moves: tuple[Move, ...]
    seconds: float
    decisions: int
    solves: int
    reason: str = ""


def move_cap(rules: Rules) -> int:
    """The safety-net number of moves in one play-out (far above any game
    seen: every card could move a dozen times per pass)."""
    return 12 * rules.card_count * (rules.redeals + 1) + 100


def play_out(
    board: Board,
    player: Player,
    *,
    max_seconds: float = 3600.0,
    max_moves: int | None = None,
    on_decision: Callable[[Board, Decision], None] | None = None,
) -> PlayOut:
    """Let ``player`` play from ``board`` (left unchanged) to the end."""
    max_seconds = check_budget(max_seconds)
    max_moves = check_nodes(max_moves, "max_moves")  # (a negative cap ended the game at once, as lost)
    start = time.perf_counter()
    deadline = start + max_seconds
    cap = move_cap(board.rules) if max_moves is None else max_moves
    game = board.copy()
    played: list[Move] = []
    decisions = solves = 0
    result, reason = LOST, ""
    while True:
        if game.is_won():
            result = WON
            break
        # (the time before the end of a lost game: a move chosen as the
        # budget ran out, its solves cut short, that left no move was
        # stored lost, and a lost counts at every budget)
        if time.perf_counter() >= deadline:
            result, reason = UNKNOWN, "time"
            break
        if not game.legal_moves:
            break
        if len(played) >= cap:
            reason = "moves"
            break
        obs = observe(game)
        decision = player.decide(obs, deadline)
        decisions += 1
        solves += decision.solves
        if on_decision is not None:
            on_decision(game, decision)
        if decision.move is None:
            if time.perf_counter() >= deadline:
                result, reason = UNKNOWN, "time"
            else:
                reason = "gave up"
            break
        if decision.move not in obs.moves:
            raise RuntimeError(f"{player.name} chose {decision.move}, which is not among its moves")
        game.push(decision.move)
        played.append(decision.move)
    return PlayOut(result, tuple(played), time.perf_counter() - start, decisions, solves, reason)


def play_deal(
    rules: Rules, number: int, player: str, settings: Mapping[str, Any], seed: int, budget: float
) -> Verdict:
    """Play deal ``number`` with a new player and report it as a verdict
    (``nodes`` counts solver calls, ``line`` holds the moves played). The
    ``perfect`` player is the solver with ``budget`` seconds; the others
    play the deal within ``budget`` seconds. Pure: the same arguments give
    the same verdict (unless the budget runs out)."""
    budget = check_budget(budget)
    board = Board.from_number(number, rules)
    if player == "perfect":
        player_settings(player, settings)
        solved = solve(board, max_seconds=budget, all_candidates=False, short_line=False)
        return Verdict(solved.result, solved.nodes, solved.seconds, budget,
                       " ".join(str(m) for m in solved.moves))
    played = play_out(board, make_player(player, settings, deal_seed(seed, number)), max_seconds=budget)
    return Verdict(played.result, played.solves, played.seconds, budget,
                   " ".join(str(m) for m in played.moves))
