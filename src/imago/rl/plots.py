"""Curves of a run, drawn from its ``metrics.jsonl`` and reference matches into ``plots/``.

* ``training.png``: training loss (policy, value) and the validation losses per generation;
* ``strength.png``: each generation's gating score against the best, and its Elo against the
  fixed references with error bars (maximum likelihood over every reference game, as
  ``imago ratings`` fits them);
* ``compute.png``: each generation's Elo against generation 0 (measured directly, with its
  interval) and its value head's error on held-out real records, by the CPU-hours the run had
  spent to make it;
* ``selfplay.png``: self-play speed (positions evaluated per second) and game length.

:func:`plot_runs` draws the ``compute.png`` curves of several runs on one figure (runs of
record side by side, or the arms of an ablation).

Needs matplotlib (the ``plot`` or ``nn`` extra); without it nothing is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from imago.core.files import atomic_path
from imago.rl.folder import RunFolder


def reference_elo(folder: RunFolder) -> dict[int, tuple[float, float]]:
    """Each generation's Elo (and its standard error) from all reference games in the metrics
    log, anchored on generation 0 when it took part (:attr:`ReferenceConfig.anchors
    <imago.rl.config.ReferenceConfig.anchors>`), else on the ``random`` player, else on the
    references' mean."""
    from imago.arena.ratings import PairResult, fit_ratings

    pairs = [
        PairResult(
            f"gen{row['generation']}",
            label,
            s["wins"],
            s["draws"],
            s["games"] - s["wins"] - s["draws"],
        )
        for row in folder.metrics("references")
        for label, s in row.get("scores", {}).items()
        if "wins" in s  # rows logged before the counts were kept have only the score
    ]
    if not pairs:
        return {}
    names = {name for pair in pairs for name in (pair.a, pair.b)}
    anchor = next((name for name in ("gen0", "random") if name in names), None)
    try:
        ratings = fit_ratings(pairs, anchor=anchor, prior_draws=1.0)
    except ValueError:
        return {}
    return {
        int(name[3:]): (ratings.rating(name), ratings.error(name))
        for name in ratings.players
        if name.startswith("gen") and name[3:].isdigit()
    }


def anchor_curve(folder: RunFolder) -> list[tuple[float, float, float, float]]:
    """``(cumulative CPU-hours, Elo, low, high)`` of each generation measured against
    generation 0 directly (its 95 % interval, within :data:`ELO_BOUND`), by the CPU-hours
    the run had spent when it was made."""
    hours = cpu_hours_by_generation(folder)
    curve = []
    for row in folder.metrics("references"):
        score = row.get("scores", {}).get("gen0")
        generation = int(row["generation"])
        if score is None or generation not in hours or "elo" not in score:
            continue
        sign = 1.0 if score["score"] > 0.5 else -1.0
        elo = _bounded(score["elo"], sign)
        low, high = _bounded(score["elo_low"], -1.0), _bounded(score["elo_high"], 1.0)
        curve.append((hours[generation], elo, low, high))
    return curve


def cpu_hours_by_generation(folder: RunFolder) -> dict[int, float]:
    """The run's cumulative CPU-hours when each generation was made (its ``compute`` rows,
    which add up across machines)."""
    hours: dict[int, float] = {}
    total = 0.0
    for row in folder.metrics("compute"):
        total += float(row.get("cpu_s", 0)) / 3600
        hours[int(row["generation"])] = total
    return hours


def records_curve(folder: RunFolder) -> list[tuple[float, float]]:
    """``(cumulative CPU-hours, value MSE)`` of each generation validated on held-out real
    records (``validate`` rows with a value error), generation 0 at 0 hours."""
    hours = cpu_hours_by_generation(folder) | {0: 0.0}
    curve = []
    for row in folder.metrics("validate"):
        generation = int(row["generation"])
        mse = row.get("records", {}).get("value_mse")
        if mse is not None and generation in hours:
            curve.append((hours[generation], float(mse)))
    return curve


ELO_BOUND = 800.0
"""Where a score of 0 % or 100 % (an infinite Elo difference) is drawn."""


def _bounded(elo: float | None, infinite: float) -> float:
    """``elo`` within :data:`ELO_BOUND`; ``None`` (infinite) at the bound of sign
    ``infinite``."""
    if elo is None:
        return infinite * ELO_BOUND
    return max(-ELO_BOUND, min(ELO_BOUND, float(elo)))


