"""``imago rl adopt``: a run rolled back to an earlier network goes on training from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from small_runs import run_with_two_rounds, small_config
from typer.testing import CliRunner

from imago.cli.app import app
from imago.nn.rl_train import evaluate_examples, initial_model, load_window
from imago.nn.store import load_model
from imago.rl.folder import RunError, RunFolder, iter_round_files
from imago.rl.stages import adopt, bootstrap, init, self_play, train


def test_an_adopted_network_is_the_next_generation_and_the_run_trains_it_on(
    tmp_path: Path,
) -> None:
    folder, config = run_with_two_rounds(tmp_path / "run")
    earlier = tmp_path / "generation0.pt"
    earlier.write_bytes(folder.model_path(0).read_bytes())

    shown = CliRunner().invoke(app, ["rl", "adopt", str(folder.root), str(earlier)])
    assert shown.exit_code == 0, shown.output
    assert "generation 2: a copy of" in shown.output
    assert folder.best() == 2 and folder.latest() == 2
    # it plays as generation 0 did, not as generation 1
    examples = load_window(list(iter_round_files(folder, [1, 0], holdout=False)))
    adopted = evaluate_examples(folder.model_path(2), examples)
    original = evaluate_examples(folder.model_path(0), examples)
    newest = evaluate_examples(folder.model_path(1), examples)
    assert adopted["policy_loss"] == pytest.approx(original["policy_loss"], abs=1e-6)
    assert adopted["policy_loss"] != pytest.approx(newest["policy_loss"], abs=1e-6)
    rows = [json.loads(line) for line in (folder.root / "metrics.jsonl").open()]
    logged = [row for row in rows if row["event"] == "adopt"]
    assert logged and logged[-1]["generation"] == 2 and logged[-1]["parent"] == 1

    self_play(folder, config, worker="w2")
    assert train(folder, config) == 3
    assert load_model(folder.model_path(3)).spec.name == "b1c8"


def test_with_an_ownership_weight_the_adopted_network_gets_an_ownership_head(
    tmp_path: Path,
) -> None:
    """The head is new; the policy and value are generation 1's, and training then learns
    ownership (KataGo's auxiliary target) from the run's examples."""
    folder, config = run_with_two_rounds(tmp_path / "run")
    config = config.with_changes({"train.ownership_weight": 1.5})
    assert not load_model(folder.model_path(1)).net.has_ownership
    assert adopt(folder, config, folder.model_path(1)) == 2
    assert load_model(folder.model_path(2)).net.has_ownership
    examples = load_window(list(iter_round_files(folder, [1, 0], holdout=False)))
    adopted = evaluate_examples(folder.model_path(2), examples)
    parent = evaluate_examples(folder.model_path(1), examples)
    assert adopted["policy_loss"] == pytest.approx(parent["policy_loss"], abs=1e-6)
    assert adopted["value_mse"] == pytest.approx(parent["value_mse"], abs=1e-6)

    self_play(folder, config, worker="w2")
    assert train(folder, config) == 3
    rows = [json.loads(line) for line in (folder.root / "metrics.jsonl").open()]
    trained = [row for row in rows if row["event"] == "train"]
    assert trained[-1]["generation"] == 3 and trained[-1]["ownership_loss"] > 0


def test_a_network_of_another_size_is_adopted(tmp_path: Path) -> None:
    folder, config = run_with_two_rounds(tmp_path / "run")
    larger = tmp_path / "b2c12.pt"
    initial_model(larger, game="othello", size=6, arch="b2c12", features="legal4", seed=3)
    adopt(folder, config, larger)
    assert load_model(folder.model_path(2)).spec.name == "b2c12"


@pytest.mark.parametrize(
    ("game", "size", "features", "message"),
    [
        ("go", 7, "legal4", "cannot be adopted"),  # another game
        ("othello", 8, "legal4", "cannot be adopted"),  # another board
        ("othello", 6, "stones2", "reads the stones2 features"),  # other inputs
    ],
)
def test_a_network_the_run_cannot_train_is_refused_and_changes_nothing(
    tmp_path: Path, game: str, size: int, features: str, message: str
) -> None:
    folder, _ = run_with_two_rounds(tmp_path / "run")
    other = tmp_path / "other.pt"
    initial_model(other, game=game, size=size, arch="b1c8", features=features, seed=1)
    promoted = folder.best()
    refused = CliRunner().invoke(app, ["rl", "adopt", str(folder.root), str(other)])
    assert refused.exit_code != 0
    assert message in refused.output
    assert folder.latest() == 1 and folder.best() == promoted
    assert not folder.model_path(2).exists()


def test_a_missing_or_broken_file_and_a_run_without_a_network_are_refused(
    tmp_path: Path,
) -> None:
    config = small_config()
    folder = RunFolder(tmp_path / "run")
    init(folder, config)
    with pytest.raises(RunError, match="no network yet"):
        adopt(folder, config, tmp_path / "any.pt")
    bootstrap(folder, config)
    with pytest.raises(RunError, match="cannot be adopted"):
        adopt(folder, config, tmp_path / "missing.pt")
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"not a network")
    with pytest.raises(RunError, match="cannot be adopted"):
        adopt(folder, config, broken)
    assert folder.latest() == 0
