"""The networks, built from typed configs and named by size (KataGo style: ``b6c64``).

====================  ============================================================================
name                  network
====================  ============================================================================
``dense``             design 000's dense network: two dense layers of 81 units applied to each
``dense-h81``         point's input vector (as Keras applies ``Dense`` to a 9x9x2 tensor), flatten,
                      a dense layer to the ``N*N + 1`` moves.
``convpool``          design 000's convolutional network: two (3x3 convolution + 2x2 max-pool)
``convpool-c32c64``   pairs, flatten, a dense layer to the moves.
``cnn``               design 004's policy CNN: 12 convolutions of 128 3x3 filters with ReLU, a 1x1
``l12c128``           convolution to one plane, a learned bias per square, softmax (``lLcF`` for
                      other depths and widths).
``b6c64`` ...         MiniGo's dual-head residual network (designs 001, 003): a 3x3 convolution,
                      ``b`` residual blocks of ``c`` filters, a policy head (1x1 convolution to 2
                      planes, dense to ``N*N + 1``) and a value head (1x1 convolution to 1 plane,
                      dense 64, dense 1, tanh).
``b6c64-pool`` ...    the same trunk with fully convolutional heads and global pooling (as
                      KataGo's): a 1x1 convolution gives each point's logit, biased by the
                      board's pooled features; pass and the value come from the pooled features
                      (mean, mean scaled by the board's width, max). No layer depends on the board
                      size, so one network plays every size (trained on 19x19, it plays 13x13).
====================  ============================================================================

Every network maps ``(batch, planes, N, N)`` float inputs to ``(policy_logits, value)``: logits
over the ``N*N + 1`` actions (pass last) and, for the dual-head network, a value in ``[-1, 1]``
for the player to move (``None`` for the policy-only networks).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn

from imago.core.errors import ImagoError


class ModelError(ImagoError, ValueError):
    """A model that cannot be built, loaded or used as asked (bad name, wrong game or size)."""


@dataclass(frozen=True, slots=True)
class DenseConfig:
    """Design 000's dense network: per-point dense layers, flatten, dense to the moves."""

    hidden: int = 81
    layers: int = 2
    kind: str = "dense"


@dataclass(frozen=True, slots=True)
class ConvPoolConfig:
    """Design 000's convolutional network: (conv 3x3 + max-pool 2x2) per filter count."""

    filters: tuple[int, ...] = (32, 64)
    kind: str = "convpool"


@dataclass(frozen=True, slots=True)
class PolicyCNNConfig:
    """Design 004's policy CNN: ``layers`` 3x3 convolutions of ``filters``, 1x1, bias, softmax."""

    layers: int = 12
    filters: int = 128
    kind: str = "cnn"


@dataclass(frozen=True, slots=True)
class ResNetConfig:
    """MiniGo's dual-head residual network (``b{blocks}c{filters}``)."""

    blocks: int = 6
    filters: int = 64
    value_hidden: int = 64
    pool: bool = False
    """Fully convolutional heads with global pooling: the network plays any board size."""
    head_filters: int = 32
    """Channels of the pooled heads (``pool`` only)."""
    ownership: bool = False
    """An ownership head (KataGo's auxiliary target): who owns each point when the game ends,
    in ``[-1, 1]`` for the player to move. Only training reads it (:class:`WithOwnership`);
    playing asks for the policy and the value alone."""
    kind: str = "resnet"


ArchConfig = DenseConfig | ConvPoolConfig | PolicyCNNConfig | ResNetConfig

_KINDS: dict[str, type[Any]] = {
    "dense": DenseConfig,
    "convpool": ConvPoolConfig,
    "cnn": PolicyCNNConfig,
    "resnet": ResNetConfig,
}


def arch_name(config: ArchConfig) -> str:
    """The canonical size name of a config (``b6c64``, ``l12c128``, ``dense-h81``, ...)."""
    if isinstance(config, ResNetConfig):
        return f"b{config.blocks}c{config.filters}" + ("-pool" if config.pool else "")
    if isinstance(config, PolicyCNNConfig):
        return f"l{config.layers}c{config.filters}"
    if isinstance(config, DenseConfig):
        return f"dense-h{config.hidden}" + ("" if config.layers == 2 else f"x{config.layers}")
    return "convpool-" + "".join(f"c{f}" for f in config.filters)


PRESETS: dict[str, ArchConfig] = {
    "dense": DenseConfig(),
    "convpool": ConvPoolConfig(),
    "cnn": PolicyCNNConfig(),
    "minigo9": ResNetConfig(9, 32),
    "alphazero001": ResNetConfig(9, 64),
}
"""Named designs: 000's two networks, 004's CNN, MiniGo's 9x9 net, 001's reduced AlphaZero net."""


