"""Helpers for the GTP engine tests: engines over the real games, an analysing fake agent."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

from imago.agents.base import Agent, Candidate, InfoCallback, Limit, SearchResult, StopFlag
from imago.agents.registry import make_agent
from imago.core.game import GameState
from imago.core.move import Move
from imago.gtp.engine import GtpServer
from imago.gtp.game_engine import EngineConfig, GameEngine


@dataclass
class AnalysingAgent(Agent):
    """Plays the first legal play (or pass) and reports search information: ``updates`` interim
    results ``pause`` seconds apart, or (``forever``) until asked to stop."""

    updates: int = 3
    pause: float = 0.01
    forever: bool = False
    passes: bool = False
    limits: list[Limit] = field(default_factory=list)
    name: str = "analysing"

    def select_move(
        self,
        state: GameState,
        limit: Limit,
        *,
        on_info: InfoCallback | None = None,
        stop: StopFlag | None = None,
    ) -> SearchResult:
        self.limits.append(limit)
        plays = [m for m in state.legal_moves() if m.is_play][:3] or list(state.legal_moves())
        visits = 0
        if self.passes:
            plays = [Move.PASS]
        result = SearchResult(plays[0])
        n = 0
        while self.forever or n < self.updates:
            if stop is not None and stop.is_set():
                break
            n += 1
            visits += 10
            candidates = tuple(
                Candidate(m, visits // (i + 1), 0.6 - 0.1 * i, 0.5 / (i + 1), None, (m,))
                for i, m in enumerate(plays)
            )
            result = SearchResult(plays[0], 0.6, None, (plays[0],), visits, 1, 0.0, candidates)
            if on_info is not None:
                on_info(result)
            time.sleep(self.pause)
        return result


def make_server(
    game: str = "go", agent: Agent | str | None = "random", **config: object
) -> GtpServer:
    """A GTP server over a fresh engine core; ``agent`` by name (seeded) or an instance."""
    player = make_agent(agent, game, seed=7) if isinstance(agent, str) else agent
    return GtpServer(GameEngine(EngineConfig(game, **config), player))  # type: ignore[arg-type]


def ask(server: GtpServer, line: str) -> str:
    """The response text of a successful command (fails the test on ``?``)."""
    response = server.handle(line)
    assert response.startswith("="), (line, response)
    assert response.endswith("\n\n")
    return response[1:].strip()


def refuse(server: GtpServer, line: str) -> str:
    """The message of a failed command (fails the test on ``=``)."""
    response = server.handle(line)
    assert response.startswith("?"), (line, response)
    return response[1:].strip()


class Pipe:
    """A minimal GTP controller over a child process's pipes, for third-party engines."""

    def __init__(self, argv: list[str]) -> None:
        import subprocess

        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def send(self, command: str) -> tuple[bool, str]:
        """Send one command; ``(succeeded, text)`` of its response."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            assert line, f"engine closed its output after {command!r}"
            if line.strip() == "" and lines:
                break
            if line.strip() or lines:
                lines.append(line.rstrip("\n"))
        text = "\n".join(lines)
        return text.startswith("="), text[1:].strip()

    def ok(self, command: str) -> str:
        succeeded, text = self.send(command)
        assert succeeded, (command, text)
        return text

    def close(self) -> None:
        with contextlib.suppress(AssertionError, OSError):
            self.send("quit")
        self.process.wait(timeout=10)
