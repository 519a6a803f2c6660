"""Hints that lead somewhere: the solver's winning line, kept for the game
and continued while it applies, and never a move back to a position the
game has already reached.

A hint that solves afresh each time can suggest the first move of one
winning line, then the first move of another that undoes it, for ever.
:func:`peek_hint` instead keeps the line it found (a :class:`KeptLine`,
which the caller stores per game and passes back) and, while the position
on the board is one the line passes through, suggests the line's next move.
A new line is only searched for when the player left the old one, and it
is used only when none of its positions is one the game has reached before.
When the solver knows nothing within the budget, the greedy rule of thumb
answers, and it too only suggests moves to new positions.

>>> from terrace.board import Board
>>> from terrace.variants import get_rules
>>> board = Board.from_number(4, get_rules("falling-star"))
>>> first = peek_hint(board, 5.0)
>>> first.kind, str(first.move) == first.kept.moves[0]
('winnable', True)
>>> board.push(first.move)
>>> again = peek_hint(board, 5.0, first.kept)
>>> again.kept.moves == first.kept.moves[1:], str(again.move) == first.kept.moves[1]
(True, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from terrace.board import Board, Status, given_board
from terrace.bounded import Bounded
from terrace.errors import TerraceError
from terrace.moves import Move
from terrace.rules import Rules
from terrace.solver.api import LOST, WON, Hint, solve
from terrace.solver.budget import check_budget, check_nodes
from terrace.solver.greedy import greedy_move
from terrace.solver.history import LOOKBACK, Key, pass_stage, same_pass_keys, takes_back
from terrace.solver.lines import NESTED_TRIES, REPLAY_CHECK, replays_to_win, returned, still_wins_without
from terrace.solver.observation import observe
from terrace.solver.prune import terrace_dead

Cancel = Callable[[], bool]

WINNABLE = "winnable"
"""The move starts a proved winning line."""
FURTHEST = "furthest"
"""The solver decided nothing in the time: the move starts the line that
put the most cards on the foundations (a lead, not a proof)."""
HEURISTIC = "heuristic"
"""The solver decided nothing in the time and its furthest line returns to
a position already reached: the greedy rule of thumb's move."""
NONE = "none"
"""No move to suggest; ``why`` says why."""

GAME_OVER = "game-over"
NO_WINNING_LINE = "no-winning-line"
NO_NEW_POSITION = "no-new-position"
NOTHING_USEFUL = "nothing-useful"
TERRACE_DEAD = "terrace-dead"
WIN_BEHIND = "win-behind"
WHY_NO_MOVE = (GAME_OVER, NO_WINNING_LINE, NO_NEW_POSITION, NOTHING_USEFUL, TERRACE_DEAD, WIN_BEHIND)
"""Why a hint offers no move: the game is over, the solver proved that no
winning line remains, every legal move returns to a position already
reached, the rule of thumb finds no move worth making, the terrace can
never be played out (a loss the fair hint proves from the cards in sight),
or every winning line the solver found passes a position the game has
already had (kind ``winnable``: take back ``back`` moves to it, and
``line`` wins from there)."""


@dataclass(frozen=True, slots=True)
class KeptLine:
    """A winning line and the position it starts from (a
    :meth:`Board.position` string)."""

    start: str
    moves: tuple[str, ...]
    behind_of: str | None = None
    """For a line that starts behind (a hint with ``why``
    :data:`WIN_BEHIND`), the position whose hint it was: asked again
    there, the hint says the same at once."""
    parsed: tuple[Move, ...] = field(default=(), compare=False, repr=False)
    """``moves`` read, when the line was made from moves (else empty, and
    they are read when needed): a hint continuing the line takes its rest
    from here rather than reading every move of it again, which cost each
    hint time in the length of the line still ahead (Empress of Italy 1,
    followed to its end: 322,006 moves read for 773 hints)."""
    board: Board | None = field(default=None, compare=False, repr=False)
    """The board at ``start`` (no moves; never changed), when the line was
    made in this process: a hint continuing the line walks it from a copy
    rather than reading ``start`` again (Board.from_position: 1-7 ms of
    four to eight decks, most of such a hint)."""

    def __reduce__(self) -> tuple[type[KeptLine], tuple[str, tuple[str, ...], str | None]]:
        """Pickled (to and from a solver process) without ``parsed``:
        44,000 moves took 0.5 s there and back, their texts 7 ms. A line
        with its moves read that leaves this process is remembered here
        (:data:`SENT`), so that when it comes back for the next hint (the
        web's hints of a game go to the process of its last one) its
        moves need not be read again."""
        if self.parsed and len(self.parsed) == len(self.moves):
            SENT.put(self, (self.parsed, self.board))
        return KeptLine, (self.start, self.moves, self.behind_of)


