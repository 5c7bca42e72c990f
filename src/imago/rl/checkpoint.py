"""A run's compact checkpoint: what a fresh machine needs to continue a run, small enough to keep
in a repository.

Real training runs live through preempted machines by keeping their state where the next
machine finds it (KataGo's and minigo's runs keep models, optimiser state and self-play data
on shared storage). Here a machine is taken back after a few hours and only the repository
outlives it, so a run's state must be small. :func:`write` makes this folder from a run
folder, :func:`restore` makes a run folder from it::

    CHECKPOINT/
      checkpoint.json      what it holds: the run's settings and promotions, the newest and the
                           promoted generation, the window's rounds, the compute so far, and
                           each file's size and SHA-256
      metrics.jsonl        the run's metrics log, whole (the Elo curve, the compute, ...)
      lineage.json         every generation's lineage, also of the models not kept
      models/000000.pt     generation 0, the anchor the run is measured against (float16)
      models/NNNNNN.pt     the newest generation, the promoted one when it is older, and the
                           run's other anchors (``references.anchors``) that are older
      trainer.pt           the trainer's state: optimiser, step counts, weights (float16)
      window/RRRRRR-train.npz, RRRRRR-holdout.npz
                           the training window's games, round by round

A window file holds, for each example file of its round (under the file's own name, so that a
restored folder lists the same files in the same order), the games' records (moves, results,
the move each example was taken at) and each example's targets as they were stored: the
search's move distribution as whole counts (at the legal moves only:
:data:`imago.rl.examples.POLICY_COUNTS`), the value, margin and searched-value targets and the
move chosen. The feature planes and legal-move masks, most of an example
file's bytes, are not stored: :func:`restore` replays each game's moves through the rules to
make them again, and :func:`write` checks, before it writes anything, that replaying gives
back every stored example bit for bit. A restored run therefore trains its next generation
on exactly the examples the original would have (the same batches, drawn from the same
seeds); its networks and optimiser state are the originals rounded to float16.

Because the planes are made again, a run can change its input features on the way: restored
with ``features`` that begin with the run's own (``libs8`` after ``legal4``), every example is
encoded with them and the next generation is the newest one grown to read them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from imago.core.files import atomic_path
from imago.nn.dataset import ShardArrays, atomic_write_json, pack_rows, read_shard, write_shard
from imago.nn.features import FeatureSet, Positions, feature_set
from imago.rl.examples import ownership_for, policy_from_counts
from imago.rl.folder import (
    CHUNK_PREFIX,
    RunError,
    RunFolder,
    chunk_sources,
    generation_name,
    read_counts,
    read_infos,
)
from imago.rl.selfplay import GameSpec, final_owners

FORMAT = "imago-rl-checkpoint"
VERSION = 1
MANIFEST = "checkpoint.json"
SPLITS = {"train": False, "holdout": True}


class CheckpointError(RunError):
    """A checkpoint that cannot be written (examples that replaying does not give back) or
    read (missing, foreign or damaged files)."""


@dataclass(frozen=True, slots=True)
class CheckpointSummary:
    """What a checkpoint holds (returned by :func:`write` and :func:`restore`)."""

    path: Path
    generation: int
    best: int
    rounds: tuple[int, ...]
    games: int
    examples: int
    bytes: int
    grown_to: str | None = None
    """The input features a restore moved the run to (its newest generation grown to read
    them), or ``None``."""


# -- writing ---------------------------------------------------------------------------------------
def write(folder: RunFolder, target: str | Path) -> CheckpointSummary:
    """Write the compact checkpoint of the run in ``folder`` to ``target`` (a folder, replaced
    as a whole: a reader sees the old checkpoint or the new one)."""
    from imago.rl.stages import anchor_generations, compute_used, load_config

    config = load_config(folder)
    latest, best = folder.latest(), folder.best()
    if latest is None or best is None:
        raise CheckpointError(f"{folder.root} has no network yet: nothing to checkpoint")
    features = _features_of(folder.model_path(best))
    rounds = tuple(sorted(config.window(latest)))
    target = Path(target)
    check_target(folder, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    staging.chmod(0o777 & ~_umask())  # a folder as mkdir makes it, not mkdtemp's 0700
    try:
        games = examples = 0
        (staging / "window").mkdir()
        for round_ in rounds:
            for split, holdout in SPLITS.items():
                files = folder.example_files(round_, holdout)
                if not files:
                    continue
                window = _window_file(files, config.spec, features)
                name = f"{generation_name(round_)}-{split}.npz"
                with atomic_path(staging / "window" / name, suffix=".npz") as tmp:
                    np.savez_compressed(tmp, **window)  # type: ignore[arg-type]
                games += int(window["file_games"].sum())
                examples += len(window["policy"])
        kept = sorted({0, best, latest, *anchor_generations(folder, config, latest)})
        (staging / "models").mkdir()
        for generation in kept:
            _save_half(
                folder.model_path(generation),
                staging / "models" / f"{generation_name(generation)}.pt",
            )
        if folder.checkpoint_path.is_file():
            _save_trainer(folder.checkpoint_path, staging / "trainer.pt", latest)
        shutil.copyfile(folder.metrics_path, staging / "metrics.jsonl")
        atomic_write_json(staging / "lineage.json", _lineages(folder))
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "written": time.time(),
            "run": folder.settings(),
            "best": json.loads(folder.best_path.read_text(encoding="utf-8")),
            "generation": latest,
            "promoted": best,
            "models": kept,
            "features": features.name,
            "rounds": list(rounds),
            "games": games,
            "examples": examples,
            "compute": compute_used(folder),
            "files": _file_table(staging),
        }
        atomic_write_json(staging / MANIFEST, manifest)
        _replace_folder(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return CheckpointSummary(target, latest, best, rounds, games, examples, _size(target))


def check_target(folder: RunFolder, target: Path) -> None:
    """Refuse a target the checkpoint would destroy when it replaces it: anything but a new
    folder or an earlier checkpoint, and the run folder itself or a folder holding it."""
    run, place = folder.root.resolve(), target.resolve()
    if place == run or place in run.parents or run in place.parents:
        raise CheckpointError(
            f"{target}: a checkpoint goes in a folder of its own, not in or around the run"
        )
    if target.exists() and not (target / MANIFEST).is_file():
        raise CheckpointError(
            f"{target} exists and holds no checkpoint (which would be replaced whole): "
            "choose a new folder"
        )


def _features_of(model: Path) -> FeatureSet:
    from imago.nn.store import load_model

    return load_model(model).spec.feature_set


def _window_file(
    files: list[Path], spec: GameSpec, features: FeatureSet
) -> dict[str, npt.NDArray[Any]]:
    """The arrays of one round's window file (see the module docstring), after checking that
    replaying gives back each file's planes and legal moves."""
    parts: list[ShardArrays] = []
    infos: list[list[dict[str, Any]]] = []
    sources: list[list[str]] = []
    targets: list[npt.NDArray[np.uint16]] = []
    for path in files:
        arrays = read_shard(path)
        games = read_infos(path)
        rebuilt = rebuild_examples(games, spec, features)
        if not _same_examples(rebuilt, arrays):
            raise CheckpointError(f"replaying the games of {path} does not give its examples back")
        counts = read_counts(path)
        if (
            arrays.target is None
            or arrays.margin is None
            or arrays.searched is None
            or counts is None
        ):
            raise CheckpointError(
                f"{path} was written before examples kept all their targets (move counts, "
                "margins, the search's values): let the run play a round of newer games first"
            )
        if not np.array_equal(policy_from_counts(counts), arrays.target):
            raise CheckpointError(f"the move counts of {path} do not give its targets back")
        legal = _unpack_legal(arrays.legal, spec.size)
        if np.any(counts[~legal]):
            raise CheckpointError(f"{path} counts moves that are not legal")
        parts.append(arrays)
        infos.append(games)
        sources.append(chunk_sources(path) if path.name.startswith(CHUNK_PREFIX) else [])
        targets.append(counts[legal])
    joined = ShardArrays.concat(parts)
    assert joined.margin is not None and joined.searched is not None
    return {
        "names": np.array([path.name for path in files]),
        "file_rows": np.array([len(part) for part in parts], dtype=np.int64),
        "file_games": np.array([len(games) for games in infos], dtype=np.int64),
        "file_owned": np.array([part.ownership is not None for part in parts]),
        "records": _json_bytes({"infos": infos, "sources": sources}),
        "policy": joined.policy,
        "value": joined.value,
        "margin": joined.margin,
        "searched": joined.searched,
        "counts": np.concatenate(targets),
    }


