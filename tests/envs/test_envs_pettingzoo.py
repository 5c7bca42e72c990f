"""The PettingZoo AEC environment passes PettingZoo's own API and seed tests, and plays the
rules' games: observations are imago.nn.features planes, rewards the rules' results."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from imago.core.color import Color
from imago.core.errors import IllegalMoveError
from imago.envs import pettingzoo_env
from imago.nn.features import Positions, feature_set, positions_from_states

CONFIGS: list[dict[str, Any]] = [
    {"game": "go", "size": 9},
    {"game": "go", "size": 5, "rules": "japanese", "komi": 0.5, "max_moves": 30},
    {"game": "go", "size": 19, "rules": "tromp-taylor", "features": "minigo17"},
    {"game": "othello", "size": 8},
    {"game": "othello", "size": 6, "features": "history9"},
]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(map(str, o.values())))
def test_pettingzoo_api_and_seed_tests(options: dict[str, Any]) -> None:
    api_test(pettingzoo_env.env(**options), num_cycles=200)
    seed_test(lambda: pettingzoo_env.env(**options), num_cycles=50)


@pytest.mark.parametrize(("game", "size"), [("go", 7), ("othello", 6)])
def test_a_game_follows_the_rules_to_its_result(game: str, size: int) -> None:
    env = pettingzoo_env.raw_env(game=game, size=size, features="history9", max_moves=10_000)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    state = env.config.new_state()
    features = feature_set("history9")
    agents_seen = []
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            outcome = state.outcome()
            assert outcome is not None and info["result"] == outcome.result()
            color = pettingzoo_env.COLORS[agent]
            expected = 0 if outcome.winner is None else (1 if outcome.winner == color else -1)
            assert reward == expected
            env.step(None)
            continue
        agents_seen.append(agent)
        assert pettingzoo_env.COLORS[agent] == state.to_play
        assert (observation["observation"] == features.encode_states([state])[0]).all()
        assert (observation["action_mask"] == state.legal_mask()).all()
        other = "white_0" if agent == "black_0" else "black_0"
        seen_by_other = env.observe(other)
        assert not seen_by_other["action_mask"].any()
        positions = positions_from_states([state], features.history)
        as_other = Positions(
            positions.boards,
            np.array([int(state.to_play.opponent)], dtype=np.int8),
            np.zeros_like(positions.legal),
        )
        assert (seen_by_other["observation"] == features.encode(as_other)[0]).all()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        state = state.play_action(action)  # type: ignore[attr-defined]
    assert state.is_over() and not env.agents
    assert agents_seen[:2] == ["black_0", "white_0"]


def test_the_move_cap_truncates_without_reward() -> None:
    env = pettingzoo_env.raw_env(game="go", size=9, max_moves=3)
    env.reset()
    for action in (40, 41, 42):
        env.step(action)
    _, reward, termination, truncation, _ = env.last()
    assert truncation and not termination and reward == 0
    assert all(env.truncations.values())


def test_an_illegal_action_raises_in_the_raw_env_and_loses_in_the_wrapped_one() -> None:
    raw = pettingzoo_env.raw_env(game="othello", size=8)
    raw.reset()
    with pytest.raises(IllegalMoveError):
        raw.step(0)  # a corner that flips nothing
    assert raw.agent_selection == "black_0" and raw.game_state.move_number == 0
    with pytest.raises(ValueError):
        raw.step(65)
    wrapped = pettingzoo_env.env(game="othello", size=8)
    wrapped.reset()
    wrapped.step(0)
    _, reward, termination, _, _ = wrapped.last()
    assert termination and reward == -1  # black_0 chose it


def test_render_modes() -> None:
    env = pettingzoo_env.raw_env(game="go", size=9, render_mode="ansi")
    env.reset()
    env.step(40)
    text = env.render()
    assert isinstance(text, str) and "(X)" in text and "White to play" in text
    image_env = pettingzoo_env.raw_env(game="othello", size=6, render_mode="rgb_array")
    image_env.reset()
    image = image_env.render()
    assert isinstance(image, np.ndarray) and image.shape == (6 * 32 + 32, 6 * 32 + 32, 3)
    with pytest.raises(ValueError):
        pettingzoo_env.raw_env(render_mode="human")


def test_komi_and_rules_reach_the_game() -> None:
    env = pettingzoo_env.raw_env(game="go", size=9, rules="japanese", komi=0.5)
    rules = env.game_state.rules  # type: ignore[attr-defined]
    assert rules.komi == 0.5 and rules.ko.name == "SIMPLE"
    assert env.game_state.to_play is Color.BLACK
