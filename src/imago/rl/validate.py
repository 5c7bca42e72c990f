"""Validation: how well each generation predicts what it should, on data it never trained on.

* the **self-play holdout**: the held-out games of the recent rounds (cross-entropy with the
  search's move distribution, agreement of the top move, squared error of the value against
  the results) — over-fitting shows here first;
* **real records** (``records`` in the run's settings: WTHOR 2023-2025 for Othello, the OGS
  dan games for 9x9 Go): the share of moves people played that the network ranks first, its
  loss on them, and its value against the games' results — whether self-play drifts away
  from good play;
* **the exact solver** (Othello, ``solver_positions``): a fixed set of positions near the end
  of games between ``mcts`` players, each labelled once with every move the endgame solver
  proves best; the share where the network's first choice, and the search's move
  (``solver_simulations``), is one of them.

The records are turned into a dataset once (``validation/`` in the run folder, with the
network's feature set) and kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from imago.agents.base import Limit
from imago.core.color import Color
from imago.core.files import atomic_path
from imago.core.move import Move
from imago.rl.config import LoopConfig
from imago.rl.folder import RunFolder, iter_round_files
from imago.rl.stages import Report, _quiet, load_listed


def validate(
    folder: RunFolder, config: LoopConfig, generation: int, *, report: Report = _quiet
) -> dict[str, Any]:
    """Validate ``generation`` (once: a logged result is returned as it is)."""
    from imago.nn.rl_train import evaluate_examples

    done = [row for row in folder.metrics("validate") if row.get("generation") == generation]
    if done:
        return done[-1]
    report("validate", 0, 2, f"generation {generation}")
    model = folder.model_path(generation)
    row: dict[str, Any] = {}
    rounds = list(range(generation, max(-1, generation - config.window_rounds), -1))
    holdout, examples = load_listed(lambda: list(iter_round_files(folder, rounds, holdout=True)))
    if holdout:
        row["holdout"] = evaluate_examples(model, examples)
    report("validate", 1, 2, f"generation {generation}: records")
    if config.records:
        row["records"] = records_metrics(folder, config, model)
    if config.solver_positions and config.spec.game == "othello":
        row["solver"] = solver_metrics(folder, config, model)
    report("validate", 2, 2, f"generation {generation} validated")
    return folder.log("validate", generation=generation, **row)


def records_metrics(folder: RunFolder, config: LoopConfig, model: Path) -> dict[str, float]:
    """The model on the run's real records (top-1 move agreement, loss, value error)."""
    from imago.nn.dataset import Dataset
    from imago.nn.store import load_model
    from imago.nn.supervised import evaluate_model
    from imago.train.build import BuildConfig, GameFilter, SplitConfig, build_dataset

    spec = load_model(model).spec
    target = folder.validation_dir / f"records-{spec.features}"
    if not (target / "manifest.json").is_file():
        years = config.records_years
        build = BuildConfig(
            game=config.spec.game,
            size=config.spec.size,
            features=spec.features,
            filter=GameFilter(years=years, min_rank=config.records_min_rank),
            split=SplitConfig(val_fraction=1.0, val_years=years),
        )
        # a game gives dozens of positions: build only as many games as the limit needs
        games = config.records_limit // 20 + 1
        from imago.train.sgf_source import read_sgf_game

        build_dataset(
            [Path(p) for p in config.records],
            target,
            build,
            sgf_reader=read_sgf_game,
            limit_games=games,
        )
    dataset = Dataset.open(target)
    result = evaluate_model(model, dataset, "val", limit=config.records_limit, device="cpu")
    return {key: float(value) for key, value in result.items()}


def solver_positions(folder: RunFolder, config: LoopConfig) -> tuple[list[Any], np.ndarray]:
    """The run's fixed solver-labelled positions (made once and kept in ``validation/``):
    Othello states and, for each, a mask of the moves the exact solver proves best."""
    from imago.agents.othello.endgame import EndgameSolver
    from imago.agents.registry import make_agent
    from imago.games.othello import OthelloState

    size, count, empties = config.spec.size, config.solver_positions, config.solver_empties
    path = folder.validation_dir / f"solver-{size}x{size}-{count}-{empties}.npz"
    if path.is_file():
        with np.load(path, allow_pickle=False) as data:
            states = [
                OthelloState.from_bitboards(int(p), int(o), Color(int(c)), size)
                for p, o, c in zip(data["player"], data["opponent"], data["color"], strict=True)
            ]
            return states, data["best"]
    rng = np.random.default_rng([config.seed, 16])
    player = make_agent("mcts", "othello", {"playouts": "300", "resign": "0"}, seed=1, size=size)
    solver = EndgameSolver(table_bits=18)
    states, best = [], []
    while len(states) < count:
        state: Any = OthelloState(size)
        for _ in range(int(rng.integers(2, 7))):  # a random opening for variety
            moves = state.legal_moves()
            state = state.play(moves[int(rng.integers(len(moves)))])
        stop_at = int(rng.integers(max(1, empties - 6), empties + 1))
        while not state.is_over() and _empties(state) > stop_at:
            state = state.play(player.select_move(state, Limit(playouts=300)).move)
        if state.is_over() or state.legal_moves() == (Move.PASS,):
            continue
        solved = solver.solve_state(state, exact_all=True)
        top = max(score for _, score in solved.move_scores)
        mask = np.zeros(size * size + 1, dtype=np.bool_)
        for move, score in solved.move_scores:
            if score == top:
                mask[move.to_action(size)] = True
        states.append(state)
        best.append(mask)
    bits = [s.bitboards() for s in states]
    folder.validation_dir.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez_compressed(
            tmp,
            player=np.array([b[0] for b in bits], dtype=np.uint64),
            opponent=np.array([b[1] for b in bits], dtype=np.uint64),
            color=np.array([int(s.to_play) for s in states], dtype=np.int8),
            best=np.stack(best),
        )
    return states, np.stack(best)


def _empties(state: Any) -> int:
    black, white = state.discs()
    return int(state.size * state.size - black - white)


def solver_metrics(folder: RunFolder, config: LoopConfig, model: Path) -> dict[str, float]:
    """The share of the solver's positions where the network's first choice (``policy``) and
    the search's move (``search``) is one of the proven best moves."""
    from imago.agents.registry import make_agent
    from imago.nn.evaluator import NetworkEvaluator

    states, best = solver_positions(folder, config)
    evaluator = NetworkEvaluator.load(model, game="othello", size=config.spec.size)
    planes = evaluator.features.encode_states(states).astype(np.float32)
    legal = np.stack([s.legal_mask() for s in states])
    probs, _ = evaluator.run(planes, legal)
    policy = float(np.mean(best[np.arange(len(states)), probs.argmax(axis=1)]))
    search = make_agent(
        "az", "othello", {"model": str(model), "simulations": str(config.solver_simulations),
                          "resign": "0", "reuse": "false"}, seed=1,
        size=config.spec.size,
    )  # fmt: skip
    hits = [
        best[i, search.select_move(state, Limit()).move.to_action(config.spec.size)]
        for i, state in enumerate(states)
    ]
    return {"positions": float(len(states)), "policy": policy, "search": float(np.mean(hits))}
