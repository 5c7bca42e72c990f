"""Size-free networks (``bBcC-pool``): one set of weights plays every Go board size.

    trained on 19x19          loaded for 13x13              for 9x9
    . . . . . . . . .  ->     same weights, 13*13+1    ->   same weights, 9*9+1
    (362 actions)             actions                       actions

The agents load such a model again for each board they are asked to play; a model with dense
heads stays tied to its own board and is refused elsewhere with a message.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from imago.agents.base import AgentError, Limit  # noqa: E402
from imago.agents.registry import agent_from_spec  # noqa: E402
from imago.games import make  # noqa: E402
from imago.nn.models import ModelError, ResNetConfig, arch_name, config_from_dict, parse_arch  # noqa: E402
from imago.nn.store import ModelSpec, load_model, save_model  # noqa: E402


def save(tmp_path: Path, name: str, size: int = 19, seed: int = 0) -> Path:
    torch.manual_seed(seed)
    spec = ModelSpec("go", size, "legal4", parse_arch(name))
    path = tmp_path / f"{name}-{size}.pt"
    save_model(path, spec.build(), spec)
    return path


def test_pooled_names_round_trip_and_old_configs_stay_dense() -> None:
    config = parse_arch("b6c64-pool")
    assert config == ResNetConfig(6, 64, pool=True)
    assert arch_name(config) == "b6c64-pool"
    assert arch_name(parse_arch("b6c64")) == "b6c64"
    # a config saved before pooled heads existed has no "pool" key: a dense network
    assert config_from_dict({"kind": "resnet", "blocks": 2, "filters": 8}).pool is False


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_one_set_of_weights_maps_every_board_to_its_actions(size: int) -> None:
    net = ModelSpec("go", 19, "legal4", parse_arch("b1c8-pool")).build().eval()
    with torch.no_grad():
        logits, value = net(torch.rand(3, 4, size, size))
    assert logits.shape == (3, size * size + 1)
    assert value is not None and value.shape == (3,) and bool((value.abs() <= 1).all())


def test_the_pooling_tells_the_heads_the_board_size() -> None:
    """A plane of ones has the same mean and max on every board; only the size-scaled mean,
    ``(N - 14) / 10``, differs: without it the heads could not tell 9x9 from 19x19."""
    from imago.nn.models import _global_pool

    pooled = {size: _global_pool(torch.ones(1, 2, size, size))[0] for size in (9, 19)}
    for size, values in pooled.items():
        mean, scaled, top = values[:2], values[2:4], values[4:]
        assert torch.equal(mean, torch.ones(2)) and torch.equal(top, torch.ones(2))
        assert torch.allclose(scaled, torch.full((2,), (size - 14) / 10))


def test_loading_for_another_size_rewrites_the_spec_and_dense_models_refuse(
    tmp_path: Path,
) -> None:
    pooled = save(tmp_path, "b1c8-pool")
    loaded = load_model(pooled, game="go", size=13)
    assert (loaded.spec.size, loaded.spec.num_actions, loaded.spec.size_free) == (13, 170, True)
    assert load_model(pooled).spec.size == 19
    dense = save(tmp_path, "b1c8", size=9)
    with pytest.raises(ModelError, match="9x9 go, not 13x13"):
        load_model(dense, game="go", size=13)
    with pytest.raises(ModelError, match="not othello"):
        load_model(pooled, game="othello", size=8)


def test_the_onnx_export_for_another_size_matches_torch(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from imago.nn.export import export_onnx

    model = save(tmp_path, "b1c8-pool")
    path = export_onnx(model, tmp_path / "model13.onnx", size=13)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).random((3, 4, 13, 13), dtype=np.float32)
    policy, value = session.run(["policy", "value"], {"planes": x})
    net = load_model(model, size=13).net
    with torch.no_grad():
        expected_policy, expected_value = net(torch.from_numpy(x))
    np.testing.assert_allclose(policy, expected_policy.numpy(), atol=1e-4)
    np.testing.assert_allclose(value, expected_value.numpy(), atol=1e-4)


@pytest.mark.parametrize("agent", ["policy", "nnmcts", "az"])
def test_an_agent_plays_every_board_with_one_size_free_model(tmp_path: Path, agent: str) -> None:
    model = save(tmp_path, "b1c8-pool")
    player = agent_from_spec(f"{agent}:model={model}", "go", size=19)
    for size in (19, 13, 9, 13):
        state = make("go", size=size).play_action(size + 1)  # one stone, then the agent
        result = player.select_move(state, Limit(playouts=24))
        assert result.move.is_pass or state.is_legal(result.move)
        assert network_size(player) == size


def network_size(player: object) -> int:
    """The board size of the network an nn agent plays with now."""
    network = getattr(player, "guide", None) or getattr(player, "board_evaluator", None)
    if network is None:
        network = player._network  # type: ignore[attr-defined]
    return int(network.spec.size)


@pytest.mark.parametrize("agent", ["policy", "nnmcts", "az"])
def test_a_dense_model_is_refused_on_another_board_when_the_agent_is_made(
    tmp_path: Path, agent: str
) -> None:
    model = save(tmp_path, "b1c8", size=9)
    agent_from_spec(f"{agent}:model={model}", "go", size=9)
    with pytest.raises(AgentError, match=r"9x9 go, not 13x13 go"):
        agent_from_spec(f"{agent}:model={model}", "go", size=13)
