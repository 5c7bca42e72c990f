"""A new network, of another size, trained on the self-play examples a run has played.

A run's network can stop rising because it is too small to learn more from its games (the
5x48 Othello run of record was level for 190 generations whatever else changed). KataGo does
not start its larger networks from random weights on fresh games: it trains them on the games
its smaller networks played, then lets them take over the self-play. This module does that for
a run folder:

``imago rl distill RUN OUT.pt --model b8c64``
    trains a fresh ``b8c64`` network on the examples of the run's newest rounds (the search's
    move distributions and the games' results, exactly what the run's own generations train
    on), with a cosine learning rate over a fixed number of passes, and reports it beside the
    run's newest generation on the same rounds' held-out games;
``imago rl init NEW --like RUN --bootstrap OUT.pt``
    starts a run from it with the old run's settings.

The training resumes after an interruption (even ``kill -9``) from its trainer's checkpoint
beside ``OUT`` (``OUT.trainer.pt``); what was trained on and how well it did are written to
``OUT.json`` when it is done.
"""

from __future__ import annotations

import itertools
import json
import math
import zlib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from imago.agents.base import StopFlag
from imago.core.files import atomic_write_text
from imago.rl.config import LoopConfig
from imago.rl.folder import RunError, RunFolder, iter_round_files
from imago.rl.stages import Report, _quiet, load_listed

DISTILL_FORMAT = "imago-rl-distill"


@dataclass(frozen=True, slots=True)
class DistillConfig:
    """How a network is distilled from a run's examples."""

    model: str
    """The new network's size (``bBcC``: B residual blocks of C channels)."""
    rounds: int = 32
    """The run's newest rounds to train on (all of them when it has fewer)."""
    passes: float = 2.0
    """How many times each example is drawn, on average (each time under a random symmetry)."""
    lr: float = 0.02
    """The peak learning rate, reached after a linear warm-up and decayed to 0 by a cosine."""
    batch_size: int = 256
    seed: int = 0

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise ValueError(f"rounds must be at least 1 (got {self.rounds})")
        if self.passes <= 0:
            raise ValueError(f"passes must be above 0 (got {self.passes})")
        if self.lr <= 0:
            raise ValueError(f"lr must be above 0 (got {self.lr})")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1 (got {self.batch_size})")

    def steps(self, positions: int) -> int:
        """The optimizer steps that draw each of ``positions`` examples ``passes`` times."""
        return max(1, math.ceil(positions * self.passes / self.batch_size))

    def tag(self, rounds: list[int]) -> int:
        """A number that changes with these settings and rounds: a trainer's checkpoint made
        for other ones is not resumed."""
        return zlib.crc32(json.dumps([asdict(self), rounds]).encode()) & 0x7FFFFFFF


def distill_rounds(folder: RunFolder, rounds: int) -> list[int]:
    """The run's newest ``rounds`` rounds that hold examples, newest first (the newest
    generation's round is usually still empty: it is not counted)."""
    latest = folder.latest()
    if latest is None:
        raise RunError(f"{folder.root} has no network yet: nothing to distill")
    played = (r for r in range(latest, -1, -1) if folder.example_files(r))
    return list(itertools.islice(played, rounds))


def trainer_path(out: Path) -> Path:
    """The trainer's checkpoint of a distillation into ``out``."""
    return out.with_name(out.stem + ".trainer.pt")


def start_path(out: Path) -> Path:
    """The random network a distillation into ``out`` starts from."""
    return out.with_name(out.stem + ".start.pt")


def report_path(out: Path) -> Path:
    """What a distillation into ``out`` trained on and how well it did (JSON)."""
    return out.with_suffix(".json")


def distill(
    folder: RunFolder,
    config: LoopConfig,
    out: Path,
    settings: DistillConfig,
    *,
    stop: StopFlag | None = None,
    report: Report = _quiet,
) -> dict[str, Any] | None:
    """Train a new ``settings.model`` network on the examples of the run's newest rounds and
    write it to ``out``; ``None`` when ``stop`` interrupted it (run it again to go on). Returns
    (and writes to ``OUT.json``) the rounds, the training's figures, and the new network's and
    the run's newest generation's figures on the same rounds' held-out games."""
    from imago.nn.models import parse_arch
    from imago.nn.rl_train import evaluate_examples, initial_model, train_steps
    from imago.nn.store import load_model

    parse_arch(settings.model)  # a clear error for a size that is not one
    rounds = distill_rounds(folder, settings.rounds)
    if not rounds:
        raise RunError(f"{folder.root} has no self-play examples yet: nothing to distill")
    teacher_generation = folder.latest()
    assert teacher_generation is not None  # distill_rounds found rounds
    teacher = folder.model_path(teacher_generation)
    report("distill", 0, 1, f"reading rounds {rounds[-1]}-{rounds[0]}")
    files, window = load_listed(lambda: list(iter_round_files(folder, rounds, holdout=False)))
    features = load_model(teacher).spec.features
    tag = settings.tag(rounds)
    start = start_path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    initial_model(  # the same weights for the same seed: a resumed training starts alike
        start,
        game=config.spec.game,
        size=config.spec.size,
        arch=settings.model,
        features=features,
        seed=settings.seed,
        score_weight=config.train.score_weight,
        ownership=config.train.ownership_weight > 0,
    )
    steps = settings.steps(len(window))
    train = replace(
        config.train,
        steps=steps,
        samples_per_position=0.0,
        lr=settings.lr,
        batch_size=settings.batch_size,
        schedule="cosine",
        warmup_steps=min(200, steps // 10),
        records_share=0.0,
        seed=settings.seed,
        threads=0,  # all of torch's: a distillation has the machine to itself
    )

    def on_step(step: int, total: int, loss: float) -> None:
        report("distill", step, total, f"{settings.model}: step {step}/{total}, loss {loss:.3f}")

    result = train_steps(
        start, window, out, trainer_path(out), train, tag=tag, on_step=on_step, stop=stop
    )
    if result.get("stopped"):
        return None
    result.pop("config", None)
    report("distill", steps, steps, "held-out games")
    _, holdout = load_listed(lambda: list(iter_round_files(folder, rounds, holdout=True)))
    row: dict[str, Any] = {
        "format": DISTILL_FORMAT,
        "run": str(folder.root),
        "rounds": [rounds[-1], rounds[0]],
        "files": len(files),
        "settings": asdict(settings),
        "train": result,
    }
    if holdout is not None and len(holdout):
        row["holdout"] = evaluate_examples(out, holdout)
        row["teacher"] = {
            "generation": teacher_generation,
            "holdout": evaluate_examples(teacher, holdout),
        }
    atomic_write_text(report_path(out), json.dumps(row, indent=1) + "\n")
    start.unlink(missing_ok=True)
    return row
