"""Go: rules, positions, scoring and perft, over private numba kernels.

>>> from imago.games.go import new_game, GoRules
>>> position = new_game(9, GoRules.preset("chinese"))
>>> position = position.play(position.parse_move("E5"))
>>> position.to_play
<Color.WHITE: 2>

Search code that plays moves from numba uses :mod:`imago.games.go.fastpath`.
"""

from __future__ import annotations

from imago.games.go.handicap import fixed_handicap_points, max_fixed_handicap
from imago.games.go.perft import perft, perft_from
from imago.games.go.position import GoPosition, LegalMoves, moves_table, new_game
from imago.games.go.rules import GoRules, KoRule, Scoring
from imago.games.go.scoring import (
    Count,
    StoneStatus,
    area_counts,
    count,
    final_status,
    score,
    territory_counts,
)

__all__ = [
    "Count",
    "GoPosition",
    "GoRules",
    "KoRule",
    "LegalMoves",
    "Scoring",
    "StoneStatus",
    "area_counts",
    "count",
    "final_status",
    "fixed_handicap_points",
    "max_fixed_handicap",
    "moves_table",
    "new_game",
    "perft",
    "perft_from",
    "score",
    "territory_counts",
]
