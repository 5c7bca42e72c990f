"""SGF collections read into game trees and written back: Go (GM[1]) and Othello (GM[2]).

The top layer of the SGF stack: :mod:`~imago.records.sgf_grammar` (bytes -> raw trees) ->
:mod:`~imago.records.sgf_properties` (values) -> here (raw trees <->
:class:`~imago.records.tree.Game`, with the moves replayed by the game's rules).

>>> from imago.records import sgf
>>> games = sgf.read_string("(;GM[1]SZ[9]KM[6.5];B[ee];W[ce])")
>>> games[0].mainline_moves()[0].to_gtp(9)
'E5'
>>> sgf.write_string(games).startswith("(;FF[4]CA[UTF-8]GM[1]SZ[9]")
True

Reading is lenient by default: a damaged file gives what can be recovered, and the problems
(each an :class:`SgfError` with line and column) are listed in ``collection.errors`` and in
each game's ``errors``. With ``strict=True`` the first problem raises :class:`SgfError`.
A move the rules refuse is such a problem: leniently it is kept (marked ``node.illegal``, its
stone placed without captures) so that nothing of the record is lost.

FF[1]-FF[3] files are read too (``B[tt]`` passes, ``AddBlack``-style identifiers). Files are
always written as FF[4] in UTF-8.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, ImagoError, InvalidMoveError
from imago.core.files import atomic_write
from imago.core.game import GameState
from imago.core.move import Move, Point
from imago.records import sgf_grammar, sgf_properties
from imago.records.sgf_grammar import RawNode, RawTree, SgfError
from imago.records.sgf_properties import (
    decode,
    format_point,
    is_valid_raw,
    parse_color,
    parse_point_list,
    parse_real,
)
from imago.records.tree import Game, GameNode, Setup, start_state

GAME_NUMBERS = {1: "go", 2: "othello"}
"""SGF ``GM`` numbers imago reads, and the game each names."""
GAME_OF_NAME = {name: number for number, name in GAME_NUMBERS.items()}
DEFAULT_SIZES = {"go": 19, "othello": 8}
MAX_SIZE = 25

_MOVE_IDENTS = ("B", "W")
_SETUP_IDENTS = ("AB", "AW", "AE", "PL")
_ROOT_STRUCTURE = ("FF", "CA", "GM", "SZ")

RULES_OF_RU = {
    "japanese": "japanese",
    "jp": "japanese",
    "korean": "japanese",
    "chinese": "chinese",
    "cn": "chinese",
    "aga": "aga",
    "bga": "aga",
    "french": "aga",
    "nz": "nz",
    "new zealand": "nz",
    "goe": "nz",
    "ing": "nz",
    "tromp-taylor": "tromp-taylor",
    "tromp taylor": "tromp-taylor",
}
"""SGF ``RU`` values -> ``GoRules`` presets. Others (and none) read as Japanese rules: simple ko,
the least strict about repetition, so no real game is refused for a superko."""

RU_OF_RULES = {
    "computer": "Chinese",
    "chinese": "Chinese",
    "japanese": "Japanese",
    "tromp-taylor": "Tromp-Taylor",
    "aga": "AGA",
    "nz": "NZ",
}
"""``GoRules`` presets -> the ``RU`` value written for them (read back by :data:`RULES_OF_RU`;
the computer rules are Chinese rules)."""


class SgfCollection(list[Game]):
    """The games of one SGF file (a ``list``), with every problem met in ``errors``.

    ``encoding`` is the charset the file was read in (``utf-8``, ``cp932``...).
    """

    def __init__(self, games: Iterable[Game] = (), errors: Iterable[SgfError] = ()) -> None:
        super().__init__(games)
        self.errors: list[SgfError] = list(errors)
        self.encoding = "utf-8"


class _NeedPositions(Exception):
    """A problem was found in a tree read without positions: read the file again with them."""


# -- reading --------------------------------------------------------------------------------------


def read_bytes(data: bytes, *, strict: bool = False, replay: bool = True) -> SgfCollection:
    """Read an SGF collection from bytes (any charset; see :func:`sgf_properties.to_utf8`).

    ``replay=False`` skips checking the moves against the rules while reading: positions are
    then computed (and illegal moves found) only when :attr:`GameNode.state` is asked for.
    """
    utf8, codec, how = sgf_properties.to_utf8(data)
    try:
        collection = _read(utf8, strict=strict, replay=replay, careful=False)
    except _NeedPositions:
        collection = _read(utf8, strict=strict, replay=replay, careful=True)
    collection.encoding = codec
    if how == "guessed":
        collection.errors.append(SgfError(f"no CA property: charset guessed as {codec}", 1, 1))
    return collection


def read_string(text: str, *, strict: bool = False, replay: bool = True) -> SgfCollection:
    """Read an SGF collection from text."""
    return read_bytes(text.encode("utf-8"), strict=strict, replay=replay)


def read_file(
    path: str | os.PathLike[str], *, strict: bool = False, replay: bool = True
) -> SgfCollection:
    """Read the SGF file at ``path`` (all its games)."""
    return read_bytes(Path(path).read_bytes(), strict=strict, replay=replay)


def read_game(data: bytes | str, *, strict: bool = False) -> Game:
    """The first game of an SGF text; raises :class:`SgfError` when there is none."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    collection = read_bytes(raw, strict=strict)
    if not collection:
        raise collection.errors[0] if collection.errors else SgfError("no game in the SGF text")
    return collection[0]


