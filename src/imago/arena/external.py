"""Any GTP program as an agent: ``gtp:command="gnugo --mode gtp --level 10"``.

The agent keeps the program's board in step with the game it is asked about: it remembers the
moves it has sent (and the ones the program generated), sends only the new ones, and starts over
(``clear_board`` and replay) when the game is another one. It starts the program lazily, and
again after the program died or stopped answering, so one crash costs one game, not a match.

Othello programs (``gtp-rhino``) write vertices with row 1 at the top and pass by themselves: a
refused ``play <colour> pass`` is ignored in Othello. They are driven with
``notation=othello`` (the default for Othello games).
"""

from __future__ import annotations

import itertools
import math
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from imago.agents.base import (
    Agent,
    AgentError,
    Candidate,
    InfoCallback,
    Limit,
    SearchResult,
    StopFlag,
)
from imago.agents.registry import register_agent
from imago.arena.clock import GRACE, ClockKind, SideClock, TimeControl
from imago.core.color import Color
from imago.core.game import GameState
from imago.core.move import Move
from imago.gtp.client import EngineError, GtpEngine, Notation, PlayResult, Score


@dataclass(frozen=True)
class GtpOptions:
    """Options of the ``gtp`` agent."""

    command: str = ""
    """The program's command line, e.g. ``gnugo --mode gtp --level 10`` (required)."""
    timeout: float = 30.0
    """Seconds allowed for start-up and for each ordinary command."""
    move_timeout: float = 120.0
    """Seconds allowed for ``genmove`` on top of the move's time limit."""
    notation: str = "auto"
    """Vertex notation: ``gtp``, ``othello`` (row 1 at the top), or ``auto`` (by game)."""
    time_settings: bool = True
    """Tell the program its time: the per-move limit (``time_settings 0 T 1`` and ``time_left``),
    or the game clock of a match with a time control (see :meth:`GtpAgent.set_clock`)."""
    stderr: str = ""
    """A file to append the program's standard error to (default: discarded)."""
    cwd: str = ""
    """The folder to start the program in (default: the current one). Some programs read
    their data files from their own folder: Pachi, for one, is run from where it was built."""


@dataclass
class _Sync:
    """What the program's board holds: the game, the size, komi and the moves sent."""

    game: str
    size: int
    komi: float | None
    moves: list[tuple[Color, Move]]


