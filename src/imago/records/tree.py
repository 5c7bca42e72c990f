"""The game tree both games share: moves with variations, setup, comments, any property.

Modelled on python-chess's ``pgn.py``. A :class:`Game` is the root :class:`GameNode`; every
node has a parent, ordered children (the first continues the main line), an optional move
with its colour, optional setup (stones or discs placed or removed, side to move), and the
record's other properties (SGF identifiers -> raw SGF values, kept as read so that unknown
properties survive a round trip). The comment is the ``C`` property.

The position at a node (:attr:`GameNode.state`) is computed once from the parent's and cached:
walking a tree never replays it from the root. A :class:`Cursor` walks the tree back and
forward and through variations, the way a board interface does.

>>> from imago.records.tree import Game
>>> game = Game.new("go", size=9)
>>> node = game.add_variation(Move.from_gtp("E5", 9))
>>> node.state.to_play, game.end() is node
(<Color.WHITE: 2>, True)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason, ImagoError, InvalidMoveError
from imago.core.game import GameState, Outcome
from imago.core.move import Move, Point
from imago.records.sgf_properties import escape_text, parse_result, unescape_text


class _Expander(Protocol):
    """What builds a node's deferred children (see :meth:`GameNode._defer_children`)."""

    def expand(self, node: GameNode) -> None: ...


@dataclass(frozen=True, slots=True)
class Setup:
    """Stones or discs placed (``black``, ``white``) or removed (``empty``), and who plays next."""

    black: tuple[Point, ...] = ()
    white: tuple[Point, ...] = ()
    empty: tuple[Point, ...] = ()
    to_play: Color | None = None

    def __bool__(self) -> bool:
        return bool(self.black or self.white or self.empty or self.to_play is not None)

    def apply(self, state: GameState) -> GameState:
        """``state`` with this setup done (nothing captured or flipped)."""
        return state.with_setup(self.black, self.white, self.empty, self.to_play)


