"""``imago.core.kernels.direct``: a kernel's compiled entry point, called without the dispatcher,
and ``imago.core.memory``: freed heap kept in the process."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from imago.core.kernels import direct


@njit(cache=False)
def _scaled_sum(a: np.ndarray, k: int) -> int:
    total = 0
    for x in a:
        total += x
    return total * k


@njit(cache=False)
def _fill(out: np.ndarray, value: int) -> int:
    for i in range(out.shape[0]):
        out[i] = value
    return out.shape[0]


@pytest.mark.parametrize(
    ("values", "k"),
    [([], 3), ([1, 2, 3], 1), ([5, -7, 11, 2**40], -2)],
)
def test_direct_gives_the_dispatchers_results(values: list[int], k: int) -> None:
    fast = direct(_scaled_sum, "(int64[::1], int64)")
    a = np.array(values, dtype=np.int64)
    assert fast(a, k) == _scaled_sum(a, k) == sum(values) * k


def test_direct_writes_into_the_callers_array() -> None:
    fast = direct(_fill, "(int64[::1], int64)")
    out = np.zeros(5, dtype=np.int64)
    assert fast(out, 9) == 5
    assert out.tolist() == [9] * 5


def test_direct_compiles_exactly_the_signature_given() -> None:
    @njit(cache=False)
    def twice(x: int) -> int:
        return 2 * x

    assert twice.signatures == []
    fast = direct(twice, "(int64,)")
    assert [str(s) for s in twice.signatures] == ["(int64,)"]
    assert fast(21) == 42
    assert direct(twice, "(int64,)") is fast  # compiled once, the same entry point after


def test_direct_rejects_arguments_it_cannot_convert() -> None:
    fast = direct(_scaled_sum, "(int64[::1], int64)")
    with pytest.raises((TypeError, ValueError)):
        fast(np.arange(3, dtype=np.int64), "three")


_PROBE = "from imago.core.memory import retain_freed_memory as r; print(r(), r())"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
@pytest.mark.parametrize(("setting", "expected"), [(None, "True True"), ("0", "False False")])
def test_retain_freed_memory_once_per_process_unless_turned_off(
    setting: str | None, expected: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "IMAGO_KEEP_MEMORY"}
    if setting is not None:
        env["IMAGO_KEEP_MEMORY"] = setting
    run = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == expected
