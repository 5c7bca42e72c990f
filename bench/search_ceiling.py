"""How often can a network search find the exact solver's best move? The search with a perfect
value function, on a run's solver-labelled positions.

    python bench/search_ceiling.py RUN [--simulations 200] [--rule puct|gumbel]
        [--score-weight W ...] [--priors MODEL]

``imago rl validate RUN --solver-positions N`` measures a network: the share of Othello
endgame positions (``solver_positions``: from games between ``mcts`` players, each labelled
with every move's exact final margin) where the ``az`` search at ``--simulations`` plays one
of the moves of the largest margin. This script runs the same search with the network's
value replaced by the truth: every leaf is solved exactly (:class:`EndgameSolver`) and valued
as ``(1 - W) * result + W * margin / area``, the target a network trained with
``train.score_weight = W`` learns, and finished games are valued alike. Priors are uniform, or a
model's (``--priors``). The shares it prints are what the search could reach with a perfect
value head: the ceiling of the network's figure at these settings.

The run folder must hold the positions (made by the first ``imago rl validate
--solver-positions N``, or by a run with ``solver_positions``); ``--positions`` and
``--empties`` name the file as those options did.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from imago.agents.base import Limit
from imago.agents.mcts import Evaluation, LeafBatch
from imago.agents.mcts._tree import terminal_value  # the search's own scale of finished games
from imago.agents.othello.endgame import EndgameSolver
from imago.nn.az import AZAgent, AZOptions
from imago.rl.folder import RunFolder
from imago.rl.stages import load_config
from imago.rl.validate import best_moves, result_keeping_moves, solver_positions


class SolverValues:
    """A leaf evaluator for Othello boards of ``size`` (6 or 8): the exact value of each leaf
    on the scale of ``score_weight``, with uniform priors or those of ``priors`` (an
    evaluator)."""

    history = 1
    needs_states = False

    def __init__(self, size: int, score_weight: float, priors: Any | None = None) -> None:
        self.size = size
        self.score_weight = score_weight
        self.priors = priors
        self.solver = EndgameSolver(table_bits=18)
        self._bits = np.array(
            [1 << (r * 8 + c) for r in range(size) for c in range(size)], dtype=np.uint64
        )

    def value(self, board: np.ndarray, to_play: int) -> float:
        """The exact value in ``[0, 1]`` of ``board`` (0 empty, 1 black, 2 white; ``size *
        size``) for ``to_play``."""
        mine = int(self._bits[board == to_play].sum())
        theirs = int(self._bits[board == 3 - to_play].sum())
        diff = self.solver.solve(mine, theirs, size=self.size).score
        return float(terminal_value(float(diff), float(self.size * self.size), self.score_weight))

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        values = np.array(
            [self.value(leaves.boards[b, 0], int(leaves.to_play[b])) for b in range(count)]
        )
        if self.priors is not None:
            return Evaluation(values, self.priors.evaluate(leaves, count).priors)
        legal = leaves.legal[:count].astype(np.float64)
        return Evaluation(values, legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0))


class _Board:
    """The ``az`` agent's view of one evaluator (the board-by-board loader it expects)."""

    history = 1
    needs_states = False

    def __init__(self, evaluator: SolverValues) -> None:
        self.current = evaluator
        self.score_weight = evaluator.score_weight

    def select(self, game: str, size: int) -> SolverValues:
        return self.current

    def evaluate(self, leaves: LeafBatch, count: int) -> Evaluation:
        return self.current.evaluate(leaves, count)


def ceiling(
    states: list[Any], scores: np.ndarray, evaluator: SolverValues, simulations: int, rule: str
) -> dict[str, float]:
    """The share of ``states`` where the search plays a largest-margin move (``best``) and a
    move that keeps the exact result (``result``)."""
    options = AZOptions(simulations=simulations, rule=rule, resign=0.0, reuse=False)
    agent = AZAgent(options, np.random.default_rng(1), _Board(evaluator))  # type: ignore[arg-type]
    chosen = np.array(
        [agent.select_move(state, Limit()).move.to_action(evaluator.size) for state in states]
    )
    rows = np.arange(len(states))
    return {
        "best": float(np.mean(best_moves(scores)[rows, chosen])),
        "result": float(np.mean(result_keeping_moves(scores)[rows, chosen])),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="an imago rl run folder (Othello)")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--empties", type=int, default=16)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--rule", choices=("puct", "gumbel"), default="puct")
    parser.add_argument("--score-weight", type=float, nargs="+", default=[0.0, 0.5, 1.0])
    parser.add_argument("--priors", type=Path, help="a model whose priors the search uses")
    args = parser.parse_args(argv)
    folder = RunFolder(args.run)
    try:
        config = load_config(folder)
    except ValueError as error:  # no run there, or settings it cannot read: say so
        parser.error(str(error))
    if config.spec.game != "othello":
        parser.error("the solver's positions are Othello positions; this run plays Go")
    config = config.with_changes(
        {"solver_positions": args.positions, "solver_empties": args.empties}
    )
    if not any(folder.validation_dir.glob(f"solver-*-{args.positions}-{args.empties}.npz")):
        print(f"labelling {args.positions} positions with the exact solver (once per run) ...")
    states, scores = solver_positions(folder, config)
    priors = None
    if args.priors:
        from imago.nn.evaluator import NetworkEvaluator
        from imago.nn.models import ModelError

        try:
            priors = NetworkEvaluator.load(args.priors, game="othello", size=config.spec.size)
        except ModelError as error:
            parser.error(f"--priors: {error}")
    for weight in args.score_weight:
        evaluator = SolverValues(config.spec.size, weight, priors)
        shares = ceiling(states, scores, evaluator, args.simulations, args.rule)
        print(
            f"score_weight {weight:g}, {args.rule} {args.simulations} simulations, priors "
            f"{args.priors or 'uniform'}: best move {shares['best']:.3f}, "
            f"result kept {shares['result']:.3f} ({len(states)} positions)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
