"""Where the Go legal-move list spends its time: a probe for the next kernel design.

    python bench/go_legal_probe.py [--games 1024] [--moves 150] [--rounds 5] [--size 9]

Plays ``--games`` random games on ``--size`` boards (9x9 by default; Chinese rules: positional
superko) ``--moves`` moves into a :class:`~imago.games.go.batch.GoBatch`, then times, per
position and in CPU microseconds (medians over ``--rounds``):

* ``legal``: the rules' legal-move list (``_legal_into``, as every step of the batch, the
  environments and the public API computes it), under Chinese and Japanese (simple ko) rules;
* ``touch + legal``: the same after reading every cache line of the position's state first.
  If the list were waiting on memory this would cost about ``touch`` plus the list's cost on
  a state already in the cache; it costs about as much as ``legal`` plus ``touch``, so the
  list is not waiting on memory;
* ``scan, branches``: only the loop over the points that skips the occupied ones with a branch,
  as the list does; ``scan, no branch``: the same loop writing every point and advancing the
  output by ``board == EMPTY``. Random positions make the branch unpredictable: the difference
  is what the mispredictions of that one test cost, and the list takes several more such
  branches per empty point (empty neighbour? friend or enemy? in atari?).

Measured 2026-11-26 (this 2-core machine, idle), the point-by-point list of before: 35 empty
points a position; legal 1.24-1.26 us (Chinese) and 0.83-0.90 us (Japanese); touch 0.25-0.31
us, and touch + legal 1.41-1.75 / 1.03-1.09 us, at least legal's cost, so the list was not
waiting on memory; the scan 0.30 us with the branch, 0.04 us without. So the list is now built
from bit sets of the board on boards up to 11x11 (``_legal_small``): 0.66-0.71 us (Chinese)
and 0.45-0.53 us (Japanese) in runs beside the old code's 1.64 and 0.99-1.15.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from numba import njit

from imago.envs.vector import random_legal
from imago.games.go import _kernels as K
from imago.games.go.batch import GoBatch
from imago.games.go.rules import GoRules


@njit(cache=False)  # no cache: it would keep its copy of the rules' kernel after a change
def _legal_lists(fulls: np.ndarray, size: int, ko_mode: int, touch: bool, out: np.ndarray) -> int:
    """The legal-move list of every position of ``fulls`` (read each state first when
    ``touch``); the number of legal moves in all, so that nothing is optimised away."""
    nn = size * size
    length, _, count_at, bloom_at, keys_at = K.full_offsets(size)
    total = 0
    for i in range(fulls.shape[0]):
        t = fulls[i]
        if touch:
            total += _touch(t, length)
        color = t[10 * nn + K.F_TO_PLAY]
        nkeys = t[count_at]
        total += K._legal_into(
            t, size, color, False, ko_mode, t, keys_at, nkeys, bloom_at, True, out[i], 0
        )
    return total


@njit(cache=False)
def _touch(t: np.ndarray, length: int) -> int:
    """One read per cache line of the state: brings it all into the cache."""
    x = 0
    for j in range(0, length, 8):
        x += t[j]
    return x & 1


@njit(cache=False)
def _touch_all(fulls: np.ndarray, length: int) -> int:
    total = 0
    for i in range(fulls.shape[0]):
        total += _touch(fulls[i], length)
    return total


@njit(cache=False)
def _scan(fulls: np.ndarray, nn: int, branch: bool, out: np.ndarray) -> int:
    """The empty points of every board into ``out``: skipping the occupied ones with a branch,
    or writing every point and advancing by ``board == EMPTY``."""
    total = 0
    for i in range(fulls.shape[0]):
        t = fulls[i]
        row = out[i]
        n = 0
        if branch:
            for p in range(nn):
                if t[p] != K.EMPTY:
                    continue
                row[n] = p
                n += 1
        else:
            for p in range(nn):
                row[n] = p
                n += t[p] == K.EMPTY
        total += n
    return total


def _positions(size: int, rules: str, games: int, moves: int) -> GoBatch:
    batch = GoBatch(games, size, GoRules.preset(rules))
    rng = np.random.default_rng(7)
    for _ in range(moves):
        batch.step(random_legal(batch.legal_mask(), rng))
        ended = np.flatnonzero(batch.done)
        if ended.size:
            batch.reset(ended)
    return batch


def _median_us(run: Callable[[], object], games: int, rounds: int) -> float:
    run()  # compile or load from the cache
    costs = []
    for _ in range(rounds):
        started = time.process_time()
        run()
        costs.append(1e6 * (time.process_time() - started) / games)
    return statistics.median(costs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", type=int, default=9, help="board size (over 11: point by point)")
    args = parser.parse_args()
    n, rounds, size = args.games, args.rounds, args.size
    out = np.zeros((n, size * size + 1), dtype=np.int64)
    length = int(K.state_length(size))
    for rules in ("chinese", "japanese"):
        batch = _positions(size, rules, n, args.moves)
        fulls, mode = batch.fulls, batch.ko_mode
        empties = float(np.mean(fulls[:, 10 * size * size + K.F_NEMPTY]))
        legal = _median_us(partial(_legal_lists, fulls, size, mode, False, out), n, rounds)
        both = _median_us(partial(_legal_lists, fulls, size, mode, True, out), n, rounds)
        touch = _median_us(partial(_touch_all, fulls, length), n, rounds)
        print(f"{rules}: {empties:.1f} empty points a position")
        print(f"  legal {legal:.3f} us, touch + legal {both:.3f} us, touch {touch:.3f} us")
    nn = size * size
    branchy = _median_us(partial(_scan, fulls, nn, True, out), n, rounds)
    branchless = _median_us(partial(_scan, fulls, nn, False, out), n, rounds)
    print(f"scan, branches {branchy:.3f} us; scan, no branch {branchless:.3f} us")


if __name__ == "__main__":
    main()
