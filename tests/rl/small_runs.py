"""Small runs for the tests of ``imago rl`` stages that need a run with examples and a trained
generation (grow, adopt, distill): one helper, so they all start from the same run."""

from __future__ import annotations

from pathlib import Path

from imago.rl.config import LoopConfig, smoke_config
from imago.rl.folder import RunFolder
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init, self_play, train

SMALL_SPEC = GameSpec("othello", 6)


def small_config() -> LoopConfig:
    """The smoke settings on 6x6 Othello (b1c8), a quarter of the games held out."""
    return smoke_config(SMALL_SPEC).with_changes({"holdout_fraction": 0.25})


def run_with_two_rounds(root: Path) -> tuple[RunFolder, LoopConfig]:
    """A run at ``root``: generation 0, round 0 played by it, generation 1 trained on that,
    round 1 played by generation 1 (8 games a round); generation 1 is the newest network."""
    config = small_config()
    folder = RunFolder(root)
    init(folder, config)
    bootstrap(folder, config)
    self_play(folder, config, worker="w0")
    assert train(folder, config) == 1
    self_play(folder, config, worker="w1")
    return folder, config