class GameNode:
    """A node of the tree: the move that leads here (if any), setup, comment and properties.

    Build trees with :meth:`add_variation` (which checks the move against the rules) rather
    than by hand. Nodes compare by identity.
    """

    __slots__ = (
        "_children",
        "_source",
        "_state",
        "color",
        "illegal",
        "move",
        "parent",
        "properties",
        "setup",
    )

    parent: GameNode | None
    _children: list[GameNode] | None
    _source: _Expander | None
    move: Move | None
    color: Color | None
    setup: Setup | None
    properties: dict[str, list[str]]
    illegal: IllegalMoveError | None
    _state: GameState | None

    def __init__(
        self,
        parent: GameNode | None = None,
        move: Move | None = None,
        color: Color | None = None,
        setup: Setup | None = None,
        properties: dict[str, list[str]] | None = None,
        state: GameState | None = None,
    ) -> None:
        self.parent = parent
        self._children = []
        self._source = None
        self.move = move
        self.color = color
        self.setup = setup
        self.properties = {} if properties is None else properties
        self.illegal = None
        self._state = state

    # -- children ---------------------------------------------------------------------------
    @property
    def children(self) -> list[GameNode]:
        """The variations from here, in order (the first continues the main line)."""
        children = self._children
        if children is None:
            children = self._expand()
        return children

    @children.setter
    def children(self, children: list[GameNode]) -> None:
        self._source = None
        self._children = children

    def _expand(self) -> list[GameNode]:
        """Build the nodes below, which a reader left to be built on first use."""
        source = self._source
        children: list[GameNode] = []
        self._children = children
        self._source = None
        if source is not None:
            source.expand(self)
        return children

    def _defer_children(self, source: _Expander) -> None:
        """Leave the nodes below to ``source``, which builds them on the first use of
        :attr:`children` (reading records: a tree nobody walks costs no node objects)."""
        self._children = None
        self._source = source

    # -- position ---------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The position after this node's setup and move (cached; raises if a move is illegal)."""
        state = self._state
        if state is not None:
            return state
        pending: list[GameNode] = []
        node: GameNode | None = self
        while node is not None and node._state is None:
            pending.append(node)
            node = node.parent
        state = node._state if node is not None else None
        for item in reversed(pending):
            state = item._compute(state)
            item._state = state
        assert state is not None
        return state

    def _compute(self, before: GameState | None, initial: GameState | None = None) -> GameState:
        if before is None:
            raise ValueError("a tree needs a Game at its root")
        state = before
        if self.setup:
            state = self.setup.apply(state)
        if self.move is not None:
            try:
                state = state.play(self.move, self.color)
            except IllegalMoveError as error:
                if error.reason is not IllegalReason.GAME_OVER or state.game != "go":
                    raise
                # Go records go on after two passes (disputes, clean-up): play resumes from
                # the position as it stands.
                state = self._resume(state, initial).play(self.move, self.color)
        return state

    def _resume(self, state: GameState, initial: GameState | None) -> GameState:
        """The position ``state`` (a game over) with play resumed: through the rules' own
        ``resume`` where they have one (it keeps the move number, captures and the superko
        history), else as a setup of the board as it stands."""
        resume = getattr(state, "resume", None)
        if resume is not None and getattr(state, "resigned", None) is None:
            resumed: GameState = resume()
            return resumed
        if initial is None:
            initial = self.game().initial
        board = state.board()
        size = state.size
        points: list[list[Point]] = [[], [], []]
        for row in range(size):
            for col in range(size):
                points[int(board[row, col])].append(Point(row, col))
        color = self.color if self.color is not None else state.to_play
        return initial.with_setup(points[1], points[2], points[0], to_play=color)

    def forget_state(self) -> None:
        """Drop this node's cached position (it is computed again from its parent's when next
        asked for): a viewer of a big tree keeps only the positions it shows. The root keeps
        its own: the tree starts from it."""
        if self.parent is not None:
            self._state = None

    def _forget_states(self) -> None:
        """Drop cached positions of this subtree (after its setup or moves changed)."""
        stack: list[GameNode] = [self]
        while stack:
            node = stack.pop()
            node._state = None
            stack.extend(node.children)

    # -- navigation -------------------------------------------------------------------------
    def root(self) -> GameNode:
        """The root node (the :class:`Game` for a tree built normally)."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def game(self) -> Game:
        """The :class:`Game` this node belongs to."""
        root = self.root()
        if not isinstance(root, Game):
            raise ValueError("this node is not part of a Game")
        return root

    def path(self) -> list[GameNode]:
        """The nodes from the root down to this one, both included."""
        nodes: list[GameNode] = []
        node: GameNode | None = self
        while node is not None:
            nodes.append(node)
            node = node.parent
        nodes.reverse()
        return nodes

    def depth(self) -> int:
        """How many nodes lie above this one (0 at the root)."""
        count = 0
        node = self.parent
        while node is not None:
            count += 1
            node = node.parent
        return count

    def next(self) -> GameNode | None:
        """The main continuation (first child), or ``None`` at the end of a line."""
        return self.children[0] if self.children else None

    def end(self) -> GameNode:
        """The last node of the main line from here."""
        node = self
        while node.children:
            node = node.children[0]
        return node

    def is_end(self) -> bool:
        return not self.children

    def mainline(self) -> Iterator[GameNode]:
        """The nodes that follow this one along the main line (this one excluded)."""
        node = self
        while node.children:
            node = node.children[0]
            yield node

    def mainline_moves(self) -> list[Move]:
        """The moves of the main line after this node."""
        return [node.move for node in self.mainline() if node.move is not None]

    def mainline_plays(self) -> list[tuple[Color, Move]]:
        """The (colour, move) pairs of the main line after this node."""
        return [
            (node.color if node.color is not None else node.parent.state.to_play, node.move)  # type: ignore[union-attr]
            for node in self.mainline()
            if node.move is not None
        ]

    def walk(self) -> Iterator[GameNode]:
        """Every node of this subtree in document order (pre-order), without recursion."""
        stack: list[GameNode] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def is_main_variation(self) -> bool:
        """Whether this node is its parent's first child (or the root)."""
        return self.parent is None or self.parent.children[0] is self

    def is_mainline(self) -> bool:
        """Whether this node lies on the main line from the root."""
        node = self
        while node.parent is not None:
            if node.parent.children[0] is not node:
                return False
            node = node.parent
        return True

    def starts_variation(self) -> bool:
        """Whether this node begins a side line (it is not its parent's first child)."""
        return self.parent is not None and self.parent.children[0] is not self

    def variation(self, key: int | Move) -> GameNode:
        """A child by index or by move; raises ``KeyError``."""
        if isinstance(key, int):
            try:
                return self.children[key]
            except IndexError:
                raise KeyError(key) from None
        for child in self.children:
            if child.move == key:
                return child
        raise KeyError(key)

    def has_variation(self, move: Move, color: Color | None = None) -> bool:
        """Whether a child plays ``move`` (by ``color``, when given)."""
        return self._find(move, color) is not None

    def _find(self, move: Move, color: Color | None) -> GameNode | None:
        for child in self.children:
            if child.move == move and (color is None or child.color == color):
                return child
        return None

    # -- editing ----------------------------------------------------------------------------
    def add_variation(
        self,
        move: Move,
        color: Color | None = None,
        *,
        comment: str = "",
        setup: Setup | None = None,
    ) -> GameNode:
        """Append a child that plays ``move`` (for ``color``, default the side to move).

        Raises the rules' ``IllegalMoveError`` (or ``InvalidMoveError``) and changes nothing
        when the move is illegal.
        """
        before = self.state
        ready = setup.apply(before) if setup else before
        who = color if color is not None else ready.to_play
        child = GameNode(self, move, who, setup=setup)
        child._state = child._compute(before)
        if comment:
            child.comment = comment
        self.children.append(child)
        return child

    def add_main_variation(
        self, move: Move, color: Color | None = None, *, comment: str = ""
    ) -> GameNode:
        """Like :meth:`add_variation`, but the new child becomes the main line."""
        child = self.add_variation(move, color, comment=comment)
        self.children.insert(0, self.children.pop())
        return child

    def add_setup_node(self, setup: Setup, *, comment: str = "") -> GameNode:
        """Append a child with no move that only sets stones up (an SGF setup node)."""
        state = setup.apply(self.state)
        child = GameNode(self, setup=setup, state=state)
        if comment:
            child.comment = comment
        self.children.append(child)
        return child

    def set_setup(self, setup: Setup | None) -> None:
        """Replace this node's setup; positions below are recomputed when next asked for."""
        self.setup = setup if setup else None
        self._forget_states()
        self.state  # noqa: B018 - validate now: raises if the line below became illegal

    def _child_index(self, child: GameNode) -> int:
        for index, node in enumerate(self.children):
            if node is child:
                return index
        raise ValueError("not a child of this node")

    def promote_to_main(self, child: GameNode) -> None:
        """Make ``child`` the first (main) variation; the others keep their order."""
        index = self._child_index(child)
        self.children.insert(0, self.children.pop(index))

    def promote(self, child: GameNode) -> None:
        """Move ``child`` one place up among the variations."""
        index = self._child_index(child)
        if index > 0:
            children = self.children
            children[index - 1], children[index] = children[index], children[index - 1]

    def demote(self, child: GameNode) -> None:
        """Move ``child`` one place down among the variations."""
        index = self._child_index(child)
        children = self.children
        if index < len(children) - 1:
            children[index + 1], children[index] = children[index], children[index + 1]

    def remove_variation(self, child: GameNode) -> None:
        """Delete ``child`` and everything below it."""
        del self.children[self._child_index(child)]
        child.parent = None

    # -- properties -------------------------------------------------------------------------
    def get(self, ident: str) -> list[str]:
        """The raw (escaped) SGF values of property ``ident``; empty if absent."""
        return self.properties.get(ident, [])

    def get_text(self, ident: str) -> str | None:
        """The first value of ``ident`` as plain text (escapes resolved), or ``None``."""
        values = self.properties.get(ident)
        if not values:
            return None
        return unescape_text(values[0])

    def set_text(self, ident: str, text: str | None) -> None:
        """Set ``ident`` to one plain-text value (escaped for SGF); ``None`` deletes it."""
        if text is None:
            self.properties.pop(ident, None)
        else:
            self.properties[ident] = [escape_text(text)]

    @property
    def comment(self) -> str:
        """The comment (``C``) as plain text; ``""`` when there is none."""
        return self.get_text("C") or ""

    @comment.setter
    def comment(self, text: str) -> None:
        self.set_text("C", text or None)

    # -- display ----------------------------------------------------------------------------
    def describe(self) -> str:
        """A short text for this node: ``B E5``, ``W pass``, ``setup``, ``root``."""
        if self.move is not None:
            color = self.color.letter if self.color is not None else "?"
            root = self.root()
            if not isinstance(root, Game):
                text = repr(self.move)
            elif root.game_name == "othello":
                text = self.move.to_algebraic()
            else:
                text = self.move.to_gtp(root.size)
            return f"{color} {text}"
        if self.setup:
            return "setup"
        return "root" if self.parent is None else "empty node"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()} at depth {self.depth()}>"


