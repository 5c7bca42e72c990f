"""Reviewing a whole game with an engine, as KaTrain does for Go: every position of a line is
searched, each move's loss against the engine's choice is measured, the biggest mistakes are
listed with the better move, and the record can be annotated (comments, ``V``, ``BM`` /
``DO`` / ``TE``, and the engine's better line as a variation).

Values are always for one side, and converted as needed:

* Go: the win rate of the player to move, in ``[0, 1]`` (any agent that reports one: ``mcts``,
  ``nnmcts``, ``alphabeta``); a move's loss is in win-rate points (percentage points of win
  rate: Go players read plain "points" as territory).
* Othello: the disc difference for the player to move, when the agent reports one
  (``alphabeta``, exact from 18 empties on); a move's loss is in discs. Agents that give only
  a win rate are measured in win rate, as in Go.

The loss of a move is the mover's value before it (the engine's best) minus the mover's value
after it (the engine's view of the reply position), never below zero, and none for the move the
engine would have played.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from imago.agents.base import Agent, Limit, StopFlag
from imago.core.color import Color
from imago.core.files import atomic_write
from imago.core.game import GameState, Outcome
from imago.core.move import Move
from imago.records.tree import GameNode

WINRATE = "win rate"
DISCS = "discs"

THRESHOLDS = {WINRATE: (0.05, 0.10, 0.20), DISCS: (2.0, 4.0, 8.0)}
"""Losses from which a move is an inaccuracy, a mistake and a blunder, by unit."""
MIN_NODES = 16
"""The fewest playouts (nodes) a search must have made for its value to grade a move: a
handful of random playouts can make any move look like a blunder."""
WARM_UP = Limit(time=60.0, nodes=512, depth=2, playouts=8)
"""The small search :func:`review_line` runs before its clock starts (see :func:`warm_up`)."""


@dataclass(frozen=True, slots=True)
class PositionEval:
    """The engine's view of one position, for the player to move there (``to_play``)."""

    to_play: Color
    value: float
    unit: str
    best: Move | None = None
    pv: tuple[Move, ...] = ()
    final: bool = False
    """The game is over here: the value is the result, not an estimate."""
    nodes: int = 0
    """The playouts or nodes of the search behind the value (0: not reported)."""

    @property
    def trusted(self) -> bool:
        """Whether the value may grade a move: a result, or a search of :data:`MIN_NODES`
        nodes at least (or one that does not say how many)."""
        return self.final or self.nodes == 0 or self.nodes >= MIN_NODES

    def for_color(self, color: Color) -> float:
        """The value for ``color`` (win rate ``1 - v`` or discs ``-v`` for the other side)."""
        if color is self.to_play:
            return self.value
        return 1.0 - self.value if self.unit == WINRATE else -self.value

    def to_json(self, size: int) -> list[Any]:
        best = None if self.best is None else self.best.to_action(size)
        pv = [m.to_action(size) for m in self.pv if not m.is_resign]
        return [self.to_play.letter, self.value, self.unit, best, pv, self.final, self.nodes]

    @classmethod
    def from_json(cls, row: list[Any], size: int) -> PositionEval:
        letter, value, unit, best, pv, final = row[:6]
        return cls(
            Color.BLACK if letter == "B" else Color.WHITE,
            float(value),
            str(unit),
            None if best is None else Move.from_action(int(best), size),
            tuple(Move.from_action(int(a), size) for a in pv),
            bool(final),
            int(row[6]) if len(row) > 6 else 0,
        )


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One move of the line: who played what, the value before and after, and the loss."""

    number: int
    color: Color
    move: Move
    before: PositionEval
    after: PositionEval

    @property
    def loss(self) -> float:
        """What the move cost its player against the engine's choice: none when it is the
        engine's choice, and never below zero (the two searches disagree by some noise)."""
        if self.before.best is not None and self.before.best == self.move:
            return 0.0
        return max(0.0, self.before.value - self.after.for_color(self.color))

    @property
    def better(self) -> Move | None:
        """The engine's move, when it differs from the one played."""
        best = self.before.best
        return best if best is not None and best != self.move else None

    @property
    def judged(self) -> bool:
        """Whether both searches behind the loss were deep enough to grade the move
        (:attr:`PositionEval.trusted`)."""
        return self.before.trusted and self.after.trusted

    def grade(self) -> str:
        """``""``, ``inaccuracy``, ``mistake`` or ``blunder`` by the unit's thresholds; never
        a grade for a move that was not :attr:`judged`."""
        if not self.judged:
            return ""
        small, medium, large = THRESHOLDS[self.before.unit]
        loss = self.loss
        if loss >= large:
            return "blunder"
        if loss >= medium:
            return "mistake"
        if loss >= small:
            return "inaccuracy"
        return ""


