"""The arithmetic count behind ``imago bench nn.peak``: a network's FLOPs per position, and
the share of the core's matrix-product rate that inference reaches."""

from __future__ import annotations

import pytest

from imago.nn.models import parse_arch
from imago.nn.store import ModelSpec
from imago.nn.throughput import flops_per_position, measure_peak_share


def test_flops_per_position_count_every_multiply_add_of_a_small_resnet() -> None:
    # b1c8 on 5x5, legal4 (4 planes): two FLOPs per multiply-add of each layer
    n = 25
    expected = {
        "stem 3x3, 4 -> 8": 2 * (4 * 9) * (8 * n),
        "block, two 3x3, 8 -> 8": 2 * 2 * (8 * 9) * (8 * n),
        "policy 1x1, 8 -> 2": 2 * 8 * (2 * n),
        "policy dense, 50 -> 26": 2 * (2 * n) * (n + 1),
        "value 1x1, 8 -> 1": 2 * 8 * n,
        "value dense, 25 -> 64": 2 * n * 64,
        "value out, 64 -> 1": 2 * 64,
    }
    net = ModelSpec("go", 5, "legal4", parse_arch("b1c8")).build()
    assert flops_per_position(net, 4, 5) == sum(expected.values())


@pytest.mark.slow
def test_the_peak_benchmark_reports_a_share_of_the_matrix_product_rate() -> None:
    pytest.importorskip("onnxruntime")  # a third-party extra, not imago's own
    figures = {m.name: m.value for m in measure_peak_share(quick=True)}
    assert figures["nn.peak.sgemm_gflops"] > 0
    for game in ("go9", "othello8"):
        flops = figures[f"nn.peak.{game}.b5c48.mflops_per_pos"] * 1e6
        rate = figures[f"nn.peak.{game}.b5c48.ort_b128_pos_s"]
        share = figures[f"nn.peak.{game}.b5c48.share_of_sgemm"]
        assert share == pytest.approx(rate * flops / (figures["nn.peak.sgemm_gflops"] * 1e9))
        assert 0 < share < 2
