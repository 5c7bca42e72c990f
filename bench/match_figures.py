"""Figures read back from saved match folders (``imago match --out DIR``), per player.

    python bench/match_figures.py DIR [DIR ...]

For each player of each folder: its moves, the median search size per move (the ``N nodes``
that the match writes into each move's SGF comment: simulations for ``mcts`` and ``nnmcts``,
nodes for ``alphabeta``; external programs report none), and how many of its moves were a play
right after the opponent had passed (where ``mcts``'s game-ending pass rule keeps a game going),
and the seconds its moves took after the random opening (10th, 50th and 90th percentile, and the
longest): whether a side thinks a flat time a move or spends it where it matters.
BENCHMARKS.md quotes these figures for the GNU Go and Pachi matches.
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

from imago.arena.match import GameRecord, MatchFolder
from imago.records import sgf

_NODES = re.compile(r"\b(\d+) nodes\b")


def player_figures(record: GameRecord, sgf_text: str) -> dict[str, tuple[list[int], int]]:
    """For each player of one game: the node counts of its moves, and its plays right after an
    opponent's pass."""
    game = sgf.read_string(sgf_text, replay=False)[0]
    comments = [node.comment for node in game.mainline() if node.move is not None]
    figures: dict[str, tuple[list[int], int]] = {record.black: ([], 0), record.white: ([], 0)}
    for ply, move in enumerate(record.moves):
        label = record.black if ply % 2 == 0 else record.white
        nodes, after_pass = figures[label]
        found = _NODES.search(comments[ply]) if ply < len(comments) else None
        if found:
            nodes.append(int(found.group(1)))
        replied = ply > 0 and record.moves[ply - 1] == "pass" and move not in ("pass", "resign")
        figures[label] = (nodes, after_pass + replied)
    return figures


def folder_figures(path: Path) -> dict[str, tuple[int, float | None, int, list[float]]]:
    """Per player of the match in ``path``: moves, median nodes per move, plays after a pass,
    the seconds of its moves after the opening."""
    folder = MatchFolder(path)
    nodes: dict[str, list[int]] = {}
    moves: dict[str, int] = {}
    after_pass: dict[str, int] = {}
    seconds: dict[str, list[float]] = {}
    for index, record in sorted(folder.records().items()):
        text = folder.game_path(index, ".sgf").read_text(encoding="utf-8")
        for label, (counts, replies) in player_figures(record, text).items():
            nodes.setdefault(label, []).extend(counts)
            side = 0 if label == record.black else 1
            moves[label] = moves.get(label, 0) + len(record.moves[side::2])
            after_pass[label] = after_pass.get(label, 0) + replies
            opening = (record.opening_plies + 1 - side) // 2  # this side's opening moves
            timed = record.seconds[side::2][opening:]
            seconds.setdefault(label, []).extend(timed)
    return {
        label: (
            moves[label],
            statistics.median(nodes[label]) if nodes[label] else None,
            replies,
            seconds[label],
        )
        for label, replies in after_pass.items()
    }


def spread(seconds: list[float]) -> str:
    """``p10 / p50 / p90 / max`` of ``seconds``, or ``-``."""
    if len(seconds) < 2:
        return "-"
    tenths = statistics.quantiles(seconds, n=10)
    return f"{tenths[0]:.2f} / {tenths[4]:.2f} / {tenths[8]:.2f} / {max(seconds):.2f}"


def main(paths: list[str]) -> None:
    print(
        "folder | player | moves | median nodes/move | plays right after a pass | "
        "seconds a move after the opening: p10 / p50 / p90 / max"
    )
    for path in paths:
        for label, (count, median, replies, seconds) in folder_figures(Path(path)).items():
            shown = "-" if median is None else f"{median:,.0f}"
            print(f"{path} | {label} | {count} | {shown} | {replies} | {spread(seconds)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
