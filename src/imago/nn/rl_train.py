"""Training a network on self-play examples: a number of steps on a window of recent data.

Self-play examples (:mod:`imago.nn.dataset` shards with a ``target``: the search's move
distribution, and ``value``: the game's result for the player to move) teach the policy head
by cross-entropy with the search's distribution and the value head by squared error with the
result, plus weight decay (AlphaZero's loss). Each step draws a batch uniformly from the
window's positions and shows it through a random board symmetry.

:func:`train_steps` continues from a model file for ``steps`` steps and writes the new model;
the trainer's state (weights, optimiser, the step reached) is checkpointed atomically every
``checkpoint_every`` steps under a *tag* (the generation being trained), so a run killed
mid-way resumes at its last checkpoint with the same batches (they come from
``numpy.random.default_rng([seed, tag, step])``). The optimiser's state carries over from one
generation to the next.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from imago.agents.base import StopFlag
from imago.nn.dataset import Batch, ShardArrays, read_shard, unpack
from imago.nn.supervised import TrainConfig, _amp_dtype, _optimizer, _train_step, lr_at

CHECKPOINT_FORMAT = "imago-rl-trainer"


@dataclass(frozen=True, slots=True)
class StepsConfig:
    """How a generation is trained."""

    steps: int = 1000
    """Steps per generation; with ``samples_per_position``, the most."""
    samples_per_position: float = 0.0
    """When above 0: the steps of a generation are as many as show each position the newest
    round added this many times (``new positions * samples / batch``), at most ``steps``: the
    training keeps pace with the data instead of overfitting a small round."""
    batch_size: int = 256
    optimizer: str = "sgd"
    lr: float = 0.02
    momentum: float = 0.9
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    score_weight: float = 0.0
    """The share of the value target that is the game's final margin (over the board's area)
    instead of its result: ``(1 - w) * result + w * margin``. Above 0, the value head (and so
    the search) prefers the larger of two wins and the smaller of two losses, as Othello
    players count a game; 0 is AlphaZero's win/loss target."""
    search_weight: float = 0.0
    """The share of the value target that is the search's own value of the position (its root
    value for the player to move, in ``[-1, 1]``) instead of the game's: ``(1 - w) * game +
    w * searched``, after ``score_weight`` (the "z and q" average of Lc0 and other AlphaZero
    reimplementations: a game's result is one number shared by all its positions, the search's
    value differs position by position). 0 is AlphaZero's target. From the shipped 8x8 Othello
    network, 0.5 trained a weaker next generation than 0 did (BENCHMARKS.md at commit
    bcd911a, "What a generation learns"): at a Gumbel root the mean over visits is not the
    value of the best move."""
    ownership_weight: float = 0.0
    """The weight of the ownership loss (KataGo's auxiliary target: who owns each point when
    the game ends, 81 targets a 9x9 position where the result gives one). Above 0 the run's
    network gets an ownership head (added to a bootstrap network that lacks one) and learns
    it from the examples' final ownership; KataGo weighs it 1.5. 0: no ownership head."""
    records_share: float = 0.0
    """The share of every batch drawn from real game records (their moves as one-hot targets,
    their results as value targets) instead of the self-play window, while self-play data is
    scarce: it keeps the value head anchored to how real games end and the policy to moves
    people play. 0: self-play only (AlphaZero)."""
    warmup_steps: int = 0
    """Linear warm-up of the learning rate at the start of each generation's steps."""
    schedule: str = "constant"
    """The learning rate over a generation's steps: ``constant`` (a run's generations, each a
    short continuation of the last), or ``cosine`` / ``step`` as supervised training has them
    (a network trained from scratch on a run's examples: :mod:`imago.rl.distill`)."""
    augment: bool = True
    """A random board symmetry per batch."""
    seed: int = 0
    device: str = "auto"
    amp: str = "auto"
    threads: int = 0
    """torch's CPU threads (0: leave them)."""
    checkpoint_every: int = 200

    def __post_init__(self) -> None:
        for name in ("score_weight", "search_weight"):
            weight = getattr(self, name)
            if not 0.0 <= weight <= 1.0:
                raise ValueError(f"{name} is a share, 0 to 1 (got {weight})")
        if self.ownership_weight < 0:
            raise ValueError(f"ownership_weight must be >= 0 (got {self.ownership_weight})")
        if not 0.0 <= self.records_share < 1.0:
            raise ValueError(f"records_share is a share, 0 to below 1 (got {self.records_share})")
        if self.records_share > 0 and (
            self.score_weight or self.search_weight or self.ownership_weight
        ):
            raise ValueError(
                "records_share mixes in real records, which have no final margins, search "
                "values or ownership: with records_share above 0, score_weight, search_weight "
                "and ownership_weight stay 0 (set records_share=0 first)"
            )
        if self.schedule not in ("constant", "cosine", "step"):
            raise ValueError(f"schedule must be constant, cosine or step, not {self.schedule!r}")

    def records_rows(self) -> int:
        """The rows of each batch drawn from real records."""
        return round(self.batch_size * self.records_share)

    def steps_for(self, new_positions: int) -> int:
        """The steps of a generation whose newest round added ``new_positions``."""
        if self.samples_per_position <= 0:
            return self.steps
        wanted = int(np.ceil(new_positions * self.samples_per_position / self.batch_size))
        return max(1, min(self.steps, wanted))

    def train_config(self) -> TrainConfig:
        return TrainConfig(
            optimizer=self.optimizer,
            lr=self.lr,
            momentum=self.momentum,
            weight_decay=self.weight_decay,
            batch_size=self.batch_size,
            value_weight=self.value_weight,
            ownership_weight=self.ownership_weight,
            warmup_steps=self.warmup_steps,
            schedule=self.schedule,
            seed=self.seed,
            device=self.device,
            amp=self.amp,
        )