def _read(data: bytes, *, strict: bool, replay: bool, careful: bool) -> SgfCollection:
    if careful:
        result = sgf_grammar.parse_with_positions(data)
        if strict and result.errors:
            raise result.errors[0]
    else:
        result = sgf_grammar.parse(data, strict=strict)
    collection = SgfCollection(errors=result.errors)
    for raw in result.trees:
        builder = _Builder(raw, result.positions, strict=strict, replay=replay)
        game = builder.build()
        if game is None:
            collection.errors.extend(builder.errors)
            continue
        game.errors = builder.errors
        collection.errors.extend(builder.errors)
        collection.append(game)
    if careful and not collection and not collection.errors:
        collection.errors.append(SgfError("no SGF game tree found", 1, 1))
    return collection


@functools.lru_cache(maxsize=32)
def _move_table(size: int) -> dict[bytes, Move]:
    letters = "abcdefghijklmnopqrstuvwxyz"[:size]
    table = {
        (col + row).encode(): Move.from_sgf(col + row, size) for row in letters for col in letters
    }
    table[b""] = Move.PASS
    if size <= 19:
        table[b"tt"] = Move.PASS
    return table


def _has_setup(properties: dict[str, list[str]]) -> bool:
    return "AB" in properties or "AW" in properties or "AE" in properties or "PL" in properties


@functools.lru_cache(maxsize=32)
def _code_table(size: int) -> list[Move | None]:
    """Moves by the grammar's move code (``column << 5 | row``; 31, 31 is an empty value)."""
    table: list[Move | None] = [None] * 1024
    for col in range(size):
        for row in range(size):
            table[col << 5 | row] = Move.play(Point(row, col))
    table[31 << 5 | 31] = Move.PASS
    if size <= 19:
        table[19 << 5 | 19] = Move.PASS
    return table


@functools.lru_cache(maxsize=32)
def _action_table(size: int) -> npt.NDArray[np.int64]:
    """Go actions (``row * size + col``, pass ``size * size``) by move code; -1: no move."""
    table = np.full(1024, -1, np.int64)
    for code, move in enumerate(_code_table(size)):
        if move is not None:
            point = move.point
            table[code] = size * size if point is None else point.row * size + point.col
    table.flags.writeable = False
    return table


@functools.lru_cache(maxsize=64)
def _go_rules(preset: str, komi: float) -> Any:
    from imago.games.go import GoRules

    return GoRules.preset(preset).with_komi(komi)


