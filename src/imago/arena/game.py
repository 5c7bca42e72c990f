"""One game between two agents, refereed: illegal moves, crashes and hangs lose, long games are
adjudicated, finished Go games are counted by imago and cross-checked with GTP programs.

The referee never trusts an agent: every move is checked against the rules, and any error an
agent raises (a GTP program that died, stopped answering or refused a move of the game; a bug in
an imago agent) loses that game for the agent, and so does running out of time on a game clock
(:mod:`imago.arena.clock`). The caller decides what happens next (the match runner closes the
agents, so a GTP program is restarted for the next game).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from imago.agents.base import Agent, Limit, SearchResult
from imago.arena.clock import SideClock, TimeControl, move_budget
from imago.arena.external import GtpAgent
from imago.core.color import Color
from imago.core.errors import IllegalMoveError, InvalidMoveError
from imago.core.game import GameState, Outcome
from imago.core.move import Move
from imago.gtp.client import EngineError, EngineTimeoutError

if TYPE_CHECKING:
    from imago.games.go import GoRules


class EndReason(enum.Enum):
    """How a game ended."""

    SCORE = "score"
    """The game ended by the rules (two passes in Go, no moves in Othello) and was counted."""
    RESIGN = "resign"
    ILLEGAL = "illegal"
    """A player made an illegal move and lost."""
    CRASH = "crash"
    """A player raised an error (a GTP program died or refused a move) and lost."""
    TIMEOUT = "timeout"
    """A GTP program did not answer in time, or a side's game clock ran out: it lost."""
    ADJUDICATED = "adjudicated"
    """The game reached the move limit and was counted as it stood."""


@dataclass(frozen=True)
class GameSettings:
    """What every game of a match shares."""

    game: str = "go"
    size: int = 0
    """The board size; 0 means the game's usual one (9 for Go, 8 for Othello)."""
    komi: float | None = None
    """Komi (Go); ``None``: the rules preset's for the board (``GoRules.preset``: 7 on 9x9
    and 7.5 elsewhere for the computer rules), filled in when the settings are made."""
    rules: str = "computer"
    """Go rule preset (``imago.games.go.GoRules.preset``); ignored for Othello."""
    time_per_move: float | None = None
    """Seconds per move given to every agent as ``Limit(time=...)``; ``None``: agents' own."""
    max_moves: int | None = None
    """Adjudicate after this many moves (default: ``3 * size * size`` for Go, none for Othello)."""
    time_control: str | None = None
    """A game clock for each side (:mod:`imago.arena.clock` syntax, e.g. ``60+5``); exclusive
    with ``time_per_move``."""

    def __post_init__(self) -> None:
        if self.game not in ("go", "othello"):
            raise ValueError(f"unknown game {self.game!r} (go, othello)")
        if self.time_per_move is not None and self.time_per_move <= 0:
            raise ValueError("time per move must be positive")
        if self.time_control is not None:
            if self.time_per_move is not None:
                raise ValueError("give either a time per move or a time control, not both")
            object.__setattr__(self, "time_control", str(TimeControl.parse(self.time_control)))
        if self.size == 0:
            object.__setattr__(self, "size", 9 if self.game == "go" else 8)
        if self.komi is None and self.game == "go":
            object.__setattr__(self, "komi", self.go_rules().komi)

    def go_rules(self) -> GoRules:
        """The Go rules of the games: the preset with the komi."""
        from imago.games.go import GoRules

        rules = GoRules.preset(self.rules, self.size)
        return rules if self.komi is None else rules.with_komi(self.komi)

    def new_game(self) -> GameState:
        """The starting position."""
        from imago.games import make

        if self.game == "go":
            return make("go", size=self.size, rules=self.go_rules())
        return make(self.game, size=self.size)

    @property
    def move_limit(self) -> int | None:
        if self.max_moves is not None:
            return self.max_moves
        return 3 * self.size * self.size if self.game == "go" else None

    @property
    def limit(self) -> Limit:
        return Limit(time=self.time_per_move)

    @property
    def clock(self) -> TimeControl | None:
        """The parsed time control (``None``: no game clock)."""
        return None if self.time_control is None else TimeControl.parse(self.time_control)


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """A move of the game, who played it, how long it took and what the agent said about it."""

    color: Color
    move: Move
    seconds: float = 0.0
    note: str = ""
    clock: float | None = None
    """Seconds left on the player's clock after the move (``None``: no game clock)."""
    overtime: int = 0
    """Moves (Canadian) or periods (byo-yomi) left after the move, when in overtime."""


@dataclass(frozen=True)
class GameResult:
    """The end of a game: winner, SGF result, why, and everything played."""

    winner: Color | None
    result: str
    reason: EndReason
    moves: tuple[PlayedMove, ...]
    final: GameState
    detail: str = ""
    engine_scores: dict[str, str] = field(default_factory=dict)
    """``final_score`` of each GTP player (by colour letter), for finished Go games."""
    disagreement: str = ""
    """Set when a program's count differs from imago's (both counts, and what imago could not
    decide)."""
    disputed: bool = False
    """The winner is in doubt: a program's count names another winner than imago's, or the
    winner of imago's count depends on stones it could not decide. imago's count stands."""


