"""Curves of a run, drawn from its ``metrics.jsonl`` and reference matches into ``plots/``.

* ``training.png``: training loss (policy, value) and the validation losses per generation;
* ``strength.png``: each generation's gating score against the best, and its Elo against the
  fixed references with error bars (maximum likelihood over every reference game, as
  ``imago ratings`` fits them);
* ``selfplay.png``: self-play speed (positions evaluated per second) and game length.

Needs matplotlib (the ``plot`` or ``nn`` extra); without it nothing is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from imago.core.files import atomic_path
from imago.rl.folder import RunFolder


def reference_elo(folder: RunFolder) -> dict[int, tuple[float, float]]:
    """Each generation's Elo (and its standard error) from all reference games, anchored on
    the ``random`` player when it took part (else on the references' mean)."""
    from imago.arena.match import MatchFolder
    from imago.arena.ratings import fit_ratings
    from imago.arena.tournament import pair_results

    records: list[Any] = []
    refs = folder.root / "refs"
    if not refs.is_dir():
        return {}
    for match in sorted(p for p in refs.glob("*/*") if (p / "match.json").is_file()):
        records.extend(MatchFolder(match).records().values())
    if not records:
        return {}
    pairs = pair_results(records)
    names = {name for pair in pairs for name in (pair.a, pair.b)}
    anchor = "random" if "random" in names else None
    try:
        ratings = fit_ratings(pairs, anchor=anchor, prior_draws=1.0)
    except ValueError:
        return {}
    return {
        int(name[3:]): (ratings.rating(name), ratings.error(name))
        for name in ratings.players
        if name.startswith("gen") and name[3:].isdigit()
    }


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
    right.legend()
    return True


def _strength(folder: RunFolder, axes: Any) -> bool:
    gating = folder.metrics("evaluate")
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
    right.set_title("Elo against the references (anchor: random)")
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
