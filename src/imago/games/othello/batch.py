# mypy: disable-error-code="no-any-return"
"""Many Othello games held in arrays and stepped together by numba kernels.

An :class:`OthelloBatch` keeps ``n`` games on one board size (8, 6 or 4) as two bitboards each
(black and white discs, square ``row * 8 + col``, smaller boards in the top-left corner) with
the colour to move, the last ``history`` boards (newest first) for network features, the moves
played and which games are over. A step is the rules' own kernels (:mod:`imago.games.othello`)
in one numba loop. Actions are ``row * size + col``; pass (``size * size``) is the only legal
action of a player without a move.

The same layer serves self-play (:mod:`imago.rl`), the search's roots
(:mod:`imago.agents.mcts`) and batched environments::

    batch = OthelloBatch(256, size=6)
    mask = batch.legal_mask()          # (256, 37) bool
    batch.step(actions)                # status per game: OK, or why the action was refused
    batch.scores()                     # Black - White discs, empties to the winner
    batch.reset(np.flatnonzero(batch.done))

A move cap (``max_moves``, none by default) stops a game early: :attr:`OthelloBatch.done` is
then true while :meth:`OthelloBatch.over` (ended by the rules) is not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason
from imago.games.othello import _kernels as _k
from imago.games.othello import bitboard as bb
from imago.games.othello._kernels import write_board as write_board  # re-exported: public here
from imago.games.othello.state import SIZES, OthelloState

OK = 0
OCCUPIED = 1
NO_FLIPS = 2
PASS_NOT_ALLOWED = 3
GAME_OVER = 4
OFF_BOARD = 5
_REASONS = {
    OCCUPIED: IllegalReason.OCCUPIED,
    NO_FLIPS: IllegalReason.NO_FLIPS,
    PASS_NOT_ALLOWED: IllegalReason.PASS_NOT_ALLOWED,
    GAME_OVER: IllegalReason.GAME_OVER,
}
U1 = np.uint64(1)


@njit(cache=True)
def square_of(action: int, size: int) -> int:
    """The bit square of action ``action`` on a ``size`` board (``action`` < ``size * size``)."""
    return (action // size) * 8 + action % size


@njit(cache=True)
def legal_into(p: np.uint64, o: np.uint64, mask: np.uint64, size: int, out: np.ndarray) -> int:
    """The legal actions of the player with discs ``p`` into ``out`` (ascending); only pass when
    it has no move but the opponent has; none when the game is over. Returns the count."""
    moves = _k.legal(p, o) & mask
    n = 0
    while moves:
        sq = _k.lowest_square(moves)
        moves &= moves - U1
        out[n] = (sq // 8) * size + sq % 8
        n += 1
    if n == 0 and (_k.legal(o, p) & mask) != np.uint64(0):
        out[0] = size * size
        n = 1
    return n


@njit(cache=True)
def _step(
    black: np.ndarray,
    white: np.ndarray,
    to_play: np.ndarray,
    boards: np.ndarray,
    moves: np.ndarray,
    done: np.ndarray,
    actions: np.ndarray,
    active: np.ndarray,
    size: int,
    mask: np.uint64,
    max_moves: int,
    status: np.ndarray,
) -> None:
    nn = size * size
    for i in range(black.shape[0]):
        if not active[i]:
            continue
        if done[i]:
            status[i] = GAME_OVER
            continue
        is_black = to_play[i] == 1
        p = black[i] if is_black else white[i]
        o = white[i] if is_black else black[i]
        legal = _k.legal(p, o) & mask
        a = actions[i]
        if a == nn:
            if legal != np.uint64(0):
                status[i] = PASS_NOT_ALLOWED
                continue
        else:
            sq = square_of(a, size)
            bit = U1 << np.uint64(sq)
            if (p | o) & bit:
                status[i] = OCCUPIED
                continue
            if not legal & bit:
                status[i] = NO_FLIPS
                continue
            f = _k.flips(p, o, sq)
            p = p | f | bit
            o = o ^ f
        status[i] = OK
        if is_black:
            black[i], white[i] = p, o
        else:
            black[i], white[i] = o, p
        to_play[i] = 3 - to_play[i]
        moves[i] += 1
        for k in range(boards.shape[1] - 1, 0, -1):
            boards[i, k] = boards[i, k - 1]
        write_board(black[i], white[i], size, boards[i, 0])
        done[i] = moves[i] >= max_moves or _is_over(p, o, mask)


@njit(cache=True)
def _is_over(p: np.uint64, o: np.uint64, mask: np.uint64) -> bool:
    """Neither player has a move."""
    return (_k.legal(o, p) & mask) == np.uint64(0) and (_k.legal(p, o) & mask) == np.uint64(0)


@njit(cache=True)
def _over(black: np.ndarray, white: np.ndarray, mask: np.uint64, out: np.ndarray) -> None:
    for i in range(black.shape[0]):
        out[i] = _is_over(black[i], white[i], mask)


@njit(cache=True)
def _scores(
    black: np.ndarray, white: np.ndarray, mask: np.uint64, indices: np.ndarray, out: np.ndarray
) -> None:
    squares = bb.popcount(mask)
    for j in range(indices.shape[0]):
        out[j] = bb.final_score(black[indices[j]], white[indices[j]], squares)


@njit(cache=True)
def _reset_rows(
    black: np.ndarray,
    white: np.ndarray,
    to_play: np.ndarray,
    boards: np.ndarray,
    moves: np.ndarray,
    done: np.ndarray,
    indices: np.ndarray,
    start_black: np.uint64,
    start_white: np.uint64,
    size: int,
) -> None:
    """Put the games ``indices`` back at the start position."""
    for i in indices:
        black[i] = start_black
        white[i] = start_white
        to_play[i] = 1
        for k in range(boards.shape[1]):
            write_board(start_black, start_white, size, boards[i, k])
        moves[i] = 0
        done[i] = False


@njit(cache=True)
def _legal_masks(
    black: np.ndarray,
    white: np.ndarray,
    to_play: np.ndarray,
    mask: np.uint64,
    size: int,
    out: np.ndarray,
) -> None:
    buf = np.empty(size * size + 1, dtype=np.int64)
    for i in range(black.shape[0]):
        is_black = to_play[i] == 1
        p = black[i] if is_black else white[i]
        o = white[i] if is_black else black[i]
        for j in range(legal_into(p, o, mask, size, buf)):
            out[i, buf[j]] = True


class OthelloBatch:
    """``n`` Othello games on one board size, stepped together (see the module docstring).

    ``history`` boards per game are kept for features (newest first; before the start the
    oldest board is repeated, as :mod:`imago.nn.features` does). ``max_moves`` (default: none)
    stops a game that long, passes included.
    """

    game = "othello"

    def __init__(
        self, n: int, size: int = 8, *, history: int = 1, max_moves: int | None = None
    ) -> None:
        if size not in SIZES:
            raise ValueError(f"Othello is played on {', '.join(map(str, SIZES))} boards")
        if n < 1 or history < 1:
            raise ValueError("a batch needs at least one game and one board of history")
        if max_moves is not None and max_moves < 1:
            raise ValueError("max_moves must be positive")
        self.max_moves = max_moves
        self._cap = np.iinfo(np.int64).max if max_moves is None else max_moves
        start = OthelloState(size)
        self._start_black, self._start_white = start.bitboards()
        self.size = size
        self.num_actions = size * size + 1
        self.mask = np.uint64(bb.board_mask(size))
        self.black = np.zeros(n, dtype=np.uint64)
        self.white = np.zeros(n, dtype=np.uint64)
        self.colors = np.zeros(n, dtype=np.int64)
        self.boards = np.zeros((n, history, size * size), dtype=np.int8)
        self.moves = np.zeros(n, dtype=np.int64)
        self.done = np.zeros(n, dtype=np.bool_)
        self.reset()

    @classmethod
    def from_states(
        cls, states: Sequence[OthelloState], *, history: int = 1, max_moves: int | None = None
    ) -> OthelloBatch:
        """A batch holding these positions (one board size), with their game histories."""
        if not states:
            raise ValueError("no positions")
        batch = cls(len(states), states[0].size, history=history, max_moves=max_moves)
        for i, state in enumerate(states):
            batch.set_state(i, state)
        return batch

    @property
    def n(self) -> int:
        return int(self.black.shape[0])

    @property
    def history(self) -> int:
        return int(self.boards.shape[1])

    def board_ring(self) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """The boards in the shape :meth:`imago.games.go.batch.GoBatch.board_ring` gives: this
        batch keeps them newest first (its networks look one board back), so ``newest`` is 0."""
        return self.boards, np.zeros(self.n, dtype=np.int64)

    def to_play(self) -> npt.NDArray[np.int64]:
        """The colour to move in each game (1 black, 2 white)."""
        return self.colors.copy()

    def players(self) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """``(p, o)``: the discs of the player to move and of the opponent in every game."""
        black_moves = self.colors == 1
        return (
            np.where(black_moves, self.black, self.white),
            np.where(black_moves, self.white, self.black),
        )

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """``(n, size * size + 1)``: the legal actions of each game (none once it is over)."""
        out = np.zeros((self.n, self.num_actions), dtype=np.bool_)
        _legal_masks(self.black, self.white, self.colors, self.mask, self.size, out)
        out[self.done] = False
        return out

    def scores(self, indices: npt.ArrayLike | None = None) -> npt.NDArray[np.float64]:
        """Black's discs minus White's in the games ``indices`` (default: all), the empty
        squares given to the winner (the WTHOR and FFO convention)."""
        chosen = self._indices(indices)
        out = np.zeros(len(chosen), dtype=np.float64)
        _scores(self.black, self.white, self.mask, chosen, out)
        return out

    def over(self) -> npt.NDArray[np.bool_]:
        """Which games the rules have ended (neither side can move). :attr:`done` also counts
        the games stopped by the move cap: ``done & ~over()`` are the truncated ones."""
        out = np.zeros(self.n, dtype=np.bool_)
        _over(self.black, self.white, self.mask, out)
        return out

    def board(self, index: int) -> npt.NDArray[np.int8]:
        """Game ``index``'s board as ``(size, size)`` (0 empty, 1 black, 2 white)."""
        return self.boards[index, 0].reshape(self.size, self.size).copy()

    def state(self, index: int) -> OthelloState:
        """Game ``index`` as an :class:`OthelloState` (without its ``previous`` chain)."""
        color = Color.BLACK if self.colors[index] == 1 else Color.WHITE
        return OthelloState._position(
            self.size,
            int(self.black[index]),
            int(self.white[index]),
            color,
            move_number=int(self.moves[index]),
        )

    def reset(self, indices: npt.ArrayLike | None = None) -> None:
        """Put the games ``indices`` (default: all) back at the start position."""
        _reset_rows(
            self.black,
            self.white,
            self.colors,
            self.boards,
            self.moves,
            self.done,
            self._indices(indices),
            self._start_black,
            self._start_white,
            self.size,
        )

    def _indices(self, indices: npt.ArrayLike | None) -> npt.NDArray[np.int64]:
        if indices is None:
            return np.arange(self.n, dtype=np.int64)
        chosen = np.asarray(indices, dtype=np.int64).reshape(-1)
        if chosen.size and (chosen.min() < 0 or chosen.max() >= self.n):
            raise IndexError(f"game indices must be in 0..{self.n - 1}")
        return chosen

    def set_state(self, index: int, state: OthelloState) -> None:
        """Make game ``index`` the position ``state`` (of the batch's board size)."""
        if state.size != self.size:
            raise ValueError(
                f"a {state.size}x{state.size} position in a {self.size}x{self.size} batch"
            )
        black, white = state.bitboards()
        if state.to_play != 1:
            black, white = white, black
        self.black[index], self.white[index] = black, white
        self.colors[index] = int(state.to_play)
        walk: OthelloState | None = state
        boards: list[npt.NDArray[np.generic]] = []
        while walk is not None and len(boards) < self.history:
            boards.append(walk.board().ravel())
            walk = walk.previous
        for k in range(self.history):
            self.boards[index, k] = boards[min(k, len(boards) - 1)]
        self.moves[index] = state.move_number
        self.done[index] = state.is_over() or state.move_number >= self._cap

    def step(
        self, actions: npt.ArrayLike, active: npt.ArrayLike | None = None
    ) -> npt.NDArray[np.int64]:
        """Play one action in every game (or where ``active`` is true). Returns the status of
        each: ``OK`` or why the action was refused (that game is then unchanged)."""
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
            self.black,
            self.white,
            self.colors,
            self.boards,
            self.moves,
            self.done,
            acts,
            on,
            self.size,
            self.mask,
            self._cap,
            status,
        )
        return status

    def step_strict(self, actions: npt.ArrayLike, active: npt.ArrayLike | None = None) -> None:
        """:meth:`step`, raising :class:`IllegalMoveError` for the first refused action."""
        status = self.step(actions, active)
        refused = np.flatnonzero(status != OK)
        if refused.size:
            i = int(refused[0])
            action = int(np.asarray(actions)[i])
            raise IllegalMoveError(_REASONS[int(status[i])], f"game {i}: action {action}")
