"""The referee's count (:func:`imago.games.go.count`): its speed, and its agreement with results
that people accepted.

Figures (``imago bench go.scoring``):

* ``go.scoring.ms_9`` / ``go.scoring.ms_19``: CPU time of one count (median over the positions,
  each counted once, kernels compiled beforehand), and ``..._p95`` / ``..._max``, on the final
  positions of real games that were counted: the OGS 9x9 games of
  ``ogs-9x9/strict_ogs_games.tar.gz`` that ended by two passes, and the 19x19 games of
  ``go19-yenw-ai`` whose result is a score (goals: 50 ms on 9x9, 500 ms on 19x19);
* ``go.scoring.ogs_same_winner``: in how many of those OGS games (percent) imago's count under
  the game's rules (``RU``: Japanese and Korean by territory, the rest by area), komi and
  handicap (under area counting White gets a point per handicap stone, as OGS counts) names the
  winner the players accepted (goal: 98 %); ``go.scoring.ogs_games`` is how many were counted;
* no agreement figure for the 19x19 games: none of them ends by two passes (the last position
  is counted as it stands, for its speed only), most have no komi or Fox's komi times 100
  (``KM[750]``), and their results were counted by servers after moves the records lack.

``--quick`` counts the first 300 OGS games and 20 of the 19x19 ones. The differential against
GNU Go on generated games is ``bench/scoring_corpus.py`` (it needs GNU Go and hours of CPU).
"""

from __future__ import annotations

import statistics
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from imago.bench import BenchConfig, Figure, benchmark

_clock = time.thread_time
"""CPU time of the measuring thread: the machines these run on are shared."""


@dataclass(frozen=True)
class CountedGame:
    """The last position of a game whose result is a score, with its recorded result."""

    name: str
    position: object  # a GoPosition
    handicap: int
    result: str


def counted_games(archive: Path, *, passes: bool, limit: int | None) -> Iterator[CountedGame]:
    """The games of an SGF tarball whose result is a score (``B+3.5``, not ``B+R`` or
    ``B+0``); with ``passes``, only those whose last two moves are passes."""
    from imago.records import sgf

    found = 0
    with tarfile.open(archive) as tar:
        for member in tar:
            if limit is not None and found >= limit:
                return
            stream = tar.extractfile(member) if member.isfile() else None
            if stream is None or not member.name.lower().endswith(".sgf"):
                continue
            try:
                game = sgf.read_bytes(stream.read())[0]
            except Exception:  # broken files are the records layer's business, not ours
                continue
            outcome = game.outcome
            if outcome is None or outcome.winner is None or outcome.by_resignation:
                continue
            if not outcome.margin:
                continue
            moves = game.mainline_moves()
            if passes and (len(moves) < 2 or not (moves[-1].is_pass and moves[-2].is_pass)):
                continue
            handicap_text = game.get_text("HA")
            handicap = int(handicap_text) if handicap_text and handicap_text.isdigit() else 0
            setup = game.setup
            if not handicap and setup is not None and not setup.white:
                handicap = len(setup.black)  # Black's setup stones without HA: OGS counts them
            found += 1
            yield CountedGame(member.name, game.end().state, handicap, game.result or "")


def _agreement(games: list[CountedGame]) -> tuple[float, list[float], int]:
    """Percent of the games whose winner imago's count names as recorded, the CPU seconds of
    each count, and how many games."""
    from imago.games.go import GoPosition, Scoring, count

    same, seconds = 0, []
    for game in games:
        position = game.position
        assert isinstance(position, GoPosition)
        area = position.rules.scoring is Scoring.AREA
        start = _clock()
        judged = count(position, handicap=game.handicap if area else 0)
        seconds.append(_clock() - start)
        same += judged.outcome.result()[:1] == game.result[:1]
    return 100.0 * same / max(len(games), 1), seconds, len(games)


def _time_figures(prefix: str, seconds: list[float]) -> list[Figure]:
    ordered = sorted(seconds)
    return [
        Figure(f"{prefix}", 1000 * statistics.median(ordered), "ms", "median CPU per count"),
        Figure(f"{prefix}_p95", 1000 * ordered[(len(ordered) * 95) // 100], "ms"),
        Figure(f"{prefix}_max", 1000 * ordered[-1], "ms"),
    ]


@benchmark("go.scoring", "the referee's count: ms per 9x9 / 19x19 position, agreement with OGS")
def scoring(config: BenchConfig) -> list[Figure]:
    from imago.games.go import count, new_game

    if config.data_dir is None:
        return []
    count(new_game(9))  # compile or load the kernels outside the timing
    figures: list[Figure] = []
    ogs = config.data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz"
    if ogs.is_file():
        games = list(counted_games(ogs, passes=True, limit=300 if config.quick else None))
        rate, seconds, n = _agreement(games)
        figures += _time_figures("go.scoring.ms_9", seconds)
        figures.append(Figure("go.scoring.ogs_same_winner", rate, "%", f"{n} games"))
        figures.append(Figure("go.scoring.ogs_games", n, "games"))
    yenw = config.data_dir / "go19-yenw-ai" / "yenw_AI_sgf.tar.gz"
    if yenw.is_file():
        games = list(counted_games(yenw, passes=False, limit=20 if config.quick else 200))
        _, seconds, _ = _agreement(games)
        figures += _time_figures("go.scoring.ms_19", seconds)
    return figures