SENT_LINES = 16
"""How many kept lines sent out of this process (pickled) :data:`SENT`
remembers with their moves read..."""
SENT_MOVES = 200_000
"""... and how many of their moves in all."""
SENT: Bounded[KeptLine, tuple[tuple[Move, ...], Board | None]] = Bounded(
    SENT_LINES, SENT_MOVES, lambda sent: len(sent[0]))
"""The moves, read, and the start board (:attr:`KeptLine.board`) of the
kept lines last pickled here, by the line (its texts: an equal line
unpickled finds them)."""


@dataclass(frozen=True, slots=True)
class PeekHint:
    """A hint that looks at the face-down stock.

    ``kind``: ``winnable`` (``line`` wins from here; or, with no move and
    ``why`` :data:`WIN_BEHIND`, from the position ``back`` moves ago, which
    every winning line found passes), ``lost`` (no move: the solver proved
    no winning line remains), ``furthest``, ``heuristic`` or ``none`` (no
    move, ``why`` from :data:`WHY_NO_MOVE`). ``kept``: the line to pass to
    the next call for this game.
    """

    move: Move | None
    kind: str
    line: list[Move] = field(default_factory=list)
    why: str | None = None
    kept: KeptLine | None = None
    back: int = 0
    """How many moves to take back before ``line`` applies (0: it starts here)."""


def line_texts(found: PeekHint) -> list[str]:
    """``found``'s line written out: its kept line's texts when they were
    written from the line's moves (a hint continuing a long line writes
    none of it again), else each move's."""
    kept = found.kept
    if kept is not None and len(kept.parsed) == len(kept.moves) == len(found.line):
        return list(kept.moves)
    return [str(move) for move in found.line]


def continued(kept: KeptLine, board: Board, seen: AbstractSet[Key],
              until: float = math.inf) -> list[Move] | None:
    """The rest of ``kept`` from the last point where it passes through
    ``board``'s position (a detour that comes back here is skipped), when
    none of the rest's positions is in ``seen`` (position keys:
    :func:`~terrace.solver.history.same_pass_keys`); else None. The line
    is read only :data:`~terrace.solver.lines.REPLAY_CHECK` moves past the
    first such point, and never past the current stage (see
    :func:`~terrace.solver.history.pass_stage`) nor, after its first
    REPLAY_CHECK moves, once :func:`time.perf_counter` passes ``until``, so that continuing a long
    line costs as little at its end as at its start (an endgame with the
    stock used up is one stage: Empress of Italy's hunters left 44,000
    moves there, which took 1.6 s to read for a 0.1 s hint)."""
    rest = _rest(kept, board, seen, until)
    return None if rest is None else list(rest[1])


def _rest(kept: KeptLine, board: Board, seen: AbstractSet[Key],
          until: float) -> tuple[tuple[str, ...], tuple[Move, ...]] | None:
    """:func:`continued`'s rest of ``kept``, as its move texts and its
    moves (slices of ``kept``'s: no move of the rest is read or written
    again, when ``kept`` holds its moves read)."""
    try:
        moves = _known(kept)
        walker = _start(kept, board.rules)
        here, stage = board.position_key(), pass_stage(board)
        at = 0 if walker.position_key() == here else -1
        for index, text in enumerate(kept.moves):
            if at >= 0 and index >= at + REPLAY_CHECK:
                break
            if index and index % REPLAY_CHECK == 0 and time.perf_counter() > until:
                break
            walker.push(Move.parse(text) if moves is None else moves[index])
            now = pass_stage(walker)
            if now > stage:
                break
            if now == stage and walker.position_key() == here:
                at = index + 1
        if at < 0 or at >= len(kept.moves):
            return None
        rest = _parsed(kept)[at:]
    except TerraceError:
        return None
    return (kept.moves[at:], rest) if _fresh_line(board, rest, seen, until, REPLAY_CHECK) else None


