"""Where a move of the public Go API spends its time beside OpenSpiel's: a probe.

    python bench/go_move_floor.py [--games 80] [--rounds 5]

Plays random 9x9 games (default rules: positional superko) four ways, one game of each in turn
so that load hits all alike, and prints CPU microseconds a move (medians over ``--rounds`` of
``--games`` games each) and their ratios to OpenSpiel's:

* ``public``: ``position = position.play(choice(position.legal_moves()))`` until the game is
  over, as ``imago bench go.openspiel`` times it;
* ``kernel``: the same moves' work through the kernel entry that :meth:`GoPosition.play` calls
  (a new state array a move, kept for the rest of the game as the positions' history is; the
  move, the superko check and the next legal-move list), driven by the least Python that can
  drive it: no position objects, a random index instead of ``random.choice``;
* ``openspiel``: ``state.apply_action(choice(state.legal_actions()))`` until the game ends;
* ``openspiel_index``: the same with a random index instead of ``random.choice``.

``public`` over ``openspiel`` is #17's headline; ``kernel`` over ``openspiel_index`` is what is
left when the Python objects of an immutable position (the position, its legal-move view, the
``Move``) cost nothing. Measured 2026-11-27 (this 2-core machine): see BENCHMARKS.md, "Go rules".
The script reaches into the private kernel entry of ``imago.games.go.position``; it is a probe,
not an API.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from imago.bench.go import openspiel_games, public_api_games
from imago.core.memory import retain_freed_memory
from imago.games.go import new_game
from imago.games.go import position as go_position

Game = Callable[[random.Random], tuple[int, float]]
_clock = time.thread_time


def _kernel(rng: random.Random) -> tuple[int, float]:
    first = new_game(9)
    frame = first._f
    s = first._s
    length, keys_at, nn, code = frame.length, frame.keys_at, frame.nn, frame.code
    advance, empty, int64 = go_position._advance, np.empty, np.dtype(np.int64)
    history = []
    moves = 0
    uniform = rng.random
    start = _clock()
    n = int(s[length + nn + 1])
    keys = int(s[length + nn + 2])
    while n:
        child = empty(keys_at + 1 + keys, int64)  # as GoPosition.play sizes it
        result = advance(s, child, code, s[length + int(uniform() * n)])
        n = (-1 - result) & 0xFFFF
        keys = (-1 - result) >> 16
        history.append(child)
        s = child
        moves += 1
    return moves, _clock() - start


def _openspiel_by_index() -> Game:
    import pyspiel

    go = pyspiel.load_game("go", {"board_size": 9})

    def game(rng: random.Random) -> tuple[int, float]:
        state = go.new_initial_state()
        moves = 0
        uniform = rng.random
        start = _clock()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(uniform() * len(legal))])
            moves += 1
        return moves, _clock() - start

    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=80, help="games of each loop a round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    retain_freed_memory()  # as the imago command line does for its benchmarks
    rng = random.Random(1)
    public, openspiel = public_api_games(rng), openspiel_games(rng)
    if openspiel is None:
        raise SystemExit("OpenSpiel is missing: pip install 'imago[bench]'")
    loops: dict[str, Game] = {
        "public": lambda _: public(),
        "kernel": _kernel,
        "openspiel": lambda _: openspiel(),
        "openspiel_index": _openspiel_by_index(),
    }
    for game in loops.values():
        game(rng)  # compile, warm
    costs: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(args.rounds):
        totals = {name: [0, 0.0] for name in loops}
        for _ in range(args.games):
            for name, game in loops.items():
                moves, spent = game(rng)
                totals[name][0] += moves
                totals[name][1] += spent
        for name, (moves, spent) in totals.items():
            costs[name].append(spent / moves * 1e6)
    median = {name: statistics.median(values) for name, values in costs.items()}
    for name, value in median.items():
        rounds = ", ".join(f"{v:.2f}" for v in costs[name])
        print(f"{name:16s} {value:6.3f} us/move   rounds: {rounds}")
    print(f"public / openspiel:        {median['public'] / median['openspiel']:.3f}x")
    print(f"kernel / openspiel_index:  {median['kernel'] / median['openspiel_index']:.3f}x")


if __name__ == "__main__":
    main()
