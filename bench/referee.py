"""A match between imago players, counted again by GNU Go: the independent referee.

    python bench/referee.py MATCH_FOLDER [--gnugo "gnugo --mode gtp --chinese-rules"]
        [--komi 7] [--player LABEL]

``imago match`` counts a Go game that ends by two passes with imago's own count; when neither
player is a GTP engine there is no ``final_score`` to check it against. This script loads each
finished game's SGF into GNU Go (``loadsgf``), asks for ``final_score``, and prints the score of
``--player`` (the match's black player of the first game by default) under GNU Go's count, with
every game where the two counts name different winners.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from imago.arena.stats import score_interval
from imago.gtp.client import GtpEngine

GNUGO = "gnugo --mode gtp --chinese-rules"


def referee_winner(engine: GtpEngine, sgf: Path, komi: float) -> str:
    """``B``, ``W`` or ``0`` (a draw) by the engine's count of the game in ``sgf``."""
    engine.send(f"loadsgf {sgf}")
    engine.send(f"komi {komi:g}")
    score = engine.final_score()
    return "0" if score.winner is None else score.winner.letter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--gnugo", default=GNUGO)
    parser.add_argument("--komi", type=float, default=7.0)
    parser.add_argument("--player", default=None)
    args = parser.parse_args()
    games = sorted((args.folder / "games").glob("*.json"))
    if not games:
        raise SystemExit(f"{args.folder} holds no games (an `imago match --out` folder)")
    records = [json.loads(path.read_text(encoding="utf-8")) for path in games]
    player = args.player or records[0]["black"]
    tally = {"wins": 0, "draws": 0, "losses": 0}
    disagreements = []
    with GtpEngine.popen(shlex.split(args.gnugo)) as engine:
        for path, record in zip(games, records, strict=True):
            winner = referee_winner(engine, path.with_suffix(".sgf"), args.komi)
            ours = record["winner"] or "0"
            if winner != ours:
                disagreements.append(f"{path.name}: imago {record['result']}, GNU Go {winner}")
            colour = "B" if record["black"] == player else "W"
            key = "draws" if winner == "0" else ("wins" if winner == colour else "losses")
            tally[key] += 1
    interval = score_interval(**tally)
    print(f"{player} by GNU Go's count: {interval.describe()} ({tally})")
    print(f"{len(games) - len(disagreements)} of {len(games)} games: the same winner")
    for line in disagreements:
        print("  " + line)


if __name__ == "__main__":
    main()
