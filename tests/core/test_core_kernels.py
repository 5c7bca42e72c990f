"""``imago.core.kernels``: a kernel's compiled entry point called without the dispatcher
(``direct``), arrays passed by address (``int64_pointer``), block copies (``move_words``); and
``imago.core.memory``: freed heap kept in the process."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import carray, njit

from imago.core.kernels import direct, int64_pointer, move_words


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


@njit(cache=False)
def _sum_at(address: int, n: int) -> int:
    a = carray(int64_pointer(address), n)
    total = 0
    for x in a:
        total += x
    return total


@njit(cache=False)
def _write_at(address: int, n: int) -> None:
    a = carray(int64_pointer(address), n)
    for i in range(n):
        a[i] = 10 * i


def test_an_array_passed_by_address_reads_and_writes_the_callers_memory() -> None:
    a = np.array([3, -1, 2**50, 7], dtype=np.int64)
    assert _sum_at(a.ctypes.data, 4) == int(a.sum())
    assert _sum_at(a.ctypes.data + 8, 2) == -1 + 2**50  # any word of it, any length
    _write_at(a.ctypes.data, 3)
    assert a.tolist() == [0, 10, 20, 7]


@njit(cache=False)
def _move(dst: np.ndarray, d0: int, src: np.ndarray, s0: int, n: int) -> None:
    move_words(dst, d0, src, s0, n)


#  d0  s0  n     (one array: the parts overlap when |d0 - s0| < n)
_MOVES = [
    (0, 10, 5),  # apart
    (2, 0, 6),  # overlapping, moving up: a plain loop would copy what it just wrote
    (0, 3, 8),  # overlapping, moving down
    (4, 4, 3),  # onto itself
    (7, 1, 0),  # nothing
]


@pytest.mark.parametrize(("d0", "s0", "n"), _MOVES)
def test_move_words_is_slice_assignment_even_when_the_parts_overlap(
    d0: int, s0: int, n: int
) -> None:
    a = np.arange(20, dtype=np.int64) * 3 - 7
    expected = a.copy()
    expected[d0 : d0 + n] = a[s0 : s0 + n].copy()
    _move(a, d0, a, s0, n)
    assert a.tolist() == expected.tolist()


def test_move_words_between_arrays_touches_only_the_part_given() -> None:
    src = np.arange(10, dtype=np.int64)
    dst = np.full(10, -1, dtype=np.int64)
    _move(dst, 3, src, 5, 4)
    assert dst.tolist() == [-1, -1, -1, 5, 6, 7, 8, -1, -1, -1]


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