class GtpAgent(Agent):
    """A GTP program playing as an agent (see the module docstring)."""

    name = "gtp"

    def __init__(self, options: GtpOptions) -> None:
        if not options.command.strip():
            raise ValueError('the gtp agent needs command="program --args"')
        if options.notation not in ("auto", "gtp", "othello"):
            raise ValueError(f"notation must be auto, gtp or othello, not {options.notation!r}")
        shlex.split(options.command)  # a bad quote is reported now, not at the first move
        if options.cwd and not Path(options.cwd).is_dir():
            raise ValueError(f"cwd={options.cwd!r} is not a folder")
        self.options = options
        self.engine: GtpEngine | None = None
        self._sync: _Sync | None = None
        self._time_limit: float | None = None
        self._control: TimeControl | None = None
        self._clock: SideClock | None = None
        self._control_sent = False
        self._stderr: IO[bytes] | None = None
        self.restarts = 0

    # -- the process --------------------------------------------------------------------------
    def start(self) -> GtpEngine:
        """The running program, started (or restarted after a failure) if needed."""
        if self.engine is not None and self.engine.usable:
            return self.engine
        if self.engine is not None:
            self.engine.close()
            self.restarts += 1
        self._sync = None
        self._time_limit = None
        self._control_sent = False
        stderr: IO[bytes] | int = subprocess.DEVNULL
        if self.options.stderr:
            if self._stderr is None:
                self._stderr = Path(self.options.stderr).open("ab")  # noqa: SIM115 - kept open
            stderr = self._stderr
        self.engine = GtpEngine.popen(
            self.options.command,
            timeout=self.options.timeout,
            cwd=self.options.cwd or None,
            stderr=stderr,
        )
        return self.engine

    def prepare(self, game: str, size: int) -> None:
        """Start the program (one that does not run or speak GTP is reported now, before any
        game) and check that it takes a ``size`` x ``size`` board."""
        command = self.options.command
        try:
            engine = self.start()
            engine.boardsize(size)
        except EngineError as error:
            self.close()
            if error.command.startswith("boardsize"):
                raise AgentError(
                    f"{command!r} does not play {size}x{size} {game}: {error.message}"
                ) from None
            if error.command:
                raise AgentError(
                    f"{command!r} does not answer as a GTP engine ({error.message}); check "
                    "that the command starts it in GTP mode (GNU Go: gnugo --mode gtp)"
                ) from None
            raise AgentError(
                f"{error.message}; check the program's path and command line "
                '(gtp:command="gnugo --mode gtp"), or give cwd=FOLDER for a program that '
                "must run from its own folder (Pachi)"
            ) from None
        self._sync = None  # boardsize clears the program's board

    def reset(self) -> None:
        """A new game: the next move starts from a cleared board (and without a game clock
        until :meth:`set_clock` is called again)."""
        self._sync = None
        self._control = None
        self._clock = None
        self._control_sent = False

    def set_clock(self, control: TimeControl, clock: SideClock) -> None:
        """Play this game under ``control`` with ``clock`` left for the next move: the program
        receives ``time_settings`` (``kgs-time_settings byoyomi`` for Japanese byo-yomi, when it
        knows it) once, and ``time_left`` before every ``genmove``; ``genmove`` then waits only
        as long as the clock allows (plus a grace second)."""
        if control != self._control:
            self._control_sent = False
        self._control, self._clock = control, clock

    def close(self) -> None:
        if self.engine is not None:
            self.engine.quit()
            self.engine = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # -- playing ------------------------------------------------------------------------------
    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        """Bring the program's board up to ``state`` and ask it for a move.

        Raises :class:`~imago.gtp.client.EngineError` (or its subclasses) when the program
        refuses a move of the game, dies, or does not answer in time. The move returned is the
        program's; it may be illegal — the caller checks.
        """
        engine = self.sync(state)
        self._send_time(engine, limit, state.to_play)
        timeout = self.options.move_timeout + (2.0 * limit.time if limit.time else 0.0)
        if self._control is not None and self._clock is not None:
            timeout = self._clock.available(self._control) + GRACE + 1.0
        reply = engine.genmove(state.to_play, timeout=timeout)
        if not reply.move.is_resign:
            assert self._sync is not None
            self._sync.moves.append((state.to_play, reply.move))
        return _search_result(reply)

    def final_score(self, state: GameState) -> Score | None:
        """The program's count of the finished game ``state``; ``None`` if it cannot count."""
        try:
            engine = self.sync(state)
            if not engine.known_command("final_score"):
                return None
            return engine.final_score()
        except EngineError:
            return None

    def sync(self, state: GameState) -> GtpEngine:
        """Make the program's board hold ``state`` (its moves played in order)."""
        engine = self.start()
        history = game_history(state)
        komi = getattr(state, "komi", None)
        sync = self._sync
        fresh = (
            sync is None
            or (sync.game, sync.size, sync.komi) != (state.game, state.size, komi)
            or history[: len(sync.moves)] != sync.moves
        )
        if fresh:
            sync = self._new_game(engine, state, komi)
        assert sync is not None
        for color, move in history[len(sync.moves) :]:
            self._play(engine, state.game, color, move)
            sync.moves.append((color, move))
        return engine

    def _new_game(self, engine: GtpEngine, state: GameState, komi: float | None) -> _Sync:
        notation = self.options.notation
        if notation == "auto":
            notation = "othello" if state.game == "othello" else "gtp"
        engine.notation = Notation(notation)
        engine.boardsize(state.size)
        engine.clear_board()
        if komi is not None:
            engine.komi(float(komi))
        self._sync = _Sync(state.game, state.size, komi, [])
        for color, move in _setup_moves(state):
            engine.play(color, move)
        return self._sync

    def _play(self, engine: GtpEngine, game: str, color: Color, move: Move) -> None:
        try:
            engine.play(color, move)
        except EngineError:
            if game == "othello" and move.is_pass and engine.usable:
                return  # Othello programs pass by themselves and may refuse an explicit pass
            raise

    def _send_time(self, engine: GtpEngine, limit: Limit, color: Color) -> None:
        if not self.options.time_settings:
            return
        if self._control is not None and self._clock is not None:
            self._send_clock(engine, self._control, self._clock, color)
            return
        if limit.time is None:
            return
        seconds = max(1, math.floor(limit.time))
        if self._time_limit != seconds and engine.known_command("time_settings"):
            engine.time_settings(0, seconds, 1)
            self._time_limit = seconds
        if engine.known_command("time_left"):
            engine.time_left(color, seconds, 1)

    def _send_clock(
        self, engine: GtpEngine, control: TimeControl, clock: SideClock, color: Color
    ) -> None:
        if not self._control_sent:
            byoyomi = control.kind is ClockKind.BYOYOMI
            if byoyomi and engine.known_command("kgs-time_settings"):
                engine.send(
                    f"kgs-time_settings byoyomi {round(control.main)} "
                    f"{round(control.extra)} {control.count}"
                )
            elif engine.known_command("time_settings"):
                # Fischer goes as absolute time; byo-yomi as one move per period (GTP's nearest)
                canadian = control.kind is ClockKind.CANADIAN
                period = control.extra if byoyomi or canadian else 0.0
                stones = control.count if canadian else int(byoyomi)
                engine.time_settings(control.main, period, stones)
            self._control_sent = True
            self._time_limit = None
        if engine.known_command("time_left"):
            seconds, stones = clock.gtp_time_left()
            engine.time_left(color, seconds, stones)