def _same_examples(rebuilt: ShardArrays, stored: ShardArrays) -> bool:
    """Whether replaying gave back the stored planes, legal moves, game numbers and (where the
    file has it) final ownership."""
    same = (
        np.array_equal(rebuilt.planes, stored.planes)
        and np.array_equal(rebuilt.legal, stored.legal)
        and np.array_equal(rebuilt.game, stored.game)
    )
    if stored.ownership is None:
        return same
    return (
        same
        and rebuilt.ownership is not None
        and np.array_equal(rebuilt.ownership, stored.ownership)
    )


def _save_trainer(source: Path, out: Path, latest: int) -> None:
    """The trainer's checkpoint in float16; without its network when it is a finished
    generation's (the next training starts from the newest model, not from it)."""
    from imago.nn.store import safe_load

    state = safe_load(source)
    if int(state.get("tag", -1)) <= latest:
        state.pop("model", None)
    _save_half(state, out)


def _save_half(source: Path | dict[str, Any], out: Path) -> None:
    """A model file or trainer checkpoint (a path, or its loaded contents) with every
    floating-point tensor in float16."""
    from imago.nn.store import save_tensors_half

    save_tensors_half(source, out)


def _lineages(folder: RunFolder) -> dict[str, Any]:
    """Every generation's lineage: those of a restored run's earlier checkpoint, then the
    generations the folder holds."""
    kept = folder.root / "models" / "lineage.json"
    found: dict[str, Any] = json.loads(kept.read_text(encoding="utf-8")) if kept.is_file() else {}
    for generation in folder.generations():
        found[str(generation)] = folder.lineage(generation)
    return dict(sorted(found.items(), key=lambda item: int(item[0])))


