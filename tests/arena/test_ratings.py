"""Ratings: maximum likelihood checked against a closed form and an independent optimiser."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from imago.arena.ratings import (
    ELO_PER_NAT,
    PairResult,
    elo_difference,
    expected_score,
    fit_ratings,
    format_ratings,
    player_groups,
    plot_ratings,
)


@pytest.mark.parametrize(
    ("wins", "draws", "losses"), [(30, 0, 10), (7, 6, 3), (1, 0, 1), (2, 5, 9)]
)
def test_two_players_match_the_closed_form(wins: int, draws: int, losses: int) -> None:
    # With two players the likelihood is binomial in the score: the maximum is at the observed
    # score, and the variance of the log-odds is 1 / (n p (1 - p)).
    ratings = fit_ratings([PairResult("a", "b", wins, draws, losses)], anchor="b")
    n = wins + draws + losses
    p = (wins + draws / 2) / n
    assert ratings.rating("a") == pytest.approx(400 * math.log10(p / (1 - p)), abs=1e-6)
    assert ratings.rating("b") == 0.0
    assert ratings.error("b") == 0.0
    expected_error = 400 / math.log(10) / math.sqrt(n * p * (1 - p))
    assert ratings.error("a") == pytest.approx(expected_error, rel=1e-6)
    assert ratings.difference_stderr("a", "b") == pytest.approx(expected_error, rel=1e-6)


def test_results_are_symmetric_in_who_is_listed_first() -> None:
    one = fit_ratings([PairResult("a", "b", 12, 3, 5)], anchor="a")
    other = fit_ratings([PairResult("b", "a", 5, 3, 12)], anchor="a")
    assert one.rating("b") == pytest.approx(other.rating("b"))


THREE = [
    PairResult("alpha", "beta", 14, 2, 4),
    PairResult("beta", "gamma", 9, 1, 10),
    PairResult("gamma", "alpha", 3, 0, 17),
    PairResult("alpha", "beta", 2, 0, 3),  # a second batch of the same pair adds up
]


def _negative_log_likelihood(elo: np.ndarray, names: list[str]) -> float:
    """Written directly in Elo units, independently of the module's natural-log form."""
    total = 0.0
    for pair in THREE:
        diff = elo[names.index(pair.a)] - elo[names.index(pair.b)]
        p = 1 / (1 + 10 ** (-diff / 400))
        total -= pair.score * math.log(p) + (pair.games - pair.score) * math.log(1 - p)
    return total


def test_three_players_match_an_independent_optimiser() -> None:
    optimize = pytest.importorskip("scipy.optimize")
    names = ["alpha", "beta", "gamma"]

    def objective(free: np.ndarray) -> float:
        return _negative_log_likelihood(np.array([0.0, *free]), names)

    solution = optimize.minimize(
        objective,
        np.zeros(2),
        method="Nelder-Mead",
        options={"xatol": 1e-8, "fatol": 1e-12, "maxiter": 20000},
    )
    ratings = fit_ratings(THREE, anchor="alpha", players=names)
    assert ratings.rating("beta") == pytest.approx(solution.x[0], abs=1e-3)
    assert ratings.rating("gamma") == pytest.approx(solution.x[1], abs=1e-3)

    # Error bars: the inverse of a finite-difference Hessian of the same likelihood.
    step = 1e-2
    hessian = np.zeros((2, 2))
    base = solution.x
    for i in range(2):
        for j in range(2):

            def at(di: float, dj: float, i: int = i, j: int = j) -> float:
                x = base.copy()
                x[i] += di
                x[j] += dj
                return objective(x)

            hessian[i, j] = (
                at(step, step) - at(step, -step) - at(-step, step) + at(-step, -step)
            ) / (4 * step * step)
    covariance = np.linalg.inv(hessian)
    assert ratings.error("beta") == pytest.approx(math.sqrt(covariance[0, 0]), rel=1e-3)
    assert ratings.error("gamma") == pytest.approx(math.sqrt(covariance[1, 1]), rel=1e-3)
    diff_sd = math.sqrt(covariance[0, 0] + covariance[1, 1] - 2 * covariance[0, 1])
    assert ratings.difference_stderr("beta", "gamma") == pytest.approx(diff_sd, rel=1e-3)


