"""How well self-play's searches foresee the results of games from start positions.

    python bench/start_values.py RUN ROUND [ROUND...] [--from-move 40] [--margin 0.1]

Reads the self-play games of the run's rounds (their example files) and, for each example, the
search's win rate for the player to move against the game's result (drawn games are left
out). A win rate is wrong when it is more than ``--margin`` from a half on the side of the
player who lost. Printed, for the examples at ``--from-move`` and later (so that both kinds of
game are compared at the same stage): the share of wrong win rates in the games that began
part-way through a recorded game (``selfplay.start_fraction``, :mod:`imago.rl.starts`) by
moves played since the start, and in the games from the empty board.

Where the searches of games from start positions are wrong far more often than those of
self-play's own games at the same stage, the start positions hold what the network has not
learnt: the examples teach it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from imago.arena.stats import score_interval
from imago.rl.folder import RunFolder, read_infos

SINCE_START = ((0, 5), (5, 15), (15, 40), (40, 1000))
"""Moves played since the start position, first (inclusive) to last (exclusive)."""


def wrong(info: dict[str, Any], move: int, win_rate: float, margin: float) -> bool:
    """Whether the win rate at ``move`` (for the player to move there) backs the loser."""
    mover = 1 if move % 2 == 0 else 2  # Black first, and a pass is a move (Go and Othello)
    won = int(info["winner"]) == mover
    return win_rate > 0.5 + margin if not won else win_rate < 0.5 - margin


def tally(
    infos: list[dict[str, Any]], from_move: int, margin: float
) -> tuple[dict[tuple[int, int], list[int]], list[int]]:
    """Wrong and all examples at ``from_move`` and later: by moves since the start in games
    from start positions, and in the others."""
    started = {span: [0, 0] for span in SINCE_START}
    others = [0, 0]
    for info in infos:
        if int(info["winner"]) == 0:
            continue
        start = int(info.get("start_moves", 0))
        for move, win_rate in zip(info["example_moves"], info["values"], strict=True):
            if int(move) < from_move:
                continue  # both kinds of game at the same stage: early positions are easier
            bad = wrong(info, int(move), float(win_rate), margin)
            if start:
                since = int(move) - start
                span = next(s for s in SINCE_START if s[0] <= since < s[1])
                started[span][0] += bad
                started[span][1] += 1
            else:
                others[0] += bad
                others[1] += 1
    return started, others


def share(bad: int, total: int) -> str:
    if not total:
        return "no examples"
    part = score_interval(bad, 0, total - bad)
    return (
        f"{bad} of {total} ({100 * part.score:.1f} % [{100 * part.low:.1f}, {100 * part.high:.1f}])"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("rounds", type=int, nargs="+")
    parser.add_argument("--from-move", type=int, default=40)
    parser.add_argument("--margin", type=float, default=0.1)
    args = parser.parse_args()
    folder = RunFolder(args.run)
    infos = [
        info
        for round_ in args.rounds
        for holdout in (False, True)
        for path in folder.example_files(round_, holdout)
        for info in read_infos(path)
    ]
    started, others = tally(infos, args.from_move, args.margin)
    games = sum(1 for info in infos if info.get("start_moves"))
    print(
        f"rounds {args.rounds}: {len(infos)} games, {games} from start positions; "
        f"examples from move {args.from_move} on"
    )
    for (first, last), (bad, total) in started.items():
        print(f"  from a start, moves {first}-{last - 1} after it: wrong {share(bad, total)}")
    print(f"  from the empty board: wrong {share(*others)}")


if __name__ == "__main__":
    main()
