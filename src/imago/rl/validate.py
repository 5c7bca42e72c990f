"""Validation: how well each generation predicts what it should, on data it never trained on.

* the **self-play holdout**: the held-out games of the recent rounds (cross-entropy with the
  search's move distribution, agreement of the top move, squared error of the value against
  the results) — over-fitting shows here first;
* **real records** (``records`` in the run's settings: WTHOR 2023-2025 for Othello, the OGS
  dan games for 9x9 Go): the share of moves people played that the network ranks first, its
  loss on them, and its value against the games' results — whether self-play drifts away
  from good play.

The records are turned into a dataset once (``validation/`` in the run folder, with the
network's feature set) and kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from imago.rl.config import LoopConfig
from imago.rl.folder import RunFolder, iter_round_files
from imago.rl.stages import Report, _quiet


def validate(
    folder: RunFolder, config: LoopConfig, generation: int, *, report: Report = _quiet
) -> dict[str, Any]:
    """Validate ``generation`` (once: a logged result is returned as it is)."""
    from imago.nn.rl_train import evaluate_examples, load_window

    done = [row for row in folder.metrics("validate") if row.get("generation") == generation]
    if done:
        return done[-1]
    report("validate", 0, 2, f"generation {generation}")
    model = folder.model_path(generation)
    row: dict[str, Any] = {}
    rounds = list(range(generation, max(-1, generation - config.window_rounds), -1))
    holdout = list(iter_round_files(folder, rounds, holdout=True))
    if holdout:
        measured = evaluate_examples(model, load_window(holdout))
        row["holdout"] = measured
    report("validate", 1, 2, f"generation {generation}: records")
    if config.records:
        row["records"] = records_metrics(folder, config, model)
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
        build_dataset([Path(p) for p in config.records], target, build, limit_games=games)
    dataset = Dataset.open(target)
    result = evaluate_model(model, dataset, "val", limit=config.records_limit, device="cpu")
    return {key: float(value) for key, value in result.items()}
