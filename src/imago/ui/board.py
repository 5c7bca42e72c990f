"""Drawing a board for the terminal, as pure functions returning rich ``Text``.

Go is drawn with GTP coordinates (columns without ``I``, row 1 at the bottom), star points
``+``; Othello with its own (columns ``a``.., row 1 at the top) and the legal moves of the side
to move marked ``*``. The last move is bracketed: ``(X)``. Stones are ``X`` (black) and ``O``
(white) so the board reads the same without colour.
"""

from __future__ import annotations

import numpy as np
from rich.text import Text

from imago.core.color import Color
from imago.core.game import GameState
from imago.core.move import GTP_COLUMNS, Point

STONES = {
    int(Color.BLACK): ("X", "bold black on dark_goldenrod"),
    int(Color.WHITE): ("O", "bold bright_white on dark_goldenrod"),
}
EMPTY_STYLE = "black on dark_goldenrod"
OTHELLO_STONES = {
    int(Color.BLACK): ("X", "bold black on green4"),
    int(Color.WHITE): ("O", "bold bright_white on green4"),
}
OTHELLO_EMPTY = "black on green4"
LEGAL_STYLE = "bold yellow on green4"


def star_points(size: int) -> set[Point]:
    """The star points (hoshi) of a Go board."""
    if size < 7:
        return set()
    edge = 3 if size >= 13 else 2
    lines = [edge, size - 1 - edge]
    if size % 2 == 1 and size >= 9:
        lines.append(size // 2)
    return {Point(r, c) for r in lines for c in lines}


def column_labels(game: str, size: int) -> list[str]:
    """The column letters of the board."""
    if game == "othello":
        return [chr(ord("a") + c) for c in range(size)]
    return list(GTP_COLUMNS[:size])


def row_label(game: str, size: int, row: int) -> str:
    """The number of a row (``row`` 0 is the top row as drawn)."""
    return str(row + 1) if game == "othello" else str(size - row)


def render_board(state: GameState, *, show_legal: bool | None = None) -> Text:
    """The board with coordinates on all sides, the last move bracketed and (Othello, by
    default) the legal moves of the side to move marked."""
    size, game = state.size, state.game
    othello = game == "othello"
    board = state.board()
    last = state.last_move.point if state.last_move is not None else None
    legal: set[Point] = set()
    if show_legal if show_legal is not None else othello:
        legal = {m.point for m in state.legal_moves() if m.point is not None}
    stars = star_points(size) if not othello else set()
    width = max(len(row_label(game, size, r)) for r in range(size))
    header = Text(" " * (width + 1) + " ".join(column_labels(game, size)) + "\n", style="bold")
    text = Text()
    text.append_text(header)
    for r in range(size):
        text.append(row_label(game, size, r).rjust(width), style="bold")
        for c in range(size):
            point = Point(r, c)
            sep = "(" if point == last else ")" if Point(r, c - 1) == last else " "
            text.append(sep, style=_empty_style(othello))
            char, style = _cell(int(board[r, c]), point, othello, legal, stars)
            text.append(char, style=style)
        tail = ")" if last == Point(r, size - 1) else " "
        text.append(tail, style=_empty_style(othello))
        text.append(row_label(game, size, r) + "\n", style="bold")
    text.append_text(header)
    text.rstrip()
    return text


def _empty_style(othello: bool) -> str:
    return OTHELLO_EMPTY if othello else EMPTY_STYLE


def _cell(
    value: int, point: Point, othello: bool, legal: set[Point], stars: set[Point]
) -> tuple[str, str]:
    if value:
        return (OTHELLO_STONES if othello else STONES)[value]
    if point in legal:
        return "*", LEGAL_STYLE
    if point in stars:
        return "+", EMPTY_STYLE
    return ".", _empty_style(othello)


def disc_counts(state: GameState) -> tuple[int, int]:
    """Black's and White's stones or discs on the board."""
    board = state.board()
    return int(np.sum(board == Color.BLACK)), int(np.sum(board == Color.WHITE))