@dataclass(frozen=True)
class GameReview:
    """The review of one line: an evaluation per position (before each move and after the
    last) and a review per move."""

    game: str
    size: int
    engine: str
    positions: tuple[PositionEval, ...]
    moves: tuple[MoveReview, ...]

    @property
    def unit(self) -> str:
        return self.positions[0].unit if self.positions else WINRATE

    def black_values(self) -> list[float]:
        """Black's value at every position: the graph KaTrain draws."""
        return [p.for_color(Color.BLACK) for p in self.positions]

    def mistakes(self, count: int = 5) -> list[MoveReview]:
        """The ``count`` moves that lost most (an inaccuracy at least), biggest first."""
        graded = [m for m in self.moves if m.grade()]
        return sorted(graded, key=lambda m: -m.loss)[:count]

    def average_loss(self, color: Color) -> float:
        """The mean loss of ``color``'s moves."""
        losses = [m.loss for m in self.moves if m.color is color]
        return sum(losses) / len(losses) if losses else 0.0


def line_of(node: GameNode) -> list[GameNode]:
    """The nodes of the line through ``node``: its path from the root, then its main line."""
    return node.path() + list(node.mainline())


def evaluate(
    agent: Agent, state: GameState, limit: Limit, stop: StopFlag | None = None
) -> PositionEval:
    """Search ``state`` and say what it is worth to the player to move (see the module
    docstring for the units). A finished game is worth its result."""
    if state.is_over():
        return _final(state)
    if state.game == "othello" and not any(m.is_play for m in state.legal_moves()):
        return evaluate(agent, state.play(Move.PASS), limit, stop)
    result = agent.select_move(state, limit, stop=stop)
    if state.game == "othello" and result.value is not None:
        value, unit = float(result.value), DISCS
    elif result.winrate is not None:
        value, unit = float(result.winrate), WINRATE
    else:
        raise ValueError(f"the {agent.name} agent reports no value to review a game with")
    best = None if result.move.is_resign else result.move
    return PositionEval(state.to_play, value, unit, best, result.pv, nodes=max(0, result.nodes))


def warm_up(agent: Agent, state: GameState, stop: StopFlag | None = None) -> None:
    """A small search of ``state`` whose result is thrown away: the first search of a process
    compiles the kernels (numba) or loads a network, and under a clock it would be judged on
    a playout or two. The agent is reset afterwards."""
    if state.is_over() or (stop is not None and stop.is_set()):
        return
    if state.game == "othello" and not any(m.is_play for m in state.legal_moves()):
        state = state.play(Move.PASS)
    agent.select_move(state, WARM_UP, stop=stop)
    agent.reset()


def _go_outcome(state: GameState) -> Outcome | None:
    """A finished Go game as the referee counts it (dead stones and seki judged, as GTP's
    ``final_score``); a resignation as it stands."""
    outcome = state.outcome()
    if outcome is None or outcome.by_resignation:
        return outcome
    from imago.gtp import go_support

    return go_support.score(state)


def _final(state: GameState) -> PositionEval:
    outcome = (
        state.outcome(empties_to_winner=True)  # type: ignore[call-arg]
        if state.game == "othello"
        else _go_outcome(state)
    )
    mover = state.to_play
    if state.game == "othello" and outcome is not None and outcome.black_score is not None:
        assert outcome.white_score is not None
        diff = outcome.black_score - outcome.white_score
        return PositionEval(mover, diff if mover is Color.BLACK else -diff, DISCS, final=True)
    winner = None if outcome is None else outcome.winner
    value = 0.5 if winner is None else 1.0 if winner is mover else 0.0
    return PositionEval(mover, value, WINRATE, final=True)


