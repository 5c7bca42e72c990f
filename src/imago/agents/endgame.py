"""Exact Othello endgame solver: the final disc difference under perfect play, and a best move.

The search (numba, :mod:`imago.agents._endgame_kernels`) is negamax with alpha-beta over
bitboards: the root solved by a sequence of null-window probes (MTD(f)) from a first guess given
by the pattern evaluation, a transposition table with bounds and best move, enhanced
transposition cutoffs, move ordering by a shallow probe far from the end (with the pattern
evaluation from 18 empties up) and fastest-first nearer to it, quadrant parity, principal
variation search, a stability cutoff, and dedicated code for the last three empties. Scores
are disc differences for the side to move with empty squares given to the winner (the rule the
FFO test suite uses)::

    >>> board = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX" "---OOOOX----O--X--------"  # FFO #40
    >>> result = EndgameSolver().solve_board(board, "X")
    >>> result.score, result.move_text
    (38, 'a2')
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from imago.core.color import Color
from imago.core.errors import InvalidMoveError
from imago.core.game import GameState
from imago.core.move import Move, Point

BOARD_CHARS = {"X": "black", "O": "white", "-": "empty"}


@dataclass(frozen=True, slots=True)
class EndgameResult:
    """What the solver proved about a position.

    ``score`` is exact (final disc difference for the side to move). ``move`` is a best move
    (pass when the side to move has none). ``move_scores`` holds, for each legal move, its exact
    score when every move was solved exactly (``exact_all``), else the best move first with
    its exact score and an upper bound (at most ``score``) for each other move.
    """

    score: int
    move: Move
    move_scores: tuple[tuple[Move, int], ...]
    exact_all: bool
    nodes: int
    seconds: float

    @property
    def move_text(self) -> str:
        return self.move.to_algebraic()

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class SearchAborted(Exception):
    """The node budget ran out before the solver finished."""


def parse_board(board: str, side: str) -> tuple[int, int]:
    """Read a 64-character board (``X`` black, ``O`` white, ``-`` empty; a1..h1, a2.., as in the
    FFO files) and the side to move (``X``/``O`` or a colour name) as ``(player, opponent)``
    bitboards."""
    text = "".join(board.split())
    if len(text) != 64:
        raise InvalidMoveError(f"an Othello board has 64 squares, got {len(text)} characters")
    bad = sorted(set(text.upper()) - set(BOARD_CHARS) - {"."})
    if bad:
        raise InvalidMoveError(f"board characters must be X, O or -, not {''.join(bad)!r}")
    black = sum(1 << i for i, ch in enumerate(text.upper()) if ch == "X")
    white = sum(1 << i for i, ch in enumerate(text.upper()) if ch == "O")
    color = _parse_side(side)
    return (black, white) if color is Color.BLACK else (white, black)


def _parse_side(side: str) -> Color:
    lowered = side.strip().lower()
    if lowered in ("x", "*"):
        return Color.BLACK
    if lowered == "o":
        return Color.WHITE
    try:
        return Color.parse(side)
    except ValueError:
        raise InvalidMoveError(f"side to move must be X or O, not {side!r}") from None


def state_bitboards(state: GameState) -> tuple[int, int]:
    """``(player, opponent)`` bitboards of an 8x8 Othello state (from its board array)."""
    if state.game != "othello" or state.size != 8:
        raise ValueError("the endgame solver needs an 8x8 Othello position")
    flat = state.board().reshape(-1)
    weights = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
    black = int(np.bitwise_or.reduce(weights[flat == int(Color.BLACK)], initial=np.uint64(0)))
    white = int(np.bitwise_or.reduce(weights[flat == int(Color.WHITE)], initial=np.uint64(0)))
    return (black, white) if state.to_play is Color.BLACK else (white, black)


def square_move(sq: int) -> Move:
    """The move on bit ``sq`` (``row * 8 + col``)."""
    return Move.play(Point(sq // 8, sq % 8))


class EndgameSolver:
    """An exact solver that keeps its transposition table between calls.

    ``table_bits`` sets the table size (``2**table_bits`` entries of 20 bytes). ``patterns``
    is the pattern evaluation table (``int32[stages, table]``, see
    :func:`imago.agents.alphabeta.load_pattern_weights`; the built-in weights when omitted):
    it gives the root's first guess and orders moves far from the end.
    """

    def __init__(self, table_bits: int = 21, patterns: np.ndarray | None = None) -> None:
        from imago.agents import _endgame_kernels as kernels
        from imago.agents._othello_patterns import STAGES, TABLE_SIZE
        from imago.agents.alphabeta import load_evaluation

        self._kernels = kernels
        table = load_evaluation()[1] if patterns is None else patterns
        if table.shape != (STAGES, TABLE_SIZE):
            raise ValueError(f"pattern table shape {table.shape}, expected {(STAGES, TABLE_SIZE)}")
        self._patterns = np.ascontiguousarray(table, dtype=np.int32)
        self._keys, self._data = kernels.new_table(table_bits)
        self._scratch = kernels.new_scratch()

    def clear(self) -> None:
        """Forget the transposition table."""
        self._keys[:] = 0
        self._data[:] = 0
        self._data[:, self._kernels.TT_EMPTIES] = -1

    def solve_board(
        self, board: str, side: str, *, exact_all: bool = False, node_limit: int | None = None
    ) -> EndgameResult:
        """Solve a 64-character board (see :func:`parse_board`)."""
        player, opponent = parse_board(board, side)
        return self.solve(player, opponent, exact_all=exact_all, node_limit=node_limit)

    def solve_state(
        self, state: GameState, *, exact_all: bool = False, node_limit: int | None = None
    ) -> EndgameResult:
        """Solve an Othello :class:`GameState` for the side to move."""
        player, opponent = state_bitboards(state)
        return self.solve(player, opponent, exact_all=exact_all, node_limit=node_limit)

    def solve(
        self,
        player: int,
        opponent: int,
        *,
        exact_all: bool = False,
        node_limit: int | None = None,
        guess: int | None = None,
    ) -> EndgameResult:
        """Solve from bitboards. Raises :class:`SearchAborted` past ``node_limit`` nodes.

        Unless ``exact_all``, the root is solved by null-window probes starting at ``guess``
        (an estimate of the score: the closer, the fewer nodes; any value gives the exact
        score; by default a shallow search with the pattern evaluation)."""
        from imago.agents import _othello_kernels as bb

        if player & opponent:
            raise ValueError("a square cannot hold both colours")
        k = self._kernels
        p, o = np.uint64(player), np.uint64(opponent)
        stats = np.array([0, node_limit or 0, 0], dtype=np.int64)
        start = time.perf_counter()
        moves = int(bb.legal_moves(p, o))
        if moves == 0:
            score = -k.solve(
                o, p, -64, 64, stats, self._keys, self._data, self._scratch, self._patterns
            )
            if bb.legal_moves(o, p) == 0:
                score = int(bb.final_score(p, o))
            self._check(stats)
            return EndgameResult(
                int(score), Move.PASS, (), exact_all, int(stats[0]), time.perf_counter() - start
            )
        squares = np.array([sq for sq in range(64) if moves >> sq & 1], dtype=np.int64)
        squares = self._root_order(p, o, squares)
        scores = np.zeros(len(squares), dtype=np.int64)
        if exact_all:
            best = k.solve_moves(
                p,
                o,
                squares,
                scores,
                True,
                stats,
                self._keys,
                self._data,
                self._scratch,
                self._patterns,
            )
        else:
            if guess is None:
                guess = int(k.estimate(p, o, self._patterns))
            k.solve_root(
                p,
                o,
                squares,
                scores,
                guess,
                stats,
                self._keys,
                self._data,
                self._scratch,
                self._patterns,
            )
            best = 0
        self._check(stats)
        pairs = tuple((square_move(int(sq)), int(v)) for sq, v in zip(squares, scores, strict=True))
        return EndgameResult(
            int(scores[best]),
            square_move(int(squares[best])),
            pairs,
            exact_all,
            int(stats[0]),
            time.perf_counter() - start,
        )

    def _root_order(self, p: np.uint64, o: np.uint64, squares: np.ndarray) -> np.ndarray:
        """Order root moves fastest first (fewest replies for the opponent); the root probes
        then move each probe's best move to the front."""
        from imago.agents import _othello_kernels as bb

        keys = []
        for sq in squares:
            f = int(bb.flips(p, o, int(sq)))
            np_ = int(p) | f | (1 << int(sq))
            no = int(o) ^ f
            keys.append(bin(int(bb.legal_moves(np.uint64(no), np.uint64(np_)))).count("1"))
        order = np.argsort(np.array(keys), kind="stable")
        return squares[order]

    @staticmethod
    def _check(stats: np.ndarray) -> None:
        if stats[2]:
            raise SearchAborted(f"node limit {int(stats[1])} reached")
