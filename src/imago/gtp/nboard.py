"""The NBoard protocol: imago as an engine of the NBoard Othello GUI (and of any GUI that speaks
it, as Edax and NTest do).

The protocol (C. Welty, *NBoard Protocol*, versions 1 and 2) is one command a line from the
GUI; this engine answers:

=================================  =========================================================
GUI to engine                      engine's reply
=================================  =========================================================
``nboard 2``                       nothing (the session starts; versions 1 and 2 are spoken)
``set depth 6``                    ``set myname imago6``: the search depth of ``go`` / ``hint``
``set game (;GM[Othello]...;)``    nothing: the position is the end of that GGF game
``set contempt 0``                 nothing (imago plays for the disc count, no contempt)
``move F5/-1.00/2.5`` (or ``F5``)  nothing: the move is played (``PA``: a pass)
``hint 3``                         ``status ...``, ``search PV EVAL 0 DEPTH`` for the best 3
                                   moves, ``nodestats NODES SECONDS``, ``status``
``go``                             ``status ...``, ``nodestats``, ``=== F5/EVAL/SECONDS``
                                   (the move is not played: the GUI sends ``move``)
``ping 7``                         ``pong 7`` (a search under way stops first)
``learn``                          ``learned`` (imago keeps no opening book to learn into)
``quit``                           the engine ends
=================================  =========================================================

Evaluations are in discs from the side to move's view. Lines the engine does not understand
are ignored, as the protocol asks; a command it cannot carry out (an illegal move, a GGF game
it cannot read) changes nothing and is reported on standard error, where the GUI does not look.

:meth:`NboardServer.handle` answers one line (tests call it directly); :meth:`NboardServer.run`
serves streams, reading ahead on a thread so that a line arriving during a search stops it.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import IO

from imago.agents.base import Candidate, Limit, SearchResult
from imago.core.errors import IllegalMoveError, InvalidMoveError
from imago.core.move import Move
from imago.gtp.game_engine import Event, GameEngine, Placement, Play

VERSIONS = (1, 2)
"""The protocol versions spoken."""

Output = Callable[[str], None]


class NboardServer:
    """Answers NBoard commands for one Othello :class:`GameEngine`.

    ``max_time`` caps the seconds of one search (the protocol gives no clock), ``name`` is the
    engine name reported with ``set myname``; ``errors`` receives the messages about commands
    that could not be carried out.
    """

    def __init__(
        self,
        game: GameEngine,
        *,
        name: str = "imago",
        max_time: float = 60.0,
        errors: IO[str] | None = None,
    ) -> None:
        if game.game != "othello":
            raise ValueError("the NBoard protocol plays Othello")
        self.game = game
        self.name = name
        self.max_time = max_time
        self.depth = 12
        self.version = 0
        self.finished = False
        self.errors = errors if errors is not None else sys.stderr

    # -- one line ---------------------------------------------------------------------------
    def handle(self, line: str, stop: threading.Event | None = None) -> list[str]:
        """The lines answering one input line (none for most commands)."""
        out: list[str] = []
        self.execute(line, out.append, stop or threading.Event())
        return out

    def execute(self, line: str, send: Output, stop: threading.Event) -> None:
        """Carry out one line, sending the replies to ``send``; a search stops when ``stop`` is
        set."""
        words = line.split()
        if not words:
            return
        command, rest = words[0], line.strip()[len(words[0]) :].strip()
        handler = _COMMANDS.get(command)
        try:
            if handler is not None:
                handler(self, rest, send, stop)
            elif command == "set" and len(words) >= 2 and words[1] in _SETTINGS:
                _SETTINGS[words[1]](self, rest[len(words[1]) :].strip(), send, stop)
            elif len(command) == 2 and len(words) == 1:  # version 1: a bare move, "F5"
                self._move(command, send, stop)
            else:
                self._complain(f"ignored: {line.strip()!r}")
        except (ValueError, IllegalMoveError, InvalidMoveError) as error:
            self._complain(f"{line.strip()[:60]!r}: {error}")

    def _complain(self, message: str) -> None:
        print(f"imago nboard: {message}", file=self.errors, flush=True)

    # -- the commands -----------------------------------------------------------------------
    def _nboard(self, rest: str, send: Output, stop: threading.Event) -> None:
        version = int(rest.split()[0]) if rest.split() else 0
        if version not in VERSIONS:
            self._complain(f"protocol version {version}: imago speaks versions 1 and 2")
        self.version = version

    def _set_depth(self, rest: str, send: Output, stop: threading.Event) -> None:
        depth = int(rest.split()[0])
        if not 1 <= depth <= 60:
            raise ValueError("the depth must be within 1..60")
        self.depth = depth
        send(f"set myname {self.name}{depth}")

    def _set_game(self, rest: str, send: Output, stop: threading.Event) -> None:
        from imago.records import ggf

        game = ggf.read_game(rest, strict=True)
        events: list[Event] = []
        if game.setup:
            setup = game.setup
            events.append(Placement(setup.black, setup.white, setup.empty, setup.to_play))
        events += [Play(color, move) for color, move in game.mainline_plays()]
        self.game.load(game.size, events)

    def _set_contempt(self, rest: str, send: Output, stop: threading.Event) -> None:
        float(rest.split()[0])  # a number, as the protocol says; imago has no contempt

    def _move(self, rest: str, send: Output, stop: threading.Event) -> None:
        text = rest.split("/")[0].strip()
        if not text:
            raise ValueError("a move is missing")
        move = Move.PASS if text.upper() in ("PA", "PASS") else self.game.parse_move(text.lower())
        self.game.play(move)

    def _hint(self, rest: str, send: Output, stop: threading.Event) -> None:
        count = int(rest.split()[0]) if rest.split() else 1
        if count < 1:
            raise ValueError("hint needs a number of moves, at least 1")
        send(f"status {self.name} is thinking")
        result, seconds = self._search(send, stop)
        for candidate in result.candidates[:count] or _only(result):
            pv = "-".join(self._text(m) for m in (candidate.pv or (candidate.move,)))
            value = candidate.value if candidate.value is not None else 0.0
            send(f"search {pv} {value:.2f} 0 {result.depth or 0}")
        send(f"nodestats {result.nodes} {seconds:.2f}")
        send("status")

    def _go(self, rest: str, send: Output, stop: threading.Event) -> None:
        send(f"status {self.name} is thinking")
        result, seconds = self._search(send, stop)
        send(f"nodestats {result.nodes} {seconds:.2f}")
        value = "" if result.value is None else f"{result.value:.2f}"
        send(f"=== {self._text(result.move)}/{value}/{seconds:.1f}")
        send("status")

    def _ping(self, rest: str, send: Output, stop: threading.Event) -> None:
        send(f"pong {rest.split()[0] if rest.split() else ''}".rstrip())

    def _learn(self, rest: str, send: Output, stop: threading.Event) -> None:
        send("learned")

    def _quit(self, rest: str, send: Output, stop: threading.Event) -> None:
        self.finished = True

    # -- helpers ----------------------------------------------------------------------------
    def _search(self, send: Output, stop: threading.Event) -> tuple[SearchResult, float]:
        state = self.game.state
        if state.is_over():
            raise ValueError("the game is over")
        limit = Limit(time=self.max_time, depth=self.depth)
        started = time.monotonic()
        result = self.game.think(state.to_play, limit, stop=stop)
        return result, time.monotonic() - started

    @staticmethod
    def _text(move: Move) -> str:
        return "PA" if move.is_pass else move.to_algebraic().upper()

    # -- streams ----------------------------------------------------------------------------
    def run(self, stdin: IO[str], stdout: IO[str]) -> None:
        """Serve the protocol on ``stdin`` / ``stdout`` until ``quit`` or the end of input; a
        line that arrives during a search stops that search (its answer is still sent)."""
        lines: queue.Queue[str | None] = queue.Queue()
        stop = threading.Event()

        def read() -> None:
            for line in stdin:
                lines.put(line)
                stop.set()
            lines.put(None)
            stop.set()

        threading.Thread(target=read, daemon=True).start()

        def send(text: str) -> None:
            stdout.write(text + "\n")
            stdout.flush()

        while not self.finished:
            line = lines.get()
            if line is None:
                break
            stop.clear()
            if not lines.empty():
                stop.set()  # more input already waits: do not start a long search
            self.execute(line, send, stop)


def _only(result: SearchResult) -> tuple[Candidate, ...]:
    """A result without candidates as its one line."""
    return (Candidate(result.move, value=result.value, pv=result.pv or (result.move,)),)


_COMMANDS: dict[str, Callable[[NboardServer, str, Output, threading.Event], None]] = {
    "nboard": NboardServer._nboard,
    "move": NboardServer._move,
    "hint": NboardServer._hint,
    "go": NboardServer._go,
    "ping": NboardServer._ping,
    "learn": NboardServer._learn,
    "quit": NboardServer._quit,
}
_SETTINGS: dict[str, Callable[[NboardServer, str, Output, threading.Event], None]] = {
    "depth": NboardServer._set_depth,
    "game": NboardServer._set_game,
    "contempt": NboardServer._set_contempt,
}
