"""The solver: proves deals won or lost, advises the base card, gives hints.

>>> from terrace.solver import solve, hint, safe_moves, finish_line, SolveResult, Hint
"""

from terrace.solver.api import Hint, SolveResult, solve
from terrace.solver.hint_line import hint
from terrace.solver.safe import finish_line, safe_moves

__all__ = ["Hint", "SolveResult", "finish_line", "hint", "safe_moves", "solve"]
