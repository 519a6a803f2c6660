"""The page's Chances (seed 0) and the page's fair hint at the base-card choice
(seed from the game id) disagreed: the hint may recommend a card that the
Chances show with fewer wins than another (Terrace deals 1-10: 3 conflicts).
This script calls base_chances with seed 0 as /chances did before the fix;
the endpoint now passes fair_seed(game id), the hints' seed."""
import sys
from terrace.board import Board
from terrace.variants import get_rules
from terrace.solver.coach import base_chances
from terrace.web.hints import find_hint
from terrace.web.endpoints import fair_seed as _seed

variant = sys.argv[1] if len(sys.argv) > 1 else "terrace"
bad = 0
for number in range(1, 1 + int(sys.argv[2]) if len(sys.argv) > 2 else 11):
    board = Board.from_number(number, get_rules(variant))
    chances = base_chances(board, 0, 60)
    best = max(c["wins"] for c in chances["candidates"])
    seed = _seed(f"{number:016x}")  # any game id
    hint = find_hint(board, 60.0, seed=seed)
    mine = next(c for c in chances["candidates"] if c["move"] == hint["move"])
    flag = "CONFLICT" if mine["wins"] < best else ""
    bad += bool(flag)
    print(number, [(c["move"], c["wins"], c["tried"]) for c in chances["candidates"]], "hint", hint["move"], hint["wins"], "of", hint["samples"], flag, flush=True)
print("conflicts", bad)
