"""An int8 copy of a network (static quantization in ONNX Runtime): close to the original on
real positions, refused where it is not the network's, playable by ``az``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from imago.agents import Limit, make_agent
from imago.core.game import GameState
from imago.games import make
from imago.nn.evaluator import NetworkEvaluator, masked_softmax
from imago.nn.export import export_onnx, onnx_session, quantize_onnx
from imago.nn.features import feature_set
from imago.nn.models import ModelError
from imago.nn.shipped import shipped_model


def _positions(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Feature planes (``legal4``) and legal masks of positions from Othello games the shipped
    network's own policy plays (moves sampled from it, so they look like its games)."""
    evaluator = NetworkEvaluator.load(shipped_model("othello", 8), backend="onnx", threads=1)
    features = feature_set("legal4")
    rng = np.random.default_rng(seed)
    states: list[GameState] = []
    while len(states) < count:
        state = make("othello", size=8)
        while not state.is_over() and len(states) < count:
            states.append(state)
            planes = features.encode_states([state]).astype(np.float32)
            probs, _ = evaluator.run(planes, state.legal_mask()[None])
            state = state.play_action(int(rng.choice(probs.shape[1], p=probs[0])))
    planes = features.encode_states(states).astype(np.float32)
    return planes, np.stack([state.legal_mask() for state in states])


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("int8")
    fp32 = export_onnx(shipped_model("othello", 8), folder / "model.onnx")
    calibration, _ = _positions(256, seed=1)
    return fp32, quantize_onnx(fp32, folder / "model.int8.onnx", calibration)


def test_the_int8_copy_chooses_the_same_moves_and_values_on_other_positions(
    exports: tuple[Path, Path],
) -> None:
    fp32, int8 = exports
    planes, legal = _positions(256, seed=2)  # not the calibration's positions
    model = shipped_model("othello", 8)
    outputs = {}
    for name, path in (("fp32", fp32), ("int8", int8)):
        session = onnx_session(model, onnx_file=path)
        assert session is not None
        policy, value = session.run(None, {"planes": planes})
        outputs[name] = (masked_softmax(policy, legal).argmax(axis=1), value.reshape(-1))
    same_move = np.mean(outputs["fp32"][0] == outputs["int8"][0])
    value_error = np.mean(np.abs(outputs["fp32"][1] - outputs["int8"][1]))
    assert same_move >= 0.9  # 1.0 measured (imago bench rl.int8)
    assert value_error < 0.05  # 0.003 measured
    assert int8.stat().st_size < fp32.stat().st_size / 2  # int8 weights


def test_an_export_of_another_network_or_no_file_is_refused(exports: tuple[Path, Path]) -> None:
    _, int8 = exports
    with pytest.raises(ModelError, match="not an export of"):
        onnx_session(shipped_model("go", 9), onnx_file=int8)
    with pytest.raises(ModelError, match="no such ONNX file"):
        onnx_session(shipped_model("othello", 8), onnx_file=int8.with_name("missing.onnx"))
    with pytest.raises(ValueError, match="feature planes"):
        quantize_onnx(int8, int8.with_name("x.onnx"), np.zeros((0, 4, 8, 8), np.float32))


def test_az_plays_with_the_int8_copy(exports: tuple[Path, Path]) -> None:
    _, int8 = exports
    model = shipped_model("othello", 8)
    agent = make_agent("az", "othello", {"model": str(model), "onnx": str(int8)}, seed=1)
    state = make("othello", size=8)
    move = agent.select_move(state, Limit(playouts=32)).move
    assert state.is_legal(move)
