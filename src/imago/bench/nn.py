"""Network speed on this machine: training and inference positions per second per model size.

The measuring code lives in :mod:`imago.nn.throughput` (only :mod:`imago.nn` imports torch).
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from imago.bench import BenchConfig, Figure, benchmark, median_seconds

if TYPE_CHECKING:
    from imago.core.game import GameState


@benchmark("nn.throughput", "training and inference positions/s per model size (CPU)")
def throughput(config: BenchConfig) -> list[Figure]:
    from imago.nn.throughput import measure_throughput

    return [Figure(*m) for m in measure_throughput(config.quick)]


@benchmark(
    "nn.peak",
    "the shipped 9x9 Go and 8x8 Othello networks at self-play's batch: FLOP/s and their share "
    "of a float32 matrix product's on the same core",
)
def peak_share(config: BenchConfig) -> list[Figure]:
    from imago.nn.throughput import measure_peak_share

    return [Figure(*m) for m in measure_peak_share(config.quick)]


def _guided_positions(size: int = 9) -> list[GameState]:
    """The start and a middle-game position (30 moves of a seeded random game)."""
    from imago.agents import Limit, make_agent
    from imago.games import make

    state = make("go", size=size)
    positions = [state]
    mover = make_agent("random", "go", seed=7)
    for _ in range(30):
        state = state.play(mover.select_move(state, Limit()).move)
    return [*positions, state]


def _simulation_rate(spec: str, positions: list[GameState], simulations: int) -> float:
    """Median simulations/s of agent ``spec`` (``name:options``) over ``positions``."""
    from imago.agents import Limit, make_agent
    from imago.agents.registry import parse_agent_spec

    name, options = parse_agent_spec(spec)
    size = positions[0].size
    agent = make_agent(name, "go", {**options, "reuse": "false", "resign": "0"}, seed=1, size=size)
    agent.select_move(positions[0], Limit(playouts=200))  # compile, load, warm up
    rates = []
    for state in positions:
        agent.reset()
        rates.append(simulations / agent.select_move(state, Limit(playouts=simulations)).seconds)
    return statistics.median(rates)


def _guide_seconds(backend: str, state: GameState, repeats: int) -> float | None:
    """Seconds per position of the network shipped for the board as the search's guide (one
    position a call: features, network, softmax over the legal moves)."""
    from imago.agents.mcts import LeafBatch
    from imago.nn.evaluator import NetworkEvaluator
    from imago.nn.shipped import shipped_model

    try:
        guide = NetworkEvaluator.load(
            shipped_model("go", state.size), game="go", size=state.size, backend=backend
        )
    except ImportError:
        return None
    leaves = LeafBatch("go", state.size, guide.history, 1, 8)
    leaves.boards[0, :] = state.board().reshape(-1)
    leaves.to_play[0] = int(state.to_play)
    leaves.legal[0] = state.legal_mask()

    def call_many() -> None:
        for _ in range(100):
            guide.evaluate(leaves, 1)

    call_many()
    return median_seconds(call_many, repeats) / 100


@benchmark(
    "nn.guided",
    "nnmcts (MCTS + the shipped 9x9 network) against mcts, one and two search threads: sims/s, "
    "ms/call",
)
def guided(config: BenchConfig) -> list[Figure]:
    simulations = 2000 if config.quick else 8000
    specs = (
        ("mcts", "mcts"),
        ("mcts_threads2", "mcts:threads=2"),
        ("nnmcts_onnx", "nnmcts:backend=onnx"),
        ("nnmcts_onnx_threads2", "nnmcts:backend=onnx,threads=2"),
        ("nnmcts_torch", "nnmcts:backend=torch"),
    )
    return _guided_figures("nn.guided", 9, simulations, specs, config.repeats)


@benchmark(
    "nn.big",
    "13x13 and 19x19: mcts, nnmcts and az with the shipped size-free network: sims/s, ms/call",
)
def big_boards(config: BenchConfig) -> list[Figure]:
    simulations = 400 if config.quick else 2000
    specs = (
        ("mcts", "mcts"),
        ("nnmcts_onnx", "nnmcts:backend=onnx"),
        ("az_onnx", "az:backend=onnx"),
    )
    figures = []
    for size in (13, 19):
        figures += _guided_figures(f"nn.big.s{size}", size, simulations, specs, config.repeats)
    return figures


def _guided_figures(
    prefix: str, size: int, simulations: int, specs: tuple[tuple[str, str], ...], repeats: int
) -> list[Figure]:
    """Simulations/s of each agent spec and the guide's ms per call on a ``size`` board."""
    positions = _guided_positions(size)
    note = f"{simulations} simulations from the {size}x{size} start and a 30-move position, median"
    figures = []
    for label, spec in specs:
        try:
            rate = _simulation_rate(spec, positions, simulations)
        except ModuleNotFoundError:  # no onnxruntime
            continue
        figures.append(Figure(f"{prefix}.{label}", rate, "sims/s", note))
    for backend in ("onnx", "torch"):
        seconds = _guide_seconds(backend, positions[-1], repeats)
        if seconds is not None:
            figures.append(
                Figure(
                    f"{prefix}.guide_{backend}",
                    seconds * 1000,
                    "ms/call",
                    "one position: features, network, softmax over the legal moves",
                )
            )
    return figures
