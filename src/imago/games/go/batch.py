# mypy: disable-error-code="no-any-return"
"""Many Go games held in arrays and stepped together by numba kernels.

A :class:`GoBatch` keeps ``n`` games of one board size and rule set. Each game is a *full
array* of the rules kernels (:func:`imago.games.go.fastpath.finish`: the state, the legal
actions of the side to move, and the sorted superko keys), so a step is one call of the rules'
own :func:`~imago.games.go.fastpath.advance` per game, inside one numba loop. The batch also
keeps the last ``history`` boards of every game (newest first) for network features, how many
moves each game has played, and which games are over (two passes, no legal move, or the move
cap reached).

This is the layer that self-play (:mod:`imago.rl`), the search's roots
(:mod:`imago.agents.mcts`) and batched environments share::

    batch = GoBatch(256, size=9, rules=GoRules.preset("chinese"), history=1)
    mask = batch.legal_mask()             # (256, 82) bool
    statuses = batch.step(actions)        # OK, or why a game's action was refused
    batch.scores()                        # Black - White - komi, Tromp-Taylor area count
    batch.reset(np.flatnonzero(batch.done))

Search kernels read a game's arrays through :meth:`GoBatch.arrays` (the full arrays, their
key offset and key counts), never by hard-coded offsets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from imago.core.errors import IllegalMoveError, IllegalReason
from imago.games.go import _kernels as K
from imago.games.go.position import _KO_MODES, GoPosition
from imago.games.go.rules import GoRules

IntArray = npt.NDArray[np.int64]

_REASONS = {
    K.OCCUPIED: IllegalReason.OCCUPIED,
    K.SUICIDE: IllegalReason.SUICIDE,
    K.KO: IllegalReason.KO,
    K.SUPERKO: IllegalReason.SUPERKO,
    K.GAME_OVER: IllegalReason.GAME_OVER,
}
_NO_KEYS = np.zeros(0, dtype=np.int64)


@njit(cache=True)
def _record_board(full: np.ndarray, boards: np.ndarray, nn: int) -> None:
    """Shift the board history one back and put ``full``'s board first."""
    for k in range(boards.shape[0] - 1, 0, -1):
        for p in range(nn):
            boards[k, p] = boards[k - 1, p]
    for p in range(nn):
        boards[0, p] = full[p]


@njit(cache=True)
def _is_done(full: np.ndarray, size: int, moves: int, max_moves: int) -> bool:
    nn = size * size
    length = 10 * nn + K.HEADER
    return full[10 * nn + K.F_PASSES] >= 2 or full[length + nn + 1] == 0 or moves >= max_moves


@njit(cache=True)
def _step(
    fulls: np.ndarray,
    spare: np.ndarray,
    boards: np.ndarray,
    moves: np.ndarray,
    done: np.ndarray,
    actions: np.ndarray,
    active: np.ndarray,
    size: int,
    suicide: bool,
    ko_mode: int,
    max_moves: int,
    status: np.ndarray,
) -> None:
    """Play ``actions[i]`` in every game ``i`` with ``active[i]``; refused moves change nothing
    and leave their status code in ``status[i]`` (``OK`` otherwise)."""
    nn = size * size
    width = fulls.shape[1]
    for i in range(fulls.shape[0]):
        if not active[i]:
            continue
        if done[i]:
            status[i] = K.GAME_OVER
            continue
        r = K.advance(fulls[i], spare, size, actions[i], 0, suicide, ko_mode)
        if r >= 0:
            status[i] = r
            continue
        status[i] = K.OK
        for j in range(width):
            fulls[i, j] = spare[j]
        _record_board(fulls[i], boards[i], nn)
        moves[i] += 1
        done[i] = _is_done(fulls[i], size, moves[i], max_moves)


@njit(cache=True)
def _legal_masks(fulls: np.ndarray, size: int, out: np.ndarray) -> None:
    nn = size * size
    length = 10 * nn + K.HEADER
    for i in range(fulls.shape[0]):
        for a in range(nn + 1):
            out[i, a] = False
        for j in range(fulls[i, length + nn + 1]):
            out[i, fulls[i, length + j]] = True


