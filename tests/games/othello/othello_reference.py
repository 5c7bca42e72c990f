"""A deliberately plain Othello move generator for the tests: a grid of lists and a walk along
each of the 8 directions, nothing shared with imago's bitboard kernels."""

from __future__ import annotations

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def start(size: int) -> list[list[int]]:
    """The start grid: 0 empty, 1 black, 2 white."""
    grid = [[0] * size for _ in range(size)]
    h = size // 2
    grid[h - 1][h - 1] = grid[h][h] = 2
    grid[h - 1][h] = grid[h][h - 1] = 1
    return grid


def flips(grid: list[list[int]], color: int, row: int, col: int) -> list[tuple[int, int]]:
    """The discs ``color`` flips by playing on the empty ``(row, col)``."""
    size = len(grid)
    other = 3 - color
    flipped: list[tuple[int, int]] = []
    for dr, dc in DIRECTIONS:
        run = []
        r, c = row + dr, col + dc
        while 0 <= r < size and 0 <= c < size and grid[r][c] == other:
            run.append((r, c))
            r, c = r + dr, c + dc
        if run and 0 <= r < size and 0 <= c < size and grid[r][c] == color:
            flipped.extend(run)
    return flipped


def legal(grid: list[list[int]], color: int) -> list[tuple[int, int]]:
    """The legal points of ``color`` in row-major order."""
    size = len(grid)
    return [
        (r, c)
        for r in range(size)
        for c in range(size)
        if grid[r][c] == 0 and flips(grid, color, r, c)
    ]


def play(grid: list[list[int]], color: int, row: int, col: int) -> list[list[int]]:
    """A new grid after ``color`` plays the legal ``(row, col)``."""
    new = [list(line) for line in grid]
    for r, c in flips(grid, color, row, col):
        new[r][c] = color
    new[row][col] = color
    return new


def perft(grid: list[list[int]], color: int, depth: int, passed: bool = False) -> int:
    """Leaves ``depth`` plies deep; a pass is a ply and a finished game is a leaf."""
    if depth == 0:
        return 1
    moves = legal(grid, color)
    if not moves:
        if passed:
            return 1
        return perft(grid, 3 - color, depth - 1, True)
    return sum(perft(play(grid, color, r, c), 3 - color, depth - 1) for r, c in moves)