def check_targets(
    window: ShardArrays, config: StepsConfig, records: ShardArrays | None = None
) -> None:
    """A clear error when ``score_weight``, ``search_weight`` or ``ownership_weight`` asks for
    targets the examples lack, or ``records_share`` for records that are not there."""
    if config.records_share > 0:
        if records is None or not len(records):
            raise ValueError("records_share needs real records to train on (none were given)")
        if records.target is None or window.target is None:
            raise ValueError("records_share needs records with their move targets")
        if records.target.shape[1] != window.target.shape[1]:
            raise ValueError("the records are of another board than the self-play examples")
    wanted = (
        ("score_weight", config.score_weight, window.margin, "final margins"),
        ("search_weight", config.search_weight, window.searched, "the search's values"),
        ("ownership_weight", config.ownership_weight, window.ownership, "final ownership"),
    )
    for name, weight, array, what in wanted:
        if weight > 0 and array is None:
            raise ValueError(
                f"{name} needs examples with {what} (self-play examples written before they "
                "were kept have none: train on newer rounds)"
            )


def with_played_targets(records: ShardArrays, actions: int) -> ShardArrays:
    """Real-record positions with the move played as a one-hot move distribution over
    ``actions`` (so they join self-play examples in one batch)."""
    target = np.zeros((len(records), actions), np.float16)
    target[np.arange(len(records)), records.policy] = 1
    return replace(records, target=target)


def draw_batch(
    rng: np.random.Generator,
    window: ShardArrays,
    config: StepsConfig,
    records: ShardArrays | None = None,
) -> ShardArrays:
    """The rows of one training batch: ``config.records_rows()`` of them from ``records``
    (with their move targets, :func:`with_played_targets`), the rest from the self-play
    ``window``, each part drawn uniformly (with replacement) by ``rng``."""
    from_records = config.records_rows() if records is not None else 0
    rows = np.sort(rng.integers(0, len(window), size=config.batch_size - from_records))
    drawn = window.take(rows)
    if not from_records:
        return drawn
    assert records is not None
    extra = np.sort(rng.integers(0, len(records), size=from_records))
    return ShardArrays.concat([drawn, records.take(extra)])


def value_targets(batch: Batch, score_weight: float, search_weight: float = 0.0) -> Batch:
    """``batch`` with its value target blended with the games' margins (``score_weight``), then
    with the search's values (``search_weight``)."""
    if score_weight <= 0 and search_weight <= 0:
        return batch
    blended = batch.value
    if score_weight > 0:
        assert batch.margin is not None  # check_targets, before training
        blended = (1.0 - score_weight) * blended + score_weight * batch.margin
    if search_weight > 0:
        assert batch.searched is not None  # check_targets, before training
        blended = (1.0 - search_weight) * blended + search_weight * batch.searched
    return replace(batch, value=blended.astype(np.float32))


