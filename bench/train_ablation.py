"""Which training settings make a better next generation? Variants trained on the same data.

    python bench/train_ablation.py RUN --generation G --out FOLDER \\
        NAME=SETTINGS [NAME=SETTINGS ...]

Each variant trains generation ``G``'s network on the window ``imago rl train`` would use for
round ``G`` (the same examples, the same number of steps, the same seed), with the run's
``train`` settings changed by ``SETTINGS``, a JSON object of ``StepsConfig`` fields
(``'{"value_weight": 0}'``, ``'{}'`` for the run's own). The networks are written to
``FOLDER/NAME.pt`` (and their ONNX exports beside them), never into the run; compare them with
``imago match`` against ``RUN/models/G.pt``, each variant on the same openings (same
``--seed``).

Examples written before self-play kept the search's values (the ``searched`` array) get them
from the games' records, which always held them (``values`` in each game's info).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from imago.nn.dataset import ShardArrays, read_shard
from imago.nn.export import export_onnx
from imago.nn.rl_train import StepsConfig, train_steps
from imago.rl.folder import RunFolder, read_infos
from imago.rl.stages import gather, load_config, load_listed


def searched_from_records(files: list[Path], window: ShardArrays) -> ShardArrays:
    """``window`` with the search's values, read from its games' records when its shards lack
    them (the records list each game's values in the order of its examples)."""
    if window.searched is not None:
        return window
    rates = [v for path in files for info in read_infos(path) for v in info["values"]]
    if len(rates) != len(window):
        raise ValueError(f"the records hold {len(rates)} values for {len(window)} examples")
    return replace(window, searched=(2 * np.asarray(rates) - 1).astype(np.float16))


def parse_variant(text: str) -> tuple[str, dict[str, object]]:
    """``NAME=SETTINGS`` as the name and the settings' changes."""
    name, sep, settings = text.partition("=")
    if not sep or not name.isidentifier():
        raise SystemExit(f"a variant is NAME=SETTINGS (JSON), not {text!r}")
    try:
        changes = json.loads(settings)
    except json.JSONDecodeError as error:
        raise SystemExit(f"the settings of {name} are not JSON: {error}") from None
    if not isinstance(changes, dict):
        raise SystemExit(f"the settings of {name} are not a JSON object")
    return name, changes


def variant_settings(
    train: StepsConfig, steps: int, name: str, changes: dict[str, object]
) -> StepsConfig:
    """The run's training settings for ``steps`` steps, with a variant's changes."""
    unknown = set(changes) - set(StepsConfig.__dataclass_fields__)
    if unknown:
        raise SystemExit(f"{name}: unknown training settings {', '.join(sorted(unknown))}")
    try:
        return replace(train, steps=steps, samples_per_position=0.0, **changes)  # type: ignore[arg-type]
    except ValueError as error:
        raise SystemExit(f"{name}: {error}") from None


def train_variants(
    run: Path, generation: int, out: Path, variants: list[tuple[str, dict[str, object]]]
) -> dict[str, dict[str, object]]:
    """Train each variant from generation ``generation`` on that round's window into
    ``out/NAME.pt``; returns each one's changes and training metrics."""
    folder = RunFolder(run)
    config = load_config(folder)
    files, window = load_listed(lambda: gather(folder, config, generation))
    if window is None:
        raise SystemExit(f"round {generation} of {run} has no examples")
    window = searched_from_records(files, window)
    fresh = sum(len(read_shard(path)) for path in folder.example_files(generation))
    steps = config.train.steps_for(fresh)  # as many steps as the loop gives this round
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    for name, changes in variants:
        settings = variant_settings(config.train, steps, name, changes)
        model = out / f"{name}.pt"
        checkpoint = out / f"{name}.checkpoint"
        checkpoint.unlink(missing_ok=True)
        result = train_steps(
            folder.model_path(generation), window, model, checkpoint, settings, tag=generation + 1
        )
        checkpoint.unlink(missing_ok=True)
        export_onnx(model, model.with_suffix(".onnx"))
        result.pop("config", None)
        results[name] = {"changes": changes, **result}
        print(name, json.dumps(results[name]), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--generation", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("variants", nargs="+", help="NAME=SETTINGS (JSON)")
    args = parser.parse_args()
    variants = [parse_variant(text) for text in args.variants]
    train_variants(args.run, args.generation, args.out, variants)


if __name__ == "__main__":
    main()
