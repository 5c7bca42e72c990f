"""A Gymnasium environment: the learner plays one colour of Go or Othello against an imago agent.

The opponent is any agent of :mod:`imago.agents.registry`, written as on the command line
(``random``, ``alphabeta:depth=4``, ``mcts:playouts=200``, ``policy:model=net.pt``, ``az``,
``gtp:command="gnugo --mode gtp"``), or an :class:`~imago.agents.base.Agent` object. Registered
with Gymnasium when :mod:`imago.envs` is imported::

    import gymnasium
    import imago.envs  # registers imago/Go-v0 and imago/Othello-v0

    env = gymnasium.make("imago/Othello-v0", size=6, opponent="alphabeta:depth=2")
    observation, info = env.reset(seed=0)
    action = policy(observation["observation"], observation["action_mask"])
    observation, reward, terminated, truncated, info = env.step(action)

The observation is a dict, as in PettingZoo's classic games: ``observation`` (the planes of an
:mod:`imago.nn.features` feature set, ``(planes, size, size)`` uint8) and ``action_mask``
(``size * size + 1`` int8, pass last); :meth:`GameEnv.action_masks` gives the mask as booleans
(the method maskable-PPO implementations call). The reward is +1 for a win, -1 for a loss, 0
for a draw or a game stopped by the move cap (``truncated``), given at the end; the opponent's
resignation is a win. An action the rules refuse loses the game at once (``illegal="lose"``,
the default, with ``info["illegal_action"]``) or raises :class:`IllegalMoveError` and changes
nothing (``illegal="raise"``); an action outside the action space is a ``ValueError``.
Needs the ``envs`` extra (``pip install imago[envs]``).
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from imago.agents.base import Agent, Limit
from imago.agents.registry import make_agent, parse_agent_spec
from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason
from imago.core.game import GameState
from imago.envs.config import EnvConfig
from imago.envs.render import Image, ansi, rgb

LEARNER_COLORS = ("black", "white", "random")
ILLEGAL_POLICIES = ("lose", "raise")
ENV_IDS = {"imago/Go-v0": "go", "imago/Othello-v0": "othello"}

Observation = dict[str, npt.NDArray[Any]]


class GameEnv(gymnasium.Env[Observation, np.int64]):
    """One game against an opponent agent (see the module docstring).

    ``game``, ``size``, ``rules``, ``komi``, ``max_moves`` and ``features`` are those of
    :meth:`EnvConfig.create` (or give ``config``). ``opponent`` is an agent spec or an agent;
    ``opponent_limit`` what it may think per move (default: ``time_per_move`` seconds, or the
    agent's own limit when that is ``None``). ``learner`` is the colour the learner plays:
    ``"black"``, ``"white"`` or ``"random"`` (drawn at each reset; ``reset(options={"learner":
    "white"})`` chooses for one game).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        game: str = "othello",
        *,
        size: int = 0,
        rules: str = "chinese",
        komi: float = 7.0,
        max_moves: int | None = None,
        features: str = "legal4",
        opponent: str | Agent = "random",
        opponent_limit: Limit | None = None,
        time_per_move: float | None = None,
        learner: str = "black",
        illegal: str = "lose",
        render_mode: str | None = None,
        config: EnvConfig | None = None,
    ) -> None:
        if learner not in LEARNER_COLORS:
            raise ValueError(f"learner must be one of {', '.join(LEARNER_COLORS)}")
        if illegal not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL_POLICIES)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError("render_mode must be ansi, rgb_array or None")
        self.config = config or EnvConfig.create(
            game, size=size, rules=rules, komi=komi, max_moves=max_moves, features=features
        )
        self.learner = learner
        self.illegal = illegal
        self.render_mode = render_mode
        self.opponent_limit = opponent_limit or Limit(time=time_per_move)
        self._spec = opponent if isinstance(opponent, str) else None
        self.opponent: Agent = self._make_opponent(None) if isinstance(opponent, str) else opponent
        n = self.config.num_actions
        self.observation_space = cast(
            "spaces.Space[Observation]",
            spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, self.config.observation_shape, dtype=np.uint8),
                    "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
                }
            ),
        )
        self.action_space = spaces.Discrete(n)
        self.game_state: GameState = self.config.new_state()
        self.color = Color.BLACK
        """The colour the learner plays in this game."""
        self._ended = True  # until the first reset

    # -- the Gymnasium API -----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game; the opponent moves first when the learner plays White. ``seed`` also
        re-seeds an opponent given by its spec (so its moves repeat)."""
        super().reset(seed=seed)
        choice = (options or {}).get("learner", self.learner)
        if choice not in LEARNER_COLORS:
            raise ValueError(f"learner must be one of {', '.join(LEARNER_COLORS)}")
        if choice == "random":
            choice = "black" if self.np_random.random() < 0.5 else "white"
        self.color = Color.BLACK if choice == "black" else Color.WHITE
        if seed is not None and self._spec is not None:
            self.opponent.close()
            self.opponent = self._make_opponent(int(self.np_random.integers(2**31)))
        else:
            self.opponent.reset()
        self.game_state = self.config.new_state()
        self._ended = False
        info: dict[str, Any] = {}
        if self.game_state.to_play != self.color:
            _, ended = self._opponent_moves(info)
            if ended:  # cannot happen at the start of a game, but say so if it did
                raise AssertionError("the game ended before the learner's first move")
        return self._observation(), self._info(info)

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The learner plays ``action``, then the opponent answers until it is the learner's
        turn again or the game ends."""
        index = int(action)
        if not self.action_space.contains(np.int64(index)):
            raise ValueError(f"action {action} is outside 0..{self.config.num_actions - 1}")
        if self._ended:
            raise IllegalMoveError(IllegalReason.GAME_OVER, "the episode has ended: reset()")
        info: dict[str, Any] = {}
        try:
            state = self.game_state.play_action(index)  # type: ignore[attr-defined]
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            info["illegal_action"] = True
            info["result"] = f"{self.color.opponent.letter}+F"
            return self._end(-1.0, True, info)
        self.game_state = state
        if state.is_over():
            return self._end(self._reward(), True, info)
        if self._capped():
            return self._end(0.0, False, info)
        reward, ended = self._opponent_moves(info)
        if not ended:
            return self._observation(), 0.0, False, False, self._info(info)
        resigned = "opponent_resigned" in info
        if resigned:
            info["result"] = f"{self.color.letter}+R"
        return self._end(reward, resigned or self.game_state.is_over(), info)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans."""
        state = self.game_state
        if self._ended or state.is_over() or state.to_play != self.color:
            return np.zeros(self.config.num_actions, dtype=np.bool_)
        return self.game_state.legal_mask()

    def render(self) -> str | Image | None:  # type: ignore[override]
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.render_mode == "ansi":
            return ansi(self.game_state)
        return rgb(self.game_state)

    def close(self) -> None:
        """Stop the opponent (an external engine's process)."""
        self.opponent.close()

    # -- internals -------------------------------------------------------------------------------
    def _end(
        self, reward: float, terminated: bool, info: dict[str, Any]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The episode's last step: terminated (the game ended) or truncated (the cap)."""
        self._ended = True
        return self._observation(), reward, terminated, not terminated, self._info(info)

    def _make_opponent(self, seed: int | None) -> Agent:
        assert self._spec is not None
        name, options = parse_agent_spec(self._spec)
        return make_agent(name, self.config.game, options, seed=seed)

    def _opponent_moves(self, info: dict[str, Any]) -> tuple[float, bool]:
        """Let the opponent play until the learner is to move; returns the learner's reward
        and whether the game ended (over, resigned, or stopped by the cap)."""
        while self.game_state.to_play != self.color:
            result = self.opponent.select_move(self.game_state, self.opponent_limit)
            move = result.move
            info["opponent_move"] = self.game_state.format_move(move)  # type: ignore[attr-defined]
            if move.is_resign:
                info["opponent_resigned"] = True
                return 1.0, True
            self.game_state = self.game_state.play(move)
            if self.game_state.is_over():
                return self._reward(), True
            if self._capped():
                return 0.0, True
        return 0.0, False

    def _capped(self) -> bool:
        cap = self.config.max_moves
        return cap is not None and self.game_state.move_number >= cap

    def _reward(self) -> float:
        outcome = self.game_state.outcome()
        if outcome is None or outcome.winner is None:
            return 0.0
        return 1.0 if outcome.winner == self.color else -1.0

    def _observation(self) -> Observation:
        mask = self.action_masks().astype(np.int8)
        return {
            "observation": self.config.observe_state(self.game_state, self.color),
            "action_mask": mask,
        }

    def _info(self, extra: dict[str, Any]) -> dict[str, Any]:
        info = {"learner": self.color.name.lower(), "move_number": self.game_state.move_number}
        outcome = self.game_state.outcome() if self.game_state.is_over() else None
        if outcome is not None:
            info["result"] = outcome.result()
        info.update(extra)
        return info


def register_envs() -> None:
    """Register ``imago/Go-v0`` and ``imago/Othello-v0`` with Gymnasium (idempotent)."""
    registry = gymnasium.envs.registration.registry
    for env_id, game in ENV_IDS.items():
        if env_id not in registry:
            gymnasium.register(
                id=env_id,
                entry_point="imago.envs.gymnasium_env:GameEnv",
                kwargs={"game": game},
                disable_env_checker=False,
            )
