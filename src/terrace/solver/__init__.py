"""The solver: proves deals won or lost, advises the base card, gives hints.

>>> from terrace.solver import solve, hint, SolveResult, Hint
"""

from terrace.solver.api import Hint, SolveResult, hint, solve

__all__ = ["Hint", "SolveResult", "hint", "solve"]
