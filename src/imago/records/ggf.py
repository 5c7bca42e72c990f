"""GGF, the game format of the Othello internet servers (GGS, and NBoard's ``set game``).

A game is ``(;`` properties ``;)``, each property ``ID[value]`` (no escapes: a value ends at the
first ``]``)::

    (;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[Saio1200]PW[Saio3000]RB[2197.01]
    RW[2199.72]TI[05:00//02:00]TY[8]RE[+0.000]BO[8 -------- ... ---O*--- ... *]B[d3//0.01]
    W[c5/-2.50/0.01]...B[pass]W[a1//0.01];)

``BO`` is the start: the board size, the squares row by row (``-`` empty, ``*`` black, ``O``
white) and the side to move (``*`` or ``O``); ``B`` / ``W`` are moves (``F5``, ``pass`` or
``PA``) with an optional evaluation and time, ``/eval/time``; ``RE`` is the result in discs
for Black (``+12.000``, ``-4.00``), with ``:r`` (resigned), ``:t`` (time) or ``:s`` (score
agreed) after it, ``?`` when unknown. (M. Buro, *Generic Game Format*, GGS documentation.)

Read into :class:`~imago.records.tree.Game` trees with the game information as SGF
identifiers: ``PB``, ``PW``, ``DT``, ``PC``, ``RE`` (``B+12``, ``W+4``, ``0``, ``B+R``,
``W+T``), ratings ``RB`` / ``RW`` as ``BR`` / ``WR``; GGF's own fields (``TY``, ``TI``, ``TB``,
``TW``, ``KM``, ``KB``, ``KW``, ``ID``...) are kept under their names, and written back. A
move's evaluation and time are kept in its node as ``V`` and ``TU``. A ``BO`` other than the
usual start becomes the game's setup. 8x8, 6x6 and 4x4 boards are read; other sizes, and other
games than Othello, are problems.

Reading is lenient by default, as for SGF: a damaged record gives what can be recovered (a
game stops before an illegal move; an unknown property is kept) and the problems, each a
:class:`GgfError` with line and column, are listed in the collection's ``errors`` and each
game's ``errors``. With ``strict=True`` the first problem raises :class:`GgfError`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from imago.core.color import Color
from imago.core.errors import ImagoError, InvalidMoveError
from imago.core.files import atomic_write
from imago.core.move import Move, Point
from imago.records.tree import Game, GameNode, RecordError, Setup, mainline_game, start_state

SIZES = (4, 6, 8)
_DISCS = {"-": None, ".": None, "*": Color.BLACK, "X": Color.BLACK, "x": Color.BLACK}
_DISCS.update({"O": Color.WHITE, "o": Color.WHITE})
_RENAMED = {"RB": "BR", "RW": "WR"}
"""GGF identifiers stored under their SGF names."""
_WRITTEN_FIRST = ("GM", "PC", "DT", "PB", "PW", "RB", "RW", "TI", "TB", "TW", "TY")
_STRUCTURE = ("GM", "BO", "RE", "B", "W")
_PROPERTY = re.compile(r"\s*([A-Za-z]+)\s*\[([^\]]*)\]")
_NEXT_PROPERTY = re.compile(r"(?<![A-Za-z])[A-Za-z]+\s*\[")
_FLAGS = {"r": "R", "t": "T"}


class GgfError(ImagoError, ValueError):
    """A problem in a GGF text, with its 1-based line and column."""

    def __init__(self, message: str, line: int, column: int) -> None:
        self.message = message
        self.line = line
        self.column = column
        super().__init__(f"{line}:{column}: {message}")


class GgfCollection(list[Game]):
    """The games of a GGF text, and the problems met reading it (``errors``)."""

    def __init__(self, games: Iterable[Game] = (), errors: Iterable[GgfError] = ()) -> None:
        super().__init__(games)
        self.errors: list[GgfError] = list(errors)


@dataclass
class _Reader:
    text: str
    strict: bool
    errors: list[GgfError]

    def where(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset) + 1
        return line, offset - (self.text.rfind("\n", 0, offset) + 1) + 1

    def problem(self, message: str, offset: int, game: Game | None = None) -> None:
        error = GgfError(message, *self.where(offset))
        if self.strict:
            raise error
        self.errors.append(error)
        if game is not None:
            game.errors.append(error)

    # -- the text ------------------------------------------------------------------------------
    def games(self) -> GgfCollection:
        games: list[Game] = []
        if "(;" not in self.text:
            self.problem("no game: a GGF game starts with '(;'", _skip_space(self.text))
            return GgfCollection(games, self.errors)
        position = 0
        while True:
            start = self.text.find("(;", position)
            if start < 0:
                break
            if self.text[position:start].strip():
                self.problem("text outside a game", position + _skip_space(self.text[position:]))
            end = self.text.find(";)", start + 2)
            if end < 0:
                end = len(self.text)
                self.problem("a game not closed by ';)'", start)
            game = self.game(start + 2, end)
            if game is not None:
                games.append(game)
            position = end + 2
        rest = self.text[position:] if position < len(self.text) else ""
        if rest.strip():
            self.problem("text outside a game", position + _skip_space(rest))
        return GgfCollection(games, self.errors)

    def properties(self, start: int, end: int) -> list[tuple[str, str, int]]:
        found = []
        position = start
        while position < end:
            if not self.text[position:end].strip():
                break
            match = _PROPERTY.match(self.text, position, end)
            if match is None:
                offset = position + _skip_space(self.text[position:end])
                self.problem(f"not a property: {self.text[offset : offset + 12]!r}", offset)
                following = _NEXT_PROPERTY.search(self.text, offset + 1, end)
                if following is None:
                    break
                position = following.start()
                continue
            found.append((match.group(1).upper(), match.group(2), match.start(1)))
            position = match.end()
        return found

    # -- a game --------------------------------------------------------------------------------
    def game(self, start: int, end: int) -> Game | None:
        properties = self.properties(start, end)
        errors_before = len(self.errors)
        info: dict[str, list[str]] = {}
        board = None
        for ident, value, offset in properties:
            if ident == "GM" and value.strip().lower() != "othello":
                self.problem(f"GM[{value}]: imago reads Othello games only", offset)
                return None
            if ident == "BO":
                board = (value, offset)
            elif ident not in ("B", "W", "GM"):
                info.setdefault(_RENAMED.get(ident, ident), []).append(value)
        setup, size = self.board(board)
        game = Game(start_state("othello", size=size), setup=setup)
        game.errors.extend(self.errors[errors_before:])
        result = info.pop("RE", None)
        if result is not None:
            converted = result_from_ggf(result[0], size)
            if converted is None:
                if result[0].strip() != "?":
                    self.problem(f"RE[{result[0]}]: not a result", start, game)
            else:
                info["RE"] = [converted]
        game.properties = info
        self.moves(game, [(i, v, o) for i, v, o in properties if i in ("B", "W")])
        return game

    def board(self, board: tuple[str, int] | None) -> tuple[Setup | None, int]:
        """The setup a ``BO`` value describes (``None``: the usual start) and the size."""
        if board is None:
            return None, 8
        value, offset = board
        words = value.split()
        try:
            size = int(words[0]) if words else 0
        except ValueError:
            size = 0
        if size not in SIZES:
            self.problem(f"BO[{value[:12]}...]: the board size must be 4, 6 or 8", offset)
            return None, 8
        cells = "".join(words[1:])
        side = cells[-1:] if len(cells) == size * size + 1 else ""
        cells = cells[: size * size]
        bad = sorted({c for c in cells if c not in _DISCS})
        if len(cells) != size * size or side not in ("*", "O", "X", "x", "o") or bad:
            self.problem(
                f"BO: {size * size} squares of '-', '*' or 'O' and the side to move expected",
                offset,
            )
            return None, size
        discs: dict[Color, list[Point]] = {Color.BLACK: [], Color.WHITE: []}
        empty = []
        for index, char in enumerate(cells):
            point = Point(index // size, index % size)
            color = _DISCS[char]
            if color is None:
                empty.append(point)
            else:
                discs[color].append(point)
        to_play = Color.BLACK if side in ("*", "X", "x") else Color.WHITE
        setup = Setup(tuple(discs[Color.BLACK]), tuple(discs[Color.WHITE]), tuple(empty), to_play)
        start = start_state("othello", size=size)
        usual = {Color(v): p for v, p in ((1, discs[Color.BLACK]), (2, discs[Color.WHITE]))}
        if to_play is Color.BLACK and all(
            set(usual[color]) == set(_points_of(start, color)) for color in usual
        ):
            return None, size
        return setup, size

    def moves(self, game: Game, moves: list[tuple[str, str, int]]) -> None:
        plays: list[tuple[Color, Move]] = []
        extras: list[dict[str, list[str]]] = []
        offsets: list[int] = []
        for ident, value, offset in moves:
            parts = value.split("/")
            text = parts[0].strip()
            try:
                if text.upper() in ("PA", "PASS", "PS"):
                    move = Move.PASS
                else:
                    move = Move.from_algebraic(text.lower(), game.size)
            except (InvalidMoveError, ValueError):
                self.problem(f"{ident}[{value}]: not a move", offset, game)
                break
            plays.append((Color.BLACK if ident == "B" else Color.WHITE, move))
            extra = {}
            if len(parts) > 1 and parts[1].strip():
                extra["V"] = [parts[1].strip()]
            if len(parts) > 2 and parts[2].strip():
                extra["TU"] = [parts[2].strip()]
            extras.append(extra)
            offsets.append(offset)
        try:
            line = mainline_game(game.state, plays)
        except RecordError as error:
            self.problem(
                f"{'BW'[plays[error.index][0] is Color.WHITE]}[{plays[error.index][1]}]: "
                f"illegal: {error.error}",
                offsets[error.index],
                game,
            )
            line = mainline_game(game.state, plays[: error.index])
        node: GameNode = game
        source: GameNode = line
        index = 0
        while source.children:
            source = source.children[0]
            child = GameNode(node, source.move, source.color, properties=extras[index])
            node.children.append(child)
            node = child
            index += 1


def _points_of(state: object, color: Color) -> list[Point]:
    board = state.board()  # type: ignore[attr-defined]
    return [Point(int(r), int(c)) for r, c in zip(*(board == int(color)).nonzero(), strict=True)]


def _skip_space(text: str) -> int:
    return len(text) - len(text.lstrip())


# -- results -----------------------------------------------------------------------------------


def result_from_ggf(text: str, size: int = 8) -> str | None:
    """The SGF result (``B+12``, ``W+4.5``, ``0``, ``B+R``, ``W+T``) of a GGF ``RE`` value
    (Black's disc margin, with a ``:r`` / ``:t`` / ``:s`` flag); ``None`` for ``?`` or text."""
    value, _, flag = text.strip().partition(":")
    try:
        margin = float(value)
    except ValueError:
        return None
    if flag.strip().lower() in _FLAGS and margin != 0:
        return f"{'B' if margin > 0 else 'W'}+{_FLAGS[flag.strip().lower()]}"
    if margin == 0:
        return "0"
    number = f"{abs(margin):g}"
    return f"{'B' if margin > 0 else 'W'}+{number}"


def result_to_ggf(text: str | None, size: int = 8) -> str:
    """The GGF ``RE`` of an SGF result (a resignation or a loss on time counts all the
    squares for the winner, as GGS records it); ``?`` when there is none."""
    if not text:
        return "?"
    cleaned = text.strip().upper()
    if cleaned in ("0", "DRAW"):
        return "+0.000"
    if len(cleaned) < 3 or cleaned[0] not in "BW" or cleaned[1] != "+":
        return "?"
    sign = "+" if cleaned[0] == "B" else "-"
    rest = cleaned[2:]
    for flag, letter in _FLAGS.items():
        if rest in (letter, {"R": "RESIGN", "T": "TIME"}[letter]):
            return f"{sign}{size * size:.3f}:{flag}"
    try:
        return f"{sign}{float(rest):.3f}"
    except ValueError:
        return "?"


# -- reading and writing -----------------------------------------------------------------------


def read_string(text: str, *, strict: bool = False) -> GgfCollection:
    """The games of a GGF text (lenient unless ``strict``: see the module docstring)."""
    return _Reader(text, strict, []).games()


def read_bytes(data: bytes, *, strict: bool = False) -> GgfCollection:
    """:func:`read_string` of UTF-8 (or Latin-1) bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return read_string(text, strict=strict)


def read_file(path: str | os.PathLike[str], *, strict: bool = False) -> GgfCollection:
    return read_bytes(Path(path).read_bytes(), strict=strict)


def read_game(text: str, *, strict: bool = False) -> Game:
    """The one game of a GGF text (NBoard's ``set game``); raises :class:`GgfError` when there
    is none (and, with ``strict``, at any problem)."""
    games = read_string(text, strict=strict)
    if not games:
        error = games.errors[0] if games.errors else GgfError("no game", 1, 1)
        raise error
    return games[0]


def write_string(games: Game | Iterable[Game]) -> str:
    """GGF text of Othello games, one game a line."""
    items = [games] if isinstance(games, Game) else list(games)
    return "".join(game_to_ggf(game) + "\n" for game in items)


def write_file(path: str | os.PathLike[str], games: Game | Iterable[Game]) -> None:
    """Write games as GGF, atomically."""
    atomic_write(path, write_string(games).encode("utf-8"))


def game_to_ggf(game: Game) -> str:
    """One game as a GGF line (its main line; variations are not part of GGF)."""
    if game.game_name != "othello":
        raise ValueError(f"GGF holds Othello games, not {game.game_name}")
    size = game.size
    info = {_sgf_to_ggf(ident): values for ident, values in game.properties.items()}
    info.pop("GM", None)
    info.pop("SZ", None)
    info.setdefault("TY", [str(size)])
    result = result_to_ggf(game.get_text("RE"), size)
    info.pop("RE", None)
    out = ["(;GM[Othello]"]
    for ident in _WRITTEN_FIRST:
        for value in info.pop(ident, []):
            out.append(f"{ident}[{_clean(value)}]")
    for ident, values in info.items():
        if ident in _STRUCTURE or not ident.isalpha():
            continue
        out.extend(f"{ident}[{_clean(value)}]" for value in values)
    out.append(f"RE[{result}]")
    out.append(f"BO[{board_text(game.state)}]")
    for node in game.mainline():
        if node is game or node.move is None or node.color is None:
            continue
        move = "pass" if node.move.is_pass else node.move.to_algebraic().upper()
        value = node.properties.get("V", [""])[0]
        used = node.properties.get("TU", [""])[0]
        suffix = f"/{value}/{used}" if used else f"/{value}" if value else ""
        out.append(f"{'B' if node.color is Color.BLACK else 'W'}[{move}{suffix}]")
    return "".join(out) + ";)"


def board_text(state: object) -> str:
    """The ``BO`` value of an Othello position: size, rows, side to move."""
    size: int = state.size  # type: ignore[attr-defined]
    cells = state.board_string().replace("X", "*")  # type: ignore[attr-defined]
    rows = " ".join(cells[r * size : (r + 1) * size] for r in range(size))
    side = "*" if state.to_play is Color.BLACK else "O"  # type: ignore[attr-defined]
    return f"{size} {rows} {side}"


def _sgf_to_ggf(ident: str) -> str:
    for ggf_ident, sgf_ident in _RENAMED.items():
        if ident == sgf_ident:
            return ggf_ident
    return ident


def _clean(value: str) -> str:
    """A value GGF can hold: no ``]`` (it has no escapes) and on one line."""
    return " ".join(value.replace("]", ")").split())
