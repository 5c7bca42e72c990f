"""Counting a finished game: which stones are dead or in seki, and the score, as a referee would.

* **Area** (Chinese, Tromp-Taylor): a player's stones plus the empty points that reach only that
  player's stones. With no dead stones given this is exact Tromp-Taylor scoring.
* **Territory** (Japanese): the empty points surrounded by one player, plus the prisoners
  (captures, and dead stones taken off at the end). Points inside or beside a seki are not
  territory.

:func:`count` judges every stone itself (see its docstring for how, and for what it cannot
decide) and returns a :class:`Count`: the status of every stone, who owns every point, and the
score by the rules. :func:`score` counts with dead stones given by the caller (a person marking
them, or a record).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.game import Outcome
from imago.core.move import Point
from imago.games.go import _count_kernels as CK
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


def area_owners(position: GoPosition, dead: Iterable[Point] = ()) -> npt.NDArray[np.int8]:
    """Who owns each point by area after taking ``dead`` stones off, as ``(size, size)`` (row 0
    at the top): 1 Black, 2 White (a stone, or an empty region that only that colour's stones
    border), 0 neither (a region both colours border, or an empty board). Their counts are
    :func:`area_counts`; self-play's ownership targets are these owners at a game's end."""
    board = _Board(position, dead)
    owners = list(board.cells)
    for region, touches in board.regions():
        if touches in (1, 2):
            for p in region:
                owners[p] = touches
    return np.array(owners, dtype=np.int8).reshape(position.size, position.size)


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
    position: GoPosition,
    dead: Iterable[Point] = (),
    scoring: Scoring | None = None,
    *,
    handicap: int = 0,
) -> Outcome:
    """The outcome by the rules' scoring (or ``scoring``) with ``dead`` stones removed;
    komi goes to White, and under area counting a point per ``handicap`` stone too (as
    :attr:`Count.handicap`)."""
    if handicap < 0:
        raise ValueError(f"handicap must not be negative, not {handicap}")
    method = scoring or position.rules.scoring
    if method is Scoring.AREA:
        black, white = area_counts(position, dead)
        white += handicap
    else:
        black, white = territory_counts(position, dead)
    return _outcome(black, white, position.komi)


def _outcome(black: int, white: int, komi: float) -> Outcome:
    white_total = white + komi
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


# -- the referee's count ------------------------------------------------------------------------
_STATUSES: dict[int, StoneStatus] = {
    CK.ST_ALIVE: StoneStatus.ALIVE,
    CK.ST_DEAD: StoneStatus.DEAD,
    CK.ST_SEKI: StoneStatus.SEKI,
}


def default_playouts(size: int) -> int:
    """The most playouts :func:`count` runs on a ``size`` board (fewer when every stone is
    clear-cut early)."""
    return 1024 if size <= 9 else 512 if size <= 13 else 256


def default_simulations(size: int) -> int:
    """The simulations :func:`count` searches each group left in doubt with."""
    return 2000 if size <= 9 else 1000


@dataclass(frozen=True, eq=False)
class Count:
    """The judged end of a game (see :func:`count`): every stone's status, every point's owner,
    and the score.

    Arrays are ``(size, size)``, row 0 at the top as in :meth:`GoPosition.board`. ``owner`` holds
    who owns each point for area counting (1 Black, 2 White, 0 dame; dead stones' points belong
    to the other colour), ``territory`` the same for territory counting (empty or emptied points
    only, none next to a stone in seki).
    """

    position: GoPosition
    status: dict[Point, StoneStatus]
    """The status of every stone on the board."""
    handicap: int
    """Handicap stones Black was given: under area counting White gets a point for each, as
    Chinese rules, GNU Go and servers count."""
    alive_rate: dict[Point, float]
    """For each stone, the fraction of the playouts (its opponent moving first) at whose end its
    point was still its colour's; 1.0 for stones proven alive, 0.0 for stones proven dead."""
    unsettled: frozenset[Point]
    """Stones the analysis could not decide: their status is only the likelier one."""
    proven: frozenset[Point]
    """Stones whose status is certain (Benson's unconditional life, or standing inside the
    other colour's unconditional territory)."""
    owner: npt.NDArray[np.int8]
    territory: npt.NDArray[np.int8]

    @property
    def dead(self) -> frozenset[Point]:
        return self._with(StoneStatus.DEAD)

    @property
    def seki(self) -> frozenset[Point]:
        return self._with(StoneStatus.SEKI)

    @property
    def alive(self) -> frozenset[Point]:
        return self._with(StoneStatus.ALIVE)

    def _with(self, wanted: StoneStatus) -> frozenset[Point]:
        return frozenset(p for p, s in self.status.items() if s is wanted)

    @property
    def area_counts(self) -> tuple[int, int]:
        """Black's and White's area: stones standing plus the points only they reach."""
        return int((self.owner == 1).sum()), int((self.owner == 2).sum())

    @property
    def territory_counts(self) -> tuple[int, int]:
        """Black's and White's territory plus prisoners (captures and dead stones)."""
        position, dead = self.position, self.dead
        board = position.board()
        dead_white = sum(1 for p in dead if board[p.row, p.col] == 2)
        dead_black = len(dead) - dead_white
        black = int((self.territory == 1).sum()) + position.captures(Color.BLACK) + dead_white
        white = int((self.territory == 2).sum()) + position.captures(Color.WHITE) + dead_black
        return black, white

    def score(self, scoring: Scoring | None = None) -> Outcome:
        """The outcome by ``scoring`` (default: the position's rules); komi goes to White."""
        method = scoring or self.position.rules.scoring
        if method is Scoring.AREA:
            black, white = self.area_counts
            white += self.handicap
        else:
            black, white = self.territory_counts
        return _outcome(black, white, self.position.komi)

    @property
    def outcome(self) -> Outcome:
        """The outcome by the position's rules."""
        return self.score()

    @property
    def decided(self) -> bool:
        """Whether the winner stays the same whichever way the unsettled stones go."""
        if not self.unsettled:
            return True
        winners = set()
        for favoured in (Color.BLACK, Color.WHITE):
            dead = {p for p in self.dead if p not in self.unsettled}
            for point in self.unsettled:
                if self.position.color_at(point) is favoured.opponent:
                    dead.add(point)
            outcome = score(self.position, dead)
            if self.position.rules.scoring is Scoring.AREA and outcome.black_score is not None:
                margin = outcome.black_score - (outcome.white_score or 0.0) - self.handicap
                winners.add(Color.BLACK if margin > 0 else Color.WHITE if margin < 0 else None)
            else:
                winners.add(outcome.winner)
        return len(winners) == 1


