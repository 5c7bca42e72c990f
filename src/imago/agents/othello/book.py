"""An Othello opening book learnt from game records (WTHOR): which moves were played in each
early position, how often, and how the games ended for the player who played them.

Positions are stored once per symmetry class (the smallest of the 8 images of the mover's and
the opponent's discs), so a line and its mirror images share their statistics, as in the books
of Edax and Logistello. A book answers for a position with the moves seen there, best first:
the highest mean final disc difference (from the mover's point of view, the empty squares given
to the winner as WTHOR counts them) among the moves played in at least ``min_games`` games::

    book = OpeningBook.build(read_games("WTH_2020.wtb"), plies=20)
    book.save("book.npz")
    book = OpeningBook.load("book.npz")
    book.choose(state)                      # a Move, or None out of the book

The ``alphabeta`` agent plays from a book with ``alphabeta:book=FILE`` (``book=wthor``: the
book shipped in ``data/``, built from every WTHOR game of 1977-2025; see its README).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from imago.core.files import atomic_path
from imago.core.move import Move
from imago.games.othello import bitboard as bb
from imago.games.symmetry import gather_table, transform_action

SIZE = 8
FORMAT = "imago-othello-book"
VERSION = 1
MAIN_SHARE = 0.1
"""A main move was played in at least this share of the games of the most played move."""
SHIPPED = "wthor"
"""The name of the book shipped with imago (``data/othello_book.npz``)."""
_SHIPPED_FILE = "othello_book.npz"


class BookError(ValueError):
    """A book file that cannot be read (missing, foreign, damaged)."""


@dataclass(frozen=True, slots=True)
class BookMove:
    """One move of a book position: how many games played it and their mean final disc
    difference for the player who played it."""

    move: Move
    games: int
    score: float


def canonical(player: int, opponent: int) -> tuple[int, int, list[int]]:
    """``(player', opponent', syms)``: the smallest image of the position under the 8 board
    symmetries, and every symmetry that makes it (more than one when the position is itself
    symmetric, as the start is)."""
    best: tuple[int, int] | None = None
    syms: list[int] = []
    for sym in range(8):
        image = (
            int(bb.symmetry(np.uint64(player), sym, SIZE)),
            int(bb.symmetry(np.uint64(opponent), sym, SIZE)),
        )
        if best is None or image < best:
            best, syms = image, [sym]
        elif image == best:
            syms.append(sym)
    assert best is not None
    return best[0], best[1], syms


def _canonical_square(square: int, syms: list[int]) -> int:
    """A move's square in the canonical position: the smallest of its images under the
    symmetries that make the canonical position (so that equivalent moves of a symmetric
    position, such as the four first moves, are one book move)."""
    return min(transform_action(square, sym, SIZE) for sym in syms)


class OpeningBook:
    """Move statistics per early position (see the module docstring)."""

    def __init__(self, table: dict[tuple[int, int], dict[int, list[int]]]) -> None:
        self._table = table
        """(canonical player, canonical opponent) -> canonical square -> [games, score sum]."""

    # -- building ---------------------------------------------------------------------------------
    @classmethod
    def build(cls, games: Iterable[Any], plies: int = 20, min_games: int = 2) -> OpeningBook:
        """A book of the first ``plies`` moves of ``games`` (WTHOR games: ``moves`` and
        ``black_score``; 8x8 only), keeping the moves played in at least ``min_games``."""
        table: dict[tuple[int, int], dict[int, list[int]]] = {}
        for game in games:
            if getattr(game, "board_size", SIZE) != SIZE:
                continue
            black_lead = 2 * int(game.black_score) - SIZE * SIZE
            player, opponent = (int(x) for x in bb.start_position(SIZE))
            black_to_move = True
            for move in game.moves[:plies]:
                if int(bb.legal_moves(np.uint64(player), np.uint64(opponent))) == 0:
                    player, opponent = opponent, player  # a pass (not written in WTHOR)
                    black_to_move = not black_to_move
                point = move.point
                if point is None:
                    break
                square = point.row * SIZE + point.col
                key_p, key_o, syms = canonical(player, opponent)
                stats = table.setdefault((key_p, key_o), {}).setdefault(
                    _canonical_square(square, syms), [0, 0]
                )
                stats[0] += 1
                stats[1] += black_lead if black_to_move else -black_lead
                nxt = bb.play(np.uint64(player), np.uint64(opponent), square)
                player, opponent = int(nxt[0]), int(nxt[1])
                black_to_move = not black_to_move
        return cls(_pruned(table, min_games))

    # -- files ------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the book as a compressed ``.npz`` (atomically)."""
        entries = sorted(
            (p, o, square, games, total)
            for (p, o), moves in self._table.items()
            for square, (games, total) in moves.items()
        )
        p, o, square, games, total = list(zip(*entries, strict=True)) or [()] * 5  # empty
        with atomic_path(path, suffix=".npz") as tmp:
            np.savez_compressed(
                tmp,
                format=np.array(FORMAT),
                version=np.array(VERSION),
                player=np.array(p, dtype=np.uint64),
                opponent=np.array(o, dtype=np.uint64),
                square=np.array(square, dtype=np.int8),
                games=np.array(games, dtype=np.int32),
                score=np.array(total, dtype=np.int64),
            )

    @classmethod
    def load(cls, path: str | Path) -> OpeningBook:
        """Read a book written by :meth:`save`; ``"wthor"`` names the shipped one."""
        if str(path) == SHIPPED:
            return _shipped()
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["format"]) != FORMAT or int(data["version"]) != VERSION:
                    raise BookError(f"{path} is not an imago Othello book (version {VERSION})")
                columns = [
                    data[name].tolist()
                    for name in ("player", "opponent", "square", "games", "score")
                ]
        except BookError:
            raise
        except FileNotFoundError:
            raise BookError(f"{path}: no such book file") from None
        except (OSError, KeyError, ValueError) as error:
            raise BookError(f"{path} is not an imago Othello book: {error}") from None
        table: dict[tuple[int, int], dict[int, list[int]]] = {}
        for p, o, square, games, total in zip(*columns, strict=True):
            table.setdefault((p, o), {})[square] = [games, total]
        return cls(table)

    # -- reading ----------------------------------------------------------------------------------
    def __len__(self) -> int:
        """The number of positions in the book."""
        return len(self._table)

    def moves(self, player: int, opponent: int, min_games: int = 1) -> list[BookMove]:
        """The book's moves in the position (the mover's and the opponent's discs, 8x8) played
        in at least ``min_games`` games, best first: the *main* moves (played in at least
        :data:`MAIN_SHARE` of the games of the most played one) by mean score, then the rest
        by games. A rare move's mean says little (23 games of a move won by 23 discs on
        average are a few lopsided games, not a refutation), so it never outranks a main line."""
        key_p, key_o, syms = canonical(int(player), int(opponent))
        seen = self._table.get((key_p, key_o))
        if not seen:
            return []
        # any of the symmetries maps a canonical square back to an equivalent move here
        back = gather_table(syms[0], SIZE)
        found = [
            BookMove(Move.from_action(int(back[square]), SIZE), games, total / games)
            for square, (games, total) in seen.items()
            if games >= min_games
        ]
        if not found:
            return []
        most = max(m.games for m in found)
        found.sort(
            key=lambda m: (
                m.games < MAIN_SHARE * most,
                -m.score if m.games >= MAIN_SHARE * most else -m.games,
                m.move.to_action(SIZE),
            )
        )
        return found

    def choose(self, state: Any, min_games: int = 10) -> BookMove | None:
        """The book's best move for an 8x8 Othello ``state`` (``None``: out of the book, or
        no move there played in ``min_games`` games)."""
        if state.game != "othello" or state.size != SIZE or state.is_over():
            return None
        player, opponent = state.bitboards()
        found = self.moves(int(player), int(opponent), min_games)
        return found[0] if found else None


def _pruned(
    table: dict[tuple[int, int], dict[int, list[int]]], min_games: int
) -> dict[tuple[int, int], dict[int, list[int]]]:
    kept: dict[tuple[int, int], dict[int, list[int]]] = {}
    for key, moves in table.items():
        frequent = {square: stats for square, stats in moves.items() if stats[0] >= min_games}
        if frequent:
            kept[key] = frequent
    return kept


@functools.cache
def _shipped() -> OpeningBook:
    """The shipped book, read once per process."""
    source = resources.files("imago.agents.othello") / "data" / _SHIPPED_FILE
    with resources.as_file(source) as path:
        return OpeningBook.load(path)
