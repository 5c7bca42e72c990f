"""Nakade in the Go playouts: the vital point that answers the capture of a sacrifice, and
playouts that kill a group whose eye space holds a few enemy stones (without them they count it
alive: the misjudgement of ``az``'s lost games against Pachi). The shapes and the sacrifice
themselves are the rules' kernels (``tests/games/go/test_go_nakade_kernels.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from go_positions import PACHI_BULKY_FIVE
from imago.agents.go import _mcts as km
from imago.agents.go import _playouts as hk
from imago.agents.go._patterns import POLICY_PATTERN, pattern_table
from imago.games.go import fastpath as gf
from imago.games.go.position import GoPosition

BLACK, WHITE = 1, 2


def _arrays(diagram: str, to_play: str = "black") -> tuple[GoPosition, np.ndarray]:
    from imago.core.color import Color

    position = GoPosition.from_diagram(
        diagram, to_play=Color.BLACK if to_play == "black" else Color.WHITE
    )
    return position, gf.to_arrays(position)


def _action(position: GoPosition, name: str) -> int:
    return position.parse_move(name).to_action(position.size)


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
    """GNU Go counts White's lower-left group of :data:`PACHI_BULKY_FIVE` dead; the playouts, which
    once never killed it (they would not sacrifice two or more stones), now mostly do."""
    position, s0 = _arrays(PACHI_BULKY_FIVE)
    c3 = _action(position, "C3")  # one of the group's stones
    rng = gf.seed_rng(3)
    table = pattern_table()
    first = np.zeros(82, dtype=np.int8)
    owner = np.empty(81, dtype=np.int64)
    dead = 0
    games = 1000  # about 0.8 are killed: 0.75 is four standard deviations below
    for _ in range(games):
        s = s0.copy()
        km.playout(s, 9, 7.0, False, 400, rng, first, policy, table)
        gf.area(s, 9, owner)
        dead += int(owner[c3] == BLACK)
    assert dead / games >= 0.75
