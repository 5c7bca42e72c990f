"""The ``nnmcts`` agent: Go MCTS guided by a policy network's priors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from imago.agents.base import AgentError, Limit
from imago.agents.registry import make_agent
from imago.core.move import Move
from imago.games import make
from imago.games.go import GoRules
from imago.nn.models import parse_arch
from imago.nn.store import ModelSpec, save_model


def _model(tmp_path: Path, game: str, size: int, features: str = "legal4") -> Path:
    spec = ModelSpec(game, size, features, parse_arch("b1c8"))
    path = tmp_path / f"{game}{size}-{features}.pt"
    save_model(path, spec.build(), spec)
    return path


def test_guided_search_asks_the_network_and_plays_legal_moves(tmp_path: Path) -> None:
    model = _model(tmp_path, "go", 7)
    agent = make_agent("nnmcts", "go", {"model": str(model), "oracle_visits": "2"}, seed=1, size=7)
    state = make("go", size=7)
    for _ in range(6):
        result = agent.select_move(state, Limit(playouts=300))
        assert state.is_legal(result.move)
        state = state.play(result.move)
    oracle = agent.oracle  # type: ignore[attr-defined]
    assert oracle.calls >= 6  # every root at least
    priors = [c.prior for c in result.candidates]
    assert all(p is not None and 0.0 <= p <= 1.0 for p in priors)


def test_history_features_see_the_board_repeated(tmp_path: Path) -> None:
    model = _model(tmp_path, "go", 7, "minigo17")
    agent = make_agent("nnmcts", "go", {"model": str(model)}, seed=2, size=7)
    result = agent.select_move(make("go", size=7), Limit(playouts=100))
    assert result.move.is_play


@pytest.mark.parametrize(
    ("game", "size", "message"),
    [("othello", 8, "for 8x8 othello, not go"), ("go", 9, "for 9x9 go, not 7x7 go")],
)
def test_wrong_model_is_refused_when_the_agent_is_made(
    tmp_path: Path, game: str, size: int, message: str
) -> None:
    model = _model(tmp_path, game, size)
    with pytest.raises(AgentError, match=message):
        make_agent("nnmcts", "go", {"model": str(model)}, seed=1, size=7)


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match=r"nothing\.pt: no such file"):
        make_agent("nnmcts", "go", {"model": str(tmp_path / "nothing.pt")}, seed=1)


def test_the_shipped_model_guides_9x9_by_default() -> None:
    agent = make_agent("nnmcts", "go", {}, seed=1)
    state = make("go", size=9)
    result = agent.select_move(state, Limit(playouts=200))
    assert state.is_legal(result.move)
    assert agent.oracle.network.spec.size == 9  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="knows 9x9 Go, not 13x13"):
        agent.select_move(make("go", size=13), Limit(playouts=10))


def test_oracle_probabilities_follow_the_legal_actions(tmp_path: Path) -> None:
    from imago.nn.export import onnx_session
    from imago.nn.guided import NetworkPriors
    from imago.nn.inference import Network

    path = _model(tmp_path, "go", 7)
    network = Network.load(path, device="cpu")
    board = np.zeros(49, dtype=np.int64)
    board[[3, 17, 30]] = [1, 2, 1]
    actions = np.array([0, 10, 24, 49])
    by_torch = NetworkPriors(network, 7)(board, 2, actions)
    assert by_torch.shape == (4,) and (by_torch > 0).all()
    assert by_torch.sum() == pytest.approx(1.0, abs=1e-5)  # masked to exactly these actions
    session = onnx_session(path)
    if session is not None:  # the same probabilities from ONNX Runtime
        by_onnx = NetworkPriors(network, 7, session=session)(board, 2, actions)
        assert by_onnx == pytest.approx(by_torch, abs=1e-5)
        with pytest.raises(ValueError, match="torch backend"):
            NetworkPriors(network, 7, symmetries=8, session=session)


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_backends_play(tmp_path: Path, backend: str) -> None:
    model = _model(tmp_path, "go", 7)
    agent = make_agent("nnmcts", "go", {"model": str(model), "backend": backend}, seed=3, size=7)
    assert (agent.oracle.session is None) == (backend == "torch")  # type: ignore[attr-defined]
    result = agent.select_move(make("go", size=7), Limit(playouts=100))
    assert result.move.is_play
    with pytest.raises(ValueError, match="backend"):
        make_agent("nnmcts", "go", {"model": str(model), "backend": "tpu"}, seed=3)


# A real game (nnmcts Black against GNU Go level 1, 2026-11-23) in which the reused tree offered
# Black J2: it would capture White's J1 and repeat the position after White's F9, which
# positional superko forbids (the search had expanded J2 before J3 and J1 were played).
_SUPERKO_GAME = (
    "ee cg ec gc be fg ge fb dg dh eh eg df ch hd hf hb bf cd he gd cf gf gg gb ce bc ae bd de "
    "ie hg ef dd dc ed fd ff fe if af ag fh id gh hh gi ic hi hc fc ib ih fa ig ii"
)


@pytest.mark.parametrize("seed", [1, 3])
def test_a_reused_tree_never_offers_a_superko_repetition(seed: int) -> None:
    state = make("go", size=9, rules=GoRules.preset("chinese").with_komi(7))
    positions = [state]
    for point in _SUPERKO_GAME.split():
        positions.append(positions[-1].play(Move.from_sgf(point, 9)))
    before, now = positions[-4], positions[-1]  # White to play F9; Black to play after J1
    assert not now.is_legal(now.parse_move("J2"))
    agent = make_agent("nnmcts", "go", {}, seed=seed)
    agent.select_move(before, Limit(playouts=5000))
    result = agent.select_move(now, Limit(playouts=200))
    assert result.candidates
    assert all(now.is_legal(c.move) for c in result.candidates)


def test_the_guided_benchmark_measures_both_searches_and_the_network() -> None:
    from imago.bench import BenchConfig
    from imago.bench.nn import guided

    figures = {f.name: f for f in guided(BenchConfig(quick=True, repeats=1))}
    for name in ("mcts", "nnmcts_torch", "oracle_torch"):
        assert figures[f"nn.guided.{name}"].value > 0
    assert figures["nn.guided.oracle_torch"].unit == "ms/call"
