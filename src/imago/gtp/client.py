"""A client for programs that speak the Go Text Protocol, shaped like python-chess's ``engine``.

Start a program from its command line, talk to it with typed commands, and shut it down
cleanly (``quit``, then terminate, then kill — the process is always waited for, so no zombie is
left behind)::

    with GtpEngine.popen("gnugo --mode gtp --level 1") as engine:
        engine.boardsize(9)
        engine.komi(7)
        engine.play(Color.BLACK, Move.from_gtp("E5", 9))
        result = engine.genmove(Color.WHITE, timeout=30)
        print(result.move, engine.final_score())

Every command has a timeout. An answer ``? message`` raises :class:`EngineError`; a program that
exits (or closes its output) raises :class:`EngineTerminatedError`; one that does not answer in
time raises :class:`EngineTimeoutError`, after which the engine is unusable (its answer may
still come) and should be closed.

The wire format is GTP 2 (numbered commands, ``=`` / ``?`` answers ended by an empty line).
Vertices are written in one of two :class:`Notation` s: Go's (``D4``: column letter without
``I``, row 1 at the bottom) or Othello programs' (``d3``: column letter, row 1 at the top, as
GRhino's ``gtp-rhino`` speaks it).

Tests drive :class:`GtpEngine` over a :class:`ScriptedTransport` instead of a process.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import queue
import re
import shlex
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Protocol, Self

from imago.core.color import Color
from imago.core.errors import ImagoError, InvalidMoveError, os_error_text
from imago.core.move import Move, Point

LOGGER = logging.getLogger(__name__)
"""Every line sent (``>>``) and received (``<<``) is logged at DEBUG level, as python-chess does."""

DEFAULT_TIMEOUT = 30.0
"""Seconds a command may take unless the call says otherwise."""


class EngineError(ImagoError, RuntimeError):
    """The engine refused a command (it answered ``? message``) or cannot be used any more."""

    def __init__(self, message: str, command: str = "") -> None:
        self.message = message
        self.command = command
        where = f"{command!r}: " if command else ""
        super().__init__(f"{where}{message}")


class EngineTerminatedError(EngineError):
    """The engine process exited or closed its output."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer in time. Its answer may still come: close the engine."""


class Notation(enum.Enum):
    """How an engine writes vertices."""

    GTP = "gtp"
    """Go's GTP vertices: ``D4``, column letters without ``I``, row 1 at the bottom."""

    OTHELLO = "othello"
    """Othello programs' vertices (``gtp-rhino``): ``d3``, column letter, row 1 at the top."""

    def parse(self, text: str, size: int) -> Move:
        """Read a vertex, ``pass`` or ``resign`` (any case)."""
        if self is Notation.GTP:
            return Move.from_gtp(text, size)
        return Move.from_algebraic(text, size)

    def format(self, move: Move, size: int) -> str:
        """Write a move as the engine expects it."""
        if self is Notation.GTP:
            return move.to_gtp(size)
        return move.to_algebraic().upper() if move.is_play else move.to_algebraic()


# -- transports ---------------------------------------------------------------------------------


class Transport(Protocol):
    """A line-oriented, bidirectional channel to an engine."""

    def write_line(self, line: str) -> None:
        """Send one line (without its newline). Raises :class:`EngineTerminatedError`."""
        ...

    def read_line(self, timeout: float | None) -> str:
        """The next line (without its newline).

        Raises :class:`EngineTimeoutError` after ``timeout`` seconds and
        :class:`EngineTerminatedError` at end of output.
        """
        ...

    def is_alive(self) -> bool:
        """Whether the other end is still running."""
        ...

    def close(self, timeout: float) -> None:
        """Stop the other end: wait up to ``timeout`` seconds, then terminate, then kill."""
        ...


_EOF = object()