def _known(kept: KeptLine) -> tuple[Move, ...] | None:
    """``kept``'s moves as read before (its own, or those :data:`SENT`
    holds for it), else None."""
    if len(kept.parsed) == len(kept.moves):
        return kept.parsed
    sent = _sent(kept)
    return None if sent is None else sent[0]


def _sent(kept: KeptLine) -> tuple[tuple[Move, ...], Board | None] | None:
    """What :data:`SENT` holds for ``kept``, else None."""
    return SENT.get(kept) if isinstance(kept.moves, tuple) else None  # (a list of texts: no key)


def _start(kept: KeptLine, rules: Rules) -> Board:
    """A board at ``kept.start`` to walk the line on: a copy of the one
    kept with it (or in :data:`SENT`), else the position read."""
    held = kept.board
    if held is None and not kept.parsed:
        sent = _sent(kept)
        held = None if sent is None else sent[1]
    if held is not None and held.rules == rules:
        return held.copy(stack=False)
    return Board.from_position(kept.start, rules)


def _parsed(kept: KeptLine) -> tuple[Move, ...]:
    """``kept``'s moves, read (:class:`TerraceError` when one is no move)."""
    known = _known(kept)
    return tuple(Move.parse(text) for text in kept.moves) if known is None else known


def given_line(board: Board, line: Sequence[Move], until: float) -> KeptLine | None:
    """``line``, a winning line that an earlier hint of this game gave, as
    a :class:`KeptLine` to continue: it starts where the game's last moves
    (as many of them as match, none when it starts from ``board``'s
    position) began to follow it, and played from there it wins, which is
    checked by replaying it by ``until``; else None (the game left it, it
    does not win, or its replay would take longer)."""
    texts = [str(move) for move in line]
    if not texts:
        return None
    played = [str(move) for move in board.move_stack[-(len(texts) - 1):]] if len(texts) > 1 else []
    followed = _overlap(played, texts[:-1])
    start = board.copy()
    for _ in range(followed):
        start.pop()
    if not replays_to_win(start, line, until):
        return None
    return KeptLine(start.position(), tuple(texts), parsed=tuple(line), board=start.copy(stack=False))


def _overlap(played: list[str], line: list[str]) -> int:
    """The length of the longest end of ``played`` that is a start of
    ``line`` (the prefix function of ``line``, then ``played`` run through it)."""
    border = [0] * len(line)
    for i in range(1, len(line)):
        k = border[i - 1]
        while k and line[i] != line[k]:
            k = border[k - 1]
        border[i] = k + 1 if line[i] == line[k] else k
    k = 0
    for word in played:
        while k and (k == len(line) or word != line[k]):
            k = border[k - 1]
        if k < len(line) and word == line[k]:
            k += 1
    return k


def _fresh_line(board: Board, line: Sequence[Move], seen: AbstractSet[Key], until: float = math.inf,
                horizon: int | None = None) -> bool:
    """True when playing ``line`` from ``board`` reaches no position in
    ``seen``, the game's positions of ``board``'s stage (see
    :func:`~terrace.solver.history.same_pass_keys`): the line is
    played only until it leaves that stage, since none later can be one,
    and only for ``horizon`` moves when given (a line being continued was
    looked at when it was found, and the game has followed it since); once
    :func:`time.perf_counter` passes ``until`` (its first
    :data:`~terrace.solver.lines.REPLAY_CHECK` moves are always looked
    at) the rest is taken as new. Each later hint looks at the rest of the
    line again from where it stands, so no hint suggests a move to a
    position reached."""
    copy = board.copy(stack=False)
    stage = pass_stage(board)
    try:
        for index, move in enumerate(line):
            if index == horizon:
                return True
            if index and index % REPLAY_CHECK == 0 and time.perf_counter() > until:
                return True
            copy.push(move)
            if copy.position_key() in seen:
                return False
            if pass_stage(copy) != stage:
                return True
    except TerraceError:
        return False
    return True


