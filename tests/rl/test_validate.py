"""Validation of a generation on the self-play holdout and on real records (WTHOR)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from imago.rl.config import smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play
from imago.rl.validate import validate


def test_a_generation_is_validated_on_the_holdout_and_on_wthor(
    tmp_path: Path, data_dir: Path
) -> None:
    wthor = data_dir / "wthor" / "WTH_2025.wtb"
    if not wthor.is_file():
        pytest.skip("WTH_2025.wtb is not in the shared data")
    config = smoke_config(GameSpec("othello", 8)).with_changes(
        {
            "records": [str(wthor)],
            "records_years": [2025, 2025],
            "records_limit": 400,
            "holdout_fraction": 0.5,
            "selfplay.max_moves": 0,
        }
    )
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, games=8, worker="w")
    row = validate(folder, config, 0)
    holdout, records = row["holdout"], row["records"]
    assert holdout["positions"] > 0 and 0 <= holdout["top1"] <= 1 and holdout["policy_loss"] > 0
    assert records["positions"] == 400
    assert 0 <= records["top1"] <= 1 and records["loss"] > 0 and "value_mse" in records
    built = folder.validation_dir / "records-legal4" / "manifest.json"
    stamp = built.stat().st_mtime
    assert validate(folder, config, 0) == row  # logged once, not measured again
    from imago.rl.validate import records_metrics

    records_metrics(folder, config, folder.model_path(0))
    assert built.stat().st_mtime == stamp  # the dataset is built once
