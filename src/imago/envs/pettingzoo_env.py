"""A PettingZoo AEC environment for Go (every size, rule presets, komi) and Othello (8x8, 6x6).

Shaped like PettingZoo's classic games (``go_v5``, ``chess_v6``): agents ``black_0`` and
``white_0`` move in turn; an observation is a dict with ``observation`` (the planes of an
:mod:`imago.nn.features` feature set, ``(planes, size, size)`` uint8, from that agent's side)
and ``action_mask`` (``size * size + 1`` int8, pass last; all zero for the agent not to move);
the rewards come at the end (+1 the winner, -1 the loser, 0 a draw), and a game that reaches
the move cap is truncated with no reward. ``render_mode`` ``"ansi"`` returns the board as
text, ``"rgb_array"`` an image::

    from imago.envs import pettingzoo_env

    env = pettingzoo_env.env(game="go", size=9, rules="japanese", komi=6.5)
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(observation)
        env.step(action)

:func:`env` wraps the raw environment in PettingZoo's usual wrappers (an illegal action ends
the game with -1 for the player who chose it; actions outside the action space are refused);
:func:`raw_env` alone raises :class:`~imago.core.errors.IllegalMoveError` for an illegal action
and changes nothing. Needs the ``envs`` extra (``pip install imago[envs]``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.agent_selector import AgentSelector

from imago.core.color import Color
from imago.core.game import GameState
from imago.envs.config import EnvConfig
from imago.envs.render import Image, ansi, rgb

AGENTS = ("black_0", "white_0")
COLORS = {"black_0": Color.BLACK, "white_0": Color.WHITE}
RENDER_MODES = ("ansi", "rgb_array")

Observation = dict[str, npt.NDArray[Any]]


def env(**kwargs: Any) -> AECEnv:
    """The environment in PettingZoo's standard wrappers (see the module docstring); keywords
    are :class:`GameAECEnv`'s."""
    wrapped: AECEnv = GameAECEnv(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def raw_env(**kwargs: Any) -> GameAECEnv:
    """The environment without wrappers."""
    return GameAECEnv(**kwargs)


class GameAECEnv(AECEnv):  # type: ignore[misc]
    """Go or Othello as a PettingZoo AEC environment (see the module docstring).

    ``game``, ``size``, ``rules``, ``komi``, ``max_moves`` and ``features`` are those of
    :meth:`EnvConfig.create` (or give ``config``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "render_modes": list(RENDER_MODES),
        "name": "imago_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    agent_selection: str
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    rewards: dict[str, float]
    _cumulative_rewards: dict[str, float]
    infos: dict[str, dict[str, Any]]

    def __init__(
        self,
        game: str = "go",
        *,
        size: int = 0,
        rules: str = "chinese",
        komi: float = 7.0,
        max_moves: int | None = None,
        features: str = "legal4",
        render_mode: str | None = None,
        config: EnvConfig | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None")
        self.config = config or EnvConfig.create(
            game, size=size, rules=rules, komi=komi, max_moves=max_moves, features=features
        )
        self.metadata = {**self.metadata, "name": f"imago_{self.config.game}_v0"}
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        n = self.config.num_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, self.config.observation_shape, dtype=np.uint8),
                    "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(n) for agent in AGENTS}
        self.game_state: GameState = self.config.new_state()
        self._selector = AgentSelector(self.agents)
        self._observations: dict[str, Observation] = {}
        self._start()

    # -- the AEC API -----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. The rules have no chance in them; ``seed`` seeds the action spaces
        (and ``np_random``) so that sampled actions repeat."""
        if seed is not None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
        self.game_state = self.config.new_state()
        self._start()

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation of the position now (computed once per position)."""
        cached = self._observations.get(agent)
        if cached is None:
            state = self.game_state
            color = COLORS[agent]
            if color == state.to_play and not state.is_over():
                legal = state.legal_mask()
                observation = self.config.observe_state(state, color, legal)
                mask = legal.astype(np.int8)
            else:
                observation = self.config.observe_state(state, color)
                mask = np.zeros(self.config.num_actions, dtype=np.int8)
            cached = {"observation": observation, "action_mask": mask}
            self._observations[agent] = cached
        return cached

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play ``action`` for the agent to move; ``None`` for an agent that is done."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: the action may not be None")
        index = int(action)
        if not 0 <= index < self.config.num_actions:
            raise ValueError(f"action {index} is outside 0..{self.config.num_actions - 1}")
        state = self.game_state.play_action(index)  # type: ignore[attr-defined]
        self.game_state = state
        self._observations = {}
        self._cumulative_rewards[agent] = 0
        if state.is_over():
            self._finish(state)
        elif self.config.max_moves is not None and state.move_number >= self.config.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self._selector.next()
        self._accumulate_rewards()

    def render(self) -> str | Image | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.render_mode == "ansi":
            return ansi(self.game_state)
        return rgb(self.game_state)

    def close(self) -> None:
        """Nothing to release (no window, no process)."""

    # -- internals -------------------------------------------------------------------------------
    def _start(self) -> None:
        self.agents = list(AGENTS)
        self._selector.reinit(self.agents)
        self.agent_selection = self._selector.reset()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._observations = {}

    def _finish(self, state: GameState) -> None:
        outcome = state.outcome()
        winner = None if outcome is None else outcome.winner
        for agent in self.agents:
            color = COLORS[agent]
            self.rewards[agent] = 0.0 if winner is None else (1.0 if winner == color else -1.0)
            self.infos[agent] = {"result": "" if outcome is None else outcome.result()}
        self.terminations = dict.fromkeys(self.agents, True)
