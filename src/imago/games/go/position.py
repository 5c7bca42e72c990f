"""The immutable Go position: the public face of the rules kernels."""

from __future__ import annotations

import ctypes
import sysconfig
import threading
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Final, final, overload

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
_NO_ROOM: Final = K.NO_ROOM
_advance_here: Final = direct(K.advance_here, "(int64, int64, int64, int64)")
_address: Final = direct(K.address, "(int64[::1],)")
_new_arena_kernel: Final = direct(K.new_arena, "(int64, int64[::1])")
_ARENA_WORDS: Final = 15 * 1024
"""A game's first arena, in words (120 KiB: a dozen 9x9 positions, three 19x19 ones)."""
_ARENA_MOST_WORDS: Final = 128 * 1024
"""The most an arena grows to, in words (1 MiB): each arena of a game is twice as large as the
one before, up to this, so a long game makes few (each costs a few microseconds to make)."""
_new: Final = object.__new__
_COLORS: Final = (None, Color.BLACK, Color.WHITE)
_DIAGRAM: Final = {".": 0, "+": 0, "X": 1, "x": 1, "#": 1, "O": 2, "o": 2}


_TABLES: dict[int, tuple[Move, ...]] = {}
"""The moves of each board size, made once and never dropped: arenas hold their addresses."""
_TABLES_LOCK: Final = threading.Lock()


def _never_freed(moves: tuple[Move, ...]) -> None:
    """Raise the reference count of each of ``moves`` by ``2 ** 40``, once.

    Arenas hold the moves' addresses, and :class:`LegalMoves` reads them as objects, without
    references of their own. A numpy array made over a legal-move view (``np.asarray`` shares
    a ``ctypes`` array's memory) drops a reference from the move an item held each time the
    item is written: with this margin no program can drop enough to free a move, so such a
    write changes what that view shows and nothing else. (CPython with the GIL, where the
    count is an object's first word; the free-threaded build lays objects out otherwise and
    is left alone.)"""
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return
    for move in moves:
        count = ctypes.c_ssize_t.from_address(id(move))
        count.value += 1 << 40


def moves_table(size: int) -> tuple[Move, ...]:
    """The ``Move`` of every action of a ``size`` board (cached, so moves are shared)."""
    table = _TABLES.get(size)
    if table is None:
        with _TABLES_LOCK:  # one table a size, and _VIEW_AT[n] always of n moves
            table = _TABLES.get(size)
            if table is None:
                points = (Point(*divmod(a, size)) for a in range(size * size))
                table = (*(Move.play(point) for point in points), Move.PASS)
                _never_freed(table)
                while len(_VIEW_AT) <= len(table):
                    _VIEW_AT.append(_view_type(len(_VIEW_AT)).from_address)
                _TABLES[size] = table
    return table


def _check_size(size: int) -> None:
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"Go board size must be {MIN_SIZE}..{MAX_SIZE}, not {size!r}")


def _new_arena(frame: _Frame, words: int, after: int = 0) -> npt.NDArray[np.int64]:
    """Memory for the positions played from one another: each takes the next free part (see
    :func:`K.advance_into`) and never changes again. A position holds its arena and where its
    own full array starts; making a position then costs no allocation. An arena lives as long
    as any of its positions: one position kept while the rest of its arena's died holds the
    whole arena (up to 1 MiB, :data:`_ARENA_MOST_WORDS`). ``words``: room for at least two
    positions of that many words; ``after``: the size of the arena it follows in its game."""
    least = K.ARENA_START + 3 * frame.objects + 2 * words
    size = max(least, min(2 * after, _ARENA_MOST_WORDS), _ARENA_WORDS)
    return _new_arena_kernel(size, frame.addresses)  # type: ignore[no-any-return]


def _adopt(state: npt.NDArray[np.int64], frame: _Frame) -> tuple[npt.NDArray[np.int64], int]:
    """A new arena holding the full array ``state`` first, placed as :func:`K.advance_into`
    places a position (see :func:`K.adopt`); returns the arena and where the array starts."""
    arena = _new_arena(frame, state.shape[0] + 64)
    return arena, int(K.adopt(arena, state, frame.size))


def _view_base(arena: npt.NDArray[np.int64], frame: _Frame) -> int:
    """The address that :meth:`GoPosition.legal_moves` adds ``8 * offset`` to, for the legal
    moves of the position whose full array starts at ``arena[offset]``."""
    address: int = _address(arena)
    return address - 8 * (frame.nn + 1)


