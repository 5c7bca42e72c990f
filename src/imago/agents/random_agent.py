"""The random agent: a uniformly random legal move, the baseline every agent must beat."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from imago.agents.base import Agent, InfoCallback, Limit, SearchResult, StopFlag
from imago.agents.registry import register_agent
from imago.core.game import GameState
from imago.core.move import Move


@dataclass(frozen=True)
class RandomOptions:
    """Options of the random agent."""

    avoid_own_eyes: bool = True
    """In Go, never fill one's own true eye (so games end by two passes, as in playouts)."""


class RandomAgent(Agent):
    """Plays a uniformly random legal move other than pass; passes only when nothing else is left.

    In Go, with ``avoid_own_eyes`` the moves come from the state's ``sensible_moves()`` (legal
    moves that do not fill the mover's own true eye) when the game offers it.
    """

    name = "random"

    def __init__(self, options: RandomOptions, rng: np.random.Generator) -> None:
        self.options = options
        self.rng = rng

    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        sensible = getattr(state, "sensible_moves", None)
        moves = sensible() if self.options.avoid_own_eyes and sensible else state.legal_moves()
        plays = [move for move in moves if move.is_play]
        if not plays:
            return SearchResult(Move.PASS)
        return SearchResult(plays[int(self.rng.integers(len(plays)))])


@register_agent(
    "random", RandomOptions, games=("go", "othello"), summary="uniformly random legal moves"
)
def _make_random(options: RandomOptions, rng: np.random.Generator) -> Agent:
    return RandomAgent(options, rng)
