"""Feature planes and board symmetries (numpy only: no torch needed)."""

from __future__ import annotations

import numpy as np
import pytest

import imago.games.othello as othello
from imago.core import Color, Move, Point
from imago.games import make
from imago.games.symmetry import (
    SYMMETRIES,
    gather_table,
    image_table,
    inverse,
    transform_planes,
    transform_policy,
)
from imago.nn.features import FEATURE_SETS, Positions, feature_set, positions_from_states

# An Othello position, White to move (X black, O white).
DIAGRAM = """
    - - - - - - - -
    - - - - - - - -
    - - - X - - - -
    - - - X X - - -
    - - - X O - - -
    - - - - - - - -
    - - - - - - - -
    - - - - - - - -
"""
# What White (the mover) sees: own stones, then the opponent's.
OWN = """
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . 1 . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
"""
OPPONENT = """
    . . . . . . . .
    . . . . . . . .
    . . . 1 . . . .
    . . . 1 1 . . .
    . . . 1 . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
"""


def grid(text: str) -> np.ndarray:
    rows = [line.split() for line in text.strip().splitlines()]
    return np.array([[1 if c == "1" else 0 for c in row] for row in rows], dtype=np.uint8)


def test_plane_counts_are_declared():
    assert {name: fs.planes for name, fs in FEATURE_SETS.items()} == {
        "stones2": 2,
        "legal4": 4,
        "minigo17": 17,
        "history9": 9,
        "history11": 11,
        "libs8": 8,
    }
    state = make("othello")
    for fs in FEATURE_SETS.values():
        assert fs.encode_states([state]).shape == (1, fs.planes, 8, 8)
    with pytest.raises(ValueError, match="unknown feature set"):
        feature_set("nope")


def test_stones_are_from_the_movers_point_of_view():
    state = othello.OthelloState.from_board_string(DIAGRAM, Color.WHITE)
    planes = feature_set("legal4").encode_states([state])[0]
    assert (planes[0] == grid(OWN)).all()
    assert (planes[1] == grid(OPPONENT)).all()
    assert (planes[2].ravel() == state.legal_mask()[:64]).all()
    assert (planes[3] == 1).all()


def test_minigo_history_layout_and_oldest_board_repeated():
    state = make("go", size=5)
    moves = ["C3", "B2", "D4"]
    for text in moves:
        state = state.play(Move.from_gtp(text, 5))
    planes = feature_set("minigo17").encode_states([state])[0]
    # White to move: plane 0 = White's stones now, plane 1 = Black's now, 2/3 one move ago...
    assert state.to_play is Color.WHITE
    assert planes[0].sum() == 1 and planes[1].sum() == 2
    assert planes[2].sum() == 1 and planes[3].sum() == 1
    assert planes[4].sum() == 0 and planes[5].sum() == 1
    assert planes[6:16].sum() == 0  # the empty start board, repeated
    assert (planes[16] == 0).all()  # White to play
    black_to_play = feature_set("history9").encode_states([state.previous])[0]
    assert black_to_play.shape[0] == 9 and (black_to_play[8] == 1).all()


def test_history11_layout_history_then_legal_ones_colour():
    """history11 = 4 boards of history, then legal points, ones, colour."""
    state = make("go", size=5)
    for text in ["C3", "B2", "D4"]:
        state = state.play(Move.from_gtp(text, 5))
    planes = feature_set("history11").encode_states([state])[0]
    history = feature_set("minigo17").encode_states([state])[0]
    assert (planes[:8] == history[:8]).all()
    assert (planes[8].ravel() == state.legal_mask()[:25]).all()
    assert planes[8].sum() == 25 - 3  # every empty point is legal here
    assert (planes[9] == 1).all()
    assert (planes[10] == 0).all()  # White to play


def _liberty_planes(boards: np.ndarray) -> list[np.ndarray]:
    """Stones whose group has exactly 1, 2, 3 liberties, by a plain breadth-first search."""
    n, size, _ = boards.shape
    planes = np.zeros((3, n, size, size), dtype=bool)
    for b in range(n):
        board = boards[b]
        for r0 in range(size):
            for c0 in range(size):
                if board[r0, c0] == 0:
                    continue
                group, liberties, todo = {(r0, c0)}, set(), [(r0, c0)]
                while todo:
                    r, c = todo.pop()
                    for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                        if not (0 <= q[0] < size and 0 <= q[1] < size):
                            continue
                        if board[q] == 0:
                            liberties.add(q)
                        elif board[q] == board[r0, c0] and q not in group:
                            group.add(q)
                            todo.append(q)
                if 1 <= len(liberties) <= 3:
                    planes[len(liberties) - 1, b, r0, c0] = True
    return list(planes)


def _reference_planes(name: str, positions: Positions) -> np.ndarray:
    """The feature sets written out in plain numpy, from their documented layouts."""
    boards, mover = positions.boards, positions.to_play.reshape(-1, 1, 1)
    n, _, size, _ = boards.shape

    def history(depth: int) -> list[np.ndarray]:
        return [p for k in range(depth) for p in (boards[:, k] == mover, boards[:, k] == 3 - mover)]

    legal = positions.legal[:, : size * size].reshape(n, size, size)
    ones = np.ones((n, size, size), dtype=bool)
    black = np.broadcast_to(mover == Color.BLACK, (n, size, size))
    planes = {
        "stones2": history(1),
        "legal4": [*history(1), legal, ones],
        "minigo17": [*history(8), black],
        "history9": [*history(4), black],
        "history11": [*history(4), legal, ones, black],
        "libs8": [*history(1), legal, ones, *_liberty_planes(boards[:, 0]), black],
    }[name]
    return np.stack(planes, axis=1).astype(np.uint8)


