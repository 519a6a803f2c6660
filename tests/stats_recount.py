"""An independent recount of the statistics, for the tests that attack them.

A :class:`Ledger` is kept by the test that plays, from what it did and what
the server answered (never from the statistics code): for each game when it
was opened, every change the player made to it, when it was first won and in
how many moves, the time reported for it, its hints, undos and assists. From
that :meth:`Ledger.expected` counts what a player expects, as PySolFC and
Aisleriot count: a game with a move that is left for a new game is lost
(abandoned) until it is resumed, a game given up or with no move
left is lost, a win is a win once and for good, whatever is undone after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass
class Kept:
    """One game as the player saw it."""

    id: str
    key: str
    opened: float
    imported: bool = False
    """Came in by an import: its opening was none here."""
    touched: bool = False
    """Changed here (a move, undo, redo, restart, give-up or counted hint)."""
    moved: bool = False
    first_move: float | None = None
    last_change: float = 0.0
    won_at: float | None = None
    won_moves: int | None = None
    won_ms: int = 0
    won_ms_open: bool = False
    """True while time reported counts towards the first win."""
    standing_won: bool = False
    lost_at: float | None = None
    given_up_at: float | None = None
    hints: int = 0
    undos: int = 0
    assisted: bool = False
    active_ms: int = 0
    moves: int = 0


@dataclass
class Ledger:
    """Every game of a session, by id."""

    games: dict[str, Kept] = field(default_factory=dict)

    def opened(self, data: dict[str, Any], *, imported: bool = False) -> Kept:
        """A game the server just created (its JSON)."""
        kept = Kept(data["id"], data["stats_key"], data["created_at"], imported=imported)
        kept.last_change = data["updated_at"]
        self.games[kept.id] = kept
        return kept

    def changed(self, data: dict[str, Any], action: str) -> None:
        """The server's answer to a stored change of a game (move, undo,
        redo, restart, give-up): what it shows now."""
        kept = self.games[data["id"]]
        kept.last_change, kept.touched = data["updated_at"], True
        kept.moves = data["moves"]
        if action == "move":
            kept.moved = True
            kept.first_move = kept.first_move or data["updated_at"]
        if action == "undo":
            kept.undos += 1
        status = data["status"]
        if action == "give-up":
            kept.given_up_at = data["updated_at"]
        if status == "won" and kept.won_at is None:
            kept.won_at, kept.won_moves = data["updated_at"], kept.moves
            kept.won_ms, kept.won_ms_open = kept.active_ms, True
        elif kept.won_at is not None:  # (any change after the win: play after it, even if won again)
            kept.won_ms_open = False
        kept.standing_won = status == "won"
        if action != "give-up":  # (a game lost, then given up: the loss came first)
            kept.lost_at = data["updated_at"] if status == "lost" else None

    def hinted(self, game_id: str, at: float) -> None:
        """A hint the server counted (it said so)."""
        kept = self.games[game_id]
        kept.hints += 1
        kept.touched = True
        kept.last_change = max(kept.last_change, at)

    def timed(self, game_id: str, ms: int) -> None:
        """Active time the page reported and the server took."""
        kept = self.games[game_id]
        kept.active_ms += ms
        if kept.won_ms_open and kept.standing_won:
            kept.won_ms += ms
        elif kept.won_at is not None:
            kept.won_ms_open = False

    # -- what a player expects ---------------------------------------------

    def result(self, kept: Kept) -> tuple[str, float] | None:
        """``(result, when)`` of a game, None for one never played."""
        if not kept.moved:
            return None
        if kept.won_at is not None:
            return "won", kept.won_at
        if kept.lost_at is not None:
            return "lost", kept.lost_at
        if kept.given_up_at is not None:
            return "lost", kept.given_up_at
        # left for a game opened here after its last change (an imported
        # game, never played here, was left also for a later import; going
        # to an imported game and playing it leaves no game, as going back
        # to an older game leaves none)
        untouched_import = kept.imported and not kept.touched
        later = [g.opened for g in self.games.values() if not g.imported or untouched_import]
        if any(opened > kept.last_change for opened in later):
            return "abandoned", kept.last_change
        return "unfinished", kept.last_change

    def expected(self, key: str | None = None) -> dict[str, Any]:
        """The block a player expects for one group (``stats_key``), or
        overall."""
        games = [g for g in self.games.values() if key is None or g.key == key]
        results = [(g, r) for g in games if (r := self.result(g)) is not None]
        count = {name: sum(1 for _, (r, _) in results if r == name)
                 for name in ("won", "lost", "abandoned", "unfinished")}
        ended = sorted(((g, r) for g, r in results if r[0] != "unfinished"),
                       key=lambda pair: (pair[1][1], pair[0].opened))
        streak = best = losing = worst = 0
        days: dict[str, dict[str, Any]] = {}
        for _, (result, when) in ended:
            streak = streak + 1 if result == "won" else 0
            losing = 0 if result == "won" else losing + 1
            best, worst = max(best, streak), max(worst, losing)
            day = datetime.fromtimestamp(when).date().isoformat()
            days.setdefault(day, {"date": day, "won": 0, "lost": 0, "abandoned": 0})[result] += 1
        wins = [g for g, (r, _) in results if r == "won" and not g.assisted]
        fewest = min((g.won_moves or 0 for g in wins), default=None)
        # (a win with no time reported: from its first move; an import
        # without times tells none)
        times = [t for g in wins
                 if (t := g.won_ms / 1000 if g.won_ms else g.won_at - g.first_move) > 0]  # type: ignore[operator]
        counted = count["won"] + count["lost"] + count["abandoned"]
        played = [g for g, _ in results]
        return {
            "played": len(results), **count, "finished": count["won"] + count["lost"],
            "win_rate": count["won"] / counted if counted else None,
            "current_streak": streak, "best_streak": best,
            "current_losing_streak": losing, "longest_losing_streak": worst,
            "fewest_moves": fewest,
            "fewest_moves_wins": sum(1 for g in wins if g.won_moves == fewest) if fewest is not None else 0,
            "fastest_seconds": round(min(times), 3) if times else None,
            "hints": sum(g.hints for g in played), "undos": sum(g.undos for g in played),
            "assisted": sum(1 for g in played if g.assisted),
            "active_seconds": round(sum(g.active_ms for g in played) / 1000, 3),
            "days": [days[d] for d in sorted(days)],
        }

    def keys(self) -> set[str]:
        return {g.key for g in self.games.values()}