class _Builder:
    """Turns one raw tree into a :class:`Game`, collecting errors with their positions."""

    def __init__(
        self, raw: RawTree, positions: sgf_grammar.Positions, *, strict: bool, replay: bool
    ) -> None:
        self.raw = raw
        self.positions = positions
        self.strict = strict
        self.replay = replay
        self.errors: list[SgfError] = []
        self.size = 19
        self.moves: dict[bytes, Move] = {}
        self.codes: list[Move | None] = []
        self.initial: GameState | None = None

    def problem(self, message: str, index: int) -> None:
        offsets = self.raw.offsets
        if offsets is None:
            raise _NeedPositions
        error = self.positions.error(message, offsets[index])
        if self.strict:
            raise error
        self.errors.append(error)

    # -- the root ------------------------------------------------------------------------------
    def build(self) -> Game | None:
        raw = self.raw
        root = dict(raw.node(0))
        initial = self.initial_state(root)
        if initial is None:
            return None
        self.moves = _move_table(self.size)
        self.codes = _code_table(self.size)
        setup = self.take_setup(root, 0)
        game = Game(initial, setup=setup)
        self.initial = initial
        move_props = {ident: root.pop(ident) for ident in _MOVE_IDENTS if ident in root}
        for ident in _ROOT_STRUCTURE:
            root.pop(ident, None)
        game.properties = self.decode_all(root, 0)
        built: list[GameNode] = [game]
        if move_props:
            # A move in the root node: it goes to a child, the root keeps the game information.
            first = self.make_node(game, move_props, 0)
            built[0] = first
        # Every node a plain move the grammar already read: build them on first use of the
        # root's children, and with replay check the moves now in one numba call (each
        # position is then computed, and cached, when first asked for).
        if built[0] is game and self.can_defer(game.state):
            game._defer_children(self)
            return game
        self.build_nodes(built)
        return game

    def can_defer(self, start: GameState) -> bool:
        """Whether building the nodes can meet no problem: each one a move of the board with
        no setup (the fast scan's move codes say so), so that every error is known now; with
        replay, also a line of moves the rules accept from ``start``."""
        codes = self.raw.code_array
        if codes is None or self.strict:
            return False
        if self.replay:  # the kernel also refuses anything but plain moves of the board
            return self.line_is_legal(start)
        moves = codes[1:]
        if bool((moves < 0).any()):
            return False
        return bool((_action_table(self.size)[moves & 1023] >= 0).all())

    def line_is_legal(self, start: GameState) -> bool:
        """Whether the tree is one line of Go moves the rules accept from ``start`` (the
        root's position), checked by one numba call over the grammar's scan."""
        raw = self.raw
        codes, parents = raw.code_array, raw.parent_array
        if codes is None or parents is None or start.game != "go":
            return False
        if len(codes) == 1:
            return True
        cached = _GO_STARTS.get(id(start))
        if cached is None or cached[0] is not start:
            cached = _go_start(start)
        _, kernel, state, keys, suicide, mode = cached
        table = _action_table(self.size)
        return (
            int(kernel(state.copy(), start.size, keys, codes, parents, table, suicide, mode)) == -1
        )

    def expand(self, node: GameNode) -> None:
        """Build the deferred nodes below the root ``node`` (see :meth:`can_defer`)."""
        self.replay = False  # the moves were checked when the tree was read
        self.build_nodes([node])

    def initial_state(self, root: RawNode) -> GameState | None:
        """The position the game starts from, as the root's GM, SZ, KM, RU and HA say
        (remembered for roots that say the same, when reading them met no problem)."""
        key = tuple(root[ident][0] if root.get(ident) else None for ident in _START_IDENTS)
        known = _STARTS.get(key)
        if known is not None:
            self.size = known.size
            return known
        errors = len(self.errors)
        state = self.read_initial_state(root)
        if state is not None and len(self.errors) == errors:
            if len(_STARTS) >= 256:
                _STARTS.clear()
            _STARTS[key] = state
        return state

    def read_initial_state(self, root: RawNode) -> GameState | None:
        number = 1
        if "GM" in root:
            try:
                number = int(decode(root["GM"][0]).strip() or "1")
            except ValueError:
                self.problem(f"bad GM[{decode(root['GM'][0])}]: read as Go", 0)
        name = GAME_NUMBERS.get(number)
        if name is None:
            self.problem(f"GM[{number}] is not a game imago reads (1: Go, 2: Othello)", 0)
            return None
        size = DEFAULT_SIZES[name]
        if "SZ" in root:
            text = decode(root["SZ"][0]).strip()
            try:
                parts = [int(part) for part in text.split(":")]
            except ValueError:
                parts = []
            if not parts or len(set(parts)) != 1 or not 1 <= parts[0] <= MAX_SIZE:
                self.problem(f"board size SZ[{text}] is not a square of 1..{MAX_SIZE}", 0)
                return None
            size = parts[0]
        self.size = size
        options: dict[str, Any] = {"size": size}
        if name == "go":
            options.update(self.go_options(root))
        if "handicap" in options:
            try:
                return start_state(name, **options)
            except (ValueError, ImagoError) as error:
                self.problem(f"handicap ignored: {error}", 0)
                del options["handicap"]
        try:
            return start_state(name, **options)
        except (ValueError, ImagoError) as error:
            self.problem(f"cannot start this game: {error}", 0)
            return None

    def go_options(self, root: RawNode) -> dict[str, Any]:
        ru = decode(root["RU"][0]).strip().lower() if root.get("RU") else ""
        komi = 0.0
        if root.get("KM"):
            text = decode(root["KM"][0])
            try:
                komi = parse_real(text)
            except ValueError:
                self.problem(f"bad komi KM[{text}]: read as 0", 0)
        if komi * 2 != int(komi * 2):
            self.problem(f"komi {komi} is not a multiple of 0.5: rounded", 0)
            komi = round(komi * 2) / 2
        options: dict[str, Any] = {"rules": _go_rules(RULES_OF_RU.get(ru, "japanese"), komi)}
        handicap = self.handicap(root)
        if handicap >= 2 and not any(ident in root for ident in ("AB", "AW")):
            options["handicap"] = handicap
        return options

    def handicap(self, root: RawNode) -> int:
        if not root.get("HA"):
            return 0
        text = decode(root["HA"][0]).strip()
        try:
            return int(text)
        except ValueError:
            self.problem(f"bad handicap HA[{text}] ignored", 0)
            return 0

    # -- the nodes -----------------------------------------------------------------------------
    def build_nodes(self, built: list[GameNode]) -> None:
        raw = self.raw
        parents = raw.parents
        codes = raw.move_codes
        counts = raw.prop_counts
        table = self.codes
        replay = self.replay
        colors = (None, Color.BLACK, Color.WHITE)
        for index in range(1, len(parents)):
            parent = built[parents[index]]
            if codes is not None and counts is not None:
                code = codes[index]
                if code >= 0:
                    move = table[code & 1023]
                    if move is not None:
                        properties = None
                        if counts[index] > 1:
                            properties = raw.text_node(index, "B" if code >> 10 == 1 else "W")
                            if properties is None or _has_setup(properties):
                                built.append(self.make_node(parent, raw.node(index), index))
                                continue
                        color = colors[code >> 10]
                        node = GameNode(parent, move, color, None, properties)
                        parent.children.append(node)
                        built.append(node)
                        if replay:
                            before = parent._state
                            try:
                                node._state = before.play(move, color)  # type: ignore[union-attr]
                            except (IllegalMoveError, InvalidMoveError, AttributeError):
                                self.play(node, parent, index)  # the careful way, with errors
                        continue
            built.append(self.make_node(parent, raw.node(index), index))

    def make_node(self, parent: GameNode, raw_props: RawNode, index: int) -> GameNode:
        props = dict(raw_props)
        move, color = self.take_move(props, index)
        setup = self.take_setup(props, index)
        node = GameNode(parent, move, color, setup=setup, properties=self.decode_all(props, index))
        parent.children.append(node)
        if self.replay:
            self.play(node, parent, index)
        return node

    def play(self, node: GameNode, parent: GameNode, index: int) -> None:
        before = parent._state
        if before is None:  # the parent could not be computed: nothing more to check here
            return
        try:
            node._state = node._compute(before, self.initial)
        except (IllegalMoveError, InvalidMoveError) as error:
            self.problem(f"{node.describe()}: {error}", index)
            node.illegal = error if isinstance(error, IllegalMoveError) else None
            node._state = _forced(before, node)

    def take_move(self, props: RawNode, index: int) -> tuple[Move | None, Color | None]:
        found: list[tuple[Color, bytes]] = []
        for ident, color in (("B", Color.BLACK), ("W", Color.WHITE)):
            values = props.pop(ident, None)
            if values is not None:
                found.extend((color, value) for value in values)
        if not found:
            return None, None
        if len(found) > 1:
            self.problem("several moves in one node: only the first is kept", index)
        color, value = found[0]
        move = self.moves.get(value.strip())
        if move is None:
            text = decode(value)
            self.problem(
                f"bad move {color.letter}[{text}] on a {self.size}x{self.size} board", index
            )
            return None, None
        return move, color

    def take_setup(self, props: RawNode, index: int) -> Setup | None:
        if not ("AB" in props or "AW" in props or "AE" in props or "PL" in props):
            return None
        lists: dict[str, tuple[Any, ...]] = {}
        for ident in ("AB", "AW", "AE"):
            values = props.pop(ident, None)
            if values is None:
                continue
            try:
                lists[ident] = tuple(parse_point_list([decode(v) for v in values], self.size))
            except ValueError as error:
                self.problem(f"bad point list in {ident}: {error}", index)
                lists[ident] = tuple(self.valid_points(values))
        to_play = None
        if "PL" in props:
            text = decode(props.pop("PL")[0])
            try:
                to_play = parse_color(text)
            except ValueError:
                self.problem(f"bad PL[{text}] ignored", index)
        if to_play is None and index == 0 and "AB" in lists and not self.is_othello(props):
            handicap = props.get("HA")
            if handicap and decode(handicap[0]).strip() not in ("", "0", "1"):
                to_play = Color.WHITE
        setup = Setup(lists.get("AB", ()), lists.get("AW", ()), lists.get("AE", ()), to_play)
        return setup if setup else None

    def is_othello(self, props: RawNode) -> bool:
        return "GM" in props and decode(props["GM"][0]).strip() == "2"

    def valid_points(self, values: list[bytes]) -> list[Any]:
        points: list[Any] = []
        for value in values:
            try:
                points.extend(parse_point_list([decode(value)], self.size))
            except ValueError:
                continue
        return points

    def decode_all(self, props: RawNode, index: int) -> dict[str, list[str]]:
        decoded: dict[str, list[str]] = {}
        for ident, values in props.items():
            if len(values) == 1:
                decoded[ident] = [values[0].decode("utf-8", "replace")]
            else:
                decoded[ident] = [value.decode("utf-8", "replace") for value in values]
        return decoded


