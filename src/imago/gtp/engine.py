"""The GTP engine (the design's ``ImagoIO``): text in, text out, over a :class:`GameEngine`.

>>> from imago.gtp.game_engine import EngineConfig, GameEngine
>>> engine = GtpServer(GameEngine(EngineConfig("go", size=9)))
>>> engine.handle("1 play black D4")
'=1\\n\\n'

:meth:`GtpServer.handle` answers one line (tests call it directly); :meth:`GtpServer.run` serves
injected streams, reading ahead on a thread so that live analysis (``lz-analyze``,
``kata-analyze``) streams until the next command arrives. Handlers are small functions
registered in :data:`COMMANDS`; any failure, expected or not, is a ``?`` response and leaves
the game unchanged (handlers compute first and change the engine last).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

import numpy as np

from imago import __version__
from imago.agents.base import SearchResult
from imago.core.color import Color
from imago.core.errors import IllegalMoveError, InvalidMoveError, user_path
from imago.core.move import MAX_SIZE, Move, Point
from imago.gtp import analysis, go_support, records_io
from imago.gtp.analysis import AnalyzeRequest, Dialect
from imago.gtp.client import EngineError
from imago.gtp.game_engine import GameEngine
from imago.gtp.protocol import (
    CommandTable,
    GtpError,
    failure,
    parse_command,
    success,
)
from imago.gtp.timecontrol import TimeSettings

Args = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AnalysisJob:
    """A streaming command's work: analyse for ``color`` (and play, for ``genmove_analyze``)."""

    color: Color
    request: AnalyzeRequest
    dialect: Dialect
    genmove: bool


Reply = str | AnalysisJob
Handler = Callable[["GtpServer", Args], Reply]

COMMANDS: CommandTable[Handler] = CommandTable()
"""Every GTP command imago knows, by name."""

GO = ("go",)


