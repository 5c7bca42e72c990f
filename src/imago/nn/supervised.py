"""Supervised training of a policy (and value) network on a dataset of recorded games.

Torch is imported inside the functions, so importing this module stays cheap; the datasets it
reads (:mod:`imago.nn.dataset`) and the code that builds them (:mod:`imago.train`) are numpy-only.

An output folder holds ``config.json`` (the training settings), ``checkpoint.pt`` (everything
to continue, written atomically during and after each epoch), ``model.pt`` (the latest model,
loadable by :func:`imago.nn.store.load_model` and the ``policy`` agent), ``metrics.jsonl`` (one
line per epoch) and ``curves.png``.

Determinism: the initial weights come from ``seed``; epoch ``e`` visits the training positions
in the order of ``numpy.random.default_rng([seed, e])`` and draws its augmentation symmetries
from the same generator, so a run resumed from a checkpoint (even mid-epoch) continues exactly
as if it had never stopped (same threads, same device).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from imago.core.files import atomic_path, atomic_write_text
from imago.nn.dataset import Batch, Dataset, DatasetError, ShardArrays

CHECKPOINT = "checkpoint.pt"
MODEL = "model.pt"
METRICS = "metrics.jsonl"
CURVES = "curves.png"
CONFIG = "config.json"


class TrainingError(DatasetError):
    """Training cannot start or continue as asked (no data, wrong game, existing run)."""


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """Settings of a supervised run (saved beside its outputs)."""

    model: str = "b6c64"
    optimizer: str = "sgd"
    """``sgd`` (with momentum, Nesterov) or ``adamw``."""
    lr: float = 0.05
    momentum: float = 0.9
    weight_decay: float = 1e-4
    schedule: str = "cosine"
    """``cosine`` (to 0 over the run, after a linear warm-up), ``step`` (x0.1 at 50% and 75%)
    or ``constant``."""
    warmup_steps: int = 200
    batch_size: int = 256
    epochs: int = 10
    epoch_size: int | None = None
    """Training positions per epoch (default: the whole training split)."""
    seed: int = 0
    device: str = "auto"
    amp: str = "auto"
    """Mixed precision: ``auto`` (on for CUDA), ``on`` (bf16 on CPU) or ``off``."""
    augment: bool = True
    """A random board symmetry per batch."""
    value_weight: float = 1.0
    ownership_weight: float = 0.0
    """The weight of the ownership head's loss (squared error over the points, averaged), for
    networks that have one and examples that carry final ownership (self-play's)."""
    val_limit: int | None = 50_000
    """Validation positions evaluated each epoch (a fixed subset; ``None``: all)."""
    threads: int | None = None
    checkpoint_seconds: float = 300.0
    """Also checkpoint mid-epoch this often."""
    time_budget: float | None = None
    """Seconds of training steps (validation excluded): the run ends when they are spent (or
    the epochs are done), and the schedule follows the spent fraction of this time instead of
    the step count. Timing then decides the schedule, so such a run is not bit-reproducible."""

    def __post_init__(self) -> None:
        if self.optimizer not in ("sgd", "adamw"):
            raise ValueError(f"optimizer must be sgd or adamw, not {self.optimizer!r}")
        if self.schedule not in ("cosine", "step", "constant"):
            raise ValueError(f"schedule must be cosine, step or constant, not {self.schedule!r}")
        if self.amp not in ("auto", "on", "off"):
            raise ValueError(f"amp must be auto, on or off, not {self.amp!r}")
        if self.batch_size < 1 or self.epochs < 1 or self.lr <= 0:
            raise ValueError("batch size, epochs and learning rate must be positive")


def warmup_for(config: TrainConfig, total_steps: int | None) -> int:
    """The warm-up steps of a run of ``total_steps`` steps (``None``: unknown, a time budget):
    the configured ones, but at most a quarter of the run, so that a short run still reaches
    its learning rate."""
    if total_steps is None:
        return config.warmup_steps
    return min(config.warmup_steps, total_steps // 4)


def lr_at(config: TrainConfig, step: int, progress: float, warmup: int | None = None) -> float:
    """The learning rate at optimizer step ``step``, ``progress`` (0..1) through the run, after
    ``warmup`` linear warm-up steps (default: the configured ones)."""
    warmup = config.warmup_steps if warmup is None else warmup
    if warmup and step < warmup:
        return config.lr * (step + 1) / warmup
    if config.schedule == "constant":
        return config.lr
    progress = min(1.0, max(0.0, progress))
    if config.schedule == "step":
        return config.lr * (0.1 if progress >= 0.5 else 1.0) * (0.1 if progress >= 0.75 else 1.0)
    return config.lr * 0.5 * (1.0 + math.cos(math.pi * progress))


@dataclass(slots=True)
class EpochStats:
    """Running sums over the batches of an epoch (kept in checkpoints)."""

    positions: int = 0
    loss: float = 0.0
    correct: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class TrainingState:
    """Where a run is: next epoch and step, metrics so far."""

    epoch: int = 0
    step: int = 0
    global_step: int = 0
    elapsed: float = 0.0
    stats: EpochStats = field(default_factory=EpochStats)
    metrics: list[dict[str, Any]] = field(default_factory=list)


Reporter = Callable[[str], None]
StepCallback = Callable[[int, int, int, float], None]
"""``(epoch, step, steps per epoch, running loss)`` after each optimizer step."""


def _validate_data(dataset: Dataset, game: str | None) -> None:
    if game is not None and dataset.game != game:
        raise TrainingError(f"the dataset at {dataset.root} is {dataset.game}, not {game}")
    if dataset.count("train") == 0:
        raise TrainingError(f"the dataset at {dataset.root} has no training positions")


def prepare_output(out: Path, resume: bool) -> None:
    """Refuse to overwrite a run, or to resume one that does not exist (creates nothing)."""
    checkpoint = out / CHECKPOINT
    if resume and not checkpoint.is_file():
        raise TrainingError(f"nothing to resume: no {CHECKPOINT} in {out}")
    if not resume and checkpoint.exists():
        raise TrainingError(f"{out} already holds a run: pass --resume or choose another folder")


class ResumePoint(NamedTuple):
    """Where the run in a folder stands, read from its checkpoint."""

    epoch: int
    """Finished epochs."""
    step: int
    """Steps taken in the unfinished epoch."""
    epochs: int
    finished: bool


def resume_point(out: Path, config: TrainConfig) -> ResumePoint | None:
    """Where the run in ``out`` stands (``None``: no run there); :class:`TrainingError` when it
    was started with other settings than ``config``. ``finished`` is the training loop's own
    stopping rule: every epoch done, or the time budget (``config``'s) spent."""
    from imago.nn.store import safe_load

    if not (out / CHECKPOINT).is_file():
        return None
    saved = safe_load(out / CHECKPOINT, "cpu")
    stored = json.loads(saved["config"])
    wanted = _config_dict(config)
    if stored != wanted:
        changed = ", ".join(
            f"{key} {wanted.get(key)} here, {stored.get(key)} there"
            for key in sorted(set(stored) | set(wanted))
            if stored.get(key) != wanted.get(key)
        )
        raise TrainingError(
            f"{out} already holds a run with other settings ({changed}): give the same "
            "options to continue it (--resume insists on continuing), or choose another folder"
        )
    state = _state_from_json(saved["state"])
    spent = state.elapsed + state.stats.seconds
    finished = state.epoch >= config.epochs or (
        config.time_budget is not None and spent >= config.time_budget
    )
    return ResumePoint(state.epoch, state.step, config.epochs, finished)


def sync_metrics(out: Path) -> bool:
    """Rewrite ``metrics.jsonl`` (and the curves) from the checkpoint when the file lags behind
    it, as after a kill between the two writes; ``True`` when it was rewritten."""
    from imago.nn.store import safe_load

    state = _state_from_json(safe_load(out / CHECKPOINT, "cpu")["state"])
    path = out / METRICS
    written = path.read_text().splitlines() if path.is_file() else []
    if len(written) == len(state.metrics):
        return False
    _write_metrics(out, state.metrics)
    return True


def train_supervised(
    dataset: Dataset,
    out: Path,
    config: TrainConfig,
    *,
    game: str | None = None,
    resume: bool = False,
    report: Reporter | None = None,
    on_step: StepCallback | None = None,
    stop_after_steps: int | None = None,
) -> list[dict[str, Any]]:
    """Train (or continue training) a model; return the metrics of every finished epoch.

    ``stop_after_steps`` stops (after checkpointing) once that many optimizer steps were taken
    in this call, as an interruption would: used to test ``resume``.
    """
    import torch

    from imago.nn.inference import resolve_device
    from imago.nn.models import parse_arch
    from imago.nn.store import ModelSpec, safe_load

    _validate_data(dataset, game)
    prepare_output(out, resume)
    say = report or (lambda _text: None)
    if config.threads:
        torch.set_num_threads(config.threads)
    device = resolve_device(config.device)
    spec = ModelSpec(dataset.game, dataset.size, dataset.features, parse_arch(config.model))
    if spec.feature_set.planes != dataset.planes:
        raise TrainingError("the dataset's planes do not match its feature set")

    torch.manual_seed(config.seed)
    net = spec.build().to(device)
    net = net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    optimizer = _optimizer(net, config)
    state = TrainingState()
    if resume:
        saved = safe_load(out / CHECKPOINT, device)
        stored = json.loads(saved["config"])
        if stored != _config_dict(config):
            raise TrainingError(f"{out} was trained with other settings: {stored}")
        net.load_state_dict(saved["model"]["state_dict"])
        optimizer.load_state_dict(saved["optimizer"])
        state = _state_from_json(saved["state"])
        sync_metrics(out)
        left = config.epochs - state.epoch
        say(
            f"resuming at epoch {state.epoch + 1} of {config.epochs}, step {state.step}: "
            f"{state.epoch} finished, {left} left"
        )
    else:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out / CONFIG, json.dumps(_config_dict(config), indent=1))

    train = dataset.load("train")
    val = _validation_subset(dataset, config)
    epoch_size = min(config.epoch_size or len(train), len(train))
    steps_per_epoch = max(1, epoch_size // config.batch_size)
    amp_dtype = _amp_dtype(config, device)
    scaler = torch.amp.GradScaler("cuda") if amp_dtype == torch.float16 else None
    say(
        f"{spec.name} ({sum(p.numel() for p in net.parameters()):,} parameters) on {device}, "
        f"{len(train):,} training positions, {steps_per_epoch} steps x {config.epochs} epochs"
    )
    total_steps = None if config.time_budget else steps_per_epoch * config.epochs
    warmup = warmup_for(config, total_steps)
    if warmup < config.warmup_steps:
        say(
            f"warm-up shortened from {config.warmup_steps} to {warmup} steps (a quarter of "
            f"this {total_steps}-step run), so that the run reaches its learning rate"
        )
    taken = 0
    last_checkpoint = time.perf_counter()

    def checkpoint() -> None:
        _save_checkpoint(out, net, spec, optimizer, config, state)

    def progress() -> float:
        return _progress(state, config, steps_per_epoch)

    while state.epoch < config.epochs and progress() < 1.0:
        rng = np.random.default_rng([config.seed, state.epoch])
        order = rng.permutation(len(train))[: steps_per_epoch * config.batch_size]
        symmetries = rng.integers(0, 8, size=steps_per_epoch)
        net.train()
        while state.step < steps_per_epoch and progress() < 1.0:
            started = time.perf_counter()
            rows = order[state.step * config.batch_size : (state.step + 1) * config.batch_size]
            batch = dataset.unpack(train.take(np.sort(rows)))
            sym = int(symmetries[state.step]) if config.augment else 0
            lr = lr_at(config, state.global_step, progress(), warmup)
            for group in optimizer.param_groups:
                group["lr"] = lr
            losses = _train_step(
                net, optimizer, scaler, batch, sym, spec.size, device, amp_dtype, config
            )
            state.stats.positions += len(rows)
            state.stats.loss += losses.policy_loss * len(rows)
            state.stats.correct += losses.correct
            state.stats.seconds += time.perf_counter() - started
            state.step += 1
            state.global_step += 1
            taken += 1
            if on_step is not None:
                on_step(
                    state.epoch,
                    state.step,
                    steps_per_epoch,
                    state.stats.loss / state.stats.positions,
                )
            interrupted = stop_after_steps is not None and taken >= stop_after_steps
            if interrupted or time.perf_counter() - last_checkpoint > config.checkpoint_seconds:
                checkpoint()
                last_checkpoint = time.perf_counter()
            if interrupted:
                say(f"stopped after {taken} steps (epoch {state.epoch + 1}, step {state.step})")
                return state.metrics
        row = _finish_epoch(net, dataset, val, spec, device, state, lr, config)
        state.metrics.append(row)
        state.epoch += 1
        state.step = 0
        state.stats = EpochStats()
        checkpoint()
        last_checkpoint = time.perf_counter()
        _write_metrics(out, state.metrics)
        say(_format_row(row))
    return state.metrics


def _progress(state: TrainingState, config: TrainConfig, steps_per_epoch: int) -> float:
    """How far through the run: by steps, or by spent time under a time budget."""
    by_steps = state.global_step / (steps_per_epoch * config.epochs)
    if config.time_budget is None:
        return by_steps
    return max(by_steps, (state.elapsed + state.stats.seconds) / config.time_budget)


def _config_dict(config: TrainConfig) -> dict[str, Any]:
    data = asdict(config)
    for volatile in ("device", "threads", "checkpoint_seconds", "time_budget"):
        data.pop(volatile)
    return data


def _optimizer(net: Any, config: TrainConfig) -> Any:
    import torch

    decay = [p for n, p in net.named_parameters() if p.ndim > 1]
    no_decay = [p for n, p in net.named_parameters() if p.ndim <= 1]
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    if config.optimizer == "adamw":
        return torch.optim.AdamW(groups, lr=config.lr)
    return torch.optim.SGD(groups, lr=config.lr, momentum=config.momentum, nesterov=True)


def _amp_dtype(config: TrainConfig, device: Any) -> Any:
    import torch

    if config.amp == "off" or (config.amp == "auto" and device.type != "cuda"):
        return None
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.bfloat16


def _to_tensors(batch: Batch, sym: int, size: int, device: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``(planes, legal, move played, value, move distribution or None)`` as tensors on
    ``device``, seen through board symmetry ``sym``."""
    import torch

    from imago.games.symmetry import gather_table, image_table

    planes, legal, policy, target = batch.planes, batch.legal, batch.policy, batch.target
    if sym:
        source = gather_table(sym, size)
        n, c = planes.shape[:2]
        planes = planes.reshape(n, c, size * size)[..., source[:-1]].reshape(planes.shape)
        legal = legal[..., source]
        policy = image_table(sym, size)[policy]
        if target is not None:
            target = target[..., source]
    x = torch.from_numpy(np.ascontiguousarray(planes)).to(device)
    return (
        x.contiguous(memory_format=torch.channels_last),
        torch.from_numpy(np.ascontiguousarray(legal)).to(device),
        torch.from_numpy(np.ascontiguousarray(policy)).to(device),
        torch.from_numpy(batch.value).to(device),
        None if target is None else torch.from_numpy(np.ascontiguousarray(target)).to(device),
    )


class StepLosses(NamedTuple):
    """What one optimiser step measured."""

    policy_loss: float
    """The mean over the rows with a move target (``moves``)."""
    correct: int
    """Rows with a move target whose most likely move (by the network) is the move played."""
    value_loss: float
    ownership_loss: float
    moves: int
    """Rows with a move target: all but value-only examples (a move distribution of zeros)."""


def _train_step(
    net: Any,
    optimizer: Any,
    scaler: Any,
    batch: Batch,
    sym: int,
    size: int,
    device: Any,
    amp_dtype: Any,
    config: TrainConfig,
) -> StepLosses:
    """One optimiser step. ``net`` answers ``(logits, value)``, or ``(logits, value,
    ownership)`` (:class:`imago.nn.models.WithOwnership`), whose ownership then learns the
    batch's (``config.ownership_weight``)."""
    import torch
    import torch.nn.functional as F

    x, _legal, target, z, distribution = _to_tensors(batch, sym, size, device)
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(
        device.type, dtype=amp_dtype or torch.float32, enabled=amp_dtype is not None
    ):
        outputs = net(x)
    logits, value = outputs[0].float(), outputs[1]
    if distribution is None:
        loss = F.cross_entropy(logits, target)
        with_moves = torch.ones_like(target, dtype=torch.bool)
    else:  # cross-entropy with the search's move distribution, over the rows that have one
        loss = distribution_loss(distribution, logits)
        with_moves = move_rows(distribution)
    total = loss
    value_loss = torch.zeros(())
    if value is not None:
        value_loss = F.mse_loss(value.float(), z)
        total = loss + config.value_weight * value_loss
    ownership_loss = torch.zeros(())
    if len(outputs) > 2:
        owned = _ownership_tensor(batch, sym, size, device)
        ownership_loss = F.mse_loss(outputs[2].float(), owned)
        total = total + config.ownership_weight * ownership_loss
    if scaler is not None:
        scaler.scale(total).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        total.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
    correct = int(((logits.argmax(dim=1) == target) & with_moves).sum())
    return StepLosses(
        float(loss.detach()),
        correct,
        float(value_loss.detach()),
        float(ownership_loss.detach()),
        int(with_moves.sum()),
    )


def move_rows(distribution: Any) -> Any:
    """Which rows of move distributions (a ``(B, actions)`` tensor) have one: a row of zeros
    is a value-only example (:attr:`imago.rl.selfplay.SelfPlayConfig.value_only_empties`)."""
    return distribution.sum(dim=1) > 0


def distribution_loss(distribution: Any, logits: Any) -> Any:
    """The mean cross-entropy of ``logits`` with the move distributions ``distribution``
    (``(B, actions)`` tensors), over the rows with a distribution: a row of zeros is a
    value-only example (:attr:`imago.rl.selfplay.SelfPlayConfig.value_only_empties`), which
    takes no part in it."""
    import torch.nn.functional as F

    per_row = -(distribution * F.log_softmax(logits, dim=1)).sum(dim=1)
    return per_row.sum() / move_rows(distribution).sum().clamp_min(1)


def _ownership_tensor(batch: Batch, sym: int, size: int, device: Any) -> Any:
    """The batch's final ownership ``(B, N*N)``, seen through board symmetry ``sym``."""
    import torch

    from imago.games.symmetry import gather_table

    if batch.ownership is None:
        raise ValueError("the examples carry no final ownership to teach the ownership head")
    owned = batch.ownership
    if sym:
        owned = owned[..., gather_table(sym, size)[:-1]]
    return torch.from_numpy(np.ascontiguousarray(owned)).to(device)


def _validation_subset(dataset: Dataset, config: TrainConfig) -> ShardArrays | None:
    if dataset.count("val") == 0:
        return None
    val = dataset.load("val")
    if config.val_limit is not None and len(val) > config.val_limit:
        rows = np.random.default_rng([config.seed, 999_983]).permutation(len(val))
        val = val.take(np.sort(rows[: config.val_limit]))
    return val


def evaluate_arrays(
    net: Any,
    dataset: Dataset,
    arrays: ShardArrays,
    device: Any,
    batch_size: int = 1024,
    symmetries: int = 1,
) -> dict[str, float]:
    """Policy loss, masked and raw top-1, masked top-3 (and the value's MSE and calibration
    error, :func:`calibration_error`) over ``arrays``.

    With ``symmetries`` > 1 the network's probabilities (and values) are averaged over that
    many board symmetries first, as the ``policy`` agent's ``symmetries`` option does.
    """
    import torch
    import torch.nn.functional as F

    from imago.games.symmetry import gather_table, image_table
    from imago.nn.inference import masked_softmax

    net.eval()
    size = dataset.size
    sums = {"loss": 0.0, "top1": 0.0, "top1_raw": 0.0, "top3": 0.0, "value_mse": 0.0}
    count = 0
    predicted: list[npt.NDArray[np.float32]] = []
    results: list[npt.NDArray[np.float32]] = []
    with torch.no_grad():
        for start in range(0, len(arrays), batch_size):
            part = arrays.take(np.arange(start, min(start + batch_size, len(arrays))))
            x, legal, target, z, _ = _to_tensors(dataset.unpack(part), 0, size, device)
            raw = torch.zeros(len(part), size * size + 1, device=x.device)
            masked = torch.zeros_like(raw)
            value_sum = torch.zeros(len(part), device=x.device)
            has_value = False
            for sym in range(symmetries):
                source = torch.tensor(gather_table(sym, size)[:-1], device=x.device)
                back = torch.tensor(image_table(sym, size), device=x.device)
                logits, value = net(x.flatten(2)[..., source].reshape(x.shape))
                logits = logits.float()[..., back]
                raw += torch.softmax(logits, dim=1)
                masked += masked_softmax(logits, legal)
                if value is not None:
                    has_value = True
                    value_sum += value.float()
            raw /= symmetries
            masked /= symmetries
            picked = raw.gather(1, target[:, None]).clamp_min(1e-12)
            sums["loss"] += float(-picked.log().sum())
            sums["top1_raw"] += float((raw.argmax(1) == target).sum())
            top3 = masked.topk(min(3, masked.shape[1]), dim=1).indices
            sums["top1"] += float((top3[:, 0] == target).sum())
            sums["top3"] += float((top3 == target[:, None]).any(dim=1).sum())
            if has_value:
                mean_value = value_sum / symmetries
                sums["value_mse"] += float(F.mse_loss(mean_value, z, reduction="sum"))
                predicted.append(mean_value.cpu().numpy())
                results.append(z.cpu().numpy())
            count += len(part)
    result = {key: total / max(1, count) for key, total in sums.items()}
    if predicted:
        result["value_ece"] = calibration_error(np.concatenate(predicted), np.concatenate(results))
    if not getattr(net, "has_value", False):
        result.pop("value_mse")
    return result


def calibration_error(
    values: npt.NDArray[np.floating[Any]], results: npt.NDArray[np.floating[Any]], bins: int = 10
) -> float:
    """The expected calibration error of a value head: predicted win probabilities
    (``(value + 1) / 2``) in ``bins`` equal bins, each bin's gap between its mean prediction and
    the share of its games won (a draw half), weighted by the bin's positions. 0 for a value
    head whose 70 % are won 70 % of the time."""
    p = (np.asarray(values, dtype=np.float64) + 1.0) / 2.0
    won = (np.asarray(results, dtype=np.float64) + 1.0) / 2.0
    if len(p) == 0:
        return 0.0
    index = np.minimum((p * bins).astype(np.int64), bins - 1)
    total = 0.0
    for b in range(bins):
        chosen = index == b
        if chosen.any():
            total += chosen.sum() * abs(p[chosen].mean() - won[chosen].mean())
    return float(total / len(p))


def evaluate_model(
    model: Path,
    dataset: Dataset,
    split: str = "val",
    *,
    limit: int | None = None,
    device: str = "auto",
    threads: int | None = None,
    symmetries: int = 1,
) -> dict[str, float]:
    """Evaluate a saved model on a split of a dataset (the whole split unless ``limit``)."""
    import torch

    from imago.nn.inference import resolve_device
    from imago.nn.store import load_model

    if threads:
        torch.set_num_threads(threads)
    target = resolve_device(device)
    loaded = load_model(model, game=dataset.game, size=dataset.size, device=target)
    if loaded.spec.features != dataset.features:
        raise TrainingError(
            f"the model reads {loaded.spec.features} planes, the dataset holds {dataset.features}"
        )
    arrays = dataset.load(split)
    if limit is not None and len(arrays) > limit:
        arrays = arrays.take(np.arange(limit))
    result = evaluate_arrays(loaded.net, dataset, arrays, target, symmetries=symmetries)
    result["positions"] = float(len(arrays))
    return result


def _finish_epoch(
    net: Any,
    dataset: Dataset,
    val: ShardArrays | None,
    spec: Any,
    device: Any,
    state: TrainingState,
    lr: float,
    config: TrainConfig,
) -> dict[str, Any]:
    stats = state.stats
    state.elapsed += stats.seconds
    row: dict[str, Any] = {
        "epoch": state.epoch + 1,
        "step": state.global_step,
        "lr": lr,
        "train_loss": stats.loss / max(1, stats.positions),
        "train_top1": stats.correct / max(1, stats.positions),
        "train_positions_per_s": stats.positions / max(1e-9, stats.seconds),
        "train_seconds": state.elapsed,
    }
    if val is not None:
        measured = evaluate_arrays(net, dataset, val, device)
        row.update({f"val_{key}": value for key, value in measured.items()})
        row["val_positions"] = len(val)
    return row


def _format_row(row: dict[str, Any]) -> str:
    parts = [f"epoch {row['epoch']}"]
    for key in ("train_loss", "train_top1", "val_loss", "val_top1", "val_top3", "val_value_mse"):
        if key in row:
            parts.append(f"{key} {row[key]:.4f}")
    parts.append(f"{row['train_positions_per_s']:.0f} pos/s")
    return "  ".join(parts)


def _state_to_json(state: TrainingState) -> str:
    return json.dumps(
        {
            "epoch": state.epoch,
            "step": state.step,
            "global_step": state.global_step,
            "elapsed": state.elapsed,
            "stats": state.stats.to_dict(),
            "metrics": state.metrics,
        }
    )


def _state_from_json(text: str) -> TrainingState:
    data = json.loads(text)
    return TrainingState(
        data["epoch"],
        data["step"],
        data["global_step"],
        data["elapsed"],
        EpochStats(**data["stats"]),
        data["metrics"],
    )


def _save_checkpoint(
    out: Path, net: Any, spec: Any, optimizer: Any, config: TrainConfig, state: TrainingState
) -> None:
    from imago.nn.store import atomic_torch_save, model_payload

    info = {"epochs": state.epoch, "metrics": state.metrics[-1] if state.metrics else None}
    payload = model_payload(net, spec, info)
    if state.step == 0 and state.epoch > 0:
        # The model first: a kill between the two writes repeats the epoch (deterministically)
        # instead of leaving a finished checkpoint beside the previous epoch's model.
        atomic_torch_save(payload, out / MODEL)
    atomic_torch_save(
        {
            "format": "imago-checkpoint",
            "model": payload,
            "optimizer": optimizer.state_dict(),
            "config": json.dumps(_config_dict(config)),
            "state": _state_to_json(state),
        },
        out / CHECKPOINT,
    )


def _write_metrics(out: Path, metrics: list[dict[str, Any]]) -> None:
    lines = "".join(json.dumps(row) + "\n" for row in metrics)
    atomic_write_text(out / METRICS, lines)
    plot_curves(metrics, out / CURVES)


def plot_curves(metrics: list[dict[str, Any]], path: Path) -> bool:
    """Loss and accuracy per epoch as a PNG; ``False`` when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    epochs = [row["epoch"] for row in metrics]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for key in ("train_loss", "val_loss", "val_value_mse"):
        if all(key in row for row in metrics):
            left.plot(epochs, [row[key] for row in metrics], marker="o", label=key)
    left.set_xlabel("epoch")
    left.set_title("loss")
    left.legend()
    for key in ("train_top1", "val_top1", "val_top1_raw", "val_top3"):
        if all(key in row for row in metrics):
            right.plot(epochs, [row[key] for row in metrics], marker="o", label=key)
    right.set_xlabel("epoch")
    right.set_title("move prediction accuracy")
    right.legend()
    figure.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        figure.savefig(tmp, dpi=80)
    plt.close(figure)
    return True
