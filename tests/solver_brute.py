"""A plain exhaustive search over engine positions, with no pruning at all:
the reference the solver's verdicts are checked against; random endgame
positions for it (with a card or none in each pile, or with built runs,
equal piles and empty foundations), and winning lines with detours
slipped in."""

from __future__ import annotations

import random

from terrace.board import Board
from terrace.building import COLOUR_KEY, SUIT_KEY, builds_down
from terrace.cards import CODE, RANKS, RED, make_card
from terrace.moves import Move
from terrace.rules import Rules, SpaceRule

RULE_SETS = [
    Rules(decks=1, reserve=6, piles=2, candidates=0),
    Rules(decks=1, reserve=6, piles=2, candidates=0, foundations="suit"),
    Rules(decks=1, reserve=6, piles=3, candidates=0, spaces="free"),
    Rules(decks=1, reserve=5, piles=2, candidates=0, spaces="waste", redeals=1),
    Rules(decks=2, reserve=6, piles=2, candidates=0),
    Rules(decks=2, reserve=6, piles=3, candidates=0, foundations="suit"),
    Rules(decks=1, reserve=4, piles=2, candidates=0, foundation_return=True),
    Rules(decks=1, reserve=5, piles=2, candidates=0, foundations="suit", spaces="waste", redeals=2),
    Rules(decks=3, reserve=7, piles=3, candidates=0),
    Rules(decks=4, reserve=7, piles=3, candidates=0, foundations="suit"),
    Rules(decks=2, reserve=5, piles=3, candidates=0, spaces="free", redeals=1),
]
"""Small rule sets covering every option: one to four decks, alternate and
suit foundations, every space rule, redeals, foundation-return. (Free spaces
with foundation-return are left out: every foundation card can then come
back down, and the plain search never finishes.)"""


def cards_in_play(rules: Rules) -> int:
    """How many cards an endgame of these rules keeps off the foundations,
    so that the plain search below can still finish on most of them."""
    if rules.foundation_return:
        return 12
    return 13 if rules.spaces is SpaceRule.FREE else 15


ENDGAME_SEEDS = 30
"""The seeds of the endgames of each rule set that ENDGAME_VERDICTS keeps."""

ENDGAME_VERDICTS = (
    "wwwwwwwwllwlwlwllwwwwwwwlwlwww",  # RULE_SETS[0]
    "wlwllwlwllllwlwllwwlwwwwlwllww",  # RULE_SETS[1]
    "wwwwwwwwwwwlwwwwwlwwwwwwwwwllw",  # RULE_SETS[2]
    "wwwwwwwwllwlwwwwlwwwwwww?wlwww",  # RULE_SETS[3]
    "w?wwwwwwwwwwwwwwlwwwwwwwwwwwww",  # RULE_SETS[4]
    "wlwwwwlwwwwwwwwwlwwwwwwwwwwwww",  # RULE_SETS[5]
    "wwwwwwwlwwwwwwwwwwlw?wwwwwwwww",  # RULE_SETS[6]
    "w?wwlwlwllllwwwwlwwwwwww?wlwww",  # RULE_SETS[7]
    "wwwwwwwwwwwwwwwwwwwwwwwwwwwwww",  # RULE_SETS[8]
    "wwwwwwwwwwwwwwwwwwwwwwwwwwwwww",  # RULE_SETS[9]
    "wwwwwwwwwwwwwwwwwwwwwwwwwwwwww",  # RULE_SETS[10]
)
"""What :func:`brute_force` says, within 20,000 positions, of the endgames
``endgame_position(seed, rules, cards_in_play(rules))`` of seeds 0-29 of
each rule set of RULE_SETS (in that order): w won, l lost, ? more positions
(never searched again). test_solver's
test_verdicts_match_plain_exhaustive_search searches every w and l again on
each run and fails where one has changed; the other tests read them here
(each file that read them searched them again: 9 CPU s of test_solver_core,
4 of test_endgame; the four ? cost 3.7 s to give up on)."""


def endgame_verdict(rules: Rules, seed: int) -> str | None:
    """The verdict ENDGAME_VERDICTS keeps of the endgame of ``rules`` and
    ``seed``: ``"won"``, ``"lost"``, or None when the plain search gives up."""
    return {"w": "won", "l": "lost", "?": None}[ENDGAME_VERDICTS[RULE_SETS.index(rules)][seed]]


