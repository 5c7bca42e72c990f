"""Nakade in the Go rules' kernels (on the fast path): the classic eye spaces that make one
eye once their vital point is taken, that point, and the self-atari whose capture leaves one
(the sacrifice that kills). Both playout policies use them: the count's, so that a group
killed by a sacrifice is counted dead, and the search's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from go_positions import PACHI_BULKY_FIVE, PACHI_TWO_STONE_SACRIFICE, random_state
from imago.core.color import Color
from imago.games.go import fastpath as f
from imago.games.go.position import GoPosition

BLACK, WHITE = f.BLACK, f.WHITE


def _shape(diagram: str) -> tuple[np.ndarray, int, int]:
    """The ``#`` and ``@`` points of a square diagram, as actions in reading order; the
    board's size; the ``@`` point (the vital point), or -1."""
    rows = [row.split() for row in diagram.strip().splitlines()]
    size = len(rows)
    marked = [(r * size + c, ch) for r, row in enumerate(rows) for c, ch in enumerate(row)]
    points = [p for p, ch in marked if ch in "#@"]
    vital = next((p for p, ch in marked if ch == "@"), -1)
    return np.array(points, dtype=np.int64), size, vital


# (name, diagram, killable); in a killable shape, @ is the vital point (where two points are
# equal, the first in reading order). The 4x4 boards put the shapes in a corner.
SHAPES = [
    ("one point", "@ . . .\n. . . .\n. . . .\n. . . .", True),
    ("two points", "@ # . .\n. . . .\n. . . .\n. . . .", True),
    ("straight three", "# @ # .\n. . . .\n. . . .\n. . . .", True),
    ("bent three", "@ # . .\n# . . .\n. . . .\n. . . .", True),
    ("square four", "@ # . .\n# # . .\n. . . .\n. . . .", True),
    ("pyramid four", ". # . .\n# @ # .\n. . . .\n. . . .", True),
    ("straight four", "# # # #\n. . . .\n. . . .\n. . . .", False),
    ("bent four", "# # # .\n# . . .\n. . . .\n. . . .", False),
    ("zigzag four", "# # . .\n. # # .\n. . . .\n. . . .", False),
    ("bulky five", "# @ # .\n# # . .\n. . . .\n. . . .", True),
    ("crossed five", ". # . .\n# @ # .\n. # . .\n. . . .", True),
    ("T five", "# # # .\n. # . .\n. # . .\n. . . .", False),
    ("L five", "# . . .\n# . . .\n# . . .\n# # . .", False),
    ("rabbity six", "# # . .\n# @ # .\n. # . .\n. . . .", True),
    ("rectangular six", "# # # .\n# # # .\n. . . .\n. . . .", False),
    ("seven", "# # # #\n# # # .\n. . . .\n. . . .", False),
    # four points on both edges: a square only if rows wrapped around (3+1 = 4, 7+1 = 8)
    ("not a square across the edges", ". . . #\n# . . #\n# . . .\n. . . .", False),
]


@pytest.mark.parametrize(("name", "diagram", "killable"), SHAPES, ids=[s[0] for s in SHAPES])
def test_the_classic_nakade_shapes_and_only_they_are_killable(
    name: str, diagram: str, killable: bool
) -> None:
    points, size, vital = _shape(diagram)
    assert f.nakade_shape(points, len(points), size) is killable, name
    if killable:
        assert f.vital_point(points, len(points), size) == vital, name


def _arrays(diagram: str) -> tuple[GoPosition, np.ndarray]:
    position = GoPosition.from_diagram(diagram, to_play=Color.BLACK)
    return position, f.to_arrays(position)


