"""``imago rl set``: an existing run's settings changed, checked, and the change on record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from imago.cli.app import app
from imago.rl.config import smoke_config
from imago.rl.folder import RunError, RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import change_settings, init, load_config


@pytest.fixture
def folder(tmp_path: Path) -> RunFolder:
    run = RunFolder(tmp_path / "run")
    init(run, smoke_config(GameSpec("othello", 6)))
    return run


def test_a_changed_setting_is_kept_and_logged(folder: RunFolder) -> None:
    change_settings(folder, {"nn_precision": "int8", "selfplay.simulations": 12})
    config = load_config(folder)
    assert (config.nn_precision, config.selfplay.simulations) == ("int8", 12)
    (row,) = folder.metrics("settings")
    assert row["changes"] == {"nn_precision": "int8", "selfplay.simulations": 12}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"spec.size": 8}, "fixed once a run exists"),
        ({"model": "b6c64"}, "fixed once a run exists"),
        ({"nn_precision": "fp16"}, "fp32 or int8"),
        ({"no_such_setting": 1}, "unknown setting"),
        (  # real records have no ownership: refused now, not when the loop trains
            {"train.records_share": 0.25, "train.ownership_weight": 1.5},
            "no final margins, search values or ownership",
        ),
    ],
)
def test_a_refused_change_leaves_the_run_as_it_was(
    folder: RunFolder, changes: dict[str, object], message: str
) -> None:
    before = folder.run_path.read_bytes()
    with pytest.raises(RunError, match=message):
        change_settings(folder, changes)
    assert folder.run_path.read_bytes() == before
    assert folder.metrics("settings") == []


def test_settings_an_older_imago_let_through_are_mended_by_a_change(folder: RunFolder) -> None:
    """Older versions took records_share with ownership_weight and failed only when the loop
    trained; such a run is unreadable now, and ``rl set`` can still mend it."""
    settings = json.loads(folder.run_path.read_text())
    settings["config"]["train"].update(records_share=0.25, ownership_weight=1.5)
    settings["config"]["train_records"] = ["records.sgf"]
    folder.run_path.write_text(json.dumps(settings))
    with pytest.raises(RunError, match="no final margins"):
        load_config(folder)
    change_settings(folder, {"train.records_share": 0})
    mended = load_config(folder)
    assert (mended.train.records_share, mended.train.ownership_weight) == (0, 1.5)


def test_a_setting_newer_than_the_run_can_be_set(folder: RunFolder) -> None:
    """A run stored by an older imago lacks the settings added since (here
    ``selfplay.value_only_empties``): it reads with their defaults, and ``rl set`` sets them."""
    settings = json.loads(folder.run_path.read_text())
    del settings["config"]["selfplay"]["value_only_empties"]
    folder.run_path.write_text(json.dumps(settings))
    assert load_config(folder).selfplay.value_only_empties == 0
    change_settings(folder, {"selfplay.value_only_empties": 20, "selfplay.fast_simulations": 4})
    assert load_config(folder).selfplay.value_only_empties == 20
    with pytest.raises(RunError, match=r"unknown setting 'selfplay\.no_such_setting'"):
        change_settings(folder, {"selfplay.no_such_setting": 1})


def test_the_command_changes_a_run_and_refuses_a_malformed_change(folder: RunFolder) -> None:
    runner = CliRunner()
    done = runner.invoke(
        app, ["rl", "set", str(folder.root), "nn_precision=int8"], terminal_width=200
    )
    assert done.exit_code == 0, done.output
    assert 'nn_precision = "int8"' in done.output
    assert json.loads(folder.run_path.read_text())["config"]["nn_precision"] == "int8"
    refused = runner.invoke(app, ["rl", "set", str(folder.root), "nn_precision"])
    assert refused.exit_code != 0 and "key=value" in refused.output


def test_the_command_refuses_records_that_are_not_there(folder: RunFolder) -> None:
    """A missing file is said now, not when the run reaches its training hours later."""
    before = folder.run_path.read_bytes()
    refused = CliRunner().invoke(
        app,
        [
            "rl",
            "set",
            str(folder.root),
            "train.records_share=0.25",
            'train_records=["nowhere.sgf"]',
        ],
    )
    assert refused.exit_code != 0
    assert "nowhere.sgf: no such file or folder" in " ".join(refused.output.split())
    assert folder.run_path.read_bytes() == before


def test_the_command_changes_a_run_whose_bootstrap_network_is_gone(
    tmp_path: Path,
) -> None:
    """A run restored on another machine may lack the file its generation 0 was made from: the
    bootstrap is fixed and used once, so ``set`` does not ask for it."""
    folder = RunFolder(tmp_path / "run")
    config = smoke_config(GameSpec("othello", 6))
    init(folder, config.with_changes({"bootstrap": str(tmp_path / "gone.pt")}))
    done = CliRunner().invoke(app, ["rl", "set", str(folder.root), "selfplay.simulations=12"])
    assert done.exit_code == 0, done.output
    assert load_config(folder).selfplay.simulations == 12
