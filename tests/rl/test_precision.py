"""``nn_precision=int8``: self-play plays each generation from an int8 copy calibrated on the
positions it was trained on; generation 0's first round, with nothing to calibrate on, plays
in float32."""

from __future__ import annotations

from pathlib import Path

import pytest

from imago.rl.config import smoke_config
from imago.rl.folder import RunError, RunFolder
from imago.rl.precision import selfplay_onnx
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, evaluate, init, self_play, train


def test_self_play_runs_each_trained_generation_from_its_int8_copy(tmp_path: Path) -> None:
    config = smoke_config(GameSpec("othello", 6)).with_changes(
        {"nn_precision": "int8", "evaluation.games": 0}  # every generation promoted
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    assert selfplay_onnx(folder, config, 0) is None  # no positions yet
    self_play(folder, config, worker="first")
    assert train(folder, config) == 1
    evaluate(folder, config, 1)  # no gate: promoted
    self_play(folder, config, games=4, worker="second")
    rounds = [
        (row["round"], row["generation"], row["precision"]) for row in folder.metrics("selfplay")
    ]
    assert rounds == [(0, 0, "fp32"), (1, 1, "int8")]
    copy = folder.model_path(1, ".int8.onnx")
    assert copy.is_file()
    made = copy.stat().st_mtime_ns
    assert selfplay_onnx(folder, config, 1) == copy
    assert copy.stat().st_mtime_ns == made  # made once
    fp32 = config.with_changes({"nn_precision": "fp32"})
    assert selfplay_onnx(folder, fp32, 1) is None


def test_an_unknown_precision_is_refused() -> None:
    with pytest.raises(RunError, match="fp32 or int8"):
        smoke_config(GameSpec("go", 7)).with_changes({"nn_precision": "fp16"})
