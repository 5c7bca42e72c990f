"""How well the Go playouts judge real games: positions' mean playout results against the winner.

    python bench/playout_calibration.py FOLDER_OR_SGF... [--games N] [--playouts 200]
        [--every 4] [--from-ply 20] [--policy pattern] [--seed 7]

Each argument is an SGF file or a folder of them (a match folder's ``games/`` is searched too).
Of the games won by resignation or count (``RE`` ``B+...`` or ``W+...``, not on time or by
forfeit) without handicap stones, taken in a shuffled order up to ``--games``, every
``--every``-th position from ply ``--from-ply`` on is played out ``--playouts`` times with the
playout policy of ``mcts`` and of ``az:mix`` (``--policy``). The mean result for the player to
move (1 a win, 0.5 a draw) is compared with whether that player won the game. Printed by
phase (20 plies a band) and overall: the positions, the Brier score (mean squared error) and
the share on the wrong side of 0.5.

The games' winners are the referee: GNU Go's count for ``imago match`` games that ended by
passes, the loser's resignation otherwise, so a late position of a resigned game is judged by
what the players saw. To compare two versions of the playouts, run this from each checkout
(``PYTHONPATH=CHECKOUT/src``) with the same arguments: the positions and the seed are the same.
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from pathlib import Path

import numpy as np
from settled_values import game_winner, sgf_files

from imago.agents.go import _mcts as kernels
from imago.agents.go._patterns import pattern_table
from imago.agents.mcts.config import MCTSConfig
from imago.agents.mcts.games import PLAYOUT_POLICIES
from imago.games.go import fastpath
from imago.games.go.position import GoPosition
from imago.records.sgf import read_file

BAND = 20
MAX_MOVES = MCTSConfig().max_playout_moves  # as the agents play them out


def decided_games(sources: list[Path], games: int, seed: int) -> list[tuple[list[GoPosition], int]]:
    """Up to ``games`` games of ``sources`` (shuffled by ``seed``) won without time or forfeit
    and without handicap: each as its positions and the winner's colour (1 Black, 2 White)."""
    files = [path for source in sources for path in sgf_files(source)]
    random.Random(seed).shuffle(files)
    found: list[tuple[list[GoPosition], int]] = []
    for path in files:
        if len(found) == games:
            break
        try:
            collection = read_file(path)
        except ValueError:
            continue  # a broken record: left out
        if not collection:
            continue  # no game in the file
        game = collection[0]
        result = (game.get_text("RE") or "").strip().upper()
        winner = game_winner(result)
        if (
            winner is None
            or result[2:3] in ("T", "F")
            or game.get_text("HA")
            or game.get_text("AB")
        ):
            continue
        positions = [s for s, _ in game.mainline_states() if isinstance(s, GoPosition)]
        if positions:
            found.append((positions, int(winner)))
    return found


def judge(
    games: list[tuple[list[GoPosition], int]],
    playouts: int,
    every: int,
    start: int,
    policy: int,
    seed: int,
) -> dict[int, list[tuple[float, bool]]]:
    """By phase band, each judged position's squared error and whether it is on the wrong side."""
    rng = fastpath.seed_rng(seed)
    table = pattern_table()
    bands: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for positions, winner in games:
        for ply in range(start, len(positions) - 1, every):
            position = positions[ply]
            if position.is_over():
                continue
            size = position.size
            state = fastpath.to_arrays(position)
            states = np.repeat(state[None, :], playouts, axis=0)
            results = np.zeros(playouts, dtype=np.float64)
            kernels.playout_values(
                states, playouts, size, float(position.komi), position.rules.suicide_allowed,
                MAX_MOVES, rng, policy, table, results,
            )  # fmt: skip
            mean = float(results.mean())
            won = 1.0 if state[fastpath.header(size) + fastpath.F_TO_PLAY] == winner else 0.0
            bands[ply // BAND].append(((mean - won) ** 2, (mean > 0.5) != (won > 0.5)))
    return bands


def report(bands: dict[int, list[tuple[float, bool]]]) -> None:
    """Print each phase band and the total."""
    rows = [(f"plies {b * BAND}-{b * BAND + BAND - 1}", bands[b]) for b in sorted(bands)]
    rows.append(("all", [x for b in sorted(bands) for x in bands[b]]))
    for label, judged in rows:
        if judged:
            errors = np.array([e for e, _ in judged])
            wrong = np.array([w for _, w in judged], dtype=np.float64)
            print(f"{label:>14}: {len(judged):5d} positions, Brier {errors.mean():.4f}, "
                  f"wrong side {wrong.mean():.3f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", type=Path, help="SGF files or folders")
    parser.add_argument("--games", type=int, default=1000, help="at most this many games")
    parser.add_argument("--playouts", type=int, default=200, help="playouts a position")
    parser.add_argument("--every", type=int, default=4, help="every N-th ply")
    parser.add_argument("--from-ply", type=int, default=20, help="the first ply judged")
    parser.add_argument("--policy", default="pattern", choices=sorted(PLAYOUT_POLICIES))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    missing = [str(source) for source in args.sources if not source.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    games = decided_games(args.sources, args.games, args.seed)
    if not games:
        parser.error(
            "no game to judge in "
            + ", ".join(str(source) for source in args.sources)
            + ": none is an SGF record won by resignation or count without handicap"
        )
    print(f"{len(games)} games")
    policy = PLAYOUT_POLICIES[args.policy]
    report(judge(games, args.playouts, args.every, args.from_ply, policy, args.seed))


if __name__ == "__main__":
    main()