def plot_run(folder: RunFolder) -> list[Path]:
    """Draw the run's curves; the files written (none without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    folder.plots_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in (
        ("training", _training),
        ("strength", _strength),
        ("compute", _compute),
        ("selfplay", _selfplay),
    ):
        figure, axes = plt.subplots(1, 2, figsize=(11, 4))
        if draw(folder, axes):
            figure.tight_layout()
            written.append(_save(figure, folder.plots_dir / f"{name}.png"))
        plt.close(figure)
    return written


def _save(figure: Any, path: Path) -> Path:
    with atomic_path(path, suffix=".png") as tmp:
        figure.savefig(tmp, dpi=80)
    return path


def _training(folder: RunFolder, axes: Any) -> bool:
    train = folder.metrics("train")
    valid = folder.metrics("validate")
    if not train and not valid:
        return False
    left, right = axes
    gens = [row["generation"] for row in train]
    left.plot(gens, [row["policy_loss"] for row in train], marker="o", label="train policy")
    left.plot(gens, [row["value_loss"] for row in train], marker="o", label="train value")
    held = [row for row in valid if "holdout" in row]
    if held:
        g = [row["generation"] for row in held]
        left.plot(
            g, [row["holdout"]["policy_loss"] for row in held], marker="s", label="holdout policy"
        )
        left.plot(
            g, [row["holdout"]["value_mse"] for row in held], marker="s", label="holdout value"
        )
    left.set_xlabel("generation")
    left.set_title("loss")
    left.legend()
    recs = [row for row in valid if "records" in row]
    if recs:
        g = [row["generation"] for row in recs]
        right.plot(g, [row["records"]["top1"] for row in recs], marker="o", label="records top-1")
        if "value_mse" in recs[0]["records"]:
            right.plot(
                g,
                [row["records"]["value_mse"] for row in recs],
                marker="o",
                label="records value MSE",
            )
    if held:
        g = [row["generation"] for row in held]
        right.plot(g, [row["holdout"]["top1"] for row in held], marker="s", label="holdout top-1")
    right.set_xlabel("generation")
    right.set_title("validation")
    if right.has_data():
        right.legend()
    return True


def _strength(folder: RunFolder, axes: Any) -> bool:
    gating = [row for row in folder.metrics("evaluate") if "score" in row]  # no gate: none
    elo = reference_elo(folder)
    if not gating and not elo:
        return False
    left, right = axes
    if gating:
        g = [row["generation"] for row in gating]
        score = [row["score"] for row in gating]
        low = [row["score"] - row["low"] for row in gating]
        high = [row["high"] - row["score"] for row in gating]
        left.errorbar(g, score, yerr=[low, high], fmt="o", capsize=3)
        left.axhline(0.55, linestyle="--", color="grey")
        left.set_ylim(0, 1)
    left.set_xlabel("generation")
    left.set_title("gating score against the best (95%)")
    if elo:
        g = sorted(elo)
        right.errorbar(g, [elo[x][0] for x in g], yerr=[elo[x][1] for x in g], fmt="o-", capsize=3)
    right.set_xlabel("generation")
    right.set_title("Elo against the references (anchor: generation 0, else random)")
    return True


def _compute(folder: RunFolder, axes: Any) -> bool:
    return _draw_compute([folder], axes, labels=None)


def plot_runs(folders: Sequence[RunFolder], out: Path, labels: Sequence[str] = ()) -> Path | None:
    """Draw the ``compute.png`` curves of ``folders`` on one figure at ``out`` (each run
    labelled by ``labels``, else by its folder's name); ``None`` when none has a measured
    generation yet or matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = list(labels) or [folder.root.name for folder in folders]
    if len(names) != len(folders):
        raise ValueError(f"{len(folders)} runs but {len(names)} labels")
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    try:
        if not _draw_compute(folders, axes, labels=names):
            return None
        figure.tight_layout()
        out.parent.mkdir(parents=True, exist_ok=True)
        return _save(figure, out)
    finally:
        plt.close(figure)


def _draw_compute(folders: Sequence[RunFolder], axes: Any, labels: Sequence[str] | None) -> bool:
    """Elo against generation 0 (left) and the value error on real records (right) by
    CPU-hours, one curve per run."""
    left, right = axes
    drawn = False
    for index, folder in enumerate(folders):
        label = None if labels is None else labels[index]
        curve = anchor_curve(folder)
        if curve:
            x = [point[0] for point in curve]
            elo = [point[1] for point in curve]
            below = [point[1] - point[2] for point in curve]
            above = [point[3] - point[1] for point in curve]
            left.errorbar(x, elo, yerr=[below, above], fmt="o-", capsize=3, label=label)
            drawn = True
        records = records_curve(folder)
        if records:
            right.plot([p[0] for p in records], [p[1] for p in records], "o-", label=label)
    if not drawn:
        return False
    left.axhline(0.0, linestyle="--", color="grey")
    left.set_xlabel("CPU-hours")
    left.set_title("Elo against generation 0 (95%), by compute")
    right.set_xlabel("CPU-hours")
    right.set_title("value MSE on held-out real records")
    if labels is not None:
        left.legend()
        if right.has_data():
            right.legend()
    if not right.has_data():
        right.set_axis_off()
    return True


def _selfplay(folder: RunFolder, axes: Any) -> bool:
    rows = folder.metrics("selfplay")
    if not rows:
        return False
    left, right = axes
    x = list(range(len(rows)))
    left.plot(x, [row["positions_per_s"] for row in rows], marker=".")
    left.set_title("self-play positions evaluated per second")
    left.set_xlabel("chunk")
    right.plot(x, [row["moves"] / max(1, row["games"]) for row in rows], marker=".")
    right.set_title("moves per game")
    right.set_xlabel("chunk")
    return True
