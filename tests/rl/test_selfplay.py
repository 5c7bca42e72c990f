"""Self-play: complete legal games, examples that say what the search saw, resignation."""

from __future__ import annotations

import numpy as np
import pytest

from imago.agents.mcts import Evaluation, LeafBatch, UniformEvaluator
from imago.core.move import Move
from imago.games import make
from imago.rl.selfplay import FinishedGame, GameSpec, SelfPlay, SelfPlayConfig


def _replay(spec: GameSpec, record: FinishedGame) -> object:
    """The game replayed through the public rules (every move checked)."""
    options = {"size": spec.size}
    if spec.game == "go":
        options["rules"] = spec.go_rules()  # type: ignore[assignment]
    state = make(spec.game, **options)
    for action in record.actions:
        state = state.play(Move.from_action(action, spec.size))
    return state


@pytest.mark.parametrize(
    ("spec", "rule"),
    [
        (GameSpec("othello", 6), "gumbel"),
        (GameSpec("othello", 6), "puct"),
        (GameSpec("go", 5, komi=0.5), "gumbel"),
        (GameSpec("go", 5, komi=0.5), "puct"),
    ],
)
def test_games_are_legal_complete_and_teach_what_the_search_found(
    spec: GameSpec, rule: str
) -> None:
    config = SelfPlayConfig(parallel=6, simulations=12, considered=4, rule=rule, max_moves=60)
    play = SelfPlay(spec, UniformEvaluator(), config, seed=1)
    games: list[FinishedGame] = []
    stats = play.play(8, games.append)
    assert len(games) >= 8 and stats.games == len(games)
    for record in games:
        final = _replay(spec, record)
        assert final.is_over() or len(record.actions) >= config.max_moves  # type: ignore[attr-defined]
        if final.is_over() and spec.game == "othello":  # type: ignore[attr-defined]
            outcome = final.outcome()  # type: ignore[attr-defined]
            assert record.winner == (0 if outcome.winner is None else int(outcome.winner))
            black_lead = (outcome.black_score or 0.0) - (outcome.white_score or 0.0)
            assert record.margin_for(1, 36) == pytest.approx(black_lead / 36)
            assert record.margin_for(2, 36) == pytest.approx(-black_lead / 36)
        assert len(record.targets) == record.full_searches
        assert record.full_searches + record.fast_searches == len(record.actions)
        for move, chosen, legal, target in zip(
            record.example_moves, record.example_actions, record.legal, record.targets, strict=True
        ):
            assert target.sum() == pytest.approx(1.0, abs=1e-5)
            assert (target[~legal] == 0).all()  # only legal moves
            assert legal[chosen] and chosen == record.actions[move]
        assert set(record.to_play) <= {1, 2}
    assert stats.evaluations > 0 and stats.examples == sum(len(g.targets) for g in games)


@pytest.mark.parametrize(
    ("winner", "score", "resigned", "color", "area", "margin"),
    [
        # a counted game: Black's lead over the board's area, for each side
        (1, 20.0, 0, 1, 36, 20 / 36),
        (1, 20.0, 0, 2, 36, -20 / 36),
        (2, -7.0, 0, 2, 81, 7 / 81),
        (0, 0.0, 0, 1, 64, 0.0),
        # a Go lead larger than the board (komi, captures under territory rules) is clipped
        (1, 90.0, 0, 1, 81, 1.0),
        (1, 90.0, 0, 2, 81, -1.0),
        # a resignation counts as the largest loss for the side that resigned
        (1, 0.0, 2, 1, 81, 1.0),
        (1, 0.0, 2, 2, 81, -1.0),
    ],
)
def test_a_games_margin_for_each_side(
    winner: int, score: float, resigned: int, color: int, area: int, margin: float
) -> None:
    record = FinishedGame(0, [], winner, score, resigned)
    assert record.margin_for(color, area) == pytest.approx(margin)
    assert np.sign(record.margin_for(color, area)) == record.outcome_for(color)


def test_fast_searches_move_the_game_on_without_teaching() -> None:
    config = SelfPlayConfig(
        parallel=4, simulations=16, fast_simulations=4, full_fraction=0.25, considered=4
    )
    play = SelfPlay(GameSpec("othello", 6), UniformEvaluator(), config, seed=2)
    games: list[FinishedGame] = []
    play.play(6, games.append)
    full = sum(g.full_searches for g in games)
    fast = sum(g.fast_searches for g in games)
    assert full == sum(len(g.targets) for g in games)
    assert fast > full  # about three fast searches for each full one
    assert full + fast == sum(len(g.actions) for g in games)


class _Gloomy:
    """Every position looks lost for White (the value for the player to move)."""

    history = 1
    needs_states = False

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        priors = leaves.legal[:count].astype(np.float64)
        priors /= priors.sum(axis=1, keepdims=True)
        values = np.where(leaves.to_play[:count] == 2, 0.02, 0.98)
        return Evaluation(values, priors)


def test_resignation_and_its_check_games() -> None:
    config = SelfPlayConfig(
        parallel=8, simulations=8, considered=4, resign=0.1, resign_check_fraction=0.5
    )
    play = SelfPlay(GameSpec("othello", 6), _Gloomy(), config, seed=3)
    games: list[FinishedGame] = []
    stats = play.play(16, games.append)
    resigned = [g for g in games if g.resigned]
    assert resigned and all(g.resigned == 2 and g.winner == 1 for g in resigned)
    assert stats.resignations == len(resigned)
    assert stats.checked_resignations > 0  # some games played on to see
    assert 0 <= stats.false_resignations <= stats.checked_resignations
    played_out = [g for g in games if not g.resigned]
    assert played_out and all(_replay(play.spec, g).is_over() for g in played_out)  # type: ignore[attr-defined]
    # a resigned game's last example (the move never played) still becomes a training example
    from imago.nn.features import feature_set
    from imago.rl.examples import game_arrays

    for record in resigned:
        arrays, _ = game_arrays(record, feature_set("legal4"), play.spec, {})
        assert len(arrays) == len(record.targets)
        assert record.to_play[-1] == record.resigned and arrays.value[-1] == -1  # it lost
        assert list(arrays.policy) == record.example_actions


def test_a_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="gumbel or puct"):
        SelfPlayConfig(rule="ucb")
    with pytest.raises(ValueError, match="at least 2"):
        SelfPlayConfig(simulations=1)
    with pytest.raises(ValueError, match="does not know"):
        GameSpec("chess", 8).new_batch(1, 1, 0)
