"""A match between imago players, counted again by GNU Go: the independent referee.

    python bench/referee.py MATCH_FOLDER [--gnugo "/usr/games/gnugo --mode gtp --chinese-rules"]
        [--komi K] [--player LABEL]
    python bench/referee.py --sgf RUN/games/GENERATION [...]    # self-play records

``imago match`` counts a Go game that ends by two passes with imago's own count; when neither
player is a GTP engine there is no ``final_score`` to check it against. This script loads each
such game's SGF into GNU Go (``loadsgf``, which also sets the SGF's komi unless ``--komi`` is
given), asks for ``final_score``, and prints the score of ``--player`` (the black player of the
match's first game by default) under GNU Go's count, with every game where the two counts name
different winners. Games that did not end by passes (a resignation, a lost clock, an illegal
move, the move cap) keep the match's result: a count of their board would not be the game's.

With ``--sgf``, the games are the SGF collections of a folder (or one file), as ``imago rl``
writes each generation's self-play games: each game that ended by two passes is counted by GNU
Go and its winner compared with the record's ``RE``. Self-play counts by area with every stone
alive (Tromp-Taylor), GNU Go removes the stones it finds dead, so the share of games whose
winners differ is the share of value targets that the rules of self-play decided otherwise than
a referee would.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import tempfile
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


@dataclass
class RecordsVerdict:
    """The referee's count of a folder of SGF records (self-play games)."""

    games: int = 0
    counted: int = 0
    """Games that ended by two passes, counted by the referee."""
    disagreements: list[str] = field(default_factory=list)
    """``FILE:INDEX: record RESULT, GNU Go WINNER`` for each counted game whose winners differ."""

    @property
    def interval(self) -> ScoreInterval:
        """The share of counted games whose winners differ (as a "score", with its interval)."""
        differ = len(self.disagreements)
        return score_interval(wins=differ, draws=0, losses=self.counted - differ)


def _winner_letter(result: str) -> str:
    """``B``, ``W`` or ``0`` of an SGF ``RE`` (``B+3``, ``W+R``, ``0``, ``Draw``)."""
    letter = result.strip()[:1].upper()
    return letter if letter in ("B", "W") else "0"


def _ended_by_passes(game: Any) -> bool:
    from imago.core.move import Move

    moves = game.mainline_moves()
    return len(moves) >= 2 and moves[-1] == Move.PASS and moves[-2] == Move.PASS


def referee_records(
    path: Path, gnugo: str | None = None, komi: float | None = None
) -> RecordsVerdict:
    """Count every Go game of the SGF files at ``path`` (a file or a folder of ``*.sgf``) that
    ended by two passes with GNU Go, and compare each winner with the record's ``RE``."""
    from imago.records import sgf as sgf_format

    files = [path] if path.is_file() else sorted(path.glob("*.sgf"))
    if not files:
        raise SystemExit(f"{path} holds no SGF files")
    verdict = RecordsVerdict()
    try:
        engine = GtpEngine.popen(shlex.split(gnugo or default_gnugo()))
    except (OSError, EngineError) as error:
        raise SystemExit(f"GNU Go did not start: {error}") from None
    with engine, tempfile.TemporaryDirectory(prefix="imago-referee-") as scratch:
        single = Path(scratch) / "game.sgf"
        for file in files:
            try:
                collection = sgf_format.read_file(file)
            except (OSError, ValueError) as error:
                raise SystemExit(f"{file}: not an SGF file ({error})") from None
            for index, game in enumerate(collection):
                verdict.games += 1
                if game.result is None or not _ended_by_passes(game):
                    continue
                sgf_format.write_file(single, game)
                winner = referee_winner(engine, single, komi)
                verdict.counted += 1
                if winner != _winner_letter(game.result):
                    verdict.disagreements.append(
                        f"{file.name}:{index}: record {game.result}, GNU Go {winner}"
                    )
    return verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument(
        "--sgf", action="store_true", help="FOLDER holds SGF records (self-play), not a match"
    )
    parser.add_argument("--gnugo", default=None, help="GNU Go's GTP command line")
    parser.add_argument("--komi", type=float, default=None, help="default: each SGF's KM")
    parser.add_argument("--player", default=None)
    args = parser.parse_args()
    if args.sgf:
        report_records(referee_records(args.folder, args.gnugo, args.komi))
        return
    verdict = referee(args.folder, args.gnugo, args.komi, args.player)
    total = sum(verdict.tally.values())
    print(f"{verdict.player} by GNU Go's count: {verdict.interval.describe()} ({verdict.tally})")
    print(f"{verdict.counted} of {total} games ended by passes and were counted again; ", end="")
    print(f"{verdict.counted - len(verdict.disagreements)} have the same winner")
    for line in verdict.disagreements:
        print("  " + line)


def report_records(verdict: RecordsVerdict) -> None:
    """Print the self-play records' count: how many were counted, how many winners differ."""
    print(f"{verdict.counted} of {verdict.games} games ended by passes and were counted again")
    differ = len(verdict.disagreements)
    interval = verdict.interval
    print(
        f"{differ} have another winner by GNU Go's count: {100 * interval.score:.1f} % "
        f"[{100 * interval.low:.1f}, {100 * interval.high:.1f}]"
    )
    for line in verdict.disagreements:
        print("  " + line)


if __name__ == "__main__":
    main()