class PopenTransport:
    """A child process, read by a background thread so that reads can time out."""

    def __init__(
        self,
        args: Sequence[str],
        *,
        cwd: str | Path | None = None,
        stderr: IO[bytes] | int | None = subprocess.DEVNULL,
    ) -> None:
        if not args:
            raise ValueError("empty engine command")
        try:
            self.process = subprocess.Popen(
                list(args),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=cwd,
                start_new_session=True,  # Ctrl-C in a terminal reaches us, not the engine
            )
        except OSError as error:
            raise EngineTerminatedError(
                f"cannot start {args[0]!r}: {os_error_text(error)}"
            ) from error
        self.args = tuple(args)
        self._lines: queue.Queue[object] = queue.Queue()
        self._reader = threading.Thread(target=self._read_all, name="gtp-reader", daemon=True)
        self._reader.start()

    def _read_all(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            for raw in stdout:
                self._lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(_EOF)

    @property
    def pid(self) -> int:
        """The engine's process id."""
        return self.process.pid

    def write_line(self, line: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(line.encode("utf-8") + b"\n")
            stdin.flush()
        except (OSError, ValueError):
            raise EngineTerminatedError(f"the engine has exited{self._status()}") from None

    def read_line(self, timeout: float | None) -> str:
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise EngineTimeoutError(f"no answer within {timeout:g} s") from None
        if item is _EOF:
            self._lines.put(_EOF)  # every later read sees the end too
            raise EngineTerminatedError(f"the engine closed its output{self._status()}")
        assert isinstance(item, str)
        return item

    def _status(self) -> str:
        """`` (exit status N)`` once the process has ended, else nothing."""
        try:
            code: int | None = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None
        return f" (exit status {code})" if code is not None else ""

    def is_alive(self) -> bool:
        return self.process.poll() is None

    def close(self, timeout: float) -> None:
        process = self.process
        if process.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                process.stdin.close()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            with contextlib.suppress(OSError, ValueError):
                process.stdout.close()
        self._reader.join(timeout=timeout)


@dataclass
class ScriptedTransport:
    """A fake engine for tests: expects commands in order and answers as scripted.

    Build the script with :meth:`expect` (answer a command), :meth:`expect_hang` (never answer)
    and :meth:`expect_death` (exit when the command arrives). An unexpected command fails with
    ``AssertionError``. Command ids are stripped before matching and added to answers.
    """

    script: deque[tuple[str, str | None, bool]] = field(default_factory=deque)
    sent: list[str] = field(default_factory=list)
    _pending: deque[str] = field(default_factory=deque)
    _alive: bool = True
    closed: bool = False

    def expect(self, command: str, answer: str = "=") -> ScriptedTransport:
        """Answer ``command`` with ``answer``: ``"= text"`` or ``"? message"``, maybe multi-line."""
        self.script.append((command, answer, False))
        return self

    def expect_hang(self, command: str) -> ScriptedTransport:
        """Never answer ``command``."""
        self.script.append((command, None, False))
        return self

    def expect_death(self, command: str) -> ScriptedTransport:
        """Exit (close the output) when ``command`` arrives."""
        self.script.append((command, None, True))
        return self

    def write_line(self, line: str) -> None:
        if not self._alive:
            raise EngineTerminatedError("the engine is gone (scripted)")
        self.sent.append(line)
        ident, _, command = line.partition(" ") if line[:1].isdigit() else ("", "", line)
        if not self.script:
            raise AssertionError(f"unexpected command {command!r}: the script is finished")
        expected, answer, dies = self.script.popleft()
        if command != expected:
            raise AssertionError(f"expected {expected!r}, got {command!r}")
        if dies:
            self._alive = False
            return
        if answer is None:
            return
        head, *rest = answer.split("\n")
        self._pending.extend([head[0] + ident + head[1:], *rest, ""])

    def read_line(self, timeout: float | None) -> str:
        if self._pending:
            return self._pending.popleft()
        if not self._alive:
            raise EngineTerminatedError("the engine closed its output (scripted)")
        raise EngineTimeoutError(f"no answer within {timeout} s (scripted)")

    def is_alive(self) -> bool:
        return self._alive

    def close(self, timeout: float) -> None:
        self._alive = False
        self.closed = True

    def done(self) -> bool:
        """Whether every scripted command was sent."""
        return not self.script


# -- results ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Response:
    """One GTP answer: success or failure, and its text (lines joined by ``\\n``)."""

    ok: bool
    text: str
    id: int | None = None


@dataclass(frozen=True, slots=True)
class AnalysisInfo:
    """One candidate move of an engine's analysis (``info move ... pv ...``).

    ``winrate`` and ``prior`` are fractions in ``[0, 1]`` for the player to move; ``score_lead``
    is in points where the engine gives it.
    """

    move: Move
    visits: int = 0
    winrate: float | None = None
    prior: float | None = None
    score_lead: float | None = None
    pv: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What ``genmove`` returned: the move, any analysis the engine gave, how long it took."""

    move: Move
    seconds: float = 0.0
    analysis: tuple[AnalysisInfo, ...] = ()
    text: str = ""

    @property
    def resigned(self) -> bool:
        return self.move.is_resign


@dataclass(frozen=True, slots=True)
class Score:
    """A ``final_score`` answer: the winner (``None`` for a draw) and the margin."""

    winner: Color | None
    margin: float
    by_resignation: bool = False

    @classmethod
    def parse(cls, text: str) -> Score:
        """Read ``B+3.5``, ``W+R``, ``0`` or ``Draw`` (any case)."""
        word = text.strip().split()[0] if text.strip() else ""
        if word.lower() in ("0", "draw", "jigo", "b+0", "w+0"):
            return cls(None, 0.0)
        match = re.fullmatch(r"([BbWw])\+(R|Resign|[0-9]+(?:\.[0-9]+)?)", word, re.IGNORECASE)
        if match is None:
            raise EngineError(f"not a score: {text!r}", "final_score")
        winner = Color.parse(match.group(1))
        if match.group(2)[0] in "Rr":
            return cls(winner, 0.0, by_resignation=True)
        return cls(winner, float(match.group(2)))

    def result(self) -> str:
        """The score as SGF's ``RE`` writes it."""
        if self.winner is None:
            return "0"
        if self.by_resignation:
            return f"{self.winner.letter}+R"
        margin = self.margin
        return f"{self.winner.letter}+{int(margin) if margin.is_integer() else margin:g}"


# -- the client ---------------------------------------------------------------------------------

_COMMAND_RE = re.compile(r"[^\x00-\x20\x7f#]+(?: [^\x00-\x1f\x7f]*)?")
"""A command line: a name, then arguments; no control characters, no comment."""


class GtpEngine:
    """A connection to a GTP engine: numbered commands, typed answers, timeouts.

    ``size`` (the board size the engine was last told) and ``notation`` are used to read and
    write vertices. Use :meth:`popen` to start a program; use the engine as a context manager (or
    call :meth:`quit`) to stop it.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        notation: Notation = Notation.GTP,
        size: int = 19,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.transport = transport
        self.notation = notation
        self.size = size
        self.timeout = timeout
        self._next_id = 1
        self._broken: str | None = None
        self._commands: frozenset[str] | None = None
        self._closed = False

    @classmethod
    def popen(
        cls,
        command: str | Sequence[str],
        *,
        notation: Notation = Notation.GTP,
        timeout: float = DEFAULT_TIMEOUT,
        cwd: str | Path | None = None,
        stderr: IO[bytes] | int | None = subprocess.DEVNULL,
    ) -> GtpEngine:
        """Start ``command`` (a shell-like string or an argument list) and check it speaks GTP.

        Raises :class:`EngineTerminatedError` when the program cannot start or exits at once, and
        :class:`EngineError` when it does not answer ``protocol_version``.
        """
        args = shlex.split(command) if isinstance(command, str) else list(command)
        engine = cls(PopenTransport(args, cwd=cwd, stderr=stderr), notation=notation)
        engine.timeout = timeout
        try:
            engine.protocol_version()
        except BaseException:
            engine.close()
            raise
        return engine

    # -- context manager ----------------------------------------------------------------------
    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.quit()

    # -- the wire -----------------------------------------------------------------------------
    @property
    def usable(self) -> bool:
        """Whether commands can still be sent (not closed, not dead, no unanswered command)."""
        return not self._closed and self._broken is None and self.transport.is_alive()

    def request(self, command: str, timeout: float | None = None) -> Response:
        """Send ``command`` and return its answer, success or failure, without raising on ``?``."""
        command = command.strip()
        if not _COMMAND_RE.fullmatch(command):
            raise ValueError(f"not a GTP command line: {command!r}")
        if self._closed:
            raise EngineTerminatedError("the engine was closed", command)
        if self._broken is not None:
            raise EngineError(f"the engine is unusable: {self._broken}", command)
        ident = self._next_id
        self._next_id += 1
        try:
            LOGGER.debug(">> %s %s", ident, command)
            self.transport.write_line(f"{ident} {command}")
            return self._read_response(ident, self.timeout if timeout is None else timeout)
        except EngineTimeoutError as error:
            self._broken = f"no answer to {command!r}"
            raise EngineTimeoutError(error.message, command) from None
        except EngineTerminatedError as error:
            self._broken = "the engine exited"
            raise EngineTerminatedError(error.message, command) from None

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send ``command`` and return the text of a successful answer.

        Raises :class:`EngineError` when the engine answers ``? message``.
        """
        response = self.request(command, timeout)
        if not response.ok:
            raise EngineError(response.text or "failed", command.strip())
        return response.text

    def _read_response(self, ident: int, timeout: float | None) -> Response:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            head = self._read_line(deadline)
            if not head.strip() or head[0] not in "=?":
                continue  # blank lines and chatter outside answers are ignored
            lines = [head]
            while True:
                line = self._read_line(deadline)
                if not line.strip():
                    break
                lines.append(line)
            match = re.match(r"([=?])(\d*)\s?(.*)", lines[0], re.DOTALL)
            assert match is not None
            answer_id = int(match.group(2)) if match.group(2) else None
            if answer_id is not None and answer_id < ident:
                continue  # a stale answer to an earlier command
            text = "\n".join([match.group(3), *lines[1:]]).strip()
            return Response(match.group(1) == "=", text, answer_id)

    def _read_line(self, deadline: float | None) -> str:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        line = self.transport.read_line(remaining)
        LOGGER.debug("<< %s", line)
        return line

    # -- shutdown -----------------------------------------------------------------------------
    def quit(self, timeout: float = 2.0) -> None:
        """Say ``quit`` and wait for the program to exit; terminate and then kill it if it does
        not. Safe to call twice and on a dead engine."""
        if self._closed:
            return
        if self.usable:
            with contextlib.suppress(EngineError):
                self.request("quit", timeout=timeout)
            self.close(timeout)
        else:
            self.close(min(timeout, 0.2))  # dead or hung: no point in waiting long

    def close(self, timeout: float = 2.0) -> None:
        """Stop the program without asking (terminate, then kill) and reap it."""
        if not self._closed:
            self._closed = True
            self.transport.close(timeout)

    # -- typed commands -----------------------------------------------------------------------
    def protocol_version(self) -> int:
        """The GTP version the engine speaks (2 for any modern engine)."""
        text = self.send("protocol_version")
        try:
            return int(text.split()[0])
        except (ValueError, IndexError):
            raise EngineError(f"not a version: {text!r}", "protocol_version") from None

    def name(self) -> str:
        return self.send("name")

    def version(self) -> str:
        return self.send("version")

    def list_commands(self) -> frozenset[str]:
        """The commands the engine knows (asked once, then remembered)."""
        if self._commands is None:
            text = self.send("list_commands")
            self._commands = frozenset(line.strip() for line in text.splitlines() if line.strip())
        return self._commands

    def known_command(self, command: str) -> bool:
        return command in self.list_commands()

    def boardsize(self, size: int) -> None:
        """Set the board size (the engine clears its board)."""
        self.send(f"boardsize {size}")
        self.size = size

    def clear_board(self) -> None:
        self.send("clear_board")

    def komi(self, komi: float) -> None:
        self.send(f"komi {komi:g}")

    def play(self, color: Color, move: Move) -> None:
        """Play ``move`` for ``color``. Raises :class:`EngineError` if the engine refuses it."""
        self.send(f"play {color} {self.notation.format(move, self.size)}")

    def genmove(self, color: Color, timeout: float | None = None) -> PlayResult:
        """Ask the engine for a move for ``color`` and play it on its board."""
        started = time.monotonic()
        text = self.send(f"genmove {color}", timeout)
        return PlayResult(self._parse_move(text, "genmove"), time.monotonic() - started, (), text)

    def reg_genmove(self, color: Color, timeout: float | None = None) -> PlayResult:
        """The engine's move for ``color`` without playing it."""
        started = time.monotonic()
        text = self.send(f"reg_genmove {color}", timeout)
        return PlayResult(self._parse_move(text, "reg_genmove"), time.monotonic() - started)

    def genmove_analyze(
        self,
        color: Color,
        timeout: float | None = None,
        *,
        command: str = "lz-genmove_analyze",
        interval: int = 100,
    ) -> PlayResult:
        """``lz-genmove_analyze`` / ``kata-genmove_analyze``: the move and the last analysis."""
        started = time.monotonic()
        text = self.send(f"{command} {color} {interval}", timeout)
        move_text = ""
        analysis: tuple[AnalysisInfo, ...] = ()
        scale = 10000.0 if command.startswith("lz-") else 1.0
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("play "):
                move_text = line.removeprefix("play ").strip()
            elif line.startswith("info "):
                analysis = parse_analysis(line, self.size, self.notation, scale=scale)
        if not move_text:
            raise EngineError(f"no move in the answer: {text!r}", command)
        move = self._parse_move(move_text, command)
        return PlayResult(move, time.monotonic() - started, analysis, text)

    def undo(self) -> None:
        self.send("undo")

    def final_score(self, timeout: float | None = None) -> Score:
        """The engine's count of the finished game."""
        return Score.parse(self.send("final_score", timeout))

    def final_status_list(self, status: str, timeout: float | None = None) -> list[Point]:
        """The points with ``status`` (``dead``, ``alive``, ``seki``) in the engine's view."""
        text = self.send(f"final_status_list {status}", timeout)
        return self._parse_points(text, "final_status_list")

    def fixed_handicap(self, stones: int) -> list[Point]:
        """Place ``stones`` handicap stones where the engine's fixed placement puts them."""
        return self._parse_points(self.send(f"fixed_handicap {stones}"), "fixed_handicap")

    def set_free_handicap(self, points: Iterable[Point]) -> None:
        vertices = " ".join(self.notation.format(Move.play(p), self.size) for p in points)
        self.send(f"set_free_handicap {vertices}")

    def time_settings(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        """Canadian byo-yomi: ``main_time`` s, then ``byo_yomi_stones`` moves per period."""
        self.send(f"time_settings {round(main_time)} {round(byo_yomi_time)} {byo_yomi_stones}")

    def time_left(self, color: Color, seconds: float, stones: int) -> None:
        self.send(f"time_left {color} {round(seconds)} {stones}")

    def showboard(self) -> str:
        return self.send("showboard")

    # -- helpers ------------------------------------------------------------------------------
    def _parse_move(self, text: str, command: str) -> Move:
        word = text.split()[0] if text.split() else ""
        try:
            return self.notation.parse(word, self.size)
        except InvalidMoveError:
            message = f"not a move on a {self.size}x{self.size} board: {text!r}"
            raise EngineError(message, command) from None

    def _parse_points(self, text: str, command: str) -> list[Point]:
        points = []
        for word in text.split():
            move = self._parse_move(word, command)
            if move.point is not None:
                points.append(move.point)
        return points


def parse_analysis(
    line: str, size: int, notation: Notation = Notation.GTP, *, scale: float = 1.0
) -> tuple[AnalysisInfo, ...]:
    """Read one Leela Zero / KataGo ``info move ... pv ...`` analysis line.

    Win rates and priors are divided by ``scale``: ``10000`` for Leela Zero's ``lz-analyze``,
    ``1`` for KataGo's ``kata-analyze`` (already fractions). Unknown fields are skipped.
    """
    candidates = []
    for chunk in line.split("info ")[1:]:
        words = chunk.split()
        fields: dict[str, str] = {}
        pv: list[Move] = []
        index = 0
        while index < len(words):
            key = words[index]
            if key == "pv":
                index += 1
                while index < len(words) and words[index] not in ("info", "ownership"):
                    with contextlib.suppress(InvalidMoveError):
                        pv.append(notation.parse(words[index], size))
                    index += 1
                continue
            if index + 1 < len(words):
                fields[key] = words[index + 1]
            index += 2
        if "move" not in fields:
            continue
        try:
            move = notation.parse(fields["move"], size)
        except InvalidMoveError:
            continue
        candidates.append(
            AnalysisInfo(
                move,
                visits=int(_number(fields.get("visits")) or 0),
                winrate=_scaled(fields.get("winrate"), scale),
                prior=_scaled(fields.get("prior"), scale),
                score_lead=_number(fields.get("scoreLead") or fields.get("scoreMean")),
                pv=tuple(pv),
            )
        )
    return tuple(candidates)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _scaled(text: str | None, scale: float) -> float | None:
    value = _number(text)
    return None if value is None else value / scale
