"""``imago rl grow``: a run goes on with a larger network that starts as its newest one."""

from __future__ import annotations

from pathlib import Path

import pytest
from small_runs import run_with_two_rounds
from typer.testing import CliRunner

from imago.cli.app import app
from imago.nn.rl_train import evaluate_examples, load_window
from imago.nn.store import load_model
from imago.rl import checkpoint
from imago.rl.config import smoke_config
from imago.rl.folder import RunError, RunFolder, iter_round_files
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, grow, init, self_play, train


def test_a_grown_generation_plays_as_its_parent_and_the_run_trains_it_on(tmp_path: Path) -> None:
    folder, config = run_with_two_rounds(tmp_path / "run")

    shown = CliRunner().invoke(app, ["rl", "grow", str(folder.root), "--model", "b2c12"])
    assert shown.exit_code == 0, shown.output
    assert "generation 2: generation 1 grown to b2c12" in shown.output
    assert folder.best() == 2 and folder.latest() == 2
    assert load_model(folder.model_path(2)).spec.name == "b2c12"
    assert load_model(folder.model_path(1)).spec.name == "b1c8"
    examples = load_window(list(iter_round_files(folder, [1, 0], holdout=False)))
    before = evaluate_examples(folder.model_path(1), examples)
    after = evaluate_examples(folder.model_path(2), examples)
    for name in ("policy_loss", "value_mse"):
        assert after[name] == pytest.approx(before[name], abs=1e-5)

    listed = CliRunner().invoke(app, ["rl", "status", str(folder.root)], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.output.splitlines() if line.startswith("│ 2 "))
    assert "grown" in row  # promoted without a gating match

    self_play(folder, config, worker="w2")
    assert train(folder, config) == 3
    assert load_model(folder.model_path(3)).spec.name == "b2c12"
    written = checkpoint.write(folder, tmp_path / "checkpoint")
    assert written.generation == 3
    restored = checkpoint.restore(tmp_path / "checkpoint", tmp_path / "restored")
    assert restored.generation == 3
    assert load_model(RunFolder(tmp_path / "restored").model_path(3)).spec.name == "b2c12"


def test_growing_refuses_a_smaller_network_and_a_run_without_one(tmp_path: Path) -> None:
    config = smoke_config(GameSpec("othello", 6))
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    with pytest.raises(RunError, match="no network yet"):
        grow(folder, config, "b2c8")
    bootstrap(folder, config)
    refused = CliRunner().invoke(app, ["rl", "grow", str(folder.root), "--model", "b1c4"])
    assert refused.exit_code != 0
    assert "keeps every block and channel" in refused.output
    assert folder.latest() == 0 and folder.best() == 0
