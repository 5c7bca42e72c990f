"""Helpers shared by the record tests: tree signatures, board diagrams, the torture corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from imago.core.game import GameState
from imago.records.tree import Game, GameNode, Setup

TORTURE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "sgf-torture"


def setup_signature(setup: Setup | None) -> Any:
    if not setup:
        return None
    return (frozenset(setup.black), frozenset(setup.white), frozenset(setup.empty), setup.to_play)


def signature(game: Game) -> list[Any]:
    """Everything a tree holds, node by node in document order (parents as indices)."""
    index: dict[int, int] = {}
    out: list[Any] = [(game.game_name, game.size, setup_signature(game.setup), game.properties)]
    for number, node in enumerate(game.walk()):
        index[id(node)] = number
        if node is game:
            continue
        assert node.parent is not None
        out.append(
            (
                index[id(node.parent)],
                node.color,
                node.move,
                setup_signature(node.setup),
                node.properties,
                node.illegal is None,
            )
        )
    return out


def diagram(state: GameState) -> str:
    """The board as rows of ``X`` (black), ``O`` (white) and ``.``, top row first."""
    symbols = ".XO"
    board = state.board()
    return "\n".join("".join(symbols[int(v)] for v in row) for row in board)


def clean(text: str) -> str:
    """A diagram written indented in a test, as :func:`diagram` writes it."""
    return "\n".join(line.strip().replace(" ", "") for line in text.strip().splitlines())


def torture_files() -> list[Path]:
    if not TORTURE.is_dir():
        return []
    return sorted(TORTURE.rglob("*.sgf"))


def walk_nodes(game: Game) -> list[GameNode]:
    return list(game.walk())
