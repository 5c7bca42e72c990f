"""Elo ratings by maximum likelihood (Bradley–Terry), with error bars and likelihood of superiority.

The model (the one BayesElo and KataGo's ``elo.py`` fit, without BayesElo's draw parameter):
player *i* with rating ``r_i`` (Elo) scores against player *j* with probability

    p_ij = 1 / (1 + 10 ** ((r_j - r_i) / 400))

and a draw counts as half a win and half a loss. The ratings maximise the log-likelihood

    L(r) = sum over pairs of  s_ij * log p_ij + (n_ij - s_ij) * log(1 - p_ij)

where ``n_ij`` games were played and ``s_ij`` points scored by *i*. ``L`` is concave; Newton's
method finds its maximum. Ratings are only defined up to a constant: one player is anchored at
a fixed rating (``anchor``), or else they average zero. Standard errors come from the inverse of
the Fisher information (the negative Hessian) under that constraint, and the likelihood of
superiority of *i* over *j* is ``Phi((r_i - r_j) / sd(r_i - r_j))`` with the covariance included.

A finite maximum exists only when the results are *strongly connected* (every player both
scored against and conceded points to the rest, through some chain): a player that won every
game has no finite rating. ``prior_draws`` adds that many virtual drawn games to every pair that
played (BayesElo's prior does the same job), which keeps ratings finite and pulls them in a
little; :func:`fit_ratings` raises :class:`ValueError` when the maximum does not exist.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural log-odds."""


@dataclass(frozen=True, slots=True)
class PairResult:
    """The games between two players, from ``a``'s point of view."""

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``a``'s points (a draw is half a point)."""
        return self.wins + 0.5 * self.draws


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings: players in input order with Elo, standard error and covariance."""

    players: tuple[str, ...]
    elo: npt.NDArray[np.float64]
    stderr: npt.NDArray[np.float64]
    covariance: npt.NDArray[np.float64]
    games: npt.NDArray[np.int64]
    points: npt.NDArray[np.float64]
    anchor: str | None = None

    def index(self, player: str) -> int:
        return self.players.index(player)

    def rating(self, player: str) -> float:
        return float(self.elo[self.index(player)])

    def error(self, player: str) -> float:
        """The rating's standard error (0 for the anchor)."""
        return float(self.stderr[self.index(player)])

    def difference_stderr(self, a: str, b: str) -> float:
        """The standard error of ``rating(a) - rating(b)``."""
        i, j = self.index(a), self.index(b)
        c = self.covariance
        return math.sqrt(max(0.0, float(c[i, i] + c[j, j] - 2.0 * c[i, j])))

    def los(self, a: str, b: str) -> float:
        """The likelihood of superiority: the probability that ``a`` is stronger than ``b``."""
        diff = self.rating(a) - self.rating(b)
        sd = self.difference_stderr(a, b)
        if sd == 0.0:
            return 0.5 if diff == 0 else float(diff > 0)
        return normal_cdf(diff / sd)

    def ranked(self) -> list[str]:
        """Players from the highest rating down."""
        order = sorted(range(len(self.players)), key=lambda i: -float(self.elo[i]))
        return [self.players[i] for i in order]

    def los_matrix(self) -> npt.NDArray[np.float64]:
        """``los(players[i], players[j])`` for every pair (0.5 on the diagonal)."""
        n = len(self.players)
        matrix = np.full((n, n), 0.5)
        for i in range(n):
            for j in range(n):
                if i != j:
                    matrix[i, j] = self.los(self.players[i], self.players[j])
        return matrix


def normal_cdf(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def expected_score(elo_difference: float) -> float:
    """The expected score of a player rated ``elo_difference`` above the opponent."""
    return float(1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0)))


