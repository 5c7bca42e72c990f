"""Files we write read back to the same tree in Sabaki's parser (@sabaki/sgf, from npm)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from imago.records import sgf
from imago.records.sgf_properties import format_point
from imago.records.tree import Game, GameNode

SCRIPT = Path(__file__).with_name("sabaki_dump.js")
MODULE = Path(__file__).resolve().parents[1] / "js" / "node_modules" / "@sabaki" / "sgf"


def sabaki_unescape(raw: str) -> str:
    """What Sabaki's ``unescapeString`` makes of a raw value (CRs dropped, escapes resolved)."""
    text = raw.replace("\r", "")
    out: list[str] = []
    escaped = False
    for char in text:
        if escaped:
            if char != "\n":
                out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            out.append(char)
    return "".join(out)


def expected_data(node: GameNode, game: Game) -> dict[str, list[str]]:
    data = {
        k: [sabaki_unescape(v) for v in values] for k, values in node.properties.items() if values
    }
    if node is game:
        data.update(FF=["4"], CA=["UTF-8"], GM=[str(sgf.GAME_OF_NAME[game.game_name])])
        data["SZ"] = [str(game.size)]
    if node.move is not None and node.color is not None:
        data[node.color.letter] = [node.move.to_sgf(game.size)]
    setup = node.setup
    if setup:
        for ident, stones in (("AB", setup.black), ("AW", setup.white), ("AE", setup.empty)):
            if stones:
                data[ident] = [format_point(p) for p in stones]
        if setup.to_play is not None:
            data["PL"] = [setup.to_play.letter]
    return data


def flatten(game: Game) -> list[list[Any]]:
    index: dict[int, int] = {}
    nodes: list[list[Any]] = []
    for number, node in enumerate(game.walk()):
        index[id(node)] = number
        parent = -1 if node.parent is None else index[id(node.parent)]
        nodes.append([parent, expected_data(node, game)])
    return nodes


@pytest.fixture(scope="module")
def node_binary() -> str:
    binary = shutil.which("node")
    if binary is None or not MODULE.is_dir():
        pytest.skip("node or @sabaki/sgf (tests/js) is not installed")
    return binary


@pytest.mark.engine
@pytest.mark.slow
def test_sabaki_reads_our_files_back(node_binary: str, torture: list[Path]) -> None:
    # A private folder: pytest's shared tmp_path folders may be cleaned by concurrent runs.
    with tempfile.TemporaryDirectory(prefix="imago-sabaki-") as folder:
        check_sabaki(node_binary, Path(folder), torture)


def check_sabaki(node_binary: str, tmp_path: Path, torture: list[Path]) -> None:
    written: dict[str, sgf.SgfCollection] = {}
    extra = sgf.read_string(
        "(;GM[1]SZ[9]C[soft\\\nbreak \\] and \\\\ and\r\nCRLF]XX[private];B[ee](;W[])(;W[dd]))"
    )
    sources = [(path.name, sgf.read_file(path)) for path in torture]
    sources.append(("extra.sgf", extra))
    for number, (name, collection) in enumerate(sources):
        if not collection:
            continue
        target = tmp_path / f"{number:04d}-{Path(name).stem[:40]}.sgf"
        sgf.write_file(target, collection)
        written[str(target)] = collection
    result = subprocess.run(
        [node_binary, str(SCRIPT)],
        input="".join(f"{name}\n" for name in written),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    trees = json.loads(result.stdout)
    problems = []
    for file, collection in written.items():
        expected = [flatten(game) for game in collection]
        if trees[file] != expected:
            problems.append(Path(file).name)
    assert not problems, f"{len(problems)} files differ in Sabaki: {problems[:10]}"
    assert len(written) > 1500