@njit(cache=True)
def _scores(fulls: np.ndarray, size: int, komi: float, out: np.ndarray) -> None:
    for i in range(fulls.shape[0]):
        b, w = K.area_score(fulls[i], size)
        out[i] = b - w - komi


class GoBatch:
    """``n`` Go games of one size and rule set, stepped together (see the module docstring).

    ``history`` boards per game are kept for features (newest first; before the start of a game
    the oldest board is repeated, as :mod:`imago.nn.features` does). ``max_moves`` ends a game
    that long (default ``3 * size * size``, the arena's adjudication limit), passes included.
    """

    game = "go"

    def __init__(
        self,
        n: int,
        size: int = 9,
        rules: GoRules | None = None,
        *,
        history: int = 1,
        max_moves: int | None = None,
    ) -> None:
        if n < 1 or history < 1:
            raise ValueError("a batch needs at least one game and one board of history")
        self._start = GoPosition.empty(size, rules)
        self.size = size
        self.rules = self._start.rules
        self.num_actions = size * size + 1
        self.max_moves = 3 * size * size if max_moves is None else max_moves
        if self.max_moves < 1:
            raise ValueError("max_moves must be positive")
        self._mode = _KO_MODES[self.rules.ko]
        self._suicide = self.rules.suicide_allowed
        width = int(K.full_length(size, self.max_moves + 2))
        self.fulls = np.zeros((n, width), dtype=np.int64)
        self._spare = np.zeros(width, dtype=np.int64)
        self.boards = np.zeros((n, history, size * size), dtype=np.int8)
        self.moves = np.zeros(n, dtype=np.int64)
        self.done = np.zeros(n, dtype=np.bool_)
        self.reset()

    @classmethod
    def from_positions(
        cls, positions: Sequence[GoPosition], *, history: int = 1, max_moves: int | None = None
    ) -> GoBatch:
        """A batch holding these positions (one size and rule set), with their game histories.

        ``max_moves`` counts from each position's own move number (default: the positions'
        largest move number plus ``3 * size * size``)."""
        if not positions:
            raise ValueError("no positions")
        first = positions[0]
        if any(p.size != first.size or p.rules != first.rules for p in positions):
            raise ValueError("a batch holds positions of one board size and rule set")
        longest = max(p.move_number for p in positions)
        keys = max(len(p.superko_keys()) for p in positions)
        cap = max_moves if max_moves is not None else longest + 3 * first.size * first.size
        batch = cls(
            len(positions), first.size, first.rules, history=history, max_moves=max(cap, keys)
        )
        for i, position in enumerate(positions):
            batch.set_position(i, position)
        return batch

    # -- reading ---------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        """How many games."""
        return int(self.fulls.shape[0])

    @property
    def history(self) -> int:
        return int(self.boards.shape[1])

    @property
    def komi(self) -> float:
        return float(self.rules.komi)

    def to_play(self) -> IntArray:
        """The colour to move in each game (1 black, 2 white)."""
        h = 10 * self.size * self.size
        return self.fulls[:, h + K.F_TO_PLAY].copy()

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """``(n, size * size + 1)``: the legal actions of each game (none once it is over)."""
        out = np.zeros((self.n, self.num_actions), dtype=np.bool_)
        _legal_masks(self.fulls, self.size, out)
        out[self.done] = False
        return out

    def scores(self) -> npt.NDArray[np.float64]:
        """Black's area minus White's minus komi for every game, every stone counted alive
        (Tromp-Taylor), as a self-play game that ended by passes is scored."""
        out = np.zeros(self.n, dtype=np.float64)
        _scores(self.fulls, self.size, self.komi, out)
        return out

    def board(self, index: int) -> npt.NDArray[np.int8]:
        """Game ``index``'s board as ``(size, size)`` (0 empty, 1 black, 2 white)."""
        return self.boards[index, 0].reshape(self.size, self.size).copy()

    def arrays(self) -> tuple[IntArray, int, IntArray]:
        """For search kernels: the full arrays ``(n, width)``, where the sorted superko keys
        start in each (``keys_at``), and how many each holds."""
        nn = self.size * self.size
        keys_at = int(K.full_offsets(self.size)[4])
        counts = self.fulls[:, 10 * nn + K.HEADER + nn + 2].copy()
        return self.fulls, keys_at, counts

    @property
    def ko_mode(self) -> int:
        return int(self._mode)

    @property
    def suicide_allowed(self) -> bool:
        return bool(self._suicide)

    # -- changing ------------------------------------------------------------------------------
    def reset(self, indices: npt.ArrayLike | None = None) -> None:
        """Put the games ``indices`` (default: all) back at the start position."""
        chosen = np.arange(self.n) if indices is None else np.asarray(indices, dtype=np.int64)
        start = self._start.arrays()
        for i in chosen:
            self._fill(int(i), start, _NO_KEYS, [start[: self.size * self.size]], 0)

    def set_position(self, index: int, position: GoPosition) -> None:
        """Make game ``index`` the position (size and rules must be the batch's)."""
        if position.size != self.size or position.rules != self.rules:
            raise ValueError("the position's board size or rules differ from the batch's")
        if position.move_number >= self.max_moves:
            raise ValueError(f"the position has {position.move_number} moves, the cap is lower")
        boards: list[npt.NDArray[np.generic]] = []
        walk: GoPosition | None = position
        while walk is not None and len(boards) < self.history:
            boards.append(walk.board().ravel())
            walk = walk.previous
        keys = position.superko_keys()
        self._fill(index, position.arrays(), keys, boards, position.move_number)
        if position.is_over():
            self.done[index] = True

    def _fill(
        self,
        index: int,
        state: IntArray,
        keys: IntArray,
        boards: list[npt.NDArray[np.generic]],
        moves: int,
    ) -> None:
        full = K.finish(state, self.size, self._suicide, self._mode, keys, True)
        row = self.fulls[index]
        row[:] = 0
        row[: len(full)] = full
        for k in range(self.history):
            self.boards[index, k] = boards[min(k, len(boards) - 1)]
        self.moves[index] = moves
        self.done[index] = bool(_is_done(row, self.size, moves, self.max_moves))

    def step(self, actions: npt.ArrayLike, active: npt.ArrayLike | None = None) -> IntArray:
        """Play one action in every game (or in those where ``active`` is true).

        Returns the status of each game's move: ``fastpath.OK``, or the code of why it was
        refused (occupied, suicide, ko, superko, game over), in which case that game is
        unchanged. See :meth:`step_strict` for an error instead.
        """
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if acts.shape != (self.n,):
            raise ValueError(f"expected {self.n} actions, got shape {acts.shape}")
        on = (
            np.ones(self.n, dtype=np.bool_)
            if active is None
            else np.ascontiguousarray(active, dtype=np.bool_)
        )
        bad = on & ((acts < 0) | (acts > self.size * self.size))
        if bad.any():
            raise ValueError(f"action {int(acts[bad][0])} is outside 0..{self.size * self.size}")
        status = np.zeros(self.n, dtype=np.int64)
        _step(
            self.fulls,
            self._spare,
            self.boards,
            self.moves,
            self.done,
            acts,
            on,
            self.size,
            self._suicide,
            self._mode,
            self.max_moves,
            status,
        )
        return status

    def step_strict(self, actions: npt.ArrayLike, active: npt.ArrayLike | None = None) -> None:
        """:meth:`step`, raising :class:`IllegalMoveError` (naming the first refused game's
        move) when any action is refused; the games whose actions were legal still moved."""
        status = self.step(actions, active)
        refused = np.flatnonzero(status != K.OK)
        if refused.size:
            i = int(refused[0])
            action = int(np.asarray(actions)[i])
            raise IllegalMoveError(_REASONS[int(status[i])], f"game {i}: action {action}")
