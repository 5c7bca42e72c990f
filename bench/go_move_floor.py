"""Where a move of the public Go API spends its time beside OpenSpiel's: a probe.

    python bench/go_move_floor.py [--size 9] [--games 80] [--rounds 5]

Plays random games (9x9 unless ``--size``; default rules: positional superko) four ways, one
game of each in turn so that load hits all alike, and prints CPU microseconds a move (medians
over ``--rounds`` of ``--games`` games each) and their ratios to OpenSpiel's:

* ``public``: ``position = position.play(choice(position.legal_moves()))`` until the game is
  over, as ``imago bench go.openspiel`` times it;
* ``kernel``: the same moves' work through the kernel entry that :meth:`GoPosition.play` calls
  (a new full array a move, in the arena that positions share, kept for the rest of the game as
  the positions' history is; the move, the next legal-move list and its moves' addresses),
  driven by the least Python that can drive it: no position objects, a random index instead of
  ``random.choice``;
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

from imago.bench.go import openspiel_games, public_api_games
from imago.core.memory import retain_freed_memory
from imago.games.go import _kernels as K
from imago.games.go import new_game
from imago.games.go import position as go_position

Game = Callable[[random.Random], tuple[int, float]]
_clock = time.thread_time


def _kernel(rng: random.Random, size: int) -> tuple[int, float]:
    first = new_game(size)
    frame = first._f
    arena, view, at, code = first._s, first._v, first._o, frame.code
    length, keys_at, suicide, mode = frame.length, frame.keys_at, frame.suicide, frame.mode
    advance, no_room = go_position._advance_here, K.NO_ROOM
    arenas = [arena]  # kept, as the positions' history keeps them
    moves = 0
    uniform = rng.random
    start = _clock()
    n, keys = first._n & 0xFFFF, first._n >> 16
    while n:
        action = arena[at + length + int(uniform() * n)]
        result = advance(view, at, code, action)
        if result == no_room:  # as GoPosition.play: a new arena, twice as large
            source = arena
            arena = go_position._new_arena(frame, keys_at + keys + 1, source.shape[0])
            arenas.append(arena)
            view = go_position._view_base(arena, frame)
            result = go_position._advance_into(source, at, arena, size, action, 0, suicide, mode)
        n, keys, at = result & 0xFFFF, (result >> 16) & 0xFFFF, result >> 32
        moves += 1
    return moves, _clock() - start


def _openspiel_by_index(size: int) -> Game:
    import pyspiel

    go = pyspiel.load_game("go", {"board_size": size})

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
    parser.add_argument("--size", type=int, default=9, help="board size (2 to 19, OpenSpiel's)")
    parser.add_argument("--games", type=int, default=80, help="games of each loop a round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not 2 <= args.size <= 19:
        parser.error(f"--size must be 2 to 19 (OpenSpiel's Go goes to 19), not {args.size}")
    retain_freed_memory()  # as the imago command line does for its benchmarks
    rng = random.Random(1)
    size = args.size
    public, openspiel = public_api_games(rng, size), openspiel_games(rng, size)
    if openspiel is None:
        raise SystemExit("OpenSpiel is missing: pip install 'imago[bench]'")
    loops: dict[str, Game] = {
        "public": lambda _: public(),
        "kernel": lambda rng: _kernel(rng, size),
        "openspiel": lambda _: openspiel(),
        "openspiel_index": _openspiel_by_index(size),
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