def parse_arch(name: str) -> ArchConfig:
    """The config for a model name: a preset or a size name such as ``b6c64`` or ``l12c128``."""
    text = name.strip().lower()
    if text in PRESETS:
        return PRESETS[text]
    patterns: list[tuple[str, Any]] = [
        (r"b(\d+)c(\d+)(-pool)?", lambda m: ResNetConfig(int(m[1]), int(m[2]), pool=bool(m[3]))),
        (r"l(\d+)c(\d+)", lambda m: PolicyCNNConfig(int(m[1]), int(m[2]))),
        (r"dense-h(\d+)(?:x(\d+))?", lambda m: DenseConfig(int(m[1]), int(m[2] or 2))),
        (r"convpool-((?:c\d+)+)", lambda m: ConvPoolConfig(_ints(m[1]))),
    ]
    for pattern, make in patterns:
        match = re.fullmatch(pattern, text)
        if match:
            config: ArchConfig = make(match)
            _validate(config)
            return config
    known = ", ".join([*PRESETS, "bBcC", "bBcC-pool", "lLcC", "dense-hH", "convpool-cAcB"])
    raise ModelError(f"unknown model {name!r} (known: {known})")


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("c") if part)


def _validate(config: ArchConfig) -> None:
    numbers = [v for v in asdict(config).values() if isinstance(v, int) and not isinstance(v, bool)]
    if isinstance(config, ConvPoolConfig):
        numbers.extend(config.filters)
    if any(n < 1 for n in numbers) or any(n > 4096 for n in numbers):
        raise ModelError(f"model sizes must be in 1..4096: {config}")


def config_to_dict(config: ArchConfig) -> dict[str, Any]:
    """A JSON-ready dict (with ``kind``)."""
    data = asdict(config)
    if isinstance(config, ConvPoolConfig):
        data["filters"] = list(config.filters)
    return data


def config_from_dict(data: dict[str, Any]) -> ArchConfig:
    """The inverse of :func:`config_to_dict`; rejects unknown kinds and fields."""
    kind = data.get("kind")
    if kind not in _KINDS:
        raise ModelError(f"unknown model kind {kind!r}")
    values = dict(data)
    if kind == "convpool":
        values["filters"] = tuple(int(f) for f in values.get("filters", ()))
    try:
        config: ArchConfig = _KINDS[kind](**values)
    except TypeError as error:
        raise ModelError(f"bad {kind} model config: {error}") from None
    _validate(config)
    return config


# -- the networks ----------------------------------------------------------------------------


class Net(nn.Module):
    """A network from ``(batch, planes, N, N)`` inputs to ``(policy logits, value or None)``."""

    has_value: bool = False
    has_ownership: bool = False
    size_free: bool = False
    """Whether the network plays every board size (no layer depends on it)."""

    def __init__(self, planes: int, size: int) -> None:
        super().__init__()
        self.planes = planes
        self.size = size
        self.num_actions = size * size + 1


class DenseNet(Net):
    """Design 000's dense network (per-point dense layers, flatten, dense to the moves)."""

    def __init__(self, config: DenseConfig, planes: int, size: int) -> None:
        super().__init__(planes, size)
        layers: list[nn.Module] = []
        width = planes
        for _ in range(config.layers):
            layers += [nn.Linear(width, config.hidden), nn.ReLU()]
            width = config.hidden
        self.point_layers = nn.Sequential(*layers)
        self.out = nn.Linear(size * size * width, self.num_actions)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        per_point = self.point_layers(x.permute(0, 2, 3, 1))
        return self.out(per_point.flatten(1)), None


class ConvPoolNet(Net):
    """Design 000's convolutional network: (conv + max-pool) pairs, flatten, dense."""

    def __init__(self, config: ConvPoolConfig, planes: int, size: int) -> None:
        super().__init__(planes, size)
        layers: list[nn.Module] = []
        width, side = planes, size
        for filters in config.filters:
            layers += [nn.Conv2d(width, filters, 3, padding=1), nn.ReLU()]
            if side >= 2:
                layers.append(nn.MaxPool2d(2))
                side //= 2
            width = filters
        self.features = nn.Sequential(*layers)
        self.out = nn.Linear(width * side * side, self.num_actions)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        return self.out(self.features(x).flatten(1)), None


class PolicyCNN(Net):
    """Design 004's policy network: a stack of 3x3 convolutions, a 1x1, a bias per action."""

    def __init__(self, config: PolicyCNNConfig, planes: int, size: int) -> None:
        super().__init__(planes, size)
        layers: list[nn.Module] = []
        width = planes
        for _ in range(config.layers):
            layers += [nn.Conv2d(width, config.filters, 3, padding=1), nn.ReLU()]
            width = config.filters
        layers.append(nn.Conv2d(width, 1, 1, bias=False))
        self.tower = nn.Sequential(*layers)
        self.bias = nn.Parameter(torch.zeros(self.num_actions))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        points = self.tower(x).flatten(1)
        pass_column = points.new_zeros((points.shape[0], 1))
        return torch.cat([points, pass_column], dim=1) + self.bias, None