# (why, diagram, Black's move, a nakade sacrifice)
SACRIFICES = [
    # White's lower-left group of a game against Pachi, before and after Black's A4
    ("A4 leaves the five stones two liberties (B3, A1)", PACHI_BULKY_FIVE, "A4", False),
    ("five stones leaving a bulky five",
     PACHI_BULKY_FIVE.replace(". O O X X O O O .", "X O O X X O O O ."), "B3", True),
    # the end of another: C9 puts B9-C9 in atari, White's capture at B8 leaves a two-point eye
    ("two stones leaving a two-point eye", PACHI_TWO_STONE_SACRIFICE, "C9", True),
    ("three stones along the edge leaving a straight three", """
        X X . . O . .
        O O O O O . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
     """, "C7", True),
    ("four stones leaving a straight four, which lives", """
        X X X . . O .
        O O O O O O .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
     """, "D7", False),
    ("in atari beside two white groups (B3-B5 and A2), not inside one", """
        . O . . .
        X O . . .
        . O . . .
        O . . . .
        . . . . .
     """, "A3", False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("why", "diagram", "move", "sacrifice"), SACRIFICES, ids=[s[0] for s in SACRIFICES]
)
def test_a_self_atari_is_a_sacrifice_only_inside_one_group_leaving_a_killable_shape(
    why: str, diagram: str, move: str, sacrifice: bool
) -> None:
    position, s = _arrays(diagram)
    before = s.copy()
    work = np.empty_like(s)
    p = position.parse_move(move).to_action(position.size)
    assert f.nakade_sacrifice(s, position.size, p, BLACK, False, work) is sacrifice, why
    if sacrifice:
        assert f.self_atari(s, position.size, p, BLACK, False, work)
        assert not f.bad_self_atari(s, position.size, p, BLACK, False, work)
    assert (s == before).all()  # the state is untouched


def test_a_bad_self_atari_is_a_self_atari_of_two_stones_that_kills_nothing() -> None:
    # Black's A3 joins A4 in atari beside two white groups: a self-atari that is no sacrifice
    position, s = _arrays(SACRIFICES[-1][1])
    work = np.empty_like(s)
    a3 = position.parse_move("A3").to_action(position.size)
    assert f.self_atari(s, position.size, a3, BLACK, False, work)
    assert f.bad_self_atari(s, position.size, a3, BLACK, False, work)


def _string(board: np.ndarray, start: tuple[int, int]) -> set[tuple[int, int]]:
    """The stones of the string on ``start`` of a square ``board``: a plain flood fill."""
    colour, size = board[start], board.shape[0]
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= q[0] < size and 0 <= q[1] < size and q not in seen and board[q] == colour:
                seen.add(q)
                todo.append(q)
    return seen


def _beside(points: set[tuple[int, int]], size: int) -> set[tuple[int, int]]:
    return {
        q
        for r, c in points
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))
        if 0 <= q[0] < size and 0 <= q[1] < size and q not in points
    }


def _killable(points: set[tuple[int, int]]) -> bool:
    """The nakade shapes, read from the points' neighbour counts and 2x2 squares."""
    degrees = [len(_beside({p}, 99) & points) for p in points]
    square = any({(r + 1, c), (r, c + 1), (r + 1, c + 1)} <= points for r, c in points)
    k = len(points)
    return {4: square or max(degrees) == 3, 5: square or max(degrees) == 4}.get(
        k, k <= 3 or (k == 6 and square and max(degrees) == 4)
    )


def _sacrifice_read_by_hand(s: np.ndarray, size: int, p: int, colour: int) -> bool:
    """The definition, on the board after the move: a string of two to six stones with one
    liberty, every other neighbour of it and of that liberty a stone of one enemy string, which
    the string's capture would leave a killable eye space."""
    t = s.copy()
    assert f.play(t, size, p, colour, False) == f.OK
    board = t[: size * size].reshape(size, size)
    string = _string(board, divmod(p, size))
    around = _beside(string, size)
    liberties = [q for q in around if board[q] == 0]
    if not 2 <= len(string) <= 6 or len(liberties) != 1:
        return False
    enemies = [q for q in around if board[q] == 3 - colour]
    enclosing = _string(board, enemies[0]) if enemies else set()
    lib_sides = _beside({liberties[0]}, size) - string
    return (
        all(q in enclosing for q in enemies)
        and all(q in enclosing for q in lib_sides)
        and _killable(string)
    )


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), size=st.sampled_from([5, 7, 9]), plies=st.integers(20, 120))
def test_nakade_sacrifice_agrees_with_the_board_read_by_hand(
    seed: int, size: int, plies: int
) -> None:
    """On random positions, for every legal point and both colours, against the definition
    read on the board after the move with plain flood fills."""
    s = random_state(size, seed, plies)
    work = np.empty_like(s)
    for colour in (BLACK, WHITE):
        for p in range(size * size):
            if f.check(s, size, p, colour, False) == f.OK:
                expected = _sacrifice_read_by_hand(s, size, p, colour)
                assert f.nakade_sacrifice(s, size, p, colour, False, work) is expected, (p, colour)
