"""The immutable Go position: the public face of the rules kernels."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache, lru_cache
from typing import Final, final, overload

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason, InvalidMoveError
from imago.core.game import Outcome
from imago.core.kernels import direct
from imago.core.move import MAX_SIZE, Move, MoveKind, Point
from imago.games.go import _kernels as K
from imago.games.go.handicap import fixed_handicap_points
from imago.games.go.rules import GoRules, KoRule

MIN_SIZE: Final = 2
_MASK64: Final = (1 << 64) - 1
_NO_KEYS: Final = np.empty(0, dtype=np.int64)
_NO_KEYS.flags.writeable = False
_REASONS: Final = {
    K.OCCUPIED: IllegalReason.OCCUPIED,
    K.SUICIDE: IllegalReason.SUICIDE,
    K.KO: IllegalReason.KO,
    K.SUPERKO: IllegalReason.SUPERKO,
    K.GAME_OVER: IllegalReason.GAME_OVER,
}
_KO_MODES: Final = {
    KoRule.SIMPLE: K.KO_SIMPLE,
    KoRule.POSITIONAL_SUPERKO: K.KO_POSITIONAL,
    KoRule.SITUATIONAL_SUPERKO: K.KO_SITUATIONAL,
}
# entry points called with arrays this module makes: int64, one dimension, contiguous
_advance_into: Final = direct(
    K.advance_into, "(int64[::1], int64, int64[::1], int64, int64, int64, boolean, int64)"
)
_advance_here: Final = direct(K.advance_here, "(int64[::1], int64, int64, int64)")
_ARENA_WORDS: Final = 15 * 1024
"""An arena's size in words, when a few positions fit (120 KiB: under the size at which glibc
maps each allocation afresh, page by page, unless :func:`retain_freed_memory` raised it)."""
_new: Final = object.__new__
_COLORS: Final = (None, Color.BLACK, Color.WHITE)
_DIAGRAM: Final = {".": 0, "+": 0, "X": 1, "x": 1, "#": 1, "O": 2, "o": 2}


_TABLES: dict[int, tuple[Move, ...]] = {}


def moves_table(size: int) -> tuple[Move, ...]:
    """The ``Move`` of every action of a ``size`` board (cached, so moves are shared)."""
    table = _TABLES.get(size)
    if table is None:
        table = (*(Move.play(Point(*divmod(a, size))) for a in range(size * size)), Move.PASS)
        _TABLES[size] = table
    return table


@cache
def _move_array(size: int) -> npt.NDArray[np.object_]:
    return np.array(moves_table(size), dtype=object)


def _check_size(size: int) -> None:
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"Go board size must be {MIN_SIZE}..{MAX_SIZE}, not {size!r}")


def _new_arena(words: int) -> npt.NDArray[np.int64]:
    """Memory for the full arrays of the positions played from one another: each takes the
    next free part (see :func:`K.advance_into`) and never changes again. A position holds its
    arena and where its own array starts; making a position then costs no allocation. An arena
    lives as long as any of its positions: one position kept while the rest of its arena's
    died holds the whole arena (a few positions' worth; 120 KiB at most on 9x9)."""
    arena = np.empty(max(_ARENA_WORDS, K.ARENA_START + 2 * words), dtype=np.int64)
    arena[K.ARENA_NEXT] = K.ARENA_START
    return arena


def _adopt(state: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """A new arena holding the full array ``state`` first (at ``K.ARENA_START``)."""
    n = state.shape[0]
    arena = _new_arena(n + 64)
    arena[K.ARENA_START : K.ARENA_START + n] = state
    arena[K.ARENA_NEXT] = (K.ARENA_START + n + 7) & ~7
    return arena


@final
class _Frame:
    """What every position of one game shares: the board's size, where the parts of its state
    array start, the rules (and the kernels' codes for them) and the table of moves. Positions
    hold one reference to it, so that making a position sets few attributes."""

    __slots__ = (
        "actions",
        "code",
        "h",
        "keys_at",
        "length",
        "mode",
        "nn",
        "rules",
        "size",
        "suicide",
        "table",
    )

    def __init__(self, size: int, rules: GoRules) -> None:
        nn = size * size
        self.size = size
        self.nn = nn
        self.h = 10 * nn
        self.length = 10 * nn + K.HEADER
        self.keys_at = self.length + nn + 3 + K.BLOOM_WORDS
        self.rules = rules
        self.mode = _KO_MODES[rules.ko]
        self.suicide = rules.suicide_allowed
        self.table = moves_table(size)
        # the action of each move of ``table``, by identity: the moves that legal_moves()
        # gives find their action without a look at their point (the table lives as long as
        # the process, so the identities are never reused)
        self.actions = {id(move): action for action, move in enumerate(self.table)}
        self.code = K.rules_code(size, self.suicide, self.mode)

    def __reduce__(self) -> tuple[object, tuple[int, GoRules]]:
        # unpickled positions share the frame of their game, as played ones do
        return _frame, (self.size, self.rules)


@lru_cache(maxsize=256)
def _frame(size: int, rules: GoRules) -> _Frame:
    """The shared frame of ``size`` boards under ``rules`` (made once; the cache is bounded,
    as games with many komi values make many rule sets)."""
    return _Frame(size, rules)


@final
class LegalMoves(Sequence[Move]):
    """The legal moves of a position: an immutable sequence view in action order, pass last.

    Indexing and ``len`` read the position's legal-action array directly; iterating builds the
    tuple of cached :class:`Move` objects once per position. ``move in moves`` is a binary
    search.
    """

    __slots__ = ("_p",)

    def __init__(self, position: GoPosition) -> None:
        self._p = position

    def __len__(self) -> int:
        return self._p._n & 0xFFFF

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Move, ...]: ...

    def __getitem__(self, index: int | slice) -> Move | tuple[Move, ...]:
        p = self._p
        if index.__class__ is int and 0 <= index < p._n & 0xFFFF:  # type: ignore[operator]
            f = p._f
            move: Move = f.table[p._s[p._o + f.length + index]]  # type: ignore[operator]
            return move
        return self.as_tuple()[index]

    def __iter__(self) -> Iterator[Move]:
        return iter(self.as_tuple())

    def __contains__(self, move: object) -> bool:
        size = self._p._f.size
        if not isinstance(move, Move) or move.is_resign:
            return False
        if move.point is not None and not move.point.on_board(size):
            return False
        action = move.to_action(size)
        actions = self.actions()
        i = int(np.searchsorted(actions, action))
        return i < len(actions) and int(actions[i]) == action

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves | tuple | list):
            return self.as_tuple() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def as_tuple(self) -> tuple[Move, ...]:
        """The moves as a tuple (built once per position)."""
        p = self._p
        moves = p._moves
        if moves is None:
            moves = p._moves = tuple(_move_array(p._f.size)[self.actions()].tolist())
        return moves

    def actions(self) -> npt.NDArray[np.int64]:
        """The legal action indices (read-only)."""
        return self._p.legal_actions()

    def __repr__(self) -> str:
        size = self._p._f.size
        text = ", ".join(m.to_gtp(size) for m in self.as_tuple())
        return f"<LegalMoves ({text})>"


