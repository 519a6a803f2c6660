"""Defect: a sampled stock order that the solver could not decide within the
fair player's node budget counted as a plain non-win, with nothing to tell it
from a loss.

Admiral's Patience deal 1: every sample is undecided, yet
* the page's Chances said "c1: wins in 0 of 32 sampled stocks" for every card
  (reads: lost in all 32), and
* the page's fair hint said kind 'sampled', "wins in 0 of 32 sampled stocks",
  though the move was only the rule of thumb's (no sample decided anything).
Fixed: hints and chances report 'undecided'; a hint no sample decided is
'heuristic'.
"""
from terrace.board import Board
from terrace.variants import get_rules
from terrace.solver.coach import base_chances
from terrace.solver.fair import FairPlayer, FairSettings, UNKNOWN
from terrace.solver.observation import observe
from terrace.web.hints import find_hint

board = Board.from_number(1, get_rules("admirals-patience"))
settings = FairSettings(samples=2, choice_nodes=2_000)
chances = base_chances(board, 0, 60, settings=settings)
player = FairPlayer(settings, 0)
player.decide(observe(board))
undecided = sum(s.status == UNKNOWN for s in player._samples)
print("chances: samples", chances["samples"], "undecided in fact", undecided, chances["candidates"])
print("DEFECT" if any("undecided" not in c for c in chances["candidates"]) else "ok")

board.push_text("c1")
board.push_text("rf")
hint = find_hint(board, 30.0)
print("hint after c1 rf:", {k: hint.get(k) for k in ("move", "kind", "samples", "wins", "undecided")})
print("DEFECT" if hint["kind"] == "sampled" and hint["wins"] == 0 and "undecided" not in hint else "ok")
