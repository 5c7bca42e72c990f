"""The engine core shared by the GTP engine and terminal play (the design's ``GameEngine``).

``ImagoIO`` (the GTP text loop, :mod:`imago.gtp.engine`; or the terminal, :mod:`imago.ui`)
calls a :class:`GameEngine`, which keeps the game as a list of states (so undo is a pop) and
asks an :class:`~imago.agents.base.Agent` (the design's ``DecisionAlgorithm``) for moves.

Every method either succeeds or raises and changes nothing: new states are computed first and
stored last. The game is rebuilt from its event log when komi or rules change mid-game, so
those changes are exact, never patched onto a position.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from imago.agents.base import Agent, InfoCallback, Limit, SearchResult, StopFlag
from imago.core.color import Color
from imago.core.errors import IllegalMoveError, IllegalReason, InvalidMoveError
from imago.core.game import GameState, Outcome
from imago.core.move import MAX_SIZE, Move, Point
from imago.games import make
from imago.games.othello import SIZES as OTHELLO_SIZES
from imago.gtp import go_support
from imago.gtp.timecontrol import Clock, TimePolicy, TimeSettings

DEFAULT_SIZES = {"go": 9, "othello": 8}


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """How a :class:`GameEngine` starts.

    ``komi`` ``None`` means the rules' default for the board size (Go); ``rules`` is a Go rules
    preset name (:data:`imago.gtp.go_support.RULE_NAMES`); ``limit`` holds the agent limits that
    are not time (playouts, nodes, depth) and an optional cap on the time per move;
    ``analysis_time`` bounds live analysis, which otherwise runs until the next command.
    """

    game: str = "go"
    size: int | None = None
    komi: float | None = None
    rules: str = go_support.DEFAULT_RULES
    time: TimePolicy = field(default_factory=TimePolicy)
    limit: Limit = field(default_factory=Limit)
    analysis_time: float = 600.0


@dataclass(frozen=True, slots=True)
class Play:
    """An event of the game: ``color`` plays ``move``."""

    color: Color
    move: Move


@dataclass(frozen=True, slots=True)
class Placement:
    """An event of the game: stones placed or removed, not a move (handicap, SGF setup)."""

    black: tuple[Point, ...] = ()
    white: tuple[Point, ...] = ()
    empty: tuple[Point, ...] = ()
    to_play: Color | None = None


Event = Play | Placement


AgentMaker = Callable[[int], Agent]
"""Makes the agent for a board size (raising ``ValueError`` when there is none)."""


class GameEngine:
    """One game in progress, with its agent, clocks and rules.

    Every agent that plays the game (the engine's own, and any :meth:`add_player` seats beside
    it) decides with the rules which board sizes are allowed: a size one of them cannot play is
    refused when it is asked for (GTP ``boardsize``, a loaded record), never at a later move.
    With ``agent_for``, the engine's agent is instead replaced by ``agent_for(size)`` on a
    board of another size (``imago gtp``'s default: the strongest agent for each size), and
    kept where that fails but it can play the board itself.
    """

    def __init__(
        self,
        config: EngineConfig | None = None,
        agent: Agent | None = None,
        *,
        agent_for: AgentMaker | None = None,
    ) -> None:
        self.config = config or EngineConfig()
        if self.config.game not in DEFAULT_SIZES:
            raise ValueError(f"unknown game {self.config.game!r}")
        self.agent = agent
        self.agent_for = agent_for
        self.players: list[Agent] = []
        self._replacement: tuple[int, Agent] | None = None
        self.game = self.config.game
        self.size = self.config.size or DEFAULT_SIZES[self.game]
        problem = self.size_problem(self.size)
        if problem is not None:
            raise ValueError(problem)
        self._swap_agent(self.size)
        self.komi = self.config.komi
        self.rules = self.config.rules
        self.time_settings = TimeSettings()
        self.clocks = {color: Clock.start(self.time_settings) for color in Color}
        self._events: list[Event] = []
        self.history: list[GameState] = [self._initial(self.size)]

    # -- the game ---------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        """The current position."""
        return self.history[-1]

    @property
    def initial_state(self) -> GameState:
        """The position the game started from (before handicap stones)."""
        return self.history[0]

    def _initial(self, size: int) -> GameState:
        if self.game == "go":
            return make("go", size=size, rules=go_support.rules_for(self.rules, size, self.komi))
        return make(self.game, size=size)

    def _apply(self, state: GameState, event: Event) -> GameState:
        if isinstance(event, Placement):
            return state.with_setup(event.black, event.white, event.empty, event.to_play)
        return self._resumed(state).play(event.move, event.color)

    def _resumed(self, state: GameState) -> GameState:
        """Go goes on after two passes when a controller plays on (GTP allows it; KGS does it
        to settle dead stones): play resumes from the position before the passes."""
        if self.game != "go" or getattr(state, "resigned", None) is not None:
            return state
        while state.is_over() and state.previous is not None:
            before = state.previous.previous
            if before is None:
                break
            state = before
        return state

    def new_game(self, size: int | None = None) -> None:
        """Clear the board (``size`` changes it); komi, rules and time settings are kept."""
        size = self.size if size is None else size
        if size != self.size:
            problem = self.size_problem(size)
            if problem is not None:
                raise ValueError(problem)
        first = self._initial(size)
        self._swap_agent(size)
        self.size, self._events, self.history = size, [], [first]
        self.clocks = {color: Clock.start(self.time_settings) for color in Color}
        if self.agent is not None:
            self.agent.reset()

    def add_player(self, agent: Agent) -> None:
        """Seat ``agent`` beside the engine's own (terminal play): board sizes it cannot play
        are refused too."""
        if agent is not self.agent and all(agent is not other for other in self.players):
            self.players.append(agent)

    def size_allowed(self, size: int) -> bool:
        """Whether the game can be played on a ``size`` x ``size`` board by every agent."""
        return self.size_problem(size) is None

    def size_problem(self, size: int) -> str | None:
        """Why the game cannot be played on a ``size`` x ``size`` board (by the rules or by an
        agent, :meth:`Agent.prepare`), or ``None`` when it can."""
        if self.game == "othello" and size not in OTHELLO_SIZES:
            sizes = ", ".join(f"{n}x{n}" for n in OTHELLO_SIZES)
            return f"unacceptable size {size}: Othello is played on {sizes}"
        if self.game == "go" and not 2 <= size <= MAX_SIZE:
            return f"unacceptable size {size}: Go boards are 2x2 to {MAX_SIZE}x{MAX_SIZE}"
        for agent in [self.agent, *self.players]:
            if agent is None:
                continue
            if agent is self.agent and size != self.size and self._replace_for(size):
                continue  # the agent made for that board takes over
            try:
                agent.prepare(self.game, size)
            except ValueError as error:
                if agent is self.agent and self._replace_for(size):
                    continue
                return f"unacceptable size {size}: {agent.name} cannot play it: {error}"
        return None

    def _replace_for(self, size: int) -> bool:
        """Make (and keep for :meth:`_swap_agent`) ``agent_for(size)``; whether there is one."""
        if self.agent_for is None:
            return False
        if self._replacement is not None and self._replacement[0] == size:
            return True
        try:
            agent = self.agent_for(size)
        except ValueError:
            return False
        if self._replacement is not None:
            self._replacement[1].close()
        self._replacement = (size, agent)
        return True

    def _swap_agent(self, size: int) -> None:
        """Put in the agent :meth:`_replace_for` made for ``size``, closing the old one."""
        if self._replacement is None or self._replacement[0] != size:
            return
        old, self.agent = self.agent, self._replacement[1]
        self._replacement = None
        if old is not None:
            old.close()

    def close(self) -> None:
        """Close every agent the engine made (``agent_for``) and its own."""
        if self._replacement is not None:
            self._replacement[1].close()
            self._replacement = None
        if self.agent is not None:
            self.agent.close()

    def set_komi(self, komi: float | None) -> None:
        """Change komi (``None``: the rules' default); the game so far is kept."""
        self._replace(self.size, self._events, komi, self.rules)

    def set_rules(self, name: str) -> None:
        """Change the Go rules to a preset (:data:`go_support.RULE_NAMES`); the game is kept."""
        self._replace(self.size, self._events, self.komi, name)

    def _replace(self, size: int, events: Sequence[Event], komi: float | None, rules: str) -> None:
        """Replay ``events`` under new settings; commit only when every one of them replays."""
        old = (self.komi, self.rules)
        self.komi, self.rules = komi, rules
        try:
            states = [self._initial(size)]
            for event in events:
                states.append(self._apply(states[-1], event))
        except (ValueError, IllegalMoveError):
            self.komi, self.rules = old
            raise
        self.size, self._events, self.history = size, list(events), states

    def parse_move(self, text: str) -> Move:
        """A move in the game's notation (Go: GTP vertex; Othello: ``f5``); ``InvalidMoveError``
        for anything else (resignation included)."""
        move = self.state.parse_move(text)
        if move.is_resign:
            raise InvalidMoveError("resign is not a move that can be played")
        return move

    def format_move(self, move: Move) -> str:
        """The move in GTP's upper-case vertex form (Othello: ``F5``), ``pass`` or ``resign``."""
        if not move.is_play:
            return move.kind.value
        return self.state.format_move(move).upper()

    def play(self, move: Move, color: Color | None = None) -> GameState:
        """Play ``move`` for ``color`` (default: the side to move); raises and changes nothing
        when it is illegal."""
        color = self.state.to_play if color is None else color
        event = Play(color, move)
        after = self._apply(self.state, event)
        self._events.append(event)
        self.history.append(after)
        return after

    def is_legal(self, move: Move, color: Color | None = None) -> bool:
        """Whether ``color`` may play ``move`` now."""
        try:
            self._apply(self.state, Play(self.state.to_play if color is None else color, move))
        except (IllegalMoveError, InvalidMoveError):
            return False
        return True

    def can_undo(self) -> bool:
        """Whether the last event is a move (handicap stones are not undone)."""
        return bool(self._events) and isinstance(self._events[-1], Play)

    def undo(self) -> None:
        """Take back the last move; ``ValueError`` when there is none."""
        if not self.can_undo():
            raise ValueError("cannot undo")
        self._events.pop()
        self.history.pop()

    def events(self) -> list[Event]:
        """Everything done to the board since the start: placements and moves."""
        return list(self._events)

    def load(
        self,
        size: int,
        events: Sequence[Event],
        komi: float | None = None,
        rules: str | None = None,
    ) -> None:
        """Replace the game by ``events`` on a new ``size`` board (``komi``/``rules``: ``None``
        keeps the current ones); raises and changes nothing when they cannot be replayed."""
        if size != self.size:
            problem = self.size_problem(size)
            if problem is not None:
                raise ValueError(problem)
        self._replace(size, events, self.komi if komi is None else komi, rules or self.rules)
        self._swap_agent(size)
        if self.agent is not None:
            self.agent.reset()

    def moves(self) -> list[tuple[Color, Move]]:
        """The moves played so far with their colours (handicap stones are not moves)."""
        return [(e.color, e.move) for e in self._events if isinstance(e, Play)]

    def handicap_stones(self) -> tuple[Point, ...]:
        """The handicap stones placed, if any."""
        return tuple(p for e in self._events if isinstance(e, Placement) for p in e.black)

    # -- handicap (Go) ----------------------------------------------------------------------
    def fixed_handicap(self, stones: int) -> tuple[Point, ...]:
        """Place GTP's fixed handicap; ``ValueError`` when the board is not empty or ``stones``
        is not allowed on this board."""
        self._require_go()
        points = go_support.fixed_handicap_points(self.size, stones)
        return self.set_handicap(points)

    def free_handicap(self, stones: int) -> tuple[Point, ...]:
        """Choose and place ``stones`` handicap stones (the fixed points first, then the
        centre-most free points)."""
        self._require_go()
        points = go_support.free_handicap_points(self.size, stones)
        return self.set_handicap(points)

    def set_handicap(self, points: Sequence[Point]) -> tuple[Point, ...]:
        """Place black handicap stones on ``points``; White moves next."""
        self._require_go()
        if self._events or np.any(self.state.board()):
            raise ValueError("board not empty")
        unique = tuple(dict.fromkeys(points))
        if len(unique) != len(points) or not 2 <= len(unique) < self.size * self.size:
            raise ValueError("bad vertex list")
        event = Placement(black=unique, to_play=Color.WHITE)
        after = self._apply(self.state, event)
        self._events.append(event)
        self.history.append(after)
        return unique

    def _require_go(self) -> None:
        if self.game != "go":
            raise ValueError(f"{self.game} has no handicap stones")

    # -- scoring ----------------------------------------------------------------------------
    def captures(self, color: Color) -> int:
        """Stones ``color`` has captured (Go), 0 for Othello."""
        return go_support.captures(self.state, color) if self.game == "go" else 0

    def dead_stones(self) -> frozenset[Point]:
        """The stones judged dead in the current position (Go; Othello has none)."""
        if self.game != "go":
            return frozenset()
        return go_support.dead_stones(self.state)

    def final_status(self, status: str) -> list[Point]:
        """``alive``, ``dead`` or ``seki`` points (the GTP ``final_status_list`` statuses)."""
        board = self.state.board()
        dead = self.dead_stones()
        seki = go_support.seki_stones(self.state) if self.game == "go" else frozenset()
        stones = [Point(int(r), int(c)) for r, c in zip(*np.nonzero(board), strict=True)]
        if status == "dead":
            return sorted(dead)
        if status == "seki":
            return sorted(seki)
        if status == "alive":
            return [p for p in stones if p not in dead and p not in seki]
        raise ValueError(f"unknown status {status!r}")

    def final_score(self) -> Outcome:
        """The score of the current position under the rules (Go: imago's count, dead stones
        judged by :func:`imago.games.go.count`)."""
        state = self.state
        outcome = state.outcome() if state.is_over() else None
        if outcome is not None and outcome.by_resignation:
            return outcome
        if self.game == "go":
            return go_support.score(state, len(self.handicap_stones()))
        if outcome is not None:
            return outcome
        board = state.board()
        black, white = int(np.sum(board == Color.BLACK)), int(np.sum(board == Color.WHITE))
        if black == white:
            return Outcome(None, 0.0, black_score=black, white_score=white)
        winner = Color.BLACK if black > white else Color.WHITE
        return Outcome(winner, abs(black - white), black_score=black, white_score=white)

    # -- time -------------------------------------------------------------------------------
    def set_time(self, settings: TimeSettings) -> None:
        """New time settings; both clocks restart."""
        self.time_settings = settings
        self.clocks = {color: Clock.start(settings) for color in Color}

    def set_time_left(self, color: Color, seconds: float, stones: int) -> None:
        """What the controller says is left on ``color``'s clock."""
        if seconds < 0 or stones < 0:
            raise ValueError("time left must not be negative")
        self.clocks[color] = Clock(seconds, stones)

    def budget(self, color: Color) -> float | None:
        """Seconds ``color`` may think about the next move."""
        empties = int(np.sum(self.state.board() == 0))
        return self.config.time.budget(self.time_settings, self.clocks[color], empties / 2)

    def limit(self, color: Color) -> Limit:
        """The agent's limit for the next move: the time budget with the configured limits."""
        budget = self.budget(color)
        cap = self.config.limit.time
        seconds = cap if budget is None else budget if cap is None else min(cap, budget)
        return replace(self.config.limit, time=seconds)

    def analysis_limit(self) -> Limit:
        """The limit of live analysis (``lz-analyze``): the configured limits, a long time."""
        return replace(self.config.limit, time=self.config.analysis_time)

    # -- the agent --------------------------------------------------------------------------
    def position_for(self, color: Color) -> GameState:
        """The current position with ``color`` to move (what the agent thinks about)."""
        state = self._resumed(self.state)
        if state.to_play == color:
            return state
        if self.game == "othello":
            if not any(move.is_play for move in state.legal_moves()):
                return state.play(Move.PASS)
            raise IllegalMoveError(IllegalReason.WRONG_COLOR, str(color))
        return state.with_setup(to_play=color)

    def think(
        self,
        color: Color,
        limit: Limit | None = None,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
        agent: Agent | None = None,
    ) -> SearchResult:
        """Ask the agent (``agent``, default the engine's) for ``color``'s move without
        playing it."""
        agent = agent or self.agent
        if agent is None:
            raise ValueError("no agent to generate moves")
        if self.state.is_over() and self._resumed(self.state).is_over():
            return SearchResult(Move.PASS)
        position = self.position_for(color)
        return agent.select_move(position, limit or self.limit(color), on_info=on_info, stop=stop)

    def genmove(
        self,
        color: Color,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
        agent: Agent | None = None,
    ) -> SearchResult:
        """Ask the agent for ``color``'s move and play it (a resignation is not played)."""
        started = time.monotonic()
        result = self.think(color, on_info=on_info, stop=stop, agent=agent)
        elapsed = time.monotonic() - started
        self.clocks[color] = self.clocks[color].after(self.time_settings, elapsed)
        if not result.move.is_resign and not self._resumed(self.state).is_over():
            self.play(result.move, color)
        return result

    def cleanup_move(self, color: Color) -> SearchResult:
        """``kgs-genmove_cleanup``: like :meth:`genmove`, but no pass while opponent stones
        judged dead remain (a legal move on a liberty of one of them is played instead)."""
        result = self.think(color)
        if result.move.is_pass and self.game == "go":
            move = go_support.cleanup_move(self.state, color, self.dead_stones())
            if move is not None:
                result = SearchResult(move)
        if not result.move.is_resign and not self._resumed(self.state).is_over():
            self.play(result.move, color)
        return result
