"""Validation: how well each generation predicts what it should, on data it never trained on.

* the **self-play holdout**: the held-out games of the recent rounds (cross-entropy with the
  search's move distribution, agreement of the top move, squared error of the value against
  the results) — over-fitting shows here first;
* **real records** (``records`` in the run's settings: WTHOR 2023-2025 for Othello, the OGS
  dan games for 9x9 Go): the share of moves people played that the network ranks first, its
  loss on them, and its value against the games' results — whether self-play drifts away
  from good play;
* **the exact solver** (Othello, ``solver_positions``): a fixed set of positions near the end
  of games between ``mcts`` players, each labelled once with every move's exact final margin;
  the share where the network's first choice, and the search's move (``solver_simulations``),
  is one of the best moves (the largest margin), and the share where it keeps the exact
  result (a win stays a win, whatever the margin).

The records are turned into a dataset once (``validation/`` in the run folder, with the
network's feature set) and kept.
"""

from __future__ import annotations

import itertools
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from imago.agents.base import Limit
from imago.core.color import Color
from imago.core.files import atomic_path
from imago.core.move import Move
from imago.rl.config import LoopConfig
from imago.rl.folder import RunFolder, iter_round_files
from imago.rl.records import validation_records
from imago.rl.stages import Report, _quiet, load_listed


def validate(
    folder: RunFolder, config: LoopConfig, generation: int, *, report: Report = _quiet
) -> dict[str, Any]:
    """Validate ``generation`` (once: a logged result is returned as it is)."""
    from imago.nn.rl_train import evaluate_examples

    exact_value(folder, config, generation, report=report)
    done = [row for row in folder.metrics("validate") if row.get("generation") == generation]
    if done:
        return done[-1]
    report("validate", 0, 2, f"generation {generation}")
    model = folder.model_path(generation)
    row: dict[str, Any] = {}
    rounds = config.window(generation)
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
    from imago.nn.store import load_model
    from imago.nn.supervised import evaluate_model

    spec = load_model(model).spec
    dataset = validation_records(folder, config, spec.features)
    result = evaluate_model(model, dataset, "val", limit=config.records_limit, device="cpu")
    return {key: float(value) for key, value in result.items()}


def wthor_files(config: LoopConfig) -> list[Path]:
    """The WTHOR files among the run's validation ``records`` (a folder's ``*.wtb``), in the
    years of ``records_years``."""
    from imago.records.wthor import read_header

    if config.spec.game != "othello" or config.spec.size != 8:
        return []
    files: list[Path] = []
    for source in map(Path, config.records):
        if source.is_dir():
            files.extend(sorted(source.glob("*.wtb")))
        elif source.suffix.lower() == ".wtb":
            files.append(source)
    if config.records_years is None:
        return files
    first, last = config.records_years
    return [path for path in files if first <= read_header(path).year <= last]


def exact_value_positions(folder: RunFolder, config: LoopConfig) -> tuple[list[Any], np.ndarray]:
    """The run's WTHOR validation games at the depth of their theoretical score, made once and
    kept in ``validation/``: Othello states and, for each, the perfect-play result for the
    player to move (``int8``: 1 a win, 0 a draw, -1 a loss). Games that end or stop before that
    depth are left out. The file is named after the WTHOR files it comes from, so other
    ``records`` or ``records_years`` make a new one."""
    files = wthor_files(config)
    source = "|".join(f"{p.resolve()}:{p.stat().st_size}" for p in files)
    path = folder.validation_dir / f"wthor-exact-{zlib.crc32(source.encode()):08x}.npz"
    if path.is_file():
        states, labels = load_positions(path, 8)
        return states, labels["result"]
    states, results = [], []
    for file in files:
        for state, black_margin in _positions_at_depth(file):
            lead = black_margin if state.to_play is Color.BLACK else -black_margin
            states.append(state)
            results.append(int(np.sign(lead)))
    result = np.array(results, dtype=np.int8)
    save_positions(path, states, result=result)
    return states, result


