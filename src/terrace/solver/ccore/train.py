"""The training run of the compiled core's profile-guided build (setup.py).

``python train.py CORE.so`` loads the instrumented core from that file in
place of ``terrace.solver._core`` and solves a fixed set of deals, each
counted in positions (the same work on any machine), so that gcc learns
which branches the searches take. The deals cover both kinds of
foundations, two, three and four decks, every space rule and foundation
return, with every candidate solved and with the first winning candidate
enough. It imports only the engine and the solver, which need nothing
beyond the standard library (the build environment has nothing else).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

WORK = (
    ("admirals-patience", (1, 2), 1_500_000),
    ("generals-patience", (1, 2, 3, 4), 400_000),
    ("terrace", tuple(range(1, 11)), 100_000),
    ("wood", (1, 2), 100_000),
    ("madame", (1,), 400_000),
    ("empress-of-italy", (1,), 600_000),
)
"""(preset, deals, positions a deal): about three seconds instrumented."""


def load_core(core_path: str) -> None:
    """Make the core built at ``core_path`` the one the solver imports (call
    it before ``terrace.solver`` is imported; ``bench/digest.py`` uses it too)."""
    spec = importlib.util.spec_from_file_location("terrace.solver._core", core_path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"no compiled core at {core_path}")
    core = importlib.util.module_from_spec(spec)
    sys.modules["terrace.solver._core"] = core
    spec.loader.exec_module(core)


def main(core_path: str) -> None:
    """Solve the training deals with the core at ``core_path``."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    load_core(core_path)

    from terrace.board import Board
    from terrace.solver import api, search
    from terrace.variants import get_rules

    if not search.core_available():
        raise SystemExit("the solver did not take the instrumented core")
    for name, deals, nodes in WORK:
        rules = get_rules(name)
        for deal in deals:
            board = Board.from_number(deal, rules)
            api.solve(board, max_seconds=600.0, max_nodes=nodes, all_candidates=deal % 2 == 0,
                      short_line=False)  # (the Python shortening does not train the core)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python train.py CORE.so")
    main(sys.argv[1])
