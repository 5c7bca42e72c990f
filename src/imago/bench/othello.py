"""Othello rules speed: perft, and random full games in a kernel, through the public API and
with OpenSpiel's Othello driven from Python (the named peer, measured in the same run)."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from imago.bench import BenchConfig, Figure, benchmark, median_seconds

PERFT_8X8 = {9: 3_005_288, 10: 24_571_284, 11: 212_258_800, 12: 1_939_886_636}
"""Published 8x8 perft counts (Aart Bik, 2009; confirmed by Egaroucid's documentation)."""


@benchmark("othello.perft", "8x8 perft leaves per second, one thread (depth 11; 9 with --quick)")
def perft_speed(config: BenchConfig) -> list[Figure]:
    from imago.games.othello import perft

    depth = 9 if config.quick else 11
    perft(4)  # load the kernels
    leaves = perft(depth)
    if leaves != PERFT_8X8[depth]:
        raise AssertionError(f"perft({depth}) = {leaves}, published {PERFT_8X8[depth]}")
    wall, cpu = [], []
    for _ in range(1 if config.quick else 3):
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        perft(depth)
        wall.append(time.perf_counter() - wall_start)
        cpu.append(time.process_time() - cpu_start)
    return [
        Figure("othello.perft.depth", depth, "plies"),
        Figure("othello.perft.leaves", leaves, "leaves", "equals the published count"),
        Figure("othello.perft.leaves_per_s", leaves / statistics.median(wall), "leaves/s"),
        Figure(
            "othello.perft.leaves_per_cpu_s",
            leaves / statistics.median(cpu),
            "leaves/s",
            "per CPU second of the one thread: not slowed by other processes",
        ),
    ]


def _positions(games: int, seed: int) -> tuple[Any, Any, Any, Any]:
    """The positions of random games as bitboards ``(p, o)``, and every legal move of each as
    ``(position index, square)`` pairs."""
    import numpy as np

    from imago.games.othello import new_game

    rng = random.Random(seed)
    movers: list[Any] = []
    others: list[Any] = []
    index: list[int] = []
    squares: list[int] = []
    for _ in range(games):
        state = new_game()
        while not state.is_over():
            p, o = state.bitboards()
            moves = state.legal_moves()
            if not moves[0].is_pass:
                index.extend([len(movers)] * len(moves))
                squares.extend(m.point.index(8) for m in moves if m.point is not None)
                movers.append(p)
                others.append(o)
            state = state.play(rng.choice(moves))
    as_words = np.array(movers, dtype=np.uint64), np.array(others, dtype=np.uint64)
    return *as_words, np.array(index, dtype=np.int64), np.array(squares, dtype=np.int64)


@benchmark(
    "othello.kernels",
    "ns per call of the move generator's two kernels (legal moves, flips), random-game positions",
)
def kernels(config: BenchConfig) -> list[Figure]:
    from imago.bench._othello_kernels import time_flips, time_legal

    movers, others, index, squares = _positions(50 if config.quick else 300, 4)
    rounds = 5 if config.quick else 50
    time_legal(movers[:10], others[:10], 1)
    time_flips(movers, others, index[:10], squares[:10], 1)
    legal_s, flips_s = [], []
    for _ in range(1 if config.quick else config.repeats):
        start = time.process_time()
        time_legal(movers, others, rounds)
        legal_s.append(time.process_time() - start)
        start = time.process_time()
        time_flips(movers, others, index, squares, rounds)
        flips_s.append(time.process_time() - start)
    where = f"{len(movers):,} positions, {len(squares):,} legal moves, CPU time, median"
    return [
        Figure(
            "othello.kernels.legal_ns",
            1e9 * statistics.median(legal_s) / (rounds * len(movers)),
            "ns",
            f"legal moves of a position; {where}",
        ),
        Figure(
            "othello.kernels.flips_ns",
            1e9 * statistics.median(flips_s) / (rounds * len(squares)),
            "ns",
            f"flips of a legal move; {where}",
        ),
    ]


def _api_games(games: int, seed: int) -> int:
    """Random games through :class:`OthelloState`; returns the plies played."""
    from imago.games.othello import new_game

    rng = random.Random(seed)
    choice = rng.choice
    plies = 0
    for _ in range(games):
        state = new_game()
        while not state.is_over():
            state = state.play(choice(state.legal_moves()))
            plies += 1
    return plies


def _openspiel_games(games: int, seed: int) -> int | None:
    """Random games with OpenSpiel's Othello from Python; ``None`` where it is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("othello")
    rng = random.Random(seed)
    choice = rng.choice
    plies = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            plies += 1
    return plies


def _rate(run: Callable[[], int | None], repeats: int) -> tuple[float, int] | None:
    """``(median seconds, plies)`` of ``run``; ``None`` when it returns ``None``."""
    plies = run()
    if plies is None:
        return None
    return median_seconds(run, repeats), plies


@benchmark(
    "othello.random_games",
    "random 8x8 games/s: numba kernel, public API, OpenSpiel from Python (same run)",
)
def random_games(config: BenchConfig) -> list[Figure]:
    import numpy as np

    from imago.games.othello import _kernels
    from imago.games.othello import bitboard as bb

    games = 200 if config.quick else 1000
    kernel_games = 20 * games
    repeats = 1 if config.quick else config.repeats
    black, white = bb.start_position(8)
    full = np.uint64(2**64 - 1)
    _kernels.random_games(10, 0, black, white, full)
    kernel_s = median_seconds(
        lambda: _kernels.random_games(kernel_games, 1, black, white, full), repeats
    )
    api = _rate(lambda: _api_games(games, 2), repeats)
    peer = _rate(lambda: _openspiel_games(games, 3), repeats)
    assert api is not None
    api_s, api_plies = api
    figures = [
        Figure("othello.random.kernel_games_per_s", kernel_games / kernel_s, "games/s"),
        Figure("othello.random.api_games_per_s", games / api_s, "games/s"),
        Figure("othello.random.api_us_per_move", 1e6 * api_s / api_plies, "us/move"),
    ]
    if peer is None:
        return [*figures, Figure("othello.random.openspiel", float("nan"), "", "not installed")]
    peer_s, peer_plies = peer
    peer_games_per_s = games / peer_s
    peer_us = 1e6 * peer_s / peer_plies
    return [
        *figures,
        Figure("othello.random.openspiel_games_per_s", peer_games_per_s, "games/s"),
        Figure("othello.random.openspiel_us_per_move", peer_us, "us/move"),
        Figure(
            "othello.random.kernel_vs_openspiel",
            kernel_games / kernel_s / peer_games_per_s,
            "x",
            "games/s ratio, goal >= 10",
        ),
        Figure(
            "othello.random.api_vs_openspiel_per_move",
            (1e6 * api_s / api_plies) / peer_us,
            "x",
            "time per move ratio, goal <= 2",
        ),
    ]
