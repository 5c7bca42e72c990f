# mypy: disable-error-code="no-any-return,return-value"
"""xorshift64* (Vigna, 2016): the pseudo-random generator of imago's numba kernels.

The state is a one-element array, ``int64`` or ``uint64`` (the same 64 bits either way),
seeded by the caller with any non-zero value; each draw advances it in place, so a kernel's
random choices follow from its seed and need no global state::

    >>> import numpy as np
    >>> from imago.core.rng import rand_below
    >>> state = np.array([1], dtype=np.int64)
    >>> [int(rand_below(state, 10)) for _ in range(5)]
    [7, 6, 7, 8, 0]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_MULTIPLIER = np.uint64(0x2545F4914F6CDD1D)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S33 = np.uint64(33)


@njit(cache=True, inline="always")
def next_u64(state: Any) -> np.uint64:
    """Advance ``state[0]`` one xorshift step; the next 64-bit output (``uint64``)."""
    x = np.uint64(state[0])
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    state[0] = x
    return x * _MULTIPLIER


@njit(cache=True, inline="always")
def rand_below(state: Any, n: int) -> int:
    """A uniform integer in ``[0, n)`` (``0 < n < 2**31``) from the top 31 bits of the next
    output (an ``int64``)."""
    return np.int64(next_u64(state) >> _S33) % n