class GtpServer:
    """Answers GTP commands for one :class:`GameEngine`."""

    def __init__(self, game: GameEngine, name: str = "imago") -> None:
        self.game = game
        self.name = name
        self.finished = False

    # -- one line ---------------------------------------------------------------------------
    def handle(self, line: str) -> str:
        """The full response to one input line (``""`` for an empty or comment line).

        Analysis commands run to the end of one move's time budget here and answer with all
        their ``info`` lines; :meth:`run` streams them instead.
        """
        command = parse_command(line)
        if command is None:
            return ""
        reply = self._dispatch(command.name, command.args)
        if isinstance(reply, GtpError):
            return failure(command.id, reply.message)
        if isinstance(reply, str):
            return success(command.id, reply)
        lines: list[str] = []
        outcome = self._analyse(reply, lines.append, threading.Event(), live=False)
        if isinstance(outcome, GtpError):
            return failure(command.id, outcome.message)
        return success(command.id, "\n".join([*lines, outcome]))

    def _dispatch(self, name: str, args: Args) -> Reply | GtpError:
        if not name:
            return GtpError("syntax error")
        handler = COMMANDS.get(name, self.game.game)
        if handler is None:
            return GtpError("unknown command")
        try:
            return handler(self, args)
        except GtpError as error:
            return error
        except Exception as error:  # never a traceback: the game is unchanged by design
            return GtpError(f"internal error: {type(error).__name__}: {error}".strip())

    # -- streams ----------------------------------------------------------------------------
    def run(self, stdin: IO[str], stdout: IO[str]) -> None:
        """Serve GTP on ``stdin`` / ``stdout`` until ``quit`` or the end of the input."""
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=_read_lines, args=(stdin, lines), daemon=True)
        reader.start()
        pending: str | None = None
        while not self.finished:
            line = lines.get() if pending is None else pending
            pending = None
            if line == _END:
                break
            command = parse_command(line)
            if command is None:
                continue
            reply = self._dispatch(command.name, command.args)
            if isinstance(reply, AnalysisJob):
                pending = self._stream(command.id, reply, lines, stdout)
            elif isinstance(reply, GtpError):
                _write(stdout, failure(command.id, reply.message))
            else:
                _write(stdout, success(command.id, reply))

    def _stream(
        self, command_id: int | None, job: AnalysisJob, lines: queue.Queue[str], out: IO[str]
    ) -> str | None:
        """Run ``job`` writing its lines as they come; return the input line that stopped it
        (``None`` when the response ended by itself)."""
        stop = threading.Event()
        started = threading.Event()
        done = threading.Event()
        head = "=" if command_id is None else f"={command_id}"

        def emit(text: str) -> None:
            if not started.is_set():
                started.set()
                _write(out, head + "\n")
            if text:
                _write(out, text + "\n")

        def work() -> None:
            outcome = self._analyse(job, emit, stop, live=True)
            if isinstance(outcome, GtpError):
                _write(out, failure(command_id, outcome.message))
            else:
                if outcome:
                    emit(outcome)
                elif not started.is_set():
                    emit("")
                if job.genmove:
                    _write(out, "\n")
            done.set()

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        if job.genmove:  # ends by itself; commands sent meanwhile wait in the queue
            worker.join()
            return None
        while not (done.is_set() and not started.is_set()):
            try:
                next_line = lines.get(timeout=0.02)
            except queue.Empty:
                continue
            stop.set()
            worker.join()
            if started.is_set():
                _write(out, "\n")
            return next_line
        worker.join()
        return None  # the response (an error) was complete on its own

    def _analyse(
        self, job: AnalysisJob, emit: Callable[[str], None], stop: threading.Event, live: bool
    ) -> str | GtpError:
        """Search for ``job``, sending ``info`` lines to ``emit``; return the last line (for
        ``genmove_analyze`` the ``play`` line) or the error. ``live`` analysis runs until
        ``stop`` (the next command), else for one move's budget."""
        game = self.game
        request = job.request
        progress = _Progress(request.seconds)

        def on_info(result: SearchResult) -> None:
            line = analysis.info_line(result, job.dialect, game.format_move, request)
            if progress.due(line):
                emit(line)

        try:
            if job.genmove:
                result = game.genmove(job.color, on_info=on_info, stop=stop)
            else:
                limit = game.analysis_limit() if live else game.limit(job.color)
                result = game.think(job.color, limit, on_info=on_info, stop=stop)
        except (ValueError, IllegalMoveError) as error:
            return GtpError(str(error))
        final = analysis.info_line(result, job.dialect, game.format_move, request)
        if final and final != progress.sent:
            emit(final)
        if job.genmove:
            return f"play {game.format_move(result.move)}"
        if not final and not progress.seen:
            agent = game.agent.name if game.agent is not None else "none"
            return GtpError(f"no search information: agent {agent} does not analyse positions")
        return ""


class _Progress:
    """When to send an interim analysis line: every ``interval`` seconds (never when ``None``),
    never the same line twice in a row."""

    def __init__(self, interval: float | None) -> None:
        self.interval = interval
        self.last_time = float("-inf")
        self.sent = ""
        self.seen = False

    def due(self, line: str) -> bool:
        if not line:
            return False
        self.seen = True
        now = time.monotonic()
        if self.interval is None or now - self.last_time < self.interval or line == self.sent:
            return False
        self.last_time, self.sent = now, line
        return True


_END = ""
"""Put on the line queue at the end of the input (reading a stream never yields ``""``)."""


def _read_lines(stdin: IO[str], lines: queue.Queue[str]) -> None:
    try:
        for line in stdin:
            lines.put(line)
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    lines.put(_END)


def _write(out: IO[str], text: str) -> None:
    try:
        out.write(text)
        out.flush()
    except (OSError, ValueError):
        pass


# -- argument readers ---------------------------------------------------------------------------
def _arity(args: Args, *counts: int) -> None:
    if len(args) not in counts:
        raise GtpError.canonical("syntax")


def _color(text: str) -> Color:
    try:
        return Color.parse(text)
    except ValueError:
        raise GtpError.canonical("syntax") from None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GtpError.canonical("syntax") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpError.canonical("syntax") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise GtpError.canonical("syntax")
    return value