ProgressCallback = Callable[[int, int], None]


def review_line(
    nodes: Sequence[GameNode],
    agent: Agent,
    limit: Limit,
    *,
    engine: str = "",
    progress: ProgressCallback | None = None,
    stop: StopFlag | None = None,
    known: Sequence[PositionEval] = (),
    on_eval: Callable[[int, PositionEval], None] | None = None,
) -> GameReview:
    """Review the line ``nodes`` (root first): one search per position under ``limit``.

    ``known`` are evaluations of the first positions already made (a resumed review);
    ``progress(done, total)`` is called after each position and ``on_eval(index, eval)`` with
    each new evaluation. A set ``stop`` ends the review early: the result covers the positions
    searched so far. Illegal moves kept from a lenient read end the line.
    """
    states: list[GameState] = []
    for node in nodes:
        try:
            states.append(node.state)
        except ValueError:
            break
    if not states:
        raise ValueError("the line has no position to review")
    evals = list(known[: len(states)])
    total = len(states)
    if progress is not None:
        progress(len(evals), total)
    agent.reset()
    if len(evals) < total:
        warm_up(agent, states[len(evals)], stop)  # before the clock of the first position
    while len(evals) < total:
        if stop is not None and stop.is_set():
            break
        index = len(evals)
        evaluation = evaluate(agent, states[index], limit, stop)
        evals.append(evaluation)
        if on_eval is not None:
            on_eval(index, evaluation)
        if progress is not None:
            progress(len(evals), total)
    first = nodes[0]
    root_game = first.game()
    return build_review(root_game.game_name, root_game.size, engine, nodes, evals)


def build_review(
    game: str, size: int, engine: str, nodes: Sequence[GameNode], evals: Sequence[PositionEval]
) -> GameReview:
    """The per-move review from the evaluations of the first ``len(evals)`` positions."""
    moves: list[MoveReview] = []
    number = 0
    for index in range(1, len(evals)):
        node = nodes[index]
        if node.move is None:
            continue
        number += 1
        color = node.color if node.color is not None else evals[index - 1].to_play
        if node.move.is_play or node.move.is_pass:
            moves.append(MoveReview(number, color, node.move, evals[index - 1], evals[index]))
    return GameReview(game, size, engine, tuple(evals), tuple(moves))


# -- annotating a record ----------------------------------------------------------------------

MARKS = {"blunder": ("BM", "2"), "mistake": ("BM", "1"), "inaccuracy": ("DO", "")}


def format_value(value: float, unit: str) -> str:
    """``54.2%`` or ``+6 discs``."""
    if unit == WINRATE:
        return f"{value:.1%}"
    return f"{value:+g} discs"


def format_loss(loss: float, unit: str) -> str:
    """``6.3 win-rate points`` or ``4 discs``."""
    if unit == WINRATE:
        return f"{loss * 100:.1f} win-rate points"
    return f"{loss:g} discs"


def annotate(nodes: Sequence[GameNode], review: GameReview, *, variations: int = 5) -> None:
    """Write the review into the record: a comment on every reviewed move (values before and
    after, the loss, the engine's choice and line), ``V`` (Black's value: win rate in percent
    or discs), ``BM``/``DO`` on inaccuracies, mistakes and blunders, a summary at the root, and
    the engine's better line as a variation at the ``variations`` biggest mistakes."""
    game, size, unit = review.game, review.size, review.unit
    by_number = {m.number: m for m in review.moves}
    number = 0
    for index, node in enumerate(nodes[: len(review.positions)]):
        black = review.positions[index].for_color(Color.BLACK)
        node.properties["V"] = [f"{black * 100:.1f}" if unit == WINRATE else f"{black:g}"]
        if node.move is None or index == 0:
            continue
        number += 1
        move = by_number.get(number)
        if move is None:
            continue
        _annotate_move(node, move, review, game, size)
    mistakes = review.mistakes(variations)
    for move in mistakes:
        _add_better_line(nodes, move, game, size)
    root = nodes[0].root()
    summary = summary_text(review)
    old = root.comment
    root.comment = f"{old}\n\n{summary}" if old else summary