class _ResidualBlock(nn.Module):
    def __init__(self, filters: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(filters)
        self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(filters)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


def _conv_bn(inputs: int, outputs: int, kernel: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(inputs, outputs, kernel, padding=kernel // 2, bias=False),
        nn.BatchNorm2d(outputs),
        nn.ReLU(),
    )


class ResNet(Net):
    """MiniGo's dual-head residual network."""

    has_value = True

    def __init__(self, config: ResNetConfig, planes: int, size: int) -> None:
        super().__init__(planes, size)
        f = config.filters
        self.stem = _conv_bn(planes, f, 3)
        self.blocks = nn.Sequential(*[_ResidualBlock(f) for _ in range(config.blocks)])
        self.policy_conv = _conv_bn(f, 2, 1)
        self.policy_out = nn.Linear(2 * size * size, self.num_actions)
        self.value_conv = _conv_bn(f, 1, 1)
        self.value_hidden = nn.Linear(size * size, config.value_hidden)
        self.value_out = nn.Linear(config.value_hidden, 1)
        _add_ownership_head(self, config)

    def trunk(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(self.stem(x))  # type: ignore[no-any-return]

    def heads(self, trunk: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        policy = self.policy_out(self.policy_conv(trunk).flatten(1))
        hidden = torch.relu(self.value_hidden(self.value_conv(trunk).flatten(1)))
        value = torch.tanh(self.value_out(hidden)).squeeze(1)
        return policy, value

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        return self.heads(self.trunk(x))


def _global_pool(x: torch.Tensor) -> torch.Tensor:
    """KataGo's global pooling of ``(batch, C, N, N)``: per channel the mean, the mean scaled
    by ``(N - 14) / 10`` (so the network knows the board's size) and the max: ``(batch, 3C)``."""
    mean = x.mean(dim=(2, 3))
    scaled = mean * ((x.shape[-1] - 14) / 10.0)
    return torch.cat([mean, scaled, x.amax(dim=(2, 3))], dim=1)


class PooledResNet(Net):
    """The dual-head residual network with fully convolutional, globally pooled heads: it plays
    every board size (``size`` is only the size it was built for)."""

    has_value = True
    size_free = True

    def __init__(self, config: ResNetConfig, planes: int, size: int) -> None:
        super().__init__(planes, size)
        f, h = config.filters, config.head_filters
        self.stem = _conv_bn(planes, f, 3)
        self.blocks = nn.Sequential(*[_ResidualBlock(f) for _ in range(config.blocks)])
        self.policy_conv = nn.Conv2d(f, h, 1, bias=False)
        self.policy_pooled = _conv_bn(f, h, 1)
        self.policy_bias = nn.Linear(3 * h, h)
        self.policy_norm = nn.BatchNorm2d(h)
        self.policy_points = nn.Conv2d(h, 1, 1)
        self.policy_pass = nn.Linear(3 * h, 1)
        self.value_conv = _conv_bn(f, h, 1)
        self.value_hidden = nn.Linear(3 * h, config.value_hidden)
        self.value_out = nn.Linear(config.value_hidden, 1)
        _add_ownership_head(self, config)

    def trunk(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(self.stem(x))  # type: ignore[no-any-return]

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        return self.heads(self.trunk(x))

    def heads(self, trunk: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = _global_pool(self.policy_pooled(trunk))
        points = self.policy_conv(trunk) + self.policy_bias(pooled)[:, :, None, None]
        points = self.policy_points(torch.relu(self.policy_norm(points))).flatten(1)
        policy = torch.cat([points, self.policy_pass(pooled)], dim=1)
        hidden = torch.relu(self.value_hidden(_global_pool(self.value_conv(trunk))))
        value = torch.tanh(self.value_out(hidden)).squeeze(1)
        return policy, value


def _add_ownership_head(net: Net, config: ResNetConfig) -> None:
    """A 1x1 convolution of the trunk to one plane, when ``config`` asks for it."""
    if config.ownership:
        net.ownership_out = nn.Conv2d(config.filters, 1, 1)
        net.has_ownership = True


class WithOwnership(nn.Module):
    """A network with an ownership head, seen as one that answers ``(policy logits, value,
    ownership)`` with the ownership ``(batch, N*N)`` in ``[-1, 1]``: the module training
    calls (and data-parallel training wraps) when it teaches ownership."""

    def __init__(self, net: Net) -> None:
        super().__init__()
        if not net.has_ownership:
            raise ModelError("the network has no ownership head")
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        trunk = self.net.trunk(x)  # type: ignore[operator]
        policy, value = self.net.heads(trunk)  # type: ignore[operator]
        ownership = torch.tanh(self.net.ownership_out(trunk)).flatten(1)  # type: ignore[operator]
        return policy, value, ownership


def build_net(config: ArchConfig, planes: int, size: int) -> Net:
    """A freshly initialised network for ``planes`` input planes on a ``size`` board."""
    if planes < 1 or size < 2:
        raise ModelError(f"a network needs planes >= 1 and size >= 2 (got {planes}, {size})")
    if isinstance(config, DenseConfig):
        return DenseNet(config, planes, size)
    if isinstance(config, ConvPoolConfig):
        return ConvPoolNet(config, planes, size)
    if isinstance(config, PolicyCNNConfig):
        return PolicyCNN(config, planes, size)
    if config.pool:
        return PooledResNet(config, planes, size)
    return ResNet(config, planes, size)


def parameter_count(net: nn.Module) -> int:
    """The number of trainable parameters."""
    return sum(p.numel() for p in net.parameters() if p.requires_grad)
