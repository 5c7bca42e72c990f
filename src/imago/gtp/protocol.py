"""The Go Text Protocol, version 2, as text: reading command lines and writing responses.

Game-agnostic and stateless. Follows the specification (GTP draft 2, section 3):

1. control characters other than HT and LF are removed;
2. a ``#`` starts a comment that runs to the end of the line;
3. HT becomes a space;
4. empty and white-space-only lines are discarded (they get no response).

A command is ``[id] name [arguments...]`` where the optional id is an unsigned integer; the
response is ``=id result`` or ``?id message``, ended by an empty line, echoing the id.

The canonical error messages of the specification live in one table, :data:`ERRORS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

ERRORS: dict[str, str] = {
    "unknown": "unknown command",
    "syntax": "syntax error",
    "illegal": "illegal move",
    "size": "unacceptable size",
    "undo": "cannot undo",
    "not_empty": "board not empty",
    "handicap": "invalid number of stones",
    "vertex_list": "bad vertex list",
    "load": "cannot load file",
    "save": "cannot save file",
}
"""The specification's canonical error messages, by a short key."""


class GtpError(Exception):
    """A command failed: the engine answers ``? message`` and its state is unchanged."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @classmethod
    def canonical(cls, key: str) -> GtpError:
        """The error with the specification's message for ``key`` (see :data:`ERRORS`)."""
        return cls(ERRORS[key])


@dataclass(frozen=True, slots=True)
class Command:
    """One command line after preprocessing: its id (if any), name and arguments."""

    name: str
    args: tuple[str, ...] = ()
    id: int | None = None

    def __str__(self) -> str:
        head = "" if self.id is None else f"{self.id} "
        return head + " ".join((self.name, *self.args))


def preprocess(line: str) -> str:
    """Apply the specification's preprocessing to one line; ``""`` means "no command here"."""
    kept = "".join(c for c in line if c in "\t\n" or (ord(c) >= 32 and ord(c) != 127))
    kept = kept.split("#", 1)[0].replace("\t", " ")
    return kept.strip()


def parse_command(line: str) -> Command | None:
    """The command on ``line``, or ``None`` for an empty or comment-only line.

    A line holding only an id (``"12"``) is a command with an empty name, which the engine
    answers with a syntax error echoing the id.
    """
    words = preprocess(line).split()
    if not words:
        return None
    command_id: int | None = None
    if words[0].isdigit() and words[0].isascii():
        command_id = int(words[0])
        words = words[1:]
    if not words:
        return Command("", (), command_id)
    return Command(words[0], tuple(words[1:]), command_id)


def _clean(text: str) -> str:
    """Response text without empty lines (an empty line would end the response early)."""
    lines = [line.rstrip() for line in text.replace("\r", "").split("\n")]
    return "\n".join(line for line in lines if line)


def success(command_id: int | None, text: str = "") -> str:
    """A success response: ``=id text`` and the empty line that ends it."""
    return _response("=", command_id, text)


def failure(command_id: int | None, message: str) -> str:
    """A failure response: ``?id message`` and the empty line that ends it."""
    return _response("?", command_id, message)


def _response(mark: str, command_id: int | None, text: str) -> str:
    head = mark if command_id is None else f"{mark}{command_id}"
    body = _clean(text)
    if not body:
        return f"{head}\n\n"
    if text.startswith("\n"):  # a multi-line answer that starts on its own line (showboard)
        return f"{head}\n{body}\n\n"
    return f"{head} {body}\n\n"


H = TypeVar("H", bound=Callable[..., object])

ALL_GAMES = ("go", "othello")


class CommandTable(Generic[H]):
    """Command name -> handler, filled by a decorator: small registered handlers, no if-chains.

    A handler may be limited to some games (``fixed_handicap`` is Go only).

    >>> table: CommandTable[Callable[..., str]] = CommandTable()
    >>> @table.register("name")
    ... def _name(engine: object, args: tuple[str, ...]) -> str:
    ...     return "imago"
    >>> table.names("othello")
    ['name']
    """

    def __init__(self) -> None:
        self._handlers: dict[str, tuple[H, tuple[str, ...]]] = {}

    def register(self, *names: str, games: tuple[str, ...] = ALL_GAMES) -> Callable[[H], H]:
        """Decorator: register the handler under each of ``names`` for ``games``."""

        def decorate(handler: H) -> H:
            for name in names:
                if name in self._handlers:
                    raise ValueError(f"GTP command {name!r} registered twice")
                self._handlers[name] = (handler, games)
            return handler

        return decorate

    def get(self, name: str, game: str) -> H | None:
        """The handler of ``name`` in ``game``, if there is one."""
        entry = self._handlers.get(name)
        return entry[0] if entry is not None and game in entry[1] else None

    def names(self, game: str) -> list[str]:
        """The commands ``game`` knows, in registration order."""
        return [name for name, (_, games) in self._handlers.items() if game in games]
