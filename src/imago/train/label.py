"""Engine-labelled positions, as design 001 trained its first network on GNU Go's judgement.

A :class:`GtpLabeller` follows each replayed game on an external GTP engine
(:class:`imago.gtp.client.GtpEngine`) and, at every ``every``-th recorded decision, asks it
``reg_genmove`` (its move, not played: the policy target) and ``estimate_score`` (who leads:
the value target, +1 when the player to move leads, -1 when behind, 0 when even). Positions
where the engine resigns or suggests a move our rules refuse are dropped. Plug it into
:func:`imago.train.build.build_dataset` (``labeller=``), or use ``imago train dataset --label
"gnugo --mode gtp --level 1"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from imago.core.color import Color
from imago.core.game import GameState
from imago.core.move import Move
from imago.gtp.client import EngineError, GtpEngine
from imago.train.sources import SourceGame

_SCORE = re.compile(r"^\s*([BW])\+(\d+(?:\.\d+)?)|^\s*0\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LabelConfig:
    """How to label: every how many decisions, the komi when the record gives none, timeout."""

    every: int = 1
    komi: float = 7.0
    timeout: float = 60.0


def parse_score(text: str) -> float | None:
    """Black's lead from a GTP score (``B+3.5`` -> 3.5, ``W+1.0 (upper...)`` -> -1.0, ``0``)."""
    match = _SCORE.match(text)
    if not match:
        return None
    if match[1] is None:
        return 0.0
    lead = float(match[2])
    return lead if match[1].upper() == "B" else -lead


class GtpLabeller:
    """Labels positions with a GTP engine's move and score estimate (see the module doc)."""

    def __init__(self, engine: GtpEngine, config: LabelConfig | None = None) -> None:
        self.engine = engine
        self.config = config or LabelConfig()
        self.decisions = 0
        self.size = 0

    def settings(self) -> dict[str, Any]:
        """What identifies these labels in a dataset manifest."""
        return {
            "engine": f"{self.engine.name()} {self.engine.version()}".strip(),
            "every": self.config.every,
            "komi": self.config.komi,
        }

    def start(self, game: SourceGame, state: GameState) -> None:
        self.size = state.size
        self.decisions = 0
        self.engine.boardsize(state.size)
        self.engine.clear_board()
        komi = game.meta.get("komi")
        self.engine.komi(float(komi) if komi is not None else self.config.komi)
        if game.setup_white:
            for point in game.setup_white:
                self.engine.play(Color.WHITE, Move.play(point))
        if game.setup_black:
            for point in game.setup_black:
                self.engine.play(Color.BLACK, Move.play(point))

    def label(self, state: GameState, move: Move) -> tuple[int, int] | None:
        self.decisions += 1
        if (self.decisions - 1) % self.config.every:
            return None
        try:
            chosen = self.engine.reg_genmove(state.to_play, self.config.timeout).move
            lead = parse_score(self.engine.send("estimate_score", self.config.timeout))
        except EngineError:
            return None
        if chosen.is_resign or not state.is_legal(chosen) or lead is None:
            return None
        mover_lead = lead if state.to_play is Color.BLACK else -lead
        value = 1 if mover_lead > 0 else -1 if mover_lead < 0 else 0
        return chosen.to_action(state.size), value

    def played(self, color: Color, move: Move) -> None:
        self.engine.play(color, move)
