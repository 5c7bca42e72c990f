"""A match between imago players, counted again by GNU Go: the independent referee.

    python bench/referee.py MATCH_FOLDER [--gnugo "/usr/games/gnugo --mode gtp --chinese-rules"]
        [--komi K] [--player LABEL]

``imago match`` counts a Go game that ends by two passes with imago's own count; when neither
player is a GTP engine there is no ``final_score`` to check it against. This script loads each
such game's SGF into GNU Go (``loadsgf``, which also sets the SGF's komi unless ``--komi`` is
given), asks for ``final_score``, and prints the score of ``--player`` (the black player of the
match's first game by default) under GNU Go's count, with every game where the two counts name
different winners. Games that did not end by passes (a resignation, a lost clock, an illegal
move, the move cap) keep the match's result: a count of their board would not be the game's.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from imago.arena.stats import ScoreInterval, score_interval
from imago.gtp.client import EngineError, GtpEngine

GNUGO_OPTIONS = "--mode gtp --chinese-rules"


def default_gnugo() -> str:
    """GNU Go's command line: ``gnugo`` on the PATH, else Debian's ``/usr/games/gnugo`` (off
    root's PATH)."""
    found = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games") or "gnugo"
    return f"{found} {GNUGO_OPTIONS}"


RECORD_KEYS = {"winner", "black", "reason", "result"}


@dataclass
class Verdict:
    """The referee's tally of one match folder."""

    player: str
    tally: dict[str, int] = field(default_factory=lambda: {"wins": 0, "draws": 0, "losses": 0})
    counted: int = 0
    """Games that ended by passes, counted by the referee."""
    disagreements: list[str] = field(default_factory=list)
    """``name: imago RESULT, GNU Go WINNER`` for each counted game whose winners differ."""

    @property
    def interval(self) -> ScoreInterval:
        return score_interval(**self.tally)


def referee_winner(engine: GtpEngine, sgf: Path, komi: float | None) -> str:
    """``B``, ``W`` or ``0`` (a draw) by the engine's count of the game in ``sgf``."""
    engine.send(f"loadsgf {sgf}")
    if komi is not None:
        engine.send(f"komi {komi:g}")
    score = engine.final_score()
    return "0" if score.winner is None else score.winner.letter


def load_games(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The ``(sgf path, record)`` of every game of an ``imago match --out`` folder, in order;
    ``SystemExit`` naming the problem for a folder that is not one."""
    paths = sorted((folder / "games").glob("*.json"))
    if not paths:
        raise SystemExit(f"{folder} holds no games (an `imago match --out` folder)")
    games = []
    for path in paths:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise SystemExit(f"{path}: not a game record of `imago match` ({error})") from None
        if not isinstance(record, dict) or not record.keys() >= RECORD_KEYS:
            needs = ", ".join(sorted(RECORD_KEYS))
            raise SystemExit(f"{path}: not a game record of `imago match` (it needs {needs})")
        sgf = path.with_suffix(".sgf")
        if record["reason"] == "score" and not sgf.is_file():
            raise SystemExit(f"{sgf} is missing: the game cannot be counted again")
        games.append((sgf, record))
    return games


def referee(
    folder: Path, gnugo: str | None = None, komi: float | None = None, player: str | None = None
) -> Verdict:
    """Count every game of ``folder`` that ended by passes with GNU Go (``gnugo``: its command
    line, default :func:`default_gnugo`), keep the others' results, and tally them for
    ``player``."""
    gnugo = gnugo or default_gnugo()
    games = load_games(folder)
    verdict = Verdict(player or games[0][1]["black"])
    try:
        engine = GtpEngine.popen(shlex.split(gnugo))
    except (OSError, EngineError) as error:
        raise SystemExit(
            f"GNU Go did not start ({gnugo!r}): {error}. Install it (Debian: apt-get install"
            " gnugo, which puts it in /usr/games) or give its full command with --gnugo."
        ) from None
    with engine:
        for sgf, record in games:
            ours = record["winner"] or "0"
            winner = ours
            if record["reason"] == "score":
                winner = referee_winner(engine, sgf, komi)
                verdict.counted += 1
                if winner != ours:
                    verdict.disagreements.append(
                        f"{sgf.stem}: imago {record['result']}, GNU Go {winner}"
                    )
            colour = "B" if record["black"] == verdict.player else "W"
            key = "draws" if winner == "0" else ("wins" if winner == colour else "losses")
            verdict.tally[key] += 1
    return verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--gnugo", default=None, help="GNU Go's GTP command line")
    parser.add_argument("--komi", type=float, default=None, help="default: each SGF's KM")
    parser.add_argument("--player", default=None)
    args = parser.parse_args()
    verdict = referee(args.folder, args.gnugo, args.komi, args.player)
    total = sum(verdict.tally.values())
    print(f"{verdict.player} by GNU Go's count: {verdict.interval.describe()} ({verdict.tally})")
    print(f"{verdict.counted} of {total} games ended by passes and were counted again; ", end="")
    print(f"{verdict.counted - len(verdict.disagreements)} have the same winner")
    for line in verdict.disagreements:
        print("  " + line)


if __name__ == "__main__":
    main()
