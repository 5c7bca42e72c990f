"""Steps per CPU second of imago's 1,024-game vector environments, and nothing else.

    python bench/env_steps.py [--game go|othello] [--seconds 1.5] [--rounds 5]

Go 9x9 with ``minigo17`` observations, or Othello 8x8 with ``legal4``, uniform random legal
actions (``VectorEnv.random_actions``), auto-reset: the work ``imago bench envs.vector`` times
for imago, without the peers it runs beside it. It uses the public API only, so it measures any
build; ``bench/side_by_side.py`` runs it for two builds at once.
"""

from __future__ import annotations

import argparse
import statistics
import time

from imago.core.memory import retain_freed_memory
from imago.envs import VectorEnv

GAMES = 1024
SETTINGS = {"go": (9, "minigo17"), "othello": (8, "legal4")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=sorted(SETTINGS), default="go")
    parser.add_argument("--seconds", type=float, default=1.5, help="CPU seconds a round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    retain_freed_memory()  # as the imago command line does for its benchmarks
    size, features = SETTINGS[args.game]
    env = VectorEnv(args.game, GAMES, size=size, features=features, seed=1)
    env.reset()
    for _ in range(30):  # compile, and get the games under way
        env.step(env.random_actions())
    rates = []
    for _ in range(args.rounds):
        steps = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < args.seconds:
            env.step(env.random_actions())
            steps += GAMES
        rates.append(steps / elapsed)
    shown = ", ".join(f"{rate:,.0f}" for rate in rates)
    print(f"{args.game} {size}x{size} {features}: {statistics.median(rates):,.0f} steps/CPU-s")
    print(f"rounds: {shown}")


if __name__ == "__main__":
    main()
