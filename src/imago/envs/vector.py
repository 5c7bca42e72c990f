"""A batched (vector) environment: N games of Go or Othello stepped together, in numpy.

The games are a :class:`~imago.games.go.batch.GoBatch` or
:class:`~imago.games.othello.batch.OthelloBatch` (the one machinery that self-play and the
search also step), so a step is one numba loop over the games; the observations are the planes
of a feature set of :mod:`imago.nn.features`, exactly what imago's network agents read. Both
players act through the same environment (self-play), as in pgx: every step takes one action
per game, for whichever colour is to move there::

    env = VectorEnv("othello", 1024, size=6, features="legal4", seed=0)
    step = env.reset()
    while training:
        actions = policy(step.observation, step.action_mask)   # (1024,) action indices
        movers = step.to_play                                   # who played them
        step = env.step(actions)
        step.reward_of(movers)           # +1 / -1 / 0 where a game just ended, else 0

A game that ends is started again in the same step (auto-reset): ``terminated`` (the rules
ended it) or ``truncated`` (the move cap stopped it) says so, ``rewards`` and ``scores`` are
that game's result, and ``observation`` / ``action_mask`` / ``to_play`` already show the new
game, so every game always has a move to make.

The arrays are numpy arrays made afresh each step (nothing is overwritten later), so
``torch.from_numpy(step.observation)`` is a tensor over the same memory, without a copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from imago.core.errors import IllegalMoveError
from imago.core.game import GameState
from imago.envs._kernels import pick_true
from imago.envs.config import Batch, EnvConfig
from imago.envs.render import Image, ansi, rgb
from imago.games.go.batch import GoBatch

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
ILLEGAL_POLICIES = ("raise", "lose")


@dataclass(frozen=True, slots=True)
class VectorStep:
    """What every game shows after a reset or a step (arrays of ``num_envs`` rows)."""

    observation: npt.NDArray[np.uint8]
    """``(n, planes, size, size)``: the feature planes of the position to move in."""
    action_mask: BoolArray
    """``(n, size * size + 1)``: the legal actions there (pass last)."""
    to_play: npt.NDArray[np.int8]
    """``(n,)``: the colour to move (1 black, 2 white)."""
    rewards: npt.NDArray[np.float32]
    """``(n, 2)``: this step's reward to Black (column 0) and White (column 1): +1 to the winner
    and -1 to the loser of a game that just ended, 0 for a draw, a truncation and otherwise."""
    terminated: BoolArray
    """``(n,)``: a game ended by the rules on this step (and a new one started)."""
    truncated: BoolArray
    """``(n,)``: a game reached the move cap on this step (and a new one started)."""
    scores: npt.NDArray[np.float64]
    """``(n,)``: Black's lead (points with komi, or discs) in the games that just ended, else 0."""
    lengths: IntArray
    """``(n,)``: how many moves the games that just ended lasted, else 0."""
    illegal: BoolArray
    """``(n,)``: with ``illegal="lose"``, the games lost on this step by an illegal action."""

    @property
    def done(self) -> BoolArray:
        """``terminated | truncated``."""
        return self.terminated | self.truncated

    def reward_of(self, colors: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """``(n,)``: each game's reward to the colour given for it (1 black, 2 white), e.g.
        to the players who made the step's moves (the previous step's ``to_play``)."""
        index = np.asarray(colors, dtype=np.int64) - 1
        return self.rewards[np.arange(len(index)), index]


def random_legal(mask: BoolArray, rng: np.random.Generator) -> IntArray:
    """One uniformly random ``True`` column of every row of ``mask`` (rows with none: 0)."""
    out = np.empty(mask.shape[0], dtype=np.int64)
    pick_true(mask, rng.random(int(mask.shape[0])), out)
    return out


class VectorEnv:
    """``num_envs`` games of one kind, stepped together (see the module docstring).

    ``game``, ``size``, ``rules``, ``komi``, ``max_moves`` and ``features`` are those of
    :meth:`EnvConfig.create` (or give ``config``). ``illegal`` says what an action the rules
    refuse does: ``"raise"`` an :class:`IllegalMoveError` naming the game, nothing stepped; or
    ``"lose"``: that game ends at once, lost by the player who chose it. ``seed`` seeds
    :meth:`random_actions`.
    """

    def __init__(
        self,
        game: str = "go",
        num_envs: int = 1024,
        *,
        size: int = 0,
        rules: str = "chinese",
        komi: float = 7.0,
        max_moves: int | None = None,
        features: str = "legal4",
        illegal: str = "raise",
        seed: int | None = None,
        config: EnvConfig | None = None,
    ) -> None:
        if illegal not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL_POLICIES)}")
        if num_envs < 1:
            raise ValueError("a vector environment needs at least one game")
        self.config = config or EnvConfig.create(
            game, size=size, rules=rules, komi=komi, max_moves=max_moves, features=features
        )
        self.illegal = illegal
        self.batch: Batch = self.config.new_batch(num_envs)
        self._scoring = self.config.go_rules().scoring if self.config.game == "go" else None
        self._rng = np.random.default_rng(seed)
        self._mask = self.batch.legal_mask()
        self._rows = np.arange(num_envs)

    # -- what it is ------------------------------------------------------------------------------
    @property
    def num_envs(self) -> int:
        return self.batch.n

    @property
    def num_actions(self) -> int:
        return self.config.num_actions

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return self.config.observation_shape

    @property
    def action_mask(self) -> BoolArray:
        """The legal actions of every game now (a copy)."""
        return self._mask.copy()

    # -- stepping --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> VectorStep:
        """Start every game again (``seed`` re-seeds :meth:`random_actions`)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.batch.reset()
        n = self.num_envs
        return self._observe(
            np.zeros((n, 2), dtype=np.float32),
            np.zeros(n, dtype=np.bool_),
            np.zeros(n, dtype=np.bool_),
            np.zeros(n, dtype=np.float64),
            np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.bool_),
        )

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """Play one action in every game (for the colour to move there), start the games that
        end again, and show them all (see :class:`VectorStep`).

        ``actions`` are ``num_envs`` integers in ``0 .. size * size`` (pass last). An action
        outside that range is a ``ValueError``; one the rules refuse follows ``illegal``. On
        an error nothing has changed.
        """
        acts = self._check_actions(actions)
        illegal = ~self._mask[self._rows, acts]
        if illegal.any() and self.illegal == "raise":
            self._raise_illegal(int(np.flatnonzero(illegal)[0]), acts)
        batch = self.batch
        n = self.num_envs
        movers = batch.to_play()
        status = batch.step(acts, ~illegal)
        if (status[~illegal] != 0).any():  # the mask and the rules disagree: a bug, say so
            raise AssertionError(f"the batch refused legal actions: {status[~illegal]}")
        if illegal.any():
            batch.done[illegal] = True
        ended = np.flatnonzero(batch.done)
        rewards = np.zeros((n, 2), dtype=np.float32)
        terminated = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        scores = np.zeros(n, dtype=np.float64)
        lengths = np.zeros(n, dtype=np.int64)
        if ended.size:
            over = batch.over()[ended] | illegal[ended]
            terminated[ended] = over
            truncated[ended] = ~over
            lengths[ended] = batch.moves[ended]
            scored = ended[over & ~illegal[ended]]
            if scored.size:
                scores[scored] = self._scores(scored)
            black = np.sign(scores).astype(np.float32)
            lost = np.flatnonzero(illegal)
            black[lost] = np.where(movers[lost] == 1, -1.0, 1.0)
            rewards[ended, 0] = black[ended]
            rewards[ended, 1] = -black[ended]
            batch.reset(ended)
        return self._observe(rewards, terminated, truncated, scores, lengths, illegal)

    def random_actions(self) -> IntArray:
        """A uniformly random legal action in every game (from the environment's seeded
        generator)."""
        if isinstance(self.batch, GoBatch):  # read off the legal lists: the same draws, picks
            return self.batch.random_legal(self._rng.random(self.num_envs))
        return random_legal(self._mask, self._rng)

    def observe(self) -> npt.NDArray[np.uint8]:
        """The feature planes of every game now."""
        return self.config.observe_batch(self.batch, self._mask)

    # -- looking at one game ---------------------------------------------------------------------
    def state(self, index: int) -> GameState:
        """Game ``index`` as a game state (without its earlier positions)."""
        batch = self.batch
        return batch.position(index) if batch.game == "go" else batch.state(index)  # type: ignore[union-attr]

    def render(self, index: int = 0, mode: str = "ansi") -> str | Image:
        """Game ``index`` as text (``"ansi"``) or an RGB image (``"rgb_array"``)."""
        if mode == "ansi":
            return ansi(self.state(index))
        if mode == "rgb_array":
            return rgb(self.state(index))
        raise ValueError(f"render mode must be ansi or rgb_array, not {mode!r}")

    # -- internals -------------------------------------------------------------------------------
    def _observe(
        self,
        rewards: npt.NDArray[np.float32],
        terminated: BoolArray,
        truncated: BoolArray,
        scores: npt.NDArray[np.float64],
        lengths: IntArray,
        illegal: BoolArray,
    ) -> VectorStep:
        self._mask = self.batch.legal_mask()
        return VectorStep(
            observation=self.config.observe_batch(self.batch, self._mask),
            action_mask=self._mask.copy(),
            to_play=self.batch.to_play().astype(np.int8),
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            scores=scores,
            lengths=lengths,
            illegal=illegal,
        )

    def _scores(self, indices: IntArray) -> npt.NDArray[np.float64]:
        batch = self.batch
        if batch.game == "go" and self._scoring is not None:
            return batch.scores(indices, scoring=self._scoring)  # type: ignore[call-arg]
        return batch.scores(indices)

    def _check_actions(self, actions: npt.ArrayLike) -> IntArray:
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {acts.shape}")
        if acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, not {acts.dtype}")
        acts = acts.astype(np.int64, copy=False)
        bad = (acts < 0) | (acts >= self.num_actions)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"game {i}: action {int(acts[i])} is outside 0..{self.num_actions - 1}"
            )
        return acts

    def _raise_illegal(self, index: int, actions: IntArray) -> None:
        """Raise the rules' own error for game ``index``'s action, naming the game."""
        try:
            self.state(index).play_action(int(actions[index]))  # type: ignore[attr-defined]
        except IllegalMoveError as error:
            raise IllegalMoveError(error.reason, f"game {index}: {error.move_text}") from None
        raise AssertionError(f"game {index}: the mask refused a move the rules allow")
