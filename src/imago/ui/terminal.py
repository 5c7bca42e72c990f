"""Terminal play: people and agents at one board, as a client of the engine core.

:class:`TerminalGame` reads commands through an injected ``read(prompt) -> str`` and draws on an
injected rich ``Console``, so tests drive it directly and the command line gives it the real
terminal. It talks only to :class:`~imago.gtp.game_engine.GameEngine`, like the GTP engine.

Commands at a person's turn: a move (``D4`` in Go, ``f5`` in Othello), ``pass``, ``undo``,
``resign``, ``hint``, ``save FILE``, ``load FILE``, ``help``, ``quit``. A wrong move or
command says why, in colour, and changes nothing. ``save`` and ``load`` go by the file's
extension as ``imago records`` does (``.sgf``; Othello also ``.txt`` transcripts and ``.wtb``).

An agent that fails (an external program that dies) ends the game with a message, and the
game so far is saved to a new file in the current folder; no traceback reaches the terminal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.text import Text

from imago.agents.base import Agent, AgentError
from imago.core.color import Color
from imago.core.errors import IllegalMoveError, InvalidMoveError, os_error_text
from imago.core.game import GameState, Outcome
from imago.core.move import Move
from imago.gtp import records_io
from imago.gtp.client import EngineError
from imago.gtp.game_engine import GameEngine
from imago.ui.board import disc_counts, render_board

Reader = Callable[[str], str]

HELP = (
    "commands: a move ({example}), pass, undo, resign, hint, save FILE.sgf, load FILE.sgf, "
    "help, quit"
)
QUIT_WORDS = ("quit", "exit", "q")
NO_WORDS = ("n", "no", *QUIT_WORDS)
"""Answers to "Save the game?" that mean no (never a file name)."""


class Quit(Exception):
    """The person asked to leave (``quit``, end of input)."""


class AgentStopped(Exception):
    """An agent failed during its move; the game cannot go on."""


@dataclass
class Seats:
    """Who plays each colour: an agent, or ``None`` for a person at the keyboard."""

    black: Agent | None = None
    white: Agent | None = None
    hint: Agent | None = None
    """The agent that answers ``hint`` (default: the first agent seated)."""
    names: dict[Color, str] = field(default_factory=dict)
    make_hint: Callable[[int], Agent | None] | None = None
    """Makes the hint agent for a board size, at the first ``hint`` (when no agent is
    seated: ``imago play`` asks the strongest engine)."""

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
        self.failure: str | None = None
        """Why the game stopped, when an agent failed."""
        self.finished_record: GameState | None = None
        """The final position of a finished game that was loaded, while nothing changed it."""
        self._made_hints: dict[int, Agent | None] = {}
        for agent in (seats.black, seats.white, seats.hint):
            if agent is not None:
                engine.add_player(agent)  # a board it cannot play is refused at load

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
        except AgentStopped:
            return None
        self.finish(outcome)
        return outcome

    def outcome(self) -> Outcome | None:
        """The outcome once the game is over (scored by the rules), else ``None`` (also while
        a finished game that was loaded is looked at, until a move or ``undo`` changes it)."""
        if self.resigned is not None:
            return Outcome(self.resigned.opponent, by_resignation=True)
        if not self.engine.state.is_over() or self.reviewing:
            return None
        return self.engine.final_score()

    @property
    def reviewing(self) -> bool:
        """Whether a finished game that was loaded is on the board, unchanged."""
        return self.finished_record is not None and self.finished_record is self.engine.state

    def turn(self) -> None:
        """One move: the agent's, or the person's commands until a move is made."""
        state = self.engine.state
        color = state.to_play
        if self.reviewing:
            self.human_turn(color)  # the game is over: commands only (Go may play on)
            return
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
        try:
            with self.console.status(f"{self.seats.name(color)} ({color}) is thinking…"):
                result = self.engine.genmove(color, agent=agent)
        except (EngineError, AgentError) as error:
            self.agent_failed(color, str(error))
        except Exception as error:  # a bug in an agent: say so, keep the game
            self.agent_failed(color, f"internal error {type(error).__name__}: {error}")
        if result.move.is_resign:
            self.resigned = color
            self.say(f"{color} ({self.seats.name(color)}) resigns.", "bold yellow")
            return
        self.say(f"{color} ({self.seats.name(color)}) plays {self.engine.format_move(result.move)}")
        self.show()

    def agent_failed(self, color: Color, reason: str) -> NoReturn:
        """Say that ``color``'s agent failed, save the game so far, and end it."""
        self.failure = f"{color} ({self.seats.name(color)}) cannot go on: {reason}"
        self.error(self.failure)
        name = autosave_name(self.engine.game)
        try:
            records_io.save_record(self.engine, Path(name), self.record_info())
        except OSError as error:
            self.error(f"The game could not be saved in {name}: {os_error_text(error)}")
        except ValueError as error:
            self.error(f"The game could not be saved: {error}")
        else:
            self.say(f"The game so far is saved in {name}: `load {name}` goes on from there.")
        raise AgentStopped

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
        if word in QUIT_WORDS:
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
        try:
            agent = self.hint_agent()
        except ValueError as error:
            self.error(f"No hint: {error}")
            return False
        if agent is None:
            self.error("No agent to ask for a hint.")
            return False
        color = self.engine.state.to_play
        try:
            with self.console.status(f"{agent.name} is thinking…"):
                result = self.engine.think(color, agent=agent)
        except (EngineError, ValueError) as error:
            self.error(f"No hint: {agent.name} failed: {error}")
            return False
        extra = "" if result.winrate is None else f" (win rate {result.winrate:.0%})"
        self.say(f"hint: {agent.name} would play {self.engine.format_move(result.move)}{extra}")
        return False

    def hint_agent(self) -> Agent | None:
        """The agent that answers ``hint``: the seats', else one made for this board size."""
        agent = self.seats.hint_agent
        if agent is not None or self.seats.make_hint is None:
            return agent
        size = self.engine.size
        if size not in self._made_hints:
            self._made_hints[size] = self.seats.make_hint(size)
        return self._made_hints[size]

    def save(self, name: str) -> bool:
        """Write the game so far in the format of the file's extension (SGF: ``.sgf``)."""
        if not name:
            self.error("save needs a file name: save FILE.sgf")
        else:
            self.write(name)
        return False

    def write(self, name: str) -> bool:
        """Save the game to ``name``; whether it worked (a failure is said)."""
        try:
            records_io.save_record(self.engine, Path(name), self.record_info())
        except OSError as error:
            self.error(f"cannot save {name}: {os_error_text(error)}")
            return False
        except ValueError as error:
            self.error(f"cannot save {name}: {error}")
            return False
        self.say(f"Saved {name}.", "green")
        return True

    def load(self, name: str) -> bool:
        """Replace the game with the main line of a record file (SGF, transcript, WTHOR)."""
        if not name:
            self.error("load needs a file name: load FILE.sgf")
            return False
        try:
            game = records_io.load_record(self.engine, Path(name))
        except OSError as error:
            self.error(f"cannot load {name}: {os_error_text(error)}")
            return False
        except ValueError as error:
            self.error(f"cannot load {name}: {error}")
            return False
        self.resigned = None
        self.finished_record = None
        self.say(f"Loaded {name}.", "green")
        self.show()
        state = self.engine.state
        if state.is_over():
            self.finished_record = state
            ended = "both players passed" if self.engine.game == "go" else "no one can move"
            result = describe(self.engine.final_score(), self.engine.game, state)
            self.say(
                f"The game in {name} was over ({ended}): {result}. Type undo to take moves "
                "back"
                + (", a move to play on" if self.engine.game == "go" else "")
                + ", load another game, or quit.",
                "bold yellow",
            )
        elif game.result:
            self.say(f"The record gives the result {game.result}; the game goes on from here.")
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
        result = describe(outcome, self.engine.game, self.engine.state)
        self.console.print(Text(f"Game over: {result}", "bold green"))
        if not outcome.by_resignation and self.engine.game == "go":
            dead = sorted(self.engine.dead_stones())
            if dead:
                names = " ".join(self.engine.format_move(Move.play(p)) for p in dead)
                self.say(f"Dead stones (imago's count): {names}", "dim")
        if not self.offer_save:
            return
        while True:
            try:
                name = self.read("Save the game? File name (Enter to skip): ").strip()
            except (EOFError, KeyboardInterrupt):
                return
            if not name or name.lower() in NO_WORDS:
                return
            if self.write(name):
                return

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


