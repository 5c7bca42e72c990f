"""The immutable Go position: the public face of the rules kernels."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from functools import cache, lru_cache
from typing import Final, NoReturn, final, overload

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason, InvalidMoveError
from imago.core.game import Outcome
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
_advance: Final = K.advance_coded.compile("(int64[::1], int64[::1], int64, int64)")
"""The position's step: numba's compiled entry point for one signature (from its cache), which
converts the arguments without the dispatcher's work of typing them (about 200 ns a call).
That entry does not check the arrays' dtype, dimensions or layout, so it stays private to this
module and :meth:`GoPosition.play` calls it only with arrays this module makes (``int64``, one
dimension, contiguous: the position's own state and a new ``np.empty``); the kernel itself
checks their lengths, the action and the colour (``K.BAD_INPUT``). Everything else, the
public :mod:`~imago.games.go.fastpath` included, goes through the dispatcher."""
_PASS: Final = MoveKind.PASS
_empty: Final = np.empty
_int64: Final = np.dtype(np.int64)  # np.empty takes a dtype faster than a type
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


_NO_ACTIONS: Final = np.frombuffer(b"", dtype=np.int64)
_HEADER_CHECKS: Final = (
    (K.F_TO_PLAY, 1, 2),
    (K.F_KO_COLOR, 0, 2),
    (K.F_PASSES, 0, 1 << 62),
    (K.F_CAPT_B, 0, 1 << 62),
    (K.F_CAPT_W, 0, 1 << 62),
    (K.F_MOVES, 0, 1 << 62),
)
"""The header fields a pickle carries beside the board, with their bounds (see :func:`_link`);
the ko point and last action are checked against the board's size."""


def _link(frame: _Frame, previous: GoPosition | None, data: object) -> GoPosition:
    """One position of a pickled line, from ``(board, header, last move, resigned)`` after
    ``previous``: every field checked, the state made again from the stones (never read from
    the pickle), the legal list and superko keys computed again."""
    if not isinstance(data, tuple) or len(data) != 4:
        raise ValueError("not a pickled Go position")
    board_bytes, header, last, resigned = data
    size, nn = frame.size, frame.nn
    if last is not None and not isinstance(last, Move):
        raise ValueError(f"not a Go move: {last!r}")
    if resigned is not None:
        if previous is None or not isinstance(resigned, Color):
            raise ValueError("a resignation without a position before it or a colour")
        return GoPosition._make(previous._s.copy(), frame, previous, last, Color(resigned))
    if not isinstance(board_bytes, bytes) or len(board_bytes) != nn:
        raise ValueError(f"a pickled {size}x{size} Go board has {nn} points")
    board = np.frombuffer(board_bytes, dtype=np.int8)
    if int(board.min()) < K.EMPTY or int(board.max()) > K.WHITE:
        raise ValueError("a Go point holds nothing, a black or a white stone")
    if not isinstance(header, tuple) or len(header) != K.HEADER:
        raise ValueError("not a pickled Go position header")
    if not all(isinstance(v, int) for v in header):
        raise ValueError("a Go position header holds integers")
    for field, low, high in _HEADER_CHECKS:
        if not low <= header[field] <= high:
            raise ValueError(f"header field {field} of a Go position is out of range")
    ko, last_action = header[K.F_KO], header[K.F_LAST]
    if not (ko == -1 or (0 <= ko < nn and board[ko] == K.EMPTY)):
        raise ValueError(f"the ko point {ko} of a pickled Go position is not an empty point")
    if not -1 <= last_action <= nn:
        raise ValueError(f"the last action {last_action} is outside -1..{nn}")
    state = K.board_state(board.astype(np.int64), size)
    stones = np.flatnonzero(board)
    if stones.size and int(state[3 * nn + state[nn + stones]].min()) <= 0:
        raise ValueError("a group of a pickled Go position has no liberty")
    h = frame.h
    for field in (K.F_TO_PLAY, K.F_KO, K.F_KO_COLOR, K.F_PASSES, K.F_CAPT_B, K.F_CAPT_W):
        state[h + field] = header[field]
    state[h + K.F_MOVES] = header[K.F_MOVES]
    state[h + K.F_LAST] = last_action
    keys = previous._superko_keys() if previous is not None else _NO_KEYS
    full = K._finish(state, size, frame.suicide, frame.mode, keys, True, -1)
    full[h + K.F_STATUS] = K.OK
    return GoPosition._make(full, frame, previous, last)


def _unpickle(size: object, rules: object, links: object) -> GoPosition:
    """A pickled position (see :meth:`GoPosition.__reduce__`), checked as any input is: a
    crafted pickle raises ``ValueError``."""
    if not isinstance(size, int):
        raise ValueError(f"not a Go board size: {size!r}")
    _check_size(size)
    if not isinstance(rules, GoRules):
        raise ValueError(f"not Go rules: {rules!r}")
    if not isinstance(links, list) or not links:
        raise ValueError("a pickled Go position holds its line of positions")
    frame = _frame(size, rules)
    position: GoPosition | None = None
    for data in links:  # a loop, not a recursion: a game of any length
        position = _link(frame, position, data)
    assert position is not None
    return position


def _color(color: object) -> Color:
    """``color`` as a :class:`Color`, or a ``ValueError`` that says what a colour is."""
    try:
        return Color(color)  # type: ignore[arg-type]  # checked here
    except ValueError:
        raise ValueError(f"a colour is Color.BLACK or Color.WHITE, not {color!r}") from None


def _frozen(actions: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """A read-only copy of ``actions`` over an immutable ``bytes`` object: numpy refuses to
    make it writeable again, so nothing can change a position through it."""
    return np.frombuffer(actions.tobytes(), dtype=np.int64)


def _check_size(size: int) -> None:
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"Go board size must be {MIN_SIZE}..{MAX_SIZE}, not {size!r}")


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
        self.code = K.rules_code(size, self.suicide, self.mode)
        # the action of each move of the table by its identity: the moves legal_moves() gives
        # find their action without a look at their point (the tables live as long as the
        # process, so no other object ever has one of these identities)
        self.actions = {id(move): action for action, move in enumerate(self.table)}

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
    tuple of cached :class:`Move` objects once. ``move in moves`` is a binary search.
    """

    __slots__ = ("_array", "_n", "_start", "_table", "_tuple")

    _array: npt.NDArray[np.int64]
    _n: int
    _start: int
    _table: tuple[Move, ...]
    _tuple: tuple[Move, ...]

    def __init__(self, array: npt.NDArray[np.int64], start: int, n: int, size: int) -> None:
        self._array = array
        self._start = start
        self._n = n
        self._table = moves_table(size)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Move, ...]: ...

    def __getitem__(self, index: int | slice) -> Move | tuple[Move, ...]:
        if index.__class__ is int and 0 <= index < self._n:  # type: ignore[operator]
            move: Move = self._table[self._array[self._start + index]]  # type: ignore[operator]
            return move
        return self.as_tuple()[index]

    @property
    def _size(self) -> int:
        return math.isqrt(len(self._table) - 1)

    @property
    def _actions(self) -> npt.NDArray[np.int64]:
        return self._array[self._start : self._start + self._n]

    def __iter__(self) -> Iterator[Move]:
        return iter(self.as_tuple())

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move) or move.is_resign:
            return False
        size = self._size
        if move.point is not None and not move.point.on_board(size):
            return False
        action = move.to_action(size)
        i = int(np.searchsorted(self._actions, action))
        return i < len(self._actions) and int(self._actions[i]) == action

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves | tuple | list):
            return self.as_tuple() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def as_tuple(self) -> tuple[Move, ...]:
        """The moves as a tuple (built once)."""
        try:
            return self._tuple
        except AttributeError:  # the first call (legal_moves() sets four slots, not five)
            moves = self._tuple = tuple(_move_array(self._size)[self._actions].tolist())
            return moves

    def actions(self) -> npt.NDArray[np.int64]:
        """The legal action indices (a read-only copy)."""
        return _frozen(self._actions)

    def __repr__(self) -> str:
        text = ", ".join(m.to_gtp(self._size) for m in self.as_tuple())
        return f"<LegalMoves ({text})>"


@final
class GoPosition:
    """An immutable Go position with its history; implements :class:`imago.core.GameState`.

    Make one with :func:`new_game` (or :meth:`from_diagram`). :meth:`play` returns a new
    position and never changes this one. The fast path for search is in
    :mod:`imago.games.go.fastpath`.
    """

    __slots__ = ("_f", "_last", "_legal", "_moves", "_n", "_previous", "_resigned", "_s")

    _s: npt.NDArray[np.int64]
    _f: _Frame
    _previous: GoPosition | None
    _last: Move | None
    _resigned: Color | None
    _n: int  # the number of legal actions, plus the number of superko keys << 16
    _legal: npt.NDArray[np.int64] | None
    _moves: LegalMoves | None

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
        self._s = state
        self._f = frame
        self._previous = previous
        self._last = last
        self._resigned = resigned
        self._legal = None
        self._moves = None
        at = frame.length + frame.nn
        self._n = int(state[at + 1]) | int(state[at + 2]) << 16
        return self

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
        return _COLORS[self._s[self._f.h + K.F_TO_PLAY]]  # type: ignore[return-value]

    @property
    def key(self) -> int:
        """Zobrist key of the stones and the side to move (a non-negative 64-bit integer)."""
        s, h = self._s, self._f.h
        key = int(s[h + K.F_HASH])
        if s[h + K.F_TO_PLAY] == K.WHITE:
            key ^= int(K.ZOBRIST_WHITE_TO_PLAY)
        return key & _MASK64

    @property
    def board_key(self) -> int:
        """Zobrist key of the stones only (what positional superko compares)."""
        return int(self._s[self._f.h + K.F_HASH]) & _MASK64

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
        return int(self._s[self._f.h + K.F_MOVES])

    @property
    def ko_point(self) -> Point | None:
        """The point the simple-ko rule forbids to the side to move, if any."""
        s, h = self._s, self._f.h
        ko = int(s[h + K.F_KO])
        if ko < 0 or s[h + K.F_KO_COLOR] != s[h + K.F_TO_PLAY]:
            return None
        return Point(*divmod(ko, self._f.size))

    @property
    def consecutive_passes(self) -> int:
        return int(self._s[self._f.h + K.F_PASSES])

    def captures(self, color: Color) -> int:
        """How many stones ``color`` has captured (prisoners it holds)."""
        return int(self._s[self._f.h + K.F_CAPT_B + int(color) - 1])

    def board(self) -> npt.NDArray[np.int8]:
        """A ``(size, size)`` copy of the board: 0 empty, 1 black, 2 white."""
        return self._s[: self._f.nn].astype(np.int8).reshape(self._f.size, self._f.size)

    def color_at(self, point: Point) -> Color | None:
        """The stone on ``point``, or ``None``."""
        self._check_point(point)
        return _COLORS[self._s[point.index(self._f.size)]]

    def stones(self, color: Color) -> list[Point]:
        """The points of ``color``'s stones, in action order."""
        size = self._f.size
        found = np.flatnonzero(self._s[: self._f.nn] == int(color))
        return [Point(*divmod(int(p), size)) for p in found]

    def legal_moves(self) -> LegalMoves:
        """Every legal move in action order, pass last (empty once the game is over): a
        lazy, immutable sequence view."""
        moves = self._moves
        if moves is None:
            if self._resigned is None:
                frame = self._f
                moves = _new(LegalMoves)
                moves._array = self._s
                moves._start = frame.length
                moves._n = self._n & 0xFFFF
                moves._table = frame.table
            else:
                moves = LegalMoves(_NO_KEYS, 0, 0, self._f.size)
            self._moves = moves
        return moves

    def legal_actions(self) -> npt.NDArray[np.int64]:
        """The legal action indices, ascending, pass last (read-only)."""
        legal: npt.NDArray[np.int64] | None = getattr(self, "_legal", None)
        if legal is None:
            legal = self._legal_view()
        return legal

    def _legal_view(self) -> npt.NDArray[np.int64]:
        if self._resigned is not None:
            legal = _NO_ACTIONS
        else:
            start = self._f.length
            legal = _frozen(self._s[start : start + (self._n & 0xFFFF)])
        self._legal = legal
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
            self._s,
            self._f.size,
            self._s[self._f.h + K.F_TO_PLAY],
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
        who = self._s[self._f.h + K.F_TO_PLAY] if color is None else _color(color)
        return self._status(point.index(self._f.size), who) is None

    def play(self, move: Move, color: Color | None = None) -> GoPosition:
        """The position after ``move`` (for ``color``, default the side to move).

        Raises ``IllegalMoveError`` (occupied, suicide, ko, superko, game over) or
        ``InvalidMoveError`` (off the board); this position never changes.
        """
        if self._resigned is not None:
            raise IllegalMoveError(IllegalReason.GAME_OVER, self.format_move(move))
        frame = self._f
        # a move of the table (every move legal_moves() gives) by identity, any other by its
        # point; the kernel checks the move's legality either way
        action = frame.actions.get(id(move))
        if action is None:
            action = self._action(move)
            if action < 0:
                return self._resign(move, color)
        code = frame.code if color is None else frame.code | _color(color) << 8
        # exactly the words the child needs: its state, legal list, and one key more at most
        child = _empty(frame.keys_at + 1 + (self._n >> 16), _int64)
        result = _advance(self._s, child, code, action)
        if result >= 0:
            self._refuse(result, move)
        new = _new(GoPosition)
        new._s = child
        new._f = frame
        new._previous = self
        new._last = move
        new._resigned = None
        new._moves = None
        new._n = -1 - result  # (``_legal`` is left unset until legal_actions() is called)
        return new

    def _action(self, move: Move) -> int:
        """The action of ``move`` (``-1`` for a resignation), or ``InvalidMoveError`` when its
        point is off the board."""
        if not isinstance(move, Move):
            raise TypeError(f"play takes a Move (Move.play(point), Move.PASS), not {move!r}")
        point = move.point
        if point is not None:
            size = self._f.size
            if not point.on_board(size):
                raise InvalidMoveError(f"{point} is off a {size}x{size} board")
            return point.row * size + point.col
        if move.kind is _PASS:
            return self._f.nn
        return -1

    def _resign(self, move: Move, color: Color | None) -> GoPosition:
        if self.is_over():
            raise IllegalMoveError(IllegalReason.GAME_OVER, "resign")
        who = _color(color or self.to_play)
        # its own copy of the state: positions never share an array
        return GoPosition._make(self._s.copy(), self._f, self, move, who)

    def _refuse(self, status: int, move: Move) -> NoReturn:
        if status == K.BAD_INPUT:  # the kernel's own check of the arrays: never reached
            raise ValueError(f"the Go kernel refused the arrays of {self!r}")
        raise IllegalMoveError(_REASONS[status], self.format_move(move))

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
        s = self._s[: self._f.length].copy()
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
        s = self._s[: self._f.length].copy()
        s[self._f.h + K.F_PASSES] = 0
        frame = self._f
        keys = self._superko_keys()
        full = K._finish(s, frame.size, frame.suicide, frame.mode, keys, True, self._stone_bound())
        return GoPosition._make(full, self._f, self, self._last)

    def is_over(self) -> bool:
        """After two consecutive passes or a resignation."""
        return self._resigned is not None or not self._n & 0xFFFF

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
        values = self._s[: self._f.nn].tolist()
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
            and bool(np.array_equal(self._s[: self._f.nn], other._s[: other._f.nn]))
        )

    def __hash__(self) -> int:
        return hash((self._f.size, self.key))

    # -- copies and pickles -------------------------------------------------------------------
    def __copy__(self) -> GoPosition:
        return self  # immutable, as a tuple of immutables is

    def __deepcopy__(self, memo: dict[int, object]) -> GoPosition:
        return self

    def __reduce__(self) -> tuple[object, tuple[int, GoRules, list[tuple[object, ...]]]]:
        """The whole line of positions from the game's start, root first, each as its stones
        and header (no recursion through :attr:`previous`, so games of any length pickle);
        :func:`_unpickle` checks and rebuilds each."""
        frame = self._f
        nn, h = frame.nn, frame.h
        links: list[tuple[object, ...]] = []
        walk: GoPosition | None = self
        while walk is not None:
            s = walk._s
            header = tuple(int(v) for v in s[h : h + K.HEADER].tolist())
            links.append((s[:nn].astype(np.int8).tobytes(), header, walk._last, walk._resigned))
            walk = walk._previous
        links.reverse()
        return _unpickle, (frame.size, frame.rules, links)

    # -- fast path ----------------------------------------------------------------------------
    def arrays(self) -> npt.NDArray[np.int64]:
        """A copy of the kernel state array (see :mod:`imago.games.go.fastpath`)."""
        return self._s[: self._f.length].copy()

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
        return int(self._s[self._f.h + K.F_TOP])

    def _superko_keys(self) -> npt.NDArray[np.int64]:
        start = self._f.length + self._f.nn + 3 + K.BLOOM_WORDS
        return self._s[start : start + self._s[self._f.length + self._f.nn + 2]]

    def _status(self, action: int, color: int) -> IllegalReason | None:
        status = K.check(self._s, self._f.size, action, color, self._f.rules.suicide_allowed)
        if status:
            return _REASONS[status]
        if self._f.rules.ko is not KoRule.SIMPLE:
            key = K.result_hash(self._s, self._f.size, action, color)
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
        who = self.to_play if color is None else _color(color)
        return self._status(point.index(self._f.size), int(who))


def new_game(size: int = 9, rules: GoRules | None = None, handicap: int = 0) -> GoPosition:
    """A new game: the empty board (Black to play), or ``handicap`` stones placed as GTP's
    ``fixed_handicap`` places them with White to play. For free placement use
    :meth:`GoPosition.with_setup`."""
    position = GoPosition.empty(size, rules)
    if handicap:
        points = fixed_handicap_points(size, handicap)
        position = position.with_setup(black=points, to_play=Color.WHITE)
    return position
