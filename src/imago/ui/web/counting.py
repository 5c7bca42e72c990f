"""The end of a Go game on the page: dead stones, the count, and what to shade.

:func:`count_go` is the one adapter to the rules' public scoring API (the same calls that
``imago play`` and GTP's ``final_score`` make through :mod:`imago.gtp.go_support`), so the
page counts exactly as the rest of imago does: dead stones and seki as the referee's count
(:func:`imago.games.go.count`) judges them until the user marks others. Stones the count could
not decide (an unsettled position: the game stopped before the fights did) are never proposed
dead: they stay on the board as they stand and are listed as unsettled, so that the players
play on or mark them, rather than accept a count nobody would.
:func:`territory` only says which points to shade for whom; the numbers come from the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from imago.core.game import GameState, Outcome
from imago.core.move import Point
from imago.games.go.rules import Scoring
from imago.gtp import go_support


@dataclass(frozen=True, slots=True)
class GoCount:
    """A counted position: the dead stones, those in seki, the outcome, and the stones the
    referee's count could not decide (none in a settled position)."""

    dead: frozenset[Point]
    seki: frozenset[Point]
    outcome: Outcome
    unsettled: frozenset[Point] = frozenset()


def count_go(
    position: GameState, dead: frozenset[Point] | None = None, handicap: int = 0
) -> GoCount:
    """Count a finished Go position with ``dead`` stones removed (``None``: the referee's
    judgement of them, :func:`imago.games.go.count`); ``handicap``: the stones Black was given
    (a point each for White under area counting)."""
    judged = go_support.judged(position, handicap)
    unsettled = judged.unsettled
    if dead is None:
        if not unsettled:
            return GoCount(judged.dead, judged.seki, judged.outcome)
        dead = judged.dead - unsettled  # only what the count could decide
    return GoCount(
        dead,
        go_support.seki_stones(position, dead),
        go_support.score(position, handicap, dead),
        unsettled,
    )


def string_of(position: GameState, start: Point) -> frozenset[Point]:
    """The stones connected to the one on ``start`` (empty when ``start`` is empty)."""
    board = position.board()
    size = position.size
    colour = int(board[start.row, start.col])
    if not colour:
        return frozenset()
    found = {start}
    todo = [start]
    while todo:
        p = todo.pop()
        for q in (Point(p.row - 1, p.col), Point(p.row + 1, p.col), Point(p.row, p.col - 1),
                  Point(p.row, p.col + 1)):  # fmt: skip
            if q.on_board(size) and q not in found and int(board[q.row, q.col]) == colour:
                found.add(q)
                todo.append(q)
    return frozenset(found)


def territory(position: GameState, count: GoCount) -> dict[str, list[Point]]:
    """The points to shade for each colour (``"B"``, ``"W"``): empty or dead-stone points
    whose region borders only that colour's living stones (under territory scoring, not a
    region beside a seki)."""
    board = position.board().copy()
    size = position.size
    for p in count.dead:
        board[p.row, p.col] = 0
    territory_rules = (
        getattr(getattr(position, "rules", None), "scoring", None) is Scoring.TERRITORY
    )
    seen: set[Point] = set()
    shaded: dict[str, list[Point]] = {"B": [], "W": []}
    for row in range(size):
        for col in range(size):
            start = Point(row, col)
            if board[row, col] or start in seen:
                continue
            region, touches, near_seki = _region(board, size, start, count.seki)
            seen |= region
            if touches in (1, 2) and not (territory_rules and near_seki):
                shaded["B" if touches == 1 else "W"].extend(region)
    return shaded


def _region(
    board: object, size: int, start: Point, seki: frozenset[Point]
) -> tuple[set[Point], int, bool]:
    cells = board  # a numpy array of the board with dead stones removed
    region = {start}
    todo = [start]
    touches = 0
    near_seki = False
    while todo:
        p = todo.pop()
        for q in (Point(p.row - 1, p.col), Point(p.row + 1, p.col), Point(p.row, p.col - 1),
                  Point(p.row, p.col + 1)):  # fmt: skip
            if not q.on_board(size):
                continue
            value = int(cells[q.row, q.col])  # type: ignore[index]
            if value:
                touches |= value
                near_seki = near_seki or q in seki
            elif q not in region:
                region.add(q)
                todo.append(q)
    return region, touches, near_seki
