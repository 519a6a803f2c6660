"""The limits of every search budget, in one place: the command line's
options, the web server's settings and the Python API
(:mod:`terrace.solver.budget`, which checks them) all take these. A
module of its own, which loads nothing, so that a command that runs no
search reads them without loading the solver.

>>> MAX_SECONDS, MAX_NODES
(86400.0, 1000000000000)
"""

from __future__ import annotations

from typing import Final

MAX_SECONDS: Final = 86_400.0
"""The longest time budget anything takes: one day, as long as the
benchmarks give a search they mean not to stop by time, and far beyond any
default (a fair survey's 1800 s a deal). A longer one was taken (the
command line's ``--max-seconds 1e300``, "solving for up to 1e+300 s";
``solve(board, max_seconds=1e308)`` and the fair player's
``FairSettings(seconds=1e308)``)."""

MAX_NODES: Final = 10**12
"""The largest node budget (``solve``'s ``max_nodes``, the fair player's
``positions``): more positions than the solver enters in :data:`MAX_SECONDS`
(about 2 million a second here)."""
