"""The precision self-play runs its network at: float32, or an int8 copy of each generation.

With ``nn_precision = "int8"`` every generation gets an int8 copy of its ONNX export
(:func:`imago.nn.export.quantize_onnx`, ``NNNNNN.int8.onnx`` beside it), calibrated on the
positions of the self-play rounds it was trained on, and self-play plays with that copy: about
3.5x more positions per CPU-second where the network is almost all of self-play's time. The
training, the validation and the matches keep float32. A generation with no self-play
positions yet to calibrate on (generation 0 before its first round) plays in float32.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from imago.rl.config import LoopConfig
from imago.rl.folder import RunFolder, iter_round_files

PRECISIONS = ("fp32", "int8")
CALIBRATION_POSITIONS = 512
"""Positions whose activations set the int8 ranges."""


def selfplay_onnx(folder: RunFolder, config: LoopConfig, generation: int) -> Path | None:
    """The export self-play runs ``generation`` from: its int8 copy (made now when missing)
    with ``nn_precision = "int8"``, else ``None`` (the float32 model's own)."""
    if config.nn_precision != "int8":
        return None
    source = folder.model_path(generation, ".onnx")
    target = folder.model_path(generation, ".int8.onnx")
    if target.is_file() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    planes = calibration_planes(folder, config, generation)
    if planes is None:
        return None
    from imago.nn.export import quantize_onnx

    return quantize_onnx(source, target, planes)


def calibration_planes(folder: RunFolder, config: LoopConfig, generation: int) -> np.ndarray | None:
    """A fixed sample of the feature planes ``generation`` was trained on (the rounds before
    it, newest first; round 0 for generation 0), or ``None`` when there are none yet."""
    from imago.nn.dataset import ShardArrays, read_shard, unpack
    from imago.nn.store import load_model

    newest = max(0, generation - 1)
    rounds = config.window(newest)
    parts, positions = [], 0
    for path in iter_round_files(folder, rounds, holdout=False):
        part = read_shard(path)
        parts.append(part)
        positions += len(part)
        if positions >= 8 * CALIBRATION_POSITIONS:
            break
    if not parts:
        return None
    examples = ShardArrays.concat(parts)
    rng = np.random.default_rng([config.seed, generation, 8])
    rows = np.sort(rng.choice(len(examples), min(len(examples), CALIBRATION_POSITIONS), False))
    spec = load_model(folder.model_path(generation)).spec
    return unpack(examples.take(rows), spec.feature_set.planes, spec.size).planes
