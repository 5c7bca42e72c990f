"""Issue 44: ``imago train supervised`` run again on its folder, after a finish or a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from imago.games import make

torch = pytest.importorskip("torch")

from imago.cli.app import app  # noqa: E402


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twenty random Othello games as a transcript file."""
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(20):
        state, moves = make("othello"), []
        while not state.is_over():
            state = state.play_action(int(rng.choice(np.flatnonzero(state.legal_mask()))))
            if state.last_move is not None and state.last_move.is_play:
                moves.append(state.last_move.to_algebraic())
        lines.append(f"{''.join(moves)} # {state.outcome().result()}")
    path = tmp_path_factory.mktemp("records") / "games.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def _args(data: Path, out: Path, epochs: int) -> list[str]:
    return ["train", "supervised", "--game", "othello", "--data", str(data), "--out", str(out),
            "--model", "b1c8", "--epochs", str(epochs), "--batch-size", "32", "--epoch-size",
            "64", "--warmup-steps", "2", "--val-fraction", "0.25", "--val-limit", "64",
            "--threads", "1", "--device", "cpu"]  # fmt: skip


def _invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, " ".join(result.output.split())


def _epochs(out: Path) -> list[int]:
    lines = (out / "metrics.jsonl").read_text().splitlines()
    return [json.loads(line)["epoch"] for line in lines]


def test_second_run_says_nothing_is_left_and_trains_nothing(records: Path, tmp_path: Path):
    out = tmp_path / "run"
    code, output = _invoke(_args(records, out, 2))
    assert code == 0, output
    assert _epochs(out) == [1, 2]
    stamps = {name: (out / name).stat().st_mtime_ns for name in ("checkpoint.pt", "model.pt")}
    code, output = _invoke(_args(records, out, 2))
    assert code == 0, output
    said = f"nothing left: {out} finished its training (2 of 2 epochs); the model is"
    assert output == f"{said} {out / 'model.pt'}"
    assert {name: (out / name).stat().st_mtime_ns for name in stamps} == stamps
    assert _epochs(out) == [1, 2]
    # Asking for more epochs is another run: refused, the folder untouched.
    code, output = _invoke(_args(records, out, 3))
    assert code != 0 and "epochs 3 here, 2 there" in output and "another folder" in output
    assert _epochs(out) == [1, 2]


def test_rerun_after_a_stop_finishes_what_is_left(records: Path, tmp_path: Path):
    from imago.nn.dataset import Dataset
    from imago.nn.supervised import TrainConfig, train_supervised

    out = tmp_path / "run"
    code, output = _invoke(_args(records, out, 3))
    assert code == 0, output
    # As a kill would leave it: the checkpoint mid-epoch 2, metrics.jsonl one epoch behind.
    config = TrainConfig(model="b1c8", epochs=3, batch_size=32, epoch_size=64, warmup_steps=2,
                         val_limit=64, threads=1, device="cpu")  # fmt: skip
    stopped = tmp_path / "stopped"
    train_supervised(Dataset.open(out / "dataset"), stopped, config, stop_after_steps=3)
    (stopped / "metrics.jsonl").write_text("")
    code, output = _invoke(_args(out / "dataset", stopped, 3))
    assert code == 0, output
    assert "resuming at epoch 2 of 3, step 1: 1 finished, 2 left" in output
    assert _epochs(stopped) == [1, 2, 3]
    a = torch.load(out / "model.pt", weights_only=True)["state_dict"]
    b = torch.load(stopped / "model.pt", weights_only=True)["state_dict"]
    assert all(torch.equal(a[key], b[key]) for key in a)  # as if never stopped


def test_rerun_after_kill_9_finishes_without_doubling(records: Path, tmp_path: Path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "imago", *_args(records, out, 6)]
    env = dict(os.environ, PYTHONHASHSEED="0")
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 60
    while not (out / "checkpoint.pt").exists() and first.poll() is None:
        assert time.monotonic() < deadline, "no checkpoint within a minute"
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait()
    code, output = _invoke(_args(records, out, 6))
    assert code == 0, output
    assert "resuming at epoch" in output or "nothing left" in output
    assert _epochs(out) == list(range(1, 7))


def test_a_dataset_build_killed_before_its_manifest_is_built_again(records: Path, tmp_path: Path):
    out = tmp_path / "run"
    (out / "dataset").mkdir(parents=True)
    (out / "dataset" / ".00000-games.txt-train.npz.x1y2.npz").write_bytes(b"cut short")
    code, output = _invoke(_args(records, out, 1))
    assert code == 0, output
    assert _epochs(out) == [1]
    other = tmp_path / "other"
    (other / "dataset").mkdir(parents=True)
    (other / "dataset" / "notes.txt").write_text("mine")
    code, output = _invoke(_args(records, other, 1))
    assert code != 0 and "exists and is not a dataset" in output
    assert (other / "dataset" / "notes.txt").read_text() == "mine"
