"""A residual network grown into a larger one that plays exactly as it did.

A run whose network has stopped learning may lack capacity; a larger network trained from
random weights (:mod:`imago.rl.distill`) starts far below it. Growing keeps what was learnt:
the larger network computes the same policy and value as the smaller one, and training then
uses the new capacity. Two function-preserving moves (Chen, Goodfellow and Shlens, "Net2Net",
2016; the zero-initialised residual branch of Goyal et al., 2017):

* **wider** (more channels, ``c48 -> c64``): every old weight is kept; the weights *into* old
  channels *from* new ones are zero, so nothing old sees the new channels; the weights *into*
  the new channels are fresh random ones, so they carry signals at once and their outgoing
  weights (zero, trainable) get gradients;
* **deeper** (more blocks, ``b5 -> b6``): new blocks are appended after the old ones with the
  last batch norm's scale and shift at zero, so each adds nothing to the residual stream
  (``relu(x + 0) = x`` on the non-negative output of a block) until training moves them.

* **more inputs** (``legal4 -> libs8``): a feature set that begins with the old one's planes
  adds planes after them; the first convolution's weights from the new planes start at zero,
  so the network sees them only as training gives them weight.

The game, board and heads stay as they are.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from imago.nn.features import FeatureSet
from imago.nn.models import ModelError, Net, ResNetConfig, parse_arch


def grown_config(config: Any, target: str) -> ResNetConfig:
    """The config of ``config``'s network grown to ``target`` (``bBcC``): at least as many
    blocks and channels, the same kind (pooled heads or not) and heads. :class:`ModelError`
    for anything else."""
    if not isinstance(config, ResNetConfig):
        raise ModelError("only residual networks (bBcC) grow")
    wanted = parse_arch(target)
    if not isinstance(wanted, ResNetConfig) or wanted.pool != config.pool:
        kind = "bBcC-pool" if config.pool else "bBcC"
        raise ModelError(f"a {kind} network grows into a {kind} one, not {target!r}")
    if wanted.blocks < config.blocks or wanted.filters < config.filters:
        raise ModelError(
            f"growing keeps every block and channel: b{config.blocks}c{config.filters} cannot "
            f"become {target!r}"
        )
    return replace(config, blocks=wanted.blocks, filters=wanted.filters)


def grow(net: Net, config: ResNetConfig, target: str, seed: int = 0) -> tuple[Net, ResNetConfig]:
    """A network of ``target``'s size that plays as ``net`` (of ``config``) does, its new
    weights drawn with ``seed``; and its config."""
    import torch

    from imago.nn.models import build_net

    bigger = grown_config(config, target)
    torch.manual_seed(seed)
    new = build_net(bigger, net.planes, net.size)
    old = net.state_dict()
    state = new.state_dict()
    for name, tensor in state.items():
        if name in old:
            state[name] = _widened(old[name], tensor)
    for index in range(config.blocks, bigger.blocks):
        for part in ("weight", "bias"):
            state[f"blocks.{index}.bn2.{part}"].zero_()
    new.load_state_dict(state)
    return new, bigger


def _widened(old: Any, fresh: Any) -> Any:
    """``fresh`` (a tensor of the grown network) with ``old`` in its leading corner and, for a
    weight, zeros from the new input channels into the old output channels."""
    if old.shape == fresh.shape:
        return old.clone()
    if old.dim() != fresh.dim() or any(o > f for o, f in zip(old.shape, fresh.shape, strict=True)):
        raise ModelError(f"cannot grow a tensor of shape {tuple(old.shape)} into {fresh.shape}")
    out = fresh.clone()
    out[tuple(slice(0, size) for size in old.shape)] = old
    if out.dim() >= 2:
        out[: old.shape[0], old.shape[1] :] = 0
    return out


def grow_input(net: Net, config: ResNetConfig, old: FeatureSet, new: FeatureSet) -> Net:
    """A network that reads ``new``'s planes and plays as ``net`` (which reads ``old``'s)
    did; ``new`` must begin with ``old``'s features, in order (:class:`ModelError` if not)."""
    from imago.nn.models import build_net

    if new.features[: len(old.features)] != old.features:
        raise ModelError(
            f"the {new.name} features do not begin with the {old.name} ones: a network reading "
            f"{old.name} cannot grow into one reading {new.name}"
        )
    if net.planes != old.planes:
        raise ModelError(f"the network reads {net.planes} planes, not {old.name}'s {old.planes}")
    wider = build_net(config, new.planes, net.size)
    old_state = net.state_dict()
    state = wider.state_dict()
    for name, tensor in state.items():
        state[name] = _widened(old_state[name], tensor)
    wider.load_state_dict(state)
    return wider
