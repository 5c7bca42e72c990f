"""Growing a residual network: the larger one plays exactly as the smaller one did, and its
new weights learn (Net2Net's function-preserving widening, zero-initialised new blocks)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from imago.nn.grow import grow, grown_config
from imago.nn.models import ModelError, Net, ResNetConfig, build_net, parse_arch

#  from      to           what grows
#  b2c8   -> b2c8         nothing (a copy)
#  b2c8   -> b2c12        channels: 4 new in every layer of the trunk
#  b2c8   -> b4c8         blocks: 2 new identity blocks after the old ones
#  b2c8   -> b3c16        both
GROWTHS = [
    ("b2c8", "b2c8"),
    ("b2c8", "b2c12"),
    ("b2c8", "b4c8"),
    ("b2c8", "b3c16"),
    ("b1c8-pool", "b2c16-pool"),
]


def _resnet(name: str) -> ResNetConfig:
    config = parse_arch(name)
    assert isinstance(config, ResNetConfig)
    return config


def _trained_like(name: str, planes: int, size: int, seed: int) -> Net:
    """A network of ``name`` whose batch norms hold statistics other than the defaults (as a
    trained one's do), so that the test sees them carried over."""
    torch.manual_seed(seed)
    net = build_net(parse_arch(name), planes, size)
    net.train()
    with torch.no_grad():
        for _ in range(3):
            net(torch.rand(16, planes, size, size))
    return net.eval()


@pytest.mark.parametrize(("small", "large"), GROWTHS)
@pytest.mark.parametrize("mode", ["eval", "train"])
def test_a_grown_network_computes_what_the_small_one_did(small: str, large: str, mode: str) -> None:
    net = _trained_like(small, planes=4, size=6, seed=1)
    bigger, config = grow(net, _resnet(small), large, seed=2)
    assert (config.blocks, config.filters) == (_resnet(large).blocks, _resnet(large).filters)
    x = torch.rand(8, 4, 6, 6)
    getattr(net, mode)()
    getattr(bigger, mode)()
    with torch.no_grad():
        (policy, value), (grown_policy, grown_value) = net(x), bigger(x)
    assert torch.allclose(policy, grown_policy, atol=1e-5)
    assert value is not None and grown_value is not None
    assert torch.allclose(value, grown_value, atol=1e-5)


@settings(max_examples=15, deadline=None)
@given(
    blocks=st.integers(1, 3),
    filters=st.integers(2, 10),
    more_blocks=st.integers(0, 2),
    more_filters=st.integers(0, 6),
    size=st.integers(3, 7),
    seed=st.integers(0, 2**16),
)
def test_any_growth_keeps_the_policy_and_value(
    blocks: int, filters: int, more_blocks: int, more_filters: int, size: int, seed: int
) -> None:
    small = f"b{blocks}c{filters}"
    net = _trained_like(small, planes=3, size=size, seed=seed)
    large = f"b{blocks + more_blocks}c{filters + more_filters}"
    bigger, _ = grow(net, _resnet(small), large, seed=seed)
    bigger.eval()
    x = torch.rand(4, 3, size, size)
    with torch.no_grad():
        (policy, value), (grown_policy, grown_value) = net(x), bigger(x)
    assert torch.allclose(policy, grown_policy, atol=1e-5)
    assert value is not None and grown_value is not None
    assert torch.allclose(value, grown_value, atol=1e-5)


def test_the_new_channels_and_blocks_learn() -> None:
    """Not dead weight: one training step moves the weights out of the new channels (zero at
    first) and the scale of a new block's last batch norm."""
    net = _trained_like("b1c4", planes=3, size=5, seed=3)
    grown, _ = grow(net, _resnet("b1c4"), "b2c6", seed=4)
    bigger: Any = grown.train()
    optimizer = torch.optim.SGD(bigger.parameters(), lr=0.1)
    policy, value = bigger(torch.rand(16, 3, 5, 5))
    loss = policy.logsumexp(1).mean() - policy[:, 0].mean() + (value - 0.5).pow(2).mean()
    loss.backward()
    optimizer.step()
    out_of_new_channels = bigger.blocks[0].conv2.weight[:4, 4:]
    assert out_of_new_channels.abs().sum() > 0
    assert bigger.blocks[1].bn2.weight.abs().sum() > 0
    assert bigger.policy_conv[0].weight[:, 4:].abs().sum() > 0


@pytest.mark.parametrize(
    ("small", "large", "message"),
    [
        ("b2c8", "b1c8", "keeps every block"),
        ("b2c8", "b2c6", "keeps every block"),
        ("b2c8", "b2c8-pool", "grows into"),
        ("b2c8-pool", "b3c8", "grows into"),
        ("b2c8", "l4c8", "grows into"),
        ("b2c8", "huge", "unknown model"),
        ("l4c8", "b4c8", "only residual"),
    ],
)
def test_a_growth_that_would_lose_or_change_something_is_refused(
    small: str, large: str, message: str
) -> None:
    with pytest.raises(ModelError, match=message):
        grown_config(parse_arch(small), large)


#  from      to          what the first convolution gains
#  legal4 -> libs8       4 planes (liberties 1, 2, 3; colour): same play, whatever they hold
#  legal4 -> legal4      nothing (a copy)
@pytest.mark.parametrize(("old", "new"), [("legal4", "libs8"), ("legal4", "legal4")])
def test_a_network_grown_to_more_inputs_ignores_them_until_trained(old: str, new: str) -> None:
    from imago.nn.features import feature_set
    from imago.nn.grow import grow_input

    small, large = feature_set(old), feature_set(new)
    net = _trained_like("b2c8", planes=small.planes, size=7, seed=3)
    wider = grow_input(net, _resnet("b2c8"), small, large).eval()
    x = torch.rand(8, large.planes, 7, 7)
    with torch.no_grad():
        (policy, value), (wide_policy, wide_value) = net(x[:, : small.planes]), wider(x)
    assert torch.allclose(policy, wide_policy, atol=1e-5)
    assert value is not None and wide_value is not None
    assert torch.allclose(value, wide_value, atol=1e-5)
    stem = wider.stem[0].weight  # type: ignore[index]
    assert stem.shape[1] == large.planes and not stem[:, small.planes :].any()


@pytest.mark.parametrize(("old", "new"), [("legal4", "history11"), ("libs8", "legal4")])
def test_inputs_grow_only_into_a_set_that_begins_with_the_old_one(old: str, new: str) -> None:
    from imago.nn.features import feature_set
    from imago.nn.grow import grow_input

    net = _trained_like("b1c8", planes=feature_set(old).planes, size=5, seed=4)
    with pytest.raises(ModelError, match="do not begin with"):
        grow_input(net, _resnet("b1c8"), feature_set(old), feature_set(new))