def game_over(board: Board) -> bool:
    """True when no move is left to suggest: the game is won or lost, or
    nothing is legal."""
    return board.status in (Status.WON, Status.LOST) or not board.legal_moves


def why_no_move(board: Board) -> str:
    """Why a hint without a move has none, when the solver did not say:
    the game is over, or every move returns to a position already reached."""
    return GAME_OVER if game_over(board) else NO_NEW_POSITION


def dead_end_hint(board: Board) -> PeekHint | None:
    """No move once the terrace can never be played out (the reserve
    schedule, which needs no face-down card, proves the game lost): kind
    ``lost``, why ``terrace-dead``; else None.

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(61, get_rules("generals-patience"))
    >>> dead_end_hint(board) is None
    True
    >>> board.push_text("c1")
    Move.parse('c1')
    >>> dead_end_hint(board)
    PeekHint(move=None, kind='lost', line=[], why='terrace-dead', kept=None, back=0)
    """
    if game_over(board) or not terrace_dead(board):
        return None
    return PeekHint(None, LOST, why=TERRACE_DEAD)


def peek_hint(board: Board, seconds: float, kept: KeptLine | None = None,
              cancel: Cancel | None = None, nodes: int | None = None) -> PeekHint:
    """The hint for ``board`` (its move stack is the game so far), with the
    line ``kept`` from the last hint of this game, within ``seconds`` and,
    when given, ``nodes`` positions of its solves in all (each stops within
    a turn of :data:`~terrace.solver.api.NODE_SLICE` positions past its
    share), so that the answer is the same on any machine."""
    seconds = check_budget(seconds)
    nodes = check_nodes(nodes, "nodes")
    deadline = time.perf_counter() + seconds
    if game_over(board):
        return PeekHint(None, NONE, why=GAME_OVER)
    dead = dead_end_hint(board)  # (the fair hint's reason: a solve said only "no winning line")
    if dead is not None:
        return dead
    seen = same_pass_keys(board)
    if kept is not None:
        rest = _rest(kept, board, seen, deadline)
        if rest is not None:  # (kept from here on: the next hint reads it from here)
            return _winnable(board, list(rest[1]), seen, deadline, rest)
        if kept.behind_of is not None and kept.behind_of == board.position():
            again = _behind_again(board, kept)
            if again is not None:  # (a fresh solve in less time could prove nothing)
                return again
    start = board.copy(stack=False)
    left = max(deadline - time.perf_counter(), 0.0)  # (the walk above took its share)
    result = solve(start, max_seconds=left, max_nodes=nodes, all_candidates=False, cancel=cancel)
    if result.result == LOST:
        return PeekHint(None, LOST, why=NO_WINNING_LINE)
    line = list(result.moves) if result.result == WON else []
    if line and not _fresh_line(board, line, seen, deadline):
        # (read before the detours take the time left: past it, only its first moves would be)
        behind = win_behind(board, line, seen, deadline)
        if behind is not None and behind.move is not None:  # it comes back here: its rest wins from here
            return behind
        left_nodes = None if nodes is None else max(nodes - result.nodes, 0)
        line = _fresh_detour(board, seen, deadline, cancel, left_nodes)
        if not line and behind is not None:  # every winning line found passes a position the game has had
            return behind
    if line:
        return _winnable(board, line, seen, deadline)
    best = result.best_move
    if (result.result != WON and best is not None and _fresh_line(board, [best], seen)
            and not takes_back(board, best)):
        return PeekHint(best, FURTHEST)
    return rule_of_thumb(board)


