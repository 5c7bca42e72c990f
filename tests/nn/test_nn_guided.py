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
    agent = make_agent("nnmcts", "go", {"model": str(model), "guide_visits": "2"}, seed=1, size=7)
    state = make("go", size=7)
    for _ in range(6):
        result = agent.select_move(state, Limit(playouts=300))
        assert state.is_legal(result.move)
        state = state.play(result.move)
    guide = agent.guide.current  # type: ignore[attr-defined]
    assert guide.positions >= 6  # every root at least
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
    assert agent.guide.spec.size == 9  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="no network is shipped for go 7x7"):
        agent.select_move(make("go", size=7), Limit(playouts=10))


def test_evaluator_probabilities_follow_the_legal_actions(tmp_path: Path) -> None:
    from imago.agents.mcts import LeafBatch
    from imago.nn.evaluator import NetworkEvaluator

    path = _model(tmp_path, "go", 7)
    leaves = LeafBatch("go", 7, 1, 4, 8)
    leaves.boards[0, 0, [3, 17, 30]] = [1, 2, 1]
    leaves.to_play[0] = 2
    actions = np.array([0, 10, 24, 49])
    leaves.legal[0, actions] = True
    leaves.legal[1, 49] = True  # only pass
    by_torch = NetworkEvaluator.load(path, backend="torch").evaluate(leaves, 2)
    assert by_torch.priors is not None and by_torch.priors.shape == (2, 50)
    assert (by_torch.priors[0, actions] > 0).all() and by_torch.priors[0].sum() == pytest.approx(
        1.0, abs=1e-5
    )
    assert by_torch.priors[0, actions].sum() == pytest.approx(1.0, abs=1e-5)  # legal moves only
    assert by_torch.priors[1, 49] == pytest.approx(1.0)
    assert ((by_torch.values >= 0) & (by_torch.values <= 1)).all()
    by_onnx = NetworkEvaluator.load(path, backend="onnx").evaluate(leaves, 2)
    assert by_onnx.priors == pytest.approx(by_torch.priors, abs=1e-5)
    assert by_onnx.values == pytest.approx(by_torch.values, abs=1e-5)
    with pytest.raises(ValueError, match="torch backend"):
        NetworkEvaluator.load(path, backend="onnx", symmetries=8)


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_backends_play(tmp_path: Path, backend: str) -> None:
    model = _model(tmp_path, "go", 7)
    agent = make_agent("nnmcts", "go", {"model": str(model), "backend": backend}, seed=3, size=7)
    assert agent.guide.current.backend == backend  # type: ignore[attr-defined]
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
    for name in ("mcts", "nnmcts_torch", "guide_torch"):
        assert figures[f"nn.guided.{name}"].value > 0
    assert figures["nn.guided.guide_torch"].unit == "ms/call"
