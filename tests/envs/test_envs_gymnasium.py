"""The Gymnasium environment passes Gymnasium's env checker, is registered under its ids, and
plays real games against imago's agents and an external GTP engine."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import imago.envs  # noqa: E402, F401  (registers the ids)
from imago.core.color import Color  # noqa: E402
from imago.core.errors import IllegalMoveError  # noqa: E402
from imago.envs.gymnasium_env import GameEnv  # noqa: E402


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("imago/Othello-v0", {}),
        ("imago/Othello-v0", {"learner": "white", "opponent": "alphabeta:depth=1"}),
        ("imago/Othello-v0", {"size": 6, "learner": "random", "opponent": "mcts:playouts=16"}),
        ("imago/Go-v0", {"size": 9, "learner": "random"}),
        ("imago/Go-v0", {"size": 5, "rules": "japanese", "komi": 0.5, "features": "minigo17"}),
    ],
)
def test_gymnasium_env_checker(env_id: str, options: dict[str, Any]) -> None:
    env = gymnasium.make(env_id, **options)
    check_env(env.unwrapped)
    env.close()


def _play(env: Any, seed: int) -> tuple[float, bool, bool, dict[str, Any], list[int]]:
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    actions = []
    while True:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        actions.append(action)
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return reward, terminated, truncated, info, actions


def test_a_game_against_an_agent_ends_with_the_rules_result() -> None:
    env = gymnasium.make("imago/Othello-v0", size=6, opponent="random", learner="white")
    reward, terminated, _, info, _ = _play(env, seed=4)
    state = env.unwrapped.game_state
    outcome = state.outcome()
    assert terminated and outcome is not None and info["result"] == outcome.result()
    expected = 0 if outcome.winner is None else (1 if outcome.winner is Color.WHITE else -1)
    assert reward == expected


def test_the_opponent_opens_when_the_learner_plays_white() -> None:
    env = GameEnv("go", size=9, learner="white")
    observation, info = env.reset(seed=1)
    assert env.game_state.move_number == 1 and "opponent_move" in info
    assert observation["action_mask"].sum() == 81  # 80 points + pass
    env.reset(options={"learner": "black"})
    assert env.game_state.move_number == 0 and env.color is Color.BLACK


def test_seeded_games_repeat() -> None:
    runs = [_play(GameEnv("othello", size=6, opponent="random"), seed=9) for _ in range(2)]
    assert runs[0][4] == runs[1][4] and runs[0][0] == runs[1][0]


def test_illegal_actions() -> None:
    env = GameEnv("othello", size=8)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)  # flips nothing: lost
    assert terminated and reward == -1 and info["illegal_action"] and info["result"] == "W+F"
    with pytest.raises(IllegalMoveError):
        env.step(19)  # the episode is over until reset
    strict = GameEnv("othello", size=8, illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalMoveError):
        strict.step(0)
    assert strict.game_state.move_number == 0
    with pytest.raises(ValueError):
        strict.step(65)


def test_the_move_cap_truncates() -> None:
    env = GameEnv("go", size=9, max_moves=4)
    observation, _ = env.reset(seed=0)
    truncated = False
    for _ in range(2):
        action = int(np.flatnonzero(observation["action_mask"][:-1])[0])
        observation, reward, terminated, truncated, _ = env.step(action)
    assert truncated and not terminated and reward == 0


@pytest.mark.engine
def test_an_external_gtp_engine_as_the_opponent(gnugo: str) -> None:
    env = GameEnv("go", size=9, max_moves=6, opponent=f'gtp:command="{gnugo} --mode gtp --level 1"')
    try:
        observation, _ = env.reset(seed=0)
        for _ in range(3):
            action = int(np.flatnonzero(observation["action_mask"][:-1])[0])
            observation, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        assert env.game_state.move_number == 6 and truncated  # GNU Go answered every move
        assert "opponent_move" in info
    finally:
        env.close()


def test_render_modes() -> None:
    env = GameEnv("othello", size=6, render_mode="ansi")
    env.reset(seed=0)
    assert "Black to play" in str(env.render())
    image = GameEnv("go", size=9, render_mode="rgb_array")
    image.reset(seed=0)
    assert image.render().shape == (320, 320, 3)  # type: ignore[union-attr]
