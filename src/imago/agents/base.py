"""The agent interface: choose a move for a position under a limit, and say why.

An agent may keep state between moves of one game (a search tree to reuse); :meth:`Agent.reset`
starts a new game. All randomness comes from the ``numpy.random.Generator`` the agent was built
with, so a game can be replayed exactly.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from imago.core.errors import ImagoError
from imago.core.game import GameState
from imago.core.move import Move


class AgentError(ImagoError, ValueError):
    """An agent that cannot be made or cannot play as asked: a missing or foreign model, a
    board it does not play, an external program that does not run. The message says what is
    wrong and how to put it right, in one line."""


@dataclass(frozen=True, slots=True)
class Limit:
    """How much an agent may think about one move. ``None`` means no limit of that kind.

    Each agent honours the kinds that make sense to it (time for all searches, playouts for
    MCTS, depth and nodes for alpha-beta) and documents which.
    """

    time: float | None = None
    nodes: int | None = None
    depth: int | None = None
    playouts: int | None = None

    def __post_init__(self) -> None:
        for name in ("time", "nodes", "depth", "playouts"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"limit {name} must be positive, got {value}")


@dataclass(frozen=True, slots=True)
class Candidate:
    """What a search found about one move of the root.

    ``winrate`` is for the player to move, in ``[0, 1]``; ``value`` is an agent-specific score
    from the same point of view (discs or points for alpha-beta).
    """

    move: Move
    visits: int = 0
    winrate: float | None = None
    prior: float | None = None
    value: float | None = None
    pv: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """An agent's choice with its search information (all from the mover's point of view);
    ``candidates`` best first."""

    move: Move
    winrate: float | None = None
    value: float | None = None
    pv: tuple[Move, ...] = ()
    nodes: int = 0
    depth: int = 0
    seconds: float = 0.0
    candidates: tuple[Candidate, ...] = field(default=())

    @property
    def has_analysis(self) -> bool:
        """Whether there is anything for analysis commands to show."""
        return bool(self.candidates) or self.winrate is not None or self.value is not None


InfoCallback = Callable[[SearchResult], None]
"""Receives interim search information while an agent thinks (for live analysis)."""


class StopFlag(Protocol):
    """Anything with ``is_set()``, such as a ``threading.Event``: asks a search to stop early."""

    def is_set(self) -> bool: ...


class Agent(abc.ABC):
    """Chooses moves. Subclasses implement :meth:`select_move`."""

    name: str = "agent"

    @abc.abstractmethod
    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        """The move to play in ``state`` (never an illegal one), with search information.

        ``on_info`` (if given) receives interim results now and then; ``stop`` (if given) ends
        the search early when set. An agent may return ``Move.RESIGN``.
        """

    def prepare(self, game: str, size: int) -> None:  # noqa: B027 - a no-op by default
        """Get ready to play ``game`` on a ``size`` x ``size`` board, or raise
        :class:`AgentError` (any ``ValueError``) saying why it cannot: a network trained for
        another game or board, a board size the search does not handle, an external program
        that does not start or refuses the size.

        :func:`imago.agents.registry.make_agent` calls it when the agent is made, and the
        engine core whenever the board changes (GTP ``boardsize``, a loaded record), so that a
        board the agent cannot play is refused there and then, never at its first move.
        """

    def reset(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Forget everything about the current game (a new game starts)."""

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release resources (processes, threads). The agent is not used afterwards."""