_VERDICTS: dict[tuple[Rules, str, int], str | None] = {}
"""The verdicts found in this process: the solver's, the hunters' and the
endgame search's tests check the same endgame positions against this
search (a pure-Python one: it took a fifth of their time, and repeated)."""


PLAIN_BEYOND = 50_000
"""The plain search of the compiled core (no pruning) loses some positions
only after more positions than this: :func:`brute_force` gives up on them at
20,000 (of the 21 endgames of RULE_SETS and built positions that the plain
search lost after more than 15,000, none beyond 42,139 finished, and the 8
beyond 43,813 gave up, at 0.6-1.5 CPU s each), so a test skips it there."""


def brute_force(board: Board, max_positions: int = 200_000) -> str | None:
    """``"won"`` or ``"lost"`` by trying every legal move from every
    reachable position (keyed by the exact position), or None when
    there are more than ``max_positions`` positions. Remembered by position
    and rules for the rest of the process."""
    key = (board.rules, board.position(), max_positions)
    if key not in _VERDICTS:
        _VERDICTS[key] = _search(board, max_positions)
    return _VERDICTS[key]


def _search(board: Board, max_positions: int) -> str | None:
    start = board.copy(stack=False)
    # (position_key: equal exactly when the position strings are, for
    # boards of one rules, and far cheaper to build than the string)
    seen = {start.position_key()}
    stack = [start]
    while stack:
        current = stack.pop()
        if current.is_won():
            return "won"
        # Each move tried on the board itself and taken back; a board is
        # copied only for a new position. The first legal move (one to a
        # foundation, when there is one) is pushed last, so tried first: a
        # won position is found in a few dozen positions where the last
        # move first wandered through 20,000 and gave up.
        for move in reversed(list(current.legal_moves)):
            current.push(move)
            key = current.position_key()
            if key not in seen:
                if len(seen) >= max_positions:
                    return None
                seen.add(key)
                stack.append(current.copy(stack=False))
            current.pop()
    return "lost"


def endgame_position(seed: int, rules: Rules, in_play: int = 13) -> Board:
    """A random position in which all but about
    ``in_play`` cards already lie on the foundations."""
    rng = random.Random(seed)
    base = rng.randrange(13)
    # foundation f starts with suit f; in alternate-colour games it then
    # alternates with the suit that no other foundation needs at that height
    partner = {0: 1, 1: 3, 2: 0, 3: 2} if not rules.in_suit else {s: s for s in range(4)}
    chains = []
    for suit in [s for _ in range(rules.decks) for s in range(4)]:
        chain = []
        for j in range(13):
            s = suit if j % 2 == 0 else partner[suit]
            chain.append(make_card((base + j) % 13, s))
        chains.append(chain)
    heights = [13] * len(chains)
    left = in_play
    while left > 0:
        f = rng.randrange(len(chains))
        if heights[f] > 1:
            heights[f] -= 1
            left -= 1
    foundations = [chain[:h] for chain, h in zip(chains, heights, strict=True)]
    rest = [c for chain, h in zip(chains, heights, strict=True) for c in chain[h:]]
    rng.shuffle(rest)
    reserve = [rest.pop() for _ in range(min(rules.reserve, rng.randrange(0, rules.reserve + 1), len(rest)))]
    piles: list[list[int]] = [[] for _ in range(rules.piles)]
    for pile in piles:
        if rest:
            pile.append(rest.pop())
    waste = [rest.pop() for _ in range(min(len(rest), rng.randrange(0, 6)))]
    stock = rest
    if rules.spaces is not SpaceRule.AUTO and rng.random() < 0.5 and piles[-1]:
        stock.append(piles[-1].pop())

    def run(cards: list[int]) -> str:
        return "".join(CODE[c] for c in cards) or "-"

    text = " ".join([
        RANKS[base],
        run(reserve),
        ",".join("".join(CODE[c] for c in f) for f in foundations),
        ",".join("".join(CODE[c] for c in p) for p in piles),
        run(waste),
        run(stock),
        "0",
    ])
    return Board.from_position(text, rules)