def _positions_at_depth(file: Path) -> list[tuple[Any, int]]:
    """Each game of a WTHOR file at the depth of its theoretical score (the header's empty
    squares), with Black's perfect-play disc margin from there; games that end, stop or break
    the rules before it are left out. The games are replayed as the records module replays
    WTHOR (:meth:`~imago.records.wthor.WthorGame.to_game`: its passes are implicit)."""
    from imago.records.tree import RecordError
    from imago.records.wthor import read_wtb

    header, games = read_wtb(file)
    played = 60 - header.depth
    found = []
    for game in games:
        if len(game.moves) < played:
            continue
        try:
            root = game.to_game()
        except RecordError:
            continue
        nodes = list(itertools.islice(root.mainline(), played))
        state = (nodes[-1] if nodes else root).state
        if not state.is_over():
            found.append((state, 2 * game.theoretical_score - 64))
    return found


def exact_value(
    folder: RunFolder, config: LoopConfig, generation: int, *, report: Report = _quiet
) -> dict[str, Any] | None:
    """The value head of ``generation`` against WTHOR's perfect-play results
    (:func:`exact_value_positions`), logged once as an ``exact`` row: ``value_mse`` and
    ``sign`` (the share of won or lost positions where the value says so). ``None`` where the
    run has no WTHOR validation records."""
    from imago.nn.evaluator import NetworkEvaluator

    done = [row for row in folder.metrics("exact") if row.get("generation") == generation]
    if done:
        return done[-1]
    if not wthor_files(config):
        return None
    report("validate", 0, 2, f"generation {generation}: WTHOR's perfect-play results")
    states, result = exact_value_positions(folder, config)
    if not states:
        return None
    evaluator = NetworkEvaluator.load(folder.model_path(generation), game="othello", size=8)
    legal = np.stack([s.legal_mask() for s in states])
    values = np.concatenate([
        evaluator.run(evaluator.features.encode_states(states[i : i + 512]).astype(np.float32),
                      legal[i : i + 512])[1]
        for i in range(0, len(states), 512)
    ]) * 2.0 - 1.0  # fmt: skip
    decided = result != 0
    return folder.log(
        "exact",
        generation=generation,
        positions=len(states),
        value_mse=float(np.mean((values - result) ** 2)),
        sign=float(np.mean(np.sign(values[decided]) == result[decided])),
    )


NOT_A_MOVE = -128
"""In a solver-labelled position's scores: an action that is not a legal move."""


def solver_positions(folder: RunFolder, config: LoopConfig) -> tuple[list[Any], np.ndarray]:
    """The run's fixed solver-labelled positions (made once and kept in ``validation/``):
    Othello states and, for each, the exact final margin of every action for the player to
    move (``int8 (n, N*N + 1)``, :data:`NOT_A_MOVE` where the action is not legal)."""
    from imago.agents.registry import make_agent
    from imago.games.othello import OthelloState

    size, count, empties = config.spec.size, config.solver_positions, config.solver_empties
    path = folder.validation_dir / f"solver-{size}x{size}-{count}-{empties}.npz"
    if path.is_file():
        states, labels = load_positions(path, size)
        if "scores" in labels:
            return states, labels["scores"]
        scores = _solve_all(states)  # a file written before the scores were kept: label again
        save_positions(path, states, scores=scores)
        return states, scores
    rng = np.random.default_rng([config.seed, 16])
    player = make_agent("mcts", "othello", {"playouts": "300", "resign": "0"}, seed=1, size=size)
    states = []
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
        states.append(state)
    scores = _solve_all(states)
    save_positions(path, states, scores=scores)
    return states, scores


def _solve_all(states: list[Any]) -> np.ndarray:
    """Every legal move's exact final margin, for each state."""
    from imago.agents.othello.endgame import EndgameSolver

    solver = EndgameSolver(table_bits=18)
    actions = states[0].size * states[0].size + 1 if states else 1
    scores = np.full((len(states), actions), NOT_A_MOVE, dtype=np.int8)
    for row, state in zip(scores, states, strict=True):
        for move, score in solver.solve_state(state, exact_all=True).move_scores:
            row[move.to_action(state.size)] = score
    return scores