class Game(GameNode):
    """The root of a game tree: which game, the starting position, and the record's errors.

    ``properties`` of the root hold the game information as SGF identifiers (``PB``, ``PW``,
    ``RE``, ``DT``, ``EV``, ``KM``...): formats other than SGF map their fields to these.
    ``errors`` lists the problems met while reading the record (empty for a clean one).
    """

    __slots__ = ("errors", "game_name", "initial", "size")

    def __init__(self, initial: GameState, *, setup: Setup | None = None) -> None:
        self.game_name = initial.game
        self.size = initial.size
        self.initial = initial
        self.errors: list[Any] = []
        state = setup.apply(initial) if setup else initial
        super().__init__(None, setup=setup if setup else None, state=state)

    @classmethod
    def new(cls, game: str = "go", **options: Any) -> Game:
        """A game with no moves yet: ``Game.new("go", size=9)``, ``Game.new("othello")``."""
        return cls(start_state(game, **options))

    def _compute(self, before: GameState | None, initial: GameState | None = None) -> GameState:
        state = self.initial
        return self.setup.apply(state) if self.setup else state

    # -- game information -------------------------------------------------------------------
    @property
    def black_player(self) -> str | None:
        return self.get_text("PB")

    @property
    def white_player(self) -> str | None:
        return self.get_text("PW")

    @property
    def result(self) -> str | None:
        """The recorded result text (``RE``), e.g. ``B+3.5``, ``W+R``, ``Void``."""
        return self.get_text("RE")

    @property
    def outcome(self) -> Outcome | None:
        """The recorded result as an :class:`Outcome`, when it states one."""
        values = self.get("RE")
        return parse_result(values[0]) if values else None

    @property
    def date(self) -> str | None:
        return self.get_text("DT")

    @property
    def event(self) -> str | None:
        return self.get_text("EV")

    def mainline_states(self) -> Iterator[tuple[GameState, GameNode]]:
        """(position before the node, node) along the main line: what datasets are built from."""
        node: GameNode = self
        while node.children:
            child = node.children[0]
            yield node.state, child
            node = child


