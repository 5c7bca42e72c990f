"""What the cluster tests play: a small match and a small self-play run, and how to read
back what they wrote (shared by the local-process and the Ray tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from imago.arena.game import GameSettings
from imago.arena.match import MatchFolder, MatchSettings, Player, match_schedule
from imago.rl.config import LoopConfig, smoke_config
from imago.rl.folder import RunFolder, read_infos
from imago.rl.selfplay import GameSpec
from imago.rl.stages import bootstrap, init
from imago.tune.genetic import GAConfig

SETTINGS = MatchSettings(GameSettings("othello", 8), seed=7, opening_plies=2)
SCHEDULE = match_schedule(Player.parse("alphabeta:depth=1"), Player.parse("random"), 6)


GA_CONFIG = GAConfig(
    size=6, population=4, generations=2, depth=1, endgame_empties=4, peers=1,
    references=("mask",), games_per_pair=2, opening_plies=2, seed=5,
)  # fmt: skip
"""A genetic-algorithm run small enough for a test: 6x6, depth 1, 16 games a generation."""


def ga_outcome(folder: Path) -> tuple[list[object], list[object]]:
    """A GA run's populations and fitness, generation by generation."""
    generations = sorted(folder.glob("gen_*"))
    assert generations
    populations = [json.loads((g / "population.json").read_text()) for g in generations]
    fitness = [json.loads((g / "fitness.json").read_text()) for g in generations]
    return populations, fitness


def folder_games(folder: Path) -> dict[int, tuple[str | None, tuple[str, ...]]]:
    """A match folder's games: winner and moves by game number (each file once)."""
    records = MatchFolder(folder).records()
    assert len(list((folder / "games").glob("*.sgf"))) == len(records)
    return {i: (r.winner, r.moves) for i, r in records.items()}


def selfplay_config() -> LoopConfig:
    return smoke_config(GameSpec("othello", 6)).with_changes(
        {"selfplay.parallel": 4, "holdout_fraction": 0.25}
    )


def new_run(root: Path) -> RunFolder:
    folder = RunFolder(root)
    init(folder, selfplay_config())
    bootstrap(folder, selfplay_config())
    return folder


def run_games(folder: RunFolder, round_: int = 0) -> dict[tuple[str, int], Any]:
    """Every self-play game of a round, by (worker, index): its moves and result; each game
    must be in the folder once."""
    games: dict[tuple[str, int], Any] = {}
    for holdout in (False, True):
        for path in folder.example_files(round_, holdout):
            for info in read_infos(path):
                key = (info["worker"], info["index"])
                assert key not in games, f"{key} twice"
                games[key] = (info["actions"], info["winner"], info["holdout"])
    return games
