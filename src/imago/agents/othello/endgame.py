"""Exact Othello endgame solver: the final disc difference under perfect play, and a best move.

The search (numba, :mod:`imago.agents.othello._endgame`) is negamax with alpha-beta over
bitboards: the root solved by a sequence of null-window probes (MTD(f)) from a first guess given
by the midgame search (:meth:`EndgameSolver.first_guess`), a transposition table with bounds
and best move, enhanced transposition cutoffs, move ordering by a shallow probe far from the
end (the same midgame search: with the pattern evaluation from 18 empties up, the mobility
evaluation below) and fastest-first nearer to it, quadrant parity, principal variation
search, a stability cutoff, and dedicated code for the last three empties. Scores are disc
differences for the side to move with empty squares given to the winner (the rule the FFO
test suite uses)::

    >>> board = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX" "---OOOOX----O--X--------"  # FFO #40
    >>> result = EndgameSolver().solve_board(board, "X")
    >>> result.score, result.move_text
    (38, 'a2')

It solves 6x6 (and 4x4) Othello too: a board of 36 (16) characters, or ``size=6`` with
bitboards in the top-left corner (bit ``row * 8 + col``, as :mod:`imago.games.othello` keeps
them); there the first guess is 0 and the mobility probe orders moves (the pattern evaluation
is 8x8 only). The 6x6 start position is a published win for White by 16-20 (Feinstein, 1993)::

    >>> EndgameSolver(18).solve_board("-" * 14 + "OX----XO" + "-" * 14, "X").score
    -4
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
GUESS_LEFT = 10
"""The first guess (8x8) searches to this many plies from the end ..."""
GUESS_MAX_DEPTH = 14
"""... and no deeper than this."""
GUESS_TABLE_BITS = 18
GUESS_PROBCUT = 1.5
"""... with multi-ProbCut at this many standard deviations (the alphabeta agent's default)."""
PROBE_TABLE_BITS = 16
"""The pattern ordering probes' own table (the midgame search's, ``2**bits`` entries)."""
SIZES = (4, 6, 8)
"""The board sizes the solver plays: 8x8, and 6x6 / 4x4 in the top-left corner."""


@dataclass(frozen=True, slots=True)
class EndgameResult:
    """What the solver proved about a position.

    ``score`` is exact (final disc difference for the side to move). ``move`` is a best move
    (pass when the side to move has none). ``move_scores`` holds, for each legal move, its exact
    score when every move was solved exactly (``exact_all``), else the best move first with
    its exact score and an upper bound (at most ``score``) for each other move. ``nodes``
    counts every position searched: the exact search's, its ordering probes' and the first
    guess's.
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


def board_size(board: str) -> int:
    """The side length of a board string: 8 for 64 characters, 6 for 36, 4 for 16 (white
    space ignored)."""
    squares = len("".join(board.split()))
    for size in SIZES:
        if squares == size * size:
            return size
    raise InvalidMoveError(
        f"an Othello board has 64 squares (36 on 6x6, 16 on 4x4), got {squares} characters"
    )


def parse_board(board: str, side: str) -> tuple[int, int]:
    """Read a board string (``X`` black, ``O`` white, ``-`` or ``.`` empty; row by row from the
    top-left, a1..h1, a2.., as in the FFO files; 64 characters, or 36 / 16 for 6x6 / 4x4) and
    the side to move (``X``/``O`` or a colour name) as ``(player, opponent)`` bitboards (bit
    ``row * 8 + col``)."""
    text = "".join(board.split()).upper()
    size = board_size(text)
    bad = sorted(set(text) - set(BOARD_CHARS) - {"."})
    if bad:
        raise InvalidMoveError(f"board characters must be X, O or -, not {''.join(bad)!r}")
    bits = [1 << (i // size * 8 + i % size) for i in range(size * size)]
    black = sum(bit for bit, ch in zip(bits, text, strict=True) if ch == "X")
    white = sum(bit for bit, ch in zip(bits, text, strict=True) if ch == "O")
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


def square_move(sq: int) -> Move:
    """The move on bit ``sq`` (``row * 8 + col``)."""
    return Move.play(Point(sq // 8, sq % 8))


class EndgameSolver:
    """An exact solver that keeps its transposition table between calls.

    ``table_bits`` sets the table size (``2**table_bits`` entries of 20 bytes). ``patterns``
    is the pattern evaluation table (``int32[stages, table]``, see
    :func:`imago.agents.othello.weights.load_pattern_weights`; the built-in weights when omitted):
    it gives the root's first guess and orders moves far from the end.
    """

    def __init__(self, table_bits: int = 21, patterns: np.ndarray | None = None) -> None:
        from imago.agents._table import new_table
        from imago.agents.othello import _alphabeta as mid
        from imago.agents.othello import _endgame as kernels
        from imago.agents.othello._kernels import new_scratch
        from imago.agents.othello.patterns import STAGES, TABLE_SIZE
        from imago.agents.othello.weights import load_evaluation

        self._kernels = kernels
        table = load_evaluation()[1] if patterns is None else patterns
        if table.shape != (STAGES, TABLE_SIZE):
            raise ValueError(f"pattern table shape {table.shape}, expected {(STAGES, TABLE_SIZE)}")
        self._patterns = np.ascontiguousarray(table, dtype=np.int32)
        self._keys, self._data = kernels.new_table(table_bits)
        self._scratch = new_scratch()
        self._probe_keys, self._probe_data = new_table(PROBE_TABLE_BITS)
        self._guess_table: tuple[np.ndarray, np.ndarray] | None = None
        self._probcut = mid.NO_PROBCUT  # the built-in calibration once a first guess needs it

    def clear(self) -> None:
        """Forget the transposition tables (the exact search's, its probes' and the first
        guess's)."""
        from imago.agents._table import clear_table

        self._keys[:] = 0
        self._data[:] = 0
        self._data[:, self._kernels.TT_EMPTIES] = -1
        clear_table(self._probe_keys, self._probe_data)
        if self._guess_table is not None:
            clear_table(*self._guess_table)

    def solve_board(
        self, board: str, side: str, *, exact_all: bool = False, node_limit: int | None = None
    ) -> EndgameResult:
        """Solve a board string of 64 characters (36 on 6x6, 16 on 4x4; see
        :func:`parse_board`)."""
        player, opponent = parse_board(board, side)
        return self.solve(
            player, opponent, size=board_size(board), exact_all=exact_all, node_limit=node_limit
        )

    def solve_state(
        self, state: GameState, *, exact_all: bool = False, node_limit: int | None = None
    ) -> EndgameResult:
        """Solve an Othello :class:`GameState` (8x8, 6x6 or 4x4) for the side to move."""
        from imago.games.othello import OthelloState

        if not isinstance(state, OthelloState) or state.size not in SIZES:
            raise ValueError("the endgame solver needs an 8x8, 6x6 or 4x4 Othello position")
        player, opponent = state.bitboards()
        return self.solve(
            player, opponent, size=state.size, exact_all=exact_all, node_limit=node_limit
        )

    def solve(
        self,
        player: int | np.uint64,
        opponent: int | np.uint64,
        *,
        size: int = 8,
        exact_all: bool = False,
        node_limit: int | None = None,
        guess: int | None = None,
    ) -> EndgameResult:
        """Solve from bitboards (bit ``row * 8 + col``; a ``size`` 6 or 4 board in the top-left
        corner). Raises :class:`SearchAborted` past ``node_limit`` nodes.

        Unless ``exact_all``, the root is solved by null-window probes starting at ``guess``
        (an estimate of the score: the closer, the fewer nodes; any value gives the exact
        score; by default :meth:`first_guess`)."""
        from imago.games.othello import bitboard as bb

        player, opponent = int(player), int(opponent)
        if size not in SIZES:
            raise ValueError(f"the solver plays on {', '.join(map(str, SIZES))} boards, not {size}")
        board = int(bb.board_mask(size))
        if player & opponent:
            raise ValueError("a square cannot hold both colours")
        if (player | opponent) & ~board:
            raise ValueError(f"discs off the {size}x{size} board (bits outside its mask)")
        k = self._kernels
        p, o = np.uint64(player), np.uint64(opponent)
        stats = np.array([0, node_limit or 0, 0], dtype=np.int64)
        start = time.perf_counter()
        moves = int(bb.legal_moves(p, o)) & board
        if moves == 0:
            score = -k.solve_deep(
                o, p, -64, 64, size, stats, self._keys, self._data, self._scratch, self._patterns,
                *self._probe_args(),
            )  # fmt: skip
            if int(bb.legal_moves(o, p)) & board == 0:
                score = int(bb.final_score(p, o, size * size))
            self._check(stats)
            return EndgameResult(
                int(score), Move.PASS, (), exact_all, int(stats[0]), time.perf_counter() - start
            )
        squares = np.array([sq for sq in range(64) if moves >> sq & 1], dtype=np.int64)
        squares = self._root_order(p, o, squares, board)
        scores = np.zeros(len(squares), dtype=np.int64)
        if exact_all:
            best = k.solve_moves(
                p,
                o,
                squares,
                scores,
                True,
                size,
                stats,
                self._keys,
                self._data,
                self._scratch,
                self._patterns,
                *self._probe_args(),
            )
        else:
            if guess is None:
                guess = self.first_guess(p, o, size, stats)
            k.solve_root(
                p,
                o,
                squares,
                scores,
                guess,
                size,
                stats,
                self._keys,
                self._data,
                self._scratch,
                self._patterns,
                *self._probe_args(),
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

    def first_guess(
        self, p: np.uint64, o: np.uint64, size: int = 8, stats: np.ndarray | None = None
    ) -> int:
        """An estimate of the exact score for the player ``p`` to move (even, within -64..64):
        on 8x8 the midgame search's value (the ``alphabeta`` agent's negamax with the pattern
        evaluation and multi-ProbCut), deepened one ply at a time to ``GUESS_LEFT`` plies
        from the end (at most ``GUESS_MAX_DEPTH``); 0 on smaller boards. Its nodes are added
        to ``stats[0]`` when given. Its table is kept between calls (entries are keyed by
        position, so later guesses start from what earlier ones searched)."""
        from imago.agents.othello import _alphabeta as mid

        if size != 8:
            return 0
        if self._guess_table is None:
            from imago.agents._table import new_table
            from imago.agents.othello.weights import builtin_probcut

            self._guess_table = new_table(GUESS_TABLE_BITS)
            self._probcut = builtin_probcut()
        keys, data = self._guess_table
        empties = 64 - int(p | o).bit_count()
        counts = np.zeros(3, dtype=np.int64)
        value = 0
        for depth in range(1, max(1, min(empties - GUESS_LEFT, GUESS_MAX_DEPTH)) + 1):
            value = mid.negamax(
                p, o, depth, -mid.INF, mid.INF, 0, 0, mid.EVAL_PATTERNS, mid.NO_WEIGHTS,
                self._patterns, 8, counts, keys, data, self._probcut, GUESS_PROBCUT, self._scratch,
            )  # fmt: skip
        if stats is not None:
            stats[0] += counts[0]
        discs = round(mid.value_discs(value))  # whole discs, then the even score nearest
        return int(min(max(2 * round(discs / 2), -64), 64))

    def _probe_args(self) -> tuple[np.ndarray, ...]:
        """The exact search's arguments for its ordering probes (the midgame search's)."""
        from imago.agents.othello._alphabeta import NO_PROBCUT, NO_WEIGHTS

        return self._probe_keys, self._probe_data, NO_WEIGHTS, NO_PROBCUT

    def _root_order(
        self, p: np.uint64, o: np.uint64, squares: np.ndarray, board: int
    ) -> np.ndarray:
        """Order root moves fastest first (fewest replies for the opponent on the ``board``
        mask); the root probes then move each probe's best move to the front."""
        from imago.games.othello import bitboard as bb

        keys = []
        for sq in squares:
            f = int(bb.flips(p, o, int(sq)))
            np_ = int(p) | f | (1 << int(sq))
            no = int(o) ^ f
            replies = int(bb.legal_moves(np.uint64(no), np.uint64(np_))) & board
            keys.append(replies.bit_count())
        order = np.argsort(np.array(keys), kind="stable")
        return squares[order]

    @staticmethod
    def _check(stats: np.ndarray) -> None:
        if stats[2]:
            raise SearchAborted(f"node limit {int(stats[1])} reached")