_START_IDENTS = ("GM", "SZ", "KM", "RU", "HA", "AB", "AW")
"""The root properties that choose the starting position (AB / AW: only their presence)."""

_STARTS: dict[tuple[bytes | None, ...], GameState] = {}
"""Starting positions by the raw values of :data:`_START_IDENTS` (states are immutable)."""

_GO_STARTS: dict[int, tuple[Any, ...]] = {}
"""Kernel arguments by starting position (records mostly start from one shared position)."""


def _go_start(start: GameState) -> tuple[Any, ...]:
    from imago.games.go import fastpath
    from imago.records._go_kernels import line_refused

    rules = start.rules  # type: ignore[attr-defined]
    entry = (
        start,  # kept, so that its id is not reused while the entry lives
        line_refused,
        start.arrays(),  # type: ignore[attr-defined]
        start.superko_keys(),  # type: ignore[attr-defined]
        bool(rules.suicide_allowed),
        fastpath.ko_mode(rules),
    )
    if len(_GO_STARTS) >= 64:
        _GO_STARTS.clear()
    _GO_STARTS[id(start)] = entry
    return entry


def _forced(before: GameState, node: GameNode) -> GameState:
    """A position for an illegal move kept in a lenient read: its stone placed, no captures."""
    state = before
    if node.setup:
        with contextlib.suppress(ValueError, ImagoError):
            state = node.setup.apply(state)
    color = node.color if node.color is not None else state.to_play
    move = node.move
    black = (
        [move.point] if move is not None and move.point is not None and color is Color.BLACK else []
    )
    white = (
        [move.point] if move is not None and move.point is not None and color is Color.WHITE else []
    )
    try:
        return state.with_setup(black, white, to_play=color.opponent)
    except (ValueError, ImagoError):
        return state


