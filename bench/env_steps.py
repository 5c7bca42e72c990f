"""Steps per CPU second of imago's 1,024-game vector environments, and nothing else.

    python bench/env_steps.py [--game go|othello] [--what step|observe|observe-one]
                              [--seconds 1.5] [--rounds 5]

Go 9x9 with ``minigo17`` observations, or Othello 8x8 with ``legal4``, uniform random legal
actions (``VectorEnv.random_actions``), auto-reset: ``--what step`` (the default) times the
work ``imago bench envs.vector`` times for imago, without the peers it runs beside it;
``observe`` the observations of the 1,024 games alone (``VectorEnv.observe``, us a game);
``observe-one`` one game's observation through the single-state path the PettingZoo and
Gymnasium environments take (``EnvConfig.observe_state``, us). It uses the public API only, so
it measures any build; ``bench/side_by_side.py`` runs it for two builds at once.
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
    parser.add_argument("--what", choices=("step", "observe", "observe-one"), default="step")
    parser.add_argument("--seconds", type=float, default=1.5, help="CPU seconds a round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    retain_freed_memory()  # as the imago command line does for its benchmarks
    size, features = SETTINGS[args.game]
    env = VectorEnv(args.game, GAMES, size=size, features=features, seed=1)
    env.reset()
    for _ in range(30):  # compile, and get the games under way
        env.step(env.random_actions())
    if args.what == "step":
        work, unit = (lambda: env.step(env.random_actions())), GAMES
    elif args.what == "observe":
        work, unit = env.observe, GAMES
    else:
        state = env.state(0)
        mask = env.action_mask[0]
        work, unit = (lambda: env.config.observe_state(state, legal=mask)), 1
    rates = []
    for _ in range(args.rounds):
        done = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < args.seconds:
            work()
            done += unit
        rates.append(done / elapsed)
    name = f"{args.game} {size}x{size} {features}"
    if args.what == "step":
        shown = ", ".join(f"{rate:,.0f}" for rate in rates)
        print(f"{name}: {statistics.median(rates):,.0f} steps/CPU-s")
    else:
        shown = ", ".join(f"{1e6 / rate:.3f}" for rate in rates)
        shown += f"; best {1e6 / max(rates):.3f}"  # for one call of a few us, the least noisy
        print(f"{name}, {args.what}: {1e6 / statistics.median(rates):.3f} us an observation")
    print(f"rounds: {shown}")


if __name__ == "__main__":
    main()
