"""The switches of one search."""

from __future__ import annotations

from dataclasses import dataclass, fields

from terrace.refusals import quote
from terrace.whole import as_truth, as_whole

DEFAULT_SEED = 20240601
"""The seed of :class:`Options` unless another is given."""

BEAM_WIDEST = 1 << 16
"""The most positions a layer of the beam hunter may keep (the compiled
core's limit)."""

ORDER_PLAIN = 0
"""Moves tried foundation moves first, then waste to pile, pile to pile
(shorter piles first), foundation returns, the draw last."""
ORDER_DRAW_EARLY = 1
"""As :data:`ORDER_PLAIN`, with the draw right after the foundation moves
(the first win-hunter)."""
ORDER_UNRANKED = 2
"""As :data:`ORDER_PLAIN`, the piles' moves in pile order instead of shorter
piles first: for the shuffled win-hunters of ``solve``, whose moves are put
in a random order anyway (ranking the piles first was 11% of their
instructions)."""
NRPA_MAX_LEVEL = 4
"""The deepest level of the policy-learning hunter (``Options.nrpa``): each
level runs the one below ``search.NRPA_ITERATIONS`` times."""
LDS_DEVIATIONS = 1
"""``Options.lds``: the discrepancy hunter counts each move it plays other
than the first live one of its position as one discrepancy."""
LDS_RANKS = 2
"""``Options.lds``: the discrepancy hunter counts the i-th live move of a
position (from 0) as i discrepancies."""
COUNT_MOST = 1 << 62
"""The most positions or entries the compiled core is asked to count (its
counts are signed 64-bit numbers, and a budget is added to the positions
so far): the largest ``Options.max_entries``, and the cap when none is
given; a step or a hunt asked for more positions is asked for this many."""

RESERVE_WEIGHT_MAX = 64
"""The most a reserve card played may count in a best line's worth
(``Options.reserve_weight``)."""
HUNT_MIXES = 3
"""The last of the hunters' foundation-move policies (``Options.hunt_mix``)."""
STOCK_LOOKAHEAD_MOST = 416
"""The most stock cards a win-hunter looks ahead (``Options.stock_lookahead``):
the cards of eight decks."""
ORDERS = (ORDER_PLAIN, ORDER_DRAW_EARLY, ORDER_UNRANKED)
"""Every move order (the compiled core refuses any above the last)."""