def load_window(files: Sequence[Path]) -> ShardArrays:
    """The positions of ``files`` (self-play example shards) in memory."""
    if not files:
        raise ValueError("no examples to train on")
    parts = [read_shard(path) for path in files]
    if any(part.target is None for part in parts):
        raise ValueError("self-play training needs examples with move distributions")
    return ShardArrays.concat(parts)


Reporter = Callable[[int, int, float], None]
"""``(step, steps, running loss)`` after each step."""


def train_steps(
    start_model: Path,
    window: ShardArrays,
    out_model: Path,
    checkpoint: Path,
    config: StepsConfig,
    *,
    tag: int,
    on_step: Reporter | None = None,
    stop: StopFlag | None = None,
    ranks: int = 1,
    records: ShardArrays | None = None,
) -> dict[str, Any]:
    """Train the network of ``start_model`` for ``config.steps`` steps on ``window`` and write
    it to ``out_model`` (atomically). Resumes from ``checkpoint`` when it was written for the
    same ``tag``. Returns the training metrics; ``{"stopped": True, ...}`` when ``stop`` was
    set (the checkpoint then holds the progress). ``records``: real-record positions with move
    targets (:func:`with_played_targets`), a ``config.records_share`` of every batch.

    ``ranks > 1``: data-parallel on that many processes (:mod:`imago.nn.parallel`), the same
    model as one process up to floating-point order, the same checkpoints (either resumes the
    other's)."""
    check_targets(window, config, records)
    if config.records_share <= 0:
        records = None
    if ranks > 1:
        from imago.cluster import run_ranks

        if config.batch_size % ranks:
            raise ValueError(f"the batch ({config.batch_size}) does not split over {ranks} ranks")
        args = (start_model, window, out_model, checkpoint, config, tag, records)
        return run_ranks(_rank, ranks, *args, first={"on_step": on_step, "stop": stop})
    return _train(start_model, window, out_model, checkpoint, config, tag, records, on_step, stop)