@pytest.mark.parametrize("size", [5, 8, 19])
@pytest.mark.parametrize("name", sorted(FEATURE_SETS))
def test_feature_sets_match_their_documented_layout_on_random_boards(name: str, size: int):
    rng = np.random.default_rng(size)
    positions = Positions(
        rng.integers(0, 3, (16, 8, size, size)).astype(np.int8),
        rng.integers(1, 3, 16).astype(np.int8),
        rng.random((16, size * size + 1)) < 0.5,
    )
    planes = feature_set(name).encode(positions)
    assert planes.dtype == np.uint8 and planes.flags.c_contiguous
    assert (planes == _reference_planes(name, positions)).all()


@pytest.mark.parametrize("size", [5, 8, 9])
def test_symmetries_form_a_group(size: int):
    for sym in SYMMETRIES:
        image = image_table(sym, size)
        assert sorted(image) == list(range(size * size + 1))
        assert image[-1] == size * size  # pass stays pass
        back = image_table(inverse(sym), size)
        assert (back[image] == np.arange(size * size + 1)).all()
        assert (gather_table(sym, size)[image] == np.arange(size * size + 1)).all()


def test_features_commute_with_symmetry():
    rng = np.random.default_rng(3)
    state = make("othello")
    for _ in range(14):
        state = state.play_action(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    fs = feature_set("legal4")
    planes = fs.encode_states([state])
    for sym in SYMMETRIES:
        moved = state.transform(sym)
        assert (fs.encode_states([moved]) == transform_planes(planes, sym)).all()
        assert (moved.legal_mask() == transform_policy(state.legal_mask(), sym, 8)).all()


def test_positions_follow_previous_states():
    state = make("othello").play(Move.play(Point(4, 5)))
    positions = positions_from_states([state], history=3)
    assert positions.boards.shape == (1, 3, 8, 8)
    assert (positions.boards[0, 1] == make("othello").board()).all()
    assert (positions.boards[0, 2] == positions.boards[0, 1]).all()


def test_positions_take_the_callers_legal_masks_as_given():
    """A mask the caller passes is the one encoded (here: deliberately not the state's)."""
    states = [make("go", size=5), make("othello", size=6)]
    for state in states:
        own = positions_from_states([state], history=2)
        assert (own.legal[0] == state.legal_mask()).all()
        given = np.zeros((1, state.num_actions), dtype=np.bool_)
        given[0, 0] = True
        passed = positions_from_states([state], history=2, legal=given)
        assert passed.legal is given
        assert (passed.boards == own.boards).all() and (passed.to_play == own.to_play).all()


# libs8's liberty planes (4, 5, 6): the stones of groups with exactly 1, 2, 3 liberties.
LIBERTY_CASES = [
    (
        """
        X O . . .
        X O . X X
        . O . X .
        O . . . .
        X X X X X
        """,
        # X in the corner: one liberty; the lone O: two; the rest four or more
        (
            """
        1 . . . .
        1 . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
            """
        . . . . .
        . . . . .
        . . . . .
        1 . . . .
        . . . . .
        """,
            """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        ),
    ),
    (
        """
        . X O . .
        X O . O .
        . X O . .
        . . X . .
        . . . . .
        """,
        # X b5 and O b4 in atari;
        # X a4, O c5, X b3 and O c3 two; X c2 three; O d4 four
        (
            """
        . 1 . . .
        . 1 . . .
        . . . . .
        . . . . .
        . . . . .
        """,
            """
        . . 1 . .
        1 . . . .
        . 1 1 . .
        . . . . .
        . . . . .
        """,
            """
        . . . . .
        . . . . .
        . . . . .
        . . 1 . .
        . . . . .
        """,
        ),
    ),
]


@pytest.mark.parametrize(("diagram", "expected"), LIBERTY_CASES)
def test_libs8_liberty_planes(diagram: str, expected: tuple[str, str, str]):
    from imago.games.go import GoPosition

    for mover in (Color.BLACK, Color.WHITE):
        planes = feature_set("libs8").encode_states([GoPosition.from_diagram(diagram, mover)])[0]
        for k, text in enumerate(expected):
            assert (planes[4 + k] == grid(text)).all(), f"{k + 1} liberties:\n{planes[4 + k]}"
        assert (planes[7] == int(mover is Color.BLACK)).all()


def test_libs8_reads_ring_boards_as_newest_first_boards():
    """Self-play keeps each game's boards in a ring (``newest``); the planes are the same."""
    rng = np.random.default_rng(7)
    boards = rng.integers(0, 3, (6, 3, 9, 9)).astype(np.int8)
    to_play = rng.integers(1, 3, 6).astype(np.int8)
    legal = rng.random((6, 82)) < 0.5
    newest = rng.integers(0, 3, 6).astype(np.int64)
    ring = np.empty_like(boards)
    for b in range(6):
        for k in range(3):
            ring[b, (newest[b] + k) % 3] = boards[b, k]
    fs = feature_set("libs8")
    plain = fs.encode(Positions(boards, to_play, legal))
    assert (fs.encode(Positions(ring, to_play, legal, newest)) == plain).all()


def test_a_feature_set_for_one_game_is_refused_for_another():
    assert feature_set("libs8", "go").game == "go"
    with pytest.raises(ValueError, match="libs8 features are for go, not othello"):
        feature_set("libs8", "othello")
    assert feature_set("legal4", "othello").game is None  # any game


def test_feature_sets_count_their_planes_and_history():
    for name, fs in FEATURE_SETS.items():
        assert fs.planes == sum(f.planes for f in fs.features), name
        assert fs.history == max(f.history for f in fs.features), name
