"""Positions share arenas: each move's full array takes the next free part of its parent's
arena (or of a new one when it is full). Playing from any position, in any order, from any
thread, gives what a game replayed from the start gives::

    start - a - b - c - d        (the game, one array after another in an arena)
                 \
                  b' - ...        (b played again: its children go on after d's)
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from imago.core.errors import IllegalMoveError, IllegalReason
from imago.games.go import GoPosition, GoRules, moves_table, new_game
from imago.games.go import _kernels as K


def _random_game(
    size: int, rules: str, seed: int, moves: int, passes: bool = True
) -> list[GoPosition]:
    """A random game's positions (without ``passes``, the side to move passes only when it
    must, so that small boards fill and empty again and superko forbids moves)."""
    rng = np.random.default_rng(seed)
    line = [new_game(size, GoRules.preset(rules, size))]
    while not line[-1].is_over() and len(line) <= moves:
        legal = line[-1].legal_actions()
        if not passes and len(legal) > 1:
            legal = legal[:-1]
        line.append(line[-1].play_action(int(legal[rng.integers(len(legal))])))
    return line


def _replay(position: GoPosition) -> GoPosition:
    """The same position, played again from a new game (every record made afresh)."""
    moves = []
    walk: GoPosition | None = position
    while walk is not None and walk.last_move is not None:
        moves.append(walk.last_move)
        walk = walk.previous
    fresh = new_game(position.size, position.rules)
    for move in reversed(moves):
        fresh = fresh.play(move)
    return fresh


def _groups(position: GoPosition) -> list[tuple[int, ...]]:
    """What a state's group fields say about each point, in terms that do not depend on which
    stone heads a group or in what order the empty points are listed."""
    s = position.arrays()
    nn = position.size**2
    out = []
    for p in range(nn):
        if s[p] == K.EMPTY:
            out.append((0,))
            continue
        g = K.group_head(s, nn, p)
        fields = (s[3 * nn + g], s[4 * nn + g], s[5 * nn + g], s[6 * nn + g], s[7 * nn + g])
        out.append((int(s[p]), *map(int, fields)))
    empties = sorted(int(K.empty_at(s, nn, i)) for i in range(int(s[10 * nn + K.F_NEMPTY])))
    assert empties == [p for p in range(nn) if s[p] == K.EMPTY]
    return out


def _same(a: GoPosition, b: GoPosition) -> None:
    assert a == b
    assert a.legal_actions().tolist() == b.legal_actions().tolist()
    assert a.superko_keys().tolist() == b.superko_keys().tolist()
    assert a.move_number == b.move_number and a.key == b.key
    assert a.captures(a.to_play) == b.captures(a.to_play)
    assert _groups(a) == _groups(b)


@pytest.mark.parametrize(
    ("size", "rules", "moves"),
    [(9, "chinese", 200), (9, "nz", 200), (13, "japanese", 120), (19, "chinese", 60)],
)
def test_playing_again_from_any_earlier_position_agrees_with_a_replay(
    size: int, rules: str, moves: int
) -> None:
    line = _random_game(size, rules, seed=size, moves=moves)
    rng = np.random.default_rng(size + 1)
    for index in rng.choice(len(line) - 1, size=12, replace=False):
        position = line[int(index)]  # its children go after the game's newest positions
        legal = position.legal_actions()
        child = position.play_action(int(legal[rng.integers(len(legal))]))
        _same(child, _replay(child))
        _same(position, _replay(position))
    for position in line[-3:]:
        _same(position, _replay(position))


def test_every_child_of_one_position_agrees_with_a_replay() -> None:
    # siblings: each child takes the next free part of the arena, after its elder siblings
    line = _random_game(9, "chinese", seed=5, moves=60)
    parent = line[-1]
    children = [parent.play(move) for move in parent.legal_moves()]
    for child in children[::7]:
        _same(child, _replay(child))
    grandchildren = [child.play(child.legal_moves()[0]) for child in children[::5]]
    for position in grandchildren:
        _same(position, _replay(position))


def test_refused_moves_leave_the_arena_right() -> None:
    # a move refused after the kernel played it (superko) must take no part of the arena and
    # leave every position right: play a game again, trying at each position every move that
    # ko or superko forbids first
    refused = {IllegalReason.KO: 0, IllegalReason.SUPERKO: 0}
    for seed in range(3):
        line = _random_game(5, "chinese", seed=seed, moves=300, passes=False)
        position = line[0]
        for step in line[1:]:
            for move in moves_table(5)[:25]:
                reason = position.illegal_reason(move)
                if reason in refused:
                    with pytest.raises(IllegalMoveError):
                        position.play(move)
                    refused[reason] += 1
                    back = position.previous
                    assert back is not None
                    sibling = back.play(back.legal_moves()[0])
                    _same(sibling, _replay(sibling))
            assert step.last_move is not None
            position = position.play(step.last_move)
            _same(position, step)
    assert refused[IllegalReason.KO] > 0 and refused[IllegalReason.SUPERKO] > 0


def test_arenas_fill_and_new_ones_take_over() -> None:
    # a long game spans many arenas; positions in full ones still play and agree
    line = _random_game(9, "chinese", seed=11, moves=300, passes=False)
    assert len({id(p._s) for p in line}) > 3
    for position in line[:: max(1, len(line) // 10)]:
        _same(position, _replay(position))


def test_threads_playing_from_shared_positions_agree_with_one_thread() -> None:
    line = _random_game(9, "chinese", seed=3, moves=40)
    expected = {i: [p.play(m).key for m in p.legal_moves()] for i, p in enumerate(line)}
    errors: list[str] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(200):
            i = int(rng.integers(len(line)))
            moves = line[i].legal_moves()
            j = int(rng.integers(len(moves)))
            if line[i].play(moves[j]).key != expected[i][j]:
                errors.append(f"position {i}, move {j}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
