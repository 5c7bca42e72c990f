"""What the engine core needs from the Go rules beyond the game protocol: rule presets with
GTP's names and defaults, handicap placement, captures, dead stones and scoring (the referee's
count, :func:`imago.games.go.count`).

Default rules are those of computer-Go servers (:func:`rules_for` with ``"computer"``): area
scoring, positional superko, suicide forbidden, komi 7 on 9x9 and 7.5 on other boards unless
komi is set.
"""

from __future__ import annotations

from imago.core.color import Color
from imago.core.game import GameState, Outcome
from imago.core.move import Move, Point
from imago.games.go.handicap import fixed_handicap_points as _fixed_points
from imago.games.go.handicap import max_fixed_handicap
from imago.games.go.position import GoPosition
from imago.games.go.rules import GoRules
from imago.games.go.scoring import Count, StoneStatus, count, final_status
from imago.games.go.scoring import score as score_with_dead

DEFAULT_RULES = "computer"
RULE_NAMES: tuple[str, ...] = GoRules.PRESETS
KGS_RULES = {"japanese": "japanese", "chinese": "chinese", "aga": "aga", "new_zealand": "nz"}
"""``kgs-rules`` names -> imago's rule presets."""


def rules_for(name: str, size: int, komi: float | None) -> GoRules:
    """The preset ``name`` with ``komi`` (``None``: the preset's komi for the board,
    :meth:`GoRules.preset`: 7 on 9x9 and 7.5 elsewhere for the computer rules)."""
    rules = GoRules.preset(name, size)
    return rules if komi is None else rules.with_komi(komi)


def _position(state: GameState) -> GoPosition:
    if not isinstance(state, GoPosition):
        raise TypeError("not a Go position")
    return state


def fixed_handicap_points(size: int, stones: int) -> tuple[Point, ...]:
    """GTP's ``fixed_handicap`` points; ``ValueError`` when not allowed."""
    return _fixed_points(size, stones)


def free_handicap_points(size: int, stones: int) -> tuple[Point, ...]:
    """Points for ``place_free_handicap``: the fixed points as far as they go, then the free
    points nearest the centre (ties broken by reading order)."""
    if not 2 <= stones < size * size:
        raise ValueError(f"invalid number of handicap stones {stones}")
    fixed = min(stones, max_fixed_handicap(size))
    chosen = list(_fixed_points(size, fixed)) if fixed >= 2 else []
    centre = (size - 1) / 2
    others = sorted(
        (Point(r, c) for r in range(size) for c in range(size)),
        key=lambda p: (abs(p.row - centre) + abs(p.col - centre), p.row, p.col),
    )
    for point in others:
        if len(chosen) == stones:
            break
        if point not in chosen:
            chosen.append(point)
    return tuple(chosen)


def captures(state: GameState, color: Color) -> int:
    """Stones ``color`` has captured."""
    return _position(state).captures(color)


_COUNTS: dict[tuple[object, ...], Count] = {}
"""The last few counts, by position and handicap (a count is deterministic, and GTP asks for
``final_score`` and each ``final_status_list`` of the same position in turn)."""


def judged(state: GameState, handicap: int = 0) -> Count:
    """imago's count of the position: every stone's status and the score
    (:func:`imago.games.go.count`)."""
    position = _position(state)
    key = (
        position.key,
        position.rules,
        position.captures(Color.BLACK),
        position.captures(Color.WHITE),
        handicap,
    )
    found = _COUNTS.get(key)
    if found is None or found.position.board().tobytes() != position.board().tobytes():
        if len(_COUNTS) >= 8:
            _COUNTS.clear()
        found = _COUNTS[key] = count(position, handicap=handicap)
    return found


def dead_stones(state: GameState) -> frozenset[Point]:
    """The stones judged dead."""
    return judged(state).dead


def seki_stones(state: GameState, dead: frozenset[Point] | None = None) -> frozenset[Point]:
    """The stones alive in seki: as judged (``dead`` is ``None``), or once the ``dead`` stones
    someone marked are taken off."""
    if dead is None:
        return judged(state).seki
    status = final_status(_position(state), dead)
    return frozenset(p for p, s in status.items() if s is StoneStatus.SEKI)


def score(state: GameState, handicap: int = 0, dead: frozenset[Point] | None = None) -> Outcome:
    """The score by the position's rules (area or territory) with the stones judged dead (or
    the ``dead`` ones someone marked) taken off; under area counting White gets a point per
    handicap stone."""
    if dead is None:
        return judged(state, handicap).outcome
    return score_with_dead(_position(state), dead, handicap=handicap)


def cleanup_move(state: GameState, color: Color, dead: frozenset[Point]) -> Move | None:
    """A legal move for ``color`` on a liberty of an opponent stone judged dead (``None`` when
    there is none): what ``kgs-genmove_cleanup`` plays instead of passing."""
    position = _position(state).with_setup(to_play=color)
    targets = [p for p in sorted(dead) if position.color_at(p) is color.opponent]
    size = position.size
    for point in targets:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            neighbour = Point(point.row + dr, point.col + dc)
            move = Move.play(neighbour)
            if neighbour.on_board(size) and position.is_legal(move, color):
                return move
    return None