@final
class _Frame:
    """What every position of one game shares: the board's size, where the parts of its state
    array start, the rules (and the kernels' codes for them) and the table of moves. Positions
    hold one reference to it, so that making a position sets few attributes."""

    __slots__ = (
        "actions",
        "addresses",
        "code",
        "count_at",
        "h",
        "keys_at",
        "length",
        "mode",
        "nkeys_at",
        "nn",
        "objects",
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
        # where the parts of a full array start (the kernels own the layout)
        self.length, self.count_at, self.nkeys_at, _, self.keys_at = K.full_offsets(size)
        self.rules = rules
        self.mode = _KO_MODES[rules.ko]
        self.suicide = rules.suicide_allowed
        self.table = moves_table(size)
        # the action of each move of ``table``, by identity: the moves that legal_moves()
        # gives find their action without a look at their point (the table lives as long as
        # the process, so the identities are never reused)
        self.actions = {id(move): action for action, move in enumerate(self.table)}
        # the moves' addresses, for the arenas' move tables (see K.ARENA_TABLE): the table's
        # moves live as long as the process (_TABLES), so the addresses stay valid
        self.addresses = np.array([id(move) for move in self.table], dtype=np.int64)
        self.objects = K.object_words(nn)
        self.code = K.rules_code(size, self.suicide, self.mode)

    def __reduce__(self) -> tuple[object, tuple[int, GoRules]]:
        # unpickled positions share the frame of their game, as played ones do
        return _frame, (self.size, self.rules)


@lru_cache(maxsize=256)
def _frame(size: int, rules: GoRules) -> _Frame:
    """The shared frame of ``size`` boards under ``rules`` (made once; the cache is bounded,
    as games with many komi values make many rule sets)."""
    return _Frame(size, rules)


if TYPE_CHECKING:
    _View = Sequence[Move]
else:
    _View = ctypes.Array


class LegalMoves(_View):
    """The legal moves of a position: an immutable sequence in action order, pass last.

    ``len``, indexing and iteration run in C, as for a tuple: a legal-move list is a ``ctypes``
    array of objects laid over the words in front of the position's kernel arrays, where the
    kernel that made the position wrote the addresses of its legal moves' cached :class:`Move`
    objects (see ``K.ARENA_TABLE``). Nothing is copied and nothing is built: ``legal_moves()``
    then ``random.choice`` costs what the same on a tuple costs, and making the tuple would
    cost more than the move. The view holds its position (and so the memory it reads), cannot
    be written, and pickles as its position's ``legal_moves()``. A slice is a list;
    ``move in moves`` is a binary search. (``np.array(moves)`` copies the moves;
    ``np.asarray(moves)`` shares the view's memory, as for any ``ctypes`` array: writing it
    would change what this position's views show, and nothing else, see ``_never_freed``.)
    """

    _type_ = ctypes.py_object
    _length_ = 0
    __slots__ = ("_p",)
    _p: GoPosition

    if TYPE_CHECKING:

        def __len__(self) -> int: ...

        @overload
        def __getitem__(self, index: int) -> Move: ...

        @overload
        def __getitem__(self, index: slice) -> list[Move]: ...

        def __getitem__(self, index: int | slice) -> Move | list[Move]: ...

        @classmethod
        def from_address(cls, address: int) -> LegalMoves: ...

    def __setitem__(self, index: object, value: object) -> None:
        raise TypeError("legal moves cannot be changed")

    def __delitem__(self, index: object) -> None:
        raise TypeError("legal moves cannot be changed")

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

    def __reduce__(self) -> tuple[object, tuple[GoPosition]]:
        return _legal_moves, (self._p,)

    def index(self, move: object, start: int = 0, stop: int | None = None) -> int:
        """Where ``move`` is (``ValueError`` when it is not legal here)."""
        return self.as_tuple().index(move, start, len(self) if stop is None else stop)

    def count(self, move: object) -> int:
        """1 when ``move`` is legal here, else 0."""
        return int(move in self)

    def as_tuple(self) -> tuple[Move, ...]:
        """The moves as a tuple."""
        return tuple(self)

    def actions(self) -> npt.NDArray[np.int64]:
        """The legal action indices (read-only)."""
        return self._p.legal_actions()

    def __repr__(self) -> str:
        size = self._p._f.size
        text = ", ".join(m.to_gtp(size) for m in self)
        return f"<LegalMoves ({text})>"


Sequence.register(LegalMoves)


def _view_type(length: int) -> type[LegalMoves]:
    """The :class:`LegalMoves` of ``length`` moves (a ``ctypes`` array type has one length)."""
    namespace = {"_length_": length, "_type_": ctypes.py_object, "__slots__": ()}
    view = type("LegalMoves", (LegalMoves,), namespace)
    view.__module__ = __name__
    return view


_VIEW_AT: Final[list[Callable[[int], LegalMoves]]] = []
"""``_VIEW_AT[n](address)``: the :class:`LegalMoves` of the ``n`` moves whose addresses are at
``address`` (made up to the largest board's ``nn + 1`` by :func:`moves_table`)."""


def _legal_moves(position: GoPosition) -> LegalMoves:
    """``position.legal_moves()`` (for pickling a :class:`LegalMoves`)."""
    return position.legal_moves()


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

    __slots__ = ("_f", "_last", "_n", "_o", "_previous", "_s", "_v")

    _s: npt.NDArray[np.int64]  # the arena holding this position's full array ...
    _o: int  # ... from here: read it as ``_s[_o + offset]``, never write it
    _f: _Frame
    _previous: GoPosition | None
    _last: Move | None
    _resigned: Color | None = None  # a game ended by resignation is a _Resigned position
    _n: int  # bits 0-15: legal actions (0 once over); 16-31: superko keys (see _keys); above:
    # nothing to read (a played position keeps all its kernel's answer, see K.advance_into)
    _v: int  # the address of this arena's legal-move words, less 8 * _o (see legal_moves)

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
        self = object.__new__(_Resigned if resigned else cls)
        self._s, self._o = _adopt(state, frame)
        self._v = _view_base(self._s, frame)
        self._f = frame
        self._previous = previous
        self._last = last
        if resigned:
            self._resigned = resigned  # type: ignore[misc]  # self is a _Resigned
        legal = 0 if resigned else int(state[frame.count_at])
        self._n = int(state[frame.nkeys_at]) << 16 | legal
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
        """Every legal move in action order, pass last (empty once the game is over): an
        immutable sequence that reads the position's own list (see :class:`LegalMoves`)."""
        moves = _VIEW_AT[self._n & 0xFFFF](self._v + (self._o << 3))
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
        if action is not None and color is None:
            made = _advance_here(self._v, self._o, frame.code, action)
        else:
            made = K.OK  # not tried (the kernel never answers OK)
        new = _new(GoPosition)
        if made > _NO_ROOM:  # made: a new position's legal moves, keys and offset
            new._v = self._v
        else:  # not tried, refused, or no room left in the arena
            if not isinstance(move, Move):
                raise TypeError(
                    f"play takes a Move, not {move!r}: read a GTP vertex with "
                    "parse_move('D4'), or play an action index with play_action"
                )
            if move.is_resign:
                return self._resign(move, color)
            arena, made = self._advance(move, color, made == K.NO_ROOM)
            new._v = self._v if arena is self._s else _view_base(arena, frame)
        new._s = arena
        new._o = made >> 32
        new._f = frame
        new._previous = self
        new._last = move
        new._n = made
        return new

    def _advance(
        self, move: Move, color: Color | None, full: bool = False
    ) -> tuple[npt.NDArray[np.int64], int]:
        """What :meth:`play` does for any move object and colour: the checks, the errors, and
        a new arena when this one is ``full`` (known) or found full. Returns the arena and
        what the kernel returned."""
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
        made = K.NO_ROOM if full else _advance_into(s, self._o, arena, *args)
        if made == K.NO_ROOM:
            arena = _new_arena(frame, frame.keys_at + self._keys() + 1, arena.shape[0])
            made = _advance_into(s, self._o, arena, *args)
        if made <= _NO_ROOM:
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
        return self._s[self._o : self._o + self._f.keys_at + self._keys()].copy()

    def _keys(self) -> int:
        """The number of superko keys."""
        return (self._n >> 16) & 0xFFFF

    def _superko_keys(self) -> npt.NDArray[np.int64]:
        start = self._o + self._f.keys_at
        return self._s[start : start + self._keys()]

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


@final
class _Resigned(GoPosition):  # type: ignore[misc]  # GoPosition is final to users, not to itself
    """A position after a resignation: the game is over, and its play raises."""

    __slots__ = ("_resigned",)
    _resigned: Color | None

    def play(self, move: Move, color: Color | None = None) -> GoPosition:
        raise IllegalMoveError(IllegalReason.GAME_OVER, self.format_move(move))


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
