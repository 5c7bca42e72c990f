"""Data-parallel training (PyTorch DDP): the pieces that make N processes train as one.

Each rank of a job (:func:`imago.cluster.run_ranks` starts them: this process and N - 1
local processes; ``torchrun`` sets the same up from its environment) takes its share of each
batch, and DDP averages the gradients, so the step is the one-process step on the whole batch.
Two things keep it the *same* model, up to floating-point order:

* batch normalisation uses the statistics of the whole batch, not of the rank's share: torch's
  ``SyncBatchNorm`` on GPUs, and on CPUs (which it does not support) :class:`CpuSyncBatchNorm`,
  which sums the per-channel sums and squares over the ranks with a differentiable all-reduce;
* every rank draws the same rows and symmetry (the same generator), and takes every
  ``world``-th row of them; the metrics are summed over the ranks.

Backends: ``gloo`` on CPUs, ``nccl`` on GPUs (rank ``r`` on ``cuda:r``).
"""

from __future__ import annotations

import datetime
from typing import Any

import torch
from torch import nn

TIMEOUT = datetime.timedelta(minutes=10)
"""How long a rank waits for the others at a collective before giving up."""


class CpuSyncBatchNorm(nn.BatchNorm2d):
    """``BatchNorm2d`` normalising by the statistics of the batch over all ranks (in
    training), for CPUs; the same parameters and buffers, so its state is a
    ``BatchNorm2d``'s."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or not torch.distributed.is_initialized():
            return super().forward(x)
        from torch.distributed._functional_collectives import all_reduce  # differentiable

        channels = x.shape[1]
        local = torch.cat(
            [
                x.sum(dim=(0, 2, 3)),
                (x * x).sum(dim=(0, 2, 3)),
                x.new_tensor([x.numel() / channels]),
            ]
        )
        total: torch.Tensor = all_reduce(local, "sum", torch.distributed.group.WORLD)  # type: ignore[no-untyped-call,arg-type]
        count = total[-1]
        mean = total[:channels] / count
        var = (total[channels : 2 * channels] / count - mean * mean).clamp_min(0.0)
        self._track(mean.detach(), var.detach(), float(count.detach()))
        shape = (1, channels, 1, 1)
        y = (x - mean.view(shape)) * torch.rsqrt(var + self.eps).view(shape)
        if self.affine:
            y = y * self.weight.view(shape) + self.bias.view(shape)
        return y  # type: ignore[no-any-return]

    def _track(self, mean: torch.Tensor, var: torch.Tensor, count: float) -> None:
        if not self.track_running_stats or self.running_mean is None:
            return
        assert self.running_var is not None and self.num_batches_tracked is not None
        with torch.no_grad():
            self.num_batches_tracked.add_(1)
            factor = (
                1.0 / float(self.num_batches_tracked)
                if self.momentum is None
                else float(self.momentum)
            )
            unbiased = var * count / max(count - 1.0, 1.0)
            self.running_mean.mul_(1 - factor).add_(mean, alpha=factor)
            self.running_var.mul_(1 - factor).add_(unbiased, alpha=factor)


def sync_batch_norm(net: nn.Module, device: torch.device) -> nn.Module:
    """``net`` with its batch normalisations over all ranks' batches (in place on CPU)."""
    if device.type != "cpu":
        synced: nn.Module = nn.SyncBatchNorm.convert_sync_batchnorm(net)  # type: ignore[no-untyped-call]
        return synced
    for module in net.modules():
        if type(module) is nn.BatchNorm2d:
            module.__class__ = CpuSyncBatchNorm
    return net


def plain_batch_norm(net: nn.Module) -> None:
    """Undo :func:`sync_batch_norm` on CPU (the saved model is the one-process model)."""
    for module in net.modules():
        if type(module) is CpuSyncBatchNorm:
            module.__class__ = nn.BatchNorm2d  # type: ignore[assignment]


def rank_device(device: torch.device, rank: int) -> torch.device:
    """The device of rank ``rank``: its own GPU, or the CPU."""
    return torch.device("cuda", rank) if device.type == "cuda" else device


def join(address: str, rank: int, world: int, device: torch.device) -> None:
    """Join the job's process group (gloo on CPU, nccl on GPUs)."""
    backend = "nccl" if device.type == "cuda" else "gloo"
    torch.distributed.init_process_group(
        backend, init_method=address, rank=rank, world_size=world, timeout=TIMEOUT
    )


def leave() -> None:
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


def wrap(net: nn.Module, device: torch.device) -> Any:
    """``net`` under DDP (its batch normalisations synchronised)."""
    from torch.nn.parallel import DistributedDataParallel

    net = sync_batch_norm(net, device)
    ids = [device.index] if device.type == "cuda" else None
    return DistributedDataParallel(net, device_ids=ids)


def summed(values: list[float]) -> list[float]:
    """``values`` summed over the ranks (as float64)."""
    tensor = torch.tensor(values, dtype=torch.float64)
    torch.distributed.all_reduce(tensor)
    return [float(v) for v in tensor]


def anyone(flag: bool) -> bool:
    """Whether any rank's ``flag`` is set (rank 0's stop reaches every rank)."""
    tensor = torch.tensor([1.0 if flag else 0.0])
    torch.distributed.all_reduce(tensor, op=torch.distributed.ReduceOp.MAX)
    return bool(tensor.item() > 0)
