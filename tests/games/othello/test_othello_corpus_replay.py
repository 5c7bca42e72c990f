"""Every real game replays legally: the WTHOR database (137,548 tournament games) and the
eOthello transcripts (25,657 online games), with implicit passes; played-out games end with the
stored result. The readers here are ad hoc (the real record readers live in imago.records)."""

from __future__ import annotations

import csv
from pathlib import Path

import numba
import numpy as np
import numpy.typing as npt
import pytest

from imago.core import Color, Move, Point
from imago.games.othello import OthelloState, bitboard, new_game

pytestmark = pytest.mark.slow

Games = npt.NDArray[np.int64]


def read_wthor(folder: Path) -> tuple[Games, npt.NDArray[np.int64]]:
    """``(moves, stored black discs)``: moves as squares ``row * 8 + col``, -1 after the end."""
    records = []
    for path in sorted(folder.glob("WTH_*.wtb")):
        data = path.read_bytes()
        count = int.from_bytes(data[4:8], "little")
        assert len(data) == 16 + 68 * count, path
        records.append(np.frombuffer(data, np.uint8, offset=16).reshape(count, 68))
    table = np.concatenate(records)
    codes = table[:, 8:].astype(np.int64)  # 10 * row + col, both from 1; 0 = no move
    moves = np.where(codes == 0, -1, (codes // 10 - 1) * 8 + codes % 10 - 1)
    return moves, table[:, 6].astype(np.int64)


def read_eothello(path: Path) -> tuple[Games, npt.NDArray[np.int64]]:
    """``(moves, winner)`` with winner 1 black, -1 white, 0 draw."""
    with path.open(newline="") as file:
        rows = list(csv.DictReader(file))
    moves = np.full((len(rows), 60), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        text = row["game_moves"]
        for j in range(len(text) // 2):
            moves[i, j] = (int(text[2 * j + 1]) - 1) * 8 + ord(text[2 * j]) - ord("a")
    return moves, np.array([int(row["winner"]) for row in rows], dtype=np.int64)


@numba.njit(cache=False)
def replay(moves: Games) -> tuple[Games, Games, Games, npt.NDArray[np.bool_]]:
    """Replay with implicit passes: ``(first illegal ply + 1 or 0, black, white, game over)``."""
    n = moves.shape[0]
    bad = np.zeros(n, np.int64)
    black = np.zeros(n, np.int64)
    white = np.zeros(n, np.int64)
    over = np.zeros(n, np.bool_)
    for g in range(n):
        p, o = bitboard.start_position(8)
        black_to_play = True
        for i in range(moves.shape[1]):
            sq = moves[g, i]
            if sq < 0:
                break
            bit = np.uint64(1) << np.uint64(sq)
            if bitboard.legal_moves(p, o) & bit == 0:
                # only legal as an implicit pass: the side to move has nothing, the other can
                if bitboard.legal_moves(p, o) != 0 or bitboard.legal_moves(o, p) & bit == 0:
                    bad[g] = i + 1
                    break
                p, o = o, p
                black_to_play = not black_to_play
            p, o = bitboard.play(p, o, sq)
            black_to_play = not black_to_play
        b, w = (p, o) if black_to_play else (o, p)
        black[g] = bitboard.popcount(b)
        white[g] = bitboard.popcount(w)
        over[g] = bitboard.legal_moves(p, o) == 0 and bitboard.legal_moves(o, p) == 0
    return bad, black, white, over


def replay_with_states(moves: Games, games: range) -> dict[int, OthelloState]:
    """The same games through the public API, passing where the record skips a turn."""
    by_square = {sq: Move.play(Point(sq // 8, sq % 8)) for sq in range(64)}
    finals = {}
    for g in games:
        state = new_game()
        for sq in moves[g]:
            if sq < 0:
                break
            move = by_square[int(sq)]
            if not state.is_legal(move):
                state = state.play(move, state.to_play.opponent)  # an implicit pass
            else:
                state = state.play(move)
        finals[g] = state
    return finals


def check_public_api(moves: Games, black: Games, white: Games, step: int) -> None:
    for g, state in replay_with_states(moves, range(0, len(moves), step)).items():
        assert state.discs() == (black[g], white[g]), g
        assert state.move_number >= int((moves[g] >= 0).sum())


def test_every_wthor_game_replays(data_dir: Path):
    moves, stored_black = read_wthor(data_dir / "wthor")
    assert len(moves) == 137_548
    bad, black, white, over = replay(moves)
    assert np.flatnonzero(bad).tolist() == []
    # WTHOR stores black's discs with the empty squares given to the winner
    empties = 64 - black - white
    wthor_black = np.where(black > white, black + empties, black)
    wthor_black = np.where(black == white, black + empties // 2, wthor_black)
    finished = np.flatnonzero(over)
    assert len(finished) > 0.99 * len(moves)
    assert np.flatnonzero(wthor_black[finished] != stored_black[finished]).tolist() == []
    check_public_api(moves, black, white, step=40)
    # the same convention through the public API
    final = replay_with_states(moves, range(finished[0], finished[0] + 1))[finished[0]]
    outcome = final.outcome(empties_to_winner=True)
    assert outcome is not None and outcome.black_score == stored_black[finished[0]]


def test_every_eothello_game_replays(data_dir: Path):
    moves, winner = read_eothello(data_dir / "othello-eothello-csv" / "othello_dataset.csv")
    assert len(moves) == 25_657
    bad, black, white, over = replay(moves)
    assert np.flatnonzero(bad).tolist() == []
    finished = np.flatnonzero(over)
    assert len(finished) > 0.99 * len(moves)
    assert np.flatnonzero(np.sign(black - white)[finished] != winner[finished]).tolist() == []
    check_public_api(moves, black, white, step=10)
    for g in finished[:50]:
        state = replay_with_states(moves, range(g, g + 1))[g]
        outcome = state.outcome()
        assert outcome is not None
        expected = {1: Color.BLACK, -1: Color.WHITE, 0: None}[int(winner[g])]
        assert outcome.winner == expected
