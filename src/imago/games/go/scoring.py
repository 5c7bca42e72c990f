"""Counting a finished game: area and territory scores, stone status, and a dead-stone estimate.

* **Area** (Chinese, Tromp-Taylor): a player's stones plus the empty points that reach only that
  player's stones. With no dead stones given this is exact Tromp-Taylor scoring.
* **Territory** (Japanese): the empty points surrounded by one player, plus the prisoners
  (captures, and dead stones taken off at the end). Points inside or beside a seki are not
  territory.

Dead stones are given by the caller (a person, GTP ``final_status_list``, a record) or estimated
by :func:`estimate_dead_stones`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

import numpy as np

from imago.core.color import Color
from imago.core.game import Outcome
from imago.core.move import Point
from imago.games.go import _kernels as K
from imago.games.go.position import GoPosition
from imago.games.go.rules import Scoring


class StoneStatus(enum.Enum):
    """The status of a stone at the end of a game (GTP ``final_status_list``)."""

    ALIVE = "alive"
    DEAD = "dead"
    SEKI = "seki"


class _Board:
    """A plain-Python board for the (cold) counting code."""

    def __init__(self, position: GoPosition, dead: Iterable[Point]) -> None:
        self.size = position.size
        self.cells: list[int] = position.board().reshape(-1).tolist()
        self.removed = [0, 0, 0]  # dead stones removed, by colour
        for point in dead:
            index = point.index(self.size)
            colour = self.cells[index]
            if colour:
                self.removed[colour] += 1
                self.cells[index] = 0
        n = self.size
        self.neighbors = [
            [q for q in (p - n, p + n) if 0 <= q < n * n]
            + [q for q in (p - 1, p + 1) if 0 <= q < n * n and q // n == p // n]
            for p in range(n * n)
        ]

    def block(self, start: int) -> tuple[set[int], set[int]]:
        """The connected points of ``start``'s value, and the values/points bordering them:
        returns (block, border points)."""
        value = self.cells[start]
        block, border, todo = {start}, set(), [start]
        while todo:
            p = todo.pop()
            for q in self.neighbors[p]:
                if self.cells[q] == value:
                    if q not in block:
                        block.add(q)
                        todo.append(q)
                else:
                    border.add(q)
        return block, border

    def regions(self) -> list[tuple[set[int], int]]:
        """Every empty region with the colours it touches (bit 1 black, bit 2 white)."""
        seen: set[int] = set()
        out = []
        for p, value in enumerate(self.cells):
            if value or p in seen:
                continue
            block, border = self.block(p)
            seen |= block
            touches = 0
            for q in border:
                touches |= self.cells[q]
            out.append((block, touches))
        return out

    def self_atari(self, p: int, colour: int) -> bool:
        """Whether ``colour`` playing on empty ``p`` leaves its string one liberty or none,
        capturing nothing."""
        libs = {q for q in self.neighbors[p] if self.cells[q] == 0}
        for q in self.neighbors[p]:
            value = self.cells[q]
            if value == 0:
                continue
            _, border = self.block(q)
            block_libs = {b for b in border if self.cells[b] == 0}
            if value == colour:
                libs |= block_libs
            elif block_libs == {p}:
                return False  # it captures
        libs.discard(p)
        return len(libs) <= 1

    def seki_strings(self) -> set[int]:
        """Stones of strings that touch a neutral point where either player would self-atari."""
        seki: set[int] = set()
        for region, touches in self.regions():
            if touches != 3:
                continue
            for p in region:
                if self.self_atari(p, 1) and self.self_atari(p, 2):
                    for q in self.neighbors[p]:
                        if self.cells[q]:
                            seki |= self.block(q)[0]
        return seki


def area_counts(position: GoPosition, dead: Iterable[Point] = ()) -> tuple[int, int]:
    """Area counts ``(black, white)`` after taking ``dead`` stones off the board."""
    dead = list(dead)
    if not dead:
        b, w = K.area_score(position._s, position.size)
        return int(b), int(w)
    board = _Board(position, dead)
    counts = [0, 0, 0]
    for value in board.cells:
        counts[value] += 1
    for region, touches in board.regions():
        if touches in (1, 2):
            counts[touches] += len(region)
    return counts[1], counts[2]


def territory_counts(position: GoPosition, dead: Iterable[Point] = ()) -> tuple[int, int]:
    """Territory counts ``(black, white)``: surrounded empty points not in or beside a seki,
    plus captures, plus the opponent's ``dead`` stones."""
    board = _Board(position, dead)
    seki = board.seki_strings()
    counts = [0, 0, 0]
    for region, touches in board.regions():
        if touches not in (1, 2):
            continue
        borders = {q for p in region for q in board.neighbors[p] if board.cells[q]}
        if borders & seki:
            continue
        counts[touches] += len(region)
    black = counts[1] + position.captures(Color.BLACK) + board.removed[2]
    white = counts[2] + position.captures(Color.WHITE) + board.removed[1]
    return black, white


