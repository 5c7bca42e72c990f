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


# -- the shipped int8 copies, az's precision option, and imago train export --int8 ----------------

SHIPPED_COPIES = [("othello", 8), ("go", 9)]


def _go_positions(count: int, seed: int, features_name: str) -> tuple[np.ndarray, np.ndarray]:
    """Planes of ``features_name`` and legal masks of 9x9 positions after random moves (no
    passes)."""
    features = feature_set(features_name)
    rng = np.random.default_rng(seed)
    states: list[GameState] = []
    while len(states) < count:
        state = make("go", size=9)
        for _ in range(int(rng.integers(0, 60))):
            moves = [m for m in state.legal_moves() if not m.is_pass]
            if not moves:
                break
            state = state.play(moves[int(rng.integers(len(moves)))])
        states.append(state)
    planes = features.encode_states(states).astype(np.float32)
    return planes, np.stack([state.legal_mask() for state in states])


@pytest.mark.parametrize(("game", "size"), SHIPPED_COPIES)
def test_the_shipped_int8_copy_is_a_copy_of_the_shipped_az_network(game: str, size: int) -> None:
    """Each shipped ``MODEL.int8.onnx`` follows its own network: the same most likely move on
    most positions and values within a few hundredths (another network of the same shape
    would fail the second)."""
    from imago.nn.shipped import az_model
    from imago.nn.store import load_model

    model = az_model(game, size)
    copy = model.with_suffix(".int8.onnx")
    features = load_model(model).spec.features
    planes, legal = (
        _positions(200, seed=7) if game == "othello" else _go_positions(200, 7, features)
    )
    outputs = {}
    for name, onnx_file in (("fp32", None), ("int8", copy)):
        session = onnx_session(model, size=size, onnx_file=onnx_file)
        assert session is not None
        policy, value = session.run(None, {"planes": planes})
        outputs[name] = (masked_softmax(policy, legal).argmax(axis=1), value.reshape(-1))
    assert np.mean(outputs["fp32"][0] == outputs["int8"][0]) >= 0.85
    assert np.mean(np.abs(outputs["fp32"][1] - outputs["int8"][1])) < 0.05
    assert copy.stat().st_size < model.stat().st_size / 2


def _values(game: str, options: dict[str, str]) -> np.ndarray:
    """The values ``az`` with ``options`` gets from its network on a few positions."""
    from imago.nn.az import AZAgent

    agent = make_agent("az", game, options, seed=1)
    assert isinstance(agent, AZAgent)
    planes, legal = _positions(16, seed=3)
    _, values = agent.evaluator.run(planes, legal)
    agent.close()
    return np.asarray(values)


def test_az_runs_the_shipped_int8_copy_unless_told_float32() -> None:
    from imago.nn.shipped import az_model

    model = az_model("othello", 8)
    planes, _ = _positions(16, seed=3)
    expected = {}
    for name, onnx_file in (("fp32", None), ("int8", model.with_suffix(".int8.onnx"))):
        session = onnx_session(model, onnx_file=onnx_file)
        assert session is not None
        raw = session.run(None, {"planes": planes})[1].reshape(-1)
        expected[name] = np.clip((raw.astype(np.float64) + 1) / 2, 0, 1)
    assert not np.allclose(expected["fp32"], expected["int8"])  # the two can be told apart
    np.testing.assert_allclose(_values("othello", {}), expected["int8"], atol=1e-6)
    np.testing.assert_allclose(
        _values("othello", {"precision": "int8"}), expected["int8"], atol=1e-6
    )
    np.testing.assert_allclose(
        _values("othello", {"precision": "fp32"}), expected["fp32"], atol=1e-6
    )


def test_a_given_model_plays_float32_unless_its_int8_copy_is_asked_for(tmp_path: Path) -> None:
    import os
    import shutil

    from imago.agents import AgentError
    from imago.nn.export import quantize_model

    model = tmp_path / "model.pt"
    shutil.copy(shipped_model("othello", 8), model)
    with pytest.raises(AgentError, match=r"no int8 copy of .* imago train export"):
        make_agent("az", "othello", {"model": str(model), "precision": "int8"})
    calibration, _ = _positions(64, seed=1)
    copy = quantize_model(model, tmp_path / "model.int8.onnx", calibration)
    given = {"model": str(model)}
    int8 = _values("othello", {**given, "precision": "int8"})
    assert not np.allclose(_values("othello", given), int8)  # auto: a given model in float32
    later = copy.stat().st_mtime + 10
    os.utime(model, (later, later))  # the model changed after its copy was made
    with pytest.raises(AgentError, match="older than"):
        make_agent("az", "othello", {**given, "precision": "int8"})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"precision": "int4"}, "precision must be one of auto, fp32, int8"),
        ({"precision": "int8", "onnx": "x.onnx"}, "without onnx="),
        ({"precision": "int8", "backend": "torch"}, "without onnx= and backend=torch"),
    ],
)
def test_a_precision_az_cannot_run_is_refused(options: dict[str, str], message: str) -> None:
    from imago.agents import AgentError

    with pytest.raises(AgentError, match=message):
        make_agent("az", "othello", options)


def test_train_export_writes_an_int8_copy_calibrated_on_a_dataset(
    data_dir: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from imago.cli.app import app
    from imago.train.build import BuildConfig, GameFilter, build_dataset

    config = BuildConfig("othello", 8, "legal4", filter=GameFilter(min_moves=1))
    build_dataset([data_dir / "wthor" / "WTH_1977.wtb"], tmp_path / "ds", config)
    model, out = shipped_model("othello", 8), tmp_path / "m.int8.onnx"
    args = ["train", "export", str(model), "--int8", str(out), "--calibration"]
    result = CliRunner().invoke(app, [*args, str(tmp_path / "ds"), "--positions", "100"])
    assert result.exit_code == 0, result.output
    assert "calibrated on 100 positions" in result.output
    assert onnx_session(model, onnx_file=out) is not None  # an export of that network

    sgf = tmp_path / "game.sgf"
    sgf.write_text("(;GM[1]SZ[9]KM[7]RE[B+R];B[ee];W[ce];B[gc];W[dc];B[cg];W[ge])")
    built = CliRunner().invoke(
        app, ["train", "dataset", str(sgf), "--game", "go", "--size", "9", "--min-moves", "1",
              "--out", str(tmp_path / "go")],
    )  # fmt: skip
    assert built.exit_code == 0, built.output
    for data, message in (
        (tmp_path / "go", "holds 9x9 go positions"),
        (tmp_path / "no", "no dataset at"),
    ):
        export = ["train", "export", str(model), "--int8", str(tmp_path / "w.onnx")]
        wrong = CliRunner().invoke(app, [*export, "--calibration", str(data)])
        assert wrong.exit_code != 0 and message in " ".join(wrong.output.split())
    alone = CliRunner().invoke(app, ["train", "export", str(model), "--int8", str(out) + "x"])
    assert alone.exit_code != 0 and "go together" in alone.output
    # nothing written by the refused exports
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "game.sgf", "go", "m.int8.onnx"]


def test_the_int8_benchmark_compares_both_copies_of_the_shipped_network() -> None:
    # `imago bench rl.int8` once handed the float32 export where the model file belongs
    from imago.bench.rl import int8_figures

    figures = int8_figures("othello", 8, 0.2)
    for copy in ("fp32", "int8"):
        assert figures[f"{copy}_network_pos_s"] > 0
        assert figures[f"{copy}_selfplay_pos_s"] > 0
    assert 0.7 <= figures["same_move"] <= 1.0  # 0.85 measured on these positions
    assert figures["value_abs_diff"] < 0.1