class Cursor:
    """A position in a tree that moves back, forward and between variations.

    All moves return ``True`` when they moved and ``False`` (changing nothing) when they
    could not, as a board interface wants.
    """

    def __init__(self, node: GameNode) -> None:
        self.node = node

    @property
    def state(self) -> GameState:
        return self.node.state

    def back(self) -> bool:
        """To the parent."""
        if self.node.parent is None:
            return False
        self.node = self.node.parent
        return True

    def forward(self, variation: int = 0) -> bool:
        """To the child ``variation`` (0: the main continuation)."""
        if not 0 <= variation < len(self.node.children):
            return False
        self.node = self.node.children[variation]
        return True

    def to_start(self) -> None:
        self.node = self.node.root()

    def to_end(self) -> None:
        """To the end of the current line (following first children)."""
        self.node = self.node.end()

    def go_to(self, node: GameNode) -> None:
        """To any node of the same tree."""
        if node.root() is not self.node.root():
            raise ValueError("that node belongs to another tree")
        self.node = node

    def siblings(self) -> list[GameNode]:
        """The variations at this point (this node and its siblings), in order."""
        parent = self.node.parent
        return [self.node] if parent is None else list(parent.children)

    def next_variation(self) -> bool:
        """To the next sibling (the next variation of the same move)."""
        return self._sibling(+1)

    def previous_variation(self) -> bool:
        """To the previous sibling."""
        return self._sibling(-1)

    def _sibling(self, step: int) -> bool:
        parent = self.node.parent
        if parent is None:
            return False
        index = parent._child_index(self.node) + step
        if not 0 <= index < len(parent.children):
            return False
        self.node = parent.children[index]
        return True

    def play(self, move: Move, color: Color | None = None) -> GameNode:
        """Follow the child that plays ``move``, or add it as a new variation (rules checked)."""
        who = color if color is not None else self.node.state.to_play
        existing = self.node._find(move, who)
        self.node = existing if existing is not None else self.node.add_variation(move, who)
        return self.node

    def path_moves(self) -> list[tuple[Color, Move]]:
        """The (colour, move) pairs from the start to here."""
        return [
            (node.color, node.move)
            for node in self.node.path()
            if node.move is not None and node.color is not None
        ]


def start_state(game: str, **options: Any) -> GameState:
    """``imago.games.make(game, **options)``, shared: states are immutable, so every record
    that starts the same way can start from one object."""
    key = tuple(sorted(options.items()))
    try:
        hash(key)
    except TypeError:  # unhashable options: nothing to share
        from imago.games import make

        return make(game, **options)
    return _start_state(game, key)


@functools.lru_cache(maxsize=64)
def _start_state(game: str, options: tuple[tuple[str, Any], ...]) -> GameState:
    from imago.games import make

    return make(game, **dict(options))


