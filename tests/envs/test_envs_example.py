"""The training example in examples/ runs (with a tiny budget) and its network plays in
``imago match`` through the ``policy`` agent, unchanged."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")

from imago.cli.app import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "othello_policy_gradient.py"


def test_the_policy_gradient_example_trains_a_network_imago_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("othello_policy_gradient", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = tmp_path / "pg.pt"
    budget = ["--updates", "2", "--games", "8", "--eval-games", "8", "--arch", "b1c8"]
    module.main([*budget, "--out", str(model)])
    printed = capsys.readouterr().out
    assert "before training" in printed and "after training" in printed and model.is_file()
    result = CliRunner().invoke(
        app,
        [
            *["match", "--game", "othello", "--size", "6", "--black", f"policy:model={model}"],
            *["--white", "random", "--games", "2", "--alternate", "--out", str(tmp_path / "m")],
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "m" / "games").glob("*.sgf"))) == 2
