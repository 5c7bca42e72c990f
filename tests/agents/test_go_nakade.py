"""Nakade in the Go playouts: the classic killable eye shapes, the sacrifice that leaves one,
and the vital point that answers its capture. Without them a playout never kills a group whose
eye space holds a few enemy stones (the misjudgement of ``az``'s lost games against Pachi)."""

from __future__ import annotations

import numpy as np
import pytest

from imago.agents.go import _mcts as km
from imago.agents.go import _playouts as hk
from imago.agents.go._patterns import POLICY_PATTERN, pattern_table
from imago.games.go import fastpath as gf
from imago.games.go.position import GoPosition

BLACK, WHITE = 1, 2


def _shape_points(diagram: str) -> tuple[np.ndarray, int]:
    """The ``#`` points of a square diagram, as actions on its board; the board's size."""
    rows = [row.replace(" ", "") for row in diagram.strip().splitlines()]
    size = len(rows)
    points = [r * size + c for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
    return np.array(points, dtype=np.int64), size


SHAPES = [
    # (name, diagram, killable)
    ("one point", "# . . .\n. . . .\n. . . .\n. . . .", True),
    ("straight three", "# # # .\n. . . .\n. . . .\n. . . .", True),
    ("bent three", "# # . .\n# . . .\n. . . .\n. . . .", True),
    ("square four", "# # . .\n# # . .\n. . . .\n. . . .", True),
    ("pyramid four", ". # . .\n# # # .\n. . . .\n. . . .", True),
    ("straight four", "# # # #\n. . . .\n. . . .\n. . . .", False),
    ("bent four", "# # # .\n# . . .\n. . . .\n. . . .", False),
    ("zigzag four", "# # . .\n. # # .\n. . . .\n. . . .", False),
    ("bulky five", "# # # .\n# # . .\n. . . .\n. . . .", True),
    ("crossed five", ". # . .\n# # # .\n. # . .\n. . . .", True),
    ("T five", "# # # .\n. # . .\n. # . .\n. . . .", False),
    ("L five", "# . . .\n# . . .\n# . . .\n# # . .", False),
    ("rabbity six", "# # . .\n# # # .\n. # . .\n. . . .", True),
    ("rectangular six", "# # # .\n# # # .\n. . . .\n. . . .", False),
    ("seven", "# # # #\n# # # .\n. . . .\n. . . .", False),
    # four points on both edges: a square only if rows wrapped around (3+1 = 4, 7+1 = 8)
    ("not a square across the edges", ". . . #\n# . . #\n# . . .\n. . . .", False),
]


@pytest.mark.parametrize(("name", "diagram", "killable"), SHAPES, ids=[s[0] for s in SHAPES])
def test_the_classic_nakade_shapes_and_only_they_are_killable(
    name: str, diagram: str, killable: bool
) -> None:
    points, size = _shape_points(diagram)
    assert hk.nakade_shape(points, len(points), size) is killable, name


# White's lower-left group of a lost game against Pachi (move 59, Black to play): White
# thought it alive, in seki with Black's three stones A3-A2-B2. In the game Black played A4,
# then B3, which put five stones in atari inside White's group; White's capture left the bulky
# five A2-A3-A4-B2-B3, and Black's A3 killed (GNU Go: all ten white stones dead).
PACHI_GAME = """
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


def _arrays(diagram: str, to_play: str = "black") -> tuple[GoPosition, np.ndarray]:
    from imago.core.color import Color

    position = GoPosition.from_diagram(
        diagram, to_play=Color.BLACK if to_play == "black" else Color.WHITE
    )
    return position, gf.to_arrays(position)


def _action(position: GoPosition, name: str) -> int:
    return position.parse_move(name).to_action(position.size)


@pytest.mark.parametrize(
    ("diagram", "move", "sacrifice"),
    [
        # five stones into atari inside White's group, leaving a bulky five: a sacrifice
        (PACHI_GAME, "A4", False),  # no atari: two liberties left (B3, A1)
        (PACHI_GAME.replace(". O O X X O O O .", "X O O X X O O O ."), "B3", True),
        # three stones along the edge, leaving a straight three: a sacrifice
        (
            """
            X X . . O . .
            O O O O O . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            """,
            "C7",
            True,
        ),
        # four stones leaving a straight four, which lives: no sacrifice
        (
            """
            X X X . . O .
            O O O O O O .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            """,
            "D7",
            False,
        ),
        # in atari beside two white groups (B3-B5 and A2), not inside one: no sacrifice
        (
            """
            . O . . .
            X O . . .
            . O . . .
            O . . . .
            . . . . .
            """,
            "A3",
            False,
        ),
    ],
)
def test_a_self_atari_is_a_sacrifice_only_inside_one_group_leaving_a_killable_shape(
    diagram: str, move: str, sacrifice: bool
) -> None:
    position, s = _arrays(diagram)
    before = s.copy()
    work = np.empty_like(s)
    p = _action(position, move)
    assert hk.nakade_sacrifice(s, position.size, p, BLACK, False, work) is sacrifice
    if sacrifice:
        assert gf.self_atari(s, position.size, p, BLACK, False, work)
        assert not hk.bad_self_atari(s, position.size, p, BLACK, False, work)
    assert (s == before).all()  # the state is untouched


@pytest.mark.parametrize(
    ("diagram", "closing", "vital"),
    [
        # White closes a straight three on the edge: Black's vital point is its middle
        (
            """
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O O O . . .
            . . . . . . .
            """,
            "D1",
            "B1",
        ),
        # a pyramid four in the corner: its centre
        (
            """
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O O . . . .
            O . O O . . .
            . . . . . . .
            """,
            "D1",
            "B1",
        ),
        # a straight four lives whoever plays first: no vital point
        (
            """
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O O O O . .
            . . . . . . .
            """,
            "E1",
            None,
        ),
        # a straight three touching a black stone is not White's eye space alone
        (
            """
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O X O . . .
            . . . . . . .
            """,
            "D1",
            None,
        ),
    ],
)
def test_the_vital_point_of_an_eye_space_beside_the_last_move(
    diagram: str, closing: str, vital: str | None
) -> None:
    position, s = _arrays(diagram, to_play="white")
    size = position.size
    assert gf.play(s, size, _action(position, closing), WHITE, False) == gf.OK
    buf = np.empty(size * size, dtype=np.int64)
    expected = -1 if vital is None else _action(position, vital)
    assert hk.vital_point_move(s, size, BLACK, False, buf) == expected


@pytest.mark.parametrize("policy", [hk.POLICY_HEAVY, POLICY_PATTERN])
def test_playouts_kill_a_group_whose_eye_space_holds_a_nakade(policy: int) -> None:
    """GNU Go counts White's lower-left group of :data:`PACHI_GAME` dead; the playouts, which
    once never killed it (they would not sacrifice two or more stones), now mostly do."""
    position, s0 = _arrays(PACHI_GAME)
    c3 = _action(position, "C3")  # one of the group's stones
    rng = gf.seed_rng(3)
    table = pattern_table()
    first = np.zeros(82, dtype=np.int8)
    owner = np.empty(81, dtype=np.int64)
    dead = 0
    games = 200
    for _ in range(games):
        s = s0.copy()
        km.playout(s, 9, 7.0, False, 400, rng, first, policy, table)
        gf.area(s, 9, owner)
        dead += int(owner[c3] == BLACK)
    assert dead / games >= 0.75