@dataclass(frozen=True, slots=True)
class Options:
    """Switches for the search; every pruning can be turned off for tests."""

    canonical: bool = True
    """Key cards by rank and colour (alternate games) and piles as a multiset."""
    safe_moves: bool = True
    """Play a provably safe foundation move as the only move."""
    dead_reserve: bool = True
    """Cut lines in which a reserve card can never reach a foundation."""
    reserve_blocking: bool = False
    """Also cut, at every position, lines in which the reserve schedule
    fails once each reserve card may use only the cards that can reach a
    foundation before it (docs/winnability.md, "Reserve schedule with
    blocking"). Both searches have it (the compiled core in ``ccore/reach.c``);
    ``solve`` gives it to its complete searches only, never to the hunters."""
    order: int = ORDER_PLAIN
    """Move ordering: :data:`ORDER_PLAIN`, :data:`ORDER_DRAW_EARLY` or
    :data:`ORDER_UNRANKED`."""
    dig_only: bool = False
    """Move a card between piles only from a pile that can then be emptied
    at once (a win-finding restriction: such a search never claims lost)."""
    shuffle: int = 0
    """When not 0: the seed of a random order of the non-foundation moves
    (used by restarting win-hunters)."""
    beam: int = 0
    """When not 0: the search is the compiled core's beam hunter with this
    many positions per layer, at most :data:`BEAM_WIDEST` (a win-finding
    search: it never claims lost)."""
    nested: bool = False
    """The search is the compiled core's nested hunter (``ccore/nested.c``):
    a win-finding search that never claims lost."""
    nrpa: int = 0
    """When not 0: the search is the compiled core's policy-learning hunter
    (``ccore/nrpa.c``, nested rollout policy adaptation) of this level, from 1
    to :data:`NRPA_MAX_LEVEL`: a win-finding search that never claims lost."""
    lds: int = 0
    """When not 0: the search is the compiled core's discrepancy hunter
    (``ccore/lds.c``, limited discrepancy search) counting discrepancies as
    :data:`LDS_DEVIATIONS` or :data:`LDS_RANKS` say: a win-finding search
    that never claims lost. Measured, not used by ``solve``
    (docs/winnability.md, "Discrepancy hunter")."""
    elite: bool = True
    """Let every second win-hunter start from a random point of the best
    line the hunters have found so far (``solve`` only; see ``api.ELITE_EVERY``)."""
    twins: bool = True
    """Solve once the position that two base-card candidates of the same
    rank both lead to (``solve`` only; see :mod:`terrace.solver.twins`)."""
    max_entries: int | None = None
    """Transposition entries before the search gives up (memory cap), from 1
    to :data:`COUNT_MOST` (the two searches stop at the same position); by
    default 20 million for the pure-Python search (and for all its searches
    in the process together, whatever this says), and for the compiled core
    as many as its memory limit allows (see :func:`set_memory_limit`)."""
    live_best: bool = False
    """A search's best line (``best_found``, the restarting win-hunters'
    line to start from) ends only in a position that the reserve schedule
    does not cut (measured for General's Patience: docs/winnability.md,
    "Changes measured")."""
    reserve_weight: int = 1
    """What a search's best line is chosen by: cards up, each reserve card
    played counting this many times (from 1 to :data:`RESERVE_WEIGHT_MAX`);
    ``best_found`` is that worth."""
    one_lane: bool = False
    """Key positions by one 64-bit lane instead of two (the piles' share of
    the second lane left out: fewer instructions in suit games). A false
    "seen" can then make the search skip a position, so it never claims
    lost (``"exhausted"``); ``solve`` gives it to its win-hunters only,
    never to the complete search (docs/winnability.md, "One-lane keys for
    the win-hunters"). The pure-Python search keeps both lanes."""
    hunt_mix: int = 0
    """Where a shuffled search (``shuffle``, a win-hunter) puts the
    foundation moves that are not safe: 0 first (reserve, piles, waste),
    1 the waste's first, 2 shuffled with the other moves in one position
    in eight, 3 each hunter one of these by its order (``shuffle % 3``).
    A search without ``shuffle``, such as the complete one, keeps them
    first. Measured, not used by ``solve`` (docs/winnability.md, "Changes
    measured": a portfolio of hunter policies)."""
    stock_lookahead: int = 0
    """When not 0: a shuffled search (a win-hunter) that can draw tries the
    draw first of its shuffled moves where one of the stock's next this many
    cards is one a foundation wants now, so that it draws towards foundation
    progress the stock brings (from 0 to :data:`STOCK_LOOKAHEAD_MOST`). A
    search without ``shuffle``, such as the complete one, is unchanged.
    Measured, not used by ``solve`` (docs/winnability.md, "Changes measured":
    hunters that read the stock)."""
    seed: int = DEFAULT_SEED
    """The seed of the position keys and of the win-hunters' random choices
    (their move orders and restart points)."""
    core: str = "auto"
    """``"auto"``: the compiled core when it is built; ``"python"``: the
    pure-Python reference; ``"compiled"``: the core or an error."""

    def __post_init__(self) -> None:
        # (a switch of text or a count of 1.5 reached the core as "argument 19
        # must be int", a TypeError, or was taken: canonical="no" meant yes)
        # (numpy's bool_ and int64 are taken as the engine's rules take them, kept as plain values)
        for option in fields(self):
            value = getattr(self, option.name)
            if option.type == "bool":
                plain: bool | int | None = as_truth(value)
                if plain is None:
                    raise ValueError(f"{option.name} {quote(value)} is not true or false")
            elif option.type == "int":
                plain = as_whole(value)
                if plain is None:
                    raise ValueError(f"{option.name} {quote(value)} is not a whole number")
            else:
                continue
            if plain is not value:
                object.__setattr__(self, option.name, plain)
        if not 0 <= self.beam <= BEAM_WIDEST:
            raise ValueError(f"beam width {quote(self.beam)} is not from 0 (no beam) to {BEAM_WIDEST:,}")
        if self.order not in ORDERS:
            known = ", ".join(map(str, ORDERS[:-1])) + f" and {ORDERS[-1]}"
            raise ValueError(f"move order {quote(self.order)} is not one of {known}")
        weight = self.reserve_weight
        if not 1 <= weight <= RESERVE_WEIGHT_MAX:
            raise ValueError(f"reserve weight {quote(weight)} is not a whole number "
                             f"from 1 to {RESERVE_WEIGHT_MAX}")
        if not 0 <= self.hunt_mix <= HUNT_MIXES:
            raise ValueError(f"hunt mix {quote(self.hunt_mix)} is not from 0 to {HUNT_MIXES}")
        look = self.stock_lookahead
        if not 0 <= look <= STOCK_LOOKAHEAD_MOST:
            raise ValueError(f"stock lookahead {quote(look)} is not from 0 to {STOCK_LOOKAHEAD_MOST}")
        if not 0 <= self.nrpa <= NRPA_MAX_LEVEL:
            raise ValueError(f"policy-learning level {quote(self.nrpa)} is not from 0 to {NRPA_MAX_LEVEL}")
        if self.lds not in (0, LDS_DEVIATIONS, LDS_RANKS):
            raise ValueError(f"discrepancy count {quote(self.lds)} is not 0 (no discrepancy hunter), "
                             f"{LDS_DEVIATIONS} or {LDS_RANKS}")
        most = self.max_entries
        if most is not None and (isinstance(most, bool) or not isinstance(most, int) or
                                 not 1 <= most <= COUNT_MOST):
            raise ValueError(f"max_entries {quote(most)} is not a whole number "
                             f"from 1 to {COUNT_MOST:,}")

    @property
    def hunters(self) -> list[str]:
        """The win-finding searches these options ask for (a search is at most one)."""
        return [name for name, wanted in (("beam", self.beam), ("nested", self.nested), ("nrpa", self.nrpa),
                                          ("lds", self.lds)) if wanted]

    @property
    def complete(self) -> bool:
        """True when the search leaves out only moves proved unnecessary, so
        that running out of positions proves the position lost."""
        return not self.dig_only and not self.hunters and not self.one_lane
