# mypy: disable-error-code="no-any-return"
"""Many Go games held in arrays and stepped together by numba kernels.

A :class:`GoBatch` keeps ``n`` games of one board size and rule set. Each game is a *full
array* of the rules kernels (:func:`imago.games.go.fastpath.finish`: the state, the legal
actions of the side to move, and the sorted superko keys), so a step is one call of the rules'
own :func:`~imago.games.go.fastpath.advance` per game, inside one numba loop. The batch also
keeps the last ``history`` boards of every game for network features (a ring per game: a step
writes one board, where shifting the history cost a tenth of a step at eight boards; read them
newest first as :attr:`GoBatch.boards`, or the ring itself with :meth:`GoBatch.board_ring`), how
many moves each game has played, and which games are over (two passes, no legal move, or the move
cap reached).

This is the layer that self-play (:mod:`imago.rl`), the search's roots
(:mod:`imago.agents.mcts`) and batched environments share::

    batch = GoBatch(256, size=9, rules=GoRules.preset("chinese"), history=1)
    mask = batch.legal_mask()             # (256, 82) bool
    statuses = batch.step(actions)        # OK, or why a game's action was refused
    batch.scores()                        # Black - White - komi, Tromp-Taylor area count
    batch.over()                          # ended by the rules (``done`` also counts the cap)
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
from imago.games.go.position import _KO_MODES, GoPosition, _frame, moves_table
from imago.games.go.rules import GoRules, Scoring

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
def _record_board(full: np.ndarray, ring: np.ndarray, moves: int, nn: int) -> None:
    """Put ``full``'s board in the game's ring of boards at the slot of move ``moves`` (the
    slots run backwards, so that board ``k`` moves ago is at ``(newest + k) % history``)."""
    slot = -moves % ring.shape[0]
    for p in range(nn):
        ring[slot, p] = full[p]


@njit(cache=True)
def _unroll(ring: np.ndarray, moves: np.ndarray, out: np.ndarray) -> None:
    """``out[i, k]``: the board ``k`` moves before game ``i``'s now, from its ring."""
    n, history, nn = ring.shape
    for i in range(n):
        for k in range(history):
            slot = (k - moves[i]) % history
            for p in range(nn):
                out[i, k, p] = ring[i, slot, p]


@njit(cache=True)
def _is_done(full: np.ndarray, size: int, moves: int, max_moves: int) -> bool:
    nn = size * size
    length = 10 * nn + K.HEADER
    return full[10 * nn + K.F_PASSES] >= 2 or full[length + nn + 1] == 0 or moves >= max_moves


@njit(cache=True)
def _play_in_place(t: np.ndarray, size: int, action: int, suicide: bool, ko_mode: int) -> None:
    """Play the legal ``action`` on the full array ``t`` in place: what :func:`K.advance` writes
    into a second array (the state, this position's superko key, the legal actions), without
    copying the arrays (most of a step's time at a thousand games was memory traffic)."""
    nn = size * size
    h = 10 * nn
    length = h + K.HEADER
    if action == nn:
        K.play(t, size, action, t[h + K.F_TO_PLAY], suicide)
    else:  # the legal list holds it: play without checking it again
        K._apply(t, size, action, t[h + K.F_TO_PLAY])
    bloom_at = length + nn + 3
    base = bloom_at + K.BLOOM_WORDS
    count = t[length + nn + 2]
    if ko_mode != K.KO_SIMPLE:
        key = K.history_key(t, size, ko_mode)
        lo = K._lower_bound(t, base, count, key)
        if not (lo < base + count and t[lo] == key):
            for j in range(base + count, lo, -1):
                t[j] = t[j - 1]
            t[lo] = key
            K._bloom_add(t, bloom_at, key)
            count += 1
            K._raise_stone_bound(t, nn)
    t[length + nn + 2] = count
    if t[h + K.F_PASSES] >= 2:
        t[length + nn + 1] = 0
    else:
        t[length + nn + 1] = K._legal_into(
            t, size, t[h + K.F_TO_PLAY], suicide, ko_mode, t, base, count, bloom_at, True, t, length
        )