def test_anchor_moves_ratings_but_not_differences() -> None:
    anchored = fit_ratings(THREE, anchor="gamma", anchor_rating=1000)
    centred = fit_ratings(THREE)
    assert anchored.rating("gamma") == 1000
    assert float(np.mean(centred.elo)) == pytest.approx(0.0, abs=1e-9)
    for a, b in [("alpha", "beta"), ("beta", "gamma")]:
        assert anchored.rating(a) - anchored.rating(b) == pytest.approx(
            centred.rating(a) - centred.rating(b), abs=1e-6
        )
        assert anchored.difference_stderr(a, b) == pytest.approx(
            centred.difference_stderr(a, b), rel=1e-6
        )


def test_likelihood_of_superiority() -> None:
    ratings = fit_ratings(THREE, anchor="alpha")
    assert ratings.ranked() == ["alpha", "beta", "gamma"]
    assert ratings.los("alpha", "gamma") > 0.99
    assert ratings.los("beta", "gamma") + ratings.los("gamma", "beta") == pytest.approx(1.0)
    matrix = ratings.los_matrix()
    assert matrix[0, 0] == 0.5 and matrix[0, 2] == pytest.approx(ratings.los("alpha", "gamma"))


def test_expected_score_predicts_the_fitted_results() -> None:
    # At the maximum, each player's expected points equal the points scored (the gradient is 0).
    ratings = fit_ratings(THREE)
    for player in ratings.players:
        expected = 0.0
        for pair in THREE:
            if player in (pair.a, pair.b):
                other = pair.b if player == pair.a else pair.a
                diff = ratings.rating(player) - ratings.rating(other)
                expected += pair.games * expected_score(diff)
        assert expected == pytest.approx(float(ratings.points[ratings.index(player)]), abs=1e-6)


def test_a_perfect_record_has_no_finite_rating_without_a_prior() -> None:
    results = [PairResult("mcts", "random", 100, 0, 0)]
    with pytest.raises(ValueError, match="no finite"):
        fit_ratings(results)
    ratings = fit_ratings(results, prior_draws=1.0, anchor="random")
    # One virtual draw: as if 100.5 of 101 points were scored.
    assert ratings.rating("mcts") == pytest.approx(elo_difference(100.5 / 101), abs=1e-6)
    assert int(ratings.games[ratings.index("mcts")]) == 100  # the prior is not counted as games


def test_separate_groups_are_refused() -> None:
    results = [PairResult("a", "b", 3, 0, 2), PairResult("c", "d", 1, 1, 1)]
    with pytest.raises(ValueError, match=r"groups that never met.*\(a, b \| c, d\)"):
        fit_ratings(results, prior_draws=1)
    assert player_groups(results) == [["a", "b"], ["c", "d"]]
    linked = [*results, PairResult("e", "c", 0, 0, 1), PairResult("e", "f", 1, 0, 0)]
    assert player_groups(linked) == [["c", "d", "e", "f"], ["a", "b"]]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings([PairResult("a", "b", 1, 0, 1)], anchor="z")
    with pytest.raises(ValueError, match="itself"):
        fit_ratings([PairResult("a", "a", 1, 0, 1)])
    with pytest.raises(ValueError, match="no games"):
        fit_ratings([PairResult("a", "b", 1, 0, 1)], players=["a", "b", "c"])


def test_table_rows_and_plot(tmp_path: Path) -> None:
    ratings = fit_ratings(THREE, anchor="gamma")
    rows = format_ratings(ratings)
    assert [row[1] for row in rows] == ["alpha", "beta", "gamma"]
    assert rows[-1][3] == "anchor" and rows[0][6].endswith("%")
    pytest.importorskip("matplotlib")
    path = tmp_path / "ratings.png"
    plot_ratings(ratings, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_elo_and_score_are_inverse() -> None:
    for diff in (-600.0, -35.5, 0.0, 120.0):
        assert elo_difference(expected_score(diff)) == pytest.approx(diff)
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf
    assert pytest.approx(173.7178, abs=1e-4) == ELO_PER_NAT