@final
class GoPosition:
    """An immutable Go position with its history; implements :class:`imago.core.GameState`.

    Make one with :func:`new_game` (or :meth:`from_diagram`). :meth:`play` returns a new
    position and never changes this one. The fast path for search is in
    :mod:`imago.games.go.fastpath`.

    Each position's kernel arrays (its state, legal actions and superko keys: a *full array*,
    see :func:`K.finish`) sit in an arena shared with the positions played before and after
    it, written once by the kernel that makes the position and only read after that.
    """

    __slots__ = ("_f", "_last", "_moves", "_n", "_o", "_previous", "_resigned", "_s")

    _s: npt.NDArray[np.int64]  # the arena holding this position's full array ...
    _o: int  # ... from here: read it as ``_s[_o + offset]``, never write it
    _f: _Frame
    _previous: GoPosition | None
    _last: Move | None
    _resigned: Color | None
    _n: int  # the number of legal actions (0 once over), plus the number of superko keys << 16
    _moves: tuple[Move, ...] | None  # the legal moves, once asked for as a tuple

    game = "go"

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def _make(
        cls,
        state: npt.NDArray[np.int64],
        frame: _Frame,
        previous: GoPosition | None,
        last: Move | None,
        resigned: Color | None = None,
    ) -> GoPosition:
        self = object.__new__(cls)
        self._s = _adopt(state)
        self._o = K.ARENA_START
        self._f = frame
        self._previous = previous
        self._last = last
        self._resigned = resigned
        self._moves = None
        at = frame.length + frame.nn
        self._n = int(state[at + 2]) << 16 | (0 if resigned else int(state[at + 1]))
        return self

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # its own full array only, not the arena it shares with other positions
        return _restore, (self._full(), self._f, self._previous, self._last, self._resigned)

    @classmethod
    def empty(cls, size: int = 9, rules: GoRules | None = None) -> GoPosition:
        """The empty board with Black to play (default rules: the computer preset, komi 7 on
        9x9 and 7.5 elsewhere)."""
        _check_size(size)
        moves_table(size)  # legal_moves() relies on the table existing
        rules = rules or GoRules.preset("computer", size)
        state = K.finish(
            K.new_state(size), size, rules.suicide_allowed, _KO_MODES[rules.ko], _NO_KEYS, True
        )
        return cls._make(state, _frame(size, rules), None, None)

    @classmethod
    def from_state(cls, state: npt.NDArray[np.int64], parent: GoPosition) -> GoPosition:
        """The position of a kernel state array reached from ``parent`` (see
        :func:`imago.games.go.fastpath.from_arrays`)."""
        size, rules = parent._f.size, parent._f.rules
        if state.shape != (parent._f.length,) or state.dtype != np.int64:
            raise ValueError(f"not a {size}x{size} Go state array")
        full = K._finish(
            state,
            size,
            rules.suicide_allowed,
            _KO_MODES[rules.ko],
            parent._superko_keys(),
            True,
            parent._stone_bound(),
        )
        full[10 * size * size + K.F_STATUS] = K.OK
        last_action = int(full[10 * size * size + K.F_LAST])
        last = moves_table(size)[last_action] if 0 <= last_action <= size * size else None
        return cls._make(full, parent._f, parent, last)

    @classmethod
    def from_diagram(
        cls, diagram: str, to_play: Color = Color.BLACK, rules: GoRules | None = None
    ) -> GoPosition:
        """A position from rows of ``X`` (black), ``O`` (white), ``.`` (empty), top row first;
        spaces are ignored. Stones are set up, not played: nothing is captured."""
        rows = [line.replace(" ", "") for line in diagram.strip().splitlines()]
        rows = [row for row in rows if row]
        size = len(rows)
        if any(len(row) != size for row in rows) or any(c not in _DIAGRAM for c in "".join(rows)):
            raise ValueError("a diagram is a square of X, O and . characters")
        black = [
            Point(r, c)
            for r, row in enumerate(rows)
            for c, ch in enumerate(row)
            if _DIAGRAM[ch] == 1
        ]
        white = [
            Point(r, c)
            for r, row in enumerate(rows)
            for c, ch in enumerate(row)
            if _DIAGRAM[ch] == 2
        ]
        return cls.empty(size, rules).with_setup(black, white, to_play=to_play)

    # -- the GameState protocol ------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self._f.size

    @property
    def rules(self) -> GoRules:
        """The rules this game is played under."""
        return self._f.rules

    @property
    def komi(self) -> float:
        return self._f.rules.komi

    @property
    def to_play(self) -> Color:
        return _COLORS[self._s[self._o + self._f.h + K.F_TO_PLAY]]  # type: ignore[return-value]

    @property
    def key(self) -> int:
        """Zobrist key of the stones and the side to move (a non-negative 64-bit integer)."""
        s, h = self._s, self._o + self._f.h
        key = int(s[h + K.F_HASH])
        if s[h + K.F_TO_PLAY] == K.WHITE:
            key ^= int(K.ZOBRIST_WHITE_TO_PLAY)
        return key & _MASK64

    @property
    def board_key(self) -> int:
        """Zobrist key of the stones only (what positional superko compares)."""
        return int(self._s[self._o + self._f.h + K.F_HASH]) & _MASK64

    @property
    def num_actions(self) -> int:
        return self._f.nn + 1

    @property
    def previous(self) -> GoPosition | None:
        return self._previous

    @property
    def last_move(self) -> Move | None:
        return self._last

    @property
    def move_number(self) -> int:
        return int(self._s[self._o + self._f.h + K.F_MOVES])

    @property
    def ko_point(self) -> Point | None:
        """The point the simple-ko rule forbids to the side to move, if any."""
        s, h = self._s, self._o + self._f.h
        ko = int(s[h + K.F_KO])
        if ko < 0 or s[h + K.F_KO_COLOR] != s[h + K.F_TO_PLAY]:
            return None
        return Point(*divmod(ko, self._f.size))

    @property
    def consecutive_passes(self) -> int:
        return int(self._s[self._o + self._f.h + K.F_PASSES])

    def captures(self, color: Color) -> int:
        """How many stones ``color`` has captured (prisoners it holds)."""
        return int(self._s[self._o + self._f.h + K.F_CAPT_B + int(color) - 1])

    def board(self) -> npt.NDArray[np.int8]:
        """A ``(size, size)`` copy of the board: 0 empty, 1 black, 2 white."""
        return self._points().astype(np.int8).reshape(self._f.size, self._f.size)

    def color_at(self, point: Point) -> Color | None:
        """The stone on ``point``, or ``None``."""
        self._check_point(point)
        return _COLORS[self._s[self._o + point.index(self._f.size)]]

    def stones(self, color: Color) -> list[Point]:
        """The points of ``color``'s stones, in action order."""
        size = self._f.size
        found = np.flatnonzero(self._points() == int(color))
        return [Point(*divmod(int(p), size)) for p in found]

    def legal_moves(self) -> LegalMoves:
        """Every legal move in action order, pass last (empty once the game is over): a
        lazy, immutable sequence view."""
        moves = _new(LegalMoves)
        moves._p = self
        return moves

    def legal_actions(self) -> npt.NDArray[np.int64]:
        """The legal action indices, ascending, pass last (read-only)."""
        start = self._o + self._f.length
        legal = self._s[start : start + (self._n & 0xFFFF)]
        legal.flags.writeable = False
        return legal

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        mask = np.zeros(self._f.nn + 1, dtype=np.bool_)
        mask[self.legal_actions()] = True
        return mask

    def sensible_moves(self) -> list[Move]:
        """Legal moves that do not fill one of the mover's own true eyes (pass last)."""
        if self.is_over():
            return []
        out = np.empty(self._f.nn + 1, dtype=np.int64)
        n = K.sensible_actions(
            self._state(),
            self._f.size,
            self._s[self._o + self._f.h + K.F_TO_PLAY],
            self._f.rules.suicide_allowed,
            _KO_MODES[self._f.rules.ko],
            self._superko_keys(),
            out,
        )
        table = moves_table(self._f.size)
        return [table[a] for a in out[:n].tolist()]

    def is_legal(self, move: Move, color: Color | None = None) -> bool:
        """Whether ``move`` (for ``color``, default the side to move) is legal here."""
        if self.is_over():
            return False
        if move.kind is not MoveKind.PLAY:
            return True
        point = move.point
        assert point is not None
        if not point.on_board(self._f.size):
            return False
        who = self._s[self._o + self._f.h + K.F_TO_PLAY] if color is None else int(color)
        return self._status(point.index(self._f.size), who) is None

    def play(self, move: Move, color: Color | None = None) -> GoPosition:
        """The position after ``move`` (for ``color``, default the side to move).

        Raises ``IllegalMoveError`` (occupied, suicide, ko, superko, game over) or
        ``InvalidMoveError`` (off the board); this position never changes.
        """
        frame = self._f
        arena = self._s
        action = frame.actions.get(id(move))  # the moves of legal_moves(): no checks needed
        if action is not None and color is None and self._resigned is None:
            made = _advance_here(arena, self._o, frame.code, action)
        else:
            made = K.NO_ROOM
        if made >= 0:  # not tried, refused, or no room left in the arena
            if move.is_resign:
                return self._resign(move, color)
            arena, made = self._advance(move, color)
        made = -1 - made
        new = _new(GoPosition)
        new._s = arena
        new._o = made >> 32
        new._f = frame
        new._previous = self
        new._last = move
        new._resigned = None
        new._moves = None
        new._n = made & 0xFFFFFFFF
        return new

    def _advance(self, move: Move, color: Color | None) -> tuple[npt.NDArray[np.int64], int]:
        """What :meth:`play` does for any move object and colour: the checks, the errors, and
        a new arena when this one is full. Returns the arena and what the kernel returned."""
        if self._resigned is not None:
            raise IllegalMoveError(IllegalReason.GAME_OVER, self.format_move(move))
        frame = self._f
        point = move.point
        if point is not None:
            size = frame.size
            if not 0 <= point.row < size or not 0 <= point.col < size:
                raise InvalidMoveError(f"{point} is off a {size}x{size} board")
            action = point.row * size + point.col
        else:
            action = frame.nn  # a pass
        s = arena = self._s
        args = (frame.size, action, 0 if color is None else int(color), frame.suicide, frame.mode)
        made = _advance_into(s, self._o, arena, *args)
        if made == K.NO_ROOM:
            arena = _new_arena(frame.keys_at + (self._n >> 16) + 1)
            made = _advance_into(s, self._o, arena, *args)
        if made >= 0:
            raise IllegalMoveError(_REASONS[made], self.format_move(move))
        return arena, made

    def _resign(self, move: Move, color: Color | None) -> GoPosition:
        if self.is_over():
            raise IllegalMoveError(IllegalReason.GAME_OVER, "resign")
        return GoPosition._make(self._full(), self._f, self, move, color or self.to_play)

    def play_action(self, action: int) -> GoPosition:
        """:meth:`play` by action index (pass is ``size * size``)."""
        if not 0 <= action <= self._f.nn:
            raise InvalidMoveError(f"action {action} is outside 0..{self._f.nn}")
        return self.play(moves_table(self._f.size)[action])

    def with_setup(
        self,
        black: Iterable[Point] = (),
        white: Iterable[Point] = (),
        empty: Iterable[Point] = (),
        to_play: Color | None = None,
    ) -> GoPosition:
        """A new position with stones placed or removed (SGF ``AB``/``AW``/``AE``, ``PL``).

        Not a move: nothing is captured, the move number and captures do not change, and the
        ko ban is lifted. The result's :attr:`previous` is this position's.
        """
        s = self._state().copy()
        size = self._f.size
        changes = [(p, K.EMPTY) for p in empty]
        changes += [(p, K.BLACK) for p in black] + [(p, K.WHITE) for p in white]
        for point, value in changes:
            self._check_point(point)
            index = point.index(size)
            if s[index] != value:
                K.setup(s, size, index, value)
        s[self._f.h + K.F_KO] = -1
        if to_play is not None:
            s[self._f.h + K.F_TO_PLAY] = int(to_play)
        rules = self._f.rules
        keys = self._previous._superko_keys() if self._previous is not None else _NO_KEYS
        top = self._stone_bound()  # at least the previous position's (the keys' own)
        full = K._finish(s, size, rules.suicide_allowed, _KO_MODES[rules.ko], keys, True, top)
        return GoPosition._make(full, self._f, self._previous, self._last)

    def resume(self) -> GoPosition:
        """A game ended by two passes, with play resumed (as after a dispute about dead stones,
        which Japanese rules and servers such as OGS allow): the pass count starts again. The
        result's :attr:`previous` is this position."""
        if self._resigned is not None:
            raise IllegalMoveError(IllegalReason.GAME_OVER, "resign")
        s = self._state().copy()
        s[self._f.h + K.F_PASSES] = 0
        frame = self._f
        keys = self._superko_keys()
        full = K._finish(s, frame.size, frame.suicide, frame.mode, keys, True, self._stone_bound())
        return GoPosition._make(full, self._f, self, self._last)

    def is_over(self) -> bool:
        """After two consecutive passes or a resignation."""
        return not self._n & 0xFFFF

    @property
    def resigned(self) -> Color | None:
        """The colour that resigned, if the game ended so."""
        return self._resigned

    def outcome(self) -> Outcome | None:
        """The result once the game is over, scored by the rules with every stone alive (exact
        Tromp-Taylor under area scoring).

        For the count a referee makes (dead stones and seki judged), see
        :func:`imago.games.go.count`; with dead stones given, :func:`imago.games.go.score`.
        """
        if self._resigned is not None:
            return Outcome(self._resigned.opponent, by_resignation=True)
        if not self.is_over():
            return None
        from imago.games.go.scoring import score

        return score(self)

    def parse_move(self, text: str) -> Move:
        """Read a GTP vertex (``D4``), ``pass`` or ``resign``."""
        return Move.from_gtp(text, self._f.size)

    def format_move(self, move: Move) -> str:
        """Write a move as a GTP vertex."""
        return move.to_gtp(self._f.size)

    # -- text ------------------------------------------------------------------------------------
    def diagram(self) -> str:
        """The board as rows of ``X``, ``O`` and ``.`` (top row first), one space apart."""
        chars = ".XO"
        values = self._points().tolist()
        size = self._f.size
        return "\n".join(
            " ".join(chars[v] for v in values[r * size : (r + 1) * size]) for r in range(size)
        )

    def __repr__(self) -> str:
        return (
            f"<GoPosition {self._f.size}x{self._f.size} move {self.move_number}, "
            f"{self.to_play} to play>\n{self.diagram()}"
        )

    def __eq__(self, other: object) -> bool:
        """Equal positions: the same board size, rules, stones, side to move, ko point and run
        of passes, as :class:`~imago.games.othello.OthelloState` compares (the history is
        ignored: positions reached by other move orders are equal, though superko may forbid
        other moves in them)."""
        if not isinstance(other, GoPosition):
            return NotImplemented
        if self is other:
            return True
        return (
            self._f.size == other._f.size
            and self._f.rules == other._f.rules
            and self._resigned == other._resigned
            and self.to_play == other.to_play
            and self.ko_point == other.ko_point
            and self.consecutive_passes == other.consecutive_passes
            and bool(np.array_equal(self._points(), other._points()))
        )

    def __hash__(self) -> int:
        return hash((self._f.size, self.key))

    # -- fast path ----------------------------------------------------------------------------
    def arrays(self) -> npt.NDArray[np.int64]:
        """A copy of the kernel state array (see :mod:`imago.games.go.fastpath`)."""
        return self._state().copy()

    def superko_keys(self) -> npt.NDArray[np.int64]:
        """A copy of the sorted keys the superko rule forbids to recreate (empty under simple
        ko)."""
        return self._superko_keys().copy()

    # -- internals ------------------------------------------------------------------------------
    def _check_point(self, point: Point) -> None:
        if not point.on_board(self._f.size):
            raise InvalidMoveError(f"{point} is off a {self._f.size}x{self._f.size} board")

    def _stone_bound(self) -> int:
        """No board of this position's superko keys has more stones (see ``K.F_TOP``)."""
        return int(self._s[self._o + self._f.h + K.F_TOP])

    def _points(self) -> npt.NDArray[np.int64]:
        """The board part of the state (a view of the arena: never write it)."""
        return self._s[self._o : self._o + self._f.nn]

    def _state(self) -> npt.NDArray[np.int64]:
        """The kernel state array (a view of the arena: never write it)."""
        return self._s[self._o : self._o + self._f.length]

    def _full(self) -> npt.NDArray[np.int64]:
        """A copy of the full array: the state, the legal actions and the superko keys."""
        return self._s[self._o : self._o + self._f.keys_at + (self._n >> 16)].copy()

    def _superko_keys(self) -> npt.NDArray[np.int64]:
        start = self._o + self._f.keys_at
        return self._s[start : start + (self._n >> 16)]

    def _status(self, action: int, color: int) -> IllegalReason | None:
        state = self._state()
        status = K.check(state, self._f.size, action, color, self._f.rules.suicide_allowed)
        if status:
            return _REASONS[status]
        if self._f.rules.ko is not KoRule.SIMPLE:
            key = K.result_hash(state, self._f.size, action, color)
            if self._f.rules.ko is KoRule.SITUATIONAL_SUPERKO and color == K.BLACK:
                key ^= K.ZOBRIST_WHITE_TO_PLAY
            if K.contains(self._superko_keys(), key):
                return IllegalReason.SUPERKO
        return None

    def illegal_reason(self, move: Move, color: Color | None = None) -> IllegalReason | None:
        """Why ``move`` is illegal here, or ``None`` when it is legal."""
        if self.is_over():
            return IllegalReason.GAME_OVER
        if move.kind is not MoveKind.PLAY:
            return None
        point = move.point
        assert point is not None
        self._check_point(point)
        who = self.to_play if color is None else color
        return self._status(point.index(self._f.size), int(who))


def _restore(
    state: npt.NDArray[np.int64],
    frame: _Frame,
    previous: GoPosition | None,
    last: Move | None,
    resigned: Color | None,
) -> GoPosition:
    """An unpickled position (see ``GoPosition.__reduce__``)."""
    if state.dtype != np.int64 or state.ndim != 1 or state.shape[0] < frame.keys_at:
        raise ValueError(f"not a {frame.size}x{frame.size} Go position's full array")
    return GoPosition._make(state, frame, previous, last, resigned)


def new_game(size: int = 9, rules: GoRules | None = None, handicap: int = 0) -> GoPosition:
    """A new game: the empty board (Black to play), or ``handicap`` stones placed as GTP's
    ``fixed_handicap`` places them with White to play. For free placement use
    :meth:`GoPosition.with_setup`."""
    position = GoPosition.empty(size, rules)
    if handicap:
        points = fixed_handicap_points(size, handicap)
        position = position.with_setup(black=points, to_play=Color.WHITE)
    return position
