"""What a page may ask of a session, checked: new-game settings, agents (what the user allowed
at start), and the server's defaults, among them the strongest engine for each board.

Every check raises :class:`ClientError` with a message for the page; nothing here changes a
session.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from imago.arena.clock import TimeControl
from imago.core.errors import ImagoError, user_path
from imago.core.move import MAX_SIZE
from imago.games.go.handicap import max_fixed_handicap
from imago.games.go.rules import GoRules
from imago.games.othello import SIZES as OTHELLO_SIZES
from imago.gtp import go_support
from imago.nn.shipped import strongest_agent
from imago.ui.web.live import AnalysisConfig
from imago.ui.web.view import Json

AUTO = "auto"
"""An engine setting: the strongest for the board (:func:`imago.nn.shipped.strongest_agent`)."""


MAX_SPEC = 500


class ClientError(ImagoError, ValueError):
    """A request the session refuses; the message is shown in the page."""


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """A new game as the page asks for it."""

    game: str = "go"
    size: int = 9
    komi: float | None = None
    rules: str = go_support.DEFAULT_RULES
    handicap: int = 0
    black: str = "human"
    white: str = "human"
    move_time: float = 1.0
    """Seconds an agent thinks per move (without a game clock)."""
    clock: str | None = None
    """A game clock for both sides (``60+5``, ``300+30x5``...: :mod:`imago.arena.clock`)."""

    @classmethod
    def from_message(cls, message: Json) -> PlaySettings:
        """Read and check the page's settings; :class:`ClientError` says what is wrong."""
        game = text_field(message, "game", "go")
        if game not in ("go", "othello"):
            raise ClientError(f"unknown game {game!r} (go or othello)")
        size = number_field(message, "size", 9 if game == "go" else 8, int)
        if game == "othello" and size not in OTHELLO_SIZES:
            raise ClientError(f"Othello is played on {', '.join(map(str, OTHELLO_SIZES))} boards")
        if game == "go" and not 2 <= size <= MAX_SIZE:
            raise ClientError(f"a Go board is 2..{MAX_SIZE} points wide")
        komi_value = message.get("komi")
        komi = None if komi_value in (None, "") else number_field(message, "komi", 0.0, float)
        if komi is not None and abs(komi) > 1000:
            raise ClientError("komi must be -1000..1000")
        if komi is not None and komi * 2 != int(komi * 2):
            raise ClientError("komi must be a multiple of 0.5")
        rules = text_field(message, "rules", go_support.DEFAULT_RULES)
        if rules not in GoRules.PRESETS:
            raise ClientError(f"unknown rules {rules!r} (known: {', '.join(GoRules.PRESETS)})")
        handicap = number_field(message, "handicap", 0, int) if game == "go" else 0
        if handicap and not 2 <= handicap <= max_fixed_handicap(size):
            limit = max_fixed_handicap(size)
            raise ClientError(
                f"a handicap on {size}x{size} is 2..{limit} stones"
                if limit
                else f"no handicap on a {size}x{size} board"
            )
        move_time = number_field(message, "move_time", 1.0, float)
        if not 0.05 <= move_time <= 3600:
            raise ClientError("time per move must be 0.05..3600 seconds")
        clock = message.get("clock") or None
        if clock is not None:
            if not isinstance(clock, str):
                raise ClientError("the clock is text such as 300+5")
            try:
                control = TimeControl.parse(clock)
            except (ValueError, OverflowError) as error:
                raise ClientError(str(error)) from None
            if not all(
                math.isfinite(v) and 0 <= v <= MAX_CLOCK_SECONDS
                for v in (control.main, control.extra, control.count)
            ):
                raise ClientError(
                    f"a game clock is at most {MAX_CLOCK_SECONDS // 86400} days in every part"
                )
            clock = str(control)
        black = spec_field(message, "black")
        white = spec_field(message, "white")
        return cls(game, size, komi, rules, handicap, black, white, move_time, clock)


FILE_OPTIONS = ("weights", "book", "model", "onnx")
"""Agent options that name a file the server would open."""


def check_agent_allowed(name: str, options: dict[str, Any], config: SessionConfig) -> None:
    """Refuse what the user did not allow at start: external programs, and model files
    outside the package's data and the folders they named (no file-existence oracle)."""
    if name.strip().lower() == "gtp" and not config.allow_commands:
        raise ClientError("this server does not run external programs (--allow-engines)")
    import imago

    roots = [Path(imago.__file__).resolve().parent]
    roots += [Path(folder) for folder in config.model_dirs]
    for key in FILE_OPTIONS:
        value = options.get(key)
        if not isinstance(value, str) or not value:
            continue
        if not any(mark in value for mark in ("/", "\\", ".", "~")):
            continue  # a shipped name such as book=wthor
        try:
            path = user_path(value)
        except ValueError as error:
            raise ClientError(f"{key}=: {error}") from None
        resolved = path.resolve() if path.is_absolute() else (Path.cwd() / path).resolve()
        if not any(resolved.is_relative_to(root) for root in roots):
            raise ClientError(
                f"{key}= may name files only in imago's data or a folder given to "
                "imago serve --models"
            )


MAX_CLOCK_SECONDS = 7 * 86400
"""The longest main time or byo-yomi period a page may ask for (a week)."""


def text_field(message: Json, key: str, default: str) -> str:
    value = message.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str) or len(value) > MAX_SPEC:
        raise ClientError(f"{key} must be a short text")
    return value.strip()


def number_field(message: Json, key: str, default: Any, kind: type) -> Any:
    value = message.get(key, default)
    if isinstance(value, bool):
        raise ClientError(f"{key} must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ClientError(f"{key} must be a finite number")
    try:
        number = kind(value)
        if kind is float and not math.isfinite(number):
            raise OverflowError
    except (TypeError, ValueError):
        raise ClientError(f"{key} must be a number, not {value!r}") from None
    except OverflowError:
        raise ClientError(f"{key} must be a finite number") from None
    if kind is int and float(value) != number:
        raise ClientError(f"{key} must be a whole number")
    if kind is float and number != number:  # NaN
        raise ClientError(f"{key} must be a number")
    return number


def spec_field(message: Json, key: str) -> str:
    spec = text_field(message, key, "human") or "human"
    return "human" if spec.lower() == "human" else spec


def _model_folder(folder: str) -> str:
    """A :attr:`SessionConfig.model_dirs` folder as an absolute path; :class:`ValueError`
    when it is in an unknown user's home or is not a folder."""
    path = user_path(folder).resolve()
    if not path.is_dir():
        raise ValueError(f"{folder}: no such folder")
    return str(path)


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """What every session of a server shares."""

    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)
    go_engine: str = AUTO
    """The default analysis and hint engine for Go (``auto``: the strongest)."""
    othello_engine: str = AUTO
    """The default analysis and hint engine for Othello (``auto``: the strongest)."""
    allow_commands: bool = False
    """Whether the ``gtp`` agent (a command line run as the server's user) may be made."""
    model_dirs: tuple[str, ...] = ()
    """Folders the user named at start from which ``weights`` / ``book`` / ``model`` files
    may be read, besides the package's own data; absolute once made (``~`` expanded), and a
    :class:`ValueError` says which one cannot be found, so a server does not start with it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "model_dirs", tuple(map(_model_folder, self.model_dirs)))

    def engine_for(self, game: str, size: int) -> str:
        """The default engine for ``game`` on a ``size`` board: the one the user named at
        start, else the strongest this installation runs there."""
        spec = self.go_engine if game == "go" else self.othello_engine
        return strongest_agent(game, size) if spec == AUTO else spec