def _annotate_move(
    node: GameNode, move: MoveReview, review: GameReview, game: str, size: int
) -> None:
    unit = review.unit
    name = str(move.color).capitalize()
    before = format_value(move.before.value, unit)
    after = format_value(move.after.for_color(move.color), unit)
    lost = format_loss(move.loss, unit)
    lines = [f"{review.engine}: {name} {before} before, {after} after ({lost} lost)"]
    if not move.judged:
        fewest = min(e.nodes for e in (move.before, move.after) if not e.trusted)
        lines.append(f"not graded: a search of {fewest} playouts is too few to judge a move")
    if move.better is not None:
        line = " ".join(_text(game, size, m) for m in move.before.pv[:10]) or _text(
            game, size, move.better
        )
        lines.append(f"best: {_text(game, size, move.better)} (line {line})")
    grade = move.grade()
    if grade:
        lines[0] = f"{grade.capitalize()}. " + lines[0]
        ident, value = MARKS[grade]
        node.properties[ident] = [value]
    old = node.comment
    text = "\n".join(lines)
    node.comment = f"{old}\n\n{text}" if old else text


def _add_better_line(nodes: Sequence[GameNode], move: MoveReview, game: str, size: int) -> None:
    """The engine's line as a variation beside the mistake (as far as it is legal)."""
    mistake = _node_of_move(nodes, move.number)
    if mistake is None or mistake.parent is None or move.better is None:
        return
    parent = mistake.parent
    line = move.before.pv if move.before.pv and move.before.pv[0] == move.better else (move.better,)
    if parent.has_variation(line[0]):
        return
    node = parent
    for index, step in enumerate(line[:12]):
        try:
            node = node.add_variation(step)
        except ValueError:
            break
        if index == 0:
            node.comment = f"engine's line, better than {_text(game, size, move.move)}"


def _node_of_move(nodes: Sequence[GameNode], number: int) -> GameNode | None:
    count = 0
    for node in nodes[1:]:
        if node.move is not None:
            count += 1
            if count == number:
                return node
    return None


def move_label(review: GameReview, move: Move) -> str:
    """A move of the reviewed game in its notation (``D4``, ``f5``, ``pass``)."""
    return _text(review.game, review.size, move)


def _text(game: str, size: int, move: Move) -> str:
    if not move.is_play:
        return move.kind.value
    return move.to_algebraic() if game == "othello" else move.to_gtp(size)


def summary_text(review: GameReview) -> str:
    """The root comment: engine, average loss per player, the biggest mistakes."""
    unit = review.unit
    lines = [f"Reviewed by {review.engine}: {len(review.moves)} moves."]
    for color in (Color.BLACK, Color.WHITE):
        average = format_loss(review.average_loss(color), unit)
        lines.append(f"{str(color).capitalize()}: average loss {average}")
    mistakes = review.mistakes()
    if mistakes:
        lines.append("Biggest mistakes:")
    for m in mistakes:
        better = "" if m.better is None else f", better {_text(review.game, review.size, m.better)}"
        lines.append(
            f"  move {m.number} {m.color.letter} {_text(review.game, review.size, m.move)}: "
            f"{m.grade()}, {format_loss(m.loss, unit)} lost{better}"
        )
    return "\n".join(lines)


# -- resuming -------------------------------------------------------------------------------------


def checkpoint_key(nodes: Sequence[GameNode], engine: str, limit: Limit) -> str:
    """What a saved partial review must match to be reused: the moves, engine and limit."""
    parts = [engine, repr(limit)]
    parts += [
        f"{n.color.letter if n.color else '-'}{n.move!r}" if n.move is not None else "-"
        for n in nodes
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def load_checkpoint(path: Path, key: str, size: int) -> list[PositionEval]:
    """The evaluations saved at ``path`` for a review with this ``key`` (none if it is another
    review, or the file is missing or unreadable)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("key") != key:
            return []
        return [PositionEval.from_json(row, size) for row in doc["evals"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def save_checkpoint(path: Path, key: str, size: int, evals: Sequence[PositionEval]) -> None:
    """Write the evaluations so far, atomically."""
    doc = {"key": key, "evals": [e.to_json(size) for e in evals]}
    atomic_write(path, json.dumps(doc).encode("utf-8"))


def remove_checkpoint(path: Path) -> None:
    """Delete a finished review's checkpoint, if any."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
