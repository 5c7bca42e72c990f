"""Terminal play: people and agents at one board, as a client of the engine core.

:class:`TerminalGame` reads commands through an injected ``read(prompt) -> str`` and draws on an
injected rich ``Console``, so tests drive it directly and the command line gives it the real
terminal. It talks only to :class:`~imago.gtp.game_engine.GameEngine`, like the GTP engine.

Commands at a person's turn: a move (``D4`` in Go, ``f5`` in Othello), ``pass``, ``undo``,
``resign``, ``hint``, ``save FILE.sgf``, ``load FILE.sgf``, ``help``, ``quit``. A wrong move or
command says why, in colour, and changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.text import Text

from imago.agents.base import Agent
from imago.core.color import Color
from imago.core.errors import IllegalMoveError, InvalidMoveError
from imago.core.game import Outcome
from imago.core.move import Move
from imago.gtp import records_io
from imago.gtp.game_engine import GameEngine
from imago.ui.board import disc_counts, render_board

Reader = Callable[[str], str]

HELP = (
    "commands: a move ({example}), pass, undo, resign, hint, save FILE.sgf, load FILE.sgf, "
    "help, quit"
)


class Quit(Exception):
    """The person asked to leave (``quit``, end of input)."""


@dataclass
class Seats:
    """Who plays each colour: an agent, or ``None`` for a person at the keyboard."""

    black: Agent | None = None
    white: Agent | None = None
    hint: Agent | None = None
    """The agent that answers ``hint`` (default: the first agent seated)."""
    names: dict[Color, str] = field(default_factory=dict)

    def agent(self, color: Color) -> Agent | None:
        return self.black if color is Color.BLACK else self.white

    def name(self, color: Color) -> str:
        agent = self.agent(color)
        return self.names.get(color) or ("human" if agent is None else agent.name)

    @property
    def hint_agent(self) -> Agent | None:
        return self.hint or self.black or self.white


class TerminalGame:
    """One game in the terminal; :meth:`run` plays it to the end or until the person quits."""

    def __init__(
        self,
        engine: GameEngine,
        seats: Seats,
        console: Console,
        read: Reader,
        *,
        delay: float = 0.0,
        offer_save: bool = True,
    ) -> None:
        self.engine = engine
        self.seats = seats
        self.console = console
        self.read = read
        self.delay = delay
        self.offer_save = offer_save
        self.resigned: Color | None = None

    # -- the loop ---------------------------------------------------------------------------
    def run(self) -> Outcome | None:
        """Play until the game ends (its outcome) or the person quits (``None``)."""
        self.show()
        try:
            while (outcome := self.outcome()) is None:
                self.turn()
        except (Quit, KeyboardInterrupt):
            self.console.print("[yellow]Game left unfinished. Bye.[/]")
            return None
        self.finish(outcome)
        return outcome

    def outcome(self) -> Outcome | None:
        """The outcome once the game is over (scored by the rules), else ``None``."""
        if self.resigned is not None:
            return Outcome(self.resigned.opponent, by_resignation=True)
        if not self.engine.state.is_over():
            return None
        return self.engine.final_score()

    def turn(self) -> None:
        """One move: the agent's, or the person's commands until a move is made."""
        state = self.engine.state
        color = state.to_play
        if self.engine.game == "othello" and not any(m.is_play for m in state.legal_moves()):
            self.engine.play(Move.PASS)
            self.say(f"{color} has no legal move and passes.", "bold yellow")
            self.show()
            return
        agent = self.seats.agent(color)
        if agent is not None:
            self.agent_turn(color, agent)
        else:
            self.human_turn(color)

    def agent_turn(self, color: Color, agent: Agent) -> None:
        """The agent plays (or resigns) for ``color``."""
        if self.delay:
            time.sleep(self.delay)
        with self.console.status(f"{self.seats.name(color)} ({color}) is thinking…"):
            result = self.engine.genmove(color, agent=agent)
        if result.move.is_resign:
            self.resigned = color
            self.say(f"{color} ({self.seats.name(color)}) resigns.", "bold yellow")
            return
        self.say(f"{color} ({self.seats.name(color)}) plays {self.engine.format_move(result.move)}")
        self.show()

    def human_turn(self, color: Color) -> None:
        """Read commands until one of them ends the person's turn."""
        while True:
            try:
                line = self.read(f"{color} to play> ")
            except EOFError:
                raise Quit from None
            if self.command(line.strip(), color):
                return

    # -- commands ---------------------------------------------------------------------------
    def command(self, line: str, color: Color) -> bool:
        """Carry out one command; ``True`` when the turn is over."""
        word, _, rest = line.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if not word:
            return False
        if word in ("quit", "exit", "q"):
            raise Quit
        if word in ("help", "?", "h"):
            self.say(HELP.format(example="D4" if self.engine.game == "go" else "f5"))
            return False
        if word == "resign":
            self.resigned = color
            self.say(f"{color} resigns.", "bold yellow")
            return True
        action = {
            "undo": self.undo,
            "hint": self.hint,
            "save": self.save,
            "load": self.load,
        }.get(word)
        if action is not None:
            return action(rest)
        return self.move(line, color)

    def move(self, text: str, color: Color) -> bool:
        """Play the person's move, or explain why not."""
        try:
            move = self.engine.parse_move(text)
            self.engine.play(move, color)
        except InvalidMoveError as error:
            self.error(f"{text!r} is not a move or command here: {error}. Type help.")
            return False
        except IllegalMoveError as error:
            self.error(f"{text} is illegal: {error.reason.value}.")
            return False
        if move.is_pass:
            self.say(f"{color} passes.")
        self.show()
        return True

    def undo(self, _: str) -> bool:
        """Take back the last move, and the agent's reply before it, back to a person's turn."""
        engine = self.engine
        if not engine.can_undo():
            self.error("Nothing to undo.")
            return False
        engine.undo()
        while engine.can_undo() and self.seats.agent(engine.state.to_play) is not None:
            engine.undo()
        self.say("Move taken back.")
        self.show()
        return True

    def hint(self, _: str) -> bool:
        """Show what the hint agent would play; the game does not change."""
        agent = self.seats.hint_agent
        if agent is None:
            self.error("No agent to ask for a hint.")
            return False
        color = self.engine.state.to_play
        result = self.engine.think(color, agent=agent)
        extra = "" if result.winrate is None else f" (win rate {result.winrate:.0%})"
        self.say(f"hint: {agent.name} would play {self.engine.format_move(result.move)}{extra}")
        return False

    def save(self, name: str) -> bool:
        """Write the game so far as SGF."""
        if not name:
            self.error("save needs a file name: save FILE.sgf")
            return False
        try:
            records_io.save_sgf(self.engine, Path(name), self.record_info())
        except OSError as error:
            self.error(f"cannot save {name}: {error.strerror or error}")
            return False
        self.say(f"Saved {name}.", "green")
        return False

    def load(self, name: str) -> bool:
        """Replace the game with the main line of an SGF file."""
        if not name:
            self.error("load needs a file name: load FILE.sgf")
            return False
        try:
            records_io.load_sgf(self.engine, Path(name))
        except (OSError, ValueError) as error:
            self.error(f"cannot load {name}: {error}")
            return False
        self.resigned = None
        self.say(f"Loaded {name}.", "green")
        self.show()
        return True

    # -- output -----------------------------------------------------------------------------
    def show(self) -> None:
        """Draw the board and the status line."""
        state = self.engine.state
        self.console.print(render_board(state))
        self.console.print(self.status_line())

    def status_line(self) -> Text:
        """Whose turn, move number, captures (Go) or discs (Othello), and the last move."""
        state = self.engine.state
        engine = self.engine
        text = Text()
        if not state.is_over():
            who = self.seats.name(state.to_play)
            text.append(f"{state.to_play} ({who}) to play", style="bold")
        else:
            text.append("game over", style="bold")
        text.append(f" · move {state.move_number}")
        if state.last_move is not None:
            text.append(f" · last {engine.format_move(state.last_move)}")
        if engine.game == "go":
            black, white = engine.captures(Color.BLACK), engine.captures(Color.WHITE)
            text.append(f" · captures B {black} W {white} · komi {state_komi(engine)}")
        else:
            black, white = disc_counts(state)
            text.append(f" · discs B {black} W {white}")
        return text

    def finish(self, outcome: Outcome) -> None:
        """Show the result and offer to save the game."""
        self.console.print(Text(f"Game over: {describe(outcome, self.engine.game)}", "bold green"))
        if not outcome.by_resignation and self.engine.game == "go":
            dead = sorted(self.engine.dead_stones())
            if dead:
                names = " ".join(self.engine.format_move(Move.play(p)) for p in dead)
                self.say(f"Dead stones (imago's count): {names}", "dim")
        if not self.offer_save:
            return
        try:
            name = self.read("Save the game? File name (Enter to skip): ").strip()
        except EOFError:
            return
        if name:
            self.save(name)

    def record_info(self) -> dict[str, str]:
        """Player names and result for the saved record."""
        info = {"PB": self.seats.name(Color.BLACK), "PW": self.seats.name(Color.WHITE)}
        outcome = self.outcome()
        if outcome is not None:
            info["RE"] = outcome.result()
        return info

    def say(self, message: str, style: str = "") -> None:
        self.console.print(Text(message, style))

    def error(self, message: str) -> None:
        self.console.print(Text(message, "bold red"))


def state_komi(engine: GameEngine) -> str:
    """The komi in effect, as text."""
    komi = getattr(engine.state, "komi", 0.0)
    return f"{komi:g}"


def describe(outcome: Outcome, game: str) -> str:
    """The result in words: ``B+3.5 (black 45, white 41.5)``, ``W+R``, ``draw``."""
    if outcome.by_resignation:
        return f"{outcome.result()} ({outcome.winner} wins by resignation)"
    head = "draw" if outcome.winner is None else f"{outcome.result()} ({outcome.winner} wins)"
    if outcome.black_score is None or outcome.white_score is None:
        return head
    unit = "discs" if game == "othello" else "points"
    return f"{head}; {unit}: black {outcome.black_score:g}, white {outcome.white_score:g}"