@njit(cache=True)
def _step(
    fulls: np.ndarray,
    spare: np.ndarray,
    ring: np.ndarray,
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
    length = 10 * nn + K.HEADER
    for i in range(fulls.shape[0]):
        if not active[i]:
            continue
        if done[i]:
            status[i] = K.GAME_OVER
            continue
        full = fulls[i]
        if not K._contains_at(full, length, full[length + nn + 1], actions[i]):
            # Refused: the rules' own step says why (into the spare array, thrown away).
            r = K.advance(full, spare, size, actions[i], 0, suicide, ko_mode)
            if r < 0:
                raise AssertionError("a move the legal list refused was legal")
            status[i] = r
            continue
        status[i] = K.OK
        _play_in_place(full, size, actions[i], suicide, ko_mode)
        moves[i] += 1
        _record_board(full, ring[i], moves[i], nn)
        done[i] = _is_done(full, size, moves[i], max_moves)


@njit(cache=True)
def _reset_rows(
    fulls: np.ndarray,
    start: np.ndarray,
    ring: np.ndarray,
    moves: np.ndarray,
    done: np.ndarray,
    indices: np.ndarray,
    nn: int,
) -> None:
    """Put the games ``indices`` back at the start: ``start`` is the empty board's full array."""
    for i in indices:
        for j in range(start.shape[0]):
            fulls[i, j] = start[j]
        for j in range(start.shape[0], fulls.shape[1]):
            fulls[i, j] = 0
        for k in range(ring.shape[1]):
            for p in range(nn):
                ring[i, k, p] = 0
        moves[i] = 0
        done[i] = False


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
def _pick_legal(
    fulls: np.ndarray, size: int, done: np.ndarray, uniform: np.ndarray, out: np.ndarray
) -> None:
    """``out[i]``: the ``floor(uniform[i] * k)``-th of the ``k`` legal actions of game ``i``
    (ascending, pass last, as :meth:`GoBatch.legal_mask` orders them); 0 where there is none."""
    nn = size * size
    length = 10 * nn + K.HEADER
    for i in range(fulls.shape[0]):
        k = 0 if done[i] else fulls[i, length + nn + 1]
        out[i] = fulls[i, length + min(int(uniform[i] * k), k - 1)] if k > 0 else 0


@njit(cache=True)
def _scores(
    fulls: np.ndarray, size: int, komi: float, indices: np.ndarray, out: np.ndarray
) -> None:
    for j in range(indices.shape[0]):
        b, w = K.area_score(fulls[indices[j]], size)
        out[j] = b - w - komi


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
        self._start_full = K.finish(
            self._start.arrays(), size, self._suicide, self._mode, _NO_KEYS, True
        )
        self._ring = np.zeros((n, history, size * size), dtype=np.int8)
        self._unrolled: npt.NDArray[np.int8] | None = None  # boards newest first, when read
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
        return int(self._ring.shape[1])

    @property
    def boards(self) -> npt.NDArray[np.int8]:
        """``(n, history, size * size)``: the last ``history`` boards of every game, newest
        first (read-only; before the start of a game the empty board is repeated). Unrolled
        from the rings once after each change."""
        unrolled = self._unrolled
        if unrolled is None:
            unrolled = np.empty_like(self._ring)
            _unroll(self._ring, self.moves, unrolled)
            unrolled.flags.writeable = False
            self._unrolled = unrolled
        return unrolled

    def board_ring(self) -> tuple[npt.NDArray[np.int8], IntArray]:
        """The boards as the batch keeps them: ``(ring, newest)``, where game ``i``'s board
        ``k`` moves ago is ``ring[i, (newest[i] + k) % history]`` (read them, never write), as
        :class:`imago.nn.features.Positions` takes them."""
        return self._ring, -self.moves % self.history

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

    def random_legal(self, uniform: npt.ArrayLike) -> IntArray:
        """One legal action of every game, the ``floor(uniform[i] * k)``-th of its ``k`` (in
        :meth:`legal_mask`'s order; 0 for a game that is over): a uniformly random legal move
        for uniform draws in [0, 1), read off the legal lists without building the masks."""
        draws = np.ascontiguousarray(uniform, dtype=np.float64)
        if draws.shape != (self.n,):
            raise ValueError(f"expected {self.n} draws, got shape {draws.shape}")
        out = np.empty(self.n, dtype=np.int64)
        _pick_legal(self.fulls, self.size, self.done, draws, out)
        return out

    def scores(
        self, indices: npt.ArrayLike | None = None, *, scoring: Scoring = Scoring.AREA
    ) -> npt.NDArray[np.float64]:
        """Black's lead over White (komi included) in the games ``indices`` (default: all),
        every stone counted alive: by area (Tromp-Taylor, the default, as a self-play game that
        ended by passes is scored) or by ``scoring=Scoring.TERRITORY`` (territory plus
        prisoners, as :func:`imago.games.go.scoring.score` counts)."""
        chosen = self._indices(indices)
        out = np.zeros(len(chosen), dtype=np.float64)
        if scoring is Scoring.AREA:
            _scores(self.fulls, self.size, self.komi, chosen, out)
            return out
        from imago.games.go.scoring import score

        for j, i in enumerate(chosen):
            outcome = score(self.position(int(i)), scoring=scoring)
            assert outcome.black_score is not None and outcome.white_score is not None
            out[j] = outcome.black_score - outcome.white_score
        return out

    def over(self) -> npt.NDArray[np.bool_]:
        """Which games the rules have ended (two passes in a row). :attr:`done` also counts
        the games stopped by the move cap: ``done & ~over()`` are the truncated ones."""
        nn = self.size * self.size
        length = 10 * nn + K.HEADER
        passes = self.fulls[:, 10 * nn + K.F_PASSES]
        return (passes >= 2) | (self.fulls[:, length + nn + 1] == 0)

    def position(self, index: int) -> GoPosition:
        """Game ``index`` as a :class:`GoPosition` (its superko history included, so play can
        go on by the same rules; its ``previous`` chain is not kept)."""
        row = self.fulls[index]
        nn = self.size * self.size
        keys = int(row[10 * nn + K.HEADER + nn + 2])
        state = row[: int(K.full_length(self.size, keys))].copy()
        last_action = int(state[10 * nn + K.F_LAST])
        last = moves_table(self.size)[last_action] if 0 <= last_action <= nn else None
        return GoPosition._make(state, _frame(self.size, self.rules), None, last)

    def board(self, index: int) -> npt.NDArray[np.int8]:
        """Game ``index``'s board as ``(size, size)`` (0 empty, 1 black, 2 white)."""
        nn = self.size * self.size
        return self.fulls[index, :nn].astype(np.int8).reshape(self.size, self.size)

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
        chosen = self._indices(indices)
        self._unrolled = None
        _reset_rows(
            self.fulls,
            self._start_full,
            self._ring,
            self.moves,
            self.done,
            chosen,
            self.size * self.size,
        )

    def _indices(self, indices: npt.ArrayLike | None) -> IntArray:
        if indices is None:
            return np.arange(self.n, dtype=np.int64)
        chosen = np.asarray(indices, dtype=np.int64).reshape(-1)
        if chosen.size and (chosen.min() < 0 or chosen.max() >= self.n):
            raise IndexError(f"game indices must be in 0..{self.n - 1}")
        return chosen

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
        # the state and keys come from one position: its bound holds for the keys
        top = int(state[K.header(self.size) + K.F_TOP])
        full = K._finish(state, self.size, self._suicide, self._mode, keys, True, top)
        row = self.fulls[index]
        row[:] = 0
        row[: len(full)] = full
        self._unrolled = None
        history = self.history
        for k in range(history):
            self._ring[index, (k - moves) % history] = boards[min(k, len(boards) - 1)]
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
        self._unrolled = None
        _step(
            self.fulls,
            self._spare,
            self._ring,
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
