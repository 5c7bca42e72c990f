"""``bench/scoring_corpus.py``'s folder tools: ``pack`` (one archive, the same bytes for the same
games), ``records`` and ``sizes_in`` reading a folder and its archive alike, and ``--shard``."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

_SCRIPT = Path(__file__).parents[3] / "bench" / "scoring_corpus.py"


@cache
def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scoring_corpus", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _folder(root: Path) -> Path:
    #  size  index  end
    #  9     0      passes
    #  9     2      move limit
    #  13    1      passes
    folder = root / "corpus"
    for size, index, end in ((9, 0, "passes"), (9, 2, "move limit"), (13, 1, "passes")):
        path = folder / str(size) / f"{index:05d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"size": size, "index": index, "end": end}))
        path.with_suffix(".sgf").write_text("(;GM[1])")  # not packed
    return folder


def test_pack_makes_the_same_archive_and_reads_back_like_the_folder(tmp_path: Path) -> None:
    script = _script()
    folder = _folder(tmp_path)
    first, second = tmp_path / "a.tar.gz", tmp_path / "b.tar.gz"
    script.pack(folder, first)
    script.pack(folder, second)
    assert first.read_bytes() == second.read_bytes()
    assert script.sizes_in(folder) == script.sizes_in(first) == [9, 13]
    for size in (9, 13):
        assert list(script.records(folder, size)) == list(script.records(first, size))
    assert [name for name, _ in script.records(first, 9)] == ["9/00000.json", "9/00002.json"]
    assert script.finished_games(first, 9) == 1


@pytest.mark.parametrize(
    ("text", "shard"),
    [("0/1", (0, 1)), ("3/4", (3, 4)), ("4/4", None), ("-1/2", None), ("a/b", None), ("2", None)],
)
def test_shards_are_k_of_n(text: str, shard: tuple[int, int] | None) -> None:
    if shard is None:
        with pytest.raises(argparse.ArgumentTypeError):
            _script().parse_shard(text)
    else:
        assert _script().parse_shard(text) == shard