def built_position(rng: random.Random, rules: Rules, in_play: int) -> Board:
    """A random position with about ``in_play`` cards off the foundations,
    of what :func:`endgame_position` never makes: piles of built runs (long
    ones too), piles equal to the one before them by key (rank and colour,
    or the card itself in suit games), empty foundations with base cards
    still in play, foundations built from any suits their rule allows, and
    passes through the stock already used."""
    base = rng.randrange(13)
    count = rules.foundation_count
    keys = SUIT_KEY if rules.in_suit else COLOUR_KEY
    if rules.in_suit:
        suits = [s for _ in range(rules.decks) for s in range(4)]
        chains = [[make_card((base + j) % 13, s) for j in range(13)] for s in suits]
    else:
        reds = [True, False] * (count // 2)  # the colour of each foundation's base card
        rng.shuffle(reds)
        chains = [[] for _ in range(count)]
        for j in range(13):
            free = {red: [make_card((base + j) % 13, s) for _ in range(rules.decks) for s in range(4)
                          if RED[s] == red] for red in (True, False)}
            for cards in free.values():
                rng.shuffle(cards)
            for f in range(count):
                chains[f].append(free[reds[f] != (j % 2 == 1)].pop())
    rng.shuffle(chains)
    heights = [13] * count
    left = in_play
    lowered = rng.sample(range(count), min(count, rng.randint(1, 4)))  # (a few, so some empty)
    while left > 0 and any(h > (f == 0) for f, h in enumerate(heights)):
        f = rng.choice(lowered) if any(heights[g] > (g == 0) for g in lowered) else rng.randrange(count)
        if heights[f] > (f == 0):  # (the first foundation is started: the base rank is known)
            heights[f] -= 1
            left -= 1
    rest = [c for chain, h in zip(chains, heights, strict=True) for c in chain[h:]]
    rng.shuffle(rest)
    reserve = [rest.pop() for _ in range(min(rules.reserve, rng.randrange(rules.reserve + 1), len(rest)))]
    piles: list[list[int]] = [[] for _ in range(rules.piles)]
    for j, pile in enumerate(piles):
        if not rest or rng.random() < 0.15:
            continue
        if j and piles[j - 1] and rng.random() < 0.4:
            for card in piles[j - 1]:  # a pile equal to the one before, as far as the cards allow
                same = [c for c in rest if keys[c] == keys[card]]
                if not same:
                    break
                pile.append(same[0])
                rest.remove(same[0])
            if pile:
                continue
        pile.append(rest.pop())
        while rng.random() < 0.75:
            fits = [c for c in rest if builds_down(pile[-1], c)]
            if not fits:
                break
            pile.append(fits[rng.randrange(len(fits))])
            rest.remove(pile[-1])
    waste = [rest.pop() for _ in range(min(len(rest), rng.randrange(6)))]
    stock = rest
    if rules.spaces is SpaceRule.AUTO:
        for pile in piles:
            if not pile and (waste or stock):
                pile.append((waste or stock).pop())

    def run(cards: list[int]) -> str:
        return "".join(CODE[c] for c in cards) or "-"

    text = " ".join([
        RANKS[base], run(reserve),
        ",".join("".join(CODE[c] for c in chain[:h]) for chain, h in zip(chains, heights, strict=True)),
        ",".join("".join(CODE[c] for c in p) for p in piles) or "-",
        run(waste), run(stock), str(rng.randrange(rules.redeals + 1)),
    ])
    return Board.from_position(text, rules)


def with_detours(board: Board, line: list[Move], seed: int) -> list[Move]:
    """``line`` (a winning line) with out-and-back pile moves slipped in at
    random, each a plain return to the same position: still a winning line."""
    rng = random.Random(seed)
    game = board.copy(stack=False)
    out: list[Move] = []
    for move in line:
        shifts = [m for m in game.legal_moves if m.source == "t" and m.target == "t"]
        if shifts and rng.random() < 0.3:
            shift = rng.choice(shifts)
            before = game.position()
            game.push(shift)
            back = Move.parse(f"t{shift.target_index}t{shift.source_index}")
            if game.is_legal(back):
                game.push(back)
                if game.position() == before:
                    out += [shift, back]
                else:
                    game.pop()
                    game.pop()
            else:
                game.pop()
        game.push(move)
        out.append(move)
    return out
