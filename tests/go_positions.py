"""Go positions that several tests read: from real games, as diagrams (``X`` Black, ``O``
White, row 9 first), and random ones as fast-path state arrays."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from imago.games.go import fastpath as f


def random_state(size: int, seed: int, plies: int) -> npt.NDArray[np.int64]:
    """A fast-path state after ``plies`` random sensible moves (``fastpath.random_move``,
    suicide off) from the empty ``size`` board."""
    s = f.new_state(size)
    rng = f.seed_rng(seed)
    for _ in range(plies):
        colour = int(s[f.header(size) + f.F_TO_PLAY])
        f.play(s, size, f.random_move(s, size, colour, False, rng), colour, False)
    return s


PACHI_BULKY_FIVE = """
    X X O O . O . . .
    . X X O O O . . .
    X . X X O . O . .
    O X X O O O . O .
    O O X O X X O . .
    . O O X X O O O .
    X . O X . X X O .
    X X O X X . X X X
    . O O O X . X . X
"""
"""A game lost to Pachi 12.90 (move 59, Black to play). White thought its lower-left group
alive, in seki with Black's A3-A2-B2. In the game Black played A4, then B3, which put five
stones in atari inside White's group; White's capture left the bulky five A2-A3-A4-B2-B3, and
Black's A3 killed it (GNU Go: all ten white stones dead)."""

PACHI_TWO_STONE_SACRIFICE = """
    O X . O X . X . X
    O . O O O X . X .
    O O O O X X X X X
    X O X X O O X O O
    X X . X X O O . O
    X . X X X O O O .
    X X O O O . O . O
    X X X O O . O . O
    X X O O O O O O .
"""
"""The end of a game against Pachi 12.90 (seed 53, game 24; komi 7, area). White's eleven
stones at the top left have two liberties, B8 and C9, around Black's B9. Black's C9 sacrifices
two stones: White captures at B8 and is left one two-point eye (E9's ko is Black's to close at
F9 first). GNU Go 3.8's final_score and Pachi count B+10."""