def win_behind(board: Board, line: list[Move], seen: AbstractSet[Key],
               until: float = math.inf) -> PeekHint | None:
    """The hint for a winning ``line`` from ``board`` that passes a position
    in ``seen`` (one the game has had): the rest of the line from the last
    such position, which wins from there and reaches no position in
    ``seen``. From the current position that rest is a hint to play on
    (kind ``winnable``); from an earlier one, the hint has no move to play
    forward (a move there would send the game round a loop, and a fresh
    search found no other win in the time) and says so: ``why``
    :data:`WIN_BEHIND`, ``back`` the moves to take back to reach it, with
    the line kept from there, so that the next hint continues it. The line
    is read in ``board``'s stage only (no later position is in ``seen``)
    and, past its first :data:`~terrace.solver.lines.REPLAY_CHECK` moves,
    until ``until``; None when no position of it is in ``seen`` or the
    position lies further back than the game's kept moves."""
    copy = board.copy(stack=False)
    stage = pass_stage(board)
    last, key = -1, None
    try:
        for index, move in enumerate(line):
            if index and index % REPLAY_CHECK == 0 and time.perf_counter() > until:
                break
            copy.push(move)
            if pass_stage(copy) != stage:
                break
            if copy.position_key() in seen:
                last, key = index, copy.position_key()
    except TerraceError:
        return None
    rest = list(line[last + 1:])
    if last < 0 or not rest:
        return None
    walked = _walk_back(board, lambda earlier: earlier.position_key() == key)
    if walked is None:
        return None
    earlier, back = walked
    if back == 0:
        return _winnable(board, rest, seen, until)
    kept = KeptLine(earlier.position(), tuple(str(m) for m in rest), board.position(), tuple(rest),
                    earlier.copy(stack=False))
    return PeekHint(None, WINNABLE, rest, why=WIN_BEHIND, kept=kept, back=back)


def _behind_again(board: Board, kept: KeptLine) -> PeekHint | None:
    """The win behind that ``kept`` was hinted as at ``board``'s position,
    said again: take back as many moves as lead to ``kept.start``; None
    when that is no longer among the game's last :data:`LOOKBACK` moves."""
    try:  # (by position keys: a position string of 8 decks for each move taken back cost 0.15-1 ms)
        key = _start(kept, board.rules).position_key()
        line = list(_parsed(kept))
    except TerraceError:
        return None
    walked = _walk_back(board, lambda earlier: earlier.position_key() == key)
    if walked is None or not walked[1]:
        return None
    return PeekHint(None, WINNABLE, line, why=WIN_BEHIND, kept=kept, back=walked[1])


def _walk_back(board: Board, there: Callable[[Board], bool]) -> tuple[Board, int] | None:
    """A copy of ``board`` with its last moves taken back until ``there``
    holds (none when it holds already), and how many were; None when no
    position among the game's last :data:`LOOKBACK` moves is there."""
    earlier = board.copy()
    back = 0
    while not there(earlier):
        if not earlier.move_stack or back >= LOOKBACK:
            return None
        earlier.pop()
        back += 1
    return earlier, back


def _winnable(board: Board, line: list[Move], seen: AbstractSet[Key], until: float,
              kept: tuple[tuple[str, ...], tuple[Move, ...]] | None = None) -> PeekHint:
    """The hint that starts the winning ``line`` from ``board``, kept for the
    next hint, without the detours at its head (:func:`direct`); ``kept``:
    ``line``'s texts and moves as a kept line holds them, when it is the
    rest of one (kept as they are while no detour is dropped, and past the
    last move dropped when one is: :func:`_texts_of`)."""
    shorter = direct(board, line, seen, until)
    if kept is None:
        kept = tuple(str(m) for m in shorter), tuple(shorter)
    elif shorter is not line:
        kept = _texts_of(shorter, line, kept[0]), tuple(shorter)
    start = board.copy(stack=False)
    return PeekHint(shorter[0], WINNABLE, shorter,
                    kept=KeptLine(start.position(), kept[0], parsed=kept[1], board=start))


