"""The vector environment plays the same games as the rules' public API, position by position:
the same legal moves, the same feature planes as imago.nn.features gives a network, the same
results; games that end start again in the same step."""

from __future__ import annotations

import numpy as np
import pytest

from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason
from imago.core.game import GameState
from imago.envs import EnvConfig, VectorEnv, VectorStep
from imago.envs.vector import random_legal
from imago.nn.features import feature_set


def _check_position(step: VectorStep, i: int, state: GameState, features: str) -> None:
    planes = feature_set(features).encode_states([state])[0]
    assert (step.observation[i] == planes).all()
    assert (step.action_mask[i] == state.legal_mask()).all()
    assert step.to_play[i] == int(state.to_play)


@pytest.mark.parametrize(
    ("game", "size", "rules", "features"),
    [
        ("go", 5, "chinese", "legal4"),
        ("go", 5, "japanese", "history9"),  # territory scoring, simple ko, history planes
        ("go", 7, "aga", "stones2"),  # situational superko
        ("othello", 6, "chinese", "legal4"),
        ("othello", 8, "chinese", "minigo17"),
    ],
)
def test_games_agree_with_the_public_api(game: str, size: int, rules: str, features: str) -> None:
    n = 6
    env = VectorEnv(game, n, size=size, rules=rules, features=features, seed=1)
    config = env.config
    states = [config.new_state() for _ in range(n)]
    step = env.reset()
    finished = 0
    for _ in range(300 if game == "go" else 130):
        for i in range(n):
            _check_position(step, i, states[i], features)
        actions = env.random_actions()
        movers = step.to_play.copy()
        step = env.step(actions)
        for i in range(n):
            state = states[i].play_action(int(actions[i]))  # type: ignore[attr-defined]
            if not step.done[i]:
                assert step.rewards[i].tolist() == [0, 0]
                states[i] = state
                continue
            finished += 1
            assert step.lengths[i] == state.move_number
            if step.terminated[i]:
                outcome = state.outcome()
                assert outcome is not None
                black = (
                    0 if outcome.winner is None else (1 if outcome.winner is Color.BLACK else -1)
                )
                assert step.rewards[i].tolist() == [black, -black]
                assert np.sign(step.scores[i]) == black
                assert step.reward_of(movers)[i] == (black if movers[i] == 1 else -black)
            else:  # truncated at the move cap
                assert not state.is_over() and state.move_number == config.max_moves
                assert step.rewards[i].tolist() == [0, 0]
            states[i] = config.new_state()
    assert finished >= n


def test_the_move_cap_truncates_and_restarts() -> None:
    env = VectorEnv("go", 3, size=9, max_moves=4, seed=0)
    env.reset()
    for move in range(4):
        step = env.step(np.array([10 + move, 20 + move, 30 + move]))
    assert step.truncated.all() and not step.terminated.any()
    assert (step.rewards == 0).all() and (step.lengths == 4).all()
    assert (step.observation[:, :2] == 0).all()  # empty boards again
    assert (env.batch.moves == 0).all()


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    env = VectorEnv("go", 2, size=5, seed=0)
    env.reset()
    env.step(np.array([12, 12]))
    before = (env.batch.fulls.copy(), env.batch.boards.copy(), env.action_mask)
    with pytest.raises(IllegalMoveError, match="game 1") as error:
        env.step(np.array([0, 12]))  # game 1: the point is taken
    assert error.value.reason is IllegalReason.OCCUPIED
    assert (env.batch.fulls == before[0]).all() and (env.batch.boards == before[1]).all()
    assert (env.action_mask == before[2]).all()
    othello = VectorEnv("othello", 1, size=6)
    othello.reset()
    with pytest.raises(IllegalMoveError) as error:
        othello.step(np.array([36]))  # a pass while moves exist
    assert error.value.reason is IllegalReason.PASS_NOT_ALLOWED