# -- writing --------------------------------------------------------------------------------------


def write_string(games: Game | Iterable[Game]) -> str:
    """The SGF text (FF[4], UTF-8) of one game or a collection."""
    if isinstance(games, Game):
        games = [games]
    out: list[str] = []
    for game in games:
        _write_game(game, out)
    return "".join(out)


def write_bytes(games: Game | Iterable[Game]) -> bytes:
    """:func:`write_string` encoded as UTF-8 (which the text declares with ``CA[UTF-8]``)."""
    return write_string(games).encode("utf-8")


def write_file(path: str | os.PathLike[str], games: Game | Iterable[Game]) -> None:
    """Write games to ``path`` atomically (a temporary file, then a rename)."""
    atomic_write(path, write_bytes(games))


_CLOSE = None


def _write_game(game: Game, out: list[str]) -> None:
    size = game.size
    number = GAME_OF_NAME.get(game.game_name, 1)
    out.append(f"(;FF[4]CA[UTF-8]GM[{number}]SZ[{size}]")
    _write_properties(game, size, out, skip=_ROOT_STRUCTURE)
    stack: list[GameNode | None] = []
    node: GameNode = game
    while True:
        children = node.children
        if len(children) == 1:
            node = children[0]
            out.append("\n;")
            _write_properties(node, size, out)
            continue
        for child in reversed(children):
            stack.append(_CLOSE)
            stack.append(child)
        while stack and stack[-1] is _CLOSE:
            stack.pop()
            out.append(")")
        if not stack:
            break
        item = stack.pop()
        assert item is not None
        node = item
        out.append("\n(;")
        _write_properties(node, size, out)
    out.append(")\n")


def _write_properties(
    node: GameNode, size: int, out: list[str], skip: tuple[str, ...] = ()
) -> None:
    move = node.move
    if move is not None and node.color is not None and not move.is_resign:
        out.append(f"{node.color.letter}[{move.to_sgf(size)}]")
    setup = node.setup
    if setup:
        for ident, points in (("AB", setup.black), ("AW", setup.white), ("AE", setup.empty)):
            if points:
                out.append(ident + "".join(f"[{format_point(p)}]" for p in points))
        if setup.to_play is not None:
            out.append(f"PL[{setup.to_play.letter}]")
    for ident, values in node.properties.items():
        if ident in skip or ident in _MOVE_IDENTS or ident in _SETUP_IDENTS or not values:
            continue
        out.append(ident)
        for value in values:
            if ("]" in value or value.endswith("\\")) and not is_valid_raw(value):
                value = sgf_properties.escape_text(value)
            out.append(f"[{value}]")


__all__ = [
    "GAME_NUMBERS",
    "RULES_OF_RU",
    "RU_OF_RULES",
    "SgfCollection",
    "SgfError",
    "read_bytes",
    "read_file",
    "read_game",
    "read_string",
    "write_bytes",
    "write_file",
    "write_string",
]
