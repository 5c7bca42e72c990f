"""The SGF torture corpus (../shared/data/sgf-torture): GNU Go, SGFC, libsgfc++, Little Go,
Sabaki and broken OGS files.

Every file parses or fails with a clear error; where sgfmill (a parser nobody here wrote)
reads a file, the main-line moves and setup stones agree with it; writing and reading again
gives the same tree, and sgfmill reads our written files back to the same tree.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from record_helpers import TORTURE, signature

from imago.core import Color, Move, Point
from imago.records import sgf
from imago.records.sgf_grammar import SgfError
from imago.records.sgf_properties import format_point
from imago.records.tree import Game, GameNode

sgfmill_sgf = pytest.importorskip("sgfmill.sgf")

GROUPS = [
    "gnugo-regression-games",
    "sgfc-test-files",
    "libsgfcplusplus-test-files",
    "littlego-sgf",
    "sabaki-sgf-tests",
    "ogs-real-world-breakage",
]


def files_of(group: str) -> list[Path]:
    folder = TORTURE / group
    if not folder.is_dir():
        pytest.skip(f"{folder} is missing")
    return sorted(folder.rglob("*.sgf"))


def our_mainline(game: Game) -> tuple[list[Any], list[Any]]:
    moves: list[Any] = []
    setups: list[Any] = []
    for node in [game, *game.mainline()]:
        if node.setup and (node.setup.black or node.setup.white or node.setup.empty):
            setup = node.setup
            setups.append((set(setup.black), set(setup.white), set(setup.empty)))
        if node.move is not None:
            moves.append((node.color, node.move))
    return moves, setups


def sgfmill_mainline(game: Any) -> tuple[list[Any], list[Any]]:
    size = game.get_size()

    def points(stones: Any) -> set[Point]:
        return {Point(size - 1 - row, col) for row, col in stones}

    moves: list[Any] = []
    setups: list[Any] = []
    for node in game.get_main_sequence():
        black, white, empty = node.get_setup_stones()
        if black or white or empty:
            setups.append((points(black), points(white), points(empty)))
        colour, where = node.get_move()
        if colour is not None:
            move = Move.PASS if where is None else Move.play(Point(size - 1 - where[0], where[1]))
            moves.append((Color.BLACK if colour == "b" else Color.WHITE, move))
    return moves, setups


def expected_raw(node: GameNode, game: Game) -> dict[str, list[bytes]]:
    """The raw property map our writer gives ``node`` (what sgfmill must read back)."""
    raw = {key: [v.encode() for v in values] for key, values in node.properties.items() if values}
    if node is game:
        number = sgf.GAME_OF_NAME[game.game_name]
        raw.update(
            FF=[b"4"], CA=[b"UTF-8"], GM=[str(number).encode()], SZ=[str(game.size).encode()]
        )
    if node.move is not None and node.color is not None:
        raw[node.color.letter] = [node.move.to_sgf(game.size).encode()]
    setup = node.setup
    if setup:
        for ident, stones in (("AB", setup.black), ("AW", setup.white), ("AE", setup.empty)):
            if stones:
                raw[ident] = [format_point(p).encode() for p in stones]
        if setup.to_play is not None:
            raw["PL"] = [setup.to_play.letter.encode()]
    return raw


def sgfmill_can_read(game: Game) -> bool:
    """sgfmill reads identifiers of at most 8 letters (SGFC's test.sgf has a longer one)."""
    return all(len(ident) <= 8 for node in game.walk() for ident in node.properties)


def same_tree_in_sgfmill(game: Game, written: bytes) -> bool:
    theirs = sgfmill_sgf.Sgf_game.from_bytes(written)
    pairs = [(game, theirs.get_root())]
    while pairs:
        ours, node = pairs.pop()
        if expected_raw(ours, game) != node.get_raw_property_map():
            return False
        if len(ours.children) != len(node):
            return False
        pairs.extend(zip(ours.children, list(node), strict=True))
    return True


@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS)
def test_corpus(group: str, data_dir: Path) -> None:
    problems: list[str] = []
    compared = read = 0
    for path in files_of(group):
        data = path.read_bytes()
        name = str(path.relative_to(TORTURE))
        collection = sgf.read_bytes(data)
        if not collection:
            # Fails with a clear error: a message and where it is.
            if not collection.errors or collection.errors[0].line < 1:
                problems.append(f"{name}: no games and no clear error")
            continue
        read += 1
        with contextlib.suppress(SgfError):
            sgf.read_bytes(data, strict=True)
        written = sgf.write_bytes(collection)
        again = sgf.read_bytes(written)
        if [signature(g) for g in again] != [signature(g) for g in collection]:
            problems.append(f"{name}: the round trip changed the tree")
        if sgfmill_can_read(collection[0]) and not same_tree_in_sgfmill(
            collection[0], sgf.write_bytes(collection[0])
        ):
            problems.append(f"{name}: sgfmill reads our file as another tree")
        try:
            theirs = sgfmill_mainline(sgfmill_sgf.Sgf_game.from_bytes(data))
        except ValueError:
            continue  # sgfmill does not read this file
        compared += 1
        if our_mainline(collection[0]) != theirs:
            problems.append(f"{name}: main line differs from sgfmill's")
    assert not problems, "\n".join(problems)
    assert read > 0
    if group != "ogs-real-world-breakage":
        assert compared > 0