def _move(engine: GtpServer, text: str) -> Move:
    """A vertex or ``pass``: ``syntax error`` when unreadable, ``illegal move`` when off the
    board but otherwise well formed."""
    try:
        return engine.game.parse_move(text)
    except InvalidMoveError:
        pass
    reader = Move.from_algebraic if engine.game.game == "othello" else Move.from_gtp
    try:
        move = reader(text, MAX_SIZE)
    except InvalidMoveError:
        move = Move.RESIGN
    raise GtpError.canonical("illegal" if move.is_play else "syntax")


def _vertices(engine: GtpServer, points: list[Point]) -> str:
    return " ".join(engine.game.format_move(Move.play(p)) for p in points)


# -- the required commands ----------------------------------------------------------------------
@COMMANDS.register("protocol_version")
def _protocol_version(engine: GtpServer, args: Args) -> Reply:
    return "2"


@COMMANDS.register("name")
def _name(engine: GtpServer, args: Args) -> Reply:
    return engine.name


@COMMANDS.register("version")
def _version(engine: GtpServer, args: Args) -> Reply:
    """imago's version and the agent that plays (GUIs show it beside the name)."""
    agent = engine.game.agent
    return __version__ if agent is None else f"{__version__} ({agent.name})"


@COMMANDS.register("known_command")
def _known_command(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    return "true" if COMMANDS.get(args[0], engine.game.game) else "false"


@COMMANDS.register("list_commands")
def _list_commands(engine: GtpServer, args: Args) -> Reply:
    return "\n".join(COMMANDS.names(engine.game.game))


@COMMANDS.register("quit")
def _quit(engine: GtpServer, args: Args) -> Reply:
    engine.finished = True
    return ""


@COMMANDS.register("boardsize")
def _boardsize(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    size = _int(args[0])
    try:  # the rules and the agent decide (Agent.prepare): refused now, never at genmove
        engine.game.new_game(size)
    except ValueError:
        raise GtpError.canonical("size") from None
    return ""


@COMMANDS.register("clear_board")
def _clear_board(engine: GtpServer, args: Args) -> Reply:
    engine.game.new_game()
    return ""


@COMMANDS.register("komi")
def _komi(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    try:
        engine.game.set_komi(_float(args[0]))
    except ValueError as error:  # the rules want komi in half points
        raise GtpError(str(error)) from None
    return ""


@COMMANDS.register("play")
def _play(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 2)
    color, move = _color(args[0]), _move(engine, args[1])
    try:
        engine.game.play(move, color)
    except IllegalMoveError:
        raise GtpError.canonical("illegal") from None
    return ""


@COMMANDS.register("genmove")
def _genmove(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    return engine.game.format_move(_generate(engine, _color(args[0])).move)


def _generate(engine: GtpServer, color: Color) -> SearchResult:
    try:
        return engine.game.genmove(color)
    except IllegalMoveError as error:
        raise GtpError(str(error)) from None
    except EngineError as error:  # an external program behind the agent failed
        raise GtpError(f"the engine behind the agent failed: {error}") from None


@COMMANDS.register("reg_genmove")
def _reg_genmove(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    try:
        result = engine.game.think(_color(args[0]))
    except IllegalMoveError as error:
        raise GtpError(str(error)) from None
    return engine.game.format_move(result.move)


@COMMANDS.register("undo")
def _undo(engine: GtpServer, args: Args) -> Reply:
    if not engine.game.can_undo():
        raise GtpError.canonical("undo")
    engine.game.undo()
    return ""


@COMMANDS.register("showboard")
def _showboard(engine: GtpServer, args: Args) -> Reply:
    return "\n" + board_text(engine.game)


# -- scoring --------------------------------------------------------------------------------
@COMMANDS.register("final_score")
def _final_score(engine: GtpServer, args: Args) -> Reply:
    return engine.game.final_score().result()


@COMMANDS.register("final_status_list")
def _final_status_list(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    if args[0] not in ("alive", "dead", "seki"):
        raise GtpError.canonical("syntax")
    return _vertices(engine, engine.game.final_status(args[0]))


# -- handicap (Go) --------------------------------------------------------------------------
@COMMANDS.register("fixed_handicap", games=GO)
def _fixed_handicap(engine: GtpServer, args: Args) -> Reply:
    return _handicap(engine, args, engine.game.fixed_handicap)


@COMMANDS.register("place_free_handicap", games=GO)
def _place_free_handicap(engine: GtpServer, args: Args) -> Reply:
    return _handicap(engine, args, engine.game.free_handicap)


def _handicap(engine: GtpServer, args: Args, place: Callable[[int], tuple[Point, ...]]) -> Reply:
    _arity(args, 1)
    stones = _int(args[0])
    if engine.game.moves() or engine.game.handicap_stones():
        raise GtpError.canonical("not_empty")
    try:
        return _vertices(engine, list(place(stones)))
    except ValueError as error:
        key = "not_empty" if "not empty" in str(error) else "handicap"
        raise GtpError.canonical(key) from None


@COMMANDS.register("set_free_handicap", games=GO)
def _set_free_handicap(engine: GtpServer, args: Args) -> Reply:
    points = []
    for text in args:
        try:
            move = engine.game.parse_move(text)
        except InvalidMoveError:
            raise GtpError.canonical("vertex_list") from None
        if move.point is None:
            raise GtpError.canonical("vertex_list")
        points.append(move.point)
    if engine.game.moves() or engine.game.handicap_stones():
        raise GtpError.canonical("not_empty")
    if not 2 <= len(points) < engine.game.size**2:
        raise GtpError.canonical("handicap")
    try:
        engine.game.set_handicap(points)
    except ValueError:
        raise GtpError.canonical("vertex_list") from None
    return ""


# -- time ---------------------------------------------------------------------------------------
@COMMANDS.register("time_settings")
def _time_settings(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 3)
    main, byo, stones = _float(args[0]), _float(args[1]), _int(args[2])
    try:
        engine.game.set_time(TimeSettings.from_gtp(main, byo, stones))
    except ValueError:
        raise GtpError.canonical("syntax") from None
    return ""


@COMMANDS.register("kgs-time_settings")
def _kgs_time_settings(engine: GtpServer, args: Args) -> Reply:
    try:
        engine.game.set_time(TimeSettings.from_kgs(args))
    except ValueError:
        raise GtpError.canonical("syntax") from None
    return ""


@COMMANDS.register("time_left")
def _time_left(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 3)
    color, seconds, stones = _color(args[0]), _float(args[1]), _int(args[2])
    try:
        engine.game.set_time_left(color, seconds, stones)
    except ValueError:
        raise GtpError.canonical("syntax") from None
    return ""


# -- KGS and GNU Go extensions --------------------------------------------------------------
@COMMANDS.register("kgs-genmove_cleanup", games=GO)
def _kgs_genmove_cleanup(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    return engine.game.format_move(engine.game.cleanup_move(_color(args[0])).move)


@COMMANDS.register("kgs-rules", games=GO)
def _kgs_rules(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    name = go_support.KGS_RULES.get(args[0].lower(), args[0].lower())
    if name not in go_support.RULE_NAMES:
        raise GtpError(f"unknown rules {args[0]!r}")
    engine.game.set_rules(name)
    return ""


@COMMANDS.register("is_legal")
def _is_legal(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 2)
    color = _color(args[0])
    try:
        move = engine.game.parse_move(args[1])
    except InvalidMoveError:
        return "0"
    return "1" if engine.game.is_legal(move, color) else "0"


@COMMANDS.register("list_stones")
def _list_stones(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    board = engine.game.state.board()
    rows, cols = np.nonzero(board == int(_color(args[0])))
    return _vertices(engine, [Point(int(r), int(c)) for r, c in zip(rows, cols, strict=True)])


@COMMANDS.register("captures", games=GO)
def _captures(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    return str(engine.game.captures(_color(args[0])))


@COMMANDS.register("list_games")
def _list_games(engine: GtpServer, args: Args) -> Reply:
    return engine.game.game.capitalize()


@COMMANDS.register("set_game")
def _set_game(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1)
    if args[0].lower() != engine.game.game:
        raise GtpError("unsupported game")
    return ""


# -- records ------------------------------------------------------------------------------
@COMMANDS.register("loadsgf")
def _loadsgf(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 1, 2)
    move_number = _int(args[1]) if len(args) == 2 else None
    try:
        records_io.load_sgf(engine.game, user_path(args[0]), move_number)
    except (OSError, ValueError, IllegalMoveError):
        raise GtpError.canonical("load") from None
    return ""


@COMMANDS.register("printsgf")
def _printsgf(engine: GtpServer, args: Args) -> Reply:
    _arity(args, 0, 1)
    if not args:
        return "\n" + records_io.sgf_text(engine.game)
    try:
        records_io.save_sgf(engine.game, user_path(args[0]))
    except (OSError, ValueError):
        raise GtpError.canonical("save") from None
    return ""


# -- analysis -------------------------------------------------------------------------------
def _job(engine: GtpServer, args: Args, dialect: Dialect, genmove: bool) -> AnalysisJob:
    try:
        request = analysis.parse_request(args)
    except ValueError:
        raise GtpError.canonical("syntax") from None
    if genmove and request.color is None:
        raise GtpError.canonical("syntax")
    if engine.game.agent is None:
        raise GtpError("no agent to analyse with")
    color = request.color or engine.game.state.to_play
    return AnalysisJob(color, request, dialect, genmove)


@COMMANDS.register("lz-analyze")
def _lz_analyze(engine: GtpServer, args: Args) -> Reply:
    return _job(engine, args, Dialect.LEELA, genmove=False)


@COMMANDS.register("kata-analyze")
def _kata_analyze(engine: GtpServer, args: Args) -> Reply:
    return _job(engine, args, Dialect.KATAGO, genmove=False)


@COMMANDS.register("lz-genmove_analyze")
def _lz_genmove_analyze(engine: GtpServer, args: Args) -> Reply:
    return _job(engine, args, Dialect.LEELA, genmove=True)


@COMMANDS.register("kata-genmove_analyze")
def _kata_genmove_analyze(engine: GtpServer, args: Args) -> Reply:
    return _job(engine, args, Dialect.KATAGO, genmove=True)


ANALYZE_COMMANDS = {
    "go": [
        "string/Show board/showboard",
        "string/Final score/final_score",
        "plist/Dead stones/final_status_list dead",
        "plist/Alive stones/final_status_list alive",
        "string/Captures by Black/captures black",
        "string/Captures by White/captures white",
        "var/Suggest a move/reg_genmove %m",
    ],
    "othello": [
        "string/Show board/showboard",
        "string/Final score/final_score",
        "var/Suggest a move/reg_genmove %m",
    ],
}


@COMMANDS.register("gogui-analyze_commands")
def _gogui_analyze_commands(engine: GtpServer, args: Args) -> Reply:
    return "\n".join(ANALYZE_COMMANDS[engine.game.game])


# -- the board as text ----------------------------------------------------------------------
def board_text(game: GameEngine) -> str:
    """The board as plain text: Go as GNU Go draws it (row 1 at the bottom, columns without
    ``I``); Othello as gtp-rhino draws it (row 1 at the top)."""
    state = game.state
    board = state.board()
    size = state.size
    marks = {0: ".", int(Color.BLACK): "X", int(Color.WHITE): "O"}
    if game.game == "othello":
        letters = " ".join(chr(ord("a") + c) for c in range(size))
        rows = [f"{r + 1:>3} " + " ".join(marks[int(v)] for v in board[r]) for r in range(size)]
        return "\n".join([f"Next move: {state.to_play.name.title()}", "    " + letters, *rows])
    letters = " ".join(Move.play(Point(0, c)).to_gtp(size)[0] for c in range(size))
    lines = ["    " + letters]
    for r in range(size):
        number = size - r
        stones = " ".join(marks[int(v)] for v in board[r])
        lines.append(f"{number:>3} {stones} {number}")
    lines.append("    " + letters)
    black, white = game.captures(Color.BLACK), game.captures(Color.WHITE)
    lines.append(f"to play: {state.to_play}; captures: black {black}, white {white}")
    return "\n".join(lines)
