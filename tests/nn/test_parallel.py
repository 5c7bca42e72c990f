"""Data-parallel training (DDP, gloo on two CPU processes) against one process on the same
data: the same network up to floating-point order, and checkpoints that resume either way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from imago.nn.dataset import ShardArrays, pack_rows  # noqa: E402
from imago.nn.features import feature_set  # noqa: E402
from imago.nn.rl_train import StepsConfig, initial_model, train_steps  # noqa: E402
from imago.nn.store import load_model  # noqa: E402

SIZE = 6
ACTIONS = SIZE * SIZE + 1


def window(positions: int = 96, seed: int = 3) -> ShardArrays:
    """A small fixed dataset: random planes and legal moves, move distributions over the legal
    moves, results of +-1 (what self-play writes, in shape and range)."""
    rng = np.random.default_rng(seed)
    planes = feature_set("legal4").planes
    bits = rng.random((positions, planes, SIZE, SIZE)) < 0.3
    legal = rng.random((positions, ACTIONS)) < 0.5
    legal[:, 0] = True
    target = rng.random((positions, ACTIONS)) * legal
    target /= target.sum(axis=1, keepdims=True)
    played = np.array([rng.choice(np.flatnonzero(row)) for row in legal], dtype=np.int16)
    return ShardArrays(
        pack_rows(bits),
        pack_rows(legal),
        played,
        rng.choice(np.array([-1, 1], dtype=np.int8), positions),
        np.arange(positions, dtype=np.int32),
        target.astype(np.float16),
    )


def config(**changes: object) -> StepsConfig:
    base = {"steps": 12, "batch_size": 16, "lr": 0.05, "checkpoint_every": 4, "device": "cpu"}
    return StepsConfig(**{**base, **changes})  # type: ignore[arg-type]


def start(tmp_path: Path) -> Path:
    path = tmp_path / "start.pt"
    initial_model(path, game="othello", size=SIZE, arch="b2c8", features="legal4", seed=5)
    return path


def trained(tmp_path: Path, name: str, ranks: int, stop: object = None) -> dict[str, object]:
    out = tmp_path / f"{name}.pt"
    result = train_steps(
        start(tmp_path), window(), out, tmp_path / f"{name}.ckpt", config(), tag=1,
        ranks=ranks, stop=stop,  # type: ignore[arg-type]
    )  # fmt: skip
    return result


def weights(path: Path) -> dict[str, torch.Tensor]:
    return {k: v.double() for k, v in load_model(path).net.state_dict().items()}


def assert_close(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert torch.allclose(a[key], b[key], rtol=1e-4, atol=1e-5), (
            key,
            float((a[key] - b[key]).abs().max()),
        )


class StopAt:
    """Set from the ``n``-th look on (the trainer looks once per step)."""

    def __init__(self, n: int) -> None:
        self.n, self.looks = n, 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > self.n


@pytest.mark.slow
def test_two_gloo_ranks_train_the_same_network_as_one_process(tmp_path: Path) -> None:
    one = trained(tmp_path, "one", 1)
    two = trained(tmp_path, "two", 2)
    assert two["ranks"] == 2 and one["positions"] == two["positions"] == 12 * 16
    assert abs(float(one["loss"]) - float(two["loss"])) < 1e-4  # type: ignore[arg-type]
    a, b = weights(tmp_path / "one.pt"), weights(tmp_path / "two.pt")
    moved = max(float((a[k] - weights(tmp_path / "start.pt")[k]).abs().max()) for k in a)
    assert moved > 1e-2  # the steps did change the network ...
    assert_close(a, b)  # ... the same way (batch norm statistics of the whole batch included)


@pytest.mark.slow
def test_a_data_parallel_checkpoint_resumes_in_one_process_and_back(tmp_path: Path) -> None:
    trained(tmp_path, "plain", 1)
    # two ranks stopped after 6 steps; one process goes on from their checkpoint
    stopped = trained(tmp_path, "mixed", 2, stop=StopAt(6))
    assert stopped == {"stopped": True, "step": 6}
    trained(tmp_path, "mixed", 1)
    assert_close(weights(tmp_path / "plain.pt"), weights(tmp_path / "mixed.pt"))
    # and one process stopped, two ranks going on
    assert trained(tmp_path, "other", 1, stop=StopAt(5))["stopped"]
    trained(tmp_path, "other", 2)
    assert_close(weights(tmp_path / "plain.pt"), weights(tmp_path / "other.pt"))


def test_a_batch_that_does_not_split_over_the_ranks_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not split"):
        train_steps(
            start(tmp_path), window(), tmp_path / "x.pt", tmp_path / "x.ckpt",
            config(batch_size=15), tag=1, ranks=2,
        )  # fmt: skip
