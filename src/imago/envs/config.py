"""What an environment plays and how it shows a position: the game settings and a feature set.

The game is an :class:`imago.arena.game.GameSettings` (game, board size, Go rule preset, komi,
move cap: the same settings a match uses), and observations are the planes of one of
:mod:`imago.nn.features`' feature sets, computed by its own encoders, so a network trained in
an environment reads exactly what the ``policy`` and ``az`` agents give it in ``imago play``,
``imago gtp`` and ``imago match``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from imago.arena.game import GameSettings
from imago.core.color import Color
from imago.core.game import GameState
from imago.games.go import GoRules
from imago.games.go.batch import GoBatch
from imago.games.othello.batch import OthelloBatch
from imago.nn.features import FeatureSet, Planes, Positions, feature_set, positions_from_states

Batch = GoBatch | OthelloBatch


@dataclass(frozen=True, slots=True)
class EnvConfig:
    """A game (board size, rules, komi, move cap) and the feature set observations use."""

    settings: GameSettings
    features: FeatureSet

    @classmethod
    def create(
        cls,
        game: str = "go",
        *,
        size: int = 0,
        rules: str = "chinese",
        komi: float = 7.0,
        max_moves: int | None = None,
        features: str = "legal4",
    ) -> EnvConfig:
        """Settings from keywords, checked at once: ``size`` 0 is the game's usual board (9x9 Go,
        8x8 Othello); ``rules`` a Go preset (:meth:`GoRules.preset`) and ``komi`` apply to Go
        only; ``max_moves`` caps a game (default ``3 * size * size`` for Go, none for Othello);
        ``features`` names a feature set of :mod:`imago.nn.features`."""
        if max_moves is not None and max_moves < 1:
            raise ValueError("max_moves must be positive")
        settings = GameSettings(game=game, size=size, komi=komi, rules=rules, max_moves=max_moves)
        config = cls(settings, feature_set(features, game))
        config.new_state()  # rejects a board size or rule preset the game does not have
        return config

    # -- what it is ------------------------------------------------------------------------------
    @property
    def game(self) -> str:
        return self.settings.game

    @property
    def size(self) -> int:
        return self.settings.size

    @property
    def num_actions(self) -> int:
        """``size * size + 1``: every point, then pass."""
        return self.size * self.size + 1

    @property
    def max_moves(self) -> int | None:
        """A game this long (passes included) is stopped (truncated); ``None``: no cap."""
        return self.settings.move_limit

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """``(planes, size, size)``."""
        return (self.features.planes, self.size, self.size)

    @property
    def name(self) -> str:
        """A short name: ``go9x9``, ``othello6x6``."""
        return f"{self.game}{self.size}x{self.size}"

    def go_rules(self) -> GoRules:
        """The Go rules of these games (the preset's komi for the board unless one is given)."""
        rules = GoRules.preset(self.settings.rules, self.size)
        return rules if self.settings.komi is None else rules.with_komi(self.settings.komi)

    # -- making games ----------------------------------------------------------------------------
    def new_state(self) -> GameState:
        """The start position."""
        return self.settings.new_game()

    def new_batch(self, n: int) -> Batch:
        """``n`` games at the start, keeping as many boards as the feature set reads."""
        history = self.features.history
        if self.game == "go":
            return GoBatch(n, self.size, self.go_rules(), history=history, max_moves=self.max_moves)
        return OthelloBatch(n, self.size, history=history, max_moves=self.max_moves)

    # -- observations ----------------------------------------------------------------------------
    def observe_state(
        self,
        state: GameState,
        color: Color | None = None,
        legal: npt.NDArray[np.bool_] | None = None,
    ) -> Planes:
        """``(planes, size, size)`` for ``state`` as ``color`` sees it (default: the side to
        move). For the other colour the planes are those of ``color`` to move, with no legal
        moves. ``legal``: the state's legal-action mask, when the caller has it already."""
        if color is not None and color != state.to_play:
            positions = positions_from_states(
                [state], self.features.history, np.zeros((1, self.num_actions), dtype=np.bool_)
            )
            to_play = np.full(1, int(color), dtype=np.int8)
            positions = Positions(positions.boards, to_play, positions.legal)
        else:
            masks = None if legal is None else legal.reshape(1, -1)
            positions = positions_from_states([state], self.features.history, masks)
        planes: Planes = self.features.encode(positions)[0]
        return planes

    def observe_batch(self, batch: Batch, legal: npt.NDArray[np.bool_]) -> Planes:
        """``(n, planes, size, size)`` for every game of ``batch`` (``legal``: its mask)."""
        ring, newest = batch.board_ring()
        n, history, _ = ring.shape
        positions = Positions(
            ring.reshape(n, history, self.size, self.size),
            batch.to_play().astype(np.int8),
            legal,
            newest,
        )
        return self.features.encode(positions)
