"""The legal-move lists every step computes, against the rules' check of each point alone.

Boards up to 11x11 build the list from bit sets of the board in two 64-bit words (registers);
bigger ones from bit sets in an array of 64-point words. The sizes straddle the word
boundaries::

    size   points   words
      2        4    lo
      7       49    lo
      8       64    lo, exactly full
      9       81    lo + hi
     11      121    lo + hi, nearly full
     12      144    three words
     19      361    six words
     25      625    ten words

Each case plays random games in a batch and, every few moves, compares the batch's list with
``is_legal``-style checks of every point (``check`` for occupied / suicide / ko, then the
resulting board's key against the game's superko keys), which share no code with the list.
"""

from __future__ import annotations

import numpy as np
import pytest

from imago.envs.vector import random_legal
from imago.games.go import _kernels as K
from imago.games.go.batch import GoBatch
from imago.games.go.rules import GoRules

RULES = ("chinese", "japanese", "tromp-taylor", "aga", "nz")


def _one_by_one(
    state: np.ndarray, size: int, keys: np.ndarray, suicide: bool, mode: int
) -> list[int]:
    """The legal actions of the side to move, each point checked alone (pass last)."""
    nn = size * size
    color = int(state[10 * nn + K.F_TO_PLAY])
    legal = []
    for p in range(nn):
        if K.check(state, size, p, color, suicide) != K.OK:
            continue
        if mode != K.KO_SIMPLE:
            key = K.result_hash(state, size, p, color)
            if mode == K.KO_SITUATIONAL and color == K.BLACK:
                key ^= K.ZOBRIST_WHITE_TO_PLAY
            if K.contains(keys, key):
                continue
        legal.append(p)
    return [*legal, nn]


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("size", [2, 7, 8, 9, 11, 12, 19, 25])
def test_the_lists_equal_each_point_checked_alone(size: int, rules: str):
    batch = GoBatch(16, size, GoRules.preset(rules))
    rng = np.random.default_rng(size * 31 + len(rules))
    _, keys_at, _ = batch.arrays()
    length = int(K.state_length(size))
    nn = size * size
    compared = superko_refused = 0
    for step in range(6 * nn):
        if step % 3 == 0:
            mask = batch.legal_mask()
            for i in np.flatnonzero(~batch.done):
                row = batch.fulls[i]
                count = int(row[keys_at - K.BLOOM_WORDS - 1])
                keys = row[keys_at : keys_at + count].copy()
                expected = _one_by_one(
                    row[:length].copy(), size, keys, batch.suicide_allowed, batch.ko_mode
                )
                assert np.flatnonzero(mask[i]).tolist() == expected, (size, rules, step, int(i))
                compared += 1
                simple = _one_by_one(
                    row[:length].copy(), size, keys[:0], batch.suicide_allowed, K.KO_SIMPLE
                )
                superko_refused += len(simple) - len(expected)
        batch.step(random_legal(batch.legal_mask(), rng))
        ended = np.flatnonzero(batch.done)
        if ended.size:
            batch.reset(ended)
    assert compared > 100
    if rules in ("tromp-taylor", "nz") and size >= 7:
        # suicide makes repeated boards common in random play: the superko part was exercised
        assert superko_refused > 0


@pytest.mark.parametrize("rules", ["chinese", "nz", "tromp-taylor"])
@pytest.mark.parametrize("size", [5, 9, 13])
def test_positions_lists_equal_each_point_checked_alone_through_setup_and_resume(
    size: int, rules: str
):
    """The public positions' lists, made by ``play``, ``with_setup`` (stones added and taken
    away mid-game) and ``resume`` (after two passes): each builds its superko keys and their
    stone bound (``F_TOP``) its own way. A move that captures nothing skips the superko test
    when the board it makes has more stones than any board of the keys; this checks that no
    list it shortened is wrong, and that it was used."""
    from imago.core.move import Point
    from imago.games.go import new_game

    rng = np.random.default_rng(size * 7 + len(rules))
    mode = {"chinese": K.KO_POSITIONAL, "nz": K.KO_SITUATIONAL}.get(rules, K.KO_POSITIONAL)
    nn = size * size
    compared = bounded = 0
    for _ in range(6):
        position = new_game(size, GoRules.preset(rules, size))
        for move in range(4 * nn):
            if position.is_over():
                position = position.resume()
            state = position.arrays()
            keys = position.superko_keys()
            expected = _one_by_one(state, size, keys, position.rules.suicide_allowed, mode)
            assert position.legal_actions().tolist() == expected, (size, rules, move)
            compared += 1
            bounded += bool(K._beyond_history(position._s, nn, True))
            if rng.random() < 0.03:  # set up a stone, or take one away
                point = Point(*divmod(int(rng.integers(nn)), size))
                if position.color_at(point) is None:
                    position = position.with_setup(black=[point])
                else:
                    position = position.with_setup(empty=[point])
            else:
                legal = position.legal_actions()
                position = position.play_action(int(legal[rng.integers(len(legal))]))
    assert compared == 6 * 4 * nn
    assert bounded > compared // 4  # the shortcut was taken often