def score(
    position: GoPosition, dead: Iterable[Point] = (), scoring: Scoring | None = None
) -> Outcome:
    """The outcome by the rules' scoring (or ``scoring``) with ``dead`` stones removed;
    komi goes to White."""
    method = scoring or position.rules.scoring
    counter = area_counts if method is Scoring.AREA else territory_counts
    black, white = counter(position, dead)
    white_total = white + position.komi
    margin = black - white_total
    winner = Color.BLACK if margin > 0 else Color.WHITE if margin < 0 else None
    return Outcome(winner, abs(margin), False, float(black), float(white_total))


def final_status(position: GoPosition, dead: Iterable[Point]) -> dict[Point, StoneStatus]:
    """The status of every stone given the ``dead`` ones: dead, in seki, or alive."""
    dead_set = set(dead)
    board = _Board(position, dead_set)
    seki = board.seki_strings()
    size = position.size
    status: dict[Point, StoneStatus] = {}
    for colour in (Color.BLACK, Color.WHITE):
        for point in position.stones(colour):
            if point in dead_set:
                status[point] = StoneStatus.DEAD
            elif point.index(size) in seki:
                status[point] = StoneStatus.SEKI
            else:
                status[point] = StoneStatus.ALIVE
    return status


def ownership(position: GoPosition, playouts: int = 256, seed: int = 1) -> np.ndarray:
    """The mean final owner of every point over random playouts from ``position`` (passes
    reset): ``(size, size)`` floats from -1 (White) to +1 (Black)."""
    size = position.size
    state = position.arrays()
    state[10 * size * size + K.F_PASSES] = 0
    rng = np.array([seed * 0x9E3779B97F4A7C15 % (1 << 63) or 1], dtype=np.int64)
    total = np.zeros(size * size, dtype=np.int64)
    K.playouts(
        state,
        size,
        position.komi,
        position.rules.suicide_allowed,
        playouts,
        3 * size * size + 100,
        rng,
        total,
    )
    return (total / max(playouts, 1)).reshape(size, size)


def estimate_dead_stones(
    position: GoPosition, playouts: int = 256, seed: int = 1, threshold: float = 0.5
) -> frozenset[Point]:
    """Guess the dead stones of a finished game from uniformly random playouts.

    A string is called dead when, averaged over its stones and over ``playouts`` random
    continuations (both players playing uniformly random moves that do not fill their own true
    eyes), the opponent owns its points at the end with a margin above ``threshold``.

    Limits, honestly: random playouts know nothing of tactics. They are right about stones that
    are clearly captured or clearly alive in a finished game, but can be wrong about seki (random
    play often destroys one side of a seki; the threshold keeps most seki stones alive),
    semeai (capturing races) decided by a liberty, groups whose life needs one precise reply, and
    unfinished positions with large open areas. Use it to score bot games and records, not to
    settle a disputed result.
    """
    owned = ownership(position, playouts, seed).reshape(-1)
    size = position.size
    cells = position.board().reshape(-1)
    dead: set[Point] = set()
    seen: set[int] = set()
    board = _Board(position, ())
    for p in range(size * size):
        value = int(cells[p])
        if not value or p in seen:
            continue
        block, _ = board.block(p)
        seen |= block
        sign = 1.0 if value == K.BLACK else -1.0
        mean = sum(float(owned[q]) for q in block) / len(block)
        if sign * mean < -threshold:
            dead.update(Point(*divmod(q, size)) for q in block)
    return frozenset(dead)


def auto_score(position: GoPosition, playouts: int = 256, seed: int = 1) -> Outcome:
    """Score a finished game without a person: :func:`estimate_dead_stones`, then the rules'
    scoring (a resignation is returned as such)."""
    if position.resigned is not None:
        return Outcome(position.resigned.opponent, by_resignation=True)
    return score(position, estimate_dead_stones(position, playouts, seed))
