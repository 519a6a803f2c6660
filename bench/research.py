"""Research API speed: random rollouts of terrace.game.State, per rules.

Run it from the repository root::

    .venv/bin/python bench/research.py                 # Terrace, Empress of Italy, the largest rules
    .venv/bin/python bench/research.py --seconds 3 wood

For each rules it plays random games (a uniformly random legal action each
step, from deal 1 on, as docs/research.md's loop does) and prints the size
of the action space, of a tensor and the length limit, then the steps per
second of a rollout that reads nothing but the legal actions, of one that
also reads each observation in turn, and the milliseconds of one call of
each read (over positions taken from those games). ``largest`` is the most
any rules allow of what makes a step slow: eight decks, 20 piles and
foundation returns (Empress of Italy's rules otherwise).

Times are CPU time of this process (``time.process_time``). It is a
measurement, not a test: nothing fails, the figures only inform.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from terrace.cli.options import seconds_argument
from terrace.game import State, tensor_shape
from terrace.rules import RULE_OPTIONS, Rules
from terrace.variants import PRESETS, get_rules

READS = ("observation_string", "information_state_string", "observation_tensor", "information_state_tensor")
"""The observations a learner reads, each timed alone."""


def rules_named(name: str) -> Rules:
    """A preset, or ``largest``: the most decks and piles, with foundation returns."""
    if name == "largest":
        return get_rules("empress-of-italy", decks=RULE_OPTIONS["decks"].largest(),
                         piles=RULE_OPTIONS["piles"].largest())
    return get_rules(name)


Read = Callable[[State], object]


def rollouts(rules: Rules, seconds: float, read: Read | None) -> tuple[float, list[State]]:
    """Random games for ``seconds``: steps per second (``read`` called after
    each step) and some states met on the way."""
    rng = random.Random(1)
    steps, number, samples = 0, 1, []
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = State.new(rules, number)
        number += 1
        while not state.is_terminal() and time.process_time() - start < seconds:
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
            if read is not None:
                read(state)
            if steps % 97 == 1:
                samples.append(state.clone())
    return steps / (time.process_time() - start), samples


def call_ms(samples: list[State], name: str, seconds: float) -> float:
    """Milliseconds of one call of the method ``name`` over ``samples``."""
    calls = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for state in samples:
            getattr(state, name)()
        calls += len(samples)
    return 1000 * (time.process_time() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rules", nargs="*", default=["terrace", "empress-of-italy", "largest"],
                        metavar="RULES", help="presets, or largest (by default all three)")
    parser.add_argument("--seconds", type=seconds_argument, default=2.0, help="seconds per measurement")
    args = parser.parse_args()
    unknown = [name for name in args.rules if name not in (*PRESETS, "largest")]
    if unknown:
        parser.error(f"no such rules: {', '.join(unknown)} (a preset of {', '.join(PRESETS)}, or largest)")
    for name in args.rules:
        rules = rules_named(name)
        state = State.new(rules, 1)
        print(f"{name}: {state.num_distinct_actions()} actions, tensors of {tensor_shape(rules)[0]} floats, "
              f"at most {state.max_game_length()} steps")
        plain, samples = rollouts(rules, args.seconds, None)
        every, _ = rollouts(rules, args.seconds, lambda s: [getattr(s, read)() for read in READS])
        print(f"  steps/s: {plain:,.0f} (legal actions only), {every:,.0f} (and every observation)")
        for read in (*READS, "legal_actions", "clone"):
            print(f"  {read:26}{call_ms(samples, read, args.seconds / 4):8.3f} ms")


if __name__ == "__main__":
    main()