class RecordError(ImagoError, ValueError):
    """A move list that the rules refuse: ``index`` (0-based) says which move, ``error`` why."""

    def __init__(self, message: str, index: int, error: Exception | None = None) -> None:
        self.index = index
        self.error = error
        super().__init__(message)


def mainline_game(initial: GameState, plays: Iterable[tuple[Color | None, Move]]) -> Game:
    """A game whose main line plays ``plays`` from ``initial``; raises :class:`RecordError`."""
    game = Game(initial)
    node: GameNode = game
    for index, (color, move) in enumerate(plays):
        try:
            node = node.add_variation(move, color)
        except (IllegalMoveError, InvalidMoveError) as error:
            raise RecordError(f"move {index + 1} ({move!r}): {error}", index, error) from error
    return game


def game_from_moves(initial: GameState, moves: Iterable[Move]) -> Game:
    """A game from moves whose passes are implicit (WTHOR, transcripts): each move is played
    by the side to move, or, when that side has no legal move, by its opponent.

    Raises :class:`RecordError` (with the move's index) at an illegal move.
    """
    plays = moves if isinstance(moves, (list, tuple)) else list(moves)
    if initial.game == "othello":
        squares = _othello_squares(plays, initial.size)
        if squares is not None:
            return game_from_squares(initial, plays, squares)
    return _replay_moves(initial, plays)


def game_from_squares(
    initial: GameState, moves: Sequence[Move], squares: bytes | bytearray
) -> Game:
    """:func:`game_from_moves` for Othello moves on points, also given as bit squares
    (``row * 8 + col``, one byte each): the whole list is checked by one numba kernel, the
    nodes are built at once and each node's position is computed (then cached) when first
    asked for. Raises :class:`RecordError` (with the move's index) at an illegal move."""
    import numpy as np

    from imago.records._othello_kernels import implicit_colors

    if initial.game != "othello" or initial.is_over():
        return _replay_moves(initial, moves)
    p, o = initial.bitboards()  # type: ignore[attr-defined]
    colors, bad = implicit_colors(
        _othello_position(int(p), int(o), int(initial.to_play), initial.size),
        np.frombuffer(squares, np.uint8),
    )
    if bad >= 0:  # the rules' own error, with its reason and where it is
        return _replay_moves(initial, moves)
    game = Game(initial)
    node: GameNode = game
    by_code = _COLOR_OF_CODE
    for move, code in zip(moves, colors.tolist(), strict=True):
        child = GameNode(node, move, by_code[code])
        node.children.append(child)
        node = child
    return game


_COLOR_OF_CODE = (None, Color.BLACK, Color.WHITE)


@functools.lru_cache(maxsize=64)
def _othello_position(player: int, opponent: int, to_play: int, size: int) -> Any:
    """The kernel's ``[black, white, mask, side]`` array (shared: records mostly start alike)."""
    import numpy as np

    from imago.games.othello.bitboard import board_mask

    black, white = (player, opponent) if to_play == 1 else (opponent, player)
    position = np.array([black, white, int(board_mask(size)), to_play], np.uint64)
    position.flags.writeable = False
    return position


def _othello_squares(moves: Sequence[Move], size: int) -> bytearray | None:
    """The bit squares of ``moves``, or ``None`` when one is not a point of the board."""
    squares = bytearray(len(moves))
    for index, move in enumerate(moves):
        point = move.point
        if point is None or not (0 <= point.row < size and 0 <= point.col < size):
            return None
        squares[index] = point.row * 8 + point.col
    return squares


def _replay_moves(initial: GameState, moves: Iterable[Move]) -> Game:
    """:func:`game_from_moves` move by move through ``GameState.play`` (any game)."""
    game = Game(initial)
    node: GameNode = game
    state = initial
    color = initial.to_play
    opponent = {Color.BLACK: Color.WHITE, Color.WHITE: Color.BLACK}
    for index, move in enumerate(moves):
        try:
            after = state.play(move)
        except IllegalMoveError as error:
            try:
                color = opponent[color]
                after = state.play(move, color)
            except (IllegalMoveError, InvalidMoveError):
                text = state.format_move(move) if move.is_play else repr(move)
                raise RecordError(f"move {index + 1} ({text}): {error}", index, error) from error
        except InvalidMoveError as error:
            raise RecordError(f"move {index + 1}: {error}", index, error) from error
        child = GameNode(node, move, color, None, None, after)
        node.children.append(child)
        node = child
        state = after
        color = opponent[color]
    return game
