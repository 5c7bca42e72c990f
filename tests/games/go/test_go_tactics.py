"""The fast path's tactical reads, :func:`fastpath.self_atari` and :func:`fastpath.escape_keeps`
(shared by the count's playouts and the search's playouts): a table of positions read by eye,
and random positions checked against the move played out with the liberty counter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from go_positions import random_state
from imago.games.go import fastpath as f
from imago.games.go.position import GoPosition

BLACK, WHITE = f.BLACK, f.WHITE

# (why, diagram, move, colour, self_atari, escape_keeps); the diagrams are set up, not played.
TABLE = [
    ("extending a string to one liberty", """
        . O . . .
        X O . . .
        . O . . .
        O . . . .
        . . . . .
     """, "A3", BLACK, True, False),
    ("a lone stone with one liberty is no self-atari of a string", """
        . O . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
     """, "A5", BLACK, False, False),
    ("two empty neighbours settle it", """
        . . . . .
        . . . . .
        . X . . .
        . . . . .
        . . . . .
     """, "B2", BLACK, False, True),
    ("escaping from atari to two liberties", """
        . . . . .
        . . . . .
        . O . . .
        O X O . .
        . . . . .
     """, "B1", BLACK, False, True),
    ("escaping from atari into atari", """
        . . . . .
        . . . . .
        . O . . .
        O X O . .
        O . . . .
     """, "B1", BLACK, True, False),
    ("a capture that leaves the string liberties", """
        . . . . .
        . . . . .
        . . . . .
        . O . . .
        X O . . .
     """, "A2", WHITE, False, True),
]  # fmt: skip


def _setup(diagram: str, move: str) -> tuple[np.ndarray, int, int]:
    position = GoPosition.from_diagram(diagram)
    return f.to_arrays(position), position.parse_move(move).to_action(position.size), position.size


@pytest.mark.parametrize(
    ("diagram", "move", "colour", "atari", "keeps"),
    [row[1:] for row in TABLE],
    ids=[row[0] for row in TABLE],
)
def test_self_atari_and_escape_keeps_read_the_diagrams(
    diagram: str, move: str, colour: int, atari: bool, keeps: bool
) -> None:
    s, action, size = _setup(diagram, move)
    before = s.copy()
    work = np.empty_like(s)
    assert f.self_atari(s, size, action, colour, False, work) is atari
    assert f.escape_keeps(s, size, action, colour, False, work) is keeps
    assert np.array_equal(s, before)  # both read `s` and play on `work`


def test_a_suicide_of_two_stones_is_a_self_atari_where_the_rules_allow_it() -> None:
    s, action, size = _setup(
        """
        X . O . .
        O O . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        "B5",
    )
    work = np.empty_like(s)
    assert f.self_atari(s, size, action, BLACK, True, work)
    assert not f.escape_keeps(s, size, action, BLACK, True, work)


def _played_out(s: np.ndarray, size: int, p: int, colour: int) -> tuple[int, int]:
    """The stones and liberties of ``colour``'s string on ``p`` once ``p`` is played (0, 0 when
    it was taken off: suicide), from the play kernel and the liberty counter alone."""
    t = s.copy()
    assert f.play(t, size, p, colour, True) == f.OK
    if t[p] != colour:
        return 0, 0
    libs = np.empty(size * size, dtype=np.int64)
    f.liberties(t[: size * size].copy(), size, libs)
    nn = size * size
    return f.group_size(t, nn, f.group_head(t, nn, p)), int(libs[p])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), size=st.sampled_from([5, 7, 9]), plies=st.integers(5, 70))
def test_both_agree_with_the_move_played_out(seed: int, size: int, plies: int) -> None:
    """On random positions, for every legal point and both colours (suicide allowed), against
    the move played and its string's liberties counted."""
    s = random_state(size, seed, plies)
    work = np.empty_like(s)
    for colour in (BLACK, WHITE):
        for p in range(size * size):
            if f.check(s, size, p, colour, True) != f.OK:
                continue
            stones, libs = _played_out(s, size, p, colour)
            # suicide: a string of two or more taken off; a lone stone's suicide is no self-atari
            atari = (stones >= 2 and libs <= 1) or (
                stones == 0 and _joins_friends(s, size, p, colour)
            )
            assert f.self_atari(s, size, p, colour, True, work) is atari, (p, colour)
            assert f.escape_keeps(s, size, p, colour, True, work) is (stones > 0 and libs >= 2)


def _joins_friends(s: np.ndarray, size: int, p: int, colour: int) -> bool:
    r, c = divmod(p, size)
    neighbours = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    return any(
        0 <= rr < size and 0 <= cc < size and s[rr * size + cc] == colour for rr, cc in neighbours
    )