def game_history(state: GameState) -> list[tuple[Color, Move]]:
    """The moves that led to ``state`` from its first position, each with its player's colour."""
    states: list[GameState] = []
    node: GameState | None = state
    while node is not None:
        states.append(node)
        node = node.previous
    states.reverse()
    history = []
    for before, after in itertools.pairwise(states):
        move = after.last_move
        assert move is not None
        color = before.to_play
        if move.point is not None:
            stone = int(after.board()[move.point.row, move.point.col])
            if stone in (Color.BLACK, Color.WHITE):
                color = Color(stone)
        history.append((color, move))
    return history


def _setup_moves(state: GameState) -> list[tuple[Color, Move]]:
    """Stones of the first position that the program's cleared board lacks, as plays.

    A Go position's stones are played (programs accept plays out of turn). An Othello game must
    start from the standard position: GTP has no way to set up discs.
    """
    root: GameState = state
    while root.previous is not None:
        root = root.previous
    board = root.board()
    if state.game == "othello":
        from imago.games import make

        if not np.array_equal(board, make("othello", size=state.size).board()):
            raise EngineError("GTP cannot set up an Othello position other than the standard start")
        return []
    moves: list[tuple[Color, Move]] = []
    for color in (Color.BLACK, Color.WHITE):
        rows, cols = np.nonzero(board == int(color))
        moves.extend((color, Move.play((int(r), int(c)))) for r, c in zip(rows, cols, strict=True))
    return moves


def _search_result(reply: PlayResult) -> SearchResult:
    candidates = tuple(
        Candidate(info.move, info.visits, info.winrate, info.prior, info.score_lead, info.pv)
        for info in reply.analysis
    )
    best = candidates[0] if candidates else None
    return SearchResult(
        reply.move,
        winrate=best.winrate if best else None,
        pv=best.pv if best else (),
        seconds=reply.seconds,
        candidates=candidates,
    )


@register_agent(
    "gtp",
    GtpOptions,
    games=("go", "othello"),
    summary='an external GTP program: gtp:command="gnugo --mode gtp --level 10"',
)
def _make_gtp(options: GtpOptions, rng: np.random.Generator) -> Agent:
    return GtpAgent(options)
