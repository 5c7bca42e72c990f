"""Fixed handicap placements, as GTP's ``fixed_handicap`` defines them.

The stones go on the 3-3 points on boards up to 11x11 and on the 4-4 points from 12x12 on, in
the GTP order (for 19x19: D4 Q16 D16 Q4, then the centre K10 for 5 and 7, the sides D10 Q10 for
6 to 9, K4 K16 for 8 and 9). Odd boards from 9x9 take up to 9 stones; 7x7 and even boards from
8x8 take up to 4; boards under 7x7 take none.
"""

from __future__ import annotations

from imago.core.move import Point


def max_fixed_handicap(size: int) -> int:
    """The largest fixed handicap on a ``size`` x ``size`` board (0 below 7x7)."""
    if size % 2 == 1 and size >= 9:
        return 9
    if size >= 7:
        return 4
    return 0


def fixed_handicap_points(size: int, stones: int) -> tuple[Point, ...]:
    """Where GTP's ``fixed_handicap stones`` puts Black's stones on a ``size`` board."""
    limit = max_fixed_handicap(size)
    if not 2 <= stones <= limit:
        raise ValueError(
            f"a fixed handicap on {size}x{size} is 2..{limit} stones, not {stones}"
            if limit
            else f"no fixed handicap on a {size}x{size} board"
        )
    line = 3 if size >= 12 else 2  # 0-based distance from the edge (GNU Go: 4th line from 12)
    low, high, mid = line, size - 1 - line, size // 2
    # (row, col) with row 0 at the top: D4 is the bottom-left 4-4 point.
    d4, q16, d16, q4 = (high, low), (low, high), (low, low), (high, high)
    d10, q10, k4, k16, k10 = (mid, low), (mid, high), (high, mid), (low, mid), (mid, mid)
    corners = [d4, q16, d16, q4]
    order = {
        2: corners[:2],
        3: corners[:3],
        4: corners,
        5: [*corners, k10],
        6: [*corners, d10, q10],
        7: [*corners, d10, q10, k10],
        8: [*corners, d10, q10, k4, k16],
        9: [*corners, d10, q10, k4, k16, k10],
    }[stones]
    return tuple(Point(r, c) for r, c in order)