def _rank(
    rank: int,
    world: int,
    address: str,
    start_model: Path,
    window: ShardArrays,
    out_model: Path,
    checkpoint: Path,
    config: StepsConfig,
    tag: int,
    records: ShardArrays | None,
    on_step: Reporter | None = None,
    stop: StopFlag | None = None,
) -> dict[str, Any]:
    """One rank of a data-parallel :func:`train_steps` (the machine's threads shared)."""
    import torch

    from imago.nn import parallel
    from imago.nn.inference import resolve_device

    threads = torch.get_num_threads()
    if not config.threads:
        torch.set_num_threads(max(1, threads // world))
    device = parallel.rank_device(resolve_device(config.device), rank)
    parallel.join(address, rank, world, device)
    try:
        return _train(
            start_model, window, out_model, checkpoint, config, tag, records, on_step, stop,
            rank=rank, world=world, device=device,
        )  # fmt: skip
    finally:
        parallel.leave()
        torch.set_num_threads(threads)


def _train(
    start_model: Path,
    window: ShardArrays,
    out_model: Path,
    checkpoint: Path,
    config: StepsConfig,
    tag: int,
    records: ShardArrays | None,
    on_step: Reporter | None,
    stop: StopFlag | None,
    *,
    rank: int = 0,
    world: int = 1,
    device: Any = None,
) -> dict[str, Any]:
    import torch

    from imago.nn.inference import resolve_device
    from imago.nn.store import atomic_torch_save, load_model, model_payload, safe_load

    if config.threads:
        torch.set_num_threads(config.threads)
    device = device if device is not None else resolve_device(config.device)
    train_config = config.train_config()
    loaded = load_model(start_model, device=device)
    spec, net = loaded.spec, loaded.net
    if window.planes.shape[1] * 8 < spec.feature_set.planes * spec.size * spec.size:
        raise ValueError("the examples do not hold the model's feature planes")
    if config.ownership_weight > 0 and not net.has_ownership:
        raise ValueError(
            f"{start_model} has no ownership head for ownership_weight to train (a run adds "
            "one to its first network when its settings have ownership_weight above 0)"
        )
    optimizer = _optimizer(net, train_config)
    step = 0
    sums = {
        "loss": 0.0,
        "policy_loss": 0.0,
        "value_loss": 0.0,
        "ownership_loss": 0.0,
        "top1": 0.0,
        "positions": 0,
        "moves": 0,
    }
    if checkpoint.is_file():
        saved = safe_load(checkpoint, device)
        if saved.get("format") == CHECKPOINT_FORMAT:
            if json.loads(saved["spec"]) == spec.to_dict():
                optimizer.load_state_dict(saved["optimizer"])
            if int(saved["tag"]) == tag:
                net.load_state_dict(saved["model"]["state_dict"])
                step = int(saved["step"])
                sums = {"ownership_loss": 0.0, **json.loads(saved["sums"])}
                sums.setdefault("moves", sums["positions"])  # saved before value-only rows
    amp_dtype = _amp_dtype(train_config, device)
    net.train()
    model: Any = net
    if config.ownership_weight > 0:
        from imago.nn.models import WithOwnership

        model = WithOwnership(net)
    if world > 1:
        from imago.nn import parallel

        model = parallel.wrap(model, device)
    started = time.perf_counter()

    def save() -> None:
        if rank != 0:
            return
        atomic_torch_save(
            {
                "format": CHECKPOINT_FORMAT,
                "tag": tag,
                "step": step,
                "spec": json.dumps(spec.to_dict()),
                "model": model_payload(net, spec),
                "optimizer": optimizer.state_dict(),
                "sums": json.dumps(sums),
            },
            checkpoint,
        )

    planes = spec.feature_set.planes
    while step < config.steps:
        stopping = stop is not None and stop.is_set()
        if world > 1:
            from imago.nn import parallel

            stopping = parallel.anyone(stopping)
        if stopping:
            save()
            return {"stopped": True, "step": step}
        rng = np.random.default_rng([config.seed, tag, step])
        drawn = draw_batch(rng, window, config, records)
        rows = drawn.take(np.arange(rank, len(drawn), world))  # this rank's share of the batch
        batch = value_targets(
            unpack(rows, planes, spec.size), config.score_weight, config.search_weight
        )
        sym = int(rng.integers(0, 8)) if config.augment else 0
        for group in optimizer.param_groups:
            group["lr"] = lr_at(train_config, step, step / config.steps)
        losses = _train_step(
            model, optimizer, None, batch, sym, spec.size, device, amp_dtype, train_config
        )
        step += 1
        n = len(rows)
        part = [
            losses.policy_loss * losses.moves,
            losses.value_loss * n,
            losses.ownership_loss * n,
            float(losses.correct),
            float(n),
            float(losses.moves),
        ]
        if world > 1:
            part = parallel.summed(part)
        sums["policy_loss"] += part[0]
        sums["value_loss"] += part[1]
        sums["ownership_loss"] += part[2]
        sums["loss"] += part[0] + config.value_weight * part[1] + config.ownership_weight * part[2]
        sums["top1"] += part[3]
        sums["positions"] += int(part[4])
        sums["moves"] += int(part[5])
        if on_step is not None:
            on_step(step, config.steps, sums["loss"] / sums["positions"])
        if step % config.checkpoint_every == 0 and step < config.steps:
            save()
    if world > 1:
        from imago.nn import parallel

        parallel.plain_batch_norm(net)
    if rank == 0:
        atomic_torch_save(
            model_payload(
                net, spec, {"tag": tag, "steps": config.steps, "score_weight": config.score_weight}
            ),
            Path(out_model),
        )
    save()
    positions = max(1, int(sums["positions"]))
    moves = max(1, int(sums["moves"]))
    return {
        "steps": config.steps,
        "positions": positions,
        "loss": sums["loss"] / positions,
        "policy_loss": sums["policy_loss"] / moves,
        "value_loss": sums["value_loss"] / positions,
        "ownership_loss": sums["ownership_loss"] / positions,
        "move_top1": sums["top1"] / moves,
        "seconds": time.perf_counter() - started,
        "window": len(window),
        "records": 0 if records is None else len(records),
        "records_rows": 0 if records is None else config.records_rows(),
        "ranks": world,
        "config": asdict(config),
    }


def initial_model(
    path: Path,
    *,
    game: str,
    size: int,
    arch: str,
    features: str,
    seed: int,
    start: Path | None = None,
    score_weight: float = 0.0,
    ownership: bool = False,
) -> dict[str, Any]:
    """Write a run's first network to ``path``: the model ``start`` (checked to be a dual-head
    network for ``game`` on a ``size`` board; its values keep the meaning they were trained
    with), or random weights of ``arch`` on ``features`` seeded by ``seed``, marked as valued
    with ``score_weight`` (the run's: its searches value finished games so from the first
    round); with ``ownership``, with an ownership head (a new one, seeded by ``seed``, where
    ``start`` has none). Returns what it is (size name, feature set, parameters)."""
    import torch

    from imago.nn.models import ModelError, ResNetConfig, parameter_count, parse_arch
    from imago.nn.store import ModelSpec, load_model, save_model

    torch.manual_seed(seed)
    if start is not None:
        loaded = load_model(start, game=game, size=size)
        net, spec = loaded.net, loaded.spec
        score_weight = float(loaded.info.get("score_weight", 0.0))
        if ownership and not net.has_ownership:
            net, spec = _with_ownership_head(net, spec)
    else:
        arch_config = parse_arch(arch)
        if ownership and isinstance(arch_config, ResNetConfig):
            arch_config = replace(arch_config, ownership=True)
        spec = ModelSpec(game, size, features, arch_config)
        net = spec.build()
    if ownership and not net.has_ownership:
        raise ModelError(f"{start or arch} cannot have an ownership head (a bBcC network can)")
    if not net.has_value:
        raise ModelError(
            f"{start or arch} has no value head: self-play needs a dual-head network (bBcC)"
        )
    source = str(start) if start else "random"
    save_model(path, net, spec, {"source": source, "seed": seed, "score_weight": score_weight})
    return {"arch": spec.name, "features": spec.features, "parameters": parameter_count(net)}


def _with_ownership_head(net: Any, spec: Any) -> tuple[Any, Any]:
    """``net`` with a new ownership head (its other weights kept) and its spec."""
    from imago.nn.models import ModelError, ResNetConfig
    from imago.nn.store import ModelSpec

    if not isinstance(spec.arch, ResNetConfig):
        raise ModelError(f"a {spec.name} network cannot have an ownership head (bBcC can)")
    grown = ModelSpec(spec.game, spec.size, spec.features, replace(spec.arch, ownership=True))
    bigger = grown.build()
    missing, unexpected = bigger.load_state_dict(net.state_dict(), strict=False)
    if unexpected or any(not key.startswith("ownership_out.") for key in missing):
        raise ModelError(f"the {spec.name} network's weights do not fit one with ownership")
    return bigger, grown


def evaluate_examples(
    model: Path, arrays: ShardArrays, batch_size: int = 1024, device: str = "cpu"
) -> dict[str, float]:
    """How well a model predicts self-play examples: cross-entropy with the search's move
    distribution (``policy_loss``), agreement of its top move with the search's
    (``top1``), both over the examples with a move distribution (``moves`` of them), and
    squared error of its value against the game results (``value_mse``, over all)."""
    import torch
    import torch.nn.functional as F

    from imago.nn.inference import masked_softmax
    from imago.nn.store import load_model
    from imago.nn.supervised import _to_tensors, move_rows

    loaded = load_model(model, device=device)
    net, spec = loaded.net, loaded.spec
    net.eval()
    sums = {"policy_loss": 0.0, "top1": 0.0, "value_mse": 0.0}
    count = moves = 0
    with torch.no_grad():
        for start in range(0, len(arrays), batch_size):
            part = arrays.take(np.arange(start, min(start + batch_size, len(arrays))))
            batch = unpack(part, spec.feature_set.planes, spec.size)
            x, legal, _played, z, target = _to_tensors(batch, 0, spec.size, device)
            logits, value = net(x)
            probs = masked_softmax(logits.float(), legal).clamp_min(1e-12)
            with_moves = move_rows(target)
            sums["policy_loss"] += float(-(target * probs.log()).sum())
            sums["top1"] += float(((probs.argmax(1) == target.argmax(1)) & with_moves).sum())
            if value is not None:
                sums["value_mse"] += float(F.mse_loss(value.float(), z, reduction="sum"))
            count += len(part)
            moves += int(with_moves.sum())
    return {
        "policy_loss": sums["policy_loss"] / max(1, moves),
        "top1": sums["top1"] / max(1, moves),
        "value_mse": sums["value_mse"] / max(1, count),
        "positions": count,
        "moves": moves,
    }
