"""The Line a store keeps a game's line in: every version made by adding
and cutting moves holds exactly the moves of a list made the same way, and
the digest it keeps as it changes is the one made from the moves anew (the
replay stamp depends on it)."""

from __future__ import annotations

import random

from terrace.storage.line import Line


def test_a_line_changed_move_by_move_is_the_list_changed_so_with_the_same_digest() -> None:
    rng = random.Random(3)
    line, moves = Line(), list[str]()
    for _ in range(1_000):
        if rng.random() < 0.5:
            count = rng.choice([1, 1, 3, 300])
            added = [rng.choice(["s", "c1", "t1t2", "wf", "t10f1"]) for _ in range(count)]
            line, moves = line.extend(added), moves + added
        else:
            keep = rng.randint(0, len(moves))
            line, moves = line.prefix(keep), moves[:keep]
        assert line.to_list() == moves and len(line) == len(moves)
        assert line.digest() == Line.of(moves).digest() == Line.digest_of_joined("\0".join(moves), len(moves))
        if moves:
            at = rng.randrange(len(moves))
            start, stop = rng.randint(0, len(moves)), rng.randint(0, len(moves))
            assert line[at] == moves[at] and line[-1] == moves[-1]
            assert line.to_list(start, stop) == moves[start:stop]
        other = [*moves[: rng.randint(0, len(moves))], "x"]
        same = next((i for i, (a, b) in enumerate(zip(moves, other, strict=False)) if a != b),
                    min(len(moves), len(other)))
        assert line.common_prefix(Line.of(other)) == same == line.common_prefix(other)
    assert Line.of(["s", "5"]).digest() != Line.of(["s5"]).digest() != Line.of(["5s"]).digest()