def test_an_illegal_action_can_lose_the_game_instead() -> None:
    env = VectorEnv("othello", 2, size=6, illegal="lose", seed=0)
    step = env.reset()
    legal = int(np.flatnonzero(step.action_mask[1])[0])
    step = env.step(np.array([0, legal]))  # game 0: a corner that flips nothing
    assert step.illegal.tolist() == [True, False]
    assert step.terminated.tolist() == [True, False]
    assert step.rewards[0].tolist() == [-1, 1]  # Black chose it and lost
    assert env.batch.moves.tolist() == [0, 1]  # game 0 started again


@pytest.mark.parametrize(
    "actions", [np.array([0]), np.array([0, 99]), np.array([-1, 0]), np.array([0.0, 1.0])]
)
def test_malformed_actions_are_value_errors(actions: np.ndarray) -> None:
    env = VectorEnv("go", 2, size=9)
    env.reset()
    with pytest.raises(ValueError):
        env.step(actions)
    assert (env.batch.moves == 0).all()


def test_random_actions_are_legal_and_repeat_with_the_seed() -> None:
    runs = []
    for _ in range(2):
        env = VectorEnv("othello", 64, size=8, seed=7)
        step = env.reset()
        taken = []
        for _ in range(70):
            actions = env.random_actions()
            assert step.action_mask[np.arange(64), actions].all()
            taken.append(actions)
            step = env.step(actions)
        runs.append(np.stack(taken))
    assert (runs[0] == runs[1]).all()
    spread = np.bincount(runs[0][0], minlength=65)  # the 4 opening moves, all used
    assert (spread[[19, 26, 37, 44]] > 5).all()


class _Draws:
    """A stand-in generator whose ``random(n)`` returns the given draws."""

    def __init__(self, draws: list[float]) -> None:
        self.draws = np.array(draws)

    def random(self, n: int) -> np.ndarray:
        assert n == len(self.draws)
        return self.draws


# One row per case: the row's legal columns, the uniform draw, the column picked (the
# floor(draw * k)-th legal one of k).
PICKS = [
    ("three legal, low draw", [3, 7, 11], 0.0, 3),
    ("three legal, middle draw", [3, 7, 11], 0.34, 7),
    ("three legal, high draw", [3, 7, 11], 0.999, 11),
    ("pass only", [12], 0.5, 12),
    ("nothing legal", [], 0.5, 0),
]


def test_random_legal_picks_the_draws_share_of_the_legal_columns() -> None:
    mask = np.zeros((len(PICKS), 13), dtype=np.bool_)
    for row, (_, legal, _, _) in enumerate(PICKS):
        mask[row, legal] = True
    picked = random_legal(mask, _Draws([case[2] for case in PICKS]))  # type: ignore[arg-type]
    assert {case[0]: int(p) for case, p in zip(PICKS, picked, strict=True)} == {
        case[0]: case[3] for case in PICKS
    }


def test_config_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="feature set"):
        EnvConfig.create("go", features="nope")
    with pytest.raises(ValueError, match="rules"):
        EnvConfig.create("go", rules="nope")
    with pytest.raises(ValueError):
        EnvConfig.create("othello", size=7)
    with pytest.raises(ValueError, match="unknown game"):
        EnvConfig.create("chess")
    with pytest.raises(ValueError, match="illegal"):
        VectorEnv("go", 2, illegal="ignore")


def test_render_shows_one_game() -> None:
    env = VectorEnv("go", 2, size=5)
    env.reset()
    env.step(np.array([12, 0]))
    text = env.render(0)
    assert isinstance(text, str) and "(X)" in text and "White to play, move 1" in text
    image = env.render(1, "rgb_array")
    assert isinstance(image, np.ndarray) and image.shape == (5 * 32 + 32, 5 * 32 + 32, 3)


def test_observations_become_torch_tensors_without_a_copy() -> None:
    torch = pytest.importorskip("torch")
    env = VectorEnv("othello", 4, size=6)
    step = env.reset()
    tensor = torch.from_numpy(step.observation)
    assert tensor.data_ptr() == step.observation.ctypes.data
    mask = torch.from_numpy(step.action_mask)
    assert mask.dtype == torch.bool and mask.shape == (4, 37)
