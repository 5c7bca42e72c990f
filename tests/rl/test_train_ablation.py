"""``bench/train_ablation.py``: variants of the next generation trained on the same data."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from repo_scripts import load_script

pytest.importorskip("torch")

from imago.nn.dataset import ShardArrays
from imago.nn.rl_train import load_window
from imago.rl.config import smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play


def _script() -> ModuleType:
    return load_script("bench/train_ablation.py")


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    folder = RunFolder(run)
    config = smoke_config(GameSpec("othello", 6)).with_changes(
        {"selfplay.parallel": 4, "train.steps": 6, "train.batch_size": 16}
    )
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=4, worker="w")
    return run


def _weights(path: Path) -> list[np.ndarray]:
    import torch

    payload = torch.load(path, weights_only=True)
    return [t.numpy() for t in payload["state_dict"].values()]


def test_variants_train_on_the_same_data_and_only_their_settings_differ(tmp_path: Path) -> None:
    run = _run(tmp_path)
    out = tmp_path / "variants"
    variants = [("a", {}), ("again", {}), ("policy", {"value_weight": 0.0})]
    results = _script().train_variants(run, 0, out, variants)
    assert all((out / f"{name}.pt").is_file() and (out / f"{name}.onnx").is_file()
               for name, _ in variants)  # fmt: skip
    assert results["policy"]["changes"] == {"value_weight": 0.0}
    same = zip(_weights(out / "a.pt"), _weights(out / "again.pt"), strict=True)
    assert all(np.array_equal(x, y) for x, y in same)  # same data, steps and seed
    changed = zip(_weights(out / "a.pt"), _weights(out / "policy.pt"), strict=True)
    assert not all(np.array_equal(x, y) for x, y in changed)
    assert RunFolder(run).generations() == [0]  # nothing written into the run


def test_shards_without_the_searchs_values_get_them_from_the_game_records(
    tmp_path: Path,
) -> None:
    run = _run(tmp_path)
    files = RunFolder(run).example_files(0)
    window = load_window(files)
    assert window.searched is not None
    older = replace(window, searched=None)  # as shards written before they were kept
    rebuilt = _script().searched_from_records(files, older)
    assert isinstance(rebuilt, ShardArrays) and rebuilt.searched is not None
    # the records keep 4 decimals of each win rate
    assert rebuilt.searched.astype(float) == pytest.approx(window.searched.astype(float), abs=2e-3)


def test_a_variant_needs_a_name_and_a_json_object() -> None:
    parse = _script().parse_variant
    assert parse('pol={"value_weight": 0}') == ("pol", {"value_weight": 0})
    for bad in ("nosettings", '9x={"lr": 1}', "a=[1, 2]", "a={lr: 1}"):
        with pytest.raises(SystemExit):
            parse(bad)


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"learning_rate": 0.1}, "unknown training settings learning_rate"),
     ({"search_weight": 2.0}, "search_weight is a share")],
)  # fmt: skip
def test_a_bad_variant_setting_is_a_clear_error(changes: dict[str, object], message: str) -> None:
    from imago.nn.rl_train import StepsConfig

    with pytest.raises(SystemExit, match=message):
        _script().variant_settings(StepsConfig(), 10, "v", changes)
