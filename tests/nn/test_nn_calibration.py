"""The value head's calibration error (reported per generation on real records)."""

from __future__ import annotations

import numpy as np
import pytest

from imago.nn.supervised import calibration_error

# (values in [-1, 1], results for the player to move: 1 won, 0 drawn, -1 lost, error)
CASES = [
    ([0.4, 0.4, 0.4, 0.4, 0.4], [1, 1, 1, -1, 1], 0.1),  # says 70 %, wins 80 %
    ([1.0, 1.0, 1.0, 1.0], [1, -1, 1, -1], 0.5),  # sure of every game, wins half
    ([-1.0, 1.0], [-1, 1], 0.0),  # sure and right
    ([0.0, 0.0], [0, 0], 0.0),  # says 50 %, draws
    ([0.0, 0.0, 1.0, 1.0], [1, -1, 1, 1], 0.0),  # two bins, each right
]


@pytest.mark.parametrize(("values", "results", "error"), CASES)
def test_calibration_error_weighs_each_bins_gap(
    values: list[float], results: list[int], error: float
) -> None:
    assert calibration_error(np.array(values), np.array(results)) == pytest.approx(error)