def describe(outcome: Outcome, game: str, state: GameState | None = None) -> str:
    """The result in words: ``B+3.5 (black wins); points: black 45, white 41.5``, ``W+R``,
    ``draw``. For Othello with ``state``, the discs on the board and the empty squares that
    count for the winner (``OthelloState.outcome``)."""
    if outcome.by_resignation:
        return f"{outcome.result()} ({outcome.winner} wins by resignation)"
    head = "draw" if outcome.winner is None else f"{outcome.result()} ({outcome.winner} wins)"
    if outcome.black_score is None or outcome.white_score is None:
        return head
    if game != "othello":
        return f"{head}; points: black {outcome.black_score:g}, white {outcome.white_score:g}"
    black, white = disc_counts(state) if state is not None else (0, 0)
    empties = 0 if state is None else state.size * state.size - black - white
    if not empties:
        return f"{head}; discs: black {outcome.black_score:g}, white {outcome.white_score:g}"
    owner = "shared" if outcome.winner is None else f"to {outcome.winner}"
    return (
        f"{head}; discs: black {black}, white {white}, and the {empties} empty squares "
        f"count for the winner ({owner}): black {outcome.black_score:g}, "
        f"white {outcome.white_score:g}"
    )


def autosave_name(game: str) -> str:
    """A new file name in the current folder for a game saved without asking:
    ``imago-go-20260101-120000.sgf`` (a number added if it exists)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"imago-{game}-{stamp}.sgf"
    number = 1
    while Path(name).exists():
        number += 1
        name = f"imago-{game}-{stamp}-{number}.sgf"
    return name