def _file_table(root: Path) -> dict[str, dict[str, Any]]:
    return {
        str(path.relative_to(root)): {"bytes": path.stat().st_size, "sha256": _sha256(path)}
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }


def _replace_folder(staging: Path, target: Path) -> None:
    """Put ``staging`` where ``target`` is, replacing it (two renames)."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        target.rename(old)
    staging.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# -- reading ---------------------------------------------------------------------------------------
def read_manifest(source: str | Path) -> dict[str, Any]:
    """The checkpoint's ``checkpoint.json``, after checking every file it lists."""
    root = Path(source)
    path = root / MANIFEST
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {root} (no {MANIFEST})")
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CheckpointError(f"{path} is unreadable: {error}") from None
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise CheckpointError(f"{path} is not an imago run checkpoint (version {VERSION})")
    for name, entry in manifest["files"].items():
        file = root / name
        if not file.is_file() or _sha256(file) != entry["sha256"]:
            raise CheckpointError(f"{file} is missing or damaged (its SHA-256 differs)")
    return manifest


def restore(source: str | Path, run: str | Path, features: str | None = None) -> CheckpointSummary:
    """Make a run folder at ``run`` (new or empty) from the checkpoint at ``source``: the
    run's settings, promotions, metrics and kept networks, the trainer's state, and the
    training window's example files rebuilt by replaying their games.

    ``features``: input features other than the run's (a set that begins with them, such as
    ``libs8`` for ``legal4``): the examples are made with them, and the next generation is
    the newest one reading them, playing as it did (:func:`imago.rl.stages.grow_features`),
    trained from there with a fresh optimiser."""
    from imago.nn.export import export_onnx

    root = Path(source)
    manifest = read_manifest(root)
    change = features is not None and features != manifest["features"]
    inputs = (
        _new_features(root, manifest, features) if change else feature_set(manifest["features"])
    )
    folder = RunFolder(run)
    settings = dict(manifest["run"])
    settings.pop("format", None)
    settings.pop("version", None)
    if change:
        settings["config"] = {**settings["config"], "features": inputs.name}
    folder.create(settings)
    from imago.rl.stages import load_config

    config = load_config(folder)
    examples = games = 0
    for round_ in manifest["rounds"]:
        for split, holdout in SPLITS.items():
            path = root / "window" / f"{generation_name(round_)}-{split}.npz"
            if path.is_file():
                made = _restore_window(folder, round_, holdout, path, config.spec, inputs)
                games += made[0]
                examples += made[1]
    lineage = json.loads((root / "lineage.json").read_text(encoding="utf-8"))
    (folder.root / "models").mkdir(parents=True, exist_ok=True)
    atomic_write_json(folder.root / "models" / "lineage.json", lineage)
    for generation in manifest["models"]:
        name = generation_name(generation)
        shutil.copyfile(root / "models" / f"{name}.pt", folder.model_path(generation))
        export_onnx(folder.model_path(generation), folder.model_path(generation, ".onnx"))
        folder.write_lineage(generation, lineage[str(generation)])
    if (root / "trainer.pt").is_file() and not change:
        folder.checkpoint_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / "trainer.pt", folder.checkpoint_path)
    shutil.copyfile(root / "metrics.jsonl", folder.metrics_path)
    atomic_write_json(folder.best_path, manifest["best"])
    folder.log("restore", source=str(root), generation=manifest["generation"], games=games)
    generation, promoted = int(manifest["generation"]), int(manifest["promoted"])
    if change:
        from imago.rl.stages import grow_features

        generation = promoted = grow_features(folder, inputs.name)
    return CheckpointSummary(
        folder.root,
        generation,
        promoted,
        tuple(manifest["rounds"]),
        games,
        examples,
        _size(root),
        inputs.name if change else None,
    )


