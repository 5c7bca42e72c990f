"""SGF games as training sources, read with :mod:`imago.records.sgf`.

Only the main line is used. What the filters need comes from the root properties: ``RE``
(result; ``Void`` and ``?`` are undecided), ``BR`` / ``WR`` (ranks), ``RU`` (rules), ``HA``
(handicap), ``DT`` (the year), and ``AB`` / ``AW`` setup stones.
"""

from __future__ import annotations

import re

from imago.core.errors import ImagoError
from imago.records.sgf import read_string
from imago.train.sources import SourceGame, parse_result

_YEAR = re.compile(r"(\d{4})")


def read_sgf_game(text: str, key: str) -> SourceGame | None:
    """The first game of an SGF text as a :class:`SourceGame`; ``None`` if there is none."""
    try:
        collection = read_string(text, replay=False)
    except (ImagoError, ValueError):
        return None
    if not collection:
        return None
    game = collection[0]
    try:
        plays = game.mainline_plays()
    except (ImagoError, ValueError):
        return None
    winner, decided = parse_result(game.result or "")
    handicap_text = game.get_text("HA") or "0"
    handicap = int(handicap_text) if handicap_text.strip().isdigit() else 0
    year_match = _YEAR.search(game.date or "")
    setup = game.setup
    return SourceGame(
        key=key,
        moves=tuple(move for _, move in plays),
        colors=tuple(color for color, _ in plays),
        winner=winner,
        decided=decided,
        year=int(year_match[1]) if year_match else None,
        size=game.size,
        handicap=max(handicap, len(setup.black) if setup else 0),
        setup_black=setup.black if setup else (),
        setup_white=setup.white if setup else (),
        meta={
            "game": game.game_name,
            "ranks": (game.get_text("BR"), game.get_text("WR")),
            "rules": game.get_text("RU") or "",
            "komi": _float(game.get_text("KM")),
        },
    )


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None
