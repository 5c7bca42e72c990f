"""Fast reading: whole move lists checked by one numba kernel, nodes and positions built lazily.

Each fast path is compared with the plain one (every node built and every move played through
``GameState.play`` at once) on real records, and illegal moves must still be reported where
they are.
"""

from __future__ import annotations

import itertools
import tarfile
from pathlib import Path

import pytest
from record_helpers import signature

from imago.core import Color, IllegalMoveError, Move
from imago.games import make
from imago.records import sgf, transcript, wthor
from imago.records.tree import Game, RecordError, _replay_moves, game_from_moves


def _eager(data: bytes, monkeypatch: pytest.MonkeyPatch) -> sgf.SgfCollection:
    with monkeypatch.context() as patch:
        patch.setattr(sgf._Builder, "can_defer", lambda self, start: False)
        return sgf.read_bytes(data)


def _positions(game: Game) -> list[tuple[bytes, Color, bool]]:
    return [
        (node.state.board().tobytes(), node.state.to_play, node.illegal is None)
        for node in game.walk()
    ]


def test_ogs_trees_built_lazily_equal_trees_built_at_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = data_dir / "ogs-9x9" / "strict_ogs_games.tar.gz"
    if not archive.is_file():
        pytest.skip("the OGS archive is missing")
    files: list[bytes] = []
    with tarfile.open(archive) as tar:
        for member in tar:
            stream = tar.extractfile(member) if member.isfile() else None
            if stream is not None and member.name.endswith(".sgf"):
                files.append(stream.read())
            if len(files) == 300:
                break
    deferred = 0
    for data in files:
        fast = sgf.read_bytes(data)
        deferred += sum(game._children is None for game in fast)
        slow = _eager(data, monkeypatch)
        assert [str(e) for e in fast.errors] == [str(e) for e in slow.errors]
        assert [signature(g) for g in fast] == [signature(g) for g in slow]
        assert [_positions(g) for g in fast] == [_positions(g) for g in slow]
        assert sgf.write_bytes(fast) == sgf.write_bytes(slow)
    assert deferred > 250, "most OGS games are plain lines of moves: read lazily"


KO = "(;SZ[9]RU[{rules}];B[ba];W[ca];B[ab];W[bb];B[bc];W[db];B[ee];W[cc];B[cb]\n;W[bb];B[dd])"
#   . X O .      B[cb] takes the white stone at bb; W[bb] at once takes back: a ko
#   X O . O
#   . X O .
SUICIDE = "(;SZ[9];B[ba];W[ee];B[ab]\n;W[aa];B[dd])"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (KO.format(rules="Japanese"), "ko"),
        (KO.format(rules="Chinese"), "ko"),
        (SUICIDE, "suicide"),
        ("(;SZ[9];B[ee];W[dd]\n;B[dd];W[cc])", "occupied"),
    ],
)
def test_an_illegal_move_in_a_plain_line_is_still_reported(text: str, reason: str) -> None:
    collection = sgf.read_string(text)
    assert len(collection.errors) == 1
    error = collection.errors[0]
    assert error.line == 2 and error.column == 1
    assert reason in error.message.lower()
    nodes = list(collection[0].mainline())
    illegal = [index for index, node in enumerate(nodes) if node.illegal is not None]
    assert illegal == [len(nodes) - 2]
    assert nodes[-1].state.board()[3, 3] == Color.BLACK, "the record goes on after it"


def test_a_lazily_read_tree_edits_and_caches_like_any_other() -> None:
    game = sgf.read_game("(;SZ[9]KM[7];B[ee];W[dd];B[cc])")
    assert game._children is None
    last = game.end()
    assert last._state is None
    state = last.state
    assert last.state is state and last.parent is not None and last.parent._state is not None
    with pytest.raises(IllegalMoveError):
        last.add_variation(Move.from_gtp("E5", 9))
    game.children[0].add_variation(Move.from_gtp("A1", 9))
    assert len(game.children[0].children) == 2


def _colors_and_boards(game: Game) -> list[tuple[Color | None, Move | None, bytes]]:
    return [(n.color, n.move, n.state.board().tobytes()) for n in game.walk()]


def test_wthor_games_checked_by_the_kernel_equal_a_move_by_move_replay(
    data_dir: Path,
) -> None:
    path = data_dir / "wthor" / "WTH_2024.wtb"
    if not path.is_file():
        pytest.skip("WTHOR data missing")
    passes = 0
    for record in wthor.read_games(path)[:400]:
        fast = record.to_game()
        slow = _replay_moves(make("othello"), record.moves)
        assert _colors_and_boards(fast) == _colors_and_boards(slow)
        colors = [node.color for node in fast.mainline()]
        passes += any(a == b for a, b in itertools.pairwise(colors))
    assert passes > 100, "games with implicit passes were compared"


def test_an_illegal_move_in_a_move_list_is_reported_with_its_index() -> None:
    moves = transcript.parse_transcript("f5d6c3d3c4a1")
    with pytest.raises(RecordError) as raised:
        game_from_moves(make("othello"), moves)
    assert raised.value.index == 5
    assert isinstance(raised.value.error, IllegalMoveError)
    record = wthor.WthorGame(0, 0, 0, 32, 32, tuple(moves))
    with pytest.raises(RecordError) as again:
        record.to_game()
    assert again.value.index == 5
    colors = [node.color for node in game_from_moves(make("othello"), moves[:5]).mainline()]
    assert colors == [Color.BLACK, Color.WHITE] * 2 + [Color.BLACK]