def _texts_of(shorter: list[Move], line: Sequence[Move], texts: tuple[str, ...]) -> tuple[str, ...]:
    """The texts of ``shorter``, which is ``line`` (whose texts are
    ``texts``) with some of its moves left out (:func:`direct`'s detours,
    the same move objects): the moves up to the last one left out are
    matched and their texts taken, the rest is a slice of ``texts``, so
    that dropping a detour near the head of a line of 44,000 moves writes
    none of them (it wrote them all). Written afresh when ``shorter`` is no
    such part of ``line``.

    >>> line = [Move.parse(t) for t in ("t1t2", "wf", "t2t1", "s", "wf")]
    >>> _texts_of([line[1], line[3], line[4]], line, ("t1t2", "wf", "t2t1", "s", "wf"))
    ('wf', 's', 'wf')
    """
    dropped = len(line) - len(shorter)
    head: list[str] = []
    at = 0  # (where in line the next move of shorter is looked for)
    for index, move in enumerate(shorter):
        if at - index == dropped:  # (every move left out lies behind: the rest is line's)
            return (*head, *texts[at:])
        while at < len(line) and line[at] is not move:
            at += 1
        if at == len(line):
            break
        head.append(texts[at])
        at += 1
    else:
        return tuple(head)
    return tuple(str(m) for m in shorter)


def direct(board: Board, line: list[Move], seen: AbstractSet[Key], until: float = math.inf) -> list[Move]:
    """The winning ``line`` from ``board`` without the detours at its head:
    while its first move shifts a card to another pile that a later move
    takes straight back (nothing touching either pile in between) and the
    line still wins without the two (the two lines meet again within
    :data:`~terrace.solver.lines.REPLAY_CHECK` moves: continuing a long
    line stays as cheap as before), reaching no position in ``seen``, both
    are dropped (checked by :func:`time.perf_counter` ``until``; the line
    is kept as it is past then). A line made in a hurry (the solver tidies
    its lines in a share of its budget, which a busy machine cuts short)
    otherwise had the hint say "move the card from pile 2 to pile 9" and
    three hints later "from pile 9 back to pile 2". The first pair is
    looked at whatever the clock says (its check is bounded by the
    REPLAY_CHECK moves): a hint whose time the walk along a long kept line
    had spent (a loaded machine) hinted the detour, and a later hint took
    the card back. A detour inside the detour (a card put on the moved one
    and taken back, another pile touched in between) is dropped first
    when that lets the first move's pair go
    (:func:`~terrace.solver.lines.returned`)."""
    first = True
    while len(line) > 2 and line[0].source == "t" and line[0].target == "t":
        if not first and time.perf_counter() > until:
            break
        check = math.inf if first else until
        first = False
        inner, back = returned(board, line, 0, check, [NESTED_TRIES])
        if back < 0 or not still_wins_without(board, inner, 0, back, check, REPLAY_CHECK):
            break
        shorter = inner[1:back] + inner[back + 1:]
        if not _fresh_line(board, shorter, seen, check, REPLAY_CHECK):
            break
        line = shorter
    return line


KEPT_LINES = 256
"""How many winning lines :func:`hint` remembers (the most recent ones),
each under the position its hinted move leads to and the one it was found
at (two entries)..."""
KEPT_MOVES = 1_000_000
"""... and how many of their moves in all (about 8 MB: a hint continuing
a line keeps its rest, and an endgame line can be 44,000 moves long)."""


class KeptLines:
    """The winning lines of the latest hints, by the position (and rules)
    their hinted move leads to and the one they were found at, so that a
    stateless :func:`hint` continues the line a player followed, or was
    shown and asked again about, instead of solving afresh (a fresh solve
    finds another winning line each time, and following those could wander
    for thousands of moves). Thread-safe; the oldest line is forgotten
    first, once more than ``size`` lines or ``moves`` moves are kept (a
    line kept under two positions counts once among the lines, twice among
    the moves)."""

    def __init__(self, size: int = KEPT_LINES, moves: int = KEPT_MOVES) -> None:
        self._lines: Bounded[tuple[Rules, Key], KeptLine] = Bounded(size, moves, kept_moves, shared=True)

    def recall(self, board: Board) -> KeptLine | None:
        """The line kept for ``board``'s position, else None."""
        return self._lines.recall((board.rules, board.position_key()))

    def keep(self, board: Board, found: PeekHint) -> None:
        """Remember ``found``'s line (a hint for ``board``) under the
        position its move leads to (or, for a line that starts ``back``
        moves ago, under that position), and under ``board``'s own, so that
        a hint asked again there continues it rather than solving afresh
        (a fresh solve in less time may prove nothing: a proved winning
        line gave way to an undecided lead); a hint without a line keeps
        nothing."""
        if found.kept is None or (found.move is None and not found.back):
            return
        if found.move is None:
            after = board.copy()
            for _ in range(found.back):
                after.pop()
        else:
            after = board.copy(stack=False)
            after.push(found.move)
        self._lines.put_all([(board.rules, after.position_key()), (board.rules, board.position_key())],
                            found.kept)

    def clear(self) -> None:
        """Forget every line."""
        self._lines.clear()