def elo_difference(score: float) -> float:
    """The Elo difference that gives ``score`` (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def fit_ratings(
    results: Iterable[PairResult],
    *,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    prior_draws: float = 0.0,
    players: Sequence[str] | None = None,
    tolerance: float = 1e-10,
    max_iterations: int = 200,
) -> Ratings:
    """Maximum-likelihood Elo ratings of the players in ``results`` (see the module docstring).

    ``players`` fixes the order (default: first appearance). ``anchor`` (a player) gets
    ``anchor_rating`` exactly and error 0; without one, ratings average ``anchor_rating``.
    Raises ``ValueError`` for an unknown anchor, a player with no games, or results with no
    finite maximum (not strongly connected; add ``prior_draws``).
    """
    pairs = [r for r in results if r.games > 0]
    names = list(players) if players is not None else []
    for pair in pairs:
        if pair.a == pair.b:
            raise ValueError(f"{pair.a!r} cannot play itself")
        for name in (pair.a, pair.b):
            if name not in names:
                if players is not None:
                    raise ValueError(f"{name!r} is not among the players")
                names.append(name)
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} played no game")
    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    games = np.zeros((n, n))
    points = np.zeros((n, n))  # points[i, j]: what i scored against j
    for pair in pairs:
        i, j = index[pair.a], index[pair.b]
        games[i, j] += pair.games
        games[j, i] += pair.games
        points[i, j] += pair.score
        points[j, i] += pair.games - pair.score
    played = games > 0
    games += prior_draws * played
    points += 0.5 * prior_draws * played
    idle = [names[i] for i in range(n) if not played[i].any()]
    if idle:
        raise ValueError(f"no games for {', '.join(idle)}")
    groups = player_groups(pairs, names)
    if len(groups) > 1:
        raise ValueError(
            "the players form groups that never met, whose ratings cannot be compared ("
            + " | ".join(", ".join(g) for g in groups)
            + "): rate each group on its own"
        )
    if n > 1 and not _strongly_connected(points > 0):
        raise ValueError(
            "the ratings have no finite maximum-likelihood value: some player or group won "
            "(or lost) every game against the rest; add prior draws (--prior 1)"
        )
    theta = _newton(games, points, tolerance, max_iterations)
    covariance = _covariance(games, theta, None if anchor is None else index[anchor])
    theta = theta - (theta[index[anchor]] if anchor is not None else theta.mean())
    elo = theta * ELO_PER_NAT + anchor_rating
    covariance = covariance * ELO_PER_NAT**2
    real_games = games - prior_draws * played
    real_points = points - 0.5 * prior_draws * played
    return Ratings(
        players=tuple(names),
        elo=elo,
        stderr=np.sqrt(np.clip(np.diag(covariance), 0.0, None)),
        covariance=covariance,
        games=np.rint(real_games.sum(axis=1)).astype(np.int64),
        points=real_points.sum(axis=1),
        anchor=anchor,
    )


def player_groups(
    results: Iterable[PairResult], players: Sequence[str] | None = None
) -> list[list[str]]:
    """The groups of players linked by games (directly or through others), each in
    ``players`` order (default: first appearance), largest group first. Ratings compare
    players of one group only: two groups that never met have no common scale."""
    pairs = [r for r in results if r.games > 0]
    names = list(players) if players is not None else []
    for pair in pairs:
        names.extend(name for name in (pair.a, pair.b) if name not in names)
    neighbours: dict[str, set[str]] = {name: set() for name in names}
    for pair in pairs:
        neighbours[pair.a].add(pair.b)
        neighbours[pair.b].add(pair.a)
    order = {name: index for index, name in enumerate(names)}
    groups: list[list[str]] = []
    seen: set[str] = set()
    for name in names:
        if name in seen:
            continue
        members, frontier = [], [name]
        seen.add(name)
        while frontier:
            current = frontier.pop()
            members.append(current)
            for other in neighbours[current] - seen:
                seen.add(other)
                frontier.append(other)
        groups.append(sorted(members, key=order.__getitem__))
    return sorted(groups, key=lambda group: -len(group))


def _strongly_connected(edges: npt.NDArray[np.bool_]) -> bool:
    """Whether every node reaches every other along ``edges[i, j]`` (i scored against j)."""

    def reach(matrix: npt.NDArray[np.bool_]) -> int:
        seen = {0}
        frontier = [0]
        while frontier:
            node = frontier.pop()
            for other in np.flatnonzero(matrix[node]):
                if int(other) not in seen:
                    seen.add(int(other))
                    frontier.append(int(other))
        return len(seen)

    n = edges.shape[0]
    return bool(reach(edges) == n and reach(edges.T) == n)


def _probabilities(theta: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    diff = theta[:, None] - theta[None, :]
    return np.asarray(1.0 / (1.0 + np.exp(-diff)), dtype=np.float64)


def _log_likelihood(
    games: npt.NDArray[np.float64], points: npt.NDArray[np.float64], theta: npt.NDArray[np.float64]
) -> float:
    diff = theta[:, None] - theta[None, :]
    # points[i, j] * log p_ij summed over ordered pairs counts every game once from each side.
    return float(-(points * np.logaddexp(0.0, -diff)).sum())


def _newton(
    games: npt.NDArray[np.float64],
    points: npt.NDArray[np.float64],
    tolerance: float,
    max_iterations: int,
) -> npt.NDArray[np.float64]:
    """Maximise the log-likelihood over ratings (natural log-odds units) with the first fixed."""
    n = games.shape[0]
    theta = np.zeros(n)
    if n == 1:
        return theta
    current = _log_likelihood(games, points, theta)
    for _ in range(max_iterations):
        p = _probabilities(theta)
        gradient = (points - games * p).sum(axis=1)
        weight = games * p * p.T
        information = np.diag(weight.sum(axis=1)) - weight
        step = np.zeros(n)
        step[1:] = np.linalg.solve(information[1:, 1:], gradient[1:])
        scale = 1.0
        while True:
            candidate = theta + scale * step
            value = _log_likelihood(games, points, candidate)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, previous, current = candidate, current, value
        if np.abs(scale * step).max() < tolerance or abs(current - previous) < tolerance**2:
            break
    return theta


def _covariance(
    games: npt.NDArray[np.float64], theta: npt.NDArray[np.float64], anchor: int | None
) -> npt.NDArray[np.float64]:
    """The inverse Fisher information with the anchor fixed (or the ratings' mean fixed)."""
    n = games.shape[0]
    p = _probabilities(theta)
    weight = games * p * p.T
    information = np.diag(weight.sum(axis=1)) - weight
    if n == 1:
        return np.zeros((1, 1))
    if anchor is None:
        # The information matrix is singular along "add a constant to everyone"; its
        # pseudo-inverse is the covariance of ratings constrained to a fixed mean.
        return np.asarray(np.linalg.pinv(information), dtype=np.float64)
    keep = [i for i in range(n) if i != anchor]
    covariance = np.zeros((n, n))
    covariance[np.ix_(keep, keep)] = np.linalg.inv(information[np.ix_(keep, keep)])
    return covariance


def format_ratings(ratings: Ratings) -> list[tuple[str, ...]]:
    """Rows for a table: rank, player, Elo, ±error, games, score %, LOS over the next one."""
    rows: list[tuple[str, ...]] = []
    ranked = ratings.ranked()
    for rank, player in enumerate(ranked, start=1):
        i = ratings.index(player)
        games = int(ratings.games[i])
        score = 100.0 * float(ratings.points[i]) / games if games else 0.0
        following = ranked[rank] if rank < len(ranked) else None
        los = f"{100 * ratings.los(player, following):.1f}%" if following else ""
        error = "anchor" if player == ratings.anchor else f"±{1.96 * ratings.error(player):.0f}"
        elo = f"{ratings.rating(player):.0f}"
        rows.append((str(rank), player, elo, error, str(games), f"{score:.1f}%", los))
    return rows


def plot_ratings(
    ratings: Ratings, path: str | Path, *, title: str = "Elo ratings (95% intervals)"
) -> None:
    """Draw the ratings with 95% error bars as a PNG (needs matplotlib: ``imago[plot]``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise RuntimeError("plotting needs matplotlib (pip install 'imago[plot]')") from error
    ranked = ratings.ranked()[::-1]
    values = [ratings.rating(p) for p in ranked]
    errors = [1.96 * ratings.error(p) for p in ranked]
    figure, axes = plt.subplots(figsize=(7.0, 0.5 * len(ranked) + 1.5))
    try:
        axes.errorbar(values, range(len(ranked)), xerr=errors, fmt="o", capsize=4)
        axes.set_yticks(range(len(ranked)))
        axes.set_yticklabels(ranked)
        axes.set_xlabel("Elo" + (f" (anchor: {ratings.anchor})" if ratings.anchor else ""))
        axes.set_title(title)
        axes.grid(axis="x", alpha=0.3)
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    finally:
        plt.close(figure)