def _new_features(root: Path, manifest: dict[str, Any], name: str | None) -> FeatureSet:
    """The feature set ``name`` that a restored run changes to, after checking (before anything
    is written) that the newest network can grow into it."""
    from imago.nn.models import ModelError, ResNetConfig
    from imago.nn.store import load_model

    try:
        new = feature_set(str(name), manifest["run"]["config"]["spec"]["game"])
    except ValueError as error:
        raise CheckpointError(str(error)) from None
    old = feature_set(manifest["features"])
    if new.features[: len(old.features)] != old.features:
        raise CheckpointError(
            f"the run's networks read {old.name}; {new.name} does not begin with those planes, "
            "so its newest network cannot grow into it"
        )
    newest = root / "models" / f"{generation_name(int(manifest['generation']))}.pt"
    try:
        arch = load_model(newest).spec.arch
    except (ModelError, OSError) as error:
        raise CheckpointError(f"cannot read {newest}: {error}") from None
    if not isinstance(arch, ResNetConfig):
        raise CheckpointError(f"{newest} is not a bBcC network: only those grow new inputs")
    return new


def _restore_window(
    folder: RunFolder,
    round_: int,
    holdout: bool,
    path: Path,
    spec: GameSpec,
    features: FeatureSet,
) -> tuple[int, int]:
    """Write the example files of one window file; returns (games, examples)."""
    from imago.rl.examples import write_sgf

    try:
        with np.load(path, allow_pickle=False) as data:
            window = {key: data[key] for key in data.files}
        records = json.loads(bytes(window["records"]).decode())
    except (OSError, ValueError, KeyError, EOFError) as error:
        raise CheckpointError(f"cannot read {path}: {error}") from None
    target_dir = folder.examples_dir(round_, holdout)
    target_dir.mkdir(parents=True, exist_ok=True)
    row = legal_at = 0
    owned = window.get("file_owned", np.zeros(len(window["names"]), dtype=np.bool_))
    for name, rows, infos, sources, has_ownership in zip(
        window["names"],
        window["file_rows"],
        records["infos"],
        records["sources"],
        owned,
        strict=True,
    ):
        rebuilt = rebuild_examples(infos, spec, features)
        if len(rebuilt) != rows:
            raise CheckpointError(f"{path}: {name} should hold {rows} examples")
        legal = _unpack_legal(rebuilt.legal, spec.size)
        count = int(legal.sum())
        counts = np.zeros(legal.shape, dtype=np.uint16)
        counts[legal] = window["counts"][legal_at : legal_at + count]
        part = slice(row, row + int(rows))
        arrays = ShardArrays(
            rebuilt.planes,
            rebuilt.legal,
            window["policy"][part],
            window["value"][part],
            rebuilt.game,
            policy_from_counts(counts),
            window["margin"][part],
            window["searched"][part],
            rebuilt.ownership if has_ownership else None,
        )
        extras: dict[str, npt.NDArray[Any]] = {
            "infos": _json_bytes(infos),
            "target_counts": counts,
        }
        if sources:
            extras["sources"] = np.array(sources)
        write_shard(target_dir / str(name), arrays, extras)
        if str(name).startswith(CHUNK_PREFIX):
            write_sgf(folder, round_, str(name)[len(CHUNK_PREFIX) : -len(".npz")], infos, spec)
        row += int(rows)
        legal_at += count
    return int(window["file_games"].sum()), row


