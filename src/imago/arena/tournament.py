"""Round robins and gauntlets: schedules, standings, cross tables and pairwise results.

A tournament is a schedule of games like a match (:mod:`imago.arena.match` plays it and keeps
it in a folder); these functions make the schedule and summarise the records.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from imago.arena.match import GameRecord, Pairing, Player
from imago.arena.ratings import PairResult


def round_robin(players: Sequence[Player], games_per_pair: int) -> list[Pairing]:
    """Every pair plays ``games_per_pair`` games, colours alternating within the pair.

    Games are interleaved pair by pair (first game of every pair, then the second, ...), so a
    tournament stopped early is still balanced. Game ``k`` of every pair uses opening round
    ``k // 2``: every pair meets the same openings, once with each colour.
    """
    _check_players(players)
    pairs = list(itertools.combinations(players, 2))
    return pair_schedule(pairs, games_per_pair)


def gauntlet(hero: Player, field: Sequence[Player], games_per_pair: int) -> list[Pairing]:
    """``hero`` plays ``games_per_pair`` games against each player of ``field``."""
    _check_players([hero, *field])
    return pair_schedule([(hero, other) for other in field], games_per_pair)


def _check_players(players: Sequence[Player]) -> None:
    labels = [p.label for p in players]
    if len(set(labels)) != len(labels):
        raise ValueError("players need distinct labels (write LABEL=SPEC)")
    if len(players) < 2:
        raise ValueError("a tournament needs at least two players")


def pair_schedule(pairs: Sequence[tuple[Player, Player]], games_per_pair: int) -> list[Pairing]:
    """``games_per_pair`` games of each pair (the first of a pair has Black first), colours
    alternating, interleaved pair by pair; game ``k`` of every pair uses opening round
    ``k // 2``."""
    if games_per_pair < 1:
        raise ValueError("games per pair must be at least 1")
    schedule: list[Pairing] = []
    for game in range(games_per_pair):
        for a, b in pairs:
            black, white = (a, b) if game % 2 == 0 else (b, a)
            schedule.append(Pairing(len(schedule), black, white, game // 2))
    return schedule


def pair_results(records: Iterable[GameRecord]) -> list[PairResult]:
    """Wins, draws and losses for each pair of players that met (first-met order)."""
    tallies: dict[tuple[str, str], list[int]] = {}
    for record in records:
        a, b = sorted((record.black, record.white))
        tally = tallies.setdefault((a, b), [0, 0, 0])
        points = record.points(a)
        tally[0 if points == 1.0 else 1 if points == 0.5 else 2] += 1
    return [PairResult(a, b, *tally) for (a, b), tally in tallies.items()]


@dataclass(frozen=True)
class Standing:
    """One player's line of the results table."""

    player: str
    games: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    """Games this player lost by an illegal move, a crash or a timeout."""

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


_FORFEITS = ("illegal", "crash", "timeout")


def standings(records: Iterable[GameRecord], players: Sequence[str] = ()) -> list[Standing]:
    """The results table, best score first (``players`` adds those with no game yet)."""
    counts: dict[str, list[int]] = {p: [0, 0, 0, 0] for p in players}
    for record in records:
        for label in (record.black, record.white):
            line = counts.setdefault(label, [0, 0, 0, 0])
            points = record.points(label)
            line[0 if points == 1.0 else 1 if points == 0.5 else 2] += 1
            if points == 0.0 and record.reason in _FORFEITS:
                line[3] += 1
    table = [Standing(p, sum(c[:3]), c[0], c[1], c[2], c[3]) for p, c in counts.items()]
    return sorted(table, key=lambda s: (-s.score, -s.points, s.player))


def cross_table(
    records: Iterable[GameRecord], players: Sequence[str]
) -> list[list[tuple[float, int] | None]]:
    """``table[i][j]``: (points of ``players[i]`` against ``players[j]``, games), or ``None``."""
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    points = [[0.0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    for record in records:
        if record.black not in index or record.white not in index:
            continue
        for me, other in ((record.black, record.white), (record.white, record.black)):
            i, j = index[me], index[other]
            points[i][j] += record.points(me)
            games[i][j] += 1
    return [
        [(points[i][j], games[i][j]) if games[i][j] else None for j in range(n)] for i in range(n)
    ]