def count(position: GoPosition, *, handicap: int = 0, playouts: int | None = None) -> Count:
    """Judge a finished game as a referee would: which stones are dead or in seki, who owns every
    point, and the score by the position's rules.

    What is certain comes first: Benson's algorithm finds the chains no attack can capture and the
    regions they enclose in which the opponent can never make an eye (stones there are dead).
    Every other stone is judged by ``playouts`` (default :func:`default_playouts`) continuations
    of the game by a tactical policy (captures, escapes from atari, no self-atari of two stones or
    more but the sacrifices that kill (nakade), no filling of one's own true eyes, nothing played
    inside the certain territories): a stone is alive when, with its opponent moving first, its
    point is still its colour's at the end of at least half the playouts, and in seki when it
    then keeps a liberty shared with the opponent's stones that neither side can fill. Stones
    with a rate between 0.3 and 0.7 are reported as :attr:`Count.unsettled` rather than decided
    silently.

    Deterministic: the playouts' random generator is seeded from the position itself, so the
    same position always gets the same answer. A resigned game is counted as it stands.
    ``handicap``: the handicap stones Black was given (see :attr:`Count.handicap`).
    """
    if handicap < 0:
        raise ValueError(f"handicap must not be negative, not {handicap}")
    size = position.size
    nn = size * size
    state = position.arrays()
    status = np.empty(nn, dtype=np.int64)
    rate = np.empty(nn, dtype=np.float64)
    flags = np.empty(nn, dtype=np.int64)
    CK.judge(
        state,
        size,
        position.rules.suicide_allowed,
        default_playouts(size) if playouts is None else playouts,
        default_simulations(size),
        status,
        rate,
        flags,
    )
    owner = np.empty(nn, dtype=np.int64)
    territory = np.empty(nn, dtype=np.int64)
    CK.tally(state[:nn], size, status, owner, territory)
    statuses: dict[Point, StoneStatus] = {}
    rates: dict[Point, float] = {}
    unsettled, proven = [], []
    for p in np.flatnonzero(status).tolist():
        point = Point(*divmod(p, size))
        statuses[point] = _STATUSES[int(status[p])]
        rates[point] = float(rate[p])
        if flags[p] & CK.FL_UNSETTLED:
            unsettled.append(point)
        if flags[p] & CK.FL_PROVEN:
            proven.append(point)
    return Count(
        position,
        statuses,
        handicap,
        rates,
        frozenset(unsettled),
        frozenset(proven),
        owner.astype(np.int8).reshape(size, size),
        territory.astype(np.int8).reshape(size, size),
    )
