"""Networks, saving and loading, masking, symmetry averaging, ONNX export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from imago.games import make  # noqa: E402
from imago.games.symmetry import SYMMETRIES, transform_policy  # noqa: E402
from imago.nn.inference import Network, masked_softmax  # noqa: E402
from imago.nn.models import (  # noqa: E402
    ModelError,
    PolicyCNNConfig,
    ResNetConfig,
    arch_name,
    parse_arch,
)
from imago.nn.store import ModelSpec, load_model, save_half, save_model  # noqa: E402

SMALL = ["dense-h8", "convpool-c4c8", "l2c8", "b1c8"]


def random_state(game: str, size: int, plies: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    state = make(game, size=size)
    for _ in range(plies):
        legal = np.flatnonzero(state.legal_mask())
        if state.is_over() or not len(legal):
            break
        state = state.play_action(int(rng.choice(legal)))
    return state


def spec_for(name: str, game: str = "othello", size: int = 8, features: str = "legal4"):
    return ModelSpec(game, size, features, parse_arch(name))


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize(
    ("game", "size", "features"), [("othello", 8, "legal4"), ("go", 9, "minigo17")]
)
def test_every_network_maps_planes_to_actions(name: str, game: str, size: int, features: str):
    net = spec_for(name, game, size, features).build().eval()
    planes = 17 if features == "minigo17" else 4
    logits, value = net(torch.zeros(3, planes, size, size))
    assert logits.shape == (3, size * size + 1)
    if name.startswith("b"):
        assert value.shape == (3,) and bool((value.abs() <= 1).all())
    else:
        assert value is None


def test_model_names():
    assert parse_arch("b6c64") == ResNetConfig(6, 64)
    assert parse_arch("cnn") == PolicyCNNConfig(12, 128)  # design 004
    assert arch_name(parse_arch("l12c128")) == "l12c128"
    assert arch_name(parse_arch("convpool")) == "convpool-c32c64"
    assert arch_name(parse_arch("dense")) == "dense-h81"
    with pytest.raises(ModelError, match="unknown model"):
        parse_arch("resnet-huge")
    with pytest.raises(ModelError):
        parse_arch("b0c64")


def test_save_load_round_trip_and_wrong_game(tmp_path: Path):
    spec = spec_for("b1c8")
    net = spec.build().eval()
    path = tmp_path / "model.pt"
    save_model(path, net, spec, {"note": "test"})
    loaded = load_model(path, game="othello", size=8)
    assert loaded.spec == spec and loaded.info == {"note": "test"}
    x = torch.rand(2, 4, 8, 8)
    with torch.no_grad():
        assert torch.equal(net(x)[0], loaded.net(x)[0])
    with pytest.raises(ModelError, match="is for 8x8 othello, not go"):
        load_model(path, game="go")
    with pytest.raises(ModelError, match="not 6x6"):
        load_model(path, size=6)
    with pytest.raises(ModelError, match=r"missing\.pt: no such file"):
        load_model(tmp_path / "missing.pt")


def test_a_float16_copy_is_half_the_file_and_predicts_alike(tmp_path: Path):
    torch.manual_seed(0)
    spec = spec_for("b2c32")
    net = spec.build().eval()
    save_model(tmp_path / "model.pt", net, spec, {"note": "test"})
    save_half(tmp_path / "model.pt", tmp_path / "half.pt")
    full, half = (tmp_path / "model.pt").stat().st_size, (tmp_path / "half.pt").stat().st_size
    assert half < 0.6 * full
    loaded = load_model(tmp_path / "half.pt", game="othello", size=8)
    assert loaded.info == {"note": "test", "stored_as": "float16"}
    assert all(p.dtype == torch.float32 for p in loaded.net.parameters())  # computes in float32
    x = torch.rand(16, 4, 8, 8)
    with torch.no_grad():
        ours, theirs = net(x)[0], loaded.net(x)[0]
    assert not torch.equal(ours, theirs)  # the weights were rounded...
    assert torch.allclose(ours, theirs, atol=0.05)  # ...and predict alike
    assert torch.equal(ours.argmax(1), theirs.argmax(1))


def test_a_weight_outside_float16s_range_is_refused(tmp_path: Path):
    spec = spec_for("b1c8")
    net = spec.build().eval()
    with torch.no_grad():
        next(net.parameters()).view(-1)[0] = 1e6
    save_model(tmp_path / "model.pt", net, spec)
    with pytest.raises(ModelError, match="outside float16's range"):
        save_half(tmp_path / "model.pt", tmp_path / "half.pt")
    assert not (tmp_path / "half.pt").exists()


class Payload:
    """Not a plain dict of tensors: weights_only loading must refuse it."""


def test_foreign_files_are_refused_without_unpickling(tmp_path: Path):
    pickled = tmp_path / "evil.pt"
    torch.save({"format": "imago-model", "object": Payload()}, pickled)
    with pytest.raises(ModelError, match="holds Python objects, which imago never unpickles"):
        load_model(pickled)
    text = tmp_path / "text.pt"
    text.write_text("hello")
    with pytest.raises(ModelError, match=r"not a file written by torch\.save") as error:
        load_model(text)
    assert "\n" not in str(error.value)  # one line, never torch's page of advice


def test_masking_gives_no_probability_to_illegal_moves():
    logits = torch.tensor([[5.0, 1.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0]])
    legal = torch.tensor([[False, True, True, False], [False, False, False, False]])
    probs = masked_softmax(logits, legal)
    assert probs[0, 0] == 0 and probs[0, 3] == 0
    assert torch.allclose(probs.sum(1), torch.ones(2))
    assert torch.allclose(probs[1], torch.full((4,), 0.25))  # nothing legal: nothing masked

    network = Network(spec_for("l2c8").build(), spec_for("l2c8"))
    state = random_state("othello", 8, 9)
    policy = network.evaluate([state]).policy[0]
    assert policy[~state.legal_mask()].sum() == 0
    assert policy.sum() == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(
    ("game", "size", "features"), [("othello", 8, "legal4"), ("go", 9, "minigo17")]
)
def test_symmetry_averaging_is_equivariant(game: str, size: int, features: str):
    torch.manual_seed(0)
    spec = spec_for("b1c8", game, size, features)
    network = Network(spec.build(), spec)
    planes = np.random.default_rng(1).integers(0, 2, size=(1, spec.feature_set.planes, size, size))
    base = network.evaluate_planes(planes.astype(np.float32), symmetries=8)
    single = network.evaluate_planes(planes.astype(np.float32), symmetries=1)
    from imago.games.symmetry import transform_planes

    for sym in SYMMETRIES:
        moved = network.evaluate_planes(
            transform_planes(planes, sym).astype(np.float32), symmetries=8
        )
        expected = transform_policy(base.policy, sym, size)
        np.testing.assert_allclose(moved.policy, expected, atol=1e-5)
        np.testing.assert_allclose(moved.value, base.value, atol=1e-5)
    # Without averaging, an untrained network is not symmetric (the test can fail).
    moved = network.evaluate_planes(transform_planes(planes, 1).astype(np.float32))
    assert not np.allclose(moved.policy, transform_policy(single.policy, 1, size), atol=1e-5)


def test_onnx_export_matches_torch(tmp_path: Path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from imago.nn.export import export_onnx

    spec = spec_for("b1c8")
    net = spec.build().eval()
    save_model(tmp_path / "model.pt", net, spec)
    path = export_onnx(tmp_path / "model.pt", tmp_path / "model.onnx")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).random((5, 4, 8, 8), dtype=np.float32)
    policy, value = session.run(["policy", "value"], {"planes": x})
    with torch.no_grad():
        expected_policy, expected_value = net(torch.from_numpy(x))
    np.testing.assert_allclose(policy, expected_policy.numpy(), atol=1e-4)
    np.testing.assert_allclose(value, expected_value.numpy(), atol=1e-4)
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(path)).metadata_props}
    assert '"game": "othello"' in meta["imago_spec"]


def test_an_onnx_export_given_as_a_model_says_so(tmp_path: Path):
    """An ONNX file where a model .pt is wanted: named as what it is, not as pickled objects."""
    pytest.importorskip("onnx")
    from imago.nn.export import export_onnx

    spec = spec_for("b1c8")
    save_model(tmp_path / "model.pt", spec.build().eval(), spec)
    export_onnx(tmp_path / "model.pt", tmp_path / "model.onnx")
    with pytest.raises(ModelError, match=r"model\.onnx is not a model file: an ONNX export"):
        load_model(tmp_path / "model.onnx")