def play_game(
    settings: GameSettings,
    black: Agent,
    white: Agent,
    *,
    opening: Sequence[Move] = (),
    on_move: Callable[[GameState, PlayedMove], None] | None = None,
) -> GameResult:
    """Play one game from the start position after ``opening`` (played for both sides)."""
    state = settings.new_game()
    played: list[PlayedMove] = []
    for move in opening:
        played.append(PlayedMove(state.to_play, move, 0.0, "opening"))
        state = state.play(move)
    players = {Color.BLACK: black, Color.WHITE: white}
    for agent in players.values():
        agent.reset()
    limit = settings.limit
    control = settings.clock
    clocks = {} if control is None else {color: control.start() for color in players}
    move_limit = settings.move_limit
    while not state.is_over():
        if move_limit is not None and state.move_number >= move_limit:
            return _adjudicate(settings, state, played)
        color = state.to_play
        if control is not None:
            limit = _clock_limit(control, clocks[color], players[color], state)
        started = time.monotonic()
        try:
            reply = players[color].select_move(state, limit)
        except EngineTimeoutError as error:
            return _forfeit(state, played, color, EndReason.TIMEOUT, str(error), "T")
        except EngineError as error:
            return _forfeit(state, played, color, EndReason.CRASH, str(error), "F")
        except Exception as error:  # an agent's bug loses its game, the match goes on
            detail = f"{type(error).__name__}: {error}"
            return _forfeit(state, played, color, EndReason.CRASH, detail, "F")
        seconds = time.monotonic() - started
        clock_left, overtime = None, 0
        if control is not None:
            clocks[color] = clocks[color].after(control, seconds)
            if clocks[color].flagged:
                detail = f"lost on time: the move took {seconds:.2f} s"
                return _forfeit(state, played, color, EndReason.TIMEOUT, detail, "T")
            clock_left, overtime = clocks[color].remaining, clocks[color].stones
        record = PlayedMove(color, reply.move, seconds, _note(reply), clock_left, overtime)
        if reply.move.is_resign:
            played.append(record)
            winner = color.opponent
            return GameResult(winner, f"{winner.letter}+R", EndReason.RESIGN, tuple(played), state)
        try:
            state = state.play(reply.move)
        except (IllegalMoveError, InvalidMoveError) as error:
            detail = f"{color} played {_format(state, reply.move)}: {error}"
            return _forfeit(state, played, color, EndReason.ILLEGAL, detail, "F")
        played.append(record)
        if on_move is not None:
            on_move(state, record)
    return _count(settings, state, played, players)


def _clock_limit(control: TimeControl, clock: SideClock, agent: Agent, state: GameState) -> Limit:
    """The move's ``Limit``: a budget from the side's clock (a GTP program is also told its
    clock and manages its own time)."""
    if isinstance(agent, GtpAgent):
        agent.set_clock(control, clock)
    empties = int((state.board() == 0).sum())
    return Limit(time=move_budget(control, clock, empties / 2))


def _format(state: GameState, move: Move) -> str:
    try:
        return state.format_move(move)
    except (InvalidMoveError, ValueError):
        return repr(move)


def _note(reply: SearchResult) -> str:
    parts = []
    if reply.winrate is not None:
        parts.append(f"winrate {100 * reply.winrate:.1f}%")
    if reply.value is not None:
        parts.append(f"value {reply.value:.2f}")
    if reply.nodes:
        parts.append(f"{reply.nodes} nodes")
    if reply.depth:
        parts.append(f"depth {reply.depth}")
    return ", ".join(parts)


def _forfeit(
    state: GameState,
    played: list[PlayedMove],
    loser: Color,
    reason: EndReason,
    detail: str,
    letter: str,
) -> GameResult:
    winner = loser.opponent
    return GameResult(
        winner, f"{winner.letter}+{letter}", reason, tuple(played), state, f"{loser}: {detail}"
    )


def score_position(settings: GameSettings, state: GameState) -> Outcome:
    """imago's count: Go by :func:`imago.games.go.count` (dead stones and seki judged, the
    rules' scoring); Othello by discs."""
    if state.game == "go":
        from imago.games.go import GoPosition, count

        assert isinstance(state, GoPosition)
        return count(state).outcome
    outcome = state.outcome()
    if outcome is not None:
        return outcome
    board = state.board()
    black, white = int((board == Color.BLACK).sum()), int((board == Color.WHITE).sum())
    winner = Color.BLACK if black > white else Color.WHITE if white > black else None
    return Outcome(winner, float(abs(black - white)), False, float(black), float(white))


def _adjudicate(settings: GameSettings, state: GameState, played: list[PlayedMove]) -> GameResult:
    outcome = score_position(settings, state)
    detail = f"move limit {settings.move_limit} reached; counted as it stood"
    return GameResult(
        outcome.winner, outcome.result(), EndReason.ADJUDICATED, tuple(played), state, detail
    )


def _count(
    settings: GameSettings,
    state: GameState,
    played: list[PlayedMove],
    players: dict[Color, Agent],
) -> GameResult:
    if state.game != "go":
        outcome = score_position(settings, state)
        return GameResult(outcome.winner, outcome.result(), EndReason.SCORE, tuple(played), state)
    from imago.games.go import GoPosition, count

    assert isinstance(state, GoPosition)
    judged = count(state)
    outcome = judged.outcome
    scores: dict[str, str] = {}
    notes = []
    disputed = not judged.decided
    if disputed:
        notes.append(f"imago cannot decide {len(judged.unsettled)} stones, which decide the winner")
    for color, agent in players.items():
        if not isinstance(agent, GtpAgent):
            continue
        engine_score = agent.final_score(state)
        if engine_score is None:
            continue
        scores[color.letter] = engine_score.result()
        if engine_score.result() != outcome.result():
            notes.append(f"{color}'s program counts {engine_score.result()}")
            disputed |= engine_score.winner is not outcome.winner
    disagreement = ""
    if notes:
        disagreement = f"imago counts {outcome.result()}; " + "; ".join(notes)
    return GameResult(
        outcome.winner,
        outcome.result(),
        EndReason.SCORE,
        tuple(played),
        state,
        engine_scores=scores,
        disagreement=disagreement,
        disputed=disputed,
    )
