"""Property tests over random games (hypothesis draws the seeds, sizes and rules)."""

from __future__ import annotations

import itertools
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from imago.core import Color, Move, Point
from imago.games.go import GoPosition, GoRules, KoRule, new_game, perft, perft_from
from imago.games.go import fastpath as fp

RULES = st.sampled_from(
    [GoRules.preset(name) for name in GoRules.PRESETS] + [GoRules(ko=KoRule.SIMPLE)]
)


def random_game(seed: int, size: int, rules: GoRules, limit: int) -> list[GoPosition]:
    """The positions of a random game (moves uniformly among the legal ones, passes rare)."""
    rng = random.Random(seed)
    position = new_game(size, rules)
    line = [position]
    while not position.is_over() and len(line) <= limit:
        moves = position.legal_moves()
        plays = [m for m in moves if m.is_play]
        move = rng.choice(plays) if plays and rng.random() > 0.03 else Move.PASS
        position = position.play(move)
        line.append(position)
    return line


def groups(board: np.ndarray) -> list[tuple[int, set[tuple[int, int]]]]:
    """Every string of stones on ``board`` by flood fill: (colour, points)."""
    size = board.shape[0]
    seen: set[tuple[int, int]] = set()
    out = []
    for r in range(size):
        for c in range(size):
            if board[r, c] == 0 or (r, c) in seen:
                continue
            colour, block, todo = int(board[r, c]), {(r, c)}, [(r, c)]
            while todo:
                y, x = todo.pop()
                for q in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    inside = 0 <= q[0] < size and 0 <= q[1] < size
                    if inside and board[q] == colour and q not in block:
                        block.add(q)
                        todo.append(q)
            seen |= block
            out.append((colour, block))
    return out


def liberties(board: np.ndarray, block: set[tuple[int, int]]) -> int:
    size = board.shape[0]
    libs = set()
    for y, x in block:
        for q in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= q[0] < size and 0 <= q[1] < size and board[q] == 0:
                libs.add(q)
    return len(libs)


def fresh_key(position: GoPosition) -> int:
    """The Zobrist key recomputed from the board alone."""
    key = 0
    for colour in (Color.BLACK, Color.WHITE):
        for point in position.stones(colour):
            key ^= fp.zobrist(int(colour), point.index(position.size))
    if position.to_play is Color.WHITE:
        key ^= fp.ZOBRIST_WHITE_TO_PLAY
    return key & ((1 << 64) - 1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.sampled_from([2, 3, 4, 5, 7, 9, 13, 19]), rules=RULES)
def test_random_game_invariants(seed: int, size: int, rules: GoRules):
    line = random_game(seed, size, rules, limit=3 * size * size)
    played = [0, 0, 0]
    for before, after in itertools.pairwise(line):
        snapshot = (
            before.board().tobytes(),
            before.key,
            before.to_play,
            before.move_number,
            before.captures(Color.BLACK),
            before.legal_actions().tobytes(),
        )
        move = after.last_move
        assert move is not None and after.previous is before
        if move.is_play:
            played[before.to_play] += 1
        # play never mutates its input
        assert snapshot == (
            before.board().tobytes(),
            before.key,
            before.to_play,
            before.move_number,
            before.captures(Color.BLACK),
            before.legal_actions().tobytes(),
        )
        board = after.board()
        # every group on the board has a liberty
        assert all(liberties(board, block) > 0 for _, block in groups(board))
        # stones on the board + stones lost = stones played
        for colour in (Color.BLACK, Color.WHITE):
            on_board = int((board == colour).sum())
            lost = after.captures(colour.opponent)
            assert on_board + lost == played[colour]
        # the Zobrist key equals a fresh recomputation, and a set-up copy has the same key
        assert after.key == fresh_key(after)
        copy = new_game(size, rules).with_setup(
            after.stones(Color.BLACK), after.stones(Color.WHITE), to_play=after.to_play
        )
        assert copy.key == after.key
        # legal_mask agrees with legal_moves and is_legal
        mask = after.legal_mask()
        listed = {m.to_action(size) for m in after.legal_moves()}
        assert listed == set(np.flatnonzero(mask).tolist())
        if not after.is_over():
            for action in range(size * size):
                move_a = Move.from_action(action, size)
                assert after.is_legal(move_a) == bool(mask[action])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.sampled_from([5, 9, 19]))
def test_fastpath_playout_and_round_trip(seed: int, size: int):
    position = new_game(size)
    state = fp.to_arrays(position)
    rng = fp.seed_rng(seed)
    colour = int(state[fp.header(size) + fp.F_TO_PLAY])
    action = fp.random_move(state, size, colour, False, rng)
    assert fp.play(state, size, action, colour, False) == fp.OK
    back = fp.from_arrays(state, position)
    assert back.last_move == Move.from_action(action, size)
    assert back.key == position.play(Move.from_action(action, size)).key
    score = fp.playout(state, size, 7.5, False, 3 * size * size, rng)
    b, w = fp.area_score(state, size)
    assert score == b - w - 7.5
    assert b + w <= size * size


def brute_perft(position: GoPosition, depth: int) -> int:
    """Perft through the public API (independent of the perft kernel's own loop)."""
    if depth == 0:
        return 1
    if position.is_over():
        return 0
    return sum(brute_perft(position.play(m), depth - 1) for m in position.legal_moves())


def test_perft_kernel_matches_public_api():
    for size, depth, rules in [
        (2, 6, GoRules()),
        (3, 4, GoRules(ko=KoRule.SIMPLE)),
        (3, 4, GoRules.preset("tromp-taylor")),
        (2, 7, GoRules.preset("nz")),
        (4, 3, GoRules()),
    ]:
        assert perft(depth, size, rules) == brute_perft(new_game(size, rules), depth), (size, rules)
    start = new_game(3).play(Move.play(Point(1, 1)))
    assert perft_from(start, 3) == brute_perft(start, 3)


def test_perft_small_known_values():
    # 9x9: 81 points + pass, then 80 + pass (or 81 after a pass), ...
    assert [perft(d, 9) for d in range(3)] == [1, 82, 81 * 81 + 81 + 1]


def _openspiel_perft(state: object, depth: int) -> int:
    if depth == 0:
        return 1
    if state.is_terminal():  # type: ignore[attr-defined]
        return 0
    total = 0
    for action in state.legal_actions():  # type: ignore[attr-defined]
        child = state.clone()  # type: ignore[attr-defined]
        child.apply_action(action)
        total += _openspiel_perft(child, depth - 1)
    return total


def test_perft_matches_openspiel_under_simple_ko():
    """OpenSpiel's Go (simple ko, no suicide, two passes end the game) is an independent
    implementation: leaf counts must agree exactly, captures and kos included."""
    pyspiel = __import__("pytest").importorskip("pyspiel")
    for size, depth in [(3, 6), (4, 4), (5, 3)]:
        game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
        theirs = _openspiel_perft(game.new_initial_state(), depth)
        assert perft(depth, size, GoRules(ko=KoRule.SIMPLE)) == theirs, (size, depth)
