"""Type stub of the compiled core (``ccore/``)."""

PROFILED: int
"""1 when setup.py built the core guided by its training run's profile."""

class Search:
    """The compiled search of one position (see ``search.py``)."""

    nodes: int
    best_found: int
    best_first: int
    last_seconds: float
    entries: int
    table_bytes: int

    def __init__(
        self,
        decks: int, piles: int, in_suit: bool, spaces: int, redeals: int, foundation_return: bool,
        base: int, reserve: bytes, stock: bytes, waste: bytes, tableau: list[bytes],
        foundations: list[bytes], redeals_used: int,
        canonical: bool, safe_moves: bool, dead_reserve: bool, order: int, dig_only: bool,
        shuffle: int, max_entries: int, seed: int, live_best: bool, reserve_weight: int, /,
    ) -> None: ...
    def step(self, max_nodes: int, seconds: float, /) -> int: ...
    def set_beam(
        self, width: int, closure: int, per_parent: int, weights: tuple[int, ...], seed: int, /,
    ) -> None: ...
    def set_nested(self, seed: int, /) -> None: ...
    def set_nrpa(self, level: int, iterations: int, seed: int, /) -> None: ...
    def restart(self, shuffle: int, moves: list[int], checked: bool = True, /) -> None: ...
    def line(self) -> list[int]: ...
    def best_line(self) -> list[int]: ...
    def hunt(
        self, max_nodes: int, seconds: float, limit: int, restarts: int, elite: list[int], elite_found: int,
        stale: int, rng: int, shift: int, elite_every: int, stale_hunters: int, learn: bool, /,
    ) -> tuple[int, int, list[int], int, int, int, int, int]: ...

def set_memory_limit(limit: int, /) -> int: ...
def memory_in_use() -> int: ...
def _grown_table(keys: bytes, /) -> tuple[bytes, bytes]: ...
