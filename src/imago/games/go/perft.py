"""Perft: count the positions a given number of legal moves away, to find rules bugs."""

from __future__ import annotations

import numpy as np

from imago.games.go import _kernels as K
from imago.games.go.position import GoPosition, new_game
from imago.games.go.rules import GoRules, KoRule

_KO_MODES = {
    KoRule.SIMPLE: K.KO_SIMPLE,
    KoRule.POSITIONAL_SUPERKO: K.KO_POSITIONAL,
    KoRule.SITUATIONAL_SUPERKO: K.KO_SITUATIONAL,
}


def perft(depth: int, size: int = 9, rules: GoRules | None = None) -> int:
    """The number of move sequences of exactly ``depth`` legal moves (pass included) from the
    empty ``size`` board; a game ended by two passes counts as a leaf but is not continued."""
    return perft_from(new_game(size, rules), depth)


def perft_from(position: GoPosition, depth: int) -> int:
    """:func:`perft` from any position (its superko history included)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, not {depth}")
    if position.is_over():
        return 1 if depth == 0 else 0
    rules = position.rules
    known = position.superko_keys()
    history = np.empty(known.shape[0] + depth + 1, dtype=np.int64)
    history[: known.shape[0]] = known
    return int(
        K.perft(
            position.arrays(),
            position.size,
            depth,
            rules.suicide_allowed,
            _KO_MODES[rules.ko],
            history,
            known.shape[0],
        )
    )