def save_positions(path: Path, states: list[Any], **labels: np.ndarray) -> None:
    """Othello positions (bitboards and the side to move; the history is not kept) and their
    ``labels``, one array each, to a compressed ``.npz`` written atomically."""
    bits = [s.bitboards() for s in states]
    arrays: dict[str, Any] = {
        "player": np.array([b[0] for b in bits], dtype=np.uint64),
        "opponent": np.array([b[1] for b in bits], dtype=np.uint64),
        "color": np.array([int(s.to_play) for s in states], dtype=np.int8),
        **labels,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez_compressed(tmp, **arrays)


def load_positions(path: Path, size: int) -> tuple[list[Any], dict[str, np.ndarray]]:
    """The positions and labels :func:`save_positions` wrote (``size``: the board's)."""
    from imago.games.othello import OthelloState

    with np.load(path, allow_pickle=False) as data:
        states = [
            OthelloState.from_bitboards(int(p), int(o), Color(int(c)), size)
            for p, o, c in zip(data["player"], data["opponent"], data["color"], strict=True)
        ]
        labels = {key: data[key] for key in data.files if key not in POSITION_KEYS}
    return states, labels


POSITION_KEYS = ("player", "opponent", "color")
"""The arrays of a positions file that hold the positions themselves."""


def best_moves(scores: np.ndarray) -> np.ndarray:
    """The moves of the largest exact margin (Othello's "best move"), as a mask."""
    legal = scores != NOT_A_MOVE
    top = np.where(legal, scores, np.iinfo(np.int8).min).max(axis=1, keepdims=True)
    return np.asarray(legal & (scores == top), dtype=np.bool_)


def result_keeping_moves(scores: np.ndarray) -> np.ndarray:
    """The moves that keep the position's exact result (a win, a draw or a loss, whatever the
    margin) as a mask: what a player that only wants to win must find."""
    legal = scores != NOT_A_MOVE
    top = np.where(legal, scores, np.iinfo(np.int8).min).max(axis=1, keepdims=True)
    return np.asarray(legal & (np.sign(scores) == np.sign(top)), dtype=np.bool_)


def _empties(state: Any) -> int:
    black, white = state.discs()
    return int(state.size * state.size - black - white)


def solver_metrics(folder: RunFolder, config: LoopConfig, model: Path) -> dict[str, float]:
    """The share of the solver's positions where the network's first choice (``policy``) and
    the search's move (``search``) is one of the best moves (the largest exact margin), and
    where each keeps the exact result (``policy_result``, ``search_result``)."""
    from imago.agents.registry import make_agent
    from imago.nn.evaluator import NetworkEvaluator

    states, scores = solver_positions(folder, config)
    best, keeping = best_moves(scores), result_keeping_moves(scores)
    evaluator = NetworkEvaluator.load(model, game="othello", size=config.spec.size)
    planes = evaluator.features.encode_states(states).astype(np.float32)
    legal = np.stack([s.legal_mask() for s in states])
    probs, _ = evaluator.run(planes, legal)
    rows = np.arange(len(states))
    first = probs.argmax(axis=1)
    search = make_agent(
        "az", "othello", {"model": str(model), "simulations": str(config.solver_simulations),
                          "resign": "0", "reuse": "false"}, seed=1,
        size=config.spec.size,
    )  # fmt: skip
    chosen = np.array(
        [search.select_move(state, Limit()).move.to_action(config.spec.size) for state in states]
    )
    return {
        "positions": float(len(states)),
        "policy": float(np.mean(best[rows, first])),
        "search": float(np.mean(best[rows, chosen])),
        "policy_result": float(np.mean(keeping[rows, first])),
        "search_result": float(np.mean(keeping[rows, chosen])),
    }
