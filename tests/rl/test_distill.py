"""Distillation: a network of another size trained on a run's self-play examples, and a run
started from it with the old run's settings (``imago rl distill``, ``imago rl init --like``)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import torch
from small_runs import run_with_two_rounds, small_config
from typer.testing import CliRunner

from imago.cli.app import app
from imago.nn.rl_train import StepsConfig, load_window
from imago.nn.store import load_model
from imago.rl.config import LoopConfig
from imago.rl.distill import DistillConfig, distill, report_path, trainer_path
from imago.rl.folder import RunError, RunFolder, iter_round_files
from imago.rl.stages import bootstrap, init, load_config, train


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunFolder, LoopConfig]:
    return run_with_two_rounds(tmp_path_factory.mktemp("distill") / "run")


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return dict(load_model(path).net.state_dict())


def test_distill_trains_a_network_of_the_size_asked_on_the_newest_rounds(
    played: tuple[RunFolder, LoopConfig], tmp_path: Path
) -> None:
    folder, config = played
    out = tmp_path / "b2c16.pt"
    settings = DistillConfig("b2c16", rounds=1, passes=1.0, batch_size=16)
    row = distill(folder, config, out, settings)
    assert row is not None
    newest_round = load_window(list(iter_round_files(folder, [1], holdout=False)))
    assert row["rounds"] == [1, 1]
    assert row["train"]["window"] == len(newest_round)
    assert row["train"]["steps"] == settings.steps(len(newest_round))
    assert load_model(out).spec.name == "b2c16"
    assert row["teacher"]["generation"] == 1
    assert row["holdout"]["positions"] == row["teacher"]["holdout"]["positions"] > 0
    assert json.loads(report_path(out).read_text())["rounds"] == [1, 1]


def test_distill_counts_only_rounds_that_were_played(tmp_path: Path) -> None:
    """The newest generation has not played yet: ``rounds=1`` is the newest played round."""
    folder, config = run_with_two_rounds(tmp_path / "run")
    assert train(folder, config) == 2  # round 2 is empty
    row = distill(folder, config, tmp_path / "one.pt", DistillConfig("b1c8", rounds=1))
    assert row is not None
    assert row["rounds"] == [1, 1]
    assert row["teacher"]["generation"] == 2


def test_distill_takes_every_round_when_the_run_has_fewer(
    played: tuple[RunFolder, LoopConfig], tmp_path: Path
) -> None:
    folder, config = played
    row = distill(folder, config, tmp_path / "all.pt", DistillConfig("b1c8", rounds=50))
    assert row is not None
    both = load_window(list(iter_round_files(folder, [1, 0], holdout=False)))
    assert row["rounds"] == [0, 1]
    assert row["train"]["window"] == len(both)


def test_a_stopped_distillation_goes_on_to_the_same_network(
    played: tuple[RunFolder, LoopConfig], tmp_path: Path
) -> None:
    folder, config = played
    settings = DistillConfig("b1c8", rounds=2, passes=2.0, batch_size=8)
    whole = distill(folder, config, tmp_path / "whole.pt", settings)
    assert whole is not None and whole["train"]["steps"] > 3
    stop = threading.Event()

    def stop_at_step_3(stage: str, done: float, total: float, text: str) -> None:
        if stage == "distill" and done == 3 and total > 3:
            stop.set()

    out = tmp_path / "stopped.pt"
    assert distill(folder, config, out, settings, stop=stop, report=stop_at_step_3) is None
    assert trainer_path(out).is_file() and not out.exists()
    again = distill(folder, config, out, settings)
    assert again is not None
    for name, tensor in _weights(tmp_path / "whole.pt").items():
        assert torch.allclose(tensor, _weights(out)[name], atol=1e-6), name


def test_a_stopped_distillation_run_again_with_another_size_trains_that_size(
    played: tuple[RunFolder, LoopConfig], tmp_path: Path
) -> None:
    folder, config = played
    stop = threading.Event()
    stop.set()
    out = tmp_path / "net.pt"
    small = DistillConfig("b1c8", rounds=2, batch_size=8)
    assert distill(folder, config, out, small, stop=stop) is None
    assert distill(folder, config, out, DistillConfig("b2c8", rounds=2, batch_size=8)) is not None
    assert load_model(out).spec.name == "b2c8"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"model": "big"}, "big"),
        ({"rounds": 0}, "rounds"),
        ({"passes": 0.0}, "passes"),
        ({"lr": -1.0}, "lr"),
    ],
)
def test_distill_settings_out_of_range_are_refused(
    played: tuple[RunFolder, LoopConfig], tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    folder, config = played
    values: dict[str, object] = {"model": "b1c8", **changes}
    with pytest.raises(ValueError, match=message):
        distill(folder, config, tmp_path / "x.pt", DistillConfig(**values))  # type: ignore[arg-type]
    assert not (tmp_path / "x.pt").exists()


def test_distill_refuses_a_run_without_examples(tmp_path: Path) -> None:
    config = small_config()
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    bootstrap(folder, config)
    with pytest.raises(RunError, match="no self-play examples"):
        distill(folder, config, tmp_path / "x.pt", DistillConfig("b1c8"))
    result = CliRunner().invoke(
        app, ["rl", "distill", str(folder.root), str(tmp_path / "x.pt"), "--model", "b1c8"]
    )
    assert result.exit_code != 0
    assert "no self-play examples" in result.output


def test_a_run_like_another_starts_from_the_distilled_network_with_its_settings(
    played: tuple[RunFolder, LoopConfig], tmp_path: Path
) -> None:
    folder, config = played
    out = tmp_path / "b2c8.pt"
    runner = CliRunner()
    made = runner.invoke(
        app,
        ["rl", "distill", str(folder.root), str(out), "--model", "b2c8", "--rounds", "2",
         "--passes", "1"],
        terminal_width=200,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "held-out games, value MSE" in made.output
    new = tmp_path / "bigger"
    started = runner.invoke(
        app,
        ["rl", "init", str(new), "--like", str(folder.root), "--bootstrap", str(out),
         "--set", "selfplay.simulations=9"],
    )  # fmt: skip
    assert started.exit_code == 0, started.output
    settings = load_config(RunFolder(new))
    expected = config.with_changes({"bootstrap": str(out), "selfplay.simulations": 9})
    assert settings == expected
    assert bootstrap(RunFolder(new), settings) == 0
    assert load_model(RunFolder(new).model_path(0)).spec.name == "b2c8"


def test_like_refuses_a_game_or_board_of_its_own(
    played: tuple[RunFolder, LoopConfig], tmp_path: Path
) -> None:
    folder, _ = played
    result = CliRunner().invoke(
        app, ["rl", "init", str(tmp_path / "new"), "--like", str(folder.root), "--size", "8"]
    )
    assert result.exit_code != 0
    assert "leave out --size" in result.output
    assert not (tmp_path / "new").exists()


def test_a_learning_rate_schedule_that_does_not_exist_is_refused() -> None:
    assert StepsConfig(schedule="cosine").train_config().schedule == "cosine"
    with pytest.raises(ValueError, match="schedule"):
        StepsConfig(schedule="linear")
