"""Real game records as datasets of a run: built once into the run folder and kept.

Two uses, on separate records (:class:`~imago.rl.config.LoopConfig` refuses the same file in
both): ``records`` to validate every generation on (:mod:`imago.rl.validate`), and
``train_records``, positions of real games mixed into every training batch
(``train.records_share``) while self-play data is scarce.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from imago.rl.config import LoopConfig
from imago.rl.folder import RunFolder


def records_dataset(
    target: Path,
    sources: tuple[str, ...],
    config: LoopConfig,
    features: str,
    *,
    min_rank: str | None,
    years: tuple[int, int] | None,
    games: int,
) -> Any:
    """The :class:`~imago.nn.dataset.Dataset` at ``target``, built from the first ``games``
    games of ``sources`` that pass the filters (all in its ``val`` split) when not built yet."""
    from imago.nn.dataset import Dataset
    from imago.train.build import BuildConfig, GameFilter, SplitConfig, build_dataset
    from imago.train.sgf_source import read_sgf_game

    if not (target / "manifest.json").is_file():
        build = BuildConfig(
            game=config.spec.game,
            size=config.spec.size,
            features=features,
            filter=GameFilter(years=years, min_rank=min_rank),
            split=SplitConfig(val_fraction=1.0, val_years=years),
        )
        build_dataset(
            [Path(p) for p in sources], target, build, sgf_reader=read_sgf_game, limit_games=games
        )
    return Dataset.open(target)


def validation_records(folder: RunFolder, config: LoopConfig, features: str) -> Any:
    """The records every generation is validated on (a game gives dozens of positions: only as
    many games as ``records_limit`` positions need)."""
    return records_dataset(
        folder.validation_dir / f"records-{features}",
        config.records,
        config,
        features,
        min_rank=config.records_min_rank,
        years=config.records_years,
        games=config.records_limit // 20 + 1,
    )


def training_records(folder: RunFolder, config: LoopConfig, features: str, actions: int) -> Any:
    """The positions of ``train_records`` as :class:`~imago.nn.dataset.ShardArrays` with the
    moves played as targets over ``actions`` moves (``None`` when the run trains on self-play
    alone)."""
    from imago.nn.rl_train import with_played_targets

    if config.train.records_share <= 0:
        return None
    dataset = records_dataset(
        folder.validation_dir / f"train-records-{features}",
        config.train_records,
        config,
        features,
        min_rank=config.train_records_min_rank,
        years=config.train_records_years,
        games=config.train_records_games,
    )
    return with_played_targets(dataset.load("val"), actions)
