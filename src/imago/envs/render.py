"""Drawing a position for environments' ``render()``: text, and an RGB image (pure numpy).

``ansi`` is the terminal board of :mod:`imago.ui.board` as plain text with a status line;
``rgb`` draws a Go board (wood, grid lines, star points) or an Othello board (green squares)
with black and white stones, the last move marked by a red dot. Both are pure functions of a
position.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from imago.core.color import Color
from imago.core.game import GameState
from imago.core.move import Point
from imago.ui.board import render_board, star_points

Image = npt.NDArray[np.uint8]

WOOD = (220, 179, 92)
FELT = (0, 122, 61)
LINE = (40, 30, 20)
BLACK_STONE = (20, 20, 20)
WHITE_STONE = (240, 240, 240)
MARK = (220, 30, 30)


def ansi(state: GameState) -> str:
    """The board with coordinates (the last move bracketed) and whose turn it is, or the
    result once the game is over."""
    board = render_board(state).plain.rstrip("\n")
    outcome = state.outcome() if state.is_over() else None
    status = f"{state.to_play.name.capitalize()} to play" if outcome is None else f"{outcome}"
    return f"{board}\n{status}, move {state.move_number}\n"


def rgb(state: GameState, *, cell: int = 32) -> Image:
    """An ``(H, W, 3)`` image of the position, ``cell`` pixels per point."""
    return draw(state.game, state.board(), _last_point(state), cell=cell)


def draw(
    game: str, board: npt.NDArray[np.integer], last: Point | None = None, *, cell: int = 32
) -> Image:
    """An ``(H, W, 3)`` image of ``board`` (``(size, size)``: 0 empty, 1 black, 2 white) for
    ``game`` (``"go"`` or ``"othello"``), the point ``last`` marked."""
    if cell < 8:
        raise ValueError("cells of fewer than 8 pixels cannot show a stone")
    size = int(board.shape[0])
    margin = cell // 2
    side = size * cell + 2 * margin
    othello = game == "othello"
    image = np.empty((side, side, 3), dtype=np.uint8)
    image[:] = FELT if othello else WOOD
    if othello:
        _othello_grid(image, size, cell, margin)
    else:
        _go_grid(image, size, cell, margin)
    disc = _disc(cell, 0.45)
    rim = disc & ~_disc(cell, 0.40)
    for (r, c), value in np.ndenumerate(board):
        if value == 0:
            continue
        block = image[
            margin + r * cell : margin + (r + 1) * cell, margin + c * cell : margin + (c + 1) * cell
        ]
        block[disc] = BLACK_STONE if value == int(Color.BLACK) else WHITE_STONE
        if value == int(Color.WHITE):
            block[rim] = LINE
    if last is not None:
        r, c = last.row, last.col
        block = image[
            margin + r * cell : margin + (r + 1) * cell, margin + c * cell : margin + (c + 1) * cell
        ]
        block[_disc(cell, 0.12)] = MARK
    return image


def _last_point(state: GameState) -> Point | None:
    move = state.last_move
    return None if move is None else move.point


def _disc(cell: int, radius: float) -> npt.NDArray[np.bool_]:
    """The pixels of a cell within ``radius * cell`` of its centre."""
    centre = (cell - 1) / 2
    y, x = np.mgrid[0:cell, 0:cell]
    return np.asarray((y - centre) ** 2 + (x - centre) ** 2 <= (radius * cell) ** 2)


def _go_grid(image: Image, size: int, cell: int, margin: int) -> None:
    """Lines through the centres of the points, and the star points."""
    first = margin + cell // 2
    last = first + (size - 1) * cell
    for k in range(size):
        at = first + k * cell
        image[at, first : last + 1] = LINE
        image[first : last + 1, at] = LINE
    dot = max(2, cell // 10)
    for point in star_points(size):
        y = first + point.row * cell
        x = first + point.col * cell
        image[y - dot : y + dot + 1, x - dot : x + dot + 1] = LINE


def _othello_grid(image: Image, size: int, cell: int, margin: int) -> None:
    """Lines between the squares."""
    for k in range(size + 1):
        at = margin + k * cell
        image[min(at, image.shape[0] - 1), margin : margin + size * cell + 1] = LINE
        image[margin : margin + size * cell + 1, min(at, image.shape[1] - 1)] = LINE