# -- replaying -------------------------------------------------------------------------------------
def rebuild_examples(
    infos: list[dict[str, Any]], spec: GameSpec, features: FeatureSet
) -> ShardArrays:
    """The feature planes, legal-move masks, game numbers and final ownership of the examples
    of ``infos`` (the game records of one example file, in order), made by replaying each
    game's moves; the other columns are left empty (zeros)."""
    planes: list[npt.NDArray[np.uint8]] = []
    legal: list[npt.NDArray[np.uint8]] = []
    game: list[npt.NDArray[np.int32]] = []
    owned: list[npt.NDArray[np.int8]] = []
    for index, info in enumerate(infos):
        if "example_moves" not in info:
            raise CheckpointError(
                "a game record lacks the moves its examples were taken at (written before "
                "checkpoints existed): let the run play a round of newer games first"
            )
        moves = [int(m) for m in info["example_moves"]]
        if not moves:
            continue
        replayed = _replay(spec, features.history, info["actions"], moves)
        positions = Positions(replayed.boards, replayed.to_play, replayed.legal)
        planes.append(pack_rows(features.encode(positions)))
        legal.append(pack_rows(replayed.legal))
        game.append(np.full(len(moves), index, dtype=np.int32))
        owned.append(ownership_for(replayed.owners, replayed.to_play))
    size = spec.size
    if not planes:
        bits = features.planes * size * size
        planes = [np.zeros((0, (bits + 7) // 8), dtype=np.uint8)]
        legal = [np.zeros((0, (size * size + 8) // 8), dtype=np.uint8)]
        game = [np.zeros(0, dtype=np.int32)]
        owned = [np.zeros((0, size * size), dtype=np.int8)]
    n = sum(len(part) for part in game)
    return ShardArrays(
        np.concatenate(planes),
        np.concatenate(legal),
        np.zeros(n, dtype=np.int16),
        np.zeros(n, dtype=np.int8),
        np.concatenate(game),
        ownership=np.concatenate(owned),
    )


@dataclass(frozen=True, slots=True)
class _Replayed:
    """What replaying a game gives: before each example move its boards (newest first),
    colour to move and legal mask, as self-play's batch saw them; and who owned each point at
    the end (:func:`imago.rl.selfplay.final_owners`)."""

    boards: npt.NDArray[np.int8]
    to_play: npt.NDArray[np.int8]
    legal: npt.NDArray[np.bool_]
    owners: npt.NDArray[np.int8]


def _replay(spec: GameSpec, history: int, actions: list[int], moves: list[int]) -> _Replayed:
    """Replay a game played as ``actions`` (see :class:`_Replayed`), ``moves`` the ascending
    move numbers of its examples."""
    batch = spec.new_batch(1, history, 0)
    size = spec.size
    boards = np.zeros((len(moves), history, size, size), dtype=np.int8)
    to_play = np.zeros(len(moves), dtype=np.int8)
    masks = np.zeros((len(moves), size * size + 1), dtype=np.bool_)
    at = {move: k for k, move in enumerate(moves)}
    if len(at) != len(moves) or any(not 0 <= m <= len(actions) for m in moves):
        raise CheckpointError("a game record names example moves out of order or past its end")
    for number in range(len(actions) + 1):
        k = at.get(number)
        if k is not None:
            boards[k] = batch.boards[0][:history].reshape(history, size, size)
            to_play[k] = batch.to_play()[0]
            masks[k] = batch.legal_mask()[0]
        if number < len(actions):
            batch.step_strict(np.array([actions[number]]))
    return _Replayed(boards, to_play, masks, final_owners(batch, 0))


# -- helpers ---------------------------------------------------------------------------------------
def _unpack_legal(packed: npt.NDArray[np.uint8], size: int) -> npt.NDArray[np.bool_]:
    count = size * size + 1
    return np.unpackbits(packed, axis=1, count=count, bitorder="little").astype(np.bool_)


def _json_bytes(value: Any) -> npt.NDArray[np.uint8]:
    return np.frombuffer(json.dumps(value).encode(), dtype=np.uint8)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _size(root: Path) -> int:
    return sum(path.stat().st_size for path in _files(root))


def _files(root: Path) -> Iterator[Path]:
    return (path for path in root.rglob("*") if path.is_file())
