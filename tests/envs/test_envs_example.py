"""The training example in examples/ runs (with a tiny budget) and its network plays in
``imago match`` through the ``policy`` agent, unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from repo_scripts import load_script

pytest.importorskip("torch")

from imago.cli.app import app


def test_the_policy_gradient_example_trains_a_network_imago_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_script("examples/othello_policy_gradient.py")
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
