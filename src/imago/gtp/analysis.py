"""The analysis extensions GUIs use to show live search (Leela Zero's ``lz-analyze``, KataGo's
``kata-analyze``, ``lz-genmove_analyze``): their arguments and their ``info`` lines.

One update is one line of ``info`` groups, best move first, as both engines print it::

    info move D4 visits 120 winrate 5234 prior 1234 lcb 5234 order 0 pv D4 Q16 info move ...

``lz-analyze`` writes win rate and prior as integers in 0..10000; ``kata-analyze`` writes them
as fractions in [0, 1]. Everything is from the point of view of the player to move.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from imago.agents.base import Candidate, SearchResult
from imago.core.color import Color
from imago.core.move import Move


class Dialect(enum.Enum):
    """Whose analysis format."""

    LEELA = "lz"
    KATAGO = "kata"


@dataclass(frozen=True, slots=True)
class AnalyzeRequest:
    """The arguments of an analysis command: ``[colour] [interval] [key value ...]``.

    ``interval`` is in centiseconds, as both engines take it; ``None`` means "only at the end".
    """

    color: Color | None = None
    interval: int | None = None
    max_moves: int | None = None
    min_moves: int = 0

    @property
    def seconds(self) -> float | None:
        """The interval in seconds."""
        return None if self.interval is None else self.interval / 100.0


_KEYS = ("interval", "maxmoves", "minmoves")


def parse_request(args: Sequence[str]) -> AnalyzeRequest:
    """Read an analysis command's arguments; ``ValueError`` when they are malformed."""
    words = list(args)
    color: Color | None = None
    interval: int | None = None
    if words and not words[0].isdigit() and words[0].lower() not in _KEYS:
        color = Color.parse(words.pop(0))
    if words and words[0].isdigit():
        interval = int(words.pop(0))
    values: dict[str, int] = {}
    while words:
        key = words.pop(0).lower()
        if key not in _KEYS or not words or not words[0].isdigit():
            raise ValueError(f"unsupported analysis argument {key!r}")
        values[key] = int(words.pop(0))
    interval = values.get("interval", interval)
    return AnalyzeRequest(color, interval, values.get("maxmoves"), values.get("minmoves", 0))


def candidates(result: SearchResult) -> tuple[Candidate, ...]:
    """The result's candidates best first, in the agent's order (MCTS: most visited; alpha-beta:
    best value, its visits the nodes searched under the move); a result with only an overall
    win rate becomes one candidate (its move)."""
    if result.candidates:
        return result.candidates
    if result.winrate is None and result.value is None:
        return ()
    return (Candidate(result.move, result.nodes, result.winrate, None, result.value, result.pv),)


def info_line(
    result: SearchResult,
    dialect: Dialect,
    format_move: Callable[[Move], str],
    request: AnalyzeRequest | None = None,
) -> str:
    """One ``info`` update line for ``result`` (empty when there is nothing to show)."""
    chosen = candidates(result)
    if request is not None and request.max_moves is not None:
        chosen = chosen[: request.max_moves]
    groups = [_group(c, order, dialect, format_move) for order, c in enumerate(chosen)]
    return " ".join(groups)


def _group(
    candidate: Candidate, order: int, dialect: Dialect, format_move: Callable[[Move], str]
) -> str:
    words = ["info", "move", format_move(candidate.move), "visits", str(candidate.visits)]
    if candidate.winrate is not None:
        words += ["winrate", _fraction(candidate.winrate, dialect)]
    if candidate.prior is not None:
        words += ["prior", _fraction(candidate.prior, dialect)]
    if candidate.winrate is not None:
        words += ["lcb", _fraction(candidate.winrate, dialect)]
    if dialect is Dialect.KATAGO and candidate.value is not None:
        words += ["scoreLead", f"{candidate.value:.2f}"]
    words += ["order", str(order)]
    pv = candidate.pv or (candidate.move,)
    words += ["pv", *(format_move(move) for move in pv)]
    return " ".join(words)


def _fraction(value: float, dialect: Dialect) -> str:
    clamped = min(max(value, 0.0), 1.0)
    if dialect is Dialect.LEELA:
        return str(round(clamped * 10000))
    return f"{clamped:.6f}"