def kept_moves(line: KeptLine) -> int:
    """A kept line's weight: its moves."""
    return len(line.moves)


KEPT = KeptLines()
"""The lines :func:`hint` keeps in this process."""


def hint(board: Board, seconds: float = 1.0, cancel: Cancel | None = None) -> Hint:
    """The move to play now, looking at the face-down stock; ``board``'s
    move stack is the game so far, and no hint returns to a position it has
    reached. A winning line found once is continued (:data:`KEPT`) while
    the player follows it, so following the hints ends the game within the
    first winning line's length (or once every move returns to a position
    already reached). ``winnable``: the move starts ``line``, a proved
    winning line. ``lost``: no line wins any more (no move). ``furthest``:
    undecided in the time, the first move of the line that put the most
    cards up. ``heuristic``: undecided, and that move returns to a position
    already reached: the rule of thumb's move. ``none``: no move leads
    anywhere new, or the game is over. ``winnable`` with no move: every
    winning line found passes a position the game has had; ``line`` wins
    from the position ``back`` moves ago (take them back to follow it).

    >>> from terrace.variants import get_rules
    >>> board = Board.from_number(4, get_rules("falling-star"))
    >>> found = hint(board, 2.0)
    >>> found.kind, found.move == found.line[0]
    ('winnable', True)
    >>> board.push(found.move)
    >>> hint(board, 2.0).line == found.line[1:]   # the same line, continued
    True
    """
    given_board(board, "hint")
    seconds = check_budget(seconds)
    found = peek_hint(board, seconds, KEPT.recall(board), cancel=cancel)
    KEPT.keep(board, found)
    return Hint(found.move, found.kind, list(found.line), found.back)


def _fresh_detour(board: Board, seen: AbstractSet[Key], deadline: float, cancel: Cancel | None,
                  nodes: int | None = None) -> list[Move]:
    """A winning line that reaches no position in ``seen``, starting with
    one of the moves to a new position, each tried with an equal share of
    the time left (and of ``nodes`` positions, when given); empty when none
    is found in time."""
    fresh = []
    for move in board.legal_moves:
        after = board.copy(stack=False)
        after.push(move)
        if after.position_key() not in seen:
            fresh.append((move, after))
    for index, (move, after) in enumerate(fresh):
        share = (deadline - time.perf_counter()) / (len(fresh) - index)
        if share <= 0 or (cancel is not None and cancel()):
            break
        positions = None if nodes is None else nodes // (len(fresh) - index)
        found = solve(after, max_seconds=share, max_nodes=positions, all_candidates=False, cancel=cancel)
        if nodes is not None:
            nodes = max(nodes - found.nodes, 0)
        line = [move, *found.moves]
        if found.result == WON and _fresh_line(board, line, seen, deadline):
            return line
    return []


def rule_of_thumb(board: Board) -> PeekHint:
    """The greedy player's move (see :func:`terrace.solver.greedy.greedy_move`),
    which never returns to a position already reached; no move, and why,
    when there is none."""
    seen = observe(board)
    if not seen.legal:
        return PeekHint(None, NONE, why=GAME_OVER)
    if not seen.moves:
        return PeekHint(None, NONE, why=NO_NEW_POSITION)
    move = greedy_move(seen)
    if move is None:
        return PeekHint(None, NONE, why=NOTHING_USEFUL)
    return PeekHint(move, HEURISTIC)
