"""Pictures of a genetic-algorithm run: fitness per generation, and evolved masks as heat maps
beside the masks the run started from (seed 002's). Needs matplotlib (``imago[plot]``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.tune.genetic import Generation


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise RuntimeError("plotting needs matplotlib (pip install 'imago[plot]')") from error
    return plt


def plot_fitness(history: Sequence[Generation], path: str | Path, *, title: str = "") -> None:
    """Best and mean fitness per generation (and the best and mean score against the
    references, when there were any) as a PNG."""
    plt = _pyplot()
    numbers = [g.number for g in history]
    figure, axes = plt.subplots(figsize=(7.0, 4.0))
    try:
        axes.plot(numbers, [g.fitness[g.best].score for g in history], "o-", label="best")
        axes.plot(numbers, [g.mean for g in history], "s--", label="mean")
        against = [[f.reference_score for f in g.fitness] for g in history]
        if all(all(s is not None for s in scores) for scores in against) and history:
            best = [max(float(s or 0.0) for s in scores) for scores in against]
            mean = [float(np.mean([float(s or 0.0) for s in scores])) for scores in against]
            axes.plot(numbers, best, "^:", label="best vs references")
            axes.plot(numbers, mean, "v:", label="mean vs references")
        axes.set_xlabel("generation")
        axes.set_ylabel("score (points per game)")
        axes.set_ylim(-0.02, 1.02)
        axes.grid(alpha=0.3)
        axes.legend()
        axes.set_title(title or "fitness per generation")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    finally:
        plt.close(figure)


def plot_masks(
    rows: Sequence[tuple[str, npt.NDArray[np.int64]]],
    size: int,
    path: str | Path,
    *,
    phase_names: Sequence[str] = (),
) -> None:
    """Heat maps of the masks of weights tables (``(phases, 70)``, masks on bits
    ``row * 8 + col``): one row of pictures per ``(title, table)``, one column per phase, each
    square annotated with its weight; one colour scale per phase column."""
    plt = _pyplot()
    phases = rows[0][1].shape[0]
    squares = [r * 8 + c for r in range(size) for c in range(size)]
    figure, axes = plt.subplots(
        len(rows), phases, figsize=(3.2 * phases, 3.2 * len(rows)), squeeze=False
    )
    try:
        for phase in range(phases):
            masks = [table[phase, squares].reshape(size, size) for _, table in rows]
            limit = max(1, int(max(np.abs(m).max() for m in masks)))
            for k, ((title, _), mask) in enumerate(zip(rows, masks, strict=True)):
                ax = axes[k, phase]
                ax.imshow(mask, cmap="RdBu", vmin=-limit, vmax=limit)
                for r in range(size):
                    for c in range(size):
                        ax.text(c, r, str(int(mask[r, c])), ha="center", va="center", fontsize=7)
                ax.set_xticks(range(size), [chr(ord("a") + c) for c in range(size)])
                ax.set_yticks(range(size), [str(r + 1) for r in range(size)])
                name = phase_names[phase] if phase < len(phase_names) else f"phase {phase + 1}"
                ax.set_title(f"{title}: {name}", fontsize=9)
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    finally:
        plt.close(figure)
